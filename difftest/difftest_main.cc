// difftest: the random-kernel differential tester (docs/difftest.md "Random-kernel
// differential testing").
//
//   bazel run //difftest -- --seeds=1:500 --jobs=2
//   bazel run //difftest -- --print=42            # the kernel of seed 42
//   bazel run //difftest -- --check=k.kir ...     # the oracle on files
//
// Exit status: 0 no finding; 1 a finding (each printed, reduced, and written
// to --out as a .kir file), or the run took longer than --budget-seconds; 2
// usage errors.
#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/object/toolchain.h"
#include "difftest/gen.h"
#include "difftest/oracle.h"
#include "difftest/reduce.h"
#include "hw/rocjitsu/rocjitsu_device.h"

namespace {

using kir::difftest::CheckKernel;
using kir::difftest::Finding;
using kir::difftest::GeneratedKernel;
using kir::difftest::OracleOptions;
using kir::difftest::Outcome;

constexpr int kExitUsage = 2;

int Usage(const std::string& why) {
  if (!why.empty()) std::cerr << "difftest: " << why << "\n";
  std::cerr << "usage: difftest [--seeds=FIRST:END] [--jobs=N] [--out=DIR] [--log=FILE] [--budget-seconds=S]\n"
               "                [--max-seconds=S] [--verify-targets=rotate|all] [--no-verify] [--no-run]\n"
               "                [--no-reduce] [--input-seed=N] [--max-instructions=N] [--rocjitsu=DIR | --no-rocjitsu]\n"
               "       difftest --print=SEED\n"
               "       difftest --check FILE.kir [FILE.kir ...] [options]\n"
               "  --check FILE...     the oracle on your own kernels on gfx908, gfx90a, gfx942 and gfx950: a refusal\n"
               "                      other than a documented limit is a finding (it may be the kernel's fault)\n"
               "  --seeds=FIRST:END   kernels of seeds FIRST .. END-1 (default 1:101)\n"
               "  --jobs=N            worker threads (default: all cores)\n"
               "  --out=DIR           write each finding's kernel and its reduction there (default /tmp/kirc-difftest)\n"
               "  --log=FILE          append one line per run: date, seed range, counts, time\n"
               "  --budget-seconds=S  fail (exit 1) when the run took longer than S seconds; it never stops early\n"
               "  --max-seconds=S     long runs: start no new seed after S seconds; the summary and --log name\n"
               "                      the range covered (every seed below its end ran)\n"
               "  --verify-targets=rotate|all  the verifier on one target per kernel (rotating with the seed; default)\n"
               "                      or on all four\n"
               "  --no-verify, --no-run, --no-reduce  leave out a check (for exploring; the CI run has them all)\n"
               "  --rocjitsu=DIR      also run every kernel on rocjitsu (default: $KIRC_ROCJITSU when set), on\n"
               "                      the processors that build runs; its buffers must equal the emulator's bit\n"
               "                      for bit (a difference is a cross-check finding); --no-rocjitsu: never\n";
  return kExitUsage;
}

// A file or log that cannot be used: the reason only (exit 2).
int InputError(const std::string& why) {
  std::cerr << "difftest: " << why << "\n";
  return kExitUsage;
}

struct Totals {
  int64_t kernels = 0, gemm_kernels = 0, compiled = 0, limits = 0, expected_refusals = 0;
  int64_t runs_exact = 0, runs_random = 0, runs_adversarial = 0, runs_conversion = 0, runs_saturation = 0, kernels_ran = 0,
          runs_cross_checked = 0;
  int64_t accesses = 0, proved = 0, unknown = 0, findings = 0;
  double compile_s = 0, verify_s = 0, run_s = 0, proved_s = 0, unknown_s = 0, slowest_proof = 0;
  std::map<std::string, int64_t> generated, ran;  // per feature
  std::map<std::string, int64_t> unknown_reasons, limit_kinds, blockers, backstops;
  std::vector<std::string> failure_lines;
};

// A short class of a message for the tables: its first 90 characters up to a
// digit-free form (numbers collapsed), so similar messages group.
std::string MessageClass(const std::string& m) {
  std::string s;
  bool in_num = false;
  for (char c : m.substr(0, std::min<size_t>(m.size(), 140))) {
    if (c == '\n') break;
    if ((c >= '0' && c <= '9')) {
      if (!in_num) s += 'N';
      in_num = true;
      continue;
    }
    in_num = false;
    s += c;
  }
  return s;
}

std::string Now() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t first = 1, end = 101;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string out_dir = "/tmp/kirc-difftest", log_file, rocjitsu_dir;
  bool no_rocjitsu = false;
  double budget = 0, max_seconds = 0;
  bool reduce = true, verify_all = false;
  OracleOptions oo;
  std::vector<std::string> check_files;
  bool print_only = false;
  uint64_t print_seed = 0;
  // Flags take --flag=VALUE or --flag VALUE (as kirc's do).
  std::vector<std::string> args;
  static const std::set<std::string> kValued = {"--seeds", "--jobs", "--out", "--log", "--budget-seconds",
                                                "--input-seed", "--max-instructions", "--print",
                                                "--verify-targets", "--max-seconds", "--rocjitsu"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (kValued.count(a)) {
      if (i + 1 >= argc) return Usage(absl::StrCat(a, " needs a value (", a, "=VALUE or ", a, " VALUE)"));
      a += "=" + std::string(argv[++i]);
    }
    args.push_back(a);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    auto value = [&](const char* flag, std::string* v) {
      std::string f = std::string(flag) + "=";
      if (a.rfind(f, 0) != 0) return false;
      *v = a.substr(f.size());
      return true;
    };
    std::string v;
    if (value("--seeds", &v)) {
      std::vector<std::string> p = absl::StrSplit(v, ':');
      if (p.size() != 2 || !absl::SimpleAtoi(p[0], &first) || !absl::SimpleAtoi(p[1], &end) || end <= first)
        return Usage("--seeds needs FIRST:END with FIRST < END, e.g. --seeds=1:500");
    } else if (value("--jobs", &v)) {
      if (!absl::SimpleAtoi(v, &jobs) || jobs < 1 || jobs > 256) return Usage("--jobs needs 1..256");
    } else if (value("--out", &v)) {
      out_dir = v;
    } else if (value("--log", &v)) {
      log_file = v;
    } else if (value("--budget-seconds", &v)) {
      if (!absl::SimpleAtod(v, &budget) || budget <= 0) return Usage("--budget-seconds needs a positive number");
    } else if (value("--max-seconds", &v)) {
      if (!absl::SimpleAtod(v, &max_seconds) || max_seconds <= 0) return Usage("--max-seconds needs a positive number");
    } else if (value("--input-seed", &v)) {
      if (!absl::SimpleAtoi(v, &oo.input_seed)) return Usage("--input-seed needs a non-negative integer");
    } else if (value("--max-instructions", &v)) {
      if (!absl::SimpleAtoi(v, &oo.max_instructions) || oo.max_instructions < 0)
        return Usage("--max-instructions needs a non-negative integer");
    } else if (value("--print", &v)) {
      if (!absl::SimpleAtoi(v, &print_seed)) return Usage("--print needs a seed");
      print_only = true;
    } else if (value("--check", &v) || a == "--check") {
      if (a != "--check") check_files.push_back(v);
      for (++i; i < args.size() && args[i][0] != '-'; ++i) check_files.push_back(args[i]);
      --i;
      if (check_files.empty()) return Usage("--check needs .kir files");
    } else if (a == "--help" || a == "-h") {
      Usage("");
      return 0;
    } else if (a == "--no-reduce") {
      reduce = false;
    } else if (value("--verify-targets", &v)) {
      if (v != "all" && v != "rotate") return Usage("--verify-targets needs all or rotate");
      verify_all = v == "all";
    } else if (a == "--no-verify") {
      oo.verify = false;
    } else if (a == "--no-run") {
      oo.run = false;
    } else if (value("--rocjitsu", &v)) {
      rocjitsu_dir = v;
    } else if (a == "--no-rocjitsu") {
      no_rocjitsu = true;
    } else {
      return Usage(absl::StrCat("unknown argument '", a, "'"));
    }
  }
  if (print_only) {
    GeneratedKernel g = kir::difftest::Generate(print_seed);
    std::cout << g.text;
    return 0;
  }
  absl::StatusOr<std::string> bin = kir::ResolveLlvmBin(std::nullopt);
  if (!bin.ok()) {
    std::cerr << "difftest: " << bin.status().message() << "\n";
    return kExitUsage;
  }
  oo.llvm_bin = *bin;
  // rocjitsu as a second opinion when a build is named (flag or environment).
  std::unique_ptr<kir::RocjitsuDevice> rocjitsu;
  if (!rocjitsu_dir.empty() && no_rocjitsu) return Usage("--rocjitsu and --no-rocjitsu contradict each other");
  if (!no_rocjitsu) {
    kir::RocjitsuOptions rj;
    rj.dir = rocjitsu_dir;
    rj.llvm_bin = *bin;
    absl::StatusOr<std::unique_ptr<kir::RocjitsuDevice>> d = kir::OpenRocjitsuDevice(rj);
    if (d.ok()) {
      rocjitsu = *std::move(d);
      oo.cross_check = rocjitsu.get();
      oo.cross_check_processors = rocjitsu->Processors();
      std::cerr << "difftest: cross-checking with " << rocjitsu->Name() << " on " << absl::StrJoin(rocjitsu->Processors(), ", ")
                << "\n";
    } else if (!absl::IsUnavailable(d.status())) {
      return InputError(absl::StrCat("--rocjitsu: ", d.status().message()));
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return Usage(absl::StrCat("cannot create --out directory '", out_dir, "': ", ec.message()));

  // Work items: generated seeds, or files.
  struct Item {
    std::string name, text, filename;
    std::vector<std::string> targets;
    std::map<std::string, std::set<std::string>> lacks;
    std::set<std::string> features;
    bool gemm = false;
    bool accept_missing_mfma = false;
    std::vector<std::string> verify_targets;  // empty: all
  };
  // --check: every file is read before anything runs; one that cannot be
  // read is a usage error (exit 2), not a finding.
  std::vector<std::string> file_texts;
  for (const std::string& f : check_files) {
    std::error_code fe;
    if (f.empty()) return Usage("--check: an empty file name");
    if (std::filesystem::is_directory(f, fe)) return InputError(absl::StrCat("--check: '", f, "' is a directory, not a .kir file"));
    std::ifstream in(f, std::ios::binary);
    if (!in) return InputError(absl::StrCat("--check: cannot read '", f, "': ", std::strerror(errno)));
    std::stringstream ss;
    ss << in.rdbuf();
    file_texts.push_back(ss.str());
  }
  if (!log_file.empty()) {
    std::ofstream probe(log_file, std::ios::app);
    if (!probe) return InputError(absl::StrCat("--log: cannot append to '", log_file, "': ", std::strerror(errno)));
  }
  auto make_item = [&](uint64_t idx) -> Item {
    Item it;
    if (!check_files.empty()) {
      const std::string& f = check_files[idx];
      it.name = f;
      it.filename = f;
      it.text = file_texts[idx];
      for (const char* p : kir::difftest::kProcessors) it.targets.push_back(p);
      it.accept_missing_mfma = true;
      return it;
    }
    GeneratedKernel g = kir::difftest::Generate(first + idx);
    it.name = absl::StrCat("seed ", g.seed);
    it.filename = absl::StrCat(g.name, ".kir");
    it.text = g.text;
    it.targets = g.target_ids;
    it.lacks = g.refusals;
    it.features = g.features;
    it.gemm = g.is_gemm;
    it.verify_targets = kir::difftest::VerifyTargetsFor(g.seed, g.target_ids, g.refusals, verify_all);
    return it;
  };
  const uint64_t count = check_files.empty() ? end - first : check_files.size();
  std::atomic<uint64_t> next{0};
  std::mutex mu;
  Totals tot;
  const auto t0 = std::chrono::steady_clock::now();
  auto worker = [&]() {
    for (;;) {
      if (max_seconds > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > max_seconds)
        return;
      uint64_t idx = next.fetch_add(1);
      if (idx >= count) return;
      Item it = make_item(idx);
      OracleOptions o = oo;
      std::map<std::string, std::set<std::string>> lacks = it.lacks;
      // Files: any processor may lack the kernel's MFMA or fp8 types; the
      // oracle accepts kirc's refusal for them.
      o.accept_target_refusals = it.accept_missing_mfma;
      o.verify_targets = it.verify_targets;
      // verify/README.md documents unknowns for products of two variable
      // index terms; every other unknown is a finding.
      o.unknown_is_finding = it.features.count("index:product-of-variables") == 0;
      Outcome r = CheckKernel(it.text, it.filename, it.targets, lacks, o);
      std::vector<std::string> reports;
      bool reduce_this_kernel = true;
      for (const Finding& f : r.findings) {
        std::string report = absl::StrCat("FINDING ", it.name, ": ", f.stage,
                                          f.target.empty() ? "" : absl::StrCat(" on ", f.target), ": ", f.message);
        std::string base = absl::StrCat(out_dir, "/", std::filesystem::path(it.filename).stem().string(), ".",
                                         f.stage, f.target.empty() ? "" : ".", f.target.substr(0, 6));
        std::ofstream(base + ".kir") << it.text;
        if (reduce && reduce_this_kernel) {
          OracleOptions ro = o;
          ro.only_targets = {f.target};
          ro.only_stage = f.stage;
          // The same failure: stage, target and kind of message
          // (FindingClass), so a miscompile never "reduces" to another error.
          const std::string want = kir::difftest::FindingClass(f);
          auto same = [&](const std::string& cand) {
            Outcome c = CheckKernel(cand, it.filename, it.targets, lacks, ro);
            for (const Finding& g : c.findings)
              if (kir::difftest::FindingClass(g) == want) return true;
            return false;
          };
          std::string small = kir::difftest::ReduceKernel(it.text, same, 300);
          std::ofstream(base + ".reduced.kir") << "# " << f.stage << " on " << f.target << "\n" << small;
          absl::StrAppend(&report, "\nreduced kernel (", base, ".reduced.kir):\n", small);
        }
        reports.push_back(std::move(report));
        reduce_this_kernel = false;  // the first finding of a kernel is reduced; the rest are printed
      }
      std::lock_guard<std::mutex> l(mu);
      ++tot.kernels;
      tot.gemm_kernels += it.gemm;
      tot.compiled += r.compiled;
      tot.limits += r.limits;
      tot.expected_refusals += r.expected_refusals;
      tot.runs_exact += r.runs_exact;
      tot.runs_random += r.runs_random;
      tot.runs_adversarial += r.runs_adversarial;
      tot.runs_conversion += r.runs_conversion;
      tot.runs_saturation += r.runs_saturation;
      tot.runs_cross_checked += r.runs_cross_checked;
      tot.kernels_ran += r.ran_ok;
      tot.accesses += r.accesses;
      tot.compile_s += r.compile_seconds;
      tot.verify_s += r.verify_seconds;
      tot.run_s += r.run_seconds;
      tot.proved_s += r.proved_seconds;
      tot.unknown_s += r.unknown_seconds;
      tot.slowest_proof = std::max(tot.slowest_proof, r.slowest_proof);
      tot.proved += r.proved;
      tot.unknown += r.unknown;
      tot.findings += static_cast<int64_t>(r.findings.size());
      for (const std::string& f : it.features) {
        ++tot.generated[f];
        if (r.ran_ok) ++tot.ran[f];
      }
      for (const std::string& u : r.unknown_reasons) ++tot.unknown_reasons[MessageClass(u)];
      for (const std::string& m : r.limit_messages) ++tot.limit_kinds[MessageClass(m)];
      for (const std::string& m : r.backstop_stops) ++tot.backstops[MessageClass(m)];
      for (const std::string& b : r.exact_blockers) ++tot.blockers[MessageClass(b.substr(b.find(": ") + 2))];
      for (const std::string& rep : reports) {
        std::cout << rep << "\n";
        tot.failure_lines.push_back(rep.substr(0, rep.find('\n')));
      }
      if (tot.kernels % 50 == 0) {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cerr << "difftest: " << tot.kernels << "/" << count << " kernels, " << tot.findings << " findings, "
                  << static_cast<int64_t>(s) << " s\n";
      }
      std::cout.flush();
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Coverage table.
  if (check_files.empty()) {
    std::cout << "\ncoverage (kernels generated with the feature / kernels that ran and matched on at least one target)\n";
    std::set<std::string> names(kir::difftest::AllFeatures().begin(), kir::difftest::AllFeatures().end());
    for (const auto& [f, n] : tot.generated) names.insert(f);
    for (const std::string& f : names)
      std::printf("  %-44s %7lld %7lld\n", f.c_str(), static_cast<long long>(tot.generated[f]),
                  static_cast<long long>(tot.ran[f]));
  }
  const int64_t runs = tot.runs_exact + tot.runs_random;
  std::cout << "\nlimits (documented refusals):\n";
  for (const auto& [m, n] : tot.limit_kinds) std::cout << "  " << n << "x " << m << "\n";
  std::cout << "random inputs instead of exact ones, because:\n";
  for (const auto& [m, n] : tot.blockers) std::cout << "  " << n << "x " << m << "\n";
  std::cout << "verifier queries stopped by the wall-clock backstop (no verdict; the machine was loaded):\n";
  for (const auto& [m, n] : tot.backstops) std::cout << "  " << n << "x " << m << "\n";
  std::cout << "verifier unknowns by reason:\n";
  for (const auto& [m, n] : tot.unknown_reasons) std::cout << "  " << n << "x " << m << "\n";
  std::ostringstream sum;
  // Workers take seeds in order, so when --max-seconds stopped them every seed
  // below the first one not taken ran.
  const uint64_t covered_end = check_files.empty() ? first + std::min<uint64_t>(next.load(), count) : end;
  if (check_files.empty())
    sum << "difftest: seeds " << first << ":" << covered_end << ", ";
  else
    sum << "difftest: " << check_files.size() << " files, ";
  sum << tot.kernels << " kernels (" << tot.gemm_kernels << " gemm) x " << kir::difftest::kNumProcessors << " targets in " << absl::StrFormat("%.1f", secs) << " s with "
      << jobs << " jobs (" << absl::StrFormat("%.0f", tot.kernels / secs * 3600) << " kernels/hour); compiled "
      << tot.compiled << ", limits " << tot.limits << ", target refusals as predicted " << tot.expected_refusals
      << "; runs matched: " << runs << " (" << tot.runs_exact << " exact, " << tot.runs_random << " random) + "
      << tot.runs_adversarial << " adversarial + " << tot.runs_conversion << " conversion + " << tot.runs_saturation
      << " saturation/subnormal"
      << (rocjitsu ? absl::StrCat(" (", tot.runs_cross_checked, " of them also on ", rocjitsu->Name().substr(0, 17),
                                  ", bit-identical)")
                   : std::string())
      << "; verifier: " << tot.accesses << " accesses, " << tot.proved
      << " proved (" << absl::StrFormat("%.3f", tot.accesses ? 100.0 * tot.proved / tot.accesses : 100.0)
      << "%), " << tot.unknown << " unknown; findings: " << tot.findings << "; thread time: compile "
      << absl::StrFormat("%.0f", tot.compile_s) << " s, verify " << absl::StrFormat("%.0f", tot.verify_s)
      << " s (proved " << absl::StrFormat("%.0f", tot.proved_s) << " s, slowest "
      << absl::StrFormat("%.2f", tot.slowest_proof) << " s; unknown " << absl::StrFormat("%.0f", tot.unknown_s)
      << " s), run " << absl::StrFormat("%.0f", tot.run_s) << " s";
  std::cout << sum.str() << "\n";
  for (const std::string& f : tot.failure_lines) std::cout << "  " << f << "\n";
  if (!log_file.empty()) {
    std::ofstream log(log_file, std::ios::app);
    log << Now() << " " << sum.str() << "\n";
    if (!log) {
      std::cerr << "difftest: cannot append to --log '" << log_file << "'\n";
      return kExitUsage;
    }
  }
  int rc = tot.findings == 0 ? 0 : 1;
  if (budget > 0 && secs > budget) {
    std::cout << "difftest: FAILED: the run took " << absl::StrFormat("%.0f", secs) << " s, over its budget of "
              << budget << " s; shrink the seed range (every seed ran: the run never stops early)\n";
    rc = 1;
  }
  return rc;
}
