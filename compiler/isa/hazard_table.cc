#include "compiler/isa/hazard_table.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/isa/semantics.h"

namespace kir {
namespace {

// ---------------------------------------------------------------------------
// Per-target tables. Row references are to shared/docs/amdgcn-isa-notes.md.

// gfx908 (AGPR form): section 2.2 (every row) and section 2.3, column 908.
constexpr HazardTable kGfx908Hazards = {
    .gfx = Gfx::kGfx908,
    .xdl_matters = false,
    // Section 2.1 applies to gfx90a and later only (checkMAIVALUHazards returns
    // early before gfx90a; on gfx908 MFMA results are AGPRs that plain VALU and
    // memory instructions cannot read).
    .mfma_write_to_valu_mem_xdl = kNoRule,
    .mfma_write_to_valu_mem_nonxdl = kNoRule,
    .mfma_write_to_srcc_same_2pass = 0,
    .mfma_write_to_srcc_overlap_xdl = kNoRule,
    .mfma_write_to_srcc_overlap_nonxdl = kNoRule,
    .mfma_write_to_srcab_xdl = kNoRule,
    .mfma_write_to_srcab_nonxdl = kNoRule,
    .mfma_srcc_read_to_write_xdl = kNoRule,
    .mfma_srcc_read_to_write_nonxdl = kNoRule,
    .valu_write_to_mfma_read = 2,   // 2.2 "VALU writes VGPR -> MFMA or v_accvgpr_write reads it | 2"
    .valu_exec_write_to_mfma = 4,   // 2.2 "VALU writes EXEC -> MFMA / v_accvgpr_write | 4"
    .agpr_form = true,
    .mfma_write_to_accvgpr_read = Passes(2),    // 2.2 "MFMA writes a[..] -> v_accvgpr_read | 4x4: 4, 16x16: 10, 32x32: 18" (2/8/16 passes)
    .mfma_write_to_accvgpr_write = Passes(-1),  // 2.2 "-> v_accvgpr_write to the same AGPR (WAW) | 1, 7, 15"
    .mfma_write_to_agpr_srcc_same = 0,          // 2.2 "MFMA writes -> MFMA srcC, same regs / overlapped | 0 / 2"
    .mfma_write_to_agpr_srcc_overlap = 2,
    .mfma_write_to_agpr_srcab = 4,              // 2.2 "MFMA writes -> MFMA srcA/B read from AGPR | 4"
    .mfma_srcc_read_to_accvgpr_write = Passes(-3),  // 2.2 "MFMA reads srcC -> v_accvgpr_write (WAR) | 0, 5, 13"
    .accvgpr_write_to_srcc = 1,           // 2.2 "v_accvgpr_write -> MFMA srcC / srcA,B / v_accvgpr_read | 1 / 3 / 3"
    .accvgpr_write_to_srcab = 3,
    .accvgpr_write_to_accvgpr_read = 3,
    .accvgpr_write_to_accvgpr_write = 3,  // checkMAIHazards908: AccVGPRWriteMFMAReadSrcABWaitStates applies to the
                                          // def of a later v_accvgpr_write (not in the notes' table)
    .valu_vgpr_write_to_accvgpr_write = 2,  // 2.2 "VALU writes VGPR -> MFMA or v_accvgpr_write reads it | 2"
    .accvgpr_read_to_mem_read = 2,          // 2.2 "v_accvgpr_read writes VGPR -> VMEM/DS/FLAT reads it | 2"
    .valu_sgpr_write_to_vmem_read = 5,      // 2.3 "VALU writes SGPR -> VMEM reads that SGPR | 5"
    .valu_sgpr_write_to_valu_read = 0,      // 2.3 "VALU writes SGPR/VCC -> VALU reads it | 0"
    .trans_write_to_valu_read = 0,          // 2.3 "transcendental -> non-trans VALU | 0"
    .wide_store_to_valu_write = 1,          // 2.3 "buffer_store_dwordx3/x4 soffset=constant -> VALU overwrites | 1"
    .wide_store_sgpr_soffset_to_valu_write = 0,  // LLVM PR #197267: "pre-gfx940 sgpr SOFFSET: no hazard"
    .valu_vgpr_write_to_readlane_src0 = 0,
    .valu_exec_write_to_rwlane = 0,
    .valu_sgpr_write_to_lane_select = 4,  // 2.3 "VALU writes SGPR -> v_readlane/v_writelane lane select | 4"
    .dst_sel_forwarding_to_valu = 0,  // hasDstSelForwardingHazard: GFX940Insts only
    .setreg_to_getreg_same_hwreg = 2,  // 2.3 "s_setreg -> s_getreg/s_setreg of the same hwreg | 2"
    .setreg_to_setreg_same_hwreg = 2,
};

// gfx90a: section 2.1, column gfx90a (16x16 = 8 passes, 32x32 = 16, 4x4 = 2;
// every MFMA counts as XDL), and section 2.3, column 90a.
constexpr HazardTable kGfx90aHazards = {
    .gfx = Gfx::kGfx90a,
    .xdl_matters = false,
    // 2.1 "XDL MFMA writes -> VALU reads or writes; buffer/ds reads | 4x4: 5, 16x16: 11, 32x32: 19"
    // and "non-XDL f32 MFMA (16x16x4 f32, 8-pass) | 11": passes + 3.
    .mfma_write_to_valu_mem_xdl = Passes(3),
    .mfma_write_to_valu_mem_nonxdl = Passes(3),
    .mfma_write_to_srcc_same_2pass = 0,               // 2.1 "srcC, exactly the same registers | 0"
    .mfma_write_to_srcc_overlap_xdl = Passes(0),      // 2.1 "srcC, partial overlap | 16x16: 8, 32x32: 16"
    .mfma_write_to_srcc_overlap_nonxdl = Passes(0),
    .mfma_write_to_srcab_xdl = Passes(3),             // 2.1 "MFMA writes -> next MFMA srcA/srcB | 16x16: 11, 32x32: 19"
    .mfma_write_to_srcab_nonxdl = Passes(3),
    .mfma_srcc_read_to_write_xdl = Passes(-1),        // 2.1 "MFMA reads srcC -> VALU overwrites (WAR) | 16x16: 7, 32x32: 15"
    .mfma_srcc_read_to_write_nonxdl = Passes(-1),
    .valu_write_to_mfma_read = 2,                     // 2.1 "VALU (not MFMA or DOT) writes a VGPR -> MFMA reads it | 2"
    .valu_exec_write_to_mfma = 4,                     // 2.1 "VALU writes EXEC -> MFMA | 4"
    .agpr_form = false,
    .mfma_write_to_accvgpr_read = kNoRule,
    .mfma_write_to_accvgpr_write = kNoRule,
    .mfma_write_to_agpr_srcc_same = 0,
    .mfma_write_to_agpr_srcc_overlap = 0,
    .mfma_write_to_agpr_srcab = 0,
    .mfma_srcc_read_to_accvgpr_write = kNoRule,
    .accvgpr_write_to_srcc = 0,
    .accvgpr_write_to_srcab = 0,
    .accvgpr_write_to_accvgpr_read = 0,
    .accvgpr_write_to_accvgpr_write = 0,
    .valu_vgpr_write_to_accvgpr_write = 0,
    .accvgpr_read_to_mem_read = 0,
    .valu_sgpr_write_to_vmem_read = 5,   // 2.3 "| 5"
    .valu_sgpr_write_to_valu_read = 0,   // 2.3 "| 0" (gfx942 only)
    .trans_write_to_valu_read = 0,       // 2.3 "| 0"
    .wide_store_to_valu_write = 1,       // 2.3 "| 1"
    .wide_store_sgpr_soffset_to_valu_write = 0,  // LLVM PR #197267: "pre-gfx940 sgpr SOFFSET: no hazard"
    .valu_vgpr_write_to_readlane_src0 = 0,
    .valu_exec_write_to_rwlane = 0,
    .valu_sgpr_write_to_lane_select = 4,  // 2.3 "VALU writes SGPR -> v_readlane/v_writelane lane select | 4"
    .dst_sel_forwarding_to_valu = 0,  // hasDstSelForwardingHazard: GFX940Insts only
    .setreg_to_getreg_same_hwreg = 2,  // 2.3 "s_setreg -> s_getreg/s_setreg of the same hwreg | 2"
    .setreg_to_setreg_same_hwreg = 2,
};

// gfx942: section 2.1, column gfx942 (XDL: GFX940_XDL_N_Pass* formulas,
// non-XDL: GFX940_SMFMA_N_Pass*), and section 2.3, column 942.
constexpr HazardTable kGfx942Hazards = {
    .gfx = Gfx::kGfx942,
    .xdl_matters = true,
    // 2.1 "XDL MFMA writes -> VALU/VMEM/DS | NumPasses+3: 4-pass 7, 8-pass 11"
    .mfma_write_to_valu_mem_xdl = Passes(3),
    // 2.1 "non-XDL f32 MFMA writes -> same consumers | NumPasses+2 = 10"
    .mfma_write_to_valu_mem_nonxdl = Passes(2),
    // 2.1 "srcC, exactly the same registers | 0 (2-pass producers need 2)"
    .mfma_write_to_srcc_same_2pass = 2,
    // 2.1 "srcC, partial overlap | XDL: NumPasses+1 (4p: 5, 8p: 9); non-XDL producer: NumPasses (8)".
    // (LLVM gives 0 for a non-XDL producer feeding an XDL consumer's srcC; we
    // keep NumPasses, which is safe.)
    .mfma_write_to_srcc_overlap_xdl = Passes(1),
    .mfma_write_to_srcc_overlap_nonxdl = Passes(0),
    // 2.1 "MFMA writes -> next MFMA srcA/srcB | XDL: NumPasses+3 (7 / 11); non-XDL: NumPasses+2 (10)"
    .mfma_write_to_srcab_xdl = Passes(3),
    .mfma_write_to_srcab_nonxdl = Passes(2),
    // 2.1 "MFMA reads srcC -> later VALU overwrites (WAR) | XDL 4p: 3, 8p: 7; non-XDL: 0"
    .mfma_srcc_read_to_write_xdl = Passes(-1),
    .mfma_srcc_read_to_write_nonxdl = kNoRule,
    .valu_write_to_mfma_read = 2,   // 2.1 "VALU (not MFMA or DOT) writes a VGPR -> MFMA reads it | 2"
    .valu_exec_write_to_mfma = 4,   // 2.1 "VALU writes EXEC -> MFMA | 4"
    .agpr_form = false,
    .mfma_write_to_accvgpr_read = kNoRule,
    .mfma_write_to_accvgpr_write = kNoRule,
    .mfma_write_to_agpr_srcc_same = 0,
    .mfma_write_to_agpr_srcc_overlap = 0,
    .mfma_write_to_agpr_srcab = 0,
    .mfma_srcc_read_to_accvgpr_write = kNoRule,
    .accvgpr_write_to_srcc = 0,
    .accvgpr_write_to_srcab = 0,
    .accvgpr_write_to_accvgpr_read = 0,
    .accvgpr_write_to_accvgpr_write = 0,
    .valu_vgpr_write_to_accvgpr_write = 0,
    .accvgpr_read_to_mem_read = 0,
    .valu_sgpr_write_to_vmem_read = 5,   // 2.3 "VALU writes SGPR -> VMEM reads that SGPR | 5"
    .valu_sgpr_write_to_valu_read = 2,   // 2.3 "VALU writes SGPR/VCC -> VALU reads it | 2" (hasVDecCoExecHazard)
    .trans_write_to_valu_read = 1,       // 2.3 "transcendental -> non-trans VALU reads its result | 1"
    .wide_store_to_valu_write = 2,       // 2.3 "buffer_store_dwordx3/x4 soffset=constant -> VALU overwrites | 2"
    // 2.3 erratum row: merged LLVM PR #197267 (2026-05-12, "Widen MUBUF/MTBUF
    // source-vgpr WAR hazard on gfx940-family to SGPR soffset"): an
    // SGPR-sourced soffset needs 1 wait state on gfx942/gfx950 (measured on
    // gfx950 hardware there: one s_nop 0 clears the corruption of the store's
    // second dword). LLVM 22.1.8 predates it, so llc-22 is not the oracle here.
    .wide_store_sgpr_soffset_to_valu_write = 1,
    // checkVALUHazards (hasVDecCoExecHazard): VALUWriteVGPRReadlaneRead = 1
    // (v_readlane / v_readfirstlane src0), VALUWriteEXECRWLane = 4
    // (v_readlane / v_readfirstlane / v_writelane).
    .valu_vgpr_write_to_readlane_src0 = 1,
    .valu_exec_write_to_rwlane = 4,
    .valu_sgpr_write_to_lane_select = 4,  // 2.3 "VALU writes SGPR -> v_readlane/v_writelane lane select | 4"
    .dst_sel_forwarding_to_valu = 1,  // checkVALUHazards Shift16DefWaitstates (hasDstSelForwardingHazard); fresh-user review 9 F2
    .setreg_to_getreg_same_hwreg = 2,  // 2.3 "s_setreg -> s_getreg/s_setreg of the same hwreg | 2"
    .setreg_to_setreg_same_hwreg = 2,
};

// gfx950 (CDNA4). Source: llvm/lib/Target/AMDGPU/GCNHazardRecognizer.cpp as
// read in ROCm/llvm-project at 03a23131063bd11714da369efa3754025aafa1f0 (the
// newest revision with gfx950 hazard code that could be read here:
// `fetch github:llvm/llvm-project` is refused, the snapshot is 8 GB, and the
// stored llvm/llvm-project revisions of the file predate gfx950, e.g.
// d18555214fea and 00b3068edba9, which have no hasGFX950Insts). gfx950 has
// GFX940Insts, so every gfx940 branch applies, plus the IsGFX950 terms listed
// per row. Rows without a comment are as gfx942 (the same functions, no
// gfx950 term). Pass counts: SISchedule.td SIDPGFX950FullSpeedModel
// (target.cc), XDL class: isXDL / is_gfx940_xdl as on gfx942.
constexpr HazardTable kGfx950Hazards = {
    .gfx = Gfx::kGfx950,
    .xdl_matters = true,
    // checkMAIVALUHazards: GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates
    // (RAW: VALU/VMEM/DS/EXP reads) and GFX940_XDL_N_PassWriteVgprVALUWawWaitStates
    // (WAW: VALU/VMEM/DS writes), both NumPasses + 3 + (NumPasses != 2 &&
    // IsGFX950): 4-pass 8, 8-pass 12, 16-pass 20; 2-pass 5 as on gfx942.
    .mfma_write_to_valu_mem_xdl = Passes(3, 1),
    .mfma_write_to_valu_mem_nonxdl = Passes(2),  // GFX940_SMFMA_N_Pass*: NumPasses + 2, no gfx950 term
    .mfma_write_to_srcc_same_2pass = 2,          // GFX940_SMFMA4x4WritesVGPRFullSrcCWaitStates
    // LLVM PR #218363 ("Add wait states between different MFMAs sharing an
    // accumulator", open at 2026-08-24, read in its review thread, not in the
    // revision above): a full srcC read of another MFMA's result takes the
    // partial-overlap wait states ("on gfx950, v_mfma_f32_16x16x32_f16 then
    // v_mfma_f32_16x16x16_f16 on the same tuple needs 5 and got none"). kirc
    // applies its partial-overlap row (4-pass XDL: 6 >= the PR's 5).
    .srcc_same_regs_other_mfma_as_overlap = true,
    // checkMAIHazards90A, srcC partially overlapped, XDL producer: XDL consumer
    // GFX940_XDL_N_PassWritesVGPROverlappedXDLOrSMFMASrcCWaitStates = NumPasses
    // + 1 + IsGFX950 (2p 4, 4p 6, 8p 10); non-XDL consumer
    // GFX940_XDL_N_PassWritesVGPROverlappedSGEMMDGEMMSrcCWaitStates = NumPasses
    // + 1 + (NumPasses != 2 && IsGFX950) (2p 3). The table keys on the
    // producer only, so it keeps the larger (they differ for 2-pass producers
    // only, which kirc does not emit).
    .mfma_write_to_srcc_overlap_xdl = Passes(2),
    // GFX940_SMFMA_N_PassWritesVGPROverlappedSMFMASrcCWaitStates = NumPasses
    // (LLVM: 0 for a non-XDL producer feeding an XDL consumer; kept, as on
    // gfx942).
    .mfma_write_to_srcc_overlap_nonxdl = Passes(0),
    // checkMAIHazards90A: GFX940_XDL_N_PassWritesVGPROverlappedSrcABWaitStates =
    // NumPasses + 3 + (NumPasses != 2 && IsGFX950): 4-pass 8, 8-pass 12.
    .mfma_write_to_srcab_xdl = Passes(3, 1),
    .mfma_write_to_srcab_nonxdl = Passes(2),  // GFX940_SMFMA_N_PassWritesVGPROverlappedSrcABWaitStates
    // checkMAIVALUHazards WAR (IsSMFMAReadAsCFn, XDL readers only on
    // GFX940Insts): 2p SMFMA4x4ReadVgprVALUWarWaitStates 1, 4p
    // GFX940_XDL4PassReadVgprVALUWarWaitStates 3, 8p 7, 16p 15: no gfx950 term.
    .mfma_srcc_read_to_write_xdl = Passes(-1),
    .mfma_srcc_read_to_write_nonxdl = kNoRule,
    .valu_write_to_mfma_read = 2,   // checkMAIHazards90A LegacyVALUNotDotWritesVGPRWaitStates
    .valu_exec_write_to_mfma = 4,   // checkMAIHazards90A VALUWritesExecWaitStates
    .agpr_form = false,
    .mfma_write_to_accvgpr_read = kNoRule,
    .mfma_write_to_accvgpr_write = kNoRule,
    .mfma_write_to_agpr_srcc_same = 0,
    .mfma_write_to_agpr_srcc_overlap = 0,
    .mfma_write_to_agpr_srcab = 0,
    .mfma_srcc_read_to_accvgpr_write = kNoRule,
    .accvgpr_write_to_srcc = 0,
    .accvgpr_write_to_srcab = 0,
    .accvgpr_write_to_accvgpr_read = 0,
    .accvgpr_write_to_accvgpr_write = 0,
    .valu_vgpr_write_to_accvgpr_write = 0,
    .accvgpr_read_to_mem_read = 0,
    .valu_sgpr_write_to_vmem_read = 5,   // checkVMEMHazards VmemSgprWaitStates
    .valu_sgpr_write_to_valu_read = 2,   // checkVALUHazards (hasVDecCoExecHazard) VALUWriteSGPRVALUReadWaitstates
    .trans_write_to_valu_read = 1,       // checkVALUHazards (hasTransForwardingHazard) TransDefWaitstates
    .wide_store_to_valu_write = 2,       // checkVALUHazardsHelper: hasGFX940Insts() ? 2 : 1
    // LLVM PR #197267 (SGPR soffset, gfx940 family: 1 wait state) is not in
    // the revision read (its createsVALUHazard still returns no hazard for a
    // register soffset), nor are #203770 (the same across a CFG edge) or the
    // shared-accumulator rule of #218363. The row follows the notes' erratum
    // for the gfx940 family (gfx942 and gfx950), as kGfx942Hazards does; the
    // pass and the emulator see producers across CFG edges already
    // (WideStoreProducer). #218363 is not implemented: its text could not be
    // read.
    .wide_store_sgpr_soffset_to_valu_write = 1,
    .valu_vgpr_write_to_readlane_src0 = 1,  // checkVALUHazards VALUWriteVGPRReadlaneRead
    .valu_exec_write_to_rwlane = 4,         // checkVALUHazards VALUWriteEXECRWLane
    .valu_sgpr_write_to_lane_select = 4,    // checkRWLaneHazards RWLaneWaitStates
    .dst_sel_forwarding_to_valu = 1,  // as gfx942 (GFX940Insts); hasCvtScaleForwardingHazard adds cvt_scale forms kirc lacks
    .setreg_to_getreg_same_hwreg = 2,  // as gfx942 (no generation term beyond SEA_ISLANDS)
    .setreg_to_setreg_same_hwreg = 2,
    // gfx950-only rules in the revision read, none of which kirc can hit
    // (compiler/isa/opcodes.def has none of their instructions):
    // checkPermlaneHazards (ST.hasGFX950Insts() && isPermlane: v_permlane*),
    // the cvt_scale forwarding hazard (hasCvtScaleForwardingHazard:
    // v_cvt_scalef32_* with op_sel / fp4 sr), the DGEMM (f64 MFMA) rows
    // GFX950_DMFMA16x16* (kirc has no f64 MFMA).
};

// ---------------------------------------------------------------------------
// Register accesses of one instruction.

// The accesses the rules see: physical and special registers (virtual ones
// overlap nothing), explicit, tied and implicit.
constexpr uint32_t kHazardAccesses = kAllAccesses | kPhysicalOnly;

RegAccesses Collect(const MInst& mi) { return CollectRegAccesses(mi, kHazardAccesses); }

// The physical or special register of named operand `n`.
bool OperandAccess(const MInst& mi, OpName n, RegAccess* a) {
  return NamedRegAccess(mi, n, a) && !a->is_virtual;
}

RegAccess SpecialAccess(SpecialReg s) {
  RegAccess a;
  a.cls = RegClass::kSgpr;
  SpecialRegRange(s, &a.lo, &a.count);
  a.special = s;
  return a;
}
const RegAccess kExecAccess = SpecialAccess(SpecialReg::kExec);
const RegAccess kVccAccess = SpecialAccess(SpecialReg::kVcc);

// ---------------------------------------------------------------------------
// Instruction kinds (LLVM's SIInstrInfo predicates).

InstClass Cls(const MInst& m) { return Info(m.opc).cls; }
bool IsMfma(InstClass c) { return c == InstClass::kMfma; }
// isVALU: every vector ALU instruction, MFMA and the accvgpr moves included.
bool IsValu(InstClass c) {
  return c == InstClass::kValu || c == InstClass::kValuTrans || c == InstClass::kMfma ||
         c == InstClass::kAccRead || c == InstClass::kAccWrite;
}
// "Legacy" VALU: VALU that is not an MFMA.
bool IsLegacyValu(InstClass c) { return IsValu(c) && c != InstClass::kMfma; }

const char* KindName(const MInst& m) {
  switch (Cls(m)) {
    case InstClass::kVmemLoad:
    case InstClass::kVmemStore: return "VMEM";
    case InstClass::kDsRead:
    case InstClass::kDsWrite: return "DS";
    case InstClass::kMfma: return "MFMA";
    case InstClass::kAccRead: return "v_accvgpr_read";
    case InstClass::kAccWrite: return "v_accvgpr_write";
    case InstClass::kValuTrans: return "transcendental VALU";
    case InstClass::kValu: return "VALU";
    case InstClass::kSmem: return "SMEM";
    case InstClass::kSalu: return "SALU";
    case InstClass::kSopp: return "SOPP";
  }
  return "instruction";
}

// Keeps the largest requirement and, on request, its reason.
class Need {
 public:
  Need(const TargetInfo& t, std::string* why) : t_(t), why_(why) {}
  template <typename Describe>
  void Add(int w, Describe&& describe) {
    if (w <= need_) return;
    need_ = w;
    if (why_ != nullptr)
      *why_ = absl::StrCat(describe(), ": ", w, w == 1 ? " wait state (" : " wait states (",
                           t_.name, ")");
  }
  int value() const { return need_; }

