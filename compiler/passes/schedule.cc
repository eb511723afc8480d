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

}  // namespace

absl::Status ScheduleBlocks(const TargetInfo& t, MFunction& f, ScheduleStats* stats) {
  absl::StatusOr<std::vector<BasicBlock>> cfg = BuildCfg(f);
  if (!cfg.ok()) return cfg.status();
  std::vector<MInst> out;
  out.reserve(f.insts.size());
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
    int position = 0;
    while (!ready.empty()) {
      // Highest first; ties keep the original order (deterministic).
      auto best = std::max_element(ready.begin(), ready.end(), [&](int a, int b) {
        return height[a] != height[b] ? height[a] < height[b] : a > b;
      });
      int i = *best;
      ready.erase(best);
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
