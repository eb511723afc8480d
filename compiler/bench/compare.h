// kirc against LLVM's AMDGPU back end (clang-22) on the same kernels: the
// logic of `bazel run -c opt //compiler/bench:compare` (compare_main.cc).
//
// For one testdata kernel (testdata/kernels/NAME.kir) and its OpenCL twin
// (testdata/baselines/NAME.cl) on one target it measures
// - compile time: kirc in-process (CompileText, KIR text to assembly text,
//   median of `inproc_runs`), kirc as a process (`kirc compile --emit=obj`,
//   .kir to code object, llvm-mc and ld.lld included) and clang-22 as a
//   process (`clang -c` + `ld.lld -shared`, the genrule's commands, .cl to
//   code object), each the median of `process_runs`;
// - code: instructions of the kernel symbol by class (llvm-objdump -d of both
//   code objects, classified the same way), in the K loop (loop_analysis.h
//   FindMainLoop: the innermost loop with the most MFMAs, the rules of
//   loop_analysis.h; none when clang unrolls the loop fully) non-MFMA instructions per
//   MFMA, VGPRs/AGPRs/SGPRs/LDS from
//   the code object notes and the occupancy they allow (kir::Occupancy);
// - execution: both code objects run in the strict emulator on the same
//   seeded inputs (hw/check MakeInputs), dynamic instructions by class per
//   wave, and each output compared with the KIR reference interpreter
//   (hw/check CompareOutputs tolerances) and with the other side's.
// A benchmark: figures are reported, nothing about speed is asserted.
#ifndef KIRC_COMPILER_BENCH_COMPARE_H_
#define KIRC_COMPILER_BENCH_COMPARE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/bench/loop_analysis.h"
#include "absl/status/statusor.h"

namespace kir::bench {

struct CompareOptions {
  std::string kirc_bin = "compiler/tools/kirc";  // the kirc executable (//:kirc, an alias: what `bazel run //:kirc` runs), from the runfiles root
  std::string kernels_dir = "testdata/kernels";  // NAME.kir
  std::string baselines_dir = "testdata/baselines";  // NAME.cl
  std::string llvm_bin = "/usr/lib/llvm-22/bin";  // clang, ld.lld, llvm-objdump, llvm-readelf
  // clang's flags before -mcpu (testdata/baselines/baselines.bzl BASELINE_CLANG_FLAGS).
  std::vector<std::string> clang_flags;
  int inproc_runs = 25;
  int process_runs = 5;
  uint64_t seed = 1;
};

// What a process pays before compiling: the median wall time (ms) of
// `kirc --version` (kirc's start: its static LLVM MC layer and Abseil; Z3 and
// HIP are loaded on first use) and of `llvm-mc --version` (an LLVM 22 tool's start:
// libLLVM-22.so), over
// opts.process_runs * 3 runs each. Errors: a command that fails to run.
struct ProcessFloor {
  double kirc_version_ms = 0;
  double llvm_mc_version_ms = 0;
};
absl::StatusOr<ProcessFloor> MeasureProcessFloor(const CompareOptions& opts);

// One compiler's side of a comparison.
struct SideResult {
  double process_ms = 0;  // median wall time, source file to code object
  std::map<std::string, int> static_by_class;  // kernel symbol, llvm-objdump
  int static_total = 0;
  int loop_total = 0, loop_mfma = 0;  // K loop body (see above; 0 without a loop)
  int vgprs = 0, agprs = 0, sgprs = 0;  // notes: .vgpr_count, .agpr_count, .sgpr_count
  int64_t lds_bytes = 0;
  int occupancy = 0;  // waves per SIMD
  std::map<std::string, int64_t> dynamic_by_class;  // emulator, summed over waves
  int64_t dynamic_total = 0;
  int64_t waves = 0;
  bool matches_reference = false;
  double max_abs_err = 0;  // against the reference, largest over output buffers
  std::string reference_report;  // hw/check FormatDiffs text
  // Non-empty when the emulator refused the code object as UNIMPLEMENTED (an
  // instruction it does not model, e.g. gfx950 v_bitop3_b16): its
  // message. The static figures stand; the dynamic ones and the output
  // checks are absent, and the "ok" column says "not run".
  std::string not_run;
};

struct CompareResult {
  std::string kernel, target;
  double kirc_inproc_ms = 0;  // median CompileText
  SideResult kirc, clang;
  bool outputs_agree = false;  // kirc's output within tolerance of clang's
  double max_abs_diff = 0;     // between the two outputs
  double ProcessRatio() const { return clang.process_ms > 0 ? kirc.process_ms / clang.process_ms : 0; }
  // Every side that ran matches the reference and, when both ran, the two agree.
  bool OutputsOk() const;
};

// The table's "ok": "yes" (OutputsOk with both sides run), "NO", or "clang
// not run" / "kirc not run" (the other side's outputs checked and right).
std::string Verdict(const CompareResult& r);

// The (kernel, targets) pairs that have a baseline, in table order.
std::vector<std::pair<std::string, std::vector<std::string>>> BaselineCases();

// Reads the clang flags file (one flag a line) the BUILD generates from baselines.bzl.
absl::StatusOr<std::vector<std::string>> ReadClangFlags(const std::string& path);

// Measures one kernel on one target (see above). Errors: a compile, toolchain
// or emulator failure (a numeric mismatch is reported, not an error).
absl::StatusOr<CompareResult> CompareKernel(const CompareOptions& opts, const std::string& kernel,
                                            const std::string& target);

// The instructions of kernel symbol `name` in a code object (llvm-objdump -d
// --disassemble-symbols=NAME: clang's __clang_ocl_kern_imp_ copy is another
// symbol), by class, and the K loop's (see above) size and MFMAs.
struct StaticCode {
  std::map<std::string, int> by_class;
  int total = 0, loop_total = 0, loop_mfma = 0;
};
absl::StatusOr<StaticCode> DisassembleKernel(const std::string& llvm_bin, const std::string& hsaco_path,
                                             const std::string& mcpu, const std::string& name);

// MnemonicClass, ParseObjdumpInstructions and FindMainLoop are in
// compiler/bench/loop_analysis.h.

// The report: a text table, JSON and an SVG bar chart of the kirc/clang ratios.
std::string FormatTable(const std::vector<CompareResult>& rows);
std::string FormatMarkdown(const std::vector<CompareResult>& rows);  // for docs/llvm-comparison.md
std::string ToJson(const std::vector<CompareResult>& rows, const std::string& machine,
                   const CompareOptions& opts);
std::string ToSvg(const std::vector<CompareResult>& rows, const std::string& machine);

// "2 x Intel(R) Xeon(R) ..." from /proc/cpuinfo (best effort).
std::string MachineDescription();

}  // namespace kir::bench

#endif  // KIRC_COMPILER_BENCH_COMPARE_H_
