// The pass pipeline: its table, the print/stop/time options and the MIR
// verifier between passes, checked against other ways to reach the same text
// (ValidateAndPromote + PrintKernel, the full compile's final MIR).
#include "compiler/passes/pipeline.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/isa/encoding.h"
#include "compiler/promote/promote.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {

constexpr const char* kLoadStore = R"(kernel ls
workgroup 64 1 1
grid 2 1 1
arg X : f32[128] strides [1] readonly
arg Y : f32[128] strides [1] writeonly
  %a = load X[wg.x * 64 + tid.x] : f32
  %b = add %a, %a
  store Y[wg.x * 64 + tid.x], %b
end
)";

TargetId Id(const char* text) { return *ParseTargetId(text); }

PipelineResult RunOn(const Kernel& k, const char* target, const PipelineOptions& o) {
  absl::StatusOr<PipelineResult> r = RunPipeline(k, Id(target), o, "k.kir");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : PipelineResult{};
}

int CountLines(const std::string& text, absl::string_view needle) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) n += absl::StrContains(line, needle);
  return n;
}

TEST(Pipeline, TableOrder) {
  std::vector<std::string> names;
  for (const PassInfo& p : PassTable()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"validate", "promote", "lower", "schedule", "ds-pairing", "regalloc",
                                             "waitcnt", "hazards", "xnack-clauses", "resources"}));
  EXPECT_TRUE(CheckPassName("hazards", "--stop-after").ok());
  absl::Status s = CheckPassName("hazard", "--stop-after");
  EXPECT_EQ(s.message(),
            "--stop-after: there is no pass 'hazard'; the passes are validate, promote, lower, schedule, "
            "ds-pairing, regalloc, waitcnt, hazards, xnack-clauses, resources");
}

TEST(Pipeline, UnknownPassNameIsAnError) {
  Kernel k = *ParseKernel(kLoadStore, "k.kir");
  PipelineOptions o;
  o.print_after = {"frob"};
  absl::StatusOr<PipelineResult> r = RunPipeline(k, Id("gfx942"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "--print-after: there is no pass 'frob'")) << r.status();
}

// print-after=all: one dump per pass that ran, in order, KIR before lower and
// MIR from lower on; the records list the same passes.
TEST(Pipeline, PrintAfterAllDumpsEveryPassThatRan) {
  Kernel k = *ParseKernel(kLoadStore, "k.kir");
  PipelineOptions o;
  o.print_after = {"all"};
  std::vector<std::string> dumps;
  o.print = [&](absl::string_view d) { dumps.emplace_back(d); };
  PipelineResult r = RunOn(k, "gfx942:xnack-", o);
  std::vector<std::string> ran;
  for (const PassRecord& p : r.records) ran.push_back(p.name);
  // No gemm: promote is skipped; xnack-: xnack-clauses is skipped.
  EXPECT_EQ(ran, (std::vector<std::string>{"validate", "lower", "schedule", "ds-pairing", "regalloc", "waitcnt",
                                           "hazards", "resources"}));
  ASSERT_EQ(dumps.size(), ran.size());
  for (size_t i = 0; i < ran.size(); ++i)
    EXPECT_TRUE(absl::StartsWith(dumps[i], "# *** IR Dump After " + ran[i] + " *** kernel ls on gfx942:xnack-\n"))
        << dumps[i];
  // After validate: the kernel as KIR, which parses back to the same kernel.
  std::string kir_text = dumps[0].substr(dumps[0].find('\n') + 1);
  absl::StatusOr<Kernel> back = ParseKernel(kir_text, "dump.kir");
  ASSERT_TRUE(back.ok()) << back.status();
  Kernel with_id = k;
  with_id.target = "gfx942:xnack-";  // dumps name the target ID compiled for
  EXPECT_EQ(PrintKernel(*back), PrintKernel(with_id));
  // After lower: virtual registers; after regalloc: none.
  EXPECT_TRUE(absl::StrContains(dumps[1], "%v")) << dumps[1];
  EXPECT_FALSE(absl::StrContains(dumps[4], "%v")) << dumps[4];
}

