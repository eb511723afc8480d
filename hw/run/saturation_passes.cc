// The saturation (+max, -max) and subnormal passes of `kirc run`
// (hw/run/saturation_passes.h): how far the values a run stored lie, and the
// passes planned from them.
#include "hw/run/saturation_passes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/float_bits.h"
#include "compiler/reference/interpreter.h"

namespace kir {
namespace {

// At most this many stored elements of a buffer size the saturation and
// subnormal passes' scale (StoredSample).
constexpr size_t kStoredSampleElements = size_t{1} << 16;
// Of at most this many of the pages a run wrote, spread over them.
constexpr size_t kStoredSamplePages = 8;

// Calls `fn` with the value of each element of buffer `a` (a float type)
// that the run stored to `ref`: elements whose bytes differ from `in`'s,
// the run's inputs (all of them when `in` lacks the buffer or sizes it
// otherwise), on at most `max_pages` of the pages `ref` materialised (every
// page a store wrote; compiler/ir/paged_bytes.h), spread evenly over them.
void ForEachStoredValue(const Arg& a, const KernelData& in, const KernelData& ref, size_t max_pages,
                        const std::function<void(double)>& fn) {
  auto it = ref.buffers.find(a.name);
  if (a.kind != Arg::Kind::kBuffer || a.shape.empty() || it == ref.buffers.end()) return;
  const PagedBytes& r = it->second;
  auto was = in.buffers.find(a.name);
  const PagedBytes* w = was == in.buffers.end() || was->second.size() != r.size() ? nullptr : &was->second;
  const std::vector<uint64_t> written = r.MaterialisedPages();
  const size_t n_pages = std::min(written.size(), max_pages);
  const uint64_t eb = static_cast<uint64_t>(ElemBytes(a.elem));
  std::vector<uint8_t> now(PagedBytes::kPageBytes), before(PagedBytes::kPageBytes);
  for (size_t i = 0; i < n_pages; ++i) {
    const uint64_t begin = written[i * written.size() / n_pages] * PagedBytes::kPageBytes;
    const uint64_t n = std::min<uint64_t>(PagedBytes::kPageBytes, r.size() - begin) / eb * eb;
    r.Read(begin, now.data(), n);
    if (w != nullptr) w->Read(begin, before.data(), n);
    for (uint64_t off = 0; off < n; off += eb)
      if (w == nullptr || std::memcmp(&now[off], &before[off], eb) != 0) fn(ElementValue(a.elem, &now[off]));
  }
}

// |value| of up to kStoredSampleElements elements of buffer `a` (a float
// type) that the run stored to `ref`: elements whose bytes differ from
// `in`'s, the run's inputs (elements the kernel never writes keep their
// inputs and say nothing of the values it stores, fresh-user review 11 F5),
// taken from at most kStoredSamplePages of the pages `ref` materialised
// (every page a store wrote; compiler/ir/paged_bytes.h), spread evenly over
// them, and evenly over the stored elements found: a --workgroups band that
// writes only the buffer's last rows is sampled there (fresh-user review 13
// F2: only the first 2^16 elements were read). `all` false: only finite,
// non-zero values below the type's max (what a saturation or subnormal
// scale is sized from); true: every non-NaN one, zeros, +-max and
// infinities included (where the values before the conversion lay: review
// 12 F1, F3). Empty when there are none.
std::vector<double> StoredSample(const Arg& a, const KernelData& in, const KernelData& ref, bool all,
                                 double* negative) {
  std::vector<double> v;
  int64_t negatives = 0;
  if (negative != nullptr) *negative = 0;
  const double max = FloatRangeOf(a.elem).max;
  ForEachStoredValue(a, in, ref, kStoredSamplePages, [&](double signed_x) {
    const double x = std::fabs(signed_x);
    if (all ? !std::isnan(x) : std::isfinite(x) && x > 0 && x < max) {
      v.push_back(x);
      negatives += signed_x < 0 ? 1 : 0;
    }
  });
  if (negative != nullptr && !v.empty()) *negative = static_cast<double>(negatives) / static_cast<double>(v.size());
  if (v.size() > kStoredSampleElements) {
    std::vector<double> even(kStoredSampleElements);
    for (size_t i = 0; i < even.size(); ++i) even[i] = v[i * v.size() / even.size()];
    v = std::move(even);
  }
  return v;
}

// `*v` (|values| of StoredSample, all = true) without as many of its exact
// zeros as the share `zero_share` of its size (at most those it holds): the
// zeros the conversion pass also stored (SaturationSource::zero_shares),
// constants no carrier scales (padding of a wider tile: fresh-user review 17
// F3, where they were most of the elements, every median was 0 and the
// saturation and subnormal passes were lost). Zeros beyond that share are
// values the pass flushed and stay. `*negative` (when given; the share of
// `*v` stored negative) is made that of what is left. How many were left
// out. `nan_share`: the share of the elements stored that were NaN (left out
// of `*v`; a saturation pass's NaN blocks), which the zeros' share is of.
int64_t DropConstantZeros(std::vector<double>* v, double zero_share, double* negative, double nan_share = 0) {
  const int64_t before = static_cast<int64_t>(v->size());
  const int64_t zeros = std::count(v->begin(), v->end(), 0.0);
  const double share = nan_share < 1 ? std::min(1.0, zero_share / (1 - nan_share)) : 0;
  const int64_t drop = std::min<int64_t>(zeros, std::llround(share * static_cast<double>(before)));
  if (drop <= 0) return 0;
  int64_t left = drop;
  v->erase(std::remove_if(v->begin(), v->end(), [&](double x) { return x == 0 && left-- > 0; }), v->end());
  if (negative != nullptr)
    *negative = v->empty() ? 0 : *negative * static_cast<double>(before) / static_cast<double>(v->size());
  return drop;
}

// The share of the elements of `a` that StoredSample reads (the pages it
// reads; every element stored there) that are NaN; 0 when none is stored.
double StoredNanShare(const Arg& a, const KernelData& in, const KernelData& ref) {
  int64_t n = 0, nans = 0;
  ForEachStoredValue(a, in, ref, kStoredSamplePages, [&](double x) {
    ++n;
    nans += std::isnan(x) ? 1 : 0;
  });
  return n == 0 ? 0 : static_cast<double>(nans) / static_cast<double>(n);
}

// How many elements of `a` not NaN the run stored to `ref` (bytes that differ
// from `in`'s) on at most `max_pages` of the pages it wrote (spread over
// them, as NanStored counts).
int64_t StoredCount(const Arg& a, const KernelData& in, const KernelData& ref, size_t max_pages) {
  int64_t n = 0;
  ForEachStoredValue(a, in, ref, max_pages, [&](double x) { n += std::isnan(x) ? 0 : 1; });
  return n;
}

// The buffers of `k` a store writes the result of a `cvt` to (directly or
// through slice and concat): those with a conversion's NaN path.
std::set<std::string> ConversionStoredBuffers(const Kernel& k) {
  std::map<std::string, const Op*> def;
  std::vector<const Op*> stores;
  std::function<void(const std::vector<Op>&)> walk = [&](const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      for (const std::string& r : op.results) def[r] = &op;
      if (op.kind == OpKind::kStore) stores.push_back(&op);
      walk(op.body);
    }
  };
  walk(k.body);
  std::function<bool(const std::string&, int)> converted = [&](const std::string& v, int depth) {
    auto it = def.find(v);
    if (it == def.end() || depth > 64) return false;
    if (it->second->kind == OpKind::kCvt) return true;
    if (it->second->kind != OpKind::kSlice && it->second->kind != OpKind::kConcat) return false;
    for (const Operand& o : it->second->operands)
      if (!o.is_arg && converted(o.name, depth + 1)) return true;
    return false;
  };
  std::set<std::string> r;
  for (const Op* st : stores)
    if (!st->operands.empty() && !st->operands[0].is_arg && converted(st->operands[0].name, 0)) r.insert(st->mem);
  return r;
}

// Per output of `k` of one of `types` (the converted outputs), in argument
// order: its name and how many of its elements the reference stored a NaN
// to (`ref` differs from `in` there; the block-placing runs put NaN at the
// blocks, and an inf there is an overflow the blocks did not cause:
// fresh-user review 14 F7 counted 170 where 64 NaN were), over the pages the run
// wrote (at most 64 of them, spread over them, as StoredSample samples: a
// --workgroups band past the buffer's start is counted where it wrote).
// `inf` true: +-inf instead of NaN. `names` (when given): only those (the
// buffers a conversion stores to, ConversionStoredBuffers; fresh-user review
// 17 F5: a copy of an fp8 input, no conversion, was said "no NaN reached Y:
// its NaN path is not checked", and every placing run was spent looking
// for one).
std::vector<std::pair<std::string, int64_t>> NanStored(const Kernel& k, const KernelData& in, const KernelData& ref,
                                                      const std::vector<ElemType>& types, bool inf = false,
                                                      const std::set<std::string>* names = nullptr) {
  std::vector<std::pair<std::string, int64_t>> r;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.access == Access::kReadOnly || a.shape.empty() ||
        std::find(types.begin(), types.end(), a.elem) == types.end() || !ref.buffers.count(a.name))
      continue;
    if (names != nullptr && !names->count(a.name)) continue;
    int64_t count = 0;
    ForEachStoredValue(a, in, ref, /*max_pages=*/64,
                       [&](double x) { count += (inf ? std::isinf(x) : std::isnan(x)) ? 1 : 0; });
    r.emplace_back(a.name, count);
  }
  return r;
}

// At most this many reference-only runs place a saturation pass's NaN/inf
// blocks (ExactFormat::diagonal_offset d; without a --workgroups band
// d0 .. d0 + 7: every block row of a 32-row MFMA tile, 8 blocks of 4 rows).
constexpr int kDiagonalTrials = 8;
// Of at most this many candidate offsets (place_blocks: those whose blocks
// a --workgroups band loads).
constexpr int64_t kDiagonalCandidates = int64_t{1} << 14;
// At most this many reference-only runs measure a saturation or subnormal
// pass's scale (and two more find what negates a carrier entering an even
// number of times).
constexpr int kScaleTrials = 4;
// The saturation passes measure their scale with the median aimed at
// max / kMeasureBelowMax, then multiply by a further factor that puts
// kBeyondShare of those values at or beyond the max; at most
// kConfirmTrials reference-only runs of the final inputs confirm that a
// quarter of the values stored are at or beyond the max.
constexpr double kMeasureBelowMax = 4;
// The share of the measured values the further factor puts at or beyond the
// max, and the share the -max pass's f32 overflow (fresh-user review 14 F4)
// puts beyond f32's max.
constexpr double kBeyondShare = 0.6;
constexpr double kOverflowShare = 0.5;

// The q-quantile (q in [0, 1]) of the ascending `v`: its element at
// floor(q * (size - 1)), or the largest finite one below it (+-inf stored);
// `otherwise` when there is none, or it is 0.
double Quantile(const std::vector<double>& v, double q, double otherwise) {
  if (v.empty()) return otherwise;
  for (size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1)) + 1; i-- > 0;)
    if (std::isfinite(v[i])) return v[i] > 0 ? v[i] : otherwise;
  return otherwise;
}
constexpr int kConfirmTrials = 2;
// About where f32 overflows: a product at or beyond (2 - 2^-24) * 2^127 (f32's
// max plus half its ulp) rounds to inf (IEEE 754 binary32, round to nearest).
const double kF32Overflow = std::ldexp(1.0, 128);

// `x` (> 1), or less, so that every choice of the f32 scalar `f` times
// 2^shift times it stays finite in f32 (at most f32's max); 1 when none
// does. Its products need not be exact: each is one IEEE multiply of the
// same operands on both sides (docs/run.md: ops beside an MFMA are evaluated in
// program order), +-inf beyond f32's max.
double F32OverflowFactor(const ExactFormat& f, double x) {
  double top = 0;
  for (double c : f.choices) top = std::max(top, std::fabs(std::ldexp(c, f.shift)));
  if (!(top > 0) || !(x > 1)) return 1;
  return std::max(1.0, std::min(x, static_cast<double>(std::numeric_limits<float>::max()) / top));
}

// A reference-only run (the reference interpreter is the oracle for where
// the values land): the inputs MakeConversionInputs gives `plan` for `seed`
// (with `uv`'s values when given) and the reference's results on them
// (workgroups and budget of `io`); its error prefixed "reference
// interpreter (WHAT): " when `what` is not empty.
absl::StatusOr<std::pair<KernelData, KernelData>> ReferenceOnlyRun(const Kernel& k, const ExactPlan& plan,
                                                                   uint64_t seed, const UserValues* uv,
                                                                   const InterpOptions& io, const std::string& what) {
  KernelData in = MakeConversionInputs(k, plan, seed);
  if (uv != nullptr) uv->ApplyTo(k, &in);
  PagedInterpArgs ref{in.buffers, in.scalars};
  if (absl::Status st = Interpret(k, ref, io); !st.ok())
    return what.empty() ? st
                        : absl::Status(st.code(), absl::StrCat("reference interpreter (", what, "): ", st.message()));
  return std::make_pair(std::move(in), KernelData{std::move(ref.buffers), std::move(ref.scalars)});
}

// Whether a saturation pass's measuring run (not `sub`) stored a median
// |value| `m` at or beyond its target's max (`range`): more than half of the
// values saturated to +-max (a type without inf: f8e4m3fnuz, f8e5m2fnuz),
// as a median of +-inf says of a type with inf. That median is no measure of
// the values before the conversion: the carrier overshot, like a median of
// inf (fresh-user review 16 F8: alpha of (acc * alpha) * alpha, measured as
// entering once from a median of 57344, was negated in the -max pass).
bool SaturatedMedian(bool sub, double m, const FloatRange& range) { return !sub && m >= range.max; }

// The factor a saturation or subnormal pass's scaling applies to the values
// of its output: the carrier's `scale` (its companions alike) to the power
// `enters`, the times it enters them, times each further carrier's factor
// (`more`; fresh-user review 16 F8: alpha times 112 entering twice, A and B
// times 0.25 each, was said to be a factor 7 = (112 / 16)^1, not 784).
double AppliedFactor(double scale, int enters, const std::vector<std::pair<std::string, double>>& more) {
  double f = std::pow(scale, enters);
  for (const auto& [name, x] : more) f *= x;
  return f;
}

}  // namespace

