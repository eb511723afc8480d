#include "hw/check/exact.h"

#include "compiler/ir/float_bits.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "compiler/ir/gemm.h"
#include "compiler/ir/op_text.h"
#include "compiler/analysis/index_analysis.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Loops of at most this many trips are iterated exactly; longer ones need a
// closed form.
constexpr int64_t kIterateTrips = 64;
// Walks of a loop body until the values stored to memory are stable.
constexpr int kMaxBodyPasses = 8;

using VarId = int;

// a * b where 0 * anything (infinity included) is 0: a zero value times an
// unbounded one is zero.
double Mul0(double a, double b) { return a == 0 || b == 0 ? 0 : a * b; }

// c0 + sum_v coef[v] * x_v over non-negative variables x_v (the bounds of the
// enclosing loops' carried values), with non-negative coefficients.
struct Lin {
  double c0 = 0;
  std::map<VarId, double> coef;
  bool IsConst() const { return coef.empty(); }
  friend bool operator==(const Lin&, const Lin&) = default;
};
Lin LinConst(double c) { return Lin{c, {}}; }
Lin LinVar(VarId v) { return Lin{0, {{v, 1.0}}}; }
Lin Add(Lin a, const Lin& b) {
  a.c0 += b.c0;
  for (const auto& [v, c] : b.coef) a.coef[v] += c;
  return a;
}
Lin Scale(Lin a, double s) {
  a.c0 = Mul0(a.c0, s);
  for (auto it = a.coef.begin(); it != a.coef.end();) {
    it->second = Mul0(it->second, s);
    it = it->second == 0 ? a.coef.erase(it) : std::next(it);
  }
  return a;
}
// An upper bound of both (coefficient-wise maximum; the variables are >= 0).
Lin Join(Lin a, const Lin& b) {
  a.c0 = std::max(a.c0, b.c0);
  for (const auto& [v, c] : b.coef) a.coef[v] = std::max(a.coef[v], c);
  return a;
}
// The product, or nullopt when both depend on carried values (not linear).
std::optional<Lin> Mul(const Lin& a, const Lin& b) {
  if (a.IsConst()) return Scale(b, a.c0);
  if (b.IsConst()) return Scale(a, b.c0);
  return std::nullopt;
}
Lin Subst(const Lin& a, const std::map<VarId, Lin>& s) {
  Lin r = LinConst(a.c0);
  for (const auto& [v, c] : a.coef) {
    auto it = s.find(v);
    if (it != s.end()) r = Add(r, Scale(it->second, c));
    else r.coef[v] += c;
  }
  return r;
}
// The part that does not depend on `vars`, and the coefficients of those.
Lin Without(const Lin& a, const std::vector<VarId>& vars) {
  Lin r = a;
  for (VarId v : vars) r.coef.erase(v);
  return r;
}

// max(c0, max_v (x_v + off[v])); c0 = -inf and no terms: no constraint (the
// value is zero).
struct MaxPlus {
  double c0 = -kInf;
  std::map<VarId, double> off;
  bool IsConst() const { return off.empty(); }
  friend bool operator==(const MaxPlus&, const MaxPlus&) = default;
};
MaxPlus MaxConst(double c) { return MaxPlus{c, {}}; }
MaxPlus MaxVar(VarId v) { return MaxPlus{-kInf, {{v, 0.0}}}; }
MaxPlus Max(MaxPlus a, const MaxPlus& b) {
  a.c0 = std::max(a.c0, b.c0);
  for (const auto& [v, o] : b.off) {
    auto it = a.off.find(v);
    if (it == a.off.end()) a.off[v] = o;
    else it->second = std::max(it->second, o);
  }
  return a;
}
MaxPlus Shift(MaxPlus a, double s) {
  if (s == -kInf) return MaxPlus{};
  a.c0 += s;  // -inf stays -inf
  for (auto& [v, o] : a.off) o += s;
  return a;
}
bool IsZero(const MaxPlus& a) { return a.IsConst() && a.c0 == -kInf; }
// The sum, or nullopt when both depend on carried values.
std::optional<MaxPlus> Plus(const MaxPlus& a, const MaxPlus& b) {
  if (IsZero(a) || IsZero(b)) return MaxPlus{};
  if (a.IsConst()) return Shift(b, a.c0);
  if (b.IsConst()) return Shift(a, b.c0);
  return std::nullopt;
}
MaxPlus Subst(const MaxPlus& a, const std::map<VarId, MaxPlus>& s) {
  MaxPlus r = MaxConst(a.c0);
  for (const auto& [v, o] : a.off) {
    auto it = s.find(v);
    if (it != s.end()) r = Max(r, Shift(it->second, o));
    else r = Max(r, MaxPlus{-kInf, {{v, o}}});
  }
  return r;
}
MaxPlus Without(const MaxPlus& a, const std::vector<VarId>& vars) {
  MaxPlus r = a;
  for (VarId v : vars) r.off.erase(v);
  return r;
}

using Deps = std::set<std::string>;

// What is known of a value: its finite elements are integer multiples of
// 2^-frac with magnitude <= mag; non-finite elements (from inf/nan constants)
// only where `nonfinite`; rho_* are the random-mode rounding sums
// (RoundingBound); deps are the arguments whose input form the bounds depend on.
// `last` is the unit roundoff of the value's final rounding when that is one
// deterministic rounding (a cvt, add, mul or fma: the same operation on both
// sides) of a value that may differ, counted in rho_*; 0 when unknown or
// none (RoundingBound::last).
struct AbsVal {
  ElemType t = ElemType::kF32;
  int width = 1;
  Lin mag;
  MaxPlus frac;
  bool nonfinite = false;
  Lin rho_dev, rho_ref;
  Deps deps;
  double last = 0;
  // The most narrowing conversions on one path behind the value (its chain
  // level: a conversion of it is at level conv_depth + 1).
  int conv_depth = 0;
  friend bool operator==(const AbsVal&, const AbsVal&) = default;
};
AbsVal ZeroOf(ElemType t, int width = 1) { return AbsVal{t, width, LinConst(0), MaxPlus{}, false, {}, {}, {}, 0, 0}; }
AbsVal Join(AbsVal a, const AbsVal& b) {
  a.mag = Join(a.mag, b.mag);
  a.frac = Max(a.frac, b.frac);
  a.nonfinite |= b.nonfinite;
  a.deps.insert(b.deps.begin(), b.deps.end());
  a.width = std::max(a.width, b.width);
  a.conv_depth = std::max(a.conv_depth, b.conv_depth);
  // A final rounding known for both, the same: still the final one; else
  // unknown (0: the whole rho counts before it, the bound without the split).
  // A value with no rounding that may differ behind it (rho 0, not a form
  // over loop variables) is the same on both sides and meets any bound: the
  // other's final rounding stands.
  auto identical = [](const AbsVal& v) {
    return v.rho_dev.IsConst() && v.rho_dev.c0 == 0 && v.rho_ref.IsConst() && v.rho_ref.c0 == 0;
  };
  const double la = a.last;
  const bool ia = identical(a), ib = identical(b);
  a.rho_dev = Join(a.rho_dev, b.rho_dev);
  a.rho_ref = Join(a.rho_ref, b.rho_ref);
  a.last = ia ? b.last : ib ? la : la == b.last ? la : 0;
  return a;
}

// Significand bits (with the implicit one), smallest subnormal exponent,
// largest finite value and unit roundoff of a float type.
struct FloatType {
  int p;
  int emin_sub;
  double max_finite;
  double u;
};
FloatType FloatInfo(ElemType t) {
  switch (t) {
    case ElemType::kF16: return {11, -24, 65504.0, std::ldexp(1.0, -11)};
    case ElemType::kBF16: return {8, -133, std::ldexp(255.0, 120), std::ldexp(1.0, -8)};
    case ElemType::kF8E4M3FNUZ:
    case ElemType::kF8E5M2FNUZ:
    case ElemType::kF8E4M3FN:
    case ElemType::kF8E5M2: {  // float_bits.h Fp8Format
      const Fp8Format* f = Fp8FormatOf(t);
      return {f->man_bits + 1, 1 - f->bias - f->man_bits, f->max, std::ldexp(1.0, -(f->man_bits + 1))};
    }
    default: return {24, -149, static_cast<double>(std::numeric_limits<float>::max()), std::ldexp(1.0, -24)};
  }
}
double UnitRoundoff(ElemType t) { return t == ElemType::kI32 ? 0 : FloatInfo(t).u; }

// A value that must be exactly representable in `t`.
struct Obligation {
  Lin mag;
  MaxPlus frac;
  ElemType t;
  const Op* op;
  std::string what;  // "the sum", "the product", ...
  Deps deps;
  // > 0: the operand of a narrowing conversion in the conversion pass
  // (PlanConversionInputs): it needs to be exact in f32 only (its producer's
  // obligation) and within t's range, with at most t's p + extra_bits
  // significand bits.
  int extra_bits = 0;
  // The conversion pass: a value both sides hold bit for bit, rounded by one
  // IEEE operation the same way on both (PlanConversionPasses): it need
  // only lie within t's range (no overflow), not be exact.
  bool range_only = false;
  // A narrowing conversion's operand (the conversion pass): its chain level
  // (1: no narrowing conversion behind the operand).
  int conversion_level = 0;
  // The conversion saturates (WithSaturationSpecials' check): its operand
  // may lie beyond t's largest value.
  bool saturates = false;
  // A narrowing conversion's operand an mfma or gemm computed (a rounding
  // whose order the hardware does not specify lies behind it: MayDiffer).
  bool computed = false;
};

struct Failure {
  const Op* op;
  std::string why;
};

std::string OpWhere(const Op* op) {
  if (op == nullptr) return "";
  std::string text = op->kind == OpKind::kGemm ? GemmOpText(op->gemm) : OpText(*op);
  return op->loc.line > 0 ? absl::StrCat(op->loc.line, ":", op->loc.col, ": '", text, "'")
                          : absl::StrCat("'", text, "'");
}

// The exponent of the lowest set bit of a finite non-zero double.
int LowestBitExponent(double c) {
  int e;
  double m = std::frexp(std::fabs(c), &e);  // m in [0.5, 1), c = m * 2^e
  // m * 2^53 is an integer; strip its trailing zeros.
  uint64_t n = static_cast<uint64_t>(std::ldexp(m, 53));
  int tz = n == 0 ? 0 : __builtin_ctzll(n);
  return e - 53 + tz;
}

// The input form of an argument as an AbsVal (before any store).
AbsVal InputValue(const Arg& a, const ExactFormat* f) {
  AbsVal v;
  v.t = a.elem;
  v.deps = {a.name};
  if (a.elem == ElemType::kI32) {
    const double m = f != nullptr ? static_cast<double>(std::max(std::llabs(f->int_lo), std::llabs(f->int_hi)))
                                  : (a.kind == Arg::Kind::kScalar ? 100 : 1000);
    v.mag = LinConst(m);
    v.frac = m == 0 ? MaxPlus{} : MaxConst(0);
    return v;
  }
  if (f != nullptr && f->zero) {
    v.mag = LinConst(0);
    return v;
  }
  if (f != nullptr && f->special) {
    // Any f32 value, NaN and infinities included: it reaches only
    // conversions and stores (ConversionFedBuffers), which round it the same
    // way on both sides.
    v.mag = LinConst(0);
    v.nonfinite = true;
    return v;
  }
  if (a.kind == Arg::Kind::kScalar) {
    std::vector<double> ch = f != nullptr ? f->choices : std::vector<double>{2.0};
    double mag = 0, frac = -kInf;
    for (double c : ch) {
      mag = std::max(mag, std::fabs(c));
      if (c != 0) frac = std::max(frac, -static_cast<double>(LowestBitExponent(c)));
    }
    if (f == nullptr) frac = 24;  // random scalars: 24-bit fractions
    const int shift = f != nullptr ? f->shift : 0;
    v.mag = LinConst(std::ldexp(mag, shift));
    v.frac = MaxConst(frac == -kInf ? frac : frac - shift);
    return v;
  }
  if (f == nullptr) {  // random inputs: |x| <= 1, multiples of 2^-24
    v.mag = LinConst(1);
    v.frac = MaxConst(24);
    return v;
  }
  v.mag = LinConst(std::ldexp(std::ldexp(1.0, f->bits) - 1, f->exp_lo + f->spread + f->shift));
  v.frac = MaxConst(-(f->exp_lo + f->shift));
  v.nonfinite = f->diagonal != ExactFormat::Diagonal::kNone;
  if (f->mix_level >= 0)  // saturation specials among them
    for (double x : SaturationSpecials(a.elem, f->special_to, f->mix_level)) {
      if (!std::isfinite(x)) {
        v.nonfinite = true;
      } else if (x != 0) {
        v.mag = LinConst(std::max(v.mag.c0, std::fabs(x)));
        v.frac = MaxConst(std::max(v.frac.c0, -static_cast<double>(LowestBitExponent(x))));
      }
    }
  return v;
}

// An mfma in a `for` loop whose A (or B) operand is a load of a 2-D float
// buffer whose K index is provably the loop's (fresh-user review 20 F3: a
// K = 512 fp8 MFMA loop got no conversion pass, K windows being tried only
// for gemm ops): per wave and per row i of the MFMA's A fragment (column j
// of B), the element the operand's load gives at fragment slot (i, kk)
// (MfmaDesc::ASlot / BSlot) in every trip lies in one index of the
// buffer's other dimension and at pairwise distinct indices along `dim`
// (checked by evaluating the load's index for every thread, fragment slot
// and trip). Then a result element's sum over the loop has at most as many
// nonzero products as a row of a K window holds in `span` consecutive K
// indices.
struct LoopKSite {
  const Op* loop = nullptr;
  const Op* mfma = nullptr;
  const Op* load = nullptr;  // the operand's load, when in the loop body
  std::string arg;      // the buffer behind the operand
  int dim = 0;          // its K dimension
  int64_t trips = 0;    // the loop's
  int64_t span = 0;     // the most K indices from a sum's lowest to its highest
  // "" when proved; else why not ("its A operand is loaded from LDS ..."),
  // "$LOAD" standing for the load (WhyNot).
  std::string why_not;
};

// Site `s`'s why_not with the load's line:col and text.
std::string WhyNot(const LoopKSite& s) {
  return absl::StrReplaceAll(s.why_not, {{"$LOAD", OpWhere(s.load)}});
}

// The most nonzero elements of a K window's row (ExactFormat::k_window) in
// `span` consecutive K indices: whole periods hold k_block each, the rest
// at most min(k_block, rest); at most KWindowTerms.
int64_t KWindowTermsIn(const ExactFormat& f, int64_t span) {
  if (f.k_window <= 0 || f.k_period <= 0 || f.k_block <= 0) return span;
  const int64_t block = std::min(f.k_block, f.k_period);
  return std::min({span, KWindowTerms(f), span / f.k_period * block + std::min(block, span % f.k_period)});
}

// The most index evaluations LoopKSites spends on one operand.
constexpr int64_t kLoopKSiteEvaluations = int64_t{1} << 22;

// Whether operand `which` (0: A, 1: B) of `mfma`, the only mfma of `loop`'s
// body, is a load whose K index is provably the loop's (LoopKSite).
LoopKSite ProveLoopKSite(const Kernel& k, const Op& loop, const Op& mfma, int which) {
  LoopKSite s;
  s.loop = &loop;
  s.mfma = &mfma;
  s.trips = ForTripCount(loop);
  const char* side = which == 0 ? "A" : "B";
  const MfmaDesc* d = LookupMfma(mfma.mfma);
  if (d == nullptr || mfma.operands.size() < 3) {
    s.why_not = "not an mfma the analysis knows";
    return s;
  }
  const Op* ld = nullptr;
  for (const Op& b : loop.body)
    if (b.kind == OpKind::kLoad && !b.results.empty() && b.results[0] == mfma.operands[which].name) ld = &b;
  if (ld == nullptr) {
    s.why_not = absl::StrCat("its ", side, " operand is not a load in the loop body");
    return s;
  }
  s.load = ld;
  const Arg* a = k.FindArg(ld->mem);
  if (a == nullptr) {
    s.why_not = absl::StrCat("its ", side, " operand is loaded from LDS allocation ", ld->mem,
                             " (a K index is not traced through LDS)");
    return s;
  }
  if (a->kind != Arg::Kind::kBuffer || a->elem == ElemType::kI32 || KWindowLayoutOf(*a) == KWindowLayout::kNone ||
      ld->index.size() != 2 || ld->tr) {
    s.why_not = absl::StrCat("its ", side, " operand's buffer ", a->name,
                             " is not a 2-D float buffer of rows or columns (KWindowLayoutOf)");
    return s;
  }
  s.arg = a->name;
  const int64_t threads = k.workgroup[0] * k.workgroup[1] * k.workgroup[2];
  const int64_t groups = k.grid[0] * k.grid[1] * k.grid[2];
  const int rows = which == 0 ? d->m : d->n;
  if (threads <= 0 || threads % 64 != 0 || groups <= 0 ||
      static_cast<double>(groups) * (threads / 64) * rows * d->k * static_cast<double>(s.trips) >
          static_cast<double>(kLoopKSiteEvaluations)) {
    s.why_not = threads % 64 != 0 ? "its workgroup is not whole waves"
                                  : "too many waves, fragment slots and trips to check its loads' K index";
    return s;
  }
  IndexEnv env;
  env.named = [&k](const std::string& n) -> std::optional<int64_t> {
    for (const NamedConst& c : k.consts)
      if (c.name == n) return c.value;
    return std::nullopt;
  };
  int64_t ivar = 0;
  env.loop_var = [&](const std::string& n) -> std::optional<int64_t> {
    if (n == loop.ivar) return ivar;
    return std::nullopt;
  };
  const int elems_per_reg = 4 / MfmaInBytes(d->a_in);
  bool ok[2] = {true, true};  // K along dimension 0, 1
  int64_t span[2] = {0, 0};
  for (int64_t g = 0; g < groups && (ok[0] || ok[1]); ++g) {
    env.wg[0] = g % k.grid[0];
    env.wg[1] = g / k.grid[0] % k.grid[1];
    env.wg[2] = g / (k.grid[0] * k.grid[1]);
    for (int64_t w = 0; w < threads / 64 && (ok[0] || ok[1]); ++w)
      for (int i = 0; i < rows && (ok[0] || ok[1]); ++i) {
        std::optional<int64_t> fixed[2];
        std::set<int64_t> seen[2];
        int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {INT64_MIN, INT64_MIN};
        for (int64_t t = 0; t < s.trips && (ok[0] || ok[1]); ++t) {
          ivar = loop.lo + t * loop.step;
          for (int kk = 0; kk < d->k && (ok[0] || ok[1]); ++kk) {
            const FragmentSlot slot = which == 0 ? d->ASlot(i, kk) : d->BSlot(kk, i);
            const int64_t e = slot.reg * elems_per_reg + slot.elem;  // element of the lane's loaded vector
            const int64_t linear = w * 64 + slot.lane;
            env.tid[0] = linear % k.workgroup[0];
            env.tid[1] = linear / k.workgroup[0] % k.workgroup[1];
            env.tid[2] = linear / (k.workgroup[0] * k.workgroup[1]);
            std::optional<int64_t> idx[2];
            for (int dd = 0; dd < 2; ++dd) {
              idx[dd] = ld->index[dd] ? Evaluate(*ld->index[dd], env) : std::nullopt;
              if (idx[dd] && dd == ld->along) *idx[dd] += e;
            }
            if (!idx[0] || !idx[1]) {
              s.why_not = absl::StrCat("its ", side, " operand's load $LOAD",
                                       " has an index the check cannot evaluate (a name or loop variable other "
                                       "than the loop's)");
              return s;
            }
            for (int dk = 0; dk < 2; ++dk) {
              if (!ok[dk]) continue;
              const int64_t other = *idx[1 - dk], kidx = *idx[dk];
              if ((fixed[dk] && *fixed[dk] != other) || !seen[dk].insert(kidx).second) {
                ok[dk] = false;
                continue;
              }
              fixed[dk] = other;
              lo[dk] = std::min(lo[dk], kidx);
              hi[dk] = std::max(hi[dk], kidx);
            }
          }
        }
        for (int dk = 0; dk < 2; ++dk)
          if (ok[dk]) span[dk] = std::max(span[dk], hi[dk] - lo[dk] + 1);
      }
  }
  // The vector's dimension first (its elements run along K in the usual
  // layout), then the other.
  const int first = ld->along == 0 ? 0 : 1;
  for (int dk : {first, 1 - first})
    if (ok[dk]) {
      s.dim = dk;
      s.span = span[dk];
      return s;
    }
  s.why_not = absl::StrCat("its ", side, " operand's load $LOAD",
                           " reads, for some row of the MFMA's ", side,
                           " fragment, a K index twice or more than one index of the buffer's other dimension "
                           "over the loop: its K index is not provably the loop's");
  return s;
}

