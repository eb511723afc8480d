// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3. Test names carry the failure class they guard.
#include "compiler/passes/waitcnt.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

MOperand V(int r, int n = 1) { return MOperand::Phys(RegClass::kVgpr, r, n); }
MOperand S(int r, int n = 1) { return MOperand::Phys(RegClass::kSgpr, r, n); }
MOperand A(int r, int n = 1) { return MOperand::Phys(RegClass::kAgpr, r, n); }
MOperand Imm(int64_t v) { return MOperand::Imm(v); }

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
  void Load(int dst) { Add(Opc::kBufferLoadDword, {V(dst), V(90), S(0, 4), Imm(0)}); }
  void Store(int data) { Add(Opc::kBufferStoreDword, {V(data), V(90), S(0, 4), Imm(0)}); }
  void DsRead(int dst) { Add(Opc::kDsReadB32, {V(dst), V(91)}); }
  void DsWrite(int data) { Add(Opc::kDsWriteB32, {V(91), V(data)}); }
  void SLoad(int dst) { Add(Opc::kSLoadDword, {S(dst), S(2, 2), Imm(0)}); }
  void Use(int v) { Add(Opc::kVAddU32, {V(80), V(v), V(81)}); }
  MFunction f;
};

const TargetInfo& T(const char* name) { return **LookupTarget(name); }

// Inserted waits spelled by WaitcntText, original instructions as "#<id>".
std::string Shape(const MFunction& f) {
  std::string s;
  for (const MInst& m : f.insts) {
    if (!s.empty()) s += " | ";
    if (m.opc == Opc::kSWaitcnt && m.id == -1)
      s += WaitcntText(m);
    else
      s += "#" + std::to_string(m.id);
  }
  return s;
}

std::string RunPass(const char* target, Builder& b, WaitcntStats* stats = nullptr) {
  absl::Status st = InsertWaitcnts(T(target), b.f, stats);
  EXPECT_TRUE(st.ok()) << st;
  return Shape(b.f);
}

// Loops: a load issued late in the body is used early in the next iteration;
// the wait must be found through the back edge (failure class 7: "loop
// back-edges and joins not merged").
TEST(Waitcnt, FailureClass7_LoadUsedAcrossTheBackEdge) {
  Builder b;
  b.Add(Opc::kLabel, {Imm(0)});        // #0
  b.Use(5);                            // #1: reads v5, loaded at the end of the previous iteration
  b.Load(6);                           // #2
  b.Load(5);                           // #3
  b.Add(Opc::kSCmpLtU32, {S(10), Imm(4)});  // #4
  b.Add(Opc::kSCbranchScc1, {Imm(0)});      // #5
  b.Use(6);                            // #6 after the loop
  b.Add(Opc::kSEndpgm, {});            // #7
  // Through the back edge v5's load is the newest VMEM op: vmcnt(0) before #1
  // (the first iteration has nothing outstanding; the merge keeps the worse
  // case). After the loop v6 is pending with v5's load younger: vmcnt(1).
  EXPECT_EQ(RunPass("gfx942", b), "#0 | s_waitcnt vmcnt(0) | #1 | #2 | #3 | #4 | #5 | s_waitcnt vmcnt(1) | #6 | #7");
}

TEST(Waitcnt, LoopWithoutCarriedLoadsNeedsNoExtraWait) {
  Builder b;
  b.Add(Opc::kLabel, {Imm(3)});        // #0
  b.Load(6);                           // #1
  b.Use(6);                            // #2
  b.Add(Opc::kSCmpLtU32, {S(10), Imm(4)});  // #3
  b.Add(Opc::kSCbranchScc1, {Imm(3)});      // #4
  b.Add(Opc::kSEndpgm, {});            // #5
  EXPECT_EQ(RunPass("gfx90a", b), "#0 | #1 | s_waitcnt vmcnt(0) | #2 | #3 | #4 | #5");
}

