// kirc: compiles KIR kernels to AMDGCN assembly and code objects.
// Run without arguments it compiles the built-in 16x16x16 MFMA kernel for
// gfx942, assembles it and prints the assembly and a summary.
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "compiler/api/compile.h"
#include "compiler/emit/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "hw/emu/emu_device.h"
#include "hw/hip/hip_device.h"
#include "hw/run/run.h"
#include "compiler/lower/validate.h"
#include "verify/verify.h"
#include "compiler/promote/promote.h"

namespace {

constexpr const char* kVersion = "kirc 0.1.0 (KIR -> AMDGCN for gfx908, gfx90a, gfx942; LLVM 22 toolchain)";

constexpr const char* kHelp = R"(kirc: compile KIR kernels to AMDGCN for AMD CDNA GPUs (MFMA, LDS).

Usage:
  kirc                         compile the built-in 16x16x16 MFMA kernel for gfx942,
                               assemble it, print the assembly and a summary
  kirc compile FILE.kir [FILE2.kir ...] [options]
                               several files: one code object holding every
                               kernel (one target ID, distinct kernel names)
  kirc run FILE.kir [options]  compile, run on a device with seeded inputs, and compare
                               every output with the KIR reference interpreter
  kirc verify FILE.kir [--mcpu=TARGET]
                               compile and prove with Z3 that every memory
                               instruction's address equals its KIR index
                               expression and stays in bounds; prints a report,
                               exit status 0 only if every access is proved
  kirc --help | --version

Options for compile:
  --mcpu=TARGET     a target ID: gfx908, gfx90a or gfx942, optionally with
                    :sramecc+/- and :xnack+/- (e.g. gfx90a:xnack-,
                    gfx942:sramecc+:xnack-); default: the kernel's `target`
                    line. --emit=bundle takes a comma-separated list
  --emit=KIND       asm (default): assembly text for llvm-mc
                    obj: a code object (.hsaco) made with llvm-mc and ld.lld
                    bundle: a HIP offload bundle (.hipfb) with one code object
                         per --mcpu target ID (clang-offload-bundler), for
                         hipModuleLoadData
                    mir: machine IR after lowering, on virtual registers
                    kir: the kernel as canonical KIR text (a gemm kernel:
                         its promoted thread-level KIR)
  -o PATH, --output=PATH
                    where to write (default: standard output; for obj and
                    bundle of one file: FILE with the extension .hsaco or
                    .hipfb; several files need -o)
  --annotate        comment each instruction with its KIR op and, for memory
                    instructions, the IR access and vector elements it implements
  --llvm-bin=DIR    directory of llvm-mc and ld.lld (default: $KIRC_LLVM_BIN,
                    else /usr/lib/llvm-22/bin)
  --verify          also verify the addresses (as `kirc verify`); the report
                    goes to standard error when the output is standard output;
                    exit status 1 unless every access is proved

Options for run (and --mcpu, --llvm-bin as above):
  --device=KIND     emu: the CPU emulator (strict about waits, barriers, hazards);
                    hip: AMD GPU 0 through the HIP runtime, timed with HIP
                         events (median of 20 launches after 3 warm-up ones);
                         exit status 1 when there is none
                    auto (default): hip when an AMD GPU of the kernel's
                         target is present, else emu; prints which and why
  --seed=N          input seed (default 1); inputs are uniform in [-1, 1)
  --code-object=PATH
                    run this code object (e.g. a kir_kernel build output)
                    instead of compiling FILE.kir; its metadata must name
                    FILE.kir's kernel, arguments and target
  --dump=DIR        write each buffer's input, output and reference as
                    DIR/NAME.{in,out,ref}.npy
  Exit status 0 when every output is within tolerance, 1 otherwise.

Relative paths are taken from the directory where you ran `bazel run`.
Errors go to standard error, with a non-zero exit status.
)";

std::string UserPath(const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (wd == nullptr || *wd == '\0') return p;
  return absl::StrCat(wd, "/", p);
}

int Fail(const std::string& msg) {
  std::cerr << "kirc: " << msg << "\n";
  return 1;
}

int Fail(const absl::Status& st) { return Fail(std::string(st.message())); }

bool WriteOut(const std::string& path, const std::string& data) {
  if (path.empty() || path == "-") {
    std::cout << data;
    return static_cast<bool>(std::cout);
  }
  std::ofstream f(UserPath(path), std::ios::binary);
  f << data;
  return static_cast<bool>(f);
}

