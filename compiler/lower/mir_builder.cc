#include "compiler/isa/encoding.h"
#include "compiler/lower/mir_builder.h"

#include <set>
#include <utility>

namespace kir {

bool IsInlineInt(int64_t v) { return IsInlineIntPattern(v); }

bool IsInlineF32(uint32_t b) { return b == 0 || InlineF32Name(b).has_value(); }

MInst& MirBuilder::Emit(Opc opc, std::vector<MOperand> ops) {
  MInst mi;
  mi.opc = opc;
  mi.ops = std::move(ops);
  mi.id = f_.next_inst_id++;
  mi.kir_op = kir_op_;
  f_.insts.push_back(std::move(mi));
  return f_.insts.back();
}

namespace {

bool IsVgpr(const MOperand& o) { return o.IsReg() && o.cls == RegClass::kVgpr; }
bool IsSgpr(const MOperand& o) { return o.IsReg() && o.cls == RegClass::kSgpr; }

bool Commutative(Opc opc) {
  switch (opc) {
    case Opc::kVAddU32:
    case Opc::kVMulU32U24:
    case Opc::kVAndB32:
    case Opc::kVOrB32:
    case Opc::kVXorB32:
    case Opc::kVAddF32:
    case Opc::kVMulF32:
      return true;
    default:
      return false;
  }
}

}  // namespace

MOperand MirBuilder::ToVgpr(const MOperand& o) {
  if (IsVgpr(o)) return o;
  if (o.kind == MOperand::Kind::kImm) return V(VConst(static_cast<uint32_t>(o.imm)));
  int v = NewV();
  Emit(Opc::kVMovB32, {V(v), o});
  return V(v);
}

int MirBuilder::VConst(uint32_t c) {
  auto it = vconst_.find(c);
  if (it != vconst_.end()) return it->second;
  int v = NewV();
  MOperand src = MOperand::Imm(c);
  // Inline constants and literals are both legal in v_mov_b32 (VOP1).
  Emit(Opc::kVMovB32, {V(v), src});
  vconst_[c] = v;
  return v;
}

int MirBuilder::SConst(uint32_t c) {
  auto it = sconst_.find(c);
  if (it != sconst_.end()) return it->second;
  int s = NewS();
  Emit(Opc::kSMovB32, {S(s), MOperand::Imm(c)});
  sconst_[c] = s;
  return s;
}

void MirBuilder::Legalize(Opc opc, std::vector<MOperand>& srcs) {
  const OpcInfo& info = Info(opc);
  bool vop2 = info.flags & kVop2;
  bool vop3 = info.flags & kVop3Only;
  bool f32ops = info.flags & kFloatOperands;
  bool f16ops = info.flags & kF16Operands;
  // Immediates: inline where possible; float instructions see float inline forms.
  for (MOperand& o : srcs) {
    if (o.kind != MOperand::Kind::kImm || o.float_form) continue;
    uint32_t bits = static_cast<uint32_t>(o.imm);
    if (f32ops && bits != 0 && IsInlineF32(bits)) {
      o.float_form = true;
    } else if (f32ops || f16ops) {
      if (bits != 0) o.imm = bits, o.float_form = false;  // literal (or materialised below)
    }
  }
  auto is_literal = [&](const MOperand& o) {
    if (o.kind != MOperand::Kind::kImm) return false;
    if (o.float_form) return false;
    uint32_t bits = static_cast<uint32_t>(o.imm);
    if (f16ops) return bits != 0;  // packed-f16 inline constants have their own rules: avoid
    if (f32ops) return bits != 0;
    return !IsInlineInt(o.imm);
  };
  if (vop2 && srcs.size() >= 2 && !IsVgpr(srcs[1]) && Commutative(opc) && IsVgpr(srcs[0]))
    std::swap(srcs[0], srcs[1]);
  if (vop2 && srcs.size() >= 2 && !IsVgpr(srcs[1])) srcs[1] = ToVgpr(srcs[1]);
  // Literals: one, in src0 of a VOP1/VOP2 encoding only. Elsewhere the value
  // goes to an SGPR when the constant bus is otherwise unused (no VALU
  // instruction needed), else to a VGPR.
  for (size_t i = 0; i < srcs.size(); ++i) {
    if (!is_literal(srcs[i])) continue;
    bool allowed = !vop3 && i == 0;
    if (allowed) continue;
    bool bus_used = false;
    for (size_t j = 0; j < srcs.size(); ++j)
      if (j != i && (IsSgpr(srcs[j]) || srcs[j].kind == MOperand::Kind::kSpecial || is_literal(srcs[j])))
        bus_used = true;
    uint32_t v = static_cast<uint32_t>(srcs[i].imm);
    srcs[i] = bus_used || (vop2 && i == 1) ? V(VConst(v)) : S(SConst(v));
  }
  // Constant bus: at most one distinct scalar value (SGPR or literal).
  std::set<std::pair<int, int>> scalars;
  // 64-bit SGPR operands (lane masks) cannot move to a VGPR: they claim the bus first.
  for (const MOperand& o : srcs)
    if (IsSgpr(o) && o.count == 2) scalars.insert({o.reg, o.sub});
  for (size_t i = 0; i < srcs.size(); ++i) {
    MOperand& o = srcs[i];
    bool scalar = IsSgpr(o) || o.kind == MOperand::Kind::kSpecial || is_literal(o);
    if (!scalar) continue;
    std::pair<int, int> key = IsSgpr(o) ? std::make_pair(o.reg, o.sub) : std::make_pair(-1 - int(i), 0);
    if (scalars.count(key)) continue;
    if (scalars.empty()) {
      scalars.insert(key);
      continue;
    }
    o = ToVgpr(o);
  }
}

int MirBuilder::Valu(Opc opc, std::vector<MOperand> srcs) {
  int d = NewV();
  ValuTo(opc, V(d), std::move(srcs));
  return d;
}

void MirBuilder::ValuTo(Opc opc, MOperand dst, std::vector<MOperand> srcs) {
  Legalize(opc, srcs);
  std::vector<MOperand> ops;
  ops.push_back(dst);
  for (MOperand& s : srcs) ops.push_back(s);
  Emit(opc, std::move(ops));
}

int MirBuilder::Salu(Opc opc, std::vector<MOperand> srcs) {
  int literals = 0;
  for (MOperand& o : srcs) {
    if (o.kind == MOperand::Kind::kImm && !IsInlineInt(o.imm)) {
      if (++literals > 1) o = S(SConst(static_cast<uint32_t>(o.imm)));
    }
  }
  int d = NewS();
  std::vector<MOperand> ops;
  ops.push_back(S(d));
  for (MOperand& s : srcs) ops.push_back(s);
  Emit(opc, std::move(ops));
  return d;
}

}  // namespace kir
