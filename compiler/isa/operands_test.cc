#include "compiler/isa/operands.h"

#include <string>
#include <vector>

#include "compiler/isa/encoding.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

MOperand V(int r, int n = 1) { return MOperand::Phys(RegClass::kVgpr, r, n); }
MOperand S(int r, int n = 1) { return MOperand::Phys(RegClass::kSgpr, r, n); }
MOperand A(int r, int n = 1) { return MOperand::Phys(RegClass::kAgpr, r, n); }

MInst Make(Opc opc, std::vector<MOperand> ops) {
  MInst mi;
  mi.opc = opc;
  mi.ops = std::move(ops);
  return mi;
}

std::string Name(const MInst& mi, OpName n) {
  const MOperand* o = FindOperand(mi, n);
  if (o == nullptr) return "absent";
  if (o->kind == MOperand::Kind::kImm) return std::to_string(o->imm);
  if (o->kind == MOperand::Kind::kSpecial) return SpecialRegName(o->special);
  return RegName(o->cls, o->reg, o->count);
}

// Operand names as LLVM's AMDGPU instruction definitions give them (the
// assembly orders of the AMD CDNA3 ISA guide), written out by hand.
TEST(NamedOperands, ValuCarryFormNamesCarryOutSdst) {
  // v_add_co_u32 v1, vcc, v2, v3 / v_addc_co_u32 v1, vcc, v2, v3, vcc
  MInst add = Make(Opc::kVAddCoU32, {V(1), MOperand::Special(SpecialReg::kVcc), V(2), V(3)});
  EXPECT_EQ(Name(add, OpName::kVdst), "v1");
  EXPECT_EQ(Name(add, OpName::kSdst), "vcc");
  EXPECT_EQ(Name(add, OpName::kSrc0), "v2");
  EXPECT_EQ(Name(add, OpName::kSrc1), "v3");
  EXPECT_EQ(Name(add, OpName::kSrc2), "absent");
  MInst addc = Make(Opc::kVAddcCoU32, {V(1), MOperand::Special(SpecialReg::kVcc), V(2), V(3),
                                       MOperand::Special(SpecialReg::kVcc)});
  EXPECT_EQ(Name(addc, OpName::kSrc2), "vcc");
}

TEST(NamedOperands, MfmaSourcesAreSrc0To2) {
  MInst m = Make(Opc::kVMfma, {A(0, 16), V(4, 2), V(6, 2), A(0, 16)});
  EXPECT_EQ(Name(m, OpName::kVdst), "a[0:15]");
  EXPECT_EQ(Name(m, OpName::kSrc0), "v[4:5]");
  EXPECT_EQ(Name(m, OpName::kSrc1), "v[6:7]");
  EXPECT_EQ(Name(m, OpName::kSrc2), "a[0:15]");
}

TEST(NamedOperands, MemoryForms) {
  // buffer_store_dword v1, v2, s[0:3], 0 offen
  MInst st = Make(Opc::kBufferStoreDword, {V(1), V(2), S(0, 4), MOperand::Imm(0)});
  EXPECT_EQ(Name(st, OpName::kVdata), "v1");
  EXPECT_EQ(Name(st, OpName::kVaddr), "v2");
  EXPECT_EQ(Name(st, OpName::kSrsrc), "s[0:3]");
  EXPECT_EQ(Name(st, OpName::kSoffset), "0");
  EXPECT_EQ(Name(st, OpName::kVdst), "absent");
  // global_load_dword v1, v[2:3], off: no saddr
  MInst gl = Make(Opc::kGlobalLoadDword, {V(1), V(2, 2)});
  EXPECT_EQ(Name(gl, OpName::kVdst), "v1");
  EXPECT_EQ(Name(gl, OpName::kVaddr), "v[2:3]");
  EXPECT_FALSE(HasOperand(gl, OpName::kSaddr));
  EXPECT_EQ(OperandOr0(gl, OpName::kSaddr).imm, 0);
  // ds_write2_b32 v0, v1, v2 offset1:1 / ds_read_b64 v[4:5], v0
  MInst w2 = Make(Opc::kDsWrite2B32, {V(0), V(1), V(2)});
  EXPECT_EQ(Name(w2, OpName::kAddr), "v0");
  EXPECT_EQ(Name(w2, OpName::kData0), "v1");
  EXPECT_EQ(Name(w2, OpName::kData1), "v2");
  MInst rd = Make(Opc::kDsReadB64, {V(4, 2), V(0)});
  EXPECT_EQ(Name(rd, OpName::kVdst), "v[4:5]");
  EXPECT_EQ(Name(rd, OpName::kAddr), "v0");
  // s_load_dwordx2 s[4:5], s[0:1], 0x10
  MInst sl = Make(Opc::kSLoadDwordx2, {S(4, 2), S(0, 2), MOperand::Imm(16)});
  EXPECT_EQ(Name(sl, OpName::kSdst), "s[4:5]");
  EXPECT_EQ(Name(sl, OpName::kSbase), "s[0:1]");
  EXPECT_EQ(Name(sl, OpName::kOffset), "16");
}

