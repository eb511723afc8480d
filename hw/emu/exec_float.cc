// VALU floating-point instructions. Model (see docs/run.md "Float modes set at run time"):
//  - f32 arithmetic is IEEE binary32 with round-to-nearest-even (the host's),
//    fma fused (one rounding); FP32 denormals follow the descriptor's
//    float_denorm_mode_32 (kirc and clang set 3: kept).
//  - f16 results (v_pk_*_f16, v_*_f16, v_cvt_f16_f32, v_fma_mix*) are computed
//    exactly in double and rounded once to f16, nearest-even; f16 denormals kept.
//  - v_rcp/v_rsq/v_sqrt/v_exp/v_log use the host's correctly rounded (or
//    libm) results; the hardware's are approximate (about 1 ulp).
//  - The wave's MODE (Wave::mode: the descriptor's FLOAT_MODE, then
//    s_setreg's) gives the FP32 denormal mode and the round modes. A
//    non-default round mode is modelled for the instructions RoundUseOf
//    names (f32 add/sub/mul/fma by the single-precision field, v_cvt_f16_f32
//    by the double/half one); another float instruction that rounds is
//    refused under a non-default mode, by name.
#include <cfenv>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/ir/float_bits.h"
#include "hw/emu/exec.h"
#include "hw/emu/float_math.h"

namespace kir::emu {
namespace {

float Clamp01(float f) {
  if (std::isnan(f)) return 0.0f;
  return f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
}

struct Vop {
  Wave& w;
  const Inst& in;
  int mode;  // FP32 denormal mode
  uint64_t exec;
  const MInst& mi() const { return in.mi; }

  const MOperand& Vdst() const { return OperandOr0(in.mi, OpName::kVdst); }
  uint32_t* Dst(int dword = 0) { return w.Row(Vdst().cls, Vdst().reg + dword); }
  // Source operand i: src0..src2.
  const MOperand& Src(int i) const { return OperandOr0(in.mi, SrcName(i)); }
  // Source i (0-based after the defs) of a 32-bit float operand.
  float F(const VSrc& s, int i, int lane, bool f16 = false) const {
    uint32_t raw = s[lane];
    if (in.mods.sdwa && i < 2) raw = SdwaSource(raw, in.mods.src_sel[i], false);
    float f;
    if (f16) {
      uint16_t h = static_cast<uint16_t>((in.mods.op_sel >> i & 1) && !in.mods.sdwa ? raw >> 16 : raw);
      f = static_cast<float>(F16ToDouble(h));
    } else {
      f = FlushIn(F32(raw), mode);
    }
    if (in.mods.abs >> i & 1) f = std::fabs(f);
    if (in.mods.neg >> i & 1) f = -f;
    return f;
  }
  float Out(float f) const {
    switch (in.mods.omod) {
      case 1: f *= 2.0f; break;
      case 2: f *= 4.0f; break;
      case 3: f *= 0.5f; break;
      default: break;
    }
    f = FlushOut(f, mode);
    return in.mods.clamp ? Clamp01(f) : f;
  }
  void Put(uint32_t* d, int lane, uint32_t v) const {
    d[lane] = in.mods.sdwa ? SdwaDest(d[lane], v, in.mods.dst_sel, in.mods.dst_unused) : v;
  }
};

bool Active(uint64_t exec, int l) { return exec >> l & 1; }

absl::Status Need(const Inst& in, size_t n) {
  absl::Status s = Arity(in, n);
  if (!s.ok()) return s;
  const MOperand& d = OperandOr0(in.mi, OpName::kVdst);
  if (!(d.IsReg() && d.cls != RegClass::kSgpr))
    return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": destination must be a VGPR"));
  return absl::OkStatus();
}

// f32 = op(f32, f32) and friends.
absl::Status Binary32(Vop& v, float (*op)(float, float)) {
  absl::Status st = Need(v.in, 3);
  if (!st.ok()) return st;
  VSrc a = ReadVSrc(v.w, v.Src(0), OpType::kF32, 0), b = ReadVSrc(v.w, v.Src(1), OpType::kF32, 0);
  uint32_t* d = v.Dst();
  for (int l = 0; l < kLanes; ++l)
    if (Active(v.exec, l)) v.Put(d, l, Bits(v.Out(op(v.F(a, 0, l), v.F(b, 1, l)))));
  return absl::OkStatus();
}

absl::Status Unary32(Vop& v, float (*op)(float), bool f16_in = false) {
  absl::Status st = Need(v.in, 2);
  if (!st.ok()) return st;
  VSrc a = ReadVSrc(v.w, v.Src(0), f16_in ? OpType::kF16 : OpType::kF32, 0);
  uint32_t* d = v.Dst();
  for (int l = 0; l < kLanes; ++l)
    if (Active(v.exec, l)) v.Put(d, l, Bits(v.Out(op(v.F(a, 0, l, f16_in)))));
  return absl::OkStatus();
}

// 16-bit results in the low half; the high half is zeroed (gfx9). A NaN
// source gives its own NaN (NaNToF16, the first in operand order) rather
// than whatever the host's arithmetic picks (min/max: MinMaxF16).
absl::Status ToF16(Vop& v, int nsrc, bool f16_src, uint16_t (*op)(const float*)) {
  absl::Status st = Need(v.in, 1 + nsrc);
  if (!st.ok()) return st;
  std::vector<VSrc> s;
  for (int i = 0; i < nsrc; ++i)
    s.push_back(ReadVSrc(v.w, v.Src(i), f16_src ? OpType::kF16 : OpType::kF32, 0));
  uint32_t* d = v.Dst();
  float x[3];
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    double xd[3], nan;
    for (int i = 0; i < nsrc; ++i) xd[i] = x[i] = v.F(s[i], i, l, f16_src);
    uint16_t h = FirstNaN(xd, nsrc, &nan) ? NaNToF16(nan) : op(x);
    if (v.in.mods.clamp) h = RoundToF16(Clamp01(static_cast<float>(F16ToDouble(h))));
    v.Put(d, l, h);
  }
  return absl::OkStatus();
}

