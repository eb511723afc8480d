// Hand-built negatives: machine code edited in process (the access map still
// matches) so that an address is wrong, and the verifier must report it as
// FAILED with a concrete counterexample; one test per failure class 1-6 of
// shared/docs/failure-classes.md (and 17, buffer descriptors), each with its
// harmless twin proved where there is one (the verifier proves what it
// claims, it does not assume it).
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/asm_syntax.h"
#include "gtest/gtest.h"
#include "verify/test_roles.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

using Status = AccessVerdict::Status;

Subject Load(const std::string& text, const std::string& mcpu) {
  absl::StatusOr<Compiled> c = CompileKir(text, mcpu);
  EXPECT_TRUE(c.ok()) << c.status();
  Subject s{std::move(*c), {}};
  s.code = s.c.result.lowered;
  VerifyResult v = s.Check();
  EXPECT_TRUE(v.all_proved) << "the unedited kernel must prove:\n" << v.Report();
  return s;
}

MInst Inst(Opc opc, std::vector<MOperand> ops) {
  MInst mi;
  mi.opc = opc;
  mi.ops = std::move(ops);
  return mi;
}
MOperand V(int r) { return MOperand::Phys(RegClass::kVgpr, r); }
MOperand S(int r) { return MOperand::Phys(RegClass::kSgpr, r); }
MOperand I(int64_t v) { return MOperand::Imm(v); }

// The one failed access; its reason and counterexample must mention `needles`.
// The pointer is into `v`: keep the VerifyResult alive while using it.
const AccessVerdict* ExpectFailed(const VerifyResult& v, std::vector<std::string> needles = {}) {
  const AccessVerdict* f = nullptr;
  for (const AccessVerdict& a : v.accesses)
    if (a.status == Status::kFailed && f == nullptr) f = &a;
  EXPECT_NE(f, nullptr) << v.Report();
  EXPECT_FALSE(v.all_proved);
  if (f == nullptr) return nullptr;
  std::string all = f->reason + "\n" + f->counterexample;
  for (const std::string& n : needles) EXPECT_TRUE(absl::StrContains(all, n)) << "missing '" << n << "' in:\n" << all;
  return f;
}

std::string Kernel(const std::string& name) { return ReadTestFile("testdata/kernels/" + name + ".kir"); }

// copy_f32's voffset = tid.x << 4 and soffset = wg.x << 12, found by role
// (test_roles.h), not by register names: `shl` writes the buffer load's vaddr
// and must be v_lshlrev_b32 <dst>, 4, <tid> (tid: the VGPR holding the
// thread's index tid.x); `sshl` writes its soffset and must be s_lshl_b32
// <sdst>, <wg.x>, 12. An error (the test fails) when kirc computes them
// otherwise.
struct CopyAddress {
  size_t shl = 0, sshl = 0;
  int dst = 0, tid = 0, sdst = 0;
};
absl::StatusOr<CopyAddress> FindCopyAddress(const Subject& s) {
  absl::StatusOr<size_t> load = FindInst(s.code.mir, "buffer_load");
  if (!load.ok()) return load.status();
  absl::StatusOr<size_t> shl = FindDef(s.code.mir, *load, OpName::kVaddr);
  if (!shl.ok()) return shl.status();
  absl::StatusOr<size_t> sshl = FindDef(s.code.mir, *load, OpName::kSoffset);
  if (!sshl.ok()) return sshl.status();
  const MInst& v = s.code.mir.insts[*shl];
  const MInst& sc = s.code.mir.insts[*sshl];
  if (v.opc != Opc::kVLshlrevB32 || v.ops.size() != 3 || v.ops[1].IsReg() || v.ops[1].imm != 4 || !v.ops[2].IsReg())
    return absl::NotFoundError("copy_f32's voffset is written by '" + s.Text(*shl) + "', not v_lshlrev_b32 by 4 of a VGPR");
  if (sc.opc != Opc::kSLshlB32 || sc.ops.size() != 3 || sc.ops[2].IsReg() || sc.ops[2].imm != 12)
    return absl::NotFoundError("copy_f32's soffset is written by '" + s.Text(*sshl) + "', not s_lshl_b32 by 12");
  return CopyAddress{*shl, *sshl, v.ops[0].reg, v.ops[2].reg, sc.ops[0].reg};
}

// copy_f32's buffer load's num_records (SRD dword 2, by role): the
// instruction that writes it must be s_mov_b32 of 0x8000 (src, f32[8192]: a
// value from the .kir: 32 KiB).
absl::StatusOr<size_t> FindNumRecords(const Subject& s) {
  absl::StatusOr<size_t> load = FindInst(s.code.mir, "buffer_load");
  if (!load.ok()) return load.status();
  absl::StatusOr<size_t> mov = FindDefOfPart(s.code.mir, *load, OpName::kSrsrc, 2);
  if (!mov.ok()) return mov.status();
  const MInst& m = s.code.mir.insts[*mov];
  if (m.opc != Opc::kSMovB32 || m.ops.size() != 2 || m.ops[1].IsReg() || m.ops[1].imm != 0x8000)
    return absl::NotFoundError("copy_f32's num_records is written by '" + s.Text(*mov) + "', not s_mov_b32 of 0x8000");
  return *mov;
}

