// The public C++ entry point of kirc: KIR kernel in, AMDGCN assembly (and, with
// LLVM's tools, a code object) out. Thread-safe: no global mutable state; any
// number of threads may compile at once.
#ifndef KIRC_COMPILER_API_COMPILE_H_
#define KIRC_COMPILER_API_COMPILE_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/emit/asm_printer.h"
#include "compiler/ir/kernel.h"
#include "compiler/lower/lower.h"
#include "compiler/target/target.h"

namespace kir {

struct CompileOptions {
  // Target processor ("gfx908", "gfx90a", "gfx942"); empty: the kernel's own
  // `target` line. One of the two must name a target.
  std::string mcpu;
  // Assembly comments with each instruction's KIR op and access-map record.
  bool annotate = false;
  // The kernel's source file, named in error positions ("k.kir:3:5: error: ...").
  std::string filename;
  // Reorder instructions within basic blocks (compiler/passes/schedule.h).
  bool schedule = true;
};

// Counts of the final instructions by class.
struct InstructionStats {
  std::map<std::string, int> by_class;  // "salu", "smem", "valu", "vmem_load", "vmem_store",
                                        // "ds_read", "ds_write", "mfma", "acc", "waitcnt",
                                        // "nop", "barrier", "other"
  int total = 0;
};

struct CompileResult {
  const TargetInfo* target = nullptr;
  std::string assembly;      // the .s text llvm-mc assembles
  std::string mir_text;      // MIR after lowering, before register allocation
  LoweredKernel lowered;     // final MIR (physical registers), ABI and access map
  KernelResources resources; // registers, LDS bytes, occupancy as declared
  InstructionStats stats;
  double compile_seconds = 0;  // parse excluded; validate through assembly text
};

// Validates and compiles `k`. Errors (InvalidArgument, ResourceExhausted,
// NotFound for an unknown target) name the op or declaration and what to do.
// A kernel whose body is a tile-level gemm op is promoted to thread-level KIR
// first (compiler/promote/promote.h).
absl::StatusOr<CompileResult> Compile(const Kernel& k, const CompileOptions& opts);

// Parses `text` (KIR; `filename` is used in error positions) and compiles it.
absl::StatusOr<CompileResult> CompileText(absl::string_view text, absl::string_view filename,
                                          const CompileOptions& opts);

// The target Compile would use for `k` under `opts`.
absl::StatusOr<const TargetInfo*> ResolveTarget(const Kernel& k, const CompileOptions& opts);

// The code object (.hsaco bytes) of a compiled kernel, made with llvm-mc and
// ld.lld from `llvm_bin` (see compiler/emit/toolchain.h ResolveLlvmBin).
absl::StatusOr<std::string> CodeObjectFor(const CompileResult& r, const std::string& llvm_bin);

// The MFMA kernel `kirc` compiles when run without arguments: C = A * B^T for
// 16x16 f16 tiles through padded LDS, one v_mfma_f32_16x16x16_f16, for gfx942.
absl::string_view DefaultKernelText();

}  // namespace kir

#endif  // KIRC_COMPILER_API_COMPILE_H_
