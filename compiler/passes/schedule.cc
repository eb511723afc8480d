#include "compiler/passes/schedule.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/isa/access_map.h"
#include "compiler/isa/cfg.h"
#include "compiler/isa/operands.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

// Issue-to-result latencies, in cycles, for priorities only (correctness
// never depends on them): rough CDNA figures.
int Latency(const TargetInfo& t, const MInst& mi) {
  switch (Info(mi.opc).cls) {
    case InstClass::kVmemLoad: return 500;
    case InstClass::kSmem: return 2000;  // kernel arguments first: everything waits on them
    case InstClass::kDsRead: return 64;
    case InstClass::kMfma: return mi.mfma != nullptr ? 4 * MfmaPasses(t, *mi.mfma) : 32;
    case InstClass::kValu:
    case InstClass::kValuTrans:
    case InstClass::kAccRead:
    case InstClass::kAccWrite: return 4;
    default: return 1;
  }
}

enum MemKind { kNone, kVmemRead, kVmemWrite, kDsRd, kDsWr, kBarrier };

MemKind MemOf(const MInst& mi) {
  if (mi.opc == Opc::kSBarrier) return kBarrier;
  switch (Info(mi.opc).cls) {
    case InstClass::kVmemLoad: return kVmemRead;
    case InstClass::kVmemStore: return kVmemWrite;
    case InstClass::kDsRead: return kDsRd;
    case InstClass::kDsWrite: return kDsWr;
    default: return kNone;
  }
}

// The register dwords an instruction reads and writes (explicit operands,
// a tied def's read included; SCC and EXEC are handled as their own slots).
RegAccesses Regs(const MFunction& f, const MInst& mi) {
  return CollectRegAccesses(mi, kExplicitAccesses | kTiedReads, &f);
}

bool TouchesScc(const MInst& mi) { return Info(mi.opc).flags & (kWritesScc | kReadsScc); }

bool ReadsExec(const MInst& mi) { return Info(mi.opc).flags & kReadsExec; }

// The dependence graph of one region, built in time linear in its register
// and memory references (as LLVM's ScheduleDAGInstrs: per register dword the
// last writer and the readers since; per memory space the last writer and
// the readers since): `b` (later) must stay after `a` (earlier) when they
// overlap in a register dword with one of them writing it (RAW, WAR, WAW),
// both touch SCC, one writes EXEC and the other reads or writes it, they
// access one memory object (a KIR buffer argument or LDS allocation; KIR
// buffer arguments never overlap, docs/kir.md "Values and ops": Memory model) and not both only
// read it, one is s_barrier and the other a memory access, or either is
// s_waitcnt or s_nop (a fence).
// The edges kept imply every such pair through a path, so the order
// constraints and the latency-weighted heights are those of all pairs.
class DependenceGraph {
 public:
  // `mem_object[j]`: the memory object (KIR buffer or LDS allocation, a
  // small index) region instruction j accesses, or -1 when it accesses none;
  // all of a space's accesses share one object when any of them is unknown.
  DependenceGraph(const MFunction& f, int lo, int hi, const std::vector<int>& mem_object)
      : succ(hi - lo), npred(hi - lo, 0), mark_(hi - lo, -1) {
    for (int j = 0; j < hi - lo; ++j) Add(f.insts[lo + j], Regs(f, f.insts[lo + j]), j, mem_object[j]);
  }
  std::vector<std::vector<int>> succ;
  std::vector<int> npred;

