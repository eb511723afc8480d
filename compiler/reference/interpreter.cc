#include "compiler/reference/interpreter.h"

#include "compiler/ir/op_text.h"

#include <algorithm>
#include <cstdlib>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/float_bits.h"
#include "compiler/ir/global_races.h"
#include "compiler/ir/index_expr.h"
#include "compiler/ir/paged_bytes.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/types.h"
#include "compiler/target/target.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kir {

int64_t InterpMaxLdsBytes() {
  static const int64_t most = [] {
    int64_t m = 0;
    for (const TargetInfo* t : AllTargets()) m = std::max(m, t->lds_bytes);
    return m;
  }();
  return most;
}


// One buffer element's global-race record (compiler/ir/global_races.h).
using ElementRaces = RaceSlots<uint64_t>;

namespace {

// ---------------------------------------------------------------------------
// Floating point helpers.

constexpr uint32_t kF32QNaN = 0x7fc00000u;
constexpr uint32_t kF16QNaN = 0x7e00u;
constexpr uint32_t kBf16QNaN = 0x7fc0u;

// x = s + t exactly (Knuth's TwoSum; exact for all finite doubles whose sum
// does not overflow). t = 0 when s is not finite.
std::pair<double, double> TwoSum(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s)) return {s, 0.0};
  double bb = s - a;
  double t = (a - (s - bb)) + (b - bb);
  return {s, t};
}

// Rounds the exact value s + t to nearest even in a binary format with `ebits`
// exponent bits and `man` fraction bits (IEEE-like: gradual underflow, the all
// ones exponent for inf/NaN). Requires |t| <= half an ulp (in double) of s, as
// TwoSum guarantees, and t == 0 when s is 0 or not finite.
//
// Why this is a single correct rounding of s + t: every rounding boundary of
// the target format (the midpoints between neighbours, and the overflow
// threshold) is itself a double. If s is not such a midpoint, it is at least
// one double ulp away from each, so s + t lies on the same side of every
// boundary as s and rounds the same way. If s is a midpoint, the sign of t
// decides; only t == 0 is a true tie (to even).
uint32_t RoundPair(double s, double t, int ebits, int man) {
  const int bias = (1 << (ebits - 1)) - 1;
  const uint32_t exp_all = (1u << ebits) - 1;
  const uint32_t sign = std::signbit(s) ? 1u << (ebits + man) : 0u;
  if (std::isnan(s)) return (exp_all << man) | (1u << (man - 1));
  double a = std::fabs(s);
  if (std::isinf(a)) return sign | (exp_all << man);
  if (a == 0) return sign;
  // +1: the exact magnitude is above |s|; -1: below; 0: |s| is exact.
  int dir = t == 0 ? 0 : ((t > 0) == (s > 0) ? 1 : -1);
  int ex = 0;
  std::frexp(a, &ex);  // a = f * 2^ex, f in [0.5, 1): floor(log2 a) = ex - 1
  const int emin = 1 - bias;
  int e = std::max(ex - 1, emin);
  int q = e - man;                    // exponent of the target's ulp at a
  double scaled = std::ldexp(a, -q);  // exact: < 2^(man+1), a power-of-two scaling
  double n = std::floor(scaled);
  double frac = scaled - n;  // exact
  bool up;
  if (frac > 0.5) {
    up = true;
  } else if (frac < 0.5) {
    up = false;
  } else if (dir != 0) {
    up = dir > 0;
  } else {
    up = std::fmod(n, 2.0) != 0;
  }
  uint64_t ni = static_cast<uint64_t>(n) + (up ? 1 : 0);
  if (ni == (uint64_t{1} << (man + 1))) {  // carried into the next binade
    ni >>= 1;
    ++q;
  }
  if (ni < (uint64_t{1} << man)) return sign | static_cast<uint32_t>(ni);  // subnormal / 0
  int64_t biased = static_cast<int64_t>(q) + man + bias;
  if (biased >= static_cast<int64_t>(exp_all)) return sign | (exp_all << man);  // overflow
  return sign | (static_cast<uint32_t>(biased) << man) |
         static_cast<uint32_t>(ni - (uint64_t{1} << man));
}

uint32_t RoundPairTo(ElemType t, double s, double err) {
  return t == ElemType::kF16 ? RoundPair(s, err, 5, 10) : RoundPair(s, err, 8, 7);
}


bool ValidType(ValueType t) { return IsValidElemType(t.elem) && IsLegalWidthFor(t.elem, t.width); }

// The value of a float element as a double (exact).
double ToDouble(ElemType t, uint32_t bits) {
  switch (t) {
    case ElemType::kF16:
      return F16BitsToF32(static_cast<uint16_t>(bits));
    case ElemType::kBF16:
      return Bf16BitsToF32(static_cast<uint16_t>(bits));
    case ElemType::kF32:
      return F32FromBits(bits);
    case ElemType::kI32:
      return static_cast<int32_t>(bits);
    case ElemType::kF8E4M3FNUZ:
    case ElemType::kF8E5M2FNUZ:
    case ElemType::kF8E4M3FN:
    case ElemType::kF8E5M2:
      return Fp8BitsToF32(t, static_cast<uint8_t>(bits));
  }
  return 0;
}

uint32_t CanonF32(float v) { return std::isnan(v) ? kF32QNaN : F32Bits(v); }

// ---------------------------------------------------------------------------
// Saturating arithmetic for declared extents.

constexpr int64_t kSat = int64_t{1} << 62;
int64_t Sat(__int128 v) { return v > kSat ? kSat : v < -kSat ? -kSat : static_cast<int64_t>(v); }
int64_t SatAdd(int64_t a, int64_t b) { return Sat(static_cast<__int128>(a) + b); }
int64_t SatMul(int64_t a, int64_t b) { return Sat(static_cast<__int128>(a) * b); }

// ---------------------------------------------------------------------------
// Index expression structure checks (kir::Evaluate assumes a well-formed tree).


std::string IndexProblem(const IndexRef& e) { return IndexTreeProblem(e); }

// Names (kNamed / kLoopVar) in a well-formed tree that `known` rejects; "" if none.
std::string UnknownName(const IndexExpr& e, const std::function<bool(const IndexExpr&)>& known) {
  switch (e.kind) {
    case IndexKind::kNamed:
      return known(e) ? "" : "unknown constant '" + e.name + "'";
    case IndexKind::kLoopVar:
      return known(e) ? "" : "unknown loop variable %" + e.name;
    case IndexKind::kAdd:
    case IndexKind::kSub:
    case IndexKind::kMul:
    case IndexKind::kFloorDiv:
    case IndexKind::kMod: {
      std::string p = UnknownName(*e.lhs, known);
      return p.empty() ? UnknownName(*e.rhs, known) : p;
    }
    default:
      return "";
  }
}

// ---------------------------------------------------------------------------
// Op text for messages (one line; a `for` without its body).

std::string TypeText(ValueType t) {
  if (!IsValidElemType(t.elem)) return absl::StrCat("<elem ", static_cast<int>(t.elem), ">x", t.width);
  return ValueTypeName(t);
}

std::string OperandText(const Operand& o) { return o.is_arg ? o.name : "%" + o.name; }


std::string Where(const SourceLoc& loc) {
  return loc.line > 0 ? absl::StrCat(loc.line, ":", loc.col, ": ") : "";
}


// ---------------------------------------------------------------------------
// MFMA: the catalogue's slots tabulated once per MFMA, and the sums.

// The exact double of every f16 bit pattern (ToDouble), for all 65536.
const double* F16Doubles() {
  static const std::vector<double>* table = [] {
    auto* t = new std::vector<double>(65536);
    for (uint32_t h = 0; h < 65536; ++h) (*t)[h] = ToDouble(ElemType::kF16, h);
    return t;
  }();
  return table->data();
}

struct MfmaPlan {
  int m = 0, n = 0, k = 0, cd = 0;
  // A[i][k] (i * K + k), B[k][j] (k * N + j): the lane and the element of
  // its vector.
  std::vector<uint8_t> a_lane, a_elem, b_lane, b_elem;
  // Per D element of a lane's result (element * 64 + lane): its i and j.
  std::vector<uint8_t> c_i, c_j;
  // Every 8 consecutive lanes (from a multiple of 8) of one result element
  // hold one row i and 8 consecutive columns j.
  bool rows8 = false;
  // Lane-major form: every element of lane l has column j = col[l], and its
  // rows are those of the lane's group: rows[group[l] * cd + e]. Then
  // D(lane l) = C(lane l) + sum over k of Apack[group][k][e] * B[k][col[l]].
  bool lanes = false;
  int groups = 0;
  std::vector<uint8_t> group, col, rows;
  std::string error;  // the catalogue's layout does not fit (the op's error)
};

std::unique_ptr<MfmaPlan> MakePlan(const MfmaDesc& d) {
  auto p = std::make_unique<MfmaPlan>();
  p->m = d.m;
  p->n = d.n;
  p->k = d.k;
  p->cd = d.cd_width;
  const int per_reg = 4 / MfmaInBytes(d.a_in);
  // Element index within a lane's vector for a fragment slot, or -1 if the
  // catalogue's slot does not fit the operand (never for a correct catalogue).
  auto ab_index = [&](const FragmentSlot& f) {
    int e = f.reg * per_reg + f.elem;
    return f.lane < 0 || f.lane >= 64 || f.elem < 0 || f.elem >= per_reg || e < 0 ||
                   e >= d.ab_width
               ? -1
               : e;
  };
  // The lane and element of each of an operand's rows x cols values, row
  // by row (A: M x K, B: K x N); false for a slot that does not fit.
  auto tabulate = [&](auto slot, int rows, int cols, std::vector<uint8_t>& lane, std::vector<uint8_t>& elem) {
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        FragmentSlot f = slot(r, c);
        int e = ab_index(f);
        if (e < 0) return false;
        lane.push_back(static_cast<uint8_t>(f.lane));
        elem.push_back(static_cast<uint8_t>(e));
      }
    return true;
  };
  if (!tabulate([&](int i, int kk) { return d.ASlot(i, kk); }, d.m, d.k, p->a_lane, p->a_elem)) {
    p->error = "internal error: bad A slot in the MFMA catalogue";
    return p;
  }
  if (!tabulate([&](int kk, int j) { return d.BSlot(kk, j); }, d.k, d.n, p->b_lane, p->b_elem)) {
    p->error = "internal error: bad B slot in the MFMA catalogue";
    return p;
  }
  std::vector<int> covered(64 * static_cast<size_t>(d.cd_width), 0);
  p->c_i.assign(covered.size(), 0);
  p->c_j.assign(covered.size(), 0);
  for (int i = 0; i < d.m; ++i)
    for (int j = 0; j < d.n; ++j) {
      FragmentSlot f = d.CSlot(i, j);
      if (f.lane < 0 || f.lane >= 64 || f.reg < 0 || f.reg >= d.cd_width) {
        p->error = "internal error: bad C slot in the MFMA catalogue";
        return p;
      }
      const size_t at = static_cast<size_t>(f.reg) * 64 + f.lane;
      ++covered[at];
      p->c_i[at] = static_cast<uint8_t>(i);
      p->c_j[at] = static_cast<uint8_t>(j);
    }
  for (int c : covered)
    if (c != 1) {
      p->error = "internal error: the MFMA catalogue's C layout is not 1:1";
      return p;
    }
  bool rows8 = d.n % 8 == 0;
  for (size_t g = 0; rows8 && g < covered.size(); g += 8)
    for (size_t l = 1; l < 8; ++l)
      rows8 = rows8 && p->c_i[g + l] == p->c_i[g] && p->c_j[g + l] == p->c_j[g] + l;
  p->rows8 = rows8;
  // The lane-major form, when the layout has it (16x16 and 32x32 do).
  bool lanes = p->cd == 4 || p->cd == 16;
  p->group.assign(64, 0);
  p->col.assign(64, 0);
  for (int l = 0; lanes && l < 64; ++l) {
    p->col[l] = p->c_j[l];
    std::vector<uint8_t> r(p->cd);
    for (int e = 0; e < p->cd; ++e) {
      lanes = lanes && p->c_j[e * 64 + l] == p->col[l];
      r[e] = p->c_i[e * 64 + l];
    }
    int g = 0;
    while (g < p->groups && !std::equal(r.begin(), r.end(), p->rows.begin() + g * p->cd)) ++g;
    if (g == p->groups) {
      p->rows.insert(p->rows.end(), r.begin(), r.end());
      ++p->groups;
    }
    p->group[l] = static_cast<uint8_t>(g);
  }
  p->lanes = lanes && p->groups <= 4 && p->k <= 16;
  return p;
}

