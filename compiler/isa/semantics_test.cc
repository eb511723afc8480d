// Table tests of the integer/bit instruction semantics (semantics.h) in the
// uint32_t domain. Expected values are computed here independently, with
// 64-bit host arithmetic, at the edge values 0, 1, 2^31-1, 2^31, 2^32-1 and
// shift amounts 0, 31, 32, 33 (the hardware reads only the low 5 bits).
#include "compiler/isa/semantics.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kir {
namespace {

const uint32_t kEdges[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu};
const uint32_t kShifts[] = {0u, 31u, 32u, 33u};

uint32_t Eval(Opc opc, std::vector<uint32_t> s) {
  std::optional<uint32_t> r = EvalIntOp(U32Domain{}, opc, s);
  EXPECT_TRUE(r.has_value()) << Info(opc).mnemonic;
  return r.value_or(0xdeadbeefu);
}
uint32_t Flag(Opc opc, std::vector<uint32_t> s) {
  std::optional<uint32_t> r = EvalIntOp(U32Domain{}, opc, s);
  std::optional<uint32_t> f = EvalFlagOut(U32Domain{}, opc, s, r.value_or(0));
  EXPECT_TRUE(f.has_value()) << Info(opc).mnemonic;
  return f.value_or(0xdeadbeefu);
}
int64_t S(uint32_t v) { return static_cast<int32_t>(v); }
uint32_t U(int64_t v) { return static_cast<uint32_t>(v); }

// Every pair of edge values through a binary op against a reference.
void CheckBinary(Opc opc, const std::function<uint32_t(uint32_t, uint32_t)>& ref) {
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges)
      EXPECT_EQ(Eval(opc, {a, b}), ref(a, b))
          << Info(opc).mnemonic << " " << std::hex << a << ", " << b;
}

TEST(SemanticsTest, AddSubMulWrap) {
  CheckBinary(Opc::kVAddU32, [](uint32_t a, uint32_t b) { return U(uint64_t{a} + b); });
  CheckBinary(Opc::kSAddU32, [](uint32_t a, uint32_t b) { return U(uint64_t{a} + b); });
  CheckBinary(Opc::kVSubU32, [](uint32_t a, uint32_t b) { return U(int64_t{a} - b); });
  // rev: the second source minus the first.
  CheckBinary(Opc::kVSubrevU32, [](uint32_t a, uint32_t b) { return U(int64_t{b} - a); });
  CheckBinary(Opc::kVMulLoU32, [](uint32_t a, uint32_t b) { return U(uint64_t{a} * b); });
  CheckBinary(Opc::kSMulI32, [](uint32_t a, uint32_t b) { return U(uint64_t{a} * b); });
}

TEST(SemanticsTest, MulHi) {
  CheckBinary(Opc::kVMulHiU32, [](uint32_t a, uint32_t b) { return U((uint64_t{a} * b) >> 32); });
  CheckBinary(Opc::kSMulHiU32, [](uint32_t a, uint32_t b) { return U((uint64_t{a} * b) >> 32); });
  CheckBinary(Opc::kVMulHiI32, [](uint32_t a, uint32_t b) { return U((S(a) * S(b)) >> 32); });
  CheckBinary(Opc::kSMulHiI32, [](uint32_t a, uint32_t b) { return U((S(a) * S(b)) >> 32); });
  EXPECT_EQ(Eval(Opc::kVMulHiU32, {0xffffffffu, 0xffffffffu}), 0xfffffffeu);
  EXPECT_EQ(Eval(Opc::kVMulHiI32, {0xffffffffu, 0xffffffffu}), 0u);       // (-1)*(-1) = 1
  EXPECT_EQ(Eval(Opc::kVMulHiI32, {0x80000000u, 0x80000000u}), 0x40000000u);
}

TEST(SemanticsTest, U24AndI24) {
  auto u24 = [](uint32_t v) { return uint64_t{v & 0xffffffu}; };
  auto i24 = [](uint32_t v) { return static_cast<int64_t>(static_cast<int32_t>(v << 8) >> 8); };
  CheckBinary(Opc::kVMulU32U24, [&](uint32_t a, uint32_t b) { return U(u24(a) * u24(b)); });
  CheckBinary(Opc::kVMulHiU32U24, [&](uint32_t a, uint32_t b) { return U((u24(a) * u24(b)) >> 32); });
  CheckBinary(Opc::kVMulI32I24, [&](uint32_t a, uint32_t b) { return U(i24(a) * i24(b)); });
  CheckBinary(Opc::kVMulHiI32I24, [&](uint32_t a, uint32_t b) { return U((i24(a) * i24(b)) >> 32); });
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges)
      for (uint32_t c : kEdges) {
        EXPECT_EQ(Eval(Opc::kVMadU32U24, {a, b, c}), U(u24(a) * u24(b) + c));
        EXPECT_EQ(Eval(Opc::kVMadI32I24, {a, b, c}), U(i24(a) * i24(b) + c));
      }
  // 2^24 does not fit: the u24 forms drop bit 24 (failure class 2).
  EXPECT_EQ(Eval(Opc::kVMulU32U24, {0x1000000u, 3u}), 0u);
  EXPECT_EQ(Eval(Opc::kVMulU32U24, {0xffffffu, 0xffffffu}), U(uint64_t{0xffffff} * 0xffffff));
}

