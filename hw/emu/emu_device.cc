#include "hw/emu/emu_device.h"

#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hw/emu/code_object.h"
#include "hw/kernarg.h"

namespace kir {

int64_t EmuDevice::HostBytesPerBufferByte() const {
  return emu::HostBookkeepingBytesPerBufferByte(opts_);
}

std::string EmuDevice::Name() const { return opts_.strict ? "emulator (strict)" : "emulator"; }

void EmuDevice::SetInstructionNotes(std::vector<InstructionNote> notes) {
  opts_.instruction_notes.clear();
  for (InstructionNote& n : notes) opts_.instruction_notes.push_back({std::move(n.mnemonic), std::move(n.note)});
}

absl::StatusOr<DeviceRun> EmuDevice::Run(const Kernel& k, const TargetInfo& target, absl::string_view hsaco,
                                         KernelData& data) {
  // The code object's explicit arguments, in its metadata's order, bound to
  // k's buffers and scalars and to the arguments k lacks (data.extra_args)
  // by name (by position when the metadata does not name them all).
  absl::StatusOr<std::shared_ptr<const emu::LoadedKernel>> lk =
      emu::LoadCodeObject(llvm_bin_, hsaco, k.name, target.name);
  if (!lk.ok()) return lk.status();
  KernelNotes notes;
  notes.name = emu::InfoOf(**lk).name;
  notes.args = emu::InfoOf(**lk).args;
  absl::StatusOr<std::vector<ArgBinding>> bound = BindKernelArgs(k, notes, data.extra_args);
  if (!bound.ok()) return bound.status();
  emu::LaunchArgs a;
  a.grid = k.grid;
  a.workgroup = k.workgroup;
  a.workgroups = workgroups_;
  for (const ArgBinding& b : *bound) {
    if (b.kind == ArgBinding::Kind::kBuffer) {
      auto it = data.buffers.find(b.name);
      if (it == data.buffers.end())
        return absl::InvalidArgumentError(absl::StrCat("no data for buffer argument '", b.name, "'"));
      a.args.emplace_back();  // the sparse buffer itself, updated in place
      a.paged.resize(a.args.size(), nullptr);
      a.paged.back() = &it->second;
    } else if (b.kind == ArgBinding::Kind::kScalar) {
      auto it = data.scalars.find(b.name);
      if (it == data.scalars.end())
        return absl::InvalidArgumentError(absl::StrCat("no value for scalar argument '", b.name, "'"));
      std::vector<uint8_t> v(4);
      std::memcpy(v.data(), &it->second, 4);
      a.args.push_back(std::move(v));
    } else {
      a.args.push_back(data.extra_args.at(b.name));
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<emu::EmuStats> s = emu::RunKernel(**lk, a, opts_);
  if (!s.ok()) return s.status();
  DeviceRun run;
  run.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  run.device = absl::StrCat("emulator (", target.name, opts_.strict ? ", strict)" : ")");
  run.instructions_by_class = s->by_class;
  run.instructions = s->total;
  run.waves = s->waves;
  return run;
}

}  // namespace kir