TEST(Waitcnt, FailureClass7_TwoLoadsUsedInIssueOrder) {
  Builder b;
  b.Load(1);  // #0
  b.Load(2);  // #1
  b.Use(1);   // #2: only #1 may still be in flight
  b.Use(2);   // #3
  WaitcntStats stats;
  EXPECT_EQ(RunPass("gfx942", b, &stats),
            "#0 | #1 | s_waitcnt vmcnt(1) | #2 | s_waitcnt vmcnt(0) | #3");
  EXPECT_EQ(stats.waits, 2);
  EXPECT_EQ(stats.vmcnt_waits, 2);
  EXPECT_EQ(stats.lgkmcnt_waits, 0);
}

TEST(Waitcnt, FailureClass7_TwoLoadsUsedInReverseOrder) {
  Builder b;
  b.Load(1);
  b.Load(2);
  b.Use(2);  // vmcnt(0) also completes #0
  b.Use(1);
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | s_waitcnt vmcnt(0) | #2 | #3");
}

TEST(Waitcnt, FailureClass7_StoreCountsInVmcnt) {
  Builder b;
  b.Load(1);   // #0
  b.Store(5);  // #1 (gfx9: stores count in vmcnt)
  b.Load(2);   // #2
  b.Use(1);    // #3: two VMEM ops issued after #0
  b.Use(2);    // #4
  EXPECT_EQ(RunPass("gfx90a", b),
            "#0 | #1 | #2 | s_waitcnt vmcnt(2) | #3 | s_waitcnt vmcnt(0) | #4");
}

TEST(Waitcnt, FailureClass7_DsReadsInOrderGiveLgkmcntN) {
  Builder b;
  b.DsRead(1);
  b.DsRead(2);
  b.DsRead(3);
  b.Use(1);
  b.Use(2);
  b.Use(3);
  EXPECT_EQ(RunPass("gfx942", b),
            "#0 | #1 | #2 | s_waitcnt lgkmcnt(2) | #3 | s_waitcnt lgkmcnt(1) | #4 | "
            "s_waitcnt lgkmcnt(0) | #5");
}

TEST(Waitcnt, FailureClass7_SmemOutstandingForcesLgkmcnt0) {
  Builder b;
  b.DsRead(1);  // #0
  b.SLoad(4);   // #1: returns out of order
  b.Use(1);     // #2: lgkmcnt(1) would be wrong if the s_load came back first
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | s_waitcnt lgkmcnt(0) | #2");
}

TEST(Waitcnt, FailureClass7_ScalarLoadResultWaits) {
  Builder b;
  b.SLoad(4);
  b.SLoad(5);
  b.Add(Opc::kSAddU32, {S(6), S(4), Imm(1)});
  b.Add(Opc::kSAddU32, {S(7), S(5), Imm(1)});
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | s_waitcnt lgkmcnt(0) | #2 | #3");
}

TEST(Waitcnt, FailureClass7_VmcntAndLgkmcntCombined) {
  Builder b;
  b.Load(1);
  b.DsRead(2);
  b.Add(Opc::kVAddU32, {V(3), V(1), V(2)});
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | s_waitcnt vmcnt(0) lgkmcnt(0) | #2");
}

TEST(Waitcnt, FailureClass7_CountsCappedAtFieldWidth) {
  Builder b;
  for (int i = 0; i < 20; ++i) b.DsRead(100 + i);
  b.Use(100);  // 19 DS ops after it, but lgkmcnt has 4 bits
  for (int i = 0; i < 70; ++i) b.Load(200 + i);
  b.Use(200);  // 69 VMEM ops after it, but vmcnt has 6 bits
  std::string s = RunPass("gfx942", b);
  // The field's maximum encodes "don't wait" (lgkmcnt(15) waits for nothing):
  // a count beyond the field waits for max - 1, as LLVM does.
  EXPECT_NE(s.find("s_waitcnt lgkmcnt(14) | #20"), std::string::npos) << s;
  EXPECT_NE(s.find("s_waitcnt vmcnt(62) | #91"), std::string::npos) << s;
}

TEST(Waitcnt, FailureClass7_NoRedundantSecondWait) {
  Builder b;
  b.Load(1);
  b.Use(1);
  b.Use(1);
  b.Add(Opc::kVAddU32, {V(1), V(1), V(1)});
  EXPECT_EQ(RunPass("gfx942", b), "#0 | s_waitcnt vmcnt(0) | #1 | #2 | #3");
}

