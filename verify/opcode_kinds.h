// Opcode families the symbolic lane (symexec.cc) and the concrete wave
// runner (concrete.cc) both treat specially: one definition for the two.
#ifndef KIRC_VERIFY_OPCODE_KINDS_H_
#define KIRC_VERIFY_OPCODE_KINDS_H_

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

}  // namespace kir::vfy

#endif  // KIRC_VERIFY_OPCODE_KINDS_H_
