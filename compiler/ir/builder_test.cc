#include "compiler/ir/builder.h"

#include <string>
#include <vector>

#include "compiler/ir/index_expr.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

constexpr ValueType kF16x4{ElemType::kF16, 4};
constexpr ValueType kF32x1{ElemType::kF32, 1};

constexpr const char kMfmaText[] = R"(kernel mma_16x16x16_f16
target gfx942
workgroup 64 1 1
grid 1 1 1
const LDA = 20
arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg C : f32[16, 16] strides [16, 1] writeonly
lds As : f16[16, 16] pad 4
lds Bs : f16[16, 16] pad 4
  %a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %b = load B[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f16x4
  store As[tid.x mod 16, tid.x floordiv 16 * 4], %a
  store Bs[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %b
  barrier
  %v0 = load As[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %v1 = load Bs[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f16x4
  %v2 = zero f32x4
  %d = mfma f32_16x16x16_f16 %v0, %v1, %v2
  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d
end
)";

Kernel BuildMfma() {
  KernelBuilder b("mma_16x16x16_f16");
  b.SetTarget("gfx942").SetWorkgroup(64).SetGrid(1);
  b.AddConst("LDA", 20);
  b.AddBufferArg("A", ElemType::kF16, {16, 16}, {16, 1}, Access::kReadOnly);
  b.AddBufferArg("B", ElemType::kF16, {16, 16}, KernelBuilder::RowMajorStrides({16, 16}),
                 Access::kReadOnly);
  b.AddBufferArg("C", ElemType::kF32, {16, 16}, {16, 1}, Access::kWriteOnly);
  b.AddLds("As", ElemType::kF16, {16, 16}, 4);
  b.AddLds("Bs", ElemType::kF16, {16, 16}, 4);
  // Lane l holds A[l % 16][4 * (l / 16) + i] and B[4 * (l / 16) + i][l % 16].
  IndexRef row = IMod(ITid(0), IConst(16));
  IndexRef k4 = IMul(IFloorDiv(ITid(0), IConst(16)), IConst(4));
  std::string a = b.Load("A", {row, k4}, kF16x4, {}, "a");
  std::string bv = b.Load("B", {k4, row}, kF16x4, {.along = 0}, "b");
  b.Store("As", {row, k4}, a);
  b.Store("Bs", {k4, row}, bv, {.along = 0});
  b.Barrier();
  std::string fa = b.Load("As", {row, k4}, kF16x4);
  std::string fb = b.Load("Bs", {k4, row}, kF16x4, {.along = 0});
  std::string z = b.Zero({ElemType::kF32, 4});
  std::string d = b.Mfma("f32_16x16x16_f16", fa, fb, z, "d");
  b.Store("C", {k4, row}, d, {.along = 0});
  EXPECT_EQ(a, "a");
  EXPECT_EQ(bv, "b");
  EXPECT_EQ(fa, "v0");
  EXPECT_EQ(fb, "v1");
  EXPECT_EQ(z, "v2");
  EXPECT_EQ(d, "d");
  return b.Build();
}

TEST(BuilderTest, MfmaKernelPrintsCanonicalText) {
  Kernel k = BuildMfma();
  EXPECT_EQ(PrintKernel(k), kMfmaText);
  absl::StatusOr<Kernel> parsed = ParseKernel(kMfmaText, "mfma.kir");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == k);
}

TEST(BuilderTest, MfmaKernelFields) {
  Kernel k = BuildMfma();
  EXPECT_EQ(k.name, "mma_16x16x16_f16");
  EXPECT_EQ(k.target, "gfx942");
  EXPECT_EQ(k.workgroup, (std::array<int64_t, 3>{64, 1, 1}));
  EXPECT_EQ(k.WorkgroupThreads(), 64);
  ASSERT_EQ(k.args.size(), 3u);
  EXPECT_EQ(k.args[1].strides, (std::vector<int64_t>{16, 1}));
  EXPECT_EQ(k.args[2].SizeBytes(), 16 * 16 * 4);
  ASSERT_EQ(k.lds.size(), 2u);
  EXPECT_EQ(k.lds[0].Strides(), (std::vector<int64_t>{20, 1}));
  ASSERT_EQ(k.body.size(), 10u);
  EXPECT_EQ(k.body[0].along, 1);  // default: the last dimension
  EXPECT_EQ(k.body[1].along, 0);
  EXPECT_EQ(k.body[0].loc.line, 0);  // built by API
  const Op& mfma = k.body[8];
  EXPECT_EQ(mfma.kind, OpKind::kMfma);
  EXPECT_EQ(mfma.type, (ValueType{ElemType::kF32, 4}));
  EXPECT_EQ(mfma.operands,
            (std::vector<Operand>{{"v0", false}, {"v1", false}, {"v2", false}}));
}

constexpr const char kLoopText[] = R"(kernel acc
workgroup 64 2 1
grid 8 4 2
arg X : f32[128, 64] strides [64, 1] readonly
arg Y : f16[64] strides [1] readwrite
arg s : f32
  %v0 = zero f32
  %v1 = const f32 1.5
  %v11, %v12 = for %v2 = 0 to 128 step 32 iter(%v3 = %v0, %v4 = %v1) {
    %v5 = load guarded X[%v2 + tid.y, tid.x] : f32
    %v9 = for %v6 = 0 to 2 iter(%v7 = %v3) {
      %v8 = fma %v5, s, %v7
      yield %v8
    }
    %v10 = add %v9, %v4
    yield %v10, %v4
  }
  %v13 = mul %v11, s
  %h = cvt %v13 : f16
  store guarded Y[tid.x], %h
end
)";

TEST(BuilderTest, NestedLoopsWithFreshNames) {
  KernelBuilder b("acc");
  b.SetWorkgroup(64, 2).SetGrid(8, 4, 2);
  b.AddBufferArg("X", ElemType::kF32, {128, 64}, KernelBuilder::RowMajorStrides({128, 64}),
                 Access::kReadOnly);
  b.AddBufferArg("Y", ElemType::kF16, {64}, {1}, Access::kReadWrite);
  b.AddScalarArg("s", ElemType::kF32);
  std::string zero = b.Zero(kF32x1);
  std::string one = b.Const(kF32x1, 1.5);
  std::vector<std::string> res = b.For(
      0, 128, 32, {zero, one},
      [&](const std::string& k, const std::vector<std::string>& it) {
        EXPECT_EQ(k, "v2");
        EXPECT_EQ(it, (std::vector<std::string>{"v3", "v4"}));
        std::string x =
            b.Load("X", {IAdd(ILoopVar(k), ITid(1)), ITid(0)}, kF32x1, {.guarded = true});
        std::vector<std::string> inner = b.For(
            0, 2, 1, {it[0]}, [&](const std::string&, const std::vector<std::string>& it2) {
              return std::vector<BuilderValue>{b.Fma(x, KernelBuilder::ScalarArg("s"), it2[0])};
            });
        std::string sum = b.Add(inner[0], it[1]);
        return std::vector<BuilderValue>{sum, it[1]};
      });
  EXPECT_EQ(res, (std::vector<std::string>{"v11", "v12"}));
  std::string p = b.Mul(res[0], KernelBuilder::ScalarArg("s"));
  std::string h = b.Cvt(p, {ElemType::kF16, 1}, "h");
  b.Store("Y", {ITid(0)}, h, {.guarded = true});
  Kernel k = b.Build();

  EXPECT_EQ(PrintKernel(k), kLoopText);
  absl::StatusOr<Kernel> parsed = ParseKernel(kLoopText);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(*parsed == k);

  ASSERT_EQ(k.body.size(), 6u);
  const Op& loop = k.body[2];
  EXPECT_EQ(loop.kind, OpKind::kFor);
  EXPECT_EQ(loop.step, 32);
  ASSERT_EQ(loop.body.size(), 4u);
  EXPECT_EQ(loop.body.back().kind, OpKind::kYield);
  EXPECT_TRUE(loop.body[0].guarded);
  EXPECT_EQ(loop.body[1].body[0].operands[1], (Operand{"s", true}));
}

TEST(BuilderTest, GivenNamesAndPartialBuild) {
  KernelBuilder b;
  b.SetName("named");
  EXPECT_EQ(b.FreshName(), "v0");
  std::string z = b.Zero(kF32x1);
  EXPECT_EQ(z, "v1");
  Kernel partial = b.Build();
  EXPECT_EQ(partial.body.size(), 1u);
  ForNames names;
  names.ivar = "i";
  names.iter_args = {"acc"};  // the second iter_arg gets a fresh name
  names.results = {"", "r1"};
  std::vector<std::string> r = b.For(
      -8, 8, 1, {z, z},
      [&](const std::string& i, const std::vector<std::string>& it) {
        EXPECT_EQ(i, "i");
        EXPECT_EQ(it, (std::vector<std::string>{"acc", "v2"}));
        b.Barrier();
        return std::vector<BuilderValue>{it[1], it[0]};
      },
      names);
  EXPECT_EQ(r, (std::vector<std::string>{"v3", "r1"}));
  Kernel k = b.Build();
  EXPECT_EQ(k.name, "named");
  EXPECT_EQ(PrintKernel(k), R"(kernel named
workgroup 1 1 1
grid 1 1 1
  %v1 = zero f32
  %v3, %r1 = for %i = -8 to 8 iter(%acc = %v1, %v2 = %v1) {
    barrier
    yield %v2, %acc
  }
end
)");
  EXPECT_EQ(partial.body.size(), 1u);  // earlier Build() results are unaffected
}

TEST(BuilderTest, RowMajorStrides) {
  EXPECT_EQ(KernelBuilder::RowMajorStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(KernelBuilder::RowMajorStrides({7}), (std::vector<int64_t>{1}));
  EXPECT_TRUE(KernelBuilder::RowMajorStrides({}).empty());
}

TEST(BuilderTest, EmptyBodyCallbackDoesNotCrash) {
  KernelBuilder b("e");
  std::vector<std::string> r = b.For(0, 1, 1, {}, nullptr);
  EXPECT_TRUE(r.empty());
  Kernel k = b.Build();
  ASSERT_EQ(k.body.size(), 1u);
  ASSERT_EQ(k.body[0].body.size(), 1u);
  EXPECT_EQ(k.body[0].body[0].kind, OpKind::kYield);
  EXPECT_EQ(PrintKernel(k), "kernel e\nworkgroup 1 1 1\ngrid 1 1 1\n  for %v0 = 0 to 1 {\n"
                            "    yield\n  }\nend\n");
}

}  // namespace
}  // namespace kir
