// Floating-point helpers with the rounding the emulator models: IEEE
// round-to-nearest-even into f32 and f16, exact conversions out of f16/bf16,
// and single rounding of a value held as an unevaluated sum hi + lo of two
// doubles (so fused operations round once, not twice).
#ifndef KIRC_HW_EMU_FLOAT_MATH_H_
#define KIRC_HW_EMU_FLOAT_MATH_H_

#include <cstdint>

#include "compiler/isa/semantics.h"

namespace kir::emu {

float F32(uint32_t bits);
uint32_t Bits(float f);
double F16ToDouble(uint16_t h);   // exact (denormals kept)
double Bf16ToDouble(uint16_t h);  // exact
// f16 bits of hi + lo rounded once to nearest even (lo is the exact residual
// of hi, |lo| <= ulp(hi)/2; pass 0 when hi is exact). NaN -> 0x7e00 with the sign.
uint16_t RoundToF16(double hi, double lo = 0.0);
// The f16 of a NaN: its sign, the quiet bit and the top 9 bits of its
// payload (a double made from an f16 or f32 NaN keeps the payload). In IEEE
// mode (kirc's and LLVM's compute default) the hardware quiets a signalling
// NaN and propagates an input NaN's payload, the first NaN source in operand
// order (hw/rocjitsu/SEMANTICS.md, "f16 NaN payloads": LLVM PR #214608,
// measurements on gfx950); every f16 result and conversion goes through it.
uint16_t NaNToF16(double nan);
// The first NaN of x[0 .. n) in operand order into *nan; false if none.
bool FirstNaN(const double* x, int n, double* nan);
// f32 of hi + lo rounded once to nearest even (same contract).
float RoundToF32(double hi, double lo = 0.0);
// a * b + c for f16/f32-representable doubles, rounded once: the product is
// exact in double (<= 48 significant bits) and the sum is carried as hi + lo.
uint16_t FmaToF16(double a, double b, double c);
float FmaToF32(double a, double b, double c);
// f16 bits of x (a double: an f32 value, or any exact result) rounded by
// MODE round mode r (semantics.h FpRound): nearest even is RoundToF16; a
// directed mode truncates the magnitude toward zero and steps it one f16
// away from zero when the discarded part is nonzero and the mode rounds away
// on x's side (+inf for x > 0, -inf for x < 0). Beyond 65504: toward zero,
// or away from the infinity, 65504; toward it, the infinity (IEEE 754-2008
// 4.3.2 and 7.4). NaN as RoundToF16.
uint16_t RoundToF16Mode(double x, FpRound r);
// f16 bits of f rounded toward zero (v_cvt_pkrtz_f16_f32): the same routine
// as RoundToF16Mode(f, kTowardZero); NaN as RoundToF16.
uint16_t F32ToF16Rtz(float f);
// FP32 denormal handling by the MODE of the kernel descriptor
// (.amdhsa_float_denorm_mode_32: 0 flush in+out, 1 flush out, 2 flush in, 3 none).
float FlushIn(float f, int mode);
float FlushOut(float f, int mode);
bool IsDenormal(float f);

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_FLOAT_MATH_H_
