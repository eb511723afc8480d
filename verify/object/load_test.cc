// kirc verify on code kirc did not just compile: clang-22's code objects of
// testdata/baselines proved against their KIR twins (testdata/kernels), each
// memory instruction matched to the access kirc's own lowering gives the
// same op; kirc's own assembly read back from text (no access map) proved;
// edited assembly and a wrong twin fail; mismatched arguments are errors.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/object/toolchain.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"
#include "verify/object/load.h"
#include "verify/test_roles.h"
#include "verify/verify.h"

namespace kir {
namespace {

using Status = AccessVerdict::Status;
using ::kir::testing::ReadTestFile;

constexpr char kLlvmBin[] = "/usr/lib/llvm-22/bin";

absl::StatusOr<VerifyResult> VerifyCode(const Kernel& twin, const std::string& mcpu, CodeInput in) {
  absl::StatusOr<TargetId> id = ParseTargetId(mcpu);
  if (!id.ok()) return id.status();
  in.mcpu = mcpu;
  absl::StatusOr<LoweredKernel> code = LoadCodeForVerify(twin, *id->target, in);
  if (!code.ok()) return code.status();
  VerifyOptions o;
  o.match_accesses = true;
  return VerifyAddresses(code->kernel, *id->target, *code, o);
}

Kernel Twin(const std::string& name) {
  absl::StatusOr<Kernel> k = ParseKernel(ReadTestFile("testdata/kernels/" + name + ".kir"), name + ".kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : Kernel{};
}

int Count(const VerifyResult& r, Status s) {
  int n = 0;
  for (const AccessVerdict& a : r.accesses) n += a.status == s;
  return n;
}

// A code object of the runfiles as CodeInput (empty when it cannot be read:
// the caller's ASSERT on code_object names the path).
CodeInput ObjectInput(const std::string& path) {
  CodeInput in;
  absl::StatusOr<std::string> obj = ReadFileBytes(path);
  EXPECT_TRUE(obj.ok()) << obj.status();
  if (obj.ok()) in.code_object = *obj;
  in.llvm_bin = kLlvmBin;
  return in;
}

// KIR text parsed and compiled by kirc for `mcpu`.
struct Compiled {
  Kernel kernel;
  std::string assembly;
};
Compiled ParseAndCompile(const std::string& text, const std::string& file, const std::string& mcpu) {
  absl::StatusOr<Kernel> k = ParseKernel(text, file);
  EXPECT_TRUE(k.ok()) << k.status();
  if (!k.ok()) return {};
  CompileOptions opts;
  opts.mcpu = mcpu;
  absl::StatusOr<CompileResult> r = Compile(*k, opts);
  EXPECT_TRUE(r.ok()) << r.status();
  return {*k, r.ok() ? r->assembly : std::string()};
}

// Every clang-22 baseline without a K loop proves; the instruction counts are
// those of llvm-objdump (global and DS instructions of the kernel symbol).
TEST(LoadCode, Clang22BaselinesProveAgainstTheirTwins) {
  struct Case {
    const char* kernel;
    std::vector<const char*> targets;
    int instructions;
  };
  const Case cases[] = {
      {"copy_f32", {"gfx908", "gfx90a", "gfx942", "gfx950"}, 2},
      // gfx950: the f16 results through v_cvt_pk_f16_f32 (data, no value).
      {"add_f16", {"gfx908", "gfx90a", "gfx942", "gfx950"}, 3},
      {"mma_16x16x16_f16", {"gfx908", "gfx90a", "gfx942"}, 8},
      {"mma_16x16x16_bf16", {"gfx90a", "gfx942"}, 8},
      {"mma_32x32x8_f16", {"gfx908", "gfx90a", "gfx942"}, 20},
  };
  for (const Case& c : cases)
    for (const char* t : c.targets) {
      absl::StatusOr<std::string> obj =
          ReadFileBytes(absl::StrCat("testdata/baselines/", c.kernel, ".", t, ".hsaco"));
      ASSERT_TRUE(obj.ok()) << obj.status();
      CodeInput in;
      in.code_object = *obj;
      in.llvm_bin = kLlvmBin;
      absl::StatusOr<VerifyResult> v = VerifyCode(Twin(c.kernel), t, in);
      ASSERT_TRUE(v.ok()) << c.kernel << " " << t << ": " << v.status();
      EXPECT_TRUE(v->all_proved) << v->Report();
      std::set<int> insts;
      for (const AccessVerdict& a : v->accesses) insts.insert(a.inst_id);
      EXPECT_EQ(static_cast<int>(insts.size()), c.instructions) << c.kernel << " " << t << "\n" << v->Report();
    }
}

// One GEMM baseline proves: every access, `instructions` memory
// instructions (llvm-objdump's global_*, ds_* of the kernel symbol), and
// `pieces` whether accesses are pieces of a machine loop's iterations.
void ExpectGemmBaselineProves(const std::string& kernel, const char* t, int instructions, bool pieces) {
  SCOPED_TRACE(kernel + " " + t);
  CodeInput in = ObjectInput(absl::StrCat("testdata/baselines/", kernel, ".", t, ".hsaco"));
  ASSERT_FALSE(in.code_object.empty());
  absl::StatusOr<VerifyResult> v = VerifyCode(Twin(kernel), t, in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->all_proved) << v->Report();
  std::set<int> insts;
  int n_pieces = 0;
  for (const AccessVerdict& a : v->accesses) {
    insts.insert(a.inst_id);
    n_pieces += !a.iterations.empty();
  }
  insts.erase(-1);
  EXPECT_EQ(static_cast<int>(insts.size()), instructions);
  if (pieces) {
    // Pieces: odd and even iterations, and the last (the peeled tile).
    EXPECT_GT(n_pieces, 0) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "iterations 1, 3, .., 29 of the loop at")) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "iteration 30 of the loop at")) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "(64-bit induction)")) << v->Report();
  } else {
    EXPECT_EQ(n_pieces, 0) << v->Report();
  }
}

