// global_* accesses of code other compilers make (clang-22's style): 64-bit
// addresses built with v_lshl_add_u64, v_add_co_u32/v_addc_co_u32 carry
// chains (VCC and SGPR-pair carries), s_add_u32/s_addc_u32, 64-bit shifts and
// the saddr form, on gfx908, gfx90a and gfx942. Each kernel is hand-written
// assembly with a hand-made access map; it must prove, and its mutants
// (a dropped carry, a wrong shift, another argument's pointer, an offset past
// the buffer's end, a signed/unsigned shift swap where the index is negative)
// must FAIL with a counterexample confirmed concretely. Harmless variants
// (operands in the other order, a shift swap where the value is never
// negative) must still prove.
#include <array>
#include <optional>
#include <cctype>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/ir/parser.h"
#include "compiler/isa/lowered_kernel.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "hw/emu/asm_reader.h"
#include "verify/concrete.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

using Status = AccessVerdict::Status;

// The assembly is read with the emulator's reader (hw/emu/asm_reader.h), as
// `kirc verify --asm` reads it.

// One access-map record: the `nth` memory instruction implements KIR op `kir_op`.
struct Rec {
  int nth;
  int kir_op;
  std::string mem;
  bool store;
  std::vector<int> elements;
  int64_t element_bytes;
};

struct AbiSpec {
  int user_sgprs = 2;
  int kernarg_ptr_sgpr = 0;
  std::array<bool, 3> wg{true, false, false};
  int workitem_id_enable = 0;
};

struct Built {
  Kernel kernel;
  LoweredKernel code;
  const TargetInfo* target = nullptr;
};

Built Build(const std::string& kir, const std::string& mcpu, const std::string& assembly, const AbiSpec& abi,
            const std::vector<Rec>& recs) {
  Built b;
  absl::StatusOr<Kernel> k = ParseKernel(kir, "test.kir");
  EXPECT_TRUE(k.ok()) << k.status();
  if (!k.ok()) return b;
  b.kernel = *k;
  absl::StatusOr<const TargetInfo*> t = LookupTarget(mcpu);
  EXPECT_TRUE(t.ok()) << t.status();
  b.target = t.ok() ? *t : nullptr;
  int id = 0;
  std::vector<int> mem_ids;
  for (absl::string_view line : absl::StrSplit(assembly, '\n', absl::SkipWhitespace())) {
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    if (b.target == nullptr) break;
    absl::StatusOr<emu::Inst> in = emu::ParseInstruction(absl::StripAsciiWhitespace(line), *b.target);
    EXPECT_TRUE(in.ok()) << in.status() << " in: " << line;
    if (!in.ok()) continue;
    std::optional<MInst> mi = in->mi;
    mi->id = id++;
    if (IsVmemOrDs(Info(mi->opc).cls)) mem_ids.push_back(mi->id);
    b.code.mir.insts.push_back(*mi);
  }
  KernelAbi& a = b.code.abi;
  a.user_sgprs = abi.user_sgprs;
  a.kernarg_ptr_sgpr = abi.kernarg_ptr_sgpr;
  a.wg_id_enabled = abi.wg;
  a.workitem_id_enable = abi.workitem_id_enable;
  int64_t off = 0;
  for (const Arg& arg : b.kernel.args) {
    KernelAbi::KernargSlot s;
    s.name = arg.name;
    s.is_buffer = arg.kind == Arg::Kind::kBuffer;
    s.size = s.is_buffer ? 8 : 4;
    off = (off + s.size - 1) / s.size * s.size;
    s.offset = off;
    off += s.size;
    a.kernargs.push_back(s);
  }
  a.kernarg_size = (off + 7) / 8 * 8;
  for (const Rec& r : recs) {
    AccessRecord ar;
    EXPECT_LT(r.nth, static_cast<int>(mem_ids.size()));
    ar.inst_id = r.nth < static_cast<int>(mem_ids.size()) ? mem_ids[r.nth] : -1;
    ar.kir_op = r.kir_op;
    ar.mem = r.mem;
    ar.is_store = r.store;
    ar.elements = r.elements;
    ar.element_bytes = r.element_bytes;
    b.code.access_map.push_back(ar);
  }
  b.code.kernel = b.kernel;
  return b;
}

VerifyResult Check(const Built& b) {
  absl::StatusOr<VerifyResult> v = VerifyAddresses(b.kernel, *b.target, b.code);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : VerifyResult{};
}

