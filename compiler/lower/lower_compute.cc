// MFMA, constants, elementwise arithmetic and conversions.
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/ir/float_bits.h"
#include "compiler/lower/lower_internal.h"

namespace kir {
namespace {

int TupleAlign(const TargetInfo& t, int n) { return t.even_aligned_tuples && n > 1 ? 2 : 1; }

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
  if (t_.mfma_acc_in_agprs) {
    // gfx908: srcC and vdst are AGPRs; no inline constant for srcC
    // (amdgcn-isa-notes.md 1.3).
    if (c.cls == RegClass::kAgpr && !c.is_zero) {
      src_c = MirBuilder::A(c.vreg, 0, n);
    } else {
      int acc = b_.NewA(n);
      int cv = c.is_zero ? -1 : VgprsOf(op.operands[2].name);
      for (int i = 0; i < n; ++i)
        b_.Emit(Opc::kVAccvgprWrite,
                {MirBuilder::A(acc, i), cv < 0 ? MOperand::Imm(0) : MirBuilder::V(cv, i)});
      src_c = MirBuilder::A(acc, 0, n);
    }
    d.cls = RegClass::kAgpr;
    auto inplace = inplace_.find(op.results[0]);
    d.vreg = inplace != inplace_.end() ? inplace->second : b_.NewA(n);
  } else {
    if (c.is_zero && c.vreg < 0)
      src_c = MOperand::Imm(0);
    else
      src_c = MirBuilder::V(VgprsOf(op.operands[2].name), 0, n);
    d.cls = RegClass::kVgpr;
    auto inplace = inplace_.find(op.results[0]);
    d.vreg = inplace != inplace_.end() ? inplace->second : b_.NewV(n, 2);
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
      // No bf16 arithmetic on gfx9: compute in f32 and round back.
      std::vector<int> res(rt.width);
      for (int e = 0; e < rt.width; ++e) {
        std::vector<MOperand> s;
        for (size_t i = 0; i < regs.size(); ++i)
          s.push_back(MirBuilder::V(UnpackToF32(*this, regs[i], ElemType::kBF16, e)));
        res[e] = b_.Valu(f32, s);
      }
      for (int r = 0; r < n; ++r)
        PackFromF32(*this, MirBuilder::V(out.vreg, r), ElemType::kBF16, MirBuilder::V(res[2 * r]),
                    2 * r + 1 < rt.width ? std::optional<MOperand>(MirBuilder::V(res[2 * r + 1]))
                                         : std::nullopt);
      break;
    }
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
    bool carried = carried_vregs_.count(src) > 0;  // changes in place: copy it
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
