// gfx950's ds_read_b64_tr_b16 and buffer_load_dwordx4 ... lds (semantics.h
// DsReadTrB16Source / LdsDmaAddress): hand-written kernels whose results are
// worked out by hand from the cited semantics, run in process and as the
// code object llvm-mc 22 / ld.lld build (so llvm-mc accepts the text), the
// strict checks they add, and the refusals on other targets.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/isa/instr.h"
#include "compiler/target/target.h"
#include "hw/emu/emulator.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::FromBytes;
using testing::HandKernel;
using testing::ToBytes;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// Lane l writes the 16-bit values 4l, 4l+1, 4l+2, 4l+3 to LDS bytes [8l,
// 8l + 8) (halfword i of LDS holds i), then ds_read_b64_tr_b16 reads with
// the address ADDR puts in v7; each lane stores its two result dwords at
// out[2l], out[2l + 1].
constexpr char kTrBody[] = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v2, 1, v1
  v_lshl_or_b32 v8, v2, 16, v1
  v_add_u32 v2, 2, v1
  v_add_u32 v3, 3, v1
  v_lshl_or_b32 v9, v3, 16, v2
  v_lshlrev_b32 v6, 3, v0
  ds_write_b64 v6, v[8:9]
  s_waitcnt lgkmcnt(0)
  ADDR
  ds_read_b64_tr_b16 v[10:11], v7 OFFSET
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v6, v[10:11], s[4:5]
  s_waitcnt vmcnt(0)
  s_endpgm)";

std::string TrKernel(const std::string& addr, const std::string& offset = "", const std::string& mcpu = "gfx950") {
  HandKernel k;
  k.mcpu = mcpu;
  k.args = {"out:global_buffer"};
  k.lds_bytes = 1024;
  k.body = absl::StrReplaceAll(kTrBody, {{"ADDR", addr}, {"OFFSET", offset}});
  return k.Text();
}

// The 16-bit element e (0..3) of lane l's result: dword e / 2, half e % 2.
uint32_t Half(const std::vector<uint32_t>& out, int l, int e) {
  return (out[2 * l + e / 2] >> (16 * (e % 2))) & 0xffff;
}

TEST(Gfx950MemoryTest, TransposedReadOfARowMajorBlock) {
  // Addresses 8l: the 16 lanes of group g read LDS halfwords 64g .. 64g+63,
  // a 4 x 16 row-major matrix M[r][c] = 64g + 16r + c (lane 4r + q holds row
  // r, columns 4q..4q+3). The read gives lane j (j16 = j % 16) column j16:
  // element e = M[e][j16] = 64g + 16e + j16.
  for (bool object : {false, true}) {
    LaunchArgs a;
    a.args = {ToBytes(std::vector<uint32_t>(128, 0xdeadbeef))};
    absl::StatusOr<EmuStats> s = testing::RunTextOrObject(TrKernel("v_mov_b32 v7, v6"), "gfx950", a, object);
    ASSERT_TRUE(s.ok()) << s.status();
    const std::vector<uint32_t> out = FromBytes<uint32_t>(a.args[0]);
    for (int j = 0; j < 64; ++j)
      for (int e = 0; e < 4; ++e) EXPECT_EQ(Half(out, j, e), 64u * (j / 16) + 16u * e + j % 16) << j << " " << e;
    // A few by name: lane 0 gets 0, 16, 32, 48; lane 17 gets 65, 81, 97, 113.
    EXPECT_EQ(out[0], 0x00100000u);
    EXPECT_EQ(out[1], 0x00300020u);
    EXPECT_EQ(out[2 * 17], (81u << 16) | 65u);
    EXPECT_EQ(out[2 * 17 + 1], (113u << 16) | 97u);
  }
}