// clang-22's GEMM baselines (their twins: the .kir's promoted thread-level
// form) prove: fully unrolled K loops (the 256-sized ones: copies of one LDS
// address performing successive K tiles), and the 1024^3 one's rolled loop
// of 31 single-tile iterations against the twin's loop of 15 double-tile
// ones plus its prologue and peeled tiles (pieces of the machine loop's
// iterations), its LDS buffer toggled by `s_xor_b32 s10, s10, 1` and its
// 64-bit offset stepped by s_add_u32/s_addc_u32.
// gfx950: clang-22 computes the LDS chunk offsets with v_bitop3_b32
// (`bitop3:0x6c`, compiler/isa/semantics.h Bitop3, one in each kernel) and
// unrolls gemm_f16_1024's K loop completely (640 memory instructions, no
// loop: no pieces).
// One test per kernel and target, so that the BUILD's shards share them (the
// six gfx90a/gfx942 proofs were one test of 123 s in CI's last full run, the
// gfx950 ones two of 62 s and 23 s). gtest shards by test index (test i on
// shard i % 3; these nine follow the 18 TESTs above), so the list puts the
// three 1024^3 proofs (the longest) first, then the three 256x256x256 ones,
// then the three 256^3 ones: each shard gets one of each.
struct GemmBaseline {
  const char* kernel;
  const char* target;
  int instructions;
  bool pieces;
};
class GemmBaselineProves : public ::testing::TestWithParam<GemmBaseline> {};
TEST_P(GemmBaselineProves, Clang22) {
  const GemmBaseline& g = GetParam();
  ExpectGemmBaselineProves(g.kernel, g.target, g.instructions, g.pieces);
}
INSTANTIATE_TEST_SUITE_P(
    LoadCode, GemmBaselineProves,
    ::testing::Values(GemmBaseline{"gemm_f16_1024", "gfx90a", 164, true},
                      GemmBaseline{"gemm_f16_1024", "gfx942", 164, true},
                      GemmBaseline{"gemm_f16_1024", "gfx950", 640, false},
                      GemmBaseline{"gemm_f16_256x256x256", "gfx90a", 272, false},
                      GemmBaseline{"gemm_f16_256x256x256", "gfx942", 272, false},
                      GemmBaseline{"gemm_f16_256x256x256", "gfx950", 256, false},
                      GemmBaseline{"gemm_f16_256", "gfx90a", 58, false},
                      GemmBaseline{"gemm_f16_256", "gfx942", 58, false},
                      GemmBaseline{"gemm_f16_256", "gfx950", 58, false}),
    [](const ::testing::TestParamInfo<GemmBaseline>& info) {
      return absl::StrCat(info.param.kernel, "_", info.param.target);
    });

// Edits of the 1024^3 GEMM's loop (bytes of the code object, as llvm-objdump
// encodes them): one trip fewer (`s_cmpk_lg_i32 s6, 0x7c0` -> 0x780) leaves
// a K tile unperformed; the buffer toggle `s_xor_b32 s10, s10, 1` -> `, 0`
// stores tiles into the wrong LDS buffer. Both fail coverage.
TEST(LoadCode, EditedGemmLoopFails) {
  absl::StatusOr<std::string> obj = ReadFileBytes("testdata/baselines/gemm_f16_1024.gfx942.hsaco");
  ASSERT_TRUE(obj.ok()) << obj.status();
  struct Edit {
    std::string from, to, expect;
  };
  const Edit edits[] = {
      {std::string("\xc0\x07\x86\xb1", 4), std::string("\x80\x07\x86\xb1", 4), "by no instruction"},
      // Every store still hits a slot some KIR store writes (the slots do not
      // depend on the tile), but the iterations that write buffer 1 write 0:
      // buffer 1's stores of those iterations are performed by nothing.
      {std::string("\x0a\x81\x0a\x88", 4), std::string("\x0a\x80\x0a\x88", 4), "by no instruction"},
  };
  for (const Edit& e : edits) {
    const size_t at = obj->find(e.from);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(obj->find(e.from, at + 1), std::string::npos) << "the edited bytes must be unique";
    CodeInput in;
    in.code_object = obj->substr(0, at) + e.to + obj->substr(at + e.from.size());
    in.llvm_bin = kLlvmBin;
    absl::StatusOr<VerifyResult> v = VerifyCode(Twin("gemm_f16_1024"), "gfx942", in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << v->Report();
    EXPECT_GT(Count(*v, Status::kFailed), 0) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), e.expect)) << v->Report();
  }
}

