#include "hw/run/user_values.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "compiler/ir/float_bits.h"
#include "compiler/object/toolchain.h"
#include "hw/check/npy.h"
#include "hw/kernarg.h"

namespace kir {
namespace {

std::string Printable(const std::string& n) {
  for (char c : n)
    if (c < 0x20 || c > 0x7e) return absl::CHexEscape(n);
  return n;
}

// The type a C type name spells, or kind kFloat with bytes 0 when unknown.
std::optional<ScalarType> FromTypeName(std::string t) {
  t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(t));
  for (const char* q : {"const ", "volatile ", "__restrict__ ", "restrict "}) t = absl::StrReplaceAll(t, {{q, ""}});
  t = std::string(absl::StripAsciiWhitespace(t));
  using K = ScalarType::Kind;
  static const std::pair<const char*, ScalarType> kNames[] = {
      {"float", {K::kFloat, 4}},        {"double", {K::kFloat, 8}},       {"half", {K::kFloat, 2}},
      {"_float16", {K::kFloat, 2}},     {"__fp16", {K::kFloat, 2}},       {"__bf16", {K::kFloat, 2, true}},
      {"bfloat16", {K::kFloat, 2, true}}, {"char", {K::kSigned, 1}},      {"signed char", {K::kSigned, 1}},
      {"int8_t", {K::kSigned, 1}},      {"short", {K::kSigned, 2}},       {"int16_t", {K::kSigned, 2}},
      {"int", {K::kSigned, 4}},         {"signed int", {K::kSigned, 4}},  {"int32_t", {K::kSigned, 4}},
      {"long", {K::kSigned, 8}},        {"long long", {K::kSigned, 8}},   {"int64_t", {K::kSigned, 8}},
      {"ptrdiff_t", {K::kSigned, 8}},   {"unsigned char", {K::kUnsigned, 1}}, {"uchar", {K::kUnsigned, 1}},
      {"uint8_t", {K::kUnsigned, 1}},   {"bool", {K::kUnsigned, 1}},      {"unsigned short", {K::kUnsigned, 2}},
      {"ushort", {K::kUnsigned, 2}},    {"uint16_t", {K::kUnsigned, 2}},  {"unsigned int", {K::kUnsigned, 4}},
      {"unsigned", {K::kUnsigned, 4}},  {"uint", {K::kUnsigned, 4}},      {"uint32_t", {K::kUnsigned, 4}},
      {"unsigned long", {K::kUnsigned, 8}}, {"ulong", {K::kUnsigned, 8}}, {"unsigned long long", {K::kUnsigned, 8}},
      {"uint64_t", {K::kUnsigned, 8}},  {"size_t", {K::kUnsigned, 8}},
      // .value_type (code object v2/v3 metadata; Tensile writes it still)
      {"i8", {K::kSigned, 1}},          {"i16", {K::kSigned, 2}},         {"i32", {K::kSigned, 4}},
      {"i64", {K::kSigned, 8}},         {"u8", {K::kUnsigned, 1}},        {"u16", {K::kUnsigned, 2}},
      {"u32", {K::kUnsigned, 4}},       {"u64", {K::kUnsigned, 8}},       {"f16", {K::kFloat, 2}},
      {"f32", {K::kFloat, 4}},          {"f64", {K::kFloat, 8}},
  };
  for (const auto& [n, st] : kNames)
    if (t == n) return st;
  return std::nullopt;
}

std::vector<uint8_t> Bytes(uint64_t v, int n) {
  std::vector<uint8_t> b(n);
  for (int i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  return b;
}

uint64_t FromBytes(const std::vector<uint8_t>& b) {
  uint64_t v = 0;
  for (size_t i = b.size(); i > 0; --i) v = v << 8 | b[i - 1];
  return v;
}

absl::Status NotA(absl::string_view text, const ScalarType& t, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("'", absl::CHexEscape(text), "' is not a valid ", t.Name(), " value: ", why));
}

}  // namespace

std::string ScalarType::Name() const {
  const int bits = 8 * bytes;
  switch (kind) {
    case Kind::kSigned: return absl::StrCat("i", bits);
    case Kind::kUnsigned: return absl::StrCat("u", bits);
    case Kind::kInteger: return absl::StrCat("int", bits);
    case Kind::kFloat: return bf16 ? "bf16" : absl::StrCat("f", bits);
  }
  return "?";
}

