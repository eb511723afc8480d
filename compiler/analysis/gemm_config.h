// The configuration of a tile-level gemm op (compiler/ir/gemm.h): the problem
// read from the kernel's buffers, and the tiling, either as written or chosen
// by the defaults below. Shared by the validator (which reports the errors with
// the op's position) and the promoter (compiler/promote/promote.h).
//
// Defaults (each applies only to a clause the op leaves out; given clauses
// shape the defaults of the others):
// - tile: BM = clamp(next power of two >= M, 16, 128), likewise BN from N
//   (so 128x128 for big problems, 64 for 33..64, 32 for 17..32, 16 below);
//   256x256 when M and N are both at least 4096, A is M x K and B N x K
//   (both contiguous along K: a K-strided operand needs a padded layout for
//   conflict-free reads, and two padded stages would not fit in LDS) and
//   `waves` is not given
//   (2 x 2 waves of 128 x 128: 64 FLOP per LDS byte read instead of 32, half
//   the global traffic per FLOP; the 256 f32 accumulators per lane fill the
//   AGPRs, beside the arch VGPRs on gfx90a/942). From 4096 x 4096 there are
//   at least 256 such blocks, one round for 84% of MI300X's 304 CUs, the
//   same wave quantization as 128x128 blocks there (1024 blocks, two per CU
//   by LDS: 1.7 rounds);
//   with `waves` given, BM is capped at 64 * WM (at most 64 rows of C per
//   wave) and raised to a multiple of WM * 16 (WM * m with `mfma` given).
//   BK = 32, or 16 when K <= 16 (f16/bf16: 64-byte K-tile rows). fp8
//   inputs: 64 (the same 64 bytes per row), and on gfx950 128, so that the
//   f8f6f4 shapes' k (128 for 16x16x128, 64 for 32x32x64) fits and a K tile
//   feeds 2 of their MFMAs per 32x32 tile instead of 1; 32 when K <= 32 and
//   64 when K <= 64 (the K tile not wider than needed). Double-buffered
//   256x256 tiles: 2 x (256 + 256) x 64 = 64 KiB (gfx942's LDS). A multiple
//   of a given MFMA's k.
// - waves: WM = 2 when BM >= 64 and BM / 2 is a multiple of the MFMA rows
//   (16, or m of a given mfma), else 1; WN likewise from BN. 128x128 gives
//   2x2 waves of 64x64 each, 4 waves = 256 threads.
// - mfma: the 32x32 instruction when each wave's BM/WM and BN/WN are
//   multiples of 32 and BK of its k, else the 16x16 one:
//     f16:  f32_32x32x8_f16  / f32_16x16x16_f16   (all targets)
//     bf16: f32_32x32x8_bf16 / f32_16x16x16_bf16  (gfx90a, gfx942)
//           f32_32x32x4_bf16 / f32_16x16x8_bf16   (gfx908: no 4-element bf16 MFMA)
//   32x32 halves the LDS fragment traffic per MAC of 16x16 at the same MFMA
//   throughput, so it is preferred whenever the wave tile allows it.
// - double_buffer: on when the K loop has at least 2 tiles (ceil(K/BK) >= 2)
//   and two unpadded stages fit in LDS, else off.
// - fp8 operands that promotion copies a byte per register (the stride-1
//   extent, the other stride or the tile along it not a multiple of 4, see
//   compiler/promote): BK 32 by default (as many loads per thread as f16's
//   BK 32), and from 4 K tiles no double buffering: the pipeline's loop
//   carries the next tile's registers, which must be whole registers for
//   fp8; `double_buffer on` is refused there.
// - registers: when the defaults' K loop is expected to need more than the
//   arch VGPRs a wave may use beside the accumulators (the target's 256, and
//   no more than MaxVgprsPerWave for c.Threads() less the accumulators where
//   they share the file: 128 in all for 16 waves) (expected_arch_vgprs:
//   a K tile's MFMA operands twice, the tile copies the pipeline holds,
//   and 64 for addresses), a default BK is halved (while it stays a
//   multiple of the MFMA's k; a default MFMA is chosen again), then a
//   default double buffering is turned off. So gfx950's fp8 256x256 tiles
//   take BK 64 (128 would need 2 x 128 + 2 x 64 + 64), and a given
//   `tile 256x256x128` there runs single-buffered unless `double_buffer on`
//   is given. gemm_default_sweep_test compiles the defaults over a grid of
//   shapes and checks the estimate against the registers used.
// - buffer windows: an operand of kWideBufferBytes (2^31) or more is
//   addressed through windows of at most 2^31 bytes per workgroup and access
//   (compiler/lower), so a default tile is halved (BM, BN or BK: the one
//   whose dimension's rows lie farthest apart in an operand that does not
//   fit; default waves and MFMA chosen again) until every such operand's
//   reach fits: A's BM x BK and B's BN x BK tiles, C's (WM - 1) * BM / WM +
//   m rows by (WN - 1) * BN / WN + n columns (one epilogue access), each
//   (extent - 1) x |stride| + 1 elements. When the smallest tile does not
//   fit, InvalidArgument names the operand, the tile and the bytes reached
//   (review 11 F3). A given tile is not checked here (each copy covers only
//   part of the tile): the lowering refuses an access that reaches too far.
// - lds_dma: on for gfx950 GEMMs (f16, bf16 and fp8) whose waves each spend
//   at least kLdsDmaMinKTileMfmaCycles MFMA cycles per K tile (the
//   256x256x32 f16/bf16 and 256x256x64 fp8 defaults of large problems) when
//   LdsDmaProblem allows the DMA; off
//   otherwise (DefaultLdsDma, with the measurements). `lds_dma on` (copy A and B with gfx950's LDS DMA, no copy
//   registers: ExpectedArchVgprs counts none) is refused with the reason on
//   targets without TargetInfo::has_lds_dma_dwordx4, for K-strided operands
//   (A.km, B.kn, a K stride other than 1, rows not 16-byte aligned), for
//   shapes with edge tiles (M, N, K not multiples of BM, BN, BK: the DMA
//   cannot be guarded) and for K-tile rows that do not divide a wave's
//   1024 DMA bytes.
#ifndef KIRC_COMPILER_ANALYSIS_GEMM_CONFIG_H_
#define KIRC_COMPILER_ANALYSIS_GEMM_CONFIG_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/types.h"
#include "compiler/target/target.h"

