#include "compiler/passes/waitcnt.h"

#include <optional>

#include "compiler/isa/cfg.h"
#include "compiler/isa/operands.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kir {
namespace {

int FileIndex(RegClass c) {
  switch (c) {
    case RegClass::kVgpr: return 0;
    case RegClass::kSgpr: return 1;
    case RegClass::kAgpr: return 2;
  }
  return 0;
}

// Calls fn(slot, access) for every register slot a physical register operand
// covers. Special registers (VCC, EXEC, SCC, M0) are skipped: no memory
// operation writes them.
template <typename Fn>
void ForEachRegSlot(const MInst& mi, Fn&& fn) {
  for (const RegAccess& a : CollectRegAccesses(mi, kExplicitAccesses)) {
    if (a.special != SpecialReg::kNone) continue;
    const int base = FileIndex(a.cls) * WaitcntState::kRegsPerFile;
    for (int r = a.lo; r < a.lo + a.count; ++r) fn(base + r, a);
  }
}


absl::Status CheckOperands(const MInst& mi, size_t index) {
  for (const MOperand& o : mi.ops) {
    if (o.kind != MOperand::Kind::kReg) continue;
    if (o.is_virtual)
      return absl::InvalidArgumentError(
          absl::StrCat("waitcnt pass: instruction ", index, " (", Info(mi.opc).mnemonic,
                       ") has a virtual register operand; run it after register allocation"));
    if (o.reg < 0 || o.count < 1 || o.reg + o.count > WaitcntState::kRegsPerFile)
      return absl::InvalidArgumentError(
          absl::StrCat("waitcnt pass: instruction ", index, " (", Info(mi.opc).mnemonic,
                       ") has register ", RegName(o.cls, o.reg, o.count),
                       " outside 0..", WaitcntState::kRegsPerFile - 1));
  }
  return absl::OkStatus();
}



// The pending-load score `s` of a state with bounds (lb, ub], moved into a
// frame whose newest score is `new_ub`; 0 if it is not outstanding.
int Shift(int s, int lb, int ub, int new_ub) { return s > lb ? s + (new_ub - ub) : 0; }

// Keeps at most `cap` operations outstanding in the model (ub - lb <= cap):
// when one more is issued, the two oldest become one. Their registers' scores
// move up to the oldest outstanding score, so NeedFor asks for at most
// vmcnt(cap - 1) (lgkmcnt(cap - 1)) for them, which NeedFor's clamp asks for
// anyway: waiting for fewer outstanding operations is always safe. This bounds
// the state lattice, so the dataflow converges on every CFG (a loop of stores
// only grows the outstanding count by the stores of each trip).
void Saturate(int& lb, int ub, int cap, std::vector<WaitcntState::Pending>& pending,
              int WaitcntState::Pending::*score, int* last_smem, int* last_ds) {
  if (ub - lb <= cap) return;
  const int new_lb = ub - cap;
  auto lift = [&](int& s) {
    if (s > lb && s <= new_lb) s = new_lb + 1;
  };
  for (WaitcntState::Pending& p : pending) lift(p.*score);
  if (last_smem != nullptr) lift(*last_smem);
  if (last_ds != nullptr) lift(*last_ds);
  lb = new_lb;
}

// The first entry of `pending` (sorted by slot) whose slot is not below `slot`.
template <typename Vector>
auto LowerBound(Vector& pending, int slot) {
  return std::lower_bound(pending.begin(), pending.end(), slot,
                          [](const WaitcntState::Pending& p, int s) { return p.slot < s; });
}

const WaitcntState::Pending* FindPending(const std::vector<WaitcntState::Pending>& pending, int slot) {
  auto it = LowerBound(pending, slot);
  return it != pending.end() && it->slot == slot ? &*it : nullptr;
}

WaitcntState::Pending& PendingAt(std::vector<WaitcntState::Pending>& pending, int slot) {
  auto it = LowerBound(pending, slot);
  if (it == pending.end() || it->slot != slot) it = pending.insert(it, WaitcntState::Pending{slot, 0, 0});
  return *it;
}

}  // namespace