 private:
  // A resource: register dword, SCC, EXEC or a memory space.
  struct Slot {
    int last_def = -1;
    std::vector<int> uses;  // readers since last_def
  };
  void Edge(int i, int j) {
    if (i < 0 || i == j || mark_[i] == j) return;
    mark_[i] = j;
    succ[i].push_back(j);
    ++npred[j];
  }
  void Use(Slot& s, int j) {
    Edge(s.last_def, j);
    if (s.uses.empty() || s.uses.back() != j) s.uses.push_back(j);
  }
  void Def(Slot& s, int j) {
    Edge(s.last_def, j);
    for (int u : s.uses) Edge(u, j);
    s.uses.clear();
    s.last_def = j;
  }
  // The first slot of a register (a virtual root's tuple or a physical
  // register), allocated on first reference: slots are contiguous per
  // register, so a tuple's dwords are base + 0 .. count - 1.
  int Base(const RegAccess& r) {
    const int hi = r.lo + r.count;
    int64_t key = (static_cast<int64_t>(static_cast<int>(r.cls) + (r.is_virtual ? 0 : 3)) << 32) |
                  static_cast<uint32_t>(r.root);
    auto [it, fresh] = base_.try_emplace(key);
    Range& range = it->second;
    if (fresh || range.dwords < hi) {
      // First reference, or one reaching past the dwords seen so far (the
      // first reference of a tuple may be a view of part of it): give the
      // register dwords 0 .. hi - 1 at the end, keeping what they hold.
      const int old = range.first;
      range.first = static_cast<int>(slots_.size());
      slots_.resize(slots_.size() + static_cast<size_t>(hi));
      for (int d = 0; d < range.dwords; ++d) slots_[range.first + d] = std::move(slots_[old + d]);
      range.dwords = hi;
    }
    return range.first;
  }
  void Add(const MInst& mi, const RegAccesses& regs, int j, int object) {
    if (mi.opc == Opc::kSWaitcnt || mi.opc == Opc::kSNop) {
      for (int i = std::max(last_fence_, 0); i < j; ++i) Edge(i, j);  // everything since the last fence
      last_fence_ = j;
    } else {
      Edge(last_fence_, j);
    }
    // Reads before writes: an instruction that reads and writes a dword
    // depends on its last writer and readers once.
    for (const RegAccess& r : regs)
      if (!r.def)
        for (int b = Base(r), d = r.lo; d < r.lo + r.count; ++d) Use(slots_[b + d], j);
    for (const RegAccess& r : regs)
      if (r.def)
        for (int b = Base(r), d = r.lo; d < r.lo + r.count; ++d) Def(slots_[b + d], j);
    if (TouchesScc(mi)) Def(scc_, j);
    if (ReadsExec(mi)) Use(exec_, j);
    if (WritesExec(mi)) Def(exec_, j);
    // M0: the LDS DMA reads it implicitly (kReadsM0), s_mov_b32 m0 writes it.
    if (Info(mi.opc).flags & kReadsM0) Use(m0_, j);
    if (mi.WritesM0()) Def(m0_, j);
    // Memory: per object, reads after the last write and writes after the
    // reads and the write before them; s_barrier after every access before
    // it and before every access after it (through barrier_).
    const MemKind kind = MemOf(mi);
    if (kind == kBarrier) {
      Def(barrier_, j);
    } else if (kind != kNone) {
      if (object >= static_cast<int>(objects_.size())) objects_.resize(object + 1);
      Slot& o = objects_[object];
      if (kind == kVmemRead || kind == kDsRd) Use(o, j);
      else Def(o, j);
      Use(barrier_, j);
      // The LDS DMA also writes LDS (MemoryObjects' kDsAll, object 1).
      if (Info(mi.opc).flags & kLdsDma) {
        if (objects_.size() < 2) objects_.resize(2);
        Def(objects_[1], j);
      }
    }
  }
  std::vector<int> mark_;  // mark_[i] == j: the edge i -> j exists
  std::vector<Slot> slots_;
  struct Range {
    int first = 0, dwords = 0;  // slots_[first .. first + dwords)
  };
  absl::flat_hash_map<int64_t, Range> base_;  // register -> its slots
  Slot scc_, exec_, m0_, barrier_;
  std::vector<Slot> objects_;  // by memory object
  int last_fence_ = -1;  // the last s_waitcnt / s_nop, or -1
};

bool Pinned(const MInst& mi) {
  return IsLabel(mi) || (Info(mi.opc).flags & kBranch) || mi.opc == Opc::kSEndpgm;
}

// The SGPR budget of a region's local values (RegPressure of kSgpr): at most
// kSgprSoftBudget dwords, and never more than the target's SGPRs minus those
// the region's other values hold, minus kSgprAlignmentSlack for what first-fit
// allocation loses to alignment (a pair or quad needs an aligned free run).
// Issuing SALU work or lane masks early gains little (their results are ready
// within a few cycles), so the soft budget costs nothing measurable; no kernel
// of testdata or of the gemm shape sweep reaches it.
constexpr int kSgprSoftBudget = 40;
constexpr int kSgprAlignmentSlack = 4;
// VGPRs: what first-fit allocation may lose to tuple alignment. (A larger
// slack made the budget bind in gemm prologues, where the fallback hoisted
// uniform address parts instead: 52 SGPRs where 22 did.)
constexpr int kVgprAlignmentSlack = 4;
// Schedules of a region with a lowered VGPR budget before its original order
// is kept (ScheduleBlocks).
constexpr int kPressureRetries = 3;

// Per-function arrays of RegPressure, indexed by virtual register root and
// reset after each region through `touched` (so a region costs its size, not
// the function's).
struct PressureScratch {
  explicit PressureScratch(int nv)
      : in_region(nv, 0), first_ref_is_def(nv, -1), readers(nv, 0), local(nv, 0), live(nv, 0) {}
  std::vector<int> in_region, first_ref_is_def, readers;
  std::vector<char> local, live;
  std::vector<int> touched;
};