ScalarType ScalarTypeOf(ElemType t) {
  return t == ElemType::kF32 ? ScalarType{ScalarType::Kind::kFloat, 4} : ScalarType{ScalarType::Kind::kSigned, 4};
}

absl::StatusOr<ScalarType> ScalarTypeOf(const ArgNote& a) {
  if (a.size != 1 && a.size != 2 && a.size != 4 && a.size != 8)
    return absl::InvalidArgumentError(absl::StrCat(
        "it is a ", a.size, "-byte by-value argument", a.type_name.empty() ? "" : " (" + Printable(a.type_name) + ")",
        "; --scalar sets integers and floats of 1, 2, 4 or 8 bytes"));
  for (const std::string* t : {&a.type_name, &a.value_type}) {
    if (t->empty()) continue;
    std::optional<ScalarType> st = FromTypeName(*t);
    if (st && st->bytes == a.size) return *st;
  }
  return ScalarType{ScalarType::Kind::kInteger, static_cast<int>(a.size)};
}

absl::StatusOr<std::vector<uint8_t>> ParseScalarValue(absl::string_view text, const ScalarType& t) {
  const std::string s(absl::StripAsciiWhitespace(text));
  if (s.empty()) return NotA(text, t, "it is empty");
  if (t.kind == ScalarType::Kind::kFloat) {
    const std::string lower = absl::AsciiStrToLower(s);
    const bool hex = absl::StrContains(lower, "0x");
    if (hex && !absl::StrContains(lower, "p"))
      return NotA(text, t, absl::StrCat("a hexadecimal float needs a binary exponent (0x1.8p-3 is 0.1875); for the ",
                                        t.Name(), "'s bits write its value instead"));
    const char* begin = s.c_str();
    char* end = nullptr;
    errno = 0;
    if (t.bytes == 4) {
      const float f = std::strtof(begin, &end);
      if (end == begin || *end != '\0')
        return NotA(text, t, "write a decimal (1.5, -2e-3), inf, -inf, nan or a C hexadecimal float (0x1.8p-3)");
      if (errno == ERANGE && (std::isinf(f) || f == 0.0f))
        return NotA(text, t, absl::StrCat("it is outside the range of ", t.Name(),
                                          std::isinf(f) ? " (the largest finite is 3.40282347e+38)"
                                                        : " (it rounds to 0; the smallest subnormal is 1.4e-45)"));
      return Bytes(F32Bits(f), 4);
    }
    const double d = std::strtod(begin, &end);
    if (end == begin || *end != '\0')
      return NotA(text, t, "write a decimal (1.5, -2e-3), inf, -inf, nan or a C hexadecimal float (0x1.8p-3)");
    if (t.bytes == 8) {
      if (errno == ERANGE && (std::isinf(d) || d == 0.0))
        return NotA(text, t, "it is outside the range of f64");
      uint64_t bits = 0;
      std::memcpy(&bits, &d, 8);
      return Bytes(bits, 8);
    }
    // f16 / bf16: exactly representable values only (a decimal rounded to
    // double first could round twice).
    std::optional<uint32_t> b = ExactBits(t.bf16 ? ElemType::kBF16 : ElemType::kF16, d);
    if (!b) return NotA(text, t, absl::StrCat(t.Name(), " does not hold it exactly; give a value it holds"));
    return Bytes(*b, 2);
  }
  // Integers.
  absl::string_view v = s;
  const bool neg = absl::ConsumePrefix(&v, "-");
  if (!neg) absl::ConsumePrefix(&v, "+");
  uint64_t mag = 0;
  const bool hex = absl::StartsWithIgnoreCase(v, "0x");
  const absl::string_view digits = hex ? v.substr(2) : v;
  bool all = !digits.empty();
  for (char c : digits) all = all && (hex ? absl::ascii_isxdigit(c) : absl::ascii_isdigit(c));
  const int bits = 8 * t.bytes;
  auto out_of_range = [&] { return NotA(text, t, absl::StrCat("it is out of range for ", t.Name())); };
  if (!all)
    return NotA(text, t,
                !hex && (absl::StrContains(v, ".") || absl::StrContains(v, "e") || absl::StrContains(v, "E"))
                    ? "an integer argument takes an integer (decimal or 0x hexadecimal)"
                    : "write a decimal integer or 0x followed by hexadecimal digits");
  if (!(hex ? absl::SimpleHexAtoi(digits, &mag) : absl::SimpleAtoi(digits, &mag))) return out_of_range();
  const unsigned __int128 umax = (static_cast<unsigned __int128>(1) << bits) - 1;
  const __int128 smin = -(static_cast<__int128>(1) << (bits - 1)), smax = (static_cast<__int128>(1) << (bits - 1)) - 1;
  const __int128 value = neg ? -static_cast<__int128>(mag) : static_cast<__int128>(mag);
  __int128 lo = 0, hi = 0;
  switch (t.kind) {
    case ScalarType::Kind::kSigned: lo = smin; hi = hex ? static_cast<__int128>(umax) : smax; break;
    case ScalarType::Kind::kUnsigned: lo = 0; hi = static_cast<__int128>(umax); break;
    default: lo = smin; hi = static_cast<__int128>(umax); break;
  }
  if (value < lo || value > hi)
    return NotA(text, t, absl::StrCat("it is out of range for ", t.Name(), " [", static_cast<int64_t>(lo), ", ",
                                      static_cast<uint64_t>(hi), "]",
                                      t.kind == ScalarType::Kind::kSigned
                                          ? absl::StrFormat(" (as bits: 0x0 to 0x%x)", static_cast<uint64_t>(umax))
                                          : ""));
  return Bytes(static_cast<uint64_t>(value), t.bytes);
}

