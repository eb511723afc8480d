// Instructions and MIR as text, in LLVM's assembly syntax (what llvm-mc 22
// accepts and llvm-objdump prints); amdgcn-isa-notes.md.
#ifndef KIRC_COMPILER_ISA_ASM_SYNTAX_H_
#define KIRC_COMPILER_ISA_ASM_SYNTAX_H_

#include <string>

#include "compiler/isa/instr.h"
#include "compiler/target/target.h"

namespace kir {

// One instruction in LLVM syntax, e.g. "buffer_load_dwordx2 v[2:3], v1, s[4:7], 0 offen offset:8".
// Branch targets and labels are named `label_prefix` + label id (a label
// pseudo-instruction prints as "NAME:").
std::string InstructionText(const TargetInfo& t, const MInst& mi,
                            const std::string& label_prefix = ".L");

// MIR listing: instructions with virtual registers as %v12, %s3[0:1], %a2[0:3]
// (physical ones as in assembly), each with its id and KIR op.
std::string PrintMir(const TargetInfo& t, const MFunction& f);

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_ASM_SYNTAX_H_
