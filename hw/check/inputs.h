// Seeded random kernel inputs: deterministic on every platform (our own
// mapping from a 64-bit mixer, not std:: distributions).
#ifndef KIRC_HW_CHECK_INPUTS_H_
#define KIRC_HW_CHECK_INPUTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/kernel.h"

namespace kir {

// Buffer contents by argument name (Arg::SizeBytes() bytes, little-endian) and
// scalar argument bits by name.
struct KernelData {
  std::map<std::string, std::vector<uint8_t>> buffers;
  std::map<std::string, uint32_t> scalars;
};

// Inputs for `k` from `seed`: every buffer is filled (also write-only ones, so
// elements a kernel forgets to write show up as differences); float elements
// are uniform in [-1, 1) rounded to the element type (so no two neighbours are
// equal by construction and operand swaps show), i32 elements in [-1000, 1000];
// f32 scalars in [0.5, 2), i32 scalars in [1, 100].
KernelData MakeInputs(const Kernel& k, uint64_t seed);

}  // namespace kir

#endif  // KIRC_HW_CHECK_INPUTS_H_