// The waitcnt pass's dump differs from the regalloc dump by exactly the
// s_waitcnt lines it reports inserting.
TEST(Pipeline, StopAfterGivesThatPassesOutput) {
  Kernel k = *ParseKernel(kLoadStore, "k.kir");
  PipelineOptions o;
  o.stop_after = "regalloc";
  PipelineResult ra = RunOn(k, "gfx90a", o);
  EXPECT_EQ(ra.stopped_after, "regalloc");
  EXPECT_EQ(CountLines(ra.stopped_text, "s_waitcnt"), 0) << ra.stopped_text;
  EXPECT_FALSE(absl::StrContains(ra.stopped_text, "%v"));
  o.stop_after = "waitcnt";
  PipelineResult wc = RunOn(k, "gfx90a", o);
  ASSERT_FALSE(wc.records.empty());
  EXPECT_EQ(wc.records.back().name, "waitcnt");
  int64_t waits = -1;
  for (const auto& [name, v] : wc.records.back().counters)
    if (name == "waits") waits = v;
  EXPECT_GT(waits, 0);
  EXPECT_EQ(CountLines(wc.stopped_text, "s_waitcnt"), waits) << wc.stopped_text;
  EXPECT_EQ(wc.records.back().insts_after - wc.records.back().insts_before, waits);
  // The full pipeline's final MIR is what stop-after=resources gives.
  PipelineResult all = RunOn(k, "gfx90a", PipelineOptions{});
  o.stop_after = "resources";
  PipelineResult res = RunOn(k, "gfx90a", o);
  EXPECT_EQ(PrintMir(*Id("gfx90a").target, all.lowered.mir, all.kernel.name), res.stopped_text);
}

// A pass that does not apply still marks where --stop-after stops: for xnack-
// code stopping after xnack-clauses is stopping after hazards.
TEST(Pipeline, StopAfterASkippedPass) {
  Kernel k = *ParseKernel(kLoadStore, "k.kir");
  PipelineOptions o;
  o.stop_after = "xnack-clauses";
  PipelineResult x = RunOn(k, "gfx942:xnack-", o);
  o.stop_after = "hazards";
  PipelineResult h = RunOn(k, "gfx942:xnack-", o);
  EXPECT_EQ(x.stopped_after, "xnack-clauses");
  EXPECT_EQ(x.stopped_text, h.stopped_text);
  // Without gemm, stopping after promote is stopping after validate: KIR,
  // whose target line is the target ID compiled for (not the file's).
  o.stop_after = "promote";
  PipelineResult p = RunOn(k, "gfx90a:xnack+", o);
  Kernel want = k;
  want.target = "gfx90a:xnack+";
  EXPECT_EQ(p.stopped_text, PrintKernel(want));
}

// A gemm kernel stopped after promote is the promoted thread-level KIR that
// ValidateAndPromote (the API kirc --emit=kir uses) gives.
TEST(Pipeline, StopAfterPromoteIsThePromotedKernel) {
  Kernel k = testing::TestdataKernel("gemm_f16_256");
  PipelineOptions o;
  o.stop_after = "promote";
  PipelineResult r = RunOn(k, "gfx942", o);
  absl::StatusOr<Kernel> want = ValidateAndPromote(k, **LookupTarget("gfx942"), "k.kir");
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_EQ(r.stopped_text, PrintKernel(*want));
  // With a target ID, the promoted kernel's target line keeps its features.
  r = RunOn(k, "gfx942:xnack-", o);
  want->target = "gfx942:xnack-";
  EXPECT_EQ(r.stopped_text, PrintKernel(*want));
  EXPECT_TRUE(r.promoted);
  EXPECT_FALSE(r.gemm_tiling.empty());
}

// The MIR verifier after every pass accepts what the passes make, for plain,
// looping and gemm kernels on every target.
TEST(Pipeline, VerifierAcceptsEveryPassesOutput) {
  std::vector<Kernel> kernels = {*ParseKernel(kLoadStore, "k.kir"), testing::TestdataKernel("gemm_f16_256"),
                                 testing::TestdataKernel("mma_loop_32x32x64_f16"),
                                 testing::TestdataKernel("add_f16")};
  for (const Kernel& k : kernels)
    for (const char* t : {"gfx908", "gfx90a:xnack+", "gfx942"}) {
      PipelineOptions o;
      o.verify_each = true;
      absl::StatusOr<PipelineResult> r = RunPipeline(k, Id(t), o, "k.kir");
      EXPECT_TRUE(r.ok()) << k.name << " on " << t << ": " << r.status();
    }
}

// A kernel keeping `n` f32x16 loads live at once (16 * n VGPRs of data),
// on a workgroup of `threads`: every load comes before a barrier, and the
// fma chain reading them starts from %w, loaded after it; no memory access
// crosses an s_barrier, so whatever the schedule all n are live at the
// barrier and still when %w is loaded (16 * (n + 1)). (Without the barrier
// the scheduler may interleave the loads with the chain, keeping about
// three live: fresh-user review 15 F2.)
std::string ManyLiveVectors(int threads, int n) {
  std::string text = absl::StrCat("kernel many\nworkgroup ", threads, " 1 1\ngrid 1 1 1\n");
  for (int i = 0; i < n; ++i) absl::StrAppend(&text, "arg X", i, " : f32[16384] strides [1] readonly\n");
  text += "arg W : f32[16384] strides [1] readonly\narg Y : f32[16384] strides [1] writeonly\n";
  for (int i = 0; i < n; ++i) absl::StrAppend(&text, "  %x", i, " = load X", i, "[tid.x * 16] : f32x16\n");
  text += "  barrier\n  %w = load W[tid.x * 16] : f32x16\n";
  absl::StrAppend(&text, "  %m0 = fma %x0, %x", n > 1 ? 1 : 0, ", %w\n");
  for (int i = 1; i < n; ++i) absl::StrAppend(&text, "  %m", i, " = fma %x", i, ", %x", (i + 1) % n, ", %m", i - 1, "\n");
  absl::StrAppend(&text, "  store Y[tid.x * 16], %m", n - 1, "\nend\n");
  return text;
}

