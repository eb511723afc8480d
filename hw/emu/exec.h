// Instruction execution: the state an instruction sees and one entry point per
// instruction family (exec_scalar.cc, exec_vector.cc, exec_float.cc,
// exec_memory.cc, exec_mfma.cc), plus the operand helpers they share.
#ifndef KIRC_HW_EMU_EXEC_H_
#define KIRC_HW_EMU_EXEC_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"
#include "compiler/target/target.h"
#include "hw/emu/code_object.h"
#include "hw/emu/emulator.h"
#include "hw/emu/memory.h"
#include "hw/emu/program.h"
#include "hw/emu/strict.h"
#include "hw/emu/wave.h"

namespace kir::emu {

// State shared by the waves of one workgroup.
struct WorkgroupState {
  std::array<uint32_t, 3> id = {0, 0, 0};
  std::vector<uint8_t> lds;
  LdsRaceTracker races;
};

struct ExecContext {
  const Program& prog;
  const KernelInfo& kernel;
  const TargetInfo& target;
  GlobalMemory& mem;
  WorkgroupState& wg;
  const EmuOptions& opts;
  EmuStats& stats;
  GlobalRaceTracker* global_races = nullptr;  // strict mode: check 5 of strict.h
};

// Each executes in = prog.insts[w.pc] and leaves w.pc at the next instruction
// (branches and s_endpgm set it themselves).
absl::Status ExecScalar(ExecContext& c, Wave& w, const Inst& in);   // SALU, SOPP, SMEM
absl::Status ExecVector(ExecContext& c, Wave& w, const Inst& in);   // VALU (integer; floats via ExecFloat)
absl::Status ExecFloat(ExecContext& c, Wave& w, const Inst& in, bool* handled);
// OK unless `in` runs under a MODE (Wave::mode) the emulator does not model
// for it: a non-default round mode for a float instruction whose rounding
// there is not modelled, or FP16 denormals flushed for an f16 instruction
// (the error names the instruction, its pc, the mode and what is modelled).
absl::Status CheckFloatMode(const Wave& w, const Inst& in);
absl::Status ExecMemory(ExecContext& c, Wave& w, const Inst& in);   // VMEM, DS
absl::Status ExecMfma(ExecContext& c, Wave& w, const Inst& in);

// ---- operand helpers (exec_operands.cc) ----
enum class OpType : uint8_t { kB32, kF32, kF16, kB64 };
// The 32-bit value a constant operand gives dword `dword` of a source of type
// `type` (inline float constants in the operand's float type; 64-bit integer
// inline constants sign-extended, literals zero-extended).
uint32_t ConstValue(const MOperand& o, OpType type, int dword);
// A scalar operand (SGPR, VCC, EXEC, M0, SCC or constant), dword `dword`.
uint32_t ReadScalar(const Wave& w, const MOperand& o, OpType type, int dword);
void WriteScalar(Wave& w, const MOperand& o, int dword, uint32_t v);
// A VALU source: per-lane row for VGPRs/AGPRs, else a uniform value.
struct VSrc {
  const uint32_t* row = nullptr;
  uint32_t uni = 0;
  uint32_t operator[](int lane) const { return row ? row[lane] : uni; }
};
VSrc ReadVSrc(Wave& w, const MOperand& o, OpType type, int dword);
// The 64-bit mask held by a scalar pair operand (vcc, exec, s[n:n+1]).
uint64_t ReadMask(const Wave& w, const MOperand& o);
void WriteMask(Wave& w, const MOperand& o, uint64_t m);
// Error unless `in` has exactly `n` explicit operands.
absl::Status Arity(const Inst& in, size_t n);
absl::Status Unsupported(const Inst& in, const std::string& what);

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_EXEC_H_

namespace kir::emu {

// SDWA: the selected part of a source (zero- or sign-extended), and the result
// `r` placed in the selected part of the destination: the shared definitions
// of compiler/isa/semantics.h on one lane.
inline uint32_t SdwaSource(uint32_t v, SdwaSel sel, bool sext) { return ::kir::SdwaSource(U32Domain{}, v, sel, sext); }
inline uint32_t SdwaDest(uint32_t old, uint32_t r, SdwaSel sel, SdwaUnused unused) {
  return ::kir::SdwaDest(U32Domain{}, old, r, sel, unused);
}

}  // namespace kir::emu
