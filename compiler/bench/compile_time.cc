// `bazel run //compiler/bench:compile_time`: compile time and peak
// memory against kernel size, 1k to 32k KIR ops, for several shapes of
// kernel, with the fitted exponent b of time ~ a * ops^b (least squares on
// log-log; 1.0 is linear). Each compile runs in a forked child so that its
// peak resident memory (getrusage's ru_maxrss of the child) is its own. The
// time is the in-process Compile() call (validate through assembly text,
// parse excluded), the median of `--reps` runs. A benchmark: it prints
// figures and asserts nothing.
//
// Shapes:
//   chain  dependent f32 adds and muls (one value live at a time)
//   ldst   load/store pairs at distinct addresses (memory-order chains,
//          one s_waitcnt per pair)
//   loops  sequential 4-trip loops of 6 ops each (many basic blocks)
//   mfma   a chain of 32x32x8 MFMAs accumulating into one f32x16
//
// `--kir=FILE[,FILE...] [--mcpu=TARGET] [--reps=N]` instead times the given
// kernels: CompileText (parse included, as compiler/bench:compare's
// in-process column) to assembly, the median of N runs in one child process
// (also a harness for `perf record`).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"

namespace kir {
namespace {

std::string Header(const std::string& name, int64_t elems) {
  return absl::StrCat("kernel ", name, "\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\n",
                      "arg X : f32[", elems, "] strides [1] readonly\n", "arg Y : f32[", elems,
                      "] strides [1] writeonly\n");
}

// A kernel of about `ops` KIR ops (loop bodies counted once per op).
std::string MakeKernel(const std::string& shape, int ops) {
  std::string s;
  if (shape == "chain") {
    s = Header("chain", 64);
    absl::StrAppend(&s, "  %v0 = load X[tid.x] : f32\n");
    for (int i = 1; i < ops - 1; ++i)
      absl::StrAppend(&s, "  %v", i, " = ", i % 2 ? "add" : "mul", " %v", i - 1, ", %v", i < 2 ? i - 1 : i - 2, "\n");
    absl::StrAppend(&s, "  store Y[tid.x], %v", ops - 2, "\n");
  } else if (shape == "ldst") {
    const int pairs = ops / 2;
    s = Header("ldst", 64LL * pairs);
    for (int i = 0; i < pairs; ++i)
      absl::StrAppend(&s, "  %a", i, " = load X[tid.x + ", 64 * i, "] : f32\n  store Y[tid.x + ", 64 * i, "], %a",
                      i, "\n");
  } else if (shape == "loops") {
    const int loops = ops / 8;  // for + 6 body ops + yield
    s = Header("loops", 256LL * loops);
    for (int i = 0; i < loops; ++i)
      absl::StrAppend(&s, "  for %k", i, " = 0 to 4 {\n", "    %a", i, " = load X[", 256 * i, " + %k", i,
                      " * 64 + tid.x] : f32\n", "    %b", i, " = add %a", i, ", %a", i, "\n", "    %c", i,
                      " = mul %b", i, ", %a", i, "\n", "    %d", i, " = fma %c", i, ", %b", i, ", %a", i, "\n",
                      "    %e", i, " = add %d", i, ", %c", i, "\n", "    store Y[", 256 * i, " + %k", i,
                      " * 64 + tid.x], %e", i, "\n", "    yield\n  }\n");
  } else {  // mfma
    s = absl::StrCat("kernel mfma\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\n",
                     "arg A : f16[32, 8] strides [8, 1] readonly\narg B : f16[32, 8] strides [8, 1] readonly\n",
                     "arg C : f32[32, 32] strides [32, 1] writeonly\n",
                     "  %a = load A[tid.x mod 32, tid.x floordiv 32 * 4] : f16x4\n",
                     "  %b = load B[tid.x mod 32, tid.x floordiv 32 * 4] : f16x4\n", "  %d0 = zero f32x16\n");
    const int n = ops - 4;
    for (int i = 1; i <= n; ++i)
      absl::StrAppend(&s, "  %d", i, " = mfma f32_32x32x8_f16 %a, %b, %d", i - 1, "\n");
    absl::StrAppend(&s, "  store C[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %d", n, "\n");
  }
  return s + "end\n";
}

struct Sample {
  double seconds = -1;  // median compile time, -1 on error
  long max_rss_kb = 0;  // the child's peak resident set
  int insts = 0;
  std::string error;
};

// Parses and compiles `text` `reps` times in a child process; with
// `parse_each_time`, each timed run is CompileText (parse included).
Sample Measure(const std::string& text, int reps, const CompileOptions& opts = {},
               bool parse_each_time = false) {
  int fds[2];
  if (pipe(fds) != 0) return {-1, 0, 0, "pipe failed"};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string msg;
    absl::StatusOr<Kernel> k = ParseKernel(text, "bench.kir");
    if (!k.ok()) {
      msg = absl::StrCat("E ", k.status().message());
    } else {
      std::vector<double> times;
      int insts = 0;
      for (int r = 0; r < reps && msg.empty(); ++r) {
        auto t0 = std::chrono::steady_clock::now();
        absl::StatusOr<CompileResult> c =
            parse_each_time ? CompileText(text, "bench.kir", opts) : Compile(*k, opts);
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (!c.ok()) msg = absl::StrCat("E ", c.status().message());
        else insts = c->stats.total;
      }
      if (msg.empty()) {
        std::sort(times.begin(), times.end());
        msg = absl::StrCat("OK ", times[times.size() / 2], " ", insts);
      }
    }
    ssize_t w = write(fds[1], msg.data(), msg.size());
    (void)w;
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, n);
  close(fds[0]);
  int status = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  wait4(pid, &status, 0, &ru);
  Sample s;
  s.max_rss_kb = ru.ru_maxrss;
  if (out.rfind("OK ", 0) == 0) {
    std::vector<std::string> parts = absl::StrSplit(out.substr(3), ' ');
    if (parts.size() == 2) {
      (void)absl::SimpleAtod(parts[0], &s.seconds);
      (void)absl::SimpleAtoi(parts[1], &s.insts);
    }
  } else {
    s.error = out.empty() ? "the child died" : out.substr(out.find(' ') + 1);
  }
  return s;
}

// Least-squares slope of log(y) on log(x).
double Exponent(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  if (n < 2) return NAN;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// The --kir mode: each file's in-process compile time.
int TimeFiles(const std::vector<std::string>& files, const std::string& mcpu, int reps) {
  std::printf("in-process CompileText (KIR text to assembly, parse included), median of %d\n\n", reps);
  std::printf("%-40s %-10s %8s %12s %12s\n", "kernel", "target", "insts", "time (ms)", "peak RSS MB");
  int failed = 0;
  for (const std::string& f : files) {
    std::string text;
    if (FILE* fp = std::fopen(f.c_str(), "rb")) {
      char buf[65536];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, fp)) > 0) text.append(buf, n);
      std::fclose(fp);
    } else {
      std::printf("%-40s error: cannot read the file\n", f.c_str());
      ++failed;
      continue;
    }
    CompileOptions opts;
    opts.mcpu = mcpu;
    Sample s = Measure(text, reps, opts, /*parse_each_time=*/true);
    if (s.seconds < 0) {
      std::printf("%-40s error: %s\n", f.c_str(), s.error.c_str());
      ++failed;
      continue;
    }
    std::printf("%-40s %-10s %8d %12.3f %12.1f\n", f.c_str(), mcpu.empty() ? "(kernel)" : mcpu.c_str(), s.insts,
                s.seconds * 1e3, s.max_rss_kb / 1024.0);
  }
  return failed ? 1 : 0;
}