// A workgroup's waves are resident on one CU together, ceil(waves / 4) per
// SIMD, so one wave may allocate at most the SIMD's file over that many
// (512 registers per lane on gfx90a/942/950, 256 arch + 256 AGPRs on gfx908;
// by hand: 1024 threads -> 4 per SIMD -> 128 (gfx908: 64); 768 -> 3 -> 170,
// granule 8 -> 168; 512 -> 2 -> 256; 256 or fewer -> 512 (the arch VGPR
// limit 256 binds first)). Ten live f32x16 vectors need about 190 VGPRs
// (by hand, at least 11 x 16 = 176 when %w is loaded, over the 168 of 768
// threads): launchable with 512 threads, refused with 1024, naming the
// numbers.
TEST(Pipeline, AWorkgroupMustFitOneCu) {
  for (const TargetInfo* t : AllTargets()) {
    const bool unified = t->unified_vgpr_file;
    EXPECT_EQ(MaxVgprsPerWave(*t, 1024), unified ? 128 : 64) << t->name;
    EXPECT_EQ(MaxVgprsPerWave(*t, 768), unified ? 168 : 84) << t->name;
    EXPECT_EQ(MaxVgprsPerWave(*t, 512), unified ? 256 : 128) << t->name;
    EXPECT_EQ(MaxVgprsPerWave(*t, 256), unified ? 512 : 256) << t->name;
    EXPECT_EQ(MaxVgprsPerWave(*t, 1), unified ? 512 : 256) << t->name;
  }
  const Kernel wide = *ParseKernel(ManyLiveVectors(512, 10), "k.kir");
  PipelineResult r = RunOn(wide, "gfx942", PipelineOptions{});
  EXPECT_GT(r.resources.arch_vgprs, 160);
  EXPECT_LE(r.resources.next_free_vgpr, 256);
  const Kernel big = *ParseKernel(ManyLiveVectors(1024, 10), "k.kir");
  absl::StatusOr<PipelineResult> refused = RunPipeline(big, Id("gfx942"), PipelineOptions{}, "k.kir");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(refused.status().message(),
                                "k.kir: error: kernel 'many' on gfx942: a workgroup of 1024 threads is 16 waves, 4 on "
                                "each of a CU's 4 SIMDs, so one wave may allocate at most 128 of the SIMD's 512 VGPRs"))
      << refused.status();
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "use a workgroup of at most 512 threads"))
      << refused.status();
  // Four live vectors (about 70 VGPRs) fit 1024 threads on gfx90a/942/950,
  // one (about 50) on gfx908.
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    const int n = std::string(t) == "gfx908" ? 1 : 4;
    const Kernel fits = *ParseKernel(ManyLiveVectors(1024, n), "k.kir");
    PipelineResult f = RunOn(fits, t, PipelineOptions{});
    EXPECT_LE(std::max(f.resources.next_free_vgpr, f.resources.agprs), MaxVgprsPerWave(**LookupTarget(t), 1024)) << t;
    EXPECT_GT(f.resources.arch_vgprs, 16 * n) << t;
  }
}

