// bazel test //hw:regression (tagged gpu, manual): every testdata kernel
// (testdata/kernels/*.kir) on the AMD GPUs of this machine, through the HIP
// runtime (hw/hip), once per target that has a GPU here and whose MFMAs the
// kernel uses, compared with the KIR reference interpreter (hw/run). Writes
// one JSON record per run (kernel, target, device, max error, time, ...) to
// $TEST_UNDECLARED_OUTPUTS_DIR/regression.json, or --json=PATH.
//
// Without an AMD GPU it prints exactly "skipped: no AMD GPU (hipErrorNoDevice)"
// (HIP's error name), writes nothing and exits 0.
//
// Flags (bazel test --test_arg=...): --json=PATH, --kernels=a,b (names
// without .kir), --warmup=N (default 3), --iterations=N (default 20),
// --seed=N (default 1), --device=emu (run the same sweep on the strict
// emulator for every target instead: a check of this harness on machines
// without a GPU; never the default). Exit status 1 when any run fails or differs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/target/target.h"
#include "hw/emu/emu_device.h"
#include "hw/check/json.h"
#include "hw/hip/hip_device.h"
#include "hw/kernarg.h"
#include "hw/run/run.h"
#include "hw/run/work.h"

namespace kir {
namespace {

struct Flags {
  std::string json;
  std::vector<std::string> kernels;
  int warmup = 3, iterations = 20;
  uint64_t seed = 1;
  bool emulator = false;
};

struct Result {
  std::string kernel, target, device;
  bool ok = false;
  std::string error;  // a failure before the comparison ("" when compared)
  double max_abs_err = 0, max_rel_err = 0, milliseconds = 0, tflops = 0, gbps = 0;
  int timed_launches = 0;
};

std::string ToJson(const std::vector<Result>& rs) {
  std::string o = "{\n  \"results\": [\n";
  for (size_t i = 0; i < rs.size(); ++i) {
    const Result& r = rs[i];
    absl::StrAppend(&o, "    {\"kernel\": ", JsonString(r.kernel), ", \"target\": ", JsonString(r.target),
                    ", \"device\": ", JsonString(r.device), ", \"ok\": ", r.ok ? "true" : "false");
    if (r.error.empty()) {
      // inf (an inf/NaN mismatch) and NaN (max rel err n/a: the reference is all
      // zero) are not JSON numbers: null.
      auto num = [](double v) { return std::isfinite(v) ? absl::StrFormat("%.9g", v) : std::string("null"); };
      absl::StrAppend(&o, absl::StrFormat(", \"max_abs_err\": %s, \"max_rel_err\": %s, \"time_ms\": %.6f"
                                          ", \"timed_launches\": %d, \"tflops\": %.6f, \"gbps\": %.3f",
                                          num(r.max_abs_err), num(r.max_rel_err), r.milliseconds, r.timed_launches,
                                          r.tflops, r.gbps));
    } else {
      absl::StrAppend(&o, ", \"error\": ", JsonString(r.error));
    }
    absl::StrAppend(&o, "}", i + 1 < rs.size() ? "," : "", "\n");
  }
  return o + "  ]\n}\n";
}

std::optional<Flags> ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, "--json=")) {
      f.json = std::string(a);
    } else if (absl::ConsumePrefix(&a, "--kernels=")) {
      f.kernels = absl::StrSplit(a, ',', absl::SkipEmpty());
    } else if (absl::ConsumePrefix(&a, "--warmup=")) {
      if (!absl::SimpleAtoi(a, &f.warmup) || f.warmup < 0) return std::nullopt;
    } else if (absl::ConsumePrefix(&a, "--iterations=")) {
      if (!absl::SimpleAtoi(a, &f.iterations) || f.iterations < 0) return std::nullopt;
    } else if (a == "--device=emu") {
      f.emulator = true;
    } else if (absl::ConsumePrefix(&a, "--seed=")) {
      if (!absl::SimpleAtoi(a, &f.seed)) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  return f;
}

