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

}  // namespace kir::testing

#endif  // KIRC_TESTDATA_TEST_KERNELS_H_