// kLongLoop's exit test (the only s_cmp, by role) and the counter's
// increment (what last writes its first operand before it): s_cmp_lt_u32
// against the trip count 16777217 = 0x1000001 and s_add_u32 of 1.
struct LoopExit {
  size_t cmp = 0, add = 0;
};
absl::StatusOr<LoopExit> FindLoopExit(const Subject& s) {
  absl::StatusOr<size_t> cmp = FindInst(s.code.mir, "s_cmp_");
  if (!cmp.ok()) return cmp.status();
  if (FindInst(s.code.mir, "s_cmp_", 1).ok()) return absl::NotFoundError("the loop has more than one s_cmp");
  absl::StatusOr<size_t> add = FindDef(s.code.mir, *cmp, OpName::kSrc0);
  if (!add.ok()) return add.status();
  const MInst& c = s.code.mir.insts[*cmp];
  const MInst& a = s.code.mir.insts[*add];
  if (c.opc != Opc::kSCmpLtU32 || c.ops.size() != 2 || c.ops[1].IsReg() || c.ops[1].imm != 0x1000001)
    return absl::NotFoundError("the loop's exit test is '" + s.Text(*cmp) + "', not s_cmp_lt_u32 against 0x1000001");
  if (a.opc != Opc::kSAddU32 || a.ops.size() != 3 || a.ops[2].IsReg() || a.ops[2].imm != 1)
    return absl::NotFoundError("the loop's counter is written by '" + s.Text(*add) + "', not s_add_u32 of 1");
  return LoopExit{*cmp, *add};
}

// guard_div's A load (by role): its vaddr is v_cndmask_b32 of the guard's
// 0x80000000 and the in-range offset, that offset v_add_u32 of a constant
// (the -3 and -1 of the indices) and the sum `sum`, v_add_u32 of an SGPR (the
// workgroup's bytes, wg.x * 40 * 37 * 4 + wg.y * 24 * 4) and a VGPR (the
// thread's). `cmp33`: the guard of L's second index (tid.x
// floordiv 7 - 2 < 33, L's extent), the only v_cmp_gt_u32 against 33.
struct GuardDivRoles {
  size_t sum = 0, cmp33 = 0;
};
absl::StatusOr<GuardDivRoles> FindGuardDivRoles(const Subject& s) {
  const MFunction& f = s.code.mir;
  absl::StatusOr<size_t> load = FindInst(f, "buffer_load");
  if (!load.ok()) return load.status();
  absl::StatusOr<size_t> cnd = FindDef(f, *load, OpName::kVaddr);
  if (!cnd.ok()) return cnd.status();
  if (f.insts[*cnd].opc != Opc::kVCndmaskB32)
    return absl::NotFoundError("guard_div's A load's vaddr is written by '" + s.Text(*cnd) + "', not v_cndmask_b32");
  absl::StatusOr<size_t> off = FindDef(f, *cnd, OpName::kSrc1);
  if (!off.ok()) return off.status();
  absl::StatusOr<size_t> sum = FindDef(f, *off, OpName::kSrc1);
  if (!sum.ok()) return sum.status();
  const MInst& a = f.insts[*sum];
  if (a.opc != Opc::kVAddU32 || a.ops.size() != 3 || !a.ops[1].IsReg() || a.ops[1].cls != RegClass::kSgpr ||
      !a.ops[2].IsReg() || a.ops[2].cls != RegClass::kVgpr)
    return absl::NotFoundError("guard_div's A offset sums with '" + s.Text(*sum) + "', not v_add_u32 of an SGPR and a VGPR");
  std::vector<size_t> cmps;
  for (size_t i = 0; i < f.insts.size(); ++i) {
    const MInst& c = f.insts[i];
    if (c.opc == Opc::kVCmpGtU32)
      for (const MOperand& o : c.ops)
        if (!o.IsReg() && o.kind == MOperand::Kind::kImm && o.imm == 33) cmps.push_back(i);
  }
  if (cmps.size() != 1)
    return absl::NotFoundError(absl::StrCat("guard_div has ", cmps.size(), " v_cmp_gt_u32 against 33, not one"));
  return GuardDivRoles{*sum, cmps[0]};
}

// floordiv by 4 of a dividend that is negative for some threads: an arithmetic
// shift, then a multiply by 6 (f16 elements, stride 3) that keeps bit 30.
constexpr char kNegShiftMul[] = R"(kernel neg_shift_mul
workgroup 64 1 1
grid 4 1 1
arg Q : f16[55] strides [1] writeonly
  %z = zero f16
  store Q[(tid.x - wg.x * 3 - 1) floordiv 4 * 3 + 9], %z
end
)";

