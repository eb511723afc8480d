#include "compiler/passes/hazards.h"

#include <optional>

#include "compiler/isa/cfg.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/isa/hazard_table.h"
#include "compiler/isa/operands.h"

namespace kir {

int HazardState::Deficit(const TargetInfo& t, const MInst& consumer, std::string* why) const {
  return Deficit(t, HazardOperands(consumer), why);
}

void HazardState::Pad(int wait_states) {
  for (Entry& e : recent) e.elapsed += wait_states;
  recent.erase(std::remove_if(recent.begin(), recent.end(),
                              [&](const Entry& e) { return e.elapsed >= window; }),
               recent.end());
}

void HazardState::Issue(const MInst& inst) { Push(inst, nullptr); }

void HazardState::Issue(const HazardOperands& ops) { Push(ops.inst(), &ops); }

void HazardState::Push(const MInst& inst, const HazardOperands* ops) {
  Pad(IssuedWaitStates(inst));
  // Only what can start a hazard enters the window (s_nop, s_waitcnt, SALU,
  // loads and DS produce nothing a later instruction waits for).
  if (CanStartHazard(inst)) recent.push_back(Entry{&inst, 0, ops});
}

int HazardState::Deficit(const TargetInfo& t, const HazardOperands& consumer, std::string* why) const {
  int best = 0;
  const Entry* binding = nullptr;
  for (const Entry& e : recent) {
    const int need = e.ops != nullptr ? RequiredWaitStates(t, *e.ops, consumer, nullptr)
                                      : RequiredWaitStates(t, *e.inst, consumer.inst(), nullptr);
    if (need - e.elapsed > best) {
      best = need - e.elapsed;
      binding = &e;
    }
  }
  if (best > 0 && why != nullptr) RequiredWaitStates(t, *binding->inst, consumer.inst(), why);
  return best;
}

void HazardState::Merge(const HazardState& other) {
  for (const Entry& o : other.recent) {
    auto it = std::find_if(recent.begin(), recent.end(),
                           [&](const Entry& e) { return e.inst == o.inst; });
    if (it == recent.end())
      recent.push_back(o);
    else
      it->elapsed = std::min(it->elapsed, o.elapsed);
  }
  window = std::max(window, other.window);
  // Keep "oldest first" (largest elapsed first) for readability; Deficit does
  // not depend on the order.
  std::stable_sort(recent.begin(), recent.end(),
                   [](const Entry& a, const Entry& b) { return a.elapsed > b.elapsed; });
}

namespace {

absl::Status CheckInput(const MInst& mi, size_t index) {
  for (const MOperand& o : mi.ops)
    if (o.kind == MOperand::Kind::kReg && o.is_virtual)
      return absl::InvalidArgumentError(
          absl::StrCat("hazard pass: instruction ", index, " (", Info(mi.opc).mnemonic,
                       ") has a virtual register operand; run it after register allocation"));
  const MOperand* simm16 = FindOperand(mi, OpName::kSimm16);
  if (mi.opc == Opc::kSNop &&
      (simm16 == nullptr || simm16->kind != MOperand::Kind::kImm || simm16->imm < 0 || simm16->imm > 15))
    return absl::InvalidArgumentError(absl::StrCat(
        "hazard pass: instruction ", index,
        " is an s_nop without an immediate in 0..15 (the hardware reads only 4 bits)"));
  return absl::OkStatus();
}

MInst MakeNop(int wait_states, const std::string& why) {
  MInst nop;
  nop.opc = Opc::kSNop;
  nop.ops.push_back(MOperand::Imm(wait_states - 1));
  nop.id = -1;
  nop.comment = why;
  return nop;
}

}  // namespace

namespace {

bool SameState(const HazardState& a, const HazardState& b) {
  if (a.recent.size() != b.recent.size()) return false;
  for (const HazardState::Entry& e : a.recent) {
    bool found = false;
    for (const HazardState::Entry& o : b.recent)
      if (o.inst == e.inst && o.elapsed == e.elapsed) found = true;
    if (!found) return false;
  }
  return true;
}

}  // namespace

absl::Status InsertHazardNops(const TargetInfo& t, MFunction& f, HazardNopStats* stats) {
  for (size_t i = 0; i < f.insts.size(); ++i) {
    if (IsLabel(f.insts[i])) continue;
    absl::Status s = CheckInput(f.insts[i], i);
    if (!s.ok()) return s;
  }
  absl::StatusOr<const std::vector<BasicBlock>*> cfg = EnsureCfg(f);
  if (!cfg.ok()) return cfg.status();
  const std::vector<BasicBlock>& blocks = **cfg;
  // The states point into the input list, which stays untouched until the end.
  std::vector<MInst> in = std::move(f.insts);
  // Each instruction's register accesses, collected once (the states test
  // every consumer against every producer in the window).
  std::vector<HazardOperands> ops;
  ops.reserve(in.size());
  for (const MInst& mi : in) ops.emplace_back(mi);
  // The padding each block needs before its instructions, from the block's
  // last evaluation. ForwardDataflow's last round evaluates every reachable
  // block from its final entry state without a change, so these are the
  // final answers and no separate output run is needed.
  struct NopsBefore {
    int inst;         // index into `in`
    int wait_states;  // the deficit there
    std::string why;  // the binding rule
  };
  std::vector<std::vector<NopsBefore>> block_nops(blocks.size());
  std::string why;
  auto run_block = [&](int b, HazardState st) {
    const BasicBlock& bb = blocks[b];
    std::vector<NopsBefore>& nops = block_nops[b];
    nops.clear();
    for (int i = bb.begin; i < bb.end; ++i) {
      if (IsLabel(in[i])) continue;
      const int deficit = st.Deficit(t, ops[i], &why);
      if (deficit > 0) {
        st.Pad(deficit);
        nops.push_back({i, deficit, why});
      }
      st.Issue(ops[i]);
    }
    return st;
  };
  // Forward dataflow to a fixed point: at a join (a loop header) every
  // producer of every predecessor is in the window, with its smallest distance.
  // Lattice height per block: each instruction's entry enters once and its
  // distance only shrinks, through at most MaxHazardWindow() values.
  const int64_t height = static_cast<int64_t>(in.size()) * (MaxHazardWindow() + 1) + 1;
  absl::StatusOr<std::vector<std::optional<HazardState>>> entry = ForwardDataflow(
      blocks, HazardState(MaxHazardWindow()), height, "hazard",
      [&](int b, const HazardState& st) { return run_block(b, st); },
      [](HazardState& into, const HazardState& from) { return MergeInto(into, from, SameState); });
  if (!entry.ok()) return entry.status();
  // Unreachable blocks: padded as if entered with nothing in flight.
  for (size_t b = 0; b < blocks.size(); ++b)
    if (!(*entry)[b]) run_block(static_cast<int>(b), HazardState(MaxHazardWindow()));
  bool any = false;
  for (const std::vector<NopsBefore>& nops : block_nops) any = any || !nops.empty();
  if (!any) {  // nothing to insert: the instructions and the kept CFG stay as they were
    f.insts = std::move(in);
    return absl::OkStatus();
  }
  std::vector<MInst> out;
  out.reserve(in.size() + in.size() / 4);
  std::vector<int> new_begin(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    new_begin[b] = static_cast<int>(out.size());
    auto pad = block_nops[b].begin();
    for (int i = blocks[b].begin; i < blocks[b].end; ++i) {
      if (pad != block_nops[b].end() && pad->inst == i) {
        if (stats != nullptr) stats->wait_states += pad->wait_states;
        // One s_nop per at most 8 wait states (LLVM's insertNoops: s_nop 7 at most).
        for (int left = pad->wait_states; left > 0; left -= 8) {
          out.push_back(MakeNop(std::min(left, 8), pad->why));
          if (stats != nullptr) ++stats->nops;
        }
        ++pad;
      }
      out.push_back(std::move(in[i]));
    }
  }
  f.insts = std::move(out);
  RenumberBlocks(f, new_begin);
  return absl::OkStatus();
}

}  // namespace kir
