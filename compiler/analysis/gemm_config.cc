#include "compiler/analysis/gemm_config.h"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kir {
namespace {

absl::Status Bad(const std::string& msg) { return absl::InvalidArgumentError(msg); }

std::string Elem(ElemType e) { return std::string(ElemTypeName(e)); }

int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
// The largest power-of-two side s with s * s <= elems (a square wave block
// of C that `elems` f32 accumulators hold: 16384 -> 128).
int64_t MaxSquareWaveTile(int64_t elems) {
  int64_t s = 1;
  while (4 * s * s <= elems) s *= 2;
  return s;
}

// "A" for a buffer called like its role, else "X (A)".
std::string Who(const std::string& name, const char* role) {
  return name == role ? name : absl::StrCat(name, " (", role, ")");
}

// M and N from which the default tile is 256x256 (GemmConfig's header).
constexpr int64_t kLargeGemmExtent = 4096;

// clamp(next power of two >= x, 16, 128).
int64_t DefaultBlock(int64_t x) {
  if (x >= 128) return 128;
  int64_t b = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(x, 1))));
  return std::clamp<int64_t>(b, 16, 128);
}

// True if MFMA `d` takes A of element type `a` and B of `b`.
bool TakesElems(const MfmaDesc& d, ElemType a, ElemType b) {
  return MfmaInAccepts(d.a_in, a) && MfmaInAccepts(d.b_in, b);
}

bool IsE5m2(ElemType e) { return e == ElemType::kF8E5M2FNUZ || e == ElemType::kF8E5M2; }

// "fp8_bf8" etc.: the format pair of an fp8 MFMA name (A first; fp8 = E4M3,
// bf8 = E5M2, as the ISA's v_mfma_f32_*_{fp8,bf8}_{fp8,bf8}).
std::string Fp8Pair(ElemType a, ElemType b) {
  return absl::StrCat(IsE5m2(a) ? "bf8" : "fp8", "_", IsE5m2(b) ? "bf8" : "fp8");
}

// The default MFMA of `rows` (16 or 32) for inputs `a` x `b` on `t`, for K
// tiles of `bk`. gfx950 doubles the f16/bf16 rate with its K-doubled shapes
// (16x16x32 in 4 passes, 32x32x16 in 8: SISchedule.td
// SIDPGFX950FullSpeedModel, against 4 and 8 for 16x16x16 and 32x32x8): they
// are its default whenever BK is a multiple of their k. Likewise its fp8
// f8f6f4 shapes (16x16x128 in 8 passes, 32x32x64 in 16, against 4 and 8 for
// 16x16x32 and 32x32x16: twice the k per pass; the passes are cited in
// compiler/target/target.cc AllMfmas).
const MfmaDesc* DefaultMfma(ElemType a, ElemType b, const TargetInfo& t, int rows, int64_t bk = 32) {
  const char* name = nullptr;
  if (IsFp8(a)) {
    const std::string pair = Fp8Pair(a, b);
    if (t.gfx == Gfx::kGfx950 && bk % (rows == 32 ? 64 : 128) == 0)
      return LookupMfma(absl::StrCat(rows == 32 ? "f32_32x32x64_" : "f32_16x16x128_", pair));
    return LookupMfma(absl::StrCat(rows == 32 ? "f32_32x32x16_" : "f32_16x16x32_", pair));
  }
  if (t.gfx == Gfx::kGfx950 && bk % (rows == 32 ? 16 : 32) == 0) {
    if (a == ElemType::kF16) name = rows == 32 ? "f32_32x32x16_f16" : "f32_16x16x32_f16";
    if (a == ElemType::kBF16) name = rows == 32 ? "f32_32x32x16_bf16" : "f32_16x16x32_bf16";
    if (name != nullptr) return LookupMfma(name);
  }
  if (a == ElemType::kF16) {
    name = rows == 32 ? "f32_32x32x8_f16" : "f32_16x16x16_f16";
  } else if (t.gfx == Gfx::kGfx908) {
    name = rows == 32 ? "f32_32x32x4_bf16" : "f32_16x16x8_bf16";
  } else {
    name = rows == 32 ? "f32_32x32x8_bf16" : "f32_16x16x16_bf16";
  }
  return LookupMfma(name);
}

// The default BK (GemmConfig's header): 16-bit inputs 32 (64 bytes per row
// of a K tile), 16 when K <= 16; fp8 inputs 64 (64 bytes), and on gfx950 128
// (the k of 16x16x128 f8f6f4; 64 is that of 32x32x64), smaller K tiles for
// small K: 32 when K <= 32, 64 when K <= 64. Never below 32 for fp8: the
// k of 16x16x32.
int64_t DefaultBk(const GemmConfig& c, const TargetInfo& t) {
  if (!IsFp8(c.a_elem)) return c.k <= 16 ? 16 : 32;
  if (c.k <= 32) return 32;
  if (c.k <= 64 || t.gfx != Gfx::kGfx950) return 64;
  return 128;
}

// The buffer called `name`, or an error for the gemm operand `role`.
absl::StatusOr<const Arg*> Buffer(const Kernel& k, const std::string& name, const char* role) {
  const Arg* a = k.FindArg(name);
  if (a == nullptr)
    return Bad(absl::StrCat("unknown buffer '", name, "' (", role, "); declare it with `arg ", name,
                            " : f16[ROWS, COLS] strides [COLS, 1] readonly`"));
  if (a->kind != Arg::Kind::kBuffer)
    return Bad(absl::StrCat("'", name, "' (", role, ") is a scalar argument; ", role,
                            " must be a 2-D buffer"));
  if (a->shape.size() != 2)
    return Bad(absl::StrCat(name == role ? absl::StrCat("operand ", role)
                                         : absl::StrCat(name, " (operand ", role, ")"),
                            " has ", a->shape.size(), a->shape.size() == 1 ? " dimension" : " dimensions",
                            "; gemm operands are 2-D buffers"));
  return a;
}