// floordiv by 4 of a dividend that is negative for some threads: an arithmetic shift.
constexpr char kNegShift[] = R"(kernel neg_shift
workgroup 64 1 1
grid 4 1 1
arg Q : f32[19] strides [1] writeonly
  %z = zero f32
  store Q[(tid.x - wg.x * 3 - 1) floordiv 4 + 3], %z
end
)";

// A quotient of up to 22.4M times 5: past 2^24, so v_mul_lo_u32, not v_mul_u32_u24.
constexpr char kMul24[] = R"(kernel mul24
workgroup 1024 1 1
grid 1 1 1
arg A : f16[111848107] strides [1] writeonly
  %z = zero f16
  store A[(tid.x * 65536 + 1) floordiv 3 * 5], %z
end
)";

// floordiv by 7 with dividends up to 2^31 - 1.
constexpr char kDiv7Big[] = R"(kernel div7
workgroup 256 1 1
grid 32768 1 1
arg Q : f16[306783379] strides [1] writeonly
  %z = zero f16
  store Q[(wg.x * 65536 + tid.x + 65280) floordiv 7], %z
end
)";

TEST(Negatives, OutOfBoundsForOneThreadOfOneWorkgroupNamesThem) {
  // num_records 16 bytes short: only the last thread of the last workgroup
  // (tid.x 255 of wg.x 7) reads past it, and its load is dropped.
  Subject s = Load(Kernel("copy_f32"), "gfx942");
  absl::StatusOr<size_t> num_records = FindNumRecords(s);
  ASSERT_TRUE(num_records.ok()) << num_records.status();
  s.code.mir.insts[*num_records].ops[1].imm = 0x8000 - 16;
  ExpectFailed(s.Check(), {"passes the SRD range check", "tid = (255, 0, 0), wg = (7, 0, 0)", "out of range"});
}

TEST(Negatives, DwordPartlyPastNumRecordsIsDroppedWhole) {
  // num_records 2 bytes short: the last thread's last dword (bytes
  // 0x7ffc..0x7fff) has half its bytes in range, and the range check is per
  // whole dword (RawBufferInRange), so that element reads 0 on hardware.
  Subject s = Load(Kernel("copy_f32"), "gfx942");
  absl::StatusOr<size_t> num_records = FindNumRecords(s);
  ASSERT_TRUE(num_records.ok()) << num_records.status();
  s.code.mir.insts[*num_records].ops[1].imm = 0x8000 - 2;
  ExpectFailed(s.Check(), {"element 3", "passes the SRD range check", "tid = (255, 0, 0), wg = (7, 0, 0)",
                           "out of range"});
}

TEST(Negatives, OffsetThatWraps32BitsIsReported) {
  // voffset = (tid.x << 4) - 16 and soffset = wg.x * 4096 + 16: the 32-bit sum
  // is right, but voffset wraps for tid.x = 0 and the hardware adds base +
  // soffset + voffset without wrapping (failure class 4).
  Subject s = Load(Kernel("copy_f32"), "gfx942");
  absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
  ASSERT_TRUE(a.ok()) << a.status();
  s.code.mir.insts[a->shl] = Inst(Opc::kVLshlAddU32, {V(a->dst), V(a->tid), I(4), I(-16)});
  s.Insert(a->sshl + 1, Inst(Opc::kSAddU32, {S(a->sdst), S(a->sdst), I(16)}));
  ExpectFailed(s.Check(), {"tid = (0, 0, 0)", "voffset 0xfffffff0", "out of range"});
}

TEST(Negatives, FailureClass1_OrOfOverlappingBitsIsCaughtAndDisjointOrProved) {
  // guard_div: A's byte offset is the workgroup's (an SGPR) plus the
  // thread's (a VGPR); as an or the bits overlap.
  Subject bad = Load(kGuardDiv, "gfx942");
  absl::StatusOr<GuardDivRoles> roles = FindGuardDivRoles(bad);
  ASSERT_TRUE(roles.ok()) << roles.status();
  bad.code.mir.insts[roles->sum].opc = Opc::kVOrB32;
  ExpectFailed(bad.Check(), {"address =="});
  // mma_16x16x16_f16: (tid.x mod 4) << 3 | (tid.x floordiv 4) << 5: disjoint, proved.
  Subject good = Load(Kernel("mma_16x16x16_f16"), "gfx942");
  // The instruction that writes the first global load's vaddr (by role, test_roles.h).
  absl::StatusOr<size_t> load = FindInst(good.code.mir, "buffer_load");
  ASSERT_TRUE(load.ok()) << load.status();
  absl::StatusOr<size_t> lshl_add = FindDef(good.code.mir, *load, OpName::kVaddr);
  ASSERT_TRUE(lshl_add.ok()) << lshl_add.status();
  ASSERT_EQ(good.code.mir.insts[*lshl_add].opc, Opc::kVLshlAddU32) << good.Text(*lshl_add);
  good.code.mir.insts[*lshl_add].opc = Opc::kVLshlOrB32;
  VerifyResult v = good.Check();
  EXPECT_TRUE(v.all_proved) << v.Report();
}

