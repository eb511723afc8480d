// Index expressions: the integer expressions that address buffers and LDS.
//
// Leaves are tid.x/y/z (work-item id in the workgroup), wg.x/y/z (workgroup id in
// the grid), integer constants, named kernel constants and loop induction
// variables. Operators are +, -, * and floordiv / mod by a positive constant with
// floor semantics (as Python and MLIR affine maps): floordiv(-7, 4) = -2 and
// mod(-7, 4) = 1. Values are mathematical integers; the lowering proves that
// everything it computes fits the 32-bit registers it uses.
#ifndef KIRC_COMPILER_IR_INDEX_EXPR_H_
#define KIRC_COMPILER_IR_INDEX_EXPR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kir {

enum class IndexKind {
  kConst,     // value
  kTid,       // tid.{x,y,z}: dim 0, 1, 2
  kWg,        // wg.{x,y,z}: dim 0, 1, 2
  kNamed,     // a kernel `const` by name
  kLoopVar,   // a `for` induction variable by name (without '%')
  kAdd,       // lhs + rhs
  kSub,       // lhs - rhs
  kMul,       // lhs * rhs
  kFloorDiv,  // floor(lhs / rhs); rhs must evaluate to a positive constant
  kMod,       // lhs - rhs * floor(lhs / rhs); rhs a positive constant
};

struct IndexExpr;
// Index expressions are immutable trees shared by pointer.
using IndexRef = std::shared_ptr<const IndexExpr>;

struct IndexExpr {
  IndexKind kind = IndexKind::kConst;
  int64_t value = 0;  // kConst
  int dim = 0;        // kTid, kWg
  std::string name;   // kNamed, kLoopVar
  IndexRef lhs, rhs;  // binary operators
};

IndexRef IConst(int64_t v);
IndexRef ITid(int dim);
IndexRef IWg(int dim);
IndexRef INamed(std::string name);
IndexRef ILoopVar(std::string name);
IndexRef IAdd(IndexRef a, IndexRef b);
IndexRef ISub(IndexRef a, IndexRef b);
IndexRef IMul(IndexRef a, IndexRef b);
IndexRef IFloorDiv(IndexRef a, IndexRef b);
IndexRef IMod(IndexRef a, IndexRef b);

// Limits on index trees built through the API (the parser stays far below).
inline constexpr int kMaxIndexDepth = 512;
inline constexpr int64_t kMaxIndexNodes = 65536;

// "" if `e` is a well-formed tree: no null operands, tid/wg dimensions 0..2,
// known kinds, at most kMaxIndexDepth deep and kMaxIndexNodes nodes;
// otherwise what is wrong, e.g. "tid dimension 3 is not x, y or z (0, 1 or 2)".
// Evaluate, Affine and IndexToString assume a well-formed tree.
std::string IndexTreeProblem(const IndexRef& e);

// Structural equality (same tree shape, kinds, values and names).
bool IndexEqual(const IndexRef& a, const IndexRef& b);

// Floor division and modulo of mathematical integers; d must be > 0.
int64_t FloorDiv(int64_t a, int64_t d);
int64_t FloorMod(int64_t a, int64_t d);

// Values of the leaves for Evaluate. Unknown names yield nullopt.
struct IndexEnv {
  int64_t tid[3] = {0, 0, 0};
  int64_t wg[3] = {0, 0, 0};
  std::function<std::optional<int64_t>(const std::string&)> named;     // consts
  std::function<std::optional<int64_t>(const std::string&)> loop_var;  // loops
};

// Evaluates `e` exactly (floor semantics). nullopt on an unknown name, a
// divisor that is not positive, or int64 overflow.
std::optional<int64_t> Evaluate(const IndexExpr& e, const IndexEnv& env);

// Canonical KIR text of `e`, fully parenthesised only where precedence needs it:
// "tid.x", "wg.y", "%k", "N", "(tid.x + 3) floordiv 4", "tid.x mod 16 * 8".
std::string IndexToString(const IndexExpr& e);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_INDEX_EXPR_H_
