// The loop analyser against figures counted by hand: a small loop written as
// llvm-objdump prints it, and the default 1024^3 f16 GEMM of clang-22
// (testdata/baselines, issue 16's table and the README: 73 / 71 instructions
// per trip on gfx90a / gfx942 with 16 32x32x8 MFMAs, so 57 / 16 = 3.5625 and
// 55 / 16 = 3.4375 other instructions per 16 KFLOP; 8 ds_read2st64_b64 per
// trip, 8 x 16 bytes x 64 lanes = 8192 bytes for 16 x 16384 FLOP = 32 FLOP
// per LDS byte; a vmcnt(0) every trip) and of kirc.
#include "compiler/bench/loop_analysis.h"

#include <string>
#include <vector>

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

  // The bound on gfx942 (no notes: 1 wave per SIMD assumed): the MFMA's 4
  // passes are 16 cycles; 1 VALU is 4; issue 6 x 4 = 24; LDS 4 waves x 1024
  // bytes / 128 = 32 cycles, the limit, so the MFMA pipe is busy half the time.
  LoopAnalysis g = AnalyzeDisassembly(text, "k", "gfx942");
  EXPECT_EQ(g.loop_mfma_cycles, 16);
  EXPECT_EQ(g.loop_valu, 1);
  absl::StatusOr<ThroughputBound> b = ComputeThroughputBound(g, "gfx942");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->waves_per_simd, 1);
  EXPECT_DOUBLE_EQ(b->mfma_cycles, 16);
  EXPECT_DOUBLE_EQ(b->valu_cycles, 4);
  EXPECT_DOUBLE_EQ(b->issue_cycles, 24);
  EXPECT_DOUBLE_EQ(b->lds_cycles, 32);
  EXPECT_DOUBLE_EQ(b->bound_cycles, 32);
  EXPECT_EQ(b->limit, "LDS");
  EXPECT_DOUBLE_EQ(b->mfma_utilisation, 0.5);
  EXPECT_DOUBLE_EQ(b->flop_per_clock_per_cu, 4 * 8192 / 32.0);
  EXPECT_TRUE(b->complete);
  // The in-order model of one trip (steady state): the ds_read issues at
  // t0 (its 1024 bytes take 4 x 1024 / 128 = 32 cycles of the wave's LDS
  // share, done at t0 + 64 by latency), vmcnt(3) has nothing to wait for, the
  // MFMA (its pipe free since the last trip) and the VALU issue at t0 + 4 and
  // t0 + 8, lgkmcnt(0) waits until t0 + 64, the branch issues then: 68
  // cycles per trip, the MFMA 16 of them.
  EXPECT_DOUBLE_EQ(g.model_trip_cycles, 68);
  EXPECT_DOUBLE_EQ(g.model_mfma_busy, 16.0 / 68);
  // gfx90a: the same MFMA takes 8 passes, 32 cycles, and is the limit.
  absl::StatusOr<ThroughputBound> b90 = ComputeThroughputBound(AnalyzeDisassembly(text, "k", "gfx90a"), "gfx90a");
  ASSERT_TRUE(b90.ok()) << b90.status();
  EXPECT_DOUBLE_EQ(b90->bound_cycles, 32);
  EXPECT_EQ(b90->limit, "MFMA");
}

