// VMEM (buffer_* through an SRD, global_* through 64-bit addresses) and DS
// (LDS) instructions. Memory is read and written when the instruction issues;
// loaded values reach their registers when an s_waitcnt covers the load.
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/isa/semantics.h"
#include "hw/emu/exec.h"
#include "hw/emu/float_math.h"

namespace kir::emu {
namespace {

using Ext = MemExt;

// The data moved per lane: `comps` components of `bytes` each (one register
// each; DS read2/write2: two elements of one or two dwords), from
// MemoryShape (compiler/isa/instr.h), which flat_* and scratch_* share with
// their global_* twins.
struct Shape {
  int comps = 0;
  int bytes = 0;
  Ext ext = Ext::kNone;  // how a sub-dword load fills its register / which half a store takes
  bool store = false;
};

Shape ShapeOf(Opc o) {
  const MemShape m = MemoryShape(o);
  if (m.comps == 0 || m.lds_dma) return {};
  if (m.addrs == 2) return {2, m.comps * m.bytes / 2, m.ext, m.store};
  return {m.comps, m.bytes, m.ext, m.store};
}

// Register value of a loaded sub-dword component, and the bits of the old
// value kept. D16 loads (`_d16`, `_d16_hi`, buffer and DS) keep the other
// half of the VGPR only when SRAM ECC is off (target ID sramecc-); with ECC
// on they write the whole VGPR, the other half zero, and a code object for
// "sramecc any" must be right either way, so the emulator takes the zeroing
// (LLVM GCNSubtarget::d16PreservesUnusedBits: hasD16LoadStore() &&
// !isSramEccOnOrAny(); LLVM PR #161256 "When sram-ecc is enabled 16-bit loads
// clobber full 32-bit VGPR"; rocjitsu 96b8d0f2 zeroes likewise).
uint32_t Extend(uint32_t raw, const Shape& s, uint32_t* keep, bool d16_keeps_other_half) {
  *keep = 0;
  switch (s.ext) {
    case Ext::kNone: return raw;
    case Ext::kZero: return s.bytes == 1 ? raw & 0xff : raw & 0xffff;
    case Ext::kSign:
      return s.bytes == 1 ? static_cast<uint32_t>(static_cast<int8_t>(raw & 0xff))
                          : static_cast<uint32_t>(static_cast<int16_t>(raw & 0xffff));
    case Ext::kD16Lo: *keep = d16_keeps_other_half ? 0xffff0000u : 0; return raw & 0xffff;
    case Ext::kD16Hi: *keep = d16_keeps_other_half ? 0x0000ffffu : 0; return (raw & 0xffff) << 16;
  }
  return raw;
}

// The bytes a store takes from its data register.
uint32_t StoreBits(uint32_t reg, const Shape& s) { return s.ext == Ext::kD16Hi ? reg >> 16 : reg; }

PendingOp LoadOp(int pc, Counter ctr, const MOperand& dst, int regs, uint64_t exec, uint32_t keep) {
  PendingOp op;
  op.inst = pc;
  op.ctr = ctr;
  op.writes.resize(regs);
  for (int r = 0; r < regs; ++r) {
    PendingWrite& pw = op.writes[r];
    pw.cls = dst.cls;
    pw.reg = dst.reg + r;
    pw.lanes = exec;
    pw.keep = keep;
  }
  return op;
}

absl::Status CheckData(const Inst& in, const MOperand& o, int regs) {
  if (!o.IsReg() || o.cls == RegClass::kSgpr || o.count != regs)
    return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": data operand must be ", regs,
                                                   regs == 1 ? " VGPR" : " VGPRs"));
  return absl::OkStatus();
}

