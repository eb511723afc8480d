// Compile a KIR kernel, run it on a device with seeded inputs, run the KIR
// reference interpreter on the same inputs, and compare: `kirc run`.
#ifndef KIRC_HW_RUN_RUN_H_
#define KIRC_HW_RUN_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/kernel.h"
#include "hw/check/compare.h"
#include "hw/device.h"

namespace kir {

struct RunOptions {
  std::string mcpu;      // empty: the kernel's target line
  std::string filename;  // the kernel's source file, for error positions
  uint64_t seed = 1;     // input seed (hw/check/inputs.h)
  std::string dump_dir;  // non-empty: write NAME.in.npy / NAME.out.npy / NAME.ref.npy there
  std::string llvm_bin;  // LLVM tools for the code object
};

struct RunReport {
  DeviceRun run;
  std::vector<BufferDiff> diffs;
  bool ok = false;   // every output within tolerance
  std::string text;  // human-readable report (device, statistics, errors per buffer)
};

// Compiles `k`, builds its code object, runs it on `device` and the reference
// interpreter on the same seeded inputs, and compares every output buffer.
// Errors: compile, toolchain, device or interpreter failures (a numeric
// mismatch is not an error: it is RunReport::ok == false).
absl::StatusOr<RunReport> RunAndCheck(const Kernel& k, Device& device, const RunOptions& opts);

}  // namespace kir

#endif  // KIRC_HW_RUN_RUN_H_
