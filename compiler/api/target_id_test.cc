// Issue 7, "outputs a HIP application can use": target IDs with feature
// suffixes (checked in the code object with llvm-readelf against the e_flags
// values of LLVM AMDGPUUsage), several kernels in one code object, several
// target IDs in one clang offload bundle, and XNACK soft clauses (checked with
// a clause checker written here against clang-22's own output).
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/api/compile.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {

using ::kir::testing::ReadTestFile;


Kernel Parse(const std::string& name) { return ::kir::testing::TestdataKernel(name); }

std::string Bin() {
  absl::StatusOr<std::string> b = ResolveLlvmBin(std::nullopt);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *b : "";
}

// Runs an LLVM tool on `bytes` written to a temporary file; its stdout.
std::string RunOnFile(const std::string& tool, std::vector<std::string> args, const std::string& bytes) {
  absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create("target-id-test.");
  EXPECT_TRUE(dir.ok());
  const std::string path = dir->File("input");
  EXPECT_TRUE(WriteFileBytes(path, bytes).ok());
  std::vector<std::string> argv = {Bin() + "/" + tool};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(path);
  absl::StatusOr<ProcessResult> r = RunProcess(argv);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0) << r->stderr_text;
  return r->stdout_text;
}

// The "Flags:" line of `llvm-readelf -h`: its hex value and the rest of the
// line (llvm-readelf's own spelling of the processor and features).
std::pair<uint32_t, std::string> ReadElfFlags(const std::string& elf) {
  std::string out = RunOnFile("llvm-readelf", {"-h"}, elf);
  std::smatch m;
  std::regex re("Flags:\\s+0x([0-9a-fA-F]+),\\s*([^\\n]*)");
  if (!std::regex_search(out, m, re)) {
    ADD_FAILURE() << "no Flags line in:\n" << out;
    return {0, ""};
  }
  return {static_cast<uint32_t>(std::stoul(m[1], nullptr, 16)), m[2]};
}

// e_flags per LLVM AMDGPUUsage ("ELF Header e_flags for Code Object V4 and V5"
// and the EF_AMDGPU_MACH table), written out independently of target.cc.
uint32_t ExpectedFlags(const std::string& proc, char sramecc, char xnack) {
  uint32_t mach = proc == "gfx908" ? 0x030 : proc == "gfx90a" ? 0x03f : 0x04c;
  auto x = xnack == '+' ? 0x300u : xnack == '-' ? 0x200u : 0x100u;     // ON / OFF / ANY
  auto s = sramecc == '+' ? 0xc00u : sramecc == '-' ? 0x800u : 0x400u;  // ON / OFF / ANY
  return mach | x | s;
}

// ---- Parsing ----------------------------------------------------------------

