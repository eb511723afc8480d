#include "compiler/ir/printer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace kir {
namespace {

void AppendOperand(const Operand& o, std::string* out) {
  if (!o.is_arg) out->push_back('%');
  out->append(o.name);
}

void AppendOperands(const std::vector<Operand>& ops, std::string* out) {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i > 0) out->append(", ");
    AppendOperand(ops[i], out);
  }
}

void AppendInts(const std::vector<int64_t>& v, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out->append(", ");
    absl::StrAppend(out, v[i]);
  }
  out->push_back(']');
}

// "%a, %b = " (nothing if there are no results).
void AppendResults(const Op& op, std::string* out) {
  if (op.results.empty()) return;
  for (size_t i = 0; i < op.results.size(); ++i) {
    if (i > 0) out->append(", ");
    out->push_back('%');
    out->append(op.results[i]);
  }
  out->append(" = ");
}

// [guarded ]MEM[i, j][ along D]
void AppendMemRef(const Op& op, std::string* out) {
  if (op.guarded) out->append("guarded ");
  out->append(op.mem);
  out->push_back('[');
  for (size_t i = 0; i < op.index.size(); ++i) {
    if (i > 0) out->append(", ");
    out->append(op.index[i] ? IndexToString(*op.index[i]) : "?");
  }
  out->push_back(']');
  if (static_cast<int64_t>(op.along) != static_cast<int64_t>(op.index.size()) - 1)
    absl::StrAppend(out, " along ", op.along);
}

void AppendOp(const Op& op, int indent, std::string* out) {
  out->append(static_cast<size_t>(indent > 0 ? indent : 0), ' ');
  AppendResults(op, out);
  switch (op.kind) {
    case OpKind::kLoad:
      out->append(op.tr ? "load_tr " : "load ");
      AppendMemRef(op, out);
      absl::StrAppend(out, " : ", ValueTypeName(op.type));
      break;
    case OpKind::kStore:
      out->append("store ");
      AppendMemRef(op, out);
      out->append(", ");
      AppendOperands(op.operands, out);
      break;
    case OpKind::kLdsDma:
      absl::StrAppend(out, "lds_dma ", op.lds, "[");
      for (size_t i = 0; i < op.lds_index.size(); ++i) {
        if (i > 0) out->append(", ");
        out->append(op.lds_index[i] ? IndexToString(*op.lds_index[i]) : "?");
      }
      out->append("], ");
      AppendMemRef(op, out);
      absl::StrAppend(out, " : ", ValueTypeName(op.type));
      break;
    case OpKind::kBarrier:
      out->append("barrier");
      break;
    case OpKind::kMfma:
      absl::StrAppend(out, "mfma ", op.mfma, " ");
      AppendOperands(op.operands, out);
      break;
    case OpKind::kConst:
      absl::StrAppend(out, "const ", ValueTypeName(op.type), " ", FormatDouble(op.constant));
      break;
    case OpKind::kZero:
      absl::StrAppend(out, "zero ", ValueTypeName(op.type));
      break;
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kFma:
      out->append(op.kind == OpKind::kAdd ? "add " : op.kind == OpKind::kMul ? "mul " : "fma ");
      AppendOperands(op.operands, out);
      break;
    case OpKind::kCvt:
      out->append("cvt ");
      AppendOperands(op.operands, out);
      absl::StrAppend(out, " : ", ValueTypeName(op.type));
      break;
    case OpKind::kSlice:
      out->append("slice ");
      AppendOperands(op.operands, out);
      absl::StrAppend(out, ", ", op.first, " : ", ValueTypeName(op.type));
      break;
    case OpKind::kConcat:
      out->append("concat ");
      AppendOperands(op.operands, out);
      absl::StrAppend(out, " : ", ValueTypeName(op.type));
      break;
    case OpKind::kGemm:
      out->append(GemmOpText(op.gemm));
      break;
    case OpKind::kYield:
      out->append("yield");
      if (!op.operands.empty()) out->push_back(' ');
      AppendOperands(op.operands, out);
      break;
    case OpKind::kFor: {
      absl::StrAppend(out, "for %", op.ivar, " = ", op.lo, " to ", op.hi);
      if (op.step != 1) absl::StrAppend(out, " step ", op.step);
      size_t n = std::max(op.iter_args.size(), op.operands.size());
      if (n > 0) {
        out->append(" iter(");
        for (size_t i = 0; i < n; ++i) {
          if (i > 0) out->append(", ");
          absl::StrAppend(out, "%", i < op.iter_args.size() ? op.iter_args[i] : "?", " = ");
          if (i < op.operands.size()) AppendOperand(op.operands[i], out);
        }
        out->push_back(')');
      }
      out->append(" {\n");
      for (const Op& b : op.body) AppendOp(b, indent + 2, out);
      out->append(static_cast<size_t>(indent > 0 ? indent : 0), ' ');
      out->push_back('}');
      break;
    }
  }
  out->push_back('\n');
}

}  // namespace

std::string FormatDouble(double v) {
  char buf[64];
  // An integer below 2^53 in magnitude as one ("3000000000", not the shorter
  // "3e+09"): i32 constants are integers, and so are many float ones.
  if (std::fabs(v) < 0x1p53 && std::trunc(v) == v && !(v == 0 && std::signbit(v))) {
    auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), static_cast<int64_t>(v));
    return std::string(buf, ptr);
  }
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc()) return "nan";  // cannot happen: 64 bytes always suffice
  return std::string(buf, ptr);
}

std::string PrintOp(const Op& op, int indent) {
  std::string out;
  AppendOp(op, indent, &out);
  return out;
}

std::string PrintKernel(const Kernel& k) {
  std::string out;
  absl::StrAppend(&out, "kernel ", k.name, "\n");
  if (!k.target.empty()) absl::StrAppend(&out, "target ", k.target, "\n");
  auto extents = [&](const char* what, const std::array<int64_t, 3>& e) {
    if (e[0] == 0 && e[1] == 0 && e[2] == 0)  // chosen by gemm promotion
      absl::StrAppend(&out, what, " auto\n");
    else
      absl::StrAppend(&out, what, " ", e[0], " ", e[1], " ", e[2], "\n");
  };
  extents("workgroup", k.workgroup);
  extents("grid", k.grid);
  for (const NamedConst& c : k.consts) absl::StrAppend(&out, "const ", c.name, " = ", c.value, "\n");
  for (const Arg& a : k.args) {
    absl::StrAppend(&out, "arg ", a.name, " : ", std::string(ElemTypeName(a.elem)));
    if (a.kind == Arg::Kind::kBuffer) {
      AppendInts(a.shape, &out);
      out.append(" strides ");
      AppendInts(a.strides, &out);
      absl::StrAppend(&out, " ", AccessName(a.access));
    }
    out.push_back('\n');
  }
  for (const LdsAlloc& l : k.lds) {
    absl::StrAppend(&out, "lds ", l.name, " : ", std::string(ElemTypeName(l.elem)));
    AppendInts(l.shape, &out);
    if (l.pad != 0) absl::StrAppend(&out, " pad ", l.pad);
    out.push_back('\n');
  }
  for (const Op& op : k.body) AppendOp(op, 2, &out);
  out.append("end\n");
  return out;
}

}  // namespace kir
