// Code LLVM wrote: the testdata baselines (OpenCL twins of the .kir kernels,
// compiled by clang-22 under testdata/baselines) and a few more OpenCL
// kernels compiled here (loops, branches and EXEC masking, hidden arguments,
// a multi-wave LDS reduction, 64-bit indexing), run in the emulator and
// compared with CPU computations. The default-configuration GEMM baselines
// run next to kirc's code for the same .kir, on the same inputs.
#include <cmath>
#include <string>
#include <vector>

#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/float_bits.h"
#include "gtest/gtest.h"
#include "hw/emu/emulator.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using testing::FromBytes;
using testing::kLlvmBin;
using testing::Scalar;
using testing::ToBytes;

std::string Baseline(const std::string& kernel, const std::string& mcpu) {
  absl::StatusOr<std::string> b = ReadFileBytes("testdata/baselines/" + kernel + "." + mcpu + ".hsaco");
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *b : "";
}

std::vector<std::vector<uint8_t>> RunHsaco(const std::string& hsaco, const std::string& kernel,
                                           const std::string& mcpu, std::vector<std::vector<uint8_t>> in,
                                           std::array<int64_t, 3> grid, EmuStats* st = nullptr) {
  LaunchArgs a;
  a.args = std::move(in);
  a.grid = grid;
  absl::StatusOr<EmuStats> s = RunCodeObject(kLlvmBin, hsaco, kernel, mcpu, a);
  EXPECT_TRUE(s.ok()) << kernel << " on " << mcpu << ": " << s.status();
  if (!s.ok()) return {};
  if (st) *st = *s;
  return a.args;
}

// The f16 nearest (ties to even) to p, found among the neighbours of a
// first guess (independent of the emulator's rounding code).
uint16_t NearestF16(double p) {
  uint16_t g = F32ToF16Bits(static_cast<float>(p));
  uint16_t best = g;
  double best_d = 1e300;
  for (int d = -2; d <= 2; ++d) {
    uint16_t h = static_cast<uint16_t>(g + d);
    if (((g ^ h) & 0x8000) != 0) continue;
    double dist = std::fabs(static_cast<double>(F16BitsToF32(h)) - p);
    if (dist < best_d || (dist == best_d && (h & 1) == 0)) {
      best = h;
      best_d = dist;
    }
  }
  return best;
}

class BaselinesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BaselinesTest, CopyF32) {
  std::vector<float> src = testing::RandomF32(8192, 21);
  auto out = RunHsaco(Baseline("copy_f32", GetParam()), "copy_f32", GetParam(),
                      {ToBytes(src), ToBytes(std::vector<float>(8192, 0.0f))}, {8, 1, 1});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(FromBytes<float>(out[1]), src);
}

TEST_P(BaselinesTest, AddF16) {
  const int n = 64 * 512;
  std::vector<uint16_t> x = testing::RandomF16(n, 22), y = testing::RandomF16(n, 23);
  const float scale = 1.3f;
  auto out = RunHsaco(Baseline("add_f16", GetParam()), "add_f16", GetParam(),
                      {ToBytes(x), ToBytes(y), ToBytes(std::vector<uint16_t>(n)), Scalar(scale)}, {2, 16, 1});
  ASSERT_EQ(out.size(), 4u);
  std::vector<uint16_t> got = FromBytes<uint16_t>(out[2]);
  int exact = 0, one_ulp = 0, bad = 0;
  for (int i = 0; i < n; ++i) {
    uint16_t s = F32ToF16Bits(F16BitsToF32(x[i]) + F16BitsToF32(y[i]));
    // OpenCL: half(float(s) * scale), the product rounded to f32 and then to f16.
    uint16_t twice = F32ToF16Bits(F16BitsToF32(s) * scale);
    // LLVM's gfx908 code (v_fma_mixlo_f16 s, scale, 0) rounds the exact product once.
    uint16_t once = NearestF16(static_cast<double>(F16BitsToF32(s)) * scale);
    if (got[i] == twice) ++exact;
    else if (got[i] == once) ++one_ulp;
    else if (++bad < 5) ADD_FAILURE() << "element " << i << ": got " << std::hex << got[i] << " want " << twice;
  }
  EXPECT_EQ(bad, 0);
  // Only gfx908 differs from OpenCL's double rounding: LLVM's v_fma_mixlo_f16
  // rounds the exact product once. With scale = 1.3f that matters often
  // (s * 1.3f lands within an f32 ulp of an f16 tie for about 2% of s).
  if (GetParam() != "gfx908") {
    EXPECT_EQ(one_ulp, 0);
  }
  EXPECT_EQ(exact + one_ulp, n);
}

