// JSON text for result files (hw/regression's results, compiler/bench
// compare's report, `kirc run --dump`'s scalars).
#ifndef KIRC_HW_CHECK_JSON_H_
#define KIRC_HW_CHECK_JSON_H_

#include <string>

#include "absl/strings/string_view.h"

namespace kir {

// `s` as a JSON string literal, quotes included: `"` and `\` escaped, newline
// as \n, other control bytes as \u00XX; other bytes (UTF-8) unchanged.
std::string JsonString(absl::string_view s);

}  // namespace kir

#endif  // KIRC_HW_CHECK_JSON_H_