TEST(SemanticsTest, BitwiseAndMinMax) {
  CheckBinary(Opc::kVAndB32, [](uint32_t a, uint32_t b) { return a & b; });
  CheckBinary(Opc::kVOrB32, [](uint32_t a, uint32_t b) { return a | b; });
  CheckBinary(Opc::kVXorB32, [](uint32_t a, uint32_t b) { return a ^ b; });
  CheckBinary(Opc::kSAndn2B32, [](uint32_t a, uint32_t b) { return a & ~b; });
  CheckBinary(Opc::kSOrn2B32, [](uint32_t a, uint32_t b) { return a | ~b; });
  CheckBinary(Opc::kVMaxU32, [](uint32_t a, uint32_t b) { return a > b ? a : b; });
  CheckBinary(Opc::kVMinU32, [](uint32_t a, uint32_t b) { return a < b ? a : b; });
  CheckBinary(Opc::kVMaxI32, [](uint32_t a, uint32_t b) { return S(a) > S(b) ? a : b; });
  CheckBinary(Opc::kSMinI32, [](uint32_t a, uint32_t b) { return S(a) < S(b) ? a : b; });
  for (uint32_t a : kEdges) {
    EXPECT_EQ(Eval(Opc::kVNotB32, {a}), ~a);
    EXPECT_EQ(Eval(Opc::kVBcntU32B32, {a, 5u}), static_cast<uint32_t>(__builtin_popcount(a)) + 5u);
  }
}

// v_min3/v_max3/v_med3 _i32/_u32 against sorting the three values (the
// median is the middle one), every triple of edge values.
TEST(SemanticsTest, ThreeSourceMinMaxMedian) {
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges)
      for (uint32_t c : kEdges) {
        int64_t s[3] = {S(a), S(b), S(c)};
        uint32_t u[3] = {a, b, c};
        std::sort(s, s + 3);
        std::sort(u, u + 3);
        EXPECT_EQ(Eval(Opc::kVMin3I32, {a, b, c}), U(s[0]));
        EXPECT_EQ(Eval(Opc::kVMed3I32, {a, b, c}), U(s[1])) << std::hex << a << " " << b << " " << c;
        EXPECT_EQ(Eval(Opc::kVMax3I32, {a, b, c}), U(s[2]));
        EXPECT_EQ(Eval(Opc::kVMin3U32, {a, b, c}), u[0]);
        EXPECT_EQ(Eval(Opc::kVMed3U32, {a, b, c}), u[1]) << std::hex << a << " " << b << " " << c;
        EXPECT_EQ(Eval(Opc::kVMax3U32, {a, b, c}), u[2]);
      }
}

// The float forms' IEEE-mode rules on bits (ISA guide V_MIN_F32 etc.):
// a signalling NaN comes out quieted, a quiet NaN loses to a number, -0 is
// below +0; med3 of a NaN is min3. f16 alike (quiet bit 0x200).
TEST(SemanticsTest, IeeeMinMaxBits) {
  const FloatBitsFormat f = FloatBitsFormat::kF32, h = FloatBitsFormat::kF16;
  EXPECT_EQ(IeeeMinMaxBits(f, 0x7f800001u, 0x3f800000u, false), 0x7fc00001u);  // sNaN, 1 -> qNaN
  EXPECT_EQ(IeeeMinMaxBits(f, 0x3f800000u, 0xff800002u, true), 0xffc00002u);   // 1, -sNaN -> -qNaN
  EXPECT_EQ(IeeeMinMaxBits(f, 0x7fc00000u, 0x3f800000u, false), 0x3f800000u);  // qNaN, 1 -> 1
  EXPECT_EQ(IeeeMinMaxBits(f, 0x3f800000u, 0x7fc00000u, true), 0x3f800000u);   // 1, qNaN -> 1
  EXPECT_EQ(IeeeMinMaxBits(f, 0x7fc00000u, 0x7fc00001u, false), 0x7fc00000u);  // two quiet: src0
  EXPECT_EQ(IeeeMinMaxBits(f, 0x00000000u, 0x80000000u, false), 0x80000000u);  // min(+0, -0) = -0
  EXPECT_EQ(IeeeMinMaxBits(f, 0x80000000u, 0x00000000u, true), 0x00000000u);   // max(-0, +0) = +0
  EXPECT_EQ(Med3Bits(f, 0x7fc00000u, 0xc3e00000u, 0x43e00000u), 0xc3e00000u);  // med3(NaN, -448, 448) = -448
  EXPECT_EQ(Med3Bits(f, 0x43fa0000u, 0xc3e00000u, 0x43e00000u), 0x43e00000u);  // med3(500, -448, 448) = 448
  EXPECT_EQ(Min3Bits(h, 0x7c01u, 0x3c00u, 0x4000u), 0x4000u);  // min(min(sNaN, 1) = qNaN, 2) = 2
  EXPECT_EQ(Max3Bits(h, 0x3c00u, 0xc000u, 0x7e00u), 0x3c00u);  // max(max(1, -2), qNaN) = 1
  EXPECT_EQ(Med3Bits(h, 0x4200u, 0x3c00u, 0x4000u), 0x4000u);  // med3(3, 1, 2) = 2
  // bf16 pairs: 1 + 2^-8 ties to even (0x3f80), pi rounds down (0x4049).
  EXPECT_EQ(CvtPkBf16F32(1.00390625f, 3.14159274f), 0x40493f80u);
}

