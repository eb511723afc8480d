#include "compiler/object/code_object_notes.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace kir {
namespace {

// ---------------------------------------------------------------------------
// A small block-style YAML reader: mappings, sequences (including "- key: v"
// items and sequences at their parent key's indentation), plain / quoted
// scalars, one-line flow sequences and block scalars. Enough for the metadata
// LLVM prints; anything else yields an error.

struct YamlNode {
  enum class Kind { kNull, kScalar, kMap, kSeq };
  Kind kind = Kind::kNull;
  std::string key;      // set on the children of a kMap
  std::string scalar;   // kScalar
  std::vector<YamlNode> children;  // kMap entries (with key) or kSeq items
  int line = 0;         // 1-based line in the parsed text

  const YamlNode* Find(absl::string_view k) const {
    if (kind != Kind::kMap) return nullptr;
    for (const YamlNode& c : children) {
      if (c.key == k) return &c;
    }
    return nullptr;
  }
};

struct Line {
  int indent = 0;
  absl::string_view text;  // without indentation and trailing blanks
  int lineno = 0;
};

constexpr int kMaxDepth = 64;

absl::Status ErrorAt(int lineno, absl::string_view msg) {
  return absl::InvalidArgumentError(
      absl::StrCat("AMDGPU metadata, line ", lineno, ": ", msg));
}

bool IsSeqItem(absl::string_view text) {
  return text == "-" || absl::StartsWith(text, "- ");
}

// Position of the ':' that ends a mapping key (followed by a blank or the end of
// the line, outside quotes), or npos.
size_t FindKeyColon(absl::string_view text) {
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == '\\' && quote == '"') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if ((c == '"' || c == '\'') && i == 0) {
      quote = c;
    } else if (c == ':' && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\t')) {
      return i;
    }
  }
  return absl::string_view::npos;
}

// Appends the character of the escape sequence at text[*i] == '\\' of a
// double-quoted YAML scalar (YAML 1.2, "Escaped Characters": LLVM's YAML
// writer uses \\, \", \xHH, \uHHHH, \UHHHHHHHH and the one-letter forms for
// what it cannot print) and leaves *i on its last character. Code points are
// written as UTF-8. Error (naming the line) for an unknown escape.
absl::Status AppendEscape(absl::string_view text, size_t* i, int lineno, std::string* out) {
  const char e = text[++*i];
  auto utf8 = [&](uint32_t cp) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xc0 | cp >> 6));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | cp >> 12));
      out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | cp >> 18));
      out->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  };
  switch (e) {
    case '0': out->push_back('\0'); return absl::OkStatus();
    case 'a': out->push_back('\a'); return absl::OkStatus();
    case 'b': out->push_back('\b'); return absl::OkStatus();
    case 't': case '\t': out->push_back('\t'); return absl::OkStatus();
    case 'n': out->push_back('\n'); return absl::OkStatus();
    case 'v': out->push_back('\v'); return absl::OkStatus();
    case 'f': out->push_back('\f'); return absl::OkStatus();
    case 'r': out->push_back('\r'); return absl::OkStatus();
    case 'e': out->push_back('\x1b'); return absl::OkStatus();
    case ' ': case '"': case '/': case '\\': out->push_back(e); return absl::OkStatus();
    case 'N': utf8(0x85); return absl::OkStatus();
    case '_': utf8(0xa0); return absl::OkStatus();
    case 'L': utf8(0x2028); return absl::OkStatus();
    case 'P': utf8(0x2029); return absl::OkStatus();
    case 'x': case 'u': case 'U': {
      const size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      uint32_t cp = 0;
      if (*i + n >= text.size())  // the digits, and the closing quote after them
        return ErrorAt(lineno, absl::StrCat("escape \\", std::string(1, e), " needs ", n, " hex digits"));
      for (size_t k = 1; k <= n; ++k) {
        const char h = text[*i + k];
        const char lower = static_cast<char>(h | 0x20);
        const int v = absl::ascii_isdigit(h) ? h - '0' : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
        if (v < 0) return ErrorAt(lineno, absl::StrCat("escape \\", std::string(1, e), " needs ", n, " hex digits"));
        cp = cp << 4 | static_cast<uint32_t>(v);
      }
      *i += n;
      if (e == 'x') out->push_back(static_cast<char>(cp));  // a byte, as LLVM writes one
      else if (cp > 0x10ffff) return ErrorAt(lineno, "escape \\U beyond U+10FFFF");
      else utf8(cp);
      return absl::OkStatus();
    }
    default:
      return ErrorAt(lineno, absl::StrCat("unknown escape '\\", std::string(1, e), "' in a double-quoted string"));
  }
}

