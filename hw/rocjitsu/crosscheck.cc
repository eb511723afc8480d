// bazel run //hw/rocjitsu:crosscheck -- --rocjitsu=DIR: kirc's
// emulator and rocjitsu on the same code objects and inputs, every buffer
// compared bit for bit (RunAndCheck with RunOptions::cross_check), and both
// against the KIR reference. The cases:
//   testdata   every testdata/kernels/*.kir (gemm kernels promoted)
//   difftest   every testdata/difftest/*.kir (the random tester's regressions)
//   baselines  clang-22's code objects of the OpenCL twins
//              (testdata/baselines/NAME.TARGET.hsaco) with their .kir
//   gemm       a sweep of tile-level gemm shapes, layouts and types
// each on every target kirc and the rocjitsu build share (an MFMA a target
// lacks: skipped, said so). Prints one line per run and a table; --json=PATH
// writes the rows. Exit status 0 when every run agrees and matches, 1 when
// one does not, 2 for usage errors. Without a rocjitsu build (no --rocjitsu
// and no $KIRC_ROCJITSU) it prints "skipped: ..." and exits 0.
#include <algorithm>
#include <chrono>
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
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/target/target.h"
#include "hw/check/json.h"
#include "hw/emu/emu_device.h"
#include "hw/rocjitsu/rocjitsu_device.h"
#include "hw/run/run.h"

namespace kir {
namespace {

struct Flags {
  std::string rocjitsu, json;
  std::vector<std::string> targets, only;
  uint64_t seed = 1;
  int gemm_cases = 24;
};

struct Case {
  std::string set, name, text, file, code_object;  // code_object: run this instead of compiling
};

struct Row {
  std::string set, name, target, inputs, verdict, detail;
  double emu_ms = 0, rocjitsu_ms = 0;
  int64_t explained = 0;  // elements whose difference is explained (a documented deviation, unordered sums)
};

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> KirFiles(const std::string& dir) {
  std::vector<std::string> v;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".kir") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

// A tile-level gemm of case i of the sweep: shapes from 1 to 300, every
// layout, f16 and bf16 inputs, f32/f16/bf16 C, with and without beta.
std::string GemmText(int i, const std::string& target) {
  static const int64_t kSizes[] = {1, 16, 33, 64, 100, 129, 160, 200, 257, 300};
  uint64_t s = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i + 1);
  auto next = [&s](uint64_t n) {
    s ^= s >> 31;
    s *= 0xbf58476d1ce4e5b9ull;
    s ^= s >> 27;
    return s % n;
  };
  const int64_t m = kSizes[next(10)], n = kSizes[next(10)], k = kSizes[next(6)];
  const bool a_km = next(2), b_kn = next(2), beta = next(2), bf16 = next(2);
  static const char* kOut[] = {"f32", "f16", "bf16"};
  const char* in = bf16 ? "bf16" : "f16";
  const char* out = kOut[next(3)];
  auto decl = [](const char* name, const char* e, int64_t r, int64_t c, const char* access) {
    return absl::StrCat("arg ", name, " : ", e, "[", r, ", ", c, "] strides [", c, ", 1] ", access, "\n");
  };
  std::string t = absl::StrCat("kernel gemm_sweep_", i, "\ntarget ", target, "\nworkgroup auto\ngrid auto\n");
  t += a_km ? decl("A", in, k, m, "readonly") : decl("A", in, m, k, "readonly");
  t += b_kn ? decl("B", in, k, n, "readonly") : decl("B", in, n, k, "readonly");
  t += decl("C", out, m, n, beta ? "readwrite" : "writeonly");
  t += beta ? "arg alpha : f32\narg beta : f32\n" : "arg alpha : f32\n";
  absl::StrAppend(&t, "  gemm C = alpha * A.", a_km ? "km" : "mk", " * B.", b_kn ? "kn" : "nk",
                  beta ? " + beta * C" : "", "\nend\n");
  return t;
}

std::optional<Flags> ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, "--rocjitsu=")) {
      f.rocjitsu = std::string(a);
    } else if (absl::ConsumePrefix(&a, "--json=")) {
      f.json = std::string(a);
    } else if (absl::ConsumePrefix(&a, "--targets=")) {
      f.targets = absl::StrSplit(a, ',', absl::SkipEmpty());
    } else if (absl::ConsumePrefix(&a, "--only=")) {
      f.only = absl::StrSplit(a, ',', absl::SkipEmpty());
      for (const std::string& s : f.only)
        if (s != "testdata" && s != "difftest" && s != "baselines" && s != "gemm") return std::nullopt;
    } else if (absl::ConsumePrefix(&a, "--seed=")) {
      if (!absl::SimpleAtoi(a, &f.seed)) return std::nullopt;
    } else if (absl::ConsumePrefix(&a, "--gemm-cases=")) {
      if (!absl::SimpleAtoi(a, &f.gemm_cases) || f.gemm_cases < 0) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  return f;
}