// Register pressure of one class in one scheduling region. The height
// priority alone issues much of what later stores of a serial store chain
// need long before the stores (a store's latency is 1, a VALU's 4): in a gemm
// epilogue (issue 13) the guard masks (SGPR pairs) and uniform address parts
// of some 20 stores ahead were live at once, 99 SGPRs where the lowering's
// order needed 20; hoisting the loads of independent load/store pairs above
// the stores (issue 16) keeps every loaded value live until its store. The
// tracker counts the dwords of the values of its class local to the region
// (all their references in it, defined before read) that are defined and
// still have a reader; the scheduler picks an instruction that raises the
// count past the budget only when no ready instruction keeps within it (so a
// schedule that stays within the budget is the height order's, unchanged).
class RegPressure {
 public:
  // `outside_and_local`: the dwords of the class's values live in the region
  // (first reference before hi, last at or after lo; kernel inputs from the
  // start), local ones included. The budget of the local values:
  // min(soft_local, hard_total - the other values' dwords), and at least
  // the original order's peak when `at_least_original` (the fallback order
  // reaches that peak anyway).
  RegPressure(const MFunction& f, RegClass cls, int lo, int hi, const std::vector<int>& first,
              const std::vector<int>& refs, int64_t outside_and_local, int64_t soft_local, int64_t hard_total,
              bool at_least_original, PressureScratch& scratch)
      : f_(f), cls_(cls), defs_(hi - lo), uses_(hi - lo), x_(scratch) {
    auto add = [](std::vector<int>& v, int r) {
      if (std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
    };
    for (int i = lo; i < hi; ++i) {
      const MInst& mi = f.insts[i];
      std::vector<int>& defs = defs_[i - lo];
      std::vector<int>& uses = uses_[i - lo];
      // A tied def (s_addk, d16-style merges) also reads the register.
      for (const RegAccess& a : CollectRegAccesses(mi, kExplicitAccesses | kTiedReads, &f)) {
        int r = Root(a);
        if (r >= 0) add(a.def ? defs : uses, r);
      }
      for (int r : defs)
        if (x_.first_ref_is_def[r] < 0) x_.first_ref_is_def[r] = Reads(i - lo, r) ? 0 : 1;
      for (int r : uses)
        if (x_.first_ref_is_def[r] < 0) x_.first_ref_is_def[r] = 0;
      std::vector<int> all = defs;
      for (int r : uses) add(all, r);
      for (int r : all)
        if (x_.in_region[r]++ == 0) x_.touched.push_back(r);
    }
    int64_t local_dwords = 0;
    for (int r : x_.touched) {
      if (f.vregs[r].cls != cls_ || f.vregs[r].alias_of >= 0 || first[r] == -2) continue;
      bool local = x_.in_region[r] == refs[r] && x_.first_ref_is_def[r] == 1 && f.vregs[r].fixed < 0;
      x_.local[r] = local;
      if (local) local_dwords += f.vregs[r].count;
    }
    outside_ = outside_and_local - local_dwords;
    for (int i = 0; i < hi - lo; ++i) {
      auto drop_nonlocal = [&](std::vector<int>& v) {
        v.erase(std::remove_if(v.begin(), v.end(), [&](int r) { return !x_.local[r]; }), v.end());
      };
      drop_nonlocal(defs_[i]);
      drop_nonlocal(uses_[i]);
      for (int r : uses_[i]) ++x_.readers[r];
    }
    budget_ = static_cast<int>(std::min<int64_t>(soft_local, hard_total - outside_));
    original_peak_ = OriginalPeak();
    if (at_least_original) budget_ = std::max(budget_, original_peak_);
  }
  ~RegPressure() {
    for (int r : x_.touched) {
      x_.in_region[r] = 0;
      x_.first_ref_is_def[r] = -1;
      x_.readers[r] = 0;
      x_.local[r] = 0;
      x_.live[r] = 0;
    }
    x_.touched.clear();
  }

  // Change of the pressure if region instruction `i` issues next.
  int Delta(int i) const {
    int d = 0;
    for (int r : uses_[i])
      if (x_.live[r] && x_.readers[r] == 1) d -= f_.vregs[r].count;
    for (int r : defs_[i])
      if (!x_.live[r] && x_.readers[r] - Reads(i, r) > 0) d += f_.vregs[r].count;
    return d;
  }
  // How close issuing `i` brings a live local value it reads to its death:
  // the most dwords per reader still to issue among those values, as
  // {dwords, readers} (0 / 1 when it reads none). Per reader, not readers
  // alone: a chain's 16 muls of an f32x16 free 16 dwords in 16 issues, while
  // the next chain's load brings a shared 1-dword address, with 8 readers
  // left near the end of the block, only one reader closer.
  std::pair<int, int> DeathRate(int i) const {
    std::pair<int, int> best{0, 1};
    for (int r : uses_[i])
      if (x_.live[r] &&
          static_cast<int64_t>(f_.vregs[r].count) * best.second > static_cast<int64_t>(best.first) * x_.readers[r])
        best = {f_.vregs[r].count, x_.readers[r]};
    return best;
  }
  // True if issuing `i` keeps the pressure within the budget, or lowers it.
  bool Fits(int i) const {
    int d = Delta(i);
    return d <= 0 || pressure_ + d <= budget_;
  }
  void Issue(int i) {
    for (int r : uses_[i])
      if (--x_.readers[r] == 0 && x_.live[r]) {
        x_.live[r] = 0;
        pressure_ -= f_.vregs[r].count;
      }
    for (int r : defs_[i])
      if (!x_.live[r] && x_.readers[r] > 0) {
        x_.live[r] = 1;
        pressure_ += f_.vregs[r].count;
      }
    peak_ = std::max(peak_, pressure_);
  }
  // The other values' dwords plus the local peak so far, and in the
  // original order.
  int64_t Peak() const { return outside_ + peak_; }
  int64_t OriginalTotalPeak() const { return outside_ + original_peak_; }

 private:
  int Root(const RegAccess& a) const {
    if (!a.is_virtual || a.cls != cls_) return -1;
    const int r = a.root;
    return r >= 0 && r < static_cast<int>(f_.vregs.size()) ? r : -1;  // unknown vregs: untracked
  }
  int Reads(int i, int r) const {
    return std::find(uses_[i].begin(), uses_[i].end(), r) != uses_[i].end() ? 1 : 0;
  }
  // The local peak of issuing the region in its original order (the state
  // is restored afterwards).
  int OriginalPeak() {
    std::vector<std::pair<int, int>> saved;
    for (int r : x_.touched) saved.push_back({r, x_.readers[r]});
    for (int i = 0; i < static_cast<int>(defs_.size()); ++i) Issue(i);
    const int peak = peak_;
    for (const auto& [r, n] : saved) {
      x_.readers[r] = n;
      x_.live[r] = 0;
    }
    pressure_ = peak_ = 0;
    return peak;
  }
  const MFunction& f_;
  RegClass cls_;
  std::vector<std::vector<int>> defs_, uses_;  // per region instruction: local roots
  PressureScratch& x_;  // local, live, readers (unscheduled readers in the region)
  int64_t outside_ = 0;
  int pressure_ = 0, peak_ = 0, budget_ = 0, original_peak_ = 0;
};

// The dwords of a class's values live in each region, swept with the regions
// in order: a value is live from its first to its last reference (kernel
// inputs, precoloured, from the start).
class LiveSweep {
 public:
  LiveSweep(const MFunction& f, RegClass cls, const std::vector<int>& first, const std::vector<int>& last)
      : f_(f), last_(last) {
    for (int r = 0; r < static_cast<int>(f.vregs.size()); ++r)
      if (f.vregs[r].cls == cls && f.vregs[r].alias_of < 0 && first[r] != -2)
        roots_.push_back({f.vregs[r].fixed >= 0 ? -1 : first[r], r});
    std::sort(roots_.begin(), roots_.end());
  }
  // Regions must come in order of lo.
  int64_t LiveIn(int lo, int hi) {
    while (next_ < roots_.size() && roots_[next_].first < hi) {
      int r = roots_[next_++].second;
      live_until_.push({last_[r], r});
      dwords_ += f_.vregs[r].count;
    }
    while (!live_until_.empty() && live_until_.top().first < lo) {
      dwords_ -= f_.vregs[live_until_.top().second].count;
      live_until_.pop();
    }
    return dwords_;
  }

