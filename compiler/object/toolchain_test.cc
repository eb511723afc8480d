#include "compiler/object/toolchain.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/object/code_object_layout.h"
#include "compiler/object/code_object_linker.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/llvm_in_process.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

// EXPECT_HAS_SUBSTR(text, part) without gmock.
#define EXPECT_HAS_SUBSTR(text, part)                                   \
  do {                                                                  \
    const std::string kirc_text_(text);                                 \
    const std::string kirc_part_(part);                                 \
    EXPECT_TRUE(absl::StrContains(kirc_text_, kirc_part_))              \
        << "expected to contain \"" << kirc_part_ << "\" in:\n" << kirc_text_; \
  } while (0)

std::string Runfile(const std::string& rel) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr) return rel;  // run by hand from the workspace root
  return absl::StrCat(srcdir, "/", ws != nullptr ? ws : "kirc", "/", rel);
}

std::string ReadTestdata(const std::string& name) {
  absl::StatusOr<std::string> text = ReadFileBytes(Runfile("compiler/object/testdata/" + name));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

std::string LlvmBin() {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  EXPECT_TRUE(bin.ok()) << bin.status();
  return bin.ok() ? *bin : kDefaultLlvmBin;
}

// The YAML between .amdgpu_metadata and .end_amdgpu_metadata of a .s file.
std::string MetadataBlock(const std::string& asm_text) {
  size_t begin = asm_text.find(".amdgpu_metadata");
  size_t end = asm_text.find(".end_amdgpu_metadata");
  if (begin == std::string::npos || end == std::string::npos) return "";
  begin += std::string(".amdgpu_metadata").size();
  return asm_text.substr(begin, end - begin);
}

// Sets or unsets an environment variable for the lifetime of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// ---------------------------------------------------------------------------
// ResolveLlvmBin / FindTool

TEST(ResolveLlvmBinTest, FlagWinsAndIsChecked) {
  ScopedEnv env("KIRC_LLVM_BIN", "/nonexistent/from-env");
  absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create();
  ASSERT_TRUE(dir.ok()) << dir.status();
  absl::StatusOr<std::string> bin = ResolveLlvmBin(dir->path());
  ASSERT_TRUE(bin.ok()) << bin.status();
  EXPECT_EQ(*bin, dir->path());

  absl::StatusOr<std::string> bad = ResolveLlvmBin(std::string("/nonexistent/from-flag"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_HAS_SUBSTR(std::string(bad.status().message()), "/nonexistent/from-flag");
  EXPECT_HAS_SUBSTR(std::string(bad.status().message()), "--llvm-bin");

  absl::StatusOr<std::string> empty = ResolveLlvmBin(std::string());
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ResolveLlvmBinTest, EnvironmentThenDefault) {
  {
    ScopedEnv env("KIRC_LLVM_BIN", "/nonexistent/from-env");
    absl::StatusOr<std::string> bad = ResolveLlvmBin(std::nullopt);
    ASSERT_FALSE(bad.ok());
    EXPECT_HAS_SUBSTR(std::string(bad.status().message()), "KIRC_LLVM_BIN");
    EXPECT_HAS_SUBSTR(std::string(bad.status().message()), "/nonexistent/from-env");
  }
  {
    absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create();
    ASSERT_TRUE(dir.ok());
    ScopedEnv env("KIRC_LLVM_BIN", dir->path().c_str());
    absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
    ASSERT_TRUE(bin.ok()) << bin.status();
    EXPECT_EQ(*bin, dir->path());
  }
  for (const char* value : {static_cast<const char*>(nullptr), ""}) {
    ScopedEnv env("KIRC_LLVM_BIN", value);
    absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
    ASSERT_TRUE(bin.ok()) << bin.status();
    EXPECT_EQ(*bin, kDefaultLlvmBin);
  }
}

TEST(FindToolTest, FindsTheInstalledTools) {
  std::string bin = LlvmBin();
  for (const char* tool : {"llvm-mc", "ld.lld", "llvm-objdump", "llvm-readelf", "FileCheck"}) {
    absl::StatusOr<std::string> path = FindTool(bin, tool);
    ASSERT_TRUE(path.ok()) << path.status();
    EXPECT_EQ(*path, absl::StrCat(bin, "/", tool));
  }
}

TEST(FindToolTest, MissingToolNamesPathAndPackage) {
  const std::string bogus = "/nonexistent/llvm/bin";
  struct Case {
    const char* tool;
    const char* package;
  };
  for (const Case& c : {Case{"llvm-mc", "llvm-22"}, Case{"ld.lld", "lld-22"},
                        Case{"llvm-objdump", "llvm-22"}, Case{"llvm-readelf", "llvm-22"},
                        Case{"FileCheck", "llvm-22-tools"}, Case{"clang", "clang-22"}}) {
    absl::StatusOr<std::string> path = FindTool(bogus, c.tool);
    ASSERT_FALSE(path.ok()) << c.tool;
    EXPECT_EQ(path.status().code(), absl::StatusCode::kNotFound);
    std::string msg(path.status().message());
    EXPECT_HAS_SUBSTR(msg, absl::StrCat(bogus, "/", c.tool));
    EXPECT_HAS_SUBSTR(msg, absl::StrCat("Debian package ", c.package, ")"));
    EXPECT_HAS_SUBSTR(msg, "third_party/install_deps.sh");
    EXPECT_HAS_SUBSTR(msg, "KIRC_LLVM_BIN");
  }
}

TEST(FindToolTest, NonExecutableIsRejected) {
  absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create();
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFileBytes(dir->File("llvm-mc"), "not a program").ok());
  absl::StatusOr<std::string> path = FindTool(dir->path(), "llvm-mc");
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_HAS_SUBSTR(std::string(path.status().message()), "llvm-22");
}

// ---------------------------------------------------------------------------
// Building code objects

void ExpectAmdgpuSharedObject(const std::string& elf) {
  ASSERT_GE(elf.size(), 64u);
  EXPECT_EQ(elf.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(elf[4], 2);                                       // ELFCLASS64
  EXPECT_EQ(elf[5], 1);                                       // little endian
  EXPECT_EQ(static_cast<unsigned char>(elf[16]), 3);          // ET_DYN
  EXPECT_EQ(static_cast<unsigned char>(elf[18]), 0xE0);       // EM_AMDGPU = 224
}

TEST(BuildCodeObjectTest, AddOneBuffer) {
  const std::string bin = LlvmBin();
  const std::string src = ReadTestdata("add_one_buffer_gfx942.s");

  absl::StatusOr<std::string> obj = AssembleToObject(bin, src, "gfx942");
  ASSERT_TRUE(obj.ok()) << obj.status();
  EXPECT_TRUE(HasElfMagic(*obj));
  EXPECT_EQ(static_cast<unsigned char>((*obj)[16]), 1);  // ET_REL

  absl::StatusOr<std::string> hsaco = BuildCodeObject(bin, src, "gfx942");
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  ExpectAmdgpuSharedObject(*hsaco);

  absl::StatusOr<std::string> notes = ReadElfNotes(bin, *hsaco);
  ASSERT_TRUE(notes.ok()) << notes.status();
  EXPECT_HAS_SUBSTR(*notes, "NT_AMDGPU_METADATA");
  absl::StatusOr<std::vector<KernelNotes>> kernels = ParseKernelNotes(*notes);
  ASSERT_TRUE(kernels.ok()) << kernels.status() << "\n" << *notes;
  ASSERT_EQ(kernels->size(), 1u);
  const KernelNotes& k = (*kernels)[0];
  EXPECT_EQ(k.name, "add_one_buffer");
  EXPECT_EQ(k.symbol, "add_one_buffer.kd");
  EXPECT_EQ(k.kernarg_segment_size, 24);
  EXPECT_EQ(k.group_segment_fixed_size, 0);
  EXPECT_EQ(k.private_segment_fixed_size, 0);
  EXPECT_EQ(k.sgpr_count, 20);
  EXPECT_EQ(k.vgpr_count, 3);
  EXPECT_EQ(k.agpr_count, 0);
  EXPECT_EQ(k.max_flat_workgroup_size, 256);
  EXPECT_EQ(k.wavefront_size, 64);
  ASSERT_EQ(k.args.size(), 3u);
  EXPECT_EQ(k.args[0].name, "in");
  EXPECT_EQ(k.args[0].offset, 0);
  EXPECT_EQ(k.args[0].size, 8);
  EXPECT_EQ(k.args[0].value_kind, "global_buffer");
  EXPECT_EQ(k.args[0].actual_access, "read_only");
  EXPECT_EQ(k.args[1].name, "out");
  EXPECT_EQ(k.args[1].offset, 8);
  EXPECT_EQ(k.args[1].size, 8);
  EXPECT_EQ(k.args[1].actual_access, "write_only");
  EXPECT_EQ(k.args[2].name, "n_elems");
  EXPECT_EQ(k.args[2].offset, 16);
  EXPECT_EQ(k.args[2].size, 4);
  EXPECT_EQ(k.args[2].value_kind, "by_value");
  EXPECT_EQ(k.args[2].actual_access, "");

  // The metadata the assembler kept is the one written in the .s file.
  absl::StatusOr<std::vector<KernelNotes>> from_source = ParseKernelNotes(MetadataBlock(src));
  ASSERT_TRUE(from_source.ok()) << from_source.status();
  ASSERT_EQ(from_source->size(), 1u);
  const KernelNotes& s = (*from_source)[0];
  EXPECT_EQ(s.name, k.name);
  EXPECT_EQ(s.kernarg_segment_size, k.kernarg_segment_size);
  EXPECT_EQ(s.vgpr_count, k.vgpr_count);
  EXPECT_EQ(s.sgpr_count, k.sgpr_count);
  EXPECT_EQ(s.max_flat_workgroup_size, k.max_flat_workgroup_size);
  ASSERT_EQ(s.args.size(), k.args.size());
  for (size_t i = 0; i < s.args.size(); ++i) {
    EXPECT_EQ(s.args[i].offset, k.args[i].offset);
    EXPECT_EQ(s.args[i].size, k.args[i].size);
    EXPECT_EQ(s.args[i].name, k.args[i].name);
  }
}

TEST(BuildCodeObjectTest, MfmaTile) {
  const std::string bin = LlvmBin();
  const std::string src = ReadTestdata("mfma_16x16x16_f16_gfx942.s");
  absl::StatusOr<std::string> hsaco = BuildCodeObject(bin, src, "gfx942");
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  ExpectAmdgpuSharedObject(*hsaco);

  absl::StatusOr<std::string> notes = ReadElfNotes(bin, *hsaco);
  ASSERT_TRUE(notes.ok()) << notes.status();
  absl::StatusOr<std::vector<KernelNotes>> kernels = ParseKernelNotes(*notes);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 1u);
  const KernelNotes& k = (*kernels)[0];
  EXPECT_EQ(k.name, "mfma_tile");
  EXPECT_EQ(k.kernarg_segment_size, 24);
  EXPECT_EQ(k.sgpr_count, 24);
  EXPECT_EQ(k.vgpr_count, 16);
  EXPECT_EQ(k.agpr_count, 0);
  EXPECT_EQ(k.max_flat_workgroup_size, 64);
  EXPECT_EQ(k.wavefront_size, 64);
  ASSERT_EQ(k.args.size(), 3u);
  const char* names[] = {"A", "BT", "D"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(k.args[i].name, names[i]);
    EXPECT_EQ(k.args[i].offset, static_cast<int64_t>(8 * i));
    EXPECT_EQ(k.args[i].size, 8);
    EXPECT_EQ(k.args[i].value_kind, "global_buffer");
  }
  EXPECT_EQ(k.args[2].actual_access, "write_only");

  // The code object disassembles to the MFMA we wrote.
  absl::StatusOr<std::string> objdump = FindTool(bin, "llvm-objdump");
  ASSERT_TRUE(objdump.ok()) << objdump.status();
  absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create();
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFileBytes(dir->File("mfma.hsaco"), *hsaco).ok());
  absl::StatusOr<ProcessResult> dis =
      RunProcess({*objdump, "-d", "--mcpu=gfx942", dir->File("mfma.hsaco")});
  ASSERT_TRUE(dis.ok()) << dis.status();
  EXPECT_EQ(dis->exit_code, 0) << dis->stderr_text;
  EXPECT_HAS_SUBSTR(dis->stdout_text, "v_mfma_f32_16x16x16_f16");
}

TEST(BuildCodeObjectTest, BadAssemblyReportsLlvmMcDiagnostics) {
  const std::string bin = LlvmBin();
  absl::StatusOr<std::string> obj =
      AssembleToObject(bin, "  s_nop 0\n  v_bogus_op v0, v1\n", "gfx942");
  ASSERT_FALSE(obj.ok());
  EXPECT_EQ(obj.status().code(), absl::StatusCode::kInvalidArgument);
  std::string msg(obj.status().message());
  EXPECT_HAS_SUBSTR(msg, "llvm-mc");
  EXPECT_HAS_SUBSTR(msg, "<stdin>:2:");
  EXPECT_HAS_SUBSTR(msg, "invalid instruction");
  EXPECT_HAS_SUBSTR(msg, "v_bogus_op");

  absl::StatusOr<std::string> hsaco = BuildCodeObject(bin, "v_bogus_op v0\n", "gfx942");
  ASSERT_FALSE(hsaco.ok());
  EXPECT_HAS_SUBSTR(std::string(hsaco.status().message()), "invalid instruction");

  // The tool as a process gives the same diagnostics.
  absl::StatusOr<std::string> tool = AssembleWithLlvmMc(bin, "  s_nop 0\n  v_bogus_op v0, v1\n", "gfx942");
  ASSERT_FALSE(tool.ok());
  EXPECT_EQ(tool.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(tool.status().message()), "llvm-mc failed");
  EXPECT_HAS_SUBSTR(std::string(tool.status().message()), "<stdin>:2:3: error: invalid instruction");
}

TEST(BuildCodeObjectTest, WrongOrUnknownProcessor) {
  const std::string bin = LlvmBin();
  const std::string src = ReadTestdata("add_one_buffer_gfx942.s");
  absl::StatusOr<std::string> mismatch = AssembleToObject(bin, src, "gfx90a");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_HAS_SUBSTR(std::string(mismatch.status().message()), "does not match");

  absl::StatusOr<std::string> unknown = AssembleToObject(bin, "s_endpgm\n", "gfx999");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(unknown.status().message()), "gfx999");

  EXPECT_FALSE(AssembleToObject(bin, "s_endpgm\n", "").ok());
}

