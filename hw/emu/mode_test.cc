// v_cmp_class_{f32,f16} (and v_cmpx_class), s_getreg/s_setreg of
// HW_REG_MODE and the MODE round and denormal fields in the emulator
// (fresh-user review 16 F9). Expected values are worked out by hand here
// from the definitions: the class bits of LLVM's SIInstrFlags::ClassFlags
// (0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
// 8 +normal, 9 +inf) and IEEE 754 directed rounding of the exact result
// (MODE round encodings 0 nearest even, 1 +inf, 2 -inf, 3 toward zero).
// Each body runs from the assembly text and as the code object llvm-mc 22
// and ld.lld build (so llvm-mc accepts it and the reader takes
// llvm-objdump's form).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using ::testing::HasSubstr;

// x in v1, y in v2; BODY writes v3 and v4 (testing::RunLaneBody).
absl::StatusOr<std::vector<uint32_t>> RunBody(const std::string& body, const std::vector<uint32_t>& in,
                                              bool object, const std::string& mcpu = "gfx942") {
  return testing::RunLaneBody(body, in, 2, object, mcpu);
}

// 64 lanes of (x, y) from `pairs`, repeated.
std::vector<uint32_t> Lanes(const std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
  std::vector<uint32_t> in(128);
  for (int l = 0; l < 64; ++l) {
    in[2 * l] = pairs[l % pairs.size()].first;
    in[2 * l + 1] = pairs[l % pairs.size()].second;
  }
  return in;
}

struct Classed {
  uint32_t bits;
  int cls;  // the class bit, by hand
};

// f32: one input per class, and more of the same classes.
const Classed kF32[] = {
    {0x7f800001u, 0},  // signalling NaN (quiet bit 22 clear)
    {0xff800001u, 0},  // negative signalling NaN
    {0x7fc00000u, 1},  // quiet NaN
    {0xffc00001u, 1},  // negative quiet NaN with a payload
    {0xff800000u, 2},  // -inf
    {0xbf800000u, 3},  // -1.0
    {0x80800000u, 3},  // -smallest normal
    {0x80000001u, 4},  // -smallest denormal
    {0x807fffffu, 4},  // -largest denormal
    {0x80000000u, 5},  // -0
    {0x00000000u, 6},  // +0
    {0x00000001u, 7},  // +smallest denormal
    {0x007fffffu, 7},  // +largest denormal
    {0x00800000u, 8},  // +smallest normal
    {0x3f800000u, 8},  // 1.0
    {0x7f7fffffu, 8},  // largest finite
    {0x7f800000u, 9},  // +inf
};
// f16 in the low half; the high half is garbage the instruction ignores.
const Classed kF16[] = {
    {0xdead7c01u, 0}, {0x0000fc01u, 0}, {0x12347e00u, 1}, {0xffffffffu, 1}, {0x0000fc00u, 2},
    {0xbeefbc00u, 3}, {0x00008400u, 3}, {0x00008001u, 4}, {0x000083ffu, 4}, {0x00008000u, 5},
    {0xffff0000u, 6}, {0x00000001u, 7}, {0x000003ffu, 7}, {0x00000400u, 8}, {0x00003c00u, 8},
    {0x00007bffu, 8}, {0x00007c00u, 9},
};

