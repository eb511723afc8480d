// The soft-clause rule of LLVM's GCNHazardRecognizer::checkSoftClauseHazards,
// applied by hand to small instruction runs: which ones need an `s_nop 0`.
// (compiler/api/target_id_test.cc checks the same rule against clang-22 output.)
#include "compiler/passes/xnack_clauses.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "compiler/isa/instr.h"

namespace kir {
namespace {

MOperand V(int r, int n = 1) { return MOperand::Phys(RegClass::kVgpr, r, n); }
MOperand S(int r, int n = 1) { return MOperand::Phys(RegClass::kSgpr, r, n); }
MOperand Imm(int64_t v) { return MOperand::Imm(v); }

class Code {
 public:
  Code& Add(Opc opc, std::vector<MOperand> ops) {
    MInst m;
    m.opc = opc;
    m.ops = std::move(ops);
    m.id = f.next_inst_id++;
    f.insts.push_back(std::move(m));
    return *this;
  }
  // buffer_load_dwordx2 v[d:d+1], v(off), s[4:7], 0 offen
  Code& Load(int d, int off) { return Add(Opc::kBufferLoadDwordx2, {V(d, 2), V(off), S(4, 4), Imm(0)}); }
  // buffer_store_dword v(data), v(off), s[8:11], 0 offen
  Code& Store(int data, int off) { return Add(Opc::kBufferStoreDword, {V(data), V(off), S(8, 4), Imm(0)}); }
  // The mnemonics after the pass, "nop" for an inserted s_nop 0.
  std::vector<std::string> Run(int expect_nops) {
    int nops = -1;
    absl::Status st = BreakXnackSoftClauses(f, &nops);
    EXPECT_TRUE(st.ok()) << st;
    EXPECT_EQ(nops, expect_nops);
    std::vector<std::string> out;
    for (const MInst& m : f.insts) {
      if (m.opc == Opc::kSNop) {
        EXPECT_EQ(m.id, -1);
        EXPECT_EQ(m.ops.at(0).imm, 0);
        out.push_back("nop");
      } else {
        out.push_back(Info(m.opc).mnemonic);
      }
    }
    return out;
  }
  MFunction f;
};

using Seq = std::vector<std::string>;
const char* kLd = "buffer_load_dwordx2";
const char* kSt = "buffer_store_dword";

TEST(XnackClauses, LoadOverwritingAnEarlierLoadsAddressIsSplit) {
  Code c;
  c.Load(10, 3).Load(2, 4);  // the second load writes v3, which the first read
  EXPECT_EQ(c.Run(1), (Seq{kLd, "nop", kLd}));
}

TEST(XnackClauses, DisjointLoadsStayTogether) {
  Code c;
  c.Load(10, 3).Load(12, 4).Load(14, 5);
  EXPECT_EQ(c.Run(0), (Seq{kLd, kLd, kLd}));
}

TEST(XnackClauses, StoreAfterALoadStartsANewClause) {
  Code c;
  c.Load(10, 3).Store(20, 21);
  EXPECT_EQ(c.Run(1), (Seq{kLd, "nop", kSt}));
}

TEST(XnackClauses, StoresOnlyOrStoreThenLoadNeedNothing) {
  // The run before the load has no defs: LLVM checks nothing then, even though
  // the load writes the store's address register.
  Code c;
  c.Store(20, 3).Store(21, 5).Load(2, 7);
  EXPECT_EQ(c.Run(0), (Seq{kSt, kSt, kLd}));
}

TEST(XnackClauses, D16LoadReadsItsDestination) {
  Code c;
  c.Add(Opc::kBufferLoadShortD16, {V(10), V(3), S(4, 4), Imm(0)}).Load(12, 4);
  EXPECT_EQ(c.Run(1), (Seq{"buffer_load_short_d16", "nop", kLd}));
}

TEST(XnackClauses, WaitcntOrAluEndsTheRun) {
  Code c;
  c.Load(10, 3).Add(Opc::kSWaitcnt, {Imm(0)}).Load(2, 4);
  c.Add(Opc::kVAddU32, {V(30), V(31), V(32)}).Load(3, 2);
  EXPECT_EQ(c.Run(0), (Seq{kLd, "s_waitcnt", kLd, "v_add_u32", kLd}));
}

TEST(XnackClauses, LabelDoesNotEndTheRun) {
  Code c;
  c.Load(10, 3).Add(Opc::kLabel, {Imm(0)}).Load(2, 4);
  EXPECT_EQ(c.Run(1), (Seq{kLd, "<label>", "nop", kLd}));
}

TEST(XnackClauses, SmemRunsFollowTheSameRule) {
  // kirc's prologue shape (every load reads the kernarg pointer s[0:1]) is fine;
  // overwriting s[0:1] inside the run is not.
  Code ok;
  ok.Add(Opc::kSLoadDwordx2, {S(4, 2), S(0, 2), Imm(0)}).Add(Opc::kSLoadDword, {S(6), S(0, 2), Imm(8)});
  EXPECT_EQ(ok.Run(0), (Seq{"s_load_dwordx2", "s_load_dword"}));
  Code bad;
  bad.Add(Opc::kSLoadDwordx2, {S(4, 2), S(0, 2), Imm(0)}).Add(Opc::kSLoadDwordx2, {S(0, 2), S(0, 2), Imm(8)});
  EXPECT_EQ(bad.Run(1), (Seq{"s_load_dwordx2", "nop", "s_load_dwordx2"}));
}

TEST(XnackClauses, VmemAndSmemAreSeparateRuns) {
  Code c;
  c.Load(10, 3).Add(Opc::kSLoadDword, {S(6), S(0, 2), Imm(8)}).Load(2, 4);
  EXPECT_EQ(c.Run(0), (Seq{kLd, "s_load_dword", kLd}));
}

TEST(XnackClauses, VirtualRegistersAreRefused) {
  MFunction f;
  MInst m;
  m.opc = Opc::kBufferLoadDword;
  m.ops = {MOperand::Virt(RegClass::kVgpr, 0), V(1), S(4, 4), Imm(0)};
  f.insts.push_back(m);
  absl::Status st = BreakXnackSoftClauses(f);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("after register allocation"), std::string::npos) << st;
}

}  // namespace
}  // namespace kir
