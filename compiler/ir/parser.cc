#include "compiler/ir/parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kir {
namespace {

constexpr absl::string_view kTooDeep = "index expression nested deeper than 200 levels";
static_assert(kMaxParseNesting == 200, "update kTooDeep and the loop message");

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Offset of the first NUL byte or byte that does not belong to a valid UTF-8
// sequence (reported at the sequence's first byte), or npos.
size_t FindBadByte(absl::string_view s) {
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c != 0 && c < 0x80) {
      ++i;
      continue;
    }
    if (c == 0) return i;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // > U+10FFFF
    } else {
      return i;
    }
    if (n - i < len) return i;
    for (size_t k = 1; k < len; ++k) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF)) return i;
    }
    i += len;
  }
  return absl::string_view::npos;
}

int ClampInt(int64_t v) { return v > INT_MAX ? INT_MAX : static_cast<int>(v); }

// The ops that define values (`%r = OP ...`) and those that do not, as the
// docs/kir.md's op table ("Values and ops") lists them; and the declarations.
constexpr absl::string_view kValueOps[] = {"load", "load_tr", "const", "zero", "add", "mul", "fma", "cvt", "slice", "concat", "mfma", "for"};
constexpr absl::string_view kOtherOps[] = {"store", "lds_dma", "barrier", "yield", "gemm"};
constexpr absl::string_view kDeclWords[] = {"target", "workgroup", "grid", "const", "arg", "lds"};

bool IsOpWord(absl::string_view w) {
  for (absl::string_view o : kValueOps)
    if (w == o) return true;
  for (absl::string_view o : kOtherOps)
    if (w == o) return true;
  return false;
}

bool IsDeclWord(absl::string_view w) {
  for (absl::string_view d : kDeclWords)
    if (w == d) return true;
  return false;
}

// "a, b, c" (and = false) or "a, b and c".
template <size_t N>
std::string WordList(const absl::string_view (&words)[N], bool and_last = false) {
  std::string s;
  for (size_t i = 0; i < N; ++i)
    absl::StrAppend(&s, i == 0 ? "" : and_last && i + 1 == N ? " and " : ", ", words[i]);
  return s;
}

// A `for` whose `}` line has not been seen yet.
struct OpenLoop {
  Op op;
  int64_t brace_line = 0, brace_col = 0;  // where its '{' is
  bool yielded = false;                   // its body has seen `yield`
};

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view filename)
      : text_(text), filename_(filename) {}

  absl::StatusOr<Kernel> Run();

 private:
  // ---- Errors ----
  bool FailAt(int64_t line, int64_t col, absl::string_view what) {
    if (status_.ok())
      status_ = absl::InvalidArgumentError(
          absl::StrCat(filename_, ":", line, ":", col, ": error: ", what));
    return false;
  }
  bool Fail(const char* at, absl::string_view what) { return FailAt(line_, Col(at), what); }
  // "expected WHAT, found TOKEN" at the next token.
  bool Expected(absl::string_view what) {
    SkipWs();
    return Fail(p_, absl::StrCat("expected ", what, ", found ", Describe()));
  }

  // ---- Cursor over the current line (comment stripped) ----
  int64_t Col(const char* q) const { return (q - lb_) + 1; }
  SourceLoc Loc(const char* q) const { return SourceLoc{ClampInt(line_), ClampInt(Col(q))}; }
  void SkipWs() {
    while (p_ < le_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }
  bool AtEol() {
    SkipWs();
    return p_ == le_;
  }
  bool ExpectEol(absl::string_view after = "") {
    if (AtEol()) return true;
    return Expected(after.empty() ? std::string("end of line")
                                  : absl::StrCat("end of line after ", after));
  }
  bool PeekChar(char c) {
    SkipWs();
    return p_ < le_ && *p_ == c;
  }
  bool TryChar(char c) {
    if (!PeekChar(c)) return false;
    ++p_;
    return true;
  }
  bool ExpectChar(char c, absl::string_view context) {
    if (TryChar(c)) return true;
    return Expected(absl::StrCat("'", std::string(1, c), "' ", context));
  }
  bool PeekWord(absl::string_view w) {
    SkipWs();
    size_t left = static_cast<size_t>(le_ - p_);
    return left >= w.size() && std::memcmp(p_, w.data(), w.size()) == 0 &&
           (left == w.size() || !IsIdentChar(p_[w.size()]));
  }
  bool TryWord(absl::string_view w) {
    if (!PeekWord(w)) return false;
    p_ += w.size();
    return true;
  }
  // Reads an identifier-like word [A-Za-z_][A-Za-z0-9_]* if one starts here.
  bool ScanWord(std::string* out) {
    SkipWs();
    if (p_ == le_ || !IsIdentStart(*p_)) return false;
    const char* s = p_;
    while (p_ < le_ && IsIdentChar(*p_)) ++p_;
    out->assign(s, p_);
    return true;
  }
  bool ParseIdent(std::string* out, absl::string_view what) {
    if (ScanWord(out)) return true;
    return Expected(what);
  }
  // '%' immediately followed by an identifier; stores the identifier.
  bool ParsePercentName(std::string* out, absl::string_view what) {
    SkipWs();
    if (p_ == le_ || *p_ != '%') return Expected(what);
    ++p_;
    if (p_ == le_ || !IsIdentStart(*p_))
      return Fail(p_, absl::StrCat("expected a name after '%', found ", Describe()));
    return ScanWord(out);
  }
  std::string Describe();
  std::string Snippet(const char* s, const char* e) const;

  // ---- Numbers ----
  bool ScanMagnitude(const char* start, const char* q, bool neg, int64_t* out);
  bool ParseInt(int64_t* out, absl::string_view what);
  bool ParseIntOrConst(int64_t* out, absl::string_view what, absl::string_view hint = "");
  bool ParseFloat(double* out);

  // ---- Types ----
  bool TypeError(const char* at, const std::string& word);
  bool ParseType(ValueType* out);
  bool ParseElem(ElemType* out);

  // ---- Lines ----
  bool ParseLine();
  bool ParseDecl(const std::string& word, const char* start);
  bool ParseDims(std::vector<int64_t>* out, absl::string_view what, bool non_negative);
  bool ParseArg(const char* start);
  bool ParseLds(const char* start);
  bool CheckHeader(const char* at, absl::string_view before);
  bool BeginOp(const char* start);
  bool ParseOp(const char* start, const std::string& word, const char* wp,
               std::vector<std::string> results, const std::vector<const char*>& result_pos);
  bool ParseFor(Op op, const char* wp);
  bool ParseGemm(Op* op);
  bool ParseGemmLayout(absl::string_view operand, absl::string_view fast, absl::string_view slow,
                       bool* swapped);
  bool ParseExtents(int n, int64_t* out, absl::string_view what);
  bool ParseMemRef(Op* op);
  bool ParseOperand(Operand* out);
  bool ParseOperands(Op* op, int n);
  bool ParseCloseBrace(const char* start);
  bool ParseEnd(const char* start);
  std::vector<Op>& Body() { return loops_.empty() ? kernel_.body : loops_.back().op.body; }

  // ---- Index expressions ----
  bool ParseIndex(IndexRef* out) {
    int depth = 0;
    return ParseExpr(out, &depth, 0);
  }
  bool ParseExpr(IndexRef* out, int* depth, int nest);
  bool ParseTerm(IndexRef* out, int* depth, int nest);
  bool ParseFactor(IndexRef* out, int* depth, int nest);
  bool Combine(IndexKind k, IndexRef* lhs, int* ld, IndexRef rhs, int rd, const char* at);

  absl::string_view text_;
  std::string filename_;
  absl::Status status_;

  int64_t line_ = 0;
  const char* lb_ = nullptr;  // line begin
  const char* p_ = nullptr;   // cursor
  const char* le_ = nullptr;  // end of the line's content ('#' or end of line)

  Kernel kernel_;
  bool seen_kernel_ = false, ended_ = false, any_op_ = false;
  bool have_target_ = false, have_workgroup_ = false, have_grid_ = false;
  std::vector<OpenLoop> loops_;
};

