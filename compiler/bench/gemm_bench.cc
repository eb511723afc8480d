// `bazel run //compiler/bench:gemm`: for a 1024x1024x1024 f16 GEMM
// (C f32 = alpha * A * B^T + beta * C) with the default configuration on each
// target, the in-process compile time (median of many), the K loop's
// instructions by class, non-MFMA instructions per MFMA in the loop,
// registers, LDS, fragment-read bank conflicts and occupancy. A benchmark:
// it prints figures and asserts nothing about speed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/promote/bank_conflicts.h"
#include "compiler/promote/promote.h"

namespace kir {
namespace {

constexpr const char* kGemm = R"(kernel gemm_1024
workgroup auto
grid auto
arg A : f16[1024, 1024] strides [1024, 1] readonly
arg B : f16[1024, 1024] strides [1024, 1] readonly
arg C : f32[1024, 1024] strides [1024, 1] readwrite
arg alpha : f32
arg beta : f32
  gemm C = alpha * A.mk * B.nk + beta * C
end
)";

const char* ClassOf(const MInst& mi) {
  if (mi.opc == Opc::kSWaitcnt) return "waitcnt";
  if (mi.opc == Opc::kSNop) return "nop";
  if (mi.opc == Opc::kSBarrier) return "barrier";
  if (Info(mi.opc).flags & kBranch) return "branch";
  switch (Info(mi.opc).cls) {
    case InstClass::kSalu: return "salu";
    case InstClass::kSmem: return "smem";
    case InstClass::kValu:
    case InstClass::kValuTrans: return "valu";
    case InstClass::kVmemLoad:
    case InstClass::kVmemStore: return "vmem";
    case InstClass::kDsRead:
    case InstClass::kDsWrite: return "ds";
    case InstClass::kMfma: return "mfma";
    case InstClass::kAccRead:
    case InstClass::kAccWrite: return "acc";
    default: return "other";
  }
}

int Run() {
  absl::StatusOr<Kernel> k = ParseKernel(kGemm, "gemm_1024.kir");
  if (!k.ok()) {
    std::fprintf(stderr, "%s\n", std::string(k.status().message()).c_str());
    return 1;
  }
  std::printf("%-7s %-40s %10s %6s %6s %6s %6s %6s %6s %6s %8s %5s %5s %5s %6s %9s %4s\n", "target",
              "configuration", "compile", "loop", "mfma", "ds", "vmem", "valu", "salu", "wait",
              "non-mfma", "VGPR", "AGPR", "SGPR", "LDS", "conflicts", "occ");
  for (const TargetInfo* t : AllTargets()) {
    CompileOptions o;
    o.mcpu = t->name;
    std::vector<double> times;
    absl::StatusOr<CompileResult> r;
    for (int i = 0; i < 25; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      r = Compile(*k, o);
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (!r.ok()) break;
    }
    if (!r.ok()) {
      std::printf("%-7s %s\n", t->name, std::string(r.status().message()).c_str());
      continue;
    }
    std::sort(times.begin(), times.end());
    double median = times[times.size() / 2];
    // The K loop: the instructions between the (last) loop label and its branch.
    const std::vector<MInst>& insts = r->lowered.mir.insts;
    int label = -1, branch = -1;
    for (int i = 0; i < static_cast<int>(insts.size()); ++i) {
      if (insts[i].opc == Opc::kLabel) label = i;
      if (insts[i].opc == Opc::kSCbranchScc1 && label >= 0) branch = i;
    }
    std::map<std::string, int> loop;
    int loop_total = 0;
    for (int i = label + 1; i <= branch && label >= 0; ++i) {
      ++loop[ClassOf(insts[i])];
      ++loop_total;
    }
    int mfma = loop["mfma"];
    absl::StatusOr<GemmPlan> plan = PlanGemm(*k, *t);
    absl::StatusOr<Kernel> promoted = PromoteGemm(*k, *t);
    int64_t conflicts = -1;
    if (promoted.ok()) {
      absl::StatusOr<KernelLdsTraffic> traffic = CountLdsTraffic(*promoted, *t);
      if (traffic.ok()) conflicts = traffic->reads.conflicts;
    }
    const KernelResources& res = r->resources;
    std::printf("%-7s %-40s %8.2fms %6d %6d %6d %6d %6d %6d %6d %8.2f %5d %5d %5d %6lld %9lld %4d\n",
                t->name, plan.ok() ? plan->config.TilingText().c_str() : "?", median, loop_total,
                mfma, loop["ds"], loop["vmem"], loop["valu"], loop["salu"], loop["waitcnt"],
                mfma > 0 ? static_cast<double>(loop_total - mfma) / mfma : 0.0, res.arch_vgprs,
                res.agprs, res.sgprs, static_cast<long long>(res.lds_bytes),
                static_cast<long long>(conflicts), res.occupancy);
  }
  std::printf("\ncompile: median of 25 in-process compiles (parse excluded); loop: instructions of "
              "the K-loop body; conflicts: extra LDS cycles of the fragment reads per K tile\n");
  return 0;
}

}  // namespace
}  // namespace kir

int main() { return kir::Run(); }
