// Shared-memory promotion, checked by running the promoted kernels in the KIR
// reference interpreter against a plain CPU GEMM written here (double
// accumulation), and by the validator on every target.
#include "compiler/promote/promote.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/api/compile.h"
#include "compiler/ir/float_bits.h"
#include "compiler/reference/interpreter.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/analysis/validate.h"
#include "compiler/promote/bank_conflicts.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

const TargetInfo& Target(const std::string& name) { return **LookupTarget(name); }

std::string Name(ElemType e) { return std::string(ElemTypeName(e)); }

// ---------------------------------------------------------------- the problems

struct Case {
  std::string target;
  ElemType in = ElemType::kF16, out = ElemType::kF32;
  std::optional<ElemType> in_b;  // B's type when it differs from A's (fp8 formats)
  bool scales = false;           // `alpha * sa * sb * A...` (alpha = 1.5 * 0.5 * 2 in f32)
  ElemType InB() const { return in_b.value_or(in); }
  bool a_km = false, b_kn = false;
  int64_t m = 64, n = 64, k = 64;
  std::string clauses;  // after the gemm's operands, e.g. " waves 2x2 double_buffer on"
  bool beta = true;
  bool alpha = true;   // false: `gemm C = A.mk * B.nk ...` (alpha = 1)
  int64_t ld_pad = 0;  // extra elements per row of A, B and C (filled with NaN)

  std::string Label() const {
    return absl::StrCat(target, " ", Name(in), in_b ? "x" + Name(*in_b) : "", "->", Name(out),
                        scales ? " scales" : "", " A.", a_km ? "km" : "mk", " B.",
                        b_kn ? "kn" : "nk", " ", m, "x", n, "x", k, clauses,
                        ld_pad ? absl::StrCat(" ld_pad ", ld_pad) : "", beta ? "" : " no-beta",
                        alpha ? "" : " no-alpha");
  }
};

// Physical shapes and strides.
struct Layout {
  std::vector<int64_t> shape, strides;
};
Layout ALayout(const Case& c) {
  if (c.a_km) return {{c.k, c.m}, {c.m + c.ld_pad, 1}};
  return {{c.m, c.k}, {c.k + c.ld_pad, 1}};
}
Layout BLayout(const Case& c) {
  if (c.b_kn) return {{c.k, c.n}, {c.n + c.ld_pad, 1}};
  return {{c.n, c.k}, {c.k + c.ld_pad, 1}};
}
Layout CLayout(const Case& c) { return {{c.m, c.n}, {c.n + c.ld_pad, 1}}; }

std::string Dims(const std::vector<int64_t>& v) {
  return absl::StrCat("[", v[0], ", ", v[1], "]");
}

std::string KernelText(const Case& c) {
  Layout a = ALayout(c), b = BLayout(c), cl = CLayout(c);
  std::string s = absl::StrCat("kernel gemm_test\ntarget ", c.target,
                               "\nworkgroup auto\ngrid auto\n");
  absl::StrAppend(&s, "arg A : ", Name(c.in), Dims(a.shape), " strides ", Dims(a.strides),
                  " readonly\n");
  absl::StrAppend(&s, "arg B : ", Name(c.InB()), Dims(b.shape), " strides ", Dims(b.strides),
                  " readonly\n");
  absl::StrAppend(&s, "arg C : ", Name(c.out), Dims(cl.shape), " strides ", Dims(cl.strides),
                  c.beta ? " readwrite\n" : " writeonly\n");
  absl::StrAppend(&s, c.alpha ? "arg alpha : f32\n" : "", c.beta ? "arg beta : f32\n" : "",
                  c.scales ? "arg sa : f32\narg sb : f32\n" : "");
  absl::StrAppend(&s, "  gemm C = ", c.alpha ? "alpha * " : "", c.scales ? "sa * sb * " : "", "A.", c.a_km ? "km" : "mk", " * B.", c.b_kn ? "kn" : "nk",
                  c.beta ? " + beta * C" : "", c.clauses, "\nend\n");
  return s;
}

Kernel ParseCase(const Case& c) {
  absl::StatusOr<Kernel> k = ParseKernel(KernelText(c), "gemm_test.kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : Kernel{};
}

// ---------------------------------------------------------------- buffers

uint32_t ToBits(ElemType t, double v) {
  if (IsFp8(t)) return F32ToFp8Bits(t, static_cast<float>(v));
  switch (t) {
    case ElemType::kF16:
      return RoundToF16Bits(v);
    case ElemType::kBF16:
      return RoundToBf16Bits(v);
    default:
      return F32Bits(static_cast<float>(v));
  }
}
double FromBits(ElemType t, uint32_t b) {
  if (IsFp8(t)) return Fp8BitsToF32(t, static_cast<uint8_t>(b));
  switch (t) {
    case ElemType::kF16:
      return F16BitsToF32(static_cast<uint16_t>(b));
    case ElemType::kBF16:
      return Bf16BitsToF32(static_cast<uint16_t>(b));
    default:
      return F32FromBits(b);
  }
}
uint32_t NanBits(ElemType t) {
  if (IsFp8(t)) return Fp8FormatOf(t)->nan;
  return t == ElemType::kF16 ? 0x7e00 : t == ElemType::kBF16 ? 0x7fc0 : 0x7fc00000u;
}

// A 2-D buffer: every byte NaN (padding included), then the in-shape elements.
struct Matrix {
  ElemType elem;
  Layout layout;
  std::vector<uint8_t> bytes;
  int64_t Offset(int64_t i, int64_t j) const {
    return (i * layout.strides[0] + j * layout.strides[1]) * ElemBytes(elem);
  }
  uint32_t Bits(int64_t i, int64_t j) const {
    uint32_t b = 0;
    std::memcpy(&b, &bytes[Offset(i, j)], ElemBytes(elem));
    return b;
  }
  void Set(int64_t i, int64_t j, uint32_t b) { std::memcpy(&bytes[Offset(i, j)], &b, ElemBytes(elem)); }
  double Get(int64_t i, int64_t j) const { return FromBits(elem, Bits(i, j)); }
};

Matrix MakeMatrix(const Kernel& k, const std::string& name, std::mt19937& rng) {
  const Arg* a = k.FindArg(name);
  Matrix m{a->elem, {a->shape, a->strides}, std::vector<uint8_t>(a->SizeBytes())};
  const int eb = ElemBytes(a->elem);
  for (size_t off = 0; off + eb <= m.bytes.size(); off += eb) {
    uint32_t nan = NanBits(a->elem);
    std::memcpy(&m.bytes[off], &nan, eb);
  }
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < a->shape[0]; ++i)
    for (int64_t j = 0; j < a->shape[1]; ++j) m.Set(i, j, ToBits(a->elem, u(rng)));
  return m;
}

// ---------------------------------------------------------------- the check

struct RunStats {
  double seconds = 0;
  GemmPlan plan;
};

constexpr double kAlpha = 1.5, kBeta = 0.5, kSa = 0.5, kSb = 2.0;