// v_pk_*_f16: two f16 lanes; op_sel/op_sel_hi pick each source's half, neg_lo/neg_hi negate.
absl::Status PackedF16(Vop& v, int nsrc, uint16_t (*op)(const double*)) {
  absl::Status st = Need(v.in, 1 + nsrc);
  if (!st.ok()) return st;
  std::vector<VSrc> s;
  for (int i = 0; i < nsrc; ++i) {
    const MOperand& o = v.Src(i);
    VSrc src = ReadVSrc(v.w, o, OpType::kF16, 0);
    // A constant feeds both halves (UNVERIFIED for packed inline constants).
    if (src.row == nullptr && o.kind == MOperand::Kind::kImm) src.uni = (src.uni & 0xffff) * 0x10001u;
    s.push_back(src);
  }
  const Mods& m = v.in.mods;
  uint32_t* d = v.Dst();
  double x[3];
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint32_t r = 0;
    for (int half = 0; half < 2; ++half) {
      for (int i = 0; i < nsrc; ++i) {
        bool hi = ((half == 0 ? m.op_sel : m.op_sel_hi) >> i) & 1;
        uint16_t h = static_cast<uint16_t>(hi ? s[i][l] >> 16 : s[i][l]);
        if (((half == 0 ? m.neg_lo : m.neg_hi) >> i) & 1) h ^= 0x8000;
        x[i] = F16ToDouble(h);
      }
      double nan;
      uint16_t y = FirstNaN(x, nsrc, &nan) ? NaNToF16(nan) : op(x);
      if (m.clamp) y = RoundToF16(Clamp01(static_cast<float>(F16ToDouble(y))));
      r |= static_cast<uint32_t>(y) << (16 * half);
    }
    d[l] = r;
  }
  return absl::OkStatus();
}

// v_pk_*_f32: two f32 lanes from 64-bit sources.
absl::Status PackedF32(Vop& v, int nsrc, float (*op)(const float*)) {
  absl::Status st = Need(v.in, 1 + nsrc);
  if (!st.ok()) return st;
  if (v.Vdst().count != 2) return absl::InvalidArgumentError(absl::StrCat(Describe(v.in), ": needs a VGPR pair"));
  const Mods& m = v.in.mods;
  VSrc s[3][2];
  for (int i = 0; i < nsrc; ++i) {
    const MOperand& o = v.Src(i);
    for (int dw = 0; dw < 2; ++dw)
      s[i][dw] = o.kind == MOperand::Kind::kImm ? ReadVSrc(v.w, o, OpType::kF32, 0)  // both halves (UNVERIFIED)
                                                : ReadVSrc(v.w, o, OpType::kF32, dw);
  }
  uint32_t* d0 = v.Dst(0);
  uint32_t* d1 = v.Dst(1);
  float x[3];
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    float r[2];
    for (int half = 0; half < 2; ++half) {
      for (int i = 0; i < nsrc; ++i) {
        int dw = ((half == 0 ? m.op_sel : m.op_sel_hi) >> i) & 1;
        float f = FlushIn(F32(s[i][dw][l]), v.mode);
        if (((half == 0 ? m.neg_lo : m.neg_hi) >> i) & 1) f = -f;
        x[i] = f;
      }
      r[half] = v.Out(op(x));
    }
    d0[l] = Bits(r[0]);
    d1[l] = Bits(r[1]);
  }
  return absl::OkStatus();
}

// v_fma_mix*: source i is f16 (half op_sel[i]) when op_sel_hi[i], else f32.
absl::Status FmaMix(Vop& v) {
  absl::Status st = Need(v.in, 4);
  if (!st.ok()) return st;
  const Mods& m = v.in.mods;
  VSrc s[3];
  for (int i = 0; i < 3; ++i) {
    bool f16 = (m.op_sel_hi >> i) & 1;
    s[i] = ReadVSrc(v.w, v.Src(i), f16 ? OpType::kF16 : OpType::kF32, 0);
  }
  uint32_t* d = v.Dst();
  const Opc opc = v.mi().opc;
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    double x[3];
    for (int i = 0; i < 3; ++i) {
      uint32_t raw = s[i][l];
      if ((m.op_sel_hi >> i) & 1) {
        x[i] = F16ToDouble(static_cast<uint16_t>((m.op_sel >> i) & 1 ? raw >> 16 : raw));
      } else {
        x[i] = FlushIn(F32(raw), v.mode);
      }
      if ((m.abs >> i) & 1) x[i] = std::fabs(x[i]);
      if ((m.neg >> i) & 1) x[i] = -x[i];
    }
    double nan;
    const bool has_nan = FirstNaN(x, 3, &nan);
    if (opc == Opc::kVFmaMixF32) {
      d[l] = Bits(v.Out(has_nan ? static_cast<float>(nan) : FmaToF32(x[0], x[1], x[2])));
    } else {
      uint16_t h = has_nan ? NaNToF16(nan) : FmaToF16(x[0], x[1], x[2]);
      if (m.clamp) h = RoundToF16(Clamp01(static_cast<float>(F16ToDouble(h))));
      d[l] = opc == Opc::kVFmaMixloF16 ? (d[l] & 0xffff0000u) | h : (d[l] & 0xffffu) | (static_cast<uint32_t>(h) << 16);
    }
  }
  return absl::OkStatus();
}

absl::Status CompareF32(Vop& v) {
  if (v.mi().ops.size() != 3) return Arity(v.in, 3);
  VSrc a = ReadVSrc(v.w, v.Src(0), OpType::kF32, 0), b = ReadVSrc(v.w, v.Src(1), OpType::kF32, 0);
  uint64_t mask = 0;
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    float x = v.F(a, 0, l), y = v.F(b, 1, l);
    bool un = std::isnan(x) || std::isnan(y), r = false;
    switch (v.mi().opc) {
      case Opc::kVCmpEqF32: r = x == y; break;
      case Opc::kVCmpLtF32: r = x < y; break;
      case Opc::kVCmpLeF32: r = x <= y; break;
      case Opc::kVCmpGtF32: r = x > y; break;
      case Opc::kVCmpGeF32: r = x >= y; break;
      case Opc::kVCmpLgF32: r = !un && x != y; break;
      case Opc::kVCmpNeqF32: r = !(x == y); break;
      case Opc::kVCmpOF32: r = !un; break;
      case Opc::kVCmpUF32: r = un; break;
      case Opc::kVCmpNltF32: r = !(x < y); break;
      case Opc::kVCmpNgtF32: r = !(x > y); break;
      case Opc::kVCmpNleF32: r = !(x <= y); break;
      case Opc::kVCmpNgeF32: r = !(x >= y); break;
      default: return Unsupported(v.in, "this compare");
    }
    if (r) mask |= uint64_t{1} << l;
  }
  WriteMask(v.w, OperandOr0(v.mi(), OpName::kSdst), mask);
  return absl::OkStatus();
}

uint32_t CvtU32(float f) {
  if (std::isnan(f) || f <= 0.0f) return 0;
  if (f >= 4294967296.0f) return 0xffffffffu;
  return static_cast<uint32_t>(f);
}
// IEEE mode: a NaN source gives itself, quieted, the first NaN in operand
// order, not whichever operand the host's arithmetic picks (measured for
// packed f16 on gfx950: hw/rocjitsu/SEMANTICS.md, "f16 NaN payloads").
float QuietNaN(float f) { return F32(Bits(f) | 0x00400000u); }
float NaNFirst(float a, float b, float r) { return std::isnan(a) ? QuietNaN(a) : std::isnan(b) ? QuietNaN(b) : r; }
float NaNFirst3(float a, float b, float c, float r) { return std::isnan(a) ? QuietNaN(a) : NaNFirst(b, c, r); }

