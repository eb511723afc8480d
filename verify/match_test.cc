// Matching without an access map (VerifyOptions::match_accesses): kirc's
// code with its access map and its LDS placement thrown away proves, with
// the LDS solved where the lowering put it. Edited code matches nothing and
// fails with a counterexample; a wrong given LDS base fails; overlapping
// bases fail. (Every testdata kernel's built code object, matched and
// checked against its access map: verify/object:kernel_objects_test.)
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/isa/asm_syntax.h"
#include "gtest/gtest.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

using Status = AccessVerdict::Status;

VerifyOptions Matching() {
  VerifyOptions o;
  o.match_accesses = true;
  return o;
}

// The code without what the lowering said about it.
LoweredKernel Stripped(const Compiled& c) {
  LoweredKernel code = c.result.lowered;
  code.access_map.clear();
  code.abi.lds_offsets.clear();
  return code;
}

const char kCopy[] =
    "kernel copy\nworkgroup 64 1 1\ngrid 4 1 1\n"
    "arg src : f32[256] strides [1] readonly\narg dst : f32[256] strides [1] writeonly\n"
    "  %v = load src[wg.x * 64 + tid.x] : f32\n  store dst[wg.x * 64 + tid.x], %v\nend\n";

// An instruction whose address no access has: failed, with a counterexample.
TEST(Match, AnEditedOffsetMatchesNothingAndFails) {
  absl::StatusOr<Compiled> c = CompileKir(kCopy, "gfx942");
  ASSERT_TRUE(c.ok()) << c.status();
  LoweredKernel code = Stripped(*c);
  int edited = 0;
  for (MInst& mi : code.mir.insts)
    if (absl::StartsWith(Info(mi.opc).mnemonic, "buffer_store")) mi.offset += 4, ++edited;
  ASSERT_EQ(edited, 1);
  VerifyResult v = Verify(*c, &code, Matching());
  EXPECT_FALSE(v.all_proved);
  // The store, and the KIR store nothing performs now.
  ASSERT_EQ(CountStatus(v, Status::kFailed), 2) << v.Report();
  EXPECT_TRUE(absl::StrContains(v.Report(), "element 0 is stored by no instruction")) << v.Report();
  for (const AccessVerdict& a : v.accesses)
    if (a.status == Status::kFailed && a.inst_id >= 0) {
      EXPECT_TRUE(absl::StrContains(a.reason, "matches no KIR access")) << a.reason;
      EXPECT_TRUE(absl::StrContains(a.counterexample, "tid")) << a.counterexample;
    }
}

// VerifyOptions::stop_at_first_failure: with the load and the store both
// edited, the run stops after the load (the first memory instruction) with
// the full run's verdict for it; with the access map as without. Unedited
// code runs to the end and proves.
TEST(Match, StopAtFirstFailureEndsWithTheFullRunsFirstFailure) {
  absl::StatusOr<Compiled> c = CompileKir(kCopy, "gfx942");
  ASSERT_TRUE(c.ok()) << c.status();
  for (bool match : {true, false}) {
    LoweredKernel code = match ? Stripped(*c) : c->result.lowered;
    int edited = 0;
    for (MInst& mi : code.mir.insts)
      if (absl::StartsWith(Info(mi.opc).mnemonic, "buffer_")) mi.offset += 4, ++edited;
    ASSERT_EQ(edited, 2);
    VerifyOptions o;
    o.match_accesses = match;
    const VerifyResult full = Verify(*c, &code, o);
    o.stop_at_first_failure = true;
    const VerifyResult stop = Verify(*c, &code, o);
    EXPECT_FALSE(full.stopped_early);
    ASSERT_GE(CountStatus(full, Status::kFailed), 2) << full.Report();
    ASSERT_TRUE(stop.stopped_early) << stop.Report();
    EXPECT_FALSE(stop.all_proved);
    // Only the load: its verdict, word for word and in Z3 resources, the full run's.
    ASSERT_EQ(stop.accesses.size(), 1u) << stop.Report();
    const AccessVerdict& a = stop.accesses[0];
    const AccessVerdict& b = full.accesses[0];
    EXPECT_TRUE(absl::StartsWith(a.inst_text, "buffer_load")) << a.inst_text;
    EXPECT_EQ(a.status, Status::kFailed);
    EXPECT_EQ(a.inst_text, b.inst_text);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.reason, b.reason);
    EXPECT_EQ(a.counterexample, b.counterexample);
    EXPECT_EQ(a.solver_resources, b.solver_resources);
    EXPECT_TRUE(absl::StrContains(stop.Report(), "stopped at the first failed instruction")) << stop.Report();
    // The unedited code: nothing fails, so nothing stops.
    const LoweredKernel good = match ? Stripped(*c) : c->result.lowered;
    const VerifyResult g = Verify(*c, &good, o);
    EXPECT_TRUE(g.all_proved) << g.Report();
    EXPECT_FALSE(g.stopped_early);
  }
}

