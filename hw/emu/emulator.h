// A CPU functional emulator for the AMDGCN kernels kirc (and LLVM) emit for
// gfx908 / gfx90a / gfx942: it runs a code object or kirc's assembly text over
// host buffers, strictly checking s_waitcnt coverage, LDS races between waves,
// races on global memory between work-items and MFMA/VALU hazards (see
// strict.h). No GPU is involved.
//
//   kir::emu::LaunchArgs a;
//   a.args = {a_bytes, b_bytes, c_bytes};      // one per metadata .args entry
//   absl::StatusOr<kir::emu::EmuStats> s =
//       kir::emu::RunCodeObject("/usr/lib/llvm-22/bin", hsaco, "", "gfx942", a);
//   // a.args[2] now holds C.
#ifndef KIRC_HW_EMU_EMULATOR_H_
#define KIRC_HW_EMU_EMULATOR_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/paged_bytes.h"
#include "compiler/ir/workgroups.h"

namespace kir::emu {

struct Program;     // program.h
struct KernelInfo;  // code_object.h

struct LaunchArgs {
  // One entry per kernel argument in metadata .args order: global_buffer args
  // get `bytes` (the emulator places each at its own 64-bit address, 256-byte
  // aligned, far apart, and writes the pointer into the kernarg segment at the
  // metadata offset; after the run `bytes` holds the buffer's final contents);
  // by_value args get `bytes` of exactly .size bytes copied into the kernarg
  // segment. Hidden arguments (value_kind hidden_*) may be left out (give
  // only the explicit ones) or passed empty: the emulator fills the ones it
  // knows (block counts, group sizes, remainders, grid dims) and zeroes the rest.
  std::vector<std::vector<uint8_t>> args;
  // Optional, indexed as `args`: a non-null entry makes that global_buffer
  // argument the sparse buffer it points to (updated in place; its `args`
  // entry is ignored): only the pages the kernel touches are materialised.
  std::vector<PagedBytes*> paged;
  // Where the n-th global_buffer argument (counting buffers only, in .args
  // order) is placed: buffer_addresses[n] when the vector has an entry for
  // it, else EmulatedBufferAddress(n) (hw/kernarg.h: 64 GiB apart, the low
  // dword 0xffffff00 so that 64-bit address carries matter). Callers choose
  // other placements to expose code that is right only for some pointers (a
  // carry that fires only when the low dword is closer to 2^32, a mask that
  // clears a pointer bit the default addresses lack). A buffer must end below
  // 0x7d00'0000'0000 (the queue, dispatch packet and kernarg segment lie
  // above) and not overlap another: else InvalidArgument.
  std::vector<uint64_t> buffer_addresses;
  std::array<int64_t, 3> grid{1, 1, 1};       // workgroups (HIP gridDim)
  std::array<int64_t, 3> workgroup{0, 0, 0};  // threads; 0 = .reqd_workgroup_size (error if absent)
  // The workgroups to run (`kirc run --workgroups`); default the whole grid.
  // The kernel still sees the whole grid (its sizes, ids); a box not inside
  // it is InvalidArgument.
  WorkgroupRange workgroups;
};

// The default instruction budget of a run (EmuOptions::max_instructions and
// `kirc run --max-instructions`): 20 times what the 1024^3 f16 GEMM needs
// (about 932,000 wave-instructions), so a kernel that spins stops after a
// minute or two with an error instead of running for hours.
inline constexpr int64_t kDefaultMaxInstructions = 20000000;

struct EmuOptions {
  // Strict checks (strict.h): pending loads, LDS races, reads of LDS bytes no
  // lane of the workgroup has written, hazards, races on global memory between
  // work-items (8 bytes of bookkeeping per argument-buffer byte, per dispatch).
  bool strict = true;
  // Budget: the wave-instructions the whole dispatch (all workgroups and waves)
  // may execute; one more is a ResourceExhausted error naming the budget, the
  // wave and the instruction, followed by `budget_hint`. 0 = no limit.
  // Deterministic (a count, not a time).
  int64_t max_instructions = kDefaultMaxInstructions;
  std::string budget_hint = "raise EmuOptions::max_instructions";
  int64_t max_wave_instructions = 100000000;  // hang guard: error when one wave exceeds it
  // Optional: for each instruction of the kernel, in program order, its
  // mnemonic (as it begins the instruction's text: "ds_write_b32", "v_mfma")
  // and a note on what it implements, e.g. the KIR op and its line (kirc run
  // passes its compile's). Messages that name an instruction add its note.
  // Ignored unless the count and every mnemonic match the program read.
  struct InstructionNote {
    std::string mnemonic, note;
  };
  std::vector<InstructionNote> instruction_notes;
};

struct EmuStats {
  // "salu", "smem", "valu", "vmem", "ds", "mfma", "waitcnt", "nop", "branch",
  // "barrier", "other": wave-instructions executed.
  std::map<std::string, int64_t> by_class;
  int64_t total = 0;
  int64_t waves = 0;
  int64_t mfma_macs = 0;  // M*N*K per MFMA wave-instruction
};

// Host bytes a run with `opts` allocates per byte of its argument buffers it
// touches, beside the buffers themselves: the global-race bookkeeping in
// strict mode (GlobalRaceTracker), a zero mapping of which only the pages
// of touched bytes become resident.
int64_t HostBookkeepingBytesPerBufferByte(const EmuOptions& opts);

// Runs kernel `kernel_name` (or the only kernel if empty) of a code object:
// disassembled with `llvm-objdump -d`, descriptor (.kd bytes: rsrc1/2/3,
// kernel_code_properties, group segment size) and metadata (llvm-readelf --notes).
// `mcpu` is a processor ("gfx90a": any feature settings) or a target ID
// ("gfx90a:xnack-": the code object's amdhsa.target must carry it).
absl::StatusOr<EmuStats> RunCodeObject(const std::string& llvm_bin, absl::string_view hsaco,
                                       absl::string_view kernel_name, const std::string& mcpu,
                                       LaunchArgs& args, const EmuOptions& opts = {});

// Runs kirc-style assembly text directly (the .s kirc prints: instructions,
// .amdhsa_kernel directives, .amdgpu_metadata YAML), no llvm-mc involved.
// Byte addresses in messages are estimated from encoding sizes, from 0.
absl::StatusOr<EmuStats> RunAssembly(absl::string_view asm_text, const std::string& mcpu,
                                     LaunchArgs& args, const EmuOptions& opts = {});

// The same in two steps, so one kernel can be loaded once and run many times
// (benchmarks, sweeps).
class LoadedKernel;
absl::StatusOr<std::shared_ptr<const LoadedKernel>> LoadCodeObject(
    const std::string& llvm_bin, absl::string_view hsaco, absl::string_view kernel_name,
    const std::string& mcpu);
absl::StatusOr<std::shared_ptr<const LoadedKernel>> LoadAssembly(absl::string_view asm_text,
                                                                 const std::string& mcpu);
// The instructions and the decoded descriptor and metadata of a loaded kernel
// (what the verifier's front end, verify/object/, proves).
const Program& ProgramOf(const LoadedKernel& kernel);
const KernelInfo& InfoOf(const LoadedKernel& kernel);
absl::StatusOr<EmuStats> RunKernel(const LoadedKernel& kernel, LaunchArgs& args,
                                   const EmuOptions& opts = {});

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_EMULATOR_H_
