// Review 6 F1, F2, F6, F8 (issue 19): the default `kirc run` (auto inputs,
// seeds 1 to 3) must FAIL each mutant the review built from kirc's own code,
// and PASS kirc's code. Each mutant is kirc's assembly for the kernel with
// one edit (made here, in process, from the review's descriptions), built
// into a code object and run with RunAndCheck on the strict emulator.
//
// - F1: alpha (and the scale factors sa, sb of a gemm) dropped: exact mode
//   chose 1 for every scalar, so the default run could not see it.
// - F2: an fp8 output after an MFMA K loop: a skipped K trip, alpha dropped,
//   alpha doubled, a stored code one off passed the random bound charged
//   against sum|terms|.
// - F6: a truncating f32 -> bf16 cvt beside an MFMA: exact inputs never round
//   and adversarial inputs are refused for MFMA kernels.
// - F8: one fp8 buffer, half an MFMA's result, half a conversion of loaded
//   data: every code of the second half one off passed the per-buffer bound.
// Review 7 F1, F5, F6 (the conversion pass): a bf16 conversion whose ties
// round down, a round-toward-zero f16 conversion of a K = 512 loop, an fp8
// conversion without its NaN select, alone and beside an MFMA.
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/object/toolchain.h"
#include "gtest/gtest.h"
#include "hw/emu/emu_device.h"
#include "hw/run/code_object_test_base.h"
#include "hw/run/run.h"

namespace kir {
namespace {

// A 16x16x16 f16 MFMA scaled by alpha, converted to f16 (review 6 t1.kir).
constexpr char kScaled[] = R"(kernel t1
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg C : f16[16, 16] strides [16, 1] writeonly
arg alpha : f32
  %a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %b = load B[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %zero = zero f32x4
  %d = mfma f32_16x16x16_f16 %a, %b, %zero
  %s = mul %d, alpha
  %h = cvt %s : f16x4
  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h
end
)";

// A K = 128 loop of 16x16x16 f16 MFMAs, times alpha, to f8e5m2fnuz
// (review 6 f8.kir).
constexpr char kFp8Loop[] = R"(kernel f8
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 128] strides [128, 1] readonly
arg B : f16[16, 128] strides [128, 1] readonly
arg C : f8e5m2fnuz[16, 16] strides [16, 1] writeonly
arg alpha : f32
  %zero = zero f32x4
  %acc = for %k = 0 to 128 step 16 iter(%c = %zero) {
    %a = load A[tid.x mod 16, %k + tid.x floordiv 16 * 4] : f16x4
    %b = load B[tid.x mod 16, %k + tid.x floordiv 16 * 4] : f16x4
    %d = mfma f32_16x16x16_f16 %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
  %h = cvt %s : f8e5m2fnuzx4
  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h
end
)";

// An MFMA to C and, beside it, a cvt of loaded f32 data to bf16 (k2.kir).
constexpr char kBeside[] = R"(kernel k2
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg X : f32[64, 4] strides [4, 1] readonly
arg Y : bf16[64, 4] strides [4, 1] writeonly
arg C : f32[16, 16] strides [16, 1] writeonly
  %a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %b = load B[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %zero = zero f32x4
  %d = mfma f32_16x16x16_f16 %a, %b, %zero
  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d
  %x = load X[tid.x, 0] : f32x4
  %y = cvt %x : bf16x4
  store Y[tid.x, 0], %y
end
)";

// One fp8 buffer: C[0] an MFMA's result, C[1] a cvt of loaded data (mix.kir).
constexpr char kMixed[] = R"(kernel mix
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg X : f32[64, 4] strides [4, 1] readonly
arg C : f8e5m2fnuz[2, 64, 4] strides [256, 4, 1] writeonly
  %a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %b = load B[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %zero = zero f32x4
  %d = mfma f32_16x16x16_f16 %a, %b, %zero
  %h = cvt %d : f8e5m2fnuzx4
  store C[0, tid.x, 0], %h
  %x = load X[tid.x, 0] : f32x4
  %y = cvt %x : f8e5m2fnuzx4
  store C[1, tid.x, 0], %y
end
)";

// gfx950 fp8 gemm with per-tensor scales and beta (g2.kir).
constexpr char kScaledGemm[] = R"(kernel g2
target gfx950
workgroup auto
grid auto
arg A : f8e4m3fn[64, 128] strides [128, 1] readonly
arg B : f8e5m2[64, 128] strides [128, 1] readonly
arg C : bf16[64, 64] strides [64, 1] readwrite
arg alpha : f32
arg sa : f32
arg sb : f32
arg beta : f32
  gemm C = alpha * sa * sb * A.mk * B.nk + beta * C
end
)";

