// Tiled GEMMs (the tile-level gemm op, promoted and compiled by kirc) run in
// the strict emulator and compared with a plain CPU GEMM written here (not
// the KIR reference): C = alpha * op(A) * op(B) + beta * C with alpha 1.5,
// beta 0.5 and a non-zero C. A covering set of about 40 kernels: every input
// type, layout, output type and target; double buffering on and off; 1, 4 and
// 8 waves; every (input type, layout) pair; sizes 64^3, 128^3, 256x256x64 and
// the edges 100x72x40 and 33x65x17; plus N = 1, M = 1 and a column-major C
// of 18 rows (narrow epilogue accesses), and three odd mid-size shapes
// without beta (C = alpha * op(A) * op(B); issue 13), and two with `+ C`
// (beta 1). The full cross product is
// //hw/run:gemm_emu_full_test (manual).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/float_bits.h"
#include "compiler/ir/parser.h"
#include "compiler/promote/promote.h"
#include "gtest/gtest.h"
#include "hw/check/compare.h"
#include "hw/check/inputs.h"
#include "hw/emu/emu_device.h"
#include "verify/verify.h"

namespace kir {
namespace {

struct GemmCase {
  std::string in, out;  // element types
  bool a_km, b_kn;
  std::string target;
  bool double_buffer;
  int waves;  // 0: default tiling; 1, 4, 8: explicit
  int64_t m, n, k;
  bool c_col = false;  // C column-major (strides [1, M])
  bool beta = true;    // C = alpha * A * B + beta * C, else C = alpha * A * B
  std::string in_b;    // B's element type when it differs from A's (fp8 formats)
  bool scales = false; // C = alpha * sa * sb * A * B ...: per-tensor scales sa = 0.5, sb = 2
  bool plus_c = false; // with beta: `+ C` (beta = 1, no beta argument) instead of `+ beta * C`
  bool lds_dma = false; // `lds_dma on` (gfx950: A and B copied by the LDS DMA)
  std::string mfma;     // `mfma NAME` when not empty (with an explicit tiling)
};

std::string Name(const GemmCase& c) {
  return absl::StrCat(c.in, c.in_b.empty() ? "" : "x" + c.in_b, c.scales ? "_scaled" : "", "_", c.a_km ? "km" : "mk", c.b_kn ? "kn" : "nk", "_", c.out, "_",
                      c.target, "_", c.double_buffer ? "db" : "sb", "_w", c.waves, "_", c.m, "x",
                      c.n, "x", c.k, c.c_col ? "_ccol" : "", c.beta ? "" : "_nobeta",
                      c.plus_c ? "_plusc" : "", c.lds_dma ? "_dma" : "", c.mfma.empty() ? "" : "_" + c.mfma);
}

std::string KernelText(const GemmCase& c) {
  auto dims = [](bool t, int64_t outer, int64_t k) {
    int64_t r = t ? k : outer, cols = t ? outer : k;
    return absl::StrCat("[", r, ", ", cols, "] strides [", cols, ", 1]");
  };
  std::string tiling;
  if (c.waves == 1) tiling = " tile 32x32x32 waves 1x1";
  if (c.waves == 4) tiling = " tile 64x64x32 waves 2x2";
  if (c.waves == 8) tiling = " tile 128x64x32 waves 4x2";
  // fp8: the K tile of the default's bytes or more (64; gfx950 128, the f8f6f4 k).
  if (c.in.rfind("f8", 0) == 0 && !tiling.empty())
    tiling = absl::StrReplaceAll(
        tiling, {{"x32 waves", c.target == "gfx950" && c.waves > 1 ? "x128 waves" : "x64 waves"}});
  if (!c.mfma.empty()) tiling += " mfma " + c.mfma;
  return absl::StrCat(
      "kernel ", "g", "\ntarget ", c.target, "\nworkgroup auto\ngrid auto\n",
      "arg A : ", c.in, dims(c.a_km, c.m, c.k), " readonly\n",
      "arg B : ", c.in_b.empty() ? c.in : c.in_b, dims(c.b_kn, c.n, c.k), " readonly\n",
      "arg C : ", c.out, "[", c.m, ", ", c.n, "] strides ",
      c.c_col ? absl::StrCat("[1, ", c.m, "]") : absl::StrCat("[", c.n, ", 1]"),
      c.beta ? " readwrite\n" : " writeonly\n", "arg alpha : f32\n", c.beta && !c.plus_c ? "arg beta : f32\n" : "",
      c.scales ? "arg sa : f32\narg sb : f32\n" : "", "  gemm C = alpha * ", c.scales ? "sa * sb * " : "", "A.", c.a_km ? "km" : "mk", " * B.", c.b_kn ? "kn" : "nk",
      c.beta ? (c.plus_c ? " + C" : " + beta * C") : "", tiling, " double_buffer ", c.double_buffer ? "on" : "off", c.lds_dma ? " lds_dma on" : "", "\nend\n");
}

double Elem(ElemType t, const PagedBytes& buf, int64_t index) {
  uint8_t b[4] = {};
  buf.Read(static_cast<uint64_t>(index * ElemBytes(t)), b, static_cast<uint64_t>(ElemBytes(t)));
  return ElementValue(t, b);
}

void SetElem(ElemType t, PagedBytes& buf, int64_t index, double v) {
  uint32_t bits = t == ElemType::kF32   ? F32Bits(static_cast<float>(v))
                  : t == ElemType::kF16 ? F32ToF16Bits(static_cast<float>(v))
                                        : F32ToBf16Bits(static_cast<float>(v));
  std::memcpy(buf.data() + index * ElemBytes(t), &bits, ElemBytes(t));
}

class GemmEmuTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmEmuTest, EmulatorEqualsCpuGemm) {
  const GemmCase& c = GetParam();
  std::string text = KernelText(c);
  absl::StatusOr<Kernel> k = ParseKernel(text, "gemm.kir");
  ASSERT_TRUE(k.ok()) << k.status() << "\n" << text;
  CompileOptions o;
  o.mcpu = c.target;
  absl::StatusOr<CompileResult> r = Compile(*k, o);
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << text;
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok());
  absl::StatusOr<std::string> hsaco = CodeObjectFor(*r, *bin);
  ASSERT_TRUE(hsaco.ok()) << hsaco.status();
  // The promoted kernel has the launch geometry (workgroup, grid) the device needs.
  absl::StatusOr<Kernel> promoted = ValidateAndPromote(*k, *r->target, "gemm.kir");
  ASSERT_TRUE(promoted.ok()) << promoted.status();
  KernelData data = MakeInputs(*k, 11);
  data.scalars["alpha"] = F32Bits(1.5f);
  if (c.beta && !c.plus_c) data.scalars["beta"] = F32Bits(0.5f);
  const double beta = c.plus_c ? 1.0 : 0.5;
  if (c.scales) {
    data.scalars["sa"] = F32Bits(0.5f);
    data.scalars["sb"] = F32Bits(2.0f);
  }
  // alpha as the gemm forms it (compiler/ir/gemm.h): (1.5 * 0.5) * 2 in f32.
  const double alpha = c.scales ? static_cast<double>((1.5f * 0.5f) * 2.0f) : 1.5;
  KernelData in = data;
  EmuDevice emu(*bin);
  absl::StatusOr<DeviceRun> run = emu.Run(*promoted, *r->target, *hsaco, data);
  ASSERT_TRUE(run.ok()) << run.status();
  // CPU GEMM in double from the exact input values.
  ElemType ti = k->args[0].elem, tb = k->args[1].elem, to = k->args[2].elem;
  KernelData ref = in;
  // A and B decoded once, in their memory order (this loop runs m*n*k times
  // and, unoptimised like every test file, spent most of the test's time
  // decoding the same elements again and looking up the buffers by name).
  std::vector<double> av(static_cast<size_t>(c.m * c.k)), bv(static_cast<size_t>(c.k * c.n));
  for (size_t x = 0; x < av.size(); ++x) av[x] = Elem(ti, in.buffers["A"], static_cast<int64_t>(x));
  for (size_t x = 0; x < bv.size(); ++x) bv[x] = Elem(tb, in.buffers["B"], static_cast<int64_t>(x));
  const PagedBytes& c_in = in.buffers["C"];
  PagedBytes& c_ref = ref.buffers["C"];
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < c.k; ++kk) {
        double a = av[c.a_km ? kk * c.m + i : i * c.k + kk];
        double b = bv[c.b_kn ? kk * c.n + j : j * c.k + kk];
        acc += a * b;
      }
      const int64_t ci = c.c_col ? j * c.m + i : i * c.n + j;
      double cin = Elem(to, c_in, ci);
      SetElem(to, c_ref, ci, c.beta ? alpha * acc + beta * cin : alpha * acc);
    }
  std::vector<BufferDiff> diffs = CompareOutputs(*k, data, ref);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_TRUE(diffs[0].ok) << Name(c) << "\n" << FormatDiffs(diffs);
  EXPECT_GT(diffs[0].max_abs_ref, 0);
  // And the verifier proves every address of the code, loops by induction.
  // The default budget is counted in Z3 resource units, not time, so the
  // verdict does not depend on the machine's load. lds_dma kernels too
  // (issue 19): both sides of every DMA, with the M0 its window's DMAs share
  // (verify/lds_dma_test has the mutations); the strict emulator above
  // checks their waits and LDS races.
  absl::StatusOr<VerifyResult> v = VerifyAddresses(*k, *r->target, r->lowered);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->all_proved) << v->Report();
}

