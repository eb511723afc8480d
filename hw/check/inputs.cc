#include "hw/check/inputs.h"

#include <cstring>

#include "compiler/ir/float_bits.h"

namespace kir {
namespace {

// splitmix64: a fixed, portable sequence.
uint64_t Next(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 24 random bits.
float Unit(uint64_t& s) { return static_cast<float>(Next(s) >> 40) * (1.0f / 16777216.0f); }

uint64_t Hash(const std::string& name, uint64_t seed) {
  uint64_t h = seed ^ 0x243f6a8885a308d3ull;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

}  // namespace

KernelData MakeInputs(const Kernel& k, uint64_t seed) {
  KernelData d;
  for (const Arg& a : k.args) {
    uint64_t s = Hash(a.name, seed);
    if (a.kind == Arg::Kind::kScalar) {
      d.scalars[a.name] = a.elem == ElemType::kF32 ? F32Bits(0.5f + 1.5f * Unit(s))
                                                   : static_cast<uint32_t>(1 + Next(s) % 100);
      continue;
    }
    int64_t bytes = a.SizeBytes();
    std::vector<uint8_t> buf(static_cast<size_t>(bytes > 0 ? bytes : 0));
    int eb = ElemBytes(a.elem);
    for (size_t off = 0; off + eb <= buf.size(); off += eb) {
      float v = 2.0f * Unit(s) - 1.0f;
      uint32_t bits;
      switch (a.elem) {
        case ElemType::kF32: bits = F32Bits(v); break;
        case ElemType::kF16: bits = F32ToF16Bits(v); break;
        case ElemType::kBF16: bits = F32ToBf16Bits(v); break;
        default: bits = static_cast<uint32_t>(static_cast<int32_t>(Next(s) % 2001) - 1000); break;
      }
      std::memcpy(buf.data() + off, &bits, eb);
    }
    d.buffers[a.name] = std::move(buf);
  }
  return d;
}

}  // namespace kir
