// Reads AMDGCN assembly text into a Program: kirc's .s output (instructions,
// `.amdhsa_kernel` directives, `.amdgpu_metadata` YAML) and llvm-objdump -d
// output (`// 000000001600: C0060100 00000000` address comments, `<label>:`
// lines, branch offsets as immediates). Instructions become kir::MInst on
// physical registers, with the s_waitcnt operands in the encoding of
// compiler/passes/waitcnt.h (vmcnt, lgkmcnt; -1 = not waited).
#ifndef KIRC_HW_EMU_ASM_READER_H_
#define KIRC_HW_EMU_ASM_READER_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/target/target.h"
#include "hw/emu/program.h"

namespace kir::emu {

// Everything read from one assembly text.
struct AsmText {
  // Instructions per function label (".L" labels are local to a function).
  std::map<std::string, Program> functions;
  // `.amdhsa_kernel NAME` blocks: directive (without ".amdhsa_") -> value.
  std::map<std::string, std::map<std::string, int64_t>> descriptors;
  std::string metadata_yaml;  // the `.amdgpu_metadata` block ("" if none)
};

// What the reader accepts beyond assembly.
struct ReadOptions {
  // Virtual registers as kirc's printed MIR names them (%v12, %s3[0:1]: vreg
  // id, then dwords of its tuple), for `kirc opt` on MIR. Off for code that
  // runs: the emulator executes physical registers only.
  bool virtual_registers = false;
};

// Reads a whole text. Addresses come from llvm-objdump comments when present;
// otherwise they are estimated from encoding sizes (4 or 8 bytes, +4 for a
// literal), starting at 0 for each function. Errors name the line and column
// context: unknown mnemonics (with the address), malformed operands,
// s_waitcnt counts beyond the target's fields, unresolved branch labels.
absl::StatusOr<AsmText> ReadAssembly(absl::string_view text, const TargetInfo& t,
                                     const ReadOptions& options = {});

// Parses one instruction (no label, no comment), e.g.
// "buffer_load_dwordx4 v[2:5], v1, s[4:7], s0 offen offset:16". Branch
// targets are left unresolved (Inst::target = -1; the target operand holds an
// immediate offset, or 0 for a label, which `label` receives).
absl::StatusOr<Inst> ParseInstruction(absl::string_view text, const TargetInfo& t,
                                      std::string* label = nullptr, const ReadOptions& options = {});

// The encoding size the assembler would choose (4 or 8, +4 for a literal).
int EstimateSize(const Inst& in);

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_ASM_READER_H_
