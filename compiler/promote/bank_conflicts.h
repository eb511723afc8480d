// A static model of LDS bank conflicts, used to choose the LDS layouts of
// promoted GEMMs and to report their cost (issue 5).
//
// Model (gfx908 / gfx90a / gfx942; amdgcn-isa-notes.md section 5): LDS has 32
// banks of 4 bytes; the bank of a byte address is (address / 4) % 32. A DS
// instruction serves its 64 lanes in groups: 32 lanes per cycle for accesses
// of up to 4 bytes per lane (ds_read_b32, ds_write_b16, ...), 16 lanes for
// 8 bytes (b64) and 8 lanes for 16 bytes (b128), so a conflict-free group
// moves at most 32 dwords in one cycle. Within a group, lanes that touch the
// SAME dword of a bank share it (broadcast); every further DIFFERENT dword of
// that bank costs one more cycle. A group therefore takes
// max over banks (distinct dwords of the bank touched by the group's lanes)
// cycles, at least 1.
#ifndef KIRC_COMPILER_PROMOTE_BANK_CONFLICTS_H_
#define KIRC_COMPILER_PROMOTE_BANK_CONFLICTS_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/ir/kernel.h"

namespace kir {

inline constexpr int kLdsBanks = 32;
inline constexpr int kLdsBankBytes = 4;

// Lanes served per cycle for an access of `bytes_per_lane` bytes: 32 up to 4
// bytes, 16 for 8, 8 for 16.
int LdsLanesPerCycle(int bytes_per_lane);

// The extra cycles bank conflicts cost one DS instruction of one wave: the sum
// over its lane groups of (the group's cycles - 1). `lane_byte_addrs[l]` is
// lane l's byte address in LDS (a negative value: the lane is inactive);
// each active lane touches the dwords of [addr, addr + bytes_per_lane).
// Lanes are grouped in order: 0..G-1, G..2G-1, ... with G =
// LdsLanesPerCycle(bytes_per_lane). 0 means conflict-free.
int BankConflicts(absl::Span<const int64_t> lane_byte_addrs, int bytes_per_lane);

// The cycles one instruction takes: groups with an active lane, each
// max(1, distinct dwords of its busiest bank). BankConflicts is this minus the
// number of such groups.
int LdsCycles(absl::Span<const int64_t> lane_byte_addrs, int bytes_per_lane);

// DS instructions and their cost, summed over instructions and waves.
struct LdsTraffic {
  int64_t instructions = 0;  // DS instructions issued (per wave, summed over waves)
  int64_t cycles = 0;        // LdsCycles summed
  int64_t conflicts = 0;     // BankConflicts summed (extra cycles)
  LdsTraffic& operator+=(const LdsTraffic& o) {
    instructions += o.instructions;
    cycles += o.cycles;
    conflicts += o.conflicts;
    return *this;
  }
};

// The traffic of one LDS load or store `op` of kernel `k` moving a value of
// type `vt`, for the workgroup's waves `first_wave` .. `first_wave + waves - 1`
// (waves = -1: all of them): the exact per-lane addresses from the op's index
// expressions (tid from the lane's linear thread id, wg = 0, the kernel's
// named constants, loop variables from `loop_vars`), LDS offsets as
// kir::LayoutLds, split into DS instructions as compiler/lower does (a vector
// along a stride-1 dimension in chunks of min(16, its bytes) bytes, any other
// vector one element per instruction). Guarded accesses leave out-of-shape
// lanes inactive. Errors: not an LDS access, an index that cannot be evaluated.
absl::StatusOr<LdsTraffic> LdsOpTraffic(const Kernel& k, const Op& op, ValueType vt,
                                        const std::map<std::string, int64_t>& loop_vars,
                                        int first_wave = 0, int waves = -1);

// Every LDS access of the kernel, loops at their first iteration (loop
// variables uniform across lanes only move all addresses of a wave together,
// which leaves conflicts unchanged), split into reads and writes, per LDS
// allocation name.
struct KernelLdsTraffic {
  LdsTraffic reads, writes;
  std::map<std::string, LdsTraffic> reads_by_alloc, writes_by_alloc;
};
absl::StatusOr<KernelLdsTraffic> CountLdsTraffic(const Kernel& k);

}  // namespace kir

#endif  // KIRC_COMPILER_PROMOTE_BANK_CONFLICTS_H_