std::string FormatScalarValue(const std::vector<uint8_t>& bytes, const ScalarType& t) {
  const uint64_t u = FromBytes(bytes);
  const int bits = 8 * t.bytes;
  const std::string hex = absl::StrFormat("0x%0*x", 2 * t.bytes, u);
  std::string value;
  if (t.kind == ScalarType::Kind::kFloat) {
    if (t.bytes == 4) value = absl::StrFormat("%.9g", F32FromBits(static_cast<uint32_t>(u)));
    else if (t.bytes == 8) {
      double d;
      std::memcpy(&d, &u, 8);
      value = absl::StrFormat("%.17g", d);
    } else {
      value = absl::StrFormat("%.9g", t.bf16 ? Bf16BitsToF32(static_cast<uint16_t>(u))
                                             : F16BitsToF32(static_cast<uint16_t>(u)));
    }
  } else if (t.kind == ScalarType::Kind::kUnsigned) {
    value = absl::StrCat(u);
  } else {
    // Sign-extend from `bits`.
    const int64_t s = bits == 64 ? static_cast<int64_t>(u) : static_cast<int64_t>(u << (64 - bits)) >> (64 - bits);
    value = absl::StrCat(s);
    if (t.kind == ScalarType::Kind::kInteger && s < 0) absl::StrAppend(&value, " or ", u);
  }
  return absl::StrCat(value, " (", t.Name(), ", ", hex, ")");
}

void UserValues::ApplyTo(const Kernel& k, KernelData* d) const {
  for (const auto& [name, elems] : elements) {
    const Arg* a = k.FindArg(name);
    if (a == nullptr) continue;
    // Checked when parsed (the same elements into an equal buffer).
    (void)ScatterElements(*a, elems, &d->buffers[name]);
  }
  for (const auto& [name, bits] : kir_scalars) d->scalars[name] = bits;
  d->extra_args = extra;
}

