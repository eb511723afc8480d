#include "compiler/tools/opt_passes.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/object/llvm_in_process.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/mir_verifier.h"
#include "compiler/isa/operands.h"
#include "compiler/passes/ds_pairing.h"
#include "compiler/passes/hazards.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/regalloc.h"
#include "compiler/passes/schedule.h"
#include "compiler/passes/waitcnt.h"
#include "compiler/passes/xnack_clauses.h"
#include "compiler/target/target.h"
#include "hw/emu/asm_reader.h"

namespace kir {
namespace {

// The modifiers of `m` that kirc's MIR does not carry ("" if none): the
// passes would drop them from the output.
// `mi` is the instruction the modifiers came with: gfx950's f8f6f4 MFMAs
// carry their operand formats (cbsz/blgp) in MInst::mfma.
std::string UncarriedModifiers(const emu::Mods& m, const MInst& mi) {
  std::vector<std::string> out;
  if (m.sdwa) out.push_back("SDWA");
  if (m.neg != 0) out.push_back("neg");
  if (m.abs != 0) out.push_back("abs");
  if (m.op_sel != 0 || m.op_sel_hi != emu::DefaultOpSelHi(mi.opc)) out.push_back("op_sel/op_sel_hi");
  if (m.neg_lo != 0 || m.neg_hi != 0) out.push_back("neg_lo/neg_hi");
  if (m.clamp) out.push_back("clamp");
  if (m.omod != 0) out.push_back("omod");
  if (m.saddr) out.push_back("an SGPR base (saddr)");
  const bool formats_carried = mi.opc == Opc::kVMfma && mi.mfma != nullptr && m.abid == 0 &&
                               mi.mfma->cbsz == m.cbsz && mi.mfma->blgp == m.blgp;
  if ((m.cbsz != 0 || m.abid != 0 || m.blgp != 0) && !formats_carried) out.push_back("cbsz/abid/blgp");
  return absl::StrJoin(out, ", ");
}

bool HasVirtualOperands(const MFunction& f) {
  for (const MInst& mi : f.insts)
    for (const MOperand& o : mi.ops)
      if (o.IsReg() && o.is_virtual) return true;
  return false;
}

absl::Status Verify(const TargetInfo& t, const MFunction& f, absl::string_view when) {
  absl::Status s = VerifyMir(t, f, HasVirtualOperands(f) ? MirForm::kVirtual : MirForm::kPhysical);
  if (s.ok()) return s;
  return absl::InvalidArgumentError(absl::StrCat("the MIR ", when, " is malformed: ", s.message()));
}

// A virtual register name "%v12" (class and id), false if `s` is not one.
bool ParseVRegName(absl::string_view s, RegClass* cls, int* id) {
  if (!absl::ConsumePrefix(&s, "%") || s.size() < 2 || !RegClassFromPrefix(s[0], cls)) return false;
  return absl::SimpleAtoi(s.substr(1), id) && *id >= 0;
}

// The `.vreg` declarations of printed MIR (VRegDeclarations in
// compiler/isa/asm_syntax.h) into f.vregs; other lines are left to the
// assembly reader, which skips directives.
absl::Status ReadVRegDeclarations(const TargetInfo& t, absl::string_view text, absl::string_view filename,
                                  MFunction& f) {
  constexpr int kMaxVRegs = 1 << 20;
  std::vector<bool> declared;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line.substr(0, std::min(line.find("//"), line.size())));
    if (!absl::ConsumePrefix(&line, ".vreg")) continue;
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(
          filename, ":", line_no, ": `.vreg", line, "`: ", why,
          "; the form is `.vreg %v3, COUNT[, align N][, fixed INDEX][, alias %v1+OFFSET]`"));
    };
    std::vector<std::string> parts = absl::StrSplit(line, ',');
    for (std::string& p : parts) p = std::string(absl::StripAsciiWhitespace(p));
    RegClass cls;
    int id = 0;
    VReg v;
    if (parts.size() < 2 || !ParseVRegName(parts[0], &cls, &id)) return bad("expected a register like %v3 and a count");
    if (id >= kMaxVRegs) return bad(absl::StrCat("register ids go up to ", kMaxVRegs - 1));
    if (!absl::SimpleAtoi(parts[1], &v.count) || v.count < 1 || v.count > 32)
      return bad("the count is 1..32 registers");
    v.cls = cls;
    for (size_t k = 2; k < parts.size(); ++k) {
      absl::string_view p = parts[k];
      if (absl::ConsumePrefix(&p, "align ")) {
        if (!absl::SimpleAtoi(p, &v.align) || v.align < 1 || v.align > 16 || (v.align & (v.align - 1)) != 0)
          return bad("align is a power of two up to 16");
      } else if (absl::ConsumePrefix(&p, "fixed ")) {
        // Its range and alignment on the target: CheckFixedRegister below.
        if (!absl::SimpleAtoi(p, &v.fixed) || v.fixed < 0) return bad("fixed is a register index");
      } else if (absl::ConsumePrefix(&p, "alias ")) {
        const size_t plus = p.find('+');
        RegClass pc;
        if (plus == absl::string_view::npos || !ParseVRegName(p.substr(0, plus), &pc, &v.alias_of) ||
            !absl::SimpleAtoi(p.substr(plus + 1), &v.alias_offset) || v.alias_offset < 0)
          return bad("alias names its parent and the offset into it, e.g. alias %v1+2");
        if (pc != cls) return bad("an alias has its parent's register class");
      } else {
        return bad(absl::StrCat("unknown field '", p, "'"));
      }
    }
    if (v.fixed >= 0) {
      if (absl::Status fs = CheckFixedRegister(t, v); !fs.ok()) return bad(fs.message());
    }
    if (static_cast<size_t>(id) >= declared.size()) {
      declared.resize(id + 1, false);
      f.vregs.resize(id + 1);
    }
    if (declared[id])
      return bad(absl::StrCat("id ", id, " is declared twice (one numbering for %v, %s and %a: %v3 and %s3 are "
                              "the same register)"));
    declared[id] = true;
    f.vregs[id] = v;
  }
  for (size_t id = 0; id < f.vregs.size(); ++id) {
    const VReg& v = f.vregs[id];
    if (!declared[id] || v.alias_of < 0) continue;
    if (static_cast<size_t>(v.alias_of) >= f.vregs.size() || !declared[v.alias_of])
      return absl::InvalidArgumentError(absl::StrCat(filename, ": .vreg %", id, " is an alias of %", v.alias_of,
                                                     ", which is not declared"));
    if (v.alias_offset + v.count > f.vregs[v.alias_of].count)
      return absl::InvalidArgumentError(absl::StrCat(filename, ": .vreg %", id, " reaches past the end of %",
                                                     v.alias_of, " (", f.vregs[v.alias_of].count, " registers)"));
  }
  // Alias chains must end (a cycle would make MFunction::Root loop).
  for (size_t id = 0; id < f.vregs.size(); ++id) {
    int v = static_cast<int>(id);
    for (size_t steps = 0; v >= 0 && f.vregs[v].alias_of >= 0; ++steps) {
      if (steps > f.vregs.size())
        return absl::InvalidArgumentError(absl::StrCat(filename, ": .vreg aliases form a cycle through id ", id));
      v = f.vregs[v].alias_of;
    }
  }
  // Undeclared ids between declared ones hold no register and must not be named.
  for (size_t id = 0; id < f.vregs.size(); ++id)
    if (!declared[id]) f.vregs[id].count = 0;
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& OptPassNames() {
  static const auto* names = new std::vector<std::string>{"schedule", "ds-pairing", "regalloc",
                                                          "waitcnt",  "hazards",    "xnack-clauses"};
  return *names;
}

