// Strict mode: each rule with a hand-broken kernel (kirc's output with the
// s_waitcnt / s_barrier / s_nop line deleted, or small hand-written assembly)
// and the specific error it must produce.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "compiler/object/toolchain.h"
#include "hw/emu/code_object.h"
#include "hw/emu/emulator.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::HandKernel;
using testing::ToBytes;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// The hand-broken kernels below delete lines of kirc's output and expect
// errors naming its registers, so they pin the unscheduled instruction order.
std::string Compile(const std::string& kir, const std::string& mcpu) {
  CompileOptions o;
  o.mcpu = mcpu;
  o.schedule = false;
  absl::StatusOr<CompileResult> r = CompileText(kir, "test.kir", o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->assembly : "";
}

// `text` without the `n`-th (1-based) line equal to `line`.
std::string DeleteLine(const std::string& text, const std::string& line, int n = 1) {
  std::string needle = "\n" + line + "\n";
  size_t p = 0;
  for (int i = 0; i < n; ++i) {
    p = text.find(needle, i == 0 ? 0 : p + 1);
    EXPECT_NE(p, std::string::npos) << "no line `" << line << "` (" << n << ")";
    if (p == std::string::npos) return text;
  }
  return text.substr(0, p + 1) + text.substr(p + needle.size());
}

// The text of the `n`-th (from 0) instruction line of `text` whose mnemonic
// is `mnemonic` (e.g. "buffer_store_dwordx4"), without its indent: the tests
// below name kirc's instructions by role, not by the registers the
// allocator happened to choose. Fails the test when there is none.
std::string InstLine(const std::string& text, const std::string& mnemonic, int n = 0) {
  size_t p = 0;
  const std::string needle = "\n  " + mnemonic + " ";
  for (int i = 0; i <= n; ++i) {
    p = text.find(needle, i == 0 ? 0 : p + 1);
    if (p == std::string::npos) {
      ADD_FAILURE() << "no instruction `" << mnemonic << "` (" << n << ")";
      return "<none>";
    }
  }
  const size_t b = p + 3, e = text.find('\n', b);
  return text.substr(b, e - b);
}

// The first operand of instruction text `line` ("v[8:11]" of
// "v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], ...").
std::string FirstOperand(const std::string& line) {
  const size_t b = line.find(' ') + 1;
  return line.substr(b, line.find(',', b) - b);
}

// The first register of a register operand: "v8" of "v[8:11]", "v4" of "v4".
std::string FirstReg(const std::string& op) {
  const size_t br = op.find('[');
  if (br == std::string::npos) return op;
  return op.substr(0, br) + op.substr(br + 1, op.find(':') - br - 1);
}

absl::Status RunText(const std::string& text, const std::string& mcpu, std::vector<std::vector<uint8_t>> args,
                 std::array<int64_t, 3> grid = {1, 1, 1}) {
  LaunchArgs a;
  a.args = std::move(args);
  a.grid = grid;
  return RunAssembly(text, mcpu, a).status();
}

std::string CopyKir() { return testing::ReadTestFile("testdata/kernels/copy_f32.kir"); }
std::vector<std::vector<uint8_t>> CopyArgs() {
  return {ToBytes(std::vector<float>(8192, 1.0f)), ToBytes(std::vector<float>(8192, 0.0f))};
}

// ---- Rule 1: pending loads -------------------------------------------------

TEST(StrictTest, IntactKernelsPass) {
  for (const char* t : {"gfx908", "gfx90a", "gfx942"})
    EXPECT_TRUE(RunText(Compile(CopyKir(), t), t, CopyArgs(), {8, 1, 1}).ok()) << t;
}

TEST(StrictTest, ReadBeforeVmcntWait) {
  std::string s = DeleteLine(Compile(CopyKir(), "gfx942"), "  s_waitcnt vmcnt(0)");
  const std::string store = InstLine(s, "buffer_store_dwordx4"), load = InstLine(s, "buffer_load_dwordx4");
  absl::Status st = RunText(s, "gfx942", CopyArgs(), {8, 1, 1});
  EXPECT_THAT(Msg(st), AllOf(HasSubstr("`" + store + "` reads " + FirstReg(FirstOperand(store))),
                                  HasSubstr("while the load 0x"),
                                  HasSubstr("`" + load + "`"),
                                  HasSubstr("vmcnt: needs s_waitcnt vmcnt(0)")));
}

TEST(StrictTest, ReadBeforeLgkmcntWaitForScalarLoad) {
  std::string s = DeleteLine(Compile(CopyKir(), "gfx90a"), "  s_waitcnt lgkmcnt(0)");
  absl::Status st = RunText(s, "gfx90a", CopyArgs(), {8, 1, 1});
  EXPECT_THAT(Msg(st), AllOf(HasSubstr("`s_and_b32 s5, s5, 0xffff` overwrites s5"),
                                  HasSubstr("`s_load_dwordx2 s[4:5], s[0:1], 0x0`"),
                                  HasSubstr("lgkmcnt(0)")));
}

const char kLoads[] = R"(
  v_mov_b32 v1, 0
  v_mov_b32 v2, 0
  v_mov_b32 v3, 0
  ds_write_b64 v1, v[2:3]
  s_waitcnt lgkmcnt(0)
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  ds_read_b32 v2, v1
  ds_read_b32 v3, v1 offset:4
  s_waitcnt lgkmcnt(1)
  USE
  s_endpgm)";

absl::Status RunLoads(const std::string& use) {
  HandKernel k;
  k.args = {"A:global_buffer"};
  k.lds_bytes = 8;
  k.body = absl::StrReplaceAll(kLoads, {{"USE", use}});
  return RunText(k.Text(), "gfx942", {ToBytes(std::vector<float>(4, 0.0f))});
}

TEST(StrictTest, LgkmcntNDoesNotCoverScalarLoads) {
  // DS returns in order: lgkmcnt(1) covers the first ds_read ...
  EXPECT_TRUE(RunLoads("v_mov_b32 v4, v2").ok());
  // ... but not the second one ...
  EXPECT_THAT(Msg(RunLoads("v_mov_b32 v4, v3")),
              AllOf(HasSubstr("`v_mov_b32 v4, v3` reads v3"), HasSubstr("`ds_read_b32 v3, v1 offset:4`"),
                    HasSubstr("lgkmcnt(0), since a scalar load is outstanding")));
  // ... and no SMEM load at all: SMEM returns out of order.
  EXPECT_THAT(Msg(RunLoads("s_add_u32 s6, s4, 1")),
              AllOf(HasSubstr("`s_add_u32 s6, s4, 1` reads s4"), HasSubstr("`s_load_dwordx2 s[4:5], s[0:1], 0x0`"),
                    HasSubstr("lgkmcnt(0)")));
}

TEST(StrictTest, OverwriteWhileLoadInFlight) {
  HandKernel k;
  k.args = {"A:global_buffer"};
  k.body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  v_mov_b32 v2, 0
  s_endpgm)";
  absl::Status st = RunText(k.Text(), "gfx942", {ToBytes(std::vector<float>(64, 0.0f))});
  EXPECT_THAT(Msg(st), AllOf(HasSubstr("`v_mov_b32 v2, 0` overwrites v2"),
                                  HasSubstr("`global_load_dword v2, v1, s[4:5]`")));
}

// ---- Rule 2: LDS races --------------------------------------------------------

const char kReverseKir[] = R"(kernel reverse
target gfx942
workgroup 128 1 1
grid 1 1 1
arg A : f32[128] strides [1] readonly
arg B : f32[128] strides [1] writeonly
lds T : f32[128]
  %a = load A[tid.x] : f32
  store T[tid.x], %a
  barrier
  %b = load T[127 - tid.x] : f32
  store B[tid.x], %b
end
)";

TEST(StrictTest, TwoWaveLdsExchangeIsCorrect) {
  for (const char* t : {"gfx908", "gfx90a", "gfx942"}) {
    std::vector<float> a = testing::RandomF32(128, 11);
    LaunchArgs args;
    args.args = {ToBytes(a), ToBytes(std::vector<float>(128, 0.0f))};
    absl::StatusOr<EmuStats> s = RunAssembly(Compile(kReverseKir, t), t, args);
    ASSERT_TRUE(s.ok()) << s.status();
    std::vector<float> b = testing::FromBytes<float>(args.args[1]);
    for (int i = 0; i < 128; ++i) EXPECT_EQ(b[i], a[127 - i]) << t << " " << i;
    EXPECT_EQ(s->waves, 2);
    EXPECT_EQ(s->by_class["barrier"], 2);
  }
}

std::vector<std::vector<uint8_t>> ReverseArgs() {
  return {ToBytes(std::vector<float>(128, 1.0f)), ToBytes(std::vector<float>(128, 0.0f))};
}

