// The verifier proves every access of correct code (every testdata kernel on
// every target: //testdata:kernel_tests' K_T_verify_test) and of kernels
// written here for the lowering's harder paths: floordiv/mod by constants (magic numbers) with
// dividends up to 2^31 - 1 and negative ones, guarded accesses at shape edges,
// 2-D/3-D workgroups and grids, LDS with padding, nested loops.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/ir/index_expr.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

struct Timing {
  double total = 0, max_access = 0;
  int accesses = 0;
};

// Compiles `text` for every target and expects every access proved.
Timing ExpectAllProved(const std::string& name, const std::string& text) {
  Timing tm;
  for (const TargetInfo* t : AllTargets()) {
    absl::StatusOr<Compiled> c = CompileKir(text, t->name);
    if (!c.ok() && LacksInstruction(c.status())) continue;
    EXPECT_TRUE(c.ok()) << name << " on " << t->name << ": " << c.status();
    if (!c.ok()) continue;
    VerifyResult v = Verify(*c);
    EXPECT_TRUE(v.all_proved) << name << " on " << t->name << ":\n" << v.Report();
    EXPECT_FALSE(v.accesses.empty()) << name;
    tm.total += v.seconds;
    tm.accesses += static_cast<int>(v.accesses.size());
    for (const AccessVerdict& a : v.accesses) tm.max_access = std::max(tm.max_access, a.seconds);
  }
  std::printf("%-26s %4d accesses on all targets, %.3f s, slowest access %.3f s\n", name.c_str(), tm.accesses,
              tm.total, tm.max_access);
  return tm;
}

// Every testdata kernel on every target is proved by //testdata:kernel_tests
// (K_T_verify_test, on the code object Bazel built): not repeated here.

// store q_d[x floordiv d - floor(min/d)] and r_d[x mod d] for every divisor,
// x = `expr` ranging over [lo, hi].
std::string DivisionKernel(const std::string& name, const std::string& expr, int64_t lo, int64_t hi,
                           int64_t grid) {
  const int64_t divisors[] = {3, 5, 7, 24, 100, 641, 65535};
  std::string args, body = "  %z = zero f16\n";
  for (int64_t d : divisors) {
    int64_t qlo = FloorDiv(lo, d), qhi = FloorDiv(hi, d);
    absl::StrAppend(&args, "arg q", d, " : f16[", qhi - qlo + 1, "] strides [1] writeonly\n");
    absl::StrAppend(&args, "arg r", d, " : f16[", d, "] strides [1] writeonly\n");
    std::string shift = qlo < 0 ? absl::StrCat(" + ", -qlo) : qlo > 0 ? absl::StrCat(" - ", qlo) : "";
    absl::StrAppend(&body, "  store q", d, "[(", expr, ") floordiv ", d, shift, "], %z\n");
    absl::StrAppend(&body, "  store r", d, "[(", expr, ") mod ", d, "], %z\n");
  }
  return absl::StrCat("kernel ", name, "\nworkgroup 256 1 1\ngrid ", grid, " 1 1\n", args, body, "end\n");
}

TEST(Verify, FloorDivAndModByConstantsWithDividendsUpTo2To31Minus1) {
  // x = wg.x * 65536 + tid.x + 65280 covers [65280, 2^31 - 1].
  ExpectAllProved("div_up_to_2^31-1",
                  DivisionKernel("div_big", "wg.x * 65536 + tid.x + 65280", 65280, (int64_t{1} << 31) - 1, 32768));
}

TEST(Verify, FloorDivAndModOfNegativeDividends) {
  ExpectAllProved("div_negative_large",
                  DivisionKernel("div_neg", "wg.x * 65536 + tid.x - 1073741824", -1073741824,
                                 int64_t{32767} * 65536 + 255 - 1073741824, 32768));
  ExpectAllProved("div_negative_small",
                  DivisionKernel("div_small", "tid.x - 100 - wg.x * 3", -100 - 39 * 3, 255 - 100, 40));
}

