// PagedBytes and ZeroMapping: sparse buffers read as written, zero or their
// filler where untouched, and copy only what was materialised.
#include "compiler/ir/paged_bytes.h"

#include <sys/resource.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace kir {
namespace {

constexpr uint64_t P = PagedBytes::kPageBytes;

TEST(PagedBytes, ReadsAsWrittenAndZeroElsewhere) {
  PagedBytes b(10 * P + 3);  // no filler: zeros
  EXPECT_EQ(b.size(), 10 * P + 3);
  EXPECT_EQ(b.num_pages(), 11u);
  EXPECT_EQ(std::as_const(b)[5 * P + 7], 0);  // a const read materialises nothing
  EXPECT_EQ(b.materialised_bytes(), 0u);
  const uint8_t in[6] = {1, 2, 3, 4, 5, 6};
  b.Write(3 * P - 2, in, 6);  // straddles pages 2 and 3
  EXPECT_EQ(b.MaterialisedPages(), (std::vector<uint64_t>{2, 3}));
  uint8_t out[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  b.Read(3 * P - 3, out, 8);
  EXPECT_EQ(std::vector<uint8_t>(out, out + 8), (std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 6, 0}));
  b[10 * P + 2] = 0x7f;  // the last, partial page
  EXPECT_EQ(std::as_const(b)[10 * P + 2], 0x7f);
  EXPECT_EQ(b.materialised_bytes(), 2 * P + 3);
}

TEST(PagedBytes, UntouchedPagesReadTheFiller) {
  // Element i (u32) = 3 * i + 1.
  PagedBytes b(4 * P, ElementFiller(4, [](uint64_t i) { return 3 * i + 1; }));
  uint32_t v = 0;
  b.Read(4 * 1000, &v, 4);
  EXPECT_EQ(v, 3001u);
  b.Read(4 * (2 * P / 4 + 5), &v, 4);
  EXPECT_EQ(v, 3 * (2 * P / 4 + 5) + 1);
  // An unaligned range: bytes 1..2 of element 7 (22 = 0x16) and byte 0 of 8.
  uint8_t u[4];
  b.Read(4 * 7 + 1, u, 4);
  EXPECT_EQ(u[0], 0);
  EXPECT_EQ(u[3], 25);
  EXPECT_EQ(b.materialised_bytes(), 0u);  // reads never materialise
  // A write keeps the rest of its page's filler values.
  const uint32_t w = 0xdeadbeef;
  b.Write(4 * 10, &w, 4);
  b.Read(4 * 11, &v, 4);
  EXPECT_EQ(v, 34u);
  b.Read(4 * 10, &v, 4);
  EXPECT_EQ(v, 0xdeadbeefu);
  EXPECT_EQ(b.MaterialisedPages(), (std::vector<uint64_t>{0}));
}

TEST(PagedBytes, CopiesShareTheFillerAndCompareByPage) {
  PagedBytes a(8 * P, ElementFiller(2, [](uint64_t i) { return i * 7; }));
  PagedBytes b = a;
  EXPECT_TRUE(a.SameFiller(b));
  EXPECT_TRUE(a == b);
  b[5 * P] = b[5 * P];  // materialised, same value
  EXPECT_TRUE(a == b);
  b[5 * P + 1] ^= 1;
  EXPECT_FALSE(a == b);
  PagedBytes c = b;  // copies the one materialised page
  EXPECT_EQ(c.MaterialisedPages(), (std::vector<uint64_t>{5}));
  EXPECT_TRUE(c == b);
  // A dense vector converts both ways.
  std::vector<uint8_t> v = {1, 2, 3};
  PagedBytes d = v;
  EXPECT_EQ(d.ToVector(), v);
  EXPECT_TRUE(d == v);
  EXPECT_EQ(d.materialised_bytes(), 3u);
}

// A 64 GiB buffer and its zero-mapped bookkeeping cost only what is touched.
TEST(PagedBytes, HugeBuffersCostOnlyTouchedPages) {
  PagedBytes b(uint64_t{64} << 30, ElementFiller(4, [](uint64_t i) { return i; }));
  ZeroedArray<uint64_t> races(uint64_t{8} << 30);
  const uint32_t x = 42;
  b.Write((uint64_t{64} << 30) - 4, &x, 4);
  races[(uint64_t{8} << 30) - 1] = 7;
  uint32_t v = 0;
  b.Read((uint64_t{64} << 30) - 8, &v, 4);
  EXPECT_EQ(v, static_cast<uint32_t>((uint64_t{16} << 30) - 2));
  EXPECT_EQ(races[0], 0u);
  EXPECT_EQ(b.materialised_bytes(), P);
  rusage ru;
  ASSERT_EQ(getrusage(RUSAGE_SELF, &ru), 0);
  EXPECT_LT(ru.ru_maxrss, 512 * 1024) << "KiB";  // far below the 64 GiB + 64 GiB mapped
}

}  // namespace
}  // namespace kir
