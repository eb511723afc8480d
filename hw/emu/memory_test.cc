// Buffer range checks (guarded accesses), SRD validation, global and LDS
// bounds and alignment.
#include <sys/resource.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hw/emu/emulator.h"
#include "hw/emu/memory.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::FromBytes;
using testing::HandKernel;
using testing::ToBytes;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// Copies src -> dst through buffer SRDs with num_records NSRC / NDST bytes,
// one dwordx4 (16 bytes) per lane at voffset 16*lane + OFF.
std::string BufferCopy(int nsrc, int ndst, int off, const std::string& dword3 = "0x20000") {
  HandKernel k;
  k.args = {"src:global_buffer", "dst:global_buffer"};
  k.body = absl::StrCat(R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 4, v0
  s_waitcnt lgkmcnt(0)
  s_and_b32 s5, s9, 0xffff
  s_mov_b32 s4, s8
  s_mov_b32 s6, )", nsrc, "\n  s_mov_b32 s7, ", dword3, R"(
  s_and_b32 s13, s11, 0xffff
  s_mov_b32 s12, s10
  s_mov_b32 s14, )", ndst, "\n  s_mov_b32 s15, ", dword3, R"(
  buffer_load_dwordx4 v[4:7], v1, s[4:7], 0 offen offset:)", off, R"(
  s_waitcnt vmcnt(0)
  buffer_store_dwordx4 v[4:7], v1, s[12:15], 0 offen offset:)", off, R"(
  s_waitcnt vmcnt(0)
  s_endpgm)");
  return k.Text();
}

TEST(MemoryTest, OutOfRangeLoadsReadZeroAndStoresAreDropped) {
  std::vector<float> src(1024), dst(1024, -7.0f);
  for (int i = 0; i < 1024; ++i) src[i] = static_cast<float>(i + 1);
  LaunchArgs a;
  a.args = {ToBytes(src), ToBytes(dst)};
  // src in range for 200 bytes (50 floats), dst for 120 bytes (30 floats).
  absl::StatusOr<EmuStats> s = RunAssembly(BufferCopy(200, 120, 0), "gfx942", a);
  ASSERT_TRUE(s.ok()) << s.status();
  std::vector<float> out = FromBytes<float>(a.args[1]);
  for (int i = 0; i < 1024; ++i) {
    float want = i >= 30 ? -7.0f : static_cast<float>(i + 1);  // stores past 120 bytes dropped
    EXPECT_EQ(out[i], want) << i;
  }
  // Loads past 200 bytes read 0: with a large dst range those zeros land.
  a.args = {ToBytes(src), ToBytes(dst)};
  ASSERT_TRUE(RunAssembly(BufferCopy(200, 4096, 0), "gfx942", a).ok());
  out = FromBytes<float>(a.args[1]);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(out[i], i < 50 ? static_cast<float>(i + 1) : 0.0f) << i;
}

TEST(MemoryTest, MultiDwordAccessesAreCheckedPerDword) {
  // num_records 24: lane 1 (bytes 16..31) has its first two dwords in range only.
  std::vector<float> src(256, 5.0f), dst(256, -1.0f);
  LaunchArgs a;
  a.args = {ToBytes(src), ToBytes(dst)};
  ASSERT_TRUE(RunAssembly(BufferCopy(24, 4096, 0), "gfx90a", a).ok());
  std::vector<float> out = FromBytes<float>(a.args[1]);
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 8),
            (std::vector<float>{5, 5, 5, 5, 5, 5, 0, 0}));
  // The same split with soffset: in range iff offset + bytes <= num_records - soffset.
  Srd srd;
  srd.num_records = 24;
  EXPECT_TRUE(RawBufferComponentInRange(srd, 8, 12, 4));
  EXPECT_FALSE(RawBufferComponentInRange(srd, 8, 13, 4));          // bytes 13..16: the last is out
  EXPECT_TRUE(RawBufferComponentInRange(srd, 8, 15, 1));
  EXPECT_FALSE(RawBufferComponentInRange(srd, 8, 15, 2));
  EXPECT_FALSE(RawBufferComponentInRange(srd, 8, 16, 1));
  EXPECT_FALSE(RawBufferComponentInRange(srd, 30, 0, 1));          // soffset past the end
  EXPECT_FALSE(RawBufferComponentInRange(srd, 0, 0x80000000u, 2));  // kirc's guard offset
}

