#include "verify/symexec.h"

#include "compiler/analysis/index_analysis.h"

#include <optional>
#include <unordered_map>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"
#include "verify/opcode_kinds.h"

namespace kir::vfy {
namespace {

using N = OpName;

// The VCC half `dword` (0 lo, 1 hi) as LLVM names it: "vcc_lo", "vcc_hi".
std::string VccHalfName(int dword) { return SgprDwordName(kVccLoEncoding + (dword ? 1 : 0)); }

bool IsMemory(InstClass c) { return IsVmemOrDs(c); }

const char* DimName(int d) { return d == 0 ? "x" : d == 1 ? "y" : "z"; }


// Whether the workgroup's x extent is a positive multiple of 64 (whole waves
// along x): lane l of a wave then has tid.x = 64 * w + l and the tid.y,
// tid.z of the wave's first lane (waves are runs of 64 consecutive linear
// ids, x fastest: kernel.h's Kernel).
bool WholeWavesAlongX(const Kernel& k) { return k.workgroup[0] > 0 && k.workgroup[0] % 64 == 0; }

// Whether every wave is whole: the workgroup's x * y * z a positive
// multiple of 64 (with EXEC all ones, the first active lane is lane 0).
bool WholeWaves(const Kernel& k) {
  const int64_t n = k.workgroup[0] * k.workgroup[1] * k.workgroup[2];
  return k.workgroup[0] > 0 && k.workgroup[1] > 0 && k.workgroup[2] > 0 && n % 64 == 0;
}

// The unit u (a power of two) such that tid.{d} & ~(u - 1) is the same in
// every lane of a wave (the lane-0 value of that rounding is the wave's
// first lane's tid.d), or 0 when there is none. With whole waves: tid.x
// with whole waves along x: 64; tid.y when x divides 64 and x * y is a
// multiple of 64 (a wave is 64 / x aligned whole rows): 64 / x; tid.z when
// x * y divides 64 (a wave is 64 / (x * y) aligned whole planes).
int64_t WaveIdUnit(const Kernel& k, int d) {
  if (!WholeWaves(k)) return 0;
  const int64_t x = k.workgroup[0], xy = x * k.workgroup[1];
  if (d == 0) return WholeWavesAlongX(k) ? 64 : 0;
  if (d == 1) return 64 % x == 0 && xy % 64 == 0 ? 64 / x : 0;
  return 64 % xy == 0 ? 64 / xy : 0;
}

// Whether tid.{d} is 0 in the first lane of every wave: whole waves whose
// lower extents (x, x * y) divide 64, so each wave starts a row (a plane).
bool WaveStartsAtIdZero(const Kernel& k, int d) {
  if (!WholeWaves(k)) return false;
  int64_t below = 1;
  for (int i = 0; i <= d; ++i) below *= k.workgroup[i];
  return 64 % below == 0;
}
}  // namespace

std::string OperandName(const MOperand& o) {
  switch (o.kind) {
    case MOperand::Kind::kImm:
      if (IsInlineIntConstant(o.imm)) return absl::StrCat(o.imm);
      return absl::StrCat("0x", absl::Hex(static_cast<uint32_t>(o.imm)));
    case MOperand::Kind::kSpecial:
      return SpecialRegName(o.special);
    case MOperand::Kind::kReg:
      // One dword of VCC, M0 or EXEC by LLVM's name, as written (`exec_hi`,
      // not "s127": fresh-user review 22 F4).
      if (o.cls == RegClass::kSgpr && o.count == 1 && o.reg >= kVccLoEncoding) return SgprDwordName(o.reg);
      return RegName(o.cls, o.reg, o.count);
  }
  return "?";
}

std::string KeyName(RegKey k) {
  switch (k.file) {
    case RegKey::kV: return RegName(RegClass::kVgpr, k.index, 1);
    case RegKey::kA: return RegName(RegClass::kAgpr, k.index, 1);
    case RegKey::kS: return RegName(RegClass::kSgpr, k.index, 1);
    case RegKey::kVcc: return VccHalfName(k.index);
    case RegKey::kM0: return SpecialRegName(SpecialReg::kM0);
    case RegKey::kScc: return SpecialRegName(SpecialReg::kScc);
    case RegKey::kExec: return SpecialRegName(SpecialReg::kExec);
  }
  return "?";
}

SymExec::SymExec(TermPool& pool, const Kernel& k, const TargetInfo& t, const KernelAbi& abi)
    : p_(pool), d_{&pool}, k_(k), t_(t), abi_(abi) {
  const int64_t x = std::max<int64_t>(k.workgroup[0], 1), y = std::max<int64_t>(k.workgroup[1], 1);
  for (int d = 0; d < 3; ++d)
    if (k.workgroup[d] <= 1 || (d == 1 && WholeWavesAlongX(k)) || (d == 2 && x * y % 64 == 0))
      wave_uniform_ |= static_cast<uint8_t>(kDepTidX << d);
  for (int d = 0; d < 3; ++d) {
    VarInfo v;
    v.name = absl::StrCat("tid.", DimName(d));
    v.kind = VarKind::kTid;
    v.lo = 0;
    v.hi = std::max<int64_t>(k.workgroup[d], 1) - 1;
    v.deps = static_cast<uint8_t>(kDepTidX << d);
    v.dim = d;
    vars_.tid[d] = p_.NewVar(v);
    VarInfo w;
    w.name = absl::StrCat("wg.", DimName(d));
    w.kind = VarKind::kWg;
    w.lo = 0;
    w.hi = std::max<int64_t>(k.grid[d], 1) - 1;
    w.dim = d;
    vars_.wg[d] = p_.NewVar(w);
  }
  for (int h = 0; h < 2; ++h) {
    VarInfo v;
    v.name = h == 0 ? "kernarg_ptr.lo" : "kernarg_ptr.hi";
    v.kind = VarKind::kKernargPtr;
    v.hi = h == 0 ? 0xffffffffll : 0xffff;
    v.dim = h;
    vars_.kptr[h] = p_.NewVar(v);
  }
  // The kernarg segment, dword by dword: pointer halves (user pointers are
  // below 2^48), scalars (any 32 bits), padding (any value).
  for (const KernelAbi::KernargSlot& s : abi.kernargs) {
    KernelVars::ArgVars av;
    if (s.is_buffer) {
      VarInfo lo, hi;
      lo.name = s.name + ".lo";
      lo.kind = hi.kind = VarKind::kArgDword;
      lo.dim = static_cast<int>(s.offset);
      hi.name = s.name + ".hi";
      hi.hi = 0xffff;
      hi.dim = static_cast<int>(s.offset + 4);
      av.lo = p_.NewVar(lo);
      av.hi = p_.NewVar(hi);
      vars_.kernarg_dword[s.offset] = av.lo;
      vars_.kernarg_dword[s.offset + 4] = av.hi;
    } else {
      VarInfo v;
      v.name = s.name;
      v.kind = VarKind::kArgDword;
      v.dim = static_cast<int>(s.offset);
      av.scalar = p_.NewVar(v);
      vars_.kernarg_dword[s.offset] = av.scalar;
    }
    vars_.args[s.name] = av;
  }
  for (int64_t off = 0; off < abi.kernarg_size; off += 4) {
    if (vars_.kernarg_dword.count(off)) continue;
    VarInfo v;
    v.name = absl::StrCat("kernarg[", off, "]");
    v.kind = VarKind::kInput;
    v.dim = static_cast<int>(off);
    vars_.kernarg_dword[off] = p_.NewVar(v);
  }

  // Initial registers (AMDGPUUsage "Initial Kernel Execution State";
  // amdgcn-isa-notes.md 6.1).
  st_.v.resize(512);
  st_.a.resize(512);
  st_.s.resize(128);
  st_.s[abi.kernarg_ptr_sgpr] = Slot{p_.Var(vars_.kptr[0]), -1, Slot::kValue};
  st_.s[abi.kernarg_ptr_sgpr + 1] = Slot{p_.Var(vars_.kptr[1]), -1, Slot::kValue};
  int sys = abi.FirstSystemSgpr();
  for (int d = 0; d < 3; ++d)
    if (abi.wg_id_enabled[d]) st_.s[sys++] = Slot{p_.Var(vars_.wg[d]), -1, Slot::kValue};
  // The private segment buffer (4 user SGPRs) and the scratch wave offset
  // (a system SGPR): uniform values the dispatch chooses.
  if (abi.private_segment_buffer_sgpr >= 0 && abi.private_segment_buffer_sgpr + 4 <= 128)
    for (int w = 0; w < 4; ++w) {
      VarInfo v;
      v.name = absl::StrCat("private segment buffer dword ", w);
      v.kind = VarKind::kInput;
      vars_.psb[w] = p_.NewVar(v);
      st_.s[abi.private_segment_buffer_sgpr + w] = Slot{p_.Var(vars_.psb[w]), -1, Slot::kValue};
    }
  if (abi.scratch_wave_offset_sgpr >= 0 && abi.scratch_wave_offset_sgpr < 128) {
    VarInfo v;
    v.name = "scratch wave offset";
    v.kind = VarKind::kInput;
    vars_.scratch_wave_offset = p_.NewVar(v);
    st_.s[abi.scratch_wave_offset_sgpr] = Slot{p_.Var(vars_.scratch_wave_offset), -1, Slot::kValue};
  }
  if (t.packed_workitem_ids) {
    // v0 = x | y << 10 | z << 20, y and z only when enabled.
    TRef v0 = p_.Var(vars_.tid[0]);
    if (abi.workitem_id_enable >= 1) v0 = d_.Add(v0, d_.Shl(p_.Var(vars_.tid[1]), d_.Const(10)));
    if (abi.workitem_id_enable >= 2) v0 = d_.Add(v0, d_.Shl(p_.Var(vars_.tid[2]), d_.Const(20)));
    st_.v[0] = Slot{v0, -1, Slot::kValue};
  } else {
    for (int d = 0; d <= abi.workitem_id_enable && d < 3; ++d)
      st_.v[d] = Slot{p_.Var(vars_.tid[d]), -1, Slot::kValue};
  }
  st_.exec = Slot{p_.Const(1), -1, Slot::kMaskLo};  // workgroups are whole waves: every lane starts active
}

Slot& SymExec::At(RegKey k) {
  switch (k.file) {
    case RegKey::kV: return Reg(RegClass::kVgpr, k.index);
    case RegKey::kA: return Reg(RegClass::kAgpr, k.index);
    case RegKey::kS: return Reg(RegClass::kSgpr, k.index);
    case RegKey::kVcc:
      if (!st_.vcc[k.index & 1].t.valid())
        st_.vcc[k.index & 1].t = Fresh(VarKind::kInput, VccHalfName(k.index) + "@entry", 0, -1);
      return st_.vcc[k.index & 1];
    case RegKey::kM0:
      if (!st_.m0.t.valid()) st_.m0.t = Fresh(VarKind::kInput, KeyName(RegKey{RegKey::kM0, 0}) + "@entry", 0, -1);
      return st_.m0;
    case RegKey::kScc:
      if (!st_.scc.t.valid()) st_.scc.t = Fresh(VarKind::kInput, KeyName(RegKey{RegKey::kScc, 0}) + "@entry", 0, -1);
      return st_.scc;
    case RegKey::kExec:
      return st_.exec;
  }
  return st_.m0;
}

void SymExec::Set(RegKey k, Slot s) {
  At(k) = s;
  if (logging_) log_.insert(k);
}

TRef SymExec::ExecBit() {
  if (logging_ && !log_.count(RegKey{RegKey::kExec, 0})) livein_.insert(RegKey{RegKey::kExec, 0});
  return st_.exec.t;
}

void SymExec::SetScc(int inst, TRef t) { Set(RegKey{RegKey::kScc, 0}, Slot{t, inst, Slot::kValue}); }

std::vector<RegKey> SymExec::AllKeys() const {
  std::vector<RegKey> r;
  for (size_t i = 0; i < st_.v.size(); ++i)
    if (st_.v[i].t.valid()) r.push_back(RegKey{RegKey::kV, static_cast<int>(i)});
  for (size_t i = 0; i < st_.a.size(); ++i)
    if (st_.a[i].t.valid()) r.push_back(RegKey{RegKey::kA, static_cast<int>(i)});
  for (size_t i = 0; i < st_.s.size(); ++i)
    if (st_.s[i].t.valid()) r.push_back(RegKey{RegKey::kS, static_cast<int>(i)});
  for (int i = 0; i < 2; ++i)
    if (st_.vcc[i].t.valid()) r.push_back(RegKey{RegKey::kVcc, i});
  if (st_.m0.t.valid()) r.push_back(RegKey{RegKey::kM0, 0});
  if (st_.scc.t.valid()) r.push_back(RegKey{RegKey::kScc, 0});
  r.push_back(RegKey{RegKey::kExec, 0});
  return r;
}

TRef SymExec::Fresh(VarKind kind, const std::string& name, uint8_t deps, int inst) {
  VarInfo v;
  v.name = name;
  v.kind = kind;
  v.deps = deps;
  v.inst = inst;
  return p_.Var(p_.NewVar(v));
}

Slot& SymExec::Reg(RegClass c, int index) {
  std::vector<Slot>& f = c == RegClass::kVgpr ? st_.v : c == RegClass::kAgpr ? st_.a : st_.s;
  if (index >= static_cast<int>(f.size())) f.resize(index + 1);
  Slot& s = f[index];
  if (!s.t.valid()) {
    // Never written: an undefined initial value (any 32 bits; per lane for vector registers).
    s.t = Fresh(VarKind::kInput, absl::StrCat(RegName(c, index, 1), "@entry"),
                c == RegClass::kSgpr ? 0 : kDepLaneData, -1);
  }
  return s;
}

Slot SymExec::Read(int inst, const MOperand& o, int dword, bool wide) {
  Slot r;
  switch (o.kind) {
    case MOperand::Kind::kImm: {
      uint32_t v = static_cast<uint32_t>(o.imm);
      if (dword > 0) {
        // 64-bit operands: inline constants sign-extend, literals zero-extend (as the emulator).
        v = ImmediateHighDword64(o.imm);
        if (!wide) v = 0;
      }
      r.t = p_.Const(v);
      return r;
    }
    case MOperand::Kind::kSpecial:
    case MOperand::Kind::kReg: {
      // exec_lo/exec_hi and vcc_lo/vcc_hi, however named (s126, exec), are EXEC's and VCC's halves.
      RegDword d;
      if (!DwordOf(o, dword, &d)) d.key = RegKey{RegKey::kScc, 0};
      r = d.key.file == RegKey::kExec ? Slot{st_.exec.t, st_.exec.def, d.half == 0 ? Slot::kMaskLo : Slot::kMaskHi}
                                      : At(d.key);
      if (logging_ && !log_.count(d.key)) livein_.insert(d.key);
      break;
    }
  }
  if (r.def >= 0) trace_[inst].src_defs.push_back(r.def);
  return r;
}

TRef SymExec::Value(int inst, const Slot& s, const MOperand& o) {
  if (s.kind == Slot::kValue) return s.t;
  // A lane mask as a 32-bit value: the bits of 32 lanes, uniform but not this lane's.
  return Fresh(VarKind::kAbstract, absl::StrCat("[", inst, "] lane mask ", OperandName(o), " read as a value"),
               kDepUnmodelled, inst);
}

TRef SymExec::MaskBit(int inst, const MOperand& o) {
  auto fresh_bit = [&](const std::string& why) {
    int v = p_.NewVar(VarInfo{absl::StrCat("[", inst, "] lane bit of ", OperandName(o), " (", why, ")"),
                              VarKind::kAbstract, 0, 1, static_cast<uint8_t>(kDepLaneData | kDepUnmodelled), -1,
                              inst});
    return p_.Var(v);
  };
  if (o.kind == MOperand::Kind::kImm) {
    if (o.imm == 0) return p_.Const(0);
    if (o.imm == -1) return p_.Const(1);
  }
  if (o.kind == MOperand::Kind::kSpecial && o.special == SpecialReg::kExec) {
    if (st_.exec.def >= 0) trace_[inst].src_defs.push_back(st_.exec.def);
    return ExecBit();
  }
  if (o.kind == MOperand::Kind::kSpecial && o.special != SpecialReg::kVcc)
    return fresh_bit("not a 64-bit lane mask");
  // Each half on its own (a compare's mask, a value such as -1 or 0, either
  // half rewritten by a 32-bit write: s_mov_b32 vcc_hi, 0): the lane's bit
  // is its bit of the half it is in.
  Slot lo = Read(inst, o, 0, true), hi = Read(inst, o, 1, true);
  if (lo.kind == Slot::kMaskLo && hi.kind == Slot::kMaskHi && lo.t == hi.t) return lo.t;
  const std::string name = OperandName(o);
  return d_.Select(UpperHalf(), HalfBit(inst, hi, 1, name), HalfBit(inst, lo, 0, name));
}

TRef SymExec::LinearId() {
  if (!linear_id_.valid()) {
    const int64_t x = std::max<int64_t>(k_.workgroup[0], 1), y = std::max<int64_t>(k_.workgroup[1], 1);
    TRef lin = p_.Var(vars_.tid[0]);
    if (k_.workgroup[1] > 1) lin = d_.Add(lin, d_.Mul(d_.Const(static_cast<uint32_t>(x)), p_.Var(vars_.tid[1])));
    if (k_.workgroup[2] > 1)
      lin = d_.Add(lin, d_.Mul(d_.Const(static_cast<uint32_t>(x * y)), p_.Var(vars_.tid[2])));
    linear_id_ = lin;
  }
  return linear_id_;
}

TRef SymExec::WaveIndex() {
  if (!wave_index_.valid()) wave_index_ = d_.LShr(LinearId(), d_.Const(6));
  return wave_index_;
}

// Lane l of a wave is linear id 64 * w + l (waves are runs of 64 consecutive
// linear ids, x fastest: kernel.h's Kernel); its bit of a 64-bit lane mask
// is bit l, bit l - 32 of the high dword for l >= 32.
TRef SymExec::UpperHalf() { return d_.Ult(d_.Const(31), d_.And(LinearId(), d_.Const(63))); }

TRef SymExec::LaneInHalf() { return d_.And(LinearId(), d_.Const(31)); }

TRef SymExec::HalfBit(int inst, const Slot& s, int half, const std::string& what) {
  if (s.kind == Slot::kValue) {
    if (p_.IsConst(s.t) && (p_.ConstValue(s.t) == 0 || p_.ConstValue(s.t) == 0xffffffffu))
      return d_.Const(p_.ConstValue(s.t) & 1);
    return d_.And(d_.LShr(s.t, LaneInHalf()), d_.Const(1));
  }
  if ((s.kind == Slot::kMaskHi) == (half == 1)) return s.t;
  // The other half's bits: the same as this lane's only when every lane has
  // the same constant bit (a partial wave's missing lanes may differ).
  if (p_.IsConst(s.t) && WholeWaves(k_)) return s.t;
  return p_.Var(p_.NewVar(VarInfo{absl::StrCat("[", inst, "] lane bit of ", what, " (a lane mask's ",
                                               s.kind == Slot::kMaskLo ? "low" : "high", " half used as its ",
                                               half == 0 ? "low" : "high", " half: other lanes' bits, not modelled)"),
                                  VarKind::kAbstract, 0, 1, static_cast<uint8_t>(kDepLaneData | kDepUnmodelled), -1,
                                  inst}));
}

bool SymExec::DwordOf(const MOperand& o, int dword, RegDword* d) {
  SpecialReg sp = SpecialReg::kNone;
  int half = dword & 1;
  if (o.kind == MOperand::Kind::kReg) {
    if (o.cls != RegClass::kSgpr) {
      d->key = RegKey{o.cls == RegClass::kVgpr ? RegKey::kV : RegKey::kA, o.reg + dword};
      return true;
    }
    sp = SgprAlias(o.reg + dword, &half);
    if (sp == SpecialReg::kNone) {
      d->key = RegKey{RegKey::kS, o.reg + dword};
      return true;
    }
  } else if (o.kind == MOperand::Kind::kSpecial) {
    sp = o.special;
  }
  d->half = 0;
  switch (sp) {
    case SpecialReg::kVcc: d->key = RegKey{RegKey::kVcc, half}; d->half = half; return true;
    case SpecialReg::kExec: d->key = RegKey{RegKey::kExec, 0}; d->half = half; return true;
    case SpecialReg::kM0: d->key = RegKey{RegKey::kM0, 0}; return true;
    case SpecialReg::kScc: d->key = RegKey{RegKey::kScc, 0}; return true;
    default: return false;
  }
}

void SymExec::WriteDword(int inst, const RegDword& d, Slot s) {
  s.def = inst;
  std::string name;
  switch (d.key.file) {
    case RegKey::kExec: {
      name = SgprDwordName(kExecLoEncoding + d.half);
      if (st_.exec.def >= 0) trace_[inst].src_defs.push_back(st_.exec.def);
      const TRef old = ExecBit(), bit = HalfBit(inst, s, d.half, name), up = UpperHalf();
      s = Slot{d.half == 0 ? d_.Select(up, old, bit) : d_.Select(up, bit, old), inst, Slot::kMaskLo};
      name = absl::StrCat(name, " (exec, this lane)");
      break;
    }
    case RegKey::kS:
      name = RegName(RegClass::kSgpr, d.key.index, 1);
      if (s.kind == Slot::kValue && LaneVaryingDeps(s.t) && trace_[inst].nonuniform.empty()) {
        uint8_t dp = LaneVaryingDeps(s.t);
        std::string on = (dp & kDepTidX) ? "tid.x" : (dp & kDepTidY) ? "tid.y" : (dp & kDepTidZ) ? "tid.z"
                                                                            : "per-lane data";
        trace_[inst].nonuniform = absl::StrCat(name, " depends on ", on, ": not uniform");
      }
      break;
    case RegKey::kVcc:
      name = VccHalfName(d.half);
      break;
    default:
      name = KeyName(d.key);
      break;
  }
  if (s.kind != Slot::kValue && d.key.file != RegKey::kExec) name = absl::StrCat(name, " (this lane)");
  Set(d.key, s);
  trace_[inst].writes.push_back({name, s.t});
}

TRef SymExec::FirstLaneTid(int d) {
  const TRef tid = p_.Var(vars_.tid[d]);
  if (k_.workgroup[d] <= 1) return d_.Const(0);
  // The closed forms, where WorkItemOfLinear(64 * w)[d] is one for every w.
  if (WaveStartsAtIdZero(k_, d)) return d_.Const(0);
  if (const int64_t unit = WaveIdUnit(k_, d); unit > 0)
    return d_.And(tid, d_.Const(~static_cast<uint32_t>(unit - 1)));
  if (wave_uniform_ & (kDepTidX << d)) return tid;
  // The table: wave w's first lane's tid.d, selected by the wave index.
  const std::array<int64_t, 3> wg = {std::max<int64_t>(k_.workgroup[0], 1), std::max<int64_t>(k_.workgroup[1], 1),
                                     std::max<int64_t>(k_.workgroup[2], 1)};
  const int64_t waves = (wg[0] * wg[1] * wg[2] + 63) / 64;
  const TRef w = WaveIndex();
  TRef r = d_.Const(static_cast<uint32_t>(WorkItemOfLinear(64 * (waves - 1), wg)[d]));
  for (int64_t i = waves - 1; i-- > 0;)
    r = d_.Select(d_.Eq(w, d_.Const(static_cast<uint32_t>(i))),
                  d_.Const(static_cast<uint32_t>(WorkItemOfLinear(64 * i, wg)[d])), r);
  return r;
}

bool SymExec::TidOnlyRounded(TRef t, int d) {
  const TNode& n = p_.node(t);
  const uint8_t bit = static_cast<uint8_t>(kDepTidX << d);
  if (!(n.deps & bit)) return true;
  if (wave_index_.valid() && t == wave_index_) return true;  // the same in every lane of a wave
  if (n.op == TOp::kVar) return false;  // tid.d itself
  auto it = tid_rounded_[d].find(t.id);
  if (it != tid_rounded_[d].end()) return it->second;
  const int64_t unit = WaveIdUnit(k_, d);
  const auto rounded_tid = [&](int a, int b) {
    return unit > 0 && p_.node(TRef{a}).op == TOp::kVar && static_cast<int>(p_.node(TRef{a}).c) == vars_.tid[d] &&
           p_.IsConst(TRef{b}) && (p_.ConstValue(TRef{b}) & static_cast<uint32_t>(unit - 1)) == 0;
  };
  bool r;
  if (n.op == TOp::kAnd && (rounded_tid(n.a, n.b) || rounded_tid(n.b, n.a))) {
    r = true;
  } else {
    r = TidOnlyRounded(TRef{n.a}, d) && (n.b < 0 || TidOnlyRounded(TRef{n.b}, d)) &&
        (n.s < 0 || TidOnlyRounded(TRef{n.s}, d));
  }
  tid_rounded_[d][t.id] = r;
  return r;
}

uint8_t SymExec::LaneVaryingDeps(TRef t) {
  uint8_t deps = p_.node(t).deps & kDepLaneVarying & ~wave_uniform_;
  for (int d = 0; d < 3; ++d) {
    const uint8_t bit = static_cast<uint8_t>(kDepTidX << d);
    if ((deps & bit) && (WaveIdUnit(k_, d) > 0 || wave_index_.valid()) && TidOnlyRounded(t, d))
      deps &= static_cast<uint8_t>(~bit);
  }
  return deps;
}

void SymExec::Write(int inst, const MOperand& o, int dword, TRef t, bool under_exec) {
  RegDword d;
  if (!DwordOf(o, dword, &d)) return;
  if (d.key.file != RegKey::kV && d.key.file != RegKey::kA) return WriteDword(inst, d, Slot{t, inst, Slot::kValue});
  // A vector register: lanes off in EXEC keep their value.
  Slot& s = At(d.key);
  if (under_exec) t = d_.Select(ExecBit(), t, s.t);
  Set(d.key, Slot{t, inst, Slot::kValue});
  trace_[inst].writes.push_back({KeyName(d.key), t});
}

void SymExec::WriteMask(int inst, const MOperand& o, TRef bit) {
  if (o.kind == MOperand::Kind::kSpecial && o.special == SpecialReg::kExec) {
    Set(RegKey{RegKey::kExec, 0}, Slot{bit, inst, Slot::kMaskLo});
    trace_[inst].writes.push_back({absl::StrCat(SpecialRegName(SpecialReg::kExec), " (this lane)"), bit});
    return;
  }
  if (o.kind == MOperand::Kind::kSpecial && o.special == SpecialReg::kVcc) {
    Set(RegKey{RegKey::kVcc, 0}, Slot{bit, inst, Slot::kMaskLo});
    Set(RegKey{RegKey::kVcc, 1}, Slot{bit, inst, Slot::kMaskHi});
    trace_[inst].writes.push_back({absl::StrCat(SpecialRegName(SpecialReg::kVcc), " (this lane)"), bit});
    return;
  }
  if (o.kind != MOperand::Kind::kReg) return;
  RegDword lo, hi;
  if (o.cls == RegClass::kSgpr && DwordOf(o, 0, &lo) && DwordOf(o, 1, &hi) &&
      (lo.key.file != RegKey::kS || hi.key.file != RegKey::kS)) {
    // A pair that reaches VCC's or EXEC's encodings: dword by dword.
    WriteDword(inst, lo, Slot{bit, inst, Slot::kMaskLo});
    WriteDword(inst, hi, Slot{bit, inst, Slot::kMaskHi});
    return;
  }
  RegKey::File f = o.cls == RegClass::kVgpr ? RegKey::kV : o.cls == RegClass::kAgpr ? RegKey::kA : RegKey::kS;
  Set(RegKey{f, o.reg}, Slot{bit, inst, Slot::kMaskLo});
  Set(RegKey{f, o.reg + 1}, Slot{bit, inst, Slot::kMaskHi});
  trace_[inst].writes.push_back({absl::StrCat(RegName(o.cls, o.reg, 2), " (this lane)"), bit});
}

void SymExec::Opaque(int i, const MInst& mi, const std::string& why, VarKind kind) {
  for (int dd = 0; dd < mi.NumDefs() && dd < static_cast<int>(mi.ops.size()); ++dd) {
    const MOperand& o = mi.ops[dd];
    int n = OperandDwords(o);
    for (int w = 0; w < n; ++w) {
      bool vec = o.kind == MOperand::Kind::kReg && o.cls != RegClass::kSgpr;
      TRef t = Fresh(kind,
                     absl::StrCat("[", i, "] ", Info(mi.opc).mnemonic, " ", why, n > 1 ? absl::StrCat(" dword ", w) : ""),
                     static_cast<uint8_t>(kDepUnmodelled | (vec ? kDepLaneData : 0)), i);
      Write(i, o, w, t, true);
    }
  }
}

void SymExec::StepSalu(int i, const MInst& mi) {
  const Opc opc = mi.opc;
  const int defs = mi.NumDefs();
  if (static_cast<int>(mi.ops.size()) < defs + 1) return Opaque(i, mi, "result (malformed)", VarKind::kAbstract);
  // The result (SOP/SOPK layouts; present when defs == 1, absent for s_cmp/s_cmpk).
  const MOperand& sdst = OperandOr0(mi, N::kSdst);
  if (IsSaveexec(opc)) {
    TRef src = MaskBit(i, OperandOr0(mi, N::kSrc0));
    TRef old = ExecBit();
    if (st_.exec.def >= 0) trace_[i].src_defs.push_back(st_.exec.def);
    TRef one = d_.Const(1);
    TRef nw = opc == Opc::kSAndSaveexecB64 ? d_.And(src, old)
              : opc == Opc::kSOrSaveexecB64 ? d_.Or(src, old)
              : opc == Opc::kSXorSaveexecB64 ? d_.Xor(src, old)
                                             : d_.And(src, d_.Xor(old, one));
    WriteMask(i, sdst, old);
    WriteMask(i, MOperand::Special(SpecialReg::kExec), nw);
    SetScc(i, Fresh(VarKind::kAbstract, absl::StrCat("[", i, "] scc (exec != 0)"), kDepUnmodelled, i));
    return;
  }
  if (IsWideSalu(opc)) {
    bool mask_mode = false;
    for (size_t k = defs; k < mi.ops.size(); ++k) {
      const MOperand& o = mi.ops[k];
      if (o.kind == MOperand::Kind::kSpecial && o.special == SpecialReg::kExec) mask_mode = true;
      if (o.kind == MOperand::Kind::kSpecial && o.special == SpecialReg::kVcc && st_.vcc[0].kind == Slot::kMaskLo)
        mask_mode = true;
      if (o.kind == MOperand::Kind::kReg && o.cls == RegClass::kSgpr && Reg(o.cls, o.reg).kind != Slot::kValue)
        mask_mode = true;
    }
    if (defs == 1 && sdst.kind == MOperand::Kind::kSpecial && sdst.special == SpecialReg::kExec)
      mask_mode = true;
    bool bitwise = opc == Opc::kSMovB64 || opc == Opc::kSAndB64 || opc == Opc::kSOrB64 || opc == Opc::kSXorB64 ||
                   opc == Opc::kSAndn2B64 || opc == Opc::kSOrn2B64 || opc == Opc::kSNotB64 ||
                   opc == Opc::kSCselectB64;
    if (mask_mode && bitwise && defs == 1) {
      std::vector<TRef> b;
      for (size_t k = defs; k < mi.ops.size(); ++k) b.push_back(MaskBit(i, mi.ops[k]));
      TRef one = d_.Const(1), r;
      switch (opc) {
        case Opc::kSMovB64: r = b[0]; break;
        case Opc::kSAndB64: r = d_.And(b[0], b[1]); break;
        case Opc::kSOrB64: r = d_.Or(b[0], b[1]); break;
        case Opc::kSXorB64: r = d_.Xor(b[0], b[1]); break;
        case Opc::kSAndn2B64: r = d_.And(b[0], d_.Xor(b[1], one)); break;
        case Opc::kSOrn2B64: r = d_.Or(b[0], d_.Xor(b[1], one)); break;
        case Opc::kSNotB64: r = d_.Xor(b[0], one); break;
        default: {  // s_cselect_b64
          Slot scc = Read(i, MOperand::Special(SpecialReg::kScc), 0);
          r = d_.Select(scc.t, b[0], b[1]);
          break;
        }
      }
      WriteMask(i, sdst, r);
      if (opc != Opc::kSMovB64 && opc != Opc::kSCselectB64)
        SetScc(i, Fresh(VarKind::kAbstract, absl::StrCat("[", i, "] scc (mask != 0)"), kDepUnmodelled, i));
      return;
    }
    if (mask_mode) return Opaque(i, mi, "on a lane mask (not modelled)", VarKind::kAbstract);
    std::vector<Pair64<TRef>> s;
    for (size_t k = defs; k < mi.ops.size(); ++k) {
      Slot lo = Read(i, mi.ops[k], 0, true), hi = Read(i, mi.ops[k], 1, true);
      s.push_back({Value(i, lo, mi.ops[k]), Value(i, hi, mi.ops[k])});
    }
    if (opc == Opc::kSCselectB64) s.push_back({Read(i, MOperand::Special(SpecialReg::kScc), 0).t, d_.Const(0)});
    while (s.size() < 4) s.push_back({d_.Const(0), d_.Const(0)});
    std::optional<Wide64<TRef>> r = EvalWideOp(d_, opc, s);
    if (!r) return Opaque(i, mi, "result (not modelled)", VarKind::kAbstract);
    if (defs == 1) {
      Write(i, sdst, 0, r->lo, false);
      if (opc != Opc::kSBcnt1I32B64) Write(i, sdst, 1, r->hi, false);
    }
    if (r->has_flag) SetScc(i, r->flag);
    return;
  }
  // A lane-wise 32-bit op (s_mov_b32, s_and_b32, ...) on a half of a lane
  // mask (s_mov_b32 exec_lo, vcc_lo; s_and_b32 exec_hi, exec_hi, s4 after a
  // compare wrote s[4:5]): the lane's bit of the result is the op on its
  // bits of the sources (HalfBit), in the half the destination is (an EXEC
  // or VCC half) or, for another SGPR, the first mask source's half.
  const bool lane_wise = opc == Opc::kSMovB32 || opc == Opc::kSAndB32 || opc == Opc::kSOrB32 ||
                         opc == Opc::kSXorB32 || opc == Opc::kSAndn2B32 || opc == Opc::kSOrn2B32 ||
                         opc == Opc::kSNotB32 || opc == Opc::kSCselectB32;
  RegDword dd;
  if (lane_wise && defs == 1 && DwordOf(sdst, 0, &dd)) {
    std::vector<Slot> src;
    int half = -1;
    for (size_t k = defs; k < mi.ops.size(); ++k) {
      src.push_back(Read(i, mi.ops[k], 0));
      if (half < 0 && src.back().kind != Slot::kValue) half = src.back().kind == Slot::kMaskHi ? 1 : 0;
    }
    if (half >= 0) {
      if (dd.key.file == RegKey::kExec || dd.key.file == RegKey::kVcc) half = dd.half;
      std::vector<TRef> b;
      for (size_t k = 0; k < src.size(); ++k) b.push_back(HalfBit(i, src[k], half, OperandName(mi.ops[defs + k])));
      if (Info(opc).flags & kReadsScc) b.push_back(Read(i, MOperand::Special(SpecialReg::kScc), 0).t);
      while (b.size() < 4) b.push_back(d_.Const(0));
      std::optional<TRef> r = EvalIntOp(d_, opc, b);
      if (!r) return Opaque(i, mi, "result (not modelled)", VarKind::kAbstract);
      if (Info(opc).flags & kWritesScc)
        SetScc(i, Fresh(VarKind::kAbstract, absl::StrCat("[", i, "] scc (mask != 0)"), kDepUnmodelled, i));
      return WriteDword(i, dd, Slot{d_.And(*r, d_.Const(1)), i, half == 1 ? Slot::kMaskHi : Slot::kMaskLo});
    }
  }
  std::vector<TRef> s;
  if (opc == Opc::kSAddkI32 || opc == Opc::kSMulkI32) s.push_back(Value(i, Read(i, sdst, 0), sdst));
  for (size_t k = defs; k < mi.ops.size(); ++k) s.push_back(Value(i, Read(i, mi.ops[k], 0), mi.ops[k]));
  if (IsSopk(opc) && !s.empty()) {
    // SOPK immediates are 16 bits: zero-extended for the unsigned compares, else sign-extended.
    TRef lo16 = d_.And(s.back(), d_.Const(0xffff));
    s.back() = IsSopkUnsigned(opc) ? lo16 : d_.AShr(d_.Shl(lo16, d_.Const(16)), d_.Const(16));
  }
  if (Info(opc).flags & kReadsScc) s.push_back(Read(i, MOperand::Special(SpecialReg::kScc), 0).t);
  while (s.size() < 4) s.push_back(d_.Const(0));
  std::optional<TRef> r = EvalIntOp(d_, opc, s);
  if (!r) return Opaque(i, mi, "result (not modelled)", VarKind::kAbstract);
  std::optional<TRef> f = EvalFlagOut(d_, opc, s, *r);
  if (defs == 1) Write(i, sdst, 0, *r, false);
  if (f) SetScc(i, *f);
}

void SymExec::StepValu(int i, const MInst& mi) {
  const Opc opc = mi.opc;
  const int defs = mi.NumDefs();
  const char* mn = Info(opc).mnemonic;
  if (static_cast<int>(mi.ops.size()) < defs + 1) return Opaque(i, mi, "result (malformed)");
  auto value32 = [&](const MOperand& o) { return Value(i, Read(i, o, 0), o); };
  // The result (VOP layouts; v_cmp_* write the lane mask sdst instead).
  const MOperand& vdst = OperandOr0(mi, N::kVdst);
  // SDWA selects and integer clamp (LoweredKernel::modifiers), with the
  // shared semantics: source k's selected part, and the destination's new
  // value around the result.
  const VopModifiers* vm = nullptr;
  if (auto it = modifiers_.find(mi.id); it != modifiers_.end()) vm = &it->second;
  const bool sdwa = vm != nullptr && vm->sdwa, clamp = vm != nullptr && vm->clamp;
  auto sel = [&](int k, TRef v) { return sdwa && k < 2 ? SdwaSource(d_, v, vm->src_sel[k], vm->src_sext[k]) : v; };
  auto src32 = [&](OpName n) {
    const int k = n == N::kSrc0 ? 0 : n == N::kSrc1 ? 1 : 2;
    return sel(k, value32(OperandOr0(mi, n)));
  };
  auto dst = [&](TRef r) {
    if (!sdwa || vm->dst_sel == SdwaSel::kDword) return r;
    TRef old = vm->dst_unused == SdwaUnused::kPreserve ? value32(vdst) : d_.Const(0);
    return SdwaDest(d_, old, r, vm->dst_sel, vm->dst_unused);
  };
  if (absl::StartsWith(mn, "v_cmp")) {
    std::optional<TRef> r;
    if (IsWideCompare(opc)) {
      std::vector<Pair64<TRef>> s;
      for (size_t k = defs; k < mi.ops.size(); ++k) {
        if (k > static_cast<size_t>(defs) && !WideCompareSrc1Is64(opc)) {  // the class mask: 32-bit
          s.push_back({value32(mi.ops[k]), d_.Const(0)});
          continue;
        }
        Slot lo = Read(i, mi.ops[k], 0, true), hi = Read(i, mi.ops[k], 1, true);
        s.push_back({Value(i, lo, mi.ops[k]), Value(i, hi, mi.ops[k])});
      }
      std::optional<Wide64<TRef>> w = EvalWideOp(d_, opc, s);
      if (w) r = w->flag;
    } else {
      std::vector<TRef> s;
      for (size_t k = defs; k < mi.ops.size(); ++k) s.push_back(sel(static_cast<int>(k) - defs, value32(mi.ops[k])));
      while (s.size() < 4) s.push_back(d_.Const(0));
      r = EvalIntOp(d_, opc, s);
    }
    if (!r) {
      int v = p_.NewVar(VarInfo{absl::StrCat("[", i, "] ", mn, " result (not modelled)"), VarKind::kUnmodelled, 0, 1,
                                static_cast<uint8_t>(kDepLaneData | kDepUnmodelled), -1, i});
      r = p_.Var(v);
    }
    if (st_.exec.def >= 0) trace_[i].src_defs.push_back(st_.exec.def);
    TRef bit = d_.Select(ExecBit(), *r, d_.Const(0));  // inactive lanes write 0
    WriteMask(i, OperandOr0(mi, N::kSdst), bit);
    if (Info(opc).flags & kWritesExec) WriteMask(i, MOperand::Special(SpecialReg::kExec), bit);
    return;
  }
  if (IsWideValu(opc)) {
    std::vector<bool> wide;
    switch (opc) {
      case Opc::kVMovB64: wide = {true}; break;
      case Opc::kVLshlAddU64: wide = {true, false, true}; break;
      case Opc::kVMadU64U32: wide = {false, false, true}; break;
      default: wide = {false, true}; break;
    }
    if (mi.ops.size() != defs + wide.size()) return Opaque(i, mi, "result (malformed)");
    std::vector<Pair64<TRef>> s;
    for (size_t k = 0; k < wide.size(); ++k) {
      const MOperand& o = OperandOr0(mi, SrcName(static_cast<int>(k)));
      TRef lo = Value(i, Read(i, o, 0, wide[k]), o);
      TRef hi = wide[k] ? Value(i, Read(i, o, 1, true), o) : d_.Const(0);
      s.push_back({lo, hi});
    }
    std::optional<Wide64<TRef>> r = EvalWideOp(d_, opc, s);
    if (!r) return Opaque(i, mi, "result (not modelled)");
    Write(i, vdst, 0, r->lo, true);
    Write(i, vdst, 1, r->hi, true);
    if (defs == 2) WriteMask(i, OperandOr0(mi, N::kSdst), d_.Select(ExecBit(), r->flag, d_.Const(0)));
    return;
  }
  if (defs == 2) {  // carry forms: vdst, sdst, src0, src1[, src2: carry-in mask]
    if (!HasOperand(mi, N::kSrc1)) return Opaque(i, mi, "result (malformed)");
    const MOperand* carry_in = FindOperand(mi, N::kSrc2);
    std::vector<TRef> s = {src32(N::kSrc0), src32(N::kSrc1), carry_in ? MaskBit(i, *carry_in) : d_.Const(0),
                           d_.Const(0)};
    std::optional<TRef> r = EvalIntOp(d_, opc, s);
    if (!r) return Opaque(i, mi, "result (not modelled)");
    std::optional<TRef> f = EvalFlagOut(d_, opc, s, *r);
    Write(i, vdst, 0, dst(*r), true);
    WriteMask(i, OperandOr0(mi, N::kSdst), d_.Select(ExecBit(), f ? *f : d_.Const(0), d_.Const(0)));
    return;
  }
  switch (opc) {
    case Opc::kVReadfirstlaneB32:
    case Opc::kVReadlaneB32: {
      TRef v = src32(N::kSrc0);
      // The value at the wave's first lane (EXEC's first lane; a value the
      // same in every lane of the wave is that lane's too). Same in every
      // lane: it depends on wave-uniform work-item ids only (LaneVaryingDeps),
      // or it provably equals itself at the wave's first lane, which is then
      // its value. That lane's ids are FirstLaneTid's, one rule for every
      // workgroup shape (tid.x & ~63 with whole waves along x, lds_dma bases
      // in `tid.x floordiv 64`, fresh-user review F2; tid.x 0 and tid.y & ~1
      // in 32 x 4; a table over the wave index in 96 x 2 or 48 x 4, where
      // a wave straddles rows: fresh-user review 7 F8).
      // With EXEC still the entry's all-lanes-active and every varying id
      // given its first-lane value, the first active lane is the wave's
      // lane 0, so that substituted value is the result itself, whatever v
      // is in the other lanes (clang's LDS DMA M0: v_readfirstlane_b32 s, v0
      // then s_and, review 5 F4). Only v_readfirstlane_b32: v_readlane_b32
      // reads the lane its src1 selects, which is lane 0's value only when
      // the value is uniform (the proof path below).
      const uint8_t varying = LaneVaryingDeps(v);
      if (varying != 0 && !(varying & kDepLaneData) && !(p_.node(v).deps & kDepUnmodelled)) {
        std::unordered_map<int, TRef> first_lane;  // every varying id by its first-lane value
        for (int d = 0; d < 3; ++d)
          if (varying & (kDepTidX << d)) first_lane.emplace(vars_.tid[d], FirstLaneTid(d));
        const bool first_is_lane0 = opc == Opc::kVReadfirstlaneB32 && p_.IsConst(st_.exec.t) &&
                                    p_.ConstValue(st_.exec.t) == 1 && WholeWaves(k_);
        if (prove_equal_ || first_is_lane0) {
          std::unordered_map<int, int> memo;
          TRef v0 = p_.SubstTerms(v, first_lane, &memo);
          if (!LaneVaryingDeps(v0) && (first_is_lane0 || prove_equal_(v, v0))) v = v0;
        }
      }
      if (LaneVaryingDeps(v))
        v = Fresh(VarKind::kAbstract, absl::StrCat("[", i, "] ", mn, " of a per-lane value"), kDepUnmodelled, i);
      Write(i, vdst, 0, v, false);
      return;
    }
    case Opc::kVWritelaneB32:
    case Opc::kVMbcntLoU32B32:
    case Opc::kVMbcntHiU32B32:
      return Opaque(i, mi, "result (lane-position dependent, not modelled)", VarKind::kAbstract);
    case Opc::kVCndmaskB32: {
      if (!HasOperand(mi, N::kSrc1)) return Opaque(i, mi, "result (malformed)");
      TRef f = src32(N::kSrc0), t = src32(N::kSrc1);
      const MOperand* mask = FindOperand(mi, N::kSrc2);  // absent: VCC (the e32 form)
      TRef m = MaskBit(i, mask != nullptr ? *mask : MOperand::Special(SpecialReg::kVcc));
      Write(i, vdst, 0, dst(d_.Select(m, t, f)), true);
      return;
    }
    case Opc::kVAccvgprMov:
      Write(i, vdst, 0, src32(N::kSrc0), true);
      return;
    default:
      break;
  }
  if (defs != 1) return Opaque(i, mi, "result (not modelled)");
  std::vector<TRef> s;
  for (size_t k = defs; k < mi.ops.size(); ++k) s.push_back(sel(static_cast<int>(k) - defs, value32(mi.ops[k])));
  while (s.size() < 4) s.push_back(d_.Const(0));
  std::optional<TRef> r = clamp ? EvalIntOpClamped(d_, opc, s) : EvalIntOp(d_, opc, s);
  if (!r) return Opaque(i, mi, clamp ? "result (with clamp, not modelled)" : "result (not modelled)");
  Write(i, vdst, 0, dst(*r), true);
}

void SymExec::Step(int i, const MInst& mi) {
  trace_[i] = InstTrace{};
  const InstClass cls = Info(mi.opc).cls;
  // Modifiers MInst lacks matter only for an instruction the verifier models
  // (integer semantics): its result is then unknown. A float or MFMA one is
  // unmodelled data anyway (below).
  if (auto u = unmodelled_.find(mi.id);
      u != unmodelled_.end() && cls != InstClass::kSopp &&
      (EvalIntOp(d_, mi.opc, std::vector<TRef>(4, d_.Const(0))).has_value() ||
       EvalWideOp(d_, mi.opc, std::vector<Pair64<TRef>>(4, Pair64<TRef>{d_.Const(0), d_.Const(0)})).has_value())) {
    if (Info(mi.opc).flags & kWritesScc) SetScc(i, Fresh(VarKind::kAbstract, absl::StrCat("[", i, "] scc"), kDepUnmodelled, i));
    return Opaque(i, mi, u->second, VarKind::kAbstract);
  }
  switch (cls) {
    case InstClass::kSopp:
      return;
    case InstClass::kSmem: {
      const MOperand* sbase = FindOperand(mi, N::kSbase);
      if (sbase == nullptr) return Opaque(i, mi, "data (malformed)");
      const MOperand& dst = OperandOr0(mi, N::kSdst);
      int n = OperandDwords(dst);
      Slot lo = Read(i, *sbase, 0, true), hi = Read(i, *sbase, 1, true);
      std::optional<int64_t> off;
      if (const MOperand* offset = FindOperand(mi, N::kOffset)) {
        if (offset->kind == MOperand::Kind::kImm) {
          off = offset->imm;
        } else {
          TRef o = Value(i, Read(i, *offset, 0), *offset);
          if (p_.IsConst(o)) off = p_.ConstValue(o);
        }
      } else {
        off = mi.offset;
      }
      bool kernarg = lo.kind == Slot::kValue && hi.kind == Slot::kValue && lo.t == p_.Var(vars_.kptr[0]) &&
                     hi.t == p_.Var(vars_.kptr[1]) && off && *off >= 0 && *off % 4 == 0;
      if (!kernarg) smem_data_.insert(i);
      for (int w = 0; w < n; ++w) {
        TRef t;
        if (kernarg) {
          int64_t byte = *off + 4 * w;
          auto it = vars_.kernarg_dword.find(byte);
          auto known = abi_.kernarg_known.find(byte);  // a hidden argument the dispatch fixes
          t = known != abi_.kernarg_known.end() ? p_.Const(known->second)
              : it != vars_.kernarg_dword.end()
                  ? p_.Var(it->second)
                  : Fresh(VarKind::kInput, absl::StrCat("kernarg[", byte, "] (past the kernarg segment)"), 0, i);
        } else {
          t = Fresh(VarKind::kInput, absl::StrCat("[", i, "] s_load data from a computed address, dword ", w), 0, i);
        }
        Write(i, dst, w, t, false);
      }
      return;
    }
    case InstClass::kSalu:
      return StepSalu(i, mi);
    case InstClass::kValu:
    case InstClass::kValuTrans:
      return StepValu(i, mi);
    case InstClass::kMfma:
      for (size_t k = mi.NumDefs(); k < mi.ops.size(); ++k) {
        const MOperand& o = mi.ops[k];
        for (int w = 0; w < (o.kind == MOperand::Kind::kReg ? o.count : 1); ++w) Read(i, o, w);
      }
      return Opaque(i, mi, "result (MFMA, not modelled)");
    case InstClass::kAccRead:
    case InstClass::kAccWrite:
      if (const MOperand* src = FindOperand(mi, N::kSrc0))
        Write(i, OperandOr0(mi, N::kVdst), 0, Value(i, Read(i, *src, 0), *src), true);
      else
        Opaque(i, mi, "result (malformed)");
      return;
    default:
      break;
  }
  if (IsMemory(cls)) {
    MemExec m;
    m.index = i;
    m.exec = ExecBit();
    m.exec_def = st_.exec.def;
    m.ops.resize(mi.ops.size());
    for (size_t k = mi.NumDefs(); k < mi.ops.size(); ++k) {
      const MOperand& o = mi.ops[k];
      int n = o.kind == MOperand::Kind::kReg ? o.count : 1;
      for (int w = 0; w < n; ++w) m.ops[k].push_back(Read(i, o, w));
    }
    if (Info(mi.opc).flags & kReadsM0) {
      m.m0 = Read(i, MOperand::Special(SpecialReg::kM0), 0);
    }
    // A private access: scratch_*, or a buffer access through the private
    // segment buffer (its SRD's dword3 is the dispatch's, which no code
    // changes: LLVM adds the scratch wave offset to dword0/1 only).
    bool priv = Info(mi.opc).flags & kScratchAddr;
    if (!priv && IsVmem(cls) && vars_.psb[3] >= 0) {
      const int rs = NamedOperandIdx(mi.opc, OpName::kSrsrc);
      if (rs >= 0 && rs < static_cast<int>(m.ops.size()) && m.ops[rs].size() == 4 &&
          m.ops[rs][3].kind == Slot::kValue && m.ops[rs][3].t == p_.Var(vars_.psb[3]))
        priv = true;
    }
    std::vector<TRef> fwd;
    if (priv) {
      private_.insert(i);
      fwd = ForwardPrivate(i, mi, m);
    }
    mem_[i] = std::move(m);
    for (int dd = 0; dd < mi.NumDefs() && dd < static_cast<int>(mi.ops.size()); ++dd) {
      const MOperand& o = mi.ops[dd];
      for (int w = 0; w < OperandDwords(o); ++w)
        Write(i, o, w,
              priv ? (w < static_cast<int>(fwd.size())
                          ? fwd[w]
                          : Fresh(VarKind::kAbstract,
                                  absl::StrCat("[", i, "] value loaded from the private segment, dword ", w),
                                  kDepLaneData, i))
                   : Fresh(VarKind::kInput, absl::StrCat("[", i, "] loaded data dword ", w), kDepLaneData, i),
              true);
    }
  }
}

// A private store at a constant offset (scratch_*: ScratchOffset; buffer_*:
// voffset (offen) + offset, through the SRD and soffset as base) records the
// dwords it writes, each this lane's ite(EXEC bit, data, old); a load of
// whole dwords through the same base, all recorded, reads them (the values
// clang spills and reloads, or stores into a small private array and reads
// back at constant indices). A store at a non-constant offset, through
// another base or of a sub-dword forgets what it may overlap (everything, or
// the dwords it touches); so does anything RunRange sees as control flow.
// Returns the load's dwords, or none (then they are fresh abstract values).
std::vector<TRef> SymExec::ForwardPrivate(int i, const MInst& mi, const MemExec& m) {
  const MemShape ms = MemoryShape(mi.opc);
  auto slot = [&](OpName n, int w) -> const Slot* {
    const int k = NamedOperandIdx(mi.opc, n);
    if (k < 0 || k >= static_cast<int>(m.ops.size()) || w >= static_cast<int>(m.ops[k].size())) return nullptr;
    return &m.ops[k][w];
  };
  auto value = [&](const Slot* s) -> TRef { return s != nullptr && s->kind == Slot::kValue ? s->t : TRef{}; };
  std::array<int, 3> base{-1, -1, -1};
  TRef off;
  if (Info(mi.opc).flags & kScratchAddr) {
    const MOperand& va = OperandOr0(mi, N::kVaddr);
    const MOperand& sa = OperandOr0(mi, N::kSaddr);
    TRef v = va.IsReg() ? value(slot(N::kVaddr, 0)) : d_.Const(0);
    TRef sv = sa.IsReg() ? value(slot(N::kSaddr, 0)) : d_.Const(0);
    if (v.valid() && sv.valid()) off = ScratchOffset(d_, v, sv, mi.offset);
  } else {
    TRef w0 = value(slot(N::kSrsrc, 0)), w1 = value(slot(N::kSrsrc, 1)), so = value(slot(N::kSoffset, 0));
    TRef vo = mi.offen ? value(slot(N::kVaddr, 0)) : d_.Const(0);
    if (w0.valid() && w1.valid() && so.valid() && vo.valid()) {
      base = {static_cast<int>(w0.id), static_cast<int>(w1.id), static_cast<int>(so.id)};
      off = d_.Add(vo, d_.Const(static_cast<uint32_t>(mi.offset)));
    }
  }
  const bool known = off.valid() && p_.IsConst(off);
  if (!known || base != fwd_base_) {
    fwd_.clear();
    fwd_base_ = known ? base : std::array<int, 3>{-2, -2, -2};
    if (!known) return {};
  }
  const uint32_t o = p_.ConstValue(off);
  const uint32_t n = static_cast<uint32_t>(ms.comps * ms.bytes);
  if (ms.store) {
    // Forget the dwords it overlaps, then record whole aligned dwords.
    for (auto it = fwd_.begin(); it != fwd_.end();)
      it = it->first + 4 > o && it->first < o + n ? fwd_.erase(it) : std::next(it);
    if (ms.bytes != 4 || o % 4 != 0) return {};
    for (int w = 0; w < ms.comps; ++w) {
      const Slot* ds = slot(N::kVdata, w);
      TRef data = value(ds);
      if (!data.valid()) continue;  // a lane mask stored: not forwarded
      TRef old = Fresh(VarKind::kAbstract,
                       absl::StrCat("private dword at offset ", o + 4 * w, " before [", i, "]"), kDepLaneData, i);
      fwd_[o + 4 * w] = d_.Select(ExecBit(), data, old);
    }
    return {};
  }
  if (ms.bytes != 4 || o % 4 != 0) return {};
  std::vector<TRef> r;
  for (int w = 0; w < ms.comps; ++w) {
    auto it = fwd_.find(o + 4 * w);
    if (it == fwd_.end()) return {};
    r.push_back(it->second);
  }
  return r;
}

std::set<RegKey> SymExec::StaticWrites(int begin, int end) const {
  std::set<RegKey> r;
  for (int i = begin; i < end; ++i) {
    const MInst& mi = f_->insts[i];
    const uint32_t fl = Info(mi.opc).flags;
    for (int d = 0; d < mi.NumDefs() && d < static_cast<int>(mi.ops.size()); ++d) {
      const MOperand& o = mi.ops[d];
      int n = std::max(OperandDwords(o), 1);
      if (o.kind == MOperand::Kind::kReg &&
          (Info(mi.opc).cls == InstClass::kSalu || absl::StartsWith(Info(mi.opc).mnemonic, "v_cmp")))
        n = std::max(n, 2);  // 64-bit results and masks
      // Dword by dword, SGPR-space aliases resolved (s127 is exec_hi: EXEC).
      RegDword rd;
      for (int w = 0; w < n; ++w)
        if (DwordOf(o, w, &rd)) r.insert(rd.key);
    }
    if (fl & kWritesScc) r.insert(RegKey{RegKey::kScc, 0});
    if (fl & kWritesExec) r.insert(RegKey{RegKey::kExec, 0});
  }
  r.insert(RegKey{RegKey::kScc, 0});
  return r;
}

// K with t == h + K (mod 2^32) structurally, K made only of variables that
// existed before the loop (ids below `var_limit`): not the havocked values,
// and not values the body creates (data it loads differs per iteration).
static std::optional<TRef> OffsetFrom(TermPool& p, TRef t, TRef h, int var_limit) {
  auto free_of = [&](TRef x) {
    for (int v : p.VarsOf(x))
      if (v >= var_limit) return false;
    return true;
  };
  TermDomain d{&p};
  if (t == h) return d.Const(0);
  const TNode n = p.node(t);
  if (n.op == TOp::kAdd) {
    if (free_of(TRef{n.b}))
      if (std::optional<TRef> k = OffsetFrom(p, TRef{n.a}, h, var_limit)) return d.Add(*k, TRef{n.b});
    if (free_of(TRef{n.a}))
      if (std::optional<TRef> k = OffsetFrom(p, TRef{n.b}, h, var_limit)) return d.Add(*k, TRef{n.a});
  }
  if (n.op == TOp::kSub && free_of(TRef{n.b}))
    if (std::optional<TRef> k = OffsetFrom(p, TRef{n.a}, h, var_limit)) return d.Sub(*k, TRef{n.b});
  return std::nullopt;
}

absl::Status SymExec::RunLoop(int label, int latch, int depth) {
  const MInst& br = f_->insts[latch];
  if (br.opc != Opc::kSCbranchScc1 && br.opc != Opc::kSCbranchScc0)
    return absl::UnimplementedError(absl::StrCat("loops are supported with s_cbranch_scc0/1 back edges; [", latch,
                                                 "] is ", Info(br.opc).mnemonic));
  MachineLoop lp;
  lp.label_index = label;
  lp.latch_index = latch;
  lp.kir_op = f_->insts[label].kir_op;
  lp.depth = depth;
  {
    VarInfo v;
    v.name = absl::StrCat("it", label);
    v.kind = VarKind::kLoopIter;
    v.lo = 0;
    v.hi = 0xffffffffll;  // every iteration a 32-bit counter can count; narrowed to [0, T-1] below
    v.dim = label;
    lp.it_var = p_.NewVar(v);
  }
  const TRef it = p_.Var(lp.it_var);
  const int var_limit = p_.num_vars();  // variables that exist before the body runs
  const SymState entry = st_;
  const bool outer_logging = logging_;
  const std::set<RegKey> outer_log = log_, outer_livein = livein_;
  // 1. Discovery: which registers the body writes, which it reads first, and how they change.
  std::set<RegKey> h = StaticWrites(label + 1, latch), livein;
  std::map<RegKey, Slot> havoc;
  std::set<int> havoc_vars;
  for (int round = 0;; ++round) {
    st_ = entry;
    havoc.clear();
    havoc_vars.clear();
    for (const RegKey& k : h) {
      bool vec = k.file == RegKey::kV || k.file == RegKey::kA;
      bool mask = k.file == RegKey::kExec;
      int v = p_.NewVar(VarInfo{absl::StrCat("h.", KeyName(k)), VarKind::kAbstract, 0, mask ? 1 : 0xffffffffll,
                                static_cast<uint8_t>(vec || mask ? kDepLaneData : 0), -1, label});
      havoc_vars.insert(v);
      Slot s{p_.Var(v), -1, mask ? Slot::kMaskLo : Slot::kValue};
      havoc[k] = s;
      At(k) = s;
    }
    logging_ = true;
    log_.clear();
    livein_.clear();
    absl::Status st = RunRange(label + 1, latch, depth + 1);
    if (!st.ok()) return st;
    livein = livein_;
    bool grew = false;
    for (const RegKey& k : log_) grew |= h.insert(k).second;
    if (!grew) break;
    if (round > 4) return absl::InternalError("loop register discovery does not converge");
  }
  std::map<RegKey, Slot> end_slots;
  for (const RegKey& k : h) end_slots[k] = At(k);
  logging_ = false;
  // Classification.
  std::map<RegKey, TRef> steps;  // induction registers: entry + step * it
  std::set<RegKey> invariant, stable;
  st_ = entry;
  for (const RegKey& k : h) {
    const Slot hs = havoc[k], es = end_slots[k];
    const Slot& en = At(k);
    if (es.t == hs.t && es.kind == hs.kind) {
      invariant.insert(k);
    } else if (es.kind == Slot::kValue && hs.kind == Slot::kValue && en.kind == Slot::kValue) {
      if (std::optional<TRef> step = OffsetFrom(p_, es.t, hs.t, var_limit)) steps[k] = *step;
      else if (livein.count(k)) stable.insert(k);
    }
  }
  // The high dword of a 64-bit induction (s_add_u32 lo, lo, K;
  // s_addc_u32 hi, hi, C): the pair is entry + (C * 2^32 + K) * it (mod
  // 2^64) when the low dword steps by the constant K and the high dword's
  // end value is hi + C + carry(lo + K) (proved, for every header value).
  // Then hi(it) = hi0 + C * it + mul_hi(K, it) + carry(lo0 + K * it mod 2^32)
  // exactly: the 64-bit K * it is mul_hi(K, it) * 2^32 + (K * it mod 2^32).
  struct Carry64 {
    RegKey lo;
    uint32_t k = 0, c = 0;
  };
  std::map<RegKey, Carry64> carries;
  for (const RegKey& k : h) {
    if (invariant.count(k) || steps.count(k) || k.index == 0) continue;
    const RegKey lo{k.file, k.index - 1};
    auto sl = steps.find(lo);
    if (sl == steps.end() || !p_.IsConst(sl->second) || !prove_equal_) continue;
    const Slot hs = havoc[k], es = end_slots[k];
    if (hs.kind != Slot::kValue || es.kind != Slot::kValue || havoc[lo].kind != Slot::kValue) continue;
    const TRef hlo = havoc[lo].t;
    const TRef carry = d_.Ult(d_.Add(hlo, sl->second), hlo);
    // C from one concrete point (every variable 0), then the form proved.
    const TRef diff = d_.Sub(d_.Sub(es.t, hs.t), carry);
    std::vector<int> order = p_.Closure({diff});
    std::vector<uint32_t> env(p_.num_vars(), 0), val;
    p_.EvalNodes(order, env, &val);
    const uint32_t c = val[diff.id];
    const TRef want = d_.Add(d_.Add(hs.t, d_.Const(c)), carry);
    if (want == es.t || prove_equal_(es.t, want)) carries[k] = Carry64{lo, p_.ConstValue(sl->second), c};
  }
  // Period 2 (a double buffer's toggle carried across the back edge): the end
  // value is hi ^ C or C - hi for a C fixed before the loop, so the value at
  // iteration it is the entry value when it is even and that of one step
  // when it is odd.
  std::map<RegKey, std::pair<TOp, TRef>> toggles;
  auto fixed = [&](TRef x) {
    for (int v : p_.VarsOf(x))
      if (v >= var_limit) return false;
    return true;
  };
  for (const RegKey& k : h) {
    if (invariant.count(k) || steps.count(k) || carries.count(k)) continue;
    const Slot hs = havoc[k], es = end_slots[k];
    if (hs.kind != Slot::kValue || es.kind != Slot::kValue) continue;
    const TNode n = p_.node(es.t);
    if (n.op == TOp::kXor && TRef{n.a} == hs.t && fixed(TRef{n.b})) toggles[k] = {TOp::kXor, TRef{n.b}};
    else if (n.op == TOp::kXor && TRef{n.b} == hs.t && fixed(TRef{n.a})) toggles[k] = {TOp::kXor, TRef{n.a}};
    else if (n.op == TOp::kSub && TRef{n.b} == hs.t && fixed(TRef{n.a})) toggles[k] = {TOp::kSub, TRef{n.a}};
  }
  // Derived registers (recomputed every iteration from induction registers,
  // e.g. `s_add_u32 s0, s0, 1; s_lshl_b32 s1, s0, 5`, or from values fixed
  // before the loop alone): the end value E is a function of the header
  // values of plain induction registers and of values fixed before the loop
  // only, so the value at the header of iteration
  // it >= 1 is E at iteration it - 1 (each induction register's header value
  // entry + step * (it - 1)), and the entry value at it = 0.
  std::map<RegKey, TRef> derived;  // register -> E
  {
    std::map<int, RegKey> induction_of;  // havoc variable -> its plain induction register
    for (const auto& [k, step] : steps)
      if (havoc[k].kind == Slot::kValue && p_.node(havoc[k].t).op == TOp::kVar && At(k).kind == Slot::kValue)
        induction_of[static_cast<int>(p_.node(havoc[k].t).c)] = k;  // st_ is the entry state here
    for (const RegKey& k : h) {
      if (invariant.count(k) || steps.count(k) || carries.count(k) || toggles.count(k)) continue;
      const Slot hs = havoc[k], es = end_slots[k];
      if (hs.kind != Slot::kValue || es.kind != Slot::kValue) continue;
      bool ok = true;
      for (int v : p_.VarsOf(es.t))
        if (!induction_of.count(v) && v >= var_limit) ok = false;
      if (ok) derived[k] = es.t;
    }
  }
  std::map<RegKey, TRef> entry_values;
  for (const auto& [k, cr] : carries) {
    st_ = entry;
    entry_values[cr.lo] = At(cr.lo).t;
  }
  // 2. The body for a symbolic iteration, from the header state; candidate
  // "stable" invariants are assumed at the header and checked at the back edge.
  for (;;) {
    st_ = entry;
    // Derived registers: each induction register's header value at it - 1.
    std::unordered_map<int, TRef> prev;
    for (const auto& [ik, step] : steps)
      if (derived.size() > 0 && havoc[ik].kind == Slot::kValue && p_.node(havoc[ik].t).op == TOp::kVar &&
          At(ik).kind == Slot::kValue)
        prev[static_cast<int>(p_.node(havoc[ik].t).c)] = d_.Add(At(ik).t, d_.Mul(step, d_.Sub(it, d_.Const(1))));
    InstTrace& lt = trace_[label];
    lt = InstTrace{};
    lp.induction.clear();
    lp.havocked.clear();
    for (const RegKey& k : h) {
      if (invariant.count(k)) continue;
      Slot& dst = At(k);
      const Slot es = end_slots[k];
      if (dst.def >= 0) lt.src_defs.push_back(dst.def);
      if (es.def >= 0) lt.src_defs.push_back(es.def);
      auto sit = steps.find(k);
      auto cit = carries.find(k);
      auto tit = toggles.find(k);
      auto dit = derived.find(k);
      if (dit != derived.end() && dst.kind == Slot::kValue) {
        // E with each induction register's header value at iteration it - 1.
        std::unordered_map<int, int> memo;
        const TRef later = p_.SubstTerms(dit->second, prev, &memo);
        TRef v = d_.Select(d_.Eq(it, d_.Const(0)), dst.t, later);
        lp.induction.push_back(absl::StrCat(KeyName(k), " = ", p_.ToString(dst.t), " at it = 0, then ",
                                            p_.ToString(later), " (derived from induction registers)"));
        dst = Slot{v, label, Slot::kValue};
        lt.writes.push_back({KeyName(k), v});
      } else if (tit != toggles.end() && dst.kind == Slot::kValue) {
        const auto& [op, c] = tit->second;
        const TRef odd = op == TOp::kXor ? d_.Xor(dst.t, c) : d_.Sub(c, dst.t);
        TRef v = d_.Select(d_.And(it, d_.Const(1)), odd, dst.t);
        lp.induction.push_back(absl::StrCat(KeyName(k), " = ", p_.ToString(dst.t), " when it is even, ",
                                            p_.ToString(odd), " when odd (period 2)"));
        dst = Slot{v, label, Slot::kValue};
        lt.writes.push_back({KeyName(k), v});
      } else if (cit != carries.end() && dst.kind == Slot::kValue) {
        const Carry64& cr = cit->second;
        const TRef lo0 = entry_values[cr.lo], kk = d_.Const(cr.k);
        TRef v = d_.Add(d_.Add(dst.t, d_.Mul(d_.Const(cr.c), it)),
                        d_.Add(d_.MulHiU(kk, it), d_.Ult(d_.Add(lo0, d_.Mul(kk, it)), lo0)));
        lp.induction.push_back(absl::StrCat(KeyName(k), " = ", p_.ToString(dst.t), " + ", cr.c, " * it + the carries of ",
                                            KeyName(cr.lo), " (64-bit induction)"));
        dst = Slot{v, label, Slot::kValue};
        lt.writes.push_back({KeyName(k), v});
      } else if (sit != steps.end()) {
        TRef v = d_.Add(dst.t, d_.Mul(sit->second, it));
        lp.induction.push_back(
            absl::StrCat(KeyName(k), " = ", p_.ToString(dst.t), " + ", p_.ToString(sit->second), " * it"));
        dst = Slot{v, label, Slot::kValue};
        lt.writes.push_back({KeyName(k), v});
      } else if (stable.count(k)) {
        lp.induction.push_back(absl::StrCat(KeyName(k), " = ", p_.ToString(dst.t), " (stable)"));
        dst = Slot{dst.t, label, dst.kind};
        lt.writes.push_back({KeyName(k), dst.t});
      } else {
        bool vec = k.file == RegKey::kV || k.file == RegKey::kA;
        bool mask = k.file == RegKey::kExec;
        int var = p_.NewVar(VarInfo{absl::StrCat(KeyName(k), " at the header of loop ", label,
                                                 " (not an induction variable)"),
                                    VarKind::kAbstract, 0, mask ? 1 : 0xffffffffll,
                                    static_cast<uint8_t>(kDepUnmodelled | (vec || mask ? kDepLaneData : 0)), -1,
                                    label});
        dst = Slot{p_.Var(var), label, mask ? Slot::kMaskLo : Slot::kValue};
        lt.writes.push_back({KeyName(k), dst.t});
        if (livein.count(k)) lp.havocked.push_back(KeyName(k));
      }
    }
    const SymState header = st_;
    absl::Status st = RunRange(label + 1, latch, depth + 1);
    if (!st.ok()) return st;
    std::set<RegKey> broken;
    for (const RegKey& k : stable) {
      TRef want;
      {
        SymState now = st_;
        st_ = header;
        want = At(k).t;
        st_ = now;
      }
      TRef got = At(k).t;
      if (got == want) continue;
      if (!(prove_equal_ && At(k).kind == Slot::kValue && prove_equal_(got, want))) broken.insert(k);
    }
    if (broken.empty()) break;
    for (const RegKey& k : broken) stable.erase(k);
  }
  trace_[latch] = InstTrace{};
  const Slot scc = At(RegKey{RegKey::kScc, 0});
  if (scc.def >= 0) trace_[latch].src_defs.push_back(scc.def);
  TRef cont = br.opc == Opc::kSCbranchScc1 ? scc.t : d_.Eq(scc.t, d_.Const(0));
  // 3. The trip count: the back edge's condition is a function of `it` alone.
  for (int v : p_.VarsOf(cont))
    if (v != lp.it_var)
      return absl::UnimplementedError(absl::StrCat("the exit condition of the loop at [", label,
                                                   "] depends on ", p_.var(v).name, ", not only on the iteration"));
  std::vector<int> order = p_.Closure({cont});
  std::vector<uint32_t> env(p_.num_vars(), 0), val;
  auto continues = [&](int64_t n) {
    env[lp.it_var] = static_cast<uint32_t>(n);
    p_.EvalNodes(order, env, &val);
    return val[cont.id] != 0;
  };
  // Small trip counts iteration by iteration.
  constexpr int64_t kScan = int64_t{1} << 16, kTwo32 = int64_t{1} << 32;
  int64_t trips = 0;  // 0: not found yet
  for (int64_t n = 0; n < kScan && trips == 0; ++n)
    if (!continues(n)) trips = n + 1;
  if (trips == 0) {
    // Past that, the first exit by binary search with the solver over [kScan,
    // 2^32): no exit before `lo` (proved), an exit at `hi` (confirmed).
    // `it` is a 32-bit value and every register the exit depends on is
    // entry + K * it (mod 2^32), so with no exit in [0, 2^32) the loop never ends.
    auto unknown = [&](const std::string& why) {
      return absl::UnimplementedError(absl::StrCat("the trip count of the loop at [", label,
                                                   "] (more than ", kScan, " iterations) is not determined: ", why));
    };
    if (!find_zero_) return unknown("no solver");
    p_.SetVarRange(lp.it_var, 0, kTwo32 - 1);
    // Some exit in [a, b]: a confirmed iteration, none (-1), or an error.
    auto probe = [&](int64_t a, int64_t b) -> absl::StatusOr<int64_t> {
      ZeroSearch z = find_zero_(cont, lp.it_var, a, b);
      if (z.kind == ZeroSearch::kNone) return -1;
      if (z.kind == ZeroSearch::kUnknown) return unknown(z.why);
      if (z.at < a || z.at > b || continues(z.at))
        return unknown(absl::StrCat("the solver's exit at iteration ", z.at, " is not one (",
                                    z.why.empty() ? std::string("abstraction") : z.why, ")"));
      return z.at;
    };
    int64_t lo = kScan;
    absl::StatusOr<int64_t> hi = probe(lo, kTwo32 - 1);
    if (!hi.ok()) return hi.status();
    if (*hi < 0) {
      trips = -1;
    } else {
      while (lo < *hi) {
        int64_t mid = lo + (*hi - lo) / 2;
        absl::StatusOr<int64_t> m = probe(lo, mid);
        if (!m.ok()) return m.status();
        if (*m >= 0) *hi = *m;
        else lo = mid + 1;
      }
      trips = *hi + 1;
    }
  }
  lp.trips = trips;
  if (trips < 0) trips = kTwo32;  // never exits: nothing after the loop runs
  p_.SetVarRange(lp.it_var, 0, trips - 1);
  // After the loop: the end state of the last iteration.
  std::unordered_map<int, int> memo;
  for (const RegKey& k : AllKeys()) {
    Slot& s = At(k);
    s.t = p_.Subst(s.t, lp.it_var, static_cast<uint32_t>(trips - 1), &memo);
  }
  logging_ = outer_logging;
  log_ = outer_log;
  livein_ = outer_livein;
  if (logging_) {
    for (const RegKey& k : livein)
      if (!log_.count(k)) livein_.insert(k);
    for (const RegKey& k : h) log_.insert(k);
  }
  loops_[label] = lp;
  return absl::OkStatus();
}

absl::Status SymExec::RunRange(int begin, int end, int depth) {
  // Forward s_cbranch_execz: label index -> the registers to havoc there.
  std::map<int, std::set<RegKey>> joins;
  fwd_.clear();  // private stores are forwarded in straight-line code only
  for (int i = begin; i < end; ++i) {
    const MInst& mi = f_->insts[i];
    if (mi.opc == Opc::kLabel || (Info(mi.opc).flags & kBranch)) fwd_.clear();
    if (mi.opc == Opc::kLabel) {
      auto j = joins.find(i);
      if (j != joins.end()) {
        // The join after a block a wave skips when EXEC is zero. The block ran
        // here with this lane's EXEC bit: its VGPR writes and memory accesses
        // are masked, exactly as if skipped for inactive lanes; its scalar
        // writes (SGPRs, VCC, M0, SCC, EXEC: wave-wide, unmasked) are the
        // block's only when some lane was active, so they are unknown here.
        for (const RegKey& k : j->second) {
          if (k.file == RegKey::kV || k.file == RegKey::kA) continue;
          // A mask (EXEC, or VCC/an SGPR pair a compare wrote) stays a mask:
          // this lane's bit, 0 or 1.
          const Slot::Kind kind = k.file == RegKey::kExec ? Slot::kMaskLo : At(k).kind;
          const bool mask = kind != Slot::kValue;
          const int var = p_.NewVar(VarInfo{absl::StrCat(KeyName(k), " after the block that [",
                                                         forward_of_label_.at(i), "] s_cbranch_execz may skip"),
                                            VarKind::kAbstract, 0, mask ? 1 : 0xffffffffll,
                                            static_cast<uint8_t>(kDepUnmodelled | (mask ? kDepLaneData : 0)), -1, i});
          Set(k, Slot{p_.Var(var), i, kind});
        }
        joins.erase(j);
      }
      auto it = loop_of_label_.find(i);
      if (it == loop_of_label_.end()) continue;  // a label no branch goes back to
      absl::Status st = RunLoop(i, it->second, depth);
      fwd_.clear();
      if (!st.ok()) return st;
      i = it->second;
      continue;
    }
    if (auto fw = forward_.find(i); fw != forward_.end()) {
      // Fall through: see the join above.
      std::set<RegKey> w = StaticWrites(i + 1, fw->second);
      joins[fw->second].insert(w.begin(), w.end());
      continue;
    }
    if (Info(mi.opc).flags & kBranch)
      return absl::UnimplementedError(
          absl::StrCat("control flow other than loops is not supported yet ([", i, "] ", Info(mi.opc).mnemonic, ")"));
    Step(i, mi);
    if (mi.opc == Opc::kSEndpgm) return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status SymExec::Run(const MFunction& f) {
  f_ = &f;
  trace_.assign(f.insts.size(), InstTrace{});
  // Calls, indirect branches and PC-relative addresses: where the code goes
  // (or what address it computes) depends on the code's own location, which
  // the verifier does not model.
  for (size_t i = 0; i < f.insts.size(); ++i)
    if (Info(f.insts[i].opc).flags & kPcAccess)
      return absl::UnimplementedError(absl::StrCat(
          "calls and indirect branches are not supported: [", i, "] ", Info(f.insts[i].opc).mnemonic,
          f.insts[i].opc == Opc::kSGetpcB64 ? " reads the program counter (PC-relative addresses or a call)"
          : f.insts[i].opc == Opc::kSSetpcB64 ? " jumps to a computed address (an indirect branch or a return)"
                                              : " calls a function"));
  // Loops: a label and a later branch back to it; properly nested.
  std::map<int64_t, int> label_at;
  for (size_t i = 0; i < f.insts.size(); ++i)
    if (f.insts[i].opc == Opc::kLabel)
      if (const MOperand* id = FindOperand(f.insts[i], N::kTarget)) label_at[id->imm] = static_cast<int>(i);
  std::vector<std::pair<int, int>> spans;
  std::vector<std::pair<int, int>> forward;  // s_cbranch_execz to a later label
  for (size_t i = 0; i < f.insts.size(); ++i) {
    const MInst& mi = f.insts[i];
    if (!(Info(mi.opc).flags & kBranch)) continue;
    const MOperand* target = FindOperand(mi, N::kTarget);
    auto it = target == nullptr ? label_at.end() : label_at.find(target->imm);
    if (mi.opc == Opc::kSCbranchExecz && it != label_at.end() && it->second > static_cast<int>(i)) {
      forward.push_back({static_cast<int>(i), it->second});
      continue;
    }
    if (it == label_at.end() || it->second >= static_cast<int>(i))
      return absl::UnimplementedError(absl::StrCat("control flow other than loops is not supported yet ([", i,
                                                   "] ", Info(mi.opc).mnemonic, " is not a loop's back edge)"));
    if (loop_of_label_.count(it->second))
      return absl::UnimplementedError("a loop with two back edges is not supported");
    loop_of_label_[it->second] = static_cast<int>(i);
    spans.push_back({it->second, static_cast<int>(i)});
  }
  for (const auto& a : spans)
    for (const auto& b : spans)
      if (a.first < b.first && b.first < a.second && a.second < b.second)
        return absl::UnimplementedError("loops that are not properly nested are not supported");
  // A forward s_cbranch_execz skips a block without loops, inside the same
  // loops as the branch, whose other branches are forward execz ones inside it.
  for (const auto& [br, target] : forward) {
    for (const auto& [label, latch] : spans) {
      if ((label < br && br < latch) != (label < target && target < latch) || (br < label && label <= target))
        return absl::UnimplementedError(absl::StrCat("[", br, "] s_cbranch_execz skips a block that contains or ",
                                                     "leaves a loop: not supported yet"));
    }
    for (const auto& [br2, target2] : forward)
      if (br < br2 && br2 < target && target2 > target)
        return absl::UnimplementedError(absl::StrCat("[", br2, "] s_cbranch_execz leaves the block [", br,
                                                     "] skips: not supported yet"));
    forward_[br] = target;
    forward_of_label_[target] = br;
  }
  return RunRange(0, static_cast<int>(f.insts.size()), 0);
}

}  // namespace kir::vfy
