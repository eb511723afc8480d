#include "hw/check/inputs.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <map>
#include <set>
#include <type_traits>
#include <utility>

#include "compiler/ir/float_bits.h"

namespace kir {
namespace {

// splitmix64: a fixed, portable sequence.
uint64_t Next(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The state after `calls` calls of Next from `s0`: Next of it gives the
// stream's value number `calls` (0-based), as `calls` earlier calls would.
uint64_t StateAt(uint64_t s0, uint64_t calls) { return s0 + calls * 0x9e3779b97f4a7c15ull; }

// Uniform in [0, 1) with 24 random bits.
float Unit(uint64_t& s) { return static_cast<float>(Next(s) >> 40) * (1.0f / 16777216.0f); }

uint64_t Hash(const std::string& name, uint64_t seed) {
  uint64_t h = seed ^ 0x243f6a8885a308d3ull;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

// Uniform integer in [lo, hi].
int64_t Uniform(uint64_t& s, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(Next(s) % static_cast<uint64_t>(hi - lo + 1));
}

// The bits of `v` in float type t; `v` must be exactly representable.
uint32_t FloatBits(ElemType t, double v) {
  std::optional<uint32_t> b = ExactBits(t, v);
  return b ? *b : 0;
}

// Sign, exponent and significand widths of a float type.
struct Fields {
  int exp_bits, man_bits;
};
Fields FieldsOf(ElemType t) {
  switch (t) {
    case ElemType::kF16: return {5, 10};
    case ElemType::kBF16: return {8, 7};
    default: return {8, 23};
  }
}

// One adversarial fp8 element of type t (its code): mostly finite codes of
// every binade, the extremes (+-max, the smallest subnormal), signed zeros,
// and as for the other float types about 1% NaN (the format's NaN codes)
// and 1% infinities (f8e5m2 only; the others have none).
uint32_t AdversarialFp8(ElemType t, uint64_t& s) {
  const Fp8Format& f = *Fp8FormatOf(t);
  const uint32_t sign = static_cast<uint32_t>(Next(s) & 1) << 7;
  const int c = static_cast<int>(Next(s) % 100);
  if (c < 10) return sign | F32ToFp8Bits(t, static_cast<float>(f.max));  // +-max
  if (c < 18) return sign | static_cast<uint32_t>(1 + Next(s) % ((1u << f.man_bits) - 1));  // subnormals
  if (c < 22) return f.fnuz ? 0 : sign;  // zero (FNUZ: 0x80 is NaN, not -0)
  if (c < 23) return f.fnuz ? 0x80 : sign | 0x7f;  // NaN
  if (c < 24 && f.has_inf) return sign | 0x7c;  // infinity
  for (;;) {  // any finite code
    const uint32_t code = static_cast<uint32_t>(Next(s) & 0xff);
    if (!IsFp8NaN(t, static_cast<uint8_t>(code)) && !std::isinf(Fp8BitsToF32(t, static_cast<uint8_t>(code))))
      return code;
  }
}

// One adversarial float element of type t (bits) of kind `c` (the
// percentile of AdversarialFloat's mixture: < 35 tie makers, < 50 powers of
// two and their neighbours, < 62 tiny addends, < 72 subnormals, < 77 signed
// zeros, 77 infinities, 78 NaNs, < 81 extremes, else full significands),
// negative or not; its parts from `s`.
uint32_t AdversarialFloatOfKind(ElemType t, int c, bool negative, uint64_t& s) {
  const Fields f = FieldsOf(t);
  const int p = f.man_bits + 1;
  const uint32_t sign = static_cast<uint32_t>(negative) << (f.exp_bits + f.man_bits);
  const uint32_t exp_all = (uint32_t{1} << f.exp_bits) - 1, man_mask = (uint32_t{1} << f.man_bits) - 1;
  const int bias = static_cast<int>(exp_all >> 1);
  const double sg = sign != 0 ? -1.0 : 1.0;
  if (c < 35) {  // tie makers: odd m of h bits, products of two have ~p+1 bits
    const int h = p / 2 + 1;
    const int64_t m = 2 * Uniform(s, int64_t{1} << (h - 2), (int64_t{1} << (h - 1)) - 1) + 1;
    return FloatBits(t, sg * std::ldexp(static_cast<double>(m), static_cast<int>(Uniform(s, -h - 2, -h + 2))));
  }
  if (c < 50) {  // powers of two, one ulp above, half an ulp of them
    const int e = static_cast<int>(Uniform(s, -2, 2));
    switch (Next(s) % 3) {
      case 0: return FloatBits(t, sg * std::ldexp(1.0, e));
      case 1: return FloatBits(t, sg * std::ldexp(1.0 + std::ldexp(1.0, 1 - p), e));
      default: return FloatBits(t, sg * std::ldexp(1.0, e - p));
    }
  }
  if (c < 62) {  // tiny addends
    const double m = (Next(s) & 1) ? 3.0 : 1.0;
    return FloatBits(t, sg * m * std::ldexp(1.0, t == ElemType::kF16 ? -24 : -40));
  }
  if (c < 72) {  // subnormals
    uint32_t man = static_cast<uint32_t>(Next(s)) & man_mask;
    return sign | (man == 0 ? 1 : man);
  }
  if (c < 77) return sign;  // signed zero
  // Few non-finite values and extremes, so that sums over many elements are
  // not all inf or NaN.
  if (c < 78) return sign | (exp_all << f.man_bits);  // infinity
  if (c < 79) {  // NaNs: quiet, with and without a payload, and signalling ones
    // (quiet bit clear, a non-zero payload in the low 8 bits: a load -> cvt
    // path that truncates without a NaN fix-up turns them into inf, f32
    // 0x7f800001 -> bf16 0x7f80; they were quiet only).
    const uint32_t quiet = uint32_t{1} << (f.man_bits - 1);
    const uint32_t r = static_cast<uint32_t>(Next(s));
    // Some quiet ones with an all-ones payload (0x7fffffff, 0xffffffff:
    // memory filled with 0xff), which a rounding add without a NaN select
    // carries into the exponent (fresh-user review 16 F1: an fma quiets a
    // signalling NaN, and random payloads carried once in 256).
    if ((r & 0x100) == 0)
      return sign | (exp_all << f.man_bits) | quiet | ((r & 0x200) != 0 ? quiet - 1 : (r & (quiet - 1) & 0xff));
    return sign | (exp_all << f.man_bits) | (r & (quiet - 1) & 0xff) | 1;
  }
  if (c < 81) {  // extremes: the largest finite value, the smallest normal
    return (Next(s) & 1) ? sign | ((exp_all - 1) << f.man_bits) | man_mask : sign | (uint32_t{1} << f.man_bits);
  }
  // Full significands with exponents in [-4, 4].
  const uint32_t e = static_cast<uint32_t>(bias + Uniform(s, -4, 4));
  return sign | (e << f.man_bits) | (static_cast<uint32_t>(Next(s)) & man_mask);
}

// One adversarial float element of type t (bits); `finite_only` leaves out
// infinities and NaNs (for scalars). f16 and bf16 buffers: AdversarialHalf.
uint32_t AdversarialFloat(ElemType t, uint64_t& s, bool finite_only) {
  if (IsFp8(t)) return AdversarialFp8(t, s);
  const bool negative = (Next(s) & 1) != 0;
  int c = static_cast<int>(Next(s) % 100);
  // Scalars scale whole outputs: ties, ulp neighbours and full significands only.
  if (finite_only) c = c < 50 ? c : 90;
  return AdversarialFloatOfKind(t, c, negative, s);
}

// One adversarial f16 or bf16 buffer element (bits): families that expose
// a double rounding and a wrong round-to-odd fix-up of one, then
// AdversarialFloat's other kinds.
//
// An fma x * y + o of a 16-bit format (p bits: 11 f16, 8 bf16) computed as
// an f32 fma and a rounding to the format rounds twice: when the exact value
// lies within half an f32 ulp of a midpoint of the format but not on it, the
// f32 result is the midpoint, whose tie goes to even, the wrong neighbour
// when the exact value lies beyond the midpoint on the other side (review 8
// F7: f16 (1 + 2^-10) * (1 - 2^-11) + (2^-21 + 2^-24) gives 1, not
// 1 + 2^-10). (An add, sub or mul of two such values through f32 rounds
// correctly: 24 >= 2p + 2, Figueroa, "When is double rounding innocuous?",
// ACM SIGNUM Newsletter 30(3), 1995.) kirc's bf16 fma (lower_compute.cc
// Bf16FmaRoundedToOdd) moves an inexact, even f32 result r one ulp toward
// the exact value (rounding to odd) before rounding to bf16; a fix-up that
// also moves an odd r is wrong when the exact value lies between 1/2 and 1
// f32 ulp from a midpoint: r is then the odd f32 number next to the
// midpoint, the step lands on the midpoint and its tie goes to even
// (fresh-user review 10 F2: no such value occurred). The operands of one
// element come from separate buffers, each element drawn on its own, so the
// families are made so that any two of the first multiply to a midpoint of
// one binade and each of the others lies at a fixed fraction of an f32 ulp
// of every such product:
// - 55% tie factors +-m * 2^-4, m odd with m = 1 (mod 4) and m^2 in
//   [2^p, 2^(p+1)): the product of two is m1 m2 * 2^-8, m1 m2 odd of
//   exactly p + 1 bits, a midpoint, and m1 m2 = 1 (mod 4): its significand
//   below, (m1 m2 - 1) / 2, is even, so the tie rounds toward zero. f16:
//   m in {49, 53, 57, 61} (products in [8, 16), f32 ulp 2^-20); bf16:
//   m in {17, 21} (products in [1, 2), f32 ulp 2^-23). One exponent, so
//   that the addends below are the same fraction of every product's ulp.
// - 12% tiny addends: f16 2^-24 and 2^-23, bf16 2^-40 and 3 * 2^-40 (below
//   half an f32 ulp of a product).
// - 8% half-ulp addends: exactly half the products' f32 ulp (f16 2^-21,
//   bf16 2^-24): the exact value is an f32 tie beside the midpoint, whose
//   neighbours are the midpoint (even) and an odd number; the f32 result is
//   the midpoint itself.
// - 12% three-quarter-ulp addends: 3/4 of the products' f32 ulp (f16
//   3 * 2^-22, bf16 3 * 2^-25): the f32 result is the odd neighbour of the
//   midpoint, on the exact value's side; a fix-up that ignores its parity
//   steps back onto the midpoint.
//   All four families are negative with probability 1/8 only, so that in
//   (1 + (3/4)^3) / 2 = 71% of the triples x * y and o have the same sign:
//   the exact value lies beyond the midpoint away from zero, where the
//   correct result is, and the f32 detour (tiny and half-ulp addends) or the
//   parity-blind step (three-quarter-ulp addends) rounds toward zero; in the
//   others it lies on the zero side (both sides of each midpoint occur).
//   So about 0.55 * 0.55 * 0.2 * 0.71 = 4.3% of the elements of
//   fma(x, y, o) expose a double rounding and 0.55 * 0.55 * 0.12 * 0.71 =
//   2.6% a parity-blind fix-up, whichever buffers x, y and o come from.
// - 13% AdversarialFloat's other kinds (AdversarialFloatOfKind): powers of
//   two and their neighbours 1%, subnormals 4%, signed zeros 2%, infinities
//   1%, NaNs 1%, extremes 1%, full significands 3%.
uint32_t AdversarialHalf(ElemType t, uint64_t& s) {
  const bool f16 = t == ElemType::kF16;
  const bool negative_rarely = Next(s) % 8 == 7;
  const int c = static_cast<int>(Next(s) % 100);
  const double sg = negative_rarely ? -1.0 : 1.0;
  // The f32 ulp of every product of two tie factors: f16 [8, 16), bf16 [1, 2).
  const int ulp = f16 ? -20 : -23;
  if (c < 55) {  // tie factors
    static constexpr int kF16M[] = {49, 53, 57, 61}, kBf16M[] = {17, 21};
    const int m = f16 ? kF16M[Next(s) % 4] : kBf16M[Next(s) % 2];
    return FloatBits(t, sg * std::ldexp(m, -4));
  }
  if (c < 67) {  // tiny addends
    const bool second = (Next(s) & 1) != 0;
    return FloatBits(t, f16 ? sg * std::ldexp(1.0, second ? -23 : -24) : sg * (second ? 3 : 1) * std::ldexp(1.0, -40));
  }
  if (c < 75) return FloatBits(t, sg * std::ldexp(1.0, ulp - 1));  // half an f32 ulp
  if (c < 87) return FloatBits(t, sg * 3 * std::ldexp(1.0, ulp - 2));  // three quarters of one
  // The other kinds, as percentiles of AdversarialFloat's mixture.
  const bool negative = (Next(s) & 1) != 0;
  const int kind = c < 88 ? 35 : c < 92 ? 62 : c < 94 ? 72 : c < 95 ? 77 : c < 96 ? 78 : c < 97 ? 79 : 81;
  return AdversarialFloatOfKind(t, kind, negative, s);
}

uint32_t AdversarialI32(uint64_t& s) {
  static constexpr int64_t kSpecial[] = {INT32_MIN, INT32_MAX, -1, 0, 1, (1 << 24) - 1, 1 << 24, (1 << 24) + 1,
                                         -(1 << 24), 65535, 65536};
  const int c = static_cast<int>(Next(s) % 100);
  if (c < 50) return static_cast<uint32_t>(kSpecial[Next(s) % (sizeof(kSpecial) / sizeof(kSpecial[0]))]);
  if (c < 75) return static_cast<uint32_t>(Next(s));
  return static_cast<uint32_t>(Uniform(s, -1000, 1000));
}

// A lazy buffer of `a`'s size whose element i is elem(i).
PagedBytes LazyBuffer(const Arg& a, std::function<uint64_t(uint64_t)> elem) {
  const int64_t bytes = a.SizeBytes();
  return PagedBytes(static_cast<uint64_t>(bytes > 0 ? bytes : 0), ElementFiller(ElemBytes(a.elem), std::move(elem)));
}

// Fills every scalar of `k` with scalar(arg, rng) and every buffer lazily:
// element i is buffer_elem(arg, rng) (or buffer_elem(arg, rng, i) when it
// takes the index) with rng at StateAt(s0, i * calls(arg)), s0 the
// buffer's stream (calls(arg): the values each element draws).
template <typename BufferFn, typename CallsFn, typename ScalarFn>
KernelData Fill(const Kernel& k, uint64_t seed, uint64_t salt, BufferFn buffer_elem, CallsFn calls,
                ScalarFn scalar) {
  KernelData d;
  for (const Arg& a : k.args) {
    uint64_t s = Hash(a.name, seed) ^ salt;
    if (a.kind == Arg::Kind::kScalar) {
      d.scalars[a.name] = scalar(a, s);
      continue;
    }
    const uint64_t per = calls(a);
    d.buffers[a.name] = LazyBuffer(a, [a, s, per, buffer_elem](uint64_t i) -> uint64_t {
      uint64_t st = StateAt(s, i * per);
      if constexpr (std::is_invocable_v<BufferFn, const Arg&, uint64_t&, uint64_t>)
        return buffer_elem(a, st, i);
      else
        return buffer_elem(a, st);
    });
  }
  return d;
}

// Gives f32 scalars that drew the same value from their choice sets
// distinct values where a set allows (in argument order, the first value of
// its set not yet taken), so that code reading one scalar's kernarg slot for
// another's (alpha for beta) computes another result (fresh-user review 8
// F3: an f16 gemm reading alpha from beta's slot passed a third of the seeds).
void DistinctScalars(const Kernel& k, const ExactPlan& plan, KernelData& d) {
  std::set<uint32_t> taken;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kScalar || a.elem == ElemType::kI32) continue;
    auto f = plan.formats.find(a.name);
    auto v = d.scalars.find(a.name);
    if (f == plan.formats.end() || v == d.scalars.end()) continue;
    if (taken.count(v->second))
      for (double c : f->second.choices)
        if (!taken.count(F32Bits(static_cast<float>(c)))) {
          v->second = F32Bits(static_cast<float>(c));
          break;
        }
    taken.insert(v->second);
  }
}

// Where memory element i of buffer `a` lies in the K window of form `f`
// (ExactFormat::k_window; WithKWindow): element [i0, i1] (KWindowLayoutOf:
// rows or columns, padded or not) is kept when (i_k - o) mod k_period <
// k_block, i_k its index along k_dim and o = value i_o of the window's
// stream mod k_period (i_o its index along the other dimension).
struct KWindowPlace {
  KWindowPlace(const Arg& a, const ExactFormat& f, uint64_t seed)
      : s0(Hash(a.name, seed) ^ 0x6b77696e646f77ull),  // "kwindow"
        layout(KWindowLayoutOf(a)),
        rows(layout == KWindowLayout::kRows),
        outer(layout == KWindowLayout::kNone ? 1 : rows ? a.strides[0] : a.strides[1]),
        step(layout == KWindowLayout::kNone ? 1 : rows ? a.strides[1] : a.strides[0]),
        inner_extent(layout == KWindowLayout::kNone ? 0 : rows ? a.shape[1] : a.shape[0]),
        k_dim(f.k_dim),
        period(std::max<int64_t>(f.k_period, 1)),
        block(f.k_block),
        span((std::max<int64_t>(f.k_len, 0) / period + 2) * std::max<int64_t>(block, 1)) {}
  struct Where {
    bool kept = false;     // in the window, or padding (no element)
    bool padding = false;
    // Kept elements: consecutive along each K sum (io * span + the count of
    // windows and the offset within one), so that a period P at most the
    // window's count meets every sum once or twice.
    uint64_t ordinal = 0;
  };
  Where At(uint64_t i) const {
    Where w;
    if (layout == KWindowLayout::kNone) return w;
    const int64_t hi = static_cast<int64_t>(i) / outer, r = static_cast<int64_t>(i) % outer;
    if (r % step != 0 || r / step >= inner_extent) {
      w.kept = w.padding = true;
      return w;
    }
    const int64_t lo = r / step;
    const int64_t i0 = rows ? hi : lo, i1 = rows ? lo : hi;
    const int64_t ik = k_dim == 0 ? i0 : i1, io = k_dim == 0 ? i1 : i0;
    uint64_t st = StateAt(s0, static_cast<uint64_t>(io));
    const int64_t o = static_cast<int64_t>(Next(st) % static_cast<uint64_t>(period));
    const int64_t u = ik - o + period;  // >= 0: o < period
    w.kept = u % period < block;
    w.ordinal = static_cast<uint64_t>(io * span + u / period * block + u % period);
    return w;
  }
  uint64_t s0;
  KWindowLayout layout;
  bool rows;
  int64_t outer, step, inner_extent;
  int k_dim;
  int64_t period, block, span;
};

// Inputs in `plan`'s formats (ExactFormat), lazy, from `seed` and `salt`:
// float elements +-m * 2^e (negative when the element's sign draw r has
// r mod negative_one_in == negative_one_in - 1; special-value buffers and
// arguments without a format 0 here, filled by the callers), i32 integers,
// f32 scalars from their choices. Shared by the exact and conversion passes.
KernelData FillFormats(const Kernel& k, const ExactPlan& plan, uint64_t seed, uint64_t salt,
                       uint64_t negative_one_in) {
  // Periodic two-scale forms (ExactFormat::low_period): per buffer, the
  // offset o and the sign flip f from the seed.
  std::map<std::string, std::pair<uint64_t, uint64_t>> periodic;
  for (const auto& [name, f] : plan.formats)
    if (f.two_scale && f.low_period > 0) {
      const uint64_t h = Hash(name, seed) ^ salt ^ 0x706572696f64ull;
      periodic[name] = {h % static_cast<uint64_t>(f.low_period), (h >> 32) & 1};
    }
  // Subnormal shares (ExactFormat::sub_period): per buffer, the offset o of
  // its group (from the seed and the group's first buffer: the same
  // positions in each buffer of the group).
  std::map<std::string, uint64_t> sub_offsets;
  for (const auto& [name, f] : plan.formats)
    if (f.sub_period > 0)
      sub_offsets[name] = (Hash(f.sub_group, seed) ^ salt ^ 0x7375626e6f726dull) % static_cast<uint64_t>(f.sub_period);
  // Periodic two-scale forms with a K window: their low elements counted
  // along the window (KWindowPlace::ordinal; LongSumTwoScale).
  std::map<std::string, KWindowPlace> windows;
  for (const Arg& a : k.args)
    if (auto f = plan.formats.find(a.name);
        f != plan.formats.end() && f->second.two_scale && f->second.low_period > 0 && f->second.k_window > 0)
      windows.emplace(a.name, KWindowPlace(a, f->second, seed));
  // The formats are copied into the fillers, which outlive `plan`.
  return Fill(
      k, seed, salt,
      [formats = plan.formats, negative_one_in, periodic, sub_offsets, windows](const Arg& a, uint64_t& s,
                                                                               uint64_t i) -> uint32_t {
        auto it = formats.find(a.name);
        if (it == formats.end() || it->second.special) return 0;
        const ExactFormat& f = it->second;
        if (a.elem == ElemType::kI32) return static_cast<uint32_t>(static_cast<int32_t>(Uniform(s, f.int_lo, f.int_hi)));
        if (f.zero) return FloatBits(a.elem, 0.0);
        const double m = static_cast<double>(Uniform(s, 1, (int64_t{1} << f.bits) - 1));
        // Two scales: the low one's elements are negative half the time (a
        // small negative part below the coarse sum is what a
        // round-toward-zero first conversion rounds the wrong way, a positive
        // one what a ties-away one does: ExactFormat::two_scale); the high
        // one's one in negative_one_in or in the form's own
        // high_negative_one_in; the rest one in the form's own
        // negative_one_in when it has one (fresh-user review 20 F9). Periodic forms: the low scale at (i + o) mod
        // low_period = 0, the j-th negative for odd j + f, the quarter
        // scale (exp_lo) at j = 0, 5 (mod 8).
        const auto per = f.two_scale && f.low_period > 0 ? periodic.find(a.name) : periodic.end();
        const auto win = per == periodic.end() ? windows.end() : windows.find(a.name);
        const uint64_t at = per == periodic.end() ? 0 : (win == windows.end() ? i : win->second.At(i).ordinal) + per->second.first;
        const uint64_t j = per == periodic.end() ? 0 : at / static_cast<uint64_t>(f.low_period);
        const bool low = per != periodic.end() ? at % static_cast<uint64_t>(f.low_period) == 0
                                               : f.two_scale && Uniform(s, 1, std::max(f.low_one_in, 1)) == 1;
        int e = f.two_scale ? (low ? f.exp_lo : f.exp_lo + f.spread)
                            : static_cast<int>(Uniform(s, f.exp_lo, f.exp_lo + f.spread));
        const uint64_t neg_in = f.two_scale && !low && f.high_negative_one_in > 0
                                    ? static_cast<uint64_t>(f.high_negative_one_in)
                                    : f.negative_one_in > 0 ? static_cast<uint64_t>(f.negative_one_in)
                                                            : negative_one_in;
        const uint64_t r = Next(s);
        const bool negative = !low                      ? r % neg_in == neg_in - 1
                              : per != periodic.end() ? (j + per->second.second) % 2 == 1
                                                      : r % 2 == 1;
        // A subnormal share's element: +-m * 2^exp_lo, m in [1, sub_m_max]
        // (its sign drawn as the others').
        if (const auto so = f.sub_period > 0 ? sub_offsets.find(a.name) : sub_offsets.end();
            so != sub_offsets.end() && (i + so->second) % static_cast<uint64_t>(f.sub_period) == 0) {
          if (f.sub_m_max <= 0) return 0;  // a term of a sum: +0
          const double ms = f.sub_m_max > 1 ? static_cast<double>(1 + (r >> 8) % static_cast<uint64_t>(f.sub_m_max)) : 1.0;
          return FloatBits(a.elem, (negative != f.negate ? -ms : ms) * std::ldexp(1.0, f.exp_lo + f.shift));
        }
        if (low && f.low_spread > 0 && (per != periodic.end() ? j % 8 != 0 && j % 8 != 5 : (r >> 2) % 4 != 0))
          e += f.low_spread;  // 3 in 4 of them
        const double mm = low ? 1.0 : m;  // the low scale: +-2^exp_lo (or 2^(exp_lo + low_spread))
        return FloatBits(a.elem, (negative != f.negate ? -mm : mm) * std::ldexp(1.0, e + f.shift));
      },
      // Values drawn per element: i32 1, floats 3 (significand, exponent, sign).
      [&](const Arg& a) -> uint64_t { return a.elem == ElemType::kI32 ? 1 : 3; },
      [&](const Arg& a, uint64_t& s) -> uint32_t {
        auto it = plan.formats.find(a.name);
        if (it == plan.formats.end()) return 0;
        const ExactFormat& f = it->second;
        if (a.elem == ElemType::kI32) return static_cast<uint32_t>(static_cast<int32_t>(Uniform(s, f.int_lo, f.int_hi)));
        return F32Bits(static_cast<float>(
            std::ldexp(f.choices.empty() ? 1.0 : f.choices[Next(s) % f.choices.size()], f.shift) *
            (f.negate ? -1.0 : 1.0)));
      });
}

// `regular` (a's +-m * 2^e) with saturation specials (ExactFormat::mix_level):
// element i is value (i + o) mod kConversionSpecials of SaturationSpecials
// when that index is below their count (a NaN is `a`'s quiet NaN with a
// payload from the element's own stream, its sign from the same), else
// regular's element i.
PagedBytes WithSaturationValues(const Arg& a, const ExactFormat& f, uint64_t seed, PagedBytes regular) {
  const std::vector<double> sp = SaturationSpecials(a.elem, f.special_to, f.mix_level);
  const uint64_t s0 = Hash(a.name, seed) ^ 0x73617475726174ull;
  const uint64_t o = s0 % kConversionSpecials;
  const ElemType t = a.elem;
  const uint64_t eb = static_cast<uint64_t>(ElemBytes(t));
  // The element's bits: NaNs with payloads (fp8: the format's NaN codes).
  auto value = [sp, s0, t](uint64_t i, size_t j) -> uint32_t {
    const double x = sp[j];
    if (!std::isnan(x)) return *ExactBits(t, x);
    uint64_t st = StateAt(s0, i);
    const uint64_t r = Next(st);
    if (IsFp8(t)) {
      const Fp8Format& f8 = *Fp8FormatOf(t);
      return f8.fnuz ? 0x80u : ((r & 1) << 7) | f8.nan;
    }
    const Fields fd = FieldsOf(t);
    const uint32_t sign = static_cast<uint32_t>(r & 1) << (fd.exp_bits + fd.man_bits);
    const uint32_t quiet = uint32_t{1} << (fd.man_bits - 1);
    return sign | (((uint32_t{1} << fd.exp_bits) - 1) << fd.man_bits) | quiet |
           (static_cast<uint32_t>(r >> 1) & (quiet - 1));
  };
  std::shared_ptr<const PageFiller> inner = regular.filler();
  auto filler = std::make_shared<const PageFiller>([inner, value, o, eb, n = sp.size()](uint64_t off, uint8_t* p,
                                                                                       uint64_t len) {
    if (inner != nullptr) (*inner)(off, p, len);
    for (uint64_t b = (eb - off % eb) % eb; b + eb <= len; b += eb) {
      const uint64_t i = (off + b) / eb;
      const size_t j = static_cast<size_t>((i + o) % kConversionSpecials);
      if (j >= n) continue;
      const uint32_t v = value(i, j);
      for (uint64_t x = 0; x < eb; ++x) p[b + x] = static_cast<uint8_t>(v >> (8 * x));
    }
  });
  return PagedBytes(regular.size(), std::move(filler));
}

// `regular` (a's elements) zero outside a's K window (ExactFormat::
// k_window): element [i0, i1] (KWindowLayoutOf: rows or columns, padded
// or not) keeps its value when (i_k - o) mod k_period < k_block, i_k its
// index along k_dim and o = value i_o of the window's stream mod k_period
// (i_o its index along the other dimension); else +0 (bits 0 in every
// float type). Every element is zero when the layout has no window (the
// window's bound then holds too). Lazy, as `regular`.
PagedBytes WithKWindow(const Arg& a, const ExactFormat& f, uint64_t seed, PagedBytes regular) {
  const uint64_t eb = static_cast<uint64_t>(ElemBytes(a.elem));
  // Whether memory element i lies in the window (or is padding, kept).
  auto keep = [place = KWindowPlace(a, f, seed)](uint64_t i) { return place.At(i).kept; };
  std::shared_ptr<const PageFiller> inner = regular.filler();
  auto filler = std::make_shared<const PageFiller>([inner, keep, eb](uint64_t off, uint8_t* p, uint64_t len) {
    if (inner != nullptr) (*inner)(off, p, len);
    uint64_t last = ~uint64_t{0};
    bool kept = true;
    for (uint64_t b = 0; b < len; ++b) {
      const uint64_t i = (off + b) / eb;
      if (i != last) {
        last = i;
        kept = keep(i);
      }
      if (!kept) p[b] = 0;
    }
  });
  return PagedBytes(regular.size(), std::move(filler));
}

// The K windows of `plan`'s forms applied to `d`'s buffers (WithKWindow).
void ApplyKWindows(const Kernel& k, const ExactPlan& plan, uint64_t seed, KernelData& d) {
  for (const Arg& a : k.args) {
    auto f = plan.formats.find(a.name);
    auto b = d.buffers.find(a.name);
    if (a.kind != Arg::Kind::kBuffer || f == plan.formats.end() || f->second.k_window <= 0 || b == d.buffers.end())
      continue;
    b->second = WithKWindow(a, f->second, seed, std::move(b->second));
  }
}

}  // namespace

KernelData MakeExactInputs(const Kernel& k, const ExactPlan& plan, uint64_t seed) {
  KernelData d = FillFormats(k, plan, seed, 0x6578616374ull, 2);
  ApplyKWindows(k, plan, seed, d);
  DistinctScalars(k, plan, d);
  const KernelData random = MakeInputs(k, seed);
  for (const Arg& a : k.args) {
    if (plan.formats.count(a.name)) continue;
    if (a.kind == Arg::Kind::kScalar) d.scalars[a.name] = random.scalars.at(a.name);
    else d.buffers[a.name] = random.buffers.at(a.name);
  }
  return d;
}

int ConversionSpecialPeriod(int targets) {
  int n = kConversionSpecials + (kConversionSpecials - kTargetFreeSpecials) * std::max(targets - 1, 0);
  auto prime = [](int x) {
    for (int d = 2; d * d <= x; ++d)
      if (x % d == 0) return false;
    return x >= 2;
  };
  while (!prime(n)) ++n;
  return n;
}

SpecialSlot ConversionSpecialSlot(int targets, int u) {
  const int own = kConversionSpecials - kTargetFreeSpecials;  // each further target's values
  const int count = kConversionSpecials + own * std::max(targets - 1, 0);
  u %= count;  // the padding repeats from slot 0
  if (u < kConversionSpecials) return {0, u};
  u -= kConversionSpecials;
  return {1 + u / own, kTargetFreeSpecials + u % own};
}

uint32_t ConversionSpecial(ElemType to, int j, uint64_t& s) { return ConversionSpecialFrom(ElemType::kF32, to, j, s); }

uint32_t ConversionSpecialFrom(ElemType from, ElemType to, int j, uint64_t& s) {
  // The target's significand bits p (with the implicit one), smallest
  // normal exponent, largest finite value.
  int p = 24, emin = -126;
  double max = std::numeric_limits<float>::max();
  if (const Fp8Format* f = Fp8FormatOf(to); f != nullptr) {
    p = f->man_bits + 1;
    emin = 1 - f->bias;
    max = f->max;
  } else if (to == ElemType::kF16 || to == ElemType::kBF16) {
    const Fields fd = FieldsOf(to);
    const int bias = (1 << (fd.exp_bits - 1)) - 1;
    p = fd.man_bits + 1;
    emin = 1 - bias;
    max = std::ldexp(2.0 - std::ldexp(1.0, -fd.man_bits), bias);
  }
  const double flt_max = std::numeric_limits<float>::max();
  const double minsub = std::ldexp(1.0, emin - (p - 1));
  int emax = 0;
  std::frexp(max, &emax);
  --emax;  // max = 1.x * 2^emax
  const double half_top = std::ldexp(1.0, emax - p);  // half an ulp of T at max
  // `from`'s fields: f32, or a 16-bit type (sign-magnitude like f32).
  const bool wide = from == ElemType::kF32;
  const Fields ff = FieldsOf(wide ? ElemType::kF32 : from);
  const uint32_t sign_bit = uint32_t{1} << (ff.exp_bits + ff.man_bits);
  const uint32_t inf_bits = ((uint32_t{1} << ff.exp_bits) - 1) << ff.man_bits;
  const uint32_t quiet = uint32_t{1} << (ff.man_bits - 1);
  // The bits of v in `from`: rounded to nearest even, beyond its range its
  // +-max (a value far beyond any narrower target's max).
  auto bits = [&](double v) -> uint32_t {
    const float f = static_cast<float>(v);
    if (wide) return F32Bits(f);
    const uint32_t b = from == ElemType::kF16 ? F32ToF16Bits(f) : F32ToBf16Bits(f);
    return (b & ~sign_bit) == inf_bits ? (b & sign_bit) | (inf_bits - 1) : b;
  };
  // `from`'s neighbour of v (as `bits` gives it) towards +inf (up) or -inf.
  auto next = [&](double v, bool up) -> uint32_t {
    if (wide)
      return F32Bits(std::nextafter(static_cast<float>(v), up ? std::numeric_limits<float>::infinity()
                                                              : -std::numeric_limits<float>::infinity()));
    const uint32_t b = bits(v), mag = b & ~sign_bit;
    const bool negative = (b & sign_bit) != 0 && mag != 0;
    if (negative == up) return mag == 0 ? b : b - 1;  // towards zero
    return mag == 0 ? (up ? 1u : sign_bit | 1u) : b + 1;  // away from zero
  };
  const uint32_t payload = static_cast<uint32_t>(Next(s)) & (quiet - 1);
  switch (j) {
    case 0: return inf_bits | quiet | payload;             // quiet NaNs with payloads
    case 1: return sign_bit | inf_bits | quiet | (quiet - 1);  // all ones (0xffffffff): carries in a rounding add
    case 2:  // a signalling NaN; for half the draws with its payload in the low 7 bits only,
             // which a conversion that truncates without a NaN fix-up turns into inf (f32
             // 0x7f800001 -> bf16 0x7f80; fresh-user review 12 F2)
      return inf_bits | ((payload & 1) != 0 ? payload : ((payload >> 1) & 0x7f) | 1);
    case 3: return inf_bits;                                // +-inf
    case 4: return sign_bit | inf_bits;
    case 5: return 0;                                      // +-0
    case 6: return sign_bit;
    case 7: return bits(max);                              // +-max
    case 8: return bits(-max);
    case 9: return bits(max + half_top);                   // the tie above max (even: beyond it)
    case 10: return bits(-(max + half_top));
    case 11: return next(max + half_top, false);          // just below that tie: max
    case 12: return next(-(max + half_top), false);       // just beyond it
    case 13: {  // far beyond max: 4 max, or the source's own max (f16, bf16) when beyond T's
      if (!wide) {
        const uint32_t top = inf_bits - 1;  // the source's largest finite value
        const double top_value = from == ElemType::kF16 ? F16BitsToF32(static_cast<uint16_t>(top))
                                                         : Bf16BitsToF32(static_cast<uint16_t>(top));
        if (top_value > max) return top;
      }
      return bits(std::min(4 * max, flt_max));
    }
    case 14: return bits(-std::min(max + 2 * half_top, flt_max));  // one ulp of T beyond max
    case 15: return bits(minsub);                         // T's smallest subnormal
    case 16: return bits(-minsub);
    case 17: return bits(minsub / 2);                     // tie: 0 (even) or minsub
    case 18: return bits(-1.5 * minsub);                  // tie: 2 minsub (even)
    case 19: return bits(2.5 * minsub);                   // tie: 2 minsub (even)
    case 20: return next(-minsub / 2, false);             // just beyond the tie: -minsub
    case 21: {  // a tie of the subnormal grid, (m + 1/2) minsub, m random
      const int64_t top = (int64_t{1} << (p - 1)) - 1;   // the largest subnormal's m
      const int64_t m = top >= 2 ? Uniform(s, 1, top - 1) : 0;
      return bits((static_cast<double>(m) + 0.5) * minsub);
    }
    case 22: return bits(std::ldexp(1.0, emin));          // the smallest normal
    case 23: return bits(-(std::ldexp(1.0, emin) - minsub / 2));  // tie below it: the normal (even)
    case 36: {  // a full significand of `from` in T's normal range
      const int e = static_cast<int>(Uniform(s, std::max(emin, -3), std::min(emax, 3)));
      return bits(std::ldexp(1.0 + static_cast<double>(Next(s) >> (64 - ff.man_bits)) * std::ldexp(1.0, -ff.man_bits),
                             e));
    }
    default: break;
  }
  // 24..35: ties (m + 1/2) ulp of T in its normal range, m odd and even, of
  // either sign, exactly and +-1 f32 ulp.
  const int t = std::clamp(j, 24, 35) - 24;
  const bool odd = t % 2 == 1, negative = t >= 6;
  const int kind = (t / 2) % 3;  // 0: the tie, 1: one f32 ulp above it (in magnitude), 2: below
  const int64_t lo = int64_t{1} << (p - 1), hi = (int64_t{1} << p) - 1;
  int64_t m = Uniform(s, lo, hi);
  if ((m % 2 == 1) != odd) m = m == lo ? m + 1 : m - 1;
  const int e = static_cast<int>(Uniform(s, std::max(emin, -3), std::min(emax, 3)));
  double v = std::ldexp(static_cast<double>(m) + 0.5, e - (p - 1));
  if (v > max) v = std::ldexp(static_cast<double>(lo + (odd ? 1 : 0)) + 0.5, e - (p - 1));
  if (negative) v = -v;
  if (kind == 0) return bits(v);
  return next(v, (kind == 1) != negative);
}

std::vector<uint64_t> DiagonalElements(const Arg& a, const ExactFormat& f, uint64_t seed) {
  std::vector<uint64_t> r;
  if (f.diagonal == ExactFormat::Diagonal::kNone || a.kind != Arg::Kind::kBuffer || a.shape.size() != 2 ||
      a.shape[0] < 4 || a.shape[1] < 4)
    return r;
  // [4 (q + d + 2 i) + t, 4 (r + d + 2 i) + t], t = 0..3, d = diagonal_offset,
  // block indices mod shape / 4 (ExactFormat::diagonal).
  uint64_t st = Hash(a.name, seed) ^ 0x6e616e64696167ull;
  const int64_t nq = a.shape[0] / 4, nr = a.shape[1] / 4;
  const int64_t q = static_cast<int64_t>(Next(st) % static_cast<uint64_t>(nq)) + f.diagonal_offset % nq;
  const int64_t c = static_cast<int64_t>(Next(st) % static_cast<uint64_t>(nr)) + f.diagonal_offset % nr;
  for (int64_t i = f.diagonal_first; i < f.diagonal_first + f.diagonal_blocks; ++i)
    for (int64_t t = 0; t < 4; ++t)
      r.push_back(static_cast<uint64_t>((4 * ((q + 2 * i) % nq) + t) * a.strides[0] +
                                        (4 * ((c + 2 * i) % nr) + t) * a.strides[1]));
  return r;
}

KernelData MakeConversionInputs(const Kernel& k, const ExactPlan& plan, uint64_t seed) {
  // Negative with probability 1/8: long sums keep their bits.
  KernelData d = FillFormats(k, plan, seed, 0x636f6e76ull, 8);
  ApplyKWindows(k, plan, seed, d);
  const KernelData random = MakeInputs(k, seed);
  for (const Arg& a : k.args) {
    auto it = plan.formats.find(a.name);
    if (it == plan.formats.end()) {
      if (a.kind == Arg::Kind::kScalar) d.scalars[a.name] = random.scalars.at(a.name);
      else d.buffers[a.name] = random.buffers.at(a.name);
      continue;
    }
    if (a.kind != Arg::Kind::kBuffer) continue;
    if (const ExactFormat& f = it->second; f.diagonal != ExactFormat::Diagonal::kNone) {
      // NaN (or +inf) at the blocks (DiagonalElements).
      const int eb = ElemBytes(a.elem);
      const uint32_t nan = IsFp8(a.elem) ? Fp8FormatOf(a.elem)->nan
                           : a.elem == ElemType::kF32 ? 0x7fc00000u
                           : a.elem == ElemType::kF16 ? 0x7e00u
                                                      : 0x7fc0u;
      const std::optional<uint32_t> inf = ExactBits(a.elem, std::numeric_limits<double>::infinity());
      const uint32_t v = f.diagonal == ExactFormat::Diagonal::kInf && inf ? *inf : nan;
      for (uint64_t e : DiagonalElements(a, f, seed)) {
        uint8_t* p = d.buffers[a.name].Touch(e * static_cast<uint64_t>(eb), static_cast<uint64_t>(eb));
        for (int x = 0; x < eb; ++x) p[x] = static_cast<uint8_t>(v >> (8 * x));
      }
    }
    if (it->second.mix_level >= 0) {
      d.buffers[a.name] = WithSaturationValues(a, it->second, seed, std::move(d.buffers[a.name]));
      continue;
    }
    if (!it->second.special) continue;
    // Element i: slot (i + o) mod P of the targets' special values (one
    // target: value (i + o) mod 37), its random parts from the element's
    // own stream.
    const std::vector<ElemType> to =
        it->second.special_targets.empty() ? std::vector<ElemType>{it->second.special_to} : it->second.special_targets;
    const int n = static_cast<int>(to.size());
    const uint64_t period = static_cast<uint64_t>(ConversionSpecialPeriod(n));
    const uint64_t s0 = Hash(a.name, seed) ^ 0x7370656369616cull;
    const uint64_t o = s0 % period;
    const ElemType from = a.elem;
    d.buffers[a.name] = LazyBuffer(a, [s0, o, from, to, n, period](uint64_t i) -> uint64_t {
      uint64_t st = StateAt(s0, i);
      uint64_t own = Next(st);
      const SpecialSlot sl = ConversionSpecialSlot(n, static_cast<int>((i + o) % period));
      return ConversionSpecialFrom(from, to[static_cast<size_t>(sl.target)], sl.j, own);
    });
  }
  return d;
}

KernelData MakeAdversarialInputs(const Kernel& k, uint64_t seed) {
  return Fill(
      k, seed, 0x616476657273ull,
      // Element i draws a variable number of values: from a stream of its own,
      // seeded by value i of the buffer's stream.
      [](const Arg& a, uint64_t& s) {
        uint64_t own = Next(s);
        if (a.elem == ElemType::kF16 || a.elem == ElemType::kBF16) return AdversarialHalf(a.elem, own);
        return a.elem == ElemType::kI32 ? AdversarialI32(own) : AdversarialFloat(a.elem, own, false);
      },
      [](const Arg&) -> uint64_t { return 1; },
      [](const Arg& a, uint64_t& s) { return a.elem == ElemType::kI32 ? AdversarialI32(s) : AdversarialFloat(a.elem, s, true); });
}

KernelData MagnitudeInputs(const Kernel& k, const KernelData& in) {
  KernelData d;
  d.scalars = in.scalars;
  d.extra_args = in.extra_args;
  for (const auto& [name, bytes] : in.buffers) d.buffers.emplace(name, bytes);
  for (const Arg& a : k.args) {
    if (a.elem == ElemType::kI32) continue;
    if (a.kind == Arg::Kind::kScalar) {
      auto it = d.scalars.find(a.name);
      if (it != d.scalars.end()) it->second &= 0x7fffffffu;
      continue;
    }
    auto it = in.buffers.find(a.name);
    if (it == in.buffers.end()) continue;
    const PagedBytes& from = it->second;
    const uint64_t eb = static_cast<uint64_t>(ElemBytes(a.elem));
    // Clears the (little-endian) sign bit of every element of [off, off + n).
    auto clear_signs = [eb](uint64_t off, uint8_t* p, uint64_t n) {
      for (uint64_t b = (eb - 1 + eb - off % eb) % eb; b < n; b += eb) p[b] &= 0x7f;
    };
    std::shared_ptr<const PageFiller> filler;
    if (from.filler() != nullptr)
      filler = std::make_shared<const PageFiller>([inner = from.filler(), clear_signs](uint64_t off, uint8_t* p,
                                                                                      uint64_t n) {
        (*inner)(off, p, n);
        clear_signs(off, p, n);
      });
    PagedBytes mag(from.size(), std::move(filler));
    for (uint64_t page : from.MaterialisedPages()) {
      const uint64_t off = page * PagedBytes::kPageBytes, n = std::min(PagedBytes::kPageBytes, from.size() - off);
      uint8_t* p = mag.Touch(off, n);
      from.Read(off, p, n);
      clear_signs(off, p, n);
    }
    d.buffers[a.name] = std::move(mag);
  }
  return d;
}

KernelData MakeInputs(const Kernel& k, uint64_t seed) {
  KernelData d;
  for (const Arg& a : k.args) {
    uint64_t s = Hash(a.name, seed);
    if (a.kind == Arg::Kind::kScalar) {
      // f32: [0.5, 0.875) or [1.125, 2), never near 1, the identity of a
      // scale factor (review 6 F2: alpha = 1.0004 hid a dropped alpha
      // behind fp8 rounding).
      float x = 0.5f + 1.25f * Unit(s);
      if (x >= 0.875f) x += 0.25f;
      d.scalars[a.name] = a.elem == ElemType::kF32 ? F32Bits(x) : static_cast<uint32_t>(1 + Next(s) % 100);
      continue;
    }
    // Element i of a float buffer is value i of the buffer's stream; of an
    // i32 buffer value 2i + 1 (each element draws two values, the first unused).
    const ElemType t = a.elem;
    d.buffers[a.name] = LazyBuffer(a, [s, t](uint64_t i) -> uint64_t {
      if (t == ElemType::kI32) {
        uint64_t st = StateAt(s, 2 * i + 1);
        return static_cast<uint32_t>(static_cast<int32_t>(Next(st) % 2001) - 1000);
      }
      uint64_t st = StateAt(s, i);
      const float v = 2.0f * Unit(st) - 1.0f;
      switch (t) {
        case ElemType::kF32: return F32Bits(v);
        case ElemType::kF16: return F32ToF16Bits(v);
        case ElemType::kBF16: return F32ToBf16Bits(v);
        default: return F32ToFp8Bits(t, v);  // fp8: v in [-1, 1) is in range, never NaN
      }
    });
  }
  return d;
}

}  // namespace kir