// global_atomic_* (semantics.h GlobalAtomicOf): each active lane in lane
// order reads, combines and writes its dword; the returning form gives the
// old value to vdst when an s_waitcnt vmcnt covers it, as a load.
absl::Status ExecGlobalAtomic(ExecContext& c, Wave& w, const Inst& in, const GlobalAtomic& ga) {
  const MInst& mi = in.mi;
  absl::Status st;
  const MOperand& vdata = OperandOr0(mi, OpName::kVdata);
  if (!(st = CheckData(in, vdata, ga.data_dwords)).ok()) return st;
  if (ga.returns && !(st = CheckData(in, OperandOr0(mi, OpName::kVdst), 1)).ok()) return st;
  if (ga.op == AtomicOp::kAddF32 && ga.returns && c.target.gfx == Gfx::kGfx908)
    return Unsupported(in, "a returning global_atomic_add_f32 on gfx908 (which has only the non-returning one)");
  const MOperand& vaddr = OperandOr0(mi, OpName::kVaddr);
  VSrc a0 = ReadVSrc(w, vaddr, OpType::kB32, 0), a1;
  uint64_t sbase = 0;
  if (in.mods.saddr) {
    const MOperand& saddr = OperandOr0(mi, OpName::kSaddr);
    sbase = ReadScalar(w, saddr, OpType::kB64, 0) | (uint64_t{ReadScalar(w, saddr, OpType::kB64, 1)} << 32);
  } else {
    a1 = ReadVSrc(w, vaddr, OpType::kB32, 1);
  }
  const uint32_t* d0 = w.Row(vdata.cls, vdata.reg);
  const uint32_t* d1 = ga.data_dwords > 1 ? w.Row(vdata.cls, vdata.reg + 1) : nullptr;
  const uint64_t exec = w.Exec();
  PendingOp op;
  if (ga.returns) op = LoadOp(w.pc, Counter::kVm, OperandOr0(mi, OpName::kVdst), 1, exec, 0);
  op.inst = w.pc;
  op.ctr = Counter::kVm;
  // f32 add: gfx908/90a flush f32 denormals in and out (TargetInfo::atomic_add_f32_denormals).
  const int denorm_mode = c.target.atomic_add_f32_denormals ? 3 : 0;
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    const uint64_t addr = in.mods.saddr ? GlobalAddress<uint64_t>(sbase, a0[l], static_cast<uint64_t>(mi.offset))
                                        : GlobalAddress<uint64_t>(a0[l] | (uint64_t{a1[l]} << 32), 0,
                                                                  static_cast<uint64_t>(mi.offset));
    if (addr % 4 != 0)
      return absl::FailedPreconditionError(absl::StrCat(
          Describe(in), ": lane ", l, " atomic address 0x", absl::Hex(addr),
          " is not 4-byte aligned: atomics act on naturally aligned dwords, and the emulator refuses a misaligned "
          "one"));
    const Region* r = c.mem.Find(addr, 4);
    if (r == nullptr)
      return absl::FailedPreconditionError(absl::StrCat(Describe(in), ": lane ", l, " accesses ",
                                                        c.mem.Describe(addr, 4), ", outside every buffer"));
    if (c.global_races != nullptr &&
        !(st = c.global_races->Access(c.prog, c.mem, *r, addr, 4, w.pc, w.index(), l, true, /*atomic=*/true)).ok())
      return st;
    uint32_t tmp = 0, v = 0;
    c.mem.Read(addr, &tmp, 4);
    if (ga.op == AtomicOp::kAddF32) {
      v = Bits(FlushOut(FlushIn(F32(tmp), denorm_mode) + FlushIn(F32(d0[l]), denorm_mode), denorm_mode));
    } else {
      v = AtomicIntResult(U32Domain{}, ga.op, tmp, d0[l], d1 != nullptr ? d1[l] : 0u);
    }
    c.mem.Write(addr, &v, 4);
    if (ga.returns) op.writes[0].vals[l] = tmp;
  }
  w.Issue(std::move(op));
  return absl::OkStatus();
}

// One lane's components at host bytes `p` (the lane's private segment, or
// LDS): a store writes each data register's bits, a load extends them into
// the pending write.
void LaneBytes(const ExecContext& c, uint8_t* p, int lane, const Shape& sh, const std::vector<const uint32_t*>& data,
               PendingOp& op) {
  for (int k = 0; k < sh.comps; ++k) {
    if (sh.store) {
      uint32_t v = StoreBits(data[k][lane], sh);
      std::memcpy(p + k * sh.bytes, &v, sh.bytes);
    } else {
      uint32_t raw = 0, kp;
      std::memcpy(&raw, p + k * sh.bytes, sh.bytes);
      op.writes[k].vals[lane] = Extend(raw, sh, &kp, c.kernel.sramecc == FeatureSetting::kOff);
    }
  }
}

// One lane's access of `n` = comps * bytes bytes at byte `off` of its private
// (scratch) segment: bounds checked (0 <= off, off + n <= the descriptor's
// private_segment_fixed_size: semantics.h ScratchOffset), then moved.
absl::Status PrivateAccess(ExecContext& c, Wave& w, const Inst& in, int lane, uint64_t off, const Shape& sh,
                           const std::vector<const uint32_t*>& data, PendingOp& op) {
  const uint64_t n = static_cast<uint64_t>(sh.comps) * sh.bytes;
  const uint64_t size = c.kernel.private_segment_size;
  if (off + n > size)
    return absl::FailedPreconditionError(absl::StrCat(
        Describe(in), ": lane ", lane, " accesses private (scratch) bytes [", off, ", ", off + n,
        ") outside the work-item's ", size, "-byte private segment (.private_segment_fixed_size",
        size == 0 ? "; the kernel declares none: raise .amdhsa_private_segment_fixed_size" : "", ")"));
  LaneBytes(c, w.Scratch(lane) + off, lane, sh, data, op);
  return absl::OkStatus();
}

