// The semantics of AMDGCN's integer and bit instructions, written once as a
// template over a value domain: uint32_t lanes for the emulator and index
// tests, Z3 bit-vectors for the verifier. So the emulator and the verifier
// cannot disagree about what an instruction computes.
// Facts: amdgcn-isa-notes.md section 7 (shift amounts use the low 5 bits,
// arithmetic wraps modulo 2^32, `rev` forms take the shift amount first,
// v_mul_u32_u24 reads the low 24 bits of each source).
#ifndef KIRC_COMPILER_ISA_SEMANTICS_H_
#define KIRC_COMPILER_ISA_SEMANTICS_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/float_bits.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

// A value domain: 32-bit values with wrapping arithmetic.
// Required members of D (V is D::V):
//   V Const(uint32_t) const;
//   V Add(V, V), Sub(V, V), Mul(V, V) (low 32 bits), MulHiU(V, V) (high 32 of unsigned),
//   V And(V, V), Or(V, V), Xor(V, V), Shl(V, V), LShr(V, V), AShr(V, V)
//     (shift amounts already reduced to 0..31 by the caller),
//   V Select(V cond_nonzero, V a, V b) (a where cond != 0),
//   V Ult(V, V) (1 if unsigned less, else 0), V Eq(V, V) (1 if equal, else 0).
struct U32Domain {
  using V = uint32_t;
  V Const(uint32_t c) const { return c; }
  V Add(V a, V b) const { return a + b; }
  V Sub(V a, V b) const { return a - b; }
  V Mul(V a, V b) const { return a * b; }
  V MulHiU(V a, V b) const { return static_cast<V>((static_cast<uint64_t>(a) * b) >> 32); }
  V And(V a, V b) const { return a & b; }
  V Or(V a, V b) const { return a | b; }
  V Xor(V a, V b) const { return a ^ b; }
  V Shl(V a, V s) const { return a << s; }
  V LShr(V a, V s) const { return a >> s; }
  V AShr(V a, V s) const { return static_cast<V>(static_cast<int32_t>(a) >> s); }
  V Select(V c, V a, V b) const { return c ? a : b; }
  V Ult(V a, V b) const { return a < b ? 1 : 0; }
  V Eq(V a, V b) const { return a == b ? 1 : 0; }
  // The value when the domain knows it (here: always). Lets a definition
  // pick its formula by an immediate operand (v_bitop3's truth table).
  std::optional<uint32_t> Known(V a) const { return a; }
};

// ---------------------------------------------------------------------------
// Extensions for the emulator (hw/emu) and the verifier. Everything below is
// written with the same domain members as EvalIntOp, so both interpreters share it.
//
// Source conventions beyond "assembly order, defs excluded":
//  - SCC-reading SALU ops (s_cselect_b32, s_addc_u32, s_subb_u32) take SCC
//    (0 or 1) as an extra last source; VALU carry-in forms (v_addc_co_u32,
//    v_subb_co_u32, v_subbrev_co_u32) take the lane's carry-in bit (0 or 1) in
//    place of the carry-in mask operand.
//  - SOPK forms (s_cmpk_*, s_addk_i32, s_mulk_i32) take the 16-bit immediate
//    already extended (zero-extended for *_u32, sign-extended otherwise);
//    s_addk_i32/s_mulk_i32 take {sdst's old value, imm}.
//  - v_mbcnt_lo/hi take a third source: the mask of lanes below the current
//    lane within that half (lo: bits 0..31, hi: bits 32..63 shifted down).

namespace sem_detail {
template <class D>
typename D::V Not(const D& d, const typename D::V& a) { return d.Xor(a, d.Const(0xffffffffu)); }
// 1 if a != 0, else 0.
template <class D>
typename D::V NonZero(const D& d, const typename D::V& a) { return d.Xor(d.Eq(a, d.Const(0)), d.Const(1)); }
// Signed a < b.
template <class D>
typename D::V Slt(const D& d, const typename D::V& a, const typename D::V& b) {
  return d.Ult(d.Xor(a, d.Const(0x80000000u)), d.Xor(b, d.Const(0x80000000u)));
}
template <class D>
typename D::V IsNeg(const D& d, const typename D::V& a) { return d.LShr(a, d.Const(31)); }
// Sign-extension of the low 24 bits.
template <class D>
typename D::V Sext24(const D& d, const typename D::V& a) { return d.AShr(d.Shl(a, d.Const(8)), d.Const(8)); }
// High 32 bits of the signed 64-bit product.
template <class D>
typename D::V MulHiS(const D& d, const typename D::V& a, const typename D::V& b) {
  using V = typename D::V;
  V hi = d.MulHiU(a, b);
  hi = d.Sub(hi, d.Select(IsNeg(d, a), b, d.Const(0)));
  return d.Sub(hi, d.Select(IsNeg(d, b), a, d.Const(0)));
}
// Number of set bits (SWAR).
template <class D>
typename D::V Popcount(const D& d, const typename D::V& a) {
  using V = typename D::V;
  V x = d.Sub(a, d.And(d.LShr(a, d.Const(1)), d.Const(0x55555555u)));
  x = d.Add(d.And(x, d.Const(0x33333333u)), d.And(d.LShr(x, d.Const(2)), d.Const(0x33333333u)));
  x = d.And(d.Add(x, d.LShr(x, d.Const(4))), d.Const(0x0f0f0f0fu));
  return d.LShr(d.Mul(x, d.Const(0x01010101u)), d.Const(24));
}
// x >> s for any s in 0..31 written so that no shift amount reaches 32:
// {hi, lo} >> s, low 32 bits (the funnel shift of v_alignbit_b32).
template <class D>
typename D::V Funnel(const D& d, const typename D::V& hi, const typename D::V& lo, const typename D::V& s) {
  using V = typename D::V;
  // (hi << (32 - s)) for s != 0 is ((hi << 1) << (31 - s)).
  V up = d.Shl(d.Shl(hi, d.Const(1)), d.Sub(d.Const(31), s));
  return d.Or(d.LShr(lo, s), up);
}
// Byte `sel` (0..7) of {s0, s1} (s1 low), or the v_perm_b32 special codes.
template <class D>
typename D::V PermByte(const D& d, const typename D::V& s0, const typename D::V& s1, const typename D::V& sel) {
  using V = typename D::V;
  auto byte = [&](const V& w, int i) { return d.And(d.LShr(w, d.Const(8 * i)), d.Const(0xff)); };
  auto sign = [&](const V& w, int bit) {  // 0xff if bit is set, else 0
    return d.Select(d.And(d.LShr(w, d.Const(bit)), d.Const(1)), d.Const(0xff), d.Const(0));
  };
  V r = d.Const(0xff);  // sel >= 13
  r = d.Select(d.Eq(sel, d.Const(12)), d.Const(0), r);
  r = d.Select(d.Eq(sel, d.Const(11)), sign(s0, 31), r);
  r = d.Select(d.Eq(sel, d.Const(10)), sign(s0, 15), r);
  r = d.Select(d.Eq(sel, d.Const(9)), sign(s1, 31), r);
  r = d.Select(d.Eq(sel, d.Const(8)), sign(s1, 15), r);
  for (int i = 7; i >= 0; --i)
    r = d.Select(d.Eq(sel, d.Const(i)), byte(i < 4 ? s1 : s0, i % 4), r);
  return r;
}
}  // namespace sem_detail

// v_bitop3_b32 (gfx950): bit k of the result is bit
//   (src0[k] << 2) | (src1[k] << 1) | src2[k]
// of the 8-bit truth table `table` (only its low 8 bits count), for each of
// the 32 bit positions k. So src0 alone is the table 0xf0, src1 0xcc, src2
// 0xaa, and a table for any expression of the three is the expression on
// those constants: (src0 & src2) ^ src1 is (0xf0 & 0xaa) ^ 0xcc = 0x6c.
// Source: LLVM's instruction selection for V_BITOP3 (BitOp3_Op, in
// llvm/lib/Target/AMDGPU/AMDGPUISelDAGToDAG.cpp, PR #117843, and
// AMDGPUGlobalISelUtils.h in LLVM 22), which builds the table from
// SrcBits = {0xf0, 0xcc, 0xaa} for src0, src1, src2 and the and/or/xor of
// the matched expression (the table comment there: the index's bits are
// src0, src1, src2 from high to low). Checked end to end: clang-22's
// gfx950 GEMMs compute LDS offsets with `bitop3:0x6c` and give the CPU's
// results in the emulator (hw/emu/baselines_test.cc).
// `table` may be any domain value: when the domain knows it (D::Known: the
// emulator always, the verifier's terms when it is a constant, which the
// instruction's immediate always is) the result is the smallest and/or/xor/not
// expression of the three sources with that truth table (Bitop3Plan below:
// 0x6c is (src0 & src2) ^ src1, 0x48 src1 & (src0 ^ src2)); otherwise the OR
// over the 8 minterms i of (all ones if table bit i is set) & the minterm's
// bits (Bitop3Minterms). The two agree bit for bit for every table and
// source (semantics_test Bitop3PlanMatchesTheMinterms checks all 256 tables
// on every combination of source bits); the verifier's Z3 queries need the
// small form: 4 three-way ands of negated sources (0x6c) are bit-blasted
// per bit where one xor and one and are two operations (fresh-user review
// 21 F2: a clang-22 fp8 K loop's first query ran past 60 s).
namespace sem_detail {
template <class D>
typename D::V Bitop3Minterms(const D& d, const typename D::V& s0, const typename D::V& s1,
                             const typename D::V& s2, const typename D::V& table) {
  using V = typename D::V;
  V r = d.Const(0);
  for (int i = 0; i < 8; ++i) {
    V m = d.And(d.And(i & 4 ? s0 : Not(d, s0), i & 2 ? s1 : Not(d, s1)), i & 1 ? s2 : Not(d, s2));
    V on = d.Sub(d.Const(0), d.And(d.LShr(table, d.Const(i)), d.Const(1)));  // 0 or all ones
    r = d.Or(r, d.And(on, m));
  }
  return r;
}

// For each 8-bit truth table, an expression of least size (operations
// counted; sources and the constants 0 and ~0 free) over src0, src1, src2 with
// and, or, xor and not, as a table of steps: step T is op(T1, T2) on the
// tables T1, T2 of smaller size (a source or constant for size 0). Computed
// once by relaxation over all pairs of tables until nothing shrinks (the
// sizes are at most 7: every table is found), ties kept in the order
// not, and, or, xor of the first pair reached, so the plan is fixed.
struct Bitop3Step {
  enum Op : uint8_t { kSrc0, kSrc1, kSrc2, kZero, kOnes, kNot, kAnd, kOr, kXor } op;
  uint8_t a = 0, b = 0;  // operand tables (kNot: a only)
  uint8_t size = 0xff;   // operations in the expression
};
inline const std::array<Bitop3Step, 256>& Bitop3Plan() {
  static const std::array<Bitop3Step, 256> plan = [] {
    std::array<Bitop3Step, 256> p{};
    for (Bitop3Step& s : p) s.op = Bitop3Step::kZero;
    p[0xf0] = {Bitop3Step::kSrc0, 0, 0, 0};
    p[0xcc] = {Bitop3Step::kSrc1, 0, 0, 0};
    p[0xaa] = {Bitop3Step::kSrc2, 0, 0, 0};
    p[0x00] = {Bitop3Step::kZero, 0, 0, 0};
    p[0xff] = {Bitop3Step::kOnes, 0, 0, 0};
    for (bool changed = true; changed;) {
      changed = false;
      auto offer = [&](int t, Bitop3Step::Op op, int a, int b, int size) {
        if (size < p[t].size) {
          p[t] = {op, static_cast<uint8_t>(a), static_cast<uint8_t>(b), static_cast<uint8_t>(size)};
          changed = true;
        }
      };
      for (int a = 0; a < 256; ++a) {
        if (p[a].size == 0xff) continue;
        offer(~a & 0xff, Bitop3Step::kNot, a, 0, p[a].size + 1);
        for (int b = 0; b < 256; ++b) {
          if (p[b].size == 0xff) continue;
          const int size = p[a].size + p[b].size + 1;
          offer(a & b, Bitop3Step::kAnd, a, b, size);
          offer(a | b, Bitop3Step::kOr, a, b, size);
          offer(a ^ b, Bitop3Step::kXor, a, b, size);
        }
      }
    }
    return p;
  }();
  return plan;
}

template <class D>
typename D::V Bitop3Planned(const D& d, const typename D::V& s0, const typename D::V& s1,
                            const typename D::V& s2, int table) {
  const Bitop3Step& st = Bitop3Plan()[table & 0xff];
  switch (st.op) {
    case Bitop3Step::kSrc0: return s0;
    case Bitop3Step::kSrc1: return s1;
    case Bitop3Step::kSrc2: return s2;
    case Bitop3Step::kZero: return d.Const(0);
    case Bitop3Step::kOnes: return d.Const(0xffffffffu);
    case Bitop3Step::kNot: return Not(d, Bitop3Planned(d, s0, s1, s2, st.a));
    case Bitop3Step::kAnd: return d.And(Bitop3Planned(d, s0, s1, s2, st.a), Bitop3Planned(d, s0, s1, s2, st.b));
    case Bitop3Step::kOr: return d.Or(Bitop3Planned(d, s0, s1, s2, st.a), Bitop3Planned(d, s0, s1, s2, st.b));
    case Bitop3Step::kXor: return d.Xor(Bitop3Planned(d, s0, s1, s2, st.a), Bitop3Planned(d, s0, s1, s2, st.b));
  }
  return d.Const(0);
}
}  // namespace sem_detail

