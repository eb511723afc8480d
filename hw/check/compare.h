// Comparison of a kernel's output buffers with the reference's, element by
// element over each buffer's logical shape.
#ifndef KIRC_HW_CHECK_COMPARE_H_
#define KIRC_HW_CHECK_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/kernel.h"
#include "hw/check/inputs.h"

namespace kir {

// The tolerance: an element fails when |out - ref| > atol + rtol * max|ref|
// over the buffer. f32 outputs: rtol 1e-5, raised to 4 * K * 2^-24 when a
// reduction of length K (MFMA k times loop trips) needs more; f16 and bf16:
// one unit in the last place of the output type (rtol 2^-10, 2^-7); i32: exact.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
  std::string why;  // how it was chosen, printed with the result
};
Tolerance ToleranceFor(const Kernel& k, const Arg& out);

struct BufferDiff {
  std::string name;
  int64_t elements = 0;            // compared (the logical shape)
  int64_t mismatches = 0;
  double max_abs_err = 0, max_rel_err = 0, max_abs_ref = 0;
  std::vector<int64_t> worst_index;  // multi-index of the largest |out - ref|
  double worst_out = 0, worst_ref = 0;
  Tolerance tol;
  bool ok = true;
};

// Compares every written-to buffer (writeonly or readwrite) of `k`.
std::vector<BufferDiff> CompareOutputs(const Kernel& k, const KernelData& out,
                                       const KernelData& ref);

// One line per buffer: "C: 256 elements, max abs err 1.2e-07, max rel err ...,
// worst C[3, 7] = 0.51 (ref 0.51); tolerance ...; OK" (or "FAIL").
std::string FormatDiffs(const std::vector<BufferDiff>& diffs);

// The value of element `e` (bytes at `off`) of type t as a double.
double ElementValue(ElemType t, const uint8_t* p);

}  // namespace kir

#endif  // KIRC_HW_CHECK_COMPARE_H_
