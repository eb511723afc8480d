#include "compiler/isa/cfg.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "compiler/isa/operands.h"

namespace kir {

absl::StatusOr<std::vector<BasicBlock>> BuildCfg(const MFunction& f) {
  std::vector<BasicBlock> blocks;
  std::map<int64_t, int> label_block;
  int n = static_cast<int>(f.insts.size());
  int start = 0;
  auto close = [&](int end) {
    if (end > start || blocks.empty()) blocks.push_back(BasicBlock{start, end, {}, {}});
    start = end;
  };
  for (int i = 0; i < n; ++i) {
    const MInst& mi = f.insts[i];
    if (IsLabel(mi)) {
      if (i > start) close(i);
      int64_t id = LabelId(mi);
      if (!label_block.emplace(id, static_cast<int>(blocks.size())).second)
        return absl::InvalidArgumentError(absl::StrCat("label ", id, " is defined twice"));
    }
    uint32_t fl = Info(mi.opc).flags;
    if ((fl & kBranch) || mi.opc == Opc::kSEndpgm) close(i + 1);
  }
  if (start < n) close(n);
  for (size_t b = 0; b < blocks.size(); ++b) {
    BasicBlock& bb = blocks[b];
    if (bb.end == bb.begin) continue;
    const MInst& last = f.insts[bb.end - 1];
    uint32_t fl = Info(last.opc).flags;
    if (fl & kBranch) {
      int64_t id = LabelId(last);
      auto it = label_block.find(id);
      if (it == label_block.end())
        return absl::InvalidArgumentError(absl::StrCat("branch to unknown label ", id));
      bb.succs.push_back(it->second);
    }
    bool falls = last.opc != Opc::kSBranch && last.opc != Opc::kSEndpgm;
    if (falls && b + 1 < blocks.size()) bb.succs.push_back(static_cast<int>(b + 1));
  }
  for (size_t b = 0; b < blocks.size(); ++b)
    for (int s : blocks[b].succs) blocks[s].preds.push_back(static_cast<int>(b));
  return blocks;
}

absl::StatusOr<const std::vector<BasicBlock>*> EnsureCfg(MFunction& f) {
  if (!f.cfg_valid) {
    absl::StatusOr<std::vector<BasicBlock>> cfg = BuildCfg(f);
    if (!cfg.ok()) return cfg.status();
    f.blocks = *std::move(cfg);
    f.cfg_valid = true;
  }
  return &f.blocks;
}

void RenumberBlocks(MFunction& f, const std::vector<int>& new_begin) {
  if (!f.cfg_valid || new_begin.size() != f.blocks.size()) {
    InvalidateCfg(f);
    return;
  }
  const int n = static_cast<int>(f.insts.size());
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    f.blocks[b].begin = new_begin[b];
    f.blocks[b].end = b + 1 < f.blocks.size() ? new_begin[b + 1] : n;
  }
}

bool SameCfg(const std::vector<BasicBlock>& a, const std::vector<BasicBlock>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].begin != b[i].begin || a[i].end != b[i].end || a[i].succs != b[i].succs || a[i].preds != b[i].preds)
      return false;
  return true;
}

}  // namespace kir