// v3 = OR over k of (class k of v1) << k, with a one-hot mask per k in v6
// (the e32 form, writing VCC). v4: bit 0 `e64 mask 3` (any NaN, an inline
// constant), bit 1 `-v1` against +inf (mask 0x200 in an SGPR), bit 2 `|v1|`
// against sNaN | -0 (0x21), bit 3 lanes v_cmpx_class leaves active for
// +-0 (0x60), EXEC restored after. (gfx942: 2 wait states between a VALU
// writing a lane mask and a VALU reading it, 5 between v_cmpx writing EXEC
// and the stores: the s_nops.)
std::string ClassBody(const std::string& sfx, const std::string& src = "v1") {
  std::string b = "v_mov_b32 v3, 0\nv_mov_b32 v4, 0\n";
  for (int k = 0; k < 10; ++k)
    absl::StrAppend(&b, "v_mov_b32 v6, ", 1 << k, "\nv_cmp_class_", sfx, " vcc, ", src, ", v6\ns_nop 1\n",
                    "v_cndmask_b32_e64 v5, 0, 1, vcc\nv_lshl_or_b32 v3, v5, ", k, ", v3\n");
  absl::StrAppend(&b, "v_cmp_class_", sfx, "_e64 s[12:13], ", src, ", 3\ns_nop 1\nv_cndmask_b32_e64 v5, 0, 1, s[12:13]\n",
                  "v_or_b32 v4, v4, v5\n", "s_movk_i32 s14, 0x200\n", "v_cmp_class_", sfx,
                  "_e64 s[12:13], -", src, ", s14\ns_nop 1\nv_cndmask_b32_e64 v5, 0, 2, s[12:13]\nv_or_b32 v4, v4, v5\n");
  // |v1| with mask 0x21 = 33 (an inline integer constant: at most 64).
  absl::StrAppend(&b, "v_cmp_class_", sfx, "_e64 s[12:13], |", src, "|, 33\ns_nop 1\nv_cndmask_b32_e64 v5, 0, 4, s[12:13]\n",
                  "v_or_b32 v4, v4, v5\n", "s_mov_b64 s[16:17], exec\nv_mov_b32 v6, 0x60\n", "v_cmpx_class_", sfx,
                  " vcc, ", src, ", v6\nv_or_b32 v4, 8, v4\ns_mov_b64 exec, s[16:17]\ns_nop 4\n");
  return b;
}

void CheckClass(const Classed* cases, size_t n, const std::string& sfx, bool object) {
  std::vector<uint32_t> in(128, 0);
  for (int l = 0; l < 64; ++l) in[2 * l] = cases[l % n].bits;
  absl::StatusOr<std::vector<uint32_t>> out = RunBody(ClassBody(sfx), in, object);
  ASSERT_TRUE(out.ok()) << out.status();
  for (int l = 0; l < 64; ++l) {
    const Classed& c = cases[l % n];
    const uint32_t extras = (c.cls <= 1 ? 1u : 0u) | (c.cls == 2 ? 2u : 0u) | (c.cls == 0 ? 4u : 0u) |
                            (c.cls == 5 || c.cls == 6 ? 8u : 0u);
    EXPECT_EQ((*out)[2 * l], 1u << c.cls) << sfx << " lane " << l << " bits " << absl::StrFormat("0x%08x", c.bits);
    EXPECT_EQ((*out)[2 * l + 1], extras) << sfx << " lane " << l << " bits "
                                         << absl::StrFormat("0x%08x", c.bits);
  }
}

// f64: one input per class (hi:lo), and patterns only the low dword or the
// f64 field layout tells apart (an f32 +inf's bits as f64 high dword are a
// normal; an f32 inf in the low dword alone is an f64 denormal).
struct Classed64 {
  uint64_t bits;
  int cls;
};
const Classed64 kF64[] = {
    {0x7ff0000000000001ull, 0},  // signalling NaN: only the low dword's mantissa
    {0x7ff0000100000000ull, 0},
    {0xfff7ffffffffffffull, 0},  // quiet bit 51 clear
    {0x7ff8000000000000ull, 1},
    {0xffffffffffffffffull, 1},
    {0xfff0000000000000ull, 2},  // -inf
    {0xbff0000000000000ull, 3},  // -1.0
    {0x8010000000000000ull, 3},  // -smallest normal
    {0x8000000000000001ull, 4},  // -smallest denormal
    {0x800fffffffffffffull, 4},
    {0x8000000000000000ull, 5},  // -0
    {0x0000000000000000ull, 6},  // +0
    {0x0000000000000001ull, 7},
    {0x000000007f800000ull, 7},  // f32 +inf's bits in the low dword: a denormal
    {0x0000000100000000ull, 7},
    {0x0010000000000000ull, 8},  // +smallest normal
    {0x3ff0000000000000ull, 8},  // 1.0
    {0x7f80000000000000ull, 8},  // f32 +inf's bits as the high dword: 2^1017
    {0x7fefffffffffffffull, 8},  // largest finite
    {0x7ff0000000000000ull, 9},  // +inf
};

