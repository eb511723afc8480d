#include "hw/check/npy.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_join.h"

namespace kir {

const char* NpyDescr(ElemType t) {
  switch (t) {
    case ElemType::kF32: return "<f4";
    case ElemType::kF16: return "<f2";
    case ElemType::kBF16: return "<u2";
    case ElemType::kI32: return "<i4";
    // NumPy has no fp8 type: the raw codes (ml_dtypes' float8_e4m3fnuz etc. read them).
    case ElemType::kF8E4M3FNUZ:
    case ElemType::kF8E5M2FNUZ:
    case ElemType::kF8E4M3FN:
    case ElemType::kF8E5M2: return "|u1";
  }
  return "?";
}

namespace {

// The .npy header of buffer `a` (magic, version, header length, header).
std::string NpyHeader(const Arg& a) {
  const char* descr = NpyDescr(a.elem);
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
  return out;
}

// Calls sink(chunk) with the element bytes of `a` over its shape in C order
// (chunks of about 1 MiB), reading `bytes` without materialising pages.
template <typename Sink>
void GatherElements(const Arg& a, const PagedBytes& bytes, Sink sink) {
  const int eb = ElemBytes(a.elem);
  const size_t rank = a.shape.size();
  std::vector<int64_t> idx(rank, 0);
  bool done = rank == 0;
  for (int64_t e : a.shape) done = done || e <= 0;
  std::string chunk;
  constexpr size_t kChunk = size_t{1} << 20;
  while (!done) {
    // A contiguous run of the last dimension at once.
    int64_t off = 0;
    for (size_t i = 0; i < rank; ++i) off += idx[i] * a.strides[i];
    off *= eb;
    // (at most a chunk: a 1-D buffer is one run of its whole length).
    const int64_t run = rank > 0 && a.strides[rank - 1] == 1
                            ? std::min<int64_t>(a.shape[rank - 1] - idx[rank - 1], static_cast<int64_t>(kChunk) / eb)
                            : 1;
    const size_t len = static_cast<size_t>(run * eb);
    const size_t at = chunk.size();
    chunk.resize(at + len, '\0');
    if (off >= 0 && static_cast<uint64_t>(off) + len <= bytes.size())
      bytes.Read(static_cast<uint64_t>(off), chunk.data() + at, len);
    else
      for (int64_t e = 0; e < run; ++e)
        if (off + e * eb >= 0 && static_cast<uint64_t>(off + (e + 1) * eb) <= bytes.size())
          bytes.Read(static_cast<uint64_t>(off + e * eb), chunk.data() + at + e * eb, eb);
    if (rank > 0) idx[rank - 1] += run - 1;
    done = !NextIndex(idx, a.shape);
    if (chunk.size() >= kChunk || done) {
      sink(chunk);
      chunk.clear();
    }
  }
}

}  // namespace

std::string NpyOfBuffer(const Arg& a, const PagedBytes& bytes) {
  std::string out = NpyHeader(a);
  GatherElements(a, bytes, [&](const std::string& c) { out += c; });
  return out;
}

std::string NpyOfBuffer(const Arg& a, const std::vector<uint8_t>& bytes) { return NpyOfBuffer(a, PagedBytes(bytes)); }

bool WriteNpyOfBuffer(const Arg& a, const PagedBytes& bytes, std::ostream& out) {
  out << NpyHeader(a);
  GatherElements(a, bytes, [&](const std::string& c) { out.write(c.data(), static_cast<std::streamsize>(c.size())); });
  return static_cast<bool>(out);
}

namespace {

std::string IndexText(const std::vector<int64_t>& idx) { return absl::StrCat("[", absl::StrJoin(idx, ", "), "]"); }

std::string ShapeText(const std::vector<int64_t>& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "), shape.size() == 1 ? ",)" : ")");
}

