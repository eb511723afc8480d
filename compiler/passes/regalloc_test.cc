#include "compiler/passes/regalloc.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

MOperand V(int vreg, int sub = 0) { return MOperand::Virt(RegClass::kVgpr, vreg, sub, 1); }

void Add(MFunction& f, Opc opc, std::vector<MOperand> ops) {
  MInst mi;
  mi.opc = opc;
  mi.ops = std::move(ops);
  mi.id = f.next_inst_id++;
  f.insts.push_back(std::move(mi));
}

// The intervals of tests/regalloc_widest_first_when_first_fit_fragments.mir
// (instruction indices, both ends inclusive): x 0..7, y 1..3, z 2..6 and the
// aligned pair w 4..7. At most 4 VGPRs are live (4..6: x, z, w); first fit
// gives x v0, y v1, z v2 and w v[4:5] (v1 is the only free register below
// v4 at 4, no even pair), 6 registers; widest first gives w v[0:1], x v2, y
// v0 (dead at 3, before w starts), z v3: 4.
struct Fragmenting {
  MFunction f;
  int x, y, z, w;
  Fragmenting() {
    x = f.NewVReg(RegClass::kVgpr, 1);
    y = f.NewVReg(RegClass::kVgpr, 1);
    z = f.NewVReg(RegClass::kVgpr, 1);
    w = f.NewVReg(RegClass::kVgpr, 2, 2);
    Add(f, Opc::kVMovB32, {V(x), MOperand::Imm(1)});
    Add(f, Opc::kVMovB32, {V(y), MOperand::Imm(2)});
    Add(f, Opc::kVMovB32, {V(z), MOperand::Imm(3)});
    Add(f, Opc::kVAddU32, {V(z), V(z), V(y)});
    Add(f, Opc::kVMovB32, {V(w, 0), MOperand::Imm(4)});
    Add(f, Opc::kVMovB32, {V(w, 1), MOperand::Imm(5)});
    Add(f, Opc::kVAddU32, {V(x), V(z), V(w, 0)});
    Add(f, Opc::kVAddU32, {V(x), V(x), V(w, 1)});
    Add(f, Opc::kSEndpgm, {});
  }
};

TEST(Regalloc, WidestFirstWhenFirstFitFragments) {
  Fragmenting k;
  absl::StatusOr<RegUsage> u = AllocateRegisters(**LookupTarget("gfx942"), k.f);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->vgprs, 4);
  EXPECT_EQ(k.f.insts[0].ops[0].reg, 2);  // x
  EXPECT_EQ(k.f.insts[1].ops[0].reg, 0);  // y
  EXPECT_EQ(k.f.insts[2].ops[0].reg, 3);  // z
  EXPECT_EQ(k.f.insts[4].ops[0].reg, 0);  // w
  EXPECT_EQ(k.f.insts[5].ops[0].reg, 1);  // w dword 1
}

// With 4 VGPRs first fit runs out (it needs 6) but the widest-first
// assignment fits; with 3 neither does (4 are live at once), and the error
// is first fit's, naming the class, the limit and the instruction.
TEST(Regalloc, WidestFirstFitsWhereFirstFitRunsOut) {
  TargetInfo t = **LookupTarget("gfx942");
  t.max_arch_vgprs = 4;
  Fragmenting fits;
  absl::StatusOr<RegUsage> u = AllocateRegisters(t, fits.f);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->vgprs, 4);
  t.max_arch_vgprs = 3;
  Fragmenting out;
  RegClass exhausted = RegClass::kSgpr;
  absl::StatusOr<RegUsage> r = AllocateRegisters(t, out.f, nullptr, &exhausted);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(exhausted, RegClass::kVgpr);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "out of VGPRs: the kernel needs more than the 3 VGPRs gfx942 has"))
      << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "live at instruction 4")) << r.status();
}

}  // namespace
}  // namespace kir
