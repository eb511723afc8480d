// Tests of the random-kernel tester's parts: the generator (deterministic,
// valid, covering every feature), the reducer (on a kernel whose minimal form
// is known by hand) and the oracle's classification.
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/promote/promote.h"
#include "compiler/target/target.h"
#include "difftest/gen.h"
#include "difftest/oracle.h"
#include "difftest/reduce.h"
#include "gtest/gtest.h"
#include "hw/emu/emu_device.h"

namespace kir::difftest {
namespace {

TEST(Generator, SameSeedSameKernelOtherSeedsOtherKernels) {
  std::set<std::string> texts;
  for (uint64_t s = 1; s <= 50; ++s) {
    GeneratedKernel a = Generate(s), b = Generate(s);
    EXPECT_EQ(a.text, b.text) << "seed " << s;
    EXPECT_EQ(a.target_ids, b.target_ids);
    // The body (after the kernel line, which names the seed) differs too.
    texts.insert(a.text.substr(a.text.find("\ntarget")));
  }
  EXPECT_EQ(texts.size(), 50u);
}

// Every kernel parses and passes kirc's validator on each processor that has
// its MFMAs and fp8 types, and is refused on the others with one of the
// messages the generator predicted (for an MFMA or an fp8 type, naming the
// processor); at least one processor accepts it.
TEST(Generator, KernelsAreValid) {
  for (uint64_t s = 1; s <= 300; ++s) {
    GeneratedKernel g = Generate(s);
    absl::StatusOr<Kernel> k = ParseKernel(g.text, g.name + ".kir");
    ASSERT_TRUE(k.ok()) << k.status() << "\n" << g.text;
    ASSERT_EQ(g.target_ids.size(), 4u);
    EXPECT_LT(g.refusals.size(), 4u) << "seed " << s << ": no processor accepts it";
    for (int p = 0; p < kNumProcessors; ++p) {
      ASSERT_TRUE(absl::StartsWith(g.target_ids[p], kProcessors[p]));
      absl::StatusOr<TargetId> t = ParseTargetId(g.target_ids[p]);
      ASSERT_TRUE(t.ok()) << t.status();
      absl::StatusOr<Kernel> v = ValidateAndPromote(*k, *t->target, g.name + ".kir");
      auto want = g.refusals.find(kProcessors[p]);
      if (want != g.refusals.end()) {
        EXPECT_FALSE(v.ok()) << "seed " << s << " on " << kProcessors[p];
        if (!v.ok()) {
          bool named = false;
          for (const std::string& m : want->second) {
            EXPECT_TRUE(absl::StrContains(m, kProcessors[p])) << m;
            named |= absl::StrContains(v.status().message(), m);
          }
          EXPECT_TRUE(named) << "seed " << s << ": " << v.status();
        }
      } else {
        EXPECT_TRUE(v.ok()) << "seed " << s << " on " << g.target_ids[p] << ": " << v.status() << "\n" << g.text;
      }
    }
  }
}

TEST(Generator, CoversEveryFeatureIn600Seeds) {
  std::set<std::string> seen;
  for (uint64_t s = 1; s <= 600; ++s)
    for (const std::string& f : Generate(s).features) seen.insert(f);
  for (const std::string& f : AllFeatures()) EXPECT_TRUE(seen.count(f)) << "no kernel has " << f;
}

// The reducer keeps what the predicate needs and nothing else: the minimal
// form of this kernel under "compiles and has a mul" is known by hand.
TEST(Reducer, ShrinksToTheHandComputedMinimum) {
  const std::string text = R"(kernel t
target gfx942
workgroup 64 1 1
grid 2 1 1
arg X : f32[128] strides [1] readonly
arg Y : f32[128] strides [1] writeonly
arg Z : f32[4, 128] strides [128, 1] writeonly
  %a = load X[wg.x * 64 + tid.x] : f32
  %b = add %a, %a
  %c = mul %b, %a
  store Y[wg.x * 64 + tid.x], %b
  for %k = 0 to 4 {
    store guarded Z[%k, wg.x * 64 + tid.x], %c
    yield
  }
end
)";
  int calls = 0;
  auto pred = [&](const std::string& cand) {
    ++calls;
    CompileOptions o;
    return CompileText(cand, "t.kir", o).ok() && absl::StrContains(cand, "= mul ");
  };
  ASSERT_TRUE(pred(text));
  const std::string want = R"(kernel t
target gfx942
workgroup 64 1 1
grid 1 1 1
arg X : f32[128] strides [1] readonly
  %a = load X[wg.x * 64 + tid.x] : f32
  %b = add %a, %a
  %c = mul %b, %a
end
)";
  EXPECT_EQ(ReduceKernel(text, pred), want);
  EXPECT_GT(calls, 5);
  // A budget of 0 tests returns the input.
  EXPECT_EQ(ReduceKernel(text, pred, 0), text);
}

