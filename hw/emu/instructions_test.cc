// Single instructions through the whole emulator (reader, operands, exec):
// each snippet computes v3 and v4 from per-lane inputs v1, v2 (and s6 = 5,
// s7 = 0x12345678; the registers are renumbered +1 before running so that
// pairs are even-aligned: x = v2, y = v3, results v4, v5); the stored results are checked against a CPU computation
// written here. Also the float rounding helpers.
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/float_bits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "compiler/object/toolchain.h"
#include "hw/emu/emulator.h"
#include "hw/emu/float_math.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using testing::FromBytes;
using testing::ToBytes;

struct Out {
  uint32_t v3, v4;
};
using Ref = std::function<Out(uint32_t x, uint32_t y, int lane)>;

// v1..v4 -> v2..v5 and v[a:b] -> v[a+1:b+1].
std::string Renumber(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    bool start = i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
    if (start && s[i] == 'v' && i + 1 < s.size() && s[i + 1] >= '1' && s[i + 1] <= '4' &&
        (i + 2 == s.size() || !std::isalnum(static_cast<unsigned char>(s[i + 2])))) {
      out += 'v';
      out += static_cast<char>(s[i + 1] + 1);
      ++i;
    } else if (start && s.compare(i, 2, "v[") == 0 && i + 5 < s.size() && s[i + 3] == ':') {
      out += absl::StrCat("v[", s[i + 2] - '0' + 1, ":", s[i + 4] - '0' + 1, "]");
      i += 5;
    } else {
      out += s[i];
    }
  }
  return out;
}

// `object`: run the code object llvm-mc and ld.lld make of the kernel
// (llvm-objdump's addresses) instead of the assembly text (estimated ones).
void Check(const std::string& snippet, const Ref& ref, const char* mcpu = "gfx942", bool object = false) {
  testing::HandKernel k;
  k.mcpu = mcpu;
  k.args = {"in:global_buffer", "out:global_buffer"};
  k.body = absl::StrCat(R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v10, 3, v0
  s_mov_b32 s6, 5
  s_mov_b32 s7, 0x12345678
  v_mov_b32 v4, 0
  v_mov_b32 v5, 0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v10, s[8:9]
  s_waitcnt vmcnt(0)
  s_nop 4
)", Renumber(snippet), R"(
  s_nop 4
  global_store_dwordx2 v10, v[4:5], s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm)");
  std::vector<uint32_t> in(128);
  testing::Lcg r(7);
  const uint32_t edges[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x3c003c00, 0x3f800000, 31, 32, 33};
  for (int i = 0; i < 128; ++i) in[i] = i < 20 ? edges[i % 10] ^ (i >= 10 ? 0x1u : 0u) : r.Next() * 2654435761u;
  LaunchArgs a;
  a.args = {ToBytes(in), ToBytes(std::vector<uint32_t>(128))};
  absl::StatusOr<EmuStats> s = testing::RunTextOrObject(k.Text(), mcpu, a, object);
  ASSERT_TRUE(s.ok()) << snippet << "\n" << s.status();
  std::vector<uint32_t> out = FromBytes<uint32_t>(a.args[1]);
  for (int l = 0; l < 64; ++l) {
    Out want = ref(in[2 * l], in[2 * l + 1], l);
    EXPECT_EQ(out[2 * l], want.v3) << snippet << " lane " << l << std::hex << " x=" << in[2 * l] << " y=" << in[2 * l + 1];
    EXPECT_EQ(out[2 * l + 1], want.v4) << snippet << " lane " << l;
  }
}

uint32_t Lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t Hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

TEST(InstructionsTest, Integer) {
  Check("v_add_co_u32_e64 v3, s[12:13], v1, v2\n  s_nop 1\n  v_addc_co_u32_e64 v4, s[14:15], 0, 0, s[12:13]",
        [](uint32_t x, uint32_t y, int) { return Out{x + y, (uint64_t{x} + y) >> 32 ? 1u : 0u}; });
  Check("v_sub_co_u32_e32 v3, vcc, v1, v2\n  s_nop 1\n  v_subb_co_u32_e32 v4, vcc, 0, v1, vcc",
        [](uint32_t x, uint32_t y, int) { return Out{x - y, 0u - x - (x < y ? 1u : 0u)}; });
  Check("v_mad_u64_u32 v[3:4], s[12:13], v1, v2, s[6:7]", [](uint32_t x, uint32_t y, int) {
    uint64_t r = uint64_t{x} * y + ((uint64_t{0x12345678} << 32) | 5);
    return Out{Lo(r), Hi(r)};
  });
  Check("v_lshlrev_b64 v[3:4], 33, v[1:2]", [](uint32_t x, uint32_t y, int) {
    uint64_t v = ((uint64_t{y} << 32) | x) << 33;
    return Out{Lo(v), Hi(v)};
  });
  Check("v_lshl_add_u64 v[3:4], v[1:2], 3, s[6:7]", [](uint32_t x, uint32_t y, int) {
    uint64_t v = (((uint64_t{y} << 32) | x) << 3) + ((uint64_t{0x12345678} << 32) | 5);
    return Out{Lo(v), Hi(v)};
  });
  Check("s_mov_b32 s12, 0x0d0c0907\n  v_perm_b32 v3, v1, v2, s12\n  s_mov_b32 s12, 0x0b0a0805\n"
        "  v_perm_b32 v4, v1, v2, s12",
        [](uint32_t x, uint32_t y, int) {
          uint64_t cat = (uint64_t{x} << 32) | y;  // byte 0 = y[7:0]
          auto perm = [&](uint32_t sel) {
            uint32_t p = 0;
            for (int i = 0; i < 4; ++i) {
              uint32_t b = (sel >> (8 * i)) & 0xff, v;
              if (b < 8) v = (cat >> (8 * b)) & 0xff;
              else if (b < 12) v = (cat >> (b == 8 ? 15 : b == 9 ? 31 : b == 10 ? 47 : 63)) & 1 ? 0xff : 0;
              else v = b == 12 ? 0 : 0xff;
              p |= v << (8 * i);
            }
            return p;
          };
          return Out{perm(0x0d0c0907), perm(0x0b0a0805)};
        });
  Check("v_bfi_b32 v3, v1, v2, s7", [](uint32_t x, uint32_t y, int) { return Out{(x & y) | (~x & 0x12345678u), 0}; });
  Check("v_alignbit_b32 v3, v1, v2, v2\n  v_bfe_i32 v4, v1, 4, 12", [](uint32_t x, uint32_t y, int) {
    uint64_t cat = (uint64_t{x} << 32) | y;
    int32_t f = static_cast<int32_t>(x << 16) >> 20;
    return Out{static_cast<uint32_t>(cat >> (y & 31)), static_cast<uint32_t>(f)};
  });
  Check("v_mul_hi_i32 v3, v1, v2\n  v_mul_u32_u24_e32 v4, v1, v2", [](uint32_t x, uint32_t y, int) {
    int64_t p = int64_t{static_cast<int32_t>(x)} * static_cast<int32_t>(y);
    return Out{static_cast<uint32_t>(p >> 32), (x & 0xffffff) * (y & 0xffffff)};
  });
  Check("v_mbcnt_lo_u32_b32 v3, -1, 0\n  v_mbcnt_hi_u32_b32 v4, -1, v3",
        [](uint32_t, uint32_t, int l) { return Out{static_cast<uint32_t>(std::min(l, 32)), static_cast<uint32_t>(l)}; });
  Check("v_pk_mov_b32 v[3:4], v[1:2], v[1:2] op_sel:[1,0]",
        [](uint32_t x, uint32_t y, int) { return Out{y, x}; });
  Check("v_readfirstlane_b32 s12, v1\n  s_nop 4\n  v_mov_b32 v3, s12\n  v_readlane_b32 s13, v2, 7\n  s_nop 4\n"
        "  v_mov_b32 v4, s13",
        [](uint32_t, uint32_t, int) { return Out{0, 0x3c003c01u}; });  // x of lane 0, y of lane 7
}

