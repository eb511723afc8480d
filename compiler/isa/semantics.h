// The semantics of AMDGCN's integer and bit instructions, written once as a
// template over a value domain: uint32_t lanes for the emulator and index
// tests, Z3 bit-vectors for the verifier. So the emulator and the verifier
// cannot disagree about what an instruction computes.
// Facts: amdgcn-isa-notes.md section 7 (shift amounts use the low 5 bits,
// arithmetic wraps modulo 2^32, `rev` forms take the shift amount first,
// v_mul_u32_u24 reads the low 24 bits of each source).
#ifndef KIRC_COMPILER_ISA_SEMANTICS_H_
#define KIRC_COMPILER_ISA_SEMANTICS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/isa/instr.h"

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
};

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
    default:
      return std::nullopt;
  }
}

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_SEMANTICS_H_