// A load in the code where the KIR has only a store (and vice versa) has no candidate.
TEST(Match, AKernelWithoutSuchAnAccessHasNoCandidate) {
  absl::StatusOr<Compiled> c = CompileKir(kCopy, "gfx90a");
  ASSERT_TRUE(c.ok()) << c.status();
  absl::StatusOr<Compiled> other = CompileKir(
      "kernel copy\nworkgroup 64 1 1\ngrid 4 1 1\n"
      "arg src : f32[256] strides [1] readonly\narg dst : f32[256] strides [1] writeonly\n"
      "  %v = load src[wg.x * 64 + tid.x] : f32\n  %w = add %v, %v\nend\n",
      "gfx90a");
  ASSERT_TRUE(other.ok()) << other.status();
  // The copy's code against a twin that never stores.
  LoweredKernel code = Stripped(*c);
  absl::StatusOr<VerifyResult> v = VerifyAddresses(other->kernel, *c->result.target, code, Matching());
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(CountStatus(*v, Status::kProved), 1) << v->Report();
  ASSERT_EQ(CountStatus(*v, Status::kFailed), 1) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "the kernel has no store to a buffer")) << v->Report();
}

const char kLds[] =
    "kernel stage\nworkgroup 64 1 1\ngrid 2 1 1\n"
    "arg src : f32[128] strides [1] readonly\narg dst : f32[128] strides [1] writeonly\n"
    "lds a : f32[64]\nlds b : f32[64]\n"
    "  %v = load src[wg.x * 64 + tid.x] : f32\n  store a[tid.x], %v\n  store b[63 - tid.x], %v\n  barrier\n"
    "  %x = load a[63 - tid.x] : f32\n  %y = load b[tid.x] : f32\n  %s = add %x, %y\n"
    "  store dst[wg.x * 64 + tid.x], %s\nend\n";

// Two LDS allocations: solved where the lowering put them; a wrong given base
// fails the accesses of that allocation; bases that overlap fail the layout.
TEST(Match, LdsBasesAreSolvedAndGivenOnesChecked) {
  for (const char* mcpu : {"gfx908", "gfx942"}) {
    absl::StatusOr<Compiled> c = CompileKir(kLds, mcpu);
    ASSERT_TRUE(c.ok()) << c.status();
    std::map<std::string, int64_t> want(c->result.lowered.abi.lds_offsets.begin(),
                                        c->result.lowered.abi.lds_offsets.end());
    ASSERT_EQ(want.size(), 2u);
    const LoweredKernel stripped = Stripped(*c);
    VerifyResult v = Verify(*c, &stripped, Matching());
    EXPECT_TRUE(v.all_proved) << v.Report();
    for (const auto& [name, off] : want) {
      bool found = false;
      for (const std::string& l : v.lds_layout) found |= absl::StartsWith(l, absl::StrCat("LDS '", name, "' at byte ", off, " (solved"));
      EXPECT_TRUE(found) << name << "\n" << absl::StrJoin(v.lds_layout, "\n");
    }
    // b given 4 bytes off: b's two accesses match nothing, and b ends past
    // the 512-byte group segment.
    auto failed_insts = [](const VerifyResult& r) {
      std::vector<std::string> f;
      for (const AccessVerdict& a : r.accesses)
        if (a.status == Status::kFailed)
          f.push_back(a.inst_id < 0 ? a.inst_text
                                    : absl::StrCat(a.inst_text.substr(0, a.inst_text.find(' ')),
                                                   absl::StrContains(a.inst_text, "offset:") ? " b" : " a"));
      return absl::StrJoin(f, "; ");
    };
    ASSERT_EQ(c->result.lowered.abi.lds_bytes, 512);
    LoweredKernel wrong = Stripped(*c);
    wrong.abi.lds_offsets = {{"b", want["b"] + 4}};
    VerifyResult w = Verify(*c, &wrong, Matching());
    ASSERT_GT(want["b"], 0);  // b's accesses carry its base as the instruction offset
    EXPECT_EQ(failed_insts(w), "(LDS layout); ds_write_b32 b; ds_read_b32 b; (coverage); (coverage)") << w.Report();
    EXPECT_TRUE(absl::StrContains(w.Report(), "outside the kernel's 512 bytes of LDS")) << w.Report();
    // a given on top of b: the layout fails, and a's two accesses.
    LoweredKernel overlap = Stripped(*c);
    overlap.abi.lds_offsets = {{"a", want["b"]}, {"b", want["b"]}};
    VerifyResult o = Verify(*c, &overlap, Matching());
    EXPECT_EQ(failed_insts(o), "(LDS layout); ds_write_b32 a; ds_read_b32 a; (coverage); (coverage)") << o.Report();
    EXPECT_TRUE(absl::StrContains(o.Report(), "overlaps")) << o.Report();
  }
}

