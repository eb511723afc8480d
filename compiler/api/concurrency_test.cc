// Determinism and concurrent embedding (issue 8): every testdata kernel on
// every target compiles to byte-identical assembly every time, in one thread
// or spread over eight threads through kir::CompileText, as the library has no
// global mutable state.
#include <algorithm>
#include <atomic>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "compiler/api/compile.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {

using ::kir::testing::ReadTestFile;

constexpr const char* kKernelDir = "testdata/kernels";
const char* const kTargets[] = {"gfx908", "gfx90a", "gfx942"};


// The documented refusals (compile_test.cc): gfx908 has no 4-element bf16
// MFMA; gfx908 and gfx90a have no fp8 (testdata/BUILD's refused tests).
bool Refused(const std::string& kernel, const std::string& target) {
  // FNUZ fp8 is gfx942's, OCP fp8, the K-doubled f16/bf16 MFMAs, the LDS
  // DMA and load_tr (ds_read_b64_tr_b16) gfx950's (testdata/BUILD's
  // `unsupported`).
  const bool gfx942_only = kernel == "quant_fp8" || kernel == "dequant_fp8" || kernel == "move_fp8" ||
                           kernel == "mma_fp8_fnuz" || kernel == "gemm_fp8_fnuz_256" ||
                           kernel == "gemm_fp8_fnuz_edge";
  const bool gfx950_only = kernel == "quant_fp8_ocp" || kernel == "dequant_fp8_ocp" || kernel == "move_fp8_ocp" ||
                           kernel == "mma_fp8_ocp" || kernel == "mma_16x16x32_f16" || kernel == "mma_32x32x16_bf16" ||
                           kernel == "gemm_fp8_ocp_256" || kernel == "gemm_fp8_ocp_edge" || kernel == "lds_dma_f32" ||
                           kernel == "mma_tr_16x16x16_f16" || kernel == "load_tr_bf16" ||  // load_tr
                           kernel == "mma_tr_16x16x32_f16" || kernel == "lds_dma_waves_x" ||
                           kernel == "gemm_lds_dma_db_f16";
  return (kernel == "mma_16x16x16_bf16" && target == "gfx908") || (gfx942_only && target != "gfx942") ||
         (gfx950_only && target != "gfx950");
}

struct Job {
  std::string name;    // kernel file stem
  std::string target;
  std::string path;
  std::string text;
  std::string serial;  // the assembly of the serial compile
};

// Every testdata/kernels/*.kir on every target, minus the documented refusal,
// each compiled once serially.
std::vector<Job> SerialJobs() {
  std::vector<std::string> names;
  DIR* d = opendir(kKernelDir);
  if (d == nullptr) return {};
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 4 && n.substr(n.size() - 4) == ".kir") names.push_back(n.substr(0, n.size() - 4));
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  std::vector<Job> jobs;
  for (const std::string& n : names) {
    std::string path = std::string(kKernelDir) + "/" + n + ".kir";
    std::string text = ReadTestFile(path);
    for (const char* t : kTargets) {
      if (Refused(n, t)) continue;
      CompileOptions opts;
      opts.mcpu = t;
      absl::StatusOr<CompileResult> r = CompileText(text, path, opts);
      EXPECT_TRUE(r.ok()) << n << " on " << t << ": " << r.status();
      if (!r.ok()) continue;
      jobs.push_back(Job{n, t, path, text, r->assembly});
    }
  }
  return jobs;
}

// The serial compiles, done once for the whole test binary.
const std::vector<Job>& Jobs() {
  static const std::vector<Job>* jobs = new std::vector<Job>(SerialJobs());
  return *jobs;
}

TEST(Determinism, SerialCoversEveryKernelAndTarget) {
  const std::vector<Job>& jobs = Jobs();
  // 9 kernels today; at least the 8 this test was written against, 3 targets,
  // one documented refusal.
  EXPECT_GE(jobs.size(), 8u * 3 - 1);
  for (const Job& j : jobs) EXPECT_FALSE(j.serial.empty()) << j.name << " on " << j.target;
}

TEST(Determinism, SameKernelTwiceInOneThread) {
  const std::vector<Job>& jobs = Jobs();
  ASSERT_FALSE(jobs.empty());
  for (const Job& j : jobs) {
    CompileOptions opts;
    opts.mcpu = j.target;
    absl::StatusOr<CompileResult> a = CompileText(j.text, j.path, opts);
    absl::StatusOr<CompileResult> b = CompileText(j.text, j.path, opts);
    ASSERT_TRUE(a.ok() && b.ok()) << j.name << " on " << j.target;
    EXPECT_EQ(a->assembly, j.serial) << j.name << " on " << j.target;
    EXPECT_EQ(b->assembly, j.serial) << j.name << " on " << j.target;
    EXPECT_EQ(a->mir_text, b->mir_text) << j.name << " on " << j.target;
  }
}

TEST(Concurrency, ThousandCompilationsOnEightThreads) {
  const std::vector<Job>& jobs = Jobs();
  ASSERT_FALSE(jobs.empty());
  constexpr int kThreads = 8;
  constexpr int kCompilations = 1000;
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  // Per compilation: "" when it matched, else what went wrong (written by the
  // one thread that ran it, read after join).
  std::vector<std::string> failures(kCompilations);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < kCompilations; i = next++) {
        const Job& j = jobs[i % jobs.size()];
        CompileOptions opts;
        opts.mcpu = j.target;
        absl::StatusOr<CompileResult> r = CompileText(j.text, j.path, opts);
        if (!r.ok()) {
          failures[i] = std::string(r.status().message());
        } else if (r->assembly != j.serial) {
          failures[i] = "assembly differs from the serial compile";
        }
        ++done;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(done.load(), kCompilations);
  int bad = 0;
  for (int i = 0; i < kCompilations; ++i) {
    if (failures[i].empty()) continue;
    const Job& j = jobs[i % jobs.size()];
    if (++bad <= 10) ADD_FAILURE() << "compilation " << i << ": " << j.name << " on " << j.target
                                   << ": " << failures[i];
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace kir
