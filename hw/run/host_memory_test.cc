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
#include "compiler/promote/promote.h"
#include "compiler/target/target.h"
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
  // Y's store (an exact f16 -> f32 widening of an input) is recorded: the
  // record run adds Y#kind (i32, Y's shape): 4 bytes and a race record per
  // element, and a page table.
  const int64_t side = elements * (4 + InterpBookkeepingBytesPerElement());
  const int64_t tables = 5 * (1024 * 1024 * 2 / 65536 + 1) + 5 * (y / 65536 + 1) + (y / 65536 + 1);
  // A device with 12 bytes per touched byte dominates the reference phase
  // (output, reference, shadow: 3 per byte, and 16 bytes per element).
  EXPECT_EQ(RunHostBytes(k, 12), touched * 13 + tables + x + fixed);
  // The strict emulator (8 bytes of race records per byte): the larger phase.
  EXPECT_EQ(RunHostBytes(k, 8),
            std::max(touched * 9, touched * 3 + elements * InterpBookkeepingBytesPerElement() + side) + tables + x +
                fixed);
  // A device that copies every byte whatever it touches (HIP: 1; Y only).
  EXPECT_EQ(RunHostBytes(k, 12, false, {}, 1), touched * 13 + y + tables + x + fixed);
  // Concurrent: both phases, the output once.
  EXPECT_EQ(RunHostBytes(k, 8, true),
            touched * 9 + touched * 2 + elements * InterpBookkeepingBytesPerElement() + side + tables + x + fixed);
}

// The record run's side buffers (review 8's rdbuf note): H's store converts
// a loop-carried f32 sum (a value that may differ) to f16, so the record
// run adds H#kind (i32) and H#w (f32), each of H's 4096 elements: 4 bytes
// and a race record apiece, 40 bytes per element with 16-byte records,
// whose reference phase then outweighs the strict emulator's device phase.
TEST(HostMemory, RecordRunSideBuffersAreCounted) {
  Kernel k = Parse(R"(kernel rec
target gfx942
workgroup 64 1 1
grid 64 1 1
arg X : f32[4096, 4] strides [4, 1] readonly
arg H : f16[4096] strides [1] writeonly
  %z = zero f32
  %s = for %k = 0 to 3 iter(%c = %z) {
    %v = load X[wg.x * 64 + tid.x, %k] : f32
    %c2 = add %c, %v
    yield %c2
  }
  %h = cvt %s : f16
  store H[wg.x * 64 + tid.x], %h
end
)");
  const int64_t h = 4096 * 2, elements = 4096;
  ASSERT_EQ(TouchedBytesBound(k, *k.FindArg("H")), h);
  // X (readonly, counted once): 2 pages per workgroup bound it, more than
  // its 64 KiB, so all of it.
  const int64_t x = 4096 * 4 * 4;
  ASSERT_EQ(TouchedBytesBound(k, *k.FindArg("X")), x);
  const int64_t record = InterpBookkeepingBytesPerElement();
  const int64_t side = elements * 2 * (4 + record);
  const int64_t tables = 5 * (4096 * 4 * 4 / 65536 + 1) + 5 * (h / 65536 + 1) + 2 * (4096 * 4 / 65536 + 1);
  const int64_t fixed = int64_t{256} << 20;
  EXPECT_EQ(RunHostBytes(k, 8), std::max(h * 9, h * 3 + elements * record + side) + tables + x + fixed);
  EXPECT_EQ(RunHostBytes(k, 8, true), h * 9 + h * 2 + elements * record + side + tables + x + fixed);
  if (record == 16) {
    EXPECT_EQ(side, elements * 40);
  }
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
  // X's store (its own loaded value) is recorded: X#kind (i32, X's shape),
  // 4 bytes and a race record per touched element, and a page table.
  const int64_t side = elements * (4 + InterpBookkeepingBytesPerElement());
  const int64_t tables = 6 * (int64_t{536870896} * 4 / 65536 + 1);
  EXPECT_EQ(RunHostBytes(k, 8, false, last),
            std::max(t * 9, t * 3 + elements * InterpBookkeepingBytesPerElement() + side) + tables +
                (int64_t{256} << 20));
  EXPECT_LT(RunHostBytes(k, 8, true, last), int64_t{1} << 30);
  // Every mapping at full size against an address-space limit: 2 GiB times
  // 5 copies and 8 bytes of race records, and 16 bytes per element; the
  // record run's X#kind (i32, X's shape) and its race records at full size
  // too.
  EXPECT_EQ(RunAddressSpaceBytes(k, 8),
            int64_t{536870896} * 4 * 13 + int64_t{536870896} * InterpBookkeepingBytesPerElement() +
                int64_t{536870896} * 4 + int64_t{536870896} * InterpBookkeepingBytesPerElement() +
                (int64_t{256} << 20));
}

