// Operands of a machine instruction by name, and the one visitor of the
// registers an instruction reads and writes. Every pass, the emulator and the
// verifier find operands and register effects here, never by operand index
// or with their own def/use scan.
//
// Names are LLVM's (AMDGPU's getNamedOperandIdx / AMDGPU::OpName: vdst, sdst,
// src0..src2, vdata, vaddr, srsrc, soffset, saddr, addr, data0, data1, sbase,
// offset, simm16); the layout of each opcode is opcodes.def's last column.
#ifndef KIRC_COMPILER_ISA_OPERANDS_H_
#define KIRC_COMPILER_ISA_OPERANDS_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "compiler/isa/instr.h"

namespace kir {

enum class OpName : uint8_t {
  kVdst,     // vector (or, v_readfirstlane/v_readlane, scalar) destination
  kSdst,     // scalar destination: SALU/SMEM result, VOPC mask, VOP carry-out
  kSrc0,     // first source (MFMA: A)
  kSrc1,     // second source (MFMA: B)
  kSrc2,     // third source (MFMA: C; v_cndmask: the lane mask; carry-in)
  kSimm16,   // 16-bit immediate (SOPP, SOPK)
  kTarget,   // branch target / label: Imm(label id)
  kVmcnt,    // s_waitcnt's MIR form (encoding.h)
  kLgkmcnt,
  kSbase,    // SMEM base address (SGPR pair)
  kOffset,   // SMEM offset (immediate bytes or SGPR)
  kVdata,    // MUBUF data (load destination or store source); global store data
  kVaddr,    // MUBUF offset VGPR (printed "off" without offen); global address
  kSrsrc,    // MUBUF buffer resource (SGPR quad)
  kSoffset,  // MUBUF SGPR or inline-constant offset
  kSaddr,    // global SGPR-pair base (absent for "off")
  kAddr,     // DS address VGPR
  kData0,    // DS write data (read2/write2: the first element)
  kData1,    // DS write2: the second element
  kBitop3,   // v_bitop3_b32's truth table (an Imm 0..255; semantics.h Bitop3)
};

// "vdst", "src0", ... (for diagnostics).
const char* OpNameText(OpName n);

// The index in MInst::ops of operand `n` of `opc`'s layout, or -1 if the
// layout has no such operand. Optional trailing operands (src1/src2, saddr,
// data1) have an index; FindOperand checks the instruction has them.
int NamedOperandIdx(Opc opc, OpName n);
// The source operand `k` (0..2) of a VALU, SALU or MFMA: src0, src1, src2.
constexpr OpName SrcName(int k) { return static_cast<OpName>(static_cast<int>(OpName::kSrc0) + k); }

// Operand `n` of `mi`, or nullptr if its opcode has no such operand or `mi`
// has fewer operands than the layout position (an optional one left out).
const MOperand* FindOperand(const MInst& mi, OpName n);
MOperand* FindOperand(MInst& mi, OpName n);
// Whether `mi` has operand `n`.
inline bool HasOperand(const MInst& mi, OpName n) { return FindOperand(mi, n) != nullptr; }
// Operand `n` of `mi`; an absent operand reads as Imm(0), the value of an
// "off" or left-out field (callers that must tell use HasOperand).
const MOperand& OperandOr0(const MInst& mi, OpName n);

// The label id of a label pseudo or branch (its target operand's immediate),
// or -1 if it has none.
int64_t LabelId(const MInst& mi);

// ---- Register accesses --------------------------------------------------------

// One register range an instruction reads or writes.
//   Physical: `lo` is the register index (SGPR-space encodings for VCC, M0,
//   EXEC and SCC: encoding.h), `root` is -1.
//   Virtual: `root` is the vreg tuple (aliases followed when a function is
//   given, else the operand's own vreg) and `lo` the dword offset into it.
struct RegAccess {
  RegClass cls = RegClass::kVgpr;
  bool is_virtual = false;
  int root = -1;
  int lo = 0;
  int count = 0;
  bool def = false;
  int op = -1;  // the explicit operand's index; -1 for an implicit access
  SpecialReg special = SpecialReg::kNone;  // VCC/EXEC/M0/SCC named or implied
  bool explicit_op() const { return op >= 0; }
};

// Register ranges overlap / are identical (same file and tuple).
bool Overlap(const RegAccess& a, const RegAccess& b);
bool SameRegs(const RegAccess& a, const RegAccess& b);

enum RegAccessKinds : uint32_t {
  kExplicitAccesses = 1u << 0,  // register and special-register operands
  kImplicitAccesses = 1u << 1,  // VCC/EXEC/SCC effects of OpcFlags
  kTiedReads = 1u << 2,  // a def the instruction also reads: d16 loads (kDefMerges) keep
                         // half of it, s_addk/s_mulk and v_mac/v_fmac accumulate into it,
                         // s_cmov_b32 keeps it when SCC is 0
  kPhysicalOnly = 1u << 3,      // leave out virtual registers
  kAllAccesses = kExplicitAccesses | kImplicitAccesses | kTiedReads,
};

using RegAccesses = absl::InlinedVector<RegAccess, 10>;

// The register ranges `mi` reads and writes, explicit operands in operand
// order (a tied def's read right after it), then the implicit ones. Defs are
// the first Info(opc).num_defs operands. With `f`, virtual aliases are
// resolved to their root tuple (MFunction::Root).
RegAccesses CollectRegAccesses(const MInst& mi, uint32_t kinds, const MFunction* f = nullptr);

// Named operand `n` of `mi` as a register access (virtual, physical or
// special register; aliases resolved with `f`); false if `mi` has no such
// operand or it is not a register.
bool NamedRegAccess(const MInst& mi, OpName n, RegAccess* a, const MFunction* f = nullptr);

// The SGPR-space range of a special register (VCC 106-107, EXEC 126-127, M0
// 124, SCC 253); false for kNone.
bool SpecialRegRange(SpecialReg s, int* lo, int* count);

// "v[4:7]", "s5", "vcc", "exec", "m0", "scc", "%v3[0:1]" for a virtual range.
std::string RegAccessName(const RegAccess& a);

// Whether `mi` writes EXEC (an exec def operand or kWritesExec).
bool WritesExec(const MInst& mi);

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_OPERANDS_H_
