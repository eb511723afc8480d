// VALU integer, move, compare, select and lane instructions. Integer results
// come from compiler/isa/semantics.h (EvalIntOp / EvalFlagOut / EvalWideOp).
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/semantics.h"
#include "hw/emu/exec.h"

namespace kir::emu {
namespace {

bool IsVgprLike(const MOperand& o) { return o.IsReg() && o.cls != RegClass::kSgpr; }

absl::Status NeedVdst(const Inst& in, int count = 1) {
  const MOperand* d = FindOperand(in.mi, OpName::kVdst);
  if (d == nullptr || !IsVgprLike(*d) || d->count != count)
    return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": destination must be ",
                                                   count == 1 ? "a VGPR" : "a VGPR pair"));
  return absl::OkStatus();
}

bool IsCompare(Opc o) { return absl::StartsWith(Info(o).mnemonic, "v_cmp"); }

// v_cmp_* / v_cmpx_*: sdst(vcc or SGPR pair), src0, src1.
absl::Status ExecCompare(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  if (mi.ops.size() != 3) return Arity(in, 3);
  const MOperand &src0 = OperandOr0(mi, OpName::kSrc0), &src1 = OperandOr0(mi, OpName::kSrc1);
  const uint64_t exec = w.Exec();
  uint64_t mask = 0;
  if (WideCompareSrc1Is64(mi.opc)) {  // v_cmp(x)_class_f64: exec_float.cc
    VSrc a[2] = {ReadVSrc(w, src0, OpType::kB64, 0), ReadVSrc(w, src0, OpType::kB64, 1)};
    VSrc b[2] = {ReadVSrc(w, src1, OpType::kB64, 0), ReadVSrc(w, src1, OpType::kB64, 1)};
    std::vector<Pair64<uint32_t>> s(2);
    for (int l = 0; l < kLanes; ++l) {
      if (!(exec >> l & 1)) continue;
      s[0] = {a[0][l], a[1][l]};
      s[1] = {b[0][l], b[1][l]};
      std::optional<Wide64<uint32_t>> r = EvalWideOp(U32Domain{}, mi.opc, s);
      if (!r) return Unsupported(in, "this compare");
      if (r->flag) mask |= uint64_t{1} << l;
    }
  } else {
    VSrc a = ReadVSrc(w, src0, OpType::kB32, 0), b = ReadVSrc(w, src1, OpType::kB32, 0);
    std::vector<uint32_t> s(2);
    for (int l = 0; l < kLanes; ++l) {
      if (!(exec >> l & 1)) continue;
      s[0] = in.mods.sdwa ? SdwaSource(a[l], in.mods.src_sel[0], in.mods.src_sext[0]) : a[l];
      s[1] = in.mods.sdwa ? SdwaSource(b[l], in.mods.src_sel[1], in.mods.src_sext[1]) : b[l];
      std::optional<uint32_t> r = EvalIntOp(U32Domain{}, mi.opc, s);
      if (!r) return Unsupported(in, "this compare");
      if (*r) mask |= uint64_t{1} << l;
    }
  }
  WriteMask(w, OperandOr0(mi, OpName::kSdst), mask);  // inactive lanes read as 0
  if (Info(mi.opc).flags & kWritesExec) w.SetExec(mask);
  return absl::OkStatus();
}

