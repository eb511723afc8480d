// MFMA lane layouts element by element, independently of the emulator's
// tables: the expected positions are the formulas of amdgcn-isa-notes.md 1.2,
// written out here. One-hot A (A[i][k] = 1) and B (B[k][j] = 1) must give
// exactly one non-zero D element, D[i][j] = 1, at lane/register of the table.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hw/emu/emulator.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using testing::FromBytes;
using testing::HandKernel;
using testing::OneMfmaKernel;
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

// The MFMAs of issue 19 (gfx950's f16/bf16 shapes, fp8 on gfx942/gfx950,
// gfx950's f8f6f4 with fp8 operands). Their layouts, written out here from
// the sources (not from kirc's MfmaDesc table):
//  - AMD's matrix instruction calculator (HEAD 2ef9189), CDNA3
//    v_mfma_f32_16x16x32_fp8_fp8: "A[i][k].block GPR: (floor(k / 4) % 2).
//    [8*(k % 4)+7 : 8*(k % 4)]; Lane: 16 * floor(k / 8) + i"; B the same
//    with j; "C or D[i][j] GPR: (i % 4); Lane: 16 * floor(i / 4) + j".
//    v_mfma_f32_32x32x16_fp8_fp8: A lane "32 * floor(k / 8) + i", the same
//    GPR/byte; D "GPR: 4 * floor(i / 8) + (i % 4), Lane: (32 * floor(i / 4))
//    % 64 + j".
//  - The calculator has no CDNA4. gfx950's v_mfma_f32_16x16x32_f16/_bf16 and
//    32x32x16: Composable Kernel ck_tile warp_gemm_attribute_mfma_impl.hpp,
//    WarpGemmAttributeMfmaImplF16F16F32M16N16K32: kAMLane 16, kABKLane 4,
//    kABKPerLane 8 (lane 16 * (k / 8) + i holds k % 8 as 16-bit element
//    k % 8 of its 4 VGPRs: VGPR (k % 8) / 2, half k % 2), kCMLane 4,
//    kCM1PerLane 4 (D as 16x16 above); ...M32N32K16: kAMLane 32, kABKLane 2,
//    kABKPerLane 8.
//  - v_mfma_f32_16x16x128_f8f6f4 / 32x32x64 with fp8: ck_tile
//    WarpGemmAttributeMfmaImpl_f32_16x16x128_f8f6f4 (kAMLane 16, kABKLane 4,
//    kABKPerLane 32: lane 16 * (k / 32) + i, byte k % 32 of its 8 VGPRs) and
//    the CDNA4 ISA guide (section 6.7: "K=0..31 for M=0 in lane0, M=1 in
//    lane1 etc up to M=15 in lane 15; then K=32..63 in lanes 16..31");
//    32x32x64: lane 32 * (k / 32) + i.
struct HandLayout {
  int m;
  int per_lane;  // consecutive k per lane
  int bytes;     // element size
  int a_lane(int row, int kk) const { return m * (kk / per_lane) + row; }
  int reg(int kk) const { return (kk % per_lane) * bytes / 4; }
  int byte(int kk) const { return (kk % per_lane) * bytes % 4; }
  int d_lane(int i, int j) const { return m == 16 ? 16 * (i / 4) + j : (32 * (i / 4)) % 64 + j; }
  int d_reg(int i) const { return m == 16 ? i % 4 : 4 * (i / 8) + (i % 4); }
};

// One-hot A[i][k] and B[k][j] (the code `one` of 1.0 in the element type,
// `bytes` bytes) through `instr` (mnemonic and modifiers): D must be 1.0 at
// (d_lane, d_reg) and 0 elsewhere.
void CheckOneHotHand(const std::string& mcpu, const std::string& instr, const HandLayout& L, int ab_regs, int d_regs,
                     uint16_t one, const std::vector<std::array<int, 3>>& cases) {
  absl::StatusOr<std::shared_ptr<const LoadedKernel>> kernel = LoadAssembly(OneMfmaKernel(mcpu, instr, ab_regs, d_regs, /*c_from_memory=*/false), mcpu);
  ASSERT_TRUE(kernel.ok()) << instr << ": " << kernel.status();
  for (const auto& [i, j, kk] : cases) {
    std::vector<uint8_t> a(64 * 4 * ab_regs, 0), b(64 * 4 * ab_regs, 0);
    auto put = [&](std::vector<uint8_t>& v, int lane) {
      const size_t at = static_cast<size_t>(lane) * 4 * ab_regs + 4 * L.reg(kk) + L.byte(kk);
      v[at] = static_cast<uint8_t>(one);
      if (L.bytes == 2) v[at + 1] = static_cast<uint8_t>(one >> 8);
    };
    put(a, L.a_lane(i, kk));
    put(b, L.a_lane(j, kk));
    LaunchArgs args;
    args.args = {a, b, ToBytes(std::vector<float>(64 * d_regs, -1.0f))};
    absl::StatusOr<EmuStats> st = RunKernel(**kernel, args);
    ASSERT_TRUE(st.ok()) << instr << ": " << st.status();
    std::vector<float> out = FromBytes<float>(args.args[2]);
    int nonzero = 0;
    for (int lane = 0; lane < 64; ++lane)
      for (int r = 0; r < d_regs; ++r) {
        const float v = out[lane * d_regs + r];
        nonzero += v != 0.0f;
        if (lane == L.d_lane(i, j) && r == L.d_reg(i))
          EXPECT_EQ(v, 1.0f) << instr << " on " << mcpu << " i=" << i << " j=" << j << " k=" << kk;
      }
    EXPECT_EQ(nonzero, 1) << instr << " on " << mcpu << " i=" << i << " j=" << j << " k=" << kk;
  }
}