int Main(int argc, char** argv) {
  std::optional<Flags> flags = ParseFlags(argc, argv);
  if (!flags) {
    std::cerr << "regression: usage: [--json=PATH] [--kernels=a,b] [--warmup=N] [--iterations=N] [--seed=N] "
                 "[--device=emu]\n";
    return 2;
  }
  absl::StatusOr<int> count = flags->emulator ? absl::StatusOr<int>(0) : HipDeviceCount();
  if (absl::IsUnavailable(count.status())) {
    std::cout << "skipped: " << count.status().message() << "\n";
    return 0;
  }
  if (!count.ok()) {
    std::cerr << "regression: " << count.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  if (!bin.ok()) {
    std::cerr << "regression: " << bin.status().message() << "\n";
    return 1;
  }
  HipOptions ho;
  ho.warmup = flags->warmup;
  ho.iterations = flags->iterations;
  ho.llvm_bin = *bin;
  // The first GPU of each target kirc supports (--device=emu: the emulator for each).
  std::map<std::string, std::unique_ptr<Device>> by_target;
  if (flags->emulator)
    for (const TargetInfo* t : AllTargets()) by_target[t->name] = std::make_unique<EmuDevice>(*bin);
  for (int i = 0; i < *count; ++i) {
    absl::StatusOr<std::unique_ptr<HipDevice>> d = OpenHipDevice(i, ho);
    if (!d.ok()) {
      std::cerr << "regression: " << d.status().message() << "\n";
      return 1;
    }
    std::string proc(TargetProcessor((*d)->Arch()));
    std::cout << "device " << i << ": " << (*d)->Name()
              << (LookupTarget(proc).ok() ? "" : " (not a kirc target: not used)") << "\n";
    if (LookupTarget(proc).ok() && !by_target.count(proc)) by_target[proc] = *std::move(d);
  }
  if (by_target.empty()) {
    std::cerr << "regression: none of the " << *count
              << " HIP devices is a gfx908, gfx90a, gfx942 or gfx950: nothing to run kirc's kernels on\n";
    return 1;
  }
  // The kernels, in name order.
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator("testdata/kernels"))
    if (e.path().extension() == ".kir") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  for (const std::string& want : flags->kernels)
    if (std::find(names.begin(), names.end(), want) == names.end()) {
      std::cerr << "regression: no testdata/kernels/" << want << ".kir\n";
      return 2;
    }
  std::vector<Result> results;
  int failed = 0;
  for (const std::string& name : names) {
    if (!flags->kernels.empty() &&
        std::find(flags->kernels.begin(), flags->kernels.end(), name) == flags->kernels.end())
      continue;
    std::ifstream in("testdata/kernels/" + name + ".kir");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string file = "testdata/kernels/" + name + ".kir";
    absl::StatusOr<Kernel> k = ParseKernel(ss.str(), file);
    for (auto& [target, device] : by_target) {
      Result r;
      r.kernel = name;
      r.target = target;
      r.device = device->Name();
      const TargetInfo& t = **LookupTarget(target);
      if (k.ok()) {
        if (std::string m = MfmaTargetLacks(*k, t); !m.empty()) {
          std::cout << "skip " << name << " on " << target << ": " << target << " has no " << m << " MFMA\n";
          continue;
        }
      }
      CompileOptions po;
      po.mcpu = target;
      po.filename = file;
      absl::StatusOr<Kernel> p = k.ok() ? ThreadLevelKernel(*k, po) : absl::StatusOr<Kernel>(k.status());
      absl::StatusOr<RunReport> rep = absl::UnknownError("not run");
      KernelWork work;  // of the unpromoted kernel: 2*M*N*K for a gemm
      if (!p.ok()) {
        rep = p.status();
      } else {
        RunOptions ro;
        ro.mcpu = target;
        ro.filename = file;
        ro.seed = flags->seed;
        ro.llvm_bin = *bin;
        work = WorkOf(*k);
        ro.work = work;
        rep = RunAndCheck(*p, *device, ro);
      }
      if (!rep.ok()) {
        r.error = std::string(rep.status().message());
        std::cout << "FAIL " << name << " on " << target << ": " << r.error << "\n";
      } else {
        r.ok = rep->ok;
        r.device = rep->run.device;
        for (const BufferDiff& d : rep->diffs) {
          r.max_abs_err = std::max(r.max_abs_err, d.max_abs_err);
          // NaN (n/a) must stick: std::max would drop it or not depending on the order.
          r.max_rel_err = std::isnan(r.max_rel_err) || std::isnan(d.max_rel_err) ? NAN
                                                                                 : std::max(r.max_rel_err, d.max_rel_err);
        }
        r.milliseconds = rep->run.milliseconds;
        r.timed_launches = rep->run.timed_launches;
        if (r.milliseconds > 0 && r.timed_launches > 0) {  // throughput only for timed (GPU) runs
          r.tflops = Tflops(work, r.milliseconds);
          r.gbps = GigabytesPerSecond(work, r.milliseconds);
        }
        std::cout << (r.ok ? "ok   " : "FAIL ") << name << " on " << target << "\n" << rep->text;
      }
      failed += r.ok ? 0 : 1;
      results.push_back(r);
    }
  }
  std::string path = flags->json;
  if (path.empty()) {
    const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
    path = absl::StrCat(dir != nullptr && *dir != '\0' ? dir : ".", "/regression.json");
  }
  std::ofstream out(path);
  out << ToJson(results);
  if (!out) {
    std::cerr << "regression: cannot write " << path << "\n";
    return 1;
  }
  std::cout << results.size() << " runs, " << failed << " failed; results in " << path << "\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace kir

int main(int argc, char** argv) { return kir::Main(argc, argv); }