WaitcntState::Need WaitcntState::NeedFor(const TargetInfo& t, const MInst& mi) const {
  Need n;
  std::string vm_reg, lgkm_reg;
  // Register dependencies: a read (RAW) or a write (WAW) of a register that a
  // load in flight will write.
  ForEachRegSlot(mi, [&](int slot, const RegAccess& o) {
    const Pending* p = pending.empty() ? nullptr : FindPending(pending, slot);
    if (p == nullptr) return;
    int s = p->vm;
    if (s > vm_lb && (n.vmcnt < 0 || vm_ub - s < n.vmcnt)) {
      n.vmcnt = vm_ub - s;
      vm_reg = RegName(o.cls, slot % kRegsPerFile, 1);
    }
    s = p->lgkm;
    if (s > lgkm_lb && (n.lgkmcnt < 0 || lgkm_ub - s < n.lgkmcnt)) {
      n.lgkmcnt = lgkm_ub - s;
      lgkm_reg = RegName(o.cls, slot % kRegsPerFile, 1);
    }
  });
  if (!vm_reg.empty()) n.reason = absl::StrCat(vm_reg, " (vmcnt)");
  if (!lgkm_reg.empty())
    absl::StrAppend(&n.reason, n.reason.empty() ? "" : ", ", lgkm_reg,
                    SmemOutstanding() ? " (lgkmcnt, SMEM outstanding)" : " (lgkmcnt)");
  // SMEM returns out of order: with one outstanding, only lgkmcnt(0) is safe.
  if (n.lgkmcnt >= 0 && SmemOutstanding()) n.lgkmcnt = 0;
  // An LDS access, or s_barrier, after an LDS DMA: wait (vmcnt) for the DMA's
  // LDS write (waitcnt.h; LLVM SIInsertWaitcnts).
  if (DmaOutstanding() && (IsDs(Info(mi.opc).cls) || mi.opc == Opc::kSBarrier)) {
    const int need = vm_ub - last_dma;
    if (n.vmcnt < 0 || need < n.vmcnt) n.vmcnt = need;
    absl::StrAppend(&n.reason, n.reason.empty() ? "" : ", ", "LDS DMA (vmcnt)");
  }

  // An LDS DMA after an outstanding LDS DMA whose bytes it may overwrite:
  // wait for that DMA's LDS write (waitcnt.h).
  if (DmaOutstanding() && (Info(mi.opc).flags & kLdsDma)) {
    int newest = 0;  // vm score of the newest outstanding DMA it may overlap
    if (dma_overlaps == nullptr) {
      newest = last_dma;
    } else {
      for (const auto& [op, score] : dma_ops) {
        if (score <= vm_lb || score <= newest) continue;
        const std::pair<int, int> key{std::min(op, mi.kir_op), std::max(op, mi.kir_op)};
        if (op < 0 || mi.kir_op < 0 || std::binary_search(dma_overlaps->begin(), dma_overlaps->end(), key))
          newest = score;
      }
    }
    if (newest > vm_lb) {
      const int need = vm_ub - newest;
      if (n.vmcnt < 0 || need < n.vmcnt) n.vmcnt = need;
      absl::StrAppend(&n.reason, n.reason.empty() ? "" : ", ", "an LDS DMA writing the same LDS bytes (vmcnt)");
    }
  }

  if (mi.opc == Opc::kSBarrier) {
    std::string why;
    if (t.barrier_waits_all_memory) {
      if (VmOutstanding()) n.vmcnt = 0;
      if (LgkmOutstanding()) n.lgkmcnt = 0;
      if (VmOutstanding() || LgkmOutstanding()) why = "s_barrier waits for all memory";
    } else if (DsOutstanding()) {
      n.lgkmcnt = 0;
      why = "s_barrier after outstanding LDS access";
    }
    if (!why.empty()) absl::StrAppend(&n.reason, n.reason.empty() ? "" : ", ", why);
  }

  // A needed count above the field: wait for max - 1 instead, as LLVM does.
  // The field's maximum itself is the encoding of "don't wait" (a counter
  // that is not named is encoded at its maximum), so it would wait for nothing.
  if (n.vmcnt > t.vmcnt_max - 1) n.vmcnt = t.vmcnt_max - 1;
  if (n.lgkmcnt > t.lgkmcnt_max - 1) n.lgkmcnt = t.lgkmcnt_max - 1;
  return n;
}