void ExpectProved(const Built& b) {
  VerifyResult v = Check(b);
  EXPECT_TRUE(v.all_proved) << v.Report();
  EXPECT_EQ(v.accesses.size(), b.code.access_map.size()) << v.Report();
}

// Access `nth` (in access-map order) fails with a concretely confirmed
// counterexample whose reason mentions `needle`; the others are as `others`.
void ExpectFailed(const Built& b, size_t nth, const std::string& needle) {
  VerifyResult v = Check(b);
  ASSERT_LT(nth, v.accesses.size()) << v.Report();
  const AccessVerdict& a = v.accesses[nth];
  EXPECT_EQ(a.status, Status::kFailed) << v.Report();
  EXPECT_TRUE(absl::StartsWith(a.counterexample, "counterexample (")) << v.Report();
  EXPECT_TRUE(absl::StrContains(a.reason + "\n" + a.counterexample, needle))
      << "missing '" << needle << "' in:\n" << v.Report();
  EXPECT_FALSE(absl::StrContains(a.reason, "LDS")) << v.Report();  // no obligation of another kind of access
  EXPECT_FALSE(v.all_proved);
}

// Replaces the only line containing `from` (exactly one must) by `to`.
std::string Edit(const std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " occurs twice";
  if (at == std::string::npos) return text;
  std::string r = text;
  r.replace(at, from.size(), to);
  return r;
}

// ---------------------------------------------------------------------------
// dst[i] = src[i] as f32x4 (clang-22 -O3's code for gfx942, quoted in the brief).
constexpr char kCopy[] = R"(kernel copy_f32
workgroup 256 1 1
grid 8 1 1
arg src : f32[8192] strides [1] readonly
arg dst : f32[8192] strides [1] writeonly
  %v = load src[(wg.x * 256 + tid.x) * 4] : f32x4
  store dst[(wg.x * 256 + tid.x) * 4], %v
end
)";

const std::vector<Rec> kCopyRecs = {{0, 0, "src", false, {0, 1, 2, 3}, 4}, {1, 1, "dst", true, {0, 1, 2, 3}, 4}};

constexpr char kCopy942[] = R"(
s_load_dwordx4 s[4:7], s[0:1], 0x0
v_lshl_or_b32 v0, s2, 8, v0
v_mov_b32_e32 v1, 0
v_lshlrev_b64 v[0:1], 4, v[0:1]
v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]
global_load_dwordx4 v[2:5], v[2:3], off
v_lshl_add_u64 v[0:1], s[6:7], 0, v[0:1]
global_store_dwordx4 v[0:1], v[2:5], off
s_endpgm
)";

TEST(Global, CopyWithLshlAddU64ProvesOnGfx942) { ExpectProved(Build(kCopy, "gfx942", kCopy942, {}, kCopyRecs)); }

TEST(Global, CopyWithTheAddInTheOtherOperandOrderProves) {
  ExpectProved(Build(kCopy, "gfx942",
                     Edit(kCopy942, "v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]", "v_lshl_add_u64 v[2:3], v[0:1], 0, s[4:5]"),
                     {}, kCopyRecs));
}

TEST(Global, WrongShiftAmountFails) {
  // Index * 8 bytes instead of * 16: thread 1 reads element 2.
  ExpectFailed(Build(kCopy, "gfx942", Edit(kCopy942, "v_lshlrev_b64 v[0:1], 4,", "v_lshlrev_b64 v[0:1], 3,"), {},
                     kCopyRecs),
               0, "64-bit address == src");
}

TEST(Global, AnotherArgumentsPointerFails) {
  ExpectFailed(Build(kCopy, "gfx942",
                     Edit(kCopy942, "v_lshl_add_u64 v[2:3], s[4:5], 0,", "v_lshl_add_u64 v[2:3], s[6:7], 0,"), {},
                     kCopyRecs),
               0, "64-bit address == src");
}

TEST(Global, OffsetPastTheBufferEndFails) {
  // offset:16 reads the next thread's four elements; the last thread's are past src's end.
  ExpectFailed(Build(kCopy, "gfx942",
                     Edit(kCopy942, "global_load_dwordx4 v[2:5], v[2:3], off", "global_load_dwordx4 v[2:5], v[2:3], off offset:16"),
                     {}, kCopyRecs),
               0, "64-bit address == src");
}

