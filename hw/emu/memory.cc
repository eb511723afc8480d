#include "hw/emu/memory.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "compiler/isa/semantics.h"

namespace kir::emu {

void GlobalMemory::AddRegion(std::string name, uint64_t base, uint8_t* data, uint64_t size, bool argument) {
  regions_.push_back(Region{std::move(name), base, data, size, argument});
}

void GlobalMemory::AddPagedRegion(std::string name, uint64_t base, PagedBytes* bytes) {
  Region r{std::move(name), base, nullptr, bytes->size(), /*argument=*/true};
  r.paged = bytes;
  regions_.push_back(std::move(r));
}

const Region* GlobalMemory::Find(uint64_t addr, uint64_t n) const {
  auto inside = [&](const Region& r) {
    return addr >= r.base && addr - r.base <= r.size && n <= r.size - (addr - r.base);
  };
  if (last_ < regions_.size() && inside(regions_[last_])) return &regions_[last_];
  for (size_t i = 0; i < regions_.size(); ++i)
    if (inside(regions_[i])) {
      last_ = i;
      return &regions_[i];
    }
  return nullptr;
}

bool GlobalMemory::Read(uint64_t addr, void* out, uint64_t n) const {
  const Region* r = Find(addr, n);
  if (r == nullptr) return false;
  if (n == 0) return true;
  if (r->paged != nullptr)
    r->paged->Read(addr - r->base, out, n);
  else
    std::memcpy(out, r->data + (addr - r->base), n);
  return true;
}

bool GlobalMemory::Write(uint64_t addr, const void* in, uint64_t n) {
  const Region* r = Find(addr, n);
  if (r == nullptr) return false;
  if (n == 0) return true;
  if (r->paged != nullptr)
    r->paged->Write(addr - r->base, in, n);
  else
    std::memcpy(r->data + (addr - r->base), in, n);
  return true;
}

std::string GlobalMemory::Describe(uint64_t addr, uint64_t n) const {
  std::string s = absl::StrCat("0x", absl::Hex(addr), " (", n, n == 1 ? " byte" : " bytes");
  const Region* best = nullptr;
  uint64_t best_dist = ~0ull;
  for (const Region& r : regions_) {
    uint64_t d = addr < r.base ? r.base - addr : addr >= r.base + r.size ? addr - (r.base + r.size) : 0;
    if (d < best_dist) {
      best_dist = d;
      best = &r;
    }
  }
  if (best != nullptr) {
    if (addr < best->base)
      absl::StrAppend(&s, ", ", best->base - addr, " bytes before ");
    else if (addr >= best->base + best->size)
      absl::StrAppend(&s, ", ", addr - (best->base + best->size), " bytes past the end of ");
    else if (n <= best->size - (addr - best->base))
      absl::StrAppend(&s, " at offset ", addr - best->base, " of ");
    else
      absl::StrAppend(&s, ", crossing the end of ");
    absl::StrAppend(&s, best->name, " [0x", absl::Hex(best->base), " + ", best->size, " bytes]");
  }
  return s + ")";
}

Srd DecodeSrd(const uint32_t w[4]) {
  Srd s;
  s.base = w[0] | (static_cast<uint64_t>(w[1] & 0xffff) << 32);
  s.stride = (w[1] >> 16) & 0x3fff;
  s.swizzle = (w[1] >> 31) & 1;
  s.num_records = w[2];
  s.dword3 = w[3];
  return s;
}

absl::Status CheckSrd(const Srd& s) {
  if (s.data_format() == 0)
    return absl::FailedPreconditionError(absl::StrCat(
        "buffer resource descriptor dword3 0x", absl::Hex(s.dword3),
        " has data_format 0: stores would be dropped on real hardware (use 0x00020000)"));
  if (s.stride != 0)
    return absl::UnimplementedError(absl::StrCat("buffer resource descriptor has stride ", s.stride,
                                                 ": only raw buffers (stride 0) are emulated"));
  if (s.swizzle) return absl::UnimplementedError("swizzled buffers are not emulated");
  if (s.add_tid()) return absl::UnimplementedError("add_tid_enable buffers are not emulated");
  return absl::OkStatus();
}

bool RawBufferComponentInRange(const Srd& srd, uint32_t soffset, uint64_t offset, int bytes) {
  // The one definition the verifier proves against (compiler/isa/semantics.h).
  return RawBufferInRange<int64_t>(srd.num_records, soffset, static_cast<int64_t>(offset), bytes);
}

}  // namespace kir::emu
