// gfx950's LDS DMA (buffer_load_dwordx4 ... lds, KIR lds_dma; issue 19): the
// verifier proves both sides of each DMA, the buffer read (as a buffer load)
// and the LDS write at LdsDmaAddress(M0, inst, lane) (compiler/isa/
// semantics.h) against KIR's L[base] + 16 * lane, with M0 executed
// symbolically (s_mov_b32 m0, SALU chains, v_readfirstlane_b32 of a
// wave-uniform tid.y, loop-carried). Mutations of the final code (M0 off by
// 16 bytes, the instruction offset, the voffset, M0 not updated per loop
// iteration) each fail with a confirmed counterexample naming the side.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/asm_syntax.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"
#include "verify/test_roles.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

using Status = AccessVerdict::Status;

// testdata/kernels/lds_dma_f32.kir: M0 changes per iteration (stage %k mod
// 2) around a hoisted readfirstlane.
const std::string& LoopText() {
  static const std::string* text = new std::string(::kir::testing::ReadTestFile("testdata/kernels/lds_dma_f32.kir"));
  return *text;
}

// compiler/api/compile_test.cc's straight-line lds_dma (no loop).
constexpr const char* kStraight = ::kir::testing::kLdsDmaStraight;

// Six DMAs of one wave into L's two 4 KiB windows (LDS rows 0..383 of 16
// bytes: DMA i at byte 1024 i) from rows 128 i of A (2048 i bytes): the
// lowering's shared-M0 form (LdsDmaInstOffset, compiler/lower/
// lower_memory.cc), one M0 per window (DMAs 0-3 at offsets 0, 1024, 2048,
// 3072; DMAs 4-5 at 0 and 1024), the global side compensated in voffset
// (2048 i - offset_i).
constexpr char kShared[] = R"(kernel dma_shared
target gfx950
workgroup 64 1 1
grid 2 1 1
arg A : f32[1536, 4] strides [4, 1] readonly
arg B : f32[768, 4] strides [4, 1] writeonly
lds L : f32[384, 4]
  lds_dma L[0, 0], A[wg.x * 768 + tid.x, 0] : f32x4
  lds_dma L[64, 0], A[wg.x * 768 + 128 + tid.x, 0] : f32x4
  lds_dma L[128, 0], A[wg.x * 768 + 256 + tid.x, 0] : f32x4
  lds_dma L[192, 0], A[wg.x * 768 + 384 + tid.x, 0] : f32x4
  lds_dma L[256, 0], A[wg.x * 768 + 512 + tid.x, 0] : f32x4
  lds_dma L[320, 0], A[wg.x * 768 + 640 + tid.x, 0] : f32x4
  barrier
  %v = load L[383 - tid.x, 0] : f32x4
  store B[wg.x * 384 + tid.x, 0], %v
end
)";

Subject Load(const std::string& text) {
  absl::StatusOr<Compiled> c = CompileKir(text, "gfx950");
  EXPECT_TRUE(c.ok()) << c.status();
  Subject s{std::move(*c), {}};
  s.code = s.c.result.lowered;
  return s;
}

// The verdicts of the DMA instruction: one per side.
const AccessVerdict* Side(const VerifyResult& r, const std::string& side) {
  for (const AccessVerdict& a : r.accesses)
    if (a.side == side) return &a;
  return nullptr;
}

TEST(LdsDma, TheLoopKernelProvesBothSides) {
  Subject s = Load(LoopText());
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
  const AccessVerdict* g = Side(v, "global");
  const AccessVerdict* l = Side(v, "LDS");
  ASSERT_NE(g, nullptr) << v.Report();
  ASSERT_NE(l, nullptr) << v.Report();
  EXPECT_EQ(g->inst_id, l->inst_id);
  EXPECT_TRUE(absl::StrContains(v.Report(), absl::StrCat("[", l->inst_id, " LDS]"))) << v.Report();
}

TEST(LdsDma, TheStraightLineKernelProvesBothSides) {
  Subject s = Load(kStraight);
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
  EXPECT_NE(Side(v, "LDS"), nullptr) << v.Report();
}