class YamlParser {
 public:
  explicit YamlParser(std::vector<Line> lines) : lines_(std::move(lines)) {}

  absl::StatusOr<YamlNode> ParseDocument() {
    if (lines_.empty()) return YamlNode{};
    absl::StatusOr<YamlNode> root = ParseNode(lines_[0].indent, 0);
    if (!root.ok()) return root.status();
    if (pos_ < lines_.size()) {
      return ErrorAt(lines_[pos_].lineno, "unexpected indentation");
    }
    return root;
  }

 private:
  absl::StatusOr<YamlNode> ParseNode(int indent, int depth) {
    if (depth > kMaxDepth) return ErrorAt(lines_[pos_].lineno, "nesting too deep");
    if (IsSeqItem(lines_[pos_].text)) return ParseSeq(indent, depth);
    // A lone scalar line (not "key: value") is a scalar node.
    if (FindKeyColon(lines_[pos_].text) == absl::string_view::npos) {
      const Line& l = lines_[pos_++];
      return ParseScalar(l.text, l.lineno, indent);
    }
    return ParseMap(indent, depth);
  }

  absl::StatusOr<YamlNode> ParseSeq(int indent, int depth) {
    YamlNode seq;
    seq.kind = YamlNode::Kind::kSeq;
    seq.line = lines_[pos_].lineno;
    while (pos_ < lines_.size() && lines_[pos_].indent == indent &&
           IsSeqItem(lines_[pos_].text)) {
      Line& l = lines_[pos_];
      absl::string_view rest = l.text.substr(1);
      size_t skip = 1;
      while (!rest.empty() && rest.front() == ' ') {
        rest.remove_prefix(1);
        ++skip;
      }
      if (rest.empty() || rest.front() == '#') {
        ++pos_;
        if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
          absl::StatusOr<YamlNode> item = ParseNode(lines_[pos_].indent, depth + 1);
          if (!item.ok()) return item.status();
          seq.children.push_back(*std::move(item));
        } else {
          YamlNode null_item;
          null_item.line = l.lineno;
          seq.children.push_back(std::move(null_item));
        }
      } else {
        // "- key: value" or "- scalar": the rest is a node starting at its column.
        l.indent += static_cast<int>(skip);
        l.text = rest;
        absl::StatusOr<YamlNode> item = ParseNode(l.indent, depth + 1);
        if (!item.ok()) return item.status();
        seq.children.push_back(*std::move(item));
      }
      if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
        return ErrorAt(lines_[pos_].lineno, "unexpected indentation in a sequence");
      }
    }
    return seq;
  }

  absl::StatusOr<YamlNode> ParseMap(int indent, int depth) {
    YamlNode map;
    map.kind = YamlNode::Kind::kMap;
    map.line = lines_[pos_].lineno;
    while (pos_ < lines_.size() && lines_[pos_].indent == indent) {
      const Line l = lines_[pos_];
      if (IsSeqItem(l.text)) {
        return ErrorAt(l.lineno, "sequence item where a mapping key was expected");
      }
      size_t colon = FindKeyColon(l.text);
      if (colon == absl::string_view::npos) {
        return ErrorAt(l.lineno, absl::StrCat("expected 'key: value', got '", l.text, "'"));
      }
      absl::StatusOr<YamlNode> key_node =
          ParseScalar(absl::StripAsciiWhitespace(l.text.substr(0, colon)), l.lineno, indent);
      if (!key_node.ok()) return key_node.status();
      std::string key = key_node->scalar;
      if (map.Find(key) != nullptr) {
        return ErrorAt(l.lineno, absl::StrCat("duplicate key '", key, "'"));
      }
      absl::string_view rest = absl::StripAsciiWhitespace(l.text.substr(colon + 1));
      ++pos_;
      YamlNode value;
      value.line = l.lineno;
      if (!rest.empty() && rest.front() != '#') {
        absl::StatusOr<YamlNode> v = ParseScalar(rest, l.lineno, indent);
        if (!v.ok()) return v.status();
        value = *std::move(v);
      } else if (pos_ < lines_.size()) {
        const Line& next = lines_[pos_];
        if (next.indent > indent) {
          absl::StatusOr<YamlNode> v = ParseNode(next.indent, depth + 1);
          if (!v.ok()) return v.status();
          value = *std::move(v);
        } else if (next.indent == indent && IsSeqItem(next.text)) {
          absl::StatusOr<YamlNode> v = ParseSeq(indent, depth + 1);
          if (!v.ok()) return v.status();
          value = *std::move(v);
        }
      }
      value.key = std::move(key);
      map.children.push_back(std::move(value));
      if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
        return ErrorAt(lines_[pos_].lineno, "unexpected indentation in a mapping");
      }
    }
    return map;
  }

  // A scalar written on one line (`text`), or a block scalar ('|' / '>') whose
  // lines follow, indented more than `indent`.
  absl::StatusOr<YamlNode> ParseScalar(absl::string_view text, int lineno, int indent) {
    YamlNode node;
    node.kind = YamlNode::Kind::kScalar;
    node.line = lineno;
    // Tags ("!!str n") and anchors ("&a x") are skipped.
    while (!text.empty() && (text.front() == '!' || text.front() == '&')) {
      size_t sp = text.find(' ');
      text = sp == absl::string_view::npos ? absl::string_view()
                                           : absl::StripLeadingAsciiWhitespace(text.substr(sp));
    }
    if (text.empty()) return node;
    char c = text.front();
    if (c == '"' || c == '\'') {
      std::string out;
      size_t i = 1;
      bool closed = false;
      for (; i < text.size(); ++i) {
        char d = text[i];
        if (c == '\'' && d == '\'') {
          if (i + 1 < text.size() && text[i + 1] == '\'') {
            out.push_back('\'');
            ++i;
            continue;
          }
          closed = true;
          break;
        }
        if (c == '"' && d == '"') {
          closed = true;
          break;
        }
        if (c == '"' && d == '\\' && i + 1 < text.size()) {
          absl::Status e = AppendEscape(text, &i, lineno, &out);
          if (!e.ok()) return e;
          continue;
        }
        out.push_back(d);
      }
      if (!closed) return ErrorAt(lineno, "unterminated quoted string");
      node.scalar = std::move(out);
      return node;
    }
    if (c == '[' || c == '{') {
      // Flow collection on one line: sequences are split into scalar items;
      // mappings are kept as raw text (nothing we read uses them).
      char close = c == '[' ? ']' : '}';
      int nesting = 0;
      char quote = 0;
      size_t end = absl::string_view::npos;
      for (size_t i = 0; i < text.size(); ++i) {
        char d = text[i];
        if (quote != 0) {
          if (d == quote) quote = 0;
          continue;
        }
        if (d == '"' || d == '\'') quote = d;
        else if (d == '[' || d == '{') ++nesting;
        else if (d == ']' || d == '}') {
          if (--nesting == 0) {
            end = i;
            break;
          }
        }
      }
      if (end == absl::string_view::npos || text[end] != close) {
        return ErrorAt(lineno, "unterminated or multi-line flow collection");
      }
      if (c == '{') {
        node.scalar = std::string(text.substr(0, end + 1));
        return node;
      }
      node.kind = YamlNode::Kind::kSeq;
      absl::string_view inner = absl::StripAsciiWhitespace(text.substr(1, end - 1));
      if (inner.empty()) return node;
      for (absl::string_view item : absl::StrSplit(inner, ',')) {
        absl::StatusOr<YamlNode> v =
            ParseScalar(absl::StripAsciiWhitespace(item), lineno, indent);
        if (!v.ok()) return v.status();
        node.children.push_back(*std::move(v));
      }
      return node;
    }
    if (c == '|' || c == '>') {
      std::vector<std::string> parts;
      while (pos_ < lines_.size() && lines_[pos_].indent > indent) {
        parts.emplace_back(lines_[pos_].text);
        ++pos_;
      }
      node.scalar = absl::StrJoin(parts, c == '|' ? "\n" : " ");
      return node;
    }
    // Plain scalar; " #" starts a comment.
    size_t hash = text.find(" #");
    if (hash != absl::string_view::npos) text = text.substr(0, hash);
    node.scalar = std::string(absl::StripAsciiWhitespace(text));
    return node;
  }

  std::vector<Line> lines_;
  size_t pos_ = 0;
};

