// Basic blocks of a linear MIR instruction list: blocks start at index 0 and
// at each label, and end after a branch or s_endpgm (or before a label).
#ifndef KIRC_COMPILER_ISA_CFG_H_
#define KIRC_COMPILER_ISA_CFG_H_

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/isa/instr.h"

namespace kir {

struct BasicBlock {
  int begin = 0, end = 0;   // instruction indices [begin, end)
  std::vector<int> succs;   // block indices: branch target(s), then fall-through
  std::vector<int> preds;
};

// The control-flow graph of `f`. Errors: a branch to an unknown label, or a
// label defined twice.
absl::StatusOr<std::vector<BasicBlock>> BuildCfg(const MFunction& f);

// True if `mi` is a label pseudo-instruction.
inline bool IsLabel(const MInst& mi) { return mi.opc == Opc::kLabel; }

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_CFG_H_
