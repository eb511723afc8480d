// Every kernel difftest found kirc getting wrong (testdata/difftest/*.kir,
// reduced) passes the whole oracle on gfx908, gfx90a, gfx942 and gfx950: compile,
// round trip, every address proved, the strict emulator equal to the
// reference bit for bit.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/object/toolchain.h"
#include "difftest/gen.h"
#include "difftest/oracle.h"
#include "gtest/gtest.h"

namespace kir::difftest {
namespace {

TEST(Regressions, EveryReducedKernelPassesTheOracle) {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok()) << bin.status();
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("testdata/difftest")) {
    if (e.path().extension() != ".kir") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    OracleOptions o;
    o.llvm_bin = *bin;
    o.accept_target_refusals = true;
    Outcome r = CheckKernel(ss.str(), e.path().filename().string(), {"gfx908", "gfx90a", "gfx942", "gfx950"}, {}, o);
    for (const Finding& f : r.findings)
      ADD_FAILURE() << e.path() << ": " << f.stage << " on " << f.target << ": " << f.message;
    EXPECT_EQ(r.accesses, r.proved) << e.path();
    EXPECT_TRUE(r.ran_ok) << e.path();
    ++n;
  }
  EXPECT_GE(n, 2);
}

}  // namespace
}  // namespace kir::difftest
