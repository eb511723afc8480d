// flat_* and private (scratch) memory in the emulator: hand-written kernels
// whose results are worked out here (not by the emulator): flat accesses to
// global memory, to LDS through src_shared_base and to the lane's private
// segment through src_private_base; scratch_* (gfx942); buffer_* through the
// private segment buffer plus the scratch wave offset (gfx908/90a); the
// errors for an access past the private segment and a private SRD without
// the wave offset. And the encodings: each flat/scratch instruction the
// reader knows, assembled by LLVM 22 into a code object, has llvm-mc 22's
// bytes (`llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding`,
// copied below) and reads back as the opcode, operands and offset it was
// written with.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"
#include "compiler/object/toolchain.h"
#include "gtest/gtest.h"
#include "hw/emu/emulator.h"
#include "hw/emu/program.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using testing::FromBytes;
using testing::ToBytes;

#define EXPECT_HAS_SUBSTR(s, sub) EXPECT_TRUE(absl::StrContains(s, sub)) << "in: " << (s)

// One workgroup of 64 lanes; in[i] = 7 * i + 3; out has 256 dwords.
absl::StatusOr<std::vector<uint32_t>> RunK(const std::string& mcpu, const std::string& body,
                                          const std::string& directives, int lds_bytes, bool object = false) {
  testing::HandKernel k;
  k.mcpu = mcpu;
  k.args = {"in:global_buffer", "out:global_buffer"};
  k.lds_bytes = lds_bytes;
  k.vgprs = 32;
  k.sgprs = 24;
  k.extra_directives = directives;
  k.body = body;
  std::vector<uint32_t> in(128);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = 7 * i + 3;
  LaunchArgs a;
  a.args = {ToBytes(in), ToBytes(std::vector<uint32_t>(256))};
  absl::StatusOr<EmuStats> s = testing::RunTextOrObject(k.Text(), mcpu, a, object);
  if (!s.ok()) return s.status();
  return FromBytes<uint32_t>(a.args[1]);
}

// Flat to global (in + 4 * lane, offset:4 -> in[lane + 1]), the value
// stored through a flat LDS address {4 * lane, src_shared_base's high dword}
// and read back by ds_read_b32 from lane ^ 1's slot, and a flat store of
// 1000 + lane to {8, src_private_base's high dword} read back through a flat
// private load at offset 8. Lane 0 also stores the two aperture registers.
std::string FlatBody(const std::string& private_read) {
  return absl::StrCat(R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v3, s9
  v_add_co_u32 v2, vcc, s8, v1
  s_nop 1
  v_addc_co_u32 v3, vcc, 0, v3, vcc
  flat_load_dword v4, v[2:3] offset:4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_mov_b64 s[12:13], src_shared_base
  v_mov_b32 v6, v1
  v_mov_b32 v7, s13
  flat_store_dword v[6:7], v4
  s_mov_b64 s[14:15], src_private_base
  v_mov_b32 v8, 8
  v_mov_b32 v9, s15
  v_add_u32 v5, 1000, v0
  flat_store_dword v[8:9], v5
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_xor_b32 v10, 4, v1
  ds_read_b32 v12, v10
)", private_read, R"(
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_lshlrev_b32 v14, 3, v0
  global_store_dwordx2 v14, v[12:13], s[10:11]
  s_mov_b64 exec, 1
  v_mov_b32 v16, s12
  v_mov_b32 v17, s13
  v_mov_b32 v18, s14
  v_mov_b32 v19, s15
  v_mov_b32 v20, 0
  global_store_dwordx4 v20, v[16:19], s[10:11] offset:512
  s_endpgm)");
}

void CheckFlat(const std::vector<uint32_t>& out) {
  for (uint32_t l = 0; l < 64; ++l) {
    EXPECT_EQ(out[2 * l], 7 * ((l ^ 1) + 1) + 3) << "lane " << l << ": LDS through the shared aperture";
    EXPECT_EQ(out[2 * l + 1], 1000 + l) << "lane " << l << ": the lane's private segment";
  }
  // src_shared_base = 1 << 48, src_private_base = 2 << 48 (semantics.h, from amdkfd).
  EXPECT_EQ(out[128], 0u);
  EXPECT_EQ(out[129], 0x10000u);
  EXPECT_EQ(out[130], 0u);
  EXPECT_EQ(out[131], 0x20000u);
  EXPECT_EQ(uint64_t{out[129]} << 32, kSharedApertureBase);
  EXPECT_EQ(uint64_t{out[131]} << 32, kPrivateApertureBase);
}

