// The open semantic questions of kirc's shared ISA semantics (issue 14,
// item 4), each as a hand-written probe kernel whose expected output is
// worked out here by hand from the ISA rule it tests (the rule and its
// source are in hw/rocjitsu/SEMANTICS.md, with rocjitsu's answer):
//   ds_wrap       LDS address = (vaddr + offset) mod 2^32
//   buffer_range  the buffer range check is per dword (per whole component)
//   exec_off      EXEC-off lanes keep their destinations (VALU, loads), and
//                 a VOPC clears inactive lanes' bits of its SGPR-pair result
//   denormals     f32 and f16 VALU denormals kept (descriptor mode 3), and
//                 MFMA f16 / bf16 denormal inputs and an f32 denormal result
//   cvt_rounding  v_cvt_f16_f32 rounds to nearest even (ties, overflow to
//                 inf), v_cvt_pkrtz_f16_f32 toward zero
//   d16           D16 loads zero the VGPR's other half unless sramecc-
//   fma_f16       f16 fma (v_fma_f16, v_pk_fma_f16) rounds once
// kirc's emulator must give the expected values (always); rocjitsu too when
// a build is named ($KIRC_ROCJITSU, through `bazel test
// --test_env=KIRC_ROCJITSU=DIR`; otherwise those cases skip, saying why).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/object/toolchain.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "hw/emu/emu_device.h"
#include "hw/emu/test_util.h"
#include "hw/kernarg.h"
#include "hw/rocjitsu/rocjitsu_device.h"

namespace kir {
namespace {

struct Probe {
  std::string name;
  std::string mcpu = "gfx942";
  std::string body;  // after the prologue: s[8:9] = in, s[10:11] = out, v0 = lane
  int lds_bytes = 0;
  int vgprs = 40;
  std::vector<uint32_t> in;
  size_t out_words = 0;
  // The expected out, worked out by hand; out starts as 0xcccccccc words.
  std::vector<uint32_t> want;
  // A deviation of rocjitsu from the ISA that SEMANTICS.md records as its
  // bug (with this probe as the reproducer): the words where it gives
  // something else, and what. The rocjitsu case expects exactly these, so
  // it fails both when rocjitsu changes and when it is fixed.
  std::map<size_t, uint32_t> rocjitsu_gives;
  std::string rocjitsu_bug;
};

const char kPrologue[] = R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  s_waitcnt lgkmcnt(0)
)";

constexpr uint32_t kFill = 0xccccccccu;

Probe DsWrap() {
  // Lane l writes 0x100 + l at byte 4l, then reads with vaddr 4l - 16 and
  // offset 16: for lanes 0..3 vaddr is 2^32 - 16 + 4l, and only a 32-bit
  // sum gives back byte 4l.
  Probe p;
  p.name = "ds_wrap";
  p.lds_bytes = 256;
  p.body = R"(
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v2, 0x100, v0
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  v_subrev_u32 v3, 16, v1
  ds_read_b32 v4, v3 offset:16
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v4, s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm)";
  p.in.assign(64, 0);
  p.out_words = 64;
  for (uint32_t l = 0; l < 64; ++l) p.want.push_back(0x100 + l);
  return p;
}

