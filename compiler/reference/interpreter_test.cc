#include "compiler/reference/interpreter.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/ir/float_bits.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/types.h"
#include "compiler/target/target.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {

using ::kir::testing::ReadTestFile;

using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---------------------------------------------------------------------------
// Helpers, written independently of the interpreter.


Kernel MustParse(const std::string& text, const std::string& name = "t.kir") {
  absl::StatusOr<Kernel> k = ParseKernel(text, name);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : Kernel{};
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T>
std::vector<T> From(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

uint32_t FBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float FFrom(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Decoders by the formats' definitions.
double DecodeF16(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 31  ? (m ? std::numeric_limits<double>::quiet_NaN() : INFINITY)
             : e == 0 ? std::ldexp(m, -24)
                      : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
double DecodeBf16(uint16_t h) {
  int e = (h >> 7) & 255, m = h & 127;
  double v = e == 255 ? (m ? std::numeric_limits<double>::quiet_NaN() : INFINITY)
             : e == 0 ? std::ldexp(m, -133)
                      : std::ldexp(128 + m, e - 134);
  return (h & 0x8000) ? -v : v;
}

// Brute-force round to nearest even over the table of all positive finite
// values of the format (index = bit pattern).
struct RefFormat {
  std::vector<double> tab;  // positive finite values, increasing with the bits
  uint16_t inf, nan;
  explicit RefFormat(bool f16) {
    uint16_t max = f16 ? 0x7bff : 0x7f7f;
    for (uint32_t b = 0; b <= max; ++b)
      tab.push_back(f16 ? DecodeF16(static_cast<uint16_t>(b))
                        : DecodeBf16(static_cast<uint16_t>(b)));
    inf = f16 ? 0x7c00 : 0x7f80;
    nan = f16 ? 0x7e00 : 0x7fc0;
  }
  uint16_t Round(double x) const {
    if (std::isnan(x)) return nan;
    uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    double a = std::fabs(x);
    size_t n = tab.size();
    double next = tab[n - 1] + (tab[n - 1] - tab[n - 2]);  // 2^16 resp. 2^128
    double threshold = (tab[n - 1] + next) / 2;
    if (a >= threshold) return sign | inf;  // the tie goes to the even neighbour: inf
    size_t hi = std::lower_bound(tab.begin(), tab.end(), a) - tab.begin();
    if (hi == n) return sign | static_cast<uint16_t>(n - 1);
    if (tab[hi] == a) return sign | static_cast<uint16_t>(hi);
    size_t lo = hi - 1;
    double mid = (tab[lo] + tab[hi]) / 2;  // exact
    size_t r = a < mid ? lo : a > mid ? hi : (lo % 2 == 0 ? lo : hi);
    return sign | static_cast<uint16_t>(r);
  }
};
const RefFormat& RefF16() {
  static const RefFormat* r = new RefFormat(true);
  return *r;
}
const RefFormat& RefBf16() {
  static const RefFormat* r = new RefFormat(false);
  return *r;
}

// ---------------------------------------------------------------------------
// The exposed rounding functions against the brute-force reference.

void CheckRounding(const RefFormat& ref, uint16_t (*fn)(double), double (*decode)(uint16_t),
                   uint16_t max_finite) {
  std::vector<double> probes;
  for (uint32_t b = 0; b <= max_finite; ++b) {
    double v = decode(static_cast<uint16_t>(b));
    double next = b < max_finite ? decode(static_cast<uint16_t>(b + 1)) : 2 * v - decode(b - 1);
    double mid = (v + next) / 2;
    for (double p : {v, mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY),
                     std::nextafter(v, INFINITY)}) {
      probes.push_back(p);
      probes.push_back(-p);
    }
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    probes.push_back(d);  // every double, mostly far outside the range
    probes.push_back(std::ldexp(static_cast<double>(rng() >> 11) / 9007199254740992.0,
                                static_cast<int>(rng() % 300) - 150));
  }
  for (double p : std::initializer_list<double>{
           0.0, -0.0, INFINITY, -INFINITY, std::numeric_limits<double>::quiet_NaN(),
           std::numeric_limits<double>::denorm_min(), 1e300, -1e-300})
    probes.push_back(p);
  int bad = 0;
  for (double p : probes) {
    uint16_t got = fn(p), want = ref.Round(p);
    if (got != want && bad++ < 10)
      ADD_FAILURE() << std::hexfloat << p << ": got 0x" << std::hex << got << " want 0x" << want;
  }
  EXPECT_EQ(bad, 0);
}

TEST(InterpreterRounding, F16MatchesBruteForce) {
  CheckRounding(RefF16(), RoundToF16Bits, DecodeF16, 0x7bff);
}

TEST(InterpreterRounding, Bf16MatchesBruteForce) {
  CheckRounding(RefBf16(), RoundToBf16Bits, DecodeBf16, 0x7f7f);
}

TEST(InterpreterRounding, AgreesWithFloatConversionsOnFloats) {
  std::mt19937 rng(11);
  for (int i = 0; i < 1000000; ++i) {
    float f = FFrom(rng());
    if (std::isnan(f)) continue;
    ASSERT_EQ(RoundToF16Bits(f), F32ToF16Bits(f)) << std::hexfloat << f;
    ASSERT_EQ(RoundToBf16Bits(f), F32ToBf16Bits(f)) << std::hexfloat << f;
  }
}

// ---------------------------------------------------------------------------
// Copy.

TEST(Interpreter, CopyIsExact) {
  Kernel k = MustParse(ReadTestFile("testdata/kernels/copy_f32.kir"));
  std::mt19937 rng(1);
  std::vector<uint32_t> src(8192);
  for (uint32_t& x : src) x = rng();  // every bit pattern, NaN payloads included
  src[0] = 0x7f800001;                // a signalling NaN
  src[1] = 0x80000000;                // -0
  src[2] = 0x00000001;                // a denormal
  InterpArgs a;
  a.buffers["src"] = Bytes(src);
  a.buffers["dst"] = std::vector<uint8_t>(8192 * 4, 0xab);
  ASSERT_TRUE(Interpret(k, a).ok());
  EXPECT_EQ(From<uint32_t>(a.buffers["dst"]), src);
  EXPECT_EQ(From<uint32_t>(a.buffers["src"]), src);
}

// lds_dma: lane l of each wave writes its 16 bytes at the wave's base + 16 * l;
// the lanes load A's rows in reverse, so LDS row w*64 + l holds A's row
// w*64 + 63 - l (derived by hand from the op's definition).
constexpr char kLdsDmaKernel[] = R"(kernel dma
target gfx950
workgroup 64 2 1
grid 1 1 1
arg A : f32[128, 4] strides [4, 1] readonly
arg B : f32[128, 4] strides [4, 1] writeonly
lds L : f32[128, 4]
  lds_dma L[tid.y * 64, 0], A[tid.y * 64 + 63 - tid.x, 0] : f32x4
  barrier
  %v = load L[tid.y * 64 + tid.x, 0] : f32x4
  store B[tid.y * 64 + tid.x, 0], %v
end
)";

TEST(Interpreter, LdsDmaPlacesLaneVectorsAtBasePlus16Lane) {
  Kernel k = MustParse(kLdsDmaKernel);
  std::vector<uint32_t> src(512);
  for (size_t i = 0; i < src.size(); ++i) src[i] = 0x1000u + static_cast<uint32_t>(i);
  InterpArgs a;
  a.buffers["A"] = Bytes(src);
  a.buffers["B"] = std::vector<uint8_t>(512 * 4, 0);
  ASSERT_TRUE(Interpret(k, a).ok());
  std::vector<uint32_t> got = From<uint32_t>(a.buffers["B"]);
  for (int w = 0; w < 2; ++w)
    for (int l = 0; l < 64; ++l)
      for (int e = 0; e < 4; ++e)
        EXPECT_EQ(got[static_cast<size_t>((w * 64 + l) * 4 + e)], src[static_cast<size_t>((w * 64 + 63 - l) * 4 + e)])
            << "wave " << w << " lane " << l << " element " << e;
}

TEST(Interpreter, LdsDmaBaseOutsideTheAllocationIsAnError) {
  // Base row 96 for wave 1: 64 rows of 16 bytes from row 96 pass the end.
  Kernel k = MustParse(absl::StrReplaceAll(kLdsDmaKernel, {{"lds_dma L[tid.y * 64, 0]", "lds_dma L[tid.y * 96, 0]"}}));
  InterpArgs a;
  a.buffers["A"] = std::vector<uint8_t>(512 * 4, 0);
  a.buffers["B"] = std::vector<uint8_t>(512 * 4, 0);
  absl::Status s = Interpret(k, a);
  EXPECT_THAT(std::string(s.message()), HasSubstr("past the 2048 bytes of L"));
}

// ---------------------------------------------------------------------------
// load_tr (gfx950's ds_read_b64_tr_b16 at KIR level). The expected values
// come from the ISA guide's description of the instruction (CDNA4 ISA
// 11.4, as quoted in semantics.h): the 16 lanes of a group each read 64
// bits, the data is "interpreted as a matrix with 16 bit elements" -- 4
// rows of 16 elements, row r made of the reads of lanes 4r..4r+3 in order --
// "and transposed", so lane j of the group holds column j. Here every lane
// reads back the block it stored (row t/4 of a 16 x 16 tile, columns
// 4*(t%4)..+3), so group g's matrix is tile rows 4g..4g+3 and lane 16g + j
// must receive tile[4g + e][j] as element e: the tile transposed, in the
// MFMA 16x16x16 A-operand order.

constexpr char kLoadTrKernel[] = R"(kernel tr
target gfx950
workgroup 64 1 1
grid 1 1 1
arg X : f16[16, 16] strides [16, 1] readonly
arg Y : f16[64, 4] strides [4, 1] writeonly
lds T : f16[16, 16]
  %x = load X[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4
  store T[tid.x floordiv 4, tid.x mod 4 * 4], %x
  barrier
  %t = load_tr T[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4
  store Y[tid.x, 0], %t
end
)";

TEST(Interpreter, LoadTrGivesEachLaneAColumnOfItsGroupsBlocks) {
  Kernel k = MustParse(kLoadTrKernel);
  std::vector<uint16_t> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint16_t>(0x3c00 + i);  // tile[r][c] = 0x3c00 + 16r + c
  InterpArgs a;
  a.buffers["X"] = Bytes(x);
  a.buffers["Y"] = std::vector<uint8_t>(256 * 2, 0);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<uint16_t> y = From<uint16_t>(a.buffers["Y"]);
  for (int g = 0; g < 4; ++g)
    for (int j = 0; j < 16; ++j)
      for (int e = 0; e < 4; ++e)
        EXPECT_EQ(y[static_cast<size_t>((16 * g + j) * 4 + e)], 0x3c00 + 16 * (4 * g + e) + j)
            << "lane " << 16 * g + j << " element " << e;
  // Two lanes worked by hand: lane 0 gets column 0 of rows 0..3
  // (0x3c00, 0x3c10, 0x3c20, 0x3c30); lane 37 (group 2, column 5) gets
  // tile[8..11][5].
  EXPECT_EQ(y[0 * 4 + 1], 0x3c10);
  EXPECT_EQ(y[37 * 4 + 0], 0x3c85);
  EXPECT_EQ(y[37 * 4 + 3], 0x3cb5);
}

// concat: the first operand's elements, then the second's, per thread.
// X row t holds 0x3c00 + 16t + c (f16 bits); %ba = X[t, 4..7] then X[t, 0..3],
// %ff = (t + 0.5, t + 0.25) then (t + 0.5, t + 0.25) again (f32, one value twice).
TEST(Interpreter, ConcatJoinsTheOperandsInOrder) {
  Kernel k = MustParse(R"(kernel cat
workgroup 64 1 1
grid 1 1 1
arg X : f16[64, 8] strides [8, 1] readonly
arg F : f32[64, 2] strides [2, 1] readonly
arg Y : f16[64, 8] strides [8, 1] writeonly
arg G : f32[64, 4] strides [4, 1] writeonly
  %a = load X[tid.x, 0] : f16x4
  %b = load X[tid.x, 4] : f16x4
  %ba = concat %b, %a : f16x8
  store Y[tid.x, 0], %ba
  %f = load F[tid.x, 0] : f32x2
  %ff = concat %f, %f : f32x4
  store G[tid.x, 0], %ff
end
)");
  std::vector<uint16_t> x(64 * 8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint16_t>(0x3c00 + 16 * (i / 8) + i % 8);
  std::vector<float> f(64 * 2);
  for (int t = 0; t < 64; ++t) f[2 * t] = t + 0.5f, f[2 * t + 1] = t + 0.25f;
  InterpArgs a;
  a.buffers["X"] = Bytes(x);
  a.buffers["F"] = Bytes(f);
  a.buffers["Y"] = std::vector<uint8_t>(64 * 8 * 2, 0);
  a.buffers["G"] = std::vector<uint8_t>(64 * 4 * 4, 0);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<uint16_t> y = From<uint16_t>(a.buffers["Y"]);
  std::vector<float> g = From<float>(a.buffers["G"]);
  for (int t = 0; t < 64; ++t) {
    for (int e = 0; e < 4; ++e) {
      EXPECT_EQ(y[static_cast<size_t>(8 * t + e)], 0x3c00 + 16 * t + 4 + e) << "thread " << t << " element " << e;
      EXPECT_EQ(y[static_cast<size_t>(8 * t + 4 + e)], 0x3c00 + 16 * t + e) << "thread " << t << " element " << 4 + e;
    }
    for (int e = 0; e < 4; ++e)
      EXPECT_EQ(g[static_cast<size_t>(4 * t + e)], t + (e % 2 == 0 ? 0.5f : 0.25f)) << "thread " << t;
  }
  // Thread 3 by hand: X[3, 4..7] = 0x3c34..0x3c37 first.
  EXPECT_EQ(y[3 * 8 + 0], 0x3c34);
  EXPECT_EQ(y[3 * 8 + 7], 0x3c33);
}

// testdata/kernels/load_tr_bf16.kir: two waves, two workgroups, and each
// lane names the block 4 rows further down (mod 16): the group's matrix is
// tile rows 4g+4..4g+7 (mod 16), so lane 16g + j gets tile[(4g + e + 4) mod 16][j].
TEST(Interpreter, LoadTrTestdataKernelPerWave) {
  Kernel k = MustParse(ReadTestFile("testdata/kernels/load_tr_bf16.kir"));
  std::vector<uint16_t> x(64 * 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint16_t>(i * 7 + 1);
  InterpArgs a;
  a.buffers["X"] = Bytes(x);
  a.buffers["Y"] = std::vector<uint8_t>(256 * 4 * 2, 0);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<uint16_t> y = From<uint16_t>(a.buffers["Y"]);
  for (int w = 0; w < 4; ++w)  // wave w = wg.x * 2 + tid.y owns X rows 16w..16w+15
    for (int g = 0; g < 4; ++g)
      for (int j = 0; j < 16; ++j)
        for (int e = 0; e < 4; ++e)
          EXPECT_EQ(y[static_cast<size_t>((64 * w + 16 * g + j) * 4 + e)],
                    x[static_cast<size_t>((16 * w + (4 * g + e + 4) % 16) * 16 + j)])
              << "wave " << w << " lane " << 16 * g + j << " element " << e;
}

// ---------------------------------------------------------------------------
// add_f16.kir: (x + y) in f16, then scaled in f32 and converted back.

TEST(Interpreter, AddF16ThenScaleMatchesIndependentModel) {
  Kernel k = MustParse(ReadTestFile("testdata/kernels/add_f16.kir"));
  const size_t n = 64 * 512;
  std::mt19937 rng(2);
  std::vector<uint16_t> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<uint16_t>(rng());  // every pattern: subnormals, inf, NaN
    // Half of y close to -x, for cancellation and exact ties.
    y[i] = (i % 2) ? static_cast<uint16_t>(rng())
                   : static_cast<uint16_t>((x[i] ^ 0x8000) + static_cast<int>(rng() % 7) - 3);
  }
  const float scale = 0.3f;
  InterpArgs a;
  a.buffers["x"] = Bytes(x);
  a.buffers["y"] = Bytes(y);
  a.buffers["out"] = std::vector<uint8_t>(n * 2, 0xcd);
  a.scalars["scale"] = FBits(scale);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<uint16_t> out = From<uint16_t>(a.buffers["out"]);
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint16_t s = RefF16().Round(DecodeF16(x[i]) + DecodeF16(y[i]));  // exact sum, one rounding
    float sf = static_cast<float>(DecodeF16(s));                     // exact
    float r = static_cast<float>(static_cast<double>(sf) * scale);   // exact product, one rounding
    uint16_t want = RefF16().Round(r);
    if (out[i] != want && bad++ < 10)
      ADD_FAILURE() << i << ": x=0x" << std::hex << x[i] << " y=0x" << y[i] << " got 0x" << out[i]
                    << " want 0x" << want;
  }
  EXPECT_EQ(bad, 0);
}

// ---------------------------------------------------------------------------
// Hand-computed rounding cases for add, mul and fma on f16 and bf16.

constexpr const char kArith[] = R"(kernel arith
workgroup 64 1 1
grid 1 1 1
arg a : T[64] strides [1] readonly
arg b : T[64] strides [1] readonly
arg c : T[64] strides [1] readonly
arg s : T[64] strides [1] writeonly
arg p : T[64] strides [1] writeonly
arg f : T[64] strides [1] writeonly
  %a = load a[tid.x] : T
  %b = load b[tid.x] : T
  %c = load c[tid.x] : T
  %s = add %a, %b
  %p = mul %a, %b
  %f = fma %a, %b, %c
  store s[tid.x], %s
  store p[tid.x], %p
  store f[tid.x], %f
end
)";

struct ArithCase {
  uint16_t a, b, c;
  int which;  // 0 add, 1 mul, 2 fma
  uint16_t want;
  const char* why;
};

void RunArith(const std::string& elem, const std::vector<ArithCase>& cases) {
  Kernel k = MustParse(absl::StrReplaceAll(kArith, {{"T", elem}}));
  ASSERT_LE(cases.size(), 64u);
  std::vector<uint16_t> a(64), b(64), c(64);
  for (size_t i = 0; i < cases.size(); ++i) a[i] = cases[i].a, b[i] = cases[i].b, c[i] = cases[i].c;
  InterpArgs args;
  args.buffers["a"] = Bytes(a);
  args.buffers["b"] = Bytes(b);
  args.buffers["c"] = Bytes(c);
  for (const char* o : {"s", "p", "f"}) args.buffers[o] = std::vector<uint8_t>(128, 0);
  absl::Status st = Interpret(k, args);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<uint16_t> out[3] = {From<uint16_t>(args.buffers["s"]),
                                  From<uint16_t>(args.buffers["p"]),
                                  From<uint16_t>(args.buffers["f"])};
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(out[cases[i].which][i], cases[i].want)
        << elem << " case " << i << " (" << cases[i].why << "): got 0x" << std::hex
        << out[cases[i].which][i] << " want 0x" << cases[i].want;
}

TEST(Interpreter, F16ArithmeticRoundsOnceToNearestEven) {
  enum { kAdd, kMul, kFma };
  RunArith("f16", {
                      {0x3c00, 0x1000, 0, kAdd, 0x3c00, "1 + 2^-11: tie, stays even"},
                      {0x3c01, 0x1000, 0, kAdd, 0x3c02, "1+2^-10 + 2^-11: tie, up to even"},
                      {0x3c00, 0x1001, 0, kAdd, 0x3c01, "just above the tie"},
                      {0x3c00, 0x0fff, 0, kAdd, 0x3c00, "just below the tie"},
                      {0x0001, 0x0001, 0, kAdd, 0x0002, "subnormals add exactly"},
                      {0x03ff, 0x0001, 0, kAdd, 0x0400, "largest subnormal + min = min normal"},
                      {0x8001, 0x0001, 0, kAdd, 0x0000, "x + -x = +0"},
                      {0x8000, 0x8000, 0, kAdd, 0x8000, "-0 + -0 = -0"},
                      {0x7bff, 0x4c00, 0, kAdd, 0x7c00, "65504 + 16 = 65520: tie, to inf"},
                      {0x7bff, 0x4800, 0, kAdd, 0x7bff, "65504 + 8 stays finite"},
                      {0xfbff, 0xcc00, 0, kAdd, 0xfc00, "to -inf"},
                      {0x7c00, 0xfc00, 0, kAdd, 0x7e00, "inf - inf = canonical NaN"},
                      {0x7d00, 0x3c00, 0, kAdd, 0x7e00, "NaN in, canonical NaN out"},
                      {0x0001, 0x3800, 0, kMul, 0x0000, "2^-24 * 0.5: tie between 0 and min, to 0"},
                      {0x0003, 0x3800, 0, kMul, 0x0002, "1.5 * 2^-24: tie, up to 2"},
                      {0x0005, 0x3800, 0, kMul, 0x0002, "2.5 * 2^-24: tie, down to 2"},
                      {0x0001, 0x3a00, 0, kMul, 0x0001, "0.75 * 2^-24: up to min"},
                      {0x0001, 0x3400, 0, kMul, 0x0000, "0.25 * 2^-24: down to 0"},
                      {0x8001, 0x3400, 0, kMul, 0x8000, "negative underflow keeps the sign"},
                      {0x0400, 0x3800, 0, kMul, 0x0200, "min normal / 2 is subnormal"},
                      {0x0401, 0x3800, 0, kMul, 0x0200, "512.5 quanta: tie, to 512"},
                      {0x0403, 0x3800, 0, kMul, 0x0202, "513.5 quanta: tie, to 514"},
                      {0x5bff, 0x5bff, 0, kMul, 0x7bfe, "255.875^2 = 65472.015625"},
                      {0x7800, 0x4000, 0, kMul, 0x7c00, "32768 * 2 overflows"},
                      {0x0000, 0x7c00, 0, kMul, 0x7e00, "0 * inf = NaN"},
                      {0x2800, 0x2400, 0x3c00, kFma, 0x3c00, "1 + 2^-5*2^-6: tie, even"},
                      {0x2800, 0x2400, 0x3c01, kFma, 0x3c02, "1+2^-10 + 2^-11: tie, up"},
                      {0x2801, 0x2400, 0x3c00, kFma, 0x3c01, "1 + 2^-11 + 2^-21: above the tie"},
                      {0xa801, 0x2400, 0x3c01, kFma, 0x3c00, "1 + 2^-11 - 2^-21: below the tie"},
                      {0x3c03, 0x3c01, 0xbc00, kFma, 0x1c01,
                       "(1+3u)(1+u) - 1 = 2^-8 + 3*2^-20: one rounding (two would give 0x1c00)"},
                      {0x0001, 0x3c00, 0x0001, kFma, 0x0002, "subnormal fma"},
                      {0x0001, 0x3800, 0x0000, kFma, 0x0000, "2^-25: tie to 0"},
                      {0x0001, 0x3800, 0x0001, kFma, 0x0002, "1.5 quanta: tie to 2"},
                      {0x7bff, 0x3c00, 0x4c00, kFma, 0x7c00, "fma overflow at the tie"},
                  });
}

TEST(Interpreter, Bf16ArithmeticRoundsOnceToNearestEven) {
  enum { kAdd, kMul, kFma };
  RunArith("bf16", {
                       {0x3f80, 0x3b80, 0, kAdd, 0x3f80, "1 + 2^-8: tie, stays even"},
                       {0x3f81, 0x3b80, 0, kAdd, 0x3f82, "1+2^-7 + 2^-8: tie, up"},
                       {0x3f80, 0x3b81, 0, kAdd, 0x3f81, "just above the tie"},
                       {0x0001, 0x0001, 0, kAdd, 0x0002, "subnormals add exactly"},
                       {0x7f7f, 0x7b00, 0, kAdd, 0x7f80, "max + half ulp (2^119): tie, to inf"},
                       {0x0001, 0x3f00, 0, kMul, 0x0000, "2^-133 * 0.5: tie to 0"},
                       {0x0003, 0x3f00, 0, kMul, 0x0002, "1.5 quanta: tie to 2"},
                       {0x3f81, 0x3f81, 0, kMul, 0x3f82, "(1+2^-7)^2 = 1 + 2^-6 + 2^-14"},
                       {0x3f83, 0x3f81, 0xbf80, kFma, 0x3d01,
                        "(1+3u)(1+u) - 1 = 2^-5 + 3*2^-14: one rounding (two would give 0x3d00)"},
                       {0x7f80, 0x0000, 0x3f80, kFma, 0x7fc0, "inf * 0 + 1 = canonical NaN"},
                   });
}

// ---------------------------------------------------------------------------
// cvt.

constexpr const char kCvt[] = R"(kernel cvt
workgroup 64 1 1
grid 1 1 1
arg x : f32[64] strides [1] readonly
arg h : f16[64] strides [1] readonly
arg g : bf16[64] strides [1] readonly
arg xh : f16[64] strides [1] writeonly
arg xg : bf16[64] strides [1] writeonly
arg hf : f32[64] strides [1] writeonly
arg hg : bf16[64] strides [1] writeonly
arg gf : f32[64] strides [1] writeonly
arg gh : f16[64] strides [1] writeonly
  %x = load x[tid.x] : f32
  %h = load h[tid.x] : f16
  %g = load g[tid.x] : bf16
  %xh = cvt %x : f16
  %xg = cvt %x : bf16
  %hf = cvt %h : f32
  %hg = cvt %h : bf16
  %gf = cvt %g : f32
  %gh = cvt %g : f16
  store xh[tid.x], %xh
  store xg[tid.x], %xg
  store hf[tid.x], %hf
  store hg[tid.x], %hg
  store gf[tid.x], %gf
  store gh[tid.x], %gh
end
)";

TEST(Interpreter, ConversionsRoundToNearestEven) {
  Kernel k = MustParse(kCvt);
  // f32 -> f16 and f32 -> bf16: {input bits, f16, bf16}.
  struct C32 {
    uint32_t x;
    uint16_t h, g;
  };
  std::vector<C32> c32 = {
      {0x3f801000, 0x3c00, 0x3f80},  // 1 + 2^-11: f16 tie, stays even
      {0x3f801001, 0x3c01, 0x3f80},  // above the f16 tie
      {0x3f803000, 0x3c02, 0x3f80},  // 1 + 3*2^-11: f16 tie, up
      {0x3f808000, 0x3c04, 0x3f80},  // 1 + 2^-8: bf16 tie, stays even
      {0x3f818000, 0x3c0c, 0x3f82},  // 1 + 2^-7 + 2^-8: bf16 tie, up
      {0x3f808001, 0x3c04, 0x3f81},  // above the bf16 tie
      {0x33000000, 0x0000, 0x3300},  // 2^-25: f16 tie between 0 and 2^-24
      {0x33c00000, 0x0002, 0x33c0},  // 1.5 * 2^-24: f16 tie, up to 2
      {0x33000001, 0x0001, 0x3300},  // just above 2^-25
      {0x477ff000, 0x7c00, 0x4780},  // 65520: f16 tie to inf; bf16 65536
      {0x477fefff, 0x7bff, 0x4780},  // just below 65520
      {0xb2800000, 0x8000, 0xb280},  // -2^-26 -> -0
      {0x00000001, 0x0000, 0x0000},  // f32 denormal
      {0x00018000, 0x0000, 0x0002},  // bf16 subnormal tie, up to even
      {0x00008000, 0x0000, 0x0000},  // bf16 subnormal tie, down to even
      {0x7f7f8000, 0x7c00, 0x7f80},  // bf16 max + half ulp -> inf
      {0x7f7f7fff, 0x7c00, 0x7f7f}, {0xff800000, 0xfc00, 0xff80},  // -inf
  };
  // f16 -> bf16 (one rounding) and bf16 -> f16 (one rounding).
  struct C16 {
    uint16_t in, out;
  };
  std::vector<C16> h2g = {{0x3c01, 0x3f80}, {0x3c04, 0x3f80}, {0x3c0c, 0x3f82},
                          {0x0001, 0x3380}, {0x7bff, 0x4780}, {0xfc00, 0xff80}};
  std::vector<C16> g2h = {{0x3f81, 0x3c08}, {0x0001, 0x0000}, {0x4780, 0x7c00},
                          {0x477f, 0x7bf8}, {0x3380, 0x0001}, {0x3300, 0x0000}};
  std::vector<uint32_t> x(64, 0);
  std::vector<uint16_t> h(64, 0), g(64, 0);
  for (size_t i = 0; i < c32.size(); ++i) x[i] = c32[i].x;
  x[40] = 0x7fc00001;  // NaNs
  x[41] = 0xff800001;
  for (size_t i = 0; i < h2g.size(); ++i) h[i] = h2g[i].in;
  for (size_t i = 0; i < g2h.size(); ++i) g[i] = g2h[i].in;
  for (int i = 0; i < 20; ++i) h[20 + i] = static_cast<uint16_t>(0x0001 + 0x0c39 * i);
  for (int i = 0; i < 20; ++i) g[20 + i] = static_cast<uint16_t>(0x0001 + 0x0f31 * i);
  InterpArgs a;
  a.buffers["x"] = Bytes(x);
  a.buffers["h"] = Bytes(h);
  a.buffers["g"] = Bytes(g);
  for (const char* o : {"xh", "xg", "hg", "gh"}) a.buffers[o] = std::vector<uint8_t>(128, 0);
  for (const char* o : {"hf", "gf"}) a.buffers[o] = std::vector<uint8_t>(256, 0);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  auto xh = From<uint16_t>(a.buffers["xh"]), xg = From<uint16_t>(a.buffers["xg"]);
  auto hg = From<uint16_t>(a.buffers["hg"]), gh = From<uint16_t>(a.buffers["gh"]);
  auto hf = From<uint32_t>(a.buffers["hf"]), gf = From<uint32_t>(a.buffers["gf"]);
  for (size_t i = 0; i < c32.size(); ++i) {
    EXPECT_EQ(xh[i], c32[i].h) << std::hex << "f32 0x" << c32[i].x << " -> f16";
    EXPECT_EQ(xg[i], c32[i].g) << std::hex << "f32 0x" << c32[i].x << " -> bf16";
  }
  for (int i : {40, 41}) {
    EXPECT_EQ(xh[i] & 0x7e00, 0x7e00) << "quiet f16 NaN";
    EXPECT_EQ(xg[i] & 0x7fc0, 0x7fc0) << "quiet bf16 NaN";
  }
  for (size_t i = 0; i < h2g.size(); ++i)
    EXPECT_EQ(hg[i], h2g[i].out) << std::hex << "f16 0x" << h2g[i].in << " -> bf16";
  for (size_t i = 0; i < g2h.size(); ++i)
    EXPECT_EQ(gh[i], g2h[i].out) << std::hex << "bf16 0x" << g2h[i].in << " -> f16";
  for (int i = 0; i < 64; ++i) {  // widening is exact
    EXPECT_EQ(static_cast<double>(FFrom(hf[i])), DecodeF16(h[i])) << i;
    EXPECT_EQ(static_cast<double>(FFrom(gf[i])), DecodeBf16(g[i])) << i;
    EXPECT_EQ(hg[i], RefBf16().Round(DecodeF16(h[i]))) << i;
    EXPECT_EQ(gh[i], RefF16().Round(DecodeBf16(g[i]))) << i;
  }
}

// ---------------------------------------------------------------------------
// fp8 (issue 19): loads and stores of bytes, cvt f32 -> fp8 (nearest even,
// saturating) and fp8 -> f32 (exact); values worked out by hand from the
// formats' definitions (compiler/ir/types.h).

TEST(Interpreter, Fp8LoadsStoresAndConversions) {
  Kernel k2 = MustParse(R"(kernel f8
workgroup 64 1 1
grid 1 1 1
arg x : f32[256] strides [1] readonly
arg q : f8e4m3fnuz[256] strides [1] writeonly
arg b : f8e5m2fnuz[256] strides [1] writeonly
arg c : f8e4m3fn[256] strides [1] writeonly
arg e : f8e5m2[256] strides [1] writeonly
arg p : f8e4m3fnuz[64] strides [1] readonly
arg y : f32[64] strides [1] writeonly
  %v = load x[tid.x * 4] : f32x4
  %qv = cvt %v : f8e4m3fnuzx4
  store q[tid.x * 4], %qv
  %bv = cvt %v : f8e5m2fnuzx4
  store b[tid.x * 4], %bv
  %cv = cvt %v : f8e4m3fnx4
  store c[tid.x * 4], %cv
  %ev = cvt %v : f8e5m2x4
  store e[tid.x * 4], %ev
  %pv = load p[tid.x] : f8e4m3fnuz
  %pf = cvt %pv : f32
  store y[tid.x], %pf
end
)");
  // {f32 input, e4m3fnuz, e5m2fnuz, e4m3fn, e5m2}
  struct C {
    float x;
    uint8_t q, b, c, e;
  };
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<C> cases = {
      {1.0f, 0x40, 0x40, 0x38, 0x3c},
      {-1.0f, 0xc0, 0xc0, 0xb8, 0xbc},
      {1.0625f, 0x40, 0x40, 0x38, 0x3c},    // e4m3: tie 1 | 1.125, even; e5m2: nearer 1
      {1.1875f, 0x42, 0x41, 0x3a, 0x3d},    // e4m3: tie 1.125 | 1.25, even 1.25; e5m2: nearer 1.25
      {240.0f, 0x7f, 0x60, 0x77, 0x5c},     // e4m3fnuz max; e5m2: tie 224 | 256, even 256
      {1000.0f, 0x7f, 0x68, 0x7e, 0x64},    // e4m3 saturates (240, 448); e5m2: nearer 1024
      {1e6f, 0x7f, 0x7f, 0x7e, 0x7b},       // saturates everywhere
      {inf, 0x7f, 0x7f, 0x7e, 0x7c},        // +inf: max, but inf in e5m2
      {-inf, 0xff, 0xff, 0xfe, 0xfc},
      {-0.0f, 0x00, 0x00, 0x80, 0x80},      // FNUZ has no -0
      {0x1p-10f, 0x01, 0x18, 0x00, 0x14},   // e4m3fnuz min subnormal; e4m3fn: half its 2^-9, tie to 0
      {0x1p-11f, 0x00, 0x14, 0x00, 0x10},   // e4m3fnuz: half the min subnormal, tie to 0
      {-0x1p-12f, 0x00, 0x90, 0x80, 0x8c},  // e4m3fnuz: rounds to 0, and FNUZ's zero is +0
      {0x1p-17f, 0x00, 0x01, 0x00, 0x00},   // e5m2fnuz min subnormal; e5m2: tie to 0
  };
  std::vector<float> x(256, 0.0f);
  for (size_t i = 0; i < cases.size(); ++i) x[i] = cases[i].x;
  x[200] = std::numeric_limits<float>::quiet_NaN();
  std::vector<uint8_t> p(64);
  for (int i = 0; i < 64; ++i) p[i] = static_cast<uint8_t>(i * 4 + 1);  // odd codes, 0x81 included
  InterpArgs a;
  a.buffers["x"] = Bytes(x);
  a.buffers["p"] = p;
  for (const char* o : {"q", "b", "c", "e"}) a.buffers[o] = std::vector<uint8_t>(256, 0);
  a.buffers["y"] = std::vector<uint8_t>(256, 0);
  absl::Status st = Interpret(k2, a);
  ASSERT_TRUE(st.ok()) << st;
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(a.buffers["q"][i], cases[i].q) << i << " e4m3fnuz of " << cases[i].x;
    EXPECT_EQ(a.buffers["b"][i], cases[i].b) << i << " e5m2fnuz of " << cases[i].x;
    EXPECT_EQ(a.buffers["c"][i], cases[i].c) << i << " e4m3fn of " << cases[i].x;
    EXPECT_EQ(a.buffers["e"][i], cases[i].e) << i << " e5m2 of " << cases[i].x;
  }
  EXPECT_EQ(a.buffers["q"][200], 0x80);  // NaN
  EXPECT_EQ(a.buffers["b"][200], 0x80);
  EXPECT_EQ(a.buffers["c"][200], 0x7f);
  EXPECT_EQ(a.buffers["e"][200], 0x7f);
  // fp8 -> f32, by hand: code 0x01 = 2^-10, 0x41 = 1.125, 0x81 = -2^-10,
  // 0xfd = -(1 + 5/8) * 2^7 = -208.
  std::vector<float> y = From<float>(a.buffers["y"]);
  EXPECT_EQ(y[0], 0x1p-10f);
  EXPECT_EQ(y[16], 1.125f);
  EXPECT_EQ(y[32], -0x1p-10f);
  EXPECT_EQ(y[63], -208.0f);
}