// Every mfma that is the only mfma of a `for` loop's body, its C the loop's
// carried value that the body yields it back to, with the LoopKSite of its A
// and of its B operand (A first); an mfma whose C is not so gets one site
// with why_not.
std::vector<LoopKSite> ComputeLoopKSites(const Kernel& k) {
  std::vector<LoopKSite> out;
  std::function<void(const std::vector<Op>&)> walk = [&](const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.kind != OpKind::kFor) continue;
      walk(op.body);
      std::vector<const Op*> mfmas;
      for (const Op& b : op.body)
        if (b.kind == OpKind::kMfma) mfmas.push_back(&b);
      if (mfmas.empty()) continue;
      LoopKSite bad;
      bad.loop = &op;
      bad.mfma = mfmas[0];
      bad.trips = ForTripCount(op);
      if (mfmas.size() > 1) {
        bad.why_not = "its loop body holds more than one mfma";
        out.push_back(bad);
        continue;
      }
      const Op& m = *mfmas[0];
      const Op* yield = !op.body.empty() && op.body.back().kind == OpKind::kYield ? &op.body.back() : nullptr;
      bool carried = false;
      for (size_t i = 0; i < op.iter_args.size() && m.operands.size() >= 3 && !m.results.empty(); ++i)
        if (op.iter_args[i] == m.operands[2].name && yield != nullptr && i < yield->operands.size() &&
            yield->operands[i].name == m.results[0])
          carried = true;
      if (!carried) {
        bad.why_not = "its C is not the loop's carried value, yielded back as its result";
        out.push_back(bad);
        continue;
      }
      out.push_back(ProveLoopKSite(k, op, m, 0));
      out.push_back(ProveLoopKSite(k, op, m, 1));
    }
  };
  walk(k.body);
  return out;
}

// The path of `target` in `ops` (indices through loop bodies); false when absent.
bool OpPath(const std::vector<Op>& ops, const Op* target, std::vector<size_t>& path) {
  for (size_t i = 0; i < ops.size(); ++i) {
    path.push_back(i);
    if (&ops[i] == target || OpPath(ops[i].body, target, path)) return true;
    path.pop_back();
  }
  return false;
}
const Op* OpAt(const std::vector<Op>& ops, const std::vector<size_t>& path) {
  const std::vector<Op>* level = &ops;
  const Op* op = nullptr;
  for (size_t i : path) {
    if (i >= level->size()) return nullptr;
    op = &(*level)[i];
    level = &op->body;
  }
  return op;
}
// `sites` of kernel `from` with their ops those of the equal kernel `to`.
std::vector<LoopKSite> Rebased(std::vector<LoopKSite> sites, const Kernel& from, const Kernel& to) {
  for (LoopKSite& s : sites) {
    std::vector<size_t> path;
    if (OpPath(from.body, s.loop, path)) s.loop = OpAt(to.body, path);
    path.clear();
    if (OpPath(from.body, s.mfma, path)) s.mfma = OpAt(to.body, path);
    path.clear();
    if (s.load != nullptr && OpPath(from.body, s.load, path)) s.load = OpAt(to.body, path);
  }
  return sites;
}

// ComputeLoopKSites(k), remembered for the last few kernels (every analysis
// of a K-window plan asks; the proof evaluates every load index).
std::vector<LoopKSite> LoopKSites(const Kernel& k) {
  thread_local std::vector<std::pair<Kernel, std::vector<LoopKSite>>> cache;  // sites of the cached copy
  for (const auto& [ck, sites] : cache)
    if (ck == k) return Rebased(sites, ck, k);
  std::vector<LoopKSite> sites = ComputeLoopKSites(k);
  if (cache.size() >= 4) cache.erase(cache.begin());
  cache.emplace_back(k, std::vector<LoopKSite>{});
  cache.back().second = Rebased(sites, k, cache.back().first);
  return sites;
}

class Analysis {
 public:
  // `affine` caches index forms across analyses of one kernel.
  using AffineCache = std::map<const IndexExpr*, std::optional<AffineForm>>;
  // `conversion`: the conversion pass's obligations (PlanConversionInputs),
  // the operands of the conversions at chain level `cap_level` carrying up
  // to kConversionExtraBits bits beyond their target's. `saturation` (with
  // `conversion`): a narrowing conversion's operand need only be exact in
  // f32 and may lie beyond the target's max (WithSaturationSpecials).
  // `cap_to` (not f32): only the level-`cap_level` conversions to that type
  // carry the extra bits, the level's others need only lie in range
  // (ExactPlan::to).
  Analysis(const Kernel& k, const std::map<std::string, ExactFormat>* formats, AffineCache* affine,
           bool conversion = false, int cap_level = 1, bool saturation = false, int saturation_bits = 24,
           ElemType cap_to = ElemType::kF32)
      : k_(k), formats_(formats), conversion_(conversion), cap_level_(cap_level), saturation_(saturation),
        saturation_bits_(saturation_bits), cap_to_(cap_to),
        affine_(affine) {
    scope_.kernel = &k;
    // K windows through mfma loops (LoopKSite), proved only when a form has one.
    bool windows = false;
    if (formats != nullptr)
      for (const auto& [name, f] : *formats) windows = windows || f.k_window > 0;
    if (windows)
      for (LoopKSite& s : LoopKSites(k))
        if (s.why_not.empty()) loop_sites_[s.mfma].push_back(std::move(s));
  }

  void Run() {
    Env env;
    Walk(k_.body, env, mem_, top_);
    for (const auto& [name, v] : mem_.lds) stored_[name] = v;
    for (const auto& [name, by_op] : mem_.buffers)
      for (const auto& [op, v] : by_op) stored_[name] = stored_.count(name) ? Join(stored_[name], v) : v;
  }

  const std::vector<Failure>& structural() const { return structural_; }
  const std::vector<Obligation>& obligations() const { return top_; }
  const std::map<std::string, AbsVal>& stored() const { return stored_; }
  const std::string& rho_unbounded() const { return rho_unbounded_; }
  // The highest chain level of a narrowing conversion (0: none).
  int max_conversion_level() const { return max_level_; }
  // Whether device and reference may hold different values of `v`.
  static bool Differs(const AbsVal& v) { return MayDiffer(v); }
  // The store ops to buffers whose every stored value has no rounding that
  // may differ behind it (rho_dev = rho_ref = 0).
  std::set<const Op*> IdenticalStores() const {
    std::set<const Op*> r;
    for (const auto& [name, by_op] : mem_.buffers)
      for (const auto& [op, v] : by_op)
        if (op->kind == OpKind::kStore && !MayDiffer(v)) r.insert(op);
    return r;
  }

 private:
  using Env = std::map<std::string, AbsVal>;
  // What has been stored so far: per LDS allocation the join of every value
  // (threads read each other's LDS); per buffer and store op the join of the
  // values that op stored (a thread reads only its own stores: anything else
  // is a race, an error in both the emulator and the interpreter).
  struct Mem {
    std::map<std::string, AbsVal> lds;
    std::map<std::string, std::map<const Op*, AbsVal>> buffers;
    friend bool operator==(const Mem&, const Mem&) = default;
  };

  void Fail(const Op* op, const std::string& why) {
    for (const Failure& f : structural_)
      if (f.op == op && f.why == why) return;
    structural_.push_back({op, why});
  }

  const ExactFormat* FormatOf(const std::string& name) const {
    if (formats_ == nullptr) return nullptr;
    auto it = formats_->find(name);
    return it == formats_->end() ? nullptr : &it->second;
  }

  AbsVal Get(const Op& op, const Operand& o, const Env& env) {
    if (o.is_arg) {
      const Arg* a = k_.FindArg(o.name);
      if (a != nullptr) return InputValue(*a, FormatOf(a->name));
    } else {
      auto it = env.find(o.name);
      if (it != env.end()) return it->second;
    }
    Fail(&op, absl::StrCat("unknown operand ", o.is_arg ? "" : "%", o.name));
    return ZeroOf(ElemType::kF32);
  }

  void Oblige(const AbsVal& v, ElemType t, const Op& op, const std::string& what, std::vector<Obligation>& obl) {
    obl.push_back({v.mag, v.frac, t, &op, what, v.deps});
  }
  // The obligation of a narrowing conversion's result: representable in `t`,
  // or in the conversion pass within t's range with at most
  // kConversionExtraBits more significand bits. Then the rounded value may
  // exceed the operand by one ulp of t (its steps stay multiples of 2^lo: a
  // value that rounds has an ulp in t above its own lowest bit).
  // The conversion pass rounds one chain level per pass
  // (PlanConversionPasses): the operands of the other levels' conversions
  // need only lie within t's range.
  void ObligeConversion(AbsVal& v, ElemType t, const Op& op, const std::string& what,
                        std::vector<Obligation>& obl) {
    const int level = v.conv_depth + 1;
    max_level_ = std::max(max_level_, level);
    Oblige(v, t, op, what, obl);
    v.conv_depth = level;
    if (!conversion_) return;
    obl.back().conversion_level = level;
    obl.back().computed = MayDiffer(v);
    if (saturation_) {
      SaturatingConversion(v, t, obl.back(), saturation_bits_);
      return;
    }
    if (level == cap_level_ && (cap_to_ == ElemType::kF32 || t == cap_to_)) obl.back().extra_bits = kConversionExtraBits;
    else obl.back().range_only = true;
    v.mag = Scale(v.mag, 1 + std::ldexp(1.0, 1 - FloatInfo(t).p));
  }
  // The result of a float add, mul or fma. In the conversion pass every
  // value both sides hold is bit-identical (every sum whose order the device
  // chooses, an mfma's or a gemm's, must be exact: those obligations stay),
  // so one IEEE operation of identical operands gives identical results
  // whether or not it rounds: it need only stay within t's range, and a
  // conversion of its result gets bits beyond the target's (fresh-user
  // review 8 F8: `add(cvt(x * x : f16), z)` needed the f16 add exact, so x
  // * x fit f16 and the conversion never rounded). A rounded value is still
  // a multiple of 2^lo (it rounds to a grid coarser than 2^lo), up to one
  // ulp of t larger. A value over loop-carried forms stays exact (its
  // growth per trip would exceed 1, which the loop rule refuses).
  void ObligeArithmetic(AbsVal& v, ElemType t, const Op& op, const std::string& what,
                        std::vector<Obligation>& obl) {
    Oblige(v, t, op, what, obl);
    if (!conversion_ || t == ElemType::kI32 || !v.mag.IsConst() || !v.frac.IsConst()) return;
    obl.back().range_only = true;
    v.mag = Scale(v.mag, 1 + std::ldexp(1.0, 1 - FloatInfo(t).p));
  }
  // WithSaturationSpecials' rule for a narrowing conversion to `t` of `v`
  // (obligation `o`): the operand exact in f32 (24 bits), any magnitude;
  // the result at most t's max, or an infinity where t has them (f16,
  // bf16, f8e5m2: a finite value beyond max rounds to inf there, or in
  // f8e5m2 saturates; an inf operand stays inf).
  // `bits`: the operand's significand bits at most (24; fewer for
  // PlanSaturationBase's first tries).
  static void SaturatingConversion(AbsVal& v, ElemType t, Obligation& o, int bits) {
    const FloatType ft = FloatInfo(t);
    o.saturates = true;
    o.extra_bits = std::max(1, std::min(bits, FloatInfo(ElemType::kF32).p) - ft.p);
    const Lin up = Scale(v.mag, 1 + std::ldexp(1.0, 1 - ft.p));
    if (!up.IsConst() || up.c0 > ft.max_finite) {
      const Fp8Format* f8 = Fp8FormatOf(t);
      v.nonfinite = v.nonfinite || f8 == nullptr || f8->has_inf;
      v.mag = LinConst(ft.max_finite);
      // A saturated result is +-max: steps of max's lowest bit too.
      v.frac = Max(v.frac, MaxConst(-static_cast<double>(LowestBitExponent(ft.max_finite))));
    } else {
      v.mag = up;
    }
  }

  // a * b (elementwise or inside an mfma), rounding counts not included.
  AbsVal Product(const AbsVal& a, const AbsVal& b, const Op& op) {
    AbsVal r;
    r.t = a.t;
    r.nonfinite = a.nonfinite || b.nonfinite;
    r.deps = a.deps;
    r.deps.insert(b.deps.begin(), b.deps.end());
    std::optional<Lin> m = Mul(a.mag, b.mag);
    std::optional<MaxPlus> f = Plus(a.frac, b.frac);
    if (!m || !f) {
      Fail(&op, "it multiplies two values that both depend on loop-carried values; the analysis bounds only "
                "linear growth");
      r.mag = LinConst(kInf);
      r.frac = MaxConst(kInf);
    } else {
      r.mag = *m;
      r.frac = *f;
    }
    r.rho_dev = Add(a.rho_dev, b.rho_dev);
    r.rho_ref = Add(a.rho_ref, b.rho_ref);
    r.conv_depth = std::max(a.conv_depth, b.conv_depth);
    return r;
  }
  AbsVal Sum(AbsVal a, const AbsVal& b) {
    a.mag = Add(a.mag, b.mag);
    a.frac = Max(a.frac, b.frac);
    a.nonfinite |= b.nonfinite;
    a.rho_dev = Add(a.rho_dev, b.rho_dev);
    a.rho_ref = Add(a.rho_ref, b.rho_ref);
    a.deps.insert(b.deps.begin(), b.deps.end());
    a.conv_depth = std::max(a.conv_depth, b.conv_depth);
    a.last = 0;  // an exact sum: its final rounding is whoever rounds it
    return a;
  }
  static void Round(AbsVal& v, double u_dev, double u_ref) {
    v.rho_dev = Add(v.rho_dev, LinConst(u_dev));
    v.rho_ref = Add(v.rho_ref, LinConst(u_ref));
    v.last = 0;  // not one rounding the same on both sides
  }
  // Whether device and reference may hold different values of `v`: some
  // rounding whose order the hardware does not specify (mfma, gemm) lies
  // behind it, i.e. a rounding sum is not the constant 0 (a loop-carried
  // form counts as may-differ).
  static bool MayDiffer(const AbsVal& v) {
    return !(v.rho_dev.IsConst() && v.rho_dev.c0 == 0 && v.rho_ref.IsConst() && v.rho_ref.c0 == 0);
  }
  // A deterministic rounding (an IEEE add/mul/fma, a cvt: the same operation
  // in program order on both sides) of a value both sides hold bit for bit
  // gives bit-identical results, so it is no error between them: the rounded
  // value counts as an exact input of what follows (review 5 F2: counting it
  // on both sides made fp8 kernels' bound several times sum|terms|). Only
  // roundings of values that may already differ add u to each side.
  static void RoundDeterministic(AbsVal& v, double u) {
    if (MayDiffer(v)) {
      Round(v, u, u);
      v.last = u;
    }
  }

  // Whether store `st` may write an element that load `ld` (of the same
  // buffer, by the same thread, later) reads: false only when some dimension's
  // two indices differ by a constant that separates their elements. An index
  // with a loop variable may alias anything (the store may be from another
  // iteration).
  bool MayAlias(const Op& st, const Op& ld, int st_width, int ld_width) const {
    if (st.index.size() != ld.index.size()) return true;
    std::function<bool(const IndexExpr&)> has_loop_var = [&](const IndexExpr& e) {
      if (e.kind == IndexKind::kLoopVar) return true;
      return (e.lhs != nullptr && has_loop_var(*e.lhs)) || (e.rhs != nullptr && has_loop_var(*e.rhs));
    };
    for (size_t d = 0; d < st.index.size(); ++d)
      if (st.index[d] == nullptr || ld.index[d] == nullptr || has_loop_var(*st.index[d]) ||
          has_loop_var(*ld.index[d]))
        return true;
    for (size_t d = 0; d < st.index.size(); ++d) {
      const AffineForm* a = AffineOf(*ld.index[d]);
      const AffineForm* b = AffineOf(*st.index[d]);
      if (a == nullptr || b == nullptr) continue;
      AffineForm diff = AffineAdd(*a, AffineScale(*b, -1));
      if (!diff.terms.empty()) continue;
      // The store covers [0, ws) along its `along`, the load [delta, delta + wl).
      const int64_t ws = static_cast<int>(d) == st.along ? st_width : 1;
      const int64_t wl = static_cast<int>(d) == ld.along ? ld_width : 1;
      if (diff.constant >= ws || diff.constant + wl <= 0) return false;
    }
    return true;
  }