// A component (a dword of a multi-dword access, or a whole byte, short or
// dword access) partly past num_records is out of range whole: loads of it
// read 0, stores of it write nothing (iree-org/iree #20392, LLVM PR #132981;
// RawBufferInRange in compiler/isa/semantics.h). num_records 8 over 16-byte
// buffers; src byte i is 0xa0 + i, dst starts as 0xee. One lane (EXEC = 1).
TEST(MemoryTest, ComponentsPartlyPastNumRecordsAreOutOfRangeWhole) {
  HandKernel k;
  k.args = {"src:global_buffer", "out:global_buffer", "dst:global_buffer"};
  k.body = R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  s_load_dwordx2 s[12:13], s[0:1], 0x10
  s_mov_b64 exec, 1
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s8
  s_and_b32 s5, s9, 0xffff
  s_mov_b32 s6, 8
  s_mov_b32 s7, 0x20000
  s_mov_b32 s16, s12
  s_and_b32 s17, s13, 0xffff
  s_mov_b32 s18, 8
  s_mov_b32 s19, 0x20000
  v_mov_b32 v0, 0
  buffer_load_ubyte v2, v0, s[4:7], 0 offen offset:7
  buffer_load_ushort v3, v0, s[4:7], 0 offen offset:7
  buffer_load_ushort v4, v0, s[4:7], 0 offen offset:6
  buffer_load_dword v5, v0, s[4:7], 0 offen offset:6
  buffer_load_dword v6, v0, s[4:7], 0 offen offset:4
  buffer_load_dwordx2 v[8:9], v0, s[4:7], 0 offen offset:4
  v_mov_b32 v10, 0x11223344
  v_mov_b32 v11, 0x55667788
  buffer_store_short v10, v0, s[16:19], 0 offen offset:7
  buffer_store_dword v10, v0, s[16:19], 0 offen offset:6
  buffer_store_byte v10, v0, s[16:19], 0 offen offset:3
  buffer_store_dwordx2 v[10:11], v0, s[16:19], 0 offen offset:4
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v0, v[2:5], s[10:11]
  global_store_dword v0, v6, s[10:11] offset:16
  global_store_dwordx2 v0, v[8:9], s[10:11] offset:20
  s_waitcnt vmcnt(0)
  s_endpgm)";
  std::vector<uint8_t> src(16), dst(16, 0xee);
  for (int i = 0; i < 16; ++i) src[i] = static_cast<uint8_t>(0xa0 + i);
  for (const char* t : {"gfx908", "gfx90a", "gfx942"}) {
    k.mcpu = t;
    LaunchArgs a;
    a.args = {src, ToBytes(std::vector<uint32_t>(7, 0xdeadbeefu)), dst};
    absl::StatusOr<EmuStats> st = RunAssembly(k.Text(), t, a);
    ASSERT_TRUE(st.ok()) << t << ": " << st.status();
    EXPECT_EQ(FromBytes<uint32_t>(a.args[1]), (std::vector<uint32_t>{
                                                  0xa7,        // ubyte at 7: its byte is in range
                                                  0,           // ushort at 7: byte 8 is out
                                                  0xa7a6,      // ushort at 6
                                                  0,           // dword at 6: bytes 8, 9 are out
                                                  0xa7a6a5a4,  // dword at 4
                                                  0xa7a6a5a4,  // dwordx2 at 4: first dword in range...
                                                  0}))         // ...second out
        << t;
    // short at 7 and dword at 6 dropped; byte at 3 written; of the dwordx2
    // at 4 the first dword written, the second dropped.
    EXPECT_EQ(a.args[2], (std::vector<uint8_t>{0xee, 0xee, 0xee, 0x44, 0x44, 0x33, 0x22, 0x11, 0xee, 0xee, 0xee,
                                               0xee, 0xee, 0xee, 0xee, 0xee}))
        << t;
  }
}

