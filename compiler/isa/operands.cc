#include "compiler/isa/operands.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "compiler/isa/encoding.h"

namespace kir {
namespace {

using N = OpName;

// Each layout's operand names in MInst::ops order (instr.h OperandLayout).
absl::Span<const OpName> LayoutNames(OperandLayout l) {
  static constexpr OpName kSimm16[] = {N::kSimm16};
  static constexpr OpName kWaitcnt[] = {N::kVmcnt, N::kLgkmcnt};
  static constexpr OpName kTarget[] = {N::kTarget};
  static constexpr OpName kSmem[] = {N::kSdst, N::kSbase, N::kOffset};
  static constexpr OpName kSop[] = {N::kSdst, N::kSrc0, N::kSrc1};
  static constexpr OpName kSopc[] = {N::kSrc0, N::kSrc1};
  static constexpr OpName kSopk[] = {N::kSdst, N::kSimm16};
  static constexpr OpName kSopkCmp[] = {N::kSrc0, N::kSimm16};
  static constexpr OpName kVop[] = {N::kVdst, N::kSrc0, N::kSrc1, N::kSrc2};
  static constexpr OpName kVopCarry[] = {N::kVdst, N::kSdst, N::kSrc0, N::kSrc1, N::kSrc2};
  static constexpr OpName kVopc[] = {N::kSdst, N::kSrc0, N::kSrc1};
  static constexpr OpName kMubuf[] = {N::kVdata, N::kVaddr, N::kSrsrc, N::kSoffset};
  static constexpr OpName kGlobalLoad[] = {N::kVdst, N::kVaddr, N::kSaddr};
  static constexpr OpName kGlobalStore[] = {N::kVdata, N::kVaddr, N::kSaddr};
  static constexpr OpName kDsRead[] = {N::kVdst, N::kAddr};
  static constexpr OpName kDsWrite[] = {N::kAddr, N::kData0, N::kData1};
  static constexpr OpName kGlobalAtomicRtn[] = {N::kVdst, N::kVaddr, N::kVdata, N::kSaddr};
  static constexpr OpName kScratchLoad[] = {N::kVdst, N::kVaddr, N::kSaddr};
  static constexpr OpName kScratchStore[] = {N::kVdata, N::kVaddr, N::kSaddr};
  static constexpr OpName kMubufLds[] = {N::kVaddr, N::kSrsrc, N::kSoffset};
  static constexpr OpName kGlobalLds[] = {N::kVaddr, N::kSaddr};
  static constexpr OpName kVopBitop3[] = {N::kVdst, N::kSrc0, N::kSrc1, N::kSrc2, N::kBitop3};
  switch (l) {
    case OperandLayout::kNoOperands: return {};
    case OperandLayout::kSimm16Layout: return kSimm16;
    case OperandLayout::kWaitcntLayout: return kWaitcnt;
    case OperandLayout::kTargetLayout: return kTarget;
    case OperandLayout::kSmemLayout: return kSmem;
    case OperandLayout::kSopLayout: return kSop;
    case OperandLayout::kSopcLayout: return kSopc;
    case OperandLayout::kSopkLayout: return kSopk;
    case OperandLayout::kSopkCmpLayout: return kSopkCmp;
    case OperandLayout::kVopLayout: return kVop;
    case OperandLayout::kVopCarryLayout: return kVopCarry;
    case OperandLayout::kVopcLayout: return kVopc;
    case OperandLayout::kMubufLayout: return kMubuf;
    case OperandLayout::kGlobalLoadLayout: return kGlobalLoad;
    case OperandLayout::kGlobalStoreLayout: return kGlobalStore;
    case OperandLayout::kDsReadLayout: return kDsRead;
    case OperandLayout::kDsWriteLayout: return kDsWrite;
    case OperandLayout::kGlobalAtomicRtnLayout: return kGlobalAtomicRtn;
    case OperandLayout::kScratchLoadLayout: return kScratchLoad;
    case OperandLayout::kScratchStoreLayout: return kScratchStore;
    case OperandLayout::kMubufLdsLayout: return kMubufLds;
    case OperandLayout::kGlobalLdsLayout: return kGlobalLds;
    case OperandLayout::kVopBitop3Layout: return kVopBitop3;
  }
  return {};
}

// A def the instruction also reads (RegAccessKinds::kTiedReads).
bool TiedDef(Opc opc) {
  return (Info(opc).flags & kDefMerges) || opc == Opc::kSAddkI32 || opc == Opc::kSMulkI32 ||
         opc == Opc::kVMacF32 || opc == Opc::kVFmacF32 || opc == Opc::kSCmovB32;
}

}  // namespace

const char* OpNameText(OpName n) {
  switch (n) {
    case N::kVdst: return "vdst";
    case N::kSdst: return "sdst";
    case N::kSrc0: return "src0";
    case N::kSrc1: return "src1";
    case N::kSrc2: return "src2";
    case N::kSimm16: return "simm16";
    case N::kTarget: return "target";
    case N::kVmcnt: return "vmcnt";
    case N::kLgkmcnt: return "lgkmcnt";
    case N::kSbase: return "sbase";
    case N::kOffset: return "offset";
    case N::kVdata: return "vdata";
    case N::kVaddr: return "vaddr";
    case N::kSrsrc: return "srsrc";
    case N::kSoffset: return "soffset";
    case N::kSaddr: return "saddr";
    case N::kAddr: return "addr";
    case N::kData0: return "data0";
    case N::kData1: return "data1";
    case N::kBitop3: return "bitop3";
  }
  return "?";
}

int NamedOperandIdx(Opc opc, OpName n) {
  if (opc >= Opc::kNumOpcodes) return -1;
  absl::Span<const OpName> names = LayoutNames(Info(opc).layout);
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == n) return static_cast<int>(i);
  return -1;
}

