// Finding instructions and registers of kirc's code by role (the voffset of
// the first buffer load, the instruction that computes it, the loop's
// s_cmp) instead of by instruction text, for the tests that edit kirc's
// output: a register allocation change then moves the registers, not the
// tests' targets. Each finder returns NotFound naming the role when the code
// has none, so a test that ASSERTs on it fails loudly, never vacuously.
#ifndef KIRC_VERIFY_TEST_ROLES_H_
#define KIRC_VERIFY_TEST_ROLES_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/operands.h"
#include "compiler/target/target.h"

namespace kir::vfy::testing {

// Index in f.insts of the `n`-th (from 0) instruction whose mnemonic
// (Info(opc).mnemonic) starts with `prefix`, e.g. "buffer_load", "s_cmp_".
absl::StatusOr<size_t> FindInst(const MFunction& f, absl::string_view prefix, int n = 0);

// Index of the instruction that last writes a register of operand `op` of
// instruction `use`, searching back from `use` in program order (kirc's
// straight-line address code); NotFound when the operand is no register or
// nothing before `use` writes it (a kernel input such as v0 = tid).
absl::StatusOr<size_t> FindDef(const MFunction& f, size_t use, OpName op);

// As FindDef, for register `k` (from 0) of operand `op` alone: the writer of
// dword 2 of a buffer load's SRD (its num_records) is FindDefOfPart(f, load,
// OpName::kSrsrc, 2). NotFound also when the operand has no register k.
absl::StatusOr<size_t> FindDefOfPart(const MFunction& f, size_t use, OpName op, int k);

// Index of the last instruction of `f` (in program order) that writes a
// register of operand `op` of instruction `use`: for a register a loop
// carries, such as a K-loop load's soffset, its update at the loop's end.
// NotFound as FindDef.
absl::StatusOr<size_t> FindLastDef(const MFunction& f, size_t use, OpName op);

// Register operand `op` of `mi` as assembly prints it ("v4", "s[8:11]");
// NotFound when `mi` has no such register operand.
absl::StatusOr<std::string> RegName(const MInst& mi, OpName op);

// The registers of operand `op` of `mi` one by one ("v0", "v1", "v2", "v3"
// for v[0:3]), joined by ", ".
absl::StatusOr<std::string> RegList(const MInst& mi, OpName op);

// The line "  <instruction text>\n" of instruction `mi` in `assembly` (kirc's
// .s text for target `t`); NotFound unless it occurs exactly once.
absl::StatusOr<std::string> AsmLine(const std::string& assembly, const TargetInfo& t, const MInst& mi);

}  // namespace kir::vfy::testing

#endif  // KIRC_VERIFY_TEST_ROLES_H_
