// Expected s_nop sequences are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 2. Test names carry the failure class they guard.
// The rules themselves are tested as text: compiler/passes/tests/hazards_*.s
// (kirc opt + FileCheck, ported from this file); what stays here checks the
// C++ API (HazardState merging, the stats, refusals of virtual registers).
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

}  // namespace
}  // namespace kir