template <class D>
typename D::V Bitop3(const D& d, const typename D::V& s0, const typename D::V& s1, const typename D::V& s2,
                     const typename D::V& table) {
  if (std::optional<uint32_t> t = d.Known(table)) return sem_detail::Bitop3Planned(d, s0, s1, s2, *t & 0xff);
  return sem_detail::Bitop3Minterms(d, s0, s1, s2, table);
}

// v_bitop3_b16 (gfx950): Bitop3 on bits 15:0 of the sources; bits 31:16
// of the result are 0, as for gfx9's other 16-bit VALU results without
// op_sel (LLVM's GCNSubtarget::zeroesHigh16BitsOfDest lists v_add_u16 and
// friends for gfx9; it does not list v_bitop3_b16, whose high half LLVM never
// reads: its selection uses it for i16 values only). UNVERIFIED on hardware:
// whether the high half is zeroed or kept.
template <class D>
typename D::V Bitop3B16(const D& d, const typename D::V& s0, const typename D::V& s1, const typename D::V& s2,
                        const typename D::V& table) {
  return d.And(Bitop3(d, s0, s1, s2, table), d.Const(0xffff));
}

// v_med3_{i32,u32} (and the non-NaN case of v_med3_f32/f16): the median of
// three values, in the ISA guide's words: if max3(s0, s1, s2) == s0 the
// result is max(s1, s2), else if it equals s1 max(s0, s2), else max(s0, s1).
// `max` is the two-source max of the type (signed or unsigned here). Source:
// AMD "RDNA3 Instruction Set Architecture" reference guide, section 16.12
// "VOP3 & VOP3SD Instructions", V_MED3_I32 / V_MED3_U32 / V_MED3_F32 (and
// V_MIN3_* / V_MAX3_*: min(min(s0, s1), s2), max(max(s0, s1), s2)); the
// gfx9 (CDNA) guides describe the same instructions (the CDNA3/CDNA4 PDFs are
// not in the corpora). LLVM folds llvm.amdgcn.fmed3 of constants the same way
// (AMDGPUInstCombineIntrinsic.cpp fmed3AMDGCN).
template <class D, class Max>
typename D::V Med3(const D& d, const typename D::V& s0, const typename D::V& s1, const typename D::V& s2,
                   const Max& max) {
  const typename D::V m3 = max(max(s0, s1), s2);
  return d.Select(d.Eq(m3, s0), max(s1, s2), d.Select(d.Eq(m3, s1), max(s0, s2), max(s0, s1)));
}

namespace sem_detail {
// The class bit (0..9, ClassFlags order: CmpClass below) of a float given as its sign
// (0/1), whether its exponent field is all ones / all zeros, whether its
// mantissa field is zero, and its mantissa's top bit (the quiet bit).
template <class D>
typename D::V ClassBitOf(const D& d, const typename D::V& sign, const typename D::V& e_ones,
                         const typename D::V& e_zero, const typename D::V& m_zero, const typename D::V& quiet) {
  auto by_sign = [&](uint32_t neg, uint32_t pos) { return d.Select(sign, d.Const(neg), d.Const(pos)); };
  return d.Select(e_ones, d.Select(m_zero, by_sign(2, 9), d.Select(quiet, d.Const(1), d.Const(0))),
                  d.Select(e_zero, d.Select(m_zero, by_sign(5, 6), by_sign(4, 7)), by_sign(3, 8)));
}
}  // namespace sem_detail

// v_cmp_class_{f32,f16} (and the v_cmpx_ forms): 1 if the class of the
// float whose bits are `x` (f16: bits 15:0; any higher bits ignored) has its
// bit set in the 10-bit `mask`, else 0. The class bits (LLVM SIDefines.h
// SIInstrFlags::ClassFlags, "v_cmp_class_* etc. use a 10-bit mask ... The
// result is true if any of these tests are true"; the same enum in
// AMDGPUInstCombineIntrinsic.cpp for llvm.amdgcn.class): 0 signalling NaN,
// 1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
// 8 +normal, 9 +inf. A NaN is quiet when the mantissa's top bit is set
// (IEEE 754-2008 6.2.1, as FbIsSNaN below). The test is on the bits as
// given (after the caller's neg/abs, which flip/clear the sign bit): no
// denormal flushing (the RDNA3 guide's V_CMP_CLASS_F32 pseudo-code tests
// exponent(S0) and the mantissa directly; UNVERIFIED on hardware for a
// flushing FP_DENORM mode, which the emulator refuses for a denormal source).
template <class D>
typename D::V CmpClass(const D& d, const typename D::V& x, const typename D::V& mask, bool f16) {
  using V = typename D::V;
  const uint32_t man_bits = f16 ? 10 : 23, exp_ones = f16 ? 0x1f : 0xff;
  const V sign = d.And(d.LShr(x, d.Const(f16 ? 15 : 31)), d.Const(1));
  const V e = d.And(d.LShr(x, d.Const(man_bits)), d.Const(exp_ones));
  const V m = d.And(x, d.Const((1u << man_bits) - 1));
  const V quiet = d.And(d.LShr(x, d.Const(man_bits - 1)), d.Const(1));
  const V bit = sem_detail::ClassBitOf(d, sign, d.Eq(e, d.Const(exp_ones)), d.Eq(e, d.Const(0)),
                                       d.Eq(m, d.Const(0)), quiet);
  return d.And(d.LShr(mask, bit), d.Const(1));
}

// v_cmp_class_f64 (and v_cmpx_class_f64): CmpClass of the f64 whose bits
// are hi:lo (IEEE binary64: sign bit 63, exponent 62:52, mantissa 51:0, the
// quiet bit 51 = bit 19 of hi), against the same 10-bit class mask (a
// 32-bit source; ClassFlags as above: the mask is the same for every
// format). Bits as given, no denormal flushing (as CmpClass).
template <class D>
typename D::V CmpClassF64(const D& d, const typename D::V& lo, const typename D::V& hi, const typename D::V& mask) {
  using V = typename D::V;
  const V sign = d.And(d.LShr(hi, d.Const(31)), d.Const(1));
  const V e = d.And(d.LShr(hi, d.Const(20)), d.Const(0x7ff));
  const V m_zero = d.Eq(d.Or(d.And(hi, d.Const(0xfffff)), lo), d.Const(0));
  const V quiet = d.And(d.LShr(hi, d.Const(19)), d.Const(1));
  const V bit = sem_detail::ClassBitOf(d, sign, d.Eq(e, d.Const(0x7ff)), d.Eq(e, d.Const(0)), m_zero, quiet);
  return d.And(d.LShr(mask, bit), d.Const(1));
}

