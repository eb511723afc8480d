// What every device needs from a code object before a launch: the kernel's
// metadata (amdhsa.target and the `.args` kernarg layout of the
// NT_AMDGPU_METADATA note, read through `llvm-readelf --notes` and
// compiler/object/code_object_notes.h) and the kernarg segment packed by that
// layout. Shared by the emulator (hw/emu) and the HIP harness (hw/hip).
// Layout facts: AMDGPUUsage "Code Object V3+ Metadata" (.args .offset/.size/
// .value_kind) and "Kernel Argument Segment".
#ifndef KIRC_HW_KERNARG_H_
#define KIRC_HW_KERNARG_H_

#include <array>
#include <map>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/ir/kernel.h"
#include "hw/check/inputs.h"

namespace kir {

// One kernel of a code object as the loader sees it.
struct CodeObjectKernel {
  std::string target;  // amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx90a"; "" if absent
  KernelNotes notes;   // the kernel's metadata entry (.args in kernarg order)
};

// The `amdhsa.target` value in metadata text (llvm-readelf --notes output or
// the YAML itself), unquoted; "" if there is none.
std::string MetadataTarget(absl::string_view notes_text);

// The target ID of a target: "amdgcn-amd-amdhsa--gfx90a:xnack-" gives
// "gfx90a:xnack-"; a bare target ID is returned as it is.
absl::string_view TargetIdOf(absl::string_view target);
// The processor of a target or target ID: "amdgcn-amd-amdhsa--gfx90a:xnack-",
// "gfx942:sramecc+:xnack-" and "gfx908" give "gfx90a", "gfx942", "gfx908".
absl::string_view TargetProcessor(absl::string_view target);

// The entry named `name` (the only entry if `name` is empty). Errors:
// InvalidArgument listing the names when `name` is empty and there is not
// exactly one kernel; NotFound when no entry is named `name` ("it has no
// kernel 'x' (it has: a, b)").
absl::StatusOr<const KernelNotes*> PickKernel(const std::vector<KernelNotes>& kernels,
                                              absl::string_view name);

// Reads the metadata of code object `hsaco` with `llvm_bin`/llvm-readelf and
// picks kernel `name` (empty: the only one). Errors: those of ReadElfNotes
// (tool missing, not ELF), ParseKernelNotes and PickKernel.
absl::StatusOr<CodeObjectKernel> ReadCodeObjectKernel(const std::string& llvm_bin,
                                                      absl::string_view hsaco,
                                                      absl::string_view name);

// The value of a hidden argument the dispatch determines (value_kind
// hidden_block_count_{x,y,z}: workgroups, hidden_group_size_{x,y,z}: threads,
// hidden_grid_dims: 1..3, hidden_remainder_{x,y,z}: 0 (grids are whole
// workgroups), hidden_global_offset_{x,y,z}: 0 (as HIP launches);
// AMDGPUUsage "Code Object V5 Metadata"), nullopt for any other kind (the
// packer leaves those zero; the HIP runtime fills the hidden arguments it
// knows itself). The verifier takes the same values (verify/object).
// `grid` is in workgroups, `workgroup` in threads.
std::optional<uint64_t> HiddenArgValue(absl::string_view value_kind,
                                       const std::array<int64_t, 3>& grid,
                                       const std::array<int64_t, 3>& workgroup);

// The value of one explicit kernel argument.
struct KernargValue {
  std::string name;            // matched against the metadata's .name
  bool is_pointer = false;     // true: a global_buffer pointer (8 bytes)
  uint64_t pointer = 0;        // device address when is_pointer
  std::vector<uint8_t> bytes;  // by_value bytes (exactly .size of them) otherwise
};

// The device address of the n-th buffer argument (0-based, in the code
// object's argument order) of a launch on a simulated device (kirc's
// emulator, rocjitsu): each buffer 64 GiB apart
// with the low word just below 2^32 (256-byte aligned), so an address carry
// into the high word happens within a buffer's first 256 bytes and a wrong
// carry shows. Both devices use it, so a kernel sees the same addresses on both.
inline uint64_t EmulatedBufferAddress(int n) {
  return (static_cast<uint64_t>(n + 1) << 36) | 0xffffff00ull;
}
// The device address of the n-th buffer argument when the buffers placed
// before it end at `placed_end` (0: none): EmulatedBufferAddress(n) when
// that lies at or above placed_end (buffers of up to about 64 GiB), else the
// same low word at the first 64 GiB boundary above placed_end, so buffers of
// many GiB each still sit apart below 2^47 (and below the kernarg segment).
inline uint64_t EmulatedBufferAddressAfter(int n, uint64_t placed_end) {
  const uint64_t a = EmulatedBufferAddress(n);
  if (a >= placed_end) return a;
  return (((placed_end >> 36) + 1) << 36) | 0xffffff00ull;
}
// The kernarg segment's address on a simulated device.
inline constexpr uint64_t kEmulatedKernargAddress = 0x00007f0000000000ull;

// The kernarg segment for `kernel`: max(.kernarg_segment_size, end of the
// last .args entry) bytes, zero-filled, with every explicit argument
// (value_kind not hidden_*) at its .offset: pointers as 8 little-endian
// bytes, by_value arguments as their bytes; hidden arguments that
// HiddenArgValue knows are written too (truncated to their .size).
// `args` are matched to the explicit .args entries by name when every entry
// is named and found, otherwise by position (then the counts must agree).
// Errors (InvalidArgument, naming the argument): a count or name mismatch, a
// pointer for a by_value entry or bytes for a global_buffer one, a size other
// than .size (8 for pointers), a negative offset or size, a size above 4096;
// Unimplemented for a value_kind other than global_buffer, by_value and
// hidden_*. (An entry past .kernarg_segment_size lengthens the result: the
// caller decides whether that is acceptable.)
absl::StatusOr<std::vector<uint8_t>> PackKernargs(const KernelNotes& kernel,
                                                  const std::vector<KernargValue>& args,
                                                  const std::array<int64_t, 3>& grid,
                                                  const std::array<int64_t, 3>& workgroup);

// Checks that k's grid and workgroup can be dispatched: each workgroup
// extent 1..1024 work-items, each grid extent 1..2^32-1 workgroups and
// grid x workgroup (the AQL packet's grid_size, in work-items) at most
// 2^32-1 per dimension (AMDGPUUsage, hsa_kernel_dispatch_packet_t).
// Error: InvalidArgument naming the kernel and both shapes.
absl::Status CheckDispatchShape(const Kernel& k);

// Which value each explicit (non-hidden) argument of a code object's kernel
// gets in a launch of KIR kernel `k`: one of k's buffers, one of k's
// scalars, or a by-value argument k lacks (KernelData::extra_args, `kirc run
// --scalar`).
struct ArgBinding {
  enum class Kind { kBuffer, kScalar, kExtra };
  Kind kind = Kind::kBuffer;
  size_t note = 0;   // index in KernelNotes::args
  std::string name;  // k's argument (kBuffer, kScalar) or the key in `extra`: metadata name or "#N" (kExtra)
};

// Binds the explicit arguments of `notes`, in order, for a launch of `k`
// with `extra` (by-value bytes by metadata name, or by position: key "#N",
// PositionalArgKey). A value keyed "#N" binds explicit argument N (it must
// be by_value, of its .size, and no argument of k's). When the metadata
// names every explicit argument the others are matched by name, in any
// order (names are compared byte for byte: spaces and other characters are
// fine; a name may repeat among the arguments k lacks, e.g. padding, and
// one value serves them all); otherwise k's arguments bind by position to
// the explicit arguments no "#N" value takes, the counts equal, and `extra`
// holds no named value. Errors (InvalidArgument, naming every argument
// concerned and what to do): a "#N" value PositionalArg refuses, of another
// size, for one of k's arguments or for an argument given twice; an
// argument of k the code lacks (or one it names twice); a kind or size that
// differs (buffers are global_buffer of 8 bytes, scalars by_value of 4);
// pointer (global_buffer) arguments k lacks; by-value arguments k lacks
// that `extra` gives no value (or a value of another size); a value in
// `extra` for no such argument; another value_kind (images, samplers,
// dynamic LDS pointers, ...).
absl::StatusOr<std::vector<ArgBinding>> BindKernelArgs(const Kernel& k, const KernelNotes& notes,
                                                       const std::map<std::string, std::vector<uint8_t>>& extra);

// "'lda' (by_value, 4 bytes at offset 40, u32)" for error messages: the
// argument's name (escaped when it has bytes outside printable ASCII),
// value_kind, size, offset and type. `position` >= 0 is the argument's
// position among the explicit arguments (PositionalArgKey): an unnamed
// argument is then "(unnamed, #2) (by_value, ...)" and, with `show_position`,
// a named one "'lda' (#2, by_value, ...)"; without it "(unnamed) (...)".
std::string DescribeArgNote(const ArgNote& a, int position = -1, bool show_position = false);

// `--scalar '#N=VALUE'` (kirc run and verify with --code-object) addresses
// the code object's explicit argument N by position: 0-based in the
// metadata's .args order, hidden_* arguments not counted. Such a value is
// keyed "#N" (PositionalArgKey) in KernelData::extra_args and
// CodeInput::by_value, next to values keyed by metadata .name ('#' is in no
// C identifier, so no OpenCL or HIP argument name looks like it).
std::string PositionalArgKey(size_t n);
// N for a key "#N" (decimal digits, at most 9 of them); nullopt for any
// other key (a metadata name).
std::optional<size_t> PositionalArgIndex(absl::string_view key);
// InvalidArgument for a key that starts with '#' but is not "#N" ('#-1',
// '#+2', '#x', more than 9 digits): "'#-1' is not a valid argument index
// (write #N with N from 0 to M)", M the last explicit argument of `notes`
// (no '#' is in any C identifier, so such a key is never a name). OK for
// "#N" (leading zeros allowed: '#02' is #2) and for names.
absl::Status CheckPositionalKey(const KernelNotes& notes, absl::string_view key);
// The index in `notes.args` of explicit argument N. Errors (InvalidArgument,
// for the caller to prefix with the flag): there is no explicit argument N,
// or it is not by_value (a pointer is one of the .kir's buffers); the
// message lists every explicit argument with its position, kind, size and
// offset.
absl::StatusOr<size_t> PositionalArg(const KernelNotes& notes, size_t n);
// The explicit arguments of `notes` for messages: each
// DescribeArgNote(a, position, true) ("(unnamed, #0) (global_buffer, 8
// bytes at offset 0), 'n' (#1, by_value, ...)"), joined by ", "; "none"
// when there are none.
std::string DescribeExplicitArgs(const KernelNotes& notes);

// What a device needs before launching KIR kernel `k` from code object
// `hsaco`: CheckDispatchShape(k), then ReadCodeObjectKernel of k.name with
// the LLVM tools in `llvm_bin` (empty: ResolveLlvmBin's default). Errors:
// those of the three.
absl::StatusOr<CodeObjectKernel> LaunchMetadata(const std::string& llvm_bin, absl::string_view hsaco,
                                                const Kernel& k);

// The kernarg segment of one launch of KIR kernel `k` on a device that
// places buffers itself (HIP, rocjitsu): the code object's explicit
// arguments bound to k's (BindKernelArgs), buffers as the device addresses
// in `device_ptrs` (by argument name), scalars as data.scalars' 4-byte bits
// and the arguments k lacks as data.extra_args' bytes, placed at the
// offsets of the code object's metadata `notes` by PackKernargs (hidden
// arguments it knows written; a runtime fills the others itself). Errors
// (InvalidArgument): BindKernelArgs', a buffer without a device address, a
// scalar without a value, and PackKernargs' (layout mismatches).
absl::StatusOr<std::vector<uint8_t>> PackKernelArgs(const Kernel& k, const KernelNotes& notes,
                                                    const std::map<std::string, uint64_t>& device_ptrs,
                                                    const KernelData& data);

}  // namespace kir

#endif  // KIRC_HW_KERNARG_H_
