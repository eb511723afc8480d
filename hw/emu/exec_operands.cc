// Operand reads and writes shared by the instruction families.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/isa/encoding.h"
#include "hw/emu/exec.h"
#include "hw/emu/float_math.h"

namespace kir::emu {

uint32_t ConstValue(const MOperand& o, OpType type, int dword) {
  if (o.float_form) {
    float f = F32(static_cast<uint32_t>(o.imm));
    switch (type) {
      case OpType::kF16: return dword == 0 ? RoundToF16(f) : 0;
      case OpType::kB64: {
        double d = f;
        uint64_t b;
        std::memcpy(&b, &d, 8);
        return static_cast<uint32_t>(dword == 0 ? b : b >> 32);
      }
      default: return dword == 0 ? static_cast<uint32_t>(o.imm) : 0;
    }
  }
  int64_t v = o.imm;
  if (dword == 0) return static_cast<uint32_t>(v);
  // 64-bit operands: inline integer constants (-16..64) are sign-extended; a
  // 32-bit literal is zero-extended (UNVERIFIED; the notes advise against it).
  return ImmediateHighDword64(v);
}

uint32_t ReadScalar(const Wave& w, const MOperand& o, OpType type, int dword) {
  switch (o.kind) {
    case MOperand::Kind::kImm:
      return ConstValue(o, type, dword);
    case MOperand::Kind::kSpecial:
      switch (o.special) {
        case SpecialReg::kVcc: return w.S(kVccLo + (dword & 1));
        case SpecialReg::kExec: return w.S(kExecLo + (dword & 1));
        case SpecialReg::kM0: return w.S(kM0);
        case SpecialReg::kScc: return w.scc ? 1u : 0u;
        default: return 0;
      }
    case MOperand::Kind::kReg:
      return w.S(o.reg + dword);
  }
  return 0;
}

void WriteScalar(Wave& w, const MOperand& o, int dword, uint32_t v) {
  if (o.kind == MOperand::Kind::kSpecial) {
    switch (o.special) {
      case SpecialReg::kVcc: w.S(kVccLo + (dword & 1)) = v; return;
      case SpecialReg::kExec: w.S(kExecLo + (dword & 1)) = v; return;
      case SpecialReg::kM0: w.S(kM0) = v; return;
      case SpecialReg::kScc: w.scc = v != 0; return;
      default: return;
    }
  }
  if (o.kind == MOperand::Kind::kReg) w.S(o.reg + dword) = v;
}

VSrc ReadVSrc(Wave& w, const MOperand& o, OpType type, int dword) {
  VSrc s;
  if (o.kind == MOperand::Kind::kReg && o.cls != RegClass::kSgpr) {
    // A dword past the operand's registers (a malformed 32-bit operand of a
    // 64-bit source) reads 0 rather than a register the descriptor may not allocate.
    if (dword >= o.count) return s;
    s.row = w.Row(o.cls, o.reg + dword);
  } else {
    s.uni = ReadScalar(w, o, type, dword);
  }
  return s;
}

uint64_t ReadMask(const Wave& w, const MOperand& o) {
  return ReadScalar(w, o, OpType::kB64, 0) | (static_cast<uint64_t>(ReadScalar(w, o, OpType::kB64, 1)) << 32);
}

void WriteMask(Wave& w, const MOperand& o, uint64_t m) {
  WriteScalar(w, o, 0, static_cast<uint32_t>(m));
  WriteScalar(w, o, 1, static_cast<uint32_t>(m >> 32));
}

absl::Status Arity(const Inst& in, size_t n) {
  if (in.mi.ops.size() == n) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": expected ", n, " operands, got ",
                                                 in.mi.ops.size()));
}

absl::Status Unsupported(const Inst& in, const std::string& what) {
  return absl::UnimplementedError(absl::StrCat(Describe(in), ": ", what, " is not emulated"));
}

}  // namespace kir::emu