TEST_P(BaselinesTest, Mma16x16x16F16) {
  std::vector<uint16_t> a = testing::RandomF16(256, 24), b = testing::RandomF16(256, 25);
  auto out = RunHsaco(Baseline("mma_16x16x16_f16", GetParam()), "mma_16x16x16_f16", GetParam(),
                      {ToBytes(a), ToBytes(b), ToBytes(std::vector<float>(256))}, {1, 1, 1});
  ASSERT_EQ(out.size(), 3u);
  testing::CheckGemm(testing::F16ToDoubles(a), testing::F16ToDoubles(b), FromBytes<float>(out[2]), 16, 16, 16);
}

TEST_P(BaselinesTest, Mma16x16x16Bf16) {
  if (GetParam() == "gfx908") GTEST_SKIP() << "no 4-element bf16 MFMA on gfx908";
  std::vector<uint16_t> a = testing::RandomBf16(256, 26), b = testing::RandomBf16(256, 27);
  auto out = RunHsaco(Baseline("mma_16x16x16_bf16", GetParam()), "mma_16x16x16_bf16", GetParam(),
                      {ToBytes(a), ToBytes(b), ToBytes(std::vector<float>(256))}, {1, 1, 1});
  ASSERT_EQ(out.size(), 3u);
  testing::CheckGemm(testing::Bf16ToDoubles(a), testing::Bf16ToDoubles(b), FromBytes<float>(out[2]), 16, 16, 16);
}

TEST_P(BaselinesTest, Mma32x32x8F16) {
  std::vector<uint16_t> a = testing::RandomF16(256, 28), b = testing::RandomF16(256, 29);
  auto out = RunHsaco(Baseline("mma_32x32x8_f16", GetParam()), "mma_32x32x8_f16", GetParam(),
                      {ToBytes(a), ToBytes(b), ToBytes(std::vector<float>(1024))}, {1, 1, 1});
  ASSERT_EQ(out.size(), 3u);
  testing::CheckGemm(testing::F16ToDoubles(a), testing::F16ToDoubles(b), FromBytes<float>(out[2]), 32, 32, 8);
}

// gfx950's new f16 and bf16 shapes (one 16x16x32 MFMA on operands loaded
// from global memory; a K loop of four 32x32x16 MFMAs).
TEST_P(BaselinesTest, Mma16x16x32F16) {
  if (GetParam() != "gfx950") GTEST_SKIP() << "v_mfma_f32_16x16x32_f16 is gfx950's";
  std::vector<uint16_t> a = testing::RandomF16(512, 30), b = testing::RandomF16(512, 31);
  auto out = RunHsaco(Baseline("mma_16x16x32_f16", GetParam()), "mma_16x16x32_f16", GetParam(),
                      {ToBytes(a), ToBytes(b), ToBytes(std::vector<float>(256))}, {1, 1, 1});
  ASSERT_EQ(out.size(), 3u);
  testing::CheckGemm(testing::F16ToDoubles(a), testing::F16ToDoubles(b), FromBytes<float>(out[2]), 16, 16, 32);
}