Probe BufferRange() {
  // An SRD over `in` with num_records 8 (two dwords). Per lane, 10 words at
  // out[10 l ...]: a dwordx4 at byte 4 (dword 0 = bytes 4..7 in range, the
  // rest out: 0), a ushort at byte 6 (bytes 6..7: in), a ushort at 7 (7..8:
  // out), a dword at 6 (6..9: out), a dword at 4 (in), a dwordx2 at 4 (in,
  // out). Then lane 0 alone stores a dwordx2 at byte 4 of an SRD over out +
  // 4096 with num_records 8: only its first dword lands (out[1025]; out[1026]
  // keeps the fill).
  Probe p;
  p.name = "buffer_range";
  p.body = R"(
  s_mov_b32 s12, s8
  s_mov_b32 s13, s9
  s_mov_b32 s14, 8
  s_mov_b32 s15, 0x20000
  v_mov_b32 v1, 4
  v_mov_b32 v2, 6
  v_mov_b32 v3, 7
  buffer_load_dwordx4 v[4:7], v1, s[12:15], 0 offen
  buffer_load_ushort v8, v2, s[12:15], 0 offen
  buffer_load_ushort v9, v3, s[12:15], 0 offen
  buffer_load_dword v10, v2, s[12:15], 0 offen
  buffer_load_dword v11, v1, s[12:15], 0 offen
  buffer_load_dwordx2 v[12:13], v1, s[12:15], 0 offen
  v_mul_u32_u24 v20, 40, v0
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v20, v[4:7], s[10:11]
  global_store_dwordx4 v20, v[8:11], s[10:11] offset:16
  global_store_dwordx2 v20, v[12:13], s[10:11] offset:32
  s_add_u32 s16, s10, 0x1000
  s_addc_u32 s17, s11, 0
  s_mov_b32 s18, 8
  s_mov_b32 s19, 0x20000
  v_mov_b32 v30, 0x11111111
  v_mov_b32 v31, 0x22222222
  s_mov_b64 exec, 1
  buffer_store_dwordx2 v[30:31], v1, s[16:19], 0 offen
  s_waitcnt vmcnt(0)
  s_endpgm)";
  p.in = {0x03020100u, 0xa7a6a5a4u, 0x0b0a0908u, 0x0f0e0d0cu};
  p.out_words = 1100;
  p.want.assign(p.out_words, kFill);
  for (uint32_t l = 0; l < 64; ++l) {
    const uint32_t w[10] = {0xa7a6a5a4u, 0, 0, 0, 0xa7a6u, 0, 0, 0xa7a6a5a4u, 0xa7a6a5a4u, 0};
    for (int j = 0; j < 10; ++j) p.want[10 * l + j] = w[j];
  }
  p.want[1024 + 1] = 0x11111111u;
  // rocjitsu 96b8d0f2 checks only an access's first byte against
  // num_records (addr_calc_buffer.h: offset >= num_records), so every
  // component of an access that starts in range is in range.
  p.rocjitsu_bug = "the buffer range check takes the whole access when its first byte is in range";
  for (uint32_t l = 0; l < 64; ++l) {
    p.rocjitsu_gives[10 * l + 1] = 0x0b0a0908u;  // dwordx4 at 4: dword 1 (bytes 8..11)
    p.rocjitsu_gives[10 * l + 2] = 0x0f0e0d0cu;  // dword 2 (bytes 12..15)
    p.rocjitsu_gives[10 * l + 5] = 0x08a7u;      // ushort at 7
    p.rocjitsu_gives[10 * l + 6] = 0x0908a7a6u;  // dword at 6
    p.rocjitsu_gives[10 * l + 9] = 0x0b0a0908u;  // dwordx2 at 4: dword 1
  }
  p.rocjitsu_gives[1024 + 2] = 0x22222222u;  // the stored dwordx2's second dword
  return p;
}

Probe ExecOff() {
  // Lanes 0..31 active: v2 = 7 (VALU), v3 = in[l] (a load), vcc from
  // v_cmp_eq of v0 with itself; then all lanes store v2, v3 and
  // v_cndmask(0, 1, vcc): lanes 32..63 keep 0xdead0000 + l in v2 and v3,
  // and their vcc bits are 0.
  Probe p;
  p.name = "exec_off";
  p.body = R"(
  v_lshlrev_b32 v5, 2, v0
  v_mul_u32_u24 v6, 12, v0
  v_add_u32 v2, 0xdead0000, v0
  v_mov_b32 v3, v2
  s_mov_b32 exec_hi, 0
  v_mov_b32 v2, 7
  global_load_dword v3, v5, s[8:9]
  v_cmp_eq_u32 vcc, v0, v0
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, -1
  v_cndmask_b32 v4, 0, 1, vcc
  global_store_dwordx3 v6, v[2:4], s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm)";
  for (uint32_t l = 0; l < 64; ++l) p.in.push_back(0x5000 + 3 * l);
  p.out_words = 64 * 3;
  for (uint32_t l = 0; l < 64; ++l) {
    p.want.push_back(l < 32 ? 7 : 0xdead0000u + l);
    p.want.push_back(l < 32 ? 0x5000 + 3 * l : 0xdead0000u + l);
    p.want.push_back(l < 32 ? 1 : 0);
  }
  return p;
}

