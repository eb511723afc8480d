// The exact-input analysis (exact.h): which kernels get exact inputs, in what
// form (worked out by hand here), which op blocks exact mode and why; the
// random-mode rounding sums; the inputs generated for each mode.
#include "hw/check/exact.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/ir/float_bits.h"
#include "compiler/ir/parser.h"
#include "compiler/promote/promote.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "hw/check/compare.h"
#include "hw/check/inputs.h"
#include "hw/check/test_kernels.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {

using ::kir::testing::ComputedFp8Kernel;
using ::kir::testing::ComputedKernel;
using ::kir::testing::GemmKernel;
using ::kir::testing::LongLoopKernel;
using ::kir::testing::MfmaKLoop;
using ::kir::testing::MfmaOperandArg;
using ::kir::testing::OneWaveMfmaKernel;
using ::kir::testing::OneWaveMfmaLoopKernel;
using ::kir::testing::TwoFp8ChainsKernel;

// PlanConversionPasses(k) without the target passes planned for ties
// (ExactPlan::tie_pass), which `kirc run` keeps only when the level's pass
// drew fewer than kConversionMinTies ties of their type (fresh-user review
// 20 F1: every type a level rounds has one); each left out is checked to
// be one.
std::vector<ExactPlan> PlannedPasses(const std::vector<ExactPlan>& all) {
  std::vector<ExactPlan> r;
  for (const ExactPlan& p : all) {
    if (p.tie_pass) {
      EXPECT_TRUE(p.exact);
      EXPECT_NE(p.to, ElemType::kF32);
      continue;
    }
    r.push_back(p);
  }
  return r;
}

Kernel Parse(const std::string& text) {
  absl::StatusOr<Kernel> k = ParseKernel(text, "t.kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : Kernel{};
}

Kernel Promoted(const std::string& name, const char* mcpu) {
  Kernel k = ::kir::testing::TestdataKernel(name);
  absl::StatusOr<const TargetInfo*> t = LookupTarget(mcpu);
  EXPECT_TRUE(t.ok());
  absl::StatusOr<Kernel> p = ValidateAndPromote(k, **t);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : Kernel{};
}

// Every testdata kernel (gemms promoted, as `kirc run` runs them) gets exact
// inputs, and so do the loop kernels of hw/run/testdata.
TEST(ExactPlanTest, TestdataKernelsAreExact) {
  for (const char* n : {"copy_f32", "add_f16", "mma_16x16x16_f16", "mma_32x32x8_f16", "mma_loop_32x32x64_f16",
                        "mma_16x16x16_bf16", "gemm_f16_256", "gemm_f16_256x256x256", "gemm_f16_1024",
                        "gemm_f16_km_kn", "gemm_bf16_edge"})
    for (const char* t : {"gfx90a", "gfx942"}) {
      ExactPlan p = PlanExactInputs(Promoted(n, t));
      EXPECT_TRUE(p.exact) << n << " on " << t << ": " << p.blocker;
    }
  for (const char* f : {"hw/run/testdata/nested_loops.kir", "hw/run/testdata/loop_swap.kir"}) {
    ExactPlan p = PlanExactInputs(Parse(::kir::testing::ReadTestFile(f)));
    EXPECT_TRUE(p.exact) << f << ": " << p.blocker;
  }
}

// The forms chosen, from the bounds by hand.
TEST(ExactPlanTest, FormsFollowTheBounds) {
  // A copy computes nothing: full f32 significands, exponents spread over 4.
  ExactPlan copy = PlanExactInputs(::kir::testing::TestdataKernel("copy_f32"));
  ASSERT_TRUE(copy.exact);
  EXPECT_EQ(copy.formats["src"].bits, 24);
  EXPECT_EQ(copy.formats["src"].spread, 3);
  EXPECT_EQ(copy.formats["src"].Describe(), "+-m*2^e, m in [1, 16777215], e in [-27, -24]");
  // add_f16: out = f16((x + y) * scale). With b-bit x and y (|x| < 1 in steps
  // of 2^-b) and scale in {0.5, 1.5, 2} (steps of 2^-1, up to 2; never 1,
  // the identity a dropped multiply would hide behind), the f16
  // result is a multiple of 2^-(b+1) below 4 * (2^b - 1) * 2^-b, which needs
  // 4 * (2^b - 1) <= 2^(11 - 1): b = 8 (1020 <= 1024), not 9.
  ExactPlan add = PlanExactInputs(::kir::testing::TestdataKernel("add_f16"));
  ASSERT_TRUE(add.exact) << add.blocker;
  EXPECT_EQ(add.formats["x"].bits, 8);
  EXPECT_EQ(add.formats["y"].bits, 8);
  EXPECT_EQ(add.formats["x"].spread, 0);
  EXPECT_EQ(add.formats["scale"].Describe(), "one of {0.5, 1.5, 2}");
  // A K = 65536 loop of 32x32x8 f16 MFMAs: b-bit A and B give products in
  // steps of 2^-2b below (1 - 2^-b)^2, and 65536 of them must fit 24 bits:
  // 2^16 * (15/16)^2 < 2^(24 - 8) for b = 4; b = 5 for one of them needs
  // 2^16 * (31/32) * (15/16) < 2^(24 - 9), false.
  const std::string kloop = R"(kernel kloop
workgroup 64 1 1
grid 1 1 1
const K = 65536
arg A : f16[32, K] strides [K, 1] readonly
arg B : f16[32, K] strides [K, 1] readonly
arg C : f32[32, 32] strides [32, 1] writeonly
  %zero = zero f32x16
  %acc = for %k = 0 to K step 8 iter(%c = %zero) {
    %a = load A[tid.x mod 32, %k + tid.x floordiv 32 * 4] : f16x4
    %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 4] : f16x4
    %d = mfma f32_32x32x8_f16 %a, %b, %c
    yield %d
  }
  %c0 = slice %acc, 0 : f32x4
  store C[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %c0
end
)";
  ExactPlan kl = PlanExactInputs(Parse(kloop));
  ASSERT_TRUE(kl.exact) << kl.blocker;
  EXPECT_EQ(kl.formats["A"].bits, 4);
  EXPECT_EQ(kl.formats["B"].bits, 4);
  EXPECT_EQ(kl.formats["A"].spread, 0);
  EXPECT_EQ(kl.formats["A"].Describe(), "+-m*2^e, m in [1, 15], e = -4");
  // A readwrite buffer read before it is written (gemm's C), and one stored
  // twice at disjoint places: the second load does not see the first store.
  // X squared in place at [tid.x]; then X[`second`] squared, stored at
  // [tid.x + 64].
  auto rw_kernel = [](const std::string& second) {
    return Parse(absl::StrCat(R"(kernel rw
workgroup 64 1 1
grid 1 1 1
arg X : f32[128] strides [1] readwrite
  %a = load X[tid.x] : f32
  %b = mul %a, %a
  store X[tid.x], %b
  %c = load X[)",
                              second, R"(] : f32
  %d = mul %c, %c
  store X[tid.x + 64], %d
end
)"));
  };
  ExactPlan rw = PlanExactInputs(rw_kernel("tid.x + 64"));
  ASSERT_TRUE(rw.exact) << rw.blocker;
  EXPECT_EQ(rw.formats["X"].bits + rw.formats["X"].spread, 12);  // x^2 in 24 bits
  // The same with the second load reading the first store: x^4.
  ExactPlan rw2 = PlanExactInputs(rw_kernel("tid.x"));
  ASSERT_TRUE(rw2.exact) << rw2.blocker;
  EXPECT_EQ(rw2.formats["X"].bits + rw2.formats["X"].spread, 6);  // x^4 in 24 bits
}

// A tile-level gemm (as a library caller may pass it, unpromoted) and its
// promoted form get the same inputs: C = A * B (no alpha) with K = 100 into
// f16 needs 100 * (2^bA - 1) * (2^bB - 1) <= 2^11 (products of steps 2^-bA
// and 2^-bB, f16's 11 bits): bA = bB = 2 (900), not 3 and 2 (2100).
TEST(ExactPlanTest, TileLevelGemmAndItsPromotion) {
  const Kernel g = Parse(GemmKernel("g", "gfx942", "f16[64, 100]", "f16[64, 100]", "f16[64, 64]", {}, "C = A.mk * B.nk",
                                    "writeonly"));
  ExactPlan tile = PlanExactInputs(g);
  ASSERT_TRUE(tile.exact) << tile.blocker;
  EXPECT_EQ(tile.formats["A"].bits, 2);
  EXPECT_EQ(tile.formats["B"].bits, 2);
  absl::StatusOr<const TargetInfo*> t = LookupTarget("gfx942");
  ASSERT_TRUE(t.ok());
  absl::StatusOr<Kernel> p = ValidateAndPromote(g, **t);
  ASSERT_TRUE(p.ok()) << p.status();
  ExactPlan promoted = PlanExactInputs(*p);
  ASSERT_TRUE(promoted.exact) << promoted.blocker;
  EXPECT_EQ(promoted.formats["A"].bits, 2);
  EXPECT_EQ(promoted.formats["B"].bits, 2);
  // Random mode: 100 products through 100 faithful additions, the cvt to f16.
  const double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(RoundingBounds(g)["C"].dev, 100 * 2 * u + std::ldexp(1.0, -11));
}

// A kernel around one loop body; BODY's ops see %x (a loaded f32), %acc (the
// carried f32, from 1.0) and yield %n.
std::string LoopKernel(int64_t trips, const std::string& body, const std::string& elem = "f32") {
  return absl::StrReplaceAll(R"(kernel l
workgroup 64 1 1
grid 1 1 1
arg X : E[64] strides [1] readonly
arg Y : E[64] strides [1] writeonly
lds T : E[64]
  %one = const E 1.0
  %r = for %i = 0 to TRIPS iter(%acc = %one) {
    %x = load X[tid.x] : E
BODY
    yield %n
  }
  store Y[tid.x], %r
end
)",
                             {{"TRIPS", absl::StrCat(trips)}, {"BODY", body}, {"E", elem}});
}

void ExpectBlocked(const std::string& text, const std::string& op, const std::string& why) {
  ExactPlan p = PlanExactInputs(Parse(text));
  EXPECT_FALSE(p.exact) << text;
  EXPECT_NE(p.blocker.find(op), std::string::npos) << p.blocker;
  EXPECT_NE(p.blocker.find(why), std::string::npos) << p.blocker;
}

TEST(ExactPlanTest, TheBlockingOpIsNamed) {
  // A carried sum of loaded values: exact (it grows by the increment).
  EXPECT_TRUE(PlanExactInputs(Parse(LoopKernel(1000, "    %n = add %acc, %x"))).exact);
  // Carried times carried: not linear.
  ExpectBlocked(LoopKernel(10, "    %n = mul %acc, %acc"), "10:5: '%n = mul %acc, %acc'",
                "multiplies two values that both depend on loop-carried values");
  // A carried value times a loaded one (steps of 2^-e each time): the
  // fraction bits grow by e per trip; over 1000 trips no form is bounded.
  ExpectBlocked(LoopKernel(1000, "    %n = mul %acc, %x"), "8:3: '%r = for %i = 0 to 1000 iter(%acc = %one)'",
                "each of its 1000 iterations multiplies a loop-carried value by a non-integer");
  // Times 3 per trip, 1000 trips: geometric growth.
  ExpectBlocked(LoopKernel(1000, "    %t = const f32 3.0\n    %n = mul %acc, %t"), "for %i = 0 to 1000",
                "may multiply a loop-carried value by up to 3");
  // The same over 10 trips is iterated exactly: 3^10 * |x| fits.
  EXPECT_TRUE(PlanExactInputs(Parse(LoopKernel(10, "    %t = const f32 3.0\n    %n = mul %acc, %t"))).exact);
  // A sum carried through LDS instead of iter_args.
  ExpectBlocked(LoopKernel(100, "    store T[tid.x], %x\n    %t = load T[tid.x] : f32\n    %u = add %t, %x\n"
                                "    store T[tid.x], %u\n    %n = add %acc, %u"),
                "store T[tid.x], %u", "a value stored in the loop body is loaded back and grows");
  // A long f32 sum converted to f16: 4096 terms of +-2^-1 are multiples of
  // 2^-1 up to 2048, 12 bits.
  ExpectBlocked(R"(kernel s
workgroup 64 1 1
grid 1 1 1
arg X : f32[64, 4096] strides [4096, 1] readonly
arg Y : f16[64] strides [1] writeonly
  %z = zero f32
  %r = for %i = 0 to 4096 iter(%acc = %z) {
    %x = load X[tid.x, %i] : f32
    %n = add %acc, %x
    yield %n
  }
  %h = cvt %r : f16
  store Y[tid.x], %h
end
)",
                "12:3: '%h = cvt %r : f16'", "the converted value needs 12 significand bits (magnitudes up to 2048 in steps of 2^-1), more than "
                "f16's 11 even with the narrowest exact inputs");
  // 2^25 products in one f32 sum (2^19 trips of 8 MFMA steps of 8): more
  // than f32's 24 bits even for +-2^e inputs.
  ExpectBlocked(R"(kernel long
workgroup 64 1 1
grid 1 1 1
arg A : f16[32, 64] strides [64, 1] readonly
arg B : f16[32, 64] strides [64, 1] readonly
arg C : f32[32, 32] strides [32, 1] writeonly
  %zero = zero f32x16
  %acc = for %i = 0 to 524288 iter(%o = %zero) {
    %in = for %k = 0 to 64 step 8 iter(%c = %o) {
      %a = load A[tid.x mod 32, %k + tid.x floordiv 32 * 4] : f16x4
      %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 4] : f16x4
      %d = mfma f32_32x32x8_f16 %a, %b, %c
      yield %d
    }
    yield %in
  }
  %c0 = slice %acc, 0 : f32x4
  store C[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %c0
end
)",
                "12:7: '%d = mfma f32_32x32x8_f16 %a, %b, %c'",
                "needs 25 significand bits (magnitudes up to 8.38861e+06 in steps of 2^-2), more than f32's 24 even "
                "with the narrowest exact inputs");
  // i32: overflow is refused too.
  ExpectBlocked(R"(kernel i
workgroup 64 1 1
grid 1 1 1
arg X : i32[64] strides [1] readonly
arg Y : i32[64] strides [1] writeonly
  %x = load X[tid.x] : i32
  %c = const i32 100000
  %p = mul %x, %c
  %q = mul %p, %c
  store Y[tid.x], %q
end
)",
                "9:3: '%q = mul %p, %c'", "may reach 1e+10 and overflow i32");
}

// inf and nan constants are exact values: stored, or in arithmetic (which
// does not round them), they leave exact mode possible.
TEST(ExactPlanTest, NonFiniteConstantsAreExact) {
  ExactPlan p = PlanExactInputs(Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg x : f32[64] strides [1] readonly
arg y : f32[128] strides [1] writeonly
  %x = load x[tid.x] : f32
  %f = const f32 2.0
  %v = mul %x, %f
  store y[tid.x], %v
  %i = const f32 inf
  %w = add %x, %i
  store y[tid.x + 64], %w
end
)"));
  EXPECT_TRUE(p.exact) << p.blocker;
}

TEST(RoundingBoundsTest, SumsOfUnitRoundoffsByHand) {
  // add_f16: an f16 add, an exact f16 -> f32 cvt, an f32 mul, a cvt to f16:
  // IEEE operations in program order on inputs both sides hold bit for bit,
  // so no rounding can differ between them (0, 0: bit identity).
  std::map<std::string, RoundingBound> add = RoundingBounds(::kir::testing::TestdataKernel("add_f16"));
  ASSERT_EQ(add.size(), 1u);
  EXPECT_EQ(add["out"].dev, 0);
  EXPECT_EQ(add["out"].ref, 0);
  // mma_loop_32x32x64_f16: 4 trips of one 16x16x16 MFMA: on the device each
  // product passes up to 16 additions per MFMA (2u each), in the reference
  // one rounding per MFMA plus 16 double additions.
  std::map<std::string, RoundingBound> loop = RoundingBounds(::kir::testing::TestdataKernel("mma_loop_32x32x64_f16"));
  const double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(loop["C"].dev, 4 * 16 * 2 * u);
  EXPECT_DOUBLE_EQ(loop["C"].ref, 4 * (u + 16 * std::ldexp(1.0, -53)));
  // A copy rounds nothing.
  EXPECT_EQ(RoundingBounds(::kir::testing::TestdataKernel("copy_f32"))["dst"].dev, 0);
  // Squaring a carried value each trip doubles its rounding count: no bound.
  std::map<std::string, RoundingBound> sq = RoundingBounds(Parse(LoopKernel(1000, "    %n = mul %acc, %acc")));
  EXPECT_TRUE(std::isinf(sq["Y"].dev));
  EXPECT_NE(sq["Y"].unbounded.find("for %i = 0 to 1000"), std::string::npos) << sq["Y"].unbounded;
}