TEST(StrictTest, LdsReadWithoutBarrier) {
  std::string s = DeleteLine(Compile(kReverseKir, "gfx942"), "  s_barrier");
  EXPECT_THAT(Msg(RunText(s, "gfx942", ReverseArgs())),
              AllOf(HasSubstr("LDS race: wave 0"), HasSubstr("`ds_read_b32 v1, v2` reads LDS byte 0x"),
                    HasSubstr("written by wave 1"), HasSubstr("`ds_write_b32 v0, v2`"),
                    HasSubstr("with no s_barrier between them")));
}

TEST(StrictTest, LdsWriteNotPublishedBeforeBarrier) {
  // The s_waitcnt lgkmcnt(0) between ds_write and s_barrier is the second one.
  std::string s = DeleteLine(Compile(kReverseKir, "gfx942"), "  s_waitcnt lgkmcnt(0)", 2);
  EXPECT_THAT(Msg(RunText(s, "gfx942", ReverseArgs())),
              AllOf(HasSubstr("LDS race"), HasSubstr("`ds_read_b32 v1, v2` reads"),
                    HasSubstr("reached the barrier before an s_waitcnt covered its write")));
}

TEST(StrictTest, LdsWriteAfterReadWithoutWaitBeforeBarrier) {
  // Each thread reads T[(t + 64) % 128] (the other wave's half), then, after a
  // barrier that it reaches before its read completed, overwrites T[t].
  HandKernel k;
  k.workgroup = 128;
  k.lds_bytes = 512;
  k.args = {"A:global_buffer"};
  k.extra_directives = "    .amdhsa_system_vgpr_workitem_id 0\n";
  k.body = R"(
  v_and_b32 v1, 0x3ff, v0
  v_add_u32 v2, 64, v1
  v_and_b32 v2, 0x7f, v2
  v_lshlrev_b32 v2, 2, v2
  v_lshlrev_b32 v3, 2, v1
  v_mov_b32 v4, 7
  ds_write_b32 v3, v4
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v5, v2
  WAIT
  s_barrier
  ds_write_b32 v3, v4
  s_waitcnt lgkmcnt(0)
  s_endpgm)";
  k.body = absl::StrReplaceAll(k.body, {{"WAIT", "s_waitcnt lgkmcnt(0)"}});
  EXPECT_TRUE(RunText(k.Text(), "gfx90a", {ToBytes(std::vector<float>(1, 0.0f))}).ok());
  k.body = absl::StrReplaceAll(k.body, {{"  s_waitcnt lgkmcnt(0)\n  s_barrier\n  ds_write", "  s_barrier\n  ds_write"}});
  EXPECT_THAT(Msg(RunText(k.Text(), "gfx90a", {ToBytes(std::vector<float>(1, 0.0f))})),
              AllOf(HasSubstr("LDS race: wave 0"), HasSubstr("`ds_write_b32 v3, v4` writes LDS byte 0x"),
                    HasSubstr("read by wave 1"), HasSubstr("`ds_read_b32 v5, v2`"),
                    HasSubstr("covered its read")));
}

// ---- Rule 3: hazards ----------------------------------------------------------

std::string MmaKir() { return testing::ReadTestFile("testdata/kernels/mma_16x16x16_f16.kir"); }
std::vector<std::vector<uint8_t>> MmaArgs() {
  return {ToBytes(std::vector<uint16_t>(256, 0x3c00)), ToBytes(std::vector<uint16_t>(256, 0x3c00)),
          ToBytes(std::vector<float>(256, 0.0f))};
}

TEST(StrictTest, MfmaResultReadTooEarlyGfx942) {
  std::string s = DeleteLine(Compile(MmaKir(), "gfx942"), "  s_nop 1");
  const std::string store = InstLine(s, "buffer_store_dword"), mfma = InstLine(s, "v_mfma_f32_16x16x16_f16");
  EXPECT_THAT(Msg(RunText(s, "gfx942", MmaArgs())),
              AllOf(HasSubstr("hazard: 0x"), HasSubstr("`" + store + "` issues 5 wait states after"),
                    HasSubstr("`" + mfma + "`, which needs 7"),
                    HasSubstr("XDL MFMA (4 passes) writes " + FirstOperand(mfma) + " read by VMEM: 7 wait states (gfx942)")));
}

// gfx950: an XDL MFMA's result needs one wait state more than on gfx942
// before a VALU/VMEM/DS reads it (GCNHazardRecognizer.cpp
// GFX940_XDL_N_PassWriteVgprVALUMemExpReadWaitStates: NumPasses + 3 +
// (NumPasses != 2 && IsGFX950); 16x16x16 f16 has 4 passes on gfx950,
// SISchedule.td SIDPGFX950FullSpeedModel): 4 + 3 + 1 = 8.
TEST(StrictTest, MfmaResultReadTooEarlyGfx950) {
  std::string s = DeleteLine(Compile(MmaKir(), "gfx950"), "  s_nop 2");
  const std::string store = InstLine(s, "buffer_store_dword"), mfma = InstLine(s, "v_mfma_f32_16x16x16_f16");
  EXPECT_THAT(Msg(RunText(s, "gfx950", MmaArgs())),
              AllOf(HasSubstr("`" + store + "` issues 5 wait states after"),
                    HasSubstr("`" + mfma + "`, which needs 8"),
                    HasSubstr("XDL MFMA (4 passes) writes " + FirstOperand(mfma) + " read by VMEM: 8 wait states (gfx950)")));
  // kirc's gfx950 code as it is passes.
  absl::Status intact = RunText(Compile(MmaKir(), "gfx950"), "gfx950", MmaArgs());
  EXPECT_TRUE(intact.ok()) << intact;
  // gfx942's code (7 wait states there, enough for gfx942) is one short on
  // gfx950: the same instructions, retargeted.
  std::string g942 = Compile(MmaKir(), "gfx942");
  absl::Status on942 = RunText(g942, "gfx942", MmaArgs());
  EXPECT_TRUE(on942.ok()) << on942;
  EXPECT_THAT(Msg(RunText(absl::StrReplaceAll(g942, {{"gfx942", "gfx950"}}), "gfx950", MmaArgs())),
              AllOf(HasSubstr("issues 7 wait states after"), HasSubstr("which needs 8"),
                    HasSubstr("(gfx950)")));
}

// The group segment a workgroup may have: TargetInfo::lds_bytes, 163840 on
// gfx950 (LLVM FeatureAddressableLocalMemorySize163840), 65536 on gfx942.
TEST(StrictTest, LdsLimitPerTarget) {
  HandKernel k;
  k.args = {"A:global_buffer"};
  k.body = "\n  s_endpgm";
  k.mcpu = "gfx950";
  k.lds_bytes = 163840;
  absl::Status at_limit = RunText(k.Text(), "gfx950", {ToBytes(std::vector<float>(1, 0.0f))});
  EXPECT_TRUE(at_limit.ok()) << at_limit;
  k.lds_bytes = 163844;
  EXPECT_THAT(Msg(RunText(k.Text(), "gfx950", {ToBytes(std::vector<float>(1, 0.0f))})),
              HasSubstr("163840 bytes of LDS"));
  k.mcpu = "gfx942";
  k.lds_bytes = 65540;
  EXPECT_THAT(Msg(RunText(k.Text(), "gfx942", {ToBytes(std::vector<float>(1, 0.0f))})),
              HasSubstr("65536 bytes of LDS"));
}

TEST(StrictTest, MfmaResultReadTooEarlyGfx90a) {
  std::string s = DeleteLine(Compile(MmaKir(), "gfx90a"), "  s_nop 5");
  const std::string mfma = InstLine(s, "v_mfma_f32_16x16x16f16");
  EXPECT_THAT(Msg(RunText(s, "gfx90a", MmaArgs())),
              AllOf(HasSubstr("`" + mfma + "`"), HasSubstr("which needs 11"),
                    HasSubstr("MFMA (8 passes) writes " + FirstOperand(mfma) + " read by VMEM: 11 wait states (gfx90a)")));
}

TEST(StrictTest, AccvgprReadTooEarlyGfx908) {
  std::string s = DeleteLine(Compile(MmaKir(), "gfx908"), "  s_nop 1");
  const std::string read = InstLine(s, "v_accvgpr_read_b32"), mfma = InstLine(s, "v_mfma_f32_16x16x16f16");
  EXPECT_THAT(Msg(RunText(s, "gfx908", MmaArgs())),
              AllOf(HasSubstr("`" + read + "` issues 8 wait states after"),
                    HasSubstr("MFMA (8 passes) writes " + FirstOperand(mfma) + " read by v_accvgpr_read: 10 wait states (gfx908)")));
}

