// Shared-memory promotion: turns a kernel whose body is one tile-level `gemm`
// op (compiler/ir/gemm.h) into thread-level KIR that stages A and B through
// LDS and runs the MFMAs in a K loop. The result uses only thread-level ops
// (load/store [guarded] with along, barrier, mfma, zero, mul, fma, cvt,
// slice, for with iter_args; on gfx950 load_tr and concat, lds_dma), so the validator, the lowering, the reference
// interpreter and `kirc compile --emit=kir` take it like a hand-written kernel.
//
// Structure of the promoted kernel (C = alpha * op(A) * op(B) + beta * C):
// - `workgroup 64 WM WN`: tid.x is the lane, tid.y the wave's row and tid.z
//   its column in the WM x WN grid of waves; `grid ceil(M/BM) ceil(N/BN) 1`:
//   workgroup (wg.x, wg.y) computes C's BM x BN block at (wg.x*BM, wg.y*BN).
// - Each wave owns a (BM/WM) x (BN/WN) part of the block as a grid of m x n
//   MFMA tiles; their accumulators (f32x4 for 16x16, f32x16 for 32x32) are
//   the iter_args of `for %k = 0 to ceil(K/BK)*BK step BK`.
// - LDS holds A's tile as rows of M with K contiguous (lds A_lds : T[BM, BK]
//   pad P) and B's as rows of N with K contiguous, whatever the global
//   layout, so that every MFMA fragment read is one contiguous vector: lane l
//   reads row l % m of its tile and k = s*k_mfma + (l / m) * w .. + w-1
//   (w = the MFMA's elements per lane: 4, 2 for gfx908's bf16 MFMAs, 8 for
//   gfx950's K-doubled 16-bit and both targets' fp8 shapes, 32 fp8 = 32
//   bytes for gfx950's f8f6f4 shapes). A and B each keep their own element
//   type (fp8 formats may differ); the staging is the same, in bytes. A transposed operand
//   (A.km, B.kn, or any layout whose stride-1 dimension is the row
//   dimension) is transposed on the way in: global loads stay vectors along
//   the stride-1 dimension (coalesced) and the LDS store scatters the vector
//   down the column (`store ... along` the row dimension).
//   Exception (gfx950, 16-bit, GemmOperandPlan::tr): such an operand may be
//   staged K-major as it is and its fragments read with load_tr + concat.
// - Per K tile the workgroup's threads copy A's BM x BK and B's BN x BK tile
//   with the widest global vectors the proven alignment allows (16 bytes
//   when the stride-1 extent, the other stride and the tile are multiples
//   of 8 elements; narrower otherwise) into LDS, barrier, and each wave reads
//   its fragments and issues its MFMAs. Single buffering puts a second
//   barrier after the MFMAs (the next tile's stores must not overwrite a
//   tile other waves still read). Double buffering keeps two stages
//   (LDS [2, rows, BK], stage (%k floordiv BK) mod 2): the prologue stages
//   tile 0; each iteration issues the global loads of tile k+1, then the
//   fragment reads and MFMAs of stage k, then stores tile k+1 into the other
//   stage and meets one barrier.
// - The LDS layout (row padding P: multiples of w elements up to 16
//   elements, in steps of at most 16 bytes so that 32-byte fp8 fragments
//   stay 16-byte aligned for ds_read_b128; or no padding and a rotation swizzle of
//   the row's w-element chunks by (row floordiv d)), the split of the copy's
//   stores (16-byte global vectors may be stored as 8- or 4-byte pieces via
//   slice) and the order in which lanes walk the tile are CHOSEN BY
//   COUNTING BANK CONFLICTS (bank_conflicts.h) on the exact addresses of the
//   generated accesses:
//   first the fragment reads' conflicts, then global coalescing (at least 64
//   contiguous bytes per group of lanes where the tile allows), then the
//   copy's LDS write cycles (over store widths, lane groupings and line
//   orders that swap one bit of the line index inside a write cycle's lines
//   with one outside them, within a wave's lines), then the smaller LDS
//   footprint (fewer bytes can mean more workgroups per CU), then no swizzle
//   (its addresses cost VALU work).
// - Edges: M, N and K need not be multiples of the tile. Global loads that
//   can leave the shape are `guarded` (they read 0, so partial K tiles add
//   nothing), and so are C's loads and stores; a global vector never
//   straddles the shape's edge (its width divides the stride-1 extent).
// - alpha: the gemm's one factor, or the product of its factors formed once
//   before the tiles (`mul` of the scalar arguments, left to right:
//   compiler/ir/gemm.h's rounding).
// - Epilogue per MFMA tile and 4-row group: out = fma(C, beta, alpha * acc)
//   (or alpha * acc without beta), cvt to C's type, store down the column
//   (`along 0`); 32x32 results are sliced into their four 4-row groups. A
//   group is one 4-row vector access when C's layout aligns it (as the
//   validator proves it), else sliced into 2- or 1-row pieces (e.g. N = 1
//   with C strides [1, 1], or a column-major C with M not a multiple of 4).
#ifndef KIRC_COMPILER_PROMOTE_PROMOTE_H_
#define KIRC_COMPILER_PROMOTE_PROMOTE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/promote/bank_conflicts.h"
#include "compiler/analysis/gemm_config.h"
#include "compiler/target/target.h"