// or/xor with a constant are exact (X | c = X + c - (X & c), X ^ c = X + c -
// 2 (X & c)), with no side condition: a constant sharing bits with the value
// is caught with a counterexample, and xor-ing twice proves.
TEST(Negatives, FailureClass1_OrAndXorWithAConstantAreExact) {
  // copy_f32: voffset = t << 4 (t: the VGPR of the thread's index); t | 1 is wrong for even threads.
  Subject bad = Load(Kernel("copy_f32"), "gfx942");
  absl::StatusOr<CopyAddress> a = FindCopyAddress(bad);
  ASSERT_TRUE(a.ok()) << a.status();
  const int t = a->tid;
  bad.Insert(a->shl, Inst(Opc::kVOrB32, {V(t), I(1), V(t)}));
  ExpectFailed(bad.Check(), {absl::StrCat("v_or_b32 v", t, ", 1, v", t), "confirmed concretely"});
  // t ^ 1 is wrong for every thread.
  Subject flip = Load(Kernel("copy_f32"), "gfx942");
  flip.Insert(a->shl, Inst(Opc::kVXorB32, {V(t), I(1), V(t)}));
  ExpectFailed(flip.Check(), {"confirmed concretely"});
  // (t ^ 3) ^ 3 == t: proved.
  Subject twice = Load(Kernel("copy_f32"), "gfx942");
  twice.Insert(a->shl, Inst(Opc::kVXorB32, {V(t), I(3), V(t)}));
  twice.Insert(a->shl, Inst(Opc::kVXorB32, {V(t), I(3), V(t)}));
  VerifyResult v = twice.Check();
  EXPECT_TRUE(v.all_proved) << v.Report();
}

TEST(Negatives, FailureClass2_InexactMagicNumberWrongShiftAndA24BitMultiply) {
  {  // the magic number of floordiv 3 off by one
    Subject s = Load(kGuardDiv, "gfx942");
    s.At("0x55555556").ops[1].imm = 0x55555555;
    ExpectFailed(s.Check(), {"counterexample"});
  }
  {  // a multiplier that is exact for small dividends only, used up to 2^31 - 1:
     // (ceil(2^32 / 7), shift 0) divides exactly only below about 7.5e8
    Subject s = Load(kDiv7Big, "gfx942");
    s.At("s_mov_b32 s0, 0x92492493").ops[1].imm = 0x24924925;
    s.At("v_lshrrev_b32 v1, 2, v0").ops[1].imm = 0;
    ExpectFailed(s.Check(), {"counterexample"});
  }
  {  // the right multiplier with the wrong shift
    Subject s = Load(kDiv7Big, "gfx942");
    s.At("v_lshrrev_b32 v1, 2, v0").ops[1].imm = 3;
    ExpectFailed(s.Check(), {"counterexample"});
  }
  {  // v_mul_lo_u32 replaced by the 24-bit multiply on values past 2^24
    Subject s = Load(kMul24, "gfx942");
    s.At("v_mul_lo_u32").opc = Opc::kVMulU32U24;
    ExpectFailed(s.Check(), {"address =="});
  }
}

TEST(Negatives, FailureClass3_TruncatingDivisionOfNegativeValuesIsCaught) {
  // C's x / 4 for signed x: (x + ((x >> 31) & 3)) >> 2, truncating toward 0;
  // KIR's floordiv rounds down. They differ for negative x not divisible by 4.
  Subject s = Load(kNegShift, "gfx942");
  size_t sh = s.Find("v_ashrrev_i32 v0, 2, v1");
  s.Insert(sh, Inst(Opc::kVAddU32, {V(1), V(1), V(100)}));
  s.Insert(sh, Inst(Opc::kVAndB32, {V(100), I(3), V(100)}));
  s.Insert(sh, Inst(Opc::kVAshrrevI32, {V(100), I(31), V(1)}));
  ExpectFailed(s.Check(), {"address =="});
  // The verifier's own floordiv is floor, not Z3's or C's: the unedited kernel proved.
}

TEST(Negatives, FailureClass4_WraparoundInIntermediates) {
  // (OffsetThatWraps32BitsIsReported: a voffset that wraps past 2^32.)
  {  // tid.x << 4 << 28 overflows and >> 28 cannot bring the lost bits back
    Subject s = Load(Kernel("copy_f32"), "gfx942");
    absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
    ASSERT_TRUE(a.ok()) << a.status();
    const int d = a->dst;
    s.Insert(a->shl + 1, Inst(Opc::kVLshlrevB32, {V(d), I(28), V(d)}));
    s.Insert(a->shl + 2, Inst(Opc::kVLshrrevB32, {V(d), I(28), V(d)}));
    ExpectFailed(s.Check(), {"address =="});
  }
  {  // a sum that wraps and is brought back: (v + 0x7fffffff) + 0x80000001 == v (mod 2^32): proved
    Subject s = Load(Kernel("copy_f32"), "gfx942");
    absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
    ASSERT_TRUE(a.ok()) << a.status();
    const int d = a->dst;
    s.Insert(a->shl + 1, Inst(Opc::kVAddU32, {V(d), I(0x7fffffff), V(d)}));
    s.Insert(a->shl + 2, Inst(Opc::kVAddU32, {V(d), I(0x80000001), V(d)}));
    VerifyResult v = s.Check();
    EXPECT_TRUE(v.all_proved) << v.Report();
  }
}

