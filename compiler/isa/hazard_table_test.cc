// Expected values are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2 (2.1, 2.2, 2.3). Test names carry the failure class they guard
// (shared/docs/failure-classes.md).
#include "compiler/isa/hazard_table.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

MOperand V(int r, int n = 1) { return MOperand::Phys(RegClass::kVgpr, r, n); }
MOperand S(int r, int n = 1) { return MOperand::Phys(RegClass::kSgpr, r, n); }
MOperand A(int r, int n = 1) { return MOperand::Phys(RegClass::kAgpr, r, n); }
MOperand Imm(int64_t v) { return MOperand::Imm(v); }
MOperand Vcc() { return MOperand::Special(SpecialReg::kVcc); }
MOperand Exec() { return MOperand::Special(SpecialReg::kExec); }

MInst I(Opc opc, std::vector<MOperand> ops) {
  MInst m;
  m.opc = opc;
  m.ops = std::move(ops);
  return m;
}

MInst Mfma(const char* name, MOperand d, MOperand a, MOperand b, MOperand c) {
  MInst m = I(Opc::kVMfma, {d, a, b, c});
  m.mfma = LookupMfma(name);
  EXPECT_NE(m.mfma, nullptr) << name;
  return m;
}

const TargetInfo& T(const char* name) { return **LookupTarget(name); }

// Both entry points: the one the hazard pass uses (accesses collected once,
// register-summary prefilter) must agree with the plain one on every case.
int Req(const char* target, const MInst& p, const MInst& c, std::string* why = nullptr) {
  const int collected = RequiredWaitStates(T(target), HazardOperands(p), HazardOperands(c), nullptr);
  const int plain = RequiredWaitStates(T(target), p, c, why);
  EXPECT_EQ(collected, plain) << Info(p.opc).mnemonic << " -> " << Info(c.opc).mnemonic;
  return plain;
}

// A VGPR-form MFMA (gfx90a / gfx942) writing v[dst:dst+cd-1] from srcC = vdst.
MInst VMfma(const char* name, int dst) {
  const MfmaDesc* d = LookupMfma(name);
  return Mfma(name, V(dst, d->cd_width), V(0, d->ab_regs()), V(2, d->ab_regs()),
              V(dst, d->cd_width));
}

MInst StoreX4(int data, MOperand soffset) {
  return I(Opc::kBufferStoreDwordx4, {V(data, 4), V(1), S(0, 4), soffset});
}

// SALU writes M0 -> LDS DMA (buffer_load_dwordx4 ... lds): 1 wait state on
// GFX9 (LLVM checkReadM0Hazards / hasReadM0LdsDmaHazard); a VALU or a DMA
// without an M0 writer before it: none.
TEST(HazardTable, FailureClass11_SaluM0WriteBeforeLdsDma) {
  const MInst mov_m0 = I(Opc::kSMovB32, {MOperand::Special(SpecialReg::kM0), S(3)});
  const MInst mov_s4 = I(Opc::kSMovB32, {S(4), S(3)});
  const MInst dma = I(Opc::kBufferLoadDwordx4Lds, {V(1), S(8, 4), Imm(0)});
  const MInst load = I(Opc::kBufferLoadDwordx4, {V(4, 4), V(1), S(8, 4), Imm(0)});
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    std::string why;
    EXPECT_EQ(Req(t, mov_m0, dma, &why), 1) << t;
    EXPECT_EQ(why, absl::StrCat("SALU writes m0 read by an LDS DMA: 1 wait state (", t, ")"));
    EXPECT_EQ(Req(t, mov_s4, dma), 0) << t;
    EXPECT_EQ(Req(t, mov_m0, load), 0) << t;
  }
  EXPECT_TRUE(CanStartHazard(mov_m0));
  EXPECT_FALSE(CanStartHazard(mov_s4));
}

TEST(HazardTable, FailureClass11_WhyNamesTheRule) {
  std::string why;
  EXPECT_EQ(Req("gfx942", VMfma("f32_16x16x16_f16", 12), StoreX4(12, Imm(0)), &why), 7);
  EXPECT_EQ(why, "XDL MFMA (4 passes) writes v[12:15] read by VMEM: 7 wait states (gfx942)");
}

// 2.1 row 1/2: MFMA result -> VALU read, VALU write, VMEM and DS read.
TEST(HazardTable, FailureClass11_MfmaResultToValuAndMemory) {
  struct Case {
    const char* target;
    const char* mfma;
    int want;
  };
  const Case cases[] = {
      {"gfx90a", "f32_16x16x16_f16", 11}, {"gfx90a", "f32_32x32x8_f16", 19},
      {"gfx90a", "f32_16x16x4_f32", 11},  {"gfx942", "f32_16x16x16_f16", 7},
      {"gfx942", "f32_16x16x16_bf16", 7}, {"gfx942", "f32_32x32x8_f16", 11},
      {"gfx942", "f32_16x16x4_f32", 10},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.target) + " " + c.mfma);
    MInst mfma = VMfma(c.mfma, 16);
    MInst valu_read = I(Opc::kVAddF32, {V(40), V(17), V(41)});
    MInst valu_write = I(Opc::kVMovB32, {V(18), Imm(0)});
    MInst store = StoreX4(16, S(8));
    MInst store_addr = I(Opc::kBufferStoreDword, {V(40), V(19), S(0, 4), Imm(0)});
    MInst ds_data = I(Opc::kDsWriteB32, {V(40), V(16)});
    MInst ds_addr = I(Opc::kDsReadB32, {V(40), V(16)});
    MInst load_waw = I(Opc::kBufferLoadDword, {V(17), V(40), S(0, 4), Imm(0)});
    EXPECT_EQ(Req(c.target, mfma, valu_read), c.want);
    EXPECT_EQ(Req(c.target, mfma, valu_write), c.want);
    EXPECT_EQ(Req(c.target, mfma, store), c.want);
    EXPECT_EQ(Req(c.target, mfma, store_addr), c.want);
    EXPECT_EQ(Req(c.target, mfma, ds_data), c.want);
    EXPECT_EQ(Req(c.target, mfma, ds_addr), c.want);
    EXPECT_EQ(Req(c.target, mfma, load_waw), c.want);
    // Disjoint registers: no hazard.
    EXPECT_EQ(Req(c.target, mfma, I(Opc::kVAddF32, {V(40), V(60), V(41)})), 0);
  }
}

