// Index expressions to MIR: affine forms summed term by term (uniform parts on
// the SALU, per-lane parts on the VALU), atoms computed once per kernel, and
// exact floordiv/mod by any positive constant.
#include <cstdint>
#include <optional>

#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/lower/lower_internal.h"
#include "compiler/analysis/magic_division.h"

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
    for (const AffineTerm& t : f.terms) (DependsOnLoop(*t.atom) ? dep : inv).terms.push_back(t);
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
  // Forms that differ only in their constant share the rest: the terms are
  // summed once (cached as the form with constant 0) and each constant costs
  // one add, the add the sum would end with anyway.
  if (f.constant != 0) {
    AffineForm terms_only = f;
    terms_only.constant = 0;
    absl::StatusOr<IVal> t = EmitAffine(terms_only);
    if (!t.ok()) return t.status();
    IVal r = Add(*t, Const(f.constant));
    affine_cache_[key] = r;
    return r;
  }
  IVal vacc = Const(0), uacc = Const(0);
  for (const AffineTerm& t : f.terms) {
    absl::StatusOr<IVal> a = EmitAtom(*t.atom);
    if (!a.ok()) return a.status();
    IVal& acc = t.atom->uniform ? uacc : vacc;
    int k = Log2IfPow2(t.coeff);
    if (a->kind == IVal::Kind::kVgpr && k > 0 && acc.kind != IVal::Kind::kConst) {
      // (atom << k) + acc in one VOP3 instruction.
      acc = Vgpr(b_.Valu(Opc::kVLshlAddU32, {a->Op(), MOperand::Imm(k), acc.Op()}));
      continue;
    }
    if (a->kind == IVal::Kind::kVgpr && k < 0 && t.coeff > 0 && t.atom->range.lo >= 0 &&
        t.atom->range.hi < (1 << 24) && t.coeff < (1 << 24) && acc.kind != IVal::Kind::kConst) {
      acc = Vgpr(b_.Valu(Opc::kVMadU32U24, {a->Op(), MOperand::Imm(t.coeff), acc.Op()}));
      continue;
    }
    IVal term = Mul(*a, t.coeff, t.atom->range);
    acc = Add(acc, term);
  }
  IVal r = Add(vacc, uacc);
  affine_cache_[key] = r;
  return r;
}

namespace {

// The k with r inside [k * 2^32, (k + 1) * 2^32), if there is one.
std::optional<int64_t> OneWindow(Interval r) {
  int64_t k = r.lo >> 32;
  if ((r.hi >> 32) != k) return std::nullopt;
  return k;
}

IVal64 Const64(int64_t c) {
  return IVal64{Const(static_cast<uint32_t>(c)), Const(static_cast<int32_t>(static_cast<uint64_t>(c) >> 32)),
                Interval{c, c}};
}

}  // namespace

MOperand LowerCtx::ScalarOperand(IVal v) {
  if (v.kind != IVal::Kind::kConst || IsInlineInt(v.c)) return v.Op();
  return MirBuilder::S(b_.SConst(static_cast<uint32_t>(v.c)));
}

IVal64 LowerCtx::Widen(IVal v, Interval r) {
  if (v.kind == IVal::Kind::kConst) return Const64(v.c);
  if (std::optional<int64_t> k = OneWindow(r)) return IVal64{v, Const(*k), r};
  // In the signed 32-bit range (the callers ensure it): the sign extension.
  return IVal64{v, Sgpr(b_.Salu(Opc::kSAshrI32, {v.Op(), MOperand::Imm(31)})), r};
}

IVal64 LowerCtx::Add64(const IVal64& a, const IVal64& b) {
  Interval r = IvAdd(a.range, b.range);
  if (a.lo.kind == IVal::Kind::kConst && a.hi.kind == IVal::Kind::kConst && a.range.IsConst() &&
      b.range.IsConst())
    return Const64(r.lo);
  if (a.range.IsConst() && a.range.lo == 0) return b;
  if (b.range.IsConst() && b.range.lo == 0) return a;
  // The sum's high dword is known when its range lies in one 2^32 window:
  // the low dwords' 32-bit sum is then the whole story.
  if (std::optional<int64_t> k = OneWindow(r)) return IVal64{Add(a.lo, b.lo), Const(*k), r};
  // Two constants in one SOP2: the first goes to an SGPR unless inline.
  auto both_const = [](IVal x, IVal y) { return x.kind == IVal::Kind::kConst && y.kind == IVal::Kind::kConst; };
  const MOperand alo = both_const(a.lo, b.lo) ? ScalarOperand(a.lo) : a.lo.Op();
  const MOperand ahi = both_const(a.hi, b.hi) ? ScalarOperand(a.hi) : a.hi.Op();
  // s_add_u32 sets SCC to the carry out of bit 31, s_addc_u32 adds it
  // (amdgcn-isa-notes.md; the scheduler keeps SCC's producer and reader in order).
  int lo = b_.Salu(Opc::kSAddU32, {alo, b.lo.Op()});
  int hi = b_.Salu(Opc::kSAddcU32, {ahi, b.hi.Op()});
  return IVal64{Sgpr(lo), Sgpr(hi), r};
}

