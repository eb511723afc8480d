#include "compiler/ir/kernel.h"

#include <cstring>

namespace kir {

const char* AccessName(Access a) {
  switch (a) {
    case Access::kReadOnly:
      return "readonly";
    case Access::kWriteOnly:
      return "writeonly";
    case Access::kReadWrite:
      return "readwrite";
  }
  return "?";
}

namespace {

constexpr int64_t kSat = int64_t{1} << 62;
int64_t Sat(__int128 v) { return v > kSat ? kSat : v < -kSat ? -kSat : static_cast<int64_t>(v); }
int64_t SatAdd(int64_t a, int64_t b) { return Sat(static_cast<__int128>(a) + b); }
int64_t SatMul(int64_t a, int64_t b) { return Sat(static_cast<__int128>(a) * b); }

}  // namespace

int64_t Arg::SizeBytes() const {
  if (kind != Kind::kBuffer) return ElemBytes(elem);
  int64_t span = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] <= 0) return 0;
    span = SatAdd(span, SatMul(shape[d] - 1, d < strides.size() ? strides[d] : 0));
  }
  return SatMul(span, ElemBytes(elem));
}

bool operator==(const Arg& a, const Arg& b) {
  return a.name == b.name && a.kind == b.kind && a.elem == b.elem && a.shape == b.shape &&
         a.strides == b.strides && a.access == b.access;
}

std::vector<int64_t> LdsAlloc::Strides() const {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    int64_t inner = SatAdd(shape[d + 1], d + 1 == static_cast<int>(shape.size()) - 1 ? pad : 0);
    s[d] = SatMul(s[d + 1], inner);
  }
  return s;
}

int64_t LdsAlloc::SizeBytes() const {
  if (shape.empty()) return 0;
  std::vector<int64_t> s = Strides();
  int64_t row = shape.size() == 1 ? SatAdd(shape[0], pad) : SatMul(shape[0], s[0]);
  return SatMul(row, ElemBytes(elem));
}

LdsLayout LayoutLds(const Kernel& k) {
  LdsLayout l;
  for (const LdsAlloc& a : k.lds) {
    l.total = SatAdd(l.total, 15) / 16 * 16;
    l.offsets.push_back(l.total);
    l.total = SatAdd(l.total, a.SizeBytes());
  }
  return l;
}

bool operator==(const LdsAlloc& a, const LdsAlloc& b) {
  return a.name == b.name && a.elem == b.elem && a.shape == b.shape && a.pad == b.pad;
}

bool operator==(const Op& a, const Op& b) {
  if (a.kind != b.kind || a.results != b.results || !(a.type == b.type) ||
      a.operands != b.operands || a.mem != b.mem || a.along != b.along ||
      a.guarded != b.guarded || a.tr != b.tr || a.first != b.first || a.mfma != b.mfma || a.ivar != b.ivar || a.lo != b.lo ||
      a.hi != b.hi || a.step != b.step || a.iter_args != b.iter_args || a.body != b.body ||
      !(a.gemm == b.gemm) || a.lds != b.lds || a.lds_index.size() != b.lds_index.size() ||
      a.index.size() != b.index.size())
    return false;
  for (size_t i = 0; i < a.lds_index.size(); ++i)
    if (!IndexEqual(a.lds_index[i], b.lds_index[i])) return false;
  // Compare constants bitwise so that NaN == NaN and 0.0 != -0.0.
  if (std::memcmp(&a.constant, &b.constant, sizeof(double)) != 0) return false;
  for (size_t i = 0; i < a.index.size(); ++i)
    if (!IndexEqual(a.index[i], b.index[i])) return false;
  return true;
}

const Arg* Kernel::FindArg(const std::string& n) const {
  for (const Arg& a : args)
    if (a.name == n) return &a;
  return nullptr;
}
const LdsAlloc* Kernel::FindLds(const std::string& n) const {
  for (const LdsAlloc& l : lds)
    if (l.name == n) return &l;
  return nullptr;
}
const NamedConst* Kernel::FindConst(const std::string& n) const {
  for (const NamedConst& c : consts)
    if (c.name == n) return &c;
  return nullptr;
}

bool operator==(const Kernel& a, const Kernel& b) {
  return a.name == b.name && a.target == b.target && a.workgroup == b.workgroup &&
         a.grid == b.grid && a.consts == b.consts && a.args == b.args && a.lds == b.lds &&
         a.body == b.body;
}

int64_t ForTripCount(const Op& f) {
  if (f.step <= 0 || f.hi <= f.lo) return 0;
  const __int128 n = (static_cast<__int128>(f.hi) - f.lo + f.step - 1) / f.step;
  return n > INT64_MAX ? INT64_MAX : static_cast<int64_t>(n);
}

}  // namespace kir
