// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2. Test names carry the failure class they guard.
#include "compiler/passes/hazards.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/hazard_table.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

MOperand V(int r, int n = 1) { return MOperand::Phys(RegClass::kVgpr, r, n); }
MOperand S(int r, int n = 1) { return MOperand::Phys(RegClass::kSgpr, r, n); }
MOperand A(int r, int n = 1) { return MOperand::Phys(RegClass::kAgpr, r, n); }
MOperand Imm(int64_t v) { return MOperand::Imm(v); }
MOperand Vcc() { return MOperand::Special(SpecialReg::kVcc); }

class Builder {
 public:
  MInst& Add(Opc opc, std::vector<MOperand> ops) {
    MInst m;
    m.opc = opc;
    m.ops = std::move(ops);
    m.id = f.next_inst_id++;
    f.insts.push_back(std::move(m));
    return f.insts.back();
  }
  MInst& Mfma(const char* name, MOperand d, MOperand a, MOperand b, MOperand c) {
    MInst& m = Add(Opc::kVMfma, {d, a, b, c});
    m.mfma = LookupMfma(name);
    EXPECT_NE(m.mfma, nullptr) << name;
    return m;
  }
  // v_add_u32 on registers no rule cares about: an independent filler.
  void Filler(int n) {
    for (int i = 0; i < n; ++i) Add(Opc::kVAddU32, {V(100 + i), V(200), V(201)});
  }
  MFunction f;
};

const TargetInfo& T(const char* name) { return **LookupTarget(name); }

// "s_nop 6" per inserted nop, "#<id>" per original instruction.
std::string Shape(const MFunction& f) {
  std::string s;
  for (const MInst& m : f.insts) {
    if (!s.empty()) s += " ";
    if (m.opc == Opc::kSNop && m.id == -1)
      s += "s_nop " + std::to_string(m.ops[0].imm);
    else
      s += "#" + std::to_string(m.id);
  }
  return s;
}

std::string RunPass(const char* target, Builder& b, HazardNopStats* stats = nullptr) {
  absl::Status st = InsertHazardNops(T(target), b.f, stats);
  EXPECT_TRUE(st.ok()) << st;
  return Shape(b.f);
}

// MFMA 16x16x16 f16 into v[12:15], then buffer_store_dwordx4 of v[12:15].
void MfmaThenStore(Builder& b) {
  b.Mfma("f32_16x16x16_f16", V(12, 4), V(0, 2), V(2, 2), V(12, 4));
  b.Add(Opc::kBufferStoreDwordx4, {V(12, 4), V(4), S(0, 4), S(8)});
}

TEST(HazardNops, FailureClass11_MfmaToStoreGfx942) {
  Builder b;
  MfmaThenStore(b);
  HazardNopStats stats;
  EXPECT_EQ(RunPass("gfx942", b, &stats), "#0 s_nop 6 #1");  // 7 wait states
  EXPECT_EQ(stats.nops, 1);
  EXPECT_EQ(stats.wait_states, 7);
  const MInst& nop = b.f.insts[1];
  EXPECT_EQ(nop.id, -1);
  EXPECT_EQ(nop.comment,
            "XDL MFMA (4 passes) writes v[12:15] read by VMEM: 7 wait states (gfx942)");
}

TEST(HazardNops, FailureClass11_MfmaToStoreGfx90aSplitsNops) {
  Builder b;
  MfmaThenStore(b);
  EXPECT_EQ(RunPass("gfx90a", b), "#0 s_nop 7 s_nop 2 #1");  // 11 = 8 + 3
  for (int i : {1, 2}) EXPECT_LE(b.f.insts[i].ops[0].imm, 7);
}

TEST(HazardNops, FailureClass11_Gfx908AccvgprReadAfter16x16) {
  Builder b;
  b.Mfma("f32_16x16x16_f16", A(0, 4), V(0, 2), V(2, 2), A(0, 4));
  b.Add(Opc::kVAccvgprRead, {V(4), A(0)});
  EXPECT_EQ(RunPass("gfx908", b), "#0 s_nop 7 s_nop 1 #1");  // 10 = 8 + 2
}