// kirc's assembly of a kernel with LDS, read back as text: proved with the
// LDS placed where kirc put it; one edited offset fails.
TEST(LoadCode, KircAssemblyReadBackProvesAndAnEditFails) {
  const std::string text = ReadTestFile("testdata/kernels/mma_32x32x8_f16.kir");
  absl::StatusOr<Kernel> k = ParseKernel(text, "mma_32x32x8_f16.kir");
  ASSERT_TRUE(k.ok()) << k.status();
  for (const char* t : {"gfx908", "gfx90a", "gfx942"}) {
    CompileOptions opts;
    opts.mcpu = t;
    absl::StatusOr<CompileResult> r = Compile(*k, opts);
    ASSERT_TRUE(r.ok()) << r.status();
    CodeInput in;
    in.assembly = r->assembly;
    absl::StatusOr<VerifyResult> v = VerifyCode(*k, t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << v->Report();
    for (const auto& [name, off] : r->lowered.abi.lds_offsets) {
      bool found = false;
      for (const std::string& l : v->lds_layout)
        found |= absl::StartsWith(l, absl::StrCat("LDS '", name, "' at byte ", off, " "));
      EXPECT_TRUE(found) << name << " at " << off << "\n" << v->Report();
    }
    // The first buffer store's offset moved by one dword.
    const size_t at = r->assembly.find("buffer_store_dword");
    ASSERT_NE(at, std::string::npos);
    const size_t eol = r->assembly.find('\n', at);
    std::string line = r->assembly.substr(at, eol - at);
    std::string edited_line = absl::StrContains(line, "offset:")
                                  ? absl::StrReplaceAll(line, {{"offset:", "offset:4+"}})
                                  : line + " offset:4";
    CodeInput bad;
    bad.assembly = r->assembly.substr(0, at) + edited_line + r->assembly.substr(eol);
    absl::StatusOr<VerifyResult> w = VerifyCode(*k, t, bad);
    ASSERT_TRUE(w.ok()) << w.status();
    // The edited store, and the KIR store element nothing performs now.
    EXPECT_EQ(Count(*w, Status::kFailed), 2) << edited_line << "\n" << w->Report();
    EXPECT_TRUE(absl::StrContains(w->Report(), "is stored by no instruction")) << w->Report();
    EXPECT_TRUE(absl::StrContains(w->Report(), "matches no KIR access")) << w->Report();
  }
}

// gfx950's LDS DMA (issue 19): kirc's lds_dma kernel (testdata's
// lds_dma_f32: a two-stage loop, M0 changing per iteration) read back from its assembly
// text and from its code object (assembled and linked by LLVM) proves, both
// sides of the DMA ("[N global]", "[N LDS]"), with no access map; M0
// without its stage fails on the LDS side.
TEST(LoadCode, Gfx950LdsDmaReadBackProves) {
  const Compiled c =
      ParseAndCompile(ReadTestFile("testdata/kernels/lds_dma_f32.kir"), "lds_dma_f32.kir", "gfx950");
  ASSERT_FALSE(c.assembly.empty());
  for (bool assemble : {false, true}) {
    SCOPED_TRACE(assemble ? "code object" : "assembly text");
    CodeInput in;
    in.assembly = c.assembly;
    in.assemble = assemble;
    in.llvm_bin = kLlvmBin;
    absl::StatusOr<VerifyResult> v = VerifyCode(c.kernel, "gfx950", in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << v->Report();
    int sides = 0;
    for (const AccessVerdict& a : v->accesses)
      if (!a.side.empty()) {
        ++sides;
        EXPECT_EQ(a.status, Status::kProved) << v->Report();
        EXPECT_EQ(a.kir_op, 2) << v->Report();  // op 2: the lds_dma
      }
    EXPECT_EQ(sides, 2) << v->Report();
  }
  // M0 = the wave's part only (s_mov_b32 m0 of the readfirstlane's SGPR):
  // stage 0 in every iteration.
  const size_t rfl = c.assembly.find("v_readfirstlane_b32 ");
  ASSERT_NE(rfl, std::string::npos) << c.assembly;
  const size_t comma = c.assembly.find(',', rfl);
  const std::string wave = c.assembly.substr(rfl + 20, comma - rfl - 20);
  const size_t mov = c.assembly.find("s_mov_b32 m0, ");
  ASSERT_NE(mov, std::string::npos) << c.assembly;
  const size_t eol = c.assembly.find('\n', mov);
  CodeInput bad;
  bad.assembly = c.assembly.substr(0, mov) + "s_mov_b32 m0, " + wave + c.assembly.substr(eol);
  ASSERT_NE(bad.assembly, c.assembly);
  absl::StatusOr<VerifyResult> w = VerifyCode(c.kernel, "gfx950", bad);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(w->all_proved) << w->Report();
  bool lds_failed = false;
  for (const AccessVerdict& a : w->accesses)
    if (a.side == "LDS") lds_failed = a.status == Status::kFailed && absl::StrContains(a.reason, "LDS side");
  EXPECT_TRUE(lds_failed) << w->Report();
}

// ds_read_b64_tr_b16 in code read back from its assembly text: kirc's
// gfx950 code for testdata/kernels/mma_tr_16x16x16_f16.kir (two load_tr
// fragment reads) proves, every address; the same text with one transposed
// read's offset moved by 8 bytes fails, with a counterexample.
TEST(LoadCode, Gfx950TransposedReadProves) {
  const std::string text = ReadTestFile("testdata/kernels/mma_tr_16x16x16_f16.kir");
  absl::StatusOr<Kernel> k = ParseKernel(text, "mma_tr_16x16x16_f16.kir");
  ASSERT_TRUE(k.ok()) << k.status();
  CompileOptions opts;
  opts.mcpu = "gfx950";
  absl::StatusOr<CompileResult> r = Compile(*k, opts);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(absl::StrContains(r->assembly, "ds_read_b64_tr_b16")) << r->assembly;
  CodeInput in;
  in.assembly = r->assembly;
  absl::StatusOr<VerifyResult> v = VerifyCode(*k, "gfx950", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->all_proved) << v->Report();
  EXPECT_EQ(Count(*v, Status::kFailed), 0) << v->Report();
  const size_t at = r->assembly.find("ds_read_b64_tr_b16");
  const size_t eol = r->assembly.find('\n', at);
  const std::string line = r->assembly.substr(at, eol - at);
  const std::string edited = absl::StrContains(line, "offset:") ? absl::StrReplaceAll(line, {{"offset:", "offset:8+"}})
                                                                 : line + " offset:8";
  CodeInput bad;
  bad.assembly = r->assembly.substr(0, at) + edited + r->assembly.substr(eol);
  absl::StatusOr<VerifyResult> w = VerifyCode(*k, "gfx950", bad);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(w->all_proved) << w->Report();
  EXPECT_GE(Count(*w, Status::kFailed), 1) << edited << "\n" << w->Report();
  bool has_counterexample = false;
  for (const AccessVerdict& a : w->accesses)
    if (a.status == Status::kFailed && !a.counterexample.empty()) has_counterexample = true;
  EXPECT_TRUE(has_counterexample) << w->Report();
}

// clang's copy against a twin that copies with another index: both fail.
TEST(LoadCode, AWrongTwinFails) {
  Kernel twin = Twin("copy_f32");
  std::string text = ReadTestFile("testdata/kernels/copy_f32.kir");
  text = absl::StrReplaceAll(text, {{"dst[(", "dst[8188 - ("}});  // a reversed copy
  absl::StatusOr<Kernel> shifted = ParseKernel(text, "shifted.kir");
  ASSERT_TRUE(shifted.ok()) << shifted.status();
  absl::StatusOr<std::string> obj = ReadFileBytes("testdata/baselines/copy_f32.gfx942.hsaco");
  ASSERT_TRUE(obj.ok());
  CodeInput in;
  in.code_object = *obj;
  in.llvm_bin = kLlvmBin;
  absl::StatusOr<VerifyResult> v = VerifyCode(*shifted, "gfx942", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(Count(*v, Status::kProved), 1) << v->Report();
  // The store matches nothing, and the twin's store is performed by nothing.
  EXPECT_EQ(Count(*v, Status::kFailed), 2) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "is stored by no instruction")) << v->Report();
}

// Code that does not perform every KIR access fails coverage even though
// every address it computes is right: kirc's assembly of a 32-trip loop with
// the loop bound edited to 31, and a twin with a second load the code lacks.
TEST(LoadCode, AccessesTheCodeDoesNotPerformFailCoverage) {
  const std::string text =
      "kernel loop\nworkgroup 64 1 1\ngrid 2 1 1\n"
      "arg x : f32[32, 512] strides [512, 1] readonly\narg y : f32[512] strides [1] writeonly\n"
      "  %z = zero f32x4\n"
      "  %s = for %k = 0 to 32 iter(%acc = %z) {\n"
      "    %v = load x[%k, (wg.x * 64 + tid.x) * 4] : f32x4\n"
      "    %n = add %acc, %v\n"
      "    yield %n\n  }\n"
      "  store y[(wg.x * 64 + tid.x) * 4], %s\nend\n";
  const Compiled c = ParseAndCompile(text, "loop.kir", "gfx90a");
  ASSERT_FALSE(c.assembly.empty());
  CodeInput in;
  in.assembly = c.assembly;
  absl::StatusOr<VerifyResult> v = VerifyCode(c.kernel, "gfx90a", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->all_proved) << v->Report();
  ASSERT_TRUE(absl::StrContains(c.assembly, "s_cmp_lt_u32 s1, 32")) << c.assembly;
  in.assembly = absl::StrReplaceAll(c.assembly, {{"s_cmp_lt_u32 s1, 32", "s_cmp_lt_u32 s1, 31"}});
  v = VerifyCode(c.kernel, "gfx90a", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(Count(*v, Status::kFailed), 1) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "element 0 at %k = 31 is loaded by no instruction")) << v->Report();
}

