// The canonical KIR text printer (the syntax is described in parser.h).
#ifndef KIRC_COMPILER_IR_PRINTER_H_
#define KIRC_COMPILER_IR_PRINTER_H_

#include <string>

#include "compiler/ir/kernel.h"

namespace kir {

// Canonical KIR text of `k`, ending in a newline: `kernel`, `target` (if not
// empty), `workgroup`, `grid` (`auto` when all extents are 0), then the consts, args and LDS allocations (each
// kind in declaration order), the ops indented by 2 spaces (2 more per loop
// level), and `end`. Omits `along` when it is the last dimension, `step` when it
// is 1 and `pad` when it is 0. Never fails; for every kernel ParseKernel returns,
// ParseKernel(PrintKernel(k)) == k. A kernel built by other means round-trips when
// it could have been parsed: names are identifiers, const names are unique,
// numbers are in the parser's ranges, index trees are at most kMaxParseNesting
// deep, loops nest at most kMaxParseNesting deep, NaN constants are the default
// quiet NaN (or its negation), an mfma's type is MfmaResultType(mfma) and fields
// an op kind does not use keep their defaults.
std::string PrintKernel(const Kernel& k);

// Canonical text of one op, each line prefixed by `indent` spaces and ended by a
// newline; a `for` includes its body (indented 2 more) and its `}` line.
std::string PrintOp(const Op& op, int indent);

// Text that reads back as exactly `v`: an integer below 2^53 in magnitude in
// full ("3000000000", "-7"), else the shortest such text (std::to_chars):
// "1.5", "-0", "1e+22", "inf", "-inf", "nan", "-nan".
std::string FormatDouble(double v);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_PRINTER_H_