// testdata/kernels/lds_dma_waves_x.kir: four waves along x, each at the base
// (tid.x floordiv 64) * 1024 elements, read into M0 with v_readfirstlane_b32
// of a per-lane VGPR. The readfirstlane's value is the wave's first lane's
// (tid.x rounded down to a multiple of 64), which equals every lane's here:
// both sides prove (fresh-user review F2; before, the model set tid.x to 0,
// which proves only values that do not depend on tid.x: the LDS side was
// unknown).
const std::string& WavesXText() {
  static const std::string* text =
      new std::string(::kir::testing::ReadTestFile("testdata/kernels/lds_dma_waves_x.kir"));
  return *text;
}

TEST(LdsDma, TheWavesAlongXKernelProvesBothSides) {
  Subject s = Load(WavesXText());
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
  ASSERT_NE(Side(v, "LDS"), nullptr) << v.Report();
  EXPECT_EQ(Side(v, "LDS")->status, Status::kProved) << v.Report();
  s.Find("v_readfirstlane_b32");  // the base goes through a readfirstlane
}

// The side's verdict must be failed with a confirmed counterexample (tid, wg
// and both addresses) and a reason naming the side.
void ExpectFailed(const VerifyResult& v, const std::string& side, const std::string& needle = "") {
  const AccessVerdict* a = Side(v, side);
  ASSERT_NE(a, nullptr) << v.Report();
  EXPECT_EQ(a->status, Status::kFailed) << v.Report();
  EXPECT_TRUE(absl::StrContains(a->reason, absl::StrCat("the LDS DMA's ", side, " side"))) << v.Report();
  EXPECT_TRUE(absl::StrContains(a->counterexample, "counterexample")) << v.Report();
  EXPECT_TRUE(absl::StrContains(a->counterexample, "tid = (")) << v.Report();
  EXPECT_TRUE(absl::StrContains(a->counterexample, absl::StrCat("the LDS DMA's ", side, " side"))) << v.Report();
  EXPECT_TRUE(absl::StrContains(a->counterexample, side == "LDS" ? "emitted LDS" : "emitted 0x")) << v.Report();
  if (!needle.empty()) {
    EXPECT_TRUE(absl::StrContains(a->counterexample, needle)) << v.Report();
  }
}
void ExpectProved(const VerifyResult& v, const std::string& side) {
  const AccessVerdict* a = Side(v, side);
  ASSERT_NE(a, nullptr) << v.Report();
  EXPECT_EQ(a->status, Status::kProved) << v.Report();
}

MInst Inst(Opc opc, std::vector<MOperand> ops, int id) {
  MInst mi;
  mi.opc = opc;
  mi.ops = std::move(ops);
  mi.id = id;
  return mi;
}

// M0 16 bytes too high: s_mov_b32 m0, s0 -> s_add_u32 m0, s0, 16. The LDS
// side fails (lane 0 writes L's byte 16 instead of 0); the buffer read is
// untouched and proves.
TEST(LdsDma, M0OffBy16BytesFailsTheLdsSide) {
  Subject s = Load(kStraight);
  MInst& mov = s.At("s_mov_b32 m0");
  mov = Inst(Opc::kSAddU32, {mov.ops[0], mov.ops[1], MOperand::Imm(16)}, mov.id);
  VerifyResult v = s.Check();
  ExpectFailed(v, "LDS", "expected");
  ExpectProved(v, "global");
  EXPECT_TRUE(absl::StrContains(Side(v, "LDS")->counterexample, "s_add_u32 m0")) << v.Report();
}

// The instruction offset applies to both sides (LdsDmaAddress and the
// buffer address): offset:16 moves the read and the write.
TEST(LdsDma, AWrongInstructionOffsetFailsBothSides) {
  Subject s = Load(kStraight);
  s.At("lds").offset += 16;
  VerifyResult v = s.Check();
  ExpectFailed(v, "LDS");
  ExpectFailed(v, "global");
}