TEST(InstructionsTest, CompareSelectAndExec) {
  Check("v_cmp_gt_i32_e32 vcc, v1, v2\n  s_nop 1\n  v_cndmask_b32_e32 v3, v1, v2, vcc\n"
        "  v_cmp_lt_u32_e64 s[12:13], v1, v2\n  s_nop 1\n  v_cndmask_b32_e64 v4, 0, 1, s[12:13]",
        [](uint32_t x, uint32_t y, int) {
          return Out{static_cast<int32_t>(x) > static_cast<int32_t>(y) ? y : x, x < y ? 1u : 0u};
        });
  Check("s_mov_b64 s[12:13], exec\n  v_cmpx_lt_u32_e64 s[14:15], v1, v2\n  s_nop 4\n  v_mov_b32 v3, 7\n"
        "  s_mov_b64 exec, s[12:13]\n  v_cmp_ne_u32_e32 vcc, v1, v2\n  s_and_saveexec_b64 s[16:17], vcc\n"
        "  s_cbranch_execz .Lskip\n  v_mov_b32 v4, 9\n.Lskip:\n  s_or_b64 exec, exec, s[16:17]",
        [](uint32_t x, uint32_t y, int) { return Out{x < y ? 7u : 0u, x != y ? 9u : 0u}; });
  Check("s_cmp_lt_u32 s6, s7\n  s_cselect_b32 s12, 3, 4\n  s_add_u32 s14, s7, s7\n  s_addc_u32 s15, 0, 0\n"
        "  v_mov_b32 v3, s12\n  v_mov_b32 v4, s15",
        [](uint32_t, uint32_t, int) { return Out{3u, 0u}; });
}

TEST(InstructionsTest, Float) {
  auto f = [](uint32_t b) { return F32(b); };
  Check("v_fma_f32 v3, v1, v2, -v1\n  v_mul_f32_e64 v4, |v1|, 0.5 clamp", [&](uint32_t x, uint32_t y, int) {
    float c = std::fmin(std::fmax(std::fabs(f(x)) * 0.5f, 0.0f), 1.0f);
    if (std::isnan(f(x))) c = 0.0f;
    return Out{Bits(std::fma(f(x), f(y), -f(x))), Bits(c)};
  });
  // f32 NaNs: a NaN source gives itself, quieted (NaN in src0 or in src1 on
  // the edge lanes; two NaN sources are checked by the rocjitsu cross-check).
  Check("v_add_f32 v3, v1, v2\n  v_mul_f32 v4, v2, v1", [&](uint32_t x, uint32_t y, int) {
    auto nan = [](uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) != 0; };
    auto first = [&](uint32_t a, uint32_t b, float r) {
      return nan(a) ? a | 0x400000u : nan(b) ? b | 0x400000u : Bits(r);
    };
    return Out{first(x, y, f(x) + f(y)), first(y, x, f(y) * f(x))};
  });
  Check("v_pk_add_f16 v3, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]\n  v_cvt_f32_f16_sdwa v4, v1 dst_sel:DWORD "
        "dst_unused:UNUSED_PAD src0_sel:WORD_1",
        [](uint32_t x, uint32_t y, int) {
          auto h = [](uint32_t v) { return static_cast<double>(F16BitsToF32(static_cast<uint16_t>(v))); };
          auto r = [](double v) { return static_cast<uint32_t>(F32ToF16Bits(static_cast<float>(v))); };
          // lo = x.hi + y.lo, hi = x.lo + y.hi; sums of f16 are exact in double, then one rounding
          // (through f32, exact for these sums unless they overflow the f32 range: they cannot).
          // A NaN source gives itself, quieted (src0 first): the ISA's IEEE-mode
          // rule (hw/rocjitsu/SEMANTICS.md, "f16 NaN payloads").
          auto add = [&](uint32_t a, uint32_t b) {
            auto nan = [](uint32_t v) { return (v & 0x7c00) == 0x7c00 && (v & 0x3ff) != 0; };
            if (nan(a & 0xffff)) return (a & 0xffff) | 0x0200;
            if (nan(b & 0xffff)) return (b & 0xffff) | 0x0200;
            return r(h(a) + h(b));
          };
          uint32_t lo = add(x >> 16, y), hi = add(x, y >> 16);
          return Out{lo | (hi << 16), Bits(F16BitsToF32(static_cast<uint16_t>(x >> 16)))};
        });
  Check("v_cvt_f16_f32_e32 v3, v1\n  v_pack_b32_f16 v4, v1, v2 op_sel:[1,0]", [](uint32_t x, uint32_t y, int) {
    // An f32 NaN converts to the quiet f16 NaN with its top 9 payload bits.
    uint32_t cvt = std::isnan(F32(x)) ? ((x >> 16) & 0x8000) | 0x7e00 | ((x >> 13) & 0x1ff) : F32ToF16Bits(F32(x));
    return Out{cvt, (x >> 16) | (y << 16)};
  });
  // Without op_sel_hi every source of a mix is f32 (llvm-mc 22 encodes it 0
  // and prints it only when it differs; clang's `v_fma_mixlo_f16 v4, v4, s0,
  // v5`, fresh-user review 8 F4): fma(0.875, 0.5, 0.484375) = 0.921875 =
  // 59/64, f16 exponent 14, mantissa 0.84375 * 1024 = 864: 0x3b60, the high
  // half kept (0). Read as f16 low halves (all zero) the result was 0.
  Check("v_mov_b32 v1, 0x3f600000\n  v_mov_b32 v2, 0x3f000000\n  v_mov_b32 v4, 0x3ef80000\n"
        "  v_mov_b32 v3, 0\n  v_fma_mixlo_f16 v3, v1, v2, v4",
        [](uint32_t, uint32_t, int) { return Out{0x3b60u, 0x3ef80000u}; });
  Check("v_fma_mixlo_f16 v3, v1, v2, 0 op_sel_hi:[0,1,0]\n  v_cmp_u_f32_e64 s[12:13], v1, v2\n  s_nop 1\n"
        "  v_cndmask_b32_e64 v4, 0, 1, s[12:13]",
        [](uint32_t x, uint32_t y, int) {
          double p = static_cast<double>(F32(x)) * F16BitsToF32(static_cast<uint16_t>(y));
          // Reference rounding: nearest f16 to the exact product (ties to even) among neighbours.
          uint16_t g = F32ToF16Bits(static_cast<float>(p)), best = g;
          if (!std::isnan(p) && !std::isinf(p) && std::fabs(p) < 65504) {
            double bd = 1e300;
            for (int d = -1; d <= 1; ++d) {
              uint16_t h = static_cast<uint16_t>(g + d);
              if ((h ^ g) & 0x8000) continue;
              double dist = std::fabs(F16BitsToF32(h) - p);
              if (dist < bd || (dist == bd && !(h & 1))) bd = dist, best = h;
            }
          }
          // NaN sources: src0 (f32 x) first, then src1 (f16 y.lo), quieted, the
          // f32 one with its top 9 payload bits (hw/rocjitsu/SEMANTICS.md).
          if (std::isnan(F32(x))) best = static_cast<uint16_t>(((x >> 16) & 0x8000) | 0x7e00 | ((x >> 13) & 0x1ff));
          else if ((y & 0x7c00) == 0x7c00 && (y & 0x3ff) != 0) best = static_cast<uint16_t>((y & 0xffff) | 0x0200);
          bool un = std::isnan(F32(x)) || std::isnan(F32(y));
          return Out{best, un ? 1u : 0u};
        });
}