// One lane's access of global memory at `addr` (global_*, and flat_* in the
// global segment): outside every buffer is an error (`outside` adds to its
// message), then the race check, then each component read or written.
absl::Status GlobalLaneAccess(ExecContext& c, Wave& w, const Inst& in, int l, uint64_t addr, const Shape& sh,
                              const std::vector<const uint32_t*>& data, PendingOp& op, absl::string_view outside) {
  const uint64_t n = static_cast<uint64_t>(sh.comps) * sh.bytes;
  const Region* r = c.mem.Find(addr, n);
  if (r == nullptr)
    return absl::FailedPreconditionError(
        absl::StrCat(Describe(in), ": lane ", l, " accesses ", c.mem.Describe(addr, n), ", outside every buffer", outside));
  if (c.global_races != nullptr) {
    absl::Status st =
        c.global_races->Access(c.prog, c.mem, *r, addr, static_cast<uint32_t>(n), w.pc, w.index(), l, sh.store);
    if (!st.ok()) return st;
  }
  for (int k = 0; k < sh.comps; ++k) {
    if (sh.store) {
      uint32_t v = StoreBits(data[k][l], sh);
      c.mem.Write(addr + k * sh.bytes, &v, sh.bytes);
    } else {
      uint32_t raw = 0, kp;
      c.mem.Read(addr + k * sh.bytes, &raw, sh.bytes);
      op.writes[k].vals[l] = Extend(raw, sh, &kp, c.kernel.sramecc == FeatureSetting::kOff);
    }
  }
  return absl::OkStatus();
}

// A flat_* lane whose address is in the shared aperture: LDS bytes [a, a + n),
// checked as a DS access (bounds, natural alignment of each component, races
// and never-written bytes in strict mode).
absl::Status FlatLdsAccess(ExecContext& c, Wave& w, const Inst& in, int lane, uint32_t a, const Shape& sh,
                           const std::vector<const uint32_t*>& data, PendingOp& op) {
  const uint64_t n = static_cast<uint64_t>(sh.comps) * sh.bytes;
  if (a + n > c.wg.lds.size())
    return absl::FailedPreconditionError(absl::StrCat(
        Describe(in), ": lane ", lane, " flat address in the shared aperture accesses LDS bytes [0x", absl::Hex(a),
        ", 0x", absl::Hex(a + n), ") outside the workgroup's ", c.wg.lds.size(), "-byte LDS allocation"));
  if (a % static_cast<uint32_t>(sh.bytes) != 0)
    return absl::FailedPreconditionError(absl::StrCat(Describe(in), ": lane ", lane, " flat LDS address 0x",
                                                      absl::Hex(a), " is not ", sh.bytes, "-byte aligned"));
  if (c.opts.strict) {
    if (op.lds_op < 0) op.lds_op = c.wg.races.NewOp(w.index(), w.pc, w.barrier_gen, sh.store);
    absl::Status st = c.wg.races.Access(c.prog, op.lds_op, lane, a, static_cast<uint32_t>(n), w.barrier_gen);
    if (!st.ok()) return st;
  }
  LaneBytes(c, c.wg.lds.data() + a, lane, sh, data, op);
  return absl::OkStatus();
}

