// SOPP (control, s_waitcnt, s_barrier), SALU and SMEM instructions.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "compiler/isa/semantics.h"
#include "hw/emu/exec.h"

namespace kir::emu {
namespace {


bool IsSopkCompare(Opc o) { return o >= Opc::kSCmpkEqU32 && o <= Opc::kSCmpkLeI32; }
bool IsSopkUnsigned(Opc o) { return o >= Opc::kSCmpkEqU32 && o <= Opc::kSCmpkLeU32; }

absl::Status ExecSopp(ExecContext& c, Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  switch (mi.opc) {
    case Opc::kSNop:
    case Opc::kSSetprio:
    case Opc::kSSleep:
      break;
    case Opc::kSWaitcnt: {
      if (mi.ops.size() != 2) return Arity(in, 2);
      LdsRaceTracker& races = c.wg.races;
      const bool strict = c.opts.strict;
      const int gen = w.barrier_gen;
      const int vmcnt = static_cast<int>(OperandOr0(mi, OpName::kVmcnt).imm);
      const int lgkmcnt = static_cast<int>(OperandOr0(mi, OpName::kLgkmcnt).imm);
      w.Wait(vmcnt, lgkmcnt, [&](int op) {
        if (strict) races.Completed(op, gen);
      });
      break;
    }
    case Opc::kSBarrier:
      w.state = Wave::State::kAtBarrier;  // the scheduler releases it
      break;
    case Opc::kSEndpgm:
      w.state = Wave::State::kEnded;
      return absl::OkStatus();
    default: {
      if (!(Info(mi.opc).flags & kBranch)) return Unsupported(in, "this SOPP instruction");
      bool take = false;
      switch (mi.opc) {
        case Opc::kSBranch: take = true; break;
        case Opc::kSCbranchScc0: take = !w.scc; break;
        case Opc::kSCbranchScc1: take = w.scc; break;
        case Opc::kSCbranchVccz: take = w.Vcc() == 0; break;
        case Opc::kSCbranchVccnz: take = w.Vcc() != 0; break;
        case Opc::kSCbranchExecz: take = w.Exec() == 0; break;
        case Opc::kSCbranchExecnz: take = w.Exec() != 0; break;
        default: return Unsupported(in, "this branch");
      }
      if (in.target < 0) return absl::InternalError(absl::StrCat(Describe(in), ": unresolved branch"));
      w.pc = take ? in.target : w.pc + 1;
      return absl::OkStatus();
    }
  }
  ++w.pc;
  return absl::OkStatus();
}

// s_getpc_b64, s_setpc_b64, s_swappc_b64 (semantics.h PcAfter): the program
// counter is the instruction's byte address (llvm-objdump's, or estimated for
// assembly text), so a jump must land on an instruction of this kernel.
absl::Status ExecPc(ExecContext& c, Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  const bool sets = mi.opc != Opc::kSGetpcB64, gets = mi.opc != Opc::kSSetpcB64;
  absl::Status st = Arity(in, gets && sets ? 2 : 1);
  if (!st.ok()) return st;
  uint64_t target = 0;
  if (sets) {  // read before sdst is written (s_swappc_b64 may name one pair twice)
    const MOperand& src = OperandOr0(mi, OpName::kSrc0);
    target = ReadScalar(w, src, OpType::kB64, 0) | (uint64_t{ReadScalar(w, src, OpType::kB64, 1)} << 32);
  }
  if (gets) {
    const MOperand& sdst = OperandOr0(mi, OpName::kSdst);
    if (!sdst.IsReg() || sdst.cls != RegClass::kSgpr || sdst.count != 2)
      return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": the destination must be an SGPR pair"));
    const uint64_t next = PcAfter(in.addr, in.size);
    WriteScalar(w, sdst, 0, static_cast<uint32_t>(next));
    WriteScalar(w, sdst, 1, static_cast<uint32_t>(next >> 32));
  }
  if (!sets) {
    ++w.pc;
    return absl::OkStatus();
  }
  const std::vector<Inst>& insts = c.prog.insts;
  auto it = std::lower_bound(insts.begin(), insts.end(), target,
                             [](const Inst& i, uint64_t a) { return i.addr < a; });
  if (it == insts.end() || it->addr != target)
    return absl::FailedPreconditionError(absl::StrCat(
        Describe(in), ": ", mi.opc == Opc::kSSwappcB64 ? "calls" : "jumps to", " address 0x", absl::Hex(target),
        ", which is not an instruction of kernel '", c.kernel.name, "' (its code is 0x", absl::Hex(insts.front().addr),
        " to 0x", absl::Hex(insts.back().addr + insts.back().size),
        "): the emulator runs the kernel's own code only, not other functions"));
  w.pc = static_cast<int>(it - insts.begin());
  return absl::OkStatus();
}

