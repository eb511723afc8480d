#include "compiler/promote/bank_conflicts.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "compiler/ir/parser.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

// Lane l at byte address base + stride * l.
std::vector<int64_t> Strided(int64_t stride, int64_t base = 0) {
  std::vector<int64_t> a(64);
  for (int l = 0; l < 64; ++l) a[l] = base + stride * l;
  return a;
}

TEST(BankConflicts, LanesPerCycle) {
  EXPECT_EQ(LdsLanesPerCycle(2, 32), 32);
  EXPECT_EQ(LdsLanesPerCycle(4, 32), 32);
  EXPECT_EQ(LdsLanesPerCycle(8, 32), 16);
  EXPECT_EQ(LdsLanesPerCycle(16, 32), 8);
}

// Counts worked out by hand; the comment under each says how.
TEST(BankConflicts, HandComputed) {
  // b32, consecutive dwords: each 32-lane group hits banks 0..31 once.
  EXPECT_EQ(BankConflicts(Strided(4), 4, 32), 0);
  // b32, every other dword: group 0 touches dwords 0, 2, .., 62, so each even
  // bank holds two distinct dwords (d and d + 32): 2 cycles, 1 extra; same
  // for group 1: 2.
  EXPECT_EQ(BankConflicts(Strided(8), 4, 32), 2);
  EXPECT_EQ(LdsCycles(Strided(8), 4, 32), 4);
  // b32, one address for all lanes: a broadcast, no conflict.
  EXPECT_EQ(BankConflicts(std::vector<int64_t>(64, 40), 4, 32), 0);
  // b32, a stride of 32 dwords: all 32 lanes of a group in bank 0 with 32
  // different dwords: 31 extra cycles per group, 62.
  EXPECT_EQ(BankConflicts(Strided(128), 4, 32), 62);
  // b64, consecutive: a 16-lane group covers dwords 0..31 exactly.
  EXPECT_EQ(BankConflicts(Strided(8), 8, 32), 0);
  // b64 with a 16-byte stride: a group touches dwords {4l, 4l+1}, l < 16, i.e.
  // banks {0,1,4,5,..,28,29} twice each: 1 extra per group, 4 groups: 4.
  EXPECT_EQ(BankConflicts(Strided(16), 8, 32), 4);
  // b128, consecutive: an 8-lane group covers dwords 0..31.
  EXPECT_EQ(BankConflicts(Strided(16), 16, 32), 0);
  // b128 with a 32-byte stride: lanes cover dwords 8l..8l+3, l < 8, so banks
  // 0-3, 8-11, 16-19, 24-27 twice: 1 extra per group, 8 groups: 8.
  EXPECT_EQ(BankConflicts(Strided(32), 16, 32), 8);
  // b16, consecutive halves: two lanes share each dword, 16 dwords per group.
  EXPECT_EQ(BankConflicts(Strided(2), 2, 32), 0);
  // b16 down a column of a 36-element f16 row pitch (72 bytes = 18 dwords):
  // lane l touches dword 18l; 18l mod 32 repeats every 16 lanes, so each bank
  // of a 32-lane group holds 2 dwords: 1 extra per group, 2.
  EXPECT_EQ(BankConflicts(Strided(72), 2, 32), 2);
  // A misaligned b64 (4 bytes into a dword pair) still touches 2 dwords: lanes
  // at 8l + 4 cover dwords 1..32, where dword 32 shares bank 0 with nothing
  // else in the group: 0.
  EXPECT_EQ(BankConflicts(Strided(8, 4), 8, 32), 0);
}

TEST(BankConflicts, InactiveLanes) {
  // Only lanes 0 and 1 active, 32 dwords apart (same bank): 1 extra cycle; the
  // second group has no active lane and costs nothing.
  std::vector<int64_t> a(64, -1);
  a[0] = 0;
  a[1] = 128;
  EXPECT_EQ(BankConflicts(a, 4, 32), 1);
  EXPECT_EQ(LdsCycles(a, 4, 32), 2);
  EXPECT_EQ(LdsCycles(std::vector<int64_t>(64, -1), 4, 32), 0);
}