// "f16", or "f8e4m3fnuz x f8e5m2fnuz" when A's and B's types differ.
std::string InputsText(const GemmConfig& c) {
  return c.a_elem == c.b_elem ? Elem(c.a_elem) : absl::StrCat(Elem(c.a_elem), " x ", Elem(c.b_elem));
}

// "A and B hold f16", or "A holds f8e4m3fnuz and B f8e5m2fnuz".
std::string InputsHeld(const GemmConfig& c) {
  return c.a_elem == c.b_elem ? absl::StrCat("A and B hold ", Elem(c.a_elem))
                              : absl::StrCat("A holds ", Elem(c.a_elem), " and B ", Elem(c.b_elem));
}

absl::Status Scalar(const Kernel& k, const std::string& name, const char* role) {
  const Arg* a = k.FindArg(name);
  if (a == nullptr)
    return Bad(absl::StrCat("unknown scalar argument '", name, "' (", role,
                            "); declare it with `arg ", name, " : f32`"));
  if (a->kind != Arg::Kind::kScalar || a->elem != ElemType::kF32)
    return Bad(absl::StrCat(Who(name, role), " must be an f32 scalar argument (`arg ", name,
                            " : f32`)"));
  return absl::OkStatus();
}

// True if promotion copies `arg` (the gemm's A or B of `c`) with global
// vectors of whole 32-bit registers (at least 4 / bytes elements: 4 fp8, 2
// f16/bf16): as compiler/promote's ChooseLayout, which runs the vectors along
// the stride-1 dimension (K preferred) and takes width v when the tile and
// shape extents along it and the other stride are multiples of v and the
// workgroup's threads share the tile's vectors evenly. Narrower copies hold
// one element per register: an fp8 operand copied so cannot be carried by
// the double-buffered pipeline (the validator's loop-carried fp8 rule), and
// wide K tiles of it take too many registers.
bool CopiesWholeRegisters(const Arg& arg, bool k_major, bool is_b, const GemmConfig& c) {
  const int64_t v = std::max<int64_t>(1, 4 / ElemBytes(arg.elem));
  const int kdim = k_major ? 0 : 1;
  const int64_t stride_k = arg.strides[kdim], stride_r = arg.strides[1 - kdim];
  const bool along_k = stride_k == 1 || stride_r != 1;
  if (!(along_k ? stride_k == 1 : stride_r == 1)) return false;
  const int64_t block = is_b ? c.bn : c.bm, rows = is_b ? c.n : c.m;
  const int64_t ec = along_k ? c.bk : block, sc = along_k ? c.k : rows;
  const int64_t other = along_k ? stride_r : stride_k;
  return ec % v == 0 && sc % v == 0 && other % v == 0 && (block * c.bk / v) % c.Threads() == 0;
}

// Registers per lane that hold one K tile of `arg` (the gemm's A or B of `c`)
// between its global loads and its LDS stores: the tile's bytes per thread
// in whole registers, or one register per element when the copy is narrower
// (CopiesWholeRegisters).
int64_t CopyRegs(const Arg& arg, bool k_major, bool is_b, const GemmConfig& c) {
  const int64_t elems = ((is_b ? c.bn : c.bm) * c.bk + c.Threads() - 1) / c.Threads();
  if (!CopiesWholeRegisters(arg, k_major, is_b, c)) return elems;
  return (elems * ElemBytes(arg.elem) + 3) / 4;
}

// Arch VGPRs per lane beside the K loop's tile copies and MFMA operands in
// ExpectedArchVgprs: lane ids, LDS and global addresses, the epilogue's
// values (the largest default configurations compile with up to 62 more,
// measured over gemm_default_sweep_test's shapes).
constexpr int64_t kOtherArchVgprs = 64;

// The arch VGPRs per lane the promoted kernel of `c` is expected to need in
// its K loop (compiler/promote/promote.cc's pipeline), an upper estimate
// that the defaults keep within the target's (GemmConfig's header):
// - the MFMA operands of a whole K tile (FragmentRegs: the scheduler reads
//   them ahead of the MFMAs), twice when double-buffered: its MFMAs touch no
//   memory, so they move past the step's barrier and overlap the next K
//   tile's fragment reads;
// - double-buffered, the copy registers of the tile waiting to be stored to
//   LDS and, from 3 K tiles, of the next tile loaded meanwhile (both live
//   across the step's MFMAs); single-buffered, the copy registers die at
//   their LDS stores, before the fragment reads;
// - kOtherArchVgprs.
int64_t ExpectedArchVgprs(const GemmConfig& c, int64_t copy_regs) {
  const int64_t frag = c.FragmentRegs();
  if (!c.double_buffer) return std::max(copy_regs, frag) + kOtherArchVgprs;
  return 2 * frag + (c.KTiles() >= 3 ? 2 : 1) * copy_regs + kOtherArchVgprs;
}

