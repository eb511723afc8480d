// Strict mode: the checks that turn silent hardware misbehaviour into errors.
// Each error names both instructions (address and text) and the register, LDS
// address or global-memory byte.
//  1. Pending loads: reading a register whose load no s_waitcnt has covered,
//     or overwriting it while the load is in flight (failure classes 7, 8).
//  2. LDS races between the waves of a workgroup: a read of bytes another wave
//     wrote, or a write of bytes another wave read or wrote, unless the other
//     access completed (an s_waitcnt covered it) before an s_barrier this wave
//     has since passed (failure class 9).
//  3. Hazards: fewer wait states between two instructions of a wave than
//     compiler/isa/hazard_table.h's RequiredWaitStates asks (class 11).
//  4. Reads of LDS bytes that no lane of the workgroup has written since the
//     kernel started (LDS contents are undefined at launch): the DS
//     instruction, the lane and the LDS address (LdsRaceTracker, which
//     records every byte's last write anyway).
//  5. Races on global memory between the work-items of one dispatch
//     (GlobalRaceTracker): per byte of every argument buffer, a store to a
//     byte another work-item stored or loaded, or a load of a byte another
//     work-item stored, anywhere in the workgroups run (all of the dispatch's,
//     or the box of Dispatch::workgroups, `kirc run --workgroups`: at most
//     2^31 - 1 work-items per run). A work-item is (workgroup,
//     wave * 64 + lane); its own accesses never race. Stricter than the memory
//     model (no release/acquire is honoured) because kirc never communicates
//     through global memory within a dispatch: it emits no global fences or
//     atomics, and hardware runs workgroups in any order. Atomics (another
//     generator's global_atomic_*) are atomic: two never race, whatever the
//     work-items; an atomic and a plain store of one byte by two work-items
//     do, a plain load of a byte atomics update does not (a compare-and-swap
//     loop's first guess; compiler/ir/global_races.h). Out-of-range buffer
//     accesses (loads of 0, dropped stores) are not accesses.
//  6. XNACK soft clauses (CheckSoftClauses), when the code object's target ID
//     has xnack on or any: a run of consecutive VMEM (or SMEM) instructions in
//     which one writes a register another (or itself) reads, or a store
//     follows a load, which a replay after a page fault would corrupt
//     (compiler/isa/soft_clause.h, the rule kirc's own pass applies). A
//     static check of the program order, once per dispatch.
#ifndef KIRC_HW_EMU_STRICT_H_
#define KIRC_HW_EMU_STRICT_H_

#include <array>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/global_races.h"
#include "compiler/ir/paged_bytes.h"
#include "compiler/ir/workgroups.h"
#include "compiler/isa/operands.h"
#include "compiler/target/target.h"
#include "hw/emu/memory.h"
#include "hw/emu/program.h"
#include "hw/emu/wave.h"

namespace kir::emu {

// What checks 1 and 3 need of each instruction of a program, worked out once
// per dispatch (they are functions of the instruction and the target alone):
// the registers it accesses in the order check 1 reports them, whether it
// can start a hazard (CanStartHazard), and RequiredWaitStates of the pairs
// met so far. One dispatch's, on its thread.
class StrictTables {
 public:
  StrictTables(const TargetInfo& t, const Program& p);
  // The register accesses of `inst` in the order CheckPendingLoads checks
  // them: explicit operands in operand order, then implicit reads, then
  // implicit writes.
  const std::vector<RegAccess>& CheckOrder(int inst) const { return order_[inst]; }
  bool CanStartHazard(int inst) const { return producer_[inst] >= 0; }
  int IssuedWaitStates(int inst) const { return issued_[inst]; }
  // RequiredWaitStates(t, prod, cons) (memoised).
  int Required(int prod, int cons) const;
  const TargetInfo& target() const { return t_; }
  const Program& program() const { return p_; }

 private:
  const TargetInfo& t_;
  const Program& p_;
  std::vector<std::vector<RegAccess>> order_;
  std::vector<int> producer_;  // per instruction: its row of pair_, or -1
  std::vector<int> issued_;    // per instruction: IssuedWaitStates
  mutable std::vector<int8_t> pair_;  // producer row * insts + consumer: wait states, -1 unknown
  bool memo_ = false;                 // pair_ is allocated (not for huge programs)
};

// Check 6: the XNACK soft-clause rule of compiler/isa/soft_clause.h over
// the program in address order, when `xnack` (the code object's target-ID
// setting) is on or any and the target has XNACK. Error (FailedPrecondition)
// naming the instruction that breaks the rule, the register, the
// instruction that reads or writes it, the clause's first instruction and
// the fix (an s_nop 0 between them).
absl::Status CheckSoftClauses(const Program& p, const TargetInfo& t, FeatureSetting xnack);

// Check 1, before `inst` issues on `w`.
absl::Status CheckPendingLoads(const Wave& w, const Program& p, int inst);
absl::Status CheckPendingLoads(const Wave& w, const StrictTables& tables, int inst);

// Check 3: the wave's recent instructions and the wait states issued since.
class HazardWindow {
 public:
  // Before `inst` issues: every earlier instruction within MaxHazardWindow()
  // wait states must be far enough back for RequiredWaitStates.
  absl::Status Check(const TargetInfo& t, const Program& p, int inst) const;
  absl::Status Check(const StrictTables& tables, int inst) const;
  // After `inst` issued (s_nop N counts N+1 wait states, all else 1).
  void Issued(const Program& p, int inst);
  // The same; an instruction that cannot start a hazard (RequiredWaitStates
  // is 0 for it before any consumer) only counts its wait states.
  void Issued(const StrictTables& tables, int inst);