// A double buffer's toggle carried across the back edge (s3 ^= 0x100, or
// s3 = 0x100 - s3) has period 2: proved; toggling by 0x80 fails.
TEST(LoadCode, ACarriedToggleHasPeriodTwo) {
  const std::string text =
      "kernel tog\nworkgroup 64 1 1\ngrid 1 1 1\narg y : f32[8, 128] strides [128, 1] writeonly\n"
      "  %z = zero f32\n"
      "  %r = for %k = 0 to 8 iter(%a = %z) {\n"
      "    store y[%k, %k mod 2 * 64 + tid.x], %a\n"
      "    yield %a\n  }\nend\n";
  const Compiled c = ParseAndCompile(text, "tog.kir", "gfx942");
  // kirc computes the row's half from the counter: s3 = (s0 & 1) << 8.
  const std::string from = "  s_and_b32 s2, s0, 1\n  s_lshl_b32 s3, s2, 8\n";
  ASSERT_TRUE(absl::StrContains(c.assembly, from)) << c.assembly;
  ASSERT_TRUE(absl::StrContains(c.assembly, "  s_mov_b32 s1, 0\n.Ltog.bb0:\n")) << c.assembly;
  struct Edit {
    std::string step;
    bool proves;
  };
  for (const Edit& e : {Edit{"s_xor_b32 s3, s3, 0x100", true}, Edit{"s_sub_u32 s3, 0x100, s3", true},
                        Edit{"s_xor_b32 s3, s3, 0x80", false}}) {
    std::string a = absl::StrReplaceAll(c.assembly, {{from, ""},
                                                      {"  s_mov_b32 s1, 0\n.Ltog.bb0:\n",
                                                       "  s_mov_b32 s1, 0\n  s_mov_b32 s3, 0\n.Ltog.bb0:\n"},
                                                      {"  s_cmp_lt_u32 s0, 8\n", "  " + e.step + "\n  s_cmp_lt_u32 s0, 8\n"}});
    CodeInput in;
    in.assembly = a;
    absl::StatusOr<VerifyResult> v = VerifyCode(c.kernel, "gfx942", in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->all_proved, e.proves) << e.step << "\n" << v->Report();
    if (e.proves) {
      EXPECT_TRUE(absl::StrContains(v->Report(), "(period 2)")) << v->Report();
    } else {
      EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
    }
  }
}

// clang's `if (i < 1000)`: v_cmp, s_and_saveexec_b64 and a forward
// s_cbranch_execz over the accesses. The block runs with each lane's EXEC
// bit (its VGPR writes and accesses masked); proved against guarded twins.
// The bound edited to 1001 (bytes of s_movk_i32 s2, 0x3e8) lets thread
// 1000 access past both buffers: failed, naming that thread.
TEST(LoadCode, AForwardExecBranchIsAGuard) {
  const char* text =
      "kernel guard_f32\nworkgroup 256 1 1\ngrid 4 1 1\n"
      "arg src : f32[1000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\n"
      "  %v = load guarded src[wg.x * 256 + tid.x] : f32\n"
      "  %t = const f32 2.0\n  %w = mul %v, %t\n"
      "  store guarded dst[wg.x * 256 + tid.x], %w\nend\n";
  absl::StatusOr<Kernel> k = ParseKernel(text, "guard_f32.kir");
  ASSERT_TRUE(k.ok()) << k.status();
  for (const char* t : {"gfx90a", "gfx942"}) {
    CodeInput in = ObjectInput(absl::StrCat("testdata/foreign/guard_f32.", t, ".hsaco"));
    ASSERT_FALSE(in.code_object.empty());
    absl::StatusOr<VerifyResult> v = VerifyCode(*k, t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << t << "\n" << v->Report();
    EXPECT_EQ(Count(*v, Status::kProved), 2) << v->Report();
    // `s_movk_i32 sN, 0x3e8` is 0xb0NN03e8 (SOPK, little-endian): one in
    // the kernel, one in clang's callable copy after it; edit the first.
    std::vector<size_t> hits;
    const std::string obj = in.code_object;
    for (size_t p = obj.find("\xe8\x03"); p != std::string::npos; p = obj.find("\xe8\x03", p + 1))
      if (p + 3 < obj.size() && static_cast<unsigned char>(obj[p + 3]) == 0xb0) hits.push_back(p);
    ASSERT_EQ(hits.size(), 2u);
    const size_t at = hits[0];
    in.code_object = obj.substr(0, at) + std::string("\xe9\x03", 2) + obj.substr(at + 2);
    v = VerifyCode(*k, t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << v->Report();
    EXPECT_GE(Count(*v, Status::kFailed), 2) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "tid = (232, 0, 0), wg = (3, 0, 0)")) << v->Report();
  }
}