void PrintSummary(const kir::CompileResult& r, size_t code_object_bytes, double assemble_seconds) {
  const kir::KernelResources& res = r.resources;
  std::cout << "\n// ---- summary -------------------------------------------------\n";
  std::cout << "// kernel " << r.lowered.abi.kernargs.size() << " kernarg slot(s), target "
            << r.target->name << "\n";
  std::cout << "// instructions: " << r.stats.total << " (";
  bool first = true;
  for (const auto& [cls, n] : r.stats.by_class) {
    std::cout << (first ? "" : ", ") << cls << " " << n;
    first = false;
  }
  std::cout << ")\n";
  std::cout << absl::StrFormat(
      "// registers: %d VGPRs, %d AGPRs, %d SGPRs (+6 reserved) ; LDS %d bytes ; occupancy %d "
      "waves/SIMD\n",
      res.arch_vgprs, res.agprs, res.sgprs, res.lds_bytes, res.occupancy);
  std::cout << absl::StrFormat("// compile time %.3f ms ; assemble+link %.1f ms ; code object %d bytes\n",
                               r.compile_seconds * 1e3, assemble_seconds * 1e3, code_object_bytes);
}

int MainJob(const std::optional<std::string>& llvm_flag) {
  kir::CompileOptions opts;
  opts.mcpu = "gfx942";
  absl::StatusOr<kir::CompileResult> r =
      kir::CompileText(kir::DefaultKernelText(), "<built-in mma_16x16x16_f16>", opts);
  if (!r.ok()) return Fail(r.status());
  absl::StatusOr<std::string> bin = kir::ResolveLlvmBin(llvm_flag);
  if (!bin.ok()) return Fail(bin.status());
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::string> obj = kir::CodeObjectFor(*r, *bin);
  if (!obj.ok()) return Fail(obj.status());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << r->assembly;
  PrintSummary(*r, obj->size(), secs);
  return 0;
}

// `kirc verify` and `kirc compile --verify`: the address verifier's report.
bool VerifyAndReport(const kir::Kernel& k, const kir::CompileResult& r, std::ostream& os) {
  absl::StatusOr<kir::VerifyResult> v = kir::VerifyAddresses(k, *r.target, r.lowered);
  if (!v.ok()) {
    std::cerr << "kirc: verify: " << v.status().message() << "\n";
    return false;
  }
  os << v->Report();
  return v->all_proved;
}