// flat_* (FlatSegmentOf of semantics.h per lane: global memory, LDS or the
// lane's private segment) and scratch_* (ScratchOffset: the private segment).
absl::Status ExecFlatOrScratch(ExecContext& c, Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  const bool scratch = Info(mi.opc).flags & kScratchAddr;
  const Shape sh = ShapeOf(mi.opc);
  if (sh.comps == 0) return Unsupported(in, "this memory instruction");
  const MOperand& data_op =
      OperandOr0(mi, NamedOperandIdx(mi.opc, OpName::kVdst) >= 0 ? OpName::kVdst : OpName::kVdata);
  const int regs = sh.comps;
  absl::Status st;
  if (!(st = CheckData(in, data_op, regs)).ok()) return st;
  const MOperand& vaddr = OperandOr0(mi, OpName::kVaddr);
  VSrc a0 = ReadVSrc(w, vaddr, OpType::kB32, 0), a1;
  uint32_t sbase = 0;
  if (scratch) {
    const MOperand& saddr = OperandOr0(mi, OpName::kSaddr);
    sbase = ReadScalar(w, saddr, OpType::kB32, 0);
  } else {
    a1 = ReadVSrc(w, vaddr, OpType::kB32, 1);
  }
  const uint64_t exec = w.Exec();
  uint32_t keep = 0;
  Extend(0, sh, &keep, c.kernel.sramecc == FeatureSetting::kOff);
  PendingOp op;
  if (!sh.store) op = LoadOp(w.pc, Counter::kVm, data_op, regs, exec, keep);
  op.inst = w.pc;
  op.ctr = Counter::kVm;
  op.flat = !scratch;
  std::vector<const uint32_t*> data;
  if (sh.store)
    for (int r = 0; r < regs; ++r) data.push_back(w.Row(data_op.cls, data_op.reg + r));
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    if (scratch) {
      const uint32_t off = ScratchOffset(U32Domain{}, a0[l], sbase, mi.offset);
      if (!(st = PrivateAccess(c, w, in, l, off, sh, data, op)).ok()) return st;
      continue;
    }
    const uint64_t addr =
        GlobalAddress<uint64_t>(a0[l] | (uint64_t{a1[l]} << 32), 0, static_cast<uint64_t>(mi.offset));
    switch (FlatSegmentOf(addr)) {
      case FlatSegment::kLds:
        st = FlatLdsAccess(c, w, in, l, static_cast<uint32_t>(addr), sh, data, op);
        break;
      case FlatSegment::kPrivate:
        st = PrivateAccess(c, w, in, l, static_cast<uint32_t>(addr), sh, data, op);
        break;
      case FlatSegment::kGlobal:
        st = GlobalLaneAccess(c, w, in, l, addr, sh, data, op,
                              " (and outside the shared and private apertures)");
        break;
    }
    if (!st.ok()) return st;
  }
  w.Issue(std::move(op));
  return absl::OkStatus();
}

// A global_* instruction's address operands: vaddr's low dword in *a0 and,
// without saddr, its high dword in *a1 (a 64-bit VGPR address); with saddr,
// the 64-bit SGPR base in *sbase (vaddr a 32-bit offset). Shared by the
// global loads and stores and gfx950's global_load_lds_dwordx4.
void ReadGlobalAddress(Wave& w, const Inst& in, VSrc* a0, VSrc* a1, uint64_t* sbase) {
  const MOperand& vaddr = OperandOr0(in.mi, OpName::kVaddr);
  *a0 = ReadVSrc(w, vaddr, OpType::kB32, 0);
  if (in.mods.saddr) {
    const MOperand& saddr = OperandOr0(in.mi, OpName::kSaddr);
    *sbase = ReadScalar(w, saddr, OpType::kB64, 0) | (uint64_t{ReadScalar(w, saddr, OpType::kB64, 1)} << 32);
  } else {
    *a1 = ReadVSrc(w, vaddr, OpType::kB32, 1);
  }
}

// The buffer resource (SRD) of a MUBUF instruction `in`: its srsrc operand,
// 4 SGPRs, decoded (memory.h DecodeSrd); an error when it is not 4 SGPRs.
absl::Status ReadSrsrc(const Wave& w, const Inst& in, Srd* srd) {
  const MOperand& rsrc = OperandOr0(in.mi, OpName::kSrsrc);
  if (!rsrc.IsReg() || rsrc.cls != RegClass::kSgpr || rsrc.count != 4)
    return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": the resource must be 4 SGPRs"));
  uint32_t words[4];
  for (int i = 0; i < 4; ++i) words[i] = w.S(rsrc.reg + i);
  *srd = DecodeSrd(words);
  return absl::OkStatus();
}