template <class D>
std::optional<typename D::V> EvalIntOpExt(const D& d, Opc opc, const std::vector<typename D::V>& s) {
  using V = typename D::V;
  using namespace sem_detail;
  auto amt = [&](const V& v) { return d.And(v, d.Const(31)); };
  auto u24 = [&](const V& v) { return d.And(v, d.Const(0xffffff)); };
  auto smax = [&](const V& a, const V& b) { return d.Select(Slt(d, a, b), b, a); };
  auto smin = [&](const V& a, const V& b) { return d.Select(Slt(d, a, b), a, b); };
  auto umax = [&](const V& a, const V& b) { return d.Select(d.Ult(a, b), b, a); };
  auto umin = [&](const V& a, const V& b) { return d.Select(d.Ult(a, b), a, b); };
  // Signed bit-field extract: sign-extend the w-bit field at `off` (w = 0 gives 0).
  auto sbfe = [&](const V& x, const V& off, const V& w) {
    V t = d.AShr(x, off);
    V sh = d.And(d.Sub(d.Const(32), w), d.Const(31));  // 32 - w, in 1..31 for w in 1..31
    return d.Select(d.Eq(w, d.Const(0)), d.Const(0), d.AShr(d.Shl(t, sh), sh));
  };
  auto ubfe = [&](const V& x, const V& off, const V& w) {
    V mask = d.Sub(d.Shl(d.Const(1), w), d.Const(1));
    return d.Select(d.Eq(w, d.Const(0)), d.Const(0), d.And(d.LShr(x, off), mask));
  };
  switch (opc) {
    case Opc::kSAddI32:
    case Opc::kSAddkI32:
    case Opc::kVAddCoU32:
    case Opc::kVAddI32:  // without clamp (EvalIntOpClamped: with it)
      return d.Add(s[0], s[1]);
    case Opc::kSSubI32:
    case Opc::kVSubCoU32:
      return d.Sub(s[0], s[1]);
    case Opc::kVSubrevCoU32:
      return d.Sub(s[1], s[0]);
    case Opc::kSAddcU32:
    case Opc::kVAddcCoU32:
      return d.Add(d.Add(s[0], s[1]), s[2]);
    case Opc::kSSubbU32:
    case Opc::kVSubbCoU32:
      return d.Sub(d.Sub(s[0], s[1]), s[2]);
    case Opc::kVSubbrevCoU32:
      return d.Sub(d.Sub(s[1], s[0]), s[2]);
    case Opc::kSMulkI32:
      return d.Mul(s[0], s[1]);
    case Opc::kSCselectB32:
      return d.Select(s[2], s[0], s[1]);
    case Opc::kVNotB32:
    case Opc::kSNotB32:
      return Not(d, s[0]);
    case Opc::kSXorB32:
      return d.Xor(s[0], s[1]);
    case Opc::kSAndn2B32:
      return d.And(s[0], Not(d, s[1]));
    case Opc::kSOrn2B32:
      return d.Or(s[0], Not(d, s[1]));
    case Opc::kSMinU32:
    case Opc::kVMinU32:
      return umin(s[0], s[1]);
    case Opc::kSMaxU32:
    case Opc::kVMaxU32:
      return umax(s[0], s[1]);
    case Opc::kSMinI32:
    case Opc::kVMinI32:
      return smin(s[0], s[1]);
    case Opc::kSMaxI32:
    case Opc::kVMaxI32:
      return smax(s[0], s[1]);
    // Three-source forms (ISA guide pseudo-code, cited at Med3 above):
    // min3/max3 fold the two-source op left to right; med3 is Med3.
    case Opc::kVMin3I32:
      return smin(smin(s[0], s[1]), s[2]);
    case Opc::kVMax3I32:
      return smax(smax(s[0], s[1]), s[2]);
    case Opc::kVMed3I32:
      return Med3(d, s[0], s[1], s[2], smax);
    case Opc::kVMin3U32:
      return umin(umin(s[0], s[1]), s[2]);
    case Opc::kVMax3U32:
      return umax(umax(s[0], s[1]), s[2]);
    case Opc::kVMed3U32:
      return Med3(d, s[0], s[1], s[2], umax);
    case Opc::kVBfeI32:
      return sbfe(s[0], amt(s[1]), amt(s[2]));
    case Opc::kSBfeU32:  // s1: offset in [4:0], width in [22:16]
      return ubfe(s[0], amt(s[1]), amt(d.LShr(s[1], d.Const(16))));
    case Opc::kSBfeI32:
      return sbfe(s[0], amt(s[1]), amt(d.LShr(s[1], d.Const(16))));
    case Opc::kVBfmB32:
    case Opc::kSBfmB32:
      return d.Shl(d.Sub(d.Shl(d.Const(1), amt(s[0])), d.Const(1)), amt(s[1]));
    case Opc::kVBfiB32:  // (s0 & s1) | (~s0 & s2)
      return d.Or(d.And(s[0], s[1]), d.And(Not(d, s[0]), s[2]));
    case Opc::kVBitop3B32:  // s3: the truth table (the layout's bitop3 operand)
      return Bitop3(d, s[0], s[1], s[2], s[3]);
    case Opc::kVBitop3B16:
      return Bitop3B16(d, s[0], s[1], s[2], s[3]);
    case Opc::kVAlignbitB32:  // ({s0, s1} >> (s2 & 31))[31:0]
      return Funnel(d, s[0], s[1], amt(s[2]));
    case Opc::kVAlignbyteB32:  // ({s0, s1} >> (8 * (s2 & 3)))[31:0]
      return Funnel(d, s[0], s[1], d.Shl(d.And(s[2], d.Const(3)), d.Const(3)));
    case Opc::kVPermB32: {  // byte i of the result = PermByte(s2 byte i)
      V r = d.Const(0);
      for (int i = 0; i < 4; ++i) {
        V sel = d.And(d.LShr(s[2], d.Const(8 * i)), d.Const(0xff));
        r = d.Or(r, d.Shl(PermByte(d, s[0], s[1], sel), d.Const(8 * i)));
      }
      return r;
    }
    case Opc::kVMulHiI32:
    case Opc::kSMulHiI32:
      return MulHiS(d, s[0], s[1]);
    case Opc::kVMulI32I24:
      return d.Mul(Sext24(d, s[0]), Sext24(d, s[1]));
    case Opc::kVMulHiU32U24:
      return d.MulHiU(u24(s[0]), u24(s[1]));
    case Opc::kVMulHiI32I24:
      return MulHiS(d, Sext24(d, s[0]), Sext24(d, s[1]));
    case Opc::kVMadI32I24:
      return d.Add(d.Mul(Sext24(d, s[0]), Sext24(d, s[1])), s[2]);
    case Opc::kVBcntU32B32:
      return d.Add(Popcount(d, s[0]), s[1]);
    case Opc::kSBcnt1I32B32:
      return Popcount(d, s[0]);
    case Opc::kVMbcntLoU32B32:
    case Opc::kVMbcntHiU32B32:
      return d.Add(Popcount(d, d.And(s[0], s[2])), s[1]);
    case Opc::kSLshl1AddU32:
      return d.Add(d.Shl(s[0], d.Const(1)), s[1]);
    case Opc::kSLshl2AddU32:
      return d.Add(d.Shl(s[0], d.Const(2)), s[1]);
    case Opc::kSLshl3AddU32:
      return d.Add(d.Shl(s[0], d.Const(3)), s[1]);
    case Opc::kSLshl4AddU32:
      return d.Add(d.Shl(s[0], d.Const(4)), s[1]);
    case Opc::kSPackLlB32B16:
      return d.Or(d.And(s[0], d.Const(0xffff)), d.Shl(s[1], d.Const(16)));
    // Compares: 1 or 0.
    case Opc::kSCmpEqU32: case Opc::kSCmpEqI32: case Opc::kSCmpkEqU32: case Opc::kSCmpkEqI32:
    case Opc::kVCmpEqU32: case Opc::kVCmpEqI32: case Opc::kVCmpxEqU32: case Opc::kVCmpxEqI32:
      return d.Eq(s[0], s[1]);
    case Opc::kSCmpLgU32: case Opc::kSCmpLgI32: case Opc::kSCmpkLgU32: case Opc::kSCmpkLgI32:
    case Opc::kVCmpNeU32: case Opc::kVCmpNeI32: case Opc::kVCmpxNeU32: case Opc::kVCmpxNeI32:
      return NonZero(d, d.Xor(s[0], s[1]));
    case Opc::kSCmpLtU32: case Opc::kSCmpkLtU32: case Opc::kVCmpLtU32: case Opc::kVCmpxLtU32:
      return d.Ult(s[0], s[1]);
    case Opc::kSCmpGtU32: case Opc::kSCmpkGtU32: case Opc::kVCmpxGtU32:
      return d.Ult(s[1], s[0]);
    case Opc::kSCmpLeU32: case Opc::kSCmpkLeU32: case Opc::kVCmpLeU32: case Opc::kVCmpxLeU32:
      return d.Xor(d.Ult(s[1], s[0]), d.Const(1));
    case Opc::kSCmpGeU32: case Opc::kSCmpkGeU32: case Opc::kVCmpGeU32: case Opc::kVCmpxGeU32:
      return d.Xor(d.Ult(s[0], s[1]), d.Const(1));
    case Opc::kSCmpLtI32: case Opc::kSCmpkLtI32: case Opc::kVCmpLtI32: case Opc::kVCmpxLtI32:
      return Slt(d, s[0], s[1]);
    case Opc::kSCmpGtI32: case Opc::kSCmpkGtI32: case Opc::kVCmpGtI32: case Opc::kVCmpxGtI32:
      return Slt(d, s[1], s[0]);
    case Opc::kSCmpLeI32: case Opc::kSCmpkLeI32: case Opc::kVCmpLeI32: case Opc::kVCmpxLeI32:
      return d.Xor(Slt(d, s[1], s[0]), d.Const(1));
    case Opc::kSCmpGeI32: case Opc::kSCmpkGeI32: case Opc::kVCmpGeI32: case Opc::kVCmpxGeI32:
      return d.Xor(Slt(d, s[0], s[1]), d.Const(1));
    // {src0 bits after neg/abs, src1 mask} (CmpClass above).
    case Opc::kVCmpClassF32: case Opc::kVCmpxClassF32:
      return CmpClass(d, s[0], s[1], false);
    case Opc::kVCmpClassF16: case Opc::kVCmpxClassF16:
      return CmpClass(d, s[0], s[1], true);
    default:
      return std::nullopt;
  }
}

// The result of integer opcode `opc` with the VOP3 `clamp` bit set, which
// makes an integer add saturate instead of wrap: v_add_i32 to [-2^31,
// 2^31 - 1], v_add_u32 to [0, 2^32 - 1] (LLVM 22 selects llvm.sadd.sat.i32
// as `v_add_i32 ... clamp` and llvm.uadd.sat.i32 as `v_add_u32_e64 ...
// clamp` for gfx90a; amdgcn-isa-notes.md section 7: "wraps mod 2^32 unless
// clamp is given"); v_sub_u32/v_subrev_u32 to [0, 2^32 - 1]. nullopt for
// other opcodes (their clamp is not modelled:
// refuse them).
template <class D>
std::optional<typename D::V> EvalIntOpClamped(const D& d, Opc opc, const std::vector<typename D::V>& s) {
  using V = typename D::V;
  using namespace sem_detail;
  switch (opc) {
    case Opc::kVAddI32: {
      const V r = d.Add(s[0], s[1]);
      // Signed overflow: both sources of one sign, the sum of the other; it
      // saturates towards the sources' sign.
      const V overflow = IsNeg(d, d.And(d.Xor(s[0], r), d.Xor(s[1], r)));
      return d.Select(overflow, d.Select(IsNeg(d, s[0]), d.Const(0x80000000u), d.Const(0x7fffffffu)), r);
    }
    case Opc::kVAddU32: {
      const V r = d.Add(s[0], s[1]);
      return d.Select(d.Ult(r, s[0]), d.Const(0xffffffffu), r);
    }
    // Unsigned subtraction saturates at 0 (LLVM 22 selects llvm.usub.sat.i32
    // as `v_sub_u32_e64 ... clamp` on gfx9: VOP2Instructions.td, the
    // usubsat pattern of V_SUB_U32_e64 with clamp 1); subrev is s1 - s0.
    case Opc::kVSubU32:
    case Opc::kVSubrevU32: {
      const V a = opc == Opc::kVSubU32 ? s[0] : s[1], b = opc == Opc::kVSubU32 ? s[1] : s[0];
      return d.Select(d.Ult(a, b), d.Const(0), d.Sub(a, b));
    }
    default:
      return std::nullopt;
  }
}

// ---------------------------------------------------------------------------
// SDWA (the `_sdwa` encoding of VOP1/VOP2/VOPC: sub-dword addressing). Each
// of src0/src1 is first reduced to the part its select names, zero-extended
// or, with sext, sign-extended to 32 bits; the instruction computes as usual
// on those values; the result's low bits go to the part dst_sel names and
// the other bits of the destination are zero (UNUSED_PAD), zero below and
// the field's sign above (UNUSED_SEXT), or the destination's old bits
// (UNUSED_PRESERVE). Sources: AMD "AMD Instinct MI300 ISA" reference guide,
// "SDWA" (VOP_SDWA fields SRC0_SEL/SRC1_SEL and DST_SEL: 0 = BYTE_0 [7:0],
// 1 = BYTE_1 [15:8], 2 = BYTE_2 [23:16], 3 = BYTE_3 [31:24], 4 = WORD_0
// [15:0], 5 = WORD_1 [31:16], 6 = DWORD; SRC0_SEXT/SRC1_SEXT; DST_U: 0 pad
// with zeros, 1 sign-extend the upper bits and zero the lower ones, 2
// preserve); LLVM SIDefines.h (SDWA::SdwaSel, SDWA::DstUnused) and
// SIPeepholeSDWA.cpp, which folds `and x, 0xff` / `lshr x, 8` / `bfe` into
// these selects (clang-22's `(t + 1) & 255` index is `v_or_b32_sdwa ...
// src0_sel:BYTE_0`).
namespace sem_detail {
// The bit position and width of the part `sel` names (DWORD: 0, 32).
inline int SdwaShift(SdwaSel sel) {
  return sel == SdwaSel::kWord1 ? 16 : sel <= SdwaSel::kByte3 ? 8 * static_cast<int>(sel) : 0;
}
inline int SdwaWidth(SdwaSel sel) { return sel <= SdwaSel::kByte3 ? 8 : sel == SdwaSel::kDword ? 32 : 16; }
}  // namespace sem_detail

// The value an SDWA source operand gives the instruction: the part of `v`
// that `sel` names, zero-extended, or sign-extended when `sext`.
template <class D>
typename D::V SdwaSource(const D& d, const typename D::V& v, SdwaSel sel, bool sext) {
  const int shift = sem_detail::SdwaShift(sel), width = sem_detail::SdwaWidth(sel);
  if (width == 32) return v;
  // Move the field to the top, then back down: logical (zero) or arithmetic (sign).
  const typename D::V top = d.Shl(v, d.Const(static_cast<uint32_t>(32 - shift - width)));
  return sext ? d.AShr(top, d.Const(static_cast<uint32_t>(32 - width)))
              : d.LShr(top, d.Const(static_cast<uint32_t>(32 - width)));
}

// The destination register's new value after an SDWA instruction computes
// `r`: r's low bits in the part `sel` names, the other bits as `unused`
// says (`old` is the register's previous value, read for UNUSED_PRESERVE).
template <class D>
typename D::V SdwaDest(const D& d, const typename D::V& old, const typename D::V& r, SdwaSel sel,
                       SdwaUnused unused) {
  using V = typename D::V;
  const int shift = sem_detail::SdwaShift(sel), width = sem_detail::SdwaWidth(sel);
  if (width == 32) return r;
  const uint32_t mask = ((1u << width) - 1) << shift;
  const V field = d.And(d.Shl(r, d.Const(static_cast<uint32_t>(shift))), d.Const(mask));
  switch (unused) {
    case SdwaUnused::kPad:
      return field;
    case SdwaUnused::kPreserve:
      return d.Or(d.And(old, d.Const(~mask)), field);
    case SdwaUnused::kSext: {
      // Sign-extend r's low `width` bits to 32, then shift: zeros below.
      const V ext = d.AShr(d.Shl(r, d.Const(static_cast<uint32_t>(32 - width))),
                           d.Const(static_cast<uint32_t>(32 - width)));
      return d.Shl(ext, d.Const(static_cast<uint32_t>(shift)));
    }
  }
  return field;
}