TEST(BuildCodeObjectTest, NonElfInputsAreRejected) {
  const std::string bin = LlvmBin();
  EXPECT_EQ(LinkCodeObject(bin, "garbage").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadElfNotes(bin, "garbage").status().code(), absl::StatusCode::kInvalidArgument);
  // ELF magic but truncated: the reader's own diagnostics come back, in
  // process and from the tool.
  const std::string truncated("\x7f" "ELF\x02\x01", 6);
  absl::StatusOr<std::string> notes = ReadElfNotes(bin, truncated);
  ASSERT_FALSE(notes.ok()) << *notes;
  EXPECT_EQ(notes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(notes.status().message()), "smaller than an ELF header");
  absl::StatusOr<std::string> tool = ReadNotesWithLlvmReadelf(bin, truncated);
  ASSERT_FALSE(tool.ok());
  EXPECT_HAS_SUBSTR(std::string(tool.status().message()), "llvm-readelf");
  EXPECT_EQ(DisassembleSymbol(bin, truncated, "k", "gfx942").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LinkCodeObject(bin, truncated).status().code(), absl::StatusCode::kInvalidArgument);
}

// e_flags of an ELF64 file: 4 little-endian bytes at offset 48.
uint32_t ElfFlags(const std::string& elf) {
  EXPECT_GE(elf.size(), 52u);
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(elf[48 + i]);
  return v;
}