// 2.1 rows 3/4: srcC with identical registers (chained accumulation) vs partial overlap.
TEST(HazardTable, FailureClass11_SrcCSameVersusPartialOverlap) {
  for (const char* t : {"gfx90a", "gfx942"}) {
    EXPECT_EQ(Req(t, VMfma("f32_16x16x16_f16", 16), VMfma("f32_16x16x16_f16", 16)), 0) << t;
    EXPECT_EQ(Req(t, VMfma("f32_32x32x8_f16", 16), VMfma("f32_32x32x8_f16", 16)), 0) << t;
  }
  auto partial = [](const char* t, const char* prod, const char* cons) {
    MInst p = VMfma(prod, 16);
    const MfmaDesc* d = LookupMfma(cons);
    MInst c = Mfma(cons, V(64, d->cd_width), V(0, d->ab_regs()), V(2, d->ab_regs()),
                   V(18, d->cd_width));  // overlaps p's vdst without being identical
    return Req(t, p, c);
  };
  EXPECT_EQ(partial("gfx90a", "f32_16x16x16_f16", "f32_16x16x16_f16"), 8);
  EXPECT_EQ(partial("gfx90a", "f32_32x32x8_f16", "f32_16x16x16_f16"), 16);
  EXPECT_EQ(partial("gfx942", "f32_16x16x16_f16", "f32_16x16x16_f16"), 5);
  EXPECT_EQ(partial("gfx942", "f32_32x32x8_f16", "f32_32x32x8_f16"), 9);
  EXPECT_EQ(partial("gfx942", "f32_16x16x4_f32", "f32_16x16x4_f32"), 8);
}

// 2.1 row 5: MFMA result -> next MFMA srcA/srcB.
TEST(HazardTable, FailureClass11_MfmaResultToSrcAB) {
  auto srcab = [](const char* t, const char* prod, bool as_b) {
    MInst p = VMfma(prod, 16);
    MInst c = as_b ? Mfma("f32_16x16x16_f16", V(64, 4), V(0, 2), V(18, 2), V(64, 4))
                   : Mfma("f32_16x16x16_f16", V(64, 4), V(16, 2), V(2, 2), V(64, 4));
    return Req(t, p, c);
  };
  for (bool b : {false, true}) {
    EXPECT_EQ(srcab("gfx90a", "f32_16x16x16_f16", b), 11);
    EXPECT_EQ(srcab("gfx90a", "f32_32x32x8_f16", b), 19);
    EXPECT_EQ(srcab("gfx942", "f32_16x16x16_f16", b), 7);
    EXPECT_EQ(srcab("gfx942", "f32_32x32x8_f16", b), 11);
    EXPECT_EQ(srcab("gfx942", "f32_16x16x4_f32", b), 10);
  }
}

// 2.1 row 6: MFMA reads srcC -> later VALU overwrites it (WAR).
TEST(HazardTable, FailureClass11_SrcCReadThenOverwritten) {
  auto war = [](const char* t, const char* name) {
    const MfmaDesc* d = LookupMfma(name);
    // srcC = v[16..], vdst elsewhere, so only the WAR rule can apply.
    MInst p = Mfma(name, V(64, d->cd_width), V(0, d->ab_regs()), V(2, d->ab_regs()),
                   V(16, d->cd_width));
    return Req(t, p, I(Opc::kVMovB32, {V(17), Imm(0)}));
  };
  EXPECT_EQ(war("gfx90a", "f32_16x16x16_f16"), 7);
  EXPECT_EQ(war("gfx90a", "f32_32x32x8_f16"), 15);
  EXPECT_EQ(war("gfx942", "f32_16x16x16_f16"), 3);
  EXPECT_EQ(war("gfx942", "f32_32x32x8_f16"), 7);
  EXPECT_EQ(war("gfx942", "f32_16x16x4_f32"), 0);
}

// 2.1 rows 7/8 and 2.2: VALU -> MFMA.
TEST(HazardTable, FailureClass11_ValuToMfma) {
  MInst valu = I(Opc::kVMovB32, {V(2), Imm(0)});
  MInst exec_write = I(Opc::kVCmpGtU32, {Exec(), V(8), V(9)});
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(t);
    bool g908 = std::string(t) == "gfx908";
    MInst mfma = g908 ? Mfma("f32_16x16x16_f16", A(0, 4), V(0, 2), V(2, 2), A(0, 4))
                      : VMfma("f32_16x16x16_f16", 16);
    EXPECT_EQ(Req(t, valu, mfma), 2);
    EXPECT_EQ(Req(t, exec_write, mfma), 4);
    EXPECT_EQ(Req(t, I(Opc::kVMovB32, {V(30), Imm(0)}), mfma), 0);
  }
  // gfx90a+: v_accvgpr_write (a legacy VALU) -> MFMA srcC in AGPRs: 2.
  MInst accw = I(Opc::kVAccvgprWrite, {A(1), Imm(0)});
  EXPECT_EQ(Req("gfx90a", accw,
                Mfma("f32_16x16x16_f16", A(0, 4), V(0, 2), V(2, 2), A(0, 4))),
            2);
}