TEST(Negatives, FailureClass5_SignedVersusUnsigned) {
  {  // a logical shift of a negative dividend
    Subject s = Load(kNegShiftMul, "gfx942");
    s.At("v_ashrrev_i32").opc = Opc::kVLshrrevB32;
    ExpectFailed(s.Check(), {"counterexample"});
  }
  {  // ... which a later << 2 happens to repair: (x >>u 2) << 2 == (x >>s 2) << 2, proved
    Subject s = Load(kNegShift, "gfx942");
    s.At("v_ashrrev_i32 v0, 2, v1").opc = Opc::kVLshrrevB32;
    VerifyResult v = s.Check();
    EXPECT_TRUE(v.all_proved) << v.Report();
  }
  {  // the signed high multiply for an unsigned magic division (multiplier >= 2^31)
    Subject s = Load(kDiv7Big, "gfx942");
    s.At("v_mul_hi_u32").opc = Opc::kVMulHiI32;
    ExpectFailed(s.Check(), {"counterexample"});
  }
  {  // ... harmless when multiplier and dividend are below 2^31 (floordiv 3 here): proved
    Subject s = Load(kGuardDiv, "gfx942");
    size_t i = s.Find("0x55555556");
    for (size_t j = i; j < s.code.mir.insts.size(); ++j)
      if (s.code.mir.insts[j].opc == Opc::kVMulHiU32) {
        s.code.mir.insts[j].opc = Opc::kVMulHiI32;
        break;
      }
    VerifyResult v = s.Check();
    EXPECT_TRUE(v.all_proved) << v.Report();
  }
  {  // an unsigned compare made signed: negative indices pass the guard
    Subject s = Load(kGuardDiv, "gfx942");
    absl::StatusOr<GuardDivRoles> roles = FindGuardDivRoles(s);
    ASSERT_TRUE(roles.ok()) << roles.status();
    s.code.mir.insts[roles->cmp33].opc = Opc::kVCmpGtI32;
    ExpectFailed(s.Check(), {"counterexample"});
  }
}

TEST(Negatives, FailureClass6_ShiftAmountsUseTheLowFiveBits) {
  {  // 36 & 31 == 4: the same shift on hardware: proved
    Subject s = Load(Kernel("copy_f32"), "gfx942");
    absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
    ASSERT_TRUE(a.ok()) << a.status();
    s.code.mir.insts[a->shl].ops[1].imm = 36;
    VerifyResult v = s.Check();
    EXPECT_TRUE(v.all_proved) << v.Report();
  }
  {  // 35 & 31 == 3: a different shift: failed
    Subject s = Load(Kernel("copy_f32"), "gfx942");
    absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
    ASSERT_TRUE(a.ok()) << a.status();
    s.code.mir.insts[a->shl].ops[1].imm = 35;
    ExpectFailed(s.Check(), {"address =="});
  }
  {  // s_lshl_b32 by 44 == by 12: proved
    Subject s = Load(Kernel("copy_f32"), "gfx942");
    absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
    ASSERT_TRUE(a.ok()) << a.status();
    s.code.mir.insts[a->sshl].ops[2].imm = 44;
    VerifyResult v = s.Check();
    EXPECT_TRUE(v.all_proved) << v.Report();
  }
}

TEST(Negatives, FailureClass17_BufferDescriptors) {
  {  // data_format 0: stores dropped on hardware
    Subject s = Load(Kernel("copy_f32"), "gfx942");
    s.code.mir.insts[s.Find("s_mov_b32 s11, 0x20000")].ops[1].imm = 0;
    ExpectFailed(s.Check(), {"data_format"});
  }
  {  // num_records past 2 GiB: the guard's 0x80000000 offset is back in range
    Subject s = Load(kGuardDiv, "gfx942");
    s.code.mir.insts[s.Find("s_mov_b32 s6, 0x39d0")].ops[1].imm = 0x80001000;
    // (The SRD's window now reaches past A; the solver's model may show that
    // alone or with an out-of-shape element in range.)
    ExpectFailed(s.Check(), {"SRD num_records <= the size of 'A'"});
  }
  {  // an instruction offset the 12-bit field cannot hold
    Subject s = Load(Kernel("mma_32x32x8_f16"), "gfx942");
    s.code.mir.insts[s.Find("offset:3456")].offset = 3456 + 4096;
    ExpectFailed(s.Check(), {"12-bit"});
  }
  {  // the pointer of another argument
    Subject s = Load(Kernel("copy_f32"), "gfx942");
    s.code.mir.insts[s.Find("s_load_dwordx2 s[8:9], s[0:1], 0x8")].ops[2].imm = 0;
    ExpectFailed(s.Check(), {"address == dst + byte offset of dst[(wg.x * 256 + tid.x) * 4]"});
  }
}