class DefaultCheckTest : public ::kir::testing::CodeObjectTestBase {
 protected:
  // The kernel `text` (a gemm kernel promoted as `kirc run` does) and
  // kirc's assembly for it.
  struct Compiled {
    Kernel k;
    std::string assembly;
    std::string mcpu;
  };
  Compiled CompileText(const std::string& text) {
    absl::StatusOr<Kernel> k = ParseKernel(text, "t.kir");
    EXPECT_TRUE(k.ok()) << k.status();
    Compiled c;
    if (!k.ok()) return c;
    c.k = *k;
    c.mcpu = k->target;
    CompileOptions co;
    co.mcpu = c.mcpu;
    if (!c.k.body.empty() && c.k.body[0].kind == OpKind::kGemm) {
      absl::StatusOr<Kernel> p = ThreadLevelKernel(c.k, co);
      EXPECT_TRUE(p.ok()) << p.status();
      if (!p.ok()) return c;
      c.k = *std::move(p);
    }
    absl::StatusOr<CompileResult> cr = Compile(c.k, co);
    EXPECT_TRUE(cr.ok()) << cr.status();
    if (cr.ok()) c.assembly = cr->assembly;
    return c;
  }
  // `c`'s assembly with every match of `re` replaced by `with` (at least
  // `min_matches` of them, or the mutant would be kirc's own code) as a code
  // object file.
  std::string Mutant(const Compiled& c, const std::string& re, const std::string& with, int min_matches,
                     const std::string& file) {
    const std::regex r(re);
    const auto n = std::distance(std::sregex_iterator(c.assembly.begin(), c.assembly.end(), r), std::sregex_iterator());
    EXPECT_GE(n, min_matches) << "'" << re << "' in\n" << c.assembly;
    return Write(c, std::regex_replace(c.assembly, r, with), file);
  }
  // `c`'s assembly with only the n-th match of `re` (0-based; -1: the last)
  // replaced by `with`.
  std::string MutantAt(const Compiled& c, const std::string& re, const std::string& with, int n,
                       const std::string& file) {
    const std::regex r(re);
    std::vector<std::smatch> ms;
    for (auto it = std::sregex_iterator(c.assembly.begin(), c.assembly.end(), r); it != std::sregex_iterator(); ++it)
      ms.push_back(*it);
    const int i = n < 0 ? static_cast<int>(ms.size()) + n : n;
    EXPECT_TRUE(i >= 0 && i < static_cast<int>(ms.size())) << "'" << re << "' #" << n << " in\n" << c.assembly;
    if (i < 0 || i >= static_cast<int>(ms.size())) return Write(c, c.assembly, file);
    std::string a = c.assembly;
    a.replace(ms[i].position(0), ms[i].length(0), ms[i].format(with));
    return Write(c, a, file);
  }
  std::string Write(const Compiled& c, const std::string& assembly, const std::string& file) {
    absl::StatusOr<std::string> obj = BuildCodeObject(bin_, assembly, c.mcpu);
    EXPECT_TRUE(obj.ok()) << obj.status();
    const std::string path = dir_->File(file);
    EXPECT_TRUE(WriteFileBytes(path, obj.ok() ? *obj : "").ok());
    return path;
  }
  // The default run (auto inputs) of `code_object` with `seed`.
  RunReport Run(const Compiled& c, const std::string& code_object, uint64_t seed) {
    EmuDevice emu(bin_);
    RunOptions o;
    o.llvm_bin = bin_;
    o.code_object_path = code_object;
    o.seed = seed;
    o.threads = 1;
    absl::StatusOr<RunReport> r = RunAndCheck(c.k, emu, o);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : RunReport{};
  }
  // Seeds 1 to 3: kirc's code passes, every mutant fails.
  void Expect(const Compiled& c, const std::vector<std::string>& mutants) {
    const std::string own = Write(c, c.assembly, "own.hsaco");
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      RunReport r = Run(c, own, seed);
      EXPECT_TRUE(r.ok) << "kirc's code, seed " << seed << "\n" << r.text;
      for (const std::string& m : mutants) {
        RunReport rm = Run(c, m, seed);
        EXPECT_FALSE(rm.ok) << m << ", seed " << seed << "\n" << rm.text;
      }
    }
  }
};

