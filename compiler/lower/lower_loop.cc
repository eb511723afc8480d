// `for` loops: a rolled loop with an SGPR iteration counter, strength-reduced
// multiples of it for address terms, loop-invariant index parts hoisted into
// the preheader, and loop-carried values in fixed registers (MFMA
// accumulators updated in place).
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/lower/lower_internal.h"

namespace kir {
namespace {

// True if `name` is used by any op of `ops` from index `from` on (nested bodies included).
bool UsedFrom(const std::vector<Op>& ops, size_t from, const std::string& name) {
  for (size_t i = from; i < ops.size(); ++i) {
    for (const Operand& o : ops[i].operands)
      if (!o.is_arg && o.name == name) return true;
    if (UsedFrom(ops[i].body, 0, name)) return true;
  }
  return false;
}

bool UsedAsMfmaAcc(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops) {
    if (op.kind == OpKind::kMfma && op.operands.size() == 3 && op.operands[2].name == name)
      return true;
    if (UsedAsMfmaAcc(op.body, name)) return true;
  }
  return false;
}

}  // namespace

int LowerCtx::LoopOfAtom(const Atom& a) const {
  if (a.kind != Atom::Kind::kLoopVar) return -1;
  for (size_t l = 0; l < loops_.size(); ++l)
    if (loops_[l].ivar == a.name) return static_cast<int>(l);
  return -1;
}

bool LowerCtx::DependsOnLoop(const Atom& a) const {
  for (const LoopCtx& l : loops_)
    if (absl::StrContains(a.key, absl::StrCat("%", l.ivar, ".i"))) return true;
  return false;
}

int LowerCtx::ScaledCounter(int l, int64_t coeff) {
  LoopCtx& loop = loops_[l];
  if (coeff == 1) return loop.counter;
  auto it = loop.scaled.find(coeff);
  if (it != loop.scaled.end()) return it->second;
  int r = b_.NewS();
  // Initialise in the preheader: insert before the loop's label.
  MInst init;
  init.opc = Opc::kSMovB32;
  init.ops = {MirBuilder::S(r), MOperand::Imm(0)};
  init.id = out_.mir.next_inst_id++;
  init.kir_op = -1;
  init.comment = absl::StrCat(coeff, " * iteration of %", loop.ivar);
  std::vector<MInst>& insts = out_.mir.insts;
  insts.insert(insts.begin() + static_cast<long>(loop.preheader_end), std::move(init));
  for (LoopCtx& other : loops_)
    if (other.preheader_end >= loop.preheader_end && &other != &loop) ++other.preheader_end;
  ++loop.preheader_end;
  loop.scaled[coeff] = r;
  return r;
}

void LowerCtx::ForgetLoopValues(const std::string& ivar) {
  std::string key = absl::StrCat("%", ivar, ".i");
  for (auto* cache : {&affine_cache_, &atom_cache_})
    for (auto it = cache->begin(); it != cache->end();)
      it = absl::StrContains(it->first, key) ? cache->erase(it) : std::next(it);
  // Guard compares of loop-dependent indices (their keys name the variable);
  // conjunctions and selects are keyed by registers, which the forgotten
  // entries no longer hand out.
  for (auto it = guard_cache_.begin(); it != guard_cache_.end();)
    it = absl::StrContains(it->first, key) ? guard_cache_.erase(it) : std::next(it);
  for (auto it = affine64_cache_.begin(); it != affine64_cache_.end();)
    it = absl::StrContains(it->first, key) ? affine64_cache_.erase(it) : std::next(it);
  for (auto it = wide_srd_cache_.begin(); it != wide_srd_cache_.end();)
    it = absl::StrContains(it->first, key) ? wide_srd_cache_.erase(it) : std::next(it);
}

