#include "compiler/ir/paged_bytes.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace kir {

ZeroMapping::ZeroMapping(uint64_t bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(p);
  bytes_ = bytes;
}

ZeroMapping::~ZeroMapping() {
  if (data_ != nullptr) munmap(data_, bytes_);
}

ZeroMapping& ZeroMapping::operator=(ZeroMapping&& o) noexcept {
  if (this != &o) {
    if (data_ != nullptr) munmap(data_, bytes_);
    data_ = o.data_, bytes_ = o.bytes_;
    o.data_ = nullptr, o.bytes_ = 0;
  }
  return *this;
}

PagedBytes::PagedBytes(uint64_t size, std::shared_ptr<const PageFiller> filler)
    : size_(size), filler_(std::move(filler)), map_(size), state_(num_pages(), 0) {}

PagedBytes::PagedBytes(const std::vector<uint8_t>& bytes) : PagedBytes(bytes.size()) {
  if (!bytes.empty()) std::memcpy(map_.data(), bytes.data(), bytes.size());
  std::fill(state_.begin(), state_.end(), 1);
}

PagedBytes::PagedBytes(const PagedBytes& o) { CopyFrom(o); }

PagedBytes& PagedBytes::operator=(const PagedBytes& o) {
  if (this != &o) CopyFrom(o);
  return *this;
}

void PagedBytes::CopyFrom(const PagedBytes& o) {
  ZeroMapping m(o.size_);
  size_ = o.size_;
  filler_ = o.filler_;
  map_ = std::move(m);
  state_ = o.state_;
  for (uint64_t p = 0; p < state_.size(); ++p)
    if (state_[p]) {
      const uint64_t off = p * kPageBytes;
      std::memcpy(map_.data() + off, o.map_.data() + off, std::min(kPageBytes, size_ - off));
    }
}

std::vector<uint64_t> PagedBytes::MaterialisedPages() const {
  std::vector<uint64_t> v;
  for (uint64_t p = 0; p < state_.size(); ++p)
    if (state_[p]) v.push_back(p);
  return v;
}

uint64_t PagedBytes::materialised_bytes() const {
  uint64_t n = 0;
  for (uint64_t p = 0; p < state_.size(); ++p)
    if (state_[p]) n += std::min(kPageBytes, size_ - p * kPageBytes);
  return n;
}

uint8_t* PagedBytes::Touch(uint64_t offset, uint64_t n) {
  if (n > 0) {
    const uint64_t last = (offset + n - 1) / kPageBytes;
    for (uint64_t p = offset / kPageBytes; p <= last; ++p) {
      if (state_[p]) continue;
      const uint64_t off = p * kPageBytes;
      if (filler_ != nullptr) (*filler_)(off, map_.data() + off, std::min(kPageBytes, size_ - off));
      state_[p] = 1;
    }
  }
  return map_.data() + offset;
}

void PagedBytes::Read(uint64_t offset, void* out, uint64_t n) const {
  uint8_t* o = static_cast<uint8_t*>(out);
  while (n > 0) {
    const uint64_t p = offset / kPageBytes;
    const uint64_t len = std::min(n, (p + 1) * kPageBytes - offset);
    if (state_[p] || filler_ == nullptr)
      std::memcpy(o, map_.data() + offset, len);
    else
      (*filler_)(offset, o, len);
    o += len, offset += len, n -= len;
  }
}

std::vector<uint8_t> PagedBytes::ToVector() const {
  std::vector<uint8_t> v(size_);
  if (size_) Read(0, v.data(), size_);
  return v;
}

bool operator==(const PagedBytes& a, const PagedBytes& b) {
  if (a.size_ != b.size_) return false;
  const bool same = a.SameFiller(b);
  std::vector<uint8_t> x, y;
  for (uint64_t p = 0; p < a.num_pages(); ++p) {
    if (same && !a.state_[p] && !b.state_[p]) continue;  // equal by construction
    const uint64_t off = p * PagedBytes::kPageBytes, len = std::min(PagedBytes::kPageBytes, a.size_ - off);
    x.resize(len), y.resize(len);
    a.Read(off, x.data(), len);
    b.Read(off, y.data(), len);
    if (x != y) return false;
  }
  return true;
}

bool operator==(const PagedBytes& a, const std::vector<uint8_t>& b) {
  return a.size() == b.size() && a.ToVector() == b;
}

std::shared_ptr<const PageFiller> ElementFiller(int elem_bytes, std::function<uint64_t(uint64_t index)> elem) {
  const uint64_t eb = static_cast<uint64_t>(elem_bytes);
  return std::make_shared<const PageFiller>([eb, elem = std::move(elem)](uint64_t offset, uint8_t* out, uint64_t n) {
    uint64_t i = offset / eb;
    uint64_t skip = offset % eb;  // bytes of the first element before `offset`
    while (n > 0) {
      const uint64_t v = elem(i++);
      uint8_t bytes[8];
      for (uint64_t b = 0; b < 8; ++b) bytes[b] = static_cast<uint8_t>(v >> (8 * b));
      const uint64_t len = std::min(n, eb - skip);
      std::memcpy(out, bytes + skip, len);
      out += len, n -= len, skip = 0;
    }
  });
}

}  // namespace kir
