// The address verifier: for every memory instruction of a kernel's final
// machine code (after register allocation, waitcnt and hazard passes) it
// proves with Z3, for all threads and workgroups and all argument pointers,
// that the address computed is the address the KIR access asks for and that
// it stays inside its buffer or LDS allocation (guarded accesses: out-of-shape
// elements are off in EXEC or dropped by the buffer range check).
//
//   absl::StatusOr<kir::CompileResult> r = kir::Compile(kernel, opts);
//   absl::StatusOr<kir::VerifyResult> v =
//       kir::VerifyAddresses(kernel, *r->target, r->lowered);
//   if (!v->all_proved) std::cerr << v->Report();
//
// How (see verify/README.md): symbolic execution of the machine code for one
// symbolic lane with the instruction semantics shared with the emulator
// (compiler/isa/semantics.h), translation of the register values to linear
// integer arithmetic that is sound by construction (exact 32-bit values only
// where an operation needs them, magic-number division by an exactness lemma
// checked in exact arithmetic), one Z3 query per memory instruction. A
// "failed" verdict always carries a counterexample confirmed by concrete
// evaluation with the shared semantics; "unknown" says why.
#ifndef KIRC_VERIFY_VERIFY_H_
#define KIRC_VERIFY_VERIFY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/kernel.h"
#include "compiler/isa/lowered_kernel.h"
#include "compiler/target/target.h"