// Splits YAML text into significant lines (no blanks, comments, "---", "...").
absl::StatusOr<std::vector<Line>> ToLines(const std::vector<absl::string_view>& raw,
                                          int first_lineno) {
  std::vector<Line> lines;
  for (size_t i = 0; i < raw.size(); ++i) {
    absl::string_view s = absl::StripTrailingAsciiWhitespace(raw[i]);
    int lineno = first_lineno + static_cast<int>(i);
    size_t n = 0;
    while (n < s.size() && s[n] == ' ') ++n;
    if (n < s.size() && s[n] == '\t') {
      return ErrorAt(lineno, "tab in indentation");
    }
    absl::string_view text = s.substr(n);
    if (text.empty() || text.front() == '#' || text == "---" || text == "...") continue;
    if (absl::StartsWith(text, "--- ")) {  // "--- value" on the document marker line
      text.remove_prefix(4);
      n += 4;
    }
    lines.push_back(Line{static_cast<int>(n), text, lineno});
  }
  return lines;
}

// ---------------------------------------------------------------------------
// Field extraction.

absl::Status Missing(const YamlNode& parent, absl::string_view what, absl::string_view key) {
  return ErrorAt(parent.line, absl::StrCat(what, " has no ", key));
}

absl::StatusOr<std::string> GetString(const YamlNode& map, absl::string_view key,
                                      absl::string_view what, bool required) {
  const YamlNode* v = map.Find(key);
  if (v == nullptr || v->kind == YamlNode::Kind::kNull) {
    if (required) return Missing(map, what, key);
    return std::string();
  }
  if (v->kind != YamlNode::Kind::kScalar) {
    return ErrorAt(v->line, absl::StrCat(what, ": ", key, " is not a scalar"));
  }
  return v->scalar;
}