TEST_P(BaselinesTest, Mma32x32x16Bf16) {
  if (GetParam() != "gfx950") GTEST_SKIP() << "v_mfma_f32_32x32x16_bf16 is gfx950's";
  std::vector<uint16_t> a = testing::RandomBf16(2048, 32), b = testing::RandomBf16(2048, 33);
  auto out = RunHsaco(Baseline("mma_32x32x16_bf16", GetParam()), "mma_32x32x16_bf16", GetParam(),
                      {ToBytes(a), ToBytes(b), ToBytes(std::vector<float>(1024))}, {1, 1, 1});
  ASSERT_EQ(out.size(), 3u);
  testing::CheckGemm(testing::Bf16ToDoubles(a), testing::Bf16ToDoubles(b), FromBytes<float>(out[2]), 32, 32, 64);
}

// An fp8 format: exponent bits (4 or 5), bias; decoded here by hand from
// the definitions (OCP 8-bit floating point specification v1.0: E4M3 bias
// 7, E5M2 bias 15; the FNUZ variants, LLVM's Float8E4M3FNUZ and
// Float8E5M2FNUZ, add 1 to the bias and make 0x80 their only NaN).
struct Fp8 {
  int exp_bits, bias;
};
constexpr Fp8 kE4M3Fnuz{4, 8}, kE5M2Fnuz{5, 16}, kE4M3Fn{4, 7}, kE5M2{5, 15};

double DecodeFp8(Fp8 f, uint8_t b) {
  const int man_bits = 7 - f.exp_bits;
  const int e = (b >> man_bits) & ((1 << f.exp_bits) - 1), m = b & ((1 << man_bits) - 1);
  const double mag = e == 0 ? std::ldexp(m, 1 - f.bias - man_bits) : std::ldexp((1 << man_bits) + m, e - f.bias - man_bits);
  return (b & 0x80) ? -mag : mag;
}

// n random fp8 codes of format f: random sign and mantissa, exponent 2^-2 ..
// 2^1 (finite normals in every format, no inf, no NaN). A product of two is
// a multiple of 2^-9 below 2^4 in magnitude, so a sum of up to 256 of them is
// exact in f32 in any order (21 significant bits at most).
std::vector<uint8_t> RandomFp8(Fp8 f, size_t n, uint64_t seed) {
  testing::Lcg r(seed);
  std::vector<uint8_t> v(n);
  const int man_bits = 7 - f.exp_bits;
  for (uint8_t& b : v) {
    const uint64_t x = r.Next();
    const int e = static_cast<int>(x % 4) - 2 + f.bias;
    const int m = static_cast<int>((x >> 8) % (1u << man_bits));
    b = static_cast<uint8_t>(((x >> 16) & 1) << 7 | e << man_bits | m);
  }
  return v;
}

std::vector<double> Fp8ToDoubles(Fp8 f, const std::vector<uint8_t>& v) {
  std::vector<double> d;
  for (uint8_t b : v) d.push_back(DecodeFp8(f, b));
  return d;
}

// gfx942's fp8 x bf8 MFMA on FNUZ formats, four 16x16x32 steps (K = 128).
TEST_P(BaselinesTest, MmaFp8Fnuz) {
  if (GetParam() != "gfx942") GTEST_SKIP() << "FNUZ fp8 MFMAs are gfx942's";
  std::vector<uint8_t> a = RandomFp8(kE4M3Fnuz, 2048, 34), b = RandomFp8(kE5M2Fnuz, 2048, 35);
  auto out = RunHsaco(Baseline("mma_fp8_fnuz", GetParam()), "mma_fp8_fnuz", GetParam(),
                      {a, b, ToBytes(std::vector<float>(256))}, {1, 1, 1});
  ASSERT_EQ(out.size(), 3u);
  testing::CheckGemm(Fp8ToDoubles(kE4M3Fnuz, a), Fp8ToDoubles(kE5M2Fnuz, b), FromBytes<float>(out[2]), 16, 16, 128);
}

