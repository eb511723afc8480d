// A kernel in machine code: its MIR, the ABI the lowering chose and the link
// from machine instructions back to the KIR accesses they implement. What the
// lowering produces, the passes transform, and the printer, the emulator
// and the verifier read (LLVM AMDGPUUsage, "Initial Kernel Execution State").
#ifndef KIRC_COMPILER_ISA_LOWERED_KERNEL_H_
#define KIRC_COMPILER_ISA_LOWERED_KERNEL_H_

#include <array>
#include <map>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/kernel.h"
#include "compiler/isa/access_map.h"
#include "compiler/isa/instr.h"

namespace kir {

// Kernel ABI facts decided by the lowering, used by the descriptor, the
// metadata and the emulator (LLVM AMDGPUUsage, "Initial Kernel Execution State").
struct KernelAbi {
  int user_sgprs = 2;                      // kernarg segment pointer in s[0:1]
  // First SGPR of the kernarg segment pointer pair. kirc always puts it in
  // s[0:1]; clang's code may enable the private segment buffer (s[0:3]) or the
  // dispatch pointer first, moving it to s[4:5] or s[2:3] (AMDGPUUsage,
  // "Initial Kernel Execution State"; amdgcn-isa-notes.md 6.1).
  int kernarg_ptr_sgpr = 0;
  std::array<bool, 3> wg_id_enabled{};     // workgroup id x/y/z SGPRs, after the user SGPRs
  int workitem_id_enable = 0;              // 0: x, 1: x,y, 2: x,y,z (.amdhsa_system_vgpr_workitem_id)
  struct KernargSlot {
    std::string name;
    int64_t offset = 0;  // bytes
    int64_t size = 0;    // bytes: 8 for buffers, 4 for scalars
    bool is_buffer = true;
  };
  std::vector<KernargSlot> kernargs;
  int64_t kernarg_size = 0;                // bytes, a multiple of 8
  // Kernarg dwords the dispatch fixes (code-object v5 hidden arguments of
  // another compiler's code: block counts, group sizes, remainders, global
  // offsets; AMDGPUUsage "Code Object V5 Metadata"): byte offset -> value.
  std::map<int64_t, uint32_t> kernarg_known;
  std::vector<std::pair<std::string, int64_t>> lds_offsets;  // allocation -> byte offset
  int64_t lds_bytes = 0;                   // group_segment_fixed_size
  // The private (scratch) segment: bytes per work-item
  // (private_segment_fixed_size), the private segment buffer's 4 user SGPRs
  // (gfx908/90a; -1 if not enabled) and the scratch wave offset system SGPR
  // (-1 if not enabled). kirc's own code uses none of them.
  int64_t private_bytes = 0;
  int private_segment_buffer_sgpr = -1;
  int scratch_wave_offset_sgpr = -1;
  int FirstSystemSgpr() const { return user_sgprs; }
};

struct LoweredKernel {
  MFunction mir;       // virtual registers; ends with s_endpgm
  KernelAbi abi;
  AccessMap access_map;
  std::vector<std::string> kir_op_text;  // pre-order op index -> one-line KIR text
  std::vector<SourceLoc> kir_op_loc;     // pre-order op index -> its line:col (0:0 if unknown)
  // The thread-level kernel this code implements (for a gemm kernel: its
  // promoted form), whose ops the access map and kir_op_* refer to.
  Kernel kernel;
  // Code read back from another compiler (verify/object): instructions
  // (MInst::id) with modifiers MInst cannot hold and the verifier does not
  // model (op_sel, omod, clamp on an instruction other than the saturating
  // adds/subs, SDWA on one without integer semantics), each with a
  // description; the verifier takes their results as unknown values instead
  // of misreading them.
  std::map<int, std::string> unmodelled;
  // Code read back from another compiler: instructions (MInst::id) with SDWA
  // selects or integer clamp, which the verifier models (VopModifiers;
  // semantics.h SdwaSource/SdwaDest/EvalIntOpClamped).
  std::map<int, VopModifiers> modifiers;
};

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_LOWERED_KERNEL_H_