// 2.2: the gfx908 AGPR table.
TEST(HazardTable, FailureClass11_Gfx908AgprTable) {
  MInst m16 = Mfma("f32_16x16x16_f16", A(0, 4), V(0, 2), V(2, 2), A(0, 4));
  MInst m32 = Mfma("f32_32x32x8_f16", A(0, 16), V(0, 2), V(2, 2), A(0, 16));
  MInst acc_read = I(Opc::kVAccvgprRead, {V(4), A(1)});
  MInst acc_write = I(Opc::kVAccvgprWrite, {A(2), V(5)});
  EXPECT_EQ(Req("gfx908", m16, acc_read), 10);
  EXPECT_EQ(Req("gfx908", m32, acc_read), 18);
  EXPECT_EQ(Req("gfx908", m16, acc_write), 7);   // WAW (also WAR 5: the larger wins)
  EXPECT_EQ(Req("gfx908", m32, acc_write), 15);
  // WAR only: srcC a[0:3] read, vdst elsewhere.
  MInst m16_other_dst = Mfma("f32_16x16x16_f16", A(8, 4), V(0, 2), V(2, 2), A(0, 4));
  MInst m32_other_dst = Mfma("f32_32x32x8_f16", A(32, 16), V(0, 2), V(2, 2), A(0, 16));
  EXPECT_EQ(Req("gfx908", m16_other_dst, acc_write), 5);
  EXPECT_EQ(Req("gfx908", m32_other_dst, acc_write), 13);
  // MFMA -> MFMA srcC: same registers 0, overlap 2; srcA/B from AGPR: 4.
  EXPECT_EQ(Req("gfx908", m16, m16), 0);
  EXPECT_EQ(Req("gfx908", m16, Mfma("f32_16x16x16_f16", A(8, 4), V(0, 2), V(2, 2), A(2, 4))),
            2);
  EXPECT_EQ(Req("gfx908", m16, Mfma("f32_16x16x16_f16", A(8, 4), A(0, 2), V(2, 2), A(8, 4))),
            4);
  // v_accvgpr_write -> MFMA srcC 1 / srcA,B 3 / v_accvgpr_read 3.
  MInst w0 = I(Opc::kVAccvgprWrite, {A(0), Imm(0)});
  EXPECT_EQ(Req("gfx908", w0, m16), 1);
  EXPECT_EQ(Req("gfx908", w0, Mfma("f32_16x16x16_f16", A(8, 4), A(0, 2), V(2, 2), A(8, 4))), 3);
  EXPECT_EQ(Req("gfx908", w0, I(Opc::kVAccvgprRead, {V(4), A(0)})), 3);
  // VALU writes VGPR -> v_accvgpr_write reads it: 2.
  EXPECT_EQ(Req("gfx908", I(Opc::kVMovB32, {V(5), Imm(1)}), acc_write), 2);
  // v_accvgpr_read writes VGPR -> VMEM / DS reads it: 2.
  EXPECT_EQ(Req("gfx908", acc_read, I(Opc::kBufferStoreDword, {V(4), V(1), S(0, 4), Imm(0)})), 2);
  EXPECT_EQ(Req("gfx908", acc_read, I(Opc::kDsWriteB32, {V(1), V(4)})), 2);
  EXPECT_EQ(Req("gfx908", acc_read, I(Opc::kDsWriteB32, {V(1), V(6)})), 0);
  // gfx908 has no MFMA -> VALU/VMEM VGPR rule (results are AGPRs).
  EXPECT_EQ(Req("gfx908", m16, I(Opc::kVMovB32, {V(0), Imm(0)})), 0);
}

// 2.3: VALU writes an SGPR -> VMEM reads it (soffset, SRD): 5 everywhere.
TEST(HazardTable, FailureClass11_ValuSgprToVmem) {
  MInst rfl = I(Opc::kVReadfirstlaneB32, {S(5), V(1)});
  MInst load_soff = I(Opc::kBufferLoadDword, {V(2), V(3), S(0, 4), S(5)});
  MInst load_srd = I(Opc::kBufferLoadDword, {V(2), V(3), S(4, 4), Imm(0)});
  MInst salu = I(Opc::kSMovB32, {S(5), Imm(0)});
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    EXPECT_EQ(Req(t, rfl, load_soff), 5) << t;
    EXPECT_EQ(Req(t, rfl, load_srd), 5) << t;
    EXPECT_EQ(Req(t, salu, load_soff), 0) << t;  // SALU -> VMEM: no rule
    EXPECT_EQ(Req(t, rfl, I(Opc::kDsReadB32, {V(2), V(3)})), 0) << t;
  }
}

// 2.3: VALU writes SGPR/VCC -> VALU reads it: 2 on gfx942 only.
TEST(HazardTable, FailureClass11_ValuSgprOrVccToValuGfx942Only) {
  MInst cmp_vcc = I(Opc::kVCmpGtU32, {Vcc(), V(0), V(1)});
  MInst cnd_vcc = I(Opc::kVCndmaskB32, {V(2), V(3), V(4), Vcc()});
  MInst cmp_s = I(Opc::kVCmpGtU32, {S(6, 2), V(0), V(1)});
  MInst cnd_s = I(Opc::kVCndmaskB32, {V(2), V(3), V(4), S(6, 2)});
  MInst rfl = I(Opc::kVReadfirstlaneB32, {S(9), V(1)});
  MInst add_s = I(Opc::kVAddU32, {V(2), S(9), V(3)});
  EXPECT_EQ(Req("gfx942", cmp_vcc, cnd_vcc), 2);
  EXPECT_EQ(Req("gfx942", cmp_s, cnd_s), 2);
  EXPECT_EQ(Req("gfx942", rfl, add_s), 2);
  EXPECT_EQ(Req("gfx942", cmp_vcc, cnd_s), 0);
  for (const char* t : {"gfx908", "gfx90a"}) {
    EXPECT_EQ(Req(t, cmp_vcc, cnd_vcc), 0) << t;
    EXPECT_EQ(Req(t, rfl, add_s), 0) << t;
  }
  // Writing EXEC does not make every VALU (implicit EXEC reader) wait.
  EXPECT_EQ(Req("gfx942", I(Opc::kVCmpGtU32, {Exec(), V(0), V(1)}),
                I(Opc::kVAddU32, {V(2), V(3), V(4)})),
            0);
}