TEST(Global, OffsetOutsideThe13BitSignedFieldFails) {
  // llvm-mc rejects it ("expected a 13-bit signed offset"); the verifier fails it statically.
  VerifyResult v = Check(Build(
      kCopy, "gfx942",
      Edit(kCopy942, "global_load_dwordx4 v[2:5], v[2:3], off", "global_load_dwordx4 v[2:5], v[2:3], off offset:4096"),
      {}, kCopyRecs));
  ASSERT_EQ(v.accesses.size(), 2u);
  EXPECT_EQ(v.accesses[0].status, Status::kFailed);
  EXPECT_TRUE(absl::StrContains(v.accesses[0].reason, "13-bit signed")) << v.Report();
  EXPECT_EQ(v.accesses[1].status, Status::kProved) << v.Report();
}

// clang-22's gfx908 code: private segment buffer in s[0:3], kernarg pointer in
// s[4:5], wg.x in s6; VOP2 carries through VCC.
constexpr char kCopy908[] = R"(
s_load_dwordx4 s[0:3], s[4:5], 0x0
v_lshl_or_b32 v0, s6, 8, v0
v_mov_b32_e32 v1, 0
v_lshlrev_b64 v[4:5], 4, v[0:1]
v_mov_b32_e32 v1, s1
v_add_co_u32_e32 v0, vcc, s0, v4
v_addc_co_u32_e32 v1, vcc, v1, v5, vcc
global_load_dwordx4 v[0:3], v[0:1], off
v_mov_b32_e32 v6, s3
v_add_co_u32_e32 v4, vcc, s2, v4
v_addc_co_u32_e32 v5, vcc, v6, v5, vcc
global_store_dwordx4 v[4:5], v[0:3], off
s_endpgm
)";
const AbiSpec kAbi908{6, 4, {true, false, false}, 0};

TEST(Global, CopyWithVccCarryChainProvesOnGfx908) {
  ExpectProved(Build(kCopy, "gfx908", kCopy908, kAbi908, kCopyRecs));
}

TEST(Global, CopyWithSgprPairCarryChainProvesOnGfx90a) {
  std::string a = Edit(kCopy908, "v_add_co_u32_e32 v0, vcc, s0, v4", "v_add_co_u32_e64 v0, s[8:9], s0, v4");
  a = Edit(a, "v_addc_co_u32_e32 v1, vcc, v1, v5, vcc", "v_addc_co_u32_e64 v1, s[8:9], v1, v5, s[8:9]");
  ExpectProved(Build(kCopy, "gfx90a", a, kAbi908, kCopyRecs));
}

TEST(Global, CopyWithMadU64U32ProvesOnGfx90a) {
  // pointer + index * 16 in one v_mad_u64_u32 (64-bit addend, carry out to s[8:9]).
  const std::string a = Edit(kCopy908, "v_mov_b32_e32 v1, s1\nv_add_co_u32_e32 v0, vcc, s0, v4\nv_addc_co_u32_e32 v1, vcc, v1, v5, vcc",
                             "v_mad_u64_u32 v[0:1], s[8:9], v0, 16, s[0:1]");
  ExpectProved(Build(kCopy, "gfx90a", a, kAbi908, kCopyRecs));
  ExpectFailed(Build(kCopy, "gfx90a", Edit(a, "v0, 16, s[0:1]", "v0, 8, s[0:1]"), kAbi908, kCopyRecs), 0,
               "64-bit address == src");
}

TEST(Global, DroppedCarryFails) {
  // The high half without the carry: wrong whenever src.lo + offset passes 2^32.
  ExpectFailed(Build(kCopy, "gfx908",
                     Edit(kCopy908, "v_addc_co_u32_e32 v1, vcc, v1, v5, vcc", "v_add_u32_e32 v1, v1, v5"), kAbi908,
                     kCopyRecs),
               0, "64-bit address == src");
}

TEST(Global, HighHalfJustCopiedFails) {
  ExpectFailed(Build(kCopy, "gfx90a",
                     Edit(kCopy908, "v_addc_co_u32_e32 v5, vcc, v6, v5, vcc", "v_mov_b32_e32 v5, v6"), kAbi908,
                     kCopyRecs),
               1, "64-bit address == dst");
}