constexpr char kMultiDim[] = R"(kernel multi
workgroup 16 4 2
grid 3 5 2
arg A : f32[3840] strides [1] readonly
arg A2 : f32[300] strides [1] readonly
arg H : f16[4, 37] strides [40, 1] readonly
arg B : f32[8, 30, 48] strides [1440, 48, 1] writeonly
arg C : f32[40, 7] strides [7, 1] writeonly
arg D : f16[4, 37] strides [40, 1] writeonly
lds L : f32[8, 33] pad 3
lds M : f16[4, 64] pad 4
  %a = load A[wg.x * 128 + (tid.x + tid.y * 16 + tid.z * 64) + wg.z * 384 + wg.y * 768] : f32
  store B[wg.z * 4 + tid.y, wg.y * 6 + (tid.x + tid.y * 16 + tid.z * 64) mod 24 floordiv 4, wg.x * 16 + tid.x], %a
  %g = load guarded A[wg.x * 130 + (tid.x + tid.y * 16 + tid.z * 64) - 5] : f32
  store guarded C[tid.x - 3 + wg.x * 16, tid.y * 2 - tid.z], %g
  store L[tid.y + tid.z * 4, tid.x * 2 + 1], %a
  store guarded L[tid.y * 2 + tid.z - 1, tid.x * 3 - 5], %g
  barrier
  %l = load L[(tid.x + tid.y) mod 8, 32 - tid.x] : f32
  store C[wg.x * 13 + tid.x floordiv 3 + tid.z * 7, tid.y + tid.z], %l
  %v = load guarded A2[tid.x * 4 - 8 + wg.y * 64] : f32x4
  %h = load guarded H[tid.y, tid.x * 4] : f16x4
  store guarded D[tid.y - tid.z, tid.x * 4 - 4], %h
  store guarded M[tid.y, tid.x * 4 - 8], %h
  %m = load guarded M[tid.y + 1, tid.x * 4] : f16x4
  %s = cvt %v : f16x4
  store guarded D[tid.y, 36 - tid.x * 4], %s
end
)";

TEST(Verify, GuardedEdgesNegativeTermsMultiDimensionalWorkgroupsAndPaddedLds) {
  ExpectAllProved("multi_dim_guarded_lds", kMultiDim);
}

constexpr char kNestedLoops[] = R"(kernel loops
workgroup 64 2 1
grid 2 3 1
arg A : f32[8, 100] strides [100, 1] readonly
arg B : f32[8, 130] strides [130, 1] writeonly
lds L : f32[3, 64] pad 1
  %z = zero f32
  %r = for %i = 0 to 8 step 1 iter(%c = %z) {
    %s = for %j = 0 to 96 step 32 iter(%d = %c) {
      %a = load guarded A[%i, %j + tid.x + wg.x * 7 - 3] : f32
      store L[%j floordiv 32, tid.x], %a
      %b = load L[2 - %j floordiv 32, 63 - tid.x] : f32
      %e = add %d, %b
      yield %e
    }
    store guarded B[%i, tid.x * 2 - wg.x + %i * 3 - tid.y], %s
    yield %s
  }
  store B[wg.y, tid.x + wg.x * 64], %r
end
)";

TEST(Verify, NestedLoopsByInduction) { ExpectAllProved("nested_loops", kNestedLoops); }

// A loop `for %k = RANGE` summing x[INDEX] into y.
std::string LoopKernel(const std::string& range, const std::string& index) {
  return absl::StrCat("kernel trips\nworkgroup 64 1 1\ngrid 1 1 1\narg x : f32[128] strides [1] readonly\n"
                      "arg y : f32[64] strides [1] writeonly\n  %z = zero f32\n  %r = for %k = ", range,
                      " iter(%c = %z) {\n    %v = load x[", index, "] : f32\n    %c2 = add %c, %v\n"
                      "    yield %c2\n  }\n  store y[tid.x], %r\nend\n");
}