// Promotes for the case's target, validates the result on that target and
// (promoted for each) on every target, runs it in the interpreter and compares
// it with a CPU GEMM.
void RunCase(const Case& c, RunStats* stats = nullptr) {
  SCOPED_TRACE(c.Label());
  Kernel k = ParseCase(c);
  const TargetInfo& t = Target(c.target);
  ASSERT_TRUE(ValidateKernel(k, t).ok()) << ValidateKernel(k, t);
  for (const TargetInfo* other : AllTargets()) {
    // An explicit MFMA another target lacks becomes that target's twin
    // (gfx908's 2-element bf16 MFMAs, or the 4-element ones elsewhere).
    Kernel ko = k;
    GemmOp& g = ko.body[0].gemm;
    // fp8 exists only on targets of its flavour.
    if (!TargetHasElemType(*other, c.in) || !TargetHasElemType(*other, c.InB())) continue;
    // lds_dma on exists only where the DMA does (LdsDmaRefusals).
    if (absl::StrContains(c.clauses, "lds_dma on") && !other->has_lds_dma_dwordx4) continue;
    if (const MfmaDesc* m = LookupMfma(g.mfma); m != nullptr && !MfmaMnemonic(*other, *m).ok())
      for (const MfmaDesc& d : AllMfmas())
        if (d.m == m->m && d.a_in == m->a_in && d.b_in == m->b_in && MfmaMnemonic(*other, d).ok())
          g.mfma = d.kir_name;
    absl::StatusOr<Kernel> p = ValidateAndPromote(ko, *other);
    ASSERT_TRUE(p.ok()) << other->name << ": " << p.status();
  }
  absl::StatusOr<GemmPlan> plan = PlanGemm(k, t);
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<Kernel> p = ValidateAndPromote(k, t);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_FALSE(HasGemm(*p));
  // The printed kernel reads back as itself (what --emit=kir prints).
  absl::StatusOr<Kernel> reparsed = ParseKernel(PrintKernel(*p));
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_TRUE(*reparsed == *p);

  std::mt19937 rng(static_cast<uint32_t>(c.m * 131 + c.n * 17 + c.k));
  Matrix a = MakeMatrix(*p, "A", rng), b = MakeMatrix(*p, "B", rng), c0 = MakeMatrix(*p, "C", rng);
  InterpArgs args;
  args.buffers["A"] = a.bytes;
  args.buffers["B"] = b.bytes;
  args.buffers["C"] = c0.bytes;
  if (c.alpha) args.scalars["alpha"] = F32Bits(static_cast<float>(kAlpha));
  if (c.beta) args.scalars["beta"] = F32Bits(static_cast<float>(kBeta));
  if (c.scales) {
    args.scalars["sa"] = F32Bits(static_cast<float>(kSa));
    args.scalars["sb"] = F32Bits(static_cast<float>(kSb));
  }
  auto t0 = std::chrono::steady_clock::now();
  absl::Status st = Interpret(*p, args);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(st.ok()) << st;
  Matrix out = c0;
  out.bytes = args.buffers["C"];

  auto av = [&](int64_t i, int64_t kk) { return c.a_km ? a.Get(kk, i) : a.Get(i, kk); };
  auto bv = [&](int64_t kk, int64_t j) { return c.b_kn ? b.Get(kk, j) : b.Get(j, kk); };
  const double out_ulp = c.out == ElemType::kF16 ? std::ldexp(1.0, -10)
                         : c.out == ElemType::kBF16 ? std::ldexp(1.0, -7)
                                                    : 0.0;
  const double steps = static_cast<double>(plan->config.KTiles() * plan->config.KSteps());
  int bad = 0;
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double acc = 0, mag = 0;
      for (int64_t kk = 0; kk < c.k; ++kk) {
        acc += av(i, kk) * bv(kk, j);
        mag += std::fabs(av(i, kk) * bv(kk, j));
      }
      double cin = c0.Get(i, j);
      const double alpha = (c.alpha ? kAlpha : 1.0) * (c.scales ? kSa * kSb : 1.0);
      double ref = alpha * acc + (c.beta ? kBeta * cin : 0.0);
      // f32 accumulation: one rounding per MFMA step, alpha, fma; then the
      // output type's rounding.
      double tol = (steps + 4) * std::ldexp(1.0, -24) * (alpha * mag + kBeta * std::fabs(cin)) +
                   out_ulp * std::fabs(ref) + 1e-30;
      double got = out.Get(i, j);
      if (!(std::fabs(got - ref) <= tol) && ++bad <= 5)
        ADD_FAILURE() << "C[" << i << ", " << j << "] = " << got << ", want " << ref << " +- "
                      << tol;
    }
  }
  EXPECT_EQ(bad, 0);
  // Padding after each row of C is never written.
  for (int64_t i = 0; i < c.m && c.ld_pad > 0; ++i)
    for (int64_t j = c.n; j < c.n + c.ld_pad && (i + 1 < c.m); ++j) {
      uint32_t bits = 0;
      std::memcpy(&bits, &out.bytes[out.Offset(i, j)], ElemBytes(c.out));
      EXPECT_EQ(bits, NanBits(c.out)) << "padding C[" << i << ", " << j << "] written";
    }
  if (stats != nullptr) {
    stats->seconds = secs;
    stats->plan = *plan;
  }
}

// ---------------------------------------------------------------- the covering set

struct Size {
  int64_t m, n, k;
};
constexpr Size kSizes[] = {{64, 64, 64}, {128, 128, 128}, {256, 256, 64}, {100, 72, 40}, {33, 65, 17}};
const char* const kTargets[] = {"gfx942", "gfx90a", "gfx908"};
constexpr ElemType kOuts[] = {ElemType::kF32, ElemType::kF16, ElemType::kBF16};

// 8 (input type, layout) pairs x 5 sizes = 40 kernels. Target, output type,
// waves (1, 4, 8), double buffering, an explicit 16x16 MFMA and fully default
// clauses rotate through them so that each value appears; the edge sizes also
// get padded leading dimensions (NaN padding, which a wrong guard would read
// or write).
std::vector<Case> CoveringSet() {
  std::vector<Case> cases;
  int i = 0;
  for (int pair = 0; pair < 8; ++pair) {
    for (int s = 0; s < 5; ++s, ++i) {
      Case c;
      c.in = pair < 4 ? ElemType::kF16 : ElemType::kBF16;
      c.a_km = (pair & 1) != 0;
      c.b_kn = (pair & 2) != 0;
      c.m = kSizes[s].m;
      c.n = kSizes[s].n;
      c.k = kSizes[s].k;
      c.target = kTargets[i % 3];
      c.out = kOuts[(i / 3 + pair) % 3];
      c.beta = i % 7 != 6;
      if (s >= 3 && pair % 2 == 0) c.ld_pad = 8;
      if (i % 5 == 4) {  // everything by default
        cases.push_back(c);
        continue;
      }
      const int waves = (i + pair) % 3;  // 1, 4, 8 waves
      if (waves == 0) {
        c.clauses = " waves 1x1";
        if (c.m >= 64 && c.n >= 64) c.clauses += " tile 64x64x32";
      } else if (waves == 1) {
        c.clauses = " waves 2x2";
      } else {
        c.clauses = i % 2 ? " waves 4x2" : " waves 2x4";
      }
      if (i % 4 == 3) {
        const bool old_bf16 = c.in == ElemType::kBF16 && c.target == "gfx908";
        c.clauses += c.in == ElemType::kF16 ? " mfma f32_16x16x16_f16"
                     : old_bf16             ? " mfma f32_16x16x8_bf16"
                                            : " mfma f32_16x16x16_bf16";
      }
      c.clauses += i % 2 == 0 ? " double_buffer on" : " double_buffer off";
      cases.push_back(c);
    }
  }
  return cases;
}

