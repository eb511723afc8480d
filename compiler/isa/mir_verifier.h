// The MIR verifier: structural checks of a machine function between passes,
// as LLVM's MachineVerifier (-verify-machineinstrs) and QBE's ssacheck. A
// failure is a kirc bug (a pass produced malformed MIR), never a user error.
#ifndef KIRC_COMPILER_ISA_MIR_VERIFIER_H_
#define KIRC_COMPILER_ISA_MIR_VERIFIER_H_

#include "absl/status/status.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

// Before register allocation operands may be virtual; after it they must not.
enum class MirForm { kVirtual, kPhysical };

// The first register of a `count`-register tuple of class `c` must be a
// multiple of this on `t`: SGPR pairs 2, SGPR tuples of 4 or more 4 (LLVM
// SIRegisterInfo.td: SReg_64 and SReg_128+ alignments); VGPR and AGPR tuples
// of 2 or more 2 where TargetInfo::even_aligned_tuples (gfx90a/942: LLVM's
// VReg_64_Align2 / AReg_*_Align2), else 1.
int TupleAlignment(const TargetInfo& t, RegClass c, int count);

// Checks a precoloured virtual register (v.fixed >= 0): its registers
// v.fixed .. v.fixed + v.count - 1 lie in the target's file of v.cls and
// v.fixed is a multiple of v.align and of TupleAlignment. Errors:
// InvalidArgument saying which.
absl::Status CheckFixedRegister(const TargetInfo& t, const VReg& v);

// Checks `f` on `t`:
//  - control flow: labels defined once, branches to defined labels (BuildCfg),
//    and the last instruction is s_endpgm or s_branch (no falling off the end);
//  - operands: at least Info(opc).num_defs operands, defs are registers,
//    labels and branches carry an immediate label id, s_waitcnt fits its
//    fields (ValidateWaitcnt), s_nop N has N in 0..15;
//  - registers: virtual registers exist, have the operand's class and cover
//    its dwords (sub + count); physical registers lie in the target's files
//    and tuples of 2+ are aligned (TupleAlignment); in kPhysical form no
//    virtual register remains;
//  - MFMA operand widths from the MfmaDesc (and AGPR accumulators on gfx908),
//    MUBUF and DS offset fields within their widths (encoding.h);
//  - precoloured virtual registers inside their file and aligned
//    (CheckFixedRegister);
//  - kVirtual form: every virtual register an instruction reads is written on
//    every path from the entry (precoloured kernel inputs count as written).
// Returns OK, or InvalidArgument listing up to 8 problems, each with the
// instruction's index and text.
absl::Status VerifyMir(const TargetInfo& t, const MFunction& f, MirForm form);

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_MIR_VERIFIER_H_
