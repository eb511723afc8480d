// The MIR verifier on hand-built functions: each malformation it exists to
// catch, and well-formed code it must accept.
#include "compiler/isa/mir_verifier.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "compiler/isa/cfg.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

const TargetInfo& T(const char* name) { return **LookupTarget(name); }

MInst I(Opc opc, std::vector<MOperand> ops) {
  MInst m;
  m.opc = opc;
  m.ops = std::move(ops);
  return m;
}

MInst End() { return I(Opc::kSEndpgm, {}); }

std::string Problems(const TargetInfo& t, const MFunction& f, MirForm form) {
  absl::Status s = VerifyMir(t, f, form);
  return s.ok() ? "" : std::string(s.message());
}

TEST(MirVerifier, AcceptsWellFormedVirtualCode) {
  MFunction f;
  int a = f.NewVReg(RegClass::kVgpr, 1);
  int b = f.NewVReg(RegClass::kVgpr, 1);
  int in = f.NewVReg(RegClass::kVgpr, 1);
  f.vregs[in].fixed = 0;  // a kernel input, defined at entry
  f.insts = {I(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, a), MOperand::Imm(3)}),
             I(Opc::kVAddU32, {MOperand::Virt(RegClass::kVgpr, b), MOperand::Virt(RegClass::kVgpr, a),
                               MOperand::Virt(RegClass::kVgpr, in)}),
             End()};
  EXPECT_EQ(Problems(T("gfx942"), f, MirForm::kVirtual), "");
}

TEST(MirVerifier, UseBeforeDefinition) {
  MFunction f;
  int a = f.NewVReg(RegClass::kVgpr, 1);
  int b = f.NewVReg(RegClass::kVgpr, 1);
  f.insts = {I(Opc::kVAddU32, {MOperand::Virt(RegClass::kVgpr, b), MOperand::Virt(RegClass::kVgpr, a),
                               MOperand::Imm(1)}),
             End()};
  std::string p = Problems(T("gfx942"), f, MirForm::kVirtual);
  EXPECT_NE(p.find("instruction 0 `v_add_u32 %v1, %v0, 1`: reads %v0, which is not written on every path"),
            std::string::npos)
      << p;
}

// A value written on only one side of a branch is not defined after the join.
TEST(MirVerifier, DefinedOnOnePathOnly) {
  MFunction f;
  int a = f.NewVReg(RegClass::kSgpr, 1);
  int b = f.NewVReg(RegClass::kSgpr, 1);
  f.insts = {I(Opc::kSCbranchScc0, {MOperand::Imm(1)}),
             I(Opc::kSMovB32, {MOperand::Virt(RegClass::kSgpr, a), MOperand::Imm(1)}),
             I(Opc::kLabel, {MOperand::Imm(1)}),
             I(Opc::kSMovB32, {MOperand::Virt(RegClass::kSgpr, b), MOperand::Virt(RegClass::kSgpr, a)}),
             End()};
  std::string p = Problems(T("gfx90a"), f, MirForm::kVirtual);
  EXPECT_NE(p.find("instruction 3 "), std::string::npos) << p;
  EXPECT_NE(p.find("reads %s0"), std::string::npos) << p;
  // Defined before the branch instead: fine on every path.
  std::swap(f.insts[0], f.insts[1]);
  EXPECT_EQ(Problems(T("gfx90a"), f, MirForm::kVirtual), "");
}

TEST(MirVerifier, RegisterClassAndTupleBounds) {
  MFunction f;
  int s2 = f.NewVReg(RegClass::kSgpr, 2);
  f.insts = {I(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, s2), MOperand::Imm(0)}),
             I(Opc::kSMovB32, {MOperand::Virt(RegClass::kSgpr, s2, 1, 2), MOperand::Imm(0)}), End()};
  std::string p = Problems(T("gfx942"), f, MirForm::kVirtual);
  EXPECT_NE(p.find("uses %s0 as a VGPR but it is a SGPR"), std::string::npos) << p;
  EXPECT_NE(p.find("covers registers 1..2 of %s0, which has 2"), std::string::npos) << p;
}

