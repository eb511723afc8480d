// The address verifier (verify.h): symbolic execution (symexec.h) of the
// final machine code, translation of the resulting terms to linear integer
// arithmetic for Z3, one query per memory instruction, concrete confirmation
// of every counterexample.
//
// Translation (sound by construction). A term t (32-bit wrapping semantics)
// becomes an affine form L over "atoms" (Z3 integer terms with a sound
// interval: variables, div/mod by constants, ite, products) such that
//   L == t (mod 2^32)   and   L lies in the interval computed from its atoms.
// Ring operations (add, sub, mul by a constant, shl by a constant) need
// nothing more. Operations that need the exact unsigned value use L itself
// when its interval lies in [0, 2^32) (or L - j*2^32 when it lies in one
// window), else L mod 2^32. On exact values: lshr/ashr by k is floor
// division by 2^k, and-masks are sums of (X div 2^p) mod 2^w fields,
// mul_hi by a constant m is (X*m) div 2^32; div/mod by d split off the
// coefficients that d divides (so (x + 1024 y) div 1024 is y exactly when
// x < 1024). Magic-number division lshr(mul_hi(X, m), s) is X div d when
// MagicDivisorIsExact(d, max, {m, s}) holds for X's interval [0, max] (the
// Granlund-Montgomery bound in exact 128-bit arithmetic), or under a side
// condition X <= bound. or/xor are additions only when the operands' bits are
// disjoint: structurally, or as a side condition proved with the rest (and,
// when a model breaks only that condition, again bit by bit, exactly).
// Shifts by non-constant amounts are a case split over the possible amounts.
// Anything else is over-approximated by a fresh value (sound for a proof; a
// counterexample is always checked concretely). See README.md.
#include "verify/verify.h"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"
#include "compiler/analysis/magic_division.h"
#include "compiler/analysis/gemm_config.h"
#include "verify/concrete.h"
#include "verify/obligations.h"
#include "verify/symexec.h"
#include "verify/term.h"
#include "verify/z3_lazy.h"