TEST(PromoteGemm, CoveringSetMatchesCpuGemm) {
  std::vector<Case> cases = CoveringSet();
  // Coverage: every value of every dimension, every (input type, layout) pair.
  std::set<std::string> seen;
  for (const Case& c : cases) {
    Kernel k = ParseCase(c);
    absl::StatusOr<GemmConfig> cfg = ResolveGemm(k, k.body[0], Target(c.target));
    ASSERT_TRUE(cfg.ok()) << c.Label() << ": " << cfg.status();
    seen.insert("in " + Name(c.in));
    seen.insert("out " + Name(c.out));
    seen.insert(absl::StrCat("pair ", Name(c.in), c.a_km, c.b_kn));
    seen.insert(absl::StrCat("waves ", cfg->wm * cfg->wn));
    seen.insert(absl::StrCat("db ", cfg->double_buffer));
    seen.insert(absl::StrCat("mfma ", cfg->mfma->m));
    seen.insert("target " + c.target);
    seen.insert(absl::StrCat("size ", c.m, "x", c.n, "x", c.k));
  }
  for (const char* want :
       {"in f16", "in bf16", "out f32", "out f16", "out bf16", "waves 1", "waves 4", "waves 8",
        "db 0", "db 1", "mfma 16", "mfma 32", "target gfx908", "target gfx90a", "target gfx942",
        "size 64x64x64", "size 128x128x128", "size 256x256x64", "size 100x72x40",
        "size 33x65x17", "pair f1600", "pair f1610", "pair f1601", "pair f1611", "pair bf1600",
        "pair bf1610", "pair bf1601", "pair bf1611"})
    EXPECT_TRUE(seen.count(want)) << "the covering set lacks " << want;
  EXPECT_EQ(cases.size(), 40u);

  double total = 0;
  for (const Case& c : cases) {
    RunStats st;
    RunCase(c, &st);
    total += st.seconds;
    std::printf("%6.3f s  %s  [%s]\n", st.seconds, c.Label().c_str(),
                st.plan.config.TilingText().c_str());
  }
  std::printf("interpreter total %.2f s for %zu kernels\n", total, cases.size());
}

// fp8 inputs (issue 19 part 3) on gfx942 (FNUZ) and gfx950 (OCP): every
// layout, mixed and equal formats, per-tensor scales, edges (M, N, K not
// multiples of the tile; K < BK), double buffering on and off, given and
// default tiles, waves and MFMAs (the f8f6f4 shapes on gfx950 included).
TEST(PromoteGemm, Fp8MatchesCpuGemm) {
  std::vector<Case> cases;
  int i = 0;
  for (const char* target : {"gfx942", "gfx950"}) {
    const TargetInfo& t = Target(target);
    const ElemType e4 = *Fp8Elem(t, false), e5 = *Fp8Elem(t, true);
    for (int layout = 0; layout < 4; ++layout) {
      for (const Size& s : {Size{64, 64, 64}, Size{128, 128, 256}, Size{100, 72, 40}, Size{33, 65, 17}}) {
        Case c;
        c.target = target;
        c.in = (i % 3 == 1) ? e5 : e4;
        if (i % 2 == 1) c.in_b = c.in == e4 ? e5 : e4;
        c.out = kOuts[i % 3];
        c.a_km = layout & 1;
        c.b_kn = layout & 2;
        c.m = s.m;
        c.n = s.n;
        c.k = s.k;
        c.scales = i % 4 != 3;
        c.alpha = i % 5 != 4;
        c.beta = i % 7 != 6;
        if (s.m == 100 && layout % 2 == 0) c.ld_pad = 8;
        switch (i % 4) {
          case 0: break;  // every clause by default
          case 1: c.clauses = " waves 1x1 double_buffer off"; break;
          case 2: c.clauses = " waves 2x2 double_buffer on"; break;
          case 3:
            c.clauses = std::string(target) == "gfx950" && s.k >= 128
                            ? " tile 64x64x128 mfma f32_16x16x128_" : " tile 64x64x64 mfma f32_16x16x32_";
            c.clauses += absl::StrCat(c.in == e5 ? "bf8" : "fp8", "_", c.InB() == e5 ? "bf8" : "fp8");
            break;
        }
        cases.push_back(c);
        ++i;
      }
    }
  }
  for (const Case& c : cases) {
    RunStats st;
    RunCase(c, &st);
    std::printf("%6.3f s  %s  [%s]\n", st.seconds, c.Label().c_str(),
                st.plan.config.TilingText().c_str());
  }
}

// Column-major storage of an "mk" operand (stride-1 dimension M) takes the
// transposed staging path like A.km; a non-unit-stride K with no stride-1
// dimension falls back to scalar loads.
TEST(PromoteGemm, StridesPickTheVectorDimension) {
  Case c;
  c.target = "gfx942";
  c.m = c.n = 64;
  c.k = 32;
  Kernel k = ParseCase(c);
  k.args[0].strides = {1, 64};  // A.mk stored column-major
  k.args[0].shape = {64, 32};
  absl::StatusOr<GemmPlan> plan = PlanGemm(k, Target("gfx942"));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->a.vec_along_k);
  EXPECT_EQ(plan->a.vec, 8);
  EXPECT_TRUE(plan->b.vec_along_k);
  EXPECT_EQ(plan->b.vec, 8);
  k.args[1].strides = {66, 2};  // B: no stride-1 dimension
  plan = PlanGemm(k, Target("gfx942"));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->b.vec, 1);
}

// Odd K forces scalar loads; with BK = 128 a line of the tile holds more
// vectors (128) than a wave has lanes, so lanes of one wave share a line and
// rounds start mid-line.
TEST(PromoteGemm, LinesLongerThanAWave) {
  Case c;
  c.target = "gfx90a";
  c.m = 64;
  c.n = 32;
  c.k = 129;
  c.clauses = " waves 1x1 tile 32x32x128 double_buffer on";
  absl::StatusOr<GemmPlan> plan = PlanGemm(ParseCase(c), Target(c.target));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->a.vec, 1);
  EXPECT_EQ(plan->a.copies, 64);
  RunCase(c);
  c.in = ElemType::kBF16;
  c.a_km = c.b_kn = true;
  c.out = ElemType::kBF16;
  RunCase(c);
}