TEST(MemoryTest, GuardedKirKernel) {
  const char kKir[] = R"(kernel gcopy
target gfx942
workgroup 128 1 1
grid 1 1 1
arg src : f32[100] strides [1] readonly
arg dst : f32[100] strides [1] writeonly
  %v = load guarded src[tid.x] : f32
  store guarded dst[tid.x], %v
end
)";
  for (const char* t : {"gfx908", "gfx90a", "gfx942"}) {
    absl::StatusOr<CompileResult> r = testing::CompileKir(kKir, t);
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<float> src = testing::RandomF32(100, 3);
    LaunchArgs a;
    a.args = {ToBytes(src), ToBytes(std::vector<float>(100, 0.0f))};
    absl::StatusOr<EmuStats> s = RunAssembly(r->assembly, t, a);
    ASSERT_TRUE(s.ok()) << t << ": " << s.status();
    EXPECT_EQ(FromBytes<float>(a.args[1]), src) << t;
  }
}

TEST(MemoryTest, DataFormatZeroIsAnError) {
  LaunchArgs a;
  a.args = {ToBytes(std::vector<float>(256)), ToBytes(std::vector<float>(256))};
  EXPECT_THAT(Msg(RunAssembly(BufferCopy(64, 64, 0, "0x7000"), "gfx942", a).status()),
              HasSubstr("data_format 0: stores would be dropped on real hardware"));
}

TEST(MemoryTest, InRangeAccessOutsideEveryBufferIsAnError) {
  LaunchArgs a;
  a.args = {ToBytes(std::vector<float>(16)), ToBytes(std::vector<float>(1024))};  // src is 64 bytes
  EXPECT_THAT(Msg(RunAssembly(BufferCopy(4096, 4096, 0), "gfx942", a).status()),
              HasSubstr("falls outside every buffer"));
}

TEST(MemoryTest, GlobalAccessOutsideEveryBufferIsAnError) {
  HandKernel k;
  k.args = {"A:global_buffer"};
  k.body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5] offset:4
  s_waitcnt vmcnt(0)
  s_endpgm)";
  LaunchArgs a;
  a.args = {ToBytes(std::vector<float>(64))};
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", a).status()),
              HasSubstr("lane 63 accesses 0x"));
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", a).status()), HasSubstr("bytes past the end of argument 0 'A'"));
}

// Issue 18: sparse argument buffers (LaunchArgs::paged). Two 6 GiB buffers,
// the default placement 64 GiB apart; the kernel copies the last 64 f32
// elements of A (element i holds i) to the same elements of B with 64-bit
// global addresses. Only B's last page is materialised, A's untouched
// contents come from its filler, and the process stays far below the 12 GiB
// of the buffers (and the 96 GiB of strict mode's race records).
TEST(MemoryTest, SparseMultiGibBuffers) {
  HandKernel k;
  k.args = {"A:global_buffer", "B:global_buffer"};
  k.body = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  s_add_u32 s4, s4, 0x7fffff00
  s_addc_u32 s5, s5, 1
  s_add_u32 s6, s6, 0x7fffff00
  s_addc_u32 s7, s7, 1
  v_mov_b32 v3, 0
  v_mov_b32 v2, v1
  v_lshl_add_u64 v[4:5], s[4:5], 0, v[2:3]
  global_load_dword v6, v[4:5], off
  v_lshl_add_u64 v[2:3], s[6:7], 0, v[2:3]
  s_waitcnt vmcnt(0)
  global_store_dword v[2:3], v6, off
  s_endpgm)";
  constexpr uint64_t kBytes = uint64_t{6} << 30;  // 0x180000000; the kernel adds kBytes - 256
  PagedBytes A(kBytes, ElementFiller(4, [](uint64_t i) { return i; }));
  PagedBytes B(kBytes);
  LaunchArgs a;
  a.args = {{}, {}};
  a.paged = {&A, &B};
  absl::StatusOr<EmuStats> s = RunAssembly(k.Text(), "gfx942", a);
  ASSERT_TRUE(s.ok()) << s.status();
  const uint64_t n = kBytes / 4;
  for (uint64_t i = n - 64; i < n; ++i) {
    uint32_t v = 0;
    std::as_const(B).Read(4 * i, &v, 4);
    ASSERT_EQ(v, static_cast<uint32_t>(i)) << i;
  }
  uint32_t before = 1;
  std::as_const(B).Read(4 * (n - 65), &before, 4);
  EXPECT_EQ(before, 0u);
  EXPECT_EQ(B.materialised_bytes(), PagedBytes::kPageBytes);
  EXPECT_EQ(A.materialised_bytes(), 0u);  // loads read the filler
  rusage ru;
  ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
  EXPECT_LT(ru.ru_maxrss, 1024 * 1024) << "KiB";
}

