// kirc verify on code like other generators' (issue 17): a code object
// without amdhsa.target proves, its target taken from the ELF header and
// checked against --mcpu; code that reads or sets the program counter
// (s_getpc_b64, s_setpc_b64, s_swappc_b64) is unknown, naming the
// instruction; an integer instruction with clamp saturates; an SDWA byte
// select in an address (clang-22's `(t + 1) & 255`) proves, and fails
// against a wrong twin.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/object/toolchain.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"
#include "verify/concrete.h"
#include "verify/object/load.h"
#include "verify/test_roles.h"
#include "verify/verify.h"

namespace kir {
namespace {

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

std::string CopyAssembly(const std::string& mcpu) {
  CompileOptions co;
  co.mcpu = mcpu;
  absl::StatusOr<CompileResult> r = Compile(::kir::testing::TestdataKernel("copy_f32"), co);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->assembly : "";
}

// kirc's copy_f32 assembly for gfx942 with, found by role
// (verify/test_roles.h) rather than by register names, the line of the
// instruction that writes its buffer load's voffset (v_lshlrev_b32: 16 *
// tid.x) and that VGPR's name ("v4").
struct CopyVoffset {
  std::string assembly, line, reg;
};
absl::StatusOr<CopyVoffset> CopyWithVoffset() {
  CompileOptions co;
  co.mcpu = "gfx942";
  absl::StatusOr<CompileResult> r = Compile(::kir::testing::TestdataKernel("copy_f32"), co);
  if (!r.ok()) return r.status();
  const MFunction& f = r->lowered.mir;
  absl::StatusOr<size_t> load = vfy::testing::FindInst(f, "buffer_load");
  if (!load.ok()) return load.status();
  absl::StatusOr<size_t> def = vfy::testing::FindDef(f, *load, OpName::kVaddr);
  if (!def.ok()) return def.status();
  if (f.insts[*def].opc != Opc::kVLshlrevB32)
    return absl::NotFoundError("copy_f32's voffset is written by " + std::string(Info(f.insts[*def].opc).mnemonic) +
                               ", not v_lshlrev_b32");
  absl::StatusOr<std::string> line = vfy::testing::AsmLine(r->assembly, *r->target, f.insts[*def]);
  if (!line.ok()) return line.status();
  absl::StatusOr<std::string> reg = vfy::testing::RegName(f.insts[*def], OpName::kVdst);
  if (!reg.ok()) return reg.status();
  return CopyVoffset{r->assembly, *line, *reg};
}

std::string Edit(std::string s, const std::string& from, const std::string& to) {
  EXPECT_TRUE(absl::StrContains(s, from)) << from;
  return absl::StrReplaceAll(s, {{from, to}});
}

TEST(ForeignCode, WithoutAmdhsaTargetTheElfHeaderGivesTheTarget) {
  const Kernel twin = ::kir::testing::TestdataKernel("copy_f32");
  const std::string s = Edit(CopyAssembly("gfx90a:xnack-"), "amdhsa.target: amdgcn-amd-amdhsa--gfx90a:xnack-\n", "");
  absl::StatusOr<std::string> obj = BuildCodeObject(kLlvmBin, s, "gfx90a:xnack-");
  ASSERT_TRUE(obj.ok()) << obj.status();
  absl::StatusOr<std::string> notes = ReadElfNotes(kLlvmBin, *obj);
  ASSERT_TRUE(notes.ok());
  ASSERT_FALSE(absl::StrContains(*notes, "amdhsa.target")) << *notes;
  CodeInput in;
  in.code_object = *obj;
  in.llvm_bin = kLlvmBin;
  in.code_filename = "copy.hsaco";
  for (const char* mcpu : {"gfx90a", "gfx90a:xnack-"}) {
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, mcpu, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << v->Report();
  }
  // e_flags 0x63f: gfx90a (0x03f), xnack off (0x200), sramecc any (0x400).
  absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx90a:xnack+", in);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "copy.hsaco: the code object: its metadata has no amdhsa.target, so its target comes from its ELF "
            "header: e_flags 0x63f (code object v5: EF_AMDGPU_MACH 0x03f = gfx90a, xnack-, sramecc any) is "
            "gfx90a:xnack-, not gfx90a:xnack+ (use --mcpu=gfx90a:xnack- or a code object built for gfx90a:xnack+)");
}

TEST(ForeignCode, ProgramCounterInstructionsAreUnknown) {
  const Kernel twin = ::kir::testing::TestdataKernel("copy_f32");
  const std::string base = CopyAssembly("gfx942");
  const std::string after = "  s_load_dwordx2 s[8:9], s[0:1], 0x8\n";
  struct Case {
    std::string insert, says;
  } cases[] = {
      {"  s_getpc_b64 s[0:1]\n", "[2] s_getpc_b64 reads the program counter (PC-relative addresses or a call)"},
      {"  s_getpc_b64 s[0:1]\n  s_swappc_b64 s[0:1], s[0:1]\n", "[2] s_getpc_b64 reads the program counter"},
      {"  s_setpc_b64 s[0:1]\n", "[2] s_setpc_b64 jumps to a computed address (an indirect branch or a return)"},
      {"  s_swappc_b64 s[0:1], s[0:1]\n", "[2] s_swappc_b64 calls a function"},
  };
  for (const Case& c : cases) {
    CodeInput in;
    in.assembly = Edit(base, after, after + c.insert);
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved);
    ASSERT_FALSE(v->accesses.empty());
    for (const AccessVerdict& a : v->accesses) {
      if (a.inst_id < 0) continue;  // coverage findings
      EXPECT_EQ(a.status, AccessVerdict::Status::kUnknown) << v->Report();
      EXPECT_TRUE(absl::StrContains(a.reason, "calls and indirect branches are not supported: " + c.says))
          << a.reason;
    }
  }
}

// Lines inserted after copy_f32's voffset definition (`insert`, {v}: its
// VGPR), and what the verifier must then say of copy_f32's code: every
// access proved, or (`proves` false) at least one failed, the report naming
// `says`.
struct VoffsetEdit {
  std::string insert;
  bool proves;
  std::string says;
};

// Each of `edits` verified against copy_f32 on gfx942; a failing one's
// report also names `failed_also` (when not empty).
void ExpectVoffsetEdits(std::vector<VoffsetEdit> edits, const std::string& failed_also = "") {
  const Kernel twin = ::kir::testing::TestdataKernel("copy_f32");
  absl::StatusOr<CopyVoffset> copy = CopyWithVoffset();
  ASSERT_TRUE(copy.ok()) << copy.status();
  for (VoffsetEdit& c : edits) {
    c.insert = absl::StrReplaceAll(c.insert, {{"{v}", copy->reg}});
    CodeInput in;
    in.assembly = Edit(copy->assembly, copy->line, copy->line + c.insert);
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->all_proved, c.proves) << c.insert << v->Report();
    if (!c.proves) {
      int failed = 0;
      for (const AccessVerdict& a : v->accesses)
        if (a.inst_id >= 0) failed += a.status == AccessVerdict::Status::kFailed;
      EXPECT_GE(failed, 1) << c.insert << v->Report();
      EXPECT_TRUE(absl::StrContains(v->Report(), c.says)) << c.insert << v->Report();
      if (!failed_also.empty()) EXPECT_TRUE(absl::StrContains(v->Report(), failed_also)) << c.insert << v->Report();
    }
  }
}