// LLVM widens kernarg loads within the segment pointer's 16-byte alignment:
// a 28-byte segment (two pointers, three dwords) has its dwords 4..6 read
// by one s_load_dwordx4 at 0x10 (clang-22 -O3, fresh-user review 7 F9).
// Reading to the 16-byte boundary is allowed; past it is refused.
TEST(StrictTest, KernargLoadsWidenToTheSegmentsSixteenByteBoundary) {
  HandKernel k;
  k.args = {"A:global_buffer", "B:global_buffer", "n:by_value:4", "s:by_value:4", "t:by_value:4"};
  k.body = R"(
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  s_load_dwordx4 s[4:7], s[0:1], OFF
  v_lshlrev_b32 v2, 2, v0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v1, s6
  global_store_dword v2, v1, s[8:9]
  s_waitcnt vmcnt(0)
  s_endpgm)";
  const std::vector<uint8_t> t = ToBytes(std::vector<uint32_t>{0x1234567u});
  std::vector<uint8_t> a = ToBytes(std::vector<float>(64, 0.0f));
  k.body = absl::StrReplaceAll(k.body, {{"OFF", "0x10"}});
  LaunchArgs la;
  la.args = {a, a, ToBytes(std::vector<uint32_t>{7}), ToBytes(std::vector<uint32_t>{9}), t};
  const std::vector<std::vector<uint8_t>> inputs = la.args;
  absl::StatusOr<EmuStats> r = RunAssembly(k.Text(), "gfx942", la);
  ASSERT_TRUE(r.ok()) << r.status();
  uint32_t first = 0;
  std::memcpy(&first, la.args[0].data(), 4);
  EXPECT_EQ(first, 0x1234567u);  // s6 = the dword at 0x18: t
  k.body = absl::StrReplaceAll(k.body, {{"s[4:7], s[0:1], 0x10", "s[4:7], s[0:1], 0x20"}});
  EXPECT_THAT(Msg(RunText(k.Text(), "gfx942", inputs)), HasSubstr("s_load_dwordx4 s[4:7], s[0:1], 0x20"));
}

TEST(StrictTest, ValuSgprWriteThenVmemRead) {
  HandKernel k;
  k.args = {"A:global_buffer"};
  k.body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_mov_b32 v1, 0
  v_lshlrev_b32 v7, 2, v0
  s_waitcnt lgkmcnt(0)
  v_readfirstlane_b32 s6, v1
  NOPS
  global_load_dword v2, v7, s[4:5] offset:4
  global_store_dword v7, v2, s[4:5] offset:4
  s_waitcnt vmcnt(0)
  s_endpgm)";
  // The store's saddr s[4:5] is written by SMEM, not VALU; v_readfirstlane writes s6 used as ...
  // Lane l copies A[l + 1] in place, its own element (every lane storing to
  // one element would be a global race); every lane loads A[0] through s6.
  k.body = absl::StrReplaceAll(k.body, {{"offset:4\n  global_store", "offset:4\n  s_waitcnt vmcnt(0)\n  global_store"}});
  std::string good = absl::StrReplaceAll(k.body, {{"NOPS", "s_nop 4\n  buffer_load_dword v3, off, s[8:11], s6"}});
  std::string bad = absl::StrReplaceAll(k.body, {{"NOPS", "s_nop 2\n  buffer_load_dword v3, off, s[8:11], s6"}});
  // s[8:11]: a valid SRD over A.
  auto with_srd = [](std::string body) {
    return absl::StrReplaceAll(body, {{"  v_readfirstlane_b32", "  s_mov_b32 s8, s4\n  s_and_b32 s9, s5, 0xffff\n  s_mov_b32 s10, 256\n  s_mov_b32 s11, 0x20000\n  v_readfirstlane_b32"}});
  };
  k.body = with_srd(good);
  absl::Status st = RunText(k.Text(), "gfx942", {ToBytes(std::vector<float>(65, 0.0f))});
  EXPECT_TRUE(st.ok()) << st;
  k.body = with_srd(bad);
  EXPECT_THAT(Msg(RunText(k.Text(), "gfx942", {ToBytes(std::vector<float>(65, 0.0f))})),
              AllOf(HasSubstr("`buffer_load_dword v3, off, s[8:11], s6` issues 3 wait states after"),
                    HasSubstr("`v_readfirstlane_b32 s6, v1`, which needs 5"),
                    HasSubstr("VALU writes s6 read by VMEM: 5 wait states (gfx942)")));
}

// Issue 13, defect 5: buffer_store_dwordx4 with an SGPR soffset directly
// followed by a VALU that overwrites its data: 1 wait state on gfx942 (LLVM PR
// #197267; on gfx950 hardware the store's second dword took the new value),
// no rule on gfx90a. The emulator checks it from the same hazard table.
TEST(StrictTest, WideStoreSgprSoffsetThenValuOverwrite) {
  HandKernel k;
  k.args = {"A:global_buffer"};
  k.body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v0, 4, v0
  v_mov_b32 v6, 1.0
  v_mov_b32 v7, 2.0
  v_mov_b32 v8, 3.0
  v_mov_b32 v9, 4.0
  s_mov_b32 s1, 0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, s4
  s_and_b32 s9, s5, 0xffff
  s_mov_b32 s10, 1024
  s_mov_b32 s11, 0x20000
  buffer_store_dwordx4 v[6:9], v0, s[8:11], s1 offen
  NOPS
  v_add_f32 v7, v7, v7
  s_waitcnt vmcnt(0)
  s_endpgm)";
  const std::string body = k.body;
  k.body = absl::StrReplaceAll(body, {{"NOPS", "s_nop 0"}});
  absl::Status good = RunText(k.Text(), "gfx942", {ToBytes(std::vector<float>(256, 0.0f))});
  EXPECT_TRUE(good.ok()) << good;
  k.body = absl::StrReplaceAll(body, {{"  NOPS\n", ""}});
  EXPECT_THAT(Msg(RunText(k.Text(), "gfx942", {ToBytes(std::vector<float>(256, 0.0f))})),
              AllOf(HasSubstr("`v_add_f32 v7, v7, v7` issues 0 wait states after"),
                    HasSubstr("with an SGPR soffset reads v[6:9] overwritten by VALU")));
  absl::Status on90a = RunText(k.Text(), "gfx90a", {ToBytes(std::vector<float>(256, 0.0f))});
  EXPECT_TRUE(on90a.ok()) << on90a;
  // gfx950 is of the gfx940 family: the same 1 wait state (PR #197267).
  k.mcpu = "gfx950";
  EXPECT_THAT(Msg(RunText(k.Text(), "gfx950", {ToBytes(std::vector<float>(256, 0.0f))})),
              AllOf(HasSubstr("`v_add_f32 v7, v7, v7` issues 0 wait states after"),
                    HasSubstr("with an SGPR soffset reads v[6:9] overwritten by VALU: 1 wait state (gfx950)")));
  k.body = absl::StrReplaceAll(body, {{"NOPS", "s_nop 0"}});
  absl::Status good950 = RunText(k.Text(), "gfx950", {ToBytes(std::vector<float>(256, 0.0f))});
  EXPECT_TRUE(good950.ok()) << good950;
}

TEST(StrictTest, NonStrictRunsBrokenKernel) {
  std::string s = DeleteLine(Compile(MmaKir(), "gfx942"), "  s_nop 1");
  LaunchArgs a;
  a.args = MmaArgs();
  EmuOptions o;
  o.strict = false;
  EXPECT_TRUE(RunAssembly(s, "gfx942", a, o).ok());
}

// ---- Rule 4: reads of LDS no lane has written -----------------------------------

TEST(StrictTest, LdsReadOfUnwrittenBytes) {
  // Lane l writes dword l of 64 (bytes [0, 256)); every lane then reads
  // dword l + 1: lane 63 reads bytes [0x100, 0x104), which nobody wrote.
  HandKernel k;
  k.lds_bytes = 512;
  k.body = R"(
  v_lshlrev_b32 v1, 2, v0
  ds_write_b32 v1, v0
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v2, v1 offset:OFF
  s_waitcnt lgkmcnt(0)
  s_endpgm)";
  LaunchArgs a;
  HandKernel ok = k;
  ok.body = absl::StrReplaceAll(k.body, {{"OFF", "0"}});
  EXPECT_TRUE(RunAssembly(ok.Text(), "gfx942", a).ok());
  k.body = absl::StrReplaceAll(k.body, {{"OFF", "4"}});
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", a).status()),
              AllOf(HasSubstr("wave 0: 0x"), HasSubstr("`ds_read_b32 v2, v1 offset:4`: lane 63 reads LDS bytes [0x100, 0x104)"),
                    HasSubstr("no lane of the workgroup has written LDS byte 0x100 since the kernel started")));
  // Not strict: the read returns the launch pattern, no error.
  EmuOptions o;
  o.strict = false;
  EXPECT_TRUE(RunAssembly(k.Text(), "gfx942", a, o).ok());
}

// ---- Rule 5: races on global memory ---------------------------------------------

// Argument 0 'A' of a HandKernel sits at 0x10ffffff00 (emulator.cc: buffer 1).
const char kGlobal[] = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  ADDR
  s_waitcnt lgkmcnt(0)
  BODY
  s_waitcnt vmcnt(0)
  s_endpgm)";