int Main(int argc, char** argv) {
  std::optional<Flags> flags = ParseFlags(argc, argv);
  if (!flags) {
    std::cerr << "crosscheck: usage: [--rocjitsu=DIR] [--targets=gfx942,...] "
                 "[--only=testdata,difftest,baselines,gemm] [--gemm-cases=N] [--seed=N] [--json=PATH]\n";
    return 2;
  }
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  if (!bin.ok()) {
    std::cerr << "crosscheck: " << bin.status().message() << "\n";
    return 2;
  }
  RocjitsuOptions rj;
  rj.dir = flags->rocjitsu;
  rj.llvm_bin = *bin;
  absl::StatusOr<std::unique_ptr<RocjitsuDevice>> rocjitsu = OpenRocjitsuDevice(rj);
  if (absl::IsUnavailable(rocjitsu.status())) {
    std::cout << "skipped: " << rocjitsu.status().message() << "\n";
    return 0;
  }
  if (!rocjitsu.ok()) {
    std::cerr << "crosscheck: " << rocjitsu.status().message() << "\n";
    return 2;
  }
  std::cout << "rocjitsu: " << (*rocjitsu)->Name() << ", runs " << absl::StrJoin((*rocjitsu)->Processors(), ", ")
            << "\n";
  std::vector<std::string> targets;
  for (const TargetInfo* t : AllTargets()) {
    const auto& p = (*rocjitsu)->Processors();
    if (std::find(p.begin(), p.end(), t->name) == p.end()) continue;
    if (!flags->targets.empty() && std::find(flags->targets.begin(), flags->targets.end(), t->name) ==
                                       flags->targets.end())
      continue;
    targets.push_back(t->name);
  }
  if (targets.empty()) {
    std::cerr << "crosscheck: no target both kirc and this rocjitsu build run (and --targets names)\n";
    return 2;
  }
  auto want = [&](const char* set) {
    return flags->only.empty() || std::find(flags->only.begin(), flags->only.end(), set) != flags->only.end();
  };
  std::vector<Case> cases;
  if (want("testdata"))
    for (const std::string& f : KirFiles("testdata/kernels"))
      cases.push_back({"testdata", std::filesystem::path(f).stem().string(), ReadText(f), f, ""});
  if (want("difftest"))
    for (const std::string& f : KirFiles("testdata/difftest"))
      cases.push_back({"difftest", std::filesystem::path(f).stem().string(), ReadText(f), f, ""});
  if (want("baselines"))
    for (const std::string& f : KirFiles("testdata/kernels"))
      cases.push_back({"baselines", std::filesystem::path(f).stem().string(), ReadText(f), f, "baselines"});
  if (want("gemm"))
    for (int i = 0; i < flags->gemm_cases; ++i)
      cases.push_back({"gemm", absl::StrCat("gemm_sweep_", i), "", absl::StrCat("<gemm sweep ", i, ">"), ""});

  EmuDevice emu(*bin);
  std::vector<Row> rows;
  int bad = 0;
  for (const Case& c : cases) {
    for (const std::string& target : targets) {
      Row row{c.set, c.name, target};
      std::string code_object;
      if (c.code_object == "baselines") {
        code_object = absl::StrCat("testdata/baselines/", c.name, ".", target, ".hsaco");
        if (!std::filesystem::exists(code_object)) continue;  // no clang twin for this kernel and target
      }
      const std::string text = c.set == "gemm" ? GemmText(std::stoi(c.name.substr(11)), target) : c.text;
      absl::StatusOr<Kernel> k = ParseKernel(text, c.file);
      if (!k.ok()) {
        row.verdict = "error";
        row.detail = std::string(k.status().message());
      } else {
        const TargetInfo& t = **LookupTarget(target);
        const std::string lacks = MfmaTargetLacks(*k, t);
        if (!lacks.empty()) {
          std::cout << "skip " << c.set << "/" << c.name << " on " << target << ": no " << lacks << " MFMA\n";
          continue;
        }
        CompileOptions po;
        po.mcpu = target;
        po.filename = c.file;
        absl::StatusOr<Kernel> p = ThreadLevelKernel(*k, po);
        absl::StatusOr<RunReport> rep = absl::UnknownError("not run");
        if (!p.ok()) {
          rep = p.status();
        } else {
          RunOptions ro;
          ro.mcpu = target;
          ro.filename = c.file;
          ro.seed = flags->seed;
          ro.llvm_bin = *bin;
          ro.code_object_path = code_object;
          ro.cross_check = rocjitsu->get();
          rep = RunAndCheck(*p, emu, ro);
        }
        if (!rep.ok()) {
          row.verdict = "error";
          row.detail = std::string(rep.status().message());
        } else {
          std::vector<std::string> modes;
          bool agree = true, ref = true;
          for (const CheckPass& ps : rep->passes) {
            modes.push_back(InputModeName(ps.mode));
            agree = agree && DevicesAgree(ps.cross_diffs);
            for (const BufferDiff& d : ps.diffs) ref = ref && d.ok;
            row.emu_ms += ps.run.milliseconds;
            if (ps.cross_run) row.rocjitsu_ms += ps.cross_run->milliseconds;
            for (const DeviceDifference& d : ps.cross_diffs)
              if (d.explained > 0) row.explained += d.explained;
            for (const DeviceDifference& d : ps.cross_diffs)
              if (row.detail.empty() && d.differing > 0)
                row.detail = absl::StrFormat("%s: %s emu 0x%x rocjitsu 0x%x (%d of %d differ)", InputModeName(ps.mode),
                                             d.element, d.bits_a, d.bits_b, d.differing, d.elements);
          }
          row.inputs = absl::StrJoin(modes, "+");
          row.verdict = !agree ? "DISAGREE" : ref ? "agree" : "agree, reference differs";
          if (agree && row.explained > 0)
            row.detail = absl::StrCat(row.explained, " explained differences (rocjitsu's documented deviations, "
                                      "or unordered MFMA sums on random inputs within the rounding bound)");
          if (!agree || !ref) std::cout << rep->text;
        }
      }
      if (row.verdict != "agree") ++bad;
      std::cout << absl::StrFormat("%-9s %-44s %-7s %-22s %-10s emu %8.1f ms  rocjitsu %9.1f ms %s\n", row.set,
                                   row.name, row.target, row.inputs, row.verdict, row.emu_ms, row.rocjitsu_ms,
                                   row.detail.empty() ? "" : absl::StrCat(" ", row.detail.substr(0, 300)));
      std::cout.flush();
      rows.push_back(row);
    }
  }
  // The table by set and target.
  std::map<std::pair<std::string, std::string>, std::array<int, 3>> table;  // runs, agree, other
  double emu_ms = 0, rj_ms = 0;
  for (const Row& r : rows) {
    auto& e = table[{r.set, r.target}];
    ++e[0];
    (r.verdict == "agree" ? e[1] : e[2])++;
    emu_ms += r.emu_ms;
    rj_ms += r.rocjitsu_ms;
  }
  std::cout << "\nset        target   runs  agree (bit for bit, and with the reference)  other\n";
  for (const auto& [key, e] : table)
    std::cout << absl::StrFormat("%-10s %-8s %4d  %5d %45d\n", key.first, key.second, e[0], e[1], e[2]);
  std::cout << absl::StrFormat("%d runs, %d not agreeing; time: emulator %.1f s, rocjitsu %.1f s\n", rows.size(),
                               bad, emu_ms / 1e3, rj_ms / 1e3);
  if (!flags->json.empty()) {
    std::ofstream out(flags->json);
    out << "{\"rocjitsu\": " << JsonString((*rocjitsu)->Name()) << ", \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      out << "  {\"set\": " << JsonString(r.set) << ", \"kernel\": " << JsonString(r.name)
          << ", \"target\": " << JsonString(r.target) << ", \"inputs\": " << JsonString(r.inputs)
          << ", \"verdict\": " << JsonString(r.verdict) << ", \"detail\": " << JsonString(r.detail)
          << absl::StrFormat(", \"emu_ms\": %.3f, \"rocjitsu_ms\": %.3f}", r.emu_ms, r.rocjitsu_ms)
          << (i + 1 < rows.size() ? ",\n" : "\n");
    }
    out << "]}\n";
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace
}  // namespace kir

int main(int argc, char** argv) { return kir::Main(argc, argv); }
