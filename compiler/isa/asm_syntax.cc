#include "compiler/isa/asm_syntax.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/semantics.h"
#include "compiler/isa/operands.h"

namespace kir {
namespace {

std::string FloatInline(uint32_t bits) {
  std::optional<absl::string_view> name = InlineF32Name(bits);
  return name ? std::string(*name) : absl::StrFormat("0x%x", bits);
}

std::string OperandText(const MOperand& o) {
  switch (o.kind) {
    case MOperand::Kind::kReg:
      if (o.is_virtual) {
        std::string r = absl::StrCat("%", RegClassPrefix(o.cls), o.reg);
        if (o.sub != 0 || o.count != 1)
          absl::StrAppend(&r, "[", o.sub, o.count > 1 ? absl::StrCat(":", o.sub + o.count - 1) : "", "]");
        return r;
      }
      // One dword of VCC, M0 or EXEC by its SGPR-space index (how the reader
      // takes `exec_hi`): LLVM's name, which llvm-mc reads back (not "s127").
      if (o.cls == RegClass::kSgpr && o.count == 1 && o.reg >= kVccLoEncoding) return SgprDwordName(o.reg);
      return RegName(o.cls, o.reg, o.count);
    case MOperand::Kind::kSpecial:
      return SpecialRegName(o.special);
    case MOperand::Kind::kImm: {
      if (o.float_form) return FloatInline(static_cast<uint32_t>(o.imm));
      // The aperture registers the reader turns into their 64-bit values
      // (semantics.h): printed by name, as llvm-mc reads them back.
      if (static_cast<uint64_t>(o.imm) == kSharedApertureBase) return "src_shared_base";
      if (static_cast<uint64_t>(o.imm) == kPrivateApertureBase) return "src_private_base";
      // An inline integer as the int64 holds it; a 32-bit pattern held
      // zero-extended (0xfffffff0, a 64-bit operand's literal: high dword 0,
      // ImmediateHighDword64) in hex, never as the inline -16, which sets
      // every bit of a 64-bit operand (fresh-user review 23 F4: `s_mov_b64
      // exec, 0xfffffff0` printed as `s_mov_b64 exec, -16` in a verifier
      // counterexample).
      if (IsInlineIntConstant(o.imm)) return absl::StrCat(o.imm);
      return absl::StrFormat("0x%x", static_cast<uint32_t>(o.imm));
    }
  }
  return "?";
}

}  // namespace

std::string InstructionText(const TargetInfo& t, const MInst& mi, const std::string& label_prefix) {
  const OpcInfo& info = Info(mi.opc);
  if (mi.opc == Opc::kSWaitcnt) return WaitcntText(mi);
  if (mi.opc == Opc::kLabel) return absl::StrCat(label_prefix, LabelId(mi), ":");
  if (info.flags & kBranch)
    return absl::StrCat(info.mnemonic, " ", label_prefix, LabelId(mi));
  std::string mn = info.mnemonic;
  if (mi.opc == Opc::kVMfma) {
    absl::StatusOr<std::string> m = MfmaMnemonic(t, *mi.mfma);
    mn = m.ok() ? *m : "v_mfma_unsupported";
  }
  if (mi.opc == Opc::kVCmpGtU32 || mi.opc == Opc::kVCmpUF32 || mi.opc == Opc::kVCmpLgF32 ||
      mi.opc == Opc::kVCndmaskB32)
    mn += "_e64";
  InstClass cls = info.cls;
  if (info.layout == OperandLayout::kGlobalAtomicRtnLayout) {
    // A returning global atomic: "vdst, vaddr, vdata, saddr|off" and the
    // return bit (glc; sc0 where the cache bits are spelled so).
    std::string s = mn;
    for (OpName n : {OpName::kVdst, OpName::kVaddr, OpName::kVdata}) {
      const MOperand* o = FindOperand(mi, n);
      absl::StrAppend(&s, n == OpName::kVdst ? " " : ", ", o != nullptr ? OperandText(*o) : "?");
    }
    const MOperand* saddr = FindOperand(mi, OpName::kSaddr);
    absl::StrAppend(&s, ", ", saddr != nullptr ? OperandText(*saddr) : "off");
    if (mi.offset != 0) absl::StrAppend(&s, " offset:", mi.offset);
    absl::StrAppend(&s, t.cache_bits_sc ? " sc0" : " glc");
    return s;
  }
  if (info.flags & (kFlatAddr | kScratchAddr)) {
    // llvm-mc's order: flat loads "vdst, vaddr", stores "vaddr, vdata";
    // scratch loads "vdst, vaddr|off, saddr|off", stores "vaddr|off, vdata,
    // saddr|off" (an Imm(0) vaddr or saddr is "off").
    const bool store = cls == InstClass::kVmemStore;
    const MOperand* data = FindOperand(mi, store ? OpName::kVdata : OpName::kVdst);
    const MOperand* addr = FindOperand(mi, OpName::kVaddr);
    auto text = [](const MOperand* o) { return o == nullptr || !o->IsReg() ? std::string("off") : OperandText(*o); };
    std::string d = data != nullptr ? OperandText(*data) : "?", a = text(addr);
    std::string s = absl::StrCat(mn, " ", store ? absl::StrCat(a, ", ", d) : absl::StrCat(d, ", ", a));
    if (info.flags & kScratchAddr) absl::StrAppend(&s, ", ", text(FindOperand(mi, OpName::kSaddr)));
    if (mi.offset != 0) absl::StrAppend(&s, " offset:", mi.offset);
    return s;
  }
  if (info.flags & kGlobalAddr) {
    // llvm-mc's order: loads "vdst, vaddr, saddr|off", stores (and atomics
    // without a return) "vaddr, vdata, saddr|off" (the layout keeps vdata
    // first for both).
    const MOperand* data = FindOperand(mi, cls == InstClass::kVmemStore ? OpName::kVdata : OpName::kVdst);
    const MOperand* addr = FindOperand(mi, OpName::kVaddr);
    const MOperand* saddr = FindOperand(mi, OpName::kSaddr);
    std::string d = data != nullptr ? OperandText(*data) : "?", a = addr != nullptr ? OperandText(*addr) : "?";
    std::string s = absl::StrCat(mn, " ",
                                 info.layout == OperandLayout::kGlobalLdsLayout ? a  // the LDS DMA: no data
                                 : cls == InstClass::kVmemStore                  ? absl::StrCat(a, ", ", d)
                                                                                 : absl::StrCat(d, ", ", a),
                                 ", ", saddr != nullptr ? OperandText(*saddr) : "off");
    if (mi.offset != 0) absl::StrAppend(&s, " offset:", mi.offset);
    return s;
  }
  if (info.layout == OperandLayout::kVopBitop3Layout) {
    // v_bitop3_b32 vdst, src0, src1, src2 bitop3:0xNN (llvm-objdump's form:
    // hex, left out when the table is 0).
    std::string s = mn;
    for (OpName n : {OpName::kVdst, OpName::kSrc0, OpName::kSrc1, OpName::kSrc2}) {
      const MOperand* o = FindOperand(mi, n);
      absl::StrAppend(&s, n == OpName::kVdst ? " " : ", ", o != nullptr ? OperandText(*o) : "?");
    }
    const MOperand* table = FindOperand(mi, OpName::kBitop3);
    const int64_t t = table != nullptr && table->kind == MOperand::Kind::kImm ? table->imm : 0;
    if (t != 0) absl::StrAppendFormat(&s, " bitop3:0x%x", static_cast<uint32_t>(t));
    return s;
  }
  bool mubuf = IsVmem(cls);
  const int vaddr = NamedOperandIdx(mi.opc, OpName::kVaddr);
  const int smem_offset = NamedOperandIdx(mi.opc, OpName::kOffset);
  std::string s = mn;
  for (size_t i = 0; i < mi.ops.size(); ++i) {
    s += i == 0 ? " " : ", ";
    if (mubuf && static_cast<int>(i) == vaddr && !mi.offen) {
      s += "off";
    } else if (static_cast<int>(i) == smem_offset && mi.ops[i].kind == MOperand::Kind::kImm) {
      absl::StrAppendFormat(&s, "0x%x", static_cast<uint32_t>(mi.ops[i].imm));
    } else {
      s += OperandText(mi.ops[i]);
    }
  }
  if (mubuf) {
    if (mi.offen) s += " offen";
    if (mi.offset != 0) absl::StrAppend(&s, " offset:", mi.offset);
    if (info.flags & kLdsDma) s += " lds";  // LLVM 22: "buffer_load_dwordx4 v1, s[4:7], 0 offen lds"
  }
  // gfx950's f8f6f4 MFMAs: the operand formats (MfmaDesc::cbsz/blgp).
  if (mi.opc == Opc::kVMfma && mi.mfma != nullptr) {
    if (mi.mfma->cbsz != 0) absl::StrAppend(&s, " cbsz:", mi.mfma->cbsz);
    if (mi.mfma->blgp != 0) absl::StrAppend(&s, " blgp:", mi.mfma->blgp);
  }
  // The word-1 forms of the fp8 conversions (opcodes.def): VOP3 op_sel[2].
  if (mi.opc == Opc::kVCvtPkFp8F32Hi || mi.opc == Opc::kVCvtPkBf8F32Hi) s += " op_sel:[0,0,1]";
  if (IsDs(cls)) {
    if (MemoryShape(mi.opc).addrs == 2) {  // llvm-objdump's form: zero fields left out
      if (mi.offset0 != 0) absl::StrAppend(&s, " offset0:", mi.offset0);
      if (mi.offset1 != 0) absl::StrAppend(&s, " offset1:", mi.offset1);
    } else if (mi.offset != 0) {
      absl::StrAppend(&s, " offset:", mi.offset);
    }
  }
  return s;
}

std::string VRegDeclarations(const MFunction& f) {
  const int nv = static_cast<int>(f.vregs.size());
  std::vector<bool> named(nv, false);
  for (const MInst& mi : f.insts)
    for (const MOperand& o : mi.ops)
      if (o.IsReg() && o.is_virtual)
        for (int v = o.reg; v >= 0 && v < nv && !named[v]; v = f.vregs[v].alias_of) named[v] = true;
  std::string s;
  for (int v = 0; v < nv; ++v) {
    if (!named[v]) continue;
    const VReg& r = f.vregs[v];
    const char* c = RegClassPrefix(r.cls);
    absl::StrAppend(&s, "  .vreg %", c, v, ", ", r.count);
    if (r.align > 1) absl::StrAppend(&s, ", align ", r.align);
    if (r.fixed >= 0) absl::StrAppend(&s, ", fixed ", r.fixed);
    if (r.alias_of >= 0) absl::StrAppend(&s, ", alias %", c, r.alias_of, "+", r.alias_offset);
    absl::StrAppend(&s, "\n");
  }
  return s;
}

std::string PrintMir(const TargetInfo& t, const MFunction& f, absl::string_view name) {
  std::string s;
  if (!name.empty()) absl::StrAppend(&s, name, ":\n");
  absl::StrAppend(&s, VRegDeclarations(f));
  for (const MInst& mi : f.insts) {
    std::string line = absl::StrCat("  ", InstructionText(t, mi));
    if (mi.id >= 0 || mi.kir_op >= 0) {
      line.resize(std::max<size_t>(line.size(), 56), ' ');
      absl::StrAppend(&line, " // id ", mi.id, mi.kir_op >= 0 ? absl::StrCat(" op ", mi.kir_op) : "");
    }
    absl::StrAppend(&s, line, "\n");
  }
  return s;
}

}  // namespace kir