TEST(Negatives, ScalarRegistersMustBeUniform) {
  // An SALU instruction fed a VGPR (tid.x): its SGPR result is per lane.
  Subject s = Load(Kernel("copy_f32"), "gfx942");
  absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
  ASSERT_TRUE(a.ok()) << a.status();
  s.code.mir.insts[a->sshl].ops[1] = V(a->tid);
  ExpectFailed(s.Check(), {absl::StrCat("s", a->sdst, " depends on tid.x: not uniform")});
}

// mma_loop's K-loop update of its loads' soffset (s += 32 bytes: 16 f16 of
// %k per trip), found by role: the last instruction writing the first
// buffer load's soffset, which must be s_add_u32 s, s, 32.
absl::StatusOr<size_t> FindLoopStep(const Subject& s) {
  absl::StatusOr<size_t> load = FindInst(s.code.mir, "buffer_load");
  if (!load.ok()) return load.status();
  absl::StatusOr<size_t> add = FindLastDef(s.code.mir, *load, OpName::kSoffset);
  if (!add.ok()) return add.status();
  const MInst& mi = s.code.mir.insts[*add];
  if (mi.opc != Opc::kSAddU32 || mi.ops.size() != 3 || mi.ops[2].IsReg() || mi.ops[2].imm != 32)
    return absl::NotFoundError("mma_loop's soffset is last written by '" + s.Text(*add) + "', not s_add_u32 of 32");
  return *add;
}

TEST(Negatives, LoopCounterexampleNamesTheIteration) {
  // The strength-reduced K offset steps by 36 bytes instead of 32.
  Subject s = Load(Kernel("mma_loop_32x32x64_f16"), "gfx942");
  absl::StatusOr<size_t> step = FindLoopStep(s);
  ASSERT_TRUE(step.ok()) << step.status();
  s.code.mir.insts[*step].ops[2].imm = 36;
  ExpectFailed(s.Check(), {"%k = ", "iteration"});
  // One iteration fewer than the KIR loop: the loop's compare (its only
  // s_cmp) against the trip count 4.
  Subject t = Load(Kernel("mma_loop_32x32x64_f16"), "gfx942");
  absl::StatusOr<size_t> cmp = FindInst(t.code.mir, "s_cmp_");
  ASSERT_TRUE(cmp.ok()) << cmp.status();
  ASSERT_FALSE(FindInst(t.code.mir, "s_cmp_", 1).ok()) << "mma_loop has more than one s_cmp";
  ASSERT_EQ(t.code.mir.insts[*cmp].opc, Opc::kSCmpLtU32) << t.Text(*cmp);
  ASSERT_EQ(t.code.mir.insts[*cmp].ops[1].imm, 4) << t.Text(*cmp);
  t.code.mir.insts[*cmp].ops[1].imm = 3;
  ExpectFailed(t.Check(), {"runs 3 time(s) but the KIR loop %k"});
}

TEST(Negatives, LoopStepLoadedInTheBodyIsNotAnInductionVariable) {
  // s1 += (a dword loaded from memory in every iteration): the step differs
  // per iteration, so s1 is no induction variable; the K-loop loads must not be proved.
  Subject s = Load(Kernel("mma_loop_32x32x64_f16"), "gfx942");
  absl::StatusOr<size_t> step = FindLoopStep(s);
  ASSERT_TRUE(step.ok()) << step.status();
  const size_t add = *step;
  s.code.mir.insts[add].ops[2] = S(30);
  s.Insert(add, Inst(Opc::kSWaitcnt, {I(0), I(0)}));
  s.Insert(add, Inst(Opc::kSLoadDword, {S(30), MOperand::Phys(RegClass::kSgpr, 12, 2), I(0)}));
  VerifyResult v = s.Check();
  EXPECT_FALSE(v.all_proved) << v.Report();
  for (const AccessVerdict& a : v.accesses)
    if (absl::StartsWith(a.inst_text, "buffer_load"))
      EXPECT_NE(a.status, Status::kProved) << a.inst_text << "\n" << v.Report();
}

TEST(Negatives, UnsupportedControlFlowIsUnknownNotProved) {
  // A forward branch: not a loop. Every access is unknown, none proved.
  Subject s = Load(Kernel("copy_f32"), "gfx942");
  MInst br = Inst(Opc::kSBranch, {I(77)});
  MInst label = Inst(Opc::kLabel, {I(77)});
  absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
  ASSERT_TRUE(a.ok()) << a.status();
  size_t at = a->sshl;
  s.Insert(at, label);
  s.Insert(at, br);
  VerifyResult v = s.Check();
  EXPECT_FALSE(v.all_proved);
  EXPECT_EQ(CountStatus(v, Status::kProved), 0) << v.Report();
  EXPECT_TRUE(absl::StrContains(v.Report(), "control flow other than loops")) << v.Report();
}

