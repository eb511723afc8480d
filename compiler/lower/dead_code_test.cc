// RemoveDeadInstructions on small hand-built MIR: which instructions go and
// which stay, decided by hand from the rule in dead_code.h.
#include "compiler/lower/dead_code.h"

#include <vector>

#include "gtest/gtest.h"

namespace kir {
namespace {

MOperand V(int id, int sub = 0, int count = 1) { return MOperand::Virt(RegClass::kVgpr, id, sub, count); }
MOperand S(int id, int sub = 0, int count = 1) { return MOperand::Virt(RegClass::kSgpr, id, sub, count); }

MInst I(Opc opc, std::vector<MOperand> ops) {
  MInst m;
  m.opc = opc;
  m.ops = std::move(ops);
  return m;
}

MFunction Function(std::vector<VReg> vregs, std::vector<MInst> insts) {
  MFunction f;
  f.vregs = std::move(vregs);
  f.insts = std::move(insts);
  f.insts.push_back(I(Opc::kSEndpgm, {}));
  return f;
}

VReg R(RegClass c, int count) {
  VReg v;
  v.cls = c;
  v.count = count;
  return v;
}

std::vector<Opc> Opcodes(const MFunction& f) {
  std::vector<Opc> out;
  for (const MInst& mi : f.insts) out.push_back(mi.opc);
  return out;
}

// %v1 = %v0 + %v0 and %v2 = %v1 * %v1 are read by nothing: both go (the
// second makes the first dead); %v0 feeds the store and stays.
TEST(DeadCode, UnreadChainGoesFromItsEnd) {
  MFunction f = Function({R(RegClass::kVgpr, 1), R(RegClass::kVgpr, 1), R(RegClass::kVgpr, 1),
                          R(RegClass::kSgpr, 4), R(RegClass::kVgpr, 1)},
                         {I(Opc::kVMovB32, {V(0), MOperand::Imm(1)}),
                          I(Opc::kVAddU32, {V(1), V(0), V(0)}),
                          I(Opc::kVMulLoU32, {V(2), V(1), V(1)}),
                          I(Opc::kBufferStoreDword, {V(0), V(4), S(3, 0, 4), MOperand::Imm(0)})});
  EXPECT_EQ(RemoveDeadInstructions(f), 2);
  EXPECT_EQ(Opcodes(f), (std::vector<Opc>{Opc::kVMovB32, Opc::kBufferStoreDword, Opc::kSEndpgm}));
}

// Dword granularity: a write to %v0[1] that nothing reads goes although
// %v0[0] is read; a load (memory) and a compare writing VCC stay unread.
TEST(DeadCode, UnreadDwordOfATupleGoesLoadsAndVccStay) {
  MFunction f = Function({R(RegClass::kVgpr, 2), R(RegClass::kSgpr, 4), R(RegClass::kVgpr, 1),
                          R(RegClass::kVgpr, 1)},
                         {I(Opc::kVMovB32, {V(0, 0), MOperand::Imm(1)}),
                          I(Opc::kVMovB32, {V(0, 1), MOperand::Imm(2)}),
                          I(Opc::kBufferLoadDword, {V(3), V(2), S(1, 0, 4), MOperand::Imm(0)}),
                          I(Opc::kVCmpGtU32, {MOperand::Special(SpecialReg::kVcc), V(2), V(2)}),
                          I(Opc::kBufferStoreDword, {V(0, 0), V(2), S(1, 0, 4), MOperand::Imm(0)})});
  EXPECT_EQ(RemoveDeadInstructions(f), 1);
  EXPECT_EQ(Opcodes(f), (std::vector<Opc>{Opc::kVMovB32, Opc::kBufferLoadDword, Opc::kVCmpGtU32,
                                          Opc::kBufferStoreDword, Opc::kSEndpgm}));
  EXPECT_EQ(f.insts[0].ops[0].sub, 0);
}

// An SALU writes SCC as well (s_add_u32): it stays; a value read before it
// is written (a loop's next trip) counts as read: it stays.
TEST(DeadCode, SccWritersAndEarlierReadersKeepTheirDefs) {
  MFunction f = Function({R(RegClass::kSgpr, 1), R(RegClass::kVgpr, 1), R(RegClass::kSgpr, 4),
                          R(RegClass::kVgpr, 1)},
                         {I(Opc::kBufferStoreDword, {V(1), V(3), S(2, 0, 4), MOperand::Imm(0)}),
                          I(Opc::kSAddU32, {S(0), MOperand::Imm(1), MOperand::Imm(2)}),
                          I(Opc::kVMovB32, {V(1), MOperand::Imm(3)})});
  EXPECT_EQ(RemoveDeadInstructions(f), 0);
  EXPECT_EQ(f.insts.size(), 4u);
}

}  // namespace
}  // namespace kir