TEST(Reducer, CutsLoopTripCountsAndGuards) {
  const std::string text = R"(kernel t
target gfx942
workgroup 64 1 1
grid 1 1 1
arg Y : f32[8, 64] strides [64, 1] writeonly
  %z = zero f32
  for %k = 3 to 9 {
    store guarded Y[%k - 3, tid.x], %z
    yield
  }
end
)";
  // "Compiles and still stores in a loop": the loop stays, one trip, no guard.
  auto pred = [&](const std::string& cand) {
    CompileOptions o;
    return CompileText(cand, "t.kir", o).ok() && absl::StrContains(cand, "for ") &&
           absl::StrContains(cand, "store ");
  };
  std::string r = ReduceKernel(text, pred);
  EXPECT_TRUE(absl::StrContains(r, "for %k = 3 to 4 {")) << r;
  EXPECT_TRUE(absl::StrContains(r, "store Y[%k - 3, tid.x], %z")) << r;
}

const char kCopy[] = R"(kernel copy
target gfx942
workgroup 64 1 1
grid 2 1 1
arg X : f32[128] strides [1] readonly
arg Y : f32[128] strides [1] writeonly
  %v = load X[wg.x * 64 + tid.x] : f32
  store Y[127 - (wg.x * 64 + tid.x)], %v
end
)";

TEST(Oracle, ACorrectKernelPassesEveryCheckOnEveryTarget) {
  OracleOptions o;
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok()) << bin.status();
  o.llvm_bin = *bin;
  Outcome r = CheckKernel(kCopy, "copy.kir", {"gfx908", "gfx90a:xnack-", "gfx942:sramecc+"}, {}, o);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].stage << ": " << r.findings[0].message;
  EXPECT_EQ(r.compiled, 3);
  EXPECT_EQ(r.accesses, 6);  // one load and one store per target
  EXPECT_EQ(r.proved, 6);
  EXPECT_EQ(r.runs_exact, 3);
  EXPECT_EQ(r.runs_adversarial, 3);
  EXPECT_TRUE(r.ran_ok);
}

// A second device that runs the emulator and, on gfx942, flips bit 0 of
// Y's byte 8 (element 2) afterwards: the cross-check must find it there
// and only there.
class FlipOnGfx942 : public Device {
 public:
  explicit FlipOnGfx942(std::string bin) : emu_(std::move(bin)) {}
  std::string Name() const override { return "flip"; }
  absl::StatusOr<DeviceRun> Run(const Kernel& k, const TargetInfo& t, absl::string_view hsaco,
                                KernelData& data) override {
    absl::StatusOr<DeviceRun> r = emu_.Run(k, t, hsaco, data);
    if (r.ok() && std::string(t.name) == "gfx942") data.buffers["Y"][8] ^= 1;
    return r;
  }

 private:
  EmuDevice emu_;
};

TEST(Oracle, ASecondDeviceCrossChecksTheProcessorsItRuns) {
  OracleOptions o;
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok()) << bin.status();
  o.llvm_bin = *bin;
  o.verify = false;
  EmuDevice same(*bin);
  o.cross_check = &same;
  o.cross_check_processors = {"gfx90a", "gfx942"};
  Outcome r = CheckKernel(kCopy, "copy.kir", {"gfx908", "gfx90a", "gfx942"}, {}, o);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].stage << ": " << r.findings[0].message;
  EXPECT_EQ(r.runs_cross_checked, 4);  // exact + adversarial on gfx90a and gfx942, none on gfx908

  FlipOnGfx942 flip(*bin);
  o.cross_check = &flip;
  r = CheckKernel(kCopy, "copy.kir", {"gfx908", "gfx90a", "gfx942"}, {}, o);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].stage, "cross-check");
  EXPECT_EQ(r.findings[0].target, "gfx942");
  EXPECT_TRUE(absl::StrContains(r.findings[0].message, "cross-check: Y differs between")) << r.findings[0].message;
  EXPECT_TRUE(absl::StrContains(r.findings[0].message, "first Y[2]")) << r.findings[0].message;
  EXPECT_EQ(FindingClass(r.findings[0]), FindingClass(Finding{"cross-check", "gfx942", "cross-check: Y differs between a and b"}));
  EXPECT_EQ(r.runs_cross_checked, 2);  // gfx90a's two passes
}

TEST(Oracle, RefusalsOutsideTheLimitsAreFindings) {
  OracleOptions o;
  o.run = false;
  // An unguarded store past the end: kirc refuses it (InvalidArgument), and a
  // generated kernel is never like that, so the oracle reports it.
  std::string bad = kCopy;
  bad.replace(bad.find("127 - "), 6, "128 - ");
  Outcome r = CheckKernel(bad, "bad.kir", {"gfx90a"}, {}, o);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].stage, "compile");
  EXPECT_EQ(r.findings[0].target, "gfx90a");
  // An MFMA the processor lacks is refused as predicted, and compiling it
  // where it was predicted missing is a finding.
  const std::string mfma = R"(kernel m
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : bf16[64, 2] strides [2, 1] readonly
arg C : f32[64, 4] strides [4, 1] writeonly
  %a = load A[tid.x, 0] : bf16x2
  %z = zero f32x4
  %d = mfma f32_16x16x8_bf16 %a, %a, %z
  store C[tid.x, 0], %d