void WaitcntState::ApplyWait(int vmcnt, int lgkmcnt) {
  // vmcnt drains in issue order: vmcnt(N) completes all but the N newest.
  if (vmcnt >= 0) vm_lb = std::max(vm_lb, vm_ub - vmcnt);
  if (lgkmcnt == 0) {
    lgkm_lb = lgkm_ub;
  } else if (lgkmcnt > 0 && !SmemOutstanding()) {
    // DS-only traffic is in order. With an SMEM outstanding, lgkmcnt(N > 0)
    // proves nothing about any particular operation.
    lgkm_lb = std::max(lgkm_lb, lgkm_ub - lgkmcnt);
  }
  // Loads now complete need no entry.
  pending.erase(std::remove_if(pending.begin(), pending.end(),
                               [&](const Pending& p) { return p.vm <= vm_lb && p.lgkm <= lgkm_lb; }),
                pending.end());
  dma_ops.erase(std::remove_if(dma_ops.begin(), dma_ops.end(),
                               [&](const std::pair<int, int>& d) { return d.second <= vm_lb; }),
                dma_ops.end());
}

void WaitcntState::Issue(const MInst& mi) {
  const InstClass c = Info(mi.opc).cls;
  if (mi.opc == Opc::kSWaitcnt) {
    ApplyWait(static_cast<int>(WaitcntCounter(mi, OpName::kVmcnt)),
              static_cast<int>(WaitcntCounter(mi, OpName::kLgkmcnt)));
    return;
  }
  if (IsVmem(c)) {
    ++vm_ub;
    const int old_lb = vm_lb;
    Saturate(vm_lb, vm_ub, vm_cap, pending, &Pending::vm, &last_dma, nullptr);
    for (auto& d : dma_ops)
      if (d.second > old_lb && d.second <= vm_lb) d.second = vm_lb + 1;
    if (Info(mi.opc).flags & kLdsDma) {
      last_dma = vm_ub;
      auto it = std::lower_bound(dma_ops.begin(), dma_ops.end(), std::make_pair(mi.kir_op, 0));
      if (it != dma_ops.end() && it->first == mi.kir_op)
        it->second = vm_ub;
      else
        dma_ops.insert(it, {mi.kir_op, vm_ub});
    }
    ForEachRegSlot(mi, [&](int slot, const RegAccess& a) {
      if (a.def) {
        Pending& p = PendingAt(pending, slot);
        p.vm = vm_ub;
        p.lgkm = 0;
      }
    });
  } else if (IsDs(c) || c == InstClass::kSmem) {
    ++lgkm_ub;
    Saturate(lgkm_lb, lgkm_ub, lgkm_cap, pending, &Pending::lgkm, &last_smem, &last_ds);
    if (c == InstClass::kSmem)
      last_smem = lgkm_ub;
    else
      last_ds = lgkm_ub;
    ForEachRegSlot(mi, [&](int slot, const RegAccess& a) {
      if (a.def) {
        Pending& p = PendingAt(pending, slot);
        p.lgkm = lgkm_ub;
        p.vm = 0;
      }
    });
  }
  // Other instructions write registers only after NeedFor made them wait for
  // any pending load into those registers (WAW), so there is nothing to clear.
}