namespace kir {

struct GemmConfig {
  // The problem.
  int64_t m = 0, n = 0, k = 0;
  // A and B: both f16, both bf16, or each an fp8 type of the target's flavour.
  ElemType a_elem = ElemType::kF16, b_elem = ElemType::kF16;
  ElemType out_elem = ElemType::kF32;  // C: f32, f16 or bf16
  // has_beta: the result adds C (`+ beta * C` or `+ C`), so C is read.
  bool a_km = false, b_kn = false, has_beta = false;
  // The tiling.
  int64_t bm = 0, bn = 0, bk = 0;  // block tile: one workgroup's C block and K step
  int64_t wm = 1, wn = 1;          // waves per workgroup: WM along M, WN along N
  const MfmaDesc* mfma = nullptr;
  bool double_buffer = false;
  // The A and B tiles go to LDS by gfx950's LDS DMA (KIR lds_dma), not
  // through registers and LDS stores (compiler/promote).
  bool lds_dma = false;
  // Promotion may stage a K-strided 16-bit operand (A.km, B.kn) K-major in
  // LDS and read its fragments with gfx950's load_tr (two and a concat for
  // an 8-element fragment) where the bank model and the DS instruction count
  // favour it (compiler/promote GemmOperandPlan::tr). false: never (the
  // transposing copy). A knob of the C++ API, no KIR clause.
  bool load_tr = true;
  // Which of tile, waves, mfma, double_buffer and lds_dma the defaults chose.
  bool default_tile = false, default_waves = false, default_mfma = false,
       default_double_buffer = false, default_lds_dma = false;

  // ExpectedArchVgprs of compiler/analysis/gemm_config.cc: the arch VGPRs
  // per lane the promoted K loop is expected to need beside the
  // accumulators (its MFMA operands and tile copies, plus an allowance for
  // addresses), an upper estimate the defaults keep within the target's 256.
  int64_t expected_arch_vgprs = 0;