  // The affine form of an index (nullptr when it has none), computed once.
  const AffineForm* AffineOf(const IndexExpr& e) const {
    auto it = affine_->find(&e);
    if (it == affine_->end()) {
      absl::StatusOr<AffineForm> f = Affine(e, scope_);
      it = affine_->emplace(&e, f.ok() ? std::optional<AffineForm>(*std::move(f)) : std::nullopt).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  AbsVal Load(const Op& ld, const std::string& mem, ElemType t, int width, const Mem& m) {
    AbsVal v = ZeroOf(t, width);
    if (const Arg* a = k_.FindArg(mem); a != nullptr) {
      v = InputValue(*a, FormatOf(a->name));
      auto it = m.buffers.find(mem);
      if (it != m.buffers.end())
        for (const auto& [st, sv] : it->second)
          if (st->kind != OpKind::kStore || MayAlias(*st, ld, sv.width, width)) v = Join(v, sv);
    } else if (auto it = m.lds.find(mem); it != m.lds.end()) {
      v = it->second;
    }
    v.t = t;
    v.width = width;
    return v;  // a guarded load's out-of-shape zeros change nothing
  }

  void Store(const Op& op, const std::string& mem, const AbsVal& v, Mem& m) {
    AbsVal* slot = nullptr;
    if (k_.FindArg(mem) != nullptr) {
      auto& by_op = m.buffers[mem];
      auto it = by_op.find(&op);
      if (it == by_op.end()) {
        by_op[&op] = v;
        last_store_ = &op;
        return;
      }
      slot = &it->second;
    } else {
      auto it = m.lds.find(mem);
      if (it == m.lds.end()) {
        m.lds[mem] = v;
        last_store_ = &op;
        return;
      }
      slot = &it->second;
    }
    AbsVal j = Join(*slot, v);
    if (!(j == *slot)) {
      *slot = std::move(j);
      last_store_ = &op;
    }
  }

  void Walk(const std::vector<Op>& ops, Env& env, Mem& mem, std::vector<Obligation>& obl) {
    for (const Op& op : ops) {
      switch (op.kind) {
        case OpKind::kLoad:
          if (!op.results.empty()) env[op.results[0]] = Load(op, op.mem, op.type.elem, op.type.width, mem);
          break;
        case OpKind::kStore:
          if (!op.operands.empty()) Store(op, op.mem, Get(op, op.operands[0], env), mem);
          break;
        case OpKind::kLdsDma:  // the loaded vector goes to LDS allocation op.lds
          Store(op, op.lds, Load(op, op.mem, op.type.elem, op.type.width, mem), mem);
          break;
        case OpKind::kBarrier:
        case OpKind::kYield:
          break;
        case OpKind::kZero:
          if (!op.results.empty()) env[op.results[0]] = ZeroOf(op.type.elem, op.type.width);
          break;
        case OpKind::kConst: {
          if (op.results.empty()) break;
          AbsVal v = ZeroOf(op.type.elem, op.type.width);
          if (!std::isfinite(op.constant)) {
            v.nonfinite = true;  // inf and nan are exact; arithmetic on them does not round
          } else if (op.constant != 0) {
            v.mag = LinConst(std::fabs(op.constant));
            v.frac = MaxConst(op.type.elem == ElemType::kI32 ? 0 : -LowestBitExponent(op.constant));
          }
          env[op.results[0]] = v;
          break;
        }
        case OpKind::kAdd:
        case OpKind::kMul:
        case OpKind::kFma: {
          if (op.results.empty() || op.operands.size() < (op.kind == OpKind::kFma ? 3u : 2u)) break;
          AbsVal a = Get(op, op.operands[0], env), b = Get(op, op.operands[1], env);
          const ElemType t = a.t;
          const double u = UnitRoundoff(t);
          AbsVal r;
          if (op.kind == OpKind::kAdd) {
            r = Sum(a, b);
          } else {
            r = Product(a, b, op);
            if (op.kind == OpKind::kFma) {
              Oblige(r, t, op, "the product", obl);
              r = Sum(r, Get(op, op.operands[2], env));
            }
          }
          r.t = t;
          r.width = std::max(a.width, b.width);
          if (op.kind == OpKind::kFma) r.width = std::max(r.width, Get(op, op.operands[2], env).width);
          RoundDeterministic(r, u);
          ObligeArithmetic(r, t, op,
                           op.kind == OpKind::kAdd ? "the sum" : op.kind == OpKind::kMul ? "the product" : "the result",
                           obl);
          env[op.results[0]] = r;
          break;
        }
        case OpKind::kMfma: {
          const MfmaDesc* d = LookupMfma(op.mfma);
          if (op.results.empty() || op.operands.size() < 3 || d == nullptr) {
            Fail(&op, "not an mfma the analysis knows");
            break;
          }
          AbsVal a = Get(op, op.operands[0], env), b = Get(op, op.operands[1], env);
          AbsVal p = Product(a, b, op);
          AbsVal r;
          // k products added to C: every partial sum, in any order, is a
          // multiple of 2^lo bounded by k * |a||b| + |c|. In a loop whose
          // operand load reads a K window (LoopKSite), the loop's sum of
          // trips * k products has at most `window` nonzero: each trip
          // counts window / trips of them (the loop's closure adds up the
          // trips' terms).
          double terms = d->k;
          std::string window;
          if (auto it = loop_sites_.find(&op); it != loop_sites_.end())
            for (const LoopKSite& s : it->second) {
              const ExactFormat* f = FormatOf(s.arg);
              if (f == nullptr || f->k_window <= 0 || f->k_dim != s.dim || mem.buffers.count(s.arg) || s.trips <= 0)
                continue;
              const int64_t all = s.trips * d->k, nonzero = std::min(all, KWindowTermsIn(*f, s.span));
              if (nonzero >= all || static_cast<double>(nonzero) / s.trips >= terms) continue;
              terms = static_cast<double>(nonzero) / s.trips;
              window = absl::StrCat(" (at most ", nonzero, " of the loop's ", all,
                                    " products nonzero: a K window of ", s.arg, ")");
            }
          r.mag = Scale(p.mag, terms);
          r.frac = p.frac;
          r.nonfinite = p.nonfinite;
          r.rho_dev = p.rho_dev;
          r.rho_ref = p.rho_ref;
          r.deps = p.deps;
          r.conv_depth = p.conv_depth;
          r = Sum(r, Get(op, op.operands[2], env));
          r.t = ElemType::kF32;
          r.width = op.type.width;
          const double u = FloatInfo(ElemType::kF32).u;
          // Device: a product of f32 operands may round (f16/bf16 products are
          // exact in f32), then each product passes at most k faithful
          // additions (2u each). Reference: products exact in double, k double
          // additions, one rounding to f32.
          Round(r, (d->a_in == MfmaIn::kF32 ? u : 0) + 2.0 * u * d->k,
                u + std::ldexp(1.0, -53) * d->k);
          Oblige(r, ElemType::kF32, op, absl::StrCat("the sum of ", d->k, " products and C (in any order)", window),
                 obl);
          env[op.results[0]] = r;
          break;
        }
        case OpKind::kCvt: {
          if (op.results.empty() || op.operands.empty()) break;
          AbsVal v = Get(op, op.operands[0], env);
          const ElemType to = op.type.elem;
          const bool narrows = v.t != to && to != ElemType::kF32;
          v.t = to;
          v.width = op.type.width;
          if (narrows) {
            RoundDeterministic(v, UnitRoundoff(to));
            ObligeConversion(v, to, op, "the converted value", obl);
          }
          env[op.results[0]] = v;
          break;
        }
        case OpKind::kSlice: {
          if (op.results.empty() || op.operands.empty()) break;
          AbsVal v = Get(op, op.operands[0], env);
          v.t = op.type.elem;
          v.width = op.type.width;
          env[op.results[0]] = v;
          break;
        }
        case OpKind::kConcat: {  // elements of either operand: a bound of both
          if (op.results.empty() || op.operands.size() < 2) break;
          AbsVal v = Join(Get(op, op.operands[0], env), Get(op, op.operands[1], env));
          v.t = op.type.elem;
          v.width = op.type.width;
          env[op.results[0]] = v;
          break;
        }
        case OpKind::kFor:
          Loop(op, env, mem, obl);
          break;
        case OpKind::kGemm:
          Gemm(op, mem, obl);
          break;
      }
    }
  }

  // The most nonzero products of a K-long sum of gemm `g` (K = kk): kk, or
  // an operand's K window's count (ExactFormat::k_window) when that operand
  // holds its input form (no op stored to it before) along g's K dimension.
  int64_t NonzeroTerms(const GemmOp& g, int64_t kk, const Mem& mem) const {
    int64_t terms = kk;
    for (const auto& [name, kdim] : {std::pair<std::string, int>{g.a, g.a_km ? 0 : 1}, {g.b, g.b_kn ? 0 : 1}}) {
      const ExactFormat* f = FormatOf(name);
      if (f != nullptr && f->k_window > 0 && f->k_dim == kdim && f->k_len == kk && !mem.buffers.count(name))
        terms = std::min(terms, KWindowTerms(*f));
    }
    return terms;
  }

  // C = alpha * sum_K A * B (+ beta * C), accumulated in f32.
  void Gemm(const Op& op, Mem& mem, std::vector<Obligation>& obl) {
    const GemmOp& g = op.gemm;
    const Arg* a = k_.FindArg(g.a);
    const Arg* b = k_.FindArg(g.b);
    const Arg* c = k_.FindArg(g.c);
    std::vector<const Arg*> factors;  // none: alpha = 1
    for (const std::string& f : g.factors) factors.push_back(k_.FindArg(f));
    if (a == nullptr || b == nullptr || c == nullptr ||
        std::count(factors.begin(), factors.end(), nullptr) > 0 || a->shape.size() != 2) {
      Fail(&op, "a gemm whose arguments the analysis cannot find");
      return;
    }
    const int64_t kk = a->shape[g.a_km ? 0 : 1];
    const double u = FloatInfo(ElemType::kF32).u;
    AbsVal p = Product(Load(op, g.a, a->elem, 1, mem), Load(op, g.b, b->elem, 1, mem), op);
    AbsVal acc = p;
    const int64_t terms = NonzeroTerms(g, kk, mem);
    acc.mag = Scale(p.mag, static_cast<double>(terms));
    acc.t = ElemType::kF32;
    Round(acc, 2.0 * u * kk, u * kk);
    Oblige(acc, ElemType::kF32, op,
           absl::StrCat("the sum of ", kk, " products (",
                        terms < kk ? absl::StrCat("at most ", terms, " of them nonzero: a K window; ") : "",
                        "in any order)"),
           obl);
    AbsVal r = acc;
    if (!factors.empty()) {
      // alpha = the factors' product, rounded in f32 after each multiply.
      AbsVal alpha = InputValue(*factors[0], FormatOf(factors[0]->name));
      for (size_t i = 1; i < factors.size(); ++i) {
        alpha = Product(alpha, InputValue(*factors[i], FormatOf(factors[i]->name)), op);
        alpha.t = ElemType::kF32;
        Round(alpha, u, u);  // the device may order the factors differently
        Oblige(alpha, ElemType::kF32, op, "the product of the scale factors", obl);
      }
      r = Product(acc, alpha, op);
      r.t = ElemType::kF32;
      Round(r, u, u);
      Oblige(r, ElemType::kF32, op, "alpha times the sum", obl);
    }
    if (g.adds_c()) {
      // `+ beta * C`, or `+ C` (beta = 1: C itself).
      const Arg* beta = g.has_beta() ? k_.FindArg(g.beta) : nullptr;
      if (g.has_beta() && beta == nullptr) {
        Fail(&op, "a gemm whose beta the analysis cannot find");
        return;
      }
      AbsVal bc = Load(op, g.c, c->elem, 1, mem);
      if (beta != nullptr) bc = Product(bc, InputValue(*beta, FormatOf(beta->name)), op);
      bc.t = ElemType::kF32;
      Oblige(bc, ElemType::kF32, op, "beta times C", obl);
      r = Sum(r, bc);
      Round(r, u, u);
      Oblige(r, ElemType::kF32, op, "alpha * A * B + beta * C", obl);
    }
    if (c->elem != ElemType::kF32) {
      Round(r, UnitRoundoff(c->elem), UnitRoundoff(c->elem));
      r.last = UnitRoundoff(c->elem);  // the same conversion on both sides
      ObligeConversion(r, c->elem, op, "the result converted to C's type", obl);
    }
    r.t = c->elem;
    Store(op, g.c, r, mem);
  }

  // Bounds of the carried values, as forms over the enclosing loops'
  // variables: `enter` bounds the values every trip starts from, `result` those
  // after the last trip, with x(t+1) = x(t) join y(x(t)) from x(0) = init (the
  // join keeps the sequence increasing, so values stored in earlier trips are
  // bounded too). Loops of at most kIterateTrips are iterated; longer ones
  // need every row of the linear map to sum to at most 1 (then max_i x_i(t)
  // <= max_i x_i(0) + t * max_i d_i), else nullopt and *growth is the largest
  // row sum.
  template <typename F>
  struct Closure {
    std::vector<F> enter, result;
  };
  static std::optional<Closure<Lin>> LinClosure(const std::vector<Lin>& init, const std::vector<Lin>& y,
                                                const std::vector<VarId>& vars, int64_t trips, double* growth) {
    const size_t n = vars.size();
    auto step = [&](const std::vector<Lin>& x) {
      std::map<VarId, Lin> s;
      for (size_t j = 0; j < n; ++j) s[vars[j]] = x[j];
      std::vector<Lin> nx(n);
      for (size_t i = 0; i < n; ++i) nx[i] = Join(x[i], Subst(y[i], s));
      return nx;
    };
    if (trips <= kIterateTrips) {
      Closure<Lin> c{init, init};
      for (int64_t t = 0; t < trips; ++t) {
        c.enter = c.result;
        c.result = step(c.result);
      }
      return c;
    }
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
      double row = 0;
      for (VarId v : vars) {
        auto it = y[i].coef.find(v);
        if (it != y[i].coef.end()) row += it->second;
      }
      worst = std::max(worst, row);
    }
    *growth = worst;
    if (worst > 1) return std::nullopt;
    Lin u, d;
    for (size_t i = 0; i < n; ++i) {
      u = Join(u, init[i]);
      d = Join(d, Without(y[i], vars));
    }
    return Closure<Lin>{std::vector<Lin>(n, Add(u, Scale(d, static_cast<double>(trips - 1)))),
                        std::vector<Lin>(n, Add(u, Scale(d, static_cast<double>(trips))))};
  }
  // The same for fraction bits (max-plus): beyond kIterateTrips no term may
  // add fraction bits to a carried value (*growth: the most one adds).
  static std::optional<Closure<MaxPlus>> MaxClosure(const std::vector<MaxPlus>& init, const std::vector<MaxPlus>& y,
                                                    const std::vector<VarId>& vars, int64_t trips, double* growth) {
    const size_t n = vars.size();
    if (trips <= kIterateTrips) {
      Closure<MaxPlus> c{init, init};
      for (int64_t t = 0; t < trips; ++t) {
        std::map<VarId, MaxPlus> s;
        for (size_t j = 0; j < n; ++j) s[vars[j]] = c.result[j];
        std::vector<MaxPlus> nx(n);
        for (size_t i = 0; i < n; ++i) nx[i] = Max(c.result[i], Subst(y[i], s));
        c.enter = c.result;
        c.result = std::move(nx);
      }
      return c;
    }
    double worst = -kInf;
    for (size_t i = 0; i < n; ++i)
      for (VarId v : vars) {
        auto it = y[i].off.find(v);
        if (it != y[i].off.end()) worst = std::max(worst, it->second);
      }
    *growth = worst;
    if (worst > 0) return std::nullopt;
    // No term adds fraction bits to a carried value: the bound is the largest
    // of the initial values and of the body's own terms.
    MaxPlus u;
    for (size_t i = 0; i < n; ++i) u = Max(Max(u, init[i]), Without(y[i], vars));
    return Closure<MaxPlus>{std::vector<MaxPlus>(n, u), std::vector<MaxPlus>(n, u)};
  }

  void Loop(const Op& op, Env& env, Mem& mem, std::vector<Obligation>& obl) {
    const int64_t trips = ForTripCount(op);
    const size_t n = std::min(op.iter_args.size(), op.operands.size());
    std::vector<AbsVal> init(n);
    std::vector<VarId> vars(n);
    std::vector<Deps> deps(n);
    std::vector<bool> nonfinite(n);
    for (size_t i = 0; i < n; ++i) {
      init[i] = Get(op, op.operands[i], env);
      vars[i] = next_var_++;
      deps[i] = init[i].deps;
      nonfinite[i] = init[i].nonfinite;
    }
    const Op* yield = !op.body.empty() && op.body.back().kind == OpKind::kYield ? &op.body.back() : nullptr;
    // Carried values the body only refills with a load (a software pipeline's
    // next tile in registers) carry data, not sums: they are bounded by what
    // they start from joined with what the load gives, found by iterating
    // the passes (the load does not depend on them), not by a variable.
    std::vector<bool> refill(n, false);
    std::vector<AbsVal> refill_val(n);
    if (yield != nullptr)
      for (size_t i = 0; i < n && i < yield->operands.size(); ++i)
        for (const Op& b : op.body)
          if (b.kind == OpKind::kLoad && !b.results.empty() && b.results[0] == yield->operands[i].name) {
            refill[i] = true;
            refill_val[i] = init[i];
          }
    Mem pass_mem = mem;
    Env body_env;
    std::vector<Obligation> body_obl;
    std::vector<AbsVal> y(n);
    for (int pass = 0;; ++pass) {
      body_env = env;
      for (size_t i = 0; i < n; ++i) {
        if (refill[i]) {
          body_env[op.iter_args[i]] = refill_val[i];
          continue;
        }
        AbsVal x;
        x.t = init[i].t;
        x.width = init[i].width;
        x.mag = LinVar(vars[i]);
        x.frac = MaxVar(vars[i]);
        x.nonfinite = nonfinite[i];
        x.rho_dev = LinVar(vars[i]);
        x.rho_ref = LinVar(vars[i]);
        x.deps = deps[i];
        x.conv_depth = init[i].conv_depth;
        body_env[op.iter_args[i]] = x;
      }
      Mem m = pass_mem;
      body_obl.clear();
      last_store_ = nullptr;
      Walk(op.body, body_env, m, body_obl);
      bool changed = false;
      for (size_t i = 0; i < n; ++i) {
        y[i] = yield != nullptr && i < yield->operands.size() ? Get(*yield, yield->operands[i], body_env)
                                                               : ZeroOf(init[i].t);
        if (refill[i]) {
          AbsVal j = Join(refill_val[i], y[i]);
          changed |= !(j == refill_val[i]);
          refill_val[i] = std::move(j);
        }
        const size_t before = deps[i].size();
        deps[i].insert(y[i].deps.begin(), y[i].deps.end());
        changed |= deps[i].size() != before || (y[i].nonfinite && !nonfinite[i]);
        nonfinite[i] = nonfinite[i] || y[i].nonfinite;
      }
      if (!(m == pass_mem)) {
        pass_mem = std::move(m);
        changed = true;
      }
      if (!changed) break;
      if (pass + 1 == kMaxBodyPasses) {
        Fail(last_store_ != nullptr ? last_store_ : &op,
             "a value stored in the loop body is loaded back and grows with every iteration; the analysis bounds "
             "growth only through loop-carried values");
        break;
      }
    }
    // The closures run over the accumulating carried values; a refilled one
    // is refill_val on every trip.
    std::vector<size_t> acc_idx;
    for (size_t i = 0; i < n; ++i)
      if (!refill[i]) acc_idx.push_back(i);
    const size_t na = acc_idx.size();
    std::vector<Lin> mag0(na), magy(na), rd0(na), rdy(na), rr0(na), rry(na);
    std::vector<MaxPlus> frac0(na), fracy(na);
    std::vector<VarId> acc_vars(na);
    for (size_t a = 0; a < na; ++a) {
      const size_t i = acc_idx[a];
      acc_vars[a] = vars[i];
      mag0[a] = init[i].mag, magy[a] = y[i].mag;
      rd0[a] = init[i].rho_dev, rdy[a] = y[i].rho_dev;
      rr0[a] = init[i].rho_ref, rry[a] = y[i].rho_ref;
      frac0[a] = init[i].frac, fracy[a] = y[i].frac;
    }
    double growth = 0;
    std::optional<Closure<Lin>> mag = LinClosure(mag0, magy, acc_vars, trips, &growth);
    if (!mag) {
      Fail(&op, absl::StrFormat("each of its %d iterations may multiply a loop-carried value by up to %.4g; "
                                "the analysis bounds only growth by addition",
                                trips, growth));
      mag = Closure<Lin>{std::vector<Lin>(na, LinConst(kInf)), std::vector<Lin>(na, LinConst(kInf))};
    }
    std::optional<Closure<MaxPlus>> frac = MaxClosure(frac0, fracy, acc_vars, trips, &growth);
    if (!frac) {
      Fail(&op, absl::StrFormat("each of its %d iterations multiplies a loop-carried value by a non-integer "
                                "(%g more fraction bits per iteration): its significand grows without bound",
                                trips, growth));
      frac = Closure<MaxPlus>{std::vector<MaxPlus>(na, MaxConst(kInf)), std::vector<MaxPlus>(na, MaxConst(kInf))};
    }
    std::optional<Closure<Lin>> rd = LinClosure(rd0, rdy, acc_vars, trips, &growth);
    std::optional<Closure<Lin>> rr = LinClosure(rr0, rry, acc_vars, trips, &growth);
    if (!rd || !rr) {
      if (rho_unbounded_.empty())
        rho_unbounded_ = absl::StrCat(OpWhere(&op), " uses a carried value more than once per iteration");
      rd = rr = Closure<Lin>{std::vector<Lin>(na, LinConst(kInf)), std::vector<Lin>(na, LinConst(kInf))};
    }
    // Back to one entry per carried value.
    auto widen = [&](auto& c, auto field) {
      std::remove_reference_t<decltype(*c)> full{decltype(c->enter)(n), decltype(c->result)(n)};
      for (size_t a = 0; a < na; ++a) {
        full.enter[acc_idx[a]] = c->enter[a];
        full.result[acc_idx[a]] = c->result[a];
      }
      for (size_t i = 0; i < n; ++i)
        if (refill[i]) full.enter[i] = full.result[i] = refill_val[i].*field;
      c = std::move(full);
    };
    widen(mag, &AbsVal::mag);
    widen(frac, &AbsVal::frac);
    widen(rd, &AbsVal::rho_dev);
    widen(rr, &AbsVal::rho_ref);
    // Values of the body (obligations, stores) are bounded at the entering
    // values; the loop's results are the values after the last trip.
    std::map<VarId, Lin> smag, srd, srr;
    std::map<VarId, MaxPlus> sfrac;
    for (size_t i = 0; i < n; ++i) {
      smag[vars[i]] = mag->enter[i];
      sfrac[vars[i]] = frac->enter[i];
      srd[vars[i]] = rd->enter[i];
      srr[vars[i]] = rr->enter[i];
    }
    auto subst = [&](AbsVal v) {
      v.mag = Subst(v.mag, smag);
      v.frac = Subst(v.frac, sfrac);
      v.rho_dev = Subst(v.rho_dev, srd);
      v.rho_ref = Subst(v.rho_ref, srr);
      return v;
    };
    for (Obligation& o : body_obl) {
      o.mag = Subst(o.mag, smag);
      o.frac = Subst(o.frac, sfrac);
      obl.push_back(std::move(o));
    }
    for (auto& [name, v] : pass_mem.lds) v = subst(v);
    for (auto& [name, by_op] : pass_mem.buffers)
      for (auto& [st, v] : by_op) v = subst(v);
    mem = std::move(pass_mem);
    for (size_t i = 0; i < n && i < op.results.size(); ++i) {
      AbsVal r;
      r.t = init[i].t;
      r.width = init[i].width;
      r.mag = mag->result[i];
      r.frac = frac->result[i];
      r.nonfinite = nonfinite[i];
      r.rho_dev = rd->result[i];
      r.rho_ref = rr->result[i];
      r.deps = deps[i];
      r.conv_depth = std::max(init[i].conv_depth, y[i].conv_depth);
      env[op.results[i]] = r;
    }
  }

  const Kernel& k_;
  const std::map<std::string, ExactFormat>* formats_;
  bool conversion_ = false;
  int cap_level_ = 1;
  int max_level_ = 0;
  bool saturation_ = false;
  int saturation_bits_ = 24;
  ElemType cap_to_ = ElemType::kF32;
  std::vector<Failure> structural_;
  std::vector<Obligation> top_;
  Mem mem_;
  std::map<std::string, AbsVal> stored_;
  IndexScope scope_;
  AffineCache* affine_;
  std::string rho_unbounded_;
  std::map<const Op*, std::vector<LoopKSite>> loop_sites_;  // by mfma, proved only
  const Op* last_store_ = nullptr;
  VarId next_var_ = 0;
};

// Why `o` (now over constants only) is not exactly representable, or "".
std::string Unrepresentable(const Obligation& o) {
  const double mag = o.mag.c0, frac = o.frac.c0;
  if (mag == 0 || frac == -kInf) return "";
  if (!o.mag.IsConst() || !o.frac.IsConst() || std::isinf(mag) || std::isinf(frac))
    return absl::StrCat(o.what, " has no finite bound");
  if (o.t == ElemType::kI32)
    return mag <= 2147483647.0 ? "" : absl::StrFormat("%s may reach %.6g and overflow i32", o.what, mag);
  const FloatType ft = FloatInfo(o.t);
  const std::string type(ElemTypeName(o.t));
  const double lo = -frac;
  if (o.range_only) {
    // The conversion pass: a value both sides hold bit for bit, rounded the
    // same way on both; it must not overflow t.
    if (mag > ft.max_finite)
      return absl::StrFormat("%s may reach %.6g, beyond %s's largest value %.6g", o.what, mag, type, ft.max_finite);
    return "";
  }
  if (o.extra_bits > 0) {
    // A conversion's operand in the conversion pass: exact in f32 (its
    // producer's obligation), below t's largest value (so that it rounds to
    // a finite code of t on both sides), at most p + extra_bits bits.
    const FloatType f32 = FloatInfo(ElemType::kF32);
    const int bits = std::min(ft.p + o.extra_bits, f32.p);
    if (mag > ft.max_finite && !o.saturates)
      return absl::StrFormat("%s may reach %.6g, beyond %s's largest value %.6g", o.what, mag, type, ft.max_finite);
    if (o.saturates && mag > f32.max_finite)
      return absl::StrFormat("%s may reach %.6g, beyond f32's largest value", o.what, mag);
    if (lo < f32.emin_sub)
      return absl::StrFormat("%s has steps of 2^%g, below f32's smallest subnormal 2^%d", o.what, lo, f32.emin_sub);
    if (mag > std::ldexp(1.0, static_cast<int>(lo) + bits))
      return absl::StrFormat("%s needs %d significand bits (magnitudes up to %.6g in steps of 2^%g), more than "
                             "the %d the conversion pass allows (%s's %d + %d)",
                             o.what, static_cast<int>(std::ceil(std::log2(mag) - lo - 1e-12)), mag, lo, bits, type,
                             ft.p, o.extra_bits);
    return "";
  }
  if (mag > ft.max_finite)
    return absl::StrFormat("%s may reach %.6g, beyond %s's largest value %.6g", o.what, mag, type, ft.max_finite);
  if (lo < ft.emin_sub)
    return absl::StrFormat("%s has steps of 2^%g, below %s's smallest subnormal 2^%d", o.what, lo, type,
                           ft.emin_sub);
  if (mag > std::ldexp(1.0, static_cast<int>(lo) + ft.p)) {
    const int bits = static_cast<int>(std::ceil(std::log2(mag) - lo - 1e-12));
    return absl::StrFormat("%s needs %d significand bits (magnitudes up to %.6g in steps of 2^%g), more than "
                           "%s's %d",
                           o.what, bits, mag, lo, type, ft.p);
  }
  return "";
}

// The input forms tried per argument, richest first; `special`: the
// argument's only form is the special values of the conversions to these
// targets.
// `two_scale_gap` > 0: float buffers try two-scale forms (ExactFormat::
// two_scale) of that gap and at most `two_scale_bits` bits first.
std::vector<ExactFormat> Levels(const Arg& a, const std::vector<ElemType>* special, bool conversion,
                                int scalar_index, int two_scale_gap = 0, int two_scale_bits = 0) {
  std::vector<ExactFormat> v;
  if (special != nullptr && !special->empty()) {
    ExactFormat f;
    f.special = true;
    f.special_to = special->front();
    f.special_targets = *special;
    v.push_back(f);
    return v;
  }
  auto fl = [&](int bits, int spread) {
    ExactFormat f;
    f.bits = bits;
    f.spread = spread;
    f.exp_lo = -(bits + spread);
    v.push_back(f);
  };
  if (a.kind == Arg::Kind::kScalar) {
    if (a.elem == ElemType::kI32) {
      for (int64_t m : {100, 10, 1}) v.push_back(ExactFormat{0, 0, 0, 1, m, {}});
    } else {
      // Never 1 while another value keeps the products exact (review 6 F1):
      // 1 is the identity of a scale factor, so a dropped multiply by it
      // would pass. A power of two (2, then 0.5) needs no more significand
      // bits than 1; 1 itself is the last resort (RunAndCheck adds a random
      // pass then, saying so). The conversion pass starts at {2}: a set such
      // as {0.5, 1.5, 2} makes the analysis budget its worst case (2 bits of
      // range and 1 of significand per scalar) while one run holds one value,
      // so the values before a conversion would carry that many bits fewer
      // than the bound allows and often round exactly (a round-toward-zero
      // f16 epilogue of alpha * sa * A * B + beta * C passed seeds 1 and 3 so,
      // review 7 F4's ge.kir).
      // Each f32 scalar's first conversion set is its own power of two
      // (2, 0.5, 4, 0.25, 8, ... by position among the f32 scalars), so
      // that a kernel reading one scalar's kernarg slot for another's
      // (alpha for beta) gives another value (fresh-user review 8 F3: with
      // every scale 2, reading beta from sb's slot passed every seed).
      const int half = scalar_index / 2 + 1;
      const double own = std::ldexp(1.0, scalar_index % 2 == 0 ? half : -half);
      const std::vector<std::vector<double>> exact_sets = {{0.5, 1.5, 2}, {2}, {0.5}, {1}};
      const std::vector<std::vector<double>> conversion_sets = {{own}, {2}, {0.5}, {1}};
      for (const std::vector<double>& c : conversion ? conversion_sets : exact_sets)
        v.push_back(ExactFormat{0, 0, 0, 0, 0, c});
    }
    return v;
  }
  if (a.elem == ElemType::kI32) {
    for (int64_t m : {1000, 100, 10, 1}) v.push_back(ExactFormat{0, 0, 0, -m, m, {}});
    return v;
  }
  const int p = FloatInfo(a.elem).p;
  if (two_scale_gap > 0)
    for (int b = std::min(p, two_scale_bits); b >= 1; --b) {
      fl(b, two_scale_gap);
      v.back().two_scale = true;
    }
  for (int s = 3; s >= 0; --s) fl(p, s);
  for (int b = p - 1; b >= 1; --b) fl(b, 0);
  return v;
}

// How much variety a form gives (the argument narrowed first is the richest).
double Richness(const ExactFormat& f) {
  if (f.special) return 0;
  if (!f.choices.empty()) return static_cast<double>(f.choices.size());
  if (f.bits == 0) return std::log2(static_cast<double>(f.int_hi - f.int_lo) + 1);
  // A two-scale form counts its significand only: the planner narrows the
  // other arguments first, so that a product keeps one two-scale factor
  // (the gaps of two would add up).
  if (f.two_scale) return f.bits;
  return f.bits + f.spread;
}

// The suffix of the ordinal of n: "st" (61st), "nd", "rd", "th" (11th, 67th).
const char* Ordinal(int n) {
  if (n % 100 >= 11 && n % 100 <= 13) return "th";
  return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}
}  // namespace