TEST(Waitcnt, FailureClass7_ExistingWaitcntIsHonoured) {
  Builder b;
  b.Load(1);
  b.Load(2);
  b.Add(Opc::kSWaitcnt, {Imm(0), Imm(-1)});
  b.Use(1);
  b.Use(2);
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | #2 | #3 | #4");
}

TEST(Waitcnt, FailureClass7_StoreDataRegisterWaitsForItsLoad) {
  Builder b;
  b.Load(1);
  b.Store(1);
  EXPECT_EQ(RunPass("gfx942", b), "#0 | s_waitcnt vmcnt(0) | #1");
}

TEST(Waitcnt, FailureClass7_NoWaitAtEndpgm) {
  Builder b;
  b.Load(1);
  b.Store(2);
  b.DsWrite(3);
  b.Add(Opc::kSEndpgm, {});
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | #2 | #3");
}

TEST(Waitcnt, FailureClass8_WawOnPendingLoadDestination) {
  Builder b;
  b.Add(Opc::kBufferLoadShortD16, {V(1), V(90), S(0, 4), Imm(0)});
  b.Add(Opc::kBufferLoadShortD16Hi, {V(1), V(90), S(0, 4), Imm(2)});
  b.Use(1);
  EXPECT_EQ(RunPass("gfx942", b), "#0 | s_waitcnt vmcnt(0) | #1 | s_waitcnt vmcnt(0) | #2");
}

TEST(Waitcnt, FailureClass8_ValuOverwritesPendingLoadDestination) {
  Builder b;
  b.Load(1);
  b.Load(7);
  b.Add(Opc::kVMovB32, {V(1), Imm(0)});  // the load would land after this write
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | s_waitcnt vmcnt(1) | #2");
}

TEST(Waitcnt, FailureClass8_DsReadIntoPendingVmemDestination) {
  Builder b;
  b.Load(1);
  b.DsRead(1);
  EXPECT_EQ(RunPass("gfx942", b), "#0 | s_waitcnt vmcnt(0) | #1");
}

TEST(Waitcnt, FailureClass9_BarrierAfterDsWrite) {
  Builder b;
  b.DsWrite(1);
  b.Add(Opc::kSBarrier, {});
  b.DsRead(2);
  EXPECT_EQ(RunPass("gfx942", b), "#0 | s_waitcnt lgkmcnt(0) | #1 | #2");
}

TEST(Waitcnt, FailureClass9_BarrierAfterOwnDsReads) {
  Builder b;
  b.DsRead(1);
  b.Add(Opc::kSBarrier, {});
  b.DsWrite(2);
  EXPECT_EQ(RunPass("gfx90a", b), "#0 | s_waitcnt lgkmcnt(0) | #1 | #2");
}

TEST(Waitcnt, FailureClass9_BarrierWithNothingOutstanding) {
  Builder b;
  b.Load(1);
  b.Store(3);
  b.Add(Opc::kSBarrier, {});  // gfx90a+: back-off barrier, VMEM not waited
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | #2");
}

TEST(Waitcnt, FailureClass9_Gfx908BarrierWaitsForVmcntToo) {
  Builder b;
  b.Store(3);
  b.DsWrite(1);
  b.Add(Opc::kSBarrier, {});
  EXPECT_EQ(RunPass("gfx908", b), "#0 | #1 | s_waitcnt vmcnt(0) lgkmcnt(0) | #2");
  Builder c;
  c.Store(3);
  c.Add(Opc::kSBarrier, {});
  EXPECT_EQ(RunPass("gfx908", c), "#0 | s_waitcnt vmcnt(0) | #1");
}

TEST(Waitcnt, AgprLoadDestinationOnGfx90a) {
  Builder b;
  b.Add(Opc::kDsReadB128, {A(0, 4), V(91)});
  b.Add(Opc::kVAccvgprRead, {V(4), A(3)});
  EXPECT_EQ(RunPass("gfx90a", b), "#0 | s_waitcnt lgkmcnt(0) | #1");
}

