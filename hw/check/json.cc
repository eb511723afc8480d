#include "hw/check/json.h"

#include "absl/strings/str_format.h"

namespace kir {

std::string JsonString(absl::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (c == '\n') {
      o += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      o += absl::StrFormat("\\u%04x", c);
    } else {
      o += c;
    }
  }
  return o + "\"";
}

}  // namespace kir