// v_add_co_u32 and friends: vdst, sdst, src0, src1[, carry-in mask].
absl::Status ExecCarry(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  const bool cin = mi.opc == Opc::kVAddcCoU32 || mi.opc == Opc::kVSubbCoU32 || mi.opc == Opc::kVSubbrevCoU32;
  absl::Status st = Arity(in, cin ? 5 : 4);
  if (!st.ok()) return st;
  if (!(st = NeedVdst(in)).ok()) return st;
  if (in.mods.clamp) return Unsupported(in, "clamp on a carry instruction");
  VSrc a = ReadVSrc(w, OperandOr0(mi, OpName::kSrc0), OpType::kB32, 0),
       b = ReadVSrc(w, OperandOr0(mi, OpName::kSrc1), OpType::kB32, 0);
  uint64_t carry_in = cin ? ReadMask(w, OperandOr0(mi, OpName::kSrc2)) : 0;
  const MOperand& vdst = OperandOr0(mi, OpName::kVdst);
  uint32_t* d = w.Row(vdst.cls, vdst.reg);
  const uint64_t exec = w.Exec();
  uint64_t carry = 0;
  std::vector<uint32_t> s(3);
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    s[0] = a[l];
    s[1] = b[l];
    s[2] = static_cast<uint32_t>(carry_in >> l & 1);
    uint32_t r = *EvalIntOp(U32Domain{}, mi.opc, s);
    if (*EvalFlagOut(U32Domain{}, mi.opc, s, r)) carry |= uint64_t{1} << l;
    d[l] = r;
  }
  WriteMask(w, OperandOr0(mi, OpName::kSdst), carry);
  return absl::OkStatus();
}

// 64-bit VALU: v_mov_b64, v_lshlrev/lshrrev_b64, v_ashrrev_i64, v_lshl_add_u64,
// v_mad_u64_u32. `wide[i]` says which sources are 64-bit.
absl::Status ExecWide(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  std::vector<bool> wide;
  int defs = 1;
  switch (mi.opc) {
    case Opc::kVMovB64: wide = {true}; break;
    case Opc::kVLshlrevB64: case Opc::kVLshrrevB64: case Opc::kVAshrrevI64: wide = {false, true}; break;
    case Opc::kVLshlAddU64: wide = {true, false, true}; break;
    case Opc::kVMadU64U32: wide = {false, false, true}; defs = 2; break;
    default: return Unsupported(in, "this 64-bit instruction");
  }
  absl::Status st = Arity(in, defs + wide.size());
  if (!st.ok() || !(st = NeedVdst(in, 2)).ok()) return st;
  if (in.mods.clamp) return Unsupported(in, "clamp");
  std::vector<VSrc> lo, hi;
  for (size_t i = 0; i < wide.size(); ++i) {
    const MOperand& o = OperandOr0(mi, SrcName(static_cast<int>(i)));
    lo.push_back(ReadVSrc(w, o, wide[i] ? OpType::kB64 : OpType::kB32, 0));
    hi.push_back(wide[i] ? ReadVSrc(w, o, OpType::kB64, 1) : VSrc{});
  }
  const MOperand& vdst = OperandOr0(mi, OpName::kVdst);
  uint32_t* d0 = w.Row(vdst.cls, vdst.reg);
  uint32_t* d1 = w.Row(vdst.cls, vdst.reg + 1);
  const uint64_t exec = w.Exec();
  uint64_t carry = 0;
  std::vector<Pair64<uint32_t>> s(wide.size());
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    for (size_t i = 0; i < wide.size(); ++i) s[i] = {lo[i][l], hi[i][l]};
    std::optional<Wide64<uint32_t>> r = EvalWideOp(U32Domain{}, mi.opc, s);
    d0[l] = r->lo;
    d1[l] = r->hi;
    if (r->has_flag && r->flag) carry |= uint64_t{1} << l;
  }
  if (defs == 2) WriteMask(w, OperandOr0(mi, OpName::kSdst), carry);
  return absl::OkStatus();
}

absl::Status ExecLaneOps(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  const MOperand &vdst = OperandOr0(mi, OpName::kVdst), &src0 = OperandOr0(mi, OpName::kSrc0),
                 &src1 = OperandOr0(mi, OpName::kSrc1);
  absl::Status st;
  switch (mi.opc) {
    case Opc::kVReadfirstlaneB32: {
      if (!(st = Arity(in, 2)).ok()) return st;
      uint64_t exec = w.Exec();
      int lane = exec ? __builtin_ctzll(exec) : 0;
      WriteScalar(w, vdst, 0, ReadVSrc(w, src0, OpType::kB32, 0)[lane]);
      return absl::OkStatus();
    }
    case Opc::kVReadlaneB32: {
      if (!(st = Arity(in, 3)).ok()) return st;
      int lane = static_cast<int>(ReadScalar(w, src1, OpType::kB32, 0) & 63);
      WriteScalar(w, vdst, 0, ReadVSrc(w, src0, OpType::kB32, 0)[lane]);
      return absl::OkStatus();
    }
    case Opc::kVWritelaneB32: {  // ignores EXEC
      if (!(st = Arity(in, 3)).ok() || !(st = NeedVdst(in)).ok()) return st;
      int lane = static_cast<int>(ReadScalar(w, src1, OpType::kB32, 0) & 63);
      w.Row(vdst.cls, vdst.reg)[lane] = ReadScalar(w, src0, OpType::kB32, 0);
      return absl::OkStatus();
    }
    default:
      return Unsupported(in, "this lane instruction");
  }
}