// v3/v4 as ClassBody's for the f64 hi:lo = v2:v1 (copied to v[8:9], an
// even-aligned pair as gfx90a and later want).
TEST(CmpClass, EachClassBitOnOneHotInputsF64) {
  const size_t n = sizeof(kF64) / sizeof(kF64[0]);
  std::vector<uint32_t> in(128, 0);
  for (int l = 0; l < 64; ++l) {
    in[2 * l] = static_cast<uint32_t>(kF64[l % n].bits);
    in[2 * l + 1] = static_cast<uint32_t>(kF64[l % n].bits >> 32);
  }
  const std::string body = "v_mov_b32 v8, v1\nv_mov_b32 v9, v2\n" + ClassBody("f64", "v[8:9]");
  for (bool object : {false, true}) {
    absl::StatusOr<std::vector<uint32_t>> out = RunBody(body, in, object);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int l = 0; l < 64; ++l) {
      const Classed64& c = kF64[l % n];
      const uint32_t extras = (c.cls <= 1 ? 1u : 0u) | (c.cls == 2 ? 2u : 0u) | (c.cls == 0 ? 4u : 0u) |
                              (c.cls == 5 || c.cls == 6 ? 8u : 0u);
      EXPECT_EQ((*out)[2 * l], 1u << c.cls) << "f64 lane " << l << " bits " << absl::StrFormat("0x%016x", c.bits);
      EXPECT_EQ((*out)[2 * l + 1], extras) << "f64 lane " << l << " bits " << absl::StrFormat("0x%016x", c.bits);
    }
  }
}

// f64 sources other than a VGPR pair: an inline constant is an f64 (-0.5: a
// -normal, bit 3; 0: +0, bit 6), an SGPR pair (s[12:13] = 0x7ff00000:00000000,
// +inf, bit 9); a literal and a denormal under a flushing FP64 denormal mode
// are refused by name.
TEST(CmpClass, F64ConstantAndScalarSourcesAndRefusals) {
  const std::string body =
      "v_mov_b32 v6, 0x3ff\nv_cmp_class_f64 vcc, -0.5, v6\ns_nop 1\nv_cndmask_b32_e64 v3, 0, 1, vcc\n"
      "v_cmp_class_f64_e64 s[14:15], 0, 0x40\ns_nop 1\nv_cndmask_b32_e64 v5, 0, 2, s[14:15]\n"
      "v_or_b32 v3, v3, v5\n"
      "s_mov_b32 s12, 0\ns_mov_b32 s13, 0x7ff00000\nv_mov_b32 v6, 0x200\nv_cmp_class_f64 vcc, s[12:13], v6\n"
      "s_nop 1\nv_cndmask_b32_e64 v4, 0, 1, vcc\n"
      "v_mov_b32 v6, 8\nv_cmp_class_f64 vcc, -0.5, v6\ns_nop 1\nv_cndmask_b32_e64 v5, 0, 2, vcc\n"
      "v_or_b32 v4, v4, v5\n";
  for (bool object : {false, true}) {
    absl::StatusOr<std::vector<uint32_t>> out = RunBody(body, Lanes({{0, 0}}), object);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int l = 0; l < 64; ++l) {
      EXPECT_EQ((*out)[2 * l], 3u) << l;      // mask 0x3ff matches anything; +0 against 0x40
      EXPECT_EQ((*out)[2 * l + 1], 3u) << l;  // +inf against 0x200; -0.5 against 0x8 (-normal)
    }
  }
  absl::StatusOr<std::vector<uint32_t>> out =
      RunBody("v_mov_b32 v6, 0x3ff\nv_cmp_class_f64 vcc, 0x40100001, v6\nv_mov_b32 v3, 0\nv_mov_b32 v4, 0\n",
              Lanes({{0, 0}}), false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("as v_cmp_class_f64's f64 source"));
  const std::string flush =
      "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 6, 2), 0\nv_mov_b32 v8, v1\nv_mov_b32 v9, v2\n"
      "v_cmp_class_f64_e64 s[12:13], v[8:9], 0x90\ns_nop 1\nv_cndmask_b32_e64 v3, 0, 1, s[12:13]\n"
      "v_mov_b32 v4, 0\n";
  out = RunBody(flush, Lanes({{0, 0x3ff00000u}}), false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], 0u);  // 1.0: +normal, not in 0x90
  out = RunBody(flush, Lanes({{0, 0x3ff00000u}, {1, 0}}), false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("classifies the f64 denormal 0x0000000000000001"));
}

TEST(CmpClass, EachClassBitOnOneHotInputsF32) {
  for (bool object : {false, true}) CheckClass(kF32, sizeof(kF32) / sizeof(kF32[0]), "f32", object);
}

TEST(CmpClass, EachClassBitOnOneHotInputsF16) {
  for (bool object : {false, true}) CheckClass(kF16, sizeof(kF16) / sizeof(kF16[0]), "f16", object);
}