TEST(FlatScratch, FlatReachesGlobalLdsAndPrivate) {
  for (const char* mcpu : {"gfx90a", "gfx942"}) {
    for (bool object : {false, true}) {
      SCOPED_TRACE(absl::StrCat(mcpu, object ? " code object" : " assembly"));
      absl::StatusOr<std::vector<uint32_t>> out =
          RunK(mcpu, FlatBody("  flat_load_dword v13, v[8:9]"), "    .amdhsa_private_segment_fixed_size 16\n", 256,
              object);
      ASSERT_TRUE(out.ok()) << out.status();
      CheckFlat(*out);
    }
  }
}

// scratch_* (gfx942, architected flat scratch): the flat private store at
// offset 8 read back by scratch_load_dword in ST mode (off, off) and with a
// VGPR offset; a store at saddr + offset lands where a vaddr load finds it.
TEST(FlatScratch, ScratchInstructionsAddressTheLanesPrivateSegment) {
  absl::StatusOr<std::vector<uint32_t>> out =
      RunK("gfx942", FlatBody("  scratch_load_dword v13, off, off offset:8"),
          "    .amdhsa_private_segment_fixed_size 16\n    .amdhsa_enable_private_segment 1\n", 256);
  ASSERT_TRUE(out.ok()) << out.status();
  CheckFlat(*out);
  out = RunK("gfx942", FlatBody(R"(  v_mov_b32 v11, 4
  scratch_load_dword v13, v11, off offset:4)"),
            "    .amdhsa_private_segment_fixed_size 16\n    .amdhsa_enable_private_segment 1\n", 256);
  ASSERT_TRUE(out.ok()) << out.status();
  CheckFlat(*out);
  // saddr + offset (12 = 8 + 4), read back with vaddr = 12; x2 and ushort.
  out = RunK("gfx942", R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_add_u32 v2, 0x30000, v0
  v_add_u32 v3, 0x50000, v0
  s_mov_b32 s4, 8
  scratch_store_dwordx2 off, v[2:3], s4 offset:4
  v_mov_b32 v1, 12
  scratch_load_dwordx2 v[4:5], v1, off
  scratch_load_ushort v6, v1, off offset:6
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_mov_b32 v7, v6
  v_lshlrev_b32 v8, 4, v0
  global_store_dwordx4 v8, v[4:7], s[10:11]
  s_endpgm)",
            "    .amdhsa_private_segment_fixed_size 24\n    .amdhsa_enable_private_segment 1\n", 0);
  ASSERT_TRUE(out.ok()) << out.status();
  for (uint32_t l = 0; l < 64; ++l) {
    EXPECT_EQ((*out)[4 * l], 0x30000 + l);
    EXPECT_EQ((*out)[4 * l + 1], 0x50000 + l);
    EXPECT_EQ((*out)[4 * l + 2], 0x5u) << "the high half of 0x30000 + lane";
  }
}

TEST(FlatScratch, AnAccessPastThePrivateSegmentIsAnError) {
  absl::StatusOr<std::vector<uint32_t>> out = RunK("gfx942", R"(
  v_mov_b32 v1, 0
  scratch_store_dword off, v1, off offset:16
  s_endpgm)",
                                                 "    .amdhsa_private_segment_fixed_size 16\n"
                                                 "    .amdhsa_enable_private_segment 1\n",
                                                 0);
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()), "scratch_store_dword off, v1, off offset:16");
  EXPECT_HAS_SUBSTR(std::string(out.status().message()),
                    "lane 0 accesses private (scratch) bytes [16, 20) outside the work-item's 16-byte private segment");
  // A flat address in the private aperture past the segment, and a kernel without one.
  out = RunK("gfx90a", R"(
  s_mov_b64 s[14:15], src_private_base
  v_mov_b32 v8, 14
  v_mov_b32 v9, s15
  flat_load_dword v1, v[8:9]
  s_endpgm)",
            "    .amdhsa_private_segment_fixed_size 16\n", 0);
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()), "flat_load_dword v1, v[8:9]");
  EXPECT_HAS_SUBSTR(std::string(out.status().message()), "bytes [14, 18) outside the work-item's 16-byte");
  out = RunK("gfx942", R"(
  v_mov_b32 v1, 0
  scratch_store_dword off, v1, off
  s_endpgm)",
            "", 0);
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()), "the kernel declares none");
  // A flat address in the shared aperture past the workgroup's LDS.
  out = RunK("gfx942", R"(
  s_mov_b64 s[12:13], src_shared_base
  v_mov_b32 v6, 256
  v_mov_b32 v7, s13
  flat_store_dword v[6:7], v6
  s_endpgm)",
            "", 256);
  ASSERT_FALSE(out.ok());
  EXPECT_HAS_SUBSTR(std::string(out.status().message()), "outside the workgroup's 256-byte LDS allocation");
}