TEST(NamedOperands, ScalarForms) {
  MInst cmpk = Make(Opc::kSCmpkEqU32, {S(3), MOperand::Imm(7)});
  EXPECT_EQ(Name(cmpk, OpName::kSrc0), "s3");
  EXPECT_EQ(Name(cmpk, OpName::kSimm16), "7");
  EXPECT_EQ(Name(cmpk, OpName::kSdst), "absent");
  MInst cmp = Make(Opc::kSCmpLgU32, {S(3), S(4)});
  EXPECT_EQ(Name(cmp, OpName::kSrc1), "s4");
  MInst nop = Make(Opc::kSNop, {MOperand::Imm(3)});
  EXPECT_EQ(Name(nop, OpName::kSimm16), "3");
  MInst br = Make(Opc::kSBranch, {MOperand::Imm(2)});
  EXPECT_EQ(Name(br, OpName::kTarget), "2");
  MInst w = MakeWaitcnt(3, kWaitcntNoWait);
  EXPECT_EQ(Name(w, OpName::kVmcnt), "3");
  EXPECT_EQ(Name(w, OpName::kLgkmcnt), "-1");
  // v_cmp_gt_u32_e64 s[4:5], v1, v2
  MInst vc = Make(Opc::kVCmpGtU32, {S(4, 2), V(1), V(2)});
  EXPECT_EQ(Name(vc, OpName::kSdst), "s[4:5]");
  EXPECT_EQ(Name(vc, OpName::kSrc0), "v1");
}

// Every opcode's layout names its defs first, with destination names only,
// and no name twice.
TEST(NamedOperands, EveryLayoutStartsWithItsDefs) {
  for (int i = 0; i < static_cast<int>(Opc::kNumOpcodes); ++i) {
    const Opc opc = static_cast<Opc>(i);
    const OpcInfo& info = Info(opc);
    std::vector<int> seen;
    for (int n = 0; n <= static_cast<int>(OpName::kData1); ++n) {
      int idx = NamedOperandIdx(opc, static_cast<OpName>(n));
      if (idx < 0) continue;
      for (int s : seen) EXPECT_NE(s, idx) << info.mnemonic;
      seen.push_back(idx);
      const OpName name = static_cast<OpName>(n);
      // (A returning global atomic's vdata is its data source: vdst receives.)
      const bool dest = name == OpName::kVdst || name == OpName::kSdst ||
                        (name == OpName::kVdata && info.cls == InstClass::kVmemLoad &&
                         info.layout != OperandLayout::kGlobalAtomicRtnLayout);
      if (idx < info.num_defs) {
        EXPECT_TRUE(dest) << info.mnemonic << " def " << idx << " named " << OpNameText(name);
      } else {
        EXPECT_FALSE(dest) << info.mnemonic << " use " << idx << " named " << OpNameText(name);
      }
    }
    EXPECT_GE(static_cast<int>(seen.size()), info.num_defs) << info.mnemonic;
  }
}

TEST(RegAccesses, D16LoadReadsItsDestinationWhenAsked) {
  MInst d16 = Make(Opc::kDsReadU16D16Hi, {V(5), V(1)});
  RegAccesses all = CollectRegAccesses(d16, kAllAccesses);
  // v5 def, v5 read (tied), v1 read, exec read (implicit).
  ASSERT_EQ(all.size(), 4u);
  EXPECT_TRUE(all[0].def);
  EXPECT_EQ(all[0].lo, 5);
  EXPECT_FALSE(all[1].def);
  EXPECT_EQ(all[1].lo, 5);
  EXPECT_EQ(all[2].lo, 1);
  EXPECT_EQ(all[3].special, SpecialReg::kExec);
  EXPECT_EQ(all[3].lo, 126);
  EXPECT_FALSE(all[3].explicit_op());
  EXPECT_EQ(CollectRegAccesses(d16, kExplicitAccesses).size(), 2u);
}

