// MFMA, constants, elementwise arithmetic and conversions.
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/ir/float_bits.h"
#include "compiler/lower/lower_internal.h"

namespace kir {
namespace {

// The 32-bit pattern of a splat constant for one register.
uint32_t SplatBits(ElemType e, uint32_t bits) {
  if (ElemBytes(e) == 2) return (bits & 0xffffu) | (bits << 16);
  return bits;
}

}  // namespace

absl::Status LowerCtx::LowerConst(const Op& op) {
  Value v;
  v.type = op.type;
  if (op.kind == OpKind::kZero) {
    v.is_zero = true;  // materialised on first non-MFMA use
    values_[op.results[0]] = v;
    return absl::OkStatus();
  }
  std::optional<uint32_t> bits = ExactBits(op.type.elem, op.constant);
  if (!bits) return Error(op, "the constant is not exactly representable in its type");
  int n = op.type.Dwords();
  v.vreg = b_.NewV(n, TupleAlign(t_, n));
  uint32_t word = SplatBits(op.type.elem, *bits);
  for (int i = 0; i < n; ++i) b_.Emit(Opc::kVMovB32, {MirBuilder::V(v.vreg, i), MOperand::Imm(word)});
  values_[op.results[0]] = v;
  return absl::OkStatus();
}

// An MFMA may write its result over srcC `c` when c is a register tuple of
// its own (not a view, not viewed) defined in the op list being lowered that
// no later op reads: srcC == vdst, no second tuple and no copy (the
// same-register case of the MFMA -> srcC hazard rows, amdgcn-isa-notes.md
// 2.1/2.2). A loop's iter_args are not defined in its body, so a carried
// register is only overwritten after its loop (a loop result that dies).
bool LowerCtx::SrcCDiesHere(const Op& op, const Value& c) const {
  if (c.is_zero || c.is_scalar_arg || c.vreg < 0) return false;
  const VReg& v = out_.mir.vregs[c.vreg];
  if (v.alias_of >= 0 || v.has_views || v.count != c.type.Dwords()) return false;
  return DiesHere(op.operands[2].name);
}

bool LowerCtx::ViewOfCarriedIsSafe(const Op& slice, int src) const {
  if (use_scopes_.empty() || use_scopes_.back().ops == nullptr) return false;
  const UseScope& u = use_scopes_.back();
  const std::vector<Op>& ops = *u.ops;
  auto last = u.last_read.find(slice.results[0]);
  if (last == u.last_read.end()) return true;  // never read
  for (size_t w = u.at + 1; w < ops.size(); ++w) {
    bool writes = ops[w].kind == OpKind::kYield || ops[w].kind == OpKind::kFor;
    for (const std::string& r : ops[w].results) {
      auto in = inplace_.find(r);
      writes = writes || (in != inplace_.end() && in->second == src);
    }
    if (writes) return last->second < w;
  }
  return true;  // the list ends without writing it
}

absl::Status LowerCtx::LowerMfma(const Op& op) {
  const MfmaDesc* m = LookupMfma(op.mfma);
  if (m == nullptr) return Error(op, absl::StrCat("unknown MFMA '", op.mfma, "'"));
  absl::StatusOr<std::string> mnemonic = MfmaMnemonic(t_, *m);
  if (!mnemonic.ok()) return Error(op, std::string(mnemonic.status().message()));
  int a = VgprsOf(op.operands[0].name);
  int bv = VgprsOf(op.operands[1].name);
  Value& c = values_.at(op.operands[2].name);
  int n = m->cd_width;
  Value d;
  d.type = ValueType{ElemType::kF32, n};
  MOperand src_c;
  if (acc_in_agprs_) {
    // srcC and vdst are AGPRs (one acc_cd bit selects the class of both on
    // gfx90a/942); gfx908 has no inline constant for srcC (amdgcn-isa-notes.md 1.3).
    int fresh = -1;  // AGPRs written here for srcC alone: the MFMA accumulates in place
    if (c.cls == RegClass::kAgpr && !c.is_zero) {
      src_c = MirBuilder::A(c.vreg, 0, n);
    } else if (c.is_zero && c.vreg < 0 && t_.mfma_srcc_inline_const) {
      src_c = MOperand::Imm(0);
    } else {
      fresh = b_.NewA(n, TupleAlign(t_, n));
      int cv = c.is_zero ? -1 : VgprsOf(op.operands[2].name);
      for (int i = 0; i < n; ++i)
        b_.Emit(Opc::kVAccvgprWrite,
                {MirBuilder::A(fresh, i), cv < 0 ? MOperand::Imm(0) : MirBuilder::V(cv, i)});
      src_c = MirBuilder::A(fresh, 0, n);
    }
    d.cls = RegClass::kAgpr;
    auto inplace = inplace_.find(op.results[0]);
    if (inplace != inplace_.end())
      d.vreg = inplace->second;
    else if (fresh >= 0)
      d.vreg = fresh;
    else if (src_c.IsReg() && SrcCDiesHere(op, c))
      d.vreg = c.vreg;  // srcC dies here: accumulate in place
    else
      d.vreg = b_.NewA(n, TupleAlign(t_, n));
  } else {
    if (c.is_zero && c.vreg < 0)
      src_c = MOperand::Imm(0);
    else
      src_c = MirBuilder::V(VgprsOf(op.operands[2].name), 0, n);
    d.cls = RegClass::kVgpr;
    auto inplace = inplace_.find(op.results[0]);
    if (inplace != inplace_.end())
      d.vreg = inplace->second;
    else if (src_c.IsReg() && c.cls == RegClass::kVgpr && SrcCDiesHere(op, c))
      d.vreg = c.vreg;  // srcC dies here: accumulate in place
    else
      d.vreg = b_.NewV(n, 2);
  }
  int ab = m->ab_regs();
  MOperand dst = d.cls == RegClass::kAgpr ? MirBuilder::A(d.vreg, 0, n) : MirBuilder::V(d.vreg, 0, n);
  MInst& mi = b_.Emit(Opc::kVMfma, {dst, MirBuilder::V(a, 0, ab), MirBuilder::V(bv, 0, ab), src_c});
  mi.mfma = m;
  values_[op.results[0]] = d;
  return absl::OkStatus();
}


// f32 results of unpacking 16-bit elements, and packing back, shared by bf16
// arithmetic and conversions.
static int UnpackToF32(LowerCtx& c, int src, ElemType e, int elem) {
  MOperand s = MirBuilder::V(src, elem / 2);
  if (e == ElemType::kF32) return -1;
  if (e == ElemType::kF16) {
    if (elem % 2 == 0) return c.b_.Valu(Opc::kVCvtF32F16, {s});
    int hi = c.b_.Valu(Opc::kVLshrrevB32, {MOperand::Imm(16), s});
    return c.b_.Valu(Opc::kVCvtF32F16, {MirBuilder::V(hi)});
  }
  // bf16 is the high half of an f32.
  if (elem % 2 == 0) return c.b_.Valu(Opc::kVLshlrevB32, {MOperand::Imm(16), s});
  return c.b_.Valu(Opc::kVAndB32, {MOperand::Imm(0xffff0000u), s});
}

// bf16 bits (in bits 31:16 of the result) of f32 `x`, rounded to nearest
// even; NaN stays NaN (quietened).
static int RoundToBf16High(LowerCtx& c, MOperand xv) {
  int lsb = c.b_.Valu(Opc::kVBfeU32, {xv, MOperand::Imm(16), MOperand::Imm(1)});
  int r = c.b_.Valu(Opc::kVAdd3U32, {xv, MOperand::Imm(0x7fff), MirBuilder::V(lsb)});
  int nan = c.b_.NewS(2, 2);
  c.b_.ValuTo(Opc::kVCmpUF32, MirBuilder::S(nan, 0, 2), {xv, xv});
  int quiet = c.b_.Valu(Opc::kVOrB32, {MOperand::Imm(0x00400000), xv});
  int out = c.b_.NewV();
  c.b_.ValuTo(Opc::kVCndmaskB32, MirBuilder::V(out),
              {MirBuilder::V(r), MirBuilder::V(quiet), MirBuilder::S(nan, 0, 2)});
  return out;
}

// Packs f32 registers lo (element 2i) and hi (element 2i+1, or -1) into one
// register of 16-bit elements of type e.
static void PackFromF32(LowerCtx& c, MOperand dst, ElemType e, MOperand lo,
                        std::optional<MOperand> hi) {
  if (e == ElemType::kF16) {
    if (!hi) {
      c.b_.ValuTo(Opc::kVCvtF16F32, dst, {lo});
      return;
    }
    // gfx950: both halves in one v_cvt_pk_f16_f32, each rounded as
    // v_cvt_f16_f32 (nearest even; semantics.h CvtPkF16F32), so the bits are
    // the two-instruction form's. VOP3 without a literal: VGPR sources only.
    if (c.t_.has_cvt_pk_f16_f32 && lo.IsReg() && lo.cls == RegClass::kVgpr && hi->IsReg() &&
        hi->cls == RegClass::kVgpr) {
      c.b_.ValuTo(Opc::kVCvtPkF16F32, dst, {lo, *hi});
      return;
    }
    int l = c.b_.Valu(Opc::kVCvtF16F32, {lo});
    int h = c.b_.Valu(Opc::kVCvtF16F32, {*hi});
    c.b_.ValuTo(Opc::kVPackB32F16, dst, {MirBuilder::V(l), MirBuilder::V(h)});
    return;
  }
  int l = RoundToBf16High(c, lo);
  if (!hi) {
    c.b_.ValuTo(Opc::kVLshrrevB32, dst, {MOperand::Imm(16), MirBuilder::V(l)});
    return;
  }
  int ls = c.b_.Valu(Opc::kVLshrrevB32, {MOperand::Imm(16), MirBuilder::V(l)});
  int h = RoundToBf16High(c, *hi);
  // (h & 0xffff0000) | (l >> 16)
  c.b_.ValuTo(Opc::kVAndOrB32, dst,
              {MirBuilder::V(h), MirBuilder::V(c.b_.VConst(0xffff0000u)), MirBuilder::V(ls)});
}

// bf16 fma rounded once: an f32 register r' with RN_bf16(r') = RN_bf16(x)
// for x = a * b + c exactly, a, b, c bf16 values held as f32 (exact). gfx9
// has no bf16 arithmetic and RN_bf16(v_fma_f32(a, b, c)) would round twice:
// 1.0625 * 1.0625 + 2^-40 is a hair above the bf16 midpoint 1.12890625, the
// f32 fma returns the midpoint itself and the tie then goes to even (1.125
// instead of 1.1328125). (bf16 add and mul are fine through f32: see
// LowerElementwise.)
//
//   r  = v_fma_f32(a, b, c)            RN32(x): fused, one rounding (FP32
//                                      denormals kept, .amdhsa_float_denorm_mode_32 3)
//   p  = v_mul_f32(a, b)
//   q  = r - p,  u = r - q,  t = (p - u) + (c - q)     TwoSum(p, c) with s = r
//   r' = r + (t != 0 and r even ? (sign(t) == sign(r) ? +1 : -1) : 0)   in bits
//
// Why RN_bf16(r') = RN_bf16(x) (NaN stays NaN):
// 1. Every bf16 value and every bf16 midpoint m is an f32 number with the
//    low 16 bits 0x0000 / 0x8000, so even. If r is not a midpoint, x and r
//    lie on the same side of every midpoint (RN32 is monotone and fixes f32
//    numbers), so RN_bf16(r) = RN_bf16(x); so does RN_bf16(r +- 1 ulp) of an
//    even r, as no f32 number lies strictly between r and its neighbour and
//    the neighbour (odd) is no midpoint. If r is a midpoint and x != r, the
//    right result is the bf16 neighbour on x's side, which is what
//    RN_bf16(r + 1 ulp toward x) gives (strictly between m and it, not a
//    midpoint); if x == r it is the tie, and r must stay. So it suffices that
//    r' = r + 1 ulp toward x whenever r is a finite midpoint and x != r, and
//    that otherwise r' is r or, for an even r, r +- 1 ulp. (This is rounding
//    to odd followed by rounding to nearest, which is one correct rounding
//    when the odd rounding keeps at least 2 more bits: Boldo and Melquiond,
//    "Emulation of FMA and correctly rounded sums: proved algorithms using
//    rounding to odd", IEEE TC 57(4), 2008.) Moving an even r by one in its
//    bits is moving it by one ulp in magnitude: r is never +-0 when t != 0
//    (below), and the largest finite f32 is odd.
// 2. a * b an f32 number (p = a * b exactly): x = p + c and r = RN32(p + c),
//    so (r, t) is Knuth's TwoSum of p and c (TAOCP vol. 2, 4.2.2, Theorem B;
//    Moller 1965), exact (t = x - r) in binary floating point with gradual
//    underflow when no operation overflows. None does while r is finite:
//    |p| <= 65025 * 2^112 and |c| <= 2^128 - 2^120 (8-bit significands), and
//    |r - p| <= |c| + ulp(r)/2, |r - q| <= |p| + ulp(q)/2 stay below
//    FLT_MAX = 2^128 - 2^104; the differences p - u and c - q are tiny.
//    t != 0 exactly when x != r (so r = 0 gives t = 0: a sum of two floats
//    rounds to 0 only when it is 0), and sign(t) = sign(x - r).
// 3. |a * b| > FLT_MAX: p = +-inf and t is NaN (inf - inf), no adjustment.
//    Then r is finite only if c cancels: |x| < 2^128 with a * b >= 2^128 a
//    multiple of 2^113 (16-bit significand); if |c| >= 2^111, x is a multiple
//    of 2^104 below 2^128, an f32 number (r = x); otherwise |x| lies within
//    2^111 of 2^128, where the nearest bf16 midpoint 2^128 - 2^119 is far
//    beyond half an f32 ulp (2^103): r is no midpoint.
// 4. a * b finite but not an f32 number (it needs bits below 2^-149): a * b
//    = M * 2^E with M <= 255^2 = 65025 and E <= -150, so |a * b| <= 2^-134 -
//    511 * 2^-150. If c = 0, r = p and t = 0 (TwoSum of p and 0). Else c is
//    a multiple of 2^-133 at least 2^-134 from every bf16 midpoint, so x is
//    more than 511 * 2^-150 from each: beyond half an f32 ulp (2^-150) at
//    every midpoint below 2^-125; a midpoint in [2^e, 2^(e+1)), e >= -125,
//    is at least 2^(e-8) from every bf16 value, so x is at least 2^(e-8) -
//    2^-134 >= 2^(e-9) from it, beyond half an f32 ulp there (2^(e-24)). So
//    r is no midpoint, and whatever t is, 1. holds.
// 5. r = +-inf or NaN: t is NaN (inf - inf or NaN), no adjustment; RN_bf16
//    keeps both (an f32 overflow, |x| >= 2^128 - 2^103, is past bf16's
//    threshold 2^128 - 2^119 too).
// //hw/run:rounding_test checks this against an exact oracle, bit for bit.
static int Bf16FmaRoundedToOdd(LowerCtx& c, MOperand a, MOperand b, MOperand cc) {
  auto v = [](int r) { return MirBuilder::V(r); };
  int r = c.b_.Valu(Opc::kVFmaF32, {a, b, cc});
  int p = c.b_.Valu(Opc::kVMulF32, {a, b});
  int q = c.b_.Valu(Opc::kVSubF32, {v(r), v(p)});
  int u = c.b_.Valu(Opc::kVSubF32, {v(r), v(q)});
  int dp = c.b_.Valu(Opc::kVSubF32, {v(p), v(u)});
  int dc = c.b_.Valu(Opc::kVSubF32, {cc, v(q)});
  int t = c.b_.Valu(Opc::kVAddF32, {v(dp), v(dc)});
  int inexact = c.b_.NewS(2, 2);  // t != 0 and not NaN
  c.b_.ValuTo(Opc::kVCmpLgF32, MirBuilder::S(inexact, 0, 2), {v(t), MOperand::Imm(0)});
  int sign = c.b_.Valu(Opc::kVAshrrevI32, {MOperand::Imm(31), v(c.b_.Valu(Opc::kVXorB32, {v(t), v(r)}))});
  int step = c.b_.Valu(Opc::kVOrB32, {MOperand::Imm(1), v(sign)});                    // +1 or -1
  int odd = c.b_.Valu(Opc::kVBfeI32, {v(r), MOperand::Imm(0), MOperand::Imm(1)});     // -1 if r is odd
  int even_step = c.b_.Valu(Opc::kVBfiB32, {v(odd), MOperand::Imm(0), v(step)});      // odd ? 0 : step
  int moved = c.b_.Valu(Opc::kVAddU32, {v(r), v(even_step)});
  int out = c.b_.NewV();
  c.b_.ValuTo(Opc::kVCndmaskB32, v(out), {v(r), v(moved), MirBuilder::S(inexact, 0, 2)});
  return out;
}

absl::Status LowerCtx::LowerElementwise(const Op& op) {
  // Result type: the widest operand (scalars broadcast); the op carries none.
  ValueType rt;
  bool have = false;
  for (const Operand& o : op.operands) {
    ValueType t = o.is_arg ? ValueType{k_.FindArg(o.name)->elem, 1} : values_.at(o.name).type;
    if (!have || t.width > rt.width) rt = t;
    have = true;
  }
  std::vector<int> regs;
  std::vector<bool> bcast;
  for (const Operand& o : op.operands) {
    if (o.is_arg) {
      regs.push_back(scalar_args_.at(o.name));
      bcast.push_back(true);
      continue;
    }
    const Value& v = values_.at(o.name);
    regs.push_back(VgprsOf(o.name));
    bcast.push_back(v.type.width == 1 && rt.width > 1);
  }
  int n = rt.Dwords();
  Value out;
  out.type = rt;
  auto inplace = inplace_.find(op.results[0]);
  out.vreg = inplace != inplace_.end() ? inplace->second : b_.NewV(n, TupleAlign(t_, n));
  auto operand = [&](size_t i, int reg) -> MOperand {
    if (op.operands[i].is_arg) return MirBuilder::S(regs[i]);
    return MirBuilder::V(regs[i], bcast[i] ? 0 : reg);
  };
  Opc f32 = op.kind == OpKind::kAdd ? Opc::kVAddF32 : op.kind == OpKind::kMul ? Opc::kVMulF32 : Opc::kVFmaF32;
  if (IsFp8(rt.elem))  // the validator refuses it first
    return Error(op, "fp8 values take no arithmetic: cvt them to f32 first");
  switch (rt.elem) {
    case ElemType::kF32:
      for (int r = 0; r < n; ++r) {
        std::vector<MOperand> s;
        for (size_t i = 0; i < regs.size(); ++i) s.push_back(operand(i, r));
        b_.ValuTo(f32, MirBuilder::V(out.vreg, r), s);
      }
      break;
    case ElemType::kI32: {
      if (op.kind == OpKind::kFma) return Error(op, "fma is defined for float types only");
      Opc io = op.kind == OpKind::kAdd ? Opc::kVAddU32 : Opc::kVMulLoU32;
      for (int r = 0; r < n; ++r) b_.ValuTo(io, MirBuilder::V(out.vreg, r), {operand(0, r), operand(1, r)});
      break;
    }
    case ElemType::kF16: {
      for (size_t i = 0; i < regs.size(); ++i)
        if (bcast[i]) return Error(op, "broadcasting a 16-bit scalar is not supported; use a vector");
      Opc pk = op.kind == OpKind::kAdd ? Opc::kVPkAddF16 : op.kind == OpKind::kMul ? Opc::kVPkMulF16 : Opc::kVPkFmaF16;
      for (int r = 0; r < n; ++r) {
        std::vector<MOperand> s;
        for (size_t i = 0; i < regs.size(); ++i) s.push_back(operand(i, r));
        b_.ValuTo(pk, MirBuilder::V(out.vreg, r), s);
      }
      break;
    }
    case ElemType::kBF16: {
      for (size_t i = 0; i < regs.size(); ++i)
        if (bcast[i]) return Error(op, "broadcasting a 16-bit scalar is not supported; use a vector");
      // No bf16 arithmetic on gfx9: compute in f32 and round to bf16. For add
      // and mul that double rounding is innocuous: the f32 result of two
      // 8-bit-significand operands rounded to 8 bits is the correctly rounded
      // one because 24 >= 2 * 8 + 2 (S. A. Figueroa, "When is double rounding
      // innocuous?", ACM SIGNUM Newsletter 30(3), 1995; the exponent ranges
      // are the same, and below 2^-126 a sum is exact in bf16 and a product
      // either is an f32 number or lies under 2^-134, which rounds to 0 both
      // ways). For fma it is not (Bf16FmaRoundedToOdd).
      std::vector<int> res(rt.width);
      for (int e = 0; e < rt.width; ++e) {
        std::vector<MOperand> s;
        for (size_t i = 0; i < regs.size(); ++i)
          s.push_back(MirBuilder::V(UnpackToF32(*this, regs[i], ElemType::kBF16, e)));
        res[e] = op.kind == OpKind::kFma ? Bf16FmaRoundedToOdd(*this, s[0], s[1], s[2]) : b_.Valu(f32, s);
      }
      for (int r = 0; r < n; ++r)
        PackFromF32(*this, MirBuilder::V(out.vreg, r), ElemType::kBF16, MirBuilder::V(res[2 * r]),
                    2 * r + 1 < rt.width ? std::optional<MOperand>(MirBuilder::V(res[2 * r + 1]))
                                         : std::nullopt);
      break;
    }
    default:
      break;
  }
  values_[op.results[0]] = out;
  return absl::OkStatus();
}

absl::Status LowerCtx::LowerSlice(const Op& op) {
  Value& in = values_.at(op.operands[0].name);
  int eb = ElemBytes(in.type.elem);
  if ((op.first * eb) % 4 != 0)
    return Error(op, "a slice of a 16-bit vector must start at an even element");
  int first = op.first * eb / 4;
  int n = op.type.Dwords();
  Value out;
  out.type = op.type;
  out.vreg = b_.NewV(n, TupleAlign(t_, n));
  if (in.cls == RegClass::kAgpr && in.vgpr_copy < 0) {
    // Read only the slice out of the accumulators.
    for (int i = 0; i < n; ++i)
      b_.Emit(Opc::kVAccvgprRead, {MirBuilder::V(out.vreg, i), MirBuilder::A(in.vreg, first + i)});
  } else {
    int src = VgprsOf(op.operands[0].name);
    // A view of the source's registers when the alignment rules allow it
    // (64-bit and wider tuples start on even registers on gfx90a/942: the
    // source tuple is even-aligned, so an even offset keeps that).
    // A carried register changes in place: copy it, unless the slice is read
    // only before that happens.
    bool carried = carried_vregs_.count(src) > 0 && !ViewOfCarriedIsSafe(op, src);
    if (!carried && (!t_.even_aligned_tuples || n == 1 || first % 2 == 0)) {
      out.vreg = b_.func().NewAlias(src, first, n);
    } else {
      for (int i = 0; i < n; ++i)
        b_.Emit(Opc::kVMovB32, {MirBuilder::V(out.vreg, i), MirBuilder::V(src, first + i)});
    }
  }
  values_[op.results[0]] = out;
  return absl::OkStatus();
}

// concat: the result is one tuple of 2n registers whose halves are the
// operands. An operand in a VGPR tuple of its own (not a view, not viewed,
// not precoloured, not loop-carried: nothing writes it again in place)
// becomes a view of its half, as ds_pairing re-roots the destinations it
// merges: no instruction. Its earlier definitions then write the half
// directly, and the result tuple counts as viewed, so nothing writes it in
// place either (SrcCDiesHere). Any other operand (AGPRs, a zero, a view,
// a carried register, the second use of one operand) is copied with
// v_mov_b32 per register.
absl::Status LowerCtx::LowerConcat(const Op& op) {
  const Value& a = values_.at(op.operands[0].name);
  const int n = a.type.Dwords();
  if (op.type.Dwords() != 2 * n)
    return Error(op, "concat of a half that fills part of a register (the validator admits whole registers only)");
  MFunction& f = out_.mir;
  auto own_tuple = [&](const std::string& name) {
    const Value& v = values_.at(name);
    if (v.cls != RegClass::kVgpr || v.is_zero || v.is_scalar_arg || v.vreg < 0) return false;
    if (carried_vregs_.count(v.vreg) > 0) return false;
    const VReg& r = f.vregs[v.vreg];
    return r.cls == RegClass::kVgpr && r.alias_of < 0 && !r.has_views && r.fixed < 0 && r.count == n;
  };
  const bool view_a = own_tuple(op.operands[0].name);
  const int vb = values_.at(op.operands[1].name).vreg;
  const bool view_b = own_tuple(op.operands[1].name) && !(view_a && vb == a.vreg) && n % f.vregs[vb].align == 0;
  int align = TupleAlign(t_, 2 * n);
  if (view_a) align = std::max(align, f.vregs[a.vreg].align);
  if (view_b) align = std::max(align, f.vregs[vb].align);
  const int t = b_.NewV(2 * n, align);
  for (int half = 0; half < 2; ++half) {
    const std::string& name = op.operands[half].name;
    if (half == 0 ? view_a : view_b) {
      VReg& r = f.vregs[values_.at(name).vreg];
      r.alias_of = t;
      r.alias_offset = half * n;
      continue;
    }
    const int src = VgprsOf(name);
    for (int i = 0; i < n; ++i)
      b_.Emit(Opc::kVMovB32, {MirBuilder::V(t, half * n + i), MirBuilder::V(src, i)});
  }
  f.vregs[t].has_views = view_a || view_b;
  Value out;
  out.type = op.type;
  out.vreg = t;
  values_[op.results[0]] = out;
  return absl::OkStatus();
}

// fp8 <-> f32, and f16/bf16 through f32 (KIR cvt semantics: float_bits.h F32ToFp8Bits; the hardware
// conversions: compiler/isa/semantics.h).
//  - fp8 -> f32 is exact in hardware: v_cvt_pk_f32_{fp8,bf8} converts bytes 0
//    and 1 of a dword into a VGPR pair (bytes 2 and 3 after a shift by 16),
//    v_cvt_f32_{fp8,bf8} byte 0 for a single element.
//  - f32 -> fp8: v_cvt_pk_{fp8,bf8}_f32 rounds to nearest even (two values
//    into word 0, or word 1 with op_sel:[0,0,1], the other word kept), but
//    gfx942 gives it no clamp bit and its result beyond the format's range is
//    not documented (AMD's HIP amd_hip_fp8.h saturates in software with
//    v_med3_f32 before it, and leaves NaN/inf to the instruction). So each
//    value is first clamped to [-max, max] (v_min_f32, v_max_f32: also maps
//    +-inf to +-max, KIR's rule for the formats without infinities) and a
//    NaN, which v_min/v_max would turn into a number, is put back with
//    v_cmp_u_f32 + v_cndmask_b32: the instruction only sees values it
//    converts exactly as KIR says (NaN -> NaN: 0x80 in FNUZ, its only NaN).
//    f8e5m2 keeps infinities (+-inf -> +-inf): the clamp makes them +-max,
//    and 1 is added to their bytes after the conversion (max's code + 1 is
//    inf's), so the instruction still sees only values it converts exactly.
absl::Status LowerCtx::LowerFp8Cvt(const Op& op, ElemType from, ElemType to, int src, int dst) {
  const ElemType fp8 = IsFp8(to) ? to : from;
  const bool bf8 = fp8 == ElemType::kF8E5M2FNUZ || fp8 == ElemType::kF8E5M2;
  std::optional<ElemType> native = Fp8Elem(t_, bf8);
  if (!native || *native != fp8)
    return Error(op, absl::StrCat(t_.name, " has no conversion instruction for ",
                                  std::string(ElemTypeName(fp8)), " (it has ", Fp8ElemTypesText(t_), ")"));
  if (IsFp8(from) && IsFp8(to)) return Error(op, "cvt between two fp8 types: convert through f32");
  const int w = op.type.width;
  if (IsFp8(from)) {
    // Into f32 (dst itself, or a temporary that f16/bf16 are packed from:
    // every fp8 value is an f16 and a bf16 value, so that rounding is exact).
    const int f = to == ElemType::kF32 ? dst : b_.NewV(w, TupleAlign(t_, w));
    const Opc one = bf8 ? Opc::kVCvtF32Bf8 : Opc::kVCvtF32Fp8;
    const Opc pk = bf8 ? Opc::kVCvtPkF32Bf8 : Opc::kVCvtPkF32Fp8;
    if (w == 1) {
      b_.ValuTo(one, MirBuilder::V(f), {MirBuilder::V(src)});
    } else {
      for (int p = 0; 2 * p < w; ++p) {  // elements 2p, 2p + 1: dword p / 2, word p % 2
        MOperand s = MirBuilder::V(src, p / 2);
        if (p % 2) s = MirBuilder::V(b_.Valu(Opc::kVLshrrevB32, {MOperand::Imm(16), s}));
        b_.ValuTo(pk, MirBuilder::V(f, 2 * p, 2), {s});
      }
    }
    if (to != ElemType::kF32)
      for (int r = 0; 2 * r < w; ++r)
        PackFromF32(*this, MirBuilder::V(dst, r), to, MirBuilder::V(f, 2 * r),
                    2 * r + 1 < w ? std::optional<MOperand>(MirBuilder::V(f, 2 * r + 1)) : std::nullopt);
    return absl::OkStatus();
  }
  const Fp8Format* f = Fp8FormatOf(to);
  const uint32_t max_bits = F32Bits(static_cast<float>(f->max));
  std::vector<MOperand> y(w), xs(w);
  for (int e = 0; e < w; ++e) {
    // f16/bf16 widen to f32 exactly first: one rounding, to fp8.
    MOperand x = from == ElemType::kF32 ? MirBuilder::V(src, e) : MirBuilder::V(UnpackToF32(*this, src, from, e));
    xs[e] = x;
    int lo = b_.Valu(Opc::kVMinF32, {MOperand::Imm(max_bits), x});
    int c = b_.Valu(Opc::kVMaxF32, {MOperand::Imm(max_bits | 0x80000000u), MirBuilder::V(lo)});
    int nan = b_.NewS(2, 2);
    b_.ValuTo(Opc::kVCmpUF32, MirBuilder::S(nan, 0, 2), {x, x});
    int r = b_.NewV();
    b_.ValuTo(Opc::kVCndmaskB32, MirBuilder::V(r), {MirBuilder::V(c), x, MirBuilder::S(nan, 0, 2)});
    y[e] = MirBuilder::V(r);
  }
  const Opc pk = bf8 ? Opc::kVCvtPkBf8F32 : Opc::kVCvtPkFp8F32;
  const Opc pk_hi = bf8 ? Opc::kVCvtPkBf8F32Hi : Opc::kVCvtPkFp8F32Hi;
  for (int r = 0; 4 * r < w; ++r) {
    // Word 0 (elements 4r, 4r + 1; a lone element twice), then word 1. The
    // bytes past the value's width are not part of it (never stored).
    const int e = 4 * r;
    b_.ValuTo(pk, MirBuilder::V(dst, r), {y[e], y[e + 1 < w ? e + 1 : e]});
    if (e + 2 < w) b_.ValuTo(pk_hi, MirBuilder::V(dst, r), {y[e + 2], y[e + 3]});
  }
  if (f->has_inf) {
    // f8e5m2 keeps infinities: the clamp made +-inf +-max, whose codes
    // (S.11110.11: 0x7b, 0xfb) are one below the infinities' (S.11111.00:
    // 0x7c, 0xfc), so 1 is added to the byte of each element whose input
    // was infinite (no carry leaves the byte). inf = (|x| ^ 0x7f800000) == 0,
    // as 1 - min(|x| ^ 0x7f800000, 1): VALU arithmetic, no masks.
    for (int e = 0; e < w; ++e) {
      int mag = b_.Valu(Opc::kVAndB32, {MOperand::Imm(0x7fffffffu), xs[e]});
      int d = b_.Valu(Opc::kVXorB32, {MOperand::Imm(0x7f800000u), MirBuilder::V(mag)});
      int m = b_.Valu(Opc::kVMinU32, {MOperand::Imm(1), MirBuilder::V(d)});
      int one = b_.Valu(Opc::kVSubU32, {MOperand::Imm(1), MirBuilder::V(m)});
      b_.ValuTo(Opc::kVLshlAddU32, MirBuilder::V(dst, e / 4),
                {MirBuilder::V(one), MOperand::Imm(8 * (e % 4)), MirBuilder::V(dst, e / 4)});
    }
  }
  return absl::OkStatus();
}

absl::Status LowerCtx::LowerCvt(const Op& op) {
  const Value& in = values_.at(op.operands[0].name);
  ElemType from = in.type.elem, to = op.type.elem;
  int src = VgprsOf(op.operands[0].name);
  int w = op.type.width;
  Value out;
  out.type = op.type;
  int n = op.type.Dwords();
  out.vreg = b_.NewV(n, TupleAlign(t_, n));
  if (from == to) {
    for (int r = 0; r < n; ++r) b_.Emit(Opc::kVMovB32, {MirBuilder::V(out.vreg, r), MirBuilder::V(src, r)});
    values_[op.results[0]] = out;
    return absl::OkStatus();
  }
  if (from == ElemType::kI32 || to == ElemType::kI32)
    return Error(op, "conversions to or from i32 are not supported yet");
  if (IsFp8(from) || IsFp8(to)) {
    absl::Status st = LowerFp8Cvt(op, from, to, src, out.vreg);
    if (!st.ok()) return st;
    values_[op.results[0]] = out;
    return absl::OkStatus();
  }
  // Through f32: element e of the source as an f32 operand.
  auto f32_elem = [&](int e) -> MOperand {
    if (from == ElemType::kF32) return MirBuilder::V(src, e);
    if (to == ElemType::kF32) {
      // Unpack straight into the result register.
      MOperand s = MirBuilder::V(src, e / 2);
      MOperand d = MirBuilder::V(out.vreg, e);
      if (from == ElemType::kF16) {
        if (e % 2 == 0) {
          b_.ValuTo(Opc::kVCvtF32F16, d, {s});
        } else {
          int hi = b_.Valu(Opc::kVLshrrevB32, {MOperand::Imm(16), s});
          b_.ValuTo(Opc::kVCvtF32F16, d, {MirBuilder::V(hi)});
        }
      } else if (e % 2 == 0) {
        b_.ValuTo(Opc::kVLshlrevB32, d, {MOperand::Imm(16), s});
      } else {
        b_.ValuTo(Opc::kVAndB32, d, {MOperand::Imm(0xffff0000u), s});
      }
      return d;
    }
    return MirBuilder::V(UnpackToF32(*this, src, from, e));
  };
  if (to == ElemType::kF32) {
    for (int e = 0; e < w; ++e) f32_elem(e);
  } else {
    for (int r = 0; r < n; ++r) {
      MOperand lo = f32_elem(2 * r);
      std::optional<MOperand> hi;
      if (2 * r + 1 < w) hi = f32_elem(2 * r + 1);
      PackFromF32(*this, MirBuilder::V(out.vreg, r), to, lo, hi);
    }
  }
  values_[op.results[0]] = out;
  return absl::OkStatus();
}

}  // namespace kir