TEST(PromoteGemm, EdgeSizesUseGuardsOnlyWhereNeeded) {
  Case aligned;
  aligned.target = "gfx942";
  aligned.m = aligned.n = 128;
  aligned.k = 64;
  absl::StatusOr<Kernel> p = PromoteGemm(ParseCase(aligned), Target("gfx942"));
  ASSERT_TRUE(p.ok()) << p.status();
  std::string text = PrintKernel(*p);
  // Double-buffered with K a multiple of BK: the last tile is peeled (it
  // loads no successor), so no access is guarded.
  EXPECT_EQ(text.find("guarded"), std::string::npos) << text;
  // A partial last K tile guards the successor loads.
  Case partial_k = aligned;
  partial_k.k = 80;
  p = PromoteGemm(ParseCase(partial_k), Target("gfx942"));
  ASSERT_TRUE(p.ok()) << p.status();
  text = PrintKernel(*p);
  EXPECT_NE(text.find("load guarded A["), std::string::npos) << text;
  EXPECT_EQ(text.find("store guarded"), std::string::npos);
  EXPECT_EQ(text.find("guarded C"), std::string::npos);
  Case edge = aligned;
  edge.m = 100;
  p = PromoteGemm(ParseCase(edge), Target("gfx942"));
  ASSERT_TRUE(p.ok()) << p.status();
  text = PrintKernel(*p);
  EXPECT_NE(text.find("store guarded C["), std::string::npos);
  EXPECT_NE(text.find("load guarded C["), std::string::npos);
}

// N = 1, M = 1 and K = 1 (the epilogue's C accesses narrow to what C's layout
// aligns; the copies' vectors to what A's and B's do), against the CPU GEMM.
TEST(PromoteGemm, DegenerateShapesMatchCpuGemm) {
  struct Shape {
    const char* target;
    ElemType in, out;
    bool a_km, b_kn;
    int64_t m, n, k, ld_pad;
  };
  const Shape shapes[] = {
      {"gfx942", ElemType::kF16, ElemType::kF32, false, false, 1, 1, 1, 0},
      {"gfx90a", ElemType::kBF16, ElemType::kBF16, false, true, 16, 1, 16, 0},
      {"gfx908", ElemType::kF16, ElemType::kF16, true, false, 100, 1, 64, 0},
      {"gfx908", ElemType::kBF16, ElemType::kF32, true, true, 1, 24, 17, 0},
      {"gfx942", ElemType::kF16, ElemType::kF32, false, false, 3, 5, 2, 1},
  };
  for (const Shape& sh : shapes) {
    Case c;
    c.target = sh.target;
    c.in = sh.in;
    c.out = sh.out;
    c.a_km = sh.a_km;
    c.b_kn = sh.b_kn;
    c.m = sh.m, c.n = sh.n, c.k = sh.k;
    c.ld_pad = sh.ld_pad;
    RunCase(c);
  }
}

// Issue 13: alpha is optional (`gemm C = A.mk * B.nk`, alpha = 1): the
// promoted epilogue multiplies by nothing, and the result is the plain
// product (plus beta * C).
TEST(PromoteGemm, WithoutAlphaIsThePlainProduct) {
  for (bool beta : {false, true}) {
    Case c;
    c.target = "gfx942";
    c.alpha = false;
    c.beta = beta;
    c.m = 100, c.n = 72, c.k = 40;
    c.out = beta ? ElemType::kBF16 : ElemType::kF32;
    RunCase(c);
    absl::StatusOr<Kernel> p = ValidateAndPromote(ParseCase(c), Target(c.target));
    ASSERT_TRUE(p.ok()) << p.status();
    std::vector<const Op*> ops;
    std::vector<const std::vector<Op>*> todo = {&p->body};
    while (!todo.empty()) {
      const std::vector<Op>* body = todo.back();
      todo.pop_back();
      for (const Op& op : *body) {
        EXPECT_NE(op.kind, OpKind::kMul) << "a multiply without alpha: " << PrintOp(op, 0);
        todo.push_back(&op.body);
      }
    }
  }
}

TEST(PromoteGemm, NoGemmIsACopy) {
  absl::StatusOr<Kernel> k = ParseKernel(R"(kernel copy
workgroup 64 1 1
grid 1 1 1
arg X : f32[64] strides [1] readonly
arg Y : f32[64] strides [1] writeonly
  %v = load X[tid.x] : f32
  store Y[tid.x], %v
end
)");
  ASSERT_TRUE(k.ok());
  absl::StatusOr<Kernel> p = PromoteGemm(*k, Target("gfx90a"));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(*p == *k);
}

// ---------------------------------------------------------------- defaults

// Problems whose defaults are checked: square, tall, K-heavy, the test sizes.
constexpr Size kDefaultProblems[] = {{1024, 1024, 1024}, {4096, 4096, 256}, {256, 256, 64},
                                     {128, 128, 128},    {64, 64, 64},      {100, 72, 40},
                                     {33, 65, 17},       {16, 16, 16},      {512, 32, 2048}};

// Every default configuration (each target, input type, layout and problem
// above, all clauses left out): its fragment reads are conflict-free (the
// issue's requirement), the plan's per-K-tile figures equal the exact count
// of the promoted kernel's loop body, and it compiles to assembly.
// `lds_dma on` (issue 19: gfx950's LDS DMA copies A.mk and B.nk into
// unpadded LDS tiles, swizzled by which global chunk each lane loads): the
// promoted kernels in the interpreter against the CPU GEMM, for f16, bf16,
// OCP fp8 (equal and mixed), single and double buffering (1 to 5 K tiles:
// the pipeline's pairs and its tails), 1, 4 and 8 waves, row strides padded
// by 16 bytes (NaN in the padding, never read) and the default tiling.
TEST(PromoteGemm, LdsDmaMatchesCpuGemm) {
  std::vector<Case> cases;
  auto add = [&](ElemType in, std::optional<ElemType> in_b, ElemType out, int64_t m, int64_t n,
                 int64_t k, const std::string& clauses, int64_t ld_pad = 0) {
    Case c;
    c.target = "gfx950";
    c.in = in;
    c.in_b = in_b;
    c.out = out;
    c.m = m, c.n = n, c.k = k;
    c.clauses = clauses;
    c.ld_pad = ld_pad;
    cases.push_back(c);
  };
  const ElemType e4 = ElemType::kF8E4M3FN, e5 = ElemType::kF8E5M2;
  add(ElemType::kF16, std::nullopt, ElemType::kF32, 128, 128, 160, " tile 64x64x32 waves 2x2 double_buffer on lds_dma on");
  add(ElemType::kF16, std::nullopt, ElemType::kF16, 64, 64, 64, " tile 32x32x32 waves 1x1 double_buffer off lds_dma on", 8);
  add(ElemType::kBF16, std::nullopt, ElemType::kF32, 128, 128, 96, " lds_dma on");
  add(ElemType::kBF16, std::nullopt, ElemType::kBF16, 128, 128, 64, " tile 128x64x64 waves 4x2 lds_dma on");
  add(e4, e5, ElemType::kF32, 128, 128, 256, " lds_dma on");
  add(e5, std::nullopt, ElemType::kF16, 64, 64, 256, " tile 64x64x128 waves 2x2 double_buffer off lds_dma on", 16);
  add(e4, std::nullopt, ElemType::kF32, 64, 64, 192, " tile 32x32x64 waves 1x1 double_buffer on lds_dma on");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.Label());
    RunStats st;
    RunCase(c, &st);
    EXPECT_TRUE(st.plan.config.lds_dma);
    EXPECT_TRUE(st.plan.a.dma && st.plan.b.dma);
    std::printf("%6.3f s  %s\n%s", st.seconds, c.Label().c_str(), st.plan.Summary().c_str());
  }
}

