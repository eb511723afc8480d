#include "difftest/gen.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace kir::difftest {
namespace {

// splitmix64: a seed names the same kernel everywhere.
class Rng {
 public:
  // The seed goes through the mixer first, so seeds n and n + 1 do not give
  // streams shifted by one draw.
  explicit Rng(uint64_t seed) : s_(seed) { s_ = Next() ^ 0x6A09E667F3BCC909ull; }
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t Int(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Int(0, 99) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Int(0, static_cast<int64_t>(v.size()) - 1))];
  }

 private:
  uint64_t s_;
};

int64_t FloorDiv(int64_t a, int64_t d) { return a >= 0 ? a / d : -((-a + d - 1) / d); }

// An index expression as text with its interval, computed here by plain
// interval arithmetic (mod always [0, d - 1]): wider than or equal to kirc's.
struct Ix {
  std::string t;
  int64_t lo = 0, hi = 0;
};
Ix C(int64_t c) { return {c < 0 ? absl::StrCat("(", c, ")") : absl::StrCat(c), c, c}; }
Ix Add(const Ix& a, const Ix& b) { return {absl::StrCat("(", a.t, " + ", b.t, ")"), a.lo + b.lo, a.hi + b.hi}; }
Ix Sub(const Ix& a, const Ix& b) { return {absl::StrCat("(", a.t, " - ", b.t, ")"), a.lo - b.hi, a.hi - b.lo}; }
Ix Mul(const Ix& a, int64_t c) {
  if (c >= 0) return {absl::StrCat("(", a.t, " * ", c, ")"), a.lo * c, a.hi * c};
  return {absl::StrCat("(", a.t, " * ", c, ")"), a.hi * c, a.lo * c};
}
Ix Div(const Ix& a, int64_t d) { return {absl::StrCat("(", a.t, " floordiv ", d, ")"), FloorDiv(a.lo, d), FloorDiv(a.hi, d)}; }
Ix Mod(const Ix& a, int64_t d) { return {absl::StrCat("(", a.t, " mod ", d, ")"), 0, d - 1}; }
Ix Shift0(const Ix& a) { return a.lo == 0 ? a : Sub(a, C(a.lo)); }  // range [0, hi - lo]

// The fp8 types are storage only (docs/kir.md "fp8"): loads, stores,
// slices and cvt; gfx942 has the FNUZ pair, gfx950 the OCP pair. kFp8K and
// kBf8K appear only in the MFMA table: the kernel's flavour's e4m3 / e5m2.
enum class E { kF32, kF16, kBF16, kI32, kF8E4M3FNUZ, kF8E5M2FNUZ, kF8E4M3FN, kF8E5M2, kFp8K, kBf8K };
const char* EName(E e) {
  switch (e) {
    case E::kF32: return "f32";
    case E::kF16: return "f16";
    case E::kBF16: return "bf16";
    case E::kI32: return "i32";
    case E::kF8E4M3FNUZ: return "f8e4m3fnuz";
    case E::kF8E5M2FNUZ: return "f8e5m2fnuz";
    case E::kF8E4M3FN: return "f8e4m3fn";
    case E::kF8E5M2: return "f8e5m2";
    case E::kFp8K: return "fp8";
    case E::kBf8K: return "bf8";
  }
  return "?";
}
bool IsF8(E e) { return e >= E::kF8E4M3FNUZ; }
int EBytes(E e) { return IsF8(e) ? 1 : e == E::kF16 || e == E::kBF16 ? 2 : 4; }
bool IsFloat(E e) { return e != E::kI32; }
// The processor (index into kProcessors) that has fp8 type e: FNUZ gfx942,
// OCP gfx950 (compiler/target/target.cc Fp8ElemTypes).
int Fp8Home(E e) { return e == E::kF8E4M3FNUZ || e == E::kF8E5M2FNUZ ? 2 : 3; }

struct Ty {
  E e = E::kF32;
  int w = 1;
  bool operator==(const Ty& o) const { return e == o.e && w == o.w; }
};
std::string TyName(Ty t) { return t.w == 1 ? EName(t.e) : absl::StrCat(EName(t.e), "x", t.w); }

struct Val {
  std::string name;
  Ty ty;
};

// MFMAs of docs/kir.md's list, with the processors that have them (CDNA ISA
// guides: gfx942 dropped the 2-element bf16 forms; gfx908 has no 4-element
// bf16 ones; the 8-element f16/bf16 shapes and the f8f6f4 ones, 32 fp8 per
// lane, are gfx950's (CDNA4 ISA guide); the 8-element fp8/bf8 ones gfx942's
// and gfx950's, each on its own fp8 flavour). `gemm`: the tile-level gemm
// may name it in its mfma clause (f16/bf16/f32 ones of 4 or fewer elements).
struct Mfma {
  const char* name;
  E a, b;
  int ab_w, cd_w;
  bool on[4];  // gfx908, gfx90a, gfx942, gfx950
  bool gemm;
};
const std::vector<Mfma>& Mfmas() {
  static const std::vector<Mfma> m = [] {
    std::vector<Mfma> v = {
        {"f32_16x16x16_f16", E::kF16, E::kF16, 4, 4, {true, true, true, true}, true},
        {"f32_32x32x8_f16", E::kF16, E::kF16, 4, 16, {true, true, true, true}, true},
        {"f32_16x16x16_bf16", E::kBF16, E::kBF16, 4, 4, {false, true, true, true}, true},
        {"f32_32x32x8_bf16", E::kBF16, E::kBF16, 4, 16, {false, true, true, true}, true},
        {"f32_16x16x8_bf16", E::kBF16, E::kBF16, 2, 4, {true, true, false, false}, true},
        {"f32_32x32x4_bf16", E::kBF16, E::kBF16, 2, 16, {true, true, false, false}, true},
        {"f32_16x16x4_f32", E::kF32, E::kF32, 1, 4, {true, true, true, true}, true},
        {"f32_16x16x32_f16", E::kF16, E::kF16, 8, 4, {false, false, false, true}, false},
        {"f32_16x16x32_bf16", E::kBF16, E::kBF16, 8, 4, {false, false, false, true}, false},
        {"f32_32x32x16_f16", E::kF16, E::kF16, 8, 16, {false, false, false, true}, false},
        {"f32_32x32x16_bf16", E::kBF16, E::kBF16, 8, 16, {false, false, false, true}, false},
    };
    static const char* const kFp8Names[] = {
        "f32_16x16x32_fp8_fp8",   "f32_16x16x32_fp8_bf8",   "f32_16x16x32_bf8_fp8",   "f32_16x16x32_bf8_bf8",
        "f32_32x32x16_fp8_fp8",   "f32_32x32x16_fp8_bf8",   "f32_32x32x16_bf8_fp8",   "f32_32x32x16_bf8_bf8",
        "f32_16x16x128_fp8_fp8",  "f32_16x16x128_fp8_bf8",  "f32_16x16x128_bf8_fp8",  "f32_16x16x128_bf8_bf8",
        "f32_32x32x64_fp8_fp8",   "f32_32x32x64_fp8_bf8",   "f32_32x32x64_bf8_fp8",   "f32_32x32x64_bf8_bf8"};
    for (int i = 0; i < 16; ++i) {
      const int shape = i / 4;
      const E a = (i / 2) % 2 ? E::kBf8K : E::kFp8K, b = i % 2 ? E::kBf8K : E::kFp8K;
      const bool f8f6f4 = shape >= 2;
      v.push_back({kFp8Names[i], a, b, f8f6f4 ? 32 : 8, shape % 2 ? 16 : 4, {false, false, !f8f6f4, true}, false});
    }
    return v;
  }();
  return m;
}

