#include "compiler/lower/lower.h"

#include <algorithm>

#include "compiler/lower/dead_code.h"

#include "compiler/ir/op_text.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "compiler/lower/lower_internal.h"

namespace kir {
namespace {

void ScanIndexLeaves(const IndexExpr& e, bool tid[3], bool wg[3]) {
  if (e.kind == IndexKind::kTid) tid[e.dim] = true;
  if (e.kind == IndexKind::kWg) wg[e.dim] = true;
  if (e.lhs) ScanIndexLeaves(*e.lhs, tid, wg);
  if (e.rhs) ScanIndexLeaves(*e.rhs, tid, wg);
}

void ScanOps(const std::vector<Op>& ops, bool tid[3], bool wg[3]) {
  for (const Op& op : ops) {
    for (const IndexRef& i : op.index) ScanIndexLeaves(*i, tid, wg);
    for (const IndexRef& i : op.lds_index) ScanIndexLeaves(*i, tid, wg);
    ScanOps(op.body, tid, wg);
  }
}

void ScanUsedArgs(const std::vector<Op>& ops, std::set<std::string>& used) {
  for (const Op& op : ops) {
    if (!op.mem.empty()) used.insert(op.mem);
    for (const Operand& o : op.operands)
      if (o.is_arg) used.insert(o.name);
    ScanUsedArgs(op.body, used);
  }
}

std::string OpSummary(const Op& op) { return OpText(op); }

}  // namespace

KernelAbi LayoutAbi(const Kernel& k) {
  KernelAbi abi;
  bool tid[3] = {false, false, false}, wg[3] = {false, false, false};
  ScanOps(k.body, tid, wg);
  for (int d = 0; d < 3; ++d) {
    abi.wg_id_enabled[d] = wg[d] && k.grid[d] > 1;
    if (tid[d] && k.workgroup[d] > 1) abi.workitem_id_enable = std::max(abi.workitem_id_enable, d);
  }
  int64_t off = 0;
  for (const Arg& a : k.args) {
    int64_t size = a.kind == Arg::Kind::kBuffer ? 8 : 4;
    off = (off + size - 1) / size * size;
    abi.kernargs.push_back({a.name, off, size, a.kind == Arg::Kind::kBuffer});
    off += size;
  }
  abi.kernarg_size = (off + 7) / 8 * 8;
  LdsLayout lds = LayoutLds(k);
  for (size_t i = 0; i < k.lds.size(); ++i) abi.lds_offsets.push_back({k.lds[i].name, lds.offsets[i]});
  abi.lds_bytes = lds.total;
  return abi;
}

MOperand IVal::Op() const {
  if (kind == Kind::kConst) return MOperand::Imm(static_cast<uint32_t>(c));
  return kind == Kind::kSgpr ? MirBuilder::S(vreg) : MirBuilder::V(vreg);
}

absl::Status LowerCtx::Error(const Op& op, const std::string& msg) const {
  std::string where;
  if (!filename_.empty()) where = filename_ + ":";
  if (op.loc.line > 0) absl::StrAppend(&where, op.loc.line, ":", op.loc.col, ":");
  if (!where.empty()) where += " ";
  return absl::InvalidArgumentError(
      absl::StrCat(where, "error: in '", OpSummary(op), "': ", msg));
}

absl::Status LowerCtx::AtOp(const Op& op, const absl::Status& st) const {
  if (st.ok() || absl::StrContains(st.message(), "error: in '")) return st;
  absl::Status e = Error(op, std::string(st.message()));
  return absl::Status(st.code(), e.message());
}

int LowerCtx::Srd(const std::string& arg) {
  auto done = srd_.find(arg);
  if (done != srd_.end()) return done->second;
  int q = srd_pending_.at(arg);
  if (auto pending = kernarg_load_pending_.find(arg); pending != kernarg_load_pending_.end()) {
    b_.Emit(Opc::kSLoadDwordx2,
            {MirBuilder::S(q, 0, 2), MirBuilder::S(kernarg_, 0, 2), MOperand::Imm(pending->second)});
    kernarg_load_pending_.erase(pending);
  }
  const Arg* a = k_.FindArg(arg);
  if (a->SizeBytes() >= kWideBufferBytes) {
    // Only the pointer, in an SGPR pair: each window's SRD is built from it (WideSrd).
    b_.Emit(Opc::kSAndB32, {MirBuilder::S(q, 1), MirBuilder::S(q, 1), MOperand::Imm(0xffff)});
    srd_[arg] = q;
    return q;
  }
  // SRD words 1-3 (amdgcn-isa-notes.md section 4): base_hi with stride 0,
  // num_records = buffer bytes, dword3 with data_format 4 (32-bit).
  b_.Emit(Opc::kSAndB32, {MirBuilder::S(q, 1), MirBuilder::S(q, 1), MOperand::Imm(0xffff)});
  b_.Emit(Opc::kSMovB32, {MirBuilder::S(q, 2), MOperand::Imm(static_cast<uint32_t>(a->SizeBytes()))});
  b_.Emit(Opc::kSMovB32, {MirBuilder::S(q, 3), MOperand::Imm(0x00020000)});
  srd_[arg] = q;
  return q;
}

int LowerCtx::VgprsOf(const std::string& name) {
  Value& v = values_.at(name);
  if (v.is_zero && v.vreg < 0) {
    v.vreg = b_.NewV(v.type.Dwords(), TupleAlign(t_, v.type.Dwords()));
    v.cls = RegClass::kVgpr;
    for (int i = 0; i < v.type.Dwords(); ++i)
      b_.Emit(Opc::kVMovB32, {MirBuilder::V(v.vreg, i), MOperand::Imm(0)});
  }
  if (v.cls == RegClass::kVgpr) return v.vreg;
  if (v.vgpr_copy >= 0) return v.vgpr_copy;
  int n = v.type.Dwords();
  int c = b_.NewV(n, TupleAlign(t_, n));
  for (int i = 0; i < n; ++i)
    b_.Emit(Opc::kVAccvgprRead, {MirBuilder::V(c, i), MirBuilder::A(v.vreg, i)});
  v.vgpr_copy = c;
  return c;
}

void LowerCtx::SetupInputs() {
  out_.abi = LayoutAbi(k_);
  const KernelAbi& abi = out_.abi;
  scope_.kernel = &k_;
  MFunction& f = out_.mir;
  // Kernel inputs, precoloured (AMDGPUUsage, initial kernel execution state).
  kernarg_ = f.NewVReg(RegClass::kSgpr, 2, 2);
  f.vregs[kernarg_].fixed = 0;
  int sys = abi.FirstSystemSgpr();
  for (int d = 0; d < 3; ++d) {
    if (!abi.wg_id_enabled[d]) continue;
    wg_[d] = f.NewVReg(RegClass::kSgpr, 1);
    f.vregs[wg_[d]].fixed = sys++;
  }
  if (t_.packed_workitem_ids) {
    workitem_[0] = f.NewVReg(RegClass::kVgpr, 1);
    f.vregs[workitem_[0]].fixed = 0;
  } else {
    for (int d = 0; d <= abi.workitem_id_enable; ++d) {
      workitem_[d] = f.NewVReg(RegClass::kVgpr, 1);
      f.vregs[workitem_[d]].fixed = d;
    }
  }
  for (const auto& [name, off] : abi.lds_offsets) lds_offset_[name] = off;
}

absl::Status LowerCtx::Run() {
  SetupInputs();
  const KernelAbi& abi = out_.abi;
  MFunction& f = out_.mir;
  // Kernel arguments from the kernarg segment (s_load: lgkmcnt, out of order);
  // arguments no op uses are not loaded.
  std::set<std::string> used;
  ScanUsedArgs(k_.body, used);
  for (const KernelAbi::KernargSlot& slot : abi.kernargs) {
    if (!used.count(slot.name)) continue;
    if (slot.is_buffer) {
      const bool wide = k_.FindArg(slot.name)->SizeBytes() >= kWideBufferBytes;
      int q = wide ? f.NewVReg(RegClass::kSgpr, 2, 2) : f.NewVReg(RegClass::kSgpr, 4, 4);
      if (kernarg_loads_at_first_use_)
        kernarg_load_pending_[slot.name] = slot.offset;
      else
        b_.Emit(Opc::kSLoadDwordx2, {MirBuilder::S(q, 0, 2), MirBuilder::S(kernarg_, 0, 2),
                                     MOperand::Imm(slot.offset)});
      srd_pending_[slot.name] = q;
    } else {
      int s = b_.NewS();
      b_.Emit(Opc::kSLoadDword,
              {MirBuilder::S(s), MirBuilder::S(kernarg_, 0, 2), MOperand::Imm(slot.offset)});
      scalar_args_[slot.name] = s;
    }
  }
  absl::Status st = LowerOps(k_.body);
  if (!st.ok()) return st;
  b_.SetKirOp(-1);
  b_.Emit(Opc::kSEndpgm, {});
  // Which lds_dma ops' DMAs may write a common LDS byte in one wave: the
  // s_waitcnt pass orders those (waitcnt.h).
  for (const auto& [i, j] : LdsDmaMayOverlap(k_, lds_offset_, dma_sites_)) {
    const int a = dma_site_ops_[i], b = dma_site_ops_[j];
    f.lds_dma_overlaps.push_back({std::min(a, b), std::max(a, b)});
  }
  std::sort(f.lds_dma_overlaps.begin(), f.lds_dma_overlaps.end());
  f.lds_dma_overlaps.erase(std::unique(f.lds_dma_overlaps.begin(), f.lds_dma_overlaps.end()),
                           f.lds_dma_overlaps.end());
  f.lds_dma_overlaps_known = true;
  return absl::OkStatus();
}

bool LowerCtx::DiesHere(const std::string& name) const {
  if (use_scopes_.empty()) return false;
  const UseScope& u = use_scopes_.back();
  auto it = u.last_read.find(name);
  return u.defined.count(name) > 0 && it != u.last_read.end() && it->second == u.at;
}

absl::Status LowerCtx::LowerOps(const std::vector<Op>& ops) {
  UseScope uses;
  uses.ops = &ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const std::string& r : ops[i].results) uses.defined.insert(r);
    std::vector<const Op*> todo = {&ops[i]};
    while (!todo.empty()) {
      const Op* o = todo.back();
      todo.pop_back();
      for (const Operand& x : o->operands)
        if (!x.is_arg) uses.last_read[x.name] = i;
      for (const Op& in : o->body) todo.push_back(&in);
    }
  }
  use_scopes_.push_back(std::move(uses));
  absl::Status result = LowerOpList(ops);
  use_scopes_.pop_back();
  return result;
}

