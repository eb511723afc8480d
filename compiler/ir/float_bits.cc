#include "compiler/ir/float_bits.h"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>

namespace kir {

uint32_t F32Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

float F32FromBits(uint32_t b) {
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}

uint16_t F32ToF16Bits(float v) {
  uint32_t x = F32Bits(v);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | (man ? 0x7e00u : 0x7c00u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {  // subnormal or zero in f16
    if (e < -10) return static_cast<uint16_t>(sign);
    man |= 0x800000u;
    int shift = 14 - e;  // 13 + (1 - e)
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into inf: correct
  return static_cast<uint16_t>(sign | half);
}

uint16_t F32ToBf16Bits(float v) {
  uint32_t x = F32Bits(v);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  uint32_t lsb = (x >> 16) & 1u;
  return static_cast<uint16_t>((x + 0x7fffu + lsb) >> 16);
}

float F16BitsToF32(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return F32FromBits(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    float m = std::ldexp(static_cast<float>(man), -24);
    return sign ? -m : m;
  }
  return F32FromBits(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

float Bf16BitsToF32(uint16_t h) { return F32FromBits(static_cast<uint32_t>(h) << 16); }

const Fp8Format* Fp8FormatOf(ElemType t) {
  // exp_bits, man_bits, bias, max, fnuz, has_inf, nan
  static const Fp8Format kE4M3Fnuz{4, 3, 8, 240.0, true, false, 0x80};
  static const Fp8Format kE5M2Fnuz{5, 2, 16, 57344.0, true, false, 0x80};
  static const Fp8Format kE4M3Fn{4, 3, 7, 448.0, false, false, 0x7f};
  static const Fp8Format kE5M2{5, 2, 15, 57344.0, false, true, 0x7f};
  switch (t) {
    case ElemType::kF8E4M3FNUZ:
      return &kE4M3Fnuz;
    case ElemType::kF8E5M2FNUZ:
      return &kE5M2Fnuz;
    case ElemType::kF8E4M3FN:
      return &kE4M3Fn;
    case ElemType::kF8E5M2:
      return &kE5M2;
    default:
      return nullptr;
  }
}

bool IsFp8NaN(ElemType t, uint8_t b) {
  const Fp8Format* f = Fp8FormatOf(t);
  if (f == nullptr) return false;
  if (f->fnuz) return b == 0x80;
  const uint8_t mag = b & 0x7f;
  if (!f->has_inf) return mag == 0x7f;  // E4M3FN: S.1111.111
  return (mag >> 2) == 0x1f && (mag & 3) != 0;  // E5M2: S.11111.{01,10,11}
}

float Fp8BitsToF32(ElemType t, uint8_t b) {
  const Fp8Format* f = Fp8FormatOf(t);
  if (f == nullptr) return std::numeric_limits<float>::quiet_NaN();
  const bool neg = (b & 0x80) != 0;
  if (IsFp8NaN(t, b)) return F32FromBits((neg && !f->fnuz ? 0x80000000u : 0u) | 0x7fc00000u);
  const int e = (b >> f->man_bits) & ((1 << f->exp_bits) - 1);
  const int m = b & ((1 << f->man_bits) - 1);
  if (f->has_inf && e == (1 << f->exp_bits) - 1)
    return neg ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  // Subnormal: m * 2^(1 - bias - M); normal: (2^M + m) * 2^(e - bias - M). Exact in float.
  const float mag = e == 0 ? std::ldexp(static_cast<float>(m), 1 - f->bias - f->man_bits)
                           : std::ldexp(static_cast<float>((1 << f->man_bits) + m), e - f->bias - f->man_bits);
  return neg ? -mag : mag;
}

uint8_t F32ToFp8Bits(ElemType t, float v) {
  const Fp8Format* f = Fp8FormatOf(t);
  if (f == nullptr) return 0;
  if (std::isnan(v)) return f->nan;
  const bool neg = std::signbit(v);
  const uint8_t sign = neg ? 0x80 : 0x00;
  // The largest finite code: exponent field all ones with mantissa all ones
  // (FNUZ, E4M3FN: one below the NaN 0x7f there), or one exponent lower (E5M2).
  const uint8_t max_code = f->fnuz ? 0x7f : f->has_inf ? 0x7b : 0x7e;
  if (std::isinf(v)) return sign | (f->has_inf ? 0x7c : max_code);
  const double a = std::fabs(static_cast<double>(v));
  if (a >= f->max) return sign | max_code;
  // Quantum of the binade holding a (subnormals share the lowest normal
  // binade's): 2^(max(ilogb(a), 1 - bias) - M). a / q < 2^(M+1) is exact in
  // double; rint rounds it to nearest even (the default rounding mode).
  const int emin = 1 - f->bias;
  int e = a == 0 ? emin : std::max(std::ilogb(a), emin);
  double n = std::nearbyint(std::ldexp(a, f->man_bits - e));  // 0 .. 2^(M+1)
  if (n == 0) return f->fnuz ? 0x00 : sign;
  if (n >= std::ldexp(1.0, f->man_bits + 1)) {  // rounded up into the next binade
    n /= 2;
    ++e;
  }
  uint32_t code;
  if (n < std::ldexp(1.0, f->man_bits)) {  // subnormal (only when e == emin)
    code = static_cast<uint32_t>(n);
  } else {
    code = (static_cast<uint32_t>(e + f->bias) << f->man_bits) |
           (static_cast<uint32_t>(n) - (1u << f->man_bits));
  }
  // a < max, so the rounded value is at most max: code <= max_code.
  return static_cast<uint8_t>(sign | code);
}

std::optional<uint32_t> ExactBits(ElemType t, double v) {
  if (IsFp8(t)) {
    const Fp8Format* f = Fp8FormatOf(t);
    if (std::isnan(v)) return f->nan;
    if (std::isinf(v) && !f->has_inf) return std::nullopt;
    if (v == 0 && std::signbit(v) && f->fnuz) return std::nullopt;
    float fv = static_cast<float>(v);
    if (static_cast<double>(fv) != v) return std::nullopt;
    uint8_t b = F32ToFp8Bits(t, fv);
    if (static_cast<double>(Fp8BitsToF32(t, b)) != v) return std::nullopt;
    return b;
  }
  if (t == ElemType::kI32) {
    if (!(v >= -2147483648.0 && v <= 2147483647.0) || std::trunc(v) != v) return std::nullopt;
    return static_cast<uint32_t>(static_cast<int32_t>(v));
  }
  float f = static_cast<float>(v);
  if (!std::isnan(v) && static_cast<double>(f) != v) return std::nullopt;
  if (t == ElemType::kF32) return F32Bits(f);
  if (t == ElemType::kF16) {
    uint16_t h = F32ToF16Bits(f);
    if (!std::isnan(v) && static_cast<double>(F16BitsToF32(h)) != v) return std::nullopt;
    return h;
  }
  uint16_t h = F32ToBf16Bits(f);
  if (!std::isnan(v) && static_cast<double>(Bf16BitsToF32(h)) != v) return std::nullopt;
  return h;
}

}  // namespace kir