// Review 5 F2: conversions of values both sides hold bit for bit (loaded
// inputs, before any mfma) are no error between device and reference. A cvt
// of a loaded f32 to fp8 must match code for code; an fp8 value feeding an
// mfma is an exact input of it (its quantisation is common to both sides);
// only the mfma (device: 32 products through up to 32 faithful additions,
// 2^-23 each; reference: one f32 rounding of a double sum) and the cvt of its
// result (2^-4, f8e4m3fnuz: 3 stored significand bits, on each side) count.
TEST(RoundingBoundsTest, ConversionsOfIdenticalValuesCountNothing) {
  std::map<std::string, RoundingBound> b = RoundingBounds(Parse(R"(kernel q
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f32[64, 8] strides [8, 1] readonly
arg Q : f8e5m2fnuz[64, 8] strides [8, 1] writeonly
arg C : f32[64, 4] strides [4, 1] writeonly
arg R : f8e4m3fnuz[64, 4] strides [4, 1] writeonly
  %fa = load A[tid.x, 0] : f32x8
  %qq = cvt %fa : f8e5m2fnuzx8
  store Q[tid.x, 0], %qq
  %qa = cvt %fa : f8e4m3fnuzx8
  %z = zero f32x4
  %c = mfma f32_16x16x32_fp8_fp8 %qa, %qa, %z
  store C[tid.x, 0], %c
  %r = cvt %c : f8e4m3fnuzx4
  store R[tid.x, 0], %r
end
)"));
  const double u = std::ldexp(1.0, -24);
  EXPECT_EQ(b["Q"].dev, 0);
  EXPECT_EQ(b["Q"].ref, 0);
  EXPECT_DOUBLE_EQ(b["C"].dev, 32 * 2 * u);
  EXPECT_DOUBLE_EQ(b["C"].ref, u + 32 * std::ldexp(1.0, -53));
  EXPECT_DOUBLE_EQ(b["R"].dev, 32 * 2 * u + 0.0625);
  EXPECT_DOUBLE_EQ(b["R"].ref, u + 32 * std::ldexp(1.0, -53) + 0.0625);
  // A carried f32 sum without mfma: the same adds in the same order on both
  // sides; the analysis cannot tell a carried value from one that differs,
  // so it counts them (sound, looser than needed).
  EXPECT_GT(RoundingBounds(Parse(LoopKernel(10, "    %n = add %acc, %x")))["Y"].dev, 0);
}

TEST(HasUnorderedSumTest, MfmaAndGemmOnly) {
  EXPECT_FALSE(HasUnorderedSum(::kir::testing::TestdataKernel("copy_f32")));
  EXPECT_FALSE(HasUnorderedSum(::kir::testing::TestdataKernel("add_f16")));
  EXPECT_FALSE(HasUnorderedSum(Parse(LoopKernel(10, "    %n = add %acc, %x"))));
  EXPECT_TRUE(HasUnorderedSum(::kir::testing::TestdataKernel("mma_loop_32x32x64_f16")));
  EXPECT_TRUE(HasUnorderedSum(::kir::testing::TestdataKernel("gemm_f16_256")));
}

// The generated inputs have the forms the plan states.
TEST(InputsTest, ExactInputsHaveThePlannedForm) {
  Kernel k = Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg h : f16[1000] strides [1] readonly
arg i : i32[1000] strides [1] readonly
arg y : f32[1000] strides [1] writeonly
arg a : f32
arg n : i32
  %h = load h[tid.x] : f16
end
)");
  ExactPlan plan;
  plan.exact = true;
  plan.formats["h"] = ExactFormat{4, 1, -5, 0, 0, {}};
  plan.formats["i"] = ExactFormat{0, 0, 0, -10, 10, {}};
  plan.formats["y"] = ExactFormat{24, 3, -27, 0, 0, {}};
  plan.formats["a"] = ExactFormat{0, 0, 0, 0, 0, {0.5, 1, 1.5, 2}};
  plan.formats["n"] = ExactFormat{0, 0, 0, 1, 3, {}};
  std::set<double> hv;
  std::set<int32_t> iv;
  std::set<float> av;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    KernelData d = MakeExactInputs(k, plan, seed);
    for (int e = 0; e < 1000; ++e) {
      double v = ElementValue(ElemType::kF16, d.buffers["h"].data() + 2 * e);
      // +-m * 2^e, m in [1, 15], e in {-5, -4}: an integer multiple of 2^-5
      // with |v| <= 15 * 2^-4.
      EXPECT_EQ(std::ldexp(v, 5), std::trunc(std::ldexp(v, 5))) << v;
      EXPECT_GT(std::fabs(v), 0);
      EXPECT_LE(std::fabs(v), 15.0 / 16);
      hv.insert(v);
      int32_t x;
      std::memcpy(&x, d.buffers["i"].data() + 4 * e, 4);
      EXPECT_GE(x, -10);
      EXPECT_LE(x, 10);
      iv.insert(x);
    }
    av.insert(F32FromBits(d.scalars["a"]));
    EXPECT_GE(static_cast<int32_t>(d.scalars["n"]), 1);
    EXPECT_LE(static_cast<int32_t>(d.scalars["n"]), 3);
  }
  // Magnitudes n * 2^-5 with n in [1, 15] or n in {2, 4, ..., 30}: 23, with
  // both signs.
  EXPECT_EQ(hv.size(), 46u);
  EXPECT_EQ(iv.size(), 21u);
  EXPECT_EQ(av, (std::set<float>{0.5f, 1.0f, 1.5f, 2.0f}));
}

TEST(InputsTest, AdversarialInputsHaveEveryKind) {
  Kernel k = Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg b : bf16[4096] strides [1] readonly
arg f : f32[4096] strides [1] readonly
arg h : f16[4096] strides [1] readonly
arg i : i32[4096] strides [1] readonly
arg s : f32
  %b = load b[tid.x] : bf16
end
)");
  KernelData d = MakeAdversarialInputs(k, 3);
  EXPECT_EQ(d.buffers, MakeAdversarialInputs(k, 3).buffers);
  EXPECT_NE(d.buffers, MakeAdversarialInputs(k, 4).buffers);
  for (auto [name, t] : {std::pair<const char*, ElemType>{"b", ElemType::kBF16}, {"f", ElemType::kF32},
                         {"h", ElemType::kF16}}) {
    const int eb = ElemBytes(t);
    const int man_bits = t == ElemType::kF16 ? 10 : t == ElemType::kBF16 ? 7 : 23;
    int nan = 0, inf = 0, sub = 0, zero = 0, neg_zero = 0, tiny = 0, tie = 0;
    for (int e = 0; e < 4096; ++e) {
      const uint8_t* p = d.buffers[name].data() + eb * e;
      double v = ElementValue(t, p);
      uint32_t bits = 0;
      std::memcpy(&bits, p, eb);
      nan += std::isnan(v);
      inf += std::isinf(v);
      zero += v == 0;
      neg_zero += v == 0 && std::signbit(v);
      const double min_normal = t == ElemType::kF16 ? std::ldexp(1.0, -14) : std::ldexp(1.0, -126);
      sub += v != 0 && std::fabs(v) < min_normal;
      tiny += std::fabs(v) == std::ldexp(1.0, t == ElemType::kF16 ? -24 : -40);
      // A tie maker: an odd integer of man_bits/2 + 2 bits times a power of two.
      if (std::isfinite(v) && v != 0) {
        int ex;
        double m = std::frexp(std::fabs(v), &ex);
        double n = std::ldexp(m, (man_bits + 1) / 2 + 1);
        tie += n == std::trunc(n) && std::fmod(n, 2) == 1 && n >= std::ldexp(1.0, (man_bits + 1) / 2);
      }
      (void)bits;
    }
    EXPECT_GT(nan, 10) << name;
    EXPECT_GT(inf, 10) << name;
    EXPECT_GT(sub, 100) << name;
    EXPECT_GT(zero, 50) << name;
    EXPECT_GT(neg_zero, 20) << name;
    EXPECT_GT(tiny, 50) << name;
    EXPECT_GT(tie, 1000) << name;
    EXPECT_LT(nan + inf, 200) << name;  // rare: sums over many elements stay finite
  }
  std::set<int32_t> special;
  for (int e = 0; e < 4096; ++e) {
    int32_t x;
    std::memcpy(&x, d.buffers["i"].data() + 4 * e, 4);
    special.insert(x);
  }
  for (int32_t want : {INT32_MIN, INT32_MAX, -1, 0, 1, (1 << 24) + 1}) EXPECT_TRUE(special.count(want)) << want;
  EXPECT_TRUE(std::isfinite(F32FromBits(d.scalars["s"])));
}

TEST(InputsTest, MagnitudeInputsClearSignBits) {
  Kernel k = Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg h : f16[64] strides [1] readonly
arg i : i32[64] strides [1] readonly
arg s : f32
  %h = load h[tid.x] : f16
end
)");
  KernelData d = MakeInputs(k, 1);
  d.scalars["s"] = F32Bits(-1.5f);
  KernelData m = MagnitudeInputs(k, d);
  EXPECT_EQ(F32FromBits(m.scalars["s"]), 1.5f);
  EXPECT_EQ(m.buffers["i"], d.buffers["i"]);
  for (int e = 0; e < 64; ++e)
    EXPECT_EQ(ElementValue(ElemType::kF16, m.buffers["h"].data() + 2 * e),
              std::fabs(ElementValue(ElemType::kF16, d.buffers["h"].data() + 2 * e)));
  // MagnitudeKernel takes the absolute value of constants, in loops too.
  Kernel mk = MagnitudeKernel(Parse(LoopKernel(3, "    %c = const f32 -2.5\n    %n = mul %acc, %c")));
  EXPECT_EQ(mk.body[0].constant, 1.0);
  EXPECT_EQ(mk.body[1].body[1].constant, 2.5);
}

// Review 7 (F1, F5, F6): the conversion pass's analysis (of lw.kir:
// LongLoopKernel(false)).

// An MFMA's scaled result and a cvt of loaded f32 data to `TO` in one buffer
// (review 7 mb.kir, m8.kir).
std::string Beside(const std::string& to) { return ::kir::testing::Review7BesideKernel(to, true); }

TEST(ConversionPlanTest, NarrowingConversions) {
  EXPECT_FALSE(HasNarrowingConversion(::kir::testing::TestdataKernel("copy_f32")));
  EXPECT_FALSE(HasNarrowingConversion(::kir::testing::TestdataKernel("mma_16x16x16_f16")));  // f32 C
  EXPECT_FALSE(HasNarrowingConversion(::kir::testing::TestdataKernel("dequant_fp8")));       // fp8 -> f32
  EXPECT_TRUE(HasNarrowingConversion(::kir::testing::TestdataKernel("quant_fp8")));
  EXPECT_FALSE(HasNarrowingConversion(::kir::testing::TestdataKernel("gemm_f16_256")));   // f32 C
  EXPECT_TRUE(HasNarrowingConversion(::kir::testing::TestdataKernel("gemm_bf16_edge")));  // the gemm's C is bf16
  EXPECT_TRUE(HasNarrowingConversion(Parse(LongLoopKernel(false))));
  ExactPlan none = PlanConversionInputs(::kir::testing::TestdataKernel("copy_f32"));
  EXPECT_FALSE(none.exact);
  EXPECT_NE(none.blocker.find("no narrowing conversion"), std::string::npos) << none.blocker;
}