const MOperand* FindOperand(const MInst& mi, OpName n) {
  int i = NamedOperandIdx(mi.opc, n);
  return i >= 0 && i < static_cast<int>(mi.ops.size()) ? &mi.ops[i] : nullptr;
}

MOperand* FindOperand(MInst& mi, OpName n) {
  int i = NamedOperandIdx(mi.opc, n);
  return i >= 0 && i < static_cast<int>(mi.ops.size()) ? &mi.ops[i] : nullptr;
}

const MOperand& OperandOr0(const MInst& mi, OpName n) {
  static const MOperand kZero = MOperand::Imm(0);
  const MOperand* o = FindOperand(mi, n);
  return o != nullptr ? *o : kZero;
}

int64_t LabelId(const MInst& mi) {
  const MOperand* t = FindOperand(mi, OpName::kTarget);
  return t != nullptr && t->kind == MOperand::Kind::kImm ? t->imm : -1;
}

bool Overlap(const RegAccess& a, const RegAccess& b) {
  return a.cls == b.cls && a.is_virtual == b.is_virtual && a.root == b.root && a.lo < b.lo + b.count &&
         b.lo < a.lo + a.count;
}

bool SameRegs(const RegAccess& a, const RegAccess& b) {
  return a.cls == b.cls && a.is_virtual == b.is_virtual && a.root == b.root && a.lo == b.lo && a.count == b.count;
}

bool SpecialRegRange(SpecialReg s, int* lo, int* count) {
  switch (s) {
    case SpecialReg::kVcc: *lo = kVccLoEncoding; *count = 2; return true;
    case SpecialReg::kExec: *lo = kExecLoEncoding; *count = 2; return true;
    case SpecialReg::kM0: *lo = kM0Encoding; *count = 1; return true;
    case SpecialReg::kScc: *lo = kSccEncoding; *count = 1; return true;
    case SpecialReg::kNone: return false;
  }
  return false;
}

