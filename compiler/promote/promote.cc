#include "compiler/promote/promote.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/index_expr.h"
#include "compiler/analysis/index_analysis.h"
#include "compiler/analysis/validate.h"

namespace kir {
namespace {

// ---------------------------------------------------------------- index helpers
// They fold constants and identities so that the generated KIR reads like
// hand-written KIR ("wg.x * 128 + tid.x floordiv 4", not "wg.x * 128 + 0 + ...").

bool ConstOf(const IndexRef& e, int64_t* v) {
  if (e->kind != IndexKind::kConst) return false;
  *v = e->value;
  return true;
}

IndexRef Add(IndexRef a, IndexRef b) {
  int64_t x = 0, y = 0;
  bool ca = ConstOf(a, &x), cb = ConstOf(b, &y);
  if (ca && cb) return IConst(x + y);
  if (ca && x == 0) return b;
  if (cb && y == 0) return a;
  if (cb && y < 0) return ISub(std::move(a), IConst(-y));
  // Keep sums left-nested (a + b + c), which print without parentheses.
  if (b->kind == IndexKind::kAdd) return Add(Add(std::move(a), b->lhs), b->rhs);
  if (b->kind == IndexKind::kSub) return ISub(Add(std::move(a), b->lhs), b->rhs);
  return IAdd(std::move(a), std::move(b));
}

IndexRef Add(IndexRef a, int64_t c) { return Add(std::move(a), IConst(c)); }

IndexRef Mul(IndexRef a, int64_t c) {
  int64_t x = 0;
  if (c == 0) return IConst(0);
  if (ConstOf(a, &x)) return IConst(x * c);
  if (c == 1) return a;
  return IMul(std::move(a), IConst(c));
}

// The terms of a sum (a + b - c: {a, +1}, {b, +1}, {c, -1}).
void Terms(const IndexRef& e, int sign, std::vector<std::pair<IndexRef, int>>* out) {
  if (e->kind == IndexKind::kAdd) {
    Terms(e->lhs, sign, out);
    Terms(e->rhs, sign, out);
  } else if (e->kind == IndexKind::kSub) {
    Terms(e->lhs, sign, out);
    Terms(e->rhs, -sign, out);
  } else {
    out->push_back({e, sign});
  }
}

// A term's value is a multiple of d (a constant or a product with a constant).
bool MultipleOf(const IndexRef& t, int64_t d) {
  int64_t x = 0;
  if (ConstOf(t, &x)) return x % d == 0;
  if (t->kind == IndexKind::kMul && ConstOf(t->rhs, &x)) return x % d == 0;
  return false;
}

IndexRef Sum(const std::vector<std::pair<IndexRef, int>>& terms) {
  IndexRef r = IConst(0);
  for (const auto& [t, sign] : terms) r = sign > 0 ? Add(r, t) : Add(r, Mul(t, -1));
  return r;
}

// t / d for a term MultipleOf(t, d).
IndexRef ExactDiv(const IndexRef& t, int64_t d) {
  int64_t x = 0;
  if (ConstOf(t, &x)) return IConst(x / d);
  ConstOf(t->rhs, &x);
  return Mul(t->lhs, x / d);
}

// floor(a / d); terms that are multiples of d are divided out of the floordiv
// ((x * 64 + y) floordiv 4 = x * 16 + y floordiv 4).
IndexRef Div(IndexRef a, int64_t d) {
  int64_t x = 0;
  if (d == 1) return a;
  if (ConstOf(a, &x)) return IConst(FloorDiv(x, d));
  // (y floordiv c) floordiv d = y floordiv (c * d) for positive c, d.
  if (a->kind == IndexKind::kFloorDiv && ConstOf(a->rhs, &x) && x > 0)
    return Div(a->lhs, x * d);
  std::vector<std::pair<IndexRef, int>> terms, exact, rest;
  Terms(a, 1, &terms);
  for (const auto& t : terms) (MultipleOf(t.first, d) ? exact : rest).push_back(t);
  if (exact.empty()) return IFloorDiv(std::move(a), IConst(d));
  IndexRef q = IConst(0);
  for (const auto& [t, sign] : exact) q = Add(q, Mul(ExactDiv(t, d), sign));
  if (rest.empty()) return q;
  if (rest.size() == 1 && rest[0].second > 0) return Add(q, Div(rest[0].first, d));
  return Add(q, IFloorDiv(Sum(rest), IConst(d)));
}

// a mod d; terms that are multiples of d are dropped ((x * 64 + y) mod 8 = y mod 8).
IndexRef Mod(IndexRef a, int64_t d) {
  int64_t x = 0;
  if (d == 1) return IConst(0);
  if (ConstOf(a, &x)) return IConst(FloorMod(x, d));
  std::vector<std::pair<IndexRef, int>> terms, rest;
  Terms(a, 1, &terms);
  for (const auto& t : terms)
    if (!MultipleOf(t.first, d)) rest.push_back(t);
  if (rest.size() == terms.size()) return IMod(std::move(a), IConst(d));
  IndexRef r = Sum(rest);
  if (ConstOf(r, &x)) return IConst(FloorMod(x, d));
  return IMod(r, IConst(d));
}

std::string Elem(ElemType e) { return std::string(ElemTypeName(e)); }

// `o` (= tid.x floordiv d, in [0, n), n a power of two) with bits x < y
// exchanged, as a sum of non-negative bit fields read straight from tid.x
// (so that interval analysis bounds it exactly):
//   o mod 2^x + bit_y * 2^x + (o floordiv 2^(x+1)) mod 2^(y-x-1) * 2^(x+1)
//   + bit_x * 2^y + o floordiv 2^(y+1) * 2^(y+1).
IndexRef SwapBits(const IndexRef& o, int x, int y, int64_t n) {
  const int64_t px = int64_t{1} << x, py = int64_t{1} << y;
  // o floordiv 2^j, and bit j, spelled on tid.x: (tid.x floordiv d) floordiv
  // 2^j = tid.x floordiv (d * 2^j); a field reaching n needs no mod.
  const int64_t d = o->kind == IndexKind::kFloorDiv ? o->rhs->value : 1;
  const IndexRef& lane = o->kind == IndexKind::kFloorDiv ? o->lhs : o;
  auto field = [&](int64_t from, int64_t width) {  // (o floordiv from) mod width
    IndexRef f = Div(lane, d * from);
    return from * width >= n ? f : Mod(f, width);
  };
  IndexRef r = field(1, px);
  r = Add(r, Mul(field(py, 2), px));
  r = Add(r, Mul(field(2 * px, py / (2 * px)), 2 * px));
  r = Add(r, Mul(field(px, 2), py));
  if (2 * py < n) r = Add(r, Mul(field(2 * py, n / (2 * py)), 2 * py));
  return r;
}

// A fresh identifier for an LDS allocation: `base`, or `base` with a numeric
// suffix when a const or argument already has that name.
std::string FreshDeclName(const Kernel& k, const std::string& base) {
  std::string n = base;
  for (int i = 2; k.FindArg(n) != nullptr || k.FindConst(n) != nullptr || k.FindLds(n) != nullptr;
       ++i)
    n = absl::StrCat(base, i);
  return n;
}

// One operand's view: `rows` x K, stored rows-major (mk / nk) or K-major (km / kn).
struct Side {
  bool is_b = false;
  const Arg* arg = nullptr;
  bool k_major = false;  // stored K x rows
  int64_t rows = 0;      // M or N
  int64_t block = 0;     // BM or BN
  int64_t waves = 1;     // WM or WN
  int64_t tiles = 1;     // MFMA tiles per wave along rows
  GemmOperandPlan plan;
  const char* tag() const { return is_b ? "b" : "a"; }
};

struct Coord {
  IndexRef r, kk;  // row within the block tile, k within the K tile
};

// A candidate LDS layout and copy order for one operand, with its cost.
struct Candidate {
  GemmOperandPlan plan;
  bool coalesced = true;
  auto Key() const {
    return std::make_tuple(plan.fragment_reads.conflicts, coalesced ? 0 : 1,
                           plan.tile_writes.cycles, plan.pad, plan.swizzle > 0 ? 1 : 0,
                           -plan.lanes_along, plan.tile_writes.instructions);
  }
};

// Appends plan `q` with its tile writes `writes` (WriteTraffic or
// WriteTrafficTr; an error is returned as is) to `cands`, coalesced when its
// lanes along the stride-1 dimension reach `want_along`: the one way the
// register and load_tr planners add a candidate.
absl::Status AppendCandidate(GemmOperandPlan q, absl::StatusOr<LdsTraffic> writes, int64_t want_along,
                             std::vector<Candidate>& cands) {
  if (!writes.ok()) return writes.status();
  q.tile_writes = *writes;
  Candidate cand;
  cand.coalesced = q.lanes_along >= want_along;
  cand.plan = std::move(q);
  cands.push_back(std::move(cand));
  return absl::OkStatus();
}

class Promoter {
 public:
  Promoter(const Kernel& k, const Op& op, const TargetInfo& t, GemmConfig c)
      : k_(k), op_(op), t_(t), c_(std::move(c)) {
    const GemmOp& g = op.gemm;
    a_.arg = k.FindArg(g.a);
    a_.k_major = g.a_km;
    a_.rows = c_.m;
    a_.block = c_.bm;
    a_.waves = c_.wm;
    a_.tiles = c_.MfmaTilesM();
    b_.is_b = true;
    b_.arg = k.FindArg(g.b);
    b_.k_major = g.b_kn;
    b_.rows = c_.n;
    b_.block = c_.bn;
    b_.waves = c_.wn;
    b_.tiles = c_.MfmaTilesN();
  }