// LaunchArgs::buffer_addresses places the buffers: a copy that adds its
// offset to the low dword only (no carry) works where the default placement
// leaves room below 2^32 and faults where the low dword is closer to it;
// overlapping buffers are refused.
TEST(MemoryTest, BufferAddressesPlaceTheBuffers) {
  HandKernel k;
  k.args = {"A:global_buffer", "B:global_buffer"};
  k.body = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  v_add_u32 v2, s4, v1
  v_mov_b32 v3, s5
  global_load_dword v4, v[2:3], off
  v_mov_b32 v3, 0
  v_mov_b32 v2, v1
  v_lshl_add_u64 v[2:3], s[6:7], 0, v[2:3]
  s_waitcnt vmcnt(0)
  global_store_dword v[2:3], v4, off
  s_endpgm)";
  std::vector<float> src(64);
  for (int i = 0; i < 64; ++i) src[i] = static_cast<float>(i + 1);
  LaunchArgs a;
  a.args = {ToBytes(src), ToBytes(std::vector<float>(64))};
  absl::StatusOr<EmuStats> s = RunAssembly(k.Text(), "gfx942", a);
  ASSERT_TRUE(s.ok()) << s.status();  // 0xffffff00 + 252 does not wrap
  EXPECT_EQ(FromBytes<float>(a.args[1]), src);
  a.args = {ToBytes(src), ToBytes(std::vector<float>(64))};
  a.buffer_addresses = {0x10fffffff0ull, 0x20fffffff0ull};
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", a).status()),
              AllOf(HasSubstr("lane 4 accesses 0x1000000000"), HasSubstr("outside every buffer")));
  a.buffer_addresses = {0x2000000000ull};  // B keeps its default place
  a.args = {ToBytes(src), ToBytes(std::vector<float>(64))};
  s = RunAssembly(k.Text(), "gfx942", a);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(FromBytes<float>(a.args[1]), src);
  a.buffer_addresses = {0x20ffffff40ull};  // B (default 0x20ffffff00) overlaps it
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", a).status()), HasSubstr("overlaps argument 0 'A'"));
  a.buffer_addresses = {0x7cfffffffff0ull};
  EXPECT_THAT(Msg(RunAssembly(k.Text(), "gfx942", a).status()), HasSubstr("buffers must lie below"));
}

std::string LdsKernel(const std::string& access) {
  HandKernel k;
  k.lds_bytes = 256;
  k.body = absl::StrCat(R"(
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v2, 0
  v_mov_b32 v3, 0
  )", access, R"(
  s_waitcnt lgkmcnt(0)
  s_endpgm)");
  return k.Text();
}

TEST(MemoryTest, LdsBoundsAndAlignment) {
  LaunchArgs a;
  EXPECT_TRUE(RunAssembly(LdsKernel("ds_write_b32 v1, v2"), "gfx942", a).ok());
  EXPECT_THAT(Msg(RunAssembly(LdsKernel("ds_write_b32 v1, v2 offset:4"), "gfx942", a).status()),
              HasSubstr("lane 63 accesses LDS bytes [0x100, 0x104) outside the workgroup's 256-byte LDS allocation"));
  EXPECT_THAT(Msg(RunAssembly(LdsKernel("ds_write_b64 v1, v[2:3]"), "gfx942", a).status()),
              HasSubstr("lane 1 LDS address 0x4 is not 8-byte aligned"));
  EXPECT_THAT(Msg(RunAssembly(LdsKernel("ds_read_u16 v2, v1 offset:1"), "gfx942", a).status()),
              HasSubstr("is not 2-byte aligned"));
}

