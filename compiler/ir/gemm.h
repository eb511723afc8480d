// The tile-level GEMM op of KIR (README.md, "Tile-level gemm"):
//
//   gemm C = [alpha *] A.mk * B.nk [+ beta * C] [tile BMxBNxBK] [waves WMxWN]
//            [mfma NAME] [double_buffer on|off]
//
// C (M x N) = alpha * op(A) * op(B) + beta * C, accumulated in f32. A is
// stored M x K ("A.mk") or K x M ("A.km"); B is stored N x K ("B.nk") or
// K x N ("B.kn"). alpha and beta are f32 scalar arguments; without
// "alpha *" alpha is 1 (no multiply); without "+ beta * C" beta is 0 and C
// is not read. The optional clauses fix the
// tiling (block tile, waves per workgroup as a WM x WN grid, MFMA instruction,
// LDS double buffering); left out, compiler/analysis/gemm_config.h chooses
// them per target and problem. compiler/promote turns the op into
// thread-level KIR; nothing else lowers it.
#ifndef KIRC_COMPILER_IR_GEMM_H_
#define KIRC_COMPILER_IR_GEMM_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace kir {

struct GemmOp {
  std::string c;          // the output buffer (M x N)
  std::string alpha;      // f32 scalar argument; empty: none (alpha = 1)
  std::string a;          // buffer A
  bool a_km = false;      // true: "A.km" (stored K x M); false: "A.mk" (M x K)
  std::string b;          // buffer B
  bool b_kn = false;      // true: "B.kn" (stored K x N); false: "B.nk" (N x K)
  std::string beta;       // f32 scalar argument; empty: no "+ beta * C" term
  std::string c_in;       // the buffer of "+ beta * C" (must be `c`); empty iff beta is
  std::array<int64_t, 3> tile{0, 0, 0};  // BM, BN, BK; all 0: not given (default)
  std::array<int64_t, 2> waves{0, 0};    // WM, WN; all 0: not given (default)
  std::string mfma;                      // KIR MFMA name; empty: not given (default)
  std::optional<bool> double_buffer;     // nullopt: not given (default)

  bool has_alpha() const { return !alpha.empty(); }
  bool has_beta() const { return !beta.empty(); }
  bool has_tile() const { return tile[0] != 0 || tile[1] != 0 || tile[2] != 0; }
  bool has_waves() const { return waves[0] != 0 || waves[1] != 0; }
  friend bool operator==(const GemmOp&, const GemmOp&) = default;
};

// Canonical text of the op without indentation or newline, e.g.
// "gemm C = alpha * A.mk * B.nk + beta * C tile 64x64x32 waves 2x2
// mfma f32_32x32x8_f16 double_buffer on" (one line; clauses that were not
// given are left out, in this order).
std::string GemmOpText(const GemmOp& g);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_GEMM_H_