// A flushing FP32 denormal mode: the class of a denormal is not documented
// under it, so the emulator refuses it (a normal source still runs).
TEST(CmpClass, DenormalUnderFlushingModeIsRefused) {
  const std::string body =
      "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\nv_cmp_class_f32_e64 s[12:13], v1, 0x90\n"
      "s_nop 1\nv_cndmask_b32_e64 v3, 0, 1, s[12:13]\nv_mov_b32 v4, 0\n";
  absl::StatusOr<std::vector<uint32_t>> out = RunBody(body, Lanes({{0x3f800000u, 0}}), false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], 0u);  // 1.0 is a +normal (bit 8), not in 0x90 (bits 4, 7)
  out = RunBody(body, Lanes({{0x3f800000u, 0}, {0x00000001u, 0}}), false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("classifies the f32 denormal 0x1"));
}

// s_getreg reads the descriptor's FLOAT_MODE (HandKernel: float_denorm_mode_32
// 3, float_denorm_mode_16_64 3 by llvm-mc's default, round modes 0: 0xf0),
// then what s_setreg_imm32_b32 and s_setreg_b32 wrote.
TEST(Mode, GetregReadsBackWhatSetregWrote) {
  const std::string body =
      "s_getreg_b32 s12, hwreg(HW_REG_MODE, 0, 8)\n"
      "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xb\n"  // SP round 3, DP round 2
      "s_nop 1\n"                                            // 2 wait states: setreg -> setreg/getreg
      "s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s7\n"         // s7 = 0x12345678: low 2 bits 0
      "s_nop 1\n"
      "s_getreg_b32 s13, hwreg(HW_REG_MODE, 0, 8)\n"
      "s_getreg_b32 s14, hwreg(HW_REG_MODE, 2, 2)\n"
      "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), 0xf0\n"
      "v_mov_b32 v3, s12\nv_mov_b32 v4, s13\nv_lshl_or_b32 v4, s14, 16, v4\n";
  for (bool object : {false, true}) {
    absl::StatusOr<std::vector<uint32_t>> out = RunBody(body, Lanes({{0, 0}}), object);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int l = 0; l < 64; ++l) {
      EXPECT_EQ((*out)[2 * l], 0xf0u);
      EXPECT_EQ((*out)[2 * l + 1], 0xcbu | (2u << 16));  // 0xf0 -> 0xfb -> bits 5:4 cleared: 0xcb
    }
  }
}

struct Rounded {
  uint32_t x, y;
  uint32_t want[4];  // by MODE round encoding: nearest even, +inf, -inf, toward zero
};

// f32 add (v3 = x + y) and mul (v4 = x * y) in each single-precision round
// mode, worked out from the exact results: u = 2^-23, 1 ulp at 1.0.
TEST(Mode, F32AddAndMulRoundByTheSinglePrecisionField) {
  // 1 + 1.5 * 2^-24 is 0.75 ulp above 1; (1 + u)^2 = 1 + 2u + u^2; max + max
  // and max * max overflow (toward zero / -inf: the largest finite value).
  const Rounded add[] = {
      {0x3f800000u, 0x33c00000u, {0x3f800001u, 0x3f800001u, 0x3f800000u, 0x3f800000u}},
      {0xbf800000u, 0xb3c00000u, {0xbf800001u, 0xbf800000u, 0xbf800001u, 0xbf800000u}},
      {0x7f7fffffu, 0x7f7fffffu, {0x7f800000u, 0x7f800000u, 0x7f7fffffu, 0x7f7fffffu}},
  };
  const Rounded mul[] = {
      {0x3f800001u, 0x3f800001u, {0x3f800002u, 0x3f800003u, 0x3f800002u, 0x3f800002u}},
      {0xbf800001u, 0x3f800001u, {0xbf800002u, 0xbf800002u, 0xbf800003u, 0xbf800002u}},
      {0x7f7fffffu, 0x7f7fffffu, {0x7f800000u, 0x7f800000u, 0x7f7fffffu, 0x7f7fffffu}},
  };
  for (int mode = 0; mode < 4; ++mode) {
    for (int which = 0; which < 2; ++which) {
      const Rounded* cases = which == 0 ? add : mul;
      std::vector<std::pair<uint32_t, uint32_t>> pairs;
      for (int i = 0; i < 3; ++i) pairs.push_back({cases[i].x, cases[i].y});
      const std::string body = absl::StrCat("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), ", mode,
                                            "\nv_add_f32 v3, v1, v2\nv_mul_f32 v4, v1, v2\n");
      for (bool object : {false, true}) {
        absl::StatusOr<std::vector<uint32_t>> out = RunBody(body, Lanes(pairs), object);
        ASSERT_TRUE(out.ok()) << out.status();
        for (int l = 0; l < 64; ++l)
          EXPECT_EQ((*out)[2 * l + which], cases[l % 3].want[mode])
              << (which ? "mul" : "add") << " mode " << mode << " lane " << l;
      }
    }
  }
}

