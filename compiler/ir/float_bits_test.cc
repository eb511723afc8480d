// fp8 conversions (float_bits.h) against values computed independently:
// each code's value from the format's definition written out here with
// std::pow (no float_bits code), and f32 -> fp8 by brute force: the nearest
// of the format's finite values in double, ties to the even code, then KIR's
// saturation rule. Every f32 halfway point between neighbouring fp8 values,
// its f32 neighbours, each value itself and the saturation boundaries.
#include "compiler/ir/float_bits.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace kir {
namespace {

struct Spec {
  ElemType t;
  int e_bits, m_bits, bias;
  bool fnuz, ocp_e4m3, ieee_e5m2;
};

const Spec kSpecs[] = {
    {ElemType::kF8E4M3FNUZ, 4, 3, 8, true, false, false},
    {ElemType::kF8E5M2FNUZ, 5, 2, 16, true, false, false},
    {ElemType::kF8E4M3FN, 4, 3, 7, false, true, false},
    {ElemType::kF8E5M2, 5, 2, 15, false, false, true},
};

bool SpecNaN(const Spec& s, int code) {
  if (s.fnuz) return code == 0x80;
  int mag = code & 0x7f;
  if (s.ocp_e4m3) return mag == 0x7f;
  return (mag >> 2) == 31 && (mag & 3) != 0;
}
bool SpecInf(const Spec& s, int code) { return s.ieee_e5m2 && (code & 0x7f) == 0x7c; }

// The value of a finite code from the definition.
double SpecValue(const Spec& s, int code) {
  int sign = code >> 7;
  int e = (code >> s.m_bits) & ((1 << s.e_bits) - 1);
  int m = code & ((1 << s.m_bits) - 1);
  double frac = m / std::pow(2.0, s.m_bits);
  double mag = e == 0 ? frac * std::pow(2.0, 1 - s.bias) : (1 + frac) * std::pow(2.0, e - s.bias);
  return sign ? -mag : mag;
}

double SpecMax(const Spec& s) {
  double best = 0;
  for (int c = 0; c < 0x80; ++c)
    if (!SpecNaN(s, c) && !SpecInf(s, c)) best = std::max(best, SpecValue(s, c));
  return best;
}

// KIR's cvt by brute force.
uint8_t BruteForce(const Spec& s, float v) {
  if (std::isnan(v)) return s.fnuz ? 0x80 : 0x7f;
  bool neg = std::signbit(v);
  double a = std::fabs(static_cast<double>(v));
  int best = -1;
  if (std::isinf(v) && s.ieee_e5m2) return (neg ? 0x80 : 0) | 0x7c;
  if (std::isinf(v) || a > SpecMax(s)) a = SpecMax(s);
  double best_d = 0;
  for (int c = 0; c < 0x80; ++c) {
    if (SpecNaN(s, c) || SpecInf(s, c)) continue;
    double d = std::fabs(SpecValue(s, c) - a);
    if (best < 0 || d < best_d || (d == best_d && (c & 1) == 0)) {
      best = c;
      best_d = d;
    }
  }
  if (best == 0 && s.fnuz) return 0;
  return static_cast<uint8_t>((neg ? 0x80 : 0) | best);
}

TEST(Fp8, FormatNumbers) {
  // Hand-checked against the definitions (types.h): 1.0, max, min normal and
  // min subnormal of each format.
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E4M3FNUZ, 0x40), 1.0f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E4M3FNUZ, 0x7f), 240.0f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E4M3FNUZ, 0x08), 0x1p-7f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E4M3FNUZ, 0x01), 0x1p-10f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E4M3FNUZ, 0xff), -240.0f);
  EXPECT_TRUE(std::isnan(Fp8BitsToF32(ElemType::kF8E4M3FNUZ, 0x80)));
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E5M2FNUZ, 0x40), 1.0f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E5M2FNUZ, 0x7f), 57344.0f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E5M2FNUZ, 0x01), 0x1p-17f);
  EXPECT_TRUE(std::isnan(Fp8BitsToF32(ElemType::kF8E5M2FNUZ, 0x80)));
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E4M3FN, 0x38), 1.0f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E4M3FN, 0x7e), 448.0f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E4M3FN, 0x01), 0x1p-9f);
  EXPECT_TRUE(std::isnan(Fp8BitsToF32(ElemType::kF8E4M3FN, 0x7f)));
  EXPECT_TRUE(std::isnan(Fp8BitsToF32(ElemType::kF8E4M3FN, 0xff)));
  EXPECT_TRUE(std::signbit(Fp8BitsToF32(ElemType::kF8E4M3FN, 0x80)));
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E5M2, 0x3c), 1.0f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E5M2, 0x7b), 57344.0f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E5M2, 0x01), 0x1p-16f);
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E5M2, 0x7c), std::numeric_limits<float>::infinity());
  EXPECT_EQ(Fp8BitsToF32(ElemType::kF8E5M2, 0xfc), -std::numeric_limits<float>::infinity());
  for (int c : {0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff})
    EXPECT_TRUE(std::isnan(Fp8BitsToF32(ElemType::kF8E5M2, static_cast<uint8_t>(c)))) << c;
  // Saturation and specials, by hand.
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FNUZ, 1e6f), 0x7f);
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FNUZ, -std::numeric_limits<float>::infinity()), 0xff);
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FNUZ, -0.0f), 0x00);
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FNUZ, std::nanf("")), 0x80);
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FN, 464.0f), 0x7e);  // halfway to 480: not NaN
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FN, -0.0f), 0x80);
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E5M2, 1e9f), 0x7b);
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E5M2, std::numeric_limits<float>::infinity()), 0x7c);
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E5M2FNUZ, std::numeric_limits<float>::infinity()), 0x7f);
  // 1.0625 is halfway between 1.0 (0x40) and 1.125 (0x41) in e4m3fnuz: even 0x40.
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FNUZ, 1.0625f), 0x40);
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FNUZ, 1.1875f), 0x42);  // between 0x41 and 0x42
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FNUZ, 0x1p-11f), 0x00);  // half the min subnormal: tie to 0
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FNUZ, -0x1p-11f), 0x00);  // FNUZ: no -0
  EXPECT_EQ(F32ToFp8Bits(ElemType::kF8E4M3FN, -0x1p-10f), 0x80);   // OCP: -0
}