TEST(HazardNops, FailureClass11_Mfma32x32Gfx942) {
  Builder b;
  b.Mfma("f32_32x32x8_f16", V(16, 16), V(0, 2), V(2, 2), V(16, 16));
  b.Add(Opc::kBufferStoreDwordx4, {V(28, 4), V(4), S(0, 4), S(8)});
  EXPECT_EQ(RunPass("gfx942", b), "#0 s_nop 7 s_nop 2 #1");  // 11 = 8 + 3
}

// Off-by-one guard: independent instructions count one wait state each.
TEST(HazardNops, FailureClass11_IndependentInstructionsFillTheWindow) {
  for (int fill = 0; fill <= 8; ++fill) {
    SCOPED_TRACE(fill);
    Builder b;
    b.Mfma("f32_16x16x16_f16", V(12, 4), V(0, 2), V(2, 2), V(12, 4));
    b.Filler(fill);
    b.Add(Opc::kBufferStoreDwordx4, {V(12, 4), V(4), S(0, 4), S(8)});
    absl::Status st = InsertHazardNops(T("gfx942"), b.f);
    ASSERT_TRUE(st.ok()) << st;
    int nop_states = 0, nops = 0;
    for (const MInst& m : b.f.insts)
      if (m.opc == Opc::kSNop) {
        nop_states += m.ops[0].imm + 1;
        ++nops;
      }
    EXPECT_EQ(nop_states, fill >= 7 ? 0 : 7 - fill);
    EXPECT_EQ(nops, fill >= 7 ? 0 : 1);
    EXPECT_EQ(b.f.insts.size(), static_cast<size_t>(fill + 2 + nops));
  }
}

TEST(HazardNops, FailureClass11_ExistingNopsAndWaitcntsCount) {
  Builder b;
  b.Mfma("f32_16x16x16_f16", V(12, 4), V(0, 2), V(2, 2), V(12, 4));
  b.Add(Opc::kSNop, {Imm(3)});                 // 4 wait states
  b.Add(Opc::kSWaitcnt, {Imm(0), Imm(-1)});    // 1 wait state
  b.Add(Opc::kBufferStoreDwordx4, {V(12, 4), V(4), S(0, 4), S(8)});
  EXPECT_EQ(RunPass("gfx942", b), "#0 #1 #2 s_nop 1 #3");  // 7 - 5 = 2
}

TEST(HazardNops, FailureClass11_SrcCChainSameRegistersNeedsNoNops) {
  for (const char* t : {"gfx90a", "gfx942"}) {
    Builder b;
    for (int k = 0; k < 4; ++k)
      b.Mfma("f32_16x16x16_f16", V(16, 4), V(4 * k, 2), V(4 * k + 2, 2), V(16, 4));
    EXPECT_EQ(RunPass(t, b), "#0 #1 #2 #3") << t;
  }
  Builder b;
  for (int k = 0; k < 3; ++k)
    b.Mfma("f32_16x16x16_f16", A(0, 4), V(4 * k, 2), V(4 * k + 2, 2), A(0, 4));
  EXPECT_EQ(RunPass("gfx908", b), "#0 #1 #2");
}

// Failure class 13 (overlapping accumulators) turns into this hazard.
TEST(HazardNops, FailureClass11_SrcCPartialOverlapNeedsTableValue) {
  auto run = [](const char* t) {
    Builder b;
    b.Mfma("f32_16x16x16_f16", V(16, 4), V(0, 2), V(2, 2), V(16, 4));
    b.Mfma("f32_16x16x16_f16", V(18, 4), V(4, 2), V(6, 2), V(18, 4));
    return RunPass(t, b);
  };
  EXPECT_EQ(run("gfx942"), "#0 s_nop 4 #1");  // XDL 4 passes: 5
  EXPECT_EQ(run("gfx90a"), "#0 s_nop 7 #1");  // 16x16: 8
  Builder b;
  b.Mfma("f32_16x16x16_f16", A(0, 4), V(0, 2), V(2, 2), A(0, 4));
  b.Mfma("f32_16x16x16_f16", A(2, 4), V(4, 2), V(6, 2), A(2, 4));
  EXPECT_EQ(RunPass("gfx908", b), "#0 s_nop 1 #1");  // overlapped srcC: 2
}