// 32-element fp8 values: a thread's value once had room for 16 elements
// (the heap was overwritten past them; found by testdata/kernels/move_fp8.kir).
TEST(Interpreter, Fp8X32ValuesKeepAllElements) {
  Kernel k = MustParse(R"(kernel f8
workgroup 64 1 1
grid 1 1 1
arg p : f8e5m2fnuz[64, 32] strides [32, 1] readonly
arg q : f8e5m2fnuz[64, 32] strides [32, 1] writeonly
arg y : f32[64, 16] strides [16, 1] writeonly
  %v = load p[tid.x, 0] : f8e5m2fnuzx32
  store q[tid.x, 0], %v
  %h = slice %v, 16 : f8e5m2fnuzx16
  %f = cvt %h : f32x16
  store y[tid.x, 0], %f
end
)");
  std::vector<uint8_t> p(64 * 32);
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i * 7 + 3);
  InterpArgs a;
  a.buffers["p"] = p;
  a.buffers["q"] = std::vector<uint8_t>(64 * 32, 0);
  a.buffers["y"] = std::vector<uint8_t>(64 * 16 * 4, 0);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(a.buffers["q"], p);
  std::vector<float> y = From<float>(a.buffers["y"]);
  // Row 0, element 16 + 1: code (17 * 7 + 3) & 0xff = 0x7a = 0 11110 10:
  // 2^(30 - 16) * 1.5 = 24576.
  EXPECT_EQ(y[1], 24576.0f);
}