TEST(Waitcnt, SpecialRegistersAreNotMemoryDestinations) {
  Builder b;
  b.Load(1);
  b.Add(Opc::kVCmpGtU32, {MOperand::Special(SpecialReg::kVcc), V(2), V(3)});
  b.Add(Opc::kSAddU32, {S(4), S(5), Imm(1)});
  EXPECT_EQ(RunPass("gfx942", b), "#0 | #1 | #2");
}

TEST(Waitcnt, FailureClass7_EncodingAndText) {
  EXPECT_EQ(WaitcntText(MakeWaitcnt(0, 0)), "s_waitcnt vmcnt(0) lgkmcnt(0)");
  EXPECT_EQ(WaitcntText(MakeWaitcnt(3, kWaitcntNoWait)), "s_waitcnt vmcnt(3)");
  EXPECT_EQ(WaitcntText(MakeWaitcnt(kWaitcntNoWait, 2)), "s_waitcnt lgkmcnt(2)");
  EXPECT_EQ(WaitcntSimm16(MakeWaitcnt(0, kWaitcntNoWait)), 0x0F70);
  EXPECT_EQ(WaitcntSimm16(MakeWaitcnt(63, 15)), 0xCF7F);
  EXPECT_EQ(WaitcntSimm16(MakeWaitcnt(17, 0)), 0x4071);  // 17 = 0b01'0001: low 1, high 1
  EXPECT_EQ(MakeWaitcnt(1, 2).id, -1);
  EXPECT_TRUE(ValidateWaitcnt(T("gfx942"), MakeWaitcnt(63, 15)).ok());
  EXPECT_FALSE(ValidateWaitcnt(T("gfx942"), MakeWaitcnt(0, 16)).ok());
  EXPECT_FALSE(ValidateWaitcnt(T("gfx942"), MakeWaitcnt(64, 0)).ok());
  Builder b;
  b.Add(Opc::kSWaitcnt, {Imm(0), Imm(16)});  // too large for the 4-bit field
  EXPECT_EQ(InsertWaitcnts(T("gfx942"), b.f).code(), absl::StatusCode::kInvalidArgument);
  Builder c;
  c.Add(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, 0), Imm(0)});
  EXPECT_EQ(InsertWaitcnts(T("gfx942"), c.f).code(), absl::StatusCode::kInvalidArgument);
}

// The join of two paths: one issued another load after the load into v1, the
// other did not. The merged state must use the smaller count (vmcnt(0)), not
// the count of the path with more loads in flight.
TEST(Waitcnt, FailureClass7_MergeTakesTheSaferCount) {
  MInst load1, load2, use1;
  load1.opc = load2.opc = Opc::kBufferLoadDword;
  load1.ops = {V(1), V(90), S(0, 4), Imm(0)};
  load2.ops = {V(2), V(90), S(0, 4), Imm(0)};
  use1.opc = Opc::kVAddU32;
  use1.ops = {V(3), V(1), V(1)};

  WaitcntState two, one;
  two.Issue(load1);
  two.Issue(load2);
  one.Issue(load1);
  EXPECT_EQ(two.NeedFor(T("gfx942"), use1).vmcnt, 1);
  EXPECT_EQ(one.NeedFor(T("gfx942"), use1).vmcnt, 0);
  two.Merge(one);
  EXPECT_EQ(two.NeedFor(T("gfx942"), use1).vmcnt, 0);
  // And a load pending only on one path is still pending after the join.
  WaitcntState none;
  none.Merge(two);
  EXPECT_EQ(none.NeedFor(T("gfx942"), use1).vmcnt, 0);
  MInst use2 = use1;
  use2.ops = {V(3), V(2), V(2)};
  EXPECT_EQ(none.NeedFor(T("gfx942"), use2).vmcnt, 0);
  // SMEM outstanding on one path forces lgkmcnt(0) after the join.
  WaitcntState ds, smem;
  MInst dsr, sload, use4;
  dsr.opc = Opc::kDsReadB32;
  dsr.ops = {V(4), V(91)};
  sload.opc = Opc::kSLoadDword;
  sload.ops = {S(8), S(2, 2), Imm(0)};
  use4.opc = Opc::kVAddU32;
  use4.ops = {V(5), V(4), V(4)};
  MInst dsr2 = dsr;
  dsr2.ops = {V(6), V(91)};
  ds.Issue(dsr);
  ds.Issue(dsr2);
  EXPECT_EQ(ds.NeedFor(T("gfx942"), use4).lgkmcnt, 1);  // DS only: in order
  smem.Issue(dsr);
  smem.Issue(sload);
  ds.Merge(smem);
  EXPECT_TRUE(ds.SmemOutstanding());
  EXPECT_EQ(ds.NeedFor(T("gfx942"), use4).lgkmcnt, 0);
}

