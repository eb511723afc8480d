// Emulator throughput: `bazel run //hw/emu:bench`. Compiles kirc's
// copy and MFMA kernels for each target, loads each code object once and runs
// it repeatedly, printing emulated wave-instructions per second and MFMA
// multiply-accumulates per second, in strict and non-strict mode.
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "hw/emu/emulator.h"

namespace {

using kir::emu::EmuOptions;
using kir::emu::EmuStats;
using kir::emu::LaunchArgs;

struct Case {
  const char* kernel;
  std::vector<size_t> arg_bytes;
  std::array<int64_t, 3> grid;
};

int Main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "testdata/kernels/";
  const std::string llvm_bin = kir::kDefaultLlvmBin;
  const std::vector<Case> cases = {
      {"copy_f32", {8192 * 4, 8192 * 4}, {8, 1, 1}},
      {"mma_16x16x16_f16", {512, 512, 1024}, {1, 1, 1}},
      {"mma_32x32x8_f16", {512, 512, 4096}, {1, 1, 1}},
  };
  std::printf("%-18s %-7s %-7s %10s %14s %14s\n", "kernel", "target", "strict", "runs", "wave-inst/s", "MAC/s");
  for (const Case& c : cases)
    for (const char* mcpu : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
      absl::StatusOr<std::string> text = kir::ReadFileBytes(root + c.kernel + ".kir");
      if (!text.ok()) {
        std::fprintf(stderr, "%s (run from the workspace, or pass the kernels directory)\n",
                     std::string(text.status().message()).c_str());
        return 1;
      }
      kir::CompileOptions o;
      o.mcpu = mcpu;
      absl::StatusOr<kir::CompileResult> r = kir::CompileText(*text, c.kernel, o);
      if (!r.ok()) return std::fprintf(stderr, "%s\n", std::string(r.status().message()).c_str()), 1;
      absl::StatusOr<std::string> hsaco = kir::CodeObjectFor(*r, llvm_bin);
      if (!hsaco.ok()) return std::fprintf(stderr, "%s\n", std::string(hsaco.status().message()).c_str()), 1;
      auto k = kir::emu::LoadCodeObject(llvm_bin, *hsaco, "", mcpu);
      if (!k.ok()) return std::fprintf(stderr, "%s\n", std::string(k.status().message()).c_str()), 1;
      for (bool strict : {true, false}) {
        EmuOptions opts;
        opts.strict = strict;
        int64_t insts = 0, macs = 0, runs = 0;
        auto t0 = std::chrono::steady_clock::now();
        double secs = 0;
        while (secs < 0.5) {
          LaunchArgs a;
          for (size_t n : c.arg_bytes) a.args.emplace_back(n, 0);
          a.grid = c.grid;
          absl::StatusOr<EmuStats> s = kir::emu::RunKernel(**k, a, opts);
          if (!s.ok()) return std::fprintf(stderr, "%s\n", std::string(s.status().message()).c_str()), 1;
          insts += s->total;
          macs += s->mfma_macs;
          ++runs;
          secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        std::printf("%-18s %-7s %-7s %10lld %14.3g %14.3g\n", c.kernel, mcpu, strict ? "yes" : "no",
                    static_cast<long long>(runs), insts / secs, macs / secs);
      }
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // `bazel run` starts in the runfiles tree; BUILD_WORKSPACE_DIRECTORY is the source tree.
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY"); ws != nullptr && argc < 2) {
    std::string dir = std::string(ws) + "/testdata/kernels/";
    char* args[] = {argv[0], dir.data()};
    return Main(2, args);
  }
  return Main(argc, argv);
}