int VerifyCommand(const std::string& file, const std::string& mcpu) {
  if (file.empty()) return Fail("verify needs a .kir file (see kirc --help)");
  std::ifstream in(UserPath(file), std::ios::binary);
  if (!in) return Fail(absl::StrCat("cannot read '", UserPath(file), "': ", std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  absl::StatusOr<kir::Kernel> k = kir::ParseKernel(ss.str(), file);
  if (!k.ok()) return Fail(k.status());
  kir::CompileOptions opts;
  opts.mcpu = mcpu;
  opts.filename = file;
  absl::StatusOr<kir::CompileResult> r = kir::Compile(*k, opts);
  if (!r.ok()) return Fail(r.status());
  return VerifyAndReport(*k, *r, std::cout) ? 0 : 1;
}

int RunCommand(const std::string& file, const std::string& mcpu, const std::string& device,
               uint64_t seed, const std::string& dump_dir, const std::string& code_object,
               const std::optional<std::string>& llvm_flag) {
  if (file.empty()) return Fail("run needs a .kir file (see kirc --help)");
  if (device != "emu" && device != "hip" && device != "auto")
    return Fail(absl::StrCat("--device must be emu, hip or auto, not '", device, "'"));
  std::ifstream in(UserPath(file), std::ios::binary);
  if (!in) return Fail(absl::StrCat("cannot read '", UserPath(file), "': ", std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  absl::StatusOr<kir::Kernel> k = kir::ParseKernel(ss.str(), file);
  if (!k.ok()) return Fail(k.status());
  const kir::KernelWork work = kir::WorkOf(*k);  // before promotion: a gemm's 2*M*N*K
  if (kir::HasGemm(*k)) {
    // The device runs, and the reference interpreter checks, the promoted kernel.
    kir::CompileOptions vo;
    vo.mcpu = mcpu;
    absl::StatusOr<const kir::TargetInfo*> t = kir::ResolveTarget(*k, vo);
    if (!t.ok()) return Fail(t.status());
    absl::StatusOr<kir::Kernel> p = kir::ValidateAndPromote(*k, **t, file);
    if (!p.ok()) return Fail(p.status());
    *k = *std::move(p);
  }
  absl::StatusOr<std::string> bin = kir::ResolveLlvmBin(llvm_flag);
  if (!bin.ok()) return Fail(bin.status());
  // The device: the emulator, or AMD GPU 0 through HIP (hw/hip).
  std::unique_ptr<kir::Device> dev;
  if (device != "emu") {
    kir::HipOptions ho;
    ho.llvm_bin = *bin;
    absl::StatusOr<std::unique_ptr<kir::HipDevice>> hip = kir::OpenHipDevice(0, ho);
    if (device == "hip" && !hip.ok()) return Fail(absl::StrCat("--device=hip: ", hip.status().message()));
    std::string why = hip.ok() ? "" : std::string(hip.status().message());
    if (hip.ok() && device == "auto") {
      // A GPU of another architecture cannot run the kernel's code object.
      kir::CompileOptions vo;
      vo.mcpu = mcpu;
      absl::StatusOr<const kir::TargetInfo*> t = kir::ResolveTarget(*k, vo);
      if (!t.ok()) return Fail(t.status());
      absl::Status arch = kir::CheckHipArch((*hip)->Arch(), (*t)->name, "HIP device 0");
      if (!arch.ok()) why = absl::StrCat("HIP device 0 is ", (*hip)->Arch(), ", the kernel's target ", (*t)->name);
    }
    if (why.empty()) {
      if (device == "auto") std::cout << "device: " << (*hip)->Name() << " (--device=auto: AMD GPU present)\n";
      dev = *std::move(hip);
    } else {
      std::cout << "device: emulator (--device=auto: " << why << ")\n";
    }
  }
  if (dev == nullptr) dev = std::make_unique<kir::EmuDevice>(*bin);
  kir::RunOptions ro;
  ro.mcpu = mcpu;
  ro.seed = seed;
  ro.filename = file;
  ro.dump_dir = dump_dir;
  ro.code_object_path = code_object;
  ro.llvm_bin = *bin;
  ro.work = work;
  absl::StatusOr<kir::RunReport> r = kir::RunAndCheck(*k, *dev, ro);
  if (!r.ok()) return Fail(r.status());
  std::cout << r->text;
  return r->ok ? 0 : 1;
}

// `kirc compile` of several files (one code object holding every kernel) or
// for several target IDs (--mcpu=ID,ID --emit=bundle: one code object per ID
// in a clang offload bundle).
int CompileModuleCommand(const std::vector<std::string>& files, const std::string& mcpu_list,
                         const std::string& emit, std::string out, bool annotate, bool verify,
                         const std::optional<std::string>& llvm_flag) {
  std::vector<std::string> ids = absl::StrSplit(mcpu_list, ',');  // "" -> {""}: the target lines
  if (ids.size() > 1 && emit != "bundle")
    return Fail(absl::StrCat("--mcpu lists ", ids.size(), " target IDs (", mcpu_list,
                             "): several targets need --emit=bundle, one code object per target "
                             "ID in a HIP offload bundle"));
  for (const std::string& id : ids)
    if (id.empty() && ids.size() > 1)
      return Fail(absl::StrCat("--mcpu=", mcpu_list, " has an empty target ID: separate IDs with "
                               "single commas, e.g. --mcpu=gfx90a:xnack-,gfx942:sramecc+:xnack-"));
  if (files.size() > 1 && (emit == "mir" || emit == "kir"))
    return Fail(absl::StrCat("--emit=", emit, " takes one .kir file; ", files.size(),
                             " were given (asm, obj and bundle take several)"));
  std::vector<kir::ModuleKernel> kernels;
  for (const std::string& f : files) {
    std::ifstream in(UserPath(f), std::ios::binary);
    if (!in) return Fail(absl::StrCat("cannot read '", UserPath(f), "': ", std::strerror(errno)));
    std::stringstream ss;
    ss << in.rdbuf();
    absl::StatusOr<kir::Kernel> k = kir::ParseKernel(ss.str(), f);
    if (!k.ok()) return Fail(k.status());
    kernels.push_back({*std::move(k), f});
  }
  std::vector<kir::ModuleResult> modules;
  for (const std::string& id : ids) {
    kir::CompileOptions opts;
    opts.mcpu = id;
    opts.annotate = annotate;
    absl::StatusOr<kir::ModuleResult> m = kir::CompileModule(kernels, opts);
    if (!m.ok()) return Fail(m.status());
    modules.push_back(*std::move(m));
  }
  bool to_stdout = emit == "asm" && (out.empty() || out == "-");
  bool verified = true;
  if (verify)
    for (const kir::ModuleResult& m : modules)
      for (size_t i = 0; i < kernels.size(); ++i)
        verified = VerifyAndReport(kernels[i].kernel, m.kernels[i], to_stdout ? std::cerr : std::cout) &&
                   verified;
  const kir::ModuleResult& m0 = modules[0];
  if (emit == "asm") return !WriteOut(out, m0.assembly) ? Fail("cannot write " + out) : verified ? 0 : 1;
  if (emit == "mir") return !WriteOut(out, m0.kernels[0].mir_text) ? Fail("cannot write " + out) : verified ? 0 : 1;
  if (emit == "kir") return Fail("--emit=kir with --mcpu=ID,ID: give one target ID");
  absl::StatusOr<std::string> bin = kir::ResolveLlvmBin(llvm_flag);
  if (!bin.ok()) return Fail(bin.status());
  absl::StatusOr<std::string> bytes =
      emit == "bundle" ? kir::BundleFor(modules, *bin) : kir::CodeObjectFor(m0, *bin);
  if (!bytes.ok()) return Fail(bytes.status());
  const char* ext = emit == "bundle" ? ".hipfb" : ".hsaco";
  if (out.empty()) {
    if (files.size() > 1)
      return Fail(absl::StrCat("several kernels in one ", emit == "bundle" ? "bundle" : "code object",
                               ": give -o PATH (e.g. -o module", ext, ")"));
    out = files[0];
    if (absl::EndsWith(out, ".kir")) out.resize(out.size() - 4);
    out += ext;
  }
  if (out == "-") return Fail(absl::StrCat("a ", emit == "bundle" ? "bundle" : "code object",
                                           " is binary: give -o PATH"));
  return !WriteOut(out, *bytes) ? Fail("cannot write " + out) : verified ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::optional<std::string> llvm_bin;
  std::string mcpu, emit = "asm", out, file;
  std::vector<std::string> more_files;  // compile: FILE2.kir ...
  bool annotate = false, compile_cmd = false, run_cmd = false, verify_cmd = false, verify = false;
  std::string device = "auto", dump_dir, code_object;
  uint64_t seed = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // --flag=VALUE or --flag VALUE.
    auto value = [&](const char* flag) -> std::optional<std::string> {
      std::string p = absl::StrCat(flag, "=");
      if (absl::StartsWith(a, p)) return a.substr(p.size());
      if (a == flag && i + 1 < args.size() && !absl::StartsWith(args[i + 1], "-")) return args[++i];
      return std::nullopt;
    };
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    } else if (a == "--version") {
      std::cout << kVersion << "\n";
      return 0;
    } else if (auto v = value("--mcpu")) {
      mcpu = *v;
    } else if (auto v = value("--emit")) {
      emit = *v;
    } else if (auto v = value("--output")) {
      out = *v;
    } else if (a == "-o") {
      if (i + 1 >= args.size()) return Fail("-o needs a path");
      out = args[++i];
    } else if (auto v = value("--llvm-bin")) {
      llvm_bin = UserPath(*v);
    } else if (auto v = value("--device")) {
      device = *v;
    } else if (auto v = value("--seed")) {
      char* end = nullptr;
      errno = 0;
      unsigned long long s = std::strtoull(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || errno != 0)
        return Fail(absl::StrCat("--seed needs a non-negative integer, not '", *v, "'"));
      seed = s;
    } else if (auto v = value("--code-object")) {
      if (v->empty()) return Fail("--code-object needs a path");
      code_object = UserPath(*v);
    } else if (auto v = value("--dump")) {
      dump_dir = UserPath(*v);
    } else if (a == "--dump") {
      if (i + 1 >= args.size()) return Fail("--dump needs a directory");
      dump_dir = UserPath(args[++i]);
    } else if (a == "run" && !compile_cmd && !run_cmd && !verify_cmd && file.empty()) {
      run_cmd = true;
    } else if (a == "verify" && !compile_cmd && !run_cmd && !verify_cmd && file.empty()) {
      verify_cmd = true;
    } else if (a == "--verify") {
      verify = true;
    } else if (a == "--annotate") {
      annotate = true;
    } else if (a == "compile" && !compile_cmd && !run_cmd && !verify_cmd && file.empty()) {
      compile_cmd = true;
    } else if (!a.empty() && a[0] == '-') {
      return Fail(absl::StrCat("unknown option '", a, "' (see kirc --help)"));
    } else if (file.empty()) {
      file = a;
    } else if (compile_cmd) {
      more_files.push_back(a);  // several kernels in one code object
    } else {
      return Fail(absl::StrCat("unexpected argument '", a, "' (see kirc --help)"));
    }
  }
  if (!code_object.empty() && !run_cmd)
    return Fail("--code-object is an option of `kirc run` (see kirc --help)");
  if (run_cmd) return RunCommand(file, mcpu, device, seed, dump_dir, code_object, llvm_bin);
  if (verify_cmd) return VerifyCommand(file, mcpu);
  if (!compile_cmd && file.empty()) {
    if (!mcpu.empty() || emit != "asm" || !out.empty() || annotate || verify)
      return Fail("options need a command: kirc compile FILE.kir [options] (see kirc --help)");
    return MainJob(llvm_bin);
  }
  if (file.empty()) return Fail("compile needs a .kir file (see kirc --help)");
  if (emit != "asm" && emit != "obj" && emit != "mir" && emit != "kir" && emit != "bundle")
    return Fail(absl::StrCat("--emit must be asm, obj, bundle, mir or kir, not '", emit, "'"));
  if (!more_files.empty() || emit == "bundle" || absl::StrContains(mcpu, ',')) {
    std::vector<std::string> files = {file};
    files.insert(files.end(), more_files.begin(), more_files.end());
    return CompileModuleCommand(files, mcpu, emit, out, annotate, verify, llvm_bin);
  }
  std::ifstream in(UserPath(file), std::ios::binary);
  if (!in) return Fail(absl::StrCat("cannot read '", UserPath(file), "': ", std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (emit == "kir") {
    // The canonical form of a kernel kirc accepts: parsed, --mcpu applied, validated;
    // a tile-level gemm kernel is printed as its promoted thread-level KIR.
    absl::StatusOr<kir::Kernel> k = kir::ParseKernel(text, file);
    if (!k.ok()) return Fail(k.status());
    if (!mcpu.empty()) k->target = mcpu;
    kir::CompileOptions vo;
    vo.filename = file;
    absl::StatusOr<const kir::TargetInfo*> t = kir::ResolveTarget(*k, vo);
    if (!t.ok()) return Fail(t.status());
    absl::StatusOr<kir::Kernel> p = kir::ValidateAndPromote(*k, **t, file);
    if (!p.ok()) return Fail(p.status());
    p->target = k->target;  // keep the target ID's feature suffixes
    return WriteOut(out, kir::PrintKernel(*p)) ? 0 : Fail("cannot write " + out);
  }
  kir::CompileOptions opts;
  opts.mcpu = mcpu;
  opts.annotate = annotate;
  opts.filename = file;
  absl::StatusOr<kir::Kernel> parsed = kir::ParseKernel(text, file);
  if (!parsed.ok()) return Fail(parsed.status());
  absl::StatusOr<kir::CompileResult> r = kir::Compile(*parsed, opts);
  if (!r.ok()) return Fail(r.status());
  // --verify: the report on stderr when the output itself goes to stdout.
  bool to_stdout = emit != "obj" && (out.empty() || out == "-");
  bool verified = !verify || VerifyAndReport(*parsed, *r, to_stdout ? std::cerr : std::cout);
  if (emit == "asm") return !WriteOut(out, r->assembly) ? Fail("cannot write " + out) : verified ? 0 : 1;
  if (emit == "mir") return !WriteOut(out, r->mir_text) ? Fail("cannot write " + out) : verified ? 0 : 1;
  absl::StatusOr<std::string> bin = kir::ResolveLlvmBin(llvm_bin);
  if (!bin.ok()) return Fail(bin.status());
  absl::StatusOr<std::string> obj = kir::CodeObjectFor(*r, *bin);
  if (!obj.ok()) return Fail(obj.status());
  if (out.empty()) {
    out = file;
    if (absl::EndsWith(out, ".kir")) out.resize(out.size() - 4);
    out += ".hsaco";
  }
  if (out == "-") return Fail("a code object is binary: give -o PATH");
  return !WriteOut(out, *obj) ? Fail("cannot write " + out) : verified ? 0 : 1;
}
