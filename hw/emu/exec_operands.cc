#include "compiler/isa/encoding.h"
// Operand reads and writes shared by the instruction families.
#include "compiler/isa/encoding.h"
#include <cstring>
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/encoding.h"
#include "hw/emu/exec.h"
#include "compiler/isa/encoding.h"
#include "hw/emu/float_math.h"
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
namespace kir::emu {
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
uint32_t ConstValue(const MOperand& o, OpType type, int dword) {
#include "compiler/isa/encoding.h"
  if (o.float_form) {
#include "compiler/isa/encoding.h"
    float f = F32(static_cast<uint32_t>(o.imm));
#include "compiler/isa/encoding.h"
    switch (type) {
#include "compiler/isa/encoding.h"
      case OpType::kF16: return dword == 0 ? RoundToF16(f) : 0;
#include "compiler/isa/encoding.h"
      case OpType::kB64: {
#include "compiler/isa/encoding.h"
        double d = f;
#include "compiler/isa/encoding.h"
        uint64_t b;
#include "compiler/isa/encoding.h"
        std::memcpy(&b, &d, 8);
#include "compiler/isa/encoding.h"
        return static_cast<uint32_t>(dword == 0 ? b : b >> 32);
#include "compiler/isa/encoding.h"
      }
#include "compiler/isa/encoding.h"
      default: return dword == 0 ? static_cast<uint32_t>(o.imm) : 0;
#include "compiler/isa/encoding.h"
    }
#include "compiler/isa/encoding.h"
  }
#include "compiler/isa/encoding.h"
  int64_t v = o.imm;
#include "compiler/isa/encoding.h"
  if (dword == 0) return static_cast<uint32_t>(v);
#include "compiler/isa/encoding.h"
  // 64-bit operands: inline integer constants (-16..64) are sign-extended; a
#include "compiler/isa/encoding.h"
  // 32-bit literal is zero-extended (UNVERIFIED; the notes advise against it).
#include "compiler/isa/encoding.h"
  return ImmediateHighDword64(v);
#include "compiler/isa/encoding.h"
}
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
uint32_t ReadScalar(const Wave& w, const MOperand& o, OpType type, int dword) {
#include "compiler/isa/encoding.h"
  switch (o.kind) {
#include "compiler/isa/encoding.h"
    case MOperand::Kind::kImm:
#include "compiler/isa/encoding.h"
      return ConstValue(o, type, dword);
#include "compiler/isa/encoding.h"
    case MOperand::Kind::kSpecial:
#include "compiler/isa/encoding.h"
      switch (o.special) {
#include "compiler/isa/encoding.h"
        case SpecialReg::kVcc: return w.S(kVccLo + (dword & 1));
#include "compiler/isa/encoding.h"
        case SpecialReg::kExec: return w.S(kExecLo + (dword & 1));
#include "compiler/isa/encoding.h"
        case SpecialReg::kM0: return w.S(kM0);
#include "compiler/isa/encoding.h"
        case SpecialReg::kScc: return w.scc ? 1u : 0u;
#include "compiler/isa/encoding.h"
        default: return 0;
#include "compiler/isa/encoding.h"
      }
#include "compiler/isa/encoding.h"
    case MOperand::Kind::kReg:
#include "compiler/isa/encoding.h"
      return w.S(o.reg + dword);
#include "compiler/isa/encoding.h"
  }
#include "compiler/isa/encoding.h"
  return 0;
#include "compiler/isa/encoding.h"
}
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
void WriteScalar(Wave& w, const MOperand& o, int dword, uint32_t v) {
#include "compiler/isa/encoding.h"
  if (o.kind == MOperand::Kind::kSpecial) {
#include "compiler/isa/encoding.h"
    switch (o.special) {
#include "compiler/isa/encoding.h"
      case SpecialReg::kVcc: w.S(kVccLo + (dword & 1)) = v; return;
#include "compiler/isa/encoding.h"
      case SpecialReg::kExec: w.S(kExecLo + (dword & 1)) = v; return;
#include "compiler/isa/encoding.h"
      case SpecialReg::kM0: w.S(kM0) = v; return;
#include "compiler/isa/encoding.h"
      case SpecialReg::kScc: w.scc = v != 0; return;
#include "compiler/isa/encoding.h"
      default: return;
#include "compiler/isa/encoding.h"
    }
#include "compiler/isa/encoding.h"
  }
#include "compiler/isa/encoding.h"
  if (o.kind == MOperand::Kind::kReg) w.S(o.reg + dword) = v;
#include "compiler/isa/encoding.h"
}
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
VSrc ReadVSrc(Wave& w, const MOperand& o, OpType type, int dword) {
#include "compiler/isa/encoding.h"
  VSrc s;
#include "compiler/isa/encoding.h"
  if (o.kind == MOperand::Kind::kReg && o.cls != RegClass::kSgpr) {
#include "compiler/isa/encoding.h"
    // A dword past the operand's registers (a malformed 32-bit operand of a
#include "compiler/isa/encoding.h"
    // 64-bit source) reads 0 rather than a register the descriptor may not allocate.
#include "compiler/isa/encoding.h"
    if (dword >= o.count) return s;
#include "compiler/isa/encoding.h"
    s.row = w.Row(o.cls, o.reg + dword);
#include "compiler/isa/encoding.h"
  } else {
#include "compiler/isa/encoding.h"
    s.uni = ReadScalar(w, o, type, dword);
#include "compiler/isa/encoding.h"
  }
#include "compiler/isa/encoding.h"
  return s;
#include "compiler/isa/encoding.h"
}
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
uint64_t ReadMask(const Wave& w, const MOperand& o) {
#include "compiler/isa/encoding.h"
  return ReadScalar(w, o, OpType::kB64, 0) | (static_cast<uint64_t>(ReadScalar(w, o, OpType::kB64, 1)) << 32);
#include "compiler/isa/encoding.h"
}
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
void WriteMask(Wave& w, const MOperand& o, uint64_t m) {
#include "compiler/isa/encoding.h"
  WriteScalar(w, o, 0, static_cast<uint32_t>(m));
#include "compiler/isa/encoding.h"
  WriteScalar(w, o, 1, static_cast<uint32_t>(m >> 32));
#include "compiler/isa/encoding.h"
}
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
absl::Status Arity(const Inst& in, size_t n) {
#include "compiler/isa/encoding.h"
  if (in.mi.ops.size() == n) return absl::OkStatus();
#include "compiler/isa/encoding.h"
  return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": expected ", n, " operands, got ",
#include "compiler/isa/encoding.h"
                                                 in.mi.ops.size()));
#include "compiler/isa/encoding.h"
}
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
absl::Status Unsupported(const Inst& in, const std::string& what) {
#include "compiler/isa/encoding.h"
  return absl::UnimplementedError(absl::StrCat(Describe(in), ": ", what, " is not emulated"));
#include "compiler/isa/encoding.h"
}
#include "compiler/isa/encoding.h"

#include "compiler/isa/encoding.h"
}  // namespace kir::emu
