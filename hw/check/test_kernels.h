// KIR kernels of the fresh-user reviews shared by the checking tests
// (//hw/check:check_test, :exact_test, //hw/run:default_check_test,
// :run_test), one definition each: the one-wave MFMA kernels (one MFMA, or a
// K loop of them) and the tile-level gemms are templates with substitutions.
#ifndef KIRC_HW_CHECK_TEST_KERNELS_H_
#define KIRC_HW_CHECK_TEST_KERNELS_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace kir::testing {

// A tile-level gemm kernel on `target` (workgroup and grid auto): A and B
// (`a`, `b`: "ELEM[ROWS, COLS]", row-major, readonly), C (`c`, access
// `c_access`), the f32 scalars `scalars` (names, in order) and the gemm line
// `gemm` (e.g. "C = alpha * A.mk * B.nk + beta * C").
inline std::string GemmKernel(const std::string& name, const std::string& target, const std::string& a,
                              const std::string& b, const std::string& c, const std::vector<std::string>& scalars,
                              const std::string& gemm, const std::string& c_access = "readwrite") {
  auto decl = [](const std::string& arg, const std::string& t, const std::string& access) {
    const std::string cols = t.substr(t.find(", ") + 2, t.find(']') - t.find(", ") - 2);
    return absl::StrCat("arg ", arg, " : ", t, " strides [", cols, ", 1] ", access, "\n");
  };
  std::string text = absl::StrCat("kernel ", name, "\ntarget ", target, "\nworkgroup auto\ngrid auto\n",
                                  decl("A", a, "readonly"), decl("B", b, "readonly"), decl("C", c, c_access));
  for (const std::string& s : scalars) absl::StrAppend(&text, "arg ", s, " : f32\n");
  return absl::StrCat(text, "  gemm ", gemm, "\nend\n");
}

// A K loop of 16x16 MFMAs `mfma` (its own K `mfma_k`, 16 or 32) over the
// readonly [16, k] buffers `a` and `b` (elements `a_elem`, `b_elem`), one
// wave: each lane loads mfma_k / 4 elements of row tid.x mod 16 of each per
// trip. The lines (indented by two) of `acc` = the f32x4 sum, starting from
// `init` (an f32x4 zero defined before).
inline std::string MfmaKLoop(const std::string& acc, const std::string& a, const std::string& b,
                             const std::string& a_elem, const std::string& b_elem, int k, const std::string& mfma,
                             int mfma_k, const std::string& init = "%z") {
  return absl::StrReplaceAll(R"(  $ACC = for %k = 0 to $K step $STEP iter(%c = $INIT) {
    %a = load $ABUF[tid.x mod 16, %k + tid.x floordiv 16 * $W] : $AELEMx$W
    %b = load $BBUF[tid.x mod 16, %k + tid.x floordiv 16 * $W] : $BELEMx$W
    %d = mfma $MFMA %a, %b, %c
    yield %d
  }
)",
                             {{"$ACC", acc},
                              {"$K", absl::StrCat(k)},
                              {"$STEP", absl::StrCat(mfma_k)},
                              {"$INIT", init},
                              {"$ABUF", a},
                              {"$BBUF", b},
                              {"$AELEM", a_elem},
                              {"$BELEM", b_elem},
                              {"$W", absl::StrCat(mfma_k / 4)},
                              {"$MFMA", mfma}});
}

// The `arg` line of a readonly row-major [16, k] MFMA operand `name` of
// `elem`.
inline std::string MfmaOperandArg(const std::string& name, const std::string& elem, int k) {
  return absl::StrCat("arg ", name, " : ", elem, "[16, ", k, "] strides [", k, ", 1] readonly\n");
}

// One wave (a 64-thread workgroup, one workgroup) on `target`: A (`a_elem`)
// and B (`b_elem`), [16, k], then the other arguments' `arg` lines `args`;
// %z = zero f32x4 and %acc the MfmaKLoop of `mfma` (K `mfma_k`) over A and
// B; then `body` (ops, one per line, indented by two).
inline std::string OneWaveMfmaLoopKernel(const std::string& name, const std::string& target,
                                         const std::string& a_elem, const std::string& b_elem, int k,
                                         const std::string& mfma, int mfma_k, const std::string& args,
                                         const std::string& body) {
  return absl::StrCat("kernel ", name, "\ntarget ", target, "\nworkgroup 64 1 1\ngrid 1 1 1\n",
                      MfmaOperandArg("A", a_elem, k), MfmaOperandArg("B", b_elem, k), args, "  %z = zero f32x4\n",
                      MfmaKLoop("%acc", "A", "B", a_elem, b_elem, k, mfma, mfma_k), body, "end\n");
}