Probe Denormals() {
  // Per lane 8 words:
  //  0: v_add_f32 of 2^-149 + 2^-149 = 2^-148 (0x2): f32 denormals kept
  //     (.amdhsa_float_denorm_mode_32 3)
  //  1: v_mul_f32 2^-126 * 0.5 = 2^-127 (0x00400000)
  //  2: v_add_f16 2^-24 + 2^-24 = 2^-23 (0x0002) in the low half (the
  //     destination starts as 0, so either high-half rule gives 0 there)
  //  3: v_mfma_f32_16x16x16_bf16 with every A = 2^-133 (bf16 0x0001) and
  //     every B = 1.0: 16 * 2^-133 = 2^-129, an f32 denormal (0x00100000),
  //     the first of D's 4 values per lane
  //  4..7: v_mfma_f32_16x16x16_f16 with every A = 2^-24 (f16 0x0001) and
  //     every B = 1.0: each of D's 4 values per lane is 16 * 2^-24 = 2^-20
  //     (0x35800000)
  Probe p;
  p.name = "denormals";
  p.body = R"(
  v_mov_b32 v1, 1
  v_add_f32 v10, v1, v1
  v_mov_b32 v1, 0x00800000
  v_mul_f32 v11, 0.5, v1
  v_mov_b32 v1, 1
  v_mov_b32 v12, 0
  v_add_f16 v12, v1, v1
  v_mov_b32 v2, 0x00010001
  v_mov_b32 v3, 0x00010001
  v_mov_b32 v4, 0x3c003c00
  v_mov_b32 v5, 0x3c003c00
  s_nop 1
  v_mfma_f32_16x16x16_f16 v[14:17], v[2:3], v[4:5], 0
  v_mov_b32 v6, 0x3f803f80
  v_mov_b32 v7, 0x3f803f80
  s_nop 1
  v_mfma_f32_16x16x16_bf16 v[20:23], v[2:3], v[6:7], 0
  v_lshlrev_b32 v8, 5, v0
  s_nop 7
  s_nop 7
  s_nop 7
  v_mov_b32 v13, v20
  global_store_dwordx4 v8, v[10:13], s[10:11]
  global_store_dwordx4 v8, v[14:17], s[10:11] offset:16
  s_waitcnt vmcnt(0)
  s_endpgm)";
  p.in.assign(64, 0);
  p.out_words = 64 * 8;
  for (uint32_t l = 0; l < 64; ++l)
    for (uint32_t w : {0x2u, 0x00400000u, 0x0002u, 0x00100000u, 0x35800000u, 0x35800000u, 0x35800000u, 0x35800000u})
      p.want.push_back(w);
  return p;
}

Probe CvtRounding() {
  // v_cvt_f16_f32 (nearest even) and v_cvt_pkrtz_f16_f32 (toward zero) of
  //   1 + 2^-11 (0x3f801000, a tie between 1 and 1 + 2^-10): 0x3c00 / 0x3c00
  //   1 + 3 * 2^-11 (0x3f803000, a tie): 0x3c02 (even) / 0x3c01
  //   just above the first tie (0x3f801001): 0x3c01 / 0x3c00
  //   -(1 + 3 * 2^-11) (0xbf803000): 0xbc02 / 0xbc01
  //   65520 (0x477ff000, the tie between 65504 and 2^16): inf 0x7c00 / 0x7bff
  // Per lane 5 words: the nearest-even results in the low halves (high 0),
  // then pkrtz pairs (a, b), (c, d), (e, e).
  Probe p;
  p.name = "cvt_rounding";
  p.body = R"(
  v_mov_b32 v1, 0x3f801000
  v_mov_b32 v2, 0x3f803000
  v_mov_b32 v3, 0x3f801001
  v_mov_b32 v4, 0xbf803000
  v_mov_b32 v5, 0x477ff000
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0
  v_mov_b32 v12, 0
  v_mov_b32 v13, 0
  v_mov_b32 v14, 0
  v_cvt_f16_f32 v10, v1
  v_cvt_f16_f32 v11, v2
  v_cvt_f16_f32 v12, v3
  v_cvt_f16_f32 v13, v4
  v_cvt_f16_f32 v14, v5
  v_cvt_pkrtz_f16_f32 v15, v1, v2
  v_cvt_pkrtz_f16_f32 v16, v3, v4
  v_cvt_pkrtz_f16_f32 v17, v5, v5
  v_mul_u32_u24 v8, 32, v0
  global_store_dwordx4 v8, v[10:13], s[10:11]
  global_store_dwordx4 v8, v[14:17], s[10:11] offset:16
  s_waitcnt vmcnt(0)
  s_endpgm)";
  p.in.assign(64, 0);
  p.out_words = 64 * 8;
  for (uint32_t l = 0; l < 64; ++l)
    for (uint32_t w : {0x3c00u, 0x3c02u, 0x3c01u, 0xbc02u, 0x7c00u, 0x3c013c00u, 0xbc013c00u, 0x7bff7bffu})
      p.want.push_back(w);
  // rocjitsu 96b8d0f2 rounds v_cvt_pkrtz_f16_f32 to nearest even.
  p.rocjitsu_bug = "v_cvt_pkrtz_f16_f32 rounds to nearest even, not toward zero";
  for (uint32_t l = 0; l < 64; ++l) {
    p.rocjitsu_gives[8 * l + 5] = 0x3c023c00u;
    p.rocjitsu_gives[8 * l + 6] = 0xbc023c01u;
    p.rocjitsu_gives[8 * l + 7] = 0x7c007c00u;
  }
  return p;
}