const MfmaPlan& PlanFor(const MfmaDesc& d) {
  static std::mutex mu;
  static std::map<const MfmaDesc*, std::unique_ptr<MfmaPlan>>* plans =
      new std::map<const MfmaDesc*, std::unique_ptr<MfmaPlan>>();
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<MfmaPlan>& p = (*plans)[&d];
  if (!p) p = MakePlan(d);
  return *p;
}

// acc[e * 64 + l] = acc[e * 64 + l] + sum over k, in k order, of
// A[i][k] * B[k][j] for the D element (i, j) at element e of lane l.
void MfmaSumsScalar(const MfmaPlan& p, const double* A, const double* B, double* acc) {
  for (int x = 0; x < p.cd * 64; ++x) {
    const int i = p.c_i[x], j = p.c_j[x];
    double s = acc[x];
    for (int kk = 0; kk < p.k; ++kk) s = s + A[i * p.k + kk] * B[kk * p.n + j];  // exact product
    acc[x] = s;
  }
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void MfmaSumsAvx512(const MfmaPlan& p, const double* A,
                                                       const double* B, double* acc) {
  for (int x = 0; x < p.cd * 64; x += 8) {
    const double* a = A + p.c_i[x] * p.k;
    const double* b = B + p.c_j[x];
    __m512d s = _mm512_loadu_pd(acc + x);
    for (int kk = 0; kk < p.k; ++kk)
      s = _mm512_fmadd_pd(_mm512_set1_pd(a[kk]), _mm512_loadu_pd(b + kk * p.n), s);
    _mm512_storeu_pd(acc + x, s);
  }
}
#endif

#if defined(__x86_64__)
// The lane-major form for one wave: `c` and `d` are the lanes' 16-element
// vectors (C in, D out); the same sums as MfmaSumsScalar, in k order.
__attribute__((target("avx512f,avx512dq,avx2,fma"))) void MfmaLanesAvx512(const MfmaPlan& p, const double* A,
                                                        const double* B, const uint32_t* c,
                                                        uint32_t* d, size_t stride) {
  const int K = p.k, N = p.n, cd = p.cd;
  alignas(64) double pack[4 * 16 * 16];  // [group][k][e], groups <= 4, K <= 16, cd <= 16
  for (int g = 0; g < p.groups; ++g)
    for (int kk = 0; kk < K; ++kk)
      for (int e = 0; e < cd; ++e) pack[(g * K + kk) * cd + e] = A[p.rows[g * cd + e] * K + kk];
  const __m512 qnan = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(kF32QNaN)));
  for (int l = 0; l < 64; ++l) {
    const uint32_t* cl = c + l * stride;
    uint32_t* dl = d + l * stride;
    const double* a = pack + p.group[l] * K * cd;
    const double* b = B + p.col[l];
    if (cd == 16) {
      const __m512 cv = _mm512_loadu_ps(cl);
      __m512d s0 = _mm512_cvtps_pd(_mm512_castps512_ps256(cv));
      __m512d s1 = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(cv), 1)));
      for (int kk = 0; kk < K; ++kk) {
        const __m512d bk = _mm512_set1_pd(b[kk * N]);
        s0 = _mm512_fmadd_pd(_mm512_loadu_pd(a + kk * 16), bk, s0);
        s1 = _mm512_fmadd_pd(_mm512_loadu_pd(a + kk * 16 + 8), bk, s1);
      }
      const __m256 f0 = _mm512_cvtpd_ps(s0), f1 = _mm512_cvtpd_ps(s1);
      __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(f0), f1, 1);
      f = _mm512_mask_mov_ps(f, _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q), qnan);  // CanonF32
      _mm512_storeu_ps(reinterpret_cast<float*>(dl), f);
    } else {  // cd == 4
      __m256d s = _mm256_cvtps_pd(_mm_loadu_ps(reinterpret_cast<const float*>(cl)));
      for (int kk = 0; kk < K; ++kk)
        s = _mm256_fmadd_pd(_mm256_loadu_pd(a + kk * 4), _mm256_set1_pd(b[kk * N]), s);
      __m128 f = _mm256_cvtpd_ps(s);
      f = _mm_blendv_ps(f, _mm_castsi128_ps(_mm_set1_epi32(static_cast<int>(kF32QNaN))), _mm_cmpunord_ps(f, f));
      _mm_storeu_ps(reinterpret_cast<float*>(dl), f);
    }
  }
}
#endif

void MfmaSums(const MfmaPlan& p, const double* A, const double* B, double* acc) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f") && std::getenv("KIRC_NO_AVX512") == nullptr;
  if (p.rows8 && avx512) return MfmaSumsAvx512(p, A, B, acc);
#endif
  MfmaSumsScalar(p, A, B, acc);
}

// ---------------------------------------------------------------------------
// The interpreter.

using Lane = std::array<uint32_t, 32>;  // one thread's value; elements [0, width) (fp8: up to 32)

// An index expression in postfix form for per-thread evaluation: the leaves
// are tid.{x,y,z} (kTid, v = the dimension) and values (kValue: a subtree
// without tid, evaluated once; kFail: such a subtree Evaluate cannot
// evaluate, so no thread can).
struct FlatNode {
  enum Kind : uint8_t { kValue, kTid, kFail, kAdd, kSub, kMul, kFloorDiv, kMod } kind;
  int64_t v;
  bool operator==(const FlatNode& o) const { return kind == o.kind && v == o.v; }
};
// A postfix expression's value for every thread of the workgroup (ok[t] = 0:
// it cannot be evaluated for thread t), for the code it was computed from.
struct ThreadIndex {
  std::vector<FlatNode> code;
  std::vector<int64_t> val;
  std::vector<uint8_t> ok;
};
// One index expression, ready for per-thread evaluation: T, or when the
// root is +, - or * with one operand that reads no tid (V, evaluated once),
// V op T or T op V. T's values per thread are kept between executions of
// the op while T's code stays the same (an index whose loop-variable part
// is added at its root: T is the same every iteration).
struct FlatIndex {
  FlatNode::Kind peel = FlatNode::kValue;  // kAdd, kSub, kMul; kValue: none
  bool t_left = false;                     // T is the left operand
  std::optional<int64_t> v;                // V
  std::vector<FlatNode> code;              // T
  int depth = 0;                           // stack slots T's evaluation needs
  const ThreadIndex* per_thread = nullptr; // T per thread; null: too deep, use Evaluate
};

inline int64_t FloorDivPos(int64_t a, int64_t d) {  // FloorDiv for d > 0
  int64_t q = a / d;
  if (a % d != 0 && a < 0) --q;
  return q;
}

bool ReadsTid(const IndexExpr& e) {
  switch (e.kind) {
    case IndexKind::kTid:
      return true;
    case IndexKind::kAdd:
    case IndexKind::kSub:
    case IndexKind::kMul:
    case IndexKind::kFloorDiv:
    case IndexKind::kMod:
      return ReadsTid(*e.lhs) || ReadsTid(*e.rhs);
    default:
      return false;
  }
}

// Returns the stack depth the code for `e` needs.
int Flatten(const IndexExpr& e, const IndexEnv& env, std::vector<FlatNode>* code) {
  if (!ReadsTid(e)) {
    std::optional<int64_t> v = Evaluate(e, env);
    code->push_back(v ? FlatNode{FlatNode::kValue, *v} : FlatNode{FlatNode::kFail, 0});
    return 1;
  }
  if (e.kind == IndexKind::kTid) {
    code->push_back(FlatNode{FlatNode::kTid, e.dim});
    return 1;
  }
  const int l = Flatten(*e.lhs, env, code);
  const int r = Flatten(*e.rhs, env, code);
  FlatNode::Kind k = FlatNode::kAdd;
  switch (e.kind) {
    case IndexKind::kSub: k = FlatNode::kSub; break;
    case IndexKind::kMul: k = FlatNode::kMul; break;
    case IndexKind::kFloorDiv: k = FlatNode::kFloorDiv; break;
    case IndexKind::kMod: k = FlatNode::kMod; break;
    default: break;
  }
  code->push_back(FlatNode{k, 0});
  return std::max(l, r + 1);
}

// What Evaluate gives for the flattened expression at tid.
std::optional<int64_t> EvalFlat(const FlatIndex& f, const int64_t tid[3], int64_t* stack) {
  int sp = 0;
  for (const FlatNode& n : f.code) {
    switch (n.kind) {
      case FlatNode::kValue: stack[sp++] = n.v; continue;
      case FlatNode::kTid: stack[sp++] = tid[n.v]; continue;
      case FlatNode::kFail: return std::nullopt;
      default: break;
    }
    const int64_t a = stack[sp - 2], b = stack[sp - 1];
    int64_t r = 0;
    switch (n.kind) {
      case FlatNode::kAdd:
        if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
        break;
      case FlatNode::kSub:
        if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
        break;
      case FlatNode::kMul:
        if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
        break;
      case FlatNode::kFloorDiv:
        if (b <= 0) return std::nullopt;
        r = FloorDivPos(a, b);
        break;
      default:  // kMod
        if (b <= 0) return std::nullopt;
        r = a - FloorDivPos(a, b) * b;  // FloorMod
        break;
    }
    stack[--sp - 1] = r;
  }
  return stack[0];
}