TEST(Gfx950MemoryTest, TransposedReadWithReversedAddressesAndOffset) {
  // Lane l addresses block 63 - l: v7 = 504 - 8l - 8, offset:8 adds the 8
  // back. Lane j, element e comes from lane s = 16(j/16) + 4e + (j%16)/4,
  // whose block is 63 - s, holding halfwords 4(63 - s) + 0..3; it takes
  // halfword j % 4 of it. Lane 0: s = 4e -> 252 - 16e = 252, 236, 220, 204.
  // Lane 63: s = 51 + 4e -> 4(12 - 4e) + 3 = 51, 35, 19, 3. Lane 22 (g 1,
  // j16 6): s = 17 + 4e -> 4(46 - 4e) + 2 = 186, 170, 154, 138.
  LaunchArgs a;
  a.args = {ToBytes(std::vector<uint32_t>(128, 0))};
  absl::StatusOr<EmuStats> s =
      testing::RunTextOrObject(TrKernel("v_sub_u32 v7, 0x1f0, v6", "offset:8"), "gfx950", a, /*object=*/true);
  ASSERT_TRUE(s.ok()) << s.status();
  const std::vector<uint32_t> out = FromBytes<uint32_t>(a.args[0]);
  const uint32_t lane0[] = {252, 236, 220, 204}, lane63[] = {51, 35, 19, 3}, lane22[] = {186, 170, 154, 138};
  for (int e = 0; e < 4; ++e) {
    EXPECT_EQ(Half(out, 0, e), lane0[e]) << e;
    EXPECT_EQ(Half(out, 63, e), lane63[e]) << e;
    EXPECT_EQ(Half(out, 22, e), lane22[e]) << e;
  }
}

TEST(Gfx950MemoryTest, TransposedReadNeedsAllLanesAndAlignment) {
  // EXEC not all ones (CDNA4 ISA 11.4): refused.
  LaunchArgs a;
  a.args = {ToBytes(std::vector<uint32_t>(128, 0))};
  EXPECT_THAT(Msg(RunAssembly(TrKernel("v_mov_b32 v7, v6\n  s_mov_b32 exec_hi, 0"), "gfx950", a).status()),
              AllOf(HasSubstr("ds_read_b64_tr_b16 v[10:11], v7"), HasSubstr("EXEC is 0xffffffff"),
                    HasSubstr("needs EXEC all ones")));
  // A 4-byte aligned block address: refused (8-byte blocks).
  EXPECT_THAT(Msg(RunAssembly(TrKernel("v_add_u32 v7, 4, v6"), "gfx950", a).status()),
              HasSubstr("lane 0 LDS address 0x4 is not 8-byte aligned"));
  // Past the allocation (not strict: the kernel wrote only 512 bytes, which
  // strict mode reports first for lane 0).
  EmuOptions lax;
  lax.strict = false;
  EXPECT_THAT(Msg(RunAssembly(TrKernel("v_mov_b32 v7, v6", "offset:520"), "gfx950", a, lax).status()),
              HasSubstr("lane 63 accesses LDS bytes [0x400, 0x408) outside the workgroup's 1024-byte"));
  // Not on gfx942.
  EXPECT_THAT(Msg(RunAssembly(TrKernel("v_mov_b32 v7, v6", "", "gfx942"), "gfx942", a).status()),
              HasSubstr("ds_read_b64_tr_b16 does not exist on gfx942"));
}

// LDS DMA: src through an SRD of NREC bytes; M0 = M0VAL; each lane l loads
// the 16 bytes at voffset 16l + OFF (offset:OFF) into LDS at M0 + OFF + 16l.
// After WAIT, lane l reads back with ds_read_b128 the 16 bytes the DMA put
// for lane 63 - l and stores them to dst[4l .. 4l + 3].
constexpr char kDmaBody[] = R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 4, v0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s4, s8
  s_and_b32 s5, s9, 0xffff
  s_mov_b32 s6, NREC
  s_mov_b32 s7, 0x20000
  s_mov_b32 m0, M0VAL
  s_nop 0
  buffer_load_dwordx4 v1, s[4:7], 0 offen offset:OFF lds
  WAIT
  v_sub_u32 v2, 0x3f0, v1
  ds_read_b128 v[4:7], v2 offset:READOFF
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[4:7], s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm)";

std::string DmaKernel(int m0, int off, const std::string& wait = "s_waitcnt vmcnt(0)", int nrec = 4096,
                      const std::string& mcpu = "gfx950") {
  HandKernel k;
  k.mcpu = mcpu;
  k.args = {"src:global_buffer", "dst:global_buffer"};
  k.lds_bytes = 2048;
  k.body = absl::StrReplaceAll(kDmaBody, {{"NREC", absl::StrCat(nrec)},
                                          {"M0VAL", absl::StrCat(m0)},
                                          {"OFF", absl::StrCat(off)},
                                          {"READOFF", absl::StrCat(m0 + off)},
                                          {"WAIT", wait}});
  return k.Text();
}

std::vector<std::vector<uint8_t>> DmaArgs() {
  std::vector<uint32_t> src(1024);
  for (int i = 0; i < 1024; ++i) src[i] = 0x1000u + static_cast<uint32_t>(i);
  return {ToBytes(src), ToBytes(std::vector<uint32_t>(256, 0xdeadbeef))};
}

