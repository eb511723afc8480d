// Small and odd gemm shapes through the whole compiler (promotion, the
// validator on the promoted kernel, lowering, assembly) on every target: no
// shape, layout or stride may end in an error, least of all an internal one
// (the promoter must only emit accesses the layout's alignment allows).
// Compile only; promote_test and //hw/run:gemm_emu_test check the numbers.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/types.h"
#include "compiler/promote/promote.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

std::string Name(ElemType e) { return std::string(ElemTypeName(e)); }

struct Shape {
  std::vector<int64_t> shape, strides;
};

std::string Decl(const char* name, ElemType e, const Shape& s, const char* access) {
  return absl::StrCat("arg ", name, " : ", Name(e), "[", s.shape[0], ", ", s.shape[1],
                      "] strides [", s.strides[0], ", ", s.strides[1], "] ", access, "\n");
}

struct SweepCase {
  std::string target;
  ElemType in = ElemType::kF16, out = ElemType::kF32;
  std::optional<ElemType> in_b;  // B's type when it differs from A's (fp8)
  int64_t m = 1, n = 1, k = 1;
  bool a_km = false, b_kn = false, c_col = false, beta = true;
  int64_t pad = 0;  // extra elements per row (leading-dimension padding) of A, B and C

  std::string Text() const {
    Shape a = a_km ? Shape{{k, m}, {m + pad, 1}} : Shape{{m, k}, {k + pad, 1}};
    Shape b = b_kn ? Shape{{k, n}, {n + pad, 1}} : Shape{{n, k}, {k + pad, 1}};
    Shape c = c_col ? Shape{{m, n}, {1, m + pad}} : Shape{{m, n}, {n + pad, 1}};
    std::string s = absl::StrCat("kernel sweep\ntarget ", target, "\nworkgroup auto\ngrid auto\n");
    s += Decl("A", in, a, "readonly");
    s += Decl("B", in_b.value_or(in), b, "readonly");
    s += Decl("C", out, c, beta ? "readwrite" : "writeonly");
    s += beta ? "arg alpha : f32\narg beta : f32\n" : "arg alpha : f32\n";
    absl::StrAppend(&s, "  gemm C = alpha * A.", a_km ? "km" : "mk", " * B.", b_kn ? "kn" : "nk",
                    beta ? " + beta * C" : "", "\nend\n");
    return s;
  }
};

// Validates, promotes and validates the promoted kernel on the case's target
// (the promoter's output must validate), and with `full` also lowers and
// assembles it; returns "" or the error.
std::string CheckCase(const SweepCase& c, bool full) {
  std::string err;
  if (full) {
    CompileOptions opts;
    opts.filename = "sweep.kir";
    absl::StatusOr<CompileResult> r = CompileText(c.Text(), "sweep.kir", opts);
    if (!r.ok()) err = std::string(r.status().message());
  } else {
    absl::StatusOr<Kernel> k = ParseKernel(c.Text(), "sweep.kir");
    if (!k.ok()) return std::string(k.status().message());
    absl::StatusOr<Kernel> p = ValidateAndPromote(*k, **LookupTarget(c.target), "sweep.kir");
    if (!p.ok()) err = std::string(p.status().message());
  }
  return err.empty() ? "" : absl::StrCat(err, "\n", c.Text());
}

// KIRC_GEMM_SWEEP=full runs every case on every target with both input types
// and compiles each one to assembly (3 x 2 x 1000 cases, a few minutes in a
// fastbuild); by default each case runs once, the target, input type and
// output type rotating over the cases, and every 8th is compiled to assembly.
bool FullSweep() {
  const char* e = std::getenv("KIRC_GEMM_SWEEP");
  return e != nullptr && std::string(e) == "full";
}

const ElemType kOut[] = {ElemType::kF32, ElemType::kF16, ElemType::kBF16};