// Reads an integer field; `fallback` is returned when it is absent and not required.
absl::StatusOr<int64_t> GetInt(const YamlNode& map, absl::string_view key,
                               absl::string_view what, bool required, int64_t fallback = 0) {
  const YamlNode* v = map.Find(key);
  if (v == nullptr || v->kind == YamlNode::Kind::kNull) {
    if (required) return Missing(map, what, key);
    return fallback;
  }
  if (v->kind != YamlNode::Kind::kScalar) {
    return ErrorAt(v->line, absl::StrCat(what, ": ", key, " is not a number"));
  }
  absl::string_view s = v->scalar;
  int64_t value = 0;
  bool ok = false;
  if (absl::StartsWithIgnoreCase(s, "0x")) {
    uint64_t u = 0;
    ok = absl::SimpleHexAtoi(s.substr(2), &u) && u <= static_cast<uint64_t>(INT64_MAX);
    value = static_cast<int64_t>(u);
  } else {
    ok = absl::SimpleAtoi(s, &value);
  }
  if (!ok) {
    return ErrorAt(v->line, absl::StrCat(what, ": ", key, " is not an integer: '", s, "'"));
  }
  return value;
}

#define KIRC_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = *std::move(tmp)
#define KIRC_CONCAT_INNER(a, b) a##b
#define KIRC_CONCAT(a, b) KIRC_CONCAT_INNER(a, b)
#define KIRC_ASSIGN_OR_RETURN(lhs, expr) \
  KIRC_ASSIGN_OR_RETURN_IMPL(KIRC_CONCAT(status_or_, __LINE__), lhs, expr)

absl::StatusOr<ArgNote> ParseArg(const YamlNode& node, const std::string& kernel, size_t index) {
  std::string what = absl::StrCat("kernel '", kernel, "' argument ", index);
  if (node.kind != YamlNode::Kind::kMap) {
    return ErrorAt(node.line, absl::StrCat(what, " is not a mapping"));
  }
  ArgNote a;
  KIRC_ASSIGN_OR_RETURN(a.offset, GetInt(node, ".offset", what, true));
  KIRC_ASSIGN_OR_RETURN(a.size, GetInt(node, ".size", what, true));
  KIRC_ASSIGN_OR_RETURN(a.value_kind, GetString(node, ".value_kind", what, true));
  KIRC_ASSIGN_OR_RETURN(a.name, GetString(node, ".name", what, false));
  KIRC_ASSIGN_OR_RETURN(a.actual_access, GetString(node, ".actual_access", what, false));
  KIRC_ASSIGN_OR_RETURN(a.type_name, GetString(node, ".type_name", what, false));
  KIRC_ASSIGN_OR_RETURN(a.value_type, GetString(node, ".value_type", what, false));
  return a;
}