TEST(InterpreterErrors, Fp8ArithmeticIsRefused) {
  Kernel k = MustParse(R"(kernel f8
workgroup 64 1 1
grid 1 1 1
arg p : f8e4m3fnuz[64] strides [1] readwrite
  %v = load p[tid.x] : f8e4m3fnuz
  %w = add %v, %v
  store p[tid.x], %w
end
)");
  InterpArgs a;
  a.buffers["p"] = std::vector<uint8_t>(64, 0x40);
  absl::Status st = Interpret(k, a);
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("fp8 values (f8e4m3fnuz) take no arithmetic"));
}

// ---------------------------------------------------------------------------
// i32 arithmetic and broadcasts.

TEST(Interpreter, I32WrapsAndScalarsBroadcast) {
  Kernel k = MustParse(R"(kernel ints
workgroup 64 1 1
grid 1 1 1
arg x : i32[64] strides [1] readonly
arg y : i32[64] strides [1] readonly
arg n : i32
arg s : i32[64] strides [1] writeonly
arg p : i32[64] strides [1] writeonly
arg q : i32[256] strides [1] writeonly
  %x = load x[tid.x] : i32
  %y = load y[tid.x] : i32
  %s = add %x, %y
  %p = mul %x, %y
  %v = load x[tid.x floordiv 4 * 4] : i32x4
  %q0 = add %v, n
  %q = mul %q0, %x
  store s[tid.x], %s
  store p[tid.x], %p
  store q[tid.x * 4], %q
end
)");
  std::vector<int32_t> x(64), y(64);
  for (int i = 0; i < 64; ++i) x[i] = i * 100003 - 7, y[i] = -i * 31 + 5;
  x[0] = 0x7fffffff, y[0] = 1;
  x[1] = 0x10000, y[1] = 0x10000;
  x[2] = -3, y[2] = 5;
  InterpArgs a;
  a.buffers["x"] = Bytes(x);
  a.buffers["y"] = Bytes(y);
  a.scalars["n"] = static_cast<uint32_t>(-1000);
  for (const char* o : {"s", "p"}) a.buffers[o] = std::vector<uint8_t>(256, 0);
  a.buffers["q"] = std::vector<uint8_t>(1024, 0);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  auto s = From<uint32_t>(a.buffers["s"]), p = From<uint32_t>(a.buffers["p"]);
  auto q = From<uint32_t>(a.buffers["q"]);
  EXPECT_EQ(s[0], 0x80000000u);
  EXPECT_EQ(p[1], 0u);
  EXPECT_EQ(static_cast<int32_t>(p[2]), -15);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(s[i], static_cast<uint32_t>(x[i]) + static_cast<uint32_t>(y[i]));
    EXPECT_EQ(p[i], static_cast<uint32_t>(x[i]) * static_cast<uint32_t>(y[i]));
    for (int e = 0; e < 4; ++e)
      EXPECT_EQ(q[i * 4 + e],
                (static_cast<uint32_t>(x[i / 4 * 4 + e]) - 1000u) * static_cast<uint32_t>(x[i]));
  }
}