// The value of key `key` in the header's dict literal, as written (a quoted
// string without its quotes, True/False, or a tuple with its parentheses);
// empty if absent.
std::string HeaderValue(absl::string_view h, absl::string_view key) {
  for (const char q : {'\'', '"'}) {
    const std::string k = absl::StrCat(std::string(1, q), key, std::string(1, q));
    size_t p = h.find(k);
    if (p == absl::string_view::npos) continue;
    p += k.size();
    while (p < h.size() && (h[p] == ' ' || h[p] == ':')) ++p;
    if (p >= h.size()) return "";
    if (h[p] == '\'' || h[p] == '"') {
      const size_t e = h.find(h[p], p + 1);
      return e == absl::string_view::npos ? "" : std::string(h.substr(p + 1, e - p - 1));
    }
    if (h[p] == '(') {
      const size_t e = h.find(')', p);
      return e == absl::string_view::npos ? "" : std::string(h.substr(p, e - p + 1));
    }
    size_t e = p;
    while (e < h.size() && h[e] != ',' && h[e] != '}' && h[e] != ' ') ++e;
    return std::string(h.substr(p, e - p));
  }
  return "";
}

}  // namespace

absl::StatusOr<std::vector<uint8_t>> ReadNpyElements(const Arg& a, absl::string_view npy) {
  auto bad = [](const std::string& why) { return absl::InvalidArgumentError(why); };
  if (npy.size() < 10 || npy.substr(0, 6) != absl::string_view("\x93NUMPY", 6))
    return bad("not a .npy file (it does not start with \\x93NUMPY; numpy.save writes one)");
  const int major = static_cast<unsigned char>(npy[6]);
  if (major < 1 || major > 3)
    return bad(absl::StrCat(".npy format version ", major, ".", static_cast<int>(static_cast<unsigned char>(npy[7])),
                            " (kirc reads 1.0, 2.0 and 3.0)"));
  size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(npy[8]) | static_cast<size_t>(static_cast<unsigned char>(npy[9])) << 8;
    start = 10;
  } else {
    if (npy.size() < 12) return bad("the .npy header is truncated");
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | static_cast<unsigned char>(npy[8 + i]);
    start = 12;
  }
  if (npy.size() < start + header_len) return bad("the .npy header is truncated");
  const absl::string_view h = npy.substr(start, header_len);
  const std::string descr = HeaderValue(h, "descr"), fortran = HeaderValue(h, "fortran_order"),
                    shape_text = HeaderValue(h, "shape");
  if (descr.empty() || fortran.empty() || shape_text.empty())
    return bad(absl::StrCat("the .npy header '", absl::CHexEscape(absl::StripAsciiWhitespace(h)),
                            "' lacks descr, fortran_order or shape"));
  const std::string want = NpyDescr(a.elem);
  const std::string type(ElemTypeName(a.elem));
  // One-byte elements have no byte order: NumPy's '|u1', '<u1', '>u1' and
  // '=u1' are the same dtype.
  const bool same_bytes = want == "|u1" && descr.size() == 3 && absl::string_view(descr).substr(1) == "u1" &&
                          absl::string_view("|<>=").find(descr[0]) != absl::string_view::npos;
  if (descr != want && !same_bytes)
    return bad(absl::StrCat("dtype '", absl::CHexEscape(descr), "', but buffer '", a.name, "' is ", type,
                            ": give dtype '", want, "'",
                            a.elem == ElemType::kBF16 ? " (bf16's raw bits: NumPy has no bfloat16; what --dump writes)"
                            : IsFp8(a.elem)           ? absl::StrCat(" (", type, "'s raw codes, e.g. ml_dtypes' ",
                                                                     "float8 arrays viewed as uint8; what --dump writes)")
                                                      : std::string(" (what --dump writes)")));
  if (fortran != "False")
    return bad("fortran_order is True: save the array in C order (numpy.ascontiguousarray), as --dump writes it");
  std::vector<int64_t> shape;
  absl::string_view inner = absl::StripAsciiWhitespace(absl::string_view(shape_text).substr(1, shape_text.size() - 2));
  for (absl::string_view part : absl::StrSplit(inner, ',', absl::SkipWhitespace())) {
    int64_t d = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &d) || d < 0)
      return bad(absl::StrCat("the .npy shape ", shape_text, " is not a tuple of sizes"));
    shape.push_back(d);
  }
  int64_t count = 1, want_count = 1;
  for (int64_t d : shape) count = d != 0 && count > (int64_t{1} << 40) / d ? (int64_t{1} << 41) : count * d;
  for (int64_t d : a.shape) want_count *= d;
  const std::string buffer = absl::StrCat("buffer '", a.name, "' (", type, ShapeText(a.shape), ", ", want_count,
                                          " elements)");
  if (count != want_count)
    return bad(absl::StrCat("shape ", ShapeText(shape), " holds ", count, " elements, not the ", want_count, " of ",
                            buffer));
  if (shape != a.shape && shape.size() != 1)
    return bad(absl::StrCat("shape ", ShapeText(shape), " holds as many elements as ", buffer,
                            " but is neither its shape nor flat (", want_count, ",): reshape it (in C order) if the "
                            "order is right"));
  const size_t eb = static_cast<size_t>(ElemBytes(a.elem));
  const size_t data = npy.size() - start - header_len;
  if (data != static_cast<size_t>(count) * eb)
    return bad(absl::StrCat("the .npy file has ", data, " bytes of data, not the ", count, " x ", eb,
                            " its shape needs (truncated or padded)"));
  const char* p = npy.data() + start + header_len;
  return std::vector<uint8_t>(p, p + data);
}

