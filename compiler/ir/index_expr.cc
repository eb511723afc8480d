#include "compiler/ir/index_expr.h"

#include "absl/strings/str_cat.h"

namespace kir {
namespace {

IndexRef Make(IndexKind k, IndexRef a, IndexRef b) {
  auto e = std::make_shared<IndexExpr>();
  e->kind = k;
  e->lhs = std::move(a);
  e->rhs = std::move(b);
  return e;
}

// Precedence: + and - bind 1, * floordiv mod bind 2, leaves 3.
int Prec(IndexKind k) {
  switch (k) {
    case IndexKind::kAdd:
    case IndexKind::kSub:
      return 1;
    case IndexKind::kMul:
    case IndexKind::kFloorDiv:
    case IndexKind::kMod:
      return 2;
    default:
      return 3;
  }
}

void Print(const IndexExpr& e, std::string& out) {
  switch (e.kind) {
    case IndexKind::kConst:
      out += std::to_string(e.value);
      return;
    case IndexKind::kTid:
      out += "tid.";
      out += "xyz"[e.dim];
      return;
    case IndexKind::kWg:
      out += "wg.";
      out += "xyz"[e.dim];
      return;
    case IndexKind::kNamed:
      out += e.name;
      return;
    case IndexKind::kLoopVar:
      out += "%" + e.name;
      return;
    default:
      break;
  }
  const char* op = e.kind == IndexKind::kAdd   ? " + "
                   : e.kind == IndexKind::kSub ? " - "
                   : e.kind == IndexKind::kMul ? " * "
                   : e.kind == IndexKind::kMod ? " mod "
                                               : " floordiv ";
  int p = Prec(e.kind);
  // Left-associative: the left operand needs parentheses only if it binds
  // looser; the right one also if it binds equally. A negative constant on
  // either side is parenthesised so that "a - -3" never appears.
  bool lpar = Prec(e.lhs->kind) < p || (e.lhs->kind == IndexKind::kConst && e.lhs->value < 0);
  bool rpar = Prec(e.rhs->kind) <= p && e.rhs->kind != IndexKind::kConst;
  rpar = rpar || (e.rhs->kind == IndexKind::kConst && e.rhs->value < 0);
  if (lpar) out += "(";
  Print(*e.lhs, out);
  if (lpar) out += ")";
  out += op;
  if (rpar) out += "(";
  Print(*e.rhs, out);
  if (rpar) out += ")";
}

bool MulOverflows(int64_t a, int64_t b, int64_t* r) { return __builtin_mul_overflow(a, b, r); }

std::string TreeProblem(const IndexExpr* e, int depth, int64_t* budget) {
  if (e == nullptr) return "an operand of the index expression is missing (null)";
  if (depth > kMaxIndexDepth)
    return absl::StrCat("the index expression is nested more than ", kMaxIndexDepth,
                        " levels deep; simplify it");
  if (--*budget < 0)
    return absl::StrCat("the index expression has more than ", kMaxIndexNodes,
                        " nodes; simplify it");
  switch (e->kind) {
    case IndexKind::kConst:
    case IndexKind::kNamed:
    case IndexKind::kLoopVar:
      return "";
    case IndexKind::kTid:
    case IndexKind::kWg:
      if (e->dim < 0 || e->dim > 2)
        return absl::StrCat(e->kind == IndexKind::kTid ? "tid" : "wg", " dimension ", e->dim,
                            " is not x, y or z (0, 1 or 2)");
      return "";
    case IndexKind::kAdd:
    case IndexKind::kSub:
    case IndexKind::kMul:
    case IndexKind::kFloorDiv:
    case IndexKind::kMod: {
      std::string p = TreeProblem(e->lhs.get(), depth + 1, budget);
      if (!p.empty()) return p;
      return TreeProblem(e->rhs.get(), depth + 1, budget);
    }
  }
  return absl::StrCat("unknown index expression kind ", static_cast<int>(e->kind));
}

}  // namespace

std::string IndexTreeProblem(const IndexRef& e) {
  int64_t budget = kMaxIndexNodes;
  return TreeProblem(e.get(), 0, &budget);
}

IndexRef IConst(int64_t v) {
  auto e = std::make_shared<IndexExpr>();
  e->kind = IndexKind::kConst;
  e->value = v;
  return e;
}
IndexRef ITid(int dim) {
  auto e = std::make_shared<IndexExpr>();
  e->kind = IndexKind::kTid;
  e->dim = dim;
  return e;
}
IndexRef IWg(int dim) {
  auto e = std::make_shared<IndexExpr>();
  e->kind = IndexKind::kWg;
  e->dim = dim;
  return e;
}
IndexRef INamed(std::string name) {
  auto e = std::make_shared<IndexExpr>();
  e->kind = IndexKind::kNamed;
  e->name = std::move(name);
  return e;
}
IndexRef ILoopVar(std::string name) {
  auto e = std::make_shared<IndexExpr>();
  e->kind = IndexKind::kLoopVar;
  e->name = std::move(name);
  return e;
}
IndexRef IAdd(IndexRef a, IndexRef b) { return Make(IndexKind::kAdd, std::move(a), std::move(b)); }
IndexRef ISub(IndexRef a, IndexRef b) { return Make(IndexKind::kSub, std::move(a), std::move(b)); }
IndexRef IMul(IndexRef a, IndexRef b) { return Make(IndexKind::kMul, std::move(a), std::move(b)); }
IndexRef IFloorDiv(IndexRef a, IndexRef b) {
  return Make(IndexKind::kFloorDiv, std::move(a), std::move(b));
}
IndexRef IMod(IndexRef a, IndexRef b) { return Make(IndexKind::kMod, std::move(a), std::move(b)); }

bool IndexEqual(const IndexRef& a, const IndexRef& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->value != b->value || a->dim != b->dim || a->name != b->name)
    return false;
  return IndexEqual(a->lhs, b->lhs) && IndexEqual(a->rhs, b->rhs);
}

