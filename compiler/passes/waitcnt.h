// s_waitcnt insertion for gfx9 (gfx908 / gfx90a / gfx942), after register
// allocation. amdgcn-isa-notes.md section 3; failure classes 7, 8 and 9 of
// shared/docs/failure-classes.md.
//
// Counters modelled:
//   vmcnt   every VMEM instruction (buffer loads AND stores: gfx9 has no
//           separate store counter); completes in issue order.
//   lgkmcnt DS instructions (in order) and SMEM loads (out of order: while any
//           SMEM is outstanding only lgkmcnt(0) is a safe wait).
// expcnt is never needed by compute kernels and is not modelled.
//
// The s_waitcnt MIR form, encoding and text are in compiler/isa/encoding.h.
#ifndef KIRC_COMPILER_PASSES_WAITCNT_H_
#define KIRC_COMPILER_PASSES_WAITCNT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

struct WaitcntStats {
  int waits = 0;          // s_waitcnt instructions inserted
  int vmcnt_waits = 0;    // of which wait on vmcnt
  int lgkmcnt_waits = 0;  // of which wait on lgkmcnt
};

// Inserts the s_waitcnt instructions f needs:
//  - before an instruction that reads or writes (WAW, e.g. a d16 load merging
//    into a register with a load in flight) a register whose pending load is
//    not yet covered: vmcnt(N) with N = VMEM instructions issued after that
//    load; lgkmcnt(N) with N = DS instructions issued after it, or lgkmcnt(0)
//    while any SMEM is outstanding; counts capped at the field maximum;
//  - before a DS instruction (any LDS access) while a gfx950 LDS DMA
//    (buffer_load_dwordx4 ... lds, kLdsDma) is outstanding: vmcnt(N), N =
//    VMEM instructions issued after the newest such DMA (its LDS write
//    completes with vmcnt, not lgkmcnt; any LDS byte may be one it writes).
//    LLVM's SIInsertWaitcnts does the same: "MUBUF and FLAT LDS DMA
//    operations need a wait on vmcnt before LDS written can be accessed"
//    (the LDS DMA is a VMEM_ACCESS event, and generateWaitcntInstBefore
//    makes an LDS access wait for the LDSDMA slot's vmcnt score);
//  - before an LDS DMA while an LDS DMA whose LDS bytes it may overwrite is
//    outstanding: vmcnt(N), N = VMEM instructions issued after the newest
//    such DMA. Whether two DMAs of one wave write LDS in issue order is not
//    a checked fact (amdgcn-isa-notes.md, LDS DMA), and the strict emulator
//    reports the overwrite as a race (review 7 F3). Which DMAs may overlap is
//    f.lds_dma_overlaps (by KIR op, from the lowering); DMAs of ops that
//    write disjoint bytes (a GEMM's tile copies) stay in flight together.
//    Without f.lds_dma_overlaps_known, any two LDS DMAs may overlap. LLVM's
//    SIInsertWaitcnts waits for nothing here (generateWaitcntInstBefore
//    skips an instruction that mayWriteLDSThroughDMA: "No need to wait
//    before load from VMEM to LDS"), which relies on that ordering without
//    stating it; kirc is stricter until an ISA guide settles it;
//  - before s_barrier: vmcnt(N) for the newest outstanding LDS DMA (its
//    bytes must be in LDS before another wave passes the barrier and reads
//    them), and lgkmcnt(0) while any DS operation (write: publish it;
//    read: this wave must finish reading before others overwrite, failure
//    class 9) is outstanding; on targets with barrier_waits_all_memory
//    (gfx908) vmcnt(0) and lgkmcnt(0) for whatever is outstanding.
//  - at the end of a block that falls into a loop header (entering the loop,
//    not its back edge) while an SMEM load is outstanding: lgkmcnt(0) once,
//    so that the loop's entry state does not keep the SMEM outstanding on
//    every trip (SMEM returns out of order: each lgkmcnt wait in the loop
//    would be lgkmcnt(0)).
// The needs of one instruction are combined into one s_waitcnt. A run of LDS
// instructions (SALU instructions and MFMAs that wait for no load between
// them allowed, up to 64 looked at) whose registers wait for loads, as the
// ds_writes of a global-to-LDS copy do, gets one wait before its first
// instruction, for the smallest vmcnt any of them needs (no VMEM issues
// within the run, so the counts compare as they are; the loads complete in
// order and were issued together, so the later ones are nearly due when the
// first is). Existing
// s_waitcnt instructions are honoured (they update the scoreboard). Nothing is
// inserted before s_endpgm. VCC/EXEC/SCC/M0 are never memory destinations.
// Inserted instructions have id -1 and a comment naming the register waited for.
// Errors: InvalidArgument for virtual registers, registers beyond 512 per file,
// or a malformed input s_waitcnt.
absl::Status InsertWaitcnts(const TargetInfo& t, MFunction& f, WaitcntStats* stats = nullptr);