TEST(RegAccesses, SpecialRegistersAliasTheirSgprEncodings) {
  // v_cndmask_b32_e64 v0, v1, v2, vcc against s_mov_b64 s[106:107], 0
  MInst sel = Make(Opc::kVCndmaskB32, {V(0), V(1), V(2), MOperand::Special(SpecialReg::kVcc)});
  MInst mov = Make(Opc::kSMovB64, {S(106, 2), MOperand::Imm(0)});
  RegAccesses a = CollectRegAccesses(sel, kExplicitAccesses);
  RegAccesses b = CollectRegAccesses(mov, kExplicitAccesses);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_TRUE(SameRegs(a[3], b[0]));
  EXPECT_EQ(RegAccessName(b[0]), "vcc");
  EXPECT_FALSE(Overlap(a[0], a[1]));
  EXPECT_EQ(SpecialRegAt(124, 1), SpecialReg::kM0);
  EXPECT_EQ(SpecialRegAt(106, 1), SpecialReg::kNone);
  EXPECT_EQ(SgprDwordName(107), "vcc_hi");
  EXPECT_EQ(SgprDwordName(127), "exec_hi");
  EXPECT_EQ(SgprDwordName(20), "s20");
  EXPECT_EQ(SgprDwordFromName("exec_lo"), 126);
  EXPECT_EQ(SgprDwordFromName("s3"), -1);
}

TEST(RegAccesses, VirtualAliasesResolveToTheirRoot) {
  MFunction f;
  int tuple = f.NewVReg(RegClass::kVgpr, 4, 2);
  int hi = f.NewAlias(tuple, 2, 2);
  MInst mov = Make(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, hi, 1, 1), MOperand::Imm(0)});
  RegAccesses with_f = CollectRegAccesses(mov, kExplicitAccesses, &f);
  ASSERT_EQ(with_f.size(), 1u);
  EXPECT_EQ(with_f[0].root, tuple);
  EXPECT_EQ(with_f[0].lo, 3);
  RegAccesses own = CollectRegAccesses(mov, kExplicitAccesses);
  EXPECT_EQ(own[0].root, hi);
  EXPECT_EQ(own[0].lo, 1);
  EXPECT_TRUE(CollectRegAccesses(mov, kExplicitAccesses | kPhysicalOnly).empty());
  // The same physical index is not the same register as a virtual one.
  RegAccess phys = CollectRegAccesses(Make(Opc::kVMovB32, {V(3), MOperand::Imm(0)}), kExplicitAccesses)[0];
  EXPECT_FALSE(Overlap(phys, with_f[0]));
}

TEST(RegAccesses, AccumulatingDefsAreReadToo) {
  MInst fmac = Make(Opc::kVFmacF32, {V(0), V(1), V(2)});
  RegAccesses a = CollectRegAccesses(fmac, kExplicitAccesses | kTiedReads);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_TRUE(a[0].def);
  EXPECT_FALSE(a[1].def);
  EXPECT_EQ(a[1].lo, 0);
  EXPECT_TRUE(WritesExec(Make(Opc::kSAndSaveexecB64, {S(4, 2), S(6, 2)})));
  EXPECT_TRUE(WritesExec(Make(Opc::kSMovB64, {MOperand::Special(SpecialReg::kExec), S(6, 2)})));
  EXPECT_FALSE(WritesExec(Make(Opc::kSMovB64, {S(8, 2), S(6, 2)})));
}

// MInst::WritesM0: an explicit M0 def only. The LDS DMA reads M0 (kReadsM0)
// and s_mov_b32 reading M0 as its source writes an SGPR: neither writes M0.
TEST(RegAccesses, WritesM0IsAnExplicitM0Def) {
  const MOperand m0 = MOperand::Special(SpecialReg::kM0);
  EXPECT_TRUE(Make(Opc::kSMovB32, {m0, S(4)}).WritesM0());
  EXPECT_TRUE(Make(Opc::kSMovB32, {m0, MOperand::Imm(256)}).WritesM0());
  EXPECT_FALSE(Make(Opc::kSMovB32, {S(4), m0}).WritesM0());
  EXPECT_FALSE(Make(Opc::kBufferLoadDwordx4Lds, {V(0), S(8, 4), MOperand::Imm(0)}).WritesM0());
  EXPECT_FALSE(Make(Opc::kSMovB32, {}).WritesM0());  // no operands: nothing written
}