struct Slot {
  ValueType type;
  bool ivar = false;    // a loop induction variable (index expressions only)
  std::vector<Lane> v;  // one per thread of the workgroup
};
using Scope = std::map<std::string, Slot>;

// An operand of an elementwise op: per-thread values or a uniform scalar.
struct Source {
  ValueType type;
  const std::vector<Lane>* per_thread = nullptr;
  uint32_t scalar = 0;
  uint32_t Get(size_t t, int e) const {
    if (per_thread == nullptr) return scalar;
    return (*per_thread)[t][type.width == 1 ? 0 : e];
  }
};

struct Mem {
  ElemType elem;
  std::vector<int64_t> shape, strides;
  uint8_t* data = nullptr;
  PagedBytes* paged = nullptr;  // buffers: data's pages, materialised by At
  int64_t size = 0;
  // The address of byte `off` (of `n` bytes), its page materialised.
  uint8_t* At(int64_t off, int n) const { return paged != nullptr ? paged->Touch(off, n) : data + off; }
  uint8_t* written = nullptr;  // LDS: 1 per byte some thread of the workgroup stored
  // Buffers: per element (byte offset / ElemBytes), the access ids (see
  // Interp::accesses_) of its last store and load (compiler/ir/global_races.h).
  ElementRaces* races = nullptr;
};

class Interp {
 public:
  Interp(const Kernel& k, PagedInterpArgs& args, const InterpOptions& opts)
      : k_(k), args_(args), opts_(opts) {
    env_.named = [this](const std::string& n) -> std::optional<int64_t> {
      const NamedConst* c = k_.FindConst(n);
      if (c == nullptr) return std::nullopt;
      return c->value;
    };
    env_.loop_var = [this](const std::string& n) -> std::optional<int64_t> {
      auto it = loop_vars_.find(n);
      if (it == loop_vars_.end()) return std::nullopt;
      return it->second;
    };
  }

  absl::Status Run();

 private:
  absl::Status DeclErr(const SourceLoc& loc, const std::string& what, const std::string& msg) {
    return absl::InvalidArgumentError(absl::StrCat(Where(loc), "error: in '", what, "': ", msg));
  }
  absl::Status OpErr(const Op& op, const std::string& msg,
                     absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
    return absl::Status(code, absl::StrCat(Where(op.loc), "error: in '", OpText(op), "': ", msg));
  }

  absl::Status CheckHeader();
  absl::Status CheckArgs();
  absl::Status CheckLds();

  absl::Status RunBody(const Op* begin, const Op* end, int depth);
  absl::Status RunOp(const Op& op, int depth);
  absl::Status RunLoad(const Op& op);  // also lds_dma's global side
  absl::Status WriteLdsDma(const Op& op, const Slot& vals);
  absl::Status TransposeLoadTr(const Op& op, Slot* out);
  absl::Status RunStore(const Op& op);
  absl::Status RunElementwise(const Op& op);
  absl::Status RunCvt(const Op& op);
  absl::Status RunSlice(const Op& op);
  absl::Status RunConcat(const Op& op);
  absl::Status RunConst(const Op& op);
  absl::Status RunMfma(const Op& op);
  absl::Status RunFor(const Op& op, int depth);
  absl::Status Arity(const Op& op, size_t results, size_t operands);
  // Charges one op (or loop iteration) for every wave of the workgroup
  // against InterpOptions::max_wave_ops.
  absl::Status Charge(const Op& op);

  const Slot* Lookup(const std::string& name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto it = s->find(name);
      if (it != s->end()) return &it->second;
    }
    return nullptr;
  }
  // An SSA operand (not a scalar argument, not an induction variable).
  absl::StatusOr<const Slot*> Value(const Op& op, const Operand& o);
  absl::StatusOr<Source> ElementwiseSource(const Op& op, const Operand& o);
  absl::Status CanDefine(const Op& op, const std::string& name) {
    if (name.empty()) return OpErr(op, "a defined name is empty");
    if (Lookup(name) != nullptr) return OpErr(op, absl::StrCat("%", name, " is defined twice"));
    return absl::OkStatus();
  }
  absl::Status Define(const Op& op, const std::string& name, Slot s) {
    absl::Status st = CanDefine(op, name);
    if (!st.ok()) return st;
    scopes_.back()[name] = std::move(s);
    return absl::OkStatus();
  }
  Slot NewSlot(ValueType t) const {
    Slot s;
    s.type = t;
    s.v.assign(static_cast<size_t>(nthreads_), Lane{});
    return s;
  }

  absl::StatusOr<Mem> ResolveMem(const Op& op, ValueType vt);
  // The op's index expressions for thread t, in two steps: the expressions
  // with every subtree that does not read tid evaluated once (Evaluate, for
  // the workgroup and loop variables of now), then per thread (EvalFlatIndex
  // gives what Evaluate gives for the whole tree, and an error when it
  // cannot be evaluated).
  std::vector<FlatIndex> FlattenIndex(const Op& op);
  absl::Status EvalFlatIndex(const Op& op, const std::vector<FlatIndex>& flat, int64_t t,
                             std::vector<int64_t>* idx);
  // Element e of the access at `idx` is at byte offset base + e * step for
  // every e < width, all in shape and in the memory (nullopt: some are not;
  // ElementOffset then says which and how, element by element).
  std::optional<std::pair<int64_t, int64_t>> WholeAccess(const Op& op, const Mem& m,
                                                         const std::vector<int64_t>& idx,
                                                         int width) const;
  // The walk RunLoad and RunStore share: for every thread t (SetThread done)
  // and element e < width of the access, fn(t, e, idx, at, lo) with idx the
  // thread's index, at the element's byte offset in m (nullopt: a guarded
  // element outside the shape) and lo the thread's first access id
  // (TrackAccess's). The first error, of the index or of fn, is returned.
  template <typename Fn>
  absl::Status ForEachAccessedElement(const Op& op, const Mem& m, int width, Fn&& fn) {
    const std::vector<FlatIndex> flat = FlattenIndex(op);
    const uint64_t per_thread = access_ops_.size();
    std::vector<int64_t> idx;
    for (int64_t t = 0; t < nthreads_; ++t) {
      SetThread(t);
      absl::Status s = EvalFlatIndex(op, flat, t, &idx);
      if (!s.ok()) return s;
      const uint64_t lo = 1 + static_cast<uint64_t>(wg_base_ + t) * per_thread;
      // Every element in shape and in the memory (the common case): the
      // offsets without ElementOffset's per-element checks.
      const std::optional<std::pair<int64_t, int64_t>> whole = WholeAccess(op, m, idx, width);
      for (int e = 0; e < width; ++e) {
        std::optional<int64_t> at;
        if (whole) {
          at = whole->first + e * whole->second;
        } else {
          absl::StatusOr<std::optional<int64_t>> off = ElementOffset(op, m, idx, e, t);
          if (!off.ok()) return off.status();
          at = *off;
        }
        s = fn(t, e, idx, at, lo);
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }
  void SetThread(int64_t t) {
    env_.tid[0] = tid_[t][0];
    env_.tid[1] = tid_[t][1];
    env_.tid[2] = tid_[t][2];
  }
  std::string ThreadText(int64_t t) const {
    return absl::StrCat("thread (", tid_[t][0], ", ", tid_[t][1], ", ", tid_[t][2],
                        ") of workgroup (", env_.wg[0], ", ", env_.wg[1], ", ", env_.wg[2], ")");
  }
  // Locates element e of the access at `idx` for thread t: nullopt if the
  // element is out of shape in a guarded access (skip it), else its byte offset.
  absl::StatusOr<std::optional<int64_t>> ElementOffset(const Op& op, const Mem& m,
                                                       const std::vector<int64_t>& idx, int e,
                                                       int64_t t);
  // Global-memory races: records thread t's load or store (op.kind) of the
  // buffer element at byte offset `off` (element e of the access at `idx`);
  // an error if another thread of the dispatch stored it, or loaded it and
  // this is a store.
  absl::Status TrackAccess(const Op& op, uint64_t ordinal, const Mem& m, int64_t off, int64_t t,
                           const std::vector<int64_t>& idx, int e);
  // The op's position in access_ops_.
  uint64_t AccessOrdinal(const Op& op) const {
    auto it = access_index_.find(&op);
    return it == access_index_.end() ? 0 : it->second;
  }
  // "thread (x, y, z) of workgroup (x, y, z) stored earlier (LINE:COL: 'OPTEXT')"
  // for an access id and what it did.
  std::string AccessText(uint64_t id, const char* did) const;

  const Kernel& k_;
  PagedInterpArgs& args_;
  InterpOptions opts_;
  int64_t wave_ops_ = 0;
  int64_t nthreads_ = 0;
  std::vector<std::array<int64_t, 3>> tid_;
  std::map<std::string, std::vector<uint8_t>> lds_;
  std::map<std::string, std::vector<uint8_t>> lds_written_;  // per byte: stored in this workgroup
  std::map<std::string, std::vector<int64_t>> lds_strides_;
  // Race tracking (Mem::races) over the whole dispatch, per buffer. An access
  // id is 1 + (wg_base_ + t) * access_ops_.size() + the op's position in
  // access_ops_ (the kernel's loads and stores), so ids of one thread are
  // consecutive and a race names both ops.
  std::map<std::string, ZeroedArray<ElementRaces>> accesses_;
  std::vector<const Op*> access_ops_;
  std::map<const Op*, uint64_t> access_index_;
  int64_t wg_base_ = 0;  // linear workgroup index * threads per workgroup
  std::vector<Scope> scopes_;
  std::map<std::string, int64_t> loop_vars_;
  // FlattenIndex's per-thread values of each load's and store's indexes.
  std::unordered_map<const Op*, std::vector<ThreadIndex>> index_cache_;
  IndexEnv env_;
};

absl::Status Interp::CheckHeader() {
  const auto& wg = k_.workgroup;
  for (int d = 0; d < 3; ++d)
    if (wg[d] < 1 || wg[d] > 1024)
      return DeclErr(k_.loc, "kernel",
                     absl::StrCat("workgroup extent ", std::string(1, "xyz"[d]), " is ", wg[d],
                                  "; it must be in [1, 1024]"));
  nthreads_ = wg[0] * wg[1] * wg[2];
  if (nthreads_ > 1024 || nthreads_ % 64 != 0)
    return DeclErr(k_.loc, "kernel",
                   absl::StrCat("the workgroup has ", nthreads_,
                                " threads; it must be a multiple of 64 and at most 1024"));
  for (int d = 0; d < 3; ++d)
    if (k_.grid[d] < 1 || k_.grid[d] >= (int64_t{1} << 31))
      return DeclErr(k_.loc, "kernel",
                     absl::StrCat("grid extent ", std::string(1, "xyz"[d]), " is ", k_.grid[d],
                                  "; it must be in [1, 2^31)"));
  tid_.resize(static_cast<size_t>(nthreads_));
  for (int64_t t = 0; t < nthreads_; ++t)
    tid_[t] = {t % wg[0], (t / wg[0]) % wg[1], t / (wg[0] * wg[1])};
  return absl::OkStatus();
}

absl::Status Interp::CheckArgs() {
  std::set<std::string> names;
  for (const Arg& a : k_.args) {
    std::string what = "arg " + a.name;
    if (a.name.empty()) return DeclErr(a.loc, what, "the argument has no name");
    if (!names.insert(a.name).second)
      return DeclErr(a.loc, what, absl::StrCat("'", a.name, "' is declared twice"));
    if (!IsValidElemType(a.elem))
      return DeclErr(a.loc, what, absl::StrCat("unknown element type ", static_cast<int>(a.elem)));
    if (a.kind == Arg::Kind::kScalar) {
      if (a.elem != ElemType::kF32 && a.elem != ElemType::kI32)
        return DeclErr(a.loc, what, "scalar arguments must be f32 or i32");
      if (args_.scalars.count(a.name) == 0)
        return DeclErr(
            a.loc, what,
            absl::StrCat("no value for scalar argument '", a.name, "' in InterpArgs::scalars"));
      continue;
    }
    if (a.kind != Arg::Kind::kBuffer)
      return DeclErr(a.loc, what, absl::StrCat("unknown argument kind ", static_cast<int>(a.kind)));
    if (a.shape.empty()) return DeclErr(a.loc, what, "a buffer needs at least one dimension");
    if (a.strides.size() != a.shape.size())
      return DeclErr(
          a.loc, what,
          absl::StrCat(a.shape.size(), " dimension(s) but ", a.strides.size(), " stride(s)"));
    int64_t span = 1;
    for (size_t d = 0; d < a.shape.size(); ++d) {
      if (a.shape[d] < 1)
        return DeclErr(
            a.loc, what,
            absl::StrCat("dimension ", d, " has extent ", a.shape[d], "; extents must be at least 1"));
      if (a.strides[d] < 0)
        return DeclErr(
            a.loc, what,
            absl::StrCat("stride ", d, " is ", a.strides[d], "; strides must not be negative"));
      span = SatAdd(span, SatMul(a.shape[d] - 1, a.strides[d]));
    }
    int64_t bytes = SatMul(span, ElemBytes(a.elem));
    if (bytes >= kSat) return DeclErr(a.loc, what, "the buffer is too large to interpret");
    auto it = args_.buffers.find(a.name);
    if (it == args_.buffers.end())
      return DeclErr(a.loc, what,
                     absl::StrCat("no bytes for buffer '", a.name, "' in InterpArgs::buffers"));
    if (static_cast<int64_t>(it->second.size()) != bytes)
      return DeclErr(
          a.loc, what,
          absl::StrCat("InterpArgs::buffers[\"", a.name, "\"] has ", it->second.size(),
                       " bytes but the buffer spans ", bytes, " bytes (Arg::SizeBytes)"));
    try {
      accesses_[a.name] = ZeroedArray<ElementRaces>(static_cast<uint64_t>(bytes / ElemBytes(a.elem)));
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "error: the reference interpreter cannot map ", bytes / ElemBytes(a.elem) * sizeof(ElementRaces),
          " bytes of race records for buffer '", a.name, "' (", sizeof(ElementRaces),
          " per element, only touched pages resident): raise the address-space limit (ulimit -v) or interpret a "
          "smaller buffer"));
    }
  }
  for (const auto& [name, bytes] : args_.buffers) {
    const Arg* a = k_.FindArg(name);
    if (a == nullptr || a->kind != Arg::Kind::kBuffer)
      return absl::InvalidArgumentError(absl::StrCat("error: InterpArgs::buffers has '", name,
                                                     "', which is not a buffer argument of ",
                                                     k_.name));
  }
  for (const auto& [name, v] : args_.scalars) {
    const Arg* a = k_.FindArg(name);
    if (a == nullptr || a->kind != Arg::Kind::kScalar)
      return absl::InvalidArgumentError(absl::StrCat("error: InterpArgs::scalars has '", name,
                                                     "', which is not a scalar argument of ",
                                                     k_.name));
  }
  return absl::OkStatus();
}

