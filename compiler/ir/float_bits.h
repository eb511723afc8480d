// Exact conversions between doubles and the bit patterns of f16, bf16 and f32.
#ifndef KIRC_COMPILER_IR_FLOAT_BITS_H_
#define KIRC_COMPILER_IR_FLOAT_BITS_H_

#include <cstdint>
#include <optional>

#include "compiler/ir/types.h"

namespace kir {

// IEEE binary16 / bfloat16 / binary32 bits of `v` rounded to nearest even
// (NaN becomes the canonical quiet NaN: 0x7e00, 0x7fc0, 0x7fc00000).
uint16_t F32ToF16Bits(float v);
uint16_t F32ToBf16Bits(float v);
float F16BitsToF32(uint16_t h);
float Bf16BitsToF32(uint16_t h);
uint32_t F32Bits(float v);
float F32FromBits(uint32_t b);

// The bits of `v` in element type `t` (f16/bf16: low 16 bits; f32: 32 bits;
// i32: two's complement), or nullopt if `v` is not exactly representable
// (NaN and infinities are representable in the float types).
std::optional<uint32_t> ExactBits(ElemType t, double v);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_FLOAT_BITS_H_