namespace kir {

const char* StatusName(AccessVerdict::Status s) {
  switch (s) {
    case AccessVerdict::Status::kProved: return "proved";
    case AccessVerdict::Status::kFailed: return "failed";
    case AccessVerdict::Status::kUnknown: return "unknown";
  }
  return "?";
}

std::string VerifyResult::Report() const {
  int proved = 0, failed = 0, unknown = 0;
  std::string body;
  for (const AccessVerdict& a : accesses) {
    const char* tag = a.status == AccessVerdict::Status::kProved   ? "proved "
                      : a.status == AccessVerdict::Status::kFailed ? "FAILED "
                                                                    : "UNKNOWN";
    (a.status == AccessVerdict::Status::kProved ? proved : a.status == AccessVerdict::Status::kFailed ? failed
                                                                                                        : unknown)++;
    // A DS read2/write2's two accesses: "[N.0]", "[N.1]".
    // An LDS DMA's two accesses: "[N global]" (its buffer read), "[N LDS]".
    std::string id = a.inst_id < 0        ? "[?]"
                     : a.component >= 0 ? absl::StrCat("[", a.inst_id, ".", a.component, "]")
                     : !a.side.empty()  ? absl::StrCat("[", a.inst_id, " ", a.side, "]")
                                        : absl::StrCat("[", a.inst_id, "]");
    absl::StrAppend(&body, absl::StrFormat("  %s %-6s %-52s %s (%.3f s)\n", tag, id, a.inst_text,
                                           absl::StrCat(a.kir_op >= 0 ? absl::StrCat("op ", a.kir_op, ": ", a.op_text)
                                                                      : a.op_text,
                                                        a.iterations.empty() ? "" : absl::StrCat(" [", a.iterations, "]")),
                                           a.seconds));
    if (a.status != AccessVerdict::Status::kProved) {
      for (absl::string_view line : absl::StrSplit(a.reason, '\n')) absl::StrAppend(&body, "      ", line, "\n");
      if (!a.counterexample.empty())
        for (absl::string_view line : absl::StrSplit(a.counterexample, '\n'))
          if (!line.empty()) absl::StrAppend(&body, "      ", line, "\n");
    }
  }
  std::string loop_lines;
  for (const std::string& l : lds_layout) absl::StrAppend(&loop_lines, "  ", l, "\n");
  for (const std::string& l : loops) absl::StrAppend(&loop_lines, "  ", l, "\n");
  // A DS read2/write2 is one instruction with two accesses.
  std::set<int> ids;
  size_t instructions = 0;
  size_t checks = 0;  // matching: LDS layout and coverage entries
  for (const AccessVerdict& a : accesses) {
    if (a.inst_id < 0) {
      ++checks;
      continue;
    }
    instructions += ids.insert(a.inst_id).second;
  }
  const size_t acc = accesses.size() - checks;
  std::string count = instructions == acc ? absl::StrCat(acc, " memory instructions")
                                          : absl::StrCat(instructions, " memory instructions (", acc, " accesses)");
  if (checks > 0) absl::StrAppend(&count, " and ", checks, " layout/coverage finding(s)");
  return absl::StrCat("verify: kernel ", kernel, " on ", target, ": ", count, ", ",
                      proved, " proved, ", failed, " failed, ", unknown, " unknown (",
                      absl::StrFormat("%.3f", seconds), " s)\n", loop_lines, body,
                      stopped_early ? "verify: stopped at the first failed instruction (stop_at_first_failure): "
                                      "the accesses after it were not verified\n"
                                    : "",
                      all_proved ? "verify: every address proved\n" : "verify: NOT every address is proved\n");
}

namespace {

using namespace vfy;
using i128 = __int128;

constexpr i128 kInf = static_cast<i128>(1) << 100;
constexpr i128 kTwo32 = static_cast<i128>(1) << 32;

i128 Clamp(i128 v) { return v > kInf ? kInf : v < -kInf ? -kInf : v; }
i128 Abs(i128 v) { return v < 0 ? -v : v; }
i128 SatMul(i128 a, i128 b) {
  if (a == 0 || b == 0) return 0;
  if (Abs(a) > kInf / Abs(b)) return (a < 0) != (b < 0) ? -kInf : kInf;
  return Clamp(a * b);
}
i128 FDiv(i128 a, i128 d) {
  i128 q = a / d;
  if (a % d != 0 && a < 0) --q;
  return q;
}
i128 Pow2(int k) { return static_cast<i128>(1) << k; }
std::string I128Str(i128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (neg) s.push_back('-');
  return std::string(s.rbegin(), s.rend());
}

struct Iv {
  i128 lo = 0, hi = 0;
};

// An affine form over atoms: sum(coeff * atom) + c.
struct Lin {
  std::vector<std::pair<int, i128>> t;  // (atom, coefficient), sorted by atom, no zero coefficients
  i128 c = 0;
  bool IsConst() const { return t.empty(); }
};

// Coefficients beyond 2^62 are reduced modulo 2^32 (the form only claims
// congruence modulo 2^32; exactness is re-derived from the interval).
i128 Reduce32(i128 v) {
  if (Abs(v) <= (static_cast<i128>(1) << 62)) return v;
  i128 r = v % kTwo32;
  if (r < 0) r += kTwo32;
  if (r > kTwo32 / 2) r -= kTwo32;
  return r;
}

Lin LAdd(const Lin& a, const Lin& b, i128 kb = 1) {
  Lin r;
  r.c = Reduce32(a.c + kb * b.c);
  size_t i = 0, j = 0;
  while (i < a.t.size() || j < b.t.size()) {
    if (j >= b.t.size() || (i < a.t.size() && a.t[i].first < b.t[j].first)) {
      r.t.push_back(a.t[i++]);
    } else if (i >= a.t.size() || b.t[j].first < a.t[i].first) {
      i128 c = Reduce32(kb * b.t[j].second);
      if (c != 0) r.t.push_back({b.t[j].first, c});
      ++j;
    } else {
      i128 c = Reduce32(a.t[i].second + kb * b.t[j].second);
      if (c != 0) r.t.push_back({a.t[i].first, c});
      ++i, ++j;
    }
  }
  return r;
}

Lin LScale(const Lin& a, i128 k) {
  Lin r;
  if (k == 0) return r;
  r.c = Reduce32(a.c * k);
  for (const auto& [at, c] : a.t) {
    i128 v = Reduce32(c * k);
    if (v != 0) r.t.push_back({at, v});
  }
  return r;
}

Lin LConst(i128 c) {
  Lin r;
  r.c = c;
  return r;
}

Lin LAtom(int atom) {
  Lin r;
  r.t.push_back({atom, 1});
  return r;
}

void MergeInto(std::vector<int>& dst, const std::vector<int>& src) {
  if (src.empty()) return;
  std::vector<int> out;
  std::set_union(dst.begin(), dst.end(), src.begin(), src.end(), std::back_inserter(out));
  dst.swap(out);
}

// ---------------------------------------------------------------------------
// Terms to Z3.
// The context's resource counter as a solver reports it (Z3 statistic "rlimit
// count"; it counts for the whole context, so a check's use is the difference).
uint64_t ResourceCount(const z3::solver& s) {
  z3::stats st = s.statistics();
  for (unsigned i = 0; i < st.size(); ++i)
    if (st.key(i) == "rlimit count") return st.is_uint(i) ? st.uint_value(i) : static_cast<uint64_t>(st.double_value(i));
  return 0;
}

// The first query the wall-clock backstop stopped, if any: then there is no
// verdict (VerifyAddresses returns DeadlineExceeded), since no verdict may
// depend on wall time.
struct Backstop {
  std::string what;  // empty: the backstop has not fired
  uint64_t used = 0, limit = 0;
  double seconds = 0;
  bool fired() const { return !what.empty(); }
};

// The wall-clock backstop: a thread that interrupts the context's running
// check (Z3_interrupt) when its deadline passes. Not Z3's "timeout" parameter:
// Z3 4.8.10-4.8.12's thread-pool scoped_timer can deadlock when a timer
// expires as its scope ends (Z3Prover/z3 PR #5371, issue #5990; seen here
// with a 1 ms timeout: both threads blocked in libz3 for good).
class Watchdog {
 public:
  explicit Watchdog(z3::context& ctx) : ctx_(ctx), thread_([this] { Loop(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Arm(double seconds) {
    std::lock_guard<std::mutex> lk(m_);
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::microseconds(static_cast<int64_t>(std::min(seconds, 1e7) * 1e6));
    armed_ = true;
    fired_ = false;
    cv_.notify_all();
  }
  // Ends the watch; true if the deadline passed (the context was interrupted).
  bool Disarm() {
    std::lock_guard<std::mutex> lk(m_);
    armed_ = false;
    return fired_;
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lk(m_);
    while (!stop_) {
      if (!armed_) {
        cv_.wait(lk);
        continue;
      }
      if (std::chrono::steady_clock::now() >= deadline_) {
        fired_ = true;
        armed_ = false;
        ctx_.interrupt();
        continue;
      }
      cv_.wait_until(lk, deadline_);
    }
  }
  z3::context& ctx_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false, armed_ = false, fired_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

// A Z3 query's budget: resource units (deterministic) and a wall-clock backstop.
struct SolverBudget {
  uint64_t resource_limit = 0;  // 0: none
  double timeout_seconds = 0;   // <= 0: none
  Watchdog* watchdog = nullptr;  // the backstop's timer (none: no backstop)
  void Apply(z3::context& ctx, z3::solver& s) const {
    z3::params prm(ctx);
    if (resource_limit > 0)
      prm.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(resource_limit, UINT32_MAX)));
    s.set(prm);
  }
  // Checks `s` under the backstop. When the backstop stopped it, records that
  // in `bs` (the first such query, `what` naming it): whatever the solver
  // answered, it is then not a verdict (and the context stays interrupted, so
  // the verifier stops). The resource units used go to `used`.
  z3::check_result Check(z3::solver& s, Backstop* bs, const std::string& what, uint64_t* used = nullptr) const {
    const uint64_t c0 = ResourceCount(s);
    const bool watched = watchdog != nullptr && timeout_seconds > 0;
    if (watched) watchdog->Arm(timeout_seconds);
    z3::check_result r = s.check();
    const bool fired = watched && watchdog->Disarm();
    const uint64_t u = ResourceCount(s) - c0;
    if (used) *used = u;
    if (fired && bs != nullptr && !bs->fired()) {
      bs->what = what;
      bs->used = u;
      bs->limit = resource_limit;
      bs->seconds = timeout_seconds;
    }
    return fired ? z3::unknown : r;
  }
  // Why `s` answered unknown. Z3 reports an exhausted rlimit as "max.
  // resource limit exceeded" or, when it stops inside a tactic, as
  // "canceled"; the wall-clock backstop's cancellation never reaches a
  // verdict (Check records it), so with a resource limit set "canceled"
  // means the limit.
  std::string ReasonUnknown(z3::solver& s) const {
    std::string why = s.reason_unknown();
    if (resource_limit > 0 && why == "canceled")
      return absl::StrCat("resource limit: the query's budget of ", resource_limit, " units ran out");
    return why;
  }
};

class Translator {
 public:
  struct TL {
    Lin l;
    std::vector<int> sides;  // side conditions this value's translation relies on
    std::vector<int> notes;  // abstractions used (nonlinear products, over-approximations)
    std::vector<int> defs;   // definitions of the fresh variables it uses (ranges, bits)
  };
  struct Side {
    z3::expr cond;
    std::string what;
    bool bitwise = false;  // an or/xor disjointness condition
  };

  // exact_bitwise: or/xor of operands whose bits are not structurally
  // disjoint are encoded bit by bit (exact; slower) instead of as an add under
  // the side condition that the bits are disjoint (fast; refutes only what the
  // side condition rules out).
  Translator(z3::context& ctx, TermPool& pool, bool exact_bitwise = false)
      : ctx_(ctx), p_(pool), exact_bitwise_(exact_bitwise) {}
  void SetLabels(std::unordered_map<int, std::string> labels) { labels_ = std::move(labels); }
  // Where a query stopped by the wall-clock backstop is recorded.
  void SetBackstop(Backstop* bs) { backstop_ = bs; }

  // a == b (mod 2^32) for all values of the variables in their ranges.
  bool ProveEqual(TRef a, TRef b, const SolverBudget& budget) {
    TL acc;
    z3::expr ea = Exact(a, &acc), eb = Exact(b, &acc);
    z3::solver s(ctx_);
    budget.Apply(ctx_, s);
    z3::expr_vector as = Assumptions(acc);
    for (unsigned i = 0; i < as.size(); ++i) s.add(as[i]);
    z3::expr_vector goal(ctx_);
    goal.push_back(ea == eb);
    for (int sid : acc.sides) goal.push_back(sides_[sid].cond);
    s.add(!z3::mk_and(goal));
    return budget.Check(s, backstop_, "a loop-invariant check of symbolic execution (two register values equal)") ==
           z3::unsat;
  }

  // Whether, for all values of the variables in their ranges, `exec` (a 0/1
  // lane bit) implies lo <= t <= hi, t's exact unsigned 32-bit value. unsat:
  // proved; sat: `model` gets the values of `vars` in the solver's model (a
  // candidate the caller confirms concretely), `why` what the model may rest
  // on (side conditions it breaks, abstractions); unknown: `why` says why.
  z3::check_result ProveRange(TRef t, TRef exec, int64_t lo, int64_t hi, const SolverBudget& budget,
                              const std::vector<int>& vars, std::vector<std::pair<int, int64_t>>* model,
                              std::string* why, uint64_t* used) {
    TL acc;
    z3::expr e = Exact(t, &acc);
    z3::expr on = NonZero(exec, &acc);
    z3::solver s(ctx_);
    budget.Apply(ctx_, s);
    z3::expr_vector as = Assumptions(acc);
    for (unsigned i = 0; i < as.size(); ++i) s.add(as[i]);
    z3::expr_vector goal(ctx_);
    goal.push_back(z3::implies(on, e >= ctx_.int_val(lo) && e <= ctx_.int_val(hi)));
    for (int sid : acc.sides) goal.push_back(sides_[sid].cond);
    s.add(!z3::mk_and(goal));
    z3::check_result c = budget.Check(s, backstop_, "a private-segment bounds query", used);
    if (c == z3::sat) {
      z3::model m = s.get_model();
      for (int v : vars) {
        int64_t x = 0;
        if (m.eval(VarExpr(v), true).is_numeral_i64(x)) model->push_back({v, x});
      }
      std::vector<std::string> broken;
      for (int sid : acc.sides)
        if (!m.eval(sides_[sid].cond, true).is_true()) broken.push_back(sides_[sid].what);
      for (int nid : acc.notes) broken.push_back(notes_[nid]);
      *why = absl::StrJoin(broken, "; ");
    } else if (c == z3::unknown) {
      *why = absl::StrCat("the solver could not decide (", budget.ReasonUnknown(s), ")");
    }
    return c;
  }

  // Some value of variable `var` in [a, b] at which t is 0 (a model: the
  // caller confirms it concretely), or a proof that there is none. The query
  // also admits a model that breaks a side condition, so kNone is sound.
  SymExec::ZeroSearch FindZero(TRef t, int var, int64_t a, int64_t b, const SolverBudget& budget) {
    SymExec::ZeroSearch r;
    TL acc;
    z3::expr e = Exact(t, &acc);
    z3::expr x = VarExpr(var);
    z3::solver s(ctx_);
    budget.Apply(ctx_, s);
    z3::expr_vector as = Assumptions(acc);
    for (unsigned i = 0; i < as.size(); ++i) s.add(as[i]);
    s.add(x >= ctx_.int_val(a) && x <= ctx_.int_val(b));
    z3::expr_vector sides(ctx_);
    for (int sid : acc.sides) sides.push_back(sides_[sid].cond);
    s.add(e == 0 || !z3::mk_and(sides));
    z3::check_result c = budget.Check(s, backstop_,
                                      absl::StrCat("the trip-count search of a loop (an exit in iterations [", a, ", ",
                                                   b, "]?)"));
    if (c == z3::unsat) {
      r.kind = SymExec::ZeroSearch::kNone;
    } else if (c == z3::sat) {
      int64_t v = 0;
      z3::model m = s.get_model();
      if (m.eval(x, true).is_numeral_i64(v)) {
        r.kind = SymExec::ZeroSearch::kFound;
        r.at = v;
        std::vector<std::string> broken;  // why a model may not be an exit
        for (int sid : acc.sides)
          if (!m.eval(sides_[sid].cond, true).is_true()) broken.push_back(sides_[sid].what);
        for (int nid : acc.notes) broken.push_back(notes_[nid]);
        r.why = absl::StrJoin(broken, "; ");
      } else {
        r.why = "the solver's model has no value for the iteration";
      }
    } else {
      r.why = absl::StrCat("the solver could not decide (", budget.ReasonUnknown(s), ")");
    }
    return r;
  }

  const TL& Get(TRef t) {
    if (static_cast<int>(cache_.size()) < p_.size()) cache_.resize(p_.size());
    if (!cache_[t.id]) {
      TL r = Compute(t);
      if (static_cast<int>(cache_.size()) < p_.size()) cache_.resize(p_.size());
      cache_[t.id] = std::make_unique<TL>(std::move(r));
    }
    return *cache_[t.id];
  }

  // The exact unsigned 32-bit value of t, with the side conditions and notes it relies on.
  z3::expr Exact(TRef t, TL* acc) {
    const TL& x = Get(t);
    MergeInto(acc->sides, x.sides);
    MergeInto(acc->notes, x.notes);
    MergeInto(acc->defs, x.defs);
    return ToZ3(ExactL(x.l));
  }
  // A 0/1 (or any) value as a Z3 boolean "non-zero".
  z3::expr NonZero(TRef t, TL* acc) {
    const TL& x = Get(t);
    MergeInto(acc->sides, x.sides);
    MergeInto(acc->notes, x.notes);
    MergeInto(acc->defs, x.defs);
    Iv iv = IvOf(x.l);
    if (iv.lo >= 0 && iv.hi <= 1) return ToZ3(x.l) == 1;
    return ToZ3(ExactL(x.l)) != 0;
  }

  // KIR index arithmetic (unbounded integers, floor division) in the same
  // canonical forms as the machine code's values, so that a KIR floordiv and
  // the machine's division of the same dividend are one atom. `ok` turns false
  // when a coefficient grows past 2^50 (forms reduce coefficients beyond 2^62
  // modulo 2^32, which is only right for machine values): the caller then
  // uses plain Z3 terms instead.
  struct Idx {
    Lin l;
    bool ok = true;
  };
  Idx IdxVar(int var) { return Idx{VarLin(var), true}; }
  // A variable as a form: a constant when its range is one value (tid.y of a
  // workgroup of height 1, wg.x of a grid of width 1), so that the KIR's
  // `tid.x + tid.y * 1024` and the machine's tid.x give the same dividends,
  // hence the same quotient atoms; otherwise its atom.
  Lin VarLin(int var) {
    const VarInfo& vi = p_.var(var);
    if (vi.lo == vi.hi) return LConst(vi.lo);
    VarExpr(var);
    return LAtom(var_atom_.at(var));
  }
  static Idx IdxChecked(Lin l, bool ok) {
    if (!ok || !Moderate(l)) return Idx{std::move(l), false};
    const i128 lim = Pow2(50);
    ok = Abs(l.c) <= lim;
    for (const auto& [a, c] : l.t) ok &= Abs(c) <= lim;
    return Idx{std::move(l), ok};
  }
  Idx IdxAdd(const Idx& a, const Idx& b, i128 kb) {
    return IdxChecked(LAdd(a.l, b.l, kb), a.ok && b.ok);
  }
  Idx IdxMul(const Idx& a, const Idx& b) {
    if (!a.ok || !b.ok) return Idx{Lin(), false};
    if (a.l.IsConst()) return IdxChecked(LScale(b.l, a.l.c), Abs(a.l.c) <= Pow2(50));
    if (b.l.IsConst()) return IdxChecked(LScale(a.l, b.l.c), Abs(b.l.c) <= Pow2(50));
    Iv x = IvOf(a.l), y = IvOf(b.l);
    i128 c[4] = {SatMul(x.lo, y.lo), SatMul(x.lo, y.hi), SatMul(x.hi, y.lo), SatMul(x.hi, y.hi)};
    return IdxChecked(LAtom(AddAtom(ToZ3(a.l) * ToZ3(b.l), Iv{*std::min_element(c, c + 4), *std::max_element(c, c + 4)})),
                      true);
  }
  Idx IdxDiv(const Idx& a, int64_t d) { return a.ok ? IdxChecked(DivConst(a.l, d), true) : Idx{Lin(), false}; }
  Idx IdxMod(const Idx& a, int64_t d) { return a.ok ? IdxChecked(ModConst(a.l, d), true) : Idx{Lin(), false}; }
  z3::expr IdxExpr(const Idx& a) { return ToZ3(a.l); }

  z3::expr VarExpr(int var) {
    auto it = var_atom_.find(var);
    if (it == var_atom_.end()) it = var_atom_.emplace(var, VarAtom(var)).first;
    return atoms_[it->second].e;
  }
  const std::map<int, int>& var_atoms() const { return var_atom_; }
  const std::vector<Side>& sides() const { return sides_; }
  const std::vector<std::string>& notes() const { return notes_; }
  // The ranges of the variables, and the definitions `acc` relies on.
  z3::expr_vector Assumptions(const TL& acc) {
    z3::expr_vector v(ctx_);
    for (const auto& [var, atom] : var_atom_) {
      const VarInfo& vi = p_.var(var);
      v.push_back(atoms_[atom].e >= ctx_.int_val(static_cast<int64_t>(vi.lo)));
      v.push_back(atoms_[atom].e <= ctx_.int_val(static_cast<int64_t>(vi.hi)));
    }
    for (int d : acc.defs) v.push_back(defs_[d]);
    return v;
  }

 private:
  // floor(num / d): a quotient atom's definition, for the intervals of forms
  // that combine it with its dividend (IvOf).
  struct DivDef {
    Lin num;
    i128 d = 1;
  };
  struct AtomRec {
    z3::expr e;
    Iv iv;
    std::shared_ptr<const DivDef> div;  // set for floor(num / d) atoms
  };

  z3::expr Num(i128 v) {
    if (v >= INT64_MIN && v <= INT64_MAX) return ctx_.int_val(static_cast<int64_t>(v));
    return ctx_.int_val(I128Str(v).c_str());
  }

  int AddAtom(const z3::expr& e, Iv iv, std::shared_ptr<const DivDef> div = nullptr) {
    unsigned id = Z3_get_ast_id(ctx_, e);
    auto it = atom_by_ast_.find(id);
    if (it != atom_by_ast_.end()) {
      AtomRec& a = atoms_[it->second];
      a.iv.lo = std::max(a.iv.lo, iv.lo);
      a.iv.hi = std::min(a.iv.hi, iv.hi);
      if (!a.div) a.div = std::move(div);
      return it->second;
    }
    atoms_.push_back(AtomRec{e, iv, std::move(div)});
    atom_by_ast_[id] = static_cast<int>(atoms_.size()) - 1;
    return static_cast<int>(atoms_.size()) - 1;
  }

  int VarAtom(int var) {
    const VarInfo& vi = p_.var(var);
    std::string name = absl::StrCat("x", var, "_");
    for (char ch : vi.name) name.push_back(std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_');
    return AddAtom(ctx_.int_const(name.c_str()), Iv{vi.lo, vi.hi});
  }

  // The interval of a form: from its atoms' intervals, narrowed by
  // substituting quotient atoms q = floor(R / d) that appear with (atoms of)
  // their dividend R: with c * q in L and d * q = R - r, r in [0, d - 1],
  //   d * L = (d * (L - c * q) + c * R) - c * r,
  // where the first part often cancels (x - d * floor(x / d) is in [0, d - 1];
  // floor((x + 7 w) / 7) - w stays non-negative when x does). Exact integer
  // identities, so the interval stays sound; up to kRefineDepth substitutions.
  Iv IvOf(const Lin& l) const { return IvRefined(l, kRefineDepth); }

  static constexpr int kRefineDepth = 3;
  static bool Moderate(const Lin& l) {
    const i128 big = Pow2(70);
    if (Abs(l.c) > big) return false;
    for (const auto& [a, c] : l.t)
      if (Abs(c) > big) return false;
    return true;
  }
  // ka * a + kb * b exactly (no reduction modulo 2^32); Moderate inputs and
  // |ka|, |kb| <= 2^40 keep it far from overflow.
  static Lin LCombineExact(const Lin& a, i128 ka, const Lin& b, i128 kb) {
    Lin r;
    r.c = ka * a.c + kb * b.c;
    size_t i = 0, j = 0;
    while (i < a.t.size() || j < b.t.size()) {
      int at;
      i128 c;
      if (j >= b.t.size() || (i < a.t.size() && a.t[i].first < b.t[j].first)) {
        at = a.t[i].first, c = ka * a.t[i].second, ++i;
      } else if (i >= a.t.size() || b.t[j].first < a.t[i].first) {
        at = b.t[j].first, c = kb * b.t[j].second, ++j;
      } else {
        at = a.t[i].first, c = ka * a.t[i].second + kb * b.t[j].second, ++i, ++j;
      }
      if (c != 0) r.t.push_back({at, c});
    }
    return r;
  }
  Iv IvRefined(const Lin& l, int depth) const {
    Iv iv = IvPlain(l);
    if (depth <= 0 || iv.lo == iv.hi || !Moderate(l)) return iv;
    const i128 lim = Pow2(40);
    for (const auto& [a, c] : l.t) {
      const AtomRec& ar = atoms_[a];
      if (!ar.div) continue;
      const DivDef& dd = *ar.div;
      if (Abs(c) > lim || dd.d > lim || !Moderate(dd.num)) continue;
      // Only worthwhile when the dividend shares an atom with the rest of l
      // or with the dividend of another quotient in it ((x mod 100) div 10 is
      // floor(x / 10) - 10 * floor(x / 100)).
      bool shares = false;
      for (const auto& [b, cb] : dd.num.t)
        for (const auto& [x, cx] : l.t) {
          if (x == a) continue;
          shares |= x == b;
          if (atoms_[x].div)
            for (const auto& [y, cy] : atoms_[x].div->num.t) shares |= y == b;
        }
      if (!shares) continue;
      Lin rest;
      rest.c = l.c;
      for (const auto& tc : l.t)
        if (tc.first != a) rest.t.push_back(tc);
      Iv i2 = IvRefined(LCombineExact(rest, dd.d, dd.num, c), depth - 1);
      if (Abs(i2.lo) >= kInf / 2 || Abs(i2.hi) >= kInf / 2) continue;
      const i128 x = -c * (dd.d - 1);  // -c * r at r = d - 1 (and 0 at r = 0)
      const i128 lo2 = i2.lo + std::min<i128>(0, x), hi2 = i2.hi + std::max<i128>(0, x);
      iv.lo = std::max(iv.lo, -FDiv(-lo2, dd.d));  // ceil
      iv.hi = std::min(iv.hi, FDiv(hi2, dd.d));
    }
    if (iv.lo > iv.hi) return IvPlain(l);  // no reachable value: any interval is sound
    return iv;
  }

  Iv IvPlain(const Lin& l) const {
    Iv r{l.c, l.c};
    for (const auto& [a, c] : l.t) {
      const Iv& v = atoms_[a].iv;
      i128 x = SatMul(c, v.lo), y = SatMul(c, v.hi);
      r.lo = Clamp(r.lo + std::min(x, y));
      r.hi = Clamp(r.hi + std::max(x, y));
    }
    return r;
  }

  z3::expr ToZ3(const Lin& l) {
    z3::expr r = Num(l.c);
    bool first = l.c == 0;
    for (const auto& [a, c] : l.t) {
      z3::expr term = c == 1 ? atoms_[a].e : Num(c) * atoms_[a].e;
      r = first ? term : r + term;
      first = false;
    }
    return r;
  }

  // floor(L / d) for an exact L and d > 0: the coefficients d divides are
  // split off; the rest R (coefficients in [0, d), or failing that in
  // (-d/2, d/2]) is one atom unless R's interval sits in one quotient. The
  // atom is canonical (the same dividend gives the same atom, whichever side
  // or instruction sequence computed it), so a quotient and a remainder of
  // one dividend, the machine's magic division and the KIR floordiv share it.
  Lin DivConst(const Lin& l, i128 d) {
    // floor(g R / (g d')) == floor(R / d'): a common factor of the dividend's
    // coefficients, its constant and d cancels ((2 t) >> 4 is floor(t / 8),
    // the atom of `tid.x floordiv 8`).
    if (d > 1 && !l.t.empty()) {
      i128 g = d;
      auto gcd = [](i128 x, i128 y) {
        x = x < 0 ? -x : x;
        y = y < 0 ? -y : y;
        while (y != 0) {
          i128 r = x % y;
          x = y;
          y = r;
        }
        return x;
      };
      g = gcd(g, l.c);
      for (const auto& [atom, c] : l.t) g = gcd(g, c);
      if (g > 1) {
        Lin reduced;
        reduced.c = l.c / g;
        for (const auto& [atom, c] : l.t) reduced.t.push_back({atom, c / g});
        return DivConst(reduced, d / g);
      }
    }
    for (int sym = 0; sym < 2; ++sym) {
      Lin m, r;
      m.c = FDiv(l.c, d);
      r.c = l.c - m.c * d;
      bool changed = false;
      for (const auto& [a, c] : l.t) {
        i128 q = FDiv(c, d), rem = c - q * d;
        if (sym && rem * 2 > d) rem -= d, ++q, changed = true;
        if (q != 0) m.t.push_back({a, q});
        if (rem != 0) r.t.push_back({a, rem});
      }
      if (sym && !changed) break;
      Iv iv = IvOf(r);
      i128 lo = FDiv(iv.lo, d), hi = FDiv(iv.hi, d);
      if (lo == hi) return LAdd(m, LConst(lo));
    }
    Lin m, r;
    m.c = FDiv(l.c, d);
    r.c = l.c - m.c * d;
    for (const auto& [a, c] : l.t) {
      i128 q = FDiv(c, d), rem = c - q * d;
      if (q != 0) m.t.push_back({a, q});
      if (rem != 0) r.t.push_back({a, rem});
    }
    Iv iv = IvOf(r);
    i128 lo = FDiv(iv.lo, d), hi = FDiv(iv.hi, d);
    int q = AddAtom(ToZ3(r) / Num(d), Iv{lo, hi}, std::make_shared<const DivDef>(DivDef{r, d}));
    return LAdd(m, LAtom(q));
  }

  // L mod d (floor) for d > 0; exact L needed unless d divides 2^32. The
  // coefficients are reduced modulo d (to [0, d), or (-d/2, d/2] when that
  // sits in one window); otherwise R - d * floor(R / d), with the quotient
  // atom DivConst makes (shared with a floordiv of the same dividend).
  Lin ModConst(const Lin& l, i128 d) {
    Lin r;
    for (int sym = 0; sym < 2; ++sym) {
      r = Lin();
      r.c = l.c - FDiv(l.c, d) * d;
      bool changed = false;
      for (const auto& [a, c] : l.t) {
        i128 rem = c - FDiv(c, d) * d;
        if (sym && rem * 2 > d) rem -= d, changed = true;
        if (rem != 0) r.t.push_back({a, rem});
      }
      if (sym && !changed) break;
      Iv iv = IvOf(r);
      i128 lo = FDiv(iv.lo, d), hi = FDiv(iv.hi, d);
      if (lo == hi) return LAdd(r, LConst(-lo * d));
    }
    r = Lin();
    r.c = l.c - FDiv(l.c, d) * d;
    for (const auto& [a, c] : l.t) {
      i128 rem = c - FDiv(c, d) * d;
      if (rem != 0) r.t.push_back({a, rem});
    }
    return LAdd(r, LScale(DivConst(r, d), -d));
  }

  // The exact unsigned value of a form congruent to it.
  // Spanning a few 2^32 windows (typically a value that may be negative), a
  // case split on the window is much easier for the solver than mod 2^32.
  Lin ExactL(const Lin& l) {
    Iv iv = IvOf(l);
    if (iv.lo >= 0 && iv.hi < kTwo32) return l;
    if (Abs(iv.lo) < kInf && Abs(iv.hi) < kInf) {
      i128 jlo = FDiv(iv.lo, kTwo32), jhi = FDiv(iv.hi, kTwo32);
      if (jlo == jhi) return LAdd(l, LConst(-jlo * kTwo32));
      if (jhi - jlo <= 3) {
        z3::expr x = ToZ3(l);
        z3::expr e = x - Num(jhi * kTwo32);
        for (i128 j = jhi - 1; j >= jlo; --j) e = z3::ite(x < Num((j + 1) * kTwo32), x - Num(j * kTwo32), e);
        return LAtom(AddAtom(e, Iv{0, kTwo32 - 1}));
      }
    }
    return ModConst(l, kTwo32);
  }
  Lin SignedExactL(const Lin& l) {
    return LAdd(ExactL(LAdd(l, LConst(Pow2(31)))), LConst(-Pow2(31)));
  }

  Lin Fresh(TL& r, const std::string& why, Iv iv = Iv{0, kTwo32 - 1}) {
    z3::expr v = ctx_.int_const(absl::StrCat("oa", fresh_count_++).c_str());
    AddDef(r, v >= Num(iv.lo));
    AddDef(r, v <= Num(iv.hi));
    MergeInto(r.notes, {Note(why)});
    return LAtom(AddAtom(v, iv));
  }

  int Note(const std::string& s) {
    auto it = std::find(notes_.begin(), notes_.end(), s);
    if (it != notes_.end()) return static_cast<int>(it - notes_.begin());
    notes_.push_back(s);
    return static_cast<int>(notes_.size()) - 1;
  }

  void AddDef(TL& r, z3::expr e) {
    defs_.push_back(e);
    MergeInto(r.defs, {static_cast<int>(defs_.size()) - 1});
  }

  int AddSide(TL& r, z3::expr cond, const std::string& what) {
    sides_.push_back(Side{cond, what});
    int id = static_cast<int>(sides_.size()) - 1;
    MergeInto(r.sides, {id});
    return id;
  }

  std::string Label(TRef t) {
    auto it = labels_.find(t.id);
    return it != labels_.end() ? it->second : std::string("an intermediate value");
  }

  static bool Divisible(const Lin& l, i128 m) {
    if (l.c % m != 0) return false;
    for (const auto& [a, c] : l.t)
      if (c % m != 0) return false;
    return true;
  }
  static int BitLen(i128 v) {
    int k = 0;
    while (k < 100 && Pow2(k) <= v) ++k;
    return k;
  }

  // lshr(mul_hi(X, m), s) == X div d for X in [0, max]: the Granlund-Montgomery
  // bound, checked exactly (MagicDivisorIsExact), for d = floor(2^(32+s)/m) or +1.
  std::optional<Lin> MagicLemma(const Lin& x, uint32_t m, int s, TL& r, TRef at) {
    if (m == 0 || s < 0 || s > 31) return std::nullopt;
    Iv iv = IvOf(x);
    if (iv.lo < 0 || iv.hi >= kTwo32) return std::nullopt;
    i128 two = Pow2(32 + s);
    for (i128 d : {two / m, two / m + 1})
      if (d >= 1 && d < kTwo32 && MagicDivisorIsExact(static_cast<int64_t>(d), static_cast<int64_t>(iv.hi),
                                                         MagicDivisor{m, s}))
        return DivConst(x, d);
    // The largest dividend bound for which the pair is exact; a side condition.
    i128 best_d = -1, best_bound = -1;
    for (i128 d : {two / m, two / m + 1}) {
      if (d < 1 || d >= kTwo32) continue;
      i128 md = static_cast<i128>(m) * d;
      if (md < two) continue;
      i128 e = md - two;
      i128 bound = e == 0 ? kTwo32 - 1 : std::min<i128>(kTwo32 - 1, (two - 1) / e);
      if (MagicDivisorIsExact(static_cast<int64_t>(d), static_cast<int64_t>(bound), MagicDivisor{m, s}) &&
          bound > best_bound) {
        best_bound = bound;
        best_d = d;
      }
    }
    if (best_d < 1 || best_bound < iv.lo) return std::nullopt;
    AddSide(r, ToZ3(x) <= Num(best_bound),
            absl::StrCat(Label(at), ": the dividend of the magic division by ", I128Str(best_d), " (multiplier 0x",
                         absl::Hex(m), ", shift ", s, ") is at most ", I128Str(best_bound),
                         ", where the multiplier is exact"));
    return DivConst(x, best_d);
  }

  TL Compute(TRef t) {
    const TNode n = p_.node(t);
    TL r;
    auto child = [&](int id) -> const TL& {
      const TL& c = Get(TRef{id});
      MergeInto(r.sides, c.sides);
      MergeInto(r.notes, c.notes);
      MergeInto(r.defs, c.defs);
      return c;
    };
    auto is_const = [&](int id) { return p_.IsConst(TRef{id}); };
    auto cval = [&](int id) { return p_.ConstValue(TRef{id}); };
    switch (n.op) {
      case TOp::kConst: {
        r.l = LConst(n.c >= 0x80000000u ? static_cast<i128>(n.c) - kTwo32 : static_cast<i128>(n.c));
        return r;
      }
      case TOp::kVar:
        r.l = VarLin(static_cast<int>(n.c));
        return r;
      case TOp::kAdd:
      case TOp::kSub: {
        const TL& a = child(n.a);
        const TL& b = child(n.b);
        r.l = LAdd(a.l, b.l, n.op == TOp::kAdd ? 1 : -1);
        return r;
      }
      case TOp::kMul: {
        const TL& a = child(n.a);
        const TL& b = child(n.b);
        if (a.l.IsConst()) r.l = LScale(b.l, a.l.c);
        else if (b.l.IsConst()) r.l = LScale(a.l, b.l.c);
        else {
          Iv x = IvOf(a.l), y = IvOf(b.l);
          i128 c[4] = {SatMul(x.lo, y.lo), SatMul(x.lo, y.hi), SatMul(x.hi, y.lo), SatMul(x.hi, y.hi)};
          r.l = LAtom(AddAtom(ToZ3(a.l) * ToZ3(b.l), Iv{*std::min_element(c, c + 4), *std::max_element(c, c + 4)}));
          MergeInto(r.notes, {Note(absl::StrCat(Label(t), ": a product of two non-constant values (nonlinear)"))});
        }
        return r;
      }
      case TOp::kShl: {
        const TL& a = child(n.a);
        if (!is_const(n.b)) {
          const TL& b = child(n.b);
          r.l = VariableShift(a.l, b.l, TOp::kShl);
          return r;
        }
        r.l = LScale(a.l, Pow2(static_cast<int>(cval(n.b) & 31)));
        return r;
      }
      case TOp::kLShr:
      case TOp::kAShr: {
        if (!is_const(n.b)) {
          const TL& a = child(n.a);
          const TL& b = child(n.b);
          r.l = VariableShift(a.l, b.l, n.op);
          return r;
        }
        int k = static_cast<int>(cval(n.b) & 31);
        const TNode& an = p_.node(TRef{n.a});
        if (n.op == TOp::kLShr && an.op == TOp::kMulHiU && (is_const(an.a) || is_const(an.b))) {
          int other = is_const(an.b) ? an.a : an.b;
          uint32_t m = cval(is_const(an.b) ? an.b : an.a);
          const TL& x = child(other);
          std::optional<Lin> q = MagicLemma(ExactL(x.l), m, k, r, t);
          if (q) {
            r.l = *q;
            return r;
          }
        }
        const TL& a = child(n.a);
        Lin x = n.op == TOp::kLShr ? ExactL(a.l) : SignedExactL(a.l);
        r.l = DivConst(x, Pow2(k));
        return r;
      }
      case TOp::kMulHiU: {
        if (is_const(n.a) || is_const(n.b)) {
          int other = is_const(n.b) ? n.a : n.b;
          uint32_t m = cval(is_const(n.b) ? n.b : n.a);
          const TL& x = child(other);
          Lin xe = ExactL(x.l);
          // A magic division with no shift only when exact for X's range;
          // else the exact product's high dword (a 64-bit product's, e.g.
          // kirc's SRD starts of buffers past 4 GiB), with no side condition.
          TL probe;
          std::optional<Lin> q = MagicLemma(xe, m, 0, probe, t);
          if (q && probe.sides.empty()) {
            r.l = *q;
            return r;
          }
          r.l = DivConst(LScale(xe, m), kTwo32);
          return r;
        }
        const TL& a = child(n.a);
        const TL& b = child(n.b);
        Lin xa = ExactL(a.l), xb = ExactL(b.l);
        Iv x = IvOf(xa), y = IvOf(xb);
        Lin prod = LAtom(AddAtom(ToZ3(xa) * ToZ3(xb), Iv{SatMul(x.lo, y.lo), SatMul(x.hi, y.hi)}));
        MergeInto(r.notes, {Note(absl::StrCat(Label(t), ": a product of two non-constant values (nonlinear)"))});
        r.l = DivConst(prod, kTwo32);
        return r;
      }
      case TOp::kAnd:
      case TOp::kOr:
      case TOp::kXor:
        return Bitwise(t, n, r, child);
      case TOp::kSelect: {
        const TL& c = child(n.a);
        const TL& a = child(n.b);
        const TL& b = child(n.s);
        Iv ic = IvOf(c.l);
        if (ic.lo > 0 || ic.hi < 0) {  // provably non-zero
          r.l = a.l;
          return r;
        }
        if (ic.lo == 0 && ic.hi == 0) {
          r.l = b.l;
          return r;
        }
        z3::expr cond = (ic.lo >= 0 && ic.hi <= 1) ? ToZ3(c.l) == 1 : ToZ3(ExactL(c.l)) != 0;
        Iv ia = IvOf(a.l), ib = IvOf(b.l);
        r.l = LAtom(AddAtom(z3::ite(cond, ToZ3(a.l), ToZ3(b.l)), Iv{std::min(ia.lo, ib.lo), std::max(ia.hi, ib.hi)}));
        return r;
      }
      case TOp::kUlt: {
        // The carry out of an unsigned add (v_add_co_u32, s_add_u32, the
        // 64-bit adds of semantics.h): ((x + y) mod 2^32) < x exactly when
        // x + y >= 2^32, on the exact values. A sum of two exact forms needs
        // no window split.
        const TNode sum = p_.node(TRef{n.a});
        if (sum.op == TOp::kAdd && (sum.a == n.b || sum.b == n.b)) {
          const TL& x = child(n.b);
          const TL& y = child(sum.a == n.b ? sum.b : sum.a);
          Lin total = LAdd(ExactL(x.l), ExactL(y.l));
          Iv iv = IvOf(total);
          if (iv.hi < kTwo32) r.l = LConst(0);
          else if (iv.lo >= kTwo32) r.l = LConst(1);
          else r.l = LAtom(AddAtom(z3::ite(ToZ3(total) >= Num(kTwo32), Num(1), Num(0)), Iv{0, 1}));
          return r;
        }
        const TL& a = child(n.a);
        const TL& b = child(n.b);
        Lin xa = ExactL(a.l), xb = ExactL(b.l);
        Iv ia = IvOf(xa), ib = IvOf(xb);
        if (ia.hi < ib.lo) r.l = LConst(1);
        else if (ia.lo >= ib.hi) r.l = LConst(0);
        else r.l = LAtom(AddAtom(z3::ite(ToZ3(xa) < ToZ3(xb), Num(1), Num(0)), Iv{0, 1}));
        return r;
      }
      case TOp::kEq: {
        // (x ^ y) == 0 exactly when x == y (s_cmp_lg, v_cmp_ne): no xor to translate.
        int ea = n.a, eb = n.b;
        if (p_.IsConst(TRef{ea})) std::swap(ea, eb);
        if (p_.IsConst(TRef{eb}) && p_.ConstValue(TRef{eb}) == 0 && p_.node(TRef{ea}).op == TOp::kXor) {
          const TNode x = p_.node(TRef{ea});
          ea = x.a;
          eb = x.b;
        }
        const TL& a = child(ea);
        const TL& b = child(eb);
        Lin dm = ModConst(LAdd(a.l, b.l, -1), kTwo32);
        Iv iv = IvOf(dm);
        if (iv.lo == 0 && iv.hi == 0) r.l = LConst(1);
        else if (iv.lo > 0) r.l = LConst(0);
        else r.l = LAtom(AddAtom(z3::ite(ToZ3(dm) == 0, Num(1), Num(0)), Iv{0, 1}));
        return r;
      }
    }
    return r;
  }

  // x << s, x >> s (s the exact amount, already reduced to 0..31 by the
  // semantics): a case split over the amounts s's interval allows.
  Lin VariableShift(const Lin& x, const Lin& amount, TOp op) {
    Lin sv = ExactL(amount);
    Iv is = IvOf(sv);
    i128 lo = std::max<i128>(0, is.lo), hi = std::min<i128>(31, is.hi);
    Lin xv = op == TOp::kShl ? x : op == TOp::kLShr ? ExactL(x) : SignedExactL(x);
    auto one = [&](int k) { return op == TOp::kShl ? LScale(xv, Pow2(k)) : DivConst(xv, Pow2(k)); };
    if (lo > hi) return one(0);  // unreachable amounts; any value is sound
    Lin last = one(static_cast<int>(hi));
    z3::expr e = ToZ3(last);
    Iv iv = IvOf(last);
    z3::expr zs = ToZ3(sv);
    for (i128 k = hi - 1; k >= lo; --k) {
      Lin v = one(static_cast<int>(k));
      Iv vi = IvOf(v);
      iv.lo = std::min(iv.lo, vi.lo);
      iv.hi = std::max(iv.hi, vi.hi);
      e = z3::ite(zs == Num(k), ToZ3(v), e);
    }
    return LAtom(AddAtom(e, iv));
  }

  // The low k bits of two exact values as 0/1 variables (definitions added to
  // the assumptions: they only name the bits), combined bit by bit.
  // The low k bits of two exact values as 0/1 variables (definitions added to
  // the assumptions: they only name the bits), combined bit by bit.
  Lin BitwiseLow(TL& rr, const Lin& a, const Lin& b, int k, TOp op) {
    auto bits = [&](const Lin& x) {
      std::vector<z3::expr> v;
      z3::expr sum = Num(0);
      for (int i = 0; i < k; ++i) {
        z3::expr bi = ctx_.int_const(absl::StrCat("bit", fresh_count_++).c_str());
        AddDef(rr, bi >= 0);
        AddDef(rr, bi <= 1);
        sum = sum + bi * Num(Pow2(i));
        v.push_back(bi);
      }
      AddDef(rr, ToZ3(x) == sum);
      return v;
    };
    std::vector<z3::expr> ba = bits(a), bb = bits(b);
    z3::expr r = Num(0);
    for (int i = 0; i < k; ++i) {
      z3::expr f = op == TOp::kAnd ? (ba[i] == 1 && bb[i] == 1) : op == TOp::kOr ? (ba[i] + bb[i] >= 1)
                                                                                  : (ba[i] != bb[i]);
      r = r + z3::ite(f, Num(Pow2(i)), Num(0));
    }
    return LAtom(AddAtom(r, Iv{0, Pow2(k) - 1}));
  }

  template <class Child>
  TL Bitwise(TRef t, const TNode& n, TL& r, Child& child) {
    const TL& a = child(n.a);
    const TL& b = child(n.b);
    Lin xa = ExactL(a.l), xb = ExactL(b.l);
    Iv ia = IvOf(xa), ib = IvOf(xb);
    const char* mn = n.op == TOp::kAnd ? "and" : n.op == TOp::kOr ? "or" : "xor";
    // 0/1 values (lane bits, compare results): boolean connectives.
    if (ia.lo >= 0 && ia.hi <= 1 && ib.lo >= 0 && ib.hi <= 1) {
      z3::expr za = ToZ3(xa) == 1, zb = ToZ3(xb) == 1;
      z3::expr f = n.op == TOp::kAnd ? (za && zb) : n.op == TOp::kOr ? (za || zb) : (za != zb);
      r.l = LAtom(AddAtom(z3::ite(f, Num(1), Num(0)), Iv{0, 1}));
      return r;
    }
    const bool cb = p_.IsConst(TRef{n.b});  // constants are canonicalised to the right
    const uint32_t c = cb ? p_.ConstValue(TRef{n.b}) : 0;
    // X & c for a constant c: each run of ones [p, q) of c is
    // ((X div 2^p) mod 2^(q-p)) * 2^p of the exact value X.
    auto and_const = [&]() {
      Lin sum;
      for (int p = 0; p < 32;) {
        if (!((c >> p) & 1)) {
          ++p;
          continue;
        }
        int q = p;
        while (q < 32 && ((c >> q) & 1)) ++q;
        sum = LAdd(sum, LScale(ModConst(DivConst(xa, Pow2(p)), Pow2(q - p)), Pow2(p)));
        p = q;
      }
      return sum;
    };
    if (n.op == TOp::kAnd && cb) {
      if ((c & (c + 1)) == 0) {  // 2^k - 1: a low mask needs only the value mod 2^32
        int k = BitLen(c);
        r.l = ModConst(a.l, Pow2(k));
        return r;
      }
      r.l = and_const();
      return r;
    }
    if (n.op == TOp::kXor && cb && c == 0xffffffffu) {  // ~a == -1 - a (mod 2^32)
      r.l = LAdd(LConst(-1), a.l, -1);
      return r;
    }
    if (n.op == TOp::kXor && cb && c == 0x80000000u) {  // flipping bit 31 == adding 2^31 (mod 2^32)
      r.l = LAdd(a.l, LConst(Pow2(31)));
      return r;
    }
    if (n.op == TOp::kAnd) {
      // a & b < 2^k when either operand is: exact bit by bit for small k.
      int k = BitLen(std::min(ia.hi, ib.hi));
      if (k <= kMaxBitwiseBits) {
        r.l = BitwiseLow(r, ModConst(xa, Pow2(k)), ModConst(xb, Pow2(k)), std::max(k, 1), TOp::kAnd);
        return r;
      }
      // Only its range is known.
      r.l = Fresh(r, absl::StrCat(Label(t), ": and of two non-constant values is over-approximated"),
                  Iv{0, std::min(ia.hi, ib.hi)});
      return r;
    }
    // or / xor: a + b when the bits are disjoint (failure class 1: prove it, do not assume it).
    for (int pass = 0; pass < 2; ++pass) {
      const Lin& p = pass == 0 ? xa : xb;
      const Iv& iq = pass == 0 ? ib : ia;
      int k = BitLen(iq.hi);
      if (k <= 32 && Divisible(p, Pow2(k))) {
        r.l = LAdd(xa, xb);
        return r;
      }
    }
    if (cb && ia.lo >= 0 && ia.hi < Pow2(32)) {
      // A constant operand, exactly and without a side condition (clang's
      // `x ^ 16` flips a bit the operand may have): as integers,
      // X | c == X + c - (X & c) and X ^ c == X + c - 2 (X & c), with X & c
      // as above. The result is one atom below 2^max(bits of X, bits of c).
      Lin l = LAdd(LAdd(xa, LConst(c)), and_const(), n.op == TOp::kOr ? -1 : -2);
      r.l = LAtom(AddAtom(ToZ3(l), Iv{0, Pow2(std::max(BitLen(ia.hi), BitLen(c))) - 1}));
      return r;
    }
    // Both operands non-constant multiples of 2^z (structurally: every
    // coefficient and the constant, e.g. two masked fields (X div 16 mod 8)
    // * 16): or/xor keeps the low z bits zero, so a op b == 2^z * ((a / 2^z)
    // op (b / 2^z)) with exact quotients, and the bitwise part below has z
    // bits fewer (a 3-bit xor of 16-byte chunk indices, not a 7-bit one:
    // fresh-user review 21 F2).
    int z = 0;
    if (ia.lo >= 0 && ib.lo >= 0)
      while (z < 31 && Divisible(xa, Pow2(z + 1)) && Divisible(xb, Pow2(z + 1))) ++z;
    const i128 unit = Pow2(z);
    const Lin qa = z > 0 ? DivConst(xa, unit) : xa, qb = z > 0 ? DivConst(xb, unit) : xb;
    const Iv iqa = IvOf(qa), iqb = IvOf(qb);
    const bool small_b = iqb.hi <= iqa.hi;
    const Lin& p = small_b ? qa : qb;
    const Lin& q = small_b ? qb : qa;
    int k = BitLen(small_b ? iqb.hi : iqa.hi);
    if (k > 32) k = 32;
    // Exact: the bits above k are p's; the low k bits combine bit by bit.
    // Directly for a few bits (k <= kDirectBitwiseBits: a swizzle's xor of
    // chunk indices), where a side condition's model would only send the
    // query round again with exact_bitwise.
    if ((exact_bitwise_ || k <= kDirectBitwiseBits) && k <= kMaxBitwiseBits) {
      Lin plo = ModConst(p, Pow2(k));
      r.l = LScale(LAdd(LAdd(p, plo, -1), BitwiseLow(r, plo, q, std::max(k, 1), n.op)), unit);
      return r;
    }
    int sid = AddSide(r, z3::mod(ToZ3(p), Num(Pow2(k))) == 0,
                      absl::StrCat(Label(t), ": the operands of the ", mn, " have disjoint bits (the ",
                                   small_b ? "first" : "second", z > 0 ? absl::StrCat(" / 2^", z) : "",
                                   " is a multiple of 2^", k, "), so ", mn, " == add"));
    sides_[sid].bitwise = true;
    r.l = LAdd(xa, xb);
    return r;
  }

  static constexpr int kMaxBitwiseBits = 16;
  static constexpr int kDirectBitwiseBits = 4;
  Backstop* backstop_ = nullptr;
  z3::context& ctx_;
  TermPool& p_;
  bool exact_bitwise_ = false;
  std::unordered_map<int, std::string> labels_;
  std::vector<std::unique_ptr<TL>> cache_;
  std::vector<AtomRec> atoms_;
  std::unordered_map<unsigned, int> atom_by_ast_;
  std::map<int, int> var_atom_;
  std::vector<Side> sides_;
  std::vector<std::string> notes_;
  std::vector<z3::expr> defs_;
  int fresh_count_ = 0;
};

// KIR index expressions (obligations.h's IrValue) as canonical forms of a
// Translator: +, -, * and floor div/mod by constants.
struct IdxVal {
  Translator* tr = nullptr;
  Translator::Idx v;
};
IdxVal operator+(const IdxVal& a, const IdxVal& b) { return {a.tr, a.tr->IdxAdd(a.v, b.v, 1)}; }
IdxVal operator-(const IdxVal& a, const IdxVal& b) { return {a.tr, a.tr->IdxAdd(a.v, b.v, -1)}; }
IdxVal operator*(const IdxVal& a, const IdxVal& b) { return {a.tr, a.tr->IdxMul(a.v, b.v)}; }
struct IdxW {
  Translator* tr;
  using I = IdxVal;
  I C(int64_t v) const { return {tr, Translator::IdxChecked(LConst(v), true)}; }
  I Div(const I& a, int64_t d) const { return {tr, tr->IdxDiv(a.v, d)}; }
  I Mod(const I& a, int64_t d) const { return {tr, tr->IdxMod(a.v, d)}; }
};

// Integer domains for obligations.h.
struct Z3W {
  z3::context* ctx;
  using I = z3::expr;
  using B = z3::expr;
  I C(int64_t v) const { return ctx->int_val(v); }
  B T(bool b) const { return ctx->bool_val(b); }
  I Div(const I& a, int64_t d) const { return a / ctx->int_val(d); }
  I Mod(const I& a, int64_t d) const { return z3::mod(a, ctx->int_val(d)); }
  B Implies(const B& a, const B& b) const { return z3::implies(a, b); }
};

struct CW {
  using I = int64_t;
  using B = bool;
  I C(int64_t v) const { return v; }
  B T(bool b) const { return b; }
  I Div(I a, int64_t d) const { return FloorDiv(a, d); }
  I Mod(I a, int64_t d) const { return FloorMod(a, d); }
  B Implies(B a, B b) const { return !a || b; }
};

// Bounds of KIR index values over a box of work-item, workgroup and loop
// values (IrValue in interval arithmetic, exact in 128 bits): every
// intermediate value of IrValue's CW evaluation at a point of the box lies in
// the interval of its subexpression, so when every bound is within +-2^62
// (`ok`) that evaluation cannot overflow int64. The exhaustive proof
// (ProveByEvaluation) requires it.
struct IdxBound {
  int64_t lo = 0, hi = 0;
  bool ok = true;
};
IdxBound MakeBound(__int128 lo, __int128 hi, bool ok) {
  const __int128 cap = static_cast<__int128>(1) << 62;
  if (!ok || lo < -cap || hi > cap) return IdxBound{0, 0, false};
  return IdxBound{static_cast<int64_t>(lo), static_cast<int64_t>(hi), true};
}
IdxBound operator+(const IdxBound& a, const IdxBound& b) {
  return MakeBound(static_cast<__int128>(a.lo) + b.lo, static_cast<__int128>(a.hi) + b.hi, a.ok && b.ok);
}
IdxBound operator-(const IdxBound& a, const IdxBound& b) {
  return MakeBound(static_cast<__int128>(a.lo) - b.hi, static_cast<__int128>(a.hi) - b.lo, a.ok && b.ok);
}
IdxBound operator*(const IdxBound& a, const IdxBound& b) {
  const __int128 p[4] = {static_cast<__int128>(a.lo) * b.lo, static_cast<__int128>(a.lo) * b.hi,
                         static_cast<__int128>(a.hi) * b.lo, static_cast<__int128>(a.hi) * b.hi};
  return MakeBound(*std::min_element(p, p + 4), *std::max_element(p, p + 4), a.ok && b.ok);
}
struct BoundW {
  using I = IdxBound;
  I C(int64_t v) const { return MakeBound(v, v, true); }
  I Div(const I& a, int64_t d) const { return MakeBound(FloorDiv(a.lo, d), FloorDiv(a.hi, d), a.ok); }  // d > 0
  I Mod(const I& a, int64_t d) const { return MakeBound(0, d - 1, a.ok); }
};

// Whether KIR index expression `e` reads `kind` (kTid, kWg) of dimension `dim`.
bool IndexReads(const IndexExpr& e, IndexKind kind, int dim) {
  if (e.kind == kind && e.dim == dim) return true;
  return (e.lhs && IndexReads(*e.lhs, kind, dim)) || (e.rhs && IndexReads(*e.rhs, kind, dim));
}


bool IsMemoryInst(const MInst& mi) {
  return IsVmemOrDs(Info(mi.opc).cls);
}

// Pre-order ops (as the lowering numbers them), each with its enclosing `for` ops.
void Flatten(const std::vector<Op>& ops, std::vector<const Op*>& out, std::vector<std::vector<int>>& fors,
             std::vector<int>& stack) {
  for (const Op& op : ops) {
    out.push_back(&op);
    fors.push_back(stack);
    if (op.kind == OpKind::kFor) {
      stack.push_back(static_cast<int>(out.size()) - 1);
      Flatten(op.body, out, fors, stack);
      stack.pop_back();
    }
  }
}

// How one instruction may perform the iterations of a KIR access's loops
// (matching): per enclosing KIR `for`, outermost first, c >= 0 binds it to
// the next machine loop around the instruction, KIR iteration c + n at that
// loop's iteration n (c: first iterations peeled); c < 0 is the constant KIR
// iteration -1 - c (a peeled iteration). A piece (count >= 0) covers only
// machine iterations first + unroll * n, n in [0, count), of the innermost
// machine loop: bound to the innermost KIR loop (a loop unrolled relative to
// the KIR), or, with count 1, bound to none (a peeled KIR iteration the
// machine loop runs).
struct LoopChoice {
  std::vector<int64_t> kir;
  // Per KIR loop (empty: all 1): a bound loop's stride s, KIR iteration
  // c + s * n at machine iteration n (a machine loop unrolled by s relative
  // to the KIR: its copy c of the body).
  std::vector<int64_t> stride;
  int64_t first = 0, unroll = 1, count = -1;
  bool Piece() const { return count >= 0; }
  int64_t Stride(size_t i) const { return i < stride.size() ? stride[i] : 1; }
  bool Exact() const {
    return !Piece() && std::all_of(kir.begin(), kir.end(), [](int64_t c) { return c == 0; }) &&
           std::all_of(stride.begin(), stride.end(), [](int64_t x) { return x == 1; });
  }
};

// KIR iterations from, from + stride, ... below `to` (one loop of a Covered box).
struct IterRange {
  int64_t from = 0, to = 0, stride = 1;
  int64_t Count() const { return to <= from ? 0 : (to - from - 1) / stride + 1; }
  bool Has(int64_t j) const { return j >= from && j < to && (j - from) % stride == 0; }
};
// Every iteration of `in` is one of `out`'s.
bool RangeWithin(const IterRange& in, const IterRange& out) {
  if (in.Count() == 0) return true;
  const int64_t last = in.from + in.stride * (in.Count() - 1);
  return out.Has(in.from) && out.Has(last) && (in.Count() == 1 || in.stride % out.stride == 0);
}
// Some iteration is in both.
bool RangesMeet(const IterRange& a, const IterRange& b) {
  const IterRange& small = a.Count() <= b.Count() ? a : b;
  const IterRange& other = a.Count() <= b.Count() ? b : a;
  if (small.Count() > (int64_t{1} << 16)) return small.from < other.to && other.from < small.to;  // conservative
  for (int64_t j = small.from; j < small.to; j += small.stride)
    if (other.Has(j)) return true;
  return false;
}

struct LoopBinding {
  std::string name;  // the KIR induction variable ("": a machine loop no KIR loop is bound to)
  int64_t lo = 0, step = 1;
  int it_var = -1;   // the machine loop's iteration variable
  int label_index = -1;
  // The machine iterations the binding covers: it = first + unroll * n for n
  // in [0, count) (count < 0: up to the loop's last), where the KIR variable
  // is lo + step * n. Piecewise matching binds a loop unrolled relative to
  // the KIR (unroll > 1: iterations first, first + unroll, ...) or one
  // iteration (count 1); otherwise first 0, unroll 1, every iteration.
  int64_t first = 0, unroll = 1, count = -1;
  bool Whole() const { return first == 0 && unroll == 1 && count < 0; }
};

// The number of iterations n of `b` (b.it_var >= 0); `hi` is the machine
// loop's last iteration.
int64_t BindingCount(const LoopBinding& b, int64_t hi) {
  const int64_t all = hi < b.first ? 0 : (hi - b.first) / b.unroll + 1;
  return b.count < 0 ? all : std::min(b.count, all);
}
// The n of machine iteration `it`, or -1 when `b` does not cover it.
int64_t BindingN(const LoopBinding& b, int64_t it, int64_t hi) {
  if (it < b.first || (it - b.first) % b.unroll != 0) return -1;
  const int64_t n = (it - b.first) / b.unroll;
  return n < BindingCount(b, hi) ? n : -1;
}

std::string Hex(uint64_t v) { return absl::StrCat("0x", absl::Hex(v)); }

// The next combination of one choice per position (odo[i] indexes
// choices[i]), the first position fastest; false after the last.
template <class V>
bool Advance(std::vector<size_t>& odo, const std::vector<V>& choices) {
  for (size_t i = 0; i < odo.size(); ++i) {
    if (++odo[i] < choices[i].size()) return true;
    odo[i] = 0;
  }
  return false;
}

// A global_* base address (two unsigned dwords) in int64_t for the concrete
// obligations (CW): exact below 2^62, else capped at 2^62, which no buffer
// address (pointer < 2^48 plus an in-buffer byte offset) reaches, so an
// address obligation still fails exactly when it does for the exact value.
constexpr int64_t kGlobalBaseCap = int64_t{1} << 62;
int64_t GlobalBase64(uint32_t lo, uint32_t hi) {
  return hi >= (uint32_t{1} << 30) ? kGlobalBaseCap : (static_cast<int64_t>(hi) << 32) + lo;
}

// Everything about one access the checks need, symbolic or concrete.
struct AccessCtx {
  const AccessRecord* rec = nullptr;
  int index = -1;  // instruction index
  const MInst* mi = nullptr;
  const Op* op = nullptr;
  AccessShape shape;
  // Root terms.
  TRef exec, w[4], soffset, voffset, vaddr;
  TRef lds_addr;  // LDS: DsAddress(vaddr, mi, component), (vaddr + offset) mod 2^32; an LDS
                  // DMA's LDS side: LdsDmaAddress(M0, mi, lane), with M0 in vaddr
  TRef lane;      // an LDS DMA's LDS side: the lane, (linear work-item id) mod 64
  // global_*: the 64-bit base's halves (saddr, or the vaddr pair) and, with
  // saddr, the 32-bit vaddr (zero-extended).
  TRef glo, ghi, gvoffset;
  bool saddr = false;
  int arg_lo = -1, arg_hi = -1;  // buffers and global: the argument's pointer variables
  std::vector<int> chain;        // instruction indices computing the address, ascending
  std::vector<LoopBinding> loops;  // enclosing loops, outermost first
  std::vector<TRef> Roots() const {
    std::vector<TRef> r = {exec};
    if (shape.global) {
      r.push_back(glo);
      r.push_back(ghi);
      if (saddr) r.push_back(gvoffset);
    } else if (!shape.lds) {
      for (TRef t : w) r.push_back(t);
      r.push_back(soffset);
      if (shape.offen) r.push_back(voffset);
    } else {
      r.push_back(vaddr);
      r.push_back(lds_addr);
      if (lane.valid()) r.push_back(lane);
    }
    return r;
  }
};

// The largest AccessRecord::iter_offsets entry (0 without).
int64_t MaxIterOffset(const AccessRecord& rec) {
  int64_t m = 0;
  for (int o : rec.iter_offsets) m = std::max<int64_t>(m, o);
  return m;
}

// A KIR loop's trip count (kir::ForTripCount), -1 for a loop that does not
// run or whose count does not fit in 63 bits.
int64_t KirTrips(const Op& f) {
  const int64_t n = ForTripCount(f);
  return n == 0 || n == INT64_MAX ? -1 : n;
}

class Verifier {
 public:
  Verifier(const Kernel& k, const TargetInfo& t, const LoweredKernel& lk, const VerifyOptions& o)
      : k_(k), t_(t), lk_(lk), opts_(o), ex_(pool_, k, t, lk.abi) {
    for (const auto& [name, off] : lk.abi.lds_offsets) lds_base_[name] = off;
  }

  absl::StatusOr<VerifyResult> Run() {
    VerifyResult res;
    res.kernel = k_.name;
    res.target = t_.name;
    auto t0 = std::chrono::steady_clock::now();
    std::vector<int> stack;
    Flatten(k_.body, ops_, fors_, stack);
    for (size_t i = 0; i < lk_.mir.insts.size(); ++i)
      if (lk_.mir.insts[i].id >= 0) index_of_id_[lk_.mir.insts[i].id] = static_cast<int>(i);
    tr_ = std::make_unique<Translator>(ctx_, pool_);
    tr_->SetBackstop(&backstop_);
    ex_.SetUnmodelled(lk_.unmodelled);
    ex_.SetModifiers(lk_.modifiers);
    ex_.SetEqualityProver([this](TRef a, TRef b) { return tr_->ProveEqual(a, b, SolverBudget{opts_.resource_limit > 0 ? std::max<uint64_t>(1, opts_.resource_limit / 4) : 0, opts_.timeout_seconds, watchdog_.get()}); });
    // Trip counts: a translator of its own per query, made while `it` spans
    // [0, 2^32) (the main one must see it narrowed to the trip count).
    ex_.SetZeroFinder([this](TRef t, int var, int64_t a, int64_t b) {
      Translator tr(ctx_, pool_);
      tr.SetBackstop(&backstop_);
      return tr.FindZero(t, var, a, b, SolverBudget{opts_.resource_limit > 0 ? std::max<uint64_t>(1, opts_.resource_limit / 4) : 0, opts_.timeout_seconds, watchdog_.get()});
    });
    absl::Status st = ex_.Run(lk_.mir);
    if (backstop_.fired()) return BackstopError();
    std::set<int> mapped;
    if (st.ok()) {
      std::unordered_map<int, std::string> labels;
      for (size_t i = 0; i < ex_.trace().size(); ++i)
        for (const auto& [name, term] : ex_.trace()[i].writes)
          labels.emplace(term.id, absl::StrCat(InstName(static_cast<int>(i)), " ", Info(lk_.mir.insts[i].opc).mnemonic));
      labels_ = labels;
      tr_->SetLabels(std::move(labels));
    }
    if (st.ok())
      for (const auto& [label, ml] : ex_.loops()) {
        std::string l = absl::StrCat("loop at ", InstName(label), ml.kir_op >= 0 && ml.kir_op < static_cast<int>(lk_.kir_op_text.size())
                                                                     ? absl::StrCat(" (op ", ml.kir_op, ": ", lk_.kir_op_text[ml.kir_op], ")")
                                                                     : std::string(),
                                     ": ", ml.trips < 0 ? std::string("never exits (no exit in 2^32") : absl::StrCat(ml.trips),
                                     " iterations", ml.trips < 0 ? ")" : "");
        if (!ml.induction.empty()) absl::StrAppend(&l, "; by induction: ", absl::StrJoin(ml.induction, ", "));
        if (!ml.havocked.empty())
          absl::StrAppend(&l, "; no invariant for ", absl::StrJoin(ml.havocked, ", "),
                          " (any value in each iteration)");
        res.loops.push_back(l);
      }
    if (opts_.match_accesses) {
      MatchAndVerify(st, res);
      if (backstop_.fired()) return BackstopError();
      if (res.stopped_early) return Stopped(res, t0);
    } else {
    for (const AccessRecord& rec : lk_.access_map) {
      auto a0 = std::chrono::steady_clock::now();
      AccessVerdict v = st.ok() ? VerifyOne(rec) : Skeleton(rec);
      if (backstop_.fired()) return BackstopError();
      if (!st.ok()) {
        v.status = AccessVerdict::Status::kUnknown;
        v.reason = std::string(st.message());
        // Symbolic execution stopped (e.g. a loop whose exit it cannot
        // decide): running the code may still show the instruction repeating
        // an access.
        auto idx = index_of_id_.find(rec.inst_id);
        if (opts_.search_counterexamples && idx != index_of_id_.end() && rec.kir_op >= 0 &&
            rec.kir_op < static_cast<int>(fors_.size())) {
          if (std::optional<std::string> ce = ExtraExecutions(idx->second, rec.kir_op, std::string(st.message()))) {
            v.status = AccessVerdict::Status::kFailed;
            v.reason = absl::StrCat("runs more often than its KIR op (it repeats an access the KIR makes once); ",
                                    "symbolically: ", st.message());
            v.counterexample = *ce;
          } else if (std::optional<std::string> bad = NonRawSrd(idx->second, std::string(st.message()))) {
            v.status = AccessVerdict::Status::kFailed;
            v.reason = absl::StrCat("running the code, its SRD is no raw buffer (stride, swizzle or add_tid bits "
                                    "set); symbolically: ", st.message());
            v.counterexample = *bad;
          } else if (std::optional<std::string> gap = UntouchedElement(rec.kir_op, std::string(st.message()))) {
            // Or fewer: an element of its KIR op that no instruction touches
            // in waves that ran to the end (e.g. a loop that stops early).
            v.status = AccessVerdict::Status::kFailed;
            v.reason = absl::StrCat("its KIR op makes an access no instruction of the code makes, running the code; ",
                                    "symbolically: ", st.message());
            v.counterexample = *gap;
          }
        }
      }
      v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count();
      auto it = index_of_id_.find(rec.inst_id);
      if (it != index_of_id_.end()) mapped.insert(it->second);
      const bool failed = v.status == AccessVerdict::Status::kFailed;
      res.accesses.push_back(NameSide(std::move(v)));
      if (failed && opts_.stop_at_first_failure) return Stopped(res, t0);
    }
    // An LDS DMA writes LDS besides its buffer read: both need a record.
    for (size_t i = 0; i < lk_.mir.insts.size(); ++i) {
      const MInst& mi = lk_.mir.insts[i];
      if (!mapped.count(static_cast<int>(i)) || !(Info(mi.opc).flags & kLdsDma)) continue;
      for (bool lds : {false, true}) {
        bool has = false;
        for (const AccessRecord& rec : lk_.access_map) has |= rec.inst_id == mi.id && rec.is_lds == lds;
        if (has) continue;
        AccessVerdict v;
        v.inst_id = mi.id;
        v.side = lds ? "LDS" : "global";
        v.inst_text = InstructionText(t_, mi);
        v.op_text = "(no access-map record)";
        v.status = AccessVerdict::Status::kFailed;
        v.reason = absl::StrCat("the LDS DMA's ", lds ? "LDS write" : "buffer read",
                                " has no access-map record: no KIR access says where it may go");
        res.accesses.push_back(std::move(v));
      }
    }
    // Memory instructions the access map does not name are unverified
    // accesses, as is an address of a DS read2/write2 without its record.
    for (size_t i = 0; i < lk_.mir.insts.size(); ++i) {
      const MInst& mi = lk_.mir.insts[i];
      if (!mapped.count(static_cast<int>(i)) || MemoryShape(mi.opc).addrs != 2) continue;
      for (int c = 0; c < 2; ++c) {
        bool has = false;
        for (const AccessRecord& rec : lk_.access_map) has |= rec.inst_id == mi.id && rec.component == c;
        if (has) continue;
        AccessVerdict v;
        v.inst_id = mi.id;
        v.component = c;
        v.inst_text = InstructionText(t_, mi);
        v.op_text = "(no access-map record)";
        v.status = AccessVerdict::Status::kFailed;
        v.reason = absl::StrCat("address ", c, " of the DS read2/write2 has no access-map record: no KIR access says "
                                "where it may go");
        res.accesses.push_back(std::move(v));
      }
    }
    for (size_t i = 0; i < lk_.mir.insts.size(); ++i) {
      const MInst& mi = lk_.mir.insts[i];
      if (!IsMemoryInst(mi) || mapped.count(static_cast<int>(i))) continue;
      AccessVerdict v;
      v.inst_id = mi.id;
      v.inst_text = InstructionText(t_, mi);
      v.op_text = "(no access-map record)";
      v.status = AccessVerdict::Status::kFailed;
      v.reason = "a memory instruction the access map does not name: no KIR access says where it may go";
      res.accesses.push_back(std::move(v));
    }
    AddScalarDataLoads(res);
    }
    if (st.ok()) {
      VerifyPrivate(res);
      if (backstop_.fired()) return BackstopError();
    } else {
      for (int i : ex_.private_accesses()) {
        AccessVerdict v;
        v.inst_id = lk_.mir.insts[i].id;
        v.inst_text = InstructionText(t_, lk_.mir.insts[i]);
        v.op_text = "(private segment)";
        res.accesses.push_back(Unknown(v, std::string(st.message())));
      }
    }
    res.all_proved = std::all_of(res.accesses.begin(), res.accesses.end(), [](const AccessVerdict& a) {
      return a.status == AccessVerdict::Status::kProved;
    });
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  }

 private:
  // VerifyOptions::stop_at_first_failure: the result so far, ending in a
  // failed verdict.
  template <class Clock>
  VerifyResult Stopped(VerifyResult& res, Clock t0) const {
    res.stopped_early = true;
    res.all_proved = false;
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::move(res);
  }

  std::string InstName(int index) const {
    int id = lk_.mir.insts[index].id;
    return id >= 0 ? absl::StrCat("[", id, "]") : absl::StrCat("[@", index, "]");
  }

  // No verdict depends on wall time: a query the backstop stopped is an error.
  absl::Status BackstopError() const {
    return absl::DeadlineExceededError(absl::StrCat(
        "kernel ", k_.name, " on ", t_.name, ": the solver's query for ", backstop_.what,
        " was stopped by the wall-clock backstop (", absl::StrFormat("%g", backstop_.seconds),
        " s) before its resource budget ran out (", backstop_.used, " of ", backstop_.limit,
        " Z3 resource units used), so there is no verdict; rerun on a less loaded machine "
        "(or raise the backstop: VerifyOptions::timeout_seconds, KIRC_VERIFY_BACKSTOP_SECONDS for kirc)"));
  }

  // A memory instruction that implements KIR accesses: not a private
  // (scratch) access, which VerifyPrivate checks against the private segment.
  bool IsMemoryInst(const MInst& mi) const {
    if (!::kir::IsMemoryInst(mi)) return false;
    const int index = static_cast<int>(&mi - lk_.mir.insts.data());
    return index < 0 || index >= static_cast<int>(lk_.mir.insts.size()) || !ex_.private_accesses().count(index);
  }

  // Each private access (scratch_*, buffer_* through the private segment
  // buffer, a flat_* address in the private aperture) proved inside the
  // lane's private segment: 0 <= offset and offset + bytes <=
  // private_segment_fixed_size, for every lane whose EXEC bit is on (offset:
  // ScratchOffset of semantics.h, or voffset + offset for buffer_*, the
  // emulator's rules). A buffer_* must also address this wave's scratch: its
  // SRD base + soffset == the private segment buffer's base + the scratch
  // wave offset. One verdict per instruction, "(private segment)"; failed only
  // with a counterexample confirmed by evaluating the terms, and unknown when
  // the model rests on an abstraction (e.g. an offset computed from a value
  // loaded from scratch).
  void VerifyPrivate(VerifyResult& res) {
    const int64_t size = lk_.abi.private_bytes;
    for (int i : ex_.private_accesses()) {
      const MInst& mi = lk_.mir.insts[i];
      const MemShape ms = MemoryShape(mi.opc);
      AccessVerdict v;
      v.inst_id = mi.id;
      v.inst_text = InstructionText(t_, mi);
      v.op_text = absl::StrCat("(private segment: ", size, " bytes per work-item)");
      auto a0 = std::chrono::steady_clock::now();
      auto finish = [&](AccessVerdict x) {
        x.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count();
        res.accesses.push_back(std::move(x));
      };
      auto mit = ex_.mem().find(i);
      if (mit == ex_.mem().end()) {
        finish(Fail(v, "the instruction is never executed (it follows s_endpgm)"));
        continue;
      }
      const MemExec& me = mit->second;
      std::vector<int> starts;
      if (me.exec_def >= 0) starts.push_back(me.exec_def);
      auto use = [&](OpName name, int dword) -> TRef {
        const int opnd = NamedOperandIdx(mi.opc, name);
        if (opnd < 0 || opnd >= static_cast<int>(me.ops.size()) || dword >= static_cast<int>(me.ops[opnd].size()))
          return TRef{};
        const Slot& sl = me.ops[opnd][dword];
        if (sl.def >= 0) starts.push_back(sl.def);
        return ValueTerm(sl, "a private-segment offset");
      };
      TermDomain d{&pool_};
      TRef off;
      std::string base_problem;
      if (Info(mi.opc).flags & kScratchAddr) {
        const MOperand& va = OperandOr0(mi, OpName::kVaddr);
        const MOperand& sa = OperandOr0(mi, OpName::kSaddr);
        TRef vt = va.IsReg() ? use(OpName::kVaddr, 0) : d.Const(0);
        TRef st = sa.IsReg() ? use(OpName::kSaddr, 0) : d.Const(0);
        if (!vt.valid() || !st.valid()) {
          finish(Fail(v, "malformed scratch_* operands"));
          continue;
        }
        if (!IsLegalGlobalOffset(mi.offset)) {
          finish(Fail(v, absl::StrCat("offset:", mi.offset, " does not fit the 13-bit signed scratch_* offset field")));
          continue;
        }
        off = ScratchOffset(d, vt, st, mi.offset);
      } else {
        // buffer_* through the private segment buffer: voffset (offen) + offset.
        TRef w0 = use(OpName::kSrsrc, 0), w1 = use(OpName::kSrsrc, 1), so = use(OpName::kSoffset, 0);
        TRef vo = mi.offen ? use(OpName::kVaddr, 0) : d.Const(0);
        if (!w0.valid() || !w1.valid() || !so.valid() || !vo.valid()) {
          finish(Fail(v, "malformed buffer operands"));
          continue;
        }
        if (!IsLegalMubufOffset(mi.offset)) {
          finish(Fail(v, absl::StrCat("offset:", mi.offset, " does not fit the 12-bit MUBUF offset field")));
          continue;
        }
        off = d.Add(vo, d.Const(static_cast<uint32_t>(mi.offset)));
        // SRD base + soffset == private segment buffer base + scratch wave
        // offset, as 48-bit sums: low dwords equal and high halves (16 bits)
        // plus carries equal.
        const KernelVars& sv = ex_.vars();
        if (sv.scratch_wave_offset < 0) {
          base_problem = "the kernel enables no scratch wave offset SGPR, so the SRD cannot address this wave's scratch";
        } else {
          TRef p0 = pool_.Var(sv.psb[0]), p1 = pool_.Var(sv.psb[1]), swo = pool_.Var(sv.scratch_wave_offset);
          TRef lo_code = d.Add(w0, so), lo_want = d.Add(p0, swo);
          // (48-bit virtual addresses: the high halves compared modulo 2^16.)
          TRef hi_code = d.And(d.Add(d.And(w1, d.Const(0xffff)), d.Ult(lo_code, w0)), d.Const(0xffff));
          TRef hi_want = d.And(d.Add(d.And(p1, d.Const(0xffff)), d.Ult(lo_want, p0)), d.Const(0xffff));
          const SolverBudget b{opts_.resource_limit, opts_.timeout_seconds, watchdog_.get()};
          if (!tr_->ProveEqual(lo_code, lo_want, b) || !tr_->ProveEqual(hi_code, hi_want, b))
            base_problem = "its SRD base + soffset is not proved to be the private segment buffer's base + the scratch "
                           "wave offset (this wave's scratch)";
        }
      }
      if (backstop_.fired()) return;
      // The chain of instructions computing the offset (for counterexamples).
      std::set<int> seen;
      std::vector<int> stack = starts;
      while (!stack.empty()) {
        int j = stack.back();
        stack.pop_back();
        if (j < 0 || !seen.insert(j).second) continue;
        for (int dd : ex_.trace()[j].src_defs) stack.push_back(dd);
      }
      const int64_t n = int64_t{ms.comps} * ms.bytes;
      std::vector<int> vars = pool_.VarsOf(off);
      for (int x : pool_.VarsOf(me.exec)) vars.push_back(x);
      std::vector<std::pair<int, int64_t>> model;
      std::string why;
      uint64_t used = 0;
      const SolverBudget b{opts_.resource_limit, opts_.timeout_seconds, watchdog_.get()};
      z3::check_result c = size - n < 0 ? z3::sat : tr_->ProveRange(off, me.exec, 0, size - n, b, vars, &model, &why, &used);
      if (backstop_.fired()) return;
      v.solver_resources = used;
      if (c == z3::unsat && base_problem.empty()) {
        v.status = AccessVerdict::Status::kProved;
        finish(v);
        continue;
      }
      if (c == z3::unsat) {
        finish(Unknown(v, base_problem));
        continue;
      }
      if (c == z3::unknown) {
        finish(Unknown(v, why));
        continue;
      }
      // A candidate: confirm it by evaluating the terms, unless it rests on an abstraction.
      std::vector<uint32_t> vals(pool_.num_vars(), 0);
      bool abstract = false;
      std::vector<std::string> rests;
      for (const auto& [var, x] : model) {
        vals[var] = static_cast<uint32_t>(x);
        const VarInfo& vi = pool_.var(var);
        if (vi.kind == VarKind::kAbstract || vi.kind == VarKind::kUnmodelled) {
          abstract = true;
          rests.push_back(vi.name);
        }
      }
      const uint32_t on = pool_.Eval(me.exec, vals), o = pool_.Eval(off, vals);
      const bool bad = on != 0 && (int64_t{o} + n > size);
      if (!bad || abstract) {
        finish(Unknown(v, absl::StrCat("not proved inside the ", size, "-byte private segment; the solver's model ",
                                       abstract ? absl::StrCat("rests on ", absl::StrJoin(rests, ", "))
                                                : "is not confirmed by evaluation",
                                       why.empty() ? "" : absl::StrCat(" (", why, ")"))));
        continue;
      }
      std::string tid = "(", wg = "(";
      for (int dd = 0; dd < 3; ++dd) {
        absl::StrAppend(&tid, dd ? ", " : "", vals[ex_.vars().tid[dd]]);
        absl::StrAppend(&wg, dd ? ", " : "", vals[ex_.vars().wg[dd]]);
      }
      std::string cex = absl::StrCat("  tid = ", tid, "), wg = ", wg, ")\n  private offset ", o, ": bytes [", o, ", ",
                                     int64_t{o} + n, ") of the lane's ", size, "-byte private segment\n");
      for (int j : seen)
        absl::StrAppend(&cex, "    ", InstName(j), " ", InstructionText(t_, lk_.mir.insts[j]), "\n");
      v.counterexample = cex;
      finish(Fail(v, absl::StrCat("offset ", o, " + ", n, " bytes <= private_segment_fixed_size (", size,
                                  ") fails: the access leaves the lane's private segment")));
    }
  }

  // Why a flat_* instruction is still flat here: PlaceFlatAccesses (before
  // the verifier runs) rewrote every flat access it could place.
  static std::string UnplacedFlat(const MInst& mi) {
    return absl::StrCat("a flat_* access the verifier cannot place in the global, LDS or private segment: ",
                        mi.comment.empty() ? std::string("no reason recorded") : mi.comment);
  }

  // "[N] buffer_load_dword ... (op K: ...)": an access as reports name it.
  static std::string AccessName(const AccessVerdict& v) {
    std::string id = v.component >= 0 ? absl::StrCat("[", v.inst_id, ".", v.component, "]")
                                      : absl::StrCat("[", v.inst_id, "]");
    return absl::StrCat("access ", id, " ", v.inst_text, v.kir_op >= 0 ? absl::StrCat(" (op ", v.kir_op, ": ", v.op_text, ")") : "");
  }

  AccessVerdict Skeleton(const AccessRecord& rec) {
    AccessVerdict v;
    v.inst_id = rec.inst_id;
    v.component = rec.component;
    v.kir_op = rec.kir_op;
    if (rec.kir_op >= 0 && rec.kir_op < static_cast<int>(lk_.kir_op_text.size())) v.op_text = lk_.kir_op_text[rec.kir_op];
    if (MaxIterOffset(rec) > 0 && rec.kir_op >= 0 && !fors_[rec.kir_op].empty())
      absl::StrAppend(&v.op_text, " (", MaxIterOffset(rec) + 1, " consecutive iterations of %",
                      ops_[fors_[rec.kir_op].back()]->ivar, " in one instruction)");
    auto it = index_of_id_.find(rec.inst_id);
    if (it != index_of_id_.end()) {
      v.inst_text = InstructionText(t_, lk_.mir.insts[it->second]);
      if (Info(lk_.mir.insts[it->second].opc).flags & kLdsDma) v.side = rec.is_lds ? "LDS" : "global";
    }
    return v;
  }

  // An LDS DMA's verdict names its side in the reason too.
  static AccessVerdict NameSide(AccessVerdict v) {
    if (!v.side.empty() && v.status != AccessVerdict::Status::kProved)
      v.reason = absl::StrCat("the LDS DMA's ", v.side, " side (", v.side == "LDS" ? "its LDS write at M0 + offset + 16 * lane"
                                                                                   : "its global-memory read", "): ", v.reason);
    return v;
  }

  // This lane's position in its wave: (linear work-item id) mod 64, the
  // linear id x + X * (y + Y * z) (waves are runs of 64 of them, kernel.h).
  TRef LaneTerm() {
    TermDomain d{&pool_};
    const KernelVars& kv = ex_.vars();
    const uint32_t x = static_cast<uint32_t>(std::max<int64_t>(k_.workgroup[0], 1));
    const uint32_t xy = x * static_cast<uint32_t>(std::max<int64_t>(k_.workgroup[1], 1));
    TRef lin = d.Add(d.Add(pool_.Var(kv.tid[0]), d.Mul(pool_.Var(kv.tid[1]), d.Const(x))),
                     d.Mul(pool_.Var(kv.tid[2]), d.Const(xy)));
    return d.And(lin, d.Const(63));
  }

  static AccessVerdict Fail(AccessVerdict v, std::string why) {
    v.status = AccessVerdict::Status::kFailed;
    v.reason = std::move(why);
    return v;
  }
  static AccessVerdict Unknown(AccessVerdict v, std::string why) {
    v.status = AccessVerdict::Status::kUnknown;
    v.reason = std::move(why);
    return v;
  }

  TRef ValueTerm(const Slot& s, const std::string& what) {
    if (s.kind == Slot::kValue) return s.t;
    VarInfo vi;
    vi.name = absl::StrCat("lane mask used as ", what);
    vi.kind = VarKind::kUnmodelled;
    vi.deps = kDepUnmodelled;
    return pool_.Var(pool_.NewVar(vi));
  }

  // Static checks and the root terms; a verdict when they already decide.
  std::optional<AccessVerdict> Prepare(const AccessRecord& rec, AccessCtx& a, AccessVerdict& v) {
    auto it = index_of_id_.find(rec.inst_id);
    if (it == index_of_id_.end())
      return Fail(v, absl::StrCat("the access map names instruction [", rec.inst_id, "], which is not in the code"));
    a.index = it->second;
    a.mi = &lk_.mir.insts[a.index];
    const MInst& mi = *a.mi;
    MemShape ms = MemoryShape(mi.opc);
    if (!IsMemoryInst(mi)) return Fail(v, "the access map names an instruction that is not a memory access");
    if (ms.comps == 0) return Unknown(v, absl::StrCat(Info(mi.opc).mnemonic, " is not modelled by the verifier"));
    if (Info(mi.opc).flags & kFlatAddr) return Unknown(v, UnplacedFlat(mi));
    // A DS read2/write2 implements one access per address (component).
    if (ms.addrs == 2 && (rec.component < 0 || rec.component > 1))
      return Fail(v, absl::StrCat(Info(mi.opc).mnemonic, " accesses two addresses; the access-map record must name "
                                  "which (component 0 or 1), not ", rec.component));
    if (ms.addrs == 1 && rec.component >= 0)
      return Fail(v, absl::StrCat("the access-map record names component ", rec.component, " of ",
                                  Info(mi.opc).mnemonic, ", which accesses one address"));
    const int comp = std::max(rec.component, 0);
    const bool global = Info(mi.opc).flags & kGlobalAddr;
    // An LDS DMA (buffer_load_dwordx4 ... lds, global_load_lds_dwordx4)
    // performs a KIR lds_dma: two records, its buffer or global read (a load)
    // and its LDS write (is_lds, is_store).
    const bool dma = Info(mi.opc).flags & kLdsDma;
    const bool dma_lds = dma && rec.is_lds;
    if (ms.lds != rec.is_lds && !dma_lds)
      return Fail(v, absl::StrCat("the access is to ", rec.is_lds ? "LDS" : "a global buffer", " but the instruction is a ",
                                  ms.lds ? "DS" : global ? "global" : "buffer", " instruction"));
    if ((ms.store || dma_lds) != rec.is_store)
      return Fail(v, dma_lds ? std::string("the LDS side of an LDS DMA writes LDS, but the record is a load")
                             : absl::StrCat("the KIR op is a ", rec.is_store ? "store" : "load", " but the instruction ",
                                            ms.store ? "stores" : "loads"));
    if (rec.kir_op < 0 || rec.kir_op >= static_cast<int>(ops_.size()))
      return Fail(v, absl::StrCat("the access map names KIR op ", rec.kir_op, ", which the kernel lacks"));
    a.op = ops_[rec.kir_op];
    const Op& op = *a.op;
    const bool op_dma = op.kind == OpKind::kLdsDma;
    if (op_dma != dma)
      return Fail(v, op_dma ? absl::StrCat("KIR op ", rec.kir_op, " is an lds_dma, which only an LDS DMA "
                                           "(buffer_load_dwordx4 ... lds, global_load_lds_dwordx4) performs: this instruction does "
                                           "not write LDS")
                            : absl::StrCat("an LDS DMA writes LDS, not registers: it performs a KIR lds_dma, and op ",
                                           rec.kir_op, " is not one"));
    if ((op.kind != OpKind::kLoad && op.kind != OpKind::kStore && !op_dma) || (dma_lds ? op.lds : op.mem) != rec.mem)
      return Fail(v, absl::StrCat("KIR op ", rec.kir_op, " is not a load or store ", dma_lds ? "(LDS side) " : "",
                                  "of '", rec.mem, "'"));
    // ds_read_b64_tr_b16 exchanges the lanes' blocks (DsReadTrB16Source):
    // it implements a KIR load_tr and nothing else, and a load_tr needs it
    // (a plain ds_read_b64 would hand each lane its own block).
    if ((mi.opc == Opc::kDsReadB64TrB16) != (op.kind == OpKind::kLoad && op.tr))
      return Fail(v, mi.opc == Opc::kDsReadB64TrB16
                         ? "ds_read_b64_tr_b16 exchanges data between lanes but implements a KIR op that is not a "
                           "load_tr"
                         : absl::StrCat("the KIR op is a load_tr (a transposing read) but ", Info(mi.opc).mnemonic,
                                        " is not ds_read_b64_tr_b16"));
    AccessShape& s = a.shape;
    s.lds = ms.lds || dma_lds;
    s.lds_dma = dma_lds;
    s.lds_bytes = lk_.abi.lds_bytes;
    s.global = global && !dma_lds;  // global_load_lds_dwordx4's LDS side is M0's, not a global address
    s.guarded = op.guarded;
    s.comps = ms.comps / ms.addrs;  // at this record's address
    s.comp_bytes = ms.bytes;
    s.elem_bytes = rec.element_bytes;
    s.elements = rec.elements;
    s.offen = !s.lds && mi.offen;
    // LDS: the component's byte offset from vaddr (for messages; the address
    // itself is DsAddress below, the rule the emulator uses).
    s.inst_offset = ms.lds ? DsAddressOffset(mi, comp) : mi.offset;
    s.mem = rec.mem;
    // The LDS side of an lds_dma is indexed by its base (lds_index).
    const std::vector<IndexRef>& index = dma_lds ? op.lds_index : op.index;
    s.along = dma_lds ? 0 : op.along >= 0 ? op.along : static_cast<int>(op.index.size()) - 1;
    ElemType et;
    if (s.lds) {
      const LdsAlloc* l = k_.FindLds(rec.mem);
      if (l == nullptr) return Fail(v, absl::StrCat("no LDS allocation '", rec.mem, "'"));
      et = l->elem;
      s.shape = l->shape;
      s.strides = l->Strides();
      s.mem_bytes = l->SizeBytes();
      auto base = lds_base_.find(rec.mem);
      if (base == lds_base_.end()) return Fail(v, absl::StrCat("the ABI places no LDS allocation '", rec.mem, "'"));
      s.lds_offset = base->second;
    } else {
      const Arg* arg = k_.FindArg(rec.mem);
      if (arg == nullptr || arg->kind != Arg::Kind::kBuffer)
        return Fail(v, absl::StrCat("no buffer argument '", rec.mem, "'"));
      et = arg->elem;
      s.shape = arg->shape;
      s.strides = arg->strides;
      s.mem_bytes = arg->SizeBytes();
      auto av = ex_.vars().args.find(rec.mem);
      if (av == ex_.vars().args.end() || av->second.lo < 0)
        return Fail(v, absl::StrCat("the kernarg segment has no pointer for '", rec.mem, "'"));
      a.arg_lo = av->second.lo;
      a.arg_hi = av->second.hi;
    }
    if (index.size() != s.shape.size())
      return Fail(v, absl::StrCat("the KIR access has ", index.size(), " indices for a ", s.shape.size(), "-D shape"));
    if (rec.element_bytes != ElemBytes(et))
      return Fail(v, absl::StrCat("the access map says ", rec.element_bytes, "-byte elements; '", rec.mem, "' has ",
                                  ElemBytes(et)));
    if (int64_t{s.comps} * ms.bytes != static_cast<int64_t>(rec.elements.size()) * rec.element_bytes)
      return Fail(v, absl::StrCat(Info(mi.opc).mnemonic, " moves ", s.comps * ms.bytes,
                                  ms.addrs == 2 ? " bytes per address" : " bytes", " but implements ",
                                  rec.elements.size(), " element(s) of ", rec.element_bytes,
                                  " bytes (failure class 10: a wider access clobbers neighbours)"));
    const int width = op.kind == OpKind::kLoad || op_dma ? op.type.width : -1;
    for (int e : rec.elements)
      if (e < 0 || (width > 0 && e >= width))
        return Fail(v, absl::StrCat("element ", e, " is outside the KIR op's vector"));
    // Offset fields: llvm-mc silently keeps the low bits of a too large one (failure class 17).
    if (global && !IsLegalGlobalOffset(mi.offset))
      return Fail(v, absl::StrCat("offset:", mi.offset, " does not fit the 13-bit signed global_* offset field (",
                                  kGlobalMinOffset, "..", kGlobalMaxOffset, "; failure class 17)"));
    if (!ms.lds && !global && !IsLegalMubufOffset(mi.offset))
      return Fail(v, absl::StrCat("offset:", mi.offset, " does not fit the 12-bit MUBUF offset field (0..",
                                  kMubufMaxOffset, "); llvm-mc would silently encode ", mi.offset & kMubufMaxOffset,
                                  " (failure class 17)"));
    if (ms.lds && ms.addrs == 1 && !DsOffsetsFit(mi))
      return Fail(v, absl::StrCat("offset:", mi.offset, " does not fit the 16-bit DS offset field (0..65535)"));
    if (ms.lds && ms.addrs == 2 && !DsOffsetsFit(mi))
      return Fail(v, absl::StrCat("offset0:", mi.offset0, " offset1:", mi.offset1,
                                  " do not fit the 8-bit DS offset0/offset1 fields (0..255)"));
    auto mit = ex_.mem().find(a.index);
    if (mit == ex_.mem().end()) return Fail(v, "the instruction is never executed (it follows s_endpgm)");
    const MemExec& me = mit->second;
    a.exec = me.exec;
    std::vector<int> starts;
    if (me.exec_def >= 0) starts.push_back(me.exec_def);
    // Operand `name`'s dword as the symbolic lane read it (MemExec::ops is by operand index).
    auto use = [&](OpName name, int dword, const std::string& what) -> TRef {
      const int opnd = NamedOperandIdx(mi.opc, name);
      if (opnd < 0 || opnd >= static_cast<int>(me.ops.size()) || dword >= static_cast<int>(me.ops[opnd].size()))
        return TRef{};
      const Slot& sl = me.ops[opnd][dword];
      if (sl.def >= 0) starts.push_back(sl.def);
      return ValueTerm(sl, what);
    };
    if (dma_lds) {
      // M0 as the instruction read it (SALU-written, loop-carried like any
      // register) and this lane's position in its wave.
      if (me.m0.def >= 0) starts.push_back(me.m0.def);
      a.vaddr = ValueTerm(me.m0, "M0");
      if (!a.vaddr.valid()) return Fail(v, "the LDS DMA's M0 is not known");
      a.lane = LaneTerm();
      a.lds_addr = LdsDmaAddress(TermDomain{&pool_}, a.vaddr, mi, a.lane);
    } else if (global) {
      // vdst/vdata, vaddr, [saddr]: with saddr, vaddr is a 32-bit offset; else a 64-bit pair.
      const MOperand* saddr = FindOperand(mi, OpName::kSaddr);
      const MOperand* vaddr = FindOperand(mi, OpName::kVaddr);
      a.saddr = saddr != nullptr;
      if (vaddr == nullptr || !vaddr->IsReg() || vaddr->cls != RegClass::kVgpr || vaddr->count != (a.saddr ? 1 : 2))
        return Fail(v, a.saddr ? "global_* with saddr: vaddr must be one VGPR (a 32-bit offset)"
                               : "global_* with off: vaddr must be a 64-bit VGPR pair");
      if (a.saddr && !(saddr->IsReg() && saddr->cls == RegClass::kSgpr && saddr->count == 2))
        return Fail(v, "global_* saddr must be an SGPR pair");
      const OpName base = a.saddr ? OpName::kSaddr : OpName::kVaddr;
      a.glo = use(base, 0, "a global base address");
      a.ghi = use(base, 1, "a global base address");
      if (a.saddr) a.gvoffset = use(OpName::kVaddr, 0, "a global address offset");
      if (!a.glo.valid() || !a.ghi.valid() || (a.saddr && !a.gvoffset.valid()))
        return Fail(v, "malformed global_* operands");
    } else if (!ms.lds) {
      // MUBUF: vdata, vaddr, srsrc, soffset, all four present.
      const MOperand* srsrc = FindOperand(mi, OpName::kSrsrc);
      if (mi.ops.size() != (dma ? 3u : 4u) || srsrc == nullptr || !srsrc->IsReg() || srsrc->cls != RegClass::kSgpr ||
          srsrc->count != 4)
        return Fail(v, "the buffer instruction does not name an SRD in 4 SGPRs");
      for (int w = 0; w < 4; ++w) a.w[w] = use(OpName::kSrsrc, w, "an SRD dword");
      a.soffset = use(OpName::kSoffset, 0, "soffset");
      if (s.offen) a.voffset = use(OpName::kVaddr, 0, "voffset");
      if (!a.soffset.valid() || (s.offen && !a.voffset.valid())) return Fail(v, "malformed buffer operands");
    } else {
      a.vaddr = use(OpName::kAddr, 0, "an LDS address");
      if (!a.vaddr.valid()) return Fail(v, "malformed DS operands");
      a.lds_addr = DsAddress(TermDomain{&pool_}, a.vaddr, mi, comp);
    }
    // The chain of instructions computing the address (and EXEC).
    std::set<int> seen;
    std::vector<int> stack = starts;
    while (!stack.empty()) {
      int i = stack.back();
      stack.pop_back();
      if (i < 0 || !seen.insert(i).second) continue;
      for (int d : ex_.trace()[i].src_defs) stack.push_back(d);
    }
    a.chain.assign(seen.begin(), seen.end());
    // SGPRs must be uniform: an SGPR value that depends on the lane is wrong for the other lanes.
    for (int i : a.chain)
      if (!ex_.trace()[i].nonuniform.empty())
        return Fail(v, absl::StrCat(InstName(i), " ", InstructionText(t_, lk_.mir.insts[i]), ": ",
                                    ex_.trace()[i].nonuniform));
    // Loops: each enclosing KIR `for` is a machine loop around the instruction,
    // with the same trip count; its variable is lo + step * iteration.
    std::vector<const MachineLoop*> mloops;
    for (const auto& [label, ml] : ex_.loops())
      if (ml.label_index < a.index && a.index < ml.latch_index) mloops.push_back(&ml);
    std::sort(mloops.begin(), mloops.end(),
              [](const MachineLoop* x, const MachineLoop* y) { return x->depth < y->depth; });
    const std::vector<int>& kfors_all = fors_[rec.kir_op];
    if (loop_choice_ != nullptr) {
      // Matching: the binding MatchOne chose (LoopChoices, PieceChoices): per
      // enclosing KIR `for`, the next machine loop with its iterations shifted
      // by c (peeled first iterations), or one constant iteration (peeled
      // ones); a piece covers some iterations of the innermost machine loop:
      // bound with an unroll (KIR iteration c + n at machine iteration
      // first + unroll * n), or one machine iteration bound to no KIR loop.
      const LoopChoice& lc = *loop_choice_;
      if (lc.kir.size() != kfors_all.size()) return Fail(v, "a loop binding for another access");
      box_.clear();
      size_t next = 0;
      for (size_t i = 0; i < kfors_all.size(); ++i) {
        const Op& fo = *ops_[kfors_all[i]];
        const int64_t ktrips = KirTrips(fo), c = lc.kir[i];
        if (c >= 0) {
          if (next >= mloops.size()) return Fail(v, "fewer machine loops than bound KIR loops");
          const MachineLoop* ml = mloops[next++];
          const int64_t stride = lc.Stride(i);
          LoopBinding b{fo.ivar, fo.lo + fo.step * c, fo.step * stride, ml->it_var, ml->label_index};
          const bool piece = lc.Piece() && next == mloops.size();
          if (piece) {
            b.first = lc.first;
            b.unroll = lc.unroll;
            b.count = lc.count;
          }
          const int64_t n = ml->trips < 0 ? -1 : BindingCount(b, ml->trips - 1);
          const int64_t reach = i + 1 == kfors_all.size() ? MaxIterOffset(rec) : 0;  // slots of later iterations
          if (n < 0 || ktrips < 0 || (n > 0 && c + stride * (n - 1) + reach >= ktrips) || (!piece && n != ml->trips))
            return Fail(v, absl::StrCat("the machine loop at ", InstName(ml->label_index), " runs ", ml->trips,
                                        " time(s): iterations ", c, " on", stride > 1 ? absl::StrCat(" by ", stride) : "",
                                        " of the KIR loop %", fo.ivar, " (", ktrips, ") do not fit"));
          a.loops.push_back(b);
          box_.push_back(IterRange{c, n > 0 ? c + stride * (n - 1) + 1 : c, stride});
        } else {
          const int64_t j = -1 - c;
          const int64_t reach = i + 1 == kfors_all.size() ? MaxIterOffset(rec) : 0;
          if (ktrips < 0 || j + reach >= ktrips) return Fail(v, "a peeled iteration outside the KIR loop");
          a.loops.push_back(LoopBinding{fo.ivar, fo.lo + fo.step * j, fo.step, -1, -1});
          box_.push_back(IterRange{j, j + 1, 1});
        }
      }
      if (next + 1 == mloops.size() && lc.Piece() && lc.count == 1) {
        // One iteration of the innermost machine loop performs a KIR access
        // outside it (a peeled iteration the machine loop runs).
        const MachineLoop* ml = mloops[next++];
        if (ml->trips < 0 || lc.first >= ml->trips) return Fail(v, "a machine iteration outside the loop");
        LoopBinding b{"", 0, 0, ml->it_var, ml->label_index};
        b.first = lc.first;
        b.count = 1;
        a.loops.push_back(b);
      }
      if (next != mloops.size())
        return Fail(v, absl::StrCat("the instruction runs inside ", mloops.size(), " machine loop(s), ", next,
                                    " of them bound to KIR loops: it would repeat an access the KIR makes once"));
    } else {
    if (MaxIterOffset(rec) > 0) return Fail(v, "slots of several KIR iterations need a loop binding (matching)");
    // A KIR loop of one iteration needs no machine loop; with more, one
    // instruction outside a machine loop cannot perform every iteration's access
    // (an access-map record is one instruction for all iterations).
    std::vector<int> kfors;
    for (int f : kfors_all) {
      const Op& fo = *ops_[f];
      int64_t ktrips = KirTrips(fo);
      bool has_machine_loop = false;
      for (const MachineLoop* m : mloops) has_machine_loop |= m->kir_op == f;
      if (ktrips == 1 && !has_machine_loop && mloops.size() < kfors_all.size()) {
        a.loops.push_back(LoopBinding{fo.ivar, fo.lo, fo.step, -1, -1});
        continue;
      }
      kfors.push_back(f);
    }
    if (mloops.size() != kfors.size()) {
      if (mloops.size() > kfors.size())
        return Fail(v, absl::StrCat("the instruction runs inside ", mloops.size(), " machine loop(s) but the KIR op is in ",
                                    kfors.size(), ": it would repeat an access the KIR makes once"));
      return Fail(v, absl::StrCat("the KIR op is inside ", kfors.size(), " loop(s) of several iterations but the "
                                  "instruction inside ", mloops.size(), " machine loop(s): it performs the access "
                                  "of one iteration only"));
    }
    for (size_t l = 0; l < kfors.size(); ++l) {
      const Op& f = *ops_[kfors[l]];
      const MachineLoop* ml = mloops[l];
      for (const MachineLoop* m : mloops)
        if (m->kir_op == kfors[l]) ml = m;
      int64_t ktrips = KirTrips(f);
      if (ml->trips != ktrips)
        return Fail(v, absl::StrCat("the machine loop at ", InstName(ml->label_index), " runs ",
                                    ml->trips < 0 ? std::string("forever (its exit condition holds in none of 2^32 iterations)")
                                                  : absl::StrCat(ml->trips, " time(s)"),
                                    " but the KIR loop %", f.ivar, " = ", f.lo, " to ", f.hi, " step ", f.step,
                                    " runs ", ktrips));
      a.loops.push_back(LoopBinding{f.ivar, f.lo, f.step, ml->it_var, ml->label_index});
    }
    }
    // Per element: its IR indices as text.
    for (size_t j = 0; j < rec.elements.size() && dma_lds; ++j) {
      std::vector<std::string> parts;
      for (const IndexRef& x : op.lds_index) parts.push_back(IndexToString(*x));
      const int64_t bj = static_cast<int64_t>(j) * rec.element_bytes;
      s.elem_text.push_back(absl::StrCat(rec.mem, "[", absl::StrJoin(parts, ", "), "] + ", kLdsDmaLaneBytes,
                                         " * lane", bj ? absl::StrCat(" + ", bj) : "", " bytes"));
    }
    for (size_t j = 0; j < rec.elements.size() && !dma_lds; ++j) {
      const int e = rec.elements[j];
      std::vector<std::string> parts;
      for (size_t d = 0; d < op.index.size(); ++d) {
        std::string x = IndexToString(*op.index[d]);
        if (static_cast<int>(d) == s.along && e != 0) x = absl::StrCat("(", x, ") + ", e);
        parts.push_back(x);
      }
      s.elem_text.push_back(absl::StrCat(rec.mem, "[", absl::StrJoin(parts, ", "), "]"));
      if (j < rec.iter_offsets.size() && rec.iter_offsets[j] != 0)
        absl::StrAppend(&s.elem_text.back(), " in iteration +", rec.iter_offsets[j], " of %",
                        ops_[kfors_all.back()]->ivar);
    }
    return std::nullopt;
  }

  // The IR indices of every element in domain W.
  template <class W>
  absl::Status IrIndices(const W& w, const AccessCtx& a, const std::vector<typename W::I>& tid,
                         const std::vector<typename W::I>& wg, const std::map<std::string, typename W::I>& lv,
                         std::vector<std::vector<typename W::I>>* out) {
    out->clear();
    const std::vector<int>& offs = a.rec->iter_offsets;
    for (size_t j = 0; j < a.shape.elements.size(); ++j) {
      const int e = a.shape.elements[j];
      // A slot of a later iteration of the innermost loop (iter_offsets).
      std::map<std::string, typename W::I> shifted;
      const bool shift = j < offs.size() && offs[j] != 0;
      if (shift) {
        const Op& f = *ops_[fors_[a.rec->kir_op].back()];
        shifted = lv;
        auto it = shifted.find(f.ivar);
        if (it == shifted.end())
          return absl::InvalidArgumentError(absl::StrCat("loop variable %", f.ivar, " has no machine loop"));
        it->second = it->second + w.C(f.step * offs[j]);
      }
      std::vector<typename W::I> idx;
      // An lds_dma's LDS side: the wave's base (its elements are the lane's
      // bytes after it: Obligations).
      const std::vector<IndexRef>& index = a.shape.lds_dma ? a.op->lds_index : a.op->index;
      for (size_t d = 0; d < index.size(); ++d) {
        absl::StatusOr<typename W::I> x = IrValue(w, *index[d], k_, tid, wg, shift ? shifted : lv);
        if (!x.ok()) return x.status();
        idx.push_back(static_cast<int>(d) == a.shape.along && !a.shape.lds_dma ? *x + w.C(e) : *x);
      }
      out->push_back(std::move(idx));
    }
    return absl::OkStatus();
  }

  // Concrete check at one point: the violated obligations (by position).
  struct Concrete {
    std::vector<uint32_t> node;  // term values
    std::vector<int> order;
  };
  absl::StatusOr<std::vector<int>> CheckAt(const AccessCtx& a, const std::vector<uint32_t>& env, Concrete& c,
                                           AccessValues<CW>* vals_out = nullptr) {
    pool_.EvalNodes(c.order, env, &c.node);
    CW w;
    AccessValues<CW> vals{};
    vals.exec = c.node[a.exec.id] != 0;
    if (a.shape.global) {
      vals.gbase = GlobalBase64(c.node[a.glo.id], c.node[a.ghi.id]);
      vals.gvoffset = a.saddr ? c.node[a.gvoffset.id] : 0;
      vals.arg_ptr = (static_cast<int64_t>(env[a.arg_hi]) << 32) + env[a.arg_lo];
    } else if (!a.shape.lds) {
      for (int i = 0; i < 4; ++i) vals.w[i] = c.node[a.w[i].id];
      vals.soffset = c.node[a.soffset.id];
      vals.voffset = a.shape.offen ? c.node[a.voffset.id] : 0;
      vals.arg_ptr = (static_cast<int64_t>(env[a.arg_hi]) << 32) + env[a.arg_lo];
    } else {
      vals.vaddr = c.node[a.vaddr.id];
      vals.lds_addr = c.node[a.lds_addr.id];
      if (a.lane.valid()) vals.lane = c.node[a.lane.id];
    }
    std::vector<int64_t> tid(3), wg(3);
    for (int d = 0; d < 3; ++d) {
      tid[d] = env[ex_.vars().tid[d]];
      wg[d] = env[ex_.vars().wg[d]];
    }
    std::map<std::string, int64_t> lv;
    for (const LoopBinding& b : a.loops) {
      int64_t n = 0;
      if (b.it_var >= 0) {
        n = BindingN(b, env[b.it_var], pool_.var(b.it_var).hi);
        if (n < 0) return std::vector<int>{};  // an iteration the binding does not cover
      }
      lv[b.name] = b.lo + b.step * n;
    }
    absl::Status st = IrIndices(w, a, tid, wg, lv, &vals.idx);
    if (!st.ok()) return st;
    std::vector<Ob<CW>> obs = Obligations(w, a.shape, vals, /*names=*/false);
    std::vector<int> bad;
    for (size_t i = 0; i < obs.size(); ++i)
      if (!obs[i].holds) bad.push_back(static_cast<int>(i));
    if (vals_out) *vals_out = vals;
    return bad;
  }

  // Emitted and expected addresses of each element at concrete values.
  static std::string ElementLines(const AccessCtx& a, const AccessValues<CW>& vals) {
    std::string s;
    const AccessShape& sh = a.shape;
    for (size_t j = 0; j < sh.elements.size(); ++j) {
      int64_t ir = 0;
      for (size_t d = 0; d < vals.idx[j].size(); ++d) ir += vals.idx[j][d] * sh.strides[d];
      ir *= sh.elem_bytes;
      int64_t bj = static_cast<int64_t>(j) * sh.elem_bytes;
      // The KIR element at this point: "src[(wg.x * 64 + tid.x) * 3] = src[3]".
      std::vector<std::string> at;
      for (const auto& x : vals.idx[j]) at.push_back(absl::StrCat(x));
      const std::string kir_elem = absl::StrCat(sh.elem_text[j], " = ", sh.mem, "[", absl::StrJoin(at, ", "), "]");
      // An address as a byte offset from the argument's pointer (or the LDS
      // allocation's base): "src + 16", "src - 4".
      auto from_base = [&](int64_t addr, int64_t base) {
        const int64_t d = addr - base;
        return absl::StrCat(" (", sh.mem, d < 0 ? " - " : " + ", d < 0 ? -d : d, ")");
      };
      if (sh.global) {
        const int64_t emitted = GlobalAddress<int64_t>(vals.gbase, vals.gvoffset, sh.inst_offset + bj);
        absl::StrAppend(&s, "  element ", sh.elements[j], ": emitted ",
                        vals.gbase >= kGlobalBaseCap ? std::string(">= 2^62") : Hex(static_cast<uint64_t>(emitted)),
                        " = ", a.saddr ? "saddr " : "vaddr ",
                        vals.gbase >= kGlobalBaseCap ? std::string(">= 2^62") : Hex(static_cast<uint64_t>(vals.gbase)),
                        a.saddr ? absl::StrCat(" + vaddr ", Hex(static_cast<uint64_t>(vals.gvoffset))) : "", " + ",
                        sh.inst_offset + bj,
                        vals.gbase >= kGlobalBaseCap ? std::string() : from_base(emitted, vals.arg_ptr),
                        vals.exec ? "" : " (lane off)", "; expected ",
                        Hex(static_cast<uint64_t>(vals.arg_ptr + ir)), " = ", sh.mem, " + ", ir, " (", kir_elem,
                        ")\n");
      } else if (!sh.lds) {
        int64_t base = vals.w[0] + (FloorMod(vals.w[1], 1 << 16) << 32);
        int64_t vo = sh.offen ? vals.voffset : 0;
        int comp = static_cast<int>(bj / sh.comp_bytes);
        bool in = RawBufferInRange<int64_t>(vals.w[2], vals.soffset, vo + sh.inst_offset + comp * sh.comp_bytes,
                                            sh.comp_bytes);
        int64_t emitted = RawBufferAddress<int64_t>(base, vals.soffset, vo + sh.inst_offset + bj);
        absl::StrAppend(&s, "  element ", sh.elements[j], ": emitted ", Hex(emitted), " = base ", Hex(base),
                        " + soffset ", Hex(vals.soffset), sh.offen ? absl::StrCat(" + voffset ", Hex(vo)) : "",
                        " + ", sh.inst_offset + bj, from_base(emitted, vals.arg_ptr), ", ",
                        vals.exec ? "" : "lane off, ", in ? "in range" : "out of range (dropped)", "; expected ",
                        Hex(static_cast<uint64_t>(vals.arg_ptr + ir)), " = ", sh.mem, " + ", ir, " (", kir_elem,
                        ")\n");
      } else if (sh.lds_dma) {
        const int64_t at = ir + vals.lane * kLdsDmaLaneBytes + bj;
        absl::StrAppend(&s, "  element ", sh.elements[j], ": emitted LDS ", vals.lds_addr + bj,
                        " = (M0 ", vals.vaddr, " + offset ", sh.inst_offset, " + 16 * lane ", vals.lane, ") mod 2^32",
                        bj ? absl::StrCat(" + ", bj) : "", from_base(vals.lds_addr + bj, sh.lds_offset),
                        vals.exec ? "" : " (lane off)", "; expected ", sh.lds_offset + at, " = ", sh.lds_offset,
                        " + ", at, " (", kir_elem, ")\n");
      } else {
        absl::StrAppend(&s, "  element ", sh.elements[j], ": emitted LDS ", vals.lds_addr + bj,
                        " = (vaddr ", vals.vaddr, " + ", sh.inst_offset, ") mod 2^32",
                        bj ? absl::StrCat(" + ", bj) : "", from_base(vals.lds_addr + bj, sh.lds_offset),
                        vals.exec ? "" : " (lane off)", "; expected ", sh.lds_offset + ir, " = ", sh.lds_offset,
                        " + ", ir, " (", kir_elem, ")\n");
      }
    }
    return s;
  }

  std::string Counterexample(const AccessCtx& a, const std::vector<uint32_t>& env, const std::vector<int>& bad,
                             const std::vector<std::string>& names, const std::string& how) {
    Concrete c;
    c.order = pool_.Closure(a.Roots());
    for (int i : a.chain)
      for (const auto& [n, t] : ex_.trace()[i].writes) {
        std::vector<int> more = pool_.Closure({t});
        c.order.insert(c.order.end(), more.begin(), more.end());
      }
    std::sort(c.order.begin(), c.order.end());
    c.order.erase(std::unique(c.order.begin(), c.order.end()), c.order.end());
    AccessValues<CW> vals{};
    absl::StatusOr<std::vector<int>> chk = CheckAt(a, env, c, &vals);
    const KernelVars& kv = ex_.vars();
    const int64_t flat = env[kv.tid[0]] + k_.workgroup[0] * (env[kv.tid[1]] + k_.workgroup[1] * int64_t{env[kv.tid[2]]});
    std::string s = absl::StrCat("counterexample (", how, "): tid = (", env[kv.tid[0]], ", ", env[kv.tid[1]], ", ",
                                 env[kv.tid[2]], "), wg = (", env[kv.wg[0]], ", ", env[kv.wg[1]], ", ", env[kv.wg[2]],
                                 ") (wave ", flat / 64, ", lane ", flat % 64, ")");
    if (!a.shape.lds) absl::StrAppend(&s, ", ", a.shape.mem, " = ", Hex(static_cast<uint64_t>(vals.arg_ptr)));
    s += DmaSide(a, vals);
    for (const LoopBinding& b : a.loops)
      if (b.it_var >= 0) {
        const int64_t n = std::max<int64_t>(0, BindingN(b, env[b.it_var], pool_.var(b.it_var).hi));
        if (b.name.empty())
          absl::StrAppend(&s, ", iteration ", env[b.it_var], " of the loop at ", InstName(b.label_index));
        else
          absl::StrAppend(&s, ", %", b.name, " = ", b.lo + b.step * n, " (iteration ", env[b.it_var],
                          " of the loop at ", InstName(b.label_index), ")");
      }
    s += "\n";
    // Other inputs the address depends on.
    std::set<int> used;
    for (TRef r : a.Roots())
      for (int var : pool_.VarsOf(r)) used.insert(var);
    std::vector<std::string> others;
    for (int var : used) {
      const VarInfo& vi = pool_.var(var);
      if (vi.kind == VarKind::kTid || vi.kind == VarKind::kWg || vi.kind == VarKind::kLoopIter || var == a.arg_lo ||
          var == a.arg_hi)
        continue;
      others.push_back(absl::StrCat(vi.name, " = ", Hex(env[var])));
    }
    if (!others.empty()) absl::StrAppend(&s, "  with ", absl::StrJoin(others, ", "), "\n");
    for (int b : bad) absl::StrAppend(&s, "  violated: ", b < static_cast<int>(names.size()) ? names[b] : "?", "\n");
    s += ElementLines(a, vals);
    absl::StrAppend(&s, "  chain:\n");
    for (int i : a.chain) {
      std::vector<std::string> ws;
      for (const auto& [n, t] : ex_.trace()[i].writes) ws.push_back(absl::StrCat(n, " = ", Hex(c.node[t.id])));
      const MInst& mi = lk_.mir.insts[i];
      auto mods = lk_.modifiers.find(mi.id);
      const std::string text = InstructionText(t_, mi) + (mods != lk_.modifiers.end() ? VopModifiersText(mods->second) : "");
      absl::StrAppend(&s, absl::StrFormat("    %-7s %-48s %s\n", InstName(i), text, absl::StrJoin(ws, ", ")));
    }
    return s;
  }

  // An LDS DMA's side in a counterexample's first line (and M0 for its LDS side).
  static std::string DmaSide(const AccessCtx& a, const AccessValues<CW>& vals) {
    if (!(Info(a.mi->opc).flags & kLdsDma)) return "";
    if (!a.shape.lds_dma) return ", the LDS DMA's global side";
    return absl::StrCat(", the LDS DMA's LDS side: M0 = ", Hex(static_cast<uint64_t>(static_cast<uint32_t>(vals.vaddr))));
  }

  // Concrete search by running whole waves of the machine code (branches
  // taken, loops iterated, lane masks as 64-bit values; verify/concrete.h):
  // needs no term, so it also decides what the symbolic lane over-approximates.
  // Returns the counterexample text, or nothing.
  std::optional<std::string> SearchWaves(const AccessCtx& a, const std::vector<std::string>& names,
                                         const std::string& why) {
    std::vector<std::array<int64_t, 3>> wgs = SampleWorkgroups(
        std::max<int64_t>(1, opts_.max_search_points / kConcreteSettings /
                                 std::max<int64_t>(1, k_.workgroup[0] * k_.workgroup[1] * k_.workgroup[2])));
    CW w;
    std::optional<std::string> found;
    int64_t steps_left = opts_.max_search_instructions;  // a count, so the outcome does not depend on load
    const int settings = kConcreteSettings + (a.shape.global ? 1 : 0);  // + kStraddleSetting
    for (int setting = 0; setting < settings && !found && steps_left > 0; ++setting) {
      ConcreteRunner run(k_, t_, lk_, setting);
      for (const auto& g : wgs) {
        if (found) break;
        for (int wave = 0; wave < run.Waves() && !found && steps_left > 0; ++wave) {
          auto on_mem = [&](const MemRecord& r) {
            if (found || r.index != a.index) return;
            for (int lane = 0; lane < 64 && !found; ++lane) {
              AccessValues<CW> vals{};
              vals.exec = (r.exec >> lane) & 1;
              for (int i = 0; i < 4; ++i) vals.w[i] = r.srd[i];
              vals.soffset = r.soffset;
              if (a.shape.global) {
                vals.gbase = a.saddr ? GlobalBase64(static_cast<uint32_t>(r.saddr), static_cast<uint32_t>(r.saddr >> 32))
                                     : GlobalBase64(r.vaddr[lane], r.vaddr_hi[lane]);
                vals.gvoffset = a.saddr ? r.vaddr[lane] : 0;
              }
              vals.voffset = a.shape.offen ? r.vaddr[lane] : 0;
              vals.vaddr = a.shape.lds_dma ? r.m0 : r.vaddr[lane];
              vals.lane = lane;
              if (a.shape.lds_dma)
                vals.lds_addr = LdsDmaAddress(U32Domain{}, r.m0, *a.mi, lane);
              else if (a.shape.lds)
                vals.lds_addr = DsAddress(U32Domain{}, r.vaddr[lane], *a.mi, std::max(a.rec->component, 0));
              vals.arg_ptr = a.shape.lds ? 0 : static_cast<int64_t>(run.Pointer(a.shape.mem));
              std::array<int64_t, 3> tid3 = run.TidOf(wave, lane);
              std::vector<int64_t> tid(tid3.begin(), tid3.end()), wgv(g.begin(), g.end());
              std::map<std::string, int64_t> lv;
              std::vector<std::string> iters;
              bool covered = true;  // by the binding (piecewise matching covers some iterations)
              for (const LoopBinding& b : a.loops) {
                int64_t itn = 0;
                for (const auto& [label, n] : r.iters)
                  if (label == b.label_index) itn = n;
                const int64_t n = b.it_var >= 0 ? BindingN(b, itn, pool_.var(b.it_var).hi) : 0;
                covered &= n >= 0;
                lv[b.name] = b.lo + b.step * n;
                if (b.it_var >= 0)
                  iters.push_back(b.name.empty() ? absl::StrCat(", iteration ", itn, " of the loop at ",
                                                                InstName(b.label_index))
                                                 : absl::StrCat(", %", b.name, " = ", lv[b.name], " (iteration ", itn,
                                                                " of the loop at ", InstName(b.label_index), ")"));
              }
              if (!covered) return;
              if (!IrIndices(w, a, tid, wgv, lv, &vals.idx).ok()) return;
              std::vector<Ob<CW>> obs = Obligations(w, a.shape, vals, /*names=*/false);
              std::vector<int> bad;
              for (size_t i = 0; i < obs.size(); ++i)
                if (!obs[i].holds) bad.push_back(static_cast<int>(i));
              if (bad.empty()) continue;
              std::string s = absl::StrCat("counterexample (found by running the code concretely; ", why,
                                           "): tid = (", tid[0], ", ", tid[1], ", ", tid[2], "), wg = (", g[0], ", ",
                                           g[1], ", ", g[2], ") (wave ", wave, ", lane ", lane, ")");
              if (!a.shape.lds) absl::StrAppend(&s, ", ", a.shape.mem, " = ", Hex(static_cast<uint64_t>(vals.arg_ptr)));
              s += DmaSide(a, vals);
              for (const std::string& it : iters) s += it;
              s += "\n";
              for (int b : bad) absl::StrAppend(&s, "  violated: ", b < static_cast<int>(names.size()) ? names[b] : "?", "\n");
              s += ElementLines(a, vals);
              found = s;
            }
          };
          // A wave that does not finish in the step budget proves nothing
          // either way (non-terminating loops fail the trip-count check).
          int64_t steps = 0;
          (void)run.RunWave(g, wave, on_mem, steps_left, &steps);
          steps_left -= steps;
        }
      }
    }
    return found;
  }

  // Workgroups for concrete search: all if there are at most n, else the
  // corners of the grid and a deterministic spread.
  std::vector<std::array<int64_t, 3>> SampleWorkgroups(int64_t n) const {
    std::vector<std::array<int64_t, 3>> wgs;
    if (k_.grid[0] * k_.grid[1] * k_.grid[2] <= n) {
      for (int64_t z = 0; z < k_.grid[2]; ++z)
        for (int64_t y = 0; y < k_.grid[1]; ++y)
          for (int64_t x = 0; x < k_.grid[0]; ++x) wgs.push_back({x, y, z});
      return wgs;
    }
    for (int m = 0; m < 8 && static_cast<int64_t>(wgs.size()) < n; ++m)
      wgs.push_back({(m & 1) ? k_.grid[0] - 1 : 0, (m & 2) ? k_.grid[1] - 1 : 0, (m & 4) ? k_.grid[2] - 1 : 0});
    uint64_t h = 0x9e3779b97f4a7c15ull;
    while (static_cast<int64_t>(wgs.size()) < n) {
      h = h * 6364136223846793005ull + 1442695040888963407ull;
      wgs.push_back({static_cast<int64_t>((h >> 11) % k_.grid[0]), static_cast<int64_t>((h >> 23) % k_.grid[1]),
                     static_cast<int64_t>((h >> 37) % k_.grid[2])});
    }
    return wgs;
  }

  // ---- Refutation by running the code (buffers and global_* only) ----
  // When the symbolic lane over-approximates an address (a loop register
  // that is no induction variable, a solver that gives up), running whole
  // waves still shows what the code does: an instruction that touches a
  // byte its thread's KIR never accesses in that direction, in any
  // iteration, implements no KIR access (StrayTouch); an element no
  // instruction of the code ever touches for its thread is not performed
  // (UntouchedElement). Both are confirmed counterexamples: the addresses
  // are the ones the code computes, for the pointers of the setting named.

  // One wave of the code, run concretely: per lane, every byte range a
  // buffer or global_* instruction touched.
  struct LaneTouch {
    int index;      // instruction index
    int execution;  // WaveRun::iters index
    Touch t;
  };
  struct WaveRun {
    int setting = 0;
    std::array<int64_t, 3> wg{};
    int wave = 0;
    bool finished = false;  // ended within the step budget: every touch is here
    std::vector<std::vector<LaneTouch>> lanes;
    std::vector<std::vector<std::pair<int, int64_t>>> iters;  // per execution: MemRecord::iters
    // Buffer instructions that ran with an SRD that is no raw buffer (stride,
    // swizzle or add_tid bits set: e.g. a 64-bit base carried into dword 1's
    // high half), with that dword 1.
    std::map<int, uint32_t> non_raw;
  };
  // Setting `setting`'s buffer pointers as `run` places them (run_pointers_,
  // for counterexample texts).
  void KeepPointers(const ConcreteRunner& run, int setting) {
    std::map<std::string, int64_t>& ptr = run_pointers_[setting];
    for (const Arg& arg : k_.args)
      if (arg.kind == Arg::Kind::kBuffer) ptr[arg.name] = static_cast<int64_t>(run.Pointer(arg.name));
  }

  // The runs (computed once): SearchWaves' workgroups and settings, the
  // straddling one included when the code has global_* instructions.
  const std::vector<WaveRun>& WaveRuns() {
    if (wave_runs_done_) return wave_runs_;
    wave_runs_done_ = true;
    bool global = false;
    for (const MInst& mi : lk_.mir.insts) global |= IsMemoryInst(mi) && (Info(mi.opc).flags & kGlobalAddr);
    const std::vector<std::array<int64_t, 3>> wgs = SampleWorkgroups(
        std::max<int64_t>(1, opts_.max_search_points / kConcreteSettings /
                                 std::max<int64_t>(1, k_.workgroup[0] * k_.workgroup[1] * k_.workgroup[2])));
    int64_t steps_left = opts_.max_search_instructions;
    int64_t touches = 0;
    constexpr int64_t kMaxTouches = int64_t{1} << 22;  // bounds memory (about 100 MB)
    const int settings = kConcreteSettings + (global ? 1 : 0);
    for (int setting = 0; setting < settings && steps_left > 0 && touches < kMaxTouches; ++setting) {
      ConcreteRunner run(k_, t_, lk_, setting);
      KeepPointers(run, setting);
      for (const auto& g : wgs) {
        for (int wave = 0; wave < run.Waves() && steps_left > 0 && touches < kMaxTouches; ++wave) {
          WaveRun wr;
          wr.setting = setting;
          wr.wg = g;
          wr.wave = wave;
          wr.lanes.resize(64);
          bool raw = true;
          auto on_mem = [&](const MemRecord& r) {
            const MInst& mi = lk_.mir.insts[static_cast<size_t>(r.index)];
            if (MemoryShape(mi.opc).lds) return;
            if (!(Info(mi.opc).flags & (kGlobalAddr | kFlatAddr | kScratchAddr)) && r.exec != 0 &&
                (((r.srd[1] >> 16) & 0x3fff) != 0 || (r.srd[1] >> 30) != 0 || ((r.srd[3] >> 23) & 1) != 0))
              wr.non_raw.emplace(r.index, r.srd[1]);
            const int execution = static_cast<int>(wr.iters.size());
            wr.iters.push_back(r.iters);
            for (int lane = 0; lane < 64; ++lane) {
              std::optional<std::vector<Touch>> ts = TouchedBytes(mi, r, lane);
              if (!ts) {
                raw = false;
                continue;
              }
              for (const Touch& t : *ts) wr.lanes[static_cast<size_t>(lane)].push_back({r.index, execution, t});
              touches += static_cast<int64_t>(ts->size());
            }
          };
          int64_t steps = 0;
          const absl::Status st = run.RunWave(g, wave, on_mem, steps_left, &steps);
          steps_left -= steps;
          wr.finished = st.ok() && raw && touches < kMaxTouches;
          wave_runs_.push_back(std::move(wr));
        }
      }
    }
    return wave_runs_;
  }

  // One element of a KIR access of one thread: its bytes and where it is.
  struct KirByte {
    int64_t lo = 0, hi = 0;  // absolute byte addresses [lo, hi)
    int kir_op = -1, element = 0;
    std::string iteration;   // "%k = 16, %j = 0", or empty
  };
  // Every element every KIR load (store = false) or store of buffers makes
  // thread `tid` of workgroup `wg` access, in every iteration of its loops,
  // with the pointers of `setting`, sorted by address. Ops `only` (when
  // not negative) alone. Nothing when there are more than 2^16 elements.
  std::optional<std::vector<KirByte>> KirBytes(std::array<int64_t, 3> tid3, std::array<int64_t, 3> wg3, bool store,
                                               int setting, int only = -1) {
    std::vector<KirByte> out;
    CW w;
    const std::vector<int64_t> tid(tid3.begin(), tid3.end()), wg(wg3.begin(), wg3.end());
    for (size_t k = 0; k < ops_.size(); ++k) {
      const Op& op = *ops_[k];
      if (only >= 0 && static_cast<int>(k) != only) continue;
      // (An lds_dma's buffer read is a load.)
      if (op.kind != (store ? OpKind::kStore : OpKind::kLoad) && (store || op.kind != OpKind::kLdsDma)) continue;
      const Arg* arg = k_.FindArg(op.mem);
      if (arg == nullptr || arg->kind != Arg::Kind::kBuffer) continue;
      const int64_t eb = ElemBytes(arg->elem), ptr = run_pointers_[setting][op.mem];
      const int along = op.along >= 0 ? op.along : static_cast<int>(op.index.size()) - 1;
      std::vector<int64_t> trips;
      for (int f : fors_[k]) {
        trips.push_back(KirTrips(*ops_[f]));
        if (trips.back() <= 0) return std::nullopt;
      }
      std::vector<int64_t> it(trips.size(), 0);
      for (bool more = true; more;) {
        std::map<std::string, int64_t> lv;
        std::vector<std::string> where;
        for (size_t d = 0; d < trips.size(); ++d) {
          const Op& f = *ops_[fors_[k][d]];
          lv[f.ivar] = f.lo + f.step * it[d];
          where.push_back(absl::StrCat("%", f.ivar, " = ", lv[f.ivar]));
        }
        for (int64_t e = 0; e < AccessWidth(op); ++e) {
          int64_t off = 0;
          bool in_shape = true;
          for (size_t d = 0; d < op.index.size(); ++d) {
            absl::StatusOr<int64_t> x = IrValue(w, *op.index[d], k_, tid, wg, lv);
            if (!x.ok()) return std::nullopt;
            const int64_t v = *x + (static_cast<int>(d) == along ? e : 0);
            in_shape &= v >= 0 && v < arg->shape[d];
            off += v * arg->strides[d];
          }
          if (!in_shape) continue;  // guarded: not accessed (unguarded: the validator's)
          if (out.size() >= (size_t{1} << 16)) return std::nullopt;
          out.push_back({ptr + off * eb, ptr + (off + 1) * eb, static_cast<int>(k), static_cast<int>(e),
                         absl::StrJoin(where, ", ")});
        }
        more = false;
        for (size_t d = trips.size(); d-- > 0;) {
          if (++it[d] < trips[d]) {
            more = true;
            break;
          }
          it[d] = 0;
        }
      }
    }
    std::sort(out.begin(), out.end(), [](const KirByte& a, const KirByte& b) { return a.lo < b.lo; });
    return out;
  }

  // "A + 0x40" for an address inside buffer A with the pointers of `setting`.
  std::string BufferOffsetText(int64_t addr, int setting) {
    for (const Arg& arg : k_.args) {
      if (arg.kind != Arg::Kind::kBuffer) continue;
      const int64_t p = run_pointers_[setting][arg.name];
      if (addr >= p && addr < p + arg.SizeBytes()) return absl::StrCat(arg.name, " + ", addr - p);
    }
    return "outside every buffer";
  }

  std::string RunHeader(const WaveRun& r, int lane, const std::string& why) {
    const std::array<int64_t, 3> tid = WorkItemId(k_, r.wave, lane);
    std::string s = absl::StrCat("counterexample (found by running the code concretely; ", why, "): tid = (", tid[0],
                                 ", ", tid[1], ", ", tid[2], "), wg = (", r.wg[0], ", ", r.wg[1], ", ", r.wg[2],
                                 ") (wave ", r.wave, ", lane ", lane, ")");
    for (const Arg& arg : k_.args)
      if (arg.kind == Arg::Kind::kBuffer)
        absl::StrAppend(&s, ", ", arg.name, " = ", Hex(static_cast<uint64_t>(run_pointers_[r.setting][arg.name])));
    return s + "\n";
  }

  bool IsThread(int wave, int lane) const {
    return int64_t{wave} * 64 + lane < k_.workgroup[0] * k_.workgroup[1] * k_.workgroup[2];
  }

  // A byte buffer instruction `index` touches, when it runs, that no KIR
  // access of its thread in the instruction's direction touches in any
  // iteration: the counterexample text, or nothing.
  std::optional<std::string> StrayTouch(int index, const std::string& why) {
    const MInst& mi = lk_.mir.insts[static_cast<size_t>(index)];
    const MemShape ms = MemoryShape(mi.opc);
    if (ms.lds || ms.comps == 0) return std::nullopt;
    for (const WaveRun& r : WaveRuns()) {
      for (int lane = 0; lane < 64; ++lane) {
        if (!IsThread(r.wave, lane)) continue;
        std::optional<std::vector<KirByte>> kir;
        for (const LaneTouch& lt : r.lanes[static_cast<size_t>(lane)]) {
          if (lt.index != index) continue;
          if (!kir) {
            const std::array<int64_t, 3> tid = WorkItemId(k_, r.wave, lane);
            kir = KirBytes(tid, r.wg, ms.store, r.setting);
            if (!kir) return std::nullopt;  // too many elements to enumerate
          }
          // Every byte of the touch must lie in an element of `kir`.
          const int64_t lo = static_cast<int64_t>(lt.t.addr), hi = lo + lt.t.bytes;
          int64_t at = lo;
          const KirByte* nearest = nullptr;
          for (const KirByte& kb : *kir) {
            if (nearest == nullptr || std::llabs(kb.lo - lo) < std::llabs(nearest->lo - lo)) nearest = &kb;
            if (kb.lo <= at && at < kb.hi) at = kb.hi;
          }
          if (at >= hi) continue;
          std::string s = RunHeader(r, lane, why);
          for (const auto& [label, n] : r.iters[static_cast<size_t>(lt.execution)])
            absl::StrAppend(&s, "  in iteration ", n, " of the loop at ", InstName(label), "\n");
          absl::StrAppend(&s, "  ", ms.addrs == 2 ? absl::StrCat("address ", lt.t.address, ", ") : "",
                          "component at ", Hex(static_cast<uint64_t>(lo)), ": emitted ", Hex(static_cast<uint64_t>(lo)),
                          " = ", BufferOffsetText(lo, r.setting), " (", lt.t.bytes, " bytes; byte ",
                          Hex(static_cast<uint64_t>(at)), " = ", BufferOffsetText(at, r.setting), " is ",
                          ms.store ? "stored" : "loaded", " by no KIR ", ms.store ? "store" : "load",
                          " of the thread); expected an address the thread's KIR ", ms.store ? "stores" : "loads",
                          " in some iteration");
          if (nearest != nullptr)
            absl::StrAppend(&s, ", the nearest ", Hex(static_cast<uint64_t>(nearest->lo)), " = ",
                            BufferOffsetText(nearest->lo, r.setting), " (element ", nearest->element, " of op ",
                            nearest->kir_op, nearest->iteration.empty() ? "" : " at ", nearest->iteration, ")");
          return s + "\n";
        }
      }
    }
    return std::nullopt;
  }

  // Memory instruction `index`, implementing KIR op `k`, running in one wave
  // (with a lane on) more often than a thread makes op k (the product of its
  // loops' trip counts): it repeats an access the KIR makes once, e.g. a
  // machine loop that runs past its KIR loop or never ends. The
  // counterexample text, or nothing.
  std::optional<std::string> ExtraExecutions(int index, int k, const std::string& why) {
    int64_t total = 1;
    std::vector<std::string> loops;
    for (int f : fors_[static_cast<size_t>(k)]) {
      const int64_t trips = KirTrips(*ops_[static_cast<size_t>(f)]);
      if (trips <= 0) return std::nullopt;
      total = total > (int64_t{1} << 40) / trips ? (int64_t{1} << 40) : total * trips;
      loops.push_back(absl::StrCat("%", ops_[static_cast<size_t>(f)]->ivar, ": ", trips));
    }
    // Wave 0 of workgroup (0, 0, 0) in each setting, for a few times the
    // steps `total` passes through straight-line code would take (a repeat
    // shows within them; nested loops may need more: then no verdict).
    const int64_t per = std::max<int64_t>(64, static_cast<int64_t>(lk_.mir.insts.size()));
    const int64_t budget = std::min<int64_t>(opts_.max_search_instructions,
                                             total >= (int64_t{1} << 30) / per ? (int64_t{1} << 30) : 8 * per * (total + 1));
    for (int setting = 0; setting < kConcreteSettings; ++setting) {
      ConcreteRunner run(k_, t_, lk_, setting);
      WaveRun r;
      r.setting = setting;
      int64_t n = 0, steps = 0;
      const absl::Status st = run.RunWave(r.wg, 0, [&](const MemRecord& m) { n += m.index == index && m.exec != 0; },
                                          budget, &steps);
      if (n <= total) continue;
      KeepPointers(run, setting);
      std::string s = RunHeader(r, 0, why);
      absl::StrAppend(&s, "  ", InstName(index), " ran ", n, " times with lanes on in this wave",
                      st.ok() ? "" : absl::StrCat(" in its first ", steps, " instructions"), "; each thread makes op ",
                      k, " ", total, " time(s)",
                      loops.empty() ? "" : absl::StrCat(" (", absl::StrJoin(loops, ", "), ")"), "\n");
      return s;
    }
    return std::nullopt;
  }

  // A run in which buffer instruction `index` used an SRD that is no raw
  // buffer (WaveRun::non_raw): the counterexample text, or nothing.
  std::optional<std::string> NonRawSrd(int index, const std::string& why) {
    for (const WaveRun& r : WaveRuns()) {
      auto it = r.non_raw.find(index);
      if (it == r.non_raw.end()) continue;
      return absl::StrCat(RunHeader(r, 0, why), "  ", InstName(index), " ran with SRD dword 1 = ",
                          Hex(it->second), " (stride bits 29:16, swizzle bits 31:30) or add_tid set in dword 3\n");
    }
    return std::nullopt;
  }

  // An element of KIR op `k` (a buffer access) that no instruction of the
  // code touches in the op's direction for its thread, in runs that finished:
  // the counterexample text, or nothing.
  std::optional<std::string> UntouchedElement(int k, const std::string& why) {
    const Op& op = *ops_[static_cast<size_t>(k)];
    const bool store = op.kind == OpKind::kStore;
    for (const WaveRun& r : WaveRuns()) {
      if (!r.finished) continue;
      for (int lane = 0; lane < 64; ++lane) {
        if (!IsThread(r.wave, lane)) continue;
        std::vector<std::pair<int64_t, int64_t>> touched;
        for (const LaneTouch& lt : r.lanes[static_cast<size_t>(lane)])
          if (MemoryShape(lk_.mir.insts[static_cast<size_t>(lt.index)].opc).store == store)
            touched.push_back({static_cast<int64_t>(lt.t.addr), static_cast<int64_t>(lt.t.addr) + lt.t.bytes});
        std::sort(touched.begin(), touched.end());
        const std::array<int64_t, 3> tid = WorkItemId(k_, r.wave, lane);
        std::optional<std::vector<KirByte>> kir = KirBytes(tid, r.wg, store, r.setting, k);
        if (!kir) return std::nullopt;
        for (const KirByte& kb : *kir) {
          int64_t at = kb.lo;
          for (const auto& [lo, hi] : touched)
            if (lo <= at && at < hi) at = hi;
          if (at >= kb.hi) continue;
          return absl::StrCat(RunHeader(r, lane, why), "  element ", kb.element,
                              kb.iteration.empty() ? "" : absl::StrCat(" at ", kb.iteration), " (byte address ",
                              Hex(static_cast<uint64_t>(kb.lo)), " = ", BufferOffsetText(kb.lo, r.setting), ") is ",
                              store ? "stored" : "loaded", " by no instruction of the code\n");
        }
      }
    }
    return std::nullopt;
  }

  // The value of input variable `var` (other than tid/wg) in concrete search
  // setting 0, 1, 2 or kStraddleSetting: pointers low, high (lo near 2^32),
  // middling, and straddling 2^32; data 0, all ones and a pattern (clamped
  // to the variable's range).
  uint32_t InputValue(int var, int setting) const {
    const VarInfo& vi = pool_.var(var);
    uint32_t val = 0;
    if (vi.kind == VarKind::kArgDword || vi.kind == VarKind::kKernargPtr) {
      bool hi = vi.hi == 0xffff;
      uint32_t salt = static_cast<uint32_t>(vi.dim < 0 ? var : vi.dim) * 0x1000u;
      if (setting == 0) val = hi ? 0x0001u + salt / 0x1000u : 0x10000000u + salt * 0x100u;
      if (setting == 1) val = hi ? 0xfffeu - salt / 0x1000u : 0xfff00000u - salt * 0x10u;
      if (setting == 2) val = hi ? 0x7fffu : 0x80000000u + salt;
      if (setting == kStraddleSetting) {
        // Each buffer straddles 2^32 (global accesses: carries happen).
        int64_t bytes = 0;
        for (const KernelAbi::KernargSlot& slot : lk_.abi.kernargs)
          if (const Arg* arg = k_.FindArg(slot.name);
              slot.is_buffer && arg != nullptr && slot.offset == vi.dim && vi.kind == VarKind::kArgDword)
            bytes = arg->SizeBytes();
        val = hi ? 0x0010u + salt / 0x1000u : StraddlePointerLo(bytes);
      }
      if (hi) {
        // The buffer ends at or below 2^48 (the solver assumes it too).
        for (const KernelAbi::KernargSlot& slot : lk_.abi.kernargs)
          if (const Arg* arg = k_.FindArg(slot.name); slot.is_buffer && arg != nullptr && slot.offset + 4 == vi.dim) {
            const int64_t top = (((int64_t{1} << 48) - std::max<int64_t>(arg->SizeBytes(), 0)) >> 32) - 1;
            if (top >= 0 && static_cast<int64_t>(val) > top) val = static_cast<uint32_t>(top);
          }
      }
    } else {
      val = setting == 0 ? 0u : setting == 1 ? 0xffffffffu : 0x12345678u;
      if (vi.lo > val || vi.hi < val) val = static_cast<uint32_t>(vi.lo);
    }
    return val;
  }

  // Concrete search for a counterexample (only ever turns unknown into failed).
  std::optional<std::vector<uint32_t>> Search(const AccessCtx& a) {
    Concrete c;
    c.order = pool_.Closure(a.Roots());
    const KernelVars& kv = ex_.vars();
    std::vector<int> vars;
    for (int id : c.order)
      if (pool_.node(TRef{id}).op == TOp::kVar) vars.push_back(static_cast<int>(pool_.node(TRef{id}).c));
    int64_t threads = k_.workgroup[0] * k_.workgroup[1] * k_.workgroup[2];
    const int kSettings = 3;
    int64_t budget = std::max<int64_t>(opts_.max_search_points / kSettings, threads);
    std::vector<std::array<int64_t, 3>> wgs = SampleWorkgroups(std::max<int64_t>(1, budget / threads));
    std::vector<uint32_t> env(pool_.num_vars(), 0);
    // global_*: a fourth setting in which each buffer straddles 2^32 (kStraddleSetting).
    const int settings = kSettings + (a.shape.global ? 1 : 0);
    for (int setting = 0; setting < settings; ++setting) {
      // Inputs other than tid/wg: pointers low, high (lo near 2^32), and middling; data patterns.
      for (int var : vars) env[var] = InputValue(var, setting);
      // Loop iterations: all when few, else the first two, a middle one and the last.
      std::vector<std::vector<uint32_t>> iters;
      for (const LoopBinding& b : a.loops) {
        if (b.it_var < 0) {
          iters.push_back({0u});
          continue;
        }
        const int64_t n = BindingCount(b, pool_.var(b.it_var).hi);
        std::vector<int64_t> ns;
        if (n <= 8) {
          for (int64_t t = 0; t < n; ++t) ns.push_back(t);
        } else {
          ns = {0, 1, n / 2, n - 1};
        }
        std::vector<uint32_t> vals;
        for (int64_t t : ns) vals.push_back(static_cast<uint32_t>(b.first + b.unroll * t));
        iters.push_back(vals);
      }
      std::vector<size_t> odo(iters.size(), 0);
      for (bool more = true; more;) {
        for (size_t l = 0; l < iters.size(); ++l)
          if (a.loops[l].it_var >= 0) env[a.loops[l].it_var] = iters[l][odo[l]];
        more = Advance(odo, iters);
      for (const auto& g : wgs) {
        for (int d = 0; d < 3; ++d) env[kv.wg[d]] = static_cast<uint32_t>(g[d]);
        for (int64_t z = 0; z < k_.workgroup[2]; ++z)
          for (int64_t y = 0; y < k_.workgroup[1]; ++y)
            for (int64_t x = 0; x < k_.workgroup[0]; ++x) {
              env[kv.tid[0]] = static_cast<uint32_t>(x);
              env[kv.tid[1]] = static_cast<uint32_t>(y);
              env[kv.tid[2]] = static_cast<uint32_t>(z);
              absl::StatusOr<std::vector<int>> bad = CheckAt(a, env, c);
              if (bad.ok() && !bad->empty()) return env;
            }
      }
      }
    }
    return std::nullopt;
  }

  // ---- Exhaustive proof on a small finite domain (max_exhaustive_points) ----

  // An LDS access decided by evaluation at every point of its query's domain.
  struct Evaluation {
    int64_t points = 0;         // points evaluated (all of them when proved)
    std::vector<uint32_t> env;  // failed: the first point that violates an obligation
    std::vector<int> bad;       // failed: the violated obligations (by position)
  };

  // nullopt when the access does not qualify: not LDS, a free variable other
  // than work-item ids, workgroup ids and machine-loop iterations (pointers,
  // memory contents, abstract values, ...), a domain over the bound, or KIR
  // index values that could leave int64 (checked with intervals). Otherwise
  // the domain is the solver's: each work-item and workgroup id the machine
  // terms or the KIR index read, over its whole range (TermPool's lo..hi, the
  // range the Translator asserts), and each machine loop's iteration over
  // its range, a bound loop over the iterations its binding covers (the
  // solver's domain constraints; CheckAt skips the others); variables read by
  // neither side cannot change an obligation. The evaluation is exact (the
  // terms in 32-bit semantics, the obligations and IrValue in int64 with no
  // overflow), so "no point violates an obligation" is a proof and a point
  // that does is a counterexample.
  std::optional<Evaluation> ProveByEvaluation(const AccessCtx& a) {
    if (!a.shape.lds || opts_.max_exhaustive_points <= 0) return std::nullopt;
    const KernelVars& kv = ex_.vars();
    Concrete c;
    c.order = pool_.Closure(a.Roots());
    std::set<int> used;
    for (int id : c.order)
      if (pool_.node(TRef{id}).op == TOp::kVar) used.insert(static_cast<int>(pool_.node(TRef{id}).c));
    const std::vector<IndexRef>& index = a.shape.lds_dma ? a.op->lds_index : a.op->index;
    for (int d = 0; d < 3; ++d) {
      used.insert(kv.tid[d]);  // cheap: one value when the workgroup is flat in d
      for (const IndexRef& x : index)
        if (IndexReads(*x, IndexKind::kWg, d)) used.insert(kv.wg[d]);
    }
    std::map<int, const LoopBinding*> bound;  // it_var -> its binding
    for (const LoopBinding& b : a.loops)
      if (b.it_var >= 0) {
        if (!bound.emplace(b.it_var, &b).second) return std::nullopt;
        used.insert(b.it_var);
      }
    // The values of each variable, and the interval box for IrValue.
    std::vector<int> vars;
    std::vector<std::vector<uint32_t>> values;
    std::vector<uint32_t> env(pool_.num_vars(), 0);
    int64_t points = 1;
    for (int var : used) {
      const VarInfo& vi = pool_.var(var);
      if (vi.lo == vi.hi) {
        env[var] = static_cast<uint32_t>(vi.lo);
        continue;
      }
      if (vi.kind != VarKind::kTid && vi.kind != VarKind::kWg && vi.kind != VarKind::kLoopIter) return std::nullopt;
      std::vector<uint32_t> vals;
      auto b = bound.find(var);
      const int64_t n = b == bound.end() ? vi.hi - vi.lo + 1 : BindingCount(*b->second, vi.hi);
      if (n <= 0 || n > opts_.max_exhaustive_points / points) return std::nullopt;
      points *= n;
      for (int64_t t = 0; t < n; ++t)
        vals.push_back(static_cast<uint32_t>(b == bound.end() ? vi.lo + t : b->second->first + b->second->unroll * t));
      vars.push_back(var);
      values.push_back(std::move(vals));
    }
    {
      // No int64 overflow in IrValue or in Obligations' byte offsets.
      BoundW iw;
      std::vector<IdxBound> itid, iwg;
      for (int d = 0; d < 3; ++d) {
        itid.push_back(MakeBound(pool_.var(kv.tid[d]).lo, pool_.var(kv.tid[d]).hi, true));
        iwg.push_back(MakeBound(pool_.var(kv.wg[d]).lo, pool_.var(kv.wg[d]).hi, true));
      }
      std::map<std::string, IdxBound> ilv;
      for (const LoopBinding& b : a.loops) {
        const int64_t n = b.it_var < 0 ? 1 : BindingCount(b, pool_.var(b.it_var).hi);
        ilv.emplace(b.name, iw.C(b.lo) + iw.C(b.step) * MakeBound(0, std::max<int64_t>(n - 1, 0), true));
      }
      std::vector<std::vector<IdxBound>> iidx;
      if (!IrIndices(iw, a, itid, iwg, ilv, &iidx).ok()) return std::nullopt;
      const __int128 cap = static_cast<__int128>(1) << 60;
      for (const std::vector<IdxBound>& e : iidx) {
        __int128 bytes = 0;
        for (size_t d = 0; d < e.size(); ++d) {
          if (!e[d].ok || d >= a.shape.strides.size()) return std::nullopt;
          const __int128 m = std::max<__int128>(e[d].hi, -static_cast<__int128>(e[d].lo));
          bytes += m * std::max<__int128>(a.shape.strides[d], -static_cast<__int128>(a.shape.strides[d])) *
                   a.shape.elem_bytes;
          if (bytes > cap) return std::nullopt;
        }
      }
    }
    Evaluation ev;
    std::vector<size_t> odo(vars.size(), 0);
    for (bool more = true; more;) {
      for (size_t i = 0; i < vars.size(); ++i) env[vars[i]] = values[i][odo[i]];
      more = Advance(odo, values);
      ++ev.points;
      absl::StatusOr<std::vector<int>> bad = CheckAt(a, env, c);
      if (!bad.ok()) return std::nullopt;  // the solver's path reports the error
      if (!bad->empty()) {
        ev.env = env;
        ev.bad = *std::move(bad);
        return ev;
      }
    }
    return ev;
  }

  struct Query {
    z3::check_result res = z3::unknown;
    std::string reason_unknown;
    std::vector<std::string> names;      // obligation names
    std::vector<uint32_t> env;           // sat: the model's variable values
    std::vector<std::string> violated_sides;
    bool bitwise_side_violated = false;
    uint64_t resources = 0;              // Z3 resource units used
    Translator::TL acc;
  };

  // The obligations of `a` translated by `tr`, negated, solved.
  // `resource_limit`: this query's Z3 budget (0: VerifyOptions::resource_limit).
  absl::StatusOr<Query> Solve(Translator& tr, const AccessCtx& a, const std::string& what,
                              uint64_t resource_limit = 0) {
    Query q;
    const KernelVars& kv = ex_.vars();
    Z3W w{&ctx_};
    Translator::TL& acc = q.acc;
    AccessValues<Z3W> vals{w.T(true), {w.C(0), w.C(0), w.C(0), w.C(0)}, w.C(0), w.C(0), w.C(0), w.C(0), w.C(0),
                           w.C(0), w.C(0), w.C(0), {}};
    vals.exec = tr.NonZero(a.exec, &acc);
    if (a.shape.global) {
      // The 64-bit base and offset as exact unsigned integers: no wrap at 2^32 or 2^64.
      vals.gbase = tr.Exact(a.ghi, &acc) * w.C(int64_t{1} << 32) + tr.Exact(a.glo, &acc);
      if (a.saddr) vals.gvoffset = tr.Exact(a.gvoffset, &acc);
      vals.arg_ptr = tr.VarExpr(a.arg_hi) * w.C(int64_t{1} << 32) + tr.VarExpr(a.arg_lo);
    } else if (!a.shape.lds) {
      for (int i = 0; i < 4; ++i) vals.w[i] = tr.Exact(a.w[i], &acc);
      vals.soffset = tr.Exact(a.soffset, &acc);
      if (a.shape.offen) vals.voffset = tr.Exact(a.voffset, &acc);
      vals.arg_ptr = tr.VarExpr(a.arg_hi) * w.C(int64_t{1} << 32) + tr.VarExpr(a.arg_lo);
    } else {
      vals.vaddr = tr.Exact(a.vaddr, &acc);
      vals.lds_addr = tr.Exact(a.lds_addr, &acc);
      if (a.lane.valid()) vals.lane = tr.Exact(a.lane, &acc);
    }
    std::vector<z3::expr> tid, wg;
    for (int d = 0; d < 3; ++d) {
      tid.push_back(tr.VarExpr(kv.tid[d]));
      wg.push_back(tr.VarExpr(kv.wg[d]));
    }
    std::map<std::string, z3::expr> lv;
    z3::expr_vector domain(ctx_);  // the machine iterations each binding covers
    for (const LoopBinding& b : a.loops) {
      if (b.it_var < 0) {
        lv.emplace(b.name, w.C(b.lo));
        continue;
      }
      const z3::expr it = tr.VarExpr(b.it_var);
      if (b.Whole()) {
        lv.emplace(b.name, w.C(b.lo) + w.C(b.step) * it);
        continue;
      }
      const int64_t count = BindingCount(b, pool_.var(b.it_var).hi);
      domain.push_back(it >= w.C(b.first));
      domain.push_back(it <= w.C(b.first + b.unroll * (count - 1)));
      if (b.unroll > 1) domain.push_back(w.Mod(it - w.C(b.first), b.unroll) == 0);
      lv.emplace(b.name, w.C(b.lo) + w.C(b.step) * w.Div(it - w.C(b.first), b.unroll));
    }
    absl::Status st = IrIndices(w, a, tid, wg, lv, &vals.idx);
    if (!st.ok()) return st;
    {
      // The same indices as canonical forms, sharing atoms with the machine
      // code's values (a KIR floordiv and the magic division of its dividend
      // are one atom); plain Z3 div/mod when a form cannot be exact.
      IdxW iw{&tr};
      std::vector<IdxVal> itid, iwg;
      for (int d = 0; d < 3; ++d) {
        itid.push_back(IdxVal{&tr, tr.IdxVar(kv.tid[d])});
        iwg.push_back(IdxVal{&tr, tr.IdxVar(kv.wg[d])});
      }
      std::map<std::string, IdxVal> ilv;
      for (const LoopBinding& b : a.loops) {
        if (b.it_var < 0) {
          ilv.emplace(b.name, iw.C(b.lo));
          continue;
        }
        IdxVal n{&tr, tr.IdxVar(b.it_var)};
        if (!b.Whole()) n = IdxVal{&tr, tr.IdxDiv((n - iw.C(b.first)).v, b.unroll)};
        ilv.emplace(b.name, iw.C(b.lo) + iw.C(b.step) * n);
      }
      std::vector<std::vector<IdxVal>> iidx;
      bool ok = IrIndices(iw, a, itid, iwg, ilv, &iidx).ok();
      for (const auto& e : iidx)
        for (const IdxVal& x : e) ok &= x.v.ok;
      if (ok)
        for (size_t e = 0; e < iidx.size(); ++e)
          for (size_t d = 0; d < iidx[e].size(); ++d) vals.idx[e][d] = tr.IdxExpr(iidx[e][d].v);
    }
    std::vector<Ob<Z3W>> obs = Obligations(w, a.shape, vals);
    for (const Ob<Z3W>& o : obs) q.names.push_back(o.what);
    z3::solver solver(ctx_);
    const SolverBudget budget{resource_limit > 0 ? resource_limit : opts_.resource_limit, opts_.timeout_seconds,
                              watchdog_.get()};
    z3::expr_vector all(ctx_);  // the query's assertions
    z3::expr_vector as = tr.Assumptions(acc);
    for (unsigned i = 0; i < as.size(); ++i) all.push_back(as[i]);
    for (unsigned i = 0; i < domain.size(); ++i) all.push_back(domain[i]);
    // A buffer lies in the 48-bit virtual address space (amdgcn-isa-notes.md
    // section 4: SRD and flat bases are 48 bits): pointer + size <= 2^48.
    if (a.arg_lo >= 0 && !a.shape.lds) all.push_back(vals.arg_ptr + w.C(a.shape.mem_bytes) <= w.C(int64_t{1} << 48));
    z3::expr_vector goal(ctx_);
    for (const Ob<Z3W>& o : obs) goal.push_back(o.holds);
    for (int sid : acc.sides) goal.push_back(tr.sides()[sid].cond);
    all.push_back(!z3::mk_and(goal));
    // Split per work-item x id: a query whose translation names bits of its
    // values (an or/xor/and taken bit by bit, BitwiseLow: an XOR swizzle of
    // chunk indices, v_bitop3_b32) is asked once per value of tid.x (at most
    // kMaxSplitLanes values, tid.x read by the query), each with tid.x fixed,
    // so Z3's preprocessing folds every field of the id to a constant; the
    // values together are the whole domain, so all unsat is the proof and a
    // sat one the model. One budget for all of them: each split gets what the
    // ones before left (a count, as for one query). A 4-wave fp8 K loop's
    // swizzled loads (testdata/foreign/fp8_swizzle_k_loop) ran past the 60 s
    // backstop at 17 M of their 20 M units as one query; split, 9-12 s each
    // on the shared 2-core machine (fresh-user review 21 F2).
    const VarInfo& vx = pool_.var(kv.tid[0]);
    bool split = !acc.defs.empty() && vx.hi > vx.lo && vx.hi - vx.lo < kMaxSplitLanes;
    if (split) {
      const std::string x = tr.VarExpr(kv.tid[0]).to_string();
      bool reads = false;
      for (unsigned i = 0; i < all.size() && !reads; ++i) reads = absl::StrContains(all[i].to_string(), x);
      split = reads;
    }
    if (!split) {
      budget.Apply(ctx_, solver);
      for (unsigned i = 0; i < all.size(); ++i) solver.add(all[i]);
      q.res = budget.Check(solver, &backstop_, what, &q.resources);
      if (q.res == z3::unknown) q.reason_unknown = budget.ReasonUnknown(solver);
    } else {
      q.res = z3::unsat;
      uint64_t used = 0;
      for (int64_t c = vx.lo; c <= vx.hi; ++c) {
        z3::solver s(ctx_);
        SolverBudget b = budget;
        if (budget.resource_limit > 0) {
          if (used >= budget.resource_limit) {
            q.res = z3::unknown;
            q.reason_unknown = absl::StrCat("resource limit: the query's budget of ", budget.resource_limit,
                                            " units ran out (split per tid.x, at tid.x = ", c, ")");
            break;
          }
          b.resource_limit = budget.resource_limit - used;
        }
        b.Apply(ctx_, s);
        for (unsigned i = 0; i < all.size(); ++i) s.add(all[i]);
        s.add(tr.VarExpr(kv.tid[0]) == ctx_.int_val(c));
        uint64_t u = 0;
        z3::check_result r = b.Check(s, &backstop_, what, &u);
        used += u;
        if (r == z3::unsat) continue;
        q.res = r;
        solver = s;
        if (r == z3::unknown) q.reason_unknown = absl::StrCat(b.ReasonUnknown(s), " (split per tid.x, at tid.x = ", c, ")");
        break;
      }
      q.resources = used;
    }
    if (q.res == z3::sat) {
      z3::model m = solver.get_model();
      q.env.assign(pool_.num_vars(), 0);
      for (int v = 0; v < pool_.num_vars(); ++v)  // one-value variables are constants in the query
        if (pool_.var(v).lo == pool_.var(v).hi) q.env[v] = static_cast<uint32_t>(pool_.var(v).lo);
      for (const auto& [var, atom] : tr.var_atoms()) {
        z3::expr val = m.eval(tr.VarExpr(var), true);
        int64_t x = 0;
        if (val.is_numeral_i64(x)) q.env[var] = static_cast<uint32_t>(x);
      }
      for (int sid : acc.sides)
        if (!m.eval(tr.sides()[sid].cond, true).is_true()) {
          q.violated_sides.push_back(tr.sides()[sid].what);
          q.bitwise_side_violated |= tr.sides()[sid].bitwise;
        }
    }
    return q;
  }

  static constexpr int64_t kMaxSplitLanes = 1024;

  // A concrete check of the model's point: the violated obligations.
  std::vector<int> Confirm(const AccessCtx& a, const std::vector<uint32_t>& env) {
    Concrete c;
    c.order = pool_.Closure(a.Roots());
    absl::StatusOr<std::vector<int>> bad = CheckAt(a, env, c);
    return bad.ok() ? *bad : std::vector<int>{};
  }

  // The over-approximated values (VarKind::kAbstract) the access's address depends on.
  std::vector<std::string> AbstractInputs(const AccessCtx& a) {
    std::vector<std::string> abstract;
    std::set<int> seen;
    for (TRef r : a.Roots())
      for (int var : pool_.VarsOf(r))
        if (pool_.var(var).kind == VarKind::kAbstract && seen.insert(var).second)
          abstract.push_back(pool_.var(var).name);
    return abstract;
  }

  // ---- Matching without an access map (VerifyOptions::match_accesses) ----

  // SSA value types, for store widths: loads, consts, zeros, cvts, slices and
  // mfmas carry their type; add/mul/fma that of their first SSA operand (the
  // validator requires the SSA operands to agree); a `for`'s iter_args and
  // results those of its initial operands.
  void CollectValueTypes(const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.kind == OpKind::kFor) {
        for (size_t i = 0; i < op.operands.size(); ++i) {
          auto it = value_types_.find(op.operands[i].name);
          if (op.operands[i].is_arg || it == value_types_.end()) continue;
          if (i < op.iter_args.size()) value_types_[op.iter_args[i]] = it->second;
          if (i < op.results.size()) value_types_[op.results[i]] = it->second;
        }
        CollectValueTypes(op.body);
        continue;
      }
      ValueType t = op.type;
      if (op.kind == OpKind::kAdd || op.kind == OpKind::kMul || op.kind == OpKind::kFma)
        for (const Operand& o : op.operands) {
          auto it = value_types_.find(o.name);
          if (!o.is_arg && it != value_types_.end()) {
            t = it->second;
            break;
          }
        }
      for (const std::string& r : op.results) value_types_[r] = t;
    }
  }

  // Elements a load moves (its type) or a store writes (its value's type).
  int64_t AccessWidth(const Op& op) const {
    if (op.kind != OpKind::kStore) return op.type.width;
    auto it = op.operands.empty() ? value_types_.end() : value_types_.find(op.operands[0].name);
    return it == value_types_.end() ? 0 : it->second.width;
  }

  // The candidate records for address `comp` of instruction `index`: every
  // KIR load or store of the same kind whose element size divides the bytes
  // moved at that address, once per run of consecutive vector elements.
  // What one proved instruction performs: elements of a KIR op in a box of
  // iterations of its loops.
  struct Covered {
    int kir_op;
    std::vector<int> elements;
    std::vector<IterRange> box;
  };

  // What candidate `rec` performs when proved with KIR iterations `box` (per
  // enclosing loop): one entry per iteration offset of its slots
  // (AccessRecord::iter_offsets), the innermost range shifted by it.
  std::vector<Covered> CoveredBy(const AccessRecord& rec, const std::vector<IterRange>& box) const {
    std::map<int, std::vector<int>> by_offset;
    for (size_t j = 0; j < rec.elements.size(); ++j)
      by_offset[j < rec.iter_offsets.size() ? rec.iter_offsets[j] : 0].push_back(rec.elements[j]);
    std::vector<Covered> out;
    for (auto& [off, elems] : by_offset) {
      Covered c{rec.kir_op, elems, box};
      if (off != 0 && !c.box.empty()) {
        c.box.back().from += off;
        c.box.back().to += off;
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  std::vector<AccessRecord> Candidates(int index, int comp) {
    const MInst& mi = lk_.mir.insts[index];
    const MemShape ms = MemoryShape(mi.opc);
    std::vector<AccessRecord> out;
    if (ms.comps == 0) return out;
    const int64_t bytes = int64_t{ms.comps} / ms.addrs * ms.bytes;
    if (Info(mi.opc).flags & kLdsDma) {
      // An LDS DMA performs KIR lds_dma ops only: side 0 its buffer read,
      // side 1 its LDS write (MatchAndVerify's `comp`), all 16 bytes.
      for (size_t k = 0; k < ops_.size(); ++k) {
        const Op& op = *ops_[k];
        if (op.kind != OpKind::kLdsDma) continue;
        const std::string& mem = comp == 1 ? op.lds : op.mem;
        const LdsAlloc* l = comp == 1 ? k_.FindLds(mem) : nullptr;
        const Arg* arg = comp == 1 ? nullptr : k_.FindArg(mem);
        if (comp == 1 ? l == nullptr : arg == nullptr || arg->kind != Arg::Kind::kBuffer) continue;
        const int64_t eb = ElemBytes(l != nullptr ? l->elem : arg->elem);
        if (eb <= 0 || bytes % eb != 0 || bytes / eb != AccessWidth(op)) continue;
        AccessRecord r;
        r.inst_id = mi.id;
        r.kir_op = static_cast<int>(k);
        r.mem = mem;
        r.is_lds = r.is_store = comp == 1;
        r.element_bytes = eb;
        for (int64_t e = 0; e < bytes / eb; ++e) r.elements.push_back(static_cast<int>(e));
        out.push_back(std::move(r));
      }
      return out;
    }
    for (size_t k = 0; k < ops_.size(); ++k) {
      const Op& op = *ops_[k];
      if (op.kind != (ms.store ? OpKind::kStore : OpKind::kLoad)) continue;
      const LdsAlloc* l = k_.FindLds(op.mem);
      const Arg* arg = k_.FindArg(op.mem);
      if ((l != nullptr) != ms.lds || (l == nullptr && (arg == nullptr || arg->kind != Arg::Kind::kBuffer))) continue;
      const int64_t eb = ElemBytes(l != nullptr ? l->elem : arg->elem);
      if (eb <= 0 || bytes % eb != 0) continue;
      const int64_t n = bytes / eb;
      const int64_t width = AccessWidth(op);
      auto record = [&]() {
        AccessRecord r;
        r.inst_id = mi.id;
        r.component = ms.addrs == 2 ? comp : -1;
        r.kir_op = static_cast<int>(k);
        r.mem = op.mem;
        r.is_lds = ms.lds;
        r.is_store = ms.store;
        r.guarded = op.guarded;
        r.element_bytes = eb;
        return r;
      };
      for (int64_t e0 = 0; e0 + n <= width; ++e0) {
        AccessRecord r = record();
        for (int64_t e = e0; e < e0 + n; ++e) r.elements.push_back(static_cast<int>(e));
        out.push_back(std::move(r));
      }
      // A vector of m = n / width whole accesses of consecutive iterations of
      // the op's innermost loop (2 <= m <= 16): slot j performs element
      // j mod width in iteration i + j / width.
      const int64_t m = width > 0 && n % width == 0 ? n / width : 0;
      if (m >= 2 && m <= 16 && !fors_[k].empty() && KirTrips(*ops_[fors_[k].back()]) >= m) {
        AccessRecord r = record();
        for (int64_t j = 0; j < n; ++j) {
          r.elements.push_back(static_cast<int>(j % width));
          r.iter_offsets.push_back(static_cast<int>(j / width));
        }
        out.push_back(std::move(r));
      }
    }
    return out;
  }

  // Calls f(env) at a few concrete points of `a` until it returns true:
  // settings 0 and 1 of the inputs (InputValue), the first and the last
  // workgroup, the first, second, a middle and the last thread, the first
  // and the last iteration of each enclosing loop. True if f did.
  template <class F>
  bool ForQuickPoints(const AccessCtx& a, const Concrete& c, F f) {
    const KernelVars& kv = ex_.vars();
    std::vector<int> vars;
    for (int id : c.order)
      if (pool_.node(TRef{id}).op == TOp::kVar) vars.push_back(static_cast<int>(pool_.node(TRef{id}).c));
    std::vector<uint32_t> env(pool_.num_vars(), 0);
    const int64_t w0 = k_.workgroup[0], w1 = k_.workgroup[1], threads = w0 * w1 * k_.workgroup[2];
    std::vector<int64_t> tids = {0, 1, threads / 2, threads - 1};
    std::sort(tids.begin(), tids.end());
    tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
    std::vector<std::array<int64_t, 3>> wgs = {{0, 0, 0}, {k_.grid[0] - 1, k_.grid[1] - 1, k_.grid[2] - 1}};
    if (wgs[1] == wgs[0]) wgs.pop_back();
    const size_t nloops = a.loops.size();
    for (int setting = 0; setting < 2; ++setting) {
      for (int var : vars) env[var] = InputValue(var, setting);
      for (uint64_t mask = 0; mask < (uint64_t{1} << std::min<size_t>(nloops, 6)); ++mask) {
        for (size_t l = 0; l < nloops; ++l)
          if (a.loops[l].it_var >= 0) {
            const LoopBinding& b = a.loops[l];
            const int64_t last = std::max<int64_t>(0, BindingCount(b, pool_.var(b.it_var).hi) - 1);
            env[b.it_var] = static_cast<uint32_t>(b.first + b.unroll * ((mask >> l) & 1 ? last : 0));
          }
        for (const auto& g : wgs)
          for (int64_t t : tids) {
            for (int d = 0; d < 3; ++d) env[kv.wg[d]] = static_cast<uint32_t>(g[d]);
            env[kv.tid[0]] = static_cast<uint32_t>(t % w0);
            env[kv.tid[1]] = static_cast<uint32_t>((t / w0) % w1);
            env[kv.tid[2]] = static_cast<uint32_t>(t / (w0 * w1));
            if (f(env)) return true;
          }
      }
    }
    return false;
  }

  // A concrete point at which candidate `a` breaks an obligation: the point
  // and the obligations broken (by position), or nothing. `shared` holds the
  // closure of a's roots, the same for every candidate of one address (made
  // here on first use).
  struct Refutation {
    std::vector<uint32_t> env;
    std::vector<int> bad;
    std::string error;  // the indices could not be evaluated
  };
  std::optional<Refutation> Refute(const AccessCtx& a, Concrete* shared) {
    Concrete& c = *shared;
    if (c.order.empty()) c.order = pool_.Closure(a.Roots());
    std::optional<Refutation> found;
    ForQuickPoints(a, c, [&](const std::vector<uint32_t>& env) {
      absl::StatusOr<std::vector<int>> bad = CheckAt(a, env, c);
      if (bad.ok() && bad->empty()) return false;
      found = Refutation{env, bad.ok() ? *bad : std::vector<int>{}, bad.ok() ? "" : std::string(bad.status().message())};
      return true;
    });
    return found;
  }

  // A refutation as a counterexample text.
  std::string RefutationText(const AccessCtx& a, const Refutation& r) {
    if (!r.error.empty()) return r.error;
    Concrete c;
    c.order = pool_.Closure(a.Roots());
    AccessValues<CW> vals;
    (void)CheckAt(a, r.env, c, &vals);
    std::vector<std::string> names;
    for (const Ob<CW>& o : Obligations(CW{}, a.shape, vals)) names.push_back(o.what);
    return Counterexample(a, r.env, r.bad, names, "at a concrete point");
  }

  // The LDS base that makes candidate `a` (placed at 0) agree at its first
  // concrete point with EXEC on: the emitted address less the KIR byte offset.
  std::optional<int64_t> ProposeLdsBase(const AccessCtx& a, Concrete* shared) {
    Concrete& c = *shared;
    if (c.order.empty()) c.order = pool_.Closure(a.Roots());
    std::optional<int64_t> base;
    ForQuickPoints(a, c, [&](const std::vector<uint32_t>& env) {
      AccessValues<CW> vals;
      absl::StatusOr<std::vector<int>> bad = CheckAt(a, env, c, &vals);
      if (!bad.ok() || !vals.exec || vals.idx.empty()) return false;
      int64_t ir = 0;
      for (size_t d = 0; d < vals.idx[0].size(); ++d) ir += vals.idx[0][d] * a.shape.strides[d];
      base = static_cast<int64_t>(vals.lds_addr) - ir * a.shape.elem_bytes -
             (a.shape.lds_dma ? vals.lane * kLdsDmaLaneBytes : 0);
      return true;
    });
    return base;
  }

  // Places the LDS allocations the ABI does not (VerifyOptions::match_accesses).
  void SolveLdsBases(VerifyResult& res) {
    std::set<std::string> unknown;
    for (const LdsAlloc& l : k_.lds)
      if (lds_base_.count(l.name)) {
        res.lds_layout.push_back(absl::StrCat("LDS '", l.name, "' at byte ", lds_base_[l.name], " (given)"));
      } else {
        unknown.insert(l.name);
      }
    if (unknown.empty()) return;
    // Each DS address proposes (allocation, base) pairs: the bases at which one
    // of its candidates agrees at every quick point.
    std::vector<std::set<std::pair<std::string, int64_t>>> props;
    for (size_t i = 0; i < lk_.mir.insts.size(); ++i) {
      const MInst& mi = lk_.mir.insts[i];
      const MemShape ms = MemoryShape(mi.opc);
      const bool dma = Info(mi.opc).flags & kLdsDma;
      if (!IsMemoryInst(mi) || (!ms.lds && !dma)) continue;
      for (int comp = dma ? 1 : 0; comp < (dma ? 2 : ms.addrs); ++comp) {
        std::set<std::pair<std::string, int64_t>> p;
        Concrete shared;  // every candidate's roots are the instruction's
        for (const AccessRecord& cand : Candidates(static_cast<int>(i), comp)) {
          if (!unknown.count(cand.mem)) continue;
          std::vector<LoopChoice> choices = LoopChoices(static_cast<int>(i), cand);
          for (LoopChoice& pc : PieceChoices(static_cast<int>(i), cand))
            if (pc.count != 1 && pc.first == 0) choices.push_back(std::move(pc));  // unrolled: one residue suffices
          for (const LoopChoice& choice : choices) {
            loop_choice_ = &choice;
            lds_base_[cand.mem] = 0;
            AccessCtx a;
            a.rec = &cand;
            AccessVerdict v = Skeleton(cand);
            std::optional<int64_t> b;
            if (!Prepare(cand, a, v)) b = ProposeLdsBase(a, &shared);
            if (b && *b >= 0) {
              a.shape.lds_offset = *b;
              if (!Refute(a, &shared)) p.insert({cand.mem, *b});
            }
            lds_base_.erase(cand.mem);
          }
          loop_choice_ = nullptr;
        }
        if (!p.empty()) props.push_back(std::move(p));
      }
    }
    // The layout: one proposed base per allocation (in declaration order),
    // the allocations disjoint (given ones included) and inside the group
    // segment, explaining the most DS addresses; among equals, bases rising in
    // declaration order (how compilers place them), then the lowest.
    std::vector<const LdsAlloc*> free_allocs;
    std::vector<std::vector<int64_t>> choices;
    for (const LdsAlloc& l : k_.lds) {
      if (!unknown.count(l.name)) continue;
      std::set<int64_t> bs;
      for (const auto& p : props)
        for (const auto& [m, b] : p)
          if (m == l.name) bs.insert(b);
      if (bs.empty()) {
        res.lds_layout.push_back(absl::StrCat("LDS '", l.name, "': no DS instruction matches an access of it (not placed)"));
        continue;
      }
      free_allocs.push_back(&l);
      choices.emplace_back(bs.begin(), bs.end());
    }
    if (free_allocs.empty()) return;
    // Votes: how many DS addresses propose each (allocation, base).
    std::map<std::pair<std::string, int64_t>, int> votes;
    for (const auto& p : props)
      for (const auto& mb : p) ++votes[mb];
    // Too many combinations to try them all: keep each allocation's most
    // proposed bases (ties: the lowest), as many as keep the product within
    // kMaxLayouts, so that a disjoint layout of well-supported bases is still
    // found (review 5 F8: a double-buffered gemm proposes dozens of bases per
    // tile and the fallback below put two same-shaped tiles at byte 0).
    constexpr double kMaxLayouts = 4096;
    double combos = 1;
    for (const auto& c : choices) combos *= static_cast<double>(c.size());
    if (combos > kMaxLayouts) {
      const size_t keep = std::max<size_t>(
          1, static_cast<size_t>(std::floor(std::pow(kMaxLayouts, 1.0 / static_cast<double>(choices.size())) + 1e-9)));
      combos = 1;
      for (size_t j = 0; j < choices.size(); ++j) {
        std::vector<int64_t>& c = choices[j];
        const std::string& name = free_allocs[j]->name;
        std::stable_sort(c.begin(), c.end(), [&](int64_t x, int64_t y) {
          return votes[{name, x}] > votes[{name, y}];
        });
        if (c.size() > keep) c.resize(keep);
        std::sort(c.begin(), c.end());
        combos *= static_cast<double>(c.size());
      }
    }
    auto explained = [&](const std::map<std::string, int64_t>& layout) {
      int n = 0;
      for (const auto& p : props) {
        bool hit = false;
        for (const auto& [m, b] : p)
          if (auto it = layout.find(m); it != layout.end() && it->second == b) hit = true;
        n += hit;
      }
      return n;
    };
    auto valid = [&](const std::map<std::string, int64_t>& layout) {
      std::vector<std::pair<int64_t, int64_t>> spans;
      for (const LdsAlloc& l : k_.lds)
        if (auto it = layout.find(l.name); it != layout.end()) {
          if (it->second < 0 || it->second + l.SizeBytes() > lk_.abi.lds_bytes) return false;
          spans.push_back({it->second, it->second + l.SizeBytes()});
        }
      std::sort(spans.begin(), spans.end());
      for (size_t i = 1; i < spans.size(); ++i)
        if (spans[i].first < spans[i - 1].second) return false;
      return true;
    };
    std::map<std::string, int64_t> best;
    int best_score = -1, ties = 0;
    bool best_rising = false;
    std::vector<int64_t> best_bases;
    std::vector<std::pair<int, bool>> seen;  // (score, rising) of every valid layout
    if (combos <= 4096) {
      std::vector<size_t> odo(choices.size(), 0);
      for (bool more = true; more;) {
        std::map<std::string, int64_t> layout = lds_base_;
        std::vector<int64_t> bases;
        for (size_t j = 0; j < choices.size(); ++j) {
          layout[free_allocs[j]->name] = choices[j][odo[j]];
          bases.push_back(choices[j][odo[j]]);
        }
        if (valid(layout)) {
          const int score = explained(layout);
          const bool rising = std::is_sorted(bases.begin(), bases.end());
          const bool better = score > best_score || (score == best_score && rising && !best_rising) ||
                              (score == best_score && rising == best_rising && bases < best_bases);
          seen.push_back({score, rising});
          if (better) best = layout, best_score = score, best_rising = rising, best_bases = bases;
        }
        more = Advance(odo, choices);
      }
    }
    ties = static_cast<int>(std::count(seen.begin(), seen.end(), std::make_pair(best_score, best_rising))) - 1;
    if (best_score < 0) {
      ties = 0;
      // No disjoint layout among those tried: each allocation at its most
      // proposed base (the layout check then reports what overlaps).
      best = lds_base_;
      for (size_t j = 0; j < free_allocs.size(); ++j) {
        const std::string& name = free_allocs[j]->name;
        int64_t pick = choices[j].front();
        for (int64_t b : choices[j])
          if (votes[{name, b}] > votes[{name, pick}]) pick = b;
        best[name] = pick;
      }
      best_score = explained(best);
      lds_layout_guessed_ = true;
    }
    // Not every DS address explained, or other layouts as good: the user may
    // have to give the real layout.
    if (ties > 0 || best_score < static_cast<int>(props.size())) lds_layout_guessed_ = true;
    for (const LdsAlloc* l : free_allocs) {
      lds_base_[l->name] = best[l->name];
      solved_lds_.insert(l->name);
      res.lds_layout.push_back(absl::StrCat("LDS '", l->name, "' at byte ", best[l->name], " (solved: the layout explains ",
                                            best_score, " of ", props.size(), " DS addresses",
                                            ties > 0 ? absl::StrCat("; ", ties, " other layout(s) explain as many") : "",
                                            lds_layout_guessed_ ? "; give the real bases with --lds-base=NAME=BYTES,..."
                                                                : "",
                                            ")"));
    }
  }

  // LDS allocations placed: disjoint and inside the group segment.
  void CheckLdsLayout(VerifyResult& res) {
    std::vector<std::pair<int64_t, const LdsAlloc*>> placed;
    for (const LdsAlloc& l : k_.lds)
      if (auto it = lds_base_.find(l.name); it != lds_base_.end()) placed.push_back({it->second, &l});
    std::sort(placed.begin(), placed.end());
    auto fail = [&](std::string why) {
      AccessVerdict v;
      v.inst_text = "(LDS layout)";
      v.op_text = "";
      v.status = AccessVerdict::Status::kFailed;
      v.reason = std::move(why);
      res.accesses.push_back(std::move(v));
    };
    for (size_t i = 0; i < placed.size(); ++i) {
      const auto& [b, l] = placed[i];
      const int64_t end = b + l->SizeBytes();
      if (b < 0 || end > lk_.abi.lds_bytes)
        fail(absl::StrCat("LDS '", l->name, "' at [", b, ", ", end, ") is outside the kernel's ", lk_.abi.lds_bytes,
                          " bytes of LDS (group_segment_fixed_size)"));
      if (i + 1 < placed.size() && placed[i + 1].first < end)
        fail(absl::StrCat("LDS '", l->name, "' at [", b, ", ", end, ") overlaps '", placed[i + 1].second->name,
                          "' at byte ", placed[i + 1].first,
                          solved_lds_.count(l->name) || solved_lds_.count(placed[i + 1].second->name)
                              ? " (a solved base: no disjoint layout explains the DS addresses; give the real "
                                "bases with --lds-base=NAME=BYTES,...)"
                              : ""));
    }
  }

  // The ways instruction `index` may perform the iterations of `rec`'s KIR
  // loops (outermost first), for Prepare: each machine loop around the
  // instruction is bound, in order, to one KIR loop, its iteration it being
  // KIR iteration it + c for c = 0 .. (KIR trips - machine trips) (first
  // iterations peeled; at most 3 shifts: 0, 1 and the largest); each KIR
  // loop left over is one constant iteration (a peeled one: the first two and
  // the last two). The exact binding (c = 0, every loop bound) comes first.
  // At most 64 choices.
  std::vector<LoopChoice> LoopChoices(int index, const AccessRecord& rec) {
    const std::vector<int>& kf = fors_[rec.kir_op];
    std::vector<const MachineLoop*> ml = MachineLoopsAround(index);
    std::vector<LoopChoice> out;
    std::vector<int64_t> cur, curs;
    std::function<void(size_t, size_t)> rec_fn = [&](size_t i, size_t next) {
      if (out.size() >= 96) return;
      if (i == kf.size()) {
        if (next == ml.size()) out.push_back(LoopChoice{cur, curs});
        return;
      }
      const int64_t kt = KirTrips(*ops_[kf[i]]);
      if (next < ml.size() && ml[next]->trips > 0 && kt >= ml[next]->trips) {
        std::set<int64_t> shifts = {0, std::min<int64_t>(1, kt - ml[next]->trips), kt - ml[next]->trips};
        for (int64_t c : shifts) {
          cur.push_back(c);
          curs.push_back(1);
          rec_fn(i + 1, next + 1);
          cur.pop_back();
          curs.pop_back();
        }
        // The machine loop unrolled by u = kt / T relative to the KIR loop:
        // copy c of its body performs KIR iterations c, c + u, ... (u <= 16).
        const int64_t u = kt / ml[next]->trips;
        if (u > 1 && u <= 16 && kt % ml[next]->trips == 0)
          for (int64_t c = 0; c < u; ++c) {
            cur.push_back(c);
            curs.push_back(u);
            rec_fn(i + 1, next + 1);
            cur.pop_back();
            curs.pop_back();
          }
      }
      if (kf.size() - i > ml.size() - next && kt > 0) {
        // One constant iteration: a peeled one (the first two, the last two),
        // or any, when the loop is short enough for a compiler to unroll it
        // fully into straight-line copies (kt <= 32).
        std::set<int64_t> js = {0, std::min<int64_t>(1, kt - 1), std::max<int64_t>(0, kt - 2), kt - 1};
        if (kt <= 32)
          for (int64_t j = 0; j < kt; ++j) js.insert(j);
        for (int64_t j : js) {
          cur.push_back(-1 - j);
          curs.push_back(1);
          rec_fn(i + 1, next);
          cur.pop_back();
          curs.pop_back();
        }
      }
    };
    rec_fn(0, 0);
    return out;
  }

  // The machine loops around instruction `index`, outermost first.
  std::vector<const MachineLoop*> MachineLoopsAround(int index) const {
    std::vector<const MachineLoop*> ml;
    for (const auto& [label, m] : ex_.loops())
      if (m.label_index < index && index < m.latch_index) ml.push_back(&m);
    std::sort(ml.begin(), ml.end(), [](const MachineLoop* x, const MachineLoop* y) { return x->depth < y->depth; });
    return ml;
  }

  // Pieces (LoopChoice::Piece) for an instruction inside machine loops whose
  // innermost loop no single binding explains (MatchOne's second round):
  // the outer machine loops bound exactly to the outer KIR loops; the
  // innermost KIR loop (trips kt) bound to the innermost machine loop (trips
  // T) unrolled by u = 2 .. 4 (and T / kt), machine iteration r + u * n
  // performing KIR iteration n (r < 2u, first iterations of the KIR loop
  // kept: c = 0); then, for each machine iteration in `left` (at most 8),
  // that one iteration performing the access of a KIR op outside the
  // innermost KIR loop, or of a constant (peeled) KIR iteration 0, 1, kt-2
  // or kt-1. Unrolled pieces come first.
  std::vector<LoopChoice> PieceChoices(int index, const AccessRecord& rec, const std::vector<int64_t>& left = {}) {
    const std::vector<int>& kf = fors_[rec.kir_op];
    std::vector<const MachineLoop*> ml = MachineLoopsAround(index);
    std::vector<LoopChoice> out;
    if (ml.empty() || ml.back()->trips < 2) return out;
    const int64_t T = ml.back()->trips;
    const size_t outer = ml.size() - 1;
    if (kf.size() < outer) return out;
    // The outer machine loops bind the outermost KIR loops exactly.
    LoopChoice base;
    for (size_t i = 0; i < outer; ++i) {
      if (KirTrips(*ops_[kf[i]]) != ml[i]->trips) return out;
      base.kir.push_back(0);
    }
    if (kf.size() == outer + 1) {
      const int64_t kt = KirTrips(*ops_[kf.back()]);
      if (kt > 0 && kt < T) {
        std::set<int64_t> us = {2, 3, 4, T / kt};
        for (int64_t u : us) {
          if (u < 2 || u > T) continue;
          // first in [0, 2u): the first machine iterations may perform
          // accesses outside the KIR loop (its prologue's).
          for (int64_t r = 0; r < 2 * u && r < T; ++r) {
            LoopChoice c = base;
            c.kir.push_back(0);
            c.first = r;
            c.unroll = u;
            c.count = std::min(kt, (T - 1 - r) / u + 1);
            out.push_back(std::move(c));
          }
        }
      }
    }
    for (size_t l = 0; l < left.size() && l < 8; ++l) {
      if (kf.size() == outer) {
        LoopChoice c = base;
        c.first = left[l];
        c.count = 1;
        out.push_back(std::move(c));
      } else if (kf.size() == outer + 1) {
        const int64_t kt = KirTrips(*ops_[kf.back()]);
        if (kt <= 0) continue;
        for (int64_t j : std::set<int64_t>{0, std::min<int64_t>(1, kt - 1), std::max<int64_t>(0, kt - 2), kt - 1}) {
          LoopChoice c = base;
          c.kir.push_back(-1 - j);
          c.first = left[l];
          c.count = 1;
          out.push_back(std::move(c));
        }
      }
    }
    return out;
  }

  // Finds and verifies the KIR access of address `comp` of instruction
  // `index`: one verdict, or, when pieces of its innermost machine loop's
  // iterations match different accesses (PieceChoices), one per piece.
  std::vector<AccessVerdict> MatchOne(int index, int comp) {
    const MInst& mi = lk_.mir.insts[index];
    const MemShape ms = MemoryShape(mi.opc);
    AccessVerdict none;
    none.inst_id = mi.id;
    none.component = ms.addrs == 2 ? comp : -1;
    if (Info(mi.opc).flags & kLdsDma) none.side = comp == 1 ? "LDS" : "global";
    none.inst_text = InstructionText(t_, mi);
    none.op_text = "(matches no KIR access)";
    if (ms.comps == 0) return {Unknown(none, absl::StrCat(Info(mi.opc).mnemonic, " is not modelled by the verifier"))};
    if (Info(mi.opc).flags & kFlatAddr) return {Unknown(none, UnplacedFlat(mi))};
    if ((Info(mi.opc).flags & kLdsDma) && comp == 1) return MatchDmaLds(index, none);
    const int64_t bytes = int64_t{ms.comps} / ms.addrs * ms.bytes;
    std::vector<AccessRecord> cands = Candidates(index, comp);
    if (cands.empty())
      return {Fail(none, absl::StrCat("matches no KIR access: the kernel has no ", ms.store ? "store to " : "load from ",
                                     ms.lds ? "LDS" : "a buffer", " whose element size divides the ", bytes, " bytes ",
                                     Info(mi.opc).mnemonic, " moves", ms.addrs == 2 ? " at each address" : "",
                                     " within its vector"))};
    std::optional<AccessVerdict> unknown, failed;
    // The refutation breaking the fewest obligations, and its candidate.
    std::optional<Refutation> closest;
    AccessCtx closest_ctx;
    std::string closest_op;
    int refuted = 0, variants = 0;  // candidates with their loop bindings
    Concrete shared;  // every candidate's roots are the instruction's
    // One candidate with one loop binding: its verdict, or none when refuted
    // at a concrete point, or (with `defer`) when an earlier instruction
    // already performs the same elements in these iterations: then it is
    // kept for after the others (a compiler's straight-line copies of one
    // address, e.g. the same LDS slot stored every K tile, each perform
    // another iteration).
    std::vector<std::pair<const AccessRecord*, LoopChoice>> deferred;
    auto attempt = [&](const AccessRecord& cand, const LoopChoice& choice,
                       bool defer = false) -> std::optional<AccessVerdict> {
      loop_choice_ = &choice;
      ++variants;
      AccessCtx a;
      a.rec = &cand;
      AccessVerdict v = Skeleton(cand);
      if (Prepare(cand, a, v)) {
        ++refuted;
        loop_choice_ = nullptr;
        return std::nullopt;
      }
      // A store the KIR makes once must not be performed twice: a candidate
      // store some of whose elements and iterations an earlier instruction
      // already performs is no match (a second store of one address is
      // another program's).
      const std::vector<Covered> mine = CoveredBy(cand, box_);
      if (ops_[cand.kir_op]->kind == OpKind::kStore &&
          std::any_of(covered_.begin(), covered_.end(), [&](const Covered& c) {
            return std::any_of(mine.begin(), mine.end(), [&](const Covered& p) {
              if (c.kir_op != p.kir_op || c.box.size() != p.box.size()) return false;
              bool meet = false;
              for (int e : p.elements) meet |= std::find(c.elements.begin(), c.elements.end(), e) != c.elements.end();
              for (size_t d = 0; d < p.box.size() && meet; ++d) meet = RangesMeet(p.box[d], c.box[d]);
              return meet;
            });
          })) {
        ++refuted;
        loop_choice_ = nullptr;
        return std::nullopt;
      }
      if (defer && std::all_of(mine.begin(), mine.end(), [&](const Covered& p) {
            return std::any_of(covered_.begin(), covered_.end(), [&](const Covered& c) {
              if (c.kir_op != p.kir_op || c.elements != p.elements || c.box.size() != p.box.size()) return false;
              for (size_t d = 0; d < p.box.size(); ++d)
                if (!RangeWithin(p.box[d], c.box[d])) return false;
              return true;
            });
          })) {
        --variants;
        deferred.push_back({&cand, choice});
        loop_choice_ = nullptr;
        return std::nullopt;
      }
      if (std::optional<Refutation> r = Refute(a, &shared)) {
        ++refuted;
        const size_t nbad = r->error.empty() ? r->bad.size() : 1000;
        if (!closest || nbad < (closest->error.empty() ? closest->bad.size() : 1000)) {
          closest = std::move(r);
          closest_ctx = a;
          closest_op = absl::StrCat("op ", cand.kir_op, " (", v.op_text, ") elements ", cand.elements.front(), "..",
                                    cand.elements.back());
        }
        loop_choice_ = nullptr;
        return std::nullopt;
      }
      match_records_.push_back(cand);
      AccessVerdict r = VerifyOne(match_records_.back());
      loop_choice_ = nullptr;
      if (r.status == AccessVerdict::Status::kProved) covered_.insert(covered_.end(), mine.begin(), mine.end());
      // An LDS DMA's buffer read: its LDS write must match the same KIR op
      // in the same iterations (MatchDmaLds).
      if (r.status == AccessVerdict::Status::kProved && (Info(mi.opc).flags & kLdsDma) && !cand.is_lds)
        dma_bound_[index].push_back({cand.kir_op, choice});
      if (r.status == AccessVerdict::Status::kUnknown && !unknown) unknown = r;
      if (r.status == AccessVerdict::Status::kFailed && !failed) failed = r;
      return r;
    };
    // Every candidate with its loop bindings; the exact ones (each KIR loop a
    // machine loop, no shift) first, so a peeled binding of one op never
    // takes an instruction another op performs exactly.
    std::vector<std::pair<const AccessRecord*, LoopChoice>> tries;
    for (const AccessRecord& cand : cands)
      for (LoopChoice& choice : LoopChoices(index, cand)) tries.push_back({&cand, std::move(choice)});
    std::stable_partition(tries.begin(), tries.end(), [](const auto& t) { return t.second.Exact(); });
    for (const auto& [cand_ptr, choice] : tries) {
      std::optional<AccessVerdict> r = attempt(*cand_ptr, choice, /*defer=*/true);
      if (r && (r->status == AccessVerdict::Status::kProved || backstop_.fired())) return {*r};
    }
    for (const auto& [cand_ptr, choice] : std::vector<std::pair<const AccessRecord*, LoopChoice>>(std::move(deferred))) {
      std::optional<AccessVerdict> r = attempt(*cand_ptr, choice);
      if (r && (r->status == AccessVerdict::Status::kProved || backstop_.fired())) return {*r};
    }
    // Second round: pieces of the innermost machine loop's iterations, each
    // proved for its own access (a loop unrolled relative to the KIR, with
    // peeled KIR iterations in its last or first iterations).
    std::string pieces_note;
    const std::vector<const MachineLoop*> ml = MachineLoopsAround(index);
    if (!ml.empty() && ml.back()->trips >= 2 && ml.back()->trips <= 4096) {
      const MachineLoop& inner = *ml.back();
      std::vector<bool> open(static_cast<size_t>(inner.trips), true);
      int64_t left_count = inner.trips;
      std::vector<AccessVerdict> pieces;
      for (int round = 0; round < 2 && left_count > 0; ++round) {
        std::vector<int64_t> left;
        if (round == 1)
          for (int64_t it = 0; it < inner.trips; ++it)
            if (open[static_cast<size_t>(it)]) left.push_back(it);
        // Pieces repeating what an earlier instruction performs go last (pass 1).
        for (int pass = 0; pass < 2 && left_count > 0; ++pass) {
          for (const AccessRecord& cand : cands) {
            for (const LoopChoice& pc : PieceChoices(index, cand, left)) {
              if ((pc.count == 1) != (round == 1) || left_count == 0) continue;
              // Pieces partition the iterations: each performs one access.
              bool fits = true;
              for (int64_t n = 0; n < pc.count && fits; ++n) fits = open[static_cast<size_t>(pc.first + pc.unroll * n)];
              if (!fits) continue;
              std::optional<AccessVerdict> r = attempt(cand, pc, /*defer=*/pass == 0);
              if (backstop_.fired()) return {r ? *r : none};
              if (!r || r->status != AccessVerdict::Status::kProved) continue;
              for (int64_t n = 0; n < pc.count; ++n) {
                const size_t it = static_cast<size_t>(pc.first + pc.unroll * n);
                left_count -= open[it];
                open[it] = false;
              }
              const int64_t last = pc.first + pc.unroll * (pc.count - 1);
              r->iterations = pc.count == 1 ? absl::StrCat("iteration ", pc.first)
                                            : absl::StrCat("iterations ", pc.first, ", ", pc.first + pc.unroll, ", .., ",
                                                           last);
              absl::StrAppend(&r->iterations, " of the loop at ", InstName(inner.label_index));
              pieces.push_back(std::move(*r));
            }
          }
        }
      }
      if (left_count == 0) return pieces;
      if (!pieces.empty()) {
        int64_t first_open = 0;
        while (!open[static_cast<size_t>(first_open)]) ++first_open;
        pieces_note = absl::StrCat("; split by iterations of the loop at ", InstName(inner.label_index), ", ",
                                   inner.trips - left_count, " of its ", inner.trips,
                                   " iterations match KIR accesses, iteration ", first_open, " none");
      }
    }
    loop_choice_ = nullptr;
    // An undecided candidate might be the match: no verdict then.
    // Undecided: running the code may still show a byte no KIR access of the
    // thread touches (a confirmed counterexample).
    auto stray = [&](const std::string& why) -> std::optional<AccessVerdict> {
      std::optional<std::string> ce = StrayTouch(index, why);
      if (!ce) return std::nullopt;
      AccessVerdict f = Fail(none, absl::StrCat("matches no KIR access: running the code, it ",
                                                ms.store ? "stores" : "loads", " bytes no KIR ",
                                                ms.store ? "store" : "load", " of its thread accesses in any iteration",
                                                pieces_note));
      f.counterexample = *ce;
      return f;
    };
    if (unknown) {
      if (std::optional<AccessVerdict> f = stray("no candidate is proved or refuted symbolically")) return {*f};
      unknown->reason = absl::StrCat("no KIR access is proved", pieces_note, "; this candidate is undecided: ",
                                     unknown->reason);
      unknown->iterations.clear();
      return {*unknown};
    }
    if (failed) {
      failed->reason = absl::StrCat("matches no KIR access (", variants, " candidate(s), ", refuted,
                                    " refuted at concrete points)", pieces_note, "; the closest, verified:\n",
                                    failed->reason);
      failed->iterations.clear();
      return {*failed};
    }
    if (closest) {
      // A refutation that rests on an over-approximated value proves nothing.
      const std::vector<std::string> abstract = AbstractInputs(closest_ctx);
      if (!abstract.empty()) {
        if (std::optional<AccessVerdict> f = stray(absl::StrCat("the verifier over-approximates ",
                                                                absl::StrJoin(abstract, "; "))))
          return {*f};
        return {Unknown(none, absl::StrCat("no KIR access is proved", pieces_note,
                                           ": the address depends on values the verifier over-approximates (",
                                           absl::StrJoin(abstract, "; "),
                                           "), so the concrete refutations of the candidates are not conclusive"))};
      }
    }
    AccessVerdict f = Fail(none, absl::StrCat("matches no KIR access: each of the ", variants,
                                              " candidate(s) is refuted at a concrete point", pieces_note,
                                              closest ? absl::StrCat("; the closest, ", closest_op, ":") : ""));
    if (closest) f.counterexample = RefutationText(closest_ctx, *closest);
    return {f};
  }

  // An LDS DMA's LDS write (side 1), matched after its buffer read (side 0):
  // the DMA copies each lane's vector of one KIR lds_dma iteration, so its
  // write must be that op's LDS side in the same iterations, with the same
  // loop binding (each piece's) as the read's proof; matched on its own, a
  // write of another iteration's slot (M0 not updated per iteration) would
  // prove for a peeled iteration. No proved read: no iteration to check.
  std::vector<AccessVerdict> MatchDmaLds(int index, const AccessVerdict& none) {
    auto g = dma_global_.find(index);
    auto b = dma_bound_.find(index);
    const bool read_proved =
        g != dma_global_.end() && !g->second.empty() &&
        std::all_of(g->second.begin(), g->second.end(),
                    [](const AccessVerdict& x) { return x.status == AccessVerdict::Status::kProved; }) &&
        b != dma_bound_.end() && b->second.size() == g->second.size();
    if (!read_proved)
      return {Unknown(none, "its global-memory read (the global side) is not proved to perform a KIR lds_dma, so no KIR "
                            "op and iteration says where its LDS write may go")};
    const std::vector<AccessRecord> cands = Candidates(index, 1);
    std::vector<AccessVerdict> out;
    for (size_t i = 0; i < b->second.size(); ++i) {
      const int kir_op = b->second[i].first;
      const LoopChoice& choice = b->second[i].second;
      const AccessRecord* cand = nullptr;
      for (const AccessRecord& c : cands)
        if (c.kir_op == kir_op) cand = &c;
      if (cand == nullptr) {
        out.push_back(Fail(none, absl::StrCat("KIR op ", kir_op, "'s LDS side is not 16 bytes of an LDS allocation")));
        continue;
      }
      match_records_.push_back(*cand);
      loop_choice_ = &choice;
      AccessVerdict r = VerifyOne(match_records_.back());
      loop_choice_ = nullptr;
      r.iterations = g->second[i].iterations;
      out.push_back(std::move(r));
      if (backstop_.fired()) break;
    }
    return out;
  }

  // Matching: every element of every KIR load and store, in every iteration
  // of its loops, must be performed by a proved instruction (a load may be
  // performed by another load of the same buffer, indices and element: a
  // compiler loads a repeated address once; in the same loops, or in any
  // loops when the indices use no loop variable, e.g. an LDS fragment read
  // every iteration and in the peeled ones). Coverage is about addresses:
  // whether a value loaded once is still current is the emulator's data
  // check. The first gap of each op is a failed "(coverage)" entry; an op
  // whose iterations are too many to enumerate (over 2^22) is `unknown`.
  // Whether element `e` of guarded access `op`, with its loop variables at
  // `lv`, lies outside the accessed buffer's or LDS allocation's shape for
  // every work-item and workgroup: some index's bounds (IrValue in BoundW
  // over all tid and wg values) lie wholly outside its extent.
  bool NeverInShape(const Op& op, int64_t e, const std::map<std::string, int64_t>& lv) {
    std::vector<int64_t> shape;
    if (const Arg* arg = k_.FindArg(op.mem); arg != nullptr && arg->kind == Arg::Kind::kBuffer) shape = arg->shape;
    else if (const LdsAlloc* l = k_.FindLds(op.mem); l != nullptr) shape = l->shape;
    if (shape.size() != op.index.size()) return false;
    BoundW iw;
    std::vector<IdxBound> itid, iwg;
    for (int d = 0; d < 3; ++d) {
      itid.push_back(MakeBound(0, std::max<int64_t>(k_.workgroup[d], 1) - 1, true));
      iwg.push_back(MakeBound(0, std::max<int64_t>(k_.grid[d], 1) - 1, true));
    }
    std::map<std::string, IdxBound> ilv;
    for (const auto& [name, v] : lv) ilv.emplace(name, iw.C(v));
    const int along = op.along >= 0 ? op.along : static_cast<int>(op.index.size()) - 1;
    for (size_t d = 0; d < op.index.size(); ++d) {
      absl::StatusOr<IdxBound> x = IrValue(iw, *op.index[d], k_, itid, iwg, ilv);
      if (!x.ok() || !x->ok) continue;
      const int64_t shift = static_cast<int>(d) == along ? e : 0;
      if (x->hi + shift < 0 || x->lo + shift >= shape[d]) return true;
    }
    return false;
  }

  void CheckCoverage(VerifyResult& res) {
    auto invariant = [&](int k) {
      for (const IndexRef& x : ops_[k]->index)
        if (absl::StrContains(IndexToString(*x), "%")) return false;
      return true;
    };
    auto key = [&](int k) {
      const Op& op = *ops_[k];
      std::string s = absl::StrCat(op.kind == OpKind::kStore ? "store " : op.kind == OpKind::kLdsDma ? "lds_dma " : "load ",
                                   op.mem, "[");
      for (const IndexRef& x : op.index) absl::StrAppend(&s, IndexToString(*x), ",");
      absl::StrAppend(&s, "] ", op.along);
      if (op.kind == OpKind::kLoad && invariant(k)) return s;
      for (int f : fors_[k]) absl::StrAppend(&s, " ", f);
      return s;
    };
    for (size_t k = 0; k < ops_.size(); ++k) {
      const Op& op = *ops_[k];
      if (op.kind != OpKind::kLoad && op.kind != OpKind::kStore && op.kind != OpKind::kLdsDma) continue;
      const int64_t width = AccessWidth(op);
      // Iterations of the op's loops, at most 2^22 (else -1: not enumerated).
      std::vector<int64_t> trips;
      int64_t total = 1;
      for (int f : fors_[k]) {
        trips.push_back(KirTrips(*ops_[f]));
        if (trips.back() < 0 || total > (int64_t{1} << 22) / trips.back()) {
          total = -1;
          break;
        }
        total *= trips.back();
      }
      AccessVerdict v;
      v.kir_op = static_cast<int>(k);
      v.op_text = k < lk_.kir_op_text.size() ? lk_.kir_op_text[k] : "";
      v.inst_text = "(coverage)";
      if (total < 0) {
        res.accesses.push_back(Unknown(v, "coverage not checked: the op's loops have more than 2^22 iterations"));
        continue;
      }
      const std::string mine = op.kind == OpKind::kLoad ? key(static_cast<int>(k)) : "";
      const bool any_iteration = op.kind == OpKind::kLoad && invariant(static_cast<int>(k));
      std::optional<std::string> gap;
      for (int64_t e = 0; e < width && !gap; ++e) {
        if (any_iteration &&
            std::any_of(covered_.begin(), covered_.end(), [&](const Covered& c) {
              return (c.kir_op == static_cast<int>(k) || key(c.kir_op) == mine) &&
                     std::find(c.elements.begin(), c.elements.end(), e) != c.elements.end();
            }))
          continue;
        std::vector<bool> seen(static_cast<size_t>(total), false);
        for (const Covered& c : covered_) {
          if (c.kir_op != static_cast<int>(k) && (mine.empty() || key(c.kir_op) != mine)) continue;
          if (std::find(c.elements.begin(), c.elements.end(), e) == c.elements.end()) continue;
          if (c.box.size() != trips.size()) continue;  // bound by the exact rule (one machine loop per KIR loop)
          std::vector<int64_t> it(trips.size());
          bool empty = false;
          for (size_t d = 0; d < trips.size(); ++d) {
            it[d] = c.box[d].from;
            empty |= c.box[d].Count() == 0;
          }
          if (empty) continue;
          for (bool more = true; more;) {
            int64_t flat = 0;
            for (size_t d = 0; d < trips.size(); ++d) flat = flat * trips[d] + it[d];
            if (flat >= 0 && flat < total) seen[static_cast<size_t>(flat)] = true;
            more = false;
            for (size_t d = trips.size(); d-- > 0;) {
              if ((it[d] += c.box[d].stride) < c.box[d].to) {
                more = true;
                break;
              }
              it[d] = c.box[d].from;
            }
          }
        }
        for (int64_t flat = 0; flat < total && !gap; ++flat)
          if (!seen[static_cast<size_t>(flat)]) {
            std::string where;
            int64_t rest = flat;
            std::vector<std::string> parts;
            std::map<std::string, int64_t> lv;
            for (size_t d = trips.size(); d-- > 0;) {
              const Op& f = *ops_[fors_[k][d]];
              lv[f.ivar] = f.lo + f.step * (rest % trips[d]);
              parts.insert(parts.begin(), absl::StrCat("%", f.ivar, " = ", lv[f.ivar]));
              rest /= trips[d];
            }
            // A guarded element outside the shape for every thread and
            // workgroup in this iteration reads as zero (or is not stored):
            // no instruction performs it (review 5 F6).
            if (op.guarded && NeverInShape(op, e, lv)) continue;
            gap = absl::StrCat("element ", e, parts.empty() ? "" : absl::StrCat(" at ", absl::StrJoin(parts, ", ")),
                               " is ", op.kind == OpKind::kStore ? "stored" : "loaded");
          }
      }
      if (!gap) continue;
      // An undecided (unknown) instruction of the same kind may be the one
      // that performs the access: then the gap is undecided too, since a
      // failed verdict needs a confirmed counterexample.
      const bool lds = k_.FindLds(op.mem) != nullptr;
      std::vector<std::string> undecided;
      bool undecided_smem = false;  // a scalar load: running the code does not record its bytes
      for (const AccessVerdict& a : res.accesses) {
        if (a.status != AccessVerdict::Status::kUnknown || a.inst_id < 0) continue;
        for (const MInst& mi : lk_.mir.insts)
          if (mi.id == a.inst_id &&
              ((IsMemoryInst(mi) && MemoryShape(mi.opc).lds == lds &&
                MemoryShape(mi.opc).store == (op.kind == OpKind::kStore)) ||
               (Info(mi.opc).cls == InstClass::kSmem && !lds && op.kind == OpKind::kLoad))) {
            undecided_smem |= Info(mi.opc).cls == InstClass::kSmem;
            undecided.push_back(a.component >= 0 ? absl::StrCat("[", a.inst_id, ".", a.component, "]")
                                                 : absl::StrCat("[", a.inst_id, "]"));
          }
      }
      std::optional<std::string> untouched;
      if (!undecided.empty() && !lds && !undecided_smem)
        untouched = UntouchedElement(static_cast<int>(k), absl::StrCat(absl::StrJoin(undecided, ", "),
                                                                       " (unknown) might have performed it"));
      if (undecided.empty()) {
        res.accesses.push_back(
            Fail(v, *gap + " by no instruction of the code: the code does not perform this KIR access"));
      } else if (untouched) {
        AccessVerdict f = Fail(v, absl::StrCat(*gap, " by no proved instruction, and running the code, by no "
                                                     "instruction of the code: the code does not perform this KIR access"));
        f.counterexample = *untouched;
        res.accesses.push_back(std::move(f));
      } else
        res.accesses.push_back(Unknown(v, absl::StrCat(*gap, " by no proved instruction; undecided, since ",
                                                       absl::StrJoin(undecided, ", "), " (unknown) may perform it")));
    }
  }

  // Every memory instruction (each address of a DS read2/write2) against the
  // KIR access it matches.
  void MatchAndVerify(const absl::Status& st, VerifyResult& res) {
    CollectValueTypes(k_.body);
    if (st.ok()) SolveLdsBases(res);
    CheckLdsLayout(res);
    for (size_t i = 0; i < lk_.mir.insts.size(); ++i) {
      const MInst& mi = lk_.mir.insts[i];
      if (!IsMemoryInst(mi)) continue;
      const MemShape ms = MemoryShape(mi.opc);
      const bool dma = Info(mi.opc).flags & kLdsDma;  // side 0: its buffer read, 1: its LDS write
      for (int comp = 0; comp < (dma ? 2 : std::max(1, ms.addrs)); ++comp) {
        auto a0 = std::chrono::steady_clock::now();
        std::vector<AccessVerdict> vs(1);
        if (st.ok()) {
          vs = MatchOne(static_cast<int>(i), comp);
          if (dma && comp == 0) dma_global_[static_cast<int>(i)] = vs;
        } else {
          AccessVerdict& v = vs[0];
          v.inst_id = mi.id;
          v.component = ms.addrs == 2 ? comp : -1;
          if (dma) v.side = comp == 1 ? "LDS" : "global";
          v.inst_text = InstructionText(t_, mi);
          v.status = AccessVerdict::Status::kUnknown;
          v.reason = std::string(st.message());
        }
        if (backstop_.fired()) return;
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - a0).count();
        bool failed = false;
        for (AccessVerdict& v : vs) {
          v.seconds = secs / static_cast<double>(vs.size());
          failed |= v.status == AccessVerdict::Status::kFailed;
          res.accesses.push_back(NameSide(std::move(v)));
        }
        if (failed && opts_.stop_at_first_failure) {
          res.stopped_early = true;
          return;
        }
      }
    }
    AddScalarDataLoads(res);
    if (st.ok()) CheckCoverage(res);
  }

  // Scalar loads of memory other than the kernarg segment (SymExec::smem_data:
  // s_load_* through a buffer pointer, a uniform load of buffer data): not
  // matched to KIR accesses nor bounds-checked, so each is `unknown`, never
  // proved (a user review found an s_load 1 MB past a buffer "proved").
  void AddScalarDataLoads(VerifyResult& res) {
    for (int i : ex_.smem_data()) {
      const MInst& mi = lk_.mir.insts[static_cast<size_t>(i)];
      AccessVerdict v;
      v.inst_id = mi.id;
      v.inst_text = InstructionText(t_, mi);
      v.op_text = "(scalar load of memory)";
      res.accesses.push_back(Unknown(v, absl::StrCat(Info(mi.opc).mnemonic, " reads memory other than the kernarg "
                                                     "segment (a uniform load of buffer data): the verifier does "
                                                     "not check scalar loads' addresses or bounds yet")));
    }
  }

  uint64_t FirstLookLimit() const { return opts_.resource_limit / 16; }

  bool DependsOnAbstractValues(const AccessCtx& a) {
    for (TRef r : a.Roots())
      for (int var : pool_.VarsOf(r))
        if (pool_.var(var).kind == VarKind::kAbstract) return true;
    return false;
  }

  // The concrete search (Search); a failed verdict when it finds a point.
  std::optional<AccessVerdict> SearchFails(const AccessCtx& a, AccessVerdict v, const std::vector<std::string>& names,
                                           const std::string& why) {
    std::optional<std::vector<uint32_t>> env = Search(a);
    if (!env) return std::nullopt;
    Concrete c;
    c.order = pool_.Closure(a.Roots());
    absl::StatusOr<std::vector<int>> bad = CheckAt(a, *env, c);
    if (!bad.ok() || bad->empty()) return std::nullopt;
    v.counterexample = Counterexample(a, *env, *bad, names, absl::StrCat("found by concrete search; ", why));
    std::vector<std::string> viol;
    for (int b : *bad) viol.push_back(names[b]);
    return Fail(v, absl::StrJoin(viol, "\n"));
  }

  AccessVerdict VerifyOne(const AccessRecord& rec) {
    AccessVerdict v = Skeleton(rec);
    AccessCtx a;
    a.rec = &rec;
    if (std::optional<AccessVerdict> early = Prepare(rec, a, v)) return *early;
    // A small finite domain: every point evaluated, no solver.
    if (std::optional<Evaluation> ev = ProveByEvaluation(a)) {
      v.points_checked = ev->points;
      if (ev->bad.empty()) {
        v.status = AccessVerdict::Status::kProved;
        return v;
      }
      Concrete c;
      c.order = pool_.Closure(a.Roots());
      AccessValues<CW> vals{};
      (void)CheckAt(a, ev->env, c, &vals);
      std::vector<std::string> names;
      for (const Ob<CW>& o : Obligations(CW{}, a.shape, vals)) names.push_back(o.what);
      v.counterexample =
          Counterexample(a, ev->env, ev->bad, names,
                         absl::StrCat("found by evaluating the points of the query's domain in turn (point ",
                                      ev->points, "), confirmed concretely"));
      std::vector<std::string> viol;
      for (int b : ev->bad) viol.push_back(names[static_cast<size_t>(b)]);
      return Fail(v, absl::StrJoin(viol, "\n"));
    }
    // A first look with a sixteenth of the budget: valid accesses prove with
    // far less (division_test: at most 1%), while a wrong index can keep the
    // solver searching for a model for its whole budget (minutes) where the
    // concrete search finds one in milliseconds. So the search runs between
    // the first look and the full budget. Both are counts, not time.
    bool searched = false;
    absl::StatusOr<Query> qs = Solve(*tr_, a, AccessName(v), FirstLookLimit());
    if (backstop_.fired()) return v;
    if (qs.ok() && qs->res == z3::unknown && FirstLookLimit() > 0) {
      if (opts_.search_counterexamples && !DependsOnAbstractValues(a)) {
        searched = true;
        if (std::optional<AccessVerdict> f = SearchFails(a, v, qs->names, "the solver's first look could not decide")) return *f;
      }
      const uint64_t first = qs->resources;
      qs = Solve(*tr_, a, AccessName(v));
      if (backstop_.fired()) return v;
      if (qs.ok()) qs->resources += first;
    }
    if (!qs.ok()) return Unknown(v, std::string(qs.status().message()));
    Query& q = *qs;
    v.solver_resources = q.resources;
    const Translator::TL& acc = q.acc;
    const std::vector<std::string>& names = q.names;
    z3::check_result res = q.res;
    if (res == z3::unsat) {
      v.status = AccessVerdict::Status::kProved;
      return v;
    }
    // A counterexample must not rest on an over-approximation (kAbstract).
    const std::vector<std::string> abstract = AbstractInputs(a);
    std::string why;
    if (res == z3::sat && abstract.empty()) {
      std::vector<int> bad = Confirm(a, q.env);
      if (!bad.empty()) {
        v.counterexample = Counterexample(a, q.env, bad, names, "from the solver's model, confirmed concretely");
        std::vector<std::string> viol;
        for (int b : bad) viol.push_back(names[b]);
        return Fail(v, absl::StrJoin(viol, "\n"));
      }
      if (q.bitwise_side_violated) {
        // The model only breaks a sufficient condition for or == add: ask again
        // with or/xor encoded bit by bit, which is exact.
        if (!tr_exact_) {
          tr_exact_ = std::make_unique<Translator>(ctx_, pool_, /*exact_bitwise=*/true);
          tr_exact_->SetLabels(labels_);
          tr_exact_->SetBackstop(&backstop_);
        }
        absl::StatusOr<Query> q2 = Solve(*tr_exact_, a, absl::StrCat(AccessName(v), " (or/xor bit by bit)"));
        if (backstop_.fired()) return v;
        if (q2.ok() && q2->res == z3::unsat) {
          v.status = AccessVerdict::Status::kProved;
          return v;
        }
        if (q2.ok() && q2->res == z3::sat) {
          std::vector<int> bad2 = Confirm(a, q2->env);
          if (!bad2.empty()) {
            v.counterexample = Counterexample(a, q2->env, bad2, names,
                                              "from the solver's model with or/xor bit by bit, confirmed concretely");
            std::vector<std::string> viol;
            for (int b : bad2) viol.push_back(names[b]);
            return Fail(v, absl::StrJoin(viol, "\n"));
          }
        }
      }
      why = q.violated_sides.empty()
                ? "the solver's counterexample does not reproduce concretely"
                : absl::StrCat("not proved: ", absl::StrJoin(q.violated_sides, "; "),
                               " (the solver's counterexample violates it but does not reproduce concretely)");
    } else if (res == z3::sat) {
      why = absl::StrCat("not proved; the address depends on values the verifier over-approximates: ",
                         absl::StrJoin(abstract, "; "));
    } else {
      why = absl::StrCat("the solver could not decide (", q.reason_unknown, ")");
    }
    if (opts_.search_counterexamples) {
      if (abstract.empty() && !searched)
        if (std::optional<AccessVerdict> f = SearchFails(a, v, names, why)) return *f;
      if (std::optional<std::string> cex = SearchWaves(a, names, why)) {
        v.counterexample = *cex;
        std::vector<std::string> viol;
        for (absl::string_view line : absl::StrSplit(*cex, '\n'))
          if (absl::StartsWith(line, "  violated: ")) viol.push_back(std::string(line.substr(12)));
        return Fail(v, absl::StrJoin(viol, "\n"));
      }
    }
    std::vector<std::string> notes;
    for (int n : acc.notes) notes.push_back(tr_->notes()[n]);
    return Unknown(v, notes.empty() ? why : absl::StrCat(why, "; abstractions: ", absl::StrJoin(notes, "; ")));
  }

  const Kernel& k_;
  const TargetInfo& t_;
  const LoweredKernel& lk_;
  VerifyOptions opts_;
  TermPool pool_;
  SymExec ex_;
  z3::context ctx_;
  std::unique_ptr<Translator> tr_, tr_exact_;
  Backstop backstop_;
  std::unique_ptr<Watchdog> watchdog_ = std::make_unique<Watchdog>(ctx_);  // after ctx_: destroyed first
  std::unordered_map<int, std::string> labels_;
  std::vector<const Op*> ops_;
  std::vector<std::vector<int>> fors_;  // per pre-order op: enclosing `for` ops
  std::unordered_map<int, int> index_of_id_;
  std::map<std::string, int64_t> lds_base_;  // LDS allocation -> byte offset (the ABI's, or solved)
  std::set<std::string> solved_lds_;   // allocations SolveLdsBases placed
  bool lds_layout_guessed_ = false;    // the solved layout is ambiguous or partial
  const LoopChoice* loop_choice_ = nullptr;  // matching: Prepare's loop binding (LoopChoices)
  std::vector<IterRange> box_;  // matching: KIR iterations per loop of the last Prepare
  std::vector<Covered> covered_;  // matching: what each proved instruction performs
  // Refutation by running the code: the wave runs (WaveRuns) and each setting's pointers.
  bool wave_runs_done_ = false;
  std::vector<WaveRun> wave_runs_;
  std::map<int, std::map<std::string, int64_t>> run_pointers_;
  std::deque<AccessRecord> match_records_;   // VerifyOptions::match_accesses: records verified (stable addresses)
  // Matching, per LDS DMA instruction index: its buffer read's proved (KIR
  // op, loop binding) pairs and verdicts, in order (MatchDmaLds).
  std::map<int, std::vector<std::pair<int, LoopChoice>>> dma_bound_;
  std::map<int, std::vector<AccessVerdict>> dma_global_;
  std::map<std::string, ValueType> value_types_;  // SSA value -> type (store widths), filled by MatchAndVerify
};

}  // namespace

namespace {

// flat_* accesses placed in their segment (FlatSegmentOf, semantics.h) by
// the high dword of their address as symbolic execution computes it: the
// shared aperture's constant high dword -> the DS access of the low dword
// (as the emulator: LDS address = the low dword), the private aperture's ->
// the scratch_* access of the low dword, anything else -> the global_*
// access of the same VGPR pair (proved like any global_* access: equal to a
// kernarg pointer plus an in-buffer offset, so not in an aperture). An
// aperture address with an instruction offset (whose carry could leave the
// aperture) or code symbolic execution cannot run stays flat: unknown, the
// reason in MInst::comment. `texts` gets, per rewritten instruction id, the
// original instruction and its segment, for the report.
std::optional<LoweredKernel> PlaceFlatAccesses(const Kernel& k, const TargetInfo& t, const LoweredKernel& in,
                                              std::map<int, std::string>* texts) {
  bool any = false;
  for (const MInst& mi : in.mir.insts) any |= (Info(mi.opc).flags & kFlatAddr) != 0;
  if (!any) return std::nullopt;
  // The ABI VerifyAddresses checks (symbolic execution relies on it).
  const KernelAbi& abi = in.abi;
  if (abi.kernarg_ptr_sgpr < 0 || abi.kernarg_ptr_sgpr % 2 != 0 || abi.kernarg_ptr_sgpr + 2 > abi.user_sgprs ||
      abi.user_sgprs > 32)
    return std::nullopt;
  for (const MInst& mi : in.mir.insts)
    for (const MOperand& o : mi.ops)
      if (o.IsReg() && o.is_virtual) return std::nullopt;
  LoweredKernel out = in;
  vfy::TermPool pool;
  vfy::SymExec ex(pool, k, t, in.abi);
  ex.SetUnmodelled(in.unmodelled);
  const absl::Status st = ex.Run(in.mir);
  for (size_t i = 0; i < out.mir.insts.size(); ++i) {
    MInst& mi = out.mir.insts[i];
    if (!(Info(mi.opc).flags & kFlatAddr)) continue;
    const std::string orig = InstructionText(t, mi);
    if (!st.ok()) {
      mi.comment = absl::StrCat("symbolic execution stopped: ", st.message());
      continue;
    }
    auto it = ex.mem().find(static_cast<int>(i));
    const int vi = NamedOperandIdx(mi.opc, OpName::kVaddr);
    const MOperand* vaddr = FindOperand(mi, OpName::kVaddr);
    if (it == ex.mem().end() || vaddr == nullptr || !vaddr->IsReg() || vaddr->count != 2 || vi < 0 ||
        vi >= static_cast<int>(it->second.ops.size()) || it->second.ops[vi].size() != 2) {
      mi.comment = "its address was not executed as a 64-bit VGPR pair";
      continue;
    }
    const SegmentTwins tw = SegmentTwinsOf(mi.opc);
    const vfy::Slot& hi = it->second.ops[vi][1];
    const bool known = hi.kind == vfy::Slot::kValue && pool.IsConst(hi.t);
    const uint32_t h = known ? pool.ConstValue(hi.t) : 0;
    const bool store = Info(mi.opc).cls == InstClass::kVmemStore;
    const MOperand data = *FindOperand(mi, store ? OpName::kVdata : OpName::kVdst);
    const MOperand lo = MOperand::Phys(RegClass::kVgpr, vaddr->reg);
    if (known && (h == kSharedApertureHi || h == kPrivateApertureHi)) {
      const bool lds = h == kSharedApertureHi;
      if (mi.offset != 0) {
        mi.comment = absl::StrCat("an address in the ", lds ? "shared (LDS)" : "private",
                                  " aperture with an instruction offset (", mi.offset,
                                  ": a carry out of the low dword would leave the aperture) is not modelled");
        continue;
      }
      if (lds) {
        mi.opc = tw.ds;
        mi.ops = store ? std::vector<MOperand>{lo, data} : std::vector<MOperand>{data, lo};
      } else {
        mi.opc = tw.scratch;
        mi.ops = {data, lo, MOperand::Imm(0)};
      }
      (*texts)[mi.id] = absl::StrCat(orig, lds ? "  (shared aperture: LDS)" : "  (private aperture: scratch)");
    } else {
      mi.opc = tw.global;
      (*texts)[mi.id] = absl::StrCat(orig, "  (global segment)");
    }
  }
  return out;
}

absl::StatusOr<VerifyResult> VerifyAddressesPlaced(const Kernel& k, const TargetInfo& t, const LoweredKernel& final_code,
                                                   const VerifyOptions& opts);

}  // namespace

absl::StatusOr<VerifyResult> VerifyAddresses(const Kernel& k, const TargetInfo& t, const LoweredKernel& final_code_in,
                                             const VerifyOptions& opts) {
  // flat_* accesses are verified as the global, DS or scratch access their
  // address places them in (PlaceFlatAccesses); reports name the original.
  std::map<int, std::string> flat_texts;
  const Kernel& placed_kernel = HasGemm(k) ? final_code_in.kernel : k;
  std::optional<LoweredKernel> placed = PlaceFlatAccesses(placed_kernel, t, final_code_in, &flat_texts);
  const LoweredKernel& final_code = placed ? *placed : final_code_in;
  absl::StatusOr<VerifyResult> r = VerifyAddressesPlaced(k, t, final_code, opts);
  if (r.ok())
    for (AccessVerdict& a : r->accesses) {
      auto it = flat_texts.find(a.inst_id);
      if (it != flat_texts.end()) a.inst_text = it->second;
    }
  return r;
}

namespace {
absl::StatusOr<VerifyResult> VerifyAddressesPlaced(const Kernel& k, const TargetInfo& t, const LoweredKernel& final_code,
                                                   const VerifyOptions& opts) {
  // Z3 is loaded on first use (z3_lazy.h): a missing library is an error here.
  if (absl::Status z3 = z3lazy::LoadZ3(); !z3.ok()) return z3;
  for (const MInst& mi : final_code.mir.insts)
    for (const MOperand& o : mi.ops)
      if (o.IsReg() && o.is_virtual)
        return absl::InvalidArgumentError(
            "VerifyAddresses needs the final code on physical registers (CompileResult::lowered), "
            "not the lowering's virtual-register MIR");
  // gfx950's LDS DMA is proved on both sides (its LDS write at M0 + offset +
  // 16 * lane, semantics.h LdsDmaAddress, against the KIR lds_dma's LDS
  // record) and ds_read_b64_tr_b16 as a DS read whose ADDRESS is the lane's
  // own (only its data crosses lanes, DsReadTrB16Source, and loaded data is
  // opaque to the verifier): no instruction is refused here.
  // The kernarg segment pointer is a user SGPR pair (even, below the system SGPRs).
  const KernelAbi& abi = final_code.abi;
  if (abi.kernarg_ptr_sgpr < 0 || abi.kernarg_ptr_sgpr % 2 != 0 || abi.kernarg_ptr_sgpr + 2 > abi.user_sgprs ||
      abi.user_sgprs > 32)
    return absl::InvalidArgumentError(absl::StrCat("KernelAbi: the kernarg segment pointer s[",
                                                   abi.kernarg_ptr_sgpr, ":", abi.kernarg_ptr_sgpr + 1,
                                                   "] is not an even pair of the ", abi.user_sgprs, " user SGPRs"));
  // A tile-level gemm kernel is compiled as its promoted thread-level kernel,
  // which the final code carries (LoweredKernel::kernel); the access map
  // refers to that one.
  if (HasGemm(k)) {
    if (final_code.kernel.name != k.name || HasGemm(final_code.kernel))
      return absl::InvalidArgumentError(absl::StrCat(
          "VerifyAddresses: kernel '", k.name, "' is a tile-level gemm, and the final code does not carry "
          "its promoted thread-level kernel (LoweredKernel::kernel): pass CompileResult::lowered from "
          "kir::Compile"));
    Verifier v(final_code.kernel, t, final_code, opts);
    return v.Run();
  }
  Verifier v(k, t, final_code, opts);
  return v.Run();
}

}  // namespace

}  // namespace kir