KWindowLayout KWindowLayoutOf(const Arg& a) {
  if (a.kind != Arg::Kind::kBuffer || a.shape.size() != 2 || a.strides.size() != 2) return KWindowLayout::kNone;
  if (a.strides[1] >= 1 && a.strides[0] >= a.strides[1] * a.shape[1]) return KWindowLayout::kRows;
  if (a.strides[0] >= 1 && a.strides[1] >= a.strides[0] * a.shape[0]) return KWindowLayout::kColumns;
  return KWindowLayout::kNone;
}

int64_t KWindowTerms(const ExactFormat& f) {
  if (f.k_window <= 0 || f.k_period <= 0 || f.k_block <= 0) return f.k_len;
  return std::min(f.k_len, (f.k_len + f.k_period - 1) / f.k_period * std::min(f.k_block, f.k_period));
}

std::string ExactFormat::Describe(ElemType elem) const {
  if (zero) return "all 0";
  if (k_window > 0) {
    ExactFormat dense = *this;
    dense.k_window = 0;
    const char* per = k_dim == 1 ? "row" : "column";
    return absl::StrCat(dense.Describe(elem), "; nonzero only at k with (k - o) mod ", k_period, " < ", k_block,
                        " (blocks of ", k_block, " every ", k_period, ", o per ", per,
                        " from the seed; zero elsewhere): at most ", KWindowTerms(*this), " of ", k_len,
                        " terms per sum",
                        two_scale && low_period > 0 ? "; the low scale's elements counted along the window" : "");
  }
  if (special) {
    // Every target: "to f16", "to f16 and bf16", "to f16, bf16 and f8e4m3fn".
    std::vector<std::string> to;
    for (ElemType t : special_targets.empty() ? std::vector<ElemType>{special_to} : special_targets)
      to.push_back(std::string(ElemTypeName(t)));
    const std::string last = to.back();
    to.pop_back();
    const std::string targets = to.empty() ? last : absl::StrCat(absl::StrJoin(to, ", "), " and ", last);
    return absl::StrCat("special ", elem == ElemType::kF32 ? std::string() : absl::StrCat(std::string(ElemTypeName(elem)), " "),
                        "values of the conversion", to.empty() ? "" : "s", " to ", targets,
                        " (NaN, +-inf, +-0, +-max, beyond max, subnormals, ties and tie +-1 ulp",
                        to.empty() ? "" : " of each", ") at every position");
  }
  if (mix_level >= 0) {
    ExactFormat plain = *this;
    plain.mix_level = -1;
    const std::vector<double> sp = SaturationSpecials(elem, special_to, mix_level);
    std::vector<std::string> names;
    for (size_t i = 0; i < sp.size(); ++i) {
      const double x = sp[i];
      // +x and -x side by side as +-x.
      if (i + 1 < sp.size() && sp[i + 1] == -x && x > 0) {
        names.push_back(absl::StrFormat("+-%g", x));
        ++i;
      } else {
        names.push_back(std::isnan(x) ? std::string("NaN") : absl::StrFormat("%g", x));
      }
    }
    // The window value `elem` cannot hold (fresh-user review 16 F3): said.
    std::string window;
    if (mix_level < 2) {
      const FloatType t = FloatInfo(special_to);
      int emax = 0;
      std::frexp(t.max_finite, &emax);
      const double half_top = std::ldexp(1.0, emax - 1 - t.p);
      if (!ExactBits(elem, t.max_finite + half_top / 2))
        window = absl::StrFormat("; %s cannot hold +-%g, inside the window (%g, %g) that rounds to max: no value of it "
                                 "lies there",
                                 std::string(ElemTypeName(elem)), t.max_finite + half_top / 2, t.max_finite,
                                 t.max_finite + half_top);
    }
    return absl::StrCat(plain.Describe(elem), "; ", sp.size(), " in ", kConversionSpecials,
                        " elements (at every position) ", absl::StrJoin(names, ", "),
                        " (saturation of the conversion to ", std::string(ElemTypeName(special_to)), ")", window);
  }
  if (!choices.empty()) {
    std::vector<std::string> c;
    for (double x : choices) c.push_back(absl::StrFormat("%g", std::ldexp(x, shift)));
    return absl::StrCat("one of {", absl::StrJoin(c, ", "), "}");
  }
  if (bits == 0) return absl::StrCat("integers in [", int_lo, ", ", int_hi, "]");
  const std::string diagonal =
      this->diagonal == Diagonal::kNone
          ? std::string()
          : absl::StrCat("; ", this->diagonal == Diagonal::kInf ? "+inf" : "NaN", " at [4 (q + ",
                         diagonal_offset != 0 ? absl::StrCat(diagonal_offset, " + ") : "", "2 i) + t, 4 (r + ",
                         diagonal_offset != 0 ? absl::StrCat(diagonal_offset, " + ") : "", "2 i) + t], t = 0..3, i = ",
                         diagonal_first, diagonal_blocks > 1 ? absl::StrCat("..", diagonal_first + diagonal_blocks - 1) : "");
  if (two_scale)
    return absl::StrCat("+-m*2^e, m in [1, ", (int64_t{1} << bits) - 1, "], e = ", exp_lo + spread + shift,
                        high_negative_one_in > 0 ? absl::StrCat(" (negative 1 in ", high_negative_one_in, ")") : "",
                        low_period > 0 ? absl::StrCat("; every ", low_period, Ordinal(low_period), " element +-2^")
                                       : absl::StrCat("; one in ", low_one_in, " +-2^"),
                        low_spread > 0 ? absl::StrCat(exp_lo + low_spread + shift, " (3 in 4) or +-2^") : "",
                        exp_lo + shift, low_period > 0 ? ", alternately negative" : "", diagonal);
  const std::string e = spread == 0 ? absl::StrCat("e = ", exp_lo + shift)
                                    : absl::StrCat("e in [", exp_lo + shift, ", ", exp_lo + spread + shift, "]");
  // The subnormal share (sub_period): the group's first buffer says where
  // its operand lands, the others that they are +-2^exp_lo at its positions.
  const std::string sub =
      sub_period <= 0 ? std::string()
      : !sub_note.empty() ? absl::StrCat("; every ", sub_period, Ordinal(sub_period), " element (from a seeded offset) +-m*2^e, m in [1, ",
                                     sub_m_max, "], e = ", exp_lo + shift, " (", sub_note, ")")
                      : absl::StrCat("; at ", sub_group, "'s every ", sub_period, Ordinal(sub_period), " element ",
                                     sub_m_max > 0 ? absl::StrCat("+-2^", exp_lo + shift) : std::string("0"));
  return absl::StrCat("+-m*2^e, m in [1, ", (int64_t{1} << bits) - 1, "], ", e, diagonal, sub);
}

