// Compile a KIR kernel, run it on a device with seeded inputs, run the KIR
// reference interpreter on the same inputs, and compare: `kirc run`.
#ifndef KIRC_HW_RUN_RUN_H_
#define KIRC_HW_RUN_RUN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/kernel.h"
#include "hw/check/compare.h"
#include "hw/device.h"
#include "hw/run/work.h"

namespace kir {

struct RunOptions {
  std::string mcpu;      // empty: the kernel's target line
  std::string filename;  // the kernel's source file, for error positions
  uint64_t seed = 1;     // input seed (hw/check/inputs.h)
  // Non-empty: write each buffer's NAME.in.npy / NAME.out.npy / NAME.ref.npy
  // and the scalar arguments' values as KERNEL.scalars.json there.
  std::string dump_dir;
  std::string llvm_bin;  // LLVM tools for the code object
  // Non-empty: run this existing code object (e.g. a kir_kernel build output)
  // instead of compiling `k`. It must belong to the kernel: its metadata must
  // be for the resolved target and hold a kernel named k.name whose explicit
  // arguments are k's (same count, names where the metadata gives them, in
  // order); otherwise RunAndCheck returns InvalidArgument naming the path.
  std::string code_object_path;
  // The work behind the throughput figures of a timed (HIP) run; default
  // WorkOf(k). Pass WorkOf of the unpromoted kernel when `k` is a promoted
  // gemm, so TFLOP/s counts 2*M*N*K rather than the padded tiles' MFMAs.
  std::optional<KernelWork> work;
  // > 0: the reduction length behind the f32 tolerance (ToleranceFor). Pass
  // ReductionLength of the unpromoted kernel when `k` is a promoted gemm, so
  // the tolerance uses the gemm's K rather than the padded ceil(K/BK)*BK.
  int64_t reduction_length = 0;
  // The reference interpreter's budget (InterpOptions::max_wave_ops; 0 = no
  // limit) and the hint appended to its error. `kirc run --max-instructions=N`
  // gives the emulator (EmuOptions::max_instructions) and the interpreter the
  // same N.
  int64_t max_reference_wave_ops = 0;
  std::string budget_hint;
  // Host bytes the run may use; -1: what the process may still allocate
  // (AvailableHostBytes, hw/run/host_memory.h). A run that needs more
  // (RunHostBytes) is refused with ResourceExhausted before inputs are made.
  int64_t host_memory_limit = -1;
};

struct RunReport {
  DeviceRun run;
  std::vector<BufferDiff> diffs;
  bool ok = false;   // every output within tolerance
  std::string text;  // human-readable report (device, scalar arguments, statistics, errors per buffer)
};

// Compiles `k`, builds its code object (or reads opts.code_object_path), runs
// it on `device` and the reference interpreter on the same seeded inputs, and
// compares every output buffer. Errors: a kernel with no writable buffer
// (FailedPrecondition: there would be nothing to compare; checked first),
// compile, toolchain, device or interpreter failures (among them the strict
// emulator's and the interpreter's reads of never-written LDS and their
// instruction budgets), a code object that is not k's (a numeric mismatch is
// not an error: it is RunReport::ok == false).
absl::StatusOr<RunReport> RunAndCheck(const Kernel& k, Device& device, const RunOptions& opts);

// The scalar arguments' values, "alpha = 1.52937353 (f32), n = 42 (i32)", or
// "" when `k` has none; and the same as a JSON object
// {"alpha": {"type": "f32", "value": 1.52937353, "bits": "0x3fc3c1a0"}, ...}.
std::string FormatScalars(const Kernel& k, const KernelData& d);
std::string ScalarsJson(const Kernel& k, const KernelData& d);

}  // namespace kir

#endif  // KIRC_HW_RUN_RUN_H_
