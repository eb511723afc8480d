// The in-process assembler, note reader and disassembler
// (compiler/object/llvm_in_process.h) and kirc's code object linker
// (code_object_linker.h) against LLVM 22's own tools run as processes
// (llvm-mc, ld.lld, llvm-readelf --notes, llvm-objdump -d), on every testdata
// kernel and on random kernels of //difftest's generator, for every target ID
// the generator draws: the objects must be byte-identical, the code objects
// the same in every header, section and byte but .comment's text
// (code_object_layout.h), the metadata YAML and the instruction lines the
// same text.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/api/compile.h"
#include "compiler/object/code_object_layout.h"
#include "compiler/object/code_object_linker.h"
#include "compiler/object/llvm_in_process.h"
#include "compiler/object/toolchain.h"
#include "difftest/gen.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {

// The "AMDGPU Metadata:" blocks of `llvm-readelf --notes` text.
std::string MetadataBlocks(const std::string& notes) {
  std::string out;
  size_t pos = 0;
  while ((pos = notes.find("    AMDGPU Metadata:\n", pos)) != std::string::npos) {
    size_t end = notes.find("\n...\n", pos);
    if (end == std::string::npos) return out + "(unterminated block)";
    out += notes.substr(pos, end + 5 - pos);
    pos = end;
  }
  return out;
}

// The instruction lines of `llvm-objdump -d` text from the "<symbol>:" line on,
// without a branch's " <symbol+0x..>" target annotation and trailing spaces.
std::vector<std::string> InstructionLines(const std::string& text, const std::string& symbol) {
  std::vector<std::string> lines;
  bool in = false;
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    if (!in) {
      in = absl::EndsWith(l, absl::StrCat("<", symbol, ">:"));
      if (in) lines.push_back(std::string(l));
      continue;
    }
    if (l.empty()) continue;
    size_t lt = l.rfind(" <");
    if (lt != absl::string_view::npos && absl::EndsWith(l, ">") && l.find("//") < lt) l = l.substr(0, lt);
    lines.push_back(std::string(absl::StripTrailingAsciiWhitespace(l)));
  }
  return lines;
}

int compared = 0;

void CompareWithTools(const std::string& what, const std::string& kir, const std::string& target_id) {
  CompileOptions opts;
  opts.mcpu = target_id;
  absl::StatusOr<CompileResult> r = CompileText(kir, what, opts);
  if (!r.ok()) return;  // refusals are other tests' business
  SCOPED_TRACE(absl::StrCat(what, " on ", target_id));
  const std::string id = r->target_id.ToString();
  absl::StatusOr<std::string> obj = AssembleInProcess(r->assembly, id);
  absl::StatusOr<std::string> obj_tool = AssembleWithLlvmMc(kDefaultLlvmBin, r->assembly, id);
  ASSERT_TRUE(obj.ok()) << obj.status();
  ASSERT_TRUE(obj_tool.ok()) << obj_tool.status();
  EXPECT_TRUE(*obj == *obj_tool) << "objects differ (" << obj->size() << " vs " << obj_tool->size() << " bytes)";
  absl::StatusOr<std::string> hsaco = LinkOneObject(*obj);
  absl::StatusOr<std::string> hsaco_tool = LinkWithLdLld(kDefaultLlvmBin, *obj_tool);
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  ASSERT_TRUE(hsaco_tool.ok()) << hsaco_tool.status();
  absl::StatusOr<std::string> layout = DescribeCodeObjectLayout(*hsaco);
  absl::StatusOr<std::string> layout_tool = DescribeCodeObjectLayout(*hsaco_tool);
  ASSERT_TRUE(layout.ok() && layout_tool.ok());
  EXPECT_EQ(*layout, *layout_tool) << "code objects differ";
  absl::StatusOr<std::string> notes = ReadNotesInProcess(*hsaco);
  absl::StatusOr<std::string> notes_tool = ReadNotesWithLlvmReadelf(kDefaultLlvmBin, *hsaco);
  ASSERT_TRUE(notes.ok()) << notes.status();
  ASSERT_TRUE(notes_tool.ok()) << notes_tool.status();
  EXPECT_FALSE(MetadataBlocks(*notes_tool).empty());
  EXPECT_EQ(MetadataBlocks(*notes), MetadataBlocks(*notes_tool));
  const std::string symbol = r->lowered.kernel.name;
  const std::string processor = r->target->name;
  absl::StatusOr<std::string> dis = DisassembleSymbolInProcess(*hsaco, symbol, processor);
  absl::StatusOr<std::string> dis_tool = DisassembleWithLlvmObjdump(kDefaultLlvmBin, *hsaco, symbol, processor);
  ASSERT_TRUE(dis.ok()) << dis.status();
  ASSERT_TRUE(dis_tool.ok()) << dis_tool.status();
  std::vector<std::string> a = InstructionLines(*dis, symbol), b = InstructionLines(*dis_tool, symbol);
  EXPECT_GT(b.size(), 2u);
  EXPECT_EQ(a, b);
  ++compared;
}

TEST(InProcessLlvm, SameBytesAndTextAsTheToolsOnTestdataKernels) {
  compared = 0;
  for (const char* name : {"add_f16", "copy_f32", "gemm_bf16_edge", "gemm_f16_256", "gemm_f16_km_kn",
                           "mma_16x16x16_bf16", "mma_16x16x16_f16", "mma_32x32x8_f16", "mma_loop_32x32x64_f16"}) {
    const std::string path = absl::StrCat("testdata/kernels/", name, ".kir");
    const std::string text = testing::ReadTestFile(path);
    ASSERT_FALSE(text.empty()) << path;
    for (const char* id : {"gfx908", "gfx90a:xnack-", "gfx90a:xnack+", "gfx942:sramecc+:xnack-", "gfx942"})
      CompareWithTools(path, text, id);
  }
  // Every kernel compiles on gfx90a and gfx942 at least.
  EXPECT_GE(compared, 9 * 4);
}

TEST(InProcessLlvm, SameBytesAndTextAsTheToolsOnRandomKernels) {
  compared = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    difftest::GeneratedKernel g = difftest::Generate(seed);
    for (const std::string& id : g.target_ids) CompareWithTools(g.name, g.text, id);
  }
  EXPECT_GE(compared, 24 * 2);
}

}  // namespace
}  // namespace kir
