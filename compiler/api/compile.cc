#include "compiler/api/compile.h"

#include <chrono>
#include <exception>

#include "absl/strings/str_cat.h"
#include "compiler/emit/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/lower/validate.h"
#include "compiler/passes/hazards.h"
#include "compiler/passes/regalloc.h"
#include "compiler/passes/schedule.h"
#include "compiler/passes/waitcnt.h"
#include "compiler/promote/gemm_config.h"
#include "compiler/promote/promote.h"

namespace kir {
namespace {

const char* ClassKey(const MInst& mi) {
  switch (mi.opc) {
    case Opc::kSWaitcnt: return "waitcnt";
    case Opc::kSNop: return "nop";
    case Opc::kSBarrier: return "barrier";
    default: break;
  }
  switch (Info(mi.opc).cls) {
    case InstClass::kSalu: return "salu";
    case InstClass::kSmem: return "smem";
    case InstClass::kValu:
    case InstClass::kValuTrans: return "valu";
    case InstClass::kVmemLoad: return "vmem_load";
    case InstClass::kVmemStore: return "vmem_store";
    case InstClass::kDsRead: return "ds_read";
    case InstClass::kDsWrite: return "ds_write";
    case InstClass::kMfma: return "mfma";
    case InstClass::kAccRead:
    case InstClass::kAccWrite: return "acc";
    default: return "other";
  }
}

}  // namespace

absl::StatusOr<const TargetInfo*> ResolveTarget(const Kernel& k, const CompileOptions& opts) {
  std::string mcpu = !opts.mcpu.empty() ? opts.mcpu : k.target;
  if (mcpu.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", k.name, "' names no target: add a `target gfx942` line or pass --mcpu"));
  return LookupTarget(mcpu);
}

namespace {

absl::StatusOr<CompileResult> CompileImpl(const Kernel& k, const CompileOptions& opts,
                                          absl::string_view filename) {
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<const TargetInfo*> t = ResolveTarget(k, opts);
  if (!t.ok()) {
    // Name where the target came from: the --mcpu option or the `target` line.
    std::string where = filename.empty() ? "" : std::string(filename) + ":";
    if (opts.mcpu.empty() && k.target_loc.line > 0)
      absl::StrAppend(&where, k.target_loc.line, ":", k.target_loc.col, ":");
    if (!where.empty()) where += " ";
    return absl::Status(t.status().code(),
                        absl::StrCat(where, "error: ", opts.mcpu.empty() ? "" : "--mcpu: ",
                                     t.status().message()));
  }
  const TargetInfo& target = **t;
  if (HasGemm(k)) {
    // A tile-level gemm becomes thread-level KIR first (compiler/promote), which
    // compiles like any kernel; the promotion counts as compile time.
    absl::StatusOr<Kernel> promoted = ValidateAndPromote(k, target, filename);
    if (!promoted.ok()) return promoted.status();
    absl::StatusOr<CompileResult> pr = CompileImpl(*promoted, opts, filename);
    if (pr.ok()) {
      pr->compile_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else if (pr.status().code() == absl::StatusCode::kResourceExhausted) {
      // Name the configuration the user can change.
      std::string config;
      for (const Op& op : k.body)
        if (op.kind == OpKind::kGemm) {
          absl::StatusOr<GemmConfig> c = ResolveGemm(k, op, target);
          if (c.ok()) config = c->TilingText();
        }
      return absl::Status(pr.status().code(),
                          absl::StrCat(pr.status().message(), "; the gemm's configuration is `",
                                       config, "`: choose a smaller tile or more waves"));
    }
    return pr;
  }
  absl::Status valid = ValidateKernel(k, target, filename);
  if (!valid.ok()) return valid;
  absl::StatusOr<LoweredKernel> lk = LowerKernel(k, target, filename);
  if (!lk.ok()) return lk.status();
  CompileResult r;
  r.target = &target;
  r.lowered = std::move(*lk);
  if (opts.schedule) {
    absl::Status sst = ScheduleBlocks(target, r.lowered.mir);
    if (!sst.ok()) return sst;
  }
  r.mir_text = PrintMir(target, r.lowered.mir);
  absl::StatusOr<RegUsage> usage =
      AllocateRegisters(target, r.lowered.mir, &r.lowered.kir_op_text);
  if (!usage.ok())
    return absl::Status(usage.status().code(),
                        absl::StrCat(filename.empty() ? "" : absl::StrCat(filename, ": "),
                                     "error: kernel '", k.name, "' on ", target.name, ": ",
                                     usage.status().message()));
  absl::Status st = InsertWaitcnts(target, r.lowered.mir);
  if (!st.ok()) return st;
  st = InsertHazardNops(target, r.lowered.mir);
  if (!st.ok()) return st;
  r.resources = ComputeResources(target, k, r.lowered.abi, *usage);
  if (r.resources.lds_bytes > target.lds_bytes)
    return absl::ResourceExhaustedError(absl::StrCat("kernel '", k.name, "' needs ", r.resources.lds_bytes,
                                                     " bytes of LDS; ", target.name, " has ",
                                                     target.lds_bytes));
  AsmOptions ao;
  ao.annotate = opts.annotate;
  r.assembly = PrintAssembly(target, k, r.lowered, r.resources, ao);
  for (const MInst& mi : r.lowered.mir.insts) {
    ++r.stats.by_class[ClassKey(mi)];
    ++r.stats.total;
  }
  r.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

// A bug in kirc must not take the embedding program down: anything thrown
// (e.g. std::out_of_range from a lookup the validator should have made safe)
// becomes an Internal error.
static absl::StatusOr<CompileResult> GuardedCompile(const Kernel& k, const CompileOptions& opts,
                                             absl::string_view filename) {
  try {
    return CompileImpl(k, opts, filename);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("internal error in kirc while compiling kernel '",
                                            k.name, "': ", e.what(), "; please report it"));
  }
}

absl::StatusOr<CompileResult> Compile(const Kernel& k, const CompileOptions& opts) {
  return GuardedCompile(k, opts, opts.filename);
}

absl::StatusOr<CompileResult> CompileText(absl::string_view text, absl::string_view filename,
                                          const CompileOptions& opts) {
  absl::StatusOr<Kernel> k = ParseKernel(text, filename);
  if (!k.ok()) return k.status();
  return GuardedCompile(*k, opts, filename);
}

absl::StatusOr<std::string> CodeObjectFor(const CompileResult& r, const std::string& llvm_bin) {
  return kir::BuildCodeObject(llvm_bin, r.assembly, r.target->name);
}

}  // namespace kir
