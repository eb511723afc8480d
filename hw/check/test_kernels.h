// KIR kernels of the fresh-user reviews shared by the checking tests
// (//hw/check:check_test, //hw/run:default_check_test), one definition each:
// the one-wave MFMA kernels are one template with substitutions.
#ifndef KIRC_HW_CHECK_TEST_KERNELS_H_
#define KIRC_HW_CHECK_TEST_KERNELS_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace kir::testing {

// One wave (a 64-thread workgroup, one workgroup) on `target`: A and B
// f16[16, k] (k 16 or 32), each lane loading its k / 4 elements of row
// tid.x mod 16 for the MFMA `mfma` (f32_16x16x16_f16 or f32_16x16x32_f16),
// whose f32x4 result is %d (C operand %zero); then `body` (ops, one per
// line, indented by two). `args`: the other arguments' `arg` lines, declared
// after A and B.
inline std::string OneWaveMfmaKernel(const std::string& name, const std::string& target, const std::string& mfma,
                                     int k, const std::string& args, const std::string& body) {
  return absl::StrReplaceAll(R"(kernel $NAME
target $TARGET
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, $K] strides [$K, 1] readonly
arg B : f16[16, $K] strides [$K, 1] readonly
$ARGS  %a = load A[tid.x mod 16, tid.x floordiv 16 * $W] : f16x$W
  %b = load B[tid.x mod 16, tid.x floordiv 16 * $W] : f16x$W
  %zero = zero f32x4
  %d = mfma $MFMA %a, %b, %zero
$BODYend
)",
                             {{"$NAME", name},
                              {"$TARGET", target},
                              {"$MFMA", mfma},
                              {"$K", absl::StrCat(k)},
                              {"$W", absl::StrCat(k / 4)},
                              {"$ARGS", args},
                              {"$BODY", body}});
}

// Review 6 mix.kir (F8): one fp8 buffer, C[0] an MFMA's result, C[1] a cvt
// of loaded data.
inline std::string MixKernel() {
  return OneWaveMfmaKernel("mix", "gfx942", "f32_16x16x16_f16", 16,
                           "arg X : f32[64, 4] strides [4, 1] readonly\n"
                           "arg C : f8e5m2fnuz[2, 64, 4] strides [256, 4, 1] writeonly\n",
                           "  %h = cvt %d : f8e5m2fnuzx4\n"
                           "  store C[0, tid.x, 0], %h\n"
                           "  %x = load X[tid.x, 0] : f32x4\n"
                           "  %y = cvt %x : f8e5m2fnuzx4\n"
                           "  store C[1, tid.x, 0], %y\n");
}

// Review 6 t1.kir (F1): the MFMA scaled by alpha, converted to f16.
inline std::string ScaledKernel() {
  return OneWaveMfmaKernel("t1", "gfx942", "f32_16x16x16_f16", 16,
                           "arg C : f16[16, 16] strides [16, 1] writeonly\n"
                           "arg alpha : f32\n",
                           "  %s = mul %d, alpha\n"
                           "  %h = cvt %s : f16x4\n"
                           "  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h\n");
}

// Review 6 k2.kir (F6): the MFMA to f32 C and, beside it, a cvt of loaded
// f32 data to bf16.
inline std::string BesideKernel() {
  return OneWaveMfmaKernel("k2", "gfx942", "f32_16x16x16_f16", 16,
                           "arg X : f32[64, 4] strides [4, 1] readonly\n"
                           "arg Y : bf16[64, 4] strides [4, 1] writeonly\n"
                           "arg C : f32[16, 16] strides [16, 1] writeonly\n",
                           "  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d\n"
                           "  %x = load X[tid.x, 0] : f32x4\n"
                           "  %y = cvt %x : bf16x4\n"
                           "  store Y[tid.x, 0], %y\n");
}

// Review 7 mr.kir (F11), gfx950: O[0] = cvt_fp8(alpha * mfma + old O[0]) in
// place, O[1] = cvt_fp8(X).
inline std::string ResidualFp8Kernel() {
  return OneWaveMfmaKernel("mr", "gfx950", "f32_16x16x32_f16", 32,
                           "arg X : f32[64, 4] strides [4, 1] readonly\n"
                           "arg O : f8e4m3fn[2, 16, 16] strides [256, 16, 1] readwrite\n"
                           "arg alpha : f32\n",
                           "  %o = load O[0, tid.x floordiv 16 * 4, tid.x mod 16] along 1 : f8e4m3fnx4\n"
                           "  %of = cvt %o : f32x4\n"
                           "  %s0 = mul %d, alpha\n"
                           "  %s = add %s0, %of\n"
                           "  %q = cvt %s : f8e4m3fnx4\n"
                           "  store O[0, tid.x floordiv 16 * 4, tid.x mod 16] along 1, %q\n"
                           "  %x = load X[tid.x, 0] : f32x4\n"
                           "  %xq = cvt %x : f8e4m3fnx4\n"
                           "  store O[1, tid.x floordiv 4, tid.x mod 4 * 4], %xq\n");
}

