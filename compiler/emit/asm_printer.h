// Assembly text for a register-allocated kernel: the instructions in LLVM's
// syntax, the `.amdhsa_kernel` descriptor and the code-object-v5
// `.amdgpu_metadata`, as llvm-mc 22 accepts them (LLVM AMDGPUUsage, "Code
// Object V5 Metadata" and "Kernel Descriptor"; amdgcn-isa-notes.md section 6).
#ifndef KIRC_COMPILER_EMIT_ASM_PRINTER_H_
#define KIRC_COMPILER_EMIT_ASM_PRINTER_H_

#include <string>
#include <vector>

#include "compiler/ir/kernel.h"
#include "compiler/lower/lower.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/passes/regalloc.h"
#include "compiler/passes/resources.h"
#include "compiler/target/target.h"

namespace kir {

struct AsmOptions {
  // Comments: each instruction's KIR op, and for memory instructions the
  // access-map record (which IR access and which vector elements).
  bool annotate = false;
};

// One kernel's share of a code object's assembly.
struct KernelAsm {
  std::string name;      // the kernel symbol
  std::string code;      // `.text` symbol and its `.amdhsa_kernel` descriptor
  std::string metadata;  // its entry of the `amdhsa.kernels` YAML list
};
KernelAsm PrintKernelAsm(const TargetInfo& t, const Kernel& k, const LoweredKernel& lk,
                         const KernelResources& res, const AsmOptions& opts);

// The .s of one code object holding `kernels` in this order, for `target_id`
// ("gfx942", "gfx90a:xnack-"): one `.amdgcn_target`, every kernel's code and
// descriptor, and one `.amdgpu_metadata` listing them all; with one kernel,
// that kernel's whole .s file. The kernel names must differ (not checked here).
std::string PrintModuleAssembly(const std::string& target_id, const std::vector<KernelAsm>& kernels);

}  // namespace kir

#endif  // KIRC_COMPILER_EMIT_ASM_PRINTER_H_
