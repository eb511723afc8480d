// clang-22's clamp and bf16 instructions (fresh-user review 8 F6):
// v_min3/v_max3/v_med3 _f32, _i32, _u32, _f16 on every target and gfx950's
// v_cvt_pk_bf16_f32 (compiler/isa/semantics.h Med3, IeeeMinMaxBits,
// Med3Bits, CvtPkBf16F32). Hand-written kernels whose results are worked out
// by hand from the ISA guide's pseudo-code (the IEEE-mode NaN rules, -0
// below +0, med3's float equality) and from the bf16 format (the top 16 bits
// of the f32, rounded to nearest even), run from the assembly text and as the
// code object llvm-mc 22 / ld.lld build and llvm-objdump prints.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hw/emu/asm_reader.h"
#include "hw/emu/emulator.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using ::testing::HasSubstr;
using testing::FromBytes;
using testing::HandKernel;
using testing::ToBytes;

// Four words per lane: in v1..v4, BODY writes v5..v8 (testing::RunLaneBody).
absl::StatusOr<std::vector<uint32_t>> RunBody(const std::string& body, const std::vector<uint32_t>& in,
                                              bool object, const std::string& mcpu) {
  return testing::RunLaneBody(body, in, 4, object, mcpu);
}

// One row: three sources and the min3, max3 and med3 worked out by hand.
struct Three {
  uint32_t x, y, z;
  uint32_t min3, max3, med3;
  const char* why;
};

// f32 bits: 1.0 0x3f800000, 2.0 0x40000000, 3.0 0x40400000, 5.0 0x40a00000,
// 7.0 0x40e00000, 448.0 0x43e00000, -448.0 0xc3e00000, 500.0 0x43fa0000.
constexpr uint32_t kQNaN = 0x7fc00000u, kQNaN2 = 0x7fc00002u, kSNaN = 0x7f800001u, kNegSNaN = 0xff800005u;
constexpr uint32_t kInf = 0x7f800000u, kNegInf = 0xff800000u, kPos0 = 0, kNeg0 = 0x80000000u;
const Three kF32[] = {
    {0x3f800000u, 0x40000000u, 0x40400000u, 0x3f800000u, 0x40400000u, 0x40000000u, "1, 2, 3"},
    {0x40400000u, 0x3f800000u, 0x40000000u, 0x3f800000u, 0x40400000u, 0x40000000u, "3, 1, 2"},
    {0x40000000u, 0x40400000u, 0x3f800000u, 0x3f800000u, 0x40400000u, 0x40000000u, "2, 3, 1"},
    // F6's clamp: med3(x, -448, 448) saturates; a quiet NaN in any source
    // makes med3 min3, and min(qNaN, v) = v: med3(NaN, -448, 448) = -448.
    {0x43fa0000u, 0xc3e00000u, 0x43e00000u, 0xc3e00000u, 0x43fa0000u, 0x43e00000u, "500 clamped to 448"},
    {kQNaN, 0xc3e00000u, 0x43e00000u, 0xc3e00000u, 0x43e00000u, 0xc3e00000u, "qNaN, -448, 448: min3 = -448"},
    // min(min(5, 1), qNaN) = min(1, qNaN) = 1 (a quiet NaN in src1 gives src0).
    {0x40a00000u, 0x3f800000u, kQNaN, 0x3f800000u, 0x40a00000u, 0x3f800000u, "5, 1, qNaN"},
    // A signalling NaN in src0 gives itself quieted (0x7fc00001); the next
    // step sees a quiet NaN in src0 and gives src1 = 2.0.
    {kSNaN, 0x3f800000u, 0x40000000u, 0x40000000u, 0x40000000u, 0x40000000u, "sNaN, 1, 2"},
    // A signalling NaN in the last step's src1: the result is it quieted.
    {0x3f800000u, 0x40000000u, kNegSNaN, 0xffc00005u, 0xffc00005u, 0xffc00005u, "1, 2, -sNaN"},
    // Two quiet NaNs: min(q1, q2) = q1 (src0, as q2 is in src1), then min(q1, 1) = 1.
    {kQNaN, kQNaN2, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, "qNaN, qNaN, 1"},
    // -0 orders below +0 in min and max; med3 compares max3 with `==`,
    // where -0 == +0: med3(-0, +0, -0): max3 = +0 == src0 -> max(+0, -0) = +0.
    {kNeg0, kPos0, kPos0, kNeg0, kPos0, kPos0, "-0, +0, +0"},
    {kPos0, kNeg0, kNeg0, kNeg0, kPos0, kNeg0, "+0, -0, -0"},
    {kNeg0, kPos0, kNeg0, kNeg0, kPos0, kPos0, "-0, +0, -0 (float equality)"},
    {kNegInf, kInf, 0x40e00000u, kNegInf, kInf, 0x40e00000u, "-inf, inf, 7"},
    {kInf, kInf, kNegInf, kNegInf, kInf, kInf, "inf, inf, -inf"},
    // Denormals (kept: the descriptor's FP32 denormal mode 3): -d < 0 < d.
    {0x00000001u, 0x80000001u, kPos0, 0x80000001u, 0x00000001u, kPos0, "d, -d, 0"},
};

