// Issue 7: a code object holding several kernels, and code objects for target
// IDs with feature suffixes, run in the strict emulator. Each kernel is picked
// by name from the one multi-kernel code object (RunOptions::code_object_path)
// and checked against the KIR reference interpreter.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"
#include "hw/emu/emu_device.h"
#include "hw/emu/emulator.h"
#include "hw/run/run.h"

namespace kir {
namespace {


Kernel Parse(const std::string& name) { return ::kir::testing::TestdataKernel(name); }

std::string LlvmBin() {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  EXPECT_TRUE(bin.ok()) << bin.status();
  return bin.ok() ? *bin : "";
}

// Writes `bytes` under $TEST_TMPDIR and returns the path.
std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  absl::Status st = WriteFileBytes(path, bytes);
  EXPECT_TRUE(st.ok()) << st;
  return path;
}

// Compiles `ks` into one code object for target ID `id` and runs each kernel
// of it in the emulator against the reference (seed `seed`).
void RunEveryKernelOfTheModule(const std::vector<ModuleKernel>& ks, const std::string& id,
                               uint64_t seed) {
  const std::string bin = LlvmBin();
  CompileOptions opts;
  opts.mcpu = id;
  absl::StatusOr<ModuleResult> m = CompileModule(ks, opts);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::string> hsaco = CodeObjectFor(*m, bin);
  ASSERT_TRUE(hsaco.ok()) << id << ": " << hsaco.status();
  std::string file = id;
  for (char& c : file)
    if (c == ':' || c == '+' || c == '-') c = '_';
  const std::string path = WriteTemp("module_" + ks[0].kernel.name + "_" + file + ".hsaco", *hsaco);
  EmuDevice emu(bin);
  for (const ModuleKernel& mk : ks) {
    RunOptions ro;
    ro.mcpu = id;
    ro.seed = seed;
    ro.llvm_bin = bin;
    ro.code_object_path = path;
    absl::StatusOr<RunReport> r = RunAndCheck(mk.kernel, emu, ro);
    ASSERT_TRUE(r.ok()) << mk.kernel.name << " on " << id << ": " << r.status();
    EXPECT_TRUE(r->ok) << r->text;
    EXPECT_GT(r->run.instructions, 0) << mk.kernel.name;
    EXPECT_NE(r->text.find("kernel " + mk.kernel.name + " on"), std::string::npos) << r->text;
  }
}

class ModuleEmuTest : public ::testing::TestWithParam<const char*> {};

// copy_f32 + add_f16 + mma_16x16x16_f16 in one code object; every kernel of it
// runs in the emulator and matches the reference.
TEST_P(ModuleEmuTest, EveryKernelOfAMultiKernelCodeObjectMatchesTheReference) {
  std::vector<ModuleKernel> ks;
  for (const char* name : {"copy_f32", "add_f16", "mma_16x16x16_f16"})
    ks.push_back({Parse(name), std::string(name) + ".kir"});
  RunEveryKernelOfTheModule(ks, GetParam(), 3);
}

INSTANTIATE_TEST_SUITE_P(TargetIds, ModuleEmuTest,
                         ::testing::Values("gfx908", "gfx908:sramecc-", "gfx90a:xnack-",
                                           "gfx90a:xnack+", "gfx942", "gfx942:sramecc+:xnack-"));

// The emulator loads a code object by target ID: the processor alone, or the
// ID the code object was built for, but not a different feature setting.
TEST(ModuleEmu, EmulatorChecksTheTargetIdOfTheCodeObject) {
  const std::string bin = LlvmBin();
  CompileOptions opts;
  opts.mcpu = "gfx90a:xnack-";
  absl::StatusOr<ModuleResult> m = CompileModule({{Parse("copy_f32"), "copy_f32.kir"}}, opts);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::string> hsaco = CodeObjectFor(*m, bin);
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  for (const char* ok : {"gfx90a", "gfx90a:xnack-"}) {
    auto k = emu::LoadCodeObject(bin, *hsaco, "copy_f32", ok);
    EXPECT_TRUE(k.ok()) << ok << ": " << k.status();
  }
  auto wrong = emu::LoadCodeObject(bin, *hsaco, "copy_f32", "gfx90a:xnack+");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "the code object: it is for gfx90a:xnack-, not gfx90a:xnack+ (use --mcpu=gfx90a:xnack- or a code "
            "object built for gfx90a:xnack+)");
  auto other = emu::LoadCodeObject(bin, *hsaco, "copy_f32", "gfx942");
  EXPECT_FALSE(other.ok());
  auto missing = emu::LoadCodeObject(bin, *hsaco, "add_f16", "gfx90a");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("add_f16"), std::string::npos) << missing.status();
}

// Issue 13, defect 6: local labels were ".L<kernel>_<N>" and the end label
// ".Lfunc_end_<kernel>", so kernel "func_end_r" (loop label 0) and kernel
// "r_0" both defined ".Lfunc_end_r_0" and the module did not assemble. Labels
// are unique by construction now; every kernel of such a module (each with a
// loop, so each has a branch to a local label) assembles, links and runs.
TEST(ModuleEmu, LabelsOfKernelsInOneModuleNeverClash) {
  auto loop_kernel = [](const std::string& name) {
    std::string text = "kernel " + name + R"(
target gfx942
workgroup 64 1 1
grid 1 1 1
arg X : f32[256] strides [1] readonly
arg Y : f32[256] strides [1] writeonly
  %z = zero f32
  %s = for %k = 0 to 4 iter(%a = %z) {
    %v = load X[%k * 64 + tid.x] : f32
    %a2 = add %a, %v
    store Y[%k * 64 + tid.x], %a2
    yield %a2
  }
end
)";
    absl::StatusOr<Kernel> k = ParseKernel(text, name + ".kir");
    EXPECT_TRUE(k.ok()) << k.status();
    return *k;
  };
  std::vector<ModuleKernel> ks;
  for (const char* name : {"func_end_r", "r_0", "r", "r_0_bb0", "func_end_r_0"})
    ks.push_back({loop_kernel(name), std::string(name) + ".kir"});
  for (const char* id : {"gfx908", "gfx90a", "gfx942"}) RunEveryKernelOfTheModule(ks, id, 5);
}

}  // namespace
}  // namespace kir
