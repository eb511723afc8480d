#include "compiler/passes/schedule.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <vector>

#include "absl/container/flat_hash_map.h"
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
// access one memory space (LDS, or global memory) and not both only read
// it (s_barrier writes both), or either is s_waitcnt or s_nop (a fence).
// The edges kept imply every such pair through a path, so the order
// constraints and the latency-weighted heights are those of all pairs.
class DependenceGraph {
 public:
  DependenceGraph(const MFunction& f, int lo, int hi) : succ(hi - lo), npred(hi - lo, 0), mark_(hi - lo, -1) {
    for (int j = 0; j < hi - lo; ++j) Add(f.insts[lo + j], Regs(f, f.insts[lo + j]), j);
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
  void Add(const MInst& mi, const RegAccesses& regs, int j) {
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
    switch (MemOf(mi)) {
      case kVmemRead: Use(global_, j); break;
      case kVmemWrite: Def(global_, j); break;
      case kDsRd: Use(lds_, j); break;
      case kDsWr: Def(lds_, j); break;
      case kBarrier:
        Def(global_, j);
        Def(lds_, j);
        break;
      case kNone: break;
    }
  }
  std::vector<int> mark_;  // mark_[i] == j: the edge i -> j exists
  std::vector<Slot> slots_;
  struct Range {
    int first = 0, dwords = 0;  // slots_[first .. first + dwords)
  };
  absl::flat_hash_map<int64_t, Range> base_;  // register -> its slots
  Slot scc_, exec_, global_, lds_;
  int last_fence_ = -1;  // the last s_waitcnt / s_nop, or -1
};

bool Pinned(const MInst& mi) {
  return IsLabel(mi) || (Info(mi.opc).flags & kBranch) || mi.opc == Opc::kSEndpgm;
}

// The SGPR budget of a region's local values (SgprPressure): at most
// kSgprSoftBudget dwords, and never more than the target's SGPRs minus those
// the region's other values hold, minus kSgprAlignmentSlack for what first-fit
// allocation loses to alignment (a pair or quad needs an aligned free run).
// Issuing SALU work or lane masks early gains little (their results are ready
// within a few cycles), so the soft budget costs nothing measurable; no kernel
// of testdata or of the gemm shape sweep reaches it.
constexpr int kSgprSoftBudget = 40;
constexpr int kSgprAlignmentSlack = 4;

// Per-function arrays of SgprPressure, indexed by virtual register root and
// reset after each region through `touched` (so a region costs its size, not
// the function's).
struct SgprScratch {
  explicit SgprScratch(int nv) : in_region(nv, 0), first_ref_is_def(nv, -1), readers(nv, 0), local(nv, 0), live(nv, 0) {}
  std::vector<int> in_region, first_ref_is_def, readers;
  std::vector<char> local, live;
  std::vector<int> touched;
};

// SGPR pressure of one scheduling region. The height priority alone issues
// much of what later stores of a serial store chain need long before the
// stores (a store's latency is 1, a VALU's 4): in a gemm epilogue (issue 13)
// the guard masks (SGPR pairs) and uniform address parts of some 20 stores
// ahead were live at once, 99 SGPRs where the lowering's order needed 20.
// The tracker counts the dwords of the SGPR values local to the region (all
// their references in it, defined before read) that are defined and still
// have a reader; the scheduler picks an instruction that raises the count
// past the budget only when no ready instruction keeps within it (so a
// schedule that stays within the budget is the height order's, unchanged).
class SgprPressure {
 public:
  // `outside_and_local`: the SGPR dwords of the values live in the region
  // (first reference before hi, last at or after lo; kernel inputs from the
  // start), local ones included.
  SgprPressure(const MFunction& f, const TargetInfo& t, int lo, int hi, const std::vector<int>& first,
               const std::vector<int>& refs, int64_t outside_and_local, SgprScratch& scratch)
      : f_(f), defs_(hi - lo), uses_(hi - lo), x_(scratch) {
    auto add = [](std::vector<int>& v, int r) {
      if (std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
    };
    for (int i = lo; i < hi; ++i) {
      const MInst& mi = f.insts[i];
      std::vector<int>& defs = defs_[i - lo];
      std::vector<int>& uses = uses_[i - lo];
      // A tied def (s_addk, d16-style merges) also reads the register.
      for (const RegAccess& a : CollectRegAccesses(mi, kExplicitAccesses | kTiedReads, &f)) {
        int r = SgprRoot(a);
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
      if (f.vregs[r].cls != RegClass::kSgpr || f.vregs[r].alias_of >= 0 || first[r] == -2) continue;
      bool local = x_.in_region[r] == refs[r] && x_.first_ref_is_def[r] == 1 && f.vregs[r].fixed < 0;
      x_.local[r] = local;
      if (local) local_dwords += f.vregs[r].count;
    }
    const int64_t outside = outside_and_local - local_dwords;
    for (int i = 0; i < hi - lo; ++i) {
      auto drop_nonlocal = [&](std::vector<int>& v) {
        v.erase(std::remove_if(v.begin(), v.end(), [&](int r) { return !x_.local[r]; }), v.end());
      };
      drop_nonlocal(defs_[i]);
      drop_nonlocal(uses_[i]);
      for (int r : uses_[i]) ++x_.readers[r];
    }
    budget_ = static_cast<int>(std::min<int64_t>(kSgprSoftBudget, t.max_sgprs - outside - kSgprAlignmentSlack));
  }
  ~SgprPressure() {
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
  }

 private:
  int SgprRoot(const RegAccess& a) const {
    if (!a.is_virtual || a.cls != RegClass::kSgpr) return -1;
    const int r = a.root;
    return r >= 0 && r < static_cast<int>(f_.vregs.size()) ? r : -1;  // unknown vregs: untracked
  }
  int Reads(int i, int r) const {
    return std::find(uses_[i].begin(), uses_[i].end(), r) != uses_[i].end() ? 1 : 0;
  }
  const MFunction& f_;
  std::vector<std::vector<int>> defs_, uses_;  // per region instruction: local SGPR roots
  SgprScratch& x_;  // local, live, readers (unscheduled readers in the region)
  int pressure_ = 0, budget_ = 0;
};

}  // namespace

absl::Status ScheduleBlocks(const TargetInfo& t, MFunction& f, ScheduleStats* stats) {
  // Instructions move only inside their block: the kept CFG stays valid.
  absl::StatusOr<const std::vector<BasicBlock>*> got = EnsureCfg(f);
  if (!got.ok()) return got.status();
  const std::vector<BasicBlock>* cfg = *got;
  std::vector<MInst> out;
  out.reserve(f.insts.size());
  // Every virtual register root's first and last reference and the number of
  // instructions referencing it, in the original order (SgprPressure).
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
  // SGPR roots by the start of their live range (kernel inputs: -1), swept
  // with the regions (which come in order) to sum the dwords live in each.
  std::vector<std::pair<int, int>> sgpr_roots;  // (from, root)
  for (int r = 0; r < nv; ++r)
    if (f.vregs[r].cls == RegClass::kSgpr && f.vregs[r].alias_of < 0 && first[r] != -2)
      sgpr_roots.push_back({f.vregs[r].fixed >= 0 ? -1 : first[r], r});
  std::sort(sgpr_roots.begin(), sgpr_roots.end());
  size_t next_root = 0;
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> live_until;  // (last, root)
  int64_t live_dwords = 0;
  SgprScratch scratch(nv);
  for (const BasicBlock& bb : *cfg) {
    // The schedulable region: the block minus a leading label and a trailing
    // branch / s_endpgm (and the SCC-setting compare the branch reads, which
    // the SCC chain keeps in order anyway).
    int lo = bb.begin, hi = bb.end;
    while (lo < hi && Pinned(f.insts[lo])) out.push_back(f.insts[lo++]);
    std::vector<MInst> tail;
    while (hi > lo && Pinned(f.insts[hi - 1])) tail.insert(tail.begin(), f.insts[--hi]);
    int n = hi - lo;
    DependenceGraph dag(f, lo, hi);
    const std::vector<std::vector<int>>& succ = dag.succ;
    std::vector<int>& npred = dag.npred;
    // Priority: the latency-weighted height (longest path to the block end).
    std::vector<int> height(n, 0);
    for (int i = n - 1; i >= 0; --i) {
      int h = 0;
      for (int s : succ[i]) h = std::max(h, height[s]);
      height[i] = h + Latency(t, f.insts[lo + i]);
    }
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
    while (next_root < sgpr_roots.size() && sgpr_roots[next_root].first < hi) {
      int r = sgpr_roots[next_root++].second;
      live_until.push({last[r], r});
      live_dwords += f.vregs[r].count;
    }
    while (!live_until.empty() && live_until.top().first < lo) {
      live_dwords -= f.vregs[live_until.top().second].count;
      live_until.pop();
    }
    SgprPressure sgprs(f, t, lo, hi, first, refs, live_dwords, scratch);
    int position = 0;
    while (!ready.empty()) {
      // The highest among those that keep the SGPR pressure within its
      // budget. When none does, the first in the original order: the
      // lowering emits what an access needs right before it, so under
      // pressure the schedule falls back towards that order (taking the
      // smallest increase instead issued every cheap uniform value of the
      // whole epilogue first).
      int i = -1;
      for (int c : ready)
        if (sgprs.Fits(c)) {
          i = c;
          break;
        }
      if (i < 0) i = *ready_in_order.begin();
      ready.erase(i);
      ready_in_order.erase(i);
      sgprs.Issue(i);
      if (i != position && stats != nullptr) ++stats->moved;
      ++position;
      out.push_back(f.insts[lo + i]);
      for (int s : succ[i])
        if (--npred[s] == 0) {
          ready.insert(s);
          ready_in_order.insert(s);
        }
    }
    for (MInst& m : tail) out.push_back(std::move(m));
  }
  if (out.size() != f.insts.size())
    return absl::InternalError("scheduler lost instructions (a dependence cycle)");
  f.insts = std::move(out);
  return absl::OkStatus();
}

}  // namespace kir