absl::StatusOr<KernelNotes> ParseKernel(const YamlNode& node, size_t index) {
  if (node.kind != YamlNode::Kind::kMap) {
    return ErrorAt(node.line, absl::StrCat("amdhsa.kernels entry ", index, " is not a mapping"));
  }
  KernelNotes k;
  KIRC_ASSIGN_OR_RETURN(k.name, GetString(node, ".name", absl::StrCat("kernel ", index), true));
  std::string what = absl::StrCat("kernel '", k.name, "'");
  KIRC_ASSIGN_OR_RETURN(k.symbol, GetString(node, ".symbol", what, false));
  KIRC_ASSIGN_OR_RETURN(k.kernarg_segment_size, GetInt(node, ".kernarg_segment_size", what, true));
  KIRC_ASSIGN_OR_RETURN(k.group_segment_fixed_size,
                   GetInt(node, ".group_segment_fixed_size", what, true));
  KIRC_ASSIGN_OR_RETURN(k.private_segment_fixed_size,
                   GetInt(node, ".private_segment_fixed_size", what, true));
  KIRC_ASSIGN_OR_RETURN(k.sgpr_count, GetInt(node, ".sgpr_count", what, true));
  KIRC_ASSIGN_OR_RETURN(k.vgpr_count, GetInt(node, ".vgpr_count", what, true));
  KIRC_ASSIGN_OR_RETURN(k.agpr_count, GetInt(node, ".agpr_count", what, false, -1));
  KIRC_ASSIGN_OR_RETURN(k.max_flat_workgroup_size,
                   GetInt(node, ".max_flat_workgroup_size", what, true));
  KIRC_ASSIGN_OR_RETURN(k.wavefront_size, GetInt(node, ".wavefront_size", what, true));
  if (const YamlNode* args = node.Find(".args");
      args != nullptr && args->kind != YamlNode::Kind::kNull) {
    if (args->kind != YamlNode::Kind::kSeq) {
      return ErrorAt(args->line, absl::StrCat(what, ": .args is not a sequence"));
    }
    for (size_t i = 0; i < args->children.size(); ++i) {
      KIRC_ASSIGN_OR_RETURN(ArgNote a, ParseArg(args->children[i], k.name, i));
      k.args.push_back(std::move(a));
    }
  }
  return k;
}

absl::Status ParseDocument(const std::vector<absl::string_view>& raw, int first_lineno,
                           std::vector<KernelNotes>& out) {
  KIRC_ASSIGN_OR_RETURN(std::vector<Line> lines, ToLines(raw, first_lineno));
  if (lines.empty()) return ErrorAt(first_lineno, "empty metadata document");
  YamlParser parser(std::move(lines));
  KIRC_ASSIGN_OR_RETURN(YamlNode root, parser.ParseDocument());
  if (root.kind != YamlNode::Kind::kMap) {
    return ErrorAt(root.line, "metadata document is not a mapping");
  }
  const YamlNode* kernels = root.Find("amdhsa.kernels");
  if (kernels == nullptr) return ErrorAt(root.line, "metadata has no amdhsa.kernels");
  if (kernels->kind == YamlNode::Kind::kNull) return absl::OkStatus();
  if (kernels->kind != YamlNode::Kind::kSeq) {
    return ErrorAt(kernels->line, "amdhsa.kernels is not a sequence");
  }
  for (size_t i = 0; i < kernels->children.size(); ++i) {
    KIRC_ASSIGN_OR_RETURN(KernelNotes k, ParseKernel(kernels->children[i], i));
    out.push_back(std::move(k));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<KernelNotes>> ParseKernelNotes(absl::string_view readelf_notes_text) {
  std::vector<absl::string_view> all = absl::StrSplit(readelf_notes_text, '\n');
  std::vector<KernelNotes> kernels;
  bool found = false;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!absl::StrContains(all[i], "AMDGPU Metadata:")) continue;
    found = true;
    // The document runs from the line after the header to "..." (or the next
    // note listing, or the end of the text).
    size_t begin = i + 1;
    size_t end = begin;
    while (end < all.size()) {
      absl::string_view t = absl::StripAsciiWhitespace(all[end]);
      if (t == "..." || absl::StartsWith(t, "Displaying notes found") ||
          absl::StrContains(all[end], "AMDGPU Metadata:")) {
        break;
      }
      ++end;
    }
    std::vector<absl::string_view> doc(all.begin() + begin, all.begin() + end);
    absl::Status s = ParseDocument(doc, static_cast<int>(begin) + 1, kernels);
    if (!s.ok()) return s;
    i = end < all.size() && absl::StrContains(all[end], "AMDGPU Metadata:") ? end - 1 : end;
  }
  if (!found) {
    if (!absl::StrContains(readelf_notes_text, "amdhsa.kernels")) {
      return absl::NotFoundError(
          "no AMDGPU metadata (NT_AMDGPU_METADATA note) in the llvm-readelf --notes output");
    }
    absl::Status s = ParseDocument(all, 1, kernels);
    if (!s.ok()) return s;
  }
  return kernels;
}

}  // namespace kir