// Review 5 F8: a double-buffered gemm whose A and B tiles have the same LDS
// shape (bf16[2, 32, 32] each) proposes dozens of bases per tile; the solver
// used to give up on the full search and put both tiles at byte 0 (54 of 108
// DS addresses explained, 105 accesses failed). The layout must be the
// lowering's (the oracle), disjoint, and prove every access.
TEST(Match, SameShapedGemmTilesAreSolvedDisjoint) {
  const char kGemm[] =
      "kernel o4\ntarget gfx950\nworkgroup auto\ngrid auto\n"
      "arg A : bf16[65, 31] strides [31, 1] readonly\narg B : bf16[65, 31] strides [31, 1] readonly\n"
      "arg C : bf16[31, 31] strides [31, 1] readwrite\n"
      "  gemm C = A.km * B.kn + C tile 32x32x32 waves 1x1 mfma f32_32x32x16_bf16 double_buffer on\nend\n";
  absl::StatusOr<Compiled> c = CompileKir(kGemm, "gfx950");
  ASSERT_TRUE(c.ok()) << c.status();
  const auto& offs = c->result.lowered.abi.lds_offsets;
  ASSERT_EQ(offs.size(), 2u);
  const LoweredKernel stripped = Stripped(*c);
  VerifyResult v = Verify(*c, &stripped, Matching());
  EXPECT_TRUE(v.all_proved) << v.Report();
  for (const auto& [name, off] : offs) {
    bool found = false;
    for (const std::string& l : v.lds_layout) found |= absl::StartsWith(l, absl::StrCat("LDS '", name, "' at byte ", off, " (solved"));
    EXPECT_TRUE(found) << name << " at " << off << "\n" << absl::StrJoin(v.lds_layout, "\n");
  }
}

// Review 5 F6: a guarded load outside the shape for every thread (row
// tid.x floordiv 64 + 64 = 64 of a 64-row buffer with one wave) reads as
// zero and needs no instruction; coverage must not demand one, while the
// in-shape load beside it is still demanded.
TEST(Match, AGuardedAccessNeverInShapeNeedsNoInstruction) {
  const char kNever[] =
      "kernel cov2\nworkgroup 64 1 1\ngrid 1 1 1\n"
      "arg A : f32[64, 4] strides [4, 1] readonly\narg O : f32[64, 4] strides [4, 1] writeonly\n"
      "  %a = load A[tid.x, 0] : f32x4\n  %b = load guarded A[tid.x floordiv 64 + 64, 0] : f32x4\n"
      "  %c = add %a, %b\n  store O[tid.x, 0], %c\nend\n";
  for (const char* mcpu : {"gfx908", "gfx942"}) {
    absl::StatusOr<Compiled> c = CompileKir(kNever, mcpu);
    ASSERT_TRUE(c.ok()) << c.status();
    const LoweredKernel stripped = Stripped(*c);
    VerifyResult v = Verify(*c, &stripped, Matching());
    EXPECT_TRUE(v.all_proved) << mcpu << "\n" << v.Report();
    // The in-shape load removed: its coverage still fails.
    LoweredKernel edited = Stripped(*c);
    int loads = 0;
    for (MInst& mi : edited.mir.insts)
      if (absl::StartsWith(Info(mi.opc).mnemonic, "buffer_load")) ++loads, mi.offset += 4;
    ASSERT_EQ(loads, 1) << mcpu;
    VerifyResult w = Verify(*c, &edited, Matching());
    EXPECT_FALSE(w.all_proved) << mcpu;
    EXPECT_TRUE(absl::StrContains(w.Report(), "%a = load A[tid.x, 0]")) << w.Report();
    EXPECT_TRUE(absl::StrContains(w.Report(), "element 0 is loaded by no instruction")) << w.Report();
  }
}

}  // namespace
}  // namespace kir::vfy::testing
