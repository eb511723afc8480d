#include "hw/emu/emu_device.h"

#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kir {

int64_t EmuDevice::HostBytesPerBufferByte() const {
  return 1 + emu::HostBookkeepingBytesPerBufferByte(opts_);
}

std::string EmuDevice::Name() const { return opts_.strict ? "emulator (strict)" : "emulator"; }

void EmuDevice::SetInstructionNotes(std::vector<InstructionNote> notes) {
  opts_.instruction_notes.clear();
  for (InstructionNote& n : notes) opts_.instruction_notes.push_back({std::move(n.mnemonic), std::move(n.note)});
}

absl::StatusOr<DeviceRun> EmuDevice::Run(const Kernel& k, const TargetInfo& target, absl::string_view hsaco,
                                         KernelData& data) {
  // The code object's metadata lists the arguments in kernarg order; KIR's
  // argument list is the same order (kirc lays kernargs out in declaration order).
  emu::LaunchArgs a;
  a.grid = k.grid;
  a.workgroup = k.workgroup;
  for (const Arg& arg : k.args) {
    if (arg.kind == Arg::Kind::kBuffer) {
      auto it = data.buffers.find(arg.name);
      if (it == data.buffers.end())
        return absl::InvalidArgumentError(absl::StrCat("no data for buffer argument '", arg.name, "'"));
      a.args.push_back(it->second);
    } else {
      auto it = data.scalars.find(arg.name);
      if (it == data.scalars.end())
        return absl::InvalidArgumentError(absl::StrCat("no value for scalar argument '", arg.name, "'"));
      std::vector<uint8_t> b(4);
      std::memcpy(b.data(), &it->second, 4);
      a.args.push_back(std::move(b));
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<emu::EmuStats> s = emu::RunCodeObject(llvm_bin_, hsaco, k.name, target.name, a, opts_);
  if (!s.ok()) return s.status();
  DeviceRun run;
  run.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < k.args.size(); ++i)
    if (k.args[i].kind == Arg::Kind::kBuffer) data.buffers[k.args[i].name] = std::move(a.args[i]);
  run.device = absl::StrCat("emulator (", target.name, opts_.strict ? ", strict)" : ")");
  run.instructions_by_class = s->by_class;
  run.instructions = s->total;
  run.waves = s->waves;
  return run;
}

}  // namespace kir
