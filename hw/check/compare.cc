#include "hw/check/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/float_bits.h"
#include "compiler/target/target.h"
#include "hw/check/npy.h"

namespace kir {
namespace {

// The longest chain of accumulated products behind any value: an MFMA adds
// its k to its C operand's chain; a loop multiplies the growth of each
// carried value per iteration by its trip count; other ops take the longest
// chain of their operands. A tile-level gemm reduces over its whole K.
class ReductionLengths {
 public:
  explicit ReductionLengths(const Kernel& k) : k_(k) {}
  int64_t Max() {
    Walk(k_.body);
    return best_;
  }

 private:
  int64_t Len(const std::string& n) const {
    auto it = len_.find(n);
    return it == len_.end() ? 0 : it->second;
  }
  void Set(const std::string& n, int64_t v) {
    len_[n] = v;
    best_ = std::max(best_, v);
  }
  void Walk(const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      int64_t in = 0;
      for (const Operand& o : op.operands) in = std::max(in, Len(o.name));
      if (op.kind == OpKind::kGemm) {
        const Arg* a = k_.FindArg(op.gemm.a);
        if (a != nullptr && a->shape.size() == 2) best_ = std::max(best_, a->shape[op.gemm.a_km ? 0 : 1]);
      } else if (op.kind == OpKind::kMfma) {
        const MfmaDesc* m = LookupMfma(op.mfma);
        if (!op.results.empty() && op.operands.size() == 3)
          Set(op.results[0], Len(op.operands[2].name) + (m != nullptr ? m->k : 1));
      } else if (op.kind == OpKind::kFor) {
        const int64_t trips = ForTripCount(op);
        for (size_t i = 0; i < op.iter_args.size() && i < op.operands.size(); ++i)
          Set(op.iter_args[i], Len(op.operands[i].name));
        std::vector<int64_t> before;
        for (const std::string& a : op.iter_args) before.push_back(Len(a));
        Walk(op.body);
        const Op& y = op.body.empty() ? op : op.body.back();
        for (size_t i = 0; i < op.results.size() && i < y.operands.size() && i < before.size(); ++i) {
          int64_t growth = std::max<int64_t>(0, Len(y.operands[i].name) - before[i]);
          Set(op.results[i], before[i] + trips * growth);
        }
      } else {
        for (const std::string& r : op.results) Set(r, in);
      }
    }
  }
  const Kernel& k_;
  std::map<std::string, int64_t> len_;
  int64_t best_ = 1;
};

}  // namespace

double ElementValue(ElemType t, const uint8_t* p) {
  uint32_t bits = 0;
  std::memcpy(&bits, p, ElemBytes(t));
  switch (t) {
    case ElemType::kF32: return F32FromBits(bits);
    case ElemType::kF16: return F16BitsToF32(static_cast<uint16_t>(bits));
    case ElemType::kBF16: return Bf16BitsToF32(static_cast<uint16_t>(bits));
    case ElemType::kI32: return static_cast<int32_t>(bits);
    case ElemType::kF8E4M3FNUZ:
    case ElemType::kF8E5M2FNUZ:
    case ElemType::kF8E4M3FN:
    case ElemType::kF8E5M2: return Fp8BitsToF32(t, static_cast<uint8_t>(bits));
  }
  return 0;
}

int64_t ReductionLength(const Kernel& k) { return ReductionLengths(k).Max(); }

Tolerance ToleranceFor(const Kernel& k, const Arg& out, int64_t reduction_length) {
  Tolerance t;
  switch (out.elem) {
    case ElemType::kF32: {
      int64_t kk = reduction_length > 0 ? reduction_length : ReductionLength(k);
      double need = 4.0 * static_cast<double>(kk) * std::ldexp(1.0, -24);
      t.rtol = std::max(1e-5, need);
      t.why = t.rtol > 1e-5 ? absl::StrFormat("rtol %.3g for f32 (reduction length %d)", t.rtol, kk)
                            : "rtol 1e-5 for f32";
      break;
    }
    case ElemType::kF16:
      t.rtol = std::ldexp(1.0, -10);
      t.why = "1 ulp of f16 (rtol 2^-10)";
      break;
    case ElemType::kBF16:
      t.rtol = std::ldexp(1.0, -7);
      t.why = "1 ulp of bf16 (rtol 2^-7)";
      break;
    case ElemType::kI32:
      t.why = "exact for i32";
      break;
    case ElemType::kF8E4M3FNUZ:
    case ElemType::kF8E5M2FNUZ:
    case ElemType::kF8E4M3FN:
    case ElemType::kF8E5M2: {
      // KIR's cvt to fp8 is deterministic (round to nearest even, saturating:
      // float_bits.h), so the device must match the reference code for code
      // unless an unordered sum (mfma, gemm) precedes it: then 1 ulp of the
      // format, relative to the largest reference element.
      int64_t kk = reduction_length > 0 ? reduction_length : ReductionLength(k);
      if (kk <= 1) {
        t.bits = true;
        t.why = absl::StrCat("exact for ", std::string(ElemTypeName(out.elem)), " (a deterministic conversion)");
      } else {
        t.rtol = std::ldexp(1.0, -Fp8FormatOf(out.elem)->man_bits);
        t.why = absl::StrFormat("1 ulp of %s after a reduction of length %d (rtol 2^-%d)",
                                std::string(ElemTypeName(out.elem)), kk, Fp8FormatOf(out.elem)->man_bits);
      }
      break;
    }
  }
  return t;
}