absl::Status LowerCtx::LowerOpList(const std::vector<Op>& ops) {
  // Pre-order numbering of ops (a loop before its body).
  for (const Op& op : ops) {
    use_scopes_.back().at = static_cast<size_t>(&op - ops.data());
    if (op.kind == OpKind::kYield) continue;  // handled by LowerFor
    cur_op_ = static_cast<int>(out_.kir_op_text.size());
    out_.kir_op_text.push_back(OpSummary(op));
    out_.kir_op_loc.push_back(op.loc);
    b_.SetKirOp(cur_op_);
    absl::Status st;
    switch (op.kind) {
      case OpKind::kLoad:
        st = LowerLoad(op);
        break;
      case OpKind::kStore:
        st = LowerStore(op);
        break;
      case OpKind::kLdsDma:
        st = LowerLdsDma(op);
        break;
      case OpKind::kBarrier:
        // A single-wave workgroup needs no barrier (as LLVM drops it).
        if (k_.WorkgroupThreads() > 64) b_.Emit(Opc::kSBarrier, {});
        break;
      case OpKind::kMfma:
        st = LowerMfma(op);
        break;
      case OpKind::kConst:
      case OpKind::kZero:
        st = LowerConst(op);
        break;
      case OpKind::kAdd:
      case OpKind::kMul:
      case OpKind::kFma:
        st = LowerElementwise(op);
        break;
      case OpKind::kCvt:
        st = LowerCvt(op);
        break;
      case OpKind::kSlice:
        st = LowerSlice(op);
        break;
      case OpKind::kConcat:
        st = LowerConcat(op);
        break;
      case OpKind::kFor:
        st = LowerFor(op);
        break;
      case OpKind::kYield:
        break;
      case OpKind::kGemm:
        st = Error(op, "gemm is a tile-level op: promote the kernel first (kir::ValidateAndPromote)");
        break;
    }
    if (!st.ok()) return AtOp(op, st);
  }
  return absl::OkStatus();
}

