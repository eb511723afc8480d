#include "compiler/isa/mir_verifier.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/isa/cfg.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/operands.h"

namespace kir {

int TupleAlignment(const TargetInfo& t, RegClass c, int count) {
  if (count < 2) return 1;
  if (c == RegClass::kSgpr) return count >= 4 ? 4 : 2;
  return t.even_aligned_tuples ? 2 : 1;
}

namespace {

constexpr int kMaxProblems = 8;

int FileSize(const TargetInfo& t, RegClass c);
const char* ClassName(RegClass c);

}  // namespace

absl::Status CheckFixedRegister(const TargetInfo& t, const VReg& v) {
  const int size = FileSize(t, v.cls);
  if (v.fixed < 0 || v.fixed + v.count > size)
    return absl::InvalidArgumentError(absl::StrCat("fixed ", v.fixed, " with ", v.count, " registers lies outside the ",
                                                   size, " ", ClassName(v.cls), "s of ", t.name));
  const int align = std::max(v.align, TupleAlignment(t, v.cls, v.count));
  if (v.fixed % align != 0)
    return absl::InvalidArgumentError(
        absl::StrCat("fixed ", v.fixed, " is not a multiple of ", align, " (the alignment of ", v.count, " ",
                     ClassName(v.cls), "s", v.align > 1 ? " and of its align" : "", " on ", t.name, ")"));
  return absl::OkStatus();
}

namespace {

int FileSize(const TargetInfo& t, RegClass c) {
  switch (c) {
    case RegClass::kVgpr: return t.max_arch_vgprs;
    case RegClass::kAgpr: return t.max_agprs;
    case RegClass::kSgpr: return t.max_sgprs;
  }
  return 0;
}

const char* ClassName(RegClass c) {
  return c == RegClass::kVgpr ? "VGPR" : c == RegClass::kSgpr ? "SGPR" : "AGPR";
}

class Verifier {
 public:
  // A virtual register as PrintMir names it: %v12, %s3, %a0.
  std::string Virt(int reg) const {
    if (reg < 0 || reg >= static_cast<int>(f_.vregs.size())) return absl::StrCat("%", reg);
    RegClass c = f_.vregs[reg].cls;
    return absl::StrCat("%", RegClassPrefix(c), reg);
  }

  Verifier(const TargetInfo& t, const MFunction& f, MirForm form) : t_(t), f_(f), form_(form) {}

  absl::Status Run() {
    CheckInstructions();
    for (size_t v = 0; v < f_.vregs.size(); ++v)
      if (f_.vregs[v].fixed >= 0 && f_.vregs[v].count > 0)
        if (absl::Status s = CheckFixedRegister(t_, f_.vregs[v]); !s.ok())
          Problem(-1, absl::StrCat("virtual register ", Virt(static_cast<int>(v)), ": ", s.message()));
    absl::StatusOr<std::vector<BasicBlock>> cfg = BuildCfg(f_);
    if (!cfg.ok()) {
      Problem(-1, absl::StrCat("malformed control flow: ", cfg.status().message()));
    } else if (f_.cfg_valid && !SameCfg(f_.blocks, *cfg)) {
      Problem(-1, "the kept CFG (MFunction::blocks) differs from the instructions' control flow: the last pass "
                  "changed the instructions without RenumberBlocks or InvalidateCfg");
    } else if (form_ == MirForm::kVirtual && problems_.empty()) {
      CheckDefinedBeforeUse(*cfg);
    }
    if (problems_.empty()) return absl::OkStatus();
    std::string msg = absl::StrCat(problems_.size() >= kMaxProblems ? "at least " : "", problems_.size(),
                                   " problem(s) in the MIR: ", absl::StrJoin(problems_, "; "));
    return absl::InvalidArgumentError(msg);
  }

 private:
  void Problem(int i, const std::string& what) {
    if (static_cast<int>(problems_.size()) >= kMaxProblems) return;
    if (i < 0) {
      problems_.push_back(what);
    } else {
      problems_.push_back(absl::StrCat("instruction ", i, " `", InstructionText(t_, f_.insts[i]), "`: ", what));
    }
  }

