// Exact-input analysis for `kirc run` (docs/run.md "Mode `exact`", issue 13).
//
// A static analysis over KIR values proves, for inputs of a chosen form, that
// every value the kernel computes is exactly representable in its type: then
// no op rounds, every summation order gives the same result, and the device
// must match the reference interpreter bit for bit (a dropped MFMA step or a
// misplaced element then shows, however long the reduction).
//
// The domain, per SSA value (all elements of a vector alike): every finite
// element is an integer multiple of 2^lo with magnitude <= mag. It is exact in
// a float type of p significand bits (11 f16, 8 bf16, 24 f32) when
// mag <= 2^(lo + p), mag <= the largest finite value and lo >= the exponent of
// the smallest subnormal (f16 -24, bf16 -133, f32 -149); an i32 value when
// mag <= 2^31 - 1. Transfer: add mag_a + mag_b, lo min; mul mag_a * mag_b,
// lo_a + lo_b; fma both (the product must be exact too, so a device that
// rounds it separately still agrees); mfma k * mag_a * mag_b + mag_c (every
// partial sum, in any order, is a multiple of 2^lo bounded by that); cvt and
// stores keep the value; loads see the argument's input form joined with
// every value stored to that buffer or LDS allocation earlier in program
// order (a loop body is walked until the stored forms are stable). Loops:
// mag and lo of the loop-carried values are kept as linear (mag) and max-plus
// (-lo) forms in the carried values of the enclosing loops; the body maps the
// carried forms x to y = C x + d. With T trips, T <= 64 is iterated exactly;
// beyond, a recurrence whose rows of C sum to at most 1 (a carried sum grows
// by at most the body's increment) is bounded by max(x0) + T * max(d), and
// fraction bits may not grow per iteration; anything else (a carried value
// multiplied per iteration by more than 1 or by a non-integer, a carried
// value times another) refuses exact mode, naming the op.
//
// A tile-level gemm (unpromoted) is a K-long sum of products, times alpha
// (when given), plus beta * C (when given); `kirc run` analyses the promoted kernel, whose K loop the
// loop rule covers.
#ifndef KIRC_HW_CHECK_EXACT_H_
#define KIRC_HW_CHECK_EXACT_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/kernel.h"

