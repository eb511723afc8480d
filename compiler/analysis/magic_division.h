// Exact unsigned division by a constant with a multiply-high (Granlund and
// Montgomery, "Division by Invariant Integers using Multiplication", 1994).
#ifndef KIRC_COMPILER_ANALYSIS_MAGIC_DIVISION_H_
#define KIRC_COMPILER_ANALYSIS_MAGIC_DIVISION_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace kir {

// floor(x / d) == (mulhi_u32(x, multiplier) >> shift) for every x in [0, max_x].
struct MagicDivisor {
  uint32_t multiplier = 0;
  int shift = 0;
};

// The magic pair with the smallest shift for divisor d >= 1 over [0, max_x],
// max_x < 2^32. With k = 32 + shift and m = ceil(2^k / d), e = m*d - 2^k, the
// result is exact on [0, max_x] iff max_x * e < 2^k (checked exactly in 128-bit
// integers). InvalidArgument if no 32-bit multiplier exists (only possible when
// max_x needs all 32 bits).
absl::StatusOr<MagicDivisor> FindMagicDivisor(int64_t d, int64_t max_x);

// True if the pair divides exactly over [0, max_x] by the same error bound;
// the verifier's magic-division lemma uses this check.
bool MagicDivisorIsExact(int64_t d, int64_t max_x, MagicDivisor m);

}  // namespace kir

#endif  // KIRC_COMPILER_ANALYSIS_MAGIC_DIVISION_H_