  int64_t Threads() const { return 64 * wm * wn; }
  int64_t GridM() const { return (m + bm - 1) / bm; }
  int64_t GridN() const { return (n + bn - 1) / bn; }
  int64_t KTiles() const { return (k + bk - 1) / bk; }
  int64_t Stages() const { return double_buffer ? 2 : 1; }
  int64_t WaveTileM() const { return bm / wm; }
  int64_t WaveTileN() const { return bn / wn; }
  int64_t MfmaTilesM() const { return bm / wm / mfma->m; }  // MFMA tiles per wave along M
  int64_t MfmaTilesN() const { return bn / wn / mfma->n; }
  int64_t KSteps() const { return bk / mfma->k; }  // MFMAs per tile per K tile
  // Registers per lane of one wave's f32 accumulators (its MFMA tiles' C/D
  // fragments): AGPRs on gfx908, VGPRs on gfx90a/942.
  int64_t AccumulatorRegs() const { return MfmaTilesM() * MfmaTilesN() * mfma->cd_width; }
  // Registers per lane of one wave's MFMA A and B operands for one K tile
  // (every MFMA tile's fragments of every k-step: KSteps x (MfmaTilesM +
  // MfmaTilesN) x the MFMA's ab_regs, e.g. 2 x 8 x 8 = 128 for 128 x 128 per
  // wave of f32_32x32x64_fp8_fp8 with BK 128).
  int64_t FragmentRegs() const { return KSteps() * (MfmaTilesM() + MfmaTilesN()) * mfma->ab_regs(); }
  // LDS bytes of the staged A and B tiles with `pad_a` / `pad_b` elements after
  // each row (each allocation 16-byte aligned, as kir::LayoutLds).
  int64_t LdsBytes(int64_t pad_a, int64_t pad_b) const;
  // The tiling as gemm clauses: "tile 128x128x32 waves 2x2 mfma
  // f32_32x32x8_f16 double_buffer on" (and " lds_dma on" when it is on).
  std::string TilingText() const;
};

// The problem and tiling of `op` (a kOpGemm op of `k`) on target `t`, with the
// defaults filled in. InvalidArgument with a message that says what is wrong
// and what to do (no position: the validator adds it) when the buffers,
// scalars, types, shapes, MFMA or tiling do not fit: A, B, C must be 2-D
// buffers with consistent M, N, K for their layouts; A, B f16 or bf16 of one
// type, or each an fp8 type of `t`'s flavour (refused on gfx908/gfx90a, for
// the other flavour's types, and mixed with a 16-bit operand); C f32, f16
// or bf16 (not fp8); the factors (alpha) and beta f32 scalar arguments; C the
// buffer named by "+ beta * C"; the MFMA known, present on `t` and of the
// input types; BM a multiple of WM * m, BN of WN * n, BK of the MFMA's k;
// 64 * WM * WN <= 1024 threads; A's BM x BK and B's BN x BK tiles multiples of
// the thread count (every thread copies the same share); unpadded stages
// within the target's LDS (TargetInfo::lds_bytes); each wave's accumulators
// within the target's AGPRs, a lower bound of what register allocation
// needs, so what it refuses never compiles (the error names the
// configuration). Other register needs (expected_arch_vgprs) only steer the
// defaults: a configuration as given that needs more stops in register
// allocation, whose error names it too.
absl::StatusOr<GemmConfig> ResolveGemm(const Kernel& k, const Op& op, const TargetInfo& t);

// The MFMA cycles (4 x passes, TargetInfo's table) per K tile that each
// wave must spend for lds_dma to be on by default: a K tile's DMA overlaps
// that tile's MFMAs only, and below this the loop analyser's in-order model
// has the DMA's global latency exposed (gemm_config.cc DefaultLdsDma).
inline constexpr int64_t kLdsDmaMinKTileMfmaCycles = 1024;

// The lds_dma default for the gemm configured so far as `c` (types, tile,
// waves, MFMA) on `t`, whose LdsDmaProblem (gemm_config.cc) is `problem`
// ("" when the operands and shape allow the DMA): true on targets with the
// DMA (gfx950) for f16, bf16 and fp8 when each wave's MFMAs of a K tile take
// at least kLdsDmaMinKTileMfmaCycles (fp8 since its 32-byte fragments read
// without bank conflicts on the DMA layout, issue 19); false everywhere
// else.
bool DefaultLdsDma(const TargetInfo& t, const GemmConfig& c, absl::string_view problem);

// True when the kernel's body holds a gemm op (at the top level).
bool HasGemm(const Kernel& k);

// The kernel's gemm op (the first at the top level; validation keeps it the
// kernel's only op), or nullptr when it has none.
const Op* FindGemm(const Kernel& k);
Op* FindGemm(Kernel& k);

}  // namespace kir

#endif  // KIRC_COMPILER_ANALYSIS_GEMM_CONFIG_H_