// buffer_* through the private segment buffer (s[0:3]) after adding the
// scratch wave offset (s7: user SGPRs s[0:3] and the kernarg pointer s[4:5],
// then workgroup id x in s6), as clang does on gfx908/90a.
std::string MubufBody(bool add_wave_offset, int store_offset) {
  return absl::StrCat(R"(
  s_load_dwordx4 s[8:11], s[4:5], 0x0
)",
                      add_wave_offset ? "  s_add_u32 s0, s0, s7\n  s_addc_u32 s1, s1, 0\n" : "", R"(
  v_and_b32 v0, 0x3ff, v0
  v_add_u32 v1, 2000, v0
  buffer_store_dword v1, off, s[0:3], 0 offset:)",
                      store_offset, R"(
  v_mov_b32 v2, 8
  buffer_load_dword v3, v2, s[0:3], 0 offen offset:4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_lshlrev_b32 v4, 2, v0
  global_store_dword v4, v3, s[10:11]
  s_endpgm)");
}
constexpr char kMubufDirectives[] =
    "    .amdhsa_user_sgpr_private_segment_buffer 1\n"
    "    .amdhsa_system_sgpr_private_segment_wavefront_offset 1\n"
    "    .amdhsa_private_segment_fixed_size 16\n";

TEST(FlatScratch, PrivateSegmentBufferWithTheWaveOffset) {
  for (const char* mcpu : {"gfx908", "gfx90a"}) {
    for (bool object : {false, true}) {
      SCOPED_TRACE(absl::StrCat(mcpu, object ? " code object" : " assembly"));
      absl::StatusOr<std::vector<uint32_t>> out = RunK(mcpu, MubufBody(true, 12), kMubufDirectives, 0, object);
      ASSERT_TRUE(out.ok()) << out.status();
      for (uint32_t l = 0; l < 64; ++l) EXPECT_EQ((*out)[l], 2000 + l) << "lane " << l;
    }
    absl::StatusOr<std::vector<uint32_t>> out = RunK(mcpu, MubufBody(false, 12), kMubufDirectives, 0);
    ASSERT_FALSE(out.ok());
    EXPECT_HAS_SUBSTR(std::string(out.status().message()), "buffer_store_dword v1, off, s[0:3], 0 offset:12");
    EXPECT_HAS_SUBSTR(std::string(out.status().message()), "must address this wave's scratch");
    out = RunK(mcpu, MubufBody(true, 16), kMubufDirectives, 0);
    ASSERT_FALSE(out.ok());
    EXPECT_HAS_SUBSTR(std::string(out.status().message()),
                      "lane 0 accesses private (scratch) bytes [16, 20) outside the work-item's 16-byte");
  }
}

// Each line: the text, llvm-mc 22's encoding for gfx942, and what the reader
// must make of it.
struct Enc {
  const char* text;
  std::vector<uint8_t> bytes;
  Opc opc;
  int64_t offset;
  bool vaddr_reg, saddr_reg;  // scratch: vaddr / saddr a register (not off)
};