// An integer instruction with clamp saturates (semantics.h
// EvalIntOpClamped, LoweredKernel::modifiers): copy_f32's byte offset v0 =
// 16 * tid.x put through a signed add of 0x7ffffff0 with clamp and back
// saturates for every tid.x >= 1 (it is then 15), so the access fails with a
// counterexample; read as a wrapping add it would prove. `+ 0 clamp` never
// saturates: proved. An unsigned subtraction of 16 with clamp is 0 for
// tid.x 0 (16 after adding 16 back): failed there.
TEST(ForeignCode, IntegerClampSaturates) {
  ExpectVoffsetEdits(
      {
          {"  v_add_i32 {v}, {v}, 0x7ffffff0 clamp\n  v_subrev_u32 {v}, 0x7ffffff0, {v}\n", false, "counterexample"},
          {"  v_add_i32 {v}, {v}, 0 clamp\n", true, ""},
          {"  v_sub_u32_e64 {v}, {v}, 16 clamp\n  v_add_u32 {v}, 16, {v}\n", false, "tid = (0, 0, 0)"},
          {"  v_add_u32_e64 {v}, {v}, 16 clamp\n  v_subrev_u32 {v}, 16, {v}\n", true, ""},
      },
      "clamp");
}

// v_min3/v_max3/v_med3 _u32/_i32 (clang's clamps of indices; review 8 F6)
// are modelled with the emulator's semantics (semantics.h Med3,
// EvalIntOpExt): copy_f32's byte offset v = 16 * tid.x through med3(v, 0,
// 2^32 - 1) is v again: proved; max3(v, 16, 0) is 16 for tid.x 0 (the wrong
// element): failed there; min3(v, 64, -16) as signed is -16 for every lane:
// failed.
TEST(ForeignCode, ThreeSourceMinMaxMedianAreModelled) {
  ExpectVoffsetEdits({
      {"  v_med3_u32 {v}, {v}, 0, -1\n", true, ""},
      {"  v_max3_u32 {v}, {v}, 16, 0\n", false, "tid = (0, 0, 0)"},
      {"  v_min3_i32 {v}, {v}, 64, -16\n", false, "counterexample"},
  });
}

// v_cmp_class_f32 (semantics.h CmpClass, the emulator's rule) is modelled,
// and s_setreg of MODE changes no address (fresh-user review 16 F9).
// copy_f32's byte offset v = 16 * tid.x read as f32 bits is +0 for tid.x 0
// (class bit 6) and a positive denormal otherwise (bit 7). Selecting 0 where
// the class is in 0x60 (+-0) leaves v as it is: proved; selecting 0 where it
// is in 0x80 (+denormal) sends every tid.x >= 1 to element 0: failed.
// (The masks are in an SGPR: llvm-mc 22 takes no literal in VOP3 on gfx9.)
TEST(ForeignCode, CmpClassIsModelledAndSetregChangesNoAddress) {
  ExpectVoffsetEdits({
      {"  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 3\n  s_movk_i32 s23, 0x60\n"
       "  v_cmp_class_f32_e64 s[20:21], {v}, s23\n"
       "  v_cndmask_b32_e64 {v}, {v}, 0, s[20:21]\n  s_getreg_b32 s22, hwreg(HW_REG_MODE, 0, 4)\n",
       true, ""},
      {"  s_movk_i32 s23, 0x80\n  v_cmp_class_f32_e64 s[20:21], {v}, s23\n  v_cndmask_b32_e64 {v}, {v}, 0, s[20:21]\n", false,
       "counterexample"},
  });
}

// clamp on an integer instruction semantics.h gives no saturating meaning
// (v_mad_u32_u24, a carry form) stays unmodelled: the result is unknown, so
// the accesses depending on it are unknown, never proved nor failed.
TEST(ForeignCode, OtherIntegerClampIsUnknown) {
  const Kernel twin = ::kir::testing::TestdataKernel("copy_f32");
  absl::StatusOr<CopyVoffset> copy = CopyWithVoffset();
  ASSERT_TRUE(copy.ok()) << copy.status();
  for (const char* form : {"  v_mad_u32_u24 {v}, {v}, 1, 0 clamp\n", "  v_add_co_u32_e64 {v}, s[20:21], {v}, 0 clamp\n"}) {
    const std::string insert = absl::StrReplaceAll(form, {{"{v}", copy->reg}});
    CodeInput in;
    in.assembly = Edit(copy->assembly, copy->line, copy->line + insert);
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << insert << v->Report();
    int unknown = 0;
    for (const AccessVerdict& a : v->accesses) {
      if (a.inst_id < 0) continue;
      EXPECT_NE(a.status, AccessVerdict::Status::kProved) << insert << v->Report();
      unknown += a.status == AccessVerdict::Status::kUnknown;
    }
    EXPECT_GE(unknown, 1) << insert << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "with clamp (not modelled by the verifier)")) << insert << v->Report();
  }
}

// neg/abs on v_cmp_class (issue 19 follow-up): the class of -v is not v's,
// and the shared semantics read the sources as given, so the verifier leaves
// the result unmodelled (it used to ignore the modifier). Keeping v where the
// class of -v (or -|v|) is in 0x80 (+denormal), else 0: -v is +-0 or a
// -denormal, never in 0x80, so every tid.x >= 1 reads element 0 -- wrong.
// Read as v's class (+0 for tid.x 0, a +denormal otherwise) the code would be
// proved: it must not be. (The result is not modelled, so the concrete run's
// counterexample is not the hardware's either; kirc emits no v_cmp_class.)
TEST(ForeignCode, CmpClassWithNegOrAbsIsNotProvedAsWithout) {
  const Kernel twin = ::kir::testing::TestdataKernel("copy_f32");
  absl::StatusOr<CopyVoffset> copy = CopyWithVoffset();
  ASSERT_TRUE(copy.ok()) << copy.status();
  for (const char* src : {"-{v}", "-|{v}|", "{v}"}) {
    const std::string insert =
        absl::StrReplaceAll(absl::StrCat("  s_movk_i32 s23, 0x80\n  v_cmp_class_f32_e64 s[20:21], ", src,
                                         ", s23\n  v_cndmask_b32_e64 {v}, 0, {v}, s[20:21]\n"),
                            {{"{v}", copy->reg}});
    CodeInput in;
    in.assembly = Edit(copy->assembly, copy->line, copy->line + insert);
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
    ASSERT_TRUE(v.ok()) << v.status();
    const bool plain = std::string(src) == "{v}";
    EXPECT_EQ(v->all_proved, plain) << insert << v->Report();  // without a modifier: v's class, proved
  }
}