 private:
  const TargetInfo& t_;
  std::string* why_;
  int need_ = 0;
};

struct MfmaFacts {
  int passes;
  bool xdl;
};

MfmaFacts FactsOf(const TargetInfo& t, const MInst& m) {
  // An MFMA without a descriptor, or one the target lacks, is treated as the
  // slowest XDL MFMA: 16 passes (the worst case of every rule).
  if (m.mfma == nullptr) return {16, true};
  int p = MfmaPasses(t, *m.mfma);
  return {p > 0 ? p : 16, m.mfma->xdl};
}

std::string MfmaName(const HazardTable& tab, const MfmaFacts& f) {
  const char* kind = !tab.xdl_matters ? "MFMA" : f.xdl ? "XDL MFMA" : "non-XDL MFMA";
  return absl::StrCat(kind, " (", f.passes, " passes)");
}

// Producer: an MFMA.
void MfmaProducer(const TargetInfo& t, const HazardTable& tab, const MInst& p, const MInst& c,
                  absl::Span<const RegAccess> ca, Need& need) {
  const MfmaFacts f = FactsOf(t, p);
  const InstClass cc = Cls(c);
  RegAccess dst, srcc;
  const bool has_dst = OperandAccess(p, OpName::kVdst, &dst);
  const bool has_srcc = OperandAccess(p, OpName::kSrc2, &srcc);
  auto pname = [&] { return MfmaName(tab, f); };

  if (!tab.agpr_form) {
    // Section 2.1 (gfx90a, gfx942, gfx950).
    if (IsMfma(cc)) {
      if (!has_dst) return;
      for (int k = 0; k < 3; ++k) {
        RegAccess u;
        if (!OperandAccess(c, SrcName(k), &u) || !Overlap(dst, u)) continue;
        if (k == 2) {
          // One MFMA opcode (#218363 compares canonicalized opcodes, its
          // description): gfx950's f8f6f4 MFMAs are one opcode whatever
          // formats cbsz and blgp select (fresh-user review 23 F1:
          // fp8_fp8 then bf8_fp8 on one accumulator took 10 wait states).
          absl::StatusOr<std::string> pm = p.mfma == nullptr ? absl::StatusOr<std::string>(absl::NotFoundError(""))
                                                             : MfmaMnemonic(t, *p.mfma);
          absl::StatusOr<std::string> cm = c.mfma == nullptr ? absl::StatusOr<std::string>(absl::NotFoundError(""))
                                                             : MfmaMnemonic(t, *c.mfma);
          const bool same_mfma = pm.ok() && cm.ok() && *pm == *cm;
          if (SameRegs(dst, u) && (same_mfma || !tab.srcc_same_regs_other_mfma_as_overlap)) {
            int w = f.passes == 2 ? tab.mfma_write_to_srcc_same_2pass : 0;
            need.Add(w, [&] {
              return absl::StrCat(pname(), " writes ", RegAccessName(dst),
                                  " read as the next MFMA's srcC (same registers)");
            });
          } else {
            const PassRule& r =
                f.xdl ? tab.mfma_write_to_srcc_overlap_xdl : tab.mfma_write_to_srcc_overlap_nonxdl;
            const bool shared = SameRegs(dst, u);
            need.Add(r.Eval(f.passes), [&] {
              return absl::StrCat(pname(), " writes ", RegAccessName(dst), " read as MFMA srcC ",
                                  RegAccessName(u),
                                  shared ? " (the same registers, another MFMA)" : " (partial overlap)");
            });
          }
        } else {
          const PassRule& r = f.xdl ? tab.mfma_write_to_srcab_xdl : tab.mfma_write_to_srcab_nonxdl;
          need.Add(r.Eval(f.passes), [&] {
            return absl::StrCat(pname(), " writes ", RegAccessName(dst), " read as MFMA ",
                                k == 0 ? "srcA" : "srcB");
          });
        }
      }
      return;
    }
    if (!(IsLegacyValu(cc) || IsVmem(cc) || IsDs(cc))) return;
    const PassRule& raw =
        f.xdl ? tab.mfma_write_to_valu_mem_xdl : tab.mfma_write_to_valu_mem_nonxdl;
    const PassRule& war =
        f.xdl ? tab.mfma_srcc_read_to_write_xdl : tab.mfma_srcc_read_to_write_nonxdl;
    for (const RegAccess& a : ca) {
      if (!a.explicit_op()) continue;
      if (has_dst && Overlap(dst, a)) {
        need.Add(raw.Eval(f.passes), [&] {
          return absl::StrCat(pname(), " writes ", RegAccessName(dst),
                              a.def ? " overwritten by " : " read by ", KindName(c));
        });
      }
      if (a.def && has_srcc && Overlap(srcc, a)) {
        need.Add(war.Eval(f.passes), [&] {
          return absl::StrCat(pname(), " reads srcC ", RegAccessName(srcc), " overwritten by ",
                              KindName(c), " (WAR)");
        });
      }
    }
    return;
  }

  // Section 2.2 (gfx908, AGPR form).
  if (cc == InstClass::kAccRead) {
    RegAccess src;
    if (has_dst && OperandAccess(c, OpName::kSrc0, &src) && Overlap(dst, src))
      need.Add(tab.mfma_write_to_accvgpr_read.Eval(f.passes), [&] {
        return absl::StrCat(pname(), " writes ", RegAccessName(dst), " read by v_accvgpr_read");
      });
  } else if (cc == InstClass::kAccWrite) {
    RegAccess d;
    if (!OperandAccess(c, OpName::kVdst, &d)) return;
    if (has_dst && Overlap(dst, d))
      need.Add(tab.mfma_write_to_accvgpr_write.Eval(f.passes), [&] {
        return absl::StrCat(pname(), " writes ", RegAccessName(dst),
                            " overwritten by v_accvgpr_write (WAW)");
      });
    if (has_srcc && Overlap(srcc, d))
      need.Add(tab.mfma_srcc_read_to_accvgpr_write.Eval(f.passes), [&] {
        return absl::StrCat(pname(), " reads srcC ", RegAccessName(srcc),
                            " overwritten by v_accvgpr_write (WAR)");
      });
  } else if (IsMfma(cc) && has_dst) {
    for (int k = 0; k < 3; ++k) {
      RegAccess u;
      if (!OperandAccess(c, SrcName(k), &u) || !Overlap(dst, u)) continue;
      if (k == 2) {
        bool same = SameRegs(dst, u);
        need.Add(same ? tab.mfma_write_to_agpr_srcc_same : tab.mfma_write_to_agpr_srcc_overlap,
                 [&] {
                   return absl::StrCat(pname(), " writes ", RegAccessName(dst),
                                       " read as MFMA srcC ", RegAccessName(u),
                                       same ? " (same registers)" : " (overlap)");
                 });
      } else {
        need.Add(tab.mfma_write_to_agpr_srcab, [&] {
          return absl::StrCat(pname(), " writes ", RegAccessName(dst), " read as MFMA ",
                              k == 0 ? "srcA" : "srcB");
        });
      }
    }
  }
}

// Producer: v_accvgpr_write on gfx908 (section 2.2).
void AccWriteProducer(const HazardTable& tab, const MInst& p, const MInst& c, Need& need) {
  RegAccess d;
  if (!OperandAccess(p, OpName::kVdst, &d)) return;
  const InstClass cc = Cls(c);
  auto add = [&](OpName n, int w, const char* what) {
    RegAccess u;
    if (!OperandAccess(c, n, &u) || !Overlap(d, u)) return;
    need.Add(w, [&] { return absl::StrCat("v_accvgpr_write writes ", RegAccessName(d), " ", what); });
  };
  if (IsMfma(cc)) {
    add(OpName::kSrc0, tab.accvgpr_write_to_srcab, "read as MFMA srcA");
    add(OpName::kSrc1, tab.accvgpr_write_to_srcab, "read as MFMA srcB");
    add(OpName::kSrc2, tab.accvgpr_write_to_srcc, "read as MFMA srcC");
  } else if (cc == InstClass::kAccRead) {
    add(OpName::kSrc0, tab.accvgpr_write_to_accvgpr_read, "read by v_accvgpr_read");
  } else if (cc == InstClass::kAccWrite) {
    add(OpName::kVdst, tab.accvgpr_write_to_accvgpr_write, "overwritten by v_accvgpr_write (WAW)");
  }
}

// Producer: any VALU (MFMA included); sections 2.1/2.2 (VALU -> MFMA) and 2.3.
void ValuProducer(const HazardTable& tab, const MInst& p, const MInst& c, absl::Span<const RegAccess> pa,
                  absl::Span<const RegAccess> ca, Need& need) {
  const InstClass pc = Cls(p), cc = Cls(c);
  const bool writes_exec = std::any_of(pa.begin(), pa.end(), [](const RegAccess& a) {
    return a.def && Overlap(a, kExecAccess);
  });

  // VALU writes a register -> MFMA (or, on gfx908, v_accvgpr_write) reads it;
  // VALU writes EXEC -> the same consumers. gfx908 counts every VALU
  // (checkMAIHazards908 IsVALUFn) and only VGPR sources; gfx90a+ counts legacy
  // VALU (not MFMA) and every source (checkMAIHazards90A).
  const bool mfma_like_consumer = IsMfma(cc) || (tab.agpr_form && cc == InstClass::kAccWrite);
  const bool producer_counts = tab.agpr_form || IsLegacyValu(pc);
  if (mfma_like_consumer && producer_counts) {
    if (writes_exec)
      need.Add(tab.valu_exec_write_to_mfma,
               [&] { return absl::StrCat(KindName(p), " writes exec before ", KindName(c)); });
    const int w = cc == InstClass::kAccWrite ? tab.valu_vgpr_write_to_accvgpr_write
                                             : tab.valu_write_to_mfma_read;
    for (const RegAccess& d : pa) {
      if (!d.def) continue;
      for (const RegAccess& u : ca) {
        if (u.def || !u.explicit_op() || (tab.agpr_form && u.cls != RegClass::kVgpr)) continue;
        if (Overlap(d, u))
          need.Add(w, [&] {
            return absl::StrCat(KindName(p), " writes ", RegAccessName(d), " read by ", KindName(c));
          });
      }
    }
  }

  // gfx908: v_accvgpr_read writes a VGPR -> VMEM/DS reads it (checkMAILdStHazards).
  if (tab.accvgpr_read_to_mem_read > 0 && pc == InstClass::kAccRead && (IsVmem(cc) || IsDs(cc))) {
    RegAccess d;
    if (OperandAccess(p, OpName::kVdst, &d))
      for (const RegAccess& u : ca)
        if (!u.def && u.explicit_op() && u.cls == RegClass::kVgpr && Overlap(d, u))
          need.Add(tab.accvgpr_read_to_mem_read, [&] {
            return absl::StrCat("v_accvgpr_read writes ", RegAccessName(d), " read by ",
                                KindName(c));
          });
  }

  // 2.3: VALU writes an SGPR (VCC and EXEC included) -> VMEM reads it, explicitly
  // or implicitly (checkVMEMHazards walks all uses).
  if (IsVmem(cc)) {
    for (const RegAccess& d : pa) {
      if (!d.def || d.cls != RegClass::kSgpr) continue;
      for (const RegAccess& u : ca)
        if (!u.def && Overlap(d, u))
          need.Add(tab.valu_sgpr_write_to_vmem_read, [&] {
            return absl::StrCat(KindName(p), " writes ", RegAccessName(d), " read by VMEM");
          });
    }
  }

  // 2.3 (gfx942): VALU writes an SGPR or VCC -> VALU reads it as an explicit
  // operand, or reads VCC (explicitly or implicitly). Implicit EXEC reads do
  // not count (checkVALUHazards, hasVDecCoExecHazard).
  if (tab.valu_sgpr_write_to_valu_read > 0 && IsValu(cc)) {
    for (const RegAccess& d : pa) {
      if (!d.def || d.cls != RegClass::kSgpr) continue;
      for (const RegAccess& u : ca) {
        if (u.def || u.cls != RegClass::kSgpr) continue;
        if (!u.explicit_op() && !Overlap(u, kVccAccess)) continue;
        if (Overlap(d, u))
          need.Add(tab.valu_sgpr_write_to_valu_read, [&] {
            return absl::StrCat(KindName(p), " writes ", RegAccessName(d), " read by ",
                                KindName(c));
          });
      }
    }
  }

  // 2.3 (gfx942): transcendental result -> non-transcendental VALU reads it.
  if (tab.trans_write_to_valu_read > 0 && pc == InstClass::kValuTrans && IsValu(cc) &&
      cc != InstClass::kValuTrans) {
    for (const RegAccess& d : pa) {
      if (!d.def || !d.explicit_op()) continue;
      for (const RegAccess& u : ca)
        if (!u.def && u.explicit_op() && Overlap(d, u))
          need.Add(tab.trans_write_to_valu_read, [&] {
            return absl::StrCat("transcendental VALU writes ", RegAccessName(d), " read by ",
                                KindName(c));
          });
    }
  }

  // gfx942 v_readlane / v_readfirstlane: VALU writes the source VGPR (1);
  // those and v_writelane: VALU writes EXEC (4) (checkVALUHazards,
  // hasVDecCoExecHazard).
  const bool reads_lane = c.opc == Opc::kVReadlaneB32 || c.opc == Opc::kVReadfirstlaneB32;
  const bool rw_lane = reads_lane || c.opc == Opc::kVWritelaneB32;
  if (reads_lane) {
    RegAccess src;
    if (OperandAccess(c, OpName::kSrc0, &src))
      for (const RegAccess& d : pa)
        if (d.def && Overlap(d, src))
          need.Add(tab.valu_vgpr_write_to_readlane_src0, [&] {
            return absl::StrCat(KindName(p), " writes ", RegAccessName(d), " read by ",
                                Info(c.opc).mnemonic);
          });
  }
  if (rw_lane && writes_exec)
    need.Add(tab.valu_exec_write_to_rwlane, [&] {
      return absl::StrCat(KindName(p), " writes exec before ", Info(c.opc).mnemonic);
    });
  // Every target: VALU writes the SGPR that v_readlane / v_writelane take as
  // their lane select (src1) (checkRWLaneHazards, RWLaneWaitStates = 4).
  if (c.opc == Opc::kVReadlaneB32 || c.opc == Opc::kVWritelaneB32) {
    RegAccess sel;
    if (OperandAccess(c, OpName::kSrc1, &sel) && sel.cls == RegClass::kSgpr)
      for (const RegAccess& d : pa)
        if (d.def && d.cls == RegClass::kSgpr && Overlap(d, sel))
          need.Add(tab.valu_sgpr_write_to_lane_select, [&] {
            return absl::StrCat(KindName(p), " writes ", RegAccessName(d), " read as the lane select of ",
                                Info(c.opc).mnemonic);
          });
  }
  // gfx940 family: a dst-sel forwarding write (DstSelForwarding) -> a VALU
  // that reads or writes any register of that destination.
  if (tab.dst_sel_forwarding_to_valu > 0 && IsValu(cc) && DstSelForwarding(p)) {
    RegAccess d;
    if (OperandAccess(p, OpName::kVdst, &d))
      for (const RegAccess& u : ca)
        if (Overlap(d, u)) {
          need.Add(tab.dst_sel_forwarding_to_valu, [&] {
            return absl::StrCat(Info(p.opc).mnemonic, " writes ", RegAccessName(d),
                                " through the dst-sel forwarding path (op_sel/op_sel_hi/dst_sel), ",
                                u.def ? "written" : "read", " by ", KindName(c));
          });
          break;
        }
  }
}

bool IsVop3p(Opc opc) {
  switch (opc) {
    case Opc::kVPkAddF16: case Opc::kVPkMulF16: case Opc::kVPkFmaF16: case Opc::kVPkMaxF16:
    case Opc::kVPkAddF32: case Opc::kVPkMulF32: case Opc::kVPkFmaF32: case Opc::kVPkMovB32:
    case Opc::kVFmaMixF32: case Opc::kVFmaMixloF16: case Opc::kVFmaMixhiF16:
      return true;
    default:
      return false;
  }
}

// Producer: a VMEM store of more than 64 bits (has12DWordStoreHazard; 2.3)
// -> a VALU that overwrites its data registers. A constant (or absent) soffset
// and, on the gfx940 family, an SGPR soffset (LLVM PR #197267) start it, with
// different windows. The pass and the emulator see it across CFG edges (a VALU
// at the top of a successor block, LLVM #202333 / #203770) because both walk
// producers through the CFG dataflow, not within one block.
void WideStoreProducer(const HazardTable& tab, const MInst& p, const MInst& c, absl::Span<const RegAccess> ca,
                       Need& need) {
  if (!IsValu(Cls(c))) return;
  RegAccess data;
  if (!OperandAccess(p, OpName::kVdata, &data) || data.count <= 2) return;
  // No soffset operand (a global store) means the field is hard-wired to 0, a
  // constant.
  const MOperand* soffset = FindOperand(p, OpName::kSoffset);
  const bool constant_soffset = soffset == nullptr || soffset->kind == MOperand::Kind::kImm;
  const int wait = constant_soffset ? tab.wide_store_to_valu_write
                                    : tab.wide_store_sgpr_soffset_to_valu_write;
  if (wait <= 0) return;
  for (const RegAccess& d : ca)
    if (d.def && Overlap(d, data))
      need.Add(wait, [&] {
        return absl::StrCat(Info(p.opc).mnemonic,
                            constant_soffset ? " with a constant soffset" : " with an SGPR soffset",
                            " reads ", RegAccessName(data), " overwritten by ", KindName(c));
      });
}

// 2.3 (GFX9: all four targets): an SALU writes M0 -> an LDS DMA (kReadsM0:
// buffer_load_dwordx4 ... lds reads its LDS base from M0) needs 1 wait
// state. LLVM GCNHazardRecognizer.cpp: PreEmitNoopsCommon calls
// checkReadM0Hazards for isLdsDma when ST.hasReadM0LdsDmaHazard()
// (GCNSubtarget.h: getGeneration() == GFX9), and checkReadM0Hazards asks
// SMovRelWaitStates = 1 after an SALU def of M0.
constexpr int kSaluM0WriteToLdsDma = 1;

// Every rule of a HazardTable, once: ComputeMaxWindow's maximum and
// HazardRules's listing (`kirc hazards`) read these rows, so neither can
// miss a field. Producer -> consumer as RequiredWaitStates's reasons name
// them; amdgcn-isa-notes.md section 2 and the fields' comments give sources.
struct CountRow {
  const char* producer;
  const char* consumer;
  int HazardTable::*field;
};
struct PassRow {
  const char* producer;
  const char* consumer;
  PassRule HazardTable::*field;
};
constexpr CountRow kCountRows[] = {
    {"MFMA (2 passes) writes R", "the next MFMA reads R as srcC (same registers, same MFMA)",
     &HazardTable::mfma_write_to_srcc_same_2pass},
    {"VALU (not MFMA; gfx908: any VALU) writes R", "MFMA reads R", &HazardTable::valu_write_to_mfma_read},
    {"VALU writes EXEC", "MFMA (gfx908: also v_accvgpr_write)", &HazardTable::valu_exec_write_to_mfma},
    {"MFMA writes AGPRs R", "MFMA reads R as srcC (same registers)", &HazardTable::mfma_write_to_agpr_srcc_same},
    {"MFMA writes AGPRs R", "MFMA reads R as srcC (overlap)", &HazardTable::mfma_write_to_agpr_srcc_overlap},
    {"MFMA writes AGPRs R", "MFMA reads R as srcA/srcB", &HazardTable::mfma_write_to_agpr_srcab},
    {"v_accvgpr_write writes R", "MFMA reads R as srcC", &HazardTable::accvgpr_write_to_srcc},
    {"v_accvgpr_write writes R", "MFMA reads R as srcA/srcB", &HazardTable::accvgpr_write_to_srcab},
    {"v_accvgpr_write writes R", "v_accvgpr_read reads R", &HazardTable::accvgpr_write_to_accvgpr_read},
    {"v_accvgpr_write writes R", "v_accvgpr_write writes R (WAW)", &HazardTable::accvgpr_write_to_accvgpr_write},
    {"VALU writes VGPR R", "v_accvgpr_write reads R", &HazardTable::valu_vgpr_write_to_accvgpr_write},
    {"v_accvgpr_read writes VGPR R", "VMEM/DS reads R", &HazardTable::accvgpr_read_to_mem_read},
    {"VALU writes SGPR/VCC/EXEC R", "VMEM reads R", &HazardTable::valu_sgpr_write_to_vmem_read},
    {"VALU writes SGPR/VCC R", "VALU reads R", &HazardTable::valu_sgpr_write_to_valu_read},
    {"transcendental VALU writes R", "non-transcendental VALU reads R", &HazardTable::trans_write_to_valu_read},
    {"buffer/global store of 3-4 dwords, constant soffset, reads data R", "VALU writes R",
     &HazardTable::wide_store_to_valu_write},
    {"buffer store of 3-4 dwords, SGPR soffset, reads data R", "VALU writes R",
     &HazardTable::wide_store_sgpr_soffset_to_valu_write},
    {"VALU writes VGPR R", "v_readlane/v_readfirstlane reads R as src0",
     &HazardTable::valu_vgpr_write_to_readlane_src0},
    {"VALU writes EXEC", "v_readlane/v_readfirstlane/v_writelane", &HazardTable::valu_exec_write_to_rwlane},
    {"VALU writes SGPR R", "v_readlane/v_writelane takes R as its lane select",
     &HazardTable::valu_sgpr_write_to_lane_select},
    {"VALU writes R through dst-sel forwarding (op_sel/op_sel_hi/dst_sel)", "VALU reads or writes R",
     &HazardTable::dst_sel_forwarding_to_valu},
    {"s_setreg of hardware register H", "s_getreg of H", &HazardTable::setreg_to_getreg_same_hwreg},
    {"s_setreg of hardware register H", "s_setreg of H", &HazardTable::setreg_to_setreg_same_hwreg},
};
constexpr PassRow kPassRows[] = {
    {"XDL MFMA writes R", "VALU/VMEM/DS reads or writes R", &HazardTable::mfma_write_to_valu_mem_xdl},
    {"non-XDL MFMA writes R", "VALU/VMEM/DS reads or writes R", &HazardTable::mfma_write_to_valu_mem_nonxdl},
    {"XDL MFMA writes R", "MFMA reads R as srcC (partial overlap, or another MFMA where marked)",
     &HazardTable::mfma_write_to_srcc_overlap_xdl},
    {"non-XDL MFMA writes R", "MFMA reads R as srcC (partial overlap)",
     &HazardTable::mfma_write_to_srcc_overlap_nonxdl},
    {"XDL MFMA writes R", "MFMA reads R as srcA/srcB", &HazardTable::mfma_write_to_srcab_xdl},
    {"non-XDL MFMA writes R", "MFMA reads R as srcA/srcB", &HazardTable::mfma_write_to_srcab_nonxdl},
    {"XDL MFMA reads srcC R", "VALU/VMEM/DS writes R (WAR)", &HazardTable::mfma_srcc_read_to_write_xdl},
    {"non-XDL MFMA reads srcC R", "VALU/VMEM/DS writes R (WAR)", &HazardTable::mfma_srcc_read_to_write_nonxdl},
    {"MFMA writes AGPRs R", "v_accvgpr_read reads R", &HazardTable::mfma_write_to_accvgpr_read},
    {"MFMA writes AGPRs R", "v_accvgpr_write writes R (WAW)", &HazardTable::mfma_write_to_accvgpr_write},
    {"MFMA reads srcC R", "v_accvgpr_write writes R (WAR)", &HazardTable::mfma_srcc_read_to_accvgpr_write},
};

// The pass counts of `t`'s MFMAs (AllMfmas), ascending, and 16: the
// unknown-MFMA fallback of FactsOf.
std::vector<int> PassCounts(const TargetInfo& t) {
  std::set<int> s = {16};
  for (const MfmaDesc& m : AllMfmas())
    if (MfmaPasses(t, m) > 0) s.insert(MfmaPasses(t, m));
  return std::vector<int>(s.begin(), s.end());
}

int ComputeMaxWindow() {
  int best = kSaluM0WriteToLdsDma;
  for (const TargetInfo* t : AllTargets()) {
    const HazardTable& tab = HazardTableFor(t->gfx);
    for (const CountRow& r : kCountRows) best = std::max(best, tab.*r.field);
    for (int p : PassCounts(*t))
      for (const PassRow& r : kPassRows) best = std::max(best, (tab.*r.field).Eval(p));
  }
  return best;
}

}  // namespace

std::vector<HazardRuleText> HazardRules(const TargetInfo& t) {
  const HazardTable& tab = HazardTableFor(t.gfx);
  std::vector<HazardRuleText> rows;
  const std::vector<int> passes = PassCounts(t);
  for (const PassRow& r : kPassRows) {
    const PassRule& rule = tab.*r.field;
    std::vector<std::string> per;
    bool any = false;
    for (int p : passes) {
      per.push_back(absl::StrCat(p, " passes: ", rule.Eval(p)));
      any = any || rule.Eval(p) > 0;
    }
    if (!any) continue;
    std::string consumer = r.consumer;
    if (r.field == &HazardTable::mfma_write_to_srcc_overlap_xdl && tab.srcc_same_regs_other_mfma_as_overlap)
      consumer = "MFMA reads R as srcC (partial overlap, or the same registers written by another MFMA opcode: LLVM PR "
                 "#218363; the f8f6f4 formats of cbsz/blgp are one opcode)";
    rows.push_back({r.producer, consumer, absl::StrJoin(per, ", ")});
  }
  const bool two_pass = std::find(passes.begin(), passes.end(), 2) != passes.end();
  for (const CountRow& r : kCountRows)
    if (tab.*r.field > 0 && (two_pass || r.field != &HazardTable::mfma_write_to_srcc_same_2pass))
      rows.push_back({r.producer, r.consumer, absl::StrCat(tab.*r.field)});
  rows.push_back({"SALU writes M0", "LDS DMA (buffer_load ... lds; gfx950 also global_load_lds_dwordx4) reads M0", absl::StrCat(kSaluM0WriteToLdsDma)});
  return rows;
}

const HazardTable& HazardTableFor(Gfx gfx) {
  switch (gfx) {
    case Gfx::kGfx908: return kGfx908Hazards;
    case Gfx::kGfx90a: return kGfx90aHazards;
    case Gfx::kGfx942: return kGfx942Hazards;
    case Gfx::kGfx950: return kGfx950Hazards;
  }
  return kGfx942Hazards;
}

int IssuedWaitStates(const MInst& inst) {
  if (Info(inst.opc).flags & kPseudo) return 0;  // a label issues nothing
  if (inst.opc == Opc::kSNop) {
    int64_t n = 0;
    const MOperand* simm16 = FindOperand(inst, OpName::kSimm16);
    if (simm16 != nullptr && simm16->kind == MOperand::Kind::kImm) n = simm16->imm;
    return static_cast<int>(n & 15) + 1;
  }
  return 1;
}

HazardOperands::HazardOperands(const MInst& mi) : mi_(&mi) {
  const RegAccesses collected = Collect(mi);
  accesses_.assign(collected.begin(), collected.end());
  for (const RegAccess& a : accesses_) {
    for (int r = a.lo; r < a.lo + a.count; ++r)
      summary_ |= uint64_t{1} << ((static_cast<unsigned>(a.cls) * 17u + static_cast<unsigned>(r)) & 63u);
    if (a.def && Overlap(a, kExecAccess)) writes_exec_ = true;
  }
}

namespace {

// Only VALU results (MFMA included), wide stores and SALU writes of M0 start
// a hazard here.
bool CanProduce(InstClass pc) { return IsValu(pc) || pc == InstClass::kVmemStore; }

const RegAccess kM0Access = SpecialAccess(SpecialReg::kM0);

bool SaluWritesM0(const MInst& mi, absl::Span<const RegAccess> pa) {
  if (Cls(mi) != InstClass::kSalu) return false;
  for (const RegAccess& d : pa)
    if (d.def && Overlap(d, kM0Access)) return true;
  return false;
}

bool IsSetreg(Opc o) { return o == Opc::kSSetregB32 || o == Opc::kSSetregImm32B32; }

// The hardware register id an s_getreg_b32 / s_setreg_b32 /
// s_setreg_imm32_b32 names (its simm16, semantics.h DecodeHwreg), or -1.
int HwRegIdOf(const MInst& mi) {
  if (mi.opc != Opc::kSGetregB32 && !IsSetreg(mi.opc)) return -1;
  const MOperand* simm16 = FindOperand(mi, OpName::kSimm16);
  if (simm16 == nullptr || simm16->kind != MOperand::Kind::kImm) return -1;
  return DecodeHwreg(static_cast<uint32_t>(simm16->imm)).id;
}

std::string HwRegText(int id) { return id == kHwRegMode ? "HW_REG_MODE" : absl::StrCat("hwreg id ", id); }

// 2.3: s_setreg of H -> s_getreg / s_setreg of H.
void SetregProducer(const HazardTable& tab, const MInst& p, const MInst& c, Need& need) {
  const int id = HwRegIdOf(p);
  if (id < 0 || HwRegIdOf(c) != id) return;
  const int wait = IsSetreg(c.opc) ? tab.setreg_to_setreg_same_hwreg : tab.setreg_to_getreg_same_hwreg;
  need.Add(wait, [&] {
    return absl::StrCat(Info(p.opc).mnemonic, " writes ", HwRegText(id), " then ", Info(c.opc).mnemonic,
                        IsSetreg(c.opc) ? " writes it" : " reads it");
  });
}

bool CanProduceInst(const MInst& mi) {
  if (CanProduce(Cls(mi))) return true;
  if (IsSetreg(mi.opc)) return true;
  return Cls(mi) == InstClass::kSalu && SaluWritesM0(mi, Collect(mi));
}

int Required(const TargetInfo& t, const MInst& producer, const MInst& consumer, absl::Span<const RegAccess> pa,
             absl::Span<const RegAccess> ca, std::string* why) {
  const InstClass pc = Cls(producer);
  const HazardTable& tab = HazardTableFor(t.gfx);
  Need need(t, why);
  if (pc == InstClass::kSalu) {
    if ((Info(consumer.opc).flags & kReadsM0) && SaluWritesM0(producer, pa))
      need.Add(kSaluM0WriteToLdsDma, [] { return std::string("SALU writes m0 read by an LDS DMA"); });
    if (IsSetreg(producer.opc)) SetregProducer(tab, producer, consumer, need);
    return need.value();
  }
  if (pc == InstClass::kVmemStore) {
    WideStoreProducer(tab, producer, consumer, ca, need);
    return need.value();
  }
  if (IsMfma(pc)) MfmaProducer(t, tab, producer, consumer, ca, need);
  if (tab.agpr_form && pc == InstClass::kAccWrite) AccWriteProducer(tab, producer, consumer, need);
  ValuProducer(tab, producer, consumer, pa, ca, need);
  return need.value();
}

}  // namespace

int RequiredWaitStates(const TargetInfo& t, const MInst& producer, const MInst& consumer,
                       std::string* why) {
  if (!CanProduceInst(producer)) return 0;
  return Required(t, producer, consumer, Collect(producer), Collect(consumer), why);
}

int RequiredWaitStates(const TargetInfo& t, const HazardOperands& producer, const HazardOperands& consumer,
                       std::string* why) {
  if (!CanProduceInst(producer.inst())) return 0;
  // Every rule but the EXEC-write ones and s_setreg's (a hardware register,
  // not an operand) needs a register both access.
  if ((producer.register_summary() & consumer.register_summary()) == 0 && !producer.writes_exec() &&
      !IsSetreg(producer.inst().opc))
    return 0;
  return Required(t, producer.inst(), consumer.inst(), producer.accesses(), consumer.accesses(), why);
}

bool CanStartHazard(const MInst& inst) { return CanProduceInst(inst); }

bool DstSelForwarding(const MInst& mi) {
  switch (mi.dst_forwarding) {
    case MInst::DstForwarding::kYes: return true;
    case MInst::DstForwarding::kNo: return false;
    case MInst::DstForwarding::kByOpcode: break;
  }
  // kirc prints no op_sel_hi, so its packed instructions have the
  // assembler's default (all ones; the mixes: 0), and op_sel only on the fp8
  // word-1 conversions (asm_syntax.cc).
  if (mi.opc == Opc::kVCvtPkFp8F32Hi || mi.opc == Opc::kVCvtPkBf8F32Hi) return true;
  return IsVop3p(mi.opc) && (DefaultOpSelHi(mi.opc) & 1) != 0;
}

MInst::DstForwarding DstForwardingOfEncoding(Opc opc, int num_sources, bool sdwa, bool sdwa_dst_dword,
                                             uint8_t op_sel, uint8_t op_sel_hi) {
  bool yes;
  if (sdwa)
    yes = !sdwa_dst_dword;
  else if (IsVop3p(opc))
    yes = (op_sel_hi & 1) != 0;
  else
    yes = num_sources >= 0 && num_sources < 8 && ((op_sel >> num_sources) & 1) != 0;
  return yes ? MInst::DstForwarding::kYes : MInst::DstForwarding::kNo;
}

int MaxHazardWindow() {
  static const int window = ComputeMaxWindow();
  return window;
}

}  // namespace kir