std::string Parser::Snippet(const char* s, const char* e) const {
  constexpr ptrdiff_t kMax = 40;
  if (e - s > kMax) return absl::StrCat(absl::string_view(s, kMax), "...");
  return std::string(s, e);
}

std::string Parser::Describe() {
  SkipWs();
  if (p_ == le_) return "end of line";
  const char* q = p_;
  unsigned char c = static_cast<unsigned char>(*q);
  if (IsIdentChar(*q)) {
    while (q < le_ && IsIdentChar(*q) && q - p_ <= 40) ++q;
  } else if (c == '%') {
    ++q;
    while (q < le_ && IsIdentChar(*q) && q - p_ <= 40) ++q;
  } else if (c >= 0x80) {
    // The text is valid UTF-8: quote the whole character, with its code
    // point (it may be invisible, e.g. a no-break or zero-width space).
    const int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    uint32_t cp = c & (n == 4 ? 0x07 : n == 3 ? 0x0F : 0x1F);
    for (int i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(q[i]) & 0x3F);
    if (cp == 0xFEFF) return "a byte-order mark (U+FEFF, invisible): remove it";
    q += n;
    return absl::StrCat("'", Snippet(p_, q), "' (U+",
                        absl::AsciiStrToUpper(absl::StrCat(absl::Hex(cp, absl::kZeroPad4))), ")");
  } else if (c < 0x20 || c == 0x7F) {
    return absl::StrCat("byte 0x", absl::Hex(c, absl::kZeroPad2));
  } else {
    ++q;
  }
  return absl::StrCat("'", Snippet(p_, q), "'");
}

// ---------------------------------------------------------------- numbers

// Digits at q (q < le_ and IsDigit(*q)), negated if `neg`; `start` is where the
// literal began (for messages).
bool Parser::ScanMagnitude(const char* start, const char* q, bool neg, int64_t* out) {
  uint64_t v = 0;
  bool overflow = false;
  while (q < le_ && IsDigit(*q)) {
    unsigned d = static_cast<unsigned>(*q - '0');
    if (v > (UINT64_MAX - d) / 10) overflow = true;
    if (!overflow) v = v * 10 + d;
    ++q;
  }
  if (q < le_ && IsIdentChar(*q)) {
    while (q < le_ && IsIdentChar(*q)) ++q;
    return Fail(start, absl::StrCat("invalid integer literal '", Snippet(start, q), "'"));
  }
  const uint64_t limit = neg ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  if (overflow || v > limit)
    return Fail(start,
                absl::StrCat("integer literal '", Snippet(start, q), "' does not fit in 64 bits"));
  if (neg)
    *out = v == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min()
                                    : -static_cast<int64_t>(v);
  else
    *out = static_cast<int64_t>(v);
  p_ = q;
  return true;
}

// An integer literal: optional '-' directly followed by decimal digits.
bool Parser::ParseInt(int64_t* out, absl::string_view what) {
  SkipWs();
  const char* q = p_;
  bool neg = false;
  if (q < le_ && *q == '-') {
    neg = true;
    ++q;
  }
  if (q == le_ || !IsDigit(*q)) return Expected(what);
  return ScanMagnitude(p_, q, neg, out);
}

// An integer literal or the name of a `const` declared earlier (`hint` is
// added to the message for an unknown name).
bool Parser::ParseIntOrConst(int64_t* out, absl::string_view what, absl::string_view hint) {
  SkipWs();
  const char* at = p_;
  std::string name;
  if (ScanWord(&name)) {
    const NamedConst* c = kernel_.FindConst(name);
    if (c == nullptr)
      return Fail(at, absl::StrCat("unknown constant '",
                                   Snippet(name.data(), name.data() + name.size()), "'", hint));
    *out = c->value;
    return true;
  }
  return ParseInt(out, what);
}

// The end of the number-like token at q, for messages: identifier
// characters, '.', and a sign right after an exponent letter (e, E, p, P).
const char* NumberTokenEnd(const char* q, const char* le) {
  while (q < le) {
    if (IsIdentChar(*q) || *q == '.') {
      ++q;
    } else if ((*q == '+' || *q == '-') &&
               (q[-1] == 'e' || q[-1] == 'E' || q[-1] == 'p' || q[-1] == 'P')) {
      ++q;
    } else {
      break;
    }
  }
  return q;
}