TEST(TargetId, ParsesAndCanonicalizes) {
  struct Case {
    const char* in;
    const char* canonical;
    const char* mattr;
  };
  for (const Case& c : std::vector<Case>{{"gfx908", "gfx908", ""},
                                         {"gfx90a:xnack-", "gfx90a:xnack-", "-xnack"},
                                         {"gfx90a:xnack+", "gfx90a:xnack+", "+xnack"},
                                         {"gfx908:sramecc-", "gfx908:sramecc-", "-sramecc"},
                                         {"gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-", "+sramecc,-xnack"},
                                         // AMDGPUUsage's non-canonical form: any order.
                                         {"gfx942:xnack-:sramecc+", "gfx942:sramecc+:xnack-", "+sramecc,-xnack"}}) {
    absl::StatusOr<TargetId> id = ParseTargetId(c.in);
    ASSERT_TRUE(id.ok()) << c.in << ": " << id.status();
    EXPECT_EQ(id->ToString(), c.canonical);
    EXPECT_EQ(id->Mattr(), c.mattr);
    absl::StatusOr<const TargetInfo*> t = LookupTarget(c.in);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ((*t)->name, std::string(c.in).substr(0, 6));
  }
  absl::StatusOr<TargetId> a = ParseTargetId("gfx90a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->xnack, FeatureSetting::kAny);
  EXPECT_EQ(a->sramecc, FeatureSetting::kAny);
  EXPECT_EQ(ParseTargetId("gfx90a:sramecc-:xnack+")->sramecc, FeatureSetting::kOff);
  EXPECT_EQ(ParseTargetId("gfx90a:sramecc-:xnack+")->xnack, FeatureSetting::kOn);
}

TEST(TargetId, ElfFlagsFollowAmdgpuUsage) {
  for (const char* proc : {"gfx908", "gfx90a", "gfx942"})
    for (char s : {' ', '+', '-'})
      for (char x : {' ', '+', '-'}) {
        std::string id = proc;
        if (s != ' ') id += std::string(":sramecc") + s;
        if (x != ' ') id += std::string(":xnack") + x;
        absl::StatusOr<TargetId> t = ParseTargetId(id);
        ASSERT_TRUE(t.ok()) << id;
        EXPECT_EQ(t->ElfFlags(), ExpectedFlags(proc, s, x)) << id;
      }
}

TEST(TargetId, InvalidIdsAreClearErrors) {
  struct Case {
    const char* id;
    absl::StatusCode code;
    const char* why;
  };
  for (const Case& c : std::vector<Case>{
           {"gfx1100:xnack-", absl::StatusCode::kNotFound, "processor 'gfx1100' is not supported"},
           {"gfx90a:xnack", absl::StatusCode::kInvalidArgument, "must end in + (on) or - (off)"},
           {"gfx90a:foo+", absl::StatusCode::kInvalidArgument, "unknown feature 'foo'"},
           {"gfx942:tgsplit+", absl::StatusCode::kInvalidArgument, "unknown feature 'tgsplit'"},
           {"gfx90a:xnack+:xnack-", absl::StatusCode::kInvalidArgument, "'xnack' appears more than once"},
           {"gfx90a:sramecc+:sramecc+", absl::StatusCode::kInvalidArgument, "'sramecc' appears more than once"},
           {"gfx90a:", absl::StatusCode::kInvalidArgument, "empty feature"},
           {"gfx90a:+", absl::StatusCode::kInvalidArgument, "no feature name"},
           {"gfx90a:+xnack", absl::StatusCode::kInvalidArgument, "must end in + (on) or - (off)"},
           {"gfx90a:xnack-+", absl::StatusCode::kInvalidArgument, "unknown feature 'xnack-'"},
       }) {
    absl::StatusOr<TargetId> id = ParseTargetId(c.id);
    ASSERT_FALSE(id.ok()) << c.id;
    EXPECT_EQ(id.status().code(), c.code) << c.id << ": " << id.status();
    const std::string msg(id.status().message());
    EXPECT_TRUE(absl::StrContains(msg, absl::StrCat("'", c.id, "'"))) << msg;
    EXPECT_TRUE(absl::StrContains(msg, c.why)) << msg;
    EXPECT_TRUE(absl::StrContains(msg, "gfx942:sramecc+:xnack-")) << "lists valid forms: " << msg;
  }
  // A feature the processor lacks: the table says all three have both, so
  // build a processor without xnack to see the check.
  TargetInfo no_xnack = *ParseTargetId("gfx908")->target;
  no_xnack.has_xnack = false;
  TargetId t{&no_xnack, FeatureSetting::kAny, FeatureSetting::kAny};
  EXPECT_EQ(t.ElfFlags() & 0x300u, 0u) << "XNACK unsupported is 0 in e_flags";
}

// ---- Code objects -------------------------------------------------------------

TEST(TargetId, CodeObjectCarriesTheIdInFlagsMetadataAndDirective) {
  const std::string bin = Bin();
  const Kernel k = Parse("copy_f32");
  for (const char* id : {"gfx908", "gfx908:sramecc-", "gfx908:xnack+", "gfx90a:xnack-", "gfx90a:xnack+",
                         "gfx90a:sramecc+:xnack-", "gfx942", "gfx942:sramecc+:xnack-", "gfx942:xnack+"}) {
    SCOPED_TRACE(id);
    CompileOptions o;
    o.mcpu = id;
    absl::StatusOr<CompileResult> r = Compile(k, o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->target_id.ToString(), id);
    EXPECT_TRUE(absl::StrContains(r->assembly, absl::StrCat(".amdgcn_target \"amdgcn-amd-amdhsa--", id, "\"")));
    EXPECT_TRUE(absl::StrContains(r->assembly, absl::StrCat("amdhsa.target: amdgcn-amd-amdhsa--", id, "\n")));
    absl::StatusOr<std::string> obj = CodeObjectFor(*r, bin);
    ASSERT_TRUE(obj.ok()) << obj.status();
    // e_flags as llvm-readelf decodes them.
    const std::string sid = id;
    const std::string proc = sid.substr(0, 6);
    char s = absl::StrContains(sid, "sramecc+") ? '+' : absl::StrContains(sid, "sramecc-") ? '-' : ' ';
    char x = absl::StrContains(sid, "xnack+") ? '+' : absl::StrContains(sid, "xnack-") ? '-' : ' ';
    auto [flags, words] = ReadElfFlags(*obj);
    EXPECT_EQ(flags, ExpectedFlags(proc, s, x)) << words;
    std::vector<std::string> w = absl::StrSplit(words, ", ");
    ASSERT_EQ(w.size(), 3u) << words;
    EXPECT_EQ(w[0], proc);
    EXPECT_EQ(w[1], x == ' ' ? "xnack" : std::string("xnack") + x);
    EXPECT_EQ(w[2], s == ' ' ? "sramecc" : std::string("sramecc") + s);
    // The metadata note's amdhsa.target.
    std::string notes = RunOnFile("llvm-readelf", {"--notes"}, *obj);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(notes, m, std::regex("amdhsa.target:\\s+'?([^'\\n]+)'?")));
    EXPECT_EQ(m[1], absl::StrCat("amdgcn-amd-amdhsa--", id));
  }
}

