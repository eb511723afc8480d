// Every default gemm configuration must compile (issue 19 review, item 1:
// gfx950's fp8 default 256x256x128 ran out of VGPRs from 3 K tiles). Over a
// grid of shapes, layouts, input types and targets, each kernel with no
// tiling clauses is compiled to assembly, and the arch VGPRs it uses beside
// the accumulators are checked against GemmConfig::expected_arch_vgprs, the
// estimate the defaults keep within the target's 256 (so the estimate stays
// an upper one, not only for these shapes). Compile only:
// //hw/run:gemm_emu_test checks the numbers.
//
// By default a modest shape list (72 kernels, under a minute in a fastbuild);
// KIRC_GEMM_SWEEP=full runs M, N in {16, 64, 200, 1000, 4096, 8192} x K in
// {32, 64, 96, 128, 160, 256, 288, 384, 416, 512, 1024} x 4 layouts x 12
// target and type pairs (19008 kernels: run it in an opt build, bazel test
// -c opt --test_env=KIRC_GEMM_SWEEP=full --test_timeout=3600) and prints,
// per pair, the largest need and its least margin to the estimate.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/analysis/gemm_config.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

struct Combo {
  const char* target;
  const char* a;
  const char* b;
};

const Combo kCombos[] = {
    {"gfx908", "f16", "f16"},           {"gfx908", "bf16", "bf16"},
    {"gfx90a", "f16", "f16"},           {"gfx90a", "bf16", "bf16"},
    {"gfx942", "f16", "f16"},           {"gfx942", "bf16", "bf16"},
    {"gfx942", "f8e4m3fnuz", "f8e4m3fnuz"}, {"gfx942", "f8e5m2fnuz", "f8e4m3fnuz"},
    {"gfx950", "f16", "f16"},           {"gfx950", "bf16", "bf16"},
    {"gfx950", "f8e4m3fn", "f8e4m3fn"}, {"gfx950", "f8e5m2", "f8e4m3fn"},
};

std::string Text(const Combo& c, int64_t m, int64_t n, int64_t k, int layout) {
  const bool a_km = layout & 1, b_kn = layout & 2;
  std::string s = absl::StrCat("kernel dflt\ntarget ", c.target, "\nworkgroup auto\ngrid auto\n");
  absl::StrAppend(&s, "arg A : ", c.a, a_km ? absl::StrCat("[", k, ", ", m, "] strides [", m, ", 1]")
                                            : absl::StrCat("[", m, ", ", k, "] strides [", k, ", 1]"),
                  " readonly\n");
  absl::StrAppend(&s, "arg B : ", c.b, b_kn ? absl::StrCat("[", k, ", ", n, "] strides [", n, ", 1]")
                                            : absl::StrCat("[", n, ", ", k, "] strides [", k, ", 1]"),
                  " readonly\n");
  absl::StrAppend(&s, "arg C : f32[", m, ", ", n, "] strides [", n, ", 1] writeonly\n",
                  "  gemm C = A.", a_km ? "km" : "mk", " * B.", b_kn ? "kn" : "nk", "\nend\n");
  return s;
}

struct Need {
  int64_t vgprs = 0, margin = 1 << 20;  // the largest need, the least estimate - need
  std::string worst;                    // the case of the least margin
};

// Compiles the default gemm of `c` at M x N x K in `layout`; "" or the error.
std::string Check(const Combo& c, int64_t m, int64_t n, int64_t k, int layout, Need* need) {
  const std::string text = Text(c, m, n, k, layout);
  absl::StatusOr<Kernel> parsed = ParseKernel(text, "dflt.kir");
  if (!parsed.ok()) return std::string(parsed.status().message());
  absl::StatusOr<GemmConfig> cfg = ResolveGemm(*parsed, parsed->body[0], **LookupTarget(c.target));
  if (!cfg.ok()) return absl::StrCat(cfg.status().message(), "\n", text);
  absl::StatusOr<CompileResult> r = CompileText(text, "dflt.kir", CompileOptions{});
  if (!r.ok()) return absl::StrCat(r.status().message(), "\n", text);
  // Accumulators left in arch VGPRs (gfx90a/942/950 when they fit) are not
  // part of the estimate.
  int64_t vgprs = r->resources.arch_vgprs;
  if (r->resources.agprs == 0) vgprs -= cfg->AccumulatorRegs();
  const int64_t margin = cfg->expected_arch_vgprs - vgprs;
  need->vgprs = std::max(need->vgprs, vgprs);
  if (margin < need->margin) {
    need->margin = margin;
    need->worst = absl::StrCat(m, "x", n, "x", k, " layout ", layout, " ", cfg->TilingText(), ": ",
                               vgprs, " VGPRs, estimate ", cfg->expected_arch_vgprs);
  }
  if (cfg->expected_arch_vgprs > 256)
    return absl::StrCat("the default ", cfg->TilingText(), " is expected to need ",
                        cfg->expected_arch_vgprs, " arch VGPRs\n", text);
  if (margin < 0)
    return absl::StrCat("needs ", vgprs, " arch VGPRs beside the accumulators, more than the ",
                        cfg->expected_arch_vgprs, " expected for ", cfg->TilingText(), "\n", text);
  return "";
}

