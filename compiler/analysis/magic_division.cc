#include "compiler/analysis/magic_division.h"

#include "absl/strings/str_cat.h"

namespace kir {

bool MagicDivisorIsExact(int64_t d, int64_t max_x, MagicDivisor m) {
  if (d < 1 || max_x < 0 || max_x >= (int64_t{1} << 32) || m.shift < 0 || m.shift > 32) return false;
  unsigned __int128 two_k = static_cast<unsigned __int128>(1) << (32 + m.shift);
  unsigned __int128 md = static_cast<unsigned __int128>(m.multiplier) * static_cast<uint64_t>(d);
  if (md < two_k) return false;  // m must be >= 2^k / d
  unsigned __int128 e = md - two_k;
  return static_cast<unsigned __int128>(max_x) * e < two_k;
}

absl::StatusOr<MagicDivisor> FindMagicDivisor(int64_t d, int64_t max_x) {
  if (d < 1 || max_x < 0 || max_x >= (int64_t{1} << 32))
    return absl::InvalidArgumentError(
        absl::StrCat("magic division needs d >= 1 and 0 <= x < 2^32 (d = ", d, ", max x = ", max_x, ")"));
  for (int s = 0; s <= 32; ++s) {
    unsigned __int128 two_k = static_cast<unsigned __int128>(1) << (32 + s);
    unsigned __int128 m = (two_k + static_cast<uint64_t>(d) - 1) / static_cast<uint64_t>(d);
    if (m >= (static_cast<unsigned __int128>(1) << 32)) break;
    MagicDivisor md{static_cast<uint32_t>(m), s};
    if (MagicDivisorIsExact(d, max_x, md)) return md;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no 32-bit magic multiplier divides [0, ", max_x, "] by ", d,
                   " exactly; keep index values below 2^31"));
}

}  // namespace kir