TEST(Fp8, AllCodesMatchTheDefinitionAndRoundTrip) {
  for (const Spec& s : kSpecs) {
    for (int c = 0; c < 256; ++c) {
      uint8_t b = static_cast<uint8_t>(c);
      float f = Fp8BitsToF32(s.t, b);
      EXPECT_EQ(IsFp8NaN(s.t, b), SpecNaN(s, c)) << ElemTypeName(s.t) << " " << c;
      if (SpecNaN(s, c)) {
        EXPECT_TRUE(std::isnan(f));
        EXPECT_TRUE(IsFp8NaN(s.t, F32ToFp8Bits(s.t, f)));
        continue;
      }
      if (SpecInf(s, c)) {
        EXPECT_TRUE(std::isinf(f));
        EXPECT_EQ(F32ToFp8Bits(s.t, f), b);
        continue;
      }
      EXPECT_EQ(static_cast<double>(f), SpecValue(s, c)) << ElemTypeName(s.t) << " " << c;
      EXPECT_EQ(std::signbit(f), (c & 0x80) != 0) << ElemTypeName(s.t) << " " << c;
      EXPECT_EQ(F32ToFp8Bits(s.t, f), b) << ElemTypeName(s.t) << " " << c;
      std::optional<uint32_t> exact = ExactBits(s.t, f);
      ASSERT_TRUE(exact.has_value());
      EXPECT_EQ(*exact, b);
    }
  }
}

TEST(Fp8, HalfwayPointsAndSaturationMatchBruteForce) {
  for (const Spec& s : kSpecs) {
    std::vector<double> vals;
    for (int c = 0; c < 0x80; ++c)
      if (!SpecNaN(s, c) && !SpecInf(s, c)) vals.push_back(SpecValue(s, c));
    std::sort(vals.begin(), vals.end());
    const double max = vals.back();
    // The quantum of the top binade: where a non-saturating conversion overflows.
    const double top_ulp = vals.back() - vals[vals.size() - 2];
    std::vector<float> points;
    for (size_t i = 0; i + 1 < vals.size(); ++i) {
      float mid = static_cast<float>((vals[i] + vals[i + 1]) / 2);
      ASSERT_EQ(static_cast<double>(mid), (vals[i] + vals[i + 1]) / 2);
      points.push_back(mid);
      points.push_back(std::nextafter(mid, 0.0f));
      points.push_back(std::nextafter(mid, 1e30f));
      points.push_back(static_cast<float>(vals[i]));
    }
    for (double d : {max, max + top_ulp / 2, max + top_ulp, 2 * max, 1e30, 3.4e38})
      points.push_back(static_cast<float>(d));
    points.push_back(std::nextafter(static_cast<float>(max), 1e30f));
    points.push_back(std::nextafter(static_cast<float>(max + top_ulp / 2), 0.0f));
    points.push_back(std::numeric_limits<float>::infinity());
    points.push_back(std::numeric_limits<float>::denorm_min());
    points.push_back(0.0f);
    size_t n = points.size();
    for (size_t i = 0; i < n; ++i) points.push_back(-points[i]);
    for (float p : points)
      EXPECT_EQ(F32ToFp8Bits(s.t, p), BruteForce(s, p)) << ElemTypeName(s.t) << " " << p;
    // A sweep over the f32 bit patterns.
    for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 65521) {
      float p = F32FromBits(static_cast<uint32_t>(bits));
      if (std::isnan(p)) {
        EXPECT_TRUE(IsFp8NaN(s.t, F32ToFp8Bits(s.t, p)));
        continue;
      }
      EXPECT_EQ(F32ToFp8Bits(s.t, p), BruteForce(s, p)) << ElemTypeName(s.t) << " " << p;
    }
  }
}

TEST(Fp8, ExactBitsRefusesWhatTheFormatLacks) {
  EXPECT_FALSE(ExactBits(ElemType::kF8E4M3FNUZ, 241.0).has_value());
  EXPECT_FALSE(ExactBits(ElemType::kF8E4M3FNUZ, 1.0625).has_value());
  EXPECT_FALSE(ExactBits(ElemType::kF8E4M3FNUZ, INFINITY).has_value());
  EXPECT_FALSE(ExactBits(ElemType::kF8E4M3FNUZ, -0.0).has_value());
  EXPECT_EQ(ExactBits(ElemType::kF8E4M3FN, -0.0), 0x80u);
  EXPECT_EQ(ExactBits(ElemType::kF8E5M2, -INFINITY), 0xfcu);
  EXPECT_FALSE(ExactBits(ElemType::kF8E4M3FN, INFINITY).has_value());
  EXPECT_EQ(ExactBits(ElemType::kF8E5M2FNUZ, 57344.0), 0x7fu);
}

}  // namespace
}  // namespace kir