  void CheckInstructions() {
    const int n = static_cast<int>(f_.insts.size());
    if (n == 0) {
      Problem(-1, "the function has no instructions (it must end with s_endpgm)");
      return;
    }
    const Opc last = f_.insts.back().opc;
    if (last != Opc::kSEndpgm && last != Opc::kSBranch)
      Problem(n - 1, "the function's last instruction must be s_endpgm or s_branch (control falls off the end)");
    for (int i = 0; i < n; ++i) {
      const MInst& mi = f_.insts[i];
      const OpcInfo& info = Info(mi.opc);
      if (static_cast<int>(mi.opc) >= static_cast<int>(Opc::kNumOpcodes)) {
        Problem(i, "unknown opcode");
        continue;
      }
      if (static_cast<int>(mi.ops.size()) < mi.NumDefs()) {
        Problem(i, absl::StrCat("has ", mi.ops.size(), " operands but ", mi.NumDefs(), " definitions"));
        continue;
      }
      for (int d = 0; d < mi.NumDefs(); ++d)
        if (mi.ops[d].kind == MOperand::Kind::kImm)
          Problem(i, absl::StrCat("definition operand ", d, " is an immediate"));
      if (mi.opc == Opc::kLabel || (info.flags & kBranch)) {
        const MOperand* target = FindOperand(mi, OpName::kTarget);
        if (target == nullptr || target->kind != MOperand::Kind::kImm)
          Problem(i, "a label or branch needs an immediate label id as operand 0");
      }
      if (mi.opc == Opc::kSWaitcnt) {
        absl::Status w = ValidateWaitcnt(t_, mi);
        if (!w.ok()) Problem(i, std::string(w.message()));
      }
      const MOperand& simm16 = OperandOr0(mi, OpName::kSimm16);
      if (mi.opc == Opc::kSNop &&
          (mi.ops.size() != 1 || simm16.kind != MOperand::Kind::kImm || simm16.imm < 0 || simm16.imm > 15))
        Problem(i, "s_nop needs one immediate in 0..15");
      if (info.cls == InstClass::kMfma && mi.mfma == nullptr) Problem(i, "v_mfma without its MfmaDesc");
      if (info.cls == InstClass::kMfma && mi.mfma != nullptr) CheckMfma(i, mi);
      CheckOffsets(i, mi);
      for (size_t o = 0; o < mi.ops.size(); ++o) CheckRegister(i, o, mi.ops[o]);
    }
  }

  // MFMA operand widths from its descriptor (vdst and srcC: cd_width
  // registers, srcA/srcB: ab_regs), on gfx908 vdst and a register srcC in
  // AGPRs (TargetInfo::mfma_acc_in_agprs), elsewhere both of one class.
  void CheckMfma(int i, const MInst& mi) {
    const MfmaDesc& d = *mi.mfma;
    const struct {
      OpName name;
      const char* what;
      int regs;
    } want[] = {{OpName::kVdst, "vdst", d.cd_width},
                {OpName::kSrc0, "srcA", d.ab_regs()},
                {OpName::kSrc1, "srcB", d.ab_regs()},
                {OpName::kSrc2, "srcC", d.cd_width}};
    for (const auto& w : want) {
      const MOperand* op = FindOperand(mi, w.name);
      if (op == nullptr) {
        Problem(i, absl::StrCat("the MFMA has no ", w.what, " operand"));
        continue;
      }
      if (!op->IsReg()) {
        if (w.name == OpName::kSrc2 && op->kind == MOperand::Kind::kImm) continue;  // inline constant srcC
        if (w.name == OpName::kVdst || w.name == OpName::kSrc2 || op->kind != MOperand::Kind::kImm)
          Problem(i, absl::StrCat("the MFMA's ", w.what, " must be a register"));
        continue;
      }
      if (op->count != w.regs)
        Problem(i, absl::StrCat("the MFMA's ", w.what, " covers ", op->count, " registers; ", d.kir_name, " takes ",
                                w.regs));
      if (t_.mfma_acc_in_agprs && (w.name == OpName::kVdst || w.name == OpName::kSrc2) &&
          op->cls != RegClass::kAgpr)
        Problem(i, absl::StrCat("the MFMA's ", w.what, " must be AGPRs on ", t_.name));
    }
    // One acc_cd bit selects the class of vdst and srcC together (gfx90a/942).
    const MOperand* vdst = FindOperand(mi, OpName::kVdst);
    const MOperand* srcc = FindOperand(mi, OpName::kSrc2);
    if (vdst != nullptr && srcc != nullptr && vdst->IsReg() && srcc->IsReg() && vdst->cls != srcc->cls)
      Problem(i, "the MFMA's vdst and srcC must be the same register class (both VGPRs or both AGPRs)");
  }

  // Offset fields within their encodings' widths (encoding.h): llvm-mc 22
  // silently encodes a MUBUF offset of 4096 as 0.
  void CheckOffsets(int i, const MInst& mi) {
    const InstClass cls = Info(mi.opc).cls;
    if (Info(mi.opc).layout == OperandLayout::kMubufLayout && (mi.offset < 0 || mi.offset > kMubufMaxOffset))
      Problem(i, absl::StrCat("MUBUF offset ", mi.offset, " is outside 0..", kMubufMaxOffset,
                              " (12 bits): add the rest to soffset or vaddr"));
    if (IsDs(cls)) {
      if (MemoryShape(mi.opc).addrs == 2) {
        for (int v : {mi.offset0, mi.offset1})
          if (v < 0 || v > kDs2MaxOffset)
            Problem(i, absl::StrCat("DS offset0/offset1 ", v, " is outside 0..", kDs2MaxOffset, " (8 bits, in units)"));
      } else if (mi.offset < 0 || mi.offset > kDsMaxOffset) {
        Problem(i, absl::StrCat("DS offset ", mi.offset, " is outside 0..", kDsMaxOffset, " (16 bits)"));
      }
    }
  }

