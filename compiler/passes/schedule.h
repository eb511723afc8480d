// Instruction scheduling within basic blocks, before register allocation:
// a list scheduler over the dependence graph (registers, SCC, EXEC, memory
// order, barriers) that issues long-latency loads first and, in loop bodies
// with MFMAs, follows a wave's issue timeline (latencies, the matrix pipe's
// occupancy) so that memory instructions fill the cycles between MFMAs and
// MFMAs fill the latency of loads and barriers. s_waitcnt insertion runs after
// it, so waits land as late as the new order allows.
#ifndef KIRC_COMPILER_PASSES_SCHEDULE_H_
#define KIRC_COMPILER_PASSES_SCHEDULE_H_

#include "absl/status/status.h"
#include "compiler/isa/access_map.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

struct ScheduleStats {
  int moved = 0;  // instructions whose position changed
  // VGPR dwords: the budget used, and the largest estimated pressure (values
  // live across a region plus the region's live local values) of the new
  // order and of the original one. The estimate counts each value from its
  // first to its last reference; allocation may need a few more for tuple
  // alignment.
  int64_t vgpr_budget = 0, vgpr_peak = 0, vgpr_original_peak = 0;
  // Regions scheduled again with a lowered VGPR budget because the first
  // schedule's peak exceeded the budget, and regions kept in their original
  // order because every attempt did.
  int pressure_retries = 0, original_order_regions = 0;
  // When lowest-pressure orders set the budget (ScheduleBlocks: the original
  // order's VGPR peak is over what a wave of the workgroup may allocate, or
  // those orders reach more waves per SIMD): their peak (0 otherwise), and
  // the regions that took theirs because every schedule with the budget
  // passed it.
  int64_t vgpr_lowest_peak = 0;
  int lowest_order_regions = 0;
};

struct ScheduleOptions {
  // Which KIR buffer or LDS allocation each memory instruction accesses
  // (LowerKernel's access map, keyed by MInst::id). With it, an access passes
  // accesses of other buffers (KIR buffer arguments never overlap, docs/kir.md
  // "Values and ops": Memory model); without it, or for a block with a memory instruction
  // the map lacks, all of that block's global (or LDS) accesses are ordered
  // as if they were one buffer.
  const AccessMap* accesses = nullptr;
  // The most VGPR dwords the new order may keep live (estimated as
  // ScheduleStats says); never below the original order's peak. -1: the
  // most that keep the occupancy the original order's peak VGPR and AGPR
  // pressure gives (compiler/passes/resources.h's rule, capped by
  // max_waves_per_simd), less 4 for alignment; when that peak is over what a
  // wave may allocate with min_waves_per_simd waves per SIMD (the workgroup
  // could not launch), or when the lowest-pressure orders the scheduler
  // finds reach more waves per SIMD (kernels without MFMAs), the occupancy
  // of those orders instead (ScheduleBlocks).
  int64_t vgpr_budget = -1;
  // The waves per SIMD the kernel can have whatever its registers (its LDS
  // and workgroup size; compiler/passes/resources.h's Occupancy with one
  // VGPR), for the default VGPR budget. 0: the target's maximum.
  int max_waves_per_simd = 0;
  // The waves per SIMD the workgroup itself puts there (target.h
  // WavesPerSimdForWorkgroup): the default VGPR budget never exceeds a
  // SIMD's file over this many, so the workgroup stays launchable. 1: any.
  int min_waves_per_simd = 1;
  // Loop bodies with MFMAs follow the wave's issue timeline (above); false:
  // the height order everywhere.
  bool timeline = true;
};

// Reorders the instructions of each basic block of `f` (virtual registers)
// without changing what the program computes: an instruction never passes
// one it depends on through a register (RAW, WAR, WAW, per dword), SCC,
// EXEC, or memory (a store against any access of the same buffer or LDS
// allocation, options.accesses saying which; s_barrier against every memory
// access). Labels, branches and s_endpgm stay at the block ends. Within a
// block, the SGPR values local to it (lane masks, uniform address parts) are
// kept to a budget of 40 dwords (less when the block's other SGPR values
// leave fewer of the target's max_sgprs), and the VGPRs to
// options.vgpr_budget, whenever some ready instruction allows it, so
// hoisting cannot run register allocation out of registers or lower the
// occupancy; a block whose estimated VGPR peak still exceeds the budget is
// scheduled again with a lower one, and kept in its original order if that
// does not help (ScheduleStats::pressure_retries, original_order_regions).
// When the original order's peak is over what a wave of the workgroup may
// allocate (options.min_waves_per_simd waves sharing a SIMD's file, or the
// target's arch VGPRs), each block is first scheduled for the lowest
// pressure (nothing that raises it while something else does not, else the
// instruction whose issue brings a live value closest to its death); the
// default budget is then the most that keeps the occupancy of those orders'
// peak, and a block that still passes it takes its lowest-pressure order
// (ScheduleStats::vgpr_lowest_peak, lowest_order_regions). Within that cap,
// in a function without MFMAs, the blocks whose original peak sets the
// function's waves per SIMD (target.h WavesPerSimdForVgprs, capped by
// options.max_waves_per_simd) are scheduled for the lowest pressure too when
// more waves are possible, and if those orders reach more waves they are
// taken the same way. In straight-line code the estimate is what register
// allocation counts live (regalloc's peak; its loop-aware ranges can count
// more in loops); first-fit allocation can need more registers than that
// where a tuple finds no hole wide enough among narrower values.
// Errors: malformed control flow.
absl::Status ScheduleBlocks(const TargetInfo& t, MFunction& f, ScheduleStats* stats = nullptr,
                            const ScheduleOptions& options = {});

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_SCHEDULE_H_