// s_cmov_b32 sdst, src0: the new sdst from src0, sdst's old value and SCC
// (0 or 1): src0 when SCC is 1, else the old value (CDNA3 ISA guide,
// S_CMOV_B32: "if SCC then D.u32 = S0.u32"). Not in EvalIntOp, whose
// sources lack the old value: an interpreter calls this with it (the
// verifier, which does not, takes the result as unknown).
template <class D>
typename D::V EvalCmovB32(const D& d, const typename D::V& src0, const typename D::V& old,
                          const typename D::V& scc) {
  return d.Select(scc, src0, old);
}

// The address s_getpc_b64 and s_swappc_b64 write: the next instruction's,
// `size` bytes after the one at `addr` (CDNA3 ISA guide, S_GETPC_B64: "D.u64
// = PC + 4", PC the instruction's own address, 4 its SOP1 size);
// s_setpc_b64 and s_swappc_b64 jump to the address in src0 (S_SETPC_B64:
// "PC = S0.u64"; S_SWAPPC_B64: "jump_addr = S0.u64; D.u64 = PC + 4; PC =
// jump_addr"). The verifier refuses these (calls, indirect branches).
inline uint64_t PcAfter(uint64_t addr, int size) { return addr + static_cast<uint64_t>(size); }

// ---------------------------------------------------------------------------
// Hardware registers (s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32) and
// the MODE register. The simm16 `hwreg(id, offset, size)` packs id in bits
// 5:0, offset in 10:6 and size - 1 in 15:11 (LLVM SIDefines.h Hwreg
// ID_SHIFT_/OFFSET_SHIFT_/WIDTH_M1_SHIFT_; llvm-mc 22 -show-encoding:
// `s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 3` is [0x81,0x08,0x00,0xba,
// 0x03,0,0,0], simm16 0x0881). s_setreg writes the low `size` bits of its
// source to bits offset .. offset + size - 1 of the register, the other bits
// kept; s_getreg reads that field into the low bits of sdst, the rest 0
// (CDNA3 ISA guide S_SETREG_B32 / S_GETREG_B32). HW_REG_MODE is id 1 on gfx9
// (SIDefines.h ID_MODE). MODE's low byte is the FLOAT_MODE the kernel
// descriptor sets (AMDGPUUsage COMPUTE_PGM_RSRC1 bits 19:12,
// FLOAT_ROUND_MODE_32 13:12, FLOAT_ROUND_MODE_16_64 15:14,
// FLOAT_DENORM_MODE_32 17:16, FLOAT_DENORM_MODE_16_64 19:18): bits 1:0
// single-precision round, 3:2 double/half round, 5:4 single denormals, 7:6
// double/half denormals (SIDefines.h FP_ROUND_MODE_SP/DP, FP_DENORM_MODE_SP/DP).
// Round encodings: 0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward
// zero (SIDefines.h FP_ROUND_ROUND_TO_NEAREST/INF/NEGINF/ZERO). v_cvt_f16_f32
// rounds by the double/half field: LLVM's SIModeRegister.cpp lowers
// FPTRUNC_UPWARD/DOWNWARD (an f32 -> f16 fptrunc with a fixed rounding) to
// V_CVT_F16_F32 under FP_ROUND_MODE_DP set to ROUND_TO_INF/NEGINF.
struct HwReg {
  int id = 0, offset = 0, size = 32;
};
inline HwReg DecodeHwreg(uint32_t simm16) {
  return HwReg{static_cast<int>(simm16 & 63), static_cast<int>((simm16 >> 6) & 31),
               static_cast<int>((simm16 >> 11) & 31) + 1};
}
inline uint32_t EncodeHwreg(HwReg h) {
  return static_cast<uint32_t>(h.id & 63) | static_cast<uint32_t>(h.offset & 31) << 6 |
         static_cast<uint32_t>((h.size - 1) & 31) << 11;
}
constexpr int kHwRegMode = 1;
// The field's bits within the 32-bit register (bits past bit 31 dropped).
inline uint32_t HwRegFieldMask(HwReg h) {
  const uint64_t ones = (uint64_t{1} << h.size) - 1;
  return static_cast<uint32_t>(ones << h.offset);
}
// The register after s_setreg writes `value` to field h of `old`.
inline uint32_t SetregMerge(uint32_t old, uint32_t value, HwReg h) {
  const uint32_t mask = HwRegFieldMask(h);
  return (old & ~mask) | (static_cast<uint32_t>((uint64_t{value} << h.offset)) & mask);
}
// What s_getreg of field h of `reg` writes to sdst.
inline uint32_t GetregField(uint32_t reg, HwReg h) { return (reg & HwRegFieldMask(h)) >> h.offset; }
// MODE's FLOAT_MODE fields.
enum class FpRound : uint8_t { kNearestEven = 0, kTowardPosInf = 1, kTowardNegInf = 2, kTowardZero = 3 };
inline FpRound ModeRoundSp(uint32_t mode) { return static_cast<FpRound>(mode & 3); }
inline FpRound ModeRoundDp(uint32_t mode) { return static_cast<FpRound>((mode >> 2) & 3); }
inline int ModeDenormSp(uint32_t mode) { return static_cast<int>((mode >> 4) & 3); }
inline int ModeDenormDp(uint32_t mode) { return static_cast<int>((mode >> 6) & 3); }
// The FLOAT_MODE byte of a descriptor's COMPUTE_PGM_RSRC1 (bits 19:12).
inline uint32_t ModeFromRsrc1(uint32_t rsrc1) { return (rsrc1 >> 12) & 0xff; }
// The MODE fields above the FLOAT_MODE byte, as LLVM SIDefines.h
// Hwreg::ModeRegisterMasks names them (gfx9): DX10_CLAMP bit 8, IEEE_MODE 9,
// LOD_CLAMP 10, DEBUG 11, EXCP_EN_INVALID 12, EXCP_EN_INPUT_DENORMAL 13,
// EXCP_EN_FLOAT_DIV0 14, EXCP_EN_OVERFLOW 15, EXCP_EN_UNDERFLOW 16,
// EXCP_EN_INEXACT 17, EXCP_EN_INT_DIV0 18, GPR_IDX_EN 27, VSKIP 28, CSP
// 31:29; bits 26:19 have no name there. Each entry: the field's bits in MODE.
struct ModeField {
  const char* name;
  uint32_t mask;
};
inline constexpr ModeField kModeFieldsAboveFloatMode[] = {
    {"DX10_CLAMP", 1u << 8},          {"IEEE_MODE", 1u << 9},
    {"LOD_CLAMP", 1u << 10},          {"DEBUG", 1u << 11},
    {"EXCP_EN_INVALID", 1u << 12},    {"EXCP_EN_INPUT_DENORMAL", 1u << 13},
    {"EXCP_EN_FLOAT_DIV0", 1u << 14}, {"EXCP_EN_OVERFLOW", 1u << 15},
    {"EXCP_EN_UNDERFLOW", 1u << 16},  {"EXCP_EN_INEXACT", 1u << 17},
    {"EXCP_EN_INT_DIV0", 1u << 18},   {"bits 26:19 (unnamed)", 0xffu << 19},
    {"GPR_IDX_EN", 1u << 27},         {"VSKIP", 1u << 28},
    {"CSP", 7u << 29},
};
inline const char* FpRoundName(FpRound r) {
  switch (r) {
    case FpRound::kNearestEven: return "round to nearest even";
    case FpRound::kTowardPosInf: return "round toward +inf";
    case FpRound::kTowardNegInf: return "round toward -inf";
    case FpRound::kTowardZero: return "round toward zero";
  }
  return "?";
}

// ---------------------------------------------------------------------------
// Global atomics (global_atomic_*: the FLAT global segment, addresses as
// GlobalAddress below). Each active lane, indivisibly, on the naturally
// aligned dword at its address: tmp = MEM; MEM = op(tmp, DATA); and in the
// returning form (the glc bit, spelled sc0 on gfx942: llvm-mc 22 accepts
// `global_atomic_add v0, v[0:1], v2, off glc` for gfx908/90a and `... sc0`
// for gfx942, encoding bit 16 of the instruction in both) vdst = tmp. The
// lanes of one instruction act one after another in an order the hardware
// does not specify (the emulator takes lane order). CDNA3 ISA guide,
// "Global Instructions" (GLOBAL_ATOMIC_ADD: MEM[ADDR] += DATA;
// GLOBAL_ATOMIC_CMPSWAP: src = DATA[0], cmp = DATA[1], MEM[ADDR] = tmp ==
// cmp ? src : tmp; RETURN_DATA = tmp; GLOBAL_ATOMIC_ADD_F32).
//   kAddU32:     MEM = tmp + DATA, mod 2^32
//   kCmpswapB32: DATA is the pair {src, cmp}: MEM = tmp == cmp ? src : tmp
//   kAddF32:     MEM = tmp + DATA in f32, rounded to nearest even; f32
//                denormals flushed on gfx908/90a (TargetInfo::
//                atomic_add_f32_denormals); gfx908 has no returning form
enum class AtomicOp : uint8_t { kNone, kAddU32, kCmpswapB32, kAddF32 };
struct GlobalAtomic {
  AtomicOp op = AtomicOp::kNone;
  bool returns = false;  // vdst receives tmp
  int data_dwords = 0;   // vdata: 1, cmpswap 2
  Opc returning = Opc::kNumOpcodes;  // the returning form of a non-returning opcode
};
inline GlobalAtomic GlobalAtomicOf(Opc o) {
  switch (o) {
    case Opc::kGlobalAtomicAdd: return {AtomicOp::kAddU32, false, 1, Opc::kGlobalAtomicAddRtn};
    case Opc::kGlobalAtomicAddRtn: return {AtomicOp::kAddU32, true, 1, Opc::kGlobalAtomicAddRtn};
    case Opc::kGlobalAtomicCmpswap: return {AtomicOp::kCmpswapB32, false, 2, Opc::kGlobalAtomicCmpswapRtn};
    case Opc::kGlobalAtomicCmpswapRtn: return {AtomicOp::kCmpswapB32, true, 2, Opc::kGlobalAtomicCmpswapRtn};
    case Opc::kGlobalAtomicAddF32: return {AtomicOp::kAddF32, false, 1, Opc::kGlobalAtomicAddF32Rtn};
    case Opc::kGlobalAtomicAddF32Rtn: return {AtomicOp::kAddF32, true, 1, Opc::kGlobalAtomicAddF32Rtn};
    default: return {};
  }
}

// The new memory dword of an integer atomic (kAddU32, kCmpswapB32) from the
// old one and the lane's data dwords.
template <class D>
typename D::V AtomicIntResult(const D& d, AtomicOp op, const typename D::V& mem, const typename D::V& data0,
                              const typename D::V& data1) {
  return op == AtomicOp::kCmpswapB32 ? d.Select(d.Eq(mem, data1), data0, mem) : d.Add(mem, data0);
}

// True for the SALU opcodes that read or write 64-bit operands (s_mov_b64,
// the b64 logic ops on lane masks, 64-bit shifts and compares).
inline bool IsWideSalu(Opc o) {
  switch (o) {
    case Opc::kSMovB64: case Opc::kSCselectB64: case Opc::kSAndB64: case Opc::kSOrB64:
    case Opc::kSXorB64: case Opc::kSAndn2B64: case Opc::kSOrn2B64: case Opc::kSNotB64:
    case Opc::kSLshlB64: case Opc::kSLshrB64: case Opc::kSAshrI64: case Opc::kSBcnt1I32B64:
    case Opc::kSCmpEqU64: case Opc::kSCmpLgU64:
      return true;
    default:
      return false;
  }
}

