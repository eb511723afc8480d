// kirc: compiles KIR kernels to AMDGCN assembly and code objects.
// Run without arguments it compiles the built-in 16x16x16 MFMA kernel for
// gfx942, assembles it and prints the assembly and a summary.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/analysis/gemm_config.h"
#include "compiler/api/compile.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/isa/hazard_table.h"
#include "compiler/passes/pipeline.h"
#include "compiler/tools/opt_passes.h"
#include "hw/emu/emu_device.h"
#include "hw/hip/hip_device.h"
#include "hw/rocjitsu/rocjitsu_device.h"
#include "hw/run/run.h"
#include "hw/run/user_values.h"
#include "verify/object/load.h"
#include "verify/verify.h"

namespace {

constexpr const char* kVersion = "kirc 0.1.0 (KIR -> AMDGCN for gfx908, gfx90a, gfx942, gfx950; LLVM 22 toolchain)";

constexpr const char* kHelp = R"(kirc: compile KIR kernels to AMDGCN for AMD CDNA GPUs (MFMA, LDS).

Usage:
  kirc                         compile the built-in 16x16x16 MFMA kernel for gfx942,
                               assemble it, print the assembly and a summary
  kirc compile FILE.kir [FILE2.kir ...] [options]
                               several files: one code object holding every
                               kernel (one target ID, distinct kernel names)
  kirc run FILE.kir [options]  compile, run on a device with seeded inputs, and compare
                               every output with the KIR reference interpreter
  kirc verify FILE.kir [--mcpu=TARGET] [--code-object=F.hsaco | --asm=F.s]
                               compile and prove with Z3 that every memory
                               instruction's address equals its KIR index
                               expression and stays in bounds; prints a report,
                               exit status 0 only if every access is proved.
                               With --code-object or --asm: prove that code
                               (any compiler's, or edited assembly) instead,
                               each memory instruction matched to the KIR
                               access it implements; --scalar NAME=VALUE fixes
                               the code's by-value arguments the .kir lacks
  kirc opt FILE.s|FILE.mir --mcpu=TARGET --run-pass=PASS[,PASS...] [-o OUT]
                               run passes (schedule, ds-pairing, regalloc,
                               waitcnt, hazards, xnack-clauses) on one function
                               of assembly or of MIR on virtual registers (as
                               --emit=mir and --stop-after print it; FILE "-":
                               standard input) and print it, as llc -run-pass
  kirc hazards [--mcpu=TARGET]
                               list the wait-state (hazard) rules the hazards
                               pass inserts s_nops for and the strict emulator
                               enforces: producer -> consumer: wait states (per
                               MFMA pass count where it depends on it); one
                               target or all four
  kirc --help | --version
  Options belong to their command: one that does not apply (e.g. --seed with
  compile) is an error.

Options for compile:
  --mcpu=TARGET     a target ID: gfx908, gfx90a, gfx942 or gfx950, optionally with
                    :sramecc+/- and :xnack+/- (e.g. gfx90a:xnack-,
                    gfx942:sramecc+:xnack-); default: the kernel's `target`
                    line. --emit=bundle takes a comma-separated list
  --emit=KIND       asm (default): assembly text for llvm-mc
                    obj: a code object (.hsaco): llvm-mc's object, laid out
                         as ld.lld -shared lays it out
                    bundle: a HIP offload bundle (.hipfb) with one code object
                         per --mcpu target ID (clang-offload-bundler's bytes), for
                         hipModuleLoadData
                    mir: machine IR on virtual registers as register
                         allocation receives it (after schedule and
                         ds-pairing: the text of --stop-after=ds-pairing)
                    kir: the kernel as canonical KIR text (a gemm kernel:
                         its promoted thread-level KIR)
  -o PATH, --output=PATH
                    where to write (default: standard output; for obj and
                    bundle of one file: FILE with the extension .hsaco or
                    .hipfb; several files need -o)
  --annotate        comment each instruction with its KIR op and, for memory
                    instructions, the IR access and vector elements it implements
  --llvm-bin=DIR    the LLVM that makes and reads code objects (default:
                    $KIRC_LLVM_BIN, else /usr/lib/llvm-22/bin, which kirc runs
                    in process; another directory's llvm-mc, ld.lld,
                    llvm-readelf and llvm-objdump run as processes)
  --verify          also verify the addresses (as `kirc verify`); the report
                    goes to standard error when the output is standard output;
                    exit status 1 unless every access is proved
  --stats           print the summary of each kernel: instructions by class,
                    VGPRs, AGPRs, SGPRs, LDS bytes, occupancy, compile time
                    (and code object size with --emit=obj/bundle); to standard
                    error when the output is standard output, else to
                    standard output
  Pass pipeline (as llc's options of the same names; passes in order:
  validate, promote, lower, schedule, ds-pairing, regalloc, waitcnt, hazards,
  xnack-clauses, resources; promote runs only for gemm kernels, xnack-clauses
  not for xnack- code):
  --print-before=P,Q / --print-after=P,Q
                    print the kernel before/after each named pass (or all)
                    to standard error: KIR text before lower, MIR after
  --stop-after=P    stop after pass P and write the kernel as P left it (KIR
                    or MIR text) instead of assembly; one kernel and target
                    ID, not with --emit, --verify, --stats or --annotate.
                    A pass that does not apply prints nothing and stops
                    where it would have run
  --time-passes     per pass: wall time, share, instructions in -> out and the
                    pass's counters (waits, nops, pairs, registers), to
                    standard error
  --verify-machineinstrs
                    run the MIR verifier (register classes, tuple alignment,
                    operands, defined-before-used, control flow) after every
                    MIR pass; a failure is a kirc bug (exit status 2)

Options for verify (and --mcpu, --llvm-bin as above):
  --code-object=PATH
                    prove this code object's kernel (the one named as the
                    .kir kernel, or its only one) against FILE.kir, its twin:
                    the same arguments (by name, else in order) and
                    workgroup; a gemm's twin is its thread-level KIR
                    (`kirc compile --emit=kir`, for the configuration the
                    code implements). Read with llvm-objdump as the emulator
                    reads it
  --asm=PATH        the same for an assembly file (kirc's .s, edited or not,
                    or clang -S output with its .amdhsa_kernel and
                    .amdgpu_metadata), assembled and linked with LLVM first
                    (in process): the bytes llvm-mc makes are what is proved
  --scalar NAME=VALUE
                    (repeatable) fix a by-value argument of the code that
                    FILE.kir lacks (a size, a stride), by its metadata name
                    or, as '#N=VALUE', by position (N: its index among the
                    metadata's explicit arguments, from 0; for code whose
                    metadata names no argument, e.g. OpenCL built without
                    -cl-kernel-arg-info), parsed as `kirc run --scalar`
                    parses it; its kernarg bytes are then that value. Not
                    given: a free input (the addresses must be right for
                    every value)
  --lds-base=NAME=BYTES[,NAME=BYTES...]
                    where the code places the twin's LDS allocation NAME
                    (bytes from the start of LDS); the others are solved
                    from the code. Allocations must be disjoint and inside
                    the kernel's group segment

Options for run (and --mcpu, --llvm-bin as above):
  --device=KIND     emu: the CPU emulator (strict about waits, barriers, hazards);
                    hip: AMD GPU 0 through the HIP runtime, timed with HIP
                         events (median of 20 launches after 3 warm-up ones);
                         exit status 2 when there is none; the runtime
                         (libamdhip64) is loaded only then, from the HIP
                         root kirc was built for or $KIRC_HIP_LIBRARY
                    rocjitsu: AMD's functional emulator rocjitsu, from the
                         build --rocjitsu=DIR or $KIRC_ROCJITSU names
                         (third_party/rocjitsu/build.sh); exit status 2
                         when there is none
                    auto (default): hip when an AMD GPU of the kernel's
                         target is present, else emu; prints which and why
                    A,B (e.g. emu,rocjitsu): run on A, and on B with the
                         same inputs; every buffer B leaves must equal A's
                         bit for bit (else exit status 1, naming the first
                         differing buffer and element)
  --rocjitsu=DIR    the rocjitsu build for --device=rocjitsu (default:
                    $KIRC_ROCJITSU); rocjitsu is bounded by a wall-clock
                    limit of 900 s per launch, not by --max-instructions
  --inputs=MODE     exact: inputs +-m*2^e (small m per buffer) for which a
                         static analysis proves every product, partial sum
                         and conversion exact; the output must equal the
                         reference bit for bit (an error when no such
                         inputs exist: names the op)
                    adversarial: rounding ties, tiny addends, subnormals,
                         inf, NaN, and f16/bf16 fma operands that expose a
                         double rounding through f32; bit for bit (kernels
                         without mfma/gemm)
                    random: uniform in [-1, 1); each element within the
                         worst-case rounding error of the sum of the
                         absolute values of its terms (a sanity check)
                    conversion: as exact, but only mfma/gemm sums stay
                         exact and every value before a narrowing
                         conversion (to f16, bf16, fp8) carries bits
                         beyond the target's (the exact ties each pass
                         drew counted in its line), one pass per level of
                         a chain of conversions and per other target type
                         of a level its pass leaves exact (f16 beside fp8)
                         or draws fewer than 8 ties of; a quantisation's inputs
                         put every 3rd value in the target's subnormals;
                         buffers only converted get NaN, inf, max, beyond max,
                         subnormals, ties at every position, buffers
                         added or scaled on the way to a conversion some
                         NaN, inf, max and beyond; bit for bit; the
                         report names conversions a pass never rounds
                    auto (default): exact if the analysis proves it, else
                         random (saying which op prevents exact); then
                         conversion when the kernel has a narrowing
                         conversion; then, when it converts an mfma/gemm
                         result to f16, bf16 or fp8, per such output
                         (outputs one scale serves share them) two
                         saturation passes (alpha, with beta, or an operand
                         behind it scaled so the values stored reach the
                         type's max, the scale measured by reference-only
                         runs: a carrier entering twice scaled by the
                         root, a second one when the first's range ends;
                         then negated toward -max; +inf, then
                         NaN, in one operand of each MFMA chain, placed
                         to reach each output) and a subnormal pass (scaled
                         down into the type's subnormals; not bf16); the
                         report says per output whether the median stored
                         reached max or the subnormals, else that the pass
                         does not check it; bit for bit; without a
                         conversion pass on inputs of their own (exact in
                         f32 up to the conversion); a line says why one
                         does not run; also
                         adversarial when the kernel has no mfma/gemm,
                         else random when a conversion is rounded by no
                         conversion pass
  --seed=N          input seed (default 1), for every --inputs mode; random
                    f32/f16/bf16 buffers are uniform in [-1, 1) rounded to
                    the type, i32 buffers integers in [-1000, 1000], f32
                    scalars in [0.5, 0.875) or [1.125, 2), i32 scalars in
                    [1, 100]; the report
                    states which inputs ran and the scalars' values
  --max-instructions=N
                    budget of the emulated run, in wave-instructions over all
                    waves (default 20000000; 0: no limit); the reference
                    interpreter gets N wave-ops. Beyond it the run stops with
                    an error (deterministic: a count, not a time)
  --threads=N       threads the run uses (default: the machine's cores): with
                    2 or more the reference interpreter runs beside the
                    device (when the host memory allows both at once). The
                    report, the outputs, the first error and the
                    --max-instructions verdict are the same for every N
  --code-object=PATH
                    run this code object (a kir_kernel build output, or
                    another compiler's: hipBLASLt, aiter, clang) instead of
                    compiling FILE.kir, its twin: its kernel is FILE.kir's,
                    its arguments are bound to FILE.kir's by name (in any
                    order; by position when its metadata leaves names out)
                    and its target ID must be --mcpu's (from its metadata's
                    amdhsa.target, or else from its ELF header's e_flags)
  --scalar NAME=VALUE
                    (repeatable) a scalar argument's value, typed as the
                    argument is: integers in decimal or 0x hexadecimal
                    (the bits), floats in decimal, inf, nan or C
                    hexadecimal (0x1.8p-3). A scalar of FILE.kir: the value
                    the device and the reference interpreter both use. With
                    --code-object, a by-value argument FILE.kir lacks (sizes,
                    strides, ld), by its metadata name (quote names with
                    spaces) or by position, '#N=VALUE' (N counts the
                    metadata's explicit arguments from 0): each must be
                    given; pointer arguments FILE.kir lacks are an error
  --input NAME=FILE.npy
                    (repeatable) buffer NAME's input from a .npy file:
                    dtype as --dump writes it (<f4 f32, <f2 f16, <i4 i32,
                    <u2 bf16's raw bits), NAME's shape or flat, C order.
                    With --input, or --scalar for a scalar of FILE.kir, the
                    run is one pass on those values (the rest generated as
                    --inputs says; not exact), compared bit for bit when
                    the kernel has no mfma/gemm, else within the rounding
                    bound; the report says which inputs came from files
  --dump=DIR        write each buffer's input, output and reference as
                    DIR/NAME.{in,out,ref}.npy (and NAME.cross.npy, the
                    second device's output, with --device=A,B), and the
                    scalar arguments as DIR/KERNEL.scalars.json (--input
                    reads NAME.in.npy back), for the first pass; a later
                    pass to NAME.MODE.*.npy and KERNEL.MODE.scalars.json,
                    MODE its name (conversion, saturation, saturation-neg,
                    subnormal, random, adversarial; a chain's conversion
                    passes conversion-1, conversion-2, ... by level, a
                    level's other target type conversion-f16, conversion-1-f16)
  --dump-buffers=A,B  with --dump: write the .npy files of these buffers
                    only (each holds the whole array, streamed from the
                    sparse buffer; an unknown name is an error listing the
                    kernel's buffers)
  --workgroups=X0:X1[,Y0:Y1[,Z0:Z1]]
                    run only these workgroups (half-open ranges of ids; A
                    alone is A:A+1; an omitted dimension is whole), on the
                    device and in the reference; every output element is
                    compared, so the ones no selected workgroup writes must
                    keep their input values (emulator only; its strict
                    race check numbers at most 2^31 - 1 work-items per run,
                    so a larger grid runs in bands)
  Exit status 0 when every output is within tolerance, 1 when one is not,
  2 for errors (a kernel without a writable buffer, reads of LDS no thread
  wrote, an exhausted instruction budget, ...), the strict emulator's
  refusals of the code included (a missing s_waitcnt, a hazard, a race, an
  fp8 conversion of a value outside its format's range): the run stopped
  before comparing, and the message, naming the pass, the instruction and
  the lane, is a finding about the code, not about the machine.

Options for opt:
  --mcpu=TARGET     the target ID the passes run for (required)
  --run-pass=LIST   passes in the order to run them: schedule, ds-pairing
                    (ds_read2/ds_write2), regalloc (virtual to physical
                    registers), waitcnt (s_waitcnt), hazards (s_nop),
                    xnack-clauses (s_nop between soft clauses; nothing for
                    an xnack- target ID, as in compile). The input is one
                    function: a 'NAME:' line, then instructions, as kirc
                    prints assembly or MIR (--emit=mir, --stop-after; MIR
                    declares its virtual registers with .vreg lines).
                    Assembly must be what LLVM 22's assembler accepts
                    (checked in process, its diagnostics name line and
                    column); directives are skipped
  -o, --output=PATH the output (default: standard output)

Options take --flag=VALUE or --flag VALUE; --dump creates DIR if missing.
Relative paths are taken from the directory where you ran `bazel run`.

Exit status:
  0  success: compiled; every address proved; every output within tolerance
  1  the kernel failed a check: an address not proved (verify, --verify) or
     an output outside tolerance (run)
  2  an error, explained on standard error: usage (unknown command or
     option, a missing or invalid value, an option of another command), a
     file that cannot be read or written, a kernel kirc refuses, a missing
     LLVM tool or GPU, a run that stopped (the strict emulator refusing the
     code under test included: see run), a verifier query stopped by its
     wall-clock backstop before its resource budget ran out (never reported
     as unknown; $KIRC_VERIFY_BACKSTOP_SECONDS sets the backstop, default 60)
)";

// Exit statuses (kHelp, docs/compile.md "Exit status").
constexpr int kExitCheckFailed = 1;  // not every address proved; an output outside tolerance
constexpr int kExitError = 2;        // usage, I/O, a refused kernel, toolchain, device

std::string UserPath(const std::string& p) {
  if (p.empty() || p[0] == '/') return p;
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (wd == nullptr || *wd == '\0') return p;
  return absl::StrCat(wd, "/", p);
}

int Fail(const std::string& msg) {
  std::cerr << "kirc: " << msg << "\n";
  return kExitError;
}

int Fail(const absl::Status& st) { return Fail(std::string(st.message())); }

// Why `path` (absolute) cannot be written (errno `err`), and what to do.
std::string WriteError(const std::string& path, int err) {
  std::string why = absl::StrCat("cannot write '", path, "': ", std::strerror(err));
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (err == ENOENT && !dir.empty() && !std::filesystem::exists(dir, ec))
    absl::StrAppend(&why, "; the directory ", dir.string(), " does not exist: create it (mkdir -p ",
                    dir.string(), ") or write elsewhere");
  else if (err == EISDIR)
    absl::StrAppend(&why, "; give a file name, not a directory");
  else if (err == EACCES || err == EROFS || err == EPERM)
    absl::StrAppend(&why, "; choose a path you can write");
  return why;
}

// Writes `data` to `path` (standard output for "" or "-"); "" or why not.
std::string WriteOut(const std::string& path, const std::string& data) {
  if (path.empty() || path == "-") {
    std::cout << data << std::flush;
    return std::cout ? "" : absl::StrCat("cannot write to standard output: ", std::strerror(errno));
  }
  std::string p = UserPath(path);
  errno = 0;
  std::ofstream f(p, std::ios::binary);
  if (!f) return WriteError(p, errno != 0 ? errno : EIO);
  f << data;
  f.close();
  if (!f) return WriteError(p, errno != 0 ? errno : EIO);
  return "";
}

// Writes the output, then exits with `status` (a write error: kExitError).
int WriteAndExit(const std::string& path, const std::string& data, int status) {
  std::string err = WriteOut(path, data);
  return err.empty() ? status : Fail(err);
}

// The text of a .kir file, or an error naming it and why it cannot be read.
absl::StatusOr<std::string> ReadKirFile(const std::string& file) {
  const std::string p = UserPath(file);
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec))
    return absl::InvalidArgumentError(absl::StrCat(p, " is a directory, not a .kir file; give a kernel's file"));
  errno = 0;
  std::ifstream in(p, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", p, "': ", std::strerror(errno != 0 ? errno : EIO)));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read '", p, "': ", std::strerror(errno != 0 ? errno : EIO)));
  return ss.str();
}

// The resource summary of a compiled kernel (the main job and --stats);
// code_object_bytes < 0: no code object was made.
void PrintSummary(std::ostream& os, const std::string& kernel_name, const kir::CompileResult& r,
                  int64_t code_object_bytes = -1, double assemble_seconds = 0) {
  const kir::KernelResources& res = r.resources;
  os << "// ---- summary: kernel " << kernel_name << " ----------------------------------\n";
  os << "// kernel " << r.lowered.abi.kernargs.size() << " kernarg slot(s), target " << r.target_id.ToString()
     << "\n";
  os << "// instructions: " << r.stats.total << " (";
  bool first = true;
  for (const auto& [cls, n] : r.stats.by_class) {
    os << (first ? "" : ", ") << cls << " " << n;
    first = false;
  }
  os << ")\n";
  os << absl::StrFormat(
      "// registers: %d VGPRs, %d AGPRs, %d SGPRs (+6 reserved) ; LDS %d bytes ; occupancy %d "
      "waves/SIMD\n",
      res.arch_vgprs, res.agprs, res.sgprs, res.lds_bytes, res.occupancy);
  if (code_object_bytes < 0)
    os << absl::StrFormat("// compile time %.3f ms\n", r.compile_seconds * 1e3);
  else
    os << absl::StrFormat("// compile time %.3f ms ; assemble+link %.1f ms ; code object %d bytes\n",
                          r.compile_seconds * 1e3, assemble_seconds * 1e3, code_object_bytes);
}

// Options that take a value, and what the value is ("--seed needs a value (...)").
struct ValuedOption {
  const char* flag;
  const char* needs;
};
constexpr ValuedOption kValuedOptions[] = {
    {"--mcpu", "a target ID, e.g. gfx90a or gfx942:sramecc+:xnack-"},
    {"--emit", "asm, obj, bundle, mir or kir"},
    {"--output", "a path"},
    {"-o", "a path"},
    {"--llvm-bin", "a directory"},
    {"--device", "emu, hip, rocjitsu or auto, or two of emu, hip, rocjitsu (e.g. emu,rocjitsu)"},
    {"--rocjitsu", "a directory (a rocjitsu build: third_party/rocjitsu/build.sh --out)"},
    {"--seed", "an integer from 0 to 18446744073709551615"},
    {"--max-instructions", "an integer from 0 (no limit) to 9223372036854775807"},
    {"--threads", "an integer from 1 to 1024"},
    {"--code-object", "a path"},
    {"--scalar", "NAME=VALUE, a scalar argument's value (e.g. --scalar alpha=1.5, --scalar lda=0x40)"},
    {"--input", "NAME=FILE.npy, a buffer's input (e.g. --input A=a.npy)"},
    {"--asm", "a path"},
    {"--lds-base", "NAME=BYTES pairs separated by commas"},
    {"--dump", "a directory"},
    {"--dump-buffers", "buffer names separated by commas (e.g. --dump-buffers=C,D)"},
    {"--workgroups", "X0:X1[,Y0:Y1[,Z0:Z1]], half-open ranges of workgroup ids (e.g. --workgroups=2047:2048)"},
    {"--inputs", "auto, exact, random, adversarial or conversion"},
    {"--print-before", "pass names separated by commas, or all"},
    {"--print-after", "pass names separated by commas, or all"},
    {"--stop-after", "one pass name"},
    {"--run-pass", "pass names separated by commas: waitcnt, hazards, xnack-clauses"},
};

// The options of each command ("": kirc without a command, the main job).
const std::map<std::string, std::set<std::string>>& OptionsOf() {
  static const auto* m = new std::map<std::string, std::set<std::string>>{
      {"compile",
       {"--mcpu", "--emit", "--output", "-o", "--annotate", "--llvm-bin", "--verify", "--stats", "--print-before",
        "--print-after", "--stop-after", "--time-passes", "--verify-machineinstrs"}},
      {"run",
       {"--mcpu", "--llvm-bin", "--device", "--rocjitsu", "--seed", "--max-instructions", "--code-object", "--dump",
        "--inputs", "--threads", "--scalar", "--input", "--workgroups", "--dump-buffers"}},
      {"verify", {"--mcpu", "--code-object", "--asm", "--lds-base", "--llvm-bin", "--scalar"}},
      {"opt", {"--mcpu", "--run-pass", "--output", "-o"}},
      {"hazards", {"--mcpu"}},
      {"", {"--llvm-bin"}},
  };
  return *m;
}

// A non-negative decimal integer: digits only (strtoull would take "-5" as 2^64 - 5).
std::optional<uint64_t> ParseCount(const std::string& v) {
  if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  errno = 0;
  unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
  if (errno != 0) return std::nullopt;
  return static_cast<uint64_t>(n);
}

// `kirc hazards [--mcpu=TARGET]`: the wait-state rules the hazard pass
// inserts s_nops for and the strict emulator enforces, one target or all
// four (compiler/isa/hazard_table.h HazardRules).
int HazardsCommand(const std::string& mcpu) {
  std::vector<const kir::TargetInfo*> targets;
  if (mcpu.empty()) {
    for (const kir::TargetInfo* t : kir::AllTargets()) targets.push_back(t);
  } else {
    absl::StatusOr<const kir::TargetInfo*> t = kir::LookupTarget(mcpu);
    if (!t.ok()) return Fail(t.status());
    targets.push_back(*t);
  }
  for (const kir::TargetInfo* t : targets) {
    std::cout << "# " << t->name
              << ": wait states (instructions issued; s_nop N gives N + 1) required between producer and consumer\n";
    for (const kir::HazardRuleText& r : kir::HazardRules(*t))
      std::cout << r.producer << " -> " << r.consumer << ": " << r.wait_states << "\n";
  }
  return 0;
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
  std::cout << r->assembly << "\n";
  PrintSummary(std::cout, "mma_16x16x16_f16", *r, static_cast<int64_t>(obj->size()), secs);
  return 0;
}

// `kirc verify` and `kirc compile --verify`: the address verifier's report;
// 0 every access proved, kExitCheckFailed not, kExitError the verifier's error.
// The verifier's wall-clock backstop per Z3 query can be set (in seconds, for
// tests and slow machines) with the environment variable
// KIRC_VERIFY_BACKSTOP_SECONDS; it never decides a verdict (a query it stops
// is an error, exit 2).
// The verifier's options; KIRC_VERIFY_BACKSTOP_SECONDS sets the backstop.
absl::StatusOr<kir::VerifyOptions> VerifyOptionsFromEnv() {
  kir::VerifyOptions vo;
  if (const char* env = std::getenv("KIRC_VERIFY_BACKSTOP_SECONDS"); env != nullptr && *env != '\0') {
    double secs = 0;
    if (!absl::SimpleAtod(env, &secs) || !(secs > 0) || secs > 1e6)
      return absl::InvalidArgumentError(absl::StrCat("KIRC_VERIFY_BACKSTOP_SECONDS='", env,
                               "' is not a number of seconds in (0, 1000000] (the verifier's wall-clock backstop "
                               "per query; unset it for the default ", vo.timeout_seconds, " s)"));
    vo.timeout_seconds = secs;
  }
  return vo;
}

int VerifyAndReport(const kir::Kernel& k, const kir::CompileResult& r, std::ostream& os) {
  absl::StatusOr<kir::VerifyOptions> vo = VerifyOptionsFromEnv();
  if (!vo.ok()) return Fail(vo.status());
  absl::StatusOr<kir::VerifyResult> v = kir::VerifyAddresses(k, *r.target, r.lowered, *vo);
  if (!v.ok()) return Fail(absl::StrCat("verify: ", v.status().message()));
  os << v->Report();
  return v->all_proved ? 0 : kExitCheckFailed;
}

int VerifyCommand(const std::string& file, const std::string& mcpu, const std::string& code_object,
                  const std::string& asm_path, const std::map<std::string, int64_t>& lds_base,
                  const std::optional<std::string>& llvm_flag,
                  const std::vector<std::pair<std::string, std::string>>& scalars) {
  if (file.empty()) return Fail("verify needs a .kir file (see kirc --help)");
  absl::StatusOr<std::string> text = ReadKirFile(file);
  if (!text.ok()) return Fail(text.status());
  absl::StatusOr<kir::Kernel> k = kir::ParseKernel(*text, file);
  if (!k.ok()) return Fail(k.status());
  if (code_object.empty() && asm_path.empty()) {
    if (!scalars.empty())
      return Fail("--scalar fixes by-value arguments of code given with --code-object or --asm that the .kir "
                  "lacks; kirc's own code has only the .kir's arguments, proved for every value");
    if (!lds_base.empty())
      return Fail("--lds-base places the LDS of code given with --code-object or --asm; kirc's own code "
                  "places it itself");
    kir::CompileOptions opts;
    opts.mcpu = mcpu;
    opts.filename = file;
    absl::StatusOr<kir::CompileResult> r = kir::Compile(*k, opts);
    if (!r.ok()) return Fail(r.status());
    return VerifyAndReport(*k, *r, std::cout);
  }
  // Code kirc did not just compile: matched against the twin's accesses.
  if (!code_object.empty() && !asm_path.empty()) return Fail("give --code-object or --asm, not both");
  const std::string target_text = !mcpu.empty() ? mcpu : k->target;
  if (target_text.empty())
    return Fail(absl::StrCat(file, ": kernel '", k->name, "' names no target: give --mcpu (the code's target)"));
  absl::StatusOr<kir::TargetId> id = kir::ParseTargetId(target_text);
  if (!id.ok()) return Fail(id.status());
  kir::CodeInput in;
  in.mcpu = target_text;
  in.lds_base = lds_base;
  const std::string& path = code_object.empty() ? asm_path : code_object;
  absl::StatusOr<std::string> bytes = kir::ReadRegularFileBytes(path, int64_t{1} << 30);  // no code object is 1 GiB
  if (!bytes.ok()) return Fail(bytes.status());
  const bool is_elf = absl::StartsWith(*bytes, "\x7f" "ELF");
  absl::StatusOr<std::string> bin = kir::ResolveLlvmBin(llvm_flag);
  if (!bin.ok()) return Fail(bin.status());
  in.llvm_bin = *bin;
  if (!code_object.empty()) {
    if (kir::HasOffloadBundleMagic(*bytes))
      return Fail(absl::StrCat("code object ", path, ": a clang offload bundle, not a code object: unbundle the entry "
                               "for ", id->ToString(), " (clang-offload-bundler -unbundle -type=o -targets=hipv4-"
                               "amdgcn-amd-amdhsa--", id->ToString(), " -input=", path, " -output=FILE.hsaco)"));
    if (!is_elf) return Fail(absl::StrCat("code object ", path, ": not an ELF file"));
    in.code_object = std::move(*bytes);
  } else {
    if (is_elf) return Fail(absl::StrCat(path, ": an ELF file, not assembly: give it with --code-object"));
    in.assembly = std::move(*bytes);
    in.assemble = true;  // the verifier reads llvm-mc's bytes
  }
  in.twin_filename = file;
  in.code_filename = path;
  if (!scalars.empty()) {
    // Typed and parsed as `kirc run --scalar` does, against the code's
    // metadata (the kernel named as the twin; if there is none,
    // LoadCodeForVerify says which there are).
    std::optional<kir::KernelNotes> notes;
    absl::StatusOr<std::string> obj =
        in.assemble ? kir::BuildCodeObject(in.llvm_bin, in.assembly, target_text) : in.code_object;
    absl::StatusOr<std::string> text = obj.ok() ? kir::ReadElfNotes(in.llvm_bin, *obj) : obj.status();
    absl::StatusOr<std::vector<kir::KernelNotes>> all =
        text.ok() ? kir::ParseKernelNotes(*text) : absl::StatusOr<std::vector<kir::KernelNotes>>(text.status());
    if (all.ok())
      for (const kir::KernelNotes& n : *all)
        if (n.name == k->name) notes = n;
    if (notes) {
      absl::StatusOr<kir::UserValues> uv = kir::ParseUserValues(*k, scalars, {}, &*notes);
      if (!uv.ok()) return Fail(uv.status());
      if (!uv->kir_scalars.empty())
        return Fail(absl::StrCat("--scalar ", uv->kir_scalars.begin()->first, ": a scalar argument of ", file,
                                 "; the verifier proves the addresses for every value of it. --scalar with verify "
                                 "fixes by-value arguments of the code that the .kir lacks (by metadata name, or "
                                 "'#N=VALUE' by position): to fix this one, drop it from the .kir"));
      in.by_value = uv->extra;
    } else {
      // No metadata for the twin's kernel: LoadCodeForVerify's error names
      // what is wrong; should it load, each value is still refused.
      for (const auto& [name, value] : scalars) in.by_value[name] = {};
    }
  }
  absl::StatusOr<kir::LoweredKernel> code = kir::LoadCodeForVerify(*k, *id->target, in);
  if (!code.ok()) return Fail(code.status());
  absl::StatusOr<kir::VerifyOptions> vo = VerifyOptionsFromEnv();
  if (!vo.ok()) return Fail(vo.status());
  vo->match_accesses = true;
  absl::StatusOr<kir::VerifyResult> v = kir::VerifyAddresses(code->kernel, *id->target, *code, *vo);
  if (!v.ok()) return Fail(absl::StrCat("verify: ", v.status().message()));
  std::cout << v->Report();
  return v->all_proved ? 0 : kExitCheckFailed;
}

// The values `kirc run` takes from the command line for the run itself.
struct RunValues {
  std::vector<std::pair<std::string, std::string>> scalars;      // --scalar NAME=VALUE
  std::vector<std::pair<std::string, std::string>> input_files;  // --input NAME=FILE.npy
  kir::WorkgroupRange workgroups;                                 // --workgroups
  std::vector<std::string> dump_buffers;                          // --dump-buffers
};

// --workgroups=X[,Y[,Z]], each A:B (workgroups A to B-1) or A (workgroup A
// alone); an omitted dimension is whole.
absl::StatusOr<kir::WorkgroupRange> ParseWorkgroups(const std::string& v) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--workgroups needs X0:X1[,Y0:Y1[,Z0:Z1]] (half-open ranges of workgroup ids; A alone is A:A+1, an omitted "
        "dimension is whole; e.g. --workgroups=2047:2048 or --workgroups=0:4,10:12), not '", v, "': ", why));
  };
  const std::vector<std::string> dims = absl::StrSplit(v, ',');
  if (dims.size() > 3) return bad("more than 3 dimensions");
  kir::WorkgroupRange r;
  r.end = {-1, -1, -1};
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::vector<std::string> ends = absl::StrSplit(dims[d], ':');
    int64_t lo = 0, hi = 0;
    if (ends.size() > 2 || !absl::SimpleAtoi(ends[0], &lo) || lo < 0 ||
        (ends.size() == 2 && (!absl::SimpleAtoi(ends[1], &hi) || hi < 0)))
      return bad(absl::StrCat("'", dims[d], "' is not A:B or A with non-negative integers A and B"));
    if (ends.size() == 1) {
      if (lo == INT64_MAX) return bad(absl::StrCat("'", dims[d], "' is too large"));
      hi = lo + 1;
    }
    if (hi <= lo) return bad(absl::StrCat("the range ", dims[d], " is empty (B must exceed A)"));
    r.begin[d] = lo, r.end[d] = hi;
  }
  return r;
}

int RunCommand(const std::string& file, const std::string& mcpu, const std::string& device,
               const std::string& rocjitsu_dir, uint64_t seed, const std::string& dump_dir, const std::string& code_object,
               const std::optional<std::string>& llvm_flag, int64_t max_instructions, const std::string& inputs,
               int threads, const RunValues& values) {
  if (file.empty()) return Fail("run needs a .kir file (see kirc --help)");
  const std::vector<std::string> devices = absl::StrSplit(device, ',');
  for (const std::string& d : devices)
    if (d != "emu" && d != "hip" && d != "rocjitsu" && d != "auto")
      return Fail(absl::StrCat("--device must be emu, hip, rocjitsu or auto, or two of emu, hip and rocjitsu "
                               "separated by a comma (a cross-check), not '", device, "'"));
  if (devices.size() > 2 || (devices.size() == 2 && (devices[0] == devices[1] || devices[0] == "auto" ||
                                                     devices[1] == "auto")))
    return Fail(absl::StrCat("--device=", device, ": a cross-check names two different devices among emu, hip and "
                             "rocjitsu, e.g. --device=emu,rocjitsu"));
  if (!rocjitsu_dir.empty() && std::find(devices.begin(), devices.end(), "rocjitsu") == devices.end())
    return Fail("--rocjitsu=DIR names the rocjitsu build for --device=rocjitsu (or emu,rocjitsu); no device here "
                "is rocjitsu");
  std::optional<kir::InputMode> mode;
  for (kir::InputMode m : {kir::InputMode::kAuto, kir::InputMode::kExact, kir::InputMode::kRandom,
                           kir::InputMode::kAdversarial, kir::InputMode::kConversion})
    if (inputs == kir::InputModeName(m)) mode = m;
  if (!mode)
    return Fail(absl::StrCat("--inputs must be auto, exact, random, adversarial or conversion, not '", inputs, "'"));
  if (dump_dir.empty() && !values.dump_buffers.empty())
    return Fail("--dump-buffers limits what --dump writes: give --dump=DIR too");
  if (!dump_dir.empty()) {
    // --dump=DIR: made if missing (as mkdir -p), before anything runs.
    std::error_code ec;
    if (std::filesystem::exists(dump_dir, ec) && !std::filesystem::is_directory(dump_dir, ec))
      return Fail(absl::StrCat("--dump: '", dump_dir, "' exists and is not a directory; give a directory"));
    std::filesystem::create_directories(dump_dir, ec);
    if (ec)
      return Fail(absl::StrCat("--dump: cannot create the directory '", dump_dir, "': ", ec.message(),
                               "; give a directory you can write"));
  }
  absl::StatusOr<std::string> text = ReadKirFile(file);
  if (!text.ok()) return Fail(text.status());
  absl::StatusOr<kir::Kernel> k = kir::ParseKernel(*text, file);
  if (!k.ok()) return Fail(k.status());
  const kir::KernelWork work = kir::WorkOf(*k);  // before promotion: a gemm's 2*M*N*K
  std::string gemm_tiling;  // the gemm's configuration, which compile errors name
  std::optional<kir::Kernel> gemm_source;  // the tile-level kernel, for exact mode's messages
  if (kir::HasGemm(*k)) {
    gemm_source = *k;
    // The device runs, and the reference interpreter checks, the promoted kernel.
    kir::CompileOptions vo;
    vo.mcpu = mcpu;
    vo.filename = file;
    absl::StatusOr<kir::Kernel> p = kir::ThreadLevelKernel(*k, vo, &gemm_tiling);
    if (!p.ok()) return Fail(p.status());
    *k = *std::move(p);
  }
  absl::StatusOr<std::string> bin = kir::ResolveLlvmBin(llvm_flag);
  if (!bin.ok()) return Fail(bin.status());
  // The devices: the emulator, AMD GPU 0 through HIP (hw/hip) or rocjitsu
  // (hw/rocjitsu); a second one cross-checks the first bit for bit. The line
  // "device: ..." of --device=auto is printed with the report, so stdout
  // stays empty when the kernel does not compile or the run fails.
  const std::string budget_hint = "raise it with --max-instructions=N";
  std::string device_line;
  auto open = [&](const std::string& kind) -> absl::StatusOr<std::unique_ptr<kir::Device>> {
    if (kind == "rocjitsu") {
      kir::RocjitsuOptions rj;
      rj.dir = rocjitsu_dir;
      rj.llvm_bin = *bin;
      absl::StatusOr<std::unique_ptr<kir::RocjitsuDevice>> d = kir::OpenRocjitsuDevice(rj);
      if (!d.ok()) return absl::Status(d.status().code(), absl::StrCat("--device=rocjitsu: ", d.status().message()));
      return std::unique_ptr<kir::Device>(*std::move(d));
    }
    if (kind == "hip" || kind == "auto") {
      kir::HipOptions ho;
      ho.llvm_bin = *bin;
      absl::StatusOr<std::unique_ptr<kir::HipDevice>> hip = kir::OpenHipDevice(0, ho);
      if (kind == "hip") {
        if (!hip.ok()) return absl::Status(hip.status().code(), absl::StrCat("--device=hip: ", hip.status().message()));
        return std::unique_ptr<kir::Device>(*std::move(hip));
      }
      std::string why = hip.ok() ? "" : std::string(hip.status().message());
      if (hip.ok()) {
        // A GPU of another architecture cannot run the kernel's code object.
        kir::CompileOptions vo;
        vo.mcpu = mcpu;
        absl::StatusOr<const kir::TargetInfo*> t = kir::ResolveTarget(*k, vo);
        if (!t.ok()) return t.status();
        absl::Status arch = kir::CheckHipArch((*hip)->Arch(), (*t)->name, "HIP device 0");
        if (!arch.ok()) why = absl::StrCat("HIP device 0 is ", (*hip)->Arch(), ", the kernel's target ", (*t)->name);
      }
      if (why.empty()) {
        device_line = absl::StrCat("device: ", (*hip)->Name(), " (--device=auto: AMD GPU present)\n");
        return std::unique_ptr<kir::Device>(*std::move(hip));
      }
      device_line = absl::StrCat("device: emulator (--device=auto: ", why, ")\n");
    }
    kir::emu::EmuOptions eo;
    eo.max_instructions = max_instructions;
    eo.max_wave_instructions = max_instructions > 0 ? max_instructions : INT64_MAX;
    eo.budget_hint = budget_hint;
    return std::unique_ptr<kir::Device>(std::make_unique<kir::EmuDevice>(*bin, eo));
  };
  std::vector<std::unique_ptr<kir::Device>> devs;
  for (const std::string& d : devices) {
    absl::StatusOr<std::unique_ptr<kir::Device>> dev = open(d);
    if (!dev.ok()) return Fail(dev.status());
    devs.push_back(*std::move(dev));
  }
  kir::Device* dev = devs[0].get();
  kir::RunOptions ro;
  ro.mcpu = mcpu;
  ro.seed = seed;
  ro.filename = file;
  ro.gemm_tiling = gemm_tiling;
  ro.gemm_source = gemm_source ? &*gemm_source : nullptr;
  ro.dump_dir = dump_dir;
  ro.code_object_path = code_object;
  ro.llvm_bin = *bin;
  ro.work = work;
  ro.inputs = *mode;
  ro.max_reference_wave_ops = max_instructions;
  ro.budget_hint = budget_hint;
  ro.threads = threads;
  ro.scalars = values.scalars;
  ro.workgroups = values.workgroups;
  ro.dump_buffers = values.dump_buffers;
  ro.input_files = values.input_files;
  if (devs.size() == 2) ro.cross_check = devs[1].get();
  absl::StatusOr<kir::RunReport> r = kir::RunAndCheck(*k, *dev, ro);
  if (!r.ok()) return Fail(r.status());
  std::cout << device_line << r->text;
  return r->ok ? 0 : 1;
}

// The pass pipeline's debugging options of `kirc compile`.
struct PipelineFlags {
  std::set<std::string> print_before, print_after;
  std::string stop_after;
  bool time_passes = false;
  bool verify_machineinstrs = false;
};

// `kirc compile` with --emit=asm, mir, obj or bundle: one kernel, or several
// files in one code object holding every kernel, for one target ID or, with
// --emit=bundle, several (--mcpu=ID,ID: one code object per ID in a clang
// offload bundle).
int CompileModuleCommand(const std::vector<std::string>& files, const std::string& mcpu_list,
                         const std::string& emit, std::string out, bool annotate, bool verify, bool stats,
                         const std::optional<std::string>& llvm_flag, const PipelineFlags& pf) {
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
  if (!pf.stop_after.empty()) {
    if (files.size() > 1 || ids.size() > 1)
      return Fail("--stop-after writes one kernel as the pass left it: give one .kir file and one target ID");
    if (emit != "asm")
      return Fail(absl::StrCat("--stop-after writes the kernel as the pass left it (KIR or MIR text), not --emit=",
                               emit, ": drop --emit"));
    std::vector<std::string> finished;
    if (verify) finished.push_back("--verify");
    if (stats) finished.push_back("--stats");
    if (annotate) finished.push_back("--annotate");
    if (!finished.empty())
      return Fail(absl::StrCat("--stop-after leaves no finished code for ", absl::StrJoin(finished, " and "),
                               ": drop ", finished.size() > 1 ? "them" : "it"));
  }
  std::vector<kir::ModuleKernel> kernels;
  for (const std::string& f : files) {
    absl::StatusOr<std::string> text = ReadKirFile(f);
    if (!text.ok()) return Fail(text.status());
    absl::StatusOr<kir::Kernel> k = kir::ParseKernel(*text, f);
    if (!k.ok()) return Fail(k.status());
    kernels.push_back({*std::move(k), f});
  }
  std::vector<kir::ModuleResult> modules;
  for (const std::string& id : ids) {
    kir::CompileOptions opts;
    opts.mcpu = id;
    opts.annotate = annotate;
    opts.print_before = pf.print_before;
    opts.print_after = pf.print_after;
    opts.print = [](absl::string_view dump) { std::cerr << dump; };  // each dump names kernel and target
    opts.stop_after = pf.stop_after;
    opts.verify_machineinstrs = pf.verify_machineinstrs;
    absl::StatusOr<kir::ModuleResult> m = kir::CompileModule(kernels, opts);
    if (!m.ok()) return Fail(m.status());
    if (pf.time_passes)
      for (size_t i = 0; i < m->kernels.size(); ++i)
        std::cerr << "kernel " << kernels[i].kernel.name << " on " << m->target_id.ToString() << ":\n"
                  << kir::FormatPassTimes(m->kernels[i].passes);
    modules.push_back(*std::move(m));
  }
  if (!pf.stop_after.empty()) return WriteAndExit(out, modules[0].kernels[0].stopped_text, 0);
  // --verify and --stats: to stderr when the output itself goes to stdout.
  bool to_stdout = (emit == "asm" || emit == "mir") && (out.empty() || out == "-");
  std::ostream& report = to_stdout ? std::cerr : std::cout;
  int verified = 0;
  if (verify)
    for (const kir::ModuleResult& m : modules)
      for (size_t i = 0; i < kernels.size(); ++i)
        verified = std::max(verified, VerifyAndReport(kernels[i].kernel, m.kernels[i], report));
  // --stats: each kernel of each target ID (the code object's size is the module's).
  auto print_stats = [&](int64_t bytes, double secs) {
    if (!stats) return;
    for (const kir::ModuleResult& m : modules)
      for (size_t i = 0; i < kernels.size(); ++i)
        PrintSummary(report, kernels[i].kernel.name, m.kernels[i], bytes, secs);
  };
  const kir::ModuleResult& m0 = modules[0];
  if (emit == "asm" || emit == "mir") print_stats(-1, 0);
  if (emit == "asm") return WriteAndExit(out, m0.assembly, verified);
  if (emit == "mir") return WriteAndExit(out, m0.kernels[0].mir_text, verified);
  absl::StatusOr<std::string> bin = kir::ResolveLlvmBin(llvm_flag);
  if (!bin.ok()) return Fail(bin.status());
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::string> bytes =
      emit == "bundle" ? kir::BundleFor(modules, *bin) : kir::CodeObjectFor(m0, *bin);
  if (!bytes.ok()) return Fail(bytes.status());
  const double obj_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  print_stats(static_cast<int64_t>(bytes->size()), obj_secs);
  return WriteAndExit(out, *bytes, verified);
}

// kirc opt: passes on assembly (compiler/tools/opt_passes.h).
int OptCommand(const std::string& file, const std::string& mcpu, const std::vector<std::string>& passes,
               const std::string& out) {
  if (file.empty()) return Fail("opt needs an assembly file, or - for standard input (see kirc --help)");
  if (mcpu.empty()) return Fail("opt needs --mcpu=TARGET: the passes' rules depend on the target");
  std::string text;
  std::string name = file;
  if (file == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
    name = "<stdin>";
  } else {
    absl::StatusOr<std::string> t = ReadKirFile(file);
    if (!t.ok()) return Fail(t.status());
    text = *std::move(t);
  }
  absl::StatusOr<std::string> result = kir::RunPassesOnAssembly(text, mcpu, passes, name);
  if (!result.ok()) return Fail(result.status());
  return WriteAndExit(out, *result, 0);
}

}  // namespace

int KircMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::optional<std::string> llvm_bin;
  std::string command, mcpu, emit = "asm", out, file;  // command: compile, run, verify or "" (the main job)
  std::vector<std::string> more_files;  // compile: FILE2.kir ...
  std::vector<std::string> given;       // the options given, as typed, checked against the command's
  bool annotate = false, verify = false, stats = false;
  PipelineFlags pipeline;
  std::string device = "auto", rocjitsu_dir, dump_dir, code_object, inputs = "auto", asm_path;
  std::map<std::string, int64_t> lds_base;  // verify: --lds-base
  RunValues run_values;                     // run: --scalar, --input
  std::vector<std::string> run_passes;  // opt: --run-pass
  uint64_t seed = 1;
  int64_t max_instructions = kir::emu::kDefaultMaxInstructions;
  int threads = 0;  // run: the machine's cores
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    }
    if (a == "--version") {
      if (args.size() > 1) {
        std::vector<std::string> others;
        for (size_t j = 0; j < args.size(); ++j)
          if (j != i) others.push_back(absl::StrCat("'", args[j], "'"));
        return Fail(absl::StrCat("--version takes no other arguments (found ", absl::StrJoin(others, ", "),
                                 "): run `kirc --version` alone"));
      }
      std::cout << kVersion << "\n";
      return 0;
    }
    // --flag=VALUE or --flag VALUE (-o PATH).
    const ValuedOption* opt = nullptr;
    std::string v;
    for (const ValuedOption& o : kValuedOptions) {
      const std::string flag = o.flag, eq = flag + "=";
      if (flag != "-o" && absl::StartsWith(a, eq)) {
        opt = &o;
        v = a.substr(eq.size());
        break;
      }
      if (a == flag) {
        opt = &o;
        // The next argument is the value unless it is an option ("-5" is a
        // value, refused below; "-" is standard output).
        if (i + 1 < args.size() && (args[i + 1].size() < 2 || args[i + 1][0] != '-' ||
                                    std::isdigit(static_cast<unsigned char>(args[i + 1][1]))))
          v = args[++i];
        break;
      }
    }
    if (opt != nullptr) {
      const std::string flag = opt->flag;
      if (v.empty())
        return Fail(absl::StrCat(flag, " needs a value (", opt->needs, "): ",
                                 flag == "-o" ? std::string("-o PATH") : absl::StrCat(flag, "=VALUE or ", flag, " VALUE"),
                                 " (see kirc --help)"));
      given.push_back(flag);
      if (flag == "--mcpu") {
        mcpu = v;
      } else if (flag == "--emit") {
        emit = v;
      } else if (flag == "--output" || flag == "-o") {
        out = v;
      } else if (flag == "--llvm-bin") {
        llvm_bin = UserPath(v);
      } else if (flag == "--device") {
        device = v;
      } else if (flag == "--rocjitsu") {
        rocjitsu_dir = UserPath(v);
      } else if (flag == "--seed") {
        std::optional<uint64_t> n = ParseCount(v);
        if (!n) return Fail(absl::StrCat("--seed needs an integer from 0 to 18446744073709551615 (2^64 - 1), not '", v, "'"));
        seed = *n;
      } else if (flag == "--max-instructions") {
        std::optional<uint64_t> n = ParseCount(v);
        if (!n || *n > static_cast<uint64_t>(INT64_MAX))
          return Fail(absl::StrCat("--max-instructions needs an integer from 0 (no limit) to 9223372036854775807 "
                                   "(2^63 - 1), not '", v, "'"));
        max_instructions = static_cast<int64_t>(*n);
      } else if (flag == "--threads") {
        std::optional<uint64_t> n = ParseCount(v);
        if (!n || *n < 1 || *n > 1024)
          return Fail(absl::StrCat("--threads needs an integer from 1 to 1024, not '", v, "'"));
        threads = static_cast<int>(*n);
      } else if (flag == "--code-object") {
        code_object = UserPath(v);
      } else if (flag == "--asm") {
        asm_path = UserPath(v);
      } else if (flag == "--lds-base") {
        for (absl::string_view pair : absl::StrSplit(v, ',')) {
          std::vector<std::string> nv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
          std::optional<uint64_t> n = nv.size() == 2 ? ParseCount(nv[1]) : std::nullopt;
          if (nv.size() != 2 || nv[0].empty() || !n || *n > (uint64_t{1} << 31))
            return Fail(absl::StrCat("--lds-base needs NAME=BYTES pairs (an LDS allocation of the .kir kernel and "
                                     "its byte offset, 0 to 2147483648) separated by commas, not '", pair, "'"));
          if (lds_base.count(nv[0])) return Fail(absl::StrCat("--lds-base gives '", nv[0], "' twice"));
          lds_base[nv[0]] = static_cast<int64_t>(*n);
        }
      } else if (flag == "--scalar") {
        // NAME=VALUE: a name may hold '=' (another compiler's metadata), a value never does.
        const size_t eq = v.rfind('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
          return Fail(absl::StrCat("--scalar needs NAME=VALUE (a scalar argument and its value, e.g. --scalar "
                                   "alpha=1.5 or --scalar lda=0x40), not '", v, "'"));
        run_values.scalars.push_back({v.substr(0, eq), v.substr(eq + 1)});
      } else if (flag == "--input") {
        // NAME=FILE: names are KIR identifiers; a path may hold '='.
        const size_t eq = v.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
          return Fail(absl::StrCat("--input needs NAME=FILE.npy (a buffer argument and a .npy file of its "
                                   "elements, e.g. --input A=a.npy), not '", v, "'"));
        run_values.input_files.push_back({v.substr(0, eq), UserPath(v.substr(eq + 1))});
      } else if (flag == "--dump") {
        dump_dir = UserPath(v);
      } else if (flag == "--workgroups") {
        absl::StatusOr<kir::WorkgroupRange> w = ParseWorkgroups(v);
        if (!w.ok()) return Fail(w.status());
        run_values.workgroups = *w;
      } else if (flag == "--dump-buffers") {
        for (absl::string_view name : absl::StrSplit(v, ','))
          if (name.empty())
            return Fail(absl::StrCat("--dump-buffers needs buffer names separated by commas (e.g. "
                                     "--dump-buffers=C,D), not '", v, "'"));
          else
            run_values.dump_buffers.push_back(std::string(name));
      } else if (flag == "--inputs") {
        inputs = v;
      } else if (flag == "--print-before" || flag == "--print-after") {
        for (absl::string_view name : absl::StrSplit(v, ',')) {
          if (name != "all")
            if (absl::Status st = kir::CheckPassName(name, flag); !st.ok()) return Fail(st);
          (flag == "--print-before" ? pipeline.print_before : pipeline.print_after).insert(std::string(name));
        }
      } else if (flag == "--run-pass") {
        for (absl::string_view name : absl::StrSplit(v, ',')) run_passes.push_back(std::string(name));
      } else if (flag == "--stop-after") {
        if (!pipeline.stop_after.empty())
          return Fail(absl::StrCat("--stop-after is given twice (", pipeline.stop_after, " and ", v,
                                   "): compilation stops after one pass"));
        if (absl::StrContains(v, ','))
          return Fail(absl::StrCat("--stop-after takes one pass, not a list ('", v, "'); --print-after takes a list"));
        if (absl::Status st = kir::CheckPassName(v, flag); !st.ok()) return Fail(st);
        pipeline.stop_after = v;
      }
      continue;
    }
    for (const char* b : {"--time-passes", "--verify-machineinstrs", "--verify", "--annotate", "--stats"})
      if (absl::StartsWith(a, absl::StrCat(b, "=")))
        return Fail(absl::StrCat(b, " takes no value (found '", a, "'): write ", b));
    if (a == "--time-passes" || a == "--verify-machineinstrs") {
      given.push_back(a);
      (a == "--time-passes" ? pipeline.time_passes : pipeline.verify_machineinstrs) = true;
      continue;
    }
    if (a == "--verify" || a == "--annotate" || a == "--stats") {
      given.push_back(a);
      (a == "--verify" ? verify : a == "--annotate" ? annotate : stats) = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') return Fail(absl::StrCat("unknown option '", a, "' (see kirc --help)"));
    if (command.empty()) {
      if (a != "compile" && a != "run" && a != "verify" && a != "opt" && a != "hazards")
        return Fail(absl::StrCat("unknown command '", a, "' (commands: compile, run, verify, opt, hazards",
                                 absl::EndsWith(a, ".kir") ? absl::StrCat("; to compile it: kirc compile ", a) : "",
                                 "; see kirc --help)"));
      command = a;
    } else if (file.empty()) {
      file = a;
    } else if (command == "compile") {
      more_files.push_back(a);  // several kernels in one code object
    } else {
      return Fail(absl::StrCat("unexpected argument '", a, "': kirc ", command, " takes one ",
                               command == "opt" ? "assembly" : ".kir", " file (see kirc --help)"));
    }
  }
  // Every option must be one of the command's.
  for (const std::string& f : given) {
    if (OptionsOf().at(command).count(f)) continue;
    std::vector<std::string> owners;
    for (const char* c : {"compile", "run", "verify", "opt", "hazards"})
      if (OptionsOf().at(c).count(f)) owners.push_back(absl::StrCat("`kirc ", c, "`"));
    std::string of = absl::StrCat(f, " is an option of ", absl::StrJoin(owners, " and "));
    if (command.empty())
      return Fail(absl::StrCat(of, "; kirc without a command compiles the built-in kernel and takes only "
                               "--llvm-bin (see kirc --help)"));
    return Fail(absl::StrCat(of, ", not of `kirc ", command, "` (see kirc --help)"));
  }
  if (command == "run")
    return RunCommand(file, mcpu, device, rocjitsu_dir, seed, dump_dir, code_object, llvm_bin, max_instructions,
                      inputs, threads, run_values);
  if (command == "verify")
    return VerifyCommand(file, mcpu, code_object, asm_path, lds_base, llvm_bin, run_values.scalars);
  if (command == "opt") return OptCommand(file, mcpu, run_passes, out);
  if (command == "hazards") {
    if (!file.empty())
      return Fail(absl::StrCat("unexpected argument '", file, "': kirc hazards takes no file, only --mcpu=TARGET"));
    return HazardsCommand(mcpu);
  }
  if (command.empty()) return MainJob(llvm_bin);
  if (file.empty()) return Fail("compile needs a .kir file (see kirc --help)");
  if (emit != "asm" && emit != "obj" && emit != "mir" && emit != "kir" && emit != "bundle")
    return Fail(absl::StrCat("--emit must be asm, obj, bundle, mir or kir, not '", emit, "'"));
  if (emit == "kir" && (!pipeline.stop_after.empty() || !pipeline.print_before.empty() ||
                        !pipeline.print_after.empty() || pipeline.time_passes || pipeline.verify_machineinstrs))
    return Fail("--emit=kir prints the validated (promoted) kernel without running the pass pipeline: use "
                "--stop-after=promote for the same text, or drop --emit=kir");
  if (stats && emit == "kir")
    return Fail("--stats needs compiled code: use it with --emit=asm, obj, bundle or mir, not kir");
  std::vector<std::string> files = {file};
  files.insert(files.end(), more_files.begin(), more_files.end());
  if (emit == "kir" && files.size() == 1 && !absl::StrContains(mcpu, ',')) {
    // The canonical form of a kernel kirc accepts: parsed, --mcpu applied, validated;
    // a tile-level gemm kernel is printed as its promoted thread-level KIR.
    absl::StatusOr<std::string> text = ReadKirFile(file);
    if (!text.ok()) return Fail(text.status());
    absl::StatusOr<kir::Kernel> k = kir::ParseKernel(*text, file);
    if (!k.ok()) return Fail(k.status());
    if (!mcpu.empty()) k->target = mcpu;
    kir::CompileOptions vo;
    vo.filename = file;
    absl::StatusOr<kir::TargetId> t = kir::ResolveTargetId(*k, vo);
    if (!t.ok()) return Fail(t.status());
    vo.mcpu = t->ToString();  // the canonical target ID, feature suffixes kept
    absl::StatusOr<kir::Kernel> p = kir::ThreadLevelKernel(*k, vo);
    if (!p.ok()) return Fail(p.status());
    return WriteAndExit(out, kir::PrintKernel(*p), 0);
  }
  // asm, mir, obj and bundle, of one kernel or several: a module (a single
  // kernel's module assembly is its own assembly).
  return CompileModuleCommand(files, mcpu, emit, out, annotate, verify, stats, llvm_bin, pipeline);
}

// Out of memory is an error with exit status 2, never an abort: `kirc run`
// checks the host memory a run needs before it starts (hw/run/host_memory.h);
// this is the backstop for any allocation no estimate foresaw.
int main(int argc, char** argv) {
  try {
    return KircMain(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "kirc: out of host memory; raise the memory limit (ulimit -v, the cgroup's "
                 "memory.max) or run a smaller instance of the kernel\n";
    return 2;
  }
}