  void CheckRegister(int i, size_t o, const MOperand& op) {
    if (!op.IsReg()) return;
    if (op.count < 1) {
      Problem(i, absl::StrCat("operand ", o, " covers ", op.count, " registers"));
      return;
    }
    if (op.is_virtual) {
      if (form_ == MirForm::kPhysical) {
        Problem(i, absl::StrCat("operand ", o, " is still the virtual register ", Virt(op.reg), " after register allocation"));
        return;
      }
      if (op.reg < 0 || op.reg >= static_cast<int>(f_.vregs.size())) {
        Problem(i, absl::StrCat("operand ", o, " names virtual register %", op.reg, ", which does not exist (",
                                f_.vregs.size(), " virtual registers)"));
        return;
      }
      const VReg& v = f_.vregs[op.reg];
      if (v.cls != op.cls)
        Problem(i, absl::StrCat("operand ", o, " uses ", Virt(op.reg), " as a ", ClassName(op.cls), " but it is a ",
                                ClassName(v.cls)));
      if (op.sub < 0 || op.sub + op.count > v.count)
        Problem(i, absl::StrCat("operand ", o, " covers registers ", op.sub, "..", op.sub + op.count - 1, " of ",
                                Virt(op.reg), ", which has ", v.count));
      return;
    }
    const int size = FileSize(t_, op.cls);
    if (op.reg < 0 || op.reg + op.count > size) {
      Problem(i, absl::StrCat("operand ", o, " ", RegName(op.cls, op.reg, op.count), " lies outside the ", size,
                              " ", ClassName(op.cls), "s of ", t_.name));
      return;
    }
    const int align = TupleAlignment(t_, op.cls, op.count);
    if (op.reg % align != 0)
      Problem(i, absl::StrCat("operand ", o, " ", RegName(op.cls, op.reg, op.count), ": a tuple of ", op.count, " ",
                              ClassName(op.cls), "s must start at a multiple of ", align, " on ", t_.name));
  }

  // Must-defined analysis over the CFG: a virtual register (its root tuple)
  // is defined at a point when every path from the entry writes it.
  void CheckDefinedBeforeUse(const std::vector<BasicBlock>& cfg) {
    const int nv = static_cast<int>(f_.vregs.size());
    std::vector<bool> entry(nv, false);
    for (int v = 0; v < nv; ++v)
      if (f_.vregs[v].fixed >= 0) entry[f_.Root(v).first] = true;
    auto transfer = [&](int b, const std::vector<bool>& in) {
      std::vector<bool> s = in;
      for (int i = cfg[b].begin; i < cfg[b].end; ++i) Step(i, s, /*report=*/false);
      return s;
    };
    auto join = [](std::vector<bool>& into, const std::vector<bool>& from) {
      bool changed = false;
      for (size_t v = 0; v < into.size(); ++v)
        if (into[v] && !from[v]) {
          into[v] = false;
          changed = true;
        }
      return changed;
    };
    absl::StatusOr<std::vector<std::optional<std::vector<bool>>>> in =
        ForwardDataflow(cfg, entry, static_cast<int64_t>(nv) + 1, "MIR verifier", transfer, join);
    if (!in.ok()) {
      Problem(-1, std::string(in.status().message()));
      return;
    }
    for (size_t b = 0; b < cfg.size(); ++b) {
      if (!(*in)[b]) continue;  // unreachable
      std::vector<bool> s = *(*in)[b];
      for (int i = cfg[b].begin; i < cfg[b].end; ++i) Step(i, s, /*report=*/true);
    }
  }

  void Step(int i, std::vector<bool>& defined, bool report) {
    const MInst& mi = f_.insts[i];
    // A tied def (a d16 load keeps half of its register) is not a read that
    // must follow a write here: it defines the register too.
    const RegAccesses accesses = CollectRegAccesses(mi, kExplicitAccesses, &f_);
    for (const RegAccess& a : accesses) {
      if (!a.is_virtual || a.def) continue;
      const int own = mi.ops[a.op].reg;
      if (report && !defined[a.root])
        Problem(i, absl::StrCat("reads ", Virt(own), a.root != own ? absl::StrCat(" (a view of ", Virt(a.root), ")") : "",
                                ", which is not written on every path from the entry"));
    }
    for (const RegAccess& a : accesses)
      if (a.is_virtual && a.def) defined[a.root] = true;
  }

  const TargetInfo& t_;
  const MFunction& f_;
  MirForm form_;
  std::vector<std::string> problems_;
};

}  // namespace

absl::Status VerifyMir(const TargetInfo& t, const MFunction& f, MirForm form) {
  return Verifier(t, f, form).Run();
}

}  // namespace kir