// A gemm's given `waves 4x4` makes a workgroup of 16 waves, so each wave may
// allocate 128 VGPRs in all (fresh-user review of issue 19, F1): the
// defaults' register estimate takes that cap, not the target's 256 arch
// VGPRs, and turns the default double buffering off (compiling to about 96
// VGPRs). A given `double_buffer on` past the cap is refused at the gemm
// op's line and column, naming double_buffer off as a setting that compiles:
// with A.km (A staged K-major, read with load_tr) it needed 136 (now only in
// the source's order, below). With A.mk it
// has at most 128 VGPRs live at once and fits since the register allocator
// no longer fragments (issue 19: first fit gave it 132).
TEST(Pipeline, AGemmsDefaultsFitItsWorkgroupsRegisterShare) {
  auto text = [](const char* a_layout, const char* clauses) {
    const bool km = std::string(a_layout) == "km";
    return absl::StrCat(
        "kernel wide\n"
        "target gfx950\n"
        "workgroup auto\n"
        "grid auto\n",
        km ? "arg A : f16[256, 512] strides [512, 1] readonly\n" : "arg A : f16[512, 256] strides [256, 1] readonly\n",
        "arg B : f16[512, 256] strides [256, 1] readonly\n"
        "arg C : f32[512, 512] strides [512, 1] writeonly\n"
        "  gemm C = A.", a_layout, " * B.nk tile 256x256x64 waves 4x4",
        clauses, "\nend\n");
  };
  for (const char* t : {"gfx90a", "gfx942", "gfx950"}) {
    const Kernel k = *ParseKernel(text("mk", ""), "g.kir");
    absl::StatusOr<PipelineResult> r = RunPipeline(k, Id(t), PipelineOptions{}, "g.kir");
    ASSERT_TRUE(r.ok()) << t << ": " << r.status();
    EXPECT_LE(r->resources.next_free_vgpr, 128) << t;  // 512 / 4 waves per SIMD
    EXPECT_TRUE(absl::StrContains(r->gemm_tiling, "double_buffer off")) << t << ": " << r->gemm_tiling;
  }
  const Kernel mk_on = *ParseKernel(text("mk", " double_buffer on"), "g.kir");
  absl::StatusOr<PipelineResult> fits = RunPipeline(mk_on, Id("gfx950"), PipelineOptions{}, "g.kir");
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_LE(fits->resources.next_free_vgpr, 128);
  // A.km with double_buffer on: with the scheduler it now fits the 128
  // (fresh-user review 15 F2: over the cap, the scheduler orders each block
  // for the lowest pressure); in the source's order (the scheduler off, as
  // the alternatives are tried too) it needs more and is refused.
  const Kernel on = *ParseKernel(text("km", " double_buffer on"), "g.kir");
  absl::StatusOr<PipelineResult> scheduled = RunPipeline(on, Id("gfx950"), PipelineOptions{}, "g.kir");
  ASSERT_TRUE(scheduled.ok()) << scheduled.status();
  EXPECT_LE(scheduled->resources.next_free_vgpr, 128);
  PipelineOptions source_order;
  source_order.schedule = false;
  absl::StatusOr<PipelineResult> refused = RunPipeline(on, Id("gfx950"), source_order, "g.kir");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::StartsWith(refused.status().message(), "g.kir:8:3: error: kernel 'wide' on gfx950: a workgroup "
                                                           "of 1024 threads is 16 waves"))
      << refused.status();
  // The pipeline's note names the setting that compiles (double_buffer off).
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "double_buffer off") &&
              absl::StrContains(refused.status().message(), " on the gemm it compiles; or choose fewer waves or a "
                                                            "smaller tile"))
      << refused.status();
}

// Fresh-user review F1: S staged in LDS, then after a barrier each thread
// reads `n` f32x16 pieces back (rows other waves wrote), adds its own f32x16
// from X and stores the sum. In the source's order one chain is live at a
// time (about 50 VGPRs); hoisting every chain's LDS and global loads above
// the stores keeps 32 VGPRs per chain live.
std::string LdsAfterBarrier(int threads, int n) {
  const int cols = 16 * n, rows = threads * 4 / cols;
  std::string text = absl::StrCat("kernel f1\nworkgroup ", threads, " 1 1\ngrid 1 1 1\narg X : f32[", threads, ", ",
                                  cols, "] strides [", cols, ", 1] readonly\narg Y : f32[", threads, ", ", cols,
                                  "] strides [", cols, ", 1] writeonly\nlds S : f32[", 65536 / (4 * cols), ", ", cols, "]\n");
  // Each thread stages one f32x4 piece of S's first rows. S takes 64 KiB so
  // that one workgroup fills a CU's LDS on gfx908/90a/942 (the budget is
  // then the workgroup's, not an occupancy's).
  absl::StrAppend(&text, "  %a = load X[tid.x, 0] : f32x4\n  store S[tid.x floordiv ", cols / 4, ", tid.x mod ",
                  cols / 4, " * 4], %a\n  barrier\n");
  for (int v = 0; v < n; ++v)
    absl::StrAppend(&text, "  %p", v, " = load S[", rows - 1, " - tid.x mod ", rows, ", ", 16 * v,
                    "] : f32x16\n  %x", v, " = load X[tid.x, ",
                    16 * v, "] : f32x16\n  %s", v, " = add %p", v, ", %x", v, "\n  store Y[tid.x, ", 16 * v, "], %s",
                    v, "\n");
  return text + "end\n";
}

int64_t Counter(const PipelineResult& r, const char* pass, const char* name) {
  int64_t v = -1;
  for (const PassRecord& rec : r.records)
    if (rec.name == pass)
      for (const auto& [n, c] : rec.counters)
        if (n == name) v = c;  // the last run's
  return v;
}