// Issue 19: K-strided 16-bit operands on gfx950 staged K-major and read
// with load_tr (+ concat for 8-element fragments) where the bank model
// favours it: the promoted kernels in the interpreter against the CPU GEMM,
// and the 4096^3 f16 A.km x B.kn default plans both operands so (40 DS
// instructions per trip instead of 80: loop_analysis_test). GemmConfig::
// load_tr false, gfx942 (no load_tr) and A.mk never do.
TEST(PromoteGemm, LoadTrForKStridedOperandsOnGfx950) {
  std::vector<Case> cases;
  auto add = [&](ElemType in, bool a_km, bool b_kn, int64_t m, int64_t n, int64_t k, const std::string& clauses) {
    Case c;
    c.target = "gfx950";
    c.in = in;
    c.a_km = a_km, c.b_kn = b_kn;
    c.m = m, c.n = n, c.k = k;
    c.clauses = clauses;
    cases.push_back(c);
  };
  add(ElemType::kF16, true, true, 128, 128, 96, " tile 128x128x32 waves 2x2");
  add(ElemType::kBF16, true, false, 128, 64, 64, " tile 128x64x32 waves 2x2 double_buffer off");
  add(ElemType::kF16, false, true, 64, 64, 64, " tile 32x32x32 waves 1x1 mfma f32_16x16x32_f16");
  int tr_plans = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.Label());
    RunStats st;
    RunCase(c, &st);
    EXPECT_FALSE(!c.a_km && st.plan.a.tr);
    EXPECT_FALSE(!c.b_kn && st.plan.b.tr);
    tr_plans += st.plan.a.tr + st.plan.b.tr;
    std::printf("%s\n%s", c.Label().c_str(), st.plan.Summary().c_str());
  }
  EXPECT_GT(tr_plans, 0);
  Case big;
  big.target = "gfx950";
  big.a_km = big.b_kn = true;
  big.m = big.n = big.k = 4096;
  Kernel k = ParseCase(big);
  absl::StatusOr<GemmPlan> plan = PlanGemm(k, Target("gfx950"));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->a.tr && plan->b.tr) << plan->Summary();
  // Tile 128x128x32 waves 2x2: per K tile each of the 4 waves reads 2 k-steps
  // x (2 + 2) fragments of 2 load_tr each and writes 2 + 2 ds_write_b128.
  EXPECT_EQ(plan->a.fragment_reads.instructions + plan->b.fragment_reads.instructions, 4 * 16);
  EXPECT_EQ(plan->a.tile_writes.instructions + plan->b.tile_writes.instructions, 4 * 4);
  GemmConfig off;
  ASSERT_TRUE(ValidateKernel(k, Target("gfx950"), "", &off).ok());
  off.load_tr = false;
  absl::StatusOr<Kernel> p = PromoteGemm(k, Target("gfx950"), off);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(PrintKernel(*p).find("load_tr"), std::string::npos);
  big.target = "gfx942";
  absl::StatusOr<GemmPlan> p942 = PlanGemm(ParseCase(big), Target("gfx942"));
  ASSERT_TRUE(p942.ok()) << p942.status();
  EXPECT_FALSE(p942->a.tr || p942->b.tr);
}

// `lds_dma on` is refused with the reason, at the gemm's position: on
// targets without the DMA (naming the target), for K-strided operands, rows
// not 16-byte aligned, edge tiles (naming which extent) and K-tile rows that
// do not divide a wave's 1024 bytes. `lds_dma off` and the default (off)
// compile them all.
TEST(PromoteGemm, LdsDmaRefusals) {
  struct Bad {
    std::string target;
    bool a_km, b_kn;
    int64_t m, n, k, ld_pad;
    std::string clauses, want;
  };
  const Bad bad[] = {
      {"gfx942", false, false, 128, 128, 128, 0, " lds_dma on",
       "LDS DMA (buffer_load_dwordx4 ... lds), which gfx942 does not have (gfx950 only)"},
      {"gfx90a", false, false, 128, 128, 128, 0, " lds_dma on", "which gfx90a does not have"},
      {"gfx950", true, false, 128, 128, 128, 0, " lds_dma on",
       "lds_dma on needs A contiguous along K (A.mk), but A is A.km"},
      {"gfx950", false, true, 128, 128, 128, 0, " lds_dma on",
       "lds_dma on needs B contiguous along K (B.nk), but B is B.kn"},
      {"gfx950", false, false, 128, 128, 128, 4, " lds_dma on",
       "needs K stride 1 and a row stride that is a multiple of 16 bytes (8 elements), but its "
       "strides are [132, 1]"},
      {"gfx950", false, false, 100, 128, 128, 0, " lds_dma on",
       "M = 100 is not a multiple of BM = 128, so edge tiles need guarded loads"},
      {"gfx950", false, false, 128, 128, 40, 0, " tile 64x64x32 lds_dma on",
       "K = 40 is not a multiple of BK = 32"},
      {"gfx950", false, false, 64, 64, 96, 0, " tile 32x32x48 waves 1x1 lds_dma on",
       "BK = 48 is 96 bytes"},
  };
  for (const Bad& b : bad) {
    Case c;
    c.target = b.target;
    c.a_km = b.a_km;
    c.b_kn = b.b_kn;
    c.m = b.m, c.n = b.n, c.k = b.k;
    c.ld_pad = b.ld_pad;
    c.clauses = b.clauses;
    SCOPED_TRACE(c.Label());
    Kernel k = ParseCase(c);
    absl::Status v = ValidateKernel(k, Target(c.target), "gemm_test.kir");
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(v.message(), b.want)) << v.message();
    EXPECT_TRUE(absl::StartsWith(v.message(), "gemm_test.kir:")) << v.message();
    // Without the clause (default off) and with `lds_dma off` it promotes.
    for (const char* off : {"", " lds_dma off"}) {
      Case o = c;
      o.clauses = std::string(absl::StripSuffix(c.clauses, " lds_dma on")) + off;
      Kernel ko = ParseCase(o);
      absl::StatusOr<Kernel> p = ValidateAndPromote(ko, Target(o.target));
      EXPECT_TRUE(p.ok()) << o.Label() << ": " << p.status();
    }
  }
}

