#include "hw/emu/float_math.h"

#include <cfloat>
#include <cmath>
#include <cstring>

namespace kir::emu {

float F32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

double F16ToDouble(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0x1f) {
    if (man == 0) {
      v = INFINITY;
    } else {  // NaN: payload kept, quieted (as v_cvt_f32_f16 does in IEEE mode)
      return F32(static_cast<uint32_t>(sign) << 31 | 0x7fc00000u | static_cast<uint32_t>(man) << 13);
    }
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(man), -24);
  } else {
    v = std::ldexp(static_cast<double>(man | 0x400), exp - 25);
  }
  return sign ? -v : v;
}

double Bf16ToDouble(uint16_t h) { return F32(static_cast<uint32_t>(h) << 16); }

namespace {

// Round-to-nearest-even of a finite non-negative double to f16 magnitude bits.
uint16_t F16MagnitudeRne(double a) {
  if (a >= 65520.0) return 0x7c00;  // halfway to 2^16 and beyond: rounds to infinity
  if (a < std::ldexp(1.0, -14)) {   // subnormal range: units of 2^-24
    double q = std::nearbyint(std::ldexp(a, 24));
    return static_cast<uint16_t>(q);  // q == 1024 is the smallest normal: same encoding
  }
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int E = e - 1;      // a in [2^E, 2^(E+1))
  double q = std::nearbyint(std::ldexp(a, 10 - E));  // in [1024, 2048]
  if (q >= 2048.0) {
    q = 1024.0;
    ++E;
  }
  if (E + 15 >= 31) return 0x7c00;
  return static_cast<uint16_t>(((E + 15) << 10) | (static_cast<int>(q) - 1024));
}

// Truncation toward zero of a finite non-negative double to f16 magnitude
// bits; *inexact (if given) tells whether the discarded part is nonzero.
// Beyond the largest finite value 65504 the truncation is 0x7bff (inexact).
// Every step is exact in double: scaling by a power of two and floor.
uint16_t F16MagnitudeRtz(double a, bool* inexact = nullptr) {
  bool discarded = false;
  uint16_t mag;
  if (a >= 65536.0) {
    mag = 0x7bff;
    discarded = true;
  } else if (a < std::ldexp(1.0, -14)) {  // subnormal range: units of 2^-24
    const double s = std::ldexp(a, 24), q = std::floor(s);
    mag = static_cast<uint16_t>(q);
    discarded = q != s;
  } else {
    int e;
    std::frexp(a, &e);
    const int E = e - 1;  // a in [2^E, 2^(E+1)), E in [-14, 15]
    const double s = std::ldexp(a, 10 - E), q = std::floor(s);  // q in [1024, 2047]
    mag = static_cast<uint16_t>(((E + 15) << 10) | (static_cast<int>(q) - 1024));
    discarded = q != s;
  }
  if (inexact != nullptr) *inexact = discarded;
  return mag;
}

// f16 bits of a non-NaN double x rounded toward zero, +inf or -inf: the
// magnitude truncated, then one step away from zero when the discarded part
// is nonzero and the mode rounds away on x's side (+inf for x > 0, -inf for
// x < 0). The step from 0x7bff is 0x7c00: overflow toward the infinity on
// the mode's side (IEEE 754-2008 7.4); an infinity is exact.
uint16_t F16Directed(double x, FpRound r) {
  const bool negative = std::signbit(x);
  const uint16_t sign = negative ? 0x8000 : 0;
  if (std::isinf(x)) return sign | 0x7c00;
  bool inexact = false;
  uint16_t mag = F16MagnitudeRtz(std::fabs(x), &inexact);
  const bool away = inexact && (negative ? r == FpRound::kTowardNegInf : r == FpRound::kTowardPosInf);
  if (away) ++mag;
  return sign | mag;
}

}  // namespace

uint16_t NaNToF16(double nan) {
  uint64_t b;
  std::memcpy(&b, &nan, 8);
  return static_cast<uint16_t>(((b >> 48) & 0x8000) | 0x7e00 | ((b >> 42) & 0x1ff));
}

