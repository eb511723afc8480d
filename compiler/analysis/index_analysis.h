// Range and affine analysis of index expressions, shared by the validator and
// the lowering: the same facts that justify an access also shape its code.
#ifndef KIRC_COMPILER_ANALYSIS_INDEX_ANALYSIS_H_
#define KIRC_COMPILER_ANALYSIS_INDEX_ANALYSIS_H_

#include <array>
#include <cstdint>
#include <set>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/kernel.h"

namespace kir {

// A closed integer interval [lo, hi]. Arithmetic saturates at +-2^62, far
// outside anything that can pass the 32-bit checks that consume intervals.
struct Interval {
  int64_t lo = 0;
  int64_t hi = 0;
  bool IsConst() const { return lo == hi; }
};
Interval IvAdd(Interval a, Interval b);
Interval IvMul(Interval a, Interval b);
Interval IvScale(Interval a, int64_t c);

// Values of the leaves: tid.d in [0, workgroup[d]-1], wg.d in [0, grid[d]-1],
// constants by name, and the range of each loop variable in scope.
struct IndexScope {
  const Kernel* kernel = nullptr;
  struct Loop {
    int64_t lo, last, step;  // ivar takes lo, lo+step, ..., last
  };
  std::map<std::string, Loop> loops;
};

// One term of an affine form: coeff * atom. An atom is a leaf (tid.d, wg.d, a
// loop variable) or a node the affine form cannot see through (floordiv or mod
// whose operand is not a multiple of the divisor, or a product of two
// non-constant expressions); `inner` holds a composite atom's operand(s).
struct AffineForm;
struct Atom {
  enum class Kind { kTid, kWg, kLoopVar, kFloorDiv, kMod, kMul };
  Kind kind;
  int dim = 0;            // kTid, kWg
  std::string name;       // kLoopVar
  int64_t divisor = 0;    // kFloorDiv, kMod
  std::vector<AffineForm> inner;  // kFloorDiv/kMod: 1 operand; kMul: 2
  std::string key;        // canonical text; equal keys mean equal values
  Interval range;         // values the atom takes
  bool uniform = true;    // the same value in every lane of a wave (no tid)
  int64_t multiple = 1;   // every value of the atom is a multiple of this (>= 1)
  // For messages, the expression as the user wrote it (`key` is the
  // rewritten form: a loop variable %k appears as lo + step * %k.i, and
  // floordiv/mod split off the multiples of the divisor): kFloorDiv/kMod/kMul
  // the whole expression ("%k mod 7"); `source_operands` its dividend ("%k")
  // or its two factors; `source_range` the dividend's range as written.
  std::string source;
  std::vector<std::string> source_operands;
  Interval source_range;
};

// The atom is shared and immutable: forms are added, scaled and split many
// times while lowering, and copying a term copies a pointer, not the atom's
// strings and operand forms.
struct AffineTerm {
  std::shared_ptr<const Atom> atom;  // never null
  int64_t coeff = 0;
};

// constant + sum of coeff * atom, terms sorted by atom key, no zero coeffs.
struct AffineForm {
  int64_t constant = 0;
  std::vector<AffineTerm> terms;