TEST(ClampValuTest, F32Min3Max3Med3HandValues) {
  const int n = sizeof(kF32) / sizeof(kF32[0]);
  std::vector<uint32_t> in(256);
  for (int l = 0; l < 64; ++l) {
    in[4 * l] = kF32[l % n].x;
    in[4 * l + 1] = kF32[l % n].y;
    in[4 * l + 2] = kF32[l % n].z;
  }
  for (const char* mcpu : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    for (bool object : {false, true}) {
      absl::StatusOr<std::vector<uint32_t>> out = RunBody(
          "  v_min3_f32 v5, v1, v2, v3\n  v_max3_f32 v6, v1, v2, v3\n  v_med3_f32 v7, v1, v2, v3\n"
          "  v_mov_b32 v8, 0\n",
          in, object, mcpu);
      ASSERT_TRUE(out.ok()) << mcpu << ": " << out.status();
      for (int l = 0; l < 64; ++l) {
        const Three& c = kF32[l % n];
        EXPECT_EQ((*out)[4 * l], c.min3) << mcpu << " min3 " << c.why;
        EXPECT_EQ((*out)[4 * l + 1], c.max3) << mcpu << " max3 " << c.why;
        EXPECT_EQ((*out)[4 * l + 2], c.med3) << mcpu << " med3 " << c.why;
      }
    }
  }
}

// clang-22's form: constants in the sources (an SGPR and an inline
// constant), source modifiers before and clamp after.
TEST(ClampValuTest, F32Med3ConstantsAndModifiers) {
  std::vector<uint32_t> in(256);
  for (int l = 0; l < 64; ++l) in[4 * l] = 0x3f000000u + static_cast<uint32_t>(l) * 0x00400000u;  // 0.5, 0.75, ...
  in[0] = 0xc0400000u;  // lane 0: -3.0
  absl::StatusOr<std::vector<uint32_t>> out = RunBody(
      "  s_mov_b32 s0, 0xc3e00000\n"
      "  v_med3_f32 v5, v1, s0, 2.0\n"          // clamp to [-448, 2]
      "  v_med3_f32 v6, -v1, 0, 1.0 clamp\n"    // median of -x, 0, 1, then [0, 1]
      "  v_max3_f32 v7, |v1|, 0.5, -1.0\n"
      "  v_min3_f32 v8, v1, 1.0, 4.0 mul:2\n",  // min, then * 2
      in, false, "gfx942");
  ASSERT_TRUE(out.ok()) << out.status();
  // lane 0: x = -3: med3(-3, -448, 2) = -3; med3(3, 0, 1) = 1; max3(3, .5, -1) = 3; min3(-3, 1, 4) * 2 = -6.
  EXPECT_EQ((*out)[0], 0xc0400000u);
  EXPECT_EQ((*out)[1], 0x3f800000u);
  EXPECT_EQ((*out)[2], 0x40400000u);
  EXPECT_EQ((*out)[3], 0xc0c00000u);
  // lane 1: x = 0.75: 0.75; med3(-0.75, 0, 1) = 0; max3(0.75, 0.5, -1) = 0.75; min(0.75, 1, 4) * 2 = 1.5.
  EXPECT_EQ((*out)[4], 0x3f400000u);
  EXPECT_EQ((*out)[5], 0x00000000u);
  EXPECT_EQ((*out)[6], 0x3f400000u);
  EXPECT_EQ((*out)[7], 0x3fc00000u);
  // lane 63: x = 0.5 + 63 * 2^-1 * ... = 0x3f000000 + 63 * 0x400000 = 0x4ec00000 (1610612736):
  // med3(x, -448, 2) = 2; med3(-x, 0, 1) = 0; max3 = x; min3(x, 1, 4) * 2 = 2.
  EXPECT_EQ((*out)[252], 0x40000000u);
  EXPECT_EQ((*out)[253], 0x00000000u);
  EXPECT_EQ((*out)[254], 0x4ec00000u);
  EXPECT_EQ((*out)[255], 0x40000000u);
}