namespace {

// Operand `i` of `mi` as a register access; false if it is not a register.
bool OperandToAccess(const MInst& mi, size_t i, const MFunction* f, RegAccess* a) {
  const MOperand& o = mi.ops[i];
  a->def = mi.IsDef(i);
  a->op = static_cast<int>(i);
  if (o.kind == MOperand::Kind::kReg) {
    a->cls = o.cls;
    a->is_virtual = o.is_virtual;
    a->count = o.count;
    a->special = SpecialReg::kNone;
    if (!o.is_virtual) {
      a->root = -1;
      a->lo = o.reg;
      return true;
    }
    a->root = o.reg;
    a->lo = o.sub;
    if (f != nullptr) {  // an alias is its root tuple at an offset
      auto [root, off] = f->Root(o.reg);
      a->root = root;
      a->lo += off;
    }
    return true;
  }
  if (o.kind != MOperand::Kind::kSpecial || !SpecialRegRange(o.special, &a->lo, &a->count)) return false;
  a->cls = RegClass::kSgpr;
  a->is_virtual = false;
  a->root = -1;
  a->special = o.special;
  return true;
}

}  // namespace

bool NamedRegAccess(const MInst& mi, OpName n, RegAccess* a, const MFunction* f) {
  int i = NamedOperandIdx(mi.opc, n);
  if (i < 0 || i >= static_cast<int>(mi.ops.size())) return false;
  return OperandToAccess(mi, i, f, a);
}

RegAccesses CollectRegAccesses(const MInst& mi, uint32_t kinds, const MFunction* f) {
  RegAccesses out;
  const OpcInfo& info = Info(mi.opc);
  const bool tied = (kinds & kTiedReads) && TiedDef(mi.opc);
  if (kinds & kExplicitAccesses) {
    for (size_t i = 0; i < mi.ops.size(); ++i) {
      RegAccess a;
      if (!OperandToAccess(mi, i, f, &a) || (a.is_virtual && (kinds & kPhysicalOnly))) continue;
      out.push_back(a);
      if (a.def && tied) {
        a.def = false;
        out.push_back(a);
      }
    }
  }
  if (kinds & kImplicitAccesses) {
    auto implicit = [&](SpecialReg s, bool def) {
      RegAccess a;
      SpecialRegRange(s, &a.lo, &a.count);
      a.cls = RegClass::kSgpr;
      a.def = def;
      a.special = s;
      out.push_back(a);
    };
    const uint32_t fl = info.flags;
    if (fl & kWritesScc) implicit(SpecialReg::kScc, true);
    if (fl & kReadsScc) implicit(SpecialReg::kScc, false);
    if (fl & kWritesVcc) implicit(SpecialReg::kVcc, true);
    if (fl & kReadsVcc) implicit(SpecialReg::kVcc, false);
    if (fl & kWritesExec) implicit(SpecialReg::kExec, true);
    if (fl & kReadsExec) implicit(SpecialReg::kExec, false);
    if (fl & kReadsM0) implicit(SpecialReg::kM0, false);
  }
  return out;
}

std::string RegAccessName(const RegAccess& a) {
  if (a.is_virtual) {
    return absl::StrCat("%", RegClassPrefix(a.cls), a.root, "[", a.lo, a.count > 1 ? absl::StrCat(":", a.lo + a.count - 1) : "", "]");
  }
  if (a.cls == RegClass::kSgpr) {
    SpecialReg s = SpecialRegAt(a.lo, a.count);
    if (s != SpecialReg::kNone) return SpecialRegName(s);
  }
  return RegName(a.cls, a.lo, a.count);
}

bool WritesExec(const MInst& mi) {
  if (Info(mi.opc).flags & kWritesExec) return true;
  for (int i = 0; i < mi.NumDefs() && i < static_cast<int>(mi.ops.size()); ++i)
    if (mi.ops[i].kind == MOperand::Kind::kSpecial && mi.ops[i].special == SpecialReg::kExec) return true;
  return false;
}

}  // namespace kir