end
)";
  Outcome m = CheckKernel(mfma, "m.kir", {"gfx90a", "gfx942"}, {{"gfx942", {"MFMA f32_16x16x8_bf16 does not exist on gfx942"}}}, o);
  EXPECT_TRUE(m.findings.empty()) << m.findings[0].message;
  EXPECT_EQ(m.expected_refusals, 1);
  EXPECT_EQ(m.compiled, 1);
  Outcome wrong = CheckKernel(mfma, "m.kir", {"gfx90a"}, {{"gfx90a", {"MFMA f32_16x16x8_bf16 does not exist on gfx90a"}}}, o);
  ASSERT_EQ(wrong.findings.size(), 1u);
  EXPECT_EQ(wrong.findings[0].stage, "unexpected-compile");
  // An fp8 type: gfx942's FNUZ types are refused on gfx950 (and on gfx90a,
  // which has none) as predicted; a refusal with another message than the
  // predicted one is a finding.
  const std::string fp8 = R"(kernel f
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f8e4m3fnuz[64, 4] strides [4, 1] readonly
arg C : f32[64, 4] strides [4, 1] writeonly
  %a = load A[tid.x, 0] : f8e4m3fnuzx4
  %f = cvt %a : f32x4
  store C[tid.x, 0], %f
end
)";
  Outcome f = CheckKernel(fp8, "f.kir", {"gfx90a", "gfx942", "gfx950"},
                          {{"gfx90a", {"f8e4m3fnuz is not available on gfx90a"}},
                           {"gfx950", {"f8e4m3fnuz is not available on gfx950"}}}, o);
  EXPECT_TRUE(f.findings.empty()) << f.findings[0].message;
  EXPECT_EQ(f.expected_refusals, 2);
  EXPECT_EQ(f.compiled, 1);
  Outcome other = CheckKernel(fp8, "f.kir", {"gfx950"}, {{"gfx950", {"MFMA f32_16x16x32_fp8_fp8 does not exist on gfx950"}}}, o);
  ASSERT_EQ(other.findings.size(), 1u);
  EXPECT_EQ(other.findings[0].stage, "compile");
  EXPECT_TRUE(absl::StrContains(other.findings[0].message, "f8e4m3fnuz is not available on gfx950")) << other.findings[0].message;
}

// The reducer keeps "the same failure": positions, op text and numbers do
// not matter, the kind of message does.
TEST(Oracle, FindingClassIgnoresPositionsAndNumbersButNotTheKind) {
  Finding a{"compile", "gfx90a", "INVALID_ARGUMENT: k.kir:7:3: error: in '%v = load X[tid.x + 1] : f32': index 0 "
                                  "takes values 1..64, outside 0..63 of X; use `load guarded` or fix the index"};
  Finding b{"compile", "gfx90a", "INVALID_ARGUMENT: k.kir:4:3: error: in '%v = load X[tid.x + 9] : f32': index 0 "
                                  "takes values 9..72, outside 0..63 of X; use `load guarded` or fix the index"};
  Finding c{"compile", "gfx90a", "INVALID_ARGUMENT: k.kir:4:3: error: in '%v = load X[tid.x + 9] : f32': the "
                                  "kernel body is empty"};
  EXPECT_EQ(FindingClass(a), FindingClass(b));
  EXPECT_NE(FindingClass(a), FindingClass(c));
  b.target = "gfx942";
  EXPECT_NE(FindingClass(a), FindingClass(b));
  Finding m1{"mismatch", "gfx90a", "Y: 64 elements, ... tolerance bit-identical: FAIL (3 elements out of tolerance)\n"
                                   "Z: 64 elements ...: OK\n"};
  Finding m2{"mismatch", "gfx90a", "Y: 64 elements, ... tolerance bit-identical: FAIL (1 element out of tolerance)\n"};
  Finding m3{"mismatch", "gfx90a", "Z: 64 elements, ... tolerance bit-identical: FAIL (1 element out of tolerance)\n"};
  EXPECT_EQ(FindingClass(m1), FindingClass(m2));
  EXPECT_NE(FindingClass(m1), FindingClass(m3));
}

TEST(Oracle, VerifyTargetsRotateWithTheSeedAndSkipMissingMfmas) {
  std::vector<std::string> ids = {"gfx908:xnack-", "gfx90a:xnack-", "gfx942:xnack-"};
  EXPECT_EQ(VerifyTargetsFor(3, ids, {}, false), std::vector<std::string>{"gfx908:xnack-"});
  EXPECT_EQ(VerifyTargetsFor(4, ids, {}, false), std::vector<std::string>{"gfx90a:xnack-"});
  EXPECT_EQ(VerifyTargetsFor(5, ids, {}, false), std::vector<std::string>{"gfx942:xnack-"});
  EXPECT_EQ(VerifyTargetsFor(5, ids, {{"gfx942", {"MFMA f32_16x16x8_bf16 does not exist on gfx942"}}}, false),
            std::vector<std::string>{"gfx908:xnack-"});
  EXPECT_EQ(VerifyTargetsFor(5, ids, {}, true), ids);
}

}  // namespace
}  // namespace kir::difftest
