#include <cmath>
#include <cstring>

#include "compiler/ir/float_bits.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "hw/check/compare.h"
#include "hw/check/inputs.h"
#include "hw/check/npy.h"

namespace kir {
namespace {

Kernel Parse(const char* text) {
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

}  // namespace
}  // namespace kir