// The 32-bit result of integer/bit opcode `opc` on sources `s` (assembly
// order, defs excluded), or nullopt if `opc` is not such an instruction.
// Compares (v_cmp_*) give 1 or 0 for one lane; the caller forms the mask.
// SALU carries (SCC) are not modelled here.
template <class D>
std::optional<typename D::V> EvalIntOp(const D& d, Opc opc, const std::vector<typename D::V>& s) {
  using V = typename D::V;
  auto amt = [&](const V& v) { return d.And(v, d.Const(31)); };
  auto u24 = [&](const V& v) { return d.And(v, d.Const(0xffffff)); };
  switch (opc) {
    case Opc::kVMovB32:
    case Opc::kSMovB32:
    case Opc::kSMovkI32:
    case Opc::kVReadfirstlaneB32:
      return s[0];
    case Opc::kVAddU32:
    case Opc::kSAddU32:
      return d.Add(s[0], s[1]);
    case Opc::kVSubU32:
    case Opc::kSSubU32:
      return d.Sub(s[0], s[1]);
    case Opc::kVSubrevU32:
      return d.Sub(s[1], s[0]);
    case Opc::kVMulLoU32:
    case Opc::kSMulI32:
      return d.Mul(s[0], s[1]);
    case Opc::kVMulHiU32:
    case Opc::kSMulHiU32:
      return d.MulHiU(s[0], s[1]);
    case Opc::kVMulU32U24:
      return d.Mul(u24(s[0]), u24(s[1]));
    case Opc::kVMadU32U24:
      return d.Add(d.Mul(u24(s[0]), u24(s[1])), s[2]);
    case Opc::kVLshlrevB32:
      return d.Shl(s[1], amt(s[0]));
    case Opc::kVLshrrevB32:
      return d.LShr(s[1], amt(s[0]));
    case Opc::kVAshrrevI32:
      return d.AShr(s[1], amt(s[0]));
    case Opc::kSLshlB32:
      return d.Shl(s[0], amt(s[1]));
    case Opc::kSLshrB32:
      return d.LShr(s[0], amt(s[1]));
    case Opc::kSAshrI32:
      return d.AShr(s[0], amt(s[1]));
    case Opc::kVAndB32:
    case Opc::kSAndB32:
      return d.And(s[0], s[1]);
    case Opc::kVOrB32:
    case Opc::kSOrB32:
      return d.Or(s[0], s[1]);
    case Opc::kVXorB32:
      return d.Xor(s[0], s[1]);
    case Opc::kVLshlAddU32:
      return d.Add(d.Shl(s[0], amt(s[1])), s[2]);
    case Opc::kVAddLshlU32:
      return d.Shl(d.Add(s[0], s[1]), amt(s[2]));
    case Opc::kVLshlOrB32:
      return d.Or(d.Shl(s[0], amt(s[1])), s[2]);
    case Opc::kVAdd3U32:
      return d.Add(d.Add(s[0], s[1]), s[2]);
    case Opc::kVOr3B32:
      return d.Or(d.Or(s[0], s[1]), s[2]);
    case Opc::kVAndOrB32:
      return d.Or(d.And(s[0], s[1]), s[2]);
    case Opc::kVBfeU32: {
      // w = s2 & 31; w == 0 ? 0 : (x >> (s1 & 31)) & ((1 << w) - 1)
      V w = amt(s[2]);
      V mask = d.Sub(d.Shl(d.Const(1), w), d.Const(1));
      V field = d.And(d.LShr(s[0], amt(s[1])), mask);
      return d.Select(d.Eq(w, d.Const(0)), d.Const(0), field);
    }
    case Opc::kVCmpGtU32:
      return d.Ult(s[1], s[0]);  // s0 > s1 (unsigned)
    // ---- Added for the emulator (append-only; see the conventions above
    // EvalIntOp's extension helpers below). ----
    default:
      return EvalIntOpExt(d, opc, s);
  }
}

// The flag an integer instruction produces besides its EvalIntOp result `r`
// (same sources `s`): SCC for SALU ops that write it (carry or borrow for
// s_add_u32/s_addc_u32/s_sub_u32/s_subb_u32, signed overflow for
// s_add_i32/s_sub_i32/s_addk_i32, "the 64-bit result is not 0" for
// s_lshlN_add_u32 overflow, compare results, min/max "s0 was chosen", and
// "result != 0" for bitwise, shift, bfe and bcnt ops), or the carry/borrow-out
// bit of the VALU *_co_u32 forms. nullopt: the instruction leaves SCC alone
// (s_mul_i32, s_movk_i32, s_cselect_b32, s_bfm_b32, ...).
template <class D>
std::optional<typename D::V> EvalFlagOut(const D& d, Opc opc, const std::vector<typename D::V>& s,
                                         const typename D::V& r) {
  using V = typename D::V;
  using namespace sem_detail;
  switch (opc) {
    case Opc::kSAddU32:
    case Opc::kVAddCoU32:
      return d.Ult(r, s[0]);
    case Opc::kSAddcU32:
    case Opc::kVAddcCoU32: {
      V t = d.Add(s[0], s[1]);
      return d.Or(d.Ult(t, s[0]), d.Ult(r, t));
    }
    case Opc::kSSubU32:
    case Opc::kVSubCoU32:
      return d.Ult(s[0], s[1]);
    case Opc::kVSubrevCoU32:
      return d.Ult(s[1], s[0]);
    case Opc::kSSubbU32:
    case Opc::kVSubbCoU32:
      return d.Or(d.Ult(s[0], s[1]), d.Ult(d.Sub(s[0], s[1]), s[2]));
    case Opc::kVSubbrevCoU32:
      return d.Or(d.Ult(s[1], s[0]), d.Ult(d.Sub(s[1], s[0]), s[2]));
    case Opc::kSAddI32:
    case Opc::kSAddkI32:  // same signs in, different sign out
      return IsNeg(d, d.And(d.Xor(s[0], r), d.Xor(s[1], r)));
    case Opc::kSSubI32:  // different signs in, result sign differs from s0
      return IsNeg(d, d.And(d.Xor(s[0], s[1]), d.Xor(s[0], r)));
    case Opc::kSLshl1AddU32:
    case Opc::kSLshl2AddU32:
    case Opc::kSLshl3AddU32:
    case Opc::kSLshl4AddU32: {
      int n = opc == Opc::kSLshl1AddU32 ? 1 : opc == Opc::kSLshl2AddU32 ? 2
              : opc == Opc::kSLshl3AddU32 ? 3 : 4;
      V shifted = d.Shl(s[0], d.Const(n));
      return d.Or(NonZero(d, d.LShr(s[0], d.Const(32 - n))), d.Ult(r, shifted));
    }
    case Opc::kSMinU32: return d.Ult(s[0], s[1]);
    case Opc::kSMaxU32: return d.Ult(s[1], s[0]);
    case Opc::kSMinI32: return Slt(d, s[0], s[1]);
    case Opc::kSMaxI32: return Slt(d, s[1], s[0]);
    case Opc::kSCmpEqU32: case Opc::kSCmpLgU32: case Opc::kSCmpGtU32: case Opc::kSCmpGeU32:
    case Opc::kSCmpLtU32: case Opc::kSCmpLeU32: case Opc::kSCmpEqI32: case Opc::kSCmpLgI32:
    case Opc::kSCmpGtI32: case Opc::kSCmpGeI32: case Opc::kSCmpLtI32: case Opc::kSCmpLeI32:
    case Opc::kSCmpkEqU32: case Opc::kSCmpkLgU32: case Opc::kSCmpkGtU32: case Opc::kSCmpkGeU32:
    case Opc::kSCmpkLtU32: case Opc::kSCmpkLeU32: case Opc::kSCmpkEqI32: case Opc::kSCmpkLgI32:
    case Opc::kSCmpkGtI32: case Opc::kSCmpkGeI32: case Opc::kSCmpkLtI32: case Opc::kSCmpkLeI32:
      return r;
    case Opc::kSLshlB32: case Opc::kSLshrB32: case Opc::kSAshrI32: case Opc::kSAndB32:
    case Opc::kSOrB32: case Opc::kSXorB32: case Opc::kSAndn2B32: case Opc::kSOrn2B32:
    case Opc::kSNotB32: case Opc::kSBfeU32: case Opc::kSBfeI32: case Opc::kSBcnt1I32B32:
      return NonZero(d, r);
    default:
      return std::nullopt;
  }
}

// A 64-bit value as two 32-bit halves.
template <class V>
struct Pair64 {
  V lo, hi;
};

// Result of a 64-bit (or 64-bit-source) integer instruction: the value, and the
// flag as in EvalFlagOut (SCC, carry-out, or a compare's 1/0) when has_flag.
template <class V>
struct Wide64 {
  V lo, hi;
  V flag;
  bool has_flag = false;
};

// v_cmp_*_{u,i}64 (two 64-bit sources) and v_cmp(x)_class_f64 (a 64-bit
// src0 and the 32-bit class mask src1): the VALU compares EvalWideOp
// evaluates, for the emulator and the verifier alike.
inline bool IsWideCompare(Opc o) {
  return (o >= Opc::kVCmpEqU64 && o <= Opc::kVCmpGtI64) || o == Opc::kVCmpClassF64 || o == Opc::kVCmpxClassF64;
}
// The wide compares whose src1 is 64-bit too (v_cmp_*_{u,i}64).
inline bool WideCompareSrc1Is64(Opc o) { return o >= Opc::kVCmpEqU64 && o <= Opc::kVCmpGtI64; }

