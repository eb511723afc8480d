// `bazel run //compiler/bench:compare -- [--json=PATH] [--chart=PATH]
// [--markdown=PATH] [--kernels=a,b] [--targets=gfx942,...] [--inproc_runs=N] [--process_runs=N]`:
// kirc against clang-22 on every testdata kernel that has an OpenCL baseline
// (compare.h says what is measured). Prints one table; --json writes the
// figures, --chart an SVG bar chart of the kirc/clang ratios, --markdown the
// table for docs/llvm-comparison.md. A benchmark:
// nothing about speed is asserted; the exit status is 1 only when a compile
// or run fails or an output misses the reference.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/bench/compare.h"
#include "compiler/object/toolchain.h"

namespace {

// Relative output paths are relative to where `bazel run` was started.
std::string OutPath(const std::string& p) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (p.empty() || p[0] == '/' || wd == nullptr || *wd == '\0') return p;
  return absl::StrCat(wd, "/", p);
}

bool Flag(const std::string& arg, const char* name, std::string* value) {
  std::string prefix = absl::StrCat("--", name, "=");
  if (!absl::StartsWith(arg, prefix)) return false;
  *value = arg.substr(prefix.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kir::bench;
  CompareOptions opts;
  std::string json, chart, markdown, kernels, targets, v, flags_file = "compiler/bench/clang_flags.txt";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (Flag(a, "json", &json) || Flag(a, "markdown", &markdown) || Flag(a, "chart", &chart) || Flag(a, "kernels", &kernels) ||
        Flag(a, "targets", &targets) || Flag(a, "clang_flags_file", &flags_file))
      continue;
    if (Flag(a, "inproc_runs", &v) && absl::SimpleAtoi(v, &opts.inproc_runs)) continue;
    if (Flag(a, "process_runs", &v) && absl::SimpleAtoi(v, &opts.process_runs)) continue;
    if (Flag(a, "llvm_bin", &opts.llvm_bin)) continue;
    std::fprintf(stderr, "compare: unknown argument '%s'\n", a.c_str());
    return 2;
  }
  absl::StatusOr<std::vector<std::string>> cf = ReadClangFlags(flags_file);
  if (!cf.ok()) {
    std::fprintf(stderr, "compare: %s\n", std::string(cf.status().message()).c_str());
    return 1;
  }
  opts.clang_flags = *cf;
  std::vector<std::string> want_k = absl::StrSplit(kernels, ',', absl::SkipEmpty());
  std::vector<std::string> want_t = absl::StrSplit(targets, ',', absl::SkipEmpty());
  auto wanted = [](const std::vector<std::string>& w, const std::string& x) {
    return w.empty() || std::find(w.begin(), w.end(), x) != w.end();
  };
  const std::string machine = MachineDescription();
  std::printf("kirc vs clang-22 on %s\n", machine.c_str());
  std::vector<CompareResult> rows;
  int failures = 0;
  for (const auto& [kernel, ts] : BaselineCases()) {
    if (!wanted(want_k, kernel)) continue;
    for (const std::string& t : ts) {
      if (!wanted(want_t, t)) continue;
      absl::StatusOr<CompareResult> r = CompareKernel(opts, kernel, t);
      if (!r.ok()) {
        std::fprintf(stderr, "%s on %s: %s\n", kernel.c_str(), t.c_str(),
                     std::string(r.status().message()).c_str());
        ++failures;
        continue;
      }
      for (const auto& [side, sr] : {std::pair<const char*, const SideResult*>{"kirc", &r->kirc}, {"clang", &r->clang}})
        if (!sr->not_run.empty())
          std::fprintf(stderr, "%s on %s: %s's code not run (static figures only): %s\n", kernel.c_str(), t.c_str(),
                       side, sr->not_run.c_str());
      if (!r->OutputsOk()) {
        std::fprintf(stderr, "%s on %s: outputs do not match\nkirc: %sclang: %s", kernel.c_str(), t.c_str(),
                     r->kirc.reference_report.c_str(), r->clang.reference_report.c_str());
        ++failures;
      }
      rows.push_back(*r);
    }
  }
  std::printf("%s", FormatTable(rows).c_str());
  // The share of "kirc proc" no compiler work can remove: loading the process.
  if (absl::StatusOr<ProcessFloor> floor = MeasureProcessFloor(opts); floor.ok()) {
    std::printf("\nprocess start: kirc --version %.1f ms (static LLVM MC; Z3 and HIP load on first use), "
                "llvm-mc --version %.1f ms (loads libLLVM-22.so), medians of %d\n",
                floor->kirc_version_ms, floor->llvm_mc_version_ms, std::max(1, opts.process_runs * 3));
  } else {
    std::fprintf(stderr, "compare: process start: %s\n", std::string(floor.status().message()).c_str());
    ++failures;
  }
  std::printf(
      "\nin-proc: kirc CompileText (KIR text to assembly), median of %d; kirc proc: `kirc compile "
      "--emit=obj` (.kir to code object); clang: clang -c + ld.lld -shared (.cl to code object); "
      "both median of %d wall times; ratio = kirc proc / clang. instr: instructions of the kernel "
      "symbol (llvm-objdump); mfma,ld: MFMAs, memory (vmem + ds) instructions; nonmfma/m: "
      "non-MFMA instructions per MFMA in the loop body; VGPR: .vgpr_count (gfx90a/942: unified "
      "file); occ: waves/SIMD; dyn/wave: emulator instructions per wave; ok: both outputs match "
      "the KIR reference and each other\n",
      opts.inproc_runs, opts.process_runs);
  if (!json.empty()) {
    absl::Status st = kir::WriteFileBytes(OutPath(json), ToJson(rows, machine, opts));
    if (!st.ok()) std::fprintf(stderr, "compare: %s\n", std::string(st.message()).c_str()), ++failures;
    else std::printf("wrote %s\n", OutPath(json).c_str());
  }
  if (!markdown.empty()) {
    absl::Status st = kir::WriteFileBytes(OutPath(markdown), FormatMarkdown(rows));
    if (!st.ok()) std::fprintf(stderr, "compare: %s\n", std::string(st.message()).c_str()), ++failures;
    else std::printf("wrote %s\n", OutPath(markdown).c_str());
  }
  if (!chart.empty()) {
    absl::Status st = kir::WriteFileBytes(OutPath(chart), ToSvg(rows, machine));
    if (!st.ok()) std::fprintf(stderr, "compare: %s\n", std::string(st.message()).c_str()), ++failures;
    else std::printf("wrote %s\n", OutPath(chart).c_str());
  }
  return failures ? 1 : 0;
}
