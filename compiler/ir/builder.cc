#include "compiler/ir/builder.h"

#include <utility>

#include "compiler/ir/parser.h"

namespace kir {

KernelBuilder::KernelBuilder(std::string name) : bodies_(1) { kernel_.name = std::move(name); }

KernelBuilder& KernelBuilder::SetName(std::string name) {
  kernel_.name = std::move(name);
  return *this;
}

KernelBuilder& KernelBuilder::SetTarget(std::string target) {
  kernel_.target = std::move(target);
  return *this;
}

KernelBuilder& KernelBuilder::SetWorkgroup(int64_t x, int64_t y, int64_t z) {
  kernel_.workgroup = {x, y, z};
  return *this;
}

KernelBuilder& KernelBuilder::SetGrid(int64_t x, int64_t y, int64_t z) {
  kernel_.grid = {x, y, z};
  return *this;
}

KernelBuilder& KernelBuilder::SetWorkgroupAuto() {
  kernel_.workgroup = {0, 0, 0};
  return *this;
}

KernelBuilder& KernelBuilder::SetGridAuto() {
  kernel_.grid = {0, 0, 0};
  return *this;
}

KernelBuilder& KernelBuilder::AddConst(std::string name, int64_t value) {
  NamedConst c;
  c.name = std::move(name);
  c.value = value;
  kernel_.consts.push_back(std::move(c));
  return *this;
}

KernelBuilder& KernelBuilder::AddBufferArg(std::string name, ElemType elem,
                                           std::vector<int64_t> shape,
                                           std::vector<int64_t> strides, Access access) {
  Arg a;
  a.name = std::move(name);
  a.kind = Arg::Kind::kBuffer;
  a.elem = elem;
  a.shape = std::move(shape);
  a.strides = std::move(strides);
  a.access = access;
  kernel_.args.push_back(std::move(a));
  return *this;
}

KernelBuilder& KernelBuilder::AddScalarArg(std::string name, ElemType elem) {
  Arg a;
  a.name = std::move(name);
  a.kind = Arg::Kind::kScalar;
  a.elem = elem;
  kernel_.args.push_back(std::move(a));
  return *this;
}

KernelBuilder& KernelBuilder::AddLds(std::string name, ElemType elem,
                                     std::vector<int64_t> shape, int64_t pad) {
  LdsAlloc l;
  l.name = std::move(name);
  l.elem = elem;
  l.shape = std::move(shape);
  l.pad = pad;
  kernel_.lds.push_back(std::move(l));
  return *this;
}

std::string KernelBuilder::FreshName() { return "v" + std::to_string(next_name_++); }

std::string KernelBuilder::NameOr(std::string name) {
  return name.empty() ? FreshName() : std::move(name);
}

std::string KernelBuilder::Emit(Op op, std::string name) {
  std::string r = NameOr(std::move(name));
  op.results = {r};
  Body().push_back(std::move(op));
  return r;
}

std::string KernelBuilder::Load(std::string mem, std::vector<IndexRef> index, ValueType type,
                                MemOpOptions opts, std::string name) {
  Op op;
  op.kind = OpKind::kLoad;
  op.mem = std::move(mem);
  op.index = std::move(index);
  op.type = type;
  op.along = opts.along >= 0 ? opts.along : static_cast<int>(op.index.size()) - 1;
  op.guarded = opts.guarded;
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::LoadTr(std::string lds, std::vector<IndexRef> index, ValueType type, int along,
                                  std::string name) {
  Op op;
  op.kind = OpKind::kLoad;
  op.tr = true;
  op.mem = std::move(lds);
  op.index = std::move(index);
  op.type = type;
  op.along = along >= 0 ? along : static_cast<int>(op.index.size()) - 1;
  return Emit(std::move(op), std::move(name));
}

void KernelBuilder::Store(std::string mem, std::vector<IndexRef> index, BuilderValue value,
                          MemOpOptions opts) {
  Op op;
  op.kind = OpKind::kStore;
  op.mem = std::move(mem);
  op.index = std::move(index);
  op.along = opts.along >= 0 ? opts.along : static_cast<int>(op.index.size()) - 1;
  op.guarded = opts.guarded;
  op.operands = {std::move(value.operand)};
  Body().push_back(std::move(op));
}

void KernelBuilder::LdsDma(std::string lds, std::vector<IndexRef> lds_index, std::string mem,
                           std::vector<IndexRef> index, ValueType type, MemOpOptions opts) {
  Op op;
  op.kind = OpKind::kLdsDma;
  op.lds = std::move(lds);
  op.lds_index = std::move(lds_index);
  op.mem = std::move(mem);
  op.index = std::move(index);
  op.type = type;
  op.along = opts.along >= 0 ? opts.along : static_cast<int>(op.index.size()) - 1;
  op.guarded = opts.guarded;
  Body().push_back(std::move(op));
}

void KernelBuilder::Barrier() {
  Op op;
  op.kind = OpKind::kBarrier;
  Body().push_back(std::move(op));
}

std::string KernelBuilder::Mfma(std::string instr, BuilderValue a, BuilderValue b,
                                BuilderValue c, std::string name) {
  Op op;
  op.kind = OpKind::kMfma;
  op.type = MfmaResultType(instr).value_or(ValueType{});
  op.mfma = std::move(instr);
  op.operands = {std::move(a.operand), std::move(b.operand), std::move(c.operand)};
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::Const(ValueType type, double value, std::string name) {
  Op op;
  op.kind = OpKind::kConst;
  op.type = type;
  op.constant = value;
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::Zero(ValueType type, std::string name) {
  Op op;
  op.kind = OpKind::kZero;
  op.type = type;
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::Add(BuilderValue a, BuilderValue b, std::string name) {
  Op op;
  op.kind = OpKind::kAdd;
  op.operands = {std::move(a.operand), std::move(b.operand)};
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::Mul(BuilderValue a, BuilderValue b, std::string name) {
  Op op;
  op.kind = OpKind::kMul;
  op.operands = {std::move(a.operand), std::move(b.operand)};
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::Fma(BuilderValue a, BuilderValue b, BuilderValue c,
                               std::string name) {
  Op op;
  op.kind = OpKind::kFma;
  op.operands = {std::move(a.operand), std::move(b.operand), std::move(c.operand)};
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::Cvt(BuilderValue a, ValueType type, std::string name) {
  Op op;
  op.kind = OpKind::kCvt;
  op.type = type;
  op.operands = {std::move(a.operand)};
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::Concat(BuilderValue a, BuilderValue b, ValueType type, std::string name) {
  Op op;
  op.kind = OpKind::kConcat;
  op.type = type;
  op.operands = {std::move(a.operand), std::move(b.operand)};
  return Emit(std::move(op), std::move(name));
}

std::string KernelBuilder::Slice(BuilderValue a, int first, ValueType type, std::string name) {
  Op op;
  op.kind = OpKind::kSlice;
  op.type = type;
  op.first = first;
  op.operands = {std::move(a.operand)};
  return Emit(std::move(op), std::move(name));
}

void KernelBuilder::Gemm(GemmOp g) {
  Op op;
  op.kind = OpKind::kGemm;
  op.gemm = std::move(g);
  Body().push_back(std::move(op));
}

std::vector<std::string> KernelBuilder::For(int64_t lo, int64_t hi, int64_t step,
                                            std::vector<BuilderValue> init,
                                            const ForBody& body, const ForNames& names) {
  Op op;
  op.kind = OpKind::kFor;
  op.lo = lo;
  op.hi = hi;
  op.step = step;
  op.ivar = NameOr(names.ivar);
  for (size_t i = 0; i < init.size(); ++i) {
    op.operands.push_back(std::move(init[i].operand));
    op.iter_args.push_back(NameOr(i < names.iter_args.size() ? names.iter_args[i] : ""));
  }
  bodies_.emplace_back();
  std::vector<BuilderValue> yielded;
  if (body) yielded = body(op.ivar, op.iter_args);
  op.body = std::move(bodies_.back());
  bodies_.pop_back();
  Op y;
  y.kind = OpKind::kYield;
  for (BuilderValue& v : yielded) y.operands.push_back(std::move(v.operand));
  op.body.push_back(std::move(y));
  for (size_t i = 0; i < init.size(); ++i)
    op.results.push_back(NameOr(i < names.results.size() ? names.results[i] : ""));
  std::vector<std::string> results = op.results;
  Body().push_back(std::move(op));
  return results;
}

Operand KernelBuilder::ScalarArg(std::string name) { return Operand{std::move(name), true}; }

std::vector<int64_t> KernelBuilder::RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

Kernel KernelBuilder::Build() const {
  Kernel k = kernel_;
  k.body = bodies_.front();
  return k;
}

}  // namespace kir
