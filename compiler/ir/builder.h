// KernelBuilder: builds a kir::Kernel from C++ without going through text.
//
//   kir::KernelBuilder b("scale_f32");
//   b.SetWorkgroup(64).SetGrid(4);
//   b.AddBufferArg("X", kir::ElemType::kF32, {256}, {1}, kir::Access::kReadWrite);
//   b.AddScalarArg("s", kir::ElemType::kF32);
//   auto i = kir::IAdd(kir::IMul(kir::IWg(0), kir::IConst(64)), kir::ITid(0));
//   std::string x = b.Load("X", {i}, {kir::ElemType::kF32, 1});
//   b.Store("X", {i}, b.Mul(x, kir::KernelBuilder::ScalarArg("s")));
//   kir::Kernel k = b.Build();
//
// The builder does not validate (the validator does); it only avoids crashing.
#ifndef KIRC_COMPILER_IR_BUILDER_H_
#define KIRC_COMPILER_IR_BUILDER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/index_expr.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/types.h"

namespace kir {

// An operand passed to a KernelBuilder op: implicitly an SSA value name (without
// '%', as the emitters return it), or any Operand, e.g.
// KernelBuilder::ScalarArg("scale") for a scalar kernel argument.
struct BuilderValue {
  BuilderValue(std::string ssa_name) : operand{std::move(ssa_name), false} {}
  BuilderValue(const char* ssa_name) : operand{ssa_name, false} {}
  BuilderValue(Operand o) : operand(std::move(o)) {}
  Operand operand;
};

// Options of KernelBuilder::Load and Store.
struct MemOpOptions {
  int along = -1;        // dimension the vector elements run along; -1: the last one
  bool guarded = false;  // out-of-shape elements read 0 / are not written
};

// Names for KernelBuilder::For; an empty or missing entry gets a fresh name.
struct ForNames {
  std::string ivar;                    // induction variable (without '%')
  std::vector<std::string> iter_args;  // body-visible names of the carried values
  std::vector<std::string> results;    // names of the loop's results
};

class KernelBuilder {
 public:
  // Builds a `for` body: receives the induction variable and the iter_arg names
  // (without '%'), emits the body's ops through the builder and returns the values
  // to yield (normally one per iter_arg). For appends the `yield` itself.
  using ForBody = std::function<std::vector<BuilderValue>(
      const std::string& ivar, const std::vector<std::string>& iter_args)>;

  // A kernel called `name`, workgroup and grid 1 x 1 x 1, no target.
  explicit KernelBuilder(std::string name = "");

  // Header setters; each returns *this for chaining.
  KernelBuilder& SetName(std::string name);
  KernelBuilder& SetTarget(std::string target);  // e.g. "gfx942"; "" for none
  // Threads per workgroup in x, y, z.
  KernelBuilder& SetWorkgroup(int64_t x, int64_t y = 1, int64_t z = 1);
  // Workgroups in x, y, z.
  KernelBuilder& SetGrid(int64_t x, int64_t y = 1, int64_t z = 1);
  // `workgroup auto` / `grid auto` (all extents 0): promotion of the kernel's
  // single gemm op chooses them.
  KernelBuilder& SetWorkgroupAuto();
  KernelBuilder& SetGridAuto();
  // A named integer constant (usable as INamed(name) in index expressions).
  KernelBuilder& AddConst(std::string name, int64_t value);
  // A global buffer: shape and strides in elements, outermost first.
  KernelBuilder& AddBufferArg(std::string name, ElemType elem, std::vector<int64_t> shape,
                              std::vector<int64_t> strides, Access access);
  // A scalar argument (i32 or f32).
  KernelBuilder& AddScalarArg(std::string name, ElemType elem);
  // An LDS allocation, row-major, `pad` extra elements after each innermost row.
  KernelBuilder& AddLds(std::string name, ElemType elem, std::vector<int64_t> shape,
                        int64_t pad = 0);

  // Op emitters. They append to the current body (the kernel's, or the innermost
  // For body being built) and return the result name: `name`, or a fresh name if
  // `name` is empty.

