// The tile-level gemm op and `workgroup auto` / `grid auto` in the parser,
// the canonical printer, the builder and the interpreter.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/gemm.h"
#include "compiler/reference/interpreter.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

constexpr char kHeader[] = R"(kernel g
target gfx942
workgroup auto
grid auto
arg A : f16[256, 64] strides [64, 1] readonly
arg B : f16[256, 64] strides [64, 1] readonly
arg C : f32[256, 256] strides [256, 1] readwrite
arg alpha : f32
arg beta : f32
)";

std::string WithBody(const std::string& body) { return absl::StrCat(kHeader, body, "end\n"); }

TEST(GemmParse, FullLine) {
  absl::StatusOr<Kernel> k = ParseKernel(WithBody(
      "  gemm C = alpha * A.mk * B.nk + beta * C tile 64x64x32 waves 2x2 mfma "
      "f32_32x32x8_f16 double_buffer on\n"));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->workgroup, (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_EQ(k->grid, (std::array<int64_t, 3>{0, 0, 0}));
  ASSERT_EQ(k->body.size(), 1u);
  const Op& op = k->body[0];
  EXPECT_EQ(op.kind, OpKind::kGemm);
  EXPECT_EQ(op.loc.line, 10);
  EXPECT_EQ(op.loc.col, 3);
  const GemmOp& g = op.gemm;
  EXPECT_EQ(g.c, "C");
  EXPECT_EQ(g.factors, std::vector<std::string>{"alpha"});
  EXPECT_EQ(g.a, "A");
  EXPECT_FALSE(g.a_km);
  EXPECT_EQ(g.b, "B");
  EXPECT_FALSE(g.b_kn);
  EXPECT_EQ(g.beta, "beta");
  EXPECT_EQ(g.c_in, "C");
  EXPECT_EQ(g.tile, (std::array<int64_t, 3>{64, 64, 32}));
  EXPECT_EQ(g.waves, (std::array<int64_t, 2>{2, 2}));
  EXPECT_EQ(g.mfma, "f32_32x32x8_f16");
  ASSERT_TRUE(g.double_buffer.has_value());
  EXPECT_TRUE(*g.double_buffer);
}

TEST(GemmParse, MinimalLineAndTransposedLayouts) {
  absl::StatusOr<Kernel> k = ParseKernel(WithBody("gemm C = alpha * A.km * B.kn\n"));
  ASSERT_TRUE(k.ok()) << k.status();
  const GemmOp& g = k->body[0].gemm;
  EXPECT_TRUE(g.a_km);
  EXPECT_TRUE(g.b_kn);
  EXPECT_FALSE(g.has_beta());
  EXPECT_TRUE(g.c_in.empty());
  EXPECT_FALSE(g.has_tile());
  EXPECT_FALSE(g.has_waves());
  EXPECT_TRUE(g.mfma.empty());
  EXPECT_FALSE(g.double_buffer.has_value());
  EXPECT_FALSE(g.lds_dma.has_value());
}

// Canonical printing: clauses in the order tile, waves, mfma, double_buffer, lds_dma,
// whatever order they were written in; parse(print(k)) == k.
TEST(GemmParse, RoundTrip) {
  const std::string lines[] = {
      "gemm C = alpha * A.mk * B.nk + beta * C tile 64x64x32 waves 2x2 mfma f32_32x32x8_f16 "
      "double_buffer on",
      "gemm C = alpha * A.km * B.kn",
      "gemm C = alpha * A.mk * B.kn double_buffer off",
      "gemm C = alpha * A.km * B.nk + beta * C waves 4x2",
      "gemm C = alpha * A.mk * B.nk mfma f32_16x16x16_f16",
      "gemm C = alpha * A.mk * B.nk tile 128x128x32",
      "gemm C = A.mk * B.nk",  // alpha is optional (1)
      "gemm C = A.km * B.kn + beta * C waves 2x2",
      "gemm C = alpha * sa * sb * A.mk * B.nk + beta * C",  // per-tensor scales
      "gemm C = sa * sb * A.km * B.kn tile 64x64x64",
      "gemm C = A.mk * B.nk + C",  // beta = 1 (review of issue 19)
      "gemm C = alpha * A.km * B.nk + C tile 64x64x32 double_buffer off",
      "gemm C = alpha * A.mk * B.nk tile 64x64x32 double_buffer on lds_dma on",
      "gemm C = A.mk * B.nk + C lds_dma off",
  };
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    absl::StatusOr<Kernel> k = ParseKernel(WithBody("  " + line + "\n"));
    ASSERT_TRUE(k.ok()) << k.status();
    std::string text = PrintKernel(*k);
    EXPECT_EQ(text, WithBody("  " + line + "\n"));
    EXPECT_EQ(GemmOpText(k->body[0].gemm), line);
    absl::StatusOr<Kernel> again = ParseKernel(text);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE(*again == *k);
  }
  absl::StatusOr<Kernel> k = ParseKernel(WithBody(
      "  gemm C = alpha * A.mk * B.nk lds_dma off double_buffer off   mfma f32_16x16x16_f16 "
      "waves 1x2 tile 32x32x16  # any order\n"));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(PrintKernel(*k),
            WithBody("  gemm C = alpha * A.mk * B.nk tile 32x32x16 waves 1x2 mfma "
                     "f32_16x16x16_f16 double_buffer off lds_dma off\n"));
}