TEST(Global, CarryFromTheWrongMaskFails) {
  // The carry-in read from an SGPR pair that holds no carry (zero): dropped.
  std::string a = Edit(kCopy908, "v_addc_co_u32_e32 v1, vcc, v1, v5, vcc", "v_addc_co_u32_e64 v1, s[8:9], v1, v5, s[8:9]");
  a = Edit(a, "s_load_dwordx4 s[0:3], s[4:5], 0x0", "s_load_dwordx4 s[0:3], s[4:5], 0x0\ns_mov_b64 s[8:9], 0");
  ExpectFailed(Build(kCopy, "gfx908", a, kAbi908, kCopyRecs), 0, "64-bit address == src");
}

TEST(Global, DroppedCarryCounterexampleIsOffByExactly2To32) {
  VerifyResult v = Check(Build(kCopy, "gfx908",
                               Edit(kCopy908, "v_addc_co_u32_e32 v1, vcc, v1, v5, vcc", "v_add_u32_e32 v1, v1, v5"),
                               kAbi908, kCopyRecs));
  ASSERT_EQ(v.accesses.size(), 2u);
  ASSERT_EQ(v.accesses[0].status, Status::kFailed) << v.Report();
  // "element 0: emitted 0x... = vaddr 0x... + 0; expected 0x... = src + ...": the
  // dropped carry makes the emitted address exactly 2^32 below the expected one.
  const std::string& cex = v.accesses[0].counterexample;
  size_t e = cex.find("element 0: emitted 0x"), x = cex.find("; expected 0x", e);
  ASSERT_NE(e, std::string::npos) << cex;
  ASSERT_NE(x, std::string::npos) << cex;
  uint64_t emitted = 0, expected = 0;
  ASSERT_TRUE(absl::SimpleHexAtoi(cex.substr(e + 21, cex.find(' ', e + 21) - (e + 21)), &emitted)) << cex;
  ASSERT_TRUE(absl::SimpleHexAtoi(cex.substr(x + 13, cex.find(' ', x + 13) - (x + 13)), &expected)) << cex;
  EXPECT_EQ(expected - emitted, uint64_t{1} << 32) << cex;
  EXPECT_EQ(v.accesses[1].status, Status::kProved) << v.Report();
}

TEST(Global, StarvedSolverStillFindsTheDroppedCarryConcretely) {
  // One resource unit: the solver decides nothing; the concrete search (its
  // pointer settings put the low dword near 2^32) finds the wrong address.
  Built b = Build(kCopy, "gfx908", Edit(kCopy908, "v_addc_co_u32_e32 v1, vcc, v1, v5, vcc", "v_add_u32_e32 v1, v1, v5"),
                  kAbi908, kCopyRecs);
  VerifyOptions o;
  o.resource_limit = 1;
  absl::StatusOr<VerifyResult> v = VerifyAddresses(b.kernel, *b.target, b.code, o);
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->accesses.size(), 2u);
  EXPECT_EQ(v->accesses[0].status, Status::kFailed) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->accesses[0].counterexample, "concrete")) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->accesses[0].reason, "64-bit address == src")) << v->Report();
  EXPECT_FALSE(absl::StrContains(v->accesses[0].reason, "LDS")) << v->Report();
  EXPECT_EQ(v->accesses[1].status, Status::kUnknown) << v->Report();  // correct, and not provable on this budget
}

TEST(Global, ConcreteWaveRunComputesGlobalAddresses) {
  // The wave runner the verifier's search uses, against addresses computed by
  // hand: lane l of wave 1 of workgroup 3 reads src + (3 * 256 + 64 + l) * 16
  // and writes dst + the same, for each pointer setting (setting 1 puts the
  // low dwords near 2^32, so the carry matters).
  for (const char* mcpu : {"gfx908", "gfx942"}) {
    const bool g908 = std::string(mcpu) == "gfx908";
    Built b = Build(kCopy, mcpu, g908 ? kCopy908 : kCopy942, g908 ? kAbi908 : AbiSpec{}, kCopyRecs);
    for (int setting = 0; setting < kConcreteSettings; ++setting) {
      ConcreteRunner run(b.kernel, *b.target, b.code, setting);
      int seen = 0;
      absl::Status st = run.RunWave({3, 0, 0}, 1, [&](const MemRecord& r) {
        const bool store = seen++ == 1;
        const uint64_t base = run.Pointer(store ? "dst" : "src");
        EXPECT_EQ(r.exec, ~uint64_t{0});
        ASSERT_EQ(r.vaddr_hi.size(), 64u);
        for (int l = 0; l < 64; ++l)
          EXPECT_EQ(r.vaddr[l] | (uint64_t{r.vaddr_hi[l]} << 32), base + (3 * 256 + 64 + l) * 16)
              << mcpu << " setting " << setting << " lane " << l;
      });
      EXPECT_TRUE(st.ok()) << st;
      EXPECT_EQ(seen, 2);
    }
  }
}