TEST(SemanticsTest, ShiftsUseLowFiveBits) {
  for (uint32_t x : kEdges)
    for (uint32_t s : kShifts) {
      uint32_t a = s % 32;  // the hardware's amount
      // rev forms: the amount is the FIRST source.
      EXPECT_EQ(Eval(Opc::kVLshlrevB32, {s, x}), U(uint64_t{x} << a)) << x << " " << s;
      EXPECT_EQ(Eval(Opc::kVLshrrevB32, {s, x}), x >> a);
      EXPECT_EQ(Eval(Opc::kVAshrrevI32, {s, x}), U(S(x) >> a));
      // SALU forms are not reversed.
      EXPECT_EQ(Eval(Opc::kSLshlB32, {x, s}), U(uint64_t{x} << a));
      EXPECT_EQ(Eval(Opc::kSLshrB32, {x, s}), x >> a);
      EXPECT_EQ(Eval(Opc::kSAshrI32, {x, s}), U(S(x) >> a));
      EXPECT_EQ(Eval(Opc::kVLshlAddU32, {x, s, 7u}), U((uint64_t{x} << a) + 7));
      EXPECT_EQ(Eval(Opc::kVLshlOrB32, {x, s, 1u}), U(uint64_t{x} << a) | 1u);
      EXPECT_EQ(Eval(Opc::kVAddLshlU32, {x, 1u, s}), U(uint64_t{U(uint64_t{x} + 1)} << a));
    }
  EXPECT_EQ(Eval(Opc::kVLshlrevB32, {33u, 1u}), 2u);  // notes 7: shifts by 1
}

TEST(SemanticsTest, ThreeSourceOps) {
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges)
      for (uint32_t c : kEdges) {
        EXPECT_EQ(Eval(Opc::kVAdd3U32, {a, b, c}), U(uint64_t{a} + b + c));
        EXPECT_EQ(Eval(Opc::kVOr3B32, {a, b, c}), a | b | c);
        EXPECT_EQ(Eval(Opc::kVAndOrB32, {a, b, c}), (a & b) | c);
        EXPECT_EQ(Eval(Opc::kVBfiB32, {a, b, c}), (a & b) | (~a & c));
        uint64_t cat = (uint64_t{a} << 32) | b;
        EXPECT_EQ(Eval(Opc::kVAlignbitB32, {a, b, c}), U(cat >> (c & 31)));
        EXPECT_EQ(Eval(Opc::kVAlignbyteB32, {a, b, c}), U(cat >> (8 * (c & 3))));
      }
}

TEST(SemanticsTest, BitFieldExtract) {
  auto ubfe = [](uint32_t x, uint32_t off, uint32_t w) -> uint32_t {
    off &= 31;
    w &= 31;
    if (w == 0) return 0;
    return static_cast<uint32_t>((uint64_t{x} >> off) & ((uint64_t{1} << w) - 1));
  };
  auto sbfe = [](uint32_t x, uint32_t off, uint32_t w) -> uint32_t {
    off &= 31;
    w &= 31;
    if (w == 0) return 0;
    int64_t t = static_cast<int64_t>(static_cast<int32_t>(x)) >> off;  // sign bits above bit 31
    uint64_t field = static_cast<uint64_t>(t) & ((uint64_t{1} << w) - 1);
    if (field >> (w - 1) & 1) field |= ~((uint64_t{1} << w) - 1);
    return static_cast<uint32_t>(field);
  };
  const uint32_t xs[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0x12345678u};
  for (uint32_t x : xs)
    for (uint32_t off : {0u, 1u, 4u, 31u, 32u, 33u})
      for (uint32_t w : {0u, 1u, 4u, 31u, 32u, 33u}) {
        EXPECT_EQ(Eval(Opc::kVBfeU32, {x, off, w}), ubfe(x, off, w)) << x << " " << off << " " << w;
        EXPECT_EQ(Eval(Opc::kVBfeI32, {x, off, w}), sbfe(x, off, w)) << x << " " << off << " " << w;
        uint32_t packed = (off & 31) | ((w & 0x7f) << 16);
        EXPECT_EQ(Eval(Opc::kSBfeU32, {x, packed}), ubfe(x, off, w));
      }
  EXPECT_EQ(Eval(Opc::kVBfeU32, {0x12345678u, 8u, 8u}), 0x56u);
  EXPECT_EQ(Eval(Opc::kVBfeI32, {0x0000f000u, 12u, 4u}), 0xffffffffu);
  EXPECT_EQ(Eval(Opc::kVBfmB32, {4u, 8u}), 0xf00u);
}

