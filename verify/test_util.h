// Helpers for the verifier's tests: testdata kernels, compiling KIR text and
// verifying the result.
#ifndef KIRC_VERIFY_TEST_UTIL_H_
#define KIRC_VERIFY_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/api/compile.h"
#include "compiler/ir/kernel.h"
#include "testdata/test_kernels.h"
#include "verify/verify.h"

namespace kir::vfy::testing {

using ::kir::testing::ReadTestFile;  // testdata/test_kernels.h
// Names (without .kir) of testdata/kernels/*.kir, sorted.
std::vector<std::string> TestdataKernels();

struct Compiled {
  Kernel kernel;  // as parsed
  CompileResult result;
};
// Parses and compiles `text` for `mcpu`.
absl::StatusOr<Compiled> CompileKir(const std::string& text, const std::string& mcpu);
// True if `st` says the kernel uses an instruction or element type `mcpu`
// lacks (a bf16 MFMA on gfx908, fp8 on gfx908/90a).
bool LacksInstruction(const absl::Status& st);

// Verifies `c` (its final code, or `code` instead when given).
VerifyResult Verify(const Compiled& c, const LoweredKernel* code = nullptr, const VerifyOptions& opts = {});

int CountStatus(const VerifyResult& r, AccessVerdict::Status s);

}  // namespace kir::vfy::testing

#endif  // KIRC_VERIFY_TEST_UTIL_H_