absl::Status Interp::CheckLds() {
  int64_t total = 0;
  for (const LdsAlloc& l : k_.lds) {
    std::string what = "lds " + l.name;
    if (l.name.empty()) return DeclErr(l.loc, what, "the allocation has no name");
    if (lds_.count(l.name) || k_.FindArg(l.name) != nullptr)
      return DeclErr(l.loc, what, absl::StrCat("'", l.name, "' is declared twice"));
    if (!IsValidElemType(l.elem))
      return DeclErr(l.loc, what, absl::StrCat("unknown element type ", static_cast<int>(l.elem)));
    if (l.shape.empty()) return DeclErr(l.loc, what, "an LDS allocation needs a dimension");
    for (size_t d = 0; d < l.shape.size(); ++d)
      if (l.shape[d] < 1)
        return DeclErr(
            l.loc, what,
            absl::StrCat("dimension ", d, " has extent ", l.shape[d], "; extents must be at least 1"));
    if (l.pad < 0) return DeclErr(l.loc, what, "pad must not be negative");
    // Strides as LdsAlloc::Strides(), saturating.
    size_t n = l.shape.size();
    std::vector<int64_t> strides(n, 1);
    for (size_t d = n - 1; d > 0; --d)
      strides[d - 1] = SatMul(strides[d], SatAdd(l.shape[d], d == n - 1 ? l.pad : 0));
    int64_t row = n == 1 ? SatAdd(l.shape[0], l.pad) : SatMul(l.shape[0], strides[0]);
    int64_t bytes = SatMul(row, ElemBytes(l.elem));
    total = SatAdd(total, bytes);
    if (total > InterpMaxLdsBytes())
      return DeclErr(
          l.loc, what,
          absl::StrCat("the LDS allocations need more than ", InterpMaxLdsBytes(), " bytes"));
    lds_[l.name].assign(static_cast<size_t>(bytes), 0);
    lds_written_[l.name].assign(static_cast<size_t>(bytes), 0);
    lds_strides_[l.name] = std::move(strides);
  }
  return absl::OkStatus();
}

absl::Status Interp::Run() {
  absl::Status s = CheckHeader();
  if (s.ok()) s = CheckArgs();
  if (s.ok()) s = CheckLds();
  if (!s.ok()) return s;
  std::function<void(const std::vector<Op>&)> collect = [&](const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.kind == OpKind::kLoad || op.kind == OpKind::kStore || op.kind == OpKind::kLdsDma) {
        access_index_[&op] = access_ops_.size();
        access_ops_.push_back(&op);
      }
      collect(op.body);
    }
  };
  collect(k_.body);
  const int64_t per_thread = std::max<int64_t>(1, static_cast<int64_t>(access_ops_.size()));
  const WorkgroupRange box = opts_.workgroups.Over(k_.grid);
  for (int d = 0; d < 3; ++d)
    if (box.begin[d] < 0 || box.begin[d] >= box.end[d] || box.end[d] > k_.grid[d])
      return absl::InvalidArgumentError(absl::StrCat(
          "error: InterpOptions::workgroups [", box.begin[d], ", ", box.end[d], ") in ", std::string(1, "xyz"[d]),
          " is not a non-empty range inside the grid [0, ", k_.grid[d], ")"));
  for (int64_t z = box.begin[2]; z < box.end[2]; ++z)
    for (int64_t y = box.begin[1]; y < box.end[1]; ++y)
      for (int64_t x = box.begin[0]; x < box.end[0]; ++x) {
        env_.wg[0] = x;
        env_.wg[1] = y;
        env_.wg[2] = z;
        // Access ids of this workgroup's threads must fit (never reached in
        // practice: 2^62 / 1024 / ops workgroups).
        const __int128 wg_linear = (static_cast<__int128>(z) * k_.grid[1] + y) * k_.grid[0] + x;
        if ((wg_linear + 1) * nthreads_ * per_thread >= (static_cast<__int128>(1) << 62))
          return absl::FailedPreconditionError(absl::StrCat(
              "error: workgroup (", x, ", ", y, ", ", z, ") of ", k_.name,
              ": the reference interpreter numbers (thread, load/store op) pairs in 62 bits to "
              "find global-memory races, and this workgroup's threads do not fit"));
        wg_base_ = static_cast<int64_t>(wg_linear) * nthreads_;
        for (auto& [name, bytes] : lds_) std::fill(bytes.begin(), bytes.end(), 0);
        for (auto& [name, w] : lds_written_) std::fill(w.begin(), w.end(), 0);
        scopes_.clear();
        scopes_.emplace_back();
        loop_vars_.clear();
        s = RunBody(k_.body.data(), k_.body.data() + k_.body.size(), 0);
        if (!s.ok()) return s;
      }
  // InterpOptions::accessed: an element's race record is non-zero once a
  // load or store of the dispatch accessed it.
  if (opts_.accessed != nullptr)
    for (auto& [name, idx] : *opts_.accessed) {
      auto it = accesses_.find(name);
      if (it == accesses_.end()) {
        idx.clear();
        continue;
      }
      const ZeroedArray<ElementRaces>& rec = it->second;
      idx.erase(std::remove_if(idx.begin(), idx.end(),
                               [&](uint64_t i) { return i >= rec.size() || (rec[i].load == 0 && rec[i].store == 0); }),
                idx.end());
    }
  return absl::OkStatus();
}