TEST(TargetId, KernelTargetLineTakesAnId) {
  std::string text = ReadTestFile("testdata/kernels/copy_f32.kir");
  size_t p = text.find("target gfx942");
  ASSERT_NE(p, std::string::npos);
  std::string with_id = text;
  with_id.replace(p, 13, "target gfx942:sramecc+:xnack-");
  absl::StatusOr<Kernel> k = ParseKernel(with_id, "k.kir");
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->target, "gfx942:sramecc+:xnack-");
  absl::StatusOr<CompileResult> r = Compile(*k, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->target_id.ToString(), "gfx942:sramecc+:xnack-");
  absl::StatusOr<std::string> obj = CodeObjectFor(*r, Bin());
  ASSERT_TRUE(obj.ok()) << obj.status();
  EXPECT_EQ(ReadElfFlags(*obj).first, 0x04cu | 0xc00u | 0x200u);
  // --mcpu overrides the line, as for a bare processor.
  CompileOptions o;
  o.mcpu = "gfx90a:xnack+";
  EXPECT_EQ(Compile(*k, o)->target_id.ToString(), "gfx90a:xnack+");
  // A bad ID on the target line is reported at the line.
  std::string bad = text;
  bad.replace(p, 13, "target gfx942:xnack");
  int line = 1;
  for (size_t i = 0; i < p; ++i) line += text[i] == '\n';
  absl::StatusOr<CompileResult> e = CompileText(bad, "k.kir", {});
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(absl::StrContains(e.status().message(), absl::StrCat("k.kir:", line, ":1: error: invalid target ID 'gfx942:xnack'")))
      << e.status();
  // Printing keeps the ID (parse(print(k)) == k).
  absl::StatusOr<Kernel> again = ParseKernel(PrintKernel(*k), "k.kir");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->target, k->target);
}

TEST(TargetId, GemmKeepsTheIdThroughPromotion) {
  CompileOptions o;
  o.mcpu = "gfx90a:xnack-";
  absl::StatusOr<CompileResult> r = Compile(Parse("gemm_f16_256"), o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->target_id.ToString(), "gfx90a:xnack-");
  EXPECT_TRUE(absl::StrContains(r->assembly, "amdgcn-amd-amdhsa--gfx90a:xnack-\""));
}

