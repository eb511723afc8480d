// The KIR validator: checks a thread-level kernel against the rules the
// lowering relies on, for one target, and explains the first problem it finds.
//
// ValidateKernel never crashes and never recurses without bound, whatever the
// Kernel holds (null index expressions, malformed ops, huge values): it checks
// the structure before it uses anything that assumes it. It uses the interval
// and affine analysis of index_analysis.h, so its facts are the lowering's.
#ifndef KIRC_COMPILER_ANALYSIS_VALIDATE_H_
#define KIRC_COMPILER_ANALYSIS_VALIDATE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/analysis/gemm_config.h"
#include "compiler/target/target.h"

namespace kir {

// Deepest `for` nesting the validator accepts.
inline constexpr int kMaxLoopNesting = 64;
// Deepest index-expression tree, and most nodes in one index expression.

// OK, or InvalidArgument with one message for the first problem:
//   "FILE:LINE:COL: error: in 'OPTEXT': WHAT"  (the op/declaration has a SourceLoc)
//   "LINE:COL: error: in 'OPTEXT': WHAT"       (... and `filename` is empty)
//   "error: in 'OPTEXT': WHAT"                 (no SourceLoc, i.e. line == 0)
// OPTEXT is a one-line rendering of the op (e.g. "store C[tid.x, 0], %d") or of
// the declaration ("kernel", "const N", "arg A", "lds As").
//
// Order: kernel name, workgroup, grid, declarations (in source order when all
// have a SourceLoc, else consts, args, LDS), total LDS, non-empty body, then the
// ops in program order (a `for` is checked before its body; the check that a
// body ends with `yield` comes after the body).
//
// SSA names are scoped like MLIR regions: a name may not be redefined while it
// is visible (values, loop induction variables and iter_args of enclosing
// loops), values defined in a loop body are not visible after the loop (only
// the loop's results are), and sibling loops may reuse names.
//
// The result type of add/mul/fma is computed from the operands (the widest
// operand; width-1 f32/i32 operands broadcast); Op::type is ignored for them
// (the parser leaves it at its default). For load/const/zero/cvt/slice Op::type
// is the result type; for mfma it must be the instruction's {f32, cd_width}.
//
// A tile-level `gemm` op (compiler/ir/gemm.h) must be the kernel's only op;
// its buffers, types, shapes and tiling are checked with ResolveGemm
// (compiler/analysis/gemm_config.h), and `workgroup auto` / `grid auto` are
// accepted only for such a kernel. Explicit extents in a gemm kernel must be
// the ones promotion chooses. Lowering needs the promoted kernel.
//
// Total LDS is computed with LayoutAbi's rule (lower.h: declaration order, each
// allocation 16-byte aligned), re-implemented here with saturating arithmetic
// because LayoutAbi lives in :lower and assumes a well-formed kernel.
// `gemm` (optional): for a valid gemm kernel, receives the configuration
// ResolveGemm gave (so that promotion need not resolve it again).
absl::Status ValidateKernel(const Kernel& k, const TargetInfo& t,
                            absl::string_view filename = "", GemmConfig* gemm = nullptr);

// The byte alignment the validator requires of a load/store's offset: a
// vector along a stride-1 dimension (`contiguous`) is one buffer/DS access of
// width * elem_bytes bytes, aligned to that size up to 16 (MUBUF dwordx4,
// ds_read_b128); otherwise each element is its own access, aligned to
// elem_bytes. Promotion (compiler/promote) chooses vector widths by it.
int64_t RequiredAccessAlignment(bool contiguous, int64_t elem_bytes, int width);

}  // namespace kir

#endif  // KIRC_COMPILER_ANALYSIS_VALIDATE_H_
