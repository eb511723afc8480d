// The resources a register-allocated kernel declares in its kernel descriptor
// and metadata (VGPRs, AGPRs, SGPRs, LDS, occupancy): LLVM AMDGPUUsage
// "Kernel Descriptor" and "Code Object V5 Metadata"; amdgcn-isa-notes.md 6.
#ifndef KIRC_COMPILER_PASSES_RESOURCES_H_
#define KIRC_COMPILER_PASSES_RESOURCES_H_

#include <cstdint>

#include "compiler/ir/kernel.h"
#include "compiler/lower/lower.h"
#include "compiler/passes/regalloc.h"
#include "compiler/target/target.h"

namespace kir {

// What the descriptor and metadata declare, computed from the allocation.
struct KernelResources {
  int arch_vgprs = 0;      // VGPRs v0..v(n-1) the code names (at least the work-item ids)
  int agprs = 0;           // AGPRs a0..a(n-1)
  int sgprs = 0;           // SGPRs s0..s(n-1) incl. the user and system SGPRs set at launch
  int accum_offset = 0;    // gfx90a/942: first AGPR in the unified file = align(arch_vgprs, 4)
  int next_free_vgpr = 0;  // .amdhsa_next_free_vgpr: gfx908 max(vgprs, agprs); 90a+ total
  int vgpr_count = 0;      // metadata .vgpr_count: 90a/942 the unified total; 908 max(vgprs, agprs)
  int sgpr_count = 0;      // metadata .sgpr_count: sgprs + the 6 extra SGPRs llvm-mc
                           // reserves (flat scratch, XNACK mask) with VCC unreserved
  int64_t lds_bytes = 0;   // group_segment_fixed_size
  int occupancy = 0;       // waves per SIMD the VGPR/AGPR/LDS use allows
};

// Waves per SIMD a kernel can have resident: limited by the target's
// maximum, by `vgprs` (90a/942: the unified total; 908: max(arch, acc)), by
// `sgprs` (the metadata's .sgpr_count, VCC/flat scratch/XNACK mask included;
// GFX9 keeps 10 waves up to 80, 9 up to 88, 8 up to 100, else 7, as LLVM 22's
// GCNSubtarget::getOccupancyWithNumSGPRs and llvm-mc's `occupancy()` say; 0
// means unknown, no limit) and by `lds_bytes` per workgroup of
// `workgroup_threads` (64 KiB per CU over 4 SIMDs), counted in whole
// workgroups: n workgroups resident on a CU put ceil(n * waves / 4) of
// their waves on its busiest SIMD, and every limit bounds n (so 8-wave
// workgroups whose registers allow 3 waves per SIMD give 2). LLVM's `;
// Occupancy:` comment and llvm-mc's `occupancy()` expression are the oracles
// for workgroups of at most 4 waves, where the rounding changes nothing
// (compile_test); at least 1 (a workgroup that does not fit gives 1).
int Occupancy(const TargetInfo& t, int vgprs, int sgprs, int64_t lds_bytes,
              int64_t workgroup_threads);

KernelResources ComputeResources(const TargetInfo& t, const Kernel& k, const KernelAbi& abi,
                                 const RegUsage& usage);

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_RESOURCES_H_