// Issue 17: instructions other generators use outside their main loops.
// Program-counter instructions, on the assembly text and on the code object
// (addresses from llvm-objdump): s_getpc_b64 gives the next instruction's
// address, s_setpc_b64 jumps to one, s_swappc_b64 does both. Each
// instruction below is 4 bytes (SOP1/SOP2 with inline constants, VOP1), so
// with B the address s_getpc_b64 returns: s_add B, s_addc B+4, s_setpc B+8,
// the two skipped v_movs B+12 and B+16, the target B+20.
TEST(InstructionsTest, ProgramCounter) {
  for (bool object : {false, true})
    for (const char* mcpu : {"gfx908", "gfx942"}) {
      Check("s_getpc_b64 s[12:13]\n  s_add_u32 s12, s12, 20\n  s_addc_u32 s13, s13, 0\n  s_setpc_b64 s[12:13]\n"
            "  v_mov_b32 v3, 1\n  v_mov_b32 v4, 1\n  v_mov_b32 v3, 2",
            [](uint32_t, uint32_t, int) { return Out{2, 0}; }, mcpu, object);
      // s_swappc_b64 at B+8 saves B+12 and jumps to B+16: s[14:15] - s[12:13] = -4.
      Check("s_getpc_b64 s[12:13]\n  s_add_u32 s12, s12, 16\n  s_addc_u32 s13, s13, 0\n"
            "  s_swappc_b64 s[14:15], s[12:13]\n  v_mov_b32 v3, 1\n  s_sub_u32 s16, s14, s12\n"
            "  s_subb_u32 s17, s15, s13\n  v_mov_b32 v3, s16\n  v_mov_b32 v4, s17",
            [](uint32_t, uint32_t, int) { return Out{0xfffffffcu, 0xffffffffu}; }, mcpu, object);
    }
}

TEST(InstructionsTest, ProgramCounterOutsideTheKernelIsRefused) {
  testing::HandKernel k;
  k.args = {"out:global_buffer"};
  k.body = "  s_getpc_b64 s[12:13]\n  s_add_u32 s12, s12, 0x1000\n  s_addc_u32 s13, s13, 0\n"
           "  s_swappc_b64 s[20:21], s[12:13]\n  s_endpgm";
  LaunchArgs a;
  a.args = {ToBytes(std::vector<uint32_t>(64))};
  absl::StatusOr<EmuStats> s = RunAssembly(k.Text(), "gfx942", a);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  // s_getpc_b64 at 0 returns 4; + 0x1000.
  EXPECT_NE(std::string(s.status().message())
                .find("`s_swappc_b64 s[20:21], s[12:13]`: calls address 0x1004, which is not an instruction of "
                      "kernel 'k' (its code is 0x0 to 0x18): the emulator runs the kernel's own code only, not "
                      "other functions"),
            std::string::npos)
      << s.status();
}

