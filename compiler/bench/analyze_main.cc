// `bazel run -c opt //compiler/bench:analyze -- FILE.hsaco|FILE.o|FILE.s
// --mcpu=PROCESSOR [--kernel=NAME]`: the main loop of a kernel in any code
// object or assembly file (compiler/bench/loop_analysis.h). Assembly is
// assembled in process by LLVM 22's MC layer first. NAME defaults to the
// first kernel of the metadata notes. A benchmark tool: prints figures.
#include <cstdio>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/bench/loop_analysis.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/llvm_in_process.h"
#include "compiler/object/toolchain.h"

namespace kir {
namespace {

int Main(int argc, char** argv) {
  std::string path, mcpu, kernel;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (absl::StartsWith(a, "--mcpu=")) mcpu = a.substr(7);
    else if (absl::StartsWith(a, "--kernel=")) kernel = a.substr(9);
    else if (!absl::StartsWith(a, "--") && path.empty()) path = a;
    else {
      std::fprintf(stderr, "usage: analyze FILE.hsaco|FILE.o|FILE.s --mcpu=PROCESSOR [--kernel=NAME]\n");
      return 2;
    }
  }
  if (path.empty() || mcpu.empty()) {
    std::fprintf(stderr, "usage: analyze FILE.hsaco|FILE.o|FILE.s --mcpu=PROCESSOR [--kernel=NAME]\n");
    return 2;
  }
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) {
    std::fprintf(stderr, "analyze: %s\n", std::string(bytes.status().message()).c_str());
    return 2;
  }
  if (!absl::StartsWith(*bytes, "\x7f" "ELF") &&
      (absl::EndsWith(path, ".hsaco") || absl::EndsWith(path, ".o") || absl::EndsWith(path, ".co"))) {
    std::fprintf(stderr, "analyze: %s is not an ELF object (a .s file is assembled first)\n", path.c_str());
    return 2;
  }
  if (!absl::StartsWith(*bytes, "\x7f" "ELF")) {
    absl::StatusOr<std::string> obj = AssembleInProcess(*bytes, mcpu);
    if (!obj.ok()) {
      std::fprintf(stderr, "analyze: %s\n", std::string(obj.status().message()).c_str());
      return 2;
    }
    bytes = *obj;
  }
  if (kernel.empty()) {
    absl::StatusOr<std::string> notes_text = ReadNotesInProcess(*bytes);
    absl::StatusOr<std::vector<KernelNotes>> notes =
        notes_text.ok() ? ParseKernelNotes(*notes_text) : absl::StatusOr<std::vector<KernelNotes>>(notes_text.status());
    if (!notes.ok() || notes->empty()) {
      std::fprintf(stderr, "analyze: no kernel in the metadata notes: give --kernel=NAME\n");
      return 2;
    }
    kernel = (*notes)[0].name;
  }
  const std::string processor = mcpu.substr(0, mcpu.find(':'));
  absl::StatusOr<LoopAnalysis> a = AnalyzeKernelObject(*bytes, processor, kernel);
  if (!a.ok()) {
    std::fprintf(stderr, "analyze: %s\n", std::string(a.status().message()).c_str());
    return 1;
  }
  std::fputs(FormatLoopAnalysis(*a, processor).c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace kir

int main(int argc, char** argv) { return kir::Main(argc, argv); }