// ---------------------------------------------------------------------------
// Guarded accesses at the shape's edges.

constexpr const char kGuarded[] = R"(kernel guarded
workgroup 64 1 1
grid 1 1 1
arg src : f32[10, 6] strides [8, 1] readonly
arg dst : f32[10, 6] strides [8, 1] writeonly
arg all : f32[16, 8] strides [8, 1] writeonly
arg col : f32[64, 4] strides [4, 1] writeonly
  %v = load guarded src[tid.x floordiv 4 - 2, tid.x mod 4 * 2 - 1] : f32x2
  store guarded dst[tid.x floordiv 4 - 2, tid.x mod 4 * 2 - 1], %v
  store all[tid.x floordiv 4, tid.x mod 4 * 2], %v
  %w = load guarded src[tid.x - 3, 5] along 0 : f32x4
  store col[tid.x, 0], %w
end
)";

TEST(Interpreter, GuardedAccessesAtShapeEdges) {
  Kernel k = MustParse(kGuarded);
  const int span = 1 + 9 * 8 + 5;  // 78 elements
  std::vector<float> src(span);
  for (int i = 0; i < span; ++i) src[i] = (i % 8 < 6) ? 100.0f + i : -1.0f;  // -1: padding
  InterpArgs a;
  a.buffers["src"] = Bytes(src);
  a.buffers["dst"] = Bytes(std::vector<float>(span, 7.0f));
  a.buffers["all"] = Bytes(std::vector<float>(128, 7.0f));
  a.buffers["col"] = Bytes(std::vector<float>(256, 7.0f));
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  auto at = [&](int r, int c) { return 100.0f + r * 8 + c; };
  auto in = [](int r, int c) { return r >= 0 && r < 10 && c >= 0 && c < 6; };
  auto dst = From<float>(a.buffers["dst"]);
  for (int i = 0; i < span; ++i) {
    int r = i / 8, c = i % 8;
    EXPECT_EQ(dst[i], c < 6 ? at(r, c) : 7.0f) << "dst element " << i;  // padding untouched
  }
  auto all = From<float>(a.buffers["all"]);
  for (int R = 0; R < 16; ++R)
    for (int C = 0; C < 8; ++C)
      EXPECT_EQ(all[R * 8 + C], in(R - 2, C - 1) ? at(R - 2, C - 1) : 0.0f) << R << "," << C;
  auto col = From<float>(a.buffers["col"]);
  for (int t = 0; t < 64; ++t)
    for (int e = 0; e < 4; ++e)
      EXPECT_EQ(col[t * 4 + e], in(t - 3 + e, 5) ? at(t - 3 + e, 5) : 0.0f) << t << "," << e;
}