// [+-]? (digits ['.' digits] | '.' digits) ([eE] [+-]? digits)?, or
// [+-]? 0x hexdigits ['.' hexdigits] ([pP] [+-]? digits)? (a hexadecimal
// float as in C: 0x1p-149 = 2^-149, 0x1.8p1 = 3), or [+-]? inf|nan.
bool Parser::ParseFloat(double* out) {
  SkipWs();
  const char* s = p_;
  const char* q = p_;
  bool neg = false;
  if (q < le_ && (*q == '+' || *q == '-')) {
    neg = *q == '-';
    ++q;
  }
  const char* body = q;
  double v = 0;
  auto word_is = [&](absl::string_view w) {
    size_t left = static_cast<size_t>(le_ - q);
    return left >= w.size() && std::memcmp(q, w.data(), w.size()) == 0 &&
           (left == w.size() || !IsIdentChar(q[w.size()]));
  };
  if (word_is("inf")) {
    v = std::numeric_limits<double>::infinity();
    q += 3;
  } else if (word_is("nan")) {
    v = std::numeric_limits<double>::quiet_NaN();
    q += 3;
  } else if (le_ - q >= 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
    const char* h = q + 2;
    q = h;
    int digits = 0;
    while (q < le_ && IsHexDigit(*q)) ++q, ++digits;
    if (q < le_ && *q == '.') {
      ++q;
      while (q < le_ && IsHexDigit(*q)) ++q, ++digits;
    }
    bool bad = digits == 0;
    if (!bad && q < le_ && (*q == 'p' || *q == 'P')) {
      ++q;
      if (q < le_ && (*q == '+' || *q == '-')) ++q;
      if (q == le_ || !IsDigit(*q)) bad = true;
      while (q < le_ && IsDigit(*q)) ++q;
    }
    if (!bad && !(q < le_ && (IsIdentChar(*q) || *q == '.'))) {
      auto [ptr, ec] = std::from_chars(h, q, v, std::chars_format::hex);
      if (ec == std::errc::result_out_of_range)
        return Fail(s, absl::StrCat("floating-point constant '", Snippet(s, q),
                                    "' is out of range"));
      if (ec != std::errc() || ptr != q) bad = true;
    }
    if (bad) {
      q = NumberTokenEnd(q, le_);
      return Fail(s, absl::StrCat("invalid hexadecimal floating-point constant '", Snippet(s, q),
                                  "' (the form is 0x1.8p-3: hex digits, an optional '.' and hex "
                                  "digits, an optional binary exponent p[+-]digits)"));
    }
  } else {
    int digits = 0;
    while (q < le_ && IsDigit(*q)) ++q, ++digits;
    if (q < le_ && *q == '.') {
      ++q;
      while (q < le_ && IsDigit(*q)) ++q, ++digits;
    }
    if (digits == 0) return Expected("a floating-point constant");
    bool bad = false;
    if (q < le_ && (*q == 'e' || *q == 'E')) {
      ++q;
      if (q < le_ && (*q == '+' || *q == '-')) ++q;
      if (q == le_ || !IsDigit(*q)) bad = true;
      while (q < le_ && IsDigit(*q)) ++q;
    }
    if (!bad && !(q < le_ && (IsIdentChar(*q) || *q == '.'))) {
      auto [ptr, ec] = std::from_chars(body, q, v);
      if (ec == std::errc::result_out_of_range)
        return Fail(s, absl::StrCat("floating-point constant '", Snippet(s, q),
                                    "' is out of range"));
      if (ec != std::errc() || ptr != q) bad = true;
    }
    if (bad) {
      q = NumberTokenEnd(q, le_);
      return Fail(s, absl::StrCat("invalid floating-point constant '", Snippet(s, q), "'"));
    }
  }
  if (q < le_ && (IsIdentChar(*q) || *q == '.')) {
    q = NumberTokenEnd(q, le_);
    return Fail(s, absl::StrCat("invalid floating-point constant '", Snippet(s, q), "'"));
  }
  *out = neg ? -v : v;
  p_ = q;
  return true;
}

// ---------------------------------------------------------------- types

bool Parser::TypeError(const char* at, const std::string& word) {
  size_t x = word.find('x');
  std::string w = Snippet(word.data(), word.data() + word.size());
  std::optional<ElemType> e =
      x != std::string::npos ? ParseElemType(std::string_view(word).substr(0, x)) : std::nullopt;
  // Only fp8 vectors reach 32 elements: a 32-wide f32/f16/bf16 type is most
  // likely a cvt of an fp8x32 value (fresh-user review 13 F9).
  if (e)
    return Fail(at, absl::StrCat("invalid vector width in type '", w,
                                 IsFp8(*e) ? "' (widths are 2, 4, 8, 16 and 32)"
                                 : word.substr(x + 1) == "32"
                                     ? "' (widths are 2, 4, 8 and 16; only fp8 vectors have 32 elements: "
                                       "convert a 32-wide fp8 value as two halves, `slice %a, 0` and `slice %a, "
                                       "16` to x16, and `concat` two 16-wide cvt results into an fp8x32)"
                                     : "' (widths are 2, 4, 8 and 16)"));
  // MLIR's spellings (f8E4M3FN, F16) are KIR's in lower case (fresh-user
  // review 13).
  const std::string base = word.substr(0, x == std::string::npos ? word.size() : x);
  if (std::optional<ElemType> lower = ParseElemType(absl::AsciiStrToLower(base)))
    return Fail(at, absl::StrCat("unknown type '", w, "': KIR spells it '", std::string(ElemTypeName(*lower)), "'"));
  return Fail(at, absl::StrCat("unknown type '", w,
                               "' (element types: f32, f16, bf16, i32, and the fp8 types f8e4m3fnuz and f8e5m2fnuz "
                               "(gfx942), f8e4m3fn and f8e5m2 (gfx950))"));
}

bool Parser::ParseType(ValueType* out) {
  SkipWs();
  const char* at = p_;
  std::string word;
  if (!ScanWord(&word)) return Expected("a type");
  std::optional<ValueType> t = kir::ParseValueType(word);
  if (!t) return TypeError(at, word);
  *out = *t;
  return true;
}

bool Parser::ParseElem(ElemType* out) {
  SkipWs();
  const char* at = p_;
  std::string word;
  if (!ScanWord(&word)) return Expected("an element type");
  std::optional<ElemType> e = ParseElemType(word);
  if (e) {
    *out = *e;
    return true;
  }
  if (kir::ParseValueType(word))
    return Fail(at, absl::StrCat("expected an element type (f16, bf16, f32 or i32), found '",
                                 word, "'"));
  return TypeError(at, word);
}

// ---------------------------------------------------------------- lines