// The median of StoredSample(a, in, ref, all); 0 when it is empty. `*count`
// (when given) is how many the median is of; `*negative` (when given) the
// fraction of them stored negative (-0 not).
double StoredMedian(const KernelData& in, const KernelData& ref, const Arg& a, bool all, int64_t* count,
                    double* negative) {
  std::vector<double> v = StoredSample(a, in, ref, all, negative);
  if (count != nullptr) *count = static_cast<int64_t>(v.size());
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

double StoredZeroShare(const KernelData& in, const KernelData& ref, const Arg& a) {
  const std::vector<double> v = StoredSample(a, in, ref, /*all=*/true, nullptr);
  return v.empty() ? 0
                   : static_cast<double>(std::count(v.begin(), v.end(), 0.0)) / static_cast<double>(v.size());
}

// The saturation base's run (PlanSaturationBase; fresh-user review 13 F3):
// the reference interpreter alone on its inputs (`seed`; the workgroups of
// `io`), whose stored values size the saturation and subnormal passes when
// no conversion pass exists. Per output of `outputs`, the median
// StoredMedian gives (0: none stored), or the interpreter's error;
// `*zero_shares` (when given): per output, StoredZeroShare of that run.
absl::StatusOr<std::map<std::string, double>> SaturationBaseMedians(const Kernel& k, const ExactPlan& base,
                                                                    uint64_t seed, const InterpOptions& io,
                                                                    const std::vector<ComputedOutput>& outputs,
                                                                    std::map<std::string, double>* zero_shares) {
  absl::StatusOr<std::pair<KernelData, KernelData>> run = ReferenceOnlyRun(k, base, seed, nullptr, io, "");
  if (!run.ok()) return run.status();
  const auto& [in, out] = *run;
  std::map<std::string, double> m;
  for (const ComputedOutput& o : outputs)
    if (const Arg* a = k.FindArg(o.name); a != nullptr) {
      m[o.name] = SizingMedian(in, out, *a);
      if (zero_shares != nullptr) (*zero_shares)[o.name] = StoredZeroShare(in, out, *a);
    }
  return m;
}

double SizingMedian(const KernelData& in, const KernelData& ref, const Arg& a) {
  if (const double m = StoredMedian(in, ref, a, /*all=*/false); m > 0) return m;
  const double max = FloatRangeOf(a.elem).max;
  bool saturated = false;
  ForEachStoredValue(a, in, ref, kStoredSamplePages, [&](double x) { saturated = saturated || std::fabs(x) == max; });
  return saturated ? max : 0;
}

std::string SkippedLine(const std::string& what, const std::string& why) {
  return absl::StrCat(what, " not run: ", why, "\n");
}

namespace {

// " (every value at +-max: ...)" when `m`, the median SizingMedian gave
// output `name` of `k`, is its type's max (no value stored below it), else
// "".
std::string AtMaxNote(const Kernel& k, const std::string& name, double m) {
  const Arg* a = k.FindArg(name);
  if (a == nullptr || !(m >= FloatRangeOf(a->elem).max)) return "";
  return " (every finite non-zero value stored at +-max, the values before the conversion at or beyond it: the "
         "passes' measuring runs scale down from there)";
}

}  // namespace

// The line saying what the saturation base is (no conversion pass exists):
// its inputs and the median the reference stored on them.
std::string BaseLine(const Kernel& k, const ExactPlan& base, uint64_t seed,
                     const std::map<std::string, double>& medians,
                     bool loop_window) {
  std::vector<std::string> parts;
  for (const Arg& a : k.args)
    if (auto it = base.formats.find(a.name); it != base.formats.end())
      parts.push_back(absl::StrCat(a.name, " ", it->second.Describe(a.elem)));
  int bits = 0;  // the most significand bits before a conversion
  for (const ConversionNote& n : base.conversions) bits = std::max(bits, n.bits);
  return absl::StrCat(
      "saturation base (seed ", seed,
      loop_window ? "; the conversion pass's inputs hold a K window through an mfma loop (most of its K indices "
                    "zero), so the saturation and subnormal passes scale inputs of their own, run on the reference "
                    "only): "
                  : "; no conversion pass exists, so the saturation and subnormal passes scale inputs of their own, "
                    "run on the reference only): ", absl::StrJoin(parts, "; "),
      "; every mfma or gemm sum exact, each conversion's operand exact in f32 (",
      bits > 0 ? absl::StrCat("up to ", bits, " significand bits; ") : std::string(),
      "beyond the target's max saturating the same way on both sides)",
      "; the median |value| the reference stored on them to ", [&] {
        std::vector<std::string> ms;
        for (const auto& [name, m] : medians) ms.push_back(absl::StrCat(absl::StrFormat("%s is %g", name, m),
                                                                         AtMaxNote(k, name, m)));
        return absl::StrJoin(ms, ", ");
      }(), "\n");
}

// Within this factor of its aim, the median |value| a saturation or
// subnormal pass stored to an output counts as having reached it (its max:
// at least max / 4, beyond included; its subnormals: within a factor 4 of
// the middle of their range).
constexpr double kAimFactor = 4;

std::string AimedOutputLine(const KernelData& in, const KernelData& ref, const Arg& a, bool sub, int sign,
                            const std::string& pass, int64_t inf_blocks, double zero_share,
                            const std::string& zeros_by) {
  // The median of the finite values (the saturation passes' inf blocks
  // may reach more than half of them), zeros and +-max included.
  double negative = 0;
  std::vector<double> v = StoredSample(a, in, ref, /*all=*/true, &negative);
  // The +inf blocks' elements in the sample: `inf_blocks` is NanStored's
  // count over up to 64 pages, the sample up to 2^16 elements of up to 8
  // (fresh-user review 17 F2: 131072 subtracted from a sample holding about
  // 32768 said "no value stored is at or beyond it" where half the rest
  // overflowed): their share of the elements counted there, of the sample.
  int64_t inf_sampled = inf_blocks;
  if (inf_blocks > 0)
    if (const int64_t all = StoredCount(a, in, ref, /*max_pages=*/64); all > 0)
      inf_sampled = std::llround(static_cast<double>(inf_blocks) * static_cast<double>(v.size()) /
                                 static_cast<double>(all));
  const int64_t zeros_out =
      zero_share > 0 ? DropConstantZeros(&v, zero_share, &negative, StoredNanShare(a, in, ref)) : 0;
  const int64_t stored = static_cast<int64_t>(v.size());
  const FloatRange range = FloatRangeOf(a.elem);
  // Stored values at or beyond the max (+-max, +-inf): the conversion
  // saturated or overflowed somewhere (fresh-user review 14 F8, F11, F12:
  // medians above max / 4 with nothing beyond the max were reported as
  // "around and beyond the max", and a clamp at 49152 of 57344 passed).
  const int64_t beyond = std::max<int64_t>(
      0, std::count_if(v.begin(), v.end(), [&](double x) { return x >= range.max; }) - inf_sampled);
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isinf(x); }), v.end());
  const int64_t n = static_cast<int64_t>(v.size());
  double m = 0;
  if (n > 0) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    m = v[v.size() / 2];
  }
  const std::string tn(ElemTypeName(a.elem));
  const double aim = sub ? std::sqrt(range.min_subnormal * range.min_normal) : range.max;
  // A median of inf (more than half overflowed) or 0 (more than half
  // flushed) is degenerate, not near (fresh-user review 13 F5: every value
  // inf, or 0, passed as "near").
  // A saturation pass: at least a quarter of the values stored (the +inf
  // blocks' left out) at or beyond the max (fresh-user review 14 F8, F11,
  // F12: medians near the max with little or nothing beyond it).
  const int64_t counted = std::max<int64_t>(1, stored - inf_sampled);
  const bool quarter = 4 * beyond >= counted;
  const bool near_median = n > 0 && std::isfinite(m) && m > 0 &&
                           (sub ? m >= aim / kAimFactor && m <= aim * kAimFactor : m >= aim / kAimFactor);
  const bool near = near_median || (!sub && n > 0 && quarter);
  const std::string where =
      sub ? absl::StrFormat("%s's subnormals [%g, %g)", tn, range.min_subnormal, range.min_normal)
          : absl::StrFormat("%s's max %g", tn, range.max);
  if (n == 0)
    return absl::StrCat(pass, ": ", a.name,
                        stored > 0 ? absl::StrFormat(": every value stored is +-inf (%d) or NaN", stored)
                                   : std::string(": no value stored but NaN"),
                        ": its ", sub ? "subnormal conversion" : "saturation", " is not checked by this pass\n");
  // How many of the stored values were +-inf, when any (review 13 F5: a
  // median of the few finite ones says little of the rest).
  const std::string of = absl::StrCat(
      stored > n ? absl::StrFormat("%d finite; %d +-inf", n, stored - n) : absl::StrCat(n),
      zeros_out > 0 ? absl::StrFormat("; %d zeros %s also stored left out", zeros_out, zeros_by) : "");
  // The -max pass: most stored values must be negative (review 13 F5: s
  // negated in s * s * A * B left every value positive).
  // "near f16's max 65504", or with the median below max / 4 (most of the
  // rest +-inf) "1503 (40%) at or beyond f16's max 65504".
  const std::string near_where =
      near_median ? absl::StrCat("near ", where)
                  : absl::StrFormat("%d (%d%%) at or beyond %s", beyond, 100 * beyond / counted, where);
  // What the pass checks still (fresh-user review 20 F2: mfma %a, %a, whose
  // squares no argument negates, said "not checked" where its values at
  // or beyond +max catch a clamp, as the +max pass's do).
  if (near && sign < 0 && negative < 0.5)
    return absl::StrCat(pass, ": ", a.name, absl::StrFormat(": median |value| stored %g (of %s), ", m, of), near_where,
                        absl::StrFormat(", but only %.0f%% of the values stored are negative: its saturation at -max "
                                        "is not checked by this pass",
                                        100 * negative),
                        quarter && beyond > 0
                            ? absl::StrFormat("; %d of the %d values stored (%d%%) are at or beyond the max in "
                                              "magnitude: its saturation at +max is, as in the +max pass",
                                              beyond, counted, 100 * beyond / counted)
                            : std::string(),
                        "\n");
  if (near && !sub && beyond == 0)
    return absl::StrCat(pass, ": ", a.name, absl::StrFormat(": median |value| stored %g (of %s), near ", m, of), where,
                        ", but no value stored is at or beyond it",
                        inf_blocks > 0 ? absl::StrFormat(" (but the %d the +inf blocks reach)", inf_blocks) : "",
                        ": its saturation is not checked by this pass\n");
  if (near && !sub && !quarter)
    return absl::StrCat(pass, ": ", a.name, absl::StrFormat(": median |value| stored %g (of %s), near ", m, of), where,
                        absl::StrFormat(", but only %d of the %d values stored (%d%%) are at or beyond it", beyond,
                                        counted, 100 * beyond / counted),
                        inf_blocks > 0 ? absl::StrFormat(" (the %d the +inf blocks reach left out)", inf_blocks) : "",
                        ", fewer than a quarter: its saturation is not checked by this pass\n");
  if (near)
    return absl::StrCat(pass, ": ", a.name, absl::StrFormat(": median |value| stored %g (of %s), ", m, of), near_where,
                        !sub && near_median ? absl::StrFormat(", %d at or beyond it", beyond) : std::string(),
                        ": the values before its conversion lie around ",
                        sub ? "its subnormal range" : sign > 0 ? "and beyond the max" : "and beyond -max", "\n");
  return absl::StrCat(pass, ": ", a.name, absl::StrFormat(": median |value| stored %g (of %s), not near ", m, of), where,
                      ": its ", sub ? "subnormal conversion" : "saturation", " is not checked by this pass\n");
}

namespace {

// `k` with a second store beside each store to buffer `out`: the same
// elements' values before the conversion that made them (a cvt, through
// slice and concat), each converted to f32 (exact from f32, f16, bf16 and
// fp8), stored to a new f32 buffer `*twin` shaped as `out`; the values the
// reference rounds, seen before it rounds them (fresh-user review 16 F7).
// nullopt when a value stored to `out` does not come from a cvt through
// slice and concat, or nothing stores to `out`.
std::optional<Kernel> WithValuesBeforeConversion(const Kernel& k, const Arg& out, std::string* twin) {
  std::string name = absl::StrCat(out.name, "_before_cvt");
  while (k.FindArg(name) != nullptr) name += "_";
  *twin = name;
  Kernel t = k;
  Arg a = out;
  a.name = name;
  a.elem = ElemType::kF32;
  a.access = Access::kWriteOnly;
  t.args.push_back(a);
  std::map<std::string, Op> defs;  // the cvt, slice and concat ops, by result
  std::function<void(const std::vector<Op>&)> collect = [&](const std::vector<Op>& body) {
    for (const Op& op : body) {
      if ((op.kind == OpKind::kCvt || op.kind == OpKind::kSlice || op.kind == OpKind::kConcat) &&
          !op.results.empty())
        defs[op.results[0]] = op;
      if (op.kind == OpKind::kFor) collect(op.body);
    }
  };
  collect(k.body);
  int fresh = 0;
  // The f32 value of `v`'s elements before their conversion, its ops
  // appended to `*add`; "" when there is none.
  std::function<std::string(const std::string&, std::vector<Op>*)> before = [&](const std::string& v,
                                                                                  std::vector<Op>* add) {
    auto it = defs.find(v);
    if (it == defs.end()) return std::string();
    const Op& d = it->second;
    Op n = d;
    n.results = {absl::StrCat("before_cvt_", fresh++, "_", name)};
    n.type.elem = ElemType::kF32;
    if (d.kind == OpKind::kCvt) {
      if (d.operands.size() != 1 || d.operands[0].is_arg) return std::string();
    } else {
      for (Operand& o : n.operands) {
        if (o.is_arg) return std::string();
        o.name = before(o.name, add);
        if (o.name.empty()) return std::string();
      }
    }
    add->push_back(std::move(n));
    return add->back().results[0];
  };
  bool ok = true;
  int stores = 0;
  std::function<void(std::vector<Op>&)> rewrite = [&](std::vector<Op>& body) {
    for (size_t i = 0; i < body.size() && ok; ++i) {
      if (body[i].kind == OpKind::kFor) {
        rewrite(body[i].body);
        continue;
      }
      if (body[i].kind != OpKind::kStore || body[i].mem != out.name) continue;
      std::vector<Op> add;
      const std::string v =
          body[i].operands.empty() || body[i].operands[0].is_arg ? "" : before(body[i].operands[0].name, &add);
      if (v.empty()) {
        ok = false;
        return;
      }
      Op st = body[i];
      st.mem = name;
      st.operands[0].name = v;
      add.push_back(std::move(st));
      body.insert(body.begin() + static_cast<std::ptrdiff_t>(i) + 1, add.begin(), add.end());
      i += add.size();
      ++stores;
    }
  };
  rewrite(t.body);
  if (!ok || stores == 0) return std::nullopt;
  return t;
}

// What a reference-only run storing the values before an output's
// conversion in f32 as well found (CountSubnormalTies).
struct SubnormalTies {
  bool counted = false;
  std::string why;        // !counted: why not
  int64_t values = 0;     // non-zero values before the conversion (sampled)
  int64_t subnormal = 0;  // of them, below the target's smallest normal
  int64_t ties = 0;       // of those, odd multiples of half its smallest subnormal
  int64_t ties_up = 0;    // of the ties, those whose lower neighbour on the grid is odd (RNE rounds up)
  double median = std::nan("");  // the median |value| stored to the output itself (StoredSample, all)
  double median_before = std::nan("");  // the median of the non-zero |values| before the conversion (sampled)
};

// Whether `t` holds ties of both kinds (fresh-user review 20 F9): ties
// where round-to-nearest-even rounds up (odd lower neighbour) and ties
// where it rounds down (even lower neighbour); with one kind only, either
// ties-away or ties-toward-zero rounding agrees with it on every tie.
bool BothTieKinds(const SubnormalTies& t) { return t.ties_up > 0 && t.ties_up < t.ties; }

// The values before `out`'s conversion (to `out.elem`) on `plan`'s inputs
// (MakeConversionInputs for `seed`, `uv` applied; the workgroups of `io`):
// a reference-only run of WithValuesBeforeConversion, sampled over at most
// 64 of the pages it wrote. A value v with 0 < |v| below the target's
// smallest normal is an exact tie of its subnormal grid when v / (its
// smallest subnormal / 2) is an odd integer: halfway between two
// subnormals (or the largest subnormal and the smallest normal), where
// round-to-nearest-even and ties-away differ (fresh-user review 16 F7).
absl::StatusOr<SubnormalTies> CountSubnormalTies(const Kernel& k, const ExactPlan& plan, uint64_t seed,
                                                 const UserValues& uv, const InterpOptions& io, const Arg& out) {
  SubnormalTies r;
  std::string twin;
  const std::optional<Kernel> t = WithValuesBeforeConversion(k, out, &twin);
  if (!t) {
    r.why = absl::StrCat("a value stored to ", out.name, " does not come from a cvt (through slice and concat)");
    return r;
  }
  KernelData in = MakeConversionInputs(k, plan, seed);
  uv.ApplyTo(k, &in);
  in.buffers[twin] = PagedBytes(static_cast<uint64_t>(t->FindArg(twin)->SizeBytes()));
  PagedInterpArgs ref{in.buffers, in.scalars};
  if (absl::Status st = Interpret(*t, ref, io); !st.ok())
    return absl::Status(st.code(), absl::StrCat("reference interpreter (counting the subnormal pass's ties): ",
                                                st.message()));
  const KernelData res{std::move(ref.buffers), std::move(ref.scalars)};
  std::vector<double> v = StoredSample(out, in, res, /*all=*/true, nullptr);
  if (!v.empty()) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    r.median = v[v.size() / 2];
  }
  const FloatRange range = FloatRangeOf(out.elem);
  const double half = range.min_subnormal / 2;
  std::vector<double> before;
  ForEachStoredValue(*t->FindArg(twin), in, res, /*max_pages=*/64, [&](double x) {
    const double m = std::fabs(x);
    if (!(m > 0) || !std::isfinite(m)) return;
    ++r.values;
    before.push_back(m);
    if (m >= range.min_normal) return;
    ++r.subnormal;
    const double q = m / half;  // exact: a power-of-two quotient
    if (q == std::floor(q) && std::fmod(q, 2.0) == 1.0) {
      ++r.ties;
      // q = 2c + 1: halfway between subnormal codes c and c + 1 (the
      // largest subnormal's upper neighbour is the smallest normal, an
      // even code); nearest-even rounds up when c is odd (review 20 F9).
      if (std::fmod((q - 1) / 2, 2.0) == 1.0) ++r.ties_up;
    }
  });
  if (!before.empty()) {
    std::nth_element(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(before.size() / 2), before.end());
    r.median_before = before[before.size() / 2];
  }
  r.counted = true;
  return r;
}

// Whether a bf16 output `out`'s subnormal pass has a carrier (fresh-user
// review 16 F5): the carrier set SaturationPlan picks to scale the values
// stored to it from `median` toward the middle of bf16's subnormal range (f32's
// own, 2^-133 .. 2^-126) on `from` is all f32 scalars applied after every
// mfma/gemm sum (ScalesAfterSums: alpha of cvt(alpha * acc), sa and beta of
// a gemm's epilogue), so that the sums keep their normal magnitude while
// the products land in f32's subnormal range, every value exact.
bool Bf16SubnormalCarrier(const Kernel& k, const ExactPlan& from, const ComputedOutput& out, double median) {
  const FloatRange range = FloatRangeOf(ElemType::kBF16);
  if (!(median > 0)) return false;
  std::string carrier;
  double scale = 1;
  std::vector<std::string> also;
  const ExactPlan p = SaturationPlan(k, from, ElemType::kBF16, std::sqrt(range.min_subnormal * range.min_normal) / median,
                                     &carrier, &scale, out.name, &also);
  if (!p.exact) return false;
  also.push_back(carrier);
  for (const std::string& name : also)
    if (!ScalesAfterSums(k, p, name)) return false;
  return true;
}

// The subnormal pass's ties (fresh-user review 16 F7): a scalar carrier set
// scaled by m/8 * 2^s (m odd: 13 * 2^-23) can leave no value before the
// conversion on a tie of the target's subnormal grid (ties need the sum's
// low bits at half a subnormal; an odd m moves them 3 bits lower), so
// ties-away rounding of subnormals passed. When every member of `set` is an
// f32 scalar and `plan` fits exactly, the set is rescaled to the power of two
// nearest `*scale`, then (when that leaves no tie) by a further 2 and 4
// (each doubles the share of values whose lowest bit can sit at half a
// subnormal), each kept only when it still fits exactly and the median
// |value| stored stays within `aim_factor` of `aim`; CountSubnormalTies
// measures each (at most 3 reference-only runs, `*runs` counts them). The
// first with a tie is taken, else the first that fits. `*plan` and `*scale`
// take it; `*ties` is its count (counted false: none counted).
absl::Status AimAtSubnormalTies(const Kernel& k, ExactPlan* plan, double* scale, const std::vector<std::string>& set,
                                uint64_t seed, const UserValues& uv, const InterpOptions& io, const Arg& out,
                                double aim, double aim_factor, int* runs, SubnormalTies* ties) {
  bool scalars = !set.empty() && FitsSaturatingPlan(k, *plan);
  for (const std::string& name : set) {
    const Arg* a = k.FindArg(name);
    scalars = scalars && a != nullptr && a->kind == Arg::Kind::kScalar && a->elem == ElemType::kF32;
  }
  std::vector<double> factors = {1};
  if (scalars && *scale > 0) {
    const double r0 = std::ldexp(1.0, static_cast<int>(std::lround(std::log2(*scale)))) / *scale;
    factors = {r0, 2 * r0, 4 * r0};
  }
  std::optional<std::pair<ExactPlan, double>> first;  // the first that fits, and its factor
  SubnormalTies first_ties;
  for (double f : factors) {
    ExactPlan q = *plan;
    if (f != 1) {
      for (const std::string& name : set)
        for (double& c : q.formats[name].choices) c *= f;
      if (!FitsSaturatingPlan(k, q)) continue;
    }
    absl::StatusOr<SubnormalTies> t = CountSubnormalTies(k, q, seed, uv, io, out);
    if (!t.ok()) return t.status();
    ++*runs;
    if (!t->counted) {  // no other factor counts either
      *ties = *t;
      return absl::OkStatus();
    }
    const double m = t->median;
    if (f != 1 && !(std::isfinite(m) && m > 0 && m >= aim / aim_factor && m <= aim * aim_factor)) continue;
    // The first kept, or the first with a tie when it had none.
    if (!first || (first_ties.ties == 0 && t->ties > 0)) {
      first = std::make_pair(q, f);
      first_ties = *t;
    }
    if (BothTieKinds(*t)) {  // both kinds of tie (review 20 F9)
      *plan = std::move(q);
      *scale *= f;
      *ties = *t;
      return absl::OkStatus();
    }
  }
  if (first) {
    *plan = std::move(first->first);
    *scale *= first->second;
    *ties = first_ties;
    return absl::OkStatus();
  }
  // Nothing rescaled fits: the plan as it is, counted.
  absl::StatusOr<SubnormalTies> t = CountSubnormalTies(k, *plan, seed, uv, io, out);
  if (!t.ok()) return t.status();
  ++*runs;
  *ties = *t;
  return absl::OkStatus();
}

// What AimAtSubnormalTiesEntering changed: the carrier's factor (1: none)
// and a further carrier's (empty: none).
struct EnteringRescale {
  double carrier_factor = 1;
  std::string further;
  double further_factor = 1;
};