namespace kir {

// One element in this many of a two-scale form (ExactFormat::two_scale)
// takes the low scale, unless the form says otherwise (low_one_in).
constexpr int kTwoScaleLowOneIn = 5;

// One element in this many of a conversion pass's buffer behind a
// conversion to f16 or fp8 of loaded values (no mfma or gemm sum behind it)
// is in its target's subnormal range (ExactFormat::sub_period; prime to a
// vector's 2, 4, 8 and 16 elements, so every element position gets them).
constexpr int kSubnormalShareOneIn = 3;

// How exact-mode inputs of one argument are drawn (hw/check/inputs.h
// MakeExactInputs).
struct ExactFormat {
  // Float buffers: +-m * 2^e, m an integer in [1, 2^bits - 1], e an integer in
  // [exp_lo, exp_lo + spread]; exp_lo = -(bits + spread), so |value| < 1.
  int bits = 0, spread = 0, exp_lo = 0;
  // i32 buffers and scalars: integers in [int_lo, int_hi] (buffers
  // symmetric, scalars from 1).
  int64_t int_lo = 0, int_hi = 0;
  // f32 scalars: one of these values (a subset of {0.5, 1, 1.5, 2}).
  std::vector<double> choices;
  // Conversion inputs (PlanConversionInputs): an f32 buffer whose loaded
  // values reach only narrowing conversions and stores
  // (ConversionFedBuffers) gets the special values of the conversions to
  // every target of them, `special_targets` (ConversionFedBuffers' order),
  // interleaved (MakeConversionInputs) instead of +-m * 2^e; `special_to`
  // is then the first of them. f16 and bf16 buffers too: their special
  // values are those of the conversions from the buffer's type
  // (ConversionSpecialFrom).
  bool special = false;
  ElemType special_to = ElemType::kF32;
  std::vector<ElemType> special_targets;
  // Two scales (the first pass of a conversion chain, PlanConversionPasses):
  // +-m * 2^(exp_lo + spread), or for one element in low_one_in (or at
  // low_period, below) +-2^exp_lo (m = 1; negative with probability 1/2),
  // never between. The
  // analysis bounds it as the range form (the same mag and lowest bit); the values before the chain are then a coarse sum of
  // few bits plus a fine part near the first conversion's rounding point,
  // whose rounding decides the last conversion's (often a tie of it).
  bool two_scale = false;
  // Two-scale forms before a long sum (PlanConversionPasses, fresh-user
  // reviews 10 F3, 12 F5): with low_period > 0 (a prime, the largest at
  // most the sum's number of terms T) the low scale is taken by the
  // elements i (buffer element index) with (i + o) mod low_period = 0 instead
  // of one in low_one_in at random (o in [0, low_period) from the seed):
  // every sum of T terms along a stride prime to low_period meets one (two
  // when its first lies within T - low_period of its start), not a
  // Poisson count (none in 37% of the sums at one per sum). The j-th of them
  // (j = (i + o) / low_period) is negative for odd j + f (f 0 or 1 from the
  // seed): half of each sign, so that the first conversion's ties lie with
  // its even neighbour below as often as above (a ties-away-from-zero and a
  // ties-toward-zero first step both show; review 12 F5: a 3-in-4 negative
  // draw let a ties-away f16 step pass whole seeds); +-2^exp_lo for j = 0
  // or 5 (mod 8), else, with low_spread > 0, +-2^(exp_lo + low_spread) (3
  // in 4 of them, each sign half). The high scale's elements are negative
  // one in high_negative_one_in (0: the pass's rate, 1 in 8).
  int low_one_in = kTwoScaleLowOneIn;
  int low_period = 0;
  int low_spread = 0;
  int high_negative_one_in = 0;
  // Every other float element negative one in negative_one_in (0: the
  // pass's rate, 1 in 8 in conversion passes). The subnormal pass's
  // balanced signs (fresh-user review 20 F9): 2, so that a sum of many
  // products spreads around 0 over many codes of the subnormal grid instead
  // of a narrow band at a few percent of its bound.
  int negative_one_in = 0;
  // Saturation specials (WithSaturationSpecials): >= 0 for a float buffer
  // whose loaded values reach a narrowing conversion to `special_to` through
  // elementwise ops only (ElementwiseFedBuffers): element i holds value
  // (i + o) mod kConversionSpecials of SaturationSpecials(elem, special_to,
  // mix_level) when that index is below their count, else +-m * 2^e as above.
  int mix_level = -1;
  // Every float value (buffer elements, scalar choices) times 2^shift
  // (SaturationPlan); 0 elsewhere.
  int shift = 0;
  // Every element +0 (a float buffer): SaturationPlan's subnormal pass
  // removes an addend no scale brings into the subnormals (an fp8 gemm's
  // K-long sum of `A * B + beta * C`; fresh-user review 14 F3).
  bool zero = false;
  // Every float value (buffer elements, scalar choices) negated: the
  // saturation pass's second run, whose values before the conversion lie
  // near and beyond -max (fresh-user review 10 F1). Negation is exact, and
  // the analysis bounds magnitudes only.
  bool negate = false;
  // A 2-D buffer behind an mfma or gemm (ChooseDiagonals): `diagonal` (NaN,
  // or +inf where the type has it) at [4 (q + d + 2 i) + t, 4 (r + d + 2 i) + t]
  // (block indices mod shape / 4), t = 0..3, for the diagonal_blocks blocks
  // i = diagonal_first, ... (q, r from the seed, d = diagonal_offset, which
  // `kirc run` chooses by reference-only runs so that the blocks reach
  // the stored part of each converted output). Each block reaches four
  // consecutive rows (or columns) of the result, every element position of
  // a lane's group of 4; blocks i = 0..3 reach every accumulator register
  // of a 32x32 layout (rows 8 g + 4 h + t of register 4 g + t, lane half h:
  // block q + 2 i is g = q/2 + i of the same half). An inf sums to +-inf,
  // or NaN with an opposite inf or inf * 0, in any order (bit for bit).
  enum class Diagonal { kNone, kNaN, kInf };
  Diagonal diagonal = Diagonal::kNone;
  int diagonal_first = 0, diagonal_blocks = 0;
  // A K window (fresh-user review 13 F4): a 2-D float buffer that is a gemm
  // operand (A or B) whose K dimension is `k_dim` (0 or 1) of length k_len
  // is nonzero only at the K indices i with (i - o) mod k_period < k_block,
  // o in [0, k_period) per index of its other dimension (per row of A.mk)
  // from the seed (MakeExactInputs); zero (+0) elsewhere. Blocks of k_block
  // consecutive K indices every k_period reach every K tile of a long K
  // loop; along K at most ceil(k_len / k_period) * k_block <= k_window of
  // them are nonzero, so the gemm's sum has at most k_window nonzero terms
  // (the analysis's term count for it: KWindowTerms). k_window 0: dense.
  int64_t k_window = 0, k_len = 0, k_block = 0, k_period = 0;
  int k_dim = 0;
  int64_t diagonal_offset = 0;
  // A subnormal share (the conversion pass, fresh-user review 14 F14: an
  // fp8 quantisation Q = cvt(X * s) whose values reached the target's
  // subnormal range in 1 element of 511, and an fp8 flush-to-zero passed):
  // with sub_period > 0 the elements i with (i + o) mod sub_period = 0 (o
  // from the seed and sub_group, the first buffer of the group: the same
  // positions in every buffer of it) are +-m * 2^exp_lo, m in [1,
  // sub_m_max] (the group's other buffers: sub_m_max 1, +-2^exp_lo, when
  // they are factors of the operand, 0: +0, when terms), so that the operand of
  // the conversion they reach (m times the other factors' lowest bits:
  // PlanConversionPasses measures them) lies in or below its target's
  // subnormal range, ties between subnormals among them. `sub_note` says
  // where ("then m * 2^-12 at 8:3: f8e4m3fnuz's subnormals ...").
  int sub_period = 0;
  int64_t sub_m_max = 0;
  std::string sub_group, sub_note;