// The scheduler keeps its own VGPR budget (the occupancy ceiling, at most a
// SIMD's file over the workgroup's waves per SIMD, less 4): the full
// schedule's estimated peak stays within it, so the pipeline needs no retry
// in the source's order, and the workgroup fits its CU. Before, hoisting
// several chains' loads up to the budget overshot it when finishing them:
// 147 VGPRs against 124 (512 threads, 8 chains, gfx908 and gfx950; the
// conservative retry then fit), 67 against 60 (1024 threads, 4 chains).
TEST(Pipeline, ScheduleKeepsTheVgprBudget) {
  for (const auto& [threads, n] : std::vector<std::pair<int, int>>{{1024, 4}, {512, 8}})
    for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
      SCOPED_TRACE(absl::StrCat(threads, " threads, ", n, " chains, ", t));
      const Kernel k = *ParseKernel(LdsAfterBarrier(threads, n), "k.kir");
      PipelineResult r = RunOn(k, t, PipelineOptions{});
      EXPECT_FALSE(r.conservative_schedule_retry);
      const int64_t budget = Counter(r, "schedule", "vgpr_budget"), peak = Counter(r, "schedule", "vgpr_peak");
      EXPECT_GT(budget, 0);
      EXPECT_LE(peak, budget);
      // The budget is a SIMD's file over the waves sharing it, less 4 (or
      // the original order's peak, about 50, when that is more).
      EXPECT_LE(budget, std::max<int64_t>(Counter(r, "schedule", "vgpr_original_peak"),
                                          MaxVgprsPerWave(**LookupTarget(t), threads) - 4));
      EXPECT_LE(std::max(r.resources.next_free_vgpr, r.resources.agprs), MaxVgprsPerWave(**LookupTarget(t), threads));
      // Where the budget leaves room for more chains than one (64 VGPRs
      // beyond the source order's peak of about 50; 120 and more on
      // gfx90a/942, and on gfx908 with 512 threads, where the LDS allows one
      // workgroup per CU) the loads are still hoisted: the peak passes the
      // source order's by more than a chain. (Elsewhere, a budget of 60, the
      // block keeps the source order.)
      const int64_t original = Counter(r, "schedule", "vgpr_original_peak");
      if (budget >= original + 64) EXPECT_GT(peak, original + 32);
      if (std::string(t) != "gfx950" && !(threads == 1024 && std::string(t) == "gfx908"))
        EXPECT_GE(budget, original + 64);
    }
}

// `n` independent load / mul / store chains of f32x`w` on a workgroup of
// `threads`, all the loads written first (fresh-user review 15 F2) or each
// chain in order.
// With `bf16_out`, each product is converted to bf16 before its store (Y is
// bf16).
std::string Chains(int threads, int n, int w, bool loads_first, bool bf16_out = false) {
  std::string text = absl::StrCat("kernel chains\nworkgroup ", threads, " 1 1\ngrid 1 1 1\narg X : f32[", threads, ", ",
                                  n * w, "] strides [", n * w, ", 1] readonly\narg Y : ", bf16_out ? "bf16" : "f32",
                                  "[", threads, ", ", n * w, "] strides [", n * w, ", 1] writeonly\n");
  auto load = [&](int i) { return absl::StrCat("  %x", i, " = load X[tid.x, ", w * i, "] : f32x", w, "\n"); };
  auto use = [&](int i) {
    if (bf16_out)
      return absl::StrCat("  %m", i, " = mul %x", i, ", %x", i, "\n  %c", i, " = cvt %m", i, " : bf16x", w,
                          "\n  store Y[tid.x, ", w * i, "], %c", i, "\n");
    return absl::StrCat("  %m", i, " = mul %x", i, ", %x", i, "\n  store Y[tid.x, ", w * i, "], %m", i, "\n");
  };
  for (int i = 0; i < n && loads_first; ++i) text += load(i);
  for (int i = 0; i < n; ++i) text += (loads_first ? "" : load(i)) + use(i);
  return text + "end\n";
}