Probe D16(const std::string& mcpu) {
  // v8 = 0x5555aaaa, then buffer_load_short_d16_hi v8 of in[l]'s low half;
  // v9 = 0x5555aaaa, then ds_read_u16_d16 v9 of the 16-bit value 0x1234
  // written at LDS byte 0. With SRAM ECC on or "any" the other half is zero
  // (0x77660000, 0x00001234); with sramecc- it is kept (0x7766aaaa,
  // 0x55551234).
  Probe p;
  p.name = "d16_" + mcpu;
  p.mcpu = mcpu;
  p.lds_bytes = 64;
  p.body = R"(
  v_lshlrev_b32 v5, 2, v0
  v_lshlrev_b32 v6, 3, v0
  s_mov_b32 s12, s8
  s_mov_b32 s13, s9
  s_mov_b32 s14, 256
  s_mov_b32 s15, 0x20000
  v_mov_b32 v8, 0x5555aaaa
  v_mov_b32 v9, 0x5555aaaa
  v_mov_b32 v3, 0x1234
  v_mov_b32 v4, 0
  ds_write_b16 v4, v3
  buffer_load_short_d16_hi v8, v5, s[12:15], 0 offen
  s_waitcnt lgkmcnt(0)
  ds_read_u16_d16 v9, v4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_dwordx2 v6, v[8:9], s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm)";
  for (uint32_t l = 0; l < 64; ++l) p.in.push_back(0xabcd7766u);
  p.out_words = 128;
  const bool keeps = mcpu == "gfx942:sramecc-";
  for (uint32_t l = 0; l < 64; ++l) {
    p.want.push_back(keeps ? 0x7766aaaau : 0x77660000u);
    p.want.push_back(keeps ? 0x55551234u : 0x00001234u);
  }
  if (keeps) {
    // rocjitsu 96b8d0f2 models SRAM ECC as always on for gfx90a/gfx942.
    p.rocjitsu_bug = "D16 loads zero the other half even for sramecc- (ECC is always on in its gfx90a/gfx942 model)";
    for (uint32_t l = 0; l < 64; ++l) {
      p.rocjitsu_gives[2 * l] = 0x77660000u;
      p.rocjitsu_gives[2 * l + 1] = 0x00001234u;
    }
  }
  return p;
}

Probe FmaF16() {
  // f16 fma rounds once. a * b + c with a = 0x3c41, b = 0x3d63, c = 0x822f
  // (a negative subnormal) is 0x3dbb rounded once, but 0x3dba when the exact
  // value is first rounded to f32 (it lands on an f16 tie); likewise
  // 0x3ff1 * 0x3c88 + 0x8081 is 0x407f once, 0x4080 twice (worked out with
  // exact rationals). Per lane 2 words: v_fma_f16 of the first triple (high
  // half 0), v_pk_fma_f16 of both (low, high).
  Probe p;
  p.name = "fma_f16";
  p.body = R"(
  v_mov_b32 v1, 0x3ff13c41
  v_mov_b32 v2, 0x3c883d63
  v_mov_b32 v3, 0x8081822f
  v_mov_b32 v10, 0
  v_fma_f16 v10, v1, v2, v3
  v_pk_fma_f16 v11, v1, v2, v3
  v_lshlrev_b32 v8, 3, v0
  global_store_dwordx2 v8, v[10:11], s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm)";
  p.in.assign(64, 0);
  p.out_words = 128;
  for (uint32_t l = 0; l < 64; ++l) {
    p.want.push_back(0x3dbbu);
    p.want.push_back(0x407f3dbbu);
  }
  // rocjitsu 96b8d0f2 computes f16 fma in f32 and rounds that to f16.
  p.rocjitsu_bug = "f16 fma rounds twice (through f32)";
  for (uint32_t l = 0; l < 64; ++l) {
    p.rocjitsu_gives[2 * l] = 0x3dbau;
    p.rocjitsu_gives[2 * l + 1] = 0x40803dbau;
  }
  return p;
}

std::vector<Probe> Probes() {
  return {DsWrap(), BufferRange(), ExecOff(), Denormals(), CvtRounding(), D16("gfx942"), D16("gfx942:sramecc-"),
          FmaF16()};
}

