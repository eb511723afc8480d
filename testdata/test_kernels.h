// Test helpers for the testdata kernels (//testdata:test_kernels, testonly):
// tests run with the workspace root as the working directory and
// //testdata:kernels in their data.
#ifndef KIRC_TESTDATA_TEST_KERNELS_H_
#define KIRC_TESTDATA_TEST_KERNELS_H_

#include <string>

#include "compiler/ir/kernel.h"

namespace kir::testing {

// The bytes of `path` (relative to the workspace root, e.g.
// "testdata/kernels/copy_f32.kir"); "" if it cannot be read.
std::string ReadTestFile(const std::string& path);

// testdata/kernels/NAME.kir parsed, with "NAME.kir" as its file name in
// errors. A parse error fails the calling test (ADD_FAILURE with the message)
// and returns an empty Kernel.
Kernel TestdataKernel(const std::string& name);

// A straight-line lds_dma on gfx950 (no loop; not a testdata/kernels file,
// which every-kernel sweeps would pick up): each of two waves DMAs 64 rows
// of A (reversed within the wave) into its half of L, then, after a
// barrier, reads L back reversed into B (compiler/api/compile_test,
// verify/lds_dma_test).
inline constexpr char kLdsDmaStraight[] = R"(kernel dma
target gfx950
workgroup 64 2 1
grid 2 1 1
arg A : f32[256, 4] strides [4, 1] readonly
arg B : f32[256, 4] strides [4, 1] writeonly
lds L : f32[128, 4]
  lds_dma L[tid.y * 64, 0], A[wg.x * 128 + tid.y * 64 + 63 - tid.x, 0] : f32x4
  barrier
  %v = load L[127 - tid.y * 64 - tid.x, 0] : f32x4
  store B[wg.x * 128 + tid.y * 64 + tid.x, 0], %v
end
)";

}  // namespace kir::testing

#endif  // KIRC_TESTDATA_TEST_KERNELS_H_
