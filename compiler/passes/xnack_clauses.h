// XNACK soft clauses: with XNACK replay enabled, a run of consecutive memory
// instructions of one kind (VMEM: buffer_*/global_*; SMEM: s_load_*) is a
// "soft clause" that the hardware may replay after a page fault, so no
// instruction in it may write a register that an instruction of the run
// (itself included) reads, and a store may not follow a load in it. LLVM 22
// breaks such runs with `s_nop 0` whenever the target ID's xnack setting is
// "any" (no suffix) or "+" (GCNHazardRecognizer::checkSoftClauseHazards; clang
// -O3 output for gfx908/90a/942 shows the nops, and none with xnack-).
#ifndef KIRC_COMPILER_PASSES_XNACK_CLAUSES_H_
#define KIRC_COMPILER_PASSES_XNACK_CLAUSES_H_

#include "absl/status/status.h"
#include "compiler/isa/instr.h"

namespace kir {

// Walks f.insts (physical registers: run after register allocation, waitcnt
// and hazard insertion) and inserts `s_nop 0` (id -1) before every VMEM or
// SMEM instruction that would make its run a hazardous soft clause:
//  - the run before it has a def and it is a store, or
//  - the run before it has a def and, with it added, some def overlaps some
//    use (a d16 load that keeps half of its destination reads it too).
// Any other issued instruction (s_waitcnt, s_nop, VALU, DS, ...) ends a run;
// labels do not. `nops` (optional) receives the number inserted.
// Errors: InvalidArgument for a virtual register operand.
absl::Status BreakXnackSoftClauses(MFunction& f, int* nops = nullptr);

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_XNACK_CLAUSES_H_