  std::string Key() const;      // canonical text, e.g. "4*tid.x + 16*wg.x + 3"
  Interval Range() const;       // sum of term ranges (sound, may be loose)
  // True when Range()'s lo and hi are values the form takes: its terms read
  // distinct leaves (tid, wg, loop variables) directly, through floordiv, or
  // through a mod of one leaf that spans a whole period. Otherwise a message must say the range could not be proved, not
  // that the index takes those values (fresh-user review 7 F7).
  bool RangeIsExact() const;
  bool Uniform() const;         // no term depends on tid
  // Largest power of two (up to 2^30) that divides every value of the form.
  int64_t KnownAlignment() const;
  // gcd of the constant and every coeff * atom multiple (0 for the form 0).
  int64_t KnownDivisor() const;
};

// Affine form of `e` in `scope`: named constants folded, tid/wg of extent 1
// folded to 0, floordiv/mod by a divisor that divides the coefficients split
// off exactly, floordiv/mod whose operand range lies in one period folded,
// a*x - a*(x mod d) in a sum rewritten as a*d*(x floordiv d).
// Errors (naming the sub-expression): unknown name, non-constant or
// non-positive divisor, or a value beyond +-2^62.
absl::StatusOr<AffineForm> Affine(const IndexExpr& e, const IndexScope& scope);

// `f` with each per-lane floordiv atom (U + T) floordiv d whose operand
// adds uniform terms U (wg ids, loop variables, and the constant) to
// per-lane ones T (tid terms) rewritten as
//   U floordiv d + ((U mod d) + T) floordiv d,
// the same value (U = d * (U floordiv d) + U mod d), nested floordivs first.
// The first atom is uniform; the second, per lane, takes values in
// [floor(T.lo / d), floor((T.hi + d - 1) / d)], not the whole range of
// (U + T) floordiv d: e.g. (64 * wg.x + tid.x) floordiv 3 over 64 lanes is
// (64 * wg.x) floordiv 3 + (tid.x + (64 * wg.x) mod 3) floordiv 3, the
// latter in [0, 21]. For buffer windows (lower_memory.cc PlanWide: the
// uniform part starts the window, the per-lane part must span < 2^31 bytes).
// Other atoms (mod: range [0, d) already; products) are kept as they are.
AffineForm SplitUniformDivs(const AffineForm& f);

AffineForm AffineAdd(const AffineForm& a, const AffineForm& b);
AffineForm AffineScale(const AffineForm& a, int64_t c);
AffineForm AffineConst(int64_t c);

// The work-item id (tid.x, tid.y, tid.z) of linear thread id `t` in a
// workgroup of extents `wg` (x fastest: kernel.h's Kernel). Wave w's lanes
// are linear ids 64w .. 64w + 63; its first lane is WorkItemOfLinear(64w).
std::array<int64_t, 3> WorkItemOfLinear(int64_t t, const std::array<int64_t, 3>& wg);

// A leaf the exhaustive lds_dma checks try every value of (the validator's
// CheckLdsDma, LdsDmaMayOverlap below): wg.{dim} (values 0..grid - 1: lo 0,
// last grid - 1, step 1) or a loop variable `name` (without '%'; values lo,
// lo + step, ..., last). Count() needs step > 0 and last >= lo (a loop that
// runs at least once).
struct EnumLeaf {
  bool is_wg = false;
  int dim = 0;
  std::string name;
  int64_t lo = 0, last = 0, step = 1;
  int64_t Count() const { return (last - lo) / step + 1; }
  int64_t Value(int64_t i) const { return lo + i * step; }
  // "wg.x" or "%k".
  std::string Name() const;
};

// One leaf per workgroup dimension in `dims` (0 x, 1 y, 2 z), each taking
// the ids 0 .. grid[d] - 1 (one value for a grid extent of 0 or 1).
std::vector<EnumLeaf> WgLeaves(const std::set<int>& dims, const std::array<int64_t, 3>& grid);

// The number of combinations of values of `leaves`: the product of their
// counts, saturating at 2^62 (1 for no leaves).
int64_t Combinations(const std::vector<EnumLeaf>& leaves);

// The values of `leaves` at combination `c` (0 <= c < Combinations(leaves)),
// one per leaf in order, the first leaf fastest.
std::vector<int64_t> Combination(const std::vector<EnumLeaf>& leaves, int64_t c);

// The most evaluations of an lds_dma base either exhaustive check spends on
// one question (a few ms): the validator's "is the base the same in all 64
// lanes of a wave" when the affine check cannot decide, and
// LdsDmaMayOverlap's per pair of sites. Beyond it the validator refuses the
// kernel and LdsDmaMayOverlap answers "may overlap".
constexpr int64_t kLdsDmaEnumBudget = int64_t{1} << 18;

// One KIR lds_dma (OpKind::kLdsDma) where the lowering meets it: the op and
// its enclosing `for` loops (induction variable and range), outermost first.
struct LdsDmaSite {
  const Op* op = nullptr;
  std::vector<std::pair<std::string, IndexScope::Loop>> loops;
};

// The pairs (i, j), i <= j, of `sites` (a kernel's lds_dma ops, which the
// validator accepted: each base is the same in all lanes of a wave) whose
// DMAs may write a common LDS byte in ONE wave: two executions (distinct
// ones when i == j) whose bases, at the wave's first lane, are less than
// the wave's 64 x 16 bytes apart. Byte bases are `lds_offset` of the
// allocation + the LDS index times its byte strides. Loop variables take every
// value of their ranges independently for the two executions (barriers are
// ignored: the waitcnt pass only waits for a DMA still outstanding), the wg
// ids one value shared by both; an execution of a loop the base does not read
// repeats the base (i == j). Decided by evaluating every combination, up to
// kLdsDmaEnumBudget evaluations per pair; beyond that, or on overflow, the
// pair may overlap.
// The s_waitcnt pass makes a DMA of site i wait for an outstanding DMA of
// site j (MFunction::lds_dma_overlaps): whether two DMAs of a wave write LDS
// in issue order is not a checked fact (amdgcn-isa-notes.md, LDS DMA).
std::vector<std::pair<int, int>> LdsDmaMayOverlap(const Kernel& k,
                                                  const std::map<std::string, int64_t>& lds_offset,
                                                  const std::vector<LdsDmaSite>& sites);

}  // namespace kir

#endif  // KIRC_COMPILER_ANALYSIS_INDEX_ANALYSIS_H_
