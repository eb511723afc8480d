#include "compiler/analysis/index_analysis.h"

#include <algorithm>
#include <optional>
#include <set>
#include <numeric>
#include <set>

#include "absl/strings/str_cat.h"

namespace kir {
namespace {

constexpr int64_t kSat = int64_t{1} << 62;

int64_t Sat(__int128 v) {
  if (v > kSat) return kSat;
  if (v < -kSat) return -kSat;
  return static_cast<int64_t>(v);
}

bool Saturated(int64_t v) { return v >= kSat || v <= -kSat; }

void AddTerm(AffineForm& f, const std::shared_ptr<const Atom>& atom, int64_t coeff) {
  if (coeff == 0) return;
  auto it = std::lower_bound(f.terms.begin(), f.terms.end(), atom->key,
                             [](const AffineTerm& t, const std::string& k) { return t.atom->key < k; });
  if (it != f.terms.end() && (it->atom == atom || it->atom->key == atom->key)) {
    it->coeff = Sat(static_cast<__int128>(it->coeff) + coeff);
    if (it->coeff == 0) f.terms.erase(it);
    return;
  }
  f.terms.insert(it, AffineTerm{atom, coeff});
}

Atom Leaf(Atom::Kind kind, int dim, std::string name, std::string key, Interval r, bool uniform) {
  Atom a;
  a.kind = kind;
  a.dim = dim;
  a.name = std::move(name);
  a.key = std::move(key);
  a.range = r;
  a.uniform = uniform;
  return a;
}

AffineForm FromAtom(Atom a) {
  if (a.range.IsConst()) return AffineConst(a.range.lo);
  AffineForm f;
  f.terms.push_back(AffineTerm{std::make_shared<const Atom>(std::move(a)), 1});
  return f;
}

// floordiv / mod of an affine form by a positive constant d; `source` and
// `dividend` are the user's texts of the expression and of x (Atom::source).
AffineForm DivMod(const AffineForm& x, int64_t d, bool is_mod, std::string source, std::string dividend) {
  if (d == 1) return is_mod ? AffineConst(0) : x;
  // Split x = d*q + r where q collects the parts that are multiples of d.
  AffineForm q, r;
  q.constant = FloorDiv(x.constant, d);
  r.constant = FloorMod(x.constant, d);
  for (const AffineTerm& t : x.terms) {
    if (t.coeff % d == 0)
      AddTerm(q, t.atom, t.coeff / d);
    else
      AddTerm(r, t.atom, t.coeff);
  }
  Interval rr = r.Range();
  // The remainder stays in one period [m*d, m*d + d - 1]: exact fold.
  if (!Saturated(rr.lo) && !Saturated(rr.hi) && FloorDiv(rr.lo, d) == FloorDiv(rr.hi, d)) {
    int64_t m = FloorDiv(rr.lo, d);
    if (is_mod) return AffineAdd(r, AffineConst(-m * d));
    return AffineAdd(q, AffineConst(m));
  }
  Atom a;
  a.kind = is_mod ? Atom::Kind::kMod : Atom::Kind::kFloorDiv;
  a.divisor = d;
  a.key = absl::StrCat("(", r.Key(), is_mod ? ") mod " : ") floordiv ", d);
  a.uniform = r.Uniform();
  a.source = std::move(source);
  a.source_operands = {std::move(dividend)};
  a.source_range = x.Range();
  if (is_mod) {
    // x mod d = x - d*floor(x/d): a multiple of every common divisor of x and
    // d, so at most d - g ((tid.x * 16) mod 64 in 0..48: a 16-wide vector
    // there stays in 0..63, fresh-user review 13).
    int64_t g = r.KnownDivisor();
    a.multiple = std::max<int64_t>(1, std::gcd(g, d));
    a.range = {0, d - a.multiple};
  } else {
    a.range = {FloorDiv(rr.lo, d), FloorDiv(rr.hi, d)};
  }
  a.inner.push_back(std::move(r));
  if (is_mod) return FromAtom(std::move(a));
  return AffineAdd(q, FromAtom(std::move(a)));
}

// x - x mod d == d * (x floordiv d) (d > 0): where a form holds a*r and
// -a*(r mod d) (r the mod atom's operand), replace both by a*d*(r floordiv d).
// The interval analysis bounds each atom on its own, so r and r mod d would
// count as independent (tid.x - tid.x mod 64 in 0..255 would get -63..255);
// the floordiv is bounded exactly (0..192 after the scaling). Fresh-user
// review 7 F7. Every term of r must appear with the same multiplier a.
AffineForm CancelMods(AffineForm f) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const AffineTerm& t : f.terms) {
      const Atom& m = *t.atom;
      if (m.kind != Atom::Kind::kMod || m.inner.size() != 1) continue;
      const AffineForm& r = m.inner[0];
      const int64_t a = -t.coeff;
      bool holds = !r.terms.empty();
      for (const AffineTerm& rt : r.terms) {
        auto it = std::find_if(f.terms.begin(), f.terms.end(),
                               [&](const AffineTerm& ft) { return ft.atom->key == rt.atom->key; });
        if (it == f.terms.end() || static_cast<__int128>(rt.coeff) * a != it->coeff) {
          holds = false;
          break;
        }
      }
      if (!holds) continue;
      const std::string dividend = m.source_operands.empty() ? r.Key() : m.source_operands[0];
      AffineForm q = DivMod(r, m.divisor, /*is_mod=*/false, absl::StrCat("(", dividend, ") floordiv ", m.divisor),
                            dividend);
      // f - a*r - (-a)*(r mod d) + a*d*(r floordiv d); copy the atom first:
      // the term that holds it is erased.
      const std::shared_ptr<const Atom> keep = t.atom;
      AffineForm g = AffineAdd(f, AffineScale(r, -a));
      AddTerm(g, keep, a);
      f = AffineAdd(g, AffineScale(q, Sat(static_cast<__int128>(a) * m.divisor)));
      changed = true;
      break;
    }
  }
  return f;
}