TEST(GemmShapeSweep, SmallShapesCompileOnEveryTarget) {
  const bool full = FullSweep();
  const std::vector<const TargetInfo*>& targets = AllTargets();
  const int64_t sizes[] = {1, 2, 3, 5, 17};
  int cases = 0, failures = 0;
  std::set<std::string> seen;  // target, input, output, layout combinations covered
  int q = 0;                   // shape number
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : sizes) {
        for (int layout = 0; layout < 8; ++layout) {
          SweepCase c;
          c.m = m, c.n = n, c.k = k;
          c.a_km = layout & 1;
          c.b_kn = layout & 2;
          c.c_col = layout & 4;
          c.out = kOut[(q / 6 + layout) % 3];
          c.beta = (q + layout / 2) % 2 == 0;
          const int combo = (q + layout) % 6;  // every layout meets all six
          for (int i = 0; i < 6; ++i) {
            if (!full && i != combo) continue;
            c.target = targets[i / 2]->name;
            c.in = i % 2 ? ElemType::kBF16 : ElemType::kF16;
            ++cases;
            seen.insert(absl::StrCat(c.target, Name(c.in), Name(c.out), layout));
            std::string err = CheckCase(c, full || q % 8 == layout);
            if (!err.empty() && ++failures <= 5) ADD_FAILURE() << err;
          }
        }
        ++q;
      }
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_EQ(cases, full ? 6000 : 1000);
  EXPECT_EQ(seen.size(), 3u * 2 * 3 * 8);
}

// fp8 inputs (issue 19 part 3) on gfx942 and gfx950: small and odd shapes
// (byte-wise copies where an extent is not a multiple of 4; K < BK), all 8
// layouts, equal and mixed formats, every output type; every 4th case is
// compiled to assembly, the rest promoted and validated.
TEST(GemmShapeSweep, Fp8SmallShapesCompile) {
  const int64_t sizes[] = {1, 3, 4, 17, 33};
  int cases = 0, failures = 0, q = 0;
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : sizes)
        for (int layout = 0; layout < 8; ++layout, ++q) {
          SweepCase c;
          c.m = m, c.n = n, c.k = k;
          c.a_km = layout & 1;
          c.b_kn = layout & 2;
          c.c_col = layout & 4;
          c.out = kOut[q % 3];
          c.beta = q % 2 == 0;
          const TargetInfo& t = **LookupTarget(q % 2 ? "gfx950" : "gfx942");
          c.target = t.name;
          c.in = *Fp8Elem(t, (q / 2) % 2 != 0);
          if ((q / 4) % 2) c.in_b = *Fp8Elem(t, (q / 2) % 2 == 0);
          ++cases;
          std::string err = CheckCase(c, q % 4 == 0);
          if (!err.empty() && ++failures <= 5) ADD_FAILURE() << err;
        }
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_EQ(cases, 1000);
}

// Issue 13: ordinary mid-size shapes with the default configuration, with and
// without `+ beta * C`. Without beta, 48 of the 121 (M, N) pairs at K = 64 ran
// out of SGPRs on every target (the epilogue's guard masks and address parts
// of many stores live at once); with beta they needed 36. Every one must
// compile, and in at most half the target's SGPRs, so that the guards cannot
// pile up again unnoticed (the no-beta shapes that did compile needed up to
// 84). By default each (M, N, beta) compiles once, the target and K rotating
// (242 kernels); KIRC_GEMM_SWEEP=full compiles all 121 x 2 x 2 x 3 = 1452
// (give it --test_timeout=1800: a shard runs for several minutes).
TEST(GemmShapeSweep, MidSizeShapesWithAndWithoutBetaCompileOnEveryTarget) {
  const bool full = FullSweep();
  const std::vector<const TargetInfo*>& targets = AllTargets();
  const int64_t sizes[] = {1, 64, 100, 129, 160, 200, 250, 257, 300, 400, 1000};
  const int64_t ks[] = {32, 64};
  int cases = 0, failures = 0, q = 0;
  std::set<std::string> seen;  // target, K, beta
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (bool beta : {false, true}) {
        for (size_t t = 0; t < targets.size(); ++t)
          for (int ki = 0; ki < 2; ++ki) {
            if (!full && (static_cast<int>(t) != q % 3 || ki != (q / 6) % 2)) continue;
            SweepCase c;
            c.target = targets[t]->name;
            c.m = m, c.n = n, c.k = ks[ki];
            c.beta = beta;
            ++cases;
            seen.insert(absl::StrCat(c.target, " ", c.k, beta ? " beta" : ""));
            absl::StatusOr<CompileResult> r = CompileText(c.Text(), "sweep.kir", CompileOptions{});
            std::string err;
            if (!r.ok())
              err = std::string(r.status().message());
            else if (r->resources.sgprs > targets[t]->max_sgprs / 2)
              err = absl::StrCat(r->resources.sgprs, " SGPRs, more than half of ",
                                 targets[t]->max_sgprs);
            if (!err.empty() && ++failures <= 5) ADD_FAILURE() << err << "\n" << c.Text();
          }
        ++q;
      }
  EXPECT_EQ(failures, 0) << "of " << cases << " cases";
  EXPECT_EQ(cases, full ? 1452 : 242);
  EXPECT_EQ(seen.size(), 3u * 2 * 2);
}