// Why the operands, shape or tiling of `c` cannot be copied with LDS DMA
// (KIR `lds_dma`, gfx950's buffer_load_dwordx4 ... lds; compiler/promote),
// or "" when they can. The DMA writes each wave's 64 lanes x 16 bytes
// contiguously into an unpadded tile and cannot be guarded, so: the target
// has the DMA; A and B are stored K-contiguous (A.mk / B.nk with K stride
// 1) with rows 16-byte aligned (the row stride a multiple of 16 bytes); M,
// N and K are multiples of BM, BN and BK (no edge tiles); a tile row
// (BK elements) is a multiple of 16 bytes and divides a wave's 1024 bytes;
// each tile is whole workgroup rounds (Threads() x 16 bytes).
std::string LdsDmaProblem(const GemmConfig& c, const Arg& a, const Arg& b, const GemmOp& g,
                          const TargetInfo& t) {
  if (!t.has_lds_dma_dwordx4)
    return absl::StrCat("lds_dma on copies the A and B tiles with the LDS DMA (buffer_load_dwordx4 "
                        "... lds), which ", t.name, " does not have (gfx950 only); use lds_dma off "
                        "or --mcpu=gfx950");
  for (int op_b = 0; op_b < 2; ++op_b) {
    const Arg& arg = op_b ? b : a;
    const char* role = op_b ? "B" : "A";
    const bool k_major = op_b ? c.b_kn : c.a_km;
    const int64_t eb = ElemBytes(arg.elem);
    if (k_major)
      return absl::StrCat("lds_dma on needs ", role, " contiguous along K (", role, op_b ? ".nk" : ".mk",
                          "), but ", Who(arg.name, role), " is ", role, op_b ? ".kn" : ".km",
                          ": the DMA cannot transpose; store ", role, " as ", op_b ? "N x K" : "M x K",
                          " or use lds_dma off");
    if (arg.strides[1] != 1 || (arg.strides[0] * eb) % 16 != 0)
      return absl::StrCat("lds_dma on copies 16 contiguous bytes per lane, so ", Who(arg.name, role),
                          " needs K stride 1 and a row stride that is a multiple of 16 bytes (",
                          16 / eb, " elements), but its strides are [", arg.strides[0], ", ",
                          arg.strides[1], "]; use lds_dma off");
    // The DMA's one form takes a 32-bit voffset (compiler/lower LowerLdsDma).
    if (arg.SizeBytes() >= (int64_t{1} << 31))
      return absl::StrCat("lds_dma on copies through 32-bit buffer offsets, but ", Who(arg.name, role),
                          " spans ", arg.SizeBytes(), " bytes (2 GiB or more); use lds_dma off");
    const int64_t rows = op_b ? c.bn : c.bm;
    if ((rows * c.bk * eb) % (c.Threads() * 16) != 0)
      return absl::StrCat("lds_dma on: the ", role, " tile (", rows, " x ", c.bk, " = ",
                          rows * c.bk * eb, " bytes) is not a multiple of the workgroup's ",
                          c.Threads(), " threads x 16 bytes per DMA; use a larger tile",
                          c.wm * c.wn > 1 ? " or fewer waves" : "", ", or lds_dma off");
  }
  const int64_t row_bytes = c.bk * ElemBytes(c.a_elem);
  if (ElemBytes(c.a_elem) != ElemBytes(c.b_elem) || row_bytes % 16 != 0 || 1024 % row_bytes != 0)
    return absl::StrCat("lds_dma on needs K-tile rows of 16 to 1024 bytes that divide a wave's 1024 "
                        "bytes, but BK = ", c.bk, " is ", row_bytes, " bytes; use a power-of-two BK "
                        "of 16 to 1024 bytes");
  std::vector<std::string> edges;
  if (c.m % c.bm != 0) edges.push_back(absl::StrCat("M = ", c.m, " is not a multiple of BM = ", c.bm));
  if (c.n % c.bn != 0) edges.push_back(absl::StrCat("N = ", c.n, " is not a multiple of BN = ", c.bn));
  if (c.k % c.bk != 0) edges.push_back(absl::StrCat("K = ", c.k, " is not a multiple of BK = ", c.bk));
  if (!edges.empty()) {
    // A dividing tile exists only if M and N are multiples of 16 (every
    // gemm MFMA's M and N footprint: BM and BN are multiples of it) and K's
    // rows are a multiple of 16 bytes (the smallest BK row above); else only
    // lds_dma off works (review 5 F3).
    const bool can_divide = c.m % 16 == 0 && c.n % 16 == 0 && (c.k * ElemBytes(c.a_elem)) % 16 == 0;
    return absl::StrCat("lds_dma on cannot guard its copies (a lane turned off would leave its 16 LDS "
                        "bytes unwritten), but ", absl::StrJoin(edges, " and "),
                        ", so edge tiles need guarded loads; ",
                        can_divide ? "pick a tile that divides the shape or use lds_dma off"
                                   : "no tile divides the shape (BM and BN are multiples of 16, BK rows of 16 "
                                     "bytes), so use lds_dma off");
  }
  (void)g;
  return "";
}

// What a workgroup reaches of one gemm operand in one access of the
// promoted kernel, over-estimated (GemmConfig's header, "buffer windows").
struct WindowReach {
  const char* role = "";
  const Arg* arg = nullptr;
  // The tile extent behind each of the operand's dimensions (0: BM, 1: BN,
  // 2: BK) and the bytes its extent spans in that dimension.
  int tile_dim[2] = {0, 0};
  int64_t dim_bytes[2] = {0, 0};
  int64_t bytes = 0;  // the whole reach: both dimensions and an element
  std::string what;   // e.g. "64 rows 40000000 elements apart and 64 columns"
};

