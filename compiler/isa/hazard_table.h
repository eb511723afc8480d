// Wait-state (hazard) rules for gfx908, gfx90a, gfx942 and gfx950: the single source
// of truth shared by the hazard-nop pass (compiler/passes/hazards) and the
// strict CPU emulator's hazard checker (hw/emu/strict.cc).
//
// Sources: shared/docs/amdgcn-isa-notes.md section 2 (2.1 MFMA hazards on
// gfx90a/gfx942, 2.2 gfx908 AGPR table, 2.3 other hazards), which were measured
// with LLVM's post-RA hazard recognizer and match GCNHazardRecognizer.cpp
// (checkMAIHazards908, checkMAIHazards90A, checkMAIVALUHazards,
// checkMAILdStHazards, checkVALUHazards, checkVMEMHazards). The gfx950 rows
// come from GCNHazardRecognizer.cpp itself (see kGfx950Hazards in
// hazard_table.cc for the functions and the revision read).
//
// Everything here depends only on MInst fields (opcode, operands, mfma), never
// on pass state. All register operands must be physical: virtual operands are
// ignored (they overlap nothing).
//
// A "wait state" is one issued instruction; `s_nop N` provides N+1 (only the
// low 4 bits of N are read by the hardware). RequiredWaitStates(p, c) = W means
// that at least W wait states must be issued strictly between p and c.
#ifndef KIRC_COMPILER_ISA_HAZARD_TABLE_H_
#define KIRC_COMPILER_ISA_HAZARD_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/operands.h"
#include "compiler/target/target.h"

namespace kir {

// Wait states `inst` provides to the instructions after it: 1, or N+1 for
// `s_nop N` (N & 15: the hardware reads only 4 bits; N > 15 is an emitter bug
// that the hazard pass rejects).
int IssuedWaitStates(const MInst& inst);

// The number of wait states that must separate `producer` from a later
// `consumer` (0 if there is no hazard between them). Register overlap is
// computed by CollectRegAccesses (compiler/isa/operands.h): explicit operands,
// tied reads and the implicit VCC/EXEC/SCC effects of OpcFlags, with VCC,
// EXEC, M0 and SCC at their SGPR-space encodings (encoding.h), so an explicit
// s[106:107] and SpecialReg::kVcc alias.
// If `why` is non-null it receives a one-line reason naming the rule that
// decides the result, e.g.
//   "XDL MFMA (4 passes) writes v[12:15] read by VMEM: 7 wait states (gfx942)"
// (left unchanged when the result is 0).
//
// The check is pairwise and conservative: it does not know about instructions
// between the two (a newer write of the same register does not cancel an older
// producer's requirement).
int RequiredWaitStates(const TargetInfo& t, const MInst& producer, const MInst& consumer,
                       std::string* why);


// Whether `inst` can be the producer of any rule here (a VALU result, MFMA
// included, a VMEM store's data, an SALU write of M0 before an LDS DMA, or an
// s_setreg before an s_getreg/s_setreg of its hardware register; kirc emits
// no s_setreg): RequiredWaitStates(t, inst, c) is 0 for
// every consumer c when this is false, so a pass need not keep it in its window.
bool CanStartHazard(const MInst& inst);

// An instruction with its register accesses collected once, for callers that
// test one instruction against many (the hazard pass tests each against every
// producer in its window). `mi` must outlive it.
class HazardOperands {
 public:
  explicit HazardOperands(const MInst& mi);
  const MInst& inst() const { return *mi_; }
  absl::Span<const RegAccess> accesses() const { return accesses_; }
  // A 64-bit summary of the registers accessed (one bit per register, hashed):
  // two instructions whose summaries share no bit access no common register.
  uint64_t register_summary() const { return summary_; }
  // Whether the instruction writes EXEC (the only rules that need no common
  // register: a VALU writing EXEC before an MFMA or a lane access).
  bool writes_exec() const { return writes_exec_; }