// ---- Several kernels in one code object --------------------------------------------

TEST(Module, OneCodeObjectListsEveryKernel) {
  const std::string bin = Bin();
  std::vector<ModuleKernel> ks = {{Parse("copy_f32"), "copy_f32.kir"},
                                  {Parse("add_f16"), "add_f16.kir"},
                                  {Parse("mma_16x16x16_f16"), "mma.kir"}};
  for (const char* id : {"gfx908", "gfx90a:xnack-", "gfx942:sramecc+:xnack-"}) {
    SCOPED_TRACE(id);
    CompileOptions o;
    o.mcpu = id;
    absl::StatusOr<ModuleResult> m = CompileModule(ks, o);
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_EQ(m->kernels.size(), 3u);
    auto count = [&](const std::string& what) {
      size_t n = 0;
      for (size_t p = m->assembly.find(what); p != std::string::npos; p = m->assembly.find(what, p + 1)) ++n;
      return n;
    };
    EXPECT_EQ(count(".amdgcn_target"), 1u);
    EXPECT_EQ(count("  .amdgpu_metadata"), 1u);
    EXPECT_EQ(count("  .amdhsa_kernel "), 3u);
    EXPECT_EQ(count("amdhsa.kernels:"), 1u);
    absl::StatusOr<std::string> obj = CodeObjectFor(*m, bin);
    ASSERT_TRUE(obj.ok()) << obj.status();
    absl::StatusOr<std::string> notes_text = ReadElfNotes(bin, *obj);
    ASSERT_TRUE(notes_text.ok());
    absl::StatusOr<std::vector<KernelNotes>> notes = ParseKernelNotes(*notes_text);
    ASSERT_TRUE(notes.ok()) << notes.status();
    ASSERT_EQ(notes->size(), 3u);
    std::string syms = RunOnFile("llvm-readelf", {"--symbols"}, *obj);
    for (size_t i = 0; i < ks.size(); ++i) {
      // Each kernel as compiled alone: same metadata numbers, same own code.
      absl::StatusOr<CompileResult> alone = Compile(ks[i].kernel, o);
      ASSERT_TRUE(alone.ok());
      const KernelNotes& n = (*notes)[i];
      EXPECT_EQ(n.name, ks[i].kernel.name);
      EXPECT_EQ(n.symbol, ks[i].kernel.name + ".kd");
      EXPECT_EQ(n.kernarg_segment_size, alone->lowered.abi.kernarg_size);
      EXPECT_EQ(n.group_segment_fixed_size, alone->resources.lds_bytes);
      EXPECT_EQ(n.vgpr_count, alone->resources.vgpr_count);
      EXPECT_EQ(n.sgpr_count, alone->resources.sgpr_count);
      EXPECT_EQ(m->kernels[i].kernel_asm.code, alone->kernel_asm.code);
      EXPECT_TRUE(absl::StrContains(syms, " " + ks[i].kernel.name + ".kd\n")) << syms;
      EXPECT_TRUE(absl::StrContains(syms, " " + ks[i].kernel.name + "\n")) << syms;
    }
    EXPECT_EQ(ReadElfFlags(*obj).first, ParseTargetId(id)->ElfFlags());
  }
}

TEST(Module, OneKernelModuleIsTheSingleKernelAssembly) {
  for (const char* name : {"copy_f32", "gemm_f16_256"}) {
    Kernel k = Parse(name);
    absl::StatusOr<ModuleResult> m = CompileModule({{k, "x.kir"}}, {});
    ASSERT_TRUE(m.ok()) << m.status();
    absl::StatusOr<CompileResult> r = Compile(k, {});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(m->assembly, r->assembly);
  }
}

