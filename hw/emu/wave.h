// One wave64's architectural state: SGPRs (s0..s105, VCC at 106/107, M0 at
// 124, EXEC at 126/127 -- the hardware encodings, as the shared hazard table
// numbers them), SCC, VGPRs and AGPRs per lane, and the memory operations in
// flight: loads read memory when they issue and write their registers only
// when an s_waitcnt covers them (vmcnt: VMEM loads and stores in issue order;
// lgkmcnt: DS in order, SMEM out of order, so only lgkmcnt(0) covers SMEM).
#ifndef KIRC_HW_EMU_WAVE_H_
#define KIRC_HW_EMU_WAVE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "compiler/isa/encoding.h"
#include "compiler/isa/instr.h"
#include "hw/emu/code_object.h"

namespace kir::emu {

constexpr int kLanes = 64;
constexpr int kSgprSlots = 128;
// The special registers' SGPR-space encodings (compiler/isa/encoding.h).
constexpr int kVccLo = kVccLoEncoding, kM0 = kM0Encoding, kExecLo = kExecLoEncoding;
static_assert(kExecLo + 2 == kSgprSlots, "the SGPR file ends with EXEC");

enum class Counter : uint8_t { kVm, kDs, kSmem };

// One 32-bit register written when a load completes.
struct PendingWrite {
  RegClass cls = RegClass::kVgpr;
  int reg = 0;
  uint64_t lanes = 0;      // vector registers: lanes written
  uint32_t keep = 0;       // bits of the old value kept (d16 loads), 0 = whole register
  std::array<uint32_t, 64> vals{};  // 64 lane values, or vals[0] for an SGPR
};

struct PendingOp {
  int64_t seq = 0;
  int inst = -1;  // issuing instruction
  Counter ctr = Counter::kVm;
  std::vector<PendingWrite> writes;  // empty for stores
  int lds_op = -1;                   // DS: id in the workgroup's LDS race tracker
  // flat_*: counts in vmcnt AND lgkmcnt (LLVM SIInsertWaitcnts: a FLAT access
  // that may reach LDS needs both): in the VMEM queue, it completes only when
  // a vmcnt covers it and an lgkmcnt(0) has been waited (out of order in
  // lgkmcnt, as SMEM), and it counts as one outstanding lgkm operation.
  bool flat = false;
  bool vm_covered = false, lgkm_covered = false;
};

class Wave {
 public:
  enum class State { kRunning, kAtBarrier, kEnded };

  Wave(const KernelInfo& k, int index);

  int index() const { return index_; }
  // Registers. Indices must have been validated against the kernel's allocation.
  uint32_t* Row(RegClass c, int reg);  // 64 lanes of a VGPR or AGPR
  uint32_t& S(int i) { return s_[i]; }
  uint32_t S(int i) const { return s_[i]; }
  bool scc = false;
  uint64_t Exec() const { return s_[kExecLo] | (static_cast<uint64_t>(s_[kExecLo + 1]) << 32); }
  void SetExec(uint64_t m) { s_[kExecLo] = static_cast<uint32_t>(m); s_[kExecLo + 1] = static_cast<uint32_t>(m >> 32); }
  uint64_t Vcc() const { return s_[kVccLo] | (static_cast<uint64_t>(s_[kVccLo + 1]) << 32); }

  int pc = 0;
  // The MODE register's FLOAT_MODE byte (bits 7:0: round and denormal
  // fields, semantics.h ModeRoundSp and friends): the descriptor's at wave
  // start, then what s_setreg writes. The float instructions read it.
  uint32_t mode = 0xf0;
  State state = State::kRunning;
  // The lane's private (scratch) segment: KernelInfo::private_segment_size
  // bytes per lane, filled with 0xcd (as LDS) at wave start.
  uint8_t* Scratch(int lane) { return scratch_.data() + static_cast<size_t>(lane) * k_.private_segment_size; }
  // The scratch wave offset the dispatch gave this wave (its system SGPR), 0
  // without a private segment: a private-segment SRD's base minus
  // kPrivateSrdBase, plus soffset, must equal it (memory.h).
  uint32_t scratch_wave_offset = 0;
  int64_t executed = 0;
  int barrier_gen = 0;  // barriers this wave has passed

  // ---- memory operations in flight ----
  void Issue(PendingOp op);
  // s_waitcnt: completes VMEM ops until at most `vmcnt` remain (-1: none),
  // DS ops until at most `lgkmcnt` DS remain, and SMEM only for lgkmcnt(0).
  // `on_lds_done(lds_op)` is told of every DS operation completed.
  void Wait(int vmcnt, int lgkmcnt, const std::function<void(int)>& on_lds_done);
  // The in-flight load that will write this register (0 = none): a sequence number.
  int64_t OwnerOf(RegClass c, int reg) const;
  int64_t OwnerOfSgpr(int s) const { return owner_s_[s]; }
  const PendingOp* FindOp(int64_t seq) const;
  // Operations of the same in-order queue (VMEM or DS) issued after `seq`:
  // the largest count an s_waitcnt may name and still cover it.
  int YoungerThan(int64_t seq) const;
  size_t OutstandingVm() const { return vm_.size(); }
  size_t OutstandingDs() const { return ds_.size(); }
  size_t OutstandingSmem() const { return smem_.size(); }

 private:
  int Phys(RegClass c, int reg) const;  // index into v_/owner_v_ (a_/owner_a_ on gfx908)
  void Complete(PendingOp& op);

  const KernelInfo& k_;
  int index_;
  uint32_t s_[kSgprSlots] = {};
  std::vector<uint32_t> v_, a_;
  std::vector<uint8_t> scratch_;
  std::deque<PendingOp> vm_, ds_;
  std::vector<PendingOp> smem_;
  int64_t next_seq_ = 1;
  std::vector<int64_t> owner_v_, owner_a_;
  int64_t owner_s_[kSgprSlots] = {};
};

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_WAVE_H_