 private:
  const MFunction& f_;
  const std::vector<int>& last_;
  std::vector<std::pair<int, int>> roots_;  // (from, root)
  size_t next_ = 0;
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> live_until_;
  int64_t dwords_ = 0;
};

// The waves per SIMD `vgprs` arch VGPRs and `agprs` AGPRs allow
// (compiler/passes/resources.h's Occupancy rule, the register file's facts
// in target.h WavesPerSimdForVgprs: gfx90a/942/950 one file for both, the
// arch VGPRs rounded to the granule before the AGPRs; gfx908 the larger of
// the two), with at most `max_waves` waves per SIMD (0: the target's maximum)
// and at least `min_waves` (those the workgroup puts on one SIMD).
int64_t OccupancyWaves(const TargetInfo& t, int64_t vgprs, int64_t agprs, int max_waves, int min_waves) {
  const int64_t granule = t.vgpr_granule;
  const int64_t arch = (std::max<int64_t>(1, vgprs) + granule - 1) / granule * granule;
  const int64_t alloc = t.unified_vgpr_file ? arch + agprs : std::max(vgprs, agprs);
  const int64_t cap = max_waves > 0 ? std::min(max_waves, t.max_waves_per_simd) : t.max_waves_per_simd;
  return std::max<int64_t>({1, min_waves, std::min<int64_t>(cap, WavesPerSimdForVgprs(t, alloc))});
}

// The most arch VGPRs that keep the occupancy `vgprs` arch VGPRs and `agprs`
// AGPRs give (OccupancyWaves): a SIMD's file over those waves, rounded down
// to the granule, less the AGPRs on a unified file.
int64_t OccupancyCeiling(const TargetInfo& t, int64_t vgprs, int64_t agprs, int max_waves, int min_waves) {
  const int64_t granule = t.vgpr_granule;
  const int64_t waves = OccupancyWaves(t, vgprs, agprs, max_waves, min_waves);
  const int64_t per_wave = VgprFilePerSimd(t) / waves / granule * granule;
  const int64_t agpr_alloc = (agprs + granule - 1) / granule * granule;
  return std::min<int64_t>(t.max_arch_vgprs, t.unified_vgpr_file && agprs > 0 ? per_wave - agpr_alloc : per_wave);
}

// The memory object of each memory instruction of f.insts[lo, hi): for a
// global access a small index per KIR buffer (the access map's name), or
// when some global access of the region is not in the map, one index for all
// of them; one index for all LDS accesses (LDS is in order on lgkmcnt, so
// moving a ds_read over a ds_write of another allocation gains no latency
// and costs waits: measured on the default 1024^3 gemm's K loop, 1.94 other
// instructions per 16 KFLOP against 1.69 in order); -1 for other
// instructions.
std::vector<int> MemoryObjects(const MFunction& f, int lo, int hi,
                               const absl::flat_hash_map<int, int>& object_of_id) {
  enum { kVmemAll = 0, kDsAll = 1 };  // the fallback and LDS; buffers from 2
  std::vector<int> out(hi - lo, -1);
  bool vmem_known = true;
  for (int i = lo; i < hi; ++i) {
    const InstClass c = Info(f.insts[i].opc).cls;
    if (IsDs(c)) {
      out[i - lo] = kDsAll;
    } else if (IsVmem(c)) {
      auto it = object_of_id.find(f.insts[i].id);
      if (it == object_of_id.end()) vmem_known = false;
      else out[i - lo] = it->second;
    }
  }
  if (!vmem_known)
    for (int i = lo; i < hi; ++i)
      if (IsVmem(Info(f.insts[i].opc).cls)) out[i - lo] = kVmemAll;
  return out;
}

}  // namespace