TEST(ClampValuTest, IntegerMin3Max3Med3HandValues) {
  // {x, y, z}: signed {min3, max3, med3}; unsigned below.
  struct Int3 {
    uint32_t x, y, z, imin, imax, imed, umin, umax, umed;
  };
  const Int3 kInts[] = {
      // 5, -1, 3 signed; 5, 2^32 - 1, 3 unsigned.
      {5, 0xffffffffu, 3, 0xffffffffu, 5, 3, 3, 0xffffffffu, 5},
      // INT_MIN, INT_MAX, 0 signed; 2^31, 2^31 - 1, 0 unsigned.
      {0x80000000u, 0x7fffffffu, 0, 0x80000000u, 0x7fffffffu, 0, 0, 0x80000000u, 0x7fffffffu},
      // Ties: max3 = 7 = src0 -> med3 = max(7, 2) = 7.
      {7, 7, 2, 2, 7, 7, 2, 7, 7},
      {1, 2, 3, 1, 3, 2, 1, 3, 2},
  };
  const int n = sizeof(kInts) / sizeof(kInts[0]);
  std::vector<uint32_t> in(256);
  for (int l = 0; l < 64; ++l) {
    in[4 * l] = kInts[l % n].x;
    in[4 * l + 1] = kInts[l % n].y;
    in[4 * l + 2] = kInts[l % n].z;
  }
  for (bool object : {false, true}) {
    absl::StatusOr<std::vector<uint32_t>> s = RunBody(
        "  v_min3_i32 v5, v1, v2, v3\n  v_max3_i32 v6, v1, v2, v3\n  v_med3_i32 v7, v1, v2, v3\n"
        "  v_mov_b32 v8, 0\n",
        in, object, "gfx90a");
    absl::StatusOr<std::vector<uint32_t>> u = RunBody(
        "  v_min3_u32 v5, v1, v2, v3\n  v_max3_u32 v6, v1, v2, v3\n  v_med3_u32 v7, v1, v2, v3\n"
        "  v_mov_b32 v8, 0\n",
        in, object, "gfx90a");
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_TRUE(u.ok()) << u.status();
    for (int l = 0; l < 64; ++l) {
      const Int3& c = kInts[l % n];
      EXPECT_EQ((*s)[4 * l], c.imin) << l;
      EXPECT_EQ((*s)[4 * l + 1], c.imax) << l;
      EXPECT_EQ((*s)[4 * l + 2], c.imed) << l;
      EXPECT_EQ((*u)[4 * l], c.umin) << l;
      EXPECT_EQ((*u)[4 * l + 1], c.umax) << l;
      EXPECT_EQ((*u)[4 * l + 2], c.umed) << l;
    }
  }
}

