// The lds_dma enumeration helpers of index_analysis.h (EnumLeaf,
// Combinations, Combination), which the validator's CheckLdsDma and
// LdsDmaMayOverlap share: values worked out by hand.
#include "compiler/analysis/index_analysis.h"

#include <cstdint>
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

}  // namespace
}  // namespace kir