// The add_one kernel with its `.amdgcn_target` set to `target_id`.
std::string AddOneFor(const std::string& target_id) {
  std::string src = ReadTestdata("add_one_buffer_gfx942.s");
  const std::string dir = ".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"";
  size_t p = src.find(dir);
  EXPECT_NE(p, std::string::npos);
  src.replace(p, dir.size(), ".amdgcn_target \"amdgcn-amd-amdhsa--" + target_id + "\"");
  return src;
}

TEST(BuildCodeObjectTest, TargetIdFeaturesBecomeMattr) {
  const std::string bin = LlvmBin();
  // AMDGPUUsage: EF_AMDGPU_MACH_AMDGCN_GFX942 0x04c, XNACK any/off/on
  // 0x100/0x200/0x300, SRAMECC any/off/on 0x400/0x800/0xc00.
  struct Case {
    const char* id;
    uint32_t flags;
  };
  for (const Case& c : {Case{"gfx942", 0x54c}, Case{"gfx942:xnack-", 0x64c},
                        Case{"gfx942:xnack+", 0x74c}, Case{"gfx942:sramecc-", 0x94c},
                        Case{"gfx942:sramecc+:xnack-", 0xe4c}}) {
    absl::StatusOr<std::string> hsaco = BuildCodeObject(bin, AddOneFor(c.id), c.id);
    ASSERT_TRUE(hsaco.ok()) << c.id << ": " << hsaco.status();
    EXPECT_EQ(ElfFlags(*hsaco), c.flags) << c.id;
  }
  // The directive and the ID must agree (llvm-mc checks it).
  absl::StatusOr<std::string> mismatch = AssembleToObject(bin, AddOneFor("gfx942"), "gfx942:xnack-");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_HAS_SUBSTR(std::string(mismatch.status().message()), "does not match");
  absl::StatusOr<std::string> bad = AssembleToObject(bin, "s_endpgm\n", "gfx942:xnack");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(bad.status().message()), "without a trailing + or -");
}