absl::StatusOr<std::string> RunPassesOnAssembly(absl::string_view asm_text, absl::string_view target_id,
                                                const std::vector<std::string>& passes, absl::string_view filename) {
  absl::StatusOr<TargetId> id = ParseTargetId(target_id);
  if (!id.ok()) return absl::InvalidArgumentError(id.status().message());
  const TargetInfo& t = *id->target;
  const FeatureSetting xnack = id->xnack;
  if (passes.empty())
    return absl::InvalidArgumentError(
        absl::StrCat("no pass to run: give --run-pass=NAME[,NAME...] (", absl::StrJoin(OptPassNames(), ", "), ")"));
  for (const std::string& p : passes) {
    if (std::find(OptPassNames().begin(), OptPassNames().end(), p) != OptPassNames().end()) continue;
    bool in_pipeline = false;
    for (const PassInfo& info : PassTable()) in_pipeline = in_pipeline || p == info.name;
    if (in_pipeline)
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", p, "' works on KIR or on the whole kernel; kirc opt reads MIR or assembly "
          "and runs ", absl::StrJoin(OptPassNames(), ", "),
          " (use kirc compile --print-after=", p, " to see it)"));
    return absl::InvalidArgumentError(
        absl::StrCat("unknown pass '", p, "': kirc opt runs ", absl::StrJoin(OptPassNames(), ", ")));
  }

  MFunction f;
  if (absl::Status s = ReadVRegDeclarations(t, asm_text, filename, f); !s.ok()) return s;
  // Assembly (no virtual registers) must be what LLVM 22's assembler
  // accepts: its diagnostics name the line and column of operands that are
  // missing, extra, of the wrong class or not valid on the target, and labels
  // defined twice; the reader below is the emulator's, which is lenient.
  if (f.vregs.empty() && !absl::StrContains(asm_text, '%')) {
    absl::StatusOr<std::string> obj = AssembleInProcess(asm_text, target_id);
    if (!obj.ok())
      return absl::InvalidArgumentError(absl::StripTrailingAsciiWhitespace(
          absl::StrReplaceAll(obj.status().message(), {{"<stdin>:", absl::StrCat(filename, ":")}})));
  }
  emu::ReadOptions read_options;
  read_options.virtual_registers = true;
  absl::StatusOr<emu::AsmText> text = emu::ReadAssembly(asm_text, t, read_options);
  if (!text.ok()) return absl::Status(text.status().code(), absl::StrCat(filename, ": ", text.status().message()));
  if (text->functions.size() != 1) {
    std::vector<std::string> names;
    for (const auto& [name, prog] : text->functions) names.push_back(name);
    return absl::InvalidArgumentError(absl::StrCat(
        filename, ": kirc opt takes one function (a line 'NAME:' followed by its instructions); found ",
        text->functions.empty() ? "none" : absl::StrCat(names.size(), ": ", absl::StrJoin(names, ", "))));
  }
  const std::string& name = text->functions.begin()->first;
  const emu::Program& prog = text->functions.begin()->second;

  // The labels branches use become label pseudo-instructions (ids in source
  // order), printed again with their own names.
  std::map<std::string, int> label_of;  // name -> label id
  std::vector<std::string> label_names;  // label id -> name
  std::map<int, std::vector<int>> labels_at;  // instruction index -> label ids
  std::set<std::string> used;  // the labels branches name
  for (const emu::Inst& in : prog.insts)
    if (in.target >= 0 && !in.target_label.empty()) used.insert(in.target_label);
  for (const auto& [label, index] : prog.labels) {
    if (!used.count(label) || label_of.count(label)) continue;
    label_of[label] = static_cast<int>(label_names.size());
    labels_at[index].push_back(static_cast<int>(label_names.size()));
    label_names.push_back(label);
  }
  for (size_t i = 0; i <= prog.insts.size(); ++i) {
    if (auto it = labels_at.find(static_cast<int>(i)); it != labels_at.end()) {
      for (int id : it->second) {
        MInst label;
        label.opc = Opc::kLabel;
        label.ops = {MOperand::Imm(id)};
        f.insts.push_back(label);
      }
    }
    if (i == prog.insts.size()) break;
    const emu::Inst& in = prog.insts[i];
    if (std::string m = UncarriedModifiers(in.mods, in.mi); !m.empty())
      return absl::InvalidArgumentError(absl::StrCat(filename, ":", in.line, ": `", in.text, "` has ", m,
                                                     ", which kirc's MIR does not carry: kirc opt reads the "
                                                     "instructions kirc emits"));
    MInst mi = in.mi;
    for (const MOperand& o : mi.ops)
      if (o.IsReg() && o.is_virtual &&
          (o.reg >= static_cast<int>(f.vregs.size()) || f.vregs[o.reg].count == 0 || f.vregs[o.reg].cls != o.cls ||
           o.sub + o.count > f.vregs[o.reg].count))
      {
        const bool declared = o.reg < static_cast<int>(f.vregs.size()) && f.vregs[o.reg].count > 0;
        std::string why =
            !declared ? "a virtual register without a .vreg declaration"
            : f.vregs[o.reg].cls != o.cls
                ? absl::StrCat("%", RegClassPrefix(o.cls), o.reg, " names id ", o.reg, ", which .vreg declares as %",
                               RegClassPrefix(f.vregs[o.reg].cls), o.reg, " (one numbering for %v, %s and %a)")
                : absl::StrCat("the operand does not fit its .vreg declaration (", f.vregs[o.reg].count,
                               " registers)");
        return absl::InvalidArgumentError(absl::StrCat(filename, ":", in.line, ": `", in.text, "`: ", why));
      }
    if (Info(mi.opc).flags & kBranch) {
      auto it = label_of.find(in.target_label);
      if (in.target < 0 || it == label_of.end())
        return absl::InvalidArgumentError(
            absl::StrCat(filename, ":", in.line, ": `", in.text, "`: a branch to an address, not a label"));
      if (mi.ops.empty()) mi.ops.push_back(MOperand::Imm(0));
      *FindOperand(mi, OpName::kTarget) = MOperand::Imm(it->second);
    }
    mi.id = f.next_inst_id++;
    f.insts.push_back(std::move(mi));
  }
  if (absl::Status s = Verify(t, f, "read from the input"); !s.ok())
    return absl::Status(s.code(), absl::StrCat(filename, ": ", s.message()));

  for (const std::string& p : passes) {
    absl::Status s;
    if (p == "schedule") {
      s = ScheduleBlocks(t, f);
    } else if (p == "ds-pairing") {
      s = PairDsAccesses(f, /*access_map=*/nullptr);
    } else if (p == "regalloc") {
      s = AllocateRegisters(t, f).status();
    } else if (p == "waitcnt") {
      s = InsertWaitcnts(t, f);
    } else if (p == "hazards") {
      s = InsertHazardNops(t, f);
    } else if (xnack != FeatureSetting::kOff) {  // as the compile pipeline: xnack- keeps its clauses
      s = BreakXnackSoftClauses(f);
    }
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(filename, ": ", p, ": ", s.message()));
    if (absl::Status v = Verify(t, f, absl::StrCat("after ", p)); !v.ok())
      return absl::InternalError(absl::StrCat(filename, ": ", v.message(), " (a kirc bug)"));
  }

  // Labels and branch targets print with their input names; labels indented
  // as PrintMir indents them, so a replay compares equal to --stop-after.
  std::string out = absl::StrCat(name, ":\n", VRegDeclarations(f));
  for (const MInst& mi : f.insts) {
    const bool is_label = mi.opc == Opc::kLabel, is_branch = (Info(mi.opc).flags & kBranch) != 0;
    if (!is_label && !is_branch) {
      absl::StrAppend(&out, "  ", InstructionText(t, mi), "\n");
      continue;
    }
    const int64_t id = LabelId(mi);
    if (id < 0 || id >= static_cast<int64_t>(label_names.size()))
      return absl::InternalError(
          absl::StrCat("kirc opt: label id ", id, " without a name in `", InstructionText(t, mi), "` (a kirc bug)"));
    const std::string& label = label_names[static_cast<size_t>(id)];
    absl::StrAppend(&out, is_label ? absl::StrCat("  ", label, ":") : absl::StrCat("  ", Info(mi.opc).mnemonic, " ", label),
                    "\n");
  }
  return out;
}

}  // namespace kir