TEST(Interpreter, UnguardedOutOfShapeIsAnErrorNamingTheOp) {
  std::string text = absl::StrReplaceAll(
      kGuarded, {{"load guarded src[tid.x floordiv", "load src[tid.x floordiv"}});
  Kernel k = MustParse(text);
  InterpArgs a;
  a.buffers["src"] = std::vector<uint8_t>(78 * 4, 0);
  a.buffers["dst"] = std::vector<uint8_t>(78 * 4, 0);
  a.buffers["all"] = std::vector<uint8_t>(128 * 4, 0);
  a.buffers["col"] = std::vector<uint8_t>(256 * 4, 0);
  absl::Status st = Interpret(k, a);
  EXPECT_EQ(st.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(st.message()),
              StartsWith("8:3: error: in '%v = load src[tid.x floordiv 4 - 2, tid.x mod 4 * 2 - "
                         "1] : f32x2': thread (0, 0, 0) of workgroup (0, 0, 0): element 0 is at "
                         "index [-2, -1], outside the shape [10, 6] of src"));

  // A store past the end of the row (column 6 of 6) is also an error, though
  // the bytes exist (they are the row's padding).
  Kernel k2 = MustParse(R"(kernel s
workgroup 64 1 1
grid 1 1 1
arg dst : f32[10, 6] strides [8, 1] writeonly
  %z = zero f32x2
  store dst[tid.x mod 10, 5], %z
end
)");
  InterpArgs a2;
  a2.buffers["dst"] = std::vector<uint8_t>(78 * 4, 0);
  st = Interpret(k2, a2);
  EXPECT_EQ(st.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("6:3: error: in 'store dst[tid.x mod 10, 5], %z'"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("element 1 is at index [0, 6]"));
}

// ---------------------------------------------------------------------------
// for loops with loop-carried values.

TEST(Interpreter, ForLoopAccumulatesIterArgs) {
  Kernel k = MustParse(R"(kernel loop
workgroup 64 1 1
grid 1 1 1
arg src : f32[8, 256] strides [256, 1] readonly
arg dst : f32[256] strides [1] writeonly
arg cnt : f32[64] strides [1] writeonly
  %z = zero f32x4
  %one = const f32 1
  %zc = zero f32
  %acc, %n = for %k = 0 to 8 step 2 iter(%c = %z, %m = %zc) {
    %in = for %j = 0 to 2 iter(%d = %c) {
      %v = load src[%k + %j, tid.x * 4] : f32x4
      %d2 = add %d, %v
      yield %d2
    }
    %m2 = add %m, %one
    yield %in, %m2
  }
  store dst[tid.x * 4], %acc
  store cnt[tid.x], %n
end
)");
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> src(8 * 256);
  for (float& f : src) f = u(rng);
  InterpArgs a;
  a.buffers["src"] = Bytes(src);
  a.buffers["dst"] = std::vector<uint8_t>(256 * 4, 0);
  a.buffers["cnt"] = std::vector<uint8_t>(64 * 4, 0);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  auto dst = From<float>(a.buffers["dst"]);
  auto cnt = From<float>(a.buffers["cnt"]);
  for (int i = 0; i < 256; ++i) {
    float want = 0;
    for (int r = 0; r < 8; ++r) want += src[r * 256 + i];  // f32, in iteration order
    EXPECT_EQ(FBits(dst[i]), FBits(want)) << i;
  }
  for (int t = 0; t < 64; ++t) EXPECT_EQ(cnt[t], 4.0f);
}

// ---------------------------------------------------------------------------
// LDS staging across waves with a barrier; LDS is fresh per workgroup and a
// load of an element no thread has stored is an error (undefined on hardware).

TEST(Interpreter, LdsStagingAcrossWavesWithBarrier) {
  Kernel k = MustParse(R"(kernel lds_rev
workgroup 64 2 1
grid 2 1 1
arg src : f32[2, 128] strides [128, 1] readonly
arg dst : f32[2, 128] strides [128, 1] writeonly
lds T : f32[128]
  %v = load src[wg.x, tid.y * 64 + tid.x] : f32
  store T[tid.y * 64 + tid.x], %v
  barrier
  %r = load T[127 - (tid.y * 64 + tid.x)] : f32
  store dst[wg.x, tid.y * 64 + tid.x], %r
end
)");
  std::vector<float> src(256);
  for (int i = 0; i < 256; ++i) src[i] = 1.0f + i;
  InterpArgs a;
  a.buffers["src"] = Bytes(src);
  a.buffers["dst"] = Bytes(std::vector<float>(256, -1.0f));
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  auto dst = From<float>(a.buffers["dst"]);
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 128; ++i) EXPECT_EQ(dst[w * 128 + i], src[w * 128 + 127 - i]) << w << "," << i;
}

TEST(InterpreterErrors, LoadOfUnwrittenLdsIsAnError) {
  // Threads store T[32..63] only; thread 0 loads T[0]. Also in the second
  // workgroup: what the first stored does not count (LDS is per workgroup).
  const char* text = R"(kernel lds_uninit
workgroup 64 1 1
grid 2 1 1
arg x : f32[64] strides [1] readonly
arg y : f32[2, 64] strides [64, 1] writeonly
lds T : f32[2, 64] pad 1
  %v = load x[tid.x] : f32
  store guarded T[wg.x, tid.x + 32], %v
  %t = load T[wg.x, tid.x] : f32
  store y[wg.x, tid.x], %t
end
)";
  Kernel k = MustParse(text);
  InterpArgs a;
  a.buffers["x"] = Bytes(std::vector<float>(64, 1.0f));
  a.buffers["y"] = Bytes(std::vector<float>(128, 0.0f));
  absl::Status st = Interpret(k, a);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("in '%t = load T[wg.x, tid.x] : f32': thread (0, 0, 0) of workgroup (0, 0, 0): "
                        "element 0 is T[0, 0], which no thread of the workgroup has stored"));
  // Every element stored before it is loaded (a guarded load's out-of-shape
  // elements read 0 without touching LDS): fine.
  Kernel ok = MustParse(R"(kernel lds_ok
workgroup 64 1 1
grid 2 1 1
arg x : f32[64] strides [1] readonly
arg y : f32[2, 64] strides [64, 1] writeonly
lds T : f32[2, 64] pad 1
  %v = load x[tid.x] : f32
  store T[wg.x, tid.x], %v
  %t = load guarded T[wg.x, tid.x + 1] : f32
  store y[wg.x, tid.x], %t
end
)");
  InterpArgs b;
  b.buffers["x"] = Bytes(std::vector<float>(64, 2.0f));
  b.buffers["y"] = Bytes(std::vector<float>(128, -1.0f));
  st = Interpret(ok, b);
  ASSERT_TRUE(st.ok()) << st;
  auto y = From<float>(b.buffers["y"]);
  EXPECT_EQ(y[62], 2.0f);
  EXPECT_EQ(y[63], 0.0f);
  EXPECT_EQ(y[127], 0.0f);
  // Workgroup 1 reading row 0, which only workgroup 0 stored: an error there.
  Kernel cross = MustParse(R"(kernel lds_cross
workgroup 64 1 1
grid 2 1 1
arg x : f32[64] strides [1] readonly
arg y : f32[2, 64] strides [64, 1] writeonly
lds T : f32[2, 64]
  %v = load x[tid.x] : f32
  store guarded T[0 - wg.x, tid.x], %v
  %t = load T[0, tid.x] : f32
  store y[wg.x, tid.x], %t
end
)");
  InterpArgs c;
  c.buffers["x"] = Bytes(std::vector<float>(64, 2.0f));
  c.buffers["y"] = Bytes(std::vector<float>(128, -1.0f));
  st = Interpret(cross, c);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("of workgroup (1, 0, 0): element 0 is T[0, 0]"));
  EXPECT_EQ(From<float>(c.buffers["y"])[5], 2.0f);  // workgroup 0 finished
}

// ---------------------------------------------------------------------------
// Races on buffers: two threads of a dispatch storing one element, or one
// loading an element another stores, are errors (the result would depend on
// timing on hardware); a thread's own loads and stores are not.

absl::Status RunRace(const std::string& text, InterpArgs* a) {
  Kernel k = MustParse(text);
  return Interpret(k, *a);
}

TEST(InterpreterErrors, EveryThreadStoresOneElement) {
  InterpArgs a;
  a.buffers["x"] = Bytes(std::vector<float>(64, 1.0f));
  a.buffers["C"] = Bytes(std::vector<float>(64, 0.0f));
  absl::Status st = RunRace(R"(kernel race
workgroup 64 1 1
grid 1 1 1
arg x : f32[64] strides [1] readonly
arg C : f32[64] strides [1] writeonly
  %v = load x[tid.x] : f32
  store C[0], %v
end
)", &a);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_EQ(std::string(st.message()),
            "7:3: error: in 'store C[0], %v': thread (1, 0, 0) of workgroup (0, 0, 0): element 0 "
            "is C[0], which thread (0, 0, 0) of workgroup (0, 0, 0) stored earlier (7:3: 'store "
            "C[0], %v'): global-memory race: two threads store to one buffer element in the same "
            "dispatch; which value remains depends on timing on hardware (kirc orders no threads "
            "through global memory within a dispatch)");
}

TEST(InterpreterErrors, TwoWorkgroupsStoreOneElement) {
  const char* text = R"(kernel race
workgroup 64 2 1
grid 2 1 1
arg x : f32[256] strides [1] readonly
arg C : f32[256] strides [1] writeonly
  %v = load x[wg.x * 128 + tid.y * 64 + tid.x] : f32
  store C[IDX], %v
end
)";
  InterpArgs a;
  a.buffers["x"] = Bytes(std::vector<float>(256, 1.0f));
  a.buffers["C"] = Bytes(std::vector<float>(256, 0.0f));
  absl::Status st =
      RunRace(absl::StrReplaceAll(text, {{"IDX", "wg.x * 128 + tid.y * 64 + tid.x"}}), &a);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(From<float>(a.buffers["C"])[255], 1.0f);
  st = RunRace(absl::StrReplaceAll(text, {{"IDX", "tid.y * 64 + tid.x"}}), &a);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("thread (0, 0, 0) of workgroup (1, 0, 0): element 0 is C[0], which thread "
                        "(0, 0, 0) of workgroup (0, 0, 0) stored earlier (7:3: 'store C[tid.y * 64 "
                        "+ tid.x], %v'): global-memory race: two threads store"));
}

TEST(InterpreterErrors, LoadOfANeighboursElement) {
  // Thread t stores y[t], then loads y[t + 1] (guarded), which thread t + 1 stored.
  const char* text = R"(kernel race
workgroup 64 1 1
grid 1 1 1
arg x : f32[64] strides [1] readonly
arg y : f32[64] strides [1] readwrite
  %v = load x[tid.x] : f32
  store y[tid.x], %v
  %w = load guarded y[tid.x + OFF] : f32
  %s = add %v, %w
  store y[tid.x], %s
end
)";
  InterpArgs a;
  a.buffers["x"] = Bytes(std::vector<float>(64, 1.5f));
  a.buffers["y"] = Bytes(std::vector<float>(64, 0.0f));
  absl::Status st = RunRace(absl::StrReplaceAll(text, {{"OFF", "0"}}), &a);
  ASSERT_TRUE(st.ok()) << st;  // its own element: no race
  EXPECT_EQ(From<float>(a.buffers["y"])[7], 3.0f);
  st = RunRace(absl::StrReplaceAll(text, {{"OFF", "1"}}), &a);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("8:3: error: in '%w = load guarded y[tid.x + 1] : f32': thread (0, 0, 0) "
                        "of workgroup (0, 0, 0): element 0 is y[1], which thread (1, 0, 0) of "
                        "workgroup (0, 0, 0) stored earlier (7:3: 'store y[tid.x], %v'): "
                        "global-memory race: a thread loads a buffer element another thread "
                        "stores"));
}

