// Parser for the AMDGPU code-object metadata that `llvm-readelf --notes` prints
// (the YAML inside the NT_AMDGPU_METADATA note; see AMDGPUUsage, "Code Object V3+
// Metadata"). Only the fields the project checks are extracted.
#ifndef KIRC_COMPILER_OBJECT_CODE_OBJECT_NOTES_H_
#define KIRC_COMPILER_OBJECT_CODE_OBJECT_NOTES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kir {

// One entry of a kernel's `.args` list. Offsets and sizes are in bytes within
// the kernarg segment.
struct ArgNote {
  int64_t offset = 0;         // .offset (required)
  int64_t size = 0;           // .size (required)
  std::string value_kind;     // .value_kind (required), e.g. "global_buffer", "by_value"
  std::string name;           // .name, "" if absent
  std::string actual_access;  // .actual_access ("read_only", ...), "" if absent
  // The source type when the compiler recorded it: .type_name ("float",
  // "unsigned int", "size_t", "float*"; OpenCL with -cl-kernel-arg-info,
  // HIP) or the v3-era .value_type ("f32", "i32", "u32", "struct"; Tensile
  // still writes it). "" if absent. `kirc run --scalar` types by them.
  std::string type_name;
  std::string value_type;
};

// The metadata of one kernel (one entry of `amdhsa.kernels`). Sizes are in bytes;
// register counts are per work-item (VGPR/AGPR) or per wave (SGPR).
struct KernelNotes {
  std::string name;                    // .name (required)
  std::string symbol;                  // .symbol (the kernel descriptor, "<name>.kd"), "" if absent
  int64_t kernarg_segment_size = 0;    // .kernarg_segment_size (required)
  int64_t group_segment_fixed_size = 0;    // .group_segment_fixed_size: LDS bytes (required)
  int64_t private_segment_fixed_size = 0;  // .private_segment_fixed_size: scratch bytes (required)
  int64_t sgpr_count = 0;              // .sgpr_count (required)
  int64_t vgpr_count = 0;              // .vgpr_count (required; on gfx90a+ arch + acc total)
  int64_t agpr_count = -1;             // .agpr_count, -1 if absent
  int64_t max_flat_workgroup_size = 0; // .max_flat_workgroup_size: work-items (required)
  int64_t wavefront_size = 0;          // .wavefront_size: lanes, 64 on CDNA (required)
  std::vector<ArgNote> args;           // .args in order, empty if absent
};

// Extracts every kernel described by the AMDGPU metadata in `readelf_notes_text`,
// the output of `llvm-readelf --notes` (every "AMDGPU Metadata:" YAML document in
// it is read, in order). Text without that header that is itself a metadata YAML
// document (contains "amdhsa.kernels") is accepted as well.
// Errors (never crashes): NotFound if there is no AMDGPU metadata;
// InvalidArgument, naming the line, for YAML this parser cannot read, a missing
// `amdhsa.kernels` list, a missing required field, or a non-integer number.
absl::StatusOr<std::vector<KernelNotes>> ParseKernelNotes(absl::string_view readelf_notes_text);

}  // namespace kir

#endif  // KIRC_COMPILER_OBJECT_CODE_OBJECT_NOTES_H_
