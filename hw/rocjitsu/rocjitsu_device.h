// kir::Device over rocjitsu, AMD's functional GPU emulator (ROCm/rocm-systems,
// emulation/rocjitsu, MIT licence): a second executable semantics of the ISA
// that shares no code with kirc's emulator, so a wrong lane layout, range
// check or wrap in our shared semantics (compiler/isa) shows up as a
// difference between the two (`kirc run --device=emu,rocjitsu`).
//
// rocjitsu is not part of this repository or its build: third_party/rocjitsu/
// build.sh builds it from a user's rocm-systems checkout into a directory DIR
// together with kirc's runner (hw/rocjitsu/runner/kirc_rocjitsu_run.cc),
// and this device runs DIR/bin/kirc-rocjitsu-run as a child process for each
// launch: a crash, an assertion or a hang of an "experimental" simulator
// ends that launch with an error, never kirc. The runner's protocol (request
// file, exit statuses) is written down in hw/rocjitsu/README.md.
//
//   absl::StatusOr<std::unique_ptr<kir::RocjitsuDevice>> d = kir::OpenRocjitsuDevice({});
//   if (absl::IsUnavailable(d.status())) { /* no rocjitsu build named: skip */ }
//   kir::RunAndCheck(kernel, **d, run_options);   // hw/run/run.h
#ifndef KIRC_HW_ROCJITSU_ROCJITSU_DEVICE_H_
#define KIRC_HW_ROCJITSU_ROCJITSU_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hw/device.h"

namespace kir {

// The runner protocol version this device speaks (the second word of the
// runner's `--version` line).
inline constexpr int kRocjitsuProtocol = 1;

struct RocjitsuOptions {
  // The build directory (build.sh --out). Empty: $KIRC_ROCJITSU.
  std::string dir;
  // llvm-readelf for the code object's metadata (compiler/emit ResolveLlvmBin);
  // empty: ResolveLlvmBin's default.
  std::string llvm_bin;
  // Wall-clock limit of one launch in seconds (the runner's process group is
  // killed after it); <= 0: none.
  int timeout_seconds = 900;
};

class RocjitsuDevice : public Device {
 public:
  // "rocjitsu 96b8d0f2 (DIR)": the rocm-systems commit the build names.
  std::string Name() const override;
  // The processors the build runs (the runner's `--targets`), e.g. gfx942.
  const std::vector<std::string>& Processors() const { return processors_; }
  const std::string& Commit() const { return commit_; }

  // Writes the code object, the kernarg segment (packed from the code
  // object's metadata by PackKernelArgs with buffers at EmulatedBufferAddress, as the emulator
  // and hidden arguments as the dispatch gives them) and every buffer of
  // `data` to a private temporary directory, runs the runner on one request
  // (every workgroup of k's grid), and reads every buffer back into `data`.
  // Errors: FailedPrecondition when the build does not run `target`'s
  // processor (naming those it runs); InvalidArgument for a grid or
  // workgroup that cannot be dispatched; Aborted when rocjitsu reports the
  // dispatch failed (its message, the runner's exit status 3) or the runner
  // died of a signal; DeadlineExceeded after timeout_seconds; Internal when
  // the runner refuses kirc's request (exit status 2: a kirc bug or a build
  // of another protocol) or leaves no output; PackKernelArgs' and the
  // metadata reader's errors.
  absl::StatusOr<DeviceRun> Run(const Kernel& k, const TargetInfo& target, absl::string_view hsaco,
                                KernelData& data) override;
  // rocjitsu 96b8d0f2 makes f16 NaNs with bit 0 set and without quieting
  // (util/data_types.h f32_to_f16: sign | 0x7c00 | mantissa >> 13 | 1), where
  // the hardware quiets and keeps the payload (hw/rocjitsu/SEMANTICS.md): an
  // f16 element where both are NaNs of one sign that differ only in bits 9
  // and 0, rocjitsu's with bit 0 set, is that deviation; so is an f32 element
  // that is such an f16 NaN widened (bits 22 and 13, rocjitsu's with 13 set).
  std::string KnownDeviation(ElemType t, uint64_t other, uint64_t own) const override;
  // The input and output files of each buffer and the runner's own copy, of
  // every byte: the buffers are materialised whole for the runner (1 more).
  int64_t HostBytesPerBufferByte() const override { return 0; }
  int64_t HostBytesPerUntouchedBufferByte() const override { return 4; }

 private:
  friend absl::StatusOr<std::unique_ptr<RocjitsuDevice>> OpenRocjitsuDevice(RocjitsuOptions opts);
  RocjitsuDevice(RocjitsuOptions opts, std::string runner, std::string commit, std::vector<std::string> processors)
      : opts_(std::move(opts)),
        runner_(std::move(runner)),
        commit_(std::move(commit)),
        processors_(std::move(processors)) {}
  RocjitsuOptions opts_;
  std::string runner_, commit_;
  std::vector<std::string> processors_;
};

// Opens the rocjitsu build opts.dir (else $KIRC_ROCJITSU): checks that
// DIR/bin/kirc-rocjitsu-run exists, speaks protocol kRocjitsuProtocol
// (`--version`) and runs at least one processor (`--targets`). Errors:
// Unavailable when no directory is named (neither opts.dir nor
// $KIRC_ROCJITSU: the message says how to build one), NotFound when the
// named directory has no runner, FailedPrecondition for a runner of another
// protocol or one that does not answer as the protocol says (its output
// quoted).
absl::StatusOr<std::unique_ptr<RocjitsuDevice>> OpenRocjitsuDevice(RocjitsuOptions opts = {});

// The request file of one launch (hw/rocjitsu/README.md, "The runner's
// protocol"), exposed for tests. Paths are absolute; `buffers` gives, in
// argument order, each buffer's address, size in bytes, and its input and
// output file.
struct RocjitsuBufferFiles {
  uint64_t address = 0;
  int64_t bytes = 0;
  std::string in_path, out_path;
};
std::string RocjitsuRequest(absl::string_view processor, absl::string_view code_object_path,
                            absl::string_view kernel, const Kernel& k, uint64_t kernarg_address,
                            absl::string_view kernarg_path, const std::vector<RocjitsuBufferFiles>& buffers,
                            int64_t private_segment_size, int timeout_seconds);

}  // namespace kir

#endif  // KIRC_HW_ROCJITSU_ROCJITSU_DEVICE_H_
