#include "hw/check/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/float_bits.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

// The longest reduction an output can come from: the largest MFMA k times the
// trip counts of the loops around it.
int64_t ReductionLength(const std::vector<Op>& ops, int64_t trips) {
  int64_t best = 1;
  for (const Op& op : ops) {
    if (op.kind == OpKind::kMfma) {
      if (const MfmaDesc* m = LookupMfma(op.mfma)) best = std::max(best, trips * m->k);
    }
    if (op.kind == OpKind::kFor && op.step > 0) {
      int64_t n = (op.hi - op.lo + op.step - 1) / op.step;
      best = std::max(best, ReductionLength(op.body, trips * std::max<int64_t>(1, n)));
    }
  }
  return best;
}

}  // namespace

double ElementValue(ElemType t, const uint8_t* p) {
  uint32_t bits = 0;
  std::memcpy(&bits, p, ElemBytes(t));
  switch (t) {
    case ElemType::kF32: return F32FromBits(bits);
    case ElemType::kF16: return F16BitsToF32(static_cast<uint16_t>(bits));
    case ElemType::kBF16: return Bf16BitsToF32(static_cast<uint16_t>(bits));
    case ElemType::kI32: return static_cast<int32_t>(bits);
  }
  return 0;
}

Tolerance ToleranceFor(const Kernel& k, const Arg& out) {
  Tolerance t;
  switch (out.elem) {
    case ElemType::kF32: {
      int64_t kk = ReductionLength(k.body, 1);
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
  }
  return t;
}

std::vector<BufferDiff> CompareOutputs(const Kernel& k, const KernelData& out,
                                       const KernelData& ref) {
  std::vector<BufferDiff> diffs;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.access == Access::kReadOnly) continue;
    BufferDiff d;
    d.name = a.name;
    d.tol = ToleranceFor(k, a);
    const std::vector<uint8_t>& o = out.buffers.at(a.name);
    const std::vector<uint8_t>& r = ref.buffers.at(a.name);
    int eb = ElemBytes(a.elem);
    size_t rank = a.shape.size();
    std::vector<int64_t> idx(rank, 0);
    // Pass 1: max |ref|; pass 2: errors.
    for (int pass = 0; pass < 2; ++pass) {
      std::fill(idx.begin(), idx.end(), 0);
      bool done = rank == 0;
      double worst = -1;
      while (!done) {
        int64_t off = 0;
        for (size_t i = 0; i < rank; ++i) off += idx[i] * a.strides[i];
        off *= eb;
        double rv = ElementValue(a.elem, r.data() + off);
        if (pass == 0) {
          d.max_abs_ref = std::max(d.max_abs_ref, std::fabs(rv));
        } else {
          double ov = ElementValue(a.elem, o.data() + off);
          double err = std::fabs(ov - rv);
          if (std::isnan(ov) != std::isnan(rv)) err = INFINITY;
          if (std::isnan(ov) && std::isnan(rv)) err = 0;
          ++d.elements;
          d.max_abs_err = std::max(d.max_abs_err, err);
          if (rv != 0) d.max_rel_err = std::max(d.max_rel_err, err / std::fabs(rv));
          if (err > d.tol.atol + d.tol.rtol * d.max_abs_ref) ++d.mismatches;
          if (err > worst) {
            worst = err;
            d.worst_index = idx;
            d.worst_out = ov;
            d.worst_ref = rv;
          }
        }
        size_t i = rank;
        while (i > 0) {
          --i;
          if (++idx[i] < a.shape[i]) break;
          idx[i] = 0;
          if (i == 0) done = true;
        }
      }
    }
    d.ok = d.mismatches == 0;
    diffs.push_back(std::move(d));
  }
  return diffs;
}

std::string FormatDiffs(const std::vector<BufferDiff>& diffs) {
  std::string s;
  for (const BufferDiff& d : diffs) {
    absl::StrAppend(&s, absl::StrFormat(
        "%s: %d elements, max abs err %.3g, max rel err %.3g, worst %s[%s] = %.9g (ref %.9g); "
        "tolerance %s: %s\n",
        d.name, d.elements, d.max_abs_err, d.max_rel_err, d.name, absl::StrJoin(d.worst_index, ", "),
        d.worst_out, d.worst_ref, d.tol.why,
        d.ok ? "OK" : absl::StrCat("FAIL (", d.mismatches, " elements out of tolerance)")));
  }
  return s;
}

}  // namespace kir