// for %k = 0 to 16777217: a counter SGPR += 1, s_cmp_lt_u32 of it against 0x1000001.
constexpr char kLongLoop[] = R"(kernel long_loop
workgroup 64 1 1
grid 1 1 1
arg x : f32[64] strides [1] readonly
arg y : f32[64] strides [1] writeonly
  %z = zero f32
  %r = for %k = 0 to 16777217 step 1 iter(%c = %z) {
    %v = load x[tid.x] : f32
    %c2 = add %c, %v
    yield %c2
  }
  store y[tid.x], %r
end
)";

// Machine loops of more than 2^24 iterations: the trip count is exact up to
// 2^32 and a different one is a failure; an exit the verifier cannot find
// in 2^32 iterations is "forever". The loads in the loop are the witnesses.
TEST(Negatives, AScalarWrittenInABlockExecMaySkipIsUnknownAfterIt) {
  // s_cbranch_execz over `s_lshl_b32 s0, s2, 12` (soffset = wg.x * 4096): a
  // wave with EXEC zero would skip it, so after the label s0 is unknown and
  // the accesses using it are not proved (VGPR writes in such a block are
  // masked per lane; scalar ones are not).
  Subject s = Load(Kernel("copy_f32"), "gfx942");
  absl::StatusOr<CopyAddress> a = FindCopyAddress(s);
  ASSERT_TRUE(a.ok()) << a.status();
  const size_t at = a->sshl;
  const std::string sdst = absl::StrCat("s", a->sdst);
  s.Insert(at + 1, Inst(Opc::kLabel, {I(78)}));
  s.Insert(at, Inst(Opc::kSCbranchExecz, {I(78)}));
  VerifyResult v = s.Check();
  EXPECT_FALSE(v.all_proved);
  EXPECT_EQ(CountStatus(v, Status::kProved), 0) << v.Report();
  EXPECT_TRUE(absl::StrContains(v.Report(), sdst + " after the block that")) << v.Report();
}

TEST(Negatives, MachineLoopTripCountsPast2To24) {
  auto loads = [](const VerifyResult& v, Status want, const std::string& needle) {
    int n = 0;
    for (const AccessVerdict& a : v.accesses)
      if (absl::StartsWith(a.inst_text, "buffer_load")) {
        ++n;
        EXPECT_EQ(a.status, want) << v.Report();
        EXPECT_TRUE(absl::StrContains(a.reason, needle)) << "missing '" << needle << "' in: " << a.reason;
      }
    EXPECT_EQ(n, 1) << v.Report();
  };
  {  // One iteration more than the KIR loop.
    Subject s = Load(kLongLoop, "gfx942");
    absl::StatusOr<LoopExit> e = FindLoopExit(s);
    ASSERT_TRUE(e.ok()) << e.status();
    s.code.mir.insts[e->cmp].ops[1] = I(0x1000002);
    loads(s.Check(), Status::kFailed, "runs 16777218 time(s) but the KIR loop %k = 0 to 16777217 step 1 runs 16777217");
  }
  {  // 2^32 - 1 iterations: the most a 32-bit counter compared with s_cmp_lt_u32 runs.
    Subject s = Load(kLongLoop, "gfx942");
    absl::StatusOr<LoopExit> e = FindLoopExit(s);
    ASSERT_TRUE(e.ok()) << e.status();
    s.code.mir.insts[e->cmp].ops[1] = I(0xffffffffll);
    VerifyResult v = s.Check();
    loads(v, Status::kFailed, "runs 4294967295 time(s)");
    ASSERT_EQ(v.loops.size(), 1u);
    EXPECT_TRUE(absl::StrContains(v.loops[0], ": 4294967295 iterations")) << v.loops[0];
  }
  {  // Another exit test, not monotone in the iteration: s0 += 2 until s0 == 2 * 16777217
     // (s0 also reaches 2 * 16777217 + 2^32 = the same value, later): the same trip count, proved.
    Subject s = Load(kLongLoop, "gfx942");
    absl::StatusOr<LoopExit> e = FindLoopExit(s);
    ASSERT_TRUE(e.ok()) << e.status();
    s.code.mir.insts[e->add].ops[2] = I(2);
    s.code.mir.insts[e->cmp].opc = Opc::kSCmpLgU32;
    s.code.mir.insts[e->cmp].ops[1] = I(0x2000002);
    VerifyResult v = s.Check();
    EXPECT_TRUE(v.all_proved) << v.Report();
    // ... and with an odd bound the counter never reaches it: the loop never ends.
    s.code.mir.insts[e->cmp].ops[1] = I(0x2000001);
    v = s.Check();
    loads(v, Status::kFailed, "runs forever");
    ASSERT_EQ(v.loops.size(), 1u);
    EXPECT_TRUE(absl::StrContains(v.loops[0], "never exits")) << v.loops[0];
  }
  {  // A solver out of budget: the trip count is unknown, and so is every access (never failed).
    absl::StatusOr<Compiled> c = CompileKir(kLongLoop, "gfx942");
    ASSERT_TRUE(c.ok()) << c.status();
    VerifyOptions starved;
    starved.resource_limit = 4;
    starved.max_search_instructions = 100000;
    VerifyResult v = Verify(*c, nullptr, starved);
    EXPECT_FALSE(v.all_proved);
    for (const AccessVerdict& a : v.accesses) {
      EXPECT_EQ(a.status, Status::kUnknown) << v.Report();
      EXPECT_TRUE(absl::StrContains(a.reason, "the trip count of the loop at [")) << a.reason;
    }
  }
}

