// MFMA lane layouts element by element, independently of the emulator's
// tables: the expected positions are the formulas of amdgcn-isa-notes.md 1.2,
// written out here. One-hot A (A[i][k] = 1) and B (B[k][j] = 1) must give
// exactly one non-zero D element, D[i][j] = 1, at lane/register of the table.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hw/emu/emulator.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using testing::FromBytes;
using testing::HandKernel;
using testing::ToBytes;

// Lane l of the fragment buffers holds its two A (or B) VGPRs at byte 8*l;
// lane l's D registers are stored at 4*regs*l.
std::string ProbeKernel(const std::string& mcpu, const std::string& mnemonic, int d_regs, int nops) {
  HandKernel k;
  k.mcpu = mcpu;
  k.args = {"A:global_buffer", "B:global_buffer", "D:global_buffer"};
  k.vgprs = 8 + d_regs;
  k.agprs = mcpu == "gfx908" ? d_regs : 0;
  std::string d = mcpu == "gfx908" ? absl::StrCat("a[0:", d_regs - 1, "]") : absl::StrCat("v[8:", 7 + d_regs, "]");
  std::string c = mcpu == "gfx908" ? d : "0";
  std::string body = absl::StrCat(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dwordx2 s[6:7], s[0:1], 0x8
  s_load_dwordx2 s[8:9], s[0:1], 0x10
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 3, v0
  v_mul_u32_u24 v6, )", 4 * d_regs, R"(, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v1, s[4:5]
  global_load_dwordx2 v[4:5], v1, s[6:7]
)");
  if (mcpu == "gfx908")
    for (int r = 0; r < d_regs; ++r) absl::StrAppend(&body, "  v_accvgpr_write_b32 a", r, ", 0\n");
  absl::StrAppend(&body, "  s_waitcnt vmcnt(0)\n  s_nop 2\n  ", mnemonic, " ", d, ", v[2:3], v[4:5], ", c, "\n");
  for (int n = nops; n > 0; n -= 8) absl::StrAppend(&body, "  s_nop ", std::min(n, 8) - 1, "\n");
  if (mcpu == "gfx908") {
    for (int r = 0; r < d_regs; ++r) absl::StrAppend(&body, "  v_accvgpr_read_b32 v", 8 + r, ", a", r, "\n");
    absl::StrAppend(&body, "  s_nop 1\n");
  }
  for (int r = 0; r < d_regs; r += 4)
    absl::StrAppend(&body, "  global_store_dwordx4 v6, v[", 8 + r, ":", 11 + r, "], s[8:9] offset:", 4 * r, "\n");
  absl::StrAppend(&body, "  s_waitcnt vmcnt(0)\n  s_endpgm\n");
  k.body = body;
  return k.Text();
}

struct Layout {
  int m, n, k;
  // Notes 1.2: A[i][k] -> (lane, VGPR, half); B[k][j] the same with j; D[i][j] -> (lane, VGPR).
  int a_lane(int i, int kk) const { return m * (kk / 4) + i; }
  int ab_reg(int kk) const { return (kk / 2) % 2; }
  int ab_half(int kk) const { return kk % 2; }
  int d_lane(int i, int j) const { return m == 16 ? 16 * (i / 4) + j : 32 * ((i / 4) % 2) + j; }
  int d_reg(int i) const { return m == 16 ? i % 4 : 4 * (i / 8) + (i % 4); }
};

void CheckOneHot(const std::string& mcpu, const std::string& mnemonic, const Layout& L, int d_regs, int nops,
                 const std::vector<std::array<int, 3>>& cases) {
  absl::StatusOr<std::shared_ptr<const LoadedKernel>> k = LoadAssembly(ProbeKernel(mcpu, mnemonic, d_regs, nops), mcpu);
  ASSERT_TRUE(k.ok()) << k.status();
  for (const auto& [i, j, kk] : cases) {
    std::vector<uint16_t> a(64 * 4, 0), b(64 * 4, 0);  // per lane: 2 VGPRs = 4 halves
    a[4 * L.a_lane(i, kk) + 2 * L.ab_reg(kk) + L.ab_half(kk)] = 0x3c00;  // 1.0
    b[4 * L.a_lane(j, kk) + 2 * L.ab_reg(kk) + L.ab_half(kk)] = 0x3c00;
    LaunchArgs args;
    args.args = {ToBytes(a), ToBytes(b), ToBytes(std::vector<float>(64 * d_regs, -1.0f))};
    absl::StatusOr<EmuStats> s = RunKernel(**k, args);
    ASSERT_TRUE(s.ok()) << s.status();
    std::vector<float> d = FromBytes<float>(args.args[2]);
    int nonzero = 0;
    for (int lane = 0; lane < 64; ++lane)
      for (int r = 0; r < d_regs; ++r) {
        float v = d[lane * d_regs + r];
        bool want = lane == L.d_lane(i, j) && r == L.d_reg(i);
        if (v != 0.0f) ++nonzero;
        if (want) {
          EXPECT_EQ(v, 1.0f) << mnemonic << " i=" << i << " j=" << j << " k=" << kk;
        }
      }
    EXPECT_EQ(nonzero, 1) << mnemonic << " i=" << i << " j=" << j << " k=" << kk;
  }
}

TEST(MfmaLayoutTest, EveryElementOf16x16x16F16) {
  std::vector<std::array<int, 3>> all;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      for (int k = 0; k < 16; ++k) all.push_back({i, j, k});
  CheckOneHot("gfx942", "v_mfma_f32_16x16x16_f16", {16, 16, 16}, 4, 8, all);
}

TEST(MfmaLayoutTest, Sample16x16x16F16OnOtherTargets) {
  std::vector<std::array<int, 3>> some = {{0, 0, 0}, {15, 0, 3}, {3, 12, 7}, {9, 5, 10}, {14, 15, 15}, {4, 4, 13}};
  CheckOneHot("gfx90a", "v_mfma_f32_16x16x16f16", {16, 16, 16}, 4, 12, some);
  CheckOneHot("gfx908", "v_mfma_f32_16x16x16f16", {16, 16, 16}, 4, 10, some);
}

TEST(MfmaLayoutTest, Sample32x32x8F16) {
  std::vector<std::array<int, 3>> some;
  for (int i : {0, 3, 4, 8, 13, 31})
    for (int j : {0, 17, 31})
      for (int k = 0; k < 8; ++k) some.push_back({i, j, k});
  CheckOneHot("gfx942", "v_mfma_f32_32x32x8_f16", {32, 32, 8}, 16, 12, some);
  CheckOneHot("gfx908", "v_mfma_f32_32x32x8f16", {32, 32, 8}, 16, 18, {{5, 9, 6}, {31, 30, 1}});
}

TEST(MfmaLayoutTest, MissingNopIsAHazard) {
  std::string text = ProbeKernel("gfx942", "v_mfma_f32_16x16x16_f16", 4, 4);
  LaunchArgs args;
  args.args = {ToBytes(std::vector<uint16_t>(256)), ToBytes(std::vector<uint16_t>(256)),
               ToBytes(std::vector<float>(256))};
  absl::StatusOr<EmuStats> s = RunAssembly(text, "gfx942", args);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.status().message()).find("7 wait states (gfx942)"), std::string::npos) << s.status();
}

}  // namespace
}  // namespace kir::emu