// Appends the leaf keys that `f`'s range depends on to `leaves`; false when
// a term's range may not be attained (a product, a mod of anything but one
// leaf spanning a whole period), or a leaf occurs twice (the terms are not
// independent).
bool ExactLeaves(const AffineForm& f, std::set<std::string>& leaves) {
  for (const AffineTerm& t : f.terms) {
    const Atom& a = *t.atom;
    switch (a.kind) {
      case Atom::Kind::kTid:
      case Atom::Kind::kWg:
      case Atom::Kind::kLoopVar:
        if (!leaves.insert(a.key).second) return false;
        break;
      case Atom::Kind::kFloorDiv:
        // floor(x / d) is monotone: x's extremes give its extremes.
        if (a.inner.size() != 1 || !ExactLeaves(a.inner[0], leaves)) return false;
        break;
      case Atom::Kind::kMod: {
        // (+-leaf + c) mod d over at least d consecutive values (a leaf takes
        // every integer of its range) takes every value 0..d-1.
        if (a.inner.size() != 1 || a.inner[0].terms.size() != 1) return false;
        const AffineTerm& lt = a.inner[0].terms[0];
        const Atom::Kind k = lt.atom->kind;
        if ((lt.coeff != 1 && lt.coeff != -1) ||
            (k != Atom::Kind::kTid && k != Atom::Kind::kWg && k != Atom::Kind::kLoopVar))
          return false;
        if (lt.atom->range.hi - lt.atom->range.lo + 1 < a.divisor) return false;
        if (!leaves.insert(lt.atom->key).second) return false;
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

Interval IvAdd(Interval a, Interval b) {
  return {Sat(static_cast<__int128>(a.lo) + b.lo), Sat(static_cast<__int128>(a.hi) + b.hi)};
}

Interval IvMul(Interval a, Interval b) {
  __int128 c[4] = {static_cast<__int128>(a.lo) * b.lo, static_cast<__int128>(a.lo) * b.hi,
                   static_cast<__int128>(a.hi) * b.lo, static_cast<__int128>(a.hi) * b.hi};
  return {Sat(*std::min_element(c, c + 4)), Sat(*std::max_element(c, c + 4))};
}

Interval IvScale(Interval a, int64_t c) { return IvMul(a, {c, c}); }

AffineForm AffineConst(int64_t c) {
  AffineForm f;
  f.constant = c;
  return f;
}

AffineForm AffineAdd(const AffineForm& a, const AffineForm& b) {
  AffineForm f = a;
  f.constant = Sat(static_cast<__int128>(a.constant) + b.constant);
  for (const AffineTerm& t : b.terms) AddTerm(f, t.atom, t.coeff);
  return f;
}

AffineForm AffineScale(const AffineForm& a, int64_t c) {
  if (c == 0) return AffineConst(0);
  AffineForm f;
  f.constant = Sat(static_cast<__int128>(a.constant) * c);
  for (const AffineTerm& t : a.terms) AddTerm(f, t.atom, Sat(static_cast<__int128>(t.coeff) * c));
  return f;
}

std::string AffineForm::Key() const {
  std::string s;
  for (const AffineTerm& t : terms) {
    if (!s.empty()) s += " + ";
    if (t.coeff != 1) absl::StrAppend(&s, t.coeff, "*");
    s += t.atom->key;
  }
  if (constant != 0 || s.empty()) {
    if (!s.empty()) s += " + ";
    absl::StrAppend(&s, constant);
  }
  return s;
}

Interval AffineForm::Range() const {
  Interval r{constant, constant};
  for (const AffineTerm& t : terms) r = IvAdd(r, IvScale(t.atom->range, t.coeff));
  return r;
}

bool AffineForm::Uniform() const {
  for (const AffineTerm& t : terms)
    if (!t.atom->uniform) return false;
  return true;
}

int64_t AffineForm::KnownDivisor() const {
  int64_t g = constant < 0 ? -constant : constant;
  for (const AffineTerm& t : terms) {
    __int128 c = static_cast<__int128>(t.coeff) * t.atom->multiple;
    int64_t cm = Sat(c < 0 ? -c : c);
    g = std::gcd(g, cm);
  }
  return g;
}

bool AffineForm::RangeIsExact() const {
  std::set<std::string> leaves;
  return ExactLeaves(*this, leaves);
}

int64_t AffineForm::KnownAlignment() const {
  int64_t g = KnownDivisor();
  if (g == 0) return int64_t{1} << 30;
  int64_t a = 1;
  while (a < (int64_t{1} << 30) && g % (a * 2) == 0) a *= 2;
  return a;
}

absl::StatusOr<AffineForm> Affine(const IndexExpr& e, const IndexScope& scope) {
  const Kernel& k = *scope.kernel;
  switch (e.kind) {
    case IndexKind::kConst:
      return AffineConst(e.value);
    case IndexKind::kTid:
      return FromAtom(Leaf(Atom::Kind::kTid, e.dim, "", absl::StrCat("tid.", std::string(1, "xyz"[e.dim])),
                           {0, k.workgroup[e.dim] - 1}, false));
    case IndexKind::kWg:
      return FromAtom(Leaf(Atom::Kind::kWg, e.dim, "", absl::StrCat("wg.", std::string(1, "xyz"[e.dim])),
                           {0, k.grid[e.dim] - 1}, true));
    case IndexKind::kNamed: {
      const NamedConst* c = k.FindConst(e.name);
      if (c == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown constant '", e.name, "'"));
      return AffineConst(c->value);
    }
    case IndexKind::kLoopVar: {
      auto it = scope.loops.find(e.name);
      if (it == scope.loops.end())
        return absl::InvalidArgumentError(
            absl::StrCat("'%", e.name, "' is not the induction variable of an enclosing loop"));
      // %k = lo + step * i with the iteration number i in [0, trips - 1], so
      // alignment follows from lo and step.
      const IndexScope::Loop& l = it->second;
      int64_t trips = l.step > 0 ? (l.last - l.lo) / l.step + 1 : 1;
      AffineForm f = AffineConst(l.lo);
      AffineForm iter = FromAtom(Leaf(Atom::Kind::kLoopVar, 0, e.name, "%" + e.name + ".i",
                                      {0, trips - 1}, true));
      return AffineAdd(f, AffineScale(iter, l.step));
    }
    default:
      break;
  }
  absl::StatusOr<AffineForm> a = Affine(*e.lhs, scope);
  if (!a.ok()) return a.status();
  absl::StatusOr<AffineForm> b = Affine(*e.rhs, scope);
  if (!b.ok()) return b.status();
  AffineForm r;
  switch (e.kind) {
    case IndexKind::kAdd:
      r = CancelMods(AffineAdd(*a, *b));
      break;
    case IndexKind::kSub:
      r = CancelMods(AffineAdd(*a, AffineScale(*b, -1)));
      break;
    case IndexKind::kMul:
      if (b->terms.empty()) {
        r = AffineScale(*a, b->constant);
      } else if (a->terms.empty()) {
        r = AffineScale(*b, a->constant);
      } else {
        Atom m;
        m.kind = Atom::Kind::kMul;
        m.key = absl::StrCat("(", a->Key(), ")*(", b->Key(), ")");
        m.range = IvMul(a->Range(), b->Range());
        m.uniform = a->Uniform() && b->Uniform();
        m.multiple = std::max<int64_t>(1, Sat(static_cast<__int128>(std::max<int64_t>(1, a->KnownDivisor())) *
                                              std::max<int64_t>(1, b->KnownDivisor())));
        m.inner = {*a, *b};
        m.source = IndexToString(e);
        m.source_operands = {IndexToString(*e.lhs), IndexToString(*e.rhs)};
        r = FromAtom(std::move(m));
      }
      break;
    case IndexKind::kFloorDiv:
    case IndexKind::kMod: {
      if (!b->terms.empty() || b->constant <= 0)
        return absl::InvalidArgumentError(absl::StrCat(
            "the divisor of '", IndexToString(e), "' must be a positive constant"));
      r = DivMod(*a, b->constant, e.kind == IndexKind::kMod, IndexToString(e), IndexToString(*e.lhs));
      break;
    }
    default:
      return absl::InternalError("bad index kind");
  }
  Interval rg = r.Range();
  if (Saturated(r.constant) || Saturated(rg.lo) || Saturated(rg.hi))
    return absl::InvalidArgumentError(
        absl::StrCat("index expression '", IndexToString(e), "' exceeds the 64-bit range"));
  return r;
}

AffineForm SplitUniformDivs(const AffineForm& f) {
  AffineForm out = AffineConst(f.constant);
  for (const AffineTerm& t : f.terms) {
    const Atom& a = *t.atom;
    if (a.uniform || a.kind != Atom::Kind::kFloorDiv || a.inner.size() != 1) {
      AddTerm(out, t.atom, t.coeff);
      continue;
    }
    const AffineForm x = SplitUniformDivs(a.inner[0]);
    AffineForm u = AffineConst(x.constant), v;
    for (const AffineTerm& xt : x.terms) AddTerm(xt.atom->uniform ? u : v, xt.atom, xt.coeff);
    if (u.terms.empty() || v.terms.empty()) {  // nothing uniform to take out
      AddTerm(out, t.atom, t.coeff);
      continue;
    }
    const int64_t d = a.divisor;
    const std::string uk = u.Key();
    const std::string dividend = a.source_operands.empty() ? x.Key() : a.source_operands[0];
    AffineForm q = DivMod(u, d, /*is_mod=*/false, absl::StrCat("(", uk, ") floordiv ", d), uk);
    AffineForm m = DivMod(u, d, /*is_mod=*/true, absl::StrCat("(", uk, ") mod ", d), uk);
    // The per-lane rest keeps the user's text for messages.
    AffineForm lane = DivMod(AffineAdd(m, v), d, /*is_mod=*/false,
                             a.source.empty() ? a.key : a.source, dividend);
    out = AffineAdd(out, AffineScale(AffineAdd(q, lane), t.coeff));
  }
  return out;
}

std::array<int64_t, 3> WorkItemOfLinear(int64_t t, const std::array<int64_t, 3>& wg) {
  return {t % wg[0], t / wg[0] % wg[1], t / (wg[0] * wg[1])};
}

namespace {

// The wg dimensions and loop variables `e` reads.
void LeavesRead(const IndexExpr& e, std::set<int>* wg, std::set<std::string>* vars) {
  if (e.kind == IndexKind::kWg) wg->insert(e.dim);
  if (e.kind == IndexKind::kLoopVar) vars->insert(e.name);
  if (e.lhs != nullptr) LeavesRead(*e.lhs, wg, vars);
  if (e.rhs != nullptr) LeavesRead(*e.rhs, wg, vars);
}

int64_t Trips(const IndexScope::Loop& l) { return l.step > 0 && l.last >= l.lo ? (l.last - l.lo) / l.step + 1 : 0; }

// One lds_dma site prepared for LdsDmaMayOverlap.
struct DmaSiteInfo {
  std::set<int> wg;             // wg dims its base reads
  std::vector<EnumLeaf> read;   // loops its base reads
  int64_t combos = 1;   // combinations of the read loops' values (saturating)
  int64_t repeats = 1;  // executions per combination: trips of the loops it does not read
  bool runs = true;     // every enclosing loop runs at least once
};

}  // namespace

std::string EnumLeaf::Name() const { return is_wg ? absl::StrCat("wg.", std::string(1, "xyz"[dim])) : "%" + name; }

std::vector<EnumLeaf> WgLeaves(const std::set<int>& dims, const std::array<int64_t, 3>& grid) {
  std::vector<EnumLeaf> leaves;
  for (int d : dims) {
    EnumLeaf f;
    f.is_wg = true;
    f.dim = d;
    f.last = std::max<int64_t>(grid[d], 1) - 1;
    leaves.push_back(f);
  }
  return leaves;
}

int64_t Combinations(const std::vector<EnumLeaf>& leaves) {
  int64_t n = 1;
  for (const EnumLeaf& l : leaves) n = Sat(static_cast<__int128>(n) * l.Count());
  return n;
}

std::vector<int64_t> Combination(const std::vector<EnumLeaf>& leaves, int64_t c) {
  std::vector<int64_t> v;
  for (const EnumLeaf& l : leaves) {
    v.push_back(l.Value(c % l.Count()));
    c /= l.Count();
  }
  return v;
}

std::vector<std::pair<int, int>> LdsDmaMayOverlap(const Kernel& k,
                                                  const std::map<std::string, int64_t>& lds_offset,
                                                  const std::vector<LdsDmaSite>& sites) {
  const std::array<int64_t, 3> wg = k.workgroup;
  const int64_t waves = std::max<int64_t>(1, (k.WorkgroupThreads() + 63) / 64);
  const int64_t wave_bytes = 64 * kLdsDmaLaneBytes;
  std::vector<DmaSiteInfo> info(sites.size());
  for (size_t i = 0; i < sites.size(); ++i) {
    std::set<std::string> vars;
    for (const IndexRef& e : sites[i].op->lds_index)
      if (e != nullptr) LeavesRead(*e, &info[i].wg, &vars);
    for (const auto& [name, loop] : sites[i].loops) {
      const int64_t n = Trips(loop);
      if (n == 0) info[i].runs = false;
      if (vars.count(name)) {
        EnumLeaf f;
        f.name = name;
        f.lo = loop.lo;
        f.last = loop.last;
        f.step = loop.step;
        info[i].read.push_back(f);
      } else {
        info[i].repeats = Sat(static_cast<__int128>(info[i].repeats) * n);
      }
    }
    if (info[i].runs) info[i].combos = Combinations(info[i].read);
  }
  // Site s's byte base at tid `tid`, wg ids `wg_id`, its read loops at
  // combination c (the first loop fastest); nullopt: not evaluable.
  auto base = [&](size_t s, const std::array<int64_t, 3>& tid, const std::array<int64_t, 3>& wg_id,
                  int64_t c) -> std::optional<int64_t> {
    const Op& op = *sites[s].op;
    const LdsAlloc* l = k.FindLds(op.lds);
    auto off = lds_offset.find(op.lds);
    if (l == nullptr || off == lds_offset.end() || op.lds_index.size() != l->shape.size()) return std::nullopt;
    std::map<std::string, int64_t> values;
    const std::vector<int64_t> v_read = Combination(info[s].read, c);
    for (size_t r = 0; r < v_read.size(); ++r) values[info[s].read[r].name] = v_read[r];
    IndexEnv env;
    for (int d = 0; d < 3; ++d) env.tid[d] = tid[d], env.wg[d] = wg_id[d];
    env.named = [&](const std::string& n) -> std::optional<int64_t> {
      const NamedConst* nc = k.FindConst(n);
      return nc == nullptr ? std::nullopt : std::optional<int64_t>(nc->value);
    };
    env.loop_var = [&](const std::string& n) -> std::optional<int64_t> {
      auto it = values.find(n);
      return it == values.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    const std::vector<int64_t> strides = l->Strides();
    __int128 v = off->second;
    for (size_t d = 0; d < op.lds_index.size(); ++d) {
      if (op.lds_index[d] == nullptr) return std::nullopt;
      std::optional<int64_t> x = Evaluate(*op.lds_index[d], env);
      if (!x) return std::nullopt;
      v += static_cast<__int128>(*x) * strides[d] * ElemBytes(l->elem);
    }
    if (Saturated(Sat(v))) return std::nullopt;
    return static_cast<int64_t>(v);
  };
  // Whether sites i and j (i <= j) may overlap in one wave.
  auto may_overlap = [&](size_t i, size_t j) {
    if (!info[i].runs || !info[j].runs) return false;
    if (i == j && info[i].repeats > 1) return true;  // the same base again
    std::set<int> dims = info[i].wg;
    dims.insert(info[j].wg.begin(), info[j].wg.end());
    const std::vector<EnumLeaf> wg_leaves = WgLeaves(dims, k.grid);
    const int64_t wg_combos = Combinations(wg_leaves);
    const __int128 evals = static_cast<__int128>(Sat(static_cast<__int128>(wg_combos) * waves)) *
                           (i == j ? info[i].combos : static_cast<__int128>(info[i].combos) + info[j].combos);
    if (evals > kLdsDmaEnumBudget) return true;
    for (int64_t g = 0; g < wg_combos; ++g) {
      std::array<int64_t, 3> wg_id = {0, 0, 0};
      const std::vector<int64_t> v_wg = Combination(wg_leaves, g);
      for (size_t n = 0; n < wg_leaves.size(); ++n) wg_id[wg_leaves[n].dim] = v_wg[n];
      for (int64_t w = 0; w < waves; ++w) {
        const std::array<int64_t, 3> tid = WorkItemOfLinear(64 * w, wg);
        std::vector<int64_t> a, b;
        for (int64_t c = 0; c < info[i].combos; ++c) {
          std::optional<int64_t> x = base(i, tid, wg_id, c);
          if (!x) return true;
          a.push_back(*x);
        }
        std::sort(a.begin(), a.end());
        if (i == j) {
          for (size_t n = 1; n < a.size(); ++n)
            if (a[n] - a[n - 1] < wave_bytes) return true;
          continue;
        }
        for (int64_t c = 0; c < info[j].combos; ++c) {
          std::optional<int64_t> x = base(j, tid, wg_id, c);
          if (!x) return true;
          b.push_back(*x);
        }
        for (int64_t y : b) {
          auto it = std::lower_bound(a.begin(), a.end(), y - wave_bytes + 1);
          if (it != a.end() && *it < y + wave_bytes) return true;
        }
      }
    }
    return false;
  };
  std::vector<std::pair<int, int>> out;
  for (size_t i = 0; i < sites.size(); ++i)
    for (size_t j = i; j < sites.size(); ++j)
      if (may_overlap(i, j)) out.push_back({static_cast<int>(i), static_cast<int>(j)});
  return out;
}

}  // namespace kir