// offset:16 with M0 16 lower: the buffer read moved (fails); the LDS write
// stays where it was only while M0 stays >= 0: the first wave's base is 0,
// so its M0 is -16, whose low 18 bits (all the DMA reads, semantics.h
// LdsDmaAddress) put lane 0 at 0x40000, past the LDS (fresh-user review of
// issue 19, F4: kirc itself emitted such M0s; a wrapping model proved them).
TEST(LdsDma, AnOffsetM0CompensatesFailsTheGlobalSideAndANegativeM0TheLdsSide) {
  Subject s = Load(kStraight);
  s.At("lds").offset += 16;
  MInst& mov = s.At("s_mov_b32 m0");
  mov = Inst(Opc::kSSubU32, {mov.ops[0], mov.ops[1], MOperand::Imm(16)}, mov.id);
  VerifyResult v = s.Check();
  ExpectFailed(v, "global");
  ExpectFailed(v, "LDS");
  EXPECT_TRUE(absl::StrContains(Side(v, "LDS")->counterexample, "tid = (")) << v.Report();
}

// kirc never emits a negative M0: a global constant larger than the LDS
// base goes to voffset/soffset, the offset field takes at most the base
// (here 0 for the first wave: A's row 200 at byte 3200 and L[0]).
TEST(LdsDma, AGlobalOffsetBeyondTheLdsBaseKeepsM0NonNegative) {
  Subject s = Load(R"(kernel dma
target gfx950
workgroup 64 1 1
grid 1 1 1
arg A : f16[300, 8] strides [8, 1] readonly
arg B : f16[64, 8] strides [8, 1] writeonly
lds L : f16[64, 8]
  lds_dma L[0, 0], A[tid.x + 200, 0] : f16x8
  barrier
  %v = load L[tid.x, 0] : f16x8
  store B[tid.x, 0], %v
end
)");
  const MInst& dma = s.At("lds");
  EXPECT_EQ(dma.offset, 0) << s.Asm();
  EXPECT_TRUE(absl::StrContains(s.Asm(), "s_mov_b32 m0, 0\n")) << s.Asm();  // not 0xfffff380 (0 - 3200)
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
}

// The voffset of another value (v1 = tid.x instead of the row's byte
// offset): the buffer read fails, the LDS write (M0 + 16 * lane) proves.
TEST(LdsDma, AWrongVoffsetFailsTheGlobalSide) {
  Subject s = Load(kStraight);
  MInst& dma = s.At("lds");
  ASSERT_TRUE(dma.ops[0].IsReg()) << s.Asm();
  dma.ops[0].reg = dma.ops[0].reg == 1 ? 2 : 1;
  VerifyResult v = s.Check();
  ExpectFailed(v, "global");
  ExpectProved(v, "LDS");
}

// The loop's M0 without its stage (s_mov_b32 m0, s13 -> m0 = the wave part
// s0 of iteration 0 in every iteration): the LDS side fails in an odd
// iteration (%k = 1 writes stage 0); the buffer read proves.
TEST(LdsDma, M0NotUpdatedPerLoopIterationFailsTheLdsSide) {
  Subject s = Load(LoopText());
  const size_t rfl = s.Find("v_readfirstlane_b32");
  const MOperand wave = s.code.mir.insts[rfl].ops[0];  // the SGPR holding the wave's part
  MInst& mov = s.At("s_mov_b32 m0");
  ASSERT_NE(mov.ops[1].reg, wave.reg) << s.Asm();
  mov.ops[1] = wave;
  VerifyResult v = s.Check();
  ExpectFailed(v, "LDS", "%k = ");
  ExpectProved(v, "global");
  const std::string& ce = Side(v, "LDS")->counterexample;
  EXPECT_TRUE(absl::StrContains(ce, "%k = 1") || absl::StrContains(ce, "%k = 3")) << v.Report();
}

// The same M0 written before the loop instead of in it (hoisted: the
// in-loop s_mov_b32 m0 deleted): M0 is loop-invariant, the LDS side fails.
TEST(LdsDma, M0HoistedOutOfTheLoopFailsTheLdsSide) {
  Subject s = Load(LoopText());
  const size_t rfl = s.Find("v_readfirstlane_b32");
  const MOperand wave = s.code.mir.insts[rfl].ops[0];
  const size_t mov = s.Find("s_mov_b32 m0");
  MInst hoisted = s.code.mir.insts[mov];
  hoisted.ops[1] = wave;
  hoisted.id = 100000;
  s.code.mir.insts.erase(s.code.mir.insts.begin() + static_cast<long>(mov));
  s.code.mir.insts.insert(s.code.mir.insts.begin() + static_cast<long>(rfl) + 1, hoisted);
  VerifyResult v = s.Check();
  ExpectFailed(v, "LDS", "%k = ");
  ExpectProved(v, "global");
}