// 2.3: buffer_store_dwordx3/x4 with a constant soffset -> VALU overwrites the data.
TEST(HazardTable, FailureClass11_WideStoreDataOverwrite) {
  MInst overwrite = I(Opc::kVMovB32, {V(14), Imm(0)});
  EXPECT_EQ(Req("gfx908", StoreX4(12, Imm(0)), overwrite), 1);
  EXPECT_EQ(Req("gfx90a", StoreX4(12, Imm(0)), overwrite), 1);
  EXPECT_EQ(Req("gfx942", StoreX4(12, Imm(0)), overwrite), 2);
  // x3 (three data registers) counts too.
  EXPECT_EQ(Req("gfx942", I(Opc::kBufferStoreDwordx4, {V(12, 3), V(1), S(0, 4), Imm(0)}),
                overwrite),
            2);
  // soffset in an SGPR: 1 wait state on the gfx940 family, none before it
  // (merged LLVM PR #197267, 2026-05-12; issue 13, defect 5: this row said 0
  // for gfx942, as LLVM 22.1.8 still does). A store of <= 64 bits: no hazard.
  EXPECT_EQ(Req("gfx908", StoreX4(12, S(8)), overwrite), 0);
  EXPECT_EQ(Req("gfx90a", StoreX4(12, S(8)), overwrite), 0);
  EXPECT_EQ(Req("gfx942", StoreX4(12, S(8)), overwrite), 1);
  EXPECT_EQ(Req("gfx942", I(Opc::kBufferStoreDwordx4, {V(12, 3), V(1), S(0, 4), S(8)}), overwrite),
            1);
  EXPECT_EQ(Req("gfx942", I(Opc::kBufferStoreDwordx2, {V(13, 2), V(1), S(0, 4), S(8)}), overwrite),
            0);
  EXPECT_EQ(Req("gfx942", I(Opc::kBufferStoreDwordx2, {V(13, 2), V(1), S(0, 4), Imm(0)}),
                overwrite),
            0);
  // Reading the data is fine.
  EXPECT_EQ(Req("gfx942", StoreX4(12, Imm(0)), I(Opc::kVMovB32, {V(30), V(14)})), 0);
}

// 2.3: transcendental -> non-transcendental VALU reads the result: 1 on gfx942.
// The gfx940-family dst-sel forwarding hazard (fresh-user review 9 F2):
// llc 22 -mcpu=gfx942 (post-RA-hazard-rec) puts one S_NOP 0 between
// `v_cvt_pk_fp8_f32 v0, s0, v1 op_sel:[0,0,1]` and a VALU reading v0, and
// between `v_pk_add_f16 v1, s2, v1` (op_sel_hi defaulting to ones) and a
// v_pk_mul_f16 reading v1, checked 2026-12-05; none on gfx90a/gfx908, none
// when op_sel_hi[0] is 0 or for the word-0 conversion.
TEST(HazardTable, FailureClass11_DstSelForwarding) {
  MInst hi = I(Opc::kVCvtPkFp8F32Hi, {V(2), V(8), V(0)});
  MInst lo = I(Opc::kVCvtPkFp8F32, {V(2), V(8), V(0)});
  MInst shr = I(Opc::kVLshrrevB32, {V(3), Imm(8), V(2)});
  EXPECT_EQ(Req("gfx942", hi, shr), 1);
  EXPECT_EQ(Req("gfx950", hi, shr), 1);
  EXPECT_EQ(Req("gfx942", lo, shr), 0);
  EXPECT_EQ(Req("gfx942", hi, I(Opc::kVLshrrevB32, {V(3), Imm(8), V(4)})), 0);  // another register
  MInst pk = I(Opc::kVPkAddF16, {V(1), V(5), V(1)});
  MInst mul = I(Opc::kVPkMulF16, {V(6), V(1), V(5)});
  EXPECT_EQ(Req("gfx942", pk, mul), 1);
  EXPECT_EQ(Req("gfx90a", pk, mul), 0);
  EXPECT_EQ(Req("gfx908", pk, mul), 0);
  // A write of the same register (WAW) counts too (consumesDstSelForwardingOperand).
  EXPECT_EQ(Req("gfx942", pk, I(Opc::kVMovB32, {V(1), Imm(0)})), 1);
  // Read from assembly with op_sel_hi:[0,1]: src0_modifiers bit 3 clear.
  pk.dst_forwarding = DstForwardingOfEncoding(Opc::kVPkAddF16, 2, false, true, 0, 0x2);
  EXPECT_EQ(pk.dst_forwarding, MInst::DstForwarding::kNo);
  EXPECT_EQ(Req("gfx942", pk, mul), 0);
  // The encodings that do forward: SDWA dst_sel other than DWORD, the VOP3
  // op_sel dst bit (bit 2 of a two-source op, bit 3 of v_bitop3_b16's three).
  EXPECT_EQ(DstForwardingOfEncoding(Opc::kVCvtF16F32, 1, true, false, 0, 0), MInst::DstForwarding::kYes);
  EXPECT_EQ(DstForwardingOfEncoding(Opc::kVCvtF16F32, 1, true, true, 0, 0), MInst::DstForwarding::kNo);
  EXPECT_EQ(DstForwardingOfEncoding(Opc::kVCvtPkFp8F32, 2, false, true, 0x4, 0x7), MInst::DstForwarding::kYes);
  EXPECT_EQ(DstForwardingOfEncoding(Opc::kVBitop3B16, 3, false, true, 0x8, 0x7), MInst::DstForwarding::kYes);
  EXPECT_EQ(DstForwardingOfEncoding(Opc::kVBitop3B16, 3, false, true, 0x4, 0x7), MInst::DstForwarding::kNo);
}

TEST(HazardTable, FailureClass11_TransForwarding) {
  MInst rcp = I(Opc::kVRcpF32, {V(3), V(1)});
  MInst use = I(Opc::kVMulF32, {V(4), V(3), V(2)});
  EXPECT_EQ(Req("gfx942", rcp, use), 1);
  EXPECT_EQ(Req("gfx90a", rcp, use), 0);
  EXPECT_EQ(Req("gfx908", rcp, use), 0);
  EXPECT_EQ(Req("gfx942", rcp, I(Opc::kVExpF32, {V(4), V(3)})), 0);  // trans reader: none
}