TEST(SemanticsTest, Perm) {
  // Byte selectors 0..7 pick bytes of {s0, s1} (s1 is bytes 0..3); 12 gives
  // 0x00, 13+ gives 0xff; 8..11 replicate sign bits 15, 31 of s1 and of s0.
  uint32_t s0 = 0x8899aabbu, s1 = 0x11223344u;
  EXPECT_EQ(Eval(Opc::kVPermB32, {s0, s1, 0x03020100u}), s1);
  EXPECT_EQ(Eval(Opc::kVPermB32, {s0, s1, 0x07060504u}), s0);
  EXPECT_EQ(Eval(Opc::kVPermB32, {s0, s1, 0x00010203u}), 0x44332211u);
  EXPECT_EQ(Eval(Opc::kVPermB32, {s0, s1, 0x0c0d0400u}), 0x00ffbb44u);
  EXPECT_EQ(Eval(Opc::kVPermB32, {s0, s1, 0x0b0a0908u}), 0xffff0000u);
}

TEST(SemanticsTest, CarriesAndScc) {
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges) {
      uint64_t sum = uint64_t{a} + b;
      EXPECT_EQ(Flag(Opc::kSAddU32, {a, b}), sum >> 32);
      EXPECT_EQ(Flag(Opc::kVAddCoU32, {a, b}), sum >> 32);
      EXPECT_EQ(Flag(Opc::kSSubU32, {a, b}), a < b ? 1u : 0u);
      EXPECT_EQ(Flag(Opc::kVSubrevCoU32, {a, b}), b < a ? 1u : 0u);
      for (uint32_t c : {0u, 1u}) {
        uint64_t s3 = uint64_t{a} + b + c;
        EXPECT_EQ(Eval(Opc::kSAddcU32, {a, b, c}), U(s3));
        EXPECT_EQ(Flag(Opc::kSAddcU32, {a, b, c}), s3 >> 32);
        EXPECT_EQ(Flag(Opc::kVAddcCoU32, {a, b, c}), s3 >> 32);
        int64_t d3 = int64_t{a} - b - c;
        EXPECT_EQ(Eval(Opc::kVSubbCoU32, {a, b, c}), U(d3));
        EXPECT_EQ(Flag(Opc::kVSubbCoU32, {a, b, c}), d3 < 0 ? 1u : 0u);
        EXPECT_EQ(Flag(Opc::kSSubbU32, {a, b, c}), d3 < 0 ? 1u : 0u);
      }
      int64_t ss = S(a) + S(b), sd = S(a) - S(b);
      EXPECT_EQ(Flag(Opc::kSAddI32, {a, b}), (ss > INT32_MAX || ss < INT32_MIN) ? 1u : 0u);
      EXPECT_EQ(Flag(Opc::kSSubI32, {a, b}), (sd > INT32_MAX || sd < INT32_MIN) ? 1u : 0u);
      EXPECT_EQ(Flag(Opc::kSAndB32, {a, b}), (a & b) != 0 ? 1u : 0u);
      EXPECT_EQ(Flag(Opc::kSLshl2AddU32, {a, b}), ((uint64_t{a} << 2) + b) >> 32 ? 1u : 0u);
    }
  EXPECT_FALSE(EvalFlagOut(U32Domain{}, Opc::kSMulI32, {2u, 3u}, 6u).has_value());
}

TEST(SemanticsTest, Compares) {
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges) {
      EXPECT_EQ(Eval(Opc::kVCmpGtU32, {a, b}), a > b ? 1u : 0u);
      EXPECT_EQ(Eval(Opc::kVCmpLtU32, {a, b}), a < b ? 1u : 0u);
      EXPECT_EQ(Eval(Opc::kVCmpGeU32, {a, b}), a >= b ? 1u : 0u);
      EXPECT_EQ(Eval(Opc::kVCmpLeI32, {a, b}), S(a) <= S(b) ? 1u : 0u);
      EXPECT_EQ(Eval(Opc::kVCmpGtI32, {a, b}), S(a) > S(b) ? 1u : 0u);
      EXPECT_EQ(Eval(Opc::kVCmpNeU32, {a, b}), a != b ? 1u : 0u);
      EXPECT_EQ(Eval(Opc::kSCmpLtI32, {a, b}), S(a) < S(b) ? 1u : 0u);
      EXPECT_EQ(Flag(Opc::kSCmpEqU32, {a, b}), a == b ? 1u : 0u);
    }
}

TEST(SemanticsTest, Mbcnt) {
  // Lane 5: lanes below are bits 0..4.
  EXPECT_EQ(Eval(Opc::kVMbcntLoU32B32, {0xffffffffu, 0u, 0x1fu}), 5u);
  EXPECT_EQ(Eval(Opc::kVMbcntLoU32B32, {0x0000000au, 100u, 0x1fu}), 102u);
}

uint64_t Wide(Opc opc, std::vector<uint64_t> s, uint32_t* flag = nullptr) {
  std::vector<Pair64<uint32_t>> p;
  for (uint64_t v : s) p.push_back({static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)});
  std::optional<Wide64<uint32_t>> w = EvalWideOp(U32Domain{}, opc, p);
  EXPECT_TRUE(w.has_value()) << Info(opc).mnemonic;
  if (!w) return 0;
  if (flag) *flag = w->has_flag ? w->flag : 0xdeadbeefu;
  return (uint64_t{w->hi} << 32) | w->lo;
}