// v_cndmask_b32 vdst, src0 (false), src1 (true), mask; float neg/abs allowed in VOP3.
absl::Status ExecCndmask(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  absl::Status st = Arity(in, 4);
  if (!st.ok() || !(st = NeedVdst(in)).ok()) return st;
  VSrc a = ReadVSrc(w, OperandOr0(mi, OpName::kSrc0), OpType::kF32, 0),
       b = ReadVSrc(w, OperandOr0(mi, OpName::kSrc1), OpType::kF32, 0);
  uint64_t m = ReadMask(w, OperandOr0(mi, OpName::kSrc2));
  const MOperand& vdst = OperandOr0(mi, OpName::kVdst);
  uint32_t* d = w.Row(vdst.cls, vdst.reg);
  const uint64_t exec = w.Exec();
  auto mod = [&](uint32_t v, int i) {
    if (in.mods.abs >> i & 1) v &= 0x7fffffffu;
    if (in.mods.neg >> i & 1) v ^= 0x80000000u;
    return v;
  };
  for (int l = 0; l < kLanes; ++l)
    if (exec >> l & 1) d[l] = (m >> l & 1) ? mod(b[l], 1) : mod(a[l], 0);
  return absl::OkStatus();
}

// v_pk_mov_b32 vdst[2], src0[2], src1[2]: lo = src0 dword op_sel[0], hi = src1 dword op_sel[1].
absl::Status ExecPkMov(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  absl::Status st = Arity(in, 3);
  if (!st.ok() || !(st = NeedVdst(in, 2)).ok()) return st;
  VSrc a = ReadVSrc(w, OperandOr0(mi, OpName::kSrc0), OpType::kB64, in.mods.op_sel & 1);
  VSrc b = ReadVSrc(w, OperandOr0(mi, OpName::kSrc1), OpType::kB64, (in.mods.op_sel >> 1) & 1);
  const MOperand& vdst = OperandOr0(mi, OpName::kVdst);
  uint32_t* d0 = w.Row(vdst.cls, vdst.reg);
  uint32_t* d1 = w.Row(vdst.cls, vdst.reg + 1);
  const uint64_t exec = w.Exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    uint32_t x = a[l], y = b[l];
    d0[l] = x;
    d1[l] = y;
  }
  return absl::OkStatus();
}