// The scoreboard at a program point. Every VMEM instruction gets the next vm
// score (1, 2, ...), every DS/SMEM instruction the next lgkm score; an
// operation with score s is outstanding while lb < s <= ub. Per register, the
// score of the pending load that will write it (0: none), kept sparsely: only
// registers with a load outstanding have an entry (a score at or below lb
// means the same as none), so a state costs what is in flight, not the three
// 512-register files (the CFG dataflow keeps one state per block).
// Merge() is the join at CFG merges (loop headers): it aligns the newest scores of
// both states and keeps, per register, the younger pending load (the smaller
// count, which is the safe one), and the larger number outstanding.
struct WaitcntState {
  static constexpr int kRegsPerFile = 512;  // VGPR, SGPR and AGPR files

  int vm_lb = 0, vm_ub = 0;
  int lgkm_lb = 0, lgkm_ub = 0;
  int last_smem = 0;  // lgkm score of the newest SMEM load (outstanding iff > lgkm_lb)
  int last_ds = 0;    // lgkm score of the newest DS operation
  int last_dma = 0;   // vm score of the newest LDS DMA (kLdsDma; outstanding iff > vm_lb)
  // Per lds_dma KIR op (MInst::kir_op, -1 for none), the vm score of its
  // newest outstanding DMA; sorted by op, outstanding entries only.
  std::vector<std::pair<int, int>> dma_ops;
  // MFunction::lds_dma_overlaps (pairs of KIR ops whose DMAs may write a
  // common LDS byte), or nullptr: every two LDS DMAs may.
  const std::vector<std::pair<int, int>>* dma_overlaps = nullptr;
  // At most this many operations outstanding in the model (the counters'
  // field maxima, TargetInfo::vmcnt_max / lgkmcnt_max); see Issue().
  int vm_cap = 63, lgkm_cap = 15;
  static constexpr int kSlots = 3 * kRegsPerFile;  // register slots: file * 512 + register
  struct Pending {
    int slot;  // FileIndex(class) * kRegsPerFile + register
    int vm;    // vm score of the pending VMEM load into it, 0: none
    int lgkm;  // lgkm score of the pending DS/SMEM load into it, 0: none
  };
  std::vector<Pending> pending;  // sorted by slot; entries with a score above lb (others pruned)

  // What an instruction must wait for; -1 = nothing.
  struct Need {
    int vmcnt = kWaitcntNoWait;
    int lgkmcnt = kWaitcntNoWait;
    std::string reason;
    bool any() const { return vmcnt >= 0 || lgkmcnt >= 0; }
  };

  bool SmemOutstanding() const { return last_smem > lgkm_lb; }
  bool DsOutstanding() const { return last_ds > lgkm_lb; }
  bool VmOutstanding() const { return vm_ub > vm_lb; }
  bool DmaOutstanding() const { return last_dma > vm_lb; }
  bool LgkmOutstanding() const { return lgkm_ub > lgkm_lb; }

  // The wait `inst` needs before it issues (register dependencies and the
  // s_barrier rule). The instruction must have been validated.
  Need NeedFor(const TargetInfo& t, const MInst& inst) const;
  // The effect of an s_waitcnt with these fields (-1 = not waited).
  void ApplyWait(int vmcnt, int lgkmcnt);
  // The effect of issuing `inst` (an s_waitcnt included). Past the cap, the two
  // oldest outstanding operations are merged into one (their registers then
  // wait for count cap - 1, which the field clamp asks for anyway), so the
  // state stays in a finite lattice and the CFG dataflow converges.
  void Issue(const MInst& inst);
  void Merge(const WaitcntState& other);
};

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_WAITCNT_H_
