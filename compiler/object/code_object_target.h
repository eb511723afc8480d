// The target of a code object kirc did not make: from its metadata's
// `amdhsa.target` when present, else from its ELF header, checked against
// the target ID the user gave (--mcpu, or the .kir file's `target` line).
// One helper for `kirc run --code-object` (hw/run) and `kirc verify
// --code-object` (through the emulator's loader, hw/emu), so both accept and
// refuse the same code objects with the same words.
//
// ELF header facts (LLVM AMDGPUUsage, "ELF Header" and "e_flags"):
//  - e_ident[EI_ABIVERSION] (byte 8): 1 code object v3, 2 v4, 3 v5, 4 v6
//    (ELFABIVERSION_AMDGPU_HSA_V3..V6).
//  - e_flags bits 0-7: EF_AMDGPU_MACH, the processor (TargetInfo::elf_mach:
//    gfx908 0x030, gfx90a 0x03f, gfx942 0x04c).
//  - v4 and later: bits 8-9 EF_AMDGPU_FEATURE_XNACK_V4 and bits 10-11
//    EF_AMDGPU_FEATURE_SRAMECC_V4, each 0 unsupported, 1 any, 2 off, 3 on
//    (TargetId::ElfFlags is the one encoding; ReadElfTarget finds the
//    settings it encodes as the header's); v6 puts EF_AMDGPU_GENERIC_VERSION in
//    bits 24-31 (generic processors, which kirc does not target).
//  - v3: bit 8 EF_AMDGPU_FEATURE_XNACK_V3 and bit 9
//    EF_AMDGPU_FEATURE_SRAMECC_V3, set = on, clear = off (v3 has no "any").
// Code objects of v4 and later carry `amdhsa.target` in their metadata as
// LLVM writes it, but hand-assembled ones (hipBLASLt's Tensile kernels,
// aiter's .co files) often leave it out; v3 metadata never has it.
#ifndef KIRC_COMPILER_OBJECT_CODE_OBJECT_TARGET_H_
#define KIRC_COMPILER_OBJECT_CODE_OBJECT_TARGET_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/target/target.h"

namespace kir {

// The target ID an AMDGPU ELF header encodes, and what it was read from.
struct ElfTarget {
  TargetId id;
  uint32_t e_flags = 0;
  int abi_version = 0;  // e_ident[EI_ABIVERSION]: 1 = v3, 2 = v4, 3 = v5, 4 = v6
  // "e_flags 0x54c (code object v5: EF_AMDGPU_MACH 0x04c = gfx942, xnack-, sramecc+)"
  std::string Describe() const;
};

// Decodes the header of `elf`. Errors (InvalidArgument, saying what to do):
// not an ELF64 little-endian AMDGPU (EM_AMDGPU) file; an ABI version before
// v3 or after v6; an EF_AMDGPU_MACH that is not gfx908, gfx90a, gfx942 or gfx950
// (named by its value; a generic v6 processor as such); feature bits that
// say "unsupported" for a feature the processor has.
absl::StatusOr<ElfTarget> ReadElfTarget(absl::string_view elf);

// How the code object's target ID must relate to the one asked for.
enum class TargetMatch {
  // Processor equal, and each feature equal or "any" in the code object
  // (`kirc run`, whose --mcpu names the device: gfx90a:xnack- code is not
  // what runs as gfx90a:xnack+, nor what HIP loads on such a device, while
  // gfx90a code, xnack any, runs on both; AMDGPUUsage "Target ID"). A
  // request "gfx90a" (any) takes only code for any.
  kExact,
  // Same processor; each feature the request sets (not "any") equal, or
  // "any" in the code object. A request "gfx90a" accepts code for any feature
  // settings (the emulator's loader and `kirc verify`).
  kFeaturesRequested,
};

// The target ID of code object `elf` whose metadata names target ID
// `metadata_target_id` (TargetIdOf(MetadataTarget(notes)) of hw/kernarg.h:
// "gfx90a:xnack-" for "amdgcn-amd-amdhsa--gfx90a:xnack-"; "" when the
// metadata has no amdhsa.target), checked against `want`:
//  - with a metadata target: it must parse, and agree with the ELF header
//    (processor and features; a v3 header's on/off features with "any"
//    counting as either);
//  - without one: the ELF header's target ID is the code object's;
// then that ID must match `want` as `match` says. Returns the code object's
// own target ID (its features, not the request's). Errors
// (InvalidArgument, without the file name: the caller adds it) name both
// IDs and what to give instead ("use --mcpu=gfx942:sramecc+:xnack-"), and
// say when the target came from the ELF header because the metadata has no
// amdhsa.target.
absl::StatusOr<TargetId> CodeObjectTargetId(absl::string_view elf, absl::string_view metadata_target_id,
                                            const TargetId& want, TargetMatch match);

}  // namespace kir

#endif  // KIRC_COMPILER_OBJECT_CODE_OBJECT_TARGET_H_