// The forms, by hand: the K = 512 f16 sum times alpha in {2} (the
// conversion pass's scalars are single powers of two: mag 2, no fraction
// bit) converted to f16 may carry 11 + 5 = 16 bits. With A and B
// +-m * 2^-a, +-m * 2^-b (m < 2^a, 2^b; no spread): magnitude
// 512 * (2^a - 1)(2^b - 1) * 2^-(a+b) * 2 in steps of 2^-(a+b-1), so
// (2^a - 1)(2^b - 1) <= 2^(16 - 9) = 128. Narrowing the richer argument
// first (A at equal richness): (5, 5) 961, (4, 5) 465, (4, 4) 225 fail,
// (3, 4) 105 fits. The exact pass must fit f16's 11 bits instead.
TEST(ConversionPlanTest, FormsCarryFiveBitsBeyondTheTarget) {
  const Kernel k = Parse(LongLoopKernel(false));
  ExactPlan p = PlanConversionInputs(k);
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_EQ(p.formats["A"].bits, 3);
  EXPECT_EQ(p.formats["A"].spread, 0);
  EXPECT_EQ(p.formats["B"].bits, 4);
  EXPECT_EQ(p.formats["B"].spread, 0);
  EXPECT_EQ(p.formats["alpha"].choices, (std::vector<double>{2}));
  // A cvt of loaded f32 data that is also added elsewhere (so not only
  // converted): f32 values of 8 + 5 = 13 bits for bf16.
  ExactPlan q = PlanConversionInputs(Parse(R"(kernel c
workgroup 64 1 1
grid 1 1 1
arg X : f32[64] strides [1] readonly
arg O : bf16[64] strides [1] writeonly
arg S : f32[64] strides [1] writeonly
  %x = load X[tid.x] : f32
  %q = cvt %x : bf16
  store O[tid.x], %q
  %s = add %x, %x
  store S[tid.x], %s
end
)"));
  ASSERT_TRUE(q.exact) << q.blocker;
  EXPECT_FALSE(q.formats["X"].special);
  EXPECT_EQ(q.formats["X"].bits + q.formats["X"].spread, 13);
}

// Fresh-user review 8 F2: a chain f32 -> f16 -> f8e4m3fnuz of
// x * scale + y. One pass per chain level; the forms by hand (scale 2, no
// fraction bit; X and Y alike, narrowed alternately from 24 bits, X first at
// equal richness):
// - level 1, two scales of gap p_f16 - 3 = 8 and at most p_fp8 + 1 = 5
//   bits: +-m * 2^-b, m < 2^b, or +-2^-(b + 8): magnitude 3 (2^b - 1) 2^-b
//   in steps of 2^-(b + 8), log2(3 (2^b - 1)) + 8 bits <= 11 + 5 = 16: b = 5
//   fits (93/32 in steps of 2^-13: 15 bits), so X and Y start there; the fp8
//   conversion's operand (the f16 result) need only lie within 240.
// - level 2: the fp8 conversion's operand within 4 + 5 = 9 bits: 3 (2^b - 1)
//   2^-b in steps of 2^-b needs log2(3 (2^b - 1)) <= 9: b = 7 (381 <= 512;
//   b = 8: 765). The f16 conversion of those 9 bits is exact: that pass
//   never rounds it, the first does.
TEST(ConversionPlanTest, OnePassPerChainLevel) {
  const Kernel k = Parse(::kir::testing::Review8F2ElementwiseKernel(""));
  std::vector<ExactPlan> passes = PlannedPasses(PlanConversionPasses(k));
  ASSERT_EQ(passes.size(), 2u);
  const ExactPlan& p1 = passes[0];
  EXPECT_EQ(p1.level, 1);
  for (const char* a : {"X", "Y"}) {
    EXPECT_TRUE(p1.formats.at(a).two_scale) << a;
    EXPECT_EQ(p1.formats.at(a).bits, 5) << a;
    EXPECT_EQ(p1.formats.at(a).spread, 8) << a;
    EXPECT_EQ(p1.formats.at(a).exp_lo, -13) << a;
  }
  EXPECT_EQ(p1.formats.at("X").Describe(), "+-m*2^e, m in [1, 31], e = -5; one in 5 +-2^-13");
  EXPECT_EQ(p1.formats.at("scale").choices, (std::vector<double>{2}));
  ASSERT_EQ(p1.conversions.size(), 2u);
  EXPECT_EQ(p1.conversions[0].where, "12:3: '%h = cvt %s : f16x4'");
  EXPECT_EQ(p1.conversions[0].level, 1);
  EXPECT_EQ(p1.conversions[0].bits, 15);
  EXPECT_TRUE(p1.conversions[0].rounds);
  EXPECT_EQ(p1.conversions[1].level, 2);
  EXPECT_TRUE(p1.conversions[1].rounds);
  const ExactPlan& p2 = passes[1];
  EXPECT_EQ(p2.level, 2);
  for (const char* a : {"X", "Y"}) {
    EXPECT_FALSE(p2.formats.at(a).two_scale) << a;
    EXPECT_EQ(p2.formats.at(a).bits, 7) << a;
    EXPECT_EQ(p2.formats.at(a).spread, 0) << a;
  }
  ASSERT_EQ(p2.conversions.size(), 2u);
  EXPECT_FALSE(p2.conversions[0].rounds);  // 9 bits: exact in f16
  EXPECT_EQ(p2.conversions[0].bits, 9);
  EXPECT_TRUE(p2.conversions[1].rounds);
  EXPECT_EQ(p2.conversions[1].bits, 9);
  EXPECT_TRUE(UnroundedConversions(passes).empty());
  // PlanConversionInputs is the first pass.
  EXPECT_EQ(PlanConversionInputs(k).formats.at("X").Describe(), p1.formats.at("X").Describe());
}

// How RoundToBits breaks ties.
enum class Ties { kEven, kTowardZero, kAway };

// x rounded to nearest with p significand bits, ties as `ties` (normal
// range, x a dyadic number exact in double), by its own arithmetic: x = y *
// 2^q with q the exponent of the p-th bit, y split into integer and fraction.
double RoundToBits(double x, int p, Ties ties = Ties::kEven) {
  if (x == 0) return 0;
  int e = 0;
  std::frexp(std::fabs(x), &e);  // |x| in [2^(e-1), 2^e)
  const double q = std::ldexp(1.0, e - p);
  const double y = std::fabs(x) / q, n = std::floor(y), f = y - n;
  const bool up = f > 0.5 || (f == 0.5 && (ties == Ties::kAway || (ties == Ties::kEven && std::fmod(n, 2.0) == 1)));
  return std::copysign((n + (up ? 1 : 0)) * q, x);
}

// review 8's K = 64 MFMA chain f32 -> `mid` (f16 or bf16) -> f8e4m3fnuz (k3).
std::string LongSumChainKernel(const char* mid) { return ::kir::testing::Review8ChainKernel(mid); }

// Fresh-user review 10 F3: review 8's K = 64 MFMA chain f32 -> f16 ->
// f8e4m3fnuz (k3). An f16 step whose ties round toward zero passed seeds 1,
// 9 and 10: the level-1 pass's sums (A +-m*2^-2, m in [1, 3]; B +-2^-1, one
// in 5 +-2^-9) were seldom exact f16 ties, and a tie changes the fp8 code
// only when it lies half an f16 ulp below an fp8 midpoint whose tie goes
// up. Fresh-user review 12 F5: one whose ties round away from zero passed
// seeds 3, 6 and 9 of 10 (f16 and bf16 middle steps): that needs a tie
// half an ulp above a midpoint whose tie goes down, and the low terms were
// negative 3 in 4 (one in 64 at random: 5 to 16 per seed, whole seeds
// without a positive one). The long-sum forms (exact.cc LongSumTwoScale),
// by hand: T = 64 terms; every factor +-2^e: A +-1/2, B +-1/2 or, at every
// 61st element (61: the largest prime <= 64; one in each row of B, two
// in 3 of 61 rows), +-2^-s (3 in 4) or +-2^-(1 + s), alternately negative;
// the coarse sum C counts units of 2^-2 over the n = 63 high terms (when
// one is low): odd, so aimed at [16, 32) units (b = p_fp8 = 4, where the
// fp8 midpoints are the odd units, tie up at 3 mod 4, down at 1 mod 4) by
// B's high negatives: (1 - 2q) 63 = 24 gives q = 0.31, r = (q - 1/8) / (3/4)
// = 0.25: one in 4; s = p_mid - b + 1 (f16 8, bf16 5), so a low term is
// 2^-(s + 1) = 2^(1 - s) units, half a middle ulp at [16, 32) units (ulp
// 2^(4 - (p_mid - 1)) units), or a quarter of one. f16: the sum is 16 at
// most, in steps of 2^-10: 14 bits. An oracle of this test's own counts,
// from the generated inputs, the sums that are ties of the middle format
// and those whose fp8 code a ties-toward-zero and a ties-away middle step
// change: each at least 8 of 256 per seed, seeds 1 to 10 (about 16 low
// elements per seed, 6 of each sign half an ulp, each in 16 sums of which
// about a third have C in the binade on a midpoint of the right kind:
// about 30 expected); and those that round without being a tie (a quarter
// ulp off a middle value): at least 5% per seed.
TEST(ConversionPlanTest, LongSumChainPutsTiesOnBothSidesOfFp8Midpoints) {
  for (const char* mid : {"f16", "bf16"}) {
    SCOPED_TRACE(mid);
    const bool bf16 = std::string(mid) == "bf16";
    const int p_mid = bf16 ? 8 : 11;
    const Kernel k = Parse(LongSumChainKernel(mid));
    std::vector<ExactPlan> passes = PlannedPasses(PlanConversionPasses(k));
    ASSERT_EQ(passes.size(), 2u);
    const ExactPlan& p = passes[0];
    EXPECT_EQ(p.formats.at("A").Describe(), "+-m*2^e, m in [1, 1], e = -1");
    EXPECT_EQ(p.formats.at("B").Describe(),
              bf16 ? "+-m*2^e, m in [1, 1], e = -1 (negative 1 in 4); every 61st element +-2^-5 (3 in 4) or +-2^-6, "
                     "alternately negative"
                   : "+-m*2^e, m in [1, 1], e = -1 (negative 1 in 4); every 61st element +-2^-8 (3 in 4) or +-2^-9, "
                     "alternately negative");
    ASSERT_EQ(p.conversions.size(), 2u);
    EXPECT_EQ(p.conversions[0].bits, bf16 ? 11 : 14);
    EXPECT_TRUE(p.conversions[0].rounds);
    int64_t all = 0, all_ties = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      const KernelData d = MakeConversionInputs(k, p, seed);
      double a[16][64], b[16][64];
      int lows[2] = {0, 0};  // B's low elements, positive and negative
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 64; ++j) {
          uint16_t x = 0, y = 0;
          d.buffers.at("A").Read(2 * (64 * i + j), reinterpret_cast<uint8_t*>(&x), 2);
          d.buffers.at("B").Read(2 * (64 * i + j), reinterpret_cast<uint8_t*>(&y), 2);
          a[i][j] = F16BitsToF32(x);
          b[i][j] = F16BitsToF32(y);
          if (std::fabs(b[i][j]) < 0.25) ++lows[b[i][j] < 0];
        }
      // 1024 elements at a period of 61: 16 or 17 low ones, alternately
      // negative.
      EXPECT_GE(lows[0] + lows[1], 16) << "seed " << seed;
      EXPECT_LE(lows[0] + lows[1], 17) << "seed " << seed;
      EXPECT_LE(std::abs(lows[0] - lows[1]), 1) << "seed " << seed;
      int ties = 0, toward = 0, away = 0, between = 0;  // between: inexact in the middle format, no tie
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
          double sum = 0;  // exact: multiples of 2^-10 (bf16: 2^-7) below 2^4
          for (int t = 0; t < 64; ++t) sum += a[i][t] * b[j][t];
          const double h = RoundToBits(sum, p_mid), hz = RoundToBits(sum, p_mid, Ties::kTowardZero),
                       ha = RoundToBits(sum, p_mid, Ties::kAway);
          if (sum != 0 && RoundToBits(sum, p_mid + 1) == sum && h != sum) ++ties;
          if (RoundToBits(sum, p_mid + 1) != sum) ++between;
          if (RoundToBits(h, 4) != RoundToBits(hz, 4)) ++toward;
          if (RoundToBits(h, 4) != RoundToBits(ha, 4)) ++away;
        }
      std::printf("%s seed %d: %d of 256 sums are ties, %d change the fp8 code when ties go toward zero, %d when "
                  "away, %d lie between a tie and a middle value\n",
                  mid, static_cast<int>(seed), ties, toward, away, between);
      EXPECT_GE(toward, 8) << "seed " << seed;
      EXPECT_GE(away, 8) << "seed " << seed;
      EXPECT_GE(between, 256 / 20) << "seed " << seed;  // values that round without a tie
      all += 256;
      all_ties += ties;
    }
    EXPECT_GE(static_cast<double>(all_ties) / static_cast<double>(all), 0.05);
  }
}

// Fresh-user review 8 F8: `add(cvt(x * x : f16), z)`. The f16 add of the
// conversion's result and z is one IEEE operation of values both sides hold
// bit for bit: it need only stay within f16's range, so x * x may carry 11 +
// 5 = 16 bits: +-m * 2^-b squared is (2^b - 1)^2 2^-2b in steps of 2^-2b,
// 2b bits: b = 8 (255^2 = 65025 < 2^16). Before, the add had to be exact in
// f16, x * x fit 10 bits (m <= 31) and the conversion never rounded. Z keeps
// f16's full significand and spread (11 bits, e in [-14, -11]).
TEST(ConversionPlanTest, ArithmeticAfterAConversionNeedNotBeExact) {
  const Kernel k = Parse(::kir::testing::F16AddKernel("", false));
  std::vector<ExactPlan> passes = PlannedPasses(PlanConversionPasses(k));
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(passes[0].formats.at("X").Describe(), "+-m*2^e, m in [1, 255], e = -8");
  EXPECT_EQ(passes[0].formats.at("Z").Describe(), "+-m*2^e, m in [1, 2047], e in [-14, -11]");
  ASSERT_EQ(passes[0].conversions.size(), 1u);
  EXPECT_EQ(passes[0].conversions[0].bits, 16);
  EXPECT_TRUE(passes[0].conversions[0].rounds);
  EXPECT_TRUE(UnroundedConversions(passes).empty());
  // The exact pass still keeps every value exact: x * x within f16's 11 bits
  // (m <= 31: 961 < 2^11 in steps of 2^-10).
  EXPECT_EQ(PlanExactInputs(k).formats.at("X").Describe(), "+-m*2^e, m in [1, 31], e = -5");
}

// A conversion no input form can round: i32 values of at most 1000 (10
// bits) are exact in f16 (11), so the pass says so.
TEST(ConversionPlanTest, UnroundedConversionsAreNamed) {
  const Kernel k = Parse(R"(kernel ki
workgroup 64 1 1
grid 1 1 1
arg X : i32[64] strides [1] readonly
arg Y : f16[64] strides [1] writeonly
  %x = load X[tid.x] : i32
  %h = cvt %x : f16
  store Y[tid.x], %h
end
)");
  std::vector<ExactPlan> passes = PlanConversionPasses(k);
  ASSERT_EQ(passes.size(), 1u);
  ASSERT_EQ(passes[0].conversions.size(), 1u);
  EXPECT_EQ(passes[0].conversions[0].bits, 10);
  EXPECT_FALSE(passes[0].conversions[0].rounds);
  EXPECT_EQ(UnroundedConversions(passes), (std::vector<std::string>{"7:3: '%h = cvt %x : f16'"}));
}

TEST(ConversionPlanTest, BuffersOnlyConvertedGetSpecialValues) {
  // Through slice and concat to a cvt and a store: X only; A and B feed the MFMA.
  using Fed = std::map<std::string, std::vector<ElemType>>;
  EXPECT_EQ(ConversionFedBuffers(Parse(Beside("bf16"))), (Fed{{"X", {ElemType::kBF16}}}));
  EXPECT_EQ(ConversionFedBuffers(Parse(Beside("f8e4m3fn"))), (Fed{{"X", {ElemType::kF8E4M3FN}}}));
  ExactPlan p = PlanConversionInputs(Parse(Beside("f8e4m3fn")));
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_TRUE(p.formats["X"].special);
  EXPECT_EQ(p.formats["X"].special_to, ElemType::kF8E4M3FN);
  EXPECT_EQ(p.formats["X"].special_targets, (std::vector<ElemType>{ElemType::kF8E4M3FN}));
  EXPECT_FALSE(p.formats["A"].special);
  // Not only converted: also added; stored where the kernel reads it back.
  const char* kNot[] = {
      R"(kernel c
workgroup 64 1 1
grid 1 1 1
arg X : f32[64] strides [1] readonly
arg O : f16[64] strides [1] writeonly
  %x = load X[tid.x] : f32
  %y = add %x, %x
  %q = cvt %y : f16
  store O[tid.x], %q
end
)",
      R"(kernel c
workgroup 64 1 1
grid 1 1 1
arg X : f32[64] strides [1] readonly
arg O : f16[64] strides [1] readwrite
arg P : f16[64] strides [1] writeonly
  %x = load X[tid.x] : f32
  %q = cvt %x : f16
  store O[tid.x], %q
  %o = load O[tid.x] : f16
  store P[tid.x], %o
end
)"};
  for (const char* t : kNot) EXPECT_TRUE(ConversionFedBuffers(Parse(t)).empty()) << t;
}

// Testdata kernels with a narrowing conversion get conversion inputs.
TEST(ConversionPlanTest, TestdataKernels) {
  for (const char* n : {"gemm_bf16_edge", "gemm_f16_km_kn", "gemm_fp8_fnuz_edge"}) {
    const Kernel k = Promoted(n, "gfx942");
    EXPECT_TRUE(HasNarrowingConversion(k)) << n;
    ExactPlan p = PlanConversionInputs(k);
    EXPECT_TRUE(p.exact) << n << ": " << p.blocker;
  }
  ExactPlan q = PlanConversionInputs(::kir::testing::TestdataKernel("quant_fp8"));
  EXPECT_TRUE(q.exact) << q.blocker;
}

// Special values of the conversions, by hand from the formats (bf16: 8
// significand bits, max (2 - 2^-7) * 2^127; f16: 11, max 65504, smallest
// subnormal 2^-24; f8e4m3fn: 4, max 448, smallest subnormal 2^-9).
TEST(InputsTest, ConversionSpecialsByHand) {
  uint64_t s = 1;
  auto at = [&](ElemType t, int j) { return ConversionSpecial(t, j, s); };
  EXPECT_EQ(at(ElemType::kBF16, 3), 0x7f800000u);
  EXPECT_EQ(at(ElemType::kBF16, 6), 0x80000000u);
  EXPECT_EQ(at(ElemType::kBF16, 7), 0x7f7f0000u);   // bf16 max
  EXPECT_EQ(at(ElemType::kBF16, 9), 0x7f7f8000u);   // max + half an ulp: the tie above max
  EXPECT_EQ(at(ElemType::kBF16, 11), 0x7f7f7fffu);  // just below it
  EXPECT_EQ(at(ElemType::kBF16, 15), 0x00010000u);  // 2^-133
  EXPECT_EQ(at(ElemType::kF16, 7), 0x477fe000u);    // 65504
  EXPECT_EQ(at(ElemType::kF16, 9), 0x477ff000u);    // 65520
  EXPECT_EQ(at(ElemType::kF16, 12), 0xc77ff001u);   // -(65520 + one f32 ulp)
  EXPECT_EQ(at(ElemType::kF16, 17), 0x33000000u);   // 2^-25: 0 or 2^-24
  EXPECT_EQ(at(ElemType::kF16, 18), 0xb3c00000u);   // -1.5 * 2^-24
  EXPECT_EQ(at(ElemType::kF16, 22), 0x38800000u);   // 2^-14
  EXPECT_EQ(at(ElemType::kF8E4M3FN, 7), 0x43e00000u);   // 448
  EXPECT_EQ(at(ElemType::kF8E4M3FN, 9), 0x43e80000u);   // 464
  EXPECT_EQ(at(ElemType::kF8E4M3FN, 15), 0x3b000000u);  // 2^-9
  for (int j : {0, 1, 2}) EXPECT_TRUE(std::isnan(F32FromBits(at(ElemType::kF16, j)))) << j;
  // Ties of the conversion: the bits below the target's significand are
  // 1000...0 (bf16: the low 16 of f32's; f16 and f8e4m3fn in their normal
  // range: 13 and 20), +-1 in the last place for the neighbours, and the
  // target's last bit odd for odd j.
  for (uint64_t seed = 1; seed <= 50; ++seed)
    for (auto [t, drop] : {std::pair{ElemType::kBF16, 16}, std::pair{ElemType::kF16, 13},
                           std::pair{ElemType::kF8E4M3FN, 20}})
      for (int j = 24; j < 36; ++j) {
        s = seed;
        const uint32_t b = ConversionSpecial(t, j, s);
        const uint32_t low = b & ((1u << drop) - 1), half = 1u << (drop - 1);
        const int kind = ((j - 24) / 2) % 3;
        EXPECT_EQ(low, kind == 0 ? half : kind == 1 ? half + 1 : half - 1) << j << " " << std::hex << b;
        EXPECT_EQ((b >> drop) & 1, static_cast<uint32_t>(j % 2)) << j << " " << std::hex << b;
        EXPECT_EQ(b >> 31, j >= 30 ? 1u : 0u) << j;
      }
}

// Each special value at every element of a vector of 4 (element i mod 4) and
// in many lanes; the other buffers mostly positive.
TEST(InputsTest, ConversionInputsPutEverySpecialAtEveryPosition) {
  const Kernel k = Parse(Beside("bf16"));
  ExactPlan p = PlanConversionInputs(k);
  ASSERT_TRUE(p.exact) << p.blocker;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    KernelData d = MakeConversionInputs(k, p, seed);
    std::map<int, std::set<std::string>> kinds;  // position -> kinds seen
    int odd_ties = 0;
    for (int i = 0; i < 256; ++i) {
      uint32_t b;
      std::memcpy(&b, d.buffers["X"].data() + 4 * i, 4);
      const float v = F32FromBits(b);
      std::string kind = std::isnan(v) ? "nan" : std::isinf(v) ? (v > 0 ? "+inf" : "-inf")
                         : v == 0       ? (std::signbit(v) ? "-0" : "+0")
                         : std::fabs(v) > 3.3895313892515355e38 ? "beyond"
                         : (b & 0xffff) == 0x8000 ? ((b >> 16) & 1 ? "odd tie" : "even tie")
                                                  : "";
      if (!kind.empty()) kinds[i % 4].insert(kind);
      odd_ties += kind == "odd tie" && i % 4 == 0;
    }
    for (int pos = 0; pos < 4; ++pos)
      EXPECT_EQ(kinds[pos], (std::set<std::string>{"nan", "+inf", "-inf", "+0", "-0", "beyond", "odd tie", "even tie"}))
          << "seed " << seed << " position " << pos;
    // 64 lanes, 37 values: j = 25 and 31 are exact ties with an odd last bit.
    EXPECT_GE(odd_ties, 2) << "seed " << seed;
    int negative = 0;
    for (int i = 0; i < 512; ++i) negative += ElementValue(ElemType::kF16, d.buffers["A"].data() + 2 * i) < 0;
    EXPECT_GT(negative, 512 / 8 / 2);
    EXPECT_LT(negative, 512 / 8 * 2);
  }
}