// Every (i, j) with a few k, and every k with a few (i, j).
std::vector<std::array<int, 3>> Sweep(int m, int k) {
  std::vector<std::array<int, 3>> v;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) v.push_back({i, j, (i * 7 + j * 3) % k});
  for (int kk = 0; kk < k; ++kk) v.push_back({(kk * 5) % m, (kk * 11 + 3) % m, kk});
  return v;
}

TEST(MfmaLayoutTest, Gfx950F16Bf16Shapes) {
  // 1.0: f16 0x3c00, bf16 0x3f80.
  CheckOneHotHand("gfx950", "v_mfma_f32_16x16x32_f16", {16, 8, 2}, 4, 4, 0x3c00, Sweep(16, 32));
  CheckOneHotHand("gfx950", "v_mfma_f32_16x16x32_bf16", {16, 8, 2}, 4, 4, 0x3f80, Sweep(16, 32));
  CheckOneHotHand("gfx950", "v_mfma_f32_32x32x16_f16", {32, 8, 2}, 4, 16, 0x3c00, Sweep(32, 16));
  CheckOneHotHand("gfx950", "v_mfma_f32_32x32x16_bf16", {32, 8, 2}, 4, 16, 0x3f80, Sweep(32, 16));
}

TEST(MfmaLayoutTest, Fp8ShapesOnGfx942AndGfx950) {
  // 1.0: f8e4m3fnuz 0x40 (bias 8), f8e5m2fnuz 0x40 (bias 16) on gfx942;
  // f8e4m3fn 0x38 (bias 7), f8e5m2 0x3c (bias 15) on gfx950. Mixed pairs
  // need one code per operand: both here use the same format, the mixed
  // mnemonics one sample each below.
  CheckOneHotHand("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", {16, 8, 1}, 2, 4, 0x40, Sweep(16, 32));
  CheckOneHotHand("gfx942", "v_mfma_f32_16x16x32_bf8_bf8", {16, 8, 1}, 2, 4, 0x40, Sweep(16, 32));
  CheckOneHotHand("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", {32, 8, 1}, 2, 16, 0x40, Sweep(32, 16));
  CheckOneHotHand("gfx950", "v_mfma_f32_16x16x32_fp8_fp8", {16, 8, 1}, 2, 4, 0x38, Sweep(16, 32));
  CheckOneHotHand("gfx950", "v_mfma_f32_32x32x16_bf8_bf8", {32, 8, 1}, 2, 16, 0x3c, Sweep(32, 16));
  CheckOneHotHand("gfx950", "v_mfma_f32_16x16x128_f8f6f4", {16, 32, 1}, 8, 4, 0x38, Sweep(16, 128));
  CheckOneHotHand("gfx950", "v_mfma_f32_16x16x128_f8f6f4 cbsz:1 blgp:1", {16, 32, 1}, 8, 4, 0x3c, Sweep(16, 128));
  CheckOneHotHand("gfx950", "v_mfma_f32_32x32x64_f8f6f4", {32, 32, 1}, 8, 16, 0x38, Sweep(32, 64));
  CheckOneHotHand("gfx950", "v_mfma_f32_32x32x64_f8f6f4 cbsz:1 blgp:1", {32, 32, 1}, 8, 16, 0x3c, Sweep(32, 64));
}

// The formats of a mixed pair: A fp8 1.0 and B bf8 1.0 give 1.0; the codes
// swapped (A 0x3c read as E4M3 = 1.5, B 0x38 read as E5M2 = 0.5) give 0.75.
TEST(MfmaLayoutTest, MixedFormatsReadEachOperandInItsOwn) {
  absl::StatusOr<std::shared_ptr<const LoadedKernel>> kernel = LoadAssembly(
      OneMfmaKernel("gfx950", "v_mfma_f32_16x16x128_f8f6f4 blgp:1", 8, 4, /*c_from_memory=*/false), "gfx950");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  for (const auto& [a_code, b_code, want] : {std::tuple<int, int, float>{0x38, 0x3c, 1.0f}, {0x3c, 0x38, 0.75f}}) {
    std::vector<uint8_t> a(64 * 32, 0), b(64 * 32, 0);
    a[0] = static_cast<uint8_t>(a_code);  // A[0][0]: lane 0, byte 0
    b[0] = static_cast<uint8_t>(b_code);  // B[0][0]
    LaunchArgs args;
    args.args = {a, b, ToBytes(std::vector<float>(64 * 4, -1.0f))};
    absl::StatusOr<EmuStats> st = RunKernel(**kernel, args);
    ASSERT_TRUE(st.ok()) << st.status();
    EXPECT_EQ(FromBytes<float>(args.args[2])[0], want) << std::hex << a_code << " " << b_code;
  }
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
