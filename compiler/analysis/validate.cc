#include "compiler/analysis/validate.h"

#include "compiler/ir/op_text.h"

#include <cctype>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/float_bits.h"
#include "compiler/ir/index_expr.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/types.h"
#include "compiler/analysis/index_analysis.h"
#include "compiler/analysis/gemm_config.h"

namespace kir {
namespace {

constexpr int64_t kSat = int64_t{1} << 62;  // as index_analysis.cc
constexpr int64_t k2G = int64_t{1} << 31;

// What a refusal says of a range the interval analysis found: the analysis
// bounds each term of an index on its own, so unless the form's range is
// exact (AffineForm::RangeIsExact) lo..hi is a bound, not values the index
// takes (fresh-user review 7 F7).
constexpr char kIntervalGives[] = "the interval analysis, which bounds each term on its own, gives ";

// What "a narrower type" means for a vector `vt` of `eb`-byte elements
// whose offset is `have`-byte aligned: pieces of the widest width that
// alignment allows, and, where that is below the width a slice of the type
// may start at (fp8: multiples of 4 elements; 16-bit: even ones), how to get
// them (fresh-user review 23 F2: an f8e5m2x4 store at a 1-byte aligned
// offset was told to narrow, and both its fp8 slices and an x2 cvt were
// refused). Empty for 4-byte elements.
std::string NarrowerPieces(const ValueType& vt, int64_t eb, int64_t have) {
  if (eb >= 4 || have <= 0) return "";
  int64_t w = 1;
  while (2 * w <= vt.width && 2 * w * eb <= have) w *= 2;
  const int64_t slice_unit = eb == 1 ? 4 : 2;
  if (w >= slice_unit)
    return absl::StrCat(" (pieces of ", w, " elements: slice it)");
  return absl::StrCat(" (pieces of ", w, " element", w == 1 ? "" : "s", ": ", eb == 1 ? "an fp8" : "a 16-bit",
                      " vector slices only at multiples of ", slice_unit,
                      " elements, so slice the wider value it is converted from, such as its f32 source, into pieces of ",
                      w, " and cvt each to ", std::string(ElemTypeName(vt.elem)), w == 1 ? "" : absl::StrCat("x", w),
                      ")");
}

// "index 0 takes values lo..hi, outside WANT" or, when the range is only a
// bound, "cannot prove index 0 WANT (the interval analysis ... gives lo..hi)";
// `want` is e.g. "in 0..63 of A".
std::string IndexRangeClaim(const std::string& what, const AffineForm& f, int64_t lo, int64_t hi,
                            const std::string& want) {
  if (f.RangeIsExact()) {
    std::string outside = absl::StartsWith(want, "in ") ? want.substr(3) : want;
    if (absl::StartsWith(outside, "within ")) outside = outside.substr(7);
    return absl::StrCat(what, " takes values ", lo, "..", hi, ", outside ", outside);
  }
  return absl::StrCat("cannot prove ", what, " ", want, " (", kIntervalGives, lo, "..", hi, ")");
}

int64_t Sat(__int128 v) {
  if (v > kSat) return kSat;
  if (v < -kSat) return -kSat;
  return static_cast<int64_t>(v);
}
int64_t SatAdd(int64_t a, int64_t b) { return Sat(static_cast<__int128>(a) + b); }
int64_t SatMul(int64_t a, int64_t b) { return Sat(static_cast<__int128>(a) * b); }


bool IsFloat(ElemType e) { return e != ElemType::kI32; }

std::string TypeName(ValueType t) { return ValueTypeName(t); }
std::string ElemName(ElemType e) { return std::string(ElemTypeName(e)); }

// Structure of an index tree: non-null operands, known kinds, dims 0..2,
// bounded depth and size. Empty string if fine.
std::string IndexProblem(const IndexRef& e) { return IndexTreeProblem(e); }

std::string OperandText(const Operand& o) { return o.is_arg ? o.name : "%" + o.name; }

const char* OpName(OpKind k) {
  switch (k) {
    case OpKind::kLoad:
      return "load";
    case OpKind::kStore:
      return "store";
    case OpKind::kLdsDma:
      return "lds_dma";
    case OpKind::kBarrier:
      return "barrier";
    case OpKind::kMfma:
      return "mfma";
    case OpKind::kConst:
      return "const";
    case OpKind::kZero:
      return "zero";
    case OpKind::kAdd:
      return "add";
    case OpKind::kMul:
      return "mul";
    case OpKind::kFma:
      return "fma";
    case OpKind::kCvt:
      return "cvt";
    case OpKind::kSlice:
      return "slice";
    case OpKind::kConcat:
      return "concat";
    case OpKind::kFor:
      return "for";
    case OpKind::kYield:
      return "yield";
    case OpKind::kGemm:
      return "gemm";
  }
  return "?";
}


// KIR names: [A-Za-z_][A-Za-z0-9_]*, at most 255 characters. They become
// assembly symbols and metadata strings, so nothing else may pass.
bool IsIdentifier(const std::string& n) {
  if (n.empty() || n.size() > 255) return false;
  if (!(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string DimName(int d) { return std::string(1, "xyz"[d]); }

std::string Bracketed(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// A buffer the kernel may store to (writeonly, readwrite) must not alias: no
// two in-shape index tuples may address one element, or threads that write
// different indices race on one address. The rule (sufficient): take the
// dimensions of extent > 1 in increasing stride order; each stride must
// exceed the largest offset the dimensions before it reach,
//   s_i > sum_{j < i} s_j * (e_j - 1).
// It is exact (it rejects only layouts that do alias) whenever each of those
// strides divides the next (row-major, column-major, padded rows, any
// permutation of those, stride-0 broadcasts, overlapping rows); it rejects
// some exotic interleaved layouts that happen to be injective. Read-only
// buffers may alias (a broadcast is a legitimate read). "" if the layout
// passes, else the message.
std::string AliasProblem(const Arg& a) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < a.shape.size(); ++d)
    if (a.shape[d] > 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(),
                   [&](size_t x, size_t y) { return a.strides[x] < a.strides[y]; });
  int64_t span = 0;  // the largest offset of the dimensions so far
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = dims[i];
    const int64_t s = a.strides[d];
    if (s > span) {
      span = SatAdd(span, SatMul(s, a.shape[d] - 1));
      continue;
    }
    // Two indices with the same offset: index 1 along d against the smaller
    // dimensions' indices that add up to s (greedy, largest stride first;
    // it finds them when the strides divide each other).
    std::vector<int64_t> one(a.shape.size(), 0), other(a.shape.size(), 0);
    one[d] = 1;
    int64_t rem = s;
    for (size_t j = i; j-- > 0;) {
      const size_t dj = dims[j];
      if (a.strides[dj] == 0) continue;
      other[dj] = std::min(a.shape[dj] - 1, rem / a.strides[dj]);
      rem -= other[dj] * a.strides[dj];
    }
    // Dense row-major strides for the shape, as the usual fix.
    std::vector<int64_t> dense(a.shape.size(), 1);
    for (size_t k = a.shape.size() - 1; k-- > 0;) dense[k] = SatMul(dense[k + 1], a.shape[k + 1]);
    std::string what =
        rem == 0
            ? absl::StrCat("different indices address the same element (", a.name,
                           Bracketed(one), " and ", a.name, Bracketed(other), " are both element ",
                           s, ")")
            : absl::StrCat("kirc cannot show that different indices address different elements "
                           "(dimension ", d, "'s stride ", s, " is not larger than ", span,
                           ", the largest offset of the dimensions with smaller strides)");
    return absl::StrCat(
        a.name, " is ", AccessName(a.access), " but with strides ", Bracketed(a.strides),
        " for shape ", Bracketed(a.shape), " ", what,
        "; a buffer the kernel may store to must not alias, since threads writing different "
        "indices would race on one address. Give each dimension a stride larger than the span "
        "of the dimensions with smaller strides (e.g. strides ", Bracketed(dense),
        "), or declare the buffer readonly if the kernel only reads it (a read-only buffer may "
        "alias, e.g. a stride-0 broadcast)");
  }
  return "";
}

class Validator {
 public:
  Validator(const Kernel& k, const TargetInfo& t, absl::string_view filename, GemmConfig* gemm_out)
      : k_(k), t_(t), filename_(filename), gemm_out_(gemm_out) {
    iscope_.kernel = &k_;
  }

  absl::Status Run();

 private:
  struct Value {
    ValueType type;
    bool ivar = false;
  };
  using Scope = std::map<std::string, Value>;

  absl::Status Err(const SourceLoc& loc, const std::string& what_text, const std::string& msg) const {
    std::string where;
    if (loc.line > 0) {
      if (!filename_.empty()) where = absl::StrCat(filename_, ":");
      absl::StrAppend(&where, loc.line, ":", loc.col, ": ");
    }
    return absl::InvalidArgumentError(
        absl::StrCat(where, "error: in '", what_text, "': ", msg));
  }
  absl::Status OpErr(const Op& op, const std::string& msg) const {
    return Err(op.loc, OpText(op), msg);
  }
  absl::Status KernelErr(const std::string& msg) const { return Err(k_.loc, "kernel", msg); }
  absl::Status WorkgroupErr(const std::string& msg) const {
    return Err(k_.workgroup_loc.line > 0 ? k_.workgroup_loc : k_.loc, "workgroup", msg);
  }
  absl::Status GridErr(const std::string& msg) const {
    return Err(k_.grid_loc.line > 0 ? k_.grid_loc : k_.loc, "grid", msg);
  }

  absl::Status CheckKernelHeader();
  absl::Status CheckDecls();
  absl::Status CheckArg(const Arg& a);
  absl::Status CheckLds(const LdsAlloc& l);

  absl::Status WalkBody(const std::vector<Op>& body, const Op* loop,
                        const std::vector<ValueType>& iter_types);
  absl::Status CheckOp(const Op& op);
  absl::Status CheckArity(const Op& op);
  absl::Status CheckFor(const Op& op);
  absl::Status CheckYield(const Op& op, const Op& loop, const std::vector<ValueType>& iter_types);
  absl::Status CheckAccess(const Op& op, ValueType vt, bool is_store);
  absl::Status CheckMfma(const Op& op);
  absl::Status CheckLdsDma(const Op& op);
  absl::Status CheckLoadTr(const Op& op);
  absl::Status CheckElementwise(const Op& op);
  absl::Status CheckCvt(const Op& op);
  absl::Status CheckSlice(const Op& op);
  absl::Status CheckConcat(const Op& op);
  absl::Status CheckConst(const Op& op);
  absl::Status CheckGemm(const Op& op);
  // `workgroup auto` / `grid auto` (all extents 0): only for a single gemm op.
  bool IsGemmKernel() const {
    return k_.body.size() == 1 && k_.body[0].kind == OpKind::kGemm;
  }
  absl::Status CheckType(const Op& op, ValueType vt);
  // "f8e5m2 is not available on gfx942, which has ..." for an fp8 type `e`
  // the target lacks.
  std::string Fp8TargetProblem(ElemType e) const;
  // Refuses `op` (arithmetic, zero/const, loop-carried) if any of `types` is fp8.
  absl::Status CheckNotFp8Arith(const Op& op, const std::vector<ValueType>& types) const;

  const Value* Lookup(const std::string& name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto it = s->find(name);
      if (it != s->end()) return &it->second;
    }
    return nullptr;
  }
  absl::StatusOr<ValueType> Use(const Op& op, const Operand& o, bool allow_arg);
  absl::Status CanDefine(const Op& op, const std::string& name) const {
    if (name.empty()) return OpErr(op, "a defined name is empty; give it a name");
    if (!IsIdentifier(name))
      return OpErr(op, absl::StrCat("'%", absl::CHexEscape(name), "' is not a valid value name "
                                    "([A-Za-z_][A-Za-z0-9_]* after the '%')"));
    if (Lookup(name) != nullptr)
      return OpErr(op, absl::StrCat("%", name, " is defined twice; rename one of the definitions"));
    return absl::OkStatus();
  }
  absl::Status Define(const Op& op, const std::string& name, ValueType t, bool ivar = false) {
    absl::Status s = CanDefine(op, name);
    if (!s.ok()) return s;
    scopes_.back()[name] = Value{t, ivar};
    return absl::OkStatus();
  }

  const Kernel& k_;
  const TargetInfo& t_;
  std::string filename_;
  GemmConfig* gemm_out_ = nullptr;
  std::vector<Scope> scopes_;
  std::set<std::string> hidden_;  // defined in a loop body that has ended
  IndexScope iscope_;
  std::map<std::string, int64_t> lds_offset_;
  int loop_depth_ = 0;
  // The `for` ops enclosing the op being checked, outermost first (CheckFor).
  std::vector<const Op*> loops_;
};

absl::Status Validator::Run() {
  absl::Status s = CheckKernelHeader();
  if (!s.ok()) return s;
  s = CheckDecls();
  if (!s.ok()) return s;
  if (k_.body.empty())
    return KernelErr("the kernel body is empty; add the ops the kernel should run");
  scopes_.emplace_back();
  return WalkBody(k_.body, nullptr, {});
}

absl::Status Validator::CheckKernelHeader() {
  if (k_.name.empty()) return KernelErr("the kernel has no name; write `kernel NAME`");
  if (!IsIdentifier(k_.name))
    return KernelErr(absl::StrCat("the kernel name '", absl::CHexEscape(k_.name),
                                  "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 255 "
                                  "characters); it becomes an assembly symbol"));
  const auto& wg = k_.workgroup;
  const bool wg_auto = wg[0] == 0 && wg[1] == 0 && wg[2] == 0;
  const bool grid_auto = k_.grid[0] == 0 && k_.grid[1] == 0 && k_.grid[2] == 0;
  if ((wg_auto || grid_auto) && !IsGemmKernel()) {
    std::string what = wg_auto ? "workgroup auto" : "grid auto";
    std::string msg = absl::StrCat(
        "`", what, "` is only allowed in a kernel whose body is a single gemm op (its promotion "
        "chooses the extents); give the extents, e.g. `",
        wg_auto ? "workgroup 256 1 1" : "grid 4 4 1", "`");
    return wg_auto ? WorkgroupErr(msg) : GridErr(msg);
  }
  if (wg_auto || grid_auto) return absl::OkStatus();  // CheckGemm checks the rest
  for (int d = 0; d < 3; ++d)
    if (wg[d] < 1)
      return WorkgroupErr(absl::StrCat("workgroup extent ", DimName(d), " is ", wg[d],
                                    "; every extent must be at least 1"));
  for (int d = 0; d < 3; ++d)
    if (wg[d] > 1024)
      return WorkgroupErr(absl::StrCat("workgroup extent ", DimName(d), " is ", wg[d],
                                    "; a workgroup has at most 1024 threads"));
  int64_t threads = wg[0] * wg[1] * wg[2];  // each <= 1024: no overflow
  std::string shape = absl::StrCat(wg[0], "x", wg[1], "x", wg[2]);
  if (threads > 1024)
    return WorkgroupErr(absl::StrCat("workgroup ", shape, " has ", threads,
                                  " threads; a workgroup has at most 1024"));
  if (threads % 64 != 0)
    return WorkgroupErr(absl::StrCat("workgroup ", shape, " has ", threads,
                                  " threads, not a multiple of 64; kirc runs whole wave64s "
                                  "(MFMA is wave-collective), so use a multiple of 64 threads"));
  for (int d = 0; d < 3; ++d) {
    if (k_.grid[d] < 1)
      return GridErr(absl::StrCat("grid extent ", DimName(d), " is ", k_.grid[d],
                                    "; every extent must be at least 1"));
    if (k_.grid[d] >= k2G)
      return GridErr(absl::StrCat("grid extent ", DimName(d), " is ", k_.grid[d],
                                    "; it must be less than 2^31"));
    // The dispatch packet's grid size (threads) is 32 bits per dimension.
    if (k_.grid[d] * wg[d] >= (int64_t{1} << 32))
      return GridErr(absl::StrCat("grid extent ", DimName(d), " times the workgroup's (",
                                  k_.grid[d], " x ", wg[d], ") is 2^32 threads or more; the "
                                  "dispatch's grid size is 32 bits per dimension"));
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckDecls() {
  struct Decl {
    int kind;  // 0 const, 1 arg, 2 lds
    size_t i;
    SourceLoc loc;
    std::string name;
  };
  std::vector<Decl> decls;
  bool all_located = true;
  for (size_t i = 0; i < k_.consts.size(); ++i)
    decls.push_back({0, i, k_.consts[i].loc, k_.consts[i].name});
  for (size_t i = 0; i < k_.args.size(); ++i)
    decls.push_back({1, i, k_.args[i].loc, k_.args[i].name});
  for (size_t i = 0; i < k_.lds.size(); ++i)
    decls.push_back({2, i, k_.lds[i].loc, k_.lds[i].name});
  for (const Decl& d : decls) all_located = all_located && d.loc.line > 0;
  if (all_located)
    std::stable_sort(decls.begin(), decls.end(), [](const Decl& a, const Decl& b) {
      return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
    });
  static const char* const kKind[] = {"const", "arg", "lds"};
  std::map<std::string, const Decl*> seen;
  for (const Decl& d : decls) {
    std::string text = absl::StrCat(kKind[d.kind], d.name.empty() ? "" : " ", d.name);
    if (d.name.empty()) return Err(d.loc, text, "the declaration has no name; give it one");
    if (!IsIdentifier(d.name))
      return Err(d.loc, absl::StrCat(kKind[d.kind], " ", absl::CHexEscape(d.name)),
                 "the name is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 255 "
                 "characters); it becomes a metadata string and an index name");
    auto [it, fresh] = seen.emplace(d.name, &d);
    if (!fresh) {
      const Decl& first = *it->second;
      std::string at = first.loc.line > 0 ? absl::StrCat(", line ", first.loc.line) : "";
      return Err(d.loc, text,
                 absl::StrCat("'", d.name, "' is already declared (", kKind[first.kind], " ",
                              first.name, at,
                              "); consts, args and LDS allocations share one namespace, so "
                              "rename one of them"));
    }
    absl::Status s = absl::OkStatus();
    if (d.kind == 1) s = CheckArg(k_.args[d.i]);
    if (d.kind == 2) s = CheckLds(k_.lds[d.i]);
    if (!s.ok()) return s;
  }
  // The LDS layout the lowering uses (kir::LayoutLds).
  LdsLayout layout = LayoutLds(k_);
  int64_t total = layout.total;
  const LdsAlloc* over = nullptr;
  for (size_t i = 0; i < k_.lds.size(); ++i) {
    const LdsAlloc& l = k_.lds[i];
    lds_offset_[l.name] = layout.offsets[i];
    if (over == nullptr && SatAdd(layout.offsets[i], l.SizeBytes()) > t_.lds_bytes) over = &l;
  }
  if (over != nullptr)
    return Err(over->loc, "lds " + over->name,
               absl::StrCat("the LDS allocations need ", total,
                            " bytes (each aligned to 16 bytes), more than the ", t_.lds_bytes,
                            " bytes a workgroup has on ", t_.name,
                            "; make the allocations or their padding smaller"));
  return absl::OkStatus();
}

absl::Status Validator::CheckArg(const Arg& a) {
  std::string text = "arg " + a.name;
  if (!IsValidElemType(a.elem))
    return Err(a.loc, text, absl::StrCat("unknown element type ", static_cast<int>(a.elem)));
  if (!TargetHasElemType(t_, a.elem)) return Err(a.loc, text, Fp8TargetProblem(a.elem));
  if (a.kind == Arg::Kind::kScalar) {
    if (a.elem != ElemType::kI32 && a.elem != ElemType::kF32)
      return Err(a.loc, text,
                 absl::StrCat("scalar arguments must be i32 or f32, found ", ElemName(a.elem),
                              "; pass an f32 and convert it with cvt"));
    return absl::OkStatus();
  }
  if (a.kind != Arg::Kind::kBuffer)
    return Err(a.loc, text, absl::StrCat("unknown argument kind ", static_cast<int>(a.kind)));
  if (a.shape.empty())
    return Err(a.loc, text, "a buffer needs at least one dimension, e.g. f32[256] strides [1]");
  if (a.strides.size() != a.shape.size())
    return Err(a.loc, text,
               absl::StrCat("the buffer has ", a.shape.size(), " dimension(s) but ",
                            a.strides.size(), " stride(s); give one stride per dimension"));
  for (size_t d = 0; d < a.shape.size(); ++d) {
    if (a.shape[d] < 1)
      return Err(a.loc, text,
                 absl::StrCat("dimension ", d, " has extent ", a.shape[d], "; extents must be at least 1"));
    if (a.strides[d] < 0)
      return Err(a.loc, text,
                 absl::StrCat("stride ", d, " is ", a.strides[d], "; strides must not be negative"));
  }
  int64_t bytes = a.SizeBytes();
  if (bytes > kMaxBufferBytes)
    return Err(a.loc, text,
               absl::StrCat("the buffer spans ", bytes, " bytes, more than the ", kMaxBufferBytes,
                            " (2^47, 128 TiB) kirc supports; split it into several buffers"));
  if (a.access != Access::kReadOnly) {
    std::string alias = AliasProblem(a);
    if (!alias.empty()) return Err(a.loc, text, alias);
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckLds(const LdsAlloc& l) {
  std::string text = "lds " + l.name;
  if (!IsValidElemType(l.elem))
    return Err(l.loc, text, absl::StrCat("unknown element type ", static_cast<int>(l.elem)));
  if (!TargetHasElemType(t_, l.elem)) return Err(l.loc, text, Fp8TargetProblem(l.elem));
  if (l.shape.empty())
    return Err(l.loc, text, "an LDS allocation needs at least one dimension, e.g. f16[16, 16]");
  for (size_t d = 0; d < l.shape.size(); ++d)
    if (l.shape[d] < 1)
      return Err(l.loc, text,
                 absl::StrCat("dimension ", d, " has extent ", l.shape[d], "; extents must be at least 1"));
  if (l.pad < 0)
    return Err(l.loc, text, absl::StrCat("pad is ", l.pad, "; it must not be negative"));
  return absl::OkStatus();
}

absl::StatusOr<ValueType> Validator::Use(const Op& op, const Operand& o, bool allow_arg) {
  if (o.is_arg) {
    if (!allow_arg)
      return OpErr(op, absl::StrCat("operand ", o.name, " must be an SSA value (%name); scalar "
                                    "arguments can only be used by add, mul and fma"));
    const Arg* a = k_.FindArg(o.name);
    if (a == nullptr)
      return OpErr(op, absl::StrCat("unknown scalar argument '", o.name, "'"));
    if (a->kind != Arg::Kind::kScalar)
      return OpErr(op, absl::StrCat("'", o.name, "' is a buffer, not a scalar argument; load "
                                    "from it first"));
    return ValueType{a->elem, 1};
  }
  const Value* v = Lookup(o.name);
  if (v == nullptr) {
    if (hidden_.count(o.name))
      return OpErr(op, absl::StrCat("%", o.name, " is defined inside a loop body and is not "
                                    "visible here; pass it out through yield and the loop's "
                                    "results"));
    return OpErr(op, absl::StrCat("use of undefined value %", o.name,
                                  "; define it before this op"));
  }
  if (v->ivar)
    return OpErr(op, absl::StrCat("%", o.name, " is a loop induction variable; it can only be "
                                  "used in index expressions"));
  return v->type;
}

absl::Status Validator::CheckType(const Op& op, ValueType vt) {
  if (!IsValidElemType(vt.elem))
    return OpErr(op, absl::StrCat("unknown element type ", static_cast<int>(vt.elem)));
  if (!IsLegalWidthFor(vt.elem, vt.width))
    return OpErr(op, absl::StrCat(TypeName(vt), " is not a KIR type: the width must be ",
                                  std::string(LegalWidthsText(vt.elem))));
  if (!TargetHasElemType(t_, vt.elem)) return OpErr(op, Fp8TargetProblem(vt.elem));
  return absl::OkStatus();
}

std::string Validator::Fp8TargetProblem(ElemType e) const {
  return absl::StrCat(ElemName(e), " is not available on ", t_.name, ", which has ",
                      Fp8ElemTypesText(t_), " (", Fp8FlavoursText(),
                      "); use a type the target has or another --mcpu");
}

// fp8 values are storage only: loads, stores, cvt to and from f32, slices,
// concat, and the A/B operands of the fp8 MFMAs.
absl::Status Validator::CheckNotFp8Arith(const Op& op, const std::vector<ValueType>& types) const {
  for (size_t i = 0; i < types.size(); ++i)
    if (IsFp8(types[i].elem))
      return OpErr(op, absl::StrCat("'", OpName(op.kind), "' does not take fp8 values (",
                                    i < op.operands.size() ? OperandText(op.operands[i]) : "result",
                                    " is ", TypeName(types[i]),
                                    "); fp8 values can only be loaded, stored, sliced, concatenated, "
                                    "converted and used as the A and B operands of an fp8 mfma: cvt them "
                                    "to f32, compute in f32 and cvt back"));
  return absl::OkStatus();
}

absl::Status Validator::CheckArity(const Op& op) {
  int results = -1, operands = -1;
  switch (op.kind) {
    case OpKind::kLoad:
      results = 1, operands = 0;
      break;
    case OpKind::kStore:
      results = 0, operands = 1;
      break;
    case OpKind::kLdsDma:
      results = 0, operands = 0;
      break;
    case OpKind::kBarrier:
      results = 0, operands = 0;
      break;
    case OpKind::kMfma:
    case OpKind::kFma:
      results = 1, operands = 3;
      break;
    case OpKind::kConst:
    case OpKind::kZero:
      results = 1, operands = 0;
      break;
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kConcat:
      results = 1, operands = 2;
      break;
    case OpKind::kCvt:
    case OpKind::kSlice:
      results = 1, operands = 1;
      break;
    case OpKind::kYield:
      results = 0;
      break;
    case OpKind::kGemm:
      results = 0, operands = 0;
      break;
    case OpKind::kFor:
      if (op.results.size() != op.iter_args.size())
        return OpErr(op, absl::StrCat("'for' defines ", op.results.size(), " result(s) but has ",
                                      op.iter_args.size(), " iter_arg(s)"));
      if (op.operands.size() != op.iter_args.size())
        return OpErr(op, absl::StrCat("'for' has ", op.iter_args.size(), " iter_arg(s) but ",
                                      op.operands.size(), " initial value(s)"));
      return absl::OkStatus();
    default:
      return OpErr(op, absl::StrCat("unknown op kind ", static_cast<int>(op.kind)));
  }
  const char* name = OpName(op.kind);
  if (results >= 0 && static_cast<int64_t>(op.results.size()) != results)
    return OpErr(op, results == 0 ? absl::StrCat("'", name, "' does not define a result")
                                  : absl::StrCat("'", name, "' defines exactly one result, found ",
                                                 op.results.size()));
  if (operands >= 0 && static_cast<int64_t>(op.operands.size()) != operands)
    return OpErr(op, absl::StrCat("'", name, "' takes ", operands, " operand(s), found ",
                                  op.operands.size()));
  return absl::OkStatus();
}

absl::Status Validator::WalkBody(const std::vector<Op>& body, const Op* loop,
                                 const std::vector<ValueType>& iter_types) {
  for (size_t i = 0; i < body.size(); ++i) {
    const Op& op = body[i];
    if (op.kind == OpKind::kYield) {
      if (loop == nullptr) return OpErr(op, "'yield' outside of a 'for' body");
      if (i + 1 != body.size())
        return OpErr(op, "'yield' must be the last op of a 'for' body");
      absl::Status s = CheckArity(op);
      if (!s.ok()) return s;
      s = CheckYield(op, *loop, iter_types);
      if (!s.ok()) return s;
      continue;
    }
    absl::Status s = CheckOp(op);
    if (!s.ok()) return s;
  }
  if (loop != nullptr && (body.empty() || body.back().kind != OpKind::kYield))
    return OpErr(*loop, "the loop body must end with 'yield' (one value per iter_arg)");
  return absl::OkStatus();
}

absl::Status Validator::CheckYield(const Op& op, const Op& loop,
                                   const std::vector<ValueType>& iter_types) {
  if (op.operands.size() != loop.iter_args.size())
    return OpErr(op, absl::StrCat("yield passes ", op.operands.size(),
                                  " value(s) but the loop has ", loop.iter_args.size(),
                                  " iter_arg(s)"));
  for (size_t i = 0; i < op.operands.size(); ++i) {
    absl::StatusOr<ValueType> t = Use(op, op.operands[i], false);
    if (!t.ok()) return t.status();
    if (!(*t == iter_types[i]))
      return OpErr(op, absl::StrCat("yield operand ", i, " (%", op.operands[i].name, ") is ",
                                    TypeName(*t), " but iter_arg %", loop.iter_args[i], " is ",
                                    TypeName(iter_types[i]),
                                    "; yield a value of the iter_arg's type"));
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckOp(const Op& op) {
  absl::Status s = CheckArity(op);
  if (!s.ok()) return s;
  switch (op.kind) {
    case OpKind::kLoad:
      s = CheckType(op, op.type);
      if (s.ok() && op.tr) s = CheckLoadTr(op);
      if (s.ok()) s = CheckAccess(op, op.type, false);
      if (s.ok()) s = Define(op, op.results[0], op.type);
      return s;
    case OpKind::kStore: {
      absl::StatusOr<ValueType> v = Use(op, op.operands[0], false);
      if (!v.ok()) return v.status();
      return CheckAccess(op, *v, true);
    }
    case OpKind::kLdsDma:
      return CheckLdsDma(op);
    case OpKind::kBarrier:
      return absl::OkStatus();
    case OpKind::kMfma:
      return CheckMfma(op);
    case OpKind::kConst:
      return CheckConst(op);
    case OpKind::kZero:
      s = CheckType(op, op.type);
      if (s.ok()) s = CheckNotFp8Arith(op, {op.type});
      if (s.ok()) s = Define(op, op.results[0], op.type);
      return s;
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kFma:
      return CheckElementwise(op);
    case OpKind::kCvt:
      return CheckCvt(op);
    case OpKind::kSlice:
      return CheckSlice(op);
    case OpKind::kConcat:
      return CheckConcat(op);
    case OpKind::kFor:
      return CheckFor(op);
    case OpKind::kGemm:
      return CheckGemm(op);
    case OpKind::kYield:
      break;
  }
  return OpErr(op, "unexpected op");
}

// A tile-level gemm: the kernel's only op, no LDS of its own, a configuration
// that promotion can realise (compiler/analysis/gemm_config.h), and a header
// that is `auto` or equal to what promotion chooses.
absl::Status Validator::CheckGemm(const Op& op) {
  if (!IsGemmKernel() || &k_.body[0] != &op)
    return OpErr(op, "a gemm op must be the kernel's only op (promotion turns the whole kernel "
                     "into the tiled GEMM); move the other work to a separate kernel");
  if (!k_.lds.empty())
    return OpErr(op, absl::StrCat("a gemm kernel must not declare LDS (promotion allocates the "
                                  "tiles); remove `lds ", k_.lds[0].name, "`"));
  absl::StatusOr<GemmConfig> c = ResolveGemm(k_, op, t_);
  if (!c.ok()) return OpErr(op, std::string(c.status().message()));
  if (gemm_out_ != nullptr) *gemm_out_ = *c;
  const std::array<int64_t, 3> wg{64, c->wm, c->wn};
  const std::array<int64_t, 3> grid{c->GridM(), c->GridN(), 1};
  const std::array<int64_t, 3> zero{0, 0, 0};
  if (k_.workgroup != zero && k_.workgroup != wg)
    return OpErr(op, absl::StrCat("the workgroup is ", k_.workgroup[0], " ", k_.workgroup[1], " ",
                                  k_.workgroup[2], " but this gemm (", c->TilingText(),
                                  ") runs on `workgroup ", wg[0], " ", wg[1], " ", wg[2],
                                  "`; write `workgroup auto`"));
  if (k_.grid != zero && k_.grid != grid)
    return OpErr(op, absl::StrCat("the grid is ", k_.grid[0], " ", k_.grid[1], " ", k_.grid[2],
                                  " but this gemm (", c->TilingText(), ") needs `grid ", grid[0],
                                  " ", grid[1], " ", grid[2], "`; write `grid auto`"));
  return absl::OkStatus();
}

absl::Status Validator::CheckFor(const Op& op) {
  if (loop_depth_ >= kMaxLoopNesting)
    return OpErr(op, absl::StrCat("loops are nested more than ", kMaxLoopNesting,
                                  " deep; flatten or split the loop nest"));
  if (op.step <= 0)
    return OpErr(op, absl::StrCat("the step must be positive, found ", op.step));
  if (op.lo >= op.hi)
    return OpErr(op, absl::StrCat("the loop runs zero times (", op.lo, " >= ", op.hi,
                                  "); empty loops are not allowed: remove it or fix the bounds"));
  __int128 last128 = op.lo + (static_cast<__int128>(op.hi) - 1 - op.lo) / op.step * op.step;
  int64_t last = static_cast<int64_t>(last128);  // lo <= last < hi
  if (op.lo < -k2G || last >= k2G)
    return OpErr(op, absl::StrCat("the induction variable takes values ", op.lo, "..", last,
                                  ", outside the 32-bit range; keep the bounds within "
                                  "[-2^31, 2^31)"));
  std::vector<ValueType> iter_types;
  for (const Operand& o : op.operands) {
    absl::StatusOr<ValueType> t = Use(op, o, false);
    if (!t.ok()) return t.status();
    // fp8 vectors of whole registers (4, 8, 16 or 32 elements) are carried
    // like any 32-bit registers (the gemm pipeline's pending tile loads);
    // narrower ones would share a register with other bytes.
    if (IsFp8(t->elem) && t->width % 4 != 0)
      return OpErr(op, absl::StrCat("loop-carried fp8 values must fill whole 32-bit registers "
                                    "(a width that is a multiple of 4; %", o.name, " is ",
                                    TypeName(*t), "); carry the f32 values and cvt after the "
                                    "loop, or load the fp8 values inside the body"));
    iter_types.push_back(*t);
  }
  // Names on the `for` line: results (defined after the loop), ivar, iter_args.
  std::set<std::string> line_names;
  for (const std::string& r : op.results) {
    absl::Status s = CanDefine(op, r);
    if (!s.ok()) return s;
    if (!line_names.insert(r).second)
      return OpErr(op, absl::StrCat("%", r, " is defined twice; rename one of the definitions"));
  }
  absl::Status s = CanDefine(op, op.ivar);
  if (!s.ok()) return s;
  for (const std::string& a : op.iter_args) {
    s = CanDefine(op, a);
    if (!s.ok()) return s;
    if (a == op.ivar || std::count(op.iter_args.begin(), op.iter_args.end(), a) > 1)
      return OpErr(op, absl::StrCat("%", a, " is defined twice; rename one of the definitions"));
  }
  scopes_.emplace_back();
  scopes_.back()[op.ivar] = Value{ValueType{ElemType::kI32, 1}, true};
  for (size_t i = 0; i < op.iter_args.size(); ++i) scopes_.back()[op.iter_args[i]] = Value{iter_types[i]};
  iscope_.loops[op.ivar] = IndexScope::Loop{op.lo, last, op.step};
  ++loop_depth_;
  loops_.push_back(&op);
  s = WalkBody(op.body, &op, iter_types);
  loops_.pop_back();
  --loop_depth_;
  iscope_.loops.erase(op.ivar);
  for (const auto& [name, v] : scopes_.back()) hidden_.insert(name);
  scopes_.pop_back();
  if (!s.ok()) return s;
  for (size_t i = 0; i < op.results.size(); ++i) {
    s = Define(op, op.results[i], iter_types[i]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckAccess(const Op& op, ValueType vt, bool is_store) {
  const Arg* arg = k_.FindArg(op.mem);
  const LdsAlloc* lds = k_.FindLds(op.mem);
  if (arg != nullptr && arg->kind != Arg::Kind::kBuffer)
    return OpErr(op, absl::StrCat("'", op.mem, "' is a scalar argument, not a buffer or an LDS "
                                  "allocation"));
  if (arg == nullptr && lds == nullptr)
    return OpErr(op, absl::StrCat("unknown buffer or LDS allocation '", op.mem, "'"));
  ElemType elem = arg != nullptr ? arg->elem : lds->elem;
  const std::vector<int64_t>& shape = arg != nullptr ? arg->shape : lds->shape;
  std::vector<int64_t> strides = arg != nullptr ? arg->strides : lds->Strides();
  int64_t size = arg != nullptr ? arg->SizeBytes() : lds->SizeBytes();
  int64_t base = arg != nullptr ? 0 : lds_offset_[op.mem];
  int rank = static_cast<int>(shape.size());
  const char* verb = is_store ? "store" : "load";
  if (static_cast<int64_t>(op.index.size()) != rank)
    return OpErr(op, absl::StrCat(op.mem, " has ", rank, " dimension(s) but the ", verb, " has ",
                                  op.index.size(), " index(es); give one index per dimension"));
  if (op.along < 0 || op.along >= rank)
    return OpErr(op, absl::StrCat("along ", op.along, " is not a dimension of ", op.mem,
                                  " (dimensions 0..", rank - 1, ")"));
  if (arg != nullptr && is_store && arg->access == Access::kReadOnly)
    return OpErr(op, absl::StrCat(op.mem, " is readonly; storing to it is not allowed (declare "
                                  "it writeonly or readwrite)"));
  if (arg != nullptr && !is_store && arg->access == Access::kWriteOnly)
    return OpErr(op, absl::StrCat(op.mem, " is writeonly; loading from it is not allowed "
                                  "(declare it readonly or readwrite)"));
  if (vt.elem != elem) {
    ValueType want{elem, vt.width};
    if (is_store)
      return OpErr(op, absl::StrCat(op.mem, " holds ", ElemName(elem), " but %",
                                    op.operands[0].name, " is ", TypeName(vt),
                                    elem == ElemType::kI32 || vt.elem == ElemType::kI32
                                        ? "; store a value of the buffer's element type"
                                        : absl::StrCat("; convert it to ", TypeName(want),
                                                       " with cvt first")));
    return OpErr(op, absl::StrCat(op.mem, " holds ", ElemName(elem), " but the load produces ",
                                  TypeName(vt), "; load ", TypeName(want),
                                  elem == ElemType::kI32 || vt.elem == ElemType::kI32
                                      ? ""
                                      : " and convert it with cvt"));
  }
  if (!IsLegalWidthFor(vt.elem, vt.width))  // a stored value's type is checked where it is defined
    return OpErr(op, absl::StrCat(TypeName(vt), " is not a KIR type: the width must be ",
                                  std::string(LegalWidthsText(vt.elem))));
  int64_t eb = ElemBytes(elem);
  std::vector<AffineForm> idx;
  for (int d = 0; d < rank; ++d) {
    if (op.index[d] == nullptr)
      return OpErr(op, absl::StrCat("index ", d, " is missing (a null expression)"));
    std::string p = IndexProblem(op.index[d]);
    if (!p.empty()) return OpErr(op, absl::StrCat("index ", d, ": ", p));
    absl::StatusOr<AffineForm> f = Affine(*op.index[d], iscope_);
    if (!f.ok()) return OpErr(op, std::string(f.status().message()));
    idx.push_back(*std::move(f));
  }
  // Byte offset within the memory, and from the start of LDS (for alignment).
  AffineForm b = AffineConst(0);
  for (int d = 0; d < rank; ++d) b = AffineAdd(b, AffineScale(idx[d], SatMul(strides[d], eb)));
  AffineForm abs = AffineAdd(b, AffineConst(base));
  int64_t need = RequiredAccessAlignment(strides[op.along] == 1, eb, vt.width);
  int64_t have = abs.KnownAlignment();
  // load_tr and lds_dma have one width each (f16x4/bf16x4; 16 bytes) and no
  // `guarded` form: their refusals say what to change instead.
  const char* fixed_width_op = op.tr ? "load_tr" : op.kind == OpKind::kLdsDma ? "lds_dma" : nullptr;
  if (have % need != 0) {
    return OpErr(op, absl::StrCat(
                         "the ", TypeName(vt), " ", fixed_width_op != nullptr ? fixed_width_op : verb, " needs ", need,
                         "-byte alignment but its byte offset is only provably ", have,
                         "-byte aligned; make the index along dimension ", op.along,
                         " a multiple of ", need / eb,
                         " and the other dimensions' strides (or LDS padding) multiples of ",
                         need / eb, " elements",
                         fixed_width_op != nullptr
                             ? absl::StrCat(" (", fixed_width_op, " has no narrower form: every address must be ",
                                            need, "-byte aligned)")
                             : absl::StrCat(", or use a narrower type", NarrowerPieces(vt, eb, have))));
  }
  if (op.guarded) {
    for (int d = 0; d < rank; ++d) {
      Interval r = idx[d].Range();
      int64_t hi = d == op.along && vt.width > 1 ? SatAdd(r.hi, vt.width - 1) : r.hi;
      if (r.lo <= -k2G || hi >= k2G)
        return OpErr(op, absl::StrCat(IndexRangeClaim(absl::StrCat("index ", d), idx[d], r.lo, hi,
                                                      "within the 32-bit range"),
                                      "; even guarded accesses need "
                                      "|index| < 2^31 (reshape a long buffer into more dimensions, "
                                      "e.g. f16[N] as f16[N / 65536, 65536])"));
    }
    return absl::OkStatus();
  }
  std::string fix = fixed_width_op != nullptr
                        ? absl::StrCat("check the index, shrink the extent feeding it (a loop bound, the workgroup "
                                       "or the tile), or make ", op.mem, " bigger (", fixed_width_op,
                                       " has no `guarded` form)")
                        : absl::StrCat("use `", verb, " guarded` or fix the index");
  Interval r = b.Range();
  int64_t last_off = SatMul(vt.width - 1, SatMul(strides[op.along], eb));
  int64_t end = SatAdd(SatAdd(r.hi, last_off), eb);  // exclusive
  if (r.lo < 0)
    return OpErr(op, absl::StrCat(b.RangeIsExact()
                                      ? absl::StrCat("the byte offset can be negative (as low as ", r.lo, ")")
                                      : absl::StrCat("cannot prove the byte offset non-negative (", kIntervalGives,
                                                     "as low as ", r.lo, ")"),
                                  "; ", fix));
  // Every element's index inside the shape, dimension by dimension (an index
  // past one extent can still land inside the buffer, in another row).
  for (int d = 0; d < rank; ++d) {
    Interval ri = idx[d].Range();
    int64_t hi = d == op.along ? SatAdd(ri.hi, vt.width - 1) : ri.hi;
    if (ri.lo < 0 || hi >= shape[d])
      return OpErr(op, absl::StrCat(
                           IndexRangeClaim(absl::StrCat("index ", d,
                                                        d == op.along && vt.width > 1 ? " (with the vector's elements)" : ""),
                                           idx[d], ri.lo, hi, absl::StrCat("in 0..", shape[d] - 1, " of ", op.mem)),
                           "; ", fix));
  }
  if (end > size)
    return OpErr(op, absl::StrCat(b.RangeIsExact() ? absl::StrCat("can access outside ", op.mem, " (bytes ")
                                                   : absl::StrCat("cannot prove the access inside ", op.mem, " (",
                                                                  kIntervalGives, "bytes "),
                                  r.lo, "..", end - 1, " of ", size, "); ", fix));
  return absl::OkStatus();
}

// load_tr (Op::tr; gfx950's ds_read_b64_tr_b16): an unguarded read of a
// 16-bit x4 vector, contiguous, from an LDS allocation, in workgroups of
// whole waves: the lanes of each 16-lane group exchange their blocks, so all
// 64 lanes must be active (the ISA's EXEC-all-ones rule, semantics.h
// DsReadTrB16Source). CheckAccess then checks the 8-byte alignment and the
// bounds of each thread's own block.
absl::Status Validator::CheckLoadTr(const Op& op) {
  if (!t_.has_ds_read_tr_b16)
    return OpErr(op, absl::StrCat("load_tr (ds_read_b64_tr_b16, the transposing LDS read) does not exist on ",
                                  t_.name, "; it is gfx950 only: load the elements with plain loads instead, "
                                  "or use --mcpu=gfx950"));
  if (ElemBytes(op.type.elem) != 2 || op.type.width != 4)
    return OpErr(op, absl::StrCat("load_tr reads four 16-bit elements per thread (f16x4 or bf16x4), not ",
                                  TypeName(op.type)));
  if (op.guarded)
    return OpErr(op, "load_tr does not take `guarded`: the lanes exchange their blocks, so every lane must "
                     "read one (all 64 lanes active); keep the index in shape");
  const LdsAlloc* l = k_.FindLds(op.mem);
  if (l == nullptr)
    return OpErr(op, absl::StrCat("load_tr reads an LDS allocation, and '", op.mem,
                                  "' is not one; stage the data in LDS first"));
  if (op.along >= 0 && op.along < static_cast<int>(l->shape.size()) && l->Strides()[op.along] != 1)
    return OpErr(op, absl::StrCat("load_tr reads 4 contiguous elements, but dimension ", op.along, " of ", op.mem,
                                  " is not the contiguous one; load along the last dimension"));
  if (k_.WorkgroupThreads() % 64 != 0)
    return OpErr(op, absl::StrCat("load_tr needs whole waves (workgroup threads a multiple of 64, found ",
                                  k_.WorkgroupThreads(), "): all 64 lanes take part in the exchange"));
  return absl::OkStatus();
}

// Whether `e` reads tid.x other than as `tid.x floordiv c` with c a positive
// multiple of 64: with whole waves along x lane l of wave w has tid.x = 64 *
// w' + l for some w', so that quotient is the same in every lane of a wave
// (the lane check's quick path).
bool ReadsTidXPerLane(const IndexExpr& e) {
  if (e.kind == IndexKind::kTid) return e.dim == 0;
  if (e.kind == IndexKind::kFloorDiv && e.lhs != nullptr && e.lhs->kind == IndexKind::kTid && e.lhs->dim == 0 &&
      e.rhs != nullptr && e.rhs->kind == IndexKind::kConst && e.rhs->value > 0 && e.rhs->value % 64 == 0)
    return false;
  return (e.lhs != nullptr && ReadsTidXPerLane(*e.lhs)) || (e.rhs != nullptr && ReadsTidXPerLane(*e.rhs));
}

// Whether `e` reads tid.{dim} at all.
bool ReadsTid(const IndexExpr& e, int dim) {
  if (e.kind == IndexKind::kTid) return e.dim == dim;
  return (e.lhs != nullptr && ReadsTid(*e.lhs, dim)) || (e.rhs != nullptr && ReadsTid(*e.rhs, dim));
}

// Whether running `body` runs a barrier: one in it or in a loop in it (at
// any depth; a loop runs at least once, CheckFor, and KIR has no branches).
bool HasBarrier(const std::vector<Op>& body) {
  for (const Op& o : body)
    if (o.kind == OpKind::kBarrier || (o.kind == OpKind::kFor && HasBarrier(o.body))) return true;
  return false;
}

// The wg dimensions and the loop variables `e` reads.
void CollectLeaves(const IndexExpr& e, std::set<int>* wg, std::set<std::string>* loop_vars) {
  if (e.kind == IndexKind::kWg) wg->insert(e.dim);
  if (e.kind == IndexKind::kLoopVar) loop_vars->insert(e.name);
  if (e.lhs != nullptr) CollectLeaves(*e.lhs, wg, loop_vars);
  if (e.rhs != nullptr) CollectLeaves(*e.rhs, wg, loop_vars);
}

// `e` with tid.x, tid.y, tid.z replaced by the constants tid[0..2] and each
// loop variable named in `rename` by its new name (the other leaves kept).
IndexRef Substituted(const IndexRef& e, const int64_t tid[3], const std::map<std::string, std::string>& rename) {
  if (e == nullptr) return e;
  if (e->kind == IndexKind::kTid) return IConst(tid[e->dim]);
  if (e->kind == IndexKind::kLoopVar) {
    auto it = rename.find(e->name);
    return it == rename.end() ? e : ILoopVar(it->second);
  }
  if (e->lhs == nullptr && e->rhs == nullptr) return e;
  auto n = std::make_shared<IndexExpr>(*e);
  n->lhs = Substituted(e->lhs, tid, rename);
  n->rhs = Substituted(e->rhs, tid, rename);
  return n;
}

// "%k = 1, wg.x = 0" for `leaves` at `values` (EnumLeaf: index_analysis.h).
std::string LeafValues(const std::vector<EnumLeaf>& leaves, const std::vector<int64_t>& values) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < leaves.size(); ++i) parts.push_back(absl::StrCat(leaves[i].Name(), " = ", values[i]));
  return absl::StrJoin(parts, ", ");
}

// lds_dma (OpKind::kLdsDma; gfx950's buffer_load_dwordx4 ... lds): the
// global side is a 16-byte unguarded load; the LDS side a base that is the
// same in the 64 lanes of each wave (whole waves), each wave its own 1024
// bytes while the DMAs run, whose 64 lanes x 16 bytes lie inside the
// allocation, 16-byte aligned from the start of LDS.
absl::Status Validator::CheckLdsDma(const Op& op) {
  if (!t_.has_lds_dma_dwordx4)
    return OpErr(op, absl::StrCat("lds_dma (buffer_load_dwordx4 ... lds, the 16-byte LDS DMA) does not "
                                  "exist on ", t_.name, "; it is gfx950 only: load the vector and "
                                  "store it to LDS instead, or use --mcpu=gfx950"));
  absl::Status s = CheckType(op, op.type);
  if (!s.ok()) return s;
  if (ElemBytes(op.type.elem) * op.type.width != kLdsDmaLaneBytes)
    return OpErr(op, absl::StrCat("lds_dma copies 16 bytes per lane but ", TypeName(op.type), " is ",
                                  ElemBytes(op.type.elem) * op.type.width, " bytes; use a 16-byte type (",
                                  TypeName(ValueType{op.type.elem, static_cast<int>(16 / ElemBytes(op.type.elem))}),
                                  ")"));
  if (op.guarded)
    return OpErr(op, "lds_dma does not take `guarded` (a lane the guard turns off would leave its "
                     "16 LDS bytes unwritten); make the copy stay in shape, or load guarded and store");
  const Arg* arg = k_.FindArg(op.mem);
  if (arg == nullptr || arg->kind != Arg::Kind::kBuffer)
    return OpErr(op, absl::StrCat("lds_dma copies from a buffer argument, and '", op.mem, "' is not one"));
  s = CheckAccess(op, op.type, false);
  if (!s.ok()) return s;
  const LdsAlloc* l = k_.FindLds(op.lds);
  if (l == nullptr)
    return OpErr(op, absl::StrCat("unknown LDS allocation '", op.lds, "' (lds_dma writes an `lds` allocation)"));
  if (l->elem != op.type.elem)
    return OpErr(op, absl::StrCat(op.lds, " holds ", ElemName(l->elem), " but the copy is ", TypeName(op.type),
                                  "; copy into an allocation of the buffer's element type"));
  const int64_t threads = k_.WorkgroupThreads();  // whole waves: CheckKernelHeader
  const int rank = static_cast<int>(l->shape.size());
  if (static_cast<int>(op.lds_index.size()) != rank)
    return OpErr(op, absl::StrCat(op.lds, " has ", rank, " dimension(s) but the lds_dma base has ",
                                  op.lds_index.size(), " index(es); give one index per dimension"));
  const std::vector<int64_t> strides = l->Strides();
  const int64_t eb = ElemBytes(l->elem);
  AffineForm b = AffineConst(0);
  for (int d = 0; d < rank; ++d) {
    if (op.lds_index[d] == nullptr)
      return OpErr(op, absl::StrCat("LDS index ", d, " is missing (a null expression)"));
    std::string p = IndexProblem(op.lds_index[d]);
    if (!p.empty()) return OpErr(op, absl::StrCat("LDS index ", d, ": ", p));
    absl::StatusOr<AffineForm> f = Affine(*op.lds_index[d], iscope_);
    if (!f.ok()) return OpErr(op, std::string(f.status().message()));
    Interval r = f->Range();
    if (r.lo < 0 || r.hi >= l->shape[d])
      return OpErr(op, IndexRangeClaim(absl::StrCat("LDS index ", d), *f, r.lo, r.hi,
                                       absl::StrCat("in 0..", l->shape[d] - 1, " of ", op.lds)));
    b = AffineAdd(b, AffineScale(*f, SatMul(strides[d], eb)));
  }
  const std::array<int64_t, 3> wg = {k_.workgroup[0], k_.workgroup[1], k_.workgroup[2]};
  const int64_t waves = threads / 64;
  const int64_t wave_bytes = 64 * kLdsDmaLaneBytes;
  const std::string base_text = absl::StrCat(
      op.lds, "[",
      absl::StrJoin(op.lds_index, ", ", [](std::string* out, const IndexRef& e) { out->append(IndexToString(*e)); }),
      "]");
  // The base's byte offset in the allocation with tid fixed to `tid` and the
  // loop variables in `rename` renamed.
  auto byte_base = [&](const std::array<int64_t, 3>& tid, const std::map<std::string, std::string>& rename) {
    IndexRef e = IConst(0);
    for (int d = 0; d < rank; ++d)
      e = IAdd(e, IMul(Substituted(op.lds_index[d], tid.data(), rename), IConst(SatMul(strides[d], eb))));
    return e;
  };
  // The leaves the exhaustive checks try: wg ids and loop variables the base reads.
  std::set<int> wg_read;
  std::set<std::string> vars_read;
  for (const IndexRef& e : op.lds_index) CollectLeaves(*e, &wg_read, &vars_read);
  auto loop_leaf = [&](const Op& loop) {
    const IndexScope::Loop& r = iscope_.loops.at(loop.ivar);
    EnumLeaf f;
    f.name = loop.ivar;
    f.lo = r.lo;
    f.last = r.last;
    f.step = r.step;
    return f;
  };
  const std::vector<EnumLeaf> wg_leaves = WgLeaves(wg_read, k_.grid);
  // Evaluates the base's byte offset at `tid` with the wg ids and loop
  // variables of `leaves` at `values` (nullopt: overflow).
  auto eval_base = [&](const std::array<int64_t, 3>& tid, const std::vector<EnumLeaf>& leaves,
                       const std::vector<int64_t>& values) -> std::optional<int64_t> {
    IndexEnv env;
    std::map<std::string, int64_t> loop_values;
    for (int d = 0; d < 3; ++d) env.tid[d] = tid[d];
    for (size_t i = 0; i < leaves.size(); ++i)
      if (leaves[i].is_wg)
        env.wg[leaves[i].dim] = values[i];
      else
        loop_values[leaves[i].name] = values[i];
    env.named = [&](const std::string& n) -> std::optional<int64_t> {
      const NamedConst* c = k_.FindConst(n);
      return c == nullptr ? std::nullopt : std::optional<int64_t>(c->value);
    };
    env.loop_var = [&](const std::string& n) -> std::optional<int64_t> {
      auto it = loop_values.find(n);
      return it == loop_values.end() ? std::nullopt : std::optional<int64_t>(it->second);
    };
    std::optional<int64_t> v = 0;
    for (int d = 0; d < rank && v; ++d) {
      std::optional<int64_t> x = Evaluate(*op.lds_index[d], env);
      if (!x) return std::nullopt;
      v = *v + *x * strides[d] * eb;  // in range: the index checks above bound it
    }
    return v;
  };
  auto plural = [](const std::vector<EnumLeaf>& leaves) {
    std::vector<std::string> names;
    for (const EnumLeaf& f : leaves) names.push_back(f.Name());
    return absl::StrJoin(names, ", ");
  };
  // The wave's index, for the suggestions: tid.x floordiv 64 + waves_x *
  // tid.y + ... with whole waves along x, else the linear id floordiv 64.
  std::string wave_index;
  {
    std::vector<std::string> terms;
    if (wg[0] % 64 == 0) {
      const int64_t waves_x = wg[0] / 64;
      if (waves_x > 1) terms.push_back("tid.x floordiv 64");
      if (wg[1] > 1) terms.push_back(waves_x > 1 ? absl::StrCat(waves_x, " * tid.y") : "tid.y");
      if (wg[2] > 1)
        terms.push_back(waves_x * wg[1] > 1 ? absl::StrCat(waves_x * wg[1], " * tid.z") : "tid.z");
      wave_index = absl::StrJoin(terms, " + ");
    } else {
      terms.push_back("tid.x");
      if (wg[1] > 1) terms.push_back(absl::StrCat(wg[0], " * tid.y"));
      if (wg[2] > 1) terms.push_back(absl::StrCat(wg[0] * wg[1], " * tid.z"));
      wave_index = absl::StrCat("(", absl::StrJoin(terms, " + "), ") floordiv 64");
    }
  }
  // "L[tid.x floordiv 64 * 64, 0]": a base a wave's bytes apart per wave, in
  // L's own shape (the outermost dimension whose byte stride divides 1024),
  // with a note when L holds fewer than all the waves' bytes.
  auto suggestion = [&]() {
    int d = 0;
    while (d + 1 < rank && wave_bytes % SatMul(strides[d], eb) != 0) ++d;
    const int64_t sb = SatMul(strides[d], eb);
    std::vector<std::string> idx(rank, "0");
    const bool compound = absl::StrContains(wave_index, " + ");
    if (wave_bytes % sb == 0)
      idx[d] = wave_bytes / sb == 1 ? wave_index
                                     : absl::StrCat(compound ? "(" : "", wave_index, compound ? ")" : "", " * ",
                                                    wave_bytes / sb);
    std::string text = wave_bytes % sb == 0
                           ? absl::StrCat(op.lds, "[", absl::StrJoin(idx, ", "), "]")
                           : absl::StrCat("a base whose byte offset is (", wave_index, ") * ", wave_bytes);
    if (l->SizeBytes() < SatMul(waves, wave_bytes))
      absl::StrAppend(&text, ", with ", op.lds, " enlarged to hold the ", waves, " waves' ", waves * wave_bytes,
                      " bytes (it has ", l->SizeBytes(), ")");
    return text;
  };
  // 1. The same base in every lane of a wave (lane l writes at the base +
  // 16 * l; the lowering reads the base from the wave's first lane into M0
  // with v_readfirstlane_b32): evaluated at each wave's 64 linear thread
  // ids, as the lanes are (tid.y and tid.z vary inside a wave when the x
  // extent is not a multiple of 64, tid.x floordiv 64 does not when it is).
  // Quick path: with whole waves along x, tid.y and tid.z are the wave's,
  // and so is tid.x floordiv 64m.
  bool lanes_may_differ = false;
  for (const IndexRef& e : op.lds_index)
    lanes_may_differ = lanes_may_differ || (wg[0] % 64 == 0 ? ReadsTidXPerLane(*e)
                                                              : ReadsTid(*e, 0) || ReadsTid(*e, 1) || ReadsTid(*e, 2));
  if (lanes_may_differ) {
    std::vector<EnumLeaf> leaves = wg_leaves;
    for (const Op* loop : loops_)
      if (vars_read.count(loop->ivar)) leaves.push_back(loop_leaf(*loop));
    // Lanes the affine check cannot show equal to their wave's lane 0.
    struct Unproven {
      int64_t wave, lane;
      Interval diff;
    };
    std::vector<Unproven> unproven;
    for (int64_t w = 0; w < waves; ++w) {
      const IndexRef b0 = byte_base(WorkItemOfLinear(64 * w, wg), {});
      for (int64_t lane = 1; lane < 64; ++lane) {
        absl::StatusOr<AffineForm> f = Affine(*ISub(byte_base(WorkItemOfLinear(64 * w + lane, wg), {}), b0), iscope_);
        if (!f.ok()) return OpErr(op, std::string(f.status().message()));
        const Interval r = f->Range();
        if (r.lo != 0 || r.hi != 0) unproven.push_back({w, lane, r});
      }
    }
    auto tid_text = [](const std::array<int64_t, 3>& x) { return absl::StrCat("(", x[0], ", ", x[1], ", ", x[2], ")"); };
    auto lanes_text = [&](const Unproven& u) {
      return absl::StrCat("lanes 0 and ", u.lane, " of wave ", u.wave, " (tid ", tid_text(WorkItemOfLinear(64 * u.wave, wg)),
                          " and ", tid_text(WorkItemOfLinear(64 * u.wave + u.lane, wg)), ")");
    };
    const std::string fix = absl::StrCat(
        "lane l writes at the base + 16 * l bytes, so choose each lane's place through the global index instead; "
        "the base may read the thread ids only through the wave's index (here ", wave_index, ")");
    if (!unproven.empty()) {
      // Exhaustively: every value of the wg ids and loop variables it reads.
      const int64_t n = Combinations(leaves);
      bool decided = SatMul(n, static_cast<int64_t>(unproven.size()) + waves) <= kLdsDmaEnumBudget;
      for (int64_t c = 0; decided && c < n; ++c) {
        const std::vector<int64_t> v = Combination(leaves, c);
        std::map<int64_t, int64_t> first;  // wave -> lane 0's byte offset
        for (const Unproven& u : unproven) {
          if (!first.count(u.wave)) {
            std::optional<int64_t> a = eval_base(WorkItemOfLinear(64 * u.wave, wg), leaves, v);
            if (!a) {
              decided = false;
              break;
            }
            first[u.wave] = *a;
          }
          std::optional<int64_t> x = eval_base(WorkItemOfLinear(64 * u.wave + u.lane, wg), leaves, v);
          if (!x) {
            decided = false;
            break;
          }
          if (*x != first[u.wave])
            return OpErr(op, absl::StrCat("the lds_dma base ", base_text, " differs between ", lanes_text(u),
                                          ": byte offsets ", first[u.wave], " and ", *x, leaves.empty() ? "" : " at ",
                                          LeafValues(leaves, v), "; it must be the same in all 64 lanes of a wave: ",
                                          fix));
        }
      }
      if (!decided)
        return OpErr(op, absl::StrCat("the lds_dma base ", base_text, " is not provably the same in all lanes of a "
                                      "wave: for ", lanes_text(unproven[0]), " the byte offsets differ by ",
                                      unproven[0].diff.lo, "..", unproven[0].diff.hi, " (kirc tries each value of ",
                                      plural(leaves), " only up to ", kLdsDmaEnumBudget, " evaluations); ", fix));
    }
  }
  // 2. Each wave its own bytes while the DMAs run. A wave's DMA writes LDS
  // until a waitcnt covers it; a `barrier` waits for it (compiler/passes/
  // waitcnt.cc) and no wave passes a barrier before all reach it, so the
  // DMAs of two waves can run at once exactly when as many barriers ran
  // before each: the same trip of every enclosing loop whose body runs a
  // barrier, but ANY trips of the loops inside those (waves are not in
  // lockstep: wave 0 may be at %k = 1 while wave 1 is still at %k = 0).
  // Such loop variables get one copy per wave; wg ids are one shared value.
  auto waves_apart = [&]() -> absl::Status {
    if (waves <= 1) return absl::OkStatus();
    // Quick refusal, naming the id: a base that ignores an id which alone
    // tells some waves apart (tid.x with several waves along x, tid.y with
    // whole waves along x, tid.z with whole x * y planes).
    const char* const kIdName[] = {"tid.x floordiv 64", "tid.y", "tid.z"};
    const int64_t apart[3] = {wg[0] % 64 == 0 ? wg[0] / 64 : 1, wg[0] % 64 == 0 ? wg[1] : 1,
                              (wg[0] * wg[1]) % 64 == 0 ? wg[2] : 1};
    for (int dim = 0; dim < 3; ++dim) {
      if (apart[dim] <= 1) continue;
      bool reads = false;
      for (const IndexRef& e : op.lds_index) reads = reads || ReadsTid(*e, dim);
      if (!reads)
        return OpErr(op, absl::StrCat("the lds_dma base does not depend on ", dim == 0 ? "tid.x" : kIdName[dim],
                                      ", so waves that differ only in ", kIdName[dim], " (", apart[dim],
                                      " of them) write the same ", wave_bytes, " LDS bytes at once, a race between "
                                      "waves; give each wave its own ", wave_bytes, " bytes, e.g. ", suggestion()));
    }
    size_t synced = 0;  // loops_[0, synced) run a barrier in their bodies: shared trips
    while (synced < loops_.size() && HasBarrier(loops_[synced]->body)) ++synced;
    std::vector<EnumLeaf> shared = wg_leaves, own;
    std::map<std::string, std::string> rename;
    IndexScope scope = iscope_;
    for (size_t i = 0; i < loops_.size(); ++i) {
      const std::string& v = loops_[i]->ivar;
      if (!vars_read.count(v)) continue;
      if (i < synced) {
        shared.push_back(loop_leaf(*loops_[i]));
      } else {
        own.push_back(loop_leaf(*loops_[i]));
        rename[v] = v + "'";
        scope.loops[v + "'"] = scope.loops.at(v);
      }
    }
    std::vector<std::array<int64_t, 3>> first;  // each wave's first lane
    for (int64_t w = 0; w < waves; ++w) first.push_back(WorkItemOfLinear(64 * w, wg));
    auto wave_name = [&](int64_t w) {
      const std::array<int64_t, 3>& t = first[w];
      if (wg[0] % 64 == 0) return absl::StrCat("tid.x floordiv 64 = ", t[0] / 64, ", tid.y = ", t[1], ", tid.z = ", t[2]);
      return absl::StrCat("wave ", w, " (first lane tid.x = ", t[0], ", tid.y = ", t[1], ", tid.z = ", t[2], ")");
    };
    // Affine check of every pair, wave j's own loop variables renamed.
    int64_t pi = -1, pj = -1;
    Interval pr;
    for (int64_t i = 0; i < waves && pi < 0; ++i)
      for (int64_t j = i + 1; j < waves; ++j) {
        absl::StatusOr<AffineForm> f = Affine(*ISub(byte_base(first[j], rename), byte_base(first[i], {})), scope);
        if (!f.ok()) return OpErr(op, std::string(f.status().message()));
        const Interval r = f->Range();
        if (r.lo >= wave_bytes || r.hi <= -wave_bytes) continue;
        pi = i, pj = j, pr = r;
        break;
      }
    if (pi < 0) return absl::OkStatus();
    std::string unsynced_loops;
    {
      std::vector<std::string> names;
      for (const EnumLeaf& f : own) names.push_back("%" + f.name);
      unsynced_loops = absl::StrJoin(names, ", ");
    }
    const std::string fix = absl::StrCat(
        "give each wave its own ", wave_bytes, " bytes", own.empty() ? "" : " in every trip",
        ", e.g. ", suggestion(),
        own.empty() ? "" : absl::StrCat(own.size() == 1 ? " plus a term in " : " plus terms in ", unsynced_loops,
                                        " that steps past all the waves' bytes, or end each trip with a `barrier`"));
    // Exhaustively: every wave's base at every value of the shared leaves
    // and of its own loop variables.
    const int64_t ns = Combinations(shared), no = Combinations(own);
    if (SatMul(SatMul(ns, no), waves) <= kLdsDmaEnumBudget &&
        SatMul(SatMul(ns, SatMul(no, no)), waves * waves) <= 64 * kLdsDmaEnumBudget) {
      bool decided = true;
      std::vector<EnumLeaf> all = shared;
      all.insert(all.end(), own.begin(), own.end());
      for (int64_t cs = 0; cs < ns && decided; ++cs) {
        // at[w * no + co]: wave w's byte offset with its own loop variables at co.
        std::vector<int64_t> at;
        const std::vector<int64_t> sv = Combination(shared, cs);
        for (int64_t w = 0; w < waves && decided; ++w)
          for (int64_t co = 0; co < no && decided; ++co) {
            std::vector<int64_t> v = sv, ov = Combination(own, co);
            v.insert(v.end(), ov.begin(), ov.end());
            std::optional<int64_t> x = eval_base(first[w], all, v);
            if (!x) decided = false;
            else at.push_back(*x);
          }
        for (int64_t i = 0; i < waves && decided; ++i)
          for (int64_t j = i + 1; j < waves; ++j)
            for (int64_t ci = 0; ci < no; ++ci)
              for (int64_t cj = 0; cj < no; ++cj) {
                const int64_t d = at[j * no + cj] - at[i * no + ci];
                if (d >= wave_bytes || d <= -wave_bytes) continue;
                auto trip = [&](int64_t co) {
                  return own.empty() ? std::string() : absl::StrCat(" at ", LeafValues(own, Combination(own, co)));
                };
                return OpErr(op, absl::StrCat(
                    "the lds_dma base ", base_text, " ", d == 0 ? "is the same" : "is less than a wave's bytes apart",
                    " for the waves with ", wave_name(i), trip(ci), " and ", wave_name(j), trip(cj),
                    " (byte offsets differ by ", d,
                    shared.empty() ? "" : absl::StrCat(", with ", LeafValues(shared, sv)), "), so they write overlapping LDS bytes at once (each wave writes ",
                    wave_bytes, "), a race between waves",
                    ci == cj ? ""
                             : absl::StrCat(" (waves are not in lockstep: no barrier in the loop over ",
                                               unsynced_loops, " orders one trip's DMAs before the next trip's)"),
                    "; ", fix));
              }
      }
      if (decided) return absl::OkStatus();
    }
    std::vector<EnumLeaf> tried = shared;
    for (EnumLeaf f : own) {
      tried.push_back(f);
      f.name += "'";  // the other wave's copy
      tried.push_back(f);
    }
    return OpErr(op, absl::StrCat(
        "the lds_dma base ", base_text, " is not provably disjoint for the waves with ", wave_name(pi), " and ",
        wave_name(pj), " (byte offsets differ by ", pr.lo, "..", pr.hi, ", and kirc tries each value of ",
        plural(tried), " only up to ", kLdsDmaEnumBudget, " evaluations), while each wave writes ", wave_bytes,
        " bytes, so they may write overlapping LDS bytes at once",
        own.empty() ? "" : absl::StrCat(" (waves are not in lockstep: no barrier in the loop over ", unsynced_loops,
                                        " orders one trip's DMAs before the next trip's)"),
        "; ", fix));
  };
  s = waves_apart();
  if (!s.ok()) return s;
  const int64_t have = AffineAdd(b, AffineConst(lds_offset_[op.lds])).KnownAlignment();
  if (have % kLdsDmaLaneBytes != 0)
    return OpErr(op, absl::StrCat("the lds_dma base needs 16-byte alignment in LDS but is only provably ",
                                  have, "-byte aligned; make its byte offset a multiple of 16"));
  const Interval r = b.Range();
  if (SatAdd(r.hi, wave_bytes) > l->SizeBytes())
    return OpErr(op, absl::StrCat(b.RangeIsExact() ? "the wave's 64 x 16 bytes from the lds_dma base (byte offset up to "
                                                   : absl::StrCat("cannot prove that the wave's 64 x 16 bytes from the "
                                                                  "lds_dma base (", kIntervalGives, "byte offset up to "),
                                  r.hi, b.RangeIsExact() ? ") run past the " : ") stay inside the ", l->SizeBytes(),
                                  " bytes of ", op.lds,
                                  "; lower the base or enlarge the allocation"));
  return absl::OkStatus();
}

absl::Status Validator::CheckMfma(const Op& op) {
  const MfmaDesc* m = LookupMfma(op.mfma);
  if (m == nullptr) {
    std::vector<std::string> names;
    for (const MfmaDesc& d : AllMfmas())
      if (d.mnemonic[static_cast<int>(t_.gfx)] != nullptr) names.push_back(d.kir_name);
    return OpErr(op, absl::StrCat("unknown MFMA '", op.mfma, "'; on ", t_.name, " kirc knows ",
                                  absl::StrJoin(names, ", ")));
  }
  absl::StatusOr<std::string> mn = MfmaMnemonic(t_, *m);
  if (!mn.ok()) return OpErr(op, std::string(mn.status().message()));
  // A and B: the target's element types for the MFMA's kinds (fp8/bf8 by
  // the target's flavour; the mnemonic check above refused a target without).
  const std::optional<ElemType> a_elem = MfmaInElem(m->a_in, t_), b_elem = MfmaInElem(m->b_in, t_);
  if (!a_elem || !b_elem)
    return OpErr(op, absl::StrCat(m->kir_name, " takes fp8 operands and ", t_.name, " has no fp8 types"));
  ValueType a{*a_elem, m->ab_width}, b{*b_elem, m->ab_width}, cd{ElemType::kF32, m->cd_width};
  static const char* const kRole[] = {"A", "B", "C"};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<ValueType> t = Use(op, op.operands[i], false);
    if (!t.ok()) return t.status();
    ValueType want = i == 0 ? a : i == 1 ? b : cd;
    if (!(*t == want))
      return OpErr(op, absl::StrCat("operand ", kRole[i], " (%", op.operands[i].name, ") is ",
                                    TypeName(*t), " but ", m->kir_name, " needs ",
                                    TypeName(want)));
  }
  if (!(op.type == cd))
    return OpErr(op, absl::StrCat("the result type is ", TypeName(op.type), " but ", m->kir_name,
                                  " produces ", TypeName(cd)));
  return Define(op, op.results[0], cd);
}

absl::Status Validator::CheckElementwise(const Op& op) {
  std::vector<ValueType> types;
  for (const Operand& o : op.operands) {
    absl::StatusOr<ValueType> t = Use(op, o, true);
    if (!t.ok()) return t.status();
    types.push_back(*t);
  }
  absl::Status fp8 = CheckNotFp8Arith(op, types);
  if (!fp8.ok()) return fp8;
  for (size_t i = 1; i < types.size(); ++i)
    if (types[i].elem != types[0].elem) {
      std::string fix;
      if (!IsFloat(types[0].elem) || !IsFloat(types[i].elem)) {
        fix = "; KIR has no conversion between i32 and the float types (cvt converts between f32, f16 and bf16): "
              "give both operands one type";
      } else if (op.operands[0].is_arg || op.operands[i].is_arg) {
        // cvt takes SSA values only: a scalar argument reaches another
        // float type through an f32 vector (fresh-user review 9 F3).
        const size_t s = op.operands[0].is_arg ? 0 : i, v = s == 0 ? i : 0;
        const ValueType splat{ElemType::kF32, types[v].width};
        fix = absl::StrCat("; cvt takes SSA values only, so splat the scalar argument into an f32 value and "
                           "convert that: %ones = const ", TypeName(splat), " 1.0, %s = mul %ones, ",
                           op.operands[s].name, ", %sc = cvt %s : ", TypeName(types[v]),
                           ", then use %sc (or compute in f32: cvt ", OperandText(op.operands[v]), " to ",
                           TypeName(splat), ")");
      } else {
        fix = "; convert one with cvt";
      }
      return OpErr(op, absl::StrCat("operands have different element types: ", OperandText(op.operands[0]), " is ",
                                    TypeName(types[0]), ", ", OperandText(op.operands[i]), " is ",
                                    TypeName(types[i]), fix));
    }
  size_t widest = 0;
  for (size_t i = 1; i < types.size(); ++i)
    if (types[i].width > types[widest].width) widest = i;
  ValueType rt = types[widest];
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i].width == rt.width) continue;
    if (types[i].width == 1 && ElemBytes(types[i].elem) == 4) continue;
    return OpErr(op, absl::StrCat("operand ", OperandText(op.operands[i]), " is ",
                                  TypeName(types[i]), " but ", OperandText(op.operands[widest]),
                                  " is ", TypeName(rt),
                                  "; widths must match (only width-1 f32 and i32 operands "
                                  "broadcast)"));
  }
  if (op.kind == OpKind::kFma && !IsFloat(rt.elem))
    return OpErr(op, absl::StrCat("fma is defined for float types only, found ",
                                  ElemName(rt.elem), "; use mul and add"));
  return Define(op, op.results[0], rt);
}

absl::Status Validator::CheckCvt(const Op& op) {
  absl::StatusOr<ValueType> in = Use(op, op.operands[0], false);
  if (!in.ok()) return in.status();
  absl::Status s = CheckType(op, op.type);
  if (!s.ok()) return s;
  if (in->elem == ElemType::kI32 || op.type.elem == ElemType::kI32)
    return OpErr(op, absl::StrCat("conversions to or from i32 are not supported yet (",
                                  TypeName(*in), " to ", TypeName(op.type), ")"));
  if (IsFp8(in->elem) && IsFp8(op.type.elem) && in->elem != op.type.elem)
    return OpErr(op, absl::StrCat("cvt does not convert between two fp8 types (", TypeName(*in), " to ",
                                  TypeName(op.type), "); convert through f32 with two cvt ops"));
  if (in->width != op.type.width) {
    // Suggest the same-width type only when it exists (review 5 F7: an fp8x32
    // has no 32-wide f32/f16/bf16 counterpart): else slice into halves.
    const ValueType same{op.type.elem, in->width};
    const std::string fix =
        IsLegalWidthFor(same.elem, same.width)
            ? absl::StrCat("use ", TypeName(same))
            : absl::StrCat(TypeName(same), " does not exist, so slice %", op.operands[0].name, " into halves (",
                           "slice %", op.operands[0].name, ", 0 : ", TypeName(ValueType{in->elem, in->width / 2}),
                           " and slice %", op.operands[0].name, ", ", in->width / 2, " : ",
                           TypeName(ValueType{in->elem, in->width / 2}), ") and convert each");
    return OpErr(op, absl::StrCat("cvt keeps the width: %", op.operands[0].name, " is ",
                                  TypeName(*in), " but the result type is ", TypeName(op.type), "; ", fix));
  }
  return Define(op, op.results[0], op.type);
}

absl::Status Validator::CheckSlice(const Op& op) {
  absl::StatusOr<ValueType> in = Use(op, op.operands[0], false);
  if (!in.ok()) return in.status();
  absl::Status s = CheckType(op, op.type);
  if (!s.ok()) return s;
  if (op.type.elem != in->elem)
    return OpErr(op, absl::StrCat("slice keeps the element type: %", op.operands[0].name, " is ",
                                  TypeName(*in), " but the result type is ", TypeName(op.type),
                                  "; use cvt to convert"));
  if (op.first < 0 || op.first > in->width - op.type.width)
    return OpErr(op, absl::StrCat("elements ", op.first, "..",
                                  static_cast<int64_t>(op.first) + op.type.width - 1,
                                  " are not all in %", op.operands[0].name, " (",
                                  TypeName(*in), ", elements 0..", in->width - 1, ")"));
  if (ElemBytes(in->elem) == 2 && op.first % 2 != 0)
    return OpErr(op, absl::StrCat("a slice of a 16-bit vector must start at an even element "
                                  "(a register boundary), found ", op.first));
  if (ElemBytes(in->elem) == 1 && op.first % 4 != 0)
    return OpErr(op, absl::StrCat("a slice of an fp8 vector must start at a multiple of 4 "
                                  "(a register boundary), found ", op.first));
  return Define(op, op.results[0], op.type);
}

// concat %a, %b : T: two values of one type, T their element type with twice
// their width (KIR widths are powers of two, so equal widths are the only
// ones whose sum is a width). Each half fills whole registers, as a slice's
// start must: the lowering places the halves side by side without packing.
absl::Status Validator::CheckConcat(const Op& op) {
  absl::StatusOr<ValueType> a = Use(op, op.operands[0], false);
  if (!a.ok()) return a.status();
  absl::StatusOr<ValueType> b = Use(op, op.operands[1], false);
  if (!b.ok()) return b.status();
  if (!(*a == *b))
    return OpErr(op, absl::StrCat("concat joins two values of one type: %", op.operands[0].name, " is ",
                                  TypeName(*a), " but %", op.operands[1].name, " is ", TypeName(*b),
                                  IsFp8(a->elem) && IsFp8(b->elem) && a->elem != b->elem
                                      // cvt between two fp8 types is refused (CheckCvt): through f32.
                                      ? "; convert one of them to the other's type through f32 (two cvt ops; "
                                        "slice it first if the widths differ)"
                                      : "; cvt or slice one of them to the other's type"));
  const ValueType joined{a->elem, 2 * a->width};
  if (!IsLegalWidthFor(joined.elem, joined.width))
    return OpErr(op, absl::StrCat("concat of two ", TypeName(*a), " values would have ", joined.width,
                                  " elements, more than a KIR vector holds (the width must be ",
                                  std::string(LegalWidthsText(joined.elem)),
                                  "); concat narrower values or keep the halves apart"));
  const int per_reg = 4 / ElemBytes(a->elem);
  if (per_reg > 1 && a->width % per_reg != 0)
    return OpErr(op, absl::StrCat("concat joins whole registers: each ", TypeName(*a), " half fills ",
                                  "part of one (", per_reg, " ", ElemName(a->elem),
                                  " elements per register); concat values of at least ", per_reg,
                                  " elements, e.g. load the pair as one ",
                                  TypeName(ValueType{a->elem, per_reg})));
  if (!(op.type == joined))
    return OpErr(op, absl::StrCat("the result type of concat %", op.operands[0].name, ", %",
                                  op.operands[1].name, " is ", TypeName(joined), ", found ",
                                  TypeName(op.type), "; write `: ", TypeName(joined), "`"));
  absl::Status s = CheckType(op, op.type);
  if (!s.ok()) return s;
  return Define(op, op.results[0], op.type);
}

absl::Status Validator::CheckConst(const Op& op) {
  absl::Status s = CheckType(op, op.type);
  if (!s.ok()) return s;
  s = CheckNotFp8Arith(op, {op.type});
  if (!s.ok()) return s;
  if (!ExactBits(op.type.elem, op.constant).has_value()) {
    std::string v = FormatDouble(op.constant);
    std::string elem(ElemName(op.type.elem));
    if (op.type.elem == ElemType::kI32)
      return OpErr(op, absl::StrCat(v, " is not an i32; i32 constants are integers in "
                                       "[-2147483648, 2147483647]"));
    float f = static_cast<float>(op.constant);
    double nearest = f;
    if (op.type.elem == ElemType::kF16) nearest = F16BitsToF32(F32ToF16Bits(f));
    if (op.type.elem == ElemType::kBF16) nearest = Bf16BitsToF32(F32ToBf16Bits(f));
    return OpErr(op, absl::StrCat(v, " is not exactly representable in ", elem,
                                  "; write a value that is (the nearest ", elem, " is ",
                                  FormatDouble(nearest), ")"));
  }
  return Define(op, op.results[0], op.type);
}

}  // namespace

int64_t RequiredAccessAlignment(bool contiguous, int64_t elem_bytes, int width) {
  return contiguous ? std::min<int64_t>(width * elem_bytes, 16) : elem_bytes;
}

absl::Status ValidateKernel(const Kernel& k, const TargetInfo& t, absl::string_view filename,
                            GemmConfig* gemm) {
  return Validator(k, t, filename, gemm).Run();
}

}  // namespace kir
