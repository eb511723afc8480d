// Instructions and MIR as text, in LLVM's assembly syntax (what llvm-mc 22
// accepts and llvm-objdump prints); amdgcn-isa-notes.md.
#ifndef KIRC_COMPILER_ISA_ASM_SYNTAX_H_
#define KIRC_COMPILER_ISA_ASM_SYNTAX_H_

#include <string>

#include "absl/strings/string_view.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

// One instruction in LLVM syntax, e.g. "buffer_load_dwordx2 v[2:3], v1, s[4:7], 0 offen offset:8".
// Branch targets and labels are named `label_prefix` + label id (a label
// pseudo-instruction prints as "NAME:").
std::string InstructionText(const TargetInfo& t, const MInst& mi,
                            const std::string& label_prefix = ".L");

// MIR listing, the text `kirc opt` reads back (compiler/tools/opt_passes.h):
//   NAME:                          when `name` is given
//   .vreg ...                      VRegDeclarations, when an operand is virtual
//   s_mov_b32 %s3[2], 0x8000  // id 3 op 0
// instructions with virtual registers as %v12, %s3[0:1], %a2[0:3] (vreg id,
// then dwords of its tuple; physical ones as in assembly), labels as ".L<id>:",
// each with its id and KIR op.
std::string PrintMir(const TargetInfo& t, const MFunction& f, absl::string_view name = "");

// One `.vreg` line per virtual register the instructions name (and each
// alias's parent), giving what MFunction::vregs holds:
//   .vreg %v3, 4, align 2          a tuple of 4 VGPRs starting at a multiple of 2
//   .vreg %s0, 2, align 2, fixed 4  precoloured to s[4:5] (a kernel input)
//   .vreg %v7, 2, alias %v3+2      registers 2..3 of %v3 (a view, no copy)
// "" when no operand is virtual.
std::string VRegDeclarations(const MFunction& f);

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_ASM_SYNTAX_H_