// The DMA layouts of gfx950's large GEMMs (the bench's 4096^3 tiles, 64 LDS
// banks) in the bank-conflict model, and the promoted kernel's exact count
// against the plan's figures (reads per K tile; no LDS stores at all: the
// DMA writes LDS without DS instructions). Each wave reads its 128 rows'
// fragments of 16 bytes (f16/bf16, 32x32x16: 4 tiles x 2 k-steps per
// operand) or 32 bytes (fp8 f8f6f4 32x32x64: 4 tiles x 1 k-step, two
// ds_read_b128 each), so per K tile and operand 4 waves x 8 = 32
// instructions of 64 lanes x 16 bytes, each 4 groups of 16 lanes (64 banks
// move 256 bytes a cycle): 128 cycles when conflict-free.
// All three: the rotated unpadded layout (by row floordiv 4, in 16-byte
// units) is conflict-free, as the register path's. A 64-byte row (32 f16 or
// 64 fp8) has 4 units and 4 rows fill the 64 banks' 256 bytes, so unit u of
// row r sits in 16-byte bank group 4 (r mod 4) + (u + r floordiv 4) mod 4:
// the 16 rows of a lane group, all reading the same unit u, hit the 16
// groups once each. fp8's 32-byte fragment is read as its two 16-byte
// units, each rotated on its own, joined by concat (issue 19; before the
// split, a whole 32-byte fragment in a 32-byte unit reached only the 8 bank
// groups of its half's parity: 2 cycles a group, 128 conflict cycles per K
// tile and operand).
TEST(PromoteGemm, LdsDmaLayoutsReadConflicts) {
  struct Big {
    ElemType in, in_b;
  };
  const ElemType e4 = ElemType::kF8E4M3FN, e5 = ElemType::kF8E5M2;
  for (const Big& big : {Big{ElemType::kF16, ElemType::kF16}, Big{ElemType::kBF16, ElemType::kBF16},
                         Big{e4, e5}}) {
    Case c;
    c.target = "gfx950";
    c.in = big.in;
    if (big.in_b != big.in) c.in_b = big.in_b;
    c.m = c.n = c.k = 4096;
    Case d = c;
    d.clauses = " lds_dma on";
    c.clauses = " lds_dma off";  // the register path (f16/bf16 take the DMA by default)
    SCOPED_TRACE(d.Label());
    const TargetInfo& t = Target("gfx950");
    absl::StatusOr<GemmPlan> reg = PlanGemm(ParseCase(c), t);
    absl::StatusOr<GemmPlan> dma = PlanGemm(ParseCase(d), t);
    ASSERT_TRUE(reg.ok()) << reg.status();
    ASSERT_TRUE(dma.ok()) << dma.status();
    std::printf("register path:\n%slds_dma on:\n%s", reg->Summary().c_str(), dma->Summary().c_str());
    EXPECT_EQ(dma->config.TilingText(), absl::StrCat(reg->config.TilingText(), " lds_dma on"));
    for (int op = 0; op < 2; ++op) {
      const GemmOperandPlan& r = op ? reg->b : reg->a;
      const GemmOperandPlan& p = op ? dma->b : dma->a;
      EXPECT_TRUE(p.dma);
      EXPECT_EQ(p.pad, 0);
      EXPECT_EQ(p.fragment_reads.instructions, 32);
      EXPECT_EQ(p.fragment_reads.cycles, 32 * 4);
      EXPECT_EQ(p.fragment_reads.conflicts, 0);
      EXPECT_EQ(r.fragment_reads.conflicts, 0);
      EXPECT_EQ(p.swizzle, 4);
      EXPECT_EQ(p.tile_writes.instructions, 0);
      // 256 x BK elements of 16 bytes per vector over 256 threads.
      EXPECT_EQ(p.copies, 256 * dma->config.bk * ElemBytes(big.in) / 16 / 256);
    }
    EXPECT_EQ(dma->lds_bytes, 2 * 2 * 256 * dma->config.bk * ElemBytes(big.in));
    absl::StatusOr<Kernel> p = ValidateAndPromote(ParseCase(d), t);
    ASSERT_TRUE(p.ok()) << p.status();
    absl::StatusOr<KernelLdsTraffic> exact = CountLdsTraffic(*p, t);
    ASSERT_TRUE(exact.ok()) << exact.status();
    // Double-buffered over T = 4096 / BK tiles: the loop's two steps and the
    // one or two after it each read one tile.
    const int64_t tiles = dma->config.KTiles(), pairs = (tiles - 1) / 2;
    const int64_t read_tiles = 2 + (tiles - 2 * pairs);
    for (const GemmOperandPlan* o : {&dma->a, &dma->b}) {
      EXPECT_EQ(exact->reads_by_alloc[o->lds].instructions, read_tiles * o->fragment_reads.instructions);
      EXPECT_EQ(exact->reads_by_alloc[o->lds].conflicts, read_tiles * o->fragment_reads.conflicts);
      EXPECT_EQ(exact->writes_by_alloc[o->lds].instructions, 0);
    }
  }
}