// buffer_load_dwordx4 ... lds and global_load_lds_dwordx4 (gfx950's LDS DMA;
// semantics.h LdsDmaAddress): each active lane's 16 bytes are read as
// buffer_load_dwordx4 (out-of-range dwords are 0) or global_load_dwordx4
// reads them and written to LDS at M0[17:0] + offset + 16 * lane (a
// negative M0 is far past the LDS: refused).
// The bytes are moved at issue, but the operation counts in vmcnt and, in
// strict mode, any DS access of those bytes (by any wave) before an
// s_waitcnt vmcnt covers it is an error (LdsRaceTracker's async ops).
absl::Status ExecLdsDma(ExecContext& c, Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  absl::Status st;
  const bool global = Info(mi.opc).flags & kGlobalAddr;  // global_load_lds_dwordx4
  Srd srd;
  uint32_t soffset = 0;
  VSrc a0, a1;
  uint64_t sbase = 0;
  if (global) {
    if (!(st = Arity(in, in.mods.saddr ? 2 : 1)).ok()) return st;
    ReadGlobalAddress(w, in, &a0, &a1, &sbase);
  } else {
    if (!(st = Arity(in, 3)).ok()) return st;
    if (!(st = ReadSrsrc(w, in, &srd)).ok()) return st;
    if (srd.add_tid())
      return Unsupported(in, "an LDS DMA through an ADD_TID_ENABLE (private segment) buffer resource");
    if (!(st = CheckSrd(srd)).ok()) return absl::Status(st.code(), absl::StrCat(Describe(in), ": ", st.message()));
    soffset = ReadScalar(w, OperandOr0(mi, OpName::kSoffset), OpType::kB32, 0);
    if (mi.offen) a0 = ReadVSrc(w, OperandOr0(mi, OpName::kVaddr), OpType::kB32, 0);
  }
  const uint32_t m0 = w.S(kM0);
  const uint64_t exec = w.Exec();
  const size_t size = c.wg.lds.size();
  PendingOp op;
  op.inst = w.pc;
  op.ctr = Counter::kVm;
  if (c.opts.strict) op.lds_op = c.wg.races.NewOp(w.index(), w.pc, w.barrier_gen, /*write=*/true, /*async=*/true);
  constexpr int kBytes = kLdsDmaDwordx4LaneBytes;
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    const uint64_t a = LdsDmaAddress(U32Domain{}, m0, mi, l);
    if (a + kBytes > size)
      return absl::FailedPreconditionError(absl::StrCat(
          Describe(in), ": lane ", l, " LDS DMA writes LDS bytes [0x", absl::Hex(a), ", 0x", absl::Hex(a + kBytes),
          ") (M0[", kLdsDmaM0Bits - 1, ":0] of M0 0x", absl::Hex(m0), " + offset ", mi.offset,
          " + 16 * lane) outside the workgroup's ", size, "-byte LDS allocation",
          (m0 >> 31) != 0 ? "; M0 is negative: the DMA reads only its low bits, so M0 must be the LDS address "
                            "less the offset and never below 0"
                          : ""));
    if (a % 4 != 0)
      return absl::FailedPreconditionError(absl::StrCat(Describe(in), ": lane ", l, " LDS DMA address 0x",
                                                        absl::Hex(a), " is not 4-byte aligned (M0 0x",
                                                        absl::Hex(m0), ")"));
    uint32_t vals[4] = {0, 0, 0, 0};
    if (global) {
      // global_load_dwordx4's address and bytes (no range check).
      const uint64_t addr = in.mods.saddr ? GlobalAddress<uint64_t>(sbase, a0[l], static_cast<uint64_t>(mi.offset))
                                          : GlobalAddress<uint64_t>(a0[l] | (uint64_t{a1[l]} << 32), 0,
                                                                    static_cast<uint64_t>(mi.offset));
      const Region* r = c.mem.Find(addr, kBytes);
      if (r == nullptr)
        return absl::FailedPreconditionError(absl::StrCat(Describe(in), ": lane ", l, " reads ",
                                                          c.mem.Describe(addr, kBytes), ", outside every buffer"));
      if (c.global_races != nullptr &&
          !(st = c.global_races->Access(c.prog, c.mem, *r, addr, kBytes, w.pc, w.index(), l, false)).ok())
        return st;
      c.mem.Read(addr, vals, kBytes);
    }
    const uint64_t off = (mi.offen ? uint64_t{a0[l]} : 0) + static_cast<uint64_t>(mi.offset);
    for (int k = 0; k < 4 && !global; ++k) {
      const uint64_t o = off + static_cast<uint64_t>(k) * 4;
      if (!RawBufferComponentInRange(srd, soffset, o, 4)) continue;  // reads 0
      const uint64_t addr = RawBufferAddress<uint64_t>(srd.base, soffset, o);
      const Region* r = c.mem.Find(addr, 4);
      if (r == nullptr)
        return absl::FailedPreconditionError(absl::StrCat(
            Describe(in), ": lane ", l, " in-range buffer access (offset ", o, " + 4 <= num_records ",
            srd.num_records, " - soffset ", soffset, ") at ", c.mem.Describe(addr, 4), " falls outside every buffer"));
      if (c.global_races != nullptr &&
          !(st = c.global_races->Access(c.prog, c.mem, *r, addr, 4, w.pc, w.index(), l, false)).ok())
        return st;
      c.mem.Read(addr, &vals[k], 4);
    }
    if (c.opts.strict && !(st = c.wg.races.Access(c.prog, op.lds_op, l, static_cast<uint32_t>(a), kBytes,
                                                  w.barrier_gen)).ok())
      return st;
    std::memcpy(c.wg.lds.data() + a, vals, kBytes);
  }
  w.Issue(std::move(op));
  return absl::OkStatus();
}

