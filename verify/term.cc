#include "verify/term.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/isa/semantics.h"

namespace kir::vfy {
namespace {

uint32_t Apply(TOp op, uint32_t a, uint32_t b, uint32_t s) {
  U32Domain d;
  switch (op) {
    case TOp::kAdd: return d.Add(a, b);
    case TOp::kSub: return d.Sub(a, b);
    case TOp::kMul: return d.Mul(a, b);
    case TOp::kMulHiU: return d.MulHiU(a, b);
    case TOp::kAnd: return d.And(a, b);
    case TOp::kOr: return d.Or(a, b);
    case TOp::kXor: return d.Xor(a, b);
    // Callers (semantics.h) reduce shift amounts to 0..31; keep the C++ defined anyway.
    case TOp::kShl: return d.Shl(a, b & 31);
    case TOp::kLShr: return d.LShr(a, b & 31);
    case TOp::kAShr: return d.AShr(a, b & 31);
    case TOp::kSelect: return d.Select(a, b, s);
    case TOp::kUlt: return d.Ult(a, b);
    case TOp::kEq: return d.Eq(a, b);
    default: return 0;
  }
}

bool Commutative(TOp op) {
  return op == TOp::kAdd || op == TOp::kMul || op == TOp::kMulHiU || op == TOp::kAnd ||
         op == TOp::kOr || op == TOp::kXor || op == TOp::kEq;
}

const char* OpText(TOp op) {
  switch (op) {
    case TOp::kAdd: return " + ";
    case TOp::kSub: return " - ";
    case TOp::kMul: return " * ";
    case TOp::kMulHiU: return " *hi ";
    case TOp::kAnd: return " & ";
    case TOp::kOr: return " | ";
    case TOp::kXor: return " ^ ";
    case TOp::kShl: return " << ";
    case TOp::kLShr: return " >> ";
    case TOp::kAShr: return " >>s ";
    case TOp::kUlt: return " <u ";
    case TOp::kEq: return " == ";
    default: return " ? ";
  }
}

}  // namespace

TermPool::TermPool() { nodes_.reserve(1024); }

TRef TermPool::Intern(TOp op, uint32_t c, int a, int b, int s) {
  Key k{static_cast<uint8_t>(op), c, a, b, s};
  auto it = intern_.find(k);
  if (it != intern_.end()) return TRef{it->second};
  TNode n;
  n.op = op;
  n.c = c;
  n.a = a;
  n.b = b;
  n.s = s;
  if (op == TOp::kVar) n.deps = vars_[c].deps;
  for (int ch : {a, b, s})
    if (ch >= 0) n.deps |= nodes_[ch].deps;
  nodes_.push_back(n);
  int id = static_cast<int>(nodes_.size()) - 1;
  intern_.emplace(k, id);
  return TRef{id};
}

TRef TermPool::Const(uint32_t c) { return Intern(TOp::kConst, c, -1, -1, -1); }

int TermPool::NewVar(VarInfo v) {
  vars_.push_back(std::move(v));
  return static_cast<int>(vars_.size()) - 1;
}

TRef TermPool::Var(int var) { return Intern(TOp::kVar, static_cast<uint32_t>(var), -1, -1, -1); }

TRef TermPool::Make(TOp op, TRef a, TRef b, TRef s) {
  const bool ca = IsConst(a), cb = b.valid() && IsConst(b);
  if (op == TOp::kSelect) {
    if (ca) return ConstValue(a) ? b : s;
    if (b == s) return b;
    if (IsConst(b) && IsConst(s) && ConstValue(b) == 1 && ConstValue(s) == 0 &&
        (node(a).op == TOp::kUlt || node(a).op == TOp::kEq))
      return a;  // a 0/1 condition selecting 1 or 0 is the condition itself
    return Intern(op, 0, a.id, b.id, s.id);
  }
  if (ca && cb) return Const(Apply(op, ConstValue(a), ConstValue(b), 0));
  if (Commutative(op) && ca && !cb) std::swap(a, b);
  const bool bc = IsConst(b);
  const uint32_t k = bc ? ConstValue(b) : 0;
  switch (op) {
    case TOp::kAdd:
      if (bc && k == 0) return a;
      break;
    case TOp::kSub:
      if (bc && k == 0) return a;
      if (a == b) return Const(0);
      break;
    case TOp::kMul:
      if (bc && k == 0) return Const(0);
      if (bc && k == 1) return a;
      break;
    case TOp::kMulHiU:
      if (bc && (k == 0 || k == 1)) return Const(0);
      break;
    case TOp::kAnd:
      if (bc && k == 0) return Const(0);
      if (bc && k == 0xffffffffu) return a;
      if (a == b) return a;
      if (bc && node(a).op == TOp::kAnd && IsConst(TRef{node(a).b}))
        return Make(TOp::kAnd, TRef{node(a).a}, Const(k & ConstValue(TRef{node(a).b})));
      // (x ^ y) & c == (x & c) ^ (y & c), and so for | and & (bitwise
      // identities, exact): the mask reaches the operands, whose masked
      // bits the Translator takes apart as fields ((X div 2^p) mod 2^w)
      // and whose xor/or then spans only the mask's bits. v_bitop3's
      // `src1 & (src0 ^ src2)` with src1 = 0x70 (table 0x48; clang-22's
      // XOR swizzle of 16-byte chunks, (t << 4 ^ t << 1) & 0x70) becomes a
      // 3-bit xor of two fields instead of one of 12- and 9-bit values
      // (fresh-user review 21 F2).
      if (bc) {
        const TNode x = node(a);
        if ((x.op == TOp::kXor || x.op == TOp::kOr || x.op == TOp::kAnd) && !IsConst(TRef{x.a}) &&
            !IsConst(TRef{x.b}))
          return Make(x.op, Make(TOp::kAnd, TRef{x.a}, b), Make(TOp::kAnd, TRef{x.b}, b));
      }
      break;
    case TOp::kOr:
      if (bc && k == 0) return a;
      if (bc && k == 0xffffffffu) return b;
      if (a == b) return a;
      break;
    case TOp::kXor:
      if (bc && k == 0) return a;
      if (a == b) return Const(0);
      break;
    case TOp::kShl:
    case TOp::kLShr:
      if (bc && k == 0) return a;
      if (IsConst(a) && ConstValue(a) == 0) return a;
      break;
    case TOp::kAShr:
      if (bc && k == 0) return a;
      if (IsConst(a) && (ConstValue(a) == 0 || ConstValue(a) == 0xffffffffu)) return a;
      break;
    case TOp::kUlt:
      if (a == b) return Const(0);
      if (bc && k == 0) return Const(0);
      break;
    case TOp::kEq:
      if (a == b) return Const(1);
      break;
    default:
      break;
  }
  return Intern(op, 0, a.id, b.id, -1);
}

TRef TermPool::Subst(TRef t, int var, uint32_t value, std::unordered_map<int, int>* memo) {
  auto it = memo->find(t.id);
  if (it != memo->end()) return TRef{it->second};
  const TNode n = nodes_[t.id];
  TRef r = t;
  if (n.op == TOp::kVar) {
    if (static_cast<int>(n.c) == var) r = Const(value);
  } else if (n.op != TOp::kConst) {
    TRef a = Subst(TRef{n.a}, var, value, memo);
    TRef b = n.b >= 0 ? Subst(TRef{n.b}, var, value, memo) : TRef{};
    TRef s = n.s >= 0 ? Subst(TRef{n.s}, var, value, memo) : TRef{};
    if (a.id != n.a || b.id != n.b || s.id != n.s) r = Make(n.op, a, b, s);
  }
  (*memo)[t.id] = r.id;
  return r;
}

TRef TermPool::SubstTerms(TRef t, const std::unordered_map<int, TRef>& values, std::unordered_map<int, int>* memo) {
  auto it = memo->find(t.id);
  if (it != memo->end()) return TRef{it->second};
  const TNode n = nodes_[t.id];
  TRef r = t;
  if (n.op == TOp::kVar) {
    auto v = values.find(static_cast<int>(n.c));
    if (v != values.end()) r = v->second;
  } else if (n.op != TOp::kConst) {
    TRef a = SubstTerms(TRef{n.a}, values, memo);
    TRef b = n.b >= 0 ? SubstTerms(TRef{n.b}, values, memo) : TRef{};
    TRef s = n.s >= 0 ? SubstTerms(TRef{n.s}, values, memo) : TRef{};
    if (a.id != n.a || b.id != n.b || s.id != n.s) r = Make(n.op, a, b, s);
  }
  (*memo)[t.id] = r.id;
  return r;
}

std::vector<int> TermPool::Closure(const std::vector<TRef>& roots) const {
  std::vector<int> stack, out;
  std::vector<char> seen;
  for (TRef r : roots)
    if (r.valid()) stack.push_back(r.id);
  std::unordered_map<int, bool> mark;
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (mark.count(id)) continue;
    mark[id] = true;
    out.push_back(id);
    const TNode& n = nodes_[id];
    for (int ch : {n.a, n.b, n.s})
      if (ch >= 0 && !mark.count(ch)) stack.push_back(ch);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void TermPool::EvalNodes(const std::vector<int>& order, const std::vector<uint32_t>& vars,
                         std::vector<uint32_t>* out) const {
  if (out->size() < nodes_.size()) out->resize(nodes_.size());
  std::vector<uint32_t>& v = *out;
  for (int id : order) {
    const TNode& n = nodes_[id];
    switch (n.op) {
      case TOp::kConst: v[id] = n.c; break;
      case TOp::kVar: v[id] = n.c < vars.size() ? vars[n.c] : 0; break;
      case TOp::kSelect: v[id] = v[n.a] ? v[n.b] : v[n.s]; break;
      default: v[id] = Apply(n.op, v[n.a], v[n.b], 0); break;
    }
  }
}

uint32_t TermPool::Eval(TRef t, const std::vector<uint32_t>& vars) const {
  std::vector<uint32_t> out;
  EvalNodes(Closure({t}), vars, &out);
  return out[t.id];
}

std::vector<int> TermPool::VarsOf(TRef t) const {
  std::vector<int> r;
  for (int id : Closure({t}))
    if (nodes_[id].op == TOp::kVar) r.push_back(static_cast<int>(nodes_[id].c));
  return r;
}

std::string TermPool::ToString(TRef t, int depth) const {
  const TNode& n = nodes_[t.id];
  if (n.op == TOp::kConst) return n.c < 4096 ? absl::StrCat(n.c) : absl::StrCat("0x", absl::Hex(n.c));
  if (n.op == TOp::kVar) return vars_[n.c].name;
  if (depth <= 0) return "...";
  if (n.op == TOp::kSelect)
    return absl::StrCat("(", ToString(TRef{n.a}, depth - 1), " ? ", ToString(TRef{n.b}, depth - 1), " : ",
                        ToString(TRef{n.s}, depth - 1), ")");
  return absl::StrCat("(", ToString(TRef{n.a}, depth - 1), OpText(n.op), ToString(TRef{n.b}, depth - 1), ")");
}

}  // namespace kir::vfy