absl::StatusOr<LoweredIndex> LowerIndexExpr(const Kernel& k, const TargetInfo& target,
                                            const IndexExpr& e) {
  LoweredKernel lk;
  LowerCtx ctx(k, target, lk);
  ctx.SetupInputs();
  absl::StatusOr<AffineForm> f = Affine(e, ctx.scope_);
  if (!f.ok()) return f.status();
  absl::StatusOr<IVal> v = ctx.EmitAffine(*f);
  if (!v.ok()) return v.status();
  LoweredIndex out;
  out.abi = lk.abi;
  out.kind = v->kind == IVal::Kind::kConst   ? LoweredIndex::Kind::kConst
             : v->kind == IVal::Kind::kSgpr ? LoweredIndex::Kind::kSgpr
                                            : LoweredIndex::Kind::kVgpr;
  out.constant = v->c;
  out.vreg = v->vreg;
  for (int d = 0; d < 3; ++d) {
    out.workitem_vreg[d] = ctx.workitem_[d];
    out.wg_vreg[d] = ctx.wg_[d];
  }
  out.mir = std::move(lk.mir);
  return out;
}

absl::StatusOr<LoweredKernel> LowerKernel(const Kernel& k, const TargetInfo& target,
                                          absl::string_view filename, const LowerOptions& options) {
  LoweredKernel out;
  LowerCtx ctx(k, target, out);
  ctx.acc_in_agprs_ = target.mfma_acc_in_agprs || options.mfma_acc_in_agprs;
  ctx.kernarg_loads_at_first_use_ = options.kernarg_loads_at_first_use;
  ctx.filename_ = std::string(filename);
  absl::Status st = ctx.Run();
  if (!st.ok()) return st;
  RemoveDeadInstructions(out.mir);
  out.kernel = k;
  return out;
}

}  // namespace kir