void WaitcntState::Merge(const WaitcntState& o) {
  // vmcnt: align both newest scores to new_ub = vm_lb + max(pending).
  const int vm_pending = std::max(vm_ub - vm_lb, o.vm_ub - o.vm_lb);
  const int new_vm_ub = vm_lb + vm_pending;
  const int lgkm_pending = std::max(lgkm_ub - lgkm_lb, o.lgkm_ub - o.lgkm_lb);
  const int new_lgkm_ub = lgkm_lb + lgkm_pending;
  // Per register, over the union of both states' entries (a missing entry
  // is score 0, not outstanding).
  std::vector<Pending> merged;
  merged.reserve(pending.size() + o.pending.size());
  size_t i = 0, j = 0;
  while (i < pending.size() || j < o.pending.size()) {
    const bool take_a = j >= o.pending.size() || (i < pending.size() && pending[i].slot <= o.pending[j].slot);
    const bool take_b = i >= pending.size() || (j < o.pending.size() && o.pending[j].slot <= pending[i].slot);
    const Pending a = take_a ? pending[i++] : Pending{0, 0, 0};
    const Pending b = take_b ? o.pending[j++] : Pending{0, 0, 0};
    Pending m{take_a ? a.slot : b.slot,
              std::max(Shift(a.vm, vm_lb, vm_ub, new_vm_ub), Shift(b.vm, o.vm_lb, o.vm_ub, new_vm_ub)),
              std::max(Shift(a.lgkm, lgkm_lb, lgkm_ub, new_lgkm_ub),
                       Shift(b.lgkm, o.lgkm_lb, o.lgkm_ub, new_lgkm_ub))};
    if (m.vm > vm_lb || m.lgkm > lgkm_lb) merged.push_back(m);
  }
  pending = std::move(merged);
  last_smem = std::max(Shift(last_smem, lgkm_lb, lgkm_ub, new_lgkm_ub),
                       Shift(o.last_smem, o.lgkm_lb, o.lgkm_ub, new_lgkm_ub));
  last_ds = std::max(Shift(last_ds, lgkm_lb, lgkm_ub, new_lgkm_ub),
                     Shift(o.last_ds, o.lgkm_lb, o.lgkm_ub, new_lgkm_ub));
  last_dma = std::max(Shift(last_dma, vm_lb, vm_ub, new_vm_ub), Shift(o.last_dma, o.vm_lb, o.vm_ub, new_vm_ub));
  {
    // Per DMA op: the younger outstanding DMA of the two states.
    std::map<int, int> ops;
    for (const auto& [op, score] : dma_ops)
      if (int s = Shift(score, vm_lb, vm_ub, new_vm_ub); s > vm_lb) ops[op] = std::max(ops[op], s);
    for (const auto& [op, score] : o.dma_ops)
      if (int s = Shift(score, o.vm_lb, o.vm_ub, new_vm_ub); s > vm_lb) ops[op] = std::max(ops[op], s);
    dma_ops.assign(ops.begin(), ops.end());
  }
  vm_ub = new_vm_ub;
  lgkm_ub = new_lgkm_ub;
}

namespace {

// Two states that demand the same waits from here on: the same numbers of
// outstanding operations and, per register, the same distance of its pending
// load from the newest operation.
bool Equivalent(const WaitcntState& a, const WaitcntState& b) {
  if (a.vm_ub - a.vm_lb != b.vm_ub - b.vm_lb || a.lgkm_ub - a.lgkm_lb != b.lgkm_ub - b.lgkm_lb)
    return false;
  auto norm = [](int s, int lb, int ub) { return s > lb ? ub - s : -1; };
  if (norm(a.last_smem, a.lgkm_lb, a.lgkm_ub) != norm(b.last_smem, b.lgkm_lb, b.lgkm_ub) ||
      norm(a.last_ds, a.lgkm_lb, a.lgkm_ub) != norm(b.last_ds, b.lgkm_lb, b.lgkm_ub) ||
      norm(a.last_dma, a.vm_lb, a.vm_ub) != norm(b.last_dma, b.vm_lb, b.vm_ub))
    return false;
  if (a.dma_ops.size() != b.dma_ops.size()) return false;
  for (size_t i = 0; i < a.dma_ops.size(); ++i)
    if (a.dma_ops[i].first != b.dma_ops[i].first ||
        norm(a.dma_ops[i].second, a.vm_lb, a.vm_ub) != norm(b.dma_ops[i].second, b.vm_lb, b.vm_ub))
      return false;
  // Per register over the union of entries (a missing entry normalizes to
  // -1, as a score at or below lb does).
  size_t i = 0, j = 0;
  while (i < a.pending.size() || j < b.pending.size()) {
    const bool take_a = j >= b.pending.size() || (i < a.pending.size() && a.pending[i].slot <= b.pending[j].slot);
    const bool take_b = i >= a.pending.size() || (j < b.pending.size() && b.pending[j].slot <= a.pending[i].slot);
    const WaitcntState::Pending pa = take_a ? a.pending[i++] : WaitcntState::Pending{0, 0, 0};
    const WaitcntState::Pending pb = take_b ? b.pending[j++] : WaitcntState::Pending{0, 0, 0};
    if (norm(pa.vm, a.vm_lb, a.vm_ub) != norm(pb.vm, b.vm_lb, b.vm_ub)) return false;
    if (norm(pa.lgkm, a.lgkm_lb, a.lgkm_ub) != norm(pb.lgkm, b.lgkm_lb, b.lgkm_ub)) return false;
  }
  return true;
}

// A run of LDS instructions (SALU instructions and MFMAs that wait for no
// load between them allowed) that wait for loads one by one, as a
// global-to-LDS copy's ds_writes do: the first of them waits for all
// (InsertWaitcnts' header). Instruction `i` of `f` (block end
// `end`) needs `need` in state `st`; deepens need->vmcnt to the smallest
// vmcnt the following instructions of the run need (no VMEM instruction
// issues within it, so the counts compare as they are) and returns how many
// of them waited (0: none, need unchanged).
int CoalesceVmWaits(const TargetInfo& t, const MFunction& f, int i, int end, const WaitcntState& st,
                    WaitcntState::Need* need) {
  constexpr int kWindow = 64;  // instructions looked at: keeps the pass linear
  if (!IsDs(Info(f.insts[i].opc).cls)) return 0;
  WaitcntState look = st;
  look.Issue(MakeWaitcnt(need->vmcnt, need->lgkmcnt));
  look.Issue(f.insts[i]);
  int covered = 0;
  for (int j = i + 1; j < end && j <= i + kWindow; ++j) {
    const MInst& mj = f.insts[j];
    const InstClass c = Info(mj.opc).cls;
    if (IsLabel(mj) || !(IsDs(c) || c == InstClass::kSalu || c == InstClass::kMfma)) break;
    WaitcntState::Need n = look.NeedFor(t, mj);
    if (c == InstClass::kMfma && n.vmcnt >= 0) break;  // work that waits for a load ends the run
    if (n.vmcnt >= 0 && n.vmcnt < need->vmcnt) {
      need->vmcnt = n.vmcnt;
      ++covered;
    }
    if (n.any()) look.Issue(MakeWaitcnt(n.vmcnt, n.lgkmcnt));
    look.Issue(mj);
  }
  return covered;
}

}  // namespace

