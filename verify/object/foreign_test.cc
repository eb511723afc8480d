// kirc verify on code like other generators' (issue 17): a code object
// without amdhsa.target proves, its target taken from the ELF header and
// checked against --mcpu; code that reads or sets the program counter
// (s_getpc_b64, s_setpc_b64, s_swappc_b64) is unknown, naming the
// instruction; an integer instruction with clamp saturates; an SDWA byte
// select in an address (clang-22's `(t + 1) & 255`) proves, and fails
// against a wrong twin.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/object/toolchain.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"
#include "verify/object/load.h"
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

// An integer instruction with clamp saturates (semantics.h
// EvalIntOpClamped, LoweredKernel::modifiers): copy_f32's byte offset v0 =
// 16 * tid.x put through a signed add of 0x7ffffff0 with clamp and back
// saturates for every tid.x >= 1 (it is then 15), so the access fails with a
// counterexample; read as a wrapping add it would prove. `+ 0 clamp` never
// saturates: proved. An unsigned subtraction of 16 with clamp is 0 for
// tid.x 0 (16 after adding 16 back): failed there.
TEST(ForeignCode, IntegerClampSaturates) {
  const Kernel twin = ::kir::testing::TestdataKernel("copy_f32");
  const std::string at = "  v_lshlrev_b32 v0, 4, v1\n";
  struct Case {
    std::string insert;
    bool proves;
    std::string says;
  } cases[] = {
      {"  v_add_i32 v0, v0, 0x7ffffff0 clamp\n  v_subrev_u32 v0, 0x7ffffff0, v0\n", false, "counterexample"},
      {"  v_add_i32 v0, v0, 0 clamp\n", true, ""},
      {"  v_sub_u32_e64 v0, v0, 16 clamp\n  v_add_u32 v0, 16, v0\n", false, "tid = (0, 0, 0)"},
      {"  v_add_u32_e64 v0, v0, 16 clamp\n  v_subrev_u32 v0, 16, v0\n", true, ""},
  };
  for (const Case& c : cases) {
    CodeInput in;
    in.assembly = Edit(CopyAssembly("gfx942"), at, at + c.insert);
    absl::StatusOr<VerifyResult> v = VerifyCode(twin, "gfx942", in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->all_proved, c.proves) << c.insert << v->Report();
    if (!c.proves) {
      int failed = 0;
      for (const AccessVerdict& a : v->accesses)
        if (a.inst_id >= 0) failed += a.status == AccessVerdict::Status::kFailed;
      EXPECT_GE(failed, 1) << c.insert << v->Report();
      EXPECT_TRUE(absl::StrContains(v->Report(), c.says)) << c.insert << v->Report();
      EXPECT_TRUE(absl::StrContains(v->Report(), "clamp")) << c.insert << v->Report();
    }
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

}  // namespace
}  // namespace kir