TEST(HazardTable, FailureClass11_ReadfirstlaneGfx942) {
  MInst rfl = I(Opc::kVReadfirstlaneB32, {S(9), V(3)});
  EXPECT_EQ(Req("gfx942", I(Opc::kVAddU32, {V(3), V(1), V(2)}), rfl), 1);
  EXPECT_EQ(Req("gfx942", I(Opc::kVCmpGtU32, {Exec(), V(1), V(2)}), rfl), 4);
  EXPECT_EQ(Req("gfx90a", I(Opc::kVAddU32, {V(3), V(1), V(2)}), rfl), 0);
}

// 2.3 and LLVM's checkVALUHazards (hasVDecCoExecHazard): v_readlane reads
// its src0 VGPR like v_readfirstlane (1 on gfx942); v_readlane, v_readfirstlane
// and v_writelane wait 4 after a VALU writes EXEC (gfx942).
TEST(HazardTable, FailureClass11_ReadlaneAndWritelaneGfx942) {
  MInst rl = I(Opc::kVReadlaneB32, {S(9), V(3), Imm(5)});
  MInst wl = I(Opc::kVWritelaneB32, {V(7), S(2), Imm(5)});
  EXPECT_EQ(Req("gfx942", I(Opc::kVAddU32, {V(3), V(1), V(2)}), rl), 1);
  EXPECT_EQ(Req("gfx942", I(Opc::kVAddU32, {V(4), V(1), V(2)}), rl), 0);
  EXPECT_EQ(Req("gfx942", I(Opc::kVCmpGtU32, {Exec(), V(1), V(2)}), rl), 4);
  EXPECT_EQ(Req("gfx942", I(Opc::kVCmpGtU32, {Exec(), V(1), V(2)}), wl), 4);
  EXPECT_EQ(Req("gfx90a", I(Opc::kVAddU32, {V(3), V(1), V(2)}), rl), 0);
  EXPECT_EQ(Req("gfx90a", I(Opc::kVCmpGtU32, {Exec(), V(1), V(2)}), wl), 0);
}

// 2.3 "VALU writes SGPR -> v_readlane/v_writelane lane select | 4" on every
// target (checkRWLaneHazards, RWLaneWaitStates = 4); an SALU write or an
// immediate lane select has no rule.
TEST(HazardTable, FailureClass11_ValuSgprWriteToLaneSelect) {
  MInst rfl = I(Opc::kVReadfirstlaneB32, {S(3), V(1)});
  MInst rl = I(Opc::kVReadlaneB32, {S(2), V(4), S(3)});
  MInst wl = I(Opc::kVWritelaneB32, {V(5), Imm(0), S(3)});
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(t);
    EXPECT_EQ(Req(t, rfl, rl), 4);
    EXPECT_EQ(Req(t, rfl, wl), 4);
    EXPECT_EQ(Req(t, I(Opc::kSMovB32, {S(3), Imm(1)}), rl), 0);
    EXPECT_EQ(Req(t, rfl, I(Opc::kVReadlaneB32, {S(2), V(4), Imm(3)})), 0);
    EXPECT_EQ(Req(t, I(Opc::kVReadfirstlaneB32, {S(6), V(1)}), rl), 0);
  }
  std::string why;
  EXPECT_EQ(Req("gfx90a", rfl, rl, &why), 4);
  EXPECT_EQ(why, "VALU writes s3 read as the lane select of v_readlane_b32: 4 wait states (gfx90a)");
}

TEST(HazardTable, FailureClass11_WindowAndWaitStates) {
  // 20: an MFMA without a descriptor counts as a 16-pass XDL MFMA, whose
  // result a gfx950 VALU may read 16 + 3 + 1 wait states later
  // (GCNHazardRecognizer.cpp GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates,
  // its table: "16 pass | 19 20"); it was 19 (gfx90a 32x32) before gfx950.
  EXPECT_EQ(MaxHazardWindow(), 20);
  EXPECT_EQ(IssuedWaitStates(I(Opc::kSNop, {Imm(0)})), 1);
  EXPECT_EQ(IssuedWaitStates(I(Opc::kSNop, {Imm(7)})), 8);
  EXPECT_EQ(IssuedWaitStates(I(Opc::kSNop, {Imm(15)})), 16);
  EXPECT_EQ(IssuedWaitStates(I(Opc::kSNop, {Imm(16)})), 1);  // only 4 bits are read
  EXPECT_EQ(IssuedWaitStates(I(Opc::kSWaitcnt, {Imm(0), Imm(-1)})), 1);
  EXPECT_EQ(IssuedWaitStates(I(Opc::kVAddU32, {V(0), V(1), V(2)})), 1);
  // Every rule stays within the window.
  for (const TargetInfo* t : AllTargets())
    for (const MfmaDesc& m : AllMfmas()) {
      if (MfmaPasses(*t, m) == 0) continue;
      MInst p = VMfma(m.kir_name, 16);
      EXPECT_LE(RequiredWaitStates(*t, p, I(Opc::kVMovB32, {V(16), Imm(0)}), nullptr),
                MaxHazardWindow());
    }
}

