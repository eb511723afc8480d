// The AMDGCN machine instruction model (MIR): opcodes, operands on virtual or
// physical registers, and the instruction record every pass works on.
// Mnemonics and operand orders are LLVM's (what llvm-mc accepts and
// llvm-objdump prints); see ../shared/docs/amdgcn-isa-notes.md.
#ifndef KIRC_COMPILER_ISA_INSTR_H_
#define KIRC_COMPILER_ISA_INSTR_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace kir {

struct MfmaDesc;

enum class RegClass : uint8_t { kVgpr, kSgpr, kAgpr };

// Registers that are not numbered SGPRs/VGPRs/AGPRs.
enum class SpecialReg : uint8_t { kNone, kVcc, kExec, kM0, kScc };

// How an instruction class behaves for waitcnt and hazard purposes.
enum class InstClass : uint8_t {
  kSopp,       // s_nop, s_waitcnt, s_barrier, s_endpgm
  kSalu,       // scalar ALU
  kSmem,       // s_load_*: lgkmcnt, out of order
  kValu,       // vector ALU
  kValuTrans,  // transcendental VALU (v_rcp_f32, v_exp_f32, ...)
  kVmemLoad,   // buffer_load_*: vmcnt
  kVmemStore,  // buffer_store_*: vmcnt (gfx9 has no separate store counter)
  kDsRead,     // ds_read_*: lgkmcnt, in order
  kDsWrite,    // ds_write_*: lgkmcnt, in order
  kMfma,       // v_mfma_*
  kAccRead,    // v_accvgpr_read_b32 (AGPR -> VGPR)
  kAccWrite,   // v_accvgpr_write_b32 (VGPR/inline constant -> AGPR)
};

// Vector memory (buffer/global loads and stores: vmcnt).
constexpr bool IsVmem(InstClass c) { return c == InstClass::kVmemLoad || c == InstClass::kVmemStore; }
// LDS (ds_read/ds_write: lgkmcnt, in order).
constexpr bool IsDs(InstClass c) { return c == InstClass::kDsRead || c == InstClass::kDsWrite; }
// Vector memory or LDS: the accesses the access map and the verifier cover.
constexpr bool IsVmemOrDs(InstClass c) { return IsVmem(c) || IsDs(c); }

// The explicit operands of an opcode, in order, by name (opcodes.def's last
// column; OpName and NamedOperandIdx in compiler/isa/operands.h give the
// names, LLVM's operand names from its AMDGPU instruction definitions).
enum class OperandLayout : uint8_t {
  kNoOperands,         // s_barrier, s_endpgm
  kSimm16Layout,       // simm16 (s_nop, s_setprio, s_sleep)
  kWaitcntLayout,      // vmcnt, lgkmcnt (kirc's MIR form of s_waitcnt: encoding.h)
  kTargetLayout,       // target: Imm(label id) (branches and the label pseudo)
  kSmemLayout,         // sdst, sbase, offset (immediate or SGPR)
  kSopLayout,          // sdst, src0 [, src1]
  kSopcLayout,         // src0, src1 (result in SCC)
  kSopkLayout,         // sdst, simm16 (s_addk/s_mulk also read sdst)
  kSopkCmpLayout,      // src0, simm16 (result in SCC)
  kVopLayout,          // vdst, src0 [, src1 [, src2]] (MFMA: vdst, A, B, C)
  kVopCarryLayout,     // vdst, sdst (carry-out), src0, src1 [, src2 (carry-in)]
  kVopcLayout,         // sdst, src0, src1
  kMubufLayout,        // vdata, vaddr, srsrc, soffset
  kGlobalLoadLayout,   // vdst, vaddr [, saddr]
  kGlobalStoreLayout,  // vdata, vaddr [, saddr] (vdata first, as buffer stores)
  kDsReadLayout,       // vdst, addr
  kDsWriteLayout,      // addr, data0 [, data1]
  kGlobalAtomicRtnLayout,  // vdst, vaddr, vdata [, saddr] (a returning global atomic)
  kScratchLoadLayout,   // vdst, vaddr, saddr (each of vaddr/saddr Imm(0) for "off")
  kScratchStoreLayout,  // vdata, vaddr, saddr (vdata first, as buffer stores)
  kMubufLdsLayout,      // vaddr, srsrc, soffset (LDS DMA: no data register; the LDS side from M0)
  kGlobalLdsLayout,     // vaddr [, saddr] (global_load_lds_*: the FLAT-global LDS DMA; the LDS side from M0)
  kVopBitop3Layout,     // vdst, src0, src1, src2, bitop3 (Imm: the 8-bit truth table of v_bitop3_b32)
};

