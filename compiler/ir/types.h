// Element and value types of KIR.
#ifndef KIRC_COMPILER_IR_TYPES_H_
#define KIRC_COMPILER_IR_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kir {

// Element type of a buffer, LDS allocation, scalar argument or value.
//
// The four 8-bit float types (1 sign, E exponent, M mantissa bits; value
// (-1)^s * 2^(e - bias) * 1.m, or 2^(1 - bias) * 0.m for e = 0, subnormals
// kept), as LLVM APFloat (llvm/lib/Support/APFloat.cpp, fltSemantics
// {maxExponent, minExponent, precision, bits}: semFloat8E4M3FNUZ {7, -7, 4,
// 8} and semFloat8E5M2FNUZ {15, -15, 3, 8} with NanOnly/NegativeZero (the
// NaN is the negative-zero code 0x80), semFloat8E4M3FN {8, -6, 4, 8} with
// NanOnly/AllOnes, semFloat8E5M2 {15, -14, 3, 8} IEEE-like; bias = 1 -
// minExponent) and MLIR's builtin types f8E4M3FNUZ etc. define them:
//  - f8e4m3fnuz: E4 M3, bias 8, no infinities, no negative zero, the one NaN
//    is 0x80; max 0x7f = 240, min subnormal 2^-10. AMD "FNUZ" fp8 of gfx942
//    (v_cvt_*_fp8_*, v_mfma_*_fp8_*); Graphcore/AMD/Qualcomm, "8-bit
//    Numerical Formats for Deep Neural Networks", arXiv:2206.02915; StableHLO
//    RFC "Float8E4M3FNUZ and Float8E5M2FNUZ" (openxla/stablehlo #1342).
//  - f8e5m2fnuz: E5 M2, bias 16, no infinities, no negative zero, NaN 0x80;
//    max 0x7f = 57344, min subnormal 2^-17. AMD "FNUZ" bf8 of gfx942.
//  - f8e4m3fn: OCP OFP8 E4M3 (OCP 8-bit Floating Point Specification rev.
//    1.0, 2023-12-01, tables 1-2): bias 7, no infinities, NaN S.1111.111
//    (0x7f, 0xff), max S.1111.110 = 448, min subnormal 2^-9; signed zeros.
//    The fp8 of gfx950 (CDNA4).
//  - f8e5m2: OCP OFP8 E5M2: bias 15, IEEE-like: infinities S.11111.00, NaNs
//    S.11111.{01,10,11}, max S.11110.11 = 57344, min subnormal 2^-16; signed
//    zeros. The bf8 of gfx950.
// (CK's ck_tile/core/numeric/float8.hpp tabulates the same four.)
enum class ElemType { kF16, kBF16, kF32, kI32, kF8E4M3FNUZ, kF8E5M2FNUZ, kF8E4M3FN, kF8E5M2 };

// Size of one element in bytes (1 for the fp8 types, 2 for f16/bf16, 4 for
// f32/i32).
int ElemBytes(ElemType t);
// True for the four 8-bit float types.
bool IsFp8(ElemType t);
// KIR spelling: "f16", "bf16", "f32", "i32", "f8e4m3fnuz", "f8e5m2fnuz",
// "f8e4m3fn", "f8e5m2".
std::string_view ElemTypeName(ElemType t);
// Inverse of ElemTypeName; nullopt for anything else.
std::optional<ElemType> ParseElemType(std::string_view s);

// The type of an SSA value: `width` elements of `elem` (1, 2, 4, 8 or 16;
// fp8 also 32, the 32 fp8 per lane of gfx950's f8f6f4 MFMAs).
// Elements are packed little-endian into 32-bit registers: element e of an
// 8-bit type sits in dword e/4, bits 8*(e%4); of a 16-bit type in dword e/2,
// bits 16*(e%2); of a 32-bit type in dword e.
struct ValueType {
  ElemType elem = ElemType::kF32;
  int width = 1;

  // Bytes the value occupies (width * ElemBytes(elem)).
  int Bytes() const { return width * ElemBytes(elem); }
  // 32-bit registers the value occupies (Bytes() rounded up to 4, over 4).
  int Dwords() const { return (Bytes() + 3) / 4; }
  friend bool operator==(const ValueType&, const ValueType&) = default;
};

// KIR spelling: "f32" for width 1, "f16x4" otherwise.
std::string ValueTypeName(ValueType t);
// Inverse of ValueTypeName; nullopt if the element type is unknown or the width is
// not legal for it (IsLegalWidthFor).
std::optional<ValueType> ParseValueType(std::string_view s);

// True for the eight element types (guards enums built outside the parser).
bool IsValidElemType(ElemType t);

// True for the widths KIR allows for every type: 1, 2, 4, 8, 16.
bool IsLegalWidth(int64_t width);
// The widths KIR allows for `elem`: IsLegalWidth, and 32 for the fp8 types.
bool IsLegalWidthFor(ElemType elem, int64_t width);
// "1, 2, 4, 8 or 16" (fp8: "1, 2, 4, 8, 16 or 32"), for error messages.
std::string_view LegalWidthsText(ElemType elem);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_TYPES_H_