TEST(Negatives, MemoryInstructionMissingFromTheAccessMapFails) {
  Subject s = Load(Kernel("copy_f32"), "gfx942");
  MInst extra = s.code.mir.insts[s.Find("buffer_store_dwordx4")];
  extra.id = 999;
  s.Insert(s.Find("buffer_store_dwordx4"), extra);
  ExpectFailed(s.Check(), {"access map does not name"});
}

// gfx950's ds_read_b64_tr_b16 (KIR load_tr): each lane's address is its own
// and is proved like a DS read's (testdata/kernels/load_tr_bf16.kir proves);
// an offset one block off fails with a counterexample, and a plain
// ds_read_b64 in its place (no lane exchange) fails as the wrong instruction.
TEST(Negatives, TransposedLdsReadWrongOffsetOrPlainReadFails) {
  {
    Subject s = Load(Kernel("load_tr_bf16"), "gfx950");
    MInst& rd = s.At("ds_read_b64_tr_b16");
    rd.offset += 8;  // the next 4 halves of the row
    VerifyResult v = s.Check();
    const AccessVerdict* f = ExpectFailed(v, {"LDS address", "T["});
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->inst_id, rd.id);
    EXPECT_FALSE(f->counterexample.empty()) << v.Report();
  }
  {
    Subject s = Load(Kernel("load_tr_bf16"), "gfx950");
    MInst& rd = s.At("ds_read_b64_tr_b16");
    rd.opc = Opc::kDsReadB64;
    VerifyResult v = s.Check();
    const AccessVerdict* f = ExpectFailed(v, {"the KIR op is a load_tr", "ds_read_b64 is not ds_read_b64_tr_b16"});
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->inst_id, rd.id);
  }
}

// DS read2/write2 (compiler/passes/ds_pairing.h): each address is checked
// against its own KIR access and reported per component ([N.0], [N.1]).
TEST(Negatives, WrongOffsetInADsPairIsCaughtForThatComponent) {
  Subject s = Load(Kernel("mma_16x16x16_f16"), "gfx942");
  MInst& rd = s.At("ds_read2_b64");
  ASSERT_EQ(rd.offset1, 80);  // Bs is 80 elements of 8 bytes after As (16 rows of 16 + 4 pad, f16)
  rd.offset1 = 79;            // one element short of Bs
  VerifyResult v = s.Check();
  const AccessVerdict* f = ExpectFailed(v, {"LDS address", "emitted LDS", "Bs["});
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->inst_id, rd.id);
  EXPECT_EQ(f->component, 1);
  EXPECT_TRUE(absl::StrContains(v.Report(), absl::StrCat("FAILED  [", rd.id, ".1] ds_read2_b64"))) << v.Report();
  int failed = 0;
  for (const AccessVerdict& a : v.accesses) {
    failed += a.status == Status::kFailed;
    if (a.inst_id == rd.id && a.component == 0) EXPECT_EQ(a.status, Status::kProved) << v.Report();
  }
  EXPECT_EQ(failed, 1) << v.Report();
  // The write pair's first address moved one element: caught for component 0.
  Subject w = Load(Kernel("mma_16x16x16_f16"), "gfx942");
  MInst& wr = w.At("ds_write2_b64");
  wr.offset0 = 1;
  const VerifyResult vw = w.Check();  // ExpectFailed points into it
  const AccessVerdict* fw = ExpectFailed(vw, {"emitted LDS", "As["});
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(fw->component, 0);
}

TEST(Negatives, DsPairOffsetFieldsAndRecords) {
  // offset1:256 does not fit the 8-bit field (llvm-mc rejects it).
  Subject s = Load(Kernel("mma_16x16x16_f16"), "gfx942");
  s.At("ds_read2_b64").offset1 = 256;
  ExpectFailed(s.Check(), {"do not fit the 8-bit DS offset0/offset1 fields"});
  // A pair whose second access has no record: that address is unverified.
  Subject t = Load(Kernel("mma_16x16x16_f16"), "gfx942");
  const int id = t.At("ds_read2_b64").id;
  std::erase_if(t.code.access_map, [&](const AccessRecord& r) { return r.inst_id == id && r.component == 1; });
  ExpectFailed(t.Check(), {"address 1 of the DS read2/write2 has no access-map record"});
}

}  // namespace
}  // namespace kir::vfy::testing