// One wave (a 64-thread workgroup, one workgroup) on `target`: A and B
// f16[16, k] (k 16 or 32), each lane loading its k / 4 elements of row
// tid.x mod 16 for the MFMA `mfma` (f32_16x16x16_f16 or f32_16x16x32_f16),
// whose f32x4 result is %d (C operand `zero`, an f32x4 zero); then `body`
// (ops, one per line, indented by two). `args`: the other arguments' `arg`
// lines, declared after A and B.
inline std::string OneWaveMfmaKernel(const std::string& name, const std::string& target, const std::string& mfma,
                                     int k, const std::string& args, const std::string& body,
                                     const std::string& zero = "%zero") {
  return absl::StrReplaceAll(R"(kernel $NAME
target $TARGET
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, $K] strides [$K, 1] readonly
arg B : f16[16, $K] strides [$K, 1] readonly
$ARGS  %a = load A[tid.x mod 16, tid.x floordiv 16 * $W] : f16x$W
  %b = load B[tid.x mod 16, tid.x floordiv 16 * $W] : f16x$W
  $ZERO = zero f32x4
  %d = mfma $MFMA %a, %b, $ZERO
$BODYend
)",
                             {{"$NAME", name},
                              {"$TARGET", target},
                              {"$MFMA", mfma},
                              {"$K", absl::StrCat(k)},
                              {"$W", absl::StrCat(k / 4)},
                              {"$ARGS", args},
                              {"$BODY", body},
                              {"$ZERO", zero}});
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
  return OneWaveMfmaLoopKernel("k1", "gfx942", "f8e4m3fnuz", "f8e4m3fnuz", 128, "f32_16x16x32_fp8_fp8", 32,
                               "arg O : f8e4m3fnuz[16, 16] strides [16, 1] readwrite\n"
                               "arg alpha : f32\n",
                               "  %o = load O[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f8e4m3fnuzx4\n"
                               "  %of = cvt %o : f32x4\n"
                               "  %s = mul %acc, alpha\n"
                               "  %r = add %s, %of\n"
                               "  %q = cvt %r : f8e4m3fnuzx4\n"
                               "  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n");
}

// Fresh-user review 8 F5 (k5.kir): a K = 64 loop of f16 MFMAs to f32 C and,
// beside it, loaded f16 data X quantised to f8e4m3fnuz Q.
inline std::string Review8F5Kernel() {
  return OneWaveMfmaLoopKernel("k5", "gfx942", "f16", "f16", 64, "f32_16x16x16_f16", 16,
                               "arg C : f32[16, 16] strides [16, 1] writeonly\n"
                               "arg X : f16[256] strides [1] readonly\n"
                               "arg Q : f8e4m3fnuz[256] strides [1] writeonly\n",
                               "  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %acc\n"
                               "  %x = load X[tid.x * 4] : f16x4\n"
                               "  %q = cvt %x : f8e4m3fnuzx4\n"
                               "  store Q[tid.x * 4], %q\n");
}

// Fresh-user review 12 F6 (bm.kir): beside a 16x16x16 f16 MFMA, one f32
// buffer X quantised to two formats, Y = cvt X : f16, Z = cvt X : bf16.
inline std::string Review12F6Kernel() {
  return OneWaveMfmaKernel("bm", "gfx942", "f32_16x16x16_f16", 16,
                           "arg C : f32[16, 16] strides [16, 1] writeonly\n"
                           "arg X : f32[64, 4] strides [4, 1] readonly\n"
                           "arg Y : f16[64, 4] strides [4, 1] writeonly\n"
                           "arg Z : bf16[64, 4] strides [4, 1] writeonly\n",
                           "  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d\n"
                           "  %x = load X[tid.x, 0] : f32x4\n"
                           "  %y = cvt %x : f16x4\n"
                           "  store Y[tid.x, 0], %y\n"
                           "  %z = cvt %x : bf16x4\n"
                           "  store Z[tid.x, 0], %z\n");
}

// Review 8's k3 (F2, fresh-user review 10 F3, 12 F5): a K = 64 loop of f16
// MFMAs, f32 -> `mid` (f16 or bf16) -> f8e4m3fnuz Q.
inline std::string Review8ChainKernel(const std::string& mid) {
  return OneWaveMfmaLoopKernel("k3", "gfx942", "f16", "f16", 64, "f32_16x16x16_f16", 16,
                               "arg Q : f8e4m3fnuz[16, 16] strides [16, 1] writeonly\n",
                               absl::StrCat("  %h = cvt %acc : ", mid,
                                            "x4\n"
                                            "  %q = cvt %h : f8e4m3fnuzx4\n"
                                            "  store Q[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n"));
}

