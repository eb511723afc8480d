// The soft-clause rule of LLVM's GCNHazardRecognizer::checkSoftClauseHazards,
// applied by hand to small instruction runs: which ones need an `s_nop 0`.
// (compiler/api/target_id_test.cc checks the same rule against clang-22 output.)
// The rule itself is tested as text: compiler/passes/tests/xnack_*.s (kirc
// opt + FileCheck, ported from this file); what stays here checks that
// virtual registers are refused.
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