// gfx950's OCP fp8: bf8 x fp8 32x32x16 (K = 64) and the f8f6f4 16x16x128
// with fp8 A and bf8 B (K = 256).
TEST_P(BaselinesTest, MmaFp8Ocp) {
  if (GetParam() != "gfx950") GTEST_SKIP() << "OCP fp8 MFMAs are gfx950's";
  std::vector<uint8_t> a = RandomFp8(kE5M2, 2048, 36), b = RandomFp8(kE4M3Fn, 2048, 37);
  std::vector<uint8_t> f = RandomFp8(kE4M3Fn, 4096, 38), g = RandomFp8(kE5M2, 4096, 39);
  auto out = RunHsaco(Baseline("mma_fp8_ocp", GetParam()), "mma_fp8_ocp", GetParam(),
                      {a, b, ToBytes(std::vector<float>(1024)), f, g, ToBytes(std::vector<float>(256))}, {1, 1, 1});
  ASSERT_EQ(out.size(), 6u);
  testing::CheckGemm(Fp8ToDoubles(kE5M2, a), Fp8ToDoubles(kE4M3Fn, b), FromBytes<float>(out[2]), 32, 32, 64);
  testing::CheckGemm(Fp8ToDoubles(kE4M3Fn, f), Fp8ToDoubles(kE5M2, g), FromBytes<float>(out[5]), 16, 16, 256);
}

const char kOwnKernels[] = R"(
kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void sum_rows(const global float* restrict a, global float* restrict out, int n, int m) {
  uint t = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 128;
  if (t >= (uint)n) return;
  float s = 0.0f;
  for (int j = 0; j < m; ++j) s += a[t * m + j];
  out[t] = s;
}
kernel void guarded(const global int* restrict a, global int* restrict out, int n) {
  uint t = __builtin_amdgcn_workitem_id_x() +
           __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x();
  if (t < (uint)n) out[t] = a[t] > 5 ? a[t] * 3 : a[t] / 7;
}
kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void reduce(const global float* restrict a, global float* restrict out) {
  local float buf[256];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  buf[t] = a[g * 256 + t];
  for (uint s = 128; s > 0; s >>= 1) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    if (t < s) buf[t] += buf[t + s];
  }
  if (t == 0) out[g] = buf[0];
}
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void index64(const global float* restrict a, global float* restrict out, ulong stride, float alpha) {
  size_t t = __builtin_amdgcn_workitem_id_x() + (size_t)__builtin_amdgcn_workgroup_id_x() * 64;
  float x = a[t * stride];
  out[t] = fma(x, alpha, x > 0.0f ? 1.0f : -2.0f) + (float)(int)t;
}
)";

