#include "compiler/tools/opt_passes.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/mir_verifier.h"
#include "compiler/isa/operands.h"
#include "compiler/passes/hazards.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/waitcnt.h"
#include "compiler/passes/xnack_clauses.h"
#include "compiler/target/target.h"
#include "hw/emu/asm_reader.h"

namespace kir {
namespace {

// The modifiers of `m` that kirc's MIR does not carry ("" if none): the
// passes would drop them from the output.
std::string UncarriedModifiers(const emu::Mods& m) {
  std::vector<std::string> out;
  if (m.sdwa) out.push_back("SDWA");
  if (m.neg != 0) out.push_back("neg");
  if (m.abs != 0) out.push_back("abs");
  if (m.op_sel != 0 || m.op_sel_hi != 0x7) out.push_back("op_sel/op_sel_hi");
  if (m.neg_lo != 0 || m.neg_hi != 0) out.push_back("neg_lo/neg_hi");
  if (m.clamp) out.push_back("clamp");
  if (m.omod != 0) out.push_back("omod");
  if (m.saddr) out.push_back("an SGPR base (saddr)");
  if (m.cbsz != 0 || m.abid != 0 || m.blgp != 0) out.push_back("cbsz/abid/blgp");
  return absl::StrJoin(out, ", ");
}

absl::Status Verify(const TargetInfo& t, const MFunction& f, absl::string_view when) {
  absl::Status s = VerifyMir(t, f, MirForm::kPhysical);
  if (s.ok()) return s;
  return absl::InvalidArgumentError(absl::StrCat("the MIR ", when, " is malformed: ", s.message()));
}

}  // namespace

const std::vector<std::string>& OptPassNames() {
  static const auto* names = new std::vector<std::string>{"waitcnt", "hazards", "xnack-clauses"};
  return *names;
}

absl::StatusOr<std::string> RunPassesOnAssembly(absl::string_view asm_text, absl::string_view target_id,
                                                const std::vector<std::string>& passes, absl::string_view filename) {
  absl::StatusOr<const TargetInfo*> target = LookupTarget(target_id);
  if (!target.ok()) return absl::InvalidArgumentError(target.status().message());
  const TargetInfo& t = **target;
  if (passes.empty())
    return absl::InvalidArgumentError(
        absl::StrCat("no pass to run: give --run-pass=NAME[,NAME...] (", absl::StrJoin(OptPassNames(), ", "), ")"));
  for (const std::string& p : passes) {
    if (std::find(OptPassNames().begin(), OptPassNames().end(), p) != OptPassNames().end()) continue;
    bool in_pipeline = false;
    for (const PassInfo& info : PassTable()) in_pipeline = in_pipeline || p == info.name;
    if (in_pipeline)
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", p, "' works on KIR or on virtual registers; kirc opt reads assembly "
          "on physical registers and runs ", absl::StrJoin(OptPassNames(), ", "),
          " (use kirc compile --print-after=", p, " to see it)"));
    return absl::InvalidArgumentError(
        absl::StrCat("unknown pass '", p, "': kirc opt runs ", absl::StrJoin(OptPassNames(), ", ")));
  }

  absl::StatusOr<emu::AsmText> text = emu::ReadAssembly(asm_text, t);
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
  MFunction f;
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
    if (std::string m = UncarriedModifiers(in.mods); !m.empty())
      return absl::InvalidArgumentError(absl::StrCat(filename, ":", in.line, ": `", in.text, "` has ", m,
                                                     ", which kirc's MIR does not carry: kirc opt reads the "
                                                     "instructions kirc emits"));
    MInst mi = in.mi;
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
    if (p == "waitcnt") {
      s = InsertWaitcnts(t, f);
    } else if (p == "hazards") {
      s = InsertHazardNops(t, f);
    } else {
      s = BreakXnackSoftClauses(f);
    }
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(filename, ": ", p, ": ", s.message()));
    if (absl::Status v = Verify(t, f, absl::StrCat("after ", p)); !v.ok())
      return absl::InternalError(absl::StrCat(filename, ": ", v.message(), " (a kirc bug)"));
  }

  // Labels and branch targets print with their input names.
  std::string out = absl::StrCat(name, ":\n");
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
    absl::StrAppend(&out, is_label ? absl::StrCat(label, ":") : absl::StrCat("  ", Info(mi.opc).mnemonic, " ", label),
                    "\n");
  }
  return out;
}

}  // namespace kir
