// Issue 13, defect 4: every f16/bf16 (and f32) elementwise op and conversion
// is rounded ONCE, to nearest even, in both checkers' models of it: the code
// kirc compiles (run in the strict emulator, whose float semantics model the
// hardware's instructions) and the KIR reference interpreter. Both are
// compared bit for bit with an independent oracle written here: the exact
// result as a big integer times 2^-kScale (no floating point at all), rounded
// by integer arithmetic.
//
// Inputs: uniformly random bit patterns (every class: zeros, subnormals,
// normals, infinities, NaNs) and adversarial families: products that are
// exact midpoints plus tiny addends (the double-rounding case of an f32 fma
// followed by a rounding to bf16: 1.0625 * 1.0625 + 2^-40), operands of
// nearby exponents (exact ties, cancellation), near-overflow products with a
// cancelling addend, subnormal products, f32 values at and next to the
// midpoints of the 16-bit formats; the 16-bit conversions exhaustively.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/reference/interpreter.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "hw/emu/emu_device.h"

namespace kir {
namespace {

// ---------------------------------------------------------------------------
// The oracle: exact values as sign * N * 2^-kScale with N an unsigned
// 640-bit integer. Every value here is a multiple of 2^-298 (the smallest
// f32 subnormal squared) and below 2^257, so N < 2^577.

constexpr int kScale = 320;
constexpr int kWords = 20;  // 640 bits

struct Big {
  std::array<uint32_t, kWords> w{};
  bool IsZero() const {
    for (uint32_t x : w)
      if (x) return false;
    return true;
  }
  int TopBit() const {  // -1 for 0
    for (int i = kWords - 1; i >= 0; --i)
      if (w[i]) return 32 * i + 31 - __builtin_clz(w[i]);
    return -1;
  }
  bool Bit(int i) const { return i >= 0 && i < 32 * kWords && (w[i / 32] >> (i % 32) & 1); }
  bool AnyBelow(int i) const {  // a bit set among bits 0 .. i-1
    for (int b = 0; b < i; ++b)
      if (Bit(b)) return true;
    return false;
  }
  uint64_t BitsFrom(int i, int n) const {  // bits i .. i+n-1 (n <= 63)
    uint64_t v = 0;
    for (int b = n - 1; b >= 0; --b) v = v << 1 | (Bit(i + b) ? 1 : 0);
    return v;
  }
};

// m * 2^shift (shift >= 0, m < 2^64).
Big FromShifted(uint64_t m, int shift) {
  Big b;
  for (int i = 0; i < 64; ++i)
    if (m >> i & 1) {
      int k = i + shift;
      EXPECT_LT(k, 32 * kWords);
      b.w[k / 32] |= 1u << (k % 32);
    }
  return b;
}

int Compare(const Big& a, const Big& b) {
  for (int i = kWords - 1; i >= 0; --i)
    if (a.w[i] != b.w[i]) return a.w[i] < b.w[i] ? -1 : 1;
  return 0;
}
Big AddMag(const Big& a, const Big& b) {
  Big r;
  uint64_t carry = 0;
  for (int i = 0; i < kWords; ++i) {
    uint64_t s = uint64_t{a.w[i]} + b.w[i] + carry;
    r.w[i] = static_cast<uint32_t>(s);
    carry = s >> 32;
  }
  EXPECT_EQ(carry, 0u);
  return r;
}
Big SubMag(const Big& a, const Big& b) {  // a >= b
  Big r;
  int64_t borrow = 0;
  for (int i = 0; i < kWords; ++i) {
    int64_t d = int64_t{a.w[i]} - b.w[i] - borrow;
    borrow = d < 0;
    r.w[i] = static_cast<uint32_t>(d + (borrow ? (int64_t{1} << 32) : 0));
  }
  return r;
}

struct Format {
  int p;      // significand bits, the hidden one included
  int ebits;  // exponent bits
  int bias() const { return (1 << (ebits - 1)) - 1; }
  int emin() const { return 1 - bias(); }  // exponent of the smallest normal
  uint32_t sign_bit() const { return 1u << (p - 1 + ebits); }
  uint32_t exp_all() const { return (1u << ebits) - 1; }
};
constexpr Format kF32{24, 8}, kF16{11, 5}, kBf16{8, 8};

// A decoded operand: NaN, +-inf or +-m * 2^e.
struct Num {
  enum Kind { kFinite, kInf, kNan } kind = kFinite;
  bool neg = false;
  uint64_t m = 0;
  int e = 0;
};

Num Decode(uint32_t bits, Format f) {
  Num n;
  const int frac_bits = f.p - 1;
  n.neg = bits & f.sign_bit();
  uint32_t ex = bits >> frac_bits & f.exp_all();
  uint32_t fr = bits & ((1u << frac_bits) - 1);
  if (ex == f.exp_all()) {
    n.kind = fr ? Num::kNan : Num::kInf;
    return n;
  }
  if (ex == 0) {
    n.m = fr;
    n.e = f.emin() - frac_bits;
  } else {
    n.m = fr | (1u << frac_bits);
    n.e = static_cast<int>(ex) - f.bias() - frac_bits;
  }
  return n;
}

// The exact value of a finite term, signed.
struct Exact {
  bool neg = false;
  Big mag;
};
Exact Term(bool neg, uint64_t m, int e) {
  Exact x;
  x.neg = neg;
  EXPECT_GE(e + kScale, 0);
  x.mag = FromShifted(m, e + kScale);
  return x;
}
Exact AddExact(const Exact& a, const Exact& b) {
  Exact r;
  if (a.neg == b.neg) {
    r.neg = a.neg;
    r.mag = AddMag(a.mag, b.mag);
    return r;
  }
  int c = Compare(a.mag, b.mag);
  if (c >= 0) {
    r.neg = a.neg;
    r.mag = SubMag(a.mag, b.mag);
  } else {
    r.neg = b.neg;
    r.mag = SubMag(b.mag, a.mag);
  }
  return r;
}

// Rounds sign * mag * 2^-kScale (mag != 0) to nearest even in `f`.
uint32_t RoundExact(bool neg, const Big& mag, Format f) {
  const uint32_t sign = neg ? f.sign_bit() : 0;
  const int top = mag.TopBit();
  const int frac_bits = f.p - 1;
  // Exponent of the format's quantum at this value (the subnormal quantum at least).
  int q = std::max(top - kScale - frac_bits, f.emin() - frac_bits);
  int s = q + kScale;  // bit index of the quantum in mag
  uint64_t kept;
  bool up = false;
  if (s <= 0) {
    kept = mag.BitsFrom(0, top + 1) << -s;  // exact (not reached: quanta are >= 2^-149)
  } else {
    kept = mag.BitsFrom(s, std::max(0, top - s + 1));
    bool half = mag.Bit(s - 1), sticky = mag.AnyBelow(s - 1);
    up = half && (sticky || (kept & 1));
  }
  kept += up;
  if (kept == (uint64_t{1} << f.p)) {  // carried into the next binade
    kept >>= 1;
    ++q;
  }
  if (kept < (uint64_t{1} << frac_bits)) return sign | static_cast<uint32_t>(kept);  // subnormal or 0
  int64_t biased = int64_t{q} + frac_bits + f.bias();
  if (biased >= f.exp_all()) return sign | (f.exp_all() << frac_bits);  // overflow: inf
  return sign | static_cast<uint32_t>(biased) << frac_bits | static_cast<uint32_t>(kept - (uint64_t{1} << frac_bits));
}

uint32_t Inf(Format f, bool neg) { return (neg ? f.sign_bit() : 0) | f.exp_all() << (f.p - 1); }
uint32_t QNan(Format f) { return f.exp_all() << (f.p - 1) | 1u << (f.p - 2); }

enum class Opk { kAdd, kMul, kFma };

// The correctly rounded result (IEEE 754 roundTiesToEven, gradual underflow)
// of a op b (op c) in format f; NaN results as QNan(f).
uint32_t Oracle(Opk op, Format f, uint32_t abits, uint32_t bbits, uint32_t cbits) {
  Num a = Decode(abits, f), b = Decode(bbits, f), c = Decode(cbits, f);
  if (op == Opk::kAdd) {  // a + b as a * 1 + b
    c = b;
    b = Decode(f.exp_all() >> 1 << (f.p - 1), f);  // 1.0
    op = Opk::kFma;
  }
  const bool mul = op == Opk::kMul;
  if (a.kind == Num::kNan || b.kind == Num::kNan || (!mul && c.kind == Num::kNan)) return QNan(f);
  // The product's class.
  const bool pneg = a.neg != b.neg;
  const bool a0 = a.kind == Num::kFinite && a.m == 0, b0 = b.kind == Num::kFinite && b.m == 0;
  const bool pinf = a.kind == Num::kInf || b.kind == Num::kInf;
  if (pinf && (a0 || b0)) return QNan(f);  // inf * 0
  if (mul) {
    if (pinf) return Inf(f, pneg);
    if (a0 || b0) return pneg ? f.sign_bit() : 0;
    return RoundExact(pneg, Term(pneg, a.m * b.m, a.e + b.e).mag, f);
  }
  if (pinf) {
    if (c.kind == Num::kInf && c.neg != pneg) return QNan(f);  // inf - inf
    return Inf(f, pneg);
  }
  if (c.kind == Num::kInf) return Inf(f, c.neg);
  const bool p0 = a0 || b0, c0 = c.m == 0;
  if (p0 && c0) return pneg && c.neg ? f.sign_bit() : 0;  // (+-0) + (+-0)
  Exact p = Term(pneg, a.m * b.m, a.e + b.e), cc = Term(c.neg, c.m, c.e);
  Exact x = AddExact(p, cc);
  if (x.mag.IsZero()) return 0;  // an exact zero sum of nonzero terms is +0
  return RoundExact(x.neg, x.mag, f);
}

// Conversion of `bits` in `from` to `to`, correctly rounded.
uint32_t OracleCvt(Format from, Format to, uint32_t bits) {
  Num n = Decode(bits, from);
  if (n.kind == Num::kNan) return QNan(to);
  if (n.kind == Num::kInf) return Inf(to, n.neg);
  if (n.m == 0) return n.neg ? to.sign_bit() : 0;
  return RoundExact(n.neg, Term(n.neg, n.m, n.e).mag, to);
}

bool IsNan(uint32_t bits, Format f) {
  return (bits >> (f.p - 1) & f.exp_all()) == f.exp_all() && (bits & ((1u << (f.p - 1)) - 1)) != 0;
}

// The oracle against values worked out by hand (so the oracle itself is
// checked independently of everything else).
TEST(RoundingOracle, HandComputedValues) {
  // bf16 1.0625 = 0x3f88; 1.0625^2 = 1.12890625 is the midpoint of 1.125
  // (0x3f90) and 1.1328125 (0x3f91); + 2^-40 (0x2b80) rounds up.
  EXPECT_EQ(Oracle(Opk::kFma, kBf16, 0x3f88, 0x3f88, 0x2b80), 0x3f91u);
  EXPECT_EQ(Oracle(Opk::kFma, kBf16, 0x3f88, 0x3f88, 0xab80), 0x3f90u);  // - 2^-40: down
  EXPECT_EQ(Oracle(Opk::kFma, kBf16, 0x3f88, 0x3f88, 0x0000), 0x3f90u);  // the tie: even
  EXPECT_EQ(Oracle(Opk::kMul, kBf16, 0x3f88, 0x3f88, 0), 0x3f90u);
  EXPECT_EQ(Oracle(Opk::kAdd, kBf16, 0x3f80, 0x3f80, 0), 0x4000u);          // 1 + 1 = 2
  EXPECT_EQ(Oracle(Opk::kAdd, kBf16, 0x3f80, 0xbf80, 0), 0x0000u);          // 1 - 1 = +0
  EXPECT_EQ(Oracle(Opk::kAdd, kBf16, 0x8000, 0x8000, 0), 0x8000u);          // -0 + -0 = -0
  EXPECT_EQ(Oracle(Opk::kMul, kBf16, 0x0001, 0x3f00, 0), 0x0000u);          // 2^-133 / 2: tie to 0
  EXPECT_EQ(Oracle(Opk::kMul, kBf16, 0x0003, 0x3f00, 0), 0x0002u);          // 1.5 * 2^-133: to 2
  EXPECT_EQ(Oracle(Opk::kMul, kBf16, 0x7f7f, 0x4000, 0), 0x7f80u);          // overflow
  EXPECT_EQ(Oracle(Opk::kFma, kBf16, 0x7f80, 0x0000, 0x3f80), QNan(kBf16));  // inf * 0
  // 2^64 * 2^64 - (2^128 - 2^120) = 2^120 (0x7b80): the product overflows f32, the result does not.
  EXPECT_EQ(Oracle(Opk::kFma, kBf16, 0x5f80, 0x5f80, 0xff7f), 0x7b80u);
  // f16: 1 + 2^-11 is the midpoint of 1 and 1 + 2^-10: ties to 1; with 2^-24 more, up.
  EXPECT_EQ(Oracle(Opk::kAdd, kF16, 0x3c00, 0x1000, 0), 0x3c00u);
  // 1.5 * (1 + 2^-10) = 1.5 + 2^-10 + 2^-11, the midpoint of 0x3e01 and 0x3e02:
  // to even, and a tiny addend (-2^-24) decides.
  EXPECT_EQ(Oracle(Opk::kFma, kF16, 0x3e00, 0x3c01, 0x0000), 0x3e02u);
  EXPECT_EQ(Oracle(Opk::kFma, kF16, 0x3e00, 0x3c01, 0x8001), 0x3e01u);
  EXPECT_EQ(Oracle(Opk::kAdd, kF16, 0x7bff, 0x4c00, 0), 0x7c00u);  // 65504 + 16 = 65520: the overflow tie
  EXPECT_EQ(Oracle(Opk::kAdd, kF16, 0x7bff, 0x4bff, 0), 0x7bffu);  // 65504 + 15.99
  // Conversions: f32 1 + 2^-8 is the bf16 midpoint of 1 and 1 + 2^-7.
  EXPECT_EQ(OracleCvt(kF32, kBf16, 0x3f808000), 0x3f80u);
  EXPECT_EQ(OracleCvt(kF32, kBf16, 0x3f808001), 0x3f81u);
  EXPECT_EQ(OracleCvt(kF32, kBf16, 0x3f818000), 0x3f82u);
  EXPECT_EQ(OracleCvt(kF32, kF16, 0x33000000), 0x0000u);  // 2^-25: tie to 0
  EXPECT_EQ(OracleCvt(kF32, kF16, 0x33000001), 0x0001u);
  EXPECT_EQ(OracleCvt(kF32, kF16, 0x477ff000), 0x7c00u);  // 65520: the overflow tie
  EXPECT_EQ(OracleCvt(kF32, kF16, 0x477fefff), 0x7bffu);
  EXPECT_EQ(OracleCvt(kF16, kBf16, 0x0001), 0x3380u);     // 2^-24 exactly
  EXPECT_EQ(OracleCvt(kBf16, kF16, 0x3380), 0x0001u);
  EXPECT_EQ(OracleCvt(kBf16, kF16, 0x4780), 0x7c00u);     // 65536
  // f32 fma: (1 + 2^-23)^2 - 1 = 2^-22 + 2^-46, the midpoint of 2^-22 and
  // 2^-22 + 2^-45: to even.
  EXPECT_EQ(Oracle(Opk::kFma, kF32, 0x3f800001, 0x3f800001, 0xbf800000), 0x34800000u);
}

// ---------------------------------------------------------------------------
// Inputs.

struct Gen {
  std::mt19937_64 rng{0x13u};
  uint32_t Bits(Format f) {
    return static_cast<uint32_t>(rng()) & ((f.sign_bit() << 1) - 1);
  }
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool Coin() { return rng() & 1; }
  // A finite value with a biased exponent in [elo, ehi] (0: subnormal) and a random fraction.
  uint32_t WithExp(Format f, int elo, int ehi) {
    uint32_t ex = static_cast<uint32_t>(Int(elo, ehi));
    uint32_t fr = static_cast<uint32_t>(rng()) & ((1u << (f.p - 1)) - 1);
    return (Coin() ? f.sign_bit() : 0) | ex << (f.p - 1) | fr;
  }
  uint32_t Special(Format f) {
    switch (Int(0, 5)) {
      case 0: return 0;
      case 1: return f.sign_bit();
      case 2: return Inf(f, false);
      case 3: return Inf(f, true);
      case 4: return QNan(f) | (Coin() ? f.sign_bit() : 0);
      default: return 1;  // the smallest subnormal
    }
  }
};

struct Triple {
  uint32_t a, b, c;
};

// Triples for `op` in `f`: a quarter random bits, the rest adversarial.
std::vector<Triple> Triples(Opk op, Format f, int n) {
  Gen g;
  std::vector<Triple> v;
  const int emax_biased = static_cast<int>(f.exp_all()) - 1;
  const int one = f.bias();  // biased exponent of [1, 2)
  // The case and its mirror images, first.
  if (f.p == kBf16.p) {
    v.push_back({0x3f88, 0x3f88, 0x2b80});
    v.push_back({0x3f88, 0x3f88, 0xab80});
    v.push_back({0xbf88, 0x3f88, 0xab80});
    v.push_back({0x5f80, 0x5f80, 0xff7f});
  }
  while (static_cast<int>(v.size()) < n) {
    Triple t{g.Bits(f), g.Bits(f), g.Bits(f)};
    switch (g.Int(0, 7)) {
      case 0:  // random bits
        break;
      case 1: {  // a product that is an exact midpoint of f, plus a tiny or zero addend
        for (int tries = 0; tries < 1000; ++tries) {
          t.a = g.WithExp(f, std::max(1, one - 20), std::min(emax_biased, one + 20));
          t.b = g.WithExp(f, std::max(1, one - 20), std::min(emax_biased, one + 20));
          Num a = Decode(t.a, f), b = Decode(t.b, f);
          uint64_t m = a.m * b.m;  // a midpoint: exactly the bit below the kept ones set
          int top = 63 - __builtin_clzll(m);
          int drop = top - (f.p - 1);
          if (drop >= 1 && (m & ((uint64_t{1} << drop) - 1)) == (uint64_t{1} << (drop - 1))) break;
        }
        Num a = Decode(t.a, f), b = Decode(t.b, f);
        int pexp = 63 - __builtin_clzll(a.m * b.m) + a.e + b.e;  // the product's binade
        const int clo = f.emin() - (f.p - 1), chi = pexp - f.p - 1;  // well below the product's ulp
        if (chi < clo) {
          t.c = 0;
          break;
        }
        int cexp = g.Int(clo, chi);
        uint32_t c = cexp < f.emin() ? 1u << (cexp - (f.emin() - (f.p - 1)))
                                     : static_cast<uint32_t>(cexp + f.bias()) << (f.p - 1);
        if (cexp >= f.emin()) c |= static_cast<uint32_t>(g.rng()) & ((1u << (f.p - 1)) - 1);
        t.c = g.Int(0, 4) == 0 ? (g.Coin() ? f.sign_bit() : 0) : c | (g.Coin() ? f.sign_bit() : 0);
        break;
      }
      case 2: {  // nearby exponents: exact ties, cancellation
        int e = g.Int(1, emax_biased - 2);
        t.a = g.WithExp(f, e, e + 1);
        t.b = op == Opk::kAdd ? g.WithExp(f, std::max(1, e - f.p - 2), e + 1)
                              : g.WithExp(f, one - 1, one + 1);
        // c near the product, whose binade is about a's (b is about 1).
        t.c = g.WithExp(f, std::max(1, e - f.p - 3), std::min(emax_biased, e + 1));
        break;
      }
      case 3: {  // cancellation: c = -RN(a*b) nudged by a few ulps
        t.a = g.WithExp(f, 1, emax_biased);
        t.b = g.WithExp(f, one - 2, one + 2);
        uint32_t p = Oracle(Opk::kMul, f, t.a, t.b, 0);
        if ((p >> (f.p - 1) & f.exp_all()) == f.exp_all()) break;
        t.c = (p ^ f.sign_bit()) + static_cast<uint32_t>(g.Int(-2, 2));
        if (op == Opk::kAdd) t.b = t.c;
        break;
      }
      case 4: {  // near overflow: a product about the largest finite value, a cancelling c
        int half = (emax_biased + f.bias()) / 2 + 1;
        t.a = g.WithExp(f, half - 1, half + 1);
        t.b = g.WithExp(f, half - 1, half + 1);
        t.c = g.WithExp(f, emax_biased - 2, emax_biased);
        if (op == Opk::kAdd) t.a = g.WithExp(f, emax_biased - 1, emax_biased);
        break;
      }
      case 5: {  // subnormal results
        t.a = g.WithExp(f, 0, 3);
        t.b = op == Opk::kAdd ? g.WithExp(f, 0, 3) : g.WithExp(f, one - f.p, one + 2);
        t.c = g.WithExp(f, 0, 2);
        break;
      }
      case 6: {  // tiny products (below the subnormal range of f32 for bf16) and small c
        int lo = 1, hi = std::min(emax_biased, f.bias() / 2 + 2);
        t.a = g.WithExp(f, lo, hi);
        t.b = g.WithExp(f, 0, hi);
        t.c = g.Int(0, 2) == 0 ? g.Special(f) : g.WithExp(f, 0, 4);
        break;
      }
      default: {  // specials mixed in
        int which = g.Int(0, 2);
        (which == 0 ? t.a : which == 1 ? t.b : t.c) = g.Special(f);
        break;
      }
    }
    v.push_back(t);
  }
  v.resize(static_cast<size_t>(n));
  return v;
}

// ---------------------------------------------------------------------------
// Running a kernel of one elementwise op (or cvt) over n elements on both checkers.

const char* TypeName(Format f) { return f.p == 24 ? "f32" : f.p == 11 ? "f16" : "bf16"; }
int Bytes(Format f) { return f.p == 24 ? 4 : 2; }

struct Outputs {
  std::vector<uint32_t> emu, ref;
};

void Put(std::vector<uint8_t>& buf, size_t i, uint32_t bits, int bytes) {
  std::memcpy(buf.data() + i * bytes, &bits, bytes);
}
uint32_t Get(const PagedBytes& buf, size_t i, int bytes) {
  uint32_t v = 0;
  buf.Read(i * bytes, &v, static_cast<uint64_t>(bytes));
  return v;
}

constexpr int kVec = 4;     // elements per thread
constexpr int kWg = 256;    // threads per workgroup

// `body` computes %d from %a, %b, %c (loaded as `in` x4), the result being `out` x4.
Outputs RunOp(const std::string& target, Format in, Format out, int nsrc, const std::string& body,
              const std::vector<std::array<uint32_t, 3>>& operands) {
  Outputs o;
  const size_t n = operands.size();
  EXPECT_EQ(n % (kVec * kWg), 0u);
  const std::string ti = TypeName(in), to = TypeName(out);
  std::string text = absl::StrCat("kernel ew\ntarget ", target, "\nworkgroup ", kWg, " 1 1\ngrid ",
                                  n / (kVec * kWg), " 1 1\n");
  const char* names[] = {"A", "B", "C"};
  for (int i = 0; i < nsrc; ++i) absl::StrAppend(&text, "arg ", names[i], " : ", ti, "[", n, "] strides [1] readonly\n");
  absl::StrAppend(&text, "arg D : ", to, "[", n, "] strides [1] writeonly\n");
  const std::string at = absl::StrCat("[(wg.x * ", kWg, " + tid.x) * ", kVec, "]");
  for (int i = 0; i < nsrc; ++i)
    absl::StrAppend(&text, "  %", std::string(1, "abc"[i]), " = load ", names[i], at, " : ", ti, "x", kVec, "\n");
  absl::StrAppend(&text, "  ", body, "\n  store D", at, ", %d\nend\n");
  absl::StatusOr<Kernel> k = ParseKernel(text, "ew.kir");
  EXPECT_TRUE(k.ok()) << k.status() << "\n" << text;
  if (!k.ok()) return o;
  KernelData data;
  for (int i = 0; i < nsrc; ++i) {
    std::vector<uint8_t> buf(n * Bytes(in));
    for (size_t e = 0; e < n; ++e) Put(buf, e, operands[e][i], Bytes(in));
    data.buffers[names[i]] = std::move(buf);
  }
  data.buffers["D"] = std::vector<uint8_t>(n * Bytes(out), 0xa5);
  // The reference interpreter.
  PagedInterpArgs ia{data.buffers, data.scalars};
  absl::Status is = Interpret(*k, ia);
  EXPECT_TRUE(is.ok()) << is;
  // The compiled code in the strict emulator.
  CompileOptions co;
  co.mcpu = target;
  absl::StatusOr<CompileResult> cr = Compile(*k, co);
  EXPECT_TRUE(cr.ok()) << cr.status();
  if (!cr.ok()) return o;
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  EXPECT_TRUE(bin.ok()) << bin.status();
  absl::StatusOr<std::string> hsaco = CodeObjectFor(*cr, *bin);
  EXPECT_TRUE(hsaco.ok()) << hsaco.status();
  if (!bin.ok() || !hsaco.ok()) return o;
  EmuDevice emu(*bin);
  absl::StatusOr<DeviceRun> run = emu.Run(*k, *cr->target, *hsaco, data);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return o;
  for (size_t e = 0; e < n; ++e) {
    o.emu.push_back(Get(data.buffers["D"], e, Bytes(out)));
    o.ref.push_back(Get(ia.buffers["D"], e, Bytes(out)));
  }
  return o;
}

// Compares both checkers' results with the oracle's: equal bits, or both NaN.
void Check(const std::string& what, Format out, const std::vector<std::array<uint32_t, 3>>& operands,
           const std::vector<uint32_t>& want, const Outputs& got) {
  ASSERT_EQ(got.emu.size(), want.size()) << what;
  ASSERT_EQ(got.ref.size(), want.size()) << what;
  int emu_bad = 0, ref_bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    auto same = [&](uint32_t x) { return x == want[i] || (IsNan(x, out) && IsNan(want[i], out)); };
    for (auto [who, val, bad] : {std::tuple<const char*, uint32_t, int*>{"compiled code (emulator)", got.emu[i], &emu_bad},
                                 {"reference interpreter", got.ref[i], &ref_bad}}) {
      if (same(val)) continue;
      if (++*bad <= 5)
        ADD_FAILURE() << absl::StrCat(what, ": ", who, " element ", i, ": operands 0x", absl::Hex(operands[i][0]),
                                      ", 0x", absl::Hex(operands[i][1]), ", 0x", absl::Hex(operands[i][2]), " give 0x",
                                      absl::Hex(val), ", correctly rounded 0x", absl::Hex(want[i]));
    }
  }
  EXPECT_EQ(emu_bad, 0) << what << ": compiled code, of " << want.size();
  EXPECT_EQ(ref_bad, 0) << what << ": reference interpreter, of " << want.size();
}

struct OpCase {
  const char* op;  // add, mul, fma
  Format f;
  const char* target;
  int n;
};

class ElementwiseRounding : public ::testing::TestWithParam<OpCase> {};

TEST_P(ElementwiseRounding, BothCheckersRoundOnce) {
  const OpCase& c = GetParam();
  const Opk op = std::string(c.op) == "add" ? Opk::kAdd : std::string(c.op) == "mul" ? Opk::kMul : Opk::kFma;
  const int nsrc = op == Opk::kFma ? 3 : 2;
  std::vector<Triple> ts = Triples(op, c.f, c.n);
  std::vector<std::array<uint32_t, 3>> operands;
  std::vector<uint32_t> want;
  for (const Triple& t : ts) {
    operands.push_back({t.a, t.b, t.c});
    want.push_back(Oracle(op, c.f, t.a, t.b, op == Opk::kFma ? t.c : 0));
  }
  const std::string body = absl::StrCat("%d = ", c.op, op == Opk::kFma ? " %a, %b, %c" : " %a, %b");
  Outputs got = RunOp(c.target, c.f, c.f, nsrc, body, operands);
  Check(absl::StrCat(c.op, " ", TypeName(c.f), " on ", c.target), c.f, operands, want, got);
}

std::vector<OpCase> OpCases() {
  std::vector<OpCase> v;
  for (const char* op : {"add", "mul", "fma"})
    for (Format f : {kBf16, kF16, kF32}) {
      // The most elements where the code is the most intricate (bf16 fma).
      const bool main = std::string(op) == "fma" && f.p == kBf16.p;
      v.push_back({op, f, "gfx942", main ? 1 << 18 : 1 << 16});
    }
  // The 16-bit code on the other targets (same instructions, other schedules and hazards).
  for (const char* t : {"gfx908", "gfx90a"})
    for (Format f : {kBf16, kF16}) v.push_back({"fma", f, t, 1 << 14});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Ops, ElementwiseRounding, ::testing::ValuesIn(OpCases()),
                         [](const ::testing::TestParamInfo<OpCase>& i) {
                           return absl::StrCat(i.param.op, "_", TypeName(i.param.f), "_", i.param.target);
                         });

// Conversions: the 16-bit sources exhaustively, f32 sources at random and at
// and next to every kind of midpoint of the 16-bit formats.
struct CvtCase {
  Format from, to;
};

class CvtRounding : public ::testing::TestWithParam<CvtCase> {};

TEST_P(CvtRounding, BothCheckersRoundOnce) {
  const CvtCase& c = GetParam();
  std::vector<std::array<uint32_t, 3>> operands;
  if (c.from.p != kF32.p) {
    for (uint32_t b = 0; b < 65536; ++b) operands.push_back({b, 0, 0});
  } else {
    Gen g;
    const int frac = 24 - c.to.p;  // f32 fraction bits the 16-bit format drops (normal range)
    while (operands.size() < (1u << 16)) {
      uint32_t x = g.Bits(kF32);
      switch (g.Int(0, 3)) {
        case 0: break;
        case 1:  // a midpoint of the target's normal range, or a neighbour
          x = (x & ~((1u << frac) - 1)) | (1u << (frac - 1));
          x += static_cast<uint32_t>(g.Int(-1, 1));
          break;
        case 2: {  // the target's subnormal range and its midpoints (f16), overflow (f16)
          int e = c.to.p == kF16.p ? g.Int(127 - 26, 127 + 16) : g.Int(0, 3);
          x = (x & 0x807fffffu) | static_cast<uint32_t>(e) << 23;
          if (g.Coin()) x = (x & ~0xfffu) | (g.Coin() ? 0x1000u : 0xfffu);
          break;
        }
        default:  // near the largest finite values
          x = (x & 0x807fffffu) | (254u - static_cast<uint32_t>(g.Int(0, 1))) << 23;
          break;
      }
      operands.push_back({x, 0, 0});
    }
  }
  std::vector<uint32_t> want;
  for (const auto& o : operands) want.push_back(OracleCvt(c.from, c.to, o[0]));
  Outputs got = RunOp("gfx942", c.from, c.to, 1, absl::StrCat("%d = cvt %a : ", TypeName(c.to), "x", kVec), operands);
  Check(absl::StrCat("cvt ", TypeName(c.from), " to ", TypeName(c.to)), c.to, operands, want, got);
}

INSTANTIATE_TEST_SUITE_P(Conversions, CvtRounding,
                         ::testing::Values(CvtCase{kF32, kBf16}, CvtCase{kF32, kF16}, CvtCase{kF16, kBf16},
                                           CvtCase{kBf16, kF16}, CvtCase{kF16, kF32}, CvtCase{kBf16, kF32}),
                         [](const ::testing::TestParamInfo<CvtCase>& i) {
                           return absl::StrCat(TypeName(i.param.from), "_to_", TypeName(i.param.to));
                         });

}  // namespace
}  // namespace kir