// Trip counts are exact up to 2^32 (the first 65536 iterations concretely,
// then a binary search with Z3): no bound at 2^24, nothing unrolled.
TEST(Verify, LoopTripCountsPast2To24AreExactUpTo2To31Minus1) {
  struct Case {
    std::string range, index;
    int64_t trips;
  } cases[] = {
      {"0 to 65536 step 1", "tid.x", 65536},             // the last one found concretely
      {"0 to 65537 step 1", "tid.x", 65537},             // the first one found by the solver
      {"0 to 16777216 step 1", "tid.x", 16777216},
      {"0 to 16777217 step 1", "tid.x", 16777217},       // 2^24 + 1: was reported failed
      {"0 to 2000000000 step 1", "%k mod 128", 2000000000},
      {"0 to 2147483647 step 1", "%k mod 64 + tid.x floordiv 2", 2147483647},  // kirc's largest
      {"-2147483648 to -1 step 1", "%k mod 64 + tid.x", 2147483647},
      {"-2147483648 to 2147483647 step 3", "tid.x", 1431655765},
      {"0 to 2147483647 step 1073741823", "%k mod 64 + tid.x floordiv 2", 3},  // the step near 2^30
  };
  for (const Case& c : cases) {
    std::string text = LoopKernel(c.range, c.index);
    ExpectAllProved(absl::StrCat("loop ", c.range), text);
    absl::StatusOr<Compiled> k = CompileKir(text, "gfx942");
    ASSERT_TRUE(k.ok()) << k.status();
    VerifyResult v = Verify(*k);
    ASSERT_EQ(v.loops.size(), 1u) << v.Report();
    EXPECT_NE(v.loops[0].find(absl::StrCat("): ", c.trips, " iterations")), std::string::npos) << v.loops[0];
  }
}

// Issue 13, defect 9: a loop variable's floordiv/mod whose rewritten
// dividend (lo + step * iteration, less the multiples of the divisor) leaves
// the signed 32-bit range, or straddles 2^31, while the expression as written
// does not. kirc divides it in a biased window of [0, 2^32); every address is
// proved for all 1.2 billion iterations.
TEST(Verify, LoopDividendsPast2To31AreProved) {
  ExpectAllProved("wide mod", LoopKernel("-1200000000 to 1200000000 step 2", "%k mod 7 + tid.x"));
  ExpectAllProved("wide floordiv", LoopKernel("-1200000000 to 1200000000 step 2",
                                              "(%k + 1200000000) floordiv 40000000 + tid.x"));
  ExpectAllProved("straddling floordiv", LoopKernel("-1200000000 to 1200000000 step 2",
                                                    "(%k + 1000000000) floordiv 536870912 + tid.x + 1"));
}

