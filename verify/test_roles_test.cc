// The role finders of test_roles.h on kirc's copy_f32 (gfx942), whose address
// code is known from its KIR: the load's voffset is 16 * tid.x (a shift by 4
// of the thread's index) and its soffset 4096 * wg.x (256 threads of 16
// bytes), and on roles the code lacks: NotFound, so tests built on them fail
// loudly instead of passing vacuously.
#include "verify/test_roles.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "verify/test_util.h"

namespace kir::vfy::testing {
namespace {

TEST(TestRoles, FindsCopyF32sAddressCodeByRole) {
  absl::StatusOr<Compiled> c = CompileKir(ReadTestFile("testdata/kernels/copy_f32.kir"), "gfx942");
  ASSERT_TRUE(c.ok()) << c.status();
  const MFunction& f = c->result.lowered.mir;
  absl::StatusOr<size_t> load = FindInst(f, "buffer_load");
  ASSERT_TRUE(load.ok()) << load.status();
  absl::StatusOr<size_t> store = FindInst(f, "buffer_store");
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_LT(*load, *store);
  absl::StatusOr<size_t> shl = FindDef(f, *load, OpName::kVaddr);
  ASSERT_TRUE(shl.ok()) << shl.status();
  EXPECT_LT(*shl, *load);
  EXPECT_EQ(f.insts[*shl].opc, Opc::kVLshlrevB32);
  EXPECT_EQ(f.insts[*shl].ops[1].imm, 4);
  absl::StatusOr<size_t> sshl = FindDef(f, *load, OpName::kSoffset);
  ASSERT_TRUE(sshl.ok()) << sshl.status();
  EXPECT_EQ(f.insts[*sshl].opc, Opc::kSLshlB32);
  EXPECT_EQ(f.insts[*sshl].ops[2].imm, 12);
  // The store uses the load's address registers: the same voffset VGPR.
  absl::StatusOr<std::string> lv = RegName(f.insts[*load], OpName::kVaddr);
  absl::StatusOr<std::string> sv = RegName(f.insts[*store], OpName::kVaddr);
  absl::StatusOr<std::string> dv = RegName(f.insts[*shl], OpName::kVdst);
  ASSERT_TRUE(lv.ok() && sv.ok() && dv.ok());
  EXPECT_EQ(*lv, *dv);
  EXPECT_EQ(*sv, *dv);
  EXPECT_TRUE(absl::StartsWith(*dv, "v")) << *dv;
  // The loaded f32x4 is four VGPRs, listed one by one.
  absl::StatusOr<std::string> data = RegList(f.insts[*load], OpName::kVdata);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(std::count(data->begin(), data->end(), ','), 3) << *data;
  // num_records, dword 2 of the load's SRD: src is f32[8192], 32768 = 0x8000
  // bytes, written by one s_mov_b32; the SRD has no register 4.
  absl::StatusOr<size_t> records = FindDefOfPart(f, *load, OpName::kSrsrc, 2);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(f.insts[*records].opc, Opc::kSMovB32);
  EXPECT_EQ(f.insts[*records].ops[1].imm, 0x8000);
  EXPECT_EQ(FindDefOfPart(f, *load, OpName::kSrsrc, 4).status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::string> line = AsmLine(c->result.assembly, *c->result.target, f.insts[*shl]);
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_TRUE(absl::StartsWith(*line, "  v_lshlrev_b32 " + *dv + ", 4, ")) << *line;
}

// mma_loop_32x32x64_f16: %k steps by 16 f16 elements, 32 bytes, through the
// K-loop loads' soffset: its first write (before the loop) is not its last
// (the update after the loads, in the loop).
TEST(TestRoles, FindsTheLoopUpdateOfASoffset) {
  absl::StatusOr<Compiled> c = CompileKir(ReadTestFile("testdata/kernels/mma_loop_32x32x64_f16.kir"), "gfx942");
  ASSERT_TRUE(c.ok()) << c.status();
  const MFunction& f = c->result.lowered.mir;
  absl::StatusOr<size_t> load = FindInst(f, "buffer_load");
  ASSERT_TRUE(load.ok()) << load.status();
  absl::StatusOr<size_t> first = FindDef(f, *load, OpName::kSoffset);
  absl::StatusOr<size_t> last = FindLastDef(f, *load, OpName::kSoffset);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_LT(*first, *load);
  EXPECT_GT(*last, *load);
  EXPECT_EQ(f.insts[*last].opc, Opc::kSAddU32);
  EXPECT_EQ(f.insts[*last].ops[2].imm, 32);
}

TEST(TestRoles, AMissingRoleIsNotFound) {
  absl::StatusOr<Compiled> c = CompileKir(ReadTestFile("testdata/kernels/copy_f32.kir"), "gfx942");
  ASSERT_TRUE(c.ok()) << c.status();
  const MFunction& f = c->result.lowered.mir;
  absl::StatusOr<size_t> none = FindInst(f, "v_mfma");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(none.status().message(), "'v_mfma'")) << none.status();
  absl::StatusOr<size_t> second = FindInst(f, "buffer_load", 1);  // copy_f32 has one load
  EXPECT_EQ(second.status().code(), absl::StatusCode::kNotFound);
  // The first instruction's sources are kernel inputs: nothing before writes them.
  absl::StatusOr<size_t> smem = FindInst(f, "s_load_dwordx2");
  ASSERT_TRUE(smem.ok()) << smem.status();
  EXPECT_EQ(FindDef(f, *smem, OpName::kSbase).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(RegName(f.insts[*smem], OpName::kVaddr).status().code(), absl::StatusCode::kNotFound);
  MInst other = f.insts[*smem];
  other.ops[2].imm += 4096;  // an instruction the assembly does not hold
  EXPECT_EQ(AsmLine(c->result.assembly, *c->result.target, other).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kir::vfy::testing