// v_fma_f32 v3 = x * y + x and v_fmac_f32 (v4 = y, then v4 = x * x + v4),
// one rounding each. (1 + u)(1 + u) + (1 + u) = 2 + 3u + u^2: 1.5 ulp (ulp
// 2u at 2) and a little above 2: nearest and +inf 0x40000002, -inf and zero
// 0x40000001. Negated x: -(1 + u)(1 + u)... for x = -(1 + u), y = 1 + u:
// -(1 + 2u + u^2) - (1 + u) = -(2 + 3u + u^2): nearest and -inf 0xc0000002,
// +inf and zero 0xc0000001. fmac with y = 2^-24 (x = 1 + u): 1 + 2u + u^2 +
// 2^-24 = 1 + 2.5u + u^2: nearest and +inf 1 + 3u, -inf and zero 1 + 2u.
TEST(Mode, F32FmaAndFmacRoundOnceByTheSinglePrecisionField) {
  const uint32_t want_fma[2][4] = {{0x40000002u, 0x40000002u, 0x40000001u, 0x40000001u},
                                   {0xc0000002u, 0xc0000001u, 0xc0000002u, 0xc0000001u}};
  const uint32_t want_fmac[4] = {0x3f800003u, 0x3f800003u, 0x3f800002u, 0x3f800002u};
  for (int mode = 0; mode < 4; ++mode) {
    const std::string body = absl::StrCat("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), ", mode,
                                          "\nv_fma_f32 v3, v1, v2, v1\nv_mov_b32 v4, 0x33800000\n"
                                          "v_fmac_f32 v4, v1, v1\n");
    for (bool object : {false, true}) {
      absl::StatusOr<std::vector<uint32_t>> out =
          RunBody(body, Lanes({{0x3f800001u, 0x3f800001u}, {0xbf800001u, 0x3f800001u}}), object);
      ASSERT_TRUE(out.ok()) << out.status();
      for (int l = 0; l < 64; ++l) {
        EXPECT_EQ((*out)[2 * l], want_fma[l % 2][mode]) << "fma mode " << mode << " lane " << l;
        if (l % 2 == 0) {
          EXPECT_EQ((*out)[2 * l + 1], want_fmac[mode]) << "fmac mode " << mode << " lane " << l;
        }
      }
    }
  }
}

// v_cvt_f16_f32 by the double/half field (bits 3:2; the single-precision
// field set to another mode must not matter): f16 has 10 mantissa bits.
TEST(Mode, CvtF16F32RoundsByTheDoubleHalfField) {
  struct Case {
    uint32_t x;
    uint16_t want[4];
  };
  const Case cases[] = {
      {0x3f801000u, {0x3c00, 0x3c01, 0x3c00, 0x3c00}},  // 1 + 2^-11: a tie between 1 and 1 + 2^-10
      {0xbf801000u, {0xbc00, 0xbc00, 0xbc01, 0xbc00}},
      {0x3f801800u, {0x3c01, 0x3c01, 0x3c00, 0x3c00}},  // 1 + 1.5 * 2^-11: 0.75 ulp
      {0x477fef00u, {0x7bff, 0x7c00, 0x7bff, 0x7bff}},  // 65519: below 65520, above 65504
      {0x49742400u, {0x7c00, 0x7c00, 0x7bff, 0x7bff}},  // 1e6
      {0xc9742400u, {0xfc00, 0xfbff, 0xfc00, 0xfbff}},  // -1e6
      {0x30800000u, {0x0000, 0x0001, 0x0000, 0x0000}},  // 2^-30: below half the smallest denormal 2^-24
      {0xb0800000u, {0x8000, 0x8000, 0x8001, 0x8000}},
      {0x33c00000u, {0x0002, 0x0002, 0x0001, 0x0001}},  // 1.5 * 2^-24: a tie between denormals 1 and 2
      {0x7f800000u, {0x7c00, 0x7c00, 0x7c00, 0x7c00}},  // +inf stays inf
  };
  const int n = sizeof(cases) / sizeof(cases[0]);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (const Case& c : cases) pairs.push_back({c.x, 0});
  for (int mode = 0; mode < 4; ++mode) {
    const std::string body = absl::StrCat("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), ", (mode << 2) | (3 - mode),
                                          "\nv_cvt_f16_f32 v3, v1\nv_mov_b32 v4, 0\n");
    for (bool object : {false, true}) {
      absl::StatusOr<std::vector<uint32_t>> out = RunBody(body, Lanes(pairs), object);
      ASSERT_TRUE(out.ok()) << out.status();
      for (int l = 0; l < 64; ++l)
        EXPECT_EQ((*out)[2 * l], cases[l % n].want[mode])
            << "mode " << mode << " x " << absl::StrFormat("0x%08x", cases[l % n].x);
    }
  }
}