// Memory bytes per lane of each form, times 64 lanes: buffer_load_dwordx4 16,
// a dword DMA to LDS 4, global_load_ushort 2, global_store_dwordx2 8
// (stored), ds_write_b64 8 and ds_write2_b32 8 (LDS writes); an MFMA of a
// shape kirc's table lacks is counted in FLOP but its cycles are unknown.
TEST(LoopAnalysis, MemoryBytesAndUnknownMfmaCycles) {
  const std::string text =
      "	buffer_load_dwordx4 v[0:3], v8, s[4:7], 0 offen           // 000000000100: E05C1000 80010008\n"
      "	buffer_load_dword v8, s[4:7], 0 offen lds                  // 000000000108: E0511000 80010008\n"
      "	global_load_ushort v9, v[2:3], off                         // 000000000110: DC288000 097F0002\n"
      "	global_store_dwordx2 v[2:3], v[4:5], off                   // 000000000118: DC748000 007F0402\n"
      "	ds_write_b64 v8, v[4:5]                                    // 000000000120: D89A0000 00000408\n"
      "	ds_write2_b32 v8, v4, v5 offset1:1                         // 000000000128: D81C0100 00050408\n"
      "	v_mfma_f32_32x32x16_f16 v[0:15], v[0:3], v[0:3], v[0:15]   // 000000000130: D3D40000 04020100\n"
      "	s_cbranch_scc1 65521                                       // 000000000138: BF85FFF1\n";
  LoopAnalysis a = AnalyzeDisassembly(text, "k", "gfx942");
  ASSERT_TRUE(a.has_loop);
  EXPECT_EQ(a.loop_instructions, 8);
  EXPECT_EQ(a.loop_global_load_bytes, 64 * (16 + 4 + 2));
  EXPECT_EQ(a.loop_global_store_bytes, 64 * 8);
  EXPECT_EQ(a.loop_lds_write_bytes, 64 * (8 + 8));
  EXPECT_DOUBLE_EQ(a.loop_flop, 2.0 * 32 * 32 * 16);
  EXPECT_DOUBLE_EQ(a.global_bytes_per_flop, 64.0 * 22 / (2.0 * 32 * 32 * 16));
  EXPECT_EQ(a.unknown_mfma_cycles, std::vector<std::string>{"v_mfma_f32_32x32x16_f16"});
  absl::StatusOr<ThroughputBound> b = ComputeThroughputBound(a, "gfx942");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->complete);
  EXPECT_FALSE(ComputeThroughputBound(a, "gfx1100").ok());
  EXPECT_FALSE(ComputeThroughputBound(AnalyzeDisassembly("", "k"), "gfx942").ok());
  // 16- and 8-bit LDS writes (ds_write_b16, ds_write_b8): 2 and 1 bytes per lane.
  const std::string narrow =
      "\tds_write_b16 v8, v4                                        // 000000000100: D83C0000 00000408\n"
      "\tds_write_b8 v8, v4                                         // 000000000108: D83C0000 00000408\n"
      "\ts_cbranch_scc1 65531                                       // 000000000110: BF85FFFB\n";
  EXPECT_EQ(AnalyzeDisassembly(narrow, "k").loop_lds_write_bytes, 64 * (2 + 1));
}

