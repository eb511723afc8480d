#include "compiler/isa/instr.h"

#include <string>

namespace kir {
namespace {

const OpcInfo kInfos[] = {
#define KIRC_OPC(name, mnemonic, cls, defs, flags, layout) \
  {mnemonic, InstClass::cls, defs, flags, OperandLayout::layout},
#include "compiler/isa/opcodes.def"
#undef KIRC_OPC
};

}  // namespace

const OpcInfo& Info(Opc opc) { return kInfos[static_cast<int>(opc)]; }

Opc OpcFromMnemonic(absl::string_view m) {
  for (int i = 0; i < static_cast<int>(Opc::kNumOpcodes); ++i)
    if (m == kInfos[i].mnemonic) return static_cast<Opc>(i);
  return Opc::kNumOpcodes;
}

MOperand MOperand::Imm(int64_t v) {
  MOperand o;
  o.kind = Kind::kImm;
  o.imm = v;
  return o;
}

MOperand MOperand::FloatImm(uint32_t bits) {
  MOperand o = Imm(bits);
  o.float_form = true;
  return o;
}

MOperand MOperand::Virt(RegClass c, int id, int sub, int count) {
  MOperand o;
  o.kind = Kind::kReg;
  o.cls = c;
  o.is_virtual = true;
  o.reg = id;
  o.sub = sub;
  o.count = count;
  return o;
}

MOperand MOperand::Phys(RegClass c, int index, int count) {
  MOperand o;
  o.kind = Kind::kReg;
  o.cls = c;
  o.is_virtual = false;
  o.reg = index;
  o.count = count;
  return o;
}

MOperand MOperand::Special(SpecialReg s) {
  MOperand o;
  o.kind = Kind::kSpecial;
  o.special = s;
  return o;
}

int MInst::NumDefs() const { return Info(opc).num_defs; }

bool MInst::WritesM0() const {
  for (int i = 0; i < NumDefs() && i < static_cast<int>(ops.size()); ++i)
    if (ops[i].kind == MOperand::Kind::kSpecial && ops[i].special == SpecialReg::kM0) return true;
  return false;
}

int MFunction::NewVReg(RegClass cls, int count, int align) {
  vregs.push_back(VReg{cls, count, align, -1});
  return static_cast<int>(vregs.size()) - 1;
}

int MFunction::NewAlias(int parent, int offset, int count) {
  VReg v = vregs[parent];
  v.count = count;
  v.align = 1;
  v.fixed = -1;
  v.alias_of = parent;
  v.alias_offset = offset;
  v.has_views = false;
  vregs[Root(parent).first].has_views = true;
  vregs.push_back(v);
  return static_cast<int>(vregs.size()) - 1;
}

std::pair<int, int> MFunction::Root(int vreg) const {
  int off = 0;
  while (vreg >= 0 && vreg < static_cast<int>(vregs.size()) && vregs[vreg].alias_of >= 0) {
    off += vregs[vreg].alias_offset;
    vreg = vregs[vreg].alias_of;
  }
  return {vreg, off};
}

SegmentTwins SegmentTwinsOf(Opc o) {
  // One row per data movement: flat, global, ds, scratch.
  static const SegmentTwins kRows[] = {
      {Opc::kFlatLoadDword, Opc::kGlobalLoadDword, Opc::kDsReadB32, Opc::kScratchLoadDword},
      {Opc::kFlatLoadDwordx2, Opc::kGlobalLoadDwordx2, Opc::kDsReadB64, Opc::kScratchLoadDwordx2},
      {Opc::kFlatLoadDwordx3, Opc::kGlobalLoadDwordx3, Opc::kDsReadB96, Opc::kScratchLoadDwordx3},
      {Opc::kFlatLoadDwordx4, Opc::kGlobalLoadDwordx4, Opc::kDsReadB128, Opc::kScratchLoadDwordx4},
      {Opc::kFlatLoadUbyte, Opc::kGlobalLoadUbyte, Opc::kDsReadU8, Opc::kScratchLoadUbyte},
      {Opc::kFlatLoadSbyte, Opc::kGlobalLoadSbyte, Opc::kDsReadI8, Opc::kScratchLoadSbyte},
      {Opc::kFlatLoadUshort, Opc::kGlobalLoadUshort, Opc::kDsReadU16, Opc::kScratchLoadUshort},
      {Opc::kFlatLoadSshort, Opc::kGlobalLoadSshort, Opc::kDsReadI16, Opc::kScratchLoadSshort},
      {Opc::kFlatLoadShortD16, Opc::kGlobalLoadShortD16, Opc::kDsReadU16D16, Opc::kScratchLoadShortD16},
      {Opc::kFlatLoadShortD16Hi, Opc::kGlobalLoadShortD16Hi, Opc::kDsReadU16D16Hi, Opc::kScratchLoadShortD16Hi},
      {Opc::kFlatStoreDword, Opc::kGlobalStoreDword, Opc::kDsWriteB32, Opc::kScratchStoreDword},
      {Opc::kFlatStoreDwordx2, Opc::kGlobalStoreDwordx2, Opc::kDsWriteB64, Opc::kScratchStoreDwordx2},
      {Opc::kFlatStoreDwordx3, Opc::kGlobalStoreDwordx3, Opc::kDsWriteB96, Opc::kScratchStoreDwordx3},
      {Opc::kFlatStoreDwordx4, Opc::kGlobalStoreDwordx4, Opc::kDsWriteB128, Opc::kScratchStoreDwordx4},
      {Opc::kFlatStoreByte, Opc::kGlobalStoreByte, Opc::kDsWriteB8, Opc::kScratchStoreByte},
      {Opc::kFlatStoreShort, Opc::kGlobalStoreShort, Opc::kDsWriteB16, Opc::kScratchStoreShort},
      {Opc::kFlatStoreShortD16Hi, Opc::kGlobalStoreShortD16Hi, Opc::kDsWriteB16D16Hi, Opc::kScratchStoreShortD16Hi},
  };
  for (const SegmentTwins& r : kRows)
    if (o == r.flat || o == r.global || o == r.ds || o == r.scratch) return r;
  return {};
}

namespace {
MemShape WholeShape(Opc o) {
  switch (o) {
    case Opc::kBufferLoadDword: return {1, 4, false, false};
    case Opc::kBufferLoadDwordx2: return {2, 4, false, false};
    case Opc::kBufferLoadDwordx3: return {3, 4, false, false};
    case Opc::kBufferLoadDwordx4: return {4, 4, false, false};
    case Opc::kBufferLoadShortD16: case Opc::kBufferLoadShortD16Hi: case Opc::kBufferLoadUshort:
    case Opc::kBufferLoadSshort: return {1, 2, false, false};
    case Opc::kBufferLoadUbyte: case Opc::kBufferLoadSbyte: return {1, 1, false, false};
    case Opc::kBufferStoreDword: return {1, 4, false, true};
    case Opc::kBufferStoreDwordx2: return {2, 4, false, true};
    case Opc::kBufferStoreDwordx3: return {3, 4, false, true};
    case Opc::kBufferStoreDwordx4: return {4, 4, false, true};
    case Opc::kBufferStoreShort: case Opc::kBufferStoreShortD16Hi: return {1, 2, false, true};
    case Opc::kBufferStoreByte: return {1, 1, false, true};
    // global_* (kGlobalAddr): no range check; the address is 64 bits.
    case Opc::kGlobalLoadDword: return {1, 4, false, false};
    case Opc::kGlobalLoadDwordx2: return {2, 4, false, false};
    case Opc::kGlobalLoadDwordx3: return {3, 4, false, false};
    case Opc::kGlobalLoadDwordx4: return {4, 4, false, false};
    case Opc::kGlobalLoadShortD16: case Opc::kGlobalLoadShortD16Hi: case Opc::kGlobalLoadUshort:
    case Opc::kGlobalLoadSshort: return {1, 2, false, false};
    case Opc::kGlobalLoadUbyte: case Opc::kGlobalLoadSbyte: return {1, 1, false, false};
    case Opc::kGlobalStoreDword: return {1, 4, false, true};
    case Opc::kGlobalStoreDwordx2: return {2, 4, false, true};
    case Opc::kGlobalStoreDwordx3: return {3, 4, false, true};
    case Opc::kGlobalStoreDwordx4: return {4, 4, false, true};
    case Opc::kGlobalStoreShort: case Opc::kGlobalStoreShortD16Hi: return {1, 2, false, true};
    case Opc::kGlobalStoreByte: return {1, 1, false, true};
    // flat_* (kFlatAddr) and scratch_* (kScratchAddr): the same shapes.
    case Opc::kFlatLoadDword: case Opc::kScratchLoadDword: return {1, 4, false, false};
    case Opc::kFlatLoadDwordx2: case Opc::kScratchLoadDwordx2: return {2, 4, false, false};
    case Opc::kFlatLoadDwordx3: case Opc::kScratchLoadDwordx3: return {3, 4, false, false};
    case Opc::kFlatLoadDwordx4: case Opc::kScratchLoadDwordx4: return {4, 4, false, false};
    case Opc::kFlatLoadShortD16: case Opc::kFlatLoadShortD16Hi: case Opc::kFlatLoadUshort:
    case Opc::kFlatLoadSshort: case Opc::kScratchLoadShortD16: case Opc::kScratchLoadShortD16Hi:
    case Opc::kScratchLoadUshort: case Opc::kScratchLoadSshort: return {1, 2, false, false};
    case Opc::kFlatLoadUbyte: case Opc::kFlatLoadSbyte: case Opc::kScratchLoadUbyte:
    case Opc::kScratchLoadSbyte: return {1, 1, false, false};
    case Opc::kFlatStoreDword: case Opc::kScratchStoreDword: return {1, 4, false, true};
    case Opc::kFlatStoreDwordx2: case Opc::kScratchStoreDwordx2: return {2, 4, false, true};
    case Opc::kFlatStoreDwordx3: case Opc::kScratchStoreDwordx3: return {3, 4, false, true};
    case Opc::kFlatStoreDwordx4: case Opc::kScratchStoreDwordx4: return {4, 4, false, true};
    case Opc::kFlatStoreShort: case Opc::kFlatStoreShortD16Hi: case Opc::kScratchStoreShort:
    case Opc::kScratchStoreShortD16Hi: return {1, 2, false, true};
    case Opc::kFlatStoreByte: case Opc::kScratchStoreByte: return {1, 1, false, true};
    case Opc::kDsReadB32: return {1, 4, true, false};
    case Opc::kDsReadB64: case Opc::kDsReadB64TrB16: return {2, 4, true, false};
    case Opc::kBufferLoadDwordx4Lds: case Opc::kGlobalLoadLdsDwordx4: return {4, 4, false, false, 1, 0, /*lds_dma=*/true};
    case Opc::kDsReadB96: return {3, 4, true, false};
    case Opc::kDsReadB128: return {4, 4, true, false};
    case Opc::kDsReadU16D16: case Opc::kDsReadU16D16Hi: case Opc::kDsReadU16: case Opc::kDsReadI16:
      return {1, 2, true, false};
    case Opc::kDsReadU8: case Opc::kDsReadI8: return {1, 1, true, false};
    case Opc::kDsWriteB32: return {1, 4, true, true};
    case Opc::kDsWriteB64: return {2, 4, true, true};
    case Opc::kDsWriteB96: return {3, 4, true, true};
    case Opc::kDsWriteB128: return {4, 4, true, true};
    case Opc::kDsWriteB16: case Opc::kDsWriteB16D16Hi: return {1, 2, true, true};
    case Opc::kDsWriteB8: return {1, 1, true, true};
    // read2/write2: units of the element, 64 elements for st64 (opcodes.def).
    case Opc::kDsRead2B32: return {2, 4, true, false, 2, 4};
    case Opc::kDsRead2B64: return {4, 4, true, false, 2, 8};
    case Opc::kDsRead2st64B32: return {2, 4, true, false, 2, 4 * 64};
    case Opc::kDsRead2st64B64: return {4, 4, true, false, 2, 8 * 64};
    case Opc::kDsWrite2B32: return {2, 4, true, true, 2, 4};
    case Opc::kDsWrite2B64: return {4, 4, true, true, 2, 8};
    case Opc::kDsWrite2st64B32: return {2, 4, true, true, 2, 4 * 64};
    case Opc::kDsWrite2st64B64: return {4, 4, true, true, 2, 8 * 64};
    default: return {};
  }
}

MemExt SubDwordExt(Opc o) {
  const SegmentTwins tw = SegmentTwinsOf(o);  // flat_*/scratch_*/ds_* as their global_* twin
  if (tw.global != Opc::kNumOpcodes) o = tw.global;
  switch (o) {
    case Opc::kBufferLoadUbyte: case Opc::kGlobalLoadUbyte: case Opc::kDsReadU8:
    case Opc::kBufferLoadUshort: case Opc::kGlobalLoadUshort: case Opc::kDsReadU16: return MemExt::kZero;
    case Opc::kBufferLoadSbyte: case Opc::kGlobalLoadSbyte: case Opc::kDsReadI8:
    case Opc::kBufferLoadSshort: case Opc::kGlobalLoadSshort: case Opc::kDsReadI16: return MemExt::kSign;
    case Opc::kBufferLoadShortD16: case Opc::kGlobalLoadShortD16: case Opc::kDsReadU16D16:
    case Opc::kBufferStoreByte: case Opc::kGlobalStoreByte: case Opc::kDsWriteB8:
    case Opc::kBufferStoreShort: case Opc::kGlobalStoreShort: case Opc::kDsWriteB16: return MemExt::kD16Lo;
    case Opc::kBufferLoadShortD16Hi: case Opc::kGlobalLoadShortD16Hi: case Opc::kDsReadU16D16Hi:
    case Opc::kBufferStoreShortD16Hi: case Opc::kGlobalStoreShortD16Hi: case Opc::kDsWriteB16D16Hi:
      return MemExt::kD16Hi;
    default: return MemExt::kNone;
  }
}
}  // namespace

MemShape MemoryShape(Opc o) {
  MemShape s = WholeShape(o);
  s.ext = SubDwordExt(o);
  return s;
}

const char* RegClassPrefix(RegClass cls) {
  return cls == RegClass::kVgpr ? "v" : cls == RegClass::kSgpr ? "s" : "a";
}

bool RegClassFromPrefix(char c, RegClass* cls) {
  switch (c) {
    case 'v': *cls = RegClass::kVgpr; return true;
    case 's': *cls = RegClass::kSgpr; return true;
    case 'a': *cls = RegClass::kAgpr; return true;
    default: return false;
  }
}

std::string RegName(RegClass cls, int index, int count) {
  const char* p = RegClassPrefix(cls);
  if (count == 1) return p + std::to_string(index);
  return std::string(p) + "[" + std::to_string(index) + ":" + std::to_string(index + count - 1) +
         "]";
}

std::string VopModifiersText(const VopModifiers& m) {
  static const char* const kSel[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
  static const char* const kUnused[] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};
  std::string s;
  if (m.sdwa) {
    s += std::string(" dst_sel:") + kSel[static_cast<int>(m.dst_sel)] + " dst_unused:" +
         kUnused[static_cast<int>(m.dst_unused)];
    for (int k = 0; k < 2; ++k) {
      s += std::string(" src") + static_cast<char>('0' + k) + "_sel:" + kSel[static_cast<int>(m.src_sel[k])];
      if (m.src_sext[k]) s += std::string(" src") + static_cast<char>('0' + k) + "_sext";
    }
  }
  if (m.clamp) s += " clamp";
  return s;
}

}  // namespace kir