TEST(InterpreterErrors, StoreToAnElementANeighbourLoaded) {
  // C = beta * C + x read-modify-writes each thread's own element (fine);
  // loading C[t + 1] instead races with thread t + 1's store.
  const char* text = R"(kernel race
workgroup 64 1 1
grid 1 1 1
arg x : f32[64] strides [1] readonly
arg C : f32[65] strides [1] readwrite
arg beta : f32
  %v = load x[tid.x] : f32
  %c = load C[tid.x + OFF] : f32
  %s = fma %c, beta, %v
  store C[tid.x], %s
end
)";
  InterpArgs a;
  a.buffers["x"] = Bytes(std::vector<float>(64, 1.0f));
  a.buffers["C"] = Bytes(std::vector<float>(65, 2.0f));
  a.scalars["beta"] = FBits(0.5f);
  absl::Status st = RunRace(absl::StrReplaceAll(text, {{"OFF", "0"}}), &a);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(From<float>(a.buffers["C"])[63], 2.0f);
  st = RunRace(absl::StrReplaceAll(text, {{"OFF", "1"}}), &a);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("10:3: error: in 'store C[tid.x], %s': thread (1, 0, 0) of workgroup (0, "
                        "0, 0): element 0 is C[1], which thread (0, 0, 0) of workgroup (0, 0, 0) "
                        "loaded earlier (8:3: '%c = load C[tid.x + 1] : f32'): global-memory race: "
                        "a thread stores to a buffer element another thread loads"));
}

TEST(InterpreterErrors, StoreToAnElementSeveralThreadsLoaded) {
  // Every thread loads C[0]; one thread (the only one in shape) stores it.
  // Two of the loaders are kept (the last two): one is always another thread.
  const char* text = R"(kernel race
workgroup 64 1 1
grid 1 1 1
arg C : f32[64] strides [1] readwrite
  %c = load C[0] : f32
  store guarded C[tid.x - WHO], %c
end
)";
  InterpArgs a;
  a.buffers["C"] = Bytes(std::vector<float>(64, 2.0f));
  absl::Status st = RunRace(absl::StrReplaceAll(text, {{"WHO", "0"}}), &a);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("thread (0, 0, 0) of workgroup (0, 0, 0): element 0 is C[0], which thread "
                        "(63, 0, 0) of workgroup (0, 0, 0) loaded earlier"));
  st = RunRace(absl::StrReplaceAll(text, {{"WHO", "63"}}), &a);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("thread (63, 0, 0) of workgroup (0, 0, 0): element 0 is C[0], which thread "
                        "(62, 0, 0) of workgroup (0, 0, 0) loaded earlier"));
}

TEST(InterpreterErrors, OverlappingVectorStores) {
  // Thread t stores y[2t .. 2t + 3]: thread 1's first two elements are thread 0's last two.
  InterpArgs a;
  a.buffers["y"] = Bytes(std::vector<float>(130, 0.0f));
  absl::Status st = RunRace(R"(kernel race
workgroup 64 1 1
grid 1 1 1
arg y : f32[130] strides [1] writeonly
  %z = zero f32x4
  store y[tid.x * 2], %z
end
)", &a);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("thread (1, 0, 0) of workgroup (0, 0, 0): element 0 is y[2], which thread "
                        "(0, 0, 0) of workgroup (0, 0, 0) stored earlier"));
}

TEST(InterpreterErrors, WaveOpBudget) {
  Kernel k = MustParse(R"(kernel spin
workgroup 64 2 1
grid 1 1 1
arg y : f32[128] strides [1] writeonly
  %z = zero f32
  %r = for %i = 0 to 2000000000 iter(%c = %z) {
    %d = add %c, %c
    yield %d
  }
  store y[tid.y * 64 + tid.x], %r
end
)");
  InterpArgs a;
  a.buffers["y"] = Bytes(std::vector<float>(128, -1.0f));
  InterpOptions o;
  o.max_wave_ops = 1000;
  o.budget_hint = "raise it with --max-instructions=N";
  absl::Status st = Interpret(k, a, o);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("exceeded its budget of 1000 wave-ops"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("; raise it with --max-instructions=N"));
  // A short loop fits: 1 (zero) + 1 (for) + 10 * (1 iteration + 1 add) + 1 (store) = 23 ops
  // per wave, 2 waves: 46 wave-ops.
  Kernel s = k;
  s.body[1].hi = 10;
  o.max_wave_ops = 46;
  ASSERT_TRUE(Interpret(s, a, o).ok());
  EXPECT_EQ(From<float>(a.buffers["y"])[0], 0.0f);
  o.max_wave_ops = 45;
  EXPECT_EQ(Interpret(s, a, o).code(), absl::StatusCode::kResourceExhausted);
}

// ---------------------------------------------------------------------------
// MFMA.

uint16_t RandomHalf(std::mt19937& rng, bool bf16) {
  uint32_t sign = (rng() & 1) << 15;
  if (bf16) return static_cast<uint16_t>(sign | ((124 + rng() % 5) << 7) | (rng() & 0x7f));
  return static_cast<uint16_t>(sign | ((12 + rng() % 5) << 10) | (rng() & 0x3ff));
}

// Runs an mma kernel (A: M x K row-major, B stored N x K row-major, C = A * B^T)
// and returns C.
std::vector<float> RunMma(const Kernel& k, int M, int N, int K, const std::vector<uint16_t>& A,
                          const std::vector<uint16_t>& B) {
  InterpArgs a;
  a.buffers["A"] = Bytes(A);
  a.buffers["B"] = Bytes(B);
  a.buffers["C"] = Bytes(std::vector<float>(M * N, NAN));
  absl::Status st = Interpret(k, a);
  EXPECT_TRUE(st.ok()) << st;
  (void)K;
  return From<float>(a.buffers["C"]);
}

void CheckMmaRandom(const std::string& text, int M, int N, int K, bool bf16) {
  Kernel k = MustParse(text);
  std::mt19937 rng(M * 1000 + K + (bf16 ? 1 : 0));
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<uint16_t> A(M * K), B(N * K);
    for (uint16_t& x : A) x = RandomHalf(rng, bf16);
    for (uint16_t& x : B) x = RandomHalf(rng, bf16);
    std::vector<float> C = RunMma(k, M, N, K, A, B);
    auto dec = bf16 ? DecodeBf16 : DecodeF16;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = 0;
        for (int kk = 0; kk < K; ++kk) want += dec(A[i * K + kk]) * dec(B[j * K + kk]);
        double got = C[i * N + j];
        EXPECT_LE(std::fabs(got - want), 1e-6 * std::fabs(want) + 1e-12)
            << k.name << " C[" << i << "][" << j << "] got " << got << " want " << want;
      }
  }
}

TEST(InterpreterMfma, Mma16x16x16F16MatchesDoubleProduct) {
  CheckMmaRandom(ReadTestFile("testdata/kernels/mma_16x16x16_f16.kir"), 16, 16, 16, false);
}

TEST(InterpreterMfma, Mma32x32x8F16MatchesDoubleProduct) {
  CheckMmaRandom(ReadTestFile("testdata/kernels/mma_32x32x8_f16.kir"), 32, 32, 8, false);
}

TEST(InterpreterMfma, Mma16x16x16Bf16MatchesDoubleProduct) {
  CheckMmaRandom(ReadTestFile("testdata/kernels/mma_16x16x16_bf16.kir"), 16, 16, 16, true);
}

TEST(InterpreterMfma, Mma32x32x8Bf16MatchesDoubleProduct) {
  std::string text = ReadTestFile("testdata/kernels/mma_32x32x8_f16.kir");
  ASSERT_FALSE(text.empty());
  CheckMmaRandom(absl::StrReplaceAll(text, {{"f16", "bf16"}}), 32, 32, 8, true);
}

// One-hot A[i][k] = 1 and B[k][j] = 2 (stored B^T[j][k]): C must be 2 at
// (i, j) and 0 elsewhere, for every (i, j, k). Checks the kernels' lane mapping
// together with the catalogue's ASlot/BSlot/CSlot against the matrix product.
void CheckOneHot(const std::string& path, int M, int N, int K, uint16_t one, uint16_t two) {
  Kernel k = MustParse(ReadTestFile(path));
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int kk = 0; kk < K; ++kk) {
        std::vector<uint16_t> A(M * K, 0), B(N * K, 0);
        A[i * K + kk] = one;
        B[j * K + kk] = two;
        std::vector<float> C = RunMma(k, M, N, K, A, B);
        for (int r = 0; r < M; ++r)
          for (int c = 0; c < N; ++c) {
            float want = (r == i && c == j) ? 2.0f : 0.0f;
            if (C[r * N + c] != want && bad++ < 10)
              ADD_FAILURE() << path << " (i,j,k)=(" << i << "," << j << "," << kk << "): C[" << r
                            << "][" << c << "] = " << C[r * N + c];
          }
      }
  EXPECT_EQ(bad, 0);
}

TEST(InterpreterMfma, OneHot16x16x16F16) {
  CheckOneHot("testdata/kernels/mma_16x16x16_f16.kir", 16, 16, 16, 0x3c00, 0x4000);
}

TEST(InterpreterMfma, OneHot32x32x8F16) {
  CheckOneHot("testdata/kernels/mma_32x32x8_f16.kir", 32, 32, 8, 0x3c00, 0x4000);
}

TEST(InterpreterMfma, OneHot16x16x16Bf16) {
  CheckOneHot("testdata/kernels/mma_16x16x16_bf16.kir", 16, 16, 16, 0x3f80, 0x4000);
}

// f32_16x16x4_f32 with a loaded accumulator, two waves with different tiles.
TEST(InterpreterMfma, F32MfmaAccumulatesCPerWave) {
  Kernel k = MustParse(R"(kernel mma_f32
workgroup 64 2 1
grid 1 1 1
arg A : f32[2, 16, 4] strides [64, 4, 1] readonly
arg B : f32[2, 16, 4] strides [64, 4, 1] readonly
arg C : f32[2, 16, 16] strides [256, 16, 1] readonly
arg D : f32[2, 16, 16] strides [256, 16, 1] writeonly
  %a = load A[tid.y, tid.x mod 16, tid.x floordiv 16] : f32
  %b = load B[tid.y, tid.x mod 16, tid.x floordiv 16] : f32
  %c = load C[tid.y, tid.x floordiv 16 * 4, tid.x mod 16] along 1 : f32x4
  %d = mfma f32_16x16x4_f32 %a, %b, %c
  store D[tid.y, tid.x floordiv 16 * 4, tid.x mod 16] along 1, %d
end
)");
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2, 2);
  std::vector<float> A(128), B(128), C(512);
  for (float& x : A) x = u(rng);
  for (float& x : B) x = u(rng);
  for (float& x : C) x = u(rng);
  InterpArgs a;
  a.buffers["A"] = Bytes(A);
  a.buffers["B"] = Bytes(B);
  a.buffers["C"] = Bytes(C);
  a.buffers["D"] = std::vector<uint8_t>(512 * 4, 0);
  absl::Status st = Interpret(k, a);
  ASSERT_TRUE(st.ok()) << st;
  auto D = From<float>(a.buffers["D"]);
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double want = C[w * 256 + i * 16 + j];
        for (int kk = 0; kk < 4; ++kk)
          want += static_cast<double>(A[w * 64 + i * 4 + kk]) * B[w * 64 + j * 4 + kk];
        double got = D[w * 256 + i * 16 + j];
        EXPECT_LE(std::fabs(got - want), 1e-6 * std::fabs(want) + 1e-12)
            << w << " " << i << " " << j;
      }
}