// The subnormal pass's ties for an f32 scalar `carrier` (no companions)
// entering the values `enters` > 1 times (fresh-user review 18 F4: u of
// cvt(acc * u * u) at 13 * 2^-10 left no tie of the subnormal grid: u^2's
// odd factor 169 widens every value's significand past the grid's 3 bits,
// so ties-away rounding of subnormals passed). The carrier is put at a
// power of two (scale 2^j: then its e-th power is one), which moves the
// values by the carrier factor's e-th power, in steps of 2^e; the first of
// `*more` (further carriers; each factor a power of two, else nothing is
// rescaled) without companions (`more_also`) may take a further 2 or 1/2
// (entering once: A times 0.5 of the same kernel), steps of 2 between. The
// candidates are
// ordered by how near the median they predict (`median`, the measuring
// run's, times their factor on the values) lies to `aim` (review 17 F1:
// P = cvt(alpha * alpha * acc) put at the power of two nearest the
// carrier's scale moved its median from 2^-8.4 up to 2^-7.8, away from
// the lower subnormals where a flush of |x| < 2^-9 showed; nearest the
// aim, with A's further 2, it lies at 2^-8.8); equal factors on the values
// (the same values: every factor a power of two) once, the further
// carrier's factor nearer 1 first. At most 3 that fit exactly are
// measured (CountSubnormalTies, `*runs` counts them), each kept only when
// the median stored stays within `aim_factor` of `aim`: the first with a
// tie is taken, else the first kept, else the plan as it is, counted.
// `*plan`, `*scale` and `*more` take it, `*changed` says what moved.
absl::Status AimAtSubnormalTiesEntering(const Kernel& k, ExactPlan* plan, double* scale, const std::string& carrier,
                                        int enters, std::vector<std::pair<std::string, double>>* more,
                                        const std::map<std::string, std::vector<std::string>>& more_also,
                                        double median, uint64_t seed, const UserValues& uv,
                                        const InterpOptions& io, const Arg& out, double aim, double aim_factor,
                                        int* runs, SubnormalTies* ties, EnteringRescale* changed) {
  const Arg* c = k.FindArg(carrier);
  bool ok = c != nullptr && c->kind == Arg::Kind::kScalar && c->elem == ElemType::kF32 && enters > 1 &&
            *scale > 0 && std::isfinite(median) && median > 0 && FitsSaturatingPlan(k, *plan);
  for (const auto& [name, x] : *more) {
    int e = 0;
    ok = ok && std::frexp(std::fabs(x), &e) == 0.5;
  }
  struct Candidate {
    double carrier_factor, further_factor;
    int step;         // log2 of the factor on the values, less enters * log2(1 / scale): an integer
    double distance;  // |log2(predicted median / aim)|
    double further;   // |log2| of the further carrier's factor after it
  };
  std::vector<Candidate> candidates;
  if (ok) {
    const std::string further = more->empty() ? std::string() : more->front().first;
    const double x0 = further.empty() ? 1 : more->front().second;
    std::vector<int> further_steps = {0};
    if (!further.empty() && k.FindArg(further) != nullptr && !more_also.count(further)) further_steps = {0, 1, -1};
    const int j0 = static_cast<int>(std::floor(std::log2(*scale)));
    for (int j = j0 - 1; j <= j0 + 2; ++j)
      for (int s : further_steps) {
        const double cf = std::ldexp(1.0, j) / *scale, a = std::ldexp(1.0, s);
        const int step = enters * j + s;
        // log2 of the predicted median over the aim (the same for equal steps).
        const double d = std::log2(median / aim) + step - enters * std::log2(*scale);
        if (!(std::fabs(d) <= std::log2(aim_factor))) continue;
        candidates.push_back({cf, a, step, std::fabs(d), std::fabs(std::log2(x0 * a))});
      }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& p, const Candidate& q) {
      return std::tie(p.distance, p.step, p.further) < std::tie(q.distance, q.step, q.further);
    });
    // Equal steps store the same values (every factor a power of two):
    // once, the further carrier's factor nearer 1; equally near the aim,
    // the lower values first.
    std::vector<Candidate> unique;
    for (const Candidate& cand : candidates)
      if (std::none_of(unique.begin(), unique.end(), [&](const Candidate& u) { return u.step == cand.step; }))
        unique.push_back(cand);
    candidates = std::move(unique);
  }
  std::optional<std::pair<ExactPlan, Candidate>> first;  // the first kept
  SubnormalTies first_ties;
  int measured = 0;
  auto take = [&](ExactPlan q, const Candidate& cand, const SubnormalTies& t) {
    *plan = std::move(q);
    *scale *= cand.carrier_factor;
    changed->carrier_factor = cand.carrier_factor;
    if (cand.further_factor != 1) {
      more->front().second *= cand.further_factor;
      changed->further = more->front().first;
      changed->further_factor = cand.further_factor;
    }
    *ties = t;
  };
  for (const Candidate& cand : candidates) {
    // At most 3 runs; 2 more when none so far drew ties of both kinds
    // (each placement moves the values a power of two: review 20 F9).
    if (measured == 3 + (first && first_ties.ties > 0 ? 2 : 0)) break;
    ExactPlan q = *plan;
    for (double& v : q.formats[carrier].choices) v *= cand.carrier_factor;
    if (cand.further_factor != 1) {
      const Arg* fa = k.FindArg(more->front().first);
      ExactFormat& f = q.formats[fa->name];
      if (fa->kind == Arg::Kind::kScalar) {
        for (double& v : f.choices) v *= cand.further_factor;
      } else {
        // A buffer's values times 2^+-1 (ExactFormat::shift), within its
        // type's range and above its smallest subnormal.
        const int s = cand.further_factor > 1 ? 1 : -1;
        const FloatRange r = FloatRangeOf(fa->elem);
        if (std::ldexp(std::ldexp(1.0, f.bits) - 1, f.exp_lo + f.spread + f.shift + s) > r.max ||
            std::ldexp(1.0, f.exp_lo + f.shift + s) < r.min_subnormal)
          continue;
        f.shift += s;
      }
    }
    if (!FitsSaturatingPlan(k, q)) continue;
    absl::StatusOr<SubnormalTies> t = CountSubnormalTies(k, q, seed, uv, io, out);
    if (!t.ok()) return t.status();
    ++*runs;
    ++measured;
    if (!t->counted) {  // no other candidate counts either
      *ties = *t;
      return absl::OkStatus();
    }
    const double m = t->median;
    if (!(std::isfinite(m) && m > 0 && m >= aim / aim_factor && m <= aim * aim_factor)) continue;
    if (BothTieKinds(*t)) {  // both kinds of tie (review 20 F9)
      take(std::move(q), cand, *t);
      return absl::OkStatus();
    }
    // The first kept, or the first with a tie when it had none.
    if (!first || (first_ties.ties == 0 && t->ties > 0)) {
      first = std::make_pair(std::move(q), cand);
      first_ties = *t;
    }
  }
  if (first) {
    take(std::move(first->first), first->second, first_ties);
    return absl::OkStatus();
  }
  // Nothing rescaled fits: the plan as it is, counted.
  absl::StatusOr<SubnormalTies> t = CountSubnormalTies(k, *plan, seed, uv, io, out);
  if (!t.ok()) return t.status();
  ++*runs;
  *ties = *t;
  return absl::OkStatus();
}

// The inputs line's words for what AimAtSubnormalTiesEntering changed
// (empty: nothing), `median` the median |value| then stored.
std::string EnteringNote(const EnteringRescale& r, const std::string& carrier, int enters, const std::string& out,
                         double median) {
  if (r.carrier_factor == 1 && r.further.empty()) return "";
  return absl::StrCat(
      "; then ", carrier, absl::StrFormat(" times %g", r.carrier_factor),
      r.further.empty() ? std::string()
                        : absl::StrCat(" and ", r.further, absl::StrFormat(" times %g", r.further_factor)),
      " (", carrier, " at a power of two, so its ",
      enters == 2   ? std::string("square")
      : enters == 3 ? std::string("cube")
                    : absl::StrCat(enters, "th power"),
      " too (it enters ", out, "'s values ", enters, " times): ties of the subnormal grid; ",
      absl::StrFormat("the values times %g) with a median |value| stored of %g",
                      std::pow(r.carrier_factor, enters) * r.further_factor, median));
}

// The subnormal pass's ties of both kinds (fresh-user review 20 F9): the
// conversion pass's floats are negative 1 in 8, so a sum of many products
// stays near 3/4 of its bound, spread by its square root only; scaled into
// the subnormals of an fp8 target (3 or 2 significand bits) its values
// covered about one code (k1h, K = 256: every tie 5 * 2^-10 of f8e4m3fn,
// its lower neighbour even), and no power of two on the carrier drew both
// kinds, so ties rounded toward zero passed. With every float buffer's
// elements negative half the time (ExactFormat::negative_one_in 2) the
// sums spread around 0 over many codes (|sum| about its square root in
// units of a product, 1.5, 2.5, 3.5, ... steps of the grid alike).
struct BalancedTies {
  bool tried = false;  // a reference-only run of the balanced plan was made
  bool taken = false;  // its ties hold both kinds, its median near the aim: the pass's plan
};

// `plan` with every float buffer's form (not special, not zeroed)
// negative one in 2 (ExactFormat::negative_one_in); false in `*changed`
// when no form took it.
ExactPlan BalancedSigns(const Kernel& k, const ExactPlan& plan, bool* changed) {
  ExactPlan q = plan;
  *changed = false;
  for (auto& [name, f] : q.formats) {
    const Arg* a = k.FindArg(name);
    if (a == nullptr || a->kind != Arg::Kind::kBuffer || a->elem == ElemType::kI32 || f.special || f.zero ||
        f.bits == 0)
      continue;
    f.negative_one_in = 2;
    *changed = true;
  }
  return q;
}

// When `*ties` (the plan's, counted) hold one kind of tie or none: the
// plan with balanced signs (BalancedSigns), counted (CountSubnormalTies)
// for its median, then its carrier put at the power of two that moves the
// median nearest `aim` and aimed at ties as the plan was
// (AimAtSubnormalTiesEntering for a scalar carrier entering `enters` > 1
// times, AimAtSubnormalTies for the scalar set `set`; with neither, only
// counted). Taken (`*plan`, `*scale`, `*more`, `*changed`, `*ties`) only when
// its ties hold both kinds and its median lies within `aim_factor` of
// `aim`; `*runs` counts every run.
absl::Status AimAtBothTieKinds(const Kernel& k, ExactPlan* plan, double* scale, const std::vector<std::string>& set,
                               const std::string& carrier, int enters, bool entering,
                               std::vector<std::pair<std::string, double>>* more,
                               const std::map<std::string, std::vector<std::string>>& more_also, uint64_t seed,
                               const UserValues& uv, const InterpOptions& io, const Arg& out, double aim,
                               double aim_factor, int* runs, SubnormalTies* ties, EnteringRescale* changed,
                               BalancedTies* balanced) {
  if (!ties->counted || BothTieKinds(*ties)) return absl::OkStatus();
  bool any = false;
  ExactPlan q = BalancedSigns(k, *plan, &any);
  if (!any) return absl::OkStatus();
  absl::StatusOr<SubnormalTies> t = CountSubnormalTies(k, q, seed, uv, io, out);
  if (!t.ok()) return t.status();
  ++*runs;
  balanced->tried = true;
  const auto near_aim = [&](double m) { return std::isfinite(m) && m > 0 && m >= aim / aim_factor && m <= aim * aim_factor; };
  if (!t->counted || !(std::isfinite(t->median_before) && t->median_before > 0)) return absl::OkStatus();
  double s = *scale;
  std::vector<std::pair<std::string, double>> m = *more;
  EnteringRescale ch;
  SubnormalTies got = *t;
  const std::vector<std::string> scaled = entering ? std::vector<std::string>{carrier} : set;
  if (!scaled.empty()) {
    // The power of two on the carrier (set) nearest the aim.
    const int e = entering ? enters : 1;
    const int j = static_cast<int>(std::lround(std::log2(aim / t->median_before) / e));
    const double f = std::ldexp(1.0, j);
    ExactPlan r = q;
    for (const std::string& name : scaled)
      for (double& c : r.formats[name].choices) c *= f;
    if (FitsSaturatingPlan(k, r)) {
      double rs = s * f;
      absl::Status st =
          entering ? AimAtSubnormalTiesEntering(k, &r, &rs, carrier, enters, &m, more_also,
                                                t->median_before * std::pow(f, e), seed, uv, io, out, aim, aim_factor, runs,
                                                &got, &ch)
                   : AimAtSubnormalTies(k, &r, &rs, set, seed, uv, io, out, aim, aim_factor, runs, &got);
      if (!st.ok()) return st;
      q = std::move(r);
      s = rs;
    }
  }
  if (!got.counted || !BothTieKinds(got) || !near_aim(got.median)) return absl::OkStatus();
  // Taken: what moved is said against the scale before the ties were aimed.
  if (entering) {
    changed->carrier_factor *= s / *scale;
    if (!ch.further.empty()) {
      if (changed->further.empty()) changed->further_factor = 1;
      changed->further = ch.further;
      changed->further_factor *= ch.further_factor;
    }
  }
  *plan = std::move(q);
  *scale = s;
  *more = std::move(m);
  *ties = got;
  balanced->taken = true;
  return absl::OkStatus();
}

// The inputs line's words for AimAtBothTieKinds (empty: not tried).
std::string BalancedNote(const BalancedTies& b) {
  if (!b.tried) return "";
  return b.taken ? "; floats negative with probability 1/2 instead of 1/8 (the sums spread around 0 over many codes "
                   "of the subnormal grid: ties of both kinds)"
                 : "; floats negative with probability 1/2 instead of 1/8 drew no ties of both kinds with the median "
                   "near the aim: not taken";
}

// Why the saturation pass's confirming runs took no further step with
// fewer than a quarter of the values at or beyond the max (fresh-user
// review 17 F7): no other argument takes a factor 2, and `carrier`'s
// smallest step, entering `out`'s values `enters` times, moves them by
// `step` (> 2).
std::string RetryNotTakenNote(const std::string& carrier, int enters, const std::string& out, double step) {
  return absl::StrFormat(
      "; no further step: no other argument takes a factor 2, and %s, a power of two entering %s's values %d "
      "times, moves them by %g at least, which could take every value past the max (none then stored below it)",
      carrier, out, enters, step);
}

// A bf16 output's subnormal pass (fresh-user review 18 F6: alpha of
// cvt((acc * alpha) * alpha), entering twice, was aimed a factor 2 short
// and A took the rest, times 0.5; bf16 then got no subnormal pass, A being
// no f32 scalar applied after every sum, though alpha alone near 2^-65
// puts the values in f32's subnormals exactly): the carrier set `set` (the
// carrier and its companions, each an f32 scalar applied after every
// mfma/gemm sum: ScalesAfterSums) takes the further carriers' factors
// (`more`, with their companions `more_also`) instead, by the `enters`-th
// root of their product (the factor the values took from them, each
// entering once; rounded to 3 significand bits or a power of two so that
// the values stay exact: `*f`, whose e-th power the values then take
// instead), and the further carriers and their companions are `from`'s
// again. The plan when every value then fits exactly and each member
// still scales after every sum; else none (also for companions of a
// carrier entering more than once, which would scale by other powers).
std::optional<ExactPlan> ScalarCarrierSetAlone(const Kernel& k, const ExactPlan& plan, const ExactPlan& from,
                                               const std::vector<std::string>& set, int enters,
                                               const std::vector<std::pair<std::string, double>>& more,
                                               const std::map<std::string, std::vector<std::string>>& more_also,
                                               double* f) {
  if (more.empty() || enters < 1 || (enters > 1 && set.size() > 1)) return std::nullopt;
  double product = 1;
  ExactPlan q = plan;
  for (const auto& [name, x] : more) {
    product *= x;
    std::vector<std::string> names = {name};
    if (auto with = more_also.find(name); with != more_also.end())
      names.insert(names.end(), with->second.begin(), with->second.end());
    for (const std::string& n : names) {
      if (std::find(set.begin(), set.end(), n) != set.end() || !from.formats.count(n)) return std::nullopt;
      q.formats[n] = from.formats.at(n);
    }
  }
  if (!(product > 0) || !std::isfinite(product)) return std::nullopt;
  for (const std::string& name : set) {
    const Arg* a = k.FindArg(name);
    if (a == nullptr || a->kind != Arg::Kind::kScalar || a->elem != ElemType::kF32) return std::nullopt;
  }
  // The factor: the nearest m/8 * 2^s (m in [8, 16]: 3 significand bits, as
  // SaturationPlan's) to the root, else the power of two nearest it, else
  // the other one around it; the first with which every value fits.
  const double root = std::pow(product, 1.0 / enters);
  const int s = static_cast<int>(std::floor(std::log2(root)));
  const double lo = std::ldexp(1.0, s);
  std::vector<double> factors = {std::round(root / lo * 8) / 8 * lo, std::ldexp(1.0, std::lround(std::log2(root)))};
  factors.push_back(factors[1] == lo ? 2 * lo : lo);
  for (double x : factors) {
    ExactPlan r = q;
    for (const std::string& name : set)
      for (double& c : r.formats[name].choices) c *= x;
    if (!FitsSaturatingPlan(k, r)) continue;
    bool after = true;
    for (const std::string& name : set) after = after && ScalesAfterSums(k, r, name);
    if (!after) continue;
    *f = x;
    return r;
  }
  return std::nullopt;
}

// The inputs line's words for `t`'s ties (t.ties > 0) of a grid with
// `range`: how many RNE rounds up and down, and, with one kind only, which
// wrong rounding of ties the pass does not tell from it (review 20 F9).
std::string SubnormalTiesKindsText(const SubnormalTies& t, const FloatRange& range) {
  const int64_t down = t.ties - t.ties_up;
  return absl::StrCat(
      t.ties, " of them exact ties of its subnormal grid (odd multiples of ",
      absl::StrFormat("%g", range.min_subnormal / 2), "; ", t.ties_up,
      " with an odd lower neighbour, where round-to-nearest-even rounds up, ", down,
      " with an even one, where it rounds down",
      BothTieKinds(t) ? std::string(": round-to-nearest-even is checked there)")
      : t.ties_up == 0
          ? std::string(": rounding ties toward zero is not told from round-to-nearest-even by this pass)")
          : std::string(": rounding ties away from zero is not told from round-to-nearest-even by this pass)"));
}

// The text the subnormal pass's inputs line says of its ties: how many of
// the values before `out`'s conversion lay in its subnormal range and how
// many of those were exact ties of its grid.
std::string TiesNote(const SubnormalTies& t, const std::string& out, ElemType to, int runs, double rescaled) {
  const std::string tn(ElemTypeName(to));
  const FloatRange range = FloatRangeOf(to);
  if (!t.counted) return absl::StrCat("; ties of ", tn, "'s subnormal grid not counted (", t.why, ")");
  return absl::StrCat(
      rescaled != 1 ? absl::StrFormat("; then times %g (the carrier set at a power of two: ties of the subnormal "
                                      "grid) with a median |value| stored of %g",
                                      rescaled, t.median)
                    : std::string(),
      absl::StrFormat("; %d reference-only run%s storing the values before %s's conversion in f32 as well: of ",
                      runs, runs == 1 ? "" : "s", out),
      t.values, " non-zero values (sampled) ", t.subnormal, " lie below ", tn, "'s smallest normal ",
      absl::StrFormat("%g", range.min_normal), ", ",
      t.ties > 0 ? SubnormalTiesKindsText(t, range)
                 : absl::StrCat("none an exact tie of its subnormal grid (odd multiples of ",
                                absl::StrFormat("%g", range.min_subnormal / 2),
                                "): its rounding of subnormal ties is not checked by this pass"));
}

}  // namespace

