#include "compiler/target/target.h"

#include <algorithm>
#include <array>
#include <deque>

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
// gfx950 (CDNA4, MI350X/MI355X): as gfx942 but for the group segment limit
// (163840 bytes), the LDS bank count (64) and EF_AMDGPU_MACH 0x04f; the
// sources of each value are at its field in target.h.
constexpr TargetInfo kGfx950{Gfx::kGfx950, "gfx950", 256, 256, true, 8, 102, true,
                             false, true,  true,  true,  true,  false, true,  163840,
                             64,    8,     63,    15,    7,    0x04f, true, true, true,  true,
                             Fp8Flavor::kOcp, /*has_ds_read_tr_b16=*/true, /*has_lds_dma_dwordx4=*/true,
                             /*has_bitop3=*/true, /*has_cvt_pk_f16_f32=*/true,
                             /*has_cvt_pk_bf16_f32=*/true};

}  // namespace

int GranulatedSgprCount(int sgprs_used) { return (std::max(1, sgprs_used) + 7) / 8 - 1; }

int SgprsGranted(int granulated) { return (granulated / 2 + 1) * 16; }

int ExtraSgprs(const TargetInfo& t, bool vcc, bool xnack_mask, bool flat_scratch) {
  if (flat_scratch || t.architected_flat_scratch) return 6;
  if (xnack_mask && t.has_xnack) return 4;
  return vcc ? 2 : 0;
}

int VgprFilePerSimd(const TargetInfo& t) { return t.unified_vgpr_file ? 512 : 256; }

int WavesPerSimdForVgprs(const TargetInfo& t, int64_t vgprs) {
  const int64_t alloc = (std::max<int64_t>(1, vgprs) + t.vgpr_granule - 1) / t.vgpr_granule * t.vgpr_granule;
  return static_cast<int>(std::min<int64_t>(t.max_waves_per_simd, VgprFilePerSimd(t) / alloc));
}

int WavesPerSimdForWorkgroup(int64_t workgroup_threads) {
  const int64_t waves = (std::max<int64_t>(1, workgroup_threads) + 63) / 64;
  return static_cast<int>((waves + 3) / 4);
}

int MaxVgprsPerWave(const TargetInfo& t, int64_t workgroup_threads) {
  return VgprFilePerSimd(t) / WavesPerSimdForWorkgroup(workgroup_threads) / t.vgpr_granule * t.vgpr_granule;
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
  static const std::vector<const TargetInfo*> all = {&kGfx908, &kGfx90a, &kGfx942, &kGfx950};
  return all;
}

