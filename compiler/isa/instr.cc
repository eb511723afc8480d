#include "compiler/isa/instr.h"

#include <string>

namespace kir {
namespace {

const OpcInfo kInfos[] = {
#define KIRC_OPC(name, mnemonic, cls, defs, flags) {mnemonic, InstClass::cls, defs, flags},
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

int MFunction::NewVReg(RegClass cls, int count, int align) {
  vregs.push_back(VReg{cls, count, align, -1});
  return static_cast<int>(vregs.size()) - 1;
}

std::string RegName(RegClass cls, int index, int count) {
  const char* p = cls == RegClass::kVgpr ? "v" : cls == RegClass::kSgpr ? "s" : "a";
  if (count == 1) return p + std::to_string(index);
  return std::string(p) + "[" + std::to_string(index) + ":" + std::to_string(index + count - 1) +
         "]";
}

}  // namespace kir