int64_t FloorDiv(int64_t a, int64_t d) {
  int64_t q = a / d;
  if ((a % d != 0) && ((a < 0) != (d < 0))) --q;
  return q;
}

int64_t FloorMod(int64_t a, int64_t d) { return a - FloorDiv(a, d) * d; }

std::optional<int64_t> Evaluate(const IndexExpr& e, const IndexEnv& env) {
  switch (e.kind) {
    case IndexKind::kConst:
      return e.value;
    case IndexKind::kTid:
      return env.tid[e.dim];
    case IndexKind::kWg:
      return env.wg[e.dim];
    case IndexKind::kNamed:
      return env.named ? env.named(e.name) : std::nullopt;
    case IndexKind::kLoopVar:
      return env.loop_var ? env.loop_var(e.name) : std::nullopt;
    default:
      break;
  }
  std::optional<int64_t> a = Evaluate(*e.lhs, env);
  std::optional<int64_t> b = Evaluate(*e.rhs, env);
  if (!a || !b) return std::nullopt;
  int64_t r = 0;
  switch (e.kind) {
    case IndexKind::kAdd:
      if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt;
      return r;
    case IndexKind::kSub:
      if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt;
      return r;
    case IndexKind::kMul:
      if (MulOverflows(*a, *b, &r)) return std::nullopt;
      return r;
    case IndexKind::kFloorDiv:
      if (*b <= 0) return std::nullopt;
      return FloorDiv(*a, *b);
    case IndexKind::kMod:
      if (*b <= 0) return std::nullopt;
      return FloorMod(*a, *b);
    default:
      return std::nullopt;
  }
}

std::string IndexToString(const IndexExpr& e) {
  std::string s;
  Print(e, s);
  return s;
}

}  // namespace kir