  absl::StatusOr<GemmPlan> Plan();
  Kernel Emit() const;

 private:
  // ---- indices
  int64_t Threads() const { return c_.Threads(); }
  // Elements per rotated chunk of a swizzled row: the fragment read's width,
  // or with the DMA its 16 bytes (GemmOperandPlan::dma).
  int64_t SwizzleUnit(const Side& s, const GemmOperandPlan& p) const {
    return p.dma ? kLdsDmaLaneBytes / ElemBytes(s.arg->elem) : c_.mfma->ab_width;
  }
  // Elements per LDS load of a fragment: the whole fragment, or on a
  // swizzled DMA layout whose 16-byte units are narrower than it (fp8's
  // 32-byte f8f6f4 fragments) one unit, the pieces joined by concat
  // (GemmOperandPlan::dma).
  int64_t FragmentPiece(const Side& s, const GemmOperandPlan& p) const {
    const int64_t w = c_.mfma->ab_width;
    return p.dma && p.swizzle > 0 ? std::min(w, SwizzleUnit(s, p)) : w;
  }
  // Rows after which a swizzled layout's rotation repeats (LdsCol: a row's
  // chunks of SwizzleUnit elements rotate by (row floordiv swizzle) mod chunks).
  int64_t SwizzlePeriod(const Side& s, const GemmOperandPlan& p) const {
    return p.swizzle * (c_.bk / SwizzleUnit(s, p));
  }
  IndexRef ThreadId() const {
    IndexRef t = ITid(0);
    if (c_.wm > 1) t = Add(t, Mul(ITid(1), 64));
    if (c_.wn > 1) t = Add(t, Mul(ITid(2), 64 * c_.wm));
    return t;
  }
  IndexRef WaveIdx(const Side& s) const { return s.waves > 1 ? ITid(s.is_b ? 2 : 1) : IConst(0); }
  IndexRef BlockBase(const Side& s) const { return Mul(IWg(s.is_b ? 1 : 0), s.block); }
  static IndexRef K() { return ILoopVar("k"); }
  // The LDS stage of K tile %k (+ next).
  IndexRef Stage(int64_t next) const { return Mod(Add(Div(K(), c_.bk), next), 2); }
  // `t mod d`, spelled tid.x mod d when the waves' terms are multiples of d.
  IndexRef ThreadMod(int64_t d) const {
    if (64 % d == 0) return Mod(ITid(0), d);
    return Mod(ThreadId(), d);
  }

  Coord CopyCoord(const Side& s, const GemmOperandPlan& p, int64_t round) const;
  std::vector<IndexRef> GlobalIndex(const Side& s, const Coord& c, const IndexRef& kbase) const;
  int GlobalAlong(const Side& s, const GemmOperandPlan& p) const {
    return p.vec_along_k != s.k_major ? 1 : 0;
  }
  std::vector<IndexRef> LdsIndex(const IndexRef& stage, IndexRef r, IndexRef kk) const {
    if (c_.double_buffer) return {stage, std::move(r), std::move(kk)};
    return {std::move(r), std::move(kk)};
  }
  int LdsRank() const { return c_.double_buffer ? 3 : 2; }
  LdsAlloc Alloc(const Side& s, const GemmOperandPlan& p) const;
  // The LDS column of element (r, k) under the plan's swizzle; `k` a multiple
  // of the chunk width when `aligned`, else of `unit` (the store's width
  // along K), which the column then shows (so that interval analysis sees
  // the vector stay inside its chunk).
  IndexRef LdsCol(const Side& s, const GemmOperandPlan& p, const IndexRef& r, const IndexRef& k,
                  bool aligned, int64_t unit = 1) const;
  // Fragment read of MFMA tile `i` (along rows), k-step `step`: its
  // FragmentPiece-element piece `piece` (elements piece * FragmentPiece ..).
  std::vector<IndexRef> FragmentIndex(const Side& s, const GemmOperandPlan& p,
                                      const IndexRef& stage, int64_t i, int64_t step,
                                      int64_t piece = 0) const;
  // The fragment of MFMA tile `i`, k-step `step` as a value: one LDS load,
  // or its pieces' loads joined by concat.
  std::string EmitFragment(KernelBuilder& b, const Side& s, const IndexRef& stage, int64_t i,
                           int64_t step, const std::string& name) const;
  bool GuardRows(const Side& s) const { return s.rows % s.block != 0; }
  // ---- K-major staging read by load_tr (GemmOperandPlan::tr)
  // Whether `s` may be staged so: gfx950, 16-bit, stride-1 along the rows,
  // fragments of whole 4-element blocks, MFMA rows in 16-lane groups.
  bool TrEligible(const Side& s) const;
  // The block lane tid.x addresses in `half` (elements 4 * half .. + 3 of
  // its fragment) of MFMA tile `i`, k-step `step` (plan comment at
  // GemmOperandPlan::tr).
  std::vector<IndexRef> FragmentIndexTr(const Side& s, const GemmOperandPlan& p, const IndexRef& stage,
                                        int64_t i, int64_t step, int64_t half) const;
  // The fragment as a value: one load_tr, or two joined by concat.
  std::string EmitFragmentTr(KernelBuilder& b, const Side& s, const IndexRef& stage, int64_t i,
                             int64_t step, const std::string& name) const;
  void EmitCopyStoresTr(KernelBuilder& b, const Side& s, const IndexRef& stage,
                        const std::vector<std::string>& vals) const;
  absl::StatusOr<LdsTraffic> ReadTrafficTr(const Side& s, const GemmOperandPlan& p) const;
  absl::StatusOr<LdsTraffic> WriteTrafficTr(const Side& s, const GemmOperandPlan& p) const;
  // The best tr candidates of `s` (sorted), or none when not eligible.
  absl::StatusOr<std::vector<Candidate>> TrCandidates(const Side& s, const GemmOperandPlan& base,
                                                      const std::vector<int64_t>& alongs,
                                                      int64_t want_along) const;

  // ---- emission
  // Global loads of the operand's share of a K tile at k = kbase; returns names.
  std::vector<std::string> EmitCopyLoads(KernelBuilder& b, const Side& s, const IndexRef& kbase,
                                         bool guard, const std::string& prefix) const;
  void EmitCopyStores(KernelBuilder& b, const Side& s, const IndexRef& stage,
                      const std::vector<std::string>& vals) const;
  // The operand's K tile at k = kbase copied into LDS stage `stage` (nullptr:
  // single buffered) by lds_dma (GemmOperandPlan::dma): `copies` ops, round i
  // of wave w filling the tile's 16-byte chunks (i * threads + 64 * w) ..
  // + 63, each lane loading the global chunk the swizzle puts there.
  void EmitCopyDma(KernelBuilder& b, const Side& s, const IndexRef& kbase,
                   const IndexRef& stage) const;
  // The MFMAs of one K tile read from LDS stage `stage` (nullptr: single
  // buffered); value names end in `suffix` (one per copy of the body). With
  // `after_reads`, all of the tile's fragment reads come first, then
  // after_reads() (the DMA of the next tile: a DS read after a DMA waits for
  // it, compiler/passes/waitcnt.h), then the MFMAs.
  std::vector<std::string> EmitKTile(KernelBuilder& b, const IndexRef& stage,
                                     const std::vector<std::string>& acc,
                                     const std::string& suffix = "",
                                     const std::function<void()>& after_reads = nullptr) const;
  void EmitEpilogue(KernelBuilder& b, const std::vector<std::string>& sums) const;
  // The K loop of GemmConfig::lds_dma; returns the accumulators' final names.
  std::vector<std::string> EmitDmaLoop(KernelBuilder& b, const std::vector<BuilderValue>& init,
                                       const ForNames& names, const std::string& zero) const;
  // The byte alignment the validator can prove for buffer `arg` at `index`
  // in the promoted kernel (its workgroup and grid).
  int64_t ProvenAlignment(const Arg& arg, const std::vector<IndexRef>& index) const;
  // Rows per C access in the epilogue (4, 2 or 1) for the 4-row group at
  // (row, col): the widest whose every piece is as aligned as the validator
  // requires (min(bytes, 16) when C's dimension 0 has stride 1, else one
  // element).
  int CWidth(const IndexRef& row, const IndexRef& col) const;

  // ---- planning
  absl::Status ChooseLayout(Side& s);
  // ChooseLayout for GemmConfig::lds_dma: unpadded rows, the rotation (or
  // none) whose fragment reads conflict least.
  absl::Status ChooseDmaLayout(Side& s);
  absl::StatusOr<LdsTraffic> ReadTraffic(const Side& s, const GemmOperandPlan& p) const;
  absl::StatusOr<LdsTraffic> WriteTraffic(const Side& s, const GemmOperandPlan& p) const;
  Kernel ProbeKernel(const Side& s, const GemmOperandPlan& p) const;
  // Both allocations' bytes as kir::LayoutLds lays them out (a tr plan pads
  // its BK rows of M / N; GemmConfig::LdsBytes pads rows of K).
  int64_t PlanLdsBytes(const GemmOperandPlan& a, const GemmOperandPlan& b) const {
    if (!a.tr && !b.tr) return c_.LdsBytes(a.pad, b.pad);
    auto bytes = [&](const Side& s, const GemmOperandPlan& p) {
      const int64_t n = p.tr ? c_.bk * (s.block + p.pad) : s.block * (c_.bk + p.pad);
      return c_.Stages() * n * ElemBytes(s.arg->elem);
    };
    return (bytes(a_, a) + 15) / 16 * 16 + bytes(b_, b);
  }