namespace {

// KIR's cvt of f32 `v` to float type t (float_bits.h; the reference
// interpreter's), as a value.
double ConvertTo(ElemType t, float v) {
  uint8_t b[4];
  if (t == ElemType::kF16) {
    const uint16_t h = F32ToF16Bits(v);
    std::memcpy(b, &h, 2);
  } else if (t == ElemType::kBF16) {
    const uint16_t h = F32ToBf16Bits(v);
    std::memcpy(b, &h, 2);
  } else if (Fp8FormatOf(t) != nullptr) {
    b[0] = F32ToFp8Bits(t, v);
  } else {
    return v;
  }
  return ElementValue(t, b);
}
// The conversion of the f32 nearest `x` on its low (RoundDown) or high
// (RoundUp) side: the conversion of any real in [lo, hi] lies between them.
double RoundDown(ElemType t, double x) {
  float f = static_cast<float>(x);
  if (f > x) f = std::nextafter(f, -INFINITY);
  return ConvertTo(t, f);
}
double RoundUp(ElemType t, double x) {
  float f = static_cast<float>(x);
  if (f < x) f = std::nextafter(f, INFINITY);
  return ConvertTo(t, f);
}

// Compares one written-to buffer under `tol` (`shadow`: the magnitude shadow's
// bytes of this buffer in random mode: the bound of Tolerance's shadow kind).
// Pages neither `o` nor `r` materialised hold the same bytes in both (one
// filler: copies of one input) and are skipped: their elements count as
// compared with error 0 and are left out of max|ref|.
// `kinds`, `pre`: the reference's per-store records of this buffer
// (StoreRecordKernel: i32 StoreKind and f32 w per element; null: none).
BufferDiff CompareBuffer(const Arg& a, const PagedBytes& o, const PagedBytes& r, const PagedBytes* shadow,
                         Tolerance tol, const PagedBytes* kinds = nullptr, const PagedBytes* pre = nullptr) {
  BufferDiff d;
  d.name = a.name;
  d.tol = std::move(tol);
  int eb = ElemBytes(a.elem);
  size_t rank = a.shape.size();
  std::vector<int64_t> idx(rank, 0);
  const bool same = o.SameFiller(r);
  constexpr uint64_t P = PagedBytes::kPageBytes;
  // Elements of the last dimension from idx on that lie in untouched page(s)
  // starting with the one of byte `off` (0: that page was touched).
  auto untouched_run = [&](int64_t off) -> int64_t {
    if (!same || off < 0 || static_cast<uint64_t>(off) >= o.size()) return 0;
    const uint64_t p = static_cast<uint64_t>(off) / P;
    if (o.materialised(p) || r.materialised(p)) return 0;
    if (rank == 0) return 1;
    const int64_t st = a.strides[rank - 1] * eb;
    const int64_t left = a.shape[rank - 1] - idx[rank - 1];
    if (st <= 0) return left;
    const int64_t in_page = static_cast<int64_t>(((p + 1) * P - static_cast<uint64_t>(off) + st - 1) / st);
    return std::max<int64_t>(1, std::min(left, in_page));
  };
  uint8_t ob[8] = {}, rb[8] = {}, sb[8] = {};
  // Pass 1: max |ref| over the finite elements; pass 2: errors.
  for (int pass = 0; pass < 2; ++pass) {
    std::fill(idx.begin(), idx.end(), 0);
    bool done = rank == 0;
    double worst = -1;
    bool worst_bad = false;
    while (!done) {
      int64_t off = 0;
      for (size_t i = 0; i < rank; ++i) off += idx[i] * a.strides[i];
      off *= eb;
      if (const int64_t skip = untouched_run(off); skip > 0) {
        if (pass == 1) d.elements += skip, d.untouched += skip;
        if (rank > 0) idx[rank - 1] += skip - 1;
        done = !NextIndex(idx, a.shape);
        continue;
      }
      r.Read(static_cast<uint64_t>(off), rb, static_cast<uint64_t>(eb));
      double rv = ElementValue(a.elem, rb);
      if (pass == 0) {
        if (std::isfinite(rv)) d.max_abs_ref = std::max(d.max_abs_ref, std::fabs(rv));
        else ++d.nonfinite_ref;
      } else {
        o.Read(static_cast<uint64_t>(off), ob, static_cast<uint64_t>(eb));
        double ov = ElementValue(a.elem, ob);
        double err;
        bool bad;
        const bool finite = std::isfinite(rv) && std::isfinite(ov);
        if (finite) {
          err = std::fabs(ov - rv);
        } else {
          // Non-finite on either side: only an exact match (same inf, or
          // NaN for NaN) passes.
          bool same = std::isnan(rv) ? std::isnan(ov) : ov == rv;
          err = same ? 0 : INFINITY;
        }
        if (d.tol.bits) {
          bad = std::memcmp(ob, rb, eb) != 0 && !(std::isnan(rv) && std::isnan(ov));
        } else if (!finite) {
          bad = err != 0;
        } else if (shadow != nullptr) {
          double sv = INFINITY;
          if (shadow != nullptr) {
            shadow->Read(static_cast<uint64_t>(off), sb, static_cast<uint64_t>(eb));
            sv = ElementValue(a.elem, sb);
          }
          // The kind of the store that wrote this element last, in the
          // reference's run (StoreRecordKernel).
          int64_t woff = 0;
          for (size_t i = 0; i < rank; ++i) woff += idx[i] * a.strides[i];
          int32_t kind = static_cast<int32_t>(StoreKind::kBounded);
          if (kinds != nullptr) kinds->Read(static_cast<uint64_t>(woff) * 4, reinterpret_cast<uint8_t*>(&kind), 4);
          if (kind == static_cast<int32_t>(StoreKind::kIdentical)) {
            // A store with nothing that may differ behind it wrote this
            // element (review 6 F8): bit for bit.
            ++d.identical;
            bad = std::memcmp(ob, rb, eb) != 0;
          } else if (!std::isfinite(sv)) {
            bad = false;  // an infinite or NaN shadow bounds nothing
          } else if (d.tol.value_factor > 0 && std::fabs(rv) < d.tol.value_max) {
            bad = err > d.tol.atol + d.tol.shadow_factor * sv + d.tol.value_factor * std::fabs(rv);
          } else {
            bad = err > d.tol.atol + d.tol.whole_shadow_factor * sv;
          }
          if (!bad && pre != nullptr && std::isfinite(sv) && kind == static_cast<int32_t>(StoreKind::kPreRounding)) {
            // The reference's f32 value w before the element's last
            // conversion (StoreRecordKernel): the device's is within G of
            // it, so its output lies between the conversions of w - G and
            // w + G (a conversion is monotone): one code off is caught
            // unless w lies within G of a rounding boundary (review 6 F2).
            uint8_t wb[4];
            pre->Read(static_cast<uint64_t>(woff) * 4, wb, 4);
            float w;
            std::memcpy(&w, wb, 4);
            if (std::isfinite(w)) {
              const double g =
                  (d.tol.value_factor > 0 ? d.tol.shadow_factor : d.tol.whole_shadow_factor) * sv + d.tol.atol;
              bad = ov < RoundDown(a.elem, w - g) || ov > RoundUp(a.elem, w + g);
              d.pre_rounding += 1;
            }
          }
        } else {
          bad = err > d.tol.atol + d.tol.rtol * d.max_abs_ref;
        }
        d.nonfinite_mismatches += bad && !finite;
        ++d.elements;
        d.max_abs_err = std::max(d.max_abs_err, err);
        d.mismatches += bad;
        // The worst element: the largest error, an element out of tolerance
        // first (in bit-identity mode -0 for +0 is one with error 0).
        if ((bad && !worst_bad) || (bad == worst_bad && err > worst)) {
          worst = err;
          worst_bad = bad;
          d.worst_index = idx;
          d.worst_out = ov;
          d.worst_ref = rv;
        }
      }
      done = !NextIndex(idx, a.shape);
    }
  }
  // n/a (NaN) whenever every finite reference element is 0, an exact match
  // included: there is no scale to be relative to (docs/run.md, "The report").
  d.max_rel_err = d.max_abs_ref > 0 ? d.max_abs_err / d.max_abs_ref : NAN;
  d.ok = d.mismatches == 0;
  return d;
}

// Every written-to buffer of `k`, each under tol_of(arg).
// `records`: use ref's per-store records (StoreRecordKernel) of the
// buffers not in `loaded_after_store` (null: of every buffer that has them).
template <typename TolFn>
std::vector<BufferDiff> CompareEach(const Kernel& k, const KernelData& out, const KernelData& ref,
                                    const KernelData* shadow, TolFn tol_of, bool records = false,
                                    const std::set<std::string>* loaded_after_store = nullptr) {
  std::vector<BufferDiff> diffs;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.access == Access::kReadOnly) continue;
    const PagedBytes* sh = shadow != nullptr ? &shadow->buffers.at(a.name) : nullptr;
    const PagedBytes *kinds = nullptr, *pre = nullptr;
    Tolerance tol = tol_of(a);
    if (records)
      if (auto it = ref.buffers.find(StoreKindBuffer(a.name)); it != ref.buffers.end()) {
        if (loaded_after_store != nullptr && loaded_after_store->count(a.name)) {
          // A load read an element a store of this launch wrote: the
          // device's own (possibly different) value of it may be behind a
          // later store, so the reference's per-store values do not bind
          // the device: the whole-buffer bound (review 7 F4).
          if (!tol.bits)
            absl::StrAppend(&tol.why, " (for every element: a load of ", a.name,
                            " read an element a store of this launch had written)");
        } else {
          kinds = &it->second;
          if (auto w = ref.buffers.find(StoreValueBuffer(a.name)); w != ref.buffers.end()) pre = &w->second;
        }
      }
    diffs.push_back(CompareBuffer(a, out.buffers.at(a.name), ref.buffers.at(a.name), sh, std::move(tol), kinds, pre));
  }
  return diffs;
}

}  // namespace