// Fresh-user review 15 F2: chains written loads first whose source order is
// over what a wave of the workgroup may allocate (e.g. eight f32x16 chains,
// 145 VGPRs, in a 1024-thread workgroup: 128, gfx908 64) were refused,
// though chain order needs two tuples and an address, 2 x 16 + 1 = 33
// VGPRs by hand, within every cap here (the least, gfx908's at 1024 threads,
// is 64). The scheduler now keeps within the cap whenever the source order
// is over it, and then needs no more registers than the same chains written
// in chain order (the budget keeps the occupancy of its lowest-pressure
// order, as that kernel's keeps its source order's).
TEST(Pipeline, ChainsWrittenLoadsFirstFitTheLaunchCap) {
  int over = 0;
  for (const int threads : {512, 768, 1024})
    for (const int n : {4, 8, 12})
      for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
        SCOPED_TRACE(absl::StrCat(threads, " threads, ", n, " chains of f32x16, ", t));
        const int cap = MaxVgprsPerWave(**LookupTarget(t), threads);
        absl::StatusOr<PipelineResult> r =
            RunPipeline(*ParseKernel(Chains(threads, n, 16, true), "k.kir"), Id(t), PipelineOptions{}, "k.kir");
        ASSERT_TRUE(r.ok()) << r.status();
        EXPECT_FALSE(r->conservative_schedule_retry);
        EXPECT_LE(std::max(r->resources.next_free_vgpr, r->resources.agprs), cap);
        EXPECT_LE(Counter(*r, "schedule", "vgpr_peak"), cap);
        if (Counter(*r, "schedule", "vgpr_original_peak") <= cap) continue;
        ++over;
        PipelineResult chain_order = RunOn(*ParseKernel(Chains(threads, n, 16, false), "k.kir"), t, PipelineOptions{});
        EXPECT_LE(r->resources.next_free_vgpr, chain_order.resources.next_free_vgpr);
      }
  // By hand, the source order's peak (the n loaded tuples and the first
  // product, 16 (n + 1), and an address: 82, 146, 210) is over the cap for 8
  // and 12 chains at 1024 threads (128; gfx908 64: 4 chains too), 12 at 768
  // (168; gfx908 84: 8 too) and on gfx908 8 and 12 at 512 (128).
  EXPECT_EQ(over, 3 * 2 + 3 + 3 * 1 + 2 + 2);
}

// Fresh-user review 18 F2: the same chains ending in a bf16 conversion were
// still refused at 1024 threads (160 VGPRs against 128 on gfx942 and
// gfx950). The bf16 packing (v_and_or_b32) reads one shared 0xffff0000
// constant whose v_mov reads nothing, so the lowest-pressure pick never
// chose it: every chain's rounded halves waited for it while the next
// chains' loads issued (lowest order 146, the source order's peak). By
// hand, chain order needs at most two f32x16 tuples, a chain's rounding
// temporaries and the packed bf16x16 (8 dwords) and address: far under 128.
// Now the loads-first kernel compiles within the cap at chain order's
// occupancy.
TEST(Pipeline, ChainsToBf16WrittenLoadsFirstFitTheLaunchCap) {
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(absl::StrCat("1024 threads, 8 chains of f32x16 to bf16, ", t));
    const int cap = MaxVgprsPerWave(**LookupTarget(t), 1024);
    absl::StatusOr<PipelineResult> r = RunPipeline(*ParseKernel(Chains(1024, 8, 16, true, true), "k.kir"), Id(t),
                                                   PipelineOptions{}, "k.kir");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->conservative_schedule_retry);
    EXPECT_GT(Counter(*r, "schedule", "vgpr_original_peak"), cap);  // the source order is over the cap
    EXPECT_LE(std::max(r->resources.next_free_vgpr, r->resources.agprs), cap);
    EXPECT_LE(Counter(*r, "schedule", "vgpr_peak"), cap);
    // The occupancy of chain order (the budget keeps that of the
    // lowest-pressure order, not a register count: gfx908 36 VGPRs against
    // chain order's 35, both 7 waves per SIMD).
    PipelineResult chain_order = RunOn(*ParseKernel(Chains(1024, 8, 16, false, true), "k.kir"), t, PipelineOptions{});
    EXPECT_GE(r->resources.occupancy, chain_order.resources.occupancy);
  }
}

// Fresh-user review 18 F2 at 512 threads: the same eight chains to bf16 are
// within what a wave may allocate (256 on gfx90a/942/950, gfx908 128) in
// source order, whose 146 estimated VGPRs the scheduler kept as its budget
// (164 estimated, 180 allocated: 2 waves per SIMD) where chain order needs
// 59 (8 waves). Now the lowest-pressure order reaches a higher tier and is
// taken: the loads-first kernel needs at most chain order's VGPRs plus one
// allocation granule (the budget keeps a tier, not a register count, and
// counts within one granule allocate alike; gfx908: 36 against chain
// order's 35) and gets at least its waves per SIMD.
TEST(Pipeline, ChainsToBf16At512ThreadsTakeChainOrdersOccupancy) {
  for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(absl::StrCat("512 threads, 8 chains of f32x16 to bf16, ", t));
    const TargetInfo& target = **LookupTarget(t);
    absl::StatusOr<PipelineResult> r = RunPipeline(*ParseKernel(Chains(512, 8, 16, true, true), "k.kir"), Id(t),
                                                   PipelineOptions{}, "k.kir");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->conservative_schedule_retry);
    // By hand, the source order holds the eight loaded f32x16 tuples and the
    // first product: at least 9 x 16 = 144 VGPRs.
    EXPECT_GE(Counter(*r, "schedule", "vgpr_original_peak"), 144);
    PipelineResult chain_order = RunOn(*ParseKernel(Chains(512, 8, 16, false, true), "k.kir"), t, PipelineOptions{});
    EXPECT_LE(r->resources.next_free_vgpr, chain_order.resources.next_free_vgpr + target.vgpr_granule);
    EXPECT_GE(r->resources.occupancy, chain_order.resources.occupancy);
    // 144 VGPRs allow at most 3 waves per SIMD (512 / 144; gfx908 256 / 144:
    // 1), so the source order's tier is passed.
    EXPECT_GT(r->resources.occupancy, WavesPerSimdForVgprs(target, 144));
  }
}

