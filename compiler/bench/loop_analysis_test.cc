// The loop analyser against figures counted by hand: a small loop written as
// llvm-objdump prints it, and the default 1024^3 f16 GEMM of clang-22
// (testdata/baselines, issue 16's table and the README: 73 / 71 instructions
// per trip on gfx90a / gfx942 with 16 32x32x8 MFMAs, so 57 / 16 = 3.5625 and
// 55 / 16 = 3.4375 other instructions per 16 KFLOP; 8 ds_read2st64_b64 per
// trip, 8 x 16 bytes x 64 lanes = 8192 bytes for 16 x 16384 FLOP = 32 FLOP
// per LDS byte; a vmcnt(0) every trip) and of kirc.
#include "compiler/bench/loop_analysis.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/object/toolchain.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

// A loop of two 16x16x16 MFMAs (2 x 8192 FLOP), one ds_read_b128 (16 bytes x
// 64 lanes), a VALU, two waits (vmcnt 3 and lgkmcnt only) and the branch back
// (simm16 -8 dwords: from 0x11c + 4 back to 0x100).
TEST(LoopAnalysis, HandCountedLoop) {
  const std::string text =
      "\ts_mov_b32 s0, 0                                           // 0000000000F8: BE800080\n"
      "\ts_nop 0                                                    // 0000000000FC: BF800000\n"
      "\tds_read_b128 v[0:3], v8                                    // 000000000100: D9FE0000 00000008\n"
      "\ts_waitcnt vmcnt(3)                                         // 000000000108: BF8C0F73\n"
      "\tv_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], v[4:7]     // 00000000010C: D3CD0004 04120500\n"
      "\tv_add_u32_e32 v8, 16, v8                                   // 000000000114: 68101090\n"
      "\ts_waitcnt lgkmcnt(0)                                       // 000000000118: BF8CC07F\n"
      "\ts_cbranch_scc1 65528                                       // 00000000011C: BF85FFF8\n"
      "\tv_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], v[4:7]     // 000000000120: D3CD0004 04120500\n"
      "\ts_endpgm                                                   // 000000000128: BF810000\n";
  LoopAnalysis a = AnalyzeDisassembly(text, "k");
  EXPECT_EQ(a.total_instructions, 10);
  ASSERT_TRUE(a.has_loop);
  EXPECT_EQ(a.loop_first_addr, 0x100u);
  EXPECT_EQ(a.loop_last_addr, 0x11cu);
  EXPECT_EQ(a.loop_instructions, 6);
  EXPECT_EQ(a.loop_mfma, 1);
  EXPECT_DOUBLE_EQ(a.loop_flop, 8192);
  EXPECT_DOUBLE_EQ(a.other_per_16kflop, 5 / 0.5);
  EXPECT_EQ(a.loop_lds_read_bytes, 1024);
  EXPECT_DOUBLE_EQ(a.flop_per_lds_byte, 8);
  EXPECT_EQ(a.smallest_vmcnt, 3);
  EXPECT_EQ(a.loop_by_class.at("waitcnt"), 2);
}