// The KIR side of a probe: its arguments, grid and workgroup.
Kernel Twin(const Probe& p) {
  Kernel k;
  k.name = "k";
  k.workgroup = {64, 1, 1};
  k.grid = {1, 1, 1};
  auto arg = [](const char* name, size_t words, Access access) {
    Arg a;
    a.name = name;
    a.elem = ElemType::kI32;
    a.shape = {static_cast<int64_t>(words)};
    a.strides = {1};
    a.access = access;
    return a;
  };
  k.args = {arg("in", p.in.size(), Access::kReadOnly), arg("out", p.out_words, Access::kWriteOnly)};
  return k;
}

// Runs probe p on `device`; the out words, or a failure.
absl::StatusOr<std::vector<uint32_t>> RunProbe(const Probe& p, Device& device) {
  emu::testing::HandKernel hk;
  hk.mcpu = p.mcpu;
  hk.args = {"in:global_buffer", "out:global_buffer"};
  hk.lds_bytes = p.lds_bytes;
  hk.vgprs = p.vgprs;
  hk.body = absl::StrCat(kPrologue, p.body);
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  if (!bin.ok()) return bin.status();
  absl::StatusOr<std::string> hsaco = BuildCodeObject(*bin, hk.Text(), p.mcpu);
  if (!hsaco.ok()) return hsaco.status();
  KernelData data;
  data.buffers["in"] = std::vector<uint8_t>(p.in.size() * 4);
  std::memcpy(data.buffers["in"].data(), p.in.data(), p.in.size() * 4);
  data.buffers["out"].assign(p.out_words * 4, 0xcc);
  absl::StatusOr<DeviceRun> run = device.Run(Twin(p), **LookupTarget(TargetProcessor(p.mcpu)), *hsaco, data);
  if (!run.ok()) return run.status();
  std::vector<uint32_t> out(p.out_words);
  std::memcpy(out.data(), data.buffers["out"].data(), p.out_words * 4);
  return out;
}

void ExpectWant(const Probe& p, const std::vector<uint32_t>& out, const std::string& who) {
  int shown = 0;
  for (size_t i = 0; i < p.want.size(); ++i)
    if (out[i] != p.want[i] && shown++ < 8)
      ADD_FAILURE() << who << ", probe " << p.name << ": out[" << i << "] = 0x" << std::hex << out[i] << ", want 0x"
                    << p.want[i];
}

TEST(SemanticsProbes, KircsEmulatorGivesTheHandComputedValues) {
  EmuDevice emu(*ResolveLlvmBin(std::nullopt));
  for (const Probe& p : Probes()) {
    absl::StatusOr<std::vector<uint32_t>> out = RunProbe(p, emu);
    ASSERT_TRUE(out.ok()) << p.name << ": " << out.status();
    ExpectWant(p, *out, "kirc's emulator");
  }
}

TEST(SemanticsProbes, RocjitsuGivesTheHandComputedValues) {
  absl::StatusOr<std::unique_ptr<RocjitsuDevice>> rj = OpenRocjitsuDevice({});
  if (absl::IsUnavailable(rj.status())) GTEST_SKIP() << "rocjitsu: " << rj.status().message();
  ASSERT_TRUE(rj.ok()) << rj.status();
  for (const Probe& p : Probes()) {
    const std::string proc(TargetProcessor(p.mcpu));
    if (std::find((*rj)->Processors().begin(), (*rj)->Processors().end(), proc) == (*rj)->Processors().end()) {
      std::cout << "probe " << p.name << ": rocjitsu does not run " << p.mcpu << "\n";
      continue;
    }
    absl::StatusOr<std::vector<uint32_t>> out = RunProbe(p, **rj);
    ASSERT_TRUE(out.ok()) << p.name << ": " << out.status();
    Probe known = p;
    for (const auto& [i, v] : p.rocjitsu_gives) known.want[i] = v;
    if (!p.rocjitsu_gives.empty() && *out == p.want)
      ADD_FAILURE() << (*rj)->Name() << " now gives the ISA's values for probe " << p.name
                    << ": its bug (" << p.rocjitsu_bug
                    << ") is fixed; drop rocjitsu_gives from the probe and the entry from hw/rocjitsu/SEMANTICS.md";
    else
      ExpectWant(known, *out, (*rj)->Name());
    std::cout << "probe " << p.name << " on " << (*rj)->Name() << ": "
              << (*out == p.want ? "as the ISA says"
                  : *out == known.want ? absl::StrCat("its known deviation (", p.rocjitsu_bug, ")")
                                      : std::string("DIFFERS"))
              << "\n";
  }
}

}  // namespace
}  // namespace kir