// A gemm whose configuration runs out of VGPRs: the refusal names the other
// double_buffer / lds_dma settings that compile (fresh-user review F4), each
// checked here by compiling it. By hand: double buffering carries the next
// K tile around the K loop in registers, live at the loop's back edge
// whatever the schedule; with tile 64x64x256 and one wave that is 2 x 64 x
// 256 f16 = 64 KiB, 256 VGPRs per lane, beside at least an address offset:
// over the 256 arch VGPRs, on gfx950 (whose 160 KiB of LDS hold two such
// tiles); without double buffering, or with the LDS DMA (no registers for
// the copy), it fits.
// A single-buffered tile's copies are live at once only in the source's
// order, which loads all of them before storing any to LDS (64x64x256: the
// same 256 VGPRs; 64x64x128 with double buffering: the next tile's 128
// beside the current one's): the scheduler stores them as they arrive when
// that order is over the registers (fresh-user review 15 F2), so those
// cases run with the scheduler off (PipelineOptions::schedule; the
// alternatives are tried the same way), and compile with it on.
TEST(Pipeline, GemmOutOfRegistersNamesSettingsThatFit) {
  auto gemm = [](const char* target, const char* config) {
    return absl::StrCat("kernel g\ntarget ", target, "\nworkgroup auto\ngrid auto\n",
                        "arg A : f16[512, 512] strides [512, 1] readonly\n",
                        "arg B : f16[512, 512] strides [512, 1] readonly\n",
                        "arg C : f32[512, 512] strides [512, 1] readwrite\n  gemm C = A.mk * B.nk ", config, "\nend\n");
  };
  auto run = [](const std::string& text, const char* target, bool source_order) {
    PipelineOptions o;
    o.schedule = !source_order;
    return RunPipeline(*ParseKernel(text, "k.kir"), Id(target), o, "k.kir");
  };
  struct Case {
    const char* target;
    const char* config;
    const char* advice;  // "" when no other setting fits
    std::vector<const char*> fitting;  // the config with each advised setting applied
    bool source_order;  // over the registers only in the source's order
  };
  const Case cases[] = {
      // lds_dma off given: gfx950's default would be on here (a wave's K
      // tile is 1024 MFMA cycles or more: gemm_config.cc DefaultLdsDma).
      {"gfx950", "tile 64x64x256 waves 1x1 lds_dma off",
       "with `lds_dma on` on the gemm it compiles; or choose a smaller tile or more waves",
       {"tile 64x64x256 waves 1x1 lds_dma on"}, true},
      {"gfx90a", "tile 64x64x128 waves 1x1 double_buffer on",
       "with `double_buffer off` on the gemm it compiles; or choose a smaller tile or more waves",
       {"tile 64x64x128 waves 1x1 double_buffer off"}, true},
      {"gfx950", "tile 128x128x64 waves 1x1 double_buffer on lds_dma off",
       "with `double_buffer off` or with `lds_dma on` on the gemm it compiles; or choose a smaller tile or more waves",
       {"tile 128x128x64 waves 1x1 double_buffer on lds_dma on", "tile 128x128x64 waves 1x1 double_buffer off lds_dma off"},
       false},
      {"gfx950", "tile 64x64x256 waves 1x1 double_buffer on lds_dma off",
       "with `double_buffer off` or with `lds_dma on` on the gemm it compiles; or choose a smaller tile or more waves",
       {"tile 64x64x256 waves 1x1 double_buffer on lds_dma on", "tile 64x64x256 waves 1x1 double_buffer off lds_dma off"},
       false},
      {"gfx90a", "tile 64x64x256 waves 1x1", "", {}, true},  // no LDS DMA on gfx90a, no double buffering to drop
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.target, " ", c.config));
    absl::StatusOr<PipelineResult> r = run(gemm(c.target, c.config), c.target, c.source_order);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
    const std::string m(r.status().message());
    EXPECT_TRUE(absl::StrContains(m, "out of VGPRs")) << m;
    if (*c.advice != '\0') {
      EXPECT_TRUE(absl::StrContains(m, c.advice)) << m;
      for (const char* fitting : c.fitting) {
        absl::StatusOr<PipelineResult> fits = run(gemm(c.target, fitting), c.target, c.source_order);
        EXPECT_TRUE(fits.ok()) << fitting << ": " << fits.status();
      }
    } else {
      EXPECT_TRUE(absl::StrContains(m, "`: choose a smaller tile or more waves")) << m;
      EXPECT_FALSE(absl::StrContains(m, "it compiles")) << m;
    }
    if (c.source_order) {
      absl::StatusOr<PipelineResult> scheduled = run(gemm(c.target, c.config), c.target, false);
      EXPECT_TRUE(scheduled.ok()) << scheduled.status();
    }
  }
}