// The readfirstlane replaced by the value of lane 0 of wave 0 (base 0, as a
// model that sets tid.x to 0 would compute it): right for wave 0, wrong for
// the other three, so the LDS side fails with a counterexample in another
// wave (tid.x >= 64); the buffer read proves.
TEST(LdsDma, TheFirstWavesBaseInEveryWaveFailsTheLdsSide) {
  Subject s = Load(WavesXText());
  MInst& rfl = s.At("v_readfirstlane_b32");
  rfl = Inst(Opc::kSMovB32, {rfl.ops[0], MOperand::Imm(0)}, rfl.id);
  VerifyResult v = s.Check();
  ExpectFailed(v, "LDS", "expected");
  ExpectProved(v, "global");
  const std::string& ce = Side(v, "LDS")->counterexample;
  const size_t at = ce.find("tid = (");
  ASSERT_NE(at, std::string::npos) << v.Report();
  EXPECT_GE(std::stoi(ce.substr(at + 7)), 64) << v.Report();  // tid.x of wave 1, 2 or 3
}

// clang's LDS DMA M0 (review 5 F4): v_readfirstlane_b32 of a per-lane
// value, then a scalar mask. The base's VGPR becomes tid.x << 6 (lane-
// varying), the readfirstlane reads it at lane 0 of the wave (EXEC all
// lanes since entry): (tid.x & ~63) << 6 = the wave's (tid.x floordiv 64)
// * 4096 bytes, the lowering's value; s_and_b32 with 0xfffff000 keeps it.
// Proves (it was unknown: "v_readfirstlane_b32 of a per-lane value"). With
// tid.x << 7 the first lane's value is twice the base: fails.
TEST(LdsDma, ReadfirstlaneOfAPerLaneValueThenAScalarMaskProves) {
  for (int shift : {6, 7}) {
    Subject s = Load(WavesXText());
    const MInst shr = s.At("v_lshrrev_b32 v0, 6, v1");
    MInst& shl = s.At("v_lshlrev_b32 v2, 12, v0");
    shl.ops[1] = MOperand::Imm(shift);
    shl.ops[2] = shr.ops[2];  // v1 = tid.x
    const size_t rfl = s.Find("v_readfirstlane_b32");
    const MOperand sdst = s.code.mir.insts[rfl].ops[0];
    s.code.mir.insts.insert(s.code.mir.insts.begin() + static_cast<long>(rfl) + 1,
                            Inst(Opc::kSAndB32, {sdst, sdst, MOperand::Imm(0xfffff000)}, 100000));
    VerifyResult v = s.Check();
    ExpectProved(v, "global");
    if (shift == 6) {
      ExpectProved(v, "LDS");
      EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
    } else {
      ExpectFailed(v, "LDS", "expected");
    }
  }
}

// The first-lane shortcut is v_readfirstlane_b32's alone: with the base
// VGPR tid.x << 6 (4096 * wave at the wave's lane 0, plus 64 * lane
// elsewhere), v_readfirstlane_b32 reads 4096 * wave and proves, while
// v_readlane_b32 of lane 1 reads 4096 * wave + 64 and must not prove (it
// did, modelled as lane 0, until this test).
TEST(LdsDma, OnlyReadfirstlaneTakesTheFirstLanesValue) {
  for (bool readlane : {false, true}) {
    Subject s = Load(WavesXText());
    const MInst shr = s.At("v_lshrrev_b32 v0, 6, v1");
    MInst& shl = s.At("v_lshlrev_b32 v2, 12, v0");
    shl.ops[1] = MOperand::Imm(6);
    shl.ops[2] = shr.ops[2];  // v1 = tid.x
    const size_t rfl = s.Find("v_readfirstlane_b32");
    if (readlane) {
      MInst& r = s.code.mir.insts[rfl];
      r = Inst(Opc::kVReadlaneB32, {r.ops[0], r.ops[1], MOperand::Imm(1)}, r.id);
    }
    VerifyResult v = s.Check();
    ExpectProved(v, "global");
    if (!readlane) {
      EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
    } else {
      const AccessVerdict* l = Side(v, "LDS");
      ASSERT_NE(l, nullptr) << v.Report();
      EXPECT_NE(l->status, Status::kProved) << v.Report() << s.Asm();
    }
  }
}