TEST(InstructionsTest, CmovAndSaturatingAdds) {
  // SCC = (5 < 0x12345678) = 1: the first s_cmov moves, s_cselect sees SCC
  // unchanged; SCC = (5 > 0x12345678) = 0: the second keeps s13 = 11.
  Check("s_cmp_lt_u32 s6, s7\n  s_mov_b32 s12, 11\n  s_cmov_b32 s12, 22\n  s_cselect_b32 s14, 1, 0\n"
        "  s_cmp_gt_u32 s6, s7\n  s_mov_b32 s13, 11\n  s_cmov_b32 s13, s7\n  v_mov_b32 v3, s12\n"
        "  s_add_u32 s13, s13, s14\n  v_mov_b32 v4, s13",
        [](uint32_t, uint32_t, int) { return Out{22, 12}; });
  // v_add_i32: wraps; with clamp saturates to the i32 range (int64 sum clamped).
  Check("v_add_i32 v3, v1, v2\n  v_add_i32 v4, v1, v2 clamp", [](uint32_t x, uint32_t y, int) {
    const int64_t sum = int64_t{static_cast<int32_t>(x)} + static_cast<int32_t>(y);
    const int64_t sat = std::min<int64_t>(std::max<int64_t>(sum, INT32_MIN), INT32_MAX);
    return Out{x + y, static_cast<uint32_t>(static_cast<int32_t>(sat))};
  });
  Check("v_add_i32 v3, s7, v2 clamp\n  v_add_u32_e64 v4, v1, v2 clamp", [](uint32_t x, uint32_t y, int) {
    const int64_t sum = int64_t{0x12345678} + static_cast<int32_t>(y);
    const uint64_t usum = uint64_t{x} + y;
    return Out{static_cast<uint32_t>(static_cast<int32_t>(std::min<int64_t>(sum, INT32_MAX))),
               static_cast<uint32_t>(std::min<uint64_t>(usum, 0xffffffffu))};
  });
  // Hand-picked: INT32_MAX + 1 -> INT32_MAX, INT32_MIN + -1 -> INT32_MIN.
  Check("v_mov_b32 v12, 0x7fffffff\n  v_add_i32 v3, v12, 1 clamp\n  v_mov_b32 v12, 0x80000000\n"
        "  v_add_i32 v4, v12, -1 clamp",
        [](uint32_t, uint32_t, int) { return Out{0x7fffffffu, 0x80000000u}; });
}

// SDWA selects (semantics.h SdwaSource/SdwaDest), values worked out by hand
// from v12 = 0x8091a2b3 (bytes b3..b0 = 80 91 a2 b3) and v13 = 0x00020003.
TEST(InstructionsTest, SdwaSelects) {
  const std::string init = "v_mov_b32 v12, 0x8091a2b3\n  v_mov_b32 v13, 0x00020003\n  ";
  // Source selects: BYTE_1 zero-extended = 0xa2; BYTE_2 sign-extended = 0x91 -> 0xffffff91.
  Check(init + "v_mov_b32_sdwa v3, v12 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1\n"
               "  v_mov_b32_sdwa v4, sext(v12) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_2",
        [](uint32_t, uint32_t, int) { return Out{0xa2u, 0xffffff91u}; });
  // WORD_1 = 0x8091; sext(WORD_1) + sext(BYTE_0 of v13 = 3) = 0xffff8091 + 3.
  Check(init + "v_mov_b32_sdwa v3, v12 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1\n"
               "  v_add_u32_sdwa v4, sext(v12), sext(v13) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 "
               "src1_sel:BYTE_0",
        [](uint32_t, uint32_t, int) { return Out{0x8091u, 0xffff8094u}; });
  // Destination: BYTE_3 of v12 (0x80) + WORD_0 of v13 (3) = 0x83 into byte 1
  // of v3 = 0x11223344, preserving the rest: 0x11228344; padded: 0x8300.
  Check(init + "v_mov_b32 v3, 0x11223344\n  v_mov_b32 v4, 0x11223344\n"
               "  v_add_u32_sdwa v3, v12, v13 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_3 "
               "src1_sel:WORD_0\n"
               "  v_add_u32_sdwa v4, v12, v13 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:WORD_0",
        [](uint32_t, uint32_t, int) { return Out{0x11228344u, 0x8300u}; });
  // UNUSED_SEXT: WORD_0 <- 0xa2b3 (bit 15 set) = 0xffffa2b3; BYTE_2 <- 0xb3
  // (bit 7 set): 0xffb30000 (zeros below the field, ones above).
  Check(init + "v_mov_b32_sdwa v3, v12 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:DWORD\n"
               "  v_mov_b32_sdwa v4, v12 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:DWORD",
        [](uint32_t, uint32_t, int) { return Out{0xffffa2b3u, 0xffb30000u}; });
  // clang-22's `(t + 1) & 255 | s`: the byte select on per-lane data.
  Check("v_add_u32_e32 v12, 1, v1\n  v_or_b32_sdwa v3, v12, s7 dst_sel:DWORD dst_unused:UNUSED_PAD "
        "src0_sel:BYTE_0 src1_sel:DWORD\n  v_mov_b32_sdwa v4, sext(v2) dst_sel:DWORD dst_unused:UNUSED_PAD "
        "src0_sel:WORD_0",
        [](uint32_t x, uint32_t y, int) {
          return Out{((x + 1) & 255) | 0x12345678u, static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(y)))};
        });
}

// Unsigned subtraction with clamp saturates at 0 (v_sub_u32: s0 - s1,
// v_subrev_u32: s1 - s0).
TEST(InstructionsTest, SaturatingSubs) {
  Check("v_sub_u32_e64 v3, v1, v2 clamp\n  v_subrev_u32_e64 v4, v1, v2 clamp", [](uint32_t x, uint32_t y, int) {
    return Out{x < y ? 0u : x - y, y < x ? 0u : y - x};
  });
  Check("v_mov_b32 v12, 5\n  v_sub_u32_e64 v3, v12, 7 clamp\n  v_sub_u32_e64 v4, v12, 2 clamp",
        [](uint32_t, uint32_t, int) { return Out{0u, 3u}; });
}

TEST(InstructionsTest, RcpIflag) {
  // 1/3 rounds to 0x3eaaaaab (0.333333343); 1/-0 = -inf; 1/4 = 0.25; 1/inf = 0.
  Check("v_mov_b32 v12, 0x40400000\n  v_rcp_iflag_f32 v3, v12\n  v_rcp_iflag_f32 v4, 0x80000000",
        [](uint32_t, uint32_t, int) { return Out{0x3eaaaaabu, 0xff800000u}; });
  Check("v_rcp_iflag_f32_e64 v3, 4.0\n  v_rcp_iflag_f32 v4, 0x7f800000",
        [](uint32_t, uint32_t, int) { return Out{0x3e800000u, 0}; });
}