uint32_t CvtI32(float f) {
  if (std::isnan(f)) return 0;
  if (f >= 2147483648.0f) return 0x7fffffffu;
  if (f <= -2147483648.0f) return 0x80000000u;
  return static_cast<uint32_t>(static_cast<int32_t>(f));
}

// The fp8 format of fp8 conversion `in` on the target (semantics.h
// Fp8CvtFormat), or an error naming the target.
absl::StatusOr<ElemType> Fp8Format(const ExecContext& c, const Inst& in) {
  std::optional<ElemType> e = Fp8CvtFormat(c.target, in.mi.opc);
  if (!e)
    return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": ", c.target.name,
                                                   " has no fp8 conversion instructions (",
                                                   Fp8ElemTypesText(c.target), ")"));
  return *e;
}

// v_cvt_pk_{fp8,bf8}_f32 (and the word-1 *Hi forms): two f32 -> two fp8
// bytes in one word of vdst, the other word kept (semantics.h).
absl::Status CvtPkToFp8(const ExecContext& c, Vop& v) {
  absl::Status st = Need(v.in, 3);
  if (!st.ok()) return st;
  absl::StatusOr<ElemType> fmt = Fp8Format(c, v.in);
  if (!fmt.ok()) return fmt.status();
  if (v.in.mods.clamp || v.in.mods.omod || v.in.mods.sdwa)
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(v.in), ": clamp, output modifiers and SDWA on an fp8 conversion are not emulated"));
  const bool hi = v.mi().opc == Opc::kVCvtPkFp8F32Hi || v.mi().opc == Opc::kVCvtPkBf8F32Hi;
  VSrc a = ReadVSrc(v.w, v.Src(0), OpType::kF32, 0), b = ReadVSrc(v.w, v.Src(1), OpType::kF32, 0);
  uint32_t* d = v.Dst();
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint8_t bytes[2];
    for (int i = 0; i < 2; ++i) {
      float x = v.F(i == 0 ? a : b, i, l);
      std::optional<uint8_t> r = Fp8CvtFromF32(*fmt, x);
      if (!r && std::isinf(x))  // review 21 F6: an infinity is no magnitude beyond the range (f8e5m2 has them)
        return absl::InvalidArgumentError(absl::StrCat(
            Describe(v.in), ": lane ", l, " converts ", absl::StrFormat("%.9g", x), " to ",
            std::string(ElemTypeName(*fmt)),
            ": the instruction's result for an infinite input is not documented (no clamp bit on ", c.target.name,
            "; compiler/isa/semantics.h), so the emulator refuses it; clamp the value first"));
      if (!r)
        return absl::InvalidArgumentError(absl::StrCat(
            Describe(v.in), ": lane ", l, " converts ", absl::StrFormat("%.9g", x), " to ",
            std::string(ElemTypeName(*fmt)), ", outside the format's range (|x| > ",
            Fp8FormatOf(*fmt)->max,
            "): the hardware's result there is not known (no clamp bit on ", c.target.name,
            "; compiler/isa/semantics.h), so the emulator refuses it; clamp the value first"));
      bytes[i] = *r;
    }
    d[l] = Fp8CvtPkMerge(d[l], bytes[0], bytes[1], hi);
  }
  return absl::OkStatus();
}

// v_cvt_f32_{fp8,bf8} (byte 0, or the SDWA source select) and
// v_cvt_pk_f32_{fp8,bf8} (bytes 0 and 1, or those of the SDWA WORD_n
// select, into a VGPR pair): exact.
absl::Status CvtFromFp8(const ExecContext& c, Vop& v, bool pk) {
  absl::Status st = Need(v.in, 2);
  if (!st.ok()) return st;
  absl::StatusOr<ElemType> fmt = Fp8Format(c, v.in);
  if (!fmt.ok()) return fmt.status();
  if (v.in.mods.neg || v.in.mods.abs || v.in.mods.src_sext[0] ||
      (v.in.mods.sdwa && v.in.mods.dst_sel != SdwaSel::kDword))
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(v.in), ": source modifiers, sext() and SDWA destination selects on an fp8 conversion are not "
                        "emulated"));
  // The packed form converts bytes 0 and 1 of the selected part (semantics.h).
  if (pk && v.in.mods.sdwa && !Fp8CvtPkSelectModelled(v.in.mods.src_sel[0]))
    return absl::InvalidArgumentError(absl::StrCat(
        Describe(v.in), ": SDWA src0_sel BYTE_n on the packed fp8 conversion is not emulated (only WORD_0 and "
                        "WORD_1, the selects LLVM emits for the intrinsic's word_sel)"));
  if (pk && v.Vdst().count != 2)
    return absl::InvalidArgumentError(absl::StrCat(Describe(v.in), ": the destination must be a VGPR pair"));
  VSrc a = ReadVSrc(v.w, v.Src(0), OpType::kB32, 0);
  uint32_t* d0 = v.Dst(0);
  uint32_t* d1 = pk ? v.Dst(1) : nullptr;
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint32_t raw = a[l];
    if (v.in.mods.sdwa) raw = SdwaSource(raw, v.in.mods.src_sel[0], false);
    d0[l] = Bits(v.Out(Fp8BitsToF32(*fmt, static_cast<uint8_t>(raw))));
    if (pk) d1[l] = Bits(v.Out(Fp8BitsToF32(*fmt, static_cast<uint8_t>(raw >> 8))));
  }
  return absl::OkStatus();
}

// v_min3/v_max3/v_med3_f32: the IEEE-mode selects of semantics.h on the
// sources after neg/abs (and the FP32 input denormal mode), then omod and
// clamp as any f32 result.
absl::Status Three32(Vop& v) {
  absl::Status st = Need(v.in, 4);
  if (!st.ok()) return st;
  VSrc s[3];
  for (int i = 0; i < 3; ++i) s[i] = ReadVSrc(v.w, v.Src(i), OpType::kF32, 0);
  const Opc opc = v.mi().opc;
  uint32_t* d = v.Dst();
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint32_t x[3];
    for (int i = 0; i < 3; ++i) x[i] = Bits(v.F(s[i], i, l));
    const FloatBitsFormat f = FloatBitsFormat::kF32;
    const uint32_t r = opc == Opc::kVMin3F32   ? Min3Bits(f, x[0], x[1], x[2])
                       : opc == Opc::kVMax3F32 ? Max3Bits(f, x[0], x[1], x[2])
                                               : Med3Bits(f, x[0], x[1], x[2]);
    d[l] = Bits(v.Out(F32(r)));
  }
  return absl::OkStatus();
}

