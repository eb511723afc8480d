// kir::Device over the HIP runtime: runs kirc's code objects on an AMD
// MI-series GPU (gfx908 / gfx90a / gfx942 / gfx950) and times them with HIP events.
// Which HIP: third_party/hip.bzl (Debian's 5.2.3 under /usr by default; its
// device list stops at gfx90a, so MI300 needs --repo_env=KIRC_HIP_PATH=/opt/rocm).
//
//   absl::StatusOr<std::unique_ptr<kir::HipDevice>> d = kir::OpenHipDevice(0, opts);
//   if (absl::IsUnavailable(d.status())) { /* no AMD GPU: use the emulator */ }
//   kir::RunAndCheck(kernel, **d, run_options);   // hw/run/run.h
//
// This header does not include HIP's headers.
#ifndef KIRC_HW_HIP_HIP_DEVICE_H_
#define KIRC_HW_HIP_HIP_DEVICE_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/object/code_object_notes.h"
#include "hw/device.h"

namespace kir {

struct HipOptions {
  int warmup = 3;        // untimed launches before the timed ones (after the checked launch)
  int iterations = 20;   // timed launches; DeviceRun::milliseconds is their median
  std::string llvm_bin;  // llvm-readelf for the code object's metadata (compiler/emit ResolveLlvmBin)
};

// The AMD GPUs the HIP runtime sees. The runtime is loaded on the first call
// (hip_api.h). Errors: Unavailable naming the library when it cannot be
// loaded; Unavailable, message "no AMD GPU (hipErrorNoDevice)" (HIP's error
// name in the parentheses) when there is none: without /dev/kfd Debian's HIP 5.2.3 returns hipErrorNoDevice at once
// and prints nothing.
absl::StatusOr<int> HipDeviceCount();

class HipDevice : public Device {
 public:
  // "HIP: AMD Instinct MI210 (gfx90a:sramecc+:xnack-)".
  std::string Name() const override;
  // hipDeviceProp_t::gcnArchName, e.g. "gfx90a:sramecc+:xnack-".
  const std::string& Arch() const { return arch_; }
  int ordinal() const { return ordinal_; }

  // Loads `hsaco` (hipModuleLoadData), takes kernel k.name from it, copies
  // every buffer of `data` to the device, packs the kernarg segment by the
  // code object's metadata (hw/kernarg.h PackKernelArgs), launches once with k's
  // workgroup and grid (HIP's gridDim counts workgroups, as KIR's grid
  // does), copies the buffers back into `data`, then launches
  // HipOptions::warmup + iterations more times on the same device buffers
  // (results discarded) and reports the median HIP-event time of the last
  // `iterations` (the checked launch's time when iterations is 0).
  // Errors: FailedPrecondition when the device's architecture is not
  // `target`'s (CheckHipArch); each failing HIP call as HipError.
  absl::StatusOr<DeviceRun> Run(const Kernel& k, const TargetInfo& target, absl::string_view hsaco,
                                KernelData& data) override;
  // The GPU gets every byte: each buffer is materialised whole on the host.
  int64_t HostBytesPerUntouchedBufferByte() const override { return 1; }

 private:
  friend absl::StatusOr<std::unique_ptr<HipDevice>> OpenHipDevice(int ordinal, HipOptions opts);
  HipDevice(int ordinal, std::string name, std::string arch, HipOptions opts)
      : ordinal_(ordinal), name_(std::move(name)), arch_(std::move(arch)), opts_(std::move(opts)) {}
  int ordinal_;
  std::string name_, arch_;
  HipOptions opts_;
};

// Opens GPU `ordinal` (0-based). Errors: Unavailable "no AMD GPU
// (hipErrorNoDevice)" when there is none (see HipDeviceCount), InvalidArgument
// for an ordinal past the device count, HipError for a failing
// hipGetDeviceProperties. Does not hang without /dev/kfd (it returns in well
// under a second: hw/hip/hip_device_test.cc).
absl::StatusOr<std::unique_ptr<HipDevice>> OpenHipDevice(int ordinal, HipOptions opts = {});

// The status for a failed HIP call: "<call> failed: <hipGetErrorString>"
// (plus " (<hipGetErrorName>)" when the two differ). Code: Unavailable for
// hipErrorNoDevice / hipErrorInvalidDevice, ResourceExhausted for
// hipErrorOutOfMemory, FailedPrecondition for a code object the device
// cannot load (hipErrorInvalidImage, hipErrorNoBinaryForGpu,
// hipErrorSharedObjectInitFailed), NotFound for hipErrorNotFound,
// InvalidArgument for hipErrorInvalidValue, Unknown otherwise.
// `hip_error` is a hipError_t value.
absl::Status HipError(absl::string_view call, int hip_error);

// Checks that a device of architecture `device_arch` (gcnArchName, with or
// without target-ID features, e.g. "gfx90a:sramecc+:xnack-") runs code
// objects for `target` ("gfx942"): the processors must be equal. Error
// (FailedPrecondition) names both, e.g. "the code object is for gfx942 but
// HIP device 0 (AMD Instinct MI210) is gfx90a: run with --mcpu=gfx90a".
absl::Status CheckHipArch(absl::string_view device_arch, absl::string_view target,
                          absl::string_view device_description);

}  // namespace kir

#endif  // KIRC_HW_HIP_HIP_DEVICE_H_