// clang-22's `(t + 1) & 255` (testdata/foreign/byte_index_f32.cl) is an SDWA
// byte select in the load's address (`v_or_b32_sdwa v2, v1, s4 ...
// src0_sel:BYTE_0`), executed with semantics.h SdwaSource: proved against the
// twin with `(tid.x + 1) mod 256`; a twin with `(tid.x + 2) mod 256` fails
// with a counterexample. (Before SDWA was modelled the load was unknown.)
TEST(ForeignCode, SdwaByteSelectInAnAddress) {
  auto twin = [](int add) {
    absl::StatusOr<Kernel> k = ParseKernel(
        absl::StrCat("kernel byte_index_f32\nworkgroup 256 1 1\ngrid 4 1 1\n"
                     "arg src : f32[1024] strides [1] readonly\narg dst : f32[1024] strides [1] writeonly\n"
                     "  %v = load src[wg.x * 256 + (tid.x + ", add, ") mod 256] : f32\n"
                     "  store dst[wg.x * 256 + tid.x], %v\nend\n"),
        "byte_index_f32.kir");
    EXPECT_TRUE(k.ok()) << k.status();
    return *k;
  };
  for (const char* t : {"gfx90a", "gfx942"}) {
    CodeInput in;
    absl::StatusOr<std::string> obj = ReadFileBytes(absl::StrCat("testdata/foreign/byte_index_f32.", t, ".hsaco"));
    ASSERT_TRUE(obj.ok()) << obj.status();
    in.code_object = *obj;
    in.llvm_bin = kLlvmBin;
    absl::StatusOr<VerifyResult> v = VerifyCode(twin(1), t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_TRUE(v->all_proved) << t << "\n" << v->Report();
    int proved = 0;
    for (const AccessVerdict& a : v->accesses) proved += a.status == AccessVerdict::Status::kProved;
    EXPECT_EQ(proved, 2) << v->Report();
    v = VerifyCode(twin(2), t, in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << v->Report();
    int failed = 0;
    for (const AccessVerdict& a : v->accesses) failed += a.status == AccessVerdict::Status::kFailed;
    EXPECT_GE(failed, 1) << v->Report();
    EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
  }
}

Kernel Parse(const std::string& text, const std::string& file) {
  absl::StatusOr<Kernel> k = ParseKernel(text, file);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : Kernel{};
}

// The twin of testdata/foreign/stride_f32.cl for n = 1000, stride = 3.
Kernel StrideTwin() {
  return Parse(
      "kernel stride_f32\nworkgroup 64 1 1\ngrid 16 1 1\n"
      "arg src : f32[3000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\n"
      "  %v = load guarded src[(wg.x * 64 + tid.x) * 3] : f32\n"
      "  store guarded dst[wg.x * 64 + tid.x], %v\nend\n",
      "stride_f32.kir");
}

std::vector<uint8_t> U32Bytes(uint32_t v) {
  return {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
          static_cast<uint8_t>(v >> 24)};
}

int CountStatus(const VerifyResult& r, AccessVerdict::Status s) {
  int n = 0;
  for (const AccessVerdict& a : r.accesses) n += a.status == s;
  return n;
}

// `kirc verify --scalar` (CodeInput::by_value): stride_f32's `uint n` and
// `uint stride`, which the twin lacks, fixed as known kernarg bytes. n =
// 1000, stride = 3 (the twin's sizes) prove both accesses; without values
// they are free inputs and the code is not proved for every n and stride; a
// wrong stride (4) or n (999, 1001) fails with a counterexample.
TEST(ForeignCode, ByValueArgumentsTheTwinLacksAreFixed) {
  const Kernel twin = StrideTwin();
  for (const char* t : {"gfx90a", "gfx942"}) {
    CodeInput base;
    absl::StatusOr<std::string> obj = ReadFileBytes(absl::StrCat("testdata/foreign/stride_f32.", t, ".hsaco"));
    ASSERT_TRUE(obj.ok()) << obj.status();
    base.code_object = *obj;
    base.llvm_bin = kLlvmBin;
    struct Case {
      uint32_t n, stride;
      bool proves;
    } cases[] = {{1000, 3, true}, {1000, 4, false}, {999, 3, false}, {1001, 3, false}};
    for (const Case& c : cases) {
      CodeInput in = base;
      in.by_value = {{"n", U32Bytes(c.n)}, {"stride", U32Bytes(c.stride)}};
      absl::StatusOr<VerifyResult> v = VerifyCode(twin, t, in);
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_EQ(v->all_proved, c.proves) << t << " n=" << c.n << " stride=" << c.stride << "\n" << v->Report();
      if (c.proves) {
        EXPECT_EQ(CountStatus(*v, AccessVerdict::Status::kProved), 2) << v->Report();
      } else {
        EXPECT_GE(CountStatus(*v, AccessVerdict::Status::kFailed), 1) << v->Report();
        EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
      }
    }
    // Not given: free inputs, so not proved.
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, t, base);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << v->Report();
    // Only one of them: the other is still free.
    CodeInput one = base;
    one.by_value = {{"stride", U32Bytes(3)}};
    v = VerifyCode(twin, t, one);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_FALSE(v->all_proved) << v->Report();
    // Errors name the argument.
    CodeInput bad = base;
    bad.by_value = {{"m", U32Bytes(3)}};
    v = VerifyCode(twin, t, bad);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().message(),
              "--scalar m: the code's kernel 'stride_f32' has no by-value argument 'm' that the KIR kernel lacks "
              "(those it has: 'n', 'stride')");
    bad.by_value = {{"n", {1, 0}}};
    v = VerifyCode(twin, t, bad);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().message(), "--scalar n: the value has 2 bytes but the argument is 4 bytes at offset 16");
  }
}

// Review 5 F1: stride_f32 built without -cl-kernel-arg-info (no .name in
// the metadata's .args, as most OpenCL builds are). `uint n` and `uint
// stride` are explicit arguments 2 and 3 (after src and dst), fixed by
// position ("#2", "#3": `kirc verify --scalar '#2=1000'`); the twin's src and
// dst bind by position to arguments 0 and 1. The same cases as by name: n =
// 1000, stride = 3 prove; stride 4, n 999 or 1001 fail with a counterexample.
TEST(ForeignCode, UnnamedByValueArgumentsAreFixedByPosition) {
  const Kernel twin = StrideTwin();
  CodeInput base;
  absl::StatusOr<std::string> obj = ReadFileBytes("testdata/foreign/stride_f32.gfx942.unnamed.hsaco");
  ASSERT_TRUE(obj.ok()) << obj.status();
  base.code_object = *obj;
  base.llvm_bin = kLlvmBin;
  base.code_filename = "s.hsaco";
  struct Case {
    uint32_t n, stride;
    bool proves;
  } cases[] = {{1000, 3, true}, {1000, 4, false}, {999, 3, false}, {1001, 3, false}};
  for (const Case& c : cases) {
    CodeInput in = base;
    in.by_value = {{"#2", U32Bytes(c.n)}, {"#3", U32Bytes(c.stride)}};
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->all_proved, c.proves) << " n=" << c.n << " stride=" << c.stride << "\n" << v->Report();
    if (c.proves) {
      EXPECT_EQ(CountStatus(*v, AccessVerdict::Status::kProved), 2) << v->Report();
    } else {
      EXPECT_GE(CountStatus(*v, AccessVerdict::Status::kFailed), 1) << v->Report();
      EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
    }
  }
  // The arguments as the messages list them, unnamed (offsets 0, 8, 16, 20:
  // pointers of 8 bytes, then two 4-byte uint, from the .cl's signature).
  const std::string args =
      "(unnamed, #0) (global_buffer, 8 bytes at offset 0, float*), (unnamed, #1) (global_buffer, 8 bytes at offset "
      "8, float*), (unnamed, #2) (by_value, 4 bytes at offset 16, uint), (unnamed, #3) (by_value, 4 bytes at offset "
      "20, uint)";
  // Without values the twin (2 arguments) cannot bind to the code's 4 by
  // position: the message says how to fix the by-value ones.
  absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", base);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "s.hsaco: the code's kernel 'stride_f32' has 4 explicit argument(s) (" + args +
                ") and the KIR kernel 'stride_f32' has 2, not all of them named alike: give the KIR kernel the code's "
                "arguments, with the same names or in the same order, or, for a by-value argument the KIR kernel "
                "lacks, fix it by position: --scalar '#2=VALUE', '#3=VALUE' (a by-value argument the KIR kernel "
                "has is free: the addresses are proved for every value of it)");
  // A pointer, an index past the arguments, a name the metadata lacks.
  CodeInput bad = base;
  bad.by_value = {{"#0", U32Bytes(1)}, {"#3", U32Bytes(3)}};
  v = VerifyCode(twin, "gfx942", bad);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "s.hsaco: --scalar #0: argument #0 of the code object's kernel 'stride_f32' is (unnamed, #0) "
            "(global_buffer, 8 bytes at offset 0, float*): a pointer, which is one of the .kir's buffers (declare "
            "it as a buffer argument of the .kir kernel), not a value --scalar sets (its explicit arguments: " +
                args + ")");
  bad.by_value = {{"#4", U32Bytes(1)}};
  v = VerifyCode(twin, "gfx942", bad);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "s.hsaco: --scalar #4: the code object's kernel 'stride_f32' has no argument #4: it has 4 explicit "
            "argument(s), #0 to #3 in its metadata's order (" + args + ")");
  bad.by_value = {{"#2", U32Bytes(1000)}, {"#3", U32Bytes(3)}, {"n", U32Bytes(1000)}};
  v = VerifyCode(twin, "gfx942", bad);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "--scalar n: the code's kernel 'stride_f32' has no by-value argument 'n' that the KIR kernel lacks "
            "(those it has: (unnamed, #2) (by_value, 4 bytes at offset 16, uint), (unnamed, #3) (by_value, 4 bytes "
            "at offset 20, uint); give an unnamed one by position, --scalar '#N=VALUE')");
  bad.by_value = {{"#2", {1, 0}}, {"#3", U32Bytes(3)}};
  v = VerifyCode(twin, "gfx942", bad);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "--scalar #2: the value has 2 bytes but the argument is 4 bytes at offset 16");
}