TEST(LoopAnalysis, DefaultGemmOfClangAndKirc) {
  for (const char* t : {"gfx90a", "gfx942"}) {
    SCOPED_TRACE(t);
    for (const std::string& path : {absl::StrCat("testdata/baselines/gemm_f16_1024.", t, ".hsaco"),
                                    absl::StrCat("testdata/gemm_f16_1024_", t, ".hsaco")}) {
      SCOPED_TRACE(path);
      absl::StatusOr<std::string> bytes = ReadFileBytes(path);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      absl::StatusOr<LoopAnalysis> a = AnalyzeKernelObject(*bytes, t, "gemm_f16_1024");
      ASSERT_TRUE(a.ok()) << a.status();
      ASSERT_TRUE(a->has_loop);
      // Per K tile of 32 and wave: 2 x 2 32x32x8 MFMA tiles x 4 k-steps = 16
      // MFMAs reading 2 x 4 A and 2 x 4 B fragments of 64 lanes x 8 bytes =
      // 8192 bytes. clang's loop holds one K tile; kirc's, unrolled by two
      // (constant LDS stages), two.
      const int tiles = absl::StrContains(path, "baselines") ? 1 : 2;
      EXPECT_EQ(a->loop_mfma, 16 * tiles);
      EXPECT_DOUBLE_EQ(a->loop_flop, tiles * 16 * 2.0 * 32 * 32 * 8);
      EXPECT_EQ(a->loop_lds_read_bytes, tiles * 8192);
      EXPECT_DOUBLE_EQ(a->flop_per_lds_byte, 32);
      // clang drains the loads every trip; kirc's loop waits only for the
      // older tile's: the newer tile's 2 + 2 dwordx4 copies per lane (128 x
      // 32 f16 of A and of B over 256 lanes) stay in flight.
      EXPECT_EQ(a->smallest_vmcnt, tiles == 1 ? 0 : 4);
      EXPECT_EQ(a->lds_bytes, 32768);
      EXPECT_TRUE(a->unknown_mfmas.empty());
      if (absl::StrContains(path, "baselines")) {
        EXPECT_DOUBLE_EQ(a->other_per_16kflop, std::string(t) == "gfx90a" ? 57.0 / 16 : 55.0 / 16);
        EXPECT_EQ(a->vgprs, 192);
      }
    }
  }
}


// Issue 16's measured goal for the default large GEMMs (tile 256x256x32 waves
// 2x2: each wave 128 x 128, 32x32x8 MFMAs), f16 and bf16 at 4096^3 and 8192^3
// on gfx90a and gfx942. Counted by hand: a trip is two K tiles of 32, each 4
// x 4 MFMA tiles x 4 k-steps = 64 MFMAs (2 x 32 x 32 x 8 = 16 KFLOP each);
// a wave reads 4 A and 4 B fragments of 64 lanes x 8 bytes per k-step, so
// 16 KFLOP x 16 per 4 x 8 x 512 bytes = 64 FLOP per LDS byte (Wm Wn / (Wm +
// Wn) = 128 x 128 / 256); each lane copies 256 x 32 / 256 = 32 elements of A
// and of B per tile, 4 + 4 dwordx4 loads, and the loop waits only for the
// older tile's: vmcnt(8). The goal: at most 1.0 other instructions per 16
// KFLOP, no vmcnt(0).
TEST(LoopAnalysis, LargeDefaultGemmsMeetIssue16Goals) {
  for (const char* e : {"f16", "bf16"})
    for (int n : {4096, 8192})
      for (const char* t : {"gfx90a", "gfx942"}) {
        const std::string name = absl::StrCat("gemm_", e, "_", n);
        const std::string path = absl::StrCat("compiler/bench/", name, "_", t, ".hsaco");
        SCOPED_TRACE(path);
        absl::StatusOr<std::string> bytes = ReadFileBytes(path);
        ASSERT_TRUE(bytes.ok()) << bytes.status();
        absl::StatusOr<LoopAnalysis> a = AnalyzeKernelObject(*bytes, t, name);
        ASSERT_TRUE(a.ok()) << a.status();
        ASSERT_TRUE(a->has_loop);
        EXPECT_EQ(a->loop_mfma, 128);
        EXPECT_DOUBLE_EQ(a->loop_flop, 128 * 2.0 * 32 * 32 * 8);
        EXPECT_EQ(a->loop_lds_read_bytes, 2 * 4 * 8 * 64 * 8);
        EXPECT_DOUBLE_EQ(a->flop_per_lds_byte, 64);
        EXPECT_EQ(a->smallest_vmcnt, 8);
        EXPECT_LE(a->other_per_16kflop, 1.0);
        EXPECT_EQ(a->lds_bytes, 65536);
        EXPECT_EQ(a->agprs, 256);
      }
}

}  // namespace
}  // namespace kir
