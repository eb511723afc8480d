// Encoding facts of the gfx9 (CDNA) instruction set that more than one stage
// needs: the s_waitcnt immediate, inline constants, memory offset fields and
// the special registers' names. Every printer, reader, pass and the verifier
// takes them from here (amdgcn-isa-notes.md; AMD "CDNA3 ISA" reference guide,
// sections "SOPP" (S_WAITCNT), "Scalar/Vector Operands" (inline constants),
// "MUBUF"/"DS" instruction fields; LLVM AMDGPU's AMDGPUBaseInfo.cpp
// encodeWaitcnt/decodeWaitcnt and isInlinableIntLiteral).
#ifndef KIRC_COMPILER_ISA_ENCODING_H_
#define KIRC_COMPILER_ISA_ENCODING_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/operands.h"
#include "compiler/target/target.h"

namespace kir {

// ---- s_waitcnt --------------------------------------------------------------
// MIR form of an s_waitcnt (MInst::opc == Opc::kSWaitcnt), its operands named
// (operands.h, kWaitcntLayout):
//   vmcnt   = Imm(vmcnt)    0..t.vmcnt_max, or kWaitcntNoWait
//   lgkmcnt = Imm(lgkmcnt)  0..t.lgkmcnt_max, or kWaitcntNoWait
// expcnt is never waited by compute code and not represented.
constexpr int kWaitcntNoWait = -1;

// The gfx9 SOPP immediate: vmcnt in bits [3:0] and [15:14] (6 bits), expcnt
// [6:4], lgkmcnt [11:8]. Counts are masked to their fields.
uint16_t EncodeWaitcnt(int vmcnt, int expcnt, int lgkmcnt);
struct WaitcntCounts {
  int vmcnt = 0, expcnt = 0, lgkmcnt = 0;
};
WaitcntCounts DecodeWaitcnt(uint16_t simm16);

// Counter `counter` (OpName::kVmcnt or kLgkmcnt) of an s_waitcnt in MIR form;
// kWaitcntNoWait if absent.
int64_t WaitcntCounter(const MInst& w, OpName counter);
// An s_waitcnt (id -1); kWaitcntNoWait for a counter that is not waited.
MInst MakeWaitcnt(int vmcnt, int lgkmcnt);
// "s_waitcnt vmcnt(0) lgkmcnt(0)", "s_waitcnt vmcnt(3)", "s_waitcnt lgkmcnt(0)":
// only the waited counters, as llvm-mc reads them. One that waits for
// nothing prints as "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)".
std::string WaitcntText(const MInst& waitcnt);
// The immediate of `waitcnt` (unwaited counters at their field maxima, expcnt
// 7). vmcnt(0) -> 0x0F70.
uint16_t WaitcntSimm16(const MInst& waitcnt);
// OK if `waitcnt` has the MIR form above and fits `t`'s counter maxima;
// InvalidArgument naming the field otherwise.
absl::Status ValidateWaitcnt(const TargetInfo& t, const MInst& waitcnt);

// ---- Inline constants ---------------------------------------------------------
// Integers an operand encodes without a literal: -16..64 (source operand
// values 128..208 of the gfx9 encoding).
constexpr int64_t kInlineIntMin = -16;
constexpr int64_t kInlineIntMax = 64;
inline bool IsInlineIntConstant(int64_t v) { return v >= kInlineIntMin && v <= kInlineIntMax; }
// The same for a 32-bit pattern held in an int64 (0xfffffff0 is -16).
inline bool IsInlineIntPattern(int64_t v) {
  return IsInlineIntConstant(static_cast<int32_t>(static_cast<uint32_t>(v)));
}
// The high dword of an immediate used as a 64-bit operand: an inline integer
// is sign-extended, a 32-bit literal zero-extended (amdgcn-isa-notes.md; the
// literal case is unverified on hardware, and kirc never emits it).
inline uint32_t ImmediateHighDword64(int64_t imm) {
  if (IsInlineIntConstant(imm)) return imm < 0 ? 0xffffffffu : 0u;
  return static_cast<uint32_t>(static_cast<uint64_t>(imm) >> 32);
}
// The f32 inline constants (+-0.5, +-1.0, +-2.0, +-4.0; 1/(2*pi) is one too
// on gfx9 but kirc never emits it): the name llvm-mc prints for `bits`, or
// nullopt when `bits` is not one of them.
std::optional<absl::string_view> InlineF32Name(uint32_t bits);
// 1/(2*pi), the ninth f32 inline constant of gfx8+: its bits and the text
// llvm-objdump prints for it (kirc reads it, never emits it).
constexpr uint32_t kInvTwoPiF32 = 0x3e22f983u;
constexpr absl::string_view kInvTwoPiName = "0.15915494";
// True if the 32-bit pattern `bits` is an inline constant for an operand that
// reads floats (kFloatOperands: integers -16..64 and the f32 constants above).
bool IsInlineF32Operand(uint32_t bits);

// ---- Memory offset fields -----------------------------------------------------
constexpr int64_t kMubufMaxOffset = 4095;   // MUBUF offset: 12 bits, unsigned bytes
constexpr int64_t kDsMaxOffset = 65535;     // DS offset: 16 bits, unsigned bytes
constexpr int64_t kDs2MaxOffset = 255;      // DS read2/write2 offset0/offset1: 8 bits, in units
inline bool IsLegalMubufOffset(int64_t o) { return o >= 0 && o <= kMubufMaxOffset; }
inline bool IsLegalDsOffset(int64_t o) { return o >= 0 && o <= kDsMaxOffset; }
// FLAT-global (global_*) offset: 13 bits, signed bytes, on gfx908/90a/942;
// llvm-mc 22 rejects others ("expected a 13-bit signed offset"). flat_*
// (the FLAT segment) has 12 bits unsigned on gfx9 ("expected a 12-bit
// unsigned offset"). amdgcn-isa-notes.md section 4.
constexpr int64_t kGlobalMinOffset = -4096, kGlobalMaxOffset = 4095;
inline bool IsLegalGlobalOffset(int64_t o) { return o >= kGlobalMinOffset && o <= kGlobalMaxOffset; }
constexpr int64_t kFlatMaxOffset = 4095;  // flat_*: 12 bits unsigned (llvm-mc 22, gfx908/90a/942)
inline bool IsLegalFlatOffset(int64_t o) { return o >= 0 && o <= kFlatMaxOffset; }

// ---- Special registers --------------------------------------------------------
// Their scalar-operand encodings (CDNA3 ISA "Scalar Operands" table; LLVM
// SIRegisterInfo.td HWEncoding): VCC_LO 106, VCC_HI 107, M0 124, EXEC_LO 126,
// EXEC_HI 127, SCC 253 (as a source operand). The emulator's SGPR file and
// the hazard rules keep VCC, M0 and EXEC at these indices, so an explicit
// s[106:107] and vcc alias.
constexpr int kVccLoEncoding = 106;
constexpr int kM0Encoding = 124;
constexpr int kExecLoEncoding = 126;
constexpr int kSccEncoding = 253;
// The special register occupying exactly SGPR-space range [lo, lo + count)
// (vcc: 106 x2, exec: 126 x2, m0: 124 x1, scc: 253 x1), or kNone.
SpecialReg SpecialRegAt(int lo, int count);
// LLVM's name of one SGPR-space dword: "vcc_lo", "vcc_hi", "m0", "exec_lo",
// "exec_hi", "scc", else "s<index>".
std::string SgprDwordName(int index);
// The SGPR-space dword named `name` ("vcc_lo", "vcc_hi", "m0", "exec_lo",
// "exec_hi"), or -1.
int SgprDwordFromName(absl::string_view name);
// "vcc", "exec", "m0", "scc"; "?" for kNone.
const char* SpecialRegName(SpecialReg r);
// The special register named `name` (as above), or kNone.
SpecialReg SpecialRegFromName(absl::string_view name);

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_ENCODING_H_