// v_min3/v_max3/v_med3_f16: the same selects on f16 bits (op_sel[i] picks
// source i's high half; neg/abs flip/clear the sign bit), the result in the
// low half, the high half zeroed (as ToF16), clamp to [0, 1] after.
absl::Status Three16(Vop& v) {
  absl::Status st = Need(v.in, 4);
  if (!st.ok()) return st;
  const Mods& m = v.in.mods;
  if (m.omod || (m.op_sel & 8))
    return Unsupported(v.in, "an output modifier (mul:/div:) or op_sel[3] (writing the high half) on an f16 "
                             "min3/max3/med3");
  VSrc s[3];
  for (int i = 0; i < 3; ++i) s[i] = ReadVSrc(v.w, v.Src(i), OpType::kF16, 0);
  const Opc opc = v.mi().opc;
  uint32_t* d = v.Dst();
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint32_t x[3];
    for (int i = 0; i < 3; ++i) {
      uint32_t h = ((m.op_sel >> i) & 1 ? s[i][l] >> 16 : s[i][l]) & 0xffffu;
      if ((m.abs >> i) & 1) h &= 0x7fffu;
      if ((m.neg >> i) & 1) h ^= 0x8000u;
      x[i] = h;
    }
    const FloatBitsFormat f = FloatBitsFormat::kF16;
    uint32_t r = opc == Opc::kVMin3F16   ? Min3Bits(f, x[0], x[1], x[2])
                 : opc == Opc::kVMax3F16 ? Max3Bits(f, x[0], x[1], x[2])
                                         : Med3Bits(f, x[0], x[1], x[2]);
    if (m.clamp) r = RoundToF16(Clamp01(static_cast<float>(F16ToDouble(static_cast<uint16_t>(r)))));
    d[l] = r;
  }
  return absl::OkStatus();
}

// v_max_f16 / v_min_f16 (VOP2, VOP3 or SDWA): IeeeMinMaxBits on the f16
// bits, so a signalling NaN stays recognisable (F16ToDouble quiets it). A
// source is its SDWA select or op_sel half, then abs and neg flip the sign
// bit; the result goes to the low half (the high half zeroed, as ToF16) or
// the SDWA destination; clamp to [0, 1] after. An output modifier and a
// VOP3 op_sel destination bit are refused (as Three16).
absl::Status MinMaxF16(Vop& v, bool max) {
  absl::Status st = Need(v.in, 3);
  if (!st.ok()) return st;
  const Mods& m = v.in.mods;
  if (m.omod || (!m.sdwa && (m.op_sel & 4)))
    return Unsupported(v.in, "an output modifier (mul:/div:) or op_sel[2] (writing the high half) on an f16 "
                             "min/max");
  VSrc s[2] = {ReadVSrc(v.w, v.Src(0), OpType::kF16, 0), ReadVSrc(v.w, v.Src(1), OpType::kF16, 0)};
  uint32_t* d = v.Dst();
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint32_t x[2];
    for (int i = 0; i < 2; ++i) {
      uint32_t raw = s[i][l];
      if (m.sdwa) raw = SdwaSource(raw, m.src_sel[i], false);
      else if ((m.op_sel >> i) & 1) raw >>= 16;
      uint32_t h = raw & 0xffffu;
      if ((m.abs >> i) & 1) h &= 0x7fffu;
      if ((m.neg >> i) & 1) h ^= 0x8000u;
      x[i] = h;
    }
    uint32_t r = IeeeMinMaxBits(FloatBitsFormat::kF16, x[0], x[1], max);
    if (m.clamp) r = RoundToF16(Clamp01(static_cast<float>(F16ToDouble(static_cast<uint16_t>(r)))));
    v.Put(d, l, r);
  }
  return absl::OkStatus();
}

// v_pk_max_f16 / v_pk_min_f16: IeeeMinMaxBits per half, the halves picked by
// op_sel (low result) and op_sel_hi (high result), neg_lo/neg_hi flipping
// the sign bits, as PackedF16; clamp to [0, 1] after.
absl::Status PackedMinMaxF16(Vop& v, bool max) {
  absl::Status st = Need(v.in, 3);
  if (!st.ok()) return st;
  VSrc s[2];
  for (int i = 0; i < 2; ++i) {
    const MOperand& o = v.Src(i);
    s[i] = ReadVSrc(v.w, o, OpType::kF16, 0);
    // A constant feeds both halves (UNVERIFIED for packed inline constants), as PackedF16.
    if (s[i].row == nullptr && o.kind == MOperand::Kind::kImm) s[i].uni = (s[i].uni & 0xffff) * 0x10001u;
  }
  const Mods& m = v.in.mods;
  uint32_t* d = v.Dst();
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint32_t r = 0;
    for (int half = 0; half < 2; ++half) {
      uint32_t x[2];
      for (int i = 0; i < 2; ++i) {
        const bool hi = ((half == 0 ? m.op_sel : m.op_sel_hi) >> i) & 1;
        x[i] = (hi ? s[i][l] >> 16 : s[i][l]) & 0xffffu;
        if (((half == 0 ? m.neg_lo : m.neg_hi) >> i) & 1) x[i] ^= 0x8000u;
      }
      uint32_t y = IeeeMinMaxBits(FloatBitsFormat::kF16, x[0], x[1], max);
      if (m.clamp) y = RoundToF16(Clamp01(static_cast<float>(F16ToDouble(static_cast<uint16_t>(y)))));
      r |= y << (16 * half);
    }
    d[l] = r;
  }
  return absl::OkStatus();
}

