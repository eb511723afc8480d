// What the emulator needs to know about a kernel besides its instructions:
// the kernel descriptor (AMDGPUUsage "Kernel Descriptor"; amdgcn-isa-notes.md
// 6.2) decoded into the initial register layout, and the code-object metadata
// (kernarg layout, workgroup size). Built from a code object's `.kd` bytes and
// `llvm-readelf --notes` text, or from kirc-style `.amdhsa_*` directives and
// `.amdgpu_metadata` YAML.
#ifndef KIRC_HW_EMU_CODE_OBJECT_H_
#define KIRC_HW_EMU_CODE_OBJECT_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/target/target.h"

namespace kir::emu {

// kernel_code_properties bits (byte 56 of the descriptor).
enum KernelCodeProperty : uint16_t {
  kEnablePrivateSegmentBuffer = 1 << 0,  // 4 user SGPRs (not on gfx94x)
  kEnableDispatchPtr = 1 << 1,           // 2
  kEnableQueuePtr = 1 << 2,              // 2
  kEnableKernargSegmentPtr = 1 << 3,     // 2
  kEnableDispatchId = 1 << 4,            // 2
  kEnableFlatScratchInit = 1 << 5,       // 2 (not on gfx94x)
  kEnablePrivateSegmentSize = 1 << 6,    // 1
  kEnableWavefrontSize32 = 1 << 10,
};

struct KernelInfo {
  std::string name;
  const TargetInfo* target = nullptr;
  FeatureSetting xnack = FeatureSetting::kAny;  // the code object's target-ID xnack setting
  FeatureSetting sramecc = FeatureSetting::kAny;  // and its sramecc setting (D16 loads)
  // Descriptor fields.
  uint32_t group_segment_size = 0;    // LDS bytes
  uint32_t private_segment_size = 0;  // scratch bytes per work-item
  uint32_t kernarg_size = 0;
  int64_t entry_offset = 0;           // kernel code entry - descriptor address
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint16_t properties = 0, kernarg_preload = 0;

  // Initial SGPR layout (AMDGPUUsage "Initial Kernel Execution State"): the
  // first SGPR of each enabled user SGPR, -1 when disabled.
  int private_segment_buffer_sgpr = -1, dispatch_ptr_sgpr = -1, queue_ptr_sgpr = -1,
      kernarg_ptr_sgpr = -1, dispatch_id_sgpr = -1, flat_scratch_init_sgpr = -1,
      preload_sgpr = -1, private_segment_size_sgpr = -1;
  int preload_dwords = 0, preload_offset_dwords = 0;
  int user_sgpr_count = 0;          // rsrc2 USER_SGPR_COUNT
  std::array<int, 3> workgroup_id_sgpr = {-1, -1, -1};  // system SGPRs after the user SGPRs
  int workgroup_info_sgpr = -1;
  int scratch_wave_offset_sgpr = -1;
  int workitem_id_enable = 0;       // rsrc2 [12:11]: 0 = x, 1 = x,y, 2 = x,y,z
  bool packed_workitem_ids = false; // gfx90a/942: v0 = x | y << 10 | z << 20
  // Register allocation: gfx908 has separate VGPR and AGPR files of
  // `vgpr_limit`/`agpr_limit` registers; gfx90a/942 have one unified file of
  // `unified_vgprs` entries with AGPR aN at index accum_offset + N.
  int vgpr_limit = 0, agpr_limit = 0, unified_vgprs = 0, accum_offset = 0;
  // SGPRs the wavefront is given, the special SGPRs (VCC, XNACK_MASK,
  // FLAT_SCRATCH) included: SgprsGranted of rsrc1 GRANULATED_WAVEFRONT_SGPR_COUNT.
  int sgpr_granted = 0;
  int fp32_denorm_mode = 3, fp16_denorm_mode = 3;
  // The MODE register's FLOAT_MODE byte at wave start (semantics.h: round
  // and denormal fields; COMPUTE_PGM_RSRC1 bits 19:12). Each wave's copy
  // (Wave::mode) changes with s_setreg.
  uint32_t float_mode = 0xf0;

  // Metadata.
  std::vector<ArgNote> args;
  int64_t kernarg_segment_size = 0;
  std::array<int64_t, 3> reqd_workgroup_size = {0, 0, 0};  // all 0 if absent
};

// Decodes 64 descriptor bytes plus the kernel's metadata for the code
// object's target ID `id`. `yaml` is the text the metadata came from (for
// `.reqd_workgroup_size`, which KernelNotes lacks).
// Errors: wave32, a private segment above 128 KiB per work-item, inconsistent
// user SGPR count.
absl::StatusOr<KernelInfo> DecodeKernel(const TargetId& id, absl::string_view kd_bytes,
                                        const KernelNotes& notes, absl::string_view yaml);

// The 64 descriptor bytes llvm-mc would produce for these `.amdhsa_*`
// directives (names without the ".amdhsa_" prefix) for target ID `id`, with
// llvm-mc's defaults (workgroup_id_x 1, float_denorm_mode_32 0,
// float_denorm_mode_16_64 3, reserve_vcc 1, reserve_flat_scratch 1,
// reserve_xnack_mask unless the ID says xnack-, ...).
absl::StatusOr<std::string> DescriptorFromDirectives(const TargetId& id,
                                                     const std::map<std::string, int64_t>& d);

// `.reqd_workgroup_size` of kernel `name` in metadata YAML ("[ 64, 1, 1 ]" or
// a block list); all zero if absent.
std::array<int64_t, 3> ReqdWorkgroupSize(absl::string_view yaml, absl::string_view name);

// ELF64 (AMDGPU code object) access: the `size` bytes at symbol `symbol`, and
// its virtual address. Errors: not ELF64, symbol missing or out of the file.
absl::StatusOr<std::string> ElfSymbolBytes(absl::string_view elf, absl::string_view symbol,
                                           size_t size, uint64_t* vaddr);

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_CODE_OBJECT_H_