namespace {

// The largest multiple of 2^lo not above `mag`: the bound of values that
// are multiples of 2^lo with magnitude at most `mag` (a product that need
// only stay in range has its bound raised by one rounding, 128 (1 + 2^-23),
// yet in steps of 0.5 its values stop at 128: 256 halves, one significant
// bit, not 9; fresh-user review 16 F6). `mag` itself when it or lo is not
// finite.
double MultipleBound(double mag, double lo) {
  if (!std::isfinite(mag) || !std::isfinite(lo) || !(mag > 0)) return mag;
  const double n = std::floor(std::ldexp(mag, static_cast<int>(-lo)));
  return n >= 1 ? std::ldexp(n, static_cast<int>(lo)) : mag;
}

// The notes of the narrowing conversions among `obl` (the conversion
// pass's obligations of an analysis that fit), one per op in program order
// of the obligations; `special`: the buffers holding special values.
std::vector<ConversionNote> ConversionNotes(const std::vector<Obligation>& obl,
                                            const std::map<std::string, std::vector<ElemType>>& special) {
  std::vector<ConversionNote> notes;
  std::map<const Op*, size_t> seen;
  for (const Obligation& o : obl) {
    if (o.conversion_level == 0) continue;
    ConversionNote n;
    n.where = OpWhere(o.op);
    n.to = o.t;
    n.level = o.conversion_level;
    n.capped = o.extra_bits > 0 && !o.saturates;
    const FloatType ft = FloatInfo(o.t);
    n.target_p = ft.p;
    const double lo = o.frac.IsConst() ? -o.frac.c0 : -kInf;
    const double mag = MultipleBound(o.mag.IsConst() ? o.mag.c0 : kInf, lo);
    bool from_special = false;
    for (const std::string& d : o.deps) from_special |= special.count(d) > 0;
    if (mag > 0 && std::isfinite(mag) && std::isfinite(lo)) {
      n.bits = static_cast<int>(std::ceil(std::log2(mag) - lo - 1e-12));
      n.rounds = mag > std::ldexp(1.0, static_cast<int>(lo) + ft.p) || lo < ft.emin_sub;
    }
    n.rounds = n.rounds || from_special;
    auto [it, fresh] = seen.emplace(o.op, notes.size());
    if (fresh) {
      notes.push_back(n);
    } else {
      ConversionNote& m = notes[it->second];
      m.rounds = m.rounds || n.rounds;
      m.bits = std::max(m.bits, n.bits);
      m.capped = m.capped || n.capped;
    }
  }
  return notes;
}

// A K window for one gemm operand (ExactFormat::k_window), as KWindowPlan
// tries it.
struct KWindow {
  std::string arg;
  int dim = 0;
  int64_t len = 0, block = 0, period = 0, n = 0;
  int64_t lowest = 0;  // the smallest count TryKWindows tries
};

// `f` with window `w` (float buffer forms only).
void ApplyKWindow(ExactFormat& f, const KWindow& w) {
  if (f.special || !f.choices.empty() || f.bits == 0) return;
  f.k_window = w.n;
  f.k_dim = w.dim;
  f.k_len = w.len;
  f.k_block = w.block;
  f.k_period = w.period;
}

// What Plan is asked for, beside the kernel (the K window searches pass it
// on unchanged). conversion: PlanConversionInputs (false: PlanExactInputs);
// cap_level: the chain level whose conversions get the extra bits;
// two_scale_gap / two_scale_bits: two-scale inputs (0: none; LongSumTwoScale
// in PlanConversionPasses); saturation: every narrowing conversion's operand
// need only be exact in f32 and may lie beyond its target's max
// (PlanSaturationBase), with at most saturation_bits significand bits;
// cap_to (not f32): a target pass (ExactPlan::to); buffer_shift: every form
// of a float buffer (not special) times 2^buffer_shift (ExactFormat::shift)
// where its values stay in its type's range (a target pass whose other
// conversions must stay in range: fp8's 240 bounds the sum's magnitude, not
// its bits).
struct PlanRequest {
  bool conversion = false;
  int cap_level = 1;
  int two_scale_gap = 0, two_scale_bits = 0;
  bool saturation = false;
  int saturation_bits = 24;
  ElemType cap_to = ElemType::kF32;
  int buffer_shift = 0;
};

ExactPlan KWindowPlan(const Kernel& k, const Op& gemm, const PlanRequest& r);
ExactPlan LoopKWindowPlan(const Kernel& k, const LoopKSite& site, const PlanRequest& r);

// PlanExactInputs and PlanConversionInputs, as `req` asks (PlanRequest);
// *chain_levels: the highest chain level of a narrowing conversion.
// `window`: every form of its argument gets that K window; without one, when
// no inputs exist because of a gemm op's or an mfma loop's values,
// KWindowPlan's or LoopKWindowPlan's plan when it finds one.
ExactPlan Plan(const Kernel& k, const PlanRequest& req, int* chain_levels = nullptr,
               const KWindow* window = nullptr) {
  const bool conversion = req.conversion, saturation = req.saturation;
  const int cap_level = req.cap_level, two_scale_gap = req.two_scale_gap, two_scale_bits = req.two_scale_bits;
  const int saturation_bits = req.saturation_bits, buffer_shift = req.buffer_shift;
  const ElemType cap_to = req.cap_to;
  ExactPlan plan;
  std::map<std::string, std::vector<ExactFormat>> levels;
  std::map<std::string, size_t> cur;
  Analysis::AffineCache affine;
  const std::map<std::string, std::vector<ElemType>> special =
      conversion ? ConversionFedBuffers(k) : std::map<std::string, std::vector<ElemType>>{};
  int f32_scalars = 0;
  for (const Arg& a : k.args) {
    auto sp = special.find(a.name);
    const bool f32_scalar = a.kind == Arg::Kind::kScalar && a.elem != ElemType::kI32;
    levels[a.name] = Levels(a, sp == special.end() ? nullptr : &sp->second, conversion,
                            f32_scalar ? f32_scalars++ : 0, two_scale_gap, two_scale_bits);
    cur[a.name] = 0;
    if (window != nullptr && window->arg == a.name)
      for (ExactFormat& f : levels[a.name]) ApplyKWindow(f, *window);
    if (buffer_shift != 0 && a.kind == Arg::Kind::kBuffer && a.elem != ElemType::kI32)
      for (ExactFormat& f : levels[a.name]) {
        const FloatType at = FloatInfo(a.elem);
        if (!f.special && f.bits > 0 && f.exp_lo + f.shift + buffer_shift >= at.emin_sub &&
            std::ldexp(std::ldexp(1.0, f.bits) - 1, f.exp_lo + f.spread + f.shift + buffer_shift) <= at.max_finite)
          f.shift += buffer_shift;
      }
  }
  for (;;) {
    std::map<std::string, ExactFormat> formats;
    for (const Arg& a : k.args) {
      formats[a.name] = levels[a.name][cur[a.name]];
    }
    Analysis an(k, &formats, &affine, conversion, cap_level, saturation, saturation_bits, cap_to);
    an.Run();
    if (chain_levels != nullptr) *chain_levels = an.max_conversion_level();
    if (!an.structural().empty()) {
      const Failure& f = an.structural().front();
      plan.blocker = absl::StrCat(OpWhere(f.op), ": ", f.why);
      return plan;
    }
    const Obligation* bad = nullptr;
    std::string why;
    for (const Obligation& o : an.obligations()) {
      why = Unrepresentable(o);
      if (!why.empty()) {
        bad = &o;
        break;
      }
    }
    if (bad == nullptr) {
      plan.exact = true;
      plan.formats = std::move(formats);
      if (conversion) {
        plan.level = cap_level;
        plan.to = cap_to;
        plan.conversions = ConversionNotes(an.obligations(), special);
      }
      return plan;
    }
    // Narrow the richest argument behind the failing value that can narrow.
    const Arg* pick = nullptr;
    for (const Arg& a : k.args) {
      if (!bad->deps.count(a.name) || cur[a.name] + 1 >= levels[a.name].size()) continue;
      if (pick == nullptr ||
          Richness(levels[a.name][cur[a.name]]) > Richness(levels[pick->name][cur[pick->name]]))
        pick = &a;
    }
    if (pick == nullptr) {
      // A gemm's K-long sum: most of an operand's K terms zero (fresh-user
      // review 13 F4: K = 16384 fp8 with a bf16 C had no conversion pass).
      if (window == nullptr && bad->op != nullptr && bad->op->kind == OpKind::kGemm)
        if (ExactPlan w = KWindowPlan(k, *bad->op, req); w.exact)
          return w;
      // An mfma loop's K-long sum behind the value (fresh-user review 20 F3).
      // Where no operand of an mfma is proved, the line says why.
      std::vector<std::string> refused;
      if (window == nullptr) {
        const std::vector<LoopKSite> sites = LoopKSites(k);
        std::map<const Op*, std::vector<std::string>> why_not;
        for (const LoopKSite& s : sites) {
          if (!s.why_not.empty()) {
            why_not[s.mfma].push_back(WhyNot(s));
            continue;
          }
          why_not[s.mfma];  // proved: nothing to say
          if (!bad->deps.count(s.arg)) continue;
          if (ExactPlan w = LoopKWindowPlan(k, s, req); w.exact)
            return w;
        }
        for (const LoopKSite& s : sites)
          if (auto it = why_not.find(s.mfma); it != why_not.end()) {
            const bool proved = std::any_of(sites.begin(), sites.end(),
                                            [&](const LoopKSite& o) { return o.mfma == s.mfma && o.why_not.empty(); });
            if (!proved) refused.push_back(absl::StrCat(OpWhere(s.mfma), ": ", absl::StrJoin(it->second, ", and ")));
            why_not.erase(it);
          }
      }
      plan.blocker = absl::StrCat(OpWhere(bad->op), ": ", why,
                                  bad->deps.empty() ? "" : " even with the narrowest exact inputs",
                                  refused.empty() ? "" : absl::StrCat("; no K window through ",
                                                                      absl::StrJoin(refused, "; ")));
      return plan;
    }
    ++cur[pick->name];
  }
}

// The K windows KWindowPlan tries: counts n from the largest power of two
// below K down to this (or an MFMA's K per instruction when larger), in
// blocks of at most kKWindowBlock consecutive K indices.
constexpr int64_t kMinKWindow = 64;
constexpr int64_t kKWindowBlock = 16;

// KWindowPlan's search for window `w` (its arg, dim, len and lowest set):
// the largest power of two n below w.len, down to w.lowest, for which Plan
// finds inputs (that `accept` takes, when given), in blocks of min(n,
// kKWindowBlock) every ceil(len / (n / block)) K indices; from `highest`
// down when it is smaller; !exact when none does.
ExactPlan TryKWindows(const Kernel& k, KWindow w, const PlanRequest& r,
                      const std::function<bool(const ExactPlan&)>& accept = nullptr, int64_t highest = 0) {
  int64_t n = 1;
  while (2 * n < w.len) n *= 2;
  if (highest > 0) n = std::min(n, highest);
  for (; n >= w.lowest; n /= 2) {
    w.n = n;
    w.block = std::min(n, kKWindowBlock);
    const int64_t blocks = n / w.block;
    w.period = (w.len + blocks - 1) / blocks;
    if (ExactPlan p = Plan(k, r, nullptr, &w); p.exact && (accept == nullptr || accept(p)))
      return p;
  }
  return ExactPlan{};
}

// The window KWindowPlan searches for gemm op `gemm`: on A (on B when A's
// layout allows none: KWindowLayoutOf; ExactFormat::k_window), counts at
// least kMinKWindow and the K of one MFMA instruction; none when neither
// operand's layout allows one.
std::optional<KWindow> GemmKWindow(const Kernel& k, const Op& gemm) {
  const GemmOp& g = gemm.gemm;
  // A, else B when A's layout has none (KWindowLayoutOf).
  const Arg* a = k.FindArg(g.a);
  KWindow w;
  w.arg = g.a;
  w.dim = g.a_km ? 0 : 1;
  if (a == nullptr || KWindowLayoutOf(*a) == KWindowLayout::kNone) {
    a = k.FindArg(g.b);
    w.arg = g.b;
    w.dim = g.b_kn ? 0 : 1;
  }
  if (a == nullptr || a->elem == ElemType::kI32 || KWindowLayoutOf(*a) == KWindowLayout::kNone) return std::nullopt;
  w.len = a->shape[w.dim];
  // At least one MFMA instruction's K: the named MFMA's, else the largest
  // of the MFMAs that take A's type (the promotion chooses among them).
  w.lowest = kMinKWindow;
  if (const MfmaDesc* d = g.mfma.empty() ? nullptr : LookupMfma(g.mfma); d != nullptr)
    w.lowest = std::max<int64_t>(w.lowest, d->k);
  else
    for (const MfmaDesc& m : AllMfmas())
      if (MfmaInAccepts(m.a_in, a->elem)) w.lowest = std::max<int64_t>(w.lowest, m.k);
  return w;
}

// Inputs for `k` whose gemm op `gemm` has a K window (GemmKWindow): the
// largest count n (a power of two below K) for which Plan finds inputs, in
// blocks of min(n, 16) every ceil(K / (n / block)) K indices (then at most
// n per row). !exact when neither operand's layout allows a window, or no n
// fits.
ExactPlan KWindowPlan(const Kernel& k, const Op& gemm, const PlanRequest& r) {
  const std::optional<KWindow> w = GemmKWindow(k, gemm);
  return w ? TryKWindows(k, *w, r) : ExactPlan{};
}

// The K window of LoopKSite `site` (proved): on its buffer along its K
// dimension, as KWindowPlan's, counts n at least kMinKWindow and the
// MFMA's K.
std::optional<KWindow> LoopKWindow(const Kernel& k, const LoopKSite& site) {
  const Arg* a = k.FindArg(site.arg);
  const MfmaDesc* d = LookupMfma(site.mfma->mfma);
  if (a == nullptr || d == nullptr) return std::nullopt;
  KWindow w;
  w.arg = site.arg;
  w.dim = site.dim;
  w.len = a->shape[site.dim];
  w.lowest = std::max<int64_t>(kMinKWindow, d->k);
  return w;
}

ExactPlan LoopKWindowPlan(const Kernel& k, const LoopKSite& site, const PlanRequest& r) {
  const std::optional<KWindow> w = LoopKWindow(k, site);
  return w ? TryKWindows(k, *w, r) : ExactPlan{};
}

// Every op of `ops`, loop bodies included.
void AllOps(const std::vector<Op>& ops, std::vector<const Op*>& out) {
  for (const Op& op : ops) {
    out.push_back(&op);
    if (op.kind == OpKind::kFor) AllOps(op.body, out);
  }
}

// Whether plan `p` (a conversion plan) may round a conversion of chain
// level `level`.
bool RoundsAtLevel(const ExactPlan& p, int level) {
  for (const ConversionNote& n : p.conversions)
    if (n.level == level && n.rounds) return true;
  return false;
}

// The windows KWindowPlan and LoopKWindowPlan search, with their lowest
// counts: the gemm ops' (program order), then the proved mfma loops'.
std::vector<KWindow> KWindowCandidates(const Kernel& k) {
  std::vector<KWindow> r;
  std::vector<const Op*> ops;
  AllOps(k.body, ops);
  for (const Op* op : ops)
    if (op->kind == OpKind::kGemm)
      if (std::optional<KWindow> w = GemmKWindow(k, *op)) r.push_back(*w);
  for (const LoopKSite& s : LoopKSites(k))
    if (s.why_not.empty())
      if (std::optional<KWindow> w = LoopKWindow(k, s)) r.push_back(*w);
  return r;
}

// A conversion plan for `r` (at r.cap_level) through a K window when the
// plan without one leaves every conversion of that level exact (fresh-user
// review 22 F2: in f32 -> f16 -> fp8 after an MFMA loop of K >= 256, the
// fp8 operand's range bounded the K-long sum so that the f16 conversion
// never rounded): the windows of the gemm ops' and the mfma loops' K sums
// (KWindowPlan's, LoopKWindowPlan's), each the largest count whose inputs
// round a conversion of the level. !exact when none does.
ExactPlan RoundingKWindowPlan(const Kernel& k, const PlanRequest& r) {
  auto rounds = [&](const ExactPlan& p) { return RoundsAtLevel(p, r.cap_level); };
  for (const KWindow& w : KWindowCandidates(k))
    if (ExactPlan p = TryKWindows(k, w, r, rounds); p.exact) return p;
  return ExactPlan{};
}

// The K window of `p`'s forms (the first form that has one), if any.
std::optional<KWindow> WindowOf(const ExactPlan& p) {
  for (const auto& [name, f] : p.formats)
    if (f.k_window > 0) return KWindow{name, f.k_dim, f.k_len, f.k_block, f.k_period, f.k_window};
  return std::nullopt;
}

// A cvt that rounds: to a float type other than f32, from another type
// that is not fp8 (fp8 widens exactly to f16, bf16 and f32).
bool Narrows(ElemType from, ElemType to) {
  return from != to && to != ElemType::kF32 && to != ElemType::kI32 && !IsFp8(from);
}

}  // namespace

ExactPlan PlanExactInputs(const Kernel& k) { return Plan(k, PlanRequest{}); }

ExactPlan PlanConversionInputs(const Kernel& k) {
  if (!HasNarrowingConversion(k)) {
    ExactPlan plan;
    plan.blocker = "the kernel has no narrowing conversion (a cvt to f16, bf16 or fp8, or a gemm with such a C)";
    return plan;
  }
  std::vector<ExactPlan> passes = PlanConversionPasses(k);
  if (!passes.empty() && passes.front().level == 1) return std::move(passes.front());
  return Plan(k, PlanRequest{.conversion = true});  // not exact: its blocker
}

namespace {

// The level-1 conversions' operands of `k` with `formats` (a conversion
// plan's): the arguments behind them and their number of terms, the bound
// of the operand when every float buffer element is +-1 and every f32
// scalar 1 (a sum of T products of inputs is T; an mfma K loop's T is K).
struct Level1Terms {
  double terms = 0;
  Deps deps;
};
Level1Terms TermsBeforeLevel1(const Kernel& k, const std::map<std::string, ExactFormat>& formats) {
  std::map<std::string, ExactFormat> ones = formats;
  for (const Arg& a : k.args) {
    ExactFormat& f = ones[a.name];
    if (f.special || a.elem == ElemType::kI32) continue;
    if (a.kind == Arg::Kind::kScalar) {
      f.choices = {1};
      f.shift = 0;
      continue;
    }
    ExactFormat one;  // +-1, in the form's K window
    one.bits = 1;
    one.k_window = f.k_window;
    one.k_dim = f.k_dim;
    one.k_len = f.k_len;
    one.k_block = f.k_block;
    one.k_period = f.k_period;
    f = one;
  }
  Analysis::AffineCache affine;
  Analysis an(k, &ones, &affine, /*conversion=*/true, 1);
  an.Run();
  Level1Terms r;
  for (const Obligation& o : an.obligations()) {
    if (o.conversion_level != 1 || !o.mag.IsConst()) continue;
    r.terms = std::max(r.terms, o.mag.c0);
    r.deps.insert(o.deps.begin(), o.deps.end());
  }
  return r;
}

// `p` (a two-scale level-1 plan, PlanConversionPasses) for a long sum
// before the chain (fresh-user review 10 F3: an f16 step whose ties round
// toward zero passed an MFMA -> f16 -> fp8 chain; at most one of 256 fp8
// codes differed). The last conversion (p_last bits) sees the first one's
// rounding only where the value before the chain, S = C + F, has a coarse
// part C on a midpoint of the last format (an even value of the first) and
// a fine part F of exactly half an ulp of the first (p1 bits): S is then a
// tie of the first conversion, which rounds it to C (even). With F toward
// zero and C's tie in the last format away from zero, a round-toward-zero
// or ties-toward-zero first step gives C - ulp (toward zero), which the
// last conversion rounds the other way; with F away from zero and C's tie
// toward zero, a ties-away-from-zero first step gives C + ulp, which the
// last rounds away (fresh-user review 12 F5: the fine parts were negative
// 3 in 4 and a ties-away f16 step passed seeds 3, 6 and 9 of 10). A sum of
// T = `terms` products whose factors have significands of several bits
// has a C of many bits (a tie of p_last in few elements) and a fine part
// scaled by the other factors' significands. So here, when C would exceed
// p_last bits anyway (0.5625 T >= 2^p_last: the mean of T products of
// factors negative 1 in 8, in units of C's lowest bit), every factor is
// +-2^e (one significand bit): the other arguments behind the level-1
// conversions become +-1/2, the two-scale ones +-2^-1 or, at every P-th
// element (ExactFormat::low_period, P the largest prime <= T: one per sum
// along any stride prime to P, two in (T - P) / P of them), +-2^-s (3 in
// 4) or +-2^(-1 - s), alternately negative, so that F = +-2^(1 - s) of C's
// unit (times the other factors: their sign decides F's relative to C),
// half an ulp, in 3/4 of the sums, half toward zero and half away, and
// F = +-2^-s, a quarter ulp that rounds without a tie, in 1/4. C, a sum of
// n = T - 1 terms +-1 (when one is low), has n's parity, so it is aimed at
// a binade [2^b, 2^(b+1)) whose midpoints of p_last bits share it: b =
// p_last (odd midpoints, tie up at 3 mod 4, down at 1 mod 4) for odd n,
// b = p_last + 1 (2 mod 4, up at 6 mod 8, down at 2 mod 8) for even n; the
// high scale's negatives (1 in 8, 4 or 2) bring its mean (1 - 2q) n near
// 1.5 * 2^b, and s = p1 - b + 1 makes 2^(1 - s) half an ulp of p1 bits
// there. `p` unchanged when no argument is two-scale, the sums are short
// or the forms do not fit (the analysis checks them again).
ExactPlan LongSumTwoScale(const Kernel& k, ExactPlan p, int p1, int p_last) {
  const Level1Terms lt = TermsBeforeLevel1(k, p.formats);
  if (!(0.5625 * lt.terms >= std::ldexp(1.0, p_last))) return p;
  std::map<std::string, ExactFormat> f = p.formats;
  // Behind a K window (RoundingKWindowPlan) the windowed buffer takes the
  // low terms, at every P-th element of its window (inputs.cc: counted
  // along the window's nonzero elements), so that each sum meets one as a
  // dense sum of T terms would; its product partners become +-1/2.
  std::string windowed;
  for (const Arg& a : k.args)
    if (a.kind == Arg::Kind::kBuffer && a.elem != ElemType::kI32 && lt.deps.count(a.name) && f[a.name].k_window > 0 &&
        !f[a.name].special && f[a.name].mix_level < 0)
      windowed = a.name;
  bool two_scale = false;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.elem == ElemType::kI32 || !lt.deps.count(a.name)) continue;
    ExactFormat& x = f[a.name];
    if (x.special || x.mix_level >= 0) continue;
    two_scale |= x.two_scale;
    if (!windowed.empty()) x.two_scale = a.name == windowed;
    if (!x.two_scale) {  // +-1/2
      x.bits = 1;
      x.spread = 0;
      x.exp_lo = -1;
    }
  }
  if (!two_scale) return p;
  const double n = std::round(lt.terms) - 1;
  const int b = std::fmod(n, 2.0) != 0 ? p_last : p_last + 1;
  // (1 - 2q) n = 1.5 * 2^b, q = r (7/8) + (1 - r) / 8 for the high scale's
  // negatives r (the other factor's: 1 in 8).
  // The high scale's negatives one in N, N in [2, 8] whose mean (1 - 2q) n
  // lies nearest 1.5 * 2^b (one in 3 for a windowed T = 128: mean 31.75;
  // one in 4 would put it at 47.6, in the binade above).
  int negative_one_in = 8;
  for (int cand = 8; cand >= 2; --cand) {
    auto miss = [&](int in) {
      const double r = 1.0 / in, q = r * 7 / 8 + (1 - r) / 8;
      return std::fabs((1 - 2 * q) * n - 1.5 * std::ldexp(1.0, b));
    };
    if (miss(cand) < miss(negative_one_in)) negative_one_in = cand;
  }
  const int s = p1 - b + 1;  // the low terms: a quarter or half an ulp of p1 bits
  if (s < 2) return p;
  // The low terms' period: the largest prime at most T.
  int period = static_cast<int>(std::min(std::round(lt.terms), 1e6));
  auto prime = [](int x) {
    for (int d = 2; d * d <= x; ++d)
      if (x % d == 0) return false;
    return x >= 2;
  };
  while (period > 2 && !prime(period)) --period;
  // A low term below its type's smallest subnormal (2^-10 in f8e4m3fn,
  // whose least is 2^-9, before an f8e5m2 last step) moves up by 2^t with
  // its product partners down by 2^-t: every product of the two stays.
  int up = 0;
  for (const Arg& a : k.args) {
    auto x = f.find(a.name);
    if (x != f.end() && x->second.two_scale && lt.deps.count(a.name))
      up = std::max(up, FloatInfo(a.elem).emin_sub + (1 + s));
  }
  for (const Arg& a : k.args) {
    auto it = f.find(a.name);
    if (it == f.end() || !lt.deps.count(a.name) || a.kind != Arg::Kind::kBuffer || a.elem == ElemType::kI32) continue;
    ExactFormat& x = it->second;
    if (x.special || x.mix_level >= 0) continue;
    if (!x.two_scale) {
      x.shift -= up;
      continue;
    }
    x.bits = 1;
    x.spread = s;
    x.exp_lo = -(1 + s);
    x.shift += up;
    x.low_one_in = static_cast<int>(std::min(std::round(lt.terms), 1e6));
    x.low_period = period;
    x.low_spread = 1;
    x.high_negative_one_in = negative_one_in;
  }
  Analysis::AffineCache affine;
  Analysis an(k, &f, &affine, /*conversion=*/true, 1);
  an.Run();
  if (!an.structural().empty()) return p;
  for (const Obligation& o : an.obligations())
    if (!Unrepresentable(o).empty()) return p;
  p.formats = std::move(f);
  p.conversions = ConversionNotes(an.obligations(), ConversionFedBuffers(k));
  return p;
}

