// The public C++ entry point of kirc: KIR kernel in, AMDGCN assembly (and, with
// LLVM's tools, a code object) out. Thread-safe: no global mutable state; any
// number of threads may compile at once.
#ifndef KIRC_COMPILER_API_COMPILE_H_
#define KIRC_COMPILER_API_COMPILE_H_

#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/emit/asm_printer.h"
#include "compiler/ir/kernel.h"
#include "compiler/lower/lower.h"
#include "compiler/passes/pipeline.h"
#include "compiler/target/target.h"

namespace kir {

struct CompileOptions {
  // Target ID: a processor ("gfx908", "gfx90a", "gfx942") with optional
  // feature settings ("gfx90a:xnack-", "gfx942:sramecc+:xnack-"; see
  // ParseTargetId in compiler/target/target.h); empty: the kernel's own
  // `target` line. One of the two must name a target.
  std::string mcpu;
  // Assembly comments with each instruction's KIR op and access-map record.
  bool annotate = false;
  // The kernel's source file, named in error positions ("k.kir:3:5: error: ...").
  std::string filename;
  // Reorder instructions within basic blocks (compiler/passes/schedule.h).
  bool schedule = true;
  // Merge DS reads/writes into ds_read2/ds_write2 (compiler/passes/ds_pairing.h).
  bool pair_ds = true;
  // The pass pipeline's debugging options (compiler/passes/pipeline.h; pass
  // names as PassTable() lists them, or "all"): dumps of the kernel before or
  // after passes go to `print`; `stop_after` ends compilation after that pass
  // (CompileResult::stopped_after/stopped_text, no assembly);
  // `verify_machineinstrs` runs the MIR verifier after every MIR pass.
  std::set<std::string> print_before, print_after;
  std::function<void(absl::string_view)> print;
  std::string stop_after;
  bool verify_machineinstrs = false;
  // When `k` is the promoted form of a tile-level gemm kernel
  // (ThreadLevelKernel's result, as `kirc run` compiles it): that gemm's
  // configuration (GemmConfig::TilingText). Out-of-registers and LDS errors
  // then name it, as they do when the gemm kernel itself is compiled.
  std::string gemm_tiling;
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
  TargetId target_id;        // processor and xnack/sramecc settings the code is for
  std::string assembly;      // the .s text llvm-mc assembles
  KernelAsm kernel_asm;      // this kernel's share of a multi-kernel .s (CompileModule)
  std::string mir_text;      // MIR after lowering, before register allocation
  LoweredKernel lowered;     // final MIR (physical registers), ABI and access map
  KernelResources resources; // registers, LDS bytes, occupancy as declared
  InstructionStats stats;
  double compile_seconds = 0;  // parse excluded; validate through assembly text
  // Each pass that ran, in order, with its time and counters (the last is
  // "asm-printer"); FormatPassTimes (compiler/passes/pipeline.h) prints them.
  std::vector<PassRecord> passes;
  // With CompileOptions::stop_after: the pass compilation stopped after and
  // the kernel as it left it (KIR or MIR text); assembly is then empty.
  std::string stopped_after;
  std::string stopped_text;
};

// Validates and compiles `k`. Errors (InvalidArgument, ResourceExhausted,
// NotFound for an unknown target) name the op or declaration and what to do.
// A kernel whose body is a tile-level gemm op is promoted to thread-level KIR
// first (compiler/promote/promote.h).
absl::StatusOr<CompileResult> Compile(const Kernel& k, const CompileOptions& opts);

// Parses `text` (KIR; `filename` is used in error positions) and compiles it.
absl::StatusOr<CompileResult> CompileText(absl::string_view text, absl::string_view filename,
                                          const CompileOptions& opts);

// The thread-level KIR kernel Compile lowers for `k` under `opts`: `k`
// itself, or for a tile-level gemm kernel its promoted form (what `kirc
// compile --emit=kir` prints), after the pipeline's validate and promote
// passes; its `target` line is the full target ID. Errors: those of
// ResolveTargetId and of those two passes (with opts.filename in positions).
// `gemm_tiling` (optional) receives the gemm's configuration
// (GemmConfig::TilingText; "" without a gemm), for CompileOptions::gemm_tiling.
absl::StatusOr<Kernel> ThreadLevelKernel(const Kernel& k, const CompileOptions& opts,
                                         std::string* gemm_tiling = nullptr);

// The target Compile would use for `k` under `opts`.
absl::StatusOr<const TargetInfo*> ResolveTarget(const Kernel& k, const CompileOptions& opts);
// The target ID Compile would use for `k` under `opts` (opts.mcpu, else k.target).
// Errors: InvalidArgument when neither names one, else those of ParseTargetId.
absl::StatusOr<TargetId> ResolveTargetId(const Kernel& k, const CompileOptions& opts);

// The code object (.hsaco bytes) of a compiled kernel, made with llvm-mc and
// ld.lld from `llvm_bin` (see compiler/object/toolchain.h ResolveLlvmBin). Its
// ELF e_flags and metadata carry r.target_id (TargetId::ElfFlags).
absl::StatusOr<std::string> CodeObjectFor(const CompileResult& r, const std::string& llvm_bin);

// ---- Several kernels in one code object -------------------------------------

// One kernel of a module and the file it came from (named in errors; may be "").
struct ModuleKernel {
  Kernel kernel;
  std::string filename;
};

// Kernels compiled for one target ID into one code object.
struct ModuleResult {
  TargetId target_id;
  // One .s: a single `.amdgcn_target`, every kernel's code and `.amdhsa_kernel`
  // descriptor, and one `.amdgpu_metadata` whose amdhsa.kernels lists them all
  // in input order (compiler/emit/asm_printer.h PrintModuleAssembly).
  std::string assembly;
  std::vector<CompileResult> kernels;  // per kernel, in input order
};

// Compiles every kernel with `opts` (opts.filename is replaced by each
// kernel's filename) and joins them into one module. Errors: InvalidArgument
// for no kernels, for two kernels with one name (both files named), or for
// kernels whose target IDs differ (files and IDs named; pass one --mcpu for
// all); any kernel's compile error.
absl::StatusOr<ModuleResult> CompileModule(const std::vector<ModuleKernel>& kernels,
                                           const CompileOptions& opts);

// The code object of a module (llvm-mc + ld.lld, as CodeObjectFor).
absl::StatusOr<std::string> CodeObjectFor(const ModuleResult& m, const std::string& llvm_bin);

// ---- Several target IDs in one HIP offload bundle ------------------------------

// A clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__", what clang's HIP .hipfb
// holds and hipModuleLoadData accepts) with the code object of every module,
// each under the entry ID "hipv4-amdgcn-amd-amdhsa--<target ID>", plus clang's
// empty host entry; made with clang-offload-bundler from `llvm_bin`
// (compiler/object/toolchain.h BundleCodeObjects). Errors: InvalidArgument for
// no modules, a target ID given twice, or two IDs of one processor that do not
// set the same features (clang-offload-bundler's rule: "gfx90a" with
// "gfx90a:xnack-" is refused, "gfx90a:xnack-" with "gfx90a:xnack+" is fine);
// toolchain errors.
absl::StatusOr<std::string> BundleFor(const std::vector<ModuleResult>& modules,
                                      const std::string& llvm_bin);
// Checks a list of target IDs as BundleFor does (duplicates, conflicts).
absl::Status CheckBundleTargets(const std::vector<TargetId>& ids);

// The MFMA kernel `kirc` compiles when run without arguments: C = A * B^T for
// 16x16 f16 tiles through padded LDS, one v_mfma_f32_16x16x16_f16, for gfx942.
absl::string_view DefaultKernelText();

}  // namespace kir

#endif  // KIRC_COMPILER_API_COMPILE_H_
