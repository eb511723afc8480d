// kirc's own linker of a code object: one AMDGPU relocatable object (what
// llvm-mc makes of a kernel's assembly) to the shared object HIP loads, laid
// out as `ld.lld -shared` (LLD 22) lays it out. It replaces lld inside the
// process, so kirc needs neither lld's libraries (whose LTO part pulls in every
// LLVM target) nor an ld.lld process for its own kernels.
//
// What it links: sections .text (AX), .rodata (A, the kernel descriptors),
// .note (the NT_AMDGPU_METADATA note), .rela.rodata, .symtab, .strtab;
// defined local and global symbols (default or protected visibility) in those
// sections; R_AMDGPU_REL64 relocations in .rodata against symbols that cannot
// be preempted (local or protected: kernel_code_entry_byte_offset). That is
// what kirc's assembly and hand-written kernels in the same form give.
// Anything else (data sections, undefined, weak or hidden symbols, other
// relocations, symbols named _DYNAMIC or _GLOBAL_OFFSET_TABLE_) is Unimplemented, and toolchain.h's LinkCodeObject runs ld.lld
// for it.
//
// The output matches ld.lld 22's in every byte but the .comment section's text
// ("Linker: kirc" instead of lld's version) and the offsets of the
// non-allocated sections after it: the same segments, sections, addresses,
// symbol tables, hash tables, dynamic section and notes (code_object_linker_test
// compares them on every testdata kernel, target and random kernels).
// Layout facts (checked against ld.lld 22.1's output): headers then the
// read-only segment (.note, .dynsym, .gnu.hash, .hash, .dynstr, .rodata), the
// code segment, the RELRO segment (.dynamic, .relro_padding to the 4 KiB
// page); each new segment starts at align(dot, 4096) + dot % 4096; file
// offsets are congruent to addresses modulo 4096.
#ifndef KIRC_COMPILER_OBJECT_CODE_OBJECT_LINKER_H_
#define KIRC_COMPILER_OBJECT_CODE_OBJECT_LINKER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kir {

// The code object (ET_DYN bytes) linked from one relocatable object.
// Errors: InvalidArgument when `object_bytes` is not a 64-bit little-endian
// AMDGPU ET_REL ELF file or is malformed (a bad section table, symbol or
// relocation out of range); Unimplemented, naming the construct, for a valid
// object outside what this linker handles (ld.lld links those).
absl::StatusOr<std::string> LinkOneObject(absl::string_view object_bytes);

// The text of the linked code object's .comment section.
inline constexpr char kCodeObjectLinkerComment[] = "Linker: kirc";

}  // namespace kir

#endif  // KIRC_COMPILER_OBJECT_CODE_OBJECT_LINKER_H_