 private:
  const MInst* mi_;
  std::vector<RegAccess> accesses_;  // exact size: a pass keeps one per instruction
  uint64_t summary_ = 0;
  bool writes_exec_ = false;
};

// RequiredWaitStates above, for instructions whose accesses are collected.
int RequiredWaitStates(const TargetInfo& t, const HazardOperands& producer, const HazardOperands& consumer,
                       std::string* why);

// The largest value RequiredWaitStates can return for any target and any MFMA
// in AllMfmas(), or an MFMA without a descriptor (taken as a 16-pass XDL
// MFMA): 20, a 16-pass XDL MFMA result -> VALU/VMEM/srcA,B on gfx950
// (16 + 3 + 1, GCNHazardRecognizer.cpp
// GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates with IsGFX950); the
// largest for an MFMA kirc emits is 19 (gfx90a 32x32). A producer that is
// this many wait states or more before the consumer never matters.
int MaxHazardWindow();

// ---------------------------------------------------------------------------
// The per-target tables. Exposed for tests, documentation and the emulator;
// RequiredWaitStates is the API to use.

// A wait-state count that depends on the producing MFMA's pass count:
// max(0, passes + add + (passes != 2 ? add_unless_2pass : 0)) when `on`, else
// "no hazard". LLVM's gfx90a constants (switch on 2/8/16 passes), its gfx940
// formulas and their gfx950 variants (one more wait state except for 2-pass
// XDL producers, e.g. "NumPasses + 3 + (NumPasses != 2 && IsGFX950)") are all
// of this form.
struct PassRule {
  bool on = false;
  int add = 0;
  int add_unless_2pass = 0;
  int Eval(int passes) const {
    if (!on) return 0;
    const int w = passes + add + (passes != 2 ? add_unless_2pass : 0);
    return w > 0 ? w : 0;
  }
};
constexpr PassRule Passes(int add, int add_unless_2pass = 0) {
  return PassRule{true, add, add_unless_2pass};
}
constexpr PassRule kNoRule{false, 0};

// DS rules apply by instruction class to every explicit operand, so a
// ds_read2*/ds_write2* (both data tuples, the 2- or 4-dword destination) is
// covered like any DS instruction; amdgcn-isa-notes.md section 2 lists no
// rule specific to the paired forms on gfx908/90a/942.
struct HazardTable {
  Gfx gfx;
  // gfx94x/950 distinguish XDL from non-XDL (SMFMA) MFMAs; gfx908/90a treat every
  // MFMA alike (LLVM isXDL() is true for all non-DGEMM MFMAs there).
  bool xdl_matters;

  // --- 2.1 (gfx90a / gfx942 / gfx950, VGPR-form MFMA); all off on gfx908 -------
  // MFMA writes R -> legacy VALU / VMEM / DS reads R (any explicit operand) or
  // writes R (WAW).
  PassRule mfma_write_to_valu_mem_xdl;
  PassRule mfma_write_to_valu_mem_nonxdl;
  // MFMA writes R -> MFMA reads R as srcC: identical registers / partial overlap.
  int mfma_write_to_srcc_same_2pass;  // identical regs, 2-pass producer (gfx942: 2); else 0
  // Identical srcC registers but a different MFMA (another opcode, as the
  // PR compares canonicalized opcodes: gfx950's f8f6f4 MFMAs, whatever
  // formats cbsz/blgp select, are one): the partial-overlap rule below
  // applies, as accumulator forwarding works only along a chain of one MFMA
  // (LLVM PR #218363, open, not in the GCNHazardRecognizer.cpp revision
  // read; on for gfx950 only).
  bool srcc_same_regs_other_mfma_as_overlap = false;
  PassRule mfma_write_to_srcc_overlap_xdl;
  PassRule mfma_write_to_srcc_overlap_nonxdl;
  // MFMA writes R -> MFMA reads R as srcA/srcB.
  PassRule mfma_write_to_srcab_xdl;
  PassRule mfma_write_to_srcab_nonxdl;
  // MFMA reads R as srcC -> later VALU / VMEM / DS overwrites R (WAR).
  PassRule mfma_srcc_read_to_write_xdl;
  PassRule mfma_srcc_read_to_write_nonxdl;
  // Legacy VALU (not MFMA) writes R -> MFMA reads R (any source, VGPR or AGPR).
  int valu_write_to_mfma_read;
  // VALU writes EXEC -> MFMA (gfx908: also v_accvgpr_write).
  int valu_exec_write_to_mfma;

  // --- 2.2 (gfx908, AGPR form); all off elsewhere ------------------------------
  bool agpr_form;
  PassRule mfma_write_to_accvgpr_read;   // 4x4: 4, 16x16: 10, 32x32: 18
  PassRule mfma_write_to_accvgpr_write;  // WAW; 1 / 7 / 15
  int mfma_write_to_agpr_srcc_same;      // 0
  int mfma_write_to_agpr_srcc_overlap;   // 2
  int mfma_write_to_agpr_srcab;          // 4
  PassRule mfma_srcc_read_to_accvgpr_write;  // WAR; 0 / 5 / 13
  int accvgpr_write_to_srcc;             // 1
  int accvgpr_write_to_srcab;            // 3
  int accvgpr_write_to_accvgpr_read;     // 3
  int accvgpr_write_to_accvgpr_write;    // 3 (WAW; GCNHazardRecognizer checkMAIHazards908)
  int valu_vgpr_write_to_accvgpr_write;  // 2 (VALU writes VGPR -> v_accvgpr_write reads it)
  int accvgpr_read_to_mem_read;          // 2 (v_accvgpr_read vD -> VMEM/DS reads vD)