// Opcodes kirc emits. MFMA is one opcode; MInst::mfma says which.
enum class Opc : uint16_t {
#define KIRC_OPC(name, mnemonic, cls, defs, flags, layout) name,
#include "compiler/isa/opcodes.def"
#undef KIRC_OPC
  kNumOpcodes
};

// Implicit register effects (flags of opcodes.def).
enum OpcFlags : uint32_t {
  kNoFlags = 0,
  kWritesScc = 1u << 0,
  kReadsScc = 1u << 1,
  kWritesVcc = 1u << 2,  // VOP2 carry-out / VOPC
  kReadsVcc = 1u << 3,   // VOP2 carry-in / v_cndmask_b32_e32
  kReadsExec = 1u << 4,  // all VALU, VMEM, DS; s_cbranch_exec*, s_*_saveexec_b64
  kWritesExec = 1u << 5,
  kVop3Only = 1u << 6,   // no literal operand allowed on gfx9
  kVop2 = 1u << 7,       // src1 must be a VGPR; a literal only in src0
  kFloatOperands = 1u << 8,  // inline constants are read as floats
  kF16Operands = 1u << 9,
  kDefMerges = 1u << 10,  // writes half of its destination and keeps the rest (d16 loads)
  kBranch = 1u << 11,     // SOPP branch: operand 0 is the target
  kGlobalAddr = 1u << 12, // FLAT global_*: 64-bit VGPR address, or SGPR base + 32-bit VGPR offset
  kPseudo = 1u << 13,     // not an instruction: a label (ops[0] = Imm(label id)); no wait state
  kPcAccess = 1u << 14,   // reads or writes the program counter: s_getpc/s_setpc/s_swappc_b64 (calls,
                          // indirect branches, PC-relative addresses)
  kFlatAddr = 1u << 15,   // FLAT flat_*: 64-bit VGPR address into the global, LDS or private aperture
                          // (FlatSegmentOf, semantics.h); counts in vmcnt and lgkmcnt
  kScratchAddr = 1u << 16,  // FLAT scratch_*: 32-bit private-segment offset from vaddr|off + saddr|off
  kReadsM0 = 1u << 17,      // reads M0 implicitly (the LDS DMA's LDS base: LdsDmaAddress, semantics.h)
  kLdsDma = 1u << 18,       // LDS DMA (MUBUF load with `lds`, global_load_lds_*): writes LDS, not registers; vmcnt
  kF16Values = 1u << 19,    // an f16 VALU instruction (its mnemonic names f16: f16 arithmetic and the
                            // conversions to or from f16; not bf16, not the f8 formats), so the FP16/FP64
                            // denormal mode (MODE.FP_DENORM bits 3:2, COMPUTE_PGM_RSRC1
                            // FLOAT_DENORM_MODE_16_64) applies. Not marked: v_fma_mix_f32 and the MFMAs,
                            // whose f16 sources the emulator models with denormals kept whatever the mode
};