// Everything with one 32-bit result per lane from 32-bit sources.
absl::Status ExecGeneric(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  const int defs = Info(mi.opc).num_defs;
  if (defs != 1 || mi.ops.size() < 2) return Unsupported(in, "this instruction");
  absl::Status st = NeedVdst(in);
  if (!st.ok()) return st;
  // clamp: the saturating adds of semantics.h EvalIntOpClamped; on any other
  // integer instruction, as omod, neg, abs and op_sel, not emulated.
  const bool clamp = in.mods.clamp;
  if (clamp && !EvalIntOpClamped(U32Domain{}, mi.opc, std::vector<uint32_t>(4, 0)))
    return Unsupported(in, "clamp on this integer instruction (only v_add_i32, v_add_u32, v_sub_u32 and v_subrev_u32 saturate)");
  if (in.mods.omod || in.mods.neg || in.mods.abs || in.mods.op_sel)
    return Unsupported(in, "a VOP3 modifier on an integer instruction");
  // The sources src0..src2 present. (An operand a malformed text gives past
  // src2 has no name; semantics.h reads no fourth source, so it never mattered.)
  // v_bitop3_b16's operands are 16-bit: an inline float constant is its f16 bits.
  const OpType type = mi.opc == Opc::kVBitop3B16 ? OpType::kF16 : OpType::kB32;
  std::vector<VSrc> src;
  for (int k = 0; k < 3; ++k)
    if (const MOperand* o = FindOperand(mi, SrcName(k))) src.push_back(ReadVSrc(w, *o, type, 0));
  const size_t nsrc = src.size();
  const bool mbcnt = mi.opc == Opc::kVMbcntLoU32B32 || mi.opc == Opc::kVMbcntHiU32B32;
  std::vector<uint32_t> s(std::max<size_t>(nsrc + (mbcnt ? 1 : 0), 4), 0);
  // v_bitop3_b32/_b16: the truth table is the fourth value (semantics.h EvalIntOp).
  if (const MOperand* table = FindOperand(mi, OpName::kBitop3)) {
    if (nsrc != 3 || table->kind != MOperand::Kind::kImm) return Arity(in, 5);
    s[3] = static_cast<uint32_t>(table->imm);
  }
  const MOperand& vdst = OperandOr0(mi, OpName::kVdst);
  uint32_t* d = w.Row(vdst.cls, vdst.reg);
  const uint64_t exec = w.Exec();
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    for (size_t i = 0; i < nsrc; ++i)
      s[i] = in.mods.sdwa && i < 2 ? SdwaSource(src[i][l], in.mods.src_sel[i], in.mods.src_sext[i]) : src[i][l];
    if (mbcnt) {  // lanes below this one, within the instruction's half of the wave
      int k = mi.opc == Opc::kVMbcntLoU32B32 ? l : l - 32;
      s[2] = k <= 0 ? 0u : k >= 32 ? 0xffffffffu : (1u << k) - 1;
    }
    std::optional<uint32_t> r = clamp ? EvalIntOpClamped(U32Domain{}, mi.opc, s) : EvalIntOp(U32Domain{}, mi.opc, s);
    if (!r) return Unsupported(in, "this instruction");
    d[l] = in.mods.sdwa ? SdwaDest(d[l], *r, in.mods.dst_sel, in.mods.dst_unused) : *r;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ExecVector(ExecContext& c, Wave& w, const Inst& in) {
  bool handled = false;
  absl::Status st = ExecFloat(c, w, in, &handled);
  if (!handled) {
    const Opc o = in.mi.opc;
    if (IsCompare(o)) st = ExecCompare(w, in);
    else if (Info(o).num_defs == 2 && o != Opc::kVMadU64U32) st = ExecCarry(w, in);
    else if (o == Opc::kVMovB64 || o == Opc::kVLshlrevB64 || o == Opc::kVLshrrevB64 ||
             o == Opc::kVAshrrevI64 || o == Opc::kVLshlAddU64 || o == Opc::kVMadU64U32)
      st = ExecWide(w, in);
    else if (o == Opc::kVReadfirstlaneB32 || o == Opc::kVReadlaneB32 || o == Opc::kVWritelaneB32)
      st = ExecLaneOps(w, in);
    else if (o == Opc::kVCndmaskB32) st = ExecCndmask(w, in);
    else if (o == Opc::kVPkMovB32) st = ExecPkMov(w, in);
    else if (o == Opc::kVAccvgprRead || o == Opc::kVAccvgprWrite || o == Opc::kVAccvgprMov) {
      // Moves between the VGPR and AGPR files (v_accvgpr_write also takes a constant).
      if (!(st = Arity(in, 2)).ok()) return st;
      if (!(st = NeedVdst(in)).ok()) return st;
      VSrc s = ReadVSrc(w, OperandOr0(in.mi, OpName::kSrc0), OpType::kB32, 0);
      const MOperand& vdst = OperandOr0(in.mi, OpName::kVdst);
      uint32_t* d = w.Row(vdst.cls, vdst.reg);
      const uint64_t exec = w.Exec();
      for (int l = 0; l < kLanes; ++l)
        if (exec >> l & 1) d[l] = s[l];
    } else {
      st = ExecGeneric(w, in);
    }
  }
  if (st.ok()) ++w.pc;
  return st;
}

}  // namespace kir::emu
