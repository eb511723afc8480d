// A kernel's machine code as the emulator runs it: one Inst per instruction,
// each a kir::MInst on physical registers (the model the compiler's passes and
// the shared hazard table work on) plus the encoding modifiers MInst does not
// carry, the instruction's byte address and its text as read.
#ifndef KIRC_HW_EMU_PROGRAM_H_
#define KIRC_HW_EMU_PROGRAM_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/isa/instr.h"

namespace kir::emu {

// SDWA operand selects (LLVM spelling BYTE_0..3, WORD_0/1, DWORD): the ISA's
// types of compiler/isa/instr.h.
using SdwaSel = ::kir::SdwaSel;
using SdwaUnused = ::kir::SdwaUnused;

// DefaultOpSelHi: compiler/isa/instr.h.
using ::kir::DefaultOpSelHi;

// Modifiers of one instruction beyond kir::MInst (which holds offen, offset and
// the DS read2/write2 offset0/offset1).

struct Mods {
  bool e64 = false;   // written with _e64 (VOP3 encoding)
  bool e32 = false;   // written with _e32
  bool sdwa = false;  // _sdwa
  // VOP3 float source modifiers, bit i = source i: -x (neg) and |x| (abs).
  uint8_t neg = 0, abs = 0;
  // VOP3P: op_sel / op_sel_hi / neg_lo / neg_hi, bit i = source i. op_sel_hi
  // defaults to DefaultOpSelHi (LLVM prints it only when it differs).
  uint8_t op_sel = 0, op_sel_hi = 0x7, neg_lo = 0, neg_hi = 0;
  bool clamp = false;
  int omod = 0;  // 0: none, 1: mul:2, 2: mul:4, 3: div:2
  // SDWA (VOP1/VOP2): source selects, sign extension, destination select.
  SdwaSel src_sel[2] = {SdwaSel::kDword, SdwaSel::kDword};
  bool src_sext[2] = {false, false};
  SdwaSel dst_sel = SdwaSel::kDword;
  SdwaUnused dst_unused = SdwaUnused::kPreserve;
  // global_*: an SGPR base (saddr) is present; else the address is a 64-bit VGPR pair.
  bool saddr = false;
  // The GLC bit (spelled sc0 on gfx942): a cache policy for loads and stores,
  // the returning form of an atomic (semantics.h GlobalAtomic).
  bool glc = false;
  // MUBUF `lds`: the load writes LDS (the LDS DMA), not registers.
  bool lds = false;
  // MFMA broadcast controls; the emulator requires 0.
  int cbsz = 0, abid = 0, blgp = 0;
  // v_bitop3_b32's `bitop3:N` truth table, -1 when the text has none (the
  // reader puts it into the instruction's bitop3 operand, 0 when absent).
  int bitop3 = -1;
  bool has_literal = false;  // a 32-bit literal operand (encoding size only)
};

struct Inst {
  MInst mi;
  Mods mods;
  uint64_t addr = 0;  // byte address (llvm-objdump's, or estimated for assembly text)
  int size = 4;       // bytes
  std::string text;   // the instruction as read, without comments
  int line = 0;       // 1-based line in the input text
  int target = -1;    // branches: index of the target instruction
  std::string target_label;  // branches written with a label: its name ("" for an offset)
  // What the instruction implements, when its compiler said so
  // (EmuOptions::instruction_notes), e.g. "KIR k.kir:9:3 'store T[tid.x], %v'".
  std::string note;
};

// "0x1610 `s_load_dword s0, s[0:1], 0x0`" for error messages, followed by
// " (NOTE)" when the instruction has a note.
std::string Describe(const Inst& in);

struct Program {
  std::string kernel;  // the kernel symbol the instructions belong to
  std::vector<Inst> insts;
  // Local labels in source order, each with the index of the instruction it
  // names (several labels may name one instruction).
  std::vector<std::pair<std::string, int>> labels;

  // "0x1610 `s_load_dword s0, s[0:1], 0x0`" for error messages.
  std::string Describe(int index) const;
};

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_PROGRAM_H_