namespace kir {

struct VerifyOptions {
  // The solver's budget per query (one per memory instruction), in Z3 resource
  // units ("rlimit"). It is counted, not timed, so a verdict is the same on an
  // idle machine and a loaded one. About 1-7 million units a second on a
  // 2-core Xeon (depending on the query); the slowest testdata access uses a
  // small fraction of it. A query that runs out of it is `unknown`. The loop
  // invariant and trip-count sub-queries of symbolic execution get a quarter.
  uint64_t resource_limit = 20'000'000;
  // A wall-clock backstop per query, in seconds (<= 0: none; Z3 counts it in
  // whole milliseconds, at least 1). It never decides a verdict: a query it
  // stops before the query's resource budget ran out makes VerifyAddresses
  // return a DeadlineExceeded error naming the access (or the loop) and
  // saying to rerun on a less loaded machine, not an `unknown` verdict.
  // Normally the resource limit ends a query long before this.
  double timeout_seconds = 60.0;
  // When the solver cannot decide (its resource budget, or a model that an
  // abstraction made spurious), look for a concrete counterexample by
  // evaluating the code's terms at up to `max_search_points` (thread,
  // workgroup) points for each of three argument-pointer settings and a few
  // loop iterations, then by running whole waves of the machine code for at
  // most `max_search_instructions` executed instructions (all waves together,
  // per memory instruction). Both bounds are counts, not time, so the outcome
  // does not depend on machine load. A counterexample found so turns
  // "unknown" into "failed"; it never turns anything into "proved".
  bool search_counterexamples = true;
  int64_t max_search_points = int64_t{1} << 16;
  int64_t max_search_instructions = 4'000'000;
  // Code without an access map (another compiler's code object, edited
  // assembly: verify/object/): LoweredKernel::access_map is ignored and, for
  // each memory instruction (each address of a DS read2/write2), the KIR
  // access it implements is found: every KIR load or store of the same kind
  // (load/store, LDS/buffer) whose element size divides the bytes the
  // instruction moves at that address is a candidate, once for each run of
  // consecutive vector elements of that many bytes; candidates refuted at a
  // few concrete points (all settings of Search's inputs, first and last
  // threads, workgroups and iterations) are dropped, the others are verified
  // in that order and the first proved is the match. An instruction no
  // candidate proves is `failed` ("matches no KIR access", with the closest
  // candidate's counterexample) or `unknown`. LDS allocations the ABI does not
  // place (KernelAbi::lds_offsets) have their base solved: each DS
  // instruction's candidates propose the base that makes their first concrete
  // point agree, and the base most instructions' candidates survive with
  // wins (ties: the lower). Allocations must then be disjoint and inside
  // KernelAbi::lds_bytes (group_segment_fixed_size), else a failed verdict.
  bool match_accesses = false;
  // LDS accesses on a small finite domain are decided without the solver by
  // evaluating the code's terms and the KIR indices (exact, the shared
  // semantics) at every point of the query's domain: every value of each
  // work-item id, workgroup id and machine-loop iteration the address or the
  // KIR index depends on, over the range the solver would be given, when
  // their product is at most this many points and nothing else (pointers,
  // memory contents, abstract values) is involved. Every point holding is a
  // proof; the first that does not is a counterexample. 0: always the solver.
  // The bound is a count, not time. Measured (2026-12-04, 2-core VM, CPU
  // time): //verify/object:load_test's two largest gfx950 GEMM baselines
  // 124 s with the solver alone, 49 s with this default.
  int64_t max_exhaustive_points = int64_t{1} << 16;
  // Stop after the first failed verdict of a memory instruction (of one of
  // its addresses): the verdicts before it and its own are those of a full run (the same queries in the
  // same order on the same solver context, so the same resource counts), and
  // VerifyResult::stopped_early says the rest (later instructions, private
  // accesses, scalar data loads, matching's coverage) was not verified. For
  // callers that need one failure, not all (verify/object:mutation_test's
  // harmful mutants). False: everything is verified.
  bool stop_at_first_failure = false;
};

// The verdict for one memory instruction of the access map (or one the access
// map lacks); a DS read2/write2 has one per address.
struct AccessVerdict {
  int inst_id = -1;        // MInst::id ("[N]" in --annotate output)
  int component = -1;      // DS read2/write2: which address (0, 1; "[N.0]", "[N.1]"); else -1
  // An LDS DMA (buffer_load_dwordx4 ... lds) has two verdicts: "global" (its
  // buffer read, "[N global]") and "LDS" (its LDS write, "[N LDS]"); else empty.
  std::string side;
  int kir_op = -1;         // pre-order index of the KIR load/store
  std::string inst_text;   // the instruction in assembly syntax
  std::string op_text;     // the KIR op, one line
  enum class Status { kProved, kFailed, kUnknown } status = Status::kUnknown;
  std::string reason;          // failed: the obligations violated; unknown: why undecided
  std::string counterexample;  // failed: tid, wg, pointers, emitted and expected
                               // addresses, and the chain of instructions computing them
  // Matching, when pieces of a machine loop's iterations match different KIR
  // accesses: the iterations this verdict covers ("iterations 1, 3, .., 29 of
  // the loop at [140]", "iteration 30 of ..."); empty: every iteration.
  std::string iterations;
  double seconds = 0;
  uint64_t solver_resources = 0;  // Z3 resource units the access's query used
  // > 0: decided without the solver, by evaluating all these points of the
  // query's domain (VerifyOptions::max_exhaustive_points).
  int64_t points_checked = 0;
};

struct VerifyResult {
  std::string kernel, target;
  std::vector<AccessVerdict> accesses;
  // One line per machine loop: trip count, the invariants established by
  // induction, and the live-in registers for which none was.
  std::vector<std::string> loops;
  // VerifyOptions::match_accesses: one line per LDS allocation: its base and
  // where it came from (the ABI, or solved from how many instructions).
  std::vector<std::string> lds_layout;
  bool all_proved = false;
  // VerifyOptions::stop_at_first_failure stopped after a failed instruction:
  // what came after it has no verdict (all_proved is false).
  bool stopped_early = false;
  double seconds = 0;
  // One line per access (status, instruction, KIR op, time), failures and
  // unknowns with their reasons and counterexamples, and a summary line.
  std::string Report() const;
};

// `final_code` is CompileResult::lowered: the final MIR on physical registers,
// the ABI and the access map. Errors: InvalidArgument for inputs that are not
// a compiled kernel (an access map naming an op the kernel lacks is a failed
// access, not an error); DeadlineExceeded when the wall-clock backstop
// (VerifyOptions::timeout_seconds) stopped a query before its resource budget
// ran out: the message names the access or loop and says to rerun on a less
// loaded machine (no verdict depends on wall time, so there is none).
absl::StatusOr<VerifyResult> VerifyAddresses(const Kernel& k, const TargetInfo& t,
                                             const LoweredKernel& final_code,
                                             const VerifyOptions& opts = {});

const char* StatusName(AccessVerdict::Status s);  // "proved", "failed", "unknown"

}  // namespace kir

#endif  // KIRC_VERIFY_VERIFY_H_