// The multiply by an SGPR scalar (alpha) of every element.
constexpr char kScaleMul[] = R"(v_mul_f32 (v\d+), s\d+, (v\d+))";

TEST_F(DefaultCheckTest, F1DroppedAlphaFailsEverySeed) {
  const Compiled c = CompileText(kScaled);
  // Exact mode never picks 1 for alpha when 2 keeps the products exact.
  RunReport own = Run(c, Write(c, c.assembly, "t1.hsaco"), 1);
  EXPECT_EQ(own.text.find("alpha = 1 (f32)"), std::string::npos) << own.text;
  Expect(c, {Mutant(c, kScaleMul, "v_mov_b32 $1, $2", 4, "noalpha.hsaco")});
}

TEST_F(DefaultCheckTest, F1DroppedGemmScaleFactorFails) {
  const Compiled c = CompileText(kScaledGemm);
  // Each scale multiply dropped in turn: the first and the last v_mul_f32 of
  // an SGPR (the order of the factors is the compiler's).
  const std::regex r(kScaleMul);
  std::vector<std::string> mutants;
  std::vector<std::smatch> ms;
  for (auto it = std::sregex_iterator(c.assembly.begin(), c.assembly.end(), r); it != std::sregex_iterator(); ++it)
    ms.push_back(*it);
  ASSERT_GE(ms.size(), 1u) << c.assembly;
  for (size_t i : {size_t{0}, ms.size() - 1}) {
    std::string a = c.assembly;
    a.replace(ms[i].position(0), ms[i].length(0), absl::StrCat("v_mov_b32 ", ms[i][1].str(), ", ", ms[i][2].str()));
    mutants.push_back(Write(c, a, absl::StrCat("nosb", i, ".hsaco")));
  }
  Expect(c, mutants);
}

TEST_F(DefaultCheckTest, F2Fp8OutputAfterMfmaLoop) {
  const Compiled c = CompileText(kFp8Loop);
  // The first stored fp8 code of each thread one code off (its byte + 1).
  const std::regex store(R"((buffer|global)_store_byte (v\d+))");
  std::smatch first;
  ASSERT_TRUE(std::regex_search(c.assembly, first, store)) << c.assembly;
  std::string off1 = c.assembly;
  off1.insert(first.position(0), absl::StrCat("v_add_u32 ", first[2].str(), ", 1, ", first[2].str(), "\n  "));
  Expect(c, {
                // Within any bound on |out - ref| (a correct device may be one
                // code off near a rounding boundary): caught by the
                // reference's value before the conversion.
                Write(c, off1, "off1.hsaco"),
                // The K loop runs 7 of its 8 trips.
                Mutant(c, R"(s_cmp_lt_u32 (s\d+), 8\b)", "s_cmp_lt_u32 $1, 7", 1, "trip.hsaco"),
                // alpha dropped, and alpha replaced by 2.
                Mutant(c, kScaleMul, "v_mov_b32 $1, $2", 4, "noalpha.hsaco"),
                Mutant(c, kScaleMul, "v_add_f32 $1, $2, $2", 4, "x2.hsaco"),
            });
  // The bound charges the fp8 conversion against the value, not sum|terms|,
  // and every element is checked against the value before the conversion.
  RunReport r = Run(c, Write(c, c.assembly, "f8.hsaco"), 1);
  EXPECT_NE(r.text.find("* |ref|"), std::string::npos) << r.text;
  // Random (exact inputs impossible: 128 products must fit f8e5m2's 3
  // bits), then conversion (the sum need only fit f32, its conversion
  // p + 5 = 8 bits).
  ASSERT_EQ(r.passes.size(), 2u) << r.text;
  EXPECT_EQ(r.passes[0].mode, InputMode::kRandom);
  EXPECT_EQ(r.passes[1].mode, InputMode::kConversion);
  ASSERT_EQ(r.diffs.size(), 1u);
  EXPECT_EQ(r.diffs[0].pre_rounding, 256) << r.text;
}

