#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "compiler/ir/float_bits.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "hw/check/compare.h"
#include "hw/check/inputs.h"
#include "hw/check/json.h"
#include "hw/check/npy.h"
#include "hw/check/test_kernels.h"

namespace kir {
namespace {

Kernel Parse(const std::string& text) {
  absl::StatusOr<Kernel> k = ParseKernel(text, "t.kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return *k;
}

constexpr const char* kKernel = R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg x : f16[4, 3] strides [4, 1] readonly
arg y : f32[5] strides [2] writeonly
arg s : f32
  %v = load x[0, 0] : f16
end
)";

TEST(Inputs, DeterministicPerSeedAndInRange) {
  Kernel k = Parse(kKernel);
  KernelData a = MakeInputs(k, 7), b = MakeInputs(k, 7), c = MakeInputs(k, 8);
  EXPECT_EQ(a.buffers, b.buffers);
  EXPECT_EQ(a.scalars, b.scalars);
  EXPECT_NE(a.buffers["x"], c.buffers["x"]);
  // x spans (3*4 + 2 + 1) f16 = 30 bytes; y spans 4*2+1 = 9 floats.
  ASSERT_EQ(a.buffers["x"].size(), 30u);
  ASSERT_EQ(a.buffers["y"].size(), 36u);
  int distinct_neighbours = 0;
  for (size_t i = 0; i + 2 < a.buffers["x"].size(); i += 2) {
    double v = ElementValue(ElemType::kF16, a.buffers["x"].data() + i);
    double w = ElementValue(ElemType::kF16, a.buffers["x"].data() + i + 2);
    EXPECT_GE(v, -1.0);
    EXPECT_LE(v, 1.0);
    distinct_neighbours += v != w;
  }
  EXPECT_GE(distinct_neighbours, 12);
  float s = F32FromBits(a.scalars["s"]);
  EXPECT_GE(s, 0.5f);
  EXPECT_LT(s, 2.0f);
}

// Issue 18: inputs are lazy, element i a pure function of (seed, buffer, i),
// and the values are those of the eager generator of earlier versions: a few
// computed by hand (a Python port of that generator: splitmix64 from
// FNV-1a-like Hash(name, seed); f32 elements 2 * (Next >> 40) / 2^24 - 1; i32
// elements Next % 2001 - 1000 after an unused Next), then every element
// against a copy of the eager code.
uint32_t ElementBits(const PagedBytes& b, uint64_t i, int eb) {
  uint32_t v = 0;
  b.Read(i * eb, &v, static_cast<uint64_t>(eb));
  return v;
}

namespace eager {  // the generator as it was before issue 18 (hw/check/inputs.cc)
uint64_t Next(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
float Unit(uint64_t& s) { return static_cast<float>(Next(s) >> 40) * (1.0f / 16777216.0f); }
uint64_t Hash(const std::string& name, uint64_t seed) {
  uint64_t h = seed ^ 0x243f6a8885a308d3ull;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}
int64_t Uniform(uint64_t& s, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(Next(s) % static_cast<uint64_t>(hi - lo + 1));
}
std::vector<uint32_t> Random(const Arg& a, uint64_t seed) {
  uint64_t s = Hash(a.name, seed);
  std::vector<uint32_t> out;
  for (int64_t i = 0; i < a.SizeBytes() / ElemBytes(a.elem); ++i) {
    float v = 2.0f * Unit(s) - 1.0f;
    switch (a.elem) {
      case ElemType::kF32: out.push_back(F32Bits(v)); break;
      case ElemType::kF16: out.push_back(F32ToF16Bits(v)); break;
      case ElemType::kBF16: out.push_back(F32ToBf16Bits(v)); break;
      default: out.push_back(static_cast<uint32_t>(static_cast<int32_t>(Next(s) % 2001) - 1000)); break;
    }
  }
  return out;
}
std::vector<uint32_t> Exact(const Arg& a, const ExactFormat& f, uint64_t seed) {
  uint64_t s = Hash(a.name, seed) ^ 0x6578616374ull;
  std::vector<uint32_t> out;
  for (int64_t i = 0; i < a.SizeBytes() / ElemBytes(a.elem); ++i) {
    if (a.elem == ElemType::kI32) {
      out.push_back(static_cast<uint32_t>(static_cast<int32_t>(Uniform(s, f.int_lo, f.int_hi))));
      continue;
    }
    const double m = static_cast<double>(Uniform(s, 1, (int64_t{1} << f.bits) - 1));
    const int e = static_cast<int>(Uniform(s, f.exp_lo, f.exp_lo + f.spread));
    out.push_back(*ExactBits(a.elem, ((Next(s) & 1) ? -m : m) * std::ldexp(1.0, e)));
  }
  return out;
}
}  // namespace eager

TEST(Inputs, LazyValuesAreTheEagerGeneratorsByHand) {
  Kernel k = Parse(R"(kernel h
workgroup 64 1 1
grid 1 1 1
arg x : f32[1001] strides [1] readonly
arg I : i32[1001] strides [1] writeonly
  %v = load x[tid.x] : f32
end
)");
  KernelData d = MakeInputs(k, 1);
  EXPECT_EQ(d.buffers["x"].materialised_bytes(), 0u);  // nothing generated up front
  EXPECT_EQ(ElementBits(d.buffers["x"], 0, 4), 0xbe8c887cu);
  EXPECT_EQ(ElementBits(d.buffers["x"], 1, 4), 0x3ef95cb4u);
  EXPECT_EQ(ElementBits(d.buffers["x"], 1000, 4), 0x3ed5bda4u);
  EXPECT_EQ(ElementBits(d.buffers["I"], 0, 4), 408u);
  EXPECT_EQ(ElementBits(d.buffers["I"], 1, 4), 344u);
  EXPECT_EQ(static_cast<int32_t>(ElementBits(d.buffers["I"], 1000, 4)), -505);
  KernelData e = MakeInputs(k, 7);
  EXPECT_EQ(ElementBits(e.buffers["x"], 0, 4), 0x3e719528u);
  EXPECT_EQ(ElementBits(e.buffers["x"], 2, 4), 0x3f716028u);
  EXPECT_EQ(d.buffers["x"].materialised_bytes(), 0u);  // reads generate, never store
}

TEST(Inputs, LazyValuesEqualTheEagerGenerators) {
  Kernel k = Parse(R"(kernel e
workgroup 64 1 1
grid 1 1 1
arg a : f16[70000] strides [1] readonly
arg b : bf16[300] strides [1] readonly
arg c : f32[40000] strides [1] readonly
arg n : i32[20000] strides [1] writeonly
  %v = load a[tid.x] : f16
end
)");
  for (uint64_t seed : {1, 2, 99}) {
    KernelData d = MakeInputs(k, seed);
    for (const Arg& a : k.args) {
      const std::vector<uint32_t> want = eager::Random(a, seed);
      const PagedBytes& got = d.buffers.at(a.name);
      ASSERT_EQ(got.size(), want.size() * ElemBytes(a.elem)) << a.name;
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(ElementBits(got, i, ElemBytes(a.elem)), want[i]) << a.name << "[" << i << "] seed " << seed;
    }
  }
  ExactPlan plan;
  plan.exact = true;
  plan.formats["a"] = ExactFormat{5, 2, -7, 0, 0, {}};
  plan.formats["b"] = ExactFormat{3, 1, -4, 0, 0, {}};
  plan.formats["c"] = ExactFormat{11, 3, -14, 0, 0, {}};
  plan.formats["n"] = ExactFormat{0, 0, 0, -50, 50, {}};
  KernelData d = MakeExactInputs(k, plan, 3);
  for (const Arg& a : k.args) {
    const std::vector<uint32_t> want = eager::Exact(a, plan.formats.at(a.name), 3);
    const PagedBytes& got = d.buffers.at(a.name);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(ElementBits(got, i, ElemBytes(a.elem)), want[i]) << a.name << "[" << i << "]";
  }
  // The magnitude shadow's inputs: the same elements without their signs.
  KernelData m = MagnitudeInputs(k, d);
  for (uint64_t i : {0, 1, 4097, 39999})
    EXPECT_EQ(ElementBits(m.buffers.at("c"), i, 4), ElementBits(d.buffers.at("c"), i, 4) & 0x7fffffffu) << i;
  EXPECT_EQ(ElementBits(m.buffers.at("n"), 7, 4), ElementBits(d.buffers.at("n"), 7, 4));  // i32 unchanged
}

// The distributions docs/run.md states for `kirc run` ("Mode `random`"): i32 buffers hold
// integers in [-1000, 1000] (both ends reachable), i32 scalars [1, 100].
TEST(Inputs, I32Ranges) {
  Kernel k = Parse(R"(kernel i
workgroup 64 1 1
grid 1 1 1
arg x : i32[100000] strides [1] readonly
arg n : i32
  %v = load x[0] : i32
end
)");
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  KernelData a = MakeInputs(k, 1);
  for (size_t i = 0; i < a.buffers["x"].size(); i += 4) {
    int32_t v;
    std::memcpy(&v, a.buffers["x"].data() + i, 4);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_EQ(lo, -1000);
  EXPECT_EQ(hi, 1000);
  for (uint64_t seed = 0; seed < 200; ++seed) {
    int32_t n = static_cast<int32_t>(MakeInputs(k, seed).scalars["n"]);
    EXPECT_GE(n, 1);
    EXPECT_LE(n, 100);
  }
}

TEST(Compare, UntouchedBytesAreReadonlyBuffersAndPadding) {
  // X: f32[2, 2] readonly; Y: i32[2, 2] strides [3, 1] (a padding element
  // after each row: bytes 8..11 and 20..23 of its 24).
  Kernel k;
  Arg x, y;
  x.name = "X";
  x.elem = ElemType::kF32;
  x.shape = {2, 2};
  x.strides = {2, 1};
  x.access = Access::kReadOnly;
  y.name = "Y";
  y.elem = ElemType::kI32;
  y.shape = {2, 2};
  y.strides = {3, 1};
  y.access = Access::kWriteOnly;
  k.args = {x, y};
  KernelData in;
  in.buffers["X"].assign(16, 0x11);
  in.buffers["Y"].assign(24, 0x22);
  KernelData out = in;
  for (int b : {0, 4, 12, 16}) out.buffers["Y"][b] = 0x77;  // every element's first byte: allowed
  EXPECT_TRUE(UntouchedBytesChanged(k, in, out).empty());
  out.buffers["Y"][21] = 0;  // the second row's padding
  out.buffers["X"][5] = 0;
  out.buffers["X"][6] = 0;
  std::vector<std::string> lines = UntouchedBytesChanged(k, in, out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "X (readonly): 2 bytes written that the kernel must leave alone (a readonly buffer), first byte "
                      "0x5: 0x11 -> 0x00");
  EXPECT_EQ(lines[1], "Y (outside its shape): 1 byte written that the kernel must leave alone (padding between or "
                      "around its elements), first byte 0x15: 0x22 -> 0x00");
}

TEST(Compare, ToleranceRulesAndWorstElement) {
  Kernel k = Parse(kKernel);
  KernelData ref = MakeInputs(k, 1), out = ref;
  // y[3] (byte offset 3*2*4) off by 2e-5 relative to max|y| <= 1: over 1e-5.
  float v;
  std::memcpy(&v, out.buffers["y"].data() + 24, 4);
  v += 2e-5f;
  std::memcpy(out.buffers["y"].data() + 24, &v, 4);
  std::vector<BufferDiff> d = CompareOutputs(k, out, ref);
  ASSERT_EQ(d.size(), 1u);  // x is readonly
  EXPECT_EQ(d[0].name, "y");
  EXPECT_EQ(d[0].elements, 5);
  EXPECT_FALSE(d[0].ok);
  EXPECT_EQ(d[0].mismatches, 1);
  EXPECT_EQ(d[0].worst_index, std::vector<int64_t>{3});
  EXPECT_NEAR(d[0].max_abs_err, 2e-5, 1e-6);
  // Elements between the strided ones are not part of the shape: ignored.
  out = ref;
  out.buffers["y"][4] ^= 0xff;
  EXPECT_TRUE(CompareOutputs(k, out, ref)[0].ok);
}

// Sets element i of f32 buffer y (stride 1) of data d.
void SetF32(KernelData& d, const std::string& buf, int64_t i, float v) {
  std::memcpy(d.buffers[buf].data() + 4 * i, &v, 4);
}

constexpr const char* kVec = R"(kernel v
workgroup 64 1 1
grid 1 1 1
arg y : f32[8] strides [1] writeonly
arg h : f16[4] strides [1] writeonly
  %v = zero f32
end
)";

TEST(Compare, AnInfInTheReferenceDoesNotWidenTheTolerance) {
  Kernel k = Parse(kVec);
  KernelData ref = MakeInputs(k, 1);
  SetF32(ref, "y", 7, INFINITY);
  KernelData out = ref;
  SetF32(out, "y", 0, 4.32e8f);  // a huge error on a finite element
  std::vector<BufferDiff> d = CompareOutputs(k, out, ref);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_FALSE(d[0].ok);
  EXPECT_EQ(d[0].mismatches, 1);
  EXPECT_EQ(d[0].nonfinite_ref, 1);
  EXPECT_EQ(d[0].nonfinite_mismatches, 0);
  EXPECT_TRUE(std::isfinite(d[0].max_abs_ref));
  EXPECT_LE(d[0].max_abs_ref, 1.0);
  EXPECT_EQ(d[0].worst_index, std::vector<int64_t>{0});
  EXPECT_TRUE(d[1].ok);
  std::string text = FormatDiffs(d);
  EXPECT_NE(text.find("1 non-finite reference element (matched exactly)"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL (1 element out of tolerance)"), std::string::npos) << text;
  // The matching inf alone passes.
  EXPECT_TRUE(CompareOutputs(k, ref, ref)[0].ok);
}

TEST(Compare, NonFiniteElementsMustMatchExactly) {
  Kernel k = Parse(kVec);
  KernelData ref = MakeInputs(k, 2);
  SetF32(ref, "y", 1, INFINITY);
  SetF32(ref, "y", 2, -INFINITY);
  SetF32(ref, "y", 3, NAN);
  // Matching: same infs, any NaN for NaN.
  KernelData out = ref;
  SetF32(out, "y", 3, -NAN);
  std::vector<BufferDiff> d = CompareOutputs(k, out, ref);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
  EXPECT_EQ(d[0].nonfinite_ref, 3);
  EXPECT_EQ(d[0].max_abs_err, 0);
  EXPECT_EQ(d[0].max_rel_err, 0);
  // +inf for -inf, a finite value for +inf, NaN for a finite value, inf for NaN.
  for (auto [i, v] : std::vector<std::pair<int, float>>{{2, INFINITY}, {1, 3.0f}, {0, NAN}, {3, INFINITY}}) {
    KernelData bad = ref;
    SetF32(bad, "y", i, v);
    d = CompareOutputs(k, bad, ref);
    EXPECT_FALSE(d[0].ok) << i;
    EXPECT_EQ(d[0].mismatches, 1) << i;
    EXPECT_EQ(d[0].nonfinite_mismatches, 1) << i;
    EXPECT_EQ(d[0].worst_index, std::vector<int64_t>{i});
    EXPECT_TRUE(std::isinf(d[0].max_abs_err)) << i;
    EXPECT_NE(FormatDiffs(d).find("1 of them inf/NaN mismatches"), std::string::npos) << FormatDiffs(d);
  }
  // f16 overflow: a reference inf against a finite output of 65504.
  KernelData href = MakeInputs(k, 3), hout = href;
  uint16_t inf16 = 0x7c00, max16 = 0x7bff;
  std::memcpy(href.buffers["h"].data() + 2, &inf16, 2);
  std::memcpy(hout.buffers["h"].data() + 2, &max16, 2);
  d = CompareOutputs(k, hout, href);
  EXPECT_FALSE(d[1].ok);
  EXPECT_EQ(d[1].worst_index, std::vector<int64_t>{1});
}

TEST(Compare, RelativeErrorIsToMaxAbsRef) {
  Kernel k = Parse(kVec);
  KernelData ref = MakeInputs(k, 4);
  for (int i = 0; i < 8; ++i) SetF32(ref, "y", i, i == 5 ? -2.0f : 0.0f);
  KernelData out = ref;
  SetF32(out, "y", 0, 1e-3f);  // the reference element is 0
  std::vector<BufferDiff> d = CompareOutputs(k, out, ref);
  EXPECT_DOUBLE_EQ(d[0].max_abs_ref, 2.0);
  EXPECT_NEAR(d[0].max_rel_err, 5e-4, 1e-9);  // 1e-3 / 2, not 0 and not infinite
  EXPECT_NE(FormatDiffs(d).find("max rel err 0.0005 (of max|ref| 2)"), std::string::npos) << FormatDiffs(d);
  // All-zero reference: no scale to be relative to.
  SetF32(ref, "y", 5, 0.0f);
  SetF32(out, "y", 5, 0.0f);
  d = CompareOutputs(k, out, ref);
  EXPECT_TRUE(std::isnan(d[0].max_rel_err));
  EXPECT_FALSE(d[0].ok);
  EXPECT_NE(FormatDiffs(d).find("max rel err n/a (every finite reference element is 0)"), std::string::npos)
      << FormatDiffs(d);
  // n/a for an exact match of an all-zero reference too, as docs/run.md "The report" says
  // (issue 13: it printed 0).
  SetF32(out, "y", 0, 0.0f);
  d = CompareOutputs(k, out, ref);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
  EXPECT_EQ(d[0].max_abs_err, 0);
  EXPECT_TRUE(std::isnan(d[0].max_rel_err));
  EXPECT_NE(FormatDiffs(d).find("max abs err 0, max rel err n/a (every finite reference element is 0)"),
            std::string::npos)
      << FormatDiffs(d);
}

TEST(Compare, ReductionLengthWidensTheF32Tolerance) {
  Kernel k = Parse(R"(kernel m
workgroup 64 1 1
grid 1 1 1
arg c : f32[4] strides [1] writeonly
  %z = zero f32x4
  %r = for %i = 0 to 64 iter(%acc = %z) {
    yield %acc
  }
end
)");
  EXPECT_EQ(ToleranceFor(k, k.args[0]).rtol, 1e-5);
  Kernel m = Parse(R"(kernel m
workgroup 64 1 1
grid 1 1 1
arg c : f32[4] strides [1] writeonly
  %z = zero f32x4
  %h = zero f16x4
  %r = for %i = 0 to 512 iter(%acc = %z) {
    %n = mfma f32_16x16x16_f16 %h, %h, %acc
    yield %n
  }
end
)");
  Tolerance t = ToleranceFor(m, m.args[0]);
  EXPECT_DOUBLE_EQ(t.rtol, 4.0 * 512 * 16 * std::ldexp(1.0, -24));
  EXPECT_NE(t.why.find("reduction length 8192"), std::string::npos) << t.why;
  EXPECT_EQ(ReductionLength(m), 8192);
  // A caller-given length (a promoted gemm's true K) replaces the derived one.
  t = ToleranceFor(m, m.args[0], 100);
  EXPECT_DOUBLE_EQ(t.rtol, 4.0 * 100 * std::ldexp(1.0, -24));
  EXPECT_NE(t.why.find("reduction length 100)"), std::string::npos) << t.why;
  // A tile-level gemm: its K (A's K extent), here 100.
  Kernel g = Parse(::kir::testing::GemmKernel("g", "gfx942", "f16[64, 100]", "f16[64, 100]", "f32[64, 64]", {"alpha"},
                                             "C = alpha * A.mk * B.nk", "writeonly"));
  EXPECT_EQ(ReductionLength(g), 100);
}

// Bit identity: every bit counts (-0 is not +0), except that any NaN
// matches any NaN; the worst element is one out of tolerance.
TEST(Compare, BitwiseComparison) {
  Kernel k = Parse(kVec);
  KernelData ref = MakeInputs(k, 5);
  SetF32(ref, "y", 0, 0.0f);
  SetF32(ref, "y", 1, NAN);
  KernelData out = ref;
  SetF32(out, "y", 1, -NAN);
  std::vector<BufferDiff> d = CompareBitwise(k, out, ref, "bit-identical (test)");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
  EXPECT_TRUE(d[0].tol.bits);
  EXPECT_NE(FormatDiffs(d).find("tolerance bit-identical (test): OK"), std::string::npos) << FormatDiffs(d);
  SetF32(out, "y", 0, -0.0f);
  float v;
  std::memcpy(&v, ref.buffers["y"].data() + 8, 4);
  SetF32(out, "y", 2, std::nextafter(v, 2.0f));  // one ulp
  d = CompareBitwise(k, out, ref, "bit-identical (test)");
  EXPECT_FALSE(d[0].ok);
  EXPECT_EQ(d[0].mismatches, 2);
  EXPECT_EQ(d[0].worst_index, std::vector<int64_t>{2});
  // An f16 buffer, one bit.
  out = ref;
  out.buffers["h"][0] ^= 1;
  d = CompareBitwise(k, out, ref, "x");
  EXPECT_TRUE(d[0].ok);
  EXPECT_FALSE(d[1].ok);
  EXPECT_EQ(d[1].mismatches, 1);
}

// Random mode: |out - ref| <= atol + factor * shadow, per element.
TEST(Compare, WithinBoundsOfTheShadow) {
  Kernel k = Parse(kVec);
  KernelData ref = MakeInputs(k, 6), shadow = ref;
  for (int i = 0; i < 8; ++i) {
    SetF32(ref, "y", i, 1.0f);
    SetF32(shadow, "y", i, i == 3 ? 1000.0f : 1.0f);  // element 3 summed large terms
  }
  std::map<std::string, RoundingBound> b;
  b["y"] = RoundingBound{std::ldexp(1.0, -10), 0, ""};
  b["h"] = RoundingBound{std::ldexp(1.0, -11), std::ldexp(1.0, -11), ""};
  const double factor = std::expm1(std::ldexp(1.0, -10));
  KernelData out = ref;
  SetF32(out, "y", 3, static_cast<float>(1.0 + 0.9 * factor * 1000));  // within element 3's bound
  std::vector<BufferDiff> d = CompareWithinBounds(k, out, ref, shadow, b);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
  EXPECT_DOUBLE_EQ(d[0].tol.shadow_factor, factor);
  EXPECT_EQ(d[0].tol.atol, std::ldexp(1.0, -148));
  EXPECT_NE(d[0].tol.why.find("|out - ref| <= 0.000977 * sum|terms| + 2^-148 for f32 (worst-case rounding)"),
            std::string::npos)
      << d[0].tol.why;
  EXPECT_EQ(d[1].tol.atol, std::ldexp(1.0, -23));  // f16: two smallest subnormals
  SetF32(out, "y", 4, static_cast<float>(1.0 + 1.1 * factor));  // beyond element 4's bound
  d = CompareWithinBounds(k, out, ref, shadow, b);
  EXPECT_FALSE(d[0].ok);
  EXPECT_EQ(d[0].mismatches, 1);
  EXPECT_EQ(d[0].worst_index, std::vector<int64_t>{4});
  // No bound: only inf/NaN mismatches fail, and the text says so.
  b["y"].unbounded = "'for ...' uses a carried value more than once per iteration";
  d = CompareWithinBounds(k, out, ref, shadow, b);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
  EXPECT_NE(d[0].tol.why.find("none for f32 ('for ...' uses a carried value more than once per iteration): only "
                              "inf/NaN mismatches fail"),
            std::string::npos)
      << d[0].tol.why;
  SetF32(out, "y", 5, INFINITY);
  EXPECT_FALSE(CompareWithinBounds(k, out, ref, shadow, b)[0].ok);
}

// Four f8e5m2fnuz codes q, written by no op (the compare tests set them).
constexpr char kFp8Codes[] = R"(kernel v
workgroup 64 1 1
grid 1 1 1
arg q : f8e5m2fnuz[4] strides [1] writeonly
  %v = zero f32
end
)";

// Review 5 F2: a buffer no rounding that may differ lies behind (bounds 0, 0:
// e.g. a cvt of loaded data to fp8 in a kernel that also has an mfma) must
// match code for code: one f8e5m2fnuz code too large (1.25 for 1: the next
// code above 1 with 2 stored significand bits) fails, although 0.25 is within
// any relative bound on sum|terms| = 1.
TEST(Compare, ZeroRoundingBoundsMeanBitIdentity) {
  Kernel k = Parse(kFp8Codes);
  KernelData ref = MakeInputs(k, 1), shadow = ref;
  for (int i = 0; i < 4; ++i) ref.buffers["q"].data()[i] = shadow.buffers["q"].data()[i] = 0x40;  // 1.0: exponent 16 (bias 16), mantissa 0
  ASSERT_EQ(ElementValue(ElemType::kF8E5M2FNUZ, ref.buffers["q"].data()), 1.0);
  KernelData out = ref;
  std::map<std::string, RoundingBound> b;
  b["q"] = RoundingBound{0, 0, ""};
  std::vector<BufferDiff> d = CompareWithinBounds(k, out, ref, shadow, b);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
  EXPECT_TRUE(d[0].tol.bits);
  EXPECT_NE(d[0].tol.why.find("bit-identical for f8e5m2fnuz"), std::string::npos) << d[0].tol.why;
  out.buffers["q"].data()[2] = 0x41;
  ASSERT_EQ(ElementValue(ElemType::kF8E5M2FNUZ, out.buffers["q"].data() + 2), 1.25);
  d = CompareWithinBounds(k, out, ref, shadow, b);
  EXPECT_FALSE(d[0].ok);
  EXPECT_EQ(d[0].mismatches, 1);
  EXPECT_EQ(d[0].worst_index, std::vector<int64_t>{2});
}

// Review 5 F3: a buffer neither side wrote (every element on pages neither
// materialised) is reported as such, not as `worst Q[] = 0` with "every
// finite reference element is 0".
// Review 5 F2: a bound of sum|terms| or more is no check (|ref| <= sum|terms|,
// so all zeros pass); the text says so. Rounding sums of 0.4 on each side:
// expm1(0.4) = 0.4918, factor 2 * 0.4918 / (1 - 0.4918) = 1.94.
TEST(Compare, AFactorOfOneOrMoreIsSaidToBeNoCheck) {
  Kernel k = Parse(kVec);
  KernelData ref = MakeInputs(k, 6), shadow = ref, out = ref;
  std::map<std::string, RoundingBound> b;
  b["y"] = RoundingBound{0.4, 0.4, ""};
  b["h"] = RoundingBound{0.01, 0.01, ""};
  std::vector<BufferDiff> d = CompareWithinBounds(k, out, ref, shadow, b);
  EXPECT_NEAR(d[0].tol.shadow_factor, 2 * std::expm1(0.4) / (1 - std::expm1(0.4)), 1e-12);
  EXPECT_NE(d[0].tol.why.find("accepts even 0 for every element: no real check"), std::string::npos) << d[0].tol.why;
  EXPECT_EQ(d[1].tol.why.find("no real check"), std::string::npos) << d[1].tol.why;
}

TEST(Compare, AnUnwrittenBufferIsSaidToBe) {
  BufferDiff d;
  d.name = "Q";
  d.elements = d.untouched = 4096;
  d.max_rel_err = NAN;
  d.tol.why = "bit-identical (exact inputs)";
  EXPECT_EQ(FormatDiffs({d}),
            "Q: 4096 elements, none written by the kernel or the reference (each still holds its input, the same on "
            "both sides): OK\n");
  d.untouched = 4095;  // one element compared: the usual line
  d.worst_index = {0};
  EXPECT_NE(FormatDiffs({d}).find("worst Q[0] = 0 (ref 0)"), std::string::npos) << FormatDiffs({d});
}

TEST(Npy, HeaderAndGatheredData) {
  Kernel k = Parse(kKernel);
  KernelData a = MakeInputs(k, 3);
  std::string npy = NpyOfBuffer(k.args[0], a.buffers["x"]);
  ASSERT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t hlen = static_cast<uint8_t>(npy[8]) | (static_cast<uint8_t>(npy[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  std::string header = npy.substr(10, hlen);
  EXPECT_NE(header.find("'descr': '<f2'"), std::string::npos);
  EXPECT_NE(header.find("'shape': (4, 3)"), std::string::npos);
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(npy.size(), 10 + hlen + 12 * 2);
  // Element [2][1] sits at buffer element 2*4+1.
  EXPECT_EQ(std::memcmp(npy.data() + 10 + hlen + (2 * 3 + 1) * 2, a.buffers["x"].data() + 9 * 2, 2), 0);
  std::string y = NpyOfBuffer(k.args[1], a.buffers["y"]);
  EXPECT_NE(y.find("'shape': (5,)"), std::string::npos);
}

// fp8 buffers are their raw codes as uint8; every spelling of that one-byte
// dtype reads back (NumPy writes '|u1'; '<u1' is the same dtype), others
// are refused naming the dtype wanted.
TEST(Npy, Fp8CodesInAnyOneByteSpelling) {
  const Kernel k = Parse(R"(kernel q
target gfx950
workgroup 64 1 1
grid 1 1 1
arg A : f8e4m3fn[2, 3] strides [3, 1] readonly
arg B : f32[6] strides [1] writeonly
  %a = load A[tid.x floordiv 3 mod 2, tid.x mod 3] : f8e4m3fn
  %b = cvt %a : f32
  store B[tid.x mod 6], %b
end
)");
  const std::vector<uint8_t> codes = {0x38, 0xb8, 0x00, 0x7e, 0x01, 0x40};  // 1, -1, 0, 448, 2^-9, 2
  const std::string npy = NpyOfBuffer(k.args[0], codes);
  EXPECT_NE(npy.find("'descr': '|u1'"), std::string::npos);
  for (const char* spelling : {"|u1", "<u1", ">u1", "=u1"}) {
    std::string other = npy;
    other.replace(other.find("|u1"), 3, spelling);
    absl::StatusOr<std::vector<uint8_t>> back = ReadNpyElements(k.args[0], other);
    ASSERT_TRUE(back.ok()) << spelling << ": " << back.status();
    EXPECT_EQ(*back, codes) << spelling;
  }
  std::string i1 = npy;
  i1.replace(i1.find("|u1"), 3, "|i1");
  absl::StatusOr<std::vector<uint8_t>> refused = ReadNpyElements(k.args[0], i1);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("give dtype '|u1'"), std::string::npos) << refused.status();
}

TEST(JsonTest, StringLiteralEscapes) {
  EXPECT_EQ(JsonString("gemm_f16"), "\"gemm_f16\"");
  EXPECT_EQ(JsonString("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  EXPECT_EQ(JsonString(std::string("\x01\t", 2)), "\"\\u0001\\u0009\"");
  EXPECT_EQ(JsonString("\xc3\xa9"), "\"\xc3\xa9\"");  // UTF-8 passes through
}

// Issue 18: a dump streams a sparse buffer in chunks of about 1 MiB: the
// bytes equal the .npy of the dense buffer, for a 1-D buffer of several
// chunks and a strided 2-D one, and nothing is materialised.
TEST(Npy, StreamedDumpEqualsTheDenseOne) {
  Kernel k = Parse(R"(kernel n
workgroup 64 1 1
grid 1 1 1
arg a : f32[700000] strides [1] readonly
arg b : f16[300, 5] strides [7, 1] readonly
  %v = load a[tid.x] : f32
end
)");
  KernelData d = MakeInputs(k, 4);
  for (const Arg& a : k.args) {
    const PagedBytes& lazy = d.buffers.at(a.name);
    const std::vector<uint8_t> dense = lazy.ToVector();
    std::ostringstream out;
    ASSERT_TRUE(WriteNpyOfBuffer(a, lazy, out));
    EXPECT_EQ(out.str(), NpyOfBuffer(a, dense)) << a.name;
    EXPECT_EQ(lazy.materialised_bytes(), 0u) << a.name;
    // And it reads back as the shape's elements.
    absl::StatusOr<std::vector<uint8_t>> e = ReadNpyElements(a, out.str());
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(e->size(), static_cast<size_t>(a.shape[0] * (a.shape.size() > 1 ? a.shape[1] : 1)) * ElemBytes(a.elem));
  }
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// fp8 buffers (issue 19): random inputs are valid finite codes (x in [-1, 1)
// converted, never NaN); adversarial ones reach +-max, subnormals, zero and,
// like the other float types, a few NaNs (and f8e5m2's infinities); fp8
// outputs are compared code for code.
TEST(Inputs, Fp8CodesAreValid) {
  Kernel k = Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg a : f8e4m3fnuz[4096] strides [1] readonly
arg b : f8e5m2fnuz[4096] strides [1] readonly
arg o : f8e4m3fnuz[64] strides [1] writeonly
end
)");
  KernelData r = MakeInputs(k, 3);
  for (const char* name : {"a", "b"}) {
    const ElemType t = k.FindArg(name)->elem;
    std::vector<uint8_t> v = r.buffers.at(name).ToVector();
    ASSERT_EQ(v.size(), 4096u);
    for (uint8_t c : v) {
      EXPECT_FALSE(IsFp8NaN(t, c)) << name;
      EXPECT_LT(std::fabs(Fp8BitsToF32(t, c)), 1.0f + 1e-6f) << name;
    }
  }
  KernelData adv = MakeAdversarialInputs(k, 3);
  std::vector<uint8_t> v = adv.buffers.at("a").ToVector();
  int nans = 0, maxes = 0, subnormals = 0;
  for (uint8_t c : v) {
    nans += c == 0x80;
    maxes += (c & 0x7f) == 0x7f;
    subnormals += c != 0 && c != 0x80 && (c & 0x78) == 0;
  }
  EXPECT_GT(nans, 0);
  EXPECT_LT(nans, 4096 / 20);
  EXPECT_GT(maxes, 4096 / 20);
  EXPECT_GT(subnormals, 4096 / 20);
  Tolerance t = ToleranceFor(k, *k.FindArg("o"));
  EXPECT_TRUE(t.bits) << t.why;
  EXPECT_EQ(t.why, "exact for f8e4m3fnuz (a deterministic conversion)");
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// Review 6 F2: with RoundingBound::last = u (the last rounding the same
// conversion on both sides) the bound is (1 + u)(expm1(dev - u) + expm1(ref -
// u)) / (1 - expm1(ref)) * S + 2u / (1 - u) * |ref| + atol, by hand for
// f8e5m2fnuz (u = 2^-3) after an f32 chain of 2^-20 per side: an element of
// S = 32 and ref 4 may differ by about 0.00098 + 1.14, so 5 (one code up,
// 1 off) passes and 6 (1.5 * 2^2: two codes up) fails, where the bound
// charged against S (0.29 * 32 = 9.3) passed both.
TEST(Compare, LastRoundingIsChargedAgainstTheValue) {
  Kernel k = Parse(kFp8Codes);
  const uint8_t four = 0x48, five = 0x49, six = 0x4a, thirty_two = 0x54;  // exponent e + 16, 2 mantissa bits
  ASSERT_EQ(ElementValue(ElemType::kF8E5M2FNUZ, &four), 4.0);
  ASSERT_EQ(ElementValue(ElemType::kF8E5M2FNUZ, &five), 5.0);
  ASSERT_EQ(ElementValue(ElemType::kF8E5M2FNUZ, &six), 6.0);
  ASSERT_EQ(ElementValue(ElemType::kF8E5M2FNUZ, &thirty_two), 32.0);
  KernelData ref = MakeInputs(k, 1), shadow = ref;
  for (int i = 0; i < 4; ++i) ref.buffers["q"].data()[i] = four, shadow.buffers["q"].data()[i] = thirty_two;
  const double u = 0.125, r = std::ldexp(1.0, -20) + u;
  std::map<std::string, RoundingBound> b;
  b["q"] = RoundingBound{r, r, "", u};
  KernelData out = ref;
  out.buffers["q"].data()[1] = five;
  out.buffers["q"].data()[2] = six;
  std::vector<BufferDiff> d = CompareWithinBounds(k, out, ref, shadow, b);
  const double g = (1 + u) * 2 * std::expm1(r - u) / (1 - std::expm1(r));
  EXPECT_NEAR(d[0].tol.shadow_factor, g, 1e-15);
  EXPECT_DOUBLE_EQ(d[0].tol.value_factor, 2 * u / (1 - u));
  EXPECT_EQ(d[0].mismatches, 1) << FormatDiffs(d);
  EXPECT_EQ(d[0].worst_index, std::vector<int64_t>{2});
  // Without the split (last = 0) both pass: the bound review 6 F2 found.
  b["q"].last = 0;
  d = CompareWithinBounds(k, out, ref, shadow, b);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
}

// Review 6 F8 (MixKernel, test_kernels.h): StoreRecordKernel records
// kIdentical where a store with nothing that may differ behind it writes
// (C[1]: a cvt of loaded data) and kPreRounding with the f32 value before the
// conversion where the MFMA's result goes (C[0]); CompareWithinBounds
// compares the kIdentical elements bit for bit.
TEST(Compare, IdenticalStoresAreRecordedAndComparedBitForBit) {
  Kernel k = Parse(::kir::testing::MixKernel().c_str());
  const std::set<const Op*> same = IdenticalStores(k);
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ((*same.begin())->operands[0].name, "y");
  std::set<std::string> recorded;
  Kernel r = StoreRecordKernel(k, &recorded);
  EXPECT_EQ(recorded, std::set<std::string>{"C"});
  const Arg* kind = r.FindArg("C#kind");
  const Arg* w = r.FindArg("C#w");
  ASSERT_NE(kind, nullptr);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(kind->elem, ElemType::kI32);
  EXPECT_EQ(w->elem, ElemType::kF32);
  EXPECT_EQ(kind->shape, k.FindArg("C")->shape);
  EXPECT_EQ(w->strides, k.FindArg("C")->strides);
  // After `store C[0, ...], %h`: const 2 (kPreRounding), its store, and the
  // store of %d (the f32 value %h converts); after `store C[1, ...], %y`:
  // const 1 (kIdentical) and its store.
  ASSERT_EQ(r.body.size(), k.body.size() + 5);
  EXPECT_EQ(r.body[6].kind, OpKind::kConst);
  EXPECT_EQ(r.body[6].constant, 2);
  EXPECT_EQ(r.body[6].type.elem, ElemType::kI32);
  EXPECT_EQ(r.body[6].type.width, 4);
  EXPECT_EQ(r.body[7].mem, "C#kind");
  EXPECT_EQ(r.body[8].mem, "C#w");
  EXPECT_EQ(r.body[8].operands[0].name, "d");
  EXPECT_EQ(r.body[r.body.size() - 2].constant, 1);
  EXPECT_EQ(r.body.back().mem, "C#kind");
  // Element [1, 0, 0] recorded kIdentical, [0, 0, 0] kPreRounding with no
  // usable w (NaN) and a magnitude of 4: code 0x49 for a reference 0x48 is
  // one code off in both; only the identical one fails.
  KernelData ref = StoreRecordInputs(r, MakeInputs(k, 1)), shadow = ref;
  for (int64_t e : {0, 256}) ref.buffers["C"].data()[e] = 0x48;
  for (int64_t e = 0; e < 512; ++e) shadow.buffers["C"].data()[e] = 0x48;  // magnitudes of 4
  const int32_t identical = 1, pre = 2;
  std::memcpy(ref.buffers["C#kind"].data() + 256 * 4, &identical, 4);
  std::memcpy(ref.buffers["C#kind"].data(), &pre, 4);
  KernelData out = ref;
  for (int64_t e : {0, 256}) out.buffers["C"].data()[e] = 0x49;
  std::map<std::string, RoundingBound> b = RoundingBounds(k);
  std::vector<BufferDiff> d = CompareWithinBounds(k, out, ref, shadow, b);
  EXPECT_EQ(d[0].mismatches, 1) << FormatDiffs(d);
  EXPECT_EQ(d[0].worst_index, (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(d[0].identical, 1);
  EXPECT_EQ(d[0].pre_rounding, 0);  // w NaN: not checked
  // A buffer loaded after a store: the records are not used.
  const std::set<std::string> loaded{"C"};
  d = CompareWithinBounds(k, out, ref, shadow, b, &loaded);
  EXPECT_EQ(d[0].identical, 0);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
}

// The records of a store of `mul %c, %d` (%c a width-1 const broadcast
// over %d's 4 elements) cover all 4 elements: the kind is an i32x4.
TEST(Compare, StoreRecordsTakeTheWidthOfABroadcastProduct) {
  Kernel k = Parse(::kir::testing::OneWaveMfmaKernel(
                       "bc", "gfx942", "f32_16x16x16_f16", 16, "arg q : f8e5m2fnuz[16, 16] strides [16, 1] writeonly\n",
                       "  %c = const f32 0.5\n  %s = mul %c, %d\n  %h = cvt %s : f8e5m2fnuzx4\n"
                       "  store q[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h\n")
                       .c_str());
  std::set<std::string> recorded;
  Kernel r = StoreRecordKernel(k, &recorded);
  ASSERT_EQ(r.body.size(), k.body.size() + 3);
  const Op& kind = r.body[r.body.size() - 3];
  EXPECT_EQ(kind.kind, OpKind::kConst);
  EXPECT_EQ(kind.type.width, 4);
  EXPECT_EQ(r.body.back().mem, "q#w");
  EXPECT_EQ(r.body.back().operands[0].name, "s");
}

// Review 7 F4, F11: a read-modify-write buffer (ReadModifyWriteKernel,
// test_kernels.h: q = cvt(mfma + old q), each element loaded once, before
// its own store, by the thread that stores it) keeps the per-store checks;
// one whose run loaded an element back after storing it (in
// loaded_after_store: interpreter_test's LoadedAfterStoreNamesBuffersReadBack)
// keeps the whole-buffer bound.
TEST(Compare, ReadModifyWriteStoresAreCheckedAgainstTheirValueBeforeTheConversion) {
  Kernel k = Parse(::kir::testing::ReadModifyWriteKernel().c_str());
  // By hand (f8e5m2fnuz: 2 stored significand bits, u = 2^-3; codes 0x48 =
  // 4, 0x49 = 5, 0x54 = 32): rounding sums r = 2^-20 + u with the last
  // rounding u split off (as in LastRoundingIsChargedAgainstTheValue), so
  // G = (1 + u) * 2 * expm1(2^-20) / (1 - expm1(r)) * 32 + 2^-16 < 1e-4.
  // ref 4 everywhere, shadow 32, every element stored by a kPreRounding
  // store. Element 1: w = 4.2, out 5: within the value bound (|5 - 4| <=
  // 0.286 * 4), but 4.2 +- G converts to 4 only: FAIL. Element 2: w = 4.5
  // (the tie between 4 and 5, to even: 4): 4.5 + G converts to 5, so out 5
  // passes. Element 3: w = 4.49, out 4: passes.
  std::set<std::string> recorded;
  Kernel r = StoreRecordKernel(k, &recorded);
  KernelData ref = StoreRecordInputs(r, MakeInputs(k, 1)), shadow = ref;
  const float ws[4] = {4.0f, 4.2f, 4.5f, 4.49f};
  const int32_t pre = 2;
  for (int64_t e = 0; e < 256; ++e) {
    ref.buffers["q"].data()[e] = 0x48;
    shadow.buffers["q"].data()[e] = 0x54;
    std::memcpy(ref.buffers["q#kind"].data() + e * 4, &pre, 4);
    std::memcpy(ref.buffers["q#w"].data() + e * 4, &ws[e < 4 ? e : 0], 4);
  }
  KernelData out = ref;
  out.buffers["q"].data()[1] = out.buffers["q"].data()[2] = 0x49;
  const double u = 0.125, rho = std::ldexp(1.0, -20) + u;
  std::map<std::string, RoundingBound> b;
  b["q"] = RoundingBound{rho, rho, "", u};
  const std::set<std::string> none;
  std::vector<BufferDiff> d = CompareWithinBounds(k, out, ref, shadow, b, &none);
  EXPECT_EQ(d[0].mismatches, 1) << FormatDiffs(d);
  EXPECT_EQ(d[0].worst_index, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(d[0].pre_rounding, 256);
  // Loaded after a store: the whole-buffer bound alone, which both pass.
  const std::set<std::string> loaded{"q"};
  d = CompareWithinBounds(k, out, ref, shadow, b, &loaded);
  EXPECT_TRUE(d[0].ok) << FormatDiffs(d);
  EXPECT_EQ(d[0].pre_rounding, 0);
  EXPECT_NE(d[0].tol.why.find("(for every element: a load of q read an element a store of this launch had written)"),
            std::string::npos)
      << d[0].tol.why;
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// Review 6 F2: a random f32 scalar near 1 (seed 4 gave alpha = 1.0004) hides
// a dropped scale multiply behind an fp8 output's rounding: random scalars
// lie in [0.5, 0.875) or [1.125, 2), both parts drawn.
TEST(Inputs, RandomScalarsAvoidOne) {
  Kernel k = Parse(R"(kernel s
workgroup 64 1 1
grid 1 1 1
arg y : f32[4] strides [1] writeonly
arg alpha : f32
  %v = zero f32
end
)");
  int low = 0, high = 0;
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    const float a = F32FromBits(MakeInputs(k, seed).scalars.at("alpha"));
    ASSERT_TRUE((a >= 0.5f && a < 0.875f) || (a >= 1.125f && a < 2.0f)) << "seed " << seed << ": " << a;
    (a < 1 ? low : high) += 1;
  }
  EXPECT_GT(low, 400);   // 0.375 / 1.25 of 2000 = 600 expected
  EXPECT_GT(high, 1200);  // 0.875 / 1.25 of 2000 = 1400 expected
}

}  // namespace
}  // namespace kir