// Runs kGlobal with ADDR and BODY replaced over A (`floats` f32 zeros);
// `a` gets A's final contents.
absl::Status RunGlobal(const std::string& addr, const std::string& body, std::vector<float>* a = nullptr,
                       bool strict = true, int floats = 65, std::array<int64_t, 3> grid = {1, 1, 1}) {
  HandKernel k;
  k.args = {"A:global_buffer"};
  k.body = absl::StrReplaceAll(kGlobal, {{"ADDR", addr}, {"BODY", body}});
  LaunchArgs la;
  la.args = {ToBytes(std::vector<float>(floats, 0.0f))};
  la.grid = grid;
  EmuOptions o;
  o.strict = strict;
  absl::Status st = RunAssembly(k.Text(), "gfx942", la, o).status();
  if (a != nullptr) *a = testing::FromBytes<float>(la.args[0]);
  return st;
}

const char kOwnElement[] = "v_lshlrev_b32 v1, 2, v0";                            // lane l: A[l]
const char kPairElement[] = "v_lshrrev_b32 v1, 1, v0\n  v_lshlrev_b32 v1, 2, v1";  // lanes 2i, 2i+1: A[i]

TEST(StrictTest, GlobalStoresOfTwoLanesToOneElement) {
  const std::string body = "v_cvt_f32_u32 v2, v0\n  global_store_dword v1, v2, s[4:5]";
  std::vector<float> a;
  absl::Status st = RunGlobal(kOwnElement, body, &a);
  ASSERT_TRUE(st.ok()) << st;
  for (int l = 0; l < 64; ++l) EXPECT_EQ(a[l], l) << l;
  EXPECT_THAT(Msg(RunGlobal(kPairElement, body)),
              AllOf(HasSubstr("workgroup (0,0,0) wave 0: global memory race: 0x"),
                    HasSubstr("`global_store_dword v1, v2, s[4:5]` (lane 1 of wave 0 of workgroup (0,0,0)) stores to "
                              "byte 0x10ffffff00 (1 byte at offset 0 of argument 0 'A' [0x10ffffff00 + 260 bytes]), "
                              "which 0x"),
                    HasSubstr("`global_store_dword v1, v2, s[4:5]` (lane 0 of wave 0 of workgroup (0,0,0)) stored "
                              "earlier in this dispatch: two work-items store to the same byte; the result depends "
                              "on timing")));
  // Not strict: one writer's value stays (here the later lane's), no error.
  st = RunGlobal(kPairElement, body, &a, /*strict=*/false);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(a[0], 1.0f);
}

TEST(StrictTest, GlobalLoadOfANeighboursElement) {
  // Lane l stores A[l], then loads A[l + 1], which lane l + 1 stored.
  const std::string body =
      "global_store_dword v1, v0, s[4:5]\n  s_waitcnt vmcnt(0)\n  global_load_dword v2, v1, s[4:5] offset:OFF";
  absl::Status st = RunGlobal(kOwnElement, absl::StrReplaceAll(body, {{"OFF", "0"}}));
  EXPECT_TRUE(st.ok()) << st;  // its own element: no race
  EXPECT_THAT(Msg(RunGlobal(kOwnElement, absl::StrReplaceAll(body, {{"OFF", "4"}}))),
              AllOf(HasSubstr("`global_load_dword v2, v1, s[4:5] offset:4` (lane 0 of wave 0 of workgroup (0,0,0)) "
                              "loads byte 0x10ffffff04 (1 byte at offset 4 of argument 0 'A'"),
                    HasSubstr("which 0x"),
                    HasSubstr("`global_store_dword v1, v0, s[4:5]` (lane 1 of wave 0 of workgroup (0,0,0)) stored "
                              "earlier in this dispatch: a load of another work-item's store")));
}

TEST(StrictTest, GlobalStoreToAnElementANeighbourLoaded) {
  // Lane l loads A[l + 1], then stores A[l], which lane l - 1 loaded; through
  // an SRD over A (buffer instructions).
  const std::string srd = absl::StrCat(kOwnElement,
                                       "\n  s_waitcnt lgkmcnt(0)\n  s_mov_b32 s8, s4\n  s_and_b32 s9, s5, 0xffff\n"
                                       "  s_mov_b32 s10, 260\n  s_mov_b32 s11, 0x20000");
  const std::string body =
      "buffer_load_dword v2, v1, s[8:11], 0 offen offset:OFF\n  s_waitcnt vmcnt(0)\n"
      "  buffer_store_dword v0, v1, s[8:11], 0 offen";
  absl::Status st = RunGlobal(srd, absl::StrReplaceAll(body, {{"OFF", "0"}}));
  EXPECT_TRUE(st.ok()) << st;  // a read-modify-write of its own element: no race
  EXPECT_THAT(Msg(RunGlobal(srd, absl::StrReplaceAll(body, {{"OFF", "4"}}))),
              AllOf(HasSubstr("`buffer_store_dword v0, v1, s[8:11], 0 offen` (lane 1 of wave 0 of workgroup (0,0,0)) "
                              "stores to byte 0x10ffffff04 (1 byte at offset 4 of argument 0 'A'"),
                    HasSubstr("`buffer_load_dword v2, v1, s[8:11], 0 offen offset:4` (lane 0 of wave 0 of workgroup "
                              "(0,0,0)) loaded earlier in this dispatch: a store to a byte another work-item loads")));
}

TEST(StrictTest, GlobalStoreToAnElementSeveralLanesLoaded) {
  // Every lane loads A[0]; then one lane stores it. The tracker keeps two of
  // the loaders (the last two, lanes 63 and 62): whichever lane stores, one of
  // them is another work-item.
  const std::string body =
      "global_load_dword v2, v1, s[4:5]\n  s_waitcnt vmcnt(0)\n  v_cmp_eq_u32 vcc, LANE, v0\n"
      "  s_and_b64 exec, exec, vcc\n  global_store_dword v1, v0, s[4:5]";
  EXPECT_THAT(Msg(RunGlobal("v_mov_b32 v1, 0", absl::StrReplaceAll(body, {{"LANE", "0"}}))),
              AllOf(HasSubstr("`global_store_dword v1, v0, s[4:5]` (lane 0 of wave 0"),
                    HasSubstr("`global_load_dword v2, v1, s[4:5]` (lane 63 of wave 0 of workgroup (0,0,0)) loaded")));
  EXPECT_THAT(Msg(RunGlobal("v_mov_b32 v1, 0", absl::StrReplaceAll(body, {{"LANE", "63"}}))),
              AllOf(HasSubstr("`global_store_dword v1, v0, s[4:5]` (lane 63 of wave 0"),
                    HasSubstr("`global_load_dword v2, v1, s[4:5]` (lane 62 of wave 0 of workgroup (0,0,0)) loaded")));
  // Only lane 5 loads and stores A[0]: its own accesses.
  const std::string alone =
      "v_cmp_eq_u32 vcc, 5, v0\n  s_and_b64 exec, exec, vcc\n  global_load_dword v2, v1, s[4:5]\n"
      "  s_waitcnt vmcnt(0)\n  global_store_dword v1, v0, s[4:5]";
  absl::Status st = RunGlobal("v_mov_b32 v1, 0", alone);
  EXPECT_TRUE(st.ok()) << st;
}

TEST(StrictTest, GlobalOutOfRangeBufferAccessesAreNoAccesses) {
  // Every lane stores to (and loads) A[1] through an SRD of NUM bytes: with
  // 4, out of range, the stores are dropped and the loads return 0. (The
  // s_nop 0 keeps the store out of the load's XNACK soft clause: rule 6.)
  const std::string srd =
      "s_waitcnt lgkmcnt(0)\n  s_mov_b32 s8, s4\n  s_and_b32 s9, s5, 0xffff\n  s_mov_b32 s10, NUM\n"
      "  s_mov_b32 s11, 0x20000\n  v_mov_b32 v1, 4";
  const std::string body =
      "buffer_load_dword v2, v1, s[8:11], 0 offen\n  s_nop 0\n  buffer_store_dword v0, v1, s[8:11], 0 offen";
  absl::Status st = RunGlobal(absl::StrReplaceAll(srd, {{"NUM", "4"}}), body);
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_THAT(Msg(RunGlobal(absl::StrReplaceAll(srd, {{"NUM", "8"}}), body)),
              AllOf(HasSubstr("`buffer_store_dword v0, v1, s[8:11], 0 offen` (lane 0 of wave 0"),
                    HasSubstr("a store to a byte another work-item loads")));
}

// Every thread stores to C[tid.x]: the workgroups race (and with IDX =
// tid.x mod 64, the two waves of each workgroup).
const char kRaceKir[] = R"(kernel race
target gfx942
workgroup 128 1 1
grid 2 1 1
arg A : f32[256] strides [1] readonly
arg C : f32[256] strides [1] writeonly
  %a = load A[wg.x * 128 + tid.x] : f32
  store C[IDX], %a
end
)";

