#include "compiler/target/target.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kir {
namespace {

constexpr TargetInfo kGfx908{Gfx::kGfx908, "gfx908", 256, 256, false, 4, 102, false,
                             true,  false, false, false, false, true,  false, 65536,
                             32,    10,    63,    15,    7,    0x030};
constexpr TargetInfo kGfx90a{Gfx::kGfx90a, "gfx90a", 256, 256, true, 8, 102, true,
                             false, true,  true,  true,  true,  false, false, 65536,
                             32,    8,     63,    15,    7,    0x03f};
constexpr TargetInfo kGfx942{Gfx::kGfx942, "gfx942", 256, 256, true, 8, 102, true,
                             false, true,  true,  true,  true,  false, true,  65536,
                             32,    8,     63,    15,    7,    0x04c, true, true, true,  true,
                             Fp8Flavor::kFnuz};

}  // namespace

int GranulatedSgprCount(int sgprs_used) { return (std::max(1, sgprs_used) + 7) / 8 - 1; }

int SgprsGranted(int granulated) { return (granulated / 2 + 1) * 16; }

int ExtraSgprs(const TargetInfo& t, bool vcc, bool xnack_mask, bool flat_scratch) {
  if (flat_scratch || t.architected_flat_scratch) return 6;
  if (xnack_mask && t.has_xnack) return 4;
  return vcc ? 2 : 0;
}

std::vector<ElemType> Fp8ElemTypes(const TargetInfo& t) {
  switch (t.fp8) {
    case Fp8Flavor::kFnuz:
      return {ElemType::kF8E4M3FNUZ, ElemType::kF8E5M2FNUZ};
    case Fp8Flavor::kOcp:
      return {ElemType::kF8E4M3FN, ElemType::kF8E5M2};
    case Fp8Flavor::kNone:
      break;
  }
  return {};
}

std::optional<ElemType> Fp8Elem(const TargetInfo& t, bool bf8) {
  std::vector<ElemType> v = Fp8ElemTypes(t);
  if (v.empty()) return std::nullopt;
  return v[bf8 ? 1 : 0];
}

bool TargetHasElemType(const TargetInfo& t, ElemType e) {
  if (!IsFp8(e)) return true;
  std::vector<ElemType> v = Fp8ElemTypes(t);
  return std::find(v.begin(), v.end(), e) != v.end();
}

std::string Fp8ElemTypesText(const TargetInfo& t) {
  std::vector<ElemType> v = Fp8ElemTypes(t);
  if (v.empty()) return "no fp8 types";
  return absl::StrCat(std::string(ElemTypeName(v[0])), " and ", std::string(ElemTypeName(v[1])));
}

std::string Fp8FlavoursText() {
  return "gfx942: f8e4m3fnuz and f8e5m2fnuz, the AMD FNUZ formats; gfx950: f8e4m3fn and f8e5m2, "
         "the OCP formats";
}

const std::vector<const TargetInfo*>& AllTargets() {
  static const std::vector<const TargetInfo*> all = {&kGfx908, &kGfx90a, &kGfx942};
  return all;
}

namespace {

// What a target ID may look like, for error messages.
constexpr char kTargetIdForms[] =
    "supported targets are gfx908, gfx90a, gfx942, each optionally with :sramecc+ or :sramecc- "
    "and :xnack+ or :xnack- (e.g. gfx90a, gfx90a:xnack-, gfx942:sramecc+:xnack-)";

const char* FeatureSuffix(FeatureSetting s) { return s == FeatureSetting::kOn ? "+" : "-"; }

}  // namespace

std::string TargetId::ToString() const {
  if (target == nullptr) return "";
  std::string s = target->name;
  if (sramecc != FeatureSetting::kAny) absl::StrAppend(&s, ":sramecc", FeatureSuffix(sramecc));
  if (xnack != FeatureSetting::kAny) absl::StrAppend(&s, ":xnack", FeatureSuffix(xnack));
  return s;
}

std::string TargetId::Mattr() const {
  std::string s;
  if (sramecc != FeatureSetting::kAny) absl::StrAppend(&s, FeatureSuffix(sramecc), "sramecc");
  if (xnack != FeatureSetting::kAny)
    absl::StrAppend(&s, s.empty() ? "" : ",", FeatureSuffix(xnack), "xnack");
  return s;
}

uint32_t TargetId::ElfFlags() const {
  if (target == nullptr) return 0;
  // Two-bit fields: 0 unsupported, 1 any, 2 off, 3 on (AMDGPUUsage e_flags v4/v5).
  auto code = [](bool supported, FeatureSetting s) -> uint32_t {
    if (!supported) return 0;
    return s == FeatureSetting::kAny ? 1 : s == FeatureSetting::kOff ? 2 : 3;
  };
  return target->elf_mach | code(target->has_xnack, xnack) << 8 |
         code(target->has_sramecc, sramecc) << 10;
}

