// Basic blocks of a linear MIR instruction list: blocks start at index 0 and
// at each label, and end after a branch or s_endpgm (or before a label).
#ifndef KIRC_COMPILER_ISA_CFG_H_
#define KIRC_COMPILER_ISA_CFG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compiler/isa/instr.h"

namespace kir {

// The control-flow graph of `f`'s instructions, built afresh (BasicBlock is in
// instr.h). Errors: a branch to an unknown label, or a label defined twice.
absl::StatusOr<std::vector<BasicBlock>> BuildCfg(const MFunction& f);

// `f`'s kept CFG (MFunction::blocks), built on first use: the one CFG every
// pass reads. Errors as BuildCfg's.
absl::StatusOr<const std::vector<BasicBlock>*> EnsureCfg(MFunction& f);

// After a pass rewrote `f.insts` block by block, keeping every block's
// instructions inside it and the edges unchanged: block b now starts at
// `new_begin[b]` (one entry per block; blocks stay in order and end where
// the next begins, the last at f.insts.size()).
void RenumberBlocks(MFunction& f, const std::vector<int>& new_begin);

// For code that edits `f.insts` in ways RenumberBlocks cannot describe: the
// CFG is rebuilt on its next use.
inline void InvalidateCfg(MFunction& f) {
  f.blocks.clear();
  f.cfg_valid = false;
}

// Whether `a` and `b` are the same CFG (blocks, ranges and edges).
bool SameCfg(const std::vector<BasicBlock>& a, const std::vector<BasicBlock>& b);

// True if `mi` is a label pseudo-instruction.
inline bool IsLabel(const MInst& mi) { return mi.opc == Opc::kLabel; }

// Forward dataflow to a fixed point over `blocks` (the one solver of the
// waitcnt and hazard passes). The entry state of block 0 is `entry`; the entry
// state of every other block is the join of its predecessors' exit states
// (loop back edges included); `transfer(block_index, entry_state)` gives a
// block's exit state. `join(State& into, const State& from)` widens `into` by
// `from` and returns true iff `into` changed.
//
// Termination: each round that changes anything strictly raises some entry
// state, so when join is a join of a lattice in which every chain from the
// bottom has at most `height` elements per block, at most
// blocks.size() * height + 1 rounds run. `height` is the caller's bound on its
// state lattice (its counters must saturate); exceeding it means the state is
// not the finite lattice it claims, a kirc bug, reported as an internal error
// naming `pass`. Result: the entry state of each block, nullopt for a block no
// path from block 0 reaches. Rounds evaluate every reachable block in order
// and the last round changes nothing, so the last call of `transfer` for each
// reachable block had that block's final entry state: a pass may keep what
// its transfer decided there (the hazard pass keeps its s_nop positions).
template <typename State, typename Transfer, typename Join>
absl::StatusOr<std::vector<std::optional<State>>> ForwardDataflow(
    const std::vector<BasicBlock>& blocks, State entry, int64_t height, const std::string& pass,
    Transfer&& transfer, Join&& join) {
  std::vector<std::optional<State>> in(blocks.size());
  if (blocks.empty()) return in;
  in[0] = std::move(entry);
  const int64_t max_rounds = static_cast<int64_t>(blocks.size()) * height + 1;
  bool changed = true;
  for (int64_t round = 0; changed; ++round) {
    if (round > max_rounds)
      return absl::InternalError(absl::StrCat(
          pass, " dataflow did not converge in ", max_rounds,
          " rounds, the bound of its state lattice: this is a bug in kirc, please report it "
          "with the kernel"));
    changed = false;
    for (size_t b = 0; b < blocks.size(); ++b) {
      if (!in[b]) continue;
      State out = transfer(static_cast<int>(b), *in[b]);
      for (int s : blocks[b].succs) {
        if (!in[s]) {
          in[s] = out;
          changed = true;
        } else if (join(*in[s], out)) {
          changed = true;
        }
      }
    }
  }
  return in;
}

// The join of ForwardDataflow for a state with a Merge(const State&) member:
// merges `from` into `into` and says whether that changed it by `same`.
template <typename State, typename Same>
bool MergeInto(State& into, const State& from, Same&& same) {
  State merged = into;
  merged.Merge(from);
  if (same(into, merged)) return false;
  into = std::move(merged);
  return true;
}

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_CFG_H_
