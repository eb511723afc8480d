// The compiler's pass pipeline: one table of named passes that Compile runs in
// order, from a validated KIR kernel to register-allocated MIR with its
// resources. Like LLVM's `llc -print-after=... -stop-after=... -time-passes
// -verify-machineinstrs`, a caller can print the kernel before or after any
// pass, stop after one, time every pass, and run the MIR verifier
// (compiler/isa/mir_verifier.h) after each MIR pass.
//
// The passes, in order (PassTable()):
//   validate       KIR: the validator (compiler/analysis/validate.h); KIR in and out
//   promote        KIR: a tile-level gemm becomes thread-level KIR
//                  (compiler/promote/promote.h); skipped without gemm
//   lower          KIR -> MIR on virtual registers (compiler/lower/lower.h)
//   schedule       reorders instructions within blocks (schedule.h)
//   ds-pairing     ds_read2/ds_write2 from pairs of DS accesses (ds_pairing.h)
//   regalloc       virtual -> physical registers (regalloc.h)
//   waitcnt        s_waitcnt insertion (waitcnt.h)
//   hazards        s_nop for the target's hazards (hazards.h)
//   xnack-clauses  s_nop breaking soft clauses under xnack replay (xnack_clauses.h);
//                  skipped for xnack- code
//   resources      registers, LDS and occupancy for the descriptor (resources.h)
// KIR passes print the kernel as KIR text, MIR passes as MIR (PrintMir).
#ifndef KIRC_COMPILER_PASSES_PIPELINE_H_
#define KIRC_COMPILER_PASSES_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/lower/lower.h"
#include "compiler/passes/regalloc.h"
#include "compiler/passes/resources.h"
#include "compiler/target/target.h"

namespace kir {

// One entry of the pass table.
struct PassInfo {
  const char* name;     // as --print-after and --stop-after take it, e.g. "waitcnt"
  const char* summary;  // one line for --help-style listings
  bool mir;             // false: works on KIR (validate, promote); true: on MIR
};
// Every pass, in pipeline order.
const std::vector<PassInfo>& PassTable();
// InvalidArgument naming the valid passes when `name` is not one of them
// (`what` names the option, e.g. "--stop-after").
absl::Status CheckPassName(absl::string_view name, absl::string_view what);

struct PipelineOptions {
  bool schedule = true;  // run `schedule`
  bool pair_ds = true;   // run `ds-pairing`
  // Pass names (or "all") to print the kernel before / after; `print` receives
  // each dump ("# *** IR Dump After waitcnt *** kernel K on gfx942\n" + text).
  // Passes that are skipped (promote without gemm, xnack-clauses for xnack-)
  // print nothing.
  std::set<std::string> print_before, print_after;
  std::function<void(absl::string_view)> print;
  // Stop after this pass (empty: run all). The result then holds the kernel
  // as that pass left it (PipelineResult::stopped_text).
  std::string stop_after;
  // Run the MIR verifier after every MIR pass (and on lower's output); its
  // first failure is an Internal error naming the pass.
  bool verify_each = false;
  // The configuration of the gemm `k` was promoted from (CompileOptions::
  // gemm_tiling); "" otherwise. A gemm kernel's own configuration wins.
  std::string gemm_tiling;
};

// What one pass did: wall time, instructions before and after, and the pass's
// own counters (e.g. waitcnt: waits, vmcnt_waits, lgkmcnt_waits).
struct PassRecord {
  std::string name;
  double seconds = 0;
  int64_t insts_before = 0, insts_after = 0;  // MIR instructions (0 for KIR passes)
  std::vector<std::pair<std::string, int64_t>> counters;
};

struct PipelineResult {
  Kernel kernel;            // the thread-level kernel that was lowered (promoted for gemm)
  bool promoted = false;    // `kernel` came from a gemm
  std::string gemm_tiling;  // the gemm's configuration (GemmConfig::TilingText), if any
  LoweredKernel lowered;    // MIR (physical registers after regalloc), ABI, access map
  std::string mir_text;     // MIR as it entered regalloc (virtual registers)
  RegUsage usage;
  KernelResources resources;
  std::string stopped_after;  // the pass stop_after ended at, or empty
  std::string stopped_text;   // the kernel then (KIR or MIR text)
  std::vector<PassRecord> records;  // the passes that ran, in order
  // gfx90a/942: the first allocation ran out of VGPRs and the kernel was
  // lowered again with its MFMA accumulators in AGPRs (records holds both runs).
  bool acc_in_agprs_retry = false;
  // Allocation ran out of registers after the scheduler's full freedom (loads
  // above other buffers' stores, the MFMA timeline in loops) and the kernel
  // was lowered and scheduled again in the source's memory order without the
  // timeline (records holds both runs): the scheduler's register estimate is
  // approximate, and no kernel may be refused for the freedom it takes.
  bool conservative_schedule_retry = false;
};

// Runs the pipeline on `k` for `target_id`. Errors: those of each pass (with
// `filename` in positions; for a gemm kernel, ResourceExhausted names the
// gemm's configuration and what to change, including the other double_buffer
// or lds_dma setting when the pipeline run again with it compiles),
// InvalidArgument for an unknown pass name in the
// options, Internal when verify_each finds malformed MIR (a kirc bug).
absl::StatusOr<PipelineResult> RunPipeline(const Kernel& k, const TargetId& target_id,
                                           const PipelineOptions& opts,
                                           absl::string_view filename = "");

// The --time-passes report: one line per pass with its time, share of the
// total, instructions before -> after and counters, as LLVM's -time-passes.
std::string FormatPassTimes(const std::vector<PassRecord>& records);

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_PIPELINE_H_