// f16: the same rules on 16-bit values; op_sel picks a source's high half;
// the high half of the result is 0.
TEST(ClampValuTest, F16Min3Max3Med3HandValues) {
  // f16 bits: 1.0 0x3c00, 2.0 0x4000, 3.0 0x4200, qNaN 0x7e00, sNaN 0x7c01, -0 0x8000.
  std::vector<uint32_t> in(256);
  const uint32_t rows[][3] = {
      {0x3c00, 0x4000, 0x4200},            // 1, 2, 3
      {0x7e00, 0xc000, 0x4000},            // qNaN, -2, 2: med3 = min3 = -2
      {0x7c01, 0x3c00, 0x4000},            // sNaN, 1, 2: all give 2 (as f32)
      {0x8000, 0x0000, 0x8000},            // -0, +0, -0: min -0, max +0, med +0
      {0x4200u << 16, 0x3c00, 0x4000},     // src0's high half is 3.0 (op_sel:[1,0,0] run)
  };
  const uint32_t want[][3] = {
      {0x3c00, 0x4200, 0x4000},
      {0xc000, 0x4000, 0xc000},
      {0x4000, 0x4000, 0x4000},
      {0x8000, 0x0000, 0x0000},
      {0x0000, 0x4000, 0x3c00},  // low halves +0, 1, 2
  };
  for (int l = 0; l < 64; ++l)
    for (int i = 0; i < 3; ++i) in[4 * l + i] = rows[l % 5][i];
  for (bool object : {false, true}) {
    absl::StatusOr<std::vector<uint32_t>> out = RunBody(
        "  v_min3_f16 v5, v1, v2, v3\n  v_max3_f16 v6, v1, v2, v3\n  v_med3_f16 v7, v1, v2, v3\n"
        "  v_med3_f16 v8, v1, v2, v3 op_sel:[1,0,0,0]\n",
        in, object, "gfx942");
    ASSERT_TRUE(out.ok()) << out.status();
    for (int l = 0; l < 64; ++l) {
      const int r = l % 5;
      EXPECT_EQ((*out)[4 * l], want[r][0]) << "min3 row " << r;
      EXPECT_EQ((*out)[4 * l + 1], want[r][1]) << "max3 row " << r;
      EXPECT_EQ((*out)[4 * l + 2], want[r][2]) << "med3 row " << r;
    }
    // op_sel:[1,0,0,0]: row 4's src0 is 3.0 -> med3(3, 1, 2) = 2; the other
    // rows' high halves are +0: med3(0, 2, 3) = 2; med3(0, -2, 2) = 0;
    // med3(0, 1, 2) = 1 (sNaN row: y = 1, z = 2); med3(0, +0, -0) = +0
    // (max3 = +0 == src0).
    const uint32_t want_hi[] = {0x4000, 0x0000, 0x3c00, 0x0000, 0x4000};
    for (int l = 0; l < 64; ++l) EXPECT_EQ((*out)[4 * l + 3], want_hi[l % 5]) << "op_sel row " << l % 5;
  }
  absl::StatusOr<std::vector<uint32_t>> hi = RunBody("  v_med3_f16 v5, v1, v2, v3 op_sel:[0,0,0,1]\n", in, false,
                                                     "gfx942");
  ASSERT_FALSE(hi.ok());
  EXPECT_THAT(std::string(hi.status().message()), HasSubstr("op_sel[3]"));
}

// v_min_f32 / v_max_f32, v_max_f16 / v_pk_max_f16: the IEEE-mode pseudo-code
// of the ISA guide's V_MIN_F32 / V_MAX_F32 / V_MAX_F16 (semantics.h
// IeeeMinMaxBits, where it is cited), worked out by hand per row: a
// signalling NaN in src0, else in src1, gives it quieted (quiet bit 0x400000
// / 0x200 set); else a quiet NaN in src1 gives src0, else one in src0 gives
// src1; else the smaller / larger, -0 below +0. std::fmin/fmax, which the
// emulator used, give the other operand for a signalling NaN.
struct MinMax {
  uint32_t x, y, min, max;
  const char* why;
};
const MinMax kMinMaxF32[] = {
    {0x7f800001u, 0x3f800000u, 0x7fc00001u, 0x7fc00001u, "sNaN, 1: src0 quieted"},
    {0x3f800000u, 0xff800005u, 0xffc00005u, 0xffc00005u, "1, -sNaN: src1 quieted, sign kept"},
    {0x7fc00000u, 0x7f800001u, 0x7fc00001u, 0x7fc00001u, "qNaN, sNaN: the sNaN (src1) quieted"},
    {0x7f800002u, 0x7fc00000u, 0x7fc00002u, 0x7fc00002u, "sNaN, qNaN: src0 quieted"},
    {0x7fc00000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, "qNaN, 1: 1"},
    {0x3f800000u, 0x7fc00003u, 0x3f800000u, 0x3f800000u, "1, qNaN: 1"},
    {0x7fc00000u, 0x7fc00002u, 0x7fc00000u, 0x7fc00000u, "two quiet NaNs: src0"},
    {0x00000000u, 0x80000000u, 0x80000000u, 0x00000000u, "+0, -0: min -0, max +0"},
    {0x80000000u, 0x00000000u, 0x80000000u, 0x00000000u, "-0, +0: min -0, max +0"},
    {0x3f800000u, 0x40000000u, 0x3f800000u, 0x40000000u, "1, 2"},
    {0xff800000u, 0x00000001u, 0xff800000u, 0x00000001u, "-inf, the smallest denormal (kept, mode 3)"},
};