// The reaches of A, B and C under `c` (tile, waves and MFMA set) for those of
// kWideBufferBytes or more (smaller buffers have one window: no limit):
// - A and B: the workgroup's whole BM x BK (BN x BK) tile, an upper bound
//   of each copy's rows (promotion spreads the copies over the tile);
// - C: one epilogue access (a 4-row group of one MFMA tile per wave): the
//   waves' positions and one MFMA tile's rows and columns,
//   (WM - 1) * BM / WM + m rows by (WN - 1) * BN / WN + n columns.
// Per dimension (extent - 1) x |stride| elements, plus one element.
std::vector<WindowReach> WindowReaches(const GemmConfig& c, const Arg& a, const Arg& b, const Arg& cb) {
  std::vector<WindowReach> out;
  const auto add = [&](const char* role, const Arg& arg, int d0, int64_t e0, int d1, int64_t e1) {
    if (arg.SizeBytes() < kWideBufferBytes || arg.strides.size() != 2) return;
    WindowReach r;
    r.role = role;
    r.arg = &arg;
    r.tile_dim[0] = d0;
    r.tile_dim[1] = d1;
    const int64_t eb = ElemBytes(arg.elem);
    const int64_t ext[2] = {e0, e1};
    r.bytes = eb;
    for (int d = 0; d < 2; ++d) {
      const int64_t s = arg.strides[d] < 0 ? -arg.strides[d] : arg.strides[d];
      // Strides are below 2^47 and extents at most 256: no overflow.
      r.dim_bytes[d] = (ext[d] - 1) * s * eb;
      r.bytes += r.dim_bytes[d];
    }
    r.what = absl::StrCat(e0, " x ", e1, " elements, strides [", arg.strides[0], ", ", arg.strides[1], "]");
    out.push_back(r);
  };
  if (c.a_km) add("A", a, 2, c.bk, 0, c.bm); else add("A", a, 0, c.bm, 2, c.bk);
  if (c.b_kn) add("B", b, 2, c.bk, 1, c.bn); else add("B", b, 1, c.bn, 2, c.bk);
  const int64_t rows = std::min(c.bm, c.bm - c.bm / c.wm + c.mfma->m);
  const int64_t cols = std::min(c.bn, c.bn - c.bn / c.wn + c.mfma->n);
  add("C", cb, 0, rows, 1, cols);
  return out;
}

}  // namespace

// The default of the lds_dma clause (gemm_config.h). Measured with the loop
// analyser on gfx950 (issue 19; docs/kir.md "LDS DMA copies"), other
// instructions per K-loop trip, DMA against register copy, since the DMAs
// of a K tile share M0 (compiler/lower LowerLdsDma): 4096^3 f16/bf16
// (256x256x32, 1024 MFMA cycles per K tile and wave) 74 against 79, in-order
// model 2180 against 2168 cycles per trip; 4096^3 fp8 (256x256x64, 32x32x64
// f8f6f4, 1024 cycles) 70 against 80, 2184 against 2192, with no bank
// conflicts on either path since its 32-byte fragments are read as two
// rotated 16-byte pieces (compiler/promote GemmOperandPlan::dma); the
// 1024^3 f16 default (128x128x32, 256 MFMA cycles per K tile and wave) 48
// against 52, but 1204 against 736 cycles, and the 1024^3 fp8 default
// (128x128x128, 512 cycles) 72 against 84, but 1288 against 1120: a K
// tile's DMA overlaps only that tile's MFMAs, too few there to cover a
// global load's latency (the register copy issues its loads a step
// earlier).
bool DefaultLdsDma(const TargetInfo& t, const GemmConfig& c, absl::string_view problem) {
  if (!t.has_lds_dma_dwordx4 || !problem.empty() || c.mfma == nullptr) return false;
  return c.MfmaTilesM() * c.MfmaTilesN() * c.KSteps() * 4 * MfmaPasses(t, *c.mfma) >= kLdsDmaMinKTileMfmaCycles;
}

int64_t GemmConfig::LdsBytes(int64_t pad_a, int64_t pad_b) const {
  int64_t a = Stages() * bm * (bk + pad_a) * ElemBytes(a_elem);
  int64_t b = Stages() * bn * (bk + pad_b) * ElemBytes(b_elem);
  return RoundUp(a, 16) + b;
}

std::string GemmConfig::TilingText() const {
  return absl::StrCat("tile ", bm, "x", bn, "x", bk, " waves ", wm, "x", wn, " mfma ",
                      mfma != nullptr ? mfma->kir_name : "?", " double_buffer ",
                      double_buffer ? "on" : "off", lds_dma ? " lds_dma on" : "");
}

const Op* FindGemm(const Kernel& k) {
  for (const Op& op : k.body)
    if (op.kind == OpKind::kGemm) return &op;
  return nullptr;
}

Op* FindGemm(Kernel& k) { return const_cast<Op*>(FindGemm(static_cast<const Kernel&>(k))); }

bool HasGemm(const Kernel& k) { return FindGemm(k) != nullptr; }