// v_cmp_class_{f32,f16} and v_cmpx_class_*: lane l's bit is CmpClass
// (semantics.h, the verifier's rule too) of src0's bits -- its SDWA select,
// or for f16 the low half, then abs clearing and neg flipping the sign bit --
// and the mask src1. Under an FP32 denormal mode that flushes inputs (0 or
// 2), a denormal f32 source is refused: whether the class is taken before or
// after the flush is not documented in the sources kirc has.
absl::Status CmpClassOp(Vop& v, bool f16) {
  const MInst& mi = v.mi();
  if (mi.ops.size() != 3) return Arity(v.in, 3);
  const Mods& m = v.in.mods;
  if (m.clamp || m.omod || m.op_sel) return Unsupported(v.in, "clamp, an output modifier or op_sel on v_cmp_class");
  VSrc a = ReadVSrc(v.w, v.Src(0), f16 ? OpType::kF16 : OpType::kF32, 0);
  VSrc b = ReadVSrc(v.w, v.Src(1), OpType::kB32, 0);
  const uint32_t sign = f16 ? 0x8000u : 0x80000000u;
  uint64_t mask = 0;
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint32_t x = m.sdwa ? SdwaSource(a[l], m.src_sel[0], false) : a[l];
    uint32_t k = m.sdwa ? SdwaSource(b[l], m.src_sel[1], m.src_sext[1]) : b[l];
    if (f16) x &= 0xffffu;
    if (m.abs & 1) x &= ~sign;
    if (m.neg & 1) x ^= sign;
    if (!f16 && (v.mode & 1) == 0 && IsDenormal(F32(x)))
      return absl::FailedPreconditionError(absl::StrCat(
          Describe(v.in), ": lane ", l, " classifies the f32 denormal 0x", absl::Hex(x),
          " under FP32 denormal mode ", v.mode,
          " (MODE bits 5:4, from the descriptor or s_setreg; 0 and 2 flush inputs): whether the hardware classifies "
          "it as a denormal or as the zero it flushes to is not documented in the sources kirc has, so the "
          "emulator refuses it; keep FP32 denormals (mode 3)"));
    if (CmpClass(U32Domain{}, x, k, f16)) mask |= uint64_t{1} << l;
  }
  WriteMask(v.w, OperandOr0(mi, OpName::kSdst), mask);  // inactive lanes 0
  if (Info(mi.opc).flags & kWritesExec) v.w.SetExec(mask);
  return absl::OkStatus();
}

// v_cmp_class_f64 and v_cmpx_class_f64: lane l's bit is CmpClassF64
// (semantics.h, through EvalWideOp as the verifier runs it) of src0's 64
// bits -- a register pair, or an inline constant as an f64 -- with abs
// clearing and neg flipping bit 63, and the 32-bit mask src1. No SDWA form
// (llvm-mc 22: "sdwa variant of this instruction is not supported"). A
// literal src0 is refused: for an f64 operand it is the high dword (llvm-mc
// folds 0x3ff00000 to 1.0), which the reader does not keep apart from an
// integer literal. Under an FP64 denormal mode that flushes inputs (MODE bits
// 7:6 = 0 or 2) a denormal source is refused, as for f32.
absl::Status CmpClassF64Op(Vop& v) {
  const MInst& mi = v.mi();
  if (mi.ops.size() != 3) return Arity(v.in, 3);
  const Mods& m = v.in.mods;
  if (m.clamp || m.omod || m.op_sel || m.sdwa)
    return Unsupported(v.in, "clamp, an output modifier, op_sel or SDWA on v_cmp_class_f64");
  const MOperand& src0 = OperandOr0(mi, OpName::kSrc0);
  if (src0.kind == MOperand::Kind::kImm && !src0.float_form && (src0.imm < -16 || src0.imm > 64))
    return Unsupported(v.in, absl::StrCat("the literal ", src0.imm,
                                          " as v_cmp_class_f64's f64 source (the literal is its high dword; use "
                                          "an SGPR or VGPR pair)"));
  VSrc a[2] = {ReadVSrc(v.w, src0, OpType::kB64, 0), ReadVSrc(v.w, src0, OpType::kB64, 1)};
  VSrc b = ReadVSrc(v.w, OperandOr0(mi, OpName::kSrc1), OpType::kB32, 0);
  const int dp_denorm = ModeDenormDp(v.w.mode);
  uint64_t mask = 0;
  std::vector<Pair64<uint32_t>> s(2);
  for (int l = 0; l < kLanes; ++l) {
    if (!Active(v.exec, l)) continue;
    uint32_t hi = a[1][l];
    if (m.abs & 1) hi &= 0x7fffffffu;
    if (m.neg & 1) hi ^= 0x80000000u;
    s[0] = {a[0][l], hi};
    s[1] = {b[l], 0};
    const bool denormal = (hi & 0x7ff00000u) == 0 && ((hi & 0xfffffu) | a[0][l]) != 0;
    if (denormal && (dp_denorm & 1) == 0)
      return absl::FailedPreconditionError(absl::StrCat(
          Describe(v.in), ": lane ", l, " classifies the f64 denormal 0x", absl::Hex(hi, absl::kZeroPad8),
          absl::Hex(a[0][l], absl::kZeroPad8), " under FP16/FP64 denormal mode ", dp_denorm,
          " (MODE bits 7:6, from the descriptor or s_setreg; 0 and 2 flush inputs): whether the hardware classifies "
          "it as a denormal or as the zero it flushes to is not documented in the sources kirc has, so the "
          "emulator refuses it; keep FP64 denormals (mode 3)"));
    std::optional<Wide64<uint32_t>> r = EvalWideOp(U32Domain{}, mi.opc, s);
    if (!r) return Unsupported(v.in, "this class test");
    if (r->flag) mask |= uint64_t{1} << l;
  }
  WriteMask(v.w, OperandOr0(mi, OpName::kSdst), mask);  // inactive lanes 0
  if (Info(mi.opc).flags & kWritesExec) v.w.SetExec(mask);
  return absl::OkStatus();
}

