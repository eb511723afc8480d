// Floating-point helpers with the rounding the emulator models: IEEE
// round-to-nearest-even into f32 and f16, exact conversions out of f16/bf16,
// and single rounding of a value held as an unevaluated sum hi + lo of two
// doubles (so fused operations round once, not twice).
#ifndef KIRC_HW_EMU_FLOAT_MATH_H_
#define KIRC_HW_EMU_FLOAT_MATH_H_

#include <cstdint>

namespace kir::emu {

float F32(uint32_t bits);
uint32_t Bits(float f);
double F16ToDouble(uint16_t h);   // exact (denormals kept)
double Bf16ToDouble(uint16_t h);  // exact
// f16 bits of hi + lo rounded once to nearest even (lo is the exact residual
// of hi, |lo| <= ulp(hi)/2; pass 0 when hi is exact). NaN -> 0x7e00 with the sign.
uint16_t RoundToF16(double hi, double lo = 0.0);
// f32 of hi + lo rounded once to nearest even (same contract).
float RoundToF32(double hi, double lo = 0.0);
// a * b + c for f16/f32-representable doubles, rounded once: the product is
// exact in double (<= 48 significant bits) and the sum is carried as hi + lo.
uint16_t FmaToF16(double a, double b, double c);
float FmaToF32(double a, double b, double c);
// f16 bits of f rounded toward zero (v_cvt_pkrtz_f16_f32).
uint16_t F32ToF16Rtz(float f);
// FP32 denormal handling by the MODE of the kernel descriptor
// (.amdhsa_float_denorm_mode_32: 0 flush in+out, 1 flush out, 2 flush in, 3 none).
float FlushIn(float f, int mode);
float FlushOut(float f, int mode);
bool IsDenormal(float f);

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_FLOAT_MATH_H_