absl::StatusOr<TargetId> ParseTargetId(absl::string_view id) {
  std::vector<absl::string_view> parts = absl::StrSplit(id, ':');
  TargetId r;
  for (const TargetInfo* t : AllTargets())
    if (parts[0] == t->name) r.target = t;
  if (r.target == nullptr)
    return absl::NotFoundError(absl::StrCat("unknown target '", id, "': processor '", parts[0],
                                            "' is not supported; ", kTargetIdForms));
  bool seen_sramecc = false, seen_xnack = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view f = parts[i];
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid target ID '", id, "': ", why, "; ", kTargetIdForms));
    };
    if (f.empty()) return bad("empty feature after ':'");
    char sign = f.back();
    if (sign != '+' && sign != '-')
      return bad(absl::StrCat("feature '", f, "' must end in + (on) or - (off)"));
    absl::string_view name = f.substr(0, f.size() - 1);
    if (name.empty()) return bad(absl::StrCat("'", f, "' has no feature name before its sign"));
    FeatureSetting setting = sign == '+' ? FeatureSetting::kOn : FeatureSetting::kOff;
    if (name == "sramecc" || name == "xnack") {
      bool& seen = name == "xnack" ? seen_xnack : seen_sramecc;
      bool supported = name == "xnack" ? r.target->has_xnack : r.target->has_sramecc;
      if (seen) return bad(absl::StrCat("feature '", name, "' appears more than once"));
      if (!supported)
        return bad(absl::StrCat(r.target->name, " does not support feature '", name, "'"));
      seen = true;
      (name == "xnack" ? r.xnack : r.sramecc) = setting;
    } else {
      return bad(absl::StrCat("unknown feature '", name,
                              "' (target-ID features are sramecc and xnack)"));
    }
  }
  return r;
}

absl::StatusOr<const TargetInfo*> LookupTarget(absl::string_view mcpu) {
  absl::StatusOr<TargetId> id = ParseTargetId(mcpu);
  if (!id.ok()) return id.status();
  return id->target;
}

const std::vector<MfmaDesc>& AllMfmas() {
  // Mnemonics: amdgcn-isa-notes.md 1.1 and 1.3 (checked with llvm-mc 22).
  // Passes: SISchedule.td via the notes (908/90a: 16x16 = 8, 32x32 = 16;
  // 942: 16x16x16 = 4, 32x32x8 = 8, 16x16x4 f32 = 8).
  static const std::vector<MfmaDesc> all = {
      {"f32_16x16x16_f16", 16, 16, 16, ElemType::kF16, 4, 4, 4,
       {"v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16"},
       {8, 8, 4}, true},
      {"f32_16x16x16_bf16", 16, 16, 16, ElemType::kBF16, 4, 4, 4,
       {nullptr, "v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16"},
       {0, 8, 4}, true},
      {"f32_32x32x8_f16", 32, 32, 8, ElemType::kF16, 4, 16, 4,
       {"v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16"},
       {16, 16, 8}, true},
      {"f32_32x32x8_bf16", 32, 32, 8, ElemType::kBF16, 4, 16, 4,
       {nullptr, "v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_32x32x8_bf16"},
       {0, 16, 8}, true},
      {"f32_16x16x8_bf16", 16, 16, 8, ElemType::kBF16, 2, 4, 2,
       {"v_mfma_f32_16x16x8bf16", "v_mfma_f32_16x16x8bf16", nullptr},
       {8, 8, 0}, true},
      {"f32_32x32x4_bf16", 32, 32, 4, ElemType::kBF16, 2, 16, 2,
       {"v_mfma_f32_32x32x4bf16", "v_mfma_f32_32x32x4bf16", nullptr},
       {16, 16, 0}, true},
      {"f32_16x16x4_f32", 16, 16, 4, ElemType::kF32, 1, 4, 1,
       {"v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4_f32"},
       {8, 8, 8}, false},
  };
  return all;
}

const MfmaDesc* LookupMfma(absl::string_view kir_name) {
  for (const MfmaDesc& m : AllMfmas())
    if (kir_name == m.kir_name) return &m;
  return nullptr;
}

namespace {
// A and B share one rule: the row (A's i, B's j) selects the lane within a
// block of m (or n) lanes, and k selects the block and the slot within the lane.
FragmentSlot AbSlot(const MfmaDesc& d, int row_lanes, int row, int kk) {
  int per_lane = d.k_per_lane_group;
  FragmentSlot s;
  s.lane = row_lanes * (kk / per_lane) + row;
  int slot = kk % per_lane;  // element index within the lane's fragment
  int elems_per_reg = 4 / ElemBytes(d.ab_elem);
  s.reg = slot / elems_per_reg;
  s.elem = slot % elems_per_reg;
  return s;
}
}  // namespace

FragmentSlot MfmaDesc::ASlot(int i, int kk) const { return AbSlot(*this, m, i, kk); }
FragmentSlot MfmaDesc::BSlot(int kk, int j) const { return AbSlot(*this, n, j, kk); }

FragmentSlot MfmaDesc::CSlot(int i, int j) const {
  FragmentSlot s;
  if (m == 16) {  // lane 16*(i/4)+j, register i%4
    s.lane = 16 * (i / 4) + j;
    s.reg = i % 4;
  } else {  // 32x32: lane 32*((i/4)%2)+j, register 4*(i/8)+(i%4)
    s.lane = 32 * ((i / 4) % 2) + j;
    s.reg = 4 * (i / 8) + (i % 4);
  }
  return s;
}

absl::StatusOr<std::string> MfmaMnemonic(const TargetInfo& t, const MfmaDesc& m) {
  const char* mn = m.mnemonic[static_cast<int>(t.gfx)];
  if (mn != nullptr) return std::string(mn);
  std::string alt;
  for (const MfmaDesc& o : AllMfmas())
    if (o.m == m.m && o.ab_elem == m.ab_elem && o.mnemonic[static_cast<int>(t.gfx)] != nullptr)
      alt = o.kir_name;
  return absl::InvalidArgumentError(
      absl::StrCat("MFMA ", m.kir_name, " does not exist on ", t.name,
                   alt.empty() ? "" : absl::StrCat(": use ", alt, " (a different lane layout)")));
}

int MfmaPasses(const TargetInfo& t, const MfmaDesc& m) { return m.passes[static_cast<int>(t.gfx)]; }

}  // namespace kir
