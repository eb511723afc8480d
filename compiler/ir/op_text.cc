#include "compiler/ir/op_text.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/printer.h"

namespace kir {
namespace {

std::string IndexText(const IndexRef& e) {
  if (!IndexTreeProblem(e).empty()) return "?";
  return IndexToString(*e);
}

std::string OperandText(const Operand& o) { return o.is_arg ? o.name : "%" + o.name; }

}  // namespace

// A one-line rendering of `op` for messages (a `for` without its body).
std::string OpText(const Op& op) {
  std::string r;
  if (!op.results.empty()) r = "%" + absl::StrJoin(op.results, ", %") + " = ";
  std::vector<std::string> ops;
  for (const Operand& o : op.operands) ops.push_back(OperandText(o));
  std::string operands = absl::StrJoin(ops, ", ");
  auto memref = [&] {
    std::vector<std::string> ix;
    for (const IndexRef& i : op.index) ix.push_back(IndexText(i));
    std::string s = absl::StrCat(op.guarded ? "guarded " : "", op.mem, "[",
                                 absl::StrJoin(ix, ", "), "]");
    if (op.along != static_cast<int>(op.index.size()) - 1) absl::StrAppend(&s, " along ", op.along);
    return s;
  };
  switch (op.kind) {
    case OpKind::kLoad:
      return absl::StrCat(r, op.tr ? "load_tr " : "load ", memref(), " : ", ValueTypeName(op.type));
    case OpKind::kStore:
      return absl::StrCat(r, "store ", memref(), ", ", operands);
    case OpKind::kLdsDma: {
      std::vector<std::string> lx;
      for (const IndexRef& i : op.lds_index) lx.push_back(IndexText(i));
      return absl::StrCat(r, "lds_dma ", op.lds, "[", absl::StrJoin(lx, ", "), "], ", memref(), " : ",
                          ValueTypeName(op.type));
    }
    case OpKind::kBarrier:
      return r + "barrier";
    case OpKind::kMfma:
      return absl::StrCat(r, "mfma ", op.mfma, " ", operands);
    case OpKind::kConst:
      return absl::StrCat(r, "const ", ValueTypeName(op.type), " ", FormatDouble(op.constant));
    case OpKind::kZero:
      return absl::StrCat(r, "zero ", ValueTypeName(op.type));
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kFma:
      return absl::StrCat(r, op.kind == OpKind::kAdd ? "add" : op.kind == OpKind::kMul ? "mul" : "fma", " ", operands);
    case OpKind::kCvt:
      return absl::StrCat(r, "cvt ", operands, " : ", ValueTypeName(op.type));
    case OpKind::kSlice:
      return absl::StrCat(r, "slice ", operands, ", ", op.first, " : ", ValueTypeName(op.type));
    case OpKind::kConcat:
      return absl::StrCat(r, "concat ", operands, " : ", ValueTypeName(op.type));
    case OpKind::kFor: {
      std::string s = absl::StrCat(r, "for %", op.ivar, " = ", op.lo, " to ", op.hi);
      if (op.step != 1) absl::StrAppend(&s, " step ", op.step);
      if (!op.iter_args.empty() || !op.operands.empty()) {
        std::vector<std::string> it;
        size_t n = std::max(op.iter_args.size(), op.operands.size());
        for (size_t i = 0; i < n; ++i)
          it.push_back(absl::StrCat("%", i < op.iter_args.size() ? op.iter_args[i] : "?", " = ",
                                    i < op.operands.size() ? OperandText(op.operands[i]) : "?"));
        absl::StrAppend(&s, " iter(", absl::StrJoin(it, ", "), ")");
      }
      return s;
    }
    case OpKind::kYield:
      return operands.empty() ? "yield" : "yield " + operands;
    case OpKind::kGemm:
      return GemmOpText(op.gemm);
  }
  return absl::StrCat(r, "op kind ", static_cast<int>(op.kind));
}

}  // namespace kir