// 64-bit integer/bit instructions: s_mov_b64, v_mov_b64, s_cselect_b64 (third
// source: SCC in .lo), s_and/or/xor/andn2/orn2/not_b64, s_lshl/lshr_b64,
// s_ashr_i64 (amount: low 6 bits of s1.lo), v_lshlrev/lshrrev_b64,
// v_ashrrev_i64 (amount s0.lo & 63), v_lshl_add_u64 ((s0 << (s1.lo & 7)) + s2),
// v_mad_u64_u32 (s0.lo * s1.lo + s2; flag = carry out), s_bcnt1_i32_b64,
// s_cmp_eq/lg_u64, v_cmp_*_u64/i64 and v_cmp(x)_class_f64 (flag only; the
// class's mask s[1] is 32-bit). Each source is a Pair64;
// 32-bit sources use .lo (their .hi is ignored). nullopt for other opcodes.
template <class D>
std::optional<Wide64<typename D::V>> EvalWideOp(const D& d, Opc opc,
                                                 const std::vector<Pair64<typename D::V>>& s) {
  using V = typename D::V;
  using namespace sem_detail;
  Wide64<V> w{d.Const(0), d.Const(0), d.Const(0), false};
  auto nz = [&](const V& lo, const V& hi) { return NonZero(d, d.Or(lo, hi)); };
  auto set = [&](const V& lo, const V& hi, bool scc) {
    w.lo = lo;
    w.hi = hi;
    if (scc) {
      w.flag = nz(lo, hi);
      w.has_flag = true;
    }
    return w;
  };
  // 64-bit shifts by a (masked) amount in 0..63, built from 32-bit shifts by 0..31.
  auto shl = [&](const Pair64<V>& x, const V& a) {
    V ge32 = d.Ult(d.Const(31), a), s5 = d.And(a, d.Const(31));
    V lo = d.Shl(x.lo, s5);
    V hi = Funnel(d, x.hi, x.lo, d.And(d.Sub(d.Const(32), s5), d.Const(31)));
    // For s5 == 0 the funnel above would give x.lo; the true high word is x.hi.
    hi = d.Select(d.Eq(s5, d.Const(0)), x.hi, hi);
    return Pair64<V>{d.Select(ge32, d.Const(0), lo), d.Select(ge32, lo, hi)};
  };
  auto shr = [&](const Pair64<V>& x, const V& a, bool arith) {
    V ge32 = d.Ult(d.Const(31), a), s5 = d.And(a, d.Const(31));
    V hi = arith ? d.AShr(x.hi, s5) : d.LShr(x.hi, s5);
    V lo = Funnel(d, x.hi, x.lo, s5);
    V fill = arith ? d.AShr(x.hi, d.Const(31)) : d.Const(0);
    return Pair64<V>{d.Select(ge32, hi, lo), d.Select(ge32, fill, hi)};
  };
  auto add = [&](const Pair64<V>& a, const Pair64<V>& b, V* carry) {
    V lo = d.Add(a.lo, b.lo);
    V c = d.Ult(lo, a.lo);
    V t = d.Add(a.hi, b.hi);
    V hi = d.Add(t, c);
    if (carry) *carry = d.Or(d.Ult(t, a.hi), d.Ult(hi, t));
    return Pair64<V>{lo, hi};
  };
  auto ult64 = [&](const Pair64<V>& a, const Pair64<V>& b) {
    return d.Or(d.Ult(a.hi, b.hi), d.And(d.Eq(a.hi, b.hi), d.Ult(a.lo, b.lo)));
  };
  auto slt64 = [&](const Pair64<V>& a, const Pair64<V>& b) {
    return d.Or(Slt(d, a.hi, b.hi), d.And(d.Eq(a.hi, b.hi), d.Ult(a.lo, b.lo)));
  };
  auto eq64 = [&](const Pair64<V>& a, const Pair64<V>& b) {
    return d.And(d.Eq(a.hi, b.hi), d.Eq(a.lo, b.lo));
  };
  auto flag = [&](const V& f) {
    w.flag = f;
    w.has_flag = true;
    return w;
  };
  V not1 = d.Const(1);
  switch (opc) {
    case Opc::kSMovB64:
    case Opc::kVMovB64:
      return set(s[0].lo, s[0].hi, false);
    case Opc::kSCselectB64:
      return set(d.Select(s[2].lo, s[0].lo, s[1].lo), d.Select(s[2].lo, s[0].hi, s[1].hi), false);
    case Opc::kSAndB64:
      return set(d.And(s[0].lo, s[1].lo), d.And(s[0].hi, s[1].hi), true);
    case Opc::kSOrB64:
      return set(d.Or(s[0].lo, s[1].lo), d.Or(s[0].hi, s[1].hi), true);
    case Opc::kSXorB64:
      return set(d.Xor(s[0].lo, s[1].lo), d.Xor(s[0].hi, s[1].hi), true);
    case Opc::kSAndn2B64:
      return set(d.And(s[0].lo, Not(d, s[1].lo)), d.And(s[0].hi, Not(d, s[1].hi)), true);
    case Opc::kSOrn2B64:
      return set(d.Or(s[0].lo, Not(d, s[1].lo)), d.Or(s[0].hi, Not(d, s[1].hi)), true);
    case Opc::kSNotB64:
      return set(Not(d, s[0].lo), Not(d, s[0].hi), true);
    case Opc::kSLshlB64: {
      Pair64<V> r = shl(s[0], d.And(s[1].lo, d.Const(63)));
      return set(r.lo, r.hi, true);
    }
    case Opc::kSLshrB64: {
      Pair64<V> r = shr(s[0], d.And(s[1].lo, d.Const(63)), false);
      return set(r.lo, r.hi, true);
    }
    case Opc::kSAshrI64: {
      Pair64<V> r = shr(s[0], d.And(s[1].lo, d.Const(63)), true);
      return set(r.lo, r.hi, true);
    }
    case Opc::kVLshlrevB64: {
      Pair64<V> r = shl(s[1], d.And(s[0].lo, d.Const(63)));
      return set(r.lo, r.hi, false);
    }
    case Opc::kVLshrrevB64: {
      Pair64<V> r = shr(s[1], d.And(s[0].lo, d.Const(63)), false);
      return set(r.lo, r.hi, false);
    }
    case Opc::kVAshrrevI64: {
      Pair64<V> r = shr(s[1], d.And(s[0].lo, d.Const(63)), true);
      return set(r.lo, r.hi, false);
    }
    case Opc::kVLshlAddU64: {
      Pair64<V> r = add(shl(s[0], d.And(s[1].lo, d.Const(7))), s[2], nullptr);
      return set(r.lo, r.hi, false);
    }
    case Opc::kVMadU64U32: {
      Pair64<V> p{d.Mul(s[0].lo, s[1].lo), d.MulHiU(s[0].lo, s[1].lo)};
      V carry = d.Const(0);
      Pair64<V> r = add(p, s[2], &carry);
      set(r.lo, r.hi, false);
      return flag(carry);
    }
    case Opc::kVCmpClassF64:
    case Opc::kVCmpxClassF64:  // s[0] the f64, s[1].lo the class mask (CmpClassF64)
      return flag(CmpClassF64(d, s[0].lo, s[0].hi, s[1].lo));
    case Opc::kSBcnt1I32B64: {
      V c = d.Add(Popcount(d, s[0].lo), Popcount(d, s[0].hi));
      w.lo = c;
      return flag(NonZero(d, c));
    }
    case Opc::kSCmpEqU64: case Opc::kVCmpEqU64: return flag(eq64(s[0], s[1]));
    case Opc::kSCmpLgU64: case Opc::kVCmpNeU64: return flag(d.Xor(eq64(s[0], s[1]), not1));
    case Opc::kVCmpLtU64: return flag(ult64(s[0], s[1]));
    case Opc::kVCmpGtU64: return flag(ult64(s[1], s[0]));
    case Opc::kVCmpLeU64: return flag(d.Xor(ult64(s[1], s[0]), not1));
    case Opc::kVCmpGeU64: return flag(d.Xor(ult64(s[0], s[1]), not1));
    case Opc::kVCmpLtI64: return flag(slt64(s[0], s[1]));
    case Opc::kVCmpGtI64: return flag(slt64(s[1], s[0]));
    default:
      return std::nullopt;
  }
}

// ---------------------------------------------------------------------------
// The raw-buffer (stride 0) range check and address of MUBUF instructions,
// shared by the emulator (hw/emu/memory.cc, with int64_t) and the verifier
// (verify/, with Z3 integer terms). W is a wide integer domain: a value type
// with non-wrapping `+`, `-` and `<=` (int64_t, or z3::expr of sort Int).
//
// The check is per component: each dword of a dwordx2/x3/x4 access, or the
// whole of a byte, short or dword access. A component of `bytes` bytes at byte
// `offset` = (offen ? voffset : 0) + instruction offset + component byte
// offset (summed without 32-bit wrap) is in range iff ALL its bytes are:
// offset + bytes <= num_records - soffset, also without wrap (num_records and
// soffset are the unsigned 32-bit register values). An out-of-range load
// component reads 0 and an out-of-range store component writes nothing, even
// when some of its bytes are in range; the other components are unaffected.
// So with num_records 8 a ushort at byte 7, or a dword at byte 6, reads 0
// (byte 7 alone reads its byte); a dwordx2 at byte 4 reads bytes 4..7 and 0.
// Sources: iree-org/iree #20392 ("if you're loading 1, 2, or 4 bytes of data,
// the entire value has to fit in bounds"; more than 4 bytes: all-or-nothing
// one word at a time), LLVM PR #132981 (AMDGPULowerBufferFatPointers splits
// unaligned sub-word vectors because a word straddling num_records is masked
// off whole) and the CDNA3/CDNA4 ISA guides, "Range Checking": out-of-range
// reads return zero, writes are dropped, "Load/store-Dword-x{2,3,4} ...
// range-check per component"; the soffset term follows CLRX GcnMemHandling
// (amdgcn-isa-notes.md section 4).
template <class W>
auto RawBufferInRange(const W& num_records, const W& soffset, const W& offset, const W& bytes) {
  return offset + bytes <= num_records - soffset;
}

// The byte address an in-range component accesses: base + soffset + offset
// (base = SRD dword0 + dword1[15:0] << 32), without wrap.
template <class W>
W RawBufferAddress(const W& base, const W& soffset, const W& offset) {
  return base + soffset + offset;
}

// ---------------------------------------------------------------------------
// global_* (FLAT global segment) addresses, shared by the emulator
// (hw/emu/exec_memory.cc, with uint64_t: modulo 2^64 as on hardware) and the
// verifier (verify/, with Z3 integer terms and int64_t: unbounded, and a sum
// past 2^64 or below 0 never equals a buffer address, so no wrap is accepted).
// The byte address of a component `comp_offset` bytes into the access is
//   base + voffset + (instruction offset + comp_offset)
// where, with an SGPR base (`global_load_dword v1, v0, s[2:3] offset:16`),
// base = saddr (64 bits) and voffset = the 32-bit vaddr zero-extended, and
// with `off` (`global_load_dword v1, v[2:3], off`) base = the 64-bit VGPR pair
// vaddr and voffset = 0. The offset field is 13 bits signed on gfx9
// (IsLegalGlobalOffset, compiler/isa/encoding.h). Sources: CDNA3 ISA guide,
// "Global instructions" (ADDR = SGPR base + VGPR offset + inst offset, or
// VGPR address + inst offset); LLVM AMDGPU FLATInstructions.td (GlobalSaddrTable).
template <class W>
W GlobalAddress(const W& base, const W& voffset, const W& offset) {
  return base + voffset + offset;
}

// ---------------------------------------------------------------------------
// flat_* (the FLAT segment: a 64-bit VGPR-pair address, no saddr) and
// scratch_* (the private segment), shared by the emulator and the verifier.
//
// A flat address is vaddr (64 bits) + the instruction offset (12 bits
// unsigned on gfx9, IsLegalFlatOffset of encoding.h), as GlobalAddress with
// voffset 0. Where it goes is decided by its high dword: inside the shared
// (LDS) aperture [kSharedApertureBase, + 2^32) the low dword is the LDS
// address; inside the private aperture the low dword is the lane's offset in
// its private (scratch) segment; any other address is global memory. The
// apertures are what a gfx9 kernel reads from src_shared_base /
// src_private_base (64-bit operands: low dword 0, high dword the aperture)
// or s_getreg of SH_MEM_BASES (shared [31:16], private [15:0], each the
// aperture's bits [63:48]; LLVM SIISelLowering.cpp getSegmentAperture
// shifts the field left by 16 for the high dword). The values are the ones
// the Linux amdkfd driver programs on gfx9 and later
// (drivers/gpu/drm/amd/amdkfd/kfd_flat_memory.c, kfd_init_apertures_v9:
// MAKE_LDS_APP_BASE_V9() = 1 << 48, MAKE_SCRATCH_APP_BASE_V9() = 2 << 48;
// each aperture's limit is base | 0xffffffff, MAKE_LDS_APP_LIMIT). Code must
// not depend on them (clang's does not: it reads the registers); the emulator
// and the verifier use these same two constants.
// Sources for the FLAT encoding (seg field [15:14]: 0 flat, 1 scratch,
// 2 global): LLVM AMDGPU FLATInstructions.td (FLAT_Real, `seg`), MI300
// (CDNA3) ISA guide section 10 "Flat Memory Instructions"; every encoding
// kirc reads is compared with llvm-mc 22's bytes in hw/emu:flat_encoding_test.
constexpr uint64_t kSharedApertureBase = uint64_t{1} << 48;
constexpr uint64_t kPrivateApertureBase = uint64_t{2} << 48;
constexpr uint32_t kSharedApertureHi = static_cast<uint32_t>(kSharedApertureBase >> 32);
constexpr uint32_t kPrivateApertureHi = static_cast<uint32_t>(kPrivateApertureBase >> 32);
enum class FlatSegment : uint8_t { kGlobal, kLds, kPrivate };
// The segment a flat address falls in (its high dword against the apertures).
inline FlatSegment FlatSegmentOf(uint64_t addr) {
  const uint32_t hi = static_cast<uint32_t>(addr >> 32);
  return hi == kSharedApertureHi ? FlatSegment::kLds
         : hi == kPrivateApertureHi ? FlatSegment::kPrivate
                                    : FlatSegment::kGlobal;
}