// Fresh-user review 7 F13: testdata/foreign/subdword_f32.cl's ushort stride
// (kernarg bytes 24..25), char pad (26) and a padding byte (27) share one
// dword. With every argument given, the padding byte is 0 (as kirc run packs
// it) and the dword is known: n = 1000, stride = 3, off = 0 prove the twin,
// stride = 4 fails (so the ushort's value is read, not taken as 0). A
// missing pad is named, with both ways to give it.
TEST(ForeignCode, SubDwordArgumentsWithPaddingAreFixed) {
  const Kernel twin = Parse(
      "kernel subdword_f32\nworkgroup 64 1 1\ngrid 16 1 1\n"
      "arg src : f32[3000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\n"
      "  %v = load guarded src[(wg.x * 64 + tid.x) * 3] : f32\n"
      "  store guarded dst[wg.x * 64 + tid.x], %v\nend\n",
      "subdword_f32.kir");
  const std::vector<uint8_t> n1000 = {0xe8, 0x03, 0, 0, 0, 0, 0, 0};  // ulong 1000
  for (bool named : {true, false}) {
    CodeInput base;
    absl::StatusOr<std::string> obj = ReadFileBytes(
        absl::StrCat("testdata/foreign/subdword_f32.gfx942", named ? "" : ".unnamed", ".hsaco"));
    ASSERT_TRUE(obj.ok()) << obj.status();
    base.code_object = *obj;
    base.llvm_bin = kLlvmBin;
    const std::string n = named ? "n" : "#2", stride = named ? "stride" : "#3", pad = named ? "pad" : "#4",
                      off = named ? "off" : "#5";
    for (uint8_t st : {3, 4}) {
      CodeInput in = base;
      in.by_value = {{n, n1000}, {stride, {st, 0}}, {pad, {0}}, {off, U32Bytes(0)}};
      absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_EQ(v->all_proved, st == 3) << "named " << named << " stride " << int{st} << "\n" << v->Report();
      if (st == 3)
        EXPECT_EQ(CountStatus(*v, AccessVerdict::Status::kProved), 2) << v->Report();
      else
        EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
    }
    // A missing pad, by name and (fresh-user review 8 F9) by position: the
    // same dword-sharing message, not the count mismatch of binding by
    // position.
    CodeInput in = base;
    in.by_value = {{n, n1000}, {stride, {3, 0}}, {off, U32Bytes(0)}};
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().message(),
              named ? "--scalar stride: the argument (2 bytes at kernarg offset 24) shares the kernarg dword at 24 with "
                      "argument 'pad' (#4, by_value, 1 bytes at offset 26, char), which no --scalar gives: add --scalar "
                      "'#4=VALUE' (or 'pad=VALUE'); the verifier fixes whole dwords, so every argument in one needs a "
                      "value"
                    : "--scalar #3: the argument (2 bytes at kernarg offset 24) shares the kernarg dword at 24 "
                      "with argument (unnamed, #4) (by_value, 1 bytes at offset 26, char), which no --scalar gives: add "
                      "--scalar '#4=VALUE'; the verifier fixes whole dwords, so every argument in one needs a value");
  }
}

// Fresh-user review 7 F10: testdata/foreign/scale_f32.cl without argument
// names, (src, dst, uint n, float scale, uint stride); the twin declares
// src, dst and `scale`, which binds by position to #3. Fixing #2 and #4
// proves; fixing #3 too is refused naming `scale`; with only #2 fixed the
// suggestion names #4 alone (#3 is the twin's).
TEST(ForeignCode, TheTwinsOwnScalarStaysFree) {
  const Kernel twin = Parse(
      "kernel scale_f32\nworkgroup 64 1 1\ngrid 16 1 1\n"
      "arg src : f32[3000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\narg scale : f32\n"
      "  %v = load guarded src[(wg.x * 64 + tid.x) * 3] : f32\n  %w = mul %v, scale\n"
      "  store guarded dst[wg.x * 64 + tid.x], %w\nend\n",
      "scale_f32.kir");
  CodeInput base;
  absl::StatusOr<std::string> obj = ReadFileBytes("testdata/foreign/scale_f32.gfx942.unnamed.hsaco");
  ASSERT_TRUE(obj.ok()) << obj.status();
  base.code_object = *obj;
  base.llvm_bin = kLlvmBin;
  CodeInput in = base;
  in.by_value = {{"#2", U32Bytes(1000)}, {"#4", U32Bytes(3)}};
  absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->all_proved) << v->Report();
  in.by_value["#3"] = U32Bytes(0x3fc00000);  // 1.5f
  v = VerifyCode(twin, "gfx942", in);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(),
            "--scalar '#3=...': the code's argument (unnamed, #3) (by_value, 4 bytes at offset 20, float) binds by "
            "position to the KIR kernel's scalar 'scale', which stays free (the verifier proves the addresses for "
            "every value of it): do not fix #3; fix only the by-value arguments the KIR kernel lacks");
  in.by_value = {{"#2", U32Bytes(1000)}};
  v = VerifyCode(twin, "gfx942", in);
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(absl::StrContains(v.status().message(), "fix it by position: --scalar '#4=VALUE' (a by-value"))
      << v.status();
}

// A counterexample names the KIR element at its point (`src[3]`), its byte
// offset from the argument pointer and its absolute address, and the emitted
// address as an offset from the pointer too. stride_f32 with stride 4 against
// the twin's 3: at thread i = 64 wg + tid the load emits src + 16 i and the
// twin expects src[3 i] = src + 12 i; every figure is computed here from the
// counterexample's tid, wg and pointer.
TEST(ForeignCode, CounterexamplesNameTheElementAndItsAddresses) {
  CodeInput in;
  absl::StatusOr<std::string> obj = ReadFileBytes("testdata/foreign/stride_f32.gfx942.hsaco");
  ASSERT_TRUE(obj.ok()) << obj.status();
  in.code_object = *obj;
  in.llvm_bin = kLlvmBin;
  in.by_value = {{"n", U32Bytes(1000)}, {"stride", U32Bytes(4)}};
  absl::StatusOr<VerifyResult> v = VerifyCode(StrideTwin(), "gfx942", in);
  ASSERT_TRUE(v.ok()) << v.status();
  const AccessVerdict* load = nullptr;
  for (const AccessVerdict& a : v->accesses)
    if (a.status == AccessVerdict::Status::kFailed && absl::StrContains(a.inst_text, "global_load")) load = &a;
  ASSERT_NE(load, nullptr) << v->Report();
  const std::string& c = load->counterexample;
  int tid = -1, wg = -1;
  uint64_t src = 0;
  {
    const size_t t = c.find("tid = ("), w = c.find("wg = ("), p = c.find("src = 0x");
    ASSERT_NE(t, std::string::npos) << c;
    ASSERT_NE(w, std::string::npos) << c;
    ASSERT_NE(p, std::string::npos) << c;
    ASSERT_TRUE(absl::SimpleAtoi(c.substr(t + 7, c.find(',', t) - t - 7), &tid)) << c;
    ASSERT_TRUE(absl::SimpleAtoi(c.substr(w + 6, c.find(',', w) - w - 6), &wg)) << c;
    const size_t end = c.find_first_of(",\n", p + 8);
    ASSERT_TRUE(absl::SimpleHexAtoi(c.substr(p + 8, end - p - 8), &src)) << c;
  }
  const int64_t i = int64_t{wg} * 64 + tid;
  ASSERT_GE(i, 1) << c;  // thread 0 computes the right address
  ASSERT_LT(i, 1000) << c;
  auto hex = [](uint64_t x) { return absl::StrCat("0x", absl::Hex(x)); };
  EXPECT_TRUE(absl::StrContains(c, absl::StrCat("(src + ", 16 * i, "); expected ", hex(src + 12 * i), " = src + ",
                                                12 * i, " (src[(wg.x * 64 + tid.x) * 3] = src[", 3 * i, "])")))
      << c;
}

