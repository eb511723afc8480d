// gfx950's LDS DMA (buffer_load_dwordx4 ... lds, KIR lds_dma; issue 19): the
// verifier proves both sides of each DMA, the buffer read (as a buffer load)
// and the LDS write at LdsDmaAddress(M0, inst, lane) (compiler/isa/
// semantics.h) against KIR's L[base] + 16 * lane, with M0 executed
// symbolically (s_mov_b32 m0, SALU chains, v_readfirstlane_b32 of a
// wave-uniform tid.y, loop-carried). Mutations of the final code (M0 off by
// 16 bytes, the instruction offset, the voffset, M0 not updated per loop
// iteration) each fail with a confirmed counterexample naming the side.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/asm_syntax.h"
#include "gtest/gtest.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

using Status = AccessVerdict::Status;

// hw/run/run_test.cc's LdsDmaInALoopMatchesReferenceOnGfx950 kernel: M0
// changes per iteration (stage %k mod 2) around a hoisted readfirstlane.
constexpr char kLoop[] = R"(kernel dma_loop
target gfx950
workgroup 64 2 1
grid 2 1 1
arg A : f32[1024, 4] strides [4, 1] readonly
arg B : f32[256, 4] strides [4, 1] writeonly
lds L : f32[2, 128, 4]
  %z = zero f32x4
  %s = for %k = 0 to 4 iter(%acc = %z) {
    lds_dma L[%k mod 2, tid.y * 64, 0], A[%k * 256 + wg.x * 128 + tid.y * 64 + 63 - tid.x, 0] : f32x4
    barrier
    %v = load L[%k mod 2, 127 - tid.y * 64 - tid.x, 0] : f32x4
    %acc2 = add %acc, %v
    yield %acc2
  }
  store B[wg.x * 128 + tid.y * 64 + tid.x, 0], %s
end
)";

// compiler/api/compile_test.cc's straight-line lds_dma (no loop).
constexpr char kStraight[] = R"(kernel dma
target gfx950
workgroup 64 2 1
grid 2 1 1
arg A : f32[256, 4] strides [4, 1] readonly
arg B : f32[256, 4] strides [4, 1] writeonly
lds L : f32[128, 4]
  lds_dma L[tid.y * 64, 0], A[wg.x * 128 + tid.y * 64 + 63 - tid.x, 0] : f32x4
  barrier
  %v = load L[127 - tid.y * 64 - tid.x, 0] : f32x4
  store B[wg.x * 128 + tid.y * 64 + tid.x, 0], %v
end
)";

struct Subject {
  Compiled c;
  LoweredKernel code;
  std::string Text(size_t i) const { return InstructionText(*c.result.target, code.mir.insts[i]); }
  size_t Find(const std::string& needle) const {
    std::vector<size_t> hits;
    for (size_t i = 0; i < code.mir.insts.size(); ++i)
      if (absl::StrContains(Text(i), needle)) hits.push_back(i);
    EXPECT_EQ(hits.size(), 1u) << "instructions containing '" << needle << "'";
    return hits.empty() ? 0 : hits[0];
  }
  MInst& At(const std::string& needle) { return code.mir.insts[Find(needle)]; }
  VerifyResult Check() const { return Verify(c, &code); }
  std::string Asm() const {
    std::string s;
    for (size_t i = 0; i < code.mir.insts.size(); ++i) absl::StrAppend(&s, Text(i), "\n");
    return s;
  }
};

Subject Load(const char* text) {
  absl::StatusOr<Compiled> c = CompileKir(text, "gfx950");
  EXPECT_TRUE(c.ok()) << c.status();
  Subject s{std::move(*c), {}};
  s.code = s.c.result.lowered;
  return s;
}

// The verdicts of the DMA instruction: one per side.
const AccessVerdict* Side(const VerifyResult& r, const std::string& side) {
  for (const AccessVerdict& a : r.accesses)
    if (a.side == side) return &a;
  return nullptr;
}

TEST(LdsDma, TheLoopKernelProvesBothSides) {
  Subject s = Load(kLoop);
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
  const AccessVerdict* g = Side(v, "global");
  const AccessVerdict* l = Side(v, "LDS");
  ASSERT_NE(g, nullptr) << v.Report();
  ASSERT_NE(l, nullptr) << v.Report();
  EXPECT_EQ(g->inst_id, l->inst_id);
  EXPECT_TRUE(absl::StrContains(v.Report(), absl::StrCat("[", l->inst_id, " LDS]"))) << v.Report();
}

TEST(LdsDma, TheStraightLineKernelProvesBothSides) {
  Subject s = Load(kStraight);
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
  EXPECT_NE(Side(v, "LDS"), nullptr) << v.Report();
}

}  // namespace
}  // namespace kir::vfy::testing
