// NumPy .npy (format 1.0) files of kernel buffers, over their logical shapes.
#ifndef KIRC_HW_CHECK_NPY_H_
#define KIRC_HW_CHECK_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/kernel.h"

namespace kir {

// The .npy bytes of buffer `a` (contents `bytes`) gathered over its shape and
// strides into a C-ordered array: dtype <f4, <f2 or <i4; bf16 (which NumPy
// lacks) is written as its raw bits, dtype <u2.
std::string NpyOfBuffer(const Arg& a, const std::vector<uint8_t>& bytes);

// Advances `idx` to the next multi-index of `shape` in C order (the last
// dimension fastest); false after the last one. For walking a buffer's
// logical shape (here and in CompareOutputs).
bool NextIndex(std::vector<int64_t>& idx, const std::vector<int64_t>& shape);

}  // namespace kir

#endif  // KIRC_HW_CHECK_NPY_H_
