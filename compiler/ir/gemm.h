// The tile-level GEMM op of KIR (docs/kir.md, "Tile-level gemm"):
//
//   gemm C = [f1 * [f2 * ...]] A.mk * B.nk [+ beta * C | + C] [tile BMxBNxBK]
//            [waves WMxWN] [mfma NAME] [double_buffer on|off] [lds_dma on|off]
//
// C (M x N) = alpha * op(A) * op(B) + beta * C, accumulated in f32. A is
// stored M x K ("A.mk") or K x M ("A.km"); B is stored N x K ("B.nk") or
// K x N ("B.kn"). A and B are both f16, both bf16, or each an fp8 type of
// the target's flavour (gfx942: f8e4m3fnuz / f8e5m2fnuz, gfx950: f8e4m3fn /
// f8e5m2; A's and B's formats may differ); C is f32, f16 or bf16.
// The factors f1, f2, ... (e.g. `alpha * sa * sb * A.mk * B.nk`: alpha and
// per-tensor scales of A and B) and beta are f32 scalar arguments. Rounding:
// alpha = f1 * f2 * ... is formed once in f32, left to right, each product
// rounded to nearest even ((f1 * f2) * f3 ...); each f32 accumulator is then
// multiplied by alpha (one rounding) and, with "+ beta * C", the result is
// fma(C, beta, alpha * acc) (one rounding), then converted to C's type.
// "+ C" is beta = 1: the result is C + alpha * acc (one rounding, as the
// fma). Without factors alpha is 1 (no multiply); without "+ beta * C" or
// "+ C" beta is 0 and C is not read. The optional clauses fix the
// tiling (block tile, waves per workgroup as a WM x WN grid, MFMA instruction,
// LDS double buffering) and the copy (lds_dma: the A/B tiles go to LDS by
// gfx950's LDS DMA, no registers or LDS stores); left out, compiler/analysis/gemm_config.h chooses
// them per target and problem. compiler/promote turns the op into
// thread-level KIR; nothing else lowers it.
#ifndef KIRC_COMPILER_IR_GEMM_H_
#define KIRC_COMPILER_IR_GEMM_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kir {

struct GemmOp {
  std::string c;          // the output buffer (M x N)
  // f32 scalar arguments multiplied before A, in source order; empty: none
  // (alpha = 1). One factor is the classic alpha.
  std::vector<std::string> factors;
  std::string a;          // buffer A
  bool a_km = false;      // true: "A.km" (stored K x M); false: "A.mk" (M x K)
  std::string b;          // buffer B
  bool b_kn = false;      // true: "B.kn" (stored K x N); false: "B.nk" (N x K)
  std::string beta;       // f32 scalar argument; empty: no "+ beta * C" term (beta 1 or 0)
  std::string c_in;       // the buffer of "+ beta * C" or "+ C" (must be `c`); empty: no C term
  std::array<int64_t, 3> tile{0, 0, 0};  // BM, BN, BK; all 0: not given (default)
  std::array<int64_t, 2> waves{0, 0};    // WM, WN; all 0: not given (default)
  std::string mfma;                      // KIR MFMA name; empty: not given (default)
  std::optional<bool> double_buffer;     // nullopt: not given (default)
  std::optional<bool> lds_dma;           // nullopt: not given (default)

  bool has_alpha() const { return !factors.empty(); }
  bool has_beta() const { return !beta.empty(); }  // "+ beta * C"
  bool adds_c() const { return !c_in.empty(); }     // "+ beta * C" or "+ C": C is read
  bool has_tile() const { return tile[0] != 0 || tile[1] != 0 || tile[2] != 0; }
  bool has_waves() const { return waves[0] != 0 || waves[1] != 0; }
  friend bool operator==(const GemmOp&, const GemmOp&) = default;
};

// Canonical text of the op without indentation or newline, e.g.
// "gemm C = alpha * A.mk * B.nk + beta * C tile 64x64x32 waves 2x2
// mfma f32_32x32x8_f16 double_buffer on lds_dma off" (one line; clauses that were not
// given are left out, in this order).
std::string GemmOpText(const GemmOp& g);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_GEMM_H_
