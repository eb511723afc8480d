#include "hw/run/run.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "compiler/api/compile.h"
#include "compiler/emit/code_object_notes.h"
#include "compiler/emit/toolchain.h"
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

// The processor of the metadata's `amdhsa.target` ("amdgcn-amd-amdhsa--gfx90a:xnack-"
// -> "gfx90a"), or "" if there is none.
std::string MetadataProcessor(absl::string_view notes) {
  size_t p = notes.find("amdhsa.target:");
  if (p == absl::string_view::npos) return "";
  absl::string_view v = notes.substr(p + 14);
  v = absl::StripAsciiWhitespace(v.substr(0, v.find('\n')));
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"')) v = v.substr(1, v.size() - 2);
  size_t dash = v.rfind("--");
  if (dash != absl::string_view::npos) v = v.substr(dash + 2);
  return std::string(v.substr(0, v.find(':')));
}

// Reads the code object at `path` and checks that it is `k`'s for `target`:
// metadata target, a kernel named k.name, and k's arguments (hidden ones aside).
absl::StatusOr<std::string> ReadKernelCodeObject(const Kernel& k, const TargetInfo& target,
                                                 const std::string& path, const std::string& llvm_bin) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("code object ", path, ": ", why));
  };
  if (!HasElfMagic(*bytes)) return bad("not an ELF file");
  absl::StatusOr<std::string> notes = ReadElfNotes(llvm_bin, *bytes);
  if (!notes.ok()) return bad(std::string(notes.status().message()));
  std::string proc = MetadataProcessor(*notes);
  if (proc.empty()) return bad("its metadata has no amdhsa.target");
  if (proc != target.name)
    return bad(absl::StrCat("it is for ", proc, ", not ", target.name, " (use --mcpu=", proc,
                            " or a code object built for ", target.name, ")"));
  absl::StatusOr<std::vector<KernelNotes>> ks = ParseKernelNotes(*notes);
  if (!ks.ok()) return bad(std::string(ks.status().message()));
  const KernelNotes* kn = nullptr;
  std::vector<std::string> names;
  for (const KernelNotes& n : *ks) {
    names.push_back(n.name);
    if (n.name == k.name) kn = &n;
  }
  if (kn == nullptr)
    return bad(absl::StrCat("it has no kernel '", k.name, "' (it has: ", absl::StrJoin(names, ", "),
                            "); build it from this .kir file"));
  std::vector<const ArgNote*> explicit_args;
  for (const ArgNote& a : kn->args)
    if (!absl::StartsWith(a.value_kind, "hidden_")) explicit_args.push_back(&a);
  std::vector<std::string> want, have;
  for (const Arg& a : k.args) want.push_back(a.name);
  for (const ArgNote* a : explicit_args) have.push_back(a->name.empty() ? "?" : a->name);
  bool same = explicit_args.size() == k.args.size();
  for (size_t i = 0; same && i < k.args.size(); ++i)
    same = explicit_args[i]->name.empty() || explicit_args[i]->name == k.args[i].name;
  if (!same)
    return bad(absl::StrCat("kernel '", k.name, "' takes (", absl::StrJoin(have, ", "),
                            ") there but (", absl::StrJoin(want, ", "), ") in the .kir file"));
  return *std::move(bytes);
}

}  // namespace

absl::StatusOr<RunReport> RunAndCheck(const Kernel& k, Device& device, const RunOptions& opts) {
  CompileOptions co;
  co.mcpu = opts.mcpu;
  co.filename = opts.filename;
  const TargetInfo* target = nullptr;
  absl::StatusOr<std::string> hsaco;
  if (opts.code_object_path.empty()) {
    absl::StatusOr<CompileResult> cr = Compile(k, co);
    if (!cr.ok()) return cr.status();
    target = cr->target;
    hsaco = CodeObjectFor(*cr, opts.llvm_bin);
  } else {
    absl::StatusOr<const TargetInfo*> t = ResolveTarget(k, co);
    if (!t.ok()) return t.status();
    target = *t;
    hsaco = ReadKernelCodeObject(k, *target, opts.code_object_path, opts.llvm_bin);
  }
  if (!hsaco.ok()) return hsaco.status();
  KernelData inputs = MakeInputs(k, opts.seed);
  KernelData out = inputs;
  absl::StatusOr<DeviceRun> run = device.Run(k, *target, *hsaco, out);
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
  absl::StrAppend(&t, "kernel ", k.name, " on ", target->name, ", ", run->device, ", seed ",
                  opts.seed, "\n");
  if (!opts.code_object_path.empty())
    absl::StrAppend(&t, "code object ", opts.code_object_path, " (not recompiled)\n");
  if (run->timed_launches > 0) {
    // A timed device (HIP): the median kernel time and what it means.
    absl::StrAppend(&t, absl::StrFormat("%d waves, median kernel time %.4f ms over %d launches\n", run->waves,
                                        run->milliseconds, run->timed_launches));
    if (run->milliseconds > 0)
      absl::StrAppend(&t, "throughput ", FormatThroughput(opts.work ? *opts.work : WorkOf(k), run->milliseconds),
                      "\n");
  } else {
    absl::StrAppend(&t, absl::StrFormat("%d waves, %d instructions executed (%.1f per wave), %.3f ms\n",
                                        run->waves, run->instructions,
                                        run->waves ? static_cast<double>(run->instructions) / run->waves : 0.0,
                                        run->milliseconds));
  }
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
