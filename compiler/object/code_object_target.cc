#include "compiler/object/code_object_target.h"

#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kir {
namespace {

constexpr int kEiAbiVersion = 8;      // e_ident[EI_ABIVERSION]
constexpr int kEMachineOffset = 18;   // Elf64_Ehdr::e_machine
constexpr int kEFlagsOffset = 48;     // Elf64_Ehdr::e_flags
constexpr uint16_t kEmAmdgpu = 224;   // EM_AMDGPU
constexpr int kAbiV3 = 1, kAbiV6 = 4;  // ELFABIVERSION_AMDGPU_HSA_V3 .. _V6

const char* FeatureText(FeatureSetting s) {
  return s == FeatureSetting::kAny ? " any" : s == FeatureSetting::kOff ? "-" : "+";
}

std::string Features(const TargetId& id) {
  return absl::StrCat("xnack", FeatureText(id.xnack), ", sramecc", FeatureText(id.sramecc));
}

// Whether the code's setting `have` satisfies the requested `want`.
bool FeatureOk(FeatureSetting want, FeatureSetting have, TargetMatch m) {
  // Code for "any" runs with the feature on or off (AMDGPUUsage "Target ID":
  // any is compatible with both; review 9 F4).
  if (want == have || have == FeatureSetting::kAny) return true;
  return m == TargetMatch::kFeaturesRequested && want == FeatureSetting::kAny;
}

}  // namespace

std::string ElfTarget::Describe() const {
  return absl::StrFormat("e_flags 0x%x (code object v%d: EF_AMDGPU_MACH 0x%03x = %s, %s)", e_flags, abi_version + 2,
                         e_flags & 0xff, id.target != nullptr ? id.target->name : "?", Features(id));
}

absl::StatusOr<ElfTarget> ReadElfTarget(absl::string_view elf) {
  if (elf.size() < 64 || std::memcmp(elf.data(), "\x7f" "ELF", 4) != 0)
    return absl::InvalidArgumentError("not an ELF file (or its header is truncated)");
  if (elf[4] != 2 || elf[5] != 1)
    return absl::InvalidArgumentError("not a 64-bit little-endian ELF file, as AMDGPU code objects are");
  uint16_t machine = 0;
  std::memcpy(&machine, elf.data() + kEMachineOffset, 2);
  if (machine != kEmAmdgpu)
    return absl::InvalidArgumentError(
        absl::StrCat("its ELF e_machine is ", machine, ", not EM_AMDGPU (224): not an AMDGPU code object"));
  ElfTarget t;
  std::memcpy(&t.e_flags, elf.data() + kEFlagsOffset, 4);
  t.abi_version = static_cast<unsigned char>(elf[kEiAbiVersion]);
  if (t.abi_version < kAbiV3 || t.abi_version > kAbiV6)
    return absl::InvalidArgumentError(absl::StrCat(
        "its ELF ABI version is ", t.abi_version, " (code object v3 to v6 have 1 to 4): kirc reads code objects "
        "v3 to v6; rebuild it with a current LLVM (code object v5 is the default)"));
  const uint32_t mach = t.e_flags & 0xff;
  if (t.abi_version == kAbiV6 && (t.e_flags >> 24) != 0)
    return absl::InvalidArgumentError(absl::StrFormat(
        "its ELF header names a generic processor (e_flags 0x%x: EF_AMDGPU_MACH 0x%03x, "
        "EF_AMDGPU_GENERIC_VERSION %d); kirc runs and verifies code for gfx908, gfx90a, gfx942 and gfx950: build it for "
        "one of those",
        t.e_flags, mach, t.e_flags >> 24));
  for (const TargetInfo* ti : AllTargets())
    if (ti->elf_mach == mach) t.id.target = ti;
  if (t.id.target == nullptr)
    return absl::InvalidArgumentError(absl::StrFormat(
        "its ELF header is for EF_AMDGPU_MACH 0x%03x (e_flags 0x%x), not gfx908 (0x030), gfx90a (0x03f), gfx942 "
        "(0x04c) or gfx950 (0x04f), the processors kirc supports (AMDGPUUsage's EF_AMDGPU_MACH table names it)",
        mach, t.e_flags));
  if (t.abi_version == kAbiV3) {
    // v3: a set bit means on, a clear one off.
    t.id.xnack = (t.e_flags & 0x100) ? FeatureSetting::kOn : FeatureSetting::kOff;
    t.id.sramecc = (t.e_flags & 0x200) ? FeatureSetting::kOn : FeatureSetting::kOff;
    return t;
  }
  // v4 and later: the settings whose TargetId::ElfFlags (the one encoding
  // of the bits) are the header's.
  const uint32_t low = t.e_flags & 0xfff;
  for (FeatureSetting x : {FeatureSetting::kAny, FeatureSetting::kOff, FeatureSetting::kOn})
    for (FeatureSetting s : {FeatureSetting::kAny, FeatureSetting::kOff, FeatureSetting::kOn}) {
      const TargetId id{t.id.target, s, x};
      if (id.ElfFlags() == low) {
        t.id = id;
        return t;
      }
    }
  return absl::InvalidArgumentError(absl::StrFormat(
      "its ELF header's e_flags 0x%x do not encode %s's xnack and sramecc settings (bits 8-9 and 10-11: 1 any, 2 "
      "off, 3 on; 0 means unsupported, and %s supports both): the header is malformed",
      t.e_flags, t.id.target->name, t.id.target->name));
}