std::vector<GemmCase> Covering() {
  const char* ins[] = {"f16", "bf16"};
  const char* outs[] = {"f32", "f16", "bf16"};
  const char* targets[] = {"gfx908", "gfx90a", "gfx942"};
  const int waves[] = {0, 1, 4, 8};
  const int64_t sizes[][3] = {{64, 64, 64}, {128, 128, 128}, {256, 256, 64}, {100, 72, 40}, {33, 65, 17}};
  std::vector<GemmCase> v;
  for (int i = 0; i < 40; ++i) {
    GemmCase c;
    c.in = ins[i % 2];
    int layout = (i / 2) % 4;  // with the input type: all 8 pairs in every 8 cases
    c.a_km = layout & 1;
    c.b_kn = layout & 2;
    c.out = outs[i % 3];
    c.target = targets[(i / 3) % 3];
    c.double_buffer = (i / 5) % 2 == 0;
    c.waves = waves[(i / 7) % 4];
    const int64_t* s = sizes[i % 5];
    c.m = s[0], c.n = s[1], c.k = s[2];
    v.push_back(c);
  }
  // N = 1 and M = 1 (C's epilogue accesses narrowed to what the layout
  // aligns: scalars for C f32[M, 1] strides [1, 1]), and a column-major C
  // whose columns are only 8-byte aligned (M = 18: f32x2 pieces).
  v.push_back({"f16", "f32", false, false, "gfx942", false, 0, 1, 1, 1});
  v.push_back({"bf16", "bf16", false, true, "gfx90a", true, 0, 16, 1, 16});
  v.push_back({"f16", "f16", true, false, "gfx908", true, 0, 100, 1, 64});
  v.push_back({"bf16", "f32", true, true, "gfx908", false, 0, 1, 24, 17});
  v.push_back({"f16", "f32", false, false, "gfx90a", true, 0, 18, 5, 3, true});
  // Issue 13: without `+ beta * C` (C only written) on odd mid-size shapes,
  // whose guarded epilogue stores ran out of SGPRs on every target; the
  // first is the reported kernel.
  v.push_back({"f16", "f32", false, false, "gfx942", false, 0, 200, 200, 32, false, false});
  v.push_back({"f16", "f16", false, true, "gfx90a", true, 0, 129, 257, 64, false, false});
  v.push_back({"bf16", "f32", true, false, "gfx908", true, 0, 257, 100, 64, true, false});
  // gfx950 (the 40 cases above cycle through the first three targets; these
  // are added so that their assignment stays as it was): the default tiling
  // (gfx942's, 64 LDS banks for the layout choice), explicit waves, both
  // input types and all four layouts, odd shapes, C column-major and no beta.
  v.push_back({"f16", "f32", false, false, "gfx950", true, 0, 128, 128, 128});
  v.push_back({"bf16", "bf16", true, true, "gfx950", false, 4, 256, 256, 64});
  v.push_back({"f16", "f16", true, false, "gfx950", true, 8, 100, 72, 40});
  v.push_back({"bf16", "f32", false, true, "gfx950", false, 1, 33, 65, 17, true});
  v.push_back({"f16", "f32", false, false, "gfx950", false, 0, 200, 200, 32, false, false});
  // f16 with both operands K-major (A.km, B.kn) at the default tiling: the
  // layouts a transposing fragment read (load_tr) serves (issue 19).
  v.push_back({"f16", "f32", true, true, "gfx950", true, 0, 128, 128, 64});
  // Issue 19: K-strided 16-bit operands staged K-major and read with two
  // load_tr + concat where promotion's bank model prefers it: A.km alone,
  // B.kn alone, single and double buffered, f16 and bf16, 1 and 4 waves
  // (16x16x32 and 32x32x16 fragments), a partial K tile.
  v.push_back({"f16", "f32", true, false, "gfx950", false, 0, 128, 128, 96});
  v.push_back({"bf16", "f32", false, true, "gfx950", true, 0, 128, 128, 128});
  v.push_back({"bf16", "f16", true, true, "gfx950", true, 4, 128, 64, 72});
  v.push_back({"f16", "bf16", true, true, "gfx950", false, 1, 64, 64, 64});
  // fp8 (issue 19 part 3): gfx942 FNUZ and gfx950 OCP, equal and mixed
  // formats, every layout, per-tensor scales, edges (K < BK), double
  // buffering on and off, default and explicit waves; C f32, f16, bf16.
  const std::string fnuz[] = {"f8e4m3fnuz", "f8e5m2fnuz"}, ocp[] = {"f8e4m3fn", "f8e5m2"};
  const int64_t fp8_sizes[][3] = {{128, 128, 256}, {100, 72, 40}, {64, 64, 64}, {33, 65, 17}};
  for (int i = 0; i < 16; ++i) {
    const bool g950 = i >= 8;
    const std::string* f = g950 ? ocp : fnuz;
    GemmCase c;
    c.in = f[i % 2];
    c.in_b = f[(i / 2) % 2];
    if (c.in_b == c.in) c.in_b.clear();
    c.out = outs[i % 3];
    c.a_km = (i / 2) % 2 != 0;
    c.b_kn = i % 4 == 1 || i % 4 == 2;
    c.target = g950 ? "gfx950" : "gfx942";
    c.double_buffer = i % 3 != 2;
    c.waves = waves[(i / 2) % 4] == 8 ? 0 : waves[(i / 2) % 4];
    const int64_t* s = fp8_sizes[i % 4];
    c.m = s[0], c.n = s[1], c.k = s[2];
    c.beta = i % 5 != 4;
    c.scales = i % 4 != 3;
    v.push_back(c);
  }
  // Review of issue 19: `gemm C = alpha * A.mk * B.nk + C` (beta 1, no
  // beta argument), 16-bit and fp8, f32 and bf16 C.
  GemmCase plus{"f16", "f32", false, true, "gfx942", true, 0, 100, 72, 40};
  plus.plus_c = true;
  v.push_back(plus);
  plus = {"f8e4m3fn", "bf16", true, false, "gfx950", true, 0, 64, 64, 256};
  plus.in_b = "f8e5m2";
  plus.plus_c = true;
  v.push_back(plus);
  // Issue 19: `lds_dma on` (gfx950's LDS DMA copies A.mk / B.nk into
  // unpadded, possibly swizzled tiles): f16, bf16 and OCP fp8 (equal and
  // mixed formats), double buffering on and off, 1, 4 and 8 waves (8: fp8,
  // whose 64-row B tile is whole rounds of 512 threads x 16 bytes) and the
  // default tiling, K tiles 1 to 5 (the double-buffered loop's pairs and its
  // one- and two-step tails).
  auto dma = [&](std::string in, std::string in_b, std::string out, bool db, int waves, int64_t m,
                 int64_t n, int64_t k) {
    GemmCase c{in, out, false, false, "gfx950", db, waves, m, n, k};
    c.in_b = in_b;
    c.lds_dma = true;
    v.push_back(c);
  };
  dma("f16", "", "f32", true, 4, 128, 128, 160);
  dma("f16", "", "f16", false, 0, 128, 128, 64);
  dma("f16", "", "bf16", true, 0, 256, 128, 128);
  dma("bf16", "", "f32", true, 4, 128, 128, 96);
  dma("bf16", "", "bf16", false, 1, 64, 64, 64);
  dma("f8e4m3fn", "f8e5m2", "f32", true, 4, 128, 128, 384);
  dma("f8e5m2", "", "f16", false, 4, 64, 64, 256);
  dma("f8e4m3fn", "", "f32", true, 0, 128, 128, 128);
  dma("f8e5m2", "f8e4m3fn", "f32", true, 8, 128, 128, 384);
  dma("f8e4m3fn", "", "bf16", true, 1, 64, 32, 256);
  // fp8 with 16x16x128 f8f6f4 (its 32-byte fragments split into two rotated
  // 16-byte pieces on the DMA layout, by row floordiv 2; the 32x32x64 cases
  // above by row floordiv 4), three K tiles.
  dma("f8e4m3fn", "f8e5m2", "f32", true, 4, 128, 128, 384);
  v.back().mfma = "f32_16x16x128_fp8_bf8";
  return v;
}