std::vector<BufferDiff> CompareOutputs(const Kernel& k, const KernelData& out, const KernelData& ref,
                                       int64_t reduction_length) {
  return CompareEach(k, out, ref, nullptr,
                     [&](const Arg& a) { return ToleranceFor(k, a, reduction_length); });
}

std::vector<BufferDiff> CompareBitwise(const Kernel& k, const KernelData& out, const KernelData& ref,
                                       const std::string& why) {
  return CompareEach(k, out, ref, nullptr, [&](const Arg&) {
    Tolerance t;
    t.bits = true;
    t.why = why;
    return t;
  });
}

std::vector<BufferDiff> CompareWithinBounds(const Kernel& k, const KernelData& out, const KernelData& ref,
                                            const KernelData& shadow,
                                            const std::map<std::string, RoundingBound>& bounds,
                                            const std::set<std::string>* loaded_after_store) {
  return CompareEach(k, out, ref, &shadow, [&](const Arg& a) {
    Tolerance t;
    if (a.elem == ElemType::kI32) {
      t.bits = true;
      t.why = "exact for i32";
      return t;
    }
    auto it = bounds.find(a.name);
    const RoundingBound b = it != bounds.end() ? it->second : RoundingBound{INFINITY, INFINITY, "no bound"};
    if (b.unbounded.empty() && b.dev == 0 && b.ref == 0) {
      // No rounding that may differ lies behind any element (RoundingBound):
      // both sides compute the same IEEE operations on the same values.
      t.bits = true;
      t.why = absl::StrCat("bit-identical for ", std::string(ElemTypeName(a.elem)),
                           " (no mfma or gemm behind it: the same roundings on both sides)");
      return t;
    }
    const double gref = std::expm1(b.ref);
    const Fp8Format* f8 = Fp8FormatOf(a.elem);
    const int emin_sub = a.elem == ElemType::kF16    ? -24
                         : a.elem == ElemType::kBF16 ? -133
                         : f8 != nullptr             ? 1 - f8->bias - f8->man_bits
                                                     : -149;
    t.atol = std::ldexp(2.0, emin_sub);
    t.shadow_factor = gref < 1 ? (std::expm1(b.dev) + gref) / (1 - gref) : INFINITY;
    t.whole_shadow_factor = t.shadow_factor;
    // The last rounding charged against the value (review 6 F2). Let x be
    // the exact value, S = sum|terms|, and y_d, y_r the values device and
    // reference round last (both round them the same way, unit roundoff u =
    // b.last). The roundings before it give |y_d - x| <= expm1(rho_dev - u) S
    // and |y_r - x| <= expm1(rho_ref - u) S (the model above), so
    // |y_d - y_r| <= G := (expm1(rho_dev - u) + expm1(rho_ref - u)) S. Then
    // out = y_d (1 + e_d) + n_d, ref = y_r (1 + e_r) + n_r, |e| <= u and
    // |n| <= half the smallest subnormal (one of e, n is 0), and
    //   |out - ref| <= |y_d - y_r| + u |y_d| + u |y_r| + |n_d| + |n_r|
    //               <= G (1 + u) + 2u |y_r| + |n_d| + |n_r|      (|y_d| <= |y_r| + G)
    //               <= G (1 + u) + 2u/(1 - u) |ref| + atol,
    // as |y_r| <= (|ref| + |n_r|) / (1 - u) and |n_d| + |n_r| (1 + 2u/(1-u))
    // <= 2 * 2^emin_sub = atol for u <= 1/2. S <= shadow / (1 - gref) as
    // before. A saturating conversion breaks |e| <= u: an element whose
    // |ref| is the type's largest finite value keeps the whole bound.
    const double u = b.last;
    if (u > 0 && u <= 0.25 && b.unbounded.empty() && std::isfinite(t.shadow_factor) && b.dev >= u && b.ref >= u) {
      t.shadow_factor = (1 + u) * (std::expm1(b.dev - u) + std::expm1(b.ref - u)) / (1 - gref);
      t.value_factor = 2 * u / (1 - u);
      t.value_max = a.elem == ElemType::kF16    ? 65504.0
                    : a.elem == ElemType::kBF16 ? std::ldexp(255.0, 120)
                    : f8 != nullptr             ? f8->max
                                                : static_cast<double>(std::numeric_limits<float>::max());
    }
    if (!b.unbounded.empty() || !std::isfinite(t.shadow_factor)) {
      t.shadow_factor = t.whole_shadow_factor = INFINITY;
      t.value_factor = 0;
      t.why = absl::StrCat("none for ", std::string(ElemTypeName(a.elem)), " (", b.unbounded.empty() ? "too many roundings" : b.unbounded,
                           "): only inf/NaN mismatches fail");
    } else if (t.value_factor > 0) {
      t.why = absl::StrFormat(
          "|out - ref| <= %.3g * sum|terms| + %.3g * |ref| + 2^%d for %s (worst-case rounding; the last "
          "rounding, to 2^%d, relative to the value)",
          t.shadow_factor, t.value_factor, emin_sub + 1, std::string(ElemTypeName(a.elem)),
          static_cast<int>(std::log2(u)));
    } else {
      t.why = absl::StrFormat("|out - ref| <= %.3g * sum|terms| + 2^%d for %s (worst-case rounding)",
                              t.shadow_factor, emin_sub + 1, std::string(ElemTypeName(a.elem)));
      // |ref| <= sum|terms|: a factor of 1 or more accepts any output of
      // that magnitude, zeros included (review 5 F2): say so.
      if (t.shadow_factor >= 1)
        absl::StrAppend(&t.why, " - a factor of 1 or more accepts even 0 for every element: no real check; "
                                "use --inputs=exact where the analysis allows it");
    }
    return t;
  }, /*records=*/true, loaded_after_store);
}