// Issue 13: `gemm C = A.mk * B.nk` (alpha = 1) used to fail with "expected
// '*' after alpha".
TEST(GemmParse, AlphaIsOptional) {
  absl::StatusOr<Kernel> k = ParseKernel(WithBody("gemm C = A.mk * B.kn + beta * C\n"));
  ASSERT_TRUE(k.ok()) << k.status();
  const GemmOp& g = k->body[0].gemm;
  EXPECT_FALSE(g.has_alpha());
  EXPECT_EQ(g.a, "A");
  EXPECT_FALSE(g.a_km);
  EXPECT_EQ(g.b, "B");
  EXPECT_TRUE(g.b_kn);
  EXPECT_EQ(g.beta, "beta");
  absl::StatusOr<Kernel> with = ParseKernel(WithBody("gemm C = alpha * A.mk * B.kn + beta * C\n"));
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_TRUE(with->body[0].gemm.has_alpha());
  EXPECT_FALSE(*with == *k);
}

// Review of issue 19: `+ C` is beta = 1 (no beta argument); it was refused
// with "expected '*' after beta".
TEST(GemmParse, PlusCIsBetaOne) {
  absl::StatusOr<Kernel> k = ParseKernel(WithBody("gemm C = A.mk * B.nk + C\n"));
  ASSERT_TRUE(k.ok()) << k.status();
  const GemmOp& g = k->body[0].gemm;
  EXPECT_FALSE(g.has_beta());
  EXPECT_TRUE(g.adds_c());
  EXPECT_EQ(g.c_in, "C");
  absl::StatusOr<Kernel> with = ParseKernel(WithBody("gemm C = A.mk * B.nk + beta * C\n"));
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_FALSE(*with == *k);
}

// Per-tensor scales: every f32 factor before A, in source order.
TEST(GemmParse, ScaleFactors) {
  absl::StatusOr<Kernel> k =
      ParseKernel(WithBody("gemm C = alpha * sa * sb * A.mk * B.kn + beta * C\n"));
  ASSERT_TRUE(k.ok()) << k.status();
  const GemmOp& g = k->body[0].gemm;
  EXPECT_EQ(g.factors, (std::vector<std::string>{"alpha", "sa", "sb"}));
  EXPECT_EQ(g.a, "A");
  EXPECT_EQ(g.b, "B");
  EXPECT_TRUE(g.b_kn);
  absl::StatusOr<Kernel> two = ParseKernel(WithBody("gemm C = alpha * sa * A.mk * B.kn + beta * C\n"));
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_FALSE(*two == *k);
}

TEST(GemmParse, ClausesChangeEquality) {
  absl::StatusOr<Kernel> a = ParseKernel(WithBody("gemm C = alpha * A.mk * B.nk\n"));
  absl::StatusOr<Kernel> b = ParseKernel(WithBody("gemm C = alpha * A.mk * B.nk waves 1x1\n"));
  absl::StatusOr<Kernel> c = ParseKernel(WithBody("gemm C = alpha * A.km * B.nk\n"));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_FALSE(*a == *b);
  EXPECT_FALSE(*a == *c);
}