TEST(SemanticsTest, SixtyFourBit) {
  const uint64_t xs[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x123456789abcdef0ull,
                         0x8000000000000000ull, ~0ull};
  for (uint64_t x : xs)
    for (uint32_t s : {0u, 1u, 31u, 32u, 33u, 63u, 64u, 65u}) {
      uint32_t a = s & 63;
      EXPECT_EQ(Wide(Opc::kVLshlrevB64, {s, x}), x << a) << std::hex << x << " " << s;
      EXPECT_EQ(Wide(Opc::kVLshrrevB64, {s, x}), x >> a) << std::hex << x << " " << s;
      EXPECT_EQ(Wide(Opc::kVAshrrevI64, {s, x}),
                static_cast<uint64_t>(static_cast<int64_t>(x) >> a));
      uint32_t scc = 0;
      EXPECT_EQ(Wide(Opc::kSLshlB64, {x, s}, &scc), x << a);
      EXPECT_EQ(scc, (x << a) != 0 ? 1u : 0u);
    }
  for (uint64_t x : xs)
    for (uint64_t y : xs) {
      for (uint32_t s : {0u, 1u, 2u, 4u})
        EXPECT_EQ(Wide(Opc::kVLshlAddU64, {x, s, y}), (x << s) + y);
      uint32_t lt = 0;
      Wide(Opc::kVCmpLtU64, {x, y}, &lt);
      EXPECT_EQ(lt, x < y ? 1u : 0u);
      Wide(Opc::kVCmpGtI64, {x, y}, &lt);
      EXPECT_EQ(lt, static_cast<int64_t>(x) > static_cast<int64_t>(y) ? 1u : 0u);
      EXPECT_EQ(Wide(Opc::kSAndn2B64, {x, y}), x & ~y);
    }
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges)
      for (uint64_t c : xs) {
        uint32_t carry = 0;
        unsigned __int128 exact = static_cast<unsigned __int128>(uint64_t{a} * b) + c;
        EXPECT_EQ(Wide(Opc::kVMadU64U32, {a, b, c}, &carry), static_cast<uint64_t>(exact));
        EXPECT_EQ(carry, static_cast<uint32_t>(exact >> 64));
      }
}

// LDS addresses: (vaddr + offset) mod 2^32 (LLVM's DS offset folding on
// gfx7+ relies on it). Expected values: 64-bit host sums reduced mod 2^32.
TEST(SemanticsTest, DsAddressWrapsModulo2To32) {
  MInst rd;
  rd.opc = Opc::kDsReadB32;
  rd.offset = 280;
  for (uint32_t t : {0u, 7u, 63u}) {
    const uint32_t vaddr = U(-4 * int64_t{t});
    EXPECT_EQ(DsAddress(U32Domain{}, vaddr, rd, 0), U(280 - 4 * int64_t{t})) << t;
  }
  MInst st64;  // ds_read2st64_b64: units of 64 * 8 bytes
  st64.opc = Opc::kDsRead2st64B64;
  st64.offset0 = 1;
  st64.offset1 = 255;
  EXPECT_EQ(DsAddress(U32Domain{}, 0xfffffe00u, st64, 0), 0u);
  EXPECT_EQ(DsAddress(U32Domain{}, 0xfffffe00u, st64, 1), U(int64_t{0xfffffe00} + 255 * 512));
  EXPECT_EQ(DsAddress(U32Domain{}, 0xffffffffu, rd, 0), 279u);
}

