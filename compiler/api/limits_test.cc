// Every limit of issue 8 is a clear error through the public API
// (kir::CompileText), one test per item of the list, each checking the
// status code, the position and the key text. Several are also tested closer
// to their source (parser_test, validate_test, compile_test); this file is the
// one place that covers the whole list end to end.
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/api/compile.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

// Four header lines; declarations start on line 5.
constexpr char kHead[] = "kernel t\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\n";

absl::Status Compile(const std::string& text, const std::string& mcpu = "") {
  CompileOptions opts;
  opts.mcpu = mcpu;
  absl::StatusOr<CompileResult> r = CompileText(text, "k.kir", opts);
  return r.status();
}

// The error is `code` and its message contains every one of `keys`.
void ExpectError(const absl::Status& s, absl::StatusCode code,
                 std::initializer_list<std::string> keys) {
  ASSERT_FALSE(s.ok()) << "compiled, but should be refused";
  EXPECT_EQ(s.code(), code) << s;
  for (const std::string& key : keys)
    EXPECT_NE(s.message().find(key), std::string::npos) << "missing '" << key << "' in: " << s;
}

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr auto kExhausted = absl::StatusCode::kResourceExhausted;

// ---------------------------------------------------------- register budgets

TEST(LimitsTest, VgprBudgetExceeded) {
  // Twenty f32x16 values loaded before a barrier and stored after it: no
  // memory access moves across an s_barrier, so whatever the schedule all
  // twenty are live at the barrier, 20 x 16 = 320 VGPRs; gfx942 has 256.
  // (Without the barrier the scheduler may store each value before the next
  // loads, fresh-user review 15 F2, and the kernel fits. Two waves: a
  // single-wave workgroup drops its barriers.)
  std::string text = absl::StrCat("kernel t\ntarget gfx942\nworkgroup 128 1 1\ngrid 1 1 1\n",
                                  "arg x : f32[128, 320] strides [320, 1] readonly\n",
                                  "arg y : f32[128, 320] strides [320, 1] writeonly\n");
  for (int i = 0; i < 20; ++i) absl::StrAppend(&text, "  %v", i, " = load x[tid.x, ", 16 * i, "] : f32x16\n");
  text += "  barrier\n";
  for (int i = 0; i < 20; ++i) absl::StrAppend(&text, "  store y[tid.x, ", 16 * i, "], %v", i, "\n");
  text += "end\n";
  ExpectError(Compile(text), kExhausted,
              {"k.kir: error: kernel 't' on gfx942: out of VGPRs: the kernel needs more than the "
               "256 VGPRs gfx942 has",
               "in '%v15 = load x[tid.x, 240] : f32x16'", "no spilling yet"});
}

TEST(LimitsTest, SgprBudgetExceeded) {
  // Every buffer argument keeps a 4-SGPR resource descriptor from its first
  // access to its last: 30 buffers each read at the start and written with
  // the sum of all the reads at the end hold 30 of them at once, which do not
  // fit the 102 SGPRs of gfx908. (Each buffer read and written on its own
  // fits: the scheduler interleaves the pairs to keep few descriptors live.)
  std::string text = "kernel t\ntarget gfx908\nworkgroup 64 1 1\ngrid 1 1 1\n";
  for (int i = 0; i < 30; ++i) absl::StrAppend(&text, "arg A", i, " : f32[64] strides [1] readwrite\n");
  for (int i = 0; i < 30; ++i) absl::StrAppend(&text, "  %x", i, " = load A", i, "[tid.x] : f32\n");
  text += "  %s0 = add %x0, %x1\n";
  for (int i = 2; i < 30; ++i) absl::StrAppend(&text, "  %s", i - 1, " = add %s", i - 2, ", %x", i, "\n");
  for (int i = 0; i < 30; ++i) absl::StrAppend(&text, "  store A", i, "[tid.x], %s28\n");
  text += "end\n";
  ExpectError(Compile(text), kExhausted,
              {"k.kir: error: kernel 't' on gfx908: out of SGPRs: the kernel needs more than the "
               "102 SGPRs gfx908 has",
               "number of buffer arguments"});
}