TEST(Gfx950MemoryTest, LdsDmaPlacesLaneBytesAtM0PlusOffsetPlus16Lane) {
  // M0 = 64, offset:16: lane l' loads src bytes [16l' + 16, +16) = src dwords
  // 4l' + 4 .. 4l' + 7 into LDS [80 + 16l', +16). The read-back of lane l
  // (LDS 80 + 16(63 - l)) gives src dwords 4(63 - l) + 4 + k: dst[4l + k] =
  // 0x1000 + 256 - 4l + k.
  for (bool object : {false, true}) {
    LaunchArgs a;
    a.args = DmaArgs();
    absl::StatusOr<EmuStats> s = testing::RunTextOrObject(DmaKernel(64, 16), "gfx950", a, object);
    ASSERT_TRUE(s.ok()) << s.status();
    const std::vector<uint32_t> dst = FromBytes<uint32_t>(a.args[1]);
    for (int l = 0; l < 64; ++l)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(dst[4 * l + k], 0x1000u + 256 - 4 * l + k) << l << " " << k;
  }
}

TEST(Gfx950MemoryTest, LdsDmaOutOfRangeDwordsLandAsZero) {
  // num_records 100: the dwords at voffset 16l' + o with o + 4 > 100 read 0.
  // Lane l' = 5 loads bytes [96, 112): dword 96 in range, the rest 0. Its
  // 16 bytes are read back by lane 58: dst[232..235] = 0x1018, 0, 0, 0.
  LaunchArgs a;
  a.args = DmaArgs();
  absl::StatusOr<EmuStats> s = RunAssembly(DmaKernel(0, 16, "s_waitcnt vmcnt(0)", 100), "gfx950", a);
  ASSERT_TRUE(s.ok()) << s.status();
  const std::vector<uint32_t> dst = FromBytes<uint32_t>(a.args[1]);
  EXPECT_EQ(dst[4 * 58], 0x1000u + 24);
  EXPECT_EQ(dst[4 * 58 + 1], 0u);
  EXPECT_EQ(dst[4 * 59 + 3], 0x1000u + 23);  // lane 4: bytes [80, 96), all in range
  EXPECT_EQ(dst[0], 0u);                      // lane 63's bytes [1024, 1040): out of range
}

TEST(Gfx950MemoryTest, StrictFlagsADsReadBeforeVmcntCoversTheDma) {
  LaunchArgs a;
  a.args = DmaArgs();
  // No wait, or only lgkmcnt (which the DMA does not count in): the read of
  // the DMA's bytes races with it.
  for (const char* wait : {"s_nop 0", "s_waitcnt lgkmcnt(0)"}) {
    a.args = DmaArgs();
    EXPECT_THAT(Msg(RunAssembly(DmaKernel(64, 16, wait), "gfx950", a).status()),
                AllOf(HasSubstr("LDS race: wave 0"), HasSubstr("`ds_read_b128 v[4:7], v2 offset:80` reads"),
                      HasSubstr("`buffer_load_dwordx4 v1, s[4:7], 0 offen offset:16 lds`"),
                      HasSubstr("before an s_waitcnt vmcnt covered that LDS DMA")))
        << wait;
  }
  // Not strict: the emulator moves the bytes at issue, so the run completes.
  EmuOptions o;
  o.strict = false;
  a.args = DmaArgs();
  EXPECT_TRUE(RunAssembly(DmaKernel(64, 16, "s_nop 0"), "gfx950", a, o).ok());
}

TEST(Gfx950MemoryTest, StrictFlagsM0WrittenByTheInstructionBefore) {
  // s_mov_b32 m0 right before the DMA: 1 wait state missing (hazard_table.cc,
  // LLVM checkReadM0Hazards).
  const std::string text = absl::StrReplaceAll(DmaKernel(64, 16), {{"  s_nop 0\n  buffer_load", "  buffer_load"}});
  ASSERT_NE(text, DmaKernel(64, 16));
  LaunchArgs a;
  a.args = DmaArgs();
  EXPECT_THAT(Msg(RunAssembly(text, "gfx950", a).status()), HasSubstr("SALU writes m0 read by an LDS DMA"));
}