  const Kernel& k_;
  const Op& op_;
  const TargetInfo& t_;
  GemmConfig c_;
  Side a_, b_;
  std::vector<Candidate> a_cands_, b_cands_;
};

Coord Promoter::CopyCoord(const Side& s, const GemmOperandPlan& p, int64_t round) const {
  const int64_t ec = p.vec_along_k ? c_.bk : s.block;  // extent along the vectors
  const int64_t eo = p.vec_along_k ? s.block : c_.bk;  // the other extent
  const int64_t vc = ec / p.vec;                       // vectors along a line
  const int64_t off = Threads() * round;
  IndexRef c_idx, o;
  if (p.lanes_along == vc && 64 % vc == 0 && off % vc == 0) {
    // Lanes walk each line of the tile, then the next line: lane l of the
    // wave copies vector l mod vc of its wave's line l floordiv vc (with the
    // line order's bit swap), waves and rounds take the following lines.
    IndexRef lane_line = Div(ITid(0), vc);
    if (p.swap_lo >= 0) lane_line = SwapBits(lane_line, p.swap_lo, p.swap_hi, 64 / vc);
    IndexRef wave_line = Add(Mul(ITid(1), c_.wm > 1 ? 64 / vc : 0),
                             Mul(ITid(2), c_.wn > 1 ? 64 * c_.wm / vc : 0));
    c_idx = Mod(ITid(0), vc);
    o = Add(Add(wave_line, off / vc), lane_line);
  } else if (p.lanes_along == vc) {
    // The same walk when vc does not divide a wave's lanes.
    if (off % vc == 0) {
      c_idx = ThreadMod(vc);
      o = Add(Div(ThreadId(), vc), off / vc);
    } else {
      IndexRef v = Add(ThreadId(), off);
      c_idx = Mod(v, vc);
      o = Div(v, vc);
    }
  } else {
    // Groups of lanes_along lanes walk down the lines, then move along them.
    const int64_t cf = p.lanes_along;
    IndexRef v = Add(ThreadId(), off);
    c_idx = Add(Mul(Div(v, cf * eo), cf), off % cf == 0 ? ThreadMod(cf) : Mod(v, cf));
    o = Mod(Div(v, cf), eo);
  }
  IndexRef c_el = Mul(c_idx, p.vec);
  if (p.vec_along_k) return Coord{o, c_el};
  return Coord{c_el, o};
}

std::vector<IndexRef> Promoter::GlobalIndex(const Side& s, const Coord& c,
                                            const IndexRef& kbase) const {
  IndexRef row = Add(BlockBase(s), c.r);
  IndexRef kk = Add(kbase, c.kk);
  if (s.k_major) return {kk, row};
  return {row, kk};
}

LdsAlloc Promoter::Alloc(const Side& s, const GemmOperandPlan& p) const {
  LdsAlloc l;
  l.name = p.lds;
  l.elem = s.arg->elem;
  const int64_t outer = p.tr ? c_.bk : s.block, inner = p.tr ? s.block : c_.bk;
  if (c_.double_buffer)
    l.shape = {2, outer, inner};
  else
    l.shape = {outer, inner};
  l.pad = p.pad;
  l.loc = op_.loc;
  return l;
}

IndexRef Promoter::LdsCol(const Side& s, const GemmOperandPlan& p, const IndexRef& r,
                          const IndexRef& k, bool aligned, int64_t unit) const {
  if (p.swizzle == 0) return k;
  const int64_t w = SwizzleUnit(s, p), chunks = c_.bk / w;
  IndexRef col = Mul(Mod(Add(Div(k, w), Div(r, p.swizzle)), chunks), w);
  if (aligned) return col;
  // k mod w, spelled (k / unit mod (w / unit)) * unit when k is a multiple of unit.
  if (unit > 1 && w % unit == 0) return Add(col, Mul(Mod(Div(k, unit), w / unit), unit));
  return Add(col, Mod(k, w));
}

std::vector<IndexRef> Promoter::FragmentIndex(const Side& s, const GemmOperandPlan& p,
                                              const IndexRef& stage, int64_t i, int64_t step,
                                              int64_t piece) const {
  const MfmaDesc& m = *c_.mfma;
  const int64_t rows = s.is_b ? m.n : m.m;
  const int64_t w = FragmentPiece(s, p);
  IndexRef r = Add(Add(Mul(WaveIdx(s), s.block / s.waves), i * rows), Mod(ITid(0), rows));
  IndexRef kk = Add(IConst(step * m.k + piece * w), Mul(Div(ITid(0), rows), m.ab_width));
  // A read narrower than a DMA layout's rotated unit sits inside one.
  const bool aligned = w % SwizzleUnit(s, p) == 0;
  IndexRef col = LdsCol(s, p, r, kk, aligned, w);
  return LdsIndex(stage, std::move(r), std::move(col));
}

std::string Promoter::EmitFragment(KernelBuilder& b, const Side& s, const IndexRef& stage,
                                   int64_t i, int64_t step, const std::string& name) const {
  const GemmOperandPlan& p = s.plan;
  if (p.tr) return EmitFragmentTr(b, s, stage, i, step, name);
  const int64_t w = FragmentPiece(s, p), pieces = c_.mfma->ab_width / w;
  if (pieces == 1)
    return b.Load(p.lds, FragmentIndex(s, p, stage, i, step), {s.arg->elem, c_.mfma->ab_width}, {}, name);
  // Load the pieces, then join neighbours pairwise until one value is left
  // (pieces is a power of two: 16-byte units of a 2^n-byte fragment).
  std::vector<std::string> parts;
  for (int64_t piece = 0; piece < pieces; ++piece)
    parts.push_back(b.Load(p.lds, FragmentIndex(s, p, stage, i, step, piece),
                           {s.arg->elem, static_cast<int>(w)}, {}, absl::StrCat(name, "_p", piece)));
  for (int64_t width = 2 * w; width <= c_.mfma->ab_width; width *= 2) {
    std::vector<std::string> joined;
    for (size_t j = 0; j + 1 < parts.size(); j += 2)
      joined.push_back(b.Concat(parts[j], parts[j + 1], {s.arg->elem, static_cast<int>(width)},
                                width == c_.mfma->ab_width ? name : absl::StrCat(parts[j], "_", width)));
    parts = std::move(joined);
  }
  return parts[0];
}

std::vector<std::string> Promoter::EmitCopyLoads(KernelBuilder& b, const Side& s,
                                                 const IndexRef& kbase, bool guard,
                                                 const std::string& prefix) const {
  const GemmOperandPlan& p = s.plan;
  std::vector<std::string> names;
  MemOpOptions o;
  o.along = GlobalAlong(s, p);
  o.guarded = guard;
  for (int64_t i = 0; i < p.copies; ++i) {
    Coord c = CopyCoord(s, p, i);
    names.push_back(b.Load(s.arg->name, GlobalIndex(s, c, kbase), {s.arg->elem, p.vec}, o,
                           absl::StrCat(s.tag(), "_", prefix, i)));
  }
  return names;
}

void Promoter::EmitCopyStores(KernelBuilder& b, const Side& s, const IndexRef& stage,
                              const std::vector<std::string>& vals) const {
  const GemmOperandPlan& p = s.plan;
  if (p.tr) return EmitCopyStoresTr(b, s, stage, vals);
  MemOpOptions o;
  o.along = p.vec_along_k ? LdsRank() - 1 : LdsRank() - 2;
  for (int64_t i = 0; i < p.copies; ++i) {
    Coord c = CopyCoord(s, p, i);
    const bool aligned = p.vec_along_k && p.lds_vec >= c_.mfma->ab_width;
    const int64_t unit = p.vec_along_k ? p.lds_vec : 1;
    if (!p.vec_along_k || p.lds_vec == p.vec) {
      b.Store(p.lds, LdsIndex(stage, c.r, LdsCol(s, p, c.r, c.kk, aligned, unit)), vals[i], o);
      continue;
    }
    for (int piece = 0; piece < p.vec / p.lds_vec; ++piece) {
      std::string part = b.Slice(vals[i], piece * p.lds_vec, {s.arg->elem, p.lds_vec},
                                 absl::StrCat(vals[i], "_p", piece));
      IndexRef k = Add(c.kk, piece * p.lds_vec);
      b.Store(p.lds, LdsIndex(stage, c.r, LdsCol(s, p, c.r, k, aligned, unit)), part, o);
    }
  }
}

void Promoter::EmitCopyDma(KernelBuilder& b, const Side& s, const IndexRef& kbase,
                           const IndexRef& stage) const {
  const GemmOperandPlan& p = s.plan;
  const int64_t chunks = c_.bk / p.vec;          // 16-byte chunks per LDS row
  const int64_t unit = SwizzleUnit(s, p);        // elements per rotated unit
  const int64_t per_unit = unit / p.vec, units = c_.bk / unit;
  MemOpOptions o;
  o.along = GlobalAlong(s, p);
  // Each wave copies `copies` consecutive blocks of 64 / chunks whole rows
  // (one DMA's 64 lanes x 16 bytes = 1024 LDS bytes each): its DMAs lie
  // kLdsDmaLaneBytes * 64 bytes apart in LDS, so up to 4 of them fit one
  // MUBUF offset window (4095 bytes) and share one M0 (the lowering's
  // LdsDmaInstOffset, compiler/lower/lower_memory.cc).
  const int64_t rows = 64 / chunks;
  for (int64_t i = 0; i < p.copies; ++i) {
    // The wave's first row for DMA i and the lane's row and LDS chunk.
    IndexRef wave_row = Add(Add(Mul(ITid(1), c_.wm > 1 ? p.copies * rows : 0),
                                Mul(ITid(2), c_.wn > 1 ? c_.wm * p.copies * rows : 0)),
                            i * rows);
    IndexRef r = Add(wave_row, Div(ITid(0), chunks));
    IndexRef q = Mod(ITid(0), chunks);
    // The global chunk whose rotated place (LdsCol) is q: unit
    // (q / per_unit - r floordiv d) mod units, spelled with a non-negative sum.
    IndexRef g = q;
    if (p.swizzle > 0) {
      IndexRef gu = Mod(Add(Div(q, per_unit), Mul(Div(r, p.swizzle), units - 1)), units);
      g = Add(Mul(gu, per_unit), Mod(q, per_unit));
    }
    Coord c{r, Mul(g, p.vec)};
    b.LdsDma(p.lds, LdsIndex(stage, wave_row, IConst(0)), s.arg->name, GlobalIndex(s, c, kbase),
             {s.arg->elem, p.vec}, o);
  }
}

std::vector<std::string> Promoter::EmitKTile(KernelBuilder& b, const IndexRef& stage,
                                             const std::vector<std::string>& acc,
                                             const std::string& suffix,
                                             const std::function<void()>& after_reads) const {
  const MfmaDesc& m = *c_.mfma;
  std::vector<std::string> cur = acc;
  auto read = [&](int64_t step, std::vector<std::string>* fa, std::vector<std::string>* fb) {
    for (int64_t i = 0; i < a_.tiles; ++i) {
      const std::string name = absl::StrCat("a", i, "_k", step, suffix);
      fa->push_back(EmitFragment(b, a_, stage, i, step, name));
    }
    for (int64_t j = 0; j < b_.tiles; ++j) {
      const std::string name = absl::StrCat("b", j, "_k", step, suffix);
      fb->push_back(EmitFragment(b, b_, stage, j, step, name));
    }
  };
  std::vector<std::vector<std::string>> all_a(c_.KSteps()), all_b(c_.KSteps());
  if (after_reads) {
    for (int64_t step = 0; step < c_.KSteps(); ++step) read(step, &all_a[step], &all_b[step]);
    after_reads();
  }
  for (int64_t step = 0; step < c_.KSteps(); ++step) {
    std::vector<std::string>& fa = all_a[step];
    std::vector<std::string>& fb = all_b[step];
    if (!after_reads) read(step, &fa, &fb);
    for (int64_t i = 0; i < a_.tiles; ++i)
      for (int64_t j = 0; j < b_.tiles; ++j) {
        size_t t = static_cast<size_t>(i * b_.tiles + j);
        cur[t] = b.Mfma(m.kir_name, fa[i], fb[j], cur[t],
                        absl::StrCat("acc_", i, "_", j, "_k", step, suffix));
      }
  }
  return cur;
}

int64_t Promoter::ProvenAlignment(const Arg& arg, const std::vector<IndexRef>& index) const {
  Kernel probe;
  probe.consts = k_.consts;
  probe.workgroup = {64, c_.wm, c_.wn};
  probe.grid = {c_.GridM(), c_.GridN(), 1};
  IndexScope scope;
  scope.kernel = &probe;
  const int64_t eb = ElemBytes(arg.elem);
  AffineForm off = AffineConst(0);
  for (size_t d = 0; d < index.size(); ++d) {
    absl::StatusOr<AffineForm> f = Affine(*index[d], scope);
    if (!f.ok()) return 1;  // the validator reports it
    off = AffineAdd(off, AffineScale(*f, arg.strides[d] * eb));
  }
  return off.KnownAlignment();
}

int Promoter::CWidth(const IndexRef& row, const IndexRef& col) const {
  const Arg& c = *k_.FindArg(op_.gemm.c);
  const int64_t eb = ElemBytes(c_.out_elem);
  for (int w = 4; w > 1; w /= 2) {
    const int64_t need = RequiredAccessAlignment(c.strides[0] == 1, eb, w);
    bool ok = true;
    for (int piece = 0; piece < 4 / w && ok; ++piece)
      ok = ProvenAlignment(c, {Add(row, piece * w), col}) % need == 0;
    if (ok) return w;
  }
  return 1;
}

void Promoter::EmitEpilogue(KernelBuilder& b, const std::vector<std::string>& sums) const {
  const MfmaDesc& m = *c_.mfma;
  const GemmOp& g = op_.gemm;
  const bool guard = GuardRows(a_) || GuardRows(b_);
  const int groups = m.cd_width / 4;  // 4-row groups per lane: 1 (16x16) or 4 (32x32)
  const ValueType f4{ElemType::kF32, 4};
  MemOpOptions o;
  o.along = 0;
  o.guarded = guard;
  // alpha: the factors' product, formed once in f32 left to right
  // (compiler/ir/gemm.h); one factor is used as it is.
  BuilderValue alpha = g.has_alpha() ? KernelBuilder::ScalarArg(g.factors[0]) : BuilderValue("");
  for (size_t f = 1; f < g.factors.size(); ++f)
    alpha = b.Mul(alpha, KernelBuilder::ScalarArg(g.factors[f]),
                  absl::StrCat("scale", f + 1));
  for (int64_t i = 0; i < a_.tiles; ++i) {
    for (int64_t j = 0; j < b_.tiles; ++j) {
      const std::string ij = absl::StrCat(i, "_", j);
      // alpha * acc in f32, or acc itself when there is no alpha (alpha = 1).
      const std::string& acc = sums[static_cast<size_t>(i * b_.tiles + j)];
      std::string scaled = g.has_alpha() ? b.Mul(acc, alpha, "ab_" + ij) : acc;
      IndexRef row0 = Add(Add(BlockBase(a_), Mul(WaveIdx(a_), c_.WaveTileM())), i * m.m);
      IndexRef col = Add(Add(Add(BlockBase(b_), Mul(WaveIdx(b_), c_.WaveTileN())), j * m.n),
                         Mod(ITid(0), m.n));
      for (int gi = 0; gi < groups; ++gi) {
        const std::string sfx4 = groups > 1 ? absl::StrCat(ij, "_r", gi) : ij;
        std::string v4 = groups > 1 ? b.Slice(scaled, 4 * gi, f4, "ab_" + sfx4) : scaled;
        // Lane l holds rows 4*(l/m) + 0..3 of its 4-row group (16x16: the only
        // group; 32x32: group gi starts at row 8*gi), column l % n.
        IndexRef row = Add(Add(row0, 8 * gi), Mul(Div(ITid(0), m.m), 4));
        // The four rows as one vector when C's layout aligns it, else as
        // pieces of w rows (w = 2 or 1; an f32 slice may start anywhere).
        const int w = CWidth(row, col);
        const ValueType fw{ElemType::kF32, w}, outw{c_.out_elem, w};
        for (int piece = 0; piece < 4 / w; ++piece) {
          const std::string sfx = w == 4 ? sfx4 : absl::StrCat(sfx4, "_e", piece * w);
          std::string v = w == 4 ? v4 : b.Slice(v4, piece * w, fw, "ab_" + sfx);
          std::vector<IndexRef> at = {Add(row, piece * w), col};
          if (c_.has_beta) {
            std::string cv = b.Load(g.c, at, outw, o, "c_" + sfx);
            if (c_.out_elem != ElemType::kF32) cv = b.Cvt(cv, fw, "cf_" + sfx);
            // `+ C` is beta 1: C + alpha * acc, rounded once as the fma.
            v = g.has_beta() ? b.Fma(cv, KernelBuilder::ScalarArg(g.beta), v, "out_" + sfx)
                             : b.Add(cv, v, "out_" + sfx);
          }
          if (c_.out_elem != ElemType::kF32)
            v = b.Cvt(v, outw, absl::StrCat("out", Elem(c_.out_elem), "_", sfx));
          b.Store(g.c, at, v, o);
        }
      }
    }
  }
}

std::vector<std::string> Promoter::EmitDmaLoop(KernelBuilder& b,
                                               const std::vector<BuilderValue>& init,
                                               const ForNames& names,
                                               const std::string& zero) const {
  auto dma = [&](const IndexRef& k, const IndexRef& stage) {
    EmitCopyDma(b, a_, k, stage);
    EmitCopyDma(b, b_, k, stage);
  };
  if (!c_.double_buffer) {
    // DMA the tile, barrier (its vmcnt wait publishes the bytes), MFMAs,
    // barrier (the next DMA must not overwrite a tile other waves read).
    return b.For(0, c_.KTiles() * c_.bk, c_.bk, init,
                 [&](const std::string&, const std::vector<std::string>& acc) {
                   dma(K(), nullptr);
                   b.Barrier();
                   std::vector<std::string> out = EmitKTile(b, nullptr, acc);
                   b.Barrier();
                   return std::vector<BuilderValue>(out.begin(), out.end());
                 },
                 names);
  }
  // Two stages, no registers in flight: the prologue DMAs tile 0 into stage
  // 0 and meets a barrier. Step t reads tile t's fragments from stage t % 2,
  // then DMAs tile t+1 into stage (t+1) % 2 (while t+1 < T; every wave
  // finished reading that stage before the previous step's barrier), then
  // issues tile t's MFMAs, which overlap the DMA; the step's barrier waits
  // vmcnt for the DMA (compiler/passes/waitcnt.h) and publishes tile t+1.
  // The fragment reads come before the DMA because a DS read after a DMA
  // waits for it. The loop runs the steps in pairs (constant stages) while
  // both have a next tile; the last one or two steps follow it.
  const int64_t tiles = c_.KTiles();
  dma(IConst(0), IConst(0));
  b.Barrier();
  auto step = [&](bool in_loop, int64_t t, const std::vector<std::string>& acc,
                  const std::string& suffix) {
    const bool next = in_loop || t + 1 < tiles;
    std::function<void()> issue = nullptr;
    if (next)
      issue = [&, in_loop, t] {
        dma(in_loop ? Add(K(), (t % 2 + 1) * c_.bk) : IConst((t + 1) * c_.bk), IConst((t + 1) % 2));
      };
    std::vector<std::string> out = EmitKTile(b, IConst(t % 2), acc, suffix, issue);
    if (next) b.Barrier();
    return out;
  };
  const int64_t pairs = (tiles - 1) / 2;
  std::vector<std::string> cur(init.size(), zero);
  if (pairs > 0) {
    cur = b.For(0, pairs * 2 * c_.bk, 2 * c_.bk, init,
                [&](const std::string&, const std::vector<std::string>& acc) {
                  std::vector<std::string> mid = step(true, 0, acc, "");
                  std::vector<std::string> out = step(true, 1, mid, "_odd");
                  return std::vector<BuilderValue>(out.begin(), out.end());
                },
                names);
  }
  for (int64_t t = 2 * pairs; t < tiles; ++t) cur = step(false, t, cur, absl::StrCat("_t", t));
  return cur;
}

Kernel Promoter::Emit() const {
  KernelBuilder b(k_.name);
  b.SetTarget(t_.name);
  b.SetWorkgroup(64, c_.wm, c_.wn);
  b.SetGrid(c_.GridM(), c_.GridN(), 1);
  const MfmaDesc& m = *c_.mfma;
  const int64_t k_end = c_.KTiles() * c_.bk;
  std::string zero = b.Zero({ElemType::kF32, m.cd_width}, "zero");
  std::vector<BuilderValue> init;
  ForNames names;
  names.ivar = "k";
  for (int64_t i = 0; i < a_.tiles; ++i)
    for (int64_t j = 0; j < b_.tiles; ++j) {
      init.emplace_back(zero);
      names.iter_args.push_back(absl::StrCat("acc_", i, "_", j));
      names.results.push_back(absl::StrCat("sum_", i, "_", j));
    }
  // Which global loads can leave the shape: rows past M / N, k past K.
  const bool k_partial = c_.k % c_.bk != 0;
  std::vector<std::string> sums;
  if (c_.lds_dma) {
    sums = EmitDmaLoop(b, init, names, zero);
  } else if (!c_.double_buffer) {
    sums = b.For(0, k_end, c_.bk, init,
                 [&](const std::string&, const std::vector<std::string>& acc) {
                   std::vector<std::string> va =
                       EmitCopyLoads(b, a_, K(), GuardRows(a_) || k_partial, "copy");
                   std::vector<std::string> vb =
                       EmitCopyLoads(b, b_, K(), GuardRows(b_) || k_partial, "copy");
                   EmitCopyStores(b, a_, nullptr, va);
                   EmitCopyStores(b, b_, nullptr, vb);
                   b.Barrier();
                   std::vector<std::string> out = EmitKTile(b, nullptr, acc);
                   b.Barrier();  // the next tile's stores wait for every wave's reads
                   return std::vector<BuilderValue>(out.begin(), out.end());
                 },
                 names);
  } else {
    // Software pipeline over the K tiles t = 0 .. T-1 (T >= 2): LDS holds
    // tile t in stage t % 2 while the registers hold tile t+1, loaded one
    // step ahead. Step t loads tile t+2 into registers (while t+2 < T),
    // computes tile t, stores tile t+1 from its registers into stage
    // (t+1) % 2 (while t+1 < T) and ends with a barrier. So a tile's loads
    // have a whole step of MFMAs to land, the loop waits only for the older
    // tile's loads (never vmcnt(0)), and the loaded registers are carried
    // across the back edge. The loop runs the steps in pairs, so each
    // step's stage is a constant (its LDS offsets are immediates: no parity
    // arithmetic); the last two or three steps (fewer loads and stores)
    // follow it. Loads leave the shape only at rows past M / N or in a
    // partial last K tile, so the loop has no guard otherwise.
    const int64_t tiles = c_.KTiles();
    const bool first_partial = c_.k < c_.bk;
    const bool next_guard_a = GuardRows(a_) || k_partial, next_guard_b = GuardRows(b_) || k_partial;
    std::vector<std::string> va = EmitCopyLoads(b, a_, IConst(0), GuardRows(a_) || first_partial, "copy");
    std::vector<std::string> vb = EmitCopyLoads(b, b_, IConst(0), GuardRows(b_) || first_partial, "copy");
    EmitCopyStores(b, a_, IConst(0), va);
    EmitCopyStores(b, b_, IConst(0), vb);
    // Tile loads of A then B, as one list (what the loop carries).
    auto load_tile = [&](const IndexRef& k, const std::string& prefix) {
      std::vector<std::string> v = EmitCopyLoads(b, a_, k, next_guard_a, prefix);
      std::vector<std::string> w = EmitCopyLoads(b, b_, k, next_guard_b, prefix);
      v.insert(v.end(), w.begin(), w.end());
      return v;
    };
    auto store_tile = [&](int64_t stage, const std::vector<std::string>& v) {
      const size_t na = static_cast<size_t>(a_.plan.copies);
      EmitCopyStores(b, a_, IConst(stage), std::vector<std::string>(v.begin(), v.begin() + na));
      EmitCopyStores(b, b_, IConst(stage), std::vector<std::string>(v.begin() + na, v.end()));
    };
    std::vector<std::string> pending;
    if (tiles >= 2) pending = load_tile(IConst(c_.bk), "pre");
    b.Barrier();
    // Step t; in_loop: tile t's k is %k + (t % 2) * BK, else t * BK. Returns
    // the accumulators and the new pending tile.
    auto step = [&](bool in_loop, int64_t t, const std::vector<std::string>& acc,
                    const std::vector<std::string>& pend, bool load, bool store, const std::string& suffix) {
      std::vector<std::string> next;
      if (load)
        next = load_tile(in_loop ? Add(K(), (t % 2 + 2) * c_.bk) : IConst((t + 2) * c_.bk), "next" + suffix);
      std::vector<std::string> out = EmitKTile(b, IConst(t % 2), acc, suffix);
      if (store) {
        store_tile((t + 1) % 2, pend);
        b.Barrier();  // the stores are visible, and this stage's reads done
      }
      return std::make_pair(out, next);
    };
    // Pairs of full steps (t + 2 < T for both): t = 2i, 2i + 1 for i < pairs.
    const int64_t pairs = tiles >= 4 ? (tiles - 2) / 2 : 0;
    std::vector<std::string> cur(init.size(), zero);
    if (pairs > 0) {
      std::vector<BuilderValue> carried = init;
      for (size_t i = 0; i < pending.size(); ++i) {
        carried.emplace_back(pending[i]);
        names.iter_args.push_back(absl::StrCat("pend", i));
        names.results.push_back(absl::StrCat("pend_out", i));
      }
      const size_t nacc = init.size();
      std::vector<std::string> res = b.For(
          0, pairs * 2 * c_.bk, 2 * c_.bk, carried,
          [&](const std::string&, const std::vector<std::string>& in) {
            std::vector<std::string> acc(in.begin(), in.begin() + nacc), pend(in.begin() + nacc, in.end());
            auto [mid, q] = step(true, 0, acc, pend, true, true, "");
            auto [out, p2] = step(true, 1, mid, q, true, true, "_odd");
            out.insert(out.end(), p2.begin(), p2.end());
            return std::vector<BuilderValue>(out.begin(), out.end());
          },
          names);
      cur.assign(res.begin(), res.begin() + nacc);
      pending.assign(res.begin() + nacc, res.end());
    }
    for (int64_t t = 2 * pairs; t < tiles; ++t) {
      auto [out, next] = step(false, t, cur, pending, t + 2 < tiles, t + 1 < tiles, absl::StrCat("_t", t));
      cur = out;
      pending = next;
    }
    sums = cur;
  }
  EmitEpilogue(b, sums);
  Kernel out = b.Build();
  out.consts = k_.consts;
  out.args = k_.args;
  out.lds = {Alloc(a_, a_.plan), Alloc(b_, b_.plan)};
  out.loc = k_.loc;
  out.target_loc = k_.target_loc;
  out.workgroup_loc = k_.workgroup_loc;
  out.grid_loc = k_.grid_loc;
  // Every generated op points at the gemm line.
  std::vector<std::vector<Op>*> todo = {&out.body};
  while (!todo.empty()) {
    std::vector<Op>* ops = todo.back();
    todo.pop_back();
    for (Op& o : *ops) {
      o.loc = op_.loc;
      if (o.kind == OpKind::kFor) todo.push_back(&o.body);
    }
  }
  return out;
}

// ---------------------------------------------------------------- planning

Kernel Promoter::ProbeKernel(const Side& s, const GemmOperandPlan& p) const {
  Kernel k;
  k.name = "probe";
  k.workgroup = {64, c_.wm, c_.wn};
  k.grid = {1, 1, 1};
  k.lds = {Alloc(s, p)};
  return k;
}

// Fragment reads of one K tile, all waves. Without a swizzle every fragment
// read of an operand is the first one (tile 0, k-step 0, wave 0) moved by a
// multiple of 4 bytes that is the same for all lanes (tile, k-step, wave and
// stage offsets), and such a move keeps every bank's distinct dwords
// distinct, so one read counted exactly stands for all: the traffic is its
// traffic times their number. A swizzle breaks that (the rotation wraps per
// lane), so then every read (each piece of a split fragment,
// FragmentPiece) of every wave is counted. promote_test checks the figures
// against the exact count of the promoted kernel.
absl::StatusOr<LdsTraffic> Promoter::ReadTraffic(const Side& s, const GemmOperandPlan& p) const {
  if (p.tr) return ReadTrafficTr(s, p);
  Kernel probe = ProbeKernel(s, p);
  Op rd;
  rd.kind = OpKind::kLoad;
  rd.mem = p.lds;
  rd.along = LdsRank() - 1;
  const ValueType frag{s.arg->elem, c_.mfma->ab_width};
  const ValueType piece{s.arg->elem, static_cast<int>(FragmentPiece(s, p))};
  LdsTraffic t;
  if (p.swizzle > 0) {
    // Waves whose row offsets are whole rotation periods (swizzle * chunks
    // rows) only move all addresses together: count wave 0 for all of them.
    const bool uniform_waves = (s.block / s.waves) % SwizzlePeriod(s, p) == 0;
    const int count_waves = uniform_waves ? 1 : -1;
    for (int64_t i = 0; i < s.tiles; ++i)
      for (int64_t step = 0; step < c_.KSteps(); ++step)
        for (int64_t k = 0; k < frag.width / piece.width; ++k) {
          rd.index = FragmentIndex(s, p, Stage(0), i, step, k);
          absl::StatusOr<LdsTraffic> one =
              LdsOpTraffic(probe, rd, piece, {{"k", 0}}, t_.lds_banks, 0, count_waves);
          if (!one.ok()) return one.status();
          t += *one;
        }
    if (uniform_waves) {
      const int64_t w = c_.wm * c_.wn;
      t.instructions *= w;
      t.cycles *= w;
      t.conflicts *= w;
    }
    return t;
  }
  rd.index = FragmentIndex(s, p, Stage(0), 0, 0);
  absl::StatusOr<LdsTraffic> one = LdsOpTraffic(probe, rd, frag, {{"k", 0}}, t_.lds_banks, 0, 1);
  if (!one.ok()) return one.status();
  const int64_t n = s.tiles * c_.KSteps() * c_.wm * c_.wn;
  t.instructions = one->instructions * n;
  t.cycles = one->cycles * n;
  t.conflicts = one->conflicts * n;
  return t;
}

// The copy's LDS stores of one K tile (in the loop), all waves, counted
// exactly. When the lanes walk whole lines (CopyCoord's first form) and the
// rows are not swizzled (or a wave's lines are whole rotation periods), every
// wave's and every round's stores are round 0 of wave 0 moved by whole lines,
// the same move for all lanes; when that move is a multiple of 4 bytes it
// keeps every bank's distinct dwords distinct (as in ReadTraffic), so wave
// 0's round 0 counted exactly stands for all.
// promote_test checks the figures against the exact count of the promoted
// kernel.
absl::StatusOr<LdsTraffic> Promoter::WriteTraffic(const Side& s, const GemmOperandPlan& p) const {
  if (p.tr) return WriteTrafficTr(s, p);
  Kernel probe = ProbeKernel(s, p);
  LdsTraffic t;
  const IndexRef stage = c_.double_buffer ? Stage(1) : nullptr;
  const int along = p.vec_along_k ? LdsRank() - 1 : LdsRank() - 2;
  const int64_t vc = (p.vec_along_k ? c_.bk : s.block) / p.vec;
  // Bytes between consecutive lines: a row of the LDS tile, or one element.
  const int64_t line_bytes = (p.vec_along_k ? c_.bk + p.pad : 1) * ElemBytes(s.arg->elem);
  // Moving by whole swizzle periods of rows leaves every rotation as it was
  // (rows are the lines when the vectors run along K).
  const bool uniform = p.lanes_along == vc && 64 % vc == 0 && (64 / vc) * line_bytes % 4 == 0 &&
                       (p.swizzle == 0 || (p.vec_along_k && (64 / vc) % SwizzlePeriod(s, p) == 0));
  const int64_t rounds = uniform ? 1 : p.copies;
  for (int64_t i = 0; i < rounds; ++i) {
    Coord c = CopyCoord(s, p, i);
    const bool split = p.vec_along_k && p.lds_vec != p.vec;
    const int pieces = split ? p.vec / p.lds_vec : 1;
    for (int piece = 0; piece < pieces; ++piece) {
      Op st;
      st.kind = OpKind::kStore;
      st.mem = p.lds;
      IndexRef k = Add(c.kk, piece * (split ? p.lds_vec : 0));
      const bool aligned = p.vec_along_k && p.lds_vec >= c_.mfma->ab_width;
      st.index = LdsIndex(stage, c.r, LdsCol(s, p, c.r, k, aligned, p.vec_along_k ? p.lds_vec : 1));
      st.along = along;
      absl::StatusOr<LdsTraffic> one = LdsOpTraffic(probe, st, {s.arg->elem, split ? p.lds_vec : p.vec},
                                                    {{"k", 0}}, t_.lds_banks, 0, uniform ? 1 : -1);
      if (!one.ok()) return one.status();
      t += *one;
    }
  }
  if (uniform) {
    const int64_t n = p.copies * c_.wm * c_.wn;
    t.instructions *= n;
    t.cycles *= n;
    t.conflicts *= n;
  }
  return t;
}

absl::Status Promoter::ChooseDmaLayout(Side& s) {
  GemmOperandPlan base;
  base.lds = FreshDeclName(k_, s.arg->name + "_lds");
  if (s.is_b && base.lds == a_.plan.lds) base.lds = FreshDeclName(k_, s.arg->name + "_lds_b");
  base.dma = true;
  base.vec_along_k = true;
  base.vec = static_cast<int>(kLdsDmaLaneBytes / ElemBytes(s.arg->elem));
  base.lds_vec = base.vec;
  base.lanes_along = c_.bk / base.vec;
  base.copies = s.block * c_.bk / base.vec / Threads();
  // Rotations of the rows' 16-byte units (none, or by row floordiv d) ranked
  // by the fragment reads' conflict cycles, then no swizzle, then the
  // smaller d. A fragment wider than a unit is then read unit by unit
  // (FragmentPiece): each 16-byte piece's place rotates on its own, which
  // lets every 16-lane group of fp8's ds_read_b128 pieces reach all 16-byte
  // bank groups. The DMA's own LDS writes are contiguous per wave whatever
  // the layout.
  std::vector<Candidate> cands;
  const int64_t units = c_.bk / SwizzleUnit(s, base);
  for (int64_t d = 0; d <= 16; d = d == 0 ? 1 : 2 * d) {
    if (d > 0 && units < 2) break;
    GemmOperandPlan p = base;
    p.swizzle = d;
    absl::StatusOr<LdsTraffic> reads = ReadTraffic(s, p);
    if (!reads.ok()) return reads.status();
    p.fragment_reads = *reads;
    Candidate cand;
    cand.plan = p;
    cands.push_back(std::move(cand));
  }
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) {
    return x.Key() < y.Key();
  });
  (s.is_b ? b_cands_ : a_cands_) = std::move(cands);
  return absl::OkStatus();
}

