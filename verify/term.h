// The verifier's term language: 32-bit machine values of ONE symbolic lane,
// built by instantiating the shared instruction semantics
// (compiler/isa/semantics.h, EvalIntOp and friends) with TermDomain. Terms are
// hash-consed into a TermPool (a child always has a smaller id than its
// parent) and constant-folded with U32Domain, so shift-amount masking, the
// 24-bit operand masks of v_mul_u32_u24, v_bfe_u32's field and the operand
// order of the `rev` forms all come from semantics.h and nowhere else.
//
// A term has 32-bit wrapping semantics; TermPool::Eval computes it concretely
// (counterexample confirmation and concrete search), translate.cc turns it
// into linear integer arithmetic for Z3.
#ifndef KIRC_VERIFY_TERM_H_
#define KIRC_VERIFY_TERM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kir::vfy {

enum class TOp : uint8_t {
  kConst, kVar, kAdd, kSub, kMul, kMulHiU, kAnd, kOr, kXor, kShl, kLShr, kAShr,
  kSelect,  // a = cond (non-zero: b), b = value if true, s = value if false
  kUlt, kEq,
};

struct TRef {
  int id = -1;
  bool valid() const { return id >= 0; }
  friend bool operator==(TRef a, TRef b) { return a.id == b.id; }
  friend bool operator!=(TRef a, TRef b) { return a.id != b.id; }
};

// What a variable stands for.
enum class VarKind : uint8_t {
  kTid,          // tid.x/y/z (dim)
  kWg,           // wg.x/y/z (dim)
  kKernargPtr,   // the kernarg segment pointer's low (dim 0) / high (dim 1) dword
  kArgDword,     // a dword of the kernarg segment: a buffer pointer half or a scalar argument
  kInput,        // any other input: memory contents, undefined initial registers
  kUnmodelled,   // the result of an instruction the verifier does not model (float, MFMA, ...)
  kLoopIter,     // the iteration number of a machine loop, 0 .. trips-1 (dim: the loop's label index)
  kAbstract,     // an over-approximation (a loop-header value that is not an induction variable,
                 // a lane mask read as a value, ...): no counterexample may rest on it
};

// Dependency bits of a term (TNode::deps).
enum : uint8_t {
  kDepTidX = 1, kDepTidY = 2, kDepTidZ = 4,
  kDepLaneData = 8,     // a per-lane value other than the work-item id (VGPR data)
  kDepUnmodelled = 16,  // an unmodelled instruction's result
  kDepLaneVarying = kDepTidX | kDepTidY | kDepTidZ | kDepLaneData,
};

struct VarInfo {
  std::string name;
  VarKind kind = VarKind::kInput;
  int64_t lo = 0, hi = 0xffffffffll;  // the values it can take (inclusive)
  uint8_t deps = 0;                   // its own dependency bits
  int dim = -1;                       // tid/wg dimension, kernarg dword offset, ...
  int inst = -1;                      // kUnmodelled / kInput: the instruction that made it
};

struct TNode {
  TOp op = TOp::kConst;
  uint32_t c = 0;  // kConst: value; kVar: variable id
  int a = -1, b = -1, s = -1;
  uint8_t deps = 0;
};

class TermPool {
 public:
  TermPool();
  TRef Const(uint32_t c);
  int NewVar(VarInfo v);
  TRef Var(int var);
  // A node with constant folding (U32Domain) and sound identities.
  TRef Make(TOp op, TRef a, TRef b, TRef s = TRef{});

