// The KIR text parser.
//
// KIR text is line oriented: a `kernel NAME` line, header declarations (target,
// workgroup, grid, const, arg, lds), ops (one per line; `for` bodies run up to a
// matching `}` line and end with `yield`), and a final `end` line. '#' starts a
// comment that runs to the end of the line. PrintKernel (printer.h) writes the
// canonical form; ParseKernel(PrintKernel(k)) == k for every kernel the parser
// can produce (see printer.h for the exact conditions).
//
// `workgroup auto` and `grid auto` are stored as all-zero extents; a `gemm`
// line (compiler/ir/gemm.h) becomes an OpKind::kGemm op whose Op::gemm holds
// the names, layouts and the clauses given (absent ones stay 0 / empty /
// nullopt).
//
// The parser checks syntax only: it does not check that names exist (except
// `const` names used in shapes, strides, pad, workgroup and grid, which it
// resolves to their values), that types match, or that SSA values are defined
// before use. A separate validator does that.
#ifndef KIRC_COMPILER_IR_PARSER_H_
#define KIRC_COMPILER_IR_PARSER_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/types.h"

namespace kir {

// Most nested `for` loops, and most nested parentheses / unary minus signs /
// operator levels in one index expression, that the parser accepts.
inline constexpr int kMaxParseNesting = 200;

// Parses the KIR text of one kernel. `filename` only prefixes error messages.
//
// Every Kernel, Arg, LdsAlloc, NamedConst and Op gets the SourceLoc (1-based line
// and byte column) of the first token of its line. An absent `along` is stored as
// the last dimension (index.size() - 1); an absent `step` as 1; an mfma's `type`
// is MfmaResultType(instruction name), or the default ValueType if that is
// nullopt; ops without a result type keep the default ValueType.
//
// Errors: absl::InvalidArgumentError("FILE:LINE:COL: error: WHAT"), with LINE and
// COL 1-based (COL counts bytes) at the offending token, e.g.
// "k.kir:3:15: error: expected ',' or ']' in shape, found ';'" for the line
// "arg A : f16[16; 16] ...". Invalid UTF-8, NUL
// bytes, unknown keywords/ops/types, a missing or repeated `end`, unbalanced
// `{`/`}`, integer overflow and nesting deeper than kMaxParseNesting are all
// errors. Runs in time linear in the size of `text`; never recurses deeper than
// about 3 * kMaxParseNesting frames.
absl::StatusOr<Kernel> ParseKernel(absl::string_view text,
                                   absl::string_view filename = "<input>");

// The result type of an MFMA instruction, derived from its KIR name
// "<D>_<M>x<N>x<K>[_<B>b]<REST>" (D the accumulator element type f16, bf16, f32
// or i32; B the number of blocks, default 1; REST, usually "_<source type>", is
// ignored): width M*N*B/64 elements of D, one wave64's share of the
// M x N (x B) accumulator. E.g. "f32_16x16x16_f16" -> f32x4, "f32_32x32x8_f16"
// -> f32x16. nullopt if the name does not have that form or the width is not a
// legal KIR width. Whether the instruction exists is for the validator to check.
std::optional<ValueType> MfmaResultType(absl::string_view name);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_PARSER_H_
