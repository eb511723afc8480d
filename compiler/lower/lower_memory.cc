// Loads and stores: global buffers through MUBUF (buffer_*) with an SRD per
// argument, LDS through ds_*; the widest access the proven alignment allows;
// guarded accesses by an out-of-range voffset (buffers) or EXEC (LDS).
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/semantics.h"
#include "compiler/lower/lower_internal.h"

namespace kir {
namespace {

constexpr uint32_t kOutOfRange = 0x80000000u;  // voffset no buffer reaches (sizes < 2^31)

// One instruction's share of a vector access.
struct Chunk {
  int first_elem = 0;
  int num_elems = 1;
  int64_t byte_offset = 0;  // from element 0's address
  int bytes = 4;            // 2, 4, 8 or 16
  int dword = 0;            // first register of the value tuple
  int half = 0;             // 16-bit chunks: 0 low half, 1 high half
  int pos = 0;              // 8-bit chunks (fp8): the byte within the dword, 0..3
};

struct MemAccess {
  bool is_lds = false;
  ElemType elem = ElemType::kF32;
  int eb = 4;
  int width = 1;
  int along = 0;
  std::vector<int64_t> shape, strides;
  std::vector<AffineForm> idx;
  AffineForm base;  // byte offset of element 0 (LDS: including the allocation's offset)
  std::vector<Chunk> chunks;
};

// 8-bit (fp8) accesses work like 16-bit ones: buffer_load_ubyte /
// ds_read_u8 zero-extend into a whole VGPR, so byte 0 of a dword is loaded
// in place and bytes 1..3 into temporaries merged with v_lshl_or_b32 (a
// shift of 8 * byte); a store of byte 1..3 shifts it down into a temporary
// first (buffer_store_byte / ds_write_b8 store bits 7:0). The byte forms
// with d16_hi would cover byte 2 only.
// 16-bit loads zero-extend into a whole VGPR (buffer_load_ushort,
// ds_read_u16); an element in the high half of a dword is loaded into a
// temporary and merged with v_lshl_or_b32 (MergeHighHalves). The D16 forms
// (buffer_load_short_d16[_hi], ds_read_u16_d16[_hi]) would keep the other
// half only with SRAM ECC off: with ECC on they write the whole VGPR and
// zero the other half, and a code object for "sramecc any" (kirc's default)
// must be right both ways (LLVM GCNSubtarget::d16PreservesUnusedBits is
// false for sramecc on or any; found by cross-checking with rocjitsu,
// hw/rocjitsu/SEMANTICS.md).
Opc LoadOpc(bool lds, int bytes) {
  switch (bytes) {
    case 16:
      return lds ? Opc::kDsReadB128 : Opc::kBufferLoadDwordx4;
    case 8:
      return lds ? Opc::kDsReadB64 : Opc::kBufferLoadDwordx2;
    case 4:
      return lds ? Opc::kDsReadB32 : Opc::kBufferLoadDword;
    case 2:
      return lds ? Opc::kDsReadU16 : Opc::kBufferLoadUshort;
    default:
      return lds ? Opc::kDsReadU8 : Opc::kBufferLoadUbyte;
  }
}

Opc StoreOpc(bool lds, int bytes, int half) {
  switch (bytes) {
    case 16:
      return lds ? Opc::kDsWriteB128 : Opc::kBufferStoreDwordx4;
    case 8:
      return lds ? Opc::kDsWriteB64 : Opc::kBufferStoreDwordx2;
    case 4:
      return lds ? Opc::kDsWriteB32 : Opc::kBufferStoreDword;
    case 2:
      if (lds) return half ? Opc::kDsWriteB16D16Hi : Opc::kDsWriteB16;
      return half ? Opc::kBufferStoreShortD16Hi : Opc::kBufferStoreShort;
    default:  // 1 byte: the caller shifts bytes 1..3 down first
      return lds ? Opc::kDsWriteB8 : Opc::kBufferStoreByte;
  }
}

// The part of a non-negative MUBUF byte offset above the 12-bit instruction
// offset field (kMubufMaxOffset), which goes to voffset or soffset.
int64_t MubufHighOffset(int64_t off) { return off & ~kMubufMaxOffset; }

// The part of a non-negative LDS byte offset that a DS instruction's 16-bit
// offset field (kDsMaxOffset) cannot hold for every access of a group (`span` bytes past
// the first): a multiple of 64 KiB when the rest fits beside it, so the
// accesses of one allocation share one base register per 64 KiB; else all
// of it; 0 when it fits as it is.
int64_t DsHighOffset(int64_t off, int64_t span) {
  if (off + span <= kDsMaxOffset) return 0;
  const int64_t hi = off & ~kDsMaxOffset;
  return off - hi + span <= kDsMaxOffset ? hi : off;
}

AffineForm Part(const AffineForm& f, bool uniform) {
  AffineForm p;
  for (const AffineTerm& t : f.terms)
    if (t.atom->uniform == uniform) p.terms.push_back(t);
  return p;
}

}  // namespace

static absl::StatusOr<MemAccess> PlanAccess(LowerCtx& c, const Op& op, ValueType vt) {
  MemAccess a;
  a.width = vt.width;
  a.along = op.along;
  if (const Arg* arg = c.k_.FindArg(op.mem)) {
    a.elem = arg->elem;
    a.shape = arg->shape;
    a.strides = arg->strides;
  } else if (const LdsAlloc* l = c.k_.FindLds(op.mem)) {
    a.is_lds = true;
    a.elem = l->elem;
    a.shape = l->shape;
    a.strides = l->Strides();
  } else {
    return c.Error(op, absl::StrCat("unknown memory '", op.mem, "'"));
  }
  a.eb = ElemBytes(a.elem);
  a.base = AffineConst(a.is_lds ? c.lds_offset_.at(op.mem) : 0);
  for (size_t d = 0; d < op.index.size(); ++d) {
    absl::StatusOr<AffineForm> f = Affine(*op.index[d], c.scope_);
    if (!f.ok()) return c.Error(op, std::string(f.status().message()));
    a.idx.push_back(*f);
    a.base = AffineAdd(a.base, AffineScale(*f, a.strides[d] * a.eb));
  }
  int64_t along_stride = a.strides[a.along];
  if (along_stride == 1 && a.width > 1) {
    int64_t total = int64_t{a.width} * a.eb;
    int64_t chunk = std::min<int64_t>(std::min<int64_t>(16, total), a.base.KnownAlignment());
    if (chunk < std::min<int64_t>(a.eb, 4) || (chunk < 4 && total > 2))
      return c.Error(op, absl::StrCat("the address is only known to be ", chunk,
                                      "-byte aligned; a ", total, "-byte vector access needs ",
                                      std::min<int64_t>(total, 16)));
    for (int64_t off = 0; off < total; off += chunk) {
      Chunk ch;
      ch.first_elem = static_cast<int>(off / a.eb);
      ch.num_elems = static_cast<int>(chunk / a.eb);
      ch.byte_offset = off;
      ch.bytes = static_cast<int>(chunk);
      ch.dword = static_cast<int>(off / 4);
      ch.pos = static_cast<int>(off % 4);
      ch.half = ch.bytes == 2 ? ch.pos / 2 : 0;
      a.chunks.push_back(ch);
    }
  } else {
    for (int e = 0; e < a.width; ++e) {
      Chunk ch;
      ch.first_elem = e;
      ch.byte_offset = int64_t{e} * along_stride * a.eb;
      ch.bytes = a.eb;
      ch.dword = e * a.eb / 4;
      ch.half = a.eb == 2 ? e % 2 : 0;
      ch.pos = e * a.eb % 4;
      a.chunks.push_back(ch);
    }
  }
  return a;
}

// The lane mask "all dimensions in shape" for `elem_shift` added to the index
// along `along`; nullopt = statically true (and for an unguarded access),
// -1 = statically false. The per-dimension compares and their conjunctions
// come from LowerCtx::GuardCompare and GuardAnd, so the elements of one
// access, and neighbouring accesses, share them.
static absl::StatusOr<std::optional<int>> GuardMask(LowerCtx& c, const Op& op, const MemAccess& a,
                                                    int elem_shift) {
  if (!op.guarded) return std::optional<int>();
  int mask = -2;
  for (size_t d = 0; d < a.idx.size(); ++d) {
    AffineForm f = a.idx[d];
    if (static_cast<int>(d) == a.along) f = AffineAdd(f, AffineConst(elem_shift));
    Interval r = f.Range();
    if (r.lo >= 0 && r.hi < a.shape[d]) continue;
    if (r.IsConst()) return std::optional<int>(-1);
    if (r.lo < -(int64_t{1} << 31) || r.hi >= (int64_t{1} << 31))
      return c.Error(op, absl::StrCat("index ", d, " ('", IndexToString(*op.index[d]), "'",
                                      elem_shift != 0 ? absl::StrCat(" + ", elem_shift, " for element ", elem_shift) : "",
                                      ") ranges over [", r.lo, ", ", r.hi, "], beyond 32 bits"));
    absl::StatusOr<int> m = c.GuardCompare(f, a.shape[d]);
    if (!m.ok()) return m.status();
    mask = mask == -2 ? *m : c.GuardAnd(mask, *m);
  }
  if (mask == -2) return std::optional<int>();
  return std::optional<int>(mask);
}

namespace {

// Operands of one buffer instruction: voffset (or none), soffset, inst offset.
struct BufAddr {
  std::optional<MOperand> voffset;
  MOperand soffset = MOperand::Imm(0);
  int64_t offset = 0;
};

}  // namespace

// A 16-bit element loaded into temporary `tmp` for the high half of dword
// `dword` of the value tuple (LoadOpc).
struct HalfMerge {
  int dword, tmp;
  int shift = 16;  // bits: 16 for a high half, 8 * byte for an fp8 byte
};

// Emits one memory instruction for `ch`; `data` is the value tuple's vreg.
// A 16-bit load of a high half goes to a fresh VGPR, recorded in `merges`.
static void EmitChunk(LowerCtx& c, const Op& op, const MemAccess& a, const Chunk& ch, bool store,
                      int data, int srd, const BufAddr* buf, const MOperand* lds_addr,
                      int64_t lds_offset, std::vector<HalfMerge>* merges) {
  int dwords = std::max(1, ch.bytes / 4);
  MOperand reg = MirBuilder::V(data, ch.dword, dwords);
  if (!store && ((ch.bytes == 2 && ch.half) || (ch.bytes == 1 && ch.pos))) {
    int tmp = c.b_.NewV();
    merges->push_back({ch.dword, tmp, 8 * ch.pos});
    reg = MirBuilder::V(tmp);
  }
  if (store && ch.bytes == 1 && ch.pos) {  // byte 1..3: shift it down to bits 7:0
    int tmp = c.b_.Valu(Opc::kVLshrrevB32, {MOperand::Imm(8 * ch.pos), MirBuilder::V(data, ch.dword)});
    reg = MirBuilder::V(tmp);
  }
  Opc opc = store ? StoreOpc(a.is_lds, ch.bytes, ch.half) : LoadOpc(a.is_lds, ch.bytes);
  if (op.tr) opc = Opc::kDsReadB64TrB16;  // LowerLoad checked: one 8-byte LDS chunk
  MInst* mi;
  if (a.is_lds) {
    if (store)
      mi = &c.b_.Emit(opc, {*lds_addr, reg});
    else
      mi = &c.b_.Emit(opc, {reg, *lds_addr});
    mi->offset = lds_offset;
  } else {
    MOperand vaddr = buf->voffset ? *buf->voffset : MOperand::Imm(0);
    mi = &c.b_.Emit(opc, {reg, vaddr, MirBuilder::S(srd, 0, 4), buf->soffset});
    mi->offen = buf->voffset.has_value();
    mi->offset = buf->offset;
  }
  AccessRecord rec;
  rec.inst_id = mi->id;
  rec.kir_op = c.cur_op_;
  rec.mem = op.mem;
  rec.is_lds = a.is_lds;
  rec.is_store = store;
  rec.guarded = op.guarded;
  rec.element_bytes = a.eb;
  for (int e = 0; e < ch.num_elems; ++e) rec.elements.push_back(ch.first_elem + e);
  c.out_.access_map.push_back(std::move(rec));
}

// data[dword] |= tmp << 16 for each high-half load of a group, after all of
// its loads (one wait for all), under the same EXEC as the loads. The low
// half's load zero-extended, or the dword was zeroed before (guarded LDS).
static void MergeHighHalves(LowerCtx& c, int data, std::vector<HalfMerge>& merges) {
  for (const HalfMerge& m : merges)
    c.b_.ValuTo(Opc::kVLshlOrB32, MirBuilder::V(data, m.dword),
                {MirBuilder::V(m.tmp), MOperand::Imm(m.shift), MirBuilder::V(data, m.dword)});
  merges.clear();
}

namespace {

// A buffer access of kWideBufferBytes or more, element 0's byte offset
// split: start (uniform, 64-bit: the SRD's window begins there) + soffset
// (uniform, 32-bit, >= 0: the loop-dependent terms and the constant, when
// they fit, so accesses of one loop nest and neighbouring constants share a
// window built once) + voffset (per lane, in [0, vhi]); `window` bytes from
// the start hold every chunk of every lane for every soffset.
struct WidePlan {
  AffineForm start, soffset, voffset;
  int64_t vhi = 0;
  int64_t window = 0;
  // The elements of a vector along a strided dimension lie too far apart
  // for one window while one element's lanes fit: each element is accessed
  // through a window of its own (the rest of the plan is not set).
  bool split_elements = false;
};

absl::StatusOr<WidePlan> PlanWide(LowerCtx& c, const Op& op, const MemAccess& a) {
  WidePlan p;
  // A floordiv mixing wg and tid terms: its uniform quotient to the start,
  // only the lanes' small difference to voffset (fresh-user review 11 F1:
  // X[(wg.x * 64 + tid.x) floordiv 3] of a 2.4 GB X).
  const AffineForm base = SplitUniformDivs(a.base);
  p.voffset = Part(base, false);
  int64_t vmin = 0;
  if (!p.voffset.terms.empty()) {
    Interval vr = p.voffset.Range();
    vmin = vr.lo;
    p.vhi = vr.hi - vr.lo;
  }
  p.voffset.constant = -vmin;
  p.start = Part(base, true);
  p.start.constant = base.constant + vmin;
  int64_t reach = 0;
  for (const Chunk& ch : a.chunks) reach = std::max(reach, ch.byte_offset + ch.bytes);
  if (a.width > 1 && a.strides[a.along] != 1)  // guarded element by element: each element's chunk
    reach = std::max(reach, int64_t{a.width - 1} * a.strides[a.along] * a.eb + a.eb);
  p.window = p.vhi + reach;
  // The loop-dependent terms and the constant to soffset when they are never
  // negative and the window stays within 2^31 bytes.
  AffineForm inv, dep;
  inv.constant = 0;
  dep.constant = p.start.constant;
  for (const AffineTerm& t : p.start.terms) (c.DependsOnLoop(*t.atom) ? dep : inv).terms.push_back(t);
  // The rest must then never be negative: a window clamped to the buffer's
  // start carries its (negative) start in the lanes' voffsets, which soffset
  // would not offset (found by review: A[tid.x + 256 - wg.x * 64]).
  const Interval dr = dep.Range();
  if (dr.lo >= 0 && (inv.terms.empty() || inv.Range().lo >= 0) && p.window + dr.hi <= kWideBufferBytes &&
      (!dep.terms.empty() || dep.constant != 0)) {
    p.start = inv;
    p.soffset = dep;
    p.window += dr.hi;
  }
  // Out-of-shape lanes get voffset 0x80000000, out of range only while
  // num_records <= 2^31; unguarded ones keep voffset + offset below 2^31.
  // A vector along a strided dimension whose elements alone span more than a
  // window (the threads' own part fits): each element takes a window of its
  // own (EmitWideAccess), as the same access written element by element
  // does (fresh-user review 11 F4: Y[0, tid.x] along 0 of rows 2.4 GB apart
  // was refused).
  if (p.window > kWideBufferBytes && a.width > 1 && a.strides[a.along] != 1 &&
      p.window - reach + a.eb <= kWideBufferBytes) {
    p.split_elements = true;
    return p;
  }
  if (p.window > kWideBufferBytes) {
    // Name the per-lane term that spans the most bytes, as the user wrote it.
    const AffineTerm* widest = nullptr;
    __int128 widest_bytes = -1;
    for (const AffineTerm& t : p.voffset.terms) {
      const __int128 w = static_cast<__int128>(t.atom->range.hi - t.atom->range.lo) * (t.coeff < 0 ? -t.coeff : t.coeff);
      if (w > widest_bytes) widest_bytes = w, widest = &t;
    }
    const bool exact = p.voffset.RangeIsExact();
    std::string term;
    if (widest != nullptr) {
      const Atom& at = *widest->atom;
      const std::string name = at.source.empty() ? at.key : at.source;
      term = absl::StrCat("; its widest per-thread term, ", widest->coeff, " * '", name, "' over [", at.range.lo,
                          ", ", at.range.hi, "], spans ",
                          static_cast<int64_t>(std::min<__int128>(widest_bytes, int64_t{1} << 62)), " bytes",
                          at.kind == Atom::Kind::kMod
                              ? " (a mod is bounded by its divisor only: kirc does not prove that the lanes' "
                                "values lie closer)"
                              : "");
    }
    return c.Error(
        op, absl::StrCat("the threads of a workgroup ", exact ? "reach " : "may reach (kirc's interval bound) ",
                         p.window, " bytes apart in ", op.mem,
                         " in this access (the per-thread part of the address: its tid.x/y/z terms, and the "
                         "floordiv/mod/products that read them, plus the access's own bytes)",
                         term,
                         "; kirc's buffer windows hold at most 2^31 bytes per workgroup: index nearby elements "
                         "from neighbouring threads, split the workgroup's rows across workgroups, or take the "
                         "wg ids out of a mod with a large divisor (kirc itself splits a floordiv of wg and tid "
                         "terms into the workgroup's quotient and the threads' small rest)"));
  }
  return p;
}

}  // namespace

absl::StatusOr<WideSrdVal> LowerCtx::WideSrd(const std::string& arg, const AffineForm& start, int64_t window) {
  const std::string key = absl::StrCat("srd ", arg, " (", start.Key(), ") ", window);
  auto it = wide_srd_cache_.find(key);
  if (it != wide_srd_cache_.end()) return it->second;
  const int64_t size = k_.FindArg(arg)->SizeBytes();
  const int ptr = Srd(arg);  // the pointer, dword 1 masked to its 16 address bits
  absl::StatusOr<IVal64> s = EmitAffine64(start);
  if (!s.ok()) return s.status();
  WideSrdVal w;
  IVal64 cs = *s;  // max(start, 0)
  if (s->range.hi < 0) {
    w.delta = s->lo;
    cs = IVal64{IVal{IVal::Kind::kConst, 0, -1}, IVal{IVal::Kind::kConst, 0, -1}, Interval{0, 0}};
  } else if (s->range.lo < 0) {
    // A guarded access whose first element may lie before the buffer (a
    // halo, index - 1): the window starts at the buffer and each lane's
    // voffset adds start (< 0), so in-shape lanes keep their addresses.
    b_.Emit(Opc::kSCmpLtI32, {s->hi.Op(), MOperand::Imm(0)});
    IVal zero{IVal::Kind::kConst, 0, -1};
    cs.lo = IVal{IVal::Kind::kSgpr, 0, b_.Salu(Opc::kSCselectB32, {zero.Op(), s->lo.Op()})};
    cs.hi = IVal{IVal::Kind::kSgpr, 0, b_.Salu(Opc::kSCselectB32, {zero.Op(), s->hi.Op()})};
    w.delta = IVal{IVal::Kind::kSgpr, 0, b_.Salu(Opc::kSCselectB32, {s->lo.Op(), zero.Op()})};
    cs.range = Interval{0, s->range.hi};
  }
  w.quad = b_.NewS(4, 4);
  const int q = w.quad;
  const uint32_t win = static_cast<uint32_t>(window);
  // Dwords 0-1: pointer + max(start, 0), 64-bit with the carry
  // (amdgcn-isa-notes.md section 4: the base is 48 bits; kMaxBufferBytes
  // keeps it there, so dword 1's stride and swizzle bits stay 0).
  auto emit_base = [&] {
    if (cs.range.IsConst() && cs.range.lo == 0) {
      b_.Emit(Opc::kSMovB32, {MirBuilder::S(q, 0), MirBuilder::S(ptr, 0)});
      b_.Emit(Opc::kSMovB32, {MirBuilder::S(q, 1), MirBuilder::S(ptr, 1)});
    } else {
      b_.Emit(Opc::kSAddU32, {MirBuilder::S(q, 0), MirBuilder::S(ptr, 0), cs.lo.Op()});
      b_.Emit(Opc::kSAddcU32, {MirBuilder::S(q, 1), MirBuilder::S(ptr, 1), cs.hi.Op()});
    }
  };
  // Dword 2: num_records = min(window, size - max(start, 0)), 0 past the end.
  // A start that may lie past the buffer's end (a guarded row past the last)
  // also moves the base back to the pointer there (an empty window at the
  // buffer's start): pointer + start could carry past 2^48 into dword 1's
  // stride field even for a buffer ending at or below 2^48, where the buffer's
  // end itself may be 2^48 (fresh-user review 11 F7).
  // A start equal to the size counts (fresh-user review 15 F4: the row one
  // past the last of a buffer ending at 2^48 put base bit 48 into dword 1's
  // stride field).
  const bool past_end = cs.range.hi >= size;
  if (!past_end) emit_base();
  if (cs.range.hi + window <= size) {
    b_.Emit(Opc::kSMovB32, {MirBuilder::S(q, 2), MOperand::Imm(win)});
  } else {
    const MOperand size_lo = MOperand::Imm(static_cast<uint32_t>(size));
    const MOperand size_hi = MOperand::Imm(static_cast<uint32_t>(size >> 32));
    int rlo = b_.Salu(Opc::kSSubU32, {size_lo, ScalarOperand(cs.lo)});
    int rhi = b_.Salu(Opc::kSSubbU32, {size_hi, ScalarOperand(cs.hi)});
    int t = b_.Salu(Opc::kSMinU32, {MirBuilder::S(rlo), MOperand::Imm(win)});
    // size - max(start, 0) >= 2^32 (high dword non-zero and positive): the whole window.
    b_.Emit(Opc::kSCmpEqU32, {MirBuilder::S(rhi), MOperand::Imm(0)});
    t = b_.Salu(Opc::kSCselectB32, {MirBuilder::S(t), MOperand::Imm(win)});
    if (past_end) {  // the start may lie at or past the end: nothing, and the base at the pointer
      b_.Emit(Opc::kSCmpLtI32, {MirBuilder::S(rhi), MOperand::Imm(0)});
      b_.Emit(Opc::kSCselectB32, {MirBuilder::S(q, 2), MOperand::Imm(0), MirBuilder::S(t)});
      // num_records is 0 exactly when the start is at or past the end (else
      // min(window, size - start) > 0): then the base moves.
      b_.Emit(Opc::kSCmpEqU32, {MirBuilder::S(q, 2), MOperand::Imm(0)});
      cs.lo = IVal{IVal::Kind::kSgpr, 0, b_.Salu(Opc::kSCselectB32, {MOperand::Imm(0), ScalarOperand(cs.lo)})};
      cs.hi = IVal{IVal::Kind::kSgpr, 0, b_.Salu(Opc::kSCselectB32, {MOperand::Imm(0), ScalarOperand(cs.hi)})};
      cs.range = Interval{0, size};
      emit_base();
    } else {
      b_.Emit(Opc::kSMovB32, {MirBuilder::S(q, 2), MirBuilder::S(t)});
    }
  }
  // Dword 3: data_format 4 (32-bit), as Srd().
  b_.Emit(Opc::kSMovB32, {MirBuilder::S(q, 3), MOperand::Imm(0x00020000)});
  wide_srd_cache_[key] = w;
  return w;
}

// A buffer access of kWideBufferBytes or more: one SRD per window (WideSrd)
// shared by the access's instructions, voffset the per-lane part (plus the
// window's negative start, if any), the chunk's byte offset in the
// instruction offset and soffset.
static absl::Status EmitWideAccess(LowerCtx& c, const Op& op, const MemAccess& a, bool store, int data,
                                   const std::vector<std::vector<Chunk>>& groups, bool whole) {
  absl::StatusOr<WidePlan> p = PlanWide(c, op, a);
  if (!p.ok()) return p.status();
  if (p->split_elements) {
    // Element by element (one chunk each: a vector along a strided
    // dimension), each as an access of its own whose element 0 is that
    // element: its base moved by the element's byte offset, the guard still
    // that of its element of `a`.
    for (const std::vector<Chunk>& g : groups)
      for (const Chunk& ch : g) {
        MemAccess one = a;
        one.base = AffineAdd(a.base, AffineConst(ch.byte_offset));
        one.width = 1;
        Chunk at = ch;
        at.byte_offset = 0;
        one.chunks = {at};
        if (absl::Status st = EmitWideAccess(c, op, one, store, data, {{at}}, whole); !st.ok()) return st;
      }
    return absl::OkStatus();
  }
  absl::StatusOr<WideSrdVal> w = c.WideSrd(op.mem, p->start, p->window);
  if (!w.ok()) return w.status();
  absl::StatusOr<IVal> v = c.EmitAffine(p->voffset);
  if (!v.ok()) return v.status();
  IVal vo = *v;
  if (w->delta) vo = c.Add(c.ToVgpr(vo), *w->delta);
  absl::StatusOr<IVal> so = c.EmitAffine(p->soffset);
  if (!so.ok()) return so.status();
  std::vector<HalfMerge> merges;
  for (const std::vector<Chunk>& g : groups) {
    absl::StatusOr<std::optional<int>> m = GuardMask(c, op, a, whole ? 0 : g[0].first_elem);
    if (!m.ok()) return m.status();
    const std::optional<int> mask = *m;
    if (mask && *mask == -1) continue;  // statically out of shape: no access
    BufAddr buf;
    // A window clamped to the buffer's start (w->delta: element 0 may lie
    // before the buffer, a vector along a strided dimension straddling index
    // 0) leaves element 0's voffset negative; voffset + offset is not wrapped
    // and soffset does not offset it (RawBufferInRange, compiler/isa/
    // semantics.h), so a later element's byte offset in soffset or the offset
    // field would leave an in-shape element out of range. That element's
    // whole byte offset then joins voffset, which is non-negative wherever
    // the element is in shape (fresh-user review 11 F6: X[-2, tid.x] along 0).
    IVal gvo = vo;
    int64_t moved = 0;
    if (w->delta && g[0].byte_offset != 0) {
      moved = g[0].byte_offset;
      gvo = c.Add(c.ToVgpr(vo), IVal{IVal::Kind::kConst, moved, -1});
    }
    if (mask)
      buf.voffset = MirBuilder::V(c.GuardSelect(c.ToVgpr(gvo).vreg, *mask, kOutOfRange));
    else if (gvo.kind != IVal::Kind::kConst || gvo.c != 0)
      buf.voffset = c.ToVgpr(gvo).Op();
    for (const Chunk& ch : g) {
      // 12-bit instruction offsets: the rest in soffset (counted by the range check).
      const int64_t rest = ch.byte_offset - moved;
      const int64_t off = rest & kMubufMaxOffset;
      buf.soffset = c.ScalarOperand(c.Add(*so, IVal{IVal::Kind::kConst, rest - off, -1}));
      buf.offset = off;
      EmitChunk(c, op, a, ch, store, data, w->quad, &buf, nullptr, 0, &merges);
    }
    MergeHighHalves(c, data, merges);
  }
  return absl::OkStatus();
}

// An unguarded buffer access's address (EmitAccess, LowerLdsDma): the
// base's per-lane part (for voffset) and uniform part (for soffset), each
// shifted to start at 0, and the constant rest `cst`, which must not be
// negative (the error ends with `negative_hint`).
struct BufferSplit {
  AffineForm vpart, upart;
  IVal v, u;
  int64_t cst = 0;
};
static absl::StatusOr<BufferSplit> SplitBufferAddress(LowerCtx& c, const Op& op, const AffineForm& base,
                                                      absl::string_view negative_hint) {
  BufferSplit sp;
  sp.vpart = Part(base, false);
  sp.upart = Part(base, true);
  const int64_t vmin = sp.vpart.terms.empty() ? 0 : sp.vpart.Range().lo;
  const int64_t umin = sp.upart.terms.empty() ? 0 : sp.upart.Range().lo;
  sp.vpart.constant = -vmin;
  sp.upart.constant = -umin;
  sp.cst = base.constant + vmin + umin;
  if (sp.cst < 0)
    return c.Error(op, absl::StrCat("the byte offset can be negative (down to ", sp.cst, ")", negative_hint));
  absl::StatusOr<IVal> v = c.EmitAffine(sp.vpart);
  if (!v.ok()) return v.status();
  absl::StatusOr<IVal> u = c.EmitAffine(sp.upart);
  if (!u.ok()) return u.status();
  sp.v = *v;
  sp.u = *u;
  return sp;
}

// The MUBUF operands of the split's bytes at constant offset `off` (>= 0)
// with `inst` (0..kMubufMaxOffset, at most `off`) in the instruction's offset
// field: the rest, off - inst, joins the per-lane part when there is one,
// else the uniform part, as a form of its own: cached, so accesses with the
// same rest share it, and hoisted out of loops with the part
// (HoistAccessInvariants). In a loop whose uniform part moves (a K loop's k)
// that leaves soffset the bare induction value instead of one add per row
// per trip.
static absl::StatusOr<BufAddr> ChunkAddressAt(LowerCtx& c, const BufferSplit& sp, int64_t off, int64_t inst) {
  IVal s = sp.u, vo = sp.v;
  const bool lanes = sp.v.kind == IVal::Kind::kVgpr;
  if (const int64_t rest = off - inst; rest != 0) {
    absl::StatusOr<IVal> r = c.EmitAffine(AffineAdd(lanes ? sp.vpart : sp.upart, AffineConst(rest)));
    if (!r.ok()) return r.status();
    (lanes ? vo : s) = *r;
  }
  BufAddr buf;
  if (vo.kind == IVal::Kind::kVgpr) buf.voffset = vo.Op();
  buf.soffset = c.ScalarOperand(s);
  buf.offset = inst;
  return buf;
}

// ChunkAddressAt with the offset field holding what of `off` fits in its 12
// bits (the rest, MubufHighOffset, in voffset or soffset).
static absl::StatusOr<BufAddr> ChunkAddress(LowerCtx& c, const BufferSplit& sp, int64_t off) {
  return ChunkAddressAt(c, sp, off, off > kMubufMaxOffset ? off - MubufHighOffset(off) : off);
}

static absl::Status EmitAccess(LowerCtx& c, const Op& op, const MemAccess& a, bool store, int data) {
  // Chunks under one guard mask: all of them when the vector is wholly in or
  // wholly out of shape, else one per element.
  bool whole = !op.guarded || a.width == 1 ||
               (a.strides[a.along] == 1 && a.shape[a.along] % a.width == 0 &&
                a.idx[a.along].KnownAlignment() % a.width == 0);
  std::vector<std::vector<Chunk>> groups;
  if (whole) {
    groups.push_back(a.chunks);
  } else {
    for (int e = 0; e < a.width; ++e) {
      Chunk ch;
      ch.first_elem = e;
      ch.byte_offset = int64_t{e} * a.strides[a.along] * a.eb;
      ch.bytes = a.eb;
      ch.dword = e * a.eb / 4;
      ch.half = a.eb == 2 ? e % 2 : 0;
      ch.pos = e * a.eb % 4;
      groups.push_back({ch});
    }
  }
  if (op.guarded) ++c.guarded_accesses_;
  if (!a.is_lds && c.k_.FindArg(op.mem)->SizeBytes() >= kWideBufferBytes)
    return EmitWideAccess(c, op, a, store, data, groups, whole);
  int srd = a.is_lds ? -1 : c.Srd(op.mem);
  std::vector<HalfMerge> merges;
  for (const std::vector<Chunk>& g : groups) {
    absl::StatusOr<std::optional<int>> m = GuardMask(c, op, a, whole ? 0 : g[0].first_elem);
    if (!m.ok()) return m.status();
    const std::optional<int> mask = *m;
    if (mask && *mask == -1) continue;  // statically out of shape: no access
    AffineForm base = AffineAdd(a.base, AffineConst(g[0].byte_offset));
    if (a.is_lds) {
      AffineForm vpart = Part(base, false), upart = Part(base, true);
      int64_t vmin = vpart.terms.empty() ? 0 : vpart.Range().lo;
      int64_t umin = upart.terms.empty() ? 0 : upart.Range().lo;
      // Guarded: out-of-shape lanes are off in EXEC, and an in-shape lane's
      // vaddr may be negative (-4 * tid.x for T[70 - tid.x]) with the constant
      // in the offset field: the LDS address is (vaddr + offset) mod 2^32
      // (DsAddress, compiler/isa/semantics.h), as LLVM also assumes.
      if (op.guarded) vmin = umin = 0;
      vpart.constant = -vmin;
      upart.constant = -umin;
      int64_t cst = base.constant + vmin + umin;
      // One form for the whole address so that accesses differing only in
      // their constant share it (the constant goes to the offset field).
      absl::StatusOr<IVal> full = c.EmitAffine(AffineAdd(vpart, upart));
      if (!full.ok()) return full.status();
      IVal addr = *full;
      const int64_t span = g.back().byte_offset - g[0].byte_offset;
      if (cst < 0) {
        addr = c.Add(addr, IVal{IVal::Kind::kConst, cst, -1});
        cst = 0;
      } else if (const int64_t hi = DsHighOffset(cst, span); hi != 0) {
        // Beyond the 16-bit offset field (an allocation past 64 KiB): the
        // base plus the high part as a form of its own, cached and hoisted
        // out of loops (HoistAccessInvariants), so a loop's accesses keep
        // immediate offsets instead of one add each.
        absl::StatusOr<IVal> based = c.EmitAffine(AffineAdd(AffineAdd(vpart, upart), AffineConst(hi)));
        if (!based.ok()) return based.status();
        addr = *based;
        cst -= hi;
      }
      addr = c.ToVgpr(addr);
      MOperand vaddr = addr.Op();
      int save = -1;
      if (mask) {
        save = c.b_.NewS(2, 2);
        c.b_.Emit(Opc::kSAndSaveexecB64, {MirBuilder::S(save, 0, 2), MirBuilder::S(*mask, 0, 2)});
      }
      for (const Chunk& ch : g)
        EmitChunk(c, op, a, ch, store, data, -1, nullptr, &vaddr, cst + ch.byte_offset - g[0].byte_offset, &merges);
      MergeHighHalves(c, data, merges);
      if (mask)
        c.b_.Emit(Opc::kSMovB64, {MOperand::Special(SpecialReg::kExec), MirBuilder::S(save, 0, 2)});
      continue;
    }
    BufAddr buf;
    int64_t span = g.back().byte_offset - g[0].byte_offset;
    if (mask) {
      // Everything in voffset; out-of-shape lanes get an offset past every buffer,
      // so loads read 0 and stores are dropped by the SRD range check. The
      // groups of one access (one element each when they are guarded apart)
      // share element 0's voffset and differ in the instruction offset while
      // that fits its 12 bits.
      if (span > kMubufMaxOffset)
        return c.Error(op, absl::StrCat("a guarded vector access spanning more than ", kMubufMaxOffset,
                                        " bytes is not supported"));
      int64_t inst = IsLegalMubufOffset(g[0].byte_offset) && IsLegalMubufOffset(g[0].byte_offset + span)
                         ? g[0].byte_offset
                         : 0;
      // Sharing element 0's voffset needs element 0's address to be
      // non-negative whenever this group's element is in shape: voffset +
      // offset is not wrapped (RawBufferInRange, compiler/isa/semantics.h), so
      // a negative voffset (element 0 before the start of the shape, a vector
      // straddling index 0) plus offset:16 would be out of range and drop an
      // in-shape element. Found by difftest (testdata/difftest/).
      if (inst > 0 && AffineAdd(base, AffineConst(-inst)).Range().lo < 0) inst = 0;
      absl::StatusOr<IVal> full = c.EmitAffine(AffineAdd(base, AffineConst(-inst)));
      if (!full.ok()) return full.status();
      IVal vo = c.ToVgpr(*full);
      buf.voffset = MirBuilder::V(c.GuardSelect(vo.vreg, *mask, kOutOfRange));
      for (const Chunk& ch : g) {
        buf.offset = inst + ch.byte_offset - g[0].byte_offset;
        EmitChunk(c, op, a, ch, store, data, srd, &buf, nullptr, 0, &merges);
      }
      MergeHighHalves(c, data, merges);
      continue;
    }
    absl::StatusOr<BufferSplit> sp = SplitBufferAddress(c, op, base, "; use a guarded access");
    if (!sp.ok()) return sp.status();
    for (const Chunk& ch : g) {
      absl::StatusOr<BufAddr> chunk = ChunkAddress(c, *sp, sp->cst + ch.byte_offset - g[0].byte_offset);
      if (!chunk.ok()) return chunk.status();
      buf = *chunk;
      EmitChunk(c, op, a, ch, store, data, srd, &buf, nullptr, 0, &merges);
    }
    MergeHighHalves(c, data, merges);
  }
  return absl::OkStatus();
}

const LowerCtx::GuardValue* LowerCtx::FindGuardValue(const std::string& key) {
  auto it = guard_cache_.find(key);
  if (it == guard_cache_.end() || guarded_accesses_ - it->second.last_access > kGuardReuseWindow)
    return nullptr;
  it->second.last_access = guarded_accesses_;
  return &it->second;
}

void LowerCtx::KeepGuardValue(const std::string& key, int vreg) {
  guard_cache_[key] = GuardValue{vreg, guarded_accesses_};
}

absl::StatusOr<int> LowerCtx::GuardCompare(const AffineForm& index, int64_t extent) {
  std::string key = absl::StrCat("(", index.Key(), ") <u ", extent);
  if (const GuardValue* g = FindGuardValue(key)) return g->vreg;
  absl::StatusOr<IVal> v = EmitAffine(index);
  if (!v.ok()) return v.status();
  int m = b_.NewS(2, 2);
  // Unsigned extent > index also rejects negative indices.
  b_.ValuTo(Opc::kVCmpGtU32, MirBuilder::S(m, 0, 2), {MOperand::Imm(extent), v->Op()});
  KeepGuardValue(key, m);
  return m;
}

int LowerCtx::GuardAnd(int mask_a, int mask_b) {
  std::string key = absl::StrCat("and %s", std::min(mask_a, mask_b), " %s", std::max(mask_a, mask_b));
  if (const GuardValue* g = FindGuardValue(key)) return g->vreg;
  int both = b_.NewS(2, 2);
  b_.Emit(Opc::kSAndB64, {MirBuilder::S(both, 0, 2), MirBuilder::S(mask_a, 0, 2),
                          MirBuilder::S(mask_b, 0, 2)});
  KeepGuardValue(key, both);
  return both;
}

int LowerCtx::GuardSelect(int voffset, int mask, uint32_t out_of_range) {
  std::string key = absl::StrCat("sel %v", voffset, " %s", mask, " ", out_of_range);
  if (const GuardValue* g = FindGuardValue(key)) return g->vreg;
  int sel = b_.NewV();
  b_.ValuTo(Opc::kVCndmaskB32, MirBuilder::V(sel),
            {MirBuilder::V(b_.VConst(out_of_range)), MirBuilder::V(voffset), MirBuilder::S(mask, 0, 2)});
  KeepGuardValue(key, sel);
  return sel;
}

absl::Status LowerCtx::LowerLoad(const Op& op) {
  absl::StatusOr<MemAccess> a = PlanAccess(*this, op, op.type);
  if (!a.ok()) return a.status();
  // load_tr (Op::tr): one ds_read_b64_tr_b16 at this thread's own 8-byte
  // block (the lane exchange is the instruction's, semantics.h
  // DsReadTrB16Source); the validator checked the rest, this is the backstop.
  if (op.tr) {
    if (!t_.has_ds_read_tr_b16)
      return Error(op, absl::StrCat("load_tr (ds_read_b64_tr_b16) does not exist on ", t_.name, " (gfx950 only)"));
    if (!a->is_lds || op.guarded || a->chunks.size() != 1 || a->chunks[0].bytes != 2 * kTrB16Elems)
      return Error(op, "load_tr needs one unguarded, contiguous, 8-byte aligned 16-bit x4 vector of an LDS "
                       "allocation");
  }
  int n = op.type.Dwords();
  Value v;
  v.type = op.type;
  v.cls = RegClass::kVgpr;
  auto inplace = inplace_.find(op.results[0]);
  v.vreg = inplace != inplace_.end() ? inplace->second : b_.NewV(n, TupleAlign(t_, n));
  if (op.guarded) {
    // Elements no instruction writes must read as zero: lanes off in EXEC
    // (LDS), or elements statically out of shape. (Buffer loads of
    // out-of-shape lanes read 0 through the SRD range check by themselves.)
    bool statically_out = false;
    for (size_t d = 0; d < a->idx.size(); ++d) {
      for (int e = 0; e < (static_cast<int>(d) == a->along ? a->width : 1); ++e) {
        Interval r = AffineAdd(a->idx[d], AffineConst(e)).Range();
        if (r.IsConst() && (r.lo < 0 || r.lo >= a->shape[d])) statically_out = true;
      }
    }
    if (a->is_lds || statically_out)
      for (int i = 0; i < n; ++i) b_.Emit(Opc::kVMovB32, {MirBuilder::V(v.vreg, i), MOperand::Imm(0)});
  }
  absl::Status st = EmitAccess(*this, op, *a, /*store=*/false, v.vreg);
  if (!st.ok()) return st;
  values_[op.results[0]] = v;
  return absl::OkStatus();
}

// lds_dma's LDS side (OpKind::kLdsDma): the byte address of the wave's base,
// lds_offset + sum lds_index[d] * stride_d * elem_bytes.
absl::StatusOr<AffineForm> LowerCtx::LdsDmaForm(const Op& op) {
  const LdsAlloc* l = k_.FindLds(op.lds);
  if (l == nullptr) return Error(op, absl::StrCat("unknown LDS allocation '", op.lds, "'"));
  const std::vector<int64_t> strides = l->Strides();
  AffineForm f = AffineConst(lds_offset_.at(op.lds));
  for (size_t d = 0; d < op.lds_index.size(); ++d) {
    absl::StatusOr<AffineForm> x = Affine(*op.lds_index[d], scope_);
    if (!x.ok()) return Error(op, std::string(x.status().message()));
    f = AffineAdd(f, AffineScale(*x, strides[d] * ElemBytes(l->elem)));
  }
  return f;
}

// The instruction offset of an lds_dma whose wave base has the constant
// `lds_const` in an allocation at byte `alloc_offset` and whose global
// address has the constant `global_cst` (>= 0, SplitBufferAddress): the
// base's distance into its 4 KiB window of the allocation (windows of
// kMubufMaxOffset + 1 bytes from the allocation's start), so that the DMAs
// of one window with the same variable part share one M0 (the window's
// start); the global side takes the offset back (ChunkAddressAt: voffset or
// soffset = address - offset). When that distance exceeds the global
// constant (voffset would go below 0: a buffer offset does not wrap,
// RawBufferInRange in compiler/isa/semantics.h), the global constant's low
// 12 bits instead, and M0 is the DMA's own. Either way at most `lds_min`,
// the base's smallest value (AffineForm::Range, sound: never above it): the
// field moves the LDS address too (M0 = LDS base - field), and M0 must not
// go below 0 in any wave or iteration, as the DMA reads only M0's low bits
// and does not wrap (semantics.h LdsDmaAddress; a negative M0 is an address
// past the LDS: fresh-user review of issue 19, F4).
static int64_t LdsDmaInstOffset(int64_t lds_const, int64_t alloc_offset, int64_t global_cst, int64_t lds_min) {
  constexpr int64_t kWindow = kMubufMaxOffset + 1;
  const int64_t d = ((lds_const - alloc_offset) % kWindow + kWindow) % kWindow;
  const int64_t field =
      d <= global_cst ? d : global_cst > kMubufMaxOffset ? global_cst - MubufHighOffset(global_cst) : global_cst;
  return std::min(field, std::clamp<int64_t>(lds_min, 0, kMubufMaxOffset));
}

// lds_dma's M0: LdsDmaForm less the instruction's offset field (which
// LdsDmaAddress adds to M0 as it adds it to the global address). Its tid
// terms (the same in every lane of a wave: tid.y, tid.z and tid.x floordiv
// 64m, the validator refused other tid.x) are summed in a VGPR and moved to an SGPR with v_readfirstlane_b32; that
// and the whole value are cached like index values (so a loop hoists them:
// HoistAccessInvariants, and DMAs with the same M0 share its register).
absl::StatusOr<IVal> LowerCtx::LdsDmaBase(const Op& op, int64_t inst_offset, bool wave_part_only) {
  absl::StatusOr<AffineForm> lf = LdsDmaForm(op);
  if (!lf.ok()) return lf.status();
  const AffineForm f = AffineAdd(*lf, AffineConst(-inst_offset));
  AffineForm lanes = Part(f, false), uniform = Part(f, true);
  uniform.constant = f.constant;
  IVal wave{IVal::Kind::kConst, 0, -1};
  if (!lanes.terms.empty()) {
    const std::string key = absl::StrCat("readfirstlane(", lanes.Key(), ")");
    auto it = affine_cache_.find(key);
    if (it != affine_cache_.end()) {
      wave = it->second;
    } else {
      absl::StatusOr<IVal> v = EmitAffine(lanes);
      if (!v.ok()) return v.status();
      int sreg = b_.NewS();
      b_.Emit(Opc::kVReadfirstlaneB32, {MirBuilder::S(sreg), ToVgpr(*v).Op()});
      wave = IVal{IVal::Kind::kSgpr, 0, sreg};
      affine_cache_[key] = wave;
    }
  }
  if (wave_part_only) return wave;
  const std::string key = absl::StrCat("m0(", f.Key(), ")");
  if (auto it = affine_cache_.find(key); it != affine_cache_.end()) return it->second;
  absl::StatusOr<IVal> u = EmitAffine(uniform);
  if (!u.ok()) return u.status();
  const IVal m0 = Add(wave, *u);
  affine_cache_[key] = m0;
  return m0;
}

// Whether M0 holds `v` where the next instruction goes: the nearest M0
// write before it in its basic block (no label or branch between) is
// s_mov_b32 m0, v, and nothing between redefines v's register.
static bool M0Holds(const MFunction& mir, const MOperand& v) {
  for (size_t i = mir.insts.size(); i-- > 0;) {
    const MInst& mi = mir.insts[i];
    if (mi.opc == Opc::kLabel || (Info(mi.opc).flags & kBranch)) return false;
    if (mi.WritesM0()) {
      if (mi.opc != Opc::kSMovB32 || mi.ops.size() < 2) return false;
      const MOperand& src = mi.ops[1];
      if (src.kind != v.kind) return false;
      if (v.kind == MOperand::Kind::kImm) return src.imm == v.imm;
      return v.IsReg() && src.is_virtual == v.is_virtual && src.cls == v.cls && src.reg == v.reg &&
             src.sub == v.sub;
    }
    for (int d = 0; d < mi.NumDefs() && d < static_cast<int>(mi.ops.size()); ++d) {
      const MOperand& o = mi.ops[d];
      if (v.IsReg() && o.IsReg() && o.is_virtual == v.is_virtual && o.cls == v.cls && o.reg == v.reg)
        return false;
    }
  }
  return false;
}

// lds_dma: buffer_load_dwordx4 ... lds. The global side is an unguarded
// 16-byte buffer load (SplitBufferAddress and ChunkAddressAt, as EmitAccess:
// lane part in voffset, uniform part in soffset); the instruction offset is
// the LDS base's distance into its 4 KiB window (LdsDmaInstOffset), taken
// off the global side, and M0 = LDS base - that offset, written only when M0
// does not hold it already (M0Holds): the DMAs of one window (a K tile's
// copy of one operand) share one s_mov_b32 m0. The SALU write of M0 and the
// DMA keep one wait state apart (the hazards pass; hazard_table.cc).
absl::Status LowerCtx::LowerLdsDma(const Op& op) {
  static_assert(kLdsDmaLaneBytes == kLdsDmaDwordx4LaneBytes,
                "KIR's lds_dma copies what gfx950's buffer_load_dwordx4 ... lds does");
  if (!t_.has_lds_dma_dwordx4)
    return Error(op, absl::StrCat("lds_dma does not exist on ", t_.name, " (gfx950 only)"));
  absl::StatusOr<MemAccess> a = PlanAccess(*this, op, op.type);
  if (!a.ok()) return a.status();
  if (a->is_lds || a->chunks.size() != 1 || a->chunks[0].bytes != kLdsDmaLaneBytes)
    return Error(op, "lds_dma needs one contiguous, 16-byte aligned 16-byte vector of a buffer (along its "
                     "stride-1 dimension)");
  if (op.guarded) return Error(op, "lds_dma does not take `guarded`");
  if (k_.FindArg(op.mem)->SizeBytes() >= kWideBufferBytes)
    return Error(op, absl::StrCat("lds_dma from a buffer of 2^31 bytes or more (", op.mem,
                                  ") is not supported yet; load and store instead"));
  const int srd = Srd(op.mem);
  absl::StatusOr<BufferSplit> sp = SplitBufferAddress(*this, op, a->base, "");
  if (!sp.ok()) return sp.status();
  absl::StatusOr<AffineForm> lf = LdsDmaForm(op);
  if (!lf.ok()) return lf.status();
  const int64_t inst = LdsDmaInstOffset(lf->constant, lds_offset_.at(op.lds), sp->cst, lf->Range().lo);
  absl::StatusOr<BufAddr> buf = ChunkAddressAt(*this, *sp, sp->cst, inst);
  if (!buf.ok()) return buf.status();
  absl::StatusOr<IVal> m0 = LdsDmaBase(op, inst);
  if (!m0.ok()) return m0.status();
  const MOperand m0_value =
      m0->kind == IVal::Kind::kConst ? MOperand::Imm(static_cast<uint32_t>(m0->c)) : m0->Op();
  if (!M0Holds(out_.mir, m0_value)) b_.Emit(Opc::kSMovB32, {MOperand::Special(SpecialReg::kM0), m0_value});
  const bool offen = buf->voffset.has_value();
  MInst& mi = b_.Emit(Opc::kBufferLoadDwordx4Lds,
                      {offen ? *buf->voffset : MOperand::Imm(0), MirBuilder::S(srd, 0, 4), buf->soffset});
  mi.offen = offen;
  mi.offset = buf->offset;
  LdsDmaSite site;
  site.op = &op;
  for (const LoopCtx& l : loops_) site.loops.push_back({l.ivar, scope_.loops.at(l.ivar)});
  dma_sites_.push_back(std::move(site));
  dma_site_ops_.push_back(cur_op_);
  AccessRecord rec;
  rec.inst_id = mi.id;
  rec.kir_op = cur_op_;
  rec.mem = op.mem;
  rec.element_bytes = a->eb;
  for (int e = 0; e < op.type.width; ++e) rec.elements.push_back(e);
  // Its LDS side: the same instruction writes the 16 bytes of lane l at the
  // byte of L[lds_index] + 16 * l (KIR's definition; the verifier proves
  // LdsDmaAddress of M0 against it). is_lds and is_store on a MUBUF opcode
  // mark the record of an LDS DMA's write.
  AccessRecord lds = rec;
  lds.mem = op.lds;
  lds.is_lds = true;
  lds.is_store = true;
  out_.access_map.push_back(std::move(rec));
  out_.access_map.push_back(std::move(lds));
  return absl::OkStatus();
}

absl::Status LowerCtx::LowerStore(const Op& op) {
  const Value& val = values_.at(op.operands[0].name);
  absl::StatusOr<MemAccess> a = PlanAccess(*this, op, val.type);
  if (!a.ok()) return a.status();
  int data = VgprsOf(op.operands[0].name);
  return EmitAccess(*this, op, *a, /*store=*/true, data);
}

}  // namespace kir

