#include "hw/emu/scheduler.h"

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "hw/emu/exec.h"
#include "hw/emu/strict.h"

namespace kir::emu {
namespace {

const char* ClassKey(const MInst& mi) {
  switch (mi.opc) {
    case Opc::kSWaitcnt: return "waitcnt";
    case Opc::kSNop: return "nop";
    case Opc::kSBarrier: return "barrier";
    default: break;
  }
  if (Info(mi.opc).flags & kBranch) return "branch";
  switch (Info(mi.opc).cls) {
    case InstClass::kSalu: return "salu";
    case InstClass::kSmem: return "smem";
    case InstClass::kValu:
    case InstClass::kValuTrans:
    case InstClass::kAccRead:
    case InstClass::kAccWrite: return "valu";
    case InstClass::kVmemLoad:
    case InstClass::kVmemStore: return "vmem";
    case InstClass::kDsRead:
    case InstClass::kDsWrite: return "ds";
    case InstClass::kMfma: return "mfma";
    default: return "other";
  }
}

void InitWave(Wave& w, const KernelInfo& k, const Dispatch& d, const std::array<uint32_t, 3>& wg_id,
              int64_t threads) {
  auto put64 = [&](int s, uint64_t v) {
    if (s < 0) return;
    w.S(s) = static_cast<uint32_t>(v);
    w.S(s + 1) = static_cast<uint32_t>(v >> 32);
  };
  w.scratch_wave_offset = ScratchWaveOffset(w.index());
  if (k.private_segment_buffer_sgpr >= 0) {
    w.S(k.private_segment_buffer_sgpr) = static_cast<uint32_t>(kPrivateSrdBase);
    w.S(k.private_segment_buffer_sgpr + 1) = static_cast<uint32_t>(kPrivateSrdBase >> 32);
    w.S(k.private_segment_buffer_sgpr + 2) = 0xffffffffu;
    w.S(k.private_segment_buffer_sgpr + 3) = kPrivateSrdDword3;
  }
  put64(k.dispatch_ptr_sgpr, d.dispatch_packet_addr);
  put64(k.queue_ptr_sgpr, d.queue_addr);
  put64(k.kernarg_ptr_sgpr, d.kernarg_addr);
  put64(k.dispatch_id_sgpr, 0);
  put64(k.flat_scratch_init_sgpr, 0);
  if (k.preload_sgpr >= 0 && d.kernarg != nullptr)
    for (int i = 0; i < k.preload_dwords; ++i) {
      uint32_t v = 0;
      size_t off = 4 * static_cast<size_t>(k.preload_offset_dwords + i);
      if (off + 4 <= d.kernarg->size()) std::memcpy(&v, d.kernarg->data() + off, 4);
      w.S(k.preload_sgpr + i) = v;
    }
  if (k.private_segment_size_sgpr >= 0) w.S(k.private_segment_size_sgpr) = k.private_segment_size;
  for (int i = 0; i < 3; ++i)
    if (k.workgroup_id_sgpr[i] >= 0) w.S(k.workgroup_id_sgpr[i]) = wg_id[i];
  if (k.workgroup_info_sgpr >= 0) w.S(k.workgroup_info_sgpr) = 0;
  if (k.scratch_wave_offset_sgpr >= 0) w.S(k.scratch_wave_offset_sgpr) = w.scratch_wave_offset;
  w.S(kVccLo) = w.S(kVccLo + 1) = 0;
  w.S(kM0) = 0;
  w.scc = false;
  // EXEC: the lanes of this wave that are threads of the workgroup.
  int64_t first = 64 * static_cast<int64_t>(w.index());
  int64_t n = std::min<int64_t>(64, threads - first);
  w.SetExec(n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1));
  // Work-item ids (x fastest).
  const int64_t wx = d.workgroup[0], wy = d.workgroup[1];
  uint32_t* v0 = w.Row(RegClass::kVgpr, 0);
  uint32_t* v1 = !k.packed_workitem_ids && k.workitem_id_enable >= 1 ? w.Row(RegClass::kVgpr, 1) : nullptr;
  uint32_t* v2 = !k.packed_workitem_ids && k.workitem_id_enable >= 2 ? w.Row(RegClass::kVgpr, 2) : nullptr;
  for (int l = 0; l < kLanes; ++l) {
    int64_t t = first + l;
    uint32_t x = static_cast<uint32_t>(t % wx), y = static_cast<uint32_t>((t / wx) % wy),
             z = static_cast<uint32_t>(t / (wx * wy));
    if (t >= threads) x = y = z = 0;
    if (k.packed_workitem_ids) {
      v0[l] = x | (k.workitem_id_enable >= 1 ? y << 10 : 0) | (k.workitem_id_enable >= 2 ? z << 20 : 0);
    } else {
      v0[l] = x;
      if (v1) v1[l] = y;
      if (v2) v2[l] = z;
    }
  }
}

}  // namespace

