// Exact-input analysis for `kirc run` (README "The kirc command", issue 13).
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

  // "+-m*2^e, m in [1, 15], e = -4", "integers in [-1000, 1000]",
  // "one of {0.5, 1, 1.5, 2}".
  std::string Describe() const;
};

struct ExactPlan {
  bool exact = false;                          // exact inputs exist and were chosen
  std::map<std::string, ExactFormat> formats;  // every argument, when exact
  // When !exact: what prevents it, "12:5: '%d = mfma ...': WHY" (the op's
  // line:col when it has one).
  std::string blocker;
};

// Chooses exact-mode inputs for `k` (per argument, starting from full
// significands and narrowing the arguments behind the first value that does
// not fit, richest first), or says which op makes exact mode impossible.
ExactPlan PlanExactInputs(const Kernel& k);

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