TEST(Gfx950MemoryTest, LdsDmaRefusals) {
  LaunchArgs a;
  a.args = DmaArgs();
  // M0 + offset + 16 * 63 + 16 > 2048 bytes of LDS.
  EXPECT_THAT(Msg(RunAssembly(DmaKernel(1024, 16), "gfx950", a).status()),
              AllOf(HasSubstr("lane 63 LDS DMA writes LDS bytes [0x800, 0x810) (M0[17:0] of M0 0x400 + offset 16"),
                    HasSubstr("outside the workgroup's 2048-byte")));
  // M0 = -16 with offset:16 is not LDS byte 0: the DMA reads M0[17:0] =
  // 0x3fff0 and does not wrap, so lane 0 writes at 0x3fff0 + 16 = 0x40000
  // (fresh-user review of issue 19, F4).
  a.args = DmaArgs();
  EXPECT_THAT(Msg(RunAssembly(DmaKernel(-16, 16), "gfx950", a).status()),
              AllOf(HasSubstr("lane 0 LDS DMA writes LDS bytes [0x40000, 0x40010) (M0[17:0] of M0 0xfffffff0"),
                    HasSubstr("M0 is negative")));
  EXPECT_THAT(Msg(RunAssembly(DmaKernel(64, 16, "s_waitcnt vmcnt(0)", 4096, "gfx942"), "gfx942", a).status()),
              HasSubstr("buffer_load_dwordx4 ... lds does not exist on gfx942"));
}

TEST(Gfx950MemoryTest, KircPrintsWhatLlvmMcReads) {
  const TargetInfo& t = **LookupTarget("gfx950");
  MInst dma;
  dma.opc = Opc::kBufferLoadDwordx4Lds;
  dma.ops = {MOperand::Phys(RegClass::kVgpr, 1), MOperand::Phys(RegClass::kSgpr, 4, 4), MOperand::Imm(0)};
  dma.offen = true;
  dma.offset = 16;
  EXPECT_EQ(InstructionText(t, dma, ".L"), "buffer_load_dwordx4 v1, s[4:7], 0 offen offset:16 lds");
  dma.offen = false;
  dma.offset = 0;
  EXPECT_EQ(InstructionText(t, dma, ".L"), "buffer_load_dwordx4 off, s[4:7], 0 lds");
  MInst tr;
  tr.opc = Opc::kDsReadB64TrB16;
  tr.ops = {MOperand::Phys(RegClass::kVgpr, 10, 2), MOperand::Phys(RegClass::kVgpr, 7)};
  tr.offset = 8;
  EXPECT_EQ(InstructionText(t, tr, ".L"), "ds_read_b64_tr_b16 v[10:11], v7 offset:8");
  // The offen and ds_read_b64_tr_b16 texts are in the kernels above, which
  // llvm-mc 22 assembles (the object runs); llvm-mc 22 -mcpu=gfx950 also
  // takes the `off` form. The DMA reads M0 implicitly.
  EXPECT_TRUE(Info(Opc::kBufferLoadDwordx4Lds).flags & kReadsM0);
}

// global_load_lds_dwordx4 (review 21 F3; semantics.h LdsDmaAddress): the
// buffer DMA's LDS side with global_load_dwordx4's address. Lane l's 16
// bytes come from src + 16l + OFF (saddr s[8:9] + v1, or the 64-bit v[4:5]
// with `off`) and land in LDS at M0 + OFF + 16l; read back as kDmaBody does.
constexpr char kGlobalDmaBody[] = R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 4, v0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, v1
  v_mov_b32 v3, 0
  v_lshl_add_u64 v[4:5], s[8:9], 0, v[2:3]
  s_mov_b32 m0, M0VAL
  s_nop 0
  DMA
  s_waitcnt vmcnt(0)
  v_sub_u32 v2, 0x3f0, v1
  ds_read_b128 v[8:11], v2 offset:READOFF
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[8:11], s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm)";

std::string GlobalDmaKernel(int m0, int off, bool saddr, const std::string& mcpu = "gfx950", int lds_bytes = 2048) {
  HandKernel k;
  k.mcpu = mcpu;
  k.args = {"src:global_buffer", "dst:global_buffer"};
  k.lds_bytes = lds_bytes;
  const std::string o = off != 0 ? absl::StrCat(" offset:", off) : "";
  k.body = absl::StrReplaceAll(
      kGlobalDmaBody, {{"DMA", saddr ? absl::StrCat("global_load_lds_dwordx4 v1, s[8:9]", o)
                                     : absl::StrCat("global_load_lds_dwordx4 v[4:5], off", o)},
                       {"M0VAL", absl::StrCat(m0)},
                       {"READOFF", absl::StrCat(m0 + off)}});
  return k.Text();
}