TEST(MirVerifier, PhysicalTupleAlignmentPerTarget) {
  MFunction f;
  // v[1:2] as a 64-bit operand: misaligned on gfx90a/942, fine on gfx908.
  f.insts = {I(Opc::kGlobalLoadDwordx2, {MOperand::Phys(RegClass::kVgpr, 1, 2), MOperand::Phys(RegClass::kVgpr, 4, 2),
                                         MOperand::Special(SpecialReg::kNone)}),
             End()};
  f.insts[0].ops.pop_back();
  EXPECT_EQ(Problems(T("gfx908"), f, MirForm::kPhysical), "");
  std::string p = Problems(T("gfx90a"), f, MirForm::kPhysical);
  EXPECT_NE(p.find("v[1:2]: a tuple of 2 VGPRs must start at a multiple of 2 on gfx90a"), std::string::npos) << p;
  // SGPR quads start at multiples of 4 on every target.
  MFunction g;
  g.insts = {I(Opc::kSLoadDwordx4, {MOperand::Phys(RegClass::kSgpr, 6, 4), MOperand::Phys(RegClass::kSgpr, 0, 2),
                                    MOperand::Imm(0)}),
             End()};
  p = Problems(T("gfx908"), g, MirForm::kPhysical);
  EXPECT_NE(p.find("s[6:9]: a tuple of 4 SGPRs must start at a multiple of 4"), std::string::npos) << p;
}

TEST(MirVerifier, PhysicalRegistersInsideTheFiles) {
  MFunction f;
  f.insts = {I(Opc::kVMovB32, {MOperand::Phys(RegClass::kVgpr, 256), MOperand::Imm(0)}),
             I(Opc::kSMovB32, {MOperand::Phys(RegClass::kSgpr, 102), MOperand::Imm(0)}), End()};
  std::string p = Problems(T("gfx942"), f, MirForm::kPhysical);
  EXPECT_NE(p.find("v256 lies outside the 256 VGPRs of gfx942"), std::string::npos) << p;
  EXPECT_NE(p.find("s102 lies outside the 102 SGPRs of gfx942"), std::string::npos) << p;
}

TEST(MirVerifier, MfmaAccumulatorClasses) {
  const MfmaDesc* m = LookupMfma("f32_16x16x16_f16");
  ASSERT_NE(m, nullptr);
  auto mfma = [&](RegClass dst, RegClass srcc) {
    MFunction f;
    f.insts = {I(Opc::kVMfma, {MOperand::Phys(dst, 0, 4), MOperand::Phys(RegClass::kVgpr, 8, 2),
                               MOperand::Phys(RegClass::kVgpr, 10, 2), MOperand::Phys(srcc, 0, 4)}),
               End()};
    f.insts[0].mfma = m;
    return f;
  };
  // gfx90a/942: either class, but vdst and srcC share one (the acc_cd bit).
  for (const char* t : {"gfx90a", "gfx942"}) {
    EXPECT_EQ(Problems(T(t), mfma(RegClass::kAgpr, RegClass::kAgpr), MirForm::kPhysical), "") << t;
    EXPECT_EQ(Problems(T(t), mfma(RegClass::kVgpr, RegClass::kVgpr), MirForm::kPhysical), "") << t;
    std::string p = Problems(T(t), mfma(RegClass::kAgpr, RegClass::kVgpr), MirForm::kPhysical);
    EXPECT_NE(p.find("vdst and srcC must be the same register class"), std::string::npos) << t << ": " << p;
  }
  // gfx908: AGPRs only.
  EXPECT_EQ(Problems(T("gfx908"), mfma(RegClass::kAgpr, RegClass::kAgpr), MirForm::kPhysical), "");
  std::string p = Problems(T("gfx908"), mfma(RegClass::kVgpr, RegClass::kVgpr), MirForm::kPhysical);
  EXPECT_NE(p.find("the MFMA's vdst must be AGPRs on gfx908"), std::string::npos) << p;
}

TEST(MirVerifier, VirtualRegisterAfterAllocation) {
  MFunction f;
  int a = f.NewVReg(RegClass::kVgpr, 1);
  f.insts = {I(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, a), MOperand::Imm(0)}), End()};
  EXPECT_EQ(Problems(T("gfx942"), f, MirForm::kVirtual), "");
  std::string p = Problems(T("gfx942"), f, MirForm::kPhysical);
  EXPECT_NE(p.find("is still the virtual register %v0 after register allocation"), std::string::npos) << p;
}