TEST(Global, KernargPointerPairOutsideTheUserSgprsIsAnError) {
  AbiSpec abi = kAbi908;
  abi.kernarg_ptr_sgpr = 6;  // s[6:7] is not among the 6 user SGPRs
  Built b = Build(kCopy, "gfx908", kCopy908, abi, kCopyRecs);
  absl::StatusOr<VerifyResult> v = VerifyAddresses(b.kernel, *b.target, b.code);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument) << v.status();
}

// ---------------------------------------------------------------------------
// The saddr form: an SGPR base plus a 32-bit VGPR offset plus offset:16.
constexpr char kShifted[] = R"(kernel shifted
workgroup 64 1 1
grid 1 1 1
arg src : f32[68] strides [1] readonly
arg dst : f32[64] strides [1] writeonly
  %v = load src[tid.x + 4] : f32
  store dst[tid.x], %v
end
)";
const std::vector<Rec> kShiftedRecs = {{0, 0, "src", false, {0}, 4}, {1, 1, "dst", true, {0}, 4}};
constexpr char kShifted90a[] = R"(
s_load_dwordx4 s[0:3], s[4:5], 0x0
v_and_b32_e32 v0, 0x3ff, v0
v_lshlrev_b32_e32 v0, 2, v0
global_load_dword v1, v0, s[0:1] offset:16
global_store_dword v0, v1, s[2:3]
s_endpgm
)";

TEST(Global, SaddrFormProvesOnGfx90a) {
  ExpectProved(Build(kShifted, "gfx90a", kShifted90a, kAbi908, kShiftedRecs));
}

TEST(Global, SaddrFormOffsetPastTheEndFails) {
  ExpectFailed(Build(kShifted, "gfx90a",
                     Edit(kShifted90a, "s[0:1] offset:16", "s[0:1] offset:20"), kAbi908, kShiftedRecs),
               0, "64-bit address == src");
}

TEST(Global, SaddrFormNegativeOffsetProves) {
  // The same element through base src + 32 bytes and offset:-16.
  std::string a = Edit(kShifted90a, "s[0:1] offset:16", "s[0:1] offset:-16");
  a = Edit(a, "v_and_b32_e32 v0, 0x3ff, v0",
           "v_and_b32_e32 v0, 0x3ff, v0\ns_add_u32 s0, s0, 32\ns_addc_u32 s1, s1, 0");
  ExpectProved(Build(kShifted, "gfx90a", a, kAbi908, kShiftedRecs));
}

// ---------------------------------------------------------------------------
// s_add_u32/s_addc_u32 on the pointer (the workgroup's block), saddr form.
constexpr char kBlock[] = R"(kernel block
workgroup 256 1 1
grid 8 1 1
arg src : f32[2048] strides [1] readonly
arg dst : f32[2048] strides [1] writeonly
  %v = load src[wg.x * 256 + tid.x] : f32
  store dst[wg.x * 256 + tid.x], %v
end
)";
const std::vector<Rec> kBlockRecs = {{0, 0, "src", false, {0}, 4}, {1, 1, "dst", true, {0}, 4}};
constexpr char kBlock942[] = R"(
s_load_dwordx4 s[4:7], s[0:1], 0x0
s_lshl_b32 s3, s2, 10
s_add_u32 s4, s4, s3
s_addc_u32 s5, s5, 0
s_add_u32 s6, s6, s3
s_addc_u32 s7, s7, 0
v_lshlrev_b32_e32 v0, 2, v0
global_load_dword v1, v0, s[4:5]
global_store_dword v0, v1, s[6:7]
s_endpgm
)";

TEST(Global, ScalarCarryChainProvesOnGfx942) { ExpectProved(Build(kBlock, "gfx942", kBlock942, {}, kBlockRecs)); }