// scratch_* (FLAT scratch segment; gfx90a with flat scratch, gfx942 with
// architected flat scratch): the lane's offset in its private segment is
//   (vaddr, or 0 for off) + (saddr, or 0 for off) + instruction offset
// modulo 2^32, the offset 13 bits signed (IsLegalGlobalOffset); each lane has
// its own private segment (the hardware swizzles lanes apart). A private
// access is valid only inside the segment: 0 <= offset and offset + bytes <=
// private_segment_fixed_size (the descriptor's bytes per work-item). Sources:
// CDNA3 ISA guide section 10.2 "Scratch (Private) instructions" (ADDR =
// SGPR + VGPR + inst offset; either may be off), LLVM FLATInstructions.td
// (FLAT_Scratch_Load_Pseudo: "vaddr"/"saddr"/"off" forms, ST mode with both
// off on gfx940).
template <class D>
typename D::V ScratchOffset(const D& d, const typename D::V& vaddr, const typename D::V& saddr, int64_t offset) {
  return d.Add(d.Add(vaddr, saddr), d.Const(static_cast<uint32_t>(offset)));
}

// ---------------------------------------------------------------------------
// DS (LDS) addresses, shared by the emulator (hw/emu/exec_memory.cc), the
// verifier (verify/) and the DS pairing pass. A DS instruction accesses
// MemoryShape(opc).addrs addresses; address `component` (0, or 0/1 for
// read2/write2) is DsAddress(d, vaddr, mi, component).
// ds_read2*/ds_write2*: vaddr + offsetN * unit, unit = the element size (4 or
// 8 bytes), 64 elements for the st64 forms; single ones: vaddr + offset:N
// (amdgcn-isa-notes.md section 5; LLVM SILoadStoreOptimizer.cpp).
//
// THE rule for the sum (decided here, used everywhere): the LDS address is
// (vaddr + offset) mod 2^32, an unsigned 32-bit add, and it is that wrapped
// address that must lie inside the workgroup's allocation. So a negative
// vaddr (e.g. -4 * tid.x) with a constant in the offset field (280) addresses
// 280 - 4 * tid.x. Evidence:
//  - CDNA3/CDNA4 ISA guides, "Data Share Indexed and Atomic Access":
//    LDS_Addr = LDS_BASE + VGPR[ADDR] + {offset1, offset0}, both byte
//    quantities of 32 bits and 16 bits; no carry beyond 32 bits is described.
//  - LLVM relies on the 32-bit wrap on every target since Sea Islands (gfx7):
//    AMDGPUISelDAGToDAG.cpp isDSOffsetLegal folds a constant into the offset
//    field whatever the base's sign when Subtarget->hasUsableDSOffset(), and
//    SelectDS1Addr1Offset / SelectDSReadWrite2 turn `C - x` into base
//    `v_sub_u32 0, x` (negative) with offset C; GCNSubtarget.h says of
//    hasUsableDSOffset: on SI the offset "uses a 16-bit adder and does not
//    always wrap properly", so only SI (gfx6) requires the base's sign bit
//    to be zero. gfx908/90a/942 are gfx9.
// Out-of-range LDS addresses: the ISA guides say M0[16:0] clamps the final
// address, but GFX9 DS instructions do not read M0 (AMDGPUUsage, "M0");
// gem5's GCN3/Vega model (gpu-compute/lds_state.hh) returns 0 for reads and
// drops writes outside the workgroup's allocation. kirc never relies on
// either: the emulator refuses such an access and the verifier proves none
// happens (guarded lanes are off in EXEC and access nothing).
inline int64_t DsAddressOffset(const MInst& mi, int component) {
  const MemShape s = MemoryShape(mi.opc);
  if (s.addrs == 2) return int64_t{component == 0 ? mi.offset0 : mi.offset1} * s.unit;
  return mi.offset;
}

// The LDS byte address of address `component` of DS instruction `mi` whose
// address VGPR holds `vaddr`, in a 32-bit value domain D (U32Domain in the
// emulator, TermDomain in the verifier): (vaddr + DsAddressOffset) mod 2^32.
template <class D>
typename D::V DsAddress(const D& d, const typename D::V& vaddr, const MInst& mi, int component) {
  return d.Add(vaddr, d.Const(static_cast<uint32_t>(DsAddressOffset(mi, component))));
}

// Whether a DS instruction's offset fields hold its offsets: offset:N is 16
// bits, offset0/offset1 are 8 bits each (the field widths of encoding.h).
inline bool DsOffsetsFit(const MInst& mi) {
  if (MemoryShape(mi.opc).addrs == 2)
    return mi.offset0 >= 0 && mi.offset0 <= kDs2MaxOffset && mi.offset1 >= 0 && mi.offset1 <= kDs2MaxOffset;
  return IsLegalDsOffset(mi.offset);
}

// ---------------------------------------------------------------------------
// gfx950's transposing LDS read and 16-byte LDS DMA (opcodes.def
// kDsReadB64TrB16, kBufferLoadDwordx4Lds; TargetInfo::has_ds_read_tr_b16 /
// has_lds_dma_dwordx4). The emulator executes these rules and the verifier
// proves addresses with them.
//
// ds_read_b64_tr_b16 vdst[2], addr offset:N. Each lane's address
// DsAddress(vaddr, mi, 0) names an 8-byte block (four 16-bit elements,
// 8-byte aligned). The lanes form groups of 16 (lanes 16g..16g+15); within a
// group lane i = 4r + c supplies row r (0..3), columns 4c..4c+3 of a 4 x 16
// matrix of 16-bit elements, and lane j receives column j: result element e
// (0..3; the low half of vdst[0] is e = 0, its high half e = 1, vdst[1]
// holds e = 2, 3) is element j % 4 of the block of lane 16g + 4e + j / 4.
// Sources: the CDNA4 ISA guide, section 11.4 "MFMA Transpose Load from LDS"
// (as quoted in public kernel notes; the PDF is not in the corpora): "Read N
// bits of data per lane ... interpret the data as a matrix with 16 bit
// elements and transpose the matrix", used for "column major matrix A or row
// major matrix B"; "Prior to executing these instructions the EXEC mask must
// be set to all 1's". The exact lane map is the one Modular's production
// gfx950 kernels address it with (modular/modular, max/kernels amd
// structured tile_io `ds_read_tr16_b64_row`: "Each 16-lane row loads a 4x16
// tile ... each lane gets a column of the tile", the 16 lanes spread
// row-major over a 4 x 4 grid of 4-element cells), and Mojo's stdlib
// documents ds_read_tr16_b64 as "Reads a 64-bit LDS transpose block using
// TR16 layout". UNVERIFIED on hardware by kirc. Counts in lgkmcnt as every
// DS read (LLVM DSInstructions.td defines it as a DS_1A_RET load).
constexpr int kTrB16GroupLanes = 16;
constexpr int kTrB16Elems = 4;  // 16-bit elements per lane (8 bytes)
struct TrB16Source {
  int lane;  // the lane (0..63) whose 8-byte block holds the element
  int elem;  // which 16-bit element of that block (0..3)
};
constexpr TrB16Source DsReadTrB16Source(int lane, int e) {
  return {(lane & ~(kTrB16GroupLanes - 1)) + kTrB16Elems * e + (lane % kTrB16GroupLanes) / kTrB16Elems,
          lane % kTrB16Elems};
}

// buffer_load_dwordx4 vaddr|off, srsrc, soffset [offen] [offset:N] lds
// (gfx950). The global side is buffer_load_dwordx4's (RawBufferAddress and
// the range check per dword); lane l's 16 bytes are written to LDS bytes
// [A, A + 16) with A = (M0 + offset:N + 16 * l) mod 2^32, not to registers.
// Sources: LLVM's AMDGPU DMA operations document (llvm/docs, "GFX9 LDS DMA
// Instructions"): the data size is 1, 2 or 4 bytes, "gfx950 also allows 12
// or 16 bytes"; "The LDS address is implicitly offset by 4 * lane_id bytes
// for sizes up to 4 bytes, and by 16 * lane_id bytes for larger sizes"; the
// immediate offset is "applied to both global and LDS address"; the LDS
// base is wave-uniform (LLVM puts it in M0: SIISelLowering, the lds_base
// operand is readfirstlane'd into M0; CLRX's GCN notes give M0 + lane * 4
// for the dword form). The LDS write completes with vmcnt, not lgkmcnt
// (LLVM SIInsertWaitcnts tracks LDS DMA stores in the VM_CNT slot), so a
// DS access of those bytes must wait for vmcnt. Inactive lanes move
// nothing. The DMA reads only M0's low kLdsDmaM0Bits bits (the CDNA4 ISA
// guide's buffer-load-to-LDS section: LDS_offset = M0[17:0], 18 bits for
// gfx950's 160 KiB; CLRX gives M0[15:0] for older parts; as quoted by the
// fresh-user review of issue 19, F4, not read from the guide itself), and
// the sum is not wrapped: a negative M0 is an address past the LDS, never a
// wrapped one, so code must keep M0 >= 0. The emulator refuses a lane whose
// bytes fall outside the allocation (the hardware clamps them away). Hazard: an SALU
// write of M0 needs 1 wait state before an LDS DMA on GFX9
// (GCNHazardRecognizer checkReadM0Hazards, GCNSubtarget
// hasReadM0LdsDmaHazard() = generation GFX9): hazard_table.cc.
// global_load_lds_dwordx4 vaddr, saddr|off [offset:N] (gfx950) is the same
// DMA with global_load_dwordx4's global address (GlobalAddress above: no
// range check) and this LDS address: LLVM's DMA document gives one rule for
// both forms ("Flat/Global Addressing": llvm.amdgcn.load.to.lds with a
// global pointer, "offset applied to both src and LDS address", 16 *
// lane_id for 12/16 bytes); clang-22 writes __builtin_amdgcn_global_load_lds
// (p, lds, 16, 0, 0) as `s_mov_b32 m0, <lds base>` + `global_load_lds_dwordx4
// v[2:3], off`, and llc 22 -mcpu=gfx950 waits for it with `s_waitcnt
// vmcnt(0)` alone before a ds_read of its bytes (measured 2026-12), so it
// counts in vmcnt as the buffer form.
// `lane` is a value of D (the verifier's symbolic lane: linear work-item id
// mod 64, the wave layout of kernel.h's Kernel); the int overload is the same
// rule for a known lane (the emulator).
constexpr int kLdsDmaDwordx4LaneBytes = 16;
constexpr int kLdsDmaM0Bits = 18;
template <class D>
typename D::V LdsDmaAddress(const D& d, const typename D::V& m0, const MInst& mi, const typename D::V& lane) {
  const typename D::V m0_low = d.And(m0, d.Const(static_cast<uint32_t>((uint32_t{1} << kLdsDmaM0Bits) - 1)));
  return d.Add(d.Add(m0_low, d.Const(static_cast<uint32_t>(mi.offset))),
               d.Mul(lane, d.Const(static_cast<uint32_t>(kLdsDmaDwordx4LaneBytes))));
}
template <class D>
typename D::V LdsDmaAddress(const D& d, const typename D::V& m0, const MInst& mi, int lane) {
  return LdsDmaAddress(d, m0, mi, d.Const(static_cast<uint32_t>(lane)));
}

// ---------------------------------------------------------------------------
// fp8 conversion instructions (opcodes.def: v_cvt_pk_fp8_f32, v_cvt_pk_bf8_f32,
// their word-1 *Hi forms, v_cvt_f32_fp8/bf8, v_cvt_pk_f32_fp8/bf8). The
// same opcodes convert the target's flavour (TargetInfo::fp8): "fp8" is
// f8e4m3fnuz on gfx942 and f8e4m3fn on gfx950, "bf8" f8e5m2fnuz / f8e5m2.
//
// What is known of the hardware, and what is modelled:
//  - fp8/bf8 -> f32 is exact (every fp8 value is an f32): Fp8BitsToF32 of
//    float_bits.h; a NaN code gives a NaN (the payload is not modelled),
//    f8e5m2's infinities give infinities.
//  - f32 -> fp8/bf8 (v_cvt_pk_*_f32) rounds to nearest even ("RNE CVT" in
//    AMD's HIP header amd_hip_fp8.h, which calls these instructions for its
//    round-to-nearest path; v_cvt_sr_* is the stochastic one). Out-of-range
//    values: the instruction has no clamp bit on gfx942 nor on gfx950
//    (llvm-mc 22 rejects `v_cvt_pk_fp8_f32 v1, v2, v3 clamp` for both), and
//    AMD's own saturating conversion clamps in software first
//    (amd_hip_fp8.h cast_to_f8_from_f32: `__builtin_amdgcn_fmed3f(v, 240,
//    -240)` for finite v, "propagate NAN/INF, no clipping"), so what the
//    instruction gives for a finite |v| beyond the format's max or an
//    infinity is not documented here: Fp8CvtFromF32 answers nullopt for
//    those and the emulator refuses them (kirc's lowering clamps first).
//    NaN in gives the format's NaN (FNUZ: 0x80, its only NaN; OCP: 0x7f,
//    UNVERIFIED which OCP NaN code the hardware writes). A zero result in an
//    FNUZ format is 0x00 (the formats have no -0; 0x80 would be NaN).
//    Denormal inputs and results are kept. f32 source modifiers (neg, abs)
//    apply before the conversion.