absl::Status RunDispatch(const Program& prog, const KernelInfo& k, GlobalMemory& mem, const Dispatch& d,
                         const EmuOptions& opts, EmuStats& stats) {
  const TargetInfo& t = *k.target;
  const int64_t threads = d.workgroup[0] * d.workgroup[1] * d.workgroup[2];
  const int nwaves = static_cast<int>((threads + 63) / 64);
  if (prog.insts.empty()) return absl::InvalidArgumentError(absl::StrCat("kernel '", k.name, "' has no instructions"));
  // Per-instruction stats keys, computed once.
  std::vector<int64_t*> counter(prog.insts.size());
  for (size_t i = 0; i < prog.insts.size(); ++i) counter[i] = &stats.by_class[ClassKey(prog.insts[i].mi)];
  WorkgroupState wg;
  // Checks 1 and 3 (strict.h): what they need of each instruction, once.
  std::unique_ptr<StrictTables> tables;
  if (opts.strict) tables = std::make_unique<StrictTables>(t, prog);
  // Check 6 (strict.h): XNACK soft clauses, a property of the program order.
  if (opts.strict)
    if (absl::Status st = CheckSoftClauses(prog, t, k.xnack); !st.ok()) return st;
  // Check 5 (strict.h): per dispatch, 8 bytes per argument-buffer byte.
  const WorkgroupRange box = d.workgroups.Over(d.grid);
  std::unique_ptr<GlobalRaceTracker> global_races;
  if (opts.strict) {
    global_races = std::make_unique<GlobalRaceTracker>();
    absl::Status st = global_races->Reset(prog, mem, box, nwaves);
    if (!st.ok()) return st;
  }
  for (int64_t gz = box.begin[2]; gz < box.end[2]; ++gz)
    for (int64_t gy = box.begin[1]; gy < box.end[1]; ++gy)
      for (int64_t gx = box.begin[0]; gx < box.end[0]; ++gx) {
        wg.id = {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy), static_cast<uint32_t>(gz)};
        if (global_races) global_races->StartWorkgroup({gx, gy, gz});
        // LDS starts with a pattern: its contents are undefined at launch.
        wg.lds.assign(k.group_segment_size, 0xcd);
        if (opts.strict) wg.races.Reset(k.group_segment_size, nwaves);
        std::vector<std::unique_ptr<Wave>> waves;
        std::vector<HazardWindow> hazards(nwaves);
        for (int i = 0; i < nwaves; ++i) {
          waves.push_back(std::make_unique<Wave>(k, i));
          InitWave(*waves.back(), k, d, wg.id, threads);
        }
        stats.waves += nwaves;
        ExecContext ctx{prog, k, t, mem, wg, opts, stats, global_races.get()};
        const std::string where = absl::StrCat("workgroup (", gx, ",", gy, ",", gz, ") ");
        for (;;) {
          int running = 0, at_barrier = 0;
          for (int i = 0; i < nwaves; ++i) {
            Wave& w = *waves[i];
            if (w.state != Wave::State::kRunning) continue;
            if (w.pc < 0 || w.pc >= static_cast<int>(prog.insts.size()))
              return absl::FailedPreconditionError(absl::StrCat(
                  where, "wave ", i, ": ran past the end of kernel '", k.name, "' (no s_endpgm)"));
            if (opts.max_instructions > 0 && stats.total >= opts.max_instructions)
              return absl::ResourceExhaustedError(absl::StrCat(
                  "instruction budget exhausted: the dispatch executed its budget of ", opts.max_instructions,
                  " wave-instructions (all waves together) without finishing; ", where, "wave ", i,
                  " was at ", prog.Describe(w.pc), ". The kernel runs too long or does not terminate",
                  opts.budget_hint.empty() ? "" : "; ", opts.budget_hint));
            if (++w.executed > opts.max_wave_instructions)
              return absl::ResourceExhaustedError(absl::StrCat(
                  where, "wave ", i, ": executed more than ", opts.max_wave_instructions,
                  " instructions (hang guard; EmuOptions::max_wave_instructions) at ", prog.Describe(w.pc)));
            const int pc = w.pc;
            const Inst& in = prog.insts[pc];
            absl::Status st;
            if (opts.strict) {
              st = CheckPendingLoads(w, *tables, pc);
              if (st.ok()) st = hazards[i].Check(*tables, pc);
            }
            if (st.ok()) {
              switch (Info(in.mi.opc).cls) {
                case InstClass::kSopp:
                case InstClass::kSalu:
                case InstClass::kSmem: st = ExecScalar(ctx, w, in); break;
                case InstClass::kMfma: st = ExecMfma(ctx, w, in); break;
                case InstClass::kVmemLoad:
                case InstClass::kVmemStore:
                case InstClass::kDsRead:
                case InstClass::kDsWrite: st = ExecMemory(ctx, w, in); break;
                default: st = ExecVector(ctx, w, in); break;
              }
            }
            if (!st.ok()) return absl::Status(st.code(), absl::StrCat(where, "wave ", i, ": ", st.message()));
            if (opts.strict) hazards[i].Issued(*tables, pc);
            ++*counter[pc];
            ++stats.total;
          }
          for (const auto& w : waves) {
            running += w->state == Wave::State::kRunning;
            at_barrier += w->state == Wave::State::kAtBarrier;
          }
          if (running == 0 && at_barrier == 0) break;
          if (running == 0) {  // every live wave arrived: release the barrier
            for (auto& w : waves)
              if (w->state == Wave::State::kAtBarrier) {
                w->state = Wave::State::kRunning;
                ++w->barrier_gen;
              }
          }
        }
      }
  return absl::OkStatus();
}

}  // namespace kir::emu