TEST(LimitsTest, ThirtyIndependentBuffersFitByInterleaving) {
  // The same 30 buffers, each written with its own value: the scheduler keeps
  // the SGPRs within its budget by storing each before the later loads.
  std::string text = "kernel t\ntarget gfx908\nworkgroup 64 1 1\ngrid 1 1 1\n";
  for (int i = 0; i < 30; ++i) absl::StrAppend(&text, "arg A", i, " : f32[64] strides [1] readwrite\n");
  for (int i = 0; i < 30; ++i) absl::StrAppend(&text, "  %x", i, " = load A", i, "[tid.x] : f32\n");
  for (int i = 0; i < 30; ++i) absl::StrAppend(&text, "  store A", i, "[tid.x], %x", i, "\n");
  text += "end\n";
  EXPECT_TRUE(Compile(text).ok()) << Compile(text);
}

// Kernels the scheduler's full freedom ran out of registers on (a fresh
// user's review, 2026-12-03): 13 independent copies, each buffer its own
// argument (99 SGPRs: every descriptor built before the uniform offset the
// loads shared), and a 128x128 tile on one wave (its loop's timeline kept
// more fragments live than the estimate said). They compile, the pipeline
// scheduling them again in the source's memory order without the timeline.
TEST(LimitsTest, KernelsTheFullScheduleCannotFitStillCompile) {
  std::string pairs = "kernel t\ntarget gfx908\nworkgroup 64 1 1\ngrid 2 1 1\n";
  for (int i = 0; i < 13; ++i) absl::StrAppend(&pairs, "arg S", i, " : f32[128] strides [1] readonly\n");
  for (int i = 0; i < 13; ++i) absl::StrAppend(&pairs, "arg D", i, " : f32[128] strides [1] writeonly\n");
  for (int i = 0; i < 13; ++i)
    absl::StrAppend(&pairs, "  %v", i, " = load S", i, "[wg.x * 64 + tid.x] : f32\n  store D", i,
                    "[wg.x * 64 + tid.x], %v", i, "\n");
  pairs += "end\n";
  const std::string gemm =
      "kernel g\ntarget gfx942\nworkgroup auto\ngrid auto\n"
      "arg A : f16[1024, 1024] strides [1024, 1] readonly\n"
      "arg B : f16[1024, 1024] strides [1024, 1] readonly\n"
      "arg C : f32[1024, 1024] strides [1024, 1] readwrite\n"
      "arg alpha : f32\narg beta : f32\n"
      "  gemm C = alpha * A.mk * B.nk + beta * C tile 128x128x32 waves 1x1\nend\n";
  for (const std::string& mcpu : {"gfx908", "gfx90a", "gfx942"}) {
    SCOPED_TRACE(mcpu);
    EXPECT_TRUE(Compile(pairs, mcpu).ok()) << Compile(pairs, mcpu);
    EXPECT_TRUE(Compile(gemm, mcpu).ok()) << Compile(gemm, mcpu);
  }
}

TEST(LimitsTest, AgprBudgetExceeded) {
  // gfx908 keeps MFMA accumulators in AGPRs: seventeen live f32x16 results
  // need 272 of its 256. They are live at once whatever the schedule: each
  // is carried into a loop (the scheduler moves instructions only within a
  // block), so all seventeen are live at the end of the block before it,
  // 17 x 16 = 272. (Seventeen results each stored once may each be stored
  // right after its MFMA, fresh-user review 15 F2, and fit.)
  auto kernel = [](int n) {
    std::string text = absl::StrCat("kernel t\ntarget gfx908\nworkgroup 64 1 1\ngrid 1 1 1\narg C : f32[64, ", 16 * n,
                                    "] strides [", 16 * n, ", 1] writeonly\n  %a = zero f16x4\n  %z = zero f32x16\n");
    std::vector<std::string> results, iters, next;
    for (int i = 0; i < n; ++i) {
      absl::StrAppend(&text, "  %d", i, " = mfma f32_32x32x8_f16 %a, %a, %z\n");
      results.push_back(absl::StrCat("%r", i));
      iters.push_back(absl::StrCat("%c", i, " = %d", i));
      next.push_back(absl::StrCat("%e", i));
    }
    absl::StrAppend(&text, "  ", absl::StrJoin(results, ", "), " = for %k = 0 to 2 step 1 iter(",
                    absl::StrJoin(iters, ", "), ") {\n");
    for (int i = 0; i < n; ++i) absl::StrAppend(&text, "    %e", i, " = mfma f32_32x32x8_f16 %a, %a, %c", i, "\n");
    absl::StrAppend(&text, "    yield ", absl::StrJoin(next, ", "), "\n  }\n");
    for (int i = 0; i < n; ++i) absl::StrAppend(&text, "  store C[tid.x, ", 16 * i, "], %r", i, "\n");
    return text + "end\n";
  };
  const std::string text = kernel(17);
  ExpectError(Compile(text), kExhausted,
              {"k.kir: error: kernel 't' on gfx908: out of AGPRs: the kernel needs more than the "
               "256 AGPRs gfx908 has",
               "mfma f32_32x32x8_f16"});
  // gfx90a first allocates the accumulators as VGPRs; when those run out it
  // lowers again with them in AGPRs (issue 16), where 272 > 256 as well.
  ExpectError(Compile(text, "gfx90a"), kExhausted,
              {"k.kir: error: kernel 't' on gfx90a: out of AGPRs: the kernel needs more than the "
               "256 AGPRs gfx90a has"});
  // Sixteen (256 registers) fit on every target: gfx908 holds them in its 256
  // AGPRs (a zero srcC is written into the result's own AGPRs, so the MFMA
  // accumulates in place and needs no second tuple); on gfx90a/942 in VGPRs
  // or, when those run out, AGPRs.
  const std::string sixteen = kernel(16);
  for (const char* target : {"gfx908", "gfx90a", "gfx942"}) {
    CompileOptions opts;
    opts.mcpu = target;
    absl::StatusOr<CompileResult> r = CompileText(sixteen, "k.kir", opts);
    ASSERT_TRUE(r.ok()) << target << ": " << r.status();
    if (std::string(target) == "gfx908") EXPECT_EQ(r->resources.agprs, 256);
  }
}