#ifdef KIRC_GEMM_FULL_CROSS
// The full cross product (manual: //hw/run:gemm_emu_full_test).
std::vector<GemmCase> FullCross() {
  std::vector<GemmCase> v;
  const int64_t sizes[][3] = {{64, 64, 64}, {128, 128, 128}, {256, 256, 64}, {100, 72, 40}, {33, 65, 17}};
  for (const char* in : {"f16", "bf16"})
    for (int layout = 0; layout < 4; ++layout)
      for (const char* out : {"f32", "f16", "bf16"})
        for (const char* t : {"gfx908", "gfx90a", "gfx942", "gfx950"})
          for (bool db : {true, false})
            for (int w : {0, 1, 4, 8})
              for (const auto& s : sizes)
                v.push_back({in, out, (layout & 1) != 0, (layout & 2) != 0, t, db, w, s[0], s[1], s[2]});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Full, GemmEmuTest, ::testing::ValuesIn(FullCross()),
                         [](const ::testing::TestParamInfo<GemmCase>& i) { return Name(i.param); });
#else
INSTANTIATE_TEST_SUITE_P(Covering, GemmEmuTest, ::testing::ValuesIn(Covering()),
                         [](const ::testing::TestParamInfo<GemmCase>& i) { return Name(i.param); });
#endif

}  // namespace
}  // namespace kir
