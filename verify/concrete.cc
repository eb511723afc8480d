#include "verify/concrete.h"

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"
#include "verify/opcode_kinds.h"

namespace kir::vfy {

namespace {

// The byte address of the component `byte_offset` bytes into address
// `address` of lane `lane` of execution `r` of memory instruction `mi`: LDS
// (DsAddress), global_* (GlobalAddress, modulo 2^64 as the hardware) or a raw
// buffer (RawBufferAddress; whether the SRD range check drops it is
// RawBufferInRange's, not this function's).
uint64_t ComponentAddress(const MInst& mi, const MemRecord& r, int lane, int address, int64_t byte_offset) {
  const MemShape sh = MemoryShape(mi.opc);
  if (sh.lds) return uint64_t{DsAddress(U32Domain{}, r.vaddr[lane], mi, address)} + byte_offset;
  if (Info(mi.opc).flags & kGlobalAddr)
    return r.vaddr_hi.empty()
               ? GlobalAddress<uint64_t>(r.saddr, r.vaddr[lane], static_cast<uint64_t>(mi.offset + byte_offset))
               : GlobalAddress<uint64_t>(r.vaddr[lane] | (uint64_t{r.vaddr_hi[lane]} << 32), 0,
                                         static_cast<uint64_t>(mi.offset + byte_offset));
  const uint64_t base = r.srd[0] | (static_cast<uint64_t>(r.srd[1] & 0xffff) << 32);
  return RawBufferAddress<uint64_t>(base, r.soffset,
                                    (mi.offen ? uint64_t{r.vaddr[lane]} : 0) + static_cast<uint64_t>(mi.offset + byte_offset));
}


constexpr int kLanes = 64;

using N = OpName;

uint32_t Hash(uint64_t a, uint64_t b) {
  uint64_t h = (a + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
  h ^= (b + (h >> 29)) * 0x94d049bb133111ebull;
  return static_cast<uint32_t>(h ^ (h >> 31));
}

struct WaveRegs {
  std::vector<std::vector<uint32_t>> v, a;  // [reg][lane]
  std::vector<uint32_t> s;
  uint64_t vcc = 0, exec = 0;
  uint32_t m0 = 0;
  bool scc = false;
};



// Register access and the SALU/VALU semantics of one wave.
struct Exec {
  using Wave = WaveRegs;
  uint32_t Src(const Wave& w, const MOperand& o, int lane, int dword = 0) const {
    switch (o.kind) {
      case MOperand::Kind::kImm:
        if (dword == 0) return static_cast<uint32_t>(o.imm);
        return ImmediateHighDword64(o.imm);
      case MOperand::Kind::kSpecial:
        switch (o.special) {
          case SpecialReg::kVcc: return static_cast<uint32_t>(w.vcc >> (32 * (dword & 1)));
          case SpecialReg::kExec: return static_cast<uint32_t>(w.exec >> (32 * (dword & 1)));
          case SpecialReg::kM0: return w.m0;
          case SpecialReg::kScc: return w.scc;
          default: return 0;
        }
      case MOperand::Kind::kReg:
        if (o.cls == RegClass::kSgpr) {
          int half = 0;  // vcc_lo/vcc_hi, m0, exec_lo/exec_hi are halves of the special registers
          if (SpecialReg r = SgprAlias(o.reg + dword, &half); r != SpecialReg::kNone)
            return Src(w, MOperand::Special(r), lane, half);
          return w.s[(o.reg + dword) % 128];
        }
        return (o.cls == RegClass::kVgpr ? w.v : w.a)[(o.reg + dword) % 512][lane];
    }
    return 0;
  }
  uint64_t Mask(const Wave& w, const MOperand& o) const {
    if (o.kind == MOperand::Kind::kImm) return static_cast<uint64_t>(o.imm);
    return Src(w, o, 0, 0) | (static_cast<uint64_t>(Src(w, o, 0, 1)) << 32);
  }
  void SetS(Wave& w, const MOperand& o, int dword, uint32_t v) const {
    if (o.kind == MOperand::Kind::kSpecial) {
      switch (o.special) {
        case SpecialReg::kVcc:
          w.vcc = dword ? (w.vcc & 0xffffffffull) | (static_cast<uint64_t>(v) << 32) : (w.vcc & ~0xffffffffull) | v;
          return;
        case SpecialReg::kExec:
          w.exec = dword ? (w.exec & 0xffffffffull) | (static_cast<uint64_t>(v) << 32) : (w.exec & ~0xffffffffull) | v;
          return;
        case SpecialReg::kM0: w.m0 = v; return;
        case SpecialReg::kScc: w.scc = v != 0; return;
        default: return;
      }
    }
    if (o.kind == MOperand::Kind::kReg && o.cls == RegClass::kSgpr) {
      int half = 0;
      if (SpecialReg r = SgprAlias(o.reg + dword, &half); r != SpecialReg::kNone)
        return SetS(w, MOperand::Special(r), half, v);
      w.s[(o.reg + dword) % 128] = v;
    }
  }
  void SetMask(Wave& w, const MOperand& o, uint64_t m) const {
    SetS(w, o, 0, static_cast<uint32_t>(m));
    SetS(w, o, 1, static_cast<uint32_t>(m >> 32));
  }
  void SetV(Wave& w, const MOperand& o, int dword, int lane, uint32_t v) const {
    if (o.kind != MOperand::Kind::kReg) return;
    if (o.cls == RegClass::kSgpr) return SetS(w, o, dword, v);
    (o.cls == RegClass::kVgpr ? w.v : w.a)[(o.reg + dword) % 512][lane] = v;
  }

  void ExecSalu(Wave& w, const MInst& mi) {
    const Opc opc = mi.opc;
    const int defs = mi.NumDefs();
    U32Domain d;
    // The result (SOP/SOPK layouts; present when defs == 1, absent for s_cmp/s_cmpk).
    const MOperand& sdst = OperandOr0(mi, N::kSdst);
    if (IsSaveexec(opc)) {
      uint64_t src = Mask(w, OperandOr0(mi, N::kSrc0)), old = w.exec;
      uint64_t r = opc == Opc::kSAndSaveexecB64 ? src & old
                   : opc == Opc::kSOrSaveexecB64 ? src | old
                   : opc == Opc::kSXorSaveexecB64 ? src ^ old : src & ~old;
      SetMask(w, sdst, old);
      w.exec = r;
      w.scc = r != 0;
      return;
    }
    if (IsWideSalu(opc)) {
      std::vector<Pair64<uint32_t>> s;
      for (size_t i = defs; i < mi.ops.size(); ++i) s.push_back({Src(w, mi.ops[i], 0, 0), Src(w, mi.ops[i], 0, 1)});
      if (opc == Opc::kSCselectB64) s.push_back({w.scc ? 1u : 0u, 0u});
      while (s.size() < 4) s.push_back({0u, 0u});
      std::optional<Wide64<uint32_t>> r = EvalWideOp(d, opc, s);
      if (!r) return;
      if (defs == 1) {
        SetS(w, sdst, 0, r->lo);
        if (opc != Opc::kSBcnt1I32B64) SetS(w, sdst, 1, r->hi);
      }
      if (r->has_flag) w.scc = r->flag != 0;
      return;
    }
    std::vector<uint32_t> s;
    if (opc == Opc::kSAddkI32 || opc == Opc::kSMulkI32) s.push_back(Src(w, sdst, 0));
    for (size_t i = defs; i < mi.ops.size(); ++i) s.push_back(Src(w, mi.ops[i], 0));
    if (IsSopk(opc) && !s.empty()) {
      // SOPK immediates are 16 bits: zero-extended for the unsigned compares, else sign-extended.
      uint32_t imm16 = s.back() & 0xffff;
      s.back() = IsSopkUnsigned(opc) ? imm16 : static_cast<uint32_t>(static_cast<int16_t>(imm16));
    }
    if (Info(opc).flags & kReadsScc) s.push_back(w.scc ? 1u : 0u);
    while (s.size() < 4) s.push_back(0);
    std::optional<uint32_t> r = EvalIntOp(d, opc, s);
    if (!r) {
      if (defs == 1) SetS(w, sdst, 0, Hash(static_cast<uint64_t>(opc), s[0]));
      return;
    }
    std::optional<uint32_t> f = EvalFlagOut(d, opc, s, *r);
    if (defs == 1) SetS(w, sdst, 0, *r);
    if (f) w.scc = *f != 0;
  }

  // `vm`: the instruction's SDWA selects and integer clamp (null: none),
  // applied with the shared semantics as the symbolic execution does.
  // `opaque`: the instruction carries modifiers the shared semantics do not
  // model (LoweredKernel::unmodelled: neg/abs on v_cmp_class, ...): its result
  // is a deterministic function of the sources, never the unmodified value.
  void ExecValu(Wave& w, const MInst& mi, const U32Domain& d, const VopModifiers* vm, bool opaque = false) {
    const Opc opc = mi.opc;
    const int defs = mi.NumDefs();
    const char* mn = Info(opc).mnemonic;
    const uint64_t exec = w.exec;
    const MOperand& vdst = OperandOr0(mi, N::kVdst);
    const MOperand& src0 = OperandOr0(mi, N::kSrc0);
    const MOperand& src1 = OperandOr0(mi, N::kSrc1);
    const bool sdwa = vm != nullptr && vm->sdwa, clamp = vm != nullptr && vm->clamp;
    auto sel = [&](int k, uint32_t v) { return sdwa && k < 2 ? SdwaSource(d, v, vm->src_sel[k], vm->src_sext[k]) : v; };
    auto sdwa_dst = [&](int lane, uint32_t r) {
      return sdwa ? SdwaDest(d, Src(w, vdst, lane), r, vm->dst_sel, vm->dst_unused) : r;
    };
    if (absl::StartsWith(mn, "v_cmp")) {
      uint64_t m = 0;
      bool wide = IsWideCompare(opc);
      for (int l = 0; l < kLanes; ++l) {
        if (!(exec >> l & 1)) continue;
        bool bit;
        if (wide) {
          std::vector<Pair64<uint32_t>> s = {{Src(w, src0, l, 0), Src(w, src0, l, 1)},
                                             {Src(w, src1, l, 0), WideCompareSrc1Is64(opc) ? Src(w, src1, l, 1) : 0u}};
          std::optional<Wide64<uint32_t>> r;
          if (!opaque) r = EvalWideOp(d, opc, s);
          bit = r ? r->flag != 0 : (Hash(Hash(s[0].lo, s[0].hi), s[1].lo) & 1);
        } else {
          std::vector<uint32_t> s = {sel(0, Src(w, src0, l)), sel(1, Src(w, src1, l)), 0, 0};
          std::optional<uint32_t> r;
          if (!opaque) r = EvalIntOp(d, opc, s);
          bit = r ? *r != 0 : (Hash(s[0], s[1]) & 1);
        }
        if (bit) m |= uint64_t{1} << l;
      }
      SetMask(w, OperandOr0(mi, N::kSdst), m);
      if (Info(opc).flags & kWritesExec) w.exec = m;
      return;
    }
    if (opc == Opc::kVReadfirstlaneB32 || opc == Opc::kVReadlaneB32) {
      int lane = opc == Opc::kVReadlaneB32 ? static_cast<int>(Src(w, src1, 0) & 63)
                                           : (exec ? __builtin_ctzll(exec) : 0);
      SetS(w, vdst, 0, Src(w, src0, lane));
      return;
    }
    if (opc == Opc::kVCndmaskB32) {
      const MOperand* mask = FindOperand(mi, N::kSrc2);  // absent: VCC (the e32 form)
      uint64_t m = mask != nullptr ? Mask(w, *mask) : w.vcc;
      for (int l = 0; l < kLanes; ++l)
        if (exec >> l & 1) SetV(w, vdst, 0, l, sdwa_dst(l, (m >> l & 1) ? sel(1, Src(w, src1, l)) : sel(0, Src(w, src0, l))));
      return;
    }
    if (opc == Opc::kVAccvgprRead || opc == Opc::kVAccvgprWrite || opc == Opc::kVAccvgprMov || opc == Opc::kVMovB32) {
      std::vector<uint32_t> vals(kLanes);
      for (int l = 0; l < kLanes; ++l) vals[l] = sdwa_dst(l, sel(0, Src(w, src0, l)));
      for (int l = 0; l < kLanes; ++l)
        if (exec >> l & 1) SetV(w, vdst, 0, l, vals[l]);
      return;
    }
    const bool wide = IsWideValu(opc);
    if (defs == 2 && !wide) {  // carry forms: vdst, sdst, src0, src1[, src2: carry-in mask]
      const MOperand* carry_in = FindOperand(mi, N::kSrc2);
      uint64_t cin = carry_in != nullptr ? Mask(w, *carry_in) : 0, cout = 0;
      for (int l = 0; l < kLanes; ++l) {
        if (!(exec >> l & 1)) continue;
        std::vector<uint32_t> s = {sel(0, Src(w, src0, l)), sel(1, Src(w, src1, l)), static_cast<uint32_t>(cin >> l & 1),
                                   0};
        std::optional<uint32_t> r = EvalIntOp(d, opc, s);
        if (!r) continue;
        std::optional<uint32_t> f = EvalFlagOut(d, opc, s, *r);
        SetV(w, vdst, 0, l, sdwa_dst(l, *r));
        if (f && *f) cout |= uint64_t{1} << l;
      }
      SetMask(w, OperandOr0(mi, N::kSdst), cout);
      return;
    }
    // Everything else, lane by lane: integer ops through the shared semantics,
    // other results (float, MFMA, ...) as a deterministic function of the sources.
    const MOperand& dst = vdst;
    int n = dst.kind == MOperand::Kind::kReg ? dst.count : 1;
    std::vector<std::vector<uint32_t>> out(n, std::vector<uint32_t>(kLanes));
    for (int l = 0; l < kLanes; ++l) {
      if (!(exec >> l & 1)) continue;
      if (wide && !opaque) {
        std::vector<Pair64<uint32_t>> s;
        for (size_t i = defs; i < mi.ops.size(); ++i) s.push_back({Src(w, mi.ops[i], l, 0), Src(w, mi.ops[i], l, 1)});
        std::optional<Wide64<uint32_t>> r = EvalWideOp(d, opc, s);
        if (r) {
          out[0][l] = r->lo;
          if (n > 1) out[1][l] = r->hi;
          continue;
        }
      }
      std::vector<uint32_t> s;
      for (size_t i = defs; i < mi.ops.size(); ++i) s.push_back(sel(static_cast<int>(i) - defs, Src(w, mi.ops[i], l)));
      while (s.size() < 4) s.push_back(0);
      std::optional<uint32_t> r;
      if (n == 1 && !opaque && Info(opc).cls == InstClass::kValu && opc != Opc::kVMbcntLoU32B32 &&
          opc != Opc::kVMbcntHiU32B32)
        r = clamp ? EvalIntOpClamped(d, opc, s) : EvalIntOp(d, opc, s);
      if (r) r = sdwa_dst(l, *r);
      for (int j = 0; j < n; ++j) {
        uint64_t h = static_cast<uint64_t>(opc) * 131 + j;
        for (size_t i = defs; i < mi.ops.size(); ++i) {
          const MOperand& o = mi.ops[i];
          for (int q = 0; q < (o.kind == MOperand::Kind::kReg ? o.count : 1); ++q) h = Hash(h, Src(w, o, l, q));
        }
        out[j][l] = r ? *r : static_cast<uint32_t>(h);
      }
    }
    for (int j = 0; j < n; ++j)
      for (int l = 0; l < kLanes; ++l)
        if (exec >> l & 1) SetV(w, dst, j, l, out[j][l]);
  }

};

}  // namespace

struct ConcreteRunner::Wave : WaveRegs {};

ConcreteRunner::ConcreteRunner(const Kernel& k, const TargetInfo& t, const LoweredKernel& lk, int setting)
    : k_(k), t_(t), lk_(lk), setting_(setting) {
  // Setting 0: below 4 GiB (high dword 0, as undefined registers there), so
  // code reading the pointer's high half where it means something else shows.
  kernarg_ptr_ = setting == 0 ? 0x08000000ull : 0x00007f0000000000ull + static_cast<uint64_t>(setting) * 0x100000000ull;
  kernarg_.assign(static_cast<size_t>(std::max<int64_t>(lk.abi.kernarg_size, 8)), 0);
  int i = 0;
  for (const KernelAbi::KernargSlot& slot : lk.abi.kernargs) {
    uint64_t v;
    if (slot.is_buffer) {
      const Arg* arg = k.FindArg(slot.name);
      uint32_t lo = setting == 0                  ? 0x10000000u + i * 0x01000000u
                    : setting == 1                ? 0xffff0000u - i * 0x00100000u
                    : setting == kStraddleSetting ? StraddlePointerLo(arg != nullptr ? arg->SizeBytes() : 0)
                                                  : 0x80000000u + i * 0x00010000u;
      uint32_t hi = setting == 0 ? 0x0001u + i : setting == 1 ? 0xfffeu - i
                    : setting == kStraddleSetting ? 0x0010u + i : 0x7fffu - i;
      v = lo | (static_cast<uint64_t>(hi) << 32);
      // The buffer ends at or below 2^48 (the verifier assumes it; so does
      // hardware's 48-bit address space): large buffers start lower.
      const uint64_t size = arg != nullptr ? static_cast<uint64_t>(arg->SizeBytes()) : 0;
      if (v + size > (uint64_t{1} << 48)) v -= ((v + size - (uint64_t{1} << 48)) + 0xffffffffull) & ~0xffffffffull;
    } else {
      v = Hash(setting, i);
    }
    ptr_[slot.name] = v;
    for (int64_t b = 0; b < slot.size; ++b)
      if (slot.offset + b < static_cast<int64_t>(kernarg_.size()))
        kernarg_[slot.offset + b] = static_cast<uint8_t>(v >> (8 * b));
    ++i;
  }
  const std::vector<MInst>& insts = lk.mir.insts;
  for (size_t j = 0; j < insts.size(); ++j)
    if (insts[j].opc == Opc::kLabel)
      if (const MOperand* id = FindOperand(insts[j], N::kTarget)) label_at_[id->imm] = static_cast<int>(j);
  for (size_t j = 0; j < insts.size(); ++j) {
    const MOperand* target = FindOperand(insts[j], N::kTarget);
    if (!(Info(insts[j].opc).flags & kBranch) || target == nullptr) continue;
    auto it = label_at_.find(target->imm);
    if (it != label_at_.end() && it->second < static_cast<int>(j)) latch_of_[it->second] = static_cast<int>(j);
  }
}

uint64_t ConcreteRunner::Pointer(const std::string& arg) const {
  auto it = ptr_.find(arg);
  return it == ptr_.end() ? 0 : it->second;
}

uint32_t ConcreteRunner::Undefined(uint64_t reg, int lane) const {
  // Setting 0: every never-written register reads 0 (a 0x80000000 guard
  // value or an SRD's dword 3 left out then shows in every lane, where
  // hashed values can happen to be harmless); the others: hashed values.
  if (setting_ == 0) return 0;
  return Hash(0xdead0000ull + reg, setting_ * 64 + lane);
}

uint32_t ConcreteRunner::Load(uint64_t addr) const {
  if (addr >= kernarg_ptr_ && addr + 4 <= kernarg_ptr_ + kernarg_.size()) {
    uint32_t v = 0;
    for (int b = 0; b < 4; ++b) v |= static_cast<uint32_t>(kernarg_[addr - kernarg_ptr_ + b]) << (8 * b);
    return v;
  }
  return Hash(addr, 77 + setting_);
}

int ConcreteRunner::Waves() const {
  int64_t threads = k_.workgroup[0] * k_.workgroup[1] * k_.workgroup[2];
  return static_cast<int>((threads + kLanes - 1) / kLanes);
}

std::array<int64_t, 3> WorkItemId(const Kernel& k, int wave, int lane) {
  const int64_t X = k.workgroup[0], Y = k.workgroup[1];
  const int64_t lin = int64_t{wave} * kLanes + lane;
  return {lin % X, (lin / X) % Y, lin / (X * Y)};
}

std::array<int64_t, 3> ConcreteRunner::TidOf(int wave, int lane) const { return WorkItemId(k_, wave, lane); }

void ConcreteRunner::Init(Wave& w, std::array<int64_t, 3> wg, int wave) const {
  w.v.assign(512, std::vector<uint32_t>(kLanes));
  w.a.assign(512, std::vector<uint32_t>(kLanes));
  for (int r = 0; r < 512; ++r)
    for (int l = 0; l < kLanes; ++l) {
      w.v[r][l] = Undefined(r, l);
      w.a[r][l] = Undefined(1000 + r, l);
    }
  w.s.assign(128, 0);
  for (int r = 0; r < 128; ++r) w.s[r] = Undefined(2000 + r, 0);
  w.vcc = (static_cast<uint64_t>(Undefined(3000, 0)) << 32) | Undefined(3001, 0);
  w.m0 = Undefined(3002, 0);
  w.scc = Undefined(3003, 0) & 1;
  w.exec = ~uint64_t{0};
  w.s[lk_.abi.kernarg_ptr_sgpr] = static_cast<uint32_t>(kernarg_ptr_);
  w.s[lk_.abi.kernarg_ptr_sgpr + 1] = static_cast<uint32_t>(kernarg_ptr_ >> 32);
  int sys = lk_.abi.FirstSystemSgpr();
  for (int d = 0; d < 3; ++d)
    if (lk_.abi.wg_id_enabled[d]) w.s[sys++] = static_cast<uint32_t>(wg[d]);
  const int en = lk_.abi.workitem_id_enable;
  for (int l = 0; l < kLanes; ++l) {
    std::array<int64_t, 3> tid = TidOf(wave, l);
    uint32_t tx = static_cast<uint32_t>(tid[0]), ty = static_cast<uint32_t>(tid[1]), tz = static_cast<uint32_t>(tid[2]);
    if (t_.packed_workitem_ids) {
      w.v[0][l] = tx | (en >= 1 ? ty << 10 : 0) | (en >= 2 ? tz << 20 : 0);
    } else {
      w.v[0][l] = tx;
      if (en >= 1) w.v[1][l] = ty;
      if (en >= 2) w.v[2][l] = tz;
    }
  }
}

absl::Status ConcreteRunner::RunWave(std::array<int64_t, 3> wg, int wave,
                                     const std::function<void(const MemRecord&)>& on_mem, int64_t max_steps,
                                     int64_t* steps_out) {
  Wave w;
  Init(w, wg, wave);
  Exec ex;
  U32Domain d;
  const std::vector<MInst>& insts = lk_.mir.insts;
  std::vector<std::pair<int, int64_t>> loops;  // active loops: (label index, iteration)
  int64_t steps = 0;
  struct StepReport {  // `steps` to the caller on every return
    int64_t* out;
    const int64_t& n;
    ~StepReport() {
      if (out) *out = n;
    }
  } report{steps_out, steps};
  for (size_t pc = 0; pc < insts.size();) {
    if (++steps > max_steps) return absl::DeadlineExceededError("the wave does not terminate");
    const MInst& mi = insts[pc];
    const Opc opc = mi.opc;
    const OpcInfo& info = Info(opc);
    if (opc == Opc::kSEndpgm) return absl::OkStatus();
    if (opc == Opc::kLabel) {
      if (latch_of_.count(static_cast<int>(pc))) loops.push_back({static_cast<int>(pc), 0});
      ++pc;
      continue;
    }
    if (info.flags & kBranch) {
      bool take = false;
      switch (opc) {
        case Opc::kSBranch: take = true; break;
        case Opc::kSCbranchScc0: take = !w.scc; break;
        case Opc::kSCbranchScc1: take = w.scc; break;
        case Opc::kSCbranchVccz: take = w.vcc == 0; break;
        case Opc::kSCbranchVccnz: take = w.vcc != 0; break;
        case Opc::kSCbranchExecz: take = w.exec == 0; break;
        case Opc::kSCbranchExecnz: take = w.exec != 0; break;
        default: return absl::UnimplementedError("unknown branch");
      }
      const MOperand* label = FindOperand(mi, N::kTarget);
      auto it = label == nullptr ? label_at_.end() : label_at_.find(label->imm);
      if (it == label_at_.end()) return absl::InvalidArgumentError("branch to an unknown label");
      const int target = it->second;
      if (!loops.empty() && loops.back().first == target && latch_of_.at(target) == static_cast<int>(pc)) {
        if (take) {
          ++loops.back().second;
          pc = static_cast<size_t>(target) + 1;
        } else {
          loops.pop_back();
          ++pc;
        }
        continue;
      }
      if (take) {
        // Any other jump leaves the loops it jumps out of.
        while (!loops.empty() && (target < loops.back().first || target > latch_of_.at(loops.back().first)))
          loops.pop_back();
        pc = static_cast<size_t>(target);
      } else {
        ++pc;
      }
      continue;
    }
    switch (info.cls) {
      case InstClass::kSopp:
        break;
      case InstClass::kSmem: {
        const MOperand& sdst = OperandOr0(mi, N::kSdst);
        uint64_t base = ex.Mask(w, OperandOr0(mi, N::kSbase));
        const MOperand* offset = FindOperand(mi, N::kOffset);  // absent: the offset field
        uint64_t off = offset != nullptr ? (offset->kind == MOperand::Kind::kImm ? static_cast<uint64_t>(offset->imm)
                                                                                 : ex.Src(w, *offset, 0))
                                         : static_cast<uint64_t>(mi.offset);
        for (int j = 0; j < OperandDwords(sdst); ++j) ex.SetS(w, sdst, j, Load(base + off + 4 * j));
        break;
      }
      case InstClass::kSalu:
        ex.ExecSalu(w, mi);
        break;
      case InstClass::kValu:
      case InstClass::kValuTrans:
      case InstClass::kMfma:
      case InstClass::kAccRead:
      case InstClass::kAccWrite: {
        auto vm = lk_.modifiers.find(mi.id);
        ex.ExecValu(w, mi, d, vm != lk_.modifiers.end() ? &vm->second : nullptr, lk_.unmodelled.count(mi.id) > 0);
        break;
      }
      default: {
        MemShape sh = MemoryShape(opc);
        if (sh.comps == 0) return absl::UnimplementedError(absl::StrCat(info.mnemonic, " is not executed"));
        MemRecord r;
        r.index = static_cast<int>(pc);
        r.iters = loops;
        r.exec = w.exec;
        r.m0 = w.m0;
        r.vaddr.assign(kLanes, 0);
        const MOperand& ao = OperandOr0(mi, sh.lds ? N::kAddr : N::kVaddr);
        for (int l = 0; l < kLanes; ++l) r.vaddr[l] = ex.Src(w, ao, l);
        const bool global = info.flags & kGlobalAddr;
        const MOperand* saddr = global ? FindOperand(mi, N::kSaddr) : nullptr;
        if (global && saddr != nullptr) {
          r.saddr = ex.Mask(w, *saddr);
        } else if (global) {
          r.vaddr_hi.assign(kLanes, 0);
          for (int l = 0; l < kLanes; ++l) r.vaddr_hi[l] = ex.Src(w, ao, l, 1);
        } else if (!sh.lds) {
          const MOperand& srsrc = OperandOr0(mi, N::kSrsrc);
          for (int i = 0; i < 4; ++i) r.srd[i] = ex.Src(w, srsrc, 0, i);
          r.soffset = ex.Src(w, OperandOr0(mi, N::kSoffset), 0);
        }
        on_mem(r);
        // A value loaded from the private segment (scratch_*, or a buffer
        // load through an ADD_TID_ENABLE SRD such as the private segment
        // buffer) would be what the lane stored there, which this run does
        // not keep: stop rather than make one up (the verifier's symbolic
        // side holds such values abstract).
        if (!sh.store && ((info.flags & kScratchAddr) || (!sh.lds && !global && ((r.srd[3] >> 23) & 1))))
          return absl::UnimplementedError(
              absl::StrCat(info.mnemonic, ": values loaded from the private segment are not executed concretely"));
        if (!sh.store && !(info.flags & kLdsDma)) {  // an LDS DMA writes LDS, no register
          // Loaded data: a function of the address (and setting), 0 when dropped.
          const MOperand& data = OperandOr0(mi, sh.lds || global ? N::kVdst : N::kVdata);
          const int per = data.count / sh.addrs;  // dwords per address (read2: two addresses)
          for (int c = 0; c < data.count; ++c)
            for (int l = 0; l < kLanes; ++l) {
              if (!(w.exec >> l & 1)) continue;
              const uint64_t a = ComponentAddress(mi, r, l, c / per, 4 * (c % per));
              ex.SetV(w, data, c, l, Hash(a, 1000 + setting_));
            }
        }
        break;
      }
    }
    ++pc;
  }
  return absl::OkStatus();
}


std::optional<std::vector<Touch>> TouchedBytes(const MInst& mi, const MemRecord& r, int lane) {
  std::vector<Touch> out;
  if (!(r.exec >> lane & 1)) return out;
  const MemShape sh = MemoryShape(mi.opc);
  const bool global = Info(mi.opc).flags & kGlobalAddr;
  // flat_* (placed by aperture) and scratch_* (private) are not given here.
  if (Info(mi.opc).flags & (kFlatAddr | kScratchAddr)) return std::nullopt;
  if (!sh.lds && !global) {
    // Raw buffers only (the verifier's obligations require it too).
    if (((r.srd[1] >> 16) & 0x3fff) != 0 || (r.srd[1] >> 30) != 0 || ((r.srd[3] >> 23) & 1) != 0)
      return std::nullopt;
  }
  const int per = sh.comps / std::max(1, sh.addrs);  // components per address
  for (int a = 0; a < std::max(1, sh.addrs); ++a)
    for (int c = 0; c < per; ++c) {
      const int64_t off = int64_t{c} * sh.bytes;
      if (!sh.lds && !global &&
          !RawBufferInRange<int64_t>(r.srd[2], r.soffset, (mi.offen ? int64_t{r.vaddr[lane]} : 0) + mi.offset + off,
                                     sh.bytes))
        continue;
      out.push_back(Touch{a, ComponentAddress(mi, r, lane, a, off), sh.bytes});
    }
  return out;
}

}  // namespace kir::vfy