// clang-22 -S text (testdata's *.s, the same compile as the .hsaco stopped
// at assembly) verified with CodeInput::assemble: assembled and linked by
// LLVM's MC in process, then read as a code object. Each proves exactly as
// its code object: the same verdict for every instruction. The text has
// what clang emits: `name:  ; @name` labels, .p2align/.type/.size/.section,
// .amdhsa_kernel blocks, the metadata, local .LBB labels, and OpenCL's
// __clang_ocl_kern_imp_* helper after the kernel (not part of it).
TEST(ForeignCode, ClangAssemblyTextProvesAsItsCodeObject) {
  struct Subject {
    std::string path;  // without .TARGET.{hsaco,s}
    Kernel twin;
    std::vector<const char*> targets;
    std::map<std::string, std::vector<uint8_t>> by_value;
  };
  std::vector<Subject> subjects;
  for (const auto& [name, targets] : std::vector<std::pair<const char*, std::vector<const char*>>>{
           {"copy_f32", {"gfx908", "gfx90a", "gfx942"}},
           {"add_f16", {"gfx908", "gfx90a", "gfx942", "gfx950"}},  // gfx950: v_cvt_pk_f16_f32 (data)
           {"mma_16x16x16_f16", {"gfx908", "gfx90a", "gfx942"}},
           {"mma_16x16x16_bf16", {"gfx90a", "gfx942"}},
           {"mma_32x32x8_f16", {"gfx908", "gfx90a", "gfx942"}}})
    subjects.push_back({absl::StrCat("testdata/baselines/", name), ::kir::testing::TestdataKernel(name), targets, {}});
  const std::vector<const char*> two = {"gfx90a", "gfx942"};
  subjects.push_back({"testdata/foreign/guard_f32",
                      Parse("kernel guard_f32\nworkgroup 256 1 1\ngrid 4 1 1\n"
                            "arg src : f32[1000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\n"
                            "  %v = load guarded src[wg.x * 256 + tid.x] : f32\n"
                            "  %t = const f32 2.0\n  %w = mul %v, %t\n"
                            "  store guarded dst[wg.x * 256 + tid.x], %w\nend\n",
                            "guard_f32.kir"),
                      two,
                      {}});
  subjects.push_back({"testdata/foreign/blockdim_f32",
                      Parse("kernel blockdim_f32\nworkgroup 128 1 1\ngrid 8 1 1\n"
                            "arg src : f32[1024] strides [1] readonly\narg dst : f32[1024] strides [1] writeonly\n"
                            "  %v = load src[wg.x * 128 + tid.x] : f32\n  %t = const f32 1.0\n"
                            "  %w = add %v, %t\n  store dst[wg.x * 128 + tid.x], %w\nend\n",
                            "blockdim_f32.kir"),
                      two,
                      {}});
  subjects.push_back({"testdata/foreign/colsum_f32",
                      Parse("kernel colsum_f32\nworkgroup 64 1 1\ngrid 4 1 1\n"
                            "arg A : f32[128, 256] strides [260, 1] readonly\narg out : f32[256] strides [1] writeonly\n"
                            "  %z = zero f32\n  %s = for %r = 0 to 128 iter(%a = %z) {\n"
                            "    %v = load A[%r, wg.x * 64 + tid.x] : f32\n    %a2 = add %a, %v\n    yield %a2\n  }\n"
                            "  store out[wg.x * 64 + tid.x], %s\nend\n",
                            "colsum_f32.kir"),
                      two,
                      {}});
  subjects.push_back({"testdata/foreign/byte_index_f32",
                      Parse("kernel byte_index_f32\nworkgroup 256 1 1\ngrid 4 1 1\n"
                            "arg src : f32[1024] strides [1] readonly\narg dst : f32[1024] strides [1] writeonly\n"
                            "  %v = load src[wg.x * 256 + (tid.x + 1) mod 256] : f32\n"
                            "  store dst[wg.x * 256 + tid.x], %v\nend\n",
                            "byte_index_f32.kir"),
                      two,
                      {}});
  subjects.push_back({"testdata/foreign/stride_f32", StrideTwin(), two,
                      {{"n", U32Bytes(1000)}, {"stride", U32Bytes(3)}}});
  int checked = 0;
  for (const Subject& sub : subjects)
    for (const char* t : sub.targets) {
      const std::string what = absl::StrCat(sub.path, ".", t);
      absl::StatusOr<std::string> obj = ReadFileBytes(what + ".hsaco");
      ASSERT_TRUE(obj.ok()) << obj.status();
      absl::StatusOr<std::string> text = ReadFileBytes(what + ".s");
      ASSERT_TRUE(text.ok()) << text.status();
      ASSERT_TRUE(absl::StrContains(*text, "__clang_ocl_kern_imp_")) << what;  // the helper is there
      CodeInput from_object;
      from_object.code_object = *obj;
      from_object.llvm_bin = kLlvmBin;
      from_object.by_value = sub.by_value;
      CodeInput from_text;
      from_text.assembly = *text;
      from_text.assemble = true;
      from_text.llvm_bin = kLlvmBin;
      from_text.by_value = sub.by_value;
      absl::StatusOr<VerifyResult> a = VerifyCode(sub.twin, t, from_object);
      ASSERT_TRUE(a.ok()) << what << ": " << a.status();
      absl::StatusOr<VerifyResult> b = VerifyCode(sub.twin, t, from_text);
      ASSERT_TRUE(b.ok()) << what << ".s: " << b.status();
      EXPECT_TRUE(a->all_proved) << what << "\n" << a->Report();
      EXPECT_TRUE(b->all_proved) << what << ".s\n" << b->Report();
      ASSERT_EQ(a->accesses.size(), b->accesses.size()) << what;
      for (size_t i = 0; i < a->accesses.size(); ++i) {
        EXPECT_EQ(a->accesses[i].inst_id, b->accesses[i].inst_id) << what;
        EXPECT_EQ(a->accesses[i].status, b->accesses[i].status) << what;
      }
      ++checked;
    }
  EXPECT_EQ(checked, 25);
}

// gfx950's v_bitop3_b32 in an address (compiler/isa/semantics.h Bitop3, the
// emulator's rule too): kirc's copy_f32 for gfx950 with its tid.x mask
// `v_and_b32 v1, 0x3ff, v0` rewritten as the three-input select
// v2 ? v0 : v3 (table 0xca = (0xf0 & 0xcc) | (~0xf0 & 0xaa)) of v2 = 0x3ff,
// v3 = 0, assembled by llvm-mc: proved. The table with src1 and src2
// swapped, 0xac = (0xf0 & 0xaa) | (~0xf0 & 0xcc), selects v0 & ~0x3ff (0:
// every lane at element 0) and fails with a counterexample.
TEST(ForeignCode, Bitop3InAnAddressProves) {
  const std::string kirc = CopyAssembly("gfx950");
  for (const auto& [table, proves] : std::vector<std::pair<const char*, bool>>{{"0xca", true}, {"0xac", false}}) {
    CodeInput in;
    in.assembly = Edit(kirc, "v_and_b32 v1, 0x3ff, v0\n",
                       absl::StrCat("v_mov_b32 v2, 0x3ff\n  v_mov_b32 v3, 0\n  v_bitop3_b32 v1, v2, v0, v3 bitop3:",
                                    table, "\n"));
    in.assemble = true;
    in.llvm_bin = kLlvmBin;
    absl::StatusOr<VerifyResult> v = VerifyCode(::kir::testing::TestdataKernel("copy_f32"), "gfx950", in);
    ASSERT_TRUE(v.ok()) << table << ": " << v.status();
    EXPECT_EQ(v->all_proved, proves) << table << "\n" << v->Report();
    if (proves) {
      EXPECT_EQ(CountStatus(*v, AccessVerdict::Status::kProved), 2) << v->Report();
    } else {
      EXPECT_GE(CountStatus(*v, AccessVerdict::Status::kFailed), 1) << v->Report();
      EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
      EXPECT_TRUE(absl::StrContains(v->Report(), "v_bitop3_b32")) << v->Report();
    }
  }
}