// Review 8 F1 without the read-modify-write (k7): O = cvt(alpha * acc) to
// f8e4m3fnuz after a K = 128 loop of fp8 MFMAs (f8e4m3fnuz A and B).
inline std::string ComputedFp8Kernel() {
  return OneWaveMfmaLoopKernel("k7", "gfx942", "f8e4m3fnuz", "f8e4m3fnuz", 128, "f32_16x16x32_fp8_fp8", 32,
                               "arg O : f8e4m3fnuz[16, 16] strides [16, 1] writeonly\n"
                               "arg alpha : f32\n",
                               "  %s = mul %acc, alpha\n"
                               "  %q = cvt %s : f8e4m3fnuzx4\n"
                               "  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n");
}

// Fresh-user review 16 F6 (k17.kir, one 16x16 tile): a K = 256 loop of fp8
// MFMAs times alpha, converted to f8e4m3fnuz (O) and to bf16 (Q).
inline std::string Review16F6Kernel() {
  return OneWaveMfmaLoopKernel("k17", "gfx942", "f8e4m3fnuz", "f8e4m3fnuz", 256, "f32_16x16x32_fp8_fp8", 32,
                               "arg O : f8e4m3fnuz[16, 16] strides [16, 1] writeonly\n"
                               "arg Q : bf16[16, 16] strides [16, 1] writeonly\n"
                               "arg alpha : f32\n",
                               "  %s = mul %acc, alpha\n"
                               "  %o = cvt %s : f8e4m3fnuzx4\n"
                               "  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %o\n"
                               "  %q = cvt %s : bf16x4\n"
                               "  store Q[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n");
}

// Fresh-user review 18 F8 (k1.kir, one 16x16 tile): a K = 128 loop of fp8
// MFMAs times alpha, converted to f16 (P) and to bf16 (Q).
inline std::string Review18F8Kernel() {
  return OneWaveMfmaLoopKernel("k1", "gfx942", "f8e4m3fnuz", "f8e4m3fnuz", 128, "f32_16x16x32_fp8_fp8", 32,
                               "arg P : f16[16, 16] strides [16, 1] writeonly\n"
                               "arg Q : bf16[16, 16] strides [16, 1] writeonly\n"
                               "arg alpha : f32\n",
                               "  %s = mul %acc, alpha\n"
                               "  %p = cvt %s : f16x4\n"
                               "  store P[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %p\n"
                               "  %q = cvt %s : bf16x4\n"
                               "  store Q[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n");
}

// Fresh-user review 10 F4-F6 (kernel `name`): O = cvt(alpha * acc) to `elem`
// on `target` after a K = 64 loop of f16 MFMAs.
inline std::string ComputedKernel(const std::string& target, const std::string& elem, const std::string& name = "h") {
  return OneWaveMfmaLoopKernel(name, target, "f16", "f16", 64, "f32_16x16x16_f16", 16,
                               absl::StrCat("arg O : ", elem,
                                            "[16, 16] strides [16, 1] writeonly\n"
                                            "arg alpha : f32\n"),
                               absl::StrCat("  %s = mul %acc, alpha\n"
                                            "  %h = cvt %s : ",
                                            elem,
                                            "x4\n"
                                            "  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %h\n"));
}

// Review 7 lw.kir (F1, F5, F6), gfx950: a K = 512 loop of f32_16x16x32_f16
// MFMAs times alpha to f16 O; with `rw`, O read, added and written back
// (lr.kir).
inline std::string LongLoopKernel(bool rw) {
  return OneWaveMfmaLoopKernel(
      "lw", "gfx950", "f16", "f16", 512, "f32_16x16x32_f16", 32,
      absl::StrCat("arg O : f16[16, 16] strides [16, 1] ", rw ? "readwrite" : "writeonly",
                   "\n"
                   "arg alpha : f32\n"),
      absl::StrCat("  %s = mul %acc, alpha\n",
                   rw ? "  %o = load O[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f16x4\n"
                        "  %of = cvt %o : f32x4\n"
                        "  %t = add %s, %of\n"
                        "  %q = cvt %t : f16x4\n"
                      : "  %q = cvt %s : f16x4\n",
                   "  store O[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n"));
}