// Whole waves that are not whole along x (review6 F7: findings/j2.kir,
// 32 x 4, two rows of tid.y per wave): the lanes of wave w have tid.y in
// {2w, 2w + 1}, so the first lane's tid.y is tid.y & ~1 and its tid.x is 0
// (symexec.cc WaveIdUnit, WaveStartsAtIdZero). The kernel's M0, (tid.y >> 1)
// << 10, proves. From tid.y itself: tid.y << 9 is 1024 * w at lane 0, the
// base, and proves although it differs in lane 32; tid.y << 10 is 2048 * w
// there, twice the base, and fails in wave 1.
constexpr char kRowsPerWave[] = R"(kernel j2
target gfx950
workgroup 32 4 1
grid 1 1 1
arg A : f16[128, 8] strides [8, 1] readonly
arg O : f16[128, 8] strides [8, 1] writeonly
lds L : f16[1024]
  lds_dma L[tid.y floordiv 2 * 512], A[tid.x + tid.y * 32, 0] : f16x8
  barrier
  %v = load L[tid.y floordiv 2 * 512 + (tid.x + tid.y * 32) mod 64 * 8] : f16x8
  store O[tid.x + tid.y * 32, 0], %v
end
)";

TEST(LdsDma, WavesOfTwoRowsTakeTheFirstLanesRow) {
  {
    Subject s = Load(kRowsPerWave);
    VerifyResult v = s.Check();
    EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
    s.Find("v_readfirstlane_b32");
  }
  for (int shift : {9, 10}) {
    Subject s = Load(kRowsPerWave);
    const MInst bfe = s.At("v_bfe_u32");  // tid.y
    MInst& shl = s.At("v_lshlrev_b32 v0, 10, v2");
    shl.ops[1] = MOperand::Imm(shift);
    shl.ops[2] = bfe.ops[0];
    VerifyResult v = s.Check();
    ExpectProved(v, "global");
    if (shift == 9) {
      EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
    } else {
      ExpectFailed(v, "LDS", "expected");
    }
  }
}