// Issue 13, defect 1: a loop whose body only stores never waits, so each trip
// adds to the outstanding count; the dataflow converged only once that count
// saturates ("s_waitcnt dataflow did not converge in 64 rounds" before). The
// waits after the loop are derived by hand: a load issued before the loop is
// followed by at least one store on every path, so vmcnt(1) covers it; a load
// after the loop is the newest operation: vmcnt(0).
TEST(Waitcnt, FailureClass7_StoreOnlyLoopConverges) {
  for (const char* t : {"gfx908", "gfx90a", "gfx942"}) {
    Builder b;
    b.Load(5);                                 // #0
    b.Add(Opc::kLabel, {Imm(0)});              // #1
    b.Store(1);                                // #2
    b.Add(Opc::kSCmpLtU32, {S(10), Imm(4)});   // #3
    b.Add(Opc::kSCbranchScc1, {Imm(0)});       // #4
    b.Use(5);                                  // #5
    b.Load(6);                                 // #6
    b.Use(6);                                  // #7
    b.Add(Opc::kSEndpgm, {});                  // #8
    EXPECT_EQ(RunPass(t, b),
              "#0 | #1 | #2 | #3 | #4 | s_waitcnt vmcnt(1) | #5 | #6 | s_waitcnt vmcnt(0) | #7 | #8")
        << t;
  }
}

// The same for LDS: a loop of ds_write only (lgkmcnt saturates at 15), and a
// nested pair of store-only loops; then a DS read used after the loops.
TEST(Waitcnt, FailureClass7_DsStoreOnlyNestedLoopsConverge) {
  Builder b;
  b.Add(Opc::kLabel, {Imm(0)});              // #0 outer header
  b.Add(Opc::kLabel, {Imm(1)});              // #1 inner header
  b.DsWrite(1);                              // #2
  b.DsWrite(2);                              // #3
  b.Store(3);                                // #4
  b.Add(Opc::kSCmpLtU32, {S(10), Imm(4)});   // #5
  b.Add(Opc::kSCbranchScc1, {Imm(1)});       // #6
  b.DsWrite(4);                              // #7
  b.Add(Opc::kSCmpLtU32, {S(11), Imm(4)});   // #8
  b.Add(Opc::kSCbranchScc1, {Imm(0)});       // #9
  b.DsRead(7);                               // #10
  b.Use(7);                                  // #11
  b.Add(Opc::kSEndpgm, {});                  // #12
  EXPECT_EQ(RunPass("gfx942", b),
            "#0 | #1 | #2 | #3 | #4 | #5 | #6 | #7 | #8 | #9 | #10 | s_waitcnt lgkmcnt(0) | #11 | #12");
}

// Saturation itself: 100 stores issued in a row keep at most vmcnt_max (63)
// outstanding in the model, and a load older than all of them waits for
// vmcnt(62), the largest count that still completes it (the field's 63 means
// "do not wait").
TEST(Waitcnt, FailureClass7_OutstandingCountSaturates) {
  MInst load, store, use;
  load.opc = Opc::kBufferLoadDword;
  load.ops = {V(1), V(90), S(0, 4), Imm(0)};
  store.opc = Opc::kBufferStoreDword;
  store.ops = {V(2), V(90), S(0, 4), Imm(0)};
  use.opc = Opc::kVAddU32;
  use.ops = {V(3), V(1), V(1)};
  WaitcntState st;
  st.Issue(load);
  for (int i = 0; i < 100; ++i) st.Issue(store);
  EXPECT_EQ(st.vm_ub - st.vm_lb, T("gfx942").vmcnt_max);
  EXPECT_EQ(st.NeedFor(T("gfx942"), use).vmcnt, 62);
}

}  // namespace
}  // namespace kir