absl::Status Promoter::ChooseLayout(Side& s) {
  if (c_.lds_dma) return ChooseDmaLayout(s);
  const int64_t eb = ElemBytes(s.arg->elem);
  const int kdim = s.k_major ? 0 : 1, rdim = 1 - kdim;
  const int64_t stride_k = s.arg->strides[kdim], stride_r = s.arg->strides[rdim];
  GemmOperandPlan base;
  base.lds = FreshDeclName(k_, s.arg->name + "_lds");
  if (s.is_b && base.lds == a_.plan.lds) base.lds = FreshDeclName(k_, s.arg->name + "_lds_b");
  // Global vectors run along the stride-1 dimension (K preferred).
  base.vec_along_k = stride_k == 1 || stride_r != 1;
  const bool contiguous = base.vec_along_k ? stride_k == 1 : stride_r == 1;
  const int64_t ec = base.vec_along_k ? c_.bk : s.block;   // tile extent along the vectors
  const int64_t sc = base.vec_along_k ? c_.k : s.rows;      // shape extent along them
  const int64_t other = base.vec_along_k ? stride_r : stride_k;
  const int64_t total = s.block * c_.bk;
  base.vec = 1;
  if (contiguous) {
    for (int v = static_cast<int>(16 / eb); v > 1; v /= 2)
      if (ec % v == 0 && sc % v == 0 && other % v == 0 && (total / v) % Threads() == 0) {
        base.vec = v;
        break;
      }
  }
  base.copies = total / base.vec / Threads();
  const int64_t vc = ec / base.vec;
  // Lanes per line for >= 64 contiguous bytes (or the whole line).
  const int64_t want_along = std::min<int64_t>(vc, std::max<int64_t>(1, 64 / (base.vec * eb)));

  // Lane groupings: whole lines, or power-of-two groups of lanes along them
  // that still read >= 64 contiguous bytes (less coalesced groupings would
  // rank below the whole-line one whatever their LDS cost).
  std::vector<int64_t> alongs = {vc};
  for (int64_t a = want_along; a < vc; a *= 2)
    if (vc % a == 0) alongs.push_back(a);
  // Layouts: pads that keep the fragment reads (rd elements along K)
  // aligned, and rotation swizzles of unpadded rows. The reads decide first:
  // the copy's orders and store widths are searched only for the two
  // smallest pads and the two smallest swizzles with the fewest read
  // conflicts, and for the plain unpadded layout (which always fits in LDS).
  const int rd = c_.mfma->ab_width;
  struct PadReads {
    int64_t pad;
    int64_t swizzle;
    LdsTraffic reads;
  };
  std::vector<PadReads> pads;
  std::vector<std::pair<int64_t, int64_t>> layouts;  // (pad, swizzle)
  // Pads step by the read's width, at most 16 bytes (a 32-byte fp8 f8f6f4
  // fragment is read as two 16-byte ds_read_b128, which a 16-byte pad keeps
  // aligned), always whole dwords.
  const int64_t pad_step = std::min<int64_t>(rd, std::max<int64_t>(4 / eb, 16 / eb));
  for (int64_t pad = 0; pad <= 16; pad += pad_step) layouts.push_back({pad, 0});
  // Swizzles (unpadded rows): every element of a stored vector must share the
  // rotation, so a vector down the rows (transposed staging) needs d % vec == 0.
  if (c_.bk / rd >= 2)
    for (int64_t d = 1; d <= 8; d *= 2)
      if (base.vec_along_k || d % base.vec == 0) layouts.push_back({0, d});
  for (const auto& [pad, swizzle] : layouts) {
    GemmOperandPlan p = base;
    p.pad = pad;
    p.swizzle = swizzle;
    p.lanes_along = vc;
    absl::StatusOr<LdsTraffic> reads = ReadTraffic(s, p);
    if (!reads.ok()) return reads.status();
    pads.push_back({pad, swizzle, *reads});
  }
  int64_t fewest = pads[0].reads.conflicts;
  for (const PadReads& pr : pads) fewest = std::min(fewest, pr.reads.conflicts);
  std::vector<PadReads> keep;
  int kept_pads = 0, kept_swizzles = 0;
  for (const PadReads& pr : pads) {  // pads ascending, then swizzles ascending
    int& kept = pr.swizzle > 0 ? kept_swizzles : kept_pads;
    if ((pr.pad == 0 && pr.swizzle == 0) || (pr.reads.conflicts == fewest && kept < 2)) {
      keep.push_back(pr);
      if (pr.reads.conflicts == fewest) ++kept;
    }
  }

  std::vector<Candidate> cands;
  for (const PadReads& pr : keep) {
    const int64_t pad = pr.pad;
    const int64_t pitch = c_.bk + pad;
    std::vector<int> lds_vecs;
    if (base.vec_along_k && base.vec > 1) {
      // A swizzled row keeps each chunk (rd elements) contiguous, no more.
      for (int v = base.vec; v >= 2; v /= 2)
        if (pitch % v == 0 && (pr.swizzle == 0 || v <= rd)) lds_vecs.push_back(v);
    } else {
      lds_vecs.push_back(base.vec);
    }
    if (lds_vecs.empty()) continue;
    GemmOperandPlan p = base;
    p.pad = pad;
    p.swizzle = pr.swizzle;
    p.fragment_reads = pr.reads;
    for (int lv : lds_vecs) {
      for (int64_t along : alongs) {
        GemmOperandPlan q = p;
        q.lds_vec = lv;
        q.lanes_along = along;
        absl::Status st = AppendCandidate(q, WriteTraffic(s, q), want_along, cands);
        if (!st.ok()) return st;
      }
    }
  }
  if (cands.empty())
    return absl::InternalError(absl::StrCat("no LDS layout for ", s.arg->name));
  auto by_key = [](const Candidate& x, const Candidate& y) { return x.Key() < y.Key(); };
  std::stable_sort(cands.begin(), cands.end(), by_key);
  // Line orders for the best few candidates whose writes still conflict: a
  // write cycle serves G lanes = G / lanes_along consecutive lines; swapping
  // a bit below log2 of that with one above it (and below log2 of the lines
  // one wave copies, so the wave still reads the same lines) changes which
  // lines share a cycle. Lines are counted in powers of two only.
  const int64_t eo = base.vec_along_k ? s.block : c_.bk;
  std::vector<Candidate> more;
  for (size_t i = 0; i < cands.size() && i < 1; ++i) {
    const Candidate& cand = cands[i];
    const GemmOperandPlan& q = cand.plan;
    if (q.tile_writes.conflicts == 0 || (eo & (eo - 1)) != 0 || q.lanes_along != vc ||
        64 % vc != 0)
      continue;
    const int store_bytes = static_cast<int>((q.vec_along_k ? q.lds_vec : 1) * eb);
    const int64_t group_lines = LdsLanesPerCycle(store_bytes, t_.lds_banks) / q.lanes_along;
    const int64_t wave_lines = std::min<int64_t>(eo, 64 / q.lanes_along);
    for (int x = 0; (int64_t{1} << x) < group_lines; ++x) {
      for (int y = x + 1; (int64_t{1} << y) < wave_lines; ++y) {
        if ((int64_t{1} << y) < group_lines) continue;
        GemmOperandPlan r = q;
        r.swap_lo = x;
        r.swap_hi = y;
        absl::StatusOr<LdsTraffic> writes = WriteTraffic(s, r);
        if (!writes.ok()) return writes.status();
        if (writes->cycles >= q.tile_writes.cycles) continue;
        r.tile_writes = *writes;
        Candidate better = cand;
        better.plan = r;
        more.push_back(std::move(better));
        if (r.tile_writes.conflicts == 0) break;
      }
      if (!more.empty() && more.back().plan.tile_writes.conflicts == 0) break;
    }
  }
  cands.insert(cands.end(), more.begin(), more.end());
  std::stable_sort(cands.begin(), cands.end(), by_key);
  // K-major staging read by load_tr, when the bank model counts no more
  // fragment-read conflicts (the first criterion, as in Candidate::Key), no
  // more DS instructions and cycles per K tile (fragment reads + tile
  // writes) and fewer of one, and its copy is as coalesced.
  absl::StatusOr<std::vector<Candidate>> tr = TrCandidates(s, base, alongs, want_along);
  if (!tr.ok()) return tr.status();
  if (!tr->empty()) {
    const GemmOperandPlan& x = tr->front().plan;
    const GemmOperandPlan& y = cands.front().plan;
    const int64_t xi = x.fragment_reads.instructions + x.tile_writes.instructions;
    const int64_t yi = y.fragment_reads.instructions + y.tile_writes.instructions;
    const int64_t xc = x.fragment_reads.cycles + x.tile_writes.cycles;
    const int64_t yc = y.fragment_reads.cycles + y.tile_writes.cycles;
    if (x.fragment_reads.conflicts <= y.fragment_reads.conflicts &&
        tr->front().coalesced >= cands.front().coalesced && xi <= yi && xc <= yc && (xi < yi || xc < yc))
      cands = std::move(*tr);
  }
  (s.is_b ? b_cands_ : a_cands_) = std::move(cands);
  return absl::OkStatus();
}