// SegmentTwinsOf: every flat_* opcode's twins, checked against the mnemonics
// (global_/scratch_ + the same suffix, as LLVM names them) and the data each
// moves (MemoryShape), not against the table itself.
TEST(SegmentTwins, EveryFlatOpcodeHasMatchingTwins) {
  int flats = 0;
  for (int i = 0; i < static_cast<int>(Opc::kNumOpcodes); ++i) {
    const Opc o = static_cast<Opc>(i);
    if (!(Info(o).flags & kFlatAddr)) continue;
    const std::string name = Info(o).mnemonic;
    const MemShape shape = MemoryShape(o);
    if (shape.comps == 0) continue;  // flat atomics: not placed through this table
    ++flats;
    const SegmentTwins tw = SegmentTwinsOf(o);
    ASSERT_EQ(tw.flat, o) << name;
    ASSERT_NE(tw.global, Opc::kNumOpcodes) << name;
    ASSERT_NE(tw.scratch, Opc::kNumOpcodes) << name;
    ASSERT_NE(tw.ds, Opc::kNumOpcodes) << name;
    const std::string suffix = name.substr(std::string("flat").size());
    EXPECT_EQ(std::string(Info(tw.global).mnemonic), "global" + suffix);
    EXPECT_EQ(std::string(Info(tw.scratch).mnemonic), "scratch" + suffix);
    for (Opc twin : {tw.global, tw.scratch}) {
      EXPECT_EQ(MemoryShape(twin).comps, shape.comps) << name;
      EXPECT_EQ(MemoryShape(twin).bytes, shape.bytes) << name;
      EXPECT_EQ(MemoryShape(twin).store, shape.store) << name;
      EXPECT_EQ(SegmentTwinsOf(twin).flat, o) << Info(twin).mnemonic;
    }
    EXPECT_TRUE(IsDs(Info(tw.ds).cls)) << name;
    EXPECT_EQ(Info(tw.ds).cls == InstClass::kDsWrite, shape.store) << name;
    EXPECT_EQ(MemoryShape(tw.ds).comps * MemoryShape(tw.ds).bytes, shape.comps * shape.bytes) << name;
    EXPECT_EQ(SegmentTwinsOf(tw.ds).flat, o) << Info(tw.ds).mnemonic;
  }
  EXPECT_EQ(flats, 17);  // 10 loads and 7 stores (opcodes.def)
  EXPECT_EQ(SegmentTwinsOf(Opc::kVAddU32).global, Opc::kNumOpcodes);
}

// MemoryShape's sub-dword half (MemExt) for every memory opcode, from its
// mnemonic as LLVM spells it: _ubyte/_ushort/ds_read_u8/u16 zero-extend,
// _sbyte/_sshort/ds_read_i8/i16 sign-extend, _d16 fills the low half and
// _d16_hi the high half; 1- and 2-byte stores take the low bits unless
// _d16_hi. Whole-dword accesses have none.
TEST(MemoryShape, SubDwordHalfFollowsTheMnemonic) {
  int sub = 0;
  for (int i = 0; i < static_cast<int>(Opc::kNumOpcodes); ++i) {
    const Opc o = static_cast<Opc>(i);
    const MemShape shape = MemoryShape(o);
    if (shape.comps == 0) {
      EXPECT_EQ(shape.ext, MemExt::kNone) << Info(o).mnemonic;
      continue;
    }
    const std::string n = Info(o).mnemonic;
    auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
    MemExt want = MemExt::kNone;
    if (has("d16_hi")) want = MemExt::kD16Hi;
    else if (has("d16") || (shape.store && shape.bytes < 4)) want = MemExt::kD16Lo;
    else if (has("ubyte") || has("ushort") || has("_u8") || has("_u16")) want = MemExt::kZero;
    else if (has("sbyte") || has("sshort") || has("_i8") || has("_i16")) want = MemExt::kSign;
    EXPECT_EQ(static_cast<int>(shape.ext), static_cast<int>(want)) << n;
    EXPECT_EQ(shape.ext != MemExt::kNone, shape.bytes < 4) << n;
    sub += shape.ext != MemExt::kNone;
  }
  EXPECT_GE(sub, 40);  // buffer, global, flat, scratch and ds forms
}

}  // namespace
}  // namespace kir