absl::Status ExecSaveexec(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  if (mi.ops.size() != 2) return Arity(in, 2);
  Opc bitop = mi.opc == Opc::kSAndSaveexecB64 ? Opc::kSAndB64
              : mi.opc == Opc::kSOrSaveexecB64 ? Opc::kSOrB64
              : mi.opc == Opc::kSXorSaveexecB64 ? Opc::kSXorB64 : Opc::kSAndn2B64;
  uint64_t src = ReadMask(w, OperandOr0(mi, OpName::kSrc0)), exec = w.Exec();
  std::vector<Pair64<uint32_t>> s = {{static_cast<uint32_t>(src), static_cast<uint32_t>(src >> 32)},
                                     {static_cast<uint32_t>(exec), static_cast<uint32_t>(exec >> 32)}};
  std::optional<Wide64<uint32_t>> r = EvalWideOp(U32Domain{}, bitop, s);
  if (!r) return Unsupported(in, "this saveexec form");
  WriteMask(w, OperandOr0(mi, OpName::kSdst), exec);
  w.SetExec(r->lo | (static_cast<uint64_t>(r->hi) << 32));
  w.scc = r->flag != 0;
  return absl::OkStatus();
}

absl::Status ExecSalu(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  const Opc opc = mi.opc;
  const int defs = Info(opc).num_defs;
  if (static_cast<int>(mi.ops.size()) < defs + 1) return Arity(in, defs + 1);
  if (opc == Opc::kSAndSaveexecB64 || opc == Opc::kSOrSaveexecB64 || opc == Opc::kSAndn2SaveexecB64 ||
      opc == Opc::kSXorSaveexecB64)
    return ExecSaveexec(w, in);
  if (opc == Opc::kSCmovB32) {  // a tied read of sdst (semantics.h EvalCmovB32)
    absl::Status st = Arity(in, 2);
    if (!st.ok()) return st;
    const MOperand& sdst = OperandOr0(mi, OpName::kSdst);
    WriteScalar(w, sdst, 0,
                EvalCmovB32(U32Domain{}, ReadScalar(w, OperandOr0(mi, OpName::kSrc0), OpType::kB32, 0),
                            ReadScalar(w, sdst, OpType::kB32, 0), w.scc ? 1u : 0u));
    return absl::OkStatus();
  }
  // The sources: the operands after the defs, in order (src0 [, src1]; a
  // SOPK's simm16 last). A loop over all of them, not by name, so that a text
  // with more operands than the layout names still reads as it always has.
  const absl::Span<const MOperand> srcs = absl::MakeConstSpan(mi.ops).subspan(defs);
  const MOperand* sdst = FindOperand(mi, OpName::kSdst);  // defs == 1
  if (IsWideSalu(opc)) {
    std::vector<Pair64<uint32_t>> s;
    for (const MOperand& o : srcs)
      s.push_back({ReadScalar(w, o, OpType::kB64, 0), ReadScalar(w, o, OpType::kB64, 1)});
    if (opc == Opc::kSCselectB64) s.push_back({w.scc ? 1u : 0u, 0u});
    if (s.size() < 4) s.resize(4, {0u, 0u});
    std::optional<Wide64<uint32_t>> r = EvalWideOp(U32Domain{}, opc, s);
    if (!r) return Unsupported(in, "this 64-bit SALU instruction");
    if (defs == 1) {
      WriteScalar(w, *sdst, 0, r->lo);
      if (opc != Opc::kSBcnt1I32B64) WriteScalar(w, *sdst, 1, r->hi);
    }
    if (r->has_flag) w.scc = r->flag != 0;
    return absl::OkStatus();
  }
  std::vector<uint32_t> s;
  // s_addk/s_mulk: sdst is also the first source (a tied read).
  if (opc == Opc::kSAddkI32 || opc == Opc::kSMulkI32) s.push_back(ReadScalar(w, *sdst, OpType::kB32, 0));
  for (const MOperand& o : srcs) s.push_back(ReadScalar(w, o, OpType::kB32, 0));
  // SOPK immediates: 16 bits, zero-extended for the unsigned compares, else sign-extended.
  if (opc == Opc::kSMovkI32 || opc == Opc::kSAddkI32 || opc == Opc::kSMulkI32 || IsSopkCompare(opc)) {
    uint32_t imm16 = s.back() & 0xffff;
    s.back() = IsSopkUnsigned(opc) ? imm16 : static_cast<uint32_t>(static_cast<int16_t>(imm16));
  }
  if (Info(opc).flags & kReadsScc) s.push_back(w.scc ? 1u : 0u);
  // (llvm-mc checks operand counts; pad so a malformed text cannot read past s.)
  if (s.size() < 4) s.resize(4, 0);
  std::optional<uint32_t> r = EvalIntOp(U32Domain{}, opc, s);
  if (!r) return Unsupported(in, "this SALU instruction");
  std::optional<uint32_t> f = EvalFlagOut(U32Domain{}, opc, s, *r);
  if (defs == 1) WriteScalar(w, *sdst, 0, *r);
  if (f) w.scc = *f != 0;
  return absl::OkStatus();
}