// HIP's blockDim.x: clang loads the code-object v5 hidden argument
// hidden_group_size_x (s_load_dword at the kernarg offset the metadata
// gives, then & 0xffff). The dispatch fixes it (the twin's workgroup, as the
// emulator's packer writes it), so wg.x * 128 + tid.x proves; the same code
// under a twin of 64-thread workgroups also proves (the hidden argument is
// then 64), and a twin indexing with a fixed 128 under 64-thread workgroups
// fails.
TEST(LoadCode, HiddenArgumentsTheDispatchFixesAreKnown) {
  auto twin = [](int wg, int grid, int stride) {
    absl::StatusOr<Kernel> k = ParseKernel(
        absl::StrCat("kernel blockdim_f32\nworkgroup ", wg, " 1 1\ngrid ", grid, " 1 1\n",
                     "arg src : f32[1024] strides [1] readonly\narg dst : f32[1024] strides [1] writeonly\n",
                     "  %v = load src[wg.x * ", stride, " + tid.x] : f32\n  %t = const f32 1.0\n",
                     "  %w = add %v, %t\n  store dst[wg.x * ", stride, " + tid.x], %w\nend\n"),
        "blockdim_f32.kir");
    EXPECT_TRUE(k.ok()) << k.status();
    return *k;
  };
  for (const char* t : {"gfx90a", "gfx942"}) {
    CodeInput in = ObjectInput(absl::StrCat("testdata/foreign/blockdim_f32.", t, ".hsaco"));
    ASSERT_FALSE(in.code_object.empty());
    for (int wg : {128, 64}) {
      absl::StatusOr<VerifyResult> v = VerifyCode(twin(wg, 1024 / wg, wg), t, in);
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_TRUE(v->all_proved) << t << " workgroup " << wg << "\n" << v->Report();
      EXPECT_EQ(Count(*v, Status::kProved), 2) << v->Report();
    }
    absl::StatusOr<VerifyResult> v = VerifyCode(twin(64, 8, 128), t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "matches no KIR access")) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
  }
}