// fp8's 32-byte f8f6f4 fragments on the DMA layout (issue 19): read as two
// 16-byte pieces, each in its own rotated 16-byte unit, joined by concat.
// By hand (16-byte "slots" of the 64 banks' 256 bytes; a ds_read_b128
// serves 16 lanes a cycle, whose 16 rows read the same unit u):
//   16x16x128, BK 128 (128-byte rows, 2 per 256 bytes): unit u of row r
//   is at slot 8 (r mod 2) + (u + r floordiv d) mod 8; d = 1 puts rows r
//   and r + 8 together, d = 2 gives 16 rows 16 slots: swizzle 2.
//   32x32x64, BK 64 (64-byte rows, 4 per 256 bytes): slot 4 (r mod 4) +
//   (u + r floordiv d) mod 4; d = 1 and 2 pair rows r and r + 8 (or worse),
//   d = 4 gives 16 slots: swizzle 4.
// Either way no conflict cycle; per wave and K tile a fragment is 2 loads
// of 16 bytes (4 cycles each: 64 lanes in groups of 16), so the plan's
// figures are 2 x (tiles x k-steps) x waves loads per operand; the promoted
// kernel's pieces and concats are counted in its text and its values
// checked against the CPU GEMM (RunCase, the reference interpreter).
TEST(PromoteGemm, LdsDmaFp8FragmentsSplitIntoRotatedUnits) {
  struct Shape {
    std::string clauses;
    int64_t swizzle, frags_per_wave;  // fragments per wave and K tile, per operand
  };
  const Shape shapes[] = {
      // Wave tile 32x32: 2 tiles x 1 k-step of 16x16x128.
      {" tile 64x64x128 waves 2x2 mfma f32_16x16x128_fp8_bf8 lds_dma on", 2, 2},
      // Wave tile 32x32: 1 tile x 1 k-step of 32x32x64.
      {" tile 64x64x64 waves 2x2 mfma f32_32x32x64_fp8_bf8 lds_dma on", 4, 1},
  };
  for (const Shape& sh : shapes) {
    Case c;
    c.target = "gfx950";
    c.in = ElemType::kF8E4M3FN;
    c.in_b = ElemType::kF8E5M2;
    c.m = c.n = 64;  // one workgroup: the interpreter run stays short
    c.k = 384;
    c.clauses = sh.clauses;
    SCOPED_TRACE(c.Label());
    const TargetInfo& t = Target("gfx950");
    absl::StatusOr<GemmPlan> plan = PlanGemm(ParseCase(c), t);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (const GemmOperandPlan* o : {&plan->a, &plan->b}) {
      EXPECT_TRUE(o->dma);
      EXPECT_EQ(o->swizzle, sh.swizzle) << plan->Summary();
      EXPECT_EQ(o->fragment_reads.instructions, 2 * sh.frags_per_wave * 4);
      EXPECT_EQ(o->fragment_reads.cycles, 4 * 2 * sh.frags_per_wave * 4);
      EXPECT_EQ(o->fragment_reads.conflicts, 0) << plan->Summary();
    }
    absl::StatusOr<Kernel> p = ValidateAndPromote(ParseCase(c), t);
    ASSERT_TRUE(p.ok()) << p.status();
    const std::string text = PrintKernel(*p);
    // The loop's two steps and the one or two after it (as in
    // LdsDmaLayoutsReadConflicts), each with 2 x frags_per_wave fragments
    // (A and B) of two pieces.
    const int64_t tiles = plan->config.KTiles(), pairs = (tiles - 1) / 2;
    const int64_t frags = (2 + tiles - 2 * pairs) * 2 * sh.frags_per_wave;
    int64_t concats = 0, piece_loads = 0, whole_loads = 0;
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (absl::StrContains(line, " = concat ")) ++concats;
      const bool lds_load = absl::StrContains(line, " = load A_lds[") || absl::StrContains(line, " = load B_lds[");
      if (lds_load && (absl::EndsWith(line, ": f8e4m3fnx16") || absl::EndsWith(line, ": f8e5m2x16"))) ++piece_loads;
      if (lds_load && absl::EndsWith(line, "x32")) ++whole_loads;
    }
    EXPECT_EQ(concats, frags) << text;
    EXPECT_EQ(piece_loads, 2 * frags) << text;
    EXPECT_EQ(whole_loads, 0) << text;
    absl::StatusOr<KernelLdsTraffic> exact = CountLdsTraffic(*p, t);
    ASSERT_TRUE(exact.ok()) << exact.status();
    EXPECT_EQ(exact->reads.conflicts, 0);
    RunCase(c);
  }
}

TEST(PromoteGemm, DefaultConfigurations) {
  std::printf("%-7s %-5s %-5s %-16s %-52s %6s %10s %10s\n", "target", "in", "ops", "problem",
              "default tiling", "LDS", "rd_confl", "wr_confl");
  for (const TargetInfo* t : AllTargets()) {
    // f16, bf16, and on gfx942/gfx950 fp8 (E4M3 x E5M2 of the target's flavour).
    std::vector<std::pair<ElemType, ElemType>> types = {{ElemType::kF16, ElemType::kF16},
                                                        {ElemType::kBF16, ElemType::kBF16}};
    if (Fp8Elem(*t, false).has_value()) types.push_back({*Fp8Elem(*t, false), *Fp8Elem(*t, true)});
    for (const auto& [in, in_b] : types) {
      for (int layout = 0; layout < 4; ++layout) {
        for (const Size& s : kDefaultProblems) {
          Case c;
          c.target = t->name;
          c.in = in;
          if (in_b != in) c.in_b = in_b;
          c.a_km = layout & 1;
          c.b_kn = layout & 2;
          c.m = s.m;
          c.n = s.n;
          c.k = s.k;
          SCOPED_TRACE(c.Label());
          Kernel k = ParseCase(c);
          absl::StatusOr<GemmPlan> plan = PlanGemm(k, *t);
          ASSERT_TRUE(plan.ok()) << plan.status();
          EXPECT_EQ(plan->a.fragment_reads.conflicts, 0) << plan->Summary();
          EXPECT_EQ(plan->b.fragment_reads.conflicts, 0) << plan->Summary();
          absl::StatusOr<Kernel> p = ValidateAndPromote(k, *t);
          ASSERT_TRUE(p.ok()) << p.status();
          // Exact count over the whole kernel: every K tile's code appears
          // once per place it is emitted. Single-buffered: the loop body, one
          // tile. Double-buffered (T tiles): tile 0's stores in the prologue,
          // the loop's two steps when T >= 4 (P = (T - 2) / 2 pairs), then
          // T - 2P steps after it, each reading a tile and all but the last
          // storing one.
          absl::StatusOr<KernelLdsTraffic> exact = CountLdsTraffic(*p, *t);
          ASSERT_TRUE(exact.ok()) << exact.status();
          int64_t read_tiles = 1, write_tiles = 1;
          if (plan->config.double_buffer) {
            const int64_t t = plan->config.KTiles(), pairs = t >= 4 ? (t - 2) / 2 : 0;
            const int64_t in_loop = pairs > 0 ? 2 : 0, after = t - 2 * pairs;
            read_tiles = in_loop + after;
            write_tiles = 1 + in_loop + after - 1;
          }
          const GemmOperandPlan* ops[2] = {&plan->a, &plan->b};
          for (const GemmOperandPlan* o : ops) {
            const LdsTraffic& r = exact->reads_by_alloc[o->lds];
            const LdsTraffic& w = exact->writes_by_alloc[o->lds];
            EXPECT_EQ(r.instructions, read_tiles * o->fragment_reads.instructions) << o->lds;
            EXPECT_EQ(r.cycles, read_tiles * o->fragment_reads.cycles) << o->lds;
            EXPECT_EQ(r.conflicts, read_tiles * o->fragment_reads.conflicts) << o->lds;
            EXPECT_EQ(w.instructions, write_tiles * o->tile_writes.instructions) << o->lds;
            EXPECT_EQ(w.conflicts, write_tiles * o->tile_writes.conflicts) << o->lds;
          }
          if (layout == 0 || s.m == 1024) {
            std::printf("%-7s %-5s %s%s %-16s %-52s %6lld %4lld/%-5lld %4lld/%-5lld\n", t->name,
                        Name(in).c_str(), c.a_km ? "km" : "mk", c.b_kn ? "kn" : "nk",
                        absl::StrCat(s.m, "x", s.n, "x", s.k).c_str(),
                        plan->config.TilingText().c_str(),
                        static_cast<long long>(plan->lds_bytes),
                        static_cast<long long>(plan->a.fragment_reads.conflicts +
                                               plan->b.fragment_reads.conflicts),
                        static_cast<long long>(plan->a.fragment_reads.instructions +
                                               plan->b.fragment_reads.instructions),
                        static_cast<long long>(plan->a.tile_writes.conflicts +
                                               plan->b.tile_writes.conflicts),
                        static_cast<long long>(plan->a.tile_writes.instructions +
                                               plan->b.tile_writes.instructions));
          }
          // The defaults compile (the 1024^3 kernels go through the whole
          // pipeline on every target; the rest validate above).
          if (s.m == 1024 && layout == 0) {
            CompileOptions o;
            o.mcpu = t->name;
            absl::StatusOr<CompileResult> r = Compile(k, o);
            EXPECT_TRUE(r.ok()) << r.status();
          }
        }
      }
    }
  }
}

