// The lds_dma enumeration helpers of index_analysis.h (EnumLeaf,
// Combinations, Combination), which the validator's CheckLdsDma and
// LdsDmaMayOverlap share: values worked out by hand.
#include "compiler/analysis/index_analysis.h"

#include <cstdint>
#include <functional>
#include <vector>

#include "gtest/gtest.h"

namespace kir {
namespace {

EnumLeaf Wg(int dim, int64_t grid) {
  EnumLeaf f;
  f.is_wg = true;
  f.dim = dim;
  f.last = grid - 1;
  return f;
}

EnumLeaf Loop(const char* name, int64_t lo, int64_t last, int64_t step) {
  EnumLeaf f;
  f.name = name;
  f.lo = lo;
  f.last = last;
  f.step = step;
  return f;
}

TEST(EnumLeafTest, CombinationsFirstLeafFastest) {
  // wg.x in 0..2, %k in {4, 7, 10}: 9 combinations, wg.x fastest.
  const std::vector<EnumLeaf> leaves = {Wg(0, 3), Loop("k", 4, 10, 3)};
  EXPECT_EQ(leaves[0].Name(), "wg.x");
  EXPECT_EQ(leaves[1].Name(), "%k");
  EXPECT_EQ(leaves[1].Count(), 3);
  EXPECT_EQ(Combinations(leaves), 9);
  EXPECT_EQ(Combination(leaves, 0), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(Combination(leaves, 1), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(Combination(leaves, 4), (std::vector<int64_t>{1, 7}));
  EXPECT_EQ(Combination(leaves, 8), (std::vector<int64_t>{2, 10}));
  // A last value off the step grid: lo 0, last 9, step 4 -> {0, 4, 8}.
  EXPECT_EQ(Loop("i", 0, 9, 4).Count(), 3);
  EXPECT_EQ(Combinations({}), 1);
  EXPECT_EQ(Combination({}, 0), std::vector<int64_t>{});
}

TEST(EnumLeafTest, CombinationsSaturate) {
  // 2^20 values each: 2^80 combinations saturate at 2^62, far past the budget.
  const EnumLeaf big = Loop("i", 0, (int64_t{1} << 20) - 1, 1);
  EXPECT_EQ(Combinations({big, big, big, big}), int64_t{1} << 62);
  EXPECT_GT(Combinations({big, big}), kLdsDmaEnumBudget);
  EXPECT_EQ(kLdsDmaEnumBudget, int64_t{1} << 18);
}

// ---- SplitUniformDivs (fresh-user review 11 F1) ------------------------------

// The value of `f` at tid.x = t, wg.x = w, by the atoms' definitions (floor
// division and modulo written out here, not the lowering's code).
int64_t EvalAt(const AffineForm& f, int64_t t, int64_t w) {
  std::function<int64_t(const Atom&)> atom = [&](const Atom& a) -> int64_t {
    switch (a.kind) {
      case Atom::Kind::kTid:
        return t;
      case Atom::Kind::kWg:
        return w;
      case Atom::Kind::kFloorDiv:
      case Atom::Kind::kMod: {
        const int64_t x = EvalAt(a.inner[0], t, w), d = a.divisor;
        int64_t q = x / d;
        if (x % d != 0 && x < 0) --q;
        return a.kind == Atom::Kind::kFloorDiv ? q : x - q * d;
      }
      default:
        ADD_FAILURE() << "unexpected atom " << a.key;
        return 0;
    }
  };
  int64_t v = f.constant;
  for (const AffineTerm& term : f.terms) v += term.coeff * atom(*term.atom);
  return v;
}

// The part of `f` that reads tid (per lane) or not (uniform).
AffineForm PartOf(const AffineForm& f, bool uniform) {
  AffineForm p;
  for (const AffineTerm& t : f.terms)
    if (t.atom->uniform == uniform) p.terms.push_back(t);
  return p;
}

// 64 threads, 28125000 workgroups: the 2.4 GB upsampling of review 11 F1.
struct SplitCase {
  const char* what;
  IndexRef e;
  int64_t lane_lo, lane_hi;  // the per-lane part's range, by hand
  // The value for thread t of workgroup w, by hand.
  std::function<int64_t(int64_t, int64_t)> value;
};

TEST(SplitUniformDivsTest, WorkgroupQuotientAndSmallLaneRest) {
  Kernel k;
  k.workgroup = {64, 1, 1};
  k.grid = {28125000, 1, 1};
  IndexScope scope;
  scope.kernel = &k;
  auto fd = [](int64_t x, int64_t d) { return x >= 0 ? x / d : -((-x + d - 1) / d); };
  const IndexRef i = IAdd(IMul(IWg(0), IConst(64)), ITid(0));  // wg.x * 64 + tid.x
  const std::vector<SplitCase> cases = {
      // (64w + t) floordiv 3 - (64w) floordiv 3 = (t + 64w mod 3) floordiv 3
      // in [0, (63 + 2) / 3] = [0, 21].
      {"(wg.x * 64 + tid.x) floordiv 3", IFloorDiv(i, IConst(3)), 0, 21,
       [&](int64_t t, int64_t w) { return fd(64 * w + t, 3); }},
      // 63 - t: 21 (63 floordiv 3) joins the uniform part, the rest is
      // (-t + 64w mod 3) floordiv 3 in [floor(-63 / 3), floor(2 / 3)] = [-21, 0].
      {"(wg.x * 64 + 63 - tid.x) floordiv 3",
       IFloorDiv(ISub(IAdd(IMul(IWg(0), IConst(64)), IConst(63)), ITid(0)), IConst(3)), -21, 0,
       [&](int64_t t, int64_t w) { return fd(64 * w + 63 - t, 3); }},
      // -t: the same rest, [-21, 0].
      {"(wg.x * 64 - tid.x) floordiv 3", IFloorDiv(ISub(IMul(IWg(0), IConst(64)), ITid(0)), IConst(3)), -21, 0,
       [&](int64_t t, int64_t w) { return fd(64 * w - t, 3); }},
      // Nested: the inner rest in [0, 21], the outer ((..) mod 2 + [0, 21]) floordiv 2 in [0, 11].
      {"(wg.x * 64 + tid.x) floordiv 3 floordiv 2", IFloorDiv(IFloorDiv(i, IConst(3)), IConst(2)), 0, 11,
       [&](int64_t t, int64_t w) { return fd(fd(64 * w + t, 3), 2); }},
      // A constant and a scaled tid: (64w + 5 + 2t) floordiv 7 = (64w + 5) floordiv 7 + a rest in
      // [0, floor((6 + 126) / 7)] = [0, 18] (the constant goes with the uniform part, whose mod 7 <= 6).
      {"(wg.x * 64 + 5 + tid.x * 2) floordiv 7",
       IFloorDiv(IAdd(IAdd(IMul(IWg(0), IConst(64)), IConst(5)), IMul(ITid(0), IConst(2))), IConst(7)), 0, 18,
       [&](int64_t t, int64_t w) { return fd(64 * w + 5 + 2 * t, 7); }},
  };
  for (const SplitCase& c : cases) {
    SCOPED_TRACE(c.what);
    absl::StatusOr<AffineForm> f = Affine(*c.e, scope);
    ASSERT_TRUE(f.ok()) << f.status();
    const AffineForm s = SplitUniformDivs(*f);
    const Interval lanes = PartOf(s, false).Range();
    EXPECT_EQ(lanes.lo, c.lane_lo);
    EXPECT_EQ(lanes.hi, c.lane_hi);
    EXPECT_FALSE(PartOf(s, true).terms.empty());
    // Before the split, the per-lane part is the whole quotient's range (at least 1.8e9 / 7).
    EXPECT_GT(PartOf(*f, false).Range().hi, 250000000);
    for (int64_t w : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3}, int64_t{14062499}, int64_t{28124998},
                      int64_t{28124999}})
      for (int64_t t = 0; t < 64; ++t) {
        ASSERT_EQ(EvalAt(s, t, w), c.value(t, w)) << "t " << t << " w " << w;
        ASSERT_EQ(EvalAt(*f, t, w), c.value(t, w)) << "t " << t << " w " << w;
      }
  }
}

TEST(SplitUniformDivsTest, FormsWithoutAMixedFloordivAreKept) {
  Kernel k;
  k.workgroup = {64, 1, 1};
  k.grid = {1000, 1, 1};
  IndexScope scope;
  scope.kernel = &k;
  const IndexRef i = IAdd(IMul(IWg(0), IConst(64)), ITid(0));
  for (const IndexRef& e : {IFloorDiv(ITid(0), IConst(3)),                            // per lane only
                            IFloorDiv(IWg(0), IConst(3)),                             // uniform only
                            IMod(i, IConst(3)),                                       // a mod: [0, 3) already
                            IAdd(IMul(IWg(0), IConst(64)), IFloorDiv(ITid(0), IConst(3)))}) {
    absl::StatusOr<AffineForm> f = Affine(*e, scope);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(SplitUniformDivs(*f).Key(), f->Key());
  }
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// A mod of a multiple of g by d (g dividing d) reaches d - g at most
// (fresh-user review 13: (tid.x * 16) mod 64 is 0, 16, 32 or 48, so a
// 16-wide vector there stays in 0..63). The ranges by hand, and every value
// checked to lie in them.
TEST(ModRangeTest, AMultipleOfTheDivisorsCommonFactorStopsAtDMinusG) {
  Kernel k;
  k.workgroup = {256, 1, 1};
  k.grid = {4, 1, 1};
  IndexScope scope;
  scope.kernel = &k;
  struct Case {
    IndexRef e;
    int64_t hi;
  };
  const std::vector<Case> cases = {
      {IMod(IMul(ITid(0), IConst(16)), IConst(64)), 48},                           // g = 16
      {IMod(IMul(ITid(0), IConst(6)), IConst(64)), 62},                            // gcd(6, 64) = 2
      {IMod(IAdd(IMul(ITid(0), IConst(8)), IConst(4)), IConst(32)), 28},           // 8t + 4: g = 4
      {IMod(IAdd(IMul(ITid(0), IConst(8)), IMul(IWg(0), IConst(12))), IConst(64)), 60},  // g = 4
      {IMod(ITid(0), IConst(64)), 63},                                             // g = 1
  };
  for (const Case& c : cases) {
    absl::StatusOr<AffineForm> f = Affine(*c.e, scope);
    ASSERT_TRUE(f.ok()) << f.status();
    const Interval r = f->Range();
    EXPECT_EQ(r.lo, 0);
    EXPECT_EQ(r.hi, c.hi);
    for (int64_t w = 0; w < 4; ++w)
      for (int64_t t = 0; t < 256; ++t) {
        const int64_t v = EvalAt(*f, t, w);
        ASSERT_GE(v, r.lo);
        ASSERT_LE(v, r.hi);
      }
  }
}

}  // namespace
}  // namespace kir