// LLVM's 32-bit integer division (v_cvt_f32_u32, v_rcp_iflag_f32, then an
// integer correction) against the host's division and remainder.
TEST(InstructionsTest, LlvmIntegerDivisionUsesRcpIflag) {
  const char* kSrc = R"(
kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void divide(global const uint* a, global const uint* b, global uint* q, global int* r) {
  const uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  q[i] = a[i] / b[i];
  r[i] = (int)a[i] % (int)b[i];
})";
  for (const char* mcpu : {"gfx90a", "gfx942"}) {
    absl::StatusOr<std::string> hsaco = testing::CompileOpenCl(kSrc, mcpu);
    ASSERT_TRUE(hsaco.ok()) << hsaco.status();
    absl::StatusOr<std::string> dis = DisassembleSymbol(testing::kLlvmBin, *hsaco, "divide", mcpu);
    ASSERT_TRUE(dis.ok());
    ASSERT_NE(dis->find("v_rcp_iflag_f32"), std::string::npos) << *dis;
    std::vector<uint32_t> a(256), b(256);
    testing::Lcg r(41);
    const uint32_t edge[] = {0, 1, 7, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 12345};
    for (int i = 0; i < 256; ++i) {
      a[i] = i < 64 ? edge[i % 8] : r.Next();
      b[i] = i < 64 ? edge[(i / 8) % 8] | 1 : (r.Next() >> (r.Next() % 31)) | 1;  // never 0
    }
    LaunchArgs la;
    la.args = {ToBytes(a), ToBytes(b), ToBytes(std::vector<uint32_t>(256)), ToBytes(std::vector<int32_t>(256))};
    la.grid = {4, 1, 1};
    la.workgroup = {64, 1, 1};
    absl::StatusOr<EmuStats> s = RunCodeObject(testing::kLlvmBin, *hsaco, "divide", mcpu, la);
    ASSERT_TRUE(s.ok()) << s.status();
    const std::vector<uint32_t> q = FromBytes<uint32_t>(la.args[2]);
    const std::vector<int32_t> rem = FromBytes<int32_t>(la.args[3]);
    for (int i = 0; i < 256; ++i) {
      EXPECT_EQ(q[i], a[i] / b[i]) << mcpu << " " << a[i] << " / " << b[i];
      const int32_t sa = static_cast<int32_t>(a[i]), sb = static_cast<int32_t>(b[i]);
      if (sb != -1) EXPECT_EQ(rem[i], sa % sb) << mcpu << " " << sa << " % " << sb;  // INT_MIN % -1 is UB
    }
  }
}

// Global atomics, written by hand: one work-group of `waves` waves over
// `grid` work-groups, all adding to or swapping dword 0 (or 1) of `out`.
absl::StatusOr<std::vector<uint32_t>> RunAtomics(const std::string& body, const char* mcpu, int groups,
                                                 std::vector<uint32_t> out, bool object = false) {
  testing::HandKernel k;
  k.mcpu = mcpu;
  k.args = {"out:global_buffer", "ret:global_buffer"};
  k.body = absl::StrCat(R"(
  s_load_dwordx4 s[8:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  s_lshl_b32 s3, s2, 6
  v_add_u32 v1, s3, v0
  v_lshlrev_b32 v10, 2, v1
  v_mov_b32 v11, 0
  v_mov_b32 v12, 0
  v_add_u32 v2, 1, v0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v20, s8
  v_mov_b32 v21, s9
)", body, R"(
  s_waitcnt vmcnt(0)
  global_store_dword v10, v11, s[10:11]
  s_waitcnt vmcnt(0)
  s_endpgm)");
  LaunchArgs a;
  a.args = {ToBytes(out), ToBytes(std::vector<uint32_t>(64 * groups, 0xdddddddd))};
  a.grid = {groups, 1, 1};
  absl::StatusOr<EmuStats> s = testing::RunTextOrObject(k.Text(), mcpu, a, object);
  if (!s.ok()) return s.status();
  std::vector<uint32_t> r = FromBytes<uint32_t>(a.args[0]);
  std::vector<uint32_t> ret = FromBytes<uint32_t>(a.args[1]);
  r.insert(r.end(), ret.begin(), ret.end());  // out, then each work-item's returned value
  return r;
}

TEST(InstructionsTest, GlobalAtomicAddIsAtomicAcrossWorkgroups) {
  for (const char* mcpu : {"gfx908", "gfx90a", "gfx942"}) {
    SCOPED_TRACE(mcpu);
    const bool sc = std::string(mcpu) == "gfx942";
    // Without a return, v[20:21] = out: 4 work-groups x 64 lanes add lane + 1
    // to out[0] (strict mode: no race between atomics): 1000 + 4 * 2080.
    absl::StatusOr<std::vector<uint32_t>> r =
        RunAtomics("  global_atomic_add v[20:21], v2, off", mcpu, 4, {1000, 0});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ((*r)[0], 1000u + 4 * 2080u);
    // With the return (glc, sc0 on gfx942), saddr form, offset 4: every
    // work-item adds 1 to out[1]; the values returned are 0..255 in some
    // order, each once, and out[1] ends at 256.
    for (bool object : {false, true}) {
      r = RunAtomics(absl::StrCat("  v_mov_b32 v3, 1\n  global_atomic_add v11, v12, v3, s[8:9] offset:4 ",
                                  sc ? "sc0" : "glc"),
                     mcpu, 4, {0, 0}, object);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ((*r)[1], 256u);
      std::vector<uint32_t> got(r->begin() + 2, r->end());
      std::sort(got.begin(), got.end());
      for (uint32_t i = 0; i < 256; ++i) EXPECT_EQ(got[i], i);
    }
  }
}

TEST(InstructionsTest, GlobalAtomicCmpswap) {
  for (const char* mcpu : {"gfx90a", "gfx942"}) {
    SCOPED_TRACE(mcpu);
    // out[0] = 5; every lane swaps in 100 + lane if it still holds 5: exactly
    // one lane wins, its returned value is 5, every other lane's is the
    // winner's value, which out[0] holds at the end.
    absl::StatusOr<std::vector<uint32_t>> r = RunAtomics(
        absl::StrCat("  v_add_u32 v4, 100, v0\n  v_mov_b32 v5, 5\n  global_atomic_cmpswap v11, v[20:21], v[4:5], off ",
                     std::string(mcpu) == "gfx942" ? "sc0" : "glc"),
        mcpu, 1, {5, 0});
    ASSERT_TRUE(r.ok()) << r.status();
    const uint32_t final_value = (*r)[0];
    ASSERT_GE(final_value, 100u);
    ASSERT_LT(final_value, 164u);
    int winners = 0;
    for (int l = 0; l < 64; ++l) {
      const uint32_t got = (*r)[2 + l];
      if (got == 5) {
        ++winners;
        EXPECT_EQ(final_value, 100u + l);
      } else {
        EXPECT_EQ(got, final_value) << l;
      }
    }
    EXPECT_EQ(winners, 1);
    // Without a return, a compare that fails leaves memory alone.
    r = RunAtomics("  v_mov_b32 v4, 9\n  v_mov_b32 v5, 6\n  global_atomic_cmpswap v[20:21], v[4:5], off", mcpu, 2,
                   {5, 0});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ((*r)[0], 5u);
  }
}

TEST(InstructionsTest, GlobalAtomicAddF32) {
  // 64 lanes of 2 work-groups add 1.0: 128.0 in any order (exact). And a
  // denormal, 2^-140 (bits 0x200): gfx908/90a flush it (the sum stays +0),
  // gfx942 keeps it (TargetInfo::atomic_add_f32_denormals).
  for (const char* mcpu : {"gfx908", "gfx90a", "gfx942"}) {
    SCOPED_TRACE(mcpu);
    absl::StatusOr<std::vector<uint32_t>> r =
        RunAtomics("  v_mov_b32 v3, 1.0\n  global_atomic_add_f32 v[20:21], v3, off", mcpu, 2, {0, 0});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ((*r)[0], 0x43000000u);  // 128.0
    r = RunAtomics("  v_mov_b32 v3, 0x200\n  s_cmp_eq_u32 s2, 0\n  s_cbranch_scc0 .Lskip\n"
                   "  v_cmp_eq_u32_e32 vcc, 0, v0\n  s_and_saveexec_b64 s[12:13], vcc\n"
                   "  global_atomic_add_f32 v[20:21], v3, off\n  s_or_b64 exec, exec, s[12:13]\n.Lskip:",
                   mcpu, 1, {0, 0});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ((*r)[0], std::string(mcpu) == "gfx942" ? 0x200u : 0u);
  }
  // The returning form (gfx90a glc; gfx942 sc0): the old values 0.0 .. 63.0.
  for (const char* mcpu : {"gfx90a", "gfx942"}) {
    absl::StatusOr<std::vector<uint32_t>> r = RunAtomics(
        absl::StrCat("  v_mov_b32 v3, 1.0\n  global_atomic_add_f32 v11, v[20:21], v3, off ",
                     std::string(mcpu) == "gfx942" ? "sc0" : "glc"),
        mcpu, 1, {0, 0});
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<float> got;
    for (int l = 0; l < 64; ++l) got.push_back(F32((*r)[2 + l]));
    std::sort(got.begin(), got.end());
    for (int l = 0; l < 64; ++l) EXPECT_EQ(got[l], static_cast<float>(l));
  }
}

TEST(InstructionsTest, GlobalAtomicRacesWithPlainStoresOnly) {
  // Work-group 0 stores out[0] plainly, every work-item adds atomically:
  // a race (strict mode), naming both and the atomic.
  absl::StatusOr<std::vector<uint32_t>> r = RunAtomics(
      "  s_cmp_eq_u32 s2, 1\n  s_cbranch_scc0 .Ladd\n  global_store_dword v[20:21], v2, off\n.Ladd:\n"
      "  global_atomic_add v[20:21], v2, off",
      "gfx942", 2, {0, 0});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("global memory race: "), std::string::npos) << r.status();
  EXPECT_NE(std::string(r.status().message()).find("an atomic and a plain store to one byte by two work-items"),
            std::string::npos)
      << r.status();
  // A plain load of a byte atomics update is a compare-and-swap loop's first
  // guess: no race.
  r = RunAtomics("  global_load_dword v6, v[20:21], off\n  s_waitcnt vmcnt(0)\n  global_atomic_add v[20:21], v2, off",
                 "gfx942", 2, {0, 0});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0], 2 * 2080u);
  // Misaligned: refused, naming the lane and the address.
  r = RunAtomics("  v_add_co_u32 v20, vcc, 2, v20\n  global_atomic_add v[20:21], v2, off", "gfx942", 1, {0, 0});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("atomic address 0x"), std::string::npos) << r.status();
  EXPECT_NE(std::string(r.status().message()).find("is not 4-byte aligned"), std::string::npos) << r.status();
}