// --------------------------------------------------------------------- LDS

TEST(LimitsTest, LdsAboveTheTargetsSize) {
  ExpectError(Compile(absl::StrCat(kHead, "lds L : f32[128, 129]\n  barrier\nend\n")), kInvalid,
              {"k.kir:5:1: error: in 'lds L': the LDS allocations need 66048 bytes",
               "more than the 65536 bytes a workgroup has on gfx942"});
  // Exactly 64 KiB is fine.
  EXPECT_TRUE(Compile(absl::StrCat(kHead, "lds L : f32[128, 128]\n  barrier\nend\n")).ok());
  // A tile-level gemm whose LDS tiles do not fit.
  ExpectError(Compile(absl::StrCat(
                  "kernel g\ntarget gfx942\nworkgroup auto\ngrid auto\n",
                  "arg A : f16[256, 256] strides [256, 1] readonly\n",
                  "arg B : f16[256, 256] strides [256, 1] readonly\n",
                  "arg C : f32[256, 256] strides [256, 1] writeonly\narg alpha : f32\n",
                  "  gemm C = alpha * A.mk * B.nk tile 256x256x64 waves 4x4 double_buffer on\n"
                  "end\n")),
              kInvalid, {"k.kir:9:3: error:", "needs 131072 bytes of LDS", "more than the 65536 bytes"});
}

// --------------------------------------------------------------- workgroup

std::string WithWorkgroup(const std::string& wg) {
  return absl::StrCat("kernel t\ntarget gfx942\nworkgroup ", wg, "\ngrid 1 1 1\n  barrier\nend\n");
}

TEST(LimitsTest, WorkgroupAbove1024Threads) {
  ExpectError(Compile(WithWorkgroup("2048 1 1")), kInvalid,
              {"k.kir:3:1: error: in 'workgroup': workgroup extent x is 2048; a workgroup has at "
               "most 1024 threads"});
  ExpectError(Compile(WithWorkgroup("64 32 1")), kInvalid,
              {"workgroup 64x32x1 has 2048 threads; a workgroup has at most 1024"});
  EXPECT_TRUE(Compile(WithWorkgroup("64 16 1")).ok());
}

TEST(LimitsTest, WorkgroupNotAMultipleOf64) {
  ExpectError(Compile(WithWorkgroup("96 1 1")), kInvalid,
              {"k.kir:3:1: error: in 'workgroup': workgroup 96x1x1 has 96 threads, not a multiple "
               "of 64"});
  ExpectError(Compile(WithWorkgroup("-64 1 1")), kInvalid,
              {"k.kir:3:11: error: workgroup size must be positive, found -64"});
}

// -------------------------------------------------------------------- MFMA

