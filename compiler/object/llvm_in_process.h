// LLVM 22's assembler, ELF note reader and disassembler run inside the
// calling process (LLVM's MC layer), instead of spawning llvm-mc, llvm-readelf
// and llvm-objdump (code_object_linker.h replaces ld.lld). Each function gives the same
// bytes or text as the tool it replaces (toolchain.h lists the tool for each;
// llvm_in_process_test compares them on kirc's kernels), in a fraction of the
// time: a process start of an LLVM tool costs 5-20 ms of dynamic relocation.
//
// toolchain.h's AssembleToObject, ReadElfNotes and DisassembleSymbol call
// these when their `llvm_bin` is LLVM 22's own
// directory (the library kirc links); another directory (--llvm-bin, e.g. a
// ROCm LLVM) runs that directory's tools instead.
//
// Thread safety: every function may be called from several threads at once;
// they share no state.
#ifndef KIRC_COMPILER_OBJECT_LLVM_IN_PROCESS_H_
#define KIRC_COMPILER_OBJECT_LLVM_IN_PROCESS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kir {

// A target ID ("gfx90a", "gfx942:sramecc+:xnack-") as LLVM's -mcpu and -mattr
// take it: processor "gfx942" and features "+sramecc,-xnack" ("" when none).
struct McTarget {
  std::string processor;
  std::string features;
};
// Errors: InvalidArgument for an empty ID or a feature without a trailing + or
// - (the message quotes the ID and the feature).
absl::StatusOr<McTarget> SplitTargetId(absl::string_view target_id);

// As `llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=P -mattr=F -filetype=obj`: the
// relocatable ELF object (bytes) of `asm_text`. Diagnostics read
// "<stdin>:LINE:COL: error: ..." as llvm-mc's do when it reads its stdin.
// Errors: InvalidArgument for a bad target ID, a processor LLVM 22 does not
// know, or assembly llvm-mc would refuse (the message holds every diagnostic).
absl::StatusOr<std::string> AssembleInProcess(absl::string_view asm_text,
                                              absl::string_view target_id);

// Checks that `bytes` are a 64-bit little-endian AMDGPU ELF file of type
// `want_type` (llvm::ELF::ET_REL: an assembler's output, what a link takes;
// ET_DYN: a linked code object) with a section table LLVM 22's ELF reader
// reads. Errors: InvalidArgument saying which check fails.
absl::Status CheckAmdgpuElf(absl::string_view bytes, uint16_t want_type);

// Checks that `bytes` are a linked AMDGPU code object (what ld.lld -shared
// makes and HIP loads): ELFCLASS64, ELFDATA2LSB, e_machine EM_AMDGPU,
// e_type ET_DYN, with a readable section table, OS/ABI ELFOSABI_AMDGPU_HSA
// and program headers. Errors: InvalidArgument
// saying which check fails (e.g. "a relocatable object (ET_REL), not a linked
// code object: link it with ld.lld -shared").
absl::Status CheckCodeObject(absl::string_view bytes);

// The AMDGPU notes of an ELF file as `llvm-readelf --notes` prints them:
// for each NT_AMDGPU_METADATA note its header lines, "    AMDGPU Metadata:"
// and the MessagePack document as YAML (what code_object_notes.h parses).
// Other notes are left out. Errors: InvalidArgument if the bytes are not a
// 64-bit little-endian ELF file or a note is malformed.
absl::StatusOr<std::string> ReadNotesInProcess(absl::string_view elf_bytes);

// The instructions of function symbol `symbol` of a code object as
// `llvm-objdump -d --mcpu=PROCESSOR --disassemble-symbols=SYMBOL` prints them:
// a "ADDRESS <symbol>:" line, then per instruction a tab, its text left-justified
// to 60 columns, "// ADDRESS: " (12 hex digits) and its dwords in hex. The
// symbol spans st_size bytes (to the end of its section when st_size is 0).
// Errors: InvalidArgument for bytes that are not ELF, an unknown processor or
// bytes that do not decode (naming the address and dword; llvm-objdump would
// print them as `.long` data); NotFound if there is no such function symbol.
absl::StatusOr<std::string> DisassembleSymbolInProcess(absl::string_view elf_bytes,
                                                       absl::string_view symbol,
                                                       absl::string_view processor);

}  // namespace kir

#endif  // KIRC_COMPILER_OBJECT_LLVM_IN_PROCESS_H_