// Fresh-user review 12 F6: a buffer converted to several types gets the
// special values of every conversion (before, it was left out of
// ConversionFedBuffers and got NaN and +-inf only).
TEST(ConversionPlanTest, BufferConvertedToSeveralTypesGetsTheSpecialsOfEach) {
  using Fed = std::map<std::string, std::vector<ElemType>>;
  const Kernel k = Parse(::kir::testing::Review12F6Kernel());
  EXPECT_EQ(ConversionFedBuffers(k), (Fed{{"X", {ElemType::kF16, ElemType::kBF16}}}));
  ExactPlan p = PlanConversionInputs(k);
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_TRUE(p.formats["X"].special);
  EXPECT_EQ(p.formats["X"].special_targets, (std::vector<ElemType>{ElemType::kF16, ElemType::kBF16}));
  EXPECT_EQ(p.formats["X"].special_to, ElemType::kF16);
  EXPECT_FALSE(p.formats["A"].special);
  EXPECT_EQ(p.formats["X"].Describe(),
            "special values of the conversions to f16 and bf16 (NaN, +-inf, +-0, +-max, beyond max, subnormals, "
            "ties and tie +-1 ulp of each) at every position");
  // The saturation specials leave it alone (it holds the richer set).
  EXPECT_EQ(WithSaturationSpecials(k, p).formats["X"].mix_level, -1);
  // An f16 buffer quantised to two fp8 types (the second conversion to
  // f8e4m3fnuz is the same target: listed once).
  const Kernel k2 = Parse(R"(kernel c
workgroup 64 1 1
grid 1 1 1
arg X : f16[64] strides [1] readonly
arg O : f8e4m3fnuz[64] strides [1] writeonly
arg P : f8e5m2fnuz[64] strides [1] writeonly
arg Q : f8e4m3fnuz[64] strides [1] writeonly
  %x = load X[tid.x] : f16
  %q = cvt %x : f8e4m3fnuz
  store O[tid.x], %q
  %r = cvt %x : f8e5m2fnuz
  store P[tid.x], %r
  %s = cvt %x : f8e4m3fnuz
  store Q[tid.x], %s
end
)");
  EXPECT_EQ(ConversionFedBuffers(k2), (Fed{{"X", {ElemType::kF8E4M3FNUZ, ElemType::kF8E5M2FNUZ}}}));
  ExactPlan p2 = PlanConversionInputs(k2);
  ASSERT_TRUE(p2.exact) << p2.blocker;
  EXPECT_EQ(p2.formats["X"].Describe(ElemType::kF16).rfind(
                "special f16 values of the conversions to f8e4m3fnuz and f8e5m2fnuz (", 0),
            0u)
      << p2.formats["X"].Describe(ElemType::kF16);
  ExactFormat three;
  three.special = true;
  three.special_to = ElemType::kF16;
  three.special_targets = {ElemType::kF16, ElemType::kBF16, ElemType::kF8E4M3FN};
  EXPECT_EQ(three.Describe().rfind("special values of the conversions to f16, bf16 and f8e4m3fn (", 0), 0u)
      << three.Describe();
}

// The period and slots of several targets' specials, by hand: 37 + 30 per
// further target (values 7..36 of each; 0..6, NaNs, +-inf, +-0, are
// shared): 67, 97, 127, 157 are prime; 6 targets: 187 = 11 * 17, 188 = 4 *
// 47, 189 = 27 * 7, 190 = 10 * 19, so 191.
TEST(InputsTest, SeveralTargetsSpecialPeriodAndSlotsByHand) {
  EXPECT_EQ(kTargetFreeSpecials, 7);
  EXPECT_EQ(ConversionSpecialPeriod(1), 37);
  EXPECT_EQ(ConversionSpecialPeriod(2), 67);
  EXPECT_EQ(ConversionSpecialPeriod(3), 97);
  EXPECT_EQ(ConversionSpecialPeriod(4), 127);
  EXPECT_EQ(ConversionSpecialPeriod(5), 157);
  EXPECT_EQ(ConversionSpecialPeriod(6), 191);
  auto slot = [](int n, int u) {
    const SpecialSlot s = ConversionSpecialSlot(n, u);
    return std::pair{s.target, s.j};
  };
  for (int u = 0; u < 37; ++u) EXPECT_EQ(slot(1, u), (std::pair{0, u}));
  EXPECT_EQ(slot(2, 36), (std::pair{0, 36}));
  EXPECT_EQ(slot(2, 37), (std::pair{1, 7}));
  EXPECT_EQ(slot(2, 66), (std::pair{1, 36}));
  EXPECT_EQ(slot(3, 67), (std::pair{2, 7}));
  EXPECT_EQ(slot(6, 186), (std::pair{5, 36}));
  EXPECT_EQ(slot(6, 187), (std::pair{0, 0}));  // the padding repeats from slot 0
  EXPECT_EQ(slot(6, 190), (std::pair{0, 3}));
  // The shared values are the same for every target (same draws).
  for (uint64_t seed = 1; seed <= 20; ++seed)
    for (int j = 0; j < 7; ++j) {
      uint64_t s1 = seed, s2 = seed, s3 = seed, s4 = seed;
      EXPECT_EQ(ConversionSpecialFrom(ElemType::kF32, ElemType::kF16, j, s1),
                ConversionSpecialFrom(ElemType::kF32, ElemType::kBF16, j, s2))
          << j;
      EXPECT_EQ(ConversionSpecialFrom(ElemType::kF16, ElemType::kF8E4M3FNUZ, j, s3),
                ConversionSpecialFrom(ElemType::kF16, ElemType::kF8E5M2FNUZ, j, s4))
          << j;
    }
}

// An f32 buffer converted to f16 and bf16 (1024 elements: 67 slots, each
// at the 4 positions of a vector within 67 + 3 * 67 elements) holds the
// special values of both conversions at every position, classified by hand
// from the f32 bits: f16's max 65504 and beyond it (65520, 65536, 4 *
// 65504 = 262016), its subnormals (below 2^-14 = 0x38800000) and ties (low
// 13 bits 1 followed by zeros, in its normal range); bf16's max
// 0x7f7f0000, beyond it, its subnormals (at most 2^-126, bf16's smallest
// normal) and ties (low 16 bits 0x8000).
TEST(InputsTest, SeveralTargetsPutEachTargetsSpecialsAtEveryPosition) {
  const Kernel k = Parse(R"(kernel c
workgroup 64 1 1
grid 4 1 1
arg X : f32[256, 4] strides [4, 1] readonly
arg Y : f16[256, 4] strides [4, 1] writeonly
arg Z : bf16[256, 4] strides [4, 1] writeonly
  %x = load X[wg.x * 64 + tid.x, 0] : f32x4
  %y = cvt %x : f16x4
  store Y[wg.x * 64 + tid.x, 0], %y
  %z = cvt %x : bf16x4
  store Z[wg.x * 64 + tid.x, 0], %z
end
)");
  ExactPlan p = PlanConversionInputs(k);
  ASSERT_TRUE(p.exact) << p.blocker;
  ASSERT_TRUE(p.formats["X"].special);
  const std::set<std::string> all = {"nan",     "+inf",       "-inf",       "+0",     "-0",
                                     "f16 max", "f16 beyond", "f16 sub",    "f16 tie", "bf16 max",
                                     "bf16 beyond", "bf16 sub", "bf16 tie"};
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    KernelData d = MakeConversionInputs(k, p, seed);
    std::map<int, std::set<std::string>> kinds;  // position -> kinds seen
    for (int i = 0; i < 1024; ++i) {
      uint32_t b;
      std::memcpy(&b, d.buffers["X"].data() + 4 * i, 4);
      const float v = F32FromBits(b);
      const double a = std::fabs(static_cast<double>(v));
      std::string kind = std::isnan(v) ? "nan" : std::isinf(v) ? (v > 0 ? "+inf" : "-inf")
                         : v == 0 ? (std::signbit(v) ? "-0" : "+0")
                         : a == 65504 ? "f16 max"
                         : a > 65504 && a <= 262016 ? "f16 beyond"
                         : a < 0x1p-14 && a > 0x1p-30 ? "f16 sub"
                         : (b & 0x7fffffffu) == 0x7f7f0000u ? "bf16 max"
                         : a > 3.3895313892515355e38 ? "bf16 beyond"
                         : a <= 0x1p-126 ? "bf16 sub"
                         : (b & 0x1fffu) == 0x1000u && a >= 0x1p-14 && a < 65504 ? "f16 tie"
                         : (b & 0xffffu) == 0x8000u ? "bf16 tie"
                                                    : "";
      if (!kind.empty()) kinds[i % 4].insert(kind);
    }
    for (int pos = 0; pos < 4; ++pos) EXPECT_EQ(kinds[pos], all) << "seed " << seed << " position " << pos;
  }
}

// Fresh-user review 8 F5: an f16 buffer only quantised gets the special
// values of the conversion, in f16 (by hand: 240 = 1.875 * 2^7, f16
// exponent field 7 + 15 = 22, bits 22 << 10 | 0.875 * 1024 = 0x5b80; 248 =
// 1.9375 * 2^7: 0x5bc0; f16's max 65504: 0x7bff; f8e4m3fnuz's smallest
// subnormal 2^(1 - 8 - 3) = 2^-10: 0x1400).
TEST(ConversionPlanTest, F16AndBf16BuffersOnlyConvertedGetTheirOwnSpecials) {
  const Kernel k5 = Parse(::kir::testing::Review8F5Kernel());
  using Fed = std::map<std::string, std::vector<ElemType>>;
  EXPECT_EQ(ConversionFedBuffers(k5), (Fed{{"X", {ElemType::kF8E4M3FNUZ}}}));
  // Through an exact cvt to f32 too.
  EXPECT_EQ(ConversionFedBuffers(Parse(R"(kernel c
workgroup 64 1 1
grid 1 1 1
arg X : bf16[64] strides [1] readonly
arg O : f16[64] strides [1] writeonly
  %x = load X[tid.x] : bf16
  %y = cvt %x : f32
  %q = cvt %y : f16
  store O[tid.x], %q
end
)")),
            (Fed{{"X", {ElemType::kF16}}}));
  ExactPlan p = PlanConversionInputs(k5);
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_TRUE(p.formats["X"].special);
  EXPECT_EQ(p.formats["X"].Describe(ElemType::kF16).rfind("special f16 values of the conversion to f8e4m3fnuz", 0),
            0u);
  uint64_t s = 1;
  auto at = [&](ElemType from, int j) { return ConversionSpecialFrom(from, ElemType::kF8E4M3FNUZ, j, s); };
  const ElemType h = ElemType::kF16;
  EXPECT_EQ(at(h, 3), 0x7c00u);
  EXPECT_EQ(at(h, 4), 0xfc00u);
  EXPECT_EQ(at(h, 6), 0x8000u);
  EXPECT_EQ(at(h, 7), 0x5b80u);   // 240
  EXPECT_EQ(at(h, 8), 0xdb80u);   // -240
  EXPECT_EQ(at(h, 9), 0x5bc0u);   // 248, the tie above max
  EXPECT_EQ(at(h, 11), 0x5bbfu);  // f16's neighbour below it
  EXPECT_EQ(at(h, 12), 0xdbc1u);  // -(248 + one f16 ulp)
  EXPECT_EQ(at(h, 13), 0x7bffu);  // f16's own max 65504, beyond 240
  EXPECT_EQ(at(h, 15), 0x1400u);  // 2^-10
  int low_only = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    s = seed;
    const uint32_t q = at(h, 0), n = at(h, 1), sig = at(h, 2);
    EXPECT_EQ(q & 0xfe00u, 0x7e00u) << std::hex << q;  // quiet NaN, +
    EXPECT_EQ(n & 0xfe00u, 0xfe00u) << std::hex << n;  // quiet NaN, -
    EXPECT_EQ(sig & 0xfe00u, 0x7c00u) << std::hex << sig;  // signalling: quiet bit clear, payload non-zero
    EXPECT_NE(sig & 0x3ffu, 0u);
    // f32 signalling NaNs, half of them with a payload in the low 7 bits
    // only: truncated to bf16 (the high 16 bits) without a NaN fix-up they
    // give inf (review 12 F2).
    s = seed;
    const uint32_t sig32 = ConversionSpecialFrom(ElemType::kF32, ElemType::kBF16, 2, s);
    EXPECT_EQ(sig32 & 0xffc00000u, 0x7f800000u) << std::hex << sig32;
    EXPECT_NE(sig32 & 0x3fffffu, 0u) << std::hex << sig32;
    if ((sig32 & 0x3fff80u) == 0) ++low_only;
    // Ties of f8e4m3fnuz (4 significand bits) in f16 (11): the low 7 bits
    // 1000000, +-1 for the neighbours, the kept last bit odd for odd j.
    for (int j = 24; j < 36; ++j) {
      s = seed;
      const uint32_t b = at(h, j);
      const int kind = ((j - 24) / 2) % 3;
      EXPECT_EQ(b & 0x7fu, kind == 0 ? 0x40u : kind == 1 ? 0x41u : 0x3fu) << j << " " << std::hex << b;
      EXPECT_EQ((b >> 7) & 1, static_cast<uint32_t>(j % 2)) << j;
      EXPECT_EQ(b >> 15, j >= 30 ? 1u : 0u) << j;
    }
  }
  // Both kinds of f32 signalling NaN occur over 20 seeds.
  EXPECT_GT(low_only, 0);
  EXPECT_LT(low_only, 20);
  // bf16 of f16's max 65504 (0x477fe000 in f32) rounds up to 65536 (0x4780):
  // beyond f16's max as well.
  s = 1;
  EXPECT_EQ(ConversionSpecialFrom(ElemType::kBF16, ElemType::kF16, 7, s), 0x4780u);
  EXPECT_EQ(ConversionSpecialFrom(ElemType::kBF16, ElemType::kF16, 3, s), 0x7f80u);
  // bf16's own max (0x7f7f) far beyond f16's; f16's 65504 is not beyond
  // bf16's, so 4 * bf16 max, beyond f16's range, gives f16's max (0x7bff).
  EXPECT_EQ(ConversionSpecialFrom(ElemType::kBF16, ElemType::kF16, 13, s), 0x7f7fu);
  EXPECT_EQ(ConversionSpecialFrom(ElemType::kF16, ElemType::kBF16, 13, s), 0x7bffu);
}

// Fresh-user review 8 F1: O of O = cvt(alpha * acc + cvt(O)) reaches the
// conversion through elementwise ops; A and B feed the MFMA.
TEST(ConversionPlanTest, SaturationSpecialsOfElementwiseFedBuffers) {
  const Kernel k1 = Parse(::kir::testing::Review8F1Kernel());
  EXPECT_EQ(ElementwiseFedBuffers(k1), (std::map<std::string, ElemType>{{"O", ElemType::kF8E4M3FNUZ}}));
  EXPECT_EQ(ElementwiseFedBuffers(Parse(::kir::testing::Review8F5Kernel())),
            (std::map<std::string, ElemType>{{"X", ElemType::kF8E4M3FNUZ}}));
  // By hand: f8e4m3fnuz's max 240 (ulp 16 at the top), the ties beside it
  // 248 and 232 are not f8e4m3fnuz values, nor are 480 and -960; 224 is.
  const ElemType q = ElemType::kF8E4M3FNUZ;
  std::vector<double> sp = SaturationSpecials(q, q, 0);
  ASSERT_EQ(sp.size(), 5u);
  EXPECT_TRUE(std::isnan(sp[0]));
  EXPECT_EQ(std::vector<double>(sp.begin() + 1, sp.end()), (std::vector<double>{240, -240, 224, -224}));
  // From f16: also +-inf, the ties, beyond max, +-244 (inside the window
  // (240, 248) that rounds to 240: 240 + 16 / 4) and f16's own max.
  sp = SaturationSpecials(ElemType::kF16, q, 0);
  ASSERT_EQ(sp.size(), 17u);
  EXPECT_EQ(std::vector<double>(sp.begin() + 1, sp.end()),
            (std::vector<double>{INFINITY, -INFINITY, 240, -240, 248, -248, 232, -232, 224, -224, 480, -960, 244,
                                 -244, 65504, -65504}));
  EXPECT_EQ(SaturationSpecials(ElemType::kF16, q, 1).size(), 15u);
  EXPECT_EQ(SaturationSpecials(ElemType::kF16, q, 2).size(), 3u);
  ExactPlan p = WithSaturationSpecials(k1, PlanConversionInputs(k1));
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_EQ(p.formats["O"].mix_level, 0);
  EXPECT_EQ(p.formats["O"].special_to, q);
  EXPECT_EQ(p.formats["A"].mix_level, -1);
  // Every special at every position of O's 4-element groups (37 is prime),
  // codes by hand: NaN 0x80, 240 = 1.875 * 2^7 (exponent field 7 + 8)
  // 0x7f, 224 = 1.75 * 2^7 0x7e, with the sign bit 0xff, 0xfe; the
  // other elements below 1 in magnitude (|code| < 0x40).
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    KernelData d = MakeConversionInputs(k1, p, seed);
    std::map<int, std::set<int>> seen;
    int regular = 0;
    for (int i = 0; i < 256; ++i) {
      const int c = d.buffers["O"].data()[i];
      if (c == 0x80 || c == 0x7f || c == 0xff || c == 0x7e || c == 0xfe) seen[i % 4].insert(c);
      else regular += (c & 0x7f) < 0x40;
    }
    for (int pos = 0; pos < 4; ++pos)
      EXPECT_EQ(seen[pos], (std::set<int>{0x80, 0x7f, 0xff, 0x7e, 0xfe})) << "seed " << seed << " " << pos;
    EXPECT_GT(regular, 256 * 30 / 37 - 4) << "seed " << seed;
  }
  // An f16 add must stay exact in f16: a finite special near 240 (or
  // 65504) plus the other operand's steps of 2^-10 would need 18 (26)
  // significand bits, so only NaN and +-inf.
  const Kernel add = ::kir::testing::TestdataKernel("add_f16");
  ExactPlan a = WithSaturationSpecials(add, PlanConversionInputs(add));
  ASSERT_TRUE(a.exact) << a.blocker;
  EXPECT_EQ(a.formats["x"].mix_level, 2);
  EXPECT_EQ(a.formats["y"].mix_level, 2);
}