// The level-1 pass of a chain (`p`, PlanConversionPasses; its level-1
// targets p1 bits, its last p_last) with two-scale inputs: dense or through
// p's K window (LongSumTwoScale reshaping them before a long sum), else
// through the largest K window, from p's count (or K) down, whose inputs
// keep a two-scale form behind a rounding level-1 conversion, reshaped for
// a long sum where that applies (fresh-user review 22 F2: the low terms of
// a long sum's forms, 2^-(p1 - b + 2), fit the level's p1 + 5 bits only
// for sums of at most 64 terms when the last format has 3 bits: f8e5m2
// after K = 128 or more drew 1 or 2 ties and a ties-away f16 step passed).
// `p` itself when none does.
ExactPlan ChainTwoScalePlan(const Kernel& k, ExactPlan p, int p1, int p_last) {
  const PlanRequest r{.conversion = true, .two_scale_gap = p1 - 3, .two_scale_bits = p_last + 1};
  // `two` reshaped when its sum is long (LongSumTwoScale), in *out when
  // it rounds a level-1 conversion and keeps a two-scale form behind one
  // (periodic, for a long sum).
  auto shaped = [&](const ExactPlan& two, ExactPlan* out) {
    ExactPlan q = LongSumTwoScale(k, two, p1, p_last);
    if (!RoundsAtLevel(q, 1)) return false;
    const Level1Terms lt = TermsBeforeLevel1(k, q.formats);
    const bool long_sum = 0.5625 * lt.terms >= std::ldexp(1.0, p_last);
    for (const auto& [name, f] : q.formats)
      if (f.two_scale && lt.deps.count(name) && (!long_sum || f.low_period > 0)) {
        *out = std::move(q);
        return true;
      }
    return false;
  };
  const std::optional<KWindow> window = WindowOf(p);
  ExactPlan two = Plan(k, r, nullptr, window ? &*window : nullptr);
  ExactPlan out;
  if (two.exact && shaped(two, &out)) return out;
  for (const KWindow& c : KWindowCandidates(k)) {
    if (window && (c.arg != window->arg || c.dim != window->dim)) continue;
    if (TryKWindows(k, c, r, [&](const ExactPlan& t) { return shaped(t, &out); }, window ? window->n : 0).exact)
      return out;
  }
  // None: the first plan's, unless it rounds no level-1 conversion where
  // p does.
  if (two.exact)
    if (ExactPlan q = LongSumTwoScale(k, std::move(two), p1, p_last); RoundsAtLevel(q, 1) || !RoundsAtLevel(p, 1))
      return q;
  return p;
}

// The largest bound and the lowest bit of the operands of conversion `op`
// among `an`'s obligations ({0, 0} when it has none with constant bounds).
struct OperandBound {
  double mag = 0;
  int lo = 0;
};
OperandBound OperandOf(const Analysis& an, const Op* op) {
  OperandBound b;
  bool any = false;
  for (const Obligation& o : an.obligations()) {
    if (o.op != op || o.conversion_level == 0 || !o.mag.IsConst() || !o.frac.IsConst() ||
        !std::isfinite(o.mag.c0) || !std::isfinite(o.frac.c0) || o.mag.c0 == 0)
      continue;
    const int lo = static_cast<int>(-o.frac.c0);
    b.mag = any ? std::max(b.mag, o.mag.c0) : o.mag.c0;
    b.lo = any ? std::min(b.lo, lo) : lo;
    any = true;
  }
  return b;
}

// The uses of each SSA value of a kernel and the buffers its ops read
// (loads, lds_dma, a gemm's A, B and C): whether every use of a value
// (through slice and concat) is a store of it to a buffer no op reads
// (StoredOnlyConversions, ConversionFedBuffers).
struct StoreOnlyUses {
  explicit StoreOnlyUses(const Kernel& kernel) : k(kernel) {
    AllOps(k.body, ops);
    for (const Op* op : ops) {
      for (const Operand& o : op->operands)
        if (!o.is_arg) uses[o.name].push_back(op);
      if (op->kind == OpKind::kLoad || op->kind == OpKind::kLdsDma) read.insert(op->mem);
      if (op->kind == OpKind::kGemm) {
        read.insert(op->gemm.a);
        read.insert(op->gemm.b);
        read.insert(op->gemm.c);
      }
    }
  }
  // `unused`: the answer for a value without a use.
  bool OnlyStored(const std::string& v, bool unused, int depth = 0) const {
    auto it = uses.find(v);
    if (depth > 64) return false;
    if (it == uses.end() || it->second.empty()) return unused;
    for (const Op* u : it->second) {
      if (u->kind == OpKind::kStore) {
        if (k.FindArg(u->mem) == nullptr || read.count(u->mem) || u->operands.empty() || u->operands[0].name != v)
          return false;
      } else if ((u->kind == OpKind::kSlice || u->kind == OpKind::kConcat) && !u->results.empty()) {
        if (!OnlyStored(u->results[0], /*unused=*/true, depth + 1)) return false;
      } else {
        return false;
      }
    }
    return true;
  }
  const Kernel& k;
  std::vector<const Op*> ops;
  std::map<std::string, std::vector<const Op*>> uses;
  std::set<std::string> read;
};

// The cvt ops of `k` whose result reaches nothing but stores (through
// slice and concat) to buffers no op of `k` reads: their codes are stored
// as they are, so a subnormal share's rounding shows bit for bit (a result
// added to larger values, `cvt(x * x : f16) + z`, would lose it there:
// review 8 F8's round-toward-zero f16 conversion then passed).
std::set<const Op*> StoredOnlyConversions(const Kernel& k) {
  const StoreOnlyUses su(k);
  std::set<const Op*> r;
  for (const Op* op : su.ops)
    if (op->kind == OpKind::kCvt && !op->results.empty() && su.OnlyStored(op->results[0], /*unused=*/false)) r.insert(op);
  return r;
}

// `p` (a conversion pass: level p.level, target pass p.to) with subnormal
// shares (ExactFormat::sub_period; PlanConversionPasses, fresh-user review
// 14 F14): per conversion to f16 or fp8 whose operand carries the pass's
// extra bits and no mfma or gemm computed, in program order, the float
// buffers behind it (not special, two-scale, windowed, with saturation
// specials or behind a computed conversion; not given to an earlier
// conversion; only conversions whose result is only stored:
// StoredOnlyConversions) shifted by a common power of two so that the operand's
// lowest bit is 2^(e_sub - 2) (e_sub: the target's smallest subnormal
// exponent), else 2^(e_sub - 1), 2^e_sub, ... up to half the smallest
// normal, the first for which every value fits, the operand's bound stays
// at least 4 times the smallest normal (the pass still rounds normal
// values) and WithSaturationSpecials gives no buffer poorer specials; the
// shift per step of the operand's lowest bit is measured (a product of two
// shifted buffers moves it twice). Every kSubnormalShareOneIn-th element
// of the first buffer then has m with m^power * 2^lo below the smallest
// normal (power: how many times its element enters the operand, x * x 2),
// the others' there +-2^exp_lo when they are factors (the group's shift
// moves the lowest bit more than the first's alone), else 0 (terms of a
// sum). `p` unchanged where none fits.
ExactPlan AimSubnormals(const Kernel& k, ExactPlan p) {
  if (!p.exact) return p;
  Analysis::AffineCache affine;
  auto analyse = [&](const std::map<std::string, ExactFormat>& f) {
    auto an = std::make_unique<Analysis>(k, &f, &affine, /*conversion=*/true, p.level, false, 24, p.to);
    an->Run();
    return an;
  };
  auto fits = [](const Analysis& an) {
    if (!an.structural().empty()) return false;
    for (const Obligation& o : an.obligations())
      if (!Unrepresentable(o).empty()) return false;
    return true;
  };
  // The saturation specials' level per buffer (-1: none).
  auto sat_levels = [&](const std::map<std::string, ExactFormat>& f) {
    ExactPlan q;
    q.exact = true;
    q.formats = f;
    q = WithSaturationSpecials(k, std::move(q));
    std::map<std::string, int> r;
    for (const auto& [name, x] : q.formats) r[name] = x.mix_level;
    return r;
  };
  std::unique_ptr<Analysis> an = analyse(p.formats);
  if (!fits(*an)) return p;
  // Buffers behind a computed conversion: the saturation and subnormal
  // passes scale those.
  std::set<std::string> locked;
  struct Target {
    const Op* op;
    ElemType t;
    std::set<std::string> deps;
  };
  std::vector<Target> targets;
  std::set<const Op*> seen;
  for (const Obligation& o : an->obligations()) {
    if (o.conversion_level == 0) continue;
    if (o.computed) {
      locked.insert(o.deps.begin(), o.deps.end());
      continue;
    }
    if (o.extra_bits <= 0 || o.saturates || (o.t != ElemType::kF16 && !IsFp8(o.t))) continue;
    if (seen.insert(o.op).second) targets.push_back({o.op, o.t, o.deps});
  }
  if (targets.empty()) return p;
  const std::set<const Op*> stored_only = StoredOnlyConversions(k);
  targets.erase(std::remove_if(targets.begin(), targets.end(),
                               [&](const Target& t) { return !stored_only.count(t.op); }),
                targets.end());
  if (targets.empty()) return p;
  const std::map<std::string, int> base_levels = sat_levels(p.formats);
  std::set<std::string> assigned;
  bool changed = false;
  for (const Target& tg : targets) {
    std::vector<const Arg*> bufs;  // argument order; the first leads
    for (const Arg& a : k.args) {
      auto f = p.formats.find(a.name);
      if (!tg.deps.count(a.name) || a.kind != Arg::Kind::kBuffer || a.elem == ElemType::kI32 ||
          locked.count(a.name) || assigned.count(a.name) || f == p.formats.end())
        continue;
      const ExactFormat& x = f->second;
      if (x.special || x.two_scale || x.k_window > 0 || x.mix_level >= 0 || !x.choices.empty() || x.bits == 0 ||
          x.sub_period > 0 || x.diagonal != ExactFormat::Diagonal::kNone)
        continue;
      bufs.push_back(&a);
    }
    if (bufs.empty()) continue;
    const OperandBound b0 = OperandOf(*an, tg.op);
    if (b0.mag == 0) continue;
    auto shifted = [&](int shift) {
      std::map<std::string, ExactFormat> f = p.formats;
      for (const Arg* a : bufs) f[a->name].shift += shift;
      return f;
    };
    // The operand's lowest bit per step of the buffers' shift.
    int slope = 0;
    {
      const std::map<std::string, ExactFormat> f = shifted(-1);
      slope = b0.lo - OperandOf(*analyse(f), tg.op).lo;
    }
    if (slope <= 0) continue;
    // How many times the first buffer's element enters the operand (x * x:
    // 2): its m enters as m^power.
    int power = 1;
    if (bufs.size() > 1) {
      std::map<std::string, ExactFormat> f = p.formats;
      f[bufs.front()->name].shift -= 1;
      power = b0.lo - OperandOf(*analyse(f), tg.op).lo;
    } else {
      power = slope;
    }
    if (power <= 0) continue;
    const FloatType ft = FloatInfo(tg.t);
    const int e_normal = ft.emin_sub + ft.p - 1;  // the smallest normal's exponent
    for (int lo_t = ft.emin_sub - 2; lo_t <= e_normal - 1; ++lo_t) {
      const int shift = -static_cast<int>(std::ceil(static_cast<double>(b0.lo - lo_t) / slope));
      std::map<std::string, ExactFormat> f = shifted(shift);
      bool representable = true;  // each buffer's values in its own type
      for (const Arg* a : bufs) {
        const ExactFormat& x = f[a->name];
        const FloatType at = FloatInfo(a->elem);
        representable = representable && x.exp_lo + x.shift >= at.emin_sub &&
                        std::ldexp(std::ldexp(1.0, x.bits) - 1, x.exp_lo + x.spread + x.shift) <= at.max_finite;
      }
      if (!representable) continue;
      std::unique_ptr<Analysis> trial = analyse(f);
      if (!fits(*trial)) continue;
      const OperandBound b = OperandOf(*trial, tg.op);
      if (b.mag == 0 || b.mag < std::ldexp(1.0, e_normal + 2) || b.lo > e_normal - 1) continue;
      const ExactFormat& lead = f[bufs.front()->name];
      // m^power * 2^lo below the smallest normal.
      int64_t m_max = std::min<int64_t>((int64_t{1} << std::min(e_normal - b.lo, 30)) - 1, (int64_t{1} << lead.bits) - 1);
      while (m_max > 1 && std::pow(static_cast<double>(m_max), power) >= std::ldexp(1.0, e_normal - b.lo)) --m_max;
      if (m_max < 1 || std::pow(static_cast<double>(m_max), power) >= std::ldexp(1.0, e_normal - b.lo)) continue;
      const std::string type(ElemTypeName(tg.t));
      const int below = ft.emin_sub - b.lo;  // bits of m below the smallest subnormal
      const std::string ties =
          below <= 0    ? "; exact subnormals, no ties"
          : power > 1   ? ""
          : below == 1  ? "; odd m a tie between two of them"
                        : absl::StrCat("; m = ", int64_t{1} << (below - 1), " (mod ", int64_t{1} << below,
                                       ") a tie between two of them");
      // The others: factors of the operand (the group's shift moves its
      // lowest bit more than the first's alone) hold their lowest value
      // +-2^(exp_lo + shift) there, terms of a sum 0.
      const bool product = slope > power;
      std::vector<std::string> others;
      for (size_t i = 1; i < bufs.size(); ++i) {
        const ExactFormat& x = f[bufs[i]->name];
        others.push_back(product ? absl::StrCat(bufs[i]->name, " +-2^", x.exp_lo + x.shift) : absl::StrCat(bufs[i]->name, " 0"));
      }
      for (const Arg* a : bufs) {
        ExactFormat& x = f[a->name];
        x.sub_period = kSubnormalShareOneIn;
        x.sub_group = bufs.front()->name;
        x.sub_m_max = a == bufs.front() ? m_max : product ? 1 : 0;
      }
      f[bufs.front()->name].sub_note = absl::StrFormat(
          "the operand of %s then %s * 2^%d%s: %s's subnormals lie in [%g, %g)%s", OpWhere(tg.op),
          power > 1 ? absl::StrCat("m^", power) : std::string("m"), b.lo,
          others.empty() ? std::string() : absl::StrCat(" (", absl::StrJoin(others, ", "), " there)"),
          type, std::ldexp(1.0, ft.emin_sub), std::ldexp(1.0, e_normal), ties);
      const std::map<std::string, int> lv = sat_levels(f);
      bool poorer = false;
      for (const auto& [name, l] : base_levels) {
        auto it = lv.find(name);
        const int m = it == lv.end() ? -1 : it->second;
        poorer = poorer || (l >= 0 && (m < 0 || m > l));
      }
      if (poorer) continue;
      p.formats = std::move(f);
      for (const Arg* a : bufs) assigned.insert(a->name);
      an = analyse(p.formats);
      changed = true;
      break;
    }
  }
  if (changed) p.conversions = ConversionNotes(an->obligations(), ConversionFedBuffers(k));
  return p;
}

}  // namespace

std::vector<ExactPlan> PlanConversionPasses(const Kernel& k) {
  std::vector<ExactPlan> passes;
  if (!HasNarrowingConversion(k)) return passes;
  int levels = 1;
  for (int level = 1; level <= levels; ++level) {
    ExactPlan p = Plan(k, PlanRequest{.conversion = true, .cap_level = level}, level == 1 ? &levels : nullptr);
    // Inputs that round no conversion of the level: through a K window
    // when one gives some that do (RoundingKWindowPlan).
    if (p.exact && !RoundsAtLevel(p, level))
      if (ExactPlan w = RoundingKWindowPlan(k, PlanRequest{.conversion = true, .cap_level = level}); w.exact)
        p = std::move(w);
    if (level == 1 && levels >= 2 && p.exact) {
      // The first conversion of a chain rounds values of up to p1 + 5 bits,
      // but the last one's rounding hides its error unless the rounded value
      // lands on one of the last one's ties (2 of 2^(p1 - p2) values:
      // f32 -> f16 -> fp8 beside a K = 64 MFMA showed a round-toward-zero f16
      // step in about 1 of 256 elements). Two-scale inputs make the value
      // before the chain a coarse part of at most p_last + 1 bits (a tie of
      // the last conversion in a good share of the elements) plus a small
      // part (one in kTwoScaleLowOneIn terms +-2^-gap of the coarse scale,
      // below half an ulp of the first conversion, negative half the time),
      // so the first rounding decides the last: a round-toward-zero first
      // step moves a negative small part's tie down. gap = p1 - 3 leaves the
      // coarse part a few bits within the p1 + 5 cap (a K = 64 MFMA's sum
      // has 6 bits of its own). Before a long sum LongSumTwoScale reshapes
      // them so that exact ties of the first conversion are common.
      int p1 = 0, p_last = 24;
      for (const ConversionNote& n : p.conversions) {
        if (n.level == 1) p1 = std::max(p1, n.target_p);
        else p_last = std::min(p_last, n.target_p);
      }
      if (p1 > 3) p = ChainTwoScalePlan(k, std::move(p), p1, p_last);
    }
    if (!p.exact) continue;
    // The level's target types (program order) and those some of whose
    // conversions this pass leaves exact (fresh-user review 14 F6).
    // Also those it may round, with fewer bits than a pass of their own
    // gives them (fresh-user review 18 F7, F8: bounds of p + 1 and p + 2
    // bits, no value drawn rounded): that pass is a candidate
    // (ExactPlan::tie_pass), which `kirc run` keeps only when this pass's
    // drawn values hold fewer than kConversionMinTies ties of the type.
    std::vector<ElemType> types;
    std::set<ElemType> unrounded;
    std::map<ElemType, int> level_bits;
    for (const ConversionNote& n : p.conversions) {
      if (n.level != level) continue;
      if (std::find(types.begin(), types.end(), n.to) == types.end()) types.push_back(n.to);
      if (!n.rounds) unrounded.insert(n.to);
      if (n.rounds) level_bits[n.to] = std::max(level_bits[n.to], n.bits);
    }
    std::map<std::string, std::string> level_forms;  // the level pass's inputs, described
    for (const auto& [name, f] : p.formats) level_forms[name] = f.Describe();
    passes.push_back(AimSubnormals(k, std::move(p)));
    for (ElemType t : types) {
      const bool short_bound = !unrounded.count(t) && level_bits[t] > 0 &&
                               level_bits[t] < FloatInfo(t).p + kConversionExtraBits;
      if (types.size() < 2 || (!unrounded.count(t) && !short_bound)) {
        // A type this pass rounds with the full extra bits may still draw
        // no exact tie of its grid (fresh-user review 20 F1: `C = sa * sa *
        // A * B + beta * C`, bf16 C, K = 512: the sums' values were
        // multiples of 2^-1 near 2^8, beta * C odd multiples of 2^-3 or
        // 2^-2, so no value lay halfway between two bf16 neighbours). The
        // same inputs with the float buffers scaled down by 2^-j (the first
        // j from 1 that gives other inputs rounding t) shift the addends'
        // low bits against the products' (a buffer factor enters a product
        // of two buffers twice): a candidate (ExactPlan::tie_pass) `kirc
        // run` keeps only when this pass drew fewer than kConversionMinTies
        // ties of t.
        if (unrounded.count(t) || level_bits[t] == 0) continue;
        for (int j = 1; j <= 16; ++j) {
          ExactPlan q = Plan(k, PlanRequest{.conversion = true, .cap_level = level, .cap_to = t, .buffer_shift = -j});
          if (!q.exact) continue;
          std::map<std::string, std::string> forms;
          for (const auto& [name, f] : q.formats) forms[name] = f.Describe();
          if (forms == level_forms) continue;
          bool rounds = false;
          for (const ConversionNote& n : q.conversions) rounds = rounds || (n.level == level && n.to == t && n.rounds);
          if (!rounds) continue;
          q.tie_pass = true;
          passes.push_back(AimSubnormals(k, std::move(q)));
          break;
        }
        continue;
      }
      // The level's other conversions need only lie in range, which may
      // bound the values' magnitude (fp8's 240) rather than their bits: the
      // float buffers are scaled down (2^0, 2^-1, ... 2^-16) until the
      // conversions to t carry p + kConversionExtraBits bits, else the
      // scale giving them the most.
      ExactPlan best;
      int best_bits = 0;
      for (int j = 0; j <= 16; ++j) {
        ExactPlan q = Plan(k, PlanRequest{.conversion = true, .cap_level = level, .cap_to = t, .buffer_shift = -j});
        if (!q.exact) continue;
        int bits = 0;
        bool rounds = false;
        for (const ConversionNote& n : q.conversions)
          if (n.level == level && n.to == t) {
            rounds = rounds || n.rounds;
            bits = std::max(bits, n.bits);
          }
        if (!rounds || bits <= best_bits || (short_bound && bits <= level_bits[t])) continue;
        best = std::move(q);
        best_bits = bits;
        if (bits >= FloatInfo(t).p + kConversionExtraBits) break;
      }
      if (!best.exact) continue;
      best.tie_pass = short_bound;
      passes.push_back(AimSubnormals(k, std::move(best)));
    }
  }
  return passes;
}