void ApplyWindowValues(const Kernel& k, const PassSpec& s, KernelData* in) {
  for (const auto& [name, e, bits] : s.window_values) {
    const Arg* a = k.FindArg(name);
    if (a == nullptr) continue;
    const uint64_t eb = static_cast<uint64_t>(ElemBytes(a->elem));
    auto it = in->buffers.find(name);
    if (it == in->buffers.end() || (e + 1) * eb > it->second.size()) continue;
    uint8_t* p = it->second.Touch(e * eb, eb);
    for (uint64_t x = 0; x < eb; ++x) p[x] = static_cast<uint8_t>(bits >> (8 * x));
  }
}

namespace {

// At most this many elements of a diagonal buffer are tried for the window
// at the max (PlaceMaxWindow), each by one reference-only run.
constexpr int kWindowTrials = 4;

// The value of element `e` of buffer `a` in `d` (NaN when it has none).
double ElementAt(const KernelData& d, const Arg& a, uint64_t e) {
  auto it = d.buffers.find(a.name);
  const uint64_t eb = static_cast<uint64_t>(ElemBytes(a.elem));
  if (it == d.buffers.end() || (e + 1) * eb > it->second.size()) return std::nan("");
  uint8_t b[8] = {};
  it->second.Read(e * eb, b, eb);
  return ElementValue(a.elem, b);
}

// The value before the conversion of a line value `acc` (x * R, an f32
// value) when the carrier's value `a` enters it `enters` times, one f32
// multiply each (fresh-user review 18 F6: (acc * alpha) * alpha): in
// program order ((acc * a) * a ...) and with the carrier's powers first
// (acc * (a * a ...)); the window placement takes a value only where both
// orders agree. enters 1: both a * acc.
std::pair<float, float> CarrierTimes(float a, float acc, int enters) {
  volatile float f1 = acc, p = a;
  for (int t = 0; t < enters; ++t) f1 = f1 * a;
  for (int t = 1; t < enters; ++t) p = p * a;
  volatile float f2 = acc * p;
  return {f1, f2};
}

// The value before the conversion of a line value `acc` (x * R, an f32
// value) that the output's own addend `b` (rc * v, exact in f32) carries
// (fresh-user review 18 F1: alpha * acc + beta * C), the carrier's value `a`
// entering `enters` times; nullopt where the evaluation orders may differ.
// Entering once: a * acc exact in f32 (a fused multiply-add and a multiply
// then an add agree), b + a * acc rounded once. Entering e > 1 times
// (fresh-user review 20 F6: sa * sa * A * B + beta * C), where a^e * acc is
// rarely exact: the value only where every order agrees, the carrier's
// multiplies in program order or its powers first (CarrierTimes), each
// then added to b rounded or fused with the last multiply.
std::optional<float> AddendCarrierTimes(float a, float acc, int enters, double b) {
  const float fb = static_cast<float>(b);
  if (static_cast<double>(fb) != b) return std::nullopt;
  if (enters == 1) {
    const double fine = static_cast<double>(a) * acc;
    if (static_cast<double>(static_cast<float>(fine)) != fine) return std::nullopt;
    return static_cast<float>(b + fine);
  }
  volatile float t = acc, q = a;
  for (int i = 1; i < enters; ++i) t = t * a;  // program order but the last multiply
  for (int i = 1; i < enters; ++i) q = q * a;  // a^e, powers first
  volatile float p1 = t * a, p2 = acc * q;
  const float v[4] = {fb + p1, fb + p2, std::fma(static_cast<float>(t), a, fb), std::fma(acc, static_cast<float>(q), fb)};
  for (float w : v)
    if (!(w == v[0])) return std::nullopt;
  return v[0];
}

// Where a value before a conversion to an f16 or bf16 output lies at its
// max: in the window (max, max + ulp/2) that rounds to max, at the tie
// max + ulp/2 (rounds to even: inf), in (max - ulp/2, max) (rounds to max),
// or elsewhere; by magnitude.
enum class AtMax { kElsewhere, kBelow, kWindow, kTie };
AtMax ClassAtMax(double f, const FloatRange& range, double half_ulp) {
  const double m = std::fabs(f);
  if (m > range.max && m < range.max + half_ulp) return AtMax::kWindow;
  if (m == range.max + half_ulp) return AtMax::kTie;
  if (m > range.max - half_ulp && m < range.max) return AtMax::kBelow;
  return AtMax::kElsewhere;
}

// A value of the window placement: line element `e` (R = `r`, read by the
// probe), D's value `x` and the carrier's value `alpha`; `score`: |log| of
// the factor the pass's values take (the carrier's factor to the power it
// enters them; HUGE_VAL: none found).
struct WindowPick {
  uint64_t e = 0;
  double x = 0, r = 0;
  float alpha = 0;
  double score = HUGE_VAL;
  // Through the output's own addend (SearchAddendPick): its element e's
  // value `v` (0: none), which the pass multiplies by `rc` (base = rc * v).
  double v = 0, rc = 0, base = 0;
};

// The carrier values a (f32) to try for a^enters = `factor`, a of
// alpha_pass's sign: entering once, factor itself; e > 1 times, the f32
// value nearest factor's e-th root and 8 f32 neighbours on either side
// (where rounding of the multiplies may reach the tie); none when an even
// power cannot give a factor <= 0. Shared by SearchWindowPick and
// SearchAddendPick.
std::vector<float> CarrierCandidates(double factor, int enters, float alpha_pass) {
  std::vector<float> as;
  if (enters == 1) {
    as.push_back(static_cast<float>(factor));
    return as;
  }
  if (!(factor > 0) && enters % 2 == 0) return as;
  const float a0 =
      static_cast<float>(std::copysign(std::pow(std::fabs(factor), 1.0 / enters), static_cast<double>(alpha_pass)));
  as.push_back(a0);
  float up = a0, down = a0;
  for (int t = 0; t < 8; ++t) {
    up = std::nextafter(up, HUGE_VALF);
    down = std::nextafter(down, -HUGE_VALF);
    as.push_back(up);
    as.push_back(down);
  }
  return as;
}

// The value x of type `xt` (of D's elements set to x) and the carrier's
// value a, entering `enters` times (CarrierTimes), for which some line value
// x * R (R of `line`, exact in f32) lies, in both orders, at `target`
// (`exact`: the tie) or in the window at the max with target's sign; a of
// alpha_pass's sign, the pass's values moving by the least factor. x: 3
// significand bits near |target / (alpha_pass^enters R)| and up to 4 times
// below; a: target / (x R), or, entering e > 1 times, the f32 values
// nearest its e-th root (8 on either side, where rounding may reach the
// tie).
WindowPick SearchWindowPick(const std::vector<std::pair<uint64_t, double>>& line, double target, bool exact,
                            float alpha_pass, int enters, ElemType xt, const FloatRange& range, double half_ulp) {
  WindowPick best;
  const double c_pass = std::pow(static_cast<double>(alpha_pass), enters);
  const AtMax want = exact ? AtMax::kTie : AtMax::kWindow;
  for (const auto& [e, rv] : line) {
    if (std::fabs(rv) < range.min_normal || std::fabs(rv) >= range.max) continue;  // R read exactly
    const double xi = std::fabs(target / (c_pass * rv));
    const double xs = (target > 0) == ((c_pass > 0) == (rv > 0)) ? 1 : -1;
    int e2 = 0;
    std::frexp(xi, &e2);
    for (int ee = e2 - 2; ee <= e2; ++ee)
      for (int j = 0; j < 16; ++j) {
        const double x = xs * std::ldexp(1.0 + j / 16.0, ee);
        if (!ExactBits(xt, x).has_value()) continue;
        const double acc = x * rv;
        if (static_cast<double>(static_cast<float>(acc)) != acc) continue;
        const std::vector<float> as = CarrierCandidates(target / acc, enters, alpha_pass);
        for (const float a : as) {
          if (!std::isfinite(a) || a == 0 || (a > 0) != (alpha_pass > 0)) continue;
          const auto [f1, f2] = CarrierTimes(a, static_cast<float>(acc), enters);
          const double d1 = static_cast<double>(f1), d2 = static_cast<double>(f2);
          if (exact ? !(d1 == target && d2 == target)
                    : !(ClassAtMax(d1, range, half_ulp) == want && ClassAtMax(d2, range, half_ulp) == want &&
                        (d1 > 0) == (target > 0) && (d2 > 0) == (target > 0)))
            continue;
          const double score = enters * std::fabs(std::log(static_cast<double>(a) / alpha_pass));
          if (score < best.score) best = {e, x, rv, a, score};
        }
      }
  }
  return best;
}

// Through the output's own addend (fresh-user review 18 F1: alpha * acc +
// beta * C, where a K-long sum scaled to the max lies far above a line of
// single products, and bf16's tie needs the carrier beyond a factor 1.25):
// line element e's value of C `v` (a value of C's type) with rc * v (rc:
// what the pass multiplies C's element by, read by a probe: `rcs`) at +-max
// or up to 3 of the output's ulps below, exact in f32, and the carrier
// (entering `enters` times) times x * R the rest: f32 multiplies, each
// exact (so that a fused multiply-add and a multiply then an add agree, and
// so do the orders of CarrierTimes), the sum rounded once, at `target`
// (`exact`: the tie) or in the window at the max with target's sign; the
// carrier the pass's value when it fits (the window), else within a factor
// 1.25 of it: entering e > 1 times (fresh-user review 20 F6: sa * sa * A * B
// + beta * C), the f32 values nearest the e-th root of the rest's factor (8
// on either side).
WindowPick SearchAddendPick(const std::vector<std::pair<uint64_t, double>>& line,
                            const std::map<uint64_t, double>& rcs, double target, bool exact, float alpha_pass,
                            int enters, ElemType xt, ElemType ct, const FloatRange& range, double half_ulp) {
  WindowPick best;
  if (enters < 1) return best;
  const double ts = target > 0 ? 1 : -1;
  const double c_pass = std::pow(static_cast<double>(alpha_pass), enters);
  for (const auto& [e, rv] : line) {
    auto it = rcs.find(e);
    if (it == rcs.end() || !std::isfinite(it->second) || it->second == 0) continue;
    if (std::fabs(rv) < range.min_normal || std::fabs(rv) >= range.max) continue;
    const double rc = it->second;
    for (int m = 0; m < 4; ++m) {
      const double b = ts * (range.max - m * 2 * half_ulp);
      const double v = b / rc;
      if (!ExactBits(ct, v).has_value() || static_cast<double>(static_cast<float>(rc * v)) != b) continue;
      const double need = target - b;
      if (need == 0) continue;
      const double xi = std::fabs(need / (c_pass * rv));
      const double xs = (need > 0) == ((c_pass > 0) == (rv > 0)) ? 1 : -1;
      int e2 = 0;
      std::frexp(xi, &e2);
      for (int ee = e2 - 4; ee <= e2; ++ee)
        for (int j = 0; j < 16; ++j) {
          const double x = xs * std::ldexp(1.0 + j / 16.0, ee);
          if (!ExactBits(xt, x).has_value()) continue;
          const double acc = x * rv;
          if (static_cast<double>(static_cast<float>(acc)) != acc) continue;
          std::vector<float> as = CarrierCandidates(need / acc, enters, alpha_pass);
          if (!exact) as.push_back(alpha_pass);
          for (const float a : as) {
            if (!std::isfinite(a) || a == 0 || (a > 0) != (alpha_pass > 0)) continue;
            const std::optional<float> fa = AddendCarrierTimes(a, static_cast<float>(acc), enters, b);
            if (!fa) continue;
            const double f = static_cast<double>(*fa);
            if (exact ? f != target : !(ClassAtMax(f, range, half_ulp) == AtMax::kWindow && (f > 0) == (target > 0)))
              continue;
            const double score = enters * std::fabs(std::log(static_cast<double>(a) / alpha_pass));
            if (score < best.score) {
              best = {e, x, rv, a, score};
              best.v = v;
              best.rc = rc;
              best.base = b;
            }
          }
        }
    }
  }
  return best;
}

// The lowest power of two of which |v| (nonzero, finite) is a multiple.
double LowestBit(double v) {
  int ex = 0;
  const double m = std::frexp(std::fabs(v), &ex);  // |v| = m 2^ex, m in [0.5, 1)
  uint64_t q = static_cast<uint64_t>(std::ldexp(m, 53));
  int tz = 0;
  while (q != 0 && (q & 1) == 0) {
    q >>= 1;
    ++tz;
  }
  return std::ldexp(1.0, ex - 53 + tz);
}

// The window placement's probe (PlaceMaxWindow): pass `s`'s inputs with no
// blocks, buffer D (`dname`) 0 but 1 at `ones` (element indices), the
// addends `addends` (elementwise-fed buffers: beta * C) all 0 and the
// carrier 1, run by the reference alone; `line`: the output's stored
// nonzero elements (element index, value), at most `cap` of them.
struct WindowProbe {
  std::vector<std::pair<uint64_t, double>> line;
  bool other = false;          // a non-finite value, or more than `cap`
  bool user_carrier = false;   // the user's values set the carrier
};
absl::StatusOr<WindowProbe> ProbeWindowLine(const Kernel& k, const PassSpec& s,
                                            const std::vector<std::string>& diagonals, const std::string& dname,
                                            const std::vector<uint64_t>& ones, const std::vector<std::string>& addends,
                                            const std::string& carrier, const Arg& out, uint64_t cap, uint64_t seed,
                                            const UserValues& uv, const InterpOptions& io,
                                            const std::vector<uint64_t>& out_ones = {}) {
  WindowProbe p;
  const Arg* d = k.FindArg(dname);
  ExactPlan probe = s.sat;
  for (const std::string& name : diagonals) probe.formats[name].diagonal = ExactFormat::Diagonal::kNone;
  probe.formats[dname].zero = true;
  for (const std::string& name : addends) {
    ExactFormat& f = probe.formats[name];
    f.zero = true;
    f.mix_level = -1;
    f.special = false;
  }
  if (out_ones.empty()) {
    ExactFormat& cf = probe.formats[carrier];
    cf.choices = {1.0};
    cf.shift = 0;
    cf.negate = false;
  }
  KernelData in = MakeConversionInputs(k, probe, seed);
  PassSpec one_spec;
  for (uint64_t e : ones) one_spec.window_values.emplace_back(dname, e, *ExactBits(d->elem, 1.0));
  for (uint64_t e : out_ones) one_spec.window_values.emplace_back(out.name, e, *ExactBits(out.elem, 1.0));
  ApplyWindowValues(k, one_spec, &in);
  uv.ApplyTo(k, &in);
  const float one = 1;
  if (auto it = in.scalars.find(carrier);
      out_ones.empty() && (it == in.scalars.end() || it->second != F32Bits(one))) {
    p.user_carrier = true;
    return p;
  }
  PagedInterpArgs ref{in.buffers, in.scalars};
  if (absl::Status st = Interpret(k, ref, io); !st.ok())
    return absl::Status(st.code(),
                        absl::StrCat("reference interpreter (placing the window at the max): ", st.message()));
  auto rit = ref.buffers.find(out.name);
  auto iit = in.buffers.find(out.name);
  if (rit == ref.buffers.end()) return p;
  const uint64_t eb = static_cast<uint64_t>(ElemBytes(out.elem));
  std::vector<uint8_t> now(PagedBytes::kPageBytes), before(PagedBytes::kPageBytes);
  const PagedBytes& r = rit->second;
  const PagedBytes* w = iit == in.buffers.end() || iit->second.size() != r.size() ? nullptr : &iit->second;
  for (uint64_t page : r.MaterialisedPages()) {
    const uint64_t begin = page * PagedBytes::kPageBytes;
    const uint64_t n = std::min<uint64_t>(PagedBytes::kPageBytes, r.size() - begin) / eb * eb;
    r.Read(begin, now.data(), n);
    if (w != nullptr) w->Read(begin, before.data(), n);
    for (uint64_t off = 0; off < n; off += eb) {
      if (w != nullptr && std::memcmp(&now[off], &before[off], eb) == 0) continue;
      const double v = ElementValue(out.elem, &now[off]);
      if (v == 0) continue;
      if (!std::isfinite(v) || p.line.size() >= cap) {
        p.other = true;
        p.line.clear();
        return p;
      }
      p.line.push_back({(begin + off) / eb, v});
    }
  }
  return p;
}

// The rows and columns of 2-D buffer `d`'s block elements `blocks` (element
// indices): element b at row floor(b / strides[0]) (the unique one of a
// row-major layout; where rows overlap, strides[0] < shape[1] strides[1],
// the last row holding it), column the rest / strides[1].
void WindowBlockRowsColumns(const Arg& d, const std::vector<uint64_t>& blocks, std::set<int64_t>* rows,
                            std::set<int64_t>* cols) {
  if (d.strides[0] <= 0 || d.strides[1] <= 0) return;
  for (uint64_t b : blocks) {
    const int64_t i = std::min<int64_t>(static_cast<int64_t>(b) / d.strides[0], d.shape[0] - 1);
    const int64_t rem = static_cast<int64_t>(b) - i * d.strides[0];
    if (rem >= 0 && rem % d.strides[1] == 0 && rem / d.strides[1] < d.shape[1]) {
      rows->insert(i);
      cols->insert(rem / d.strides[1]);
    }
  }
}

// At most this many elements of D's row carry x (a line of sums of that
// many products: PlaceMaxWindow), and at most this many probes per element
// tried.
constexpr int kWindowMaxSum = 64;
constexpr int kWindowProbes = 3;

// The window at the max of an f16 or bf16 output (fresh-user review 16 F3:
// an epilogue that overflowed to inf for any |x| > max, instead of rounding
// (max, max + ulp/2) down to max, passed every pass: no value before the
// conversion lay in that window, whose width is 2^-12 (f16) of the max).
// For saturation pass `*s` (its blocks placed) of output `out_name`, whose
// carrier is an f32 scalar that scales the values after every mfma or gemm
// sum (OverflowsAlike: its products are one IEEE multiply of the same
// operands on both sides, rounded or not), entering them `enters` times
// (fresh-user review 18 F6: (acc * alpha) * alpha), and a diagonal buffer D
// of `diagonals` (an MFMA operand): n elements D[i0, j] of one row (beside
// the blocks, outside their rows and columns; n = 1 first) become the only
// nonzeros of that row and of their columns, so that their line of the
// result holds sums of n products x * R (exact; R: the other operand's
// elements times the other factors). A reference-only run with D all 0 but
// those elements 1, the carrier 1 and the addends 0 (the elementwise-fed
// buffers behind the output, `behind`: beta * C; fresh-user review 18 F1)
// reads R off the output (exact in f16 or bf16: R's bits bounded from the
// single products of the first probe, n at most kWindowMaxSum; its line
// alone nonzero, else no window); x (a value of D's type) and the carrier's
// value are then chosen so that carrier^enters * x * R is, in the +max
// pass, in (max, max + ulp/2) (inside the window), in the -max pass
// -(max + ulp/2) (the tie, which rounds to even: -inf) where an f32 carrier
// value allows, else inside the window; the pass's values moving by at most
// a factor 1.25. When no line of single products reaches (a K-long sum
// scaled to the max is far above one product: fresh-user review 18 F1, F5),
// n grows to the power of two that would (at most kWindowProbes probes per
// element tried); the -max pass also looks for the tie there. The addends'
// values on the line are 0 in the pass (only the output itself, read for
// beta * C: its elements on the line are the line's; another addend
// buffer: no window). A reference-only run of the final inputs confirms
// that every line value whose place (window, tie, just below the max) the
// choice predicts stores +-max or +-inf as predicted; else nothing changes.
// Returns the report line ("" when the pass does not qualify), or the
// interpreter's error. `*other` (when given): the diagonals whose probe
// found a non-finite value or more than a line (the same in every pass of
// the kernel: not probed again), "OUT/D".
absl::StatusOr<std::string> PlaceMaxWindow(const Kernel& k, PassSpec* s, const std::vector<std::string>& diagonals,
                                           const std::string& carrier, const std::string& out_name, uint64_t seed,
                                           const UserValues& uv, const InterpOptions& io,
                                           std::set<std::string>* other_addend = nullptr, int enters = 1,
                                           const std::set<std::string>* behind = nullptr) {
  const Arg* out = k.FindArg(out_name);
  const Arg* c = k.FindArg(carrier);
  if (out == nullptr || c == nullptr || c->kind != Arg::Kind::kScalar || c->elem != ElemType::kF32 ||
      (out->elem != ElemType::kF16 && out->elem != ElemType::kBF16) || !s->sat.formats.count(carrier) || enters < 1)
    return std::string();
  const FloatRange range = FloatRangeOf(out->elem);
  int emax = 0;
  std::frexp(range.max, &emax);
  const int p = out->elem == ElemType::kF16 ? 11 : 8;  // significand bits (IEEE binary16, bfloat16)
  const double half_ulp = std::ldexp(1.0, emax - 1 - p);  // f16: 16, bf16: 2^119
  const double tie = range.max + half_ulp, inside = range.max + half_ulp / 2;
  const std::string tn(ElemTypeName(out->elem));
  const std::string pass = absl::StrCat("saturation", s->suffix);
  const std::string not_placed = absl::StrCat(pass, ": ", out_name, ": no value placed in ", tn,
                                              "'s rounding window at its max (", absl::StrFormat("%g, %g", range.max, tie),
                                              "): ");
  KernelData pass_in = MakeConversionInputs(k, s->sat, seed);
  uv.ApplyTo(k, &pass_in);
  float alpha_pass = 0;
  if (auto it = pass_in.scalars.find(carrier); it != pass_in.scalars.end())
    std::memcpy(&alpha_pass, &it->second, sizeof alpha_pass);
  if (!std::isfinite(alpha_pass) || alpha_pass == 0)
    return absl::StrCat(not_placed, carrier, " is not finite and nonzero in this pass\n");
  const double sign = s->sign;
  const double c_pass = std::pow(static_cast<double>(alpha_pass), enters);
  // The addends: elementwise-fed buffers (beta * C's C) behind the output,
  // not an MFMA operand; only the output itself can be 0 on the line.
  std::vector<std::string> addends;
  std::string foreign_addend;
  for (const auto& [name, t] : ElementwiseFedBuffers(k)) {
    const Arg* a = k.FindArg(name);
    if (a == nullptr || a->kind != Arg::Kind::kBuffer || a->elem == ElemType::kI32 ||
        std::find(diagonals.begin(), diagonals.end(), name) != diagonals.end())
      continue;
    if (behind != nullptr && !behind->count(name)) continue;
    addends.push_back(name);
    if (name != out_name && foreign_addend.empty()) foreign_addend = name;
  }
  if (!foreign_addend.empty())
    return absl::StrCat(not_placed, foreign_addend, " adds to ", out_name, "'s values and is not ", out_name,
                        " itself: its elements on a line cannot be set to 0\n");
  const bool zero_output = std::find(addends.begin(), addends.end(), out_name) != addends.end();
  const std::string with_addends =
      zero_output ? absl::StrCat(", ", out_name, " (read for its addend) 0") : std::string();
  // Why no element gave a window value (the report's reason), per diagonal.
  std::vector<std::string> whys;
  for (const std::string& dname : diagonals) {
    const Arg* d = k.FindArg(dname);
    if (d == nullptr || d->shape.size() != 2 || d->elem == ElemType::kI32) continue;
    if (other_addend != nullptr && other_addend->count(absl::StrCat(out_name, "/", dname))) {
      whys.push_back(absl::StrCat(dname, ": its probe (", dname, " 0 but one element, ", carrier, " 1", with_addends,
                                  ") in an earlier pass stored a non-finite value or more than a line"));
      continue;
    }
    if (KWindowLayoutOf(*d) == KWindowLayout::kNone) {
      whys.push_back(absl::StrCat(dname, ": its rows or columns overlap in memory (strides [", d->strides[0], ", ",
                                  d->strides[1], "] for shape [", d->shape[0], ", ", d->shape[1],
                                  "]): no element is alone on its row and column"));
      continue;
    }
    const ExactFormat df = s->sat.formats[dname];
    std::vector<uint64_t> blocks = DiagonalElements(*d, df, seed);
    std::sort(blocks.begin(), blocks.end());
    const int64_t n0 = d->shape[0], n1 = d->shape[1];
    auto index = [&](int64_t i, int64_t j) {
      return static_cast<uint64_t>(i * d->strides[0] + j * d->strides[1]);
    };
    // The blocks' rows and columns (decoded from their element indices).
    std::set<int64_t> rows, cols;
    WindowBlockRowsColumns(*d, blocks, &rows, &cols);
    // Candidates: one block further along the diagonal from each block (a
    // block row and column the pass's blocks skip), one per block (its first
    // row: the blocks' rows of a result lie in different register groups,
    // of which an output may store some only), at most kWindowTrials tried.
    std::vector<std::pair<int64_t, int64_t>> cand;
    std::set<int64_t> block_rows;
    for (int64_t i : rows)
      for (int64_t j : cols)
        if (std::binary_search(blocks.begin(), blocks.end(), index(i, j)) && block_rows.insert(i / 4).second) {
          const int64_t i0 = (i + 4) % n0, j0 = (j + 4) % n1;
          if (!rows.count(i0) && !cols.count(j0)) cand.push_back({i0, j0});
        }
    if (cand.empty()) {
      whys.push_back(absl::StrCat(dname, ": no element beside its blocks lies outside their rows and columns"));
      continue;
    }
    const uint64_t line_cap = 2 * static_cast<uint64_t>(*std::max_element(out->shape.begin(), out->shape.end()));
    const double x_max = FloatRangeOf(d->elem).max;
    std::string why;  // this diagonal's, from the furthest stage reached
    int stage = 0;
    auto say = [&](int st, std::string w) {
      if (st >= stage) {
        stage = st;
        why = std::move(w);
      }
    };
    int tried = 0;
    bool other = false;
    for (const auto& [i0, j0] : cand) {
      if (tried++ == kWindowTrials || other) break;
      // The columns of row i0 that carry x: j0, then those after it the
      // blocks skip.
      auto columns = [&](int n) {
        std::vector<int64_t> v;
        for (int64_t t = 0; t < n1 && static_cast<int>(v.size()) < n; ++t)
          if (const int64_t j = (j0 + t) % n1; !cols.count(j)) v.push_back(j);
        return v;
      };
      int n = 1;
      double bits_single = 0;  // bits of max |R| in units of their lowest bit, over the single products
      double lo_single = 0, hi_single = 0;
      WindowPick pick;
      bool at_tie = false;
      std::vector<std::pair<uint64_t, double>> line;
      std::vector<int64_t> xcols;
      std::map<uint64_t, double> rcs;  // the addend's multiplier per line element (0: none read)
      std::optional<std::tuple<WindowPick, std::vector<std::pair<uint64_t, double>>, std::vector<int64_t>>> window;
      for (int probe = 0; probe < kWindowProbes; ++probe) {
        const std::vector<int64_t> cs = columns(n);
        if (static_cast<int>(cs.size()) < n) break;
        std::vector<uint64_t> ones;
        for (int64_t j : cs) ones.push_back(index(i0, j));
        absl::StatusOr<WindowProbe> pr = ProbeWindowLine(k, *s, diagonals, dname, ones, addends, carrier, *out,
                                                         line_cap * static_cast<uint64_t>(n), seed, uv, io);
        if (!pr.ok()) return pr.status();
        if (pr->user_carrier) {
          say(1, absl::StrCat("the user's values set ", carrier));
          break;
        }
        if (pr->other) {
          other = true;
          if (other_addend != nullptr) other_addend->insert(absl::StrCat(out_name, "/", dname));
          say(2, absl::StrCat("its probe (", dname, " 0 but one element, ", carrier, " 1", with_addends,
                              ") stored a non-finite value or more than a line"));
          break;
        }
        if (pr->line.empty()) {
          say(1, "the line its element reaches is not stored");
          break;
        }
        // R's bits: the sums' values are multiples of the single products'
        // lowest bit, below n times their largest (else not read exactly).
        std::vector<std::pair<uint64_t, double>> l;
        if (n == 1) {
          double lo = HUGE_VAL, hi = 0;
          for (const auto& [e, rv] : pr->line) {
            lo = std::min(lo, LowestBit(rv));
            hi = std::max(hi, std::fabs(rv));
          }
          bits_single = std::ceil(std::log2(hi / lo + 1));  // the single products' significand width
          lo_single = lo;
          hi_single = hi;
          l = pr->line;
        } else {
          for (const auto& [e, rv] : pr->line)
            if (std::fmod(rv, lo_single) == 0 && std::fabs(rv) <= n * hi_single) l.push_back({e, rv});
        }
        // The addend's multipliers on the line (the output itself: beta).
        auto addend_rcs = [&]() -> absl::Status {
          if (!zero_output) return absl::OkStatus();
          std::vector<uint64_t> missing;
          for (const auto& [e, rv] : l)
            if (!rcs.count(e)) missing.push_back(e);
          if (missing.empty()) return absl::OkStatus();
          absl::StatusOr<WindowProbe> rp = ProbeWindowLine(k, *s, diagonals, dname, {}, addends, carrier, *out,
                                                           line_cap * static_cast<uint64_t>(n), seed, uv, io, missing);
          if (!rp.ok()) return rp.status();
          for (uint64_t e : missing) rcs[e] = 0;
          if (!rp->other)
            for (const auto& [e, rc] : rp->line) rcs[e] = rc;
          return absl::OkStatus();
        };
        if (sign < 0) {
          WindowPick t = SearchWindowPick(l, sign * tie, true, alpha_pass, enters, d->elem, range, half_ulp);
          if (!(t.score <= std::log(1.25)) && zero_output) {
            if (absl::Status st = addend_rcs(); !st.ok()) return st;
            t = SearchAddendPick(l, rcs, sign * tie, true, alpha_pass, enters, d->elem, out->elem, range, half_ulp);
          }
          if (t.score <= std::log(1.25)) {
            pick = t;
            at_tie = true;
            line = l;
            xcols = cs;
            break;
          }
        }
        if (!window) {
          WindowPick w = SearchWindowPick(l, sign * inside, false, alpha_pass, enters, d->elem, range, half_ulp);
          if (!(w.score <= std::log(1.25)) && zero_output) {
            if (absl::Status st = addend_rcs(); !st.ok()) return st;
            w = SearchAddendPick(l, rcs, sign * inside, false, alpha_pass, enters, d->elem, out->elem, range,
                                 half_ulp);
          }
          if (w.score <= std::log(1.25)) window.emplace(w, l, cs);
          if (window && sign > 0) break;
        }
        // A larger n: the factor the largest |x R| lacks (twice, the
        // sums' terms partly cancelling), else (the -max pass, no tie) 4.
        double reach = 0;
        for (const auto& [e, rv] : l) reach = std::max(reach, std::fabs(c_pass * x_max * rv) * 1.25);
        const double lack = reach > 0 ? tie / reach : HUGE_VAL;
        int next = lack > 1 ? n * static_cast<int>(std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(2 * lack)))))
                            : 4 * n;
        if (!(lack < kWindowMaxSum)) next = kWindowMaxSum;
        while (next > n && (next > kWindowMaxSum || !(bits_single + 1 + std::log2(next) <= p))) next /= 2;
        if (!window)
          say(3, absl::StrFormat("no line of %s x * R (x a value of %s's type) times %s%s within a factor 1.25 "
                                 "lies there (%s; the largest |%s%s x R|: %g)",
                                 n == 1 ? "single products" : absl::StrFormat("sums of %d products", n), dname,
                                 carrier, enters > 1 ? absl::StrCat("^", enters) : "",
                                 lack > 1 ? "too small" : "no x and f32 value of it fit exactly", carrier,
                                 enters > 1 ? absl::StrCat("^", enters) : "", reach / 1.25));
        if (next <= n) break;
        n = next;
      }
      if (!at_tie) {
        if (!window) continue;
        std::tie(pick, line, xcols) = *window;
      }
      // The pass with it: the carrier's value, D's row and columns 0 but x,
      // the output's addend elements on the line 0.
      const ExactFormat carrier_before = s->sat.formats[carrier];
      ExactFormat& pf = s->sat.formats[carrier];
      pf.choices = {std::ldexp(std::fabs(static_cast<double>(pick.alpha)), -pf.shift)};
      const uint32_t zero = *ExactBits(d->elem, 0.0);
      const std::set<int64_t> xset(xcols.begin(), xcols.end());
      s->window_values.clear();
      // (A block's element, where rows overlap, stays.)
      for (int64_t j = 0; j < n1; ++j)
        if (!xset.count(j) && !std::binary_search(blocks.begin(), blocks.end(), index(i0, j)))
          s->window_values.emplace_back(dname, index(i0, j), zero);
      for (int64_t j : xcols)
        for (int64_t i = 0; i < n0; ++i)
          if (i != i0 && !std::binary_search(blocks.begin(), blocks.end(), index(i, j)))
            s->window_values.emplace_back(dname, index(i, j), zero);
      for (int64_t j : xcols) s->window_values.emplace_back(dname, index(i0, j), *ExactBits(d->elem, pick.x));
      if (zero_output)
        for (const auto& [e, rv] : line) s->window_values.emplace_back(out_name, e, *ExactBits(out->elem, 0.0));
      if (pick.v != 0) s->window_values.emplace_back(out_name, pick.e, *ExactBits(out->elem, pick.v));
      // Where the line's values lie before the conversion (both orders
      // agreeing), and what each must store.
      int in_window = 0, ties = 0, below = 0;
      std::vector<std::pair<uint64_t, double>> expect;  // element, +-max or +-inf
      for (const auto& [e, rv] : line) {
        const double acc = pick.x * rv;
        if (static_cast<double>(static_cast<float>(acc)) != acc) continue;
        auto [f1, f2] = CarrierTimes(pick.alpha, static_cast<float>(acc), enters);
        if (pick.v != 0 && e == pick.e) {
          const std::optional<float> fa = AddendCarrierTimes(pick.alpha, static_cast<float>(acc), enters, pick.base);
          if (!fa) continue;
          f1 = f2 = *fa;
        }
        const AtMax a1 = ClassAtMax(f1, range, half_ulp);
        if (a1 != ClassAtMax(f2, range, half_ulp) || a1 == AtMax::kElsewhere || (f1 > 0) != (f2 > 0)) continue;
        in_window += a1 == AtMax::kWindow ? 1 : 0;
        ties += a1 == AtMax::kTie ? 1 : 0;
        below += a1 == AtMax::kBelow ? 1 : 0;
        expect.push_back({e, std::copysign(a1 == AtMax::kTie ? HUGE_VAL : range.max, static_cast<double>(f1))});
      }
      // Confirmed on the pass's inputs: every value placed stores +-max
      // (window, below) or +-inf (tie) on the reference.
      KernelData fin = MakeConversionInputs(k, s->sat, seed);
      ApplyWindowValues(k, *s, &fin);
      uv.ApplyTo(k, &fin);
      bool ok = false;
      if (auto it = fin.scalars.find(carrier); it != fin.scalars.end() && it->second == F32Bits(pick.alpha)) {
        PagedInterpArgs fref{fin.buffers, fin.scalars};
        if (absl::Status st = Interpret(k, fref, io); !st.ok())
          return absl::Status(st.code(), absl::StrCat("reference interpreter (placing the window at the max): ",
                                                      st.message()));
        const KernelData got{std::move(fref.buffers), std::move(fref.scalars)};
        ok = std::any_of(expect.begin(), expect.end(), [&](const auto& x) { return x.first == pick.e; });
        for (const auto& [e, v] : expect) ok = ok && ElementAt(got, *out, e) == v;
      }
      if (!ok) {
        s->sat.formats[carrier] = carrier_before;
        s->window_values.clear();
        say(4, "the confirming reference-only run did not store +-max or +-inf where predicted");
        continue;
      }
      s->placed.reset();  // the inputs differ from the block-placing run's
      const int nx = static_cast<int>(xcols.size());
      const std::string elements =
          nx == 1 ? absl::StrFormat("%s[%d, %d] = %g reaches, the only nonzero of its row and column, its products "
                                    "x * R",
                                    dname, i0, j0, pick.x)
                  : absl::StrFormat("%s[%d, %d..] = %g (%d elements of row %d, the only nonzeros of it and of their "
                                    "columns) reaches, its sums of %d products x * R",
                                    dname, i0, j0, pick.x, nx, i0, nx);
      float v1 = CarrierTimes(pick.alpha, static_cast<float>(pick.x * pick.r), enters).first;
      if (pick.v != 0)
        v1 = AddendCarrierTimes(pick.alpha, static_cast<float>(pick.x * pick.r), enters, pick.base).value_or(v1);
      return absl::StrCat(
          pass, ": ", out_name, absl::StrFormat(": %d value%s placed in %s's rounding window at its max (%g, %g), %d "
                                                "at the tie %s%g (to even: %sinf), %d in (%g, %g) below the max",
                                                in_window, in_window == 1 ? "" : "s", tn, range.max, tie, ties,
                                                sign < 0 ? "-" : "", tie, sign < 0 ? "-" : "+", below,
                                                range.max - half_ulp, range.max),
          absl::StrFormat(" (before the conversion, of the %d nonzero values of the line that %s read by a "
                          "reference-only run with %s 0 but there%s; %s = %.9g (the pass's %.9g times %.6g) for %s "
                          "element %d, %.9g: ",
                          static_cast<int>(line.size()), elements, dname, with_addends, carrier,
                          static_cast<double>(pick.alpha), static_cast<double>(alpha_pass),
                          static_cast<double>(pick.alpha) / alpha_pass, out_name, static_cast<long long>(pick.e),
                          static_cast<double>(v1)),
          carrier, " scales the values after every mfma or gemm sum, ",
          enters == 1 ? std::string("one f32 multiply")
                      : absl::StrCat(enters, " f32 multiplies (in either order the same)"),
          " of the same operands on both sides, rounded or not",
          zero_output ? absl::StrCat("; ", out_name, " 0 on the line, its addend adding nothing there") : "",
          pick.v != 0 ? absl::StrFormat(" but at element %d, %s = %g, its addend %g (%g times it) carrying the value "
                                        "to %g, %s%s times x * R the rest: %s",
                                        static_cast<long long>(pick.e), out_name, pick.v, pick.base, pick.rc,
                                        pick.base, carrier, enters > 1 ? absl::StrCat("^", enters) : "",
                                        enters == 1 ? "its product exact, the sum rounded once"
                                                    : "the multiplies in either order, the sum rounded once or "
                                                      "fused with the last multiply, the same f32 value")
                      : "",
          "); the reference stored ", at_tie ? (sign < 0 ? "-inf" : "inf") : (sign < 0 ? "-max" : "max"),
          " there\n");
    }
    if (!why.empty()) whys.push_back(absl::StrCat(dname, ": ", why));
  }
  return absl::StrCat(not_placed,
                      whys.empty() ? absl::StrCat("no operand of ", out_name, " takes a line (no MFMA operand with "
                                                  "blocks)")
                                   : absl::StrJoin(whys, "; "),
                      "\n");
}

}  // namespace

