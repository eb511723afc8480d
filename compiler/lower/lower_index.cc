// Index expressions to MIR: affine forms summed term by term (uniform parts on
// the SALU, per-lane parts on the VALU), atoms computed once per kernel, and
// exact floordiv/mod by any positive constant.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "compiler/lower/lower_internal.h"
#include "compiler/lower/magic_division.h"

namespace kir {
namespace {

constexpr int64_t kI32Min = -(int64_t{1} << 31);
constexpr int64_t kI32Max = (int64_t{1} << 31) - 1;

IVal Const(int64_t c) { return IVal{IVal::Kind::kConst, c, -1}; }
IVal Sgpr(int r) { return IVal{IVal::Kind::kSgpr, 0, r}; }
IVal Vgpr(int r) { return IVal{IVal::Kind::kVgpr, 0, r}; }

int Log2IfPow2(int64_t c) {
  if (c <= 0 || (c & (c - 1)) != 0) return -1;
  return __builtin_ctzll(static_cast<uint64_t>(c));
}

bool InI32(Interval r) { return r.lo >= kI32Min && r.hi <= kI32Max; }

}  // namespace

IVal LowerCtx::ToVgpr(IVal a) {
  if (a.kind == IVal::Kind::kVgpr) return a;
  if (a.kind == IVal::Kind::kConst) return Vgpr(b_.VConst(static_cast<uint32_t>(a.c)));
  return Vgpr(b_.ToVgpr(a.Op()).reg);
}

IVal LowerCtx::Add(IVal a, IVal b) {
  if (a.kind == IVal::Kind::kConst && b.kind == IVal::Kind::kConst) return Const(a.c + b.c);
  if (a.kind == IVal::Kind::kConst && a.c == 0) return b;
  if (b.kind == IVal::Kind::kConst && b.c == 0) return a;
  if (a.kind != IVal::Kind::kVgpr && b.kind != IVal::Kind::kVgpr)
    return Sgpr(b_.Salu(Opc::kSAddU32, {a.Op(), b.Op()}));
  return Vgpr(b_.Valu(Opc::kVAddU32, {a.Op(), b.Op()}));
}

static IVal Sub(LowerCtx& c, IVal a, IVal b) {
  if (a.kind == IVal::Kind::kConst && b.kind == IVal::Kind::kConst) return Const(a.c - b.c);
  if (b.kind == IVal::Kind::kConst) return c.Add(a, Const(-b.c));
  if (a.kind != IVal::Kind::kVgpr && b.kind != IVal::Kind::kVgpr)
    return Sgpr(c.b_.Salu(Opc::kSSubU32, {a.Op(), b.Op()}));
  if (b.kind == IVal::Kind::kVgpr) return Vgpr(c.b_.Valu(Opc::kVSubU32, {a.Op(), b.Op()}));
  return Vgpr(c.b_.Valu(Opc::kVSubrevU32, {b.Op(), a.Op()}));  // a - b, with a in src1
}

IVal LowerCtx::Mul(IVal a, int64_t c, Interval a_range) {
  if (a.kind == IVal::Kind::kConst) return Const(a.c * c);
  if (c == 0) return Const(0);
  if (c == 1) return a;
  if (c < 0 && a.kind == IVal::Kind::kSgpr) {
    for (size_t l = 0; l < loops_.size(); ++l)
      if (loops_[l].counter == a.vreg) return Sgpr(ScaledCounter(static_cast<int>(l), c));
  }
  if (c < 0) return Sub(*this, Const(0), Mul(a, -c, a_range));
  int k = Log2IfPow2(c);
  if (a.kind == IVal::Kind::kSgpr) {
    // A loop counter times a constant: a strength-reduced register advanced at the latch.
    for (size_t l = 0; l < loops_.size(); ++l)
      if (loops_[l].counter == a.vreg) return Sgpr(ScaledCounter(static_cast<int>(l), c));
    if (k >= 0) return Sgpr(b_.Salu(Opc::kSLshlB32, {a.Op(), MOperand::Imm(k)}));
    return Sgpr(b_.Salu(Opc::kSMulI32, {a.Op(), MOperand::Imm(c)}));
  }
  if (k >= 0) return Vgpr(b_.Valu(Opc::kVLshlrevB32, {MOperand::Imm(k), a.Op()}));
  // v_mul_u32_u24 multiplies the low 24 bits of each source: exact here only
  // when both fit (failure class 2: a 24-bit fast path on wider values).
  if (a_range.lo >= 0 && a_range.hi < (1 << 24) && c < (1 << 24))
    return Vgpr(b_.Valu(Opc::kVMulU32U24, {MOperand::Imm(c), a.Op()}));
  return Vgpr(b_.Valu(Opc::kVMulLoU32, {a.Op(), MOperand::Imm(c)}));
}

IVal LowerCtx::MulVals(IVal a, IVal b) {
  if (a.kind == IVal::Kind::kConst) return Mul(b, a.c, {kI32Min, kI32Max});
  if (b.kind == IVal::Kind::kConst) return Mul(a, b.c, {kI32Min, kI32Max});
  if (a.kind == IVal::Kind::kSgpr && b.kind == IVal::Kind::kSgpr)
    return Sgpr(b_.Salu(Opc::kSMulI32, {a.Op(), b.Op()}));
  return Vgpr(b_.Valu(Opc::kVMulLoU32, {a.Op(), b.Op()}));
}

absl::StatusOr<IVal> LowerCtx::EmitAffine(const AffineForm& f) {
  if (f.terms.empty()) return Const(f.constant);
  std::string key = f.Key();
  auto it = affine_cache_.find(key);
  if (it != affine_cache_.end()) return it->second;
  // Inside loops: the loop-invariant part separately (hoisted ahead of the
  // loop by HoistAccessInvariants, so found in the cache here) plus the rest.
  if (!loops_.empty()) {
    AffineForm inv, dep;
    inv.constant = f.constant;
    for (const AffineTerm& t : f.terms) (DependsOnLoop(t.atom) ? dep : inv).terms.push_back(t);
    if (!inv.terms.empty() && !dep.terms.empty()) {
      absl::StatusOr<IVal> a = EmitAffine(inv);
      if (!a.ok()) return a.status();
      absl::StatusOr<IVal> b = EmitAffine(dep);
      if (!b.ok()) return b.status();
      IVal r = Add(*a, *b);
      affine_cache_[key] = r;
      return r;
    }
  }
  IVal vacc = Const(0), uacc = Const(0);
  for (const AffineTerm& t : f.terms) {
    absl::StatusOr<IVal> a = EmitAtom(t.atom);
    if (!a.ok()) return a.status();
    IVal& acc = t.atom.uniform ? uacc : vacc;
    int k = Log2IfPow2(t.coeff);
    if (a->kind == IVal::Kind::kVgpr && k > 0 && acc.kind != IVal::Kind::kConst) {
      // (atom << k) + acc in one VOP3 instruction.
      acc = Vgpr(b_.Valu(Opc::kVLshlAddU32, {a->Op(), MOperand::Imm(k), acc.Op()}));
      continue;
    }
    if (a->kind == IVal::Kind::kVgpr && k < 0 && t.coeff > 0 && t.atom.range.lo >= 0 &&
        t.atom.range.hi < (1 << 24) && t.coeff < (1 << 24) && acc.kind != IVal::Kind::kConst) {
      acc = Vgpr(b_.Valu(Opc::kVMadU32U24, {a->Op(), MOperand::Imm(t.coeff), acc.Op()}));
      continue;
    }
    IVal term = Mul(*a, t.coeff, t.atom.range);
    acc = Add(acc, term);
  }
  IVal r = Add(Add(vacc, uacc), Const(f.constant));
  affine_cache_[key] = r;
  return r;
}

absl::StatusOr<IVal> LowerCtx::EmitAtom(const Atom& a) {
  auto it = atom_cache_.find(a.key);
  if (it != atom_cache_.end()) return it->second;
  IVal r;
  switch (a.kind) {
    case Atom::Kind::kTid: {
      if (!t_.packed_workitem_ids) {
        r = Vgpr(workitem_[a.dim]);
        break;
      }
      // Packed work-item ids: x in v0[9:0], y in [19:10], z in [29:20]
      // (AMDGPUUsage; amdgcn-isa-notes.md 6.1).
      if (a.dim == 0)
        r = Vgpr(b_.Valu(Opc::kVAndB32, {MOperand::Imm(0x3ff), MirBuilder::V(workitem_[0])}));
      else
        r = Vgpr(b_.Valu(Opc::kVBfeU32, {MirBuilder::V(workitem_[0]), MOperand::Imm(10 * a.dim),
                                         MOperand::Imm(10)}));
      break;
    }
    case Atom::Kind::kWg:
      r = Sgpr(wg_[a.dim]);
      break;
    case Atom::Kind::kLoopVar: {
      int l = LoopOfAtom(a);
      if (l < 0)
        return absl::InternalError(absl::StrCat("loop variable %", a.name, " outside its loop"));
      r = Sgpr(loops_[l].counter);
      return r;  // not cached: the counter is the loop's own register
    }
    case Atom::Kind::kFloorDiv:
    case Atom::Kind::kMod: {
      absl::StatusOr<IVal> q = EmitFloorDivMod(a.inner[0], a.divisor, a.kind == Atom::Kind::kMod);
      if (!q.ok()) return q.status();
      r = *q;
      break;
    }
    case Atom::Kind::kMul: {
      for (const AffineForm& in : a.inner)
        if (!InI32(in.Range()))
          return absl::InvalidArgumentError(absl::StrCat(
              "the factor '", in.Key(), "' of '", a.key, "' can leave the signed 32-bit range"));
      absl::StatusOr<IVal> x = EmitAffine(a.inner[0]);
      if (!x.ok()) return x.status();
      absl::StatusOr<IVal> y = EmitAffine(a.inner[1]);
      if (!y.ok()) return y.status();
      r = MulVals(*x, *y);
      break;
    }
  }
  atom_cache_[a.key] = r;
  return r;
}

absl::StatusOr<IVal> LowerCtx::EmitFloorDivMod(const AffineForm& x, int64_t d, bool is_mod) {
  Interval rx = x.Range();
  if (!InI32(rx))
    return absl::InvalidArgumentError(
        absl::StrCat("the dividend '", x.Key(), "' of a floordiv/mod by ", d, " ranges over [",
                     rx.lo, ", ", rx.hi, "], outside the signed 32-bit range kirc computes "
                     "indices in; narrow the index"));
  absl::StatusOr<IVal> xv = EmitAffine(x);
  if (!xv.ok()) return xv.status();
  bool uniform = xv->kind != IVal::Kind::kVgpr;
  int k = Log2IfPow2(d);
  if (k >= 0) {
    // Two's complement: x & (d-1) is the floor modulo and an arithmetic shift
    // the floor quotient, for negative x too.
    if (is_mod)
      return uniform ? Sgpr(b_.Salu(Opc::kSAndB32, {xv->Op(), MOperand::Imm(d - 1)}))
                     : Vgpr(b_.Valu(Opc::kVAndB32, {MOperand::Imm(d - 1), xv->Op()}));
    Opc so = rx.lo >= 0 ? Opc::kSLshrB32 : Opc::kSAshrI32;
    Opc vo = rx.lo >= 0 ? Opc::kVLshrrevB32 : Opc::kVAshrrevI32;
    return uniform ? Sgpr(b_.Salu(so, {xv->Op(), MOperand::Imm(k)}))
                   : Vgpr(b_.Valu(vo, {MOperand::Imm(k), xv->Op()}));
  }
  // Bias negative dividends by a multiple of d: floor((x+B)/d) - B/d is exact.
  int64_t bias = rx.lo < 0 ? (-rx.lo + d - 1) / d * d : 0;
  int64_t hi = rx.hi + bias;
  absl::StatusOr<MagicDivisor> magic = FindMagicDivisor(d, hi);
  if (!magic.ok()) return magic.status();
  IVal xb = Add(*xv, Const(bias));
  std::string qkey = absl::StrCat("quot(", x.Key(), ", ", d, ")");
  IVal q;
  auto qit = atom_cache_.find(qkey);
  if (qit != atom_cache_.end()) {
    q = qit->second;
  } else {
    if (uniform) {
      q = Sgpr(b_.Salu(Opc::kSMulHiU32, {xb.Op(), MOperand::Imm(magic->multiplier)}));
      if (magic->shift > 0) q = Sgpr(b_.Salu(Opc::kSLshrB32, {q.Op(), MOperand::Imm(magic->shift)}));
    } else {
      q = Vgpr(b_.Valu(Opc::kVMulHiU32, {xb.Op(), MOperand::Imm(magic->multiplier)}));
      if (magic->shift > 0)
        q = Vgpr(b_.Valu(Opc::kVLshrrevB32, {MOperand::Imm(magic->shift), q.Op()}));
    }
    atom_cache_[qkey] = q;
  }
  if (!is_mod) return Add(q, Const(-bias / d));
  IVal qd = Mul(q, d, {0, hi / d});
  return Sub(*this, xb, qd);
}

}  // namespace kir