absl::Status ExecVmem(ExecContext& c, Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  if (Info(mi.opc).flags & kLdsDma) return ExecLdsDma(c, w, in);
  if (const GlobalAtomic ga = GlobalAtomicOf(mi.opc); ga.op != AtomicOp::kNone) return ExecGlobalAtomic(c, w, in, ga);
  if (Info(mi.opc).flags & (kFlatAddr | kScratchAddr)) return ExecFlatOrScratch(c, w, in);
  // The data operand: vdata (buffer loads and stores, global stores) or vdst (global loads).
  const MOperand& data_op =
      OperandOr0(mi, NamedOperandIdx(mi.opc, OpName::kVdst) >= 0 ? OpName::kVdst : OpName::kVdata);
  const MOperand& vaddr = OperandOr0(mi, OpName::kVaddr);
  const Shape sh = ShapeOf(mi.opc);
  if (sh.comps == 0) return Unsupported(in, "this memory instruction");
  const bool global = Info(mi.opc).flags & kGlobalAddr;
  const uint64_t exec = w.Exec();
  const int regs = sh.bytes == 8 ? 2 * sh.comps : sh.comps;
  absl::Status st;
  // Addresses per lane and component: for buffers also the range check.
  Srd srd;
  bool private_srd = false;  // ADD_TID_ENABLE: the private segment buffer (memory.h kPrivateSrdBase)
  uint32_t soffset = 0;
  VSrc a0, a1;
  uint64_t sbase = 0;
  if (global) {
    if (!(st = CheckData(in, data_op, regs)).ok()) return st;
    ReadGlobalAddress(w, in, &a0, &a1, &sbase);
  } else {
    if (!(st = Arity(in, 4)).ok() || !(st = CheckData(in, data_op, regs)).ok()) return st;
    if (!(st = ReadSrsrc(w, in, &srd)).ok()) return st;
    if (srd.add_tid()) private_srd = true;
    else if (!(st = CheckSrd(srd)).ok())
      return absl::Status(st.code(), absl::StrCat(Describe(in), ": ", st.message()));
    soffset = ReadScalar(w, OperandOr0(mi, OpName::kSoffset), OpType::kB32, 0);
    if (mi.offen) a0 = ReadVSrc(w, vaddr, OpType::kB32, 0);
    if (private_srd && srd.base - kPrivateSrdBase + soffset != w.scratch_wave_offset)
      return absl::FailedPreconditionError(absl::StrCat(
          Describe(in), ": an ADD_TID_ENABLE (private segment) buffer resource must address this wave's "
          "scratch: its base 0x", absl::Hex(srd.base), " + soffset 0x", absl::Hex(soffset), " should be 0x",
          absl::Hex(kPrivateSrdBase + w.scratch_wave_offset),
          " (the private segment buffer's base plus the scratch wave offset SGPR); other swizzled buffers are "
          "not emulated"));
  }
  PendingOp op;
  uint32_t keep = 0;
  Extend(0, sh, &keep, c.kernel.sramecc == FeatureSetting::kOff);
  if (!sh.store) op = LoadOp(w.pc, Counter::kVm, data_op, regs, exec, keep);
  else {
    op.inst = w.pc;
    op.ctr = Counter::kVm;
  }
  std::vector<const uint32_t*> data;
  if (sh.store)
    for (int r = 0; r < regs; ++r) data.push_back(w.Row(data_op.cls, data_op.reg + r));
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    if (global) {
      const uint64_t addr = in.mods.saddr
                                ? GlobalAddress<uint64_t>(sbase, a0[l], static_cast<uint64_t>(mi.offset))
                                : GlobalAddress<uint64_t>(a0[l] | (uint64_t{a1[l]} << 32), 0,
                                                          static_cast<uint64_t>(mi.offset));
      if (!(st = GlobalLaneAccess(c, w, in, l, addr, sh, data, op, "")).ok()) return st;
      continue;
    }
    const uint64_t off = (mi.offen ? uint64_t{a0[l]} : 0) + static_cast<uint64_t>(mi.offset);
    if (private_srd) {
      if (!(st = PrivateAccess(c, w, in, l, off, sh, data, op)).ok()) return st;
      continue;
    }
    for (int k = 0; k < sh.comps; ++k) {
      const uint64_t o = off + static_cast<uint64_t>(k) * sh.bytes;
      if (!RawBufferComponentInRange(srd, soffset, o, sh.bytes)) continue;  // load 0 / store dropped
      const uint64_t addr = RawBufferAddress<uint64_t>(srd.base, soffset, o);
      const Region* r = c.mem.Find(addr, sh.bytes);
      if (r == nullptr)
        return absl::FailedPreconditionError(absl::StrCat(
            Describe(in), ": lane ", l, " in-range buffer access (offset ", o, " + ", sh.bytes, " <= num_records ",
            srd.num_records, " - soffset ", soffset, ") at ", c.mem.Describe(addr, sh.bytes),
            " falls outside every buffer"));
      // After the range check: a load of 0 or a dropped store is no access.
      if (c.global_races != nullptr &&
          !(st = c.global_races->Access(c.prog, c.mem, *r, addr, sh.bytes, w.pc, w.index(), l, sh.store)).ok())
        return st;
      if (sh.store) {
        uint32_t v = StoreBits(data[k][l], sh);
        c.mem.Write(addr, &v, sh.bytes);
      } else {
        uint32_t raw = 0, kp;
        c.mem.Read(addr, &raw, sh.bytes);
        op.writes[k].vals[l] = Extend(raw, sh, &kp, c.kernel.sramecc == FeatureSetting::kOff);
      }
    }
  }
  w.Issue(std::move(op));
  return absl::OkStatus();
}