absl::Status ExecSmem(ExecContext& c, Wave& w, const Inst& in, int pc) {
  const MInst& mi = in.mi;
  if (mi.ops.size() != 3) return Arity(in, 3);
  int n = mi.opc == Opc::kSLoadDword ? 1 : mi.opc == Opc::kSLoadDwordx2 ? 2
          : mi.opc == Opc::kSLoadDwordx4 ? 4 : mi.opc == Opc::kSLoadDwordx8 ? 8 : 16;
  const MOperand &dst = OperandOr0(mi, OpName::kSdst), &sbase = OperandOr0(mi, OpName::kSbase),
                 &offset = OperandOr0(mi, OpName::kOffset);
  if (!dst.IsReg() || dst.cls != RegClass::kSgpr || dst.count != n)
    return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": destination must be ", n, " SGPRs"));
  uint64_t base = ReadScalar(w, sbase, OpType::kB64, 0) |
                  (static_cast<uint64_t>(ReadScalar(w, sbase, OpType::kB64, 1)) << 32);
  uint64_t off = offset.kind == MOperand::Kind::kImm ? static_cast<uint64_t>(offset.imm)
                                                     : ReadScalar(w, offset, OpType::kB32, 0);
  uint64_t addr = base + off;
  if (addr % 4 != 0)
    return absl::FailedPreconditionError(absl::StrCat(Describe(in), ": scalar load address 0x",
                                                      absl::Hex(addr), " is not 4-byte aligned"));
  std::vector<uint32_t> vals(n);
  if (!c.mem.Read(addr, vals.data(), 4 * n))
    return absl::FailedPreconditionError(absl::StrCat(Describe(in), ": scalar load of ",
                                                      c.mem.Describe(addr, 4 * n), " is outside every buffer"));
  PendingOp op;
  op.inst = pc;
  op.ctr = Counter::kSmem;
  for (int i = 0; i < n; ++i) {
    PendingWrite pw;
    pw.cls = RegClass::kSgpr;
    pw.reg = dst.reg + i;
    pw.vals[0] = vals[i];
    op.writes.push_back(std::move(pw));
  }
  w.Issue(std::move(op));
  return absl::OkStatus();
}

// s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 on HW_REG_MODE (the
// reader refuses other registers and fields beyond MODE's bits 7:0):
// semantics.h SetregMerge / GetregField on the wave's FLOAT_MODE byte.
absl::Status ExecHwreg(Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  if (mi.ops.size() != 2 || mi.ops[1].kind != MOperand::Kind::kImm) return Arity(in, 2);
  const HwReg h = DecodeHwreg(static_cast<uint32_t>(mi.ops[1].imm));
  if (h.id != kHwRegMode || (HwRegFieldMask(h) & ~0xffu))
    return Unsupported(in, "a hardware register other than HW_REG_MODE bits 7:0");
  if (mi.opc == Opc::kSGetregB32) {
    WriteScalar(w, mi.ops[0], 0, GetregField(w.mode, h));
    return absl::OkStatus();
  }
  const uint32_t v = ReadScalar(w, mi.ops[0], OpType::kB32, 0);
  w.mode = SetregMerge(w.mode, v, h) & 0xffu;
  return absl::OkStatus();
}

}  // namespace

absl::Status ExecScalar(ExecContext& c, Wave& w, const Inst& in) {
  switch (Info(in.mi.opc).cls) {
    case InstClass::kSopp:
      return ExecSopp(c, w, in);
    case InstClass::kSalu: {
      if (Info(in.mi.opc).flags & kPcAccess) return ExecPc(c, w, in);
      const Opc o = in.mi.opc;
      absl::Status s = o == Opc::kSGetregB32 || o == Opc::kSSetregB32 || o == Opc::kSSetregImm32B32
                           ? ExecHwreg(w, in)
                           : ExecSalu(w, in);
      if (s.ok()) ++w.pc;
      return s;
    }
    case InstClass::kSmem: {
      absl::Status s = ExecSmem(c, w, in, w.pc);
      if (s.ok()) ++w.pc;
      return s;
    }
    default:
      return Unsupported(in, "this scalar instruction");
  }
}

}  // namespace kir::emu