namespace {

// The type of every SSA value of `ops` (scalar arguments are f32 or i32
// scalars; an add/mul/fma has its widest SSA operand's type: a width-1
// operand is broadcast, as in the reference interpreter).
void ValueTypes(const std::vector<Op>& ops, std::map<std::string, ValueType>& types) {
  for (const Op& op : ops) {
    ValueType t = op.type;
    if (op.kind == OpKind::kAdd || op.kind == OpKind::kMul || op.kind == OpKind::kFma) {
      bool found = false;
      for (const Operand& o : op.operands)
        if (!o.is_arg && types.count(o.name) && (!found || types[o.name].width > t.width)) {
          t = types[o.name];
          found = true;
        }
      if (!found) continue;
    }
    if (op.kind == OpKind::kFor) {
      for (size_t i = 0; i < op.operands.size(); ++i) {
        if (op.operands[i].is_arg || !types.count(op.operands[i].name)) continue;
        const ValueType ct = types[op.operands[i].name];
        if (i < op.iter_args.size()) types[op.iter_args[i]] = ct;
        if (i < op.results.size()) types[op.results[i]] = ct;
      }
      ValueTypes(op.body, types);
      continue;
    }
    if (op.kind == OpKind::kStore || op.kind == OpKind::kYield || op.kind == OpKind::kBarrier ||
        op.kind == OpKind::kLdsDma || op.kind == OpKind::kGemm)
      continue;
    for (const std::string& r : op.results) types[r] = t;
  }
}

// |constants| in `ops` (loop bodies too), float ones only: i32 values are
// compared exactly and never reach a float (MagnitudeInputs keeps i32
// inputs too), and |-2^31| is no i32 (fresh-user review 15 F1: `const i32
// -2147483648` made every random pass fail in the shadow).
void Magnitude(std::vector<Op>& ops) {
  for (Op& op : ops) {
    if (op.kind == OpKind::kConst && op.type.elem != ElemType::kI32) op.constant = std::fabs(op.constant);
    if (op.kind == OpKind::kFor) Magnitude(op.body);
  }
}

void Defs(const std::vector<Op>& ops, std::map<std::string, const Op*>& defs) {
  for (const Op& op : ops) {
    for (const std::string& r : op.results) defs[r] = &op;
    if (op.kind == OpKind::kFor) Defs(op.body, defs);
  }
}

}  // namespace