// Workgroups whose x extent neither is a multiple of 64 nor divides it
// (fresh-user review 7 F8: findings/F8_dma_96x2.kir, F8_dma_48x4.kir): a wave
// straddles rows (wave 1 of 96 x 2 is tid (64..95, 0) and (0..31, 1)), so the
// wave's first lane is linear id 64 w, tid = (64 w mod X, 64 w floordiv X, 0)
// (symexec.h FirstLaneTid). kirc's M0 from the readfirstlane of the base
// (linear id >> 6) << 10 proves (it was UNKNOWN: "v_readfirstlane_b32 of a
// per-lane value"). Edited by role: the shift of the value the readfirstlane
// reads, 10 -> 11 (twice the base, right only in wave 0), fails with a
// counterexample in wave 1 or 2 (linear id tid.x + X * tid.y >= 64); the
// readfirstlane replaced by s_mov_b32 0 (wave 0's base) likewise.
TEST(LdsDma, WavesStraddlingRowsTakeTheFirstLanesIds) {
  for (const int64_t x : {96, 48}) {
    SCOPED_TRACE(x);
    const int64_t y = 192 / x;
    const std::string lin = absl::StrCat("(tid.y * ", x, " + tid.x)");
    const std::string text = absl::StrCat(R"(kernel d4
target gfx950
workgroup )", x, " ", y, R"( 1
grid 1 1 1
arg A : f16[192, 8] strides [8, 1] readonly
arg O : f16[192, 8] strides [8, 1] writeonly
lds L : f16[2048]
  lds_dma L[)", lin, R"( floordiv 64 * 512], A[)", lin, R"(, 0] : f16x8
  barrier
  %v = load L[(191 - )", lin, R"() * 8] : f16x8
  store O[)", lin, R"(, 0], %v
end
)");
    auto wave_of_counterexample = [&](const VerifyResult& v) -> int64_t {
      const std::string& ce = Side(v, "LDS")->counterexample;
      const size_t at = ce.find("tid = (");
      if (at == std::string::npos) return -1;
      const int64_t tx = std::stoll(ce.substr(at + 7));
      const int64_t ty = std::stoll(ce.substr(ce.find(", ", at) + 2));
      return (tx + x * ty) / 64;
    };
    {
      Subject s = Load(text);
      VerifyResult v = s.Check();
      EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
    }
    {
      Subject s = Load(text);
      absl::StatusOr<size_t> rfl = FindInst(s.code.mir, "v_readfirstlane_b32");
      ASSERT_TRUE(rfl.ok()) << rfl.status();
      absl::StatusOr<size_t> shl = FindDef(s.code.mir, *rfl, OpName::kSrc0);
      ASSERT_TRUE(shl.ok()) << shl.status() << s.Asm();
      MInst& mi = s.code.mir.insts[*shl];
      ASSERT_EQ(mi.opc, Opc::kVLshlrevB32) << s.Asm();
      ASSERT_EQ(mi.ops[1].kind, MOperand::Kind::kImm) << s.Asm();
      ASSERT_EQ(mi.ops[1].imm, 10) << s.Asm();  // 1024 bytes per wave
      mi.ops[1].imm = 11;
      VerifyResult v = s.Check();
      ExpectFailed(v, "LDS", "expected");
      ExpectProved(v, "global");
      EXPECT_GE(wave_of_counterexample(v), 1) << v.Report();
    }
    {
      Subject s = Load(text);
      absl::StatusOr<size_t> rfl = FindInst(s.code.mir, "v_readfirstlane_b32");
      ASSERT_TRUE(rfl.ok()) << rfl.status();
      MInst& r = s.code.mir.insts[*rfl];
      r = Inst(Opc::kSMovB32, {r.ops[0], MOperand::Imm(0)}, r.id);
      VerifyResult v = s.Check();
      ExpectFailed(v, "LDS", "expected");
      EXPECT_GE(wave_of_counterexample(v), 1) << v.Report();
    }
  }
}

// An access map with only the DMA's global record: the LDS write is
// unverified, so the instruction fails for it (never proved).
TEST(LdsDma, AMissingLdsRecordFails) {
  Subject s = Load(kStraight);
  AccessMap& am = s.code.access_map;
  const size_t before = am.size();
  am.erase(std::remove_if(am.begin(), am.end(), [](const AccessRecord& r) { return r.is_lds && r.is_store; }),
           am.end());
  ASSERT_EQ(am.size() + 1, before);
  VerifyResult v = s.Check();
  const AccessVerdict* l = Side(v, "LDS");
  ASSERT_NE(l, nullptr) << v.Report();
  EXPECT_EQ(l->status, Status::kFailed) << v.Report();
  EXPECT_TRUE(absl::StrContains(l->reason, "LDS write has no access-map record")) << v.Report();
  ExpectProved(v, "global");
}

// A KIR load performed by an LDS DMA (its record retargeted): the data goes
// to LDS, not registers, so it fails; an lds_dma's record on a plain
// buffer_load fails too.
TEST(LdsDma, DmaAndPlainLoadAreNotInterchangeable) {
  Subject s = Load(kStraight);
  for (AccessRecord& r : s.code.access_map)
    if (!r.is_lds && !r.is_store && r.kir_op == 0) r.kir_op = 2;  // op 2: %v = load L[...]: an LDS load
  VerifyResult v = s.Check();
  const AccessVerdict* g = Side(v, "global");
  ASSERT_NE(g, nullptr) << v.Report();
  EXPECT_EQ(g->status, Status::kFailed) << v.Report();
  EXPECT_TRUE(absl::StrContains(g->reason, "writes LDS, not registers")) << v.Report();
}