TEST(BundleTest, BundleListUnbundle) {
  const std::string bin = LlvmBin();
  absl::StatusOr<std::string> a = BuildCodeObject(bin, AddOneFor("gfx942:xnack-"), "gfx942:xnack-");
  absl::StatusOr<std::string> b = BuildCodeObject(bin, AddOneFor("gfx942:xnack+"), "gfx942:xnack+");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(HipBundleEntryId("gfx942:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-");
  absl::StatusOr<std::string> bundle =
      BundleCodeObjects(bin, {{"gfx942:xnack-", *a}, {"gfx942:xnack+", *b}});
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_TRUE(HasOffloadBundleMagic(*bundle));
  absl::StatusOr<std::vector<std::string>> ids = ListBundleEntries(bin, *bundle);
  ASSERT_TRUE(ids.ok()) << ids.status();
  std::vector<std::string> sorted = *ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{"hipv4-amdgcn-amd-amdhsa--gfx942:xnack+",
                                              "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-",
                                              "host-x86_64-unknown-linux-gnu-"}));
  absl::StatusOr<std::string> back = UnbundleCodeObject(bin, *bundle, "gfx942:xnack+");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == *b);
  EXPECT_EQ(UnbundleCodeObject(bin, *bundle, "gfx90a").status().code(), absl::StatusCode::kNotFound);
  // Errors: nothing to bundle, a non-ELF entry, the bundler's own refusal.
  EXPECT_EQ(BundleCodeObjects(bin, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BundleCodeObjects(bin, {{"gfx942", "garbage"}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::string> conflict = BundleCodeObjects(bin, {{"gfx942", *a}, {"gfx942:xnack-", *a}});
  ASSERT_FALSE(conflict.ok());
  EXPECT_HAS_SUBSTR(std::string(conflict.status().message()), "conflicting targets");
  EXPECT_EQ(ListBundleEntries(bin, *a).status().code(), absl::StatusCode::kInvalidArgument);
}

// The in-process bundle writer and reader against clang-offload-bundler: the
// same bytes, the same entries, and the same refusals of conflicting target
// IDs.
TEST(BundleTest, InProcessMatchesClangOffloadBundler) {
  const std::string bin = LlvmBin();
  std::map<std::string, std::string> objects;
  for (const char* id : {"gfx942", "gfx942:xnack-", "gfx942:xnack+", "gfx942:sramecc+:xnack-", "gfx90a",
                         "gfx90a:xnack-"}) {
    absl::StatusOr<std::string> o = BuildCodeObject(bin, AddOneFor(id), id);
    ASSERT_TRUE(o.ok()) << id << ": " << o.status();
    objects[id] = *o;
  }
  const std::vector<std::vector<std::string>> sets = {
      {"gfx942"},
      {"gfx942:xnack-", "gfx942:xnack+"},
      {"gfx90a:xnack-", "gfx942:sramecc+:xnack-", "gfx942:xnack+"},
      {"gfx942", "gfx942:xnack-"},                  // refused: "any" next to "-"
      {"gfx942:xnack-", "gfx942"},                  // the same set in another order
      {"gfx942:sramecc+:xnack-", "gfx942:xnack-"},  // accepted by clang's rule
      {"gfx942:xnack-", "gfx942:sramecc+:xnack-"},  // refused by it
      {"gfx90a", "gfx90a:xnack-", "gfx942"},
  };
  for (const std::vector<std::string>& set : sets) {
    SCOPED_TRACE(absl::StrJoin(set, ","));
    std::vector<BundleEntry> entries;
    for (const std::string& id : set) entries.push_back({id, objects[id]});
    absl::StatusOr<std::string> mine = BundleCodeObjects(kDefaultLlvmBin, entries);
    absl::StatusOr<std::string> tool = BundleWithClangOffloadBundler(bin, entries);
    ASSERT_EQ(mine.ok(), tool.ok()) << (mine.ok() ? tool.status() : mine.status());
    if (!mine.ok()) {
      EXPECT_HAS_SUBSTR(std::string(mine.status().message()), "conflicting targets");
      continue;
    }
    EXPECT_TRUE(*mine == *tool) << "bundles differ: " << mine->size() << " vs " << tool->size() << " bytes";
    absl::StatusOr<std::vector<std::string>> ids = ListBundleEntries(kDefaultLlvmBin, *tool);
    absl::StatusOr<std::vector<std::string>> tool_ids = ListBundleEntriesWithClangOffloadBundler(bin, *tool);
    ASSERT_TRUE(ids.ok() && tool_ids.ok());
    std::vector<std::string> a = *ids, b = *tool_ids;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    for (const std::string& id : set) {
      absl::StatusOr<std::string> back = UnbundleCodeObject(kDefaultLlvmBin, *tool, id);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_TRUE(*back == objects[id]);
    }
  }
}

TEST(BundleTest, CorruptBundlesAreErrors) {
  const std::string bin = LlvmBin();
  absl::StatusOr<std::string> o = BuildCodeObject(bin, AddOneFor("gfx942"), "gfx942");
  ASSERT_TRUE(o.ok());
  absl::StatusOr<std::string> bundle = BundleCodeObjects(kDefaultLlvmBin, {{"gfx942", *o}});
  ASSERT_TRUE(bundle.ok());
  // Cut anywhere: the header or an entry is then short, never read past the end.
  for (size_t cut : {size_t{24}, size_t{30}, size_t{40}, size_t{100}, bundle->size() - 1}) {
    absl::StatusOr<std::string> back = UnbundleCodeObject(kDefaultLlvmBin, bundle->substr(0, cut), "gfx942");
    EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument) << cut << ": " << back.status();
  }
  std::string huge = *bundle;
  huge[24] = '\xff';  // an entry count no file holds
  EXPECT_EQ(ListBundleEntries(kDefaultLlvmBin, huge).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BuildCodeObjectTest, MissingToolIsReported) {
  absl::StatusOr<std::string> obj = AssembleToObject("/nonexistent/bin", "s_endpgm\n", "gfx942");
  ASSERT_FALSE(obj.ok());
  EXPECT_EQ(obj.status().code(), absl::StatusCode::kNotFound);
  EXPECT_HAS_SUBSTR(std::string(obj.status().message()), "llvm-22");
}

// ---------------------------------------------------------------------------
// In process (llvm_in_process.h)

TEST(InProcessTest, DefaultDirectoryIsInProcessOthersRunTools) {
  EXPECT_TRUE(UsesInProcessLlvm(kDefaultLlvmBin));
  EXPECT_TRUE(UsesInProcessLlvm(std::string(kDefaultLlvmBin) + "/"));
  EXPECT_FALSE(UsesInProcessLlvm("/nonexistent/bin"));
  EXPECT_FALSE(UsesInProcessLlvm("/usr/bin"));
}

// Assembly of a gfx942 function symbol `k` (no kernel descriptor): `body`,
// then s_endpgm.
std::string FunctionK(const std::string& body) {
  return "  .amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n  .text\n  .globl k\n  .type k,@function\nk:\n" + body +
         "  s_endpgm\n.Lk_end:\n  .size k, .Lk_end-k\n";
}

TEST(InProcessTest, DisassemblyNamesMissingSymbolsAndUndecodableBytes) {
  const std::string bin = LlvmBin();
  absl::StatusOr<std::string> hsaco = BuildCodeObject(bin, ReadTestdata("add_one_buffer_gfx942.s"), "gfx942");
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  absl::StatusOr<std::string> dis = DisassembleSymbol(bin, *hsaco, "add_one_buffer", "gfx942");
  ASSERT_TRUE(dis.ok()) << dis.status();
  EXPECT_HAS_SUBSTR(*dis, "<add_one_buffer>:");
  EXPECT_HAS_SUBSTR(*dis, "s_endpgm");
  EXPECT_EQ(DisassembleSymbol(bin, *hsaco, "no_such_kernel", "gfx942").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(DisassembleSymbol(bin, *hsaco, "add_one_buffer", "gfx999").status().code(),
            absl::StatusCode::kInvalidArgument);
  // A dword no instruction starts with (0xFFFFFFFF) inside the kernel's code.
  absl::StatusOr<std::string> bad = BuildCodeObject(bin, FunctionK("  s_nop 0\n  .long 0xffffffff\n"), "gfx942");
  ASSERT_TRUE(bad.ok()) << bad.status();
  absl::StatusOr<std::string> bad_dis = DisassembleSymbol(bin, *bad, "k", "gfx942");
  ASSERT_FALSE(bad_dis.ok());
  EXPECT_EQ(bad_dis.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(bad_dis.status().message()), "0xFFFFFFFF");
  EXPECT_HAS_SUBSTR(std::string(bad_dis.status().message()), "does not decode");
}

// LLVM 22's readers crash on some malformed bytes (llvm-readelf and
// llvm-objdump do too); in process that is an error and the process goes on.
TEST(InProcessTest, LlvmCrashesOnMalformedBytesAreErrors) {
  const std::string bin = LlvmBin();
  // A code object whose metadata note has one byte changed, as a review's
  // fuzzing found: the header of the key ".args" (0xa5, a 5-byte fixstr)
  // becomes 0x90, an empty array, so a map key is an array; LLVM 22's
  // MessagePack printer crashes on it (llvm-readelf --notes does too).
  absl::StatusOr<std::string> good_note = BuildCodeObject(bin, ReadTestdata("add_one_buffer_gfx942.s"), "gfx942");
  ASSERT_TRUE(good_note.ok()) << good_note.status();
  std::string corrupt_note = *good_note;
  const std::string key = "\xa5.args";
  const size_t at = corrupt_note.find(key);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(corrupt_note.find(key, at + 1), std::string::npos);
  corrupt_note[at] = static_cast<char>(0x90);
  absl::StatusOr<std::string> notes = ReadElfNotes(bin, corrupt_note);
  ASSERT_FALSE(notes.ok()) << *notes;
  EXPECT_EQ(notes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(notes.status().message()), "LLVM 22 crashed on this input");
  // A MUBUF encoding with soffset 0xff: LLVM 22's disassembler crashes.
  absl::StatusOr<std::string> mubuf =
      BuildCodeObject(bin, FunctionK("  .long 0xe0541000\n  .long 0xff020801\n"), "gfx942");
  ASSERT_TRUE(mubuf.ok()) << mubuf.status();
  absl::StatusOr<std::string> dis = DisassembleSymbol(bin, *mubuf, "k", "gfx942");
  ASSERT_FALSE(dis.ok());
  EXPECT_EQ(dis.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(dis.status().message()), "disassembling 'k': LLVM 22 crashed");
  // Everything still works afterwards.
  absl::StatusOr<std::string> good = BuildCodeObject(bin, ReadTestdata("add_one_buffer_gfx942.s"), "gfx942");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(DisassembleSymbol(bin, *good, "add_one_buffer", "gfx942").ok());
  EXPECT_TRUE(ReadElfNotes(bin, *good).ok());
}

TEST(InProcessTest, CheckCodeObjectSaysWhatIsWrong) {
  const std::string bin = LlvmBin();
  const std::string src = ReadTestdata("add_one_buffer_gfx942.s");
  absl::StatusOr<std::string> obj = AssembleToObject(bin, src, "gfx942");
  absl::StatusOr<std::string> hsaco = BuildCodeObject(bin, src, "gfx942");
  ASSERT_TRUE(obj.ok() && hsaco.ok());
  EXPECT_TRUE(CheckCodeObject(*hsaco).ok());
  EXPECT_HAS_SUBSTR(std::string(CheckCodeObject(*obj).message()), "relocatable object (ET_REL)");
  std::string elf32 = *hsaco;
  elf32[4] = 1;  // ELFCLASS32
  EXPECT_HAS_SUBSTR(std::string(CheckCodeObject(elf32).message()), "not a 64-bit little-endian ELF file");
  std::string x86 = *hsaco;
  x86[18] = 62;  // EM_X86_64
  x86[19] = 0;
  EXPECT_HAS_SUBSTR(std::string(CheckCodeObject(x86).message()), "not an AMDGPU code object (e_machine 62");
  EXPECT_HAS_SUBSTR(std::string(CheckCodeObject("garbage").message()), "not an ELF file");
}

// `obj` (an ELF64 relocatable object) with its SHT_SYMTAB section's sh_offset
// moved far past the end of the file; "" if it has no symbol table.
std::string CorruptSymtabOffset(std::string obj) {
  auto u64 = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(obj[at + i]);
    return v;
  };
  auto u16 = [&](size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(obj[at])) |
                                     static_cast<unsigned>(static_cast<unsigned char>(obj[at + 1])) << 8; };
  const uint64_t shoff = u64(0x28);
  const unsigned shentsize = u16(0x3a), shnum = u16(0x3c);
  for (unsigned i = 0; i < shnum; ++i) {
    const size_t sh = shoff + size_t{i} * shentsize;
    if (sh + 64 > obj.size()) return "";
    if (static_cast<unsigned char>(obj[sh + 4]) != 2) continue;  // sh_type SHT_SYMTAB
    for (int b = 0; b < 8; ++b) obj[sh + 24 + b] = b == 3 ? '\x10' : '\0';  // sh_offset = 0x10000000
    return obj;
  }
  return "";
}

// Several threads assemble and link at once, each getting the bytes a lone
// call gives; bad inputs are errors, and linking goes on after them.
TEST(InProcessTest, RepeatedAndConcurrentLinks) {
  const std::string bin = LlvmBin();
  const std::string src = ReadTestdata("mfma_16x16x16_f16_gfx942.s");
  absl::StatusOr<std::string> want = BuildCodeObject(bin, src, "gfx942");
  ASSERT_TRUE(want.ok()) << want.status();
  std::vector<std::thread> threads;
  std::vector<std::string> got(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<std::string> h = BuildCodeObject(bin, src, "gfx942");
      got[i] = h.ok() ? *h : std::string(h.status().message());
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(got[i] == *want) << "thread " << i << ": " << got[i].substr(0, 200);
  // A truncated ELF file and a code object (not relocatable) are refused.
  std::string broken = *want;
  broken.resize(80);
  EXPECT_EQ(LinkCodeObject(bin, broken).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LinkCodeObject(bin, *want).status().code(), absl::StatusCode::kInvalidArgument);
  // A relocatable object whose symbol table lies past the end of the file
  // is refused too (ld.lld 22 stops on it with a fatal error); later links
  // still work.
  absl::StatusOr<std::string> obj = AssembleToObject(bin, src, "gfx942");
  ASSERT_TRUE(obj.ok()) << obj.status();
  std::string corrupt = CorruptSymtabOffset(*obj);
  ASSERT_FALSE(corrupt.empty());
  absl::StatusOr<std::string> bad = LinkCodeObject(bin, corrupt);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  absl::StatusOr<std::string> after = BuildCodeObject(bin, src, "gfx942");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(*after == *want);
}

// ---------------------------------------------------------------------------
// kirc's code object linker against ld.lld 22 (the process)

// Links `asm_text` both ways and compares the layouts (every header, section
// and byte but .comment's text; code_object_layout.h).
void ExpectSameLinkAsLdLld(const std::string& asm_text, const std::string& target_id) {
  SCOPED_TRACE(target_id);
  const std::string bin = LlvmBin();
  absl::StatusOr<std::string> obj = AssembleToObject(bin, asm_text, target_id);
  ASSERT_TRUE(obj.ok()) << obj.status();
  absl::StatusOr<std::string> ours = LinkOneObject(*obj);
  absl::StatusOr<std::string> lld = LinkWithLdLld(bin, *obj);
  ASSERT_TRUE(ours.ok()) << ours.status();
  ASSERT_TRUE(lld.ok()) << lld.status();
  absl::StatusOr<std::string> a = DescribeCodeObjectLayout(*ours), b = DescribeCodeObjectLayout(*lld);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_TRUE(CheckCodeObject(*ours).ok());
  // The .comment section is kirc's.
  EXPECT_NE(ours->find(std::string(kCodeObjectLinkerComment) + '\0'), std::string::npos);
}

// `n` kernels in one object: global (protected) kernel symbols, descriptors,
// local labels, so that the hash tables have several buckets.
std::string ManyKernels(int n) {
  std::string s = "  .amdgcn_target \"amdgcn-amd-amdhsa--gfx90a\"\n  .amdhsa_code_object_version 5\n";
  std::string kernels_yaml;
  for (int i = 0; i < n; ++i) {
    const std::string k = absl::StrCat("kern_", i * 7919 % 1000, "_", i);
    absl::StrAppend(&s, "  .text\n  .globl ", k, "\n  .p2align 8\n  .type ", k, ",@function\n", k, ":\n",
                    "local_", i, ":\n  s_nop ", i % 8, "\n  s_endpgm\n.L", k, ".end:\n  .size ", k, ", .L", k,
                    ".end-", k, "\n  .rodata\n  .p2align 6\n  .amdhsa_kernel ", k,
                    "\n    .amdhsa_next_free_vgpr 1\n    .amdhsa_next_free_sgpr 1\n    .amdhsa_accum_offset 4\n",
                    "  .end_amdhsa_kernel\n");
    absl::StrAppend(&kernels_yaml, "  - .name: ", k, "\n    .symbol: ", k, ".kd\n    .kernarg_segment_size: 0\n",
                    "    .group_segment_fixed_size: 0\n    .private_segment_fixed_size: 0\n",
                    "    .kernarg_segment_align: 4\n    .wavefront_size: 64\n    .sgpr_count: 0\n",
                    "    .vgpr_count: 1\n    .max_flat_workgroup_size: 64\n");
  }
  absl::StrAppend(&s, "  .amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.kernels:\n", kernels_yaml,
                  "...\n  .end_amdgpu_metadata\n");
  return s;
}

TEST(CodeObjectLinkerTest, SameLayoutAsLdLldOnTestdata) {
  for (const char* id : {"gfx90a:xnack-", "gfx90a:xnack+", "gfx942", "gfx942:sramecc+:xnack-"})
    ExpectSameLinkAsLdLld(AddOneFor(id), id);
  ExpectSameLinkAsLdLld(ReadTestdata("mfma_16x16x16_f16_gfx942.s"), "gfx942");
}

TEST(CodeObjectLinkerTest, SameLayoutAsLdLldWithManyKernels) {
  // 1 to 40 kernels: the .gnu.hash bucket count and Bloom filter size change
  // at 8, 16 and 32 dynamic symbols (two per kernel).
  for (int n : {1, 2, 3, 4, 5, 7, 8, 11, 16, 20, 33, 40}) {
    SCOPED_TRACE(n);
    ExpectSameLinkAsLdLld(ManyKernels(n), "gfx90a");
  }
}

TEST(CodeObjectLinkerTest, TextSizesAcrossPageBoundaries) {
  // Code sizes that put the end of .text, and so the RELRO segment, at every
  // position within a page (4-byte steps over 1 KiB, plus 4 KiB around).
  const std::string src = ReadTestdata("add_one_buffer_gfx942.s");
  for (int pad : {0, 4, 8, 100, 1000, 1020, 1024, 3000, 3984, 3988, 3992, 4000, 4096}) {
    SCOPED_TRACE(pad);
    std::string s = src;
    const size_t at = s.find("  s_endpgm");
    ASSERT_NE(at, std::string::npos);
    s.insert(at, absl::StrCat("  .fill ", pad / 4, ", 4, 0xbf800000\n"));  // s_nop 0
    absl::StatusOr<std::string> obj = AssembleToObject(LlvmBin(), s, "gfx942");
    ASSERT_TRUE(obj.ok()) << obj.status();
    absl::StatusOr<std::string> ours = LinkOneObject(*obj);
    if (!ours.ok()) {
      // Only the page-boundary RELRO case is left to ld.lld.
      EXPECT_EQ(ours.status().code(), absl::StatusCode::kUnimplemented) << ours.status();
      EXPECT_TRUE(LinkCodeObject(LlvmBin(), *obj).ok());
      continue;
    }
    ExpectSameLinkAsLdLld(s, "gfx942");
  }
}

TEST(CodeObjectLinkerTest, OtherObjectsAreLeftToLdLld) {
  const std::string bin = LlvmBin();
  // A data section, code that refers to a table, a weak symbol: ld.lld
  // links them.
  const std::string base = AddOneFor("gfx942");
  struct Case {
    std::string extra;
    std::string reason;
  };
  for (const Case& c : {Case{"  .data\nsome_data:\n  .long 1\n", "section '.data'"},
                        Case{"  .rodata\n  .globl table\n  .protected table\ntable:\n  .long 1\n  .text\n"
                             "  s_getpc_b64 s[0:1]\n  s_add_u32 s0, s0, table@rel32@lo+4\n"
                             "  s_addc_u32 s1, s1, table@rel32@hi+12\n  s_endpgm\n", "section '.rela.text'"},
                        Case{"  .weak weak_kernel\n  .text\nweak_kernel:\n  s_endpgm\n", "binding"},
                        Case{"  .text\n  .globl _DYNAMIC\n  .protected _DYNAMIC\n_DYNAMIC:\n  s_endpgm\n",
                             "'_DYNAMIC' (a name ld.lld defines)"}}) {
    SCOPED_TRACE(c.extra);
    absl::StatusOr<std::string> obj = AssembleToObject(bin, base + c.extra, "gfx942");
    ASSERT_TRUE(obj.ok()) << obj.status();
    absl::StatusOr<std::string> ours = LinkOneObject(*obj);
    ASSERT_FALSE(ours.ok());
    EXPECT_EQ(ours.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_HAS_SUBSTR(std::string(ours.status().message()), c.reason);
    // LinkCodeObject hands it to ld.lld, which links it.
    absl::StatusOr<std::string> linked = LinkCodeObject(bin, *obj);
    EXPECT_TRUE(linked.ok()) << linked.status();
    absl::StatusOr<std::string> lld = LinkWithLdLld(bin, *obj);
    ASSERT_TRUE(lld.ok()) << lld.status();
    EXPECT_TRUE(*linked == *lld);
  }
  // ld.lld refuses a _GLOBAL_OFFSET_TABLE_ of the input; so does LinkCodeObject.
  absl::StatusOr<std::string> got_obj = AssembleToObject(
      bin, base + "  .text\n  .globl _GLOBAL_OFFSET_TABLE_\n  .protected _GLOBAL_OFFSET_TABLE_\n"
                  "_GLOBAL_OFFSET_TABLE_:\n  s_endpgm\n", "gfx942");
  ASSERT_TRUE(got_obj.ok()) << got_obj.status();
  EXPECT_EQ(LinkOneObject(*got_obj).status().code(), absl::StatusCode::kUnimplemented);
  absl::StatusOr<std::string> got_linked = LinkCodeObject(bin, *got_obj);
  ASSERT_FALSE(got_linked.ok());
  EXPECT_HAS_SUBSTR(std::string(got_linked.status().message()), "cannot redefine linker defined symbol");
  // Not ELF, not relocatable, truncated: InvalidArgument.
  EXPECT_EQ(LinkOneObject("garbage").status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::string> hsaco = BuildCodeObject(bin, base, "gfx942");
  ASSERT_TRUE(hsaco.ok());
  EXPECT_EQ(LinkOneObject(*hsaco).status().code(), absl::StatusCode::kInvalidArgument);
}

// Every one-byte change of an object is linked, refused as malformed, or left
// to ld.lld; never a crash (the test runs under the sanitizer-free build, so
// this checks bounds by the reads' own checks).
TEST(CodeObjectLinkerTest, CorruptObjectsAreErrors) {
  absl::StatusOr<std::string> obj = AssembleToObject(LlvmBin(), AddOneFor("gfx942"), "gfx942");
  ASSERT_TRUE(obj.ok()) << obj.status();
  int linked = 0, refused = 0;
  for (size_t i = 0; i < obj->size(); ++i) {
    for (unsigned char v : {0x00, 0xff, 0x41}) {
      std::string m = *obj;
      if (static_cast<unsigned char>(m[i]) == v) continue;
      m[i] = static_cast<char>(v);
      absl::StatusOr<std::string> r = LinkOneObject(m);
      if (r.ok()) {
        ++linked;
      } else {
        ++refused;
        EXPECT_TRUE(r.status().code() == absl::StatusCode::kInvalidArgument ||
                    r.status().code() == absl::StatusCode::kUnimplemented)
            << i << ": " << r.status();
      }
    }
  }
  EXPECT_GT(linked, 0);
  EXPECT_GT(refused, 0);
}

// ---------------------------------------------------------------------------
// RunProcess

TEST(RunProcessTest, LargeOutputOnBothStreams) {
  absl::StatusOr<ProcessResult> r = RunProcess(
      {"/bin/sh", "-c", "head -c 5000000 /dev/zero; head -c 3000000 /dev/zero >&2; exit 7"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 7);
  EXPECT_EQ(r->stdout_text.size(), 5000000u);
  EXPECT_EQ(r->stderr_text.size(), 3000000u);
  EXPECT_EQ(r->stdout_text.find_first_not_of('\0'), std::string::npos);
}

TEST(RunProcessTest, LargeStdinRoundTrip) {
  std::string input;
  input.reserve(4 << 20);
  for (int i = 0; input.size() < (4u << 20); ++i) absl::StrAppend(&input, i, "\n");
  absl::StatusOr<ProcessResult> r = RunProcess({"/bin/cat"}, input);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_TRUE(r->stdout_text == input);
}

TEST(RunProcessTest, ChildThatIgnoresStdinDoesNotKillUs) {
  std::string input(8 << 20, 'x');
  absl::StatusOr<ProcessResult> r = RunProcess({"/bin/true"}, input);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
}

TEST(RunProcessTest, ExitCodesSignalsAndErrors) {
  absl::StatusOr<ProcessResult> r = RunProcess({"/bin/sh", "-c", "echo out; echo err >&2"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->stdout_text, "out\n");
  EXPECT_EQ(r->stderr_text, "err\n");

  r = RunProcess({"/bin/sh", "-c", "kill -9 $$"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, -9);

  r = RunProcess({"sh", "-c", "exit 3"});  // looked up in $PATH
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 3);

  r = RunProcess({"/nonexistent/program"});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_HAS_SUBSTR(std::string(r.status().message()), "/nonexistent/program");

  EXPECT_EQ(RunProcess({}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(RunProcessTest, StdinIsDevNullWhenEmpty) {
  absl::StatusOr<ProcessResult> r = RunProcess({"/bin/cat"}, "", 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->stdout_text, "");
}

TEST(RunProcessTest, TimeoutKillsTheChild) {
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ProcessResult> r = RunProcess({"/bin/sleep", "10"}, "", 1);
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(elapsed, std::chrono::seconds(4));

  // A grandchild holding the pipes open is killed too (process group).
  start = std::chrono::steady_clock::now();
  r = RunProcess({"/bin/sh", "-c", "sleep 10; echo never"}, "", 1);
  elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(elapsed, std::chrono::seconds(4));
}

TEST(RunProcessTest, EightThreadsAtOnce) {
  const std::string bin = LlvmBin();
  const std::string src = ReadTestdata("add_one_buffer_gfx942.s");
  constexpr int kThreads = 8;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int iter = 0; iter < 4; ++iter) {
        std::string input(200000 + 1000 * t, static_cast<char>('a' + t));
        absl::StatusOr<ProcessResult> r = RunProcess({"/bin/cat"}, input, 60);
        if (!r.ok() || r->exit_code != 0 || r->stdout_text != input) {
          errors[t] = absl::StrCat("cat round trip failed in thread ", t);
          return;
        }
        absl::StatusOr<std::string> hsaco = BuildCodeObject(bin, src, "gfx942");
        if (!hsaco.ok() || !HasElfMagic(*hsaco)) {
          errors[t] = absl::StrCat("build failed in thread ", t, ": ",
                                   hsaco.ok() ? "not ELF" : hsaco.status().ToString());
          return;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
}

// ---------------------------------------------------------------------------
// ScopedTempDir

TEST(ScopedTempDirTest, CreatedUnderTestTmpdirAndRemovedRecursively) {
  std::string path;
  {
    absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create("probe.");
    ASSERT_TRUE(dir.ok()) << dir.status();
    path = dir->path();
    const char* test_tmpdir = std::getenv("TEST_TMPDIR");
    if (test_tmpdir != nullptr) {
      EXPECT_TRUE(absl::StartsWith(path, test_tmpdir)) << path;
    }
    ASSERT_EQ(mkdir(dir->File("sub").c_str(), 0700), 0);
    ASSERT_TRUE(WriteFileBytes(dir->File("sub/f.txt"), "hello").ok());
    absl::StatusOr<std::string> back = ReadFileBytes(dir->File("sub/f.txt"));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, "hello");

    ScopedTempDir moved = *std::move(dir);
    EXPECT_EQ(moved.path(), path);
    EXPECT_EQ(access(path.c_str(), F_OK), 0);
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  EXPECT_EQ(ReadFileBytes(path + "/sub/f.txt").status().code(), absl::StatusCode::kNotFound);
}

// ---------------------------------------------------------------------------
// ParseKernelNotes on hand-written text

constexpr char kTwoKernels[] = R"(
Displaying notes found in: .note
  Owner                Data size 	Description
  AMDGPU               0x00000300	NT_AMDGPU_METADATA (AMDGPU Metadata)
    AMDGPU Metadata:
        ---
amdhsa.kernels:
  - .args:
      - .name:           'n'
        .offset:         0
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .name:           "out ptr"
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 1024
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 0x100
    .name:           first
    .private_segment_fixed_size: 0
    .sgpr_count:     26   # a comment
    .symbol:         first.kd
    .vgpr_count:     40
    .wavefront_size: 64
  - .name: second
    .kernarg_segment_size: 0
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 16
    .sgpr_count: 8
    .vgpr_count: 12
    .agpr_count: 4
    .max_flat_workgroup_size: 64
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...
)";

TEST(ParseKernelNotesTest, TwoKernelsQuotedNamesNoAgprs) {
  absl::StatusOr<std::vector<KernelNotes>> k = ParseKernelNotes(kTwoKernels);
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->size(), 2u);
  EXPECT_EQ((*k)[0].name, "first");
  EXPECT_EQ((*k)[0].agpr_count, -1);
  EXPECT_EQ((*k)[0].sgpr_count, 26);
  EXPECT_EQ((*k)[0].max_flat_workgroup_size, 256);
  EXPECT_EQ((*k)[0].group_segment_fixed_size, 1024);
  ASSERT_EQ((*k)[0].args.size(), 2u);
  EXPECT_EQ((*k)[0].args[0].name, "n");
  EXPECT_EQ((*k)[0].args[1].name, "out ptr");
  EXPECT_EQ((*k)[0].args[1].offset, 8);
  EXPECT_EQ((*k)[1].name, "second");
  EXPECT_EQ((*k)[1].symbol, "");
  EXPECT_EQ((*k)[1].agpr_count, 4);
  EXPECT_EQ((*k)[1].private_segment_fixed_size, 16);
  EXPECT_TRUE((*k)[1].args.empty());
}

// Argument names other compilers write (spaces, colons, '#', quotes,
// non-ASCII, control characters): LLVM 22 assembles them from YAML source
// into the note and prints them back quoted as it likes (plain, '...' or
// "..." with escapes); ParseKernelNotes must give back the exact bytes, and
// the types it records.
TEST(ParseKernelNotesTest, UnusualArgumentNamesAsLlvmPrintsThem) {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok()) << bin.status();
  const std::vector<std::string> names = {"my src", "dst: out #1", "it's \"q\"", "caf\xc3\xa9 \xe2\x82\xac",
                                          "tab\there", " lead", "-dash", "x\\y", "on", "{b}", "bell\x07"};
  std::string yaml = "amdhsa.kernels:\n  - .args:\n";
  for (size_t i = 0; i < names.size(); ++i) {
    std::string quoted;
    for (char c : names[i]) {
      if (c == '"' || c == '\\') quoted += '\\';
      if (c == '\t') quoted += "\\t";
      else if (c == '\x07') quoted += "\\a";
      else quoted += c;
    }
    absl::StrAppend(&yaml, "      - .name: \"", quoted, "\"\n        .offset: ", 4 * i, "\n        .size: 4\n",
                    "        .value_kind: by_value\n        .type_name: ", i == 0 ? "'unsigned int'" : "float", "\n");
  }
  absl::StrAppend(&yaml,
                  "    .group_segment_fixed_size: 0\n    .kernarg_segment_align: 8\n    .kernarg_segment_size: ",
                  4 * names.size(), "\n    .max_flat_workgroup_size: 64\n    .name: k\n    .symbol: k.kd\n",
                  "    .private_segment_fixed_size: 0\n    .sgpr_count: 8\n    .vgpr_count: 4\n",
                  "    .wavefront_size: 64\namdhsa.version:\n  - 1\n  - 2\n");
  const std::string src = absl::StrCat(".amdgpu_metadata\n---\n", yaml, "...\n.end_amdgpu_metadata\n");
  absl::StatusOr<std::string> obj = AssembleToObject(*bin, src, "gfx90a");
  ASSERT_TRUE(obj.ok()) << obj.status();
  absl::StatusOr<std::string> notes = ReadElfNotes(*bin, *obj);
  ASSERT_TRUE(notes.ok()) << notes.status();
  absl::StatusOr<std::vector<KernelNotes>> k = ParseKernelNotes(*notes);
  ASSERT_TRUE(k.ok()) << k.status() << "\n" << *notes;
  ASSERT_EQ(k->size(), 1u);
  ASSERT_EQ((*k)[0].args.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ((*k)[0].args[i].name, names[i]) << *notes;
  EXPECT_EQ((*k)[0].args[0].type_name, "unsigned int");
  EXPECT_EQ((*k)[0].args[1].type_name, "float");
  // LLVM quotes at least the names with ':', '#', quotes or a leading blank.
  EXPECT_HAS_SUBSTR(*notes, "'dst: out #1'");
}

// Double-quoted escapes of YAML 1.2 (what LLVM's writer uses for bytes it
// cannot print), decoded to UTF-8; an unknown escape is an error.
TEST(ParseKernelNotesTest, DoubleQuotedEscapes) {
  std::string text = kTwoKernels;
  text.replace(text.find("\"out ptr\""), 9, R"("a\x41\u00e9\U0001F600\"\\\/\ \tz")");
  absl::StatusOr<std::vector<KernelNotes>> k = ParseKernelNotes(text);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ((*k)[0].args[1].name, "aA\xc3\xa9\xf0\x9f\x98\x80\"\\/ \tz");
  text = kTwoKernels;
  text.replace(text.find("\"out ptr\""), 9, R"("a\qb")");
  EXPECT_HAS_SUBSTR(std::string(ParseKernelNotes(text).status().message()), "unknown escape '\\q'");
  text = kTwoKernels;
  text.replace(text.find("\"out ptr\""), 9, R"("a\u12")");
  EXPECT_HAS_SUBSTR(std::string(ParseKernelNotes(text).status().message()), "needs 4 hex digits");
}

TEST(ParseKernelNotesTest, ErrorsInsteadOfCrashes) {
  EXPECT_EQ(ParseKernelNotes("").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ParseKernelNotes("Displaying notes found in: .note\n").status().code(),
            absl::StatusCode::kNotFound);

  std::string missing = kTwoKernels;
  size_t pos = missing.find("    .vgpr_count:     40\n");
  ASSERT_NE(pos, std::string::npos);
  missing.erase(pos, std::string("    .vgpr_count:     40\n").size());
  absl::StatusOr<std::vector<KernelNotes>> k = ParseKernelNotes(missing);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_HAS_SUBSTR(std::string(k.status().message()), ".vgpr_count");
  EXPECT_HAS_SUBSTR(std::string(k.status().message()), "first");

  std::string not_int = kTwoKernels;
  not_int.replace(not_int.find("40"), 2, "forty");
  EXPECT_EQ(ParseKernelNotes(not_int).status().code(), absl::StatusCode::kInvalidArgument);

  std::string bad_indent = kTwoKernels;
  bad_indent.replace(bad_indent.find("    .vgpr_count"), 4, "       ");
  EXPECT_EQ(ParseKernelNotes(bad_indent).status().code(), absl::StatusCode::kInvalidArgument);

  EXPECT_EQ(ParseKernelNotes("AMDGPU Metadata:\n---\namdhsa.version: [ 1, 2\n...\n")
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseKernelNotes("AMDGPU Metadata:\n---\nfoo: 1\n...\n").status().code(),
            absl::StatusCode::kInvalidArgument);

  // Every prefix of a real listing parses or fails cleanly.
  const std::string text = kTwoKernels;
  for (size_t n = 0; n <= text.size(); ++n) {
    absl::StatusOr<std::vector<KernelNotes>> r = ParseKernelNotes(text.substr(0, n));
    (void)r;
  }
}

}  // namespace
}  // namespace kir