// Padded leading dimensions (odd and even), so that the vectors the tile's or
// the shape's extents would allow are ruled out by the strides.
TEST(GemmShapeSweep, PaddedStridesCompileOnEveryTarget) {
  const bool full = FullSweep();
  const std::vector<const TargetInfo*>& targets = AllTargets();
  int failures = 0, q = 0;
  for (int64_t pad : {1, 2, 3, 4, 8})
    for (int64_t mnk : {1, 16, 24, 33})
      for (int layout = 0; layout < 8; ++layout, ++q)
        for (size_t t = 0; t < targets.size(); ++t) {
          if (!full && static_cast<int>(t) != q % 3) continue;
          SweepCase c;
          c.target = targets[t]->name;
          c.in = q % 2 ? ElemType::kBF16 : ElemType::kF16;
          c.out = kOut[q % 3];
          c.m = mnk, c.n = mnk == 33 ? 17 : mnk, c.k = mnk == 1 ? 40 : mnk;
          c.a_km = layout & 1;
          c.b_kn = layout & 2;
          c.c_col = layout & 4;
          c.pad = pad;
          std::string err = CheckCase(c, full || q % 8 == 0);
          if (!err.empty() && ++failures <= 5) ADD_FAILURE() << err;
        }
  EXPECT_EQ(failures, 0);
}

// The N = 1 kernel the defect report named: C f32[M, 1] strides [1, 1] had
// its epilogue emit an f32x4 `along 0` access that needs 16-byte alignment.
// Now the promoted epilogue uses scalar C accesses, and still a vector where
// the layout allows one (row-major C with N a multiple of 4: along 0 is
// strided, so 4-byte alignment suffices; col-major C with M % 4 == 0: f32x4).
TEST(GemmShapeSweep, EpilogueWidthFollowsCsAlignment) {
  for (const TargetInfo* t : AllTargets()) {
    SweepCase c;
    c.target = t->name;
    auto c_load_types = [&](const SweepCase& sc) {
      absl::StatusOr<Kernel> k = ParseKernel(sc.Text(), "sweep.kir");
      EXPECT_TRUE(k.ok()) << k.status();
      absl::StatusOr<Kernel> p = ValidateAndPromote(*k, *t);
      EXPECT_TRUE(p.ok()) << p.status();
      std::set<std::string> widths;
      if (!p.ok()) return widths;
      for (const Op& op : p->body)
        if ((op.kind == OpKind::kLoad || op.kind == OpKind::kStore) && op.mem == "C")
          widths.insert(op.kind == OpKind::kLoad ? ValueTypeName(op.type) : "store");
      return widths;
    };
    for (int64_t m : {1, 16, 100}) {
      c.m = m, c.n = 1, c.k = m == 100 ? 64 : 16;
      EXPECT_EQ(c_load_types(c), (std::set<std::string>{"f32", "store"})) << t->name << " m " << m;
    }
    c.m = 16, c.n = 16, c.k = 16;
    EXPECT_EQ(c_load_types(c), (std::set<std::string>{"f32x4", "store"})) << t->name;
    c.c_col = true;
    EXPECT_EQ(c_load_types(c), (std::set<std::string>{"f32x4", "store"})) << t->name;
    c.m = 18;  // col-major C with M = 18: columns start 8-byte aligned
    EXPECT_EQ(c_load_types(c), (std::set<std::string>{"f32x2", "store"})) << t->name;
  }
}

}  // namespace
}  // namespace kir