struct LoopVar {
  std::string name;
  int64_t lo, step, trips;
};

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) { out_.seed = seed; }

  GeneratedKernel Run() {
    DrawTargets();
    if (rng_.Chance(14)) {
      GenGemm();
    } else {
      GenThreadLevel();
    }
    return out_;
  }

 private:
  void Tag(const std::string& f) { out_.features.insert(f); }

  // The processors (bit p: kProcessors[p]) that accept everything the
  // kernel uses so far: its MFMAs and fp8 types.
  unsigned Accepting() const {
    unsigned m = (1u << kNumProcessors) - 1;
    for (const Mfma* x : used_mfmas_) m &= MfmaMask(*x);
    for (E e : used_fp8_) m &= 1u << Fp8Home(e);
    return m;
  }

  // Fills out_.refusals from what the kernel uses: on each processor that
  // lacks one of its MFMAs or fp8 types, kirc's messages for them.
  void ComputeRefusals() {
    out_.refusals.clear();
    for (int p = 0; p < kNumProcessors; ++p) {
      for (const Mfma* x : used_mfmas_)
        if (!x->on[p]) out_.refusals[kProcessors[p]].insert(absl::StrCat("MFMA ", x->name, " does not exist on ", kProcessors[p]));
      for (E e : used_fp8_)
        if (Fp8Home(e) != p) out_.refusals[kProcessors[p]].insert(absl::StrCat(EName(e), " is not available on ", kProcessors[p]));
    }
  }

  // The `target` line: gfx942's target ID, or the newest processor up to
  // gfx942 that accepts the kernel (gfx950 when only it does), so `kirc run`
  // on a printed kernel works as is.
  std::string HomeTarget() {
    ComputeRefusals();
    for (int p = 2; p >= 0; --p)
      if (!out_.refusals.count(kProcessors[p])) return out_.target_ids[p];
    return out_.target_ids[3];
  }

  static unsigned MfmaMask(const Mfma& m) {
    unsigned r = 0;
    for (int p = 0; p < kNumProcessors; ++p)
      if (m.on[p]) r |= 1u << p;
    return r;
  }
  static bool MfmaTakesFp8(const Mfma& m) { return IsF8(m.a) || IsF8(m.b); }

  // The kernel's fp8 element type: its flavour's e4m3 (bf8 false) or e5m2.
  E Fp8Elem(bool bf8) const {
    if (fp8_ == 1) return bf8 ? E::kF8E5M2FNUZ : E::kF8E4M3FNUZ;
    return bf8 ? E::kF8E5M2 : E::kF8E4M3FN;
  }
  E Resolve(E e) const { return e == E::kFp8K ? Fp8Elem(false) : e == E::kBf8K ? Fp8Elem(true) : e; }

  // An MFMA the kernel may still use: one some processor that accepts the
  // kernel so far has (fp8 ones only in fp8 kernels, which prefer them), or
  // nullptr. Records it.
  const Mfma* PickMfma() {
    std::vector<const Mfma*> any, fp8;
    const unsigned acc = Accepting() & allowed_;
    for (const Mfma& m : Mfmas()) {
      if ((MfmaMask(m) & acc) == 0) continue;
      if (MfmaTakesFp8(m)) {
        if (fp8_ == 0) continue;
        // 32 fp8 per lane: a buffer each (no constant fills them), so only
        // while arguments remain.
        if (m.ab_w == 32 && buffers_ >= 12) continue;
        fp8.push_back(&m);
      }
      any.push_back(&m);
    }
    if (any.empty()) return nullptr;
    std::vector<const Mfma*> wide;  // gfx950's f8f6f4 shapes
    for (const Mfma* x : fp8)
      if (x->ab_w == 32) wide.push_back(x);
    const Mfma* m = !wide.empty() && rng_.Chance(40)  ? rng_.Pick(wide)
                    : !fp8.empty() && rng_.Chance(80) ? rng_.Pick(fp8)
                                                      : rng_.Pick(any);
    used_mfmas_.insert(m);
    return m;
  }

  void DrawTargets() {
    static const char* kSetting[] = {"", "+", "-"};
    const char* sramecc = kSetting[rng_.Int(0, 2)];
    const char* xnack = kSetting[rng_.Int(0, 2)];
    std::string feat;
    if (*sramecc) feat += absl::StrCat(":sramecc", sramecc);
    if (*xnack) feat += absl::StrCat(":xnack", xnack);
    for (const char* p : kProcessors) out_.target_ids.push_back(absl::StrCat(p, feat));
    Tag(absl::StrCat("target:sramecc", *sramecc ? sramecc : "-any"));
    Tag(absl::StrCat("target:xnack", *xnack ? xnack : "-any"));
  }

  // ---- thread-level kernels ------------------------------------------------

  // x * y * z = t, each factor drawn from the divisors of what is left.
  std::array<int64_t, 3> Factor(int64_t t, int dims) {
    std::array<int64_t, 3> f{t, 1, 1};
    if (dims == 1) return f;
    auto divisor = [&](int64_t n) {
      std::vector<int64_t> ds;
      for (int64_t d = 1; d <= n; ++d)
        if (n % d == 0) ds.push_back(d);
      return rng_.Pick(ds);
    };
    f[0] = divisor(t);
    f[1] = dims == 2 ? t / f[0] : divisor(t / f[0]);
    f[2] = t / f[0] / f[1];
    return f;
  }

  void GenThreadLevel() {
    out_.name = absl::StrCat("rk_", out_.seed);
    if (rng_.Chance(30)) {  // an fp8 kernel: gfx942's FNUZ or gfx950's OCP types
      fp8_ = rng_.Chance(50) ? 1 : 2;
      allowed_ = 1u << (fp8_ == 1 ? 2 : 3);
      Tag(fp8_ == 1 ? "fp8:flavour-fnuz" : "fp8:flavour-ocp");
    }
    static const std::vector<int64_t> kThreads = {64, 64, 64, 128, 128, 192, 256, 256, 512, 1024};
    threads_ = rng_.Pick(kThreads);
    int wdims = static_cast<int>(rng_.Int(1, 3));
    wg_ = Factor(threads_, wdims);
    groups_ = rng_.Int(1, 6);
    grid_ = Factor(groups_, static_cast<int>(rng_.Int(1, 3)));
    Tag(absl::StrCat("workgroup:", wdims, "-D"));
    Tag(absl::StrCat("grid:", (grid_[2] > 1 ? 3 : grid_[1] > 1 ? 2 : grid_[0] > 1 ? 1 : 0), "-D"));
    if (threads_ > 64) Tag("workgroup:multi-wave");
    // Index variables.
    const char* tn[] = {"tid.x", "tid.y", "tid.z"};
    const char* wn[] = {"wg.x", "wg.y", "wg.z"};
    for (int d = 0; d < 3; ++d) {
      tid_[d] = Ix{tn[d], 0, wg_[d] - 1};
      wgv_[d] = Ix{wn[d], 0, grid_[d] - 1};
    }
    lin_ = tid_[0];
    if (wg_[1] > 1 || rng_.Chance(20)) lin_ = Add(lin_, Mul(tid_[1], wg_[0]));
    if (wg_[2] > 1 || rng_.Chance(20)) lin_ = Add(lin_, Mul(tid_[2], wg_[0] * wg_[1]));
    Ix w = wgv_[0];
    if (grid_[1] > 1 || rng_.Chance(20)) w = Add(w, Mul(wgv_[1], grid_[0]));
    if (grid_[2] > 1 || rng_.Chance(20)) w = Add(w, Mul(wgv_[2], grid_[0] * grid_[1]));
    gid_ = Add(lin_, Mul(w, threads_));
    if (rng_.Chance(30)) {
      decls_.push_back(absl::StrCat("arg sf : f32"));
      scalars_.push_back({"sf", {E::kF32, 1}});
      Tag("arg:f32-scalar");
    }
    if (rng_.Chance(20)) {
      decls_.push_back(absl::StrCat("arg si : i32"));
      scalars_.push_back({"si", {E::kI32, 1}});
      Tag("arg:i32-scalar");
    }
    scopes_.emplace_back();
    int n = static_cast<int>(rng_.Int(3, 12));
    for (int i = 0; i < n; ++i) Step(0);
    // fp8 kernels: often an MFMA K loop too (it picks an fp8 MFMA mostly).
    if (fp8_ != 0 && loops_ < 4 && rng_.Chance(50)) MfmaKLoop(0);
    // Every value defined at the top level that nothing stored yet: store a
    // few, so the work shows in the outputs.
    int stores = 0;
    for (const Val& v : std::vector<Val>(scopes_.back())) {
      if (stored_.count(v.name) || stores >= 4) continue;
      StoreValue(v);
      ++stores;
    }
    if (outputs_ == 0) StoreValue(GetValue(RandomTy(true), 0), 0, true);
    std::string text = absl::StrCat("# random kernel, seed ", out_.seed, " (difftest)\nkernel ", out_.name,
                                    "\ntarget ", HomeTarget(), "\nworkgroup ", wg_[0], " ", wg_[1], " ",
                                    wg_[2], "\ngrid ", grid_[0], " ", grid_[1], " ", grid_[2], "\n");
    for (const std::string& d : decls_) absl::StrAppend(&text, d, "\n");
    for (const std::string& b : body_) absl::StrAppend(&text, b, "\n");
    absl::StrAppend(&text, "end\n");
    out_.text = std::move(text);
  }

  std::string Indent(int depth) const { return std::string(2 * (depth + 1), ' '); }
  void Emit(int depth, const std::string& line) { body_.push_back(Indent(depth) + line); }
  std::string NewName(const char* prefix) { return absl::StrCat(prefix, ++names_); }

  // A random value type; an fp8 one (widths up to 32) in fp8 kernels when
  // `fp8` (the caller only loads, stores, slices or converts it).
  Ty RandomTy(bool fp8 = false) {
    static const std::vector<E> kE = {E::kF32, E::kF32, E::kF16, E::kF16, E::kBF16, E::kI32};
    static const std::vector<int> kW = {1, 1, 2, 4, 4, 8, 16};
    if (fp8 && fp8_ != 0 && rng_.Chance(35)) {
      // (32 fp8 only while arguments remain: Load has no constant for them.)
      static const std::vector<int> kW8 = {1, 2, 4, 4, 8, 16, 32};
      Ty t{Fp8Elem(rng_.Chance(50)), rng_.Pick(kW8)};
      if (buffers_ >= 12) t.w = std::min(t.w, 16);
      return t;
    }
    return Ty{rng_.Pick(kE), rng_.Pick(kW)};
  }

  void UseType(E e) {
    if (!IsF8(e)) return;
    used_fp8_.insert(e);
    Tag(absl::StrCat("fp8:type-", EName(e)));
  }

  void Define(const Val& v) {
    scopes_.back().push_back(v);
    UseType(v.ty.e);
    if (IsF8(v.ty.e)) {
      Tag(absl::StrCat("fp8:width-", v.ty.w));
    } else {
      Tag(absl::StrCat("type:", TyName(v.ty)));
    }
  }

  std::vector<Val> Visible(Ty t) const {
    std::vector<Val> r;
    for (const auto& s : scopes_)
      for (const Val& v : s)
        if (v.ty == t) r.push_back(v);
    return r;
  }

  // One random step of the body at loop depth `depth`.
  void Step(int depth) {
    int what = static_cast<int>(rng_.Int(0, 99));
    if (what < 18) {
      Define(Load(RandomTy(true), depth));
    } else if (what < 40) {
      Elementwise(depth);
    } else if (what < 47) {
      Cvt(depth);
    } else if (what < 53) {
      if (rng_.Chance(40)) {
        Concat(depth);
      } else {
        Slice(depth);
      }
    } else if (what < 58) {
      Define(Constant(RandomTy(), depth));
    } else if (what < 68) {
      if (depth < 3 && loops_ < 4 && rng_.Chance(35)) {
        MfmaKLoop(depth);
      } else {
        MfmaOp(depth);
      }
    } else if (what < 78) {
      std::vector<Val> all;
      for (const auto& s : scopes_) all.insert(all.end(), s.begin(), s.end());
      if (!all.empty()) StoreValue(rng_.Pick(all), depth);
    } else if (what < 88) {
      if (depth < 3 && loops_ < 4) Loop(depth);
    } else if (what < 97) {
      if (lds_bytes_ < 32768) LdsStaging(depth);
    } else if (what < 99) {
      if (depth == 0) ReadWrite();
    } else {
      Emit(depth, "barrier");
      Tag("op:barrier");
    }
  }

  // A value of type t: an existing one, or one made here.
  Val GetValue(Ty t, int depth) {
    std::vector<Val> have = Visible(t);
    if (!have.empty() && rng_.Chance(60)) return rng_.Pick(have);
    int how = static_cast<int>(rng_.Int(0, 9));
    Val v;
    if (IsF8(t.e)) {
      // fp8 values come from loads and conversions only (no fp8 constants;
      // f32 and the others stop at 16 elements).
      if (how < 6 || t.w > 16) {
        v = Load(t, depth);
      } else {
        v = CvtToFp8(t, depth);
      }
    } else if (how < 6) {
      v = Load(t, depth);
    } else if (how < 8 && IsFloat(t.e)) {
      // cvt from another float type of the same width (an fp8 one too in fp8
      // kernels)
      static const std::vector<E> kF = {E::kF32, E::kF16, E::kBF16};
      E from = rng_.Pick(kF);
      if (from == t.e) from = t.e == E::kF32 ? E::kF16 : E::kF32;
      if (fp8_ != 0 && rng_.Chance(25)) from = Fp8Elem(rng_.Chance(50));
      Val src = GetValue({from, t.w}, depth);
      v = {NewName("v"), t};
      Emit(depth, absl::StrCat("%", v.name, " = cvt %", src.name, " : ", TyName(t)));
      Tag("op:cvt");
      Tag(absl::StrCat("cvt:", CvtName(from), "->", CvtName(t.e)));
    } else {
      v = Constant(t, depth);
    }
    Define(v);
    return v;
  }

  Val Constant(Ty t, int depth) {
    Val v{NewName("c"), t};
    if (rng_.Chance(25)) {
      Emit(depth, absl::StrCat("%", v.name, " = zero ", TyName(t)));
      Tag("op:zero");
      return v;
    }
    std::string c;
    if (t.e == E::kI32) {
      // Small integers mostly; sometimes large ones, so products wrap.
      c = absl::StrCat(rng_.Chance(85) ? rng_.Int(-100, 100) : rng_.Int(-2147483647 - 1, 2147483647));
    } else {
      static const std::vector<std::string> kC = {"0.5", "1", "1.5", "2", "-1", "0.25", "-0.75", "3",
                                                  "0x1p-3", "0x1.8p-3", "-2.5", ".5", "1e0", "-0"};
      c = rng_.Chance(2) ? (rng_.Chance(50) ? "inf" : "nan") : rng_.Pick(kC);
      if (c == "inf" || c == "nan") Tag("const:non-finite");
    }
    Emit(depth, absl::StrCat("%", v.name, " = const ", TyName(t), " ", c));
    Tag("op:const");
    return v;
  }

  void Elementwise(int depth) {
    Ty t = RandomTy();
    static const char* kOps[] = {"add", "mul", "fma"};
    int op = static_cast<int>(rng_.Int(0, IsFloat(t.e) ? 2 : 1));
    std::vector<std::string> operands;
    for (int i = 0; i < (op == 2 ? 3 : 2); ++i) {
      // A broadcast operand: a width-1 f32/i32 value or a scalar argument.
      if (t.w > 1 && EBytes(t.e) == 4 && rng_.Chance(25)) {
        std::vector<Val> sc;
        for (const Val& s : scalars_)
          if (s.ty.e == t.e) sc.push_back(s);
        if (!sc.empty() && rng_.Chance(50)) {
          operands.push_back(rng_.Pick(sc).name);
          Tag("operand:scalar-arg");
          continue;
        }
        operands.push_back("%" + GetValue({t.e, 1}, depth).name);
        Tag("operand:broadcast");
        continue;
      }
      if (t.w == 1 && EBytes(t.e) == 4 && rng_.Chance(15)) {
        std::vector<Val> sc;
        for (const Val& s : scalars_)
          if (s.ty.e == t.e) sc.push_back(s);
        if (!sc.empty()) {
          operands.push_back(rng_.Pick(sc).name);
          Tag("operand:scalar-arg");
          continue;
        }
      }
      operands.push_back("%" + GetValue(t, depth).name);
    }
    // At least one operand must carry the width (scalars broadcast).
    bool wide = false;
    for (const std::string& o : operands) {
      if (o[0] != '%') continue;
      for (const auto& s : scopes_)
        for (const Val& v : s)
          if ("%" + v.name == o && v.ty.w == t.w) wide = true;
    }
    if (!wide) operands[0] = "%" + GetValue(t, depth).name;
    Val r{NewName("v"), t};
    Emit(depth, absl::StrCat("%", r.name, " = ", kOps[op], " ", absl::StrJoin(operands, ", ")));
    Tag(absl::StrCat("op:", kOps[op]));
    Tag(absl::StrCat("op:", kOps[op], ":", EName(t.e)));
    Define(r);
  }

  void Cvt(int depth) {
    static const std::vector<E> kF = {E::kF32, E::kF16, E::kBF16};
    static const std::vector<int> kW = {1, 2, 4, 8, 16};
    if (fp8_ != 0 && rng_.Chance(60)) {
      const Ty t{Fp8Elem(rng_.Chance(50)), rng_.Pick(kW)};
      if (rng_.Chance(50)) {
        Define(CvtToFp8(t, depth));
      } else {
        static const std::vector<E> kTo = {E::kF32, E::kF32, E::kF16, E::kBF16};
        Val src = GetValue(t, depth);
        Val r{NewName("v"), {rng_.Pick(kTo), t.w}};
        Emit(depth, absl::StrCat("%", r.name, " = cvt %", src.name, " : ", TyName(r.ty)));
        Tag("op:cvt");
        Tag(absl::StrCat("cvt:fp8->", EName(r.ty.e)));
        Define(r);
      }
      return;
    }
    E from = rng_.Pick(kF), to = rng_.Pick(kF);
    if (from == to) to = from == E::kF32 ? E::kBF16 : E::kF32;
    int w = rng_.Pick(kW);
    Val src = GetValue({from, w}, depth);
    Val r{NewName("v"), {to, w}};
    Emit(depth, absl::StrCat("%", r.name, " = cvt %", src.name, " : ", TyName(r.ty)));
    Tag("op:cvt");
    Tag(absl::StrCat("cvt:", EName(from), "->", EName(to)));
    Define(r);
  }

  static std::string CvtName(E e) { return IsF8(e) ? "fp8" : EName(e); }

  // %r = cvt SRC : t for fp8 type t (width up to 16), SRC f32 mostly, else
  // f16 or bf16. The source is sometimes a constant that tests the rounding
  // (ties to even), saturation (beyond the format's max, ties beyond it,
  // infinities), NaN and subnormals, or a value scaled by one, so that the
  // random inputs reach those cases too (adversarial ones reach them anyway).
  Val CvtToFp8(Ty t, int depth) {
    static const std::vector<E> kFrom = {E::kF32, E::kF32, E::kF32, E::kF16, E::kBF16};
    const E from = rng_.Pick(kFrom);
    Val src;
    const int how = static_cast<int>(rng_.Int(0, 9));
    if (how < 3) {
      // Exact in f32, f16 and bf16 (f32 only: the last row). e4m3 ties:
      // 1.0625, 1.1875; e5m2 ties: 1.125, 1.375; max: 240 (e4m3fnuz), 448
      // (e4m3fn), 57344 (e5m2); ties beyond max: 248, 464, 61440; smallest
      // subnormals 2^-10 (e4m3fnuz), 2^-9 (e4m3fn), 2^-17 / 2^-16 (e5m2),
      // half of them and one and a half.
      static const std::vector<std::string> kC = {"1.0625", "-1.1875", "1.125", "1.375", "240", "241", "248",
                                                  "-448", "464", "480", "57344", "61440", "-inf", "inf", "nan",
                                                  "0x1p-10", "0x1p-11", "0x1.8p-10", "0x1p-18", "0x1.8p-17",
                                                  "-0", "0x1p-9", "0x1.8p-16", "2.5", "-3"};
      static const std::vector<std::string> kC32 = {"1e10", "0x1.fffffep127", "65535", "0x1.0000020p0",
                                                    "0x1.08p0"};
      std::string c = from == E::kF32 && rng_.Chance(20) ? rng_.Pick(kC32) : rng_.Pick(kC);
      src = {NewName("c"), {from, t.w}};
      Emit(depth, absl::StrCat("%", src.name, " = const ", TyName(src.ty), " ", c));
      Tag("op:const");
      Tag("fp8:cvt-special-input");
      Define(src);
    } else if (how < 6 && from == E::kF32) {
      static const std::vector<std::string> kS = {"16", "300", "0x1p10", "0x1p20", "0x1p-12", "1e10", "-4096",
                                                  "inf", "0x1.1p0"};
      Val x = GetValue({E::kF32, t.w}, depth);
      Val sc{NewName("c"), {E::kF32, 1}};
      Emit(depth, absl::StrCat("%", sc.name, " = const f32 ", rng_.Pick(kS)));
      Define(sc);
      src = {NewName("v"), {E::kF32, t.w}};
      Emit(depth, absl::StrCat("%", src.name, " = mul %", x.name, ", %", sc.name));
      Tag("op:mul");
      Tag("fp8:cvt-scaled-input");
      Define(src);
    } else {
      src = GetValue({from, t.w}, depth);
    }
    Val r{NewName("v"), t};
    Emit(depth, absl::StrCat("%", r.name, " = cvt %", src.name, " : ", TyName(t)));
    Tag("op:cvt");
    Tag(absl::StrCat("cvt:", EName(from), "->fp8"));
    return r;
  }

  void Slice(int depth) {
    static const std::vector<int> kW = {2, 4, 8, 16};
    static const std::vector<int> kW8 = {4, 8, 16, 32};
    Ty from = RandomTy(true);
    from.w = rng_.Pick(IsF8(from.e) ? kW8 : kW);
    if (IsF8(from.e) && buffers_ >= 12) from.w = std::min(from.w, 16);
    std::vector<int> widths;
    for (int w : {1, 2, 4, 8, 16})
      if (w < from.w && (w < 16 || IsF8(from.e))) widths.push_back(w);
    int w = rng_.Pick(widths);
    int first = static_cast<int>(rng_.Int(0, from.w - w));
    if (EBytes(from.e) == 2) first &= ~1;
    if (EBytes(from.e) == 1) {  // fp8: a register boundary
      first &= ~3;
      Tag("fp8:slice");
    }
    Val src = GetValue(from, depth);
    Val r{NewName("v"), {from.e, w}};
    Emit(depth, absl::StrCat("%", r.name, " = slice %", src.name, ", ", first, " : ", TyName(r.ty)));
    Tag("op:slice");
    Define(r);
  }

  // concat of two values of one type (whole registers each: 16-bit halves
  // of 2 or more elements, fp8 of 4 or more), sometimes one value twice.
  void Concat(int depth) {
    Ty half = RandomTy(true);
    const int min_w = EBytes(half.e) == 2 ? 2 : EBytes(half.e) == 1 ? 4 : 1;
    std::vector<int> widths;
    for (int w : {1, 2, 4, 8, 16})
      if (w >= min_w && 2 * w <= (IsF8(half.e) && buffers_ < 12 ? 32 : 16)) widths.push_back(w);
    half.w = rng_.Pick(widths);
    Val a = GetValue(half, depth);
    Val b = rng_.Chance(15) ? a : GetValue(half, depth);
    Val r{NewName("v"), {half.e, 2 * half.w}};
    Emit(depth, absl::StrCat("%", r.name, " = concat %", a.name, ", %", b.name, " : ", TyName(r.ty)));
    Tag("op:concat");
    if (IsF8(half.e)) Tag("fp8:concat");
    Define(r);
  }

  void MfmaOp(int depth) {
    const Mfma* mp = PickMfma();
    if (mp == nullptr) return;
    const Mfma& m = *mp;
    Val a = GetValue({Resolve(m.a), m.ab_w}, depth);
    Val b = GetValue({Resolve(m.b), m.ab_w}, depth);
    Val c = GetValue({E::kF32, m.cd_w}, depth);
    Val d{NewName("d"), {E::kF32, m.cd_w}};
    Emit(depth, absl::StrCat("%", d.name, " = mfma ", m.name, " %", a.name, ", %", b.name, ", %", c.name));
    Tag("op:mfma");
    Tag(absl::StrCat("mfma:", m.name));
    Define(d);
  }

  // A K loop around one MFMA: the accumulator an iter_arg, A and B loaded in
  // the body (indices that may use the loop variable), the result used
  // after it.
  void MfmaKLoop(int depth) {
    const Mfma* mp = PickMfma();
    if (mp == nullptr) return;
    const Mfma& m = *mp;
    ++loops_;
    static const std::vector<int64_t> kStep = {1, 1, 4, 8, 16, 32};
    LoopVar l;
    l.name = NewName("k");
    l.lo = rng_.Int(-4, 8);
    l.step = rng_.Pick(kStep);
    l.trips = rng_.Int(1, depth > 0 ? 3 : 5);
    const int64_t hi = l.lo + (l.trips - 1) * l.step + 1 + rng_.Int(0, l.step - 1);
    Val c0 = GetValue({E::kF32, m.cd_w}, depth);
    Val it{NewName("a"), {E::kF32, m.cd_w}};
    Val res{NewName("r"), {E::kF32, m.cd_w}};
    Emit(depth, absl::StrCat("%", res.name, " = for %", l.name, " = ", l.lo, " to ", hi, " step ", l.step, " iter(%",
                             it.name, " = %", c0.name, ") {"));
    Tag("op:for");
    Tag("loop:mfma-k");
    if (depth > 0) Tag("loop:nested");
    scopes_.emplace_back(std::vector<Val>{it});
    loops_in_scope_.push_back(l);
    auto operand = [&](E e) {
      Ty t{Resolve(e), m.ab_w};
      if (!rng_.Chance(75)) return GetValue(t, depth + 1);
      Val v = Load(t, depth + 1);
      Define(v);
      return v;
    };
    Val a = operand(m.a);
    Val b = operand(m.b);
    Val d{NewName("d"), {E::kF32, m.cd_w}};
    Emit(depth + 1, absl::StrCat("%", d.name, " = mfma ", m.name, " %", a.name, ", %", b.name, ", %", it.name));
    Define(d);
    Emit(depth + 1, absl::StrCat("yield %", d.name));
    Emit(depth, "}");
    loops_in_scope_.pop_back();
    scopes_.pop_back();
    Tag("op:mfma");
    Tag(absl::StrCat("mfma:", m.name));
    Define(res);
  }

  // ---- index expressions ---------------------------------------------------

  // A random index expression over the thread, workgroup and loop variables
  // in scope: sums, differences, products by constants, floordiv and mod by
  // powers of two and others, negative intermediates.
  Ix RandIx(int depth_left) {
    if (depth_left <= 0 || rng_.Chance(30)) {
      int pick = static_cast<int>(rng_.Int(0, 9));
      if (pick < 4) return tid_[rng_.Int(0, 2)];
      if (pick < 6) return wgv_[rng_.Int(0, 2)];
      if (pick < 8 && !loops_in_scope_.empty()) {
        const LoopVar& l = rng_.Pick(loops_in_scope_);
        Tag("index:loop-var");
        return Ix{"%" + l.name, l.lo, l.lo + (l.trips - 1) * l.step};
      }
      if (pick < 9) return lin_;
      return C(rng_.Int(-40, 40));
    }
    static const std::vector<int64_t> kDiv = {2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 64, 100, 1009};
    int op = static_cast<int>(rng_.Int(0, 5));
    Ix a = RandIx(depth_left - 1);
    switch (op) {
      case 0: return Add(a, RandIx(depth_left - 1));
      case 1: {
        Ix s = Sub(RandIx(depth_left - 1), a);
        if (s.lo < 0) Tag("index:negative-intermediate");
        return s;
      }
      case 2: {
        if (rng_.Chance(25)) {  // a product of two variable expressions
          Ix b = RandIx(0);
          if (b.lo != b.hi && a.lo != a.hi) {
            int64_t c[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
            Tag("index:product-of-variables");
            return {absl::StrCat("(", a.t, " * ", b.t, ")"), *std::min_element(c, c + 4),
                    *std::max_element(c, c + 4)};
          }
        }
        return Mul(a, rng_.Int(-3, 5));
      }
      case 3: {
        int64_t d = rng_.Pick(kDiv);
        if (a.lo < 0) Tag("index:floordiv-negative");
        if ((d & (d - 1)) != 0) Tag("index:floordiv-non-pow2");
        return Div(a, d);
      }
      case 4: {
        int64_t d = rng_.Pick(kDiv);
        if (a.lo < 0) Tag("index:mod-negative");
        if ((d & (d - 1)) != 0) Tag("index:mod-non-pow2");
        return Mod(a, d);
      }
      default: return Add(a, C(rng_.Int(-70, 70)));
    }
  }

  // An expression injective on [0, m) mapping into [0, m): x, m-1-x, an
  // affine map mod m with a unit multiplier, or a transposition.
  Ix Perm(const Ix& x, int64_t m) {
    int how = static_cast<int>(rng_.Int(0, 3));
    if (m == 1) return x;
    if (how == 1) {
      Tag("index:reversed");
      return Sub(C(m - 1), x);
    }
    if (how == 2) {
      int64_t a = 1;
      for (int tries = 0; tries < 10; ++tries) {
        int64_t c = rng_.Int(1, 2 * m);
        if (std::gcd(c, m) == 1) {
          a = c;
          break;
        }
      }
      Tag("index:affine-permutation");
      return Mod(Add(Mul(x, a), C(rng_.Int(0, m - 1))), m);
    }
    if (how == 3) {
      std::vector<int64_t> rs;
      for (int64_t r = 2; r < m; ++r)
        if (m % r == 0) rs.push_back(r);
      if (!rs.empty()) {
        int64_t r = rng_.Pick(rs), cc = m / r;
        Tag("index:transpose");
        return Add(Mul(Mod(x, r), cc), Div(x, r));
      }
    }
    return x;
  }

  // ---- buffers ---------------------------------------------------------------

  struct Dim {
    Ix idx;
    int64_t extent;
  };

  // Declares a buffer with the given dimensions, vector width w along `along`,
  // and strides from a random memory order with optional padding; returns the
  // access text "NAME[i, j, ...]" (and " along D" when not the last).
  std::string DeclareBuffer(const std::string& name, E e, std::vector<Dim> dims, int along, int w,
                            const char* access, bool allow_broadcast) {
    int rank = static_cast<int>(dims.size());
    std::vector<int> order(rank);  // memory order, innermost first
    std::iota(order.begin(), order.end(), 0);
    std::reverse(order.begin(), order.end());  // row-major
    if (rank > 1 && rng_.Chance(25)) {
      for (int i = rank - 1; i > 0; --i) std::swap(order[i], order[rng_.Int(0, i)]);
      Tag("layout:permuted-strides");
    }
    // The vector needs min(w * bytes, 16)-byte alignment when its dimension's
    // stride is 1 (whatever the memory order: extent-1 dimensions inside it
    // leave it at 1): every other dimension's stride is a multiple of that
    // many elements, and the along index is a multiple of w (or 0).
    int64_t need_elems = w > 1 ? std::max<int64_t>(1, std::min<int64_t>(w * EBytes(e), 16) / EBytes(e)) : 1;
    std::vector<int64_t> strides(rank);
    int64_t running = 1;
    for (int i = 0; i < rank; ++i) {
      int d = order[i];
      int64_t s = running;
      if (d != along && s % need_elems != 0) s += need_elems - s % need_elems;
      strides[d] = s;
      int64_t span = s * dims[d].extent;
      if (rng_.Chance(20)) {
        span += rng_.Int(1, 9);
        Tag("layout:padded");
      }
      running = span;
    }
    if (allow_broadcast && rank > 1 && rng_.Chance(15)) {
      int d = static_cast<int>(rng_.Int(0, rank - 1));
      if (d != along) {
        strides[d] = 0;
        Tag("layout:stride-0");
      }
    }
    std::vector<std::string> ex, st, ix;
    for (int d = 0; d < rank; ++d) {
      ex.push_back(absl::StrCat(dims[d].extent));
      st.push_back(absl::StrCat(strides[d]));
      ix.push_back(dims[d].idx.t);
    }
    UseType(e);
    decls_.push_back(absl::StrCat("arg ", name, " : ", EName(e), "[", absl::StrJoin(ex, ", "), "] strides [",
                                  absl::StrJoin(st, ", "), "] ", access));
    return absl::StrCat(name, "[", absl::StrJoin(ix, ", "), "]", along != rank - 1 ? absl::StrCat(" along ", along) : "");
  }

  // A load from a new readonly buffer.
  Val Load(Ty t, int depth) {
    // Bounded kernel arguments: a constant instead (fp8: a converted one; 32
    // fp8 per lane have no such form, PickMfma keeps two arguments for them).
    if (buffers_ >= 14 && !(IsF8(t.e) && t.w > 16)) {
      if (!IsF8(t.e)) return Constant(t, depth);
      Val c = Constant({E::kF32, t.w}, depth);
      Define(c);
      Val v{NewName("v"), t};
      Emit(depth, absl::StrCat("%", v.name, " = cvt %", c.name, " : ", TyName(t)));
      Tag("op:cvt");
      return v;
    }
    int rank = static_cast<int>(rng_.Int(1, 3));
    bool guarded = rng_.Chance(30);
    int along = rng_.Chance(80) ? rank - 1 : static_cast<int>(rng_.Int(0, rank - 1));
    std::vector<Dim> dims;
    for (int d = 0; d < rank; ++d) {
      // Small buffers: at most 4096, 256 or 40 elements per dimension for
      // ranks 1, 2, 3 (a larger index range is taken mod a prime).
      static const int64_t kCap[] = {4096, 256, 40};
      const int64_t cap = kCap[rank - 1] / (d == along ? t.w : 1);
      Ix e;
      for (int tries = 0;; ++tries) {
        e = RandIx(static_cast<int>(rng_.Int(0, 3)));
        if (e.hi - e.lo < cap || tries > 20) break;
      }
      if (e.hi - e.lo >= cap) e = Mod(e, cap >= 37 ? 37 : std::max<int64_t>(1, cap));
      int64_t extent;
      if (guarded) {
        // Any extent: out-of-shape elements read as 0.
        int64_t span = std::max<int64_t>(1, e.hi + 1);
        extent = rng_.Int(1, std::max<int64_t>(1, std::min<int64_t>(span + 8, cap)));
        if (d == along && t.w > 1) {
          // The extent need not be a multiple of the width: the last vector
          // may straddle the end of the shape.
          e = Mul(e, t.w);
          extent = std::max<int64_t>(1, extent * t.w - rng_.Int(0, t.w - 1));
          if (extent % t.w) Tag(IsF8(t.e) ? "fp8:partial-vector" : "access:partial-vector");
        }
      } else {
        e = Shift0(e);
        extent = e.hi + 1;
        if (d == along && t.w > 1) {
          e = Mul(e, t.w);
          extent = e.hi + t.w;
        }
      }
      dims.push_back({e, extent});
    }
    std::string name = NewName("in");
    std::string acc = DeclareBuffer(name, t.e, dims, along, t.w, "readonly", true);
    Val v{NewName("v"), t};
    Emit(depth, absl::StrCat("%", v.name, " = load ", guarded ? "guarded " : "", acc, " : ", TyName(t)));
    Tag("op:load");
    Tag(guarded ? "access:global-load-guarded" : "access:global-load");
    if (along != rank - 1) Tag("access:along");
    ++buffers_;
    return v;
  }

  // The thread-injective part of an output index: dims whose tuple differs
  // for every work-item of the dispatch.
  std::vector<Dim> ThreadKey() {
    const int64_t n = threads_ * groups_;
    int style = static_cast<int>(rng_.Int(0, 2));
    if (style == 0) {
      Ix k = Perm(gid_, n);
      return {{k, n}};
    }
    if (style == 1) {
      static const std::vector<int64_t> kB = {3, 5, 7, 8, 16, 64, 100};
      int64_t b = rng_.Pick(kB), c = rng_.Int(-n, n);
      Ix x = Add(Perm(gid_, n), C(c));
      Ix q = Div(x, b);
      Tag("index:split-floordiv-mod");
      if (x.lo < 0) Tag("index:negative-intermediate");
      return {{Shift0(q), q.hi - q.lo + 1}, {Mod(x, b), b}};
    }
    // The coordinates themselves, in a random order.
    std::vector<Dim> dims;
    for (int d = 0; d < 3; ++d) {
      if (wg_[d] > 1 || rng_.Chance(10)) dims.push_back({tid_[d], wg_[d]});
      if (grid_[d] > 1 || rng_.Chance(10)) dims.push_back({wgv_[d], grid_[d]});
    }
    for (int i = static_cast<int>(dims.size()) - 1; i > 0; --i) std::swap(dims[i], dims[rng_.Int(0, i)]);
    if (dims.size() > 3) {  // fold to keep the rank small: the linear id instead
      Ix k = Perm(gid_, n);
      return {{k, n}};
    }
    Tag("index:coordinates");
    return dims;
  }

  // Stores v to a new output buffer at an index injective over work-items
  // and the iterations of the enclosing loops.
  void StoreValue(const Val& v, int depth = 0, bool force = false) {
    if (buffers_ >= 12 && !force) return;
    std::vector<Dim> dims;
    for (const LoopVar& l : loops_in_scope_) {
      Ix k{"%" + l.name, l.lo, l.lo + (l.trips - 1) * l.step};
      if (l.step > 1 && rng_.Chance(50)) {
        Ix q = Div(Sub(k, C(l.lo)), l.step);
        dims.push_back({q, l.trips});
      } else {
        Ix s = Shift0(k);
        dims.push_back({s, s.hi + 1});
      }
      Tag("store:in-loop");
    }
    for (const Dim& d : ThreadKey()) dims.push_back(d);
    int along;
    if (v.ty.w == 1) {
      along = static_cast<int>(dims.size()) - 1;
    } else {
      int style = static_cast<int>(rng_.Int(0, 2));
      if (style == 0) {  // a trailing dimension of the vector's width
        dims.push_back({C(0), v.ty.w});
        along = static_cast<int>(dims.size()) - 1;
      } else if (style == 1) {  // the last dimension scaled by the width
        Dim& last = dims.back();
        last.idx = Mul(last.idx, v.ty.w);
        last.extent *= v.ty.w;
        along = static_cast<int>(dims.size()) - 1;
      } else {  // a dimension of the vector's width somewhere else
        int at = static_cast<int>(rng_.Int(0, static_cast<int64_t>(dims.size())));
        dims.insert(dims.begin() + at, Dim{C(0), v.ty.w});
        along = at;
      }
    }
    // A guarded store: the shape leaves out some work-items' elements (the
    // last dimension cut short, at either end), and a vector may straddle it.
    bool guarded = rng_.Chance(20);
    if (guarded) {
      Dim& last = dims.back();
      int64_t cut = rng_.Int(1, std::max<int64_t>(1, last.extent - 1));
      const bool vector_dim = along == static_cast<int>(dims.size()) - 1 && v.ty.w > 1;
      if (rng_.Chance(50)) {
        last.extent = std::max<int64_t>(1, last.extent - cut);
      } else {
        if (vector_dim) cut = std::max<int64_t>(v.ty.w, cut / v.ty.w * v.ty.w);  // keeps the alignment
        last.idx = Sub(last.idx, C(cut));
        last.extent = std::max<int64_t>(1, last.extent - cut);
        Tag("index:negative-intermediate");
      }
      if (along == static_cast<int>(dims.size()) - 1 && v.ty.w > 1 && last.extent % v.ty.w) Tag("access:partial-vector");
      Tag("access:global-store-guarded");
    }
    if (dims.size() > 6) return;  // (only with three nested loops)
    ++buffers_;
    ++outputs_;
    std::string name = NewName("out");
    std::string acc = DeclareBuffer(name, v.ty.e, dims, along, v.ty.w, "writeonly", false);
    Emit(depth, absl::StrCat("store ", guarded ? "guarded " : "", acc, ", %", v.name));
    stored_.insert(v.name);
    Tag("op:store");
    Tag(absl::StrCat("store:", TyName(v.ty)));
  }

  // A read-modify-write of the thread's own elements of a readwrite buffer.
  void ReadWrite() {
    Ty t = RandomTy(false);
    std::vector<Dim> dims = ThreadKey();
    int along = static_cast<int>(dims.size()) - 1;
    if (t.w > 1) {
      dims.back().idx = Mul(dims.back().idx, t.w);
      dims.back().extent *= t.w;
    }
    std::string name = NewName("rw");
    ++buffers_;
    ++outputs_;
    std::string acc = DeclareBuffer(name, t.e, dims, along, t.w, "readwrite", false);
    Val old{NewName("v"), t};
    Emit(0, absl::StrCat("%", old.name, " = load ", acc, " : ", TyName(t)));
    Define(old);
    Val other = GetValue(t, 0);
    Val r{NewName("v"), t};
    Emit(0, absl::StrCat("%", r.name, " = ", rng_.Chance(50) ? "add" : "mul", " %", old.name, ", %", other.name));
    Define(r);
    Emit(0, absl::StrCat("store ", acc, ", %", r.name));
    stored_.insert(r.name);
    Tag("access:readwrite");
  }

  // ---- LDS -------------------------------------------------------------------

  // Every thread of the workgroup stores one vector to LDS so that every
  // in-shape element is written; a barrier; then each thread loads a vector
  // from anywhere in the shape (or out of it, guarded). Inside a loop a
  // second barrier ends the iteration's use before the next one's stores.
  void LdsStaging(int depth) {
    static const std::vector<E> kE = {E::kF32, E::kF16, E::kBF16, E::kI32};
    static const std::vector<int> kW = {1, 2, 4, 4, 8};
    static const std::vector<int> kW8 = {1, 2, 4, 4, 8, 16};
    Ty t{rng_.Pick(kE), rng_.Pick(kW)};
    if (fp8_ != 0 && rng_.Chance(40)) {
      t = {Fp8Elem(rng_.Chance(50)), rng_.Pick(kW8)};
      Tag("fp8:lds");
    }
    const int eb = EBytes(t.e);
    // Row padding keeps rows aligned for loads up to twice the stored width.
    const int64_t need = std::max<int64_t>(1, std::min<int64_t>(2 * t.w * eb, 16) / eb);  // elements
    std::string name = NewName("L");
    int style = static_cast<int>(rng_.Int(0, 3));
    std::vector<int64_t> shape;
    std::vector<Ix> sidx;
    bool guarded_store = false;
    int64_t pad = 0;
    if (style == 0) {  // 1-D, a permutation of the threads
      shape = {threads_ * t.w};
      sidx = {Mul(Perm(lin_, threads_), t.w)};
      if (t.w == 1) sidx[0] = Perm(lin_, threads_);
    } else if (style == 1) {  // 1-D, c - lin or lin - c, guarded
      int64_t c = rng_.Int(threads_ / 2, threads_ - 1);
      guarded_store = true;
      if (rng_.Chance(50)) {
        shape = {(c + 1) * t.w};
        sidx = {Mul(Sub(C(c), lin_), t.w)};
        Tag("access:lds-negative-thread-coefficient");
      } else {
        shape = {(threads_ - c) * t.w};
        sidx = {Mul(Sub(lin_, C(c)), t.w)};
      }
    } else if (style == 2) {  // 2-D rows with padding
      std::vector<int64_t> cs;
      for (int64_t c = 1; c <= threads_; ++c)
        if (threads_ % c == 0) cs.push_back(c);
      int64_t cols = rng_.Pick(cs);
      Ix s = Perm(lin_, threads_);
      shape = {threads_ / cols, cols * t.w};
      sidx = {Div(s, cols), Mul(Mod(s, cols), t.w)};
      pad = need * rng_.Int(0, 3);
    } else {  // 3-D, negative thread coefficients, guarded, padded
      int64_t cx = rng_.Int(0, wg_[0] - 1);
      shape = {wg_[2], wg_[1], (cx + 1) * t.w};
      sidx = {Sub(C(wg_[2] - 1), tid_[2]), Sub(C(wg_[1] - 1), tid_[1]), Mul(Sub(C(cx), tid_[0]), t.w)};
      guarded_store = cx < wg_[0] - 1;
      pad = need * rng_.Int(0, 2);
      Tag("access:lds-negative-thread-coefficient");
    }
    int64_t row = shape.back() + pad, elems = row;
    for (size_t i = 0; i + 1 < shape.size(); ++i) elems *= shape[i];
    if (lds_bytes_ + elems * eb > 48 * 1024) return;
    lds_bytes_ += elems * eb;
    std::vector<std::string> sh;
    for (int64_t s : shape) sh.push_back(absl::StrCat(s));
    UseType(t.e);
    decls_.push_back(absl::StrCat("lds ", name, " : ", EName(t.e), "[", absl::StrJoin(sh, ", "), "]",
                                  pad ? absl::StrCat(" pad ", pad) : ""));
    if (pad) Tag("lds:padded");
    Tag(absl::StrCat("lds:", shape.size(), "-D"));
    Val v = GetValue(t, depth);
    std::vector<std::string> si;
    for (const Ix& x : sidx) si.push_back(x.t);
    Emit(depth, absl::StrCat("store ", guarded_store ? "guarded " : "", name, "[", absl::StrJoin(si, ", "), "], %",
                             v.name));
    Tag(guarded_store ? "access:lds-store-guarded" : "access:lds-store");
    Emit(depth, "barrier");
    Tag("op:barrier");
    if (threads_ > 64) Tag("lds:staging-several-waves");
    if (depth > 0) Tag("lds:staging-in-loop");
    int loads = static_cast<int>(rng_.Int(1, 2));
    for (int i = 0; i < loads; ++i) {
      // A width dividing the row, elements from one row.
      std::vector<int> ws;
      for (int w : {1, 2, 4, 8, 16, 32})
        if (shape.back() % w == 0 && w <= t.w * 2 && (w < 32 || IsF8(t.e))) ws.push_back(w);
      int w2 = rng_.Pick(ws);
      int64_t cols2 = shape.back() / w2;
      int64_t rows = elems / row;
      int64_t m2 = rows * cols2;  // vectors in the shape
      bool guarded = rng_.Chance(35);
      Ix q;
      if (guarded) {
        q = Add(RandIx(2), C(rng_.Int(-10, 10)));
        if (q.hi - q.lo > 100000) q = Mod(q, m2 + 7);
      } else {
        q = Mod(Add(Mul(rng_.Chance(50) ? lin_ : RandIx(2), rng_.Int(1, 7)), C(rng_.Int(0, m2))), m2);
      }
      std::vector<std::string> li;
      if (shape.size() == 1) {
        li = {Mul(q, w2).t};
      } else if (shape.size() == 2) {
        li = {Div(q, cols2).t, Mul(Mod(q, cols2), w2).t};
      } else {
        li = {Div(q, cols2 * shape[1]).t, Mod(Div(q, cols2), shape[1]).t, Mul(Mod(q, cols2), w2).t};
      }
      Val r{NewName("v"), {t.e, w2}};
      Emit(depth, absl::StrCat("%", r.name, " = load ", guarded ? "guarded " : "", name, "[",
                               absl::StrJoin(li, ", "), "] : ", TyName(r.ty)));
      Tag(guarded ? "access:lds-load-guarded" : "access:lds-load");
      Define(r);
    }
    if (depth > 0) Emit(depth, "barrier");
    if (depth == 0 && !second_phase_ && rng_.Chance(20)) {
      // The allocation again: a barrier ends the reads before new stores.
      second_phase_ = true;
      Tag("lds:reused-after-barrier");
      Emit(depth, "barrier");
      Val v2 = GetValue(t, depth);
      Emit(depth, absl::StrCat("store ", guarded_store ? "guarded " : "", name, "[", absl::StrJoin(si, ", "), "], %",
                               v2.name));
      Emit(depth, "barrier");
      // 1-D: another thread's slot; more dimensions: the staging pattern's own
      // slots. Guarded as the store is (1-D guarded shapes hold fewer than
      // all threads' slots).
      Ix q = Mod(Add(Mul(lin_, rng_.Int(1, 5)), C(rng_.Int(0, 50))), threads_);
      std::vector<std::string> li;
      if (shape.size() == 1) {
        li = {Mul(q, t.w).t};
      } else {
        for (const Ix& x : sidx) li.push_back(x.t);
      }
      Val r{NewName("v"), t};
      Emit(depth, absl::StrCat("%", r.name, " = load ", guarded_store ? "guarded " : "", name, "[",
                               absl::StrJoin(li, ", "), "] : ", TyName(t)));
      Define(r);
    }
  }

  // ---- loops -----------------------------------------------------------------

  void Loop(int depth) {
    ++loops_;
    LoopVar l;
    l.name = NewName("k");
    l.lo = rng_.Int(-12, 12);
    l.step = rng_.Chance(60) ? 1 : rng_.Int(2, 5);
    l.trips = rng_.Chance(85) ? rng_.Int(1, 6) : rng_.Int(7, 40);
    if (depth > 0) l.trips = std::min<int64_t>(l.trips, 4);
    int64_t hi = l.lo + (l.trips - 1) * l.step + 1 + rng_.Int(0, l.step - 1);
    // iter_args from visible values
    std::vector<Val> all;  // (KIR carries no fp8 values around loops)
    for (const auto& s : scopes_)
      for (const Val& v : s)
        if (!IsF8(v.ty.e)) all.push_back(v);
    int n_iter = all.empty() ? 0 : static_cast<int>(rng_.Int(0, std::min<int64_t>(3, all.size())));
    std::vector<Val> inits, iters;
    for (int i = 0; i < n_iter; ++i) {
      inits.push_back(rng_.Pick(all));
      iters.push_back({NewName("a"), inits.back().ty});
    }
    std::vector<Val> results;
    for (const Val& it : iters) results.push_back({NewName("r"), it.ty});
    std::string head;
    if (!results.empty()) {
      std::vector<std::string> rs;
      for (const Val& r : results) rs.push_back("%" + r.name);
      head = absl::StrCat(absl::StrJoin(rs, ", "), " = ");
    }
    std::string iter_text;
    if (!iters.empty()) {
      std::vector<std::string> is;
      for (size_t i = 0; i < iters.size(); ++i) is.push_back(absl::StrCat("%", iters[i].name, " = %", inits[i].name));
      iter_text = absl::StrCat(" iter(", absl::StrJoin(is, ", "), ")");
    }
    Emit(depth, absl::StrCat(head, "for %", l.name, " = ", l.lo, " to ", hi,
                             l.step != 1 || rng_.Chance(20) ? absl::StrCat(" step ", l.step) : "", iter_text, " {"));
    Tag("op:for");
    if (depth > 0) Tag("loop:nested");
    if (iters.size() > 1) Tag("loop:several-iter-args");
    if (l.trips == 1) Tag("loop:one-trip");
    if (l.lo < 0) Tag("loop:negative-lower-bound");
    scopes_.emplace_back(iters);
    loops_in_scope_.push_back(l);
    int n = static_cast<int>(rng_.Int(1, 6));
    for (int i = 0; i < n; ++i) Step(depth + 1);
    // yield: a value of each iter_arg's type from the body (a swap when two
    // iter_args share a type and the other one is picked).
    std::vector<std::string> ys;
    bool swapped = false;
    for (size_t i = 0; i < iters.size(); ++i) {
      std::vector<Val> cand;
      for (const Val& v : scopes_.back())
        if (v.ty == iters[i].ty) cand.push_back(v);
      Val y = cand.empty() || rng_.Chance(20) ? GetValue(iters[i].ty, depth + 1) : rng_.Pick(cand);
      for (size_t j = 0; j < iters.size(); ++j)
        if (j != i && y.name == iters[j].name) swapped = true;
      ys.push_back("%" + y.name);
    }
    if (swapped) Tag("loop:swap");
    Emit(depth + 1, ys.empty() ? "yield" : absl::StrCat("yield ", absl::StrJoin(ys, ", ")));
    Emit(depth, "}");
    loops_in_scope_.pop_back();
    scopes_.pop_back();
    for (const Val& r : results) {
      Define(r);
      Tag("loop:result-used-after");
    }
  }

  // ---- tile-level gemm -------------------------------------------------------

  // The K of an MFMA's name (f32_16x16x32_fp8_bf8 -> 32).
  static int MfmaK(const Mfma& m) {
    const std::vector<std::string> parts = absl::StrSplit(m.name, '_');
    const std::vector<std::string> dims = absl::StrSplit(parts[1], 'x');
    int k = 0;
    (void)absl::SimpleAtoi(dims[2], &k);
    return k;
  }

  void GenGemm() {
    out_.is_gemm = true;
    out_.name = absl::StrCat("rg_", out_.seed);
    Tag("op:gemm");
    static const std::vector<E> kAb = {E::kF16, E::kBF16};
    static const std::vector<E> kC = {E::kF32, E::kF16, E::kBF16};
    E ab = rng_.Pick(kAb), ce = rng_.Pick(kC);
    E a_e = ab, b_e = ab;
    // fp8 inputs (gfx942's FNUZ or gfx950's OCP formats, A's and B's each
    // its own): the other processors must refuse the types.
    const bool f8 = rng_.Chance(35);
    if (f8) {
      fp8_ = rng_.Chance(50) ? 1 : 2;
      allowed_ = 1u << (fp8_ == 1 ? 2 : 3);
      a_e = Fp8Elem(rng_.Chance(40));
      b_e = Fp8Elem(rng_.Chance(40));
      used_fp8_.insert(a_e);
      used_fp8_.insert(b_e);
      Tag(fp8_ == 1 ? "gemm:ab-fp8-fnuz" : "gemm:ab-fp8-ocp");
      if (a_e != b_e) Tag("gemm:ab-fp8-mixed");
    } else {
      Tag(absl::StrCat("gemm:ab-", EName(ab)));
    }
    auto dim = [&]() -> int64_t {
      int r = static_cast<int>(rng_.Int(0, 9));
      if (r < 3) return rng_.Int(1, 40);
      if (r < 7) return rng_.Int(1, 130);
      return rng_.Int(1, 300);
    };
    int64_t m = dim(), n = dim(), k = dim();
    bool a_km = rng_.Chance(40), b_kn = rng_.Chance(40);
    bool alpha = rng_.Chance(60), beta = rng_.Chance(50);
    // Per-tensor scale factors after alpha (or alone): their product is
    // formed in f32 left to right (docs/kir.md "What it computes", gemm).
    const int scales = rng_.Chance(30) ? static_cast<int>(rng_.Int(1, 2)) : 0;
    Tag(absl::StrCat("gemm:c-", EName(ce)));
    Tag(a_km ? "gemm:A.km" : "gemm:A.mk");
    Tag(b_kn ? "gemm:B.kn" : "gemm:B.nk");
    if (alpha) Tag("gemm:alpha");
    if (beta) Tag("gemm:beta");
    if (scales > 0) Tag("gemm:scale-factors");
    auto pad = [&]() -> int64_t { return rng_.Chance(25) ? rng_.Int(1, 8) : 0; };
    std::vector<std::string> decls;
    int64_t ar = a_km ? k : m, ac = a_km ? m : k;
    int64_t br = b_kn ? k : n, bc = b_kn ? n : k;
    const int64_t as = ac + pad(), bs = bc + pad();
    decls.push_back(absl::StrCat("arg A : ", EName(a_e), "[", ar, ", ", ac, "] strides [", as, ", 1] readonly"));
    decls.push_back(absl::StrCat("arg B : ", EName(b_e), "[", br, ", ", bc, "] strides [", bs, ", 1] readonly"));
    decls.push_back(absl::StrCat("arg C : ", EName(ce), "[", m, ", ", n, "] strides [", n + pad(), ", 1] ",
                                 beta ? "readwrite" : "writeonly"));
    std::string factors;
    if (alpha) {
      decls.push_back("arg alpha : f32");
      factors += "alpha * ";
    }
    for (int i = 0; i < scales; ++i) {
      decls.push_back(absl::StrCat("arg s", i, " : f32"));
      absl::StrAppend(&factors, "s", i, " * ");
    }
    if (beta) decls.push_back("arg beta : f32");
    std::string op = absl::StrCat("gemm C = ", factors, "A.", a_km ? "km" : "mk", " * B.", b_kn ? "kn" : "nk",
                                  beta ? " + beta * C" : "");
    // Clauses: a consistent configuration, or a subset the defaults complete.
    // MFMAs of A's and B's types on some processor that accepts the kernel.
    std::vector<const Mfma*> ms;
    for (const Mfma& x : Mfmas()) {
      if (Resolve(x.a) != a_e || Resolve(x.b) != b_e) continue;
      if (f8 && (MfmaMask(x) & allowed_) == 0) continue;
      if (!f8 && !x.gemm && x.ab_w != 8) continue;
      ms.push_back(&x);
    }
    const Mfma* mf = ms[rng_.Int(0, static_cast<int64_t>(ms.size()) - 1)];
    int mdim = absl::string_view(mf->name).substr(4, 2) == "32" ? 32 : 16;
    const int kstep = MfmaK(*mf);
    const int eb = EBytes(a_e);
    // fp8 operands copied a byte at a time (a K-strided one, or rows whose
    // extent or stride is not a multiple of 4) take no explicit double
    // buffering (docs/kir.md "Default configurations"): keep to `off` for them.
    const bool byte_copy = f8 && (a_km || b_kn || ac % 4 || bc % 4 || as % 4 || bs % 4);
    auto db = [&]() { return byte_copy || rng_.Chance(50) ? "off" : "on"; };
    std::vector<std::string> clauses;
    int which = static_cast<int>(rng_.Int(0, 5));
    if (which == 1) {  // everything given
      int64_t wm = rng_.Int(1, 2), wn = rng_.Int(1, 2);
      int64_t bm = wm * mdim * rng_.Int(1, 2), bn = wn * mdim * rng_.Int(1, 2);
      int64_t bk = f8 ? std::max<int64_t>(kstep, 32) * rng_.Int(1, 2)
                      : std::max<int64_t>(kstep, rng_.Chance(50) ? 16 : 32);
      if ((bm + bn) * bk * eb * 2 > 48 * 1024) bk = std::max<int64_t>(kstep, f8 ? 32 : 16);
      // at most 16 workgroups
      while (((m + bm - 1) / bm) * ((n + bn - 1) / bn) > 16 && bm < 128 && bn < 128) {
        if (bm <= bn) bm *= 2; else bn *= 2;
      }
      if ((bm / wm) * (bn / wn) > 64 * 64) wm = wn = 2;
      clauses.push_back(absl::StrCat("tile ", bm, "x", bn, "x", bk));
      clauses.push_back(absl::StrCat("waves ", wm, "x", wn));
      clauses.push_back(absl::StrCat("mfma ", mf->name));
      clauses.push_back(absl::StrCat("double_buffer ", db()));
      used_mfmas_.insert(mf);
      Tag(absl::StrCat("mfma:", mf->name));
    } else if (which == 2) {  // tile only
      static const std::vector<int64_t> kT = {16, 32, 64, 128};
      int64_t bm = rng_.Pick(kT), bn = rng_.Pick(kT);
      while (((m + bm - 1) / bm) * ((n + bn - 1) / bn) > 16 && bm < 128 && bn < 128) {
        if (bm <= bn) bm *= 2; else bn *= 2;
      }
      static const std::vector<int64_t> kBk8 = {32, 64, 128};
      clauses.push_back(absl::StrCat("tile ", bm, "x", bn, "x", f8 ? rng_.Pick(kBk8) : rng_.Chance(50) ? 16 : 32));
    } else if (which == 3) {  // mfma only
      clauses.push_back(absl::StrCat("mfma ", mf->name));
      used_mfmas_.insert(mf);
      Tag(absl::StrCat("mfma:", mf->name));
    } else if (which == 4) {
      clauses.push_back(absl::StrCat("double_buffer ", db()));
    } else if (which == 5) {
      clauses.push_back(absl::StrCat("waves ", rng_.Int(1, 2), "x", rng_.Int(1, 2)));
    }
    for (const std::string& c : clauses) Tag(absl::StrCat("gemm:clause-", c.substr(0, c.find(' '))));
    if (clauses.empty()) Tag("gemm:defaults");
    if (!clauses.empty()) op += " " + absl::StrJoin(clauses, " ");
    std::string text = absl::StrCat("# random gemm, seed ", out_.seed, " (difftest)\nkernel ", out_.name, "\ntarget ",
                                    HomeTarget(), "\nworkgroup auto\ngrid auto\n");
    for (const std::string& d : decls) absl::StrAppend(&text, d, "\n");
    absl::StrAppend(&text, "  ", op, "\nend\n");
    out_.text = std::move(text);
  }

  Rng rng_;
  GeneratedKernel out_;
  int64_t threads_ = 64, groups_ = 1;
  std::array<int64_t, 3> wg_{64, 1, 1}, grid_{1, 1, 1};
  Ix tid_[3], wgv_[3], lin_, gid_;
  std::vector<std::string> decls_, body_;
  std::vector<std::vector<Val>> scopes_;
  std::vector<Val> scalars_;
  std::vector<LoopVar> loops_in_scope_;
  std::set<std::string> stored_;
  int names_ = 0, loops_ = 0, buffers_ = 0, outputs_ = 0;
  int64_t lds_bytes_ = 0;
  bool second_phase_ = false;
  int fp8_ = 0;  // the kernel's fp8 types: 0 none, 1 gfx942's FNUZ, 2 gfx950's OCP
  unsigned allowed_ = (1u << kNumProcessors) - 1;  // processors the kernel must keep accepting
  std::set<const Mfma*> used_mfmas_;
  std::set<E> used_fp8_;
};

}  // namespace