Kernel MagnitudeKernel(const Kernel& k) {
  Kernel m = k;
  Magnitude(m.body);
  return m;
}

std::string StoreKindBuffer(absl::string_view buffer) { return absl::StrCat(buffer, "#kind"); }
std::string StoreValueBuffer(absl::string_view buffer) { return absl::StrCat(buffer, "#w"); }

Kernel StoreRecordKernel(const Kernel& k, std::set<std::string>* recorded) {
  recorded->clear();
  std::map<std::string, ValueType> types;
  ValueTypes(k.body, types);
  std::map<std::string, const Op*> defs;
  Defs(k.body, defs);
  const std::set<const Op*> identical = IdenticalStores(k);
  auto narrow = [](ElemType t) { return t == ElemType::kF16 || t == ElemType::kBF16 || Fp8FormatOf(t) != nullptr; };
  // The f32 value a store to a narrow float buffer converts (a `cvt` of an
  // f32 value of the same width to the buffer's type), or "".
  auto source = [&](const Op& st) -> std::string {
    const Arg* a = k.FindArg(st.mem);
    if (a == nullptr || !narrow(a->elem) || st.operands.empty() || st.operands[0].is_arg) return "";
    auto d = defs.find(st.operands[0].name);
    if (d == defs.end() || d->second->kind != OpKind::kCvt || d->second->operands.empty() ||
        d->second->operands[0].is_arg || d->second->type.elem != a->elem)
      return "";
    auto t = types.find(d->second->operands[0].name);
    if (t == types.end() || t->second.elem != ElemType::kF32 || t->second.width != d->second->type.width) return "";
    return d->second->operands[0].name;
  };
  auto kind_of = [&](const Op& st) {
    if (identical.count(&st)) return StoreKind::kIdentical;
    return source(st).empty() ? StoreKind::kBounded : StoreKind::kPreRounding;
  };
  // The writable float buffers some store of which is identical or converts
  // (`with_w`: the latter).
  std::set<std::string> with_w;
  std::function<void(const std::vector<Op>&)> scan = [&](const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.kind == OpKind::kFor) scan(op.body);
      if (op.kind != OpKind::kStore) continue;
      const Arg* a = k.FindArg(op.mem);
      if (a == nullptr || a->kind != Arg::Kind::kBuffer || a->access == Access::kReadOnly ||
          a->elem == ElemType::kI32)
        continue;
      const StoreKind kind = kind_of(op);
      if (kind != StoreKind::kBounded) recorded->insert(op.mem);
      if (kind == StoreKind::kPreRounding) with_w.insert(op.mem);
    }
  };
  scan(k.body);
  Kernel r = k;
  for (const Arg& a : k.args) {
    if (!recorded->count(a.name)) continue;
    Arg side = a;
    side.name = StoreKindBuffer(a.name);
    side.elem = ElemType::kI32;
    side.access = Access::kWriteOnly;
    r.args.push_back(side);
    if (with_w.count(a.name)) {
      side.name = StoreValueBuffer(a.name);
      side.elem = ElemType::kF32;
      r.args.push_back(side);
    }
  }
  // After each store to a recorded buffer (k's ops walked beside r's copy):
  // its kind to B#kind, and a kPreRounding store's w to B#w (read only
  // where the kind says so).
  int next = 0;
  std::function<void(const std::vector<Op>&, std::vector<Op>&)> add = [&](const std::vector<Op>& k_ops,
                                                                         std::vector<Op>& r_ops) {
    std::vector<Op> out;
    out.reserve(r_ops.size());
    for (size_t i = 0; i < r_ops.size(); ++i) {
      if (r_ops[i].kind == OpKind::kFor) add(k_ops[i].body, r_ops[i].body);
      out.push_back(std::move(r_ops[i]));
      const Op& st = k_ops[i];
      if (st.kind != OpKind::kStore || !recorded->count(st.mem) || st.operands.empty()) continue;
      int width = 1;
      if (st.operands[0].is_arg) {
        width = 1;
      } else if (auto t = types.find(st.operands[0].name); t != types.end()) {
        width = t->second.width;
      } else {
        continue;  // an unknown value: the interpreter refuses the store itself
      }
      const StoreKind kind = kind_of(st);
      auto constant = [&](ElemType t, double v) {
        Op c;
        c.kind = OpKind::kConst;
        c.results = {absl::StrCat("kirc_store_record_", next++)};
        c.type = ValueType{t, width};
        c.constant = v;
        c.loc = st.loc;
        return c;
      };
      auto store = [&](const std::string& mem, const std::string& value) {
        Op s = st;
        s.mem = mem;
        s.operands = {Operand{}};
        s.operands[0].name = value;
        s.operands[0].is_arg = false;
        return s;
      };
      // The kind, as i32 vectors of the widest width KIR allows i32
      // (IsLegalWidthFor): a store of fp8x32 records in two halves, the
      // second at index + 16 along the store's dimension (review 9 F1: an
      // i32x32 const is not a KIR value).
      int piece = width;
      while (piece > 1 && !IsLegalWidthFor(ElemType::kI32, piece)) piece /= 2;
      for (int first = 0; first < width; first += piece) {
        Op c = constant(ElemType::kI32, static_cast<double>(kind));
        c.type.width = piece;
        const std::string name = c.results[0];
        out.push_back(std::move(c));
        Op s = store(StoreKindBuffer(st.mem), name);
        if (first > 0 && s.along >= 0 && static_cast<size_t>(s.along) < s.index.size())
          s.index[s.along] = IAdd(s.index[s.along], IConst(first));
        out.push_back(std::move(s));
      }
      if (with_w.count(st.mem) && kind == StoreKind::kPreRounding)
        out.push_back(store(StoreValueBuffer(st.mem), source(st)));
    }
    r_ops = std::move(out);
  };
  add(k.body, r.body);
  return r;
}