// A gemm on strided views of big allocations (fresh-user review 11 F8:
// gwe3.kir, refused as needing 21.68 GiB): the gemm touches the elements of
// A's, B's and C's shapes only, so each counts its rows times the pages of a
// row (a row of at most 200 bytes: 2 pages if it straddles a boundary), not
// the 0.9 to 1.3 GB its strides span.
TEST(HostMemory, GemmOnStridedViewsCountsRowsNotTheAllocation) {
  Kernel k = Parse(R"(kernel gwe
target gfx950
workgroup auto
grid auto
arg A : f8e5m2[70, 100] strides [18000000, 1] readonly
arg B : f8e4m3fn[70, 36] strides [14000000, 1] readonly
arg C : bf16[100, 36] strides [7000000, 1] readwrite
arg alpha : f32
arg beta : f32
  gemm C = alpha * A.km * B.kn + beta * C tile 32x32x64 waves 1x1
end
)");
  const int64_t page = 65536;
  // A: 70 rows of 100 bytes, 2 pages each (the columns: 100 lines of
  // 69 x 18e6 + 1 bytes are far more); B: 70 rows of 36 bytes; C: 100 rows
  // of 36 bf16 = 72 bytes.
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("A")), 70 * 2 * page);
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("B")), 70 * 2 * page);
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("C")), 100 * 2 * page);
  // Any band of workgroups touches no more.
  WorkgroupRange one;
  one.begin = {0, 0, 0};
  one.end = {1, 1, 1};
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("C"), one), 100 * 2 * page);
  // So the run needs well under 1 GiB (it peaks at about 50 MB), not 21.7 GiB.
  EXPECT_LT(RunHostBytes(k, 8), int64_t{1} << 30);
  EXPECT_LT(RunHostBytes(k, 8, true), int64_t{1} << 30);
  // kirc run estimates the promoted kernel (its copy loops' many loads per
  // thread bound nothing below the buffers) with the gemm as its source:
  // the fewer bound, so again under 1 GiB, against over 3 GiB without it
  // (every byte of A, B and C counted at least once).
  absl::StatusOr<Kernel> promoted = ValidateAndPromote(k, **LookupTarget("gfx950"));
  ASSERT_TRUE(promoted.ok()) << promoted.status();
  EXPECT_GT(RunHostBytes(*promoted, 8), int64_t{3} << 30);
  EXPECT_LT(RunHostBytes(*promoted, 8, false, {}, 0, {}, &k), int64_t{1} << 30);
}

// A gemm whose buffers are small and dense counts them whole (the bound
// never exceeds the buffer), and a column-major C whose columns are far
// apart counts its columns: C f32[64, 3] strides [1, 10000000]: 3 lines of
// 64 x 4 = 256 bytes, 2 pages each, against 64 rows of 2 x 1e7 x 4 + 4
// bytes.
TEST(HostMemory, GemmBoundIsTheFewerOfTheBufferAndTheLines) {
  Kernel k = Parse(R"(kernel g
target gfx942
workgroup auto
grid auto
arg A : f16[64, 32] strides [32, 1] readonly
arg B : f16[3, 32] strides [32, 1] readonly
arg C : f32[64, 3] strides [1, 10000000] writeonly
arg alpha : f32
  gemm C = alpha * A.mk * B.nk
end
)");
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("A")), 64 * 32 * 2);
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("B")), 3 * 32 * 2);
  EXPECT_EQ(TouchedBytesBound(k, *k.FindArg("C")), 3 * 2 * 65536);
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
  // X's 2^42 elements: 13 bytes per byte and a 16-byte race record each,
  // and the record run's X#kind (4 bytes and a race record per element).
  EXPECT_EQ(need, (int64_t{1} << 44) * 13 + (int64_t{1} << 42) * 16 + (int64_t{1} << 42) * (4 + 16) +
                      (int64_t{256} << 20));
  absl::Status st = CheckHostMemory(k, need, avail, source, /*address_space=*/true);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted) << st;
  EXPECT_NE(st.message().find("X 16384.00 GiB"), std::string::npos) << st;
  EXPECT_NE(st.message().find("maps about"), std::string::npos) << st;
  EXPECT_NE(st.message().find("--workgroups does not help"), std::string::npos) << st;
  // While resident, it needs what one workgroup may touch (64 threads, a
  // load and a store of 256 contiguous bytes each: 2 pages per access), the
  // record run's X#kind (4 bytes and a 16-byte race record per touched
  // element) and the page tables (a byte per 64 KiB page of each of 5
  // copies and X#kind: 6 x 256 MiB).
  const int64_t t = int64_t{4} * 65536;
  ASSERT_EQ(InterpBookkeepingBytesPerElement(), 16);
  EXPECT_EQ(RunHostBytes(k, 8), std::max<int64_t>(t * 9, t * 3 + t / 4 * 16 + t / 4 * 20) +
                                    6 * ((int64_t{1} << 28) + 1) + (int64_t{256} << 20));
}

}  // namespace
}  // namespace kir
