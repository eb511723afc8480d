// Comparison of a kernel's output buffers with the reference's, element by
// element over each buffer's logical shape.
#ifndef KIRC_HW_CHECK_COMPARE_H_
#define KIRC_HW_CHECK_COMPARE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "hw/check/exact.h"
#include "hw/check/inputs.h"

namespace kir {

// The tolerance: a finite reference element fails when
// |out - ref| > atol + rtol * max|ref|, max|ref| over the buffer's FINITE
// reference elements (an inf must not make the bound infinite). A non-finite
// reference element must be matched exactly: +inf by +inf, -inf by -inf, NaN
// by any NaN; a finite output for it, or a non-finite output for a finite
// reference element, fails. f32 outputs: rtol 1e-5, raised to 4 * K * 2^-24
// when a reduction of length K (MFMA k times loop trips; a gemm op's K) needs
// more; f16 and bf16: one unit in the last place of the output type (rtol
// 2^-10, 2^-7); i32: exact.
//
// Two other kinds (`kirc run`'s input modes, docs/run.md "Input modes (--inputs)"):
// `bits`: every element must have the reference's bit pattern (any NaN
// matches any NaN: payloads are the implementation's); `shadow_factor` > 0:
// a finite reference element fails when |out - ref| > atol + shadow_factor *
// shadow, with `shadow` the element of the magnitude shadow run (the sum of
// the absolute values of the terms behind it; an infinite or NaN shadow
// element bounds nothing).
//
// With `value_factor` > 0 (the last rounding of every element is one rounding
// the same on both sides, RoundingBound::last) the bound is atol +
// shadow_factor * shadow + value_factor * |ref| for |ref| < value_max and
// atol + whole_shadow_factor * shadow above (a saturated conversion). In
// shadow mode an element stored by a store with nothing that may differ
// behind it must match bit for bit (CompareWithinBounds' per-store checks).
struct Tolerance {
  double atol = 0;
  double rtol = 0;
  double shadow_factor = 0;
  double value_factor = 0;
  double value_max = 0;
  double whole_shadow_factor = 0;
  bool bits = false;
  std::string why;  // how it was chosen, printed with the result
};
// The longest reduction behind any value of `k` (at least 1): a gemm op's K,
// else MFMA k times the trips of the loops that carry the accumulator. For a
// promoted gemm this is the padded K (ceil(K/BK)*BK): pass the unpromoted
// kernel's length to ToleranceFor/CompareOutputs instead.
int64_t ReductionLength(const Kernel& k);
// `reduction_length` > 0 replaces ReductionLength(k) (e.g. a promoted gemm's
// true K: its padding elements are zero and add no rounding error).
Tolerance ToleranceFor(const Kernel& k, const Arg& out, int64_t reduction_length = 0);

struct BufferDiff {
  std::string name;
  int64_t elements = 0;            // compared (the logical shape)
  int64_t mismatches = 0;          // elements out of tolerance
  // Elements on pages neither side materialised (written by neither: equal
  // by construction, not read); FormatDiffs says so when that is all of them.
  int64_t untouched = 0;
  int64_t nonfinite_ref = 0;       // reference elements that are inf or NaN (matched exactly)
  int64_t nonfinite_mismatches = 0;  // mismatches where out or ref is not finite
  // Shadow mode: elements compared bit for bit because a store with nothing
  // that may differ behind it wrote them (Tolerance).
  int64_t identical = 0;
  // Elements also checked against the reference's value before their last
  // conversion (CompareWithinBounds' per-store checks).
  int64_t pre_rounding = 0;
  // max_abs_err: the largest |out - ref| (inf when a finite and a non-finite
  // element differ; 0 for matching non-finite ones). max_abs_ref: max|ref|
  // over the finite reference elements on the pages out or ref materialised
  // (sparse buffers, compiler/ir/paged_bytes.h: the pages neither touched
  // hold the same input in both, so they are counted in `elements` as equal
  // and not read; a dense buffer has every page materialised). max_rel_err: max_abs_err / max_abs_ref,
  // the figure rtol bounds; NaN, printed "n/a", when max_abs_ref is 0 (every
  // finite reference element is zero, so nothing is relative to anything),
  // whether or not the output matches.
  double max_abs_err = 0, max_rel_err = 0, max_abs_ref = 0;
  std::vector<int64_t> worst_index;  // multi-index of the largest |out - ref|
  double worst_out = 0, worst_ref = 0;
  Tolerance tol;
  bool ok = true;
};

// Compares every written-to buffer (writeonly or readwrite) of `k`;
// `reduction_length` as for ToleranceFor.
std::vector<BufferDiff> CompareOutputs(const Kernel& k, const KernelData& out,
                                       const KernelData& ref, int64_t reduction_length = 0);

// Bit identity of every written-to buffer (Tolerance::bits); `why` is the
// tolerance text ("bit-identical (exact inputs)").
std::vector<BufferDiff> CompareBitwise(const Kernel& k, const KernelData& out, const KernelData& ref,
                                       const std::string& why);

// Random mode: every written-to buffer within the worst-case rounding error of
// its elements. For a buffer with rounding sums rho_dev, rho_ref
// (RoundingBounds, exact.h) a value computed with roundings of unit roundoff
// u_1, u_2, ... is within (prod (1 + u_i) - 1) * S <= expm1(rho) * S of the
// exact value, S the exact sum of the absolute values of its terms (every op
// is a sum of products: Higham, "Accuracy and Stability of Numerical
// Algorithms", 2nd ed., sec. 3.1-3.4; for a plain sum of n terms this is
// gamma_{n-1} * sum |x_i|). Device and reference each err so, so
//   |out - ref| <= (expm1(rho_dev) + expm1(rho_ref)) * S + atol,
// with S <= shadow / (1 - expm1(rho_ref)) (the shadow, computed by the
// reference, errs by its own rounding) and atol = 2 smallest subnormals of
// the output type (one per side for the last rounding's gradual underflow,
// which the relative model does not cover). The "exact value" is that of
// exact arithmetic on the values both sides share bit for bit (RoundingBound
// counts no rounding of such values), so a buffer with rho_dev = rho_ref = 0
// and i32 buffers: bit identity.
//
// Per-store checks (review 6 F2, F8; review 7 F4, F11): when `ref` holds
// the per-store records of a buffer (a run of StoreRecordKernel), an element
// last written by a kIdentical store must match bit for bit, and one last
// written by a kPreRounding store of value w (f32, before its conversion)
// must also lie between the conversions of w - G and w + G, G the bound of
// the roundings before that conversion (BufferDiff::identical,
// ::pre_rounding count them). These need only the reference's value of that
// store, so they hold for buffers the kernel reads too (C = alpha * A * B +
// beta * C, an in-place residual), PROVIDED what the store's value depends
// on is the same on both sides: a buffer in `loaded_after_store` (a load
// read an element a store of this launch had written before:
// InterpOptions::loaded_after_store of that run) keeps the whole-buffer
// bound, its records unused, and its tolerance text says why.
std::vector<BufferDiff> CompareWithinBounds(const Kernel& k, const KernelData& out, const KernelData& ref,
                                            const KernelData& shadow,
                                            const std::map<std::string, RoundingBound>& bounds,
                                            const std::set<std::string>* loaded_after_store = nullptr);

// The kind of store that last wrote an element (StoreRecordKernel's record).
enum class StoreKind : int32_t {
  kBounded = 0,      // none, or a store of neither kind below: the buffer's bound
  kIdentical = 1,    // nothing that may differ behind its value (IdenticalStores, exact.h): bit for bit
  kPreRounding = 2,  // a `cvt` of an f32 value w to the buffer's f16/bf16/fp8 type: w is recorded
};
// The names of the record buffers of buffer `buffer`: "C#kind" (i32
// StoreKind per element) and "C#w" (f32 w, NaN where none).
std::string StoreKindBuffer(absl::string_view buffer);
std::string StoreValueBuffer(absl::string_view buffer);
// `k` recording its stores (review 6 F2: an fp8 code one off passes any
// bound on |out - ref|, as a correct device may differ by one code where
// the value lies near a rounding boundary): for every writable float buffer
// B some store of which is kIdentical or kPreRounding, record buffers B#kind
// and (with a kPreRounding store) B#w of B's shape and strides, and after
// every store to B a store of its kind to B#kind and of its w to B#w, at the
// store's index. No op reads them, so a run computes B as k does. `recorded`
// gets the B's (empty: nothing to record).
Kernel StoreRecordKernel(const Kernel& k, std::set<std::string>* recorded);
// `d` (inputs of k) with the record buffers StoreRecordKernel(k) adds:
// B#kind zeros (kBounded), B#w NaNs.
KernelData StoreRecordInputs(const Kernel& records, const KernelData& d);

// `k` with every constant replaced by its absolute value: run on
// MagnitudeInputs it computes the magnitude shadow (CompareWithinBounds).
Kernel MagnitudeKernel(const Kernel& k);

// One line per buffer: "C: 256 elements, max abs err 1.2e-07, max rel err
// 1.2e-07 (of max|ref| 0.998), worst C[3, 7] = 0.51 (ref 0.51); tolerance ...:
// OK" (or "FAIL (N elements out of tolerance)"), with "; 2 non-finite
// reference elements (matched exactly)" before the tolerance when there are some.
std::string FormatDiffs(const std::vector<BufferDiff>& diffs);

// Two devices' outputs for the same inputs (`kirc run --device=A,B`), bit
// for bit over every byte of every buffer (padding and read-only buffers
// included: a store that escapes its shape is a difference too; NaN payloads
// must agree). One entry per buffer that differs.
struct DeviceDifference {
  std::string buffer;
  int64_t byte_offset = 0;      // of the first differing element
  std::string element;          // "C[3, 7]", or "element 12 (padding, outside the shape)"
  uint64_t bits_a = 0, bits_b = 0;  // that element's bits (ElemBytes wide)
  double value_a = 0, value_b = 0;
  int64_t differing = 0;        // elements (ElemBytes-wide units) that differ, unexplained
  int64_t elements = 0;         // units compared
  // Elements whose difference `explain` accounts for (`why`): reported, not
  // a failure.
  int64_t explained = 0;
  std::string why;
};
// `explain(buffer, bits_a, bits_b)`: why this difference in an element of
// `buffer` is not a disagreement (a device's documented deviation,
// Device::KnownDeviation; an unspecified order of sums), or ""; may be
// empty. One entry per buffer with a difference; it fails the cross-check
// when differing > 0.
std::vector<DeviceDifference> CompareDevices(
    const Kernel& k, const KernelData& a, const KernelData& b,
    const std::function<std::string(const Arg&, uint64_t, uint64_t)>& explain = nullptr);
// Bytes a kernel must leave as they were: every byte of a readonly buffer,
// and the bytes of a writable buffer outside its shape's elements (padding
// between strided rows, the gaps of a view into a larger matrix). One line
// per buffer where the device's output `out` changed such a byte from
// `in`, "src (readonly): 254 bytes written, first byte 0x4 (src[1]): 0x0 -> 0x80",
// empty when none.
std::vector<std::string> UntouchedBytesChanged(const Kernel& k, const KernelData& in, const KernelData& out);

// No buffer with an unexplained difference (explained ones are reported only).
bool DevicesAgree(const std::vector<DeviceDifference>& diffs);
// "cross-check: every buffer bit-identical between A and B (N bytes)" or
// one line per differing buffer: "cross-check: C differs between A and B in
// 17 of 256 elements; first C[3, 7] (byte 0x34): A 0x3f800000 (1), B 0x0 (0)".
std::string FormatDeviceComparison(const Kernel& k, absl::string_view name_a, absl::string_view name_b,
                                   const std::vector<DeviceDifference>& diffs);

// The value of element `e` (bytes at `off`) of type t as a double.
double ElementValue(ElemType t, const uint8_t* p);

}  // namespace kir

#endif  // KIRC_HW_CHECK_COMPARE_H_