TEST(FlatScratch, EncodingsRoundTripThroughLlvm) {
  const std::vector<Enc> encs = {
      {"flat_load_dword v1, v[2:3]", {0x00, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x00, 0x01}, Opc::kFlatLoadDword, 0, true, false},
      {"flat_load_dword v1, v[2:3] offset:16", {0x10, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x00, 0x01}, Opc::kFlatLoadDword, 16, true, false},
      {"flat_load_dwordx2 v[4:5], v[2:3] offset:4095", {0xff, 0x0f, 0x54, 0xdc, 0x02, 0x00, 0x00, 0x04}, Opc::kFlatLoadDwordx2, 4095, true, false},
      {"flat_load_dwordx4 v[4:7], v[2:3]", {0x00, 0x00, 0x5c, 0xdc, 0x02, 0x00, 0x00, 0x04}, Opc::kFlatLoadDwordx4, 0, true, false},
      {"flat_load_ushort v1, v[2:3]", {0x00, 0x00, 0x48, 0xdc, 0x02, 0x00, 0x00, 0x01}, Opc::kFlatLoadUshort, 0, true, false},
      {"flat_load_short_d16_hi v1, v[2:3]", {0x00, 0x00, 0x94, 0xdc, 0x02, 0x00, 0x00, 0x01}, Opc::kFlatLoadShortD16Hi, 0, true, false},
      {"flat_store_dword v[2:3], v1 offset:8", {0x08, 0x00, 0x70, 0xdc, 0x02, 0x01, 0x00, 0x00}, Opc::kFlatStoreDword, 8, true, false},
      {"flat_store_dwordx3 v[2:3], v[4:6]", {0x00, 0x00, 0x78, 0xdc, 0x02, 0x04, 0x00, 0x00}, Opc::kFlatStoreDwordx3, 0, true, false},
      {"flat_store_short_d16_hi v[2:3], v1", {0x00, 0x00, 0x6c, 0xdc, 0x02, 0x01, 0x00, 0x00}, Opc::kFlatStoreShortD16Hi, 0, true, false},
      {"scratch_load_dword v4, v0, off", {0x00, 0x60, 0x50, 0xdc, 0x00, 0x00, 0x7f, 0x04}, Opc::kScratchLoadDword, 0, true, false},
      {"scratch_load_dword v4, off, s5 offset:16", {0x10, 0x40, 0x50, 0xdc, 0x00, 0x00, 0x05, 0x04}, Opc::kScratchLoadDword, 16, false, true},
      {"scratch_store_dwordx4 off, v[20:23], off offset:64", {0x40, 0x40, 0x7c, 0xdc, 0x00, 0x14, 0x7f, 0x00}, Opc::kScratchStoreDwordx4, 64, false, false},
      {"scratch_store_dword v1, v2, off", {0x00, 0x60, 0x70, 0xdc, 0x01, 0x02, 0x7f, 0x00}, Opc::kScratchStoreDword, 0, true, false},
      {"s_mov_b64 s[8:9], src_shared_base", {0xeb, 0x01, 0x88, 0xbe}, Opc::kSMovB64, 0, false, false},
      {"s_mov_b64 s[8:9], src_private_base", {0xed, 0x01, 0x88, 0xbe}, Opc::kSMovB64, 0, false, false},
  };
  std::string body;
  for (const Enc& e : encs) absl::StrAppend(&body, "  ", e.text, "\n");
  body += "  s_endpgm\n";
  testing::HandKernel k;
  k.mcpu = "gfx942";
  k.args = {"in:global_buffer", "out:global_buffer"};
  k.vgprs = 32;
  k.sgprs = 24;
  k.extra_directives = "    .amdhsa_private_segment_fixed_size 16\n    .amdhsa_enable_private_segment 1\n";
  k.body = body;
  absl::StatusOr<std::string> obj = BuildCodeObject(testing::kLlvmBin, k.Text(), "gfx942");
  ASSERT_TRUE(obj.ok()) << obj.status();
  // The instruction bytes, in order, as llvm-mc prints them.
  size_t at = 0;
  for (const Enc& e : encs) {
    const std::string want(e.bytes.begin(), e.bytes.end());
    const size_t p = obj->find(want, at);
    ASSERT_NE(p, std::string::npos) << e.text << ": llvm-mc's bytes are not in the code object";
    at = p + want.size();
  }
  absl::StatusOr<std::shared_ptr<const LoadedKernel>> lk = LoadCodeObject(testing::kLlvmBin, *obj, "", "gfx942");
  ASSERT_TRUE(lk.ok()) << lk.status();
  const Program& p = ProgramOf(**lk);
  ASSERT_EQ(p.insts.size(), encs.size() + 1);
  for (size_t i = 0; i < encs.size(); ++i) {
    const Enc& e = encs[i];
    const MInst& mi = p.insts[i].mi;
    SCOPED_TRACE(e.text);
    EXPECT_EQ(mi.opc, e.opc) << Info(mi.opc).mnemonic;
    if (e.opc == Opc::kSMovB64) {
      ASSERT_EQ(mi.ops.size(), 2u);
      EXPECT_EQ(static_cast<uint64_t>(mi.ops[1].imm),
                absl::StrContains(e.text, "shared") ? kSharedApertureBase : kPrivateApertureBase);
      continue;
    }
    EXPECT_EQ(mi.offset, e.offset);
    const MOperand* vaddr = FindOperand(mi, OpName::kVaddr);
    ASSERT_NE(vaddr, nullptr);
    EXPECT_EQ(vaddr->IsReg(), e.vaddr_reg);
    if (Info(mi.opc).flags & kFlatAddr) {
      EXPECT_EQ(vaddr->count, 2);
      EXPECT_EQ(vaddr->reg, 2);
      const MOperand* data = FindOperand(mi, Info(mi.opc).cls == InstClass::kVmemStore ? OpName::kVdata : OpName::kVdst);
      ASSERT_NE(data, nullptr);
      EXPECT_EQ(data->reg, e.bytes[7] != 0 ? e.bytes[7] : e.bytes[5]);
    } else {
      const MOperand* saddr = FindOperand(mi, OpName::kSaddr);
      ASSERT_NE(saddr, nullptr);
      EXPECT_EQ(saddr->IsReg(), e.saddr_reg);
      if (e.saddr_reg) {
        EXPECT_EQ(saddr->reg, e.bytes[6]);
      }
      if (e.vaddr_reg) {
        EXPECT_EQ(vaddr->reg, e.bytes[4]);
      }
    }
  }
}

}  // namespace
}  // namespace kir::emu