namespace kir {

// How one operand (A or B) is staged through LDS.
struct GemmOperandPlan {
  std::string lds;            // the LDS allocation's name
  bool vec_along_k = true;    // global vectors run along K (else along M / N)
  int vec = 1;                // elements per global load
  int lds_vec = 1;            // elements per LDS store op (vec, or vec split with slice)
  int64_t pad = 0;            // elements after each LDS row
  // 0, or d > 0: the LDS row is swizzled in chunks of w elements (w = the
  // fragment read's width; with `dma`, 16 bytes):
  // chunk c of row r lives at chunk
  // (c + r floordiv d) mod (BK / w), a rotation that spreads the rows of a
  // read over the banks without padding (KIR has no XOR; a rotation by the
  // row does the same job).
  int64_t swizzle = 0;
  int64_t lanes_along = 1;    // consecutive lanes along the vector dimension
  // Line order: the line (row of the tile along the vectors' other dimension)
  // a lane copies is its index in lane order with bits swap_lo and swap_hi
  // exchanged (-1: no swap). It changes which lines share an LDS write cycle,
  // not which lines a wave reads from global memory.
  int swap_lo = -1, swap_hi = -1;
  int64_t copies = 1;         // global vectors each thread copies per K tile
  // Copied by KIR lds_dma (gfx950's LDS DMA; GemmConfig::lds_dma): the wave's
  // 64 lanes x 16 bytes land contiguously in the unpadded tile, 16-byte
  // chunk q of the tile in round i, wave w, lane l being q = (i * threads +
  // 64 * w + l); a swizzle is then made by which global chunk a lane loads
  // (the inverse rotation), and its unit is the DMA's 16 bytes. A swizzled
  // fragment wider than that (fp8's 32-byte f8f6f4 fragments) is read as one
  // 16-byte LDS load per unit, the pieces joined by KIR `concat` (no
  // instruction: the loads write the halves of one register tuple), so each
  // piece's place rotates on its own and a ds_read_b128's 16-lane groups
  // reach every 16-byte bank group (issue 19). No LDS stores (tile_writes
  // stays 0: the DMA is no DS instruction).
  bool dma = false;
  // Staged K-major for gfx950's transposing read (TargetInfo::has_ds_read_tr_b16;
  // 16-bit operands whose stride-1 dimension is M / N, GemmConfig::load_tr):
  // LDS holds [stage,] BK x (rows + pad), the copy stores the global vectors
  // (along the rows) as they are, and each w-element fragment is w / 4 KIR
  // `load_tr` reads joined by `concat` when w is 8. Lane l (row l mod R of
  // its R-row MFMA tile, k = (l floordiv R) * w + 4h .. + 3 for half h)
  // addresses the block at k = kb + (l mod 16) floordiv 4, row = its 16-row
  // group's first + 4 * (l mod 4): what ds_read_b64_tr_b16's lane exchange
  // (DsReadTrB16Source, compiler/isa/semantics.h) turns into its own row's
  // 4 elements along K. Chosen over the transposing copy when its DS
  // instructions and cycles (fragment reads + tile writes) are no more and
  // one is fewer.
  bool tr = false;
  // Per K tile, summed over the workgroup's waves (bank_conflicts.h model).
  LdsTraffic fragment_reads;  // the MFMA fragment reads of the operand
  LdsTraffic tile_writes;     // the copy's LDS stores
};

struct GemmPlan {
  GemmConfig config;
  GemmOperandPlan a, b;
  int64_t lds_bytes = 0;  // both allocations, as kir::LayoutLds
  // One line per operand, e.g. "A: f16x8 loads along K, 2 per thread; LDS
  // [2, 128, 32] pad 4, stores f16x4; fragment reads 64 instr 0 conflict
  // cycles; writes 32 instr 16 conflict cycles".
  std::string Summary() const;
};

// The plan for the kernel's gemm op on `t` (the kernel must pass
// ValidateKernel: promotion assumes a valid gemm).
absl::StatusOr<GemmPlan> PlanGemm(const Kernel& k, const TargetInfo& t);

// The thread-level kernel of a gemm kernel (see above); a copy of `k` for a
// kernel without gemm. `k` must pass ValidateKernel on `t` (InvalidArgument
// from the gemm checks otherwise). The result names `t` as its target, keeps
// the name, consts and arguments, and gives every op the gemm's SourceLoc.
absl::StatusOr<Kernel> PromoteGemm(const Kernel& k, const TargetInfo& t);
// The same with the configuration ValidateKernel(k, t, ..., &config) gave
// (the pass pipeline's `promote`): `k` is not validated or resolved again,
// but the promoted kernel is validated (`filename` in positions), and an
// error there is an Internal error (a kirc bug).
absl::StatusOr<Kernel> PromoteGemm(const Kernel& k, const TargetInfo& t, const GemmConfig& config,
                                   absl::string_view filename = "");

// What compile paths call: validates `k` on `t` (gemm checks included; errors
// carry `filename` and positions), promotes a gemm kernel and validates the
// promoted kernel (an Internal error there is a kirc bug). A kernel without
// gemm is returned unchanged after the first validation.
absl::StatusOr<Kernel> ValidateAndPromote(const Kernel& k, const TargetInfo& t,
                                          absl::string_view filename = "");

}  // namespace kir

#endif  // KIRC_COMPILER_PROMOTE_PROMOTE_H_