// ---------------------------------------------------------------------------
// Errors: arguments, ill-formed kernels; never a crash.

TEST(InterpreterErrors, Arguments) {
  Kernel k = MustParse(ReadTestFile("testdata/kernels/add_f16.kir"));
  InterpArgs a;
  a.buffers["x"] = std::vector<uint8_t>(64 * 512 * 2);
  a.buffers["y"] = std::vector<uint8_t>(64 * 512 * 2);
  a.buffers["out"] = std::vector<uint8_t>(64 * 512 * 2);
  absl::Status st = Interpret(k, a);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("no value for scalar argument 'scale'"));
  a.scalars["scale"] = FBits(1.0f);
  a.buffers["y"].pop_back();
  st = Interpret(k, a);
  EXPECT_THAT(std::string(st.message()), HasSubstr("has 65535 bytes but the buffer spans 65536"));
  a.buffers["y"].push_back(0);
  a.buffers["z"] = {};
  st = Interpret(k, a);
  EXPECT_THAT(std::string(st.message()), HasSubstr("'z', which is not a buffer argument"));
  a.buffers.erase("z");
  a.scalars["x"] = 0;
  st = Interpret(k, a);
  EXPECT_THAT(std::string(st.message()), HasSubstr("'x', which is not a scalar argument"));
  a.scalars.erase("x");
  EXPECT_TRUE(Interpret(k, a).ok());
}

TEST(InterpreterErrors, IllTypedOpsAreReportedWithTheirLocation) {
  const std::string head =
      "kernel e\nworkgroup 64 1 1\ngrid 1 1 1\n"
      "arg A : f16[64] strides [1] readwrite\n";
  struct Case {
    std::string body, want;
  } cases[] = {
      {"  %a = add %q, %q\n", "5:3: error: in '%a = add %q, %q': use of undefined value %q"},
      {"  %a = load A[tid.x] : f32\n", "A holds f16 but the value is f32"},
      {"  %a = const f16 0.1\n", "0.1 is not exactly representable in f16"},
      {"  %a = zero f16x4\n  %b = zero f16x2\n  %c = add %a, %b\n", "widths must match or be 1"},
      {"  %a = zero f32x4\n  %b = zero f16x4\n  %c = mfma f32_16x16x16_f16 %b, %b, %b\n",
       "operand C (%b) is f16x4 but f32_16x16x16_f16 needs f32x4"},
      {"  %a = zero f16x4\n  %b = mfma f32_1x1x1_f16 %a, %a, %a\n", "unknown MFMA"},
      {"  %a = zero f16x4\n  %a = zero f16x4\n", "%a is defined twice"},
      {"  %a = zero f32\n  %b = cvt %a : f16x2\n", "cvt keeps the width"},
      {"  %a = zero f16x4\n  %b = slice %a, 2 : f16x4\n", "are not all in the operand"},
      {"  %r = for %k = 0 to 4 iter(%c = %k) {\n    yield %c\n  }\n", "use of undefined value %k"},
      {"  for %k = 0 to 4 {\n    %x = add %k, %k\n    yield\n  }\n",
       "%k is a loop induction variable"},
      {"  %a = load A[%j] : f16\n", "unknown loop variable %j"},
      {"  %a = load A[N] : f16\n", "unknown constant 'N'"},
      {"  %a = zero i32\n  %b = fma %a, %a, %a\n", "fma is defined for float types only"},
      {"  store A[tid.x], %a\n", "use of undefined value %a"},
      {"  %z = zero f16\n  for %k = 0 to 4 {\n    %x = add %z, %z\n    yield\n  }\n"
       "  store A[tid.x], %x\n",
       "use of undefined value %x"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Kernel> k = ParseKernel(head + c.body + "end\n", "");
    ASSERT_TRUE(k.ok()) << c.body << k.status();
    InterpArgs a;
    a.buffers["A"] = std::vector<uint8_t>(128, 0);
    absl::Status st = Interpret(*k, a);
    EXPECT_FALSE(st.ok()) << c.body;
    EXPECT_THAT(std::string(st.message()), HasSubstr(c.want)) << c.body;
    EXPECT_THAT(std::string(st.message()), HasSubstr(": error: in '")) << c.body;
  }
}

TEST(InterpreterErrors, MalformedKernelsDoNotCrash) {
  Kernel base = MustParse(R"(kernel m
workgroup 64 1 1
grid 1 1 1
arg A : f32[64] strides [1] readwrite
lds T : f32[64]
  %a = load A[tid.x] : f32
  store T[tid.x], %a
end
)");
  auto run = [](const Kernel& k) {
    InterpArgs a;
    a.buffers["A"] = std::vector<uint8_t>(256, 0);
    return Interpret(k, a);
  };
  ASSERT_TRUE(run(base).ok());
  std::vector<Kernel> bad;
  {
    Kernel k = base;
    k.body[0].index[0] = nullptr;
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].index[0] = IAdd(ITid(0), nullptr);
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].index[0] = ITid(7);
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].index[0] = IFloorDiv(ITid(0), IConst(0));
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].index[0] = IMul(IConst(int64_t{1} << 62), IConst(8));
    bad.push_back(k);
  }
  {
    Kernel k = base;
    IndexRef e = ITid(0);
    for (int i = 0; i < 5000; ++i)
      e = IAdd(e, IConst(0));  // deeper trees overflow the stack in their own destructor
    k.body[0].index[0] = e;
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].index.clear();
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].along = 5;
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].type.width = 3;
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].type.elem = static_cast<ElemType>(42);
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].kind = static_cast<OpKind>(99);
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[0].results.clear();
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.body[1].operands.clear();
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.workgroup = {32, 1, 1};
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.workgroup = {int64_t{1} << 40, int64_t{1} << 40, 1};
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.grid = {0, 1, 1};
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.lds[0].shape = {int64_t{1} << 62, int64_t{1} << 62};
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.lds[0].pad = -1;
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.args[0].strides = {-1};
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.args[0].shape = {int64_t{1} << 62, int64_t{1} << 62};
    k.args[0].strides = {int64_t{1} << 62, 1};
    bad.push_back(k);
  }
  {
    Kernel k = base;
    k.args[0].strides.clear();
    bad.push_back(k);
  }
  {  // a loop without yield, one nested too deep, a negative step
    Op loop;
    loop.kind = OpKind::kFor;
    loop.ivar = "i";
    loop.lo = 0;
    loop.hi = 4;
    Kernel k = base;
    k.body.push_back(loop);
    bad.push_back(k);
    Op y;
    y.kind = OpKind::kYield;
    Op deep = loop;
    deep.body = {y};
    for (int i = 0; i < 100; ++i) {
      Op outer = loop;
      outer.ivar = absl::StrCat("i", i);
      outer.body = {deep, y};
      deep = outer;
    }
    k = base;
    k.body.push_back(deep);
    bad.push_back(k);
    k = base;
    loop.body = {y};
    loop.step = -1;
    k.body.push_back(loop);
    bad.push_back(k);
    k = base;
    k.body.push_back(y);  // yield at top level
    bad.push_back(k);
  }
  for (size_t i = 0; i < bad.size(); ++i) {
    absl::Status st = run(bad[i]);
    EXPECT_FALSE(st.ok()) << "case " << i;
    EXPECT_THAT(std::string(st.message()), HasSubstr("error:")) << "case " << i;
  }
}