// A load between two loops (issue 19 leftover): kirc's own code object of
// loop, load, loop proves on every target, the load matched to its KIR
// access; the same object with that load's offset 4 bytes further fails
// it with a counterexample (at tid 0 of workgroup 0 the KIR address is A +
// 2048 * 4 = A + 8192 bytes; the load reads A + 8196) and leaves the KIR
// load uncovered. The loops' own loads read A[0 .. 2047] and A[2176 ..]:
// neither covers A[2049 + wg.x * 64 + tid.x] at every point, so no other
// candidate explains the edited load.
TEST(ForeignCode, ALoadBetweenTwoLoopsMatchesItsAccess) {
  const std::string text =
      "kernel between\nworkgroup 64 1 1\ngrid 2 1 1\n"
      "arg A : f32[4224] strides [1] readonly\narg B : f32[128] strides [1] writeonly\n"
      "  %z = zero f32\n"
      "  %s = for %i = 0 to 16 iter(%acc = %z) {\n"
      "    %v = load A[%i * 128 + wg.x * 64 + tid.x] : f32\n"
      "    %a2 = add %acc, %v\n    yield %a2\n  }\n"
      "  %m = load A[2048 + wg.x * 64 + tid.x] : f32\n"
      "  %t = add %s, %m\n"
      "  %r = for %j = 0 to 16 iter(%acc = %t) {\n"
      "    %w = load A[%j * 128 + 2176 + wg.x * 64 + tid.x] : f32\n"
      "    %a3 = add %acc, %w\n    yield %a3\n  }\n"
      "  store B[wg.x * 64 + tid.x], %r\nend\n";
  const Kernel twin = Parse(text, "between.kir");
  const std::string kMiddle = "%m = load A[2048 + wg.x * 64 + tid.x] : f32";
  for (const TargetInfo* t : AllTargets()) {
    CompileOptions co;
    co.mcpu = t->name;
    absl::StatusOr<CompileResult> r = Compile(twin, co);
    ASSERT_TRUE(r.ok()) << t->name << ": " << r.status();
    // The middle load: the first buffer load after the first loop's back edge.
    std::vector<std::string> lines = absl::StrSplit(r->assembly, '\n');
    size_t back = 0, middle = 0;
    while (back < lines.size() && !absl::StrContains(lines[back], "s_cbranch_scc")) ++back;
    for (middle = back; middle < lines.size() && !absl::StrContains(lines[middle], "_load_dword"); ++middle) {
    }
    ASSERT_LT(middle, lines.size()) << r->assembly;
    ASSERT_FALSE(absl::StrContains(lines[middle], "offset:")) << lines[middle];
    const std::string mutated_line = absl::StrCat(lines[middle], " offset:4");
    for (bool mutate : {false, true}) {
      std::vector<std::string> edited = lines;
      if (mutate) edited[middle] = mutated_line;
      absl::StatusOr<std::string> obj = BuildCodeObject(kLlvmBin, absl::StrJoin(edited, "\n"), t->name);
      ASSERT_TRUE(obj.ok()) << obj.status();
      CodeInput in;
      in.code_object = *obj;
      in.llvm_bin = kLlvmBin;
      in.code_filename = "between.hsaco";
      absl::StatusOr<VerifyResult> v = VerifyCode(twin, t->name, in);
      ASSERT_TRUE(v.ok()) << t->name << ": " << v.status();
      const std::string report = v->Report();
      if (!mutate) {
        EXPECT_TRUE(v->all_proved) << t->name << "\n" << report;
        EXPECT_EQ(CountStatus(*v, AccessVerdict::Status::kProved), 4) << report;
        bool matched = false;
        for (const AccessVerdict& a : v->accesses) matched |= a.status == AccessVerdict::Status::kProved &&
                                                              a.op_text == kMiddle;
        EXPECT_TRUE(matched) << t->name << "\n" << report;
        continue;
      }
      EXPECT_FALSE(v->all_proved) << t->name << "\n" << report;
      // The edited load and the KIR load nothing performs now.
      EXPECT_EQ(CountStatus(*v, AccessVerdict::Status::kFailed), 2) << t->name << "\n" << report;
      EXPECT_EQ(CountStatus(*v, AccessVerdict::Status::kProved), 3) << t->name << "\n" << report;
      EXPECT_TRUE(absl::StrContains(report, "offset:4  (matches no KIR access)") ||
                  absl::StrContains(report, "offset:4 (matches no KIR access)")) << report;
      EXPECT_TRUE(absl::StrContains(report, "A + 8196")) << t->name << "\n" << report;
      EXPECT_TRUE(absl::StrContains(report, "= A + 8192 (A[2048 + wg.x * 64 + tid.x] = A[2048])"))
          << t->name << "\n" << report;
      EXPECT_TRUE(absl::StrContains(report, "element 0 is loaded by no instruction")) << t->name << "\n" << report;
    }
  }
}

// Text llvm-mc refuses: the error names the file and line of the text.
TEST(ForeignCode, AssemblerErrorsNameTheLine) {
  absl::StatusOr<std::string> text = ReadFileBytes("testdata/foreign/guard_f32.gfx942.s");
  ASSERT_TRUE(text.ok()) << text.status();
  const std::string edited = Edit(*text, "\ts_endpgm\n", "\ts_endpgm_frob\n");
  CodeInput in;
  in.assembly = edited;
  in.assemble = true;
  in.llvm_bin = kLlvmBin;
  in.code_filename = "guard.s";
  const Kernel twin = Parse("kernel guard_f32\nworkgroup 256 1 1\ngrid 4 1 1\n"
                            "arg src : f32[1000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\n"
                            "  %v = load guarded src[wg.x * 256 + tid.x] : f32\n"
                            "  store guarded dst[wg.x * 256 + tid.x], %v\nend\n",
                            "guard_f32.kir");
  absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
  ASSERT_FALSE(v.ok());
  // The line of the first s_endpgm_frob, counted here.
  const size_t at = edited.find("s_endpgm_frob");
  const int line = 1 + static_cast<int>(std::count(edited.begin(), edited.begin() + static_cast<long>(at), '\n'));
  EXPECT_TRUE(absl::StrContains(v.status().message(), absl::StrCat("guard.s:", line, ":"))) << v.status();
  EXPECT_TRUE(absl::StrContains(v.status().message(), "assembling guard.s with LLVM")) << v.status();
  EXPECT_FALSE(absl::StrContains(v.status().message(), "<stdin>")) << v.status();
}

