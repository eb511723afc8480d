// Register allocation: linear scan over live intervals of virtual register
// tuples, per class (VGPR, SGPR, AGPR), honouring tuple alignment and
// precoloured kernel inputs. No spilling: running out is an error.
#ifndef KIRC_COMPILER_PASSES_REGALLOC_H_
#define KIRC_COMPILER_PASSES_REGALLOC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

// Registers used after allocation: one past the highest index of each class.
struct RegUsage {
  int vgprs = 0;
  int sgprs = 0;
  int agprs = 0;
};

// Rewrites every virtual operand of `f` to a physical register. A value lives
// from its first to its last appearance; a register freed by an instruction's
// last use is not reused by that instruction's results (so MFMA srcC and vdst
// are disjoint unless the same vreg). Each class is assigned by first fit in
// start order; when that ends above the class's peak of live registers (or
// runs out), it is assigned again fixed values first, then widest tuples
// first, and the assignment using fewer registers is kept (issue 19: first
// fit's holes cost the gfx950 K-major gemm 130 VGPRs for 127 live). Errors: ResourceExhausted naming the
// register class, the limit and the instruction where it ran out.
// `op_text` (optional): KIR op texts by MInst::kir_op, named in the error.
// `exhausted` (optional): set to the class that ran out when the error is
// ResourceExhausted (the pipeline relowers with AGPR accumulators when VGPRs
// run out on gfx90a/942).
absl::StatusOr<RegUsage> AllocateRegisters(const TargetInfo& t, MFunction& f,
                                           const std::vector<std::string>* op_text = nullptr,
                                           RegClass* exhausted = nullptr);

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_REGALLOC_H_