// Fresh-user review 12 F4 (two_b.kir, two.kir), gfx950, all f8e4m3fn: a K =
// 128 loop of fp8 MFMAs over A1, B1 to %acc, O1 = cvt(alpha * acc); with
// `second_loop` the same loop over A2, B2 to %acc2; O2 = cvt(%s2), %s2 =
// `s2` (an op on %acc or %acc2, e.g. "add %acc2, %acc2").
inline std::string TwoFp8ChainsKernel(const std::string& name, const std::string& s2, bool second_loop = true) {
  auto loop = [](const std::string& acc, const std::string& a, const std::string& b) {
    return MfmaKLoop(acc, a, b, "f8e4m3fn", "f8e4m3fn", 128, "f32_16x16x32_fp8_fp8", 32);
  };
  return absl::StrCat("kernel ", name, "\ntarget gfx950\nworkgroup 64 1 1\ngrid 1 1 1\n",
                      MfmaOperandArg("A1", "f8e4m3fn", 128), MfmaOperandArg("B1", "f8e4m3fn", 128),
                      MfmaOperandArg("A2", "f8e4m3fn", 128), MfmaOperandArg("B2", "f8e4m3fn", 128),
                      "arg O1 : f8e4m3fn[16, 16] strides [16, 1] writeonly\n"
                      "arg O2 : f8e4m3fn[16, 16] strides [16, 1] writeonly\n"
                      "arg alpha : f32\n"
                      "  %z = zero f32x4\n",
                      loop("%acc", "A1", "B1"),
                      "  %s = mul %acc, alpha\n"
                      "  %q = cvt %s : f8e4m3fnx4\n"
                      "  store O1[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q\n",
                      second_loop ? loop("%acc2", "A2", "B2") : "", "  %s2 = ", s2,
                      "\n"
                      "  %q2 = cvt %s2 : f8e4m3fnx4\n"
                      "  store O2[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %q2\n"
                      "end\n");
}

// The `kernel` and `target` lines of kernel `name`; no `target` line (the
// default target) if `target` is empty.
inline std::string KernelHead(const std::string& name, const std::string& target) {
  return absl::StrCat("kernel ", name, "\n", target.empty() ? "" : absl::StrCat("target ", target, "\n"));
}

// Review 8 k2.kir (F2), no MFMA, 4 workgroups on `target` (KernelHead):
// Q = cvt(cvt(X * scale + Y : f16) : f8e4m3fnuz), 1024 elements.
inline std::string Review8F2ElementwiseKernel(const std::string& target) {
  return absl::StrCat(KernelHead("k2", target), R"(workgroup 64 1 1
grid 4 1 1
arg X : f32[1024] strides [1] readonly
arg Y : f32[1024] strides [1] readonly
arg Q : f8e4m3fnuz[1024] strides [1] writeonly
arg scale : f32
  %x = load X[(wg.x * 64 + tid.x) * 4] : f32x4
  %y = load Y[(wg.x * 64 + tid.x) * 4] : f32x4
  %m = mul %x, scale
  %s = add %m, %y
  %h = cvt %s : f16x4
  %q = cvt %h : f8e4m3fnuzx4
  store Q[(wg.x * 64 + tid.x) * 4], %q
end
)");
}

// Review 8 k7.kir / k8.kir (F8) on `target` (KernelHead): Y = cvt(X * X :
// f16) + Z (f16 Z and Y, 256 elements); with `mfma` (k8) beside an unrelated
// 16x16x16 f16 MFMA to f32 C.
inline std::string F16AddKernel(const std::string& target, bool mfma) {
  return absl::StrCat(KernelHead(mfma ? "k8" : "k7", target), "workgroup 64 1 1\ngrid 1 1 1\n",
                      mfma ? R"(arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg C : f32[16, 16] strides [16, 1] writeonly
)"
                           : "",
                      R"(arg X : f32[256] strides [1] readonly
arg Z : f16[256] strides [1] readonly
arg Y : f16[256] strides [1] writeonly
)",
                      mfma ? R"(  %a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %b = load B[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %c0 = zero f32x4
  %d = mfma f32_16x16x16_f16 %a, %b, %c0
  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d
)"
                           : "",
                      R"(  %x = load X[tid.x * 4] : f32x4
  %s = mul %x, %x
  %h = cvt %s : f16x4
  %z = load Z[tid.x * 4] : f16x4
  %y = add %h, %z
  store Y[tid.x * 4], %y
end
)");
}