TEST(StrictTest, GlobalStoresOfTwoWorkgroupsToOneElement) {
  auto run = [](const std::string& idx) {
    return RunText(Compile(absl::StrReplaceAll(kRaceKir, {{"IDX", idx}}), "gfx942"), "gfx942",
                   {ToBytes(std::vector<float>(256, 1.0f)), ToBytes(std::vector<float>(256, 0.0f))}, {2, 1, 1});
  };
  absl::Status st = run("wg.x * 128 + tid.x");
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_THAT(Msg(run("tid.x")),
              AllOf(HasSubstr("workgroup (1,0,0) wave 0: global memory race: 0x"),
                    HasSubstr("(lane 0 of wave 0 of workgroup (1,0,0)) stores to byte 0x20ffffff00 (1 byte at offset 0 "
                              "of argument 1 'C'"),
                    HasSubstr("(lane 0 of wave 0 of workgroup (0,0,0)) stored earlier in this dispatch: two work-items "
                              "store to the same byte")));
  EXPECT_THAT(Msg(run("tid.x mod 64")),
              AllOf(HasSubstr("workgroup (0,0,0) wave 1: global memory race: 0x"),
                    HasSubstr("(lane 0 of wave 1 of workgroup (0,0,0)) stores to byte 0x20ffffff00"),
                    HasSubstr("(lane 0 of wave 0 of workgroup (0,0,0)) stored earlier")));
}

TEST(StrictTest, GlobalRaceCheckWithoutInstructionIds) {
  // 1100 workgroups of 64 lanes times 32769 memory instructions (all but one
  // after s_endpgm) exceed the 2^31 ids: races are still found, without the
  // earlier instruction.
  std::string body = "global_store_dword v1, v0, s[4:5]";
  std::string dead;
  for (int i = 0; i < 32768; ++i) absl::StrAppend(&dead, "\n  global_load_dword v2, v1, s[4:5]");
  HandKernel k;
  k.args = {"A:global_buffer"};
  k.body = absl::StrReplaceAll(kGlobal, {{"ADDR", "v_lshlrev_b32 v1, 2, v0"}, {"BODY", body}}) + dead;
  LaunchArgs la;
  la.args = {ToBytes(std::vector<float>(64, 0.0f))};
  la.grid = {1100, 1, 1};
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", la).status()),
              AllOf(HasSubstr("workgroup (1,0,0) wave 0: global memory race: 0x"),
                    HasSubstr("`global_store_dword v1, v0, s[4:5]` (lane 0 of wave 0 of workgroup (1,0,0)) stores to "
                              "byte 0x10ffffff00"),
                    HasSubstr("which an instruction (not recorded: 32769 memory instructions times the dispatch's "
                              "work-items exceed 2^31 ids) (lane 0 of wave 0 of workgroup (0,0,0)) stored earlier")));
  // Work-items run beyond 31-bit ids: refused before the dispatch starts,
  // naming what a `kirc run` user can do (fresh-user review 11 F2).
  la.grid = {int64_t{1} << 25, 1, 1};
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", la).status()),
              AllOf(HasSubstr("the workgroups run have 2147483648 work-items (33554432 workgroups x 1 waves x 64 lanes), "
                              "more than strict mode's global-memory race check numbers (2^31 - 1); run fewer "
                              "workgroups at a time (`kirc run --workgroups=...`"),
                    HasSubstr("EmuOptions::strict = false")));
  // Ids number only the workgroups run (review 11 F2): 2^25 - 1 workgroups
  // (2^31 - 64 work-items) would fit but take long; 2^25 + 1 selected
  // are refused, counting the box, not the grid.
  la.grid = {(int64_t{1} << 25) + 7, 1, 1};
  la.workgroups.begin = {6, 0, 0};
  la.workgroups.end = {(int64_t{1} << 25) + 7, 1, 1};
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", la).status()),
              HasSubstr("the workgroups run have 2147483712 work-items (33554433 workgroups x 1 waves x 64 lanes)"));
}

// Fresh-user review 11 F2: a grid of 2^31 work-items or more runs in strict
// mode when the workgroups selected are fewer; races are still found and
// named with the workgroups' own ids.
TEST(StrictTest, GlobalRaceCheckOfSelectedWorkgroupsOfAHugeGrid) {
  HandKernel k;
  k.args = {"A:global_buffer"};
  const std::string body = "v_cvt_f32_u32 v2, v0\n  global_store_dword v1, v2, s[4:5]";
  LaunchArgs la;
  la.grid = {int64_t{1} << 26, 1, 1};  // 2^32 work-items
  la.workgroups.begin = {(int64_t{1} << 26) - 1, 0, 0};
  la.workgroups.end = {int64_t{1} << 26, 1, 1};
  // The last workgroup alone, each lane its own element: no race.
  k.body = absl::StrReplaceAll(kGlobal, {{"ADDR", kOwnElement}, {"BODY", body}});
  la.args = {ToBytes(std::vector<float>(64, 0.0f))};
  absl::StatusOr<EmuStats> r = RunAssembly(k.Text(), "gfx942", la);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int l = 0; l < 64; ++l) EXPECT_EQ(testing::FromBytes<float>(la.args[0])[l], l) << l;
  // Lanes 2i and 2i + 1 of that workgroup store to A[i]: the race names it.
  k.body = absl::StrReplaceAll(kGlobal, {{"ADDR", kPairElement}, {"BODY", body}});
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", la).status()),
              AllOf(HasSubstr("workgroup (67108863,0,0) wave 0: global memory race: 0x"),
                    HasSubstr("(lane 1 of wave 0 of workgroup (67108863,0,0)) stores to byte 0x10ffffff00"),
                    HasSubstr("(lane 0 of wave 0 of workgroup (67108863,0,0)) stored earlier")));
  // Two selected workgroups, the same elements: the second races with the first.
  k.body = absl::StrReplaceAll(kGlobal, {{"ADDR", kOwnElement}, {"BODY", body}});
  la.workgroups.begin = {(int64_t{1} << 26) - 2, 0, 0};
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", la).status()),
              AllOf(HasSubstr("workgroup (67108863,0,0) wave 0: global memory race: 0x"),
                    HasSubstr("(lane 0 of wave 0 of workgroup (67108863,0,0)) stores to byte 0x10ffffff00"),
                    HasSubstr("(lane 0 of wave 0 of workgroup (67108862,0,0)) stored earlier")));
}

// Issue 13: with the compiler's notes (EmuOptions::instruction_notes, which
// `kirc run` fills from its compile), a message that names an instruction
// names the KIR op it implements too; notes that do not fit the program
// (count or mnemonics) are ignored.
TEST(StrictTest, InstructionNotesNameTheKirOp) {
  HandKernel k;
  k.lds_bytes = 256;
  k.body = R"(
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0
  ds_write_b32 v1, v2 offset:4
  s_waitcnt lgkmcnt(0)
  s_endpgm)";
  const std::string note = "KIR k.kir:7:3 'store T[tid.x + 1], %z'";
  EmuOptions o;
  o.instruction_notes = {{"v_and_b32", ""}, {"v_lshlrev_b32", ""}, {"v_mov_b32", "KIR k.kir:6:3 '%z = zero f32'"},
                         {"ds_write_b32", note}, {"s_waitcnt", ""}, {"s_endpgm", ""}};
  LaunchArgs a;
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", a, o).status()),
              HasSubstr(absl::StrCat("`ds_write_b32 v1, v2 offset:4` (", note, "): lane 63 accesses LDS bytes [0x100, "
                                     "0x104) outside the workgroup's 256-byte LDS allocation")));
  for (auto broken : {std::function<void(EmuOptions&)>([](EmuOptions& e) { e.instruction_notes.pop_back(); }),
                      std::function<void(EmuOptions&)>([](EmuOptions& e) { e.instruction_notes[3].mnemonic = "ds_read_b32"; })}) {
    EmuOptions b = o;
    broken(b);
    std::string m = Msg(RunAssembly(k.Text(), "gfx942", a, b).status());
    EXPECT_THAT(m, HasSubstr("`ds_write_b32 v1, v2 offset:4`: lane 63")) << m;
    EXPECT_THAT(m, Not(HasSubstr("KIR"))) << m;
  }
}

TEST(StrictTest, InstructionBudget) {
  // Two waves of 1 + 10 * 3 + 1 = 32 instructions each: 64 in total.
  HandKernel k;
  k.workgroup = 128;
  k.body = R"(
  s_mov_b32 s8, 10
.Lloop:
  s_sub_u32 s8, s8, 1
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 .Lloop
  s_endpgm)";
  LaunchArgs a;
  EmuOptions o;
  o.max_instructions = 64;
  absl::StatusOr<EmuStats> st = RunAssembly(k.Text(), "gfx942", a, o);
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_EQ(st->total, 64);
  o.max_instructions = 63;
  o.budget_hint = "raise it with --max-instructions=N";
  st = RunAssembly(k.Text(), "gfx942", a, o);
  EXPECT_EQ(st.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Msg(st.status()),
              AllOf(HasSubstr("instruction budget exhausted: the dispatch executed its budget of 63 wave-instructions"),
                    HasSubstr("wave 1 was at 0x"), HasSubstr("`s_endpgm`"),
                    HasSubstr("; raise it with --max-instructions=N")));
  // The default budget is finite: an endless loop stops.
  EXPECT_EQ(EmuOptions().max_instructions, kDefaultMaxInstructions);
  EXPECT_GT(kDefaultMaxInstructions, 0);
}