struct OpcInfo {
  const char* mnemonic;
  InstClass cls;
  int num_defs;  // leading explicit operands that are written
  uint32_t flags;
  OperandLayout layout;
};
const OpcInfo& Info(Opc opc);
// The opcode for an LLVM mnemonic (without _e32/_e64); kNumOpcodes if unknown.
Opc OpcFromMnemonic(absl::string_view mnemonic);

// The op_sel_hi an instruction has when its text omits it: 0 (every source
// f32) for v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16, all ones for
// the packed VOP3P instructions. Checked with llvm-mc 22 (-show-encoding,
// gfx942): `v_fma_mixlo_f16 v4, v4, s0, v5` encodes op_sel_hi 0 (dword 1
// bits 28:27 and dword 0 bit 14 clear) and is printed without op_sel_hi,
// while `v_pk_add_f16 v4, v4, v5` encodes op_sel_hi [1,1]. Reading a mix's
// omitted op_sel_hi as all ones took clang's f32 sources as f16 halves
// (fresh-user review 8 F4).
inline uint8_t DefaultOpSelHi(Opc opc) {
  return opc == Opc::kVFmaMixF32 || opc == Opc::kVFmaMixloF16 || opc == Opc::kVFmaMixhiF16 ? 0 : 0x7;
}

// One explicit operand.
struct MOperand {
  enum class Kind : uint8_t { kReg, kImm, kSpecial };
  Kind kind = Kind::kImm;
  // kReg: a virtual register (id into MFunction::vregs) plus a dword offset `sub`
  // into its tuple, or a physical register (index), `count` dwords wide.
  RegClass cls = RegClass::kVgpr;
  bool is_virtual = false;
  int reg = 0;
  int sub = 0;
  int count = 1;
  // kImm: the 32-bit value (inline constant or literal). Float inline
  // constants (0.5, 1.0, ...) are printed by name when `float_form` is set.
  int64_t imm = 0;
  bool float_form = false;
  // kSpecial
  SpecialReg special = SpecialReg::kNone;

  static MOperand Imm(int64_t v);
  static MOperand FloatImm(uint32_t bits);  // an inline float constant's f32 bits
  static MOperand Virt(RegClass c, int id, int sub = 0, int count = 1);
  static MOperand Phys(RegClass c, int index, int count = 1);
  static MOperand Special(SpecialReg s);
  bool IsReg() const { return kind == Kind::kReg; }
};

// SDWA (sub-dword addressing, the VOP1/VOP2/VOPC `_sdwa` encoding) operand
// selects, numbered as LLVM's SIDefines.h SDWA::SdwaSel (BYTE_0 = 0 ..
// WORD_1 = 5, DWORD = 6) and SDWA::DstUnused (UNUSED_PAD = 0, UNUSED_SEXT =
// 1, UNUSED_PRESERVE = 2). Semantics: SdwaSource/SdwaDest of
// compiler/isa/semantics.h.
enum class SdwaSel : uint8_t { kByte0, kByte1, kByte2, kByte3, kWord0, kWord1, kDword };
enum class SdwaUnused : uint8_t { kPad, kSext, kPreserve };

// Encoding modifiers of a vector instruction that MInst does not hold and
// that change an integer result: the SDWA fields and the VOP3 `clamp` bit.
// Read from another compiler's code (verify/object) and given to the
// verifier by instruction (LoweredKernel::modifiers); kirc emits none.
struct VopModifiers {
  bool sdwa = false;  // the SDWA encoding: the fields below apply
  SdwaSel src_sel[2] = {SdwaSel::kDword, SdwaSel::kDword};
  bool src_sext[2] = {false, false};  // sext(src): sign- instead of zero-extend the selected part
  SdwaSel dst_sel = SdwaSel::kDword;
  SdwaUnused dst_unused = SdwaUnused::kPreserve;
  bool clamp = false;  // integer saturation (EvalIntOpClamped of semantics.h)
};
// The modifiers as LLVM prints them after the operands (" dst_sel:BYTE_0
// dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD", sext as
// " src0_sext", " clamp"), "" for none: for reports of MInst text.
std::string VopModifiersText(const VopModifiers& m);