// 2.3 s_setreg -> s_getreg / s_setreg of the same hardware register: 2 wait
// states on every target (checkGetRegHazards, checkSetRegHazards with
// getSetRegWaitStates() = 2 after SEA_ISLANDS); another register, a getreg
// producer or a VALU consumer: none. simm16 by hand from hwreg(id, offset,
// size) = id | offset << 6 | (size - 1) << 11: hwreg(HW_REG_MODE, 0, 8) =
// 0x3801, hwreg(HW_REG_MODE, 2, 2) = 0x0881, hwreg(2, 0, 32) = 0xf802.
TEST(HazardTable, FailureClass11_SetregBeforeGetregOrSetregOfTheSameHwreg) {
  const MInst set_mode = I(Opc::kSSetregImm32B32, {Imm(0xb), Imm(0x3801)});
  const MInst set_mode_field = I(Opc::kSSetregB32, {S(7), Imm(0x0881)});
  const MInst get_mode = I(Opc::kSGetregB32, {S(3), Imm(0x0881)});
  const MInst get_other = I(Opc::kSGetregB32, {S(3), Imm(0xf802)});
  const MInst set_other = I(Opc::kSSetregB32, {S(7), Imm(0xf802)});
  const MInst valu = I(Opc::kVAddF32, {V(1), V(2), V(3)});
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    std::string why;
    EXPECT_EQ(Req(t, set_mode, get_mode, &why), 2) << t;
    EXPECT_EQ(why, absl::StrCat("s_setreg_imm32_b32 writes HW_REG_MODE then s_getreg_b32 reads it: 2 wait states (",
                                t, ")"));
    EXPECT_EQ(Req(t, set_mode, set_mode_field, &why), 2) << t;
    EXPECT_EQ(why, absl::StrCat("s_setreg_imm32_b32 writes HW_REG_MODE then s_setreg_b32 writes it: 2 wait states (",
                                t, ")"));
    EXPECT_EQ(Req(t, set_mode_field, get_mode), 2) << t;  // other fields of the same register too
    EXPECT_EQ(Req(t, set_mode, get_other), 0) << t;
    EXPECT_EQ(Req(t, set_other, get_mode), 0) << t;
    EXPECT_EQ(Req(t, set_other, set_other), 2) << t;
    EXPECT_EQ(Req(t, get_mode, get_mode), 0) << t;
    EXPECT_EQ(Req(t, get_mode, set_mode), 0) << t;
    EXPECT_EQ(Req(t, set_mode, valu), 0) << t;  // no MODE -> VALU rule in LLVM (hazard_table.h)
  }
  EXPECT_TRUE(CanStartHazard(set_mode));
  EXPECT_TRUE(CanStartHazard(set_mode_field));
  EXPECT_FALSE(CanStartHazard(get_mode));
  EXPECT_GE(MaxHazardWindow(), 2);
}

TEST(HazardTable, NoHazardFromScalarOrMemoryProducers) {
  MInst salu = I(Opc::kSMovB32, {S(4), Imm(0)});
  MInst load = I(Opc::kBufferLoadDword, {V(2), V(3), S(0, 4), S(4)});
  MInst ds = I(Opc::kDsReadB32, {V(5), V(6)});
  for (const char* t : {"gfx908", "gfx90a", "gfx942"}) {
    EXPECT_EQ(Req(t, salu, load), 0);
    EXPECT_EQ(Req(t, load, I(Opc::kVAddU32, {V(7), V(2), V(2)})), 0);  // waitcnt's job
    EXPECT_EQ(Req(t, ds, I(Opc::kVAddU32, {V(7), V(5), V(5)})), 0);
  }
}

// The prefilter of the collected form (HazardOperands::register_summary)
// skips pairs that share no register: on random pairs of instructions over a
// few registers (so that most pairs overlap somewhere and the summaries'
// hashed bits collide) it never changes a result.
TEST(HazardTable, CollectedFormAgreesOnRandomPairs) {
  uint64_t seed = 12345;
  auto next = [&](int n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((seed >> 33) % static_cast<uint64_t>(n));
  };
  auto random_inst = [&]() -> MInst {
    switch (next(10)) {
      case 0: return VMfma(next(2) ? "f32_16x16x16_f16" : "f32_32x32x8_f16", 4 * next(12));
      case 1: return I(Opc::kVAddF32, {V(next(70)), V(next(70)), V(next(70))});
      case 2: return I(Opc::kVMovB32, {next(2) ? V(next(70)) : A(next(70)), Imm(0)});
      case 3: return StoreX4(next(64), next(2) ? S(next(20)) : Imm(0));
      case 4: return I(Opc::kBufferStoreDword, {V(next(70)), V(next(70)), S(0, 4), S(next(20))});
      case 5: return I(Opc::kDsWriteB32, {V(next(70)), V(next(70))});
      case 6: return I(Opc::kVReadfirstlaneB32, {S(next(20)), V(next(70))});
      case 7: return I(Opc::kVCndmaskB32, {V(next(70)), V(next(70)), V(next(70)), Vcc()});
      case 8: return I(Opc::kSMovB64, {Exec(), S(2 * next(10), 2)});
      default: return I(Opc::kVAccvgprWrite, {A(next(70)), V(next(70))});
    }
  };
  int hazards = 0;
  for (const char* target : {"gfx908", "gfx90a", "gfx942"}) {
    for (int i = 0; i < 20000; ++i) {
      MInst p = random_inst(), c = random_inst();
      if (Req(target, p, c) > 0) ++hazards;
    }
  }
  EXPECT_GT(hazards, 1000);  // the pairs do reach the rules
}