TEST(StrictTest, HangGuard) {
  HandKernel k;
  k.body = R"(
.Lloop:
  s_branch .Lloop
  s_endpgm)";
  LaunchArgs a;
  EmuOptions o;
  o.max_wave_instructions = 1000;
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", a, o).status()), HasSubstr("hang guard"));
}

// ---- Descriptor: SGPRs beyond the allocation ------------------------------------

// A kernel whose code names SGPRs (here up to `top`) the descriptor's
// `.amdhsa_next_free_sgpr` does not cover. The SGPR check reads the
// descriptor's GRANULATED_WAVEFRONT_SGPR_COUNT: from llvm-mc's .kd bytes for a
// code object, from the directives (computed as llvm-mc would) for assembly
// text; both must refuse it with the same message.
HandKernel SgprKernel(const std::string& mcpu, int next_free_sgpr, const std::string& uses) {
  HandKernel k;
  k.mcpu = mcpu;
  k.sgprs = next_free_sgpr;
  k.body = absl::StrCat("\n  ", uses, "\n  s_endpgm");
  return k;
}

absl::Status RunBoth(const HandKernel& k, bool* same) {
  LaunchArgs a, b;
  absl::Status text = RunAssembly(k.Text(), k.mcpu, a).status();
  absl::StatusOr<std::string> hsaco = BuildCodeObject(testing::kLlvmBin, k.Text(), k.mcpu);
  EXPECT_TRUE(hsaco.ok()) << hsaco.status();
  if (!hsaco.ok()) return hsaco.status();
  absl::Status obj = RunCodeObject(testing::kLlvmBin, *hsaco, k.name, k.mcpu, b).status();
  // Messages name the instruction by address: estimated for text, objdump's
  // for the code object; compare from the instruction text on.
  auto from_text = [](const absl::Status& st) {
    absl::string_view m = st.message();
    return m.substr(std::min(m.size(), m.find('`')));
  };
  *same = text.ok() == obj.ok() && from_text(text) == from_text(obj);
  EXPECT_TRUE(*same) << "assembly text: " << text << "\ncode object: " << obj;
  return obj;
}

TEST(StrictTest, SgprsBeyondTheDescriptorAreAnError) {
  bool same = false;
  // .amdhsa_next_free_sgpr 1 on gfx942: llvm-mc adds the 6 special SGPRs
  // (architected flat scratch: always 6), sgprs_used 7, field
  // 2 * max(0, ceil(7 / 16) - 1) = 0 (AMDGPUUsage; llvm-mc's ceil(7 / 8) - 1
  // is 0 too), which grants 16 SGPRs, of which all 6 special ones are in use
  // on gfx942: s0..s9 are usable.
  EXPECT_THAT(Msg(RunBoth(SgprKernel("gfx942", 1, "s_mov_b64 s[10:11], 0"), &same)),
              AllOf(HasSubstr("`s_mov_b64 s[10:11], 0`: s[10:11] is beyond the SGPRs the kernel descriptor allocates: "
                              "compute_pgm_rsrc1 GRANULATED_WAVEFRONT_SGPR_COUNT 0 grants 16 SGPRs, of which the "
                              "top 6 hold VCC, XNACK_MASK (xnack is not off), FLAT_SCRATCH (gfx942 has architected "
                              "flat scratch), leaving s0..s9; the code needs s0..s11: raise "
                              ".amdhsa_next_free_sgpr to at least 12")));
  EXPECT_TRUE(same);
  // gfx908 and gfx90a: the kernel sets up no flat scratch, so its SGPRs are
  // free; VCC and (xnack any) the XNACK mask take the top 4: s0..s11.
  for (const char* t : {"gfx908", "gfx90a"}) {
    EXPECT_TRUE(RunBoth(SgprKernel(t, 1, "s_mov_b32 s11, 0"), &same).ok()) << t;
    EXPECT_THAT(Msg(RunBoth(SgprKernel(t, 1, "s_mov_b32 s12, 0"), &same)),
                HasSubstr("s12 is beyond the SGPRs the kernel descriptor allocates: compute_pgm_rsrc1 "
                          "GRANULATED_WAVEFRONT_SGPR_COUNT 0 grants 16 SGPRs, of which the top 4 hold VCC, "
                          "XNACK_MASK (xnack is not off), leaving s0..s11; the code needs s0..s12"))
        << t;
    EXPECT_TRUE(same) << t;
  }
  // The edges: 10 + 6 = 16 fits one granule (llvm-mc writes field 1), so s9
  // is the last usable SGPR; 11 + 6 = 17 takes field 2, 32 SGPRs, s0..s25
  // (beyond next_free_sgpr but allocated, as the VGPR check counts whole
  // granules too).
  EXPECT_TRUE(RunBoth(SgprKernel("gfx942", 10, "s_mov_b32 s9, 0"), &same).ok());
  EXPECT_THAT(Msg(RunBoth(SgprKernel("gfx942", 10, "s_mov_b32 s10, 0"), &same)),
              HasSubstr("leaving s0..s9; the code needs s0..s10"));
  EXPECT_TRUE(RunBoth(SgprKernel("gfx942", 11, "s_mov_b32 s25, 0"), &same).ok());
  EXPECT_THAT(Msg(RunBoth(SgprKernel("gfx942", 11, "s_mov_b32 s26, 0"), &same)),
              HasSubstr("GRANULATED_WAVEFRONT_SGPR_COUNT 2 grants 32 SGPRs, of which the top 6 hold VCC, "
                        "XNACK_MASK (xnack is not off), FLAT_SCRATCH (gfx942 has architected flat scratch), leaving "
                        "s0..s25; the code needs s0..s26"));
}

// A workgroup's waves are resident on one CU together, ceil(waves / 4) per
// SIMD (LLVM getWavesPerEUForWorkGroup): the VGPRs the descriptor grants a
// wave times that must fit a SIMD's file of 512 (gfx90a/942/950; 256 on
// gfx908). By hand: 1024 threads -> 4 per SIMD -> 128 each (gfx908: 64);
// 768 -> 3 -> 170, whole granules of 8 -> 168.
TEST(StrictTest, AWorkgroupWhoseWavesDoNotFitOneCuDoesNotLaunch) {
  struct Case {
    const char* mcpu;
    int workgroup, vgprs;
    bool launches;
    const char* why;
  };
  for (const Case& c : {Case{"gfx942", 1024, 128, true, ""},
                        Case{"gfx942", 1024, 129, false, "a workgroup of 1024 threads puts 4 waves on each SIMD of a "
                                                         "CU, and the kernel descriptor grants each wave 136 VGPRs"},
                        Case{"gfx950", 768, 168, true, ""},
                        Case{"gfx950", 768, 169, false, "grants each wave 176 VGPRs (compute_pgm_rsrc1 "
                                                        "GRANULATED_WORKITEM_VGPR_COUNT): more than the 168 of a "
                                                        "SIMD's 512 each may have"},
                        Case{"gfx90a", 512, 256, true, ""},
                        Case{"gfx908", 1024, 64, true, ""},
                        Case{"gfx908", 1024, 65, false, "more than the 64 of a SIMD's 256"}}) {
    HandKernel k;
    k.mcpu = c.mcpu;
    k.workgroup = c.workgroup;
    k.vgprs = c.vgprs;
    k.body = absl::StrCat("\n  v_mov_b32 v", c.vgprs - 1, ", 0\n  s_endpgm");
    bool same = false;
    absl::Status st = RunBoth(k, &same);
    EXPECT_TRUE(same) << c.mcpu << " " << c.workgroup;
    if (c.launches) {
      EXPECT_TRUE(st.ok()) << c.mcpu << " " << c.workgroup << ": " << st;
    } else {
      EXPECT_THAT(Msg(st), HasSubstr(c.why)) << c.mcpu << " " << c.workgroup;
    }
  }
}

