// `bazel run //compiler/bench:analyze -- FILE.hsaco|FILE.o|FILE.s
// --mcpu=PROCESSOR [--kernel=NAME]`: the main loop of a kernel in any code
// object or assembly file (compiler/bench/loop_analysis.h, AnalyzeFile).
// Assembly is assembled in process by LLVM 22's MC layer first. NAME defaults
// to the first kernel of the metadata notes. A benchmark tool: prints
// figures. Exit status 0 with the report on standard output; 2 on any error
// (usage, an unreadable or refused file, a missing kernel), the reason on
// standard error.
#include <cstdio>
#include <string>

#include "absl/strings/match.h"
#include "compiler/bench/loop_analysis.h"
#include "compiler/object/toolchain.h"

namespace kir {
namespace {

int Main(int argc, char** argv) {
  std::string path, mcpu, kernel;
  bool usage_error = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (absl::StartsWith(a, "--mcpu=")) mcpu = a.substr(7);
    else if (absl::StartsWith(a, "--kernel=")) kernel = a.substr(9);
    else if (!absl::StartsWith(a, "--") && path.empty()) path = a;
    else usage_error = true;
  }
  if (usage_error || path.empty() || mcpu.empty()) {
    std::fprintf(stderr, "usage: analyze FILE.hsaco|FILE.o|FILE.s --mcpu=PROCESSOR [--kernel=NAME]\n");
    return 2;
  }
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) {
    std::fprintf(stderr, "analyze: %s\n", std::string(bytes.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<std::string> report = AnalyzeFile(path, *bytes, mcpu, kernel);
  if (!report.ok()) {
    std::fprintf(stderr, "analyze: %s\n", std::string(report.status().message()).c_str());
    return 2;
  }
  std::fputs(report->c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace kir

int main(int argc, char** argv) { return kir::Main(argc, argv); }
