#include "compiler/ir/float_bits.h"

#include <cmath>
#include <cstring>

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

std::optional<uint32_t> ExactBits(ElemType t, double v) {
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
