// A static model of LDS bank conflicts, used to choose the LDS layouts of
// promoted GEMMs and to report their cost (issue 5).
//
// Model (amdgcn-isa-notes.md section 5): LDS has B banks of 4 bytes, B =
// TargetInfo::lds_banks (32 on gfx908 / gfx90a / gfx942, 64 on gfx950; the
// decision and its sources are at that field); the bank of a byte address is
// (address / 4) % B. A DS instruction serves its 64 lanes in groups of
// B / (dwords per lane) lanes per cycle (at most 64): with 32 banks, 32 lanes
// for accesses of up to 4 bytes per lane (ds_read_b32, ds_write_b16, ...), 16
// lanes for 8 bytes (b64) and 8 lanes for 16 bytes (b128) (CK's 8 phases of 8
// lanes for ds_write_b128); with 64 banks 64, 32 and 16 lanes. So a
// conflict-free group moves at most B dwords in one cycle. The 64-bank
// grouping is the same rule scaled (UNVERIFIED on gfx950 hardware). Within a
// group, lanes that touch the SAME dword of a bank share it (broadcast); every
// further DIFFERENT dword of that bank costs one more cycle. A group
// therefore takes
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
#include "compiler/target/target.h"

namespace kir {

inline constexpr int kLdsBankBytes = 4;
// The most banks the model takes (`banks` arguments are clamped to
// 1..kMaxLdsBanks; LdsOpTraffic rejects others).
inline constexpr int kMaxLdsBanks = 64;

// Lanes served per cycle for an access of `bytes_per_lane` bytes with `banks`
// banks (TargetInfo::lds_banks): min(64, banks / max(1, bytes_per_lane / 4)).
// 32 banks: 32 up to 4 bytes, 16 for 8, 8 for 16; 64 banks: 64, 32, 16.
int LdsLanesPerCycle(int bytes_per_lane, int banks);

// The extra cycles bank conflicts cost one DS instruction of one wave: the sum
// over its lane groups of (the group's cycles - 1). `lane_byte_addrs[l]` is
// lane l's byte address in LDS (a negative value: the lane is inactive);
// each active lane touches the dwords of [addr, addr + bytes_per_lane).
// Lanes are grouped in order: 0..G-1, G..2G-1, ... with G =
// LdsLanesPerCycle(bytes_per_lane, banks). 0 means conflict-free.
int BankConflicts(absl::Span<const int64_t> lane_byte_addrs, int bytes_per_lane, int banks);

// The cycles one instruction takes: groups with an active lane, each
// max(1, distinct dwords of its busiest bank). BankConflicts is this minus the
// number of such groups.
int LdsCycles(absl::Span<const int64_t> lane_byte_addrs, int bytes_per_lane, int banks);

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
// lanes inactive. `banks`: the target's TargetInfo::lds_banks. Errors: not an
// LDS access, an index that cannot be evaluated, banks outside
// 1..kMaxLdsBanks.
absl::StatusOr<LdsTraffic> LdsOpTraffic(const Kernel& k, const Op& op, ValueType vt,
                                        const std::map<std::string, int64_t>& loop_vars, int banks,
                                        int first_wave = 0, int waves = -1);

// Every LDS access of the kernel, loops at their first iteration (loop
// variables uniform across lanes only move all addresses of a wave together,
// which leaves conflicts unchanged), split into reads and writes, per LDS
// allocation name, on target `t` (its lds_banks).
struct KernelLdsTraffic {
  LdsTraffic reads, writes;
  std::map<std::string, LdsTraffic> reads_by_alloc, writes_by_alloc;
};
absl::StatusOr<KernelLdsTraffic> CountLdsTraffic(const Kernel& k, const TargetInfo& t);

}  // namespace kir

#endif  // KIRC_COMPILER_PROMOTE_BANK_CONFLICTS_H_