TEST(ClampValuTest, MinMaxF32HandValues) {
  const int n = sizeof(kMinMaxF32) / sizeof(kMinMaxF32[0]);
  std::vector<uint32_t> in(256);
  for (int l = 0; l < 64; ++l) {
    const MinMax &a = kMinMaxF32[(2 * l) % n], &b = kMinMaxF32[(2 * l + 1) % n];
    in[4 * l] = a.x, in[4 * l + 1] = a.y, in[4 * l + 2] = b.x, in[4 * l + 3] = b.y;
  }
  for (bool object : {false, true})
    for (const char* mcpu : {"gfx90a", "gfx942"}) {
      absl::StatusOr<std::vector<uint32_t>> out = RunBody(
          "  v_min_f32 v5, v1, v2\n  v_max_f32 v6, v1, v2\n  v_min_f32_e64 v7, v3, v4\n  v_max_f32_e64 v8, v3, v4\n",
          in, object, mcpu);
      ASSERT_TRUE(out.ok()) << out.status();
      for (int l = 0; l < 64; ++l) {
        const MinMax &a = kMinMaxF32[(2 * l) % n], &b = kMinMaxF32[(2 * l + 1) % n];
        EXPECT_EQ((*out)[4 * l], a.min) << mcpu << " min " << a.why;
        EXPECT_EQ((*out)[4 * l + 1], a.max) << mcpu << " max " << a.why;
        EXPECT_EQ((*out)[4 * l + 2], b.min) << mcpu << " min " << b.why;
        EXPECT_EQ((*out)[4 * l + 3], b.max) << mcpu << " max " << b.why;
      }
    }
  // Source modifiers apply first: max(-|sNaN|, 1) is the negated sNaN
  // (0xff800001) quieted; min(-(+0), +0) = -0.
  std::vector<uint32_t> mods(256);
  for (int l = 0; l < 64; ++l) mods[4 * l] = 0x7f800001u, mods[4 * l + 1] = 0x3f800000u;
  absl::StatusOr<std::vector<uint32_t>> out = RunBody(
      "  v_max_f32_e64 v5, -|v1|, v2\n  v_min_f32_e64 v6, -v3, v3\n  v_mov_b32 v7, 0\n  v_mov_b32 v8, 0\n", mods,
      false, "gfx942");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], 0xffc00001u);
  EXPECT_EQ((*out)[1], 0x80000000u);
}

// f16 rows (bits): max(x, y) and max(y, x) per V_MAX_F16's pseudo-code, by
// hand (the operand order decides which NaN comes out).
struct MaxF16 {
  uint32_t x, y, max_xy, max_yx;
  const char* why;
};
const MaxF16 kMaxF16[] = {
    {0x7c01, 0x3c00, 0x7e01, 0x7e01, "sNaN, 1: the sNaN quieted either way"},
    {0x3c00, 0xfc05, 0xfe05, 0xfe05, "1, -sNaN: the sNaN quieted, sign kept"},
    {0x7e00, 0x7c01, 0x7e01, 0x7e01, "qNaN, sNaN: the sNaN quieted"},
    {0x7e00, 0x3c00, 0x3c00, 0x3c00, "qNaN, 1: 1"},
    {0x3c00, 0x7e03, 0x3c00, 0x3c00, "1, qNaN: 1"},
    {0x7e00, 0x7e02, 0x7e00, 0x7e02, "two quiet NaNs: src0"},
    {0x0000, 0x8000, 0x0000, 0x0000, "+0, -0: +0"},
    {0x8000, 0x0000, 0x0000, 0x0000, "-0, +0: +0"},
    {0x3c00, 0x4000, 0x4000, 0x4000, "1, 2: 2"},
    {0xfc00, 0x0001, 0x0001, 0x0001, "-inf, the smallest denormal"},
};