absl::StatusOr<Kernel> Parser::Run() {
  size_t bad = FindBadByte(text_);
  if (bad != absl::string_view::npos) {
    int64_t line = 1, col = 1;
    for (size_t i = 0; i < bad; ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    unsigned char c = static_cast<unsigned char>(text_[bad]);
    FailAt(line, col,
           c == 0 ? std::string("NUL byte in input")
                  : absl::StrCat("invalid UTF-8 byte 0x", absl::Hex(c, absl::kZeroPad2)));
    return status_;
  }
  const char* pos = text_.data();
  const char* end = pos + text_.size();
  // A UTF-8 byte-order mark at the start (some editors write one) is skipped;
  // columns on line 1 count from after it, as editors show them.
  if (absl::StartsWith(text_, "\xEF\xBB\xBF")) pos += 3;
  int64_t eof_line = 1, eof_col = 1;
  while (pos < end) {
    ++line_;
    const char* nl = static_cast<const char*>(std::memchr(pos, '\n', end - pos));
    const char* line_end = nl ? nl : end;
    const char* hash = static_cast<const char*>(std::memchr(pos, '#', line_end - pos));
    lb_ = p_ = pos;
    le_ = hash ? hash : line_end;
    if (!ParseLine()) return status_;
    if (nl) {
      eof_line = line_ + 1;
      eof_col = 1;
      pos = nl + 1;
    } else {
      eof_line = line_;
      eof_col = (end - pos) + 1;
      pos = end;
    }
  }
  if (!seen_kernel_) {
    FailAt(eof_line, eof_col, "expected 'kernel', found end of input");
    return status_;
  }
  if (!loops_.empty()) {
    FailAt(loops_.back().brace_line, loops_.back().brace_col,
           "unterminated '{': expected a '}' line before end of input");
    return status_;
  }
  if (!ended_) {
    FailAt(eof_line, eof_col, "expected 'end', found end of input");
    return status_;
  }
  return std::move(kernel_);
}

bool Parser::ParseLine() {
  if (AtEol()) return true;  // blank or comment-only line
  const char* start = p_;
  if (ended_) return Fail(start, absl::StrCat("expected end of input after 'end', found ",
                                              Describe()));
  if (!seen_kernel_) {
    if (!TryWord("kernel")) return Expected("'kernel'");
    seen_kernel_ = true;
    kernel_.loc = Loc(start);
    if (!ParseIdent(&kernel_.name, "a kernel name")) return false;
    return ExpectEol();
  }
  if (*p_ == '%') {
    if (!BeginOp(start)) return false;
    std::vector<std::string> results;
    std::vector<const char*> result_pos;
    do {
      SkipWs();
      result_pos.push_back(p_);
      results.emplace_back();
      if (!ParsePercentName(&results.back(), "a result name ('%name')")) return false;
    } while (TryChar(','));
    if (!TryChar('=')) return Expected("',' or '=' after result name");
    SkipWs();
    const char* wp = p_;
    std::string word;
    if (!ScanWord(&word)) return Expected("an op name");
    if (!IsOpWord(word))
      return Fail(wp, absl::StrCat("unknown op '", Snippet(word.data(), word.data() + word.size()),
                                   "'; the ops that define a value are ", WordList(kValueOps, true),
                                   word == "sub" ? " (a - b is `fma %b, %minus_one, %a` with `%minus_one = const f32 -1`)"
                                                 : ""));
    return ParseOp(start, word, wp, std::move(results), result_pos);
  }
  if (*p_ == '}') return ParseCloseBrace(start);
  std::string word;
  if (!ScanWord(&word)) return Expected("a declaration or an op");
  if (word == "end") return ParseEnd(start);
  if (IsDeclWord(word)) {
    if (any_op_)
      return Fail(start, absl::StrCat("'", word,
                                      "' declaration after the first op (declarations must "
                                      "come before all ops)"));
    return ParseDecl(word, start);
  }
  if (word == "kernel") return Fail(start, "duplicate 'kernel' line (one kernel per file)");
  if (!IsOpWord(word))
    return Fail(start, absl::StrCat("unknown keyword '", Snippet(word.data(), word.data() + word.size()),
                                    "'; a line holds a declaration (", WordList(kDeclWords),
                                    "), an op without a result (", WordList(kOtherOps), "), `%name = OP ...` (OP: ",
                                    WordList(kValueOps), "), '}' or 'end'"));
  p_ = start;
  if (!BeginOp(start)) return false;
  p_ = start + word.size();
  return ParseOp(start, word, start, {}, {});
}

bool Parser::ParseDecl(const std::string& word, const char* start) {
  if (word == "target") {
    if (have_target_) return Fail(start, "duplicate 'target' declaration");
    have_target_ = true;
    kernel_.target_loc = Loc(start);
    if (!ParseIdent(&kernel_.target, "a target name (e.g. gfx942)")) return false;
    // A target ID's feature suffixes (":xnack-", ":sramecc+"); compiling
    // checks them against the processor (compiler/target/target.h).
    while (p_ < le_ && (*p_ == ':' || *p_ == '+' || *p_ == '-' || IsIdentChar(*p_)))
      kernel_.target.push_back(*p_++);
    return ExpectEol();
  }
  if (word == "workgroup" || word == "grid") {
    bool& have = word == "grid" ? have_grid_ : have_workgroup_;
    if (have) return Fail(start, absl::StrCat("duplicate '", word, "' declaration"));
    have = true;
    (word == "grid" ? kernel_.grid_loc : kernel_.workgroup_loc) = Loc(start);
    std::array<int64_t, 3>& dims = word == "grid" ? kernel_.grid : kernel_.workgroup;
    if (TryWord("auto")) {  // chosen by gemm promotion; stored as 0 extents
      dims = {0, 0, 0};
      return ExpectEol();
    }
    for (int i = 0; i < 3; ++i) {
      SkipWs();
      const char* at = p_;
      if (!ParseIntOrConst(&dims[i], "an integer or const name")) return false;
      if (dims[i] <= 0)
        return Fail(at, absl::StrCat(word, " size must be positive, found ", dims[i]));
    }
    return ExpectEol();
  }
  if (word == "const") {
    NamedConst c;
    c.loc = Loc(start);
    SkipWs();
    const char* at = p_;
    if (!ParseIdent(&c.name, "a constant name")) return false;
    if (kernel_.FindConst(c.name) != nullptr)
      return Fail(at, absl::StrCat("duplicate const '", c.name, "'"));
    if (!ExpectChar('=', "after constant name")) return false;
    if (!ParseInt(&c.value, "an integer")) return false;
    if (!ExpectEol()) return false;
    kernel_.consts.push_back(std::move(c));
    return true;
  }
  if (word == "arg") return ParseArg(start);
  return ParseLds(start);
}

// '[' N {',' N} ']' with N an integer or const name.
bool Parser::ParseDims(std::vector<int64_t>* out, absl::string_view what, bool non_negative) {
  do {
    SkipWs();
    const char* at = p_;
    int64_t v = 0;
    if (!ParseIntOrConst(&v, absl::StrCat("an integer or const name in ", what))) return false;
    if (non_negative && v < 0)
      return Fail(at, absl::StrCat(what, " extent must not be negative, found ", v));
    out->push_back(v);
  } while (TryChar(','));
  if (!TryChar(']')) return Expected(absl::StrCat("',' or ']' in ", what));
  return true;
}

bool Parser::ParseArg(const char* start) {
  Arg a;
  a.loc = Loc(start);
  if (!ParseIdent(&a.name, "an argument name")) return false;
  if (!ExpectChar(':', "after argument name")) return false;
  SkipWs();
  const char* at = p_;
  std::string word;
  if (!ScanWord(&word)) return Expected("a type");
  if (PeekChar('[')) {
    a.kind = Arg::Kind::kBuffer;
    p_ = at;
    if (!ParseElem(&a.elem)) return false;
    TryChar('[');
    if (!ParseDims(&a.shape, "shape", true)) return false;
    if (!TryWord("strides")) return Expected("'strides' after shape");
    SkipWs();
    const char* sp = p_;
    if (!ExpectChar('[', "after 'strides'")) return false;
    if (!ParseDims(&a.strides, "strides", false)) return false;
    if (a.strides.size() != a.shape.size())
      return Fail(sp, absl::StrCat("expected ", a.shape.size(),
                                   a.shape.size() == 1 ? " stride" : " strides",
                                   " (one per dimension), found ", a.strides.size()));
    if (TryWord("readonly")) {
      a.access = Access::kReadOnly;
    } else if (TryWord("writeonly")) {
      a.access = Access::kWriteOnly;
    } else if (TryWord("readwrite")) {
      a.access = Access::kReadWrite;
    } else {
      return Expected("'readonly', 'writeonly' or 'readwrite'");
    }
  } else {
    a.kind = Arg::Kind::kScalar;
    if (word == "i32") {
      a.elem = ElemType::kI32;
    } else if (word == "f32") {
      a.elem = ElemType::kF32;
    } else if (kir::ParseValueType(word)) {
      return Fail(at, absl::StrCat("scalar argument type must be i32 or f32, found '", word,
                                   "' (buffers need a shape: '", word, "[N]')"));
    } else {
      return TypeError(at, word);
    }
  }
  if (!ExpectEol()) return false;
  kernel_.args.push_back(std::move(a));
  return true;
}

bool Parser::ParseLds(const char* start) {
  LdsAlloc l;
  l.loc = Loc(start);
  if (!ParseIdent(&l.name, "an LDS allocation name")) return false;
  if (!ExpectChar(':', "after LDS allocation name")) return false;
  if (!ParseElem(&l.elem)) return false;
  if (!ExpectChar('[', "after element type")) return false;
  if (!ParseDims(&l.shape, "shape", true)) return false;
  if (TryWord("pad")) {
    SkipWs();
    const char* at = p_;
    if (!ParseIntOrConst(&l.pad, "an integer or const name after 'pad'")) return false;
    if (l.pad < 0) return Fail(at, absl::StrCat("pad must not be negative, found ", l.pad));
  }
  if (!ExpectEol()) return false;
  kernel_.lds.push_back(std::move(l));
  return true;
}

bool Parser::CheckHeader(const char* at, absl::string_view before) {
  if (!have_workgroup_)
    return Fail(at, absl::StrCat("missing 'workgroup' declaration before ", before));
  if (!have_grid_) return Fail(at, absl::StrCat("missing 'grid' declaration before ", before));
  return true;
}

// Checks that an op may start at `start` (p_ == start).
bool Parser::BeginOp(const char* start) {
  if (!loops_.empty() && loops_.back().yielded)
    return Fail(start, absl::StrCat("expected '}' after 'yield', found ", Describe()));
  if (!any_op_) {
    if (!CheckHeader(start, "the first op")) return false;
    any_op_ = true;
  }
  return true;
}

bool Parser::ParseOp(const char* start, const std::string& word, const char* wp,
                     std::vector<std::string> results,
                     const std::vector<const char*>& result_pos) {
  Op op;
  op.loc = Loc(start);
  if (word == "for") {
    op.kind = OpKind::kFor;
    op.results = std::move(results);
    return ParseFor(std::move(op), wp);
  }
  bool has_result = !(word == "store" || word == "lds_dma" || word == "barrier" || word == "yield" || word == "gemm");
  if (has_result && results.empty())
    return Fail(wp, absl::StrCat("'", word, "' defines a value: expected '%name = ", word,
                                 " ...'"));
  if (has_result && results.size() > 1)
    return Fail(result_pos[1], absl::StrCat("'", word, "' defines exactly one result"));
  if (!has_result && !results.empty())
    return Fail(result_pos[0], absl::StrCat("'", word, "' does not define a result"));
  op.results = std::move(results);
  if (word == "load" || word == "load_tr") {
    // load_tr: the transposing LDS read (Op::tr; the validator checks the rest)
    op.kind = OpKind::kLoad;
    op.tr = word == "load_tr";
    if (!ParseMemRef(&op) || !ExpectChar(':', "before the loaded type") || !ParseType(&op.type))
      return false;
  } else if (word == "store") {
    op.kind = OpKind::kStore;
    if (!ParseMemRef(&op) || !ExpectChar(',', "before the stored value")) return false;
    op.operands.emplace_back();
    if (!ParseOperand(&op.operands.back())) return false;
  } else if (word == "lds_dma") {
    // lds_dma LDS[base...], [guarded] BUF[index...] [along D] : TYPE
    op.kind = OpKind::kLdsDma;
    if (PeekWord("guarded")) {  // `guarded` before a name, not an allocation named guarded
      const char* at = p_;
      p_ += std::string_view("guarded").size();
      const bool alloc_named_guarded = PeekChar('[');
      p_ = at;
      if (!alloc_named_guarded)
        return Fail(at, "lds_dma is never 'guarded': every lane of the wave copies its 16 bytes (the LDS DMA has "
                        "no per-lane guard); write `lds_dma L[base...], A[i, j] : T` with a source in bounds, or "
                        "copy guarded edges with `load guarded` and `store`");
    }
    if (!ParseIdent(&op.lds, "an LDS allocation name") || !ExpectChar('[', "after the LDS allocation name"))
      return false;
    do {
      op.lds_index.emplace_back();
      if (!ParseIndex(&op.lds_index.back())) return false;
    } while (TryChar(','));
    if (!TryChar(']')) return Expected("',' or ']' after index expression");
    if (!ExpectChar(',', "before the global source") || !ParseMemRef(&op) ||
        !ExpectChar(':', "before the copied type") || !ParseType(&op.type))
      return false;
  } else if (word == "barrier") {
    op.kind = OpKind::kBarrier;
  } else if (word == "gemm") {
    op.kind = OpKind::kGemm;
    if (!ParseGemm(&op)) return false;
  } else if (word == "mfma") {
    op.kind = OpKind::kMfma;
    if (!ParseIdent(&op.mfma, "an mfma instruction name (e.g. f32_16x16x16_f16)") ||
        !ParseOperands(&op, 3))
      return false;
    op.type = MfmaResultType(op.mfma).value_or(ValueType{});
  } else if (word == "const") {
    op.kind = OpKind::kConst;
    if (!ParseType(&op.type) || !ParseFloat(&op.constant)) return false;
  } else if (word == "zero") {
    op.kind = OpKind::kZero;
    if (!ParseType(&op.type)) return false;
  } else if (word == "add" || word == "mul") {
    op.kind = word == "add" ? OpKind::kAdd : OpKind::kMul;
    if (!ParseOperands(&op, 2)) return false;
  } else if (word == "fma") {
    op.kind = OpKind::kFma;
    if (!ParseOperands(&op, 3)) return false;
  } else if (word == "cvt") {
    op.kind = OpKind::kCvt;
    if (!ParseOperands(&op, 1) || !ExpectChar(':', "before the result type") ||
        !ParseType(&op.type))
      return false;
  } else if (word == "slice") {
    op.kind = OpKind::kSlice;
    int64_t first = 0;
    if (!ParseOperands(&op, 1) || !ExpectChar(',', "before the first element")) return false;
    SkipWs();
    const char* fp = p_;
    if (!ParseIntOrConst(&first, "the first element (an integer)")) return false;
    if (first < 0 || first > 31)  // 32-element vectors are fp8 (the validator checks the type)
      return Fail(fp, absl::StrCat("the first element must be in 0..31, found ", first));
    op.first = static_cast<int>(first);
    if (!ExpectChar(':', "before the result type") || !ParseType(&op.type)) return false;
  } else if (word == "concat") {
    // %r = concat %a, %b : T (the validator checks T against the operands)
    op.kind = OpKind::kConcat;
    if (!ParseOperands(&op, 2) || !ExpectChar(':', "before the result type") || !ParseType(&op.type))
      return false;
  } else {  // yield
    op.kind = OpKind::kYield;
    if (loops_.empty()) return Fail(wp, "'yield' outside of a 'for' body");
    if (!AtEol()) {
      do {
        op.operands.emplace_back();
        if (!ParseOperand(&op.operands.back())) return false;
      } while (TryChar(','));
    }
  }
  if (!ExpectEol()) return false;
  if (op.kind == OpKind::kYield) loops_.back().yielded = true;
  Body().push_back(std::move(op));
  return true;
}

// for %i = LO to HI [step S] [iter(%c = V, ...)] {
// Loop bounds and steps are integers or `const` names, folded here (the
// printed kernel has the values).
constexpr char kBoundHint[] =
    " (loop bounds and steps are integer literals or names of consts declared before the "
    "first op)";

bool Parser::ParseFor(Op op, const char* wp) {
  if (loops_.size() >= static_cast<size_t>(kMaxParseNesting))
    return Fail(wp, "'for' loops nested deeper than 200 levels");
  if (!ParsePercentName(&op.ivar, "an induction variable ('%name')") ||
      !ExpectChar('=', "after induction variable") ||
      !ParseIntOrConst(&op.lo, "an integer or const name as the lower bound", kBoundHint))
    return false;
  if (!TryWord("to")) return Expected("'to'");
  if (!ParseIntOrConst(&op.hi, "an integer or const name as the upper bound", kBoundHint))
    return false;
  bool has_step = false, has_iter = false;
  if (TryWord("step")) {
    has_step = true;
    SkipWs();
    const char* at = p_;
    if (!ParseIntOrConst(&op.step, "an integer or const name as the step", kBoundHint))
      return false;
    if (op.step <= 0) return Fail(at, absl::StrCat("loop step must be positive, found ", op.step));
  }
  if (TryWord("iter")) {
    has_iter = true;
    if (!ExpectChar('(', "after 'iter'")) return false;
    do {
      op.iter_args.emplace_back();
      op.operands.emplace_back();
      if (!ParsePercentName(&op.iter_args.back(), "an iter_arg name ('%name')") ||
          !ExpectChar('=', "after iter_arg name") || !ParseOperand(&op.operands.back()))
        return false;
    } while (TryChar(','));
    if (!TryChar(')')) return Expected("',' or ')' in iter list");
  }
  SkipWs();
  const char* brace = p_;
  if (!TryChar('{'))
    return Expected(has_iter ? "'{'" : has_step ? "'iter' or '{'" : "'step', 'iter' or '{'");
  if (!ExpectEol("'{'")) return false;
  if (op.results.size() != op.iter_args.size())
    return Fail(wp, absl::StrCat("'for' defines ", op.results.size(), " result(s) but has ",
                                 op.iter_args.size(), " iter_arg(s)"));
  OpenLoop l;
  l.op = std::move(op);
  l.brace_line = line_;
  l.brace_col = Col(brace);
  loops_.push_back(std::move(l));
  return true;
}

// gemm C = [f1 * [f2 * ...]] A.mk * B.nk [+ beta * C | + C] [tile BMxBNxBK]
//      [waves WMxWN] [mfma NAME] [double_buffer on|off] [lds_dma on|off]  (clauses in any order, each once)
bool Parser::ParseGemm(Op* op) {
  GemmOp& g = op->gemm;
  if (!ParseIdent(&g.c, "the output buffer name (gemm C = alpha * A.mk * B.nk ...)") ||
      !ExpectChar('=', "after the gemm output buffer") ||
      !ParseIdent(&g.a, "alpha or buffer A (gemm C = alpha * A.mk * B.nk or C = A.mk * B.nk)"))
    return false;
  // Factors `alpha * sa * ... * A.mk`, or `A.mk` directly (alpha = 1): a
  // layout suffix marks A.
  while (p_ == le_ || *p_ != '.') {
    // `A .mk`: a layout after a space is A's, misplaced.
    if (PeekChar('.')) return Expected(absl::StrCat("'.mk' or '.km' after ", g.a, " (its layout)"));
    g.factors.push_back(std::move(g.a));
    g.a.clear();
    const std::string after =
        g.factors.size() == 1 ? std::string("alpha") : absl::StrCat("scale factor '", g.factors.back(), "'");
    if (!ExpectChar('*', absl::StrCat("after ", after)) ||
        !ParseIdent(&g.a, "a scale factor or buffer A (e.g. A.mk)"))
      return false;
  }
  if (!ParseGemmLayout(g.a, "mk", "km", &g.a_km) ||
      !ExpectChar('*', "between A and B") ||
      !ParseIdent(&g.b, "buffer B (e.g. B.nk)") || !ParseGemmLayout(g.b, "nk", "kn", &g.b_kn))
    return false;
  if (TryChar('+')) {
    // `+ beta * C`, or `+ C` (beta = 1): a name not followed by '*' is C.
    std::string first;
    if (!ParseIdent(&first, "the beta argument or C (+ beta * C, or + C)")) return false;
    if (TryChar('*')) {
      g.beta = std::move(first);
      if (!ParseIdent(&g.c_in, "the C buffer (+ beta * C)")) return false;
    } else if (AtEol() || PeekWord("tile") || PeekWord("waves") || PeekWord("mfma") ||
               PeekWord("double_buffer") || PeekWord("lds_dma")) {
      g.c_in = std::move(first);
    } else {
      return Expected(absl::StrCat("'*' after ", first, " (+ beta * C), or a clause or end of line "
                                   "after + ", first));
    }
  }
  bool seen_db = false, seen_dma = false;
  while (!AtEol()) {
    SkipWs();
    const char* at = p_;
    std::string word;
    if (!ScanWord(&word))
      return Expected("'+ beta * C', 'tile', 'waves', 'mfma', 'double_buffer', 'lds_dma' or end of line");
    auto dup = [&] { return Fail(at, absl::StrCat("duplicate '", word, "' clause in gemm")); };
    if (word == "tile") {
      if (g.has_tile()) return dup();
      if (!ParseExtents(3, g.tile.data(), "a block tile BMxBNxBK (e.g. 128x128x32)")) return false;
    } else if (word == "waves") {
      if (g.has_waves()) return dup();
      if (!ParseExtents(2, g.waves.data(), "waves per workgroup WMxWN (e.g. 2x2)")) return false;
    } else if (word == "mfma") {
      if (!g.mfma.empty()) return dup();
      if (!ParseIdent(&g.mfma, "an mfma instruction name (e.g. f32_32x32x8_f16)")) return false;
    } else if (word == "double_buffer") {
      if (seen_db) return dup();
      seen_db = true;
      if (TryWord("on")) {
        g.double_buffer = true;
      } else if (TryWord("off")) {
        g.double_buffer = false;
      } else {
        return Expected("'on' or 'off' after 'double_buffer'");
      }
    } else if (word == "lds_dma") {
      if (seen_dma) return dup();
      seen_dma = true;
      if (TryWord("on")) {
        g.lds_dma = true;
      } else if (TryWord("off")) {
        g.lds_dma = false;
      } else {
        return Expected("'on' or 'off' after 'lds_dma'");
      }
    } else {
      p_ = at;
      return Expected("'tile', 'waves', 'mfma', 'double_buffer', 'lds_dma' or end of line");
    }
  }
  return true;
}

// '.' FAST | '.' SLOW directly after an operand name; *swapped = (SLOW).
bool Parser::ParseGemmLayout(absl::string_view operand, absl::string_view fast,
                             absl::string_view slow, bool* swapped) {
  std::string what = absl::StrCat("'.", fast, "' or '.", slow, "' after ", operand,
                                  " (its layout)");
  if (p_ == le_ || *p_ != '.') return Expected(what);
  ++p_;
  const char* at = p_;
  std::string w;
  if (p_ == le_ || !IsIdentStart(*p_) || !ScanWord(&w) || (w != fast && w != slow)) {
    p_ = at;
    return Fail(at, absl::StrCat("expected layout '", fast, "' or '", slow, "' after '", operand,
                                 ".', found ", Describe()));
  }
  *swapped = w == slow;
  return true;
}

// N positive integers joined by 'x' without spaces: "128x128x32", "2x2".
bool Parser::ParseExtents(int n, int64_t* out, absl::string_view what) {
  SkipWs();
  const char* start = p_;
  const char* q = p_;
  for (int i = 0; i < n; ++i) {
    if (i > 0) {
      if (q == le_ || *q != 'x') break;
      ++q;
    }
    if (q == le_ || !IsDigit(*q)) break;
    int64_t v = 0;
    bool overflow = false;
    while (q < le_ && IsDigit(*q)) {
      int d = *q - '0';
      if (v > (INT64_MAX - d) / 10) overflow = true;
      if (!overflow) v = v * 10 + d;
      ++q;
    }
    if (overflow || v > (int64_t{1} << 31))
      return Fail(start, absl::StrCat("extent too large in ", what));
    if (v <= 0) return Fail(start, absl::StrCat("extents must be positive in ", what));
    out[i] = v;
    if (i == n - 1 && (q == le_ || !IsIdentChar(*q))) {
      p_ = q;
      return true;
    }
  }
  while (q < le_ && IsIdentChar(*q)) ++q;
  for (int i = 0; i < n; ++i) out[i] = 0;
  return Fail(start, absl::StrCat("expected ", what, ", found '",
                                  Snippet(start, q > start ? q : start + (start < le_ ? 1 : 0)),
                                  "'"));
}

// [guarded] NAME '[' index {',' index} ']' [along D]
bool Parser::ParseMemRef(Op* op) {
  SkipWs();
  const char* save = p_;
  if (TryWord("guarded")) {
    if (PeekChar('['))
      p_ = save;  // a buffer called "guarded"
    else
      op->guarded = true;
  }
  if (!ParseIdent(&op->mem, "a buffer or LDS name")) return false;
  if (!ExpectChar('[', "after buffer name")) return false;
  do {
    op->index.emplace_back();
    if (!ParseIndex(&op->index.back())) return false;
  } while (TryChar(','));
  if (!TryChar(']')) return Expected("',' or ']' after index expression");
  op->along = static_cast<int>(op->index.size()) - 1;
  if (TryWord("along")) {
    SkipWs();
    const char* at = p_;
    int64_t d = 0;
    if (!ParseInt(&d, "an integer after 'along'")) return false;
    if (d < INT_MIN || d > INT_MAX)
      return Fail(at, absl::StrCat("'along' dimension out of range: ", d));
    op->along = static_cast<int>(d);
  }
  return true;
}

// '%name' (an SSA value) or 'name' (a scalar argument).
bool Parser::ParseOperand(Operand* out) {
  SkipWs();
  if (p_ < le_ && *p_ == '%') {
    out->is_arg = false;
    return ParsePercentName(&out->name, "an operand");
  }
  if (ScanWord(&out->name)) {
    out->is_arg = true;
    return true;
  }
  return Expected("an operand ('%name' or argument name)");
}

bool Parser::ParseOperands(Op* op, int n) {
  for (int i = 0; i < n; ++i) {
    if (i > 0 && !ExpectChar(',', "between operands")) return false;
    op->operands.emplace_back();
    if (!ParseOperand(&op->operands.back())) return false;
  }
  return true;
}

bool Parser::ParseCloseBrace(const char* start) {
  if (loops_.empty()) return Fail(start, "unmatched '}'");
  if (!loops_.back().yielded) return Fail(start, "expected 'yield' before '}'");
  ++p_;
  if (!ExpectEol("'}'")) return false;
  Op op = std::move(loops_.back().op);
  loops_.pop_back();
  Body().push_back(std::move(op));
  return true;
}

bool Parser::ParseEnd(const char* start) {
  if (!loops_.empty())
    return FailAt(loops_.back().brace_line, loops_.back().brace_col,
                  "unterminated '{': expected a '}' line before 'end'");
  if (!any_op_ && !CheckHeader(start, "'end'")) return false;
  if (!ExpectEol("'end'")) return false;
  ended_ = true;
  return true;
}

// ---------------------------------------------------------------- index expressions

bool Parser::Combine(IndexKind k, IndexRef* lhs, int* ld, IndexRef rhs, int rd,
                     const char* at) {
  int d = 1 + std::max(*ld, rd);
  if (d > kMaxParseNesting) return Fail(at, kTooDeep);
  switch (k) {
    case IndexKind::kAdd:
      *lhs = IAdd(std::move(*lhs), std::move(rhs));
      break;
    case IndexKind::kSub:
      *lhs = ISub(std::move(*lhs), std::move(rhs));
      break;
    case IndexKind::kMul:
      *lhs = IMul(std::move(*lhs), std::move(rhs));
      break;
    case IndexKind::kFloorDiv:
      *lhs = IFloorDiv(std::move(*lhs), std::move(rhs));
      break;
    default:
      *lhs = IMod(std::move(*lhs), std::move(rhs));
      break;
  }
  *ld = d;
  return true;
}

// expr := term {('+'|'-') term}
bool Parser::ParseExpr(IndexRef* out, int* depth, int nest) {
  if (!ParseTerm(out, depth, nest)) return false;
  for (;;) {
    SkipWs();
    if (p_ == le_ || (*p_ != '+' && *p_ != '-')) return true;
    const char* at = p_;
    IndexKind k = *p_ == '+' ? IndexKind::kAdd : IndexKind::kSub;
    ++p_;
    IndexRef rhs;
    int rd = 0;
    if (!ParseTerm(&rhs, &rd, nest) || !Combine(k, out, depth, std::move(rhs), rd, at))
      return false;
  }
}

// term := factor {('*'|'floordiv'|'mod') factor}
bool Parser::ParseTerm(IndexRef* out, int* depth, int nest) {
  if (!ParseFactor(out, depth, nest)) return false;
  for (;;) {
    SkipWs();
    const char* at = p_;
    IndexKind k;
    if (p_ < le_ && *p_ == '*') {
      k = IndexKind::kMul;
      ++p_;
    } else if (TryWord("floordiv")) {
      k = IndexKind::kFloorDiv;
    } else if (TryWord("mod")) {
      k = IndexKind::kMod;
    } else {
      return true;
    }
    IndexRef rhs;
    int rd = 0;
    if (!ParseFactor(&rhs, &rd, nest) || !Combine(k, out, depth, std::move(rhs), rd, at))
      return false;
  }
}

// factor := INT | '-' INT | tid.{x,y,z} | wg.{x,y,z} | NAME | '%'NAME | '(' expr ')'
//         | '-' factor
bool Parser::ParseFactor(IndexRef* out, int* depth, int nest) {
  SkipWs();
  const char* at = p_;
  if (p_ == le_) return Expected("an index expression");
  char c = *p_;
  *depth = 1;
  if (IsDigit(c)) {
    int64_t v = 0;
    if (!ScanMagnitude(at, p_, false, &v)) return false;
    *out = IConst(v);
    return true;
  }
  if (c == '-') {
    ++p_;
    SkipWs();
    if (p_ < le_ && IsDigit(*p_)) {
      int64_t v = 0;
      if (!ScanMagnitude(at, p_, true, &v)) return false;
      *out = IConst(v);
      return true;
    }
    if (nest + 1 > kMaxParseNesting) return Fail(at, kTooDeep);
    IndexRef f;
    int fd = 0;
    if (!ParseFactor(&f, &fd, nest + 1)) return false;
    *out = IConst(0);
    return Combine(IndexKind::kSub, out, depth, std::move(f), fd, at);
  }
  if (c == '(') {
    if (nest + 1 > kMaxParseNesting) return Fail(at, kTooDeep);
    ++p_;
    if (!ParseExpr(out, depth, nest + 1)) return false;
    if (!TryChar(')')) return Expected("')'");
    return true;
  }
  if (c == '%') {
    std::string name;
    if (!ParsePercentName(&name, "a loop variable")) return false;
    *out = ILoopVar(std::move(name));
    return true;
  }
  std::string word;
  if (ScanWord(&word)) {
    if ((word == "tid" || word == "wg") && p_ < le_ && *p_ == '.') {
      ++p_;
      if (p_ < le_ && (*p_ == 'x' || *p_ == 'y' || *p_ == 'z') &&
          (p_ + 1 == le_ || !IsIdentChar(p_[1]))) {
        int dim = *p_ - 'x';
        ++p_;
        *out = word == "tid" ? ITid(dim) : IWg(dim);
        return true;
      }
      return Fail(p_, absl::StrCat("expected 'x', 'y' or 'z' after '", word, ".', found ",
                                   Describe()));
    }
    *out = INamed(std::move(word));
    return true;
  }
  return Expected("an index expression");
}

}  // namespace