bool Promoter::TrEligible(const Side& s) const {
  if (!c_.load_tr || c_.lds_dma || !t_.has_ds_read_tr_b16 || ElemBytes(s.arg->elem) != 2) return false;
  const MfmaDesc& m = *c_.mfma;
  const int64_t rows = s.is_b ? m.n : m.m;
  const int rdim = s.k_major ? 1 : 0;
  return s.arg->strides[rdim] == 1 && s.arg->strides[1 - rdim] != 1 && m.ab_width % 4 == 0 &&
         m.ab_width <= 8 && rows % 16 == 0 && s.block % 4 == 0;
}

std::vector<IndexRef> Promoter::FragmentIndexTr(const Side& s, const GemmOperandPlan& p,
                                                const IndexRef& stage, int64_t i, int64_t step,
                                                int64_t half) const {
  (void)p;
  const MfmaDesc& m = *c_.mfma;
  const int64_t rows = s.is_b ? m.n : m.m;
  // Lane l of 16-lane group g supplies row e = (l mod 16) floordiv 4 (k)
  // and columns 4 * (l mod 4) .. + 3 (rows of the tile) of the group's 4 x 16
  // matrix; lane 16g + j receives column j, i.e. tile row 16 * (g mod
  // (R / 16)) + j, elements k .. k + 3.
  IndexRef r = Add(Add(Mul(WaveIdx(s), s.block / s.waves), i * rows), Mul(Mod(ITid(0), 4), 4));
  if (rows > 16) r = Add(r, Mul(Mod(Div(ITid(0), 16), rows / 16), 16));
  IndexRef kk = Add(Add(IConst(step * m.k + 4 * half), Mul(Div(ITid(0), rows), m.ab_width)),
                    Div(Mod(ITid(0), 16), 4));
  return LdsIndex(stage, std::move(kk), std::move(r));
}