TEST(HazardNops, FailureClass11_MfmaResultToSrcA) {
  Builder b;
  b.Mfma("f32_16x16x16_f16", V(16, 4), V(0, 2), V(2, 2), V(16, 4));
  b.Mfma("f32_16x16x16_f16", V(32, 4), V(16, 2), V(2, 2), V(32, 4));
  EXPECT_EQ(RunPass("gfx942", b), "#0 s_nop 6 #1");  // 7
}

TEST(HazardNops, FailureClass11_ValuSgprWriteToBufferLoadSoffset) {
  for (const char* t : {"gfx908", "gfx90a", "gfx942"}) {
    Builder b;
    b.Add(Opc::kVReadfirstlaneB32, {S(5), V(1)});
    b.Add(Opc::kBufferLoadDword, {V(2), V(3), S(0, 4), S(5)});
    EXPECT_EQ(RunPass(t, b), "#0 s_nop 4 #1") << t;  // 5
  }
}

TEST(HazardNops, FailureClass11_VccWriteToValuReadGfx942Only) {
  auto run = [](const char* t) {
    Builder b;
    b.Add(Opc::kVCmpGtU32, {Vcc(), V(0), V(1)});
    b.Add(Opc::kVCndmaskB32, {V(2), V(3), V(4), Vcc()});
    return RunPass(t, b);
  };
  EXPECT_EQ(run("gfx942"), "#0 s_nop 1 #1");  // 2
  EXPECT_EQ(run("gfx90a"), "#0 #1");
  EXPECT_EQ(run("gfx908"), "#0 #1");
}

// Two producers: the requirement is the largest remaining deficit, and nops
// inserted for one consumer count for the next.
TEST(HazardNops, FailureClass11_DeficitsCombine) {
  Builder b;
  b.Mfma("f32_16x16x16_f16", V(16, 4), V(0, 2), V(2, 2), V(16, 4));  // #0
  b.Add(Opc::kVReadfirstlaneB32, {S(5), V(40)});                      // #1
  // Needs 5 after #1 (0 elapsed) and 7 after #0 (1 elapsed): deficit 6.
  b.Add(Opc::kBufferStoreDwordx4, {V(16, 4), V(4), S(0, 4), S(5)});   // #2
  // #3 reads v17: 7 after #0, already 1 + 6 + 1 = 8 elapsed.
  b.Add(Opc::kVAddU32, {V(50), V(17), V(51)});                        // #3
  EXPECT_EQ(RunPass("gfx942", b), "#0 #1 s_nop 5 #2 #3");
}

TEST(HazardNops, FailureClass11_ProducersBeyondTheWindowAreIgnored) {
  Builder b;
  b.Mfma("f32_32x32x8_f16", V(16, 16), V(0, 2), V(2, 2), V(16, 16));
  b.Filler(19);
  b.Add(Opc::kVAddU32, {V(50), V(17), V(51)});
  EXPECT_EQ(RunPass("gfx90a", b).find("s_nop"), std::string::npos);
  Builder c;
  c.Mfma("f32_32x32x8_f16", V(16, 16), V(0, 2), V(2, 2), V(16, 16));
  c.Filler(18);
  c.Add(Opc::kVAddU32, {V(50), V(17), V(51)});
  EXPECT_NE(RunPass("gfx90a", c).find("s_nop 0 #19"), std::string::npos);  // 19 - 18 = 1
}

TEST(HazardNops, RejectsVirtualRegistersAndWideNops) {
  Builder b;
  b.Add(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, 0), Imm(0)});
  EXPECT_EQ(InsertHazardNops(T("gfx942"), b.f).code(), absl::StatusCode::kInvalidArgument);
  Builder c;
  c.Add(Opc::kSNop, {Imm(16)});  // the hardware would read 0: one wait state
  EXPECT_EQ(InsertHazardNops(T("gfx942"), c.f).code(), absl::StatusCode::kInvalidArgument);
}