  // "+-m*2^e, m in [1, 15], e = -4", "integers in [-1000, 1000]",
  // "one of {0.5, 1, 1.5, 2}", "special values of the conversion to bf16",
  // "special values of the conversions to f16 and bf16";
  // with saturation specials `elem` (the argument's type) names them:
  // "+-m*2^e, ...; 5 in 37 elements (at every position) NaN, +-240, +-224
  // (saturation of the conversion to f8e4m3fnuz)"; a K window adds "; nonzero
  // only at k with (k - o) mod 256 in [0, 16), o per row from the seed:
  // 1024 of 16384 terms per sum".
  std::string Describe(ElemType elem = ElemType::kF32) const;
};

// The most nonzero K indices per index of the other dimension of a buffer in
// form `f` along its K window (ExactFormat::k_window): ceil(k_len / k_period)
// * k_block, at most k_len; k_len when `f` has no window.
int64_t KWindowTerms(const ExactFormat& f);

// How a 2-D buffer's elements lie in memory, for a K window: kRows when
// strides[1] >= 1 and strides[0] >= strides[1] * shape[1] (row-major, rows
// and elements possibly padded: element [i0, i1] at i0 * strides[0] + i1 *
// strides[1], no two elements at one place), kColumns the same with the
// dimensions swapped, else kNone (a broadcast, stride-0 or overlapping
// layout: a K window cannot zero some K indices of a row and keep others).
enum class KWindowLayout { kNone, kRows, kColumns };
KWindowLayout KWindowLayoutOf(const Arg& a);

// A narrowing conversion as a conversion pass's inputs reach it
// (ExactPlan::conversions).
struct ConversionNote {
  std::string where;  // "12:5: '%h = cvt %s : f16x4'" (the op's line:col when it has one)
  ElemType to = ElemType::kF16;
  // Its chain level: 1 + the most narrowing conversions on one path behind
  // its operand (f32 -> f16 -> fp8: the f16 conversion 1, the fp8 one 2).
  int level = 1;
  // The significand bits the analysis bounds its operand by (magnitudes up
  // to M in steps of 2^lo: ceil(log2 M - lo)); 0 for special values.
  int bits = 0;
  int target_p = 0;  // the target's significand bits (11 f16, 8 bf16, 4 f8e4m3, 3 f8e5m2)
  // The operand may carry bits beyond the target's p (or lie below its
  // smallest subnormal, or be a special value): these inputs may round it.
  // False: the conversion is exact on these inputs and its rounding is not
  // checked by this pass.
  bool rounds = false;
  // Its operand carries the pass's extra bits (kConversionExtraBits; the
  // pass's level and target type); false for a conversion of the pass's
  // level that another target's pass sizes (its operand need only lie in
  // range here: it rounds, but seldom from a tie).
  bool capped = false;
  // This pass drew fewer than kConversionMinTies exact ties of the target
  // (counted: `drawn_ties`), and a target pass of its own type follows
  // (ExactPlan::tie_pass, kept by `kirc run`; fresh-user review 18 F7, F8:
  // a K = 128 fp8 sum bounded at 13 bits held at most 11, no f16 value
  // rounded), so this pass's roundings of it are not counted on.
  bool own_pass = false;
  // What this pass's inputs actually drew, counted by `kirc run`
  // (CountConversionTies, hw/run/saturation_passes.h: a reference-only run
  // that also stores each output's values before its conversion in f32;
  // fresh-user review 18 F7, F8: "often an exact tie" was guessed from
  // `bits`, and no value rounded). Per target type, the same in every note
  // of the type: of `drawn` non-zero finite values before the pass's
  // conversions to `to` stored to `counted_outputs` ("P, Q"), `drawn_round`
  // are inexact in `to` (within its range) and `drawn_ties` of those exact
  // ties of its grid, normal or subnormal (halfway between two neighbours:
  // where round-to-nearest-even and ties-away differ); `drawn_sampled`: over
  // a sample of the pages written. drawn < 0: not counted (`not_counted`
  // says why).
  int64_t drawn = -1, drawn_round = 0, drawn_ties = 0;
  bool drawn_sampled = false;
  std::string counted_outputs, not_counted;
  // The exact ties of `to`'s grid drawn before this conversion over every
  // conversion pass `kirc run` keeps (drawn_ties summed over the passes
  // that count it, `ties_passes` of them; -1: none counted it). Below
  // kConversionMinTies its line says its tie rounding is not checked
  // (fresh-user review 20 F1: 0 bf16 ties drawn, and no line said so).
  int64_t all_ties = -1;
  int ties_passes = 0;
};

struct ExactPlan {
  bool exact = false;                          // exact inputs exist and were chosen
  std::map<std::string, ExactFormat> formats;  // every argument, when exact
  // When !exact: what prevents it, "12:5: '%d = mfma ...': WHY" (the op's
  // line:col when it has one).
  std::string blocker;
  // Conversion passes (PlanConversionPasses): the chain level whose
  // conversions' operands may carry kConversionExtraBits bits beyond their
  // target's, and every narrowing conversion of the kernel (program order)
  // with what these inputs give it; empty for exact plans.
  int level = 0;
  std::vector<ConversionNote> conversions;
  // A target pass (PlanConversionPasses, fresh-user review 14 F6): only the
  // level's conversions to this type carry the extra bits, the level's
  // others need only lie in range; kF32: every conversion of the level.
  ElemType to = ElemType::kF32;
  // A target pass planned for a level's type `to` that the level's pass may
  // round (PlanConversionPasses): its operands carry more bits here than
  // there. `kirc run` keeps it only when the level pass's drawn values hold
  // fewer than kConversionMinTies exact ties of `to` (counted:
  // ConversionNote::drawn_ties; fresh-user review 18 F7, F8), and then
  // marks the level pass's conversions to `to` ConversionNote::own_pass;
  // it leaves it out again when it drew no tie of `to` either. Also each
  // level's tie candidate (PlanConversionPasses; fresh-user review 20 F1).
  bool tie_pass = false;
};

// The number of special values MakeConversionInputs cycles through (a
// prime: each lands at every position of a vector and of a lane's group).
constexpr int kConversionSpecials = 37;

// Chooses exact-mode inputs for `k` (per argument, starting from full
// significands and narrowing the arguments behind the first value that does
// not fit, richest first), or says which op makes exact mode impossible.
// When no such inputs exist because of a tile-level gemm op's values (its
// K-long sum), A gets a K window (ExactFormat::k_window, fresh-user review
// 13 F4): the largest power-of-two count n below K (at least 64 and one MFMA
// instruction's K) for which inputs exist, in blocks of min(n, 16) K
// indices; plans that exist without one are unchanged. The same holds for
// PlanConversionInputs and PlanConversionPasses.
ExactPlan PlanExactInputs(const Kernel& k);

// Significand bits beyond its target type's that the conversion pass lets the
// operand of a narrowing conversion carry (PlanConversionInputs). The
// analysis bounds magnitudes in the worst case, so a conversion of a product
// gets values of up to p + 5 bits (an exact tie of the conversion in about 1
// of 2^5 elements), while an MFMA or loop sum of mostly positive terms
// (MakeConversionInputs) typically lies 2 to 4 bits below its bound: p + 1
// to p + 3 bits, a tie in a quarter to a half of the elements that round.
constexpr int kConversionExtraBits = 5;
// The fewest exact ties of a type's grid that a level's conversion pass
// must draw (counted on its values before the conversions, `kirc run`) for
// the level's target pass of that type (ExactPlan::tie_pass) to be left
// out. A round-half-away or half-up conversion differs from
// round-to-nearest-even on the ties whose lower neighbour is even, about
// half of them: with 8 ties all of them miss it with a chance of about
// 2^-8. It replaces a guess from bit counts (kConversionTieBits, 3: a
// sibling bound fewer than 3 bits beyond its p got its own pass) that the
// drawn values contradicted (fresh-user review 18 F7, F8: bounds of 9 and 13
// bits, no value rounded).
constexpr int kConversionMinTies = 8;

// Whether `k` rounds a value to a narrower float type: a `cvt` to f16, bf16
// or fp8 from f32, f16 or bf16 (fp8 -> wider types is exact), or a gemm
// whose C is not f32.
bool HasNarrowingConversion(const Kernel& k);
// Every narrowing conversion of `k` (HasNarrowingConversion's), in program
// order, as ConversionNote::where names it ("20:3: '%q = cvt %s :
// f8e4m3fnx16'"): what no conversion pass rounds when none exists (fresh-user
// review 20 F3: the random pass's line then named none).
std::vector<std::string> NarrowingConversions(const Kernel& k);

// The f32, f16 and bf16 buffers of `k` whose loaded values reach nothing but
// narrowing `cvt`s (through slice and concat, and an exact cvt of an f16 or
// bf16 value to f32), whose results reach nothing but stores
// (through slice and concat) to buffers no op of `k` reads: such a value is
// converted exactly as it was loaded, so any value of the buffer's type, NaN
// and infinities included, gives the same code on both sides (fresh-user
// review 8 F5: an f16 buffer quantised to fp8 beside an MFMA). By name, the conversions'
// target types (each once, in the order of the uses that reach them): a buffer converted to f16 and to
// bf16 gets the special values of both (fresh-user review 12 F6; before, a
// buffer with two target types was left out and got only saturation
// specials).
std::map<std::string, std::vector<ElemType>> ConversionFedBuffers(const Kernel& k);

// The float buffers of `k` (any float type, fp8 included) whose loaded values
// reach a narrowing `cvt` through elementwise ops only (slice, concat, cvt,
// add, mul, fma; stores of them anywhere), never an mfma, a gemm or a loop's
// carried value: a NaN, an infinity or a value beyond the conversion's max
// among them reaches the conversion recognisably (an fp8 `O` of `O =
// cvt(alpha * acc + cvt(O))`, fresh-user review 8 F1). By name, the first
// such conversion's target type. ConversionFedBuffers are among them.
std::map<std::string, ElemType> ElementwiseFedBuffers(const Kernel& k);

// The saturation specials of a buffer of type `from` whose values reach a
// conversion to `to` (ElementwiseFedBuffers), as values (NaN for a NaN),
// each exactly representable in `from`: level 0 NaN, +-inf (when `from` has
// them), +-max of `to`, the tie just above it and the one just below, the
// largest value below max, 2 max, -4 max, +-(max + ulp/4) (inside the window
// (max, max + ulp/2) that rounds to max; fresh-user review 16 F3) and +-max
// of `from` (when `from` is not f32); level 1 the same without `from`'s max;
// level 2 NaN and +-inf only; those `from` cannot hold left out. At most
// kConversionSpecials values.
std::vector<double> SaturationSpecials(ElemType from, ElemType to, int level);

// `plan` (PlanConversionInputs) with saturation specials for the
// ElementwiseFedBuffers of `k` that are not ConversionFedBuffers: per buffer,
// in argument order, the richest level (SaturationSpecials) for which every
// value of `k` stays exact in its type, now with each narrowing conversion's
// operand allowed beyond the target's max (it saturates, or overflows to
// inf, the same way on both sides) and up to f32's 24 bits; no level when
// even NaN and inf do not fit (never: they round nowhere). The conversion
// pass's NaN and saturation checks then reach conversions of computed
// values: `cvt(alpha * acc + O)` with O = 240 is beyond f8e4m3fnuz's max.
// A level that does not fit with the buffer's values bounded together may
// fit apart (fresh-user review 16 F3: `cvt(X * s) : f16` got NaN and +-inf
// only, 4 max times the regular values' fine bits passing f32's 24): when
// the buffer is loaded by one load op and `k` has no LDS (each value before
// a conversion holds one of its elements), its specials alone fit and its
// regular values fit, with every f32 scalar behind the conversions it
// reaches given choices {1} (X * s is then the special itself, exactly).
// `plan` unchanged when !plan.exact.
ExactPlan WithSaturationSpecials(const Kernel& k, ExactPlan plan);

// The target types (program order, each once) of the narrowing conversions
// of `k` (a cvt to f16, bf16 or fp8, a gemm's conversion to C's type) whose
// operand an mfma or gemm computed (a rounding whose order the hardware
// does not specify lies behind it), as the saturation analysis sees them on
// the inputs of `conv` (WithSaturationSpecials(PlanConversionInputs)):
// the types the saturation and subnormal passes scale toward (review 10
// F4-F6; per output: ComputedConversionOutputs). Empty when `conv` is not
// exact or there is none.
std::vector<ElemType> ComputedConversionTargets(const Kernel& k, const ExactPlan& conv);

// A writable f16, bf16 or fp8 buffer of `k` that a narrowing conversion of a
// computed value (an mfma's or gemm's result behind it) stores to, as the
// saturation analysis sees it on the inputs of `conv`: its name, its type
// (the conversion's target) and the arguments behind both its stored values
// and the conversions to its type of computed values (the candidates that
// scale it: SaturationPlan's `output`). Fresh-user review 12 F1, F3, F4: the
// saturation and subnormal passes aim at each such output, not at the first
// converted type only.
struct ComputedOutput {
  std::string name;
  ElemType type = ElemType::kF16;
  std::set<std::string> behind;
};
// Argument order; empty when `conv` is not exact or `k` has no mfma or gemm.
std::vector<ComputedOutput> ComputedConversionOutputs(const Kernel& k, const ExactPlan& conv);

// The range of a narrow float type (f16, bf16, fp8; f32 otherwise): its
// largest finite value, smallest normal and smallest subnormal (IEEE 754
// binary16, bfloat16; fp8 from compiler/ir/float_bits.h Fp8Format).
struct FloatRange {
  double max = 0, min_normal = 0, min_subnormal = 0;
};
FloatRange FloatRangeOf(ElemType t);

// The saturation and subnormal passes' inputs (`kirc run`, fresh-user
// reviews 8 F1, 10 F4-F6): `conv` (WithSaturationSpecials(
// PlanConversionInputs)) with one argument, the carrier, scaled by about
// `factor` (!= 1): an f32 scalar behind a conversion to `target` of a
// computed value (ComputedConversionTargets; alpha) by the nearest
// m/8 * 2^s (m in [8, 15], 3 significand bits: its value is then
// m * 2^(s-3) times its conversion value), else a float buffer behind it (an
// MFMA operand) by 2^s (ExactFormat::shift), in argument order; the
// scalar's scale nearest `factor` (up, factor > 1: not beyond it; down,
// factor < 1: not below it), the buffer's power of two nearest it, and
// then those toward 1, the first for which every value stays exact with saturating
// conversions (as WithSaturationSpecials checks; a buffer's values also
// within its type's range and above its smallest subnormal's bit). `*carrier`
// names it and `*scale` is its factor. No NaN/inf blocks (ChooseDiagonals
// adds them). !exact (with a blocker) when none fits or `conv` is not exact.
//
// `output` (non-empty): only the arguments behind that buffer's stored
// values (ComputedOutput::behind) are candidates, so that a second output
// of another type or of another MFMA chain is aimed at by its own carrier
// (fresh-user review 12 F1, F4). A scalar carrier takes along every other
// f32 scalar behind the same conversions (argument order) whose scaling by
// the same factor keeps every value exact and brings the analysis' bound of
// the conversions' operands (those the carrier is behind) nearer `scale`
// times the conversion pass's bound without passing it: alpha and beta of
// `alpha * A * B + beta * C` scale together, so the whole epilogue scales
// (review 12 F3), a second factor of one product (alpha * acc * gamma,
// which would scale it twice) does not. `*also` (when given) names those.
// Arguments in `exclude` are not candidates: `kirc run` adds a second
// carrier behind the same output, on the first's plan as `conv`, when the
// first cannot reach the aim (fresh-user review 13 F7: an fp8 operand's
// range).
//
// The carrier set must scale every addend of the value converted (fresh-user
// review 14 F3: beta of `A * B + beta * C` scaled one addend, the K-long sum
// stayed): companions are taken along, one at a time, f32 scalars or float
// buffers (by the same x, then a power of two) that bring the analysis'
// bound of the aimed conversions' operands (those whose results reach
// `output`; without saturation specials) nearest x times the conversion
// pass's: beta with alpha, A (or B) with beta, C with A of `A * B + C`.
// Preferred, in this order: a set that scales the value by x with no member
// reaching it through a narrowing conversion of a lower chain level (review
// 14 F9: sx of an in-kernel fp8 quantiser cvt(X * sx) before the MFMA
// saturates and flushes there; so of cvt(acc * so) does not), a set that
// scales it by x, else the first that fits (some addends only); per
// candidate the scale nearest `factor` that fits. `*also` names the
// companions. When that scale falls short of `factor` by more than 2 and
// `output` is given, a fit that lets values stored only to other outputs
// round (an in-place sibling O = cvt(alpha * acc + cvt(O)) capping alpha for
// P = cvt(alpha * acc); review 14 F5) is taken when it comes nearer by more
// than 2: `*unchecked` (when given) names those outputs, which a pass on
// this plan must not compare. Toward the subnormals (factor < 1), still
// short by more than 2: a float buffer behind `output` (not `output` alone
// after it) is zeroed (ExactFormat::zero) when that removes an addend no
// scale brings that low and a set scaling the rest as a whole reaches the
// factor times the bound removed (an fp8 gemm's `A * B + beta * C`: A all
// 0, beta carries; an in-place O = cvt(alpha * acc + cvt(O)): O's input
// all 0, alpha carries; review 14 F3). Zeroed buffers are never candidates.
ExactPlan SaturationPlan(const Kernel& k, const ExactPlan& conv, ElemType target, double factor,
                         std::string* carrier, double* scale, const std::string& output = "",
                         std::vector<std::string>* also = nullptr, const std::set<std::string>& exclude = {},
                         std::set<std::string>* unchecked = nullptr);

// Whether `scalar`, an f32 scalar argument of `k`, scaled beyond f32's range
// makes the same values on the device and the reference (`kirc run`'s
// saturation passes: fresh-user review 14 F4, F11): no mfma or gemm sum
// (whose order the device chooses: a partial sum beyond f32's max is inf in
// one order and finite in another) and no product of a gemm's scale factors
// (alpha * gamma, in either order) depends on it, so that it scales values
// after every such sum, each then one IEEE operation of identical operands
// (+-inf beyond f32's max). False when `plan` is not exact or `scalar` is
// no f32 scalar.
bool OverflowsAlike(const Kernel& k, const ExactPlan& plan, const std::string& scalar);

// Whether every value of `k` fits `plan` (exact) with saturating narrowing
// conversions, the analysis SaturationPlan and WithSaturationSpecials check:
// `kirc run`'s subnormal pass re-checks a scalar carrier it rescales (to a
// power of two, for ties of the target's subnormal grid). False when `plan`
// is not exact.
bool FitsSaturatingPlan(const Kernel& k, const ExactPlan& plan);

// Whether `scalar`, an f32 scalar argument of `k`, scales values only after
// every mfma or gemm K-long sum (no such sum depends on it; a gemm's product
// of its scale factors, checked exact by the analysis, may) and each of its
// values in `plan` (choices times 2^shift) is an f32 value: scaled into f32's
// subnormal range (a bf16 output's subnormal pass, fresh-user review 16 F5)
// its products are subnormal while every sum keeps its normal magnitude.
// The mfma's own handling of subnormal f32 sums is not what such a pass
// checks. False when `plan` is not exact or `scalar` is no f32 scalar.
bool ScalesAfterSums(const Kernel& k, const ExactPlan& plan, const std::string& scalar);

// The NaN/inf blocks of a saturation pass (fresh-user reviews 10 F4, 12 F4):
// for every narrowing conversion of an mfma/gemm result (a saturating,
// computed conversion of `plan`, any target) whose operands no diagonal
// reaches yet, the first 2-D float buffer behind it (in argument order; both
// dimensions >= 4) that is not elementwise-fed (an MFMA operand), has no
// special or saturation values, and whose type has +inf (f32, f16, bf16,
// f8e5m2), else the first such, gets a NaN diagonal (ExactFormat::diagonal,
// blocks 0 .. n-1, n = 4 when both dimensions are 32 or more (one block in
// each register group of a 32x32 accumulator layout), else 1; NaN
// sums to NaN in any order): one per MFMA chain, each chain's conversions
// then meet NaN. The caller may make it +inf and move its blocks
// (diagonal_first, diagonal_offset). Returns the buffers chosen, in argument
// order; none when `plan` is not exact.
std::vector<std::string> ChooseDiagonals(const Kernel& k, ExactPlan* plan);

// Conversion inputs for `k` (docs/run.md "Mode `conversion`"): as
// PlanExactInputs, but the value before each narrowing conversion (a cvt to
// f16/bf16/fp8, a gemm's conversion to C's type) need only be exact in f32
// and within the target's range, with at most kConversionExtraBits
// significand bits beyond the target's p (min(p + 5, 24) bits): the device
// and the reference then hold that value bit for bit, the conversion (one
// IEEE rounding on both sides) rounds it, often from an exact tie, and the
// stored codes must match bit for bit. An MFMA's or gemm's sums, an fma's
// product and a loop's carried sums must still be exact in their type
// (f32: 24 bits); other adds and muls need only stay in range (see
// PlanConversionPasses), so the inputs' bits are what those sums and the
// cap leave: the analysis narrows the richest argument behind the first
// value that does not fit. The conversions of the first chain level get the
// extra bits (PlanConversionPasses for the others). ConversionFedBuffers
// get special values (ExactFormat::special). !exact (with the blocker)
// when no such inputs exist or `k` has no narrowing conversion.
ExactPlan PlanConversionInputs(const Kernel& k);

// The conversion passes of `k`, one per chain level L = 1 .. the highest
// (fresh-user review 8 F2: an f32 -> f16 -> fp8 chain sized for the fp8
// conversion's p + 5 = 9 bits never rounded its f16 step). A conversion's
// result is a value of its target both sides hold bit for bit, and every
// IEEE add, mul, fma or conversion of such values rounds the same way on
// both, so only sums whose order the device chooses (an mfma's, a gemm's)
// and fma products must be exact in the conversion pass; every other value
// need only stay within its type's range. Pass L (ExactPlan::level) lets the
// operands of the level-L conversions carry up to p + kConversionExtraBits
// bits (the planner narrows inputs to that), the other conversions' only
// stay within their target's range: pass 1 is PlanConversionInputs. Passes
// for which no inputs exist are left out; empty when none exist (then
// PlanConversionInputs' blocker says why) or `k` has no narrowing
// conversion. ExactPlan::conversions says which conversions each pass may
// round. Pass 1 of a chain takes two-scale forms where they fit
// (ExactFormat::two_scale); before a long sum (an MFMA K loop) every factor
// is then +-2^e and one term per sum low (ExactFormat::low_period),
// alternately negative, so that many values before the chain are exact
// ties of its first conversion half an ulp below or above a midpoint of its
// last (fresh-user reviews 10 F3, 12 F5; exact.cc LongSumTwoScale).
//
// Sibling targets (fresh-user review 14 F6: one MFMA result converted to
// f16 and to fp8, sized for fp8's 9 bits, never rounded the f16 conversion,
// and a ties-away f16 conversion passed): after level L's pass, each other
// target type of level L whose conversions that pass leaves exact gets a
// pass of its own (ExactPlan::to, in program order of their first
// conversion), in which only the level's conversions to that type carry
// p + kConversionExtraBits bits and the level's others need only lie in
// range; left out when it would round none of them either. A level whose
// conversions share one target type gets one pass, as before. Each type a
// level's pass rounds without such a pass of its own, single-type levels
// included, gets a tie candidate (ExactPlan::tie_pass, fresh-user review 20
// F1: a level rounding bf16 with p + 5 bits drew no tie of its grid): the
// level's plan with the float buffers scaled by 2^-j, the first j in [1,
// 16] giving other inputs that still round the type.
//
// Subnormal shares (fresh-user review 14 F14): for each conversion to f16
// or fp8 of a pass's extra-bit conversions whose operand no mfma or gemm
// computed and whose result is only stored (through slice and concat, to
// buffers the kernel does not read: a quantisation Q = cvt(X * s); in
// `cvt(x * x : f16) + z` the add would hide a subnormal's rounding behind
// z's larger values), in program order, the float
// buffers behind it (not special, two-scale, windowed or behind a computed
// conversion; each for its first such conversion) are shifted by a common
// power of two (ExactFormat::shift) so that the operand's lowest bit is a
// quarter of the target's smallest subnormal (else a half, else the
// smallest subnormal, ...: the first for which every value still fits and
// no buffer's saturation specials get poorer, WithSaturationSpecials), and
// every kSubnormalShareOneIn-th element gets a small significand
// (ExactFormat::sub_period): the operand there is m times that lowest bit,
// in or below the target's subnormal range, m = 2 (mod 4) a tie between
// two subnormals. The shift is measured by the analysis on the plan's own
// values (s's chosen value included), not assumed.
std::vector<ExactPlan> PlanConversionPasses(const Kernel& k);

// The inputs the saturation and subnormal passes scale when no conversion
// pass exists (PlanConversionPasses empty: an fp8 output after a deep MFMA
// K loop needs more than p + kConversionExtraBits bits before its
// conversion; fresh-user review 13 F3): chosen as PlanConversionInputs
// chooses them (every mfma or gemm sum, fma product and loop-carried sum
// exact in its type, other adds and muls within range), but with the
// saturation rule for every narrowing conversion (WithSaturationSpecials:
// its operand exact in f32 and allowed beyond the target's max), with at
// most 12 significand bits before each conversion where that fits, else 16,
// 20, then f32's 24 (headroom for SaturationPlan's scale when a term it does
// not scale keeps its lowest bit), then WithSaturationSpecials. Its stored values
// size SaturationPlan's scale (`kirc run` runs the reference on them, not
// the device). !exact (with the blocker, "12:5: 'OP': why") when no such
// inputs exist or `k` has no narrowing conversion.
ExactPlan PlanSaturationBase(const Kernel& k);

// The narrowing conversions none of `passes` rounds (ConversionNote::rounds
// false in every pass that lists them), "12:5: '%h = cvt %s : f16x4'":
// their rounding is unchecked by the conversion passes, so `kirc run`'s auto
// mode adds a random pass when the kernel has an mfma or gemm.
std::vector<std::string> UnroundedConversions(const std::vector<ExactPlan>& passes);

// The random-mode rounding factor of one output buffer (hw/check/compare.h
// CompareWithinBounds): along any chain of operations that produces a stored
// value, the sum over its roundings of the unit roundoff u (2^-24 f32, 2^-11
// f16, 2^-8 bf16), on the device (`dev`) and in the reference interpreter
// (`ref`). They differ in mfma: the device's internal summation order and
// rounding are unspecified (amdgcn-isa-notes.md 1.1), so each of its k
// products may pass through k additions, each assumed faithfully rounded
// (error below one ulp: 2u); the interpreter sums in double and rounds once
// (u + k * 2^-53). A rounding of a value both sides hold bit for bit (no
// mfma or gemm behind it: an add, mul, fma or cvt is the same IEEE operation
// in program order on both) counts 0: its result is identical, an exact
// input of what follows; a loop-carried value counts as possibly different.
// An operand used twice counts twice (a sum over the
// chains, which bounds the largest). `unbounded` is non-empty (and dev/ref
// infinite) when a loop grows a carried value's rounding count faster than
// linearly; it says where.
//
// `last`: the unit roundoff u of the final rounding of every value stored to
// the buffer when that is the same deterministic rounding on both sides (a
// cvt to fp8/f16/bf16, an add/mul/fma) of a value that may differ, and is
// counted in dev and ref; 0 when the stores end otherwise (an mfma result, a
// mix). CompareWithinBounds then charges that rounding against the value
// instead of sum|terms| (review 6 F2).
struct RoundingBound {
  double dev = 0, ref = 0;
  std::string unbounded;
  double last = 0;
};
// Per writable buffer of `k` (a buffer no op stores to has 0, 0).
std::map<std::string, RoundingBound> RoundingBounds(const Kernel& k);

// The store ops of `k` (pointers into k.body) to buffers whose stored values
// have no rounding that may differ behind them (RoundingBound 0, 0): the
// elements they write must match the reference bit for bit even in a buffer
// other stores of which come from an mfma (review 6 F8).
std::set<const Op*> IdenticalStores(const Kernel& k);

// True when `k` has an mfma or gemm op: a sum whose order the hardware does
// not specify. Such kernels cannot be required to match the reference bit for
// bit on arbitrary (adversarial) inputs; every other op is IEEE arithmetic in
// program order on both sides (loop-carried sums included).
bool HasUnorderedSum(const Kernel& k);

}  // namespace kir

#endif  // KIRC_HW_CHECK_EXACT_H_