GeneratedKernel Generate(uint64_t seed) { return Gen(seed).Run(); }

const std::vector<std::string>& AllFeatures() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> f = {
        "op:load", "op:store", "op:add", "op:mul", "op:fma", "op:cvt", "op:slice", "op:concat", "op:const", "op:zero",
        "op:mfma", "op:barrier", "op:for", "op:gemm",
        "op:add:f32", "op:add:f16", "op:add:bf16", "op:add:i32", "op:mul:f32", "op:mul:f16", "op:mul:bf16",
        "op:mul:i32", "op:fma:f32", "op:fma:f16", "op:fma:bf16",
        "cvt:f32->f16", "cvt:f32->bf16", "cvt:f16->f32", "cvt:bf16->f32", "cvt:f16->bf16", "cvt:bf16->f16",
        "const:non-finite", "operand:broadcast", "operand:scalar-arg", "arg:f32-scalar", "arg:i32-scalar",
        "access:global-load", "access:global-load-guarded", "access:along", "access:readwrite",
        "access:lds-store", "access:lds-store-guarded", "access:lds-load", "access:lds-load-guarded",
        "access:lds-negative-thread-coefficient", "lds:1-D", "lds:2-D", "lds:3-D", "lds:padded",
        "lds:staging-several-waves", "lds:staging-in-loop",
        "layout:padded", "layout:permuted-strides", "layout:stride-0",
        "index:loop-var", "index:negative-intermediate", "index:floordiv-negative", "index:floordiv-non-pow2",
        "index:mod-negative", "index:mod-non-pow2", "index:reversed", "index:affine-permutation",
        "index:transpose", "index:split-floordiv-mod", "index:coordinates", "index:product-of-variables",
        "access:partial-vector", "access:global-store-guarded", "lds:reused-after-barrier",
        "loop:nested", "loop:several-iter-args", "loop:swap", "loop:one-trip", "loop:negative-lower-bound",
        "loop:result-used-after", "store:in-loop",
        "workgroup:1-D", "workgroup:2-D", "workgroup:3-D", "workgroup:multi-wave", "grid:0-D", "grid:1-D",
        "grid:2-D", "grid:3-D",
        "target:sramecc-any", "target:sramecc+", "target:sramecc-", "target:xnack-any", "target:xnack+",
        "target:xnack-",
        "gemm:ab-f16", "gemm:ab-bf16", "gemm:c-f32", "gemm:c-f16", "gemm:c-bf16", "gemm:A.mk", "gemm:A.km",
        "gemm:B.nk", "gemm:B.kn", "gemm:alpha", "gemm:beta", "gemm:clause-tile", "gemm:clause-waves",
        "gemm:clause-mfma", "gemm:clause-double_buffer", "gemm:defaults", "gemm:ab-fp8-fnuz", "gemm:ab-fp8-ocp",
        "gemm:ab-fp8-mixed", "gemm:scale-factors",
        "loop:mfma-k", "fp8:flavour-fnuz", "fp8:flavour-ocp", "fp8:type-f8e4m3fnuz", "fp8:type-f8e5m2fnuz",
        "fp8:type-f8e4m3fn", "fp8:type-f8e5m2", "fp8:width-1", "fp8:width-2", "fp8:width-4", "fp8:width-8",
        "fp8:width-16", "fp8:width-32", "fp8:slice", "fp8:concat", "fp8:lds", "fp8:partial-vector", "fp8:cvt-special-input",
        "fp8:cvt-scaled-input", "cvt:f32->fp8", "cvt:f16->fp8", "cvt:bf16->fp8", "cvt:fp8->f32", "cvt:fp8->f16",
        "cvt:fp8->bf16"};
    for (const Mfma& m : Mfmas()) f.push_back(absl::StrCat("mfma:", m.name));
    for (E e : {E::kF32, E::kF16, E::kBF16, E::kI32})
      for (int w : {1, 2, 4, 8, 16}) f.push_back(absl::StrCat("type:", TyName({e, w})));
    return f;
  }();
  return all;
}

}  // namespace kir::difftest