TEST(MirVerifier, ControlFlowAndOperandKinds) {
  MFunction f;
  f.insts = {I(Opc::kSBranch, {MOperand::Imm(7)}), End()};
  std::string p = Problems(T("gfx942"), f, MirForm::kPhysical);
  EXPECT_NE(p.find("malformed control flow"), std::string::npos) << p;

  MFunction g;
  g.insts = {I(Opc::kVMovB32, {MOperand::Imm(1), MOperand::Imm(0)})};
  p = Problems(T("gfx942"), g, MirForm::kPhysical);
  EXPECT_NE(p.find("definition operand 0 is an immediate"), std::string::npos) << p;
  EXPECT_NE(p.find("last instruction must be s_endpgm or s_branch"), std::string::npos) << p;

  MFunction h;
  h.insts = {I(Opc::kSNop, {MOperand::Imm(16)}), I(Opc::kSWaitcnt, {MOperand::Imm(64), MOperand::Imm(0)}), End()};
  p = Problems(T("gfx942"), h, MirForm::kPhysical);
  EXPECT_NE(p.find("s_nop needs one immediate in 0..15"), std::string::npos) << p;
  EXPECT_NE(p.find("vmcnt(64) is outside -1..63"), std::string::npos) << p;
}

TEST(MirVerifier, TupleAlignmentRule) {
  EXPECT_EQ(TupleAlignment(T("gfx908"), RegClass::kVgpr, 4), 1);
  EXPECT_EQ(TupleAlignment(T("gfx90a"), RegClass::kVgpr, 4), 2);
  EXPECT_EQ(TupleAlignment(T("gfx942"), RegClass::kAgpr, 16), 2);
  EXPECT_EQ(TupleAlignment(T("gfx942"), RegClass::kVgpr, 1), 1);
  EXPECT_EQ(TupleAlignment(T("gfx942"), RegClass::kSgpr, 2), 2);
  EXPECT_EQ(TupleAlignment(T("gfx942"), RegClass::kSgpr, 8), 4);
}

// The kept CFG: a pass that inserts an instruction must renumber the blocks;
// the verifier compares the kept CFG with the instructions' own.
TEST(MirVerifier, StaleKeptCfg) {
  MFunction f;
  MInst label = I(Opc::kLabel, {MOperand::Imm(0)});
  MInst branch = I(Opc::kSCbranchScc1, {MOperand::Imm(0)});
  f.insts = {I(Opc::kSMovB32, {MOperand::Phys(RegClass::kSgpr, 0), MOperand::Imm(1)}), label,
             I(Opc::kSCmpEqU32, {MOperand::Phys(RegClass::kSgpr, 0), MOperand::Imm(2)}), branch, End()};
  absl::StatusOr<const std::vector<BasicBlock>*> cfg = EnsureCfg(f);
  ASSERT_TRUE(cfg.ok());
  // Blocks: [0,1) entry, [1,4) loop (label .. branch), [4,5) exit.
  ASSERT_EQ((*cfg)->size(), 3u);
  EXPECT_EQ((**cfg)[1].begin, 1);
  EXPECT_EQ((**cfg)[1].end, 4);
  EXPECT_EQ(Problems(T("gfx942"), f, MirForm::kPhysical), "");

  // An s_nop inserted inside the loop without renumbering: stale.
  f.insts.insert(f.insts.begin() + 2, I(Opc::kSNop, {MOperand::Imm(0)}));
  std::string p = Problems(T("gfx942"), f, MirForm::kPhysical);
  EXPECT_NE(p.find("the kept CFG (MFunction::blocks) differs"), std::string::npos) << p;

  // Renumbered: the loop block now ends at 5 and the exit starts there.
  RenumberBlocks(f, {0, 1, 5});
  EXPECT_EQ(Problems(T("gfx942"), f, MirForm::kPhysical), "");
  EXPECT_EQ(f.blocks[1].end, 5);
  EXPECT_EQ(f.blocks[2].begin, 5);
  EXPECT_EQ(f.blocks[2].end, 6);

  // A wrong number of block starts drops the kept CFG; the next use rebuilds it.
  RenumberBlocks(f, {0});
  EXPECT_FALSE(f.cfg_valid);
  ASSERT_TRUE(EnsureCfg(f).ok());
  EXPECT_EQ(f.blocks.size(), 3u);
}

}  // namespace
}  // namespace kir