ExactPlan PlanSaturationBase(const Kernel& k) {
  if (!HasNarrowingConversion(k)) {
    ExactPlan plan;
    plan.blocker = "the kernel has no narrowing conversion (a cvt to f16, bf16 or fp8, or a gemm with such a C)";
    return plan;
  }
  // The fewest bits that fit first (12, 16, 20, then f32's 24): the
  // saturation pass scales these values up to the target's max, and a term
  // it does not scale (`alpha * acc + O`: O) keeps its lowest bit, so the
  // scaled sum needs more bits than these inputs give it.
  ExactPlan plan;
  for (int bits : {12, 16, 20, 24}) {
    plan = Plan(k, PlanRequest{.conversion = true, .saturation = true, .saturation_bits = bits});
    if (plan.exact) break;
  }
  return WithSaturationSpecials(k, std::move(plan));
}

std::vector<std::string> UnroundedConversions(const std::vector<ExactPlan>& passes) {
  std::vector<std::string> order;
  std::map<std::string, bool> rounds;
  for (const ExactPlan& p : passes)
    for (const ConversionNote& n : p.conversions) {
      auto [it, fresh] = rounds.emplace(n.where, n.rounds);
      if (fresh) order.push_back(n.where);
      else it->second = it->second || n.rounds;
    }
  std::vector<std::string> r;
  for (const std::string& w : order)
    if (!rounds[w]) r.push_back(w);
  return r;
}

bool HasNarrowingConversion(const Kernel& k) { return !NarrowingConversions(k).empty(); }

std::vector<std::string> NarrowingConversions(const Kernel& k) {
  std::vector<const Op*> ops;
  AllOps(k.body, ops);
  std::map<std::string, ElemType> types;  // SSA value -> element type
  auto type_of = [&](const Operand& o) -> std::optional<ElemType> {
    if (o.is_arg) {
      if (const Arg* a = k.FindArg(o.name); a != nullptr) return a->elem;
      return std::nullopt;
    }
    auto it = types.find(o.name);
    return it == types.end() ? std::nullopt : std::optional<ElemType>(it->second);
  };
  for (const Op* op : ops) {
    if (!op->results.empty()) types[op->results[0]] = op->type.elem;
    if (op->kind == OpKind::kFor)
      for (size_t i = 0; i < op->operands.size(); ++i)
        if (std::optional<ElemType> t = type_of(op->operands[i])) {
          if (i < op->iter_args.size()) types[op->iter_args[i]] = *t;
          if (i < op->results.size()) types[op->results[i]] = *t;
        }
  }
  std::vector<std::string> r;
  for (const Op* op : ops) {
    if (op->kind == OpKind::kGemm) {
      if (const Arg* c = k.FindArg(op->gemm.c); c != nullptr && c->elem != ElemType::kF32) r.push_back(OpWhere(op));
      continue;
    }
    if (op->kind != OpKind::kCvt || op->operands.empty()) continue;
    if (Narrows(type_of(op->operands[0]).value_or(ElemType::kF32), op->type.elem)) r.push_back(OpWhere(op));
  }
  return r;
}

std::map<std::string, std::vector<ElemType>> ConversionFedBuffers(const Kernel& k) {
  const StoreOnlyUses su(k);
  const std::vector<const Op*>& ops = su.ops;
  // Whether every use of `v` (through slice and concat) is a store to a
  // buffer no op reads (a value without a use too).
  auto only_stored = [&](const std::string& v, int depth) { return su.OnlyStored(v, /*unused=*/true, depth); };
  // Uses of each SSA value; values no op defines here (a loop's carried
  // ones) have none.
  const std::map<std::string, std::vector<const Op*>>& uses = su.uses;
  // Whether every use of `v` (of type `from`; through slice, concat and an
  // exact cvt of f16 or bf16 to f32) is a narrowing cvt whose result is
  // only stored; `*to` gets each cvt's target type once (fresh-user review
  // 12 F6: a buffer converted to f16 and to bf16 was left out).
  std::function<bool(const std::string&, ElemType, std::vector<ElemType>*, int)> only_converted =
      [&](const std::string& v, ElemType from, std::vector<ElemType>* to, int depth) {
        auto it = uses.find(v);
        if (depth > 64 || it == uses.end() || it->second.empty()) return false;
        for (const Op* u : it->second) {
          if (u->results.empty()) return false;
          if (u->kind == OpKind::kSlice || (u->kind == OpKind::kConcat && u->type.elem == from)) {
            if (!only_converted(u->results[0], from, to, depth + 1)) return false;
          } else if (u->kind == OpKind::kCvt && from != ElemType::kF32 && u->type.elem == ElemType::kF32) {
            if (!only_converted(u->results[0], ElemType::kF32, to, depth + 1)) return false;
          } else if (u->kind == OpKind::kCvt && Narrows(from, u->type.elem)) {
            if (std::find(to->begin(), to->end(), u->type.elem) == to->end()) to->push_back(u->type.elem);
            if (!only_stored(u->results[0], depth + 1)) return false;
          } else {
            return false;
          }
        }
        return true;
      };
  std::map<std::string, std::vector<ElemType>> r;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer ||
        (a.elem != ElemType::kF32 && a.elem != ElemType::kF16 && a.elem != ElemType::kBF16))
      continue;
    bool ok = true, loaded = false;
    std::vector<ElemType> to;
    for (const Op* op : ops) {
      const bool touches = op->mem == a.name || (op->kind == OpKind::kGemm &&
                                                (op->gemm.a == a.name || op->gemm.b == a.name ||
                                                 op->gemm.c == a.name));
      if (!touches) continue;
      if (op->kind != OpKind::kLoad || op->results.empty() ||
          !only_converted(op->results[0], op->type.elem, &to, 0)) {
        ok = false;
        break;
      }
      loaded = true;
    }
    if (ok && loaded && !to.empty()) r[a.name] = to;
  }
  return r;
}

std::map<std::string, ElemType> ElementwiseFedBuffers(const Kernel& k) {
  std::vector<const Op*> ops;
  AllOps(k.body, ops);
  std::map<std::string, std::vector<const Op*>> uses;
  for (const Op* op : ops)
    for (const Operand& o : op->operands)
      if (!o.is_arg) uses[o.name].push_back(op);
  // Whether every use of `v` (of type `from`) is elementwise or a store;
  // `*to`: the first narrowing conversion met.
  std::function<bool(const std::string&, ElemType, std::optional<ElemType>*, int)> elementwise =
      [&](const std::string& v, ElemType from, std::optional<ElemType>* to, int depth) {
        if (depth > 64) return false;
        for (const Op* u : uses[v]) {
          switch (u->kind) {
            case OpKind::kStore:
              break;
            case OpKind::kCvt:
              if (Narrows(from, u->type.elem) && !to->has_value()) *to = u->type.elem;
              [[fallthrough]];
            case OpKind::kSlice:
            case OpKind::kConcat:
            case OpKind::kAdd:
            case OpKind::kMul:
            case OpKind::kFma:
              if (u->results.empty() || !elementwise(u->results[0], u->type.elem, to, depth + 1)) return false;
              break;
            default:  // mfma, a loop's operand or yield, ...
              return false;
          }
        }
        return true;
      };
  std::map<std::string, ElemType> r;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.elem == ElemType::kI32) continue;
    bool ok = true;
    std::optional<ElemType> to;
    for (const Op* op : ops) {
      const bool touches = op->mem == a.name || (op->kind == OpKind::kGemm &&
                                                (op->gemm.a == a.name || op->gemm.b == a.name ||
                                                 op->gemm.c == a.name));
      if (!touches || op->kind == OpKind::kStore) continue;
      if (op->kind != OpKind::kLoad || op->results.empty() || !elementwise(op->results[0], op->type.elem, &to, 0)) {
        ok = false;
        break;
      }
    }
    if (ok && to) r[a.name] = *to;
  }
  return r;
}

std::vector<double> SaturationSpecials(ElemType from, ElemType to, int level) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Fp8Format* f8 = Fp8FormatOf(from);
  const bool has_inf = f8 == nullptr || f8->has_inf;
  std::vector<double> cand = {nan};
  if (has_inf) cand.insert(cand.end(), {inf, -inf});
  if (level < 2) {
    const FloatType t = FloatInfo(to);
    int emax = 0;
    std::frexp(t.max_finite, &emax);
    const double half_top = std::ldexp(1.0, emax - 1 - t.p);  // half an ulp of `to` at max
    const double max = t.max_finite;
    cand.insert(cand.end(), {max, -max, max + half_top, -(max + half_top), max - half_top, -(max - half_top),
                             max - 2 * half_top, -(max - 2 * half_top), 2 * max, -4 * max});
    // Inside the window (max, max + ulp/2), which rounds to max (fresh-user
    // review 16 F3: an overflow to inf for any |x| > max passed).
    cand.insert(cand.end(), {max + half_top / 2, -(max + half_top / 2)});
    if (level == 0 && from != ElemType::kF32) {
      const double fmax = FloatInfo(from).max_finite;
      cand.insert(cand.end(), {fmax, -fmax});
    }
  }
  // Exactly representable in `from`, each once.
  std::vector<double> r;
  for (double x : cand) {
    if (!ExactBits(from, x)) continue;
    bool dup = false;
    for (double y : r) dup = dup || y == x || (std::isnan(y) && std::isnan(x));
    if (!dup) r.push_back(x);
  }
  if (r.size() > static_cast<size_t>(kConversionSpecials)) r.resize(kConversionSpecials);
  return r;
}

namespace {

// Whether every value of `k` fits `formats` when narrowing conversions
// saturate (the saturation analysis of WithSaturationSpecials and
// SaturationPlan).
bool FitsSaturating(const Kernel& k, const std::map<std::string, ExactFormat>& formats,
                    Analysis::AffineCache* affine) {
  Analysis an(k, &formats, affine, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
  an.Run();
  if (!an.structural().empty()) return false;
  for (const Obligation& o : an.obligations())
    if (!Unrepresentable(o).empty()) return false;
  return true;
}

}  // namespace

namespace {

// How many load ops of `body` (loop bodies included) read `mem`.
int LoadsOf(const std::vector<Op>& body, const std::string& mem) {
  int n = 0;
  for (const Op& op : body) {
    if (op.kind == OpKind::kLoad && op.mem == mem) ++n;
    n += LoadsOf(op.body, mem);
  }
  return n;
}

// `formats` with buffer `name` at saturation-special level `level` (to
// `to`) when its specials fit apart from its regular values (fresh-user
// review 16 F3: `cvt(X * s) : f16` got NaN and +-inf only, since the
// analysis bounds a buffer's values by one magnitude and one lowest bit,
// and 4 max times the regular values' fine bits exceeded f32's 24): `name`
// is loaded by one load op and `k` has no LDS (each value before a
// conversion then holds one element of it, a special or a regular one), its
// regular values fit (`formats`), and they fit with its values bounded by
// the specials alone (its regular part one value, 2^e, e the specials'
// lowest bit) and every f32 scalar behind those conversions 1 (choices
// {1}: X * s is then the special itself, exactly; with s's other values
// the specials would miss the max). Those scalars get choices {1} in the
// result. Empty when it does not fit so.
std::optional<std::map<std::string, ExactFormat>> SpecialsApart(const Kernel& k,
                                                                const std::map<std::string, ExactFormat>& formats,
                                                                const std::string& name, ElemType to, int level,
                                                                Analysis::AffineCache* affine) {
  const Arg* a = k.FindArg(name);
  if (a == nullptr || !k.lds.empty() || LoadsOf(k.body, name) != 1) return std::nullopt;
  // The f32 scalars behind the conversions `name` reaches.
  std::set<std::string> scalars;
  {
    Analysis an(k, &formats, affine, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
    an.Run();
    for (const Obligation& o : an.obligations())
      if (o.saturates && o.deps.count(name))
        for (const std::string& d : o.deps)
          if (const Arg* s = k.FindArg(d); s != nullptr && s->kind == Arg::Kind::kScalar && s->elem == ElemType::kF32)
            scalars.insert(d);
  }
  std::map<std::string, ExactFormat> regular = formats;
  for (const std::string& s : scalars) {
    auto it = regular.find(s);
    if (it == regular.end()) return std::nullopt;
    it->second.choices = {1.0};
    it->second.shift = 0;
  }
  if (!FitsSaturating(k, regular, affine)) return std::nullopt;
  int lo = std::numeric_limits<int>::max();
  for (double x : SaturationSpecials(a->elem, to, level))
    if (std::isfinite(x) && x != 0) lo = std::min(lo, LowestBitExponent(x));
  std::map<std::string, ExactFormat> apart = regular;
  ExactFormat& f = apart[name];
  f.mix_level = level;
  f.special_to = to;
  if (lo != std::numeric_limits<int>::max()) {
    f.bits = 1;
    f.spread = 0;
    f.exp_lo = lo;
    f.shift = 0;
    f.two_scale = false;
    f.low_period = 0;
    f.sub_period = 0;
  }
  if (!FitsSaturating(k, apart, affine)) return std::nullopt;
  regular[name].mix_level = level;
  regular[name].special_to = to;
  return regular;
}

}  // namespace

ExactPlan WithSaturationSpecials(const Kernel& k, ExactPlan plan) {
  if (!plan.exact) return plan;
  Analysis::AffineCache affine;
  auto fits = [&](const std::map<std::string, ExactFormat>& formats) { return FitsSaturating(k, formats, &affine); };
  if (!fits(plan.formats)) return plan;  // no saturation check without a sound start
  const std::map<std::string, ElemType> fed = ElementwiseFedBuffers(k);
  for (const Arg& a : k.args) {
    auto f = fed.find(a.name);
    auto fm = plan.formats.find(a.name);
    if (f == fed.end() || fm == plan.formats.end() || fm->second.special || fm->second.bits == 0) continue;
    for (int level = 0; level <= 2; ++level) {
      std::map<std::string, ExactFormat> trial = plan.formats;
      trial[a.name].mix_level = level;
      trial[a.name].special_to = f->second;
      if (fits(trial)) {
        plan.formats = std::move(trial);
        break;
      }
      // Level 0 or 1 with the specials apart (fresh-user review 16 F3).
      if (level < 2)
        if (std::optional<std::map<std::string, ExactFormat>> apart =
                SpecialsApart(k, plan.formats, a.name, f->second, level, &affine)) {
          plan.formats = *std::move(apart);
          break;
        }
    }
  }
  return plan;
}

std::vector<ElemType> ComputedConversionTargets(const Kernel& k, const ExactPlan& conv) {
  std::vector<ElemType> r;
  if (!conv.exact || !HasUnorderedSum(k)) return r;
  Analysis::AffineCache affine;
  Analysis an(k, &conv.formats, &affine, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
  an.Run();
  for (const Obligation& o : an.obligations())
    if (o.saturates && o.computed && std::find(r.begin(), r.end(), o.t) == r.end()) r.push_back(o.t);
  return r;
}

namespace {

// The arguments behind the conversions to `target` of computed values (the
// saturation analysis `an`), and with `output` non-empty also behind the
// values stored to that buffer.
std::set<std::string> BehindConversions(const Analysis& an, ElemType target, const std::string& output) {
  std::set<std::string> conv;
  for (const Obligation& o : an.obligations())
    if (o.saturates && o.computed && o.t == target) conv.insert(o.deps.begin(), o.deps.end());
  if (output.empty()) return conv;
  std::set<std::string> r;
  auto it = an.stored().find(output);
  if (it == an.stored().end()) return r;
  for (const std::string& d : it->second.deps)
    if (conv.count(d)) r.insert(d);
  return r;
}

}  // namespace

std::vector<ComputedOutput> ComputedConversionOutputs(const Kernel& k, const ExactPlan& conv) {
  std::vector<ComputedOutput> r;
  if (!conv.exact || !HasUnorderedSum(k)) return r;
  Analysis::AffineCache affine;
  Analysis an(k, &conv.formats, &affine, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
  an.Run();
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.access == Access::kReadOnly || a.elem == ElemType::kF32 ||
        a.elem == ElemType::kI32)
      continue;
    auto it = an.stored().find(a.name);
    if (it == an.stored().end() || it->second.conv_depth < 1 || !Analysis::Differs(it->second)) continue;
    std::set<std::string> behind = BehindConversions(an, a.elem, a.name);
    if (!behind.empty()) r.push_back({a.name, a.elem, std::move(behind)});
  }
  return r;
}

FloatRange FloatRangeOf(ElemType t) {
  const FloatType f = FloatInfo(t);
  return {f.max_finite, std::ldexp(1.0, f.emin_sub + f.p - 1), std::ldexp(1.0, f.emin_sub)};
}

namespace {

// The buffers (arguments) the results of `from` reach in `k`, through any
// ops, loop-carried values, LDS and buffers stored and loaded again; a
// gemm's, its C. Which outputs a conversion (or any obligation's op) serves.
std::set<std::string> ReachedBuffers(const Kernel& k, const Op* from) {
  std::set<std::string> r;
  if (from == nullptr) return r;
  if (from->kind == OpKind::kGemm) {
    r.insert(from->gemm.c);
    return r;
  }
  std::vector<const Op*> ops;
  AllOps(k.body, ops);
  std::set<std::string> names(from->results.begin(), from->results.end());
  std::set<std::string> mems;  // buffers and LDS allocations reached
  for (bool changed = true; changed;) {
    changed = false;
    auto add = [&](std::set<std::string>& set, const std::string& n) { changed |= set.insert(n).second; };
    for (const Op* op : ops) {
      bool in = (op->kind == OpKind::kLoad || op->kind == OpKind::kLdsDma) && mems.count(op->mem) > 0;
      for (const Operand& o : op->operands) in = in || (!o.is_arg && names.count(o.name) > 0);
      if (op->kind == OpKind::kGemm &&
          (mems.count(op->gemm.a) > 0 || mems.count(op->gemm.b) > 0 || mems.count(op->gemm.c) > 0))
        add(mems, op->gemm.c);
      if (op->kind == OpKind::kFor && !op->body.empty() && op->body.back().kind == OpKind::kYield)
        for (const Operand& o : op->body.back().operands) in = in || (!o.is_arg && names.count(o.name) > 0);
      if (!in) continue;
      if (op->kind == OpKind::kStore) add(mems, op->mem);
      if (op->kind == OpKind::kLdsDma) add(mems, op->lds);
      for (const std::string& n : op->results) add(names, n);
      if (op->kind == OpKind::kFor)
        for (const std::string& n : op->iter_args) add(names, n);
    }
  }
  for (const std::string& m : mems)
    if (k.FindArg(m) != nullptr) r.insert(m);
  return r;
}

// What SaturationPlan measures a scaled set by: the conversions to `target`
// of computed values whose results reach `output` (any, when empty).
class AimedConversions {
 public:
  AimedConversions(const Kernel& k, ElemType target, const std::string& output, Analysis::AffineCache* affine)
      : k_(k), target_(target), output_(output), affine_(affine) {}