// v_cvt_f16_f32 by the double/half field at the f16 subnormal/normal border
// (smallest normal 2^-14 = 0x0400, largest denormal 1023 * 2^-24 = 0x03ff,
// f16 ulp 2^-24 on both sides) and at the largest finite value 65504 =
// 0x7bff (f32 ulp there 2^-8); v_cvt_pkrtz_f16_f32 (toward zero whatever
// the mode) packs x (low half) and y = -x (high half). Worked out by hand.
TEST(Mode, CvtF16F32DirectedAtTheSubnormalBorderAndMax) {
  struct Case {
    uint32_t x;
    uint16_t want[4];  // nearest even, +inf, -inf, toward zero
  };
  const Case cases[] = {
      {0x38800000u, {0x0400, 0x0400, 0x0400, 0x0400}},  // 2^-14 exact
      {0x387fc000u, {0x03ff, 0x03ff, 0x03ff, 0x03ff}},  // 1023 * 2^-24 exact
      {0x387fe000u, {0x0400, 0x0400, 0x03ff, 0x03ff}},  // 2^-14 - 2^-25: tie 0x03ff/0x0400, even 0x0400
      {0x387fff80u, {0x0400, 0x0400, 0x03ff, 0x03ff}},  // 2^-14 - 2^-30: nearer 0x0400
      {0x38801000u, {0x0400, 0x0401, 0x0400, 0x0400}},  // 2^-14 + 2^-25: tie 0x0400/0x0401
      {0xb87fe000u, {0x8400, 0x83ff, 0x8400, 0x83ff}},  // -(2^-14 - 2^-25)
      {0x33000000u, {0x0000, 0x0001, 0x0000, 0x0000}},  // 2^-25: tie 0/smallest denormal
      {0xb3000000u, {0x8000, 0x8000, 0x8001, 0x8000}},  // -2^-25
      {0x477fe000u, {0x7bff, 0x7bff, 0x7bff, 0x7bff}},  // 65504 exact
      {0x477fe001u, {0x7bff, 0x7c00, 0x7bff, 0x7bff}},  // 65504 + 2^-8
      {0xc77fe001u, {0xfbff, 0xfbff, 0xfc00, 0xfbff}},  // -(65504 + 2^-8)
      {0x477ff000u, {0x7c00, 0x7c00, 0x7bff, 0x7bff}},  // 65520: the overflow tie
      {0x7f7fffffu, {0x7c00, 0x7c00, 0x7bff, 0x7bff}},  // f32 max
      {0xff800000u, {0xfc00, 0xfc00, 0xfc00, 0xfc00}},  // -inf stays -inf
  };
  const int n = sizeof(cases) / sizeof(cases[0]);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (const Case& c : cases) pairs.push_back({c.x, c.x ^ 0x80000000u});
  for (int mode = 0; mode < 4; ++mode) {
    const std::string body = absl::StrCat("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), ", (mode << 2) | (3 - mode),
                                          "\nv_cvt_f16_f32 v3, v1\nv_cvt_pkrtz_f16_f32 v4, v1, v2\n");
    for (bool object : {false, true}) {
      absl::StatusOr<std::vector<uint32_t>> out = RunBody(body, Lanes(pairs), object);
      ASSERT_TRUE(out.ok()) << out.status();
      for (int l = 0; l < 64; ++l) {
        const Case& c = cases[l % n];
        EXPECT_EQ((*out)[2 * l], c.want[mode]) << "mode " << mode << " x " << absl::StrFormat("0x%08x", c.x);
        const uint32_t rtz = c.want[3];
        EXPECT_EQ((*out)[2 * l + 1], rtz | (rtz ^ 0x8000u) << 16)
            << "pkrtz mode " << mode << " x " << absl::StrFormat("0x%08x", c.x);
      }
    }
  }
}