TEST(SemanticsTest, NotAnIntegerOp) {
  EXPECT_FALSE(EvalIntOp(U32Domain{}, Opc::kVAddF32, {1u, 2u}).has_value());
  EXPECT_FALSE(EvalWideOp(U32Domain{}, Opc::kVAddU32, {}).has_value());
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// SDWA selects on 0x8091a2b3 (bytes 3..0: 80 91 a2 b3), every select, both
// extensions, and every dst_unused; values written out by hand.
TEST(SemanticsTest, SdwaSourceSelects) {
  const U32Domain d;
  const uint32_t v = 0x8091a2b3u;
  const struct {
    SdwaSel sel;
    uint32_t zext, sext;
  } cases[] = {
      {SdwaSel::kByte0, 0xb3u, 0xffffffb3u}, {SdwaSel::kByte1, 0xa2u, 0xffffffa2u},
      {SdwaSel::kByte2, 0x91u, 0xffffff91u}, {SdwaSel::kByte3, 0x80u, 0xffffff80u},
      {SdwaSel::kWord0, 0xa2b3u, 0xffffa2b3u}, {SdwaSel::kWord1, 0x8091u, 0xffff8091u},
      {SdwaSel::kDword, 0x8091a2b3u, 0x8091a2b3u},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(SdwaSource(d, v, c.sel, false), c.zext) << static_cast<int>(c.sel);
    EXPECT_EQ(SdwaSource(d, v, c.sel, true), c.sext) << static_cast<int>(c.sel);
  }
  // A positive byte/word sign-extends to itself.
  EXPECT_EQ(SdwaSource(d, 0x7f00u, SdwaSel::kByte1, true), 0x7fu);
  EXPECT_EQ(SdwaSource(d, 0x7fff0000u, SdwaSel::kWord1, true), 0x7fffu);
}

TEST(SemanticsTest, SdwaDestination) {
  const U32Domain d;
  const uint32_t old = 0x11223344u;
  // r = 0x...b3 (byte with bit 7 set) / 0x...a2b3 (word with bit 15 set).
  const uint32_t r = 0x5566a2b3u;
  const struct {
    SdwaSel sel;
    uint32_t pad, sext, preserve;
  } cases[] = {
      {SdwaSel::kByte0, 0x000000b3u, 0xffffffb3u, 0x112233b3u},
      {SdwaSel::kByte1, 0x0000b300u, 0xffffb300u, 0x1122b344u},
      {SdwaSel::kByte2, 0x00b30000u, 0xffb30000u, 0x11b33344u},
      {SdwaSel::kByte3, 0xb3000000u, 0xb3000000u, 0xb3223344u},
      {SdwaSel::kWord0, 0x0000a2b3u, 0xffffa2b3u, 0x1122a2b3u},
      {SdwaSel::kWord1, 0xa2b30000u, 0xa2b30000u, 0xa2b33344u},
      {SdwaSel::kDword, r, r, r},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(SdwaDest(d, old, r, c.sel, SdwaUnused::kPad), c.pad) << static_cast<int>(c.sel);
    EXPECT_EQ(SdwaDest(d, old, r, c.sel, SdwaUnused::kSext), c.sext) << static_cast<int>(c.sel);
    EXPECT_EQ(SdwaDest(d, old, r, c.sel, SdwaUnused::kPreserve), c.preserve) << static_cast<int>(c.sel);
  }
  // A field whose top bit is clear: UNUSED_SEXT pads with zeros above too.
  EXPECT_EQ(SdwaDest(d, old, 0x7fu, SdwaSel::kByte1, SdwaUnused::kSext), 0x7f00u);
}

TEST(SemanticsTest, SaturatingSubs) {
  const U32Domain d;
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges) {
      const uint32_t want = a < b ? 0u : a - b;
      EXPECT_EQ(EvalIntOpClamped(d, Opc::kVSubU32, {a, b, 0, 0}).value_or(1), want) << a << " " << b;
      EXPECT_EQ(EvalIntOpClamped(d, Opc::kVSubrevU32, {b, a, 0, 0}).value_or(1), want) << a << " " << b;
    }
  EXPECT_FALSE(EvalIntOpClamped(d, Opc::kVSubCoU32, {1, 2, 0, 0}).has_value());
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// fp8 conversions: the opcodes' format follows the target's flavour
// (TargetInfo::fp8); the values are worked out by hand from the formats.
TEST(SemanticsTest, Fp8ConversionFormatFollowsTheTarget) {
  TargetInfo fnuz = **LookupTarget("gfx942");
  EXPECT_EQ(Fp8CvtFormat(fnuz, Opc::kVCvtPkFp8F32), ElemType::kF8E4M3FNUZ);
  EXPECT_EQ(Fp8CvtFormat(fnuz, Opc::kVCvtPkBf8F32Hi), ElemType::kF8E5M2FNUZ);
  EXPECT_EQ(Fp8CvtFormat(fnuz, Opc::kVCvtPkF32Bf8), ElemType::kF8E5M2FNUZ);
  EXPECT_EQ(Fp8CvtFormat(**LookupTarget("gfx90a"), Opc::kVCvtF32Fp8), std::nullopt);
  EXPECT_EQ(Fp8CvtFormat(fnuz, Opc::kVAddF32), std::nullopt);
  // A gfx950-like table entry: only the flavour differs.
  TargetInfo ocp = fnuz;
  ocp.fp8 = Fp8Flavor::kOcp;
  EXPECT_EQ(Fp8CvtFormat(ocp, Opc::kVCvtPkFp8F32), ElemType::kF8E4M3FN);
  EXPECT_EQ(Fp8CvtFormat(ocp, Opc::kVCvtF32Bf8), ElemType::kF8E5M2);
}

TEST(SemanticsTest, Fp8CvtFromF32BothFlavours) {
  // 448 = 1.75 * 2^8 is OCP E4M3's max (0x7e) but beyond FNUZ E4M3's 240.
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E4M3FN, 448.0f), 0x7e);
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E4M3FNUZ, 448.0f), std::nullopt);
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E4M3FNUZ, 240.0f), 0x7f);
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E4M3FNUZ, -240.0f), 0xff);
  // Infinities: unknown hardware result, even for E5M2, which has them.
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E5M2, INFINITY), std::nullopt);
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E5M2, 57344.0f), 0x7b);
  // 1.5 in E5M2 (bias 15): 0 01111 10 = 0x3e; in E5M2FNUZ (bias 16): 0x42.
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E5M2, 1.5f), 0x3e);
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E5M2FNUZ, 1.5f), 0x42);
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E4M3FNUZ, NAN), 0x80);
  EXPECT_EQ(Fp8CvtFromF32(ElemType::kF8E4M3FN, NAN), 0x7f);
  // Word merge: word 0 or word 1 replaced, the other kept.
  EXPECT_EQ(Fp8CvtPkMerge(0xaabbccddu, 0x12, 0x34, false), 0xaabb3412u);
  EXPECT_EQ(Fp8CvtPkMerge(0xaabbccddu, 0x12, 0x34, true), 0x3412ccddu);
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// v_cmp_class (CmpClass, the emulator's and the verifier's rule): each input
// against every one-hot mask and the full mask; the class of each input by
// hand from its bits (LLVM SIInstrFlags::ClassFlags: 0 sNaN, 1 qNaN, 2 -inf,
// 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf).
TEST(SemanticsTest, CmpClassOneHot) {
  struct Case {
    uint32_t bits;
    int cls;
  };
  const Case f32[] = {{0x7f800001u, 0}, {0xffbfffffu, 0}, {0x7fc00000u, 1}, {0xffffffffu, 1}, {0xff800000u, 2},
                      {0xc0490fdbu, 3}, {0x807fffffu, 4}, {0x80000000u, 5}, {0x00000000u, 6}, {0x00000001u, 7},
                      {0x00800000u, 8}, {0x7f800000u, 9}};
  const Case f16[] = {{0x7c01u, 0}, {0xfdffu, 0}, {0x7e00u, 1}, {0x7fffu, 1}, {0xfc00u, 2},
                      {0xfbffu, 3}, {0x83ffu, 4}, {0x8000u, 5}, {0x0000u, 6}, {0x0001u, 7},
                      {0x0400u, 8}, {0x7c00u, 9}, {0xabcd7c00u, 9}};  // f16: bits 31:16 ignored
  for (int pass = 0; pass < 2; ++pass) {
    const Case* cases = pass == 0 ? f32 : f16;
    const size_t n = pass == 0 ? sizeof(f32) / sizeof(f32[0]) : sizeof(f16) / sizeof(f16[0]);
    const Opc opc = pass == 0 ? Opc::kVCmpClassF32 : Opc::kVCmpClassF16;
    const Opc opcx = pass == 0 ? Opc::kVCmpxClassF32 : Opc::kVCmpxClassF16;
    for (size_t i = 0; i < n; ++i) {
      for (int k = 0; k < 10; ++k) {
        EXPECT_EQ(Eval(opc, {cases[i].bits, 1u << k}), k == cases[i].cls ? 1u : 0u)
            << Info(opc).mnemonic << " " << std::hex << cases[i].bits << " bit " << std::dec << k;
        EXPECT_EQ(Eval(opcx, {cases[i].bits, 1u << k}), k == cases[i].cls ? 1u : 0u);
      }
      EXPECT_EQ(Eval(opc, {cases[i].bits, 0x3ffu}), 1u);
      EXPECT_EQ(Eval(opc, {cases[i].bits, 0xfc00u}), 0u);  // mask bits above 9 select nothing
    }
  }
}