// One machine instruction.
struct MInst {
  Opc opc = Opc::kSNop;
  std::vector<MOperand> ops;  // assembly order; the first Info(opc).num_defs are defs
  // Memory modifiers: MUBUF offen/offset (0..4095), DS offset (0..65535),
  // SMEM offset (bytes).
  bool offen = false;
  int64_t offset = 0;
  // DS read2/write2 (ds_read2*_b32/b64, ds_write2*): the 8-bit offset0/offset1
  // fields, in units of MemoryShape(opc).unit bytes (`offset` is unused).
  int offset0 = 0, offset1 = 0;
  const MfmaDesc* mfma = nullptr;  // kMfma: which instruction
  // Whether the instruction writes its destination through the dst-sel
  // forwarding path (the gfx940-family hazard of compiler/isa/hazard_table.h,
  // DstSelForwarding). kByOpcode: as the opcode with the modifiers kirc
  // prints implies (kirc's own code). Code read from another compiler's
  // assembly, whose encoding modifiers MInst does not hold, gets kYes or kNo
  // from the reader (DstForwardingOfEncoding).
  enum class DstForwarding : uint8_t { kByOpcode, kYes, kNo };
  DstForwarding dst_forwarding = DstForwarding::kByOpcode;
  int id = -1;            // stable id (access map key); -1 for pass-inserted code
  int kir_op = -1;        // index of the KIR op this came from (for --annotate), or -1
  std::string comment;    // printed after the instruction by --annotate

  int NumDefs() const;
  bool IsDef(size_t operand_index) const { return static_cast<int>(operand_index) < NumDefs(); }
  // Whether one of the explicit defs is M0 (s_mov_b32 m0, ...; no opcode of
  // opcodes.def writes M0 implicitly). The one test of an M0 write the
  // scheduler (M0 dependences) and lowering (the LDS DMA's shared M0) use.
  bool WritesM0() const;
};

// A virtual register: a tuple of `count` consecutive registers of `cls`,
// whose first register index must be a multiple of `align`.
struct VReg {
  RegClass cls = RegClass::kVgpr;
  int count = 1;
  int align = 1;
  int fixed = -1;  // >= 0: precoloured to this physical register (kernel inputs)
  // >= 0: not a register of its own but registers alias_offset .. of vreg
  // alias_of (a sub-tuple view, e.g. a slice of a vector: no copy).
  int alias_of = -1;
  int alias_offset = 0;
  // Some alias views this register (or part of it): writing it in place would
  // change the view's value too.
  bool has_views = false;
};

// A basic block of MFunction::insts: blocks start at index 0 and at each
// label, and end after a branch or s_endpgm (or before a label).
struct BasicBlock {
  int begin = 0, end = 0;   // instruction indices [begin, end)
  std::vector<int> succs;   // block indices: branch target(s), then fall-through
  std::vector<int> preds;
};

// A function in MIR: a straight-line instruction list plus register info.
struct MFunction {
  std::vector<MInst> insts;
  std::vector<VReg> vregs;
  int next_inst_id = 0;
  // The control-flow graph, built once (EnsureCfg, compiler/isa/cfg.h) and
  // kept up to date by every pass that inserts, removes or reorders
  // instructions (RenumberBlocks); `cfg_valid` false until built, and after
  // code that edits `insts` without keeping it (InvalidateCfg). The MIR
  // verifier checks a kept CFG against one built afresh.
  std::vector<BasicBlock> blocks;
  bool cfg_valid = false;
  // LDS DMA ordering for the s_waitcnt pass (waitcnt.h): pairs (a, b), a <= b,
  // of KIR op indices (MInst::kir_op) of lds_dma ops whose DMAs may write a
  // common LDS byte in one wave ((a, a): two executions of one op), as the
  // lowering found them (LdsDmaMayOverlap, compiler/analysis/index_analysis.h),
  // sorted. Without lds_dma_overlaps_known (code read from assembly or MIR
  // text) every two LDS DMAs may overlap.
  std::vector<std::pair<int, int>> lds_dma_overlaps;
  bool lds_dma_overlaps_known = false;