// clang-22's atomics (its atomic optimizer off: it would reduce over the
// wave with s_ff1_i32_b64, which is not emulated): a histogram
// (global_atomic_add without a return, many work-groups to one bin), a
// ticket counter (with the return), and an f32 sum (gfx90a in IEEE mode: a
// global_atomic_cmpswap loop starting from a scalar load; gfx942:
// global_atomic_add_f32), against host results.
TEST(InstructionsTest, ClangAtomics) {
  const char* kSrc = R"(
#define GID (__builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x())
kernel __attribute__((reqd_work_group_size(64, 1, 1))) void hist(global const uint* in, global uint* bins) {
  __atomic_fetch_add(&bins[in[GID] % 16], 1u, __ATOMIC_RELAXED);
}
kernel __attribute__((reqd_work_group_size(64, 1, 1))) void ticket(global uint* counter, global uint* out) {
  out[GID] = __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
}
kernel __attribute__((reqd_work_group_size(64, 1, 1))) void fsum(global const float* in, global float* sum) {
  __atomic_fetch_add(sum, in[GID], __ATOMIC_RELAXED);
})";
  for (const char* mcpu : {"gfx90a", "gfx942"}) {
    SCOPED_TRACE(mcpu);
    absl::StatusOr<std::string> hsaco =
        testing::CompileOpenCl(kSrc, mcpu, {"-mllvm", "-amdgpu-atomic-optimizer-strategy=None"});
    ASSERT_TRUE(hsaco.ok()) << hsaco.status();
    absl::StatusOr<std::string> dis = DisassembleSymbol(testing::kLlvmBin, *hsaco, "fsum", mcpu);
    ASSERT_TRUE(dis.ok());
    EXPECT_NE(dis->find(std::string(mcpu) == "gfx942" ? "global_atomic_add_f32" : "global_atomic_cmpswap"),
              std::string::npos)
        << *dis;
    const int n = 512;
    std::vector<uint32_t> in(n);
    testing::Lcg r(5);
    std::vector<uint32_t> want(16, 0);
    for (auto& x : in) {
      x = r.Next();
      ++want[x % 16];
    }
    LaunchArgs la;
    la.args = {ToBytes(in), ToBytes(std::vector<uint32_t>(16, 0))};
    la.grid = {n / 64, 1, 1};
    absl::StatusOr<EmuStats> s = RunCodeObject(testing::kLlvmBin, *hsaco, "hist", mcpu, la);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(FromBytes<uint32_t>(la.args[1]), want);
    la.args = {ToBytes(std::vector<uint32_t>(1, 0)), ToBytes(std::vector<uint32_t>(n, 0))};
    s = RunCodeObject(testing::kLlvmBin, *hsaco, "ticket", mcpu, la);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(FromBytes<uint32_t>(la.args[0])[0], static_cast<uint32_t>(n));
    std::vector<uint32_t> tickets = FromBytes<uint32_t>(la.args[1]);
    std::sort(tickets.begin(), tickets.end());
    for (int i = 0; i < n; ++i) EXPECT_EQ(tickets[i], static_cast<uint32_t>(i));
    std::vector<float> f(n);
    for (int i = 0; i < n; ++i) f[i] = static_cast<float>(i % 97);  // integers: every order sums exactly
    double total = 0;
    for (float x : f) total += x;
    la.args = {ToBytes(f), ToBytes(std::vector<float>(1, 0.0f))};
    s = RunCodeObject(testing::kLlvmBin, *hsaco, "fsum", mcpu, la);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(FromBytes<float>(la.args[1])[0], static_cast<float>(total));
  }
}

