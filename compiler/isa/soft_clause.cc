#include "compiler/isa/soft_clause.h"

#include "compiler/isa/operands.h"

namespace kir {
namespace {

struct Reg {
  RegClass cls;
  int reg;
};

// The register units `mi` writes and reads: its explicit operands and the
// destination a d16 load half keeps (LLVM's tied operand). Implicit reads
// (EXEC, M0) are left out: no memory instruction writes them, so they never
// meet a def.
void Collect(const MInst& mi, std::vector<Reg>* defs, std::vector<Reg>* uses) {
  for (const RegAccess& a : CollectRegAccesses(mi, kExplicitAccesses | kTiedReads | kPhysicalOnly))
    for (int r = a.lo; r < a.lo + a.count; ++r) (a.def ? defs : uses)->push_back({a.cls, r});
}

template <class U>
const U* Find(const std::vector<U>& v, const Reg& r) {
  for (const U& u : v)
    if (u.cls == r.cls && u.reg == r.reg) return &u;
  return nullptr;
}

}  // namespace

SoftClauseKind SoftClauseKindOf(const MInst& mi) {
  switch (Info(mi.opc).cls) {
    case InstClass::kVmemLoad:
    case InstClass::kVmemStore: return SoftClauseKind::kVmem;
    case InstClass::kSmem: return SoftClauseKind::kSmem;
    default: return SoftClauseKind::kNone;
  }
}

const char* SoftClauseKindName(SoftClauseKind k) {
  switch (k) {
    case SoftClauseKind::kVmem: return "VMEM";
    case SoftClauseKind::kSmem: return "SMEM";
    default: return "";
  }
}

bool SoftClauseMayStore(const MInst& mi) {
  const OpcInfo& i = Info(mi.opc);
  return i.cls == InstClass::kVmemStore || (i.flags & kLdsDma) || i.layout == OperandLayout::kGlobalAtomicRtnLayout;
}

std::optional<SoftClauseHazard> SoftClauseTracker::Check(const MInst& mi) const {
  const SoftClauseKind kind = SoftClauseKindOf(mi);
  if (kind == SoftClauseKind::kNone || kind != kind_ || defs_.empty()) return std::nullopt;
  SoftClauseHazard h;
  h.run_start = start_;
  if (SoftClauseMayStore(mi)) {
    h.store = true;
    h.cls = defs_[0].cls;
    h.reg = defs_[0].reg;
    h.writer = defs_[0].inst;
    return h;
  }
  std::vector<Reg> defs, uses;
  Collect(mi, &defs, &uses);
  auto found = [&](const Reg& r, int writer, int reader) {
    h.cls = r.cls;
    h.reg = r.reg;
    h.writer = writer;
    h.reader = reader;
    return h;
  };
  // The instruction writes what the run reads (the usual case: a load
  // overwriting an earlier load's address), reads what the run writes,
  // writes what it reads itself, or the run already holds such a pair (its
  // first instruction writing its own address, unchecked while alone).
  for (const Reg& d : defs)
    if (const Unit* u = Find(uses_, d)) return found(d, SoftClauseHazard::kThis, u->inst);
  for (const Reg& r : uses)
    if (const Unit* u = Find(defs_, r)) return found(r, u->inst, SoftClauseHazard::kThis);
  for (const Reg& d : defs)
    if (Find(uses, d)) return found(d, SoftClauseHazard::kThis, SoftClauseHazard::kThis);
  for (const Unit& d : defs_)
    if (const Unit* u = Find(uses_, Reg{d.cls, d.reg})) return found(Reg{d.cls, d.reg}, d.inst, u->inst);
  return std::nullopt;
}

void SoftClauseTracker::Issued(const MInst& mi, int index) {
  const SoftClauseKind kind = SoftClauseKindOf(mi);
  if (kind == SoftClauseKind::kNone) {
    if (!(Info(mi.opc).flags & kPseudo)) {  // labels issue nothing
      kind_ = SoftClauseKind::kNone;
      defs_.clear();
      uses_.clear();
    }
    return;
  }
  if (kind != kind_) {
    kind_ = kind;
    start_ = index;
    defs_.clear();
    uses_.clear();
  }
  std::vector<Reg> defs, uses;
  Collect(mi, &defs, &uses);
  for (const Reg& r : defs)
    if (!Find(defs_, r)) defs_.push_back({r.cls, r.reg, index});
  for (const Reg& r : uses)
    if (!Find(uses_, r)) uses_.push_back({r.cls, r.reg, index});
}

}  // namespace kir
