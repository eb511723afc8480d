// Host-memory estimate and check of RunAndCheck (issue 13, defect 7; issue
// 18: sparse buffers). The expected byte counts are computed here from the
// declarations: per byte the run may touch, output (+ the device's bytes) or
// output + reference + shadow, plus the interpreter's record per element,
// the page tables and the fixed 256 MiB allowance.
#include "hw/run/host_memory.h"

#include <algorithm>
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
  // Per access, the pages of the bytes its 64 threads span (X[0, tid.x]:
  // 126 + 2 bytes, at most 2 pages of 64 KiB if they straddle one; Y[tid.x]:
  // 256 bytes, 2 pages, more than Y's 4000 bytes: Y counts whole). X is
  // readonly: read as generated inputs, counted once.
  const int64_t x = int64_t{2} * 65536, y = 1000 * 4, touched = y;
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("X")), x);
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("Y")), y);
  const int64_t elements = 1000;
  const int64_t fixed = int64_t{256} << 20;
  const int64_t tables = 5 * (1024 * 1024 * 2 / 65536 + 1) + 5 * (y / 65536 + 1);
  // A device with 12 bytes per touched byte dominates the reference phase
  // (output, reference, shadow: 3 per byte, and 16 bytes per element).
  EXPECT_EQ(RunHostBytes(k, 12), touched * 13 + tables + x + fixed);
  // The strict emulator (8 bytes of race records per byte): the larger phase.
  EXPECT_EQ(RunHostBytes(k, 8),
            std::max(touched * 9, touched * 3 + elements * InterpBookkeepingBytesPerElement()) + tables + x + fixed);
  // A device that copies every byte whatever it touches (HIP: 1; Y only).
  EXPECT_EQ(RunHostBytes(k, 12, false, {}, 1), touched * 13 + y + tables + x + fixed);
  // Concurrent: both phases, the output once.
  EXPECT_EQ(RunHostBytes(k, 8, true),
            touched * 9 + touched * 2 + elements * InterpBookkeepingBytesPerElement() + tables + x + fixed);
}

// A 2 GiB - 64 byte buffer of which one workgroup of 256 threads loads and
// stores one element per thread, 1 KiB together: 2 pages per access (the
// kilobyte may straddle a page boundary), not 2 GiB; the whole grid (or a
// box of 2 workgroups) counts what it may touch.
TEST(HostMemory, SparseBuffersCountTheirTouchedPages) {
  Kernel k = Parse(R"(kernel last
target gfx942
workgroup 256 1 1
grid 2097151 1 1
arg X : f32[536870896] strides [1] readwrite
  %v = load X[wg.x * 256 + tid.x] : f32
  store X[wg.x * 256 + tid.x], %v
end
)");
  const Arg& x = *k.FindArg("X");
  WorkgroupRange last;
  last.begin = {2097150, 0, 0};
  last.end = {2097151, 1, 1};
  EXPECT_EQ(TouchedBytesBound(k, x, last), int64_t{4} * 65536);
  WorkgroupRange two = last;
  two.begin[0] = 2097149;
  EXPECT_EQ(TouchedBytesBound(k, x, two), int64_t{8} * 65536);
  EXPECT_EQ(TouchedBytesBound(k, x), int64_t{536870896} * 4);
  const int64_t t = int64_t{4} * 65536, elements = t / 4;
  const int64_t tables = 5 * (int64_t{536870896} * 4 / 65536 + 1);
  EXPECT_EQ(RunHostBytes(k, 8, false, last),
            std::max(t * 9, t * 3 + elements * InterpBookkeepingBytesPerElement()) + tables + (int64_t{256} << 20));
  EXPECT_LT(RunHostBytes(k, 8, true, last), int64_t{1} << 30);
  // Every mapping at full size against an address-space limit: 2 GiB times
  // 5 copies and 8 bytes of race records, and 16 bytes per element.
  EXPECT_EQ(RunAddressSpaceBytes(k, 8),
            int64_t{536870896} * 4 * 13 + int64_t{536870896} * InterpBookkeepingBytesPerElement() +
                (int64_t{256} << 20));
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

// Mappings count at full size in the address space: a 16 TiB f32 buffer
// (13 bytes per byte, 16 per element: 272 TiB) cannot be mapped in the 128
// TiB of x86-64 user space, and says so before anything is allocated.
TEST(HostMemory, AddressSpaceBoundsSparseMappings) {
  Kernel k = Parse(R"(kernel vast
target gfx942
workgroup 64 1 1
grid 1 1 1
arg X : f32[4398046511104] strides [1] readwrite
  %v = load X[tid.x] : f32
  store X[tid.x], %v
end
)");
  std::string source;
  const int64_t avail = AvailableAddressSpace(&source);
  EXPECT_GT(avail, 0);
  EXPECT_LE(avail, int64_t{1} << 47);
  EXPECT_FALSE(source.empty());
  const int64_t need = RunAddressSpaceBytes(k, 8);
  EXPECT_EQ(need, (int64_t{1} << 44) * 13 + (int64_t{1} << 42) * 16 + (int64_t{256} << 20));
  absl::Status st = CheckHostMemory(k, need, avail, source, /*address_space=*/true);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted) << st;
  EXPECT_NE(st.message().find("X 16384.00 GiB"), std::string::npos) << st;
  EXPECT_NE(st.message().find("maps about"), std::string::npos) << st;
  EXPECT_NE(st.message().find("--workgroups does not help"), std::string::npos) << st;
  // While resident, it needs what one workgroup may touch (64 threads, a
  // load and a store of 256 contiguous bytes each: 2 pages per access) and
  // the page tables (a byte per 64 KiB page of each of 5 copies: 5 x 256 MiB).
  const int64_t t = int64_t{4} * 65536;
  EXPECT_EQ(RunHostBytes(k, 8),
            std::max<int64_t>(t * 9, t * 3 + t / 4 * 16) + 5 * ((int64_t{1} << 28) + 1) + (int64_t{256} << 20));
}

}  // namespace
}  // namespace kir