absl::Status Interp::RunBody(const Op* begin, const Op* end, int depth) {
  for (const Op* p = begin; p != end; ++p) {
    const Op& op = *p;
    if (op.kind == OpKind::kYield)
      return OpErr(op, depth == 0 ? "'yield' outside of a 'for' body"
                                  : "'yield' must be the last op of a 'for' body");
    absl::Status s = RunOp(op, depth);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Interp::Arity(const Op& op, size_t results, size_t operands) {
  if (op.results.size() != results)
    return OpErr(op, absl::StrCat("expected ", results, " result(s), found ", op.results.size()));
  if (op.operands.size() != operands)
    return OpErr(op,
                 absl::StrCat("expected ", operands, " operand(s), found ", op.operands.size()));
  return absl::OkStatus();
}

absl::Status Interp::Charge(const Op& op) {
  if (opts_.cancel != nullptr && opts_.cancel->load(std::memory_order_relaxed))
    return absl::CancelledError("the reference interpreter was cancelled");
  wave_ops_ += nthreads_ / 64;
  if (opts_.max_wave_ops > 0 && wave_ops_ > opts_.max_wave_ops)
    return OpErr(op,
                 absl::StrCat("the reference interpreter exceeded its budget of ",
                              opts_.max_wave_ops,
                              " wave-ops (one KIR op or loop iteration for one wave of 64 "
                              "threads) in workgroup (",
                              env_.wg[0], ", ", env_.wg[1], ", ", env_.wg[2],
                              "): the kernel runs too long or does not finish",
                              opts_.budget_hint.empty() ? "" : "; ", opts_.budget_hint),
                 absl::StatusCode::kResourceExhausted);
  return absl::OkStatus();
}

absl::Status Interp::RunOp(const Op& op, int depth) {
  absl::Status s = Charge(op);
  if (!s.ok()) return s;
  switch (op.kind) {
    case OpKind::kLoad:
      return RunLoad(op);
    case OpKind::kStore:
      return RunStore(op);
    case OpKind::kLdsDma:
      return RunLoad(op);
    case OpKind::kBarrier:
      // Lockstep execution: every earlier op has completed for every thread.
      return Arity(op, 0, 0);
    case OpKind::kMfma:
      return RunMfma(op);
    case OpKind::kConst:
      return RunConst(op);
    case OpKind::kZero:
      s = Arity(op, 1, 0);
      if (!s.ok()) return s;
      if (!ValidType(op.type)) return OpErr(op, "invalid result type " + TypeText(op.type));
      return Define(op, op.results[0], NewSlot(op.type));
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kFma:
      return RunElementwise(op);
    case OpKind::kCvt:
      return RunCvt(op);
    case OpKind::kSlice:
      return RunSlice(op);
    case OpKind::kConcat:
      return RunConcat(op);
    case OpKind::kFor:
      return RunFor(op, depth);
    case OpKind::kYield:
      return OpErr(op, "unexpected 'yield'");
    case OpKind::kGemm:
      return OpErr(op, "gemm is a tile-level op; promote the kernel first (kir::PromoteGemm)");
  }
  return OpErr(op, absl::StrCat("unknown op kind ", static_cast<int>(op.kind)));
}

absl::StatusOr<const Slot*> Interp::Value(const Op& op, const Operand& o) {
  if (o.is_arg) return OpErr(op, absl::StrCat("operand ", o.name, " must be an SSA value (%name)"));
  const Slot* s = Lookup(o.name);
  if (s == nullptr) return OpErr(op, absl::StrCat("use of undefined value %", o.name));
  if (s->ivar)
    return OpErr(op, absl::StrCat("%", o.name,
                                  " is a loop induction variable; it can only be "
                                  "used in index expressions"));
  return s;
}

absl::StatusOr<Source> Interp::ElementwiseSource(const Op& op, const Operand& o) {
  Source src;
  if (o.is_arg) {
    const Arg* a = k_.FindArg(o.name);
    if (a == nullptr || a->kind != Arg::Kind::kScalar)
      return OpErr(op, absl::StrCat("'", o.name, "' is not a scalar argument"));
    src.type = ValueType{a->elem, 1};
    src.scalar = args_.scalars.at(o.name);  // present: CheckArgs
    return src;
  }
  absl::StatusOr<const Slot*> s = Value(op, o);
  if (!s.ok()) return s.status();
  src.type = (*s)->type;
  src.per_thread = &(*s)->v;
  return src;
}

absl::StatusOr<Mem> Interp::ResolveMem(const Op& op, ValueType vt) {
  Mem m;
  const Arg* arg = k_.FindArg(op.mem);
  if (arg != nullptr) {
    if (arg->kind != Arg::Kind::kBuffer)
      return OpErr(op, absl::StrCat("'", op.mem, "' is a scalar argument, not a buffer"));
    PagedBytes& bytes = args_.buffers.at(op.mem);  // present: CheckArgs
    m.elem = arg->elem;
    m.shape = arg->shape;
    m.strides = arg->strides;
    m.paged = &bytes;
    m.size = static_cast<int64_t>(bytes.size());
    m.races = accesses_.at(op.mem).data();  // sized by CheckArgs
  } else if (k_.FindLds(op.mem) != nullptr && lds_.count(op.mem)) {
    const LdsAlloc* l = k_.FindLds(op.mem);
    std::vector<uint8_t>& bytes = lds_[op.mem];
    m.elem = l->elem;
    m.shape = l->shape;
    m.strides = lds_strides_[op.mem];
    m.data = bytes.data();
    m.size = static_cast<int64_t>(bytes.size());
    m.written = lds_written_[op.mem].data();
  } else {
    return OpErr(op, absl::StrCat("unknown buffer or LDS allocation '", op.mem, "'"));
  }
  size_t rank = m.shape.size();
  if (op.index.size() != rank)
    return OpErr(op, absl::StrCat(op.mem, " has ", rank, " dimension(s) but the access has ",
                                  op.index.size(), " index(es)"));
  if (op.along < 0 || static_cast<size_t>(op.along) >= rank)
    return OpErr(op, absl::StrCat("along ", op.along, " is not a dimension of ", op.mem));
  if (!ValidType(vt)) return OpErr(op, "invalid value type " + TypeText(vt));
  if (vt.elem != m.elem)
    return OpErr(op, absl::StrCat(op.mem, " holds ", std::string(ElemTypeName(m.elem)),
                                  " but the value is ", TypeText(vt)));
  for (size_t d = 0; d < rank; ++d) {
    std::string p = IndexProblem(op.index[d]);
    if (!p.empty()) return OpErr(op, absl::StrCat("index ", d, ": ", p));
    p = UnknownName(*op.index[d], [&](const IndexExpr& e) {
      return e.kind == IndexKind::kNamed ? k_.FindConst(e.name) != nullptr
                                         : loop_vars_.count(e.name) > 0;
    });
    if (!p.empty()) return OpErr(op, absl::StrCat("index ", d, ": ", p));
  }
  return m;
}

std::vector<FlatIndex> Interp::FlattenIndex(const Op& op) {
  std::vector<FlatIndex> flat(op.index.size());
  std::vector<ThreadIndex>& cache = index_cache_[&op];
  cache.resize(op.index.size());
  for (size_t d = 0; d < op.index.size(); ++d) {
    FlatIndex& f = flat[d];
    const IndexExpr* t = op.index[d].get();
    const IndexKind k = t->kind;
    if ((k == IndexKind::kAdd || k == IndexKind::kSub || k == IndexKind::kMul) &&
        ReadsTid(*t->lhs) != ReadsTid(*t->rhs)) {
      f.peel = k == IndexKind::kAdd ? FlatNode::kAdd : k == IndexKind::kSub ? FlatNode::kSub : FlatNode::kMul;
      f.t_left = ReadsTid(*t->lhs);
      f.v = Evaluate(f.t_left ? *t->rhs : *t->lhs, env_);
      t = f.t_left ? t->lhs.get() : t->rhs.get();
    }
    f.depth = Flatten(*t, env_, &f.code);
    if (f.depth > kMaxIndexDepth + 2) continue;  // per thread with Evaluate
    ThreadIndex& c = cache[d];
    if (c.code != f.code || c.val.size() != static_cast<size_t>(nthreads_)) {
      c.code = f.code;
      c.val.assign(static_cast<size_t>(nthreads_), 0);
      c.ok.assign(static_cast<size_t>(nthreads_), 0);
      int64_t stack[kMaxIndexDepth + 2];
      for (int64_t th = 0; th < nthreads_; ++th) {
        std::optional<int64_t> v = EvalFlat(f, tid_[th].data(), stack);
        c.ok[th] = v.has_value();
        c.val[th] = v.value_or(0);
      }
    }
    f.per_thread = &c;
  }
  return flat;
}

absl::Status Interp::EvalFlatIndex(const Op& op, const std::vector<FlatIndex>& flat, int64_t t,
                                   std::vector<int64_t>* idx) {
  idx->resize(flat.size());
  for (size_t d = 0; d < flat.size(); ++d) {
    const FlatIndex& f = flat[d];
    std::optional<int64_t> v;
    if (f.per_thread == nullptr) {
      v = Evaluate(*op.index[d], env_);  // SetThread(t) was called
    } else if (f.per_thread->ok[t]) {
      const int64_t tv = f.per_thread->val[t];
      if (f.peel == FlatNode::kValue) {
        v = tv;
      } else if (f.v) {
        const int64_t a = f.t_left ? tv : *f.v, b = f.t_left ? *f.v : tv;
        int64_t r = 0;
        const bool over = f.peel == FlatNode::kAdd   ? __builtin_add_overflow(a, b, &r)
                          : f.peel == FlatNode::kSub ? __builtin_sub_overflow(a, b, &r)
                                                     : __builtin_mul_overflow(a, b, &r);
        if (!over) v = r;
      }
    }
    if (!v)
      return OpErr(op,
                   absl::StrCat("index ", d, " cannot be evaluated for ", ThreadText(t),
                                ": it overflows 64 bits or divides by a non-positive value"),
                   absl::StatusCode::kOutOfRange);
    (*idx)[d] = *v;
  }
  return absl::OkStatus();
}

std::optional<std::pair<int64_t, int64_t>> Interp::WholeAccess(const Op& op, const Mem& m,
                                                               const std::vector<int64_t>& idx,
                                                               int width) const {
  // In shape, every term is at most (shape_d - 1) * stride_d * ElemBytes and
  // their sum less than 2^62 (CheckArgs / CheckLds): no overflow.
  const int64_t eb = ElemBytes(m.elem);
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    const int64_t lo = idx[d];
    if (lo < 0 || lo >= m.shape[d]) return std::nullopt;
    if (static_cast<int>(d) == op.along && width - 1 > m.shape[d] - 1 - lo) return std::nullopt;
    off += lo * m.strides[d] * eb;
  }
  const int64_t step = m.strides[op.along] * eb;
  // Strides are not negative: the first and last elements bound the rest.
  if (off + step * (width - 1) + eb > m.size) return std::nullopt;
  return std::make_pair(off, step);
}

absl::StatusOr<std::optional<int64_t>> Interp::ElementOffset(const Op& op, const Mem& m,
                                                             const std::vector<int64_t>& idx, int e,
                                                             int64_t t) {
  bool in_shape = true;
  for (size_t d = 0; d < idx.size(); ++d) {
    __int128 i = idx[d];
    if (static_cast<int>(d) == op.along) i += e;
    if (i < 0 || i >= m.shape[d]) in_shape = false;
  }
  // In shape, every term is at most (shape_d - 1) * stride_d * ElemBytes, which
  // CheckArgs / CheckLds bounded: no overflow.
  __int128 off = 0;
  if (in_shape)
    for (size_t d = 0; d < idx.size(); ++d) {
      __int128 i = idx[d];
      if (static_cast<int>(d) == op.along) i += e;
      off += i * m.strides[d] * ElemBytes(m.elem);
    }
  // Element e's own index (the along dimension advanced by e).
  auto index_text = [&] {
    std::vector<std::string> w;
    for (size_t d = 0; d < idx.size(); ++d) {
      __int128 i = idx[d];
      if (static_cast<int>(d) == op.along) i += e;
      if (i > INT64_MAX)
        w.push_back(absl::StrCat(idx[d], "+", e));
      else
        w.push_back(absl::StrCat(static_cast<int64_t>(i)));
    }
    return "[" + absl::StrJoin(w, ", ") + "]";
  };
  const char* verb = op.kind == OpKind::kStore ? "store" : "load";
  if (!in_shape) {
    if (op.guarded) return std::optional<int64_t>();
    return OpErr(op,
                 absl::StrCat(ThreadText(t), ": element ", e, " is at index ", index_text(),
                              ", outside the shape [", absl::StrJoin(m.shape, ", "), "] of ",
                              op.mem, "; use `", verb, " guarded` or fix the index"),
                 absl::StatusCode::kOutOfRange);
  }
  if (off < 0 || off + ElemBytes(m.elem) > m.size)
    return OpErr(op,
                 absl::StrCat(ThreadText(t), ": element ", e, " at index ", index_text(),
                              " is at byte offset ", static_cast<int64_t>(off), ", outside the ",
                              m.size, " bytes of ", op.mem),
                 absl::StatusCode::kOutOfRange);
  return std::optional<int64_t>(static_cast<int64_t>(off));
}

uint32_t ReadElem(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int b = 0; b < bytes; ++b) v |= static_cast<uint32_t>(p[b]) << (8 * b);
  return v;
}
void WriteElem(uint8_t* p, int bytes, uint32_t v) {
  for (int b = 0; b < bytes; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
}

std::string Interp::AccessText(uint64_t id, const char* did) const {
  const int64_t per_thread = std::max<int64_t>(1, static_cast<int64_t>(access_ops_.size()));
  const int64_t x = static_cast<int64_t>(id - 1), g = x / per_thread, wg = g / nthreads_, t = g % nthreads_;
  const Op& op = *access_ops_[static_cast<size_t>(x % per_thread)];
  return absl::StrCat("thread (", tid_[t][0], ", ", tid_[t][1], ", ", tid_[t][2],
                      ") of workgroup (", wg % k_.grid[0], ", ", wg / k_.grid[0] % k_.grid[1], ", ",
                      wg / (k_.grid[0] * k_.grid[1]), ") ", did, " earlier (", Where(op.loc), "'",
                      OpText(op), "')");
}

absl::Status Interp::TrackAccess(const Op& op, uint64_t ordinal, const Mem& m, int64_t off,
                                 int64_t t, const std::vector<int64_t>& idx, int e) {
  const bool store = op.kind == OpKind::kStore;
  const uint64_t per_thread = access_ops_.size();
  // This thread's first id (Run checked that it fits).
  const uint64_t lo = 1 + static_cast<uint64_t>(wg_base_ + t) * per_thread;
  auto mine = [&](uint64_t id) { return id >= lo && id - lo < per_thread; };
  const std::optional<PriorAccess<uint64_t>> prior =
      RecordAccess(m.races[off / ElemBytes(m.elem)], lo + ordinal, store, mine);
  if (!prior) return absl::OkStatus();
  std::vector<int64_t> at = idx;
  at[op.along] += e;
  const char* why =
      !store          ? "a thread loads a buffer element another thread stores in the same "
                        "dispatch; whether it sees the old or the new value depends on timing on "
                        "hardware"
      : prior->stored ? "two threads store to one buffer element in the same dispatch; which "
                        "value remains depends on timing on hardware"
                      : "a thread stores to a buffer element another thread loads in the same "
                        "dispatch; whether that load sees the old or the new value depends on "
                        "timing on hardware";
  return OpErr(op,
               absl::StrCat(ThreadText(t), ": element ", e, " is ", op.mem, "[",
                            absl::StrJoin(at, ", "), "], which ",
                            AccessText(prior->id, prior->stored ? "stored" : "loaded"),
                            ": global-memory race: ", why,
                            " (kirc orders no threads through global memory within a dispatch)"),
               absl::StatusCode::kFailedPrecondition);
}

absl::Status Interp::RunLoad(const Op& op) {
  const bool dma = op.kind == OpKind::kLdsDma;
  absl::Status s = Arity(op, dma ? 0 : 1, 0);
  if (!s.ok()) return s;
  absl::StatusOr<Mem> m = ResolveMem(op, op.type);
  if (!m.ok()) return m.status();
  if (dma && m->paged == nullptr) return OpErr(op, absl::StrCat("lds_dma copies from a buffer, not from ", op.mem));
  if (!dma) s = CanDefine(op, op.results[0]);
  if (!s.ok()) return s;
  Slot out = NewSlot(op.type);
  int eb = ElemBytes(m->elem);
  const uint64_t ordinal = AccessOrdinal(op);
  const uint64_t per_thread = access_ops_.size();
  // InterpOptions::loaded_after_store: nothing to record, or recorded.
  bool flagged = opts_.loaded_after_store == nullptr || opts_.loaded_after_store->count(op.mem) > 0;
  s = ForEachAccessedElement(op, *m, op.type.width, [&](int64_t t, int e, const std::vector<int64_t>& idx,
                                                        std::optional<int64_t> at_off,
                                                        uint64_t lo) -> absl::Status {
      auto mine = [&](uint64_t id) { return id >= lo && id - lo < per_thread; };
      if (at_off.has_value() && m->written != nullptr &&
          !std::all_of(m->written + *at_off, m->written + *at_off + eb, [](uint8_t w) { return w != 0; })) {
        std::vector<int64_t> at = idx;
        at[op.along] += e;
        return OpErr(op,
                     absl::StrCat(ThreadText(t), ": element ", e, " is ", op.mem, "[",
                                  absl::StrJoin(at, ", "),
                                  "], which no thread of the workgroup has stored: LDS contents are "
                                  "undefined when a workgroup starts (hardware reads garbage); "
                                  "store every LDS element before loading it"),
                     absl::StatusCode::kFailedPrecondition);
      }
      if (at_off.has_value() && m->races != nullptr && !flagged) {
        // A store recorded without a loader beside it (RaceSlots): this
        // thread's own earlier store (another's races below).
        const ElementRaces& r = m->races[*at_off / eb];
        if (r.store != 0 && !(r.store & ElementRaces::kSeveral) && !(r.load & ElementRaces::kSeveral)) {
          opts_.loaded_after_store->insert(op.mem);
          flagged = true;
        }
      }
      if (at_off.has_value() && m->races != nullptr &&
          RecordAccess(m->races[*at_off / eb], lo + ordinal, false, mine)) {
        // A race (RecordAccess recorded nothing): TrackAccess finds and names it.
        absl::Status r = TrackAccess(op, ordinal, *m, *at_off, t, idx, e);
        if (!r.ok()) return r;
      }
      out.v[t][e] = at_off.has_value() ? ReadElem(m->At(*at_off, eb), eb) : 0;
      return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (dma) return WriteLdsDma(op, out);
  if (op.tr) {
    s = TransposeLoadTr(op, &out);
    if (!s.ok()) return s;
  }
  return Define(op, op.results[0], std::move(out));
}

// load_tr (Op::tr, kernel.h): `out` holds each thread's own 4-element block;
// the result is wave-level. Waves are 64 consecutive linear thread ids, split
// in groups of 16 lanes; a group's blocks form a 4 x 16 matrix M whose row r
// is the blocks of lanes 4r..4r+3 side by side (block of lane 4r + c =
// columns 4c..4c+3), and lane j of the group receives column j of M:
// result element e = M[e][j]. (This is the KIR definition; the emulator runs
// the ISA's, compiler/isa/semantics.h DsReadTrB16Source.)
absl::Status Interp::TransposeLoadTr(const Op& op, Slot* out) {
  if (op.type.width != 4 || ElemBytes(op.type.elem) != 2 || op.guarded)
    return OpErr(op, absl::StrCat("load_tr reads an unguarded 16-bit x4 vector, not ", TypeText(op.type)));
  if (nthreads_ % 64 != 0)
    return OpErr(op, absl::StrCat("load_tr needs whole waves, but the workgroup has ", nthreads_, " threads"));
  const std::vector<Lane> own = out->v;
  for (int64_t group = 0; group < nthreads_; group += 16) {
    // m[r][col]: row r, column col of the group's 4 x 16 matrix.
    uint32_t m[4][16];
    for (int lane = 0; lane < 16; ++lane)
      for (int e = 0; e < 4; ++e) m[lane / 4][4 * (lane % 4) + e] = own[group + lane][e];
    for (int j = 0; j < 16; ++j)
      for (int e = 0; e < 4; ++e) out->v[group + j][e] = m[e][j];
  }
  return absl::OkStatus();
}

// lds_dma's LDS side: thread t's loaded vector (16 bytes) goes to the byte
// of element lds[lds_index] (evaluated for t; the validator made it the same
// in the whole wave) plus 16 * (t mod 64). Lockstep: the bytes are written
// when the op runs (the lowering waits for the DMA before a barrier or a
// read of them).
absl::Status Interp::WriteLdsDma(const Op& op, const Slot& vals) {
  const LdsAlloc* l = k_.FindLds(op.lds);
  if (l == nullptr || !lds_.count(op.lds))
    return OpErr(op, absl::StrCat("unknown LDS allocation '", op.lds, "'"));
  std::vector<uint8_t>& bytes = lds_[op.lds];
  uint8_t* written = lds_written_[op.lds].data();
  const std::vector<int64_t>& strides = lds_strides_[op.lds];
  if (op.lds_index.size() != l->shape.size())
    return OpErr(op, absl::StrCat(op.lds, " has ", l->shape.size(), " dimension(s) but the lds_dma base has ",
                                  op.lds_index.size(), " index(es)"));
  const int eb = ElemBytes(l->elem), veb = ElemBytes(vals.type.elem);
  if (vals.type.width * veb != kLdsDmaLaneBytes || eb != veb)
    return OpErr(op, absl::StrCat("lds_dma copies 16 bytes of ", op.lds, "'s element type, not ",
                                  TypeText(vals.type)));
  for (const IndexRef& e : op.lds_index) {
    std::string p = IndexProblem(e);
    if (p.empty())
      p = UnknownName(*e, [&](const IndexExpr& x) {
        return x.kind == IndexKind::kNamed ? k_.FindConst(x.name) != nullptr : loop_vars_.count(x.name) > 0;
      });
    if (!p.empty()) return OpErr(op, absl::StrCat("LDS index: ", p));
  }
  for (int64_t t = 0; t < nthreads_; ++t) {
    SetThread(t);
    __int128 base = 0;
    for (size_t d = 0; d < op.lds_index.size(); ++d) {
      std::optional<int64_t> v = Evaluate(*op.lds_index[d], env_);
      if (!v || *v < 0 || *v >= l->shape[d])
        return OpErr(op, absl::StrCat(ThreadText(t), ": LDS index ", d, " of the lds_dma base is ",
                                      v ? absl::StrCat(*v) : std::string("not computable"), ", outside 0..",
                                      l->shape[d] - 1, " of ", op.lds),
                     absl::StatusCode::kOutOfRange);
      base += static_cast<__int128>(*v) * strides[d] * eb;
    }
    const __int128 off = base + static_cast<__int128>(t % 64) * kLdsDmaLaneBytes;
    if (off < 0 || off + kLdsDmaLaneBytes > static_cast<__int128>(bytes.size()))
      return OpErr(op, absl::StrCat(ThreadText(t), ": lane ", t % 64, " writes LDS bytes from ",
                                    static_cast<int64_t>(off), ", past the ", bytes.size(), " bytes of ", op.lds),
                   absl::StatusCode::kOutOfRange);
    for (int e = 0; e < vals.type.width; ++e) {
      const int64_t at = static_cast<int64_t>(off) + e * eb;
      WriteElem(bytes.data() + at, eb, vals.v[t][e]);
      std::fill(written + at, written + at + eb, uint8_t{1});
    }
  }
  return absl::OkStatus();
}

absl::Status Interp::RunStore(const Op& op) {
  absl::Status s = Arity(op, 0, 1);
  if (!s.ok()) return s;
  absl::StatusOr<const Slot*> v = Value(op, op.operands[0]);
  if (!v.ok()) return v.status();
  const Slot& val = **v;
  absl::StatusOr<Mem> m = ResolveMem(op, val.type);
  if (!m.ok()) return m.status();
  int eb = ElemBytes(m->elem);
  const uint64_t ordinal = AccessOrdinal(op);
  const uint64_t per_thread = access_ops_.size();
  return ForEachAccessedElement(op, *m, val.type.width, [&](int64_t t, int e, const std::vector<int64_t>& idx,
                                                            std::optional<int64_t> at_off,
                                                            uint64_t lo) -> absl::Status {
      auto mine = [&](uint64_t id) { return id >= lo && id - lo < per_thread; };
      if (at_off.has_value()) {
        if (m->races != nullptr && RecordAccess(m->races[*at_off / eb], lo + ordinal, true, mine)) {
          // A race (RecordAccess recorded nothing): TrackAccess finds and names it.
          absl::Status r = TrackAccess(op, ordinal, *m, *at_off, t, idx, e);
          if (!r.ok()) return r;
        }
        WriteElem(m->At(*at_off, eb), eb, val.v[t][e]);
        if (m->written != nullptr) std::fill(m->written + *at_off, m->written + *at_off + eb, 1);
      }
      return absl::OkStatus();
  });
}

absl::Status Interp::RunElementwise(const Op& op) {
  size_t n = op.kind == OpKind::kFma ? 3 : 2;
  absl::Status s = Arity(op, 1, n);
  if (!s.ok()) return s;
  std::vector<Source> src;
  for (const Operand& o : op.operands) {
    absl::StatusOr<Source> x = ElementwiseSource(op, o);
    if (!x.ok()) return x.status();
    if (!ValidType(x->type)) return OpErr(op, "invalid operand type " + TypeText(x->type));
    src.push_back(*x);
  }
  ValueType rt = src[0].type;
  for (const Source& x : src) {
    if (x.type.elem != rt.elem)
      return OpErr(op, absl::StrCat("operands have different element types (",
                                    TypeText(src[0].type), " and ", TypeText(x.type), ")"));
    rt.width = std::max(rt.width, x.type.width);
  }
  for (size_t i = 0; i < src.size(); ++i)
    if (src[i].type.width != rt.width && src[i].type.width != 1)
      return OpErr(
          op, absl::StrCat("operand ", OperandText(op.operands[i]), " is ", TypeText(src[i].type),
                           " but the result is ", TypeText(rt), "; widths must match or be 1"));
  if (op.kind == OpKind::kFma && rt.elem == ElemType::kI32)
    return OpErr(op, "fma is defined for float types only");
  if (IsFp8(rt.elem))
    return OpErr(op, absl::StrCat("fp8 values (", TypeText(rt),
                                  ") take no arithmetic: cvt them to f32 first"));
  s = CanDefine(op, op.results[0]);
  if (!s.ok()) return s;
  Slot out = NewSlot(rt);
  for (int64_t t = 0; t < nthreads_; ++t) {
    for (int e = 0; e < rt.width; ++e) {
      uint32_t a = src[0].Get(t, e), b = src[1].Get(t, e), c = n == 3 ? src[2].Get(t, e) : 0;
      uint32_t r = 0;
      switch (rt.elem) {
        case ElemType::kI32:
          r = op.kind == OpKind::kAdd ? a + b : a * b;  // uint32: wraps mod 2^32
          break;
        case ElemType::kF32: {
          float fa = F32FromBits(a), fb = F32FromBits(b);
          float fr = op.kind == OpKind::kAdd   ? fa + fb
                     : op.kind == OpKind::kMul ? fa * fb
                                               : std::fma(fa, fb, F32FromBits(c));
          r = CanonF32(fr);
          break;
        }
        case ElemType::kF16:
        case ElemType::kBF16: {
          double da = ToDouble(rt.elem, a), db = ToDouble(rt.elem, b);
          std::pair<double, double> x;
          if (op.kind == OpKind::kAdd) {
            x = TwoSum(da, db);
          } else if (op.kind == OpKind::kMul) {
            x = {da * db, 0.0};  // exact: at most 22 significant bits, in range
          } else {
            x = TwoSum(da * db, ToDouble(rt.elem, c));  // the product is exact
          }
          r = RoundPairTo(rt.elem, x.first, x.second);
          break;
        }
        default:  // fp8: refused above
          break;
      }
      out.v[t][e] = r;
    }
  }
  return Define(op, op.results[0], std::move(out));
}

absl::Status Interp::RunCvt(const Op& op) {
  absl::Status s = Arity(op, 1, 1);
  if (!s.ok()) return s;
  absl::StatusOr<const Slot*> v = Value(op, op.operands[0]);
  if (!v.ok()) return v.status();
  const Slot& in = **v;
  if (!ValidType(op.type)) return OpErr(op, "invalid result type " + TypeText(op.type));
  if (in.type.width != op.type.width)
    return OpErr(op, absl::StrCat("cvt keeps the width: the operand is ", TypeText(in.type),
                                  " but the result is ", TypeText(op.type)));
  ElemType from = in.type.elem, to = op.type.elem;
  if (from == ElemType::kI32 || to == ElemType::kI32)
    return OpErr(op, "conversions to or from i32 are not supported");
  s = CanDefine(op, op.results[0]);
  if (!s.ok()) return s;
  Slot out = NewSlot(op.type);
  for (int64_t t = 0; t < nthreads_; ++t)
    for (int e = 0; e < op.type.width; ++e) {
      uint32_t x = in.v[t][e];
      if (from == to) {
        out.v[t][e] = x;
        continue;
      }
      float f = static_cast<float>(ToDouble(from, x));  // exact (f16/bf16/fp8 -> f32)
      if (from == ElemType::kF32) f = F32FromBits(x);   // keeps NaN payloads
      uint32_t r = F32Bits(f);
      if (to == ElemType::kF16) r = F32ToF16Bits(f);
      if (to == ElemType::kBF16) r = F32ToBf16Bits(f);
      // KIR's fp8 cvt: nearest even, saturating (float_bits.h F32ToFp8Bits).
      if (IsFp8(to)) r = F32ToFp8Bits(to, f);
      out.v[t][e] = r;
    }
  return Define(op, op.results[0], std::move(out));
}

absl::Status Interp::RunSlice(const Op& op) {
  absl::Status s = Arity(op, 1, 1);
  if (!s.ok()) return s;
  absl::StatusOr<const Slot*> v = Value(op, op.operands[0]);
  if (!v.ok()) return v.status();
  const Slot& in = **v;
  if (!ValidType(op.type)) return OpErr(op, "invalid result type " + TypeText(op.type));
  if (op.type.elem != in.type.elem)
    return OpErr(op, absl::StrCat("slice keeps the element type: the operand is ",
                                  TypeText(in.type), " but the result is ", TypeText(op.type)));
  if (op.first < 0 || op.first > in.type.width - op.type.width)
    return OpErr(op, absl::StrCat("elements ", op.first, "..",
                                  static_cast<int64_t>(op.first) + op.type.width - 1,
                                  " are not all in the operand (", TypeText(in.type), ")"));
  s = CanDefine(op, op.results[0]);
  if (!s.ok()) return s;
  Slot out = NewSlot(op.type);
  for (int64_t t = 0; t < nthreads_; ++t)
    for (int e = 0; e < op.type.width; ++e) out.v[t][e] = in.v[t][op.first + e];
  return Define(op, op.results[0], std::move(out));
}

// concat: the first operand's elements, then the second's.
absl::Status Interp::RunConcat(const Op& op) {
  absl::Status s = Arity(op, 1, 2);
  if (!s.ok()) return s;
  absl::StatusOr<const Slot*> a = Value(op, op.operands[0]);
  if (!a.ok()) return a.status();
  absl::StatusOr<const Slot*> b = Value(op, op.operands[1]);
  if (!b.ok()) return b.status();
  const Slot& lo = **a;
  const Slot& hi = **b;
  if (!ValidType(op.type)) return OpErr(op, "invalid result type " + TypeText(op.type));
  if (!(lo.type == hi.type) || op.type.elem != lo.type.elem || op.type.width != 2 * lo.type.width)
    return OpErr(op, absl::StrCat("concat joins two values of one type into twice the width: the operands are ",
                                  TypeText(lo.type), " and ", TypeText(hi.type), ", the result ",
                                  TypeText(op.type)));
  s = CanDefine(op, op.results[0]);
  if (!s.ok()) return s;
  Slot out = NewSlot(op.type);
  const int w = lo.type.width;
  for (int64_t t = 0; t < nthreads_; ++t)
    for (int e = 0; e < w; ++e) {
      out.v[t][e] = lo.v[t][e];
      out.v[t][w + e] = hi.v[t][e];
    }
  return Define(op, op.results[0], std::move(out));
}

absl::Status Interp::RunConst(const Op& op) {
  absl::Status s = Arity(op, 1, 0);
  if (!s.ok()) return s;
  if (!ValidType(op.type)) return OpErr(op, "invalid result type " + TypeText(op.type));
  std::optional<uint32_t> bits = ExactBits(op.type.elem, op.constant);
  if (!bits)
    return OpErr(op, absl::StrCat(FormatDouble(op.constant), " is not exactly representable in ",
                                  std::string(ElemTypeName(op.type.elem))));
  s = CanDefine(op, op.results[0]);
  if (!s.ok()) return s;
  Slot out = NewSlot(op.type);
  for (Lane& l : out.v)
    for (int e = 0; e < op.type.width; ++e) l[e] = *bits;
  return Define(op, op.results[0], std::move(out));
}

absl::Status Interp::RunMfma(const Op& op) {
  absl::Status s = Arity(op, 1, 3);
  if (!s.ok()) return s;
  const MfmaDesc* d = LookupMfma(op.mfma);
  if (d == nullptr) return OpErr(op, absl::StrCat("unknown MFMA '", op.mfma, "'"));
  const ValueType cd{ElemType::kF32, d->cd_width};
  const Slot* in[3];
  static const char* const kRole[] = {"A", "B", "C"};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<const Slot*> v = Value(op, op.operands[i]);
    if (!v.ok()) return v.status();
    // A and B: the width and an element type of the operand's kind (fp8 and
    // bf8 of either flavour: the validator matches the flavour to the target).
    const ValueType t = (*v)->type;
    const bool ok = i < 2 ? t.width == d->ab_width && MfmaInAccepts(i == 0 ? d->a_in : d->b_in, t.elem) : t == cd;
    if (!ok)
      return OpErr(op, absl::StrCat("operand ", kRole[i], " (%", op.operands[i].name, ") is ", TypeText(t),
                                    " but ", d->kir_name, " needs ",
                                    i < 2 ? absl::StrCat(MfmaInName(i == 0 ? d->a_in : d->b_in), "x", d->ab_width)
                                          : TypeText(cd)));
    in[i] = *v;
  }
  if (!(op.type == cd))
    return OpErr(op, absl::StrCat("the result type is ", TypeText(op.type), " but ", d->kir_name,
                                  " produces ", TypeText(cd)));
  s = CanDefine(op, op.results[0]);
  if (!s.ok()) return s;
  const MfmaPlan& plan = PlanFor(*d);
  if (!plan.error.empty()) return OpErr(op, plan.error);
  const int M = d->m, N = d->n, K = d->k, cdw = d->cd_width;
  Slot out = NewSlot(cd);
  // Products of two inputs are exact in double, so a fused multiply-add
  // rounds exactly as the product's separate add (and is NaN exactly when
  // it is; CanonF32 makes every NaN the same).
  std::vector<double> A(static_cast<size_t>(M) * K), B(static_cast<size_t>(K) * N);
  std::vector<double> acc(static_cast<size_t>(cdw) * 64);
  const ElemType a_elem = in[0]->type.elem, b_elem = in[1]->type.elem;
  const double* a_table = a_elem == ElemType::kF16 ? F16Doubles() : nullptr;
  const double* b_table = b_elem == ElemType::kF16 ? F16Doubles() : nullptr;
  auto a_double = [&](uint32_t bits) {
    return a_table != nullptr ? a_table[bits & 0xffff] : ToDouble(a_elem, bits);
  };
  auto b_double = [&](uint32_t bits) {
    return b_table != nullptr ? b_table[bits & 0xffff] : ToDouble(b_elem, bits);
  };
  for (int64_t w = 0; w < nthreads_ / 64; ++w) {
    const Lane* a_in = &in[0]->v[w * 64];
    const Lane* b_in = &in[1]->v[w * 64];
    const Lane* c_in = &in[2]->v[w * 64];
    for (size_t x = 0; x < A.size(); ++x) A[x] = a_double(a_in[plan.a_lane[x]][plan.a_elem[x]]);
    for (size_t x = 0; x < B.size(); ++x) B[x] = b_double(b_in[plan.b_lane[x]][plan.b_elem[x]]);
#if defined(__x86_64__)
    static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                               std::getenv("KIRC_NO_AVX512") == nullptr;
    if (plan.lanes && avx512) {
      MfmaLanesAvx512(plan, A.data(), B.data(), c_in[0].data(), out.v[w * 64].data(),
                      std::tuple_size<Lane>::value);  // uint32s from one lane's value to the next
      continue;
    }
#endif
    for (int e = 0; e < cdw; ++e)
      for (int l = 0; l < 64; ++l) {
        float c;  // ToDouble(kF32, bits)
        std::memcpy(&c, &c_in[l][e], 4);
        acc[e * 64 + l] = c;
      }
    MfmaSums(plan, A.data(), B.data(), acc.data());
    Lane* o = &out.v[w * 64];
    for (int e = 0; e < cdw; ++e)
      for (int l = 0; l < 64; ++l) {
        const float f = static_cast<float>(acc[e * 64 + l]);
        uint32_t bits;  // CanonF32
        std::memcpy(&bits, &f, 4);
        o[l][e] = f != f ? kF32QNaN : bits;
      }
  }
  return Define(op, op.results[0], std::move(out));
}

absl::Status Interp::RunFor(const Op& op, int depth) {
  if (depth >= kInterpMaxLoopNesting)
    return OpErr(op, absl::StrCat("loops are nested more than ", kInterpMaxLoopNesting, " deep"));
  if (op.step <= 0) return OpErr(op, absl::StrCat("the step must be positive, found ", op.step));
  size_t n = op.iter_args.size();
  if (op.results.size() != n || op.operands.size() != n)
    return OpErr(op, absl::StrCat("'for' has ", n, " iter_arg(s), ", op.operands.size(),
                                  " initial value(s) and ", op.results.size(), " result(s)"));
  if (op.body.empty() || op.body.back().kind != OpKind::kYield)
    return OpErr(op, "the loop body must end with 'yield'");
  const Op& yield = op.body.back();
  if (yield.operands.size() != n || !yield.results.empty())
    return OpErr(yield, absl::StrCat("yield passes ", yield.operands.size(),
                                     " value(s) but the loop has ", n, " iter_arg(s)"));
  absl::Status s = CanDefine(op, op.ivar);
  if (!s.ok()) return s;
  std::set<std::string> names{op.ivar};
  for (const std::string& a : op.iter_args) {
    s = CanDefine(op, a);
    if (!s.ok()) return s;
    if (!names.insert(a).second) return OpErr(op, absl::StrCat("%", a, " is defined twice"));
  }
  std::set<std::string> result_names;
  for (const std::string& r : op.results) {
    s = CanDefine(op, r);
    if (!s.ok()) return s;
    if (!result_names.insert(r).second) return OpErr(op, absl::StrCat("%", r, " is defined twice"));
  }
  std::vector<Slot> cur;
  for (const Operand& o : op.operands) {
    absl::StatusOr<const Slot*> v = Value(op, o);
    if (!v.ok()) return v.status();
    cur.push_back(**v);
  }
  std::vector<ValueType> types;
  for (const Slot& c : cur) types.push_back(c.type);
  for (int64_t v = op.lo; v < op.hi;) {
    s = Charge(op);
    if (!s.ok()) return s;
    scopes_.emplace_back();
    loop_vars_[op.ivar] = v;
    Slot iv;
    iv.type = ValueType{ElemType::kI32, 1};
    iv.ivar = true;
    scopes_.back()[op.ivar] = std::move(iv);
    for (size_t i = 0; i < n; ++i) scopes_.back()[op.iter_args[i]] = std::move(cur[i]);
    s = RunBody(op.body.data(), op.body.data() + op.body.size() - 1, depth + 1);
    std::vector<Slot> next;
    for (size_t i = 0; s.ok() && i < n; ++i) {
      absl::StatusOr<const Slot*> y = Value(yield, yield.operands[i]);
      if (!y.ok()) {
        s = y.status();
      } else if (!((*y)->type == types[i])) {
        s = OpErr(yield, absl::StrCat("yield operand ", i, " (%", yield.operands[i].name, ") is ",
                                      TypeText((*y)->type), " but iter_arg %", op.iter_args[i],
                                      " is ", TypeText(types[i])));
      } else {
        // A value of this iteration's scope (dropped below) yielded once is
        // moved; one from an enclosing scope, or yielded twice, is copied.
        const std::string& name = yield.operands[i].name;
        bool once = true;
        for (size_t j = 0; j < n; ++j) once = once && (j == i || yield.operands[j].name != name);
        auto it = scopes_.back().find(name);
        if (once && it != scopes_.back().end() && &it->second == *y)
          next.push_back(std::move(it->second));
        else
          next.push_back(**y);
      }
    }
    scopes_.pop_back();
    loop_vars_.erase(op.ivar);
    if (!s.ok()) return s;
    cur = std::move(next);
    if (__builtin_add_overflow(v, op.step, &v)) break;
  }
  for (size_t i = 0; i < n; ++i) {
    s = Define(op, op.results[i], std::move(cur[i]));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Interpret(const Kernel& k, PagedInterpArgs& args, const InterpOptions& opts) {
  for (const Op& op : k.body)
    if (op.kind == OpKind::kGemm)
      return absl::InvalidArgumentError(absl::StrCat(
          Where(op.loc), "error: in '", GemmOpText(op.gemm),
          "': gemm is a tile-level op; promote the kernel first (kir::PromoteGemm in "
          "compiler/promote) and interpret the thread-level kernel"));
  return Interp(k, args, opts).Run();
}

absl::Status Interpret(const Kernel& k, InterpArgs& args, const InterpOptions& opts) {
  PagedInterpArgs paged;
  for (const auto& [name, bytes] : args.buffers) paged.buffers.emplace(name, PagedBytes(bytes));
  paged.scalars = args.scalars;
  absl::Status s = Interpret(k, paged, opts);
  // Buffers are updated in place, also when the run stopped (as before).
  for (auto& [name, bytes] : args.buffers) {
    auto it = paged.buffers.find(name);
    if (it != paged.buffers.end()) bytes = it->second.ToVector();
  }
  return s;
}

uint16_t RoundToF16Bits(double v) { return static_cast<uint16_t>(RoundPair(v, 0.0, 5, 10)); }
uint16_t RoundToBf16Bits(double v) { return static_cast<uint16_t>(RoundPair(v, 0.0, 8, 7)); }

int64_t InterpBookkeepingBytesPerElement() {
  return static_cast<int64_t>(sizeof(ElementRaces));
}

}  // namespace kir
