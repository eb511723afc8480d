// kirc's testdata kernels compiled through the C++ API (CompileText +
// CodeObjectFor) on every target, run in the emulator from the code object
// and from the assembly text, and compared with plain CPU computations.
#include <cmath>
#include <string>
#include <vector>

#include "compiler/ir/float_bits.h"
#include "gtest/gtest.h"
#include "hw/emu/emulator.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using testing::CompileKir;
using testing::FromBytes;
using testing::kLlvmBin;
using testing::ReadTestFile;
using testing::ToBytes;

class KernelsTest : public ::testing::TestWithParam<std::string> {
 protected:
  // Runs `kernel` both ways (code object, assembly text) and returns the
  // arguments after the code-object run; the assembly run must agree.
  std::vector<std::vector<uint8_t>> Run(const std::string& kernel, const std::vector<std::vector<uint8_t>>& in,
                                        std::array<int64_t, 3> grid, EmuStats* stats_out = nullptr) {
    const std::string mcpu = GetParam();
    absl::StatusOr<CompileResult> r = CompileKir(ReadTestFile("testdata/kernels/" + kernel + ".kir"), mcpu);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return {};
    absl::StatusOr<std::string> hsaco = CodeObjectFor(*r, kLlvmBin);
    EXPECT_TRUE(hsaco.ok()) << hsaco.status();
    if (!hsaco.ok()) return {};
    LaunchArgs a;
    a.args = in;
    a.grid = grid;
    absl::StatusOr<EmuStats> s = RunCodeObject(kLlvmBin, *hsaco, "", mcpu, a);
    EXPECT_TRUE(s.ok()) << s.status();
    if (!s.ok()) return {};
    LaunchArgs b;
    b.args = in;
    b.grid = grid;
    absl::StatusOr<EmuStats> s2 = RunAssembly(r->assembly, mcpu, b);
    EXPECT_TRUE(s2.ok()) << s2.status();
    if (s2.ok()) {
      EXPECT_EQ(a.args, b.args) << "code object and assembly runs disagree";
      EXPECT_EQ(s->total, s2->total);
    }
    if (stats_out) *stats_out = *s;
    return a.args;
  }
};

TEST_P(KernelsTest, CopyF32) {
  std::vector<float> src = testing::RandomF32(8192, 1);
  std::vector<float> dst(8192, -1.0f);
  EmuStats st;
  auto out = Run("copy_f32", {ToBytes(src), ToBytes(dst)}, {8, 1, 1}, &st);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(FromBytes<float>(out[1]), src);
  EXPECT_EQ(FromBytes<float>(out[0]), src);  // untouched
  EXPECT_EQ(st.waves, 32);
  EXPECT_GT(st.by_class["vmem"], 0);
}

TEST_P(KernelsTest, AddF16WithScale) {
  const int n = 64 * 512;
  std::vector<uint16_t> x = testing::RandomF16(n, 2), y = testing::RandomF16(n, 3), out(n, 0xffff);
  const float scale = 1.3f;
  auto res = Run("add_f16", {ToBytes(x), ToBytes(y), ToBytes(out), testing::Scalar(scale)}, {2, 16, 1});
  ASSERT_EQ(res.size(), 4u);
  std::vector<uint16_t> got = FromBytes<uint16_t>(res[2]);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    // f16(x + y) (exact in f32 for these inputs, then one rounding), to f32, times scale in f32, to f16.
    uint16_t s = F32ToF16Bits(F16BitsToF32(x[i]) + F16BitsToF32(y[i]));
    uint16_t want = F32ToF16Bits(F16BitsToF32(s) * scale);
    if (got[i] != want && ++bad < 5) ADD_FAILURE() << "element " << i << ": got 0x" << std::hex << got[i] << " want 0x" << want;
  }
  EXPECT_EQ(bad, 0);
}

using testing::Bf16ToDoubles;
using testing::CheckGemm;
using testing::F16ToDoubles;

TEST_P(KernelsTest, Mma16x16x16F16) {
  std::vector<uint16_t> a = testing::RandomF16(256, 4), b = testing::RandomF16(256, 5);
  std::vector<float> c(256, NAN);
  auto res = Run("mma_16x16x16_f16", {ToBytes(a), ToBytes(b), ToBytes(c)}, {1, 1, 1});
  ASSERT_EQ(res.size(), 3u);
  CheckGemm(F16ToDoubles(a), F16ToDoubles(b), FromBytes<float>(res[2]), 16, 16, 16);
}

TEST_P(KernelsTest, Mma16x16x16Bf16) {
  if (GetParam() == "gfx908") {
    absl::StatusOr<CompileResult> r =
        CompileKir(ReadTestFile("testdata/kernels/mma_16x16x16_bf16.kir"), "gfx908");
    EXPECT_FALSE(r.ok());  // no 4-element bf16 MFMA on gfx908
    return;
  }
  std::vector<uint16_t> a = testing::RandomBf16(256, 6), b = testing::RandomBf16(256, 7);
  std::vector<float> c(256, NAN);
  auto res = Run("mma_16x16x16_bf16", {ToBytes(a), ToBytes(b), ToBytes(c)}, {1, 1, 1});
  ASSERT_EQ(res.size(), 3u);
  CheckGemm(Bf16ToDoubles(a), Bf16ToDoubles(b), FromBytes<float>(res[2]), 16, 16, 16);
}

TEST_P(KernelsTest, Mma32x32x8F16) {
  std::vector<uint16_t> a = testing::RandomF16(256, 8), b = testing::RandomF16(256, 9);
  std::vector<float> c(1024, NAN);
  EmuStats st;
  auto res = Run("mma_32x32x8_f16", {ToBytes(a), ToBytes(b), ToBytes(c)}, {1, 1, 1}, &st);
  ASSERT_EQ(res.size(), 3u);
  CheckGemm(F16ToDoubles(a), F16ToDoubles(b), FromBytes<float>(res[2]), 32, 32, 8);
  EXPECT_EQ(st.mfma_macs, 32 * 32 * 8);
  EXPECT_EQ(st.by_class["mfma"], 1);
}

INSTANTIATE_TEST_SUITE_P(AllTargets, KernelsTest, ::testing::Values("gfx908", "gfx90a", "gfx942"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kir::emu
