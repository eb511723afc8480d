// LDS accesses on a small finite domain are decided by evaluating every point
// of the query's domain (VerifyOptions::max_exhaustive_points), not by Z3:
// the same verdicts as the solver's, a proof only when every point holds, and
// a mismatch at one far point (the last work-item of the last iteration, the
// last point enumerated) is found there.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

using Status = AccessVerdict::Status;

// Workgroup 64 x 2 (128 work-items), a loop of 4 iterations around an LDS
// store and an LDS load of another work-item's element: each LDS access's
// domain is tid.x in [0, 63], tid.y in [0, 1] and the 4 iterations, 512
// points (the buffer accesses depend on the pointers: the solver's).
constexpr char kLoop[] = R"(kernel lds_loop
target gfx942
workgroup 64 2 1
grid 2 1 1
arg A : f32[1024] strides [1] readonly
arg B : f32[256] strides [1] writeonly
lds L : f32[2, 128]
  %z = zero f32
  %s = for %k = 0 to 4 iter(%acc = %z) {
    %a = load A[%k * 256 + wg.x * 128 + tid.y * 64 + tid.x] : f32
    store L[%k mod 2, tid.y * 64 + tid.x], %a
    barrier
    %v = load L[%k mod 2, 127 - tid.y * 64 - tid.x] : f32
    %acc2 = add %acc, %v
    yield %acc2
  }
  store B[wg.x * 128 + tid.y * 64 + tid.x], %s
end
)";
constexpr int64_t kPoints = 64 * 2 * 4;

bool IsLds(const AccessVerdict& a) { return absl::StrContains(a.inst_text, "ds_"); }

Compiled Load(const std::string& text) {
  absl::StatusOr<Compiled> c = CompileKir(text, "gfx942");
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : Compiled{};
}

TEST(Evaluation, LdsAccessesProveAtEveryPointAndAgreeWithTheSolver) {
  const Compiled c = Load(kLoop);
  const VerifyResult r = Verify(c);
  ASSERT_TRUE(r.all_proved) << r.Report();
  int lds = 0;
  for (const AccessVerdict& a : r.accesses) {
    if (IsLds(a)) {
      ++lds;
      EXPECT_EQ(a.points_checked, kPoints) << a.inst_text << "\n" << r.Report();
      EXPECT_EQ(a.solver_resources, 0u) << a.inst_text;
    } else {
      EXPECT_EQ(a.points_checked, 0) << a.inst_text << ": a buffer access depends on its pointer";
    }
  }
  EXPECT_EQ(lds, 2) << r.Report();
  // The solver alone (bound 0), and a bound one point short of the domain:
  // the same verdicts, from Z3.
  for (int64_t bound : {int64_t{0}, kPoints - 1}) {
    VerifyOptions o;
    o.max_exhaustive_points = bound;
    const VerifyResult z = Verify(c, nullptr, o);
    EXPECT_TRUE(z.all_proved) << bound << "\n" << z.Report();
    for (const AccessVerdict& a : z.accesses) {
      EXPECT_EQ(a.points_checked, 0) << bound << ": " << a.inst_text;
      if (IsLds(a)) EXPECT_GT(a.solver_resources, 0u) << bound << ": " << a.inst_text;
    }
  }
}

// The code of kLoop checked against a KIR whose LDS load differs only for
// tid = (63, 1, 0) in iteration 3: (tid.x floordiv 63) * tid.y * (%k floordiv
// 3) is 1 there and 0 everywhere else, so that point reads stage 0 where the
// code reads stage 1 (3 mod 2). That point is the domain's last, so
// the evaluation must reach it; the solver finds it too.
TEST(Evaluation, AMismatchAtTheLastWorkItemOfTheLastIterationFails) {
  const Compiled code = Load(kLoop);
  const std::string edited =
      absl::StrReplaceAll(kLoop, {{"load L[%k mod 2, 127 - tid.y * 64 - tid.x]",
                                   "load L[(%k + (tid.x floordiv 63) * tid.y * (%k floordiv 3)) mod 2, 127 - tid.y * "
                                   "64 - tid.x]"}});
  ASSERT_NE(edited, kLoop);
  Compiled c = Load(edited);
  c.result = code.result;  // the kernel's KIR is the edited one, the code kLoop's
  for (int64_t bound : {VerifyOptions{}.max_exhaustive_points, int64_t{0}}) {
    VerifyOptions o;
    o.max_exhaustive_points = bound;
    const VerifyResult r = Verify(c, nullptr, o);
    EXPECT_FALSE(r.all_proved) << r.Report();
    int failed = 0;
    for (const AccessVerdict& a : r.accesses) {
      if (a.status != Status::kFailed) {
        EXPECT_EQ(a.status, Status::kProved) << bound << ": " << a.inst_text << "\n" << r.Report();
        continue;
      }
      ++failed;
      EXPECT_TRUE(absl::StrContains(a.inst_text, "ds_read")) << a.inst_text;
      EXPECT_TRUE(absl::StrContains(a.counterexample, "tid = (63, 1, 0)")) << bound << ": " << a.counterexample;
      EXPECT_TRUE(absl::StrContains(a.counterexample, "confirmed concretely")) << a.counterexample;
      EXPECT_TRUE(absl::StrContains(a.reason, "LDS address ==")) << a.reason;
      EXPECT_EQ(a.points_checked, bound > 0 ? kPoints : 0) << bound << ": " << a.counterexample;
      if (bound > 0) EXPECT_TRUE(absl::StrContains(a.counterexample, "(point 512)")) << a.counterexample;
    }
    EXPECT_EQ(failed, 1) << bound << "\n" << r.Report();
  }
}

}  // namespace
}  // namespace kir::vfy::testing