// Which MODE round field an instruction's result obeys, as far as the
// emulator models it:
//  kNone: no rounding, or a rounding the instruction fixes itself (moves,
//    compares and classes, min/max/med3, f16 -> f32 and fp8 -> f32
//    conversions, which are exact, floor/ceil/trunc/rndne, whose results are
//    integers, f32 -> integer conversions, which truncate, and
//    v_cvt_pkrtz_f16_f32, round toward zero by definition);
//  kSp: f32 add/sub/mul/fma (v_add, v_sub, v_subrev, v_mul, v_fma, v_fmac,
//    v_mac and v_pk_add/mul/fma_f32), modelled with the host's rounding mode
//    (x86 SSE/AVX arithmetic and glibc's fma honour fesetround);
//  kDp: v_cvt_f16_f32 (RoundToF16Mode; the field: semantics.h MODE notes);
//  kUnknown: any other float instruction -- which field it obeys (the f16
//    arithmetic, bf16 and fp8 conversions: the fp8 ones may ignore MODE and
//    round to nearest even, the available ISA text does not say) or how its
//    approximate result rounds (v_rcp, v_exp, ...) is not modelled.
enum class RoundUse : uint8_t { kNone, kSp, kDp, kUnknown };
RoundUse RoundUseOf(Opc o) {
  switch (o) {
    case Opc::kVAddF32: case Opc::kVSubF32: case Opc::kVSubrevF32: case Opc::kVMulF32:
    case Opc::kVFmaF32: case Opc::kVFmacF32: case Opc::kVMacF32:
    case Opc::kVPkAddF32: case Opc::kVPkMulF32: case Opc::kVPkFmaF32:
      return RoundUse::kSp;
    case Opc::kVCvtF16F32:
      return RoundUse::kDp;
    case Opc::kVMaxF32: case Opc::kVMinF32: case Opc::kVMaxF16: case Opc::kVPkMaxF16:
    case Opc::kVMin3F32: case Opc::kVMax3F32: case Opc::kVMed3F32:
    case Opc::kVMin3F16: case Opc::kVMax3F16: case Opc::kVMed3F16:
    case Opc::kVCmpClassF32: case Opc::kVCmpxClassF32: case Opc::kVCmpClassF16: case Opc::kVCmpxClassF16:
    case Opc::kVCmpClassF64: case Opc::kVCmpxClassF64:
    case Opc::kVCvtF32F16: case Opc::kVPackB32F16: case Opc::kVCvtPkrtzF16F32:
    case Opc::kVCvtF32Fp8: case Opc::kVCvtF32Bf8: case Opc::kVCvtPkF32Fp8: case Opc::kVCvtPkF32Bf8:
    case Opc::kVFloorF32: case Opc::kVCeilF32: case Opc::kVTruncF32: case Opc::kVRndneF32:
    case Opc::kVCvtU32F32: case Opc::kVCvtI32F32:
      return RoundUse::kNone;
    default:
      break;
  }
  if (o >= Opc::kVCmpEqF32 && o <= Opc::kVCmpNgeF32) return RoundUse::kNone;
  if (o == Opc::kVCmpUF32) return RoundUse::kNone;
  const uint32_t f = Info(o).flags;
  if ((f & (kFloatOperands | kF16Operands | kF16Values)) || o == Opc::kVCvtF32U32 || o == Opc::kVCvtF32I32 ||
      o == Opc::kVMfma)
    return RoundUse::kUnknown;
  return RoundUse::kNone;  // integer and bit instructions
}

// Saves the host's rounding mode, sets MODE's, and restores it on exit.
class HostRounding {
 public:
  explicit HostRounding(FpRound r) : saved_(std::fegetround()) {
    std::fesetround(r == FpRound::kTowardZero     ? FE_TOWARDZERO
                    : r == FpRound::kTowardPosInf ? FE_UPWARD
                    : r == FpRound::kTowardNegInf ? FE_DOWNWARD
                                                  : FE_TONEAREST);
  }
  ~HostRounding() { std::fesetround(saved_); }
  HostRounding(const HostRounding&) = delete;
  HostRounding& operator=(const HostRounding&) = delete;

 private:
  int saved_;
};

}  // namespace

absl::Status CheckFloatMode(const Wave& w, const Inst& in) {
  const Opc opc = in.mi.opc;
  if ((Info(opc).flags & kF16Values) && ModeDenormDp(w.mode) != 3)
    return absl::FailedPreconditionError(absl::StrCat(
        Describe(in), ": MODE's FP16/FP64 denormal mode (bits 7:6, set by s_setreg or the kernel descriptor) is ",
        ModeDenormDp(w.mode), ", and the emulator models f16 arithmetic with denormals kept (mode 3) only"));
  const FpRound sp = ModeRoundSp(w.mode), dp = ModeRoundDp(w.mode);
  if (sp == FpRound::kNearestEven && dp == FpRound::kNearestEven) return absl::OkStatus();
  if (RoundUseOf(opc) != RoundUse::kUnknown) return absl::OkStatus();  // modelled, or no rounding
  return absl::FailedPreconditionError(absl::StrCat(
      Describe(in), " (pc ", w.pc, "): MODE's round fields are ", FpRoundName(sp), " (single precision, bits 1:0) and ",
      FpRoundName(dp), " (double/half precision, bits 3:2), set by s_setreg or the kernel descriptor; under a "
      "round mode other than nearest even the emulator models only v_add/v_sub/v_subrev/v_mul/v_fma/v_fmac/v_mac_f32 "
      "and v_pk_add/mul/fma_f32 (single-precision field) and v_cvt_f16_f32 (double/half field), and does not know "
      "which field ", Info(opc).mnemonic, " obeys or how it rounds there, so it refuses the code rather than round "
      "to nearest even; restore round to nearest even (s_setreg of MODE bits 3:0 = 0) before it"));
}

