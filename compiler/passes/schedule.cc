#include "compiler/passes/schedule.h"

#include <algorithm>
#include <map>
#include <vector>

#include "compiler/isa/cfg.h"
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

bool MemConflict(MemKind a, MemKind b) {
  if (a == kNone || b == kNone) return false;
  if (a == kBarrier || b == kBarrier) return true;
  bool a_ds = a == kDsRd || a == kDsWr, b_ds = b == kDsRd || b == kDsWr;
  if (a_ds != b_ds) return false;                  // LDS and global memory are disjoint
  return a == kDsWr || b == kDsWr || a == kVmemWrite || b == kVmemWrite;  // not read-read
}

struct RegRef {
  int cls, reg, lo, hi;  // dwords [lo, hi)
  bool def;
};

std::vector<RegRef> Regs(const MFunction& f, const MInst& mi) {
  std::vector<RegRef> r;
  int defs = mi.NumDefs();
  bool merges = Info(mi.opc).flags & kDefMerges;
  for (size_t i = 0; i < mi.ops.size(); ++i) {
    const MOperand& o = mi.ops[i];
    if (!o.IsReg()) continue;
    int cls = static_cast<int>(o.cls) + (o.is_virtual ? 0 : 3);
    bool def = static_cast<int>(i) < defs;
    int reg = o.reg, sub = o.sub;
    if (o.is_virtual) {  // an alias is its root tuple at an offset
      auto [root, off] = f.Root(o.reg);
      reg = root;
      sub += off;
    }
    r.push_back({cls, reg, sub, sub + o.count, def});
    if (def && merges) r.push_back({cls, reg, sub, sub + o.count, false});
  }
  return r;
}

bool Overlap(const RegRef& a, const RegRef& b) {
  return a.cls == b.cls && a.reg == b.reg && a.lo < b.hi && b.lo < a.hi;
}

bool TouchesScc(const MInst& mi) { return Info(mi.opc).flags & (kWritesScc | kReadsScc); }

bool WritesExec(const MInst& mi) {
  if (Info(mi.opc).flags & kWritesExec) return true;
  for (int i = 0; i < mi.NumDefs() && i < static_cast<int>(mi.ops.size()); ++i)
    if (mi.ops[i].kind == MOperand::Kind::kSpecial && mi.ops[i].special == SpecialReg::kExec) return true;
  return false;
}

bool ReadsExec(const MInst& mi) { return Info(mi.opc).flags & kReadsExec; }

// True if `b` (later) must stay after `a` (earlier).
bool Depends(const MInst& a, const std::vector<RegRef>& ra, const MInst& b,
             const std::vector<RegRef>& rb) {
  for (const RegRef& x : ra)
    for (const RegRef& y : rb)
      if ((x.def || y.def) && Overlap(x, y)) return true;
  if (TouchesScc(a) && TouchesScc(b)) return true;
  if ((WritesExec(a) && (ReadsExec(b) || WritesExec(b))) || (WritesExec(b) && ReadsExec(a)))
    return true;
  if (MemConflict(MemOf(a), MemOf(b))) return true;
  if (a.opc == Opc::kSWaitcnt || b.opc == Opc::kSWaitcnt || a.opc == Opc::kSNop ||
      b.opc == Opc::kSNop)
    return true;
  return false;
}

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
  SgprPressure(const MFunction& f, const TargetInfo& t, int lo, int hi,
               const std::vector<int>& first, const std::vector<int>& last,
               const std::vector<int>& refs)
      : f_(f), defs_(hi - lo), uses_(hi - lo) {
    int nv = static_cast<int>(f.vregs.size());
    std::vector<int> in_region(nv, 0), first_ref_is_def(nv, -1);
    auto add = [](std::vector<int>& v, int r) {
      if (std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
    };
    for (int i = lo; i < hi; ++i) {
      const MInst& mi = f.insts[i];
      std::vector<int>& defs = defs_[i - lo];
      std::vector<int>& uses = uses_[i - lo];
      for (size_t o = 0; o < mi.ops.size(); ++o) {
        int r = SgprRoot(mi.ops[o]);
        if (r < 0) continue;
        // A merging def (d16-style) also reads the register.
        bool def = static_cast<int>(o) < mi.NumDefs() && !(Info(mi.opc).flags & kDefMerges);
        add(def ? defs : uses, r);
      }
      for (int r : defs)
        if (first_ref_is_def[r] < 0) first_ref_is_def[r] = Reads(i - lo, r) ? 0 : 1;
      for (int r : uses)
        if (first_ref_is_def[r] < 0) first_ref_is_def[r] = 0;
      std::vector<int> all = defs;
      for (int r : uses) add(all, r);
      for (int r : all) ++in_region[r];
    }
    local_.assign(nv, false);
    live_.assign(nv, false);
    readers_.assign(nv, 0);
    int outside = 0;  // SGPR dwords of values live in the region but not local to it
    for (int r = 0; r < nv; ++r) {
      if (f.vregs[r].cls != RegClass::kSgpr || f.vregs[r].alias_of >= 0 || first[r] == -2) continue;
      bool local = in_region[r] > 0 && in_region[r] == refs[r] && first_ref_is_def[r] == 1 &&
                   f.vregs[r].fixed < 0;
      local_[r] = local;
      int from = f.vregs[r].fixed >= 0 ? -1 : first[r];
      if (!local && from < hi && last[r] >= lo) outside += f.vregs[r].count;
    }
    for (int i = 0; i < hi - lo; ++i) {
      auto drop_nonlocal = [&](std::vector<int>& v) {
        v.erase(std::remove_if(v.begin(), v.end(), [&](int r) { return !local_[r]; }), v.end());
      };
      drop_nonlocal(defs_[i]);
      drop_nonlocal(uses_[i]);
      for (int r : uses_[i]) ++readers_[r];
    }
    budget_ = std::min(kSgprSoftBudget, t.max_sgprs - outside - kSgprAlignmentSlack);
  }

  // Change of the pressure if region instruction `i` issues next.
  int Delta(int i) const {
    int d = 0;
    for (int r : uses_[i])
      if (live_[r] && readers_[r] == 1) d -= f_.vregs[r].count;
    for (int r : defs_[i])
      if (!live_[r] && readers_[r] - Reads(i, r) > 0) d += f_.vregs[r].count;
    return d;
  }
  // True if issuing `i` keeps the pressure within the budget, or lowers it.
  bool Fits(int i) const {
    int d = Delta(i);
    return d <= 0 || pressure_ + d <= budget_;
  }
  void Issue(int i) {
    for (int r : uses_[i])
      if (--readers_[r] == 0 && live_[r]) {
        live_[r] = false;
        pressure_ -= f_.vregs[r].count;
      }
    for (int r : defs_[i])
      if (!live_[r] && readers_[r] > 0) {
        live_[r] = true;
        pressure_ += f_.vregs[r].count;
      }
  }

 private:
  int SgprRoot(const MOperand& o) const {
    if (!o.IsReg() || !o.is_virtual || o.cls != RegClass::kSgpr) return -1;
    int r = f_.Root(o.reg).first;
    return r >= 0 && r < static_cast<int>(f_.vregs.size()) ? r : -1;  // unknown vregs: untracked
  }
  int Reads(int i, int r) const {
    return std::find(uses_[i].begin(), uses_[i].end(), r) != uses_[i].end() ? 1 : 0;
  }
  const MFunction& f_;
  std::vector<std::vector<int>> defs_, uses_;  // per region instruction: local SGPR roots
  std::vector<bool> local_, live_;
  std::vector<int> readers_;  // unscheduled readers in the region
  int pressure_ = 0, budget_ = 0;
};

}  // namespace