TEST(LimitsTest, MfmaTheTargetLacks) {
  const char* body = "arg C : f32[16, 16] strides [16, 1] writeonly\n"
                     "  %a = zero bf16x4\n  %z = zero f32x4\n"
                     "  %d = mfma f32_16x16x16_bf16 %a, %a, %z\n"
                     "  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d\nend\n";
  ExpectError(Compile(absl::StrCat(kHead, body), "gfx908"), kInvalid,
              {"k.kir:8:3: error: in '%d = mfma f32_16x16x16_bf16 %a, %a, %z': MFMA "
               "f32_16x16x16_bf16 does not exist on gfx908: use f32_16x16x8_bf16"});
  EXPECT_TRUE(Compile(absl::StrCat(kHead, body), "gfx90a").ok());
  // And the other way round: the 2-element bf16 form is gone on gfx942.
  ExpectError(Compile(absl::StrCat(kHead,
                                   "arg C : f32[16, 16] strides [16, 1] writeonly\n"
                                   "  %a = zero bf16x2\n  %z = zero f32x4\n"
                                   "  %d = mfma f32_16x16x8_bf16 %a, %a, %z\n"
                                   "  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d\nend\n")),
              kInvalid, {"MFMA f32_16x16x8_bf16 does not exist on gfx942: use f32_16x16x16_bf16"});
}

// ------------------------------------------------------------------ access

TEST(LimitsTest, MisalignedVectorAccess) {
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[64] strides [1] readonly\n",
                                   "arg B : f32[256] strides [1] writeonly\n",
                                   "  %x = load A[tid.x mod 61] : f32x4\n",
                                   "  store B[tid.x * 4], %x\nend\n")),
              kInvalid,
              {"k.kir:7:3: error: in '%x = load A[tid.x mod 61] : f32x4': the f32x4 load needs "
               "16-byte alignment but its byte offset is only provably 4-byte aligned"});
}

std::string OneLoad(const std::string& index, const std::string& extent = "64") {
  return absl::StrCat(kHead, "arg A : f32[", extent, "] strides [1] readonly\n",
                      "arg B : f32[64] strides [1] writeonly\n", "  %x = load A[", index,
                      "] : f32\n  store B[tid.x], %x\nend\n");
}

TEST(LimitsTest, UnguardedOffsetCanBeNegative) {
  ExpectError(Compile(OneLoad("tid.x - 1")), kInvalid,
              {"k.kir:7:3: error: in '%x = load A[tid.x - 1] : f32': the byte offset can be "
               "negative (as low as -4); use `load guarded` or fix the index"});
}

TEST(LimitsTest, UnguardedIndexOutsideTheShape) {
  // (Offsets past 2^31 are fine in buffers of 2 GiB and more, issue 18; past
  // the shape they are not.)
  ExpectError(Compile(OneLoad("tid.x * 1073741824")), kInvalid,
              {"k.kir:7:3: error: in '%x = load A[tid.x * 1073741824] : f32': index 0 takes values "
               "0..", "use `load guarded` or fix the index"});
  // Guarded, the index itself must still fit 32 bits.
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[64] strides [1] readonly\n",
                                   "arg B : f32[64] strides [1] writeonly\n",
                                   "  %x = load guarded A[tid.x * 1073741824] : f32\n",
                                   "  store B[tid.x], %x\nend\n")),
              kInvalid, {"outside the 32-bit range; even guarded accesses need |index| < 2^31"});
}

// Buffers up to 2^47 bytes; a workgroup's threads within 2^31 bytes of each other per access.
TEST(LimitsTest, WideBuffers) {
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[35184372088833] strides [1] readonly\n",
                                   "arg B : f32[64] strides [1] writeonly\n",
                                   "  %x = load A[tid.x] : f32\n  store B[tid.x], %x\nend\n")),
              kInvalid, {"more than the 140737488355328 (2^47, 128 TiB) kirc supports"});
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[64, 536870912] strides [536870912, 1] readonly\n",
                                   "arg B : f32[64] strides [1] writeonly\n",
                                   "  %x = load A[tid.x, 0] : f32\n  store B[tid.x], %x\nend\n")),
              kInvalid, {"the threads of a workgroup reach", "at most 2^31 bytes per workgroup"});
}