// Fresh-user review 16 F3: H = cvt(X * s) : f16 (X f32, loaded once) got
// NaN and +-inf only. By hand: f16's max 65504 = 2047 * 2^5, ulp 32 at the
// top: the tie 65520, inside the window 65512 (= 65504 + 8, 8189 * 2^3: an
// f32 value, not an f16 one), the tie below 65488, the largest value below
// max 65472, 2 max 131008, -4 max -262016. X now holds all of them (its
// values before the conversion X * 1 exactly: s one of {1}); a buffer
// loaded twice (X[i] + X[i + 1] adds a special to a regular value's fine
// bits, though specials alone and regular values alone would fit) keeps
// NaN and +-inf only.
TEST(ConversionPlanTest, Review16F3SaturationSpecialsApartThroughAScalar) {
  std::vector<double> sp = SaturationSpecials(ElemType::kF32, ElemType::kF16, 0);
  EXPECT_EQ(std::vector<double>(sp.begin() + 1, sp.end()),
            (std::vector<double>{INFINITY, -INFINITY, 65504, -65504, 65520, -65520, 65488, -65488, 65472, -65472,
                                 131008, -262016, 65512, -65512}));
  sp = SaturationSpecials(ElemType::kF16, ElemType::kF16, 0);
  EXPECT_EQ(std::count(sp.begin(), sp.end(), 65512.0), 0);
  const Kernel k = Parse(::kir::testing::Review16F3QuantiserKernel());
  ExactPlan p = WithSaturationSpecials(k, PlanConversionInputs(k));
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_EQ(p.formats["X"].mix_level, 0);
  EXPECT_EQ(p.formats["X"].special_to, ElemType::kF16);
  EXPECT_EQ(p.formats["s"].choices, (std::vector<double>{1.0}));
  // The values before the conversion, X * s from the input bits in double
  // (every X element times s): the window value and the tie among them, each
  // exact in f32.
  KernelData d = MakeConversionInputs(k, p, 1);
  float s = 0;
  std::memcpy(&s, &d.scalars["s"], 4);
  EXPECT_EQ(s, 1.0f);
  std::set<double> seen;
  for (uint64_t i = 0; i < 1000; ++i) {
    float x = 0;
    d.buffers["X"].Read(4 * i, &x, 4);
    const double v = static_cast<double>(x) * s;
    if (std::isfinite(v)) {
      EXPECT_EQ(static_cast<double>(static_cast<float>(v)), v) << i;
      seen.insert(v);
    }
  }
  for (double v : {65512.0, -65512.0, 65520.0, 65504.0, 65472.0}) EXPECT_EQ(seen.count(v), 1u) << v;
  // Loaded twice: no level apart.
  const Kernel twice = Parse(R"(kernel q2
target gfx950
workgroup 64 1 1
grid 1 1 1
arg X : f32[260] strides [1] readonly
arg H : f16[256] strides [1] writeonly
arg s : f32
  %x = load X[tid.x * 4] : f32x4
  %y = load X[tid.x * 4 + 4] : f32x4
  %m = add %x, %y
  %z = mul %m, s
  %h = cvt %z : f16x4
  store H[tid.x * 4], %h
end
)");
  ExactPlan q = WithSaturationSpecials(twice, PlanConversionInputs(twice));
  ASSERT_TRUE(q.exact) << q.blocker;
  EXPECT_EQ(q.formats["X"].mix_level, 2);
}

// The soundness of the saturation specials, checked independently of the
// analysis: with the conversion pass's inputs, the value before the
// conversion (x + alpha * y, x f16, y f32, alpha a power of two), computed in
// double from the input bits, is NaN, an infinity or exact in f32, so the
// device and the reference hold it bit for bit; and some of those values
// lie beyond f8e4m3fnuz's max (240), some are NaN.
TEST(ConversionPlanTest, SaturationSpecialsKeepTheValueBeforeTheConversionExact) {
  const Kernel k = Parse(R"(kernel sat
target gfx942
workgroup 64 1 1
grid 1 1 1
arg X : f16[64, 4] strides [4, 1] readonly
arg Y : f32[64, 4] strides [4, 1] readonly
arg O : f8e4m3fnuz[64, 4] strides [4, 1] writeonly
arg alpha : f32
  %x = load X[tid.x, 0] : f16x4
  %xf = cvt %x : f32x4
  %y = load Y[tid.x, 0] : f32x4
  %s = mul %y, alpha
  %t = add %xf, %s
  %q = cvt %t : f8e4m3fnuzx4
  store O[tid.x, 0], %q
end
)");
  ExactPlan p = WithSaturationSpecials(k, PlanConversionInputs(k));
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_GE(p.formats["X"].mix_level, 0);
  EXPECT_GE(p.formats["Y"].mix_level, 0);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    KernelData d = MakeConversionInputs(k, p, seed);
    const double alpha = F32FromBits(d.scalars["alpha"]);
    int beyond = 0, nan = 0;
    for (int i = 0; i < 256; ++i) {
      const double x = ElementValue(ElemType::kF16, d.buffers["X"].data() + 2 * i);
      const double y = ElementValue(ElemType::kF32, d.buffers["Y"].data() + 4 * i);
      const double t = x + alpha * y;  // exact in double: 11 + 24 bits, exponents near
      if (std::isnan(t)) {
        ++nan;
        continue;
      }
      if (std::isinf(t)) continue;
      EXPECT_EQ(static_cast<double>(static_cast<float>(t)), t) << "seed " << seed << " element " << i;
      beyond += std::fabs(t) > 240;
    }
    EXPECT_GT(beyond, 0) << "seed " << seed;
    EXPECT_GT(nan, 0) << "seed " << seed;
  }
}

// The saturation pass's inputs for O = cvt(alpha * acc) to f8e4m3fnuz
// (acc: 128 fp8 products): alpha scaled by 6.5 = 13/8 * 2^2 (the nearest
// m/8 * 2^s), and, checked independently in double, every sum over k of
// A[i, k] * B[j, k] (any i, j: a superset of what the MFMA adds) has
// sum |terms| <= 2^(24 + its lowest bit), so every partial sum in any order
// is exact in f32, as is alpha times it; some of those values lie beyond
// 240, some below.
TEST(ConversionPlanTest, SaturationPlanScalesAlphaAndKeepsTheSumsExact) {
  const Kernel k = Parse(ComputedFp8Kernel());
  const ExactPlan conv = WithSaturationSpecials(k, PlanConversionInputs(k));
  ASSERT_TRUE(conv.exact) << conv.blocker;
  EXPECT_EQ(ComputedConversionTargets(k, conv), std::vector<ElemType>{ElemType::kF8E4M3FNUZ});
  {
    const Kernel q = ::kir::testing::TestdataKernel("quant_fp8");  // no mfma
    EXPECT_TRUE(ComputedConversionTargets(q, WithSaturationSpecials(q, PlanConversionInputs(q))).empty());
  }
  std::string carrier;
  double scale = 0;
  ExactPlan p = SaturationPlan(k, conv, ElemType::kF8E4M3FNUZ, 6.5, &carrier, &scale);
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_EQ(p.formats.at("A").diagonal, ExactFormat::Diagonal::kNone);  // ChooseDiagonals adds them
  EXPECT_EQ(ChooseDiagonals(k, &p), std::vector<std::string>{"A"});
  EXPECT_EQ(carrier, "alpha");
  EXPECT_EQ(scale, 6.5);
  ASSERT_EQ(p.formats.at("alpha").choices.size(), 1u);
  EXPECT_EQ(p.formats.at("alpha").choices[0], conv.formats.at("alpha").choices[0] * 6.5);
  EXPECT_FALSE(SaturationPlan(k, conv, ElemType::kF8E4M3FNUZ, 1.0, &carrier, &scale).exact);  // nothing to scale up
  // A (the first MFMA operand) holds NaN at [4q + t, 4r + t], t = 0..3:
  // four consecutive rows, four consecutive columns (one block: A has 16
  // rows).
  EXPECT_EQ(p.formats.at("A").diagonal, ExactFormat::Diagonal::kNaN);
  EXPECT_EQ(p.formats.at("A").diagonal_blocks, 1);
  EXPECT_EQ(p.formats.at("B").diagonal, ExactFormat::Diagonal::kNone);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    KernelData d = MakeConversionInputs(k, p, seed);
    std::vector<std::pair<int, int>> nans;
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 128; ++j)
        if (std::isnan(ElementValue(ElemType::kF8E4M3FNUZ, d.buffers["A"].data() + 128 * i + j))) nans.push_back({i, j});
    ASSERT_EQ(nans.size(), 4u) << "seed " << seed;
    for (int t = 0; t < 4; ++t) {
      EXPECT_EQ(nans[t].first, nans[0].first + t);
      EXPECT_EQ(nans[t].second, nans[0].second + t);
    }
    EXPECT_EQ(nans[0].first % 4, 0);
    EXPECT_EQ(nans[0].second % 4, 0);
  }
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    KernelData d = MakeConversionInputs(k, p, seed);
    const double alpha = F32FromBits(d.scalars["alpha"]);
    auto lowest = [](double x) {
      int e;
      double m = std::frexp(std::fabs(x), &e);
      while (m != std::floor(m)) m *= 2, --e;
      return e;
    };
    int beyond = 0, below = 0;
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double acc = 0, abs_sum = 0;
        int lo = 1000;
        for (int kk = 0; kk < 128; ++kk) {
          const double t = ElementValue(ElemType::kF8E4M3FNUZ, d.buffers["A"].data() + 128 * i + kk) *
                           ElementValue(ElemType::kF8E4M3FNUZ, d.buffers["B"].data() + 128 * j + kk);
          if (std::isnan(t)) {  // the NaN rows: NaN in any order
            acc = t;
            break;
          }
          acc += t;
          abs_sum += std::fabs(t);
          if (t != 0) lo = std::min(lo, lowest(t));
        }
        if (std::isnan(acc)) continue;
        EXPECT_LE(abs_sum, std::ldexp(1.0, 24 + lo)) << i << " " << j;
        const double w = alpha * acc;
        EXPECT_EQ(static_cast<double>(static_cast<float>(w)), w) << i << " " << j;
        beyond += std::fabs(w) > 240;
        below += std::fabs(w) < 240;
      }
    EXPECT_GT(beyond, 16) << "seed " << seed;
    EXPECT_GT(below, 16) << "seed " << seed;
  }
}

// The ranges of the narrow types, from their definitions (IEEE 754 binary16:
// 5 exponent bits, bias 15, 10 fraction bits; bfloat16: f32's exponent, 7
// fraction bits; OCP fp8 E4M3 bias 7 (max S.1111.110 = 1.75 * 2^8), E5M2
// bias 15 (max 1.75 * 2^15); FNUZ bias 8 and 16 (max S.1111.111 = 1.875 *
// 2^7, 1.75 * 2^15)).
TEST(ConversionPlanTest, FloatRangeOfTheNarrowTypes) {
  struct Case {
    ElemType t;
    double max, min_normal, min_subnormal;
  };
  for (const Case& c : {Case{ElemType::kF16, 65504, std::ldexp(1.0, -14), std::ldexp(1.0, -24)},
                        Case{ElemType::kBF16, std::ldexp(255.0, 120), std::ldexp(1.0, -126), std::ldexp(1.0, -133)},
                        Case{ElemType::kF8E4M3FN, 448, std::ldexp(1.0, -6), std::ldexp(1.0, -9)},
                        Case{ElemType::kF8E5M2, 57344, std::ldexp(1.0, -14), std::ldexp(1.0, -16)},
                        Case{ElemType::kF8E4M3FNUZ, 240, std::ldexp(1.0, -7), std::ldexp(1.0, -10)},
                        Case{ElemType::kF8E5M2FNUZ, 57344, std::ldexp(1.0, -15), std::ldexp(1.0, -17)}}) {
    const FloatRange r = FloatRangeOf(c.t);
    EXPECT_EQ(r.max, c.max) << ElemTypeName(c.t);
    EXPECT_EQ(r.min_normal, c.min_normal) << ElemTypeName(c.t);
    EXPECT_EQ(r.min_subnormal, c.min_subnormal) << ElemTypeName(c.t);
  }
}

// Review 10 F5, F6: an f16 output of an MFMA (O = cvt(alpha * acc) to
// f16) is a computed conversion too; alpha scales up toward f16's max by the
// nearest m/8 * 2^s not beyond the factor (1000 = 1.953 * 2^9: 15/8 * 2^9 =
// 960) and down toward the subnormals by the nearest not below it (10^-6 =
// 1.049 * 2^-20: 9/8 * 2^-20); every sum stays exact in f32, checked in
// double, and the scaled-down values lie where f16 has only subnormals.
TEST(ConversionPlanTest, SaturationPlanOfAnF16OutputScalesUpAndDown) {
  const Kernel k = Parse(ComputedKernel("gfx942", "f16", "h16"));
  const ExactPlan conv = WithSaturationSpecials(k, PlanConversionInputs(k));
  ASSERT_TRUE(conv.exact) << conv.blocker;
  EXPECT_EQ(ComputedConversionTargets(k, conv), std::vector<ElemType>{ElemType::kF16});
  std::string carrier;
  double scale = 0;
  ExactPlan up = SaturationPlan(k, conv, ElemType::kF16, 1000, &carrier, &scale);
  ASSERT_TRUE(up.exact) << up.blocker;
  EXPECT_EQ(carrier, "alpha");
  EXPECT_EQ(scale, 960);
  EXPECT_EQ(ChooseDiagonals(k, &up), std::vector<std::string>{"A"});
  EXPECT_EQ(up.formats.at("A").diagonal, ExactFormat::Diagonal::kNaN);
  const ExactPlan down = SaturationPlan(k, conv, ElemType::kF16, 1e-6, &carrier, &scale);
  ASSERT_TRUE(down.exact) << down.blocker;
  EXPECT_EQ(carrier, "alpha");
  EXPECT_EQ(scale, std::ldexp(9.0, -23));
  EXPECT_EQ(down.formats.at("A").diagonal, ExactFormat::Diagonal::kNone);  // no NaN scaled down
  for (const ExactPlan* p : {static_cast<const ExactPlan*>(&up), &down})
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      KernelData d = MakeConversionInputs(k, *p, seed);
      const double alpha = F32FromBits(d.scalars["alpha"]);
      int subnormal = 0;
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
          double acc = 0, abs_sum = 0;
          int lo = 1000;  // the lowest set bit of any term
          for (int kk = 0; kk < 64; ++kk) {
            const double t = ElementValue(ElemType::kF16, d.buffers["A"].data() + 2 * (64 * i + kk)) *
                             ElementValue(ElemType::kF16, d.buffers["B"].data() + 2 * (64 * j + kk));
            acc += t;
            abs_sum += std::fabs(t);
            if (t != 0 && std::isfinite(t)) {
              int e;
              double m = std::frexp(std::fabs(t), &e);
              while (m != std::floor(m)) m *= 2, --e;
              lo = std::min(lo, e);
            }
          }
          if (std::isnan(acc)) continue;
          // sum |terms| within 24 bits of the lowest bit: every partial
          // sum, in any order, is exact in f32.
          EXPECT_LE(abs_sum, std::ldexp(1.0, 24 + lo)) << i << " " << j;
          const double w = alpha * acc;
          EXPECT_EQ(static_cast<double>(static_cast<float>(w)), w) << i << " " << j;
          subnormal += std::fabs(w) < std::ldexp(1.0, -14) && w != 0;
        }
      if (p == &down) EXPECT_GT(subnormal, 64) << "seed " << seed;
    }
}