absl::StatusOr<UserValues> ParseUserValues(const Kernel& k,
                                           const std::vector<std::pair<std::string, std::string>>& scalars,
                                           const std::vector<std::pair<std::string, std::string>>& inputs,
                                           const KernelNotes* code) {
  UserValues uv;
  auto names_of = [&](Arg::Kind kind) {
    std::vector<std::string> v;
    for (const Arg& a : k.args)
      if (a.kind == kind) v.push_back(a.name);
    return v.empty() ? std::string("none") : absl::StrJoin(v, ", ");
  };
  std::set<std::string> seen;
  for (const auto& [name, path] : inputs) {
    const std::string flag = absl::StrCat("--input ", Printable(name), "=", path);
    if (!seen.insert(name).second)
      return absl::InvalidArgumentError(absl::StrCat("--input ", Printable(name), " is given twice"));
    const Arg* a = k.FindArg(name);
    if (a == nullptr)
      return absl::InvalidArgumentError(absl::StrCat(flag, ": kernel '", k.name, "' has no buffer argument '",
                                                     Printable(name), "' (its buffers: ", names_of(Arg::Kind::kBuffer),
                                                     ")"));
    if (a->kind != Arg::Kind::kBuffer)
      return absl::InvalidArgumentError(absl::StrCat(flag, ": '", name, "' is a scalar argument of kernel '", k.name,
                                                     "': give its value with --scalar ", name, "=VALUE"));
    absl::StatusOr<std::string> bytes = ReadFileBytes(path);
    if (!bytes.ok()) return absl::Status(bytes.status().code(), absl::StrCat(flag, ": ", bytes.status().message()));
    absl::StatusOr<std::vector<uint8_t>> elems = ReadNpyElements(*a, *bytes);
    if (!elems.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", elems.status().message()));
    // Aliasing elements must agree: scatter once now.
    std::vector<uint8_t> probe(static_cast<size_t>(a->SizeBytes()), 0);
    if (absl::Status st = ScatterElements(*a, *elems, &probe); !st.ok())
      return absl::InvalidArgumentError(absl::StrCat(flag, ": ", st.message()));
    uv.elements[name] = *std::move(elems);
    uv.input_text.push_back(absl::StrCat(name, " from ", path));
  }
  seen.clear();
  // Arguments of the code object given a value (index in code->args -> the
  // name or "#N" given), so that one given by name and by position is refused.
  std::map<size_t, std::string> code_arg_given;
  std::vector<int> position_of;  // index in code->args -> position among the explicit ones (-1: hidden)
  bool all_named = true;
  if (code != nullptr) {
    int p = 0;
    for (const ArgNote& n : code->args) {
      const bool hidden = absl::StartsWith(n.value_kind, "hidden_");
      position_of.push_back(hidden ? -1 : p++);
      all_named = all_named && (hidden || !n.name.empty());
    }
  }
  auto take_code_arg = [&](const std::string& flag, size_t i, const std::string& given) -> absl::Status {
    auto [it, fresh] = code_arg_given.emplace(i, given);
    if (fresh) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        flag, ": the code object's argument ", DescribeArgNote(code->args[i], position_of[i], true),
        " is given a value already (--scalar ", Printable(it->second), "=...)"));
  };
  for (const auto& [name, text] : scalars) {
    const std::string flag = absl::StrCat("--scalar ", Printable(name), "=", absl::CHexEscape(text));
    if (!seen.insert(name).second)
      return absl::InvalidArgumentError(absl::StrCat("--scalar ", Printable(name), " is given twice"));
    // By position: --scalar '#N=VALUE', the code object's explicit argument N.
    if (code != nullptr)
      if (absl::Status st = CheckPositionalKey(*code, name); !st.ok())
        return absl::InvalidArgumentError(absl::StrCat(flag, ": ", st.message()));
    if (std::optional<size_t> pos = PositionalArgIndex(name)) {
      if (code == nullptr)
        return absl::InvalidArgumentError(absl::StrCat(
            flag, ": '", name, "' addresses an argument of a code object by position (#N: its N-th explicit "
            "argument, from 0), and there is none: give the code object with --code-object, or a scalar of kernel '",
            k.name, "' by name (its scalars: ", names_of(Arg::Kind::kScalar), ")"));
      absl::StatusOr<size_t> i = PositionalArg(*code, *pos);
      if (!i.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", i.status().message()));
      const ArgNote& note = code->args[*i];
      if (all_named && k.FindArg(note.name) != nullptr)
        return absl::InvalidArgumentError(absl::StrCat(
            flag, ": the code object's argument ", DescribeArgNote(note, static_cast<int>(*pos), true),
            " is bound by name to the argument '", note.name, "' of kernel '", k.name, "': give it as --scalar ",
            note.name, "=VALUE"));
      if (absl::Status st = take_code_arg(flag, *i, name); !st.ok()) return st;
      absl::StatusOr<ScalarType> t = ScalarTypeOf(note);
      if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", t.status().message()));
      absl::StatusOr<std::vector<uint8_t>> v = ParseScalarValue(text, *t);
      if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", v.status().message()));
      const std::string key = PositionalArgKey(*pos);
      uv.extra_text.push_back(absl::StrCat(key, note.name.empty() ? "" : absl::StrCat(" (", Printable(note.name), ")"),
                                           " = ", FormatScalarValue(*v, *t)));
      uv.extra_list.push_back({key, *t, *v});
      uv.extra[key] = *std::move(v);
      continue;
    }
    if (const Arg* a = k.FindArg(name)) {
      if (a->kind == Arg::Kind::kBuffer)
        return absl::InvalidArgumentError(absl::StrCat(flag, ": '", name, "' is a buffer argument of kernel '",
                                                       k.name, "': give its contents with --input ", name,
                                                       "=FILE.npy"));
      const ScalarType t = ScalarTypeOf(a->elem);
      absl::StatusOr<std::vector<uint8_t>> v = ParseScalarValue(text, t);
      if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", v.status().message()));
      uv.kir_scalars[name] = static_cast<uint32_t>(FromBytes(*v));
      uv.kir_scalar_text.push_back(absl::StrCat(name, " = ", FormatScalarValue(*v, t)));
      continue;
    }
    // An argument of the code object's kernel that k lacks.
    std::vector<std::string> by_value;
    std::string first_unnamed;  // "#2" of the first unnamed by-value argument
    const ArgNote* note = nullptr;
    size_t note_index = 0;
    int unnamed = 0;  // by-value arguments without a metadata .name
    if (code != nullptr)
      for (size_t i = 0; i < code->args.size(); ++i) {
        const ArgNote& n = code->args[i];
        if (position_of[i] < 0 || (!n.name.empty() && k.FindArg(n.name) != nullptr)) continue;
        if (n.value_kind == "by_value") {
          if (n.name.empty() && unnamed++ == 0) first_unnamed = PositionalArgKey(position_of[i]);
          by_value.push_back(n.name.empty() ? DescribeArgNote(n, position_of[i])
                                            : absl::StrCat("'", Printable(n.name), "'"));
        }
        if (!n.name.empty() && n.name == name && note == nullptr) note = &n, note_index = i;
      }
    if (note == nullptr && unnamed > 0)
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": the code object's metadata names ", unnamed == static_cast<int>(by_value.size()) ? "none" : "not all",
          " of the by-value arguments the .kir lacks (", absl::StrJoin(by_value, ", "),
          "): give an unnamed one by its position among the code's explicit arguments, --scalar '", first_unnamed,
          "=VALUE', or rebuild the code object with argument names (clang "
          "-cl-kernel-arg-info for OpenCL; HIP names them); kernel '", k.name, "' of the .kir has the scalars ",
          names_of(Arg::Kind::kScalar)));
    if (note == nullptr) {
      if (code == nullptr)
        return absl::InvalidArgumentError(absl::StrCat(
            flag, ": kernel '", k.name, "' has no scalar argument '", Printable(name), "' (its scalars: ",
            names_of(Arg::Kind::kScalar), "); only a code object given with --code-object can take arguments the "
            ".kir lacks"));
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": neither kernel '", k.name, "' of the .kir (scalars: ", names_of(Arg::Kind::kScalar),
          ") nor the code object's kernel (by-value arguments the .kir lacks: ",
          by_value.empty() ? std::string("none") : absl::StrJoin(by_value, ", "), ") has an argument '",
          Printable(name), "'"));
    }
    if (note->value_kind != "by_value")
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": the code object's argument '", Printable(name), "' is ", note->value_kind,
          note->value_kind == "global_buffer" ? " (a pointer): pointers are the .kir's buffers; declare it as a "
                                                "buffer argument of the .kir kernel"
                                              : ", which --scalar cannot set"));
    if (absl::Status st = take_code_arg(flag, note_index, name); !st.ok()) return st;
    absl::StatusOr<ScalarType> t = ScalarTypeOf(*note);
    if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", t.status().message()));
    absl::StatusOr<std::vector<uint8_t>> v = ParseScalarValue(text, *t);
    if (!v.ok()) return absl::InvalidArgumentError(absl::StrCat(flag, ": ", v.status().message()));
    uv.extra_text.push_back(absl::StrCat(Printable(name), " = ", FormatScalarValue(*v, *t)));
    uv.extra_list.push_back({name, *t, *v});
    uv.extra[name] = *std::move(v);
  }
  return uv;
}

}  // namespace kir
