#include "compiler/passes/xnack_clauses.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/isa/cfg.h"
#include "compiler/isa/soft_clause.h"

namespace kir {

absl::Status BreakXnackSoftClauses(MFunction& f, int* nops) {
  int inserted = 0;
  std::vector<MInst> out;
  out.reserve(f.insts.size());
  SoftClauseTracker clause;  // the rule: compiler/isa/soft_clause.h
  // The kept CFG's blocks, renumbered as nops go in. A nop goes right before
  // a memory instruction that continues a clause, so never first in a block:
  // a block starts with a label (the nop follows it) or after a branch (which
  // ends the clause).
  std::vector<int> new_begin;
  size_t next_block = 0;
  for (size_t i = 0; i < f.insts.size(); ++i) {
    if (f.cfg_valid && next_block < f.blocks.size() && f.blocks[next_block].begin == static_cast<int>(i)) {
      new_begin.push_back(static_cast<int>(out.size()));
      ++next_block;
    }
    MInst& mi = f.insts[i];
    for (const MOperand& o : mi.ops)
      if (o.IsReg() && o.is_virtual)
        return absl::InvalidArgumentError(absl::StrCat(
            "soft-clause pass: instruction ", i, " (", Info(mi.opc).mnemonic,
            ") has a virtual register operand; run it after register allocation"));
    if (clause.Check(mi)) {
      MInst nop;
      nop.opc = Opc::kSNop;
      nop.ops.push_back(MOperand::Imm(0));
      nop.id = -1;
      nop.comment = "xnack: end the soft clause (a replay must not see its own writes)";
      clause.Issued(nop, -1);
      out.push_back(std::move(nop));
      ++inserted;
    }
    clause.Issued(mi, static_cast<int>(i));
    out.push_back(std::move(mi));
  }
  f.insts = std::move(out);
  RenumberBlocks(f, new_begin);
  if (nops != nullptr) *nops = inserted;
  return absl::OkStatus();
}

}  // namespace kir