// ds_read_b64_tr_b16 (gfx950; semantics.h DsReadTrB16Source): every lane
// reads its 8-byte block at DsAddress, then lane j's four 16-bit results are
// taken from the blocks of its 16-lane group. EXEC must be all ones (CDNA4
// ISA section 11.4): the emulator refuses any other mask.
absl::Status ExecDsReadTrB16(ExecContext& c, Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  absl::Status st;
  if (!(st = Arity(in, 2)).ok() || !(st = CheckData(in, OperandOr0(mi, OpName::kVdst), 2)).ok()) return st;
  const uint64_t exec = w.Exec();
  if (exec != ~uint64_t{0})
    return absl::FailedPreconditionError(absl::StrCat(
        Describe(in), ": EXEC is 0x", absl::Hex(exec), ", but ds_read_b64_tr_b16 exchanges data between the lanes "
        "of each 16-lane group and needs EXEC all ones (CDNA4 ISA 11.4): set EXEC to -1 around it"));
  const VSrc addr = ReadVSrc(w, OperandOr0(mi, OpName::kAddr), OpType::kB32, 0);
  const size_t size = c.wg.lds.size();
  constexpr uint32_t kBlock = 2 * kTrB16Elems;  // 8 bytes per lane
  const int race_op = c.opts.strict ? c.wg.races.NewOp(w.index(), w.pc, w.barrier_gen, false) : -1;
  uint16_t block[kLanes][kTrB16Elems];
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t a = DsAddress(U32Domain{}, addr[l], mi, 0);
    if (a + kBlock > size)
      return absl::FailedPreconditionError(absl::StrCat(
          Describe(in), ": lane ", l, " accesses LDS bytes [0x", absl::Hex(a), ", 0x", absl::Hex(a + kBlock),
          ") outside the workgroup's ", size, "-byte LDS allocation"));
    if (a % kBlock != 0)
      return absl::FailedPreconditionError(
          absl::StrCat(Describe(in), ": lane ", l, " LDS address 0x", absl::Hex(a), " is not 8-byte aligned"));
    if (race_op >= 0 &&
        !(st = c.wg.races.Access(c.prog, race_op, l, static_cast<uint32_t>(a), kBlock, w.barrier_gen)).ok())
      return st;
    std::memcpy(block[l], c.wg.lds.data() + a, kBlock);
  }
  PendingOp op = LoadOp(w.pc, Counter::kDs, OperandOr0(mi, OpName::kVdst), 2, exec, 0);
  op.lds_op = race_op;
  for (int j = 0; j < kLanes; ++j)
    for (int e = 0; e < kTrB16Elems; ++e) {
      const TrB16Source src = DsReadTrB16Source(j, e);
      op.writes[e / 2].vals[j] |= static_cast<uint32_t>(block[src.lane][src.elem]) << (16 * (e % 2));
    }
  w.Issue(std::move(op));
  return absl::OkStatus();
}