// The diagonal tests' kernel: A, a 32 x 64 f16 buffer, read and written.
constexpr char kDiagonalKernel[] = R"(kernel dg
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f16[32, 64] strides [64, 1] readwrite
  %a = load A[tid.x mod 32, 0] : f16
  store A[tid.x mod 32, 0], %a
end
)";

// The diagonal tests' format of A (3 bits, spread 2, lowest exponent -5),
// with `diagonal` blocks.
ExactFormat DiagonalTestFormat(ExactFormat::Diagonal diagonal) {
  ExactFormat f;
  f.bits = 3;
  f.spread = 2;
  f.exp_lo = -5;
  f.diagonal = diagonal;
  return f;
}

// The diagonal blocks (ExactFormat::diagonal): +inf at [4 (q + 2 i) + t,
// 4 (r + 2 i) + t], t = 0..3, for i = 2, 3 of a 32 x 64 f16 buffer: two
// runs of four consecutive rows and columns, their row blocks two apart
// (mod 8), so that with i = 0, 1 (the same q) the four row blocks of one
// parity are covered: every accumulator register group of a 32x32 layout.
TEST(InputsTest, DiagonalBlocksHoldInfAtConsecutiveRowsAndColumns) {
  const Kernel k = Parse(kDiagonalKernel);
  ExactPlan p;
  p.exact = true;
  ExactFormat f = DiagonalTestFormat(ExactFormat::Diagonal::kInf);
  std::set<int64_t> row_blocks;
  for (int first : {0, 2}) {
    f.diagonal_first = first;
    f.diagonal_blocks = 2;
    p.formats["A"] = f;
    KernelData d = MakeConversionInputs(k, p, 7);
    std::vector<std::pair<int, int>> infs;
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 64; ++j) {
        const double v = ElementValue(ElemType::kF16, d.buffers["A"].data() + 2 * (64 * i + j));
        EXPECT_FALSE(std::isnan(v));
        if (std::isinf(v)) {
          EXPECT_GT(v, 0);
          infs.push_back({i, j});
        }
      }
    ASSERT_EQ(infs.size(), 8u);
    std::map<int, std::vector<std::pair<int, int>>> by_block;
    for (auto [i, j] : infs) by_block[i / 4].push_back({i, j});
    ASSERT_EQ(by_block.size(), 2u);
    std::vector<int> blocks;
    for (auto& [b, v] : by_block) {
      ASSERT_EQ(v.size(), 4u);
      for (int t = 0; t < 4; ++t) {
        EXPECT_EQ(v[t].first, 4 * b + t);
        EXPECT_EQ(v[t].second, v[0].second + t);
      }
      EXPECT_EQ(v[0].second % 4, 0);
      blocks.push_back(b);
      row_blocks.insert(b);
    }
    EXPECT_EQ((blocks[1] - blocks[0]) % 2, 0);
  }
  // Four row blocks of the same parity: 8 g + 4 h for g = 0..3.
  ASSERT_EQ(row_blocks.size(), 4u);
  std::set<int64_t> parity, g;
  for (int64_t b : row_blocks) parity.insert(b % 2), g.insert(b / 2);
  EXPECT_EQ(parity.size(), 1u);
  EXPECT_EQ(g.size(), 4u);
}

// The diagonal offset d (ExactFormat::diagonal_offset) moves every block by
// d blocks down and d blocks right (mod 32/4 rows, 64/4 columns): the
// offset-0 positions (i, j) become (i + 4d mod 32, j + 4d mod 64), and
// nothing else changes.
TEST(InputsTest, DiagonalOffsetMovesTheBlocks) {
  const Kernel k = Parse(kDiagonalKernel);
  ExactPlan p;
  p.exact = true;
  ExactFormat f = DiagonalTestFormat(ExactFormat::Diagonal::kNaN);
  f.diagonal_blocks = 2;
  auto nans = [&](int64_t offset, uint64_t seed) {
    f.diagonal_offset = offset;
    p.formats["A"] = f;
    KernelData d = MakeConversionInputs(k, p, seed);
    std::set<std::pair<int, int>> r;
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 64; ++j)
        if (std::isnan(ElementValue(ElemType::kF16, d.buffers["A"].data() + 2 * (64 * i + j)))) r.insert({i, j});
    return r;
  };
  for (uint64_t seed : {1, 2}) {
    const std::set<std::pair<int, int>> base = nans(0, seed);
    ASSERT_EQ(base.size(), 8u);
    for (int64_t d : {1, 3, 7, 9}) {
      std::set<std::pair<int, int>> moved;
      for (auto [i, j] : base) moved.insert({(i + 4 * static_cast<int>(d)) % 32, (j + 4 * static_cast<int>(d)) % 64});
      EXPECT_EQ(nans(d, seed), moved) << "seed " << seed << ", offset " << d;
    }
  }
}

// One NaN diagonal per MFMA chain that reaches a narrowing conversion
// (fresh-user review 12 F4): two independent K loops, each converted to
// f8e4m3fn, get one each (A1, A2: the first operand of each chain; f8e4m3fn
// has no inf); a chain whose two conversions share its operands gets one.
TEST(ConversionPlanTest, ChooseDiagonalsGivesEveryMfmaChainOne) {
  const Kernel two = Parse(TwoFp8ChainsKernel("two", "mul %acc2, alpha"));
  const Kernel one = Parse(TwoFp8ChainsKernel("one", "add %acc, %acc", false));
  for (const Kernel* k : {&two, &one}) {
    const ExactPlan conv = WithSaturationSpecials(*k, PlanConversionInputs(*k));
    ASSERT_TRUE(conv.exact) << k->name << ": " << conv.blocker;
    std::string carrier;
    double scale = 0;
    ExactPlan p = SaturationPlan(*k, conv, ElemType::kF8E4M3FN, 10, &carrier, &scale);
    ASSERT_TRUE(p.exact) << k->name << ": " << p.blocker;
    const std::vector<std::string> want =
        k == &two ? std::vector<std::string>{"A1", "A2"} : std::vector<std::string>{"A1"};
    EXPECT_EQ(ChooseDiagonals(*k, &p), want) << k->name;
    for (const std::string& name : want) {
      EXPECT_EQ(p.formats.at(name).diagonal, ExactFormat::Diagonal::kNaN) << name;
      EXPECT_EQ(p.formats.at(name).diagonal_blocks, 1) << name;  // 16 rows: one block
    }
    for (const char* name : {"B1", "B2"})
      if (p.formats.count(name)) {
        EXPECT_EQ(p.formats.at(name).diagonal, ExactFormat::Diagonal::kNone) << name;
      }
    if (k == &one && p.formats.count("A2")) {
      EXPECT_EQ(p.formats.at("A2").diagonal, ExactFormat::Diagonal::kNone);
    }
  }
}

// The diagonal goes to the first MFMA operand whose type has +inf: here B
// (f8e5m2: S.11111.00), not A (f8e4m3fn has no infinities), so that the
// first saturation pass can make +-inf reach the f8e5m2 conversion.
TEST(ConversionPlanTest, ChooseDiagonalsPutsTheDiagonalWhereInfExists) {
  const Kernel k = Parse(OneWaveMfmaLoopKernel("o8", "gfx950", "f8e4m3fn", "f8e5m2", 128, "f32_16x16x32_fp8_bf8", 32,
                                               "arg O : f8e5m2[16, 16] strides [16, 1] writeonly\n"
                                               "arg alpha : f32\n",
                                               "  %s = mul %acc, alpha\n"
                                               "  %q = cvt %s : f8e5m2x4\n"
                                               "  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n"));
  const ExactPlan conv = WithSaturationSpecials(k, PlanConversionInputs(k));
  ASSERT_TRUE(conv.exact) << conv.blocker;
  std::string carrier;
  double scale = 0;
  ExactPlan p = SaturationPlan(k, conv, ElemType::kF8E5M2, 100, &carrier, &scale);
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_EQ(ChooseDiagonals(k, &p), std::vector<std::string>{"B"});
  EXPECT_EQ(p.formats.at("A").diagonal, ExactFormat::Diagonal::kNone);
  EXPECT_EQ(p.formats.at("B").diagonal, ExactFormat::Diagonal::kNaN);
}

// Fresh-user review 12 F1, F3, F4: the outputs the saturation passes aim
// at, each with the arguments behind it, and the carrier's companions.
// `epilogue` computes %v (f32x4) from %acc; O (f16) = cvt %v; P (fp8) =
// cvt(acc2 + acc2) of a second MFMA chain (A2, B2).
std::string TwoChainKernel(const std::string& epilogue) {
  auto loop = [](const std::string& acc, const std::string& a, const std::string& b) {
    return MfmaKLoop(acc, a, b, "f16", "f16", 64, "f32_16x16x16_f16", 16);
  };
  return absl::StrCat("kernel e\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\n", MfmaOperandArg("A", "f16", 64),
                      MfmaOperandArg("B", "f16", 64), MfmaOperandArg("A2", "f16", 64), MfmaOperandArg("B2", "f16", 64),
                      "arg C : f16[16, 16] strides [16, 1] readonly\n"
                      "arg O : f16[16, 16] strides [16, 1] writeonly\n"
                      "arg P : f8e4m3fnuz[16, 16] strides [16, 1] writeonly\n"
                      "arg alpha : f32\n"
                      "arg beta : f32\n"
                      "  %z = zero f32x4\n",
                      loop("%acc", "A", "B"), epilogue,
                      "\n"
                      "  %h = cvt %v : f16x4\n"
                      "  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h\n",
                      loop("%acc2", "A2", "B2"),
                      "  %s2 = add %acc2, %acc2\n"
                      "  %q = cvt %s2 : f8e4m3fnuzx4\n"
                      "  store P[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n"
                      "end\n");
}

TEST(ConversionPlanTest, SaturationTargetsPerOutputAndCarriersBehindThem) {
  // O = cvt(alpha * acc + beta * C): alpha and beta scale together (the
  // whole value scales by the factor).
  const Kernel k = Parse(TwoChainKernel(R"(  %s = mul %acc, alpha
  %cc = load C[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f16x4
  %cf = cvt %cc : f32x4
  %t = mul %cf, beta
  %v = add %s, %t)"));
  const ExactPlan conv = WithSaturationSpecials(k, PlanConversionInputs(k));
  ASSERT_TRUE(conv.exact) << conv.blocker;
  const std::vector<ComputedOutput> outs = ComputedConversionOutputs(k, conv);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].name, "O");
  EXPECT_EQ(outs[0].type, ElemType::kF16);
  EXPECT_EQ(outs[0].behind, (std::set<std::string>{"A", "B", "C", "alpha", "beta"}));
  EXPECT_EQ(outs[1].name, "P");
  EXPECT_EQ(outs[1].type, ElemType::kF8E4M3FNUZ);
  EXPECT_EQ(outs[1].behind, (std::set<std::string>{"A2", "B2"}));
  std::string carrier;
  double scale = 0;
  std::vector<std::string> also;
  const ExactPlan o = SaturationPlan(k, conv, ElemType::kF16, 1e-6, &carrier, &scale, "O", &also);
  ASSERT_TRUE(o.exact) << o.blocker;
  EXPECT_EQ(carrier, "alpha");
  EXPECT_EQ(also, std::vector<std::string>{"beta"});
  ASSERT_EQ(o.formats.at("beta").choices.size(), conv.formats.at("beta").choices.size());
  for (size_t i = 0; i < o.formats.at("beta").choices.size(); ++i)
    EXPECT_EQ(o.formats.at("beta").choices[i], conv.formats.at("beta").choices[i] * scale);
  // P: alpha is not behind it; its own MFMA chain's operand carries it.
  const ExactPlan p = SaturationPlan(k, conv, ElemType::kF8E4M3FNUZ, 16, &carrier, &scale, "P", &also);
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_EQ(carrier, "A2");
  EXPECT_TRUE(also.empty());
  EXPECT_EQ(p.formats.at("A2").shift, 4);
  EXPECT_EQ(p.formats.at("alpha").choices, conv.formats.at("alpha").choices);
  // O = cvt(alpha * acc * beta): scaling beta too would scale O twice.
  const Kernel k2 = Parse(TwoChainKernel(R"(  %s = mul %acc, alpha
  %v = mul %s, beta)"));
  const ExactPlan conv2 = WithSaturationSpecials(k2, PlanConversionInputs(k2));
  ASSERT_TRUE(conv2.exact) << conv2.blocker;
  const ExactPlan o2 = SaturationPlan(k2, conv2, ElemType::kF16, 100, &carrier, &scale, "O", &also);
  ASSERT_TRUE(o2.exact) << o2.blocker;
  EXPECT_EQ(carrier, "alpha");
  EXPECT_TRUE(also.empty());
  EXPECT_EQ(o2.formats.at("beta").choices, conv2.formats.at("beta").choices);
}


namespace kwindow {

// Fresh-user review 13 F4: an fp8 gemm with K = 16384 and a bf16 C
// (findings/F4/deepbf16.kir); `km`: A stored K x M (A.km).
std::string DeepBf16(bool km = false, int64_t kk = 16384) {
  const std::string a = km ? absl::StrCat("arg A : f8e4m3fn[", kk, ", 16] strides [16, 1] readonly\n")
                           : absl::StrCat("arg A : f8e4m3fn[16, ", kk, "] strides [", kk, ", 1] readonly\n");
  return absl::StrCat("kernel deepbf16\ntarget gfx950\nworkgroup auto\ngrid auto\n", a, "arg B : f8e5m2[16, ", kk,
                      "] strides [", kk, ", 1] readonly\narg C : bf16[16, 16] strides [16, 1] writeonly\n"
                      "arg alpha : f32\n  gemm C = alpha * A.", km ? "km" : "mk", " * B.nk\nend\n");
}

// A's form +-2^-1 (one significand bit) with a K window of n in blocks of
// `block` every `period`.
void ExpectWindowedHalf(const ExactFormat& f, int64_t n, int64_t block, int64_t period, int dim) {
  EXPECT_EQ(f.bits, 1);
  EXPECT_EQ(f.spread, 0);
  EXPECT_EQ(f.exp_lo, -1);
  EXPECT_EQ(f.k_window, n);
  EXPECT_EQ(f.k_dim, dim);
  EXPECT_EQ(f.k_len, 16384);
  EXPECT_EQ(f.k_block, block);
  EXPECT_EQ(f.k_period, period);
  EXPECT_EQ(KWindowTerms(f), n);
}

}  // namespace kwindow

// The exact and conversion plans of a K = 16384 fp8 gemm with a bf16 C, by
// hand. Dense, the narrowest inputs (A = B = +-2^-1, alpha 2) give sums of
// 16384 products of +-2^-2: multiples of 2^-2 up to 4096, times 2:
// multiples of 2^-1 up to 8192, 14 significand bits: more than bf16's 8
// (exact) and than the conversion pass's 8 + 5 = 13. With n nonzero terms
// per sum the same inputs give multiples of 2^-1 up to n / 2: log2(n) bits.
// Exact: n = 512 needs 9, n = 256 8 bits: n = 256 (any richer A, B or alpha
// adds bits: alpha {0.5, 1.5, 2} two, m up to 3 or a spread one each), in
// blocks of 16 every 16384 / (256 / 16) = 1024. Conversion: n = 8192 (13
// bits), in blocks of 16 every 16384 / 512 = 32.
TEST(ExactPlanTest, LongKGemmGetsAKWindowOnA) {
  const Kernel k = Parse(kwindow::DeepBf16());
  ExactPlan e = PlanExactInputs(k);
  ASSERT_TRUE(e.exact) << e.blocker;
  kwindow::ExpectWindowedHalf(e.formats["A"], 256, 16, 1024, 1);
  EXPECT_EQ(e.formats["B"].bits, 1);
  EXPECT_EQ(e.formats["B"].exp_lo, -1);
  EXPECT_EQ(e.formats["B"].k_window, 0);
  EXPECT_EQ(e.formats["alpha"].choices, std::vector<double>{2});
  EXPECT_EQ(e.formats["A"].Describe(ElemType::kF8E4M3FN),
            "+-m*2^e, m in [1, 1], e = -1; nonzero only at k with (k - o) mod 1024 < 16 (blocks of 16 every 1024, o "
            "per row from the seed; zero elsewhere): at most 256 of 16384 terms per sum");
  ExactPlan c = PlanConversionInputs(k);
  ASSERT_TRUE(c.exact) << c.blocker;
  kwindow::ExpectWindowedHalf(c.formats["A"], 8192, 16, 32, 1);
  EXPECT_EQ(c.formats["B"].bits, 1);
  EXPECT_EQ(c.formats["B"].k_window, 0);
  EXPECT_EQ(c.formats["alpha"].choices, std::vector<double>{2});
  ASSERT_EQ(c.conversions.size(), 1u);
  EXPECT_EQ(c.conversions[0].bits, 13);
  EXPECT_TRUE(c.conversions[0].rounds);
  EXPECT_EQ(PlannedPasses(PlanConversionPasses(k)).size(), 1u);
  // A.km: the window runs along A's first dimension, per column.
  const Kernel km = Parse(kwindow::DeepBf16(/*km=*/true));
  ExactPlan ckm = PlanConversionInputs(km);
  ASSERT_TRUE(ckm.exact) << ckm.blocker;
  kwindow::ExpectWindowedHalf(ckm.formats["A"], 8192, 16, 32, 0);
  EXPECT_NE(ckm.formats["A"].Describe().find("o per column"), std::string::npos);
  // K = 1024 (findings/F4/deepbf16k1.kir) has dense conversion inputs (1024
  // products of up to 2^-1 * 3 * 2^-2, times 2: multiples of 2^-2 up to
  // 768, 12 bits): no window there. Its exact plan needs one (10 bits
  // dense); n = 256 as above, in blocks of 16 every 1024 / 16 = 64.
  const Kernel k1 = Parse(kwindow::DeepBf16(false, 1024));
  ExactPlan c1 = PlanConversionInputs(k1);
  ASSERT_TRUE(c1.exact) << c1.blocker;
  EXPECT_EQ(c1.formats["A"].k_window, 0);
  EXPECT_EQ(c1.formats["B"].k_window, 0);
  EXPECT_EQ(c1.formats["B"].bits, 2);
  ExactPlan e1 = PlanExactInputs(k1);
  ASSERT_TRUE(e1.exact) << e1.blocker;
  EXPECT_EQ(e1.formats["A"].k_window, 256);
  EXPECT_EQ(e1.formats["A"].k_period, 64);
}

// The inputs of a K window: in every row of A (every column of A.km) the
// nonzero elements are the K indices of 16 cyclically consecutive residues
// mod the period, each residue's every index (16384 / period of them); B
// stays dense; the offsets differ between rows.
TEST(InputsTest, KWindowInputsAreZeroOutsideTheirBlocks) {
  for (bool km : {false, true}) {
    const Kernel k = Parse(kwindow::DeepBf16(km));
    for (bool conversion : {false, true}) {
      const ExactPlan plan = conversion ? PlanConversionInputs(k) : PlanExactInputs(k);
      ASSERT_TRUE(plan.exact) << plan.blocker;
      const int64_t period = conversion ? 32 : 1024;
      std::set<int64_t> starts;
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        KernelData d = conversion ? MakeConversionInputs(k, plan, seed) : MakeExactInputs(k, plan, seed);
        const uint8_t* a = d.buffers["A"].data();
        const uint8_t* b = d.buffers["B"].data();
        for (int64_t m = 0; m < 16; ++m) {
          std::vector<int64_t> per(period, 0);
          for (int64_t kk = 0; kk < 16384; ++kk) {
            const double v = ElementValue(ElemType::kF8E4M3FN, a + (km ? kk * 16 + m : m * 16384 + kk));
            if (v == 0) continue;
            EXPECT_EQ(std::fabs(v), 0.5) << m << ", " << kk;
            ++per[kk % period];
            EXPECT_EQ(std::fabs(ElementValue(ElemType::kF8E5M2, b + m * 16384 + kk)), 0.5);
          }
          // 16 consecutive residues (mod period), each with all its indices.
          int64_t start = -1, full = 0;
          for (int64_t r = 0; r < period; ++r) {
            EXPECT_TRUE(per[r] == 0 || per[r] == 16384 / period) << r;
            if (per[r] != 0) ++full;
            if (per[r] != 0 && per[(r + period - 1) % period] == 0) start = r;
          }
          EXPECT_EQ(full, 16) << "row " << m << " seed " << seed;
          ASSERT_GE(start, 0);
          for (int64_t j = 0; j < 16; ++j) EXPECT_NE(per[(start + j) % period], 0) << start << " + " << j;
          starts.insert(start);
        }
      }
      // 48 rows' offsets, uniform over the period: not all the same.
      EXPECT_GT(starts.size(), 8u) << km << conversion;
    }
  }
}