constexpr char kMma[] = R"(kernel mma
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg C : f32[16, 16] strides [16, 1] writeonly
lds As : f16[16, 16] pad PAD
lds Bs : f16[16, 16] pad PAD
  %ga = load A[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4
  %gb = load B[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4
  store As[tid.x floordiv 4, tid.x mod 4 * 4], %ga
  store Bs[tid.x floordiv 4, tid.x mod 4 * 4], %gb
  barrier
  %a = load As[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %b = load Bs[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %zero = zero f32x4
  %d = mfma f32_16x16x16_f16 %a, %b, %zero
  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d
end
)";

KernelLdsTraffic Traffic(const std::string& pad) {
  absl::StatusOr<Kernel> k = ParseKernel(absl::StrReplaceAll(kMma, {{"PAD", pad}}));
  EXPECT_TRUE(k.ok()) << k.status();
  absl::StatusOr<KernelLdsTraffic> t = CountLdsTraffic(*k, **LookupTarget("gfx942"));
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// The testdata MFMA kernel, from its index expressions.
TEST(LdsTraffic, MmaKernelPadding) {
  // Pad 4 (row pitch 10 dwords): the fragment reads (b64; a 16-lane group
  // reads rows 0..15 at one k, dwords 10r + {0,1}, all distinct banks) are
  // conflict-free. The copy's b64 stores: a group writes rows 0..3, dwords
  // 10r .. 10r+7, and row 3 (30..37) wraps onto banks 0..5 of row 0: 1 extra
  // cycle per group, 4 groups per store, 2 stores: 8.
  KernelLdsTraffic p4 = Traffic("4");
  EXPECT_EQ(p4.reads.instructions, 2);
  EXPECT_EQ(p4.reads.conflicts, 0);
  EXPECT_EQ(p4.reads.cycles, 8);
  EXPECT_EQ(p4.writes.instructions, 2);
  EXPECT_EQ(p4.writes.conflicts, 8);
  EXPECT_EQ(p4.reads_by_alloc["As"].conflicts, 0);
  // Pad 0 (pitch 8 dwords): a read group's rows r and r+4 share banks, so
  // each bank holds 4 distinct dwords: 3 extra per group, 4 groups, 2 reads:
  // 24. The stores then cover 32 consecutive dwords per group: 0.
  KernelLdsTraffic p0 = Traffic("0");
  EXPECT_EQ(p0.reads.conflicts, 24);
  EXPECT_EQ(p0.writes.conflicts, 0);
}

TEST(LdsTraffic, StridedVectorsAreOneInstructionPerElement) {
  absl::StatusOr<Kernel> k = ParseKernel(R"(kernel t
workgroup 64 1 1
grid 1 1 1
lds L : f16[64, 36]
  %z = zero f16x4
  store L[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %z
end
)");
  ASSERT_TRUE(k.ok()) << k.status();
  absl::StatusOr<KernelLdsTraffic> t = CountLdsTraffic(*k, **LookupTarget("gfx942"));
  ASSERT_TRUE(t.ok()) << t.status();
  // 4 ds_write_b16, each: 32 lanes of a group in one row, consecutive halves
  // (16 dwords): conflict-free.
  EXPECT_EQ(t->writes.instructions, 4);
  EXPECT_EQ(t->writes.conflicts, 0);
  EXPECT_EQ(t->writes.cycles, 8);
}

// The bank count is the target's (TargetInfo::lds_banks): 32 on gfx942, 64
// on gfx950, and a layout's conflicts depend on it. Group sizes: 32 banks
// serve 32 b32 lanes per cycle (two groups per wave), 64 banks serve all 64.
TEST(BankConflicts, BankCountIsTheTargets) {
  EXPECT_EQ((*LookupTarget("gfx942"))->lds_banks, 32);
  EXPECT_EQ((*LookupTarget("gfx950"))->lds_banks, 64);
  EXPECT_EQ(LdsLanesPerCycle(2, 64), 64);
  EXPECT_EQ(LdsLanesPerCycle(4, 64), 64);
  EXPECT_EQ(LdsLanesPerCycle(8, 64), 32);
  EXPECT_EQ(LdsLanesPerCycle(16, 64), 16);

  // Layout 1, ds_read_b32 of two 32-float rows with a 256-byte row pitch:
  // lane l reads dword (l % 32) + 64 * (l / 32).
  //   32 banks: group lanes 0..31 reads dwords 0..31 (banks 0..31, one each),
  //     group 32..63 reads dwords 64..95 (banks 0..31, one each): 1 cycle per
  //     group, 0 extra cycles.
  //   64 banks: one group of 64 lanes; dwords 0..31 use banks 0..31 and
  //     dwords 64..95 use banks 0..31 again, two distinct dwords per bank:
  //     2 cycles, 1 extra.
  std::vector<int64_t> rows(64);
  for (int l = 0; l < 64; ++l) rows[l] = 4 * ((l % 32) + 64 * (l / 32));
  EXPECT_EQ(BankConflicts(rows, 4, 32), 0);
  EXPECT_EQ(BankConflicts(rows, 4, 64), 1);
  EXPECT_EQ(LdsCycles(rows, 4, 64), 2);

  // Layout 2: lane l reads dword (l % 16) + 32 * ((l / 16) % 2) + 16 * (l / 32),
  // i.e. lanes 0..15 -> dwords 0..15, 16..31 -> 32..47, 32..47 -> 16..31,
  // 48..63 -> 48..63.
  //   32 banks: group 0..31 touches banks 0..15 twice (dwords d and d + 32):
  //     2 cycles; group 32..63 banks 16..31 twice (16..31 and 48..63): 2
  //     cycles; 4 cycles for 2 groups, 2 extra.
  //   64 banks: the 64 lanes touch dwords 0..63 once each, one per bank: 1
  //     cycle, 0 extra.
  std::vector<int64_t> halves(64);
  for (int l = 0; l < 64; ++l) halves[l] = 4 * ((l % 16) + 32 * ((l / 16) % 2) + 16 * (l / 32));
  EXPECT_EQ(BankConflicts(halves, 4, 32), 2);
  EXPECT_EQ(LdsCycles(halves, 4, 32), 4);
  EXPECT_EQ(BankConflicts(halves, 4, 64), 0);
  EXPECT_EQ(LdsCycles(halves, 4, 64), 1);
}

// The same through a kernel (LdsOpTraffic from index expressions): a
// workgroup of one wave reads L[tid.x floordiv 32, tid.x mod 32] from
// f32[2, 64] (row pitch 64 floats = 256 bytes): layout 1 above, conflict-free
// on gfx942 (0) and 1 extra cycle on gfx950.
TEST(LdsTraffic, BankCountFromTheTarget) {
  absl::StatusOr<Kernel> k = ParseKernel(R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg Y : f32[64] strides [1] writeonly
lds L : f32[2, 64]
  %v = load L[tid.x floordiv 32, tid.x mod 32] : f32
  store Y[tid.x], %v
end
)");
  ASSERT_TRUE(k.ok()) << k.status();
  absl::StatusOr<KernelLdsTraffic> g942 = CountLdsTraffic(*k, **LookupTarget("gfx942"));
  absl::StatusOr<KernelLdsTraffic> g950 = CountLdsTraffic(*k, **LookupTarget("gfx950"));
  ASSERT_TRUE(g942.ok()) << g942.status();
  ASSERT_TRUE(g950.ok()) << g950.status();
  EXPECT_EQ(g942->reads.instructions, 1);
  EXPECT_EQ(g942->reads.conflicts, 0);
  EXPECT_EQ(g942->reads.cycles, 2);
  EXPECT_EQ(g950->reads.instructions, 1);
  EXPECT_EQ(g950->reads.conflicts, 1);
  EXPECT_EQ(g950->reads.cycles, 2);
  // A bank count the model does not cover is an error, not a crash.
  Op rd;
  for (const Op& op : k->body)
    if (op.kind == OpKind::kLoad) rd = op;
  EXPECT_FALSE(LdsOpTraffic(*k, rd, {ElemType::kF32, 1}, {}, 0).ok());
  EXPECT_FALSE(LdsOpTraffic(*k, rd, {ElemType::kF32, 1}, {}, 128).ok());
}

// gfx950's fp8 DMA layout (issue 19): one wave reads 32x32x64 f8f6f4
// fragments (lane l: row r = l mod 32, 32 bytes from k = 32 (l floordiv 32))
// of an unpadded f8e4m3fn[64, 64] tile (64-byte rows: 4 rows fill the 64
// banks' 256 bytes), rows rotated by r floordiv 4. Worked by hand, with
// "slot" the 16-byte bank group (address / 16) mod 16 and 16 lanes per
// cycle for 16 bytes per lane:
//   Whole fragments in 32-byte units: unit (l floordiv 32 + r floordiv 4)
//   mod 2 at byte 64 r + 32 u; the load is two ds_read_b128 (halves h = 0,
//   1 at + 16 h), so a lane's slot is 4 (r mod 4) + 2 u + h: a group's 16
//   rows share h and reach only the 8 slots of that parity, two distinct
//   dwords per bank: 2 cycles for each of the 4 groups of each of the 2
//   instructions: 16 cycles, 8 extra.
//   Split into 16-byte pieces p, each in its own 16-byte unit (2 (l floordiv
//   32) + p + r floordiv 4) mod 4: slot 4 (r mod 4) + (2 c + p + r floordiv
//   4) mod 4, and a group's 16 consecutive rows r0 .. r0 + 15 (r0 a multiple
//   of 16) give 16 distinct slots (r mod 4 and r floordiv 4 mod 4 run
//   through all pairs): 1 cycle a group, 2 loads x 4 groups = 8 cycles, 0
//   extra.
TEST(LdsTraffic, Fp8FragmentPiecesOnTheDmaLayout) {
  const char* whole = R"(kernel t
target gfx950
workgroup 64 1 1
grid 1 1 1
lds L : f8e4m3fn[64, 64]
  %v = load L[tid.x mod 32, (tid.x floordiv 32 + (tid.x mod 32) floordiv 4) mod 2 * 32] : f8e4m3fnx32
end
)";
  const char* split = R"(kernel t
target gfx950
workgroup 64 1 1
grid 1 1 1
lds L : f8e4m3fn[64, 64]
  %lo = load L[tid.x mod 32, (tid.x floordiv 32 * 2 + (tid.x mod 32) floordiv 4) mod 4 * 16] : f8e4m3fnx16
  %hi = load L[tid.x mod 32, (tid.x floordiv 32 * 2 + 1 + (tid.x mod 32) floordiv 4) mod 4 * 16] : f8e4m3fnx16
  %v = concat %lo, %hi : f8e4m3fnx32
end
)";
  const TargetInfo& t = **LookupTarget("gfx950");
  absl::StatusOr<Kernel> kw = ParseKernel(whole);
  absl::StatusOr<Kernel> ks = ParseKernel(split);
  ASSERT_TRUE(kw.ok()) << kw.status();
  ASSERT_TRUE(ks.ok()) << ks.status();
  absl::StatusOr<KernelLdsTraffic> w = CountLdsTraffic(*kw, t);
  absl::StatusOr<KernelLdsTraffic> p = CountLdsTraffic(*ks, t);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(w->reads.instructions, 2);
  EXPECT_EQ(w->reads.cycles, 16);
  EXPECT_EQ(w->reads.conflicts, 8);
  EXPECT_EQ(p->reads.instructions, 2);
  EXPECT_EQ(p->reads.cycles, 8);
  EXPECT_EQ(p->reads.conflicts, 0);
}

}  // namespace
}  // namespace kir
