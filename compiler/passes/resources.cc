#include "compiler/passes/resources.h"

#include <algorithm>

namespace kir {
namespace {

int RoundUp(int v, int g) { return (v + g - 1) / g * g; }

}  // namespace

KernelResources ComputeResources(const TargetInfo& t, const Kernel& k, const KernelAbi& abi,
                                 const RegUsage& usage) {
  KernelResources r;
  int workitem_vgprs = t.packed_workitem_ids ? 1 : abi.workitem_id_enable + 1;
  r.arch_vgprs = std::max(usage.vgprs, workitem_vgprs);
  r.agprs = usage.agprs;
  int system_sgprs = abi.user_sgprs;
  for (bool e : abi.wg_id_enabled) system_sgprs += e;
  r.sgprs = std::max(usage.sgprs, system_sgprs);
  // The descriptor says .amdhsa_reserve_vcc 0 and leaves flat scratch at
  // llvm-mc's default (reserved on gfx908/90a, architected on gfx942): the
  // special SGPRs llvm-mc adds are then 6 on every target.
  r.sgpr_count = r.sgprs + ExtraSgprs(t, /*vcc=*/false, /*xnack_mask=*/true, /*flat_scratch=*/true);
  if (t.unified_vgpr_file) {
    r.accum_offset = std::max(4, RoundUp(r.arch_vgprs, 4));
    r.next_free_vgpr = r.agprs > 0 ? r.accum_offset + r.agprs : r.arch_vgprs;
    r.vgpr_count = r.next_free_vgpr;
  } else {
    // gfx908's VGPR and AGPR files are separate: both counts are max(), as llc reports.
    r.next_free_vgpr = std::max(r.arch_vgprs, r.agprs);
    r.vgpr_count = r.next_free_vgpr;
  }
  r.lds_bytes = abi.lds_bytes;
  r.occupancy = Occupancy(t, r.next_free_vgpr, r.sgpr_count, r.lds_bytes, k.WorkgroupThreads());
  return r;
}

int Occupancy(const TargetInfo& t, int vgprs, int sgprs, int64_t lds_bytes,
              int64_t workgroup_threads) {
  // VGPRs: 512 per lane per SIMD on 90a/942/950 (unified, granule 8), 256 arch +
  // 256 acc on 908 (granule 4): target.h.
  int occ = WavesPerSimdForVgprs(t, vgprs);
  // SGPRs (every GFX9 target): LLVM 22's table, not a granule division.
  if (sgprs > 0) occ = std::min(occ, sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7);
  // Whole workgroups: a workgroup's waves are resident on one CU together,
  // spread over its 4 SIMDs, so n workgroups put ceil(n * waves / 4) waves
  // on the busiest SIMD (as LLVM's getOccupancyWithWorkGroupSizes counts
  // the LDS limit). The per-wave limit `occ` (registers, the target's
  // maximum) admits n <= floor(4 * occ / waves) workgroups; the LDS,
  // t.lds_bytes per CU (64 KiB; 160 KiB on gfx950), n <= lds / lds_bytes.
  // Review 5 F9: 8 waves of 146 VGPRs: 3 waves per SIMD by registers, but
  // a second workgroup would need 4, so 2.
  const int64_t waves_per_wg = std::max<int64_t>(1, (workgroup_threads + 63) / 64);
  int64_t wgs = 4 * static_cast<int64_t>(occ) / waves_per_wg;
  if (lds_bytes > 0) wgs = std::min<int64_t>(wgs, t.lds_bytes / lds_bytes);
  occ = static_cast<int>(std::min<int64_t>(occ, (wgs * waves_per_wg + 3) / 4));
  return std::max(1, occ);
}

}  // namespace kir
