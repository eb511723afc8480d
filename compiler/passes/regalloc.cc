#include "compiler/passes/regalloc.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
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

int Limit(const TargetInfo& t, RegClass c) {
  return c == RegClass::kVgpr ? t.max_arch_vgprs : c == RegClass::kSgpr ? t.max_sgprs : t.max_agprs;
}

// The most registers of one class live at one instruction: intervals are
// inclusive at both ends (a register freed by an instruction's last use is
// not given to its results), fixed ones from -1.
int PeakLive(const MFunction& f, const std::vector<Interval>& iv) {
  std::vector<std::pair<int, int>> events;  // (instruction, +count at start / -count after end)
  for (const Interval& in : iv) {
    events.push_back({in.start, f.vregs[in.vreg].count});
    events.push_back({in.end + 1, -f.vregs[in.vreg].count});
  }
  std::sort(events.begin(), events.end());  // at one index the ends (negative) first
  int live = 0, peak = 0;
  for (const auto& [at, d] : events) {
    live += d;
    peak = std::max(peak, live);
  }
  return peak;
}

// Linear scan: intervals of one class in start order, each given the lowest
// free register tuple of its alignment (first fit). Sets phys; returns one
// past the highest register used. Errors: two fixed values sharing a
// register (InvalidArgument), running out (ResourceExhausted).
absl::StatusOr<int> FirstFit(const TargetInfo& t, const MFunction& f, const std::vector<Interval>& iv,
                             std::vector<int>& phys, const std::vector<std::string>* op_text) {
  // b[reg]: last instruction index the register is live at (-2 = free).
  std::vector<int> b(512, -2);
  std::vector<int> owner(512, -1);  // the vreg last given each register
  int used = 0;
  for (const Interval& in : iv) {
    const VReg& vr = f.vregs[in.vreg];
    int base = -1;
    auto free_at = [&](int r) { return b[r] < in.start; };
    if (vr.fixed >= 0) {
      base = vr.fixed;
      for (int r = base; r < base + vr.count; ++r)
        if (!free_at(r)) {
          const int other = owner[r];
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
      for (int cand = 0; cand + vr.count <= Limit(t, vr.cls); cand += align) {
        bool ok = true;
        for (int r = cand; r < cand + vr.count && ok; ++r) ok = free_at(r);
        if (ok) {
          base = cand;
          break;
        }
      }
      if (base < 0) {
        int live = 0;
        for (int r = 0; r < Limit(t, vr.cls); ++r) live += !free_at(r);
        std::string where;
        int kop = in.start >= 0 ? f.insts[in.start].kir_op : -1;
        if (op_text != nullptr && kop >= 0 && kop < static_cast<int>(op_text->size()))
          where = absl::StrCat(" in '", (*op_text)[kop].size() > 100
                                                ? (*op_text)[kop].substr(0, 97) + "..."
                                                : (*op_text)[kop],
                               "'");
        return absl::ResourceExhaustedError(absl::StrCat(
            "out of ", ClassName(vr.cls), ": the kernel needs more than the ", Limit(t, vr.cls),
            " ", ClassName(vr.cls), " ", t.name, " has (", live, " live at instruction ", in.start,
            where, ", a ", vr.count, "-register tuple more requested); no spilling yet: reduce the tile, "
            "vector sizes or the number of buffer arguments"));
      }
    }
    for (int r = base; r < base + vr.count; ++r) {
      b[r] = in.end;
      owner[r] = in.vreg;
    }
    phys[in.vreg] = base;
    used = std::max(used, base + vr.count);
  }
  return used;
}

// The second assignment: fixed values first, then the widest tuples (then
// in start order), each at the lowest aligned tuple whose registers hold no
// interval overlapping its own, so narrow values fill the gaps the wide ones
// leave instead of splitting the runs a later wide one needs. Per register,
// the disjoint intervals given to it, sorted by start. Sets phys; nullopt
// when the class runs out (FirstFit's error is the one reported). Runs after
// FirstFit succeeded or ran out, so fixed values do not collide.
std::optional<int> SecondFit(const TargetInfo& t, const MFunction& f, std::vector<Interval> iv,
                             std::vector<int>& phys) {
  std::stable_sort(iv.begin(), iv.end(), [&](const Interval& a, const Interval& b) {
    const VReg& va = f.vregs[a.vreg];
    const VReg& vb = f.vregs[b.vreg];
    if ((va.fixed >= 0) != (vb.fixed >= 0)) return va.fixed >= 0;
    return va.count > vb.count;  // stable: start order within a width
  });
  std::vector<std::vector<std::pair<int, int>>> held(512);  // per register: [start, end]
  // Within one width the intervals come in start order, so per register the
  // held intervals ending before the current start stay behind a cursor
  // (reset when the width changes): each test is then amortised O(1).
  std::vector<size_t> cursor(512, 0);
  auto free_for = [&](int r, const Interval& in) {
    const auto& h = held[r];
    size_t& c = cursor[r];
    while (c < h.size() && h[c].second < in.start) ++c;
    // The first held interval ending at or after in.start overlaps iff it
    // starts at or before in.end (the register's intervals are disjoint).
    return c == h.size() || h[c].first > in.end;
  };
  int used = 0;
  int width = 0;
  for (const Interval& in : iv) {
    const VReg& vr = f.vregs[in.vreg];
    int base = vr.fixed;
    if (base < 0 && vr.count != width) {
      width = vr.count;
      std::fill(cursor.begin(), cursor.end(), 0);
    }
    if (base < 0) {
      const int align = std::max(1, vr.align);
      for (int cand = 0; cand + vr.count <= Limit(t, vr.cls) && base < 0; cand += align) {
        bool ok = true;
        for (int r = cand; r < cand + vr.count && ok; ++r) ok = free_for(r, in);
        if (ok) base = cand;
      }
      if (base < 0) return std::nullopt;
    }
    for (int r = base; r < base + vr.count; ++r) {
      auto& h = held[r];
      h.insert(std::upper_bound(h.begin(), h.end(), std::make_pair(in.start, in.end)), {in.start, in.end});
    }
    phys[in.vreg] = base;
    used = std::max(used, base + vr.count);
  }
  return used;
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
  // Classes are assigned independently. First fit in start order (linear
  // scan) can leave holes narrower or less aligned than a later tuple (one
  // register here, two there) and so need more registers than are ever live
  // at once: the gfx950 K-major gemm (issue 19) had at most 127 VGPRs live
  // but first fit gave v[126:129] to a 4-register fragment because v0 and
  // v[40:41] were the only other free ones. When a class's first fit ends
  // above its peak of live registers, the class is assigned again widest
  // tuples first (SecondFit) and the one with fewer registers is kept.
  std::vector<int> phys(nv, -1);
  RegUsage usage;
  for (RegClass cls : {RegClass::kVgpr, RegClass::kSgpr, RegClass::kAgpr}) {
    std::vector<Interval> in_class;
    for (const Interval& in : iv)
      if (f.vregs[in.vreg].cls == cls) in_class.push_back(in);
    if (in_class.empty()) continue;
    absl::StatusOr<int> top = FirstFit(t, f, in_class, phys, op_text);
    if (!top.ok() && !absl::IsResourceExhausted(top.status())) return top.status();
    if (!top.ok() || *top > PeakLive(f, in_class)) {
      std::vector<int> phys2 = phys;
      std::optional<int> top2 = SecondFit(t, f, in_class, phys2);
      if (top2.has_value() && (!top.ok() || *top2 < *top)) {
        phys = std::move(phys2);
        top = *top2;
      }
    }
    if (!top.ok()) {
      if (exhausted != nullptr) *exhausted = cls;
      return top.status();
    }
    if (cls == RegClass::kVgpr) usage.vgprs = *top;
    if (cls == RegClass::kSgpr) usage.sgprs = *top;
    if (cls == RegClass::kAgpr) usage.agprs = *top;
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
