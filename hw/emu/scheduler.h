// The workgroup scheduler: every workgroup of the grid runs, one after the
// other (x fastest, then y, then z); within a workgroup the waves are
// interleaved round-robin, one instruction each per turn, and a wave at
// s_barrier waits until every wave of the workgroup that has not ended
// arrives. Deterministic. Initial registers follow the kernel descriptor.
#ifndef KIRC_HW_EMU_SCHEDULER_H_
#define KIRC_HW_EMU_SCHEDULER_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hw/emu/code_object.h"
#include "hw/emu/emulator.h"
#include "hw/emu/memory.h"
#include "hw/emu/program.h"

namespace kir::emu {

struct Dispatch {
  std::array<int64_t, 3> grid{1, 1, 1};       // workgroups
  std::array<int64_t, 3> workgroup{64, 1, 1};  // threads
  WorkgroupRange workgroups;                   // the ones to run (whole(): all)
  uint64_t kernarg_addr = 0, dispatch_packet_addr = 0, queue_addr = 0;
  const std::vector<uint8_t>* kernarg = nullptr;  // contents (kernarg preloading)
};

absl::Status RunDispatch(const Program& prog, const KernelInfo& k, GlobalMemory& mem, const Dispatch& d,
                         const EmuOptions& opts, EmuStats& stats);

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_SCHEDULER_H_