// The LDS DMAs of the final code that an s_waitcnt with vmcnt precedes (the
// instructions between a wait and its DMA: the M0 write and its s_nop).
std::vector<int> DmaWaits(const MFunction& f, int* dmas) {
  std::vector<int> vmcnt;
  *dmas = 0;
  for (size_t i = 0; i < f.insts.size(); ++i) {
    if (!(Info(f.insts[i].opc).flags & kLdsDma)) continue;
    ++*dmas;
    for (size_t j = i; j-- > 0;) {
      const MInst& p = f.insts[j];
      if (p.opc == Opc::kSNop || p.WritesM0()) continue;
      if (p.opc == Opc::kSWaitcnt && WaitcntCounter(p, OpName::kVmcnt) >= 0)
        vmcnt.push_back(static_cast<int>(WaitcntCounter(p, OpName::kVmcnt)));
      break;
    }
  }
  return vmcnt;
}

// Review 7 F3: an lds_dma whose base does not move with its barrier-less
// loop writes the same LDS bytes on every trip, so each trip's DMA waits for
// the previous one (vmcnt(0): no other VMEM in the loop; by hand), as the
// lowering's overlap relation says (the op with itself). A base that steps
// past the waves' bytes each trip, and the double-buffered GEMM, whose DMAs
// between two barriers all write their own bytes, get no wait before any DMA.
TEST(Pipeline, LdsDmaWaitsOnlyForADmaOfTheSameBytes) {
  const std::string loop = R"(kernel d9
target gfx950
workgroup 128 1 1
grid 1 1 1
arg A : f16[4, 1024] strides [1024, 1] readonly
arg O : f16[1024] strides [1] writeonly
lds L : f16[4096]
  for %k = 0 to 4 {
    lds_dma L[@BASE@], A[%k, tid.x * 8] : f16x8
    yield
  }
  barrier
  %v = load L[(127 - tid.x) * 8] : f16x8
  store O[tid.x * 8], %v
end
)";
  {
    Kernel k = *ParseKernel(absl::StrReplaceAll(loop, {{"@BASE@", "tid.x floordiv 64 * 512"}}), "f3.kir");
    PipelineResult r = RunOn(k, "gfx950", PipelineOptions{});
    ASSERT_TRUE(r.lowered.mir.lds_dma_overlaps_known);
    ASSERT_EQ(r.lowered.mir.lds_dma_overlaps.size(), 1u);
    EXPECT_EQ(r.lowered.mir.lds_dma_overlaps[0].first, r.lowered.mir.lds_dma_overlaps[0].second);
    int dmas = 0;
    EXPECT_EQ(DmaWaits(r.lowered.mir, &dmas), std::vector<int>{0});
    EXPECT_EQ(dmas, 1);
  }
  {
    // Each trip 2048 bytes further: wave 0 at 0, 2048, 4096, 6144, wave 1
    // 1024 bytes above; no two executions of one wave within 1024 bytes.
    Kernel k =
        *ParseKernel(absl::StrReplaceAll(loop, {{"@BASE@", "tid.x floordiv 64 * 512 + %k * 1024"}}), "lp4.kir");
    PipelineResult r = RunOn(k, "gfx950", PipelineOptions{});
    ASSERT_TRUE(r.lowered.mir.lds_dma_overlaps_known);
    EXPECT_TRUE(r.lowered.mir.lds_dma_overlaps.empty());
    int dmas = 0;
    EXPECT_TRUE(DmaWaits(r.lowered.mir, &dmas).empty());
    EXPECT_EQ(dmas, 1);
  }
  {
    PipelineResult r = RunOn(testing::TestdataKernel("gemm_lds_dma_db_f16"), "gfx950", PipelineOptions{});
    int dmas = 0;
    EXPECT_TRUE(DmaWaits(r.lowered.mir, &dmas).empty());
    EXPECT_GT(dmas, 1);
  }
}

}  // namespace
}  // namespace kir