  const TNode& node(TRef t) const { return nodes_[t.id]; }
  const VarInfo& var(int v) const { return vars_[v]; }
  void SetVarRange(int v, int64_t lo, int64_t hi) {
    vars_[v].lo = lo;
    vars_[v].hi = hi;
  }
  // t with variable `var` replaced by the constant `value` (re-folded).
  TRef Subst(TRef t, int var, uint32_t value, std::unordered_map<int, int>* memo);
  // t with each variable of `values` replaced by its term (re-folded).
  TRef SubstTerms(TRef t, const std::unordered_map<int, TRef>& values, std::unordered_map<int, int>* memo);
  int num_vars() const { return static_cast<int>(vars_.size()); }
  int size() const { return static_cast<int>(nodes_.size()); }
  bool IsConst(TRef t) const { return nodes_[t.id].op == TOp::kConst; }
  uint32_t ConstValue(TRef t) const { return nodes_[t.id].c; }

  // Every node `roots` depend on, ascending (children before parents).
  std::vector<int> Closure(const std::vector<TRef>& roots) const;
  // Concrete values of the nodes in `order` (from Closure) for the variable
  // values `vars`; `out` is indexed by node id (resized as needed).
  void EvalNodes(const std::vector<int>& order, const std::vector<uint32_t>& vars,
                 std::vector<uint32_t>* out) const;
  uint32_t Eval(TRef t, const std::vector<uint32_t>& vars) const;
  // Variables a term depends on.
  std::vector<int> VarsOf(TRef t) const;
  // Readable form, for messages and tests: "((tid.x & 0x3ff) << 4)".
  std::string ToString(TRef t, int depth = 6) const;

 private:
  struct Key {
    uint8_t op;
    uint32_t c;
    int a, b, s;
    bool operator==(const Key& o) const {
      return op == o.op && c == o.c && a == o.a && b == o.b && s == o.s;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.op * 0x9e3779b97f4a7c15ull;
      h ^= (k.c + 0x632be59bd9b4e019ull) + (h << 6) + (h >> 2);
      h ^= (static_cast<uint64_t>(k.a) * 0x85ebca6b) + (h << 6) + (h >> 2);
      h ^= (static_cast<uint64_t>(k.b) * 0xc2b2ae35) + (h << 6) + (h >> 2);
      h ^= (static_cast<uint64_t>(k.s) * 0x27d4eb2f) + (h << 6) + (h >> 2);
      return static_cast<size_t>(h);
    }
  };
  TRef Intern(TOp op, uint32_t c, int a, int b, int s);

  std::vector<TNode> nodes_;
  std::vector<VarInfo> vars_;
  std::unordered_map<Key, int, KeyHash> intern_;
};

// The value domain of semantics.h over terms: V is a term, every operation
// makes (or folds) a node.
struct TermDomain {
  using V = TRef;
  TermPool* p;
  V Const(uint32_t c) const { return p->Const(c); }
  V Add(V a, V b) const { return p->Make(TOp::kAdd, a, b); }
  V Sub(V a, V b) const { return p->Make(TOp::kSub, a, b); }
  V Mul(V a, V b) const { return p->Make(TOp::kMul, a, b); }
  V MulHiU(V a, V b) const { return p->Make(TOp::kMulHiU, a, b); }
  V And(V a, V b) const { return p->Make(TOp::kAnd, a, b); }
  V Or(V a, V b) const { return p->Make(TOp::kOr, a, b); }
  V Xor(V a, V b) const { return p->Make(TOp::kXor, a, b); }
  V Shl(V a, V s) const { return p->Make(TOp::kShl, a, s); }
  V LShr(V a, V s) const { return p->Make(TOp::kLShr, a, s); }
  V AShr(V a, V s) const { return p->Make(TOp::kAShr, a, s); }
  V Select(V c, V a, V b) const { return p->Make(TOp::kSelect, c, a, b); }
  V Ult(V a, V b) const { return p->Make(TOp::kUlt, a, b); }
  V Eq(V a, V b) const { return p->Make(TOp::kEq, a, b); }
  // A constant term's value (semantics.h picks v_bitop3's formula by it).
  std::optional<uint32_t> Known(V a) const {
    if (p->IsConst(a)) return p->ConstValue(a);
    return std::nullopt;
  }
};

}  // namespace kir::vfy

#endif  // KIRC_VERIFY_TERM_H_
