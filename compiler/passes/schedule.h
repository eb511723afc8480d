// Instruction scheduling within basic blocks, before register allocation:
// a list scheduler over the dependence graph (registers, SCC, EXEC, memory
// order, barriers) that issues long-latency loads first and lets MFMAs issue
// back to back once their operands are read. s_waitcnt insertion runs after
// it, so waits land as late as the new order allows.
#ifndef KIRC_COMPILER_PASSES_SCHEDULE_H_
#define KIRC_COMPILER_PASSES_SCHEDULE_H_

#include "absl/status/status.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

struct ScheduleStats {
  int moved = 0;  // instructions whose position changed
};

// Reorders the instructions of each basic block of `f` (virtual registers)
// without changing what the program computes: an instruction never passes
// one it depends on through a register (RAW, WAR, WAW, per dword), SCC,
// EXEC, or memory (LDS writes against LDS accesses, VMEM stores against VMEM
// accesses, s_barrier against every memory access). Labels, branches and
// s_endpgm stay at the block ends. Within a block, the SGPR values local to it
// (lane masks, uniform address parts) are kept to a budget of 40 dwords (less
// when the block's other SGPR values leave fewer of the target's max_sgprs)
// whenever some ready instruction allows it, so hoisting cannot run register
// allocation out of SGPRs. Errors: malformed control flow.
absl::Status ScheduleBlocks(const TargetInfo& t, MFunction& f, ScheduleStats* stats = nullptr);

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_SCHEDULE_H_