  const std::set<std::string>& Reached(const Op* op) {
    auto it = reach_.find(op);
    if (it == reach_.end()) it = reach_.emplace(op, ReachedBuffers(k_, op)).first;
    return it->second;
  }
  bool Aimed(const Obligation& o) {
    return o.saturates && o.computed && o.t == target_ && (output_.empty() || Reached(o.op).count(output_) > 0);
  }
  // Whether an obligation of `formats`' analysis that fails serves only
  // other outputs (the relaxed fit: those outputs are left uncompared).
  bool OnlyOthers(const Obligation& o) {
    const std::set<std::string>& r = Reached(o.op);
    return !output_.empty() && !r.empty() && r.count(output_) == 0;
  }
  // The largest bound of the aimed conversions' operands on `formats`; -1
  // when there is none or the analysis fails structurally.
  double Bound(const std::map<std::string, ExactFormat>& formats) {
    Analysis an(k_, &formats, affine_, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
    an.Run();
    if (!an.structural().empty()) return -1;
    double b = -1;
    for (const Obligation& o : an.obligations())
      if (Aimed(o) && o.mag.IsConst()) b = std::max(b, o.mag.c0);
    return b;
  }
  // Whether every value fits `formats` with saturating conversions; with
  // `relaxed`, obligations serving only other outputs may fail, and
  // `*unchecked` (when given) gets those outputs.
  bool Fits(const std::map<std::string, ExactFormat>& formats, bool relaxed,
            std::set<std::string>* unchecked = nullptr) {
    Analysis an(k_, &formats, affine_, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
    an.Run();
    if (!an.structural().empty()) return false;
    for (const Obligation& o : an.obligations()) {
      if (Unrepresentable(o).empty()) continue;
      if (!relaxed || !OnlyOthers(o)) return false;
      if (unchecked != nullptr)
        for (const std::string& b : Reached(o.op)) unchecked->insert(b);
    }
    return true;
  }
  // The arguments that reach an aimed conversion through a narrowing
  // conversion of a lower chain level before it (an in-kernel quantiser:
  // sx of cvt(X * sx) to fp8 before the MFMA; fresh-user review 14 F9):
  // scaled, they saturate or flush there before reaching the output.
  std::set<std::string> Narrowed(const std::map<std::string, ExactFormat>& formats) {
    Analysis an(k_, &formats, affine_, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
    an.Run();
    std::set<std::string> r;
    for (const Obligation& aimed : an.obligations()) {
      if (!Aimed(aimed)) continue;
      for (const Obligation& o : an.obligations())
        if (o.conversion_level > 0 && o.conversion_level < aimed.conversion_level && o.op != aimed.op)
          for (const std::string& d : o.deps)
            if (aimed.deps.count(d)) r.insert(d);
    }
    return r;
  }

 private:
  const Kernel& k_;
  ElemType target_;
  std::string output_;
  Analysis::AffineCache* affine_;
  std::map<const Op*, std::set<std::string>> reach_;
};

// `f` (argument `a`'s format) scaled by `x`: a scalar's choices times x, a
// buffer's values times x = 2^s (ExactFormat::shift). False (f unchanged)
// when a buffer cannot take x: not a power of two, or its values would
// leave its type's range or fall below its smallest subnormal's bit.
bool ScaleFormat(const Arg& a, double x, ExactFormat& f) {
  if (a.kind == Arg::Kind::kScalar) {
    for (double& c : f.choices) c *= x;
    return true;
  }
  int s = 0;
  if (std::frexp(x, &s) != 0.5) return false;
  const int shift = f.shift + s - 1;
  if (std::ldexp(std::ldexp(1.0, f.bits) - 1, f.exp_lo + f.spread + shift) > FloatInfo(a.elem).max_finite ||
      f.exp_lo + shift < FloatInfo(a.elem).emin_sub)
    return false;
  f.shift = shift;
  return true;
}

// The formats without saturation specials and NaN/inf blocks: their bound
// is the scaled values' alone (a special of C, 65504, would otherwise hide
// that beta * C is one addend among others).
std::map<std::string, ExactFormat> WithoutSpecials(std::map<std::string, ExactFormat> formats) {
  for (auto& [name, f] : formats) {
    f.mix_level = -1;
    f.diagonal = ExactFormat::Diagonal::kNone;
  }
  return formats;
}

}  // namespace

ExactPlan SaturationPlan(const Kernel& k, const ExactPlan& conv, ElemType target, double factor,
                         std::string* carrier, double* scale, const std::string& output,
                         std::vector<std::string>* also, const std::set<std::string>& exclude,
                         std::set<std::string>* unchecked) {
  if (also != nullptr) also->clear();
  if (unchecked != nullptr) unchecked->clear();
  ExactPlan none;
  none.blocker = absl::StrCat("no argument scales the values before a conversion to ",
                              std::string(ElemTypeName(target)), " of a computed value while keeping them exact");
  if (!conv.exact || !(factor > 0) || factor == 1 || !std::isfinite(factor)) return none;
  const bool up = factor > 1;
  Analysis::AffineCache affine;
  AimedConversions aimed(k, target, output, &affine);
  // The arguments behind the conversions to `target` of computed values
  // (and behind `output`'s stored values).
  std::set<std::string> behind;
  {
    Analysis an(k, &conv.formats, &affine, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
    an.Run();
    behind = BehindConversions(an, target, output);
  }
  std::vector<const Arg*> order;
  for (bool scalars : {true, false})
    for (const Arg& a : k.args) {
      auto f = conv.formats.find(a.name);
      if (!behind.count(a.name) || exclude.count(a.name) || a.elem == ElemType::kI32 || f == conv.formats.end() ||
          f->second.special || f->second.zero ||
          (a.kind == Arg::Kind::kScalar) != scalars)
        continue;
      order.push_back(&a);
    }
  // The scales tried, nearest `factor` first (up: not beyond it, down: not
  // below it): scalars m/8 * 2^s; buffers 2^s.
  int top = 0;
  std::frexp(factor, &top);  // factor in [2^(top-1), 2^top)
  std::vector<double> scalar_scales, buffer_scales;
  const double slack = std::pow(2.0, 1.0 / 16);
  for (int s = up ? top : 0; s >= (up ? 0 : top - 1); --s)
    for (int m = 15; m >= 8; --m) {
      const double x = std::ldexp(m / 8.0, s - 1);
      if (up ? x > 1 && x <= factor * slack : x < 1 && x >= factor / slack) scalar_scales.push_back(x);
    }
  if (!up) std::reverse(scalar_scales.begin(), scalar_scales.end());
  const int near = static_cast<int>(std::lround(std::log2(factor)));
  if (up)
    for (int s = near; s >= 1; --s) buffer_scales.push_back(std::ldexp(1.0, s));
  else
    for (int s = near; s <= -1; ++s) buffer_scales.push_back(std::ldexp(1.0, s));
  // A scaled set scales the value converted by x when every addend of it
  // holds exactly one member (fresh-user review 14 F3: beta of `A * B +
  // beta * C` scales one addend; the K-long sum stays): measured on the
  // analysis' bound without specials, which then scales by x exactly
  // (`uniform`). The carrier takes along, one at a time, the f32 scalar or
  // float buffer (by the same x, a power of two for a buffer) that brings
  // that bound nearest x times the unscaled one: beta with alpha, A with
  // beta, never a second factor of one product (alpha * acc * gamma).
  const std::map<std::string, ExactFormat> clean0 = WithoutSpecials(conv.formats);
  const double b0 = aimed.Bound(clean0);
  // How far (log2) the bound's ratio lies from x^e, e = 1..4 the nearest: a
  // carrier entering e times (s * s * A * B) scales the value as a whole
  // too, by x^e (kirc run then measures e and takes the e-th root).
  auto from_power = [&](double b, double x) {
    if (!(b > 0) || !(b0 > 0)) return HUGE_VAL;
    double d = HUGE_VAL;
    for (int e = 1; e <= 4; ++e) d = std::min(d, std::fabs(std::log2(b / b0) - e * std::log2(x)));
    return d;
  };
  auto distance = [&](const std::map<std::string, ExactFormat>& clean, double x) {
    return from_power(aimed.Bound(clean), x);
  };
  // Within 2^(1/16) of x^e: the value scales as a whole (an addend below
  // 4% of the bound left unscaled: alpha of alpha * acc + O, O below 1
  // beside a sum of 384).
  constexpr double kUniform = 1.0 / 16;
  const std::set<std::string> narrowed = aimed.Narrowed(conv.formats);
  // Preference: 1 the value scales by x and no member reaches it through a
  // narrowing conversion before (fresh-user review 14 F9: sx of a quantiser
  // before the MFMA saturated and flushed there); 2 it scales by x; 3 only
  // some addends scale (the best there is). Per candidate the first x that
  // fits, for a lower preference the scan goes on over powers of two
  // (buffers may join); then the candidates in order. `relaxed`: a fit may
  // leave other outputs' values inexact (they go uncompared).
  struct Choice {
    int tier = 4;
    ExactPlan plan;
    const Arg* a = nullptr;
    double x = 1;
    std::vector<std::string> with;
    std::set<std::string> unchecked;
  };
  auto search = [&](bool relaxed) {
    Choice best;
    for (const Arg* a : order) {
      int found = 4;
      for (double x : a->kind == Arg::Kind::kScalar ? scalar_scales : buffer_scales) {
        int pow2 = 0;
        if (found < 4 && std::frexp(x, &pow2) != 0.5) continue;  // only buffers may still join
        ExactPlan p = conv;
        std::map<std::string, ExactFormat> clean = clean0;
        if (!ScaleFormat(*a, x, p.formats[a->name])) continue;
        // Toward the subnormals a scaled buffer drops its saturation
        // specials (unscaled, +-max beside its scaled values would need
        // more than f32's bits in a sum: C of A * B + C; the conversion
        // and saturation passes hold them).
        if (!up) p.formats[a->name].mix_level = -1;
        ScaleFormat(*a, x, clean[a->name]);
        std::vector<std::string> with;
        const double b1 = aimed.Bound(clean);
        double d = from_power(b1, x);
        // A carrier whose scaling changes nothing the output holds (B of a
        // zeroed A * B) is none: its companions would carry alone.
        if (b1 > 0 && b0 > 0 && std::fabs(std::log2(b1 / b0)) < 1e-6) break;
        while (d > kUniform) {
          const Arg* pick = nullptr;
          double pick_d = d;
          for (const Arg* o : order) {
            if (o == a || std::find(with.begin(), with.end(), o->name) != with.end() ||
                (o->kind == Arg::Kind::kScalar && o->elem != ElemType::kF32))
              continue;
            std::map<std::string, ExactFormat> trial = clean;
            if (!ScaleFormat(*o, x, trial[o->name])) continue;
            const double e = distance(trial, x);
            if (e < pick_d - 1e-9) {
              pick = o;
              pick_d = e;
            }
          }
          if (pick == nullptr) break;
          ScaleFormat(*pick, x, clean[pick->name]);
          ExactPlan q = p;
          if (!ScaleFormat(*pick, x, q.formats[pick->name])) break;
          if (!up) q.formats[pick->name].mix_level = -1;
          p = std::move(q);
          with.push_back(pick->name);
          d = pick_d;
        }
        std::set<std::string> out_unchecked;
        bool fits = aimed.Fits(p.formats, relaxed, &out_unchecked);
        if (!fits && !with.empty()) {  // the carrier alone, as before companions
          p = conv;
          ScaleFormat(*a, x, p.formats[a->name]);
          if (!up) p.formats[a->name].mix_level = -1;
          with.clear();
          d = HUGE_VAL;
          out_unchecked.clear();
          fits = aimed.Fits(p.formats, relaxed, &out_unchecked);
        }
        if (!fits) continue;
        bool through = narrowed.count(a->name) > 0;
        for (const std::string& w : with) through = through || narrowed.count(w) > 0;
        const int tier = d > kUniform ? 3 : through ? 2 : 1;
        found = std::min(found, tier);
        if (tier < best.tier) best = {tier, std::move(p), a, x, with, std::move(out_unchecked)};
        if (tier <= 2) break;
      }
      if (best.tier == 1) break;
    }
    return best;
  };
  Choice best = search(/*relaxed=*/false);
  // Short of the factor by more than 2 (or none): another output's values
  // (an in-place O = cvt(alpha * acc + cvt(O)) beside P = cvt(alpha * acc))
  // may cap the scale; a pass aimed at `output` alone may leave them
  // inexact and uncompared (fresh-user review 14 F5).
  auto shortfall = [&](const Choice& c) { return c.tier == 4 ? HUGE_VAL : std::fabs(std::log2(factor / c.x)); };
  if (!output.empty() && shortfall(best) > 1) {
    Choice relaxed = search(/*relaxed=*/true);
    if (relaxed.tier <= best.tier && shortfall(relaxed) < shortfall(best) - 1) best = std::move(relaxed);
  }
  // The subnormal pass, still short by more than 2: an addend that no
  // scale brings that low (an fp8 gemm's K-long sum: 512 products of at
  // least 2^-20 stay above f16's 2^-14) is removed, a buffer behind it
  // zeroed, and the rest carried by the factor times the bound it leaves
  // (fresh-user review 14 F3: `A * B + beta * C`, A all 0, beta carries).
  // Not again on a plan with a zeroed buffer.
  bool zeroed_already = false;
  for (const auto& [name, f] : conv.formats) zeroed_already = zeroed_already || f.zero;
  if (!up && !output.empty() && !zeroed_already && shortfall(best) > 1 && b0 > 0)
    for (const Arg* z : order) {
      if (z->kind == Arg::Kind::kScalar) continue;
      std::map<std::string, ExactFormat> clean_z = clean0;
      clean_z[z->name].zero = true;
      const double bz = aimed.Bound(clean_z);
      if (!(bz > 0) || bz >= b0) continue;  // nothing left, or nothing removed
      ExactPlan conv_z = conv;
      ExactFormat& f = conv_z.formats[z->name];
      f.zero = true;
      f.mix_level = -1;
      f.diagonal = ExactFormat::Diagonal::kNone;
      f.k_window = 0;
      const double fz = factor * b0 / bz;
      if (!(fz < 1)) continue;
      std::string c;
      double x = 1;
      std::vector<std::string> with;
      // Not the output itself: an in-place output scaled alone is stored
      // back as it was loaded (O = cvt(0 + cvt(O))), nothing a pass reads.
      std::set<std::string> left, ex = exclude;
      ex.insert(z->name);
      ex.insert(output);
      ExactPlan pz = SaturationPlan(k, conv_z, target, fz, &c, &x, output, &with, ex, &left);
      if (!pz.exact) continue;
      // The rest must scale by x as a whole (beta of beta * C), not an
      // argument of the removed addend (alpha of 0 * alpha).
      const double br = aimed.Bound(WithoutSpecials(conv_z.formats)), bp = aimed.Bound(WithoutSpecials(pz.formats));
      if (!(br > 0) || !(bp > 0) || std::fabs(std::log2(bp / br) - std::log2(x)) > kUniform) continue;
      const double short_z = std::fabs(std::log2(fz / x));
      if (short_z <= 1 && short_z < shortfall(best) - 1) {
        *carrier = c;
        *scale = x;
        if (also != nullptr) *also = with;
        if (unchecked != nullptr) *unchecked = left;
        return pz;
      }
    }
  if (best.tier == 4) return none;
  *carrier = best.a->name;
  *scale = best.x;
  if (also != nullptr) *also = best.with;
  if (unchecked != nullptr) *unchecked = best.unchecked;
  return std::move(best.plan);
}

namespace {

// Whether `scalar`, an f32 scalar argument of `k`, enters no mfma or gemm
// K-long sum of the analysis under `plan` (nor, with `scale_products`, a
// gemm's product of its scale factors). False when `plan` is not exact, the
// analysis finds a structural problem or `scalar` is no f32 scalar. Serves
// OverflowsAlike and ScalesAfterSums.
bool NoSumDependsOn(const Kernel& k, const ExactPlan& plan, const std::string& scalar, bool scale_products) {
  const Arg* a = k.FindArg(scalar);
  if (!plan.exact || a == nullptr || a->kind != Arg::Kind::kScalar || a->elem != ElemType::kF32) return false;
  Analysis::AffineCache affine;
  Analysis an(k, &plan.formats, &affine, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
  an.Run();
  if (!an.structural().empty()) return false;
  for (const Obligation& o : an.obligations()) {
    if (!o.deps.count(scalar) || o.op == nullptr) continue;
    if (o.op->kind == OpKind::kMfma) return false;
    if (o.op->kind == OpKind::kGemm &&
        (absl::StartsWith(o.what, "the sum of") ||
         (scale_products && o.what == "the product of the scale factors")))
      return false;
  }
  return true;
}

}  // namespace

bool OverflowsAlike(const Kernel& k, const ExactPlan& plan, const std::string& scalar) {
  return NoSumDependsOn(k, plan, scalar, /*scale_products=*/true);
}

bool FitsSaturatingPlan(const Kernel& k, const ExactPlan& plan) {
  if (!plan.exact) return false;
  Analysis::AffineCache affine;
  return FitsSaturating(k, plan.formats, &affine);
}

bool ScalesAfterSums(const Kernel& k, const ExactPlan& plan, const std::string& scalar) {
  auto f = plan.formats.find(scalar);
  if (f == plan.formats.end() || f->second.choices.empty()) return false;
  for (double c : f->second.choices) {
    const double v = std::ldexp(c, f->second.shift);
    if (!std::isfinite(v) || static_cast<double>(static_cast<float>(v)) != v) return false;
  }
  return NoSumDependsOn(k, plan, scalar, /*scale_products=*/false);
}

std::vector<std::string> ChooseDiagonals(const Kernel& k, ExactPlan* plan) {
  std::vector<std::string> r;
  if (!plan->exact) return r;
  Analysis::AffineCache affine;
  Analysis an(k, &plan->formats, &affine, /*conversion=*/true, /*cap_level=*/1, /*saturation=*/true);
  an.Run();
  const std::map<std::string, ElemType> fed = ElementwiseFedBuffers(k);
  auto eligible = [&](const Arg& b) {
    auto f = plan->formats.find(b.name);
    return b.kind == Arg::Kind::kBuffer && b.elem != ElemType::kI32 && b.shape.size() == 2 && b.shape[0] >= 4 &&
           b.shape[1] >= 4 && !fed.count(b.name) && f != plan->formats.end() && !f->second.special &&
           f->second.mix_level < 0;
  };
  for (const Obligation& o : an.obligations()) {
    if (!o.saturates || !o.computed) continue;
    const Arg* diag = nullptr;
    bool reached = false;
    for (const Arg& b : k.args) {
      if (!o.deps.count(b.name) || !eligible(b)) continue;
      if (plan->formats[b.name].diagonal != ExactFormat::Diagonal::kNone) reached = true;
      if (diag == nullptr || (!ExactBits(diag->elem, HUGE_VAL) && ExactBits(b.elem, HUGE_VAL))) diag = &b;
    }
    if (reached || diag == nullptr) continue;
    ExactFormat& d = plan->formats[diag->name];
    d.diagonal = ExactFormat::Diagonal::kNaN;
    d.diagonal_first = 0;
    d.diagonal_offset = 0;
    // Four blocks (i = 0..3: block rows q, q + 2, q + 4, q + 6) when both
    // dimensions are 32 or more: one in each of a 32x32 accumulator layout's
    // four register groups (rows 8 g + 4 h + t; two blocks reached only two
    // of them per pass, so +inf met half the conversions of a 32x32 result
    // per seed), at most half of a 32-wide dimension's rows or columns,
    // and a quarter of a 64-wide one's; else one.
    d.diagonal_blocks = diag->shape[0] >= 32 && diag->shape[1] >= 32 ? 4 : 1;
  }
  for (const Arg& a : k.args)
    if (auto f = plan->formats.find(a.name);
        f != plan->formats.end() && f->second.diagonal != ExactFormat::Diagonal::kNone)
      r.push_back(a.name);
  return r;
}

std::map<std::string, RoundingBound> RoundingBounds(const Kernel& k) {
  Analysis::AffineCache affine;
  Analysis an(k, nullptr, &affine);
  an.Run();
  std::map<std::string, RoundingBound> r;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.access == Access::kReadOnly) continue;
    RoundingBound b;
    auto it = an.stored().find(a.name);
    if (it != an.stored().end()) {
      b.dev = it->second.rho_dev.IsConst() ? it->second.rho_dev.c0 : kInf;
      b.ref = it->second.rho_ref.IsConst() ? it->second.rho_ref.c0 : kInf;
      b.last = it->second.last;
    }
    if (std::isinf(b.dev) || std::isinf(b.ref)) {
      b.dev = b.ref = kInf;
      b.last = 0;
      b.unbounded = an.rho_unbounded().empty() ? "no bound on the roundings" : an.rho_unbounded();
    }
    r[a.name] = b;
  }
  return r;
}

std::set<const Op*> IdenticalStores(const Kernel& k) {
  Analysis::AffineCache affine;
  Analysis an(k, nullptr, &affine);
  an.Run();
  return an.IdenticalStores();
}

bool HasUnorderedSum(const Kernel& k) {
  std::vector<const std::vector<Op>*> todo = {&k.body};
  while (!todo.empty()) {
    const std::vector<Op>* ops = todo.back();
    todo.pop_back();
    for (const Op& op : *ops) {
      if (op.kind == OpKind::kMfma || op.kind == OpKind::kGemm) return true;
      if (op.kind == OpKind::kFor) todo.push_back(&op.body);
    }
  }
  return false;
}

}  // namespace kir