TEST_P(BaselinesTest, OpenClControlFlowAndLds) {
  const std::string mcpu = GetParam();
  absl::StatusOr<std::string> hsaco = testing::CompileOpenCl(kOwnKernels, mcpu);
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  {  // loop + EXEC masking: 300 rows of 7 (the last workgroup partly out of range)
    const int n = 300, m = 7;
    std::vector<float> a = testing::RandomF32(n * m, 31);
    auto out = RunHsaco(*hsaco, "sum_rows", mcpu,
                        {ToBytes(a), ToBytes(std::vector<float>(384, -1.0f)), Scalar<int32_t>(n), Scalar<int32_t>(m)},
                        {3, 1, 1});
    ASSERT_EQ(out.size(), 4u);
    std::vector<float> got = FromBytes<float>(out[1]);
    for (int t = 0; t < 384; ++t) {
      float s = 0.0f;
      for (int j = 0; j < m && t < n; ++j) s += a[t * m + j];
      EXPECT_EQ(got[t], t < n ? s : -1.0f) << t;
    }
  }
  {  // hidden arguments (group size), divergent branches, signed division
    const int n = 1000;
    std::vector<int32_t> a(n);
    testing::Lcg r(32);
    for (auto& x : a) x = static_cast<int32_t>(r.Next() % 2001) - 1000;
    LaunchArgs la;
    la.args = {ToBytes(a), ToBytes(std::vector<int32_t>(1024, 77)), Scalar<int32_t>(n)};
    la.grid = {4, 1, 1};
    la.workgroup = {256, 1, 1};
    absl::StatusOr<EmuStats> s = RunCodeObject(kLlvmBin, *hsaco, "guarded", mcpu, la);
    ASSERT_TRUE(s.ok()) << s.status();
    std::vector<int32_t> got = FromBytes<int32_t>(la.args[1]);
    for (int t = 0; t < 1024; ++t) EXPECT_EQ(got[t], t < n ? (a[t] > 5 ? a[t] * 3 : a[t] / 7) : 77) << t;
  }
  {  // 4-wave LDS tree reduction with barriers
    std::vector<float> a(512);
    for (int i = 0; i < 512; ++i) a[i] = static_cast<float>(i % 13) - 6.0f;
    EmuStats st;
    auto out = RunHsaco(*hsaco, "reduce", mcpu, {ToBytes(a), ToBytes(std::vector<float>(2))}, {2, 1, 1}, &st);
    ASSERT_EQ(out.size(), 2u);
    std::vector<float> got = FromBytes<float>(out[1]);
    for (int g = 0; g < 2; ++g) {
      double s = 0;
      for (int i = 0; i < 256; ++i) s += a[g * 256 + i];  // small integers: exact in any order
      EXPECT_EQ(got[g], s);
    }
    EXPECT_EQ(st.waves, 8);
    EXPECT_GT(st.by_class["barrier"], 0);
  }
  {  // 64-bit index arithmetic, float select and fma
    const uint64_t stride = 3;
    std::vector<float> a = testing::RandomF32(128 * 3, 33);
    auto out = RunHsaco(*hsaco, "index64", mcpu,
                        {ToBytes(a), ToBytes(std::vector<float>(128)), Scalar<uint64_t>(stride), Scalar(0.75f)},
                        {2, 1, 1});
    ASSERT_EQ(out.size(), 4u);
    std::vector<float> got = FromBytes<float>(out[1]);
    for (int t = 0; t < 128; ++t) {
      float x = a[t * stride];
      EXPECT_EQ(got[t], std::fma(x, 0.75f, x > 0.0f ? 1.0f : -2.0f) + static_cast<float>(t)) << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, BaselinesTest, ::testing::Values("gfx908", "gfx90a", "gfx942", "gfx950"),
                         [](const auto& info) { return info.param; });

// kirc's default GEMM configuration (tile 128x128x32, 2 x 2 waves, 32x32x8
// MFMAs, 32x32x16 on gfx950, double-buffered LDS) on both sides: the clang baseline
// (testdata/baselines/KERNEL.cl, gemm_f16_tile128.cl.inc) and kirc's code
// object for testdata/kernels/KERNEL.kir, run in the strict emulator on the
// same inputs, each compared with C = alpha * A * B^T + beta * C computed
// here. A and B hold n/4 for integers n in [-8, 8] \ {0}, so every product
// is a multiple of 2^-4 below 4 in magnitude and every partial sum of K
// <= 1024 of them is exact in f32, in any order; alpha = 1.5 keeps
// alpha * (A B^T) exact, and the epilogue's one fused rounding of
// beta * C + alpha * (A B^T) is std::fma's: the result must be bit-exact.
// `gm` x `gn` workgroups are launched (the full grid is M/128 x N/128): the
// workgroups are independent, so a corner of the grid runs the whole K loop
// of each side at a fraction of the cost; C outside the corner must be
// untouched.
class DefaultGemmTest : public ::testing::TestWithParam<std::string> {
 protected:
  static std::vector<uint16_t> SmallQuarters(size_t n, uint64_t seed) {
    testing::Lcg r(seed);
    std::vector<uint16_t> v(n);
    for (uint16_t& x : v) {
      int q = static_cast<int>(r.Next() % 16) - 8;  // -8 .. 7
      if (q >= 0) ++q;                              // -8 .. -1, 1 .. 8
      x = F32ToF16Bits(static_cast<float>(q) / 4.0f);
    }
    return v;
  }

  void Check(const std::string& kernel, int M, int N, int K, int gm, int gn) {
    const std::string mcpu = GetParam();
    const std::vector<uint16_t> a = SmallQuarters(static_cast<size_t>(M) * K, 41);
    const std::vector<uint16_t> b = SmallQuarters(static_cast<size_t>(N) * K, 42);
    const std::vector<float> c0 = testing::RandomF32(static_cast<size_t>(M) * N, 43);
    const float alpha = 1.5f, beta = 0.75f;
    const std::vector<double> ad = testing::F16ToDoubles(a), bd = testing::F16ToDoubles(b);
    const int rows = gm * 128, cols = gn * 128;  // the block of C the launch computes
    std::vector<float> want = c0;
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        double dot = 0;
        const double* ar = &ad[static_cast<size_t>(i) * K];
        const double* br = &bd[static_cast<size_t>(j) * K];
        for (int k = 0; k < K; ++k) dot += ar[k] * br[k];
        const size_t e = static_cast<size_t>(i) * N + j;
        const float ab = static_cast<float>(alpha * dot);
        ASSERT_EQ(static_cast<double>(ab), alpha * dot) << "not exact in f32";
        want[e] = std::fma(c0[e], beta, ab);
      }
    const std::vector<std::vector<uint8_t>> in = {ToBytes(a), ToBytes(b), ToBytes(c0), Scalar(alpha), Scalar(beta)};
    const int64_t waves = int64_t{gm} * gn * 4;

    absl::StatusOr<CompileResult> r =
        testing::CompileKir(testing::ReadTestFile("testdata/kernels/" + kernel + ".kir"), mcpu);
    ASSERT_TRUE(r.ok()) << r.status();
    absl::StatusOr<std::string> kirc_hsaco = CodeObjectFor(*r, kLlvmBin);
    ASSERT_TRUE(kirc_hsaco.ok()) << kirc_hsaco.status();
    for (const auto& [side, hsaco] : {std::pair<std::string, std::string>{"clang", Baseline(kernel, mcpu)},
                                      {"kirc", *kirc_hsaco}}) {
      SCOPED_TRACE(side + " " + kernel + " on " + mcpu);
      EmuStats st;
      auto out = RunHsaco(hsaco, kernel, mcpu, in, {gm, gn, 1}, &st);
      ASSERT_EQ(out.size(), 5u);
      const std::vector<float> got = FromBytes<float>(out[2]);
      ASSERT_EQ(got.size(), want.size());
      int bad = 0;
      for (size_t e = 0; e < got.size(); ++e)
        if (got[e] != want[e] && ++bad <= 5)
          ADD_FAILURE() << "C[" << e / N << "][" << e % N << "] = " << got[e] << ", want " << want[e];
      EXPECT_EQ(bad, 0);
      // Every wave issues K/8 k-steps of its 2 x 2 32x32x8 MFMAs (gfx950:
      // K/16 of 32x32x16, compiler/analysis/gemm_config.cc DefaultMfma).
      EXPECT_EQ(st.waves, waves);
      EXPECT_EQ(st.by_class["mfma"], waves * (K / (mcpu == "gfx950" ? 16 : 8)) * 4);
      EXPECT_EQ(st.mfma_macs, int64_t{rows} * cols * K);
    }
  }
};

TEST_P(DefaultGemmTest, Gemm256x256x256) { Check("gemm_f16_256x256x256", 256, 256, 256, 2, 2); }

// 1024^3 on 2 x 2 of its 8 x 8 workgroups: the full 32-tile K loop (clang's
// code keeps this one rolled) in about 1/16 of the full run's time.
TEST_P(DefaultGemmTest, Gemm1024Corner) { Check("gemm_f16_1024", 1024, 1024, 1024, 2, 2); }

// The full 1024^3 grid takes about 45 s per target in the emulator (both
// sides, fastbuild): run by //hw/emu:baselines_gemm1024_test (manual), which
// passes --gtest_also_run_disabled_tests.
TEST_P(DefaultGemmTest, DISABLED_Gemm1024) { Check("gemm_f16_1024", 1024, 1024, 1024, 8, 8); }

INSTANTIATE_TEST_SUITE_P(GemmTargets, DefaultGemmTest, ::testing::Values("gfx90a", "gfx942", "gfx950"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kir::emu
