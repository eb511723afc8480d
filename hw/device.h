// A device that runs code objects: the CPU emulator (hw/emu) on any machine,
// or an MI-series GPU through the HIP runtime (hw/hip).
#ifndef KIRC_HW_DEVICE_H_
#define KIRC_HW_DEVICE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/workgroups.h"
#include "compiler/target/target.h"
#include "hw/check/inputs.h"

namespace kir {

// What one launch did.
struct DeviceRun {
  std::string device;  // e.g. "emulator (gfx942, strict)"
  // Emulator: instructions executed by class ("salu", "valu", "vmem", "ds",
  // "mfma", "waitcnt", "nop", ...), summed over all waves.
  std::map<std::string, int64_t> instructions_by_class;
  int64_t instructions = 0;  // total executed (emulator)
  int64_t waves = 0;         // waves run
  double milliseconds = 0;   // emulator: wall time of the run; HIP: median kernel time
  // HIP: launches `milliseconds` is the median of (HIP events around each
  // launch, after warm-up launches); 0 for an untimed run (the emulator).
  int timed_launches = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  // A short description, e.g. "emulator" or "HIP: AMD Instinct MI210 (gfx90a)".
  virtual std::string Name() const = 0;
  // Runs the kernel of code object `hsaco`, compiled from `k` for `target`,
  // over k's grid and workgroup (the workgroups of SetWorkgroups). `data`
  // holds every buffer (Arg::SizeBytes() bytes, sparse) and scalar by
  // argument name; buffers are updated in place.
  virtual absl::StatusOr<DeviceRun> Run(const Kernel& k, const TargetInfo& target,
                                        absl::string_view hsaco, KernelData& data) = 0;
  // Host bytes Run allocates per byte of the buffers in `data` that the run
  // touches, beside `data` itself (copies, bookkeeping), for RunAndCheck's
  // memory check before a run.
  virtual int64_t HostBytesPerBufferByte() const { return 0; }
  // Host bytes Run allocates per byte of the buffers in `data` whether the
  // kernel touches it or not (a device that copies whole buffers: 1 and
  // more), for the same check.
  virtual int64_t HostBytesPerUntouchedBufferByte() const { return 0; }
  // Makes the next Runs execute only workgroups `r` of the grid (`kirc run
  // --workgroups`; r.whole(): all). A device that cannot returns
  // Unimplemented saying so (the default).
  virtual absl::Status SetWorkgroups(const WorkgroupRange& r) {
    if (r.whole()) return absl::OkStatus();
    return absl::UnimplementedError(absl::StrCat(Name(), " runs whole grids only: --workgroups needs --device=emu"));
  }
  // What each instruction of the code object of the next Run implements, in
  // order: its mnemonic and a note such as "KIR k.kir:9:3 'store T[tid.x], %v'"
  // (empty: not known). A device whose errors name instructions (the
  // emulator's strict checks) adds the note to them; others ignore it.
  struct InstructionNote {
    std::string mnemonic, note;
  };
  virtual void SetInstructionNotes(std::vector<InstructionNote> notes) { (void)notes; }
  // When this device's element (bits `own`) differs from another device's
  // (bits `other`) for the same code and inputs: the documented deviation of
  // this device from the ISA that explains it (a cross-check then counts and
  // reports it instead of failing), or "" (a real disagreement). `t` is the
  // element type; bits are ElemBytes(t) wide.
  virtual std::string KnownDeviation(ElemType t, uint64_t other, uint64_t own) const {
    (void)t, (void)other, (void)own;
    return "";
  }
};

}  // namespace kir

#endif  // KIRC_HW_DEVICE_H_