TEST_F(DefaultCheckTest, F6TruncatingBf16CvtBesideMfmaFails) {
  const Compiled c = CompileText(kBeside);
  // Round to nearest even adds 0x7fff + lsb before dropping 16 bits; 0
  // truncates.
  Expect(c, {Mutant(c, R"(s_mov_b32 (s\d+), 0x7fff\b)", "s_mov_b32 $1, 0", 1, "trunc.hsaco")});
  // The default run is exact, then conversion (no adversarial pass beside
  // an MFMA; the conversion pass replaces the random one).
  RunReport r = Run(c, Write(c, c.assembly, "k2.hsaco"), 1);
  ASSERT_EQ(r.passes.size(), 2u) << r.text;
  EXPECT_EQ(r.passes[0].mode, InputMode::kExact);
  EXPECT_EQ(r.passes[1].mode, InputMode::kConversion);
}

TEST_F(DefaultCheckTest, F8LoadedDataConvertedBesideMfmaIsBitForBit) {
  const Compiled c = CompileText(kMixed);
  // Every byte of what the last store writes (C[1]: 4 fp8 codes of loaded
  // data) one code larger in magnitude.
  const std::regex store(R"((buffer|global)_store_dword (v\d+))");
  std::smatch last;
  for (auto it = std::sregex_iterator(c.assembly.begin(), c.assembly.end(), store); it != std::sregex_iterator(); ++it)
    last = *it;
  ASSERT_FALSE(last.empty()) << c.assembly;
  std::string a = c.assembly;
  a.insert(last.position(0), absl::StrCat("v_add_u32 ", last[2].str(), ", 0x01010101, ", last[2].str(), "\n  "));
  Expect(c, {Write(c, a, "off1.hsaco")});
  RunReport r = Run(c, Write(c, c.assembly, "mix.hsaco"), 1);
  EXPECT_NE(r.text.find("bit-identical for the 256 elements"), std::string::npos) << r.text;
}

// Review 7 (issue 19): conversions whose rounding or NaN handling is wrong,
// which no earlier default pass could see (exact inputs never round a
// conversion; adversarial ones are refused beside an MFMA and held few ties
// of a conversion and few NaNs per position). The review's kernels (gfx950).

// A cvt of loaded f32 data to `TO` (review 7 cb.kir, cn.kir).
std::string Loaded(const std::string& to) {
  return absl::StrCat(R"(kernel cb
target gfx950
workgroup 64 1 1
grid 1 1 1
arg X : f32[64, 4] strides [4, 1] readonly
arg O : )", to, R"([64, 4] strides [4, 1] writeonly
  %x = load X[tid.x, 0] : f32x4
  %xq = cvt %x : )", to, R"(x4
  store O[tid.x, 0], %xq
end
)");
}

// An MFMA's scaled result to O[0] and a cvt of loaded f32 data to O[1]
// (review 7 mb.kir, m8.kir).
std::string BesideMfma(const std::string& to) {
  return absl::StrCat(R"(kernel mb
target gfx950
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 32] strides [32, 1] readonly
arg B : f16[16, 32] strides [32, 1] readonly
arg X : f32[64, 4] strides [4, 1] readonly
arg O : )", to, R"([2, 16, 16] strides [256, 16, 1] writeonly
arg alpha : f32
  %a = load A[tid.x mod 16, tid.x floordiv 16 * 8] : f16x8
  %b = load B[tid.x mod 16, tid.x floordiv 16 * 8] : f16x8
  %z = zero f32x4
  %d = mfma f32_16x16x32_f16 %a, %b, %z
  %s = mul %d, alpha
  %q = cvt %s : )", to, R"(x4
  store O[0, tid.x floordiv 16 * 4, tid.x mod 16] along 1, %q
  %x = load X[tid.x, 0] : f32x4
  %xq = cvt %x : )", to, R"(x4
  store O[1, tid.x floordiv 4, tid.x mod 4 * 4], %xq
end
)");
}