// A read-modify-write fp8 buffer: q = cvt(mfma + old q), each element
// loaded once, before its own store, by the thread that stores it.
inline std::string ReadModifyWriteKernel() {
  return OneWaveMfmaKernel("rmw", "gfx942", "f32_16x16x16_f16", 16,
                           "arg q : f8e5m2fnuz[16, 16] strides [16, 1] readwrite\n",
                           "  %o = load q[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f8e5m2fnuzx4\n"
                           "  %of = cvt %o : f32x4\n"
                           "  %s = add %d, %of\n"
                           "  %h = cvt %s : f8e5m2fnuzx4\n"
                           "  store q[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h\n");
}

// Review 8 r2.kir (F7), no MFMA: O = fma(X, Y, O) on `elem` (f16 or bf16)
// vectors of 4, 256 elements, O read and written in place; thread i owns
// elements 4i .. 4i + 3.
inline std::string ElementwiseFmaKernel(const std::string& name, const std::string& elem) {
  return absl::StrReplaceAll(R"(kernel $NAME
target gfx942
workgroup 64 1 1
grid 1 1 1
arg X : $E[256] strides [1] readonly
arg Y : $E[256] strides [1] readonly
arg O : $E[256] strides [1] readwrite
  %x = load X[tid.x * 4] : $Ex4
  %y = load Y[tid.x * 4] : $Ex4
  %o0 = load O[tid.x * 4] : $Ex4
  %p = fma %x, %y, %o0
  store O[tid.x * 4], %p
end
)",
                             {{"$NAME", name}, {"$E", elem}});
}

// Fresh-user review 8 F1 (k1.kir): a K = 128 loop of fp8 MFMAs, its result
// times alpha plus the old O, converted back into O (f8e4m3fnuz, readwrite).
inline std::string Review8F1Kernel() {
  return R"(kernel k1
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f8e4m3fnuz[16, 128] strides [128, 1] readonly
arg B : f8e4m3fnuz[16, 128] strides [128, 1] readonly
arg O : f8e4m3fnuz[16, 16] strides [16, 1] readwrite
arg alpha : f32
  %z = zero f32x4
  %acc = for %k = 0 to 128 step 32 iter(%c = %z) {
    %a = load A[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f8e4m3fnuzx8
    %b = load B[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f8e4m3fnuzx8
    %d = mfma f32_16x16x32_fp8_fp8 %a, %b, %c
    yield %d
  }
  %o = load O[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f8e4m3fnuzx4
  %of = cvt %o : f32x4
  %s = mul %acc, alpha
  %r = add %s, %of
  %q = cvt %r : f8e4m3fnuzx4
  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q
end
)";
}

// Fresh-user review 8 F5 (k5.kir): a K = 64 loop of f16 MFMAs to f32 C and,
// beside it, loaded f16 data X quantised to f8e4m3fnuz Q.
inline std::string Review8F5Kernel() {
  return R"(kernel k5
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 64] strides [64, 1] readonly
arg B : f16[16, 64] strides [64, 1] readonly
arg C : f32[16, 16] strides [16, 1] writeonly
arg X : f16[256] strides [1] readonly
arg Q : f8e4m3fnuz[256] strides [1] writeonly
  %z = zero f32x4
  %acc = for %k = 0 to 64 step 16 iter(%c = %z) {
    %a = load A[tid.x mod 16, %k + tid.x floordiv 16 * 4] : f16x4
    %b = load B[tid.x mod 16, %k + tid.x floordiv 16 * 4] : f16x4
    %d = mfma f32_16x16x16_f16 %a, %b, %c
    yield %d
  }
  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %acc
  %x = load X[tid.x * 4] : f16x4
  %q = cvt %x : f8e4m3fnuzx4
  store Q[tid.x * 4], %q
end
)";
}

// Fresh-user review 12 F6 (bm.kir): beside a 16x16x16 f16 MFMA, one f32
// buffer X quantised to two formats, Y = cvt X : f16, Z = cvt X : bf16.
inline std::string Review12F6Kernel() {
  return R"(kernel bm
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg C : f32[16, 16] strides [16, 1] writeonly
arg X : f32[64, 4] strides [4, 1] readonly
arg Y : f16[64, 4] strides [4, 1] writeonly
arg Z : bf16[64, 4] strides [4, 1] writeonly
  %a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %b = load B[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %zero = zero f32x4
  %d = mfma f32_16x16x16_f16 %a, %b, %zero
  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d
  %x = load X[tid.x, 0] : f32x4
  %y = cvt %x : f16x4
  store Y[tid.x, 0], %y
  %z = cvt %x : bf16x4
  store Z[tid.x, 0], %z
end
)";
}

