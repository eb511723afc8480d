// Test fixture for tests that build code objects and run them through
// RunAndCheck (//hw/run:code_object_test_base, testonly): the LLVM tools, a
// temporary directory, and Build(kernel, mcpu, file).
#ifndef KIRC_HW_RUN_CODE_OBJECT_TEST_BASE_H_
#define KIRC_HW_RUN_CODE_OBJECT_TEST_BASE_H_

#include <memory>
#include <optional>
#include <string>

#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/kernel.h"
#include "gtest/gtest.h"

namespace kir::testing {

class CodeObjectTestBase : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
    ASSERT_TRUE(bin.ok()) << bin.status();
    bin_ = *bin;
    absl::StatusOr<ScopedTempDir> d = ScopedTempDir::Create("code_object_test.");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<ScopedTempDir>(*std::move(d));
  }
  // Compiles `k` for `mcpu` into DIR/FILE and returns the path (a failure
  // fails the test and returns the path of an empty file).
  std::string Build(const Kernel& k, const std::string& mcpu, const std::string& file) {
    CompileOptions co;
    co.mcpu = mcpu;
    absl::StatusOr<CompileResult> cr = Compile(k, co);
    EXPECT_TRUE(cr.ok()) << cr.status();
    absl::StatusOr<std::string> obj = cr.ok() ? CodeObjectFor(*cr, bin_) : cr.status();
    EXPECT_TRUE(obj.ok()) << obj.status();
    std::string path = dir_->File(file);
    EXPECT_TRUE(WriteFileBytes(path, obj.ok() ? *obj : "").ok());
    return path;
  }
  std::string bin_;
  std::unique_ptr<ScopedTempDir> dir_;
};

}  // namespace kir::testing

#endif  // KIRC_HW_RUN_CODE_OBJECT_TEST_BASE_H_