std::string Promoter::EmitFragmentTr(KernelBuilder& b, const Side& s, const IndexRef& stage, int64_t i,
                                     int64_t step, const std::string& name) const {
  const MfmaDesc& m = *c_.mfma;
  const ValueType block{s.arg->elem, 4};
  if (m.ab_width == 4) return b.LoadTr(s.plan.lds, FragmentIndexTr(s, s.plan, stage, i, step, 0), block, -1, name);
  std::string lo = b.LoadTr(s.plan.lds, FragmentIndexTr(s, s.plan, stage, i, step, 0), block, -1, name + "_lo");
  std::string hi = b.LoadTr(s.plan.lds, FragmentIndexTr(s, s.plan, stage, i, step, 1), block, -1, name + "_hi");
  return b.Concat(lo, hi, {s.arg->elem, m.ab_width}, name);
}

void Promoter::EmitCopyStoresTr(KernelBuilder& b, const Side& s, const IndexRef& stage,
                                const std::vector<std::string>& vals) const {
  const GemmOperandPlan& p = s.plan;
  MemOpOptions o;
  o.along = LdsRank() - 1;
  for (int64_t i = 0; i < p.copies; ++i) {
    Coord c = CopyCoord(s, p, i);
    b.Store(p.lds, LdsIndex(stage, c.kk, c.r), vals[i], o);
  }
}