// Fresh-user review 11 F1: the span in the message is the threads' (63 rows
// of 2^31 bytes, plus the 4 bytes of the last: 63 * 2^31 + 4), and names
// the term behind it; a floordiv of wg and tid terms compiles however large
// its whole range (64 threads read 22 consecutive elements), a mod with a
// large divisor is refused with its range.
TEST(LimitsTest, WideBufferSpanOfTheThreads) {
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[64, 536870912] strides [536870912, 1] readonly\n",
                                   "arg B : f32[64] strides [1] writeonly\n",
                                   "  %x = load A[tid.x, 0] : f32\n  store B[tid.x], %x\nend\n")),
              kInvalid,
              {"the threads of a workgroup reach 135291469828 bytes apart in A",
               "its widest per-thread term, 2147483648 * 'tid.x' over [0, 63], spans 135291469824 bytes"});
  const std::string head = "kernel t\ntarget gfx942\nworkgroup 64 1 1\ngrid 28125000 1 1\n"
                           "arg X : f32[2100000000] strides [1] readonly\n"
                           "arg Y : f32[1800000000] strides [1] writeonly\n";
  // X holds the largest index, 1799999999 floordiv 7 * 8 = 2057142856.
  for (const char* index : {"(wg.x * 64 + tid.x) floordiv 3", "(wg.x * 64 + tid.x + 300000000) floordiv 3",
                            "(wg.x * 64 + tid.x) floordiv 3 + 100000000", "(wg.x * 64 + tid.x) floordiv 7 * 8"}) {
    absl::Status st = Compile(absl::StrCat(head, "  %x = load X[", index, "] : f32\n",
                                           "  store Y[wg.x * 64 + tid.x], %x\nend\n"));
    EXPECT_TRUE(st.ok()) << index << ": " << st;
  }
  ExpectError(Compile(absl::StrCat(head, "  %x = load X[(wg.x * 64 + tid.x) mod 600000000] : f32\n",
                                   "  store Y[wg.x * 64 + tid.x], %x\nend\n")),
              kInvalid,
              {"may reach (kirc's interval bound) 2400000000 bytes apart in X",
               "its widest per-thread term, 4 * '(wg.x * 64 + tid.x) mod 600000000' over [0, 599999999], spans "
               "2399999996 bytes (a mod is bounded by its divisor only",
               "take the wg ids out of a mod with a large divisor"});
}

// Fresh-user review 11 F4: an along-0 vector whose two elements lie 2.4e9
// bytes apart (rows of 600,000,000 f32) while the 64 threads span 256 bytes
// compiles, each element through a window of its own, as the same written as
// two scalar stores does (it was refused; testdata/wide/apart_along0_f32 runs
// such accesses against the reference and proves them).
TEST(LimitsTest, WideBufferVectorElementsApartTakeAWindowEach) {
  const std::string head = "kernel t\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\n"
                           "arg X : f32[64, 2] strides [2, 1] readonly\n"
                           "arg Y : f32[2, 64] strides [600000000, 1] writeonly\n"
                           "  %x = load X[tid.x, 0] : f32x2\n";
  absl::Status vec = Compile(absl::StrCat(head, "  store Y[0, tid.x] along 0, %x\nend\n"));
  EXPECT_TRUE(vec.ok()) << vec;
  absl::Status st = Compile(absl::StrCat(head, "  %a = slice %x, 0 : f32\n  %b = slice %x, 1 : f32\n",
                                         "  store Y[0, tid.x], %a\n  store Y[1, tid.x], %b\nend\n"));
  EXPECT_TRUE(st.ok()) << st;
}

// ------------------------------------------------------------------ extents

TEST(LimitsTest, ZeroOrNegativeExtent) {
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[0] strides [1] readonly\n  barrier\nend\n")),
              kInvalid, {"k.kir:5:1: error: in 'arg A': dimension 0 has extent 0; extents must be at least 1"});
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[-4] strides [1] readonly\n  barrier\nend\n")),
              kInvalid, {"k.kir:5:13: error: shape extent must not be negative, found -4"});
  ExpectError(Compile(absl::StrCat(kHead, "lds L : f32[4, 0]\n  barrier\nend\n")), kInvalid,
              {"k.kir:5:1: error: in 'lds L': dimension 1 has extent 0; extents must be at least 1"});
  ExpectError(Compile("kernel t\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 0 1\n  barrier\nend\n"),
              kInvalid, {"k.kir:4:8: error: grid size must be positive, found 0"});
}

// ---------------------------------------------------------------- names/SSA

TEST(LimitsTest, DuplicateNames) {
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[64] strides [1] readwrite\n",
                                   "lds A : f32[64]\n  barrier\nend\n")),
              kInvalid,
              {"k.kir:6:1: error: in 'lds A': 'A' is already declared (arg A, line 5)"});
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[64] strides [1] readwrite\n",
                                   "  %x = load A[tid.x] : f32\n  %x = load A[tid.x] : f32\n",
                                   "  store A[tid.x], %x\nend\n")),
              kInvalid,
              {"k.kir:7:3: error: in '%x = load A[tid.x] : f32': %x is defined twice; rename one"});
}