// A K = 512 loop of f16 MFMAs times alpha to f16 (review 7 lw.kir); with
// `rw`, O read, added and written back (lr.kir).
std::string LongLoop(bool rw) {
  return absl::StrCat(R"(kernel lw
target gfx950
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 512] strides [512, 1] readonly
arg B : f16[16, 512] strides [512, 1] readonly
arg O : f16[16, 16] strides [16, 1] )", rw ? "readwrite" : "writeonly", R"(
arg alpha : f32
  %z = zero f32x4
  %acc = for %k = 0 to 512 step 32 iter(%c = %z) {
    %a = load A[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f16x8
    %b = load B[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f16x8
    %d = mfma f32_16x16x32_f16 %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
)", rw ? R"(  %o = load O[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f16x4
  %of = cvt %o : f32x4
  %t = add %s, %of
  %q = cvt %t : f16x4
)" : "  %q = cvt %s : f16x4\n", R"(  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q
end
)");
}

// kirc's f32 -> bf16 rounds to nearest even by adding 0x7fff + the kept
// part's last bit (v_bfe_u32 ..., 16, 1); without that bit a tie rounds down.
constexpr char kBf16Lsb[] = R"(v_bfe_u32 (v\d+), v\d+, 16, 1)";

TEST_F(DefaultCheckTest, Review7F1Bf16TiesRoundDown) {
  // A cvt of loaded data: element 0 of every thread (the review's cb.m19.s).
  const Compiled cb = CompileText(Loaded("bf16"));
  Expect(cb, {MutantAt(cb, kBf16Lsb, "v_mov_b32 $1, 0", 0, "cb.hsaco")});
  // Beside an MFMA: the first and the last of the 8 conversions (the MFMA's
  // result and the loaded data, in kirc's order).
  const Compiled mb = CompileText(BesideMfma("bf16"));
  Expect(mb, {MutantAt(mb, kBf16Lsb, "v_mov_b32 $1, 0", 0, "mb0.hsaco"),
              MutantAt(mb, kBf16Lsb, "v_mov_b32 $1, 0", -1, "mb7.hsaco")});
  RunReport r = Run(mb, MutantAt(mb, kBf16Lsb, "v_mov_b32 $1, 0", -1, "mb7.hsaco"), 1);
  EXPECT_NE(r.text.find("FAIL: the output differs from the KIR reference in the conversion pass"), std::string::npos)
      << r.text;
}

TEST_F(DefaultCheckTest, Review7F5RoundTowardZeroF16AfterLongLoop) {
  // v_cvt_pkrtz_f16_f32 rounds toward zero: within the random pass's bound
  // on most seeds; the conversion pass's exact sums carry bits beyond f16's.
  const Compiled lw = CompileText(LongLoop(false));
  Expect(lw, {Mutant(lw, R"(v_cvt_pk_f16_f32\b)", "v_cvt_pkrtz_f16_f32", 1, "lw.hsaco")});
  const Compiled lr = CompileText(LongLoop(true));
  Expect(lr, {MutantAt(lr, R"(v_cvt_pk_f16_f32\b)", "v_cvt_pkrtz_f16_f32", 0, "lr.hsaco")});
}

TEST_F(DefaultCheckTest, Review7F6Fp8NanSelectDropped) {
  // kirc clamps to +-448 with v_min/v_max (which return the non-NaN
  // operand) and selects the NaN back in; without the select NaN gives 448.
  constexpr char kSelect[] = R"(v_cndmask_b32_e64 (v\d+), (v\d+), v\d+, s\[\d+:\d+\])";
  const Compiled cn = CompileText(Loaded("f8e4m3fn"));
  Expect(cn, {MutantAt(cn, kSelect, "v_mov_b32 $1, $2", 0, "cn.hsaco")});
  // Beside an MFMA (whose result is never NaN): every select dropped.
  const Compiled m8 = CompileText(BesideMfma("f8e4m3fn"));
  Expect(m8, {Mutant(m8, kSelect, "v_mov_b32 $1, $2", 4, "m8.hsaco")});
}

}  // namespace
}  // namespace kir