int Main(int argc, char** argv) {
  int reps = 3;
  std::vector<int> sizes = {1000, 2000, 4000, 8000, 16000, 32000};
  std::vector<std::string> files;
  std::string mcpu;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--reps=", 0) == 0 && absl::SimpleAtoi(a.substr(7), &reps) && reps > 0) continue;
    if (a.rfind("--kir=", 0) == 0) {
      for (absl::string_view f : absl::StrSplit(a.substr(6), ',', absl::SkipEmpty())) files.emplace_back(f);
      continue;
    }
    if (a.rfind("--mcpu=", 0) == 0) {
      mcpu = a.substr(7);
      continue;
    }
    if (a.rfind("--print=", 0) == 0) {  // --print=SHAPE:OPS writes that kernel's KIR
      std::vector<std::string> p = absl::StrSplit(a.substr(8), ':');
      int ops = 0;
      if (p.size() == 2 && absl::SimpleAtoi(p[1], &ops) && ops >= 8) {
        std::fputs(MakeKernel(p[0], ops).c_str(), stdout);
        return 0;
      }
    }
    if (a == "--quick") {
      sizes = {1000, 2000, 4000};
      continue;
    }
    std::fprintf(stderr,
                 "usage: compile_time [--reps=N] [--quick] [--print=chain|ldst|loops|mfma:OPS]\n"
                 "       compile_time --kir=FILE[,FILE...] [--mcpu=TARGET] [--reps=N]\n");
    return 2;
  }
  if (!files.empty()) return TimeFiles(files, mcpu, reps);
  std::printf("kirc compile time against kernel size (in-process Compile, gfx942, median of %d; peak RSS of a\n"
              "child process that parses and compiles the kernel %d times)\n\n",
              reps, reps);
  std::printf("%-6s %8s %8s %12s %10s %12s\n", "shape", "KIR ops", "insts", "time (ms)", "us/inst", "peak RSS MB");
  for (const char* shape : {"chain", "ldst", "loops", "mfma"}) {
    std::vector<double> xs, ts, ms;
    for (int ops : sizes) {
      Sample s = Measure(MakeKernel(shape, ops), reps);
      if (s.seconds < 0) {
        std::printf("%-6s %8d  error: %s\n", shape, ops, s.error.c_str());
        continue;
      }
      std::printf("%-6s %8d %8d %12.2f %10.2f %12.1f\n", shape, ops, s.insts, s.seconds * 1e3,
                  s.seconds * 1e6 / std::max(1, s.insts), s.max_rss_kb / 1024.0);
      xs.push_back(s.insts);
      ts.push_back(s.seconds);
      ms.push_back(s.max_rss_kb);
    }
    std::printf("%-6s fitted exponent: time ~ insts^%.2f, peak RSS ~ insts^%.2f\n\n", shape, Exponent(xs, ts),
                Exponent(xs, ms));
  }
  return 0;
}

}  // namespace
}  // namespace kir

int main(int argc, char** argv) { return kir::Main(argc, argv); }