// Review 8 F6: clang-22's gfx950 clamp (v_med3_f32 before
// v_cvt_pk_fp8_f32) and bf16 conversion (v_cvt_pk_bf16_f32) code: their
// float results are data to the verifier, and every address proves against
// the twins (testdata/foreign/clamp_fp8_f32.kir, cvt_bf16_f32.kir). Review
// 21 F3: so do its high-word fp8/bf8 dequantize (dequant_word1_f32) and its
// global_load_lds_dwordx4 (global_lds_dma_f32: both sides of the DMA, the
// global read at global_load_dwordx4's address, the LDS write at M0 +
// offset + 16 * lane).
TEST(ForeignCode, ClangGfx950CodeProves) {
  for (const char* name : {"clamp_fp8_f32", "cvt_bf16_f32", "dequant_word1_f32", "global_lds_dma_f32"}) {
    const std::string kir = absl::StrCat(name, ".kir");
    const Kernel twin = Parse(::kir::testing::ReadTestFile(absl::StrCat("testdata/foreign/", kir)), kir);
    CodeInput in;
    absl::StatusOr<std::string> obj = ReadFileBytes(absl::StrCat("testdata/foreign/", name, ".gfx950.hsaco"));
    ASSERT_TRUE(obj.ok()) << obj.status();
    in.code_object = *obj;
    in.llvm_bin = kLlvmBin;
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx950", in);
    ASSERT_TRUE(v.ok()) << name << ": " << v.status();
    EXPECT_TRUE(v->all_proved) << name << "\n" << v->Report();
  }
}

// Review 21 F3: a mutant of clang-22's gfx950 global_load_lds_dwordx4
// (testdata/foreign/global_lds_dma_f32, which proves:
// ClangGfx950CodeProves): offset:16 on the DMA (llvm-mc 22
// -mcpu=gfx950: `global_load_lds_dwordx4 v[2:3], off` = 00 80 f4 dd 02 00 7f
// 00, with offset:16 10 80 ...) moves both sides by 16 bytes, so neither
// matches the lds_dma.
// testdata/foreign/NAME.gfx950.hsaco (clang-22) with the instruction
// encoded as `encoding` (its first byte the offset field's low byte, 0)
// given offset:16, verified against its twin NAME.kir on gfx950.
void VerifyOffset16Mutant(const std::string& name, const std::string& encoding, absl::StatusOr<VerifyResult>* v) {
  absl::StatusOr<std::string> obj = ReadFileBytes(absl::StrCat("testdata/foreign/", name, ".gfx950.hsaco"));
  ASSERT_TRUE(obj.ok()) << obj.status();
  std::string mutant = *obj;
  const size_t at = mutant.find(encoding);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(mutant[at], '\x00');
  mutant[at] = '\x10';
  const Kernel twin = Parse(::kir::testing::ReadTestFile(absl::StrCat("testdata/foreign/", name, ".kir")), "t.kir");
  CodeInput in;
  in.code_object = mutant;
  in.llvm_bin = kLlvmBin;
  *v = VerifyCode(twin, "gfx950", in);
  ASSERT_TRUE(v->ok()) << v->status();
}

TEST(ForeignCode, ClangGlobalLdsDmaOffsetMutantFails) {
  absl::StatusOr<VerifyResult> v;
  ASSERT_NO_FATAL_FAILURE(
      VerifyOffset16Mutant("global_lds_dma_f32", std::string("\x00\x80\xf4\xdd\x02\x00\x7f\x00", 8), &v));
  EXPECT_FALSE(v->all_proved) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "global] global_load_lds_dwordx4 v[2:3], off offset:16"))
      << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "the LDS DMA's global side")) << v->Report();
}

// Review 21 F1: a 32-bit write to one half of EXEC or VCC (exec_lo/exec_hi,
// vcc_lo/vcc_hi: the reader's s126/s127, s106/s107) changes the lanes of
// that half only. copy_f32 (workgroup 256: whole waves, every lane active)
// with lines inserted after its voffset v = 16 * tid.x: each edit that
// turns lanes off, or changes v in some lanes, must fail with a
// counterexample in the lanes the edit touches (lane l of a wave is tid.x
// mod 64 here: 32..63 for the high half, 0..31 for the low one); the
// harmless edits still prove; a half built from the other half of a lane
// mask (other lanes' bits) or by a shift is unknown or failed, never proved.
// Each edit was proved, every address, before the halves were modelled.
// The chains print the halves by LLVM's names (asm_syntax.cc).
TEST(ForeignCode, WritesToHalvesOfExecAndVccAreModelled) {
  enum Expect { kProves, kFailsInHighLanes, kFailsInLowLanes, kNotProved };
  struct Case {
    std::string insert;
    Expect expect;
  } cases[] = {
      {"  s_mov_b32 exec_hi, 0\n", kFailsInHighLanes},
      {"  s_mov_b32 exec_lo, 0\n", kFailsInLowLanes},
      {"  s_mov_b32 exec_hi, exec_lo\n  s_mov_b32 exec_lo, 0\n", kFailsInLowLanes},
      {"  s_and_b32 exec_hi, exec_hi, 0\n", kFailsInHighLanes},
      {"  s_movk_i32 exec_hi, 0x0\n", kFailsInHighLanes},
      {"  s_mov_b32 exec_hi, 0x7fffffff\n", kFailsInHighLanes},  // lane 63 off
      {"  v_readfirstlane_b32 exec_lo, {v}\n", kFailsInLowLanes},  // lane 0's v: 0
      {"  v_cmp_eq_u32 s[20:21], -1, {v}\n  s_mov_b32 exec_lo, s20\n", kFailsInLowLanes},
      {"  s_mov_b64 vcc, -1\n  s_mov_b32 vcc_hi, 0\n  v_cndmask_b32 {v}, 0, {v}, vcc\n", kFailsInHighLanes},
      // A compare's guard (only tid.x 0, where v is already 0) turned on for lanes 32..63.
      {"  v_cmp_eq_u32 vcc, 0, {v}\n  s_mov_b32 vcc_hi, -1\n  v_cndmask_b32 {v}, {v}, 0, vcc\n", kFailsInHighLanes},
      // A carry (set in every lane: v + -1 + 1 is v) dropped in lanes 32..63.
      {"  v_cmp_ne_u32 vcc, -1, {v}\n  s_mov_b32 vcc_hi, 0\n  v_addc_co_u32 {v}, vcc, -1, {v}, vcc\n",
       kFailsInHighLanes},
      {"  v_cmp_ne_u32 vcc, -1, {v}\n  s_mov_b32 vcc_hi, 0\n  s_and_saveexec_b64 s[20:21], vcc\n",
       kFailsInHighLanes},
      {"  s_mov_b32 exec_hi, -1\n", kProves},
      {"  s_mov_b32 exec_lo, exec_lo\n", kProves},
      {"  s_mov_b32 exec_hi, exec_lo\n", kProves},  // EXEC is all ones: so is its low half
      {"  v_cmp_ne_u32 s[20:21], -1, {v}\n  s_mov_b32 exec_lo, s20\n", kProves},
      {"  s_mov_b64 vcc, -1\n  s_mov_b32 vcc_lo, -1\n  v_cndmask_b32 {v}, 0, {v}, vcc\n", kProves},
      {"  v_cmp_eq_u32 vcc, 0, {v}\n  v_cndmask_b32 {v}, {v}, 0, vcc\n", kProves},
      {"  v_cmp_ne_u32 vcc, -1, {v}\n  v_addc_co_u32 {v}, vcc, -1, {v}, vcc\n", kProves},
      {"  v_cmp_eq_u32 s[20:21], 0, {v}\n  s_mov_b32 exec_hi, s20\n", kNotProved},
      {"  s_lshl_b32 exec_hi, exec_hi, 1\n", kNotProved},
  };
  const Kernel twin = ::kir::testing::TestdataKernel("copy_f32");
  absl::StatusOr<CopyVoffset> copy = CopyWithVoffset();
  ASSERT_TRUE(copy.ok()) << copy.status();
  for (const Case& c : cases) {
    const std::string insert = absl::StrReplaceAll(c.insert, {{"{v}", copy->reg}});
    for (bool assemble : {false, true}) {  // kirc's reader, and LLVM's assembler then the code object
      CodeInput in;
      in.assembly = Edit(copy->assembly, copy->line, copy->line + insert);
      in.assemble = assemble;
      in.llvm_bin = kLlvmBin;
      absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
      ASSERT_TRUE(v.ok()) << insert << v.status();
      const std::string report = v->Report();
      EXPECT_EQ(v->all_proved, c.expect == kProves) << insert << report;
      // Notes name the halves as written, never by SGPR number (fresh-user
      // review 22 F4: "lane bit of s126", "lane mask s127").
      for (const char* sgpr : {"s126", "s127", "s106", "s107"})
        EXPECT_FALSE(absl::StrContains(report, sgpr)) << insert << report;
      if (c.expect == kProves || c.expect == kNotProved) continue;
      int failed = 0;
      for (const AccessVerdict& a : v->accesses) failed += a.status == AccessVerdict::Status::kFailed;
      EXPECT_GE(failed, 1) << insert << report;
      EXPECT_TRUE(absl::StrContains(report, "counterexample")) << insert << report;
      // Every counterexample's lane ("(wave W, lane L)") is one the edit touches.
      int lanes = 0;
      for (size_t at = report.find("(wave "); at != std::string::npos; at = report.find("(wave ", at + 1)) {
        int lane = -1;
        const size_t from = report.find(", lane ", at) + 7, end = report.find(')', at);
        ASSERT_TRUE(from < end && absl::SimpleAtoi(report.substr(from, end - from), &lane)) << report.substr(at, 30);
        EXPECT_EQ(lane >= 32, c.expect == kFailsInHighLanes) << insert << "lane " << lane << "\n" << report;
        ++lanes;
      }
      EXPECT_GE(lanes, 1) << insert << report;
      // The counterexample's chain names the write as written (not "s127").
      for (const char* w : {"s_mov_b32 exec_hi, 0\n", "s_mov_b32 vcc_hi, 0\n"})
        if (absl::StrContains(insert, w))
          EXPECT_TRUE(absl::StrContains(report, absl::StripSuffix(w, "\n"))) << insert << report;
    }
  }
}