absl::Status InsertWaitcnts(const TargetInfo& t, MFunction& f, WaitcntStats* stats) {
  for (size_t i = 0; i < f.insts.size(); ++i) {
    const MInst& mi = f.insts[i];
    if (IsLabel(mi)) continue;
    if (mi.opc != Opc::kSWaitcnt) {
      if (absl::Status s = CheckOperands(mi, i); !s.ok()) return s;  // names the instruction
    } else if (absl::Status s = ValidateWaitcnt(t, mi); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("instruction ", i, ": ", s.message()));
    }
  }
  absl::StatusOr<const std::vector<BasicBlock>*> cfg = EnsureCfg(f);
  if (!cfg.ok()) return cfg.status();
  const std::vector<BasicBlock>& blocks = **cfg;
  // One block: the waits it needs (kept in block_waits, from the block's
  // last evaluation: ForwardDataflow's last round evaluates every reachable
  // block from its final entry state, so these are the final answers), and
  // its exit state.
  struct WaitBefore {
    int inst;  // index into f.insts
    MInst wait;
    WaitcntState::Need need;
  };
  std::vector<std::vector<WaitBefore>> block_waits(blocks.size());
  // Loop headers: blocks with a predecessor at or after them (a back edge).
  std::vector<bool> loop_header(blocks.size(), false);
  for (size_t b = 0; b < blocks.size(); ++b)
    for (int p : blocks[b].preds)
      if (p >= static_cast<int>(b)) loop_header[b] = true;
  auto run_block = [&](int b, WaitcntState st) {
    const BasicBlock& bb = blocks[b];
    std::vector<WaitBefore>& waits = block_waits[b];
    waits.clear();
    for (int i = bb.begin; i < bb.end; ++i) {
      const MInst& mi = f.insts[i];
      if (IsLabel(mi)) continue;
      if (mi.opc != Opc::kSEndpgm && mi.opc != Opc::kSWaitcnt) {
        WaitcntState::Need need = st.NeedFor(t, mi);
        const int covered = need.vmcnt >= 0 ? CoalesceVmWaits(t, f, i, bb.end, st, &need) : 0;
        if (need.any()) {
          MInst w = MakeWaitcnt(need.vmcnt, need.lgkmcnt);
          w.comment = absl::StrCat("wait for ", need.reason);
          if (covered > 0) absl::StrAppend(&w.comment, " and the loads of the next ", covered, " LDS instructions");
          st.Issue(w);
          waits.push_back({i, std::move(w), need});
        }
      }
      st.Issue(mi);
    }
    // Entering a loop (falling into a header from before it) with an SMEM
    // load outstanding: lgkmcnt(0) at the block's end, once. Otherwise the
    // header's merged entry state keeps the SMEM outstanding on every trip,
    // and as SMEM returns out of order each lgkmcnt wait in the loop becomes
    // lgkmcnt(0) (a K loop's first fragment wait drains all its reads; the
    // LDS DMA GEMM's prologue, with no DS access to wait for, left C's
    // pointer and alpha/beta in flight into the loop: issue 19).
    if (st.SmemOutstanding() && bb.end > bb.begin && !(Info(f.insts[bb.end - 1].opc).flags & kBranch))
      for (int s : bb.succs)
        if (s == b + 1 && loop_header[s]) {
          WaitcntState::Need need;
          need.lgkmcnt = 0;
          need.reason = "SMEM outstanding on entering a loop";
          MInst w = MakeWaitcnt(-1, 0);
          w.comment = absl::StrCat("wait for ", need.reason);
          st.Issue(w);
          waits.push_back({bb.end, std::move(w), need});
        }
    return st;
  };
  // Forward dataflow to a fixed point: a block's entry state is the merge of
  // its predecessors' exit states (loop back edges included). Lattice height
  // per block: the two outstanding counts grow to their caps, and each
  // register's (and last_smem's, last_ds's) distance from the newest
  // operation only shrinks once it is outstanding.
  WaitcntState entry;
  entry.dma_overlaps = f.lds_dma_overlaps_known ? &f.lds_dma_overlaps : nullptr;
  entry.vm_cap = t.vmcnt_max;
  entry.lgkm_cap = t.lgkmcnt_max;
  int64_t dma_insts = 0;  // bounds the per-op DMA entries (WaitcntState::dma_ops)
  for (const MInst& mi : f.insts) dma_insts += (Info(mi.opc).flags & kLdsDma) ? 1 : 0;
  const int64_t height =
      (entry.vm_cap + 2) * (1 + dma_insts + static_cast<int64_t>(WaitcntState::kSlots)) +
      (entry.lgkm_cap + 2) * (3 + static_cast<int64_t>(WaitcntState::kSlots));
  absl::StatusOr<std::vector<std::optional<WaitcntState>>> in = ForwardDataflow(
      blocks, entry, height, "s_waitcnt", [&](int b, const WaitcntState& st) { return run_block(b, st); },
      [](WaitcntState& into, const WaitcntState& from) { return MergeInto(into, from, Equivalent); });
  if (!in.ok()) return in.status();
  // Unreachable blocks: waits as if entered with nothing outstanding.
  for (size_t b = 0; b < blocks.size(); ++b)
    if (!(*in)[b]) run_block(static_cast<int>(b), entry);
  // Insert the waits in place, from the back (no second instruction list).
  std::vector<int> new_begin(blocks.size());
  size_t total = f.insts.size();
  for (size_t b = 0; b < blocks.size(); ++b) {
    new_begin[b] = blocks[b].begin + static_cast<int>(total - f.insts.size());
    total += block_waits[b].size();
  }
  f.insts.resize(total);
  size_t dst = total;
  for (size_t b = blocks.size(); b-- > 0;) {
    std::vector<WaitBefore>& waits = block_waits[b];
    size_t w = waits.size();
    auto count = [&](const WaitBefore& wb) {
      if (stats == nullptr) return;
      ++stats->waits;
      if (wb.need.vmcnt >= 0) ++stats->vmcnt_waits;
      if (wb.need.lgkmcnt >= 0) ++stats->lgkmcnt_waits;
    };
    // A wait at the block's end (entering a loop: run_block) goes after its
    // last instruction.
    if (w > 0 && waits[w - 1].inst == blocks[b].end) {
      --w;
      f.insts[--dst] = std::move(waits[w].wait);
      count(waits[w]);
    }
    for (int i = blocks[b].end; i-- > blocks[b].begin;) {
      if (static_cast<size_t>(i) != --dst) f.insts[dst] = std::move(f.insts[i]);
      if (w > 0 && waits[w - 1].inst == i) {
        --w;
        f.insts[--dst] = std::move(waits[w].wait);
        count(waits[w]);
      }
    }
  }
  RenumberBlocks(f, new_begin);
  return absl::OkStatus();
}

}  // namespace kir