  // --- 2.3 (all targets) ---------------------------------------------------------
  int valu_sgpr_write_to_vmem_read;      // 5 (VALU writes SGPR/VCC/EXEC -> VMEM reads it)
  // Columns below: gfx908 / gfx90a / gfx942 / gfx950.
  int valu_sgpr_write_to_valu_read;      // VALU writes SGPR/VCC -> VALU reads it: 0 / 0 / 2 / 2
  int trans_write_to_valu_read;          // transcendental -> non-trans VALU reads: 0 / 0 / 1 / 1
  int wide_store_to_valu_write;          // buffer_store_dwordx3/x4, constant soffset -> VALU
                                         // overwrites the data: 1 / 1 / 2 / 2
  int wide_store_sgpr_soffset_to_valu_write;  // the same with an SGPR soffset: 0 / 0 / 1 / 1
                                              // (LLVM PR #197267, gfx940 family only)
  // gfx942/950 (hasVDecCoExecHazard) lane-access rules from checkVALUHazards
  // (not in the notes' tables; LLVM source):
  int valu_vgpr_write_to_readlane_src0;  // VALU writes src0 VGPR -> v_readlane/v_readfirstlane: 0/0/1/1
  int valu_exec_write_to_rwlane;         // VALU writes EXEC -> v_readlane/v_readfirstlane/v_writelane: 0/0/4/4
  // 2.3 (all targets), checkRWLaneHazards: VALU writes the SGPR a
  // v_readlane/v_writelane takes as its lane select (src1): 4/4/4/4.
  int valu_sgpr_write_to_lane_select;
  // gfx940 family (GCNSubtarget::hasDstSelForwardingHazard: GFX940Insts),
  // checkVALUHazards Shift16DefWaitstates: a VALU that writes its destination
  // through the dst-sel forwarding path (DstSelForwarding below) -> a VALU
  // with any operand overlapping that destination (read or write,
  // consumesDstSelForwardingOperand): 0/0/1/1.
  int dst_sel_forwarding_to_valu;
  // 2.3 (all targets): s_setreg_b32 / s_setreg_imm32_b32 of hardware
  // register H -> s_getreg_b32 of H (checkGetRegHazards: GetRegWaitStates =
  // 2) / another s_setreg of H (checkSetRegHazards:
  // GCNSubtarget::getSetRegWaitStates(), 1 up to SEA_ISLANDS, else 2). Same
  // register id (the hwreg's bits 5:0, getHWReg), whatever the two fields:
  // 2/2/2/2. GCNHazardRecognizer.cpp and GCNSubtarget.h as read in
  // llvm/llvm-project at 00b3068edba99967631ee58c5cd808fe0e3c7bd7
  // (getWaitStatesSinceSetReg). That revision has no rule from an s_setreg of
  // MODE to a VALU (the hardware's round/denormal fields need none); the
  // ISA guides' "S_SETREG MODE.vskip -> any vector op: 2" concerns MODE bit
  // 28, which neither kirc nor the emulator writes (the reader refuses MODE
  // bits 8 and up).
  int setreg_to_getreg_same_hwreg;
  int setreg_to_setreg_same_hwreg;
};

// Whether `mi` writes its destination through the dst-sel forwarding path
// (GCNHazardRecognizer.cpp getDstSelForwardingOperand, ROCm/llvm-project
// 03a23131063b): an SDWA instruction with dst_sel other than DWORD, or an
// instruction with an op_sel operand whose src0_modifiers has bit 3 set
// (SISrcMods::DST_OP_SEL = OP_SEL_1 = 8). On VOP3 that bit is the op_sel dst
// bit (op_sel[number of sources]: `v_cvt_pk_fp8_f32 v1, v2, v3
// op_sel:[0,0,1]`); on VOP3P (v_pk_*, v_fma_mix*) it is op_sel_hi[0], which
// the assembler sets by default on the packed instructions, so llc 22
// (-mcpu=gfx942) puts an `s_nop 0` between `v_pk_add_f16 v1, s2, v1` and a
// `v_pk_mul_f16` reading v1, and between two dependent v_pk_*_f32 (checked
// 2026-12-05). For kDstForwarding::kByOpcode: kirc's fp8 word-1 conversions
// and every packed instruction (printed without op_sel_hi).
bool DstSelForwarding(const MInst& mi);
// The same from an instruction's encoding modifiers, for the assembly reader:
// `num_sources` explicit sources, `sdwa` with `sdwa_dst_dword` (dst_sel:DWORD),
// `op_sel` / `op_sel_hi` bit i = source i (op_sel bit num_sources: the dst).
MInst::DstForwarding DstForwardingOfEncoding(Opc opc, int num_sources, bool sdwa, bool sdwa_dst_dword,
                                             uint8_t op_sel, uint8_t op_sel_hi);

const HazardTable& HazardTableFor(Gfx gfx);

// One rule of a target's table in words (`kirc hazards`): the producer, the
// consumer (R: the registers the two share) and the wait states that must be
// issued between them, e.g. {"XDL MFMA writes R", "VALU/VMEM/DS reads or
// writes R", "2 passes: 5, 4 passes: 8, 8 passes: 12, 16 passes: 20"} on
// gfx950 (a count per MFMA pass count of the target, 16 included: the
// count taken for an MFMA without a known pass count). Rules that are off on
// the target (0 wait states) are left out. Read from the same rows as
// RequiredWaitStates and MaxHazardWindow, in table order, then the SALU M0
// write before an LDS DMA. Sources: the HazardTable fields' comments.
struct HazardRuleText {
  std::string producer, consumer, wait_states;
};
std::vector<HazardRuleText> HazardRules(const TargetInfo& t);

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_HAZARD_TABLE_H_