// A loop clang unrolled by 16 against the twin's rolled one: load copy c of
// the machine loop's body performs KIR iterations c, c + 16, ... (the 16
// loads count as llvm-objdump's global_load_dword lines; with the store, 17
// proved). The twin's row count off by 16 (112 rows) fails.
TEST(LoadCode, ALoopTheCompilerUnrolledProves) {
  auto twin = [](int rows) {
    absl::StatusOr<Kernel> k = ParseKernel(
        absl::StrCat("kernel colsum_f32\nworkgroup 64 1 1\ngrid 4 1 1\n",
                     "arg A : f32[128, 256] strides [260, 1] readonly\narg out : f32[256] strides [1] writeonly\n",
                     "  %z = zero f32\n  %s = for %r = 0 to ", rows, " iter(%a = %z) {\n",
                     "    %v = load A[%r, wg.x * 64 + tid.x] : f32\n    %a2 = add %a, %v\n    yield %a2\n  }\n",
                     "  store out[wg.x * 64 + tid.x], %s\nend\n"),
        "colsum_f32.kir");
    EXPECT_TRUE(k.ok()) << k.status();
    return *k;
  };
  for (const char* t : {"gfx90a", "gfx942"}) {
    CodeInput in = ObjectInput(absl::StrCat("testdata/foreign/colsum_f32.", t, ".hsaco"));
    ASSERT_FALSE(in.code_object.empty());
    absl::StatusOr<VerifyResult> v = VerifyCode(twin(128), t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << t << "\n" << v->Report();
    EXPECT_EQ(Count(*v, Status::kProved), 17) << v->Report();
    v = VerifyCode(twin(112), t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << v->Report();
  }
}

// clang's load-store vectorizer on a loop it unrolled by 16: each
// global_load_dwordx4 of the machine loop (4 iterations) performs 4
// consecutive KIR iterations (slot j: %k = 16 n + 4 c + j for copy c), so 4
// loads and the store prove. A twin summing the row backwards (A[r, 63 - %k])
// asks for the same bytes in another order: the slots' iterations do not
// match, so it fails; so does a twin whose rows are 65 floats apart.
TEST(LoadCode, OneVectorLoadOfSeveralIterationsProves) {
  auto twin = [](const std::string& stride, const std::string& col) {
    absl::StatusOr<Kernel> k = ParseKernel(
        absl::StrCat("kernel rowsum_f32\nworkgroup 64 1 1\ngrid 4 1 1\n",
                     "arg A : f32[256, 64] strides [", stride, ", 1] readonly\n",
                     "arg out : f32[256] strides [1] writeonly\n",
                     "  %z = zero f32\n  %s = for %k = 0 to 64 iter(%a = %z) {\n",
                     "    %v = load A[wg.x * 64 + tid.x, ", col, "] : f32\n    %a2 = add %a, %v\n    yield %a2\n  }\n",
                     "  store out[wg.x * 64 + tid.x], %s\nend\n"),
        "rowsum_f32.kir");
    EXPECT_TRUE(k.ok()) << k.status();
    return *k;
  };
  for (const char* t : {"gfx90a", "gfx942"}) {
    CodeInput in = ObjectInput(absl::StrCat("testdata/foreign/rowsum_f32.", t, ".hsaco"));
    ASSERT_FALSE(in.code_object.empty());
    absl::StatusOr<VerifyResult> v = VerifyCode(twin("64", "%k"), t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << t << "\n" << v->Report();
    EXPECT_EQ(Count(*v, Status::kProved), 5) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "4 consecutive iterations of %k in one instruction")) << v->Report();
    for (const auto& [stride, col] : {std::pair<std::string, std::string>{"64", "63 - %k"}, {"65", "%k"}}) {
      v = VerifyCode(twin(stride, col), t, in);
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_FALSE(v->all_proved) << stride << " " << col << "\n" << v->Report();
      EXPECT_GT(Count(*v, Status::kFailed), 0) << v->Report();
      EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
    }
  }
}

// Twins of testdata/foreign/NAME.kir.
Kernel ForeignTwin(const std::string& name) {
  absl::StatusOr<Kernel> k = ParseKernel(ReadTestFile("testdata/foreign/" + name + ".kir"), name + ".kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : Kernel{};
}

// `obj` with the first occurrence of the 8 bytes `from` at or after `start`
// (the kernel's instruction: clang's callable copy follows it) replaced by `to`.
std::string EditInstruction(const std::string& obj, const std::string& from, const std::string& to,
                            size_t start = 0) {
  const size_t at = obj.find(from, start);
  EXPECT_NE(at, std::string::npos);
  if (at == std::string::npos) return obj;
  return obj.substr(0, at) + to + obj.substr(at + from.size());
}

const AccessVerdict* FindVerdict(const VerifyResult& r, const std::string& text_part) {
  for (const AccessVerdict& a : r.accesses)
    if (absl::StrContains(a.inst_text, text_part)) return &a;
  return nullptr;
}

// clang-22's generic pointers (testdata/foreign/flat_f32.cl): the flat
// accesses whose address is a kernarg pointer plus an offset prove as global
// accesses, those built from src_shared_base as LDS accesses (the layout
// solved from them), against the twin's four accesses. The global load
// edited to offset:4 (flat address off by 4) fails with a counterexample;
// the LDS load edited to offset:4 is unknown (an aperture address with an
// instruction offset is not placed), never proved.
TEST(LoadCode, FlatAccessesArePlacedByTheirAperture) {
  const Kernel twin = ForeignTwin("flat_f32");
  for (const char* t : {"gfx90a", "gfx942"}) {
    SCOPED_TRACE(t);
    CodeInput in = ObjectInput(absl::StrCat("testdata/foreign/flat_f32.", t, ".hsaco"));
    ASSERT_FALSE(in.code_object.empty());
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << v->Report();
    EXPECT_EQ(Count(*v, Status::kProved), 4) << v->Report();
    int lds = 0, global = 0;
    for (const AccessVerdict& a : v->accesses) {
      EXPECT_TRUE(absl::StartsWith(a.inst_text, "flat_")) << a.inst_text;
      lds += absl::StrContains(a.inst_text, "(shared aperture: LDS)") && absl::StrContains(a.op_text, "tile");
      global += absl::StrContains(a.inst_text, "(global segment)") && !absl::StrContains(a.op_text, "tile");
    }
    EXPECT_EQ(lds, 2) << v->Report();
    EXPECT_EQ(global, 2) << v->Report();
  }
  CodeInput in = ObjectInput("testdata/foreign/flat_f32.gfx942.hsaco");
  const std::string obj = in.code_object;
  const std::string global_load("\x00\x00\x50\xdc\x04\x00\x00\x0a", 8);  // flat_load_dword v10, v[4:5]
  const size_t first = obj.find(global_load);
  ASSERT_NE(first, std::string::npos);
  in.code_object = EditInstruction(obj, global_load, std::string("\x04\x00\x50\xdc\x04\x00\x00\x0a", 8));
  absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->all_proved) << v->Report();
  const AccessVerdict* a = FindVerdict(*v, "flat_load_dword v10, v[4:5] offset:4");
  ASSERT_NE(a, nullptr) << v->Report();
  EXPECT_EQ(a->status, Status::kFailed) << v->Report();
  EXPECT_TRUE(absl::StrContains(a->counterexample, "tid = (")) << a->counterexample;
  // The LDS load `flat_load_dword v0, v[0:1]` (after the global load) with offset:4.
  in.code_object = EditInstruction(obj, std::string("\x00\x00\x50\xdc\x00\x00\x00\x00", 8),
                                   std::string("\x04\x00\x50\xdc\x00\x00\x00\x00", 8), first);
  v = VerifyCode(twin, "gfx942", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->all_proved) << v->Report();
  a = FindVerdict(*v, "flat_load_dword v0, v[0:1] offset:4");
  ASSERT_NE(a, nullptr) << v->Report();
  EXPECT_EQ(a->status, Status::kUnknown) << v->Report();
  EXPECT_TRUE(absl::StrContains(a->reason, "shared (LDS) aperture with an instruction offset")) << a->reason;
}

// clang-22's private array (testdata/foreign/scratch_f32.cl): every scratch
// access (buffer_* through the private segment buffer plus the scratch wave
// offset on gfx908/90a, scratch_* on gfx942) proved inside the 260-byte
// private segment for every lane, each its own "(private segment)" verdict,
// and the global accesses against the twin. A load's offset moved past the
// segment (128 -> 256 on gfx942, 128 -> 200 on gfx90a: 200 + 31 * 4 + 4 >
// 260) fails with a counterexample naming the lane's offset.
TEST(LoadCode, ScratchAccessesStayInsideThePrivateSegment) {
  const Kernel twin = ForeignTwin("scratch_f32");
  const std::map<std::string, int> private_accesses = {{"gfx908", 66}, {"gfx90a", 66}, {"gfx942", 18}};
  for (const auto& [t, n] : private_accesses) {
    SCOPED_TRACE(t);
    CodeInput in = ObjectInput(absl::StrCat("testdata/foreign/scratch_f32.", t, ".hsaco"));
    ASSERT_FALSE(in.code_object.empty());
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << v->Report();
    int priv = 0;
    for (const AccessVerdict& a : v->accesses)
      priv += a.op_text == "(private segment: 260 bytes per work-item)" && a.status == Status::kProved;
    EXPECT_EQ(priv, n) << v->Report();
    EXPECT_EQ(Count(*v, Status::kProved), n + 4) << v->Report();
  }
  struct Mutant {
    const char* target;
    std::string from, to, text;
  } mutants[] = {
      {"gfx942", std::string("\x80\x60\x50\xdc\x00\x00\x7f\x05", 8), std::string("\x00\x61\x50\xdc\x00\x00\x7f\x05", 8),
       "scratch_load_dword v5, v0, off offset:256"},
      {"gfx90a", std::string("\x80\x10\x50\xe0\x00\x06\x00\x80", 8), std::string("\xc8\x10\x50\xe0\x00\x06\x00\x80", 8),
       "buffer_load_dword v6, v0, s[0:3], 0 offen offset:200"},
  };
  for (const Mutant& m : mutants) {
    SCOPED_TRACE(m.text);
    CodeInput in = ObjectInput(absl::StrCat("testdata/foreign/scratch_f32.", m.target, ".hsaco"));
    in.code_object = EditInstruction(in.code_object, m.from, m.to);
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, m.target, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << v->Report();
    const AccessVerdict* a = FindVerdict(*v, m.text);
    ASSERT_NE(a, nullptr) << v->Report();
    EXPECT_EQ(a->status, Status::kFailed) << v->Report();
    EXPECT_TRUE(absl::StrContains(a->reason, "<= private_segment_fixed_size (260) fails")) << a->reason;
    EXPECT_TRUE(absl::StrContains(a->counterexample, "tid = (")) << a->counterexample;
    EXPECT_TRUE(absl::StrContains(a->counterexample, "of the lane's 260-byte private segment")) << a->counterexample;
    EXPECT_EQ(Count(*v, Status::kFailed), 1) << v->Report();
  }
}

// Private stores forwarded to loads (symexec.cc ForwardPrivate): kirc's
// copy_f32 (gfx942) edited as text to spill its address VGPR v0 to scratch,
// clobber it and reload it before the buffer store. Reloaded from the offset
// it was stored at, the store's address is the spilled value: everything
// proves (the two KIR accesses and the two private ones). Reloaded from
// another offset, the value is an abstract one: the store is unknown, never
// proved or failed. Reloaded past the 16-byte segment: that load fails with a
// counterexample.
TEST(LoadCode, AnAddressSpilledToScratchAndReloadedProves) {
  const Compiled c = ParseAndCompile(ReadTestFile("testdata/kernels/copy_f32.kir"), "copy_f32.kir", "gfx942");
  ASSERT_TRUE(absl::StrContains(c.assembly, "    .amdhsa_next_free_sgpr ")) << c.assembly;
  // The store's address VGPR (its voffset), by role (verify/test_roles.h), not by name.
  CompileOptions opts;
  opts.mcpu = "gfx942";
  absl::StatusOr<CompileResult> r = Compile(c.kernel, opts);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<size_t> st = vfy::testing::FindInst(r->lowered.mir, "buffer_store");
  ASSERT_TRUE(st.ok()) << st.status();
  absl::StatusOr<std::string> v_addr = vfy::testing::RegName(r->lowered.mir.insts[*st], OpName::kVaddr);
  ASSERT_TRUE(v_addr.ok()) << v_addr.status();
  ASSERT_EQ(r->assembly, c.assembly);  // the same code the text edits below start from
  const std::string& va = *v_addr;
  const std::string store = "  s_waitcnt vmcnt(0)\n  buffer_store_dwordx4";
  ASSERT_TRUE(absl::StrContains(c.assembly, store)) << c.assembly;
  auto spill = [&](int store_off, int load_off) {
    CodeInput in;
    in.assembly = absl::StrReplaceAll(
        c.assembly, {{"    .amdhsa_next_free_sgpr ",
                      "    .amdhsa_private_segment_fixed_size 16\n    .amdhsa_enable_private_segment 1\n"
                      "    .amdhsa_next_free_sgpr "},
                     {store, absl::StrCat("  scratch_store_dword off, ", va, ", off offset:", store_off, "\n  v_mov_b32 ",
                                          va, ", 0\n  scratch_load_dword ", va, ", off, off offset:", load_off,
                                          "\n", store)}});
    return in;
  };
  absl::StatusOr<VerifyResult> v = VerifyCode(c.kernel, "gfx942", spill(8, 8));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->all_proved) << v->Report();
  EXPECT_EQ(Count(*v, Status::kProved), 4) << v->Report();
  v = VerifyCode(c.kernel, "gfx942", spill(8, 4));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->all_proved) << v->Report();
  EXPECT_EQ(Count(*v, Status::kFailed), 0) << v->Report();
  const AccessVerdict* a = FindVerdict(*v, "buffer_store_dwordx4");
  ASSERT_NE(a, nullptr) << v->Report();
  EXPECT_EQ(a->status, Status::kUnknown) << v->Report();
  v = VerifyCode(c.kernel, "gfx942", spill(8, 16));
  ASSERT_TRUE(v.ok()) << v.status();
  a = FindVerdict(*v, absl::StrCat("scratch_load_dword ", va, ", off, off offset:16"));
  ASSERT_NE(a, nullptr) << v->Report();
  EXPECT_EQ(a->status, Status::kFailed) << v->Report();
  EXPECT_TRUE(absl::StrContains(a->counterexample, "private offset 16: bytes [16, 20)")) << a->counterexample;
}