// v_cmp_class_f64 (CmpClassF64 through EvalWideOp: src0 64-bit, the mask
// 32-bit): one input per class, by hand from the binary64 fields (sign 63,
// exponent 62:52, quiet bit 51), and inputs whose class only the low dword
// decides (a NaN or denormal with just a low-dword mantissa).
TEST(SemanticsTest, CmpClassF64OneHot) {
  const struct {
    uint64_t bits;
    int cls;
  } cases[] = {{0x7ff0000000000001ull, 0}, {0xfff7ffffffffffffull, 0}, {0x7ff8000000000000ull, 1},
               {0xfff8000000000001ull, 1}, {0xfff0000000000000ull, 2}, {0xc00921fb54442d18ull, 3},
               {0x8000000000000001ull, 4}, {0x8000000000000000ull, 5}, {0x0000000000000000ull, 6},
               {0x000fffffffffffffull, 7}, {0x0010000000000000ull, 8}, {0x7f80000000000000ull, 8},
               {0x7ff0000000000000ull, 9}};
  for (const auto& c : cases) {
    for (int k = 0; k < 10; ++k) {
      for (Opc opc : {Opc::kVCmpClassF64, Opc::kVCmpxClassF64}) {
        uint32_t flag = 0xdeadbeefu;
        // The mask's high dword is not the mask's: garbage there must not matter.
        Wide(opc, {c.bits, (uint64_t{0xffffffffu} << 32) | (1u << k)}, &flag);
        EXPECT_EQ(flag, k == c.cls ? 1u : 0u) << Info(opc).mnemonic << " " << std::hex << c.bits << " bit " << k;
      }
    }
  }
}