// gfx950 (CDNA4). Expected values come from the text of
// llvm/lib/Target/AMDGPU/GCNHazardRecognizer.cpp (ROCm/llvm-project
// 03a23131063b), worked out by hand from the pass counts of SISchedule.td's
// SIDPGFX950FullSpeedModel (16x16x16 f16/bf16: 4, 32x32x8 f16/bf16: 8,
// 16x16x4 f32: 8; the f32 one is not XDL):
//   XDL result -> VALU read/write, VMEM, DS (checkMAIVALUHazards,
//     GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates / ...WawWaitStates):
//     NumPasses + 3 + (NumPasses != 2 && IsGFX950): 4 + 3 + 1 = 8, 8 + 3 + 1 = 12
//   non-XDL result -> same (GFX940_SMFMA_N_Pass*): NumPasses + 2 = 10
//   XDL result -> XDL srcC partially overlapped (checkMAIHazards90A,
//     GFX940_XDL_N_PassWritesVGPROverlappedXDLOrSMFMASrcCWaitStates):
//     NumPasses + 1 + IsGFX950: 6, 10; non-XDL -> non-XDL: NumPasses = 8
//   XDL result -> srcA/srcB (GFX940_XDL_N_PassWritesVGPROverlappedSrcABWaitStates):
//     NumPasses + 3 + 1: 8, 12; non-XDL (GFX940_SMFMA_N_Pass...SrcAB): 10
//   XDL srcC read -> VALU overwrite (WAR): 4-pass
//     GFX940_XDL4PassReadVgprVALUWarWaitStates 3, 8-pass
//     SMFMA16x16ReadVgprVALUWarWaitStates 7; non-XDL: none.
TEST(HazardTable, FailureClass11_Gfx950XdlResultOneMoreWaitState) {
  struct Case {
    const char* mfma;
    int valu_mem, srcc_overlap, srcab, war;
  };
  const Case cases[] = {
      {"f32_16x16x16_f16", 8, 6, 8, 3},
      {"f32_16x16x16_bf16", 8, 6, 8, 3},
      {"f32_32x32x8_f16", 12, 10, 12, 7},
      {"f32_32x32x8_bf16", 12, 10, 12, 7},
      {"f32_16x16x4_f32", 10, 8, 10, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mfma);
    const MfmaDesc* d = LookupMfma(c.mfma);
    MInst mfma = VMfma(c.mfma, 16);
    EXPECT_EQ(Req("gfx950", mfma, I(Opc::kVAddF32, {V(40), V(17), V(41)})), c.valu_mem);
    EXPECT_EQ(Req("gfx950", mfma, I(Opc::kVMovB32, {V(18), Imm(0)})), c.valu_mem);
    EXPECT_EQ(Req("gfx950", mfma, StoreX4(16, S(8))), c.valu_mem);
    EXPECT_EQ(Req("gfx950", mfma, I(Opc::kDsWriteB32, {V(40), V(16)})), c.valu_mem);
    EXPECT_EQ(Req("gfx950", mfma, I(Opc::kDsReadB32, {V(40), V(16)})), c.valu_mem);
    EXPECT_EQ(Req("gfx950", mfma, I(Opc::kBufferLoadDword, {V(17), V(40), S(0, 4), Imm(0)})),
              c.valu_mem);
    // Same-type consumer reading an overlapping, not identical, srcC.
    MInst partial = Mfma(c.mfma, V(64, d->cd_width), V(0, d->ab_regs()), V(2, d->ab_regs()),
                         V(18, d->cd_width));
    EXPECT_EQ(Req("gfx950", mfma, partial), c.srcc_overlap);
    // Chained accumulation (identical srcC, the same MFMA): none.
    EXPECT_EQ(Req("gfx950", mfma, VMfma(c.mfma, 16)), 0);
    // srcA / srcB of a 16x16x16 f16 consumer.
    EXPECT_EQ(Req("gfx950", mfma, Mfma("f32_16x16x16_f16", V(64, 4), V(16, 2), V(2, 2), V(64, 4))),
              c.srcab);
    EXPECT_EQ(Req("gfx950", mfma, Mfma("f32_16x16x16_f16", V(64, 4), V(0, 2), V(18, 2), V(64, 4))),
              c.srcab);
    // WAR: srcC v[16..] read, vdst elsewhere, then a VALU overwrites v17.
    MInst reads_c = Mfma(c.mfma, V(64, d->cd_width), V(0, d->ab_regs()), V(2, d->ab_regs()),
                         V(16, d->cd_width));
    EXPECT_EQ(Req("gfx950", reads_c, I(Opc::kVMovB32, {V(17), Imm(0)})), c.war);
  }
  std::string why;
  EXPECT_EQ(Req("gfx950", VMfma("f32_32x32x8_f16", 16), StoreX4(16, Imm(0)), &why), 12);
  EXPECT_EQ(why, "XDL MFMA (8 passes) writes v[16:31] read by VMEM: 12 wait states (gfx950)");
}

// LLVM PR #218363 (open; its description): two different MFMAs sharing an
// accumulator tuple need the partial-overlap wait states on gfx950. Here a
// 16x16x16 f16 (XDL, 4 passes) result is read whole as srcC by a 16x16x16
// bf16 and by a 16x16x4 f32: the partial-overlap rows give 4 + 1 + 1 = 6
// (GFX940_XDL_N_PassWritesVGPROverlappedXDLOrSMFMASrcCWaitStates, XDL
// consumer) and 4 + 1 + 1 = 6 (...SGEMMDGEMMSrcCWaitStates, 4 != 2); the
// f32 producer (non-XDL, 8 passes) read by the f16 one: NumPasses = 8.
// gfx942 keeps 0 (the PR is not merged; kirc applies it to gfx950 only).
TEST(HazardTable, FailureClass11_Gfx950SharedAccumulatorOfTwoMfmas) {
  MInst f16 = VMfma("f32_16x16x16_f16", 16);
  MInst bf16 = VMfma("f32_16x16x16_bf16", 16);
  MInst f32 = VMfma("f32_16x16x4_f32", 16);
  std::string why;
  EXPECT_EQ(Req("gfx950", f16, bf16, &why), 6);
  EXPECT_EQ(why,
            "XDL MFMA (4 passes) writes v[16:19] read as MFMA srcC v[16:19] (the same registers, another MFMA): "
            "6 wait states (gfx950)");
  EXPECT_EQ(Req("gfx950", f16, f32), 6);
  EXPECT_EQ(Req("gfx950", f32, f16), 8);
  EXPECT_EQ(Req("gfx950", f16, f16), 0);
  EXPECT_EQ(Req("gfx942", f16, bf16), 0);
}

// Fresh-user review 23 F1: #218363 compares canonicalized opcodes, and on
// gfx950 every 16x16x128 (32x32x64) fp8/bf8 mix is the one opcode
// v_mfma_f32_16x16x128_f8f6f4 (cbsz and blgp select the formats), so
// fp8_fp8 then bf8_fp8 on one accumulator needs no wait state, as the same
// MFMA twice; kirc gave them the partial-overlap 8 + 1 + 1 = 10. The
// 16x16x32 mixes are distinct opcodes (v_mfma_f32_16x16x32_fp8_fp8,
// _bf8_fp8): 4 + 1 + 1 = 6.
TEST(HazardTable, Gfx950SharedAccumulatorOfOneF8F6F4Opcode) {
  EXPECT_EQ(Req("gfx950", VMfma("f32_16x16x128_fp8_fp8", 16), VMfma("f32_16x16x128_bf8_fp8", 16)), 0);
  EXPECT_EQ(Req("gfx950", VMfma("f32_32x32x64_bf8_bf8", 16), VMfma("f32_32x32x64_fp8_bf8", 16)), 0);
  EXPECT_EQ(Req("gfx950", VMfma("f32_16x16x32_fp8_fp8", 16), VMfma("f32_16x16x32_bf8_fp8", 16)), 6);
}

