#include "compiler/isa/hazard_table.h"

#include <algorithm>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

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
    .valu_vgpr_write_to_readfirstlane = 0,
    .valu_exec_write_to_readfirstlane = 0,
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
    .valu_vgpr_write_to_readfirstlane = 0,
    .valu_exec_write_to_readfirstlane = 0,
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
    // checkVALUHazards (hasVDecCoExecHazard): VALUWriteVGPRReadlaneRead = 1,
    // VALUWriteEXECRWLane = 4 (v_readlane / v_readfirstlane / v_writelane).
    .valu_vgpr_write_to_readfirstlane = 1,
    .valu_exec_write_to_readfirstlane = 4,
};

// ---------------------------------------------------------------------------
// Register accesses of one instruction.

using hazard_detail::Access;
using hazard_detail::Accesses;
using hazard_detail::RegFile;

// Hardware encodings of the special registers, used as SGPR-space indices.
constexpr int kVccIndex = 106;   // vcc_lo, vcc_hi = 106, 107
constexpr int kM0Index = 124;
constexpr int kExecIndex = 126;  // exec_lo, exec_hi = 126, 127
constexpr int kSccIndex = 253;

bool Overlap(const Access& a, const Access& b) {
  return a.file == b.file && a.lo < b.lo + b.count && b.lo < a.lo + a.count;
}
bool SameRegs(const Access& a, const Access& b) {
  return a.file == b.file && a.lo == b.lo && a.count == b.count;
}

RegFile FileOf(RegClass c) {
  switch (c) {
    case RegClass::kVgpr: return RegFile::kV;
    case RegClass::kSgpr: return RegFile::kS;
    case RegClass::kAgpr: return RegFile::kA;
  }
  return RegFile::kV;
}

bool SpecialAccess(SpecialReg s, Access* a) {
  a->file = RegFile::kS;
  switch (s) {
    case SpecialReg::kVcc: a->lo = kVccIndex; a->count = 2; return true;
    case SpecialReg::kExec: a->lo = kExecIndex; a->count = 2; return true;
    case SpecialReg::kM0: a->lo = kM0Index; a->count = 1; return true;
    case SpecialReg::kScc: a->lo = kSccIndex; a->count = 1; return true;
    case SpecialReg::kNone: return false;
  }
  return false;
}

// The register range of explicit operand `idx`, if it is a physical register
// or a special register.
bool OperandAccess(const MInst& mi, size_t idx, Access* a) {
  if (idx >= mi.ops.size()) return false;
  const MOperand& o = mi.ops[idx];
  a->def = mi.IsDef(idx);
  a->op = static_cast<int>(idx);
  if (o.kind == MOperand::Kind::kReg) {
    if (o.is_virtual) return false;
    a->file = FileOf(o.cls);
    a->lo = o.reg;
    a->count = o.count;
    return true;
  }
  if (o.kind == MOperand::Kind::kSpecial) return SpecialAccess(o.special, a);
  return false;
}

Accesses Collect(const MInst& mi) {
  Accesses out;
  for (size_t i = 0; i < mi.ops.size(); ++i) {
    Access a;
    if (OperandAccess(mi, i, &a)) out.push_back(a);
  }
  uint32_t f = Info(mi.opc).flags;
  auto implicit = [&](SpecialReg s, bool def) {
    Access a;
    SpecialAccess(s, &a);
    a.def = def;
    a.op = -1;
    out.push_back(a);
  };
  if (f & kWritesScc) implicit(SpecialReg::kScc, true);
  if (f & kReadsScc) implicit(SpecialReg::kScc, false);
  if (f & kWritesVcc) implicit(SpecialReg::kVcc, true);
  if (f & kReadsVcc) implicit(SpecialReg::kVcc, false);
  if (f & kWritesExec) implicit(SpecialReg::kExec, true);
  if (f & kReadsExec) implicit(SpecialReg::kExec, false);
  return out;
}