TEST(Gfx950MemoryTest, GlobalLdsDmaPlacesLaneBytesAtM0PlusOffsetPlus16Lane) {
  // M0 = 64, offset:16: lane l' loads src bytes [16l' + 16, +16) = src dwords
  // 4l' + 4 .. 4l' + 7 into LDS [80 + 16l', +16); lane l reads back lane
  // 63 - l's: dst[4l + k] = 0x1000 + 4(63 - l) + 4 + k. M0 = 0, no offset:
  // dst[4l + k] = 0x1000 + 4(63 - l) + k.
  struct Case {
    int m0, off, first;  // first: src dword lane 63 - l starts at, less 4(63 - l)
  };
  for (const Case& cs : {Case{64, 16, 4}, Case{0, 0, 0}, Case{1024, 0, 0}})
    for (bool saddr : {true, false})
      for (bool object : {false, true}) {
        SCOPED_TRACE(absl::StrCat("m0 ", cs.m0, " offset ", cs.off, saddr ? " saddr" : " off", object ? " object" : ""));
        LaunchArgs a;
        a.args = DmaArgs();
        absl::StatusOr<EmuStats> s =
            testing::RunTextOrObject(GlobalDmaKernel(cs.m0, cs.off, saddr), "gfx950", a, object);
        ASSERT_TRUE(s.ok()) << s.status();
        const std::vector<uint32_t> dst = FromBytes<uint32_t>(a.args[1]);
        for (int l = 0; l < 64; ++l)
          for (int k = 0; k < 4; ++k)
            EXPECT_EQ(dst[4 * l + k], 0x1000u + 4 * (63 - l) + cs.first + k) << l << " " << k;
      }
}

TEST(Gfx950MemoryTest, GlobalLdsDmaRefusalsAndText) {
  LaunchArgs a;
  a.args = DmaArgs();
  // M0 = 1024 + offset 16: lane 63 writes LDS [0x800, 0x810), past 2048 bytes.
  EXPECT_THAT(Msg(RunAssembly(GlobalDmaKernel(1024, 16, true), "gfx950", a).status()),
              AllOf(HasSubstr("global_load_lds_dwordx4 v1, s[8:9] offset:16"),
                    HasSubstr("lane 63 LDS DMA writes LDS bytes [0x800, 0x810)")));
  // offset 4096 - 16 * 63 = 3088: lane 63's global side reads src bytes
  // [4096, 4112), just past src's 4096 (with 8192 bytes of LDS its LDS side,
  // [4096, 4112), is inside); lanes 0..62 read inside src.
  a.args = DmaArgs();
  EXPECT_THAT(Msg(RunAssembly(GlobalDmaKernel(0, 3088, false, "gfx950", 8192), "gfx950", a).status()),
              AllOf(HasSubstr("lane 63 reads"), HasSubstr("0 bytes past the end of argument 0 'src'"),
                    HasSubstr("outside every buffer")));
  // gfx942 has no 16-byte LDS DMA (llvm-mc 22: "instruction not supported on this GPU").
  EXPECT_THAT(Msg(RunAssembly(GlobalDmaKernel(0, 0, true, "gfx942"), "gfx942", a).status()),
              HasSubstr("global_load_lds_dwordx4 does not exist on gfx942"));
  // kirc's text for it is llvm-mc's (the kernels above assemble it).
  const TargetInfo& t = **LookupTarget("gfx950");
  MInst dma;
  dma.opc = Opc::kGlobalLoadLdsDwordx4;
  dma.ops = {MOperand::Phys(RegClass::kVgpr, 2, 2)};
  EXPECT_EQ(InstructionText(t, dma, ".L"), "global_load_lds_dwordx4 v[2:3], off");
  dma.ops = {MOperand::Phys(RegClass::kVgpr, 1), MOperand::Phys(RegClass::kSgpr, 8, 2)};
  dma.offset = 16;
  EXPECT_EQ(InstructionText(t, dma, ".L"), "global_load_lds_dwordx4 v1, s[8:9] offset:16");
  EXPECT_TRUE(Info(Opc::kGlobalLoadLdsDwordx4).flags & kReadsM0);
  EXPECT_TRUE(MemoryShape(Opc::kGlobalLoadLdsDwordx4).lds_dma);
}

}  // namespace
}  // namespace kir::emu
