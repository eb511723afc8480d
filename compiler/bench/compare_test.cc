// The comparison on one kernel (copy_f32 on gfx942): it runs, both compilers'
// figures are there, and both outputs match the KIR reference and each other.
#include "compiler/bench/compare.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace kir::bench {
namespace {

TEST(CompareTest, CopyF32Gfx942) {
  absl::StatusOr<std::vector<std::string>> flags = ReadClangFlags("compiler/bench/clang_flags.txt");
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_NE(std::find(flags->begin(), flags->end(), "-O3"), flags->end());
  CompareOptions o;
  o.clang_flags = *flags;
  o.inproc_runs = 3;
  o.process_runs = 1;
  absl::StatusOr<CompareResult> r = CompareKernel(o, "copy_f32", "gfx942");
  ASSERT_TRUE(r.ok()) << r.status();
  for (const SideResult* s : {&r->kirc, &r->clang}) {
    EXPECT_GT(s->process_ms, 0);
    EXPECT_GT(s->static_total, 0);
    EXPECT_EQ(s->static_by_class.at("vmem"), 2);  // one 16-byte load, one store
    EXPECT_GT(s->vgprs, 0);
    EXPECT_GT(s->sgprs, 0);
    EXPECT_EQ(s->lds_bytes, 0);
    EXPECT_GT(s->occupancy, 0);
    EXPECT_EQ(s->waves, 32);  // 8 workgroups of 4 waves
    EXPECT_EQ(s->dynamic_by_class.at("vmem"), 2 * 32);
    EXPECT_TRUE(s->matches_reference) << s->reference_report;
    EXPECT_EQ(s->max_abs_err, 0);
  }
  EXPECT_GT(r->kirc_inproc_ms, 0);
  EXPECT_TRUE(r->outputs_agree);
  EXPECT_EQ(r->max_abs_diff, 0);
  std::vector<CompareResult> rows = {*r};
  std::string table = FormatTable(rows);
  EXPECT_NE(table.find("copy_f32"), std::string::npos);
  std::string json = ToJson(rows, "machine", o);
  EXPECT_NE(json.find("\"process_compile_ratio\""), std::string::npos);
  std::string svg = ToSvg(rows, "machine");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

// The K loop in clang's code: gemm_f16_1024 keeps its 32 K tiles in a rolled
// loop whose body issues one tile's MFMAs per wave (4 k-steps of 2 x 2
// 32x32x8 MFMAs); gemm_f16_256x256x256's 8 tiles are unrolled: all 8 x 16
// MFMAs in straight-line code, no loop.
TEST(CompareTest, ClangKLoopOfTheDefaultGemm) {
  for (const char* t : {"gfx90a", "gfx942"}) {
    SCOPED_TRACE(t);
    absl::StatusOr<StaticCode> rolled = DisassembleKernel(
        "/usr/lib/llvm-22/bin", std::string("testdata/baselines/gemm_f16_1024.") + t + ".hsaco", t, "gemm_f16_1024");
    ASSERT_TRUE(rolled.ok()) << rolled.status();
    EXPECT_EQ(rolled->loop_mfma, 16);
    EXPECT_GT(rolled->loop_total, 16 + 8);  // + the next tile's 4 loads and 8 LDS stores at least
    EXPECT_EQ(rolled->by_class.at("mfma"), 32);  // the loop's and the peeled last tile's
    absl::StatusOr<StaticCode> unrolled =
        DisassembleKernel("/usr/lib/llvm-22/bin", std::string("testdata/baselines/gemm_f16_256x256x256.") + t + ".hsaco",
                          t, "gemm_f16_256x256x256");
    ASSERT_TRUE(unrolled.ok()) << unrolled.status();
    EXPECT_EQ(unrolled->loop_total, 0);
    EXPECT_EQ(unrolled->loop_mfma, 0);
    EXPECT_EQ(unrolled->by_class.at("mfma"), 8 * 16);
  }
}

// On gfx950 clang-22 unrolls all 32 K tiles of gemm_f16_1024 (8 32x32x16
// MFMAs each): 256 MFMAs in straight-line code, no loop.
TEST(CompareTest, ClangUnrollsTheGfx950DefaultGemm) {
  absl::StatusOr<StaticCode> d = DisassembleKernel("/usr/lib/llvm-22/bin", "testdata/baselines/gemm_f16_1024.gfx950.hsaco",
                                                   "gfx950", "gemm_f16_1024");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->loop_total, 0);
  EXPECT_EQ(d->by_class.at("mfma"), 32 * 8);
}

// gfx950: clang-22's add_f16 converts with v_cvt_pk_f16_f32 (a gfx950
// instruction the emulator models: compiler/isa/semantics.h CvtPkF16F32).
// Both sides run, match the KIR reference and agree; the row reports both.
TEST(CompareTest, AddF16Gfx950BothSidesRun) {
  absl::StatusOr<std::vector<std::string>> flags = ReadClangFlags("compiler/bench/clang_flags.txt");
  ASSERT_TRUE(flags.ok()) << flags.status();
  CompareOptions o;
  o.clang_flags = *flags;
  o.inproc_runs = 1;
  o.process_runs = 1;
  absl::StatusOr<CompareResult> r = CompareKernel(o, "add_f16", "gfx950");
  ASSERT_TRUE(r.ok()) << r.status();
  for (const SideResult* s : {&r->kirc, &r->clang}) {
    EXPECT_TRUE(s->not_run.empty()) << s->not_run;
    EXPECT_TRUE(s->matches_reference) << s->reference_report;
    EXPECT_GT(s->static_total, 0);
    EXPECT_GT(s->waves, 0);
    EXPECT_GT(s->dynamic_total, 0);
  }
  EXPECT_EQ(r->kirc.waves, r->clang.waves);
  EXPECT_TRUE(r->outputs_agree);
  EXPECT_TRUE(r->OutputsOk());
  EXPECT_EQ(Verdict(*r), "yes");
}

TEST(CompareTest, MnemonicClasses) {
  EXPECT_EQ(MnemonicClass("s_load_dwordx4"), "smem");
  EXPECT_EQ(MnemonicClass("s_waitcnt"), "waitcnt");
  EXPECT_EQ(MnemonicClass("s_cbranch_scc1"), "branch");
  EXPECT_EQ(MnemonicClass("s_add_u32"), "salu");
  EXPECT_EQ(MnemonicClass("v_mfma_f32_32x32x8_f16"), "mfma");
  EXPECT_EQ(MnemonicClass("v_accvgpr_read_b32"), "valu");
  EXPECT_EQ(MnemonicClass("global_load_dwordx4"), "vmem");
  EXPECT_EQ(MnemonicClass("buffer_store_dwordx4"), "vmem");
  EXPECT_EQ(MnemonicClass("ds_read2_b64"), "ds");
}

}  // namespace
}  // namespace kir::bench