TEST(FloatMathTest, NaNsAreQuietedWithTheirPayload) {
  // Bits worked out by hand: quiet bit 0x0200 set, the top 9 payload bits kept.
  EXPECT_EQ(RoundToF16(F16ToDouble(0x7e77)), 0x7e77);  // a quiet NaN passes through
  EXPECT_EQ(RoundToF16(F16ToDouble(0x7c01)), 0x7e01);  // a signalling NaN is quieted
  EXPECT_EQ(RoundToF16(F16ToDouble(0xfd55)), 0xff55);
  float f;
  const uint32_t f32s[] = {0x7fcee000u, 0x7fc00000u, 0x7f800001u, 0xffbfffffu};
  const uint16_t want[] = {0x7e77, 0x7e00, 0x7e00, 0xffff};
  for (int i = 0; i < 4; ++i) {
    std::memcpy(&f, &f32s[i], 4);
    EXPECT_EQ(RoundToF16(f), want[i]) << std::hex << f32s[i];
    EXPECT_EQ(F32ToF16Rtz(f), want[i]) << std::hex << f32s[i];
  }
  double x[3] = {1.0, F16ToDouble(0x7e12), F16ToDouble(0x7e34)}, nan = 0;
  ASSERT_TRUE(FirstNaN(x, 3, &nan));
  EXPECT_EQ(NaNToF16(nan), 0x7e12);
  EXPECT_FALSE(FirstNaN(x, 1, &nan));
}