TEST(Global, ScalarCarryDroppedFails) {
  ExpectFailed(Build(kBlock, "gfx942", Edit(kBlock942, "s_addc_u32 s5, s5, 0", "s_add_u32 s5, s5, 0"), {},
                     kBlockRecs),
               0, "64-bit address == src");
}

TEST(Global, ScalarSubtractWithBorrowProves) {
  // dst's base as (dst + 1024 * (wg.x + 1)) - 1024, the borrow through SCC.
  std::string a = Edit(kBlock942, "s_add_u32 s6, s6, s3\ns_addc_u32 s7, s7, 0",
                       "s_add_u32 s3, s3, 0x400\ns_add_u32 s6, s6, s3\ns_addc_u32 s7, s7, 0\n"
                       "s_sub_u32 s6, s6, 0x400\ns_subb_u32 s7, s7, 0");
  ExpectProved(Build(kBlock, "gfx942", a, {}, kBlockRecs));
}

// ---------------------------------------------------------------------------
// A 2-D index (clang-22's add_f16 for gfx90a): packed work-item ids, the
// linear element index shifted as a 64-bit value, VCC carry chains.
constexpr char kAdd2d[] = R"(kernel add2d
workgroup 64 4 1
grid 2 16 1
arg x : f16[64, 512] strides [512, 1] readonly
arg y : f16[64, 512] strides [512, 1] readonly
arg out : f16[64, 512] strides [512, 1] writeonly
arg scale : f32
  %a = load x[wg.y * 4 + tid.y, (wg.x * 64 + tid.x) * 4] : f16x4
  %b = load y[wg.y * 4 + tid.y, (wg.x * 64 + tid.x) * 4] : f16x4
  store out[wg.y * 4 + tid.y, (wg.x * 64 + tid.x) * 4], %a
end
)";
const std::vector<Rec> kAdd2dRecs = {{0, 0, "x", false, {0, 1, 2, 3}, 2},
                                     {1, 1, "y", false, {0, 1, 2, 3}, 2},
                                     {2, 2, "out", true, {0, 1, 2, 3}, 2}};
constexpr char kAdd2d90a[] = R"(
v_and_b32_e32 v1, 0x3ff, v0
v_lshrrev_b32_e32 v0, 1, v0
s_load_dwordx4 s[0:3], s[4:5], 0x0
s_load_dwordx2 s[8:9], s[4:5], 0x10
v_lshlrev_b32_e32 v1, 2, v1
s_lshl_b32 s7, s7, 11
v_and_b32_e32 v0, 0x7fe00, v0
v_or3_b32 v0, s7, v0, v1
v_lshl_add_u32 v0, s6, 8, v0
v_mov_b32_e32 v1, 0
v_lshlrev_b64 v[0:1], 1, v[0:1]
v_mov_b32_e32 v3, s1
v_add_co_u32_e32 v2, vcc, s0, v0
v_addc_co_u32_e32 v3, vcc, v3, v1, vcc
v_mov_b32_e32 v5, s3
v_add_co_u32_e32 v4, vcc, s2, v0
v_addc_co_u32_e32 v5, vcc, v5, v1, vcc
global_load_dwordx2 v[2:3], v[2:3], off
global_load_dwordx2 v[4:5], v[4:5], off
v_add_co_u32_e32 v0, vcc, s8, v0
v_mov_b32_e32 v6, s9
v_addc_co_u32_e32 v1, vcc, v6, v1, vcc
global_store_dwordx2 v[0:1], v[2:3], off
s_endpgm
)";
const AbiSpec kAbi2d{6, 4, {true, true, false}, 1};

TEST(Global, TwoDimensionalIndexWith64BitShiftProvesOnGfx90a) {
  ExpectProved(Build(kAdd2d, "gfx90a", kAdd2d90a, kAbi2d, kAdd2dRecs));
}

TEST(Global, TwoDimensionalIndexWithScalarShiftOfThePairProves) {
  // The same with the row offset as a 64-bit scalar shift: s[10:11] = wg.y << 11 (f16 elements: bytes << 1).
  std::string a = Edit(kAdd2d90a, "s_lshl_b32 s7, s7, 11\n", "s_mov_b32 s11, 0\ns_mov_b32 s10, s7\ns_lshl_b64 s[10:11], s[10:11], 11\ns_mov_b32 s7, s10\n");
  ExpectProved(Build(kAdd2d, "gfx90a", a, kAbi2d, kAdd2dRecs));
}