absl::StatusOr<Kernel> ParseKernel(absl::string_view text, absl::string_view filename) {
  Parser p(text, filename);
  return p.Run();
}

std::optional<ValueType> MfmaResultType(absl::string_view s) {
  size_t u = s.find('_');
  if (u == absl::string_view::npos) return std::nullopt;
  std::optional<ElemType> elem = ParseElemType(std::string_view(s.data(), u));
  if (!elem) return std::nullopt;
  size_t i = u + 1;
  // Reads up to 6 digits (a positive number); false if none or more.
  auto number = [&](int64_t* v) {
    size_t st = i;
    *v = 0;
    while (i < s.size() && IsDigit(s[i])) {
      if (i - st >= 6) return false;
      *v = *v * 10 + (s[i] - '0');
      ++i;
    }
    return i > st && *v > 0;
  };
  int64_t m = 0, n = 0, k = 0, blocks = 1;
  if (!number(&m) || i >= s.size() || s[i++] != 'x' || !number(&n) || i >= s.size() ||
      s[i++] != 'x' || !number(&k))
    return std::nullopt;
  if (i < s.size() && s[i] == '_') {
    size_t save = i++;
    int64_t b = 0;
    if (number(&b) && i < s.size() && s[i] == 'b' && (i + 1 == s.size() || s[i + 1] == '_'))
      blocks = b;
    i = save;
  }
  int64_t total = m * n * blocks;
  if (total % 64 != 0 || !IsLegalWidth(total / 64)) return std::nullopt;
  return ValueType{*elem, static_cast<int>(total / 64)};
}

}  // namespace kir
