#include "compiler/passes/regalloc.h"

#include <algorithm>
#include <climits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/isa/cfg.h"

namespace kir {
namespace {

struct Interval {
  int vreg;
  int start, end;
};

const char* ClassName(RegClass c) {
  return c == RegClass::kVgpr ? "VGPRs" : c == RegClass::kSgpr ? "SGPRs" : "AGPRs";
}

}  // namespace

absl::StatusOr<RegUsage> AllocateRegisters(const TargetInfo& t, MFunction& f,
                                           const std::vector<std::string>* op_text,
                                           RegClass* exhausted) {
  int nv = static_cast<int>(f.vregs.size());
  // Aliases (sub-tuple views) are their root tuple at an offset.
  for (MInst& mi : f.insts)
    for (MOperand& o : mi.ops)
      if (o.IsReg() && o.is_virtual && o.reg >= 0 && o.reg < nv && f.vregs[o.reg].alias_of >= 0) {
        auto [root, off] = f.Root(o.reg);
        o.reg = root;
        o.sub += off;
      }
  std::vector<int> start(nv, -2), end(nv, -2);
  for (int i = 0; i < static_cast<int>(f.insts.size()); ++i) {
    for (const MOperand& o : f.insts[i].ops) {
      if (!o.IsReg() || !o.is_virtual) continue;
      if (o.reg < 0 || o.reg >= nv)
        return absl::InternalError(absl::StrCat("operand names unknown vreg ", o.reg));
      if (start[o.reg] == -2) start[o.reg] = i;
      end[o.reg] = i;
    }
  }
  // Loops: a value live into a loop (defined before its header, used at or
  // after it) stays live over the whole loop, back edge included, so the
  // next iteration still finds it (loop-carried values and invariants).
  absl::StatusOr<const std::vector<BasicBlock>*> got = EnsureCfg(f);
  if (!got.ok()) return got.status();
  const std::vector<BasicBlock>* cfg = *got;
  std::vector<std::pair<int, int>> loops;  // [header begin, latch end - 1]
  for (size_t b = 0; b < cfg->size(); ++b)
    for (int s : (*cfg)[b].succs)
      if (s <= static_cast<int>(b)) loops.push_back({(*cfg)[s].begin, (*cfg)[b].end - 1});
  // A value live into loop [lo, hi] (start < lo <= end < hi) stays live to hi,
  // which may put it into an enclosing loop: end goes to the largest hi of
  // the loops it is live into, until none is left. Loops sorted by lo with a
  // range-maximum table of hi answer that in O(log loops) a step (the
  // fixed point is the same whichever applicable loop is taken first: no
  // loop's hi lies past the fixed point).
  std::sort(loops.begin(), loops.end());
  const int nl = static_cast<int>(loops.size());
  std::vector<std::vector<int>> max_hi;  // max_hi[k][i]: max hi of loops i .. i + 2^k - 1
  if (nl > 0) {
    max_hi.push_back(std::vector<int>(nl));
    for (int i = 0; i < nl; ++i) max_hi[0][i] = loops[i].second;
    for (int k = 1; (1 << k) <= nl; ++k) {
      max_hi.push_back(std::vector<int>(nl - (1 << k) + 1));
      for (int i = 0; i + (1 << k) <= nl; ++i)
        max_hi[k][i] = std::max(max_hi[k - 1][i], max_hi[k - 1][i + (1 << (k - 1))]);
    }
  }
  auto range_max = [&](int a, int b) {  // loops a .. b - 1, a < b
    int k = 31 - __builtin_clz(static_cast<unsigned>(b - a));
    return std::max(max_hi[k][a], max_hi[k][b - (1 << k)]);
  };
  for (int v = 0; v < nv && nl > 0; ++v) {
    if (start[v] == -2) continue;
    const int s0 = f.vregs[v].fixed >= 0 ? -1 : start[v];
    // Loops with lo > s0.
    const int a = static_cast<int>(
        std::upper_bound(loops.begin(), loops.end(), std::make_pair(s0, INT_MAX)) - loops.begin());
    for (;;) {
      // ... and lo <= end.
      const int b = static_cast<int>(
          std::upper_bound(loops.begin(), loops.end(), std::make_pair(end[v], INT_MAX)) - loops.begin());
      if (a >= b) break;
      const int hi = range_max(a, b);
      if (hi <= end[v]) break;
      end[v] = hi;
    }
  }
  std::vector<Interval> iv;
  for (int v = 0; v < nv; ++v) {
    if (start[v] == -2) continue;
    if (f.vregs[v].fixed >= 0) start[v] = -1;  // live from kernel entry
    iv.push_back({v, start[v], end[v]});
  }
  std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.vreg < b.vreg;
  });
  auto limit = [&](RegClass c) {
    return c == RegClass::kVgpr ? t.max_arch_vgprs : c == RegClass::kSgpr ? t.max_sgprs : t.max_agprs;
  };
  // busy_until[class][reg]: last instruction index the register is live at (-2 = free).
  std::vector<std::vector<int>> busy(3, std::vector<int>(512, -2));
  std::vector<std::vector<int>> owner(3, std::vector<int>(512, -1));  // the vreg last given each register
  std::vector<int> phys(nv, -1);
  RegUsage usage;
  for (const Interval& in : iv) {
    const VReg& vr = f.vregs[in.vreg];
    int c = static_cast<int>(vr.cls);
    std::vector<int>& b = busy[c];
    int base = -1;
    auto free_at = [&](int r) { return b[r] < in.start; };
    if (vr.fixed >= 0) {
      base = vr.fixed;
      for (int r = base; r < base + vr.count; ++r)
        if (!free_at(r)) {
          const int other = owner[c][r];
          const char* p = RegClassPrefix(vr.cls);
          return absl::InvalidArgumentError(absl::StrCat(
              "%", p, in.vreg, " is fixed to ", RegName(vr.cls, vr.fixed, vr.count), " but ", RegName(vr.cls, r, 1),
              " still holds ", other >= 0 ? absl::StrCat("%", RegClassPrefix(f.vregs[other].cls), other) : "a value",
              " (live to instruction ", b[r],
              ") when %", p, in.vreg, " becomes live at instruction ", std::max(in.start, 0),
              ": two precoloured values share a register while both are live"));
        }
    } else {
      int align = std::max(1, vr.align);
      for (int cand = 0; cand + vr.count <= limit(vr.cls); cand += align) {
        bool ok = true;
        for (int r = cand; r < cand + vr.count && ok; ++r) ok = free_at(r);
        if (ok) {
          base = cand;
          break;
        }
      }
      if (base < 0) {
        int live = 0;
        for (int r = 0; r < limit(vr.cls); ++r) live += !free_at(r);
        std::string where;
        int kop = in.start >= 0 ? f.insts[in.start].kir_op : -1;
        if (op_text != nullptr && kop >= 0 && kop < static_cast<int>(op_text->size()))
          where = absl::StrCat(" in '", (*op_text)[kop].size() > 100
                                                ? (*op_text)[kop].substr(0, 97) + "..."
                                                : (*op_text)[kop],
                               "'");
        if (exhausted != nullptr) *exhausted = vr.cls;
        return absl::ResourceExhaustedError(absl::StrCat(
            "out of ", ClassName(vr.cls), ": the kernel needs more than the ", limit(vr.cls),
            " ", ClassName(vr.cls), " ", t.name, " has (", live, " live at instruction ", in.start,
            where, ", a ", vr.count, "-register tuple more requested); no spilling yet: reduce the tile, "
            "vector sizes or the number of buffer arguments"));
      }
    }
    for (int r = base; r < base + vr.count; ++r) {
      b[r] = in.end;
      owner[c][r] = in.vreg;
    }
    phys[in.vreg] = base;
    int top = base + vr.count;
    if (vr.cls == RegClass::kVgpr) usage.vgprs = std::max(usage.vgprs, top);
    if (vr.cls == RegClass::kSgpr) usage.sgprs = std::max(usage.sgprs, top);
    if (vr.cls == RegClass::kAgpr) usage.agprs = std::max(usage.agprs, top);
  }
  for (MInst& mi : f.insts) {
    for (MOperand& o : mi.ops) {
      if (!o.IsReg() || !o.is_virtual) continue;
      o.reg = phys[o.reg] + o.sub;
      o.sub = 0;
      o.is_virtual = false;
    }
  }
  return usage;
}

}  // namespace kir