TEST(LimitsTest, UseBeforeDefinition) {
  ExpectError(Compile(absl::StrCat(kHead, "arg A : f32[64] strides [1] readwrite\n",
                                   "  store A[tid.x], %x\n  %x = load A[tid.x] : f32\nend\n")),
              kInvalid,
              {"k.kir:6:3: error: in 'store A[tid.x], %x': use of undefined value %x; define it "
               "before this op"});
}

TEST(LimitsTest, EmptyKernel) {
  ExpectError(Compile(absl::StrCat(kHead, "end\n")), kInvalid,
              {"k.kir:1:1: error: in 'kernel': the kernel body is empty; add the ops the kernel "
               "should run"});
  ExpectError(Compile(""), kInvalid, {"k.kir:1:1: error: expected 'kernel', found end of input"});
  ExpectError(Compile("kernel t\n"), kInvalid, {"k.kir:"});
}

// ----------------------------------------------------------------- bytes

TEST(LimitsTest, NotUtf8OrNulByte) {
  ExpectError(Compile(absl::StrCat(kHead, "  barrier\xff\nend\n")), kInvalid,
              {"k.kir:5:10: error: invalid UTF-8 byte 0xff"});
  ExpectError(Compile(absl::StrCat(kHead, "# caf\xe9\n  barrier\nend\n")), kInvalid,
              {"k.kir:5:6: error: invalid UTF-8 byte 0xe9"});
  ExpectError(Compile(absl::StrCat(kHead, "  barrier\nend\n", std::string(1, '\0'))), kInvalid,
              {"k.kir:7:1: error: NUL byte in input"});
  ExpectError(Compile(std::string("kernel t\nwork") + '\0' + "group 64 1 1\n"), kInvalid,
              {"k.kir:2:5: error: NUL byte in input"});
}

TEST(LimitsTest, HundredMegabytesOfNestedParentheses) {
  std::string text = absl::StrCat(kHead, "arg A : f32[64] strides [1] readonly\n  %x = load A[");
  text.append(size_t{100} << 20, '(');
  text += "tid.x] : f32\nend\n";
  auto t0 = std::chrono::steady_clock::now();
  absl::Status s = Compile(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Column 15 is the first '('; the 201st is too deep.
  ExpectError(s, kInvalid, {"k.kir:6:215: error: index expression nested deeper than 200 levels"});
  EXPECT_LT(seconds, 5.0);
}

// A hand-given gemm tile whose A-tile copy overreaches a 2^31-byte buffer
// window (A's rows 40,000,000 bytes apart): the refusal names the gemm the
// user wrote and its configuration, then the promoted op, and offers kirc's
// own tiling, which must compile (the note's own suggestion, tried here).
TEST(LimitsTest, HandGivenGemmTileOverreachingAWindowIsSaidOfTheGemm) {
  const std::string head =
      "kernel g\ntarget gfx942\nworkgroup auto\ngrid auto\n"
      "arg A : f16[256, 64] strides [20000000, 1] readonly\n"
      "arg B : f16[256, 64] strides [64, 1] readonly\n"
      "arg C : f32[256, 256] strides [256, 1] writeonly\n";
  absl::Status st = Compile(absl::StrCat(head, "  gemm C = A.mk * B.nk tile 64x64x32 waves 2x2\nend\n"));
  ExpectError(st, kInvalid,
              {"k.kir:8:3: error: in 'gemm C = A.mk * B.nk tile 64x64x32 waves 2x2': the gemm's configuration "
               "`tile 64x64x32 waves 2x2",
               "gives the kernel kirc promotes it to an access kirc cannot lower: in '%a_copy0 = load A[",
               "2^31 bytes", "without the tile, waves and mfma clauses kirc chooses `tile "});
  const std::string m(st.message());
  const size_t at = m.find("kirc chooses `");
  ASSERT_NE(at, std::string::npos);
  const size_t from = at + std::string("kirc chooses `").size();
  const std::string chosen = m.substr(from, m.find('`', from) - from);
  ASSERT_FALSE(chosen.empty());
  absl::Status ok = Compile(absl::StrCat(head, "  gemm C = A.mk * B.nk ", chosen, "\nend\n"));
  EXPECT_TRUE(ok.ok()) << chosen << ": " << ok;
  // Without the clauses it compiles as it is.
  absl::Status dflt = Compile(absl::StrCat(head, "  gemm C = A.mk * B.nk\nend\n"));
  EXPECT_TRUE(dflt.ok()) << dflt;
}

}  // namespace
}  // namespace kir