namespace {

// What a target ID may look like, for error messages.
constexpr char kTargetIdForms[] =
    "supported targets are gfx908, gfx90a, gfx942, gfx950, each optionally with :sramecc+ or :sramecc- "
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

int MfmaInBytes(MfmaIn in) {
  switch (in) {
    case MfmaIn::kF16:
    case MfmaIn::kBF16: return 2;
    case MfmaIn::kF32: return 4;
    case MfmaIn::kFp8:
    case MfmaIn::kBf8: return 1;
  }
  return 4;
}

std::optional<ElemType> MfmaInElem(MfmaIn in, const TargetInfo& t) {
  switch (in) {
    case MfmaIn::kF16: return ElemType::kF16;
    case MfmaIn::kBF16: return ElemType::kBF16;
    case MfmaIn::kF32: return ElemType::kF32;
    case MfmaIn::kFp8: return Fp8Elem(t, false);
    case MfmaIn::kBf8: return Fp8Elem(t, true);
  }
  return std::nullopt;
}

bool MfmaInAccepts(MfmaIn in, ElemType e) {
  switch (in) {
    case MfmaIn::kF16: return e == ElemType::kF16;
    case MfmaIn::kBF16: return e == ElemType::kBF16;
    case MfmaIn::kF32: return e == ElemType::kF32;
    case MfmaIn::kFp8: return e == ElemType::kF8E4M3FNUZ || e == ElemType::kF8E4M3FN;
    case MfmaIn::kBf8: return e == ElemType::kF8E5M2FNUZ || e == ElemType::kF8E5M2;
  }
  return false;
}

const char* MfmaInName(MfmaIn in) {
  switch (in) {
    case MfmaIn::kF16: return "f16";
    case MfmaIn::kBF16: return "bf16";
    case MfmaIn::kF32: return "f32";
    case MfmaIn::kFp8: return "fp8";
    case MfmaIn::kBf8: return "bf8";
  }
  return "?";
}

namespace {

// The MFMAs of one fp8 shape: one descriptor per (A, B) pair of fp8 and bf8,
// named f32_MxNxK_{fp8,bf8}_{fp8,bf8}. Without `f8f6f4` the ISA names the pair
// too (v_mfma_f32_MxNxK_{fp8,bf8}_{fp8,bf8}, gfx942 and gfx950); with it the
// instruction is gfx950's v_mfma_f32_MxNxK_f8f6f4 and the formats go in
// cbsz (A) / blgp (B), 1 for bf8.
void AddFp8Family(std::vector<MfmaDesc>& v, const char* shape, int m, int k, int width, int cd,
                  std::array<int, kNumGfx> passes, bool f8f6f4 = false) {
  static std::deque<std::string>* names = new std::deque<std::string>();  // owns the c_str()s: a deque never moves its elements
  for (MfmaIn a : {MfmaIn::kFp8, MfmaIn::kBf8})
    for (MfmaIn b : {MfmaIn::kFp8, MfmaIn::kBf8}) {
      std::string pair = absl::StrCat(MfmaInName(a), "_", MfmaInName(b));
      names->push_back(absl::StrCat("f32_", shape, "_", pair));
      const char* kir = names->back().c_str();
      names->push_back(absl::StrCat("v_mfma_f32_", shape, "_", f8f6f4 ? "f8f6f4" : pair));
      const char* mn = names->back().c_str();
      MfmaDesc d{kir, m, m, k, a, b, width, cd, width, {nullptr, nullptr, f8f6f4 ? nullptr : mn, mn},
                 {passes[0], passes[1], passes[2], passes[3]}, true};
      if (f8f6f4) {
        d.cbsz = a == MfmaIn::kBf8 ? 1 : 0;
        d.blgp = b == MfmaIn::kBf8 ? 1 : 0;
      }
      v.push_back(d);
    }
}

}  // namespace

const std::vector<MfmaDesc>& AllMfmas() {
  // Mnemonics: amdgcn-isa-notes.md 1.1 and 1.3 (checked with llvm-mc 22).
  // gfx950 takes the gfx942 spellings (llvm-mc 22 -mcpu=gfx950 accepts each
  // and prints it back so) and, like gfx942, rejects the old 2-bf16-per-VGPR
  // v_mfma_f32_16x16x8bf16 ("instruction not supported on this GPU") and
  // v_mfma_f32_32x32x4bf16 ("operands are not valid for this GPU").
  // Passes: SISchedule.td via the notes (908/90a: 16x16 = 8, 32x32 = 16;
  // 942: 16x16x16 = 4, 32x32x8 = 8, 16x16x4 f32 = 8). gfx950: SISchedule.td,
  // SchedModel SIDPGFX950FullSpeedModel (read in ROCm/llvm-project 37d9a345):
  // "^V_MFMA_.32_16X16X16" Write4PassMAI, "^V_MFMA_.32_32X32X8"
  // Write8PassMAI, "^V_MFMA_.32_16X16X[14][FBI]" (16X16X4F32) Write8PassMAI:
  // the same as gfx942; "^V_MFMA_.32_16X16X32" (f16, bf16, fp8) 4 passes,
  // "^V_MFMA_.32_32X32X16" 8; the f8f6f4 shapes with an f8 format
  // (PredIsF8_MFMA_SCALE, which covers the unscaled forms too: regex
  // "^V_MFMA(_SCALE)?_.32_16X16X128_F8F6F4") 8 (16x16x128) and 16 (32x32x64).
  // gfx942's fp8 shapes: SIDPGFX942FullSpeedModel "^V_MFMA_.32_16X16X32" 4,
  // "^V_MFMA_.32_32X32X16" 8.
  //
  // Lane layouts of the shapes new on gfx950 and of the fp8 ones (AbSlot:
  // lane = rows * (k / width) + row, consecutive k in a lane, little-endian
  // in its registers):
  //  - 16x16x32 / 32x32x16 f16, bf16: 8 elements per lane (4 VGPRs).
  //    Composable Kernel ck_tile warp_gemm_attribute_mfma_impl.hpp,
  //    WarpGemmAttributeMfmaImplF16F16F32M16N16K32 (kAMLane 16, kABKLane 4,
  //    kABKPerLane 8) and ...M32N32K16 (kAMLane 32, kABKLane 2, kABKPerLane
  //    8); AMD's matrix instruction calculator (HEAD 2ef9189) has no CDNA4.
  //  - 16x16x32 / 32x32x16 fp8/bf8 (gfx942, gfx950): 8 per lane (2 VGPRs):
  //    the calculator for CDNA3 ("A[i][k] GPR: (floor(k / 4) % 2).[8*(k %
  //    4)+7 : 8*(k % 4)], Lane: 16 * floor(k / 8) + i" for 16x16x32; "32 *
  //    floor(k / 8) + i" for 32x32x16).
  //  - 16x16x128 / 32x32x64 f8f6f4 with fp8 operands (gfx950): 32 per lane
  //    (8 VGPRs): ck_tile WarpGemmAttributeMfmaImpl_f32_16x16x128_f8f6f4
  //    (kAMLane 16, kABKLane 4, kABKPerLane 32) and the CDNA4 ISA guide's
  //    16x16x128 example (section 6.7: "K=0..31 for M=0 in lane0 ... then
  //    K=32..63 in lanes 16..31"). Which k a lane holds only matters up to
  //    one permutation shared by A and B; the rows (lane % rows) and C do.
  //  - C/D of every 16x16 and 32x32 shape: as in notes 1.2 (the calculator
  //    for CDNA3; ck_tile kCMLane 4 / kCM1PerLane 4 for the gfx950 shapes).
  static const std::vector<MfmaDesc>* all = [] {
    auto* v = new std::vector<MfmaDesc>{
        {"f32_16x16x16_f16", 16, 16, 16, MfmaIn::kF16, MfmaIn::kF16, 4, 4, 4,
         {"v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16",
          "v_mfma_f32_16x16x16_f16"},
         {8, 8, 4, 4}, true},
        {"f32_16x16x16_bf16", 16, 16, 16, MfmaIn::kBF16, MfmaIn::kBF16, 4, 4, 4,
         {nullptr, "v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16", "v_mfma_f32_16x16x16_bf16"},
         {0, 8, 4, 4}, true},
        {"f32_32x32x8_f16", 32, 32, 8, MfmaIn::kF16, MfmaIn::kF16, 4, 16, 4,
         {"v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16",
          "v_mfma_f32_32x32x8_f16"},
         {16, 16, 8, 8}, true},
        {"f32_32x32x8_bf16", 32, 32, 8, MfmaIn::kBF16, MfmaIn::kBF16, 4, 16, 4,
         {nullptr, "v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_32x32x8_bf16", "v_mfma_f32_32x32x8_bf16"},
         {0, 16, 8, 8}, true},
        {"f32_16x16x8_bf16", 16, 16, 8, MfmaIn::kBF16, MfmaIn::kBF16, 2, 4, 2,
         {"v_mfma_f32_16x16x8bf16", "v_mfma_f32_16x16x8bf16", nullptr, nullptr},
         {8, 8, 0, 0}, true},
        {"f32_32x32x4_bf16", 32, 32, 4, MfmaIn::kBF16, MfmaIn::kBF16, 2, 16, 2,
         {"v_mfma_f32_32x32x4bf16", "v_mfma_f32_32x32x4bf16", nullptr, nullptr},
         {16, 16, 0, 0}, true},
        {"f32_16x16x4_f32", 16, 16, 4, MfmaIn::kF32, MfmaIn::kF32, 1, 4, 1,
         {"v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4_f32",
          "v_mfma_f32_16x16x4_f32"},
         {8, 8, 8, 8}, false},
        // gfx950 only (llvm-mc 22 rejects them for gfx942).
        {"f32_16x16x32_f16", 16, 16, 32, MfmaIn::kF16, MfmaIn::kF16, 8, 4, 8,
         {nullptr, nullptr, nullptr, "v_mfma_f32_16x16x32_f16"}, {0, 0, 0, 4}, true},
        {"f32_16x16x32_bf16", 16, 16, 32, MfmaIn::kBF16, MfmaIn::kBF16, 8, 4, 8,
         {nullptr, nullptr, nullptr, "v_mfma_f32_16x16x32_bf16"}, {0, 0, 0, 4}, true},
        {"f32_32x32x16_f16", 32, 32, 16, MfmaIn::kF16, MfmaIn::kF16, 8, 16, 8,
         {nullptr, nullptr, nullptr, "v_mfma_f32_32x32x16_f16"}, {0, 0, 0, 8}, true},
        {"f32_32x32x16_bf16", 32, 32, 16, MfmaIn::kBF16, MfmaIn::kBF16, 8, 16, 8,
         {nullptr, nullptr, nullptr, "v_mfma_f32_32x32x16_bf16"}, {0, 0, 0, 8}, true},
    };
    AddFp8Family(*v, "16x16x32", 16, 32, 8, 4, {0, 0, 4, 4});
    AddFp8Family(*v, "32x32x16", 32, 16, 8, 16, {0, 0, 8, 8});
    AddFp8Family(*v, "16x16x128", 16, 128, 32, 4, {0, 0, 0, 8}, /*f8f6f4=*/true);
    AddFp8Family(*v, "32x32x64", 32, 64, 32, 16, {0, 0, 0, 16}, /*f8f6f4=*/true);
    return v;
  }();
  return *all;
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
  int elems_per_reg = 4 / MfmaInBytes(d.a_in);
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
  // The nearest replacement is the one of the same shape and input types
  // with the fewest k (gfx950's K-doubled forms are named as the faster
  // option beside it; fresh-user review of issue 19, F6).
  const MfmaDesc* near = nullptr;
  const MfmaDesc* most_k = nullptr;
  for (const MfmaDesc& o : AllMfmas())
    if (o.m == m.m && o.a_in == m.a_in && o.b_in == m.b_in && o.mnemonic[static_cast<int>(t.gfx)] != nullptr) {
      if (near == nullptr || o.k < near->k) near = &o;
      if (most_k == nullptr || o.k > most_k->k) most_k = &o;
    }
  return absl::InvalidArgumentError(absl::StrCat(
      "MFMA ", m.kir_name, " does not exist on ", t.name,
      near == nullptr ? ""
                      : absl::StrCat(": use ", near->kir_name, " (a different lane layout)",
                                     most_k != near ? absl::StrCat(", or ", most_k->kir_name,
                                                                   " (", most_k->k, " k per instruction)")
                                                    : "")));
}

int MfmaPasses(const TargetInfo& t, const MfmaDesc& m) { return m.passes[static_cast<int>(t.gfx)]; }

}  // namespace kir