// As ReadTraffic without a swizzle: tile, k-step and wave offsets move every
// lane's block by one multiple of 4 bytes (rows by 16 elements, k by whole
// rows of an even pitch).
absl::StatusOr<LdsTraffic> Promoter::ReadTrafficTr(const Side& s, const GemmOperandPlan& p) const {
  Kernel probe = ProbeKernel(s, p);
  Op rd;
  rd.kind = OpKind::kLoad;
  rd.tr = true;
  rd.mem = p.lds;
  rd.along = LdsRank() - 1;
  LdsTraffic t;
  for (int64_t half = 0; half < c_.mfma->ab_width / 4; ++half) {
    rd.index = FragmentIndexTr(s, p, Stage(0), 0, 0, half);
    absl::StatusOr<LdsTraffic> one = LdsOpTraffic(probe, rd, {s.arg->elem, 4}, {{"k", 0}}, t_.lds_banks, 0, 1);
    if (!one.ok()) return one.status();
    t += *one;
  }
  const int64_t n = s.tiles * c_.KSteps() * c_.wm * c_.wn;
  t.instructions *= n;
  t.cycles *= n;
  t.conflicts *= n;
  return t;
}

absl::StatusOr<LdsTraffic> Promoter::WriteTrafficTr(const Side& s, const GemmOperandPlan& p) const {
  Kernel probe = ProbeKernel(s, p);
  const IndexRef stage = c_.double_buffer ? Stage(1) : nullptr;
  LdsTraffic t;
  for (int64_t i = 0; i < p.copies; ++i) {
    Coord c = CopyCoord(s, p, i);
    Op st;
    st.kind = OpKind::kStore;
    st.mem = p.lds;
    st.index = LdsIndex(stage, c.kk, c.r);
    st.along = LdsRank() - 1;
    absl::StatusOr<LdsTraffic> one =
        LdsOpTraffic(probe, st, {s.arg->elem, p.vec}, {{"k", 0}}, t_.lds_banks, 0, -1);
    if (!one.ok()) return one.status();
    t += *one;
  }
  return t;
}