// hwreg(HW_REG_MODE, 2, 2) is simm16 0x0881 (llvm-mc 22 -show-encoding:
// `s_setreg_imm32_b32 hwreg(HW_REG_MODE, 2, 2), 3` = [0x81,0x08,0x00,0xba,
// 3,0,0,0]); hwreg(HW_REG_MODE) is 0xf801 ([0x01,0xf8,...] for s_getreg_b32
// s3, hwreg(HW_REG_MODE)). s_setreg replaces the field's bits only.
TEST(SemanticsTest, HwregFields) {
  const HwReg h = DecodeHwreg(0x0881u);
  EXPECT_EQ(h.id, kHwRegMode);
  EXPECT_EQ(h.offset, 2);
  EXPECT_EQ(h.size, 2);
  EXPECT_EQ(EncodeHwreg(h), 0x0881u);
  const HwReg all = DecodeHwreg(0xf801u);
  EXPECT_EQ(all.offset, 0);
  EXPECT_EQ(all.size, 32);
  EXPECT_EQ(HwRegFieldMask(h), 0xcu);
  EXPECT_EQ(HwRegFieldMask(all), 0xffffffffu);
  EXPECT_EQ(SetregMerge(0xf0u, 3u, h), 0xfcu);
  EXPECT_EQ(SetregMerge(0xffu, 0xfffffff4u, h), 0xf3u);  // only the value's low 2 bits
  EXPECT_EQ(GetregField(0xfcu, h), 3u);
  EXPECT_EQ(GetregField(0x12345678u, all), 0x12345678u);
  EXPECT_EQ(ModeRoundSp(0xf9u), FpRound::kTowardPosInf);
  EXPECT_EQ(ModeRoundDp(0xf9u), FpRound::kTowardNegInf);
  EXPECT_EQ(ModeDenormSp(0x9u), 0);
  EXPECT_EQ(ModeDenormDp(0x40u), 1);
  // COMPUTE_PGM_RSRC1 FLOAT_MODE: round_32 13:12, round_16_64 15:14,
  // denorm_32 17:16, denorm_16_64 19:18 -> MODE bits 7:0.
  EXPECT_EQ(ModeFromRsrc1((3u << 12) | (1u << 14) | (2u << 16) | (3u << 18) | 0xfffu), 0xe7u);
}


// v_bitop3_b32's planned expressions (semantics.h Bitop3Plan: the smallest
// and/or/xor/not form of each truth table, the formula the emulator and the
// verifier use for an immediate table, fresh-user review 21 F2) against the
// definition, bit k of the result = bit (src0[k] << 2 | src1[k] << 1 |
// src2[k]) of the table, computed here bit by bit: every table on sources
// whose bit k takes all 8 combinations (src0 = 0xf0f0f0f0, src1 =
// 0xcccccccc, src2 = 0xaaaaaaaa and their rotations), and on the edge
// values. Also the minterm form (a table the domain does not know) and the
// plan's shape for the tables clang-22 emits.
TEST(SemanticsTest, Bitop3PlanMatchesTheMinterms) {
  auto reference = [](uint32_t a, uint32_t b, uint32_t c, uint32_t table) {
    uint32_t r = 0;
    for (int k = 0; k < 32; ++k) {
      const uint32_t i = ((a >> k) & 1) << 2 | ((b >> k) & 1) << 1 | ((c >> k) & 1);
      r |= ((table >> i) & 1) << k;
    }
    return r;
  };
  std::vector<std::array<uint32_t, 3>> sources;
  for (int rot = 0; rot < 8; ++rot) {
    auto rotl = [&](uint32_t x) { return rot == 0 ? x : (x << rot) | (x >> (32 - rot)); };
    sources.push_back({rotl(0xf0f0f0f0u), rotl(0xccccccccu), rotl(0xaaaaaaaau)});
  }
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges)
      for (uint32_t c : kEdges) sources.push_back({a, b, c});
  int largest = 0;
  for (uint32_t table = 0; table < 256; ++table) {
    largest = std::max<int>(largest, sem_detail::Bitop3Plan()[table].size);
    for (const auto& s : sources) {
      const uint32_t want = reference(s[0], s[1], s[2], table);
      EXPECT_EQ(Eval(Opc::kVBitop3B32, {s[0], s[1], s[2], table}), want) << "table 0x" << std::hex << table;
      // Only the table's low 8 bits count.
      EXPECT_EQ(Eval(Opc::kVBitop3B32, {s[0], s[1], s[2], table | 0xabcd00u}), want) << "table 0x" << std::hex << table;
      EXPECT_EQ(sem_detail::Bitop3Minterms(U32Domain{}, s[0], s[1], s[2], table), want)
          << "table 0x" << std::hex << table;
    }
  }
  // Every 3-input function has a plan of at most 7 operations (the
  // relaxation found them all: none is left at its initial 0xff).
  EXPECT_LE(largest, 7);
  // clang-22's tables in gfx950 address code: one xor and one and/or.
  using S = sem_detail::Bitop3Step;
  for (uint32_t table : {0x6cu, 0x78u, 0x36u, 0x48u}) EXPECT_EQ(sem_detail::Bitop3Plan()[table].size, 2) << table;
  EXPECT_EQ(sem_detail::Bitop3Plan()[0x6c].op, S::kXor);  // (src0 & src2) ^ src1
  EXPECT_EQ(sem_detail::Bitop3Plan()[0x48].op, S::kAnd);  // src1 & (src0 ^ src2)
  EXPECT_EQ(sem_detail::Bitop3Plan()[0x96].size, 2);      // src0 ^ src1 ^ src2
  EXPECT_EQ(sem_detail::Bitop3Plan()[0xf0].size, 0);      // src0
}

}  // namespace
}  // namespace kir
