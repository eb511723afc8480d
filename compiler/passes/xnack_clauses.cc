#include "compiler/passes/xnack_clauses.h"

#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/isa/cfg.h"
#include "compiler/isa/operands.h"

namespace kir {
namespace {

enum class MemKind { kNone, kVmem, kSmem };

MemKind KindOf(const MInst& mi) {
  switch (Info(mi.opc).cls) {
    case InstClass::kVmemLoad:
    case InstClass::kVmemStore: return MemKind::kVmem;
    case InstClass::kSmem: return MemKind::kSmem;
    default: return MemKind::kNone;
  }
}

using RegUnit = std::pair<RegClass, int>;

// Register units an instruction writes and reads.
struct DefsUses {
  std::set<RegUnit> defs, uses;
};

// A d16 load keeps the other half of its destination: it reads it too.
DefsUses Collect(const MInst& mi) {
  DefsUses du;
  for (const RegAccess& a : CollectRegAccesses(mi, kExplicitAccesses | kTiedReads))
    for (int r = a.lo; r < a.lo + a.count; ++r) (a.def ? du.defs : du.uses).insert({a.cls, r});
  return du;
}

bool Overlap(const std::set<RegUnit>& a, const std::set<RegUnit>& b) {
  for (const RegUnit& u : a)
    if (b.count(u)) return true;
  return false;
}

}  // namespace

absl::Status BreakXnackSoftClauses(MFunction& f, int* nops) {
  int inserted = 0;
  std::vector<MInst> out;
  out.reserve(f.insts.size());
  MemKind run_kind = MemKind::kNone;
  DefsUses run;  // the current run's defs and uses
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
    MemKind kind = KindOf(mi);
    if (kind == MemKind::kNone) {
      if (!(Info(mi.opc).flags & kPseudo)) {  // labels issue nothing
        run_kind = MemKind::kNone;
        run = {};
      }
      out.push_back(std::move(mi));
      continue;
    }
    if (kind != run_kind) {
      run_kind = kind;
      run = {};
    }
    DefsUses du = Collect(mi);
    bool hazard = false;
    if (!run.defs.empty()) {
      if (Info(mi.opc).cls == InstClass::kVmemStore) {
        hazard = true;
      } else {
        std::set<RegUnit> defs = run.defs, uses = run.uses;
        defs.insert(du.defs.begin(), du.defs.end());
        uses.insert(du.uses.begin(), du.uses.end());
        hazard = Overlap(defs, uses);
      }
    }
    if (hazard) {
      MInst nop;
      nop.opc = Opc::kSNop;
      nop.ops.push_back(MOperand::Imm(0));
      nop.id = -1;
      nop.comment = "xnack: end the soft clause (a replay must not see its own writes)";
      out.push_back(std::move(nop));
      ++inserted;
      run = {};
    }
    run.defs.insert(du.defs.begin(), du.defs.end());
    run.uses.insert(du.uses.begin(), du.uses.end());
    out.push_back(std::move(mi));
  }
  f.insts = std::move(out);
  RenumberBlocks(f, new_begin);
  if (nops != nullptr) *nops = inserted;
  return absl::OkStatus();
}

}  // namespace kir
