#include "compiler/lower/dead_code.h"

#include <cstdint>
#include <vector>

#include "compiler/isa/cfg.h"
#include "compiler/isa/operands.h"

namespace kir {
namespace {

bool MayRemove(const MInst& mi) {
  const OpcInfo& info = Info(mi.opc);
  if (info.flags & (kPseudo | kBranch)) return false;
  switch (info.cls) {
    case InstClass::kValu:
    case InstClass::kValuTrans:
    case InstClass::kSalu:
    case InstClass::kMfma:
    case InstClass::kAccRead:
    case InstClass::kAccWrite:
      return true;
    default:
      return false;
  }
}

}  // namespace

int RemoveDeadInstructions(MFunction& f) {
  const int n = static_cast<int>(f.insts.size());
  const int nv = static_cast<int>(f.vregs.size());
  // One counter per dword of each root virtual register.
  std::vector<int> base(nv + 1, 0);
  for (int v = 0; v < nv; ++v) base[v + 1] = base[v] + (f.vregs[v].alias_of < 0 ? f.vregs[v].count : 0);
  std::vector<int> readers(base[nv], 0);
  std::vector<std::vector<int>> definers(base[nv]);
  // Each instruction's accesses, flattened: accesses of instruction i are
  // acc[first[i] .. first[i + 1]).
  std::vector<RegAccess> acc;
  std::vector<int> first(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    for (const RegAccess& a : CollectRegAccesses(f.insts[i], kAllAccesses, &f)) acc.push_back(a);
    first[i + 1] = static_cast<int>(acc.size());
  }
  auto dwords = [&](const RegAccess& a, auto&& fn) {
    if (!a.is_virtual || a.root < 0 || a.root >= nv) return;
    for (int d = a.lo; d < a.lo + a.count && base[a.root] + d < base[a.root + 1]; ++d) fn(base[a.root] + d);
  };
  for (int i = 0; i < n; ++i)
    for (int k = first[i]; k < first[i + 1]; ++k) {
      const RegAccess& a = acc[k];
      if (a.def)
        dwords(a, [&](int dw) { definers[dw].push_back(i); });
      else
        dwords(a, [&](int dw) { ++readers[dw]; });
    }
  auto dead = [&](int i) {
    if (!MayRemove(f.insts[i])) return false;
    bool any_def = false;
    for (int k = first[i]; k < first[i + 1]; ++k) {
      const RegAccess& a = acc[k];
      if (!a.def) continue;
      if (!a.is_virtual || a.root < 0 || a.root >= nv) return false;  // VCC, SCC, EXEC, physical
      any_def = true;
      bool read = false;
      dwords(a, [&](int dw) { read = read || readers[dw] > 0; });
      if (read) return false;
    }
    return any_def;
  };
  std::vector<char> removed(n, 0);
  std::vector<int> work;
  for (int i = 0; i < n; ++i)
    if (dead(i)) work.push_back(i);
  int count = 0;
  while (!work.empty()) {
    const int i = work.back();
    work.pop_back();
    if (removed[i] || !dead(i)) continue;
    removed[i] = 1;
    ++count;
    for (int k = first[i]; k < first[i + 1]; ++k) {
      if (acc[k].def) continue;
      dwords(acc[k], [&](int dw) {
        if (--readers[dw] == 0)
          for (int d : definers[dw])
            if (!removed[d]) work.push_back(d);
      });
    }
  }
  if (count == 0) return 0;
  int kept = 0;
  for (int i = 0; i < n; ++i)
    if (!removed[i]) {
      if (kept != i) f.insts[kept] = std::move(f.insts[i]);
      ++kept;
    }
  f.insts.resize(kept);
  InvalidateCfg(f);
  return count;
}

}  // namespace kir