TEST(Verify, ReportNamesEveryAccessAndTheSummary) {
  absl::StatusOr<Compiled> c = CompileKir(ReadTestFile("testdata/kernels/copy_f32.kir"), "gfx942");
  ASSERT_TRUE(c.ok()) << c.status();
  VerifyResult v = Verify(*c);
  std::string r = v.Report();
  EXPECT_NE(r.find("verify: kernel copy_f32 on gfx942: 2 memory instructions, 2 proved, 0 failed, 0 unknown"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("buffer_load_dwordx4"), std::string::npos) << r;
  EXPECT_NE(r.find("op 0: %v = load src[(wg.x * 256 + tid.x) * 4] : f32x4"), std::string::npos) << r;
  EXPECT_NE(r.find("verify: every address proved"), std::string::npos) << r;
  for (const AccessVerdict& a : v.accesses) {
    EXPECT_GE(a.inst_id, 0);
    EXPECT_GE(a.kir_op, 0);
    EXPECT_EQ(a.status, AccessVerdict::Status::kProved);
  }
}

// The solver's budget is counted, not timed: the same kernel uses the same
// resource units in every run, and a query that runs out of them is unknown
// (never proved, never failed) and says why. Every access goes to the solver
// (max_exhaustive_points 0: no LDS access decided by evaluation).
TEST(Verify, SolverBudgetIsDeterministicAndExhaustionIsUnknown) {
  absl::StatusOr<Compiled> c = CompileKir(ReadTestFile("testdata/kernels/gemm_f16_256.kir"), "gfx90a");
  ASSERT_TRUE(c.ok()) << c.status();
  VerifyOptions solver;
  solver.max_exhaustive_points = 0;
  VerifyResult first = Verify(*c, nullptr, solver), second = Verify(*c, nullptr, solver);
  ASSERT_EQ(first.accesses.size(), second.accesses.size());
  uint64_t most = 0;
  for (size_t i = 0; i < first.accesses.size(); ++i) {
    EXPECT_EQ(first.accesses[i].status, AccessVerdict::Status::kProved);
    EXPECT_GT(first.accesses[i].solver_resources, 0u);
    EXPECT_EQ(first.accesses[i].solver_resources, second.accesses[i].solver_resources) << i;
    most = std::max(most, first.accesses[i].solver_resources);
  }
  VerifyOptions tight = solver;
  tight.resource_limit = most / 2;
  tight.max_search_instructions = 100000;
  VerifyResult starved = Verify(*c, nullptr, tight);
  int unknown = 0;
  for (const AccessVerdict& a : starved.accesses) {
    EXPECT_NE(a.status, AccessVerdict::Status::kFailed) << a.inst_text;
    if (a.status == AccessVerdict::Status::kUnknown) {
      ++unknown;
      EXPECT_NE(a.reason.find("resource limit"), std::string::npos) << a.reason;
    }
  }
  EXPECT_GT(unknown, 0);
  EXPECT_FALSE(starved.all_proved);
}

// The wall-clock backstop never decides a verdict: with a 1 ms backstop the
// queries of a gemm (each needs tens of thousands of resource units, several
// ms) are stopped before their resource budget runs out, and VerifyAddresses
// says so as an error naming the access: neither unknown nor proved.
// The error of a verification with a 1 ms backstop ("" if it was none).
std::string HurriedError(const Compiled& c) {
  VerifyOptions hurried;
  hurried.timeout_seconds = 0.001;
  absl::StatusOr<VerifyResult> v = VerifyAddresses(c.kernel, *c.result.target, c.result.lowered, hurried);
  if (v.ok()) {
    ADD_FAILURE() << "no error with a 1 ms backstop:\n" << v->Report();
    return "";
  }
  EXPECT_EQ(v.status().code(), absl::StatusCode::kDeadlineExceeded) << v.status();
  return std::string(v.status().message());
}

TEST(Verify, WallClockBackstopIsAnErrorNotAVerdict) {
  absl::StatusOr<Compiled> c = CompileKir(ReadTestFile("testdata/kernels/gemm_f16_256.kir"), "gfx90a");
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string m = HurriedError(*c);
  EXPECT_NE(m.find("was stopped by the wall-clock backstop (0.001 s) before its resource budget ran out"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("rerun on a less loaded machine"), std::string::npos) << m;
  EXPECT_NE(m.find("kernel gemm_f16_256 on gfx90a: the solver's query for "), std::string::npos) << m;
  EXPECT_EQ(m.find("unknown"), std::string::npos) << m;
  // The same kernel with the default backstop: every access proved.
  VerifyResult normal = Verify(*c);
  EXPECT_TRUE(normal.all_proved) << normal.Report();
}

// The trip-count search of a loop past 65536 iterations is a Z3 query too:
// stopped by the backstop it is the same error, naming the search.
TEST(Verify, WallClockBackstopInTheTripCountSearchIsAnError) {
  absl::StatusOr<Compiled> c = CompileKir(LoopKernel("0 to 2147483647 step 1", "%k mod 64 + tid.x floordiv 2"), "gfx942");
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string m = HurriedError(*c);
  EXPECT_NE(m.find("stopped by the wall-clock backstop"), std::string::npos) << m;
}

TEST(Verify, RejectsVirtualRegisterMir) {
  absl::StatusOr<Compiled> c = CompileKir(ReadTestFile("testdata/kernels/copy_f32.kir"), "gfx942");
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<LoweredKernel> lk = LowerKernel(c->kernel, *c->result.target);
  ASSERT_TRUE(lk.ok());
  absl::StatusOr<VerifyResult> v = VerifyAddresses(c->kernel, *c->result.target, *lk);
  EXPECT_FALSE(v.ok());
}

}  // namespace
}  // namespace kir::vfy::testing
