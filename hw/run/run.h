// Compile a KIR kernel, run it on a device with seeded inputs, run the KIR
// reference interpreter on the same inputs, and compare: `kirc run`.
#ifndef KIRC_HW_RUN_RUN_H_
#define KIRC_HW_RUN_RUN_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/kernel.h"
#include "hw/check/compare.h"
#include "hw/device.h"
#include "hw/run/work.h"

namespace kir {

// Which inputs RunAndCheck uses and how it compares (docs/run.md
// "Input modes (--inputs)", `kirc run --inputs`).
enum class InputMode {
  // kExact when PlanExactInputs proves exact inputs exist, else kRandom;
  // then a kConversion pass per plan of PlanConversionPasses (one per chain
  // level) when the kernel has a narrowing conversion; a kRandom pass after
  // kExact when the kernel has an mfma/gemm and no conversion pass ran or
  // one of its conversions is rounded by none (UnroundedConversions), or an
  // f32 scalar could only be 1; and kAdversarial when the kernel has no
  // mfma/gemm (HasUnorderedSum).
  kAuto,
  // Exact inputs (ExactPlan), bit identity. Refused (FailedPrecondition,
  // naming the op) when the analysis cannot prove exactness.
  kExact,
  // Seeded random inputs (MakeInputs), the worst-case rounding bound per
  // element (CompareWithinBounds, from a magnitude shadow run).
  kRandom,
  // Adversarial inputs (MakeAdversarialInputs), bit identity. Refused
  // (FailedPrecondition) for a kernel with an mfma or gemm op.
  kAdversarial,
  // Conversion inputs (PlanConversionPasses, MakeConversionInputs), one
  // pass per chain level: every value bit-identical on both sides (mfma and
  // gemm sums exact), the operands of that level's narrowing conversions
  // carrying bits beyond the target's, special values for buffers only
  // converted; bit identity. Refused (FailedPrecondition, naming why) when the kernel has no
  // narrowing conversion or no such inputs exist.
  kConversion,
  // Not a --inputs choice: in auto mode, after the conversion pass, for
  // every output a narrowing conversion of an mfma/gemm result stores to
  // (f16, bf16, fp8: ComputedConversionOutputs), twice: the conversion
  // inputs with an argument behind that output scaled (SaturationPlan; with
  // alpha the other f32 scalars of the same epilogue, beta) so that the
  // values before its conversion lie around its type's max (the median
  // |value| the conversion pass stored to it, scaled, near max), then with
  // those arguments negated (around -max); +inf (the first pass) or NaN (the
  // second) at diagonal blocks of an MFMA operand (ExactFormat::diagonal);
  // bit identity. Outputs of one type and similar median behind the same
  // carrier share the passes; every further group's passes are named after
  // its outputs ("saturation (+max, P)"). The report says, per aimed
  // output, the median |value| the pass stored and whether that reached
  // the max (AimedOutputLine).
  kSaturation,
  // Not a --inputs choice: after the saturation passes, for each f16 or fp8
  // output as above: the carrier scaled down so that the median stored
  // |value| lies in its type's subnormal range ("subnormal (P)" for further
  // groups); bit identity.
  kSubnormal,
};
// "auto", "exact", "random", "adversarial", "conversion", "saturation", "subnormal".
const char* InputModeName(InputMode m);

struct RunOptions {
  std::string mcpu;      // empty: the kernel's target line
  std::string filename;  // the kernel's source file, for error positions
  // When the kernel is a promoted tile-level gemm (kir::ThreadLevelKernel):
  // the gemm's configuration, which compile errors name
  // (CompileOptions::gemm_tiling).
  std::string gemm_tiling;
  // The tile-level gemm kernel the kernel was promoted from (or null): when
  // exact inputs are impossible, its analysis (hw/check/exact.h) names the
  // reason in the user's terms (the gemm op and C) instead of a value the
  // promotion made up (`%outbf16_0_0_r0`).
  const Kernel* gemm_source = nullptr;
  uint64_t seed = 1;     // input seed (hw/check/inputs.h), for every input mode
  // Non-empty: write each buffer's NAME.in.npy / NAME.out.npy / NAME.ref.npy
  // and the scalar arguments' values as KERNEL.scalars.json there (the first
  // pass; an adversarial second pass as NAME.adversarial.{in,out,ref}.npy and
  // KERNEL.adversarial.scalars.json).
  std::string dump_dir;
  // `kirc run --dump-buffers=A,B`: with dump_dir, only these buffers' .npy
  // files are written (the scalars' JSON always); empty: every buffer. A
  // name that is not one of k's buffers is InvalidArgument naming them.
  // Each file holds the whole array (the .npy format), streamed from the
  // sparse buffer without a dense copy.
  std::vector<std::string> dump_buffers;
  // `kirc run --workgroups`: only these workgroups run, on the device (and
  // cross_check) and in the reference interpreter (the kernel still sees the
  // whole grid); every output element is compared, so elements no selected
  // workgroup writes must equal the input on both sides. Default: the whole
  // grid. A box outside k's grid is InvalidArgument naming the flag and the
  // grid; a device that runs whole grids only (HIP, rocjitsu) refuses it
  // (Unimplemented).
  WorkgroupRange workgroups;
  std::string llvm_bin;  // LLVM tools for the code object
  // Non-empty: run this existing code object (e.g. a kir_kernel build
  // output, or another compiler's) instead of compiling `k`. It must belong
  // to the kernel: its target (metadata amdhsa.target, else its ELF
  // header's e_flags: compiler/object/code_object_target.h) must be the
  // resolved target ID, and it must hold a kernel named k.name whose
  // explicit arguments bind to k's (hw/kernarg.h BindKernelArgs: by name
  // when the metadata names them all, in any order, else by position;
  // by-value arguments k lacks take `scalars`); otherwise RunAndCheck
  // returns InvalidArgument naming the path and what is wrong.
  std::string code_object_path;
  // `kirc run --scalar NAME=VALUE`, in the order given: NAME is one of k's
  // scalars (its value, for the device and the reference interpreter alike)
  // or, with code_object_path, a by-value argument of the code's kernel that
  // k lacks (its sizes, strides, leading dimensions), typed by the metadata.
  // Parsing and errors: ParseUserValues (hw/run/user_values.h).
  std::vector<std::pair<std::string, std::string>> scalars;
  // `kirc run --input NAME=FILE.npy`: buffer NAME's input from a .npy file
  // (dtype and element count exactly the buffer's; what `dump_dir` writes
  // reads back). With an input file, or a value for one of k's scalars, the
  // run is one pass on those values (the rest generated as `inputs` says),
  // compared bit for bit when k has no mfma or gemm and within the random
  // mode's rounding bound otherwise; `inputs` = kExact is then refused.
  std::vector<std::pair<std::string, std::string>> input_files;
  // The work behind the throughput figures of a timed (HIP) run; default
  // WorkOf(k). Pass WorkOf of the unpromoted kernel when `k` is a promoted
  // gemm, so TFLOP/s counts 2*M*N*K rather than the padded tiles' MFMAs.
  std::optional<KernelWork> work;
  InputMode inputs = InputMode::kAuto;
  // The reference interpreter's budget (InterpOptions::max_wave_ops; 0 = no
  // limit) and the hint appended to its error. `kirc run --max-instructions=N`
  // gives the emulator (EmuOptions::max_instructions) and the interpreter the
  // same N.
  int64_t max_reference_wave_ops = 0;
  std::string budget_hint;
  // Host bytes the run may use; -1: what the process may still allocate
  // (AvailableHostBytes, hw/run/host_memory.h). A run that needs more
  // (RunHostBytes: the pages it may touch) is refused with ResourceExhausted
  // before inputs are made, as is one whose mappings exceed an address-space
  // limit (RunAddressSpaceBytes, AvailableAddressSpace).
  int64_t host_memory_limit = -1;
  // Non-null: a second device (`kirc run --device=emu,rocjitsu`) runs the
  // same code object on the same inputs in every pass, and every buffer it
  // leaves must equal the first device's bit for bit (CompareDevices); a
  // difference fails the run as a mismatch with the reference does.
  Device* cross_check = nullptr;
  // Threads the run may use (`kirc run --threads`); 0: the machine's cores
  // (std::thread::hardware_concurrency). With 2 or more, the reference
  // interpreter (and in random mode its magnitude shadow) runs on a thread of
  // its own beside the device, when the host memory allows both at once
  // (else one after the other). The report and any error are the same for
  // every thread count: each pass takes the device's result first, as a
  // sequential run does.
  int threads = 0;
};

// The threads RunOptions::threads = 0 means: the machine's cores (at least 1).
int DefaultThreads();

// One run of the kernel on one set of inputs, compared with the reference.
struct CheckPass {
  InputMode mode = InputMode::kRandom;  // kExact, kRandom, kAdversarial, kConversion, kSaturation or kSubnormal
  // How reports name the pass: its mode, and a conversion pass's chain level
  // when there are several ("conversion (chain level 2 of 3)").
  std::string name;
  DeviceRun run;
  std::vector<BufferDiff> diffs;
  // With RunOptions::cross_check: the second device's run and the buffers
  // where it differs from the first device's (empty: bit-identical).
  std::optional<DeviceRun> cross_run;
  std::vector<DeviceDifference> cross_diffs;
  // Random inputs to a kernel with unordered sums: the buffers where the
  // second device is outside the rounding bound (their differences are not
  // explained by the unspecified order).
  std::vector<std::string> cross_unbounded;
  // Bytes the device changed that the kernel must leave alone (readonly
  // buffers, padding outside a shape): UntouchedBytesChanged; a failure.
  std::vector<std::string> untouched_changed;
  bool ok = false;
};

struct RunReport {
  DeviceRun run;                  // the first pass's
  std::vector<BufferDiff> diffs;  // the first pass's
  std::vector<CheckPass> passes;  // in order: exact or random, conversion, saturation, random, adversarial
  // Why exact inputs were not used ("FILE:LINE:COL: 'OP': why", FILE from
  // RunOptions::filename, the position when the op has one); empty when they
  // were or when the mode asked for none (random, adversarial).
  std::string exact_blocker;
  bool ok = false;   // every output of every pass within tolerance
  std::string text;  // human-readable report (device, inputs, scalar arguments, statistics, errors per buffer)
};

// Compiles `k`, builds its code object (or reads opts.code_object_path), runs
// it on `device` (and opts.cross_check) and the reference interpreter on the
// same seeded inputs of each pass opts.inputs asks for, and compares every
// output buffer (and the two devices' buffers, bit for bit). Errors: a
// kernel with no writable buffer (FailedPrecondition: there would be nothing
// to compare; checked first), kExact for a kernel the analysis cannot prove
// exact and kAdversarial for one with an mfma/gemm (FailedPrecondition, naming
// why), compile, toolchain, device or interpreter failures (among them the
// strict emulator's and the interpreter's reads of never-written LDS and
// their instruction budgets), a code object that is not k's (a numeric
// mismatch is not an error: it is RunReport::ok == false).
absl::StatusOr<RunReport> RunAndCheck(const Kernel& k, Device& device, const RunOptions& opts);

// The name of an MFMA that `k` uses (an mfma op, or a gemm's mfma clause)
// and target `t` lacks, or "" when t has all of them (runs on several
// targets skip such kernels, saying so).
std::string MfmaTargetLacks(const Kernel& k, const TargetInfo& t);

// The scalar arguments' values, "alpha = 1.52937353 (f32), n = 42 (i32)", or
// "" when `k` has none (a scalar named in `given` says so: "(f32, --scalar)");
// and the same as a JSON object
// {"alpha": {"type": "f32", "value": 1.52937353, "bits": "0x3fc3c1a0"}, ...}
// (a non-finite f32 value as the string "inf", "-inf" or "nan": JSON has no
// such literal; "bits" holds it exactly).
std::string FormatScalars(const Kernel& k, const KernelData& d, const std::set<std::string>& given = {});
std::string ScalarsJson(const Kernel& k, const KernelData& d);


}  // namespace kir

#endif  // KIRC_HW_RUN_RUN_H_
