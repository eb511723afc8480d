// Hazard recognizer: inserts s_nop wait states so that every pair of
// instructions is separated by at least RequiredWaitStates (the rules of
// //compiler/isa:hazard_table, amdgcn-isa-notes.md section 2).
//
// Runs after register allocation (every register operand physical) and after
// InsertWaitcnts: an s_waitcnt is an issued instruction and counts as one wait
// state, so inserting waits later could only add wait states, but running the
// hazard pass last keeps the nops minimal.
#ifndef KIRC_COMPILER_PASSES_HAZARDS_H_
#define KIRC_COMPILER_PASSES_HAZARDS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/isa/hazard_table.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

// Optional counters for tests and --stats.
struct HazardNopStats {
  int nops = 0;         // s_nop instructions inserted
  int wait_states = 0;  // wait states they provide
};

// Walks f.insts and, before each instruction whose hazard requirement against
// an earlier instruction (within MaxHazardWindow wait states) is not yet met,
// inserts `s_nop N` instructions covering exactly the deficit: one s_nop per
// at most 8 wait states (N <= 7, as LLVM does; the hardware reads 4 bits, so N
// is never above 15). Inserted instructions have id -1 and a comment with the
// rule's reason. O(n * window).
// Errors: InvalidArgument for a virtual register operand or an input
// `s_nop N` with N outside 0..15.
absl::Status InsertHazardNops(const TargetInfo& t, MFunction& f, HazardNopStats* stats = nullptr);

// The dataflow state at a program point: the recent producers (instructions
// that can start a hazard, CanStartHazard) and the wait states issued after
// each of them. Straight-line code only needs Issue/Pad; Merge is the join at
// CFG merges (loop headers): the minimum distance per producer over all
// predecessors, the worst case.
struct HazardState {
  struct Entry {
    const MInst* inst;  // the producer (owned by the function being processed)
    int elapsed;        // wait states issued after it, up to this point
    const HazardOperands* ops = nullptr;  // its accesses, if collected (owned by the caller)
  };
  std::vector<Entry> recent;  // producers only; oldest first; every elapsed < window
  int window = 0;

  explicit HazardState(int window_wait_states) : window(window_wait_states) {}
  // The wait states still missing before `consumer` can issue here, and the
  // reason of the binding rule in *why (if non-null and the result is > 0).
  int Deficit(const TargetInfo& t, const MInst& consumer, std::string* why) const;
  // The same with the consumer's accesses collected (faster with entries
  // issued as HazardOperands).
  int Deficit(const TargetInfo& t, const HazardOperands& consumer, std::string* why) const;
  // `wait_states` of padding (s_nop) issued at this point.
  void Pad(int wait_states);
  // `inst` issued at this point.
  void Issue(const MInst& inst);
  // The same, keeping `ops` (which must outlive the state) for Deficit.
  void Issue(const HazardOperands& ops);
  // Join with the state of another predecessor.
  void Merge(const HazardState& other);

 private:
  void Push(const MInst& inst, const HazardOperands* ops);
};

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_HAZARDS_H_
