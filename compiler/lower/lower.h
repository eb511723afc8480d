// Lowering of a validated thread-level KIR kernel to MIR on virtual registers.
#ifndef KIRC_COMPILER_LOWER_LOWER_H_
#define KIRC_COMPILER_LOWER_LOWER_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/lowered_kernel.h"
#include "compiler/target/target.h"

namespace kir {

// Byte offsets of the kernel arguments and LDS allocations, as laid out by the
// lowering: arguments in declaration order (buffers 8 bytes aligned 8, scalars 4
// bytes aligned 4), kernarg size rounded up to 8; LDS allocations in
// declaration order, each aligned to 16 bytes, without overlap.
KernelAbi LayoutAbi(const Kernel& k);


// Choices the pipeline makes for the lowering.
struct LowerOptions {
  // MFMA accumulators (srcC/vdst and the loop-carried values MFMAs accumulate
  // into) in AGPRs. Always so on gfx908, where the MFMA encoding requires it
  // (TargetInfo::mfma_acc_in_agprs); on gfx90a/942 either class is allowed
  // (AMDGPUUsage, "unified VGPR file"): AGPRs let a wave hold up to 256 arch
  // VGPRs plus 256 AGPRs (512 registers), at the cost of v_accvgpr_read_b32
  // copies where the accumulators leave the MFMAs.
  bool mfma_acc_in_agprs = false;
  // Each buffer's pointer loaded (s_load_dwordx2 from the kernarg segment)
  // where its SRD is first needed, not all at the kernel's entry: the
  // pipeline's retry in the source's order (fresh-user review 15 F3: 24
  // input buffers' SRDs, 4 SGPRs each, all live from the entry, ran out of
  // SGPRs).
  bool kernarg_loads_at_first_use = false;
};

// Lowers `k` (already validated for `target`) to MIR. Errors name the KIR op
// (line:col when known) and say what to change, e.g. an index whose
// intermediate value leaves the 32-bit range.
// `filename` (may be empty) prefixes error positions.
absl::StatusOr<LoweredKernel> LowerKernel(const Kernel& k, const TargetInfo& target,
                                          absl::string_view filename = "",
                                          const LowerOptions& options = {});

// The code for one index expression on its own, for tests and the verifier:
// the kernel inputs are precoloured virtual registers (workitem_vreg: v0 packed
// on gfx90a/942 in [0], or v0/v1/v2 on gfx908; wg_vreg: the workgroup-id
// SGPRs, -1 when not enabled), and the value ends up in `vreg` or is `constant`.
struct LoweredIndex {
  MFunction mir;
  KernelAbi abi;
  enum class Kind { kConst, kSgpr, kVgpr } kind = Kind::kConst;
  int64_t constant = 0;
  int vreg = -1;
  int workitem_vreg[3] = {-1, -1, -1};
  int wg_vreg[3] = {-1, -1, -1};
};
absl::StatusOr<LoweredIndex> LowerIndexExpr(const Kernel& k, const TargetInfo& target,
                                            const IndexExpr& e);

}  // namespace kir

#endif  // KIRC_COMPILER_LOWER_LOWER_H_