absl::StatusOr<TargetId> CodeObjectTargetId(absl::string_view elf, absl::string_view metadata_target_id,
                                            const TargetId& want, TargetMatch match) {
  absl::StatusOr<ElfTarget> header = ReadElfTarget(elf);
  if (!header.ok()) return header.status();
  TargetId have = header->id;
  const std::string want_text = want.ToString();
  if (!metadata_target_id.empty()) {
    absl::StatusOr<TargetId> meta = ParseTargetId(metadata_target_id);
    if (!meta.ok())
      // A corrupt note's bytes are shown escaped (\xNN), never echoed raw.
      return absl::InvalidArgumentError(absl::StrCat("its metadata's amdhsa.target names '",
                                                     absl::CHexEscape(metadata_target_id), "', not a target ID kirc "
                                                     "supports (gfx908, gfx90a, gfx942 or gfx950 with :sramecc+/- and "
                                                     ":xnack+/-)"));
    // The loader matches the device against e_flags, not the metadata: the
    // two must say the same (a v3 header has no "any").
    const bool v3 = header->abi_version == kAbiV3;
    auto agree = [&](FeatureSetting m, FeatureSetting h) { return m == h || (v3 && m == FeatureSetting::kAny); };
    if (meta->target != have.target || !agree(meta->xnack, have.xnack) || !agree(meta->sramecc, have.sramecc))
      return absl::InvalidArgumentError(absl::StrCat(
          "its metadata's amdhsa.target says ", meta->ToString(), " but its ELF header's ", header->Describe(),
          " says ", have.ToString(), ": the loader goes by the header, so the code object is inconsistent; "
          "rebuild it"));
    have = *meta;
    if (have.target != want.target || !FeatureOk(want.xnack, have.xnack, match) ||
        !FeatureOk(want.sramecc, have.sramecc, match))
      return absl::InvalidArgumentError(absl::StrCat("it is for ", have.ToString(), ", not ", want_text,
                                                     " (use --mcpu=", have.ToString(), " or a code object built for ",
                                                     want_text, ")"));
    return have;
  }
  if (have.target != want.target || !FeatureOk(want.xnack, have.xnack, match) ||
      !FeatureOk(want.sramecc, have.sramecc, match))
    return absl::InvalidArgumentError(absl::StrCat(
        "its metadata has no amdhsa.target, so its target comes from its ELF header: ", header->Describe(),
        " is ", have.ToString(), ", not ", want_text, " (use --mcpu=", have.ToString(),
        " or a code object built for ", want_text, ")"));
  return have;
}

}  // namespace kir