absl::Status LowerCtx::LowerFor(const Op& op) {
  if (op.step <= 0 || op.hi <= op.lo) return Error(op, "a loop must run at least once with a positive step");
  // The counter runs 1..trips against a 32-bit unsigned compare; kirc keeps
  // the trip count below 2^31 (ForTripCount does not overflow: hi and step
  // may be near 2^63, the validator bounds the values of the variable only).
  const int64_t trips = ForTripCount(op);
  if (trips >= (int64_t{1} << 31))
    return Error(op, absl::StrCat("the loop runs ", trips,
                                  " times; kirc's loops run at most 2^31 - 1 = 2147483647 times: "
                                  "split it into two nested loops or use a larger step"));
  const Op& yield = op.body.back();
  // The loop's scope: its induction variable is lo + step * iteration.
  scope_.loops[op.ivar] = IndexScope::Loop{op.lo, op.lo + (trips - 1) * op.step, op.step};
  LoopCtx loop;
  loop.ivar = op.ivar;
  loop.trips = trips;
  loop.label = next_label_++;
  loop.counter = b_.NewS();
  b_.Emit(Opc::kSMovB32, {MirBuilder::S(loop.counter), MOperand::Imm(0)}).comment =
      absl::StrCat("iteration of %", op.ivar);
  // Loop-carried values: one register tuple each, fixed across iterations.
  std::vector<int> phi(op.iter_args.size());
  for (size_t i = 0; i < op.iter_args.size(); ++i) {
    const Value& init = values_.at(op.operands[i].name);
    int n = init.type.Dwords();
    bool acc = acc_in_agprs_ && UsedAsMfmaAcc(op.body, op.iter_args[i]);
    Value v;
    v.type = init.type;
    v.cls = acc ? RegClass::kAgpr : RegClass::kVgpr;
    v.vreg = acc ? b_.NewA(n, TupleAlign(t_, n)) : b_.NewV(n, TupleAlign(t_, n));
    // Initial value.
    int src = init.is_zero ? -1 : (acc && init.cls == RegClass::kVgpr ? init.vreg : VgprsOf(op.operands[i].name));
    for (int r = 0; r < n; ++r) {
      MOperand s = src < 0 ? MOperand::Imm(0) : MirBuilder::V(src, r);
      if (acc)
        b_.Emit(Opc::kVAccvgprWrite, {MirBuilder::A(v.vreg, r), s});
      else
        b_.Emit(Opc::kVMovB32, {MirBuilder::V(v.vreg, r), s});
    }
    phi[i] = v.vreg;
    carried_vregs_.insert(v.vreg);
    values_[op.iter_args[i]] = v;
  }
  // An MFMA that accumulates into a carried value which nothing reads
  // afterwards writes its result in place (srcC == vdst: no copy, no hazard);
  // so does an elementwise op of the carried value's type into a VGPR carried
  // value (it reads and writes register by register).
  std::vector<std::string> inplace_names;  // dropped at the loop's exit (names are scoped)
  // Where each value of the body is defined, and how often it is read.
  std::map<std::string, size_t> def_at;
  std::map<std::string, int> reads;
  for (size_t j = 0; j < op.body.size(); ++j) {
    for (const std::string& r : op.body[j].results) def_at[r] = j;
    for (const Operand& o : op.body[j].operands)
      if (!o.is_arg) ++reads[o.name];
    std::vector<const Op*> nested;
    for (const Op& in : op.body[j].body) nested.push_back(&in);
    while (!nested.empty()) {  // reads inside nested loops count too
      const Op* n = nested.back();
      nested.pop_back();
      for (const Operand& o : n->operands)
        if (!o.is_arg) ++reads[o.name];
      for (const Op& in : n->body) nested.push_back(&in);
    }
  }
  for (size_t i = 0; i < yield.operands.size(); ++i) {
    const std::string& y = yield.operands[i].name;
    const std::string& carried_name = op.iter_args[i];
    const Value& carried = values_.at(carried_name);
    // Walk back from the yielded value through a chain of accumulating ops,
    // each reading the previous link exactly once: MFMAs through srcC, or
    // elementwise ops of the carried type on a VGPR carried value. If the
    // chain starts at the carried value, every link writes in place.
    std::vector<std::string> chain;
    std::string cur = y;
    bool ok = false;
    bool walk = true;  // walk the accumulating chain (not for a yielded load)
    // A load yielded into a VGPR carried value of its type that nothing reads
    // after the load is loaded straight into the carried registers (the
    // software-pipelined gemm carries its next tile's loads this way).
    if (auto d = def_at.find(y); d != def_at.end() && op.body[d->second].kind == OpKind::kLoad &&
                                 carried.cls == RegClass::kVgpr &&
                                 op.body[d->second].type.Dwords() == carried.type.Dwords()) {
      chain.push_back(y);
      ok = !UsedFrom(op.body, d->second + 1, carried_name);
      walk = false;
    }
    for (int guard = 0; guard < 4096 && walk; ++guard) {
      auto d = def_at.find(cur);
      if (d == def_at.end()) break;
      const Op& def = op.body[d->second];
      std::string prev;
      if (def.kind == OpKind::kMfma && def.operands.size() == 3) {
        prev = def.operands[2].name;
      } else if ((def.kind == OpKind::kAdd || def.kind == OpKind::kMul || def.kind == OpKind::kFma) &&
                 carried.cls == RegClass::kVgpr) {
        for (const Operand& o : def.operands) {
          if (o.is_arg) continue;
          auto it = values_.find(o.name);
          bool is_link = o.name == carried_name || (def_at.count(o.name) && o.name != cur);
          (void)it;
          if (is_link && prev.empty()) prev = o.name;
        }
        // Only when every operand is at most the carried value's width.
        for (const Operand& o : def.operands) {
          if (o.is_arg) continue;
          auto it = values_.find(o.name);
          if (it != values_.end() && it->second.type.width > carried.type.width) prev.clear();
        }
      }
      if (prev.empty()) break;
      chain.push_back(cur);
      if (prev == carried_name) {
        // The carried value must not be read after the chain's first link.
        ok = !UsedFrom(op.body, d->second + 1, carried_name);
        break;
      }
      // An intermediate link is read exactly once (by the next link) and never yielded.
      if (reads[prev] != 1) break;
      bool yielded = false;
      for (const Operand& o : yield.operands) yielded = yielded || o.name == prev;
      if (yielded) break;
      cur = prev;
    }
    if (!ok || chain.empty()) continue;
    bool yielded_elsewhere = false;
    for (size_t o = 0; o < yield.operands.size(); ++o)
      if (o != i && yield.operands[o].name == y) yielded_elsewhere = true;
    if (yielded_elsewhere) continue;
    for (const std::string& link : chain) {
      inplace_[link] = phi[i];
      inplace_names.push_back(link);
    }
  }
  loops_.push_back(loop);
  int l = static_cast<int>(loops_.size()) - 1;
  // Hoist what the body's accesses need that does not change per iteration:
  // the SRDs of every buffer the loop (nested loops included) touches, and the
  // loop-invariant address parts of its direct accesses.
  std::vector<const Op*> nested;
  for (const Op& b : op.body) nested.push_back(&b);
  while (!nested.empty()) {
    const Op* n = nested.back();
    nested.pop_back();
    if ((n->kind == OpKind::kLoad || n->kind == OpKind::kStore || n->kind == OpKind::kLdsDma) &&
        k_.FindArg(n->mem) != nullptr && srd_pending_.count(n->mem))
      Srd(n->mem);
    for (const Op& in : n->body) nested.push_back(&in);
  }
  for (const Op& b : op.body) {
    if (b.kind != OpKind::kLoad && b.kind != OpKind::kStore && b.kind != OpKind::kLdsDma) continue;
    absl::Status st = HoistAccessInvariants(b, op.body);
    if (!st.ok()) return AtOp(b, st);
  }
  // Accesses of nested loops: what does not depend on any loop is hoisted out
  // of this one too (their own loop variables are not in scope yet: those
  // accesses are skipped here and handled by their loop).
  nested.clear();
  for (const Op& b : op.body)
    if (b.kind == OpKind::kFor)
      for (const Op& in : b.body) nested.push_back(&in);
  while (!nested.empty()) {
    const Op* n = nested.back();
    nested.pop_back();
    for (const Op& in : n->body) nested.push_back(&in);
    if (n->kind != OpKind::kLoad && n->kind != OpKind::kStore) continue;
    bool in_scope = true;
    std::vector<const IndexExpr*> stack;
    for (const IndexRef& i : n->index) stack.push_back(i.get());
    while (!stack.empty() && in_scope) {
      const IndexExpr* e = stack.back();
      stack.pop_back();
      if (e == nullptr) continue;
      if (e->kind == IndexKind::kLoopVar && !scope_.loops.count(e->name)) in_scope = false;
      stack.push_back(e->lhs.get());
      stack.push_back(e->rhs.get());
    }
    if (!in_scope) continue;
    std::vector<Op> empty;
    (void)HoistAccessInvariants(*n, empty);  // best effort: the loop itself redoes it
  }
  loops_[l].preheader_end = out_.mir.insts.size();
  b_.Emit(Opc::kLabel, {MOperand::Imm(loops_[l].label)});
  absl::Status st = LowerOps(op.body);
  if (!st.ok()) return st;
  // The yield: next values into the carried registers (a parallel copy:
  // through temporaries when one carried register feeds another).
  cur_op_ = static_cast<int>(out_.kir_op_text.size());
  out_.kir_op_text.push_back(absl::StrCat("yield of loop %", op.ivar));
  out_.kir_op_loc.push_back(yield.loc);
  b_.SetKirOp(cur_op_);
  std::vector<std::pair<int, int>> copies;  // (source vreg, iter arg index)
  for (size_t i = 0; i < yield.operands.size(); ++i) {
    const std::string& y = yield.operands[i].name;
    const Value& yv = values_.at(y);
    if (yv.vreg == phi[i] && !yv.is_zero) continue;  // updated in place
    copies.push_back({-1, static_cast<int>(i)});
  }
  std::vector<int> sources(copies.size());
  bool through_temps = false;
  for (size_t c = 0; c < copies.size(); ++c) {
    const std::string& y = yield.operands[copies[c].second].name;
    const Value& yv = values_.at(y);
    for (int p : phi)
      if (yv.vreg == p) through_temps = true;
  }
  for (size_t c = 0; c < copies.size(); ++c) {
    int i = copies[c].second;
    const std::string& y = yield.operands[i].name;
    const Value& target = values_.at(op.iter_args[i]);
    int n = target.type.Dwords();
    bool acc = target.cls == RegClass::kAgpr;
    const Value& yv = values_.at(y);
    int src;
    if (acc && yv.cls == RegClass::kAgpr && !yv.is_zero) {
      src = VgprsOf(y);  // AGPR -> AGPR goes through VGPRs on gfx908
    } else {
      src = yv.is_zero ? -1 : VgprsOf(y);
    }
    if (through_temps && src >= 0) {
      int tmp = b_.NewV(n, TupleAlign(t_, n));
      for (int r = 0; r < n; ++r) b_.Emit(Opc::kVMovB32, {MirBuilder::V(tmp, r), MirBuilder::V(src, r)});
      src = tmp;
    }
    sources[c] = src;
  }
  for (size_t c = 0; c < copies.size(); ++c) {
    int i = copies[c].second;
    const Value& target = values_.at(op.iter_args[i]);
    int n = target.type.Dwords();
    for (int r = 0; r < n; ++r) {
      MOperand s = sources[c] < 0 ? MOperand::Imm(0) : MirBuilder::V(sources[c], r);
      if (target.cls == RegClass::kAgpr)
        b_.Emit(Opc::kVAccvgprWrite, {MirBuilder::A(target.vreg, r), s});
      else
        b_.Emit(Opc::kVMovB32, {MirBuilder::V(target.vreg, r), s});
    }
  }
  // Latch: advance the counter and its multiples, loop while below trips.
  LoopCtx& lc = loops_[l];
  for (const auto& [coeff, r] : lc.scaled)
    b_.Emit(Opc::kSAddU32, {MirBuilder::S(r), MirBuilder::S(r), MOperand::Imm(static_cast<uint32_t>(coeff))});
  b_.Emit(Opc::kSAddU32, {MirBuilder::S(lc.counter), MirBuilder::S(lc.counter), MOperand::Imm(1)});
  MOperand bound = IsInlineInt(trips) ? MOperand::Imm(trips) : MOperand::Imm(static_cast<uint32_t>(trips));
  b_.Emit(Opc::kSCmpLtU32, {MirBuilder::S(lc.counter), bound});
  b_.Emit(Opc::kSCbranchScc1, {MOperand::Imm(lc.label)});
  // After the loop: results are the carried registers; per-iteration index
  // values are forgotten.
  for (size_t i = 0; i < op.results.size(); ++i) {
    Value v = values_.at(op.iter_args[i]);
    v.vgpr_copy = -1;  // a copy made in the body holds one iteration's value
    values_[op.results[i]] = v;
  }
  ForgetLoopValues(op.ivar);
  for (const std::string& n : inplace_names) inplace_.erase(n);
  loops_.pop_back();
  scope_.loops.erase(op.ivar);
  return absl::OkStatus();
}

}  // namespace kir