KernelData StoreRecordInputs(const Kernel& records, const KernelData& d) {
  KernelData r = d;
  static const auto nan_filler = std::make_shared<const PageFiller>([](uint64_t, uint8_t* out, uint64_t n) {
    const uint32_t q = 0x7fc00000u;
    for (uint64_t i = 0; i + 4 <= n; i += 4) std::memcpy(out + i, &q, 4);
  });
  for (const Arg& a : records.args)
    if (a.kind == Arg::Kind::kBuffer && !d.buffers.count(a.name))
      // B#kind zeros (StoreKind::kBounded), B#w NaNs (no value).
      r.buffers[a.name] = PagedBytes(static_cast<uint64_t>(a.SizeBytes()),
                                     a.elem == ElemType::kI32 ? nullptr : nan_filler);
  return r;
}

std::string FormatDiffs(const std::vector<BufferDiff>& diffs) {
  std::string s;
  for (const BufferDiff& d : diffs) {
    std::string rel = std::isnan(d.max_rel_err)
                          ? "n/a (every finite reference element is 0)"
                          : absl::StrFormat("%.3g (of max|ref| %.3g)", d.max_rel_err, d.max_abs_ref);
    std::string nonfinite =
        d.nonfinite_ref == 0 ? ""
                             : absl::StrCat("; ", d.nonfinite_ref, " non-finite reference element",
                                            d.nonfinite_ref == 1 ? "" : "s", " (matched exactly)");
    std::string verdict = "OK";
    if (!d.ok) {
      verdict = absl::StrCat("FAIL (", d.mismatches, " element", d.mismatches == 1 ? "" : "s",
                             " out of tolerance");
      if (d.nonfinite_mismatches > 0)
        absl::StrAppend(&verdict, ", ", d.nonfinite_mismatches, " of them inf/NaN mismatches");
      verdict += ")";
    }
    if (d.untouched == d.elements && d.elements > 0) {
      // Neither side wrote it (review 5 F3): no element was compared.
      absl::StrAppend(&s, d.name, ": ", d.elements,
                      " elements, none written by the kernel or the reference (each still holds its input, the "
                      "same on both sides): OK\n");
      continue;
    }
    absl::StrAppend(&s, absl::StrFormat(
        "%s: %d elements, max abs err %.3g, max rel err %s, worst %s[%s] = %.9g (ref %.9g)%s; "
        "tolerance %s%s%s: %s\n",
        d.name, d.elements, d.max_abs_err, rel, d.name, absl::StrJoin(d.worst_index, ", "),
        d.worst_out, d.worst_ref, nonfinite, d.tol.why,
        d.identical == 0 ? ""
                         : absl::StrCat(", but bit-identical for the ", d.identical,
                                        " elements stored with no mfma or gemm behind them"),
        d.pre_rounding == 0
            ? ""
            : absl::StrCat(", and between the conversions of the reference's value before the last conversion "
                           "+- the bound for ",
                           d.pre_rounding, " elements"),
        verdict));
  }
  return s;
}