// A padded A (every other byte an element) gets its window along its
// elements; an A broadcast along K (stride 0: one element per row) cannot
// have one, so B gets it (the sums have as many nonzero terms either way).
TEST(InputsTest, KWindowOnAPaddedAOrOnB) {
  const std::string dense = kwindow::DeepBf16();
  const std::string padded = absl::StrReplaceAll(dense, {{"strides [16384, 1] readonly\narg B", "strides [32768, 2] readonly\narg B"}});
  ASSERT_NE(padded, dense);
  const std::string broadcast = absl::StrReplaceAll(dense, {{"strides [16384, 1] readonly\narg B", "strides [1, 0] readonly\narg B"}});
  ASSERT_NE(broadcast, dense);
  for (bool on_b : {false, true}) {
    const Kernel k = Parse(on_b ? broadcast : padded);
    const ExactPlan plan = PlanConversionInputs(k);
    ASSERT_TRUE(plan.exact) << plan.blocker;
    EXPECT_EQ(plan.formats.at(on_b ? "B" : "A").k_window, 8192);
    EXPECT_EQ(plan.formats.at(on_b ? "A" : "B").k_window, 0);
    KernelData d = MakeConversionInputs(k, plan, 1);
    const uint8_t* x = d.buffers[on_b ? "B" : "A"].data();
    for (int64_t m = 0; m < 16; ++m) {
      int64_t nonzero = 0;
      for (int64_t kk = 0; kk < 16384; ++kk)
        nonzero += ElementValue(on_b ? ElemType::kF8E5M2 : ElemType::kF8E4M3FN,
                                x + (on_b ? m * 16384 + kk : m * 32768 + 2 * kk)) != 0;
      EXPECT_EQ(nonzero, 8192) << on_b << " row " << m;
    }
  }
}

// "+inf reaches 2 of 4 32x32 register groups per seed": an operand whose
// dimensions are both 32 or more gets four blocks (i = 0..3), whose row
// blocks b, b + 2, b + 4, b + 6 (mod 8 in a 32-row A) are one in each
// register group g = b / 2 of a 32x32 accumulator layout (rows 8 g + 4 h +
// t), all of one lane half h = b mod 2; 16 NaN elements, 4 per block on
// its diagonal, at the indices DiagonalElements names.
TEST(ConversionPlanTest, ChooseDiagonalsGivesA32RowOperandFourBlocks) {
  const Kernel k = Parse(R"(kernel g4
target gfx950
workgroup 64 1 1
grid 1 1 1
arg A : f16[32, 64] strides [64, 1] readonly
arg B : f16[32, 64] strides [64, 1] readonly
arg O : f8e5m2[32, 32] strides [32, 1] writeonly
arg alpha : f32
  %z = zero f32x16
  %acc = for %k = 0 to 64 step 8 iter(%c = %z) {
    %a = load A[tid.x mod 32, %k + tid.x floordiv 32 * 4] : f16x4
    %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 4] : f16x4
    %d = mfma f32_32x32x8_f16 %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
  %c0 = slice %s, 0 : f32x4
  %q = cvt %c0 : f8e5m2x4
  store O[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %q
end
)");
  const ExactPlan conv = WithSaturationSpecials(k, PlanConversionInputs(k));
  ASSERT_TRUE(conv.exact) << conv.blocker;
  std::string carrier;
  double scale = 0;
  ExactPlan p = SaturationPlan(k, conv, ElemType::kF8E5M2, 1000, &carrier, &scale);
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_EQ(ChooseDiagonals(k, &p), std::vector<std::string>{"A"});
  EXPECT_EQ(p.formats.at("A").diagonal_blocks, 4);
  EXPECT_EQ(p.formats.at("A").diagonal_first, 0);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    KernelData d = MakeConversionInputs(k, p, seed);
    std::vector<uint64_t> nans;
    std::set<int> row_blocks, col_blocks, parity, groups;
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 64; ++j)
        if (std::isnan(ElementValue(ElemType::kF16, d.buffers["A"].data() + 2 * (64 * i + j)))) {
          nans.push_back(static_cast<uint64_t>(64 * i + j));
          EXPECT_EQ(i % 4, j % 4) << i << ", " << j;  // on a block's diagonal
          row_blocks.insert(i / 4);
          col_blocks.insert(j / 4);
          parity.insert(i / 4 % 2);
          groups.insert(i / 8);
        }
    EXPECT_EQ(nans.size(), 16u) << seed;
    EXPECT_EQ(row_blocks.size(), 4u) << seed;
    EXPECT_EQ(col_blocks.size(), 4u) << seed;
    EXPECT_EQ(parity.size(), 1u) << seed;
    EXPECT_EQ(groups, (std::set<int>{0, 1, 2, 3})) << seed;
    std::vector<uint64_t> named = DiagonalElements(*k.FindArg("A"), p.formats.at("A"), seed);
    std::sort(named.begin(), named.end());
    EXPECT_EQ(named, nans) << seed;
  }
}