// A store performed twice (kirc's assembly with its store duplicated): the
// KIR stores each element once, so the second store matches nothing.
TEST(LoadCode, AStorePerformedTwiceFails) {
  const Compiled c = ParseAndCompile(ReadTestFile("testdata/kernels/copy_f32.kir"), "copy_f32.kir", "gfx942");
  const std::string& a = c.assembly;
  const size_t at = a.find("  buffer_store_dwordx4");
  ASSERT_NE(at, std::string::npos);
  const size_t eol = a.find('\n', at);
  CodeInput in;
  in.assembly = a.substr(0, eol + 1) + a.substr(at, eol + 1 - at) + a.substr(eol + 1);
  absl::StatusOr<VerifyResult> v = VerifyCode(c.kernel, "gfx942", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->all_proved) << v->Report();
  EXPECT_EQ(Count(*v, Status::kFailed), 1) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "matches no KIR access")) << v->Report();
}

// A loop clang unrolled fully (6 straight-line loads): each load performs
// one constant iteration of the twin's rolled loop (any of a loop of at most
// 32 trips; found by a user review, where only iterations 0, 1, 4 and 5 were
// tried). A twin of 5 rows, or rows 130 ints apart, fails.
TEST(LoadCode, ALoopUnrolledFullyProves) {
  auto twin = [](int rows, int stride) {
    absl::StatusOr<Kernel> k = ParseKernel(
        absl::StrCat("kernel colsum6_i32\nworkgroup 64 1 1\ngrid 2 1 1\n",
                     "arg out : i32[128] strides [1] writeonly\n",
                     "arg A : i32[6, 128] strides [", stride, ", 1] readonly\n",
                     "  %z = zero i32\n  %s = for %r = 0 to ", rows, " iter(%a = %z) {\n",
                     "    %v = load A[%r, wg.x * 64 + tid.x] : i32\n    %a2 = add %a, %v\n    yield %a2\n  }\n",
                     "  store out[wg.x * 64 + tid.x], %s\nend\n"),
        "colsum6_i32.kir");
    EXPECT_TRUE(k.ok()) << k.status();
    return *k;
  };
  for (const char* t : {"gfx90a", "gfx942"}) {
    CodeInput in = ObjectInput(absl::StrCat("testdata/foreign/colsum6_i32.", t, ".hsaco"));
    ASSERT_FALSE(in.code_object.empty());
    absl::StatusOr<VerifyResult> v = VerifyCode(twin(6, 128), t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << t << "\n" << v->Report();
    EXPECT_EQ(Count(*v, Status::kProved), 7) << v->Report();
    for (const auto& [rows, stride] : {std::pair<int, int>{5, 128}, {6, 130}}) {
      v = VerifyCode(twin(rows, stride), t, in);
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_FALSE(v->all_proved) << rows << " " << stride << "\n" << v->Report();
      EXPECT_GT(Count(*v, Status::kFailed), 0) << v->Report();
    }
  }
}

// A scalar load of buffer data (s_load_dword through the pointer of `src`,
// 1 MB past it; found by a user review, where it "proved"): such loads are
// neither matched nor bounds-checked yet, so the load is unknown and the
// kernel is not proved.
TEST(LoadCode, AScalarLoadOfBufferDataIsNeverProved) {
  const Compiled c = ParseAndCompile(ReadTestFile("testdata/kernels/copy_f32.kir"), "copy_f32.kir", "gfx942");
  const std::string wait = "  s_waitcnt lgkmcnt(0)\n";
  const size_t at = c.assembly.find(wait);
  ASSERT_NE(at, std::string::npos) << c.assembly;
  ASSERT_TRUE(absl::StrContains(c.assembly, "s_load_dwordx2 s[4:5], s[0:1], 0x0")) << c.assembly;
  CodeInput in;
  in.assembly = c.assembly.substr(0, at + wait.size()) + "  s_load_dword s3, s[4:5], 0xff000\n" + wait +
                c.assembly.substr(at + wait.size());
  absl::StatusOr<VerifyResult> v = VerifyCode(c.kernel, "gfx942", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->all_proved) << v->Report();
  EXPECT_EQ(Count(*v, Status::kUnknown), 1) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "s_load_dword s3, s[4:5], 0xff000")) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "(scalar load of memory)")) << v->Report();
}