namespace {

// The index of element `e` (in elements from the buffer's start) in a's
// shape: greedy by decreasing stride, checked; "" when no in-shape index
// maps to it.
std::string ElementIndex(const Arg& a, int64_t e) {
  std::vector<int> order(a.shape.size());
  for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int>(d);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return a.strides[x] > a.strides[y]; });
  std::vector<int64_t> idx(a.shape.size(), 0);
  int64_t rest = e;
  for (int d : order) {
    if (a.strides[d] <= 0) continue;
    idx[d] = std::min(rest / a.strides[d], a.shape[d] - 1);
    rest -= idx[d] * a.strides[d];
  }
  if (rest != 0) return "";
  return absl::StrCat(a.name, "[", absl::StrJoin(idx, ", "), "]");
}

}  // namespace

std::vector<DeviceDifference> CompareDevices(
    const Kernel& k, const KernelData& a, const KernelData& b,
    const std::function<std::string(const Arg&, uint64_t, uint64_t)>& explain) {
  std::vector<DeviceDifference> out;
  for (const Arg& arg : k.args) {
    if (arg.kind != Arg::Kind::kBuffer) continue;
    auto ia = a.buffers.find(arg.name), ib = b.buffers.find(arg.name);
    if (ia == a.buffers.end() || ib == b.buffers.end()) continue;
    const PagedBytes& px = ia->second;
    const PagedBytes& py = ib->second;
    const int64_t w = ElemBytes(arg.elem);
    DeviceDifference d;
    d.buffer = arg.name;
    d.elements = static_cast<int64_t>(std::max(px.size(), py.size()) + w - 1) / w;
    if (px.size() != py.size()) {
      d.differing = d.elements;
      d.byte_offset = static_cast<int64_t>(std::min(px.size(), py.size()));
      d.element = absl::StrCat("the sizes (", px.size(), " and ", py.size(), " bytes)");
      out.push_back(d);
      continue;
    }
    // Page by page; a page neither materialised is equal by construction
    // (copies of one input). Elements never straddle pages (w divides them).
    constexpr uint64_t P = PagedBytes::kPageBytes;
    const bool same = px.SameFiller(py);
    std::vector<uint8_t> xv, yv;
    for (uint64_t page = 0; page < px.num_pages(); ++page) {
      if (same && !px.materialised(page) && !py.materialised(page)) continue;
      const uint64_t base = page * P, len = std::min(P, px.size() - base);
      xv.resize(len), yv.resize(len);
      px.Read(base, xv.data(), len);
      py.Read(base, yv.data(), len);
      if (xv == yv) continue;
      for (int64_t e = static_cast<int64_t>(base) / w; e * w < static_cast<int64_t>(base + len); ++e) {
      const int64_t off = e * w, n = std::min<int64_t>(w, static_cast<int64_t>(px.size()) - off);
      // This element's bytes in the page copies.
      const uint8_t* xe = xv.data() + (off - static_cast<int64_t>(base));
      const uint8_t* ye = yv.data() + (off - static_cast<int64_t>(base));
      if (std::memcmp(xe, ye, n) == 0) continue;
      if (explain && n == w) {
        uint64_t bx = 0, by = 0;
        std::memcpy(&bx, xe, n);
        std::memcpy(&by, ye, n);
        std::string why = explain(arg, bx, by);
        if (!why.empty()) {
          ++d.explained;
          d.why = why;
          continue;
        }
      }
      if (d.differing++ == 0) {
        d.byte_offset = off;
        std::string idx = ElementIndex(arg, e);
        d.element = idx.empty() ? absl::StrCat("element ", e, " (padding, outside the shape)") : idx;
        std::memcpy(&d.bits_a, xe, n);
        std::memcpy(&d.bits_b, ye, n);
        if (n == w) {
          d.value_a = ElementValue(arg.elem, xe);
          d.value_b = ElementValue(arg.elem, ye);
        }
      }
      }
    }
    if (d.differing > 0 || d.explained > 0) out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> UntouchedBytesChanged(const Kernel& k, const KernelData& in, const KernelData& out) {
  std::vector<std::string> lines;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer) continue;
    auto ii = in.buffers.find(a.name), io = out.buffers.find(a.name);
    if (ii == in.buffers.end() || io == out.buffers.end() || ii->second.size() != io->second.size()) continue;
    const PagedBytes& x = ii->second;
    const PagedBytes& y = io->second;
    if (x == y) continue;  // page by page: pages neither materialised are equal by construction
    const bool ro = a.access == Access::kReadOnly;
    const int64_t w = ElemBytes(a.elem);
    // Whether byte b lies in an element a writable buffer's shape covers: for
    // buffers up to 256 MiB a map of the shape's bytes (any strides), beyond
    // that the element's index found from the strides (ElementIndex).
    std::vector<bool> covered;
    const bool mapped = !ro && x.size() <= (uint64_t{1} << 28);
    if (mapped && !a.shape.empty()) {
      covered.assign(x.size(), false);
      std::vector<int64_t> idx(a.shape.size(), 0);
      bool any = true;
      for (int64_t e : a.shape) any = any && e > 0;
      while (any) {
        int64_t off = 0;
        for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * a.strides[d];
        for (int64_t b = 0; b < w; ++b)
          if (off * w + b >= 0 && off * w + b < static_cast<int64_t>(covered.size())) covered[off * w + b] = true;
        if (!NextIndex(idx, a.shape)) break;
      }
    }
    auto is_covered = [&](uint64_t b) {
      if (ro) return false;
      if (mapped) return !covered.empty() && static_cast<bool>(covered[b]);
      const int64_t e = static_cast<int64_t>(b) / w;
      if (a.shape.size() == 1)  // element e is in the shape iff it is a multiple of the stride below the extent
        return a.strides[0] > 0 ? e % a.strides[0] == 0 && e / a.strides[0] < a.shape[0] : e == 0;
      return !ElementIndex(a, e).empty();
    };
    int64_t changed = 0, first = -1;
    uint8_t first_x = 0, first_y = 0;
    constexpr uint64_t P = PagedBytes::kPageBytes;
    const bool same = x.SameFiller(y);
    std::vector<uint8_t> xv, yv;
    for (uint64_t page = 0; page < x.num_pages(); ++page) {
      if (same && !x.materialised(page) && !y.materialised(page)) continue;
      const uint64_t base = page * P, len = std::min(P, x.size() - base);
      xv.resize(len), yv.resize(len);
      x.Read(base, xv.data(), len);
      y.Read(base, yv.data(), len);
      if (xv == yv) continue;
      for (uint64_t b = 0; b < len; ++b)
        if (xv[b] != yv[b] && !is_covered(base + b)) {
          if (first < 0) first = static_cast<int64_t>(base + b), first_x = xv[b], first_y = yv[b];
          ++changed;
        }
    }
    if (changed == 0) continue;
    lines.push_back(absl::StrFormat("%s (%s): %d byte%s written that the kernel must leave alone (%s), first byte 0x%x: "
                                    "0x%02x -> 0x%02x",
                                    a.name, ro ? "readonly" : "outside its shape", changed, changed == 1 ? "" : "s",
                                    ro ? "a readonly buffer" : "padding between or around its elements", first,
                                    first_x, first_y));
  }
  return lines;
}

