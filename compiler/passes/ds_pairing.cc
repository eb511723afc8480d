#include "compiler/passes/ds_pairing.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/isa/cfg.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"

namespace kir {
namespace {

// The register range of named operand `n` (aliases resolved to their root).
RegAccess Slot(const MFunction& f, const MInst& mi, OpName n) {
  RegAccess a;
  NamedRegAccess(mi, n, &a, &f);
  return a;
}

// Whether `mi` writes (defs_only) or reads or writes any dword of `s`.
bool Touches(const MFunction& f, const MInst& mi, const RegAccess& s, bool defs_only) {
  for (const RegAccess& a : CollectRegAccesses(mi, kExplicitAccesses, &f))
    if ((!defs_only || a.def) && Overlap(a, s)) return true;
  return false;
}

// Nothing moves across these.
bool Fence(const MInst& mi) {
  return mi.opc == Opc::kSBarrier || mi.opc == Opc::kSWaitcnt || mi.opc == Opc::kSEndpgm || IsLabel(mi) ||
         (Info(mi.opc).flags & kBranch) || WritesExec(mi);
}

bool IsDs(const MInst& mi) { return IsDs(Info(mi.opc).cls); }
bool IsDsWrite(const MInst& mi) { return Info(mi.opc).cls == InstClass::kDsWrite; }
// The data operand: a write's (first) data, a read's destination.
OpName DataOperand(const MInst& mi) { return IsDsWrite(mi) ? OpName::kData0 : OpName::kVdst; }

// The pair opcodes of a single DS opcode: {element units, 64-element units}.
std::pair<Opc, Opc> PairOpcodes(Opc o) {
  switch (o) {
    case Opc::kDsReadB32: return {Opc::kDsRead2B32, Opc::kDsRead2st64B32};
    case Opc::kDsReadB64: return {Opc::kDsRead2B64, Opc::kDsRead2st64B64};
    case Opc::kDsWriteB32: return {Opc::kDsWrite2B32, Opc::kDsWrite2st64B32};
    case Opc::kDsWriteB64: return {Opc::kDsWrite2B64, Opc::kDsWrite2st64B64};
    default: return {Opc::kNumOpcodes, Opc::kNumOpcodes};
  }
}

// The pair opcode and offset0/offset1 for byte offsets o0, o1, or kNumOpcodes.
// read2/write2 (units of the element) is preferred when both fit.
struct PairForm {
  Opc opc = Opc::kNumOpcodes;
  int offset0 = 0, offset1 = 0;
};
PairForm Form(Opc single, int64_t o0, int64_t o1) {
  const auto [plain, st64] = PairOpcodes(single);
  if (plain == Opc::kNumOpcodes) return {};
  for (Opc p : {plain, st64}) {
    const int64_t unit = MemoryShape(p).unit;
    if (o0 < 0 || o1 < 0 || o0 % unit != 0 || o1 % unit != 0 || o0 / unit > INT_MAX || o1 / unit > INT_MAX)
      continue;
    MInst probe;  // the encoding limit is DsOffsetsFit's, the verifier's
    probe.opc = p;
    probe.offset0 = static_cast<int>(o0 / unit);
    probe.offset1 = static_cast<int>(o1 / unit);
    if (DsOffsetsFit(probe)) return {p, probe.offset0, probe.offset1};
  }
  return {};
}

class Pairer {
 public:
  Pairer(MFunction& f, AccessMap* am, DsPairingStats* stats) : f_(f), am_(am), stats_(stats) {
    if (am != nullptr)
      for (const AccessRecord& r : *am)
        if (r.is_lds) allocs_[r.inst_id].insert(r.mem);
    defs_.assign(f.vregs.size(), 0);
    for (const MInst& mi : f.insts)
      for (const RegAccess& a : CollectRegAccesses(mi, kExplicitAccesses, &f))
        if (a.def && a.is_virtual) ++defs_[a.root];
    dead_.assign(f.insts.size(), false);
  }