TEST(LoadCode, MismatchedArgumentsAreErrors) {
  absl::StatusOr<std::string> obj = ReadFileBytes("testdata/baselines/copy_f32.gfx942.hsaco");
  ASSERT_TRUE(obj.ok());
  CodeInput in;
  in.code_object = *obj;
  in.llvm_bin = kLlvmBin;
  std::string text = ReadTestFile("testdata/kernels/copy_f32.kir");
  absl::StatusOr<Kernel> k = ParseKernel(text, "copy_f32.kir");
  ASSERT_TRUE(k.ok());
  // An argument the code lacks.
  absl::StatusOr<Kernel> extra = ParseKernel(
      absl::StrReplaceAll(text, {{"writeonly\n", "writeonly\narg extra : f32\n"}}), "extra.kir");
  ASSERT_TRUE(extra.ok()) << extra.status();
  absl::StatusOr<VerifyResult> v = VerifyCode(*extra, "gfx942", in);
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(absl::StrContains(v.status().message(), "has 2 explicit argument(s)")) << v.status();
  // A scalar where the code has a pointer (the names in order differ).
  absl::StatusOr<Kernel> scalar = ParseKernel(
      absl::StrReplaceAll(text, {{"arg src", "arg alpha : f32\narg src"}, {"arg dst : f32[8192] strides [1] writeonly\n", ""},
                                 {"  store dst[(wg.x * 256 + tid.x) * 4], %v\n", ""}}),
      "scalar.kir");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  v = VerifyCode(*scalar, "gfx942", in);
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(absl::StrContains(v.status().message(), "is global_buffer of 8 bytes")) << v.status();
  // An LDS base for an allocation the twin lacks.
  in.lds_base = {{"nope", 0}};
  v = VerifyCode(*k, "gfx942", in);
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(absl::StrContains(v.status().message(), "'nope'")) << v.status();
  // The code object of another target.
  in.lds_base.clear();
  v = VerifyCode(*k, "gfx90a", in);
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(absl::StrContains(v.status().message(), "gfx942")) << v.status();
}

}  // namespace
}  // namespace kir