absl::Status ScheduleBlocks(const TargetInfo& t, MFunction& f, ScheduleStats* stats,
                            const ScheduleOptions& options) {
  // Instructions move only inside their block: the kept CFG stays valid.
  absl::StatusOr<const std::vector<BasicBlock>*> got = EnsureCfg(f);
  if (!got.ok()) return got.status();
  const std::vector<BasicBlock>* cfg = *got;
  std::vector<MInst> out;
  out.reserve(f.insts.size());
  // Every virtual register root's first and last reference and the number of
  // instructions referencing it, in the original order (RegPressure).
  const int nv = static_cast<int>(f.vregs.size());
  std::vector<int> first(nv, -2), last(nv, -2), refs(nv, 0);
  for (int i = 0; i < static_cast<int>(f.insts.size()); ++i) {
    std::vector<int> seen;
    for (const MOperand& o : f.insts[i].ops) {
      if (!o.IsReg() || !o.is_virtual || o.reg < 0 || o.reg >= nv) continue;
      int r = f.Root(o.reg).first;
      if (first[r] == -2) first[r] = i;
      last[r] = i;
      if (std::find(seen.begin(), seen.end(), r) == seen.end()) {
        seen.push_back(r);
        ++refs[r];
      }
    }
  }
  // Memory objects: the access map's buffer names, numbered from 2.
  absl::flat_hash_map<int, int> object_of_id;
  if (options.accesses != nullptr) {
    std::map<std::string, int> numbers;
    for (const AccessRecord& rec : *options.accesses)
      if (!rec.is_lds)
        object_of_id[rec.inst_id] =
            numbers.try_emplace(rec.mem, static_cast<int>(numbers.size()) + 2).first->second;
  }
  // The schedulable regions: each block minus a leading label and a trailing
  // branch / s_endpgm (and the SCC-setting compare the branch reads, which
  // the SCC chain keeps in order anyway).
  struct Region {
    int begin, lo, hi, end;
    bool latch;  // the block branches back to itself or an earlier block
  };
  std::vector<Region> regions;
  for (int b = 0; b < static_cast<int>(cfg->size()); ++b) {
    const BasicBlock& bb = (*cfg)[b];
    int lo = bb.begin, hi = bb.end;
    while (lo < hi && Pinned(f.insts[lo])) ++lo;
    while (hi > lo && Pinned(f.insts[hi - 1])) --hi;
    bool latch = false;
    for (int s : bb.succs) latch = latch || s <= b;
    regions.push_back({bb.begin, lo, hi, bb.end, latch});
  }
  PressureScratch scratch(nv), vscratch(nv);
  // The dwords of the SGPR and VGPR values live in each region.
  std::vector<int64_t> sgpr_live_in, vgpr_live_in;
  {
    LiveSweep sgpr_sweep(f, RegClass::kSgpr, first, last), vgpr_sweep(f, RegClass::kVgpr, first, last);
    for (const Region& r : regions) {
      sgpr_live_in.push_back(sgpr_sweep.LiveIn(r.lo, r.hi));
      vgpr_live_in.push_back(vgpr_sweep.LiveIn(r.lo, r.hi));
    }
  }
  // The regions scheduled towards their lowest pressure (below: over the
  // launch cap, or within it where that reaches more waves per SIMD): the
  // budget binds below the original order's peak, and when no ready
  // instruction keeps within it the scheduler issues the one nearest a
  // value's death.
  std::vector<char> lowered(regions.size(), 0);
  // One region's dependence graph and priorities.
  struct RegionGraph {
    DependenceGraph dag;
    std::vector<int> height;  // the latency-weighted height (longest path to the block end)
    bool timed;               // follows the issue timeline (below)
  };
  auto graph_of = [&](const Region& region) {
    const int lo = region.lo, hi = region.hi, n = hi - lo;
    RegionGraph g{DependenceGraph(f, lo, hi, MemoryObjects(f, lo, hi, object_of_id)), std::vector<int>(n, 0), false};
    for (int i = n - 1; i >= 0; --i) {
      int h = 0;
      for (int s : g.dag.succ[i]) h = std::max(h, g.height[s]);
      g.height[i] = h + Latency(t, f.insts[lo + i]);
    }
    // Only a loop's body with MFMAs follows the timeline, where its stalls
    // would repeat every trip; other blocks keep the height order (every
    // instruction can start at once): straight-line code runs once, and
    // taking what can start now over the higher instruction there issued,
    // say, every alpha * acc of a gemm epilogue while its C loads were in
    // flight, and hoisted uniform address parts of a prologue (more SGPRs).
    for (int c = 0; c < n && options.timeline && region.latch && !g.timed; ++c)
      g.timed = Info(f.insts[lo + c].opc).cls == InstClass::kMfma;
    return g;
  };
  // One schedule of region `ri` in `order` with the VGPR budget `vgpr_cap`;
  // returns the VGPR peak it reaches (the other values' dwords plus the
  // local peak) and sets *original_peak to the original order's.
  auto schedule = [&](size_t ri, const RegionGraph& g, int64_t vgpr_cap, std::vector<int>* order,
                      int64_t* original_peak) -> int64_t {
    const int lo = regions[ri].lo, hi = regions[ri].hi, n = hi - lo;
    const std::vector<std::vector<int>>& succ = g.dag.succ;
    const std::vector<int>& height = g.height;
    std::vector<int> npred = g.dag.npred;
    // Ready instructions by priority: highest height first, ties in the
    // original order (deterministic); and by original order.
    auto higher = [&](int a, int b) { return height[a] != height[b] ? height[a] > height[b] : a < b; };
    std::set<int, decltype(higher)> ready(higher);
    std::set<int> ready_in_order;
    for (int i = 0; i < n; ++i)
      if (npred[i] == 0) {
        ready.insert(i);
        ready_in_order.insert(i);
      }
    RegPressure sgprs(f, RegClass::kSgpr, lo, hi, first, refs, sgpr_live_in[ri], kSgprSoftBudget,
                      t.max_sgprs - kSgprAlignmentSlack, false, scratch);
    RegPressure vgprs(f, RegClass::kVgpr, lo, hi, first, refs, vgpr_live_in[ri],
                      std::numeric_limits<int64_t>::max(), vgpr_cap, !lowered[ri], vscratch);
    // A wave's issue timeline, in cycles: one instruction per 4 cycles; an
    // instruction can start once every predecessor's latency has passed
    // (avail), an MFMA also once the previous MFMA has left the matrix pipe
    // (4 x passes cycles). Among the ready instructions that can start now
    // the scheduler takes the highest; when none can, the one that can start
    // soonest. So memory instructions fill the cycles an MFMA chain leaves
    // and MFMAs fill the latency of loads and barriers (issue 16: with one
    // wave per SIMD no other wave hides either). Only where g.timed.
    std::vector<int64_t> avail(n, 0);
    int64_t cycle = 0, mfma_free = 0;
    auto start = [&](int c) -> int64_t {
      if (!g.timed) return 0;
      const MInst& mi = f.insts[lo + c];
      return Info(mi.opc).cls == InstClass::kMfma ? std::max(avail[c], mfma_free) : avail[c];
    };
    while (!ready.empty()) {
      // The highest that can start now among those that keep the SGPR and
      // VGPR pressure within their budgets, else the one of those that can
      // start soonest (then the highest). When none keeps within the
      // budgets, the first in the original order: the lowering emits what an
      // access needs right before it, so under pressure the schedule falls
      // back towards that order (taking the smallest increase instead issued
      // every cheap uniform value of the whole epilogue first).
      int i = -1, soonest = -1;
      for (int c : ready) {
        if (!sgprs.Fits(c) || !vgprs.Fits(c)) continue;
        const int64_t at = start(c);
        if (at <= cycle) {
          i = c;
          break;
        }
        if (soonest < 0 || at < start(soonest)) soonest = c;
      }
      if (i < 0) i = soonest;
      // Towards the lowest pressure (over the launch cap, where the original
      // order is what overshot it, or where that gains waves per SIMD):
      // the one that brings a live value closest to its death (DeathRate),
      // then the smaller increase, then the first in the original order
      // (fresh-user review 15 F2: the first chain's muls and stores, which
      // free its registers, rather than the next chain's load).
      if (i < 0 && lowered[ri]) {
        std::pair<int, int> rate_i;
        for (int c : ready_in_order) {
          std::pair<int, int> rate = vgprs.DeathRate(c);
          // An instruction that reads no live local value (a shared
          // constant's v_mov, an address from a kernel input) brings none
          // nearer its death itself: it takes the best rate of the
          // instructions that depend on it (fresh-user review 18 F2: bf16
          // packing's v_and_or_b32 reads a shared 0xffff0000 constant, and on
          // gfx908 the stores an address computed from tid; never picked,
          // they held back every chain's packing and stores while the next
          // chains' loads issued).
          if (rate.first == 0)
            for (int s : succ[c]) {
              const std::pair<int, int> r = vgprs.DeathRate(s);
              if (static_cast<int64_t>(r.first) * rate.second > static_cast<int64_t>(rate.first) * r.second) rate = r;
            }
          const int64_t lhs = static_cast<int64_t>(rate.first) * rate_i.second,
                        rhs = static_cast<int64_t>(rate_i.first) * rate.second;
          if (i < 0 || lhs > rhs || (lhs == rhs && vgprs.Delta(c) < vgprs.Delta(i))) {
            i = c;
            rate_i = rate;
          }
        }
      }
      if (i < 0) i = *ready_in_order.begin();
      ready.erase(i);
      ready_in_order.erase(i);
      sgprs.Issue(i);
      vgprs.Issue(i);
      order->push_back(i);
      const MInst& mi = f.insts[lo + i];
      cycle = std::max(cycle, start(i));
      if (Info(mi.opc).cls == InstClass::kMfma) mfma_free = cycle + Latency(t, mi);
      // An LDS DMA reads M0 when it issues and the DMAs after it write LDS
      // in order (the same vmcnt queue), so the next M0 write (an
      // anti-dependence) and the next DMA may follow at once; its load
      // latency is for the accesses of its LDS bytes (DS ops, s_barrier).
      // (With the load latency there, the 16 DMAs of a 256x256 gemm K tile
      // spread out over the MFMAs, one per 500 modelled cycles, and the
      // step's barrier waited for the last.)
      const bool dma = Info(mi.opc).flags & kLdsDma;
      for (int s : succ[i]) {
        const MInst& next = f.insts[lo + s];
        const bool issue_only = dma && (next.WritesM0() || (Info(next.opc).flags & kLdsDma));
        avail[s] = std::max(avail[s], cycle + (issue_only ? 1 : Latency(t, mi)));
      }
      cycle += 4;
      for (int s : succ[i])
        if (--npred[s] == 0) {
          ready.insert(s);
          ready_in_order.insert(s);
        }
    }
    *original_peak = vgprs.OriginalTotalPeak();
    return vgprs.Peak();
  };
  auto identity = [](int n) {
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    return order;
  };
  // The VGPR budget: as given, else the most arch VGPRs that keep the
  // occupancy of the original order (its peak arch VGPR and AGPR pressure
  // over all regions), or of the lowest-pressure orders (below).
  int64_t vgpr_budget = options.vgpr_budget;
  // Where regions are lowered: each region's lowest-pressure order found and
  // its peak (the original order's for the others).
  std::vector<std::vector<int>> lowest_order(regions.size());
  std::vector<int64_t> lowest_peak(regions.size(), 0);
  if (vgpr_budget < 0) {
    int64_t vpeak = 0, apeak = 0;
    std::vector<int64_t> original_peak_of(regions.size(), 0);
    LiveSweep asweep(f, RegClass::kAgpr, first, last);
    for (size_t ri = 0; ri < regions.size(); ++ri) {
      const Region& r = regions[ri];
      RegPressure v(f, RegClass::kVgpr, r.lo, r.hi, first, refs, vgpr_live_in[ri], 0, 0, true, scratch);
      original_peak_of[ri] = v.OriginalTotalPeak();
      vpeak = std::max(vpeak, original_peak_of[ri]);
    }
    for (const Region& r : regions) {
      RegPressure a(f, RegClass::kAgpr, r.lo, r.hi, first, refs, asweep.LiveIn(r.lo, r.hi), 0, 0, true, scratch);
      apeak = std::max(apeak, a.OriginalTotalPeak());
    }
    auto ceiling = [&](int64_t vgprs) {
      return OccupancyCeiling(t, vgprs, apeak, options.max_waves_per_simd, options.min_waves_per_simd);
    };
    auto waves = [&](int64_t vgprs) {
      return OccupancyWaves(t, vgprs, apeak, options.max_waves_per_simd, options.min_waves_per_simd);
    };
    // The original order's peak is over what a wave of this workgroup may
    // allocate (its waves all fit the SIMDs at once: the ceiling at the
    // workgroup's waves per SIMD, at most the target's arch VGPRs), so the
    // budget cannot be the occupancy of that order: each region is first
    // scheduled for the lowest pressure (a budget of 0: whatever does not
    // raise it, else the instruction nearest a value's death), and the budget
    // is the most that keeps the occupancy of those orders' peak; a region
    // whose schedule with that budget still passes it takes its lowest order
    // (fresh-user review 15 F2: eight load/mul/store chains of f32x16 written
    // loads first in a 1024-thread workgroup kept 145 VGPRs of gfx942's cap
    // of 128; chain order needs 33, and with the next chain's loads hoisted
    // 49, at 8 waves per SIMD).
    // Within the cap, the regions whose original order sets the kernel's
    // waves per SIMD (the regions at the peak's tier) are scheduled so too
    // when more waves are possible, and the lowest orders are taken as over
    // the cap when they reach a higher tier (fresh-user review 18 F2: the
    // same chains to bf16 at 512 threads kept their source order's 146
    // VGPRs, 180 allocated, 2 waves per SIMD, where chain order needs 59: 8
    // waves). Not in a kernel with MFMAs: their issue order is the gemm
    // lowering's and the timeline's (a main loop's accumulators are live
    // whatever the order), and a lower budget would reorder their loops too.
    const bool over_launch_cap = vpeak > ceiling(vpeak);
    bool has_mfma = false;
    for (const MInst& mi : f.insts) has_mfma = has_mfma || Info(mi.opc).cls == InstClass::kMfma;
    for (size_t ri = 0; ri < regions.size(); ++ri)
      lowered[ri] = over_launch_cap ||
                    (!has_mfma && waves(vpeak) < waves(0) && waves(original_peak_of[ri]) == waves(vpeak));
    if (std::find(lowered.begin(), lowered.end(), 1) != lowered.end()) {
      int64_t lowest = 0;
      for (size_t ri = 0; ri < regions.size(); ++ri) {
        const int n = regions[ri].hi - regions[ri].lo;
        std::vector<int> order;
        int64_t original_peak = original_peak_of[ri], peak = original_peak;
        if (lowered[ri]) {
          peak = schedule(ri, graph_of(regions[ri]), 0, &order, &original_peak);
          if (static_cast<int>(order.size()) != n)
            return absl::InternalError("scheduler lost instructions (a dependence cycle)");
        }
        if (peak >= original_peak) {
          order = identity(n);
          peak = original_peak;
        }
        lowest = std::max(lowest, peak);
        lowest_order[ri] = std::move(order);
        lowest_peak[ri] = peak;
      }
      if (over_launch_cap || waves(lowest) > waves(vpeak)) {
        vpeak = lowest;
        if (stats != nullptr) stats->vgpr_lowest_peak = lowest;
      } else {
        std::fill(lowered.begin(), lowered.end(), 0);  // no higher tier: as without
      }
    }
    vgpr_budget = std::max(vpeak, ceiling(vpeak) - kVgprAlignmentSlack);
  }
  for (size_t ri = 0; ri < regions.size(); ++ri) {
    const Region& region = regions[ri];
    const int lo = region.lo, hi = region.hi, n = hi - lo;
    for (int i = region.begin; i < lo; ++i) out.push_back(f.insts[i]);
    const RegionGraph g = graph_of(region);
    // The tracker checks one instruction at a time, and when no ready
    // instruction fits it issues the next of the original order, which may
    // start another value: after hoisting the loads of several load/add/store
    // chains up to the budget, finishing them overshot it (fresh-user review
    // F1: 147 VGPRs against a budget of 124 with 512 threads; the retry in
    // the source's order then fit, at the cost of the whole kernel's
    // schedule). So a region whose peak exceeds the budget is scheduled
    // again with the budget lowered by the overshoot, a few times, and
    // otherwise kept in its original order (whose peak is within the budget:
    // the budget is at least the original peak), or over the launch cap in
    // the lower of its lowest order (within the budget: the budget is at
    // least its peak) and the best retry.
    std::vector<int> order;
    int64_t original_peak = 0;
    int64_t peak = schedule(ri, g, vgpr_budget, &order, &original_peak);
    // As RegPressure's at_least_original.
    const int64_t limit = lowered[ri] ? vgpr_budget : std::max(vgpr_budget, original_peak);
    int64_t cap = limit;
    std::vector<int> best_order;  // over the launch cap: the lowest schedule
    int64_t best_peak = peak;
    if (lowered[ri]) best_order = order;
    for (int attempt = 0; attempt < kPressureRetries && peak > limit; ++attempt) {
      cap -= peak - limit;
      order.clear();
      peak = schedule(ri, g, cap, &order, &original_peak);
      if (lowered[ri] && peak < best_peak) {
        best_order = order;
        best_peak = peak;
      }
      if (stats != nullptr) ++stats->pressure_retries;
    }
    if (peak > limit && lowered[ri]) {
      if (lowest_peak[ri] <= best_peak) {
        order = lowest_order[ri];
        peak = lowest_peak[ri];
      } else {
        order = std::move(best_order);
        peak = best_peak;
      }
      if (stats != nullptr) ++stats->lowest_order_regions;
    } else if (peak > limit) {
      order = identity(n);
      peak = original_peak;
      if (stats != nullptr) ++stats->original_order_regions;
    }
    if (static_cast<int>(order.size()) != n)
      return absl::InternalError("scheduler lost instructions (a dependence cycle)");
    for (int position = 0; position < n; ++position) {
      if (order[position] != position && stats != nullptr) ++stats->moved;
      out.push_back(f.insts[lo + order[position]]);
    }
    if (stats != nullptr) {
      stats->vgpr_budget = vgpr_budget;
      stats->vgpr_peak = std::max<int64_t>(stats->vgpr_peak, peak);
      stats->vgpr_original_peak = std::max<int64_t>(stats->vgpr_original_peak, original_peak);
    }
    for (int i = hi; i < region.end; ++i) out.push_back(f.insts[i]);
  }
  if (out.size() != f.insts.size())
    return absl::InternalError("scheduler lost instructions (a dependence cycle)");
  f.insts = std::move(out);
  return absl::OkStatus();
}

}  // namespace kir
