// Opcode families the symbolic lane (symexec.cc) and the concrete wave
// runner (concrete.cc) both treat specially: one definition for the two.
#ifndef KIRC_VERIFY_OPCODE_KINDS_H_
#define KIRC_VERIFY_OPCODE_KINDS_H_

#include "compiler/isa/encoding.h"
#include "compiler/isa/instr.h"

namespace kir::vfy {

// s_{and,or,xor,andn2}_saveexec_b64: sdst = EXEC, EXEC = src0 op EXEC.
inline bool IsSaveexec(Opc o) {
  return o == Opc::kSAndSaveexecB64 || o == Opc::kSOrSaveexecB64 || o == Opc::kSXorSaveexecB64 ||
         o == Opc::kSAndn2SaveexecB64;
}

// SOPK (s_movk_i32, s_addk_i32, s_mulk_i32, s_cmpk_*): the opcode's layout
// ends in a 16-bit simm16 (opcodes.def).
inline bool IsSopk(Opc o) {
  const OperandLayout l = Info(o).layout;
  return l == OperandLayout::kSopkLayout || l == OperandLayout::kSopkCmpLayout;
}
// The SOPK forms whose simm16 is zero-extended (s_cmpk_*_u32); the others sign-extend it.
inline bool IsSopkUnsigned(Opc o) { return o >= Opc::kSCmpkEqU32 && o <= Opc::kSCmpkLeU32; }

// IsWideCompare and WideCompareSrc1Is64: compiler/isa/semantics.h.

// The VALU opcodes with a 64-bit result (and some 64-bit sources).
inline bool IsWideValu(Opc o) {
  return o == Opc::kVMovB64 || o == Opc::kVLshlrevB64 || o == Opc::kVLshrrevB64 || o == Opc::kVAshrrevI64 ||
         o == Opc::kVLshlAddU64 || o == Opc::kVMadU64U32;
}

// The special register an explicit SGPR-space dword is part of, with the
// dword of it (0 lo, 1 hi) in *dword: s106/s107 are vcc_lo/vcc_hi, s124 m0,
// s126/s127 exec_lo/exec_hi (their scalar-operand encodings, encoding.h's
// SpecialRegAt; the assembly reader gives `vcc_lo`, `exec_hi`, ... as these
// SGPRs). kNone for a numbered SGPR s0..s105.
inline SpecialReg SgprAlias(int index, int* dword) {
  for (int d = 0; d < 2; ++d) {
    const SpecialReg r = SpecialRegAt(index - d, 2);
    if (r != SpecialReg::kNone) {
      *dword = d;
      return r;
    }
  }
  *dword = 0;
  const SpecialReg r = SpecialRegAt(index, 1);  // m0 (scc is no SGPR a register operand names)
  return r == SpecialReg::kM0 ? r : SpecialReg::kNone;
}

// The dwords operand `o` names: a register's count, 2 for vcc and exec
// (always the 64-bit registers: their halves are the SGPRs SgprAlias maps),
// 1 for m0, scc and immediates.
inline int OperandDwords(const MOperand& o) {
  if (o.kind == MOperand::Kind::kReg) return o.count;
  return o.kind == MOperand::Kind::kSpecial && (o.special == SpecialReg::kVcc || o.special == SpecialReg::kExec) ? 2
                                                                                                                 : 1;
}

}  // namespace kir::vfy

#endif  // KIRC_VERIFY_OPCODE_KINDS_H_