  void Block(int begin, int end) {
    for (int i = begin; i < end; ++i) {
      if (dead_[i] || PairOpcodes(f_.insts[i].opc).first == Opc::kNumOpcodes) continue;
      for (int j = i + 1; j < end; ++j) {
        if (dead_[j]) continue;
        if (Fence(f_.insts[j])) break;  // no partner past it
        if (TryPair(i, j)) break;
      }
    }
  }

  void Finish() {
    // Each block keeps at least one instruction (its label or the first of a
    // pair), so a block now starts after the instructions kept before it.
    std::vector<int> kept_before(f_.insts.size() + 1, 0);
    for (size_t i = 0; i < f_.insts.size(); ++i) kept_before[i + 1] = kept_before[i] + (dead_[i] ? 0 : 1);
    std::vector<int> new_begin;
    new_begin.reserve(f_.blocks.size());
    for (const BasicBlock& bb : f_.blocks) new_begin.push_back(kept_before[bb.begin]);
    // Compact in place (no second instruction list).
    size_t kept = 0;
    for (size_t i = 0; i < f_.insts.size(); ++i)
      if (!dead_[i]) {
        if (kept != i) f_.insts[kept] = std::move(f_.insts[i]);
        ++kept;
      }
    f_.insts.resize(kept);
    RenumberBlocks(f_, new_begin);
  }

 private:
  // A destination that can become a view of a new tuple: a whole root vreg
  // written only here.
  bool OwnTuple(const MOperand& o) const {
    if (!o.IsReg() || !o.is_virtual || o.sub != 0) return false;
    const VReg& v = f_.vregs[o.reg];
    return v.alias_of < 0 && v.fixed < 0 && v.count == o.count && defs_[o.reg] == 1;
  }

  // Whether DS accesses `a` and `b` may touch a common LDS byte, in any two
  // lanes: not only when their access-map records name different LDS
  // allocations (which the lowering lays out disjoint and the verifier proves
  // each access stays in). One lane's byte ranges say nothing: lane t's
  // T[t + 8] is lane t + 8's T[t], and a wave's lanes see each other's LDS
  // accesses in instruction order, which moving or merging would change.
  bool MayAlias(const MInst& a, const MInst& b) const {
    auto ia = allocs_.find(a.id), ib = allocs_.find(b.id);
    if (a.id < 0 || b.id < 0 || ia == allocs_.end() || ib == allocs_.end()) return true;
    for (const std::string& m : ia->second)
      if (ib->second.count(m) > 0) return true;
    return false;
  }

  // Whether A = insts[i] can move down to j (`down`), or B = insts[j] up to i,
  // past everything between: no fence, no redefinition of the address or of
  // the moved write's data, nothing touching the moved read's destination
  // (defined earlier now), and no LDS access it may overlap (reads pass reads).
  bool CanMove(int i, int j, bool down) const {
    const MInst& moved = f_.insts[down ? i : j];
    const bool write = IsDsWrite(moved);
    const RegAccess addr = Slot(f_, moved, OpName::kAddr);
    const RegAccess data = Slot(f_, moved, DataOperand(moved));
    for (int k = i + 1; k < j; ++k) {
      if (dead_[k]) continue;
      const MInst& m = f_.insts[k];
      if (Fence(m) || Touches(f_, m, addr, /*defs_only=*/true)) return false;
      if (Touches(f_, m, data, /*defs_only=*/write)) return false;
      if (IsDs(m) && (write || IsDsWrite(m)) && MayAlias(m, moved)) return false;
    }
    return true;
  }