std::string AccessName(const Access& a) {
  if (a.file == RegFile::kS) {
    if (a.lo == kVccIndex && a.count == 2) return "vcc";
    if (a.lo == kExecIndex && a.count == 2) return "exec";
    if (a.lo == kM0Index && a.count == 1) return "m0";
    if (a.lo == kSccIndex && a.count == 1) return "scc";
  }
  RegClass c = a.file == RegFile::kV   ? RegClass::kVgpr
               : a.file == RegFile::kS ? RegClass::kSgpr
                                       : RegClass::kAgpr;
  return RegName(c, a.lo, a.count);
}

const Access kExecAccess{RegFile::kS, kExecIndex, 2, false, -1};
const Access kVccAccess{RegFile::kS, kVccIndex, 2, false, -1};

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
                  const Accesses& ca, Need& need) {
  const MfmaFacts f = FactsOf(t, p);
  const InstClass cc = Cls(c);
  Access dst, srcc;
  const bool has_dst = OperandAccess(p, 0, &dst);
  const bool has_srcc = OperandAccess(p, 3, &srcc);
  auto pname = [&] { return MfmaName(tab, f); };

  if (!tab.agpr_form) {
    // Section 2.1 (gfx90a, gfx942).
    if (IsMfma(cc)) {
      if (!has_dst) return;
      for (size_t idx = 1; idx <= 3; ++idx) {
        Access u;
        if (!OperandAccess(c, idx, &u) || !Overlap(dst, u)) continue;
        if (idx == 3) {
          if (SameRegs(dst, u)) {
            int w = f.passes == 2 ? tab.mfma_write_to_srcc_same_2pass : 0;
            need.Add(w, [&] {
              return absl::StrCat(pname(), " writes ", AccessName(dst),
                                  " read as the next MFMA's srcC (same registers)");
            });
          } else {
            const PassRule& r =
                f.xdl ? tab.mfma_write_to_srcc_overlap_xdl : tab.mfma_write_to_srcc_overlap_nonxdl;
            need.Add(r.Eval(f.passes), [&] {
              return absl::StrCat(pname(), " writes ", AccessName(dst), " read as MFMA srcC ",
                                  AccessName(u), " (partial overlap)");
            });
          }
        } else {
          const PassRule& r = f.xdl ? tab.mfma_write_to_srcab_xdl : tab.mfma_write_to_srcab_nonxdl;
          need.Add(r.Eval(f.passes), [&] {
            return absl::StrCat(pname(), " writes ", AccessName(dst), " read as MFMA ",
                                idx == 1 ? "srcA" : "srcB");
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
    for (const Access& a : ca) {
      if (!a.explicit_op()) continue;
      if (has_dst && Overlap(dst, a)) {
        need.Add(raw.Eval(f.passes), [&] {
          return absl::StrCat(pname(), " writes ", AccessName(dst),
                              a.def ? " overwritten by " : " read by ", KindName(c));
        });
      }
      if (a.def && has_srcc && Overlap(srcc, a)) {
        need.Add(war.Eval(f.passes), [&] {
          return absl::StrCat(pname(), " reads srcC ", AccessName(srcc), " overwritten by ",
                              KindName(c), " (WAR)");
        });
      }
    }
    return;
  }

  // Section 2.2 (gfx908, AGPR form).
  if (cc == InstClass::kAccRead) {
    Access src;
    if (has_dst && OperandAccess(c, 1, &src) && Overlap(dst, src))
      need.Add(tab.mfma_write_to_accvgpr_read.Eval(f.passes), [&] {
        return absl::StrCat(pname(), " writes ", AccessName(dst), " read by v_accvgpr_read");
      });
  } else if (cc == InstClass::kAccWrite) {
    Access d;
    if (!OperandAccess(c, 0, &d)) return;
    if (has_dst && Overlap(dst, d))
      need.Add(tab.mfma_write_to_accvgpr_write.Eval(f.passes), [&] {
        return absl::StrCat(pname(), " writes ", AccessName(dst),
                            " overwritten by v_accvgpr_write (WAW)");
      });
    if (has_srcc && Overlap(srcc, d))
      need.Add(tab.mfma_srcc_read_to_accvgpr_write.Eval(f.passes), [&] {
        return absl::StrCat(pname(), " reads srcC ", AccessName(srcc),
                            " overwritten by v_accvgpr_write (WAR)");
      });
  } else if (IsMfma(cc) && has_dst) {
    for (size_t idx = 1; idx <= 3; ++idx) {
      Access u;
      if (!OperandAccess(c, idx, &u) || !Overlap(dst, u)) continue;
      if (idx == 3) {
        bool same = SameRegs(dst, u);
        need.Add(same ? tab.mfma_write_to_agpr_srcc_same : tab.mfma_write_to_agpr_srcc_overlap,
                 [&] {
                   return absl::StrCat(pname(), " writes ", AccessName(dst),
                                       " read as MFMA srcC ", AccessName(u),
                                       same ? " (same registers)" : " (overlap)");
                 });
      } else {
        need.Add(tab.mfma_write_to_agpr_srcab, [&] {
          return absl::StrCat(pname(), " writes ", AccessName(dst), " read as MFMA ",
                              idx == 1 ? "srcA" : "srcB");
        });
      }
    }
  }
}

// Producer: v_accvgpr_write on gfx908 (section 2.2).
void AccWriteProducer(const HazardTable& tab, const MInst& p, const MInst& c, Need& need) {
  Access d;
  if (!OperandAccess(p, 0, &d)) return;
  const InstClass cc = Cls(c);
  auto add = [&](size_t idx, int w, const char* what) {
    Access u;
    if (!OperandAccess(c, idx, &u) || !Overlap(d, u)) return;
    need.Add(w, [&] { return absl::StrCat("v_accvgpr_write writes ", AccessName(d), " ", what); });
  };
  if (IsMfma(cc)) {
    add(1, tab.accvgpr_write_to_srcab, "read as MFMA srcA");
    add(2, tab.accvgpr_write_to_srcab, "read as MFMA srcB");
    add(3, tab.accvgpr_write_to_srcc, "read as MFMA srcC");
  } else if (cc == InstClass::kAccRead) {
    add(1, tab.accvgpr_write_to_accvgpr_read, "read by v_accvgpr_read");
  } else if (cc == InstClass::kAccWrite) {
    add(0, tab.accvgpr_write_to_accvgpr_write, "overwritten by v_accvgpr_write (WAW)");
  }
}

// Producer: any VALU (MFMA included); sections 2.1/2.2 (VALU -> MFMA) and 2.3.
void ValuProducer(const HazardTable& tab, const MInst& p, const MInst& c, const Accesses& pa,
                  const Accesses& ca, Need& need) {
  const InstClass pc = Cls(p), cc = Cls(c);
  const bool writes_exec = std::any_of(pa.begin(), pa.end(), [](const Access& a) {
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
    for (const Access& d : pa) {
      if (!d.def) continue;
      for (const Access& u : ca) {
        if (u.def || !u.explicit_op() || (tab.agpr_form && u.file != RegFile::kV)) continue;
        if (Overlap(d, u))
          need.Add(w, [&] {
            return absl::StrCat(KindName(p), " writes ", AccessName(d), " read by ", KindName(c));
          });
      }
    }
  }

  // gfx908: v_accvgpr_read writes a VGPR -> VMEM/DS reads it (checkMAILdStHazards).
  if (tab.accvgpr_read_to_mem_read > 0 && pc == InstClass::kAccRead && (IsVmem(cc) || IsDs(cc))) {
    Access d;
    if (OperandAccess(p, 0, &d))
      for (const Access& u : ca)
        if (!u.def && u.explicit_op() && u.file == RegFile::kV && Overlap(d, u))
          need.Add(tab.accvgpr_read_to_mem_read, [&] {
            return absl::StrCat("v_accvgpr_read writes ", AccessName(d), " read by ",
                                KindName(c));
          });
  }

  // 2.3: VALU writes an SGPR (VCC and EXEC included) -> VMEM reads it, explicitly
  // or implicitly (checkVMEMHazards walks all uses).
  if (IsVmem(cc)) {
    for (const Access& d : pa) {
      if (!d.def || d.file != RegFile::kS) continue;
      for (const Access& u : ca)
        if (!u.def && Overlap(d, u))
          need.Add(tab.valu_sgpr_write_to_vmem_read, [&] {
            return absl::StrCat(KindName(p), " writes ", AccessName(d), " read by VMEM");
          });
    }
  }

  // 2.3 (gfx942): VALU writes an SGPR or VCC -> VALU reads it as an explicit
  // operand, or reads VCC (explicitly or implicitly). Implicit EXEC reads do
  // not count (checkVALUHazards, hasVDecCoExecHazard).
  if (tab.valu_sgpr_write_to_valu_read > 0 && IsValu(cc)) {
    for (const Access& d : pa) {
      if (!d.def || d.file != RegFile::kS) continue;
      for (const Access& u : ca) {
        if (u.def || u.file != RegFile::kS) continue;
        if (!u.explicit_op() && !Overlap(u, kVccAccess)) continue;
        if (Overlap(d, u))
          need.Add(tab.valu_sgpr_write_to_valu_read, [&] {
            return absl::StrCat(KindName(p), " writes ", AccessName(d), " read by ",
                                KindName(c));
          });
      }
    }
  }

  // 2.3 (gfx942): transcendental result -> non-transcendental VALU reads it.
  if (tab.trans_write_to_valu_read > 0 && pc == InstClass::kValuTrans && IsValu(cc) &&
      cc != InstClass::kValuTrans) {
    for (const Access& d : pa) {
      if (!d.def || !d.explicit_op()) continue;
      for (const Access& u : ca)
        if (!u.def && u.explicit_op() && Overlap(d, u))
          need.Add(tab.trans_write_to_valu_read, [&] {
            return absl::StrCat("transcendental VALU writes ", AccessName(d), " read by ",
                                KindName(c));
          });
    }
  }

  // gfx942 v_readfirstlane: VALU writes its source VGPR (1) or EXEC (4).
  if (c.opc == Opc::kVReadfirstlaneB32) {
    Access src;
    if (OperandAccess(c, 1, &src))
      for (const Access& d : pa)
        if (d.def && Overlap(d, src))
          need.Add(tab.valu_vgpr_write_to_readfirstlane, [&] {
            return absl::StrCat(KindName(p), " writes ", AccessName(d),
                                " read by v_readfirstlane");
          });
    if (writes_exec)
      need.Add(tab.valu_exec_write_to_readfirstlane, [&] {
        return absl::StrCat(KindName(p), " writes exec before v_readfirstlane");
      });
  }
}

// Producer: a VMEM store of more than 64 bits (has12DWordStoreHazard; 2.3)
// -> a VALU that overwrites its data registers. A constant (or absent) soffset
// and, on the gfx940 family, an SGPR soffset (LLVM PR #197267) start it, with
// different windows. The pass and the emulator see it across CFG edges (a VALU
// at the top of a successor block, LLVM #202333 / #203770) because both walk
// producers through the CFG dataflow, not within one block.
void WideStoreProducer(const HazardTable& tab, const MInst& p, const MInst& c, const Accesses& ca,
                       Need& need) {
  if (!IsValu(Cls(c))) return;
  Access data;
  if (!OperandAccess(p, 0, &data) || data.count <= 2) return;
  // MUBUF operands: vdata, vaddr, srsrc, soffset. No soffset operand means the
  // field is hard-wired to 0, a constant.
  const bool constant_soffset = p.ops.size() < 4 || p.ops[3].kind == MOperand::Kind::kImm;
  const int wait = constant_soffset ? tab.wide_store_to_valu_write
                                    : tab.wide_store_sgpr_soffset_to_valu_write;
  if (wait <= 0) return;
  for (const Access& d : ca)
    if (d.def && Overlap(d, data))
      need.Add(wait, [&] {
        return absl::StrCat(Info(p.opc).mnemonic,
                            constant_soffset ? " with a constant soffset" : " with an SGPR soffset",
                            " reads ", AccessName(data), " overwritten by ", KindName(c));
      });
}

int ComputeMaxWindow() {
  int best = 0;
  auto eval = [&](const PassRule& r, int passes) { best = std::max(best, r.Eval(passes)); };
  for (const TargetInfo* t : AllTargets()) {
    const HazardTable& tab = HazardTableFor(t->gfx);
    for (int v : {tab.mfma_write_to_srcc_same_2pass, tab.valu_write_to_mfma_read,
                  tab.valu_exec_write_to_mfma, tab.mfma_write_to_agpr_srcc_same,
                  tab.mfma_write_to_agpr_srcc_overlap, tab.mfma_write_to_agpr_srcab,
                  tab.accvgpr_write_to_srcc, tab.accvgpr_write_to_srcab,
                  tab.accvgpr_write_to_accvgpr_read, tab.accvgpr_write_to_accvgpr_write,
                  tab.valu_vgpr_write_to_accvgpr_write, tab.accvgpr_read_to_mem_read,
                  tab.valu_sgpr_write_to_vmem_read, tab.valu_sgpr_write_to_valu_read,
                  tab.trans_write_to_valu_read, tab.wide_store_to_valu_write,
                  tab.wide_store_sgpr_soffset_to_valu_write,
                  tab.valu_vgpr_write_to_readfirstlane, tab.valu_exec_write_to_readfirstlane})
      best = std::max(best, v);
    // 16 passes: the unknown-MFMA fallback of FactsOf.
    std::vector<int> passes = {16};
    for (const MfmaDesc& m : AllMfmas())
      if (MfmaPasses(*t, m) > 0) passes.push_back(MfmaPasses(*t, m));
    for (int p : passes)
      for (const PassRule* r :
           {&tab.mfma_write_to_valu_mem_xdl, &tab.mfma_write_to_valu_mem_nonxdl,
            &tab.mfma_write_to_srcc_overlap_xdl, &tab.mfma_write_to_srcc_overlap_nonxdl,
            &tab.mfma_write_to_srcab_xdl, &tab.mfma_write_to_srcab_nonxdl,
            &tab.mfma_srcc_read_to_write_xdl, &tab.mfma_srcc_read_to_write_nonxdl,
            &tab.mfma_write_to_accvgpr_read, &tab.mfma_write_to_accvgpr_write,
            &tab.mfma_srcc_read_to_accvgpr_write})
        eval(*r, p);
  }
  return best;
}

}  // namespace

const HazardTable& HazardTableFor(Gfx gfx) {
  switch (gfx) {
    case Gfx::kGfx908: return kGfx908Hazards;
    case Gfx::kGfx90a: return kGfx90aHazards;
    case Gfx::kGfx942: return kGfx942Hazards;
  }
  return kGfx942Hazards;
}

int IssuedWaitStates(const MInst& inst) {
  if (Info(inst.opc).flags & kPseudo) return 0;  // a label issues nothing
  if (inst.opc == Opc::kSNop) {
    int64_t n = 0;
    if (!inst.ops.empty() && inst.ops[0].kind == MOperand::Kind::kImm) n = inst.ops[0].imm;
    return static_cast<int>(n & 15) + 1;
  }
  return 1;
}

HazardOperands::HazardOperands(const MInst& mi) : mi_(&mi), accesses_(Collect(mi)) {}

namespace {

// Only VALU results (MFMA included) and wide stores start a hazard here.
bool CanProduce(InstClass pc) { return IsValu(pc) || pc == InstClass::kVmemStore; }

int Required(const TargetInfo& t, const MInst& producer, const MInst& consumer, const Accesses& pa,
             const Accesses& ca, std::string* why) {
  const InstClass pc = Cls(producer);
  const HazardTable& tab = HazardTableFor(t.gfx);
  Need need(t, why);
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
  if (!CanProduce(Cls(producer))) return 0;
  return Required(t, producer, consumer, Collect(producer), Collect(consumer), why);
}

int RequiredWaitStates(const TargetInfo& t, const HazardOperands& producer, const HazardOperands& consumer,
                       std::string* why) {
  if (!CanProduce(Cls(producer.inst()))) return 0;
  return Required(t, producer.inst(), consumer.inst(), producer.accesses(), consumer.accesses(), why);
}

int MaxHazardWindow() {
  static const int window = ComputeMaxWindow();
  return window;
}

}  // namespace kir
