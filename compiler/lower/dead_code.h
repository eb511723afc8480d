// Dead-code removal on lowered MIR: lowering emits whole-vector operations
// (a `cvt` of every element of a vector) even where only part of the result
// is used (a `slice` of it), and an instruction nothing reads would still
// hold its sources live until it issues, which the scheduler may put last.
#ifndef KIRC_COMPILER_LOWER_DEAD_CODE_H_
#define KIRC_COMPILER_LOWER_DEAD_CODE_H_

#include "compiler/isa/instr.h"

namespace kir {

// Removes from `f` every instruction without effects beyond its register
// results (VALU, SALU, MFMA and accvgpr moves; no memory, branch, label,
// wait or barrier) whose results are all dwords of virtual registers that no
// remaining instruction reads anywhere in `f` (flow-insensitive: a dword read
// before the write, e.g. in a loop's next trip, counts as read). Implicit
// results (VCC, SCC, EXEC) and physical registers are never dead. Repeats
// until nothing more is dead (a removed instruction's sources may become
// dead), in time linear in the register accesses. Drops the kept CFG if
// anything was removed. Returns the number of instructions removed.
int RemoveDeadInstructions(MFunction& f);

}  // namespace kir

#endif  // KIRC_COMPILER_LOWER_DEAD_CODE_H_
