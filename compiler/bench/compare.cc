#include "compiler/bench/compare.h"

#include "compiler/bench/loop_analysis.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/api/compile.h"
#include "compiler/emit/asm_printer.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/toolchain.h"
#include "compiler/reference/interpreter.h"
#include "compiler/ir/parser.h"
#include "compiler/promote/promote.h"
#include "compiler/target/target.h"
#include "hw/check/compare.h"
#include "hw/check/json.h"
#include "hw/check/inputs.h"
#include "hw/emu/emu_device.h"

namespace kir::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Runs argv; an error unless it exits 0.
absl::Status Run(const std::vector<std::string>& argv) {
  absl::StatusOr<ProcessResult> r = RunProcess(argv);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0)
    return absl::InternalError(absl::StrCat(absl::StrJoin(argv, " "), " exited with ", r->exit_code,
                                            ":\n", r->stderr_text));
  return absl::OkStatus();
}

// Median wall time of `runs` executions of the command list, and the output file.
absl::StatusOr<double> TimeCommands(const std::vector<std::vector<std::string>>& cmds, int runs) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    for (const auto& c : cmds) {
      absl::Status st = Run(c);
      if (!st.ok()) return st;
    }
    t.push_back(MsSince(t0));
  }
  return Median(t);
}

}  // namespace

absl::StatusOr<ProcessFloor> MeasureProcessFloor(const CompareOptions& opts) {
  ProcessFloor f;
  const int runs = std::max(1, opts.process_runs * 3);
  absl::StatusOr<double> k = TimeCommands({{opts.kirc_bin, "--version"}}, runs);
  if (!k.ok()) return k.status();
  absl::StatusOr<double> m = TimeCommands({{opts.llvm_bin + "/llvm-mc", "--version"}}, runs);
  if (!m.ok()) return m.status();
  f.kirc_version_ms = *k;
  f.llvm_mc_version_ms = *m;
  return f;
}

absl::StatusOr<StaticCode> DisassembleKernel(const std::string& llvm_bin, const std::string& hsaco_path,
                                             const std::string& mcpu, const std::string& name) {
  absl::StatusOr<ProcessResult> r =
      RunProcess({llvm_bin + "/llvm-objdump", "-d", "--mcpu=" + mcpu,
                  "--disassemble-symbols=" + name, hsaco_path});
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) return absl::InternalError(absl::StrCat("llvm-objdump: ", r->stderr_text));
  const std::vector<DisassembledInstruction> lines = ParseObjdumpInstructions(r->stdout_text);
  if (lines.empty())
    return absl::NotFoundError(absl::StrCat("no instructions of symbol ", name, " in ", hsaco_path));
  StaticCode d;
  for (const DisassembledInstruction& l : lines) {
    ++d.by_class[l.cls];
    ++d.total;
  }
  // The K loop (loop_analysis.h FindMainLoop).
  const auto [first, last] = FindMainLoop(lines);
  for (int j = first; first >= 0 && j <= last; ++j) {
    ++d.loop_total;
    if (lines[j].cls == "mfma") ++d.loop_mfma;
  }
  return d;
}

