#include "compiler/isa/encoding.h"

#include "absl/strings/str_cat.h"
#include "compiler/isa/operands.h"

namespace kir {

uint16_t EncodeWaitcnt(int vmcnt, int expcnt, int lgkmcnt) {
  uint32_t v = static_cast<uint32_t>(vmcnt) & 63u;
  uint32_t e = static_cast<uint32_t>(expcnt) & 7u;
  uint32_t l = static_cast<uint32_t>(lgkmcnt) & 15u;
  return static_cast<uint16_t>((v & 0xFu) | ((v >> 4) << 14) | (e << 4) | (l << 8));
}

WaitcntCounts DecodeWaitcnt(uint16_t simm16) {
  WaitcntCounts c;
  c.vmcnt = (simm16 & 0xF) | ((simm16 >> 10) & 0x30);
  c.expcnt = (simm16 >> 4) & 7;
  c.lgkmcnt = (simm16 >> 8) & 0xF;
  return c;
}

MInst MakeWaitcnt(int vmcnt, int lgkmcnt) {
  MInst w;
  w.opc = Opc::kSWaitcnt;
  w.ops = {MOperand::Imm(vmcnt), MOperand::Imm(lgkmcnt)};
  w.id = -1;
  return w;
}

int64_t WaitcntCounter(const MInst& w, OpName counter) {
  const MOperand* o = FindOperand(w, counter);
  return o != nullptr ? o->imm : kWaitcntNoWait;
}

std::string WaitcntText(const MInst& w) {
  int64_t vm = WaitcntCounter(w, OpName::kVmcnt), lgkm = WaitcntCounter(w, OpName::kLgkmcnt);
  if (vm < 0 && lgkm < 0) return "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)";
  std::string s = "s_waitcnt";
  if (vm >= 0) absl::StrAppend(&s, " vmcnt(", vm, ")");
  if (lgkm >= 0) absl::StrAppend(&s, " lgkmcnt(", lgkm, ")");
  return s;
}

uint16_t WaitcntSimm16(const MInst& w) {
  int64_t vm = WaitcntCounter(w, OpName::kVmcnt), lgkm = WaitcntCounter(w, OpName::kLgkmcnt);
  return EncodeWaitcnt(vm < 0 ? 63 : static_cast<int>(vm), 7, lgkm < 0 ? 15 : static_cast<int>(lgkm));
}

absl::Status ValidateWaitcnt(const TargetInfo& t, const MInst& w) {
  if (w.opc != Opc::kSWaitcnt) return absl::InvalidArgumentError("not an s_waitcnt");
  if (w.ops.size() != 2 || OperandOr0(w, OpName::kVmcnt).kind != MOperand::Kind::kImm ||
      OperandOr0(w, OpName::kLgkmcnt).kind != MOperand::Kind::kImm)
    return absl::InvalidArgumentError(
        "s_waitcnt must have two immediate operands: vmcnt, lgkmcnt (-1 = not waited)");
  int64_t vm = WaitcntCounter(w, OpName::kVmcnt), lgkm = WaitcntCounter(w, OpName::kLgkmcnt);
  if (vm < kWaitcntNoWait || vm > t.vmcnt_max)
    return absl::InvalidArgumentError(
        absl::StrCat("s_waitcnt vmcnt(", vm, ") is outside -1..", t.vmcnt_max));
  if (lgkm < kWaitcntNoWait || lgkm > t.lgkmcnt_max)
    return absl::InvalidArgumentError(
        absl::StrCat("s_waitcnt lgkmcnt(", lgkm, ") is outside -1..", t.lgkmcnt_max));
  return absl::OkStatus();
}

std::optional<absl::string_view> InlineF32Name(uint32_t bits) {
  switch (bits) {
    case 0x3f000000u: return "0.5";
    case 0xbf000000u: return "-0.5";
    case 0x3f800000u: return "1.0";
    case 0xbf800000u: return "-1.0";
    case 0x40000000u: return "2.0";
    case 0xc0000000u: return "-2.0";
    case 0x40800000u: return "4.0";
    case 0xc0800000u: return "-4.0";
    default: return std::nullopt;
  }
}

bool IsInlineF32Operand(uint32_t bits) {
  return IsInlineIntConstant(static_cast<int32_t>(bits)) || InlineF32Name(bits).has_value();
}

const char* SpecialRegName(SpecialReg r) {
  switch (r) {
    case SpecialReg::kVcc: return "vcc";
    case SpecialReg::kExec: return "exec";
    case SpecialReg::kM0: return "m0";
    case SpecialReg::kScc: return "scc";
    case SpecialReg::kNone: break;
  }
  return "?";
}

SpecialReg SpecialRegFromName(absl::string_view name) {
  for (SpecialReg r : {SpecialReg::kVcc, SpecialReg::kExec, SpecialReg::kM0, SpecialReg::kScc})
    if (name == SpecialRegName(r)) return r;
  return SpecialReg::kNone;
}

SpecialReg SpecialRegAt(int lo, int count) {
  if (lo == kVccLoEncoding && count == 2) return SpecialReg::kVcc;
  if (lo == kExecLoEncoding && count == 2) return SpecialReg::kExec;
  if (lo == kM0Encoding && count == 1) return SpecialReg::kM0;
  if (lo == kSccEncoding && count == 1) return SpecialReg::kScc;
  return SpecialReg::kNone;
}

std::string SgprDwordName(int index) {
  switch (index) {
    case kVccLoEncoding: return "vcc_lo";
    case kVccLoEncoding + 1: return "vcc_hi";
    case kM0Encoding: return "m0";
    case kExecLoEncoding: return "exec_lo";
    case kExecLoEncoding + 1: return "exec_hi";
    case kSccEncoding: return "scc";
    default: return absl::StrCat("s", index);
  }
}

int SgprDwordFromName(absl::string_view name) {
  if (name == "vcc_lo") return kVccLoEncoding;
  if (name == "vcc_hi") return kVccLoEncoding + 1;
  if (name == "m0") return kM0Encoding;
  if (name == "exec_lo") return kExecLoEncoding;
  if (name == "exec_hi") return kExecLoEncoding + 1;
  return -1;
}

}  // namespace kir