absl::StatusOr<IVal64> LowerCtx::EmitAffine64(const AffineForm& f) {
  const Interval fr = f.Range();
  if (f.terms.empty()) return Const64(f.constant);
  // A form whose value stays in one 2^32 window or in the signed 32-bit range
  // is the 32-bit form's value widened (and shares its cache).
  if (OneWindow(fr) || InI32(fr)) {
    absl::StatusOr<IVal> v = EmitAffine(f);
    if (!v.ok()) return v.status();
    return Widen(*v, fr);
  }
  std::string key = f.Key();
  auto it = affine64_cache_.find(key);
  if (it != affine64_cache_.end()) return it->second;
  auto keep = [&](IVal64 r) {
    affine64_cache_[key] = r;
    return r;
  };
  if (!loops_.empty()) {  // the loop-invariant part separately (hoisted), as EmitAffine
    AffineForm inv, dep;
    inv.constant = f.constant;
    for (const AffineTerm& t : f.terms) (DependsOnLoop(*t.atom) ? dep : inv).terms.push_back(t);
    if (!inv.terms.empty() && !dep.terms.empty()) {
      absl::StatusOr<IVal64> a = EmitAffine64(inv);
      if (!a.ok()) return a.status();
      absl::StatusOr<IVal64> b = EmitAffine64(dep);
      if (!b.ok()) return b.status();
      return keep(Add64(*a, *b));
    }
  }
  if (f.constant != 0) {
    AffineForm terms_only = f;
    terms_only.constant = 0;
    absl::StatusOr<IVal64> t = EmitAffine64(terms_only);
    if (!t.ok()) return t.status();
    return keep(Add64(*t, Const64(f.constant)));
  }
  IVal64 acc = Const64(0);
  for (const AffineTerm& t : f.terms) {
    const Atom& atom = *t.atom;
    if (!atom.uniform)
      return absl::InternalError(absl::StrCat("EmitAffine64 of a per-lane form ", key));
    absl::StatusOr<IVal> a = EmitAtom(atom);
    if (!a.ok()) return a.status();
    const Interval ar = atom.range, pr = IvScale(ar, t.coeff);
    IVal64 term;
    if (a->kind == IVal::Kind::kConst) {
      term = Const64(a->c * t.coeff);
    } else if (OneWindow(pr) || InI32(pr)) {
      term = Widen(Mul(*a, t.coeff, ar), pr);
    } else if (ar.lo >= 0 && ar.hi <= 0xffffffffll) {
      // A non-negative factor: the unsigned 32x64-bit product mod 2^64,
      // a * c_lo (s_mul_i32 low, s_mul_hi_u32 high) + 2^32 * a * c_hi.
      const uint64_t cu = static_cast<uint64_t>(t.coeff);
      const uint32_t clo = static_cast<uint32_t>(cu), chi = static_cast<uint32_t>(cu >> 32);
      int lo = b_.Salu(Opc::kSMulI32, {a->Op(), MOperand::Imm(clo)});
      int hi = b_.Salu(Opc::kSMulHiU32, {a->Op(), MOperand::Imm(clo)});
      if (chi != 0)
        hi = b_.Salu(Opc::kSAddU32, {MirBuilder::S(hi), MirBuilder::S(b_.Salu(Opc::kSMulI32, {a->Op(), MOperand::Imm(chi)}))});
      term = IVal64{Sgpr(lo), Sgpr(hi), pr};
    } else if (InI32(ar) && t.coeff >= kI32Min && t.coeff <= kI32Max) {
      // A factor that may be negative: the signed 32x32-bit product.
      int lo = b_.Salu(Opc::kSMulI32, {a->Op(), MOperand::Imm(static_cast<uint32_t>(t.coeff))});
      int hi = b_.Salu(Opc::kSMulHiI32, {a->Op(), MOperand::Imm(static_cast<uint32_t>(t.coeff))});
      term = IVal64{Sgpr(lo), Sgpr(hi), pr};
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "the term ", t.coeff, " * '", atom.source.empty() ? atom.key : atom.source, "' (the atom ranges over [",
          ar.lo, ", ", ar.hi, "]) needs a 64-bit product of a possibly negative value and a coefficient "
          "outside the signed 32-bit range, which kirc does not form; keep the index non-negative"));
    }
    acc = Add64(acc, term);
  }
  return keep(acc);
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
      absl::StatusOr<IVal> q = EmitFloorDivMod(a);
      if (!q.ok()) return q.status();
      r = *q;
      break;
    }
    case Atom::Kind::kMul: {
      for (size_t i = 0; i < a.inner.size(); ++i) {
        Interval r = a.inner[i].Range();
        if (!InI32(r))
          return absl::InvalidArgumentError(absl::StrCat(
              "the factor '", i < a.source_operands.size() ? a.source_operands[i] : a.inner[i].Key(), "' of '",
              a.source.empty() ? a.key : a.source, "' ranges over [", r.lo, ", ", r.hi,
              "], outside the signed 32-bit range kirc multiplies in; narrow the index"));
      }
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

absl::StatusOr<IVal> LowerCtx::EmitFloorDivMod(const Atom& a) {
  const AffineForm& x = a.inner[0];
  const int64_t d = a.divisor;
  const bool is_mod = a.kind == Atom::Kind::kMod;
  const int k = Log2IfPow2(d);
  // x (here the user's dividend less the multiples of d that were split off,
  // e.g. %k mod 7 with %k = -1200000000 + 2 * %k.i is (2 * %k.i + 4) mod 7) is
  // computed modulo 2^32: its adds, multiplies and shifts wrap. So its value
  // is known exactly in any window of 2^32 consecutive integers that holds
  // its range: x + bias, with bias a multiple of d, lies in [0, 2^32) and
  // floor(x / d) = floor((x + bias) / d) - bias / d, x mod d = (x + bias) mod d.
  const Interval rx = x.Range();
  int64_t max_x = (int64_t{1} << 32) - 1;  // what the division below handles exactly
  absl::StatusOr<MagicDivisor> full = FindMagicDivisor(d, max_x);
  if (k < 0 && !full.ok()) {
    // The largest max_x the 32-bit multiply-high handles for this d
    // ("add"-type divisors such as 7 need 33 bits beyond it).
    int64_t lo = 0, hi = max_x;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo + 1) / 2;
      if (FindMagicDivisor(d, mid).ok()) lo = mid; else hi = mid - 1;
    }
    max_x = lo;
  }
  // No bias when x is already in [0, max_x] (kirc's code before windows had
  // the same); else the multiple of d that brings its lowest value into [0, d).
  const int64_t bias = rx.lo >= 0 && rx.hi <= max_x ? 0 : -FloorDiv(rx.lo, d) * d;
  const int64_t hi = rx.hi + bias;
  if (hi > max_x) {
    // Name the expression as written: the dividend's range as the user wrote
    // it spans at least as many values as x's (x drops terms, never adds).
    const Interval ur = a.source_operands.empty() ? rx : a.source_range;
    const int64_t span_ok = max_x - d + 2;  // always enough: x + bias <= (span - 1) + (d - 1)
    return absl::InvalidArgumentError(absl::StrCat(
        "the dividend '", a.source_operands.empty() ? x.Key() : a.source_operands[0], "' of '",
        a.source.empty() ? a.key : a.source, "' ranges over [", ur.lo, ", ", ur.hi, "] (",
        static_cast<__int128>(ur.hi) - ur.lo + 1 > (int64_t{1} << 62) ? std::string("more than 2^62")
                                                                        : absl::StrCat(ur.hi - ur.lo + 1),
        " values); kirc's 32-bit division by ", d, " is exact for a dividend spanning at most ", span_ok,
        " consecutive values; narrow the index"));
  }
  absl::StatusOr<IVal> xv = EmitAffine(x);
  if (!xv.ok()) return xv.status();
  bool uniform = xv->kind != IVal::Kind::kVgpr;
  if (k >= 0) {
    // x & (d-1) is the floor modulo in any window (d divides 2^32); a logical
    // shift is the floor quotient of a value in [0, 2^32), an arithmetic one
    // of a value in the signed range.
    if (is_mod)
      return uniform ? Sgpr(b_.Salu(Opc::kSAndB32, {xv->Op(), MOperand::Imm(d - 1)}))
                     : Vgpr(b_.Valu(Opc::kVAndB32, {MOperand::Imm(d - 1), xv->Op()}));
    const bool signed_range = rx.lo < 0 && InI32(rx);
    IVal xb = signed_range ? *xv : Add(*xv, Const(bias));
    Opc so = signed_range ? Opc::kSAshrI32 : Opc::kSLshrB32;
    Opc vo = signed_range ? Opc::kVAshrrevI32 : Opc::kVLshrrevB32;
    IVal q = uniform ? Sgpr(b_.Salu(so, {xb.Op(), MOperand::Imm(k)}))
                     : Vgpr(b_.Valu(vo, {MOperand::Imm(k), xb.Op()}));
    return signed_range ? q : Add(q, Const(-bias / d));
  }
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