// Denormal fields set at run time act as the descriptor's: FP32 mode 0
// flushes a denormal source and result to +-0; FP16 mode 0 refuses f16
// arithmetic as the descriptor's does.
TEST(Mode, DenormalFieldsSetAtRunTime) {
  // x = 2^-149 (the smallest denormal), y = 0: x + y is x, or 0 flushed; x *
  // 2^-1 ... use y = 0.5: 2^-150 rounds to 2^-149 or 0 (a tie: even is 0).
  const std::string keep = "v_add_f32 v3, v1, v2\nv_mul_f32 v4, v1, 0.5\n";
  const std::string flush = "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\n" + keep;
  const std::vector<uint32_t> in = Lanes({{0x00000001u, 0}, {0x80400000u, 0x80000000u}});
  absl::StatusOr<std::vector<uint32_t>> out = RunBody(keep, in, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], 0x00000001u);
  EXPECT_EQ((*out)[2], 0x80400000u);  // -2^-127 + -0
  EXPECT_EQ((*out)[3], 0x80200000u);  // -2^-128, a denormal kept
  out = RunBody(flush, in, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], 0x00000000u);
  EXPECT_EQ((*out)[2], 0x80000000u);
  EXPECT_EQ((*out)[3], 0x80000000u);
  out = RunBody("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 6, 2), 0\nv_add_f16 v3, v1, v2\nv_mov_b32 v4, 0\n",
                Lanes({{0x3c00u, 0x3c00u}}), false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("MODE's FP16/FP64 denormal mode (bits 7:6, set by s_setreg or the kernel descriptor) is 0"));
}

// Under a non-default round mode, a float instruction whose rounding there is
// not modelled is refused by name (with the mode); one that does not round
// runs; back at nearest even everything runs.
TEST(Mode, UnmodelledRoundingIsRefusedByName) {
  absl::StatusOr<std::vector<uint32_t>> out =
      RunBody("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 3\nv_rcp_f32 v3, v1\nv_mov_b32 v4, 0\n",
              Lanes({{0x40000000u, 0}}), false);
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  EXPECT_THAT(msg, HasSubstr("`v_rcp_f32 v3, v1`"));
  EXPECT_THAT(msg, HasSubstr("round toward zero (single precision, bits 1:0)"));
  EXPECT_THAT(msg, HasSubstr("does not know which field v_rcp_f32 obeys"));
  out = RunBody("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 1\nv_cvt_pk_fp8_f32 v3, v1, v2\nv_mov_b32 v4, 0\n",
                Lanes({{0x3f800000u, 0x3f800000u}}), false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("round toward +inf (double/half precision"));
  // v_max_f32 and v_cvt_f32_f16 do not round: they run under any mode.
  out = RunBody("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xf\nv_max_f32 v3, v1, v2\nv_cvt_f32_f16 v4, v2\n",
                Lanes({{0x3f800000u, 0x3c00u}}), false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], 0x3f800000u);  // max(1.0, f32 bits 0x3c00 = a denormal)
  EXPECT_EQ((*out)[1], 0x3f800000u);  // f16 1.0
  out = RunBody("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 3\ns_nop 1\ns_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 0\n"
                "v_rcp_f32 v3, v1\nv_mov_b32 v4, 0\n",
                Lanes({{0x40000000u, 0}}), false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], 0x3f000000u);  // 1/2
}