 private:
  struct Entry {
    int inst;
    int64_t ws_after;  // wait states issued up to and including this instruction
  };
  std::deque<Entry> recent_;
  int64_t ws_ = 0;
};

// Check 2, for one workgroup.
class LdsRaceTracker {
 public:
  void Reset(size_t lds_bytes, int waves);
  // A new DS operation of `wave` (issuing instruction `inst`, the wave's
  // barrier generation `gen`); returns its id. `async`: an LDS DMA write
  // (buffer_load_dwordx4 ... lds), which completes with vmcnt after later
  // instructions of its own wave issue: until an s_waitcnt covers it
  // (Completed) even that wave's DS accesses of its bytes race with it.
  int NewOp(int wave, int inst, int gen, bool write, bool async = false);
  // An s_waitcnt of the op's wave covered it while that wave was at `gen`.
  void Completed(int op, int gen);
  // Records op's access by `lane` to LDS bytes [addr, addr + n) by a wave now
  // at barrier generation `gen`; error on a race with another wave's access,
  // and (check 4) on a read of a byte no op of the workgroup has written.
  absl::Status Access(const Program& p, int op, int lane, uint32_t addr, uint32_t n, int gen);

 private:
  struct Op {
    int wave, inst, issue_gen, done_gen;
    bool write;
    bool async = false;
  };
  absl::Status Race(const Program& p, const Op& now, const Op& before, uint32_t byte, int gen) const;
  std::vector<Op> ops_;
  std::vector<int32_t> last_write_;  // per byte: op id or -1
  std::vector<int32_t> last_read_;   // per wave and byte (wave * bytes + byte): op id or -1
  int waves_ = 0;
  size_t bytes_ = 0;
};

// Check 5, for one dispatch. Per byte of every argument buffer two 32-bit
// access ids (8 bytes per buffer byte, zeroed pages from calloc, so the parts
// of a buffer the dispatch never touches cost no memory): the last store's and
// the last load's.
// An id is 1 + item * V + ordinal: item = (workgroup * waves + wave) * 64 +
// lane in the dispatch, ordinal = the instruction among the program's V
// memory instructions, so a race names both instructions. A byte loaded by
// two or more work-items has no store (that store would have raced), so its
// store id holds a second reader and the load id's top bit says so: a later
// store by either of them still races with the other (the rule and this
// record are RaceSlots / RecordAccess of compiler/ir/global_races.h, which
// the reference interpreter applies per element).
class GlobalRaceTracker {
 public:
  // Host bytes of bookkeeping per argument-buffer byte the dispatch touches
  // (a MAP_NORESERVE zero mapping per buffer: untouched pages are never
  // resident, but the whole size counts against an address-space limit).
  static int64_t BytesPerBufferByte();
  // For a dispatch that runs the workgroups of `box` (a box of workgroup
  // ids, WorkgroupRange::Over the grid: `kirc run --workgroups`), each of
  // `waves` waves, running `p` over the argument buffers (Region::argument)
  // of `mem`. Only the work-items of the box get ids. Error if they do not
  // fit 31-bit ids (2^31 - 1 work-items; or the bookkeeping cannot be
  // allocated); if they do but the (work-item, instruction) pairs do not,
  // ids leave the instruction out (messages then say so).
  absl::Status Reset(const Program& p, const GlobalMemory& mem, const WorkgroupRange& box, int waves);
  // Workgroup `id` (inside the box) starts.
  void StartWorkgroup(const std::array<int64_t, 3>& id) {
    wg_ = ((id[2] - box_.begin[2]) * extent_[1] + (id[1] - box_.begin[1])) * extent_[0] + (id[0] - box_.begin[0]);
  }
  // Lane `lane` of wave `wave` of the current workgroup, by instruction
  // `inst`, loads (write = false) or stores bytes [addr, addr + n) of region
  // `r` of `mem`, or with `atomic` reads and writes them atomically: error
  // on a race with another work-item's access.
  absl::Status Access(const Program& p, const GlobalMemory& mem, const Region& r, uint64_t addr, uint32_t n,
                      int inst, int wave, int lane, bool write, bool atomic = false);

 private:
  using Byte = RaceSlots<uint32_t>;  // all zero (a fresh mapping): never accessed
  static constexpr uint32_t kSeveral = Byte::kSeveral;
  // "0x... `inst` (lane L of wave W of workgroup (x,y,z))" for an id; `inst`
  // >= 0: the instruction, when the id may not hold it.
  std::string AccessText(const Program& p, uint32_t id, int inst) const;
  absl::Status Race(const Program& p, const GlobalMemory& mem, uint64_t addr, int inst, uint32_t now,
                    bool now_write, bool now_atomic, const PriorAccess<uint32_t>& before) const;
  // Per region of the memory, a zero mapping (the pages a dispatch never
  // touches cost nothing); empty: not checked.
  std::vector<ZeroedArray<Byte>> bytes_;
  std::vector<int> ordinal_;  // per instruction: among the memory instructions, or -1
  std::vector<int> inst_of_;  // per ordinal
  uint64_t per_item_ = 1;     // V, or 1 when instructions are left out
  WorkgroupRange box_;                     // the workgroups that run
  std::array<int64_t, 3> extent_{1, 1, 1};  // box_'s extents
  int waves_ = 1;
  int64_t wg_ = 0;  // the running workgroup's index in the box (x fastest)
};

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_STRICT_H_