TEST(StrictTest, SgprsTheDispatchSetsUpCountToo) {
  // gfx90a: private segment buffer (4) + dispatch ptr (2) + queue ptr (2) +
  // kernarg ptr (2) + dispatch id (2) user SGPRs, then workgroup ids x, y, z:
  // s0..s14 are written at launch though the code names none of them.
  HandKernel k = SgprKernel("gfx90a", 1, "s_nop 0");
  k.extra_directives =
      "    .amdhsa_user_sgpr_private_segment_buffer 1\n    .amdhsa_user_sgpr_dispatch_ptr 1\n"
      "    .amdhsa_user_sgpr_queue_ptr 1\n    .amdhsa_user_sgpr_dispatch_id 1\n"
      "    .amdhsa_system_sgpr_workgroup_id_y 1\n    .amdhsa_system_sgpr_workgroup_id_z 1\n";
  bool same = false;
  EXPECT_THAT(Msg(RunBoth(k, &same)),
              HasSubstr("kernel 'k': the 15 SGPRs the dispatch sets up (user and system SGPRs) are beyond the SGPRs "
                        "the kernel descriptor allocates: compute_pgm_rsrc1 GRANULATED_WAVEFRONT_SGPR_COUNT 0 grants "
                        "16 SGPRs, of which the top 4 hold VCC, XNACK_MASK (xnack is not off), leaving s0..s11; the "
                        "code needs s0..s14: raise .amdhsa_next_free_sgpr to at least 15"));
  EXPECT_TRUE(same);
}

TEST(StrictTest, SpecialSgprsFollowTheDescriptorAndTheCode) {
  bool same = false;
  // gfx90a:xnack- without reserved VCC or flat scratch: no special SGPRs, so
  // .amdhsa_next_free_sgpr 16 grants exactly s0..s15...
  HandKernel k = SgprKernel("gfx90a:xnack-", 16, "s_mov_b32 s15, 0");
  k.extra_directives = "    .amdhsa_reserve_vcc 0\n    .amdhsa_reserve_flat_scratch 0\n";
  EXPECT_TRUE(RunBoth(k, &same).ok());
  // ...but code that uses VCC loses the top two to it (the descriptor did
  // not count it: .amdhsa_reserve_vcc 0).
  k.body = "\n  v_cmp_eq_u32_e32 vcc, 0, v0\n  s_mov_b32 s15, 0\n  s_endpgm";
  EXPECT_THAT(Msg(RunBoth(k, &same)),
              HasSubstr("s15 is beyond the SGPRs the kernel descriptor allocates: compute_pgm_rsrc1 "
                        "GRANULATED_WAVEFRONT_SGPR_COUNT 1 grants 16 SGPRs, of which the top 2 hold VCC (the code "
                        "uses it), leaving s0..s13; the code needs s0..s15"));
  EXPECT_TRUE(same);
  // With xnack any the hardware may use the XNACK mask, which sits below
  // VCC: 4 special SGPRs. llvm-mc always counts them (it refuses
  // .amdhsa_reserve_xnack_mask 0 then, and so does the emulator), so the
  // code object's descriptor is edited: field 2 (32 SGPRs, 16 + 4 counted)
  // becomes 1 (16 SGPRs), as if the mask had not been counted.
  k.mcpu = "gfx90a";
  k.body = "\n  s_mov_b32 s12, 0\n  s_endpgm";
  HandKernel no_mask = k;
  no_mask.extra_directives += "    .amdhsa_reserve_xnack_mask 0\n";
  LaunchArgs a;
  EXPECT_THAT(Msg(RunAssembly(no_mask.Text(), "gfx90a", a).status()),
              HasSubstr(".amdhsa_reserve_xnack_mask 0 does not match target ID gfx90a (llvm-mc refuses it too)"));
  EXPECT_TRUE(RunBoth(k, &same).ok());
  absl::StatusOr<std::string> hsaco = BuildCodeObject(testing::kLlvmBin, k.Text(), k.mcpu);
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  uint64_t kd_addr = 0;
  absl::StatusOr<std::string> kd = ElfSymbolBytes(*hsaco, "k.kd", 64, &kd_addr);
  ASSERT_TRUE(kd.ok()) << kd.status();
  const size_t at = hsaco->find(*kd);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ((static_cast<uint8_t>((*hsaco)[at + 48]) | static_cast<uint8_t>((*hsaco)[at + 49]) << 8) >> 6 & 15, 2);
  (*hsaco)[at + 48] = static_cast<char>(((*hsaco)[at + 48] & 0x3f) | 0x40);  // rsrc1 bits 9:6 = 1
  (*hsaco)[at + 49] = static_cast<char>((*hsaco)[at + 49] & ~0x03);
  EXPECT_THAT(Msg(RunCodeObject(testing::kLlvmBin, *hsaco, "k", "gfx90a", a).status()),
              HasSubstr("s12 is beyond the SGPRs the kernel descriptor allocates: compute_pgm_rsrc1 "
                        "GRANULATED_WAVEFRONT_SGPR_COUNT 1 grants 16 SGPRs, of which the top 4 hold VCC, XNACK_MASK "
                        "(xnack is not off), leaving s0..s11; the code needs s0..s12"));
}

// A launch whose workgroup is not the code object's .reqd_workgroup_size
// names both sizes and what to do (fresh-user review of issue 19, F5: the
// required one was missing).
TEST(StrictTest, AWorkgroupOtherThanTheRequiredOneNamesBoth) {
  HandKernel k;
  k.workgroup = 128;
  k.args = {"A:global_buffer"};
  k.body = "\n  s_endpgm";
  LaunchArgs a;
  a.args = {ToBytes(std::vector<float>(1, 0.0f))};
  a.workgroup = {64, 2, 1};
  EXPECT_THAT(RunAssembly(k.Text(), "gfx942", a).status().message(),
              AllOf(HasSubstr("the launch's workgroup 64 x 2 x 1 differs from the 128 x 1 x 1 the code object "
                              "requires (.reqd_workgroup_size); launch it with that workgroup")));
}

// ---- Rule 6: XNACK soft clauses ----------------------------------------------

// C[i] = A[i] + B[i] where the second global_load overwrites v1, the first
// load's address, in the same soft clause: llc 22 (post-RA-hazard-rec,
// -mcpu=gfx90a -mattr=+xnack or no xnack setting) puts an S_NOP 0 between
// `$vgpr4 = GLOBAL_LOAD_DWORD $vgpr0_vgpr1` and `$vgpr1 = GLOBAL_LOAD_DWORD
// $vgpr2_vgpr3`, the same shape, and none with -mattr=-xnack
// (compiler/isa/soft_clause.h). NOP is the s_nop 0 or nothing.
HandKernel SoftClauseKernel(const std::string& mcpu, bool nop) {
  HandKernel k;
  k.mcpu = mcpu;
  k.args = {"A:global_buffer", "B:global_buffer", "C:global_buffer"};
  k.body = absl::StrCat(R"(
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dwordx2 s[8:9], s[0:1], 0x10
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5])",
                        nop ? "\n  s_nop 0" : "", R"(
  global_load_dword v1, v1, s[6:7]
  s_waitcnt vmcnt(0)
  v_add_u32 v2, v2, v1
  v_lshlrev_b32 v3, 2, v0
  global_store_dword v3, v2, s[8:9]
  s_endpgm)");
  return k;
}

// Runs SoftClauseKernel (as text, or as the code object llvm-mc and ld.lld
// make of it for `mcpu`, run with `run_mcpu`) and checks C[i] = A[i] + B[i].
absl::Status RunSoftClauseKernel(const std::string& mcpu, bool nop, bool object,
                                 const std::string& run_mcpu = "") {
  std::vector<int32_t> A(64), B(64);
  for (int i = 0; i < 64; ++i) A[i] = i, B[i] = 1000 + 3 * i;
  LaunchArgs a;
  a.args = {ToBytes(A), ToBytes(B), ToBytes(std::vector<int32_t>(64, -1))};
  const std::string text = SoftClauseKernel(mcpu, nop).Text();
  absl::StatusOr<EmuStats> r;
  if (object) {
    absl::StatusOr<std::string> obj = BuildCodeObject(testing::kLlvmBin, text, mcpu);
    if (!obj.ok()) return obj.status();
    r = RunCodeObject(testing::kLlvmBin, *obj, "", run_mcpu.empty() ? mcpu : run_mcpu, a);
  } else {
    r = RunAssembly(text, mcpu, a);
  }
  if (!r.ok()) return r.status();
  std::vector<int32_t> c = testing::FromBytes<int32_t>(a.args[2]);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(c[i], 1000 + 4 * i) << i;
  return absl::OkStatus();
}

