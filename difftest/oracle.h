// The differential oracle of the random-kernel tester (issue 13, section 3):
// one kernel, every target, every check, in process.
//
// Per target ID: compile (success, or a documented limit: ResourceExhausted,
// or the refusal of an MFMA or fp8 type the processor lacks, which the
// generator predicts, message and all);
// the `--emit=kir` round trip (print, parse, compile) must give identical
// assembly; the address verifier must prove every access (failed is a bug; an
// unknown is counted with its reason, see verify/README.md); the strict
// emulator runs the code object against the KIR reference interpreter as
// `kirc run` does (kir::RunAndCheck, InputMode::kAuto: exact inputs and bit
// identity when the exact-input analysis proves them, else random inputs with
// the rounding bound, and adversarial inputs with bit identity for kernels
// without mfma/gemm).
#ifndef KIRC_DIFFTEST_ORACLE_H_
#define KIRC_DIFFTEST_ORACLE_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hw/device.h"

namespace kir::difftest {

// What went wrong: the check ("parse", "compile", "unexpected-compile",
// "roundtrip", "verify", "run", "mismatch", "cross-check", "internal"), on
// which target ID,
// and the message (kirc's, or the oracle's).
struct Finding {
  std::string stage;
  std::string target;
  std::string message;
};

struct OracleOptions {
  std::string llvm_bin;            // llvm-mc, ld.lld, llvm-objdump, llvm-readelf
  uint64_t input_seed = 1;         // RunOptions::seed
  int64_t max_instructions = 4'000'000;  // emulator and reference budgets per run
  bool run = true, verify = true, roundtrip = true;
  // The target IDs the verifier runs on (empty: every one compiled); see
  // VerifyTargetsFor.
  std::vector<std::string> verify_targets;
  // Only these target IDs (empty: all the kernel's); the reducer narrows to
  // the failing one.
  std::vector<std::string> only_targets;
  // Only this check (empty: all); the reducer re-runs just the failing one.
  std::string only_stage;
  // Kernels not from the generator: a refusal of an MFMA ("... does not exist
  // on gfx908") or fp8 type ("... is not available on gfx908") the processor
  // lacks is accepted wherever it occurs.
  bool accept_target_refusals = false;
  // An unknown verdict is a finding ("verify-unknown") unless the kernel is in
  // a class verify/README.md documents as possibly unknown (products of two
  // variable index terms: nonlinear for the solver); the caller says which.
  bool unknown_is_finding = true;
  // A second opinion (docs/rocjitsu.md "Cross-checking with rocjitsu"): with a device
  // here, every run on a processor it lists (`cross_check_processors`) also
  // runs on it, and its buffers must equal the emulator's bit for bit
  // (RunOptions::cross_check); a difference or a failure of that device is
  // a "cross-check" finding. Not owned; must be safe to call from several
  // threads (RocjitsuDevice is: each launch is its own process).
  Device* cross_check = nullptr;
  std::vector<std::string> cross_check_processors;
};

// Counters of what the oracle did for one kernel (summed over targets).
struct Outcome {
  std::vector<Finding> findings;
  int compiled = 0;            // targets that compiled
  int limits = 0;              // documented limit errors (ResourceExhausted)
  int expected_refusals = 0;   // MFMAs or fp8 types the processor lacks, refused as predicted
  int runs_exact = 0, runs_random = 0, runs_adversarial = 0, runs_conversion = 0;  // passes that ran and matched
  int runs_saturation = 0;  // saturation and subnormal passes that ran and matched
  int runs_cross_checked = 0;  // of those, passes the cross-check device agreed with bit for bit
  int accesses = 0, proved = 0, unknown = 0;  // verifier verdicts (failed ones are findings)
  std::vector<std::string> unknown_reasons;   // "target: instruction: reason"
  // Queries the verifier's wall-clock backstop stopped before their resource
  // budget ran out (DeadlineExceeded: no verdict, the machine was too loaded;
  // not a finding, since it says nothing about the code), "target: message".
  std::vector<std::string> backstop_stops;
  std::vector<std::string> limit_messages;
  std::vector<std::string> exact_blockers;    // why random mode ran
  bool ran_ok = false;  // at least one target's run passed
  // Wall time per check, summed over targets (compile includes the round trip).
  double compile_seconds = 0, verify_seconds = 0, run_seconds = 0;
  double proved_seconds = 0, unknown_seconds = 0;  // verifier time by verdict
  double slowest_proof = 0;                        // seconds of the slowest proved access
};

// What a reduction must preserve of a finding: its stage and target and the
// kind of failure, i.e. the message without positions, the op's text and
// numbers (for a mismatch: which output buffers differ). Two findings with
// one class are "the same failure" to the reducer.
std::string FindingClass(const Finding& f);

// Checks one kernel. `target_ids` as GeneratedKernel::target_ids;
// `refusals` as GeneratedKernel::refusals: on a processor it lists, kirc
// must refuse the kernel (InvalidArgument) with a message containing one of
// its strings, and compiling there is a finding ("unexpected-compile").
Outcome CheckKernel(absl::string_view text, absl::string_view filename,
                    const std::vector<std::string>& target_ids,
                    const std::map<std::string, std::set<std::string>>& refusals, const OracleOptions& opts);

// The verifier is 95% of the oracle's time, so by default it checks each
// generated kernel on one of its target IDs, rotating through the processors
// with the seed (seed mod 4: gfx908, gfx90a, gfx942, gfx950), and falling to the next
// one when `refusals` lists its processor. `all`: every target ID.
std::vector<std::string> VerifyTargetsFor(uint64_t seed, const std::vector<std::string>& target_ids,
                                          const std::map<std::string, std::set<std::string>>& refusals,
                                          bool all);

}  // namespace kir::difftest

#endif  // KIRC_DIFFTEST_ORACLE_H_