  // `%r = load [guarded] mem[index...] [along D] : type`.
  std::string Load(std::string mem, std::vector<IndexRef> index, ValueType type,
                   MemOpOptions opts = {}, std::string name = "");
  // `%r = load_tr lds[index...] [along D] : type` (Op::tr: gfx950's
  // transposing LDS read; the lane exchange is kernel.h's Op::tr comment;
  // 16-bit x4 types, unguarded, whole waves, as the validator checks).
  std::string LoadTr(std::string lds, std::vector<IndexRef> index, ValueType type, int along = -1,
                     std::string name = "");
  // `store [guarded] mem[index...] [along D], value`.
  void Store(std::string mem, std::vector<IndexRef> index, BuilderValue value,
             MemOpOptions opts = {});
  // lds_dma lds[lds_index], mem[index] : type (OpKind::kLdsDma: each thread's
  // 16-byte vector of `mem` to LDS at lds[lds_index] + 16 * lane bytes;
  // lds_index wave-uniform; gfx950 only, as the validator checks).
  void LdsDma(std::string lds, std::vector<IndexRef> lds_index, std::string mem,
              std::vector<IndexRef> index, ValueType type, MemOpOptions opts = {});
  // `barrier`.
  void Barrier();
  // `%r = mfma instr a, b, c`; the op's type is MfmaResultType(instr) (parser.h),
  // or the default ValueType if the name has no derivable type.
  std::string Mfma(std::string instr, BuilderValue a, BuilderValue b, BuilderValue c,
                   std::string name = "");
  // `%r = const type value` (a splat of `value`).
  std::string Const(ValueType type, double value, std::string name = "");
  // `%r = zero type`.
  std::string Zero(ValueType type, std::string name = "");
  // `%r = add a, b`, `%r = mul a, b`, `%r = fma a, b, c` (elementwise).
  std::string Add(BuilderValue a, BuilderValue b, std::string name = "");
  std::string Mul(BuilderValue a, BuilderValue b, std::string name = "");
  std::string Fma(BuilderValue a, BuilderValue b, BuilderValue c, std::string name = "");
  // `%r = cvt a : type`.
  std::string Cvt(BuilderValue a, ValueType type, std::string name = "");
  // Elements [first, first + type.width) of `a` as a new value of `type`.
  std::string Slice(BuilderValue a, int first, ValueType type, std::string name = "");
  // `%r = concat a, b : type`: a's elements then b's; `type` is their element
  // type with twice their width (the validator checks it).
  std::string Concat(BuilderValue a, BuilderValue b, ValueType type, std::string name = "");
  // The tile-level `gemm` op (compiler/ir/gemm.h), e.g.
  //   GemmOp g; g.c = "C"; g.factors = {"alpha"}; g.a = "A"; g.b = "B"; b.Gemm(g);
  void Gemm(GemmOp g);
  // `%results = for %ivar = lo to hi step step iter(%iter_args = init...) { body }`.
  // Fresh names are taken in the order ivar, iter_args, the body's, results.
  // Returns the result names, one per element of `init`.
  std::vector<std::string> For(int64_t lo, int64_t hi, int64_t step,
                               std::vector<BuilderValue> init, const ForBody& body,
                               const ForNames& names = {});

  // A scalar kernel argument as an operand: Operand{name, /*is_arg=*/true}.
  static Operand ScalarArg(std::string name);
  // Contiguous row-major strides (in elements) for `shape`: {.., shape[n-1], 1}.
  static std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape);

  // The next fresh SSA name: "v0", "v1", ... (counts only generated names).
  std::string FreshName();

  // A copy of the kernel built so far (the builder stays usable).
  Kernel Build() const;

 private:
  std::string NameOr(std::string name);
  std::string Emit(Op op, std::string name);
  std::vector<Op>& Body() { return bodies_.back(); }

  Kernel kernel_;
  // bodies_[0] is the kernel body; deeper entries are For bodies being built.
  std::vector<std::vector<Op>> bodies_;
  int64_t next_name_ = 0;
};

}  // namespace kir

#endif  // KIRC_COMPILER_IR_BUILDER_H_