bool FullSweep() {
  const char* e = std::getenv("KIRC_GEMM_SWEEP");
  return e != nullptr && std::string(e) == "full";
}

TEST(GemmDefaultSweep, EveryDefaultConfigurationCompiles) {
  const bool full = FullSweep();
  const std::vector<int64_t> mns = {16, 64, 200, 1000, 4096, 8192};
  const std::vector<int64_t> ks = {32, 64, 96, 128, 160, 256, 288, 384, 416, 512, 1024};
  // The modest list: per target and type pair six shapes (small, odd,
  // K tiles 1 to 13, and the review's 4096 x 4096 x 384, whose default is
  // 256x256 tiles in layout 0), the layout rotating.
  struct Mnk {
    int64_t m, n, k;
  };
  const Mnk modest[] = {{16, 16, 32},     {200, 64, 96},    {64, 200, 160},
                        {1000, 16, 288},  {200, 200, 416},  {4096, 4096, 384}};
  int cases = 0, failures = 0, q = 0;
  std::map<std::string, Need> needs;
  auto run = [&](const Combo& c, int64_t m, int64_t n, int64_t k, int layout) {
    ++cases;
    std::string err = Check(c, m, n, k, layout, &needs[absl::StrCat(c.target, " ", c.a, " x ", c.b)]);
    if (!err.empty() && ++failures <= 5) ADD_FAILURE() << err;
  };
  for (const Combo& c : kCombos) {
    if (!full) {
      for (const Mnk& s : modest) run(c, s.m, s.n, s.k, s.m == 4096 ? 0 : q++ % 4);
      continue;
    }
    for (int64_t m : mns)
      for (int64_t n : mns)
        for (int64_t k : ks)
          for (int layout = 0; layout < 4; ++layout) run(c, m, n, k, layout);
  }
  for (const auto& [combo, need] : needs)
    std::cout << combo << ": up to " << need.vgprs << " arch VGPRs beside the accumulators; least margin "
              << need.margin << " (" << need.worst << ")\n";
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_EQ(cases, full ? 12 * 36 * 11 * 4 : 12 * 6);
}

// The review's kernel (/work/review1/k/findings/f1_default_oom.kir): fp8 A,
// B [4096, 384] on gfx950. The default 256x256x128 double-buffered tiles
// needed 2 x 64 copy and 2 x 128 operand registers per lane (3 K tiles);
// the default halves BK to 64 (2 x 32 + 2 x 64 + 64 = 256 on the register
// path) and compiles. Since issue 19 the LDS DMA copies these tiles by
// default (4 x 4 tiles x 64 cycles = 1024 MFMA cycles per K tile): no copy
// registers, 2 x 64 + 64 = 192, and BK 128 would still need 2 x 128 + 64.
TEST(GemmDefaultSweep, Gfx950Fp8DefaultAt384Compiles) {
  const Combo c{"gfx950", "f8e4m3fn", "f8e4m3fn"};
  const std::string text = Text(c, 4096, 4096, 384, 0);
  absl::StatusOr<Kernel> parsed = ParseKernel(text, "f1.kir");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::StatusOr<GemmConfig> cfg = ResolveGemm(*parsed, parsed->body[0], **LookupTarget("gfx950"));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->TilingText(), "tile 256x256x64 waves 2x2 mfma f32_32x32x64_fp8_fp8 double_buffer on lds_dma on");
  // Hand-derived: one K-step of 4 + 4 fragments of 8 registers; 6 K tiles;
  // the DMA holds no copy registers (the register path's would be 256 x 64
  // bytes per operand over 256 threads = 16 each, twice).
  EXPECT_EQ(cfg->FragmentRegs(), 64);
  EXPECT_EQ(cfg->expected_arch_vgprs, 2 * 64 + 64);
  absl::StatusOr<CompileResult> r = CompileText(text, "f1.kir", CompileOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
}

}  // namespace
}  // namespace kir