TEST(PromoteGemm, DefaultsFollowTheDocumentedRules) {
  struct Want {
    const char* target;
    ElemType in;
    Size size;
    const char* tiling;
  };
  const Want wants[] = {
      {"gfx942", ElemType::kF16, {1024, 1024, 1024},
       "tile 128x128x32 waves 2x2 mfma f32_32x32x8_f16 double_buffer on"},
      {"gfx90a", ElemType::kBF16, {1024, 1024, 1024},
       "tile 128x128x32 waves 2x2 mfma f32_32x32x8_bf16 double_buffer on"},
      {"gfx908", ElemType::kBF16, {1024, 1024, 1024},
       "tile 128x128x32 waves 2x2 mfma f32_32x32x4_bf16 double_buffer on"},
      {"gfx942", ElemType::kF16, {64, 64, 64},
       "tile 64x64x32 waves 2x2 mfma f32_32x32x8_f16 double_buffer on"},
      {"gfx942", ElemType::kF16, {33, 65, 17},
       "tile 64x128x32 waves 2x2 mfma f32_32x32x8_f16 double_buffer off"},
      {"gfx942", ElemType::kF16, {16, 16, 16},
       "tile 16x16x16 waves 1x1 mfma f32_16x16x16_f16 double_buffer off"},
      {"gfx908", ElemType::kBF16, {32, 32, 16},
       "tile 32x32x16 waves 1x1 mfma f32_32x32x4_bf16 double_buffer off"},
  };
  for (const Want& w : wants) {
    Case c;
    c.target = w.target;
    c.in = w.in;
    c.m = w.size.m;
    c.n = w.size.n;
    c.k = w.size.k;
    Kernel k = ParseCase(c);
    absl::StatusOr<GemmConfig> cfg = ResolveGemm(k, k.body[0], Target(w.target));
    ASSERT_TRUE(cfg.ok()) << cfg.status();
    EXPECT_EQ(cfg->TilingText(), w.tiling) << c.Label();
    EXPECT_TRUE(cfg->default_tile && cfg->default_waves && cfg->default_mfma &&
                cfg->default_double_buffer);
  }
}

// A gemm on views with rows far apart in buffers past 2 GiB (fresh-user
// review 11 F3, gw.kir): each workgroup's tiles must fit a buffer window of
// 2^31 bytes. Worked by hand (gemm_config.h "buffer windows"): the 64x64x64
// default (waves 2x2, 32x32 MFMA) reaches 63 x 50e6 x 2 = 6.3e9 bytes of C
// (64 rows of the waves' and MFMA's) and 63 x 40e6 + 64 = 2.52e9 of A; C's
// rows lie farthest apart, so BM halves to 32 (waves 1x2, 32x32 MFMA: C
// still 31 x 1e8 = 3.1e9), then to 16 (16x16 MFMA: C 15 x 1e8 + 47 x 2 + 2
// bytes, A 15 x 40e6 + 64, B.kn 63 x 30e6 + 64, all below 2^31). It compiles
// (the lowering checks every access's window).
TEST(PromoteGemm, DefaultTileFitsBufferWindows) {
  const std::string text = R"(kernel gw
target gfx942
workgroup auto
grid auto
arg A : f8e4m3fnuz[64, 128] strides [40000000, 1] readonly
arg B : f8e5m2fnuz[128, 48] strides [30000000, 1] readonly
arg C : f16[64, 48] strides [CSTRIDE, 1] readwrite
arg alpha : f32
arg beta : f32
  gemm C = alpha * A.mk * B.kn + beta * C
end
)";
  absl::StatusOr<Kernel> k = ParseKernel(absl::StrReplaceAll(text, {{"CSTRIDE", "50000000"}}), "gw.kir");
  ASSERT_TRUE(k.ok()) << k.status();
  absl::StatusOr<GemmConfig> cfg = ResolveGemm(*k, k->body[0], Target("gfx942"));
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->TilingText(), "tile 16x64x64 waves 1x2 mfma f32_16x16x32_fp8_bf8 double_buffer on");
  CompileOptions o;
  o.mcpu = "gfx942";
  absl::StatusOr<CompileResult> r = Compile(*k, o);
  EXPECT_TRUE(r.ok()) << r.status();
  // C's rows 80e6 elements apart: even 16 rows (the smallest tile: BN
  // halves too, to 16) reach 15 x 1.6e8 + 15 x 2 + 2 bytes: refused on the
  // gemm line, naming C and the tile, before anything is promoted.
  k = ParseKernel(absl::StrReplaceAll(text, {{"CSTRIDE", "80000000"}}), "gw.kir");
  ASSERT_TRUE(k.ok()) << k.status();
  absl::StatusOr<Kernel> p = ValidateAndPromote(*k, Target("gfx942"), "gw.kir");
  ASSERT_FALSE(p.ok());
  const std::string m(p.status().message());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << m;
  EXPECT_NE(m.find("gw.kir:10:3"), std::string::npos) << m;
  EXPECT_NE(m.find("no tile keeps a workgroup's part of C within the 2^31 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("tile 16x16x64 waves 1x1"), std::string::npos) << m;
  EXPECT_NE(m.find("reaches 2400000032 bytes"), std::string::npos) << m;
  EXPECT_EQ(m.find("%"), std::string::npos) << m;  // no op of the promoted kernel
}

// ---------------------------------------------------------------- testdata

std::string ReadFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return "";
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

// The gemm examples in testdata promote, validate and compile on every
// target where their MFMA exists.
TEST(PromoteGemm, TestdataKernels) {
  for (const char* name : {"gemm_f16_256", "gemm_bf16_edge", "gemm_f16_km_kn"}) {
    std::string path = absl::StrCat("testdata/kernels/", name, ".kir");
    absl::StatusOr<Kernel> k = ParseKernel(ReadFile(path), path);
    ASSERT_TRUE(k.ok()) << k.status();
    for (const TargetInfo* t : AllTargets()) {
      CompileOptions o;
      o.mcpu = t->name;
      absl::StatusOr<CompileResult> r = Compile(*k, o);
      EXPECT_TRUE(r.ok()) << name << " on " << t->name << ": " << r.status();
    }
  }
}

}  // namespace
}  // namespace kir
