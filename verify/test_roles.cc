#include "verify/test_roles.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/isa/asm_syntax.h"

namespace kir::vfy::testing {

absl::StatusOr<size_t> FindInst(const MFunction& f, absl::string_view prefix, int n) {
  int seen = 0;
  for (size_t i = 0; i < f.insts.size(); ++i)
    if (absl::StartsWith(Info(f.insts[i].opc).mnemonic, prefix) && seen++ == n) return i;
  return absl::NotFoundError(absl::StrCat("the code has ", seen, " instruction(s) whose mnemonic starts with '", prefix,
                                          "', no number ", n, " (from 0)"));
}

absl::StatusOr<size_t> FindDef(const MFunction& f, size_t use, OpName op) {
  if (use >= f.insts.size()) return absl::NotFoundError(absl::StrCat("no instruction ", use));
  RegAccess r;
  if (!NamedRegAccess(f.insts[use], op, &r, &f))
    return absl::NotFoundError(absl::StrCat("instruction ", use, " (", Info(f.insts[use].opc).mnemonic, ") has no register ",
                                            OpNameText(op)));
  for (size_t i = use; i-- > 0;)
    for (const RegAccess& a : CollectRegAccesses(f.insts[i], kAllAccesses, &f))
      if (a.def && Overlap(a, r)) return i;
  return absl::NotFoundError(absl::StrCat("nothing before instruction ", use, " (", Info(f.insts[use].opc).mnemonic,
                                          ") writes its ", OpNameText(op), " ", RegAccessName(r)));
}

absl::StatusOr<size_t> FindDefOfPart(const MFunction& f, size_t use, OpName op, int k) {
  if (use >= f.insts.size()) return absl::NotFoundError(absl::StrCat("no instruction ", use));
  RegAccess r;
  if (!NamedRegAccess(f.insts[use], op, &r, &f) || k < 0 || k >= r.count)
    return absl::NotFoundError(absl::StrCat("instruction ", use, " (", Info(f.insts[use].opc).mnemonic, ") has no register ",
                                            k, " of ", OpNameText(op)));
  r.lo += k;
  r.count = 1;
  for (size_t i = use; i-- > 0;)
    for (const RegAccess& a : CollectRegAccesses(f.insts[i], kAllAccesses, &f))
      if (a.def && Overlap(a, r)) return i;
  return absl::NotFoundError(absl::StrCat("nothing before instruction ", use, " (", Info(f.insts[use].opc).mnemonic,
                                          ") writes register ", k, " of its ", OpNameText(op), ", ", RegAccessName(r)));
}

absl::StatusOr<size_t> FindLastDef(const MFunction& f, size_t use, OpName op) {
  if (use >= f.insts.size()) return absl::NotFoundError(absl::StrCat("no instruction ", use));
  RegAccess r;
  if (!NamedRegAccess(f.insts[use], op, &r, &f))
    return absl::NotFoundError(absl::StrCat("instruction ", use, " (", Info(f.insts[use].opc).mnemonic, ") has no register ",
                                            OpNameText(op)));
  for (size_t i = f.insts.size(); i-- > 0;)
    for (const RegAccess& a : CollectRegAccesses(f.insts[i], kAllAccesses, &f))
      if (a.def && Overlap(a, r)) return i;
  return absl::NotFoundError(absl::StrCat("nothing writes the ", OpNameText(op), " ", RegAccessName(r), " of instruction ",
                                          use, " (", Info(f.insts[use].opc).mnemonic, ")"));
}

absl::StatusOr<std::string> RegName(const MInst& mi, OpName op) {
  RegAccess r;
  if (!NamedRegAccess(mi, op, &r))
    return absl::NotFoundError(absl::StrCat(Info(mi.opc).mnemonic, " has no register ", OpNameText(op)));
  return RegAccessName(r);
}

absl::StatusOr<std::string> RegList(const MInst& mi, OpName op) {
  RegAccess r;
  if (!NamedRegAccess(mi, op, &r))
    return absl::NotFoundError(absl::StrCat(Info(mi.opc).mnemonic, " has no register ", OpNameText(op)));
  std::vector<std::string> names;
  for (int k = 0; k < r.count; ++k) {
    RegAccess one = r;
    one.lo = r.lo + k;
    one.count = 1;
    names.push_back(RegAccessName(one));
  }
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<std::string> AsmLine(const std::string& assembly, const TargetInfo& t, const MInst& mi) {
  const std::string line = absl::StrCat("  ", InstructionText(t, mi), "\n");
  const size_t at = assembly.find(line);
  if (at == std::string::npos || assembly.find(line, at + 1) != std::string::npos)
    return absl::NotFoundError(absl::StrCat("the line '", line.substr(0, line.size() - 1), "' occurs ",
                                            at == std::string::npos ? "nowhere" : "more than once", " in the assembly"));
  return line;
}

}  // namespace kir::vfy::testing