bool FirstNaN(const double* x, int n, double* nan) {
  for (int i = 0; i < n; ++i)
    if (std::isnan(x[i])) {
      *nan = x[i];
      return true;
    }
  return false;
}

uint16_t RoundToF16(double hi, double lo) {
  uint16_t sign = std::signbit(hi) ? 0x8000 : 0;
  if (std::isnan(hi)) return NaNToF16(hi);
  if (std::isinf(hi)) return sign | 0x7c00;
  double a = std::fabs(hi);
  uint16_t r = F16MagnitudeRne(a);
  if (lo != 0.0) {
    // hi may sit exactly halfway between two f16 values while the exact value
    // hi + lo does not: then lo decides the direction. The halfway point
    // above the largest finite value, 65520, is the overflow threshold: below
    // it the result is 65504, not inf.
    uint16_t down = F16MagnitudeRtz(a);
    double d = F16ToDouble(down), u = down == 0x7bff ? 65536.0 : F16ToDouble(static_cast<uint16_t>(down + 1));
    if (a == (d + u) / 2) {
      bool away = (lo > 0) == (hi > 0);
      r = away ? static_cast<uint16_t>(down + 1) : down;
    }
  }
  return sign | r;
}

float RoundToF32(double hi, double lo) {
  float f = static_cast<float>(hi);
  if (lo == 0.0 || std::isnan(hi) || std::isinf(hi)) return f;
  // hi exactly at the overflow threshold (halfway between FLT_MAX and 2^128,
  // which rounds to inf) with the exact value below it: FLT_MAX.
  constexpr double kOverflowTie = 0x1.ffffffp+127;
  if (std::fabs(hi) == kOverflowTie) {
    bool away = (lo > 0) == (hi > 0);
    return away ? f : std::copysign(FLT_MAX, static_cast<float>(hi));
  }
  if (std::isinf(f)) return f;
  // Halfway case between two floats: lo decides.
  float t = std::fabs(hi) < std::fabs(static_cast<double>(f)) ? std::nextafter(f, 0.0f) : f;
  float u = std::nextafter(t, hi > 0 ? INFINITY : -INFINITY);
  if (std::fabs(hi) == std::fabs((static_cast<double>(t) + static_cast<double>(u)) / 2)) {
    bool away = (lo > 0) == (hi > 0);
    return away ? u : t;
  }
  return f;
}

namespace {
// Exact a*b + c as hi + lo (TwoSum of an exact product and c).
void ExactFma(double a, double b, double c, double* hi, double* lo) {
  double p = a * b;  // exact: both have at most 24 significant bits
  double s = p + c;
  double bb = s - p;
  *lo = (p - (s - bb)) + (c - bb);
  *hi = s;
}
}  // namespace

uint16_t FmaToF16(double a, double b, double c) {
  double hi, lo;
  ExactFma(a, b, c, &hi, &lo);
  return RoundToF16(hi, lo);
}

float FmaToF32(double a, double b, double c) {
  double hi, lo;
  ExactFma(a, b, c, &hi, &lo);
  return RoundToF32(hi, lo);
}

uint16_t RoundToF16Mode(double x, FpRound r) {
  if (r == FpRound::kNearestEven || std::isnan(x)) return RoundToF16(x);
  return F16Directed(x, r);
}

uint16_t F32ToF16Rtz(float f) {
  if (std::isnan(f)) return NaNToF16(f);
  return F16Directed(f, FpRound::kTowardZero);
}

bool IsDenormal(float f) { return f != 0.0f && std::fpclassify(f) == FP_SUBNORMAL; }

float FlushIn(float f, int mode) {
  if ((mode & 1) == 0 && IsDenormal(f)) return std::signbit(f) ? -0.0f : 0.0f;
  return f;
}

float FlushOut(float f, int mode) {
  if ((mode & 2) == 0 && IsDenormal(f)) return std::signbit(f) ? -0.0f : 0.0f;
  return f;
}

}  // namespace kir::emu
