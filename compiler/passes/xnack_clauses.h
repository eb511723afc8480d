// XNACK soft clauses: with XNACK replay enabled, a run of consecutive memory
// instructions of one kind (VMEM: buffer_*/global_*/flat_*/scratch_*; SMEM:
// s_load_*) is a "soft clause" that the hardware may replay after a page
// fault. The rule (compiler/isa/soft_clause.h, shared with the emulator's
// check of other compilers' code) is LLVM 22's
// GCNHazardRecognizer::checkSoftClauseHazards, which breaks such runs with
// `s_nop 0` whenever the target ID's xnack setting is "any" (no suffix) or
// "+" (clang -O3 output for gfx908/90a/942 shows the nops, and none with
// xnack-).
#ifndef KIRC_COMPILER_PASSES_XNACK_CLAUSES_H_
#define KIRC_COMPILER_PASSES_XNACK_CLAUSES_H_

#include "absl/status/status.h"
#include "compiler/isa/instr.h"

namespace kir {

// Walks f.insts (physical registers: run after register allocation, waitcnt
// and hazard insertion) and inserts `s_nop 0` (id -1) before every VMEM or
// SMEM instruction that would make its run a hazardous soft clause
// (SoftClauseTracker::Check: the run before it has a def and it is a store,
// an atomic or an LDS DMA load, or with it added some def overlaps some use).
// Any other issued instruction (s_waitcnt, s_nop, VALU, DS, ...) ends a run;
// labels do not. `nops` (optional) receives the number inserted.
// Errors: InvalidArgument for a virtual register operand.
absl::Status BreakXnackSoftClauses(MFunction& f, int* nops = nullptr);

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_XNACK_CLAUSES_H_