bool DevicesAgree(const std::vector<DeviceDifference>& diffs) {
  for (const DeviceDifference& d : diffs)
    if (d.differing > 0) return false;
  return true;
}

std::string FormatDeviceComparison(const Kernel& k, absl::string_view name_a, absl::string_view name_b,
                                   const std::vector<DeviceDifference>& diffs) {
  const bool fails = !DevicesAgree(diffs);
  std::string t;
  for (const DeviceDifference& d : diffs)
    if (d.explained > 0)
      absl::StrAppend(&t, "cross-check: ", d.buffer, ": ", d.explained, " of ", d.elements,
                      " elements differ, explained: ", d.why, "\n");
  if (!fails) {
    int64_t bytes = 0, buffers = 0;
    for (const Arg& arg : k.args)
      if (arg.kind == Arg::Kind::kBuffer) bytes += arg.SizeBytes(), ++buffers;
    return t + absl::StrCat("cross-check: every buffer bit-identical between ", name_a, " and ", name_b,
                            t.empty() ? "" : " but for those", " (", buffers, buffers == 1 ? " buffer, " : " buffers, ",
                            bytes, " bytes)\n");
  }
  for (const DeviceDifference& d : diffs)
    if (d.differing > 0)
      absl::StrAppend(&t, "cross-check: ", d.buffer, " differs between ", name_a, " and ", name_b, " in ", d.differing,
                    " of ", d.elements, " elements; first ", d.element, absl::StrFormat(" (byte 0x%x): ", d.byte_offset),
                    name_a, absl::StrFormat(" 0x%x (%.9g), ", d.bits_a, d.value_a), name_b,
                    absl::StrFormat(" 0x%x (%.9g)\n", d.bits_b, d.value_b));
  return t;
}

}  // namespace kir
