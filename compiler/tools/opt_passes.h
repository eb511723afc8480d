// `kirc opt`: runs named passes of the pipeline on assembly text, as LLVM's
// `llc -run-pass=NAME` runs one pass on MIR, so a pass is tested on a few
// lines of input written for the rule at hand (compiler/passes/tests/*.s,
// checked with FileCheck) instead of on MIR built in C++.
//
// The input is one function in the assembly kirc prints (or llvm-objdump -d
// output) or in printed MIR on virtual registers (PrintMir: `%v12` operands
// and `.vreg` declarations, compiler/isa/asm_syntax.h), read by the
// emulator's reader (hw/emu/asm_reader.h, ReadOptions::virtual_registers): a
// label line ("NAME:") opens the function, ".L" labels are branch targets,
// other directives are skipped. Every MIR pass of the pipeline but `lower`
// and `resources` runs on it: schedule, ds-pairing (without an access map:
// reads only), regalloc, waitcnt, hazards and xnack-clauses (which, as in
// the compile pipeline, changes nothing for an xnack- target ID). Input
// without virtual registers is first assembled by LLVM 22's assembler in
// process (compiler/object/llvm_in_process.h), so that an instruction it
// refuses (an operand missing, extra, of the wrong class or not valid on the
// target, a label defined twice) is an error with its line and column instead
// of being read leniently by the emulator's reader. The output is
// the function again, one instruction per line in kirc's syntax, with the
// labels branches use (under their own names; others are dropped) and, while
// registers are virtual, the `.vreg` lines.
#ifndef KIRC_COMPILER_TOOLS_OPT_PASSES_H_
#define KIRC_COMPILER_TOOLS_OPT_PASSES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kir {

// The passes `kirc opt` runs, in pipeline order.
const std::vector<std::string>& OptPassNames();

// Runs `passes` (names from OptPassNames, in the order given; a pass may
// repeat) on the single function of `asm_text` for target ID `target_id`,
// checking the MIR (compiler/isa/mir_verifier.h) before the first pass and
// after each. Returns the function's text afterwards. `filename` prefixes
// error positions. Errors: InvalidArgument for an unknown target ID or pass
// name (listing the valid ones; a pass of the pipeline that works on KIR says
// so), assembly LLVM 22's assembler refuses ("FILE:LINE:COL: error: ..."),
// text the reader refuses (with the line), a malformed `.vreg` line (a fixed
// register outside its file or misaligned included) or
// an operand outside its declaration (with the line), no function or several, an instruction with a modifier kirc's MIR does not carry (neg,
// abs, op_sel, clamp, omod, SDWA, saddr, cbsz/abid/blgp; naming the line),
// MIR the verifier refuses, or a pass's own error.
absl::StatusOr<std::string> RunPassesOnAssembly(absl::string_view asm_text, absl::string_view target_id,
                                                const std::vector<std::string>& passes,
                                                absl::string_view filename = "<stdin>");

}  // namespace kir

#endif  // KIRC_COMPILER_TOOLS_OPT_PASSES_H_