  bool TryPair(int i, int j) {
    const MInst& a = f_.insts[i];
    const MInst& b = f_.insts[j];
    if (a.opc != b.opc) return false;
    const MOperand* a_addr = FindOperand(a, OpName::kAddr);
    const MOperand* b_addr = FindOperand(b, OpName::kAddr);
    if (a.ops.size() != 2 || b.ops.size() != 2 || !a_addr->IsReg() || !b_addr->IsReg()) return false;
    const RegAccess addr = Slot(f_, a, OpName::kAddr);
    if (!SameRegs(addr, Slot(f_, b, OpName::kAddr))) return false;
    if (am_ != nullptr && (a.id < 0 || b.id < 0)) return false;  // the access map could not follow
    const PairForm form = Form(a.opc, a.offset, b.offset);
    if (form.opc == Opc::kNumOpcodes) return false;
    const bool write = IsDsWrite(a);
    // A write pair writes its two addresses in one instruction, in an order
    // among lanes no ISA guide specifies: only when no lane's two bytes can
    // meet another lane's (different allocations).
    if (write && MayAlias(a, b)) return false;
    if (!write) {
      const MOperand& ad = *FindOperand(a, OpName::kVdst);
      const MOperand& bd = *FindOperand(b, OpName::kVdst);
      if (!OwnTuple(ad) || !OwnTuple(bd) || ad.cls != bd.cls || ad.reg == bd.reg) return false;
      if (Overlap(Slot(f_, a, OpName::kVdst), addr)) return false;
    }
    // Reads: B moves up to A. Writes: A moves down to B (no earlier wait for
    // B's data), else B moves up to A.
    const bool down = write && CanMove(i, j, /*down=*/true);
    if (!down && !CanMove(i, j, /*down=*/false)) return false;
    MInst merged = down ? b : a;
    merged.opc = form.opc;
    merged.offset = 0;
    merged.offset0 = form.offset0;
    merged.offset1 = form.offset1;
    merged.id = a.id;
    merged.kir_op = a.kir_op;
    if (write) {  // addr, data0, data1
      merged.ops = {*FindOperand(a, OpName::kAddr), *FindOperand(a, OpName::kData0), *FindOperand(b, OpName::kData0)};
    } else {
      const MOperand& ad = *FindOperand(a, OpName::kVdst);
      const int d0 = ad.reg, d1 = FindOperand(b, OpName::kVdst)->reg, n = ad.count;
      // gfx90a/gfx942 need 64-bit and wider VGPR tuples to start at an even
      // register (llvm-mc: "invalid operand" for ds_read2_b32 v[1:2]; CDNA2
      // ISA guide, VGPR alignment); even is valid on gfx908 too.
      const int align = std::max({2, f_.vregs[d0].align, f_.vregs[d1].align});
      const RegClass cls = ad.cls;
      const int t = f_.NewVReg(cls, 2 * n, align);
      defs_.push_back(1);
      f_.vregs[d0].alias_of = t;
      f_.vregs[d0].alias_offset = 0;
      f_.vregs[d1].alias_of = t;
      f_.vregs[d1].alias_offset = n;
      *FindOperand(merged, OpName::kVdst) = MOperand::Virt(cls, t, 0, 2 * n);
    }
    if (am_ != nullptr)
      for (AccessRecord& r : *am_) {
        if (r.inst_id == a.id) r.component = 0;
        if (r.inst_id == b.id) r.inst_id = a.id, r.component = 1;
      }
    const int at = down ? j : i;
    dead_[down ? i : j] = true;
    f_.insts[at] = std::move(merged);
    if (stats_ != nullptr) ++(write ? stats_->writes : stats_->reads);
    return true;
  }

  MFunction& f_;
  AccessMap* am_;
  DsPairingStats* stats_;
  std::vector<int> defs_;  // definitions per root vreg
  std::map<int, std::set<std::string>> allocs_;  // instruction id -> LDS allocations of its records
  std::vector<bool> dead_;
};

}  // namespace

absl::Status PairDsAccesses(MFunction& f, AccessMap* access_map, DsPairingStats* stats) {
  absl::StatusOr<const std::vector<BasicBlock>*> cfg = EnsureCfg(f);
  if (!cfg.ok()) return cfg.status();
  Pairer p(f, access_map, stats);
  for (const BasicBlock& bb : **cfg) p.Block(bb.begin, bb.end);
  p.Finish();  // removes the merged-away instructions and renumbers the blocks
  return absl::OkStatus();
}

}  // namespace kir