namespace {

absl::Status FillFromCodeObject(const CompareOptions& opts, const TargetInfo& t, const Kernel& run_k,
                                const std::string& hsaco_path, SideResult& s, KernelData& out) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(hsaco_path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<StaticCode> d = DisassembleKernel(opts.llvm_bin, hsaco_path, t.name, run_k.name);
  if (!d.ok()) return d.status();
  s.static_by_class = d->by_class;
  s.static_total = d->total;
  s.loop_total = d->loop_total;
  s.loop_mfma = d->loop_mfma;
  absl::StatusOr<std::string> notes_text = ReadElfNotes(opts.llvm_bin, *bytes);
  if (!notes_text.ok()) return notes_text.status();
  absl::StatusOr<std::vector<KernelNotes>> notes = ParseKernelNotes(*notes_text);
  if (!notes.ok()) return notes.status();
  const KernelNotes* kn = nullptr;
  for (const KernelNotes& n : *notes)
    if (n.name == run_k.name) kn = &n;
  if (kn == nullptr) return absl::NotFoundError(absl::StrCat("no notes for kernel ", run_k.name));
  s.vgprs = static_cast<int>(kn->vgpr_count);
  s.agprs = static_cast<int>(std::max<int64_t>(kn->agpr_count, 0));
  s.sgprs = static_cast<int>(kn->sgpr_count);
  s.lds_bytes = kn->group_segment_fixed_size;
  // gfx90a/942: .vgpr_count is the unified total; gfx908: max(arch, acc).
  s.occupancy = Occupancy(t, static_cast<int>(kn->vgpr_count), static_cast<int>(kn->sgpr_count),
                          kn->group_segment_fixed_size,
                          run_k.WorkgroupThreads());

  // Execution: same seeded inputs on both sides, the reference interpreter.
  out = MakeInputs(run_k, opts.seed);
  EmuDevice dev(opts.llvm_bin);
  absl::StatusOr<DeviceRun> run = dev.Run(run_k, t, *bytes, out);
  if (!run.ok() && run.status().code() == absl::StatusCode::kUnimplemented) {
    s.not_run = std::string(run.status().message());
    return absl::OkStatus();
  }
  if (!run.ok())
    return absl::Status(run.status().code(),
                        absl::StrCat("emulator on ", hsaco_path, ": ", run.status().message()));
  s.dynamic_by_class = run->instructions_by_class;
  s.dynamic_total = run->instructions;
  s.waves = run->waves;
  return absl::OkStatus();
}

void Judge(const std::vector<BufferDiff>& diffs, bool& ok, double& max_err) {
  ok = !diffs.empty();
  max_err = 0;
  for (const BufferDiff& d : diffs) {
    ok = ok && d.ok;
    max_err = std::max(max_err, d.max_abs_err);
  }
}


template <typename M>
std::string JsonMap(const M& m) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : m) parts.push_back(absl::StrCat(JsonString(k), ": ", v));
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::string SideJson(const SideResult& s, const std::string& indent) {
  std::string o = "{\n";
  auto f = [&](const std::string& k, const std::string& v, bool last = false) {
    absl::StrAppend(&o, indent, "  ", JsonString(k), ": ", v, last ? "\n" : ",\n");
  };
  f("process_compile_ms", absl::StrFormat("%.3f", s.process_ms));
  f("instructions", absl::StrCat(s.static_total));
  f("instructions_by_class", JsonMap(s.static_by_class));
  f("loop_instructions", absl::StrCat(s.loop_total));
  f("loop_mfma", absl::StrCat(s.loop_mfma));
  f("vgprs", absl::StrCat(s.vgprs));
  f("agprs", absl::StrCat(s.agprs));
  f("sgprs", absl::StrCat(s.sgprs));
  f("lds_bytes", absl::StrCat(s.lds_bytes));
  f("occupancy", absl::StrCat(s.occupancy));
  f("waves", absl::StrCat(s.waves));
  f("dynamic_instructions", absl::StrCat(s.dynamic_total));
  f("dynamic_by_class", JsonMap(s.dynamic_by_class));
  f("dynamic_per_wave", absl::StrFormat("%.2f", s.waves ? double(s.dynamic_total) / s.waves : 0.0));
  f("matches_reference", s.matches_reference ? "true" : "false");
  f("not_run", JsonString(s.not_run));
  f("max_abs_err", absl::StrFormat("%.6g", s.max_abs_err), true);
  return o + indent + "}";
}