TEST(Module, ErrorsNameTheFiles) {
  Kernel copy = Parse("copy_f32"), add = Parse("add_f16");
  absl::StatusOr<ModuleResult> none = CompileModule({}, {});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<ModuleResult> dup = CompileModule({{copy, "a.kir"}, {add, "b.kir"}, {copy, "c.kir"}}, {});
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(absl::StrContains(dup.status().message(), "kernel name 'copy_f32' is used by both a.kir and c.kir"))
      << dup.status();
  Kernel add90 = add;
  add90.target = "gfx90a:xnack-";
  absl::StatusOr<ModuleResult> mixed = CompileModule({{copy, "a.kir"}, {add90, "b.kir"}}, {});
  ASSERT_FALSE(mixed.ok());
  EXPECT_TRUE(absl::StrContains(mixed.status().message(), "a.kir is for gfx942 and b.kir for gfx90a:xnack-"))
      << mixed.status();
  // One --mcpu for all of them resolves it.
  CompileOptions o;
  o.mcpu = "gfx90a:xnack-";
  EXPECT_TRUE(CompileModule({{copy, "a.kir"}, {add90, "b.kir"}}, o).ok());
  Kernel bad = add;
  bad.target = "gfx90a:xnack";
  absl::StatusOr<ModuleResult> e = CompileModule({{copy, "a.kir"}, {bad, "b.kir"}}, {});
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(absl::StrContains(e.status().message(), "b.kir:")) << e.status();
  EXPECT_TRUE(absl::StrContains(e.status().message(), "invalid target ID 'gfx90a:xnack'")) << e.status();
}

// ---- Bundles -------------------------------------------------------------------

TEST(Bundle, EachEntryIsTheCodeObjectCompiledAlone) {
  const std::string bin = Bin();
  const std::vector<std::string> ids = {"gfx90a:xnack-", "gfx942:sramecc+:xnack-", "gfx908"};
  std::vector<ModuleKernel> ks = {{Parse("copy_f32"), "copy_f32.kir"}, {Parse("add_f16"), "add_f16.kir"}};
  std::vector<ModuleResult> modules;
  for (const std::string& id : ids) {
    CompileOptions o;
    o.mcpu = id;
    absl::StatusOr<ModuleResult> m = CompileModule(ks, o);
    ASSERT_TRUE(m.ok()) << m.status();
    modules.push_back(*m);
  }
  absl::StatusOr<std::string> bundle = BundleFor(modules, bin);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_TRUE(absl::StartsWith(*bundle, "__CLANG_OFFLOAD_BUNDLE__"));
  // clang-offload-bundler -list, run here directly.
  std::string listed = RunOnFile("clang-offload-bundler", {"-list", "-type=o", "-input"}, *bundle);
  std::set<std::string> entries;
  for (absl::string_view l : absl::StrSplit(listed, '\n', absl::SkipWhitespace()))
    // It prints the host entry with a trailing '-' (an empty environment).
    entries.insert(std::string(absl::StartsWith(l, "host-") ? absl::StripSuffix(l, "-") : l));
  EXPECT_EQ(entries, (std::set<std::string>{"host-x86_64-unknown-linux-gnu",
                                           "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
                                           "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
                                           "hipv4-amdgcn-amd-amdhsa--gfx908"}))
      << listed;
  for (size_t i = 0; i < ids.size(); ++i) {
    SCOPED_TRACE(ids[i]);
    absl::StatusOr<std::string> alone = CodeObjectFor(modules[i], bin);
    ASSERT_TRUE(alone.ok());
    // -unbundle with the tool directly ...
    absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create("bundle-test.");
    ASSERT_TRUE(dir.ok());
    ASSERT_TRUE(WriteFileBytes(dir->File("b.hipfb"), *bundle).ok());
    absl::StatusOr<ProcessResult> pr = RunProcess(
        {bin + "/clang-offload-bundler", "-unbundle", "-type=o",
         "-targets=hipv4-amdgcn-amd-amdhsa--" + ids[i], "-input=" + dir->File("b.hipfb"),
         "-output=" + dir->File("x.hsaco")});
    ASSERT_TRUE(pr.ok() && pr->exit_code == 0) << (pr.ok() ? pr->stderr_text : pr.status().ToString());
    absl::StatusOr<std::string> extracted = ReadFileBytes(dir->File("x.hsaco"));
    ASSERT_TRUE(extracted.ok());
    EXPECT_TRUE(*extracted == *alone) << "entry differs from the code object compiled alone";
    // ... and with the toolchain wrapper.
    absl::StatusOr<std::string> again = UnbundleCodeObject(bin, *bundle, ids[i]);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE(*again == *alone);
    auto [flags, words] = ReadElfFlags(*extracted);
    EXPECT_EQ(flags, ParseTargetId(ids[i])->ElfFlags()) << words;
    EXPECT_TRUE(absl::StartsWith(words, ids[i].substr(0, 6))) << words;
  }
  absl::StatusOr<std::vector<std::string>> listed2 = ListBundleEntries(bin, *bundle);
  ASSERT_TRUE(listed2.ok());
  EXPECT_EQ(listed2->size(), 4u);
  absl::StatusOr<std::string> missing = UnbundleCodeObject(bin, *bundle, "gfx90a:xnack+");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"))
      << missing.status();
}

