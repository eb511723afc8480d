#include "hw/run/run.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/api/compile.h"
#include "compiler/ir/interpreter.h"
#include "hw/check/npy.h"

namespace kir {
namespace {

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
  if (!f) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::Status Dump(const Kernel& k, const std::string& dir, const char* what, const KernelData& d) {
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer) continue;
    absl::Status st = WriteFile(absl::StrCat(dir, "/", a.name, ".", what, ".npy"),
                                NpyOfBuffer(a, d.buffers.at(a.name)));
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunReport> RunAndCheck(const Kernel& k, Device& device, const RunOptions& opts) {
  CompileOptions co;
  co.mcpu = opts.mcpu;
  co.filename = opts.filename;
  absl::StatusOr<CompileResult> cr = Compile(k, co);
  if (!cr.ok()) return cr.status();
  absl::StatusOr<std::string> hsaco = CodeObjectFor(*cr, opts.llvm_bin);
  if (!hsaco.ok()) return hsaco.status();
  KernelData inputs = MakeInputs(k, opts.seed);
  KernelData out = inputs;
  absl::StatusOr<DeviceRun> run = device.Run(k, *cr->target, *hsaco, out);
  if (!run.ok()) return run.status();
  InterpArgs ref{inputs.buffers, inputs.scalars};
  absl::Status st = Interpret(k, ref);
  if (!st.ok())
    return absl::Status(st.code(), absl::StrCat("reference interpreter: ", st.message()));
  KernelData ref_data{ref.buffers, ref.scalars};
  RunReport r;
  r.run = *run;
  r.diffs = CompareOutputs(k, out, ref_data);
  r.ok = true;
  for (const BufferDiff& d : r.diffs) r.ok = r.ok && d.ok;
  if (!opts.dump_dir.empty()) {
    for (auto [what, data] : {std::pair<const char*, const KernelData*>{"in", &inputs},
                              {"out", &out}, {"ref", &ref_data}}) {
      absl::Status ds = Dump(k, opts.dump_dir, what, *data);
      if (!ds.ok()) return ds;
    }
  }
  std::string& t = r.text;
  absl::StrAppend(&t, "kernel ", k.name, " on ", cr->target->name, ", ", run->device, ", seed ",
                  opts.seed, "\n");
  absl::StrAppend(&t, absl::StrFormat("%d waves, %d instructions executed (%.1f per wave), %.3f ms\n",
                                      run->waves, run->instructions,
                                      run->waves ? static_cast<double>(run->instructions) / run->waves : 0.0,
                                      run->milliseconds));
  if (!run->instructions_by_class.empty()) {
    t += "by class:";
    for (const auto& [cls, n] : run->instructions_by_class)
      absl::StrAppend(&t, " ", cls, " ", n, absl::StrFormat(" (%.1f/wave)", run->waves ? double(n) / run->waves : 0.0));
    t += "\n";
  }
  t += FormatDiffs(r.diffs);
  absl::StrAppend(&t, r.ok ? "PASS" : "FAIL", ": the output ", r.ok ? "matches" : "differs from",
                  " the KIR reference\n");
  return r;
}

}  // namespace kir