TEST(ClampValuTest, MaxF16HandValues) {
  // Lane l: word x = {row (2l+1) % n's x, row 2l % n's x} (high, low), y alike.
  const int n = sizeof(kMaxF16) / sizeof(kMaxF16[0]);
  std::vector<uint32_t> in(256);
  for (int l = 0; l < 64; ++l) {
    const MaxF16 &lo = kMaxF16[(2 * l) % n], &hi = kMaxF16[(2 * l + 1) % n];
    in[4 * l] = hi.x << 16 | lo.x;
    in[4 * l + 1] = hi.y << 16 | lo.y;
  }
  for (bool object : {false, true}) {
    absl::StatusOr<std::vector<uint32_t>> out = RunBody(
        "  v_max_f16 v5, v1, v2\n  v_pk_max_f16 v6, v1, v2\n"
        "  v_max_f16_sdwa v7, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_1\n"
        "  v_max_f16_e64 v8, v2, v1\n",
        in, object, "gfx90a");
    ASSERT_TRUE(out.ok()) << out.status();
    for (int l = 0; l < 64; ++l) {
      const MaxF16 &lo = kMaxF16[(2 * l) % n], &hi = kMaxF16[(2 * l + 1) % n];
      EXPECT_EQ((*out)[4 * l], lo.max_xy) << "v_max_f16 " << lo.why;
      EXPECT_EQ((*out)[4 * l + 1], hi.max_xy << 16 | lo.max_xy) << "v_pk_max_f16 " << lo.why << " / " << hi.why;
      EXPECT_EQ((*out)[4 * l + 2], hi.max_xy << 16) << "sdwa WORD_1 " << hi.why;
      EXPECT_EQ((*out)[4 * l + 3], lo.max_yx) << "v_max_f16_e64 v8, v2, v1 " << lo.why;
    }
  }
}

// v_cvt_pk_bf16_f32: the top 16 bits of each f32, rounded to nearest even.
struct Bf16Case {
  uint32_t f32;
  uint16_t bf16;
  const char* why;
};
const Bf16Case kBf16[] = {
    {0x3f800000u, 0x3f80, "1.0 exact"},
    {0x3f808000u, 0x3f80, "1 + 2^-8: halfway between 0x3f80 and 0x3f81, ties to even (0x3f80)"},
    {0x3f818000u, 0x3f82, "halfway between 0x3f81 and 0x3f82, ties to even (0x3f82)"},
    {0x3f808001u, 0x3f81, "just above halfway: up"},
    {0x3f80ffffu, 0x3f81, "0x3f80ffff: up"},
    {0x7f7fffffu, 0x7f80, "the largest f32 rounds past the largest bf16 to +inf"},
    {0x7f7f7fffu, 0x7f7f, "below halfway: the largest bf16"},
    {0x7f800000u, 0x7f80, "+inf"},
    {0xff800000u, 0xff80, "-inf"},
    {0x7fc00000u, 0x7fc0, "the quiet NaN"},
    {0x7f800001u, 0x7fc0, "a signalling NaN: quieted (its payload's top 7 bits are 0)"},
    {0xffa12345u, 0xffe1, "a negative NaN: sign and top payload bits kept, quiet bit set"},
    {0x80000000u, 0x8000, "-0.0"},
    {0x00010000u, 0x0001, "the smallest bf16 denormal, exact"},
    {0x00008000u, 0x0000, "half of it: ties to even (0)"},
    {0x00018000u, 0x0002, "1.5 of it: ties to even (2)"},
    {0xc2f70000u, 0xc2f7, "-123.5 exact"},
};

