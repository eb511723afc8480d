// Strict mode: the checks that turn silent hardware misbehaviour into errors.
// Each error names both instructions (address and text) and the register or
// LDS address.
//  1. Pending loads: reading a register whose load no s_waitcnt has covered,
//     or overwriting it while the load is in flight (failure classes 7, 8).
//  2. LDS races between the waves of a workgroup: a read of bytes another wave
//     wrote, or a write of bytes another wave read or wrote, unless the other
//     access completed (an s_waitcnt covered it) before an s_barrier this wave
//     has since passed (failure class 9).
//  3. Hazards: fewer wait states between two instructions of a wave than
//     compiler/target/hazard_table.h's RequiredWaitStates asks (class 11).
//  4. Reads of LDS bytes that no lane of the workgroup has written since the
//     kernel started (LDS contents are undefined at launch): the DS
//     instruction, the lane and the LDS address (LdsRaceTracker, which
//     records every byte's last write anyway).
#ifndef KIRC_HW_EMU_STRICT_H_
#define KIRC_HW_EMU_STRICT_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/target/target.h"
#include "hw/emu/program.h"
#include "hw/emu/wave.h"

namespace kir::emu {

// Check 1, before `inst` issues on `w`.
absl::Status CheckPendingLoads(const Wave& w, const Program& p, int inst);

// Check 3: the wave's recent instructions and the wait states issued since.
class HazardWindow {
 public:
  // Before `inst` issues: every earlier instruction within MaxHazardWindow()
  // wait states must be far enough back for RequiredWaitStates.
  absl::Status Check(const TargetInfo& t, const Program& p, int inst) const;
  // After `inst` issued (s_nop N counts N+1 wait states, all else 1).
  void Issued(const Program& p, int inst);

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
  // barrier generation `gen`); returns its id.
  int NewOp(int wave, int inst, int gen, bool write);
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
  };
  absl::Status Race(const Program& p, const Op& now, const Op& before, uint32_t byte, int gen) const;
  std::vector<Op> ops_;
  std::vector<int32_t> last_write_;  // per byte: op id or -1
  std::vector<int32_t> last_read_;   // per byte and wave: op id or -1
  int waves_ = 0;
};

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_STRICT_H_
