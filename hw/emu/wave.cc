#include "hw/emu/wave.h"

#include <algorithm>

namespace kir::emu {

// Registers the kernel never initialises start as this pattern, so that a read
// of one shows up as a visibly wrong number rather than a plausible zero.
constexpr uint32_t kUninitialized = 0xdeadbeefu;

Wave::Wave(const KernelInfo& k, int index) : k_(k), index_(index) {
  mode = k.float_mode;
  const bool unified = k.target->unified_vgpr_file;
  const int vrows = unified ? k.unified_vgprs : k.vgpr_limit;
  v_.assign(static_cast<size_t>(vrows) * kLanes, kUninitialized);
  owner_v_.assign(vrows, 0);
  if (!unified) {
    a_.assign(static_cast<size_t>(k.agpr_limit) * kLanes, kUninitialized);
    owner_a_.assign(k.agpr_limit, 0);
  }
  std::fill(std::begin(s_), std::end(s_), kUninitialized);
  scratch_.assign(static_cast<size_t>(k.private_segment_size) * kLanes, 0xcd);
}

int Wave::Phys(RegClass c, int reg) const {
  if (c == RegClass::kAgpr && k_.target->unified_vgpr_file) return k_.accum_offset + reg;
  return reg;
}

uint32_t* Wave::Row(RegClass c, int reg) {
  if (c == RegClass::kAgpr && !k_.target->unified_vgpr_file) return &a_[static_cast<size_t>(reg) * kLanes];
  return &v_[static_cast<size_t>(Phys(c, reg)) * kLanes];
}

int64_t Wave::OwnerOf(RegClass c, int reg) const {
  if (c == RegClass::kSgpr) return owner_s_[reg];
  if (c == RegClass::kAgpr && !k_.target->unified_vgpr_file) return owner_a_[reg];
  return owner_v_[Phys(c, reg)];
}

void Wave::Issue(PendingOp op) {
  op.seq = next_seq_++;
  for (const PendingWrite& w : op.writes) {
    if (w.cls == RegClass::kSgpr) owner_s_[w.reg] = op.seq;
    else if (w.cls == RegClass::kAgpr && !k_.target->unified_vgpr_file) owner_a_[w.reg] = op.seq;
    else owner_v_[Phys(w.cls, w.reg)] = op.seq;
  }
  switch (op.ctr) {
    case Counter::kVm: vm_.push_back(std::move(op)); break;
    case Counter::kDs: ds_.push_back(std::move(op)); break;
    case Counter::kSmem: smem_.push_back(std::move(op)); break;
  }
}

void Wave::Complete(PendingOp& op) {
  for (const PendingWrite& w : op.writes) {
    int64_t* owner;
    if (w.cls == RegClass::kSgpr) {
      s_[w.reg] = w.vals[0];
      owner = &owner_s_[w.reg];
    } else {
      uint32_t* row = Row(w.cls, w.reg);
      for (int l = 0; l < kLanes; ++l)
        if (w.lanes >> l & 1) row[l] = (row[l] & w.keep) | (w.vals[l] & ~w.keep);
      owner = w.cls == RegClass::kAgpr && !k_.target->unified_vgpr_file ? &owner_a_[w.reg]
                                                                        : &owner_v_[Phys(w.cls, w.reg)];
    }
    if (*owner == op.seq) *owner = 0;
  }
}

void Wave::Wait(int vmcnt, int lgkmcnt, const std::function<void(int)>& on_lds_done) {
  if (vmcnt >= 0 && vm_.size() > static_cast<size_t>(vmcnt)) {
    const size_t covered = vm_.size() - static_cast<size_t>(vmcnt);
    for (size_t i = 0; i < covered; ++i) vm_[i].vm_covered = true;
  }
  if (lgkmcnt == 0)
    for (PendingOp& op : vm_)
      if (op.flat) op.lgkm_covered = true;
  // VMEM ops complete in order; a flat op still waiting for lgkmcnt(0) is
  // skipped (its data is not known to be back), the others complete.
  for (auto it = vm_.begin(); it != vm_.end();) {
    if (it->vm_covered && (!it->flat || it->lgkm_covered)) {
      Complete(*it);
      if (it->lds_op >= 0 && on_lds_done) on_lds_done(it->lds_op);
      it = vm_.erase(it);
    } else {
      ++it;
    }
  }
  if (lgkmcnt >= 0) {
    // DS returns in order: all but the `lgkmcnt` newest are done. SMEM returns
    // out of order: with N > 0 nothing tells which SMEM loads are done. (Flat
    // ops outstanding in lgkmcnt may be done already, so they never let more
    // DS ops count as done than this.)
    while (ds_.size() > static_cast<size_t>(lgkmcnt)) {
      Complete(ds_.front());
      if (ds_.front().lds_op >= 0 && on_lds_done) on_lds_done(ds_.front().lds_op);
      ds_.pop_front();
    }
    if (lgkmcnt == 0) {
      for (PendingOp& op : smem_) Complete(op);
      smem_.clear();
    }
  }
}

const PendingOp* Wave::FindOp(int64_t seq) const {
  for (const auto* q : {&vm_, &ds_})
    for (const PendingOp& op : *q)
      if (op.seq == seq) return &op;
  for (const PendingOp& op : smem_)
    if (op.seq == seq) return &op;
  return nullptr;
}

int Wave::YoungerThan(int64_t seq) const {
  for (const auto* q : {&vm_, &ds_}) {
    int n = 0;
    bool found = false;
    for (const PendingOp& op : *q) {
      if (found) ++n;
      if (op.seq == seq) found = true;
    }
    if (found) return n;
  }
  return 0;
}

}  // namespace kir::emu