// Review 7 mb.kir / m8.kir (gfx950): O[0] = cvt(alpha * mfma) and O[1] a cvt
// of loaded f32 data X, both to `to`; with `sliced`, X's f32x4 goes through
// two slices and a concat before its cvt.
inline std::string Review7BesideKernel(const std::string& to, bool sliced) {
  return OneWaveMfmaKernel("mb", "gfx950", "f32_16x16x32_f16", 32,
                           absl::StrCat("arg X : f32[64, 4] strides [4, 1] readonly\n"
                                        "arg O : ",
                                        to,
                                        "[2, 16, 16] strides [256, 16, 1] writeonly\n"
                                        "arg alpha : f32\n"),
                           absl::StrCat("  %s = mul %d, alpha\n"
                                        "  %q = cvt %s : ",
                                        to,
                                        "x4\n"
                                        "  store O[0, tid.x floordiv 16 * 4, tid.x mod 16] along 1, %q\n"
                                        "  %x = load X[tid.x, 0] : f32x4\n",
                                        sliced ? "  %xs = slice %x, 0 : f32x2\n"
                                                 "  %xt = slice %x, 2 : f32x2\n"
                                                 "  %xc = concat %xs, %xt : f32x4\n"
                                               : "",
                                        "  %xq = cvt ", sliced ? "%xc" : "%x", " : ", to,
                                        "x4\n"
                                        "  store O[1, tid.x floordiv 4, tid.x mod 4 * 4], %xq\n"),
                           "%z");
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

// Fresh-user review 16 F3 k1.kir, gfx942: a K = 256 loop of 32x32 fp8
// MFMAs (f8e4m3fnuz A, B [32, 256]), %s = acc * alpha, O = cvt(%s) to
// f8e4m3fnuz (every register group), P = cvt(%s) to f16 (register groups 0
// and 2 only: rows 0..7 and 16..23).
inline std::string Review16F3F16Kernel() {
  return R"(kernel k1
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f8e4m3fnuz[32, 256] strides [256, 1] readonly
arg B : f8e4m3fnuz[32, 256] strides [256, 1] readonly
arg O : f8e4m3fnuz[32, 32] strides [32, 1] writeonly
arg P : f16[32, 32] strides [32, 1] writeonly
arg alpha : f32
  %z = zero f32x16
  %acc = for %k = 0 to 256 step 16 iter(%c = %z) {
    %a = load A[tid.x mod 32, %k + tid.x floordiv 32 * 8] : f8e4m3fnuzx8
    %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 8] : f8e4m3fnuzx8
    %d = mfma f32_32x32x16_fp8_fp8 %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
  %o = cvt %s : f8e4m3fnuzx16
  %p = cvt %s : f16x16
  %o0 = slice %o, 0 : f8e4m3fnuzx4
  %o1 = slice %o, 4 : f8e4m3fnuzx4
  %o2 = slice %o, 8 : f8e4m3fnuzx4
  %o3 = slice %o, 12 : f8e4m3fnuzx4
  store O[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %o0
  store O[tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0, %o1
  store O[tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0, %o2
  store O[tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0, %o3
  %p0 = slice %p, 0 : f16x4
  %p2 = slice %p, 8 : f16x4
  store P[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %p0
  store P[tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0, %p2
end
)";
}

// Fresh-user review 16 k6.kir (F5, F7), gfx950, 4 workgroups of one wave: a
// K = 128 loop of 32x32x16 fp8 MFMAs `mfma` over A (`a_elem`[128, 128]) and B
// (`b_elem`[32, 128]), s = acc * alpha, O = cvt(s) : f8e5m2 (every register
// group) and P = cvt(s) : bf16 (register groups 1 and 3 only). k9.kir:
// ("k9", "f8e4m3fn", "f8e4m3fn", "f32_32x32x16_fp8_fp8").
inline std::string Review16K6Kernel(const std::string& name = "k6", const std::string& a_elem = "f8e4m3fn",
                                    const std::string& b_elem = "f8e5m2",
                                    const std::string& mfma = "f32_32x32x16_fp8_bf8") {
  return absl::StrReplaceAll(R"(kernel NAME
target gfx950
workgroup 64 1 1
grid 4 1 1
arg A : AE[128, 128] strides [128, 1] readonly
arg B : BE[32, 128] strides [128, 1] readonly
arg O : f8e5m2[128, 32] strides [32, 1] writeonly
arg P : bf16[128, 32] strides [32, 1] writeonly
arg alpha : f32
  %z = zero f32x16
  %acc = for %k = 0 to 128 step 16 iter(%c = %z) {
    %a = load A[wg.x * 32 + tid.x mod 32, %k + tid.x floordiv 32 * 8] : AEx8
    %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 8] : BEx8
    %d = mfma MFMA %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
  %o = cvt %s : f8e5m2x16
  %p = cvt %s : bf16x16
  %o0 = slice %o, 0 : f8e5m2x4
  %o1 = slice %o, 4 : f8e5m2x4
  %o2 = slice %o, 8 : f8e5m2x4
  %o3 = slice %o, 12 : f8e5m2x4
  store O[wg.x * 32 + tid.x floordiv 32 * 4, tid.x mod 32] along 0, %o0
  store O[wg.x * 32 + tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0, %o1
  store O[wg.x * 32 + tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0, %o2
  store O[wg.x * 32 + tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0, %o3
  %p1 = slice %p, 4 : bf16x4
  %p3 = slice %p, 12 : bf16x4
  store P[wg.x * 32 + tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0, %p1
  store P[wg.x * 32 + tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0, %p3
end
)",
                             {{"NAME", name}, {"AE", a_elem}, {"BE", b_elem}, {"MFMA", mfma}});
}

// Fresh-user review 16 F3 k6.kir: Review16K6Kernel with its defaults.
inline std::string Review16F3Bf16Kernel() { return Review16K6Kernel(); }

// Fresh-user review 16 F3 k11.kir, gfx950, no MFMA: H = cvt(X * s) to f16,
// 1000 elements (guarded loads and stores of 4).
inline std::string Review16F3QuantiserKernel() {
  return R"(kernel k11
target gfx950
workgroup 64 1 1
grid 4 1 1
arg X : f32[1000] strides [1] readonly
arg H : f16[1000] strides [1] writeonly
arg s : f32
  %x = load guarded X[(wg.x * 64 + tid.x) * 4] : f32x4
  %y = mul %x, s
  %h = cvt %y : f16x4
  store guarded H[(wg.x * 64 + tid.x) * 4], %h
end
)";
}

// Fresh-user review 18 F4 (t1.kir) and F6 (k4.kir), gfx942, one wave: a K = `k`
// loop of 32x32x16 fp8 MFMAs over A and B (f8e4m3fnuz[32, k]), %acc the
// f32x16 sum; then the other arguments' `arg` lines `args` (after A and B)
// and `body` (ops, one per line, indented by two).
inline std::string R18F4Mfma32LoopKernel(const std::string& name, int k, const std::string& args,
                                         const std::string& body) {
  return absl::StrCat("kernel ", name, "\ntarget gfx942\nworkgroup 64 1 1\ngrid 1 1 1\n",
                      absl::StrReplaceAll(R"(arg A : f8e4m3fnuz[32, K] strides [K, 1] readonly
arg B : f8e4m3fnuz[32, K] strides [K, 1] readonly
)",
                                          {{"K", absl::StrCat(k)}}),
                      args, absl::StrReplaceAll(R"(  %z = zero f32x16
  %acc = for %k = 0 to K step 16 iter(%c = %z) {
    %a = load A[tid.x mod 32, %k + tid.x floordiv 32 * 8] : f8e4m3fnuzx8
    %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 8] : f8e4m3fnuzx8
    %d = mfma f32_32x32x16_fp8_fp8 %a, %b, %c
    yield %d
  }
)",
                                                {{"K", absl::StrCat(k)}}),
                      body, "end\n");
}

// The lines (indented by two) storing `value` (`elem`x16, a 32x32 MFMA
// result's layout) to the [32, 32] buffer `out`: four slices of 4, rows
// tid.x floordiv 32 * 4 + 8 g, column tid.x mod 32.
inline std::string R18F4Store32(const std::string& out, const std::string& value, const std::string& elem) {
  std::string r;
  for (int g = 0; g < 4; ++g) {
    const std::string v = absl::StrCat(value, g);
    absl::StrAppend(&r, "  ", v, " = slice ", value, ", ", 4 * g, " : ", elem, "x4\n  store ", out,
                    "[tid.x floordiv 32 * 4", g > 0 ? absl::StrCat(" + ", 8 * g) : "", ", tid.x mod 32] along 0, ", v,
                    "\n");
  }
  return r;
}

// Fresh-user review 18 F8 k1.kir as the review ran it (gfx942, one wave, a
// 32x32 tile): a K = 128 loop of f32_32x32x16_fp8_fp8 MFMAs times alpha,
// converted to f16 (P) and to bf16 (Q), stored as four row groups each.
inline std::string R18F8FullKernel() {
  return R"(kernel k1
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f8e4m3fnuz[32, 128] strides [128, 1] readonly
arg B : f8e4m3fnuz[32, 128] strides [128, 1] readonly
arg P : f16[32, 32] strides [32, 1] writeonly
arg Q : bf16[32, 32] strides [32, 1] writeonly
arg alpha : f32
  %z = zero f32x16
  %acc = for %k = 0 to 128 step 16 iter(%c = %z) {
    %a = load A[tid.x mod 32, %k + tid.x floordiv 32 * 8] : f8e4m3fnuzx8
    %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 8] : f8e4m3fnuzx8
    %d = mfma f32_32x32x16_fp8_fp8 %a, %b, %c
    yield %d
  }
  %s = mul %acc, alpha
  %p = cvt %s : f16x16
  %q = cvt %s : bf16x16
  %p0 = slice %p, 0 : f16x4
  %p1 = slice %p, 4 : f16x4
  %p2 = slice %p, 8 : f16x4
  %p3 = slice %p, 12 : f16x4
  store P[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %p0
  store P[tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0, %p1
  store P[tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0, %p2
  store P[tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0, %p3
  %q0 = slice %q, 0 : bf16x4
  %q1 = slice %q, 4 : bf16x4
  %q2 = slice %q, 8 : bf16x4
  %q3 = slice %q, 12 : bf16x4
  store Q[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %q0
  store Q[tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0, %q1
  store Q[tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0, %q2
  store Q[tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0, %q3
end
)";
}

// Fresh-user review 18 F7 t3.kir (gfx942): R18F8FullKernel with a third
// sibling, O = cvt(s) to f8e4m3fnuz, stored after P and Q.
inline std::string R18F7Kernel() {
  std::string o_stores;
  for (int i = 0; i < 4; ++i)
    absl::StrAppend(&o_stores, "  %o", i, " = slice %o, ", 4 * i, " : f8e4m3fnuzx4\n  store O[tid.x floordiv 32 * 4 + ",
                    8 * i, ", tid.x mod 32] along 0, %o", i, "\n");
  return absl::StrReplaceAll(
      R18F8FullKernel(),
      {{"kernel k1\n", "kernel t3\n"},
       {"arg alpha : f32\n", "arg O : f8e4m3fnuz[32, 32] strides [32, 1] writeonly\narg alpha : f32\n"},
       {"  %q = cvt %s : bf16x16\n", "  %q = cvt %s : bf16x16\n  %o = cvt %s : f8e4m3fnuzx16\n"},
       {"end\n", o_stores + "end\n"}});
}

// Fresh-user review 18 F6 k4.kir: R18F8FullKernel with alpha entering twice,
// s = (acc * alpha) * alpha, converted to f16 (P) and to bf16 (Q), all 32 x 32
// stored.
inline std::string R18F6Kernel() {
  return absl::StrReplaceAll(R18F8FullKernel(), {{"kernel k1\n", "kernel k4\n"},
                                                 {"  %s = mul %acc, alpha\n",
                                                  "  %s1 = mul %acc, alpha\n  %s = mul %s1, alpha\n"}});
}

// Fresh-user review 20 F3 k1.kir (gfx950, one wave; k1h.kir with k = 256): a
// K = `k` loop of f32_32x32x64_fp8_bf8 MFMAs, s = (acc * alpha) * alpha,
// P = cvt(s) f16 rows 0..23 (line 19), Q = cvt(s) f8e4m3fn rows 24..31
// (line 20, slice 12 only).
inline std::string R20F3Kernel(int k = 512) {
  return absl::StrReplaceAll(R"(kernel k1
target gfx950
workgroup 64 1 1
grid 1 1 1
arg A : f8e4m3fn[32, K] strides [K, 1] readonly
arg B : f8e5m2[32, K] strides [K, 1] readonly
arg alpha : f32
arg P : f16[32, 32] strides [32, 1] writeonly
arg Q : f8e4m3fn[32, 32] strides [32, 1] writeonly
  %z = zero f32x16
  %acc = for %k = 0 to K step 64 iter(%c = %z) {
    %a = load A[tid.x mod 32, %k + tid.x floordiv 32 * 32] : f8e4m3fnx32
    %b = load B[tid.x mod 32, %k + tid.x floordiv 32 * 32] : f8e5m2x32
    %d = mfma f32_32x32x64_fp8_bf8 %a, %b, %c
    yield %d
  }
  %s1 = mul %acc, alpha
  %s = mul %s1, alpha
  %h = cvt %s : f16x16
  %q = cvt %s : f8e4m3fnx16
  %h0 = slice %h, 0 : f16x4
  %h1 = slice %h, 4 : f16x4
  %h2 = slice %h, 8 : f16x4
  %h3 = slice %h, 12 : f16x4
  store P[tid.x floordiv 32 * 4, tid.x mod 32] along 0, %h0
  store P[tid.x floordiv 32 * 4 + 8, tid.x mod 32] along 0, %h1
  store P[tid.x floordiv 32 * 4 + 16, tid.x mod 32] along 0, %h2
  %q3 = slice %q, 12 : f8e4m3fnx4
  store Q[tid.x floordiv 32 * 4 + 24, tid.x mod 32] along 0, %q3
end
)",
                             {{"K", absl::StrCat(k)}});
}

// Fresh-user review 20 F9 (k1h.kir, K = 256; k1.kir, K = 512): gfx950, one
// wave, a K loop of f32_32x32x64_fp8_bf8 MFMAs, s = (acc * alpha) * alpha
// converted to f16 (P, rows 0..23) and to f8e4m3fn (Q, rows 24..31).
inline std::string R20F9Kernel(int k = 256) {
  // R20F3Kernel's text with A and B [32, 512], the loop to `k` and no unused
  // slice of P's last row group.
  return absl::StrReplaceAll(R20F3Kernel(512), {{"kernel k1\n", "kernel k1h\n"},
                                                {"to 512 step 64", absl::StrCat("to ", k, " step 64")},
                                                {"  %h3 = slice %h, 12 : f16x4\n", ""}});
}

// Fresh-user review 20 F6 (g6.kir): gfx950 fp8 gemm into bf16 C read for
// beta * C, the scale sa entering twice: C = sa * sa * A * B + beta * C,
// K = 2048.
inline std::string R20F6Kernel() {
  return GemmKernel("g6", "gfx950", "f8e4m3fn[32, 2048]", "f8e5m2[32, 2048]", "bf16[32, 32]", {"sa", "beta"},
                    "C = sa * sa * A.mk * B.nk + beta * C");
}

// Fresh-user review 20 F2 (sq.kir): gfx942, one wave, one
// f32_16x16x16_f16 MFMA whose A and B operands are the same value (%a, %a:
// its products are squares, which no argument negated alone negates),
// P = cvt(d + d) to f16.
inline std::string R20F2Kernel() {
  return R"(kernel sq
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 16] strides [16, 1] readonly
arg P : f16[16, 16] strides [16, 1] writeonly
  %a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
  %zero = zero f32x4
  %d = mfma f32_16x16x16_f16 %a, %a, %zero
  %s = add %d, %d
  %p = cvt %s : f16x4
  store P[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %p
end
)";
}

// Fresh-user review 20 F1: gfx950, `C = sa * sa * A * B + beta * C` with
// f16 A and B [32, k] and a bf16 C [32, 32] (the scale entering twice; K =
// 512 and 1024 drew no exact tie of bf16's grid, K = 128 and 256 did).
inline std::string R20F1Kernel(int k = 1024) {
  const std::string ab = absl::StrCat("f16[32, ", k, "]");
  return GemmKernel("r20f1", "gfx950", ab, ab, "bf16[32, 32]", {"sa", "beta"},
                    "C = sa * sa * A.mk * B.nk + beta * C");
}

// Fresh-user review 20 F3 on gfx942: R20F3Kernel(512) with fnuz fp8 and
// f32_32x32x16_fp8_bf8 (K = 16 per MFMA: 32 trips of step 16, each lane
// loading 8 consecutive K indices).
inline std::string R20F3Gfx942Kernel() {
  return absl::StrReplaceAll(R20F3Kernel(512), {{"gfx950", "gfx942"},
                                                {"f8e4m3fn[", "f8e4m3fnuz["},
                                                {"f8e5m2[", "f8e5m2fnuz["},
                                                {"step 64", "step 16"},
                                                {"tid.x floordiv 32 * 32]", "tid.x floordiv 32 * 8]"},
                                                {": f8e4m3fnx32", ": f8e4m3fnuzx8"},
                                                {": f8e5m2x32", ": f8e5m2fnuzx8"},
                                                {"f32_32x32x64_fp8_bf8", "f32_32x32x16_fp8_bf8"},
                                                {"f8e4m3fnx16", "f8e4m3fnuzx16"},
                                                {"f8e4m3fnx4", "f8e4m3fnuzx4"}});
}

// Fresh-user review 20 F3: testdata/kernels/mma_loop_32x32x64_f16.kir (A and
// B staged through LDS, four waves) with K = `k` and C = cvt(acc) in
// f8e4m3fnuz: the MFMA operands' K index is not traced through LDS, so no
// K window (the cvt on line 19).
inline std::string R20F3LdsKernel(int k = 1024) {
  return absl::StrReplaceAll(R"(kernel lds_loop
target gfx942
workgroup 256 1 1
grid 1 1 1
arg A : f16[32, K] strides [K, 1] readonly
arg B : f16[32, K] strides [K, 1] readonly
arg C : f8e4m3fnuz[32, 32] strides [32, 1] writeonly
lds As : f16[32, 16] pad 4
lds Bs : f16[32, 16] pad 4
  %zero = zero f32x4
  %acc = for %k = 0 to K step 16 iter(%c = %zero) {
    %ga = load A[tid.x floordiv 8, %k + tid.x mod 8 * 2] : f16x2
    %gb = load B[tid.x floordiv 8, %k + tid.x mod 8 * 2] : f16x2
    store As[tid.x floordiv 8, tid.x mod 8 * 2], %ga
    store Bs[tid.x floordiv 8, tid.x mod 8 * 2], %gb
    barrier
    %a = load As[tid.x floordiv 128 * 16 + tid.x mod 16, tid.x mod 64 floordiv 16 * 4] : f16x4
    %b = load Bs[tid.x floordiv 64 mod 2 * 16 + tid.x mod 16, tid.x mod 64 floordiv 16 * 4] : f16x4
    %d = mfma f32_16x16x16_f16 %a, %b, %c
    barrier
    yield %d
  }
  %q = cvt %acc : f8e4m3fnuzx4
  store C[tid.x floordiv 128 * 16 + tid.x mod 64 floordiv 16 * 4, tid.x floordiv 64 mod 2 * 16 + tid.x mod 16] along 0, %q
end
)",
                             {{"K", absl::StrCat(k)}});
}

}  // namespace kir::testing

#endif  // KIRC_HW_CHECK_TEST_KERNELS_H_