namespace kir {

absl::Status LowerCtx::HoistAccessInvariants(const Op& op, const std::vector<Op>& body) {
  ValueType vt = op.type;
  if (op.kind == OpKind::kStore) {
    // The stored value may be defined in the loop body, not lowered yet: take
    // its type from its definition (a load or an op that carries its type).
    const std::string& name = op.operands[0].name;
    auto known = values_.find(name);
    bool found = known != values_.end();
    if (found) vt = known->second.type;
    for (const Op& d : body)
      for (const std::string& r : d.results)
        if (r == name && (d.kind == OpKind::kLoad || d.kind == OpKind::kMfma ||
                          d.kind == OpKind::kCvt || d.kind == OpKind::kSlice || d.kind == OpKind::kConcat ||
                          d.kind == OpKind::kConst || d.kind == OpKind::kZero)) {
          vt = d.type;
          found = true;
        }
    if (!found) return absl::OkStatus();  // not worth guessing: the body computes it
  }
  absl::StatusOr<MemAccess> a = PlanAccess(*this, op, vt);
  if (!a.ok()) return a.status();
  // Each form's loop-invariant terms (and constant), emitted here.
  auto emit_invariant_parts = [&](const std::vector<AffineForm>& forms) -> absl::Status {
    for (const AffineForm& f : forms) {
      AffineForm inv;
      inv.constant = f.constant;
      for (const AffineTerm& t : f.terms)
        if (!DependsOnLoop(*t.atom)) inv.terms.push_back(t);
      if (inv.terms.empty()) continue;
      absl::StatusOr<IVal> v = EmitAffine(inv);
      if (!v.ok()) return v.status();
    }
    return absl::OkStatus();
  };
  if (!a->is_lds && k_.FindArg(op.mem)->SizeBytes() >= kWideBufferBytes) {
    // The window's SRD when its start does not depend on the loop, else the
    // start's loop-invariant part; the voffset's invariant part.
    absl::StatusOr<WidePlan> p = PlanWide(*this, op, *a);
    if (!p.ok()) return p.status();
    bool dep = false;
    AffineForm inv;
    inv.constant = p->start.constant;
    for (const AffineTerm& t : p->start.terms) {
      if (DependsOnLoop(*t.atom)) dep = true;
      else inv.terms.push_back(t);
    }
    if (!dep) {
      absl::StatusOr<WideSrdVal> w = WideSrd(op.mem, p->start, p->window);
      if (!w.ok()) return w.status();
    } else if (!inv.terms.empty()) {
      absl::StatusOr<IVal64> v = EmitAffine64(inv);
      if (!v.ok()) return v.status();
    }
    std::vector<AffineForm> forms = {p->voffset, p->soffset};
    if (op.guarded) {
      b_.VConst(kOutOfRange);
      forms.insert(forms.end(), a->idx.begin(), a->idx.end());
    }
    return emit_invariant_parts(forms);
  }
  if (!a->is_lds) Srd(op.mem);
  if (op.guarded && !a->is_lds) b_.VConst(kOutOfRange);  // the guard's select value
  // The forms EmitAccess will ask for, reduced to their loop-invariant parts.
  std::vector<AffineForm> forms;
  AffineForm vpart = Part(a->base, false), upart = Part(a->base, true);
  if (!vpart.terms.empty()) vpart.constant = -vpart.Range().lo;
  if (!upart.terms.empty()) upart.constant = -upart.Range().lo;
  if (op.guarded) {
    forms.push_back(a->base);
    for (const AffineForm& f : a->idx) forms.push_back(f);
  }
  if (!op.guarded || a->is_lds) {
    forms.push_back(vpart);
    forms.push_back(upart);
    forms.push_back(AffineAdd(vpart, upart));
  }
  // The offsets beyond the instruction's offset field, as EmitAccess adds
  // them (unguarded accesses: one chunk group, element 0 first).
  if (op.kind == OpKind::kLdsDma && !a->chunks.empty()) {
    // M0's wave part (readfirstlane of its tid terms) is loop-invariant
    // unless one of those terms also reads the loop's variable (e.g.
    // `(tid.x floordiv 64 + %k) mod 2`: one atom, not separable; fresh-user
    // review 7 F2: hoisting it wrote every trip's data to the first trip's
    // slot), and all of M0 is when no term of it depends on the loop (a K
    // loop's stage is a constant in each unrolled half); the global side's
    // rest (LowerLdsDma's ChunkAddressAt).
    const int64_t cst = a->base.constant + -vpart.constant - upart.constant;
    absl::StatusOr<AffineForm> lf = LdsDmaForm(op);
    if (!lf.ok()) return lf.status();
    const int64_t inst = LdsDmaInstOffset(lf->constant, lds_offset_.at(op.lds), cst, lf->Range().lo);
    bool invariant = true, wave_invariant = true;
    for (const AffineTerm& t : lf->terms) invariant = invariant && !DependsOnLoop(*t.atom);
    for (const AffineTerm& t : Part(*lf, false).terms) wave_invariant = wave_invariant && !DependsOnLoop(*t.atom);
    if (wave_invariant) {
      absl::StatusOr<IVal> m0 = LdsDmaBase(op, inst, /*wave_part_only=*/!invariant);
      if (!m0.ok()) return m0.status();
    }
    if (cst != inst) forms.push_back(AffineAdd(vpart.terms.empty() ? upart : vpart, AffineConst(cst - inst)));
  } else if (!op.guarded && !a->chunks.empty()) {
    const int64_t cst = a->base.constant + -vpart.constant - upart.constant;
    const int64_t span = a->chunks.back().byte_offset - a->chunks.front().byte_offset;
    if (a->is_lds) {
      if (cst >= 0) {
        if (const int64_t hi = DsHighOffset(cst, span); hi != 0)
          forms.push_back(AffineAdd(AffineAdd(vpart, upart), AffineConst(hi)));
      }
    } else {
      for (const Chunk& ch : a->chunks) {
        const int64_t off = cst + ch.byte_offset - a->chunks.front().byte_offset;
        if (off > kMubufMaxOffset)
          forms.push_back(AffineAdd(vpart.terms.empty() ? upart : vpart, AffineConst(MubufHighOffset(off))));
      }
    }
  }
  return emit_invariant_parts(forms);
}

}  // namespace kir