TEST(Bundle, RefusesDuplicateAndConflictingIds) {
  auto ids = [](std::vector<const char*> v) {
    std::vector<TargetId> out;
    for (const char* s : v) out.push_back(*ParseTargetId(s));
    return out;
  };
  EXPECT_TRUE(CheckBundleTargets(ids({"gfx90a:xnack-", "gfx90a:xnack+", "gfx942"})).ok());
  EXPECT_TRUE(CheckBundleTargets(ids({"gfx90a", "gfx942"})).ok());
  absl::Status dup = CheckBundleTargets(ids({"gfx90a:xnack-", "gfx942", "gfx90a:xnack-"}));
  EXPECT_TRUE(absl::StrContains(dup.message(), "gfx90a:xnack- is given twice")) << dup;
  absl::Status conflict = CheckBundleTargets(ids({"gfx90a", "gfx90a:xnack-"}));
  EXPECT_EQ(conflict.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(conflict.message(), "gfx90a and gfx90a:xnack- cannot share a bundle")) << conflict;
  EXPECT_FALSE(CheckBundleTargets(ids({"gfx942:sramecc+:xnack-", "gfx942:xnack+"})).ok());
  EXPECT_FALSE(CheckBundleTargets({}).ok());
}

// ---- XNACK soft clauses ------------------------------------------------------------

// LLVM's soft-clause rule, written here over assembly text (kirc's .s or
// clang -S): in a run of consecutive VMEM (or SMEM) instructions, once the run
// has a def, a store may not join it and no def may overlap a use (a d16 load
// reads its destination). Returns the number of violations.
int SoftClauseViolations(const std::string& asm_text, std::string* first = nullptr) {
  using Unit = std::pair<char, int>;
  std::regex reg_re("^([vsa])(?:\\[(\\d+):(\\d+)\\]|(\\d+))$");
  auto regs = [&](const std::string& tok) {
    std::set<Unit> out;
    std::smatch m;
    if (std::regex_match(tok, m, reg_re)) {
      int lo = m[2].matched ? std::stoi(m[2]) : std::stoi(m[4]);
      int hi = m[2].matched ? std::stoi(m[3]) : lo;
      for (int r = lo; r <= hi; ++r) out.insert({m[1].str()[0], r});
    }
    return out;
  };
  int violations = 0;
  char run_kind = 0;
  std::set<Unit> defs, uses;
  for (absl::string_view raw : absl::StrSplit(asm_text, '\n')) {
    std::string line(raw.substr(0, std::min(raw.find("//"), raw.find(';'))));
    line = std::string(absl::StripAsciiWhitespace(line));
    if (line.empty() || line[0] == '.' || line.back() == ':') continue;  // directive, label
    std::vector<std::string> toks = absl::StrSplit(line, absl::ByAnyChar(" ,\t"), absl::SkipEmpty());
    const std::string& mn = toks[0];
    char kind = absl::StartsWith(mn, "buffer_") || absl::StartsWith(mn, "global_") ? 'v'
                : absl::StartsWith(mn, "s_load") || absl::StartsWith(mn, "s_buffer_load") ? 's'
                                                                                          : 0;
    if (kind != run_kind) defs.clear(), uses.clear();
    run_kind = kind;
    if (kind == 0) continue;
    bool store = absl::StrContains(mn, "store");
    std::set<Unit> d, u;
    for (size_t i = 1; i < toks.size(); ++i) {
      std::set<Unit> r = regs(toks[i]);
      (i == 1 && !store ? d : u).insert(r.begin(), r.end());
    }
    if (absl::StrContains(mn, "_d16") && !store) u.insert(d.begin(), d.end());
    bool bad = false;
    if (!defs.empty()) {
      std::set<Unit> dd = defs, uu = uses;
      dd.insert(d.begin(), d.end());
      uu.insert(u.begin(), u.end());
      for (const Unit& x : dd) bad = bad || uu.count(x);
      bad = bad || store;
    }
    if (bad) {
      if (violations++ == 0 && first != nullptr) *first = line;
      defs.clear(), uses.clear();
    }
    defs.insert(d.begin(), d.end());
    uses.insert(u.begin(), u.end());
  }
  return violations;
}