// The gfx950 formula's 2-pass exception and its 16-pass value, from the
// table in the comment of GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates:
// "2 pass | 5 5", "4 pass | 7 8", "8 pass | 11 12", "16 pass | 19 20"
// (gfx942 | gfx950).
TEST(HazardTable, Gfx950PassRuleTwoPassException) {
  const HazardTable& t950 = HazardTableFor(Gfx::kGfx950);
  const HazardTable& t942 = HazardTableFor(Gfx::kGfx942);
  const int passes[] = {2, 4, 8, 16};
  const int want942[] = {5, 7, 11, 19};
  const int want950[] = {5, 8, 12, 20};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(t942.mfma_write_to_valu_mem_xdl.Eval(passes[i]), want942[i]) << passes[i];
    EXPECT_EQ(t950.mfma_write_to_valu_mem_xdl.Eval(passes[i]), want950[i]) << passes[i];
    EXPECT_EQ(t950.mfma_write_to_srcab_xdl.Eval(passes[i]), want950[i]) << passes[i];
  }
  // Overlapped srcC, XDL producer: "2 pass | 3 4", "4 pass | 5 6", "8 pass | 9 10".
  EXPECT_EQ(t950.mfma_write_to_srcc_overlap_xdl.Eval(2), 4);
  EXPECT_EQ(t950.mfma_write_to_srcc_overlap_xdl.Eval(4), 6);
  EXPECT_EQ(t950.mfma_write_to_srcc_overlap_xdl.Eval(8), 10);
}

// The non-MFMA rows of gfx950 are gfx942's (GFX940Insts predicates:
// hasVDecCoExecHazard, hasTransForwardingHazard, checkVALUHazardsHelper's
// "hasGFX940Insts() ? 2 : 1"), plus the SGPR-soffset row of PR #197267.
TEST(HazardTable, FailureClass11_Gfx950ValuRowsAsGfx942) {
  MInst overwrite = I(Opc::kVMovB32, {V(14), Imm(0)});
  EXPECT_EQ(Req("gfx950", StoreX4(12, Imm(0)), overwrite), 2);
  EXPECT_EQ(Req("gfx950", StoreX4(12, S(8)), overwrite), 1);
  EXPECT_EQ(Req("gfx950", I(Opc::kVCmpGtU32, {Vcc(), V(0), V(1)}),
                I(Opc::kVCndmaskB32, {V(2), V(3), V(4), Vcc()})),
            2);
  EXPECT_EQ(Req("gfx950", I(Opc::kVReadfirstlaneB32, {S(9), V(1)}), I(Opc::kVAddU32, {V(2), S(9), V(3)})), 2);
  EXPECT_EQ(Req("gfx950", I(Opc::kVRcpF32, {V(3), V(1)}), I(Opc::kVMulF32, {V(4), V(3), V(2)})), 1);
  EXPECT_EQ(Req("gfx950", I(Opc::kVAddU32, {V(3), V(1), V(2)}), I(Opc::kVReadfirstlaneB32, {S(9), V(3)})), 1);
  EXPECT_EQ(Req("gfx950", I(Opc::kVCmpGtU32, {Exec(), V(1), V(2)}),
                I(Opc::kVWritelaneB32, {V(7), S(2), Imm(5)})),
            4);
}

// `kirc hazards`'s listing (HazardRules) against counts derived by hand
// from amdgcn-isa-notes.md section 2: gfx950's 16-pass XDL MFMA result read
// by a VALU needs 16 + 3 + 1 = 20 (GFX940_XDL_N_PassWriteVgprVALUMemExpRead
// WaitStates with IsGFX950), gfx942's 16 + 3 = 19; gfx908's AGPR result
// read by v_accvgpr_read 10 / 18 for 8 / 16 passes (2.2: passes + 2); VALU SGPR
// write -> VALU read 2 on gfx942, off on gfx908; SALU M0 write -> LDS DMA 1.
TEST(HazardRules, ListsTheTableWithHandCounts) {
  auto find = [](const char* target, const std::string& producer, const std::string& consumer) {
    for (const HazardRuleText& r : HazardRules(T(target)))
      if (r.producer == producer && r.consumer == consumer) return r.wait_states;
    return std::string("absent");
  };
  EXPECT_NE(find("gfx950", "XDL MFMA writes R", "VALU/VMEM/DS reads or writes R").find("16 passes: 20"),
            std::string::npos);
  EXPECT_NE(find("gfx942", "XDL MFMA writes R", "VALU/VMEM/DS reads or writes R").find("16 passes: 19"),
            std::string::npos);
  EXPECT_EQ(find("gfx908", "MFMA writes AGPRs R", "v_accvgpr_read reads R"),
            "8 passes: 10, 16 passes: 18");  // kirc's gfx908 MFMAs: 16x16 (8 passes), 32x32 (16)
  EXPECT_EQ(find("gfx942", "VALU writes SGPR/VCC R", "VALU reads R"), "2");
  EXPECT_EQ(find("gfx908", "VALU writes SGPR/VCC R", "VALU reads R"), "absent");
  EXPECT_EQ(find("gfx90a", "SALU writes M0",
                 "LDS DMA (buffer_load ... lds; gfx950 also global_load_lds_dwordx4) reads M0"),
            "1");
  // The listing reaches MaxHazardWindow (20: gfx950's row above) and no
  // count exceeds it.
  int most = 0;
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"})
    for (const HazardRuleText& r : HazardRules(T(t))) {
      const std::string& w = r.wait_states;
      for (size_t i = 0; i < w.size();) {
        const size_t c = w.find(": ", i);
        const size_t start = c == std::string::npos ? i : c + 2;
        const size_t stop = w.find(',', start);
        most = std::max(most, std::stoi(w.substr(start, stop - start)));
        if (stop == std::string::npos) break;
        i = stop + 1;
      }
    }
  EXPECT_EQ(most, MaxHazardWindow());
}

}  // namespace
}  // namespace kir