// Fresh-user review 14 F3 (g3.kir, g9.kir, smaller): a gfx942 fp8 gemm into
// an f16 C without alpha, `c_term` "beta * C" (then a scalar beta) or "C":
// C = A.mk * B.nk + c_term. A and B f8e4m3fnuz[m, k].
inline std::string Review14F3Kernel(const std::string& c_term, int m = 64, int k = 512) {
  return absl::StrReplaceAll(R"(kernel g3
target gfx942
workgroup auto
grid auto
arg A : f8e4m3fnuz[$M, $K] strides [$K, 1] readonly
arg B : f8e4m3fnuz[$M, $K] strides [$K, 1] readonly
arg C : f16[$M, $M] strides [$M, 1] readwrite
$BETA  gemm C = A.mk * B.nk + $CTERM
end
)",
                             {{"$M", absl::StrCat(m)},
                              {"$K", absl::StrCat(k)},
                              {"$BETA", c_term == "C" ? "" : "arg beta : f32\n"},
                              {"$CTERM", c_term}});
}

// Fresh-user review 14 F9 (k7.kir): X quantised in-kernel to f8e4m3fnuz
// (cvt(X * sx)) before a 16x16x32 fp8 MFMA with W, dequantised by so into an
// f16 O = cvt(acc * so).
inline std::string Review14F9Kernel() {
  return R"(kernel k7
target gfx942
workgroup 64 1 1
grid 1 1 1
arg X : f32[16, 64] strides [64, 1] readonly
arg W : f8e4m3fnuz[16, 64] strides [64, 1] readonly
arg O : f16[16, 16] strides [16, 1] writeonly
arg sx : f32
arg so : f32
  %z = zero f32x4
  %acc = for %k = 0 to 64 step 32 iter(%c = %z) {
    %x = load X[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f32x8
    %xs = mul %x, sx
    %a = cvt %xs : f8e4m3fnuzx8
    %b = load W[tid.x mod 16, %k + tid.x floordiv 16 * 8] : f8e4m3fnuzx8
    %d = mfma f32_16x16x32_fp8_fp8 %a, %b, %c
    yield %d
  }
  %s = mul %acc, so
  %o = cvt %s : f16x4
  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %o
end
)";
}

// Fresh-user review 14 F5 (k3.kir): gfx950, 4 workgroups, each a 32x32
// tile of an fp8 MFMA K loop times alpha; an f8e4m3fn O in place, O =
// cvt(alpha * acc + cvt(O)), beside an f8e5m2 P = cvt(alpha * acc) (rows
// 0..3 of each 8).
inline std::string Review14F5Kernel() {
  return R"(kernel k3
target gfx950
workgroup 64 1 1
grid 4 1 1
arg A : f8e4m3fn[128, 256] strides [256, 1] readonly
arg B : f8e4m3fn[32, 256] strides [256, 1] readonly
arg O : f8e4m3fn[128, 32] strides [32, 1] readwrite
arg P : f8e5m2[128, 32] strides [32, 1] readwrite
arg alpha : f32
  %z = zero f32x16
  %acc = for %k = 0 to 256 step 64 iter(%c = %z) {
    %a = load A[wg.x * 32 + tid.x mod 32, %k + tid.x floordiv 32 * 32] : f8e4m3fnx32
    %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 32] : f8e4m3fnx32
    %d = mfma f32_32x32x64_fp8_fp8 %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
  %c0 = slice %s, 0 : f32x4
  %c1 = slice %s, 4 : f32x4
  %c2 = slice %s, 8 : f32x4
  %c3 = slice %s, 12 : f32x4
  %i0 = load O[wg.x * 32 + tid.x floordiv 32 * 4, tid.x mod 32] along 0 : f8e4m3fnx4
  %f0 = cvt %i0 : f32x4
  %t0 = add %c0, %f0
  %o0 = cvt %t0 : f8e4m3fnx4
  store O[wg.x * 32 + tid.x floordiv 32 * 4, tid.x mod 32] along 0, %o0
  %i1 = load O[wg.x * 32 + tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0 : f8e4m3fnx4
  %f1 = cvt %i1 : f32x4
  %t1 = add %c1, %f1
  %o1 = cvt %t1 : f8e4m3fnx4
  store O[wg.x * 32 + tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0, %o1
  %i2 = load O[wg.x * 32 + tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0 : f8e4m3fnx4
  %f2 = cvt %i2 : f32x4
  %t2 = add %c2, %f2
  %o2 = cvt %t2 : f8e4m3fnx4
  store O[wg.x * 32 + tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0, %o2
  %i3 = load O[wg.x * 32 + tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0 : f8e4m3fnx4
  %f3 = cvt %i3 : f32x4
  %t3 = add %c3, %f3
  %o3 = cvt %t3 : f8e4m3fnx4
  store O[wg.x * 32 + tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0, %o3
  %p0 = cvt %c0 : f8e5m2x4
  store P[wg.x * 32 + tid.x floordiv 32 * 4, tid.x mod 32] along 0, %p0
end
)";
}

}  // namespace kir::testing

#endif  // KIRC_HW_CHECK_TEST_KERNELS_H_
