// XNACK soft clauses: THE rule, shared by the compiler pass that breaks them
// (compiler/passes/xnack_clauses) and the strict emulator's check of other
// compilers' code (hw/emu/strict.h, check 6).
//
// With XNACK replay enabled (the target ID's xnack setting is "+" or "any",
// i.e. no suffix) a run of consecutive memory instructions of one kind is a
// "soft clause" that the hardware may replay after a page fault, so
//  - once the run holds an instruction that writes a register, a store may
//    not join it (LLVM: "don't put loads and stores in the same clause"), and
//  - no instruction of the run may write a register that an instruction of
//    the run (itself included) reads.
// Source: LLVM 22 GCNHazardRecognizer::checkSoftClauseHazards with
// breaksSMEMSoftClause / breaksVMEMSoftClause (read from llvm/llvm-project
// llvm/lib/Target/AMDGPU/GCNHazardRecognizer.cpp), whose fix is one `s_nop 0`
// before the instruction that would break the rule:
//  - the kinds: SMEM (isSMRD: s_load_*) and VMEM (isVMEM or isFLAT: buffer_*,
//    global_*, flat_*, scratch_*, atomics); any other issued instruction
//    (s_waitcnt, s_nop, SALU, VALU, DS, branches) ends a run; a label does not
//    (no instruction);
//  - a store is LLVM's mayStore: stores, atomics with or without a return,
//    and the LDS DMA load (buffer_load_* ... lds writes LDS);
//  - the check is made only when the run before the instruction writes some
//    register (ClauseDefs.none() returns 0), and then over the defs and uses
//    of the whole run with the instruction added, operands as LLVM's
//    MachineInstr operands (a d16 load reads the destination it half keeps).
// Checked with llc 22 -run-pass=post-RA-hazard-rec on MIR (-mcpu=gfx90a with
// -mattr=+xnack and without a setting, gfx950 for the LDS DMA; none with
// -xnack), 2026-12-05: one S_NOP 0 between `$vgpr4 = GLOBAL_LOAD_DWORD
// $vgpr0_vgpr1` and `$vgpr1 = GLOBAL_LOAD_DWORD $vgpr2_vgpr3`, between a load
// and GLOBAL_STORE_DWORD, GLOBAL_ATOMIC_ADD_RTN or BUFFER_LOAD_DWORDX4_LDS_OFFEN,
// after a d16 load before an unrelated load, and between `$sgpr4_sgpr5 =
// S_LOAD_DWORDX2_IMM $sgpr0_sgpr1, 0` and `$sgpr0_sgpr1 = S_LOAD_DWORDX2_IMM
// $sgpr0_sgpr1, 8`; none between disjoint loads.
// One difference, kept on purpose: LLVM looks back only over its hazard
// window (EmittedInstrs, 5 wait states, 19 when AGPR a0 is used), so llc 22
// puts no s_nop when the load whose address is overwritten is 7 loads back;
// the rule here covers the whole run (the hardware replays the clause, not a
// window of it), so it may ask for more nops than LLVM, never fewer.
#ifndef KIRC_COMPILER_ISA_SOFT_CLAUSE_H_
#define KIRC_COMPILER_ISA_SOFT_CLAUSE_H_

#include <optional>
#include <vector>

#include "compiler/isa/instr.h"

namespace kir {

enum class SoftClauseKind : uint8_t { kNone, kVmem, kSmem };

// The soft-clause kind of `mi` (see above); kNone for anything else.
SoftClauseKind SoftClauseKindOf(const MInst& mi);
// "VMEM" / "SMEM" / "" for messages.
const char* SoftClauseKindName(SoftClauseKind k);

// LLVM's mayStore for a memory instruction: a store, an atomic (with or
// without a return) or an LDS DMA load.
bool SoftClauseMayStore(const MInst& mi);

// Why an instruction may not join its soft clause. Instructions are named by
// the index given to SoftClauseTracker::Issued; `kThis` is the instruction
// being checked.
struct SoftClauseHazard {
  static constexpr int kThis = -1;
  bool store = false;  // a store joining a run that writes registers
  // A register `writer` writes and `reader` reads, both in the run or the
  // instruction checked (for `store`: a register the run writes, `reader`
  // is kThis).
  RegClass cls = RegClass::kVgpr;
  int reg = 0;  // one register (SGPR-space index for vcc/m0/exec)
  int writer = kThis, reader = kThis;
  int run_start = kThis;  // the first instruction of the run
};

// Walks instructions in program order (physical registers only: virtual
// operands are ignored) and says which would make their soft clause
// hazardous. Labels (kPseudo) neither issue nor end a run.
class SoftClauseTracker {
 public:
  // Whether `mi`, issued next, breaks the rule, and why.
  std::optional<SoftClauseHazard> Check(const MInst& mi) const;
  // `mi` issued as instruction `index`: a memory instruction joins the run
  // of its kind (or starts one), anything else that issues ends the run.
  void Issued(const MInst& mi, int index);

 private:
  struct Unit {
    RegClass cls;
    int reg;
    int inst;  // the first instruction of the run to access it so
  };
  SoftClauseKind kind_ = SoftClauseKind::kNone;
  int start_ = -1;
  std::vector<Unit> defs_, uses_;
};

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_SOFT_CLAUSE_H_