// Multi-block MFMAs: FLOP = 2 x M x N x K x blocks, the blocks from vdst's
// registers (results per wave over M x N): 32x32x4 with 2 blocks (32
// registers) 16384, 4x4x4 with 16 blocks (4 registers) 2048, an f64
// 16x16x4 (8 registers = 4 f64 results per lane, one block) 2048. The f64
// MFMA is not in kirc's table: the bound is incomplete.
TEST(LoopAnalysis, MultiBlockMfmaFlop) {
  const std::string text =
      "\tv_mfma_f32_32x32x4_2b_f16 a[0:31], v[0:1], v[2:3], a[0:31]   // 000000000100: D3E90000 04020500\n"
      "\tv_mfma_f32_4x4x4_16b_f16 a[32:35], v[0:1], v[2:3], a[32:35]  // 000000000108: D3EA0020 04820500\n"
      "\tv_mfma_f64_16x16x4_f64 v[8:15], v[0:1], v[2:3], v[8:15]     // 000000000110: D3EE0008 04220500\n"
      "\ts_cbranch_scc1 65529                                        // 000000000118: BF85FFF9\n";
  LoopAnalysis a = AnalyzeDisassembly(text, "k", "gfx90a");
  ASSERT_TRUE(a.has_loop);
  EXPECT_EQ(a.loop_mfma, 3);
  EXPECT_DOUBLE_EQ(a.loop_flop, 16384 + 2048 + 2048);
  absl::StatusOr<ThroughputBound> b = ComputeThroughputBound(a, "gfx90a");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->complete);
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
      // The object's EF_AMDGPU_MACH must be the processor's.
      absl::StatusOr<LoopAnalysis> wrong = AnalyzeKernelObject(*bytes, "gfx908", "gemm_f16_1024");
      ASSERT_FALSE(wrong.ok());
      EXPECT_NE(wrong.status().message().find(absl::StrCat("the object is for ", t)), std::string::npos)
          << wrong.status();
      EXPECT_FALSE(AnalyzeKernelObject(*bytes, "gfx1100", "gemm_f16_1024").ok());
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
      // Per trip and wave: a 128 x 32 f16 tile of A and of B (16 KiB) is
      // copied by 4 waves, 4 KiB each per K tile, and written to LDS.
      EXPECT_EQ(a->loop_global_load_bytes, tiles * 4096);
      EXPECT_EQ(a->loop_lds_write_bytes, tiles * 4096);
      EXPECT_EQ(a->workgroup_threads, 256);
      // Two workgroups of 32 KiB LDS per CU: 8 waves, 2 per SIMD.
      EXPECT_EQ(a->waves_per_simd, 2);
      absl::StatusOr<ThroughputBound> b = ComputeThroughputBound(*a, t);
      ASSERT_TRUE(b.ok()) << b.status();
      // 2 waves x 16 x tiles MFMAs of 16 (gfx90a) or 8 (gfx942) passes.
      const int mfma_cycles = std::string(t) == "gfx90a" ? 64 : 32;
      EXPECT_DOUBLE_EQ(b->mfma_cycles, 2.0 * 16 * tiles * mfma_cycles);
      EXPECT_DOUBLE_EQ(b->lds_cycles, 8.0 * tiles * (8192 + 4096) / 128);
      EXPECT_EQ(b->limit, "MFMA");
      // At the MFMA limit a CU does the part's published dense f16 peak per
      // CU and clock: MI250X 383 TF / (220 CUs x 1.7 GHz) = 1024, MI300X
      // 1307.4 TF / (304 x 2.1 GHz) = 2048.
      EXPECT_DOUBLE_EQ(b->flop_per_clock_per_cu, std::string(t) == "gfx90a" ? 1024 : 2048);
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
        // The throughput bound: one wave per SIMD (64 KiB of LDS per
        // workgroup); 128 MFMAs of 16 (gfx90a) or 8 (gfx942) passes; LDS 4
        // waves x (32 KiB read + 16 KiB written: each wave copies a quarter
        // of 2 K tiles of 256 x 32 f16 of A and of B) / 128 bytes = 1536
        // cycles; MFMA is the limit; the loads are a quarter of 2 tiles, 16
        // KiB per wave, so 4 x 16 KiB / 4096 cycles = 16 bytes per clock per
        // CU on gfx942 (issue 16: "about 16 B/clk/CU unless L2 serves it").
        EXPECT_EQ(a->waves_per_simd, 1);
        // The descriptor allocates the unified file, arch VGPRs then the 256
        // AGPRs from accum_offset (a multiple of 4), as the notes count it.
        EXPECT_EQ(a->descriptor_accum_offset % 4, 0);
        EXPECT_EQ(a->descriptor_accum_offset + 256, a->vgprs);
        EXPECT_EQ(a->descriptor_vgprs, (a->vgprs + 7) / 8 * 8);
        absl::StatusOr<ThroughputBound> b = ComputeThroughputBound(*a, t);
        ASSERT_TRUE(b.ok()) << b.status();
        const bool cdna2 = std::string(t) == "gfx90a";
        EXPECT_DOUBLE_EQ(b->mfma_cycles, 128 * (cdna2 ? 64 : 32));
        EXPECT_DOUBLE_EQ(b->lds_cycles, 4.0 * (32768 + 16384) / 128);
        EXPECT_EQ(b->limit, "MFMA");
        EXPECT_DOUBLE_EQ(b->mfma_utilisation, 1.0);
        EXPECT_DOUBLE_EQ(b->global_bytes_per_clock_per_cu, cdna2 ? 8 : 16);
      }
}

}  // namespace
}  // namespace kir
