#include "compiler/api/compile.h"

#include <chrono>
#include <exception>

#include "absl/strings/str_cat.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/passes/pipeline.h"

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

absl::StatusOr<TargetId> ResolveTargetId(const Kernel& k, const CompileOptions& opts) {
  std::string mcpu = !opts.mcpu.empty() ? opts.mcpu : k.target;
  if (mcpu.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", k.name, "' names no target: set CompileOptions::mcpu (kirc: --mcpu), e.g. "
        "\"gfx942\", or add a `target gfx942` line to the kernel"));
  return ParseTargetId(mcpu);
}

absl::StatusOr<const TargetInfo*> ResolveTarget(const Kernel& k, const CompileOptions& opts) {
  absl::StatusOr<TargetId> id = ResolveTargetId(k, opts);
  if (!id.ok()) return id.status();
  return id->target;
}

namespace {

// ResolveTargetId with the error placed where the target came from: the
// --mcpu option, or `file`'s `target` line ("FILE:LINE:COL: error: ...").
absl::StatusOr<TargetId> ResolveTargetIdAt(const Kernel& k, const CompileOptions& opts, absl::string_view file) {
  absl::StatusOr<TargetId> t = ResolveTargetId(k, opts);
  if (t.ok()) return t;
  std::string where = file.empty() ? "" : std::string(file) + ":";
  if (opts.mcpu.empty() && k.target_loc.line > 0) absl::StrAppend(&where, k.target_loc.line, ":", k.target_loc.col, ":");
  if (!where.empty()) where += " ";
  return absl::Status(t.status().code(),
                      absl::StrCat(where, "error: ", opts.mcpu.empty() ? "" : "--mcpu: ", t.status().message()));
}

absl::StatusOr<CompileResult> CompileImpl(const Kernel& k, const CompileOptions& opts,
                                          absl::string_view filename) {
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<TargetId> t = ResolveTargetIdAt(k, opts, filename);
  if (!t.ok()) return t.status();
  const TargetId target_id = *t;
  const TargetInfo& target = *target_id.target;
  PipelineOptions po;
  po.schedule = opts.schedule;
  po.pair_ds = opts.pair_ds;
  po.print_before = opts.print_before;
  po.print_after = opts.print_after;
  po.print = opts.print;
  po.stop_after = opts.stop_after;
  po.verify_each = opts.verify_machineinstrs;
  po.gemm_tiling = opts.gemm_tiling;
  absl::StatusOr<PipelineResult> p = RunPipeline(k, target_id, po, filename);
  if (!p.ok()) return p.status();
  CompileResult r;
  r.target = &target;
  r.target_id = target_id;
  r.passes = std::move(p->records);
  r.mir_text = std::move(p->mir_text);
  r.lowered = std::move(p->lowered);
  r.stopped_after = std::move(p->stopped_after);
  if (!r.stopped_after.empty()) {
    r.stopped_text = std::move(p->stopped_text);
    r.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  r.resources = p->resources;
  auto e0 = std::chrono::steady_clock::now();
  AsmOptions ao;
  ao.annotate = opts.annotate;
  r.kernel_asm = PrintKernelAsm(target, p->kernel, r.lowered, r.resources, ao);
  r.assembly = PrintModuleAssembly(target_id.ToString(), {r.kernel_asm});
  for (const MInst& mi : r.lowered.mir.insts) {
    ++r.stats.by_class[ClassKey(mi)];
    ++r.stats.total;
  }
  PassRecord emit;
  emit.name = "asm-printer";
  emit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
  emit.insts_before = emit.insts_after = static_cast<int64_t>(r.lowered.mir.insts.size());
  emit.counters.push_back({"bytes", static_cast<int64_t>(r.assembly.size())});
  r.passes.push_back(std::move(emit));
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

absl::StatusOr<Kernel> ThreadLevelKernel(const Kernel& k, const CompileOptions& opts,
                                         std::string* gemm_tiling) {
  absl::StatusOr<TargetId> t = ResolveTargetIdAt(k, opts, opts.filename);
  if (!t.ok()) return t.status();
  PipelineOptions po;
  po.stop_after = "promote";
  absl::StatusOr<PipelineResult> p = RunPipeline(k, *t, po, opts.filename);
  if (!p.ok()) return p.status();
  if (gemm_tiling != nullptr) *gemm_tiling = p->gemm_tiling;
  p->kernel.target = t->ToString();
  return std::move(p->kernel);
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

namespace {

// The target ID string of a result (a hand-made result may only set .target).
std::string TargetIdText(const TargetId& id, const TargetInfo* fallback) {
  if (id.target != nullptr) return id.ToString();
  return fallback != nullptr ? fallback->name : "";
}

}  // namespace

absl::StatusOr<std::string> CodeObjectFor(const CompileResult& r, const std::string& llvm_bin) {
  return kir::BuildCodeObject(llvm_bin, r.assembly, TargetIdText(r.target_id, r.target));
}

absl::StatusOr<ModuleResult> CompileModule(const std::vector<ModuleKernel>& kernels,
                                           const CompileOptions& opts) {
  if (kernels.empty())
    return absl::InvalidArgumentError("CompileModule: no kernels given; a code object needs one or more");
  auto file_of = [&](size_t i) {
    return kernels[i].filename.empty() ? absl::StrCat("kernel #", i + 1) : kernels[i].filename;
  };
  // Names and target IDs first, so the errors name the files before any compiling.
  std::vector<TargetId> ids;
  for (size_t i = 0; i < kernels.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (kernels[j].kernel.name == kernels[i].kernel.name)
        return absl::InvalidArgumentError(absl::StrCat(
            "kernel name '", kernels[i].kernel.name, "' is used by both ", file_of(j), " and ",
            file_of(i), ": the kernels of one code object need distinct names (rename one "
            "`kernel` line)"));
    CompileOptions ko = opts;
    ko.filename = kernels[i].filename;
    absl::StatusOr<TargetId> id = ResolveTargetIdAt(kernels[i].kernel, ko, file_of(i));
    if (!id.ok()) return id.status();
    ids.push_back(*id);
    if (*id != ids[0])
      return absl::InvalidArgumentError(absl::StrCat(
          "the kernels of one code object need one target ID, but ", file_of(0), " is for ",
          ids[0].ToString(), " and ", file_of(i), " for ", id->ToString(),
          ": pass --mcpu=ID (CompileOptions::mcpu) for all of them, or build separate code objects"));
  }
  ModuleResult m;
  m.target_id = ids[0];
  std::vector<KernelAsm> parts;
  for (const ModuleKernel& mk : kernels) {
    CompileOptions ko = opts;
    ko.filename = mk.filename;
    absl::StatusOr<CompileResult> r = Compile(mk.kernel, ko);
    if (!r.ok()) return r.status();
    parts.push_back(r->kernel_asm);
    m.kernels.push_back(*std::move(r));
  }
  m.assembly = PrintModuleAssembly(m.target_id.ToString(), parts);
  return m;
}

absl::StatusOr<std::string> CodeObjectFor(const ModuleResult& m, const std::string& llvm_bin) {
  return kir::BuildCodeObject(llvm_bin, m.assembly, m.target_id.ToString());
}

absl::Status CheckBundleTargets(const std::vector<TargetId>& ids) {
  if (ids.empty()) return absl::InvalidArgumentError("a bundle needs at least one target ID");
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      if (ids[i] == ids[j])
        return absl::InvalidArgumentError(
            absl::StrCat("target ID ", ids[i].ToString(), " is given twice: list each once"));
      // clang-offload-bundler: for one processor, a feature is set in all of
      // its target IDs or in none (else a device could match two entries).
      if (ids[i].target == ids[j].target &&
          ((ids[i].xnack == FeatureSetting::kAny) != (ids[j].xnack == FeatureSetting::kAny) ||
           (ids[i].sramecc == FeatureSetting::kAny) != (ids[j].sramecc == FeatureSetting::kAny)))
        return absl::InvalidArgumentError(absl::StrCat(
            "target IDs ", ids[j].ToString(), " and ", ids[i].ToString(),
            " cannot share a bundle: for one processor every target ID must set the same features "
            "(e.g. gfx90a:xnack- with gfx90a:xnack+, not with gfx90a)"));
    }
  return absl::OkStatus();
}

absl::StatusOr<std::string> BundleFor(const std::vector<ModuleResult>& modules,
                                      const std::string& llvm_bin) {
  std::vector<TargetId> ids;
  for (const ModuleResult& m : modules) ids.push_back(m.target_id);
  if (absl::Status st = CheckBundleTargets(ids); !st.ok()) return st;
  std::vector<BundleEntry> entries;
  for (const ModuleResult& m : modules) {
    absl::StatusOr<std::string> obj = CodeObjectFor(m, llvm_bin);
    if (!obj.ok()) return obj.status();
    entries.push_back({m.target_id.ToString(), *std::move(obj)});
  }
  return BundleCodeObjects(llvm_bin, entries);
}

}  // namespace kir