TEST(ClampValuTest, CvtPkBf16F32HandValues) {
  // Lane l converts cases 2l % n (x) and (2l + 1) % n (y): v5 = {bf16(y),
  // bf16(x)}, v6 = {bf16(x), bf16(y)} (the sources swapped).
  const int n = sizeof(kBf16) / sizeof(kBf16[0]);
  std::vector<uint32_t> in(256);
  for (int l = 0; l < 64; ++l) {
    in[4 * l] = kBf16[(2 * l) % n].f32;
    in[4 * l + 1] = kBf16[(2 * l + 1) % n].f32;
  }
  for (bool object : {false, true}) {
    absl::StatusOr<std::vector<uint32_t>> out = RunBody(
        "  v_cvt_pk_bf16_f32 v5, v1, v2\n  v_cvt_pk_bf16_f32 v6, v2, v1\n  v_mov_b32 v7, 0\n  v_mov_b32 v8, 0\n", in,
        object, "gfx950");
    ASSERT_TRUE(out.ok()) << out.status();
    for (int l = 0; l < 64; ++l) {
      const Bf16Case& a = kBf16[(2 * l) % n];
      const Bf16Case& b = kBf16[(2 * l + 1) % n];
      EXPECT_EQ((*out)[4 * l], a.bf16 | static_cast<uint32_t>(b.bf16) << 16) << a.why << " / " << b.why;
      EXPECT_EQ((*out)[4 * l + 1], b.bf16 | static_cast<uint32_t>(a.bf16) << 16) << b.why << " / " << a.why;
    }
  }
}

// neg/abs before the conversion, clamp to [0, 1] after; clang-22's form
// with an SGPR source; op_sel and other targets refused.
TEST(ClampValuTest, CvtPkBf16F32ModifiersAndTargets) {
  std::vector<uint32_t> in(256);
  for (int l = 0; l < 64; ++l) {
    in[4 * l] = 0x3f800000u;      // 1.0
    in[4 * l + 1] = 0xc0000000u;  // -2.0
  }
  in[4] = 0x3f000000u;  // lane 1: x = 0.5
  absl::StatusOr<std::vector<uint32_t>> out = RunBody(
      "  s_mov_b32 s0, 0x40490fdb\n"  // pi: bf16 0x4049 (0x0fdb < 0x8000: down)
      "  v_cvt_pk_bf16_f32 v5, -v1, |v2|\n"
      "  v_cvt_pk_bf16_f32 v6, v2, v1 clamp\n"
      "  v_cvt_pk_bf16_f32 v7, v1, s0\n"
      "  v_mov_b32 v8, 0\n",
      in, false, "gfx950");
  ASSERT_TRUE(out.ok()) << out.status();
  for (int l = 0; l < 64; ++l) {
    const uint32_t x = l == 1 ? 0x3f00u : 0x3f80u;
    EXPECT_EQ((*out)[4 * l], 0x40000000u | (x | 0x8000u)) << l;  // {|-2| = 2.0, -x}
    EXPECT_EQ((*out)[4 * l + 1], x << 16) << l;                 // {clamp(x), clamp(-2) = 0}
    EXPECT_EQ((*out)[4 * l + 2], 0x40490000u | x) << l;         // {pi, x}
  }
  absl::StatusOr<std::vector<uint32_t>> sel =
      RunBody("  v_cvt_pk_bf16_f32 v5, v1, v2 mul:2\n", in, false, "gfx950");
  ASSERT_FALSE(sel.ok());
  EXPECT_THAT(std::string(sel.status().message()), HasSubstr("v_cvt_pk_bf16_f32"));
  for (const char* mcpu : {"gfx908", "gfx90a", "gfx942"}) {
    absl::StatusOr<Inst> c = ParseInstruction("v_cvt_pk_bf16_f32 v0, v1, v2", **LookupTarget(mcpu));
    ASSERT_FALSE(c.ok()) << mcpu;
    EXPECT_THAT(std::string(c.status().message()), HasSubstr(absl::StrCat("does not exist on ", mcpu)));
  }
}

}  // namespace
}  // namespace kir::emu