// The LDS address is (vaddr + offset) mod 2^32 (DsAddress of
// compiler/isa/semantics.h), as LLVM's DS offset folding assumes on gfx7+:
// lane l writes l through vaddr -4l with offset:252 (LDS byte 252 - 4l), reads
// it back through vaddr 4l - 512 with offset:512 (byte 4l), and stores it.
TEST(MemoryTest, LdsAddressIsVaddrPlusOffsetModulo2To32) {
  HandKernel k;
  k.args = {"out:global_buffer"};
  k.lds_bytes = 256;
  k.body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  v_sub_u32 v2, 0, v1
  ds_write_b32 v2, v0 offset:252
  v_add_u32 v3, 0xfffffe00, v1
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v4, v3 offset:512
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v4, s[4:5]
  s_waitcnt vmcnt(0)
  s_endpgm)";
  LaunchArgs a;
  a.args = {ToBytes(std::vector<uint32_t>(64, 0xffffffffu))};
  absl::StatusOr<EmuStats> st = RunAssembly(k.Text(), "gfx942", a);
  ASSERT_TRUE(st.ok()) << st.status();
  std::vector<uint32_t> out = FromBytes<uint32_t>(a.args[0]);
  for (uint32_t l = 0; l < 64; ++l) EXPECT_EQ(out[l], 63 - l) << "lane " << l;  // byte 4l holds lane 63 - l's id
  // A sum that wraps below 0 is outside the allocation, reported wrapped.
  LaunchArgs none;
  EXPECT_THAT(Msg(RunAssembly(LdsKernel("v_sub_u32 v1, 0, v1\n  ds_write_b32 v1, v2 offset:4"), "gfx942", none).status()),
              HasSubstr("lane 2 accesses LDS bytes [0xfffffffc, 0x100000000) outside the workgroup's 256-byte LDS "
                        "allocation"));
}

// DS read2/write2 (two addresses, vaddr + offsetN * unit: 8 bytes for
// ds_write2_b64, 512 for ds_read2st64_b64, 4 for ds_read2_b32): lane l writes
// {l, l + 100} at 8l and {l + 200, l + 300} at 8l + 512, reads both back
// and the dwords at 8l + 4 and 8l + 516, and stores the six values.
std::string Ds2Kernel(const std::string& read2) {
  HandKernel k;
  k.args = {"out:global_buffer"};
  k.lds_bytes = 2048;
  k.body = absl::StrCat(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 3, v0
  v_mov_b32 v2, v0
  v_add_u32 v3, 100, v0
  v_add_u32 v4, 200, v0
  v_add_u32 v5, 0x12c, v0
  ds_write2_b64 v1, v[2:3], v[4:5] offset1:64
  s_waitcnt lgkmcnt(0)
  )", read2, R"(
  ds_read2_b32 v[10:11], v1 offset0:1 offset1:129
  v_mul_u32_u24 v12, 24, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v12, v[6:9], s[4:5]
  global_store_dwordx2 v12, v[10:11], s[4:5] offset:16
  s_waitcnt vmcnt(0)
  s_endpgm)");
  return k.Text();
}

TEST(MemoryTest, DsRead2Write2) {
  LaunchArgs a;
  a.args = {ToBytes(std::vector<uint32_t>(6 * 64))};
  absl::StatusOr<EmuStats> st = RunAssembly(Ds2Kernel("ds_read2st64_b64 v[6:9], v1 offset1:1"), "gfx942", a);
  ASSERT_TRUE(st.ok()) << st.status();
  std::vector<uint32_t> out = FromBytes<uint32_t>(a.args[0]);
  for (uint32_t l = 0; l < 64; ++l) {
    const uint32_t want[6] = {l, l + 100, l + 200, l + 300, l + 100, l + 300};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(out[6 * l + i], want[i]) << "lane " << l << " value " << i;
  }
}

TEST(MemoryTest, DsRead2SecondAddressIsCheckedLikeASingleRead) {
  LaunchArgs a;
  a.args = {ToBytes(std::vector<uint32_t>(6 * 64))};
  // Component 1 at 8l + 2 * 512: never written (strict).
  EXPECT_THAT(Msg(RunAssembly(Ds2Kernel("ds_read2st64_b64 v[6:9], v1 offset1:2"), "gfx942", a).status()),
              AllOf(HasSubstr("`ds_read2st64_b64 v[6:9], v1 offset1:2`: lane 0 reads LDS bytes [0x400, 0x408)"),
                    HasSubstr("no lane of the workgroup has written LDS byte 0x400")));
  // Component 1 at 8l + 4 * 512 = 2048 + 8l: outside the 2048-byte allocation.
  EXPECT_THAT(Msg(RunAssembly(Ds2Kernel("ds_read2st64_b64 v[6:9], v1 offset1:4"), "gfx942", a).status()),
              HasSubstr("lane 0 accesses LDS bytes [0x800, 0x808) outside the workgroup's 2048-byte LDS allocation"));
}

}  // namespace
}  // namespace kir::emu