// The shared-M0 form: one s_mov_b32 m0 per 4 KiB window (two), the DMAs'
// offsets their LDS distances from the window's start, every side proved.
TEST(LdsDma, SharedM0PerWindowProvesBothSides) {
  Subject s = Load(kShared);
  EXPECT_EQ(s.FindAll("s_mov_b32 m0").size(), 2u) << s.Asm();
  const std::vector<size_t> dmas = s.FindAll(" lds");
  ASSERT_EQ(dmas.size(), 6u) << s.Asm();
  const int64_t want[] = {0, 1024, 2048, 3072, 0, 1024};
  for (size_t i = 0; i < dmas.size(); ++i) EXPECT_EQ(s.code.mir.insts[dmas[i]].offset, want[i]) << s.Asm();
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
  int lds = 0, global = 0;
  for (const AccessVerdict& a : v.accesses) {
    if (a.side == "LDS") lds += a.status == Status::kProved;
    if (a.side == "global") global += a.status == Status::kProved;
  }
  EXPECT_EQ(lds, 6) << v.Report();
  EXPECT_EQ(global, 6) << v.Report();
}

// The offset of DMA 1 (1024) in the field but its voffset uncompensated
// (DMA 0's: voffset = the row part without - 1024 + 2048): the buffer read is
// 1024 bytes short and fails with a counterexample; its LDS write (the shared
// M0 + 1024 + 16 * lane) proves.
TEST(LdsDma, SharedM0OffsetWithoutVoffsetCompensationFailsTheGlobalSide) {
  Subject s = Load(kShared);
  const std::vector<size_t> dmas = s.FindAll(" lds");
  ASSERT_EQ(dmas.size(), 6u) << s.Asm();
  MInst& d0 = s.code.mir.insts[dmas[0]];
  MInst& d1 = s.code.mir.insts[dmas[1]];
  ASSERT_EQ(d1.offset, 1024) << s.Asm();
  ASSERT_TRUE(d0.ops[0].IsReg() && d1.ops[0].IsReg()) << s.Asm();
  ASSERT_NE(d0.ops[0].reg, d1.ops[0].reg) << s.Asm();
  d1.ops[0] = d0.ops[0];
  VerifyResult v = s.Check();
  bool global_failed = false, lds_all = true;
  for (const AccessVerdict& a : v.accesses) {
    if (a.inst_id == d1.id && a.side == "global") {
      global_failed = a.status == Status::kFailed &&
                      absl::StrContains(a.counterexample, "counterexample") &&
                      absl::StrContains(a.reason, "the LDS DMA's global side");
    }
    if (a.side == "LDS") lds_all = lds_all && a.status == Status::kProved;
  }
  EXPECT_TRUE(global_failed) << v.Report();
  EXPECT_TRUE(lds_all) << v.Report();
}

// DMA 5's offset moved to 2048 with its voffset 1024 lower (the v_add_u32
// that makes it from the lane part: the global read where it was): the LDS
// write lands 1024 bytes past its place and fails with a counterexample; the
// global side proves.
TEST(LdsDma, SharedM0WrongDistanceFailsTheLdsSide) {
  Subject s = Load(kShared);
  const std::vector<size_t> dmas = s.FindAll(" lds");
  ASSERT_EQ(dmas.size(), 6u) << s.Asm();
  MInst& d5 = s.code.mir.insts[dmas[5]];
  ASSERT_EQ(d5.offset, 1024) << s.Asm();
  ASSERT_TRUE(d5.ops[0].IsReg()) << s.Asm();
  // The voffset's definition: v_add_u32 vX, 10240 - 1024, vLane.
  MInst* def = nullptr;
  for (size_t i = dmas[5]; i-- > dmas[4];) {
    MInst& mi = s.code.mir.insts[i];
    if (mi.opc == Opc::kVAddU32 && mi.ops[0].IsReg() && mi.ops[0].reg == d5.ops[0].reg) {
      def = &mi;
      break;
    }
  }
  ASSERT_NE(def, nullptr) << s.Asm();
  ASSERT_EQ(def->ops[1].kind, MOperand::Kind::kImm) << s.Asm();
  ASSERT_EQ(def->ops[1].imm, 10240 - 1024) << s.Asm();
  def->ops[1].imm -= 1024;
  d5.offset = 2048;
  VerifyResult v = s.Check();
  bool lds_failed = false, global_proved = false;
  for (const AccessVerdict& a : v.accesses) {
    if (a.inst_id != d5.id) continue;
    if (a.side == "LDS") lds_failed = a.status == Status::kFailed && absl::StrContains(a.counterexample, "counterexample");
    if (a.side == "global") global_proved = a.status == Status::kProved;
  }
  EXPECT_TRUE(lds_failed) << v.Report();
  EXPECT_TRUE(global_proved) << v.Report();
}