// The s_setreg -> s_getreg / s_setreg hazard (2 wait states for the same
// hardware register, compiler/isa/hazard_table.h; LLVM checkGetRegHazards /
// checkSetRegHazards): strict mode names both instructions and the rule;
// `s_nop 0` (1 wait state) or one other instruction is not enough, `s_nop 1`
// is. A VALU right after an s_setreg of MODE needs none.
TEST(Mode, SetregThenGetregOrSetregNeedsTwoWaitStates) {
  const std::string tail = "v_mov_b32 v3, s12\nv_mov_b32 v4, 0\n";
  struct Case {
    std::string between, second;
    int waits;  // wait states issued between; -1: runs
  };
  const Case cases[] = {
      {"", "s_getreg_b32 s12, hwreg(HW_REG_MODE, 0, 8)", 0},
      {"s_nop 0\n", "s_getreg_b32 s12, hwreg(HW_REG_MODE, 0, 8)", 1},
      {"s_mov_b32 s13, 0\n", "s_getreg_b32 s12, hwreg(HW_REG_MODE, 2, 2)", 1},
      {"", "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 0", 0},
      {"s_nop 1\n", "s_getreg_b32 s12, hwreg(HW_REG_MODE, 0, 8)", -1},
      {"s_nop 0\ns_nop 0\n", "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 0", -1},
  };
  for (const Case& c : cases) {
    const std::string body = absl::StrCat("s_mov_b32 s12, 0\ns_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xc\n",
                                          c.between, c.second, "\n", tail);
    for (bool object : {false, true}) {
      absl::StatusOr<std::vector<uint32_t>> out = RunBody(body, Lanes({{0, 0}}), object);
      if (c.waits < 0) {
        ASSERT_TRUE(out.ok()) << out.status();
        continue;
      }
      ASSERT_FALSE(out.ok()) << body;
      const std::string msg(out.status().message());
      // llvm-objdump may print the immediates in its own way: the object
      // runs' messages are checked up to the hwreg.
      EXPECT_THAT(msg, HasSubstr(object ? c.second.substr(0, c.second.find(')') + 1)
                                        : absl::StrCat("`", c.second, "`")));
      EXPECT_THAT(msg, HasSubstr(object ? "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4)"
                                        : "`s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xc`"))
          << msg;
      EXPECT_THAT(msg, HasSubstr(absl::StrCat(" issues ", c.waits, c.waits == 1 ? " wait state" : " wait states")));
      EXPECT_THAT(msg, HasSubstr("which needs 2"));
      EXPECT_THAT(msg, HasSubstr("writes HW_REG_MODE then"));
    }
  }
  // MODE round toward zero (DP field 3) right before v_cvt_f16_f32 of 1 + 1.5 * 2^-11: 0x3c00.
  absl::StatusOr<std::vector<uint32_t>> out =
      RunBody("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xc\nv_cvt_f16_f32 v3, v1\nv_mov_b32 v4, 0\n",
              Lanes({{0x3f801800u, 0}}), false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], 0x3c00u);
}

// Hardware registers other than MODE and MODE bits beyond the float fields
// are refused by name.
TEST(Mode, OtherRegistersAreRefusedByName) {
  absl::StatusOr<std::vector<uint32_t>> out =
      RunBody("s_getreg_b32 s12, hwreg(HW_REG_TRAPSTS)\nv_mov_b32 v3, s12\nv_mov_b32 v4, 0\n", Lanes({{0, 0}}),
              false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("hardware register HW_REG_TRAPSTS is not modelled"));
  out = RunBody("s_setreg_b32 hwreg(HW_REG_MODE, 8, 2), s7\nv_mov_b32 v3, 0\nv_mov_b32 v4, 0\n", Lanes({{0, 0}}),
                false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("the field reaches bits 8 and up of HW_REG_MODE"));
  // The fields by name (SIDefines.h ModeRegisterMasks): bits 9:8 are
  // DX10_CLAMP and IEEE_MODE; a whole-register write names every field.
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("HW_REG_MODE (DX10_CLAMP, IEEE_MODE), which kirc's emulator does not model"));
  out = RunBody("s_setreg_imm32_b32 hwreg(HW_REG_MODE), 0xf0\nv_mov_b32 v3, 0\nv_mov_b32 v4, 0\n", Lanes({{0, 0}}),
                false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("(DX10_CLAMP, IEEE_MODE, LOD_CLAMP, DEBUG, EXCP_EN_INVALID, EXCP_EN_INPUT_DENORMAL, "
                        "EXCP_EN_FLOAT_DIV0, EXCP_EN_OVERFLOW, EXCP_EN_UNDERFLOW, EXCP_EN_INEXACT, "
                        "EXCP_EN_INT_DIV0, bits 26:19 (unnamed), GPR_IDX_EN, VSKIP, CSP)"));
  out = RunBody("s_getreg_b32 s12, hwreg(HW_REG_MODE, 28, 1)\nv_mov_b32 v3, s12\nv_mov_b32 v4, 0\n", Lanes({{0, 0}}),
                false);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("HW_REG_MODE (VSKIP)"));
}

}  // namespace
}  // namespace kir::emu
