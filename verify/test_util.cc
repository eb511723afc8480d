#include "verify/test_util.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace kir::vfy::testing {

std::vector<std::string> TestdataKernels() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator("testdata/kernels"))
    if (e.path().extension() == ".kir") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<Compiled> CompileKir(const std::string& text, const std::string& mcpu) {
  absl::StatusOr<Kernel> k = ParseKernel(text, "test.kir");
  if (!k.ok()) return k.status();
  CompileOptions o;
  o.mcpu = mcpu;
  absl::StatusOr<CompileResult> r = Compile(*k, o);
  if (!r.ok()) return r.status();
  return Compiled{std::move(*k), std::move(*r)};
}

bool LacksInstruction(const absl::Status& st) {
  return absl::StrContains(st.message(), "does not exist on") ||
         absl::StrContains(st.message(), "is not available on") ||  // an fp8 type (validate.cc)
         absl::StrContains(st.message(), "(gfx950 only)");  // a gemm's lds_dma on (gemm_config.cc)
}

VerifyResult Verify(const Compiled& c, const LoweredKernel* code, const VerifyOptions& opts) {
  absl::StatusOr<VerifyResult> v =
      VerifyAddresses(c.kernel, *c.result.target, code ? *code : c.result.lowered, opts);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : VerifyResult{};
}

int CountStatus(const VerifyResult& r, AccessVerdict::Status s) {
  return static_cast<int>(std::count_if(r.accesses.begin(), r.accesses.end(),
                                         [s](const AccessVerdict& a) { return a.status == s; }));
}

}  // namespace kir::vfy::testing