// The dataflow join keeps the nearest occurrence of each producer.
TEST(HazardNops, FailureClass11_StateMergeTakesMinimumDistance) {
  Builder b;
  MInst& mfma = b.Mfma("f32_16x16x16_f16", V(16, 4), V(0, 2), V(2, 2), V(16, 4));
  const MInst* p = &mfma;
  MInst store;
  store.opc = Opc::kBufferStoreDwordx4;
  store.ops = {V(16, 4), V(4), S(0, 4), S(8)};
  MInst filler;
  filler.opc = Opc::kVAddU32;
  filler.ops = {V(100), V(200), V(201)};

  HazardState far(MaxHazardWindow()), near(MaxHazardWindow());
  far.Issue(*p);
  for (int i = 0; i < 6; ++i) far.Issue(filler);
  near.Issue(*p);
  near.Issue(filler);
  EXPECT_EQ(far.Deficit(T("gfx942"), store, nullptr), 1);
  EXPECT_EQ(near.Deficit(T("gfx942"), store, nullptr), 6);
  far.Merge(near);
  EXPECT_EQ(far.Deficit(T("gfx942"), store, nullptr), 6);
}

// Issue 13, defect 5: buffer_store_dwordx4 with an SGPR soffset directly
// followed by a VALU that overwrites its data needs 1 wait state on gfx942
// (LLVM PR #197267), none on gfx908/gfx90a; and the same when the VALU is
// the first instruction of a successor block, here the loop header reached
// through the back edge and the fall-through block after the loop (LLVM
// #202333, fixed by #203770).
TEST(HazardNops, FailureClass11_WideStoreSgprSoffsetThenValuOverwrite) {
  for (const char* t : {"gfx908", "gfx90a", "gfx942"}) {
    Builder b;
    b.Add(Opc::kBufferStoreDwordx4, {V(6, 4), V(0), S(4, 4), S(1)});  // #0
    b.Add(Opc::kVAddF32, {V(6), V(10), V(11)});                        // #1
    EXPECT_EQ(RunPass(t, b), std::string(t) == "gfx942" ? "#0 s_nop 0 #1" : "#0 #1") << t;
  }
  Builder b;
  b.Add(Opc::kLabel, {Imm(0)});                                        // #0
  b.Add(Opc::kVAddF32, {V(7), V(10), V(11)});                          // #1 overwrites v7
  b.Add(Opc::kSCmpLtU32, {S(10), Imm(4)});                             // #2
  b.Add(Opc::kBufferStoreDwordx4, {V(6, 4), V(0), S(4, 4), S(1)});     // #3
  b.Add(Opc::kSCbranchScc1, {Imm(0)});                                 // #4: 1 wait state
  b.Add(Opc::kVMovB32, {V(8), Imm(0)});                                // #5 overwrites v8
  b.Add(Opc::kSEndpgm, {});                                            // #6
  // The branch itself issues one wait state, which covers the rule on both
  // edges; a store ending the block without a branch would not be covered.
  EXPECT_EQ(RunPass("gfx942", b), "#0 #1 #2 #3 #4 #5 #6");
  Builder c;
  c.Add(Opc::kLabel, {Imm(0)});                                        // #0
  c.Add(Opc::kVAddF32, {V(7), V(10), V(11)});                          // #1 overwrites v7
  c.Add(Opc::kSCmpLtU32, {S(10), Imm(4)});                             // #2
  c.Add(Opc::kSCbranchScc1, {Imm(2)});                                 // #3
  c.Add(Opc::kBufferStoreDwordx4, {V(6, 4), V(0), S(4, 4), S(1)});     // #4 falls through
  c.Add(Opc::kLabel, {Imm(2)});                                        // #5
  c.Add(Opc::kVMovB32, {V(8), Imm(0)});                                // #6 overwrites v8
  c.Add(Opc::kSCmpLtU32, {S(11), Imm(4)});                             // #7
  c.Add(Opc::kSCbranchScc1, {Imm(0)});                                 // #8
  c.Add(Opc::kSEndpgm, {});                                            // #9
  EXPECT_EQ(RunPass("gfx942", c), "#0 #1 #2 #3 #4 #5 s_nop 0 #6 #7 #8 #9");
}

}  // namespace
}  // namespace kir