TEST(StrictTest, XnackSoftClauseOverwritingAnEarlierLoadsAddress) {
  for (bool object : {false, true}) {
    SCOPED_TRACE(object ? "code object" : "assembly text");
    for (const char* mcpu : {"gfx90a:xnack+", "gfx90a", "gfx942:xnack+", "gfx908"}) {
      const std::string any = absl::StrContains(mcpu, "xnack+") ? "on (:xnack+)" : "any (no :xnack suffix)";
      EXPECT_THAT(Msg(RunSoftClauseKernel(mcpu, false, object)),
                  AllOf(HasSubstr("XNACK soft clause: "),
                        HasSubstr("`global_load_dword v1, v1, s[6:7]` writes v1, which "),
                        HasSubstr("`global_load_dword v2, v1, s[4:5]` reads, in the same soft clause "
                                  "(consecutive VMEM instructions from "),
                        HasSubstr("with xnack " + any + " in the target ID a page fault may replay the clause"),
                        HasSubstr("put an s_nop 0 right before it")))
          << mcpu;
      absl::Status with_nop = RunSoftClauseKernel(mcpu, true, object);
      EXPECT_TRUE(with_nop.ok()) << mcpu << ": " << with_nop;
    }
    for (const char* mcpu : {"gfx90a:xnack-", "gfx942:xnack-"}) {
      absl::Status st = RunSoftClauseKernel(mcpu, false, object);
      EXPECT_TRUE(st.ok()) << mcpu << ": " << st;
    }
  }
  // A code object's own target ID decides, not the processor it is run as.
  EXPECT_THAT(Msg(RunSoftClauseKernel("gfx90a:xnack+", false, true, "gfx90a")), HasSubstr("XNACK soft clause: "));
  absl::Status off = RunSoftClauseKernel("gfx90a:xnack-", false, true, "gfx90a");
  EXPECT_TRUE(off.ok()) << off;
  // Not strict: not checked.
  LaunchArgs a;
  a.args = {ToBytes(std::vector<int32_t>(64, 0)), ToBytes(std::vector<int32_t>(64, 0)),
            ToBytes(std::vector<int32_t>(64, 0))};
  EmuOptions o;
  o.strict = false;
  EXPECT_TRUE(RunAssembly(SoftClauseKernel("gfx90a:xnack+", false).Text(), "gfx90a:xnack+", a, o).ok());
}

// A store after a load in one clause (llc 22: S_NOP 0 between a
// GLOBAL_LOAD_DWORD and a GLOBAL_STORE_DWORD under xnack).
TEST(StrictTest, XnackSoftClauseStoreAfterALoad) {
  HandKernel k;
  k.mcpu = "gfx90a:xnack+";
  k.args = {"A:global_buffer", "C:global_buffer"};
  k.body = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v3, 7
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  NOP
  global_store_dword v1, v3, s[6:7]
  s_waitcnt vmcnt(0)
  s_endpgm)";
  const std::string body = k.body;
  const std::vector<std::vector<uint8_t>> args = {ToBytes(std::vector<int32_t>(64, 0)),
                                                  ToBytes(std::vector<int32_t>(64, 0))};
  k.body = absl::StrReplaceAll(body, {{"  NOP\n", ""}});
  EXPECT_THAT(Msg(RunText(k.Text(), k.mcpu, args)),
              AllOf(HasSubstr("`global_store_dword v1, v3, s[6:7]` is a store"),
                    HasSubstr("after 0x"), HasSubstr("`global_load_dword v2, v1, s[4:5]`, which writes v2: a store "
                                                     "may not join a soft clause that writes registers")));
  k.body = absl::StrReplaceAll(body, {{"NOP", "s_nop 0"}});
  absl::Status st = RunText(k.Text(), k.mcpu, args);
  EXPECT_TRUE(st.ok()) << st;
}

// `text` without the `s_nop 0` lines that directly follow a memory
// instruction (the ones kirc's xnack-clauses pass inserts; the hazard
// pass's follow VALU and MFMA writes), and how many there were.
std::string WithoutClauseNops(const std::string& text, int* removed) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::string out;
  *removed = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool after_memory = i > 0 && (absl::StartsWith(lines[i - 1], "  buffer_") ||
                                        absl::StartsWith(lines[i - 1], "  global_") ||
                                        absl::StartsWith(lines[i - 1], "  s_load"));
    if (lines[i] == "  s_nop 0" && after_memory) {
      ++*removed;
      continue;
    }
    absl::StrAppend(&out, lines[i], i + 1 < lines.size() ? "\n" : "");
  }
  return out;
}

// kirc's own output on gfx90a:xnack+ runs: its pass (compiler/passes/
// xnack_clauses) broke the clause with the rule the emulator checks (here:
// the second buffer's loads write v4..v7, the first's addresses); with that
// s_nop deleted the emulator refuses it, and with xnack- there is none.
// out[4i + k] = x[4i + k] + y[4i + 4 + k], each 0 outside its 250 elements.
TEST(StrictTest, XnackKircOutputRuns) {
  const std::string kir = R"(kernel clause_f32
target gfx90a
workgroup 64 1 1
grid 1 1 1
arg x : f32[250] strides [1] readonly
arg y : f32[250] strides [1] readonly
arg out : f32[256] strides [1] writeonly
  %a = load guarded x[tid.x * 4] : f32x4
  %b = load guarded y[tid.x * 4 + 4] : f32x4
  %s = add %a, %b
  store out[tid.x * 4], %s
end
)";
  std::vector<float> x(250), y(250);
  for (int j = 0; j < 250; ++j) x[j] = static_cast<float>(j), y[j] = static_cast<float>(1000 + j);
  auto check = [&](LaunchArgs& a, const std::string& how) {
    std::vector<float> out = testing::FromBytes<float>(a.args[2]);
    for (int i = 0; i < 256; ++i) {
      const float want = (i < 250 ? static_cast<float>(i) : 0.0f) + (i + 4 < 250 ? static_cast<float>(1004 + i) : 0.0f);
      EXPECT_EQ(out[i], want) << how << " element " << i;
    }
  };
  auto args = [&] {
    LaunchArgs a;
    a.args = {ToBytes(x), ToBytes(y), ToBytes(std::vector<float>(256, -1.0f))};
    return a;
  };
  absl::StatusOr<CompileResult> r = testing::CompileKir(kir, "gfx90a:xnack+");
  ASSERT_TRUE(r.ok()) << r.status();
  LaunchArgs a = args();
  absl::StatusOr<EmuStats> s = RunAssembly(r->assembly, "gfx90a:xnack+", a);
  ASSERT_TRUE(s.ok()) << s.status();
  check(a, "assembly text");
  absl::StatusOr<std::string> hsaco = CodeObjectFor(*r, testing::kLlvmBin);
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  LaunchArgs b = args();
  s = RunCodeObject(testing::kLlvmBin, *hsaco, "", "gfx90a:xnack+", b);
  ASSERT_TRUE(s.ok()) << s.status();
  check(b, "code object");
  int removed = 0;
  const std::string stripped = WithoutClauseNops(r->assembly, &removed);
  EXPECT_EQ(removed, 1) << r->assembly;
  LaunchArgs c = args();
  EXPECT_THAT(RunAssembly(stripped, "gfx90a:xnack+", c).status().message(),
              AllOf(HasSubstr("XNACK soft clause: "), HasSubstr(" reads, in the same soft clause")));
  absl::StatusOr<CompileResult> off = testing::CompileKir(kir, "gfx90a:xnack-");
  ASSERT_TRUE(off.ok()) << off.status();
  WithoutClauseNops(off->assembly, &removed);
  EXPECT_EQ(removed, 0) << off->assembly;
  LaunchArgs d = args();
  s = RunAssembly(off->assembly, "gfx90a:xnack-", d);
  ASSERT_TRUE(s.ok()) << s.status();
  check(d, "xnack-");
}


// Fresh-user review 21 F4: the missing-wait message gives the count that
// covers every load the instruction waits for. Two global loads in flight,
// v2 then v3: a read of v2 alone needs vmcnt(1) (the younger v3 may stay in
// flight), and with that wait the kernel runs; a read of both needs
// vmcnt(0), though v2, the register it names, is the older load.
TEST(StrictTest, MissingWaitAdviceCoversEverySource) {
  auto run = [](const std::string& use) {
    HandKernel k;
    k.args = {"A:global_buffer"};
    k.body = absl::StrCat(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  global_load_dword v3, v1, s[4:5] offset:256
)",
                          use, "\n  s_endpgm");
    return RunText(k.Text(), "gfx942", {ToBytes(std::vector<float>(128, 0.0f))});
  };
  EXPECT_THAT(Msg(run("  v_mov_b32 v4, v2")),
              AllOf(HasSubstr("`v_mov_b32 v4, v2` reads v2"), HasSubstr("vmcnt: needs s_waitcnt vmcnt(1) before it)")));
  EXPECT_TRUE(run("  s_waitcnt vmcnt(1)\n  v_mov_b32 v4, v2").ok());
  EXPECT_THAT(Msg(run("  v_add_u32 v4, v2, v3")),
              AllOf(HasSubstr("`v_add_u32 v4, v2, v3` reads v2"), HasSubstr("`global_load_dword v2, v1, s[4:5]`"),
                    HasSubstr("vmcnt: needs s_waitcnt vmcnt(0) before it, which covers all 2 loads it waits for")));
  EXPECT_THAT(Msg(run("  s_waitcnt vmcnt(1)\n  v_add_u32 v4, v2, v3")),
              AllOf(HasSubstr("reads v3"), HasSubstr("needs s_waitcnt vmcnt(0) before it)")));
  EXPECT_TRUE(run("  s_waitcnt vmcnt(0)\n  v_add_u32 v4, v2, v3").ok());
}

}  // namespace
}  // namespace kir::emu
