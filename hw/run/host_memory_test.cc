// Host-memory estimate and check of RunAndCheck (issue 13, defect 7). The
// expected byte counts are computed here from the declarations: per buffer
// byte, input + output (+ the device's bytes) or input + output + reference,
// plus the interpreter's record per element and the fixed 256 MiB allowance.
#include "hw/run/host_memory.h"

#include <string>

#include "compiler/reference/interpreter.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

Kernel Parse(const std::string& text) {
  absl::StatusOr<Kernel> k = ParseKernel(text, "m.kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return *k;
}

const char* kTwoBuffers = R"(kernel two
target gfx942
workgroup 64 1 1
grid 1 1 1
arg X : f16[1024, 1024] strides [1024, 1] readonly
arg Y : f32[1000] strides [1] writeonly
  %v = load X[0, tid.x] : f16
  %w = cvt %v : f32
  store Y[tid.x], %w
end
)";

TEST(HostMemory, EstimateFromTheDeclarations) {
  Kernel k = Parse(kTwoBuffers);
  const int64_t bytes = 1024 * 1024 * 2 + 1000 * 4;
  const int64_t elements = 1024 * 1024 + 1000;
  const int64_t fixed = int64_t{256} << 20;
  // A device with 12 bytes per buffer byte dominates the reference phase
  // (4 copies and 16 bytes per element, 8 per f16 byte: 12 per byte).
  EXPECT_EQ(RunHostBytes(k, 12), bytes * (2 + 12) + fixed);
  // The strict emulator (a copy and 8 bytes of race records: 9) does not.
  EXPECT_EQ(RunHostBytes(k, 9), bytes * 4 + elements * InterpBookkeepingBytesPerElement() + fixed);
  // A device with nothing of its own: the reference phase.
  EXPECT_EQ(RunHostBytes(k, 0),
            bytes * 4 + elements * InterpBookkeepingBytesPerElement() + fixed);
}

TEST(HostMemory, RefusalNamesTheNeedTheBuffersAndTheLimit) {
  Kernel k = Parse(kTwoBuffers);
  EXPECT_TRUE(CheckHostMemory(k, 100, 100, "x").ok());
  EXPECT_TRUE(CheckHostMemory(k, 100, -1, "x").ok());  // unknown limit
  absl::Status st = CheckHostMemory(k, int64_t{3} << 30, int64_t{1} << 30, "the test's limit");
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  const std::string m(st.message());
  EXPECT_NE(m.find("kernel 'two': this run needs about 3.00 GiB of host memory"), std::string::npos) << m;
  EXPECT_NE(m.find("largest buffers: X 0.00 GiB, Y 0.00 GiB"), std::string::npos) << m;
  EXPECT_NE(m.find("only 1.00 GiB is available (the test's limit)"), std::string::npos) << m;
}

TEST(HostMemory, AvailableBytesHaveASource) {
  std::string source;
  const int64_t avail = AvailableHostBytes(&source);
  // This test runs on Linux, where /proc/meminfo has MemAvailable.
  EXPECT_GT(avail, 0);
  EXPECT_FALSE(source.empty());
}

}  // namespace
}  // namespace kir
