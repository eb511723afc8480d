// Seeded random kernel inputs: deterministic on every platform (our own
// mapping from a 64-bit mixer, not std:: distributions).
#ifndef KIRC_HW_CHECK_INPUTS_H_
#define KIRC_HW_CHECK_INPUTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/kernel.h"
#include "compiler/ir/paged_bytes.h"
#include "hw/check/exact.h"

namespace kir {

// Buffer contents by argument name (Arg::SizeBytes() bytes, little-endian,
// sparse: generated inputs are a PagedBytes filler, materialised page by page
// where a device or the interpreter touches them) and scalar argument bits by
// name.
struct KernelData {
  std::map<std::string, PagedBytes> buffers;
  std::map<std::string, uint32_t> scalars;
  // By-value arguments of a code object's kernel that the KIR kernel lacks
  // (a foreign kernel's sizes, strides, leading dimensions: `kirc run
  // --scalar`), by their metadata name: exactly the argument's .size bytes,
  // little-endian. The devices pass them (hw/kernarg.h BindKernelArgs); the
  // reference interpreter never sees them.
  std::map<std::string, std::vector<uint8_t>> extra_args;
};

// Inputs for `k` from `seed`: every buffer is filled (also write-only ones, so
// elements a kernel forgets to write show up as differences), lazily: element
// i of buffer B is a pure function of (seed, B's name, i) (the i-th value of
// B's splitmix64 stream; the values the eager generator of earlier versions
// gave), computed when a page is first touched; float elements
// are uniform in [-1, 1) rounded to the element type (so no two neighbours are
// equal by construction and operand swaps show), i32 elements in [-1000, 1000];
// f32 scalars in [0.5, 0.875) or [1.125, 2) (never near 1, a scale
// factor's identity), i32 scalars in [1, 100].
KernelData MakeInputs(const Kernel& k, uint64_t seed);

// Exact-mode inputs from `seed` in the forms plan.formats gives per argument
// (lazy as MakeInputs', each element from the 3 values of its stream)
// (ExactFormat: float elements +-m * 2^e, i32 integers, f32 scalars from a
// subset of {0.5, 1, 1.5, 2}, distinct from one another where their sets
// allow); write-only buffers are filled the same way.
// An argument without a format gets MakeInputs' values. A buffer whose form
// has a K window (ExactFormat::k_window) is +0 outside it: element [i0, i1]
// keeps its value when (i_k - o) mod k_period < k_block, o drawn per index
// i_o of the other dimension (from the seed and the name).
KernelData MakeExactInputs(const Kernel& k, const ExactPlan& plan, uint64_t seed);

// Conversion-pass inputs from `seed` in the forms of `plan`
// (PlanConversionInputs), lazy as MakeExactInputs': float elements +-m * 2^e
// as exact inputs but negative with probability 1/8 only (so that a sum of
// many products keeps most of its bound's bits instead of cancelling, and the
// value before a conversion carries bits beyond the target's; a form's own
// ExactFormat::negative_one_in instead when set: the subnormal pass's
// balanced signs, fresh-user review 20 F9); i32 and
// scalars as MakeExactInputs. A buffer whose form is `special`
// (ConversionFedBuffers) with one target type T gets, at element i, special
// value number (i + o) mod 37 of the conversion to T (o from the seed
// and the name): quiet and signalling NaNs with payloads, +-inf, +-0, +-max
// of T, the tie just above max and the values beside it, beyond max, T's
// smallest subnormal, ties of the subnormal grid (half the smallest: 0 or
// it; 1.5 and 2.5 times it), the smallest normal and the tie below it, ties
// (m + 1/2) ulp of T with m odd and even, of either sign, and those ties
// +-1 f32 ulp, and a full-significand value in T's range. 37 is prime, so
// each value lands at every vector element position (element i mod 2^n)
// and on every lane of a kernel that loads 37 or more consecutive groups.
// With several target types (ExactFormat::special_targets, fresh-user
// review 12 F6: an f32 buffer converted to f16 and to bf16) element i
// takes slot (i + o) mod P (ConversionSpecialSlot) of the first target's
// 37 values and every other target's own ones (all but the
// kTargetFreeSpecials shared ones), P = ConversionSpecialPeriod prime as
// well: each value of each target at every position, on every lane of a
// kernel that loads P or more consecutive groups.
// f16 and bf16 special buffers get ConversionSpecialFrom their type. A
// buffer with saturation specials (ExactFormat::mix_level,
// WithSaturationSpecials) holds at element i value (i + o') mod 37 of
// SaturationSpecials when that index is below their count (NaNs with
// payloads from the element's stream), else its +-m * 2^e. K windows as
// MakeExactInputs'. A subnormal share (ExactFormat::sub_period, fresh-user
// review 14 F14): element i with (i + o) mod sub_period = 0 (o from the
// seed and the form's sub_group, the same in each buffer of the group) is
// +-m * 2^(exp_lo + shift), m uniform in [1, sub_m_max] (its sign drawn as
// the others'), before saturation specials are placed.
KernelData MakeConversionInputs(const Kernel& k, const ExactPlan& plan, uint64_t seed);

// The element indices (byte offset / element bytes, via a's strides) of the
// NaN/inf blocks MakeConversionInputs puts in buffer `a` of format `f` for
// `seed` (ExactFormat::diagonal): [4 ((q + d + 2 i) mod nq) + t,
// 4 ((r + d + 2 i) mod nr) + t], t = 0..3, i = f.diagonal_first, ... (
// f.diagonal_blocks of them), nq, nr = a's extents / 4, q, r from the seed and
// a's name, d = f.diagonal_offset; block by block, t = 0..3 within each.
// Empty when f has no diagonal or `a` is not a 2-D buffer with both extents
// at least 4.
std::vector<uint64_t> DiagonalElements(const Arg& a, const ExactFormat& f, uint64_t seed);

// Special values 0 .. kTargetFreeSpecials - 1 of ConversionSpecialFrom (the
// NaNs, +-inf, +-0) do not depend on the target type: a buffer with several
// targets takes them once.
constexpr int kTargetFreeSpecials = 7;

// The period of a special buffer's values with `targets` (>= 1) target
// types: 37 + 30 (targets - 1) values (the first target's 37, the others'
// 30 target-dependent ones), or the next prime above that: 37, 67, 97, 127,
// 157, 191 for 1 to 6 targets.
int ConversionSpecialPeriod(int targets);

// Slot u (0 <= u < ConversionSpecialPeriod(targets)) of a special buffer:
// which target (0-based, ExactFormat::special_targets order) and which of
// its special values j. Slots 0..36 are the first target's values 0..36,
// then each further target's values kTargetFreeSpecials..36 in turn; slots
// beyond those (the prime's padding) repeat from slot 0.
struct SpecialSlot {
  int target = 0, j = 0;
};
SpecialSlot ConversionSpecialSlot(int targets, int u);

// Special value j (0 <= j < kConversionSpecials) of a conversion from f32 to
// `to` (f16, bf16 or an fp8 type), as f32 bits; `s` draws the random parts
// (NaN payloads, tie significands and exponents).
uint32_t ConversionSpecial(ElemType to, int j, uint64_t& s);
// The same for a buffer of type `from` (f32, f16 or bf16; bits of that type):
// each value rounded to `from` (to nearest even; beyond `from`'s range its
// +-max), "+-1 ulp" neighbours and NaN payloads in `from`'s own format,
// and for value 13 (far beyond max) `from`'s own max when it lies beyond
// `to`'s (fresh-user review 8 F5: f16 data quantised to fp8 beside an MFMA).
uint32_t ConversionSpecialFrom(ElemType from, ElemType to, int j, uint64_t& s);

// Adversarial inputs from `seed`, for kernels whose result must match the
// reference bit for bit on any input (no HasUnorderedSum), lazy: element i
// draws from its own splitmix64 stream seeded by (seed, name, i). f16 and
// bf16 buffer elements: 55% tie factors (any two multiply to a midpoint of
// the format, all in one binade), 20% addends at or below half an f32 ulp of
// such products and 12% at 3/4 of one, so that about 4.3% of the elements
// of fma(x, y, o) expose a double rounding through f32 (review 8 F7) and
// about 2.6% a round-to-odd fix-up that ignores the f32 result's parity
// (review 10 F2) whichever buffers x, y, o come from (inputs.cc
// AdversarialHalf), and 13% of the kinds below. f32 elements:
// 35% "tie makers" +-m * 2^e with m odd of p/2 + 1 bits (p = 11 f16, 8 bf16,
// 24 f32), so a product of two has about p + 1 bits and often lies halfway
// between two neighbours; 15% powers of two, one ulp above them and half an
// ulp of them (ties for additions); 12% tiny addends (+-2^-40 and 3 * 2^-40
// in f32/bf16, +-2^-24 and 3 * 2^-24 in f16); 10% subnormals; 5% signed zeros;
// 1% infinities; 1% NaNs (with payloads); 2% extremes (largest finite,
// smallest normal); 19% full-significand values in [2^-4, 2^5) (non-finite
// values are rare so that loop-carried sums are not all inf or NaN). i32: the
// limits, -1, 0, 1, 2^24 - 1, 2^24, 2^24 + 1, -2^24, 2^16 - 1, 2^16, full
// 32-bit and small random values. Scalars: i32 the same; f32 only tie
// makers, powers of two and their ulp neighbours, and full significands (a
// scalar scales a whole output: a tiny or non-finite one would flatten it).
KernelData MakeAdversarialInputs(const Kernel& k, uint64_t seed);

// The inputs of the magnitude shadow run: `d` with every float element and f32
// scalar replaced by its absolute value (the sign bit cleared); i32 unchanged.
// Lazy too: only pages `d` materialised are copied.
// With MagnitudeKernel (compare.h) the reference computes, for every output
// element, the sum of the absolute values of the terms it adds.
KernelData MagnitudeInputs(const Kernel& k, const KernelData& d);

}  // namespace kir

#endif  // KIRC_HW_CHECK_INPUTS_H_