  int NewVReg(RegClass cls, int count, int align = 1);
  // A view of `count` registers of `parent` starting `offset` registers in.
  int NewAlias(int parent, int offset, int count);
  // The register tuple `vreg` lives in and the offset into it (follows aliases).
  std::pair<int, int> Root(int vreg) const;
};

// What a buffer_*, global_* or ds_* load or store moves (global atomics move
// nothing here: GlobalAtomicOf in semantics.h): `comps` components of
// `bytes` bytes each, to or from LDS or global memory (Info(o).flags &
// kGlobalAddr tells global_* from buffer_*); all zero for other opcodes.
// `addrs` is 1, or 2 for DS read2/write2: comps / 2 components at each of two
// addresses, vaddr + offset0 * unit and vaddr + offset1 * unit, mod 2^32 (the
// rule is DsAddress in compiler/isa/semantics.h).
// LDS DMA (kLdsDma: buffer_load_dwordx4 ... lds, or with kGlobalAddr
// global_load_lds_dwordx4) is a buffer or global load (lds false) whose `comps` x `bytes` per lane land in LDS at LdsDmaAddress
// (semantics.h) instead of registers: `lds_dma` says so.
// A sub-dword access's register half: a load of 1 or 2 bytes zero- or
// sign-extends into its VGPR (kZero: *_ubyte/_ushort/ds_read_u8/u16; kSign:
// *_sbyte/_sshort/ds_read_i8/i16) or fills its low or high 16 bits (kD16Lo:
// *_short_d16/ds_read_u16_d16; kD16Hi: the _hi forms; what the other half
// keeps depends on SRAM ECC, the emulator's Extend); a 1- or 2-byte store
// takes the data register's low bits (kD16Lo) or its high half (kD16Hi:
// *_short_d16_hi/ds_write_b16_d16_hi). kNone for whole dwords.
enum class MemExt : uint8_t { kNone, kZero, kSign, kD16Lo, kD16Hi };
struct MemShape {
  int comps = 0, bytes = 0;
  bool lds = false, store = false;
  int addrs = 1;
  int unit = 0;  // read2/write2: bytes per offset0/offset1 unit
  bool lds_dma = false;
  MemExt ext = MemExt::kNone;
};
MemShape MemoryShape(Opc o);

// The same data movement in each segment: the flat_*, global_*, ds_* and
// scratch_* opcodes moving what `o` (any one of them) moves per lane, e.g. flat_load_dword ->
// {flat_load_dword, global_load_dword, ds_read_b32, scratch_load_dword}.
// A flat access becomes one of the others once its address's segment is known
// (FlatSegmentOf, semantics.h); the emulator and the verifier both place flat
// accesses through this one table. Columns without a twin, and opcodes
// outside the table, are Opc::kNumOpcodes.
struct SegmentTwins {
  Opc flat = Opc::kNumOpcodes, global = Opc::kNumOpcodes, ds = Opc::kNumOpcodes, scratch = Opc::kNumOpcodes;
};
SegmentTwins SegmentTwinsOf(Opc o);

// Register names as LLVM prints them: "v5", "s[4:7]", "a[0:3]", "vcc", "exec".
std::string RegName(RegClass cls, int index, int count);
// The assembly prefix of a register class: "v", "s" or "a" (v0, s[2:3], a7;
// printed MIR's virtual registers add a '%': %v12).
const char* RegClassPrefix(RegClass cls);
// The class whose prefix is `c` ('v', 's' or 'a'); false for any other.
bool RegClassFromPrefix(char c, RegClass* cls);

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_INSTR_H_
