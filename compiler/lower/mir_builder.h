// Appends MIR instructions with gfx9 operand legalisation: literals only where
// the encoding has room (VOP1/VOP2 src0, SOP), VOP2 src1 in a VGPR, at most one
// scalar value (SGPR or literal) per VALU instruction (the constant bus), and
// inline constants where the value allows (amdgcn-isa-notes.md section 7.1).
#ifndef KIRC_COMPILER_LOWER_MIR_BUILDER_H_
#define KIRC_COMPILER_LOWER_MIR_BUILDER_H_

#include <cstdint>
#include <map>
#include <vector>

#include "compiler/isa/instr.h"

namespace kir {

// True if `v` (a 32-bit pattern) is an integer inline constant (-16..64).
bool IsInlineInt(int64_t v);
// True if `bits` is an f32 inline constant (0, +-0.5, +-1, +-2, +-4).
bool IsInlineF32(uint32_t bits);

class MirBuilder {
 public:
  explicit MirBuilder(MFunction& f) : f_(f) {}

  // The KIR op (pre-order index) that instructions appended from now on implement.
  void SetKirOp(int op) { kir_op_ = op; }

  // Appends `opc` with operands in assembly order; returns the new instruction.
  MInst& Emit(Opc opc, std::vector<MOperand> ops);

  int NewV(int count = 1, int align = 1) { return f_.NewVReg(RegClass::kVgpr, count, align); }
  int NewS(int count = 1, int align = 1) { return f_.NewVReg(RegClass::kSgpr, count, align); }
  int NewA(int count = 1, int align = 1) { return f_.NewVReg(RegClass::kAgpr, count, align); }
  static MOperand V(int vreg, int sub = 0, int count = 1) {
    return MOperand::Virt(RegClass::kVgpr, vreg, sub, count);
  }
  static MOperand S(int vreg, int sub = 0, int count = 1) {
    return MOperand::Virt(RegClass::kSgpr, vreg, sub, count);
  }
  static MOperand A(int vreg, int sub = 0, int count = 1) {
    return MOperand::Virt(RegClass::kAgpr, vreg, sub, count);
  }

  // A VALU instruction writing a fresh VGPR from `srcs`, legalised; returns the
  // destination vreg. `srcs` may hold VGPR/SGPR operands and immediates.
  int Valu(Opc opc, std::vector<MOperand> srcs);
  // The same into an existing destination operand.
  void ValuTo(Opc opc, MOperand dst, std::vector<MOperand> srcs);
  // A SALU instruction writing a fresh SGPR from `srcs` (at most one literal).
  int Salu(Opc opc, std::vector<MOperand> srcs);

  // A VGPR / SGPR holding the 32-bit constant `v` (cached per function).
  int VConst(uint32_t v);
  int SConst(uint32_t v);
  // `o` in a VGPR (copied with v_mov_b32 unless it already is one).
  MOperand ToVgpr(const MOperand& o);

  MFunction& func() { return f_; }

 private:
  void Legalize(Opc opc, std::vector<MOperand>& srcs);
  MFunction& f_;
  int kir_op_ = -1;
  std::map<uint32_t, int> vconst_, sconst_;
};

}  // namespace kir

#endif  // KIRC_COMPILER_LOWER_MIR_BUILDER_H_