// The concrete wave runner (verify/concrete.h, the verifier's search for
// counterexamples) writes the halves of EXEC and VCC the same way: after
// `s_mov_b32 exec_hi, 0` copy_f32's load and store run with lanes 0..31
// only; with VCC -1 and then vcc_hi 0, v_cndmask keeps the voffset 16 * l
// in lanes l < 32 and selects 0 in the others.
TEST(ForeignCode, ConcreteRunnerWritesHalvesOfExecAndVcc) {
  const Kernel twin = ::kir::testing::TestdataKernel("copy_f32");
  absl::StatusOr<CopyVoffset> copy = CopyWithVoffset();
  ASSERT_TRUE(copy.ok()) << copy.status();
  absl::StatusOr<TargetId> id = ParseTargetId("gfx942");
  ASSERT_TRUE(id.ok()) << id.status();
  struct Case {
    std::string insert;
    uint64_t exec;
    bool high_lanes_zero;  // voffset 0 in lanes 32..63 (else 16 * lane everywhere)
  } cases[] = {
      {"  s_mov_b32 exec_hi, 0\n", 0xffffffffull, false},
      {"  s_mov_b32 exec_lo, 0\n  s_mov_b32 exec_hi, exec_lo\n  s_mov_b32 exec_lo, -1\n", 0xffffffffull, false},
      {"  s_mov_b64 vcc, -1\n  s_mov_b32 vcc_hi, 0\n  v_cndmask_b32 {v}, 0, {v}, vcc\n", ~uint64_t{0}, true},
  };
  for (const Case& c : cases) {
    const std::string insert = absl::StrReplaceAll(c.insert, {{"{v}", copy->reg}});
    CodeInput in;
    in.assembly = Edit(copy->assembly, copy->line, copy->line + insert);
    in.mcpu = "gfx942";
    absl::StatusOr<LoweredKernel> code = LoadCodeForVerify(twin, *id->target, in);
    ASSERT_TRUE(code.ok()) << code.status();
    vfy::ConcreteRunner run(code->kernel, *id->target, *code, 0);
    int seen = 0;
    absl::Status st = run.RunWave({0, 0, 0}, 0, [&](const vfy::MemRecord& r) {
      ++seen;
      EXPECT_EQ(r.exec, c.exec) << insert;
      ASSERT_EQ(r.vaddr.size(), 64u);
      for (int l = 0; l < 64; ++l)
        EXPECT_EQ(r.vaddr[l], c.high_lanes_zero && l >= 32 ? 0u : 16u * l) << insert << " lane " << l;
    });
    EXPECT_TRUE(st.ok()) << st;
    EXPECT_EQ(seen, 2) << insert;
  }
}


// Fresh-user review 21 F2: clang-22's gfx950 fp8 K loop whose global
// addresses are an XOR swizzle computed with v_bitop3_b32 (bitop3:0x48,
// 0x70 & ((t << 4) ^ (t << 1)); testdata/foreign/fp8_swizzle_k_loop.cl, 4
// waves, 8 rolled K tiles of v_mfma_f32_16x16x128_f8f6f4). Every address
// proves within the default budget and backstop. Before, each of its two
// global loads' queries took the whole 20 M-unit budget (unknown, 285-720 s
// each; with the 60 s default backstop the run stopped as
// DeadlineExceeded); now v_bitop3 is its smallest and/or/xor/not form
// (semantics.h Bitop3Plan), the mask reaches the xor's operands and the
// query is split per tid.x (verify.cc Solve): about 29 s for the kernel,
// at most 12 s per access on the shared 2-core machine.
TEST(ForeignCode, ClangFp8SwizzledKLoopProves) {
  const Kernel twin =
      Parse(::kir::testing::ReadTestFile("testdata/foreign/fp8_swizzle_k_loop.kir"), "fp8_swizzle_k_loop.kir");
  absl::StatusOr<std::string> obj = ReadFileBytes("testdata/foreign/fp8_swizzle_k_loop.gfx950.hsaco");
  ASSERT_TRUE(obj.ok()) << obj.status();
  ASSERT_TRUE(absl::StrContains(*obj, std::string("\x02\x01\x34\xd2\x02\x05\x0c\x0c", 8)))
      << "v_bitop3_b32 v2, v2, s2, v3 bitop3:0x48 is not in the code object";
  CodeInput in;
  in.code_object = *obj;
  in.llvm_bin = kLlvmBin;
  absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx950", in);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->all_proved) << v->Report();
  EXPECT_EQ(CountStatus(*v, AccessVerdict::Status::kProved), 12) << v->Report();
  for (const AccessVerdict& a : v->accesses) {
    if (a.status == AccessVerdict::Status::kProved && a.points_checked == 0) {
      EXPECT_LE(a.solver_resources, uint64_t{20'000'000}) << a.inst_text;
    }
  }
}

// Its mutant: the A tile's load `global_load_dwordx4 v[22:25], v[18:19],
// off` (llvm-mc 22 -mcpu=gfx950: 00 80 5c dc 12 00 7f 16) given offset:16
// (10 80 ...) reads the next 16-byte chunk of the row: chunk
// ((t % 8) ^ (t / 8 % 8)) + 1, past the row's end for chunk 7 and another
// K tile's bytes otherwise. It is refused with a confirmed counterexample.
TEST(ForeignCode, ClangFp8SwizzledKLoopOffsetMutantFails) {
  absl::StatusOr<VerifyResult> v;
  ASSERT_NO_FATAL_FAILURE(
      VerifyOffset16Mutant("fp8_swizzle_k_loop", std::string("\x00\x80\x5c\xdc\x12\x00\x7f\x16", 8), &v));
  EXPECT_FALSE(v->all_proved) << v->Report();
  bool failed = false;
  for (const AccessVerdict& a : v->accesses)
    if (absl::StrContains(a.inst_text, "global_load_dwordx4 v[22:25], v[18:19], off offset:16")) {
      EXPECT_EQ(a.status, AccessVerdict::Status::kFailed) << v->Report();
      EXPECT_FALSE(a.counterexample.empty()) << v->Report();  // confirmed concretely (verify.h)
      failed = a.status == AccessVerdict::Status::kFailed;
    }
  EXPECT_TRUE(failed) << v->Report();
}

}  // namespace
}  // namespace kir