// The second window's M0 write deleted: DMAs 4 and 5 write into the first
// window (M0 still its start) and fail on the LDS side.
TEST(LdsDma, SharedM0MissingSecondWindowWriteFailsTheLdsSide) {
  Subject s = Load(kShared);
  const std::vector<size_t> movs = s.FindAll("s_mov_b32 m0");
  ASSERT_EQ(movs.size(), 2u) << s.Asm();
  const std::vector<size_t> dmas = s.FindAll(" lds");
  ASSERT_EQ(dmas.size(), 6u) << s.Asm();
  const int id4 = s.code.mir.insts[dmas[4]].id, id5 = s.code.mir.insts[dmas[5]].id;
  s.code.mir.insts.erase(s.code.mir.insts.begin() + static_cast<long>(movs[1]));
  VerifyResult v = s.Check();
  int failed = 0;
  for (const AccessVerdict& a : v.accesses)
    if ((a.inst_id == id4 || a.inst_id == id5) && a.side == "LDS" && a.status == Status::kFailed) ++failed;
  EXPECT_EQ(failed, 2) << v.Report();
}

// A promoted fp8 GEMM on the DMA path (issue 19): its 32-byte f8f6f4
// fragments are read as two 16-byte pieces from independently rotated
// 16-byte units of the DMA-written tiles (compiler/promote
// GemmOperandPlan::dma). Every DMA side and every ds_read_b128 piece
// proves; a piece read 16 bytes off (its unit's neighbour) fails with a
// counterexample.
constexpr char kFp8Gemm[] = R"(kernel fp8_dma
target gfx950
workgroup auto
grid auto
arg A : f8e4m3fn[128, 256] strides [256, 1] readonly
arg B : f8e5m2[128, 256] strides [256, 1] readonly
arg C : f32[128, 128] strides [128, 1] readwrite
arg alpha : f32
  gemm C = alpha * A.mk * B.nk + C tile 64x64x128 waves 2x2 mfma f32_16x16x128_fp8_bf8 lds_dma on
end
)";

TEST(LdsDma, TheFp8GemmsSplitFragmentReadsProve) {
  Subject s = Load(kFp8Gemm);
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << v.Report() << s.Asm();
  const std::vector<size_t> reads = s.FindAll("ds_read_b128");
  // Two K tiles of (2 + 2) fragments of two pieces per wave.
  EXPECT_EQ(reads.size(), 2u * 4 * 2) << s.Asm();
  int proved = 0;
  for (const AccessVerdict& a : v.accesses)
    if (absl::StrContains(a.inst_text, "ds_read_b128")) proved += a.status == Status::kProved;
  EXPECT_EQ(proved, static_cast<int>(reads.size())) << v.Report();
  ASSERT_FALSE(reads.empty());
  MInst& piece = s.code.mir.insts[reads[0]];
  const int id = piece.id;
  piece.offset += 16;
  VerifyResult bad = s.Check();
  EXPECT_FALSE(bad.all_proved) << bad.Report();
  bool failed = false;
  for (const AccessVerdict& a : bad.accesses)
    if (a.inst_id == id && a.status == Status::kFailed) failed = absl::StrContains(a.counterexample, "counterexample");
  EXPECT_TRUE(failed) << bad.Report();
}

}  // namespace
}  // namespace kir::vfy::testing