absl::Status ExecDs(ExecContext& c, Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  if (mi.opc == Opc::kDsReadB64TrB16) return ExecDsReadTrB16(c, w, in);
  const Shape sh = ShapeOf(mi.opc);
  if (sh.comps == 0) return Unsupported(in, "this DS instruction");
  const bool two = MemoryShape(mi.opc).addrs == 2;  // read2/write2
  const int elem = two ? sh.bytes : sh.comps * sh.bytes;  // bytes per address
  const int regs = sh.bytes == 8 ? 2 * sh.comps : sh.comps;
  absl::Status st;
  VSrc addr;
  std::vector<const uint32_t*> data;
  if (sh.store) {
    if (!(st = Arity(in, two ? 3 : 2)).ok()) return st;
    addr = ReadVSrc(w, OperandOr0(mi, OpName::kAddr), OpType::kB32, 0);
    for (OpName n : {OpName::kData0, OpName::kData1}) {  // data1: write2 only
      const MOperand* d = FindOperand(mi, n);
      if (d == nullptr) continue;
      const int per = two ? regs / 2 : regs;
      if (!(st = CheckData(in, *d, per)).ok()) return st;
      for (int r = 0; r < per; ++r) data.push_back(w.Row(d->cls, d->reg + r));
    }
  } else {
    if (!(st = Arity(in, 2)).ok() || !(st = CheckData(in, OperandOr0(mi, OpName::kVdst), regs)).ok()) return st;
    addr = ReadVSrc(w, OperandOr0(mi, OpName::kAddr), OpType::kB32, 0);
  }
  const int naddrs = two ? 2 : 1;
  const uint32_t align = elem == 12 ? 16 : static_cast<uint32_t>(elem);
  const uint64_t exec = w.Exec();
  const size_t size = c.wg.lds.size();
  const bool strict = c.opts.strict;
  int race_op = strict ? c.wg.races.NewOp(w.index(), w.pc, w.barrier_gen, sh.store) : -1;
  uint32_t keep = 0;
  Extend(0, sh, &keep, c.kernel.sramecc == FeatureSetting::kOff);
  PendingOp op = sh.store ? PendingOp{} : LoadOp(w.pc, Counter::kDs, OperandOr0(mi, OpName::kVdst), regs, exec, keep);
  op.inst = w.pc;
  op.ctr = Counter::kDs;
  op.lds_op = race_op;
  for (int l = 0; l < kLanes; ++l) {
    if (!(exec >> l & 1)) continue;
    for (int e = 0; e < naddrs; ++e) {
      // (vaddr + offset) mod 2^32: the rule shared with the verifier.
      const uint64_t a = DsAddress(U32Domain{}, addr[l], mi, e);
      if (a + elem > size)
        return absl::FailedPreconditionError(absl::StrCat(
            Describe(in), ": lane ", l, " accesses LDS bytes [0x", absl::Hex(a), ", 0x", absl::Hex(a + elem),
            ") outside the workgroup's ", size, "-byte LDS allocation"));
      if (a % align != 0)
        return absl::FailedPreconditionError(absl::StrCat(Describe(in), ": lane ", l, " LDS address 0x",
                                                          absl::Hex(a), " is not ", align, "-byte aligned"));
      if (strict) {
        st = c.wg.races.Access(c.prog, race_op, l, static_cast<uint32_t>(a), elem, w.barrier_gen);
        if (!st.ok()) return st;
      }
      uint8_t* p = c.wg.lds.data() + a;
      const int per = elem >= 4 ? elem / 4 : 1;  // registers per element
      for (int r = 0; r < per; ++r) {
        const int reg = e * per + r;
        const int nbytes = elem >= 4 ? 4 : elem;
        if (sh.store) {
          uint32_t v = StoreBits(data[reg][l], sh);
          std::memcpy(p + 4 * r, &v, nbytes);
        } else {
          uint32_t raw = 0, kp;
          std::memcpy(&raw, p + 4 * r, nbytes);
          op.writes[reg].vals[l] = Extend(raw, sh, &kp, c.kernel.sramecc == FeatureSetting::kOff);
        }
      }
    }
  }
  w.Issue(std::move(op));
  return absl::OkStatus();
}

}  // namespace

absl::Status ExecMemory(ExecContext& c, Wave& w, const Inst& in) {
  InstClass cls = Info(in.mi.opc).cls;
  absl::Status st = IsDs(cls) ? ExecDs(c, w, in) : ExecVmem(c, w, in);
  if (st.ok()) ++w.pc;
  return st;
}

}  // namespace kir::emu