TEST(FloatMathTest, SingleRounding) {
  // 1 + 2^-11 is halfway between f16 1.0 and 1.0009765625.
  const double mid = 1.0 + std::ldexp(1.0, -11);
  EXPECT_EQ(RoundToF16(mid), 0x3c00);                           // ties to even
  EXPECT_EQ(RoundToF16(mid, std::ldexp(1.0, -60)), 0x3c01);     // just above
  EXPECT_EQ(RoundToF16(mid, -std::ldexp(1.0, -60)), 0x3c00);    // just below
  EXPECT_EQ(RoundToF16(-mid, -std::ldexp(1.0, -60)), 0xbc01);
  EXPECT_EQ(RoundToF16(65520.0), 0x7c00);
  EXPECT_EQ(RoundToF16(65519.99), 0x7bff);
  EXPECT_EQ(RoundToF16(std::ldexp(1.0, -25)), 0x0000);          // half the smallest denormal: even
  EXPECT_EQ(RoundToF16(std::ldexp(3.0, -26)), 0x0001);
  EXPECT_EQ(FmaToF16(1.0, 1.0, std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(FmaToF16(1.0 + std::ldexp(1.0, -23), 1.0, std::ldexp(1.0, -11)), 0x3c01);
  for (uint32_t h = 0; h < 0x7c00; ++h) {  // every finite f16 round-trips
    EXPECT_EQ(RoundToF16(F16ToDouble(static_cast<uint16_t>(h))), h);
    EXPECT_EQ(F16ToDouble(static_cast<uint16_t>(h)), F16BitsToF32(static_cast<uint16_t>(h)));
  }
  const float a = 1.0f + 0x1p-23f;  // f32 tie resolved by the residual
  EXPECT_EQ(RoundToF32(1.0 + 0x1p-24, 1e-30), a);
  EXPECT_EQ(RoundToF32(1.0 + 0x1p-24, -1e-30), 1.0f);
  EXPECT_EQ(RoundToF32(1.0 + 0x1p-24), 1.0f);
  // The overflow thresholds are ties too: halfway between the largest finite
  // value and the next power of two, an exact value just below them is the
  // largest finite value (v_fma_mix_f32 / v_fma_mixlo_f16 of f32 operands:
  // (2^25 - 1) * 2^103 = (18631 * 2^103) * 1801 and a tiny negative addend).
  EXPECT_EQ(RoundToF32(0x1.ffffffp+127, -0x1p-149), FLT_MAX);
  EXPECT_EQ(RoundToF32(-0x1.ffffffp+127, 0x1p-149), -FLT_MAX);
  EXPECT_EQ(RoundToF32(0x1.ffffffp+127, 0x1p-149), INFINITY);
  EXPECT_EQ(RoundToF32(0x1.ffffffp+127), INFINITY);
  EXPECT_EQ(FmaToF32(18631.0 * 0x1p103, 1801.0, -0x1p-149), FLT_MAX);
  EXPECT_EQ(RoundToF16(65520.0, -std::ldexp(1.0, -40)), 0x7bff);
  EXPECT_EQ(RoundToF16(-65520.0, std::ldexp(1.0, -40)), 0xfbff);
  EXPECT_EQ(RoundToF16(65520.0, std::ldexp(1.0, -40)), 0x7c00);
  EXPECT_EQ(FmaToF16(65520.0, 1.0, -0x1p-149), 0x7bff);
}

// fp8 conversions on gfx942 (FNUZ formats; compiler/isa/semantics.h), with
// values worked out by hand from the formats (compiler/ir/types.h):
// f8e4m3fnuz 0x40 = 2^(8-8) = 1.0, 0x7f = 1.875 * 2^7 = 240, 0xff = -240,
// 0x80 = NaN; f8e5m2fnuz 0x40 = 2^(16-16) = 1.0, 0x7f = 1.75 * 2^15 = 57344,
// 0x01 = 0.25 * 2^-15 = 2^-17.
TEST(InstructionsTest, Fp8ToF32) {
  // Bytes 0x40, 0x7f, 0xff, 0x80 (byte 0 first).
  Check("v_mov_b32 v1, 0x80ff7f40\n  v_cvt_f32_fp8 v3, v1\n  v_cvt_f32_fp8_sdwa v4, v1 src0_sel:BYTE_1",
        [](uint32_t, uint32_t, int) { return Out{0x3f800000u /*1.0*/, 0x43700000u /*240*/}; });
  Check("v_mov_b32 v1, 0x80ff7f40\n  v_cvt_f32_fp8_sdwa v3, v1 src0_sel:BYTE_2\n"
        "  v_cvt_f32_fp8_sdwa v4, v1 src0_sel:BYTE_3",
        [](uint32_t, uint32_t, int) { return Out{0xc3700000u /*-240*/, 0x7fc00000u /*NaN*/}; });
  Check("v_mov_b32 v1, 0x80ff7f40\n  v_cvt_pk_f32_bf8 v[3:4], v1",
        [](uint32_t, uint32_t, int) { return Out{0x3f800000u /*1.0*/, 0x47600000u /*57344*/}; });
  // Bytes 2 and 3 through a shift (kirc's lowering): 0xff = -57344, 0x80 = NaN.
  Check("v_mov_b32 v1, 0x80ff7f40\n  v_lshrrev_b32 v2, 16, v1\n  v_cvt_pk_f32_bf8 v[3:4], v2",
        [](uint32_t, uint32_t, int) { return Out{0xc7600000u, 0x7fc00000u}; });
  Check("v_mov_b32 v1, 0x01\n  v_cvt_f32_bf8 v3, v1\n  v_cvt_f32_fp8 v4, v1",
        [](uint32_t, uint32_t, int) { return Out{0x37000000u /*2^-17*/, 0x3a800000u /*2^-10*/}; });
}

TEST(InstructionsTest, F32ToFp8) {
  // v1 = 1.0 -> 0x40, v2 = 240.0 -> 0x7f: word 0 = 0x7f40, word 1 kept (0).
  // Then the word-1 form: -1.1875 lies halfway between -1.125 (0xc1) and
  // -1.25 (0xc2): even -> 0xc2; 1.0625 halfway between 1.0 (0x40) and 1.125
  // (0x41) -> 0x40: word 1 = 0x40c2, word 0 kept.
  Check("v_mov_b32 v1, 1.0\n  v_mov_b32 v2, 0x43700000\n  v_cvt_pk_fp8_f32 v3, v1, v2\n"
        "  v_mov_b32 v1, 0xbf980000\n  v_mov_b32 v2, 0x3f880000\n  v_cvt_pk_fp8_f32 v3, v1, v2 op_sel:[0,0,1]\n"
        "  v_mov_b32 v4, -1\n  v_cvt_pk_fp8_f32 v4, v2, v1",
        [](uint32_t, uint32_t, int) { return Out{0x40c27f40u, 0xffffc240u}; });
  // bf8: 57344 -> 0x7f, 2^-17 -> 0x01; -0.0 -> 0x00 (FNUZ has no -0), NaN -> 0x80;
  // neg modifier: -(57344) -> 0xff, 2^-18 (half the min subnormal: tie to even 0) -> 0x00.
  Check("v_mov_b32 v1, 0x47600000\n  v_mov_b32 v2, 0x37000000\n  v_cvt_pk_bf8_f32 v3, v1, v2\n"
        "  v_mov_b32 v1, 0x80000000\n  v_mov_b32 v2, 0x7fc00000\n  v_cvt_pk_bf8_f32 v3, v1, v2 op_sel:[0,0,1]\n"
        "  v_mov_b32 v1, 0x47600000\n  v_mov_b32 v2, 0x36800000\n  v_cvt_pk_bf8_f32 v4, -v1, v2",
        [](uint32_t, uint32_t, int) { return Out{0x8000017fu, 0x000000ffu}; });
}

// Outside the format's range the hardware's result is not known (no clamp
// bit on gfx942 nor gfx950): the emulator refuses, naming the lane and the
// value. An infinity is refused as a value whose result is not documented,
// not as a magnitude beyond the range (review 21 F6: f8e5m2 has
// infinities).
TEST(InstructionsTest, F32ToFp8OutOfRangeRefused) {
  struct Case {
    const char *mcpu, *value, *cvt, *says;
  } cases[] = {
      {"gfx942", "0x43710000" /*241*/, "v_cvt_pk_fp8_f32", "converts 241 to f8e4m3fnuz, outside the format's range (|x| > 240)"},
      {"gfx942", "0x7f800000" /*inf*/, "v_cvt_pk_fp8_f32",
       "converts inf to f8e4m3fnuz: the instruction's result for an infinite input is not documented"},
      {"gfx950", "0xff800000" /*-inf*/, "v_cvt_pk_bf8_f32",
       "converts -inf to f8e5m2: the instruction's result for an infinite input is not documented"},
  };
  for (const Case& c : cases) {
    testing::HandKernel k;
    k.mcpu = c.mcpu;
    k.args = {"out:global_buffer"};
    k.body = absl::StrCat("  v_mov_b32 v1, ", c.value, "\n  ", c.cvt, " v2, v1, v1\n  s_endpgm");
    LaunchArgs a;
    a.args = {ToBytes(std::vector<uint32_t>(64))};
    absl::StatusOr<EmuStats> s = testing::RunTextOrObject(k.Text(), c.mcpu, a, false);
    ASSERT_FALSE(s.ok()) << c.value;
    EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr(c.says)) << s.status();
    EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr("lane 0 ")) << s.status();
  }
}

// gfx90a has no fp8 instructions: the emulator names the target (the reader
// takes the mnemonic; the target table says what it converts).
TEST(InstructionsTest, Fp8ConversionsRefusedWithoutFp8) {
  testing::HandKernel k;
  k.mcpu = "gfx90a";
  k.args = {"out:global_buffer"};
  k.body = "  v_mov_b32 v1, 1.0\n  v_cvt_pk_fp8_f32 v2, v1, v1\n  s_endpgm";
  LaunchArgs a;
  a.args = {ToBytes(std::vector<uint32_t>(64))};
  absl::StatusOr<EmuStats> s = testing::RunTextOrObject(k.Text(), "gfx90a", a, false);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              ::testing::HasSubstr("gfx90a has no fp8 conversion instructions (no fp8 types)"));
}

}  // namespace
}  // namespace kir::emu