TEST(InterpreterErrors, ZeroTripLoopYieldsInitialValues) {
  // The validator rejects empty loops; the interpreter defines them anyway.
  Kernel k = MustParse(R"(kernel z
workgroup 64 1 1
grid 1 1 1
arg A : f32[64] strides [1] writeonly
  %one = const f32 1
  %r = for %k = 4 to 4 iter(%c = %one) {
    %c2 = add %c, %c
    yield %c2
  }
  store A[tid.x], %r
end
)");
  InterpArgs a;
  a.buffers["A"] = std::vector<uint8_t>(256, 0);
  ASSERT_TRUE(Interpret(k, a).ok());
  for (float f : From<float>(a.buffers["A"])) EXPECT_EQ(f, 1.0f);
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// Every MFMA of the catalogue gives the bits of the element-by-element
// evaluation the interpreter used before issue 16 item 6 (written out here:
// acc = C, acc += A[i][k] * B[k][j] in k order in double, rounded once to f32,
// any NaN the canonical 0x7fc00000) on random bit patterns with NaNs,
// infinities, subnormals and signed zeros in A, B and C, for two waves.
TEST(InterpreterMfma, SameBitsAsElementByElement) {
  int shapes = 0;
  // fp8 MFMAs in both flavours (the interpreter takes either; the validator
  // matches the flavour to a target).
  std::vector<std::tuple<const MfmaDesc*, ElemType, ElemType>> cases;
  for (const MfmaDesc& d : AllMfmas())
    for (const TargetInfo* t : AllTargets()) {
      if (d.mnemonic[static_cast<int>(t->gfx)] == nullptr) continue;
      std::tuple<const MfmaDesc*, ElemType, ElemType> c{&d, *MfmaInElem(d.a_in, *t), *MfmaInElem(d.b_in, *t)};
      if (std::find(cases.begin(), cases.end(), c) == cases.end()) cases.push_back(c);
    }
  for (const auto& [dp, ae, be] : cases) {
    const MfmaDesc& d = *dp;
    ++shapes;
    const std::string a_ty = ValueTypeName(ValueType{ae, d.ab_width}), b_ty = ValueTypeName(ValueType{be, d.ab_width});
    const std::string cd = ValueTypeName(ValueType{ElemType::kF32, d.cd_width});
    const std::string e = std::string(ElemTypeName(ae)), eb_name = std::string(ElemTypeName(be));
    const int W = d.ab_width, CD = d.cd_width;
    Kernel k = MustParse(absl::StrCat("kernel bits\nworkgroup 64 2 1\ngrid 1 1 1\n",
                                      "arg A : ", e, "[128, ", W, "] strides [", W, ", 1] readonly\n",
                                      "arg B : ", eb_name, "[128, ", W, "] strides [", W, ", 1] readonly\n",
                                      "arg C : f32[128, ", CD, "] strides [", CD, ", 1] readonly\n",
                                      "arg D : f32[128, ", CD, "] strides [", CD, ", 1] writeonly\n",
                                      "  %a = load A[tid.y * 64 + tid.x, 0] along 1 : ", a_ty, "\n",
                                      "  %b = load B[tid.y * 64 + tid.x, 0] along 1 : ", b_ty, "\n",
                                      "  %c = load C[tid.y * 64 + tid.x, 0] along 1 : ", cd, "\n",
                                      "  %d = mfma ", d.kir_name, " %a, %b, %c\n",
                                      "  store D[tid.y * 64 + tid.x, 0] along 1, %d\nend\n"));
    const int eb = ElemBytes(ae);
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      std::mt19937 rng(seed * 131 + d.m + d.k);
      auto special = [&](bool f32) -> uint32_t {
        const uint32_t r = rng();
        const uint32_t x = rng();
        if (f32) {
          switch (r % 12) {
            case 0: return 0x7f800001u | (x & 0x807fffffu);  // NaN
            case 1: return (x & 0x80000000u) | 0x7f800000u;  // inf
            case 2: return x & 0x807fffffu;                  // subnormal or zero
            default: return (x & 0x80000000u) | ((110 + r % 40) << 23) | (x & 0x7fffffu);
          }
        }
        if (eb == 1) return x & 0xffu;  // any fp8 code (NaN, inf, max, subnormal among them)
        const bool f16 = ae == ElemType::kF16;
        switch (r % 12) {
          case 0: return f16 ? 0x7c01u | (x & 0x83ffu) : 0x7f81u | (x & 0x807fu);  // NaN
          case 1: return f16 ? (x & 0x8000u) | 0x7c00u : (x & 0x8000u) | 0x7f80u;  // inf
          case 2: return f16 ? x & 0x83ffu : x & 0x807fu;                          // subnormal
          default: return seed > 2 ? (f16 ? (x & 0x83ffu) | 0x3800u : (x & 0x807fu) | 0x3f00u) : x & 0xffffu;
        }
      };
      std::vector<uint32_t> A(128 * W), B(128 * W), C(128 * CD);
      for (uint32_t& x : A) x = special(eb == 4);
      for (uint32_t& x : B) x = special(eb == 4);
      for (uint32_t& x : C) x = special(true);
      auto bytes = [&](const std::vector<uint32_t>& v) {
        std::vector<uint8_t> b(v.size() * eb);
        for (size_t i = 0; i < v.size(); ++i) std::memcpy(&b[i * eb], &v[i], eb);
        return b;
      };
      InterpArgs a;
      a.buffers["A"] = bytes(A);
      a.buffers["B"] = bytes(B);
      a.buffers["C"] = Bytes(C);
      a.buffers["D"] = std::vector<uint8_t>(128 * CD * 4, 0);
      absl::Status st = Interpret(k, a);
      ASSERT_TRUE(st.ok()) << d.kir_name << ": " << st;
      const std::vector<uint32_t> D = From<uint32_t>(a.buffers["D"]);
      auto value = [&](uint32_t bits, ElemType et) -> double {
        if (IsFp8(et)) return Fp8BitsToF32(et, static_cast<uint8_t>(bits));
        switch (et) {
          case ElemType::kF16: return F16BitsToF32(static_cast<uint16_t>(bits));
          case ElemType::kBF16: return Bf16BitsToF32(static_cast<uint16_t>(bits));
          default: return F32FromBits(bits);
        }
      };
      int bad = 0, nans = 0;
      for (int w = 0; w < 2; ++w)
        for (int i = 0; i < d.m; ++i)
          for (int j = 0; j < d.n; ++j) {
            FragmentSlot c = d.CSlot(i, j);
            const int t = w * 64 + c.lane;
            double acc = F32FromBits(C[t * CD + c.reg]);
            for (int kk = 0; kk < d.k; ++kk) {
              FragmentSlot fa = d.ASlot(i, kk), fb = d.BSlot(kk, j);
              const int per = 4 / eb;
              acc += value(A[(w * 64 + fa.lane) * W + fa.reg * per + fa.elem], ae) *
                     value(B[(w * 64 + fb.lane) * W + fb.reg * per + fb.elem], be);
            }
            const float f = static_cast<float>(acc);
            const uint32_t want = std::isnan(f) ? 0x7fc00000u : FBits(f);
            nans += std::isnan(f);
            if (D[t * CD + c.reg] != want && ++bad <= 5)
              ADD_FAILURE() << d.kir_name << " seed " << seed << " wave " << w << " D[" << i << "][" << j
                            << "]: 0x" << std::hex << D[t * CD + c.reg] << ", want 0x" << want;
          }
      if (seed == 1) {
        EXPECT_GT(nans, 0) << d.kir_name;
      }
    }
  }
  EXPECT_GE(shapes, 6);
}

// Issue 18: sparse buffers and a box of workgroups. A 6 GiB f32 buffer
// (element i holds i until written) over a grid of 6291456 workgroups of
// 256 threads, each doubling its 256 elements: only the last two workgroups
// run, so only the buffer's last page is materialised, the rest reads as
// its filler, and the process stays far below the 6 GiB (and 24 GiB of
// race records) mapped.
TEST(InterpreterSparse, SixGibBufferTwoWorkgroups) {
  absl::StatusOr<Kernel> k = ParseKernel(R"(kernel six
workgroup 256 1 1
grid 6291456 1 1
arg X : f32[1610612736] strides [1] readwrite
  %v = load X[wg.x * 256 + tid.x] : f32
  %w = add %v, %v
  store X[wg.x * 256 + tid.x], %w
end
)", "six.kir");
  ASSERT_TRUE(k.ok()) << k.status();
  PagedInterpArgs args;
  args.buffers.emplace("X", PagedBytes(uint64_t{6} << 30, ElementFiller(4, [](uint64_t i) {
                                         return F32Bits(static_cast<float>(i % 1000));
                                       })));
  InterpOptions o;
  o.workgroups.begin = {6291454, 0, 0};
  o.workgroups.end = {6291456, 1, 1};
  absl::Status st = Interpret(*k, args, o);
  ASSERT_TRUE(st.ok()) << st;
  const PagedBytes& x = args.buffers.at("X");
  EXPECT_EQ(x.materialised_bytes(), PagedBytes::kPageBytes);
  auto at = [&](uint64_t i) {
    uint32_t b = 0;
    x.Read(4 * i, &b, 4);
    return F32FromBits(b);
  };
  const uint64_t n = uint64_t{1610612736};
  EXPECT_EQ(at(n - 1), 2.0f * static_cast<float>((n - 1) % 1000));
  EXPECT_EQ(at(n - 512), 2.0f * static_cast<float>((n - 512) % 1000));
  EXPECT_EQ(at(n - 513), static_cast<float>((n - 513) % 1000));  // workgroup 6291453 did not run
  EXPECT_EQ(at(7), 7.0f);
  rusage ru;
  ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
  EXPECT_LT(ru.ru_maxrss, 1024 * 1024) << "KiB";
  // A box outside the grid is an error.
  o.workgroups.end = {6291457, 1, 1};
  st = Interpret(*k, args, o);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("InterpOptions::workgroups [6291454, 6291457) in x"), std::string::npos) << st;
}

// The interpreter takes as much LDS as the largest target allows: gfx950's
// 160 KiB per workgroup (TargetInfo::lds_bytes); the target's own limit is
// the validator's.
TEST(Interpreter, LdsLimitIsTheLargestTargets) {
  EXPECT_EQ(InterpMaxLdsBytes(), 163840);
  for (const TargetInfo* t : AllTargets()) EXPECT_LE(t->lds_bytes, InterpMaxLdsBytes()) << t->name;
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// InterpOptions::loaded_after_store (review 7 F4, F11): a buffer whose
// elements are each loaded before their thread stores them (y = 2 * y, a
// read-modify-write, and a load of another buffer's elements) is not named;
// one a thread loads again after storing it is, once a single element is
// (z, stored only, is never named).
TEST(Interpreter, LoadedAfterStoreNamesBuffersReadBack) {
  const std::string rmw = R"(kernel rmw
workgroup 64 1 1
grid 2 1 1
arg x : f32[128] strides [1] readonly
arg y : f32[128] strides [1] readwrite
arg z : f32[128] strides [1] readwrite
  %v = load y[wg.x * 64 + tid.x] : f32
  %w = mul %v, %v
  store y[wg.x * 64 + tid.x], %w
  %u = load x[wg.x * 64 + tid.x] : f32
  store z[wg.x * 64 + tid.x], %u
end
)";
  // The same, and thread 63 of workgroup 1 alone reads back its own y[127].
  const std::string back = absl::StrReplaceAll(
      rmw, {{"  store z[wg.x * 64 + tid.x], %u\n",
             "  store z[wg.x * 64 + tid.x], %u\n"
             "  %b = load guarded y[wg.x * 64 + tid.x + 128 * (1 - tid.x floordiv 63 * wg.x)] : f32\n"}});
  for (const auto& [text, expect] : {std::pair<std::string, std::set<std::string>>{rmw, {}},
                                     std::pair<std::string, std::set<std::string>>{back, {"y"}}}) {
    Kernel k = MustParse(text);
    InterpArgs a;
    a.buffers["x"] = Bytes(std::vector<float>(128, 1.0f));
    a.buffers["y"] = Bytes(std::vector<float>(128, 3.0f));
    a.buffers["z"] = Bytes(std::vector<float>(128, 0.0f));
    std::set<std::string> loaded;
    InterpOptions o;
    o.loaded_after_store = &loaded;
    absl::Status st = Interpret(k, a, o);
    EXPECT_EQ(loaded, expect) << text;
    EXPECT_TRUE(st.ok()) << st;
    EXPECT_EQ(From<float>(a.buffers["y"])[5], 9.0f);
  }
}

// InterpOptions::accessed keeps the element indices a load or store of the
// run touched: 4 workgroups, workgroup w loading x[16 w .. 16 w + 15] (its
// threads 0..15; threads 16..63 load nothing, guarded past the end) and
// storing y at the same indices. Run with workgroups [2, 3) only: of
// x's indices 0, 31, 32, 47, 48, 63 and 1000 (past the buffer), 32 and 47
// stay; y's 40 stays, 20 does not; z (not of the kernel) keeps none.
TEST(Interpreter, AccessedKeepsTheElementsTheRunTouched) {
  Kernel k = MustParse(R"(kernel acc
workgroup 64 1 1
grid 4 1 1
arg x : f32[64] strides [1] readonly
arg y : f32[64] strides [1] writeonly
  %v = load guarded x[wg.x * 16 + tid.x + 64 * (tid.x floordiv 16)] : f32
  store guarded y[wg.x * 16 + tid.x + 64 * (tid.x floordiv 16)], %v
end
)");
  InterpArgs a;
  a.buffers["x"] = Bytes(std::vector<float>(64, 1.0f));
  a.buffers["y"] = Bytes(std::vector<float>(64, 0.0f));
  std::map<std::string, std::vector<uint64_t>> accessed = {
      {"x", {0, 31, 32, 47, 48, 63, 1000}}, {"y", {20, 40}}, {"z", {1}}};
  InterpOptions o;
  o.workgroups.begin = {2, 0, 0};
  o.workgroups.end = {3, 1, 1};
  o.accessed = &accessed;
  absl::Status st = Interpret(k, a, o);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(accessed["x"], (std::vector<uint64_t>{32, 47}));
  EXPECT_EQ(accessed["y"], (std::vector<uint64_t>{40}));
  EXPECT_TRUE(accessed["z"].empty());
  EXPECT_EQ(From<float>(a.buffers["y"])[40], 1.0f);
  EXPECT_EQ(From<float>(a.buffers["y"])[20], 0.0f);
}

}  // namespace
}  // namespace kir