absl::Status ScheduleBlocks(const TargetInfo& t, MFunction& f, ScheduleStats* stats) {
  absl::StatusOr<std::vector<BasicBlock>> cfg = BuildCfg(f);
  if (!cfg.ok()) return cfg.status();
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
  for (const BasicBlock& bb : *cfg) {
    // The schedulable region: the block minus a leading label and a trailing
    // branch / s_endpgm (and the SCC-setting compare the branch reads, which
    // the SCC chain keeps in order anyway).
    int lo = bb.begin, hi = bb.end;
    while (lo < hi && Pinned(f.insts[lo])) out.push_back(f.insts[lo++]);
    std::vector<MInst> tail;
    while (hi > lo && Pinned(f.insts[hi - 1])) tail.insert(tail.begin(), f.insts[--hi]);
    int n = hi - lo;
    std::vector<std::vector<RegRef>> regs(n);
    for (int i = 0; i < n; ++i) regs[i] = Regs(f, f.insts[lo + i]);
    std::vector<std::vector<int>> succ(n);
    std::vector<int> npred(n, 0);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (Depends(f.insts[lo + i], regs[i], f.insts[lo + j], regs[j])) {
          succ[i].push_back(j);
          ++npred[j];
        }
    // Priority: the latency-weighted height (longest path to the block end).
    std::vector<int> height(n, 0);
    for (int i = n - 1; i >= 0; --i) {
      int h = 0;
      for (int s : succ[i]) h = std::max(h, height[s]);
      height[i] = h + Latency(t, f.insts[lo + i]);
    }
    std::vector<int> ready;
    for (int i = 0; i < n; ++i)
      if (npred[i] == 0) ready.push_back(i);
    SgprPressure sgprs(f, t, lo, hi, first, last, refs);
    int position = 0;
    while (!ready.empty()) {
      // Highest first among those that keep the SGPR pressure within its
      // budget; ties keep the original order (deterministic). When none
      // does, the first in the original order: the lowering emits what an
      // access needs right before it, so under pressure the schedule falls
      // back towards that order (taking the smallest increase instead issued
      // every cheap uniform value of the whole epilogue first).
      auto below = [&](int a, int b) { return height[a] != height[b] ? height[a] < height[b] : a > b; };
      auto best = ready.end();
      for (auto it = ready.begin(); it != ready.end(); ++it)
        if (sgprs.Fits(*it) && (best == ready.end() || below(*best, *it))) best = it;
      if (best == ready.end()) best = std::min_element(ready.begin(), ready.end());
      int i = *best;
      ready.erase(best);
      sgprs.Issue(i);
      if (i != position && stats != nullptr) ++stats->moved;
      ++position;
      out.push_back(f.insts[lo + i]);
      for (int s : succ[i])
        if (--npred[s] == 0) ready.push_back(s);
    }
    for (MInst& m : tail) out.push_back(std::move(m));
  }
  if (out.size() != f.insts.size())
    return absl::InternalError("scheduler lost instructions (a dependence cycle)");
  f.insts = std::move(out);
  return absl::OkStatus();
}

}  // namespace kir
