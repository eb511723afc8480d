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
#include "compiler/passes/regalloc.h"
#include "compiler/target/target.h"

namespace kir {

// What the descriptor and metadata declare, computed from the allocation.
struct KernelResources {
  int arch_vgprs = 0;      // VGPRs v0..v(n-1) the code names (at least the work-item ids)
  int agprs = 0;           // AGPRs a0..a(n-1)
  int sgprs = 0;           // SGPRs s0..s(n-1) incl. the user and system SGPRs set at launch
  int accum_offset = 0;    // gfx90a/942: first AGPR in the unified file = align(arch_vgprs, 4)
  int next_free_vgpr = 0;  // .amdhsa_next_free_vgpr: gfx908 max(vgprs, agprs); 90a+ total
  int vgpr_count = 0;      // metadata .vgpr_count: 90a/942 the unified total; 908 max(vgprs, agprs)
  int sgpr_count = 0;      // metadata .sgpr_count: sgprs + the 6 extra SGPRs llvm-mc
                           // reserves (flat scratch, XNACK mask) with VCC unreserved
  int64_t lds_bytes = 0;   // group_segment_fixed_size
  int occupancy = 0;       // waves per SIMD the VGPR/AGPR/LDS use allows
};

// Waves per SIMD a kernel can have resident: limited by the target's
// maximum, by `vgprs` (90a/942: the unified total; 908: max(arch, acc)) and by
// `lds_bytes` per workgroup of `workgroup_threads` (64 KiB per CU over 4 SIMDs).
// LLVM's `; Occupancy:` comment is the oracle (compile_test checks it).
int Occupancy(const TargetInfo& t, int vgprs, int64_t lds_bytes, int64_t workgroup_threads);

KernelResources ComputeResources(const TargetInfo& t, const Kernel& k, const KernelAbi& abi,
                                 const RegUsage& usage);

// One instruction in LLVM syntax, e.g. "buffer_load_dwordx2 v[2:3], v1, s[4:7], 0 offen offset:8".
// Branch targets and labels are named `label_prefix` + label id (a label
// pseudo-instruction prints as "NAME:").
std::string InstructionText(const TargetInfo& t, const MInst& mi,
                            const std::string& label_prefix = ".L");

// MIR listing: instructions with virtual registers as %v12, %s3[0:1], %a2[0:3]
// (physical ones as in assembly), each with its id and KIR op.
std::string PrintMir(const TargetInfo& t, const MFunction& f);

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