absl::Status ExecFloat(ExecContext& c, Wave& w, const Inst& in, bool* handled) {
  *handled = true;
  if (absl::Status st = CheckFloatMode(w, in); !st.ok()) return st;
  Vop v{w, in, ModeDenormSp(w.mode), w.Exec()};
  const MInst& mi = in.mi;
  // The single-precision round mode for the instructions that model it
  // (RoundUseOf kSp), for this instruction only.
  std::optional<HostRounding> rounding;
  if (ModeRoundSp(w.mode) != FpRound::kNearestEven && RoundUseOf(mi.opc) == RoundUse::kSp)
    rounding.emplace(ModeRoundSp(w.mode));
  switch (mi.opc) {
    case Opc::kVCmpClassF32:
    case Opc::kVCmpxClassF32:
      return CmpClassOp(v, false);
    case Opc::kVCmpClassF16:
    case Opc::kVCmpxClassF16:
      return CmpClassOp(v, true);
    case Opc::kVCmpClassF64:
    case Opc::kVCmpxClassF64:
      return CmpClassF64Op(v);
    case Opc::kVAddF32: return Binary32(v, [](float a, float b) { return NaNFirst(a, b, a + b); });
    case Opc::kVSubF32: return Binary32(v, [](float a, float b) { return NaNFirst(a, b, a - b); });
    case Opc::kVSubrevF32: return Binary32(v, [](float a, float b) { return NaNFirst(a, b, b - a); });
    case Opc::kVMulF32: return Binary32(v, [](float a, float b) { return NaNFirst(a, b, a * b); });
    // IEEE-mode min/max (semantics.h IeeeMinMaxBits, where the ISA text is
    // cited): a signalling NaN gives itself quieted, -0 < +0; std::fmin and
    // std::fmax returned the other operand for a signalling NaN and either
    // zero. The sources are host floats after neg/abs and the FP32 input
    // denormal mode (x86-64 copies keep a signalling NaN's bits).
    case Opc::kVMaxF32:
      return Binary32(v, [](float a, float b) {
        return F32(IeeeMinMaxBits(FloatBitsFormat::kF32, Bits(a), Bits(b), true));
      });
    case Opc::kVMinF32:
      return Binary32(v, [](float a, float b) {
        return F32(IeeeMinMaxBits(FloatBitsFormat::kF32, Bits(a), Bits(b), false));
      });
    case Opc::kVFmaF32:
    case Opc::kVFmacF32:
    case Opc::kVMacF32: {
      const bool acc = mi.opc != Opc::kVFmaF32;
      absl::Status st = Need(in, acc ? 3 : 4);
      if (!st.ok()) return st;
      VSrc a = ReadVSrc(w, v.Src(0), OpType::kF32, 0), b = ReadVSrc(w, v.Src(1), OpType::kF32, 0);
      // v_fmac/v_mac accumulate into vdst (a tied read), v_fma reads src2.
      VSrc cc = ReadVSrc(w, acc ? v.Vdst() : v.Src(2), OpType::kF32, 0);
      uint32_t* d = v.Dst();
      for (int l = 0; l < kLanes; ++l) {
        if (!Active(v.exec, l)) continue;
        float x = v.F(a, 0, l), y = v.F(b, 1, l), z = acc ? FlushIn(F32(cc[l]), v.mode) : v.F(cc, 2, l);
        // v_mac_f32 is not fused: the product is rounded first.
        float r = NaNFirst3(x, y, z, mi.opc == Opc::kVMacF32 ? FlushIn(x * y, v.mode) + z : std::fma(x, y, z));
        d[l] = Bits(v.Out(r));
      }
      return absl::OkStatus();
    }
    case Opc::kVLdexpF32: {
      absl::Status st = Need(in, 3);
      if (!st.ok()) return st;
      VSrc a = ReadVSrc(w, v.Src(0), OpType::kF32, 0), b = ReadVSrc(w, v.Src(1), OpType::kB32, 0);
      uint32_t* d = v.Dst();
      for (int l = 0; l < kLanes; ++l)
        if (Active(v.exec, l)) d[l] = Bits(v.Out(std::ldexp(v.F(a, 0, l), static_cast<int32_t>(b[l]))));
      return absl::OkStatus();
    }
    case Opc::kVFloorF32: return Unary32(v, [](float a) { return std::floor(a); });
    case Opc::kVCeilF32: return Unary32(v, [](float a) { return std::ceil(a); });
    case Opc::kVTruncF32: return Unary32(v, [](float a) { return std::trunc(a); });
    case Opc::kVRndneF32: return Unary32(v, [](float a) { return std::nearbyint(a); });
    case Opc::kVFractF32:
      return Unary32(v, [](float a) { return std::fmin(a - std::floor(a), 0x1.fffffep-1f); });
    // v_rcp_iflag_f32 is v_rcp_f32 that also raises the integer divide-by-zero
    // exception flag (CDNA3 ISA guide: "reciprocal with IEEE rules", 1 ULP);
    // no flag is modelled. LLVM's 32-bit integer division expands to it and
    // corrects the quotient for any reciprocal within 1 ULP, so its integer
    // results are exact here as on hardware (instructions_test).
    case Opc::kVRcpF32:
    case Opc::kVRcpIflagF32: return Unary32(v, [](float a) { return 1.0f / a; });
    case Opc::kVRsqF32: return Unary32(v, [](float a) { return 1.0f / std::sqrt(a); });
    case Opc::kVSqrtF32: return Unary32(v, [](float a) { return std::sqrt(a); });
    case Opc::kVExpF32: return Unary32(v, [](float a) { return std::exp2(a); });
    case Opc::kVLogF32: return Unary32(v, [](float a) { return std::log2(a); });
    case Opc::kVCvtF32F16: return Unary32(v, [](float a) { return a; }, /*f16_in=*/true);
    case Opc::kVCvtF32U32:
    case Opc::kVCvtF32I32:
    case Opc::kVCvtU32F32:
    case Opc::kVCvtI32F32: {
      absl::Status st = Need(in, 2);
      if (!st.ok()) return st;
      const bool from_int = mi.opc == Opc::kVCvtF32U32 || mi.opc == Opc::kVCvtF32I32;
      VSrc a = ReadVSrc(w, v.Src(0), from_int ? OpType::kB32 : OpType::kF32, 0);
      uint32_t* d = v.Dst();
      for (int l = 0; l < kLanes; ++l) {
        if (!Active(v.exec, l)) continue;
        uint32_t r;
        switch (mi.opc) {
          case Opc::kVCvtF32U32: r = Bits(v.Out(static_cast<float>(a[l]))); break;
          case Opc::kVCvtF32I32: r = Bits(v.Out(static_cast<float>(static_cast<int32_t>(a[l])))); break;
          case Opc::kVCvtU32F32: r = CvtU32(v.F(a, 0, l)); break;
          default: r = CvtI32(v.F(a, 0, l)); break;
        }
        v.Put(d, l, r);
      }
      return absl::OkStatus();
    }
    case Opc::kVCvtPkFp8F32:
    case Opc::kVCvtPkBf8F32:
    case Opc::kVCvtPkFp8F32Hi:
    case Opc::kVCvtPkBf8F32Hi:
      return CvtPkToFp8(c, v);
    case Opc::kVCvtF32Fp8:
    case Opc::kVCvtF32Bf8:
      return CvtFromFp8(c, v, false);
    case Opc::kVCvtPkF32Fp8:
    case Opc::kVCvtPkF32Bf8:
      return CvtFromFp8(c, v, true);
    case Opc::kVCvtF16F32:
      // By MODE's double/half round field (RoundUseOf kDp).
      switch (ModeRoundDp(w.mode)) {
        case FpRound::kTowardZero:
          return ToF16(v, 1, false, [](const float* x) { return RoundToF16Mode(x[0], FpRound::kTowardZero); });
        case FpRound::kTowardPosInf:
          return ToF16(v, 1, false, [](const float* x) { return RoundToF16Mode(x[0], FpRound::kTowardPosInf); });
        case FpRound::kTowardNegInf:
          return ToF16(v, 1, false, [](const float* x) { return RoundToF16Mode(x[0], FpRound::kTowardNegInf); });
        default:
          return ToF16(v, 1, false, [](const float* x) { return RoundToF16(x[0]); });
      }
    case Opc::kVAddF16:
      return ToF16(v, 2, true, [](const float* x) { return RoundToF16(double{x[0]} + x[1]); });
    case Opc::kVSubF16:
      return ToF16(v, 2, true, [](const float* x) { return RoundToF16(double{x[0]} - x[1]); });
    case Opc::kVMulF16:
      return ToF16(v, 2, true, [](const float* x) { return RoundToF16(double{x[0]} * x[1]); });
    case Opc::kVMaxF16: return MinMaxF16(v, true);
    case Opc::kVFmaF16:
      return ToF16(v, 3, true, [](const float* x) { return FmaToF16(x[0], x[1], x[2]); });
    case Opc::kVPkAddF16:
      return PackedF16(v, 2, [](const double* x) { return RoundToF16(x[0] + x[1]); });
    case Opc::kVPkMulF16:
      return PackedF16(v, 2, [](const double* x) { return RoundToF16(x[0] * x[1]); });
    case Opc::kVPkFmaF16:
      return PackedF16(v, 3, [](const double* x) { return FmaToF16(x[0], x[1], x[2]); });
    case Opc::kVPkMaxF16: return PackedMinMaxF16(v, true);
    case Opc::kVPkAddF32:
      return PackedF32(v, 2, [](const float* x) { return NaNFirst(x[0], x[1], x[0] + x[1]); });
    case Opc::kVPkMulF32:
      return PackedF32(v, 2, [](const float* x) { return NaNFirst(x[0], x[1], x[0] * x[1]); });
    case Opc::kVPkFmaF32:
      return PackedF32(v, 3, [](const float* x) { return NaNFirst3(x[0], x[1], x[2], std::fma(x[0], x[1], x[2])); });
    case Opc::kVFmaMixF32:
    case Opc::kVFmaMixloF16:
    case Opc::kVFmaMixhiF16:
      return FmaMix(v);
    case Opc::kVCvtPkF16F32: {
      // gfx950: vdst[15:0] = f16(src0), vdst[31:16] = f16(src1), each
      // v_cvt_f16_f32's conversion (RoundToF16, as kVCvtF16F32 above).
      // Sources: LLVM selects it for a build_vector of two fpround f32 -> f16
      // (clang-22's gfx950 add_f16; VOP3 profile VOP_V2F16_F32_F32): round to
      // nearest even (MODE's default), overflow to +-inf (|x| >= 65520), f16
      // subnormals and -0.0 kept, a NaN quieted with its sign and the top 9
      // bits of its payload (NaNToF16; for this instruction assumed as for
      // f16 arithmetic, UNVERIFIED on hardware). neg/abs and the FP32 input
      // denormal mode apply before the conversion (v.F), clamp to [0, 1] after.
      absl::Status st = Need(in, 3);
      if (!st.ok()) return st;
      if (!c.target.has_cvt_pk_f16_f32)
        return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": v_cvt_pk_f16_f32 does not exist on ",
                                                       c.target.name, " (gfx950 only)"));
      if (in.mods.omod || in.mods.sdwa || in.mods.op_sel)
        return Unsupported(in, "an output modifier (mul:/div:), SDWA or op_sel on v_cvt_pk_f16_f32");
      VSrc a = ReadVSrc(w, v.Src(0), OpType::kF32, 0), b = ReadVSrc(w, v.Src(1), OpType::kF32, 0);
      uint32_t* d = v.Dst();
      for (int l = 0; l < kLanes; ++l) {
        if (!Active(v.exec, l)) continue;
        uint32_t r = RoundToF16(v.F(a, 0, l)) | static_cast<uint32_t>(RoundToF16(v.F(b, 1, l))) << 16;
        if (in.mods.clamp) {
          uint16_t h[2] = {static_cast<uint16_t>(r), static_cast<uint16_t>(r >> 16)};
          for (uint16_t& x : h) x = RoundToF16(Clamp01(static_cast<float>(F16ToDouble(x))));
          r = h[0] | static_cast<uint32_t>(h[1]) << 16;
        }
        d[l] = r;
      }
      return absl::OkStatus();
    }
    case Opc::kVMin3F32:
    case Opc::kVMax3F32:
    case Opc::kVMed3F32:
      return Three32(v);
    case Opc::kVMin3F16:
    case Opc::kVMax3F16:
    case Opc::kVMed3F16:
      return Three16(v);
    case Opc::kVCvtPkBf16F32: {
      // gfx950: vdst = {bf16(src1), bf16(src0)} (semantics.h CvtPkBf16F32,
      // where the sources are cited); neg/abs and the FP32 input denormal
      // mode before (v.F), clamp to [0, 1] after.
      absl::Status st = Need(in, 3);
      if (!st.ok()) return st;
      if (!c.target.has_cvt_pk_bf16_f32)
        return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": v_cvt_pk_bf16_f32 does not exist on ",
                                                       c.target.name, " (gfx950 only)"));
      if (in.mods.omod || in.mods.sdwa || in.mods.op_sel)
        return Unsupported(in, "an output modifier (mul:/div:), SDWA or op_sel on v_cvt_pk_bf16_f32");
      VSrc a = ReadVSrc(w, v.Src(0), OpType::kF32, 0), b = ReadVSrc(w, v.Src(1), OpType::kF32, 0);
      uint32_t* d = v.Dst();
      for (int l = 0; l < kLanes; ++l) {
        if (!Active(v.exec, l)) continue;
        uint32_t r = CvtPkBf16F32(v.F(a, 0, l), v.F(b, 1, l));
        if (in.mods.clamp) {
          auto clamp = [](uint32_t h) { return static_cast<uint32_t>(F32ToBf16Bits(Clamp01(Bf16BitsToF32(h)))); };
          r = clamp(r & 0xffffu) | clamp(r >> 16) << 16;
        }
        d[l] = r;
      }
      return absl::OkStatus();
    }
    case Opc::kVPackB32F16:
    case Opc::kVCvtPkrtzF16F32: {
      absl::Status st = Need(in, 3);
      if (!st.ok()) return st;
      const bool pack = mi.opc == Opc::kVPackB32F16;
      VSrc a = ReadVSrc(w, v.Src(0), pack ? OpType::kF16 : OpType::kF32, 0);
      VSrc b = ReadVSrc(w, v.Src(1), pack ? OpType::kF16 : OpType::kF32, 0);
      uint32_t* d = v.Dst();
      for (int l = 0; l < kLanes; ++l) {
        if (!Active(v.exec, l)) continue;
        uint16_t h[2];
        for (int i = 0; i < 2; ++i) {
          uint32_t raw = i == 0 ? a[l] : b[l];
          if (pack) {
            h[i] = static_cast<uint16_t>((in.mods.op_sel >> i) & 1 ? raw >> 16 : raw);
            if ((in.mods.abs >> i) & 1) h[i] &= 0x7fff;
            if ((in.mods.neg >> i) & 1) h[i] ^= 0x8000;
          } else {
            h[i] = F32ToF16Rtz(v.F(i == 0 ? a : b, i, l));
          }
        }
        d[l] = h[0] | (static_cast<uint32_t>(h[1]) << 16);
      }
      return absl::OkStatus();
    }
    default:
      break;
  }
  if (mi.opc >= Opc::kVCmpEqF32 && mi.opc <= Opc::kVCmpNgeF32) return CompareF32(v);
  if (mi.opc == Opc::kVCmpUF32) return CompareF32(v);
  *handled = false;
  return absl::OkStatus();
}

}  // namespace kir::emu