TEST(XnackSoftClauses, TheCheckerAgreesWithClang) {
  // Two adjacent loads where the first overwrites its own address: clang-22
  // separates them with s_nop 0 for xnack any/+ and not for xnack-.
  const char* kSource =
      "kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
      "void sum2(const global half4* restrict x, const global half4* restrict y,\n"
      "          global half4* restrict out) {\n"
      "  const uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();\n"
      "  out[i] = x[i] + y[i];\n"
      "}\n";
  absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create("clause-test.");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFileBytes(dir->File("sum2.cl"), kSource).ok());
  for (const char* proc : {"gfx908", "gfx90a", "gfx942"})
    for (const char* x : {"", ":xnack+", ":xnack-"}) {
      std::string mcpu = absl::StrCat(proc, x);
      absl::StatusOr<ProcessResult> r = RunProcess(
          {Bin() + "/clang", "-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header",
           "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O3", "-mcpu=" + mcpu, "-S",
           dir->File("sum2.cl"), "-o", "-"});
      ASSERT_TRUE(r.ok() && r->exit_code == 0) << mcpu << (r.ok() ? r->stderr_text : "");
      int v = SoftClauseViolations(r->stdout_text);
      if (std::string(x) == ":xnack-") {
        EXPECT_GE(v, 1) << mcpu << ": clang keeps the clause, the checker must see it";
      } else {
        EXPECT_EQ(v, 0) << mcpu << ": clang broke every clause";
        EXPECT_TRUE(absl::StrContains(r->stdout_text, "s_nop 0")) << mcpu;
      }
    }
}

TEST(XnackSoftClauses, KircBreaksClausesUnlessXnackIsOff) {
  int violations_off = 0;
  for (const char* name : {"copy_f32", "add_f16", "mma_16x16x16_f16", "mma_16x16x16_bf16", "mma_32x32x8_f16",
                           "mma_loop_32x32x64_f16", "gemm_f16_256", "gemm_f16_km_kn", "gemm_bf16_edge"}) {
    Kernel k = Parse(name);
    for (const char* proc : {"gfx908", "gfx90a", "gfx942"}) {
      if (std::string(name) == "mma_16x16x16_bf16" && std::string(proc) == "gfx908") continue;
      for (const char* x : {"", ":xnack+", ":xnack-"}) {
        CompileOptions o;
        o.mcpu = absl::StrCat(proc, x);
        absl::StatusOr<CompileResult> r = Compile(k, o);
        ASSERT_TRUE(r.ok()) << name << " " << o.mcpu << ": " << r.status();
        std::string first;
        int v = SoftClauseViolations(r->assembly, &first);
        if (std::string(x) == ":xnack-") {
          violations_off += v;
        } else {
          EXPECT_EQ(v, 0) << name << " on " << o.mcpu << ": " << first;
        }
      }
    }
  }
  // The edge GEMM's guarded d16 loads need the nops: without them (xnack-)
  // the checker finds the clauses, so this test does look at real cases.
  EXPECT_GT(violations_off, 0);
}

}  // namespace
}  // namespace kir
