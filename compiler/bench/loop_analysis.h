// The main loop of a kernel in any code object (kirc's, clang's, a hand-written
// or another generator's assembly): issue 16's loop analyser, first part.
//
// From the kernel symbol's disassembly (llvm-objdump's format, made in process
// by LLVM 22, compiler/object/llvm_in_process.h) it finds the main loop, the
// body of the backward branch with the most MFMAs in it (on a tie the shorter
// body, an inner loop rather than the loop around it, then the later one;
// Tensile's kernels follow their main loop with a tail loop of fewer MFMAs
// and may wrap it in a loop over tiles), else of the last backward branch, and
// counts per trip and per wave:
//  - instructions by class (MnemonicClass's classes);
//  - MFMA work: FLOP = 2 * M * N * K per MFMA (a wave's whole MxNxK product;
//    shapes from kirc's MFMA table, compiler/target, else parsed from the
//    mnemonic's MxNxK);
//  - other (non-MFMA) instructions per 16 KFLOP (one 32x32x8 or two 16x16x16
//    MFMAs, the unit of issue 16's table);
//  - LDS bytes read: a ds_read's bytes per lane (b32 4, b64 8, b96 12, b128 16,
//    read2_b32 8, read2_b64 16, u8/i8 1, u16/i16 2) times 64 lanes, and FLOP per
//    LDS byte read;
//  - the smallest vmcnt an s_waitcnt in the loop waits for (-1: none).
// Registers and LDS come from the AMDGPU metadata notes when present.
// Not built yet (issue 16 item 5): the throughput bound and bytes loaded per
// FLOP.
#ifndef KIRC_COMPILER_BENCH_LOOP_ANALYSIS_H_
#define KIRC_COMPILER_BENCH_LOOP_ANALYSIS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kir {

// One instruction line of llvm-objdump -d output.
struct DisassembledInstruction {
  uint64_t addr = 0;      // byte address
  std::string mnemonic;   // e.g. "v_mfma_f32_32x32x8_f16"
  std::string operands;   // the rest of the text
  std::string cls;        // MnemonicClass(mnemonic)
};

// The instruction lines of llvm-objdump -d text (lines starting with a tab and
// carrying a "// ADDRESS:" comment). Errors: none (other lines are skipped).
std::vector<DisassembledInstruction> ParseObjdumpInstructions(absl::string_view objdump_text);

// Instruction class of an llvm-objdump mnemonic, with the emulator's names
// ("salu", "smem", "valu", "vmem", "ds", "mfma", "waitcnt", "nop", "branch",
// "barrier", "other"); v_accvgpr_* count as valu (as in the emulator).
std::string MnemonicClass(const std::string& mnemonic);

// [first, last] indices into `code` of the main loop's body (see above; the
// body is the instructions from the branch target to the branch), or
// {-1, -1} when the code has no backward branch.
std::pair<int, int> FindMainLoop(const std::vector<DisassembledInstruction>& code);

struct LoopAnalysis {
  std::string kernel;
  int total_instructions = 0;
  bool has_loop = false;
  uint64_t loop_first_addr = 0, loop_last_addr = 0;
  std::map<std::string, int> loop_by_class;
  int loop_instructions = 0;
  int loop_mfma = 0;
  double loop_flop = 0;              // MFMA FLOP per wave per trip
  double other_per_16kflop = 0;      // non-MFMA instructions per 16,384 FLOP (0 without MFMAs)
  int64_t loop_lds_read_bytes = 0;   // per wave per trip
  double flop_per_lds_byte = 0;      // 0 without LDS reads
  int smallest_vmcnt = -1;           // -1: no vmcnt wait in the loop
  std::vector<std::string> unknown_mfmas;  // MFMA mnemonics whose shape was not found
  // From the metadata notes (-1 when the object has none).
  int64_t vgprs = -1, agprs = -1, sgprs = -1, lds_bytes = -1;
};

// Analyses kernel `kernel` (its function symbol) of an ELF object (a linked
// code object or an assembler's relocatable object) for `processor` (gfx908,
// gfx90a, gfx942). Errors: InvalidArgument for bytes that are not AMDGPU ELF
// or do not decode, NotFound for a missing symbol.
absl::StatusOr<LoopAnalysis> AnalyzeKernelObject(absl::string_view elf_bytes, absl::string_view processor,
                                                 absl::string_view kernel);

// The same from llvm-objdump -d text of the kernel (no notes).
LoopAnalysis AnalyzeDisassembly(absl::string_view objdump_text, absl::string_view kernel);

// A report of `a` (one line per figure).
std::string FormatLoopAnalysis(const LoopAnalysis& a);

}  // namespace kir

#endif  // KIRC_COMPILER_BENCH_LOOP_ANALYSIS_H_