// Fresh-user review 14 F6: one MFMA result converted to f16 (O) and to
// f8e4m3fnuz (P). Level 1's pass sizes the sum for fp8's 4 + 5 = 9 bits,
// so O's conversion never rounded and a ties-away f16 conversion passed.
// A second pass, for the conversions to f16 only, lets O's operand carry
// f16's 11 + 5 = 16 bits (P's need only stay within fp8's 240).
TEST(ConversionPlanTest, SiblingTargetTypesGetAPassEach) {
  const Kernel k = Parse(R"(kernel k1
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f8e4m3fnuz[16, 256] strides [256, 1] readonly
arg B : f8e5m2fnuz[16, 256] strides [256, 1] readonly
arg O : f16[16, 16] strides [16, 1] writeonly
arg P : f8e4m3fnuz[8, 16] strides [16, 1] writeonly
arg alpha : f32
  %z = zero f32x4
  %acc = for %k = 0 to 256 step 32 iter(%c = %z) {
    %a = load A[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f8e4m3fnuzx8
    %b = load B[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f8e5m2fnuzx8
    %d = mfma f32_16x16x32_fp8_bf8 %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
  %o = cvt %s : f16x4
  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %o
  %p = cvt %s : f8e4m3fnuzx4
  store guarded P[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %p
end
)");
  std::vector<ExactPlan> passes = PlanConversionPasses(k);
  ASSERT_EQ(passes.size(), 2u);
  auto note = [](const ExactPlan& p, ElemType to) -> const ConversionNote* {
    for (const ConversionNote& n : p.conversions)
      if (n.to == to) return &n;
    return nullptr;
  };
  // The level's pass: every conversion of level 1 capped; fp8's 9 bits bind
  // (A, B +-0.5, alpha 2: 256 products +-0.25, times 2, at most 128 in steps
  // of 0.5, so at most 8 significant bits; fresh-user review 16 F6: the
  // bound one rounding raised was counted as 9).
  EXPECT_EQ(passes[0].to, ElemType::kF32);
  ASSERT_NE(note(passes[0], ElemType::kF16), nullptr);
  ASSERT_NE(note(passes[0], ElemType::kF8E4M3FNUZ), nullptr);
  EXPECT_FALSE(note(passes[0], ElemType::kF16)->rounds);
  EXPECT_TRUE(note(passes[0], ElemType::kF8E4M3FNUZ)->rounds);
  for (const char* name : {"A", "B"}) {
    EXPECT_EQ(passes[0].formats.at(name).bits, 1) << name;
    EXPECT_EQ(passes[0].formats.at(name).exp_lo + passes[0].formats.at(name).spread, -1) << name;
  }
  EXPECT_EQ(passes[0].formats.at("alpha").choices, std::vector<double>{2});
  EXPECT_EQ(note(passes[0], ElemType::kF8E4M3FNUZ)->bits, 8);
  // The f16 pass: O's operand of 16 bits, P's only in range (not capped).
  EXPECT_EQ(passes[1].to, ElemType::kF16);
  EXPECT_EQ(passes[1].level, 1);
  const ConversionNote* o = note(passes[1], ElemType::kF16);
  const ConversionNote* p = note(passes[1], ElemType::kF8E4M3FNUZ);
  ASSERT_NE(o, nullptr);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(o->rounds);
  EXPECT_TRUE(o->capped);
  EXPECT_EQ(o->bits, 16);
  EXPECT_FALSE(p->capped);
  EXPECT_TRUE(UnroundedConversions(passes).empty());
  // One target type per level: one pass, as before (the same kernel without P).
  const Kernel one = Parse(R"(kernel k1
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f8e4m3fnuz[16, 256] strides [256, 1] readonly
arg B : f8e5m2fnuz[16, 256] strides [256, 1] readonly
arg O : f16[16, 16] strides [16, 1] writeonly
arg alpha : f32
  %z = zero f32x4
  %acc = for %k = 0 to 256 step 32 iter(%c = %z) {
    %a = load A[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f8e4m3fnuzx8
    %b = load B[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f8e5m2fnuzx8
    %d = mfma f32_16x16x32_fp8_bf8 %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
  %o = cvt %s : f16x4
  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %o
end
)");
  std::vector<ExactPlan> single = PlanConversionPasses(one);
  ASSERT_EQ(single.size(), 2u);
  EXPECT_EQ(single[0].to, ElemType::kF32);
  EXPECT_FALSE(single[0].tie_pass);
  // And O's tie candidate (fresh-user review 20 F1): the buffers scaled down
  // (A and B, fp8, times 2^-1 each), O's conversion still rounding.
  EXPECT_TRUE(single[1].tie_pass);
  EXPECT_EQ(single[1].to, ElemType::kF16);
  EXPECT_EQ(single[1].level, 1);
  EXPECT_NE(single[1].formats.at("A").Describe(), single[0].formats.at("A").Describe());
  ASSERT_EQ(single[1].conversions.size(), 1u);
  EXPECT_TRUE(single[1].conversions[0].rounds);
}

// Fresh-user review 16 F6 (k17.kir): fp8 O and bf16 Q of one MFMA result
// times alpha. Level 1's pass (A, B +-0.5, alpha 2) said of Q's conversion
// "operands of up to 9 significand bits, 1 beyond bf16's: often an exact
// tie", so Q got no pass of its own. By hand: 256 products +-0.25 sum to at
// most 64 in steps of 0.25, times 2 at most 128 in steps of 0.5 (256
// halves: 128 is one significant bit, the rest at most 8): O's operand has
// at most 8 bits, 4 beyond f8e4m3fnuz's p = 4, and Q's conversion never
// rounds. Q now gets the bf16 pass (8 + 5 = 13 bits).
TEST(ConversionPlanTest, BitsAreCountedOnTheValuesNotTheRoundedBound) {
  const Kernel k = Parse(::kir::testing::Review16F6Kernel());
  std::vector<ExactPlan> passes = PlanConversionPasses(k);
  ASSERT_EQ(passes.size(), 2u);
  auto note = [](const ExactPlan& p, ElemType to) -> const ConversionNote* {
    for (const ConversionNote& n : p.conversions)
      if (n.to == to) return &n;
    return nullptr;
  };
  // The forms the count above assumes.
  for (const char* name : {"A", "B"}) {
    const ExactFormat& f = passes[0].formats.at(name);
    EXPECT_EQ(f.bits, 1) << name;
    EXPECT_EQ(f.spread, 0) << name;
    EXPECT_EQ(f.exp_lo + f.shift, -1) << name;
    EXPECT_FALSE(f.two_scale) << name;
  }
  EXPECT_EQ(passes[0].formats.at("alpha").choices, std::vector<double>{2});
  ASSERT_NE(note(passes[0], ElemType::kF8E4M3FNUZ), nullptr);
  ASSERT_NE(note(passes[0], ElemType::kBF16), nullptr);
  EXPECT_EQ(note(passes[0], ElemType::kF8E4M3FNUZ)->bits, 8);
  EXPECT_TRUE(note(passes[0], ElemType::kF8E4M3FNUZ)->rounds);
  EXPECT_EQ(note(passes[0], ElemType::kBF16)->bits, 8);
  EXPECT_FALSE(note(passes[0], ElemType::kBF16)->rounds);
  EXPECT_EQ(passes[1].to, ElemType::kBF16);
  const ConversionNote* q = note(passes[1], ElemType::kBF16);
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(q->rounds);
  EXPECT_TRUE(q->capped);
  EXPECT_GT(q->bits, 8);
  EXPECT_TRUE(UnroundedConversions(passes).empty());
}

// Fresh-user review 14 F14: Q = cvt(X * s) to f8e4m3fnuz without an MFMA.
// X +-m*2^-9 (9 bits) and s = 2 put X * s in f8e4m3fnuz's subnormal range
// [2^-10, 2^-7) (bias 8, 3 mantissa bits) for m = 1 only. X is now shifted
// so that X * s has steps of 2^-12, a quarter of the smallest subnormal:
// X +-m*2^-13, and every 3rd element's m is at most 31 (m * 2^-12 < 2^-7),
// m = 2 (mod 4) (odd multiples of 2^-11) a tie between two subnormals.
// Counted on the generated inputs: at least the 170 of 512 elements of
// the share lie in or below the subnormal range, and ties among them.
TEST(ConversionPlanTest, QuantisationInputsReachTheFp8Subnormals) {
  const Kernel k = Parse(R"(kernel q1
target gfx942
workgroup 64 1 1
grid 2 1 1
arg X : f32[512] strides [1] readonly
arg Q : f8e4m3fnuz[512] strides [1] writeonly
arg s : f32
  %x = load X[(wg.x * 64 + tid.x) * 4] : f32x4
  %y = mul %x, s
  %q = cvt %y : f8e4m3fnuzx4
  store Q[(wg.x * 64 + tid.x) * 4], %q
end
)");
  std::vector<ExactPlan> passes = PlannedPasses(PlanConversionPasses(k));
  ASSERT_EQ(passes.size(), 1u);
  EXPECT_EQ(passes[0].formats.at("X").Describe(),
            "+-m*2^e, m in [1, 511], e = -13; every 3rd element (from a seeded offset) +-m*2^e, m in [1, 31], e = "
            "-13 (the operand of 10:3: '%q = cvt %y : f8e4m3fnuzx4' then m * 2^-12: f8e4m3fnuz's subnormals lie "
            "in [0.000976562, 0.0078125); m = 2 (mod 4) a tie between two of them)");
  EXPECT_EQ(passes[0].formats.at("s").Describe(), "one of {2}");
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    KernelData d = MakeConversionInputs(k, passes[0], seed);
    int sub = 0, ties = 0;
    for (int64_t i = 0; i < 512; ++i) {
      uint32_t bits;
      d.buffers["X"].Read(4 * i, &bits, 4);
      const double y = 2.0 * std::fabs(static_cast<double>(F32FromBits(bits)));
      if (y > 0 && y < std::ldexp(1.0, -7)) ++sub;
      // An odd multiple of 2^-11 below 2^-7: halfway between two multiples of 2^-10.
      const double u = std::ldexp(y, 11);
      if (y < std::ldexp(1.0, -7) && u == std::floor(u) && std::fmod(u, 2.0) == 1.0) ++ties;
    }
    EXPECT_GE(sub, 170) << "seed " << seed;
    EXPECT_GE(ties, 20) << "seed " << seed;
  }
}

// Fresh-user review 14 F4, F11: a scalar scaled past f32's range gives the
// same +-inf on both sides only when no mfma or gemm sum (whose order the
// device chooses) and no product of a gemm's scale factors depends on it.
TEST(SaturationPlanTest, OverflowsAlikeOnlyAfterTheSums) {
  const std::string after = ::kir::testing::OneWaveMfmaKernel(
      "after", "gfx942", "f32_16x16x16_f16", 16, "arg C : f16[16, 16] strides [16, 1] writeonly\narg alpha : f32\n",
      "  %s = mul %d, alpha\n  %h = cvt %s : f16x4\n  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h\n");
  const std::string inside = ::kir::testing::OneWaveMfmaKernel(
      "inside", "gfx942", "f32_16x16x16_f16", 16, "arg C : f16[16, 16] strides [16, 1] writeonly\narg alpha : f32\n",
      "  %s = mul %d, alpha\n  %e = mfma f32_16x16x16_f16 %a, %b, %s\n  %h = cvt %e : f16x4\n"
      "  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h\n");
  const Kernel ka = Parse(after), ki = Parse(inside);
  const ExactPlan pa = PlanConversionInputs(ka), pi = PlanConversionInputs(ki);
  ASSERT_TRUE(pa.exact) << pa.blocker;
  ASSERT_TRUE(pi.exact) << pi.blocker;
  EXPECT_TRUE(OverflowsAlike(ka, pa, "alpha"));
  EXPECT_FALSE(OverflowsAlike(ki, pi, "alpha"));
  // Not an f32 scalar.
  EXPECT_FALSE(OverflowsAlike(ka, pa, "A"));
  EXPECT_FALSE(OverflowsAlike(ka, pa, "nothing"));
  // A gemm: alpha alone scales after the sum; alpha * gamma is a product
  // of scale factors the device may order otherwise.
  auto gemm = [](const std::string& scalars, const std::string& factors) {
    return Parse(absl::StrCat("kernel g\ntarget gfx942\nworkgroup auto\ngrid auto\n"
                              "arg A : f8e4m3fnuz[64, 64] strides [64, 1] readonly\n"
                              "arg B : f8e4m3fnuz[64, 64] strides [64, 1] readonly\n"
                              "arg C : f16[64, 64] strides [64, 1] writeonly\n",
                              scalars, "  gemm C = ", factors, "A.mk * B.nk\nend\n"));
  };
  const Kernel g1 = gemm("arg alpha : f32\n", "alpha * "), g2 = gemm("arg alpha : f32\narg gamma : f32\n",
                                                                       "alpha * gamma * ");
  const ExactPlan p1 = PlanConversionInputs(g1), p2 = PlanConversionInputs(g2);
  ASSERT_TRUE(p1.exact) << p1.blocker;
  ASSERT_TRUE(p2.exact) << p2.blocker;
  EXPECT_TRUE(OverflowsAlike(g1, p1, "alpha"));
  EXPECT_FALSE(OverflowsAlike(g2, p2, "alpha"));
}

// Fresh-user review 14 F3: `C = A * B + beta * C` (no alpha): beta scales
// only its addend, the K-long sum stays. The carrier set scales every
// addend by the same power of two: beta with A (the first buffer that
// completes it); `+ C` (no scalar): A with C. By hand: A * 2^s * B + beta *
// 2^s * C = 2^s (A * B + beta * C).
TEST(ConversionPlanTest, Review14F3CarrierScalesEveryAddend) {
  for (const std::string c_term : {"beta * C", "C"}) {
    const Kernel k = Parse(::kir::testing::Review14F3Kernel(c_term));
    const ExactPlan conv = WithSaturationSpecials(k, PlanConversionInputs(k));
    ASSERT_TRUE(conv.exact) << conv.blocker;
    std::string carrier;
    double scale = 0;
    std::vector<std::string> also;
    const ExactPlan p = SaturationPlan(k, conv, ElemType::kF16, 15, &carrier, &scale, "C", &also);
    ASSERT_TRUE(p.exact) << p.blocker;
    // beta: the scales m/8 * 2^s not beyond 15 in turn, the first a power
    // of two (A can take only 2^s) 8; without a scalar A's power of two
    // nearest 15, 16.
    const int s = c_term == "C" ? 4 : 3;
    EXPECT_EQ(scale, std::ldexp(1.0, s)) << c_term;
    if (c_term == "C") {
      // Toward the max A alone scales the value within 2^(1/16) (C, at
      // most 0.75, beside a sum of 512 products of up to 0.375); C scaled
      // alone would scale one addend.
      EXPECT_EQ(carrier, "A");
      EXPECT_TRUE(also.empty());
      EXPECT_EQ(p.formats.at("C").shift, conv.formats.at("C").shift);
    } else {
      EXPECT_EQ(carrier, "beta");
      EXPECT_EQ(also, std::vector<std::string>{"A"});
      ASSERT_EQ(p.formats.at("beta").choices.size(), conv.formats.at("beta").choices.size());
      for (size_t i = 0; i < p.formats.at("beta").choices.size(); ++i)
        EXPECT_EQ(p.formats.at("beta").choices[i], conv.formats.at("beta").choices[i] * 8);
      EXPECT_EQ(p.formats.at("C").shift, conv.formats.at("C").shift);
    }
    EXPECT_EQ(p.formats.at("A").shift, conv.formats.at("A").shift + s) << c_term;
    EXPECT_EQ(p.formats.at("B").shift, conv.formats.at("B").shift) << c_term;
    // Toward 2^-7: the K-long sum's bound times 2^-7 beside C's (beta *
    // C's) unscaled is no longer the value times 2^-7; C (or beta) joins A
    // by the same power of two.
    const ExactPlan d = SaturationPlan(k, conv, ElemType::kF16, 1.0 / 128, &carrier, &scale, "C", &also);
    ASSERT_TRUE(d.exact) << d.blocker;
    EXPECT_EQ(scale, 1.0 / 128) << c_term;
    const std::string other = c_term == "C" ? "C" : "beta";
    ASSERT_TRUE((carrier == "A" && also == std::vector<std::string>{other}) ||
                (carrier == other && also == std::vector<std::string>{"A"}))
        << c_term << ": " << carrier << " " << (also.empty() ? "" : also[0]);
    EXPECT_EQ(d.formats.at(carrier).shift + d.formats.at(also[0]).shift,
              conv.formats.at(carrier).shift + conv.formats.at(also[0]).shift - 7 * (c_term == "C" ? 2 : 1))
        << c_term;
  }
}

// Fresh-user review 14 F9: cvt(X * sx) to fp8 before the MFMA, O =
// cvt(acc * so). sx saturates (up) and flushes (down) at the quantiser;
// so, right behind O's conversion, carries both ways.
TEST(ConversionPlanTest, Review14F9CarrierWithoutANarrowingConversionBeforeTheOutput) {
  const Kernel k = Parse(::kir::testing::Review14F9Kernel());
  const ExactPlan conv = WithSaturationSpecials(k, PlanConversionInputs(k));
  ASSERT_TRUE(conv.exact) << conv.blocker;
  for (double factor : {10240.0, 3.27826e-07}) {
    std::string carrier;
    double scale = 0;
    std::vector<std::string> also;
    const ExactPlan p = SaturationPlan(k, conv, ElemType::kF16, factor, &carrier, &scale, "O", &also);
    ASSERT_TRUE(p.exact) << p.blocker;
    EXPECT_EQ(carrier, "so") << factor;
    EXPECT_TRUE(also.empty()) << factor;
    // m/8 * 2^s nearest the factor (up: not beyond it, down: not below).
    EXPECT_LE(std::fabs(std::log2(scale / factor)), 0.17) << scale;
    EXPECT_EQ(p.formats.at("sx").choices, conv.formats.at("sx").choices);
  }
}

// Fresh-user review 14 F5: P = cvt(alpha * acc) beside an in-place O =
// cvt(alpha * acc + cvt(O)): alpha times 2^-22 (P's subnormals) leaves O's
// sum of 448 and alpha * acc inexact in f32. The pass aimed at P takes it,
// with O named as left uncompared; O's own pass (or a factor O's
// exactness allows) leaves nothing out.
TEST(ConversionPlanTest, Review14F5SiblingLeftUncomparedForAFinerScale) {
  const Kernel k = Parse(::kir::testing::Review14F5Kernel());
  const ExactPlan base = PlanSaturationBase(k);
  ASSERT_TRUE(base.exact) << base.blocker;
  std::string carrier;
  double scale = 0;
  std::vector<std::string> also;
  std::set<std::string> unchecked;
  const double factor = std::ldexp(1.0, -22);
  const ExactPlan p =
      SaturationPlan(k, base, ElemType::kF8E5M2, factor, &carrier, &scale, "P", &also, {}, &unchecked);
  ASSERT_TRUE(p.exact) << p.blocker;
  EXPECT_EQ(carrier, "alpha");
  EXPECT_EQ(scale, factor);  // 2^-22 is m/8 * 2^s itself
  EXPECT_EQ(unchecked, std::set<std::string>{"O"});
  // O itself, toward its subnormals: its in-place addend cvt(O) (at least
  // 2^-9, f8e4m3fn's smallest subnormal, where nonzero) removed, O's input
  // all 0, alpha carries the rest; nothing left out. Not A zeroed: O =
  // cvt(0 + cvt(O)) would be stored as loaded.
  const ExactPlan o =
      SaturationPlan(k, base, ElemType::kF8E4M3FN, factor, &carrier, &scale, "O", &also, {}, &unchecked);
  ASSERT_TRUE(o.exact) << o.blocker;
  EXPECT_TRUE(unchecked.empty());
  EXPECT_EQ(carrier, "alpha");
  EXPECT_TRUE(o.formats.at("O").zero);
  EXPECT_FALSE(o.formats.at("A").zero);
  EXPECT_FALSE(base.formats.at("O").zero);
  // A factor within O's exactness: nothing left out either.
  const ExactPlan q =
      SaturationPlan(k, base, ElemType::kF8E5M2, 1.0 / 16, &carrier, &scale, "P", &also, {}, &unchecked);
  ASSERT_TRUE(q.exact) << q.blocker;
  EXPECT_EQ(scale, 1.0 / 16);
  EXPECT_TRUE(unchecked.empty());
}

// Fresh-user review 20 F3 (k1.kir): a K = 512 loop of f32_32x32x64_fp8_bf8
// MFMAs (8 trips), s = (acc * alpha) * alpha converted to f16 (P) and to
// f8e4m3fn (Q), had no conversion pass: with the narrowest inputs (A, B
// +-2^-1, alpha 2) the sum is 512 products of 2^-2, multiples of 2^-2 up to
// 128, times 4 by f32 multiplies the conversion analysis lets round (a
// bound just above 512 in steps of 2^0): 10 bits, more than f8e4m3fn's 4 +
// 5 (the dense blocker). A K window through the loop (LoopKSite: lane l
// loads A[l mod 32, k + 32 (l / 32) + e], e < 32, the K of fragment slot
// (i, kk) at trip t being 64 t + kk: distinct, row i only) with n = 256
// nonzero (blocks of 16 every 512 / 16 = 32): 256 products of 2^-2 times
// alpha^2 = 4, multiples of 1 up to 256: 8 bits. The gfx942 form (32 trips
// of f32_32x32x16_fp8_bf8) gets the same window.
TEST(ConversionPlanTest, R20F3MfmaLoopGetsAKWindow) {
  for (const std::string& text : {::kir::testing::R20F3Kernel(512), ::kir::testing::R20F3Gfx942Kernel()}) {
    const Kernel k = Parse(text);
    const std::vector<ExactPlan> passes = PlanConversionPasses(k);
    ASSERT_FALSE(passes.empty()) << text << PlanConversionInputs(k).blocker;
    const ExactPlan& p = passes.front();
    EXPECT_EQ(p.level, 1);
    EXPECT_EQ(p.formats.at("A").k_window, 256) << text;
    EXPECT_EQ(p.formats.at("A").k_dim, 1);
    EXPECT_EQ(p.formats.at("A").k_block, 16);
    EXPECT_EQ(p.formats.at("A").k_period, 32);
    EXPECT_EQ(p.formats.at("B").k_window, 0);
    bool q_rounds = false;
    for (const ConversionNote& n : p.conversions)
      if (IsFp8(n.to)) q_rounds = n.rounds && n.bits == 8 && n.capped;
    EXPECT_TRUE(q_rounds) << text;
  }
}

// Review 20 F3's refusals: no K window where the loads' K index is not
// provably the loop's. Loads without the loop variable read the same 64 K
// indices in every trip (a window there would count 32 nonzero of 64 where
// the loop sums 8 times as many); operands staged through LDS are not
// traced. The blocker says why for each operand.
TEST(ConversionPlanTest, R20F3NoKWindowWhereTheLoopKIsNotProved) {
  const Kernel same = Parse(absl::StrReplaceAll(::kir::testing::R20F3Kernel(512), {{"%k + tid.x", "tid.x"}}));
  EXPECT_TRUE(PlanConversionPasses(same).empty());
  const ExactPlan s = PlanConversionInputs(same);
  EXPECT_FALSE(s.exact);
  EXPECT_NE(s.blocker.find("; no K window through 14:5: '%d = mfma f32_32x32x64_fp8_bf8 %a, %b, %c': its A operand's "
                           "load 12:5: '%a = load A[tid.x mod 32, tid.x floordiv 32 * 32] : f8e4m3fnx32' reads, for "
                           "some row of the MFMA's A fragment, a K index twice or more than one index of the buffer's "
                           "other dimension over the loop: its K index is not provably the loop's, and its B "
                           "operand's load 13:5: "),
            std::string::npos)
      << s.blocker;
  // Only A's loads without it: B's K index is the loop's, and a window on B
  // bounds every sum (each product has a factor of B's, at distinct K).
  const Kernel a_only = Parse(absl::StrReplaceAll(
      ::kir::testing::R20F3Kernel(512),
      {{"%a = load A[tid.x mod 32, %k + tid.x", "%a = load A[tid.x mod 32, tid.x"}}));
  const std::vector<ExactPlan> b = PlanConversionPasses(a_only);
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b.front().formats.at("A").k_window, 0);
  EXPECT_EQ(b.front().formats.at("B").k_window, 256);
  const Kernel lds = Parse(::kir::testing::R20F3LdsKernel());
  EXPECT_TRUE(PlanConversionPasses(lds).empty());
  EXPECT_NE(PlanConversionInputs(lds).blocker.find(
                "; no K window through 19:5: '%d = mfma f32_16x16x16_f16 %a, %b, %c': its A operand is loaded from "
                "LDS allocation As (a K index is not traced through LDS), and its B operand is loaded from LDS "
                "allocation Bs (a K index is not traced through LDS)"),
            std::string::npos)
      << PlanConversionInputs(lds).blocker;
}

}  // namespace
}  // namespace kir
