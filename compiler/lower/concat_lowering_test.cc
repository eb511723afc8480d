// concat's lowering (LowerCtx::LowerConcat): operands in VGPR tuples of their
// own become the halves of the result's tuple, with no instruction; an
// operand that cannot (used twice, a zero) is copied with v_mov_b32.
#include <string>

#include "compiler/ir/parser.h"
#include "compiler/isa/instr.h"
#include "compiler/lower/lower.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

constexpr char kHead[] = R"(kernel cat
workgroup 64 1 1
grid 1 1 1
arg X : f16[64, 8] strides [8, 1] readonly
arg Y : f16[64, 8] strides [8, 1] writeonly
  %a = load X[tid.x, 0] : f16x4
  %b = load X[tid.x, 4] : f16x4
)";

// The lowered kernel of kHead + `body` on gfx942 and the index of the
// concat (the third op) in its op list.
LoweredKernel Lower(const std::string& body) {
  absl::StatusOr<Kernel> k = ParseKernel(std::string(kHead) + body + "  store Y[tid.x, 0], %c\nend\n", "c.kir");
  EXPECT_TRUE(k.ok()) << k.status();
  absl::StatusOr<LoweredKernel> l = LowerKernel(*k, **LookupTarget("gfx942"));
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? *std::move(l) : LoweredKernel{};
}

int InstsOfOp(const LoweredKernel& l, int op) {
  int n = 0;
  for (const MInst& mi : l.mir.insts) n += mi.kir_op == op;
  return n;
}

TEST(ConcatLowering, OwnTuplesBecomeTheHalvesWithoutInstructions) {
  LoweredKernel l = Lower("  %c = concat %b, %a : f16x8\n");
  EXPECT_EQ(InstsOfOp(l, 2), 0);
  // The loads' destinations: %b's is registers 0..1 of a 4-register tuple,
  // %a's registers 2..3 of the same one.
  int dst[2] = {-1, -1}, n = 0;
  for (const MInst& mi : l.mir.insts)
    if ((mi.kir_op == 0 || mi.kir_op == 1) && Info(mi.opc).cls == InstClass::kVmemLoad) dst[mi.kir_op] = mi.ops[0].reg, ++n;
  ASSERT_EQ(n, 2);
  auto [root_a, off_a] = l.mir.Root(dst[0]);
  auto [root_b, off_b] = l.mir.Root(dst[1]);
  EXPECT_EQ(root_a, root_b);
  EXPECT_EQ(off_b, 0);
  EXPECT_EQ(off_a, 2);
  EXPECT_EQ(l.mir.vregs[root_a].count, 4);
}

TEST(ConcatLowering, AnOperandTwiceIsCopiedOnce) {
  // The first half becomes a view; the second (the same registers) is copied.
  LoweredKernel l = Lower("  %c = concat %a, %a : f16x8\n");
  int movs = 0;
  for (const MInst& mi : l.mir.insts) movs += mi.kir_op == 2 && mi.opc == Opc::kVMovB32;
  EXPECT_EQ(movs, 2);
  EXPECT_EQ(InstsOfOp(l, 2), 2);
}

}  // namespace
}  // namespace kir
