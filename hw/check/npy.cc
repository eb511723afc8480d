#include "hw/check/npy.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kir {

std::string NpyOfBuffer(const Arg& a, const std::vector<uint8_t>& bytes) {
  const char* descr = a.elem == ElemType::kF32   ? "<f4"
                      : a.elem == ElemType::kF16 ? "<f2"
                      : a.elem == ElemType::kBF16 ? "<u2"
                                                  : "<i4";
  std::string shape = absl::StrJoin(a.shape, ", ");
  if (a.shape.size() == 1) shape += ",";
  std::string header =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Magic (6) + version (2) + header length (2) + header, padded with spaces
  // and ended by '\n' to a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  int eb = ElemBytes(a.elem);
  size_t rank = a.shape.size();
  std::vector<int64_t> idx(rank, 0);
  bool done = rank == 0;
  for (int64_t e : a.shape) done = done || e <= 0;
  while (!done) {
    int64_t off = 0;
    for (size_t i = 0; i < rank; ++i) off += idx[i] * a.strides[i];
    off *= eb;
    if (off >= 0 && static_cast<size_t>(off + eb) <= bytes.size())
      out.append(reinterpret_cast<const char*>(bytes.data() + off), eb);
    else
      out.append(static_cast<size_t>(eb), '\0');
    done = !NextIndex(idx, a.shape);
  }
  return out;
}

bool NextIndex(std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
  for (size_t i = idx.size(); i > 0; --i) {
    if (++idx[i - 1] < shape[i - 1]) return true;
    idx[i - 1] = 0;
  }
  return false;
}

}  // namespace kir
