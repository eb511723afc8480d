// Every testdata kernel on every target that has its instructions: the code
// object, run in the strict emulator on seeded asymmetric inputs, equals the
// KIR reference interpreter within the stated tolerance.
#include <fstream>
#include <sstream>

#include "compiler/api/compile.h"
#include "compiler/emit/toolchain.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "hw/emu/emu_device.h"
#include "hw/run/run.h"

namespace kir {
namespace {

struct Case {
  std::string kernel, target;
};

class RunTest : public ::testing::TestWithParam<Case> {};

TEST_P(RunTest, EmulatorMatchesReference) {
  const Case& c = GetParam();
  std::string path = c.kernel.find('/') == std::string::npos
                         ? "testdata/kernels/" + c.kernel + ".kir"
                         : c.kernel;
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  absl::StatusOr<Kernel> k = ParseKernel(ss.str(), c.kernel + ".kir");
  ASSERT_TRUE(k.ok()) << k.status();
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok()) << bin.status();
  EmuDevice emu(*bin);
  for (uint64_t seed : {1u, 2u}) {
    RunOptions o;
    o.mcpu = c.target;
    o.seed = seed;
    o.llvm_bin = *bin;
    absl::StatusOr<RunReport> r = RunAndCheck(*k, emu, o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->ok) << r->text;
    EXPECT_GT(r->run.instructions, 0);
    EXPECT_EQ(r->run.waves, k->WorkgroupThreads() / 64 * k->grid[0] * k->grid[1] * k->grid[2]);
    for (const BufferDiff& d : r->diffs) EXPECT_GT(d.max_abs_ref, 0) << d.name << " is all zero";
  }
}

std::vector<Case> Cases() {
  std::vector<Case> v;
  for (const char* kname : {"copy_f32", "add_f16", "mma_16x16x16_f16", "mma_32x32x8_f16",
                            "mma_loop_32x32x64_f16"})
    for (const char* t : {"gfx908", "gfx90a", "gfx942"}) v.push_back({kname, t});
  // Loop lowering: nested loops, guarded loads and mod with loop variables,
  // swapping loop-carried values, non-zero start and step.
  for (const char* kname : {"hw/run/testdata/nested_loops.kir", "hw/run/testdata/loop_swap.kir"})
    for (const char* t : {"gfx908", "gfx90a", "gfx942"}) v.push_back({kname, t});
  v.push_back({"mma_16x16x16_bf16", "gfx90a"});
  v.push_back({"mma_16x16x16_bf16", "gfx942"});
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, RunTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string k = i.param.kernel;
                           k = k.substr(k.rfind('/') + 1);
                           k = k.substr(0, k.find('.'));
                           return k + "_" + i.param.target;
                         });

// A wrong result must fail: swap A and B in the MFMA kernel (C = B * A^T is
// C^T, different for asymmetric inputs) and expect a FAIL report.
TEST(RunTest, OperandSwapIsCaught) {
  std::ifstream f("testdata/kernels/mma_16x16x16_f16.kir");
  std::stringstream ss;
  ss << f.rdbuf();
  absl::StatusOr<Kernel> k = ParseKernel(ss.str(), "mma.kir");
  ASSERT_TRUE(k.ok());
  Kernel swapped = *k;
  for (Op& op : swapped.body)
    if (op.kind == OpKind::kMfma) std::swap(op.operands[0], op.operands[1]);
  // Run the swapped code but compare with the original kernel's reference.
  class Swapped : public Device {
   public:
    Swapped(Device& d, const Kernel& k) : d_(d), k_(k) {}
    std::string Name() const override { return "swapped"; }
    absl::StatusOr<DeviceRun> Run(const Kernel&, const TargetInfo& t, absl::string_view,
                                  KernelData& data) override {
      absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
      CompileOptions co;
      co.mcpu = t.name;
      absl::StatusOr<CompileResult> cr = Compile(k_, co);
      if (!cr.ok()) return cr.status();
      absl::StatusOr<std::string> obj = CodeObjectFor(*cr, *bin);
      if (!obj.ok()) return obj.status();
      return d_.Run(k_, t, *obj, data);
    }
    Device& d_;
    const Kernel& k_;
  };
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  EmuDevice emu(*bin);
  Swapped dev(emu, swapped);
  RunOptions o;
  o.mcpu = "gfx942";
  o.llvm_bin = *bin;
  absl::StatusOr<RunReport> r = RunAndCheck(*k, dev, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok) << r->text;
  EXPECT_NE(r->text.find("FAIL"), std::string::npos);
}

}  // namespace
}  // namespace kir