TEST(Global, TwoDimensionalIndexWrongRowShiftFails) {
  ExpectFailed(Build(kAdd2d, "gfx90a", Edit(kAdd2d90a, "s_lshl_b32 s7, s7, 11", "s_lshl_b32 s7, s7, 10"), kAbi2d,
                     kAdd2dRecs),
               0, "64-bit address == x");
}

// ---------------------------------------------------------------------------
// A signed 64-bit index: (tid.x - 32) floordiv 8 as a sign-extended pair
// shifted arithmetically, then + 4, then scaled to bytes; v_lshrrev_b64
// instead is wrong for the negative half of the workgroup (bits 61-63 of the
// quotient differ, and bit 61 survives the scaling by 4; with a shift by 1
// only bit 63 would differ and the scaling would drop it: harmless, proved).
constexpr char kSigned[] = R"(kernel signed_index
workgroup 64 1 1
grid 1 1 1
arg A : f32[8] strides [1] readonly
arg B : f32[64] strides [1] writeonly
  %v = load A[(tid.x - 32) floordiv 8 + 4] : f32
  store B[tid.x], %v
end
)";
const std::vector<Rec> kSignedRecs = {{0, 0, "A", false, {0}, 4}, {1, 1, "B", true, {0}, 4}};
constexpr char kSigned942[] = R"(
s_load_dwordx4 s[4:7], s[0:1], 0x0
v_and_b32_e32 v6, 0x3ff, v0
v_add_u32_e32 v0, -32, v6
v_ashrrev_i32_e32 v1, 31, v0
v_ashrrev_i64 v[0:1], 3, v[0:1]
v_add_co_u32_e32 v0, vcc, 4, v0
v_addc_co_u32_e32 v1, vcc, 0, v1, vcc
v_lshlrev_b64 v[0:1], 2, v[0:1]
v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]
global_load_dword v4, v[2:3], off
v_mov_b32_e32 v7, 0
v_lshlrev_b64 v[6:7], 2, v[6:7]
v_lshl_add_u64 v[6:7], s[6:7], 0, v[6:7]
global_store_dword v[6:7], v4, off
s_endpgm
)";

TEST(Global, SignedIndexWithArithmeticShiftProves) {
  ExpectProved(Build(kSigned, "gfx942", kSigned942, {}, kSignedRecs));
}

TEST(Global, SignedIndexWithLogicalShiftFails) {
  ExpectFailed(Build(kSigned, "gfx942", Edit(kSigned942, "v_ashrrev_i64 v[0:1], 3,", "v_lshrrev_b64 v[0:1], 3,"), {},
                     kSignedRecs),
               0, "64-bit address == A");
}

TEST(Global, LogicalShiftWhoseDifferentBitIsShiftedOutProves) {
  // KIR index (tid.x - 32) floordiv 2 + 16 of a 32-element A: v_lshrrev_b64 by 1
  // differs from v_ashrrev_i64 in bit 63 only, which the scaling by 4 drops.
  std::string kir = Edit(Edit(kSigned, "A : f32[8]", "A : f32[32]"), "floordiv 8 + 4", "floordiv 2 + 16");
  std::string a = Edit(Edit(kSigned942, "v_ashrrev_i64 v[0:1], 3,", "v_lshrrev_b64 v[0:1], 1,"),
                       "vcc, 4, v0", "vcc, 16, v0");
  ExpectProved(Build(kir, "gfx942", a, {}, kSignedRecs));
  ExpectProved(Build(kir, "gfx942", Edit(a, "v_lshrrev_b64 v[0:1], 1,", "v_ashrrev_i64 v[0:1], 1,"), {}, kSignedRecs));
}

TEST(Global, LogicalShiftOfANonNegativeIndexProves) {
  // B's index tid.x * 4 is never negative: a 64-bit logical right shift of (tid.x << 3) by 1 is the same.
  std::string a = Edit(kSigned942, "v_lshlrev_b64 v[6:7], 2, v[6:7]",
                       "v_lshlrev_b64 v[6:7], 3, v[6:7]\nv_lshrrev_b64 v[6:7], 1, v[6:7]");
  ExpectProved(Build(kSigned, "gfx942", a, {}, kSignedRecs));
  std::string b = Edit(kSigned942, "v_lshlrev_b64 v[6:7], 2, v[6:7]",
                       "v_lshlrev_b64 v[6:7], 3, v[6:7]\nv_ashrrev_i64 v[6:7], 1, v[6:7]");
  ExpectProved(Build(kSigned, "gfx942", b, {}, kSignedRecs));
}