// The element type the fp8 opcode `o` converts on target `t`; nullopt if the
// target has no fp8 instructions or `o` is not one of them.
inline std::optional<ElemType> Fp8CvtFormat(const TargetInfo& t, Opc o) {
  switch (o) {
    case Opc::kVCvtPkFp8F32:
    case Opc::kVCvtPkFp8F32Hi:
    case Opc::kVCvtF32Fp8:
    case Opc::kVCvtPkF32Fp8:
      return Fp8Elem(t, /*bf8=*/false);
    case Opc::kVCvtPkBf8F32:
    case Opc::kVCvtPkBf8F32Hi:
    case Opc::kVCvtF32Bf8:
    case Opc::kVCvtPkF32Bf8:
      return Fp8Elem(t, /*bf8=*/true);
    default:
      return std::nullopt;
  }
}

// The byte v_cvt_pk_*_f32 writes for f32 `v` in fp8 type `e`, or nullopt
// where the hardware result is not known (|v| beyond the format's max, or
// an infinity: see above).
inline std::optional<uint8_t> Fp8CvtFromF32(ElemType e, float v) {
  const Fp8Format* f = Fp8FormatOf(e);
  if (f == nullptr) return std::nullopt;
  if (!std::isnan(v) && !(std::fabs(static_cast<double>(v)) <= f->max)) return std::nullopt;
  return F32ToFp8Bits(e, v);  // in range: nearest even; NaN: Fp8Format::nan
}

// v_cvt_pk_f32_{fp8,bf8} vdst[2], src0 converts bytes 0 and 1 of its source
// operand; in the SDWA encoding the source is first the part src0_sel
// names (SdwaSource above, zero-extended), so src0_sel:WORD_1 converts
// bytes 2 and 3 of src0 (byte 2 to vdst[0]). That is how clang-22 writes
// the high-word dequantize: LLVM's test/CodeGen/AMDGPU/llvm.amdgcn.cvt.fp8.ll
// checks llvm.amdgcn.cvt.pk.f32.fp8(%a, i1 true) (the word_sel operand,
// IntrinsicsAMDGPU.td: "word_sel selects the high word") as
// `v_cvt_pk_f32_fp8_sdwa v[0:1], v0 src0_sel:WORD_1`, and the i1 false form
// as the plain `v_cvt_pk_f32_fp8_e32`. llvm-mc 22 -mcpu=gfx950 encodes
// `v_cvt_pk_f32_fp8_sdwa v[2:3], v2 src0_sel:WORD_1` as [0xf9,0xac,0x04,
// 0x7e,0x02,0x06,0x05,0x00] (SDWA src0_sel field = 5 = WORD_1, dst_sel
// DWORD) and rejects sext(), neg/abs and dst_sel on it ("not a valid
// operand"). A BYTE_n select would convert {byte n, 0}: LLVM never emits it
// and the emulator refuses it (Fp8CvtPkSelectModelled).
inline bool Fp8CvtPkSelectModelled(SdwaSel sel) {
  return sel == SdwaSel::kDword || sel == SdwaSel::kWord0 || sel == SdwaSel::kWord1;
}

// The new vdst of v_cvt_pk_*_f32 (word_hi: the *Hi form) from its old value
// and the two converted bytes (src0's in the word's low byte).
inline uint32_t Fp8CvtPkMerge(uint32_t old, uint8_t b0, uint8_t b1, bool word_hi) {
  const uint32_t word = static_cast<uint32_t>(b0) | static_cast<uint32_t>(b1) << 8;
  return word_hi ? (old & 0xffffu) | word << 16 : (old & 0xffff0000u) | word;
}

// ---------------------------------------------------------------------------
// Float min, max and median (v_min/v_max _f32 and _f16, v_pk_max_f16,
// v_min3/v_max3/v_med3 _f32 and _f16; opcodes.def) and v_cvt_pk_bf16_f32, on
// bit patterns, for the emulator (hw/emu/exec_float.cc). The verifier does
// not model float results (they are data to it), so these take host values
// rather than a value domain.
//
// IEEE-mode v_min/v_max of two values (WAVE_MODE.IEEE = 1: clang's and
// kirc's kernels set amdhsa_ieee_mode 1, the default for compute), as the
// ISA guide's pseudo-code of V_MIN_F32 / V_MAX_F32 / V_MIN_F16 / V_MAX_F16:
//  1. a signalling NaN in src0 gives src0 quieted; else one in src1 gives
//     src1 quieted;
//  2. else a quiet NaN in src1 gives src0; else one in src0 gives src1 (so
//     min(qNaN, x) = x, and two quiet NaNs give src0);
//  3. else the smaller (min) or larger (max) value, -0 ordered below +0
//     (the guide's LT_NEG_ZERO / GT_NEG_ZERO); equal values give src1.
// (std::fmin/fmax differ: a signalling NaN gives the other operand, and
// either zero may come out of fmin(+0, -0).) LLVM agrees: the IEEE-mode
// instruction is its fminnum_ieee/fmaxnum_ieee, so llc 22 -mcpu=gfx90a
// selects llvm.minnum.f32(a, b) (which must return the non-NaN operand) as
// `v_max_f32 v2, s2, s2; v_max_f32 v1, s3, s3; v_min_f32 v1, v2, v1`,
// quieting both sources first (and llvm.maxnum.f16 with v_max_f16 alike);
// LLVM's test/CodeGen/AMDGPU/fminnum.ll checks the same quieting in IEEE
// mode and none with it off. The guide's WAVE_MODE.IEEE = 0 branch (any NaN
// gives the other operand, unquieted) is not modelled: the emulator runs
// every kernel in IEEE mode.
// v_min3/v_max3 fold it left to right: min(min(s0, s1), s2). v_med3: if any
// source is a NaN (quiet or signalling), min3(s0, s1, s2) -- so
// med3(NaN, lo, hi) is min(lo, hi), NOT the NaN (clang keeps a NaN through a
// clamp with v_cmp_u_f32 + v_cndmask_b32 around it); else the Med3 rule
// above with the guide's float equality (`max3 == S0.f`, where -0 == +0).
// Source: AMD "RDNA3 Instruction Set Architecture" reference guide, section
// 16.12 "VOP3 & VOP3SD Instructions": V_MIN_F32 (271), V_MAX_F32 (272),
// V_MAX_F16 (313), V_MIN_F16 (314), V_MIN3_F32, V_MAX3_F32, V_MED3_F32,
// V_MIN3_F16, V_MAX3_F16, V_MED3_F16 (the public
// text with this pseudo-code; the CDNA3/CDNA4 guides, not in the corpora,
// list the same instructions for gfx9). A quieted NaN keeps its sign and
// payload with the quiet bit (the mantissa's top bit) set, cvtToQuietNAN.
enum class FloatBitsFormat : uint8_t { kF32, kF16 };

namespace sem_detail {
inline uint32_t FbExpMask(FloatBitsFormat f) { return f == FloatBitsFormat::kF32 ? 0x7f800000u : 0x7c00u; }
inline uint32_t FbManMask(FloatBitsFormat f) { return f == FloatBitsFormat::kF32 ? 0x007fffffu : 0x03ffu; }
inline uint32_t FbQuietBit(FloatBitsFormat f) { return f == FloatBitsFormat::kF32 ? 0x00400000u : 0x0200u; }
inline uint32_t FbSignBit(FloatBitsFormat f) { return f == FloatBitsFormat::kF32 ? 0x80000000u : 0x8000u; }
inline bool FbIsNaN(FloatBitsFormat f, uint32_t x) {
  return (x & FbExpMask(f)) == FbExpMask(f) && (x & FbManMask(f)) != 0;
}
inline bool FbIsSNaN(FloatBitsFormat f, uint32_t x) { return FbIsNaN(f, x) && !(x & FbQuietBit(f)); }
inline double FbValue(FloatBitsFormat f, uint32_t x) {
  return f == FloatBitsFormat::kF32 ? double{F32FromBits(x)}
                                    : double{F16BitsToF32(static_cast<uint16_t>(x))};
}
// a < b with -0 < +0 (neither a NaN).
inline bool FbLess(FloatBitsFormat f, uint32_t a, uint32_t b) {
  const double x = FbValue(f, a), y = FbValue(f, b);
  return x < y || (x == 0 && y == 0 && (a & FbSignBit(f)) && !(b & FbSignBit(f)));
}
}  // namespace sem_detail

// IEEE-mode v_min_* (max = false) or v_max_* (max = true) of the bits of two
// values of format f (f16: the low 16 bits), after source modifiers.
inline uint32_t IeeeMinMaxBits(FloatBitsFormat f, uint32_t a, uint32_t b, bool max) {
  using namespace sem_detail;
  if (FbIsSNaN(f, a)) return a | FbQuietBit(f);
  if (FbIsSNaN(f, b)) return b | FbQuietBit(f);
  if (FbIsNaN(f, b)) return a;
  if (FbIsNaN(f, a)) return b;
  return (max ? FbLess(f, b, a) : FbLess(f, a, b)) ? a : b;
}
inline uint32_t Min3Bits(FloatBitsFormat f, uint32_t a, uint32_t b, uint32_t c) {
  return IeeeMinMaxBits(f, IeeeMinMaxBits(f, a, b, false), c, false);
}
inline uint32_t Max3Bits(FloatBitsFormat f, uint32_t a, uint32_t b, uint32_t c) {
  return IeeeMinMaxBits(f, IeeeMinMaxBits(f, a, b, true), c, true);
}
inline uint32_t Med3Bits(FloatBitsFormat f, uint32_t a, uint32_t b, uint32_t c) {
  using namespace sem_detail;
  if (FbIsNaN(f, a) || FbIsNaN(f, b) || FbIsNaN(f, c)) return Min3Bits(f, a, b, c);
  const double m3 = FbValue(f, Max3Bits(f, a, b, c));
  if (m3 == FbValue(f, a)) return IeeeMinMaxBits(f, b, c, true);
  if (m3 == FbValue(f, b)) return IeeeMinMaxBits(f, a, c, true);
  return IeeeMinMaxBits(f, a, b, true);
}

// v_cvt_pk_bf16_f32 (gfx950): vdst[15:0] = bf16(src0), vdst[31:16] =
// bf16(src1), each rounded to nearest even (F32ToBf16Bits of float_bits.h,
// the KIR reference's conversion): finite values past the largest bf16 round
// to +-inf, infinities stay, denormals are kept, -0 stays -0, and a NaN
// gives a quiet NaN with its sign and the top 7 bits of its payload.
// Sources: LLVM 22 selects it for `fptrunc <2 x float> to <2 x bfloat>` and
// a scalar fptrunc to bfloat on gfx950 (VOP3Instructions.td V_CVT_PK_BF16_F32,
// VOP_V2BF16_F32_F32, under HasBF16ConversionInsts); fptrunc is IEEE
// round-to-nearest-even in the default MODE, which is what LLVM relies on
// (clang's `(__bf16)v` for gfx942 expands the same rounding in software:
// the 0x7fff + lsb bias). The NaN payload is UNVERIFIED on hardware (as for
// v_cvt_pk_f16_f32). Source modifiers (neg/abs) and the FP32 input denormal
// mode apply before, clamp to [0, 1] after (the emulator).
inline uint32_t CvtPkBf16F32(float lo, float hi) {
  return static_cast<uint32_t>(F32ToBf16Bits(lo)) | static_cast<uint32_t>(F32ToBf16Bits(hi)) << 16;
}

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_SEMANTICS_H_
