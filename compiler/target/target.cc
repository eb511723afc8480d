#include "compiler/target/target.h"

#include "absl/strings/str_cat.h"

namespace kir {
namespace {

constexpr TargetInfo kGfx908{Gfx::kGfx908, "gfx908", 256, 256, false, 4, 102, false,
                             true,  false, false, false, false, true,  false, 65536,
                             32,    10,    63,    15,    7};
constexpr TargetInfo kGfx90a{Gfx::kGfx90a, "gfx90a", 256, 256, true, 8, 102, true,
                             false, true,  true,  true,  true,  false, false, 65536,
                             32,    8,     63,    15,    7};
constexpr TargetInfo kGfx942{Gfx::kGfx942, "gfx942", 256, 256, true, 8, 102, true,
                             false, true,  true,  true,  true,  false, true,  65536,
                             32,    8,     63,    15,    7};

}  // namespace

const std::vector<const TargetInfo*>& AllTargets() {
  static const std::vector<const TargetInfo*> all = {&kGfx908, &kGfx90a, &kGfx942};
  return all;
}

absl::StatusOr<const TargetInfo*> LookupTarget(absl::string_view mcpu) {
  for (const TargetInfo* t : AllTargets())
    if (mcpu == t->name) return t;
  return absl::NotFoundError(absl::StrCat("unknown target '", mcpu,
                                          "': supported targets are gfx908, gfx90a, gfx942"));
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
