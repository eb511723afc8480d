// `bazel run //verify:bench`: the address verifier's proof time per
// testdata kernel and target (compile time excluded): memory instructions,
// how many proved, total, mean and slowest access.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/target/target.h"
#include "verify/verify.h"

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "testdata/kernels";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".kir") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::printf("%-24s %-7s %8s %7s %9s %11s %11s %14s\n", "kernel", "target", "accesses", "proved", "total s",
              "mean ms", "slowest ms", "max Z3 units");
  int bad = 0;
  double all = 0, slowest = 0;
  uint64_t most_units = 0;
  int accesses = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    absl::StatusOr<kir::Kernel> k = kir::ParseKernel(ss.str(), f.string());
    if (!k.ok()) {
      std::printf("%s: %s\n", f.string().c_str(), std::string(k.status().message()).c_str());
      ++bad;
      continue;
    }
    for (const kir::TargetInfo* t : kir::AllTargets()) {
      kir::CompileOptions o;
      o.mcpu = t->name;
      absl::StatusOr<kir::CompileResult> r = kir::Compile(*k, o);
      if (!r.ok()) {
        if (absl::StrContains(r.status().message(), "does not exist on")) continue;  // e.g. bf16 MFMA on gfx908
        std::printf("%-24s %-7s compile error: %s\n", k->name.c_str(), t->name, std::string(r.status().message()).c_str());
        ++bad;
        continue;
      }
      absl::StatusOr<kir::VerifyResult> v = kir::VerifyAddresses(*k, *t, r->lowered);
      if (!v.ok()) {
        std::printf("%-24s %-7s verify error: %s\n", k->name.c_str(), t->name, std::string(v.status().message()).c_str());
        ++bad;
        continue;
      }
      int proved = 0;
      double max_s = 0, sum_s = 0;
      uint64_t max_units = 0;
      for (const kir::AccessVerdict& a : v->accesses) {
        max_units = std::max(max_units, a.solver_resources);
        proved += a.status == kir::AccessVerdict::Status::kProved;
        max_s = std::max(max_s, a.seconds);
        sum_s += a.seconds;
      }
      int n = static_cast<int>(v->accesses.size());
      std::printf("%-24s %-7s %8d %7d %9.3f %11.2f %11.2f %14llu\n", k->name.c_str(), t->name, n, proved,
                  v->seconds, n ? 1e3 * sum_s / n : 0.0, 1e3 * max_s, static_cast<unsigned long long>(max_units));
      if (!v->all_proved) {
        ++bad;
        std::printf("%s", v->Report().c_str());
      }
      all += v->seconds;
      accesses += n;
      slowest = std::max(slowest, max_s);
      most_units = std::max(most_units, max_units);
    }
  }
  std::printf(
      "total: %d accesses in %.3f s (mean %.2f ms per access, slowest %.2f ms, at most %llu Z3 resource units of "
      "the %llu a query may use)\n",
      accesses, all, accesses ? 1e3 * all / accesses : 0.0, 1e3 * slowest, static_cast<unsigned long long>(most_units),
      static_cast<unsigned long long>(kir::VerifyOptions{}.resource_limit));
  return bad ? 1 : 0;
}