TEST(Global, SignedIndexWithSubtractCarryChainProves) {
  // + 4 as - (-4): v_sub_co_u32 / v_subb_co_u32 with the borrow through VCC.
  std::string a = Edit(kSigned942, "v_add_co_u32_e32 v0, vcc, 4, v0\nv_addc_co_u32_e32 v1, vcc, 0, v1, vcc",
                       "v_sub_co_u32_e32 v0, vcc, v0, v8\nv_subb_co_u32_e32 v1, vcc, v1, v9, vcc");
  a = Edit(a, "v_and_b32_e32 v6, 0x3ff, v0", "v_and_b32_e32 v6, 0x3ff, v0\nv_mov_b32_e32 v8, -4\nv_mov_b32_e32 v9, -1");
  ExpectProved(Build(kSigned, "gfx942", a, {}, kSignedRecs));
}

// ---------------------------------------------------------------------------
// A guarded access: EXEC from v_cmp and s_and_b64.
constexpr char kGuard[] = R"(kernel guarded
workgroup 64 1 1
grid 2 1 1
arg A : f32[100] strides [1] readonly
arg B : f32[100] strides [1] writeonly
  %v = load guarded A[wg.x * 64 + tid.x] : f32
  store guarded B[wg.x * 64 + tid.x], %v
end
)";
const std::vector<Rec> kGuardRecs = {{0, 0, "A", false, {0}, 4}, {1, 1, "B", true, {0}, 4}};
constexpr char kGuard942[] = R"(
s_load_dwordx4 s[4:7], s[0:1], 0x0
v_lshl_add_u32 v0, s2, 6, v0
v_cmp_gt_u32_e32 vcc, 100, v0
s_and_b64 exec, exec, vcc
v_mov_b32_e32 v1, 0
v_lshlrev_b64 v[0:1], 2, v[0:1]
v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]
global_load_dword v4, v[2:3], off
v_lshl_add_u64 v[0:1], v[0:1], 0, s[6:7]
global_store_dword v[0:1], v4, off
s_endpgm
)";

TEST(Global, GuardedAccessProvesOnGfx942) { ExpectProved(Build(kGuard, "gfx942", kGuard942, {}, kGuardRecs)); }

TEST(Global, GuardOneTooWideFails) {
  ExpectFailed(Build(kGuard, "gfx942", Edit(kGuard942, "vcc, 100, v0", "vcc, 101, v0"), {}, kGuardRecs), 0,
               "out of shape: lane off in EXEC");
}

// Several pointers from one s_load_dwordx8 (past the 24-byte kernarg segment:
// the last dwords are undefined, and unused).
TEST(Global, KernargPointersFromOneDwordx8LoadProve) {
  // kAdd2d90a with x, y in s[8:11] and out in s[12:13] from one load.
  std::string a = Edit(Edit(kAdd2d90a, "s_load_dwordx4 s[0:3], s[4:5], 0x0\ns_load_dwordx2 s[8:9], s[4:5], 0x10\n",
                            "s_load_dwordx8 s[8:15], s[4:5], 0x0\n"),
                       "v_mov_b32_e32 v3, s1\n", "v_mov_b32_e32 v3, s9\n");
  a = Edit(Edit(a, "vcc, s0, v0", "vcc, s8, v0"), "v_mov_b32_e32 v5, s3\n", "v_mov_b32_e32 v5, s11\n");
  a = Edit(Edit(a, "vcc, s2, v0", "vcc, s10, v0"), "v_add_co_u32_e32 v0, vcc, s8, v0\nv_mov_b32_e32 v6, s9",
           "v_add_co_u32_e32 v0, vcc, s12, v0\nv_mov_b32_e32 v6, s13");
  ExpectProved(Build(kAdd2d, "gfx90a", a, kAbi2d, kAdd2dRecs));
  // y's pointer for the store: failed.
  ExpectFailed(Build(kAdd2d, "gfx90a", Edit(Edit(a, "s12, v0", "s10, v0"), "v6, s13", "v6, s11"), kAbi2d, kAdd2dRecs),
               2, "64-bit address == out");
}

}  // namespace
}  // namespace kir::vfy::testing
