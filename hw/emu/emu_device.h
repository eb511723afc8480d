// The CPU emulator behind the Device interface (hw/device.h), for `kirc run`
// and anything else that runs a compiled KIR kernel without caring where.
#ifndef KIRC_HW_EMU_EMU_DEVICE_H_
#define KIRC_HW_EMU_EMU_DEVICE_H_

#include <string>
#include <vector>

#include "hw/device.h"
#include "hw/emu/emulator.h"

namespace kir {

class EmuDevice : public Device {
 public:
  // `llvm_bin`: where llvm-objdump and llvm-readelf are (see ResolveLlvmBin).
  explicit EmuDevice(std::string llvm_bin, emu::EmuOptions opts = {})
      : llvm_bin_(std::move(llvm_bin)), opts_(opts) {}
  std::string Name() const override;
  // Arguments are matched to the code object's metadata by name (kirc and
  // clang -cl-kernel-arg-info name them), else by position; grid and
  // workgroup are k's.
  absl::StatusOr<DeviceRun> Run(const Kernel& k, const TargetInfo& target, absl::string_view hsaco,
                                KernelData& data) override;
  // The strict mode's bookkeeping (HostBookkeepingBytesPerBufferByte) per
  // byte touched: Run hands the emulator the sparse buffers of `data`
  // themselves, no copy.
  int64_t HostBytesPerBufferByte() const override;
  // Only these workgroups run (the kernel still sees the whole grid).
  absl::Status SetWorkgroups(const WorkgroupRange& r) override {
    workgroups_ = r;
    return absl::OkStatus();
  }
  // Strict-mode and other errors that name an instruction add its note
  // (EmuOptions::instruction_notes); kept for every later Run until replaced.
  void SetInstructionNotes(std::vector<InstructionNote> notes) override;

 private:
  std::string llvm_bin_;
  emu::EmuOptions opts_;
  WorkgroupRange workgroups_;
};

}  // namespace kir

#endif  // KIRC_HW_EMU_EMU_DEVICE_H_