absl::Status ScatterElements(const Arg& a, const std::vector<uint8_t>& elements, std::vector<uint8_t>* buffer) {
  const int64_t eb = ElemBytes(a.elem);
  const size_t rank = a.shape.size();
  std::vector<int64_t> idx(rank, 0);
  bool done = rank == 0;
  for (int64_t e : a.shape) done = done || e <= 0;
  // Per buffer element written: the first index that wrote it (aliases).
  std::map<int64_t, std::vector<int64_t>> seen;
  bool aliases = false;
  for (size_t i = 0; i < rank; ++i) aliases = aliases || (a.strides[i] == 0 && a.shape[i] > 1);
  size_t n = 0;
  while (!done) {
    int64_t off = 0;
    for (size_t i = 0; i < rank; ++i) off += idx[i] * a.strides[i];
    off *= eb;
    const uint8_t* src = elements.data() + n * eb;
    if (off >= 0 && static_cast<size_t>(off + eb) <= buffer->size() && (n + 1) * eb <= elements.size()) {
      if (aliases) {
        auto [it, fresh] = seen.emplace(off, idx);
        if (!fresh && std::memcmp(buffer->data() + off, src, eb) != 0)
          return absl::InvalidArgumentError(absl::StrCat(
              "elements ", IndexText(it->second), " and ", IndexText(idx), " of buffer '", a.name,
              "' are one element in memory (its strides ", absl::StrJoin(a.strides, ", "),
              ") but the file gives them different values"));
      }
      std::memcpy(buffer->data() + off, src, eb);
    }
    ++n;
    done = !NextIndex(idx, a.shape);
  }
  return absl::OkStatus();
}

absl::Status ScatterElements(const Arg& a, const std::vector<uint8_t>& elements, PagedBytes* buffer) {
  std::vector<uint8_t> dense = buffer->ToVector();
  absl::Status st = ScatterElements(a, elements, &dense);
  if (st.ok()) *buffer = PagedBytes(dense);
  return st;
}

bool NextIndex(std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
  for (size_t i = idx.size(); i > 0; --i) {
    if (++idx[i - 1] < shape[i - 1]) return true;
    idx[i - 1] = 0;
  }
  return false;
}

}  // namespace kir
