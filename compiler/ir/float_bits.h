// Exact conversions between doubles and the bit patterns of f16, bf16, f32
// and the four fp8 types (types.h cites their definitions).
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

// The parameters of an fp8 element type (types.h): exponent and mantissa
// bits, bias, the largest finite value, and which codes are special.
struct Fp8Format {
  int exp_bits;         // 4 or 5
  int man_bits;         // 3 or 2
  int bias;             // 8 / 16 (FNUZ), 7 / 15 (OCP)
  double max;           // largest finite value: 240, 57344, 448, 57344
  bool fnuz;            // 0x80 is the only NaN; no -0, no infinities
  bool has_inf;         // f8e5m2 only: S.11111.00 are +-inf
  uint8_t nan;          // the NaN F32ToFp8Bits gives: 0x80 (FNUZ), 0x7f (OCP)
};
// The format of fp8 type `t`; nullptr if `t` is not an fp8 type.
const Fp8Format* Fp8FormatOf(ElemType t);

// The exact value of fp8 code `b` of type `t` (must be IsFp8) as f32 (every
// fp8 value is an f32): NaN codes give the quiet NaN 0x7fc00000 with the
// code's sign (FNUZ 0x80: +NaN), +-inf codes of f8e5m2 give +-inf.
float Fp8BitsToF32(ElemType t, uint8_t b);
// True if code `b` of fp8 type `t` is a NaN.
bool IsFp8NaN(ElemType t, uint8_t b);

// KIR's `cvt` to fp8 type `t` (must be IsFp8): round to nearest, ties to
// even, with saturation: finite values beyond the format's max (after
// rounding: any |v| > max) give +-max; +-inf gives +-inf for f8e5m2 and
// +-max for the others; NaN gives the format's NaN (Fp8Format::nan).
// Subnormals are kept (no flush). A zero result keeps v's sign, except in
// the FNUZ formats, which have only +0 (so -0.0 and tiny negatives give 0x00).
uint8_t F32ToFp8Bits(ElemType t, float v);

// The bits of `v` in element type `t` (f16/bf16: low 16 bits; f32: 32 bits;
// i32: two's complement; fp8: low 8 bits), or nullopt if `v` is not exactly
// representable (NaN is representable in the float types, infinities in
// all float types but the fp8 ones other than f8e5m2; -0.0 is not an FNUZ value).
std::optional<uint32_t> ExactBits(ElemType t, double v);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_FLOAT_BITS_H_