absl::StatusOr<std::vector<Candidate>> Promoter::TrCandidates(const Side& s, const GemmOperandPlan& base,
                                                              const std::vector<int64_t>& alongs,
                                                              int64_t want_along) const {
  std::vector<Candidate> cands;
  if (!TrEligible(s) || base.vec_along_k || base.vec < 4) return cands;
  // Pads keep every row's blocks 8-byte aligned and its stored vectors
  // aligned; up to 64 elements (128 bytes: a 32-lane group of a b64 read
  // spans 4 rows, whose banks a pitch of 16 mod 64 dwords keeps apart, e.g.
  // 128 + 32 elements).
  const int64_t pad_step = std::max<int64_t>(4, base.vec);
  for (int64_t pad = 0; pad <= 64; pad += pad_step) {
    for (int64_t along : alongs) {
      GemmOperandPlan q = base;
      q.tr = true;
      q.pad = pad;
      q.lds_vec = base.vec;
      q.lanes_along = along;
      absl::StatusOr<LdsTraffic> reads = ReadTrafficTr(s, q);
      if (!reads.ok()) return reads.status();
      q.fragment_reads = *reads;
      absl::Status st = AppendCandidate(q, WriteTrafficTr(s, q), want_along, cands);
      if (!st.ok()) return st;
    }
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Candidate& x, const Candidate& y) { return x.Key() < y.Key(); });
  return cands;
}

absl::StatusOr<GemmPlan> Promoter::Plan() {
  absl::Status s = ChooseLayout(a_);
  if (!s.ok()) return s;
  a_.plan.lds = a_cands_[0].plan.lds;
  s = ChooseLayout(b_);
  if (!s.ok()) return s;
  // The best pair that fits in LDS (pad 0 always does: the validator checked).
  bool found = false;
  std::tuple<int64_t, int, int64_t, int64_t, int> best;
  for (const Candidate& ca : a_cands_) {
    for (const Candidate& cb : b_cands_) {
      if (PlanLdsBytes(ca.plan, cb.plan) > t_.lds_bytes) continue;
      auto key = std::make_tuple(ca.plan.fragment_reads.conflicts + cb.plan.fragment_reads.conflicts,
                                 (ca.coalesced ? 0 : 1) + (cb.coalesced ? 0 : 1),
                                 ca.plan.tile_writes.cycles + cb.plan.tile_writes.cycles,
                                 ca.plan.pad + cb.plan.pad,
                                 (ca.plan.swizzle > 0 ? 1 : 0) + (cb.plan.swizzle > 0 ? 1 : 0));
      if (!found || key < best) {
        found = true;
        best = key;
        a_.plan = ca.plan;
        b_.plan = cb.plan;
      }
      break;  // later B candidates only cost more with this A candidate
    }
  }
  if (!found) return absl::InternalError("no LDS layout fits");
  GemmPlan plan;
  plan.config = c_;
  plan.a = a_.plan;
  plan.b = b_.plan;
  plan.lds_bytes = PlanLdsBytes(a_.plan, b_.plan);
  return plan;
}

std::string OperandSummary(const char* name, ElemType elem, const GemmConfig& c,
                           const GemmOperandPlan& p, int64_t rows) {
  const int64_t outer = p.tr ? c.bk : rows, inner = p.tr ? rows : c.bk;
  std::string shape = c.double_buffer ? absl::StrCat("[2, ", outer, ", ", inner, "]")
                                      : absl::StrCat("[", outer, ", ", inner, "]");
  return absl::StrCat(
      name, ": ", Elem(elem), p.vec > 1 ? absl::StrCat("x", p.vec) : "", " loads along ",
      p.vec_along_k ? "K" : (name[0] == 'A' ? "M" : "N"), ", ", p.copies, " per thread, ",
      p.lanes_along, " lane(s) along a line",
      p.swap_lo >= 0 ? absl::StrCat(", line order swaps bits ", p.swap_lo, " and ", p.swap_hi)
                     : "",
      "; LDS ", p.lds, " ", shape, " pad ", p.pad,
      p.swizzle > 0 ? absl::StrCat(" swizzled by row floordiv ", p.swizzle) : "",
      p.tr ? absl::StrCat(" (K-major), stores ", Elem(elem), "x", p.lds_vec, ", fragments by load_tr")
      : p.dma ? ", copied by lds_dma (no stores)"
      : p.vec_along_k ? absl::StrCat(", stores ", Elem(elem),
                                     p.lds_vec > 1 ? absl::StrCat("x", p.lds_vec) : "")
                      : ", stores transposed (one element per ds_write)",
      "; per K tile: fragment reads ", p.fragment_reads.instructions, " instr ",
      p.fragment_reads.cycles, " cycles ", p.fragment_reads.conflicts, " conflict cycles, writes ",
      p.tile_writes.instructions, " instr ", p.tile_writes.cycles, " cycles ",
      p.tile_writes.conflicts, " conflict cycles");
}

absl::StatusOr<Promoter> MakePromoter(const Kernel& k, const TargetInfo& t) {
  const Op* op = FindGemm(k);
  if (op == nullptr) return absl::InvalidArgumentError("the kernel has no gemm op");
  absl::Status v = ValidateKernel(k, t);
  if (!v.ok()) return v;
  absl::StatusOr<GemmConfig> c = ResolveGemm(k, *op, t);
  if (!c.ok()) return c.status();
  return Promoter(k, *op, t, *std::move(c));
}

}  // namespace

std::string GemmPlan::Summary() const {
  return absl::StrCat(config.TilingText(), "; LDS ", lds_bytes, " bytes\n",
                      OperandSummary("A", config.a_elem, config, a, config.bm), "\n",
                      OperandSummary("B", config.b_elem, config, b, config.bn), "\n");
}

absl::StatusOr<GemmPlan> PlanGemm(const Kernel& k, const TargetInfo& t) {
  absl::StatusOr<Promoter> p = MakePromoter(k, t);
  if (!p.ok()) return p.status();
  return p->Plan();
}

absl::StatusOr<Kernel> PromoteGemm(const Kernel& k, const TargetInfo& t) {
  if (!HasGemm(k)) return k;
  absl::StatusOr<Promoter> p = MakePromoter(k, t);
  if (!p.ok()) return p.status();
  absl::StatusOr<GemmPlan> plan = p->Plan();
  if (!plan.ok()) return plan.status();
  return p->Emit();
}

absl::StatusOr<Kernel> PromoteGemm(const Kernel& k, const TargetInfo& t, const GemmConfig& config,
                                   absl::string_view filename) {
  const Op* op = FindGemm(k);
  if (op == nullptr) return absl::InvalidArgumentError("the kernel has no gemm op");
  Promoter promoter(k, *op, t, config);
  absl::StatusOr<GemmPlan> plan = promoter.Plan();
  if (!plan.ok()) return plan.status();
  absl::StatusOr<Kernel> p = promoter.Emit();
  if (!p.ok()) return p.status();
  // The promoted kernel is thread-level KIR that must validate: if it does
  // not, promotion has a bug.
  absl::Status v = ValidateKernel(*p, t, filename);
  if (!v.ok())
    return absl::InternalError(absl::StrCat("internal error: the promoted gemm kernel '", k.name,
                                            "' does not validate (a kirc bug; please report it): ",
                                            v.message()));
  return p;
}

absl::StatusOr<Kernel> ValidateAndPromote(const Kernel& k, const TargetInfo& t,
                                          absl::string_view filename) {
  GemmConfig config;
  absl::Status v = ValidateKernel(k, t, filename, &config);
  if (!v.ok()) return v;
  if (!HasGemm(k)) return k;
  return PromoteGemm(k, t, config, filename);
}

}  // namespace kir
