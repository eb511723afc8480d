// Sparse host memory for kernel buffers and per-byte bookkeeping (issue 18):
// anonymous mappings reserved with MAP_NORESERVE, so a page no one touches
// costs no host memory (the OS gives zero pages on first touch), and buffers
// whose untouched contents come from a pure function of the byte offset (a
// seeded input generator) filled page by page on first touch.
#ifndef KIRC_COMPILER_IR_PAGED_BYTES_H_
#define KIRC_COMPILER_IR_PAGED_BYTES_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

namespace kir {

// An anonymous, zero-filled, MAP_NORESERVE mapping of `bytes` bytes (0 bytes:
// no mapping). Only the 4 KiB pages written (or read) cost resident memory;
// the whole size counts against an address-space limit (ulimit -v). Throws
// std::bad_alloc when the mapping cannot be made (callers check the host
// memory before: hw/run/host_memory.h).
class ZeroMapping {
 public:
  ZeroMapping() = default;
  explicit ZeroMapping(uint64_t bytes);
  ~ZeroMapping();
  ZeroMapping(ZeroMapping&& o) noexcept : data_(o.data_), bytes_(o.bytes_) { o.data_ = nullptr, o.bytes_ = 0; }
  ZeroMapping& operator=(ZeroMapping&& o) noexcept;
  ZeroMapping(const ZeroMapping&) = delete;
  ZeroMapping& operator=(const ZeroMapping&) = delete;
  uint8_t* data() const { return data_; }
  uint64_t size() const { return bytes_; }

 private:
  uint8_t* data_ = nullptr;
  uint64_t bytes_ = 0;
};

// `n` zero-initialised elements of a trivial type in a ZeroMapping (race
// bookkeeping: an all-zero element means "never accessed").
template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(uint64_t n) : map_(n * sizeof(T)), n_(n) {}
  T* data() const { return reinterpret_cast<T*>(map_.data()); }
  T& operator[](uint64_t i) const { return data()[i]; }
  uint64_t size() const { return n_; }

 private:
  ZeroMapping map_;
  uint64_t n_ = 0;
};

// Writes the untouched contents of bytes [offset, offset + n) of a buffer to
// `out`: a pure function of the offset (the same bytes on every call, from
// any thread), e.g. a seeded input generator (hw/check/inputs.h).
using PageFiller = std::function<void(uint64_t offset, uint8_t* out, uint64_t n)>;

// A buffer of size() bytes held sparsely: a ZeroMapping whose pages of
// kPageBytes are materialised on first touch from the buffer's filler (none:
// zeros). Reads through Read/operator[] const of a page never touched give
// the filler's bytes without materialising it. Copies copy the materialised
// pages only and share the filler, so two copies of one buffer are equal on
// every page neither materialised (SameFiller). A const PagedBytes may be
// read from several threads; writes (and Touch) need exclusive access.
class PagedBytes {
 public:
  static constexpr uint64_t kPageBytes = uint64_t{1} << 16;  // 64 KiB

  PagedBytes() = default;
  // `size` bytes whose untouched contents `filler` gives (null: zeros).
  explicit PagedBytes(uint64_t size, std::shared_ptr<const PageFiller> filler = nullptr);
  // A dense buffer's bytes, every page materialised.
  PagedBytes(const std::vector<uint8_t>& bytes);  // NOLINT: implicit, like the vector it replaces
  PagedBytes(const PagedBytes& o);
  PagedBytes& operator=(const PagedBytes& o);
  PagedBytes(PagedBytes&&) noexcept = default;
  PagedBytes& operator=(PagedBytes&&) noexcept = default;

  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::shared_ptr<const PageFiller>& filler() const { return filler_; }
  // Both derive from one filler (copies of one buffer): a page neither
  // materialised holds the same bytes in both.
  bool SameFiller(const PagedBytes& o) const { return filler_ == o.filler_ && size_ == o.size_; }

  // Pages: [p * kPageBytes, min(size, (p + 1) * kPageBytes)).
  uint64_t num_pages() const { return (size_ + kPageBytes - 1) / kPageBytes; }
  bool materialised(uint64_t page) const { return state_[page] != 0; }
  // Pages materialised, in order.
  std::vector<uint64_t> MaterialisedPages() const;
  uint64_t materialised_bytes() const;

  // Materialises the pages holding [offset, offset + n) (which must lie
  // inside the buffer) and returns the address of byte `offset`: the bytes
  // may then be read and written in place until the buffer is moved.
  uint8_t* Touch(uint64_t offset, uint64_t n);
  // The whole buffer, materialised (for a dense consumer: a GPU copy).
  uint8_t* TouchAll() { return size_ ? Touch(0, size_) : nullptr; }
  // Copies [offset, offset + n) to `out` without materialising anything.
  void Read(uint64_t offset, void* out, uint64_t n) const;
  void Write(uint64_t offset, const void* in, uint64_t n) { if (n) std::memcpy(Touch(offset, n), in, n); }
  uint8_t operator[](uint64_t i) const {
    uint8_t b;
    Read(i, &b, 1);
    return b;
  }
  uint8_t& operator[](uint64_t i) { return *Touch(i, 1); }
  // As std::vector: every byte materialised, contiguous (a dense consumer:
  // small buffers, tests); `assign` makes `n` materialised bytes `v`.
  uint8_t* data() { return TouchAll(); }
  void assign(uint64_t n, uint8_t v) { *this = PagedBytes(std::vector<uint8_t>(n, v)); }
  // Every byte, densely (small buffers: tests, files).
  std::vector<uint8_t> ToVector() const;
  operator std::vector<uint8_t>() const { return ToVector(); }  // NOLINT

  friend bool operator==(const PagedBytes& a, const PagedBytes& b);
  friend bool operator!=(const PagedBytes& a, const PagedBytes& b) { return !(a == b); }

 private:
  void CopyFrom(const PagedBytes& o);
  uint64_t size_ = 0;
  std::shared_ptr<const PageFiller> filler_;
  ZeroMapping map_;
  std::vector<uint8_t> state_;  // per page: 1 materialised
};

bool operator==(const PagedBytes& a, const std::vector<uint8_t>& b);
inline bool operator==(const std::vector<uint8_t>& a, const PagedBytes& b) { return b == a; }
inline bool operator!=(const PagedBytes& a, const std::vector<uint8_t>& b) { return !(a == b); }
inline bool operator!=(const std::vector<uint8_t>& a, const PagedBytes& b) { return !(b == a); }

// A filler of elements of `elem_bytes` bytes (1 to 8) whose element i holds
// the low bytes of elem(i), little-endian: the untouched contents of a buffer
// of seeded inputs.
std::shared_ptr<const PageFiller> ElementFiller(int elem_bytes, std::function<uint64_t(uint64_t index)> elem);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_PAGED_BYTES_H_