absl::StatusOr<std::vector<PassSpec>> PlanSaturationPasses(const Kernel& k, const SaturationSource& src,
                                                           const UserValues& uv, std::string* text) {
  const uint64_t seed = src.seed;
  const char* from_text = src.from_base ? "the saturation base inputs" : "the conversion pass's";
  const char* stored_by = src.from_base ? "the reference" : "that pass";
  struct Aim {
    const ComputedOutput* out;
    double median;
  };
  std::vector<Aim> aims;
  std::string unaimed;  // outputs no pass aims at, and why
  for (const ComputedOutput& o : *src.outputs) {
    auto it = src.medians.find(o.name);
    const double m = it != src.medians.end() ? it->second : 0;
    if (m > 0)
      aims.push_back({&o, m});
    else
      absl::StrAppend(&unaimed, "saturation and subnormal passes: ", o.name, " (", std::string(ElemTypeName(o.type)),
                      "): ", src.from_base ? "on the saturation base inputs the reference" : "the conversion pass",
                      " stored no finite non-zero value below its max (of the elements it wrote, sampled over "
                      "the pages it wrote) to size a scale from: its saturation and subnormal conversion are "
                      "not checked\n");
  }
  std::vector<PassSpec> added;
  std::set<std::string> other_addend;  // PlaceMaxWindow's, across passes
  const std::set<std::string> conv_stored = ConversionStoredBuffers(k);
  std::vector<ElemType> sat_types;
  for (const ComputedOutput& o : *src.outputs)
    if (std::find(sat_types.begin(), sat_types.end(), o.type) == sat_types.end()) sat_types.push_back(o.type);
  // `keep`: the chosen run's inputs and results go to `*placed` (only
  // when the kernel's outputs are small: a pass reusing them holds them
  // beside another pass's).
  int64_t output_bytes = 0;
  for (const Arg& a : k.args)
    if (a.kind == Arg::Kind::kBuffer && a.access != Access::kReadOnly) output_bytes += a.SizeBytes();
  const bool small = output_bytes <= (int64_t{64} << 20);
  // Reference-only runs with NaN at the blocks of `diagonals` (the
  // reference is the oracle for where they reach), at most kDiagonalTrials,
  // offsets d = first, then the candidates whose blocks the first run
  // loaded (its workgroups: a --workgroups band reads some rows only,
  // fresh-user review 14 F13, where blocks at d = first, first + 1, ... fell
  // outside a band of one of four workgroups on most seeds): the offsets
  // first + 1, ... over the blocks' period (d moves them by d mod each
  // dimension's blocks; at most kDiagonalCandidates), those with the most
  // of their blocks' elements loaded first, in order of d (every one of
  // them without a band: d = first, first + 1, ...; none loaded: those
  // offsets still). The first run that reaches every converted output,
  // else the first reaching most (fresh-user review 12 F8: an output
  // storing rows 0..7 of a 32x32 result). `*reach`: that run's NaN/inf
  // elements per converted output.
  auto place_blocks = [&](ExactPlan* sat, const std::vector<std::string>& diagonals, int64_t first,
                          std::vector<std::pair<std::string, int64_t>>* reach, bool keep,
                          std::shared_ptr<const std::pair<KernelData, KernelData>>* placed,
                          std::vector<std::pair<std::string, int64_t>>* infs) -> absl::Status {
    // The offsets' period: d and d + lcm(nq, nr) place a buffer's blocks
    // alike (nq, nr: its extents / 4).
    int64_t period = 1;
    for (const std::string& name : diagonals)
      if (const Arg* a = k.FindArg(name); a != nullptr && a->shape.size() == 2 && a->shape[0] >= 4 &&
                                          a->shape[1] >= 4) {
        const int64_t nq = a->shape[0] / 4, nr = a->shape[1] / 4;
        period = std::min(kDiagonalCandidates, std::lcm(period, std::lcm(nq, nr)));
      }
    // The blocks' elements of offset d, per buffer.
    auto elements = [&](int64_t d, const std::string& name) {
      const Arg* a = k.FindArg(name);
      ExactFormat f = sat->formats[name];
      f.diagonal = ExactFormat::Diagonal::kNaN;
      f.diagonal_offset = d;
      return a == nullptr ? std::vector<uint64_t>{} : DiagonalElements(*a, f, seed);
    };
    // Every candidate's elements: the first run keeps those it loaded.
    std::map<std::string, std::vector<uint64_t>> loaded;
    for (const std::string& name : diagonals) {
      std::vector<uint64_t>& v = loaded[name];
      for (int64_t d = first; d < first + period; ++d) {
        const std::vector<uint64_t> e = elements(d, name);
        v.insert(v.end(), e.begin(), e.end());
      }
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    std::vector<int64_t> order = {first};  // the offsets to run, in order
    int best_reached = -1;
    int64_t best = first;
    for (size_t j = 0; j < order.size() && j < static_cast<size_t>(kDiagonalTrials); ++j) {
      const int64_t d = order[j];
      ExactPlan trial = *sat;
      for (const std::string& name : diagonals) {
        trial.formats[name].diagonal = ExactFormat::Diagonal::kNaN;
        trial.formats[name].diagonal_offset = d;
      }
      InterpOptions io = src.io;
      if (j == 0) io.accessed = &loaded;
      absl::StatusOr<std::pair<KernelData, KernelData>> run =
          ReferenceOnlyRun(k, trial, seed, &uv, io, "placing the saturation pass's NaN/inf blocks");
      if (!run.ok()) return run.status();
      auto& [in, out] = *run;
      if (j == 0) {
        // The other offsets, by how many of their blocks' elements this
        // run loaded (most first; ties in order of d).
        std::vector<std::pair<int64_t, int64_t>> scored;  // (-loaded, d)
        for (int64_t d2 = first + 1; d2 < first + period; ++d2) {
          int64_t n = 0;
          for (const std::string& name : diagonals) {
            const std::vector<uint64_t>& v = loaded[name];
            for (uint64_t e : elements(d2, name)) n += std::binary_search(v.begin(), v.end(), e) ? 1 : 0;
          }
          if (n > 0) scored.push_back({-n, d2});
        }
        std::stable_sort(scored.begin(), scored.end());
        for (const auto& [n, d2] : scored) order.push_back(d2);
        if (scored.empty())
          for (int64_t d2 = first + 1; d2 < first + kDiagonalTrials; ++d2) order.push_back(d2);
      }
      std::vector<std::pair<std::string, int64_t>> counts = NanStored(k, in, out, sat_types, false, &conv_stored);
      int reached = 0;
      for (const auto& [name, n] : counts) reached += n > 0 ? 1 : 0;
      if (reached > best_reached) {
        best_reached = reached;
        best = d;
        *reach = std::move(counts);
        *infs = NanStored(k, in, out, sat_types, /*inf=*/true, &conv_stored);
        placed->reset();
        if (keep)
          *placed = std::make_shared<const std::pair<KernelData, KernelData>>(std::move(in), std::move(out));
      }
      if (best_reached == static_cast<int>(reach->size())) break;
    }
    for (const std::string& name : diagonals) sat->formats[name].diagonal_offset = best;
    return absl::OkStatus();
  };
  for (bool sub : {false, true}) {
    std::vector<bool> done(aims.size(), false);
    int group = 0;
    for (size_t i = 0; i < aims.size(); ++i) {
      const ElemType to = aims[i].out->type;
      if (done[i]) continue;
      if (sub && to == ElemType::kBF16 && !Bf16SubnormalCarrier(k, *src.from, *aims[i].out, aims[i].median)) {
        done[i] = true;
        absl::StrAppend(&unaimed, SkippedLine(absl::StrCat("subnormal pass for ", aims[i].out->name),
                                              "bf16's subnormals are f32's, where an mfma's or gemm's sums "
                                              "would be subnormal themselves, and no f32 scalar scales the "
                                              "values after every such sum into them with every value exact"));
        continue;
      }
      // The subnormal pass: the median toward the geometric middle of
      // the target's subnormal range (bf16, whose subnormals are f32's,
      // only by f32 scalars applied after every mfma/gemm sum:
      // Bf16SubnormalCarrier; scaling an operand would make the sums
      // subnormal themselves).
      const std::string tn(ElemTypeName(to));
      const FloatRange range = FloatRangeOf(to);
      // The saturation passes measure at max / kMeasureBelowMax (a median
      // below the max is a median of values before the conversion; one at
      // or beyond it is of saturated or infinite codes), then multiply by a
      // further factor that puts kBeyondShare of them at or beyond the max
      // (fresh-user review 14 F8, F11, F12: aimed at the max, the median
      // stopped below it and nothing beyond the max was stored).
      const double aim = sub ? std::sqrt(range.min_subnormal * range.min_normal) : range.max / kMeasureBelowMax;
      // The scale measured, not assumed (fresh-user review 13 F5, F7):
      // reference-only runs (at most kScaleTrials) of the planned inputs
      // give the median |value| stored to the output. A carrier that
      // enters e times (s * s * A * B; mfma %a, %a) scales it by x^e:
      // planned again with the e-th root of the factor; a carrier at the
      // end of its range (an fp8 operand) leaves the rest of the factor
      // to a second one behind the same output (B after A). When the
      // median then misses the aim, the next carrier is tried once (at
      // most kScaleTrials / 2 runs more; fresh-user review 14 F9: sx of a
      // quantiser saturated before the MFMA, so behind O's conversion
      // reached it), and the nearer of the two kept.
      const Arg* out_arg = k.FindArg(aims[i].out->name);
      const double want = aim / aims[i].median;
      int trials = 0;
      // `*beyond` (when given): the percentage of the values stored (NaN
      // left out) at or beyond the max.
      std::vector<double> last_sample;  // the last trial's |values| stored (StoredSample), ascending
      // The share of zeros the conversion pass stored to the output: left
      // out of every trial's sample (DropConstantZeros; fresh-user review 17
      // F3); `zeros_left_out`: some trial left some out.
      const double zero_share =
          src.zero_shares.count(aims[i].out->name) ? src.zero_shares.at(aims[i].out->name) : 0;
      bool zeros_left_out = false;
      // The median |value| the same run stored to each output that may join
      // this one's group (same type, not yet in a group; zeros as above):
      // a member must take the plan as this output does (fresh-user review 17
      // F1, F8: grouped by the conversion pass's medians alone, P = cvt(s *
      // alpha) beside O = cvt(s), or P behind A but not behind the further
      // carrier B, lost its passes).
      auto other_medians = [&](size_t self, const KernelData& in, const KernelData& o) {
        std::map<std::string, double> r;
        for (size_t j = self + 1; j < aims.size(); ++j) {
          const Arg* a = k.FindArg(aims[j].out->name);
          if (done[j] || a == nullptr || aims[j].out->type != aims[self].out->type) continue;
          std::vector<double> v = StoredSample(*a, in, o, /*all=*/true, nullptr);
          const double zs = src.zero_shares.count(a->name) ? src.zero_shares.at(a->name) : 0;
          DropConstantZeros(&v, zs, nullptr);
          if (v.empty()) continue;
          std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
          r[a->name] = v[v.size() / 2];
        }
        return r;
      };
      std::map<std::string, double> last_others;  // other_medians of the last trial
      auto trial = [&](const ExactPlan& p, double* m, double* negative, int64_t* beyond = nullptr) -> absl::Status {
        absl::StatusOr<std::pair<KernelData, KernelData>> run = ReferenceOnlyRun(
            k, p, seed, &uv, src.io, absl::StrCat("measuring the ", sub ? "subnormal" : "saturation", " pass's scale"));
        if (!run.ok()) return run.status();
        const auto& [in, o] = *run;
        last_sample = StoredSample(*out_arg, in, o, /*all=*/true, negative);
        last_others = other_medians(i, in, o);
        zeros_left_out = DropConstantZeros(&last_sample, zero_share, negative) > 0 || zeros_left_out;
        std::sort(last_sample.begin(), last_sample.end());
        *m = last_sample.empty() ? std::nan("") : last_sample[last_sample.size() / 2];
        if (beyond != nullptr) {
          const int64_t at =
              std::count_if(last_sample.begin(), last_sample.end(), [&](double x) { return x >= range.max; });
          *beyond = last_sample.empty() ? 0 : 100 * at / static_cast<int64_t>(last_sample.size());
        }
        ++trials;
        return absl::OkStatus();
      };
      // One carrier's plan and what its reference-only runs measured.
      struct Carried {
        ExactPlan plan;
        std::string carrier;
        double scale = 1;
        std::vector<std::string> also;                      // companions (SaturationPlan)
        std::vector<std::pair<std::string, double>> more;  // further carriers, their scales
        std::map<std::string, std::vector<std::string>> more_also;  // their companions, per further carrier
        std::set<std::string> unchecked;                    // outputs its plan leaves inexact
        int enters = 1;
        double achieved_median = -1;  // the last trial's (NaN: every value NaN)
        std::vector<double> sample;   // that trial's |values| stored, ascending
        std::map<std::string, double> others;  // that trial's other_medians
      };
      // How far (log2) a measured median lies from the aim (below the max
      // in a saturation pass: a median of +inf overshot it, as one of 0 or
      // NaN misses it).
      auto miss = [&](const Carried& c) {
        const double m = c.achieved_median;
        return !std::isfinite(m) || m <= 0 ? HUGE_VAL : std::fabs(std::log2(m / aim));
      };
      std::set<std::string> tried;  // carriers (and companions) whose median missed
      // A median within a factor 2 of the aim that the carrier's scale
      // (`total`, at least a factor 2^0.5 from 1; no further carrier,
      // nothing zeroed) moved by its e-th power, e > c.enters: `c` planned
      // again at the e-th root of the factor, else none (fresh-user review 17
      // F1: for P = cvt(acc * alpha * alpha) alpha x 1.625 moved the median
      // from 36 to 95, near 60, `enters` stayed 1 and the -max pass negated
      // alpha: every value positive, a clamp at -224 passed).
      auto entering_more = [&](const Carried& c, double m, double total) -> std::optional<Carried> {
        if (!c.more.empty() || !(std::fabs(std::log2(total)) >= 0.5)) return std::nullopt;
        for (const auto& [name, f] : c.plan.formats)
          if (f.zero) return std::nullopt;
        const int e = static_cast<int>(std::lround(std::min(std::log(m / aims[i].median) / std::log(total), 64.0)));
        if (e <= c.enters) return std::nullopt;
        Carried r = c;
        r.enters = e;
        r.plan = SaturationPlan(k, *src.from, to, std::pow(want, 1.0 / e), &r.carrier, &r.scale, aims[i].out->name,
                                &r.also, tried, &r.unchecked);
        if (!r.plan.exact) return std::nullopt;
        return r;
      };
      std::optional<Carried> kept;
      std::string not_planned;
      for (int attempt = 0; attempt < 2; ++attempt) {
        Carried c;
        c.plan = SaturationPlan(k, *src.from, to, want, &c.carrier, &c.scale, aims[i].out->name, &c.also, tried,
                                &c.unchecked);
        if (!c.plan.exact) {
          if (attempt == 0) not_planned = c.plan.blocker;
          break;
        }
        const int budget = trials + (attempt == 0 ? kScaleTrials : kScaleTrials / 2);
        std::optional<Carried> before_more;  // the plan before the last further carrier, measured
        // `c` as its last trial measured it; `unmeasured`: c.plan changed
        // since (a re-plan or a further carrier on the budget's last trial):
        // the measured one stands (fresh-user review 17 F6: the plan kept
        // was never run, and its median, sample and `enters` were its
        // predecessor's).
        std::optional<Carried> last_measured;
        bool unmeasured = false;
        while (out_arg != nullptr && trials < budget) {
          double m = 0, negative = 0;
          if (absl::Status st = trial(c.plan, &m, &negative); !st.ok()) return st;
          c.achieved_median = m;
          c.sample = last_sample;
          c.others = last_others;
          last_measured = c;
          unmeasured = false;
          if (std::isnan(m)) break;
          double total = c.scale;
          for (const auto& [name, x] : c.more) total *= x;
          const bool degenerate = !std::isfinite(m) || m == 0 || SaturatedMedian(sub, m, range);
          // A further carrier's power of two overshot (every value inf, or
          // 0): the plan before it, measured, stands.
          if (degenerate && before_more) {
            c = *std::move(before_more);
            break;
          }
          if (!degenerate && std::fabs(std::log2(m / aim)) <= 1) {  // within a factor 2
            if (std::optional<Carried> r = entering_more(c, m, total)) {
              c = *std::move(r);
              unmeasured = true;
              continue;
            }
            break;
          }
          // Overflowed or flushed wholesale past the aim: the carrier
          // enters more than once.
          const bool past = degenerate && (std::isinf(m) || SaturatedMedian(sub, m, range) ? want > 1 : want < 1);
          // A zeroed buffer (SaturationPlan, subnormal pass) removed an
          // addend: the median fell by more than the scale, not because
          // the carrier enters more than once.
          bool zeroed = false;
          for (const auto& [name, f] : c.plan.formats) zeroed = zeroed || f.zero;
          double em = 1;
          if (!degenerate && !zeroed && std::fabs(std::log(total)) > 0.1)
            em = std::log(m / aims[i].median) / std::log(total);
          // total^em: em is how many times the carrier enters.
          const int measured_enters = static_cast<int>(std::lround(std::min(em, 64.0)));
          if (c.more.empty() && (past || measured_enters > c.enters)) {
            Carried r = c;
            r.enters = past ? c.enters * 2 : measured_enters;
            // Aimed a factor 2 short (inside the range): the grid's next
            // step up past an e-th root overflowed every value.
            r.plan = SaturationPlan(k, *src.from, to, std::pow(want > 1 ? want / 2 : want * 2, 1.0 / r.enters),
                                    &r.carrier, &r.scale, aims[i].out->name, &r.also, tried, &r.unchecked);
            if (!r.plan.exact) break;
            c = std::move(r);
            unmeasured = true;
            continue;
          }
          if (degenerate || em < 0.5) break;
          // Short of the aim with the carrier as far as it goes: another
          // carrier (and its companions) for the rest.
          std::set<std::string> used = {c.carrier};
          used.insert(c.also.begin(), c.also.end());
          for (const auto& [name, x] : c.more) used.insert(name);
          for (const auto& [name, with] : c.more_also) used.insert(with.begin(), with.end());
          std::string c2;
          double s2 = 1;
          std::vector<std::string> also2;
          std::set<std::string> unchecked2;
          ExactPlan p2 = SaturationPlan(k, c.plan, to, aim / m, &c2, &s2, aims[i].out->name, &also2, used, &unchecked2);
          if (!p2.exact) break;
          before_more = c;
          c.plan = std::move(p2);
          c.more.push_back({c2, s2});
          if (!also2.empty()) c.more_also[c2] = also2;
          c.unchecked.insert(unchecked2.begin(), unchecked2.end());
          unmeasured = true;
        }
        if (unmeasured && last_measured) c = *std::move(last_measured);
        const bool better = !kept || miss(c) < miss(*kept);
        const bool reached = miss(c) <= 2;  // within kAimFactor
        tried.insert(c.carrier);
        tried.insert(c.also.begin(), c.also.end());
        if (better) kept = std::move(c);
        if (reached || out_arg == nullptr) break;
      }
      if (!kept) {
        absl::StrAppend(&unaimed, sub ? "subnormal" : "saturation", " passes: ", aims[i].out->name, " (", tn,
                        "): ", not_planned, ": its ", sub ? "subnormal conversion" : "saturation",
                        " is not checked\n");
        continue;
      }
      // The kept carrier's plan; the further factor below scales on.
      ExactPlan plan = std::move(kept->plan);
      const std::string carrier = kept->carrier;
      double scale = kept->scale;
      const std::vector<std::string> also = kept->also;
      std::vector<std::pair<std::string, double>> more = kept->more;
      std::map<std::string, std::vector<std::string>> more_also = kept->more_also;
      std::set<std::string> unchecked_set = kept->unchecked;
      const int enters = kept->enters;
      const double achieved_median = kept->achieved_median;
      const std::vector<double> measured_sample = kept->sample;  // the measuring trial's (achieved_median's)
      const std::map<std::string, double> measured_others = kept->others;
      // Beyond the max (saturation passes; fresh-user review 14 F8, F11,
      // F12: a clamp at 32768 or 49152, or an f16 or bf16 conversion that
      // saturated instead of overflowing to inf, passed): the measured
      // median times `further`, the factor that puts kBeyondShare of the
      // measured values at or beyond the max: the carrier and its
      // companions as far as their range and exactness allow (by the e-th
      // root when it enters e times), then, for an f32 scalar carrier and
      // its companions applied after every mfma/gemm sum (OverflowsAlike),
      // the rest, past f32's range if need be (its products beyond f32's
      // max are +-inf on both sides; bf16's max lies just below f32's),
      // then a second carrier (and its companions) behind the output (B
      // after A). At most kConfirmTrials reference-only runs of the final
      // inputs confirm that at least a quarter of the values stored are at
      // or beyond the max; when not, a second carrier (else the first)
      // takes a further factor 2.
      double further = 1;
      int64_t confirmed = -1;  // the confirming run's percentage at or beyond the max (-1: none)
      int confirm_trials = 0;
      std::string retry_note;  // why the confirming runs took no further step (RetryNotTakenNote)
      std::string alone_note;  // a bf16 subnormal pass's carrier set alone (ScalarCarrierSetAlone)
      double alone_correction = 1;  // the factor its values took beside the measured ones
      bool f32_overflow = false;  // the carrier's power of two passes f32's range
      const std::string out_name = aims[i].out->name;
      // Multiplies the carrier set (carrier_only: the carrier and its
      // companions, together) or another argument behind the output (not
      // the carrier or its companions; with its own companions) by about
      // `f`; the factor the stored values take (1: none fits).
      // `step`: a buffer takes at least a factor 2 (the confirming runs'
      // retry).
      auto scale_further = [&](double f, bool carrier_only, bool step = false) -> double {
        std::set<std::string> set = {carrier};
        set.insert(also.begin(), also.end());
        std::set<std::string> exclude;
        if (carrier_only) {
          for (const std::string& name : aims[i].out->behind)
            if (!set.count(name)) exclude.insert(name);
        } else {
          exclude = set;
        }
        // A set of f32 scalars only takes any factor; else a power of two,
        // not beyond `f`, rounded down (the values of a narrow sum may lie
        // within a factor 2: rounded up, every one would pass the max and
        // none would lie just below it).
        bool scalars = true;
        for (const std::string& name : set) {
          const Arg* a = k.FindArg(name);
          scalars = scalars && a != nullptr && a->kind == Arg::Kind::kScalar;
        }
        double want_f = carrier_only ? std::pow(f, 1.0 / enters) : f;
        if (!(carrier_only && scalars))
          want_f = std::ldexp(1.0, std::max(step ? 1 : 0, static_cast<int>(std::floor(std::log2(want_f)))));
        if (!(want_f > 1)) return 1;
        std::string c2;
        double s2 = 1;
        std::vector<std::string> also2;
        std::set<std::string> unchecked2;
        ExactPlan p2 = SaturationPlan(k, plan, to, want_f, &c2, &s2, out_name, &also2, exclude, &unchecked2);
        if (!p2.exact || unchecked2.count(out_name)) return 1;
        std::set<std::string> set2 = {c2};
        set2.insert(also2.begin(), also2.end());
        // The carrier set again, scaled as a whole (SaturationPlan may name
        // another member its carrier).
        if (carrier_only && set2 != set) return 1;
        if (!carrier_only) {
          // A further carrier scaled again keeps its companions (the
          // report names them once, "by the same factor").
          auto it = std::find_if(more.begin(), more.end(), [&](const auto& m) { return m.first == c2; });
          auto with = more_also.find(c2);
          if (it != more.end() && also2 != (with == more_also.end() ? std::vector<std::string>{} : with->second))
            return 1;
          if (it != more.end()) {
            it->second *= s2;
          } else {
            more.push_back({c2, s2});
            if (!also2.empty()) more_also[c2] = also2;
          }
        }
        plan = std::move(p2);
        unchecked_set.insert(unchecked2.begin(), unchecked2.end());
        if (carrier_only) {
          scale *= s2;
          return std::pow(s2, enters);
        }
        return s2;
      };
      // The carrier and its companions (beta of alpha * acc + beta * C): f32
      // scalars that scale the values after every mfma/gemm sum
      // (OverflowsAlike), which may then pass f32's range: each of their
      // products and sums is one IEEE operation of the same operands on both
      // sides, in program order.
      auto overflows_alike = [&]() {
        std::vector<std::string> names = {carrier};
        names.insert(names.end(), also.begin(), also.end());
        for (const std::string& name : names) {
          const Arg* a = k.FindArg(name);
          if (a == nullptr || a->kind != Arg::Kind::kScalar || a->elem != ElemType::kF32 ||
              !OverflowsAlike(k, plan, name))
            return false;
        }
        return true;
      };
      // `x`, or less, so that the carrier and its companions stay finite.
      auto f32_factor = [&](const ExactPlan& p, double x) {
        double r = F32OverflowFactor(p.formats.at(carrier), x);
        for (const std::string& name : also) r = std::min(r, F32OverflowFactor(p.formats.at(name), x));
        return r;
      };
      auto scale_scalars = [&](ExactPlan* p, double x) {
        for (double& c : p->formats[carrier].choices) c *= x;
        for (const std::string& name : also)
          for (double& c : p->formats[name].choices) c *= x;
      };
      if (!sub && out_arg != nullptr && std::isfinite(achieved_median) && achieved_median > 0) {
        const double sqrt2 = std::sqrt(2.0);
        // The further factor that puts kBeyondShare of the measured values
        // at or beyond the max (the median when the sample is empty).
        const double q_beyond = Quantile(measured_sample, 1 - kBeyondShare, achieved_median);
        double rest = range.max / q_beyond;
        if (rest > sqrt2) {
          const double f = scale_further(rest, /*carrier_only=*/true);
          further *= f;
          rest /= f;
        }
        if (rest > sqrt2 && overflows_alike()) {
          const double x = f32_factor(plan, std::pow(rest, 1.0 / enters));
          if (x > 1) {
            scale_scalars(&plan, x);
            scale *= x;
            further *= std::pow(x, enters);
            rest /= std::pow(x, enters);
            f32_overflow = Quantile(measured_sample, 1, achieved_median) * further >= kF32Overflow;
          }
        }
        if (rest > sqrt2) {
          const double f = scale_further(rest, /*carrier_only=*/false);
          further *= f;
          rest /= f;
        }
        // Confirmed by reference-only runs: at least a quarter at or beyond
        // the max, else a second carrier for a further factor 4.
        // The carrier set's smallest step for the retry, as the values take
        // it (fresh-user review 17 F7): f32 scalars any factor (2 on the
        // values), else a power of two, 2^enters on them (A of mfma %a, %a:
        // its factor 2 moved them by 4, to 100% at the max, so that no value
        // was stored in the type's top binade); such a step is taken only
        // when no value reached the max, else the line says why not.
        auto carrier_step_on_values = [&]() {
          std::vector<std::string> set = {carrier};
          set.insert(set.end(), also.begin(), also.end());
          bool scalars = true;
          for (const std::string& name : set) {
            const Arg* a = k.FindArg(name);
            scalars = scalars && a != nullptr && a->kind == Arg::Kind::kScalar;
          }
          return scalars ? 2.0 : std::ldexp(1.0, enters);
        };
        while (confirm_trials < kConfirmTrials) {
          double m = 0, negative = 0;
          if (absl::Status st = trial(plan, &m, &negative, &confirmed); !st.ok()) return st;
          --trials;  // counted apart
          ++confirm_trials;
          if (confirmed >= 25 || confirm_trials == kConfirmTrials) break;
          double f = scale_further(2, /*carrier_only=*/false, /*step=*/true);
          if (f == 1 && (carrier_step_on_values() <= 2 || confirmed == 0)) {
            f = scale_further(2, /*carrier_only=*/true, /*step=*/true);
          } else if (f == 1) {
            retry_note = RetryNotTakenNote(carrier, enters, out_name, carrier_step_on_values());
          }
          if (f == 1) break;
          further *= f;
        }
      }
      // bf16 (fresh-user review 16 F5): every member of the final carrier
      // sets an f32 scalar applied after every mfma/gemm sum, else no pass.
      if (sub && to == ElemType::kBF16) {
        std::vector<std::string> set = {carrier};
        set.insert(set.end(), also.begin(), also.end());
        for (const auto& [name, x] : more) set.push_back(name);
        for (const auto& [name, with] : more_also) set.insert(set.end(), with.begin(), with.end());
        bool after = true;
        for (const std::string& name : set) after = after && ScalesAfterSums(k, plan, name);
        std::vector<std::string> scalars = {carrier};
        scalars.insert(scalars.end(), also.begin(), also.end());
        double f = 1;
        if (!after)
          if (std::optional<ExactPlan> q =
                  ScalarCarrierSetAlone(k, plan, *src.from, scalars, enters, more, more_also, &f)) {
            std::vector<std::string> further;
            for (const auto& [name, x] : more) further.push_back(absl::StrFormat("%s (not times %g)", name, x));
            alone_note = absl::StrCat(
                "; then ", absl::StrJoin(further, " and "), " as in ", from_text, src.from_base ? "" : " inputs",
                " and ", absl::StrJoin(scalars, " and "), absl::StrFormat(" times %g", f), " (",
                enters > 1 ? absl::StrCat(carrier, " enters ", aims[i].out->name, "'s values ", enters, " times; ")
                           : std::string(),
                "bf16's subnormals are f32's, reached by f32 scalars applied after every mfma or gemm sum only: "
                "fresh-user review 18 F6)");
            plan = *std::move(q);
            scale *= f;
            double further_product = 1;
            for (const auto& [name, x] : more) further_product *= x;
            alone_correction = std::pow(f, enters) / further_product;
            more.clear();
            more_also.clear();
            after = true;
          }
        if (!after) {
          done[i] = true;
          absl::StrAppend(&unaimed, SkippedLine(absl::StrCat("subnormal pass for ", aims[i].out->name),
                                                absl::StrCat("bf16's subnormals are f32's, and the carrier set (",
                                                             absl::StrJoin(set, ", "),
                                                             ") is not all f32 scalars applied after every mfma "
                                                             "or gemm sum (the sums would be subnormal themselves)")));
          continue;
        }
      }
      // The subnormal pass: ties of the target's subnormal grid among the
      // values before the conversion, counted, and sought by a scalar
      // carrier set at a power of two (fresh-user review 16 F7).
      SubnormalTies sub_ties;
      int tie_runs = 0;
      const double scale_before_ties = scale;
      EnteringRescale entering;  // AimAtSubnormalTiesEntering's change
      BalancedTies balanced;     // AimAtBothTieKinds'
      if (sub && out_arg != nullptr) {
        std::vector<std::string> set = {carrier};
        set.insert(set.end(), also.begin(), also.end());
        if (!more.empty() || enters != 1) set.clear();  // counted as planned, not rescaled
        // A scalar carrier entering more than once (fresh-user review 18 F4).
        if (enters > 1 && also.empty()) {
          if (absl::Status st = AimAtSubnormalTiesEntering(k, &plan, &scale, carrier, enters, &more, more_also,
                                                           achieved_median * alone_correction, seed, uv, src.io,
                                                           *out_arg, aim, kAimFactor, &tie_runs, &sub_ties,
                                                           &entering);
              !st.ok())
            return st;
        } else if (absl::Status st = AimAtSubnormalTies(k, &plan, &scale, set, seed, uv, src.io, *out_arg, aim,
                                                        kAimFactor, &tie_runs, &sub_ties);
                   !st.ok()) {
          return st;
        }
        // One kind of tie or none: balanced signs (fresh-user review 20 F9).
        if (absl::Status st = AimAtBothTieKinds(k, &plan, &scale, set, carrier, enters, enters > 1 && also.empty(),
                                                &more, more_also, seed, uv, src.io, *out_arg, aim, kAimFactor,
                                                &tie_runs, &sub_ties, &entering, &balanced);
            !st.ok())
          return st;
      }
      // Buffers the plan zeroed (an addend removed; subnormal pass only).
      std::vector<std::string> zeroed;
      for (const Arg& a : k.args)
        if (auto f = plan.formats.find(a.name); f != plan.formats.end() && f->second.zero &&
                                                 !(src.from->formats.count(a.name) && src.from->formats.at(a.name).zero))
          zeroed.push_back(a.name);
      // Outputs this plan may leave inexact: not compared in its passes,
      // and said so (never an output it aims at).
      std::vector<std::string> unchecked;
      for (const std::string& u : unchecked_set)
        if (u != aims[i].out->name) unchecked.push_back(u);
      // The -max pass negates the carrier (and what scales with it);
      // when it enters an even number of times that negates nothing:
      // another argument behind the output, negated alone, whose
      // reference-only run stores mostly negative values.
      std::vector<std::string> negated = {carrier};
      negated.insert(negated.end(), also.begin(), also.end());
      std::string negation_note;
      // The runs that look for what to negate (at most 2), counted apart
      // from the measuring runs (fresh-user review 17 F4: the line's "N
      // reference-only runs with the median aimed at max / 4" counted them).
      int negation_trials = 0;
      if (!sub && enters % 2 == 0) {
        negated.clear();
        for (const std::string& name : aims[i].out->behind) {
          const Arg* a = k.FindArg(name);
          if (a == nullptr || a->elem == ElemType::kI32 || name == carrier || negation_trials >= 2) continue;
          ExactPlan p = plan;
          p.formats[name].negate = true;
          double m = 0, negative = 0;
          if (absl::Status st = trial(p, &m, &negative); !st.ok()) return st;
          --trials;
          ++negation_trials;
          if (negative > 0.5) {
            negated = {name};
            break;
          }
        }
        negation_note = negated.empty()
                            ? absl::StrCat(", ", carrier, " enters ", aims[i].out->name, "'s values ", enters,
                                           " times and no argument negated alone negates them")
                            : absl::StrCat(", ", negated[0], " negated (", carrier, " enters ", aims[i].out->name,
                                           "'s values ", enters, " times: negating it negates nothing)");
      }
      // Outputs left out (fresh-user review 14 F5): said where the inputs are.
      const std::string unchecked_note =
          unchecked.empty()
              ? std::string()
              : absl::StrCat("; except ", absl::StrJoin(unchecked, ", "),
                             ", whose values before a conversion may round on these inputs (the scale is too "
                             "fine for an addend the carrier does not scale): not compared in this pass");
      std::string measured =
          sub ? absl::StrFormat("; %d reference-only run%s of these inputs stored a median |value| of %g", trials,
                                trials == 1 ? "" : "s", achieved_median)
              : absl::StrFormat("; %d reference-only run%s with the median aimed at max / %g (below the max, where "
                                "a median of the values before the conversion can be measured) stored a median "
                                "|value| of %g; times the further factor %g (aimed to put %g%% of those values at "
                                "or beyond the max)",
                                trials, trials == 1 ? "" : "s", kMeasureBelowMax, achieved_median, further,
                                100 * kBeyondShare);
      if (zeros_left_out)
        absl::StrAppend(&measured, " (the zeros ", stored_by, " also stored left out: constants no carrier scales)");
      if (confirmed >= 0)
        absl::StrAppend(&measured, absl::StrFormat(" (%d further reference-only run%s of these inputs stored %d%% of "
                                                   "the values at or beyond the max%s%s)",
                                                   confirm_trials, confirm_trials == 1 ? "" : "s", confirmed,
                                                   confirmed < 25 ? ", fewer than a quarter" : "", retry_note));
      if (negation_trials > 0)
        absl::StrAppend(&measured, absl::StrFormat(" (%d further reference-only run%s to find what to negate)",
                                                   negation_trials, negation_trials == 1 ? "" : "s"));
      if (f32_overflow)
        absl::StrAppend(&measured, ", ", carrier, " beyond what keeps its products within f32's range: those beyond "
                        "f32's max are +-inf on both sides (", carrier, " scales the values after every mfma or "
                        "gemm sum)");
      if (enters > 1)
        absl::StrAppend(&measured, " (", carrier, " enters ", aims[i].out->name, "'s values ", enters,
                        " times: scaled by the ",
                        enters == 2   ? std::string("square")
                        : enters == 3 ? std::string("cube")
                                      : absl::StrCat(enters, "th"),
                        " root of the factor)");
      absl::StrAppend(&measured, alone_note);
      // NaN/inf blocks in one operand of every MFMA chain that reaches a
      // narrowing conversion (fresh-user review 12 F4); not in the
      // subnormal pass.
      const std::vector<std::string> diagonals = sub ? std::vector<std::string>{} : ChooseDiagonals(k, &plan);
      // Whether output j takes the plan as this one does: it is behind
      // every argument the plan scales (the carrier, its companions, each
      // further carrier and theirs), and the measuring run stored to it a
      // median within a factor 2 of this output's (or the same: both at the
      // max, inf or 0); fresh-user review 17 F1 (P = cvt(s * alpha) beside
      // O = cvt(s): P at alpha^2, all at the max and all 0) and F8 (P behind
      // A, not behind the further carrier B: 2560 of 57344) lost their
      // passes to O's group. Not measured: `behind` alone.
      auto takes_the_plan = [&](size_t j) {
        const std::set<std::string>& behind = aims[j].out->behind;
        std::vector<std::string> all = {carrier};
        all.insert(all.end(), also.begin(), also.end());
        for (const auto& [name, x] : more) all.push_back(name);
        for (const auto& [name, with] : more_also) all.insert(all.end(), with.begin(), with.end());
        for (const std::string& name : all)
          if (!behind.count(name)) return false;
        if (!(achieved_median >= 0)) return true;
        auto it = measured_others.find(aims[j].out->name);
        if (it == measured_others.end()) return false;
        const double mj = it->second, mi = achieved_median;
        return mj == mi || (std::isfinite(mj) && std::isfinite(mi) && mj > 0 && mi > 0 &&
                            std::fabs(std::log2(mj / mi)) <= 1);
      };
      // The outputs of the same type, similar median (within a factor
      // 2), behind the same carrier and taking the plan alike: one pass
      // serves them.
      std::vector<size_t> members = {i};
      for (size_t j = i + 1; j < aims.size(); ++j)
        if (!done[j] && aims[j].out->type == to && aims[j].out->behind.count(carrier) &&
            std::find(unchecked.begin(), unchecked.end(), aims[j].out->name) == unchecked.end() &&
            std::fabs(std::log2(aims[j].median / aims[i].median)) <= 1 && takes_the_plan(j))
          members.push_back(j);
      std::vector<std::string> names, others;
      for (size_t j : members) {
        done[j] = true;
        names.push_back(aims[j].out->name);
        if (j != i) others.push_back(absl::StrFormat("%s: %g", aims[j].out->name, aims[j].median));
      }
      // The first group's passes keep their names; the others name
      // their outputs: "saturation (+max, P)", --dump "saturation-P.".
      const std::string who = absl::StrJoin(names, ", "), tag_who = absl::StrJoin(names, "-");
      std::vector<std::string> scaled = {carrier};
      scaled.insert(scaled.end(), also.begin(), also.end());
      // "alpha and beta times 2 (...", "A times 256 and B times 16 (...".
      auto what = [&](double signed_scale, bool negate) {
        std::string more_text;
        for (const auto& [c, x] : more) {
          absl::StrAppend(&more_text, " and ", c, absl::StrFormat(" times %g", x));
          if (auto with = more_also.find(c); with != more_also.end())
            absl::StrAppend(&more_text, " (with ", absl::StrJoin(with->second, " and "), " by the same factor)");
        }
        if (!zeroed.empty())
          absl::StrAppend(&more_text, ", ", absl::StrJoin(zeroed, " and "),
                          " all 0 (its addend stays above the subnormals at any scale its values allow: removed, "
                          "the rest carries the value)");
        const bool carrier_negated =
            negate && std::find(negated.begin(), negated.end(), carrier) != negated.end();
        return absl::StrCat(
            absl::StrJoin(scaled, " and "),
            absl::StrFormat(" times %g", carrier_negated || !negate ? signed_scale : std::fabs(signed_scale)),
            more_text, negate ? negation_note : "",
            absl::StrFormat(" (the median |value| %s stored to %s (%s), %g%s%s, times %g is %g", stored_by, who, tn,
                            aims[i].median, AtMaxNote(k, aims[i].out->name, aims[i].median),
                            others.empty() ? "" : absl::StrCat(" (", absl::StrJoin(others, ", "), ")"),
                            AppliedFactor(scale, enters, more), aims[i].median * AppliedFactor(scale, enters, more)),
            "; ");
      };
      if (!sub) {
        // Two passes: toward +max with +inf on the diagonal, then the
        // scaled arguments negated, toward -max, with NaN on the next
        // blocks of the diagonal (fresh-user review 10 F1: values
        // negative with probability 1/8 never met a dropped lower clamp).
        // Whether +inf reaches the conversions (fresh-user review 14 F4:
        // with no operand type that has inf the blocks are NaN, and an
        // f8e5m2 conversion without its inf fix-up passed): the +max
        // pass's +inf blocks, else f32 overflowing in both passes, else
        // the -max pass's carrier, an f32 scalar applied after every
        // mfma/gemm sum, times a further power of two that puts the median
        // of its products at f32's overflow (about half of them +-inf, the
        // rest beyond the max).
        bool inf_blocks = false;
        for (const std::string& name : diagonals)
          if (const Arg* a = k.FindArg(name); a != nullptr && ExactBits(a->elem, HUGE_VAL).has_value())
            inf_blocks = true;
        // f16 and bf16 convert a value beyond their max to inf, as they do
        // an inf: the -max pass keeps its finite values there (an f32
        // overflow would make them all inf).
        const bool beyond_is_inf = to == ElemType::kF16 || to == ElemType::kBF16;
        const bool scalar_overflows = achieved_median > 0 && std::isfinite(achieved_median) && overflows_alike();
        for (int sign : {1, -1}) {
          PassSpec s{InputMode::kSaturation};
          std::string window_note;     // the window's move of the carrier, if any
          double overflow_factor = 1;  // the -max pass's further factor (f32 overflow)
          bool overflows = f32_overflow;
          s.suffix = group == 0 ? (sign > 0 ? " (+max)" : " (-max)")
                                : absl::StrCat(sign > 0 ? " (+max, " : " (-max, ", who, ")");
          if (group > 0 || sign < 0)
            s.dump_tag = absl::StrCat("saturation", sign < 0 ? "-neg" : "", group > 0 ? "-" : "",
                                      group > 0 ? tag_who : "", ".");
          s.sat = plan;
          s.aimed = names;
          for (const std::string& name : names)
            if (src.zero_shares.count(name)) s.zero_shares[name] = src.zero_shares.at(name);
          s.from_base = src.from_base;
          s.unchecked = unchecked;
          s.sign = sign;
          if (sign < 0)
            for (const std::string& c : negated) s.sat.formats[c].negate = true;
          if (sign < 0 && !inf_blocks && !f32_overflow && scalar_overflows && !beyond_is_inf) {
            // kOverflowShare of the measured values (times the further
            // factor) at or beyond f32's overflow, the rest finite.
            overflow_factor = f32_factor(
                s.sat,
                std::pow(kF32Overflow / (Quantile(measured_sample, 1 - kOverflowShare, achieved_median) * further),
                         1.0 / enters));
            scale_scalars(&s.sat, overflow_factor);
            overflows = overflow_factor > 1;
          }
          // The -max pass starts one block further: with the +max
          // pass's blocks, both parities of block rows.
          std::vector<std::pair<std::string, int64_t>> reach, infs;
          std::shared_ptr<const std::pair<KernelData, KernelData>> placed;
          if (sign < 0)
            for (const std::string& name : diagonals)
              s.sat.formats[name].diagonal_first = s.sat.formats[name].diagonal_blocks;
          bool any_inf = false, any_nan = false;
          for (const std::string& name : diagonals) {
            const Arg* a = k.FindArg(name);
            (sign > 0 && a != nullptr && ExactBits(a->elem, HUGE_VAL).has_value() ? any_inf : any_nan) = true;
          }
          // NaN blocks only: the placing run's inputs are this pass's.
          if (!diagonals.empty())
            if (absl::Status st =
                    place_blocks(&s.sat, diagonals, sign > 0 ? 0 : 1, &reach, small && !any_inf, &placed, &infs);
                !st.ok())
              return st;
          s.placed = std::move(placed);
          std::vector<std::string> specials;
          for (const std::string& name : diagonals) {
            ExactFormat& f = s.sat.formats[name];
            const Arg* a = k.FindArg(name);
            const bool inf = sign > 0 && a != nullptr && ExactBits(a->elem, HUGE_VAL).has_value();
            f.diagonal = inf ? ExactFormat::Diagonal::kInf : ExactFormat::Diagonal::kNaN;
            const std::string d = f.diagonal_offset != 0 ? absl::StrCat(f.diagonal_offset, " + ") : "";
            specials.push_back(absl::StrCat(
                inf ? "+inf" : "NaN", " at ", 4 * f.diagonal_blocks, " elements of ", name, " ([4 (q + ", d,
                "2 i) + t, 4 (r + ", d, "2 i) + t], t = 0..3, i = ", f.diagonal_first,
                f.diagonal_blocks > 1 ? absl::StrCat("..", f.diagonal_first + f.diagonal_blocks - 1) : "",
                inf ? ": +-inf, or NaN, in the sums they enter)" : ")"));
          }
          const std::string special =
              specials.empty() ? "" : absl::StrCat(", and ", absl::StrJoin(specials, ", "));
          // Which converted outputs the blocks reached (review 12 F8:
          // the report claimed NaN where none reached).
          if (!diagonals.empty()) {
            const std::string what_nf = any_inf && any_nan ? "+inf or NaN" : any_inf ? "+inf" : "NaN";
            std::vector<std::string> parts;
            for (const auto& [name, n] : reach)
              parts.push_back(n > 0 ? absl::StrCat(what_nf, " reached ", name, " at ", n,
                                                   n == 1 ? " element" : " elements")
                                    : absl::StrCat("no ", what_nf, " reached ", name, ": its ", what_nf,
                                                   " path is not checked by this pass"));
            if (any_inf)
              for (const auto& [name, n] : reach) s.inf_reach[name] = n;
            if (!parts.empty())
              s.reach_line = absl::StrCat("saturation", s.suffix, ": ", absl::StrJoin(parts, "; "),
                                          " (reference-only runs with NaN at the blocks chose the offset)\n");
          }
          // Where inf reached the conversions when no +inf block does
          // (fresh-user review 14 F4), or that none did.
          if (!inf_blocks && (overflows || sign < 0)) {
            std::vector<std::string> parts;
            for (const std::string& name : names) {
              const Arg* a = k.FindArg(name);
              if (a == nullptr) continue;
              const std::string t(ElemTypeName(a->elem));
              if (!overflows) {
                parts.push_back(
                    beyond_is_inf && scalar_overflows
                        ? absl::StrCat("no inf reached ", name, "'s conversion (no operand type has inf; ",
                                       carrier, " is not scaled past f32's range: ", t,
                                       " converts the values beyond its max to inf, as it does an inf)")
                        : absl::StrCat("no inf reached ", name, "'s conversion: its inf path (inf to ",
                                       ExactBits(a->elem, HUGE_VAL).has_value() ? "inf" : "max",
                                       ") is not checked (no operand type has inf and no f32 scalar scales the "
                                       "result after its mfma or gemm sums)"));
                continue;
              }
              auto it = std::find_if(infs.begin(), infs.end(), [&](const auto& c) { return c.first == name; });
              if (!ExactBits(a->elem, HUGE_VAL).has_value())
                parts.push_back(absl::StrCat(name, " (", t, ": no inf) stores an inf as ", sign > 0 ? "" : "-",
                                             "max, as it does a value beyond it: not counted"));
              else if (diagonals.empty() || it == infs.end())
                parts.push_back(absl::StrCat("+-inf stored to ", name, ": not counted"));
              else
                parts.push_back(it->second > 0
                                    ? absl::StrCat("+-inf stored to ", name, " at ", it->second,
                                                   it->second == 1 ? " element" : " elements")
                                    : absl::StrCat("no +-inf stored to ", name, ": its inf path is not checked by "
                                                   "this pass"));
            }
            if (!parts.empty())
              absl::StrAppend(
                  &s.reach_line, "saturation", s.suffix, ": ",
                  overflows ? absl::StrCat(carrier,
                                           overflow_factor > 1
                                               ? absl::StrFormat(" times a further %g", overflow_factor)
                                               : std::string(),
                                           " overflows f32 before the conversions (", carrier, " times values "
                                           "beyond f32's max: +-inf on both sides): ")
                            : std::string(),
                  absl::StrJoin(parts, "; "), "\n");
          }
          // The window at the max (fresh-user review 16 F3): f16 and bf16.
          if (beyond_is_inf && !diagonals.empty() && overflows_alike()) {
            const std::vector<double> before = s.sat.formats[carrier].choices;
            absl::StatusOr<std::string> w =
                PlaceMaxWindow(k, &s, diagonals, carrier, aims[i].out->name, seed, uv, src.io, &other_addend, enters,
                               &aims[i].out->behind);
            if (!w.ok()) return w.status();
            absl::StrAppend(&s.reach_line, *w);
            // The window moved the carrier (fresh-user review 20 F4: by up
            // to 1.12 on a one-workgroup gemm, while this line described the
            // values measured before): said, with the factor the values take.
            const std::vector<double>& after = s.sat.formats[carrier].choices;
            if (before.size() == 1 && after.size() == 1 && before[0] != 0 && after[0] != before[0])
              window_note = absl::StrFormat("; then %s times %.6g by the window at the max (its line below), the "
                                              "values times %.6g%s",
                                              carrier, after[0] / before[0], std::pow(after[0] / before[0], enters),
                                              confirmed >= 0 ? " after the runs above measured them" : "");
          }
          s.sat_line = absl::StrCat(
              "inputs: saturation", group == 0 ? "" : s.suffix, " (seed ", seed,
              "): ", from_text, " with ", what(sign * scale, sign < 0),
              absl::StrFormat("%s's max is %g)", tn, range.max), measured, window_note, special,
              ", exact in f32 (rounded, saturated or overflowed to inf the same way on both sides): the stored "
              "codes must equal the reference's bit for bit (any NaN for a NaN)", unchecked_note, "\n");
          added.push_back(std::move(s));
        }
      } else {
        PassSpec s{InputMode::kSubnormal};
        if (group > 0) {
          s.suffix = absl::StrCat(" (", who, ")");
          s.dump_tag = absl::StrCat("subnormal-", tag_who, ".");
        }
        s.sat = plan;
        s.aimed = names;
        for (const std::string& name : names)
          if (src.zero_shares.count(name)) s.zero_shares[name] = src.zero_shares.at(name);
        s.from_base = src.from_base;
        s.unchecked = unchecked;
        s.sat_line = absl::StrCat(
            "inputs: subnormal", s.suffix, " (seed ", seed, "): ", from_text, " with ", what(scale, false),
            absl::StrFormat("%s's subnormals lie in [%g, %g))", tn, range.min_subnormal, range.min_normal),
            measured, BalancedNote(balanced),
            EnteringNote(entering, carrier, enters, aims[i].out->name, sub_ties.median),
            TiesNote(sub_ties, aims[i].out->name, to, tie_runs,
                     EnteringNote(entering, carrier, enters, aims[i].out->name, 0).empty() ? scale / scale_before_ties
                                                                                          : 1),
            ", exact in f32: the stored codes must equal the reference's bit for bit (any NaN for a NaN)",
            unchecked_note, "\n");
        added.push_back(std::move(s));
      }
      ++group;
    }
  }
  *text += unaimed;
  return added;
}

// The conversion passes' drawn values, counted (fresh-user review 18 F7,
// F8; declared in saturation_passes.h).
absl::Status CountConversionTies(const Kernel& k, ExactPlan* plan, uint64_t seed, const UserValues& uv,
                                 const InterpOptions& io) {
  // The target types this pass may round, program order.
  std::vector<ElemType> types;
  for (const ConversionNote& n : plan->conversions)
    if (n.rounds && std::find(types.begin(), types.end(), n.to) == types.end()) types.push_back(n.to);
  if (types.empty()) return absl::OkStatus();
  // Per output of such a type: its twin holding the values before its
  // conversion (WithValuesBeforeConversion), one kernel for all of them.
  struct Counted {
    std::string out, twin;
    ElemType to;
  };
  std::vector<Counted> outs;
  Kernel t = k;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.access == Access::kReadOnly ||
        std::find(types.begin(), types.end(), a.elem) == types.end())
      continue;
    std::string twin;
    std::optional<Kernel> next = WithValuesBeforeConversion(t, a, &twin);
    if (!next) continue;
    t = std::move(*next);
    outs.push_back(Counted{a.name, twin, a.elem});
  }
  struct Tally {
    int64_t values = 0, round = 0, ties = 0;
    bool sampled = false;
    std::vector<std::string> outputs;
  };
  std::map<ElemType, Tally> tally;
  if (!outs.empty()) {
    KernelData in = MakeConversionInputs(k, *plan, seed);
    uv.ApplyTo(k, &in);
    for (const Counted& c : outs)
      in.buffers[c.twin] = PagedBytes(static_cast<uint64_t>(t.FindArg(c.twin)->SizeBytes()));
    PagedInterpArgs ref{in.buffers, in.scalars};
    if (absl::Status st = Interpret(t, ref, io); !st.ok())
      return absl::Status(st.code(), absl::StrCat("reference interpreter (counting the conversion pass's ties): ",
                                                  st.message()));
    const KernelData res{std::move(ref.buffers), std::move(ref.scalars)};
    constexpr size_t kPages = 64;
    for (const Counted& c : outs) {
      Tally& y = tally[c.to];
      y.outputs.push_back(c.out);
      const FloatRange range = FloatRangeOf(c.to);
      // p from the range: the smallest normal is 2^(p - 1) subnormal steps.
      const int p = static_cast<int>(std::lround(std::log2(range.min_normal / range.min_subnormal))) + 1;
      if (auto it = res.buffers.find(c.twin); it != res.buffers.end())
        y.sampled = y.sampled || it->second.MaterialisedPages().size() > kPages;
      ForEachStoredValue(*t.FindArg(c.twin), in, res, kPages, [&](double x) {
        const double m = std::fabs(x);
        if (!(m > 0) || !std::isfinite(m)) return;
        ++y.values;
        if (m > range.max) return;  // saturates: the saturation passes' values
        // The step of the target's grid at m: the subnormal step below the
        // smallest normal, else 2^(e - p + 1) for m in [2^e, 2^(e + 1)).
        int e = 0;
        std::frexp(m, &e);
        const double step = m < range.min_normal ? range.min_subnormal : std::ldexp(1.0, e - 1 - p + 1);
        const double q = m / (step / 2);  // exact: a power-of-two quotient
        if (q == std::floor(q) && std::fmod(q, 2.0) == 0.0) return;  // on the grid
        ++y.round;
        if (q == std::floor(q)) ++y.ties;  // an odd multiple of half a step
      });
    }
  }
  for (ConversionNote& n : plan->conversions) {
    if (!n.rounds) continue;
    auto it = tally.find(n.to);
    if (it == tally.end()) {
      n.drawn = -1;
      n.not_counted = absl::StrCat("no ", std::string(ElemTypeName(n.to)),
                                   " output stores a cvt's result through slice and concat only");
      continue;
    }
    n.drawn = it->second.values;
    n.drawn_round = it->second.round;
    n.drawn_ties = it->second.ties;
    n.drawn_sampled = it->second.sampled;
    n.counted_outputs = absl::StrJoin(it->second.outputs, ", ");
  }
  return absl::OkStatus();
}

}  // namespace kir