std::string Hint(int loop_total, int loop_mfma) {
  if (loop_mfma == 0) return "-";
  return absl::StrFormat("%.2f", static_cast<double>(loop_total - loop_mfma) / loop_mfma);
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> BaselineCases() {
  // testdata/BUILD BASELINE_TARGETS and GEMM_BASELINE_TARGETS.
  return {
      {"copy_f32", {"gfx908", "gfx90a", "gfx942", "gfx950"}},
      {"add_f16", {"gfx908", "gfx90a", "gfx942", "gfx950"}},
      {"mma_16x16x16_f16", {"gfx908", "gfx90a", "gfx942", "gfx950"}},
      {"mma_16x16x16_bf16", {"gfx90a", "gfx942", "gfx950"}},
      {"mma_32x32x8_f16", {"gfx908", "gfx90a", "gfx942", "gfx950"}},
      {"mma_16x16x32_f16", {"gfx950"}},
      {"mma_32x32x16_bf16", {"gfx950"}},
      {"mma_fp8_fnuz", {"gfx942"}},
      {"mma_fp8_ocp", {"gfx950"}},
      {"gemm_f16_256", {"gfx90a", "gfx942", "gfx950"}},
      {"gemm_f16_256x256x256", {"gfx90a", "gfx942", "gfx950"}},
      {"gemm_f16_1024", {"gfx90a", "gfx942", "gfx950"}},
  };
}

absl::StatusOr<std::vector<std::string>> ReadClangFlags(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileBytes(path);
  if (!text.ok()) return text.status();
  std::vector<std::string> flags;
  for (absl::string_view l : absl::StrSplit(*text, '\n', absl::SkipWhitespace()))
    flags.emplace_back(absl::StripAsciiWhitespace(l));
  if (flags.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no clang flags"));
  return flags;
}

absl::StatusOr<CompareResult> CompareKernel(const CompareOptions& opts, const std::string& kernel,
                                            const std::string& target) {
  CompareResult res;
  res.kernel = kernel;
  res.target = target;
  const std::string kir_path = absl::StrCat(opts.kernels_dir, "/", kernel, ".kir");
  const std::string cl_path = absl::StrCat(opts.baselines_dir, "/", kernel, ".cl");
  absl::StatusOr<std::string> text = ReadFileBytes(kir_path);
  if (!text.ok()) return text.status();
  absl::StatusOr<const TargetInfo*> t = LookupTarget(target);
  if (!t.ok()) return t.status();
  absl::StatusOr<Kernel> k = ParseKernel(*text, kir_path);
  if (!k.ok()) return k.status();
  // The kernel as run: a tile-level gemm is promoted (grid, workgroup, ops).
  absl::StatusOr<Kernel> run_k = ValidateAndPromote(*k, **t, kir_path);
  if (!run_k.ok()) return run_k.status();

  // kirc in process: KIR text to assembly text.
  CompileOptions co;
  co.mcpu = target;
  co.filename = kir_path;
  std::vector<double> times;
  for (int i = 0; i < std::max(1, opts.inproc_runs); ++i) {
    auto t0 = Clock::now();
    absl::StatusOr<CompileResult> r = CompileText(*text, kir_path, co);
    times.push_back(MsSince(t0));
    if (!r.ok()) return r.status();
  }
  res.kirc_inproc_ms = Median(times);

  absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create("kirc_compare.");
  if (!dir.ok()) return dir.status();
  const std::string kirc_hsaco = dir->File(kernel + ".kirc.hsaco");
  const std::string clang_obj = dir->File(kernel + ".clang.o");
  const std::string clang_hsaco = dir->File(kernel + ".clang.hsaco");

  absl::StatusOr<double> kt = TimeCommands(
      {{opts.kirc_bin, "compile", kir_path, "--mcpu=" + target, "--emit=obj", "--llvm-bin=" + opts.llvm_bin,
        "-o", kirc_hsaco}},
      std::max(1, opts.process_runs));
  if (!kt.ok()) return kt.status();
  res.kirc.process_ms = *kt;

  std::vector<std::string> clang = {opts.llvm_bin + "/clang"};
  clang.insert(clang.end(), opts.clang_flags.begin(), opts.clang_flags.end());
  clang.insert(clang.end(), {"-mcpu=" + target, "-c", cl_path, "-o", clang_obj});
  absl::StatusOr<double> ct = TimeCommands(
      {clang, {opts.llvm_bin + "/ld.lld", "-shared", clang_obj, "-o", clang_hsaco}},
      std::max(1, opts.process_runs));
  if (!ct.ok()) return ct.status();
  res.clang.process_ms = *ct;

  KernelData kout, clang_out;
  for (auto [side, path, out] : {std::tuple<SideResult*, std::string, KernelData*>{&res.kirc, kirc_hsaco, &kout},
                                 {&res.clang, clang_hsaco, &clang_out}}) {
    absl::Status st = FillFromCodeObject(opts, **t, *run_k, path, *side, *out);
    if (!st.ok()) return st;
  }

  // Correctness: each side against the KIR reference, and against each other.
  KernelData inputs = MakeInputs(*run_k, opts.seed);
  PagedInterpArgs ia{inputs.buffers, inputs.scalars};
  absl::Status st = Interpret(*run_k, ia);
  if (!st.ok()) return absl::Status(st.code(), absl::StrCat("reference interpreter: ", st.message()));
  KernelData ref{ia.buffers, ia.scalars};
  std::vector<BufferDiff> kd = CompareOutputs(*run_k, kout, ref);
  std::vector<BufferDiff> cd = CompareOutputs(*run_k, clang_out, ref);
  std::vector<BufferDiff> between = CompareOutputs(*run_k, kout, clang_out);
  Judge(kd, res.kirc.matches_reference, res.kirc.max_abs_err);
  Judge(cd, res.clang.matches_reference, res.clang.max_abs_err);
  Judge(between, res.outputs_agree, res.max_abs_diff);
  // A side the emulator refused has no outputs: nothing to judge.
  if (!res.kirc.not_run.empty() || !res.clang.not_run.empty()) res.outputs_agree = false, res.max_abs_diff = 0;
  if (!res.kirc.not_run.empty()) res.kirc.matches_reference = false, res.kirc.max_abs_err = 0, kd.clear();
  if (!res.clang.not_run.empty()) res.clang.matches_reference = false, res.clang.max_abs_err = 0, cd.clear();
  res.kirc.reference_report = FormatDiffs(kd);
  res.clang.reference_report = FormatDiffs(cd);
  return res;
}

bool CompareResult::OutputsOk() const {
  const bool k = kirc.not_run.empty(), c = clang.not_run.empty();
  return (k || c) && (!k || kirc.matches_reference) && (!c || clang.matches_reference) && (!(k && c) || outputs_agree);
}

std::string Verdict(const CompareResult& r) {
  if (!r.OutputsOk()) return "NO";
  if (!r.clang.not_run.empty()) return "clang not run";
  if (!r.kirc.not_run.empty()) return "kirc not run";
  return "yes";
}

std::string FormatTable(const std::vector<CompareResult>& rows) {
  std::string o = absl::StrFormat(
      "%-17s %-6s | %8s | %9s %9s %6s | %11s %11s | %9s %9s | %7s %7s %7s %9s %5s | %13s %5s\n",
      "kernel", "target", "in-proc", "kirc proc", "clang", "ratio", "instr k/c", "mfma/ld k/c",
      "nonmfma/m", "k/c", "VGPR k/c", "AGPR", "SGPR", "LDS", "occ", "dyn/wave k/c", "ok");
  for (const CompareResult& r : rows) {
    const SideResult &k = r.kirc, &c = r.clang;
    auto per_wave = [](const SideResult& s) { return s.waves ? double(s.dynamic_total) / s.waves : 0.0; };
    auto cls = [](const SideResult& s, const char* n) {
      auto it = s.static_by_class.find(n);
      return it == s.static_by_class.end() ? 0 : it->second;
    };
    absl::StrAppend(
        &o, absl::StrFormat(
                "%-17s %-6s | %6.2fms | %7.1fms %7.1fms %6.3f | %5d/%-5d %2d,%-3d/%2d,%-3d | %9s %9s | "
                "%3d/%-3d %3d/%-3d %3d/%-3d %4lld/%-4lld %2d/%-2d | %6.1f/%-6.1f %5s\n",
                r.kernel, r.target, r.kirc_inproc_ms, k.process_ms, c.process_ms, r.ProcessRatio(),
                k.static_total, c.static_total, cls(k, "mfma"), cls(k, "vmem") + cls(k, "ds"),
                cls(c, "mfma"), cls(c, "vmem") + cls(c, "ds"), Hint(k.loop_total, k.loop_mfma),
                Hint(c.loop_total, c.loop_mfma), k.vgprs, c.vgprs, k.agprs, c.agprs, k.sgprs, c.sgprs,
                static_cast<long long>(k.lds_bytes), static_cast<long long>(c.lds_bytes), k.occupancy,
                c.occupancy, per_wave(k), per_wave(c),
                Verdict(r)));
  }
  return o;
}

std::string FormatMarkdown(const std::vector<CompareResult>& rows) {
  std::string o =
      "| kernel | target | kirc in-proc ms | kirc proc ms | clang ms | ratio | instr kirc/clang | "
      "loop non-MFMA per MFMA | VGPR | AGPR | SGPR | LDS | occupancy | executed per wave | ok |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const CompareResult& r : rows) {
    const SideResult &k = r.kirc, &c = r.clang;
    auto per_wave = [](const SideResult& s) { return s.waves ? double(s.dynamic_total) / s.waves : 0.0; };
    absl::StrAppend(
        &o, absl::StrFormat("| %s | %s | %.2f | %.1f | %.1f | %.2f | %d / %d | %s / %s | %d / %d | %d / %d | "
                            "%d / %d | %lld / %lld | %d / %d | %.0f / %.0f | %s |\n",
                            r.kernel, r.target, r.kirc_inproc_ms, k.process_ms, c.process_ms, r.ProcessRatio(),
                            k.static_total, c.static_total, Hint(k.loop_total, k.loop_mfma),
                            Hint(c.loop_total, c.loop_mfma), k.vgprs, c.vgprs, k.agprs, c.agprs, k.sgprs,
                            c.sgprs, static_cast<long long>(k.lds_bytes), static_cast<long long>(c.lds_bytes),
                            k.occupancy, c.occupancy, per_wave(k), per_wave(c),
                            Verdict(r)));
  }
  return o;
}

std::string ToJson(const std::vector<CompareResult>& rows, const std::string& machine,
                   const CompareOptions& opts) {
  std::string o = "{\n";
  absl::StrAppend(&o, "  \"machine\": ", JsonString(machine), ",\n");
  absl::StrAppend(&o, "  \"clang\": ", JsonString(opts.llvm_bin + "/clang " + absl::StrJoin(opts.clang_flags, " ")), ",\n");
  absl::StrAppend(&o, "  \"inproc_runs\": ", opts.inproc_runs, ",\n  \"process_runs\": ", opts.process_runs,
                  ",\n  \"seed\": ", opts.seed, ",\n  \"rows\": [\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const CompareResult& r = rows[i];
    absl::StrAppend(&o, "    {\n      \"kernel\": ", JsonString(r.kernel), ",\n      \"target\": ",
                    JsonString(r.target), ",\n",
                    absl::StrFormat("      \"kirc_inproc_compile_ms\": %.4f,\n", r.kirc_inproc_ms),
                    absl::StrFormat("      \"process_compile_ratio\": %.4f,\n", r.ProcessRatio()),
                    "      \"outputs_agree\": ", r.outputs_agree ? "true" : "false", ",\n",
                    absl::StrFormat("      \"max_abs_diff\": %.6g,\n", r.max_abs_diff),
                    "      \"kirc\": ", SideJson(r.kirc, "      "), ",\n",
                    "      \"clang\": ", SideJson(r.clang, "      "), "\n    }",
                    i + 1 < rows.size() ? ",\n" : "\n");
  }
  return o + "  ]\n}\n";
}

std::string ToSvg(const std::vector<CompareResult>& rows, const std::string& machine) {
  // Grouped horizontal bars on a log2 axis, one group per (kernel, target):
  // kirc/clang for process compile time, static instructions and VGPRs.
  struct Series {
    const char* name;
    const char* color;
  };
  const Series series[3] = {{"compile time (process)", "#4e79a7"},
                            {"instructions (static)", "#f28e2b"},
                            {"VGPRs", "#59a14f"}};
  auto ratio = [](double a, double b) { return b > 0 && a > 0 ? a / b : 1.0; };
  std::vector<std::array<double, 3>> v;
  double lo = 0.5, hi = 2.0;
  for (const CompareResult& r : rows) {
    std::array<double, 3> x = {r.ProcessRatio() > 0 ? r.ProcessRatio() : 1.0,
                               ratio(r.kirc.static_total, r.clang.static_total),
                               ratio(r.kirc.vgprs, r.clang.vgprs)};
    for (double y : x) lo = std::min(lo, y), hi = std::max(hi, y);
    v.push_back(x);
  }
  double l2lo = std::floor(std::log2(lo)), l2hi = std::ceil(std::log2(hi));
  const int left = 210, width = 560, bar = 9, group = 3 * bar + 10, top = 60;
  const int height = top + static_cast<int>(rows.size()) * group + 60;
  auto X = [&](double r) { return left + (std::log2(r) - l2lo) / (l2hi - l2lo) * width; };
  std::string o = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      left + width + 30, height);
  absl::StrAppend(&o, absl::StrFormat("<text x=\"%d\" y=\"20\" font-size=\"14\">kirc / clang-22 (log scale; "
                                      "left of 1 = kirc smaller or faster)</text>\n",
                                      left - 200));
  absl::StrAppend(&o, absl::StrFormat("<text x=\"%d\" y=\"36\" fill=\"#555\">%s</text>\n", left - 200, machine));
  for (int e = static_cast<int>(l2lo); e <= static_cast<int>(l2hi); ++e) {
    double r = std::ldexp(1.0, e);
    double x = X(r);
    absl::StrAppend(&o, absl::StrFormat("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n", x,
                                        top - 5, x, height - 45, e == 0 ? "#000" : "#ddd"));
    absl::StrAppend(&o, absl::StrFormat("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x,
                                        height - 32, r >= 1 ? absl::StrCat(r) : absl::StrCat("1/", 1 / r)));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    int y0 = top + static_cast<int>(i) * group;
    absl::StrAppend(&o, absl::StrFormat("<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s %s</text>\n", left - 6,
                                        y0 + 3 * bar / 2 + 4, rows[i].kernel, rows[i].target));
    for (int s = 0; s < 3; ++s) {
      double x1 = X(1.0), x2 = X(v[i][s]);
      absl::StrAppend(&o, absl::StrFormat("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                                          "<title>%s: %.3f</title></rect>\n",
                                          std::min(x1, x2), y0 + s * bar, std::max(1.0, std::fabs(x2 - x1)),
                                          bar - 1, series[s].color, series[s].name, v[i][s]));
    }
  }
  for (int s = 0; s < 3; ++s) {
    int x = left + s * 170;
    absl::StrAppend(&o, absl::StrFormat("<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                                        "<text x=\"%d\" y=\"%d\">%s</text>\n",
                                        x, height - 20, series[s].color, x + 14, height - 11, series[s].name));
  }
  return o + "</svg>\n";
}

std::string MachineDescription() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model;
  int n = 0;
  while (std::getline(f, line)) {
    if (absl::StartsWith(line, "processor")) ++n;
    if (model.empty() && absl::StartsWith(line, "model name")) {
      size_t c = line.find(':');
      if (c != std::string::npos) model = std::string(absl::StripAsciiWhitespace(line.substr(c + 1)));
    }
  }
  if (model.empty()) return "unknown machine";
  return absl::StrCat(n, " x ", model);
}

}  // namespace kir::bench