absl::StatusOr<GemmConfig> ResolveGemm(const Kernel& k, const Op& op, const TargetInfo& t) {
  const GemmOp& g = op.gemm;
  GemmConfig c;
  c.a_km = g.a_km;
  c.b_kn = g.b_kn;
  c.has_beta = g.adds_c();

  // ---- Operands.
  absl::StatusOr<const Arg*> a = Buffer(k, g.a, "A");
  if (!a.ok()) return a.status();
  absl::StatusOr<const Arg*> b = Buffer(k, g.b, "B");
  if (!b.ok()) return b.status();
  absl::StatusOr<const Arg*> cb = Buffer(k, g.c, "C");
  if (!cb.ok()) return cb.status();
  absl::Status s;
  for (size_t i = 0; i < g.factors.size(); ++i) {
    const std::string role =
        g.factors.size() == 1 ? std::string("alpha")
                              : absl::StrCat("scale factor ", i + 1, " of ", g.factors.size());
    s = Scalar(k, g.factors[i], role.c_str());
    if (!s.ok()) return s;
  }
  if (g.has_beta() && !g.adds_c())
    return Bad("the beta term must read `+ beta * C` with both names");
  const std::string c_term = g.has_beta() ? absl::StrCat(g.beta, " * ") : "";
  if (g.has_beta()) {
    s = Scalar(k, g.beta, "beta");
    if (!s.ok()) return s;
  }
  if (g.adds_c() && g.c_in != g.c)
    return Bad(absl::StrCat("the ", g.has_beta() ? "beta" : "`+ C`", " term reads ", g.c_in,
                            " but the result goes to ", g.c,
                            "; gemm computes C = alpha * A * B + beta * C in place, so write `+ ",
                            c_term, g.c, "`"));
  if (g.a == g.c || g.b == g.c)
    return Bad(absl::StrCat(g.c, " is both an input and the output; A and B must be other buffers"));

  // ---- Types and access.
  c.a_elem = (*a)->elem;
  c.b_elem = (*b)->elem;
  const bool fp8_a = IsFp8(c.a_elem), fp8_b = IsFp8(c.b_elem);
  if (fp8_a != fp8_b)
    return Bad(absl::StrCat(Who(g.a, "A"), " holds ", Elem(c.a_elem), " but ", Who(g.b, "B"),
                            " holds ", Elem(c.b_elem),
                            "; an fp8 operand needs an fp8 partner (the MFMAs take fp8 x fp8 or "
                            "16-bit x 16-bit): convert the other with cvt in a kernel of its own"));
  if (fp8_a) {
    for (const auto& [arg, role] : {std::pair{*a, "A"}, std::pair{*b, "B"}}) {
      if (t.fp8 == Fp8Flavor::kNone)
        return Bad(absl::StrCat(Who(arg->name, role), " holds ", Elem(arg->elem), ", but ", t.name,
                                " has no fp8 MFMA; fp8 gemm needs gfx942 or gfx950 (",
                                Fp8FlavoursText(), ")"));
      if (!TargetHasElemType(t, arg->elem))
        return Bad(absl::StrCat(Who(arg->name, role), " holds ", Elem(arg->elem),
                                ", an fp8 type of the other flavour; ", t.name, "'s fp8 MFMAs read ",
                                Fp8ElemTypesText(t), " (", Fp8FlavoursText(), ")"));
    }
  } else {
    if (c.a_elem != ElemType::kF16 && c.a_elem != ElemType::kBF16)
      return Bad(absl::StrCat(Who(g.a, "A"), " holds ", Elem(c.a_elem),
                              "; gemm inputs are f16, bf16 or fp8 (", Fp8FlavoursText(), ")"));
    if (c.b_elem != c.a_elem)
      return Bad(absl::StrCat(Who(g.a, "A"), " holds ", Elem(c.a_elem), " but ", Who(g.b, "B"),
                              " holds ", Elem(c.b_elem),
                              "; 16-bit A and B must have the same element type"));
  }
  c.out_elem = (*cb)->elem;
  if (c.out_elem == ElemType::kI32 || IsFp8(c.out_elem))
    return Bad(absl::StrCat(Who(g.c, "C"), " holds ", Elem(c.out_elem), "; the output is f32, f16 or bf16",
                            IsFp8(c.out_elem) ? " (quantize to fp8 with cvt in a kernel of its own)" : ""));
  for (const Arg* in : {*a, *b})
    if (in->access == Access::kWriteOnly)
      return Bad(absl::StrCat(in->name, " is writeonly but gemm reads it; declare it readonly"));
  if ((*cb)->access == Access::kReadOnly)
    return Bad(absl::StrCat(g.c, " is readonly but gemm writes it; declare it ",
                            g.adds_c() ? "readwrite" : "writeonly (or readwrite)"));
  if (g.adds_c() && (*cb)->access == Access::kWriteOnly)
    return Bad(absl::StrCat(g.c, " is writeonly but `+ ", c_term, g.c,
                            "` reads it; declare it readwrite"));

  // ---- Shapes: A.mk [M, K] / A.km [K, M], B.nk [N, K] / B.kn [K, N], C [M, N].
  const std::vector<int64_t>& as = (*a)->shape;
  const std::vector<int64_t>& bs = (*b)->shape;
  const std::vector<int64_t>& cs = (*cb)->shape;
  int64_t am = g.a_km ? as[1] : as[0], ak = g.a_km ? as[0] : as[1];
  int64_t bn = g.b_kn ? bs[1] : bs[0], bk = g.b_kn ? bs[0] : bs[1];
  std::string adesc = absl::StrCat("A.", g.a_km ? "km" : "mk", " is ", as[0], " x ", as[1],
                                   g.a_km ? " (K x M)" : " (M x K)");
  std::string bdesc = absl::StrCat("B.", g.b_kn ? "kn" : "nk", " is ", bs[0], " x ", bs[1],
                                   g.b_kn ? " (K x N)" : " (N x K)");
  if (ak != bk)
    return Bad(absl::StrCat(adesc, " but ", bdesc, ": K differs (", ak, " vs ", bk,
                            "); fix the shapes or the layout tags (.mk/.km, .nk/.kn)"));
  if (cs[0] != am || cs[1] != bn)
    return Bad(absl::StrCat(g.c, " is ", cs[0], " x ", cs[1], " but must be M x N = ", am, " x ",
                            bn, " (", adesc, ", ", bdesc, "); fix the shapes or the layout tags"));
  c.m = am;
  c.n = bn;
  c.k = ak;

  // ---- MFMA given?
  const MfmaDesc* given = nullptr;
  if (!g.mfma.empty()) {
    given = LookupMfma(g.mfma);
    if (given == nullptr) {
      std::vector<std::string> names;
      for (const MfmaDesc& d : AllMfmas())
        if (TakesElems(d, c.a_elem, c.b_elem) && d.mnemonic[static_cast<int>(t.gfx)] != nullptr)
          names.push_back(d.kir_name);
      return Bad(absl::StrCat("unknown MFMA '", g.mfma, "'; for ", InputsText(c), " inputs on ",
                              t.name, " use ", absl::StrJoin(names, " or ")));
    }
    if (!TakesElems(*given, c.a_elem, c.b_elem)) {
      // The same shape for these inputs, else the default of its rows.
      const MfmaDesc* alt = nullptr;
      for (const MfmaDesc& d : AllMfmas())
        if (alt == nullptr && d.m == given->m && d.k * MfmaInBytes(d.a_in) == given->k * MfmaInBytes(given->a_in) &&
            TakesElems(d, c.a_elem, c.b_elem) && d.mnemonic[static_cast<int>(t.gfx)] != nullptr)
          alt = &d;
      if (alt == nullptr) alt = DefaultMfma(c.a_elem, c.b_elem, t, given->m);
      return Bad(absl::StrCat("MFMA ", given->kir_name, " takes ",
                              given->a_in == given->b_in
                                  ? std::string(MfmaInName(given->a_in))
                                  : absl::StrCat(MfmaInName(given->a_in), " x ", MfmaInName(given->b_in)),
                              " inputs but ", InputsHeld(c), "; use ", alt->kir_name));
    }
    absl::StatusOr<std::string> mn = MfmaMnemonic(t, *given);
    if (!mn.ok()) return Bad(std::string(mn.status().message()));
  }
  const int64_t rows_hint = given != nullptr ? given->m : 16;

  // ---- Waves given?
  if (g.has_waves()) {
    c.wm = g.waves[0];
    c.wn = g.waves[1];
    if (c.wm < 1 || c.wn < 1)
      return Bad(absl::StrCat("waves ", c.wm, "x", c.wn, ": both counts must be at least 1"));
    if (c.wm * c.wn > 16)
      return Bad(absl::StrCat("waves ", c.wm, "x", c.wn, " is ", 64 * c.wm * c.wn,
                              " threads; a workgroup has at most 1024 (16 waves)"));
  }

  // ---- Tile.
  if (g.has_tile()) {
    c.bm = g.tile[0];
    c.bn = g.tile[1];
    c.bk = g.tile[2];
    if (c.bm < 1 || c.bn < 1 || c.bk < 1)
      return Bad(absl::StrCat("tile ", c.bm, "x", c.bn, "x", c.bk, ": extents must be positive"));
  } else {
    c.default_tile = true;
    c.bm = DefaultBlock(c.m);
    c.bn = DefaultBlock(c.n);
    if (!g.has_waves() && c.m >= kLargeGemmExtent && c.n >= kLargeGemmExtent && !c.a_km && !c.b_kn) {
      // Large problems: 256x256 blocks of 2 x 2 waves of 128 x 128 (the
      // accumulators fill the 256 AGPRs), 64 FLOP per LDS byte read. Only
      // with both operands contiguous along K: a K-strided operand's
      // conflict-free layout is padded, and two padded 256 x 32 stages of
      // both operands exceed 64 KiB of LDS.
      c.bm = c.bn = 256;
    } else if (g.has_waves()) {
      // At most 64 rows and columns of C per wave (register pressure), at
      // least one MFMA tile.
      c.bm = RoundUp(std::max(std::min(c.bm, 64 * c.wm), c.wm * rows_hint), c.wm * rows_hint);
      c.bn = RoundUp(std::max(std::min(c.bn, 64 * c.wn), c.wn * rows_hint), c.wn * rows_hint);
    } else if (given != nullptr) {
      c.bm = std::max<int64_t>(c.bm, given->m);
      c.bn = std::max<int64_t>(c.bn, given->n);
    }
    c.bk = DefaultBk(c, t);
    if (given != nullptr) c.bk = RoundUp(c.bk, given->k);
  }
  if (!g.has_waves()) {
    c.default_waves = true;
    c.wm = c.bm >= 64 && (c.bm / 2) % rows_hint == 0 ? 2 : 1;
    c.wn = c.bn >= 64 && (c.bn / 2) % rows_hint == 0 ? 2 : 1;
  }

  // fp8 operands copied a byte per register (an odd stride-1 extent): the
  // default K tile shrinks to 32 (as many loads per thread as f16's BK 32).
  const auto narrow_fp8 = [&] {
    return IsFp8(c.a_elem) && (!CopiesWholeRegisters(**a, c.a_km, false, c) ||
                               !CopiesWholeRegisters(**b, c.b_kn, true, c));
  };
  // The double-buffered pipeline carries the next tile's registers around
  // its loop, which exists from 4 K tiles (compiler/promote/promote.cc).
  const auto carries_narrow = [&] { return narrow_fp8() && c.KTiles() >= 4; };
  if (c.default_tile && narrow_fp8() && c.bk > 32)
    c.bk = given != nullptr ? RoundUp(32, given->k) : 32;

  // ---- MFMA default.
  if (given != nullptr) {
    c.mfma = given;
  }
  const auto default_mfma = [&] {
    const MfmaDesc* m32 = DefaultMfma(c.a_elem, c.b_elem, t, 32, c.bk);
    const MfmaDesc* m16 = DefaultMfma(c.a_elem, c.b_elem, t, 16, c.bk);
    bool fits32 = c.bm % c.wm == 0 && c.bn % c.wn == 0 && (c.bm / c.wm) % 32 == 0 &&
                  (c.bn / c.wn) % 32 == 0 && c.bk % m32->k == 0;
    return fits32 ? m32 : m16;
  };
  if (given == nullptr) {
    c.default_mfma = true;
    c.mfma = default_mfma();
  }

  // ---- Buffer windows. A buffer of kWideBufferBytes (2^31) or more is
  // addressed through windows of at most 2^31 bytes per workgroup and
  // access (compiler/lower), so a default tile shrinks (BM, BN or BK halved,
  // the dimension whose rows lie farthest apart first; default waves and
  // MFMA chosen again) until each workgroup's reach fits (WindowReach):
  // fresh-user review 11 F3, A's 64 rows 40e6 bytes apart.
  if (c.default_tile) {
    const int64_t min_bk = given != nullptr ? given->k : IsFp8(c.a_elem) ? 32 : 16;
    for (;;) {
      std::vector<WindowReach> over;
      for (const WindowReach& r : WindowReaches(c, **a, **b, **cb))
        if (r.bytes > kWideBufferBytes) over.push_back(r);
      if (over.empty()) break;
      // The tile extent (0: BM, 1: BN, 2: BK) to halve: the one whose
      // dimension's rows lie farthest apart in an operand that does not fit.
      int best = -1;
      int64_t best_bytes = -1;
      for (const WindowReach& r : over)
        for (int d = 0; d < 2; ++d) {
          const int which = r.tile_dim[d];
          const int64_t ext = which == 0 ? c.bm : which == 1 ? c.bn : c.bk;
          const int64_t half = ext / 2;
          bool ok = ext % 2 == 0;
          if (which == 2) {
            ok = ok && half >= min_bk && half % (given != nullptr ? given->k : 1) == 0;
          } else {
            const int64_t w = which == 0 ? c.wm : c.wn;
            const int64_t unit = (g.has_waves() ? w : 1) * (which == 0 ? rows_hint : (given ? given->n : 16));
            ok = ok && half >= unit && half % unit == 0;
          }
          if (ok && g.has_waves()) {
            const int64_t bm = which == 0 ? half : c.bm, bn = which == 1 ? half : c.bn,
                          bk = which == 2 ? half : c.bk;
            ok = (bm * bk) % c.Threads() == 0 && (bn * bk) % c.Threads() == 0;
          }
          if (ok && r.dim_bytes[d] > best_bytes) best = which, best_bytes = r.dim_bytes[d];
        }
      if (best < 0) {
        const WindowReach& r = over.front();
        return Bad(absl::StrCat(
            "no tile keeps a workgroup's part of ", Who(r.arg->name, r.role), " within the 2^31 bytes of a "
            "buffer window: with tile ", c.bm, "x", c.bn, "x", c.bk, " waves ", c.wm, "x", c.wn, " (the smallest tile the defaults reach) a workgroup "
            "reaches ", r.bytes, " bytes of it (", r.what, "; ", Who(r.arg->name, r.role), " spans ",
            r.arg->SizeBytes(), " bytes, so kirc addresses it through windows of at most 2^31 bytes per "
            "workgroup: docs/kir.md \"Buffers of 2 GiB and more\"); ", r.role, "'s strides [", r.arg->strides[0],
            ", ", r.arg->strides[1], "] must bring ", r.role, "'s elements closer: copy ", r.role,
            " into a buffer whose rows lie closer together"));
      }
      if (best == 0) c.bm /= 2;
      if (best == 1) c.bn /= 2;
      if (best == 2) c.bk /= 2;
      if (c.default_waves) {
        c.wm = c.bm >= 64 && (c.bm / 2) % rows_hint == 0 ? 2 : 1;
        c.wn = c.bn >= 64 && (c.bn / 2) % rows_hint == 0 ? 2 : 1;
      }
      if (narrow_fp8() && c.bk > 32) c.bk = given != nullptr ? RoundUp(32, given->k) : 32;
      if (c.default_mfma) c.mfma = default_mfma();
    }
  }

  // ---- Tiling checks.
  std::string tile = absl::StrCat("tile ", c.bm, "x", c.bn, "x", c.bk);
  std::string waves = absl::StrCat("waves ", c.wm, "x", c.wn);
  const MfmaDesc& mf = *c.mfma;
  if (c.bm % (c.wm * mf.m) != 0 || c.bn % (c.wn * mf.n) != 0)
    return Bad(absl::StrCat(tile, " with ", waves, " gives each wave a ",
                            c.bm % c.wm == 0 ? absl::StrCat(c.bm / c.wm) : absl::StrCat(c.bm, "/", c.wm),
                            " x ",
                            c.bn % c.wn == 0 ? absl::StrCat(c.bn / c.wn) : absl::StrCat(c.bn, "/", c.wn),
                            " block of C, not a multiple of the ", mf.m, "x", mf.n, " tiles of ",
                            mf.kir_name, "; make BM a multiple of ", c.wm * mf.m,
                            " and BN a multiple of ", c.wn * mf.n));
  if (c.bk % mf.k != 0)
    return Bad(absl::StrCat(tile, ": BK = ", c.bk, " is not a multiple of ", mf.kir_name,
                            "'s k = ", mf.k, "; use BK = ",
                            c.bk > mf.k ? absl::StrCat(c.bk / mf.k * mf.k, " or ", RoundUp(c.bk, mf.k),
                                                       " (the nearest multiples of ", mf.k, ")")
                                        : absl::StrCat(mf.k)));
  if (c.Threads() > 1024)
    return Bad(absl::StrCat(waves, " is ", c.Threads(), " threads; a workgroup has at most 1024"));
  for (int op_b = 0; op_b < 2; ++op_b) {
    int64_t rows = op_b ? c.bn : c.bm;
    if ((rows * c.bk) % c.Threads() != 0)
      return Bad(absl::StrCat("the ", op_b ? "B" : "A", " tile (", op_b ? "BN" : "BM", " x BK = ",
                              rows, " x ", c.bk, " = ", rows * c.bk,
                              " elements) is not a multiple of the workgroup's ", c.Threads(),
                              " threads, so they cannot share its copy evenly; use a larger tile "
                              "or fewer waves"));
  }
  // Index ranges stay far inside 32 bits: K rounded up to BK, grid extents.
  if (c.KTiles() * c.bk >= (int64_t{1} << 31) - c.bk)
    return Bad(absl::StrCat("K = ", c.k, " is too large for 32-bit indices"));

  // ---- LDS DMA. A given lds_dma's problems depend on BK, which the
  // register check below may halve: checked after it. The default depends
  // on BK too (the MFMA cycles of a K tile, the problems): decided again
  // each time BK is halved, so it is that of the final BK.
  const auto default_lds_dma = [&] { c.lds_dma = DefaultLdsDma(t, c, LdsDmaProblem(c, **a, **b, g, t)); };
  if (g.lds_dma.has_value()) {
    c.lds_dma = *g.lds_dma;
  } else {
    c.default_lds_dma = true;
    default_lds_dma();
  }

  // ---- Double buffering.
  if (g.double_buffer.has_value()) {
    c.double_buffer = *g.double_buffer;
  } else {
    c.default_double_buffer = true;
  }
  const auto default_double_buffer = [&] {
    c.double_buffer = true;
    c.double_buffer = c.KTiles() >= 2 && c.LdsBytes(0, 0) <= t.lds_bytes && !carries_narrow();
  };
  if (c.default_double_buffer) default_double_buffer();
  // Defaults the K loop's registers would not fit (ExpectedArchVgprs above
  // the arch VGPRs a wave may use, arch_budget below, e.g. gfx950's fp8 256x256x128 tiles from 3 K
  // tiles: 2 x 128 operand and 2 x 64 copy registers): halve a default BK
  // while it stays a multiple of the MFMA's k (a default MFMA is chosen
  // again for it) and the threads share the tiles evenly, then turn a
  // default double buffering off. A default lds_dma is decided again for
  // each BK (copy_regs below depends on it).
  const auto copy_regs = [&]() -> int64_t {
    if (c.lds_dma) return 0;  // the DMA copies without registers
    return CopyRegs(**a, c.a_km, false, c) + CopyRegs(**b, c.b_kn, true, c);
  };
  // The arch VGPRs a wave may use beside its accumulators: the target's, and
  // no more than a workgroup of c.Threads() lets each wave allocate
  // (MaxVgprsPerWave: e.g. 128 in all for 16 waves), less the accumulators
  // where they share that file (unified: arch + AGPRs; gfx908: max of the two).
  const auto arch_budget = [&]() -> int64_t {
    const int64_t cap = MaxVgprsPerWave(t, c.Threads());
    return std::min<int64_t>(t.max_arch_vgprs, t.unified_vgpr_file ? cap - c.AccumulatorRegs() : cap);
  };
  // (Not for accumulators beyond the AGPRs: refused below as they are.)
  while (c.AccumulatorRegs() <= t.max_agprs && ExpectedArchVgprs(c, copy_regs()) > arch_budget()) {
    const int64_t half = c.bk / 2;
    const int64_t min_bk = given != nullptr ? given->k : IsFp8(c.a_elem) ? 32 : 16;
    if (c.default_tile && c.bk % 2 == 0 && half >= min_bk && half % (given != nullptr ? given->k : 1) == 0 &&
        (c.bm * half) % c.Threads() == 0 && (c.bn * half) % c.Threads() == 0) {
      c.bk = half;
      if (c.default_mfma) c.mfma = default_mfma();
      if (c.default_lds_dma) default_lds_dma();
      if (c.default_double_buffer) default_double_buffer();
      continue;
    }
    if (c.default_double_buffer && c.double_buffer) {
      c.double_buffer = false;
      continue;
    }
    break;
  }
  tile = absl::StrCat("tile ", c.bm, "x", c.bn, "x", c.bk);
  if (c.lds_dma) {
    const std::string problem = LdsDmaProblem(c, **a, **b, g, t);
    if (!problem.empty()) {
      if (!c.default_lds_dma) return Bad(problem);
      c.lds_dma = false;
    }
  }
  if (c.double_buffer && carries_narrow() && !c.lds_dma) {
    return Bad(absl::StrCat(
        "double_buffer on carries each thread's next fp8 tile in registers, which needs A and B "
        "copied as vectors of 4 or more elements (whole 32-bit registers), but ",
        !CopiesWholeRegisters(**a, c.a_km, false, c) ? Who(g.a, "A") : Who(g.b, "B"),
        " is copied element by element (",
        c.TilingText(), "; the stride-1 extent, the other stride and the tile along the stride-1 "
        "dimension must be multiples of 4); use double_buffer off"));
  }
  int64_t lds = c.LdsBytes(0, 0);
  if (lds > t.lds_bytes)
    return Bad(absl::StrCat(tile, c.double_buffer ? " with double buffering" : "", " needs ", lds,
                            " bytes of LDS for the A and B tiles (", c.Stages(), " stage",
                            c.Stages() > 1 ? "s" : "", ", before padding), more than the ",
                            t.lds_bytes, " bytes a workgroup has on ", t.name, "; use a smaller ",
                            c.double_buffer ? "tile or double_buffer off" : "tile"));
  // ---- Registers: a lower bound of the promoted kernel's need, so it refuses
  // only what register allocation would refuse too (kirc does not spill).
  // Every accumulator is loop-carried, so all are live at each MFMA of the K
  // loop. They fit in AGPRs on every target: gfx908's MFMA encoding requires
  // them there, and gfx90a/942's unified file gives a wave 256 arch VGPRs plus
  // 256 AGPRs (the pipeline moves the accumulators to AGPRs when VGPRs run out).
  const int64_t acc = c.AccumulatorRegs();
  if (acc > t.max_agprs)
    // Named without double_buffer: it does not change the accumulators, and a
    // default one is not settled for a tile that fails here.
    return Bad(absl::StrCat(
        "tile ", c.bm, "x", c.bn, "x", c.bk, " waves ", c.wm, "x", c.wn, " mfma ", c.mfma->kir_name,
        " gives each wave a ", c.WaveTileM(), " x ", c.WaveTileN(),
        " block of C, whose f32 accumulators take ", acc, " AGPRs per lane, more than the ",
        t.max_agprs, " AGPRs ", t.name,
        " has (kirc does not spill registers); use more waves or a smaller tile (", t.max_agprs,
        " AGPRs per lane hold ", t.max_agprs * 64, " f32 per wave, e.g. a ", MaxSquareWaveTile(t.max_agprs * 64),
        " x ", MaxSquareWaveTile(t.max_agprs * 64), " block)"));
  c.expected_arch_vgprs = ExpectedArchVgprs(c, copy_regs());
  return c;
}

}  // namespace kir