TEST(GemmParse, Errors) {
  struct Bad {
    const char* line;
    const char* error;  // expected message (after "<input>:10:")
  };
  const Bad bad[] = {
      // A without a layout reads as a scale factor, and then B stands where A should.
      {"gemm C = alpha * A * B.nk", "24: error: expected layout 'mk' or 'km' after 'B.', found 'nk'"},
      {"gemm C = alpha * sa A.mk * B.nk", "21: error: expected '*' after scale factor 'sa', found 'A'"},
      {"gemm C = alpha * A.nk * B.nk", "20: error: expected layout 'mk' or 'km' after 'A.', found 'nk'"},
      {"gemm C = alpha * A.mk * B.mk", "27: error: expected layout 'nk' or 'kn' after 'B.', found 'mk'"},
      {"gemm C = alpha * A .mk * B.nk",
       "20: error: expected '.mk' or '.km' after A (its layout), found '.'"},
      {"gemm C = alpha * A.mk * B.nk + beta C",
       "37: error: expected '*' after beta (+ beta * C), or a clause or end of line after + beta, "
       "found 'C'"},
      {"gemm C = alpha * A.mk * B.nk tile 64x64", "35: error: expected a block tile BMxBNxBK (e.g. 128x128x32), found '64x64'"},
      {"gemm C = alpha * A.mk * B.nk tile 64x0x32", "35: error: extents must be positive in a block tile BMxBNxBK (e.g. 128x128x32)"},
      {"gemm C = alpha * A.mk * B.nk waves 2 x 2", "36: error: expected waves per workgroup WMxWN (e.g. 2x2), found '2'"},
      {"gemm C = alpha * A.mk * B.nk waves 2x2 waves 2x2", "40: error: duplicate 'waves' clause in gemm"},
      {"gemm C = alpha * A.mk * B.nk double_buffer yes",
       "44: error: expected 'on' or 'off' after 'double_buffer', found 'yes'"},
      {"gemm C = alpha * A.mk * B.nk tiles 64x64x32",
       "30: error: expected 'tile', 'waves', 'mfma', 'double_buffer', 'lds_dma' or end of line, "
       "found 'tiles'"},
      {"gemm C = alpha * A.mk * B.nk lds_dma 1",
       "38: error: expected 'on' or 'off' after 'lds_dma', found '1'"},
      {"gemm C = alpha * A.mk * B.nk lds_dma on lds_dma off",
       "41: error: duplicate 'lds_dma' clause in gemm"},
      {"%d = gemm C = alpha * A.mk * B.nk", "1: error: 'gemm' does not define a result"},
      {"gemm C alpha * A.mk * B.nk", "8: error: expected '=' after the gemm output buffer, found 'alpha'"},
      // A without a layout reads as alpha, and then B stands where A should.
      {"gemm C = A * B.nk", "16: error: expected layout 'mk' or 'km' after 'B.', found 'nk'"},
      {"gemm C = alpha A.mk * B.nk", "16: error: expected '*' after alpha, found 'A'"},
  };
  for (const Bad& b : bad) {
    absl::StatusOr<Kernel> k = ParseKernel(WithBody(std::string(b.line) + "\n"));
    ASSERT_FALSE(k.ok()) << b.line;
    EXPECT_EQ(k.status().message(), absl::StrCat("<input>:10:", b.error)) << b.line;
  }
  // `auto` takes no extents after it.
  absl::StatusOr<Kernel> k =
      ParseKernel("kernel k\nworkgroup auto 1\ngrid auto\n  barrier\nend\n");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().message(), "<input>:2:16: error: expected end of line, found '1'");
}

TEST(GemmParse, AutoHeaderPrints) {
  absl::StatusOr<Kernel> k =
      ParseKernel("kernel k\nworkgroup 64 1 1\ngrid auto\n  barrier\nend\n");
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(PrintKernel(*k), "kernel k\nworkgroup 64 1 1\ngrid auto\n  barrier\nend\n");
}

TEST(GemmBuilder, BuildsWhatTheParserReads) {
  KernelBuilder b("g");
  b.SetTarget("gfx942").SetWorkgroupAuto().SetGridAuto();
  b.AddBufferArg("A", ElemType::kF16, {256, 64}, {64, 1}, Access::kReadOnly);
  b.AddBufferArg("B", ElemType::kF16, {256, 64}, {64, 1}, Access::kReadOnly);
  b.AddBufferArg("C", ElemType::kF32, {256, 256}, {256, 1}, Access::kReadWrite);
  b.AddScalarArg("alpha", ElemType::kF32);
  b.AddScalarArg("beta", ElemType::kF32);
  GemmOp g;
  g.c = "C";
  g.factors = {"alpha"};
  g.a = "A";
  g.b = "B";
  g.beta = "beta";
  g.c_in = "C";
  g.waves = {2, 2};
  b.Gemm(g);
  absl::StatusOr<Kernel> parsed =
      ParseKernel(WithBody("  gemm C = alpha * A.mk * B.nk + beta * C waves 2x2\n"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(b.Build() == *parsed);
}

TEST(GemmInterpreter, RefusesTileLevelKernels) {
  absl::StatusOr<Kernel> k = ParseKernel(WithBody("  gemm C = alpha * A.mk * B.nk\n"));
  ASSERT_TRUE(k.ok()) << k.status();
  InterpArgs args;
  absl::Status s = Interpret(*k, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "10:3: error: in 'gemm C = alpha * A.mk * B.nk': gemm is a tile-level op; promote "
            "the kernel first (kir::PromoteGemm in compiler/promote) and interpret the "
            "thread-level kernel");
}

}  // namespace
}  // namespace kir
