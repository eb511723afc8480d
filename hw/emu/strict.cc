#include "hw/emu/strict.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "compiler/target/hazard_table.h"

namespace kir::emu {
namespace {

std::string SgprName(int s) {
  if (s == kVccLo) return "vcc_lo";
  if (s == kVccLo + 1) return "vcc_hi";
  if (s == kExecLo) return "exec_lo";
  if (s == kExecLo + 1) return "exec_hi";
  if (s == kM0) return "m0";
  return absl::StrCat("s", s);
}

const char* CounterName(Counter c) {
  return c == Counter::kVm ? "vmcnt" : "lgkmcnt";
}

}  // namespace

absl::Status CheckPendingLoads(const Wave& w, const Program& p, int inst) {
  const MInst& mi = p.insts[inst].mi;
  auto report = [&](int64_t seq, const std::string& reg, bool def) -> absl::Status {
    const PendingOp* op = w.FindOp(seq);
    std::string load = op ? p.Describe(op->inst) : "<unknown>";
    std::string fix;
    if (op != nullptr) {
      // The count that would have covered it.
      if (op->ctr == Counter::kVm) {
        fix = absl::StrCat("vmcnt(", w.YoungerThan(seq), ")");
      } else if (op->ctr == Counter::kSmem || w.OutstandingSmem() > 0) {
        fix = "lgkmcnt(0), since a scalar load is outstanding";
      } else {
        fix = absl::StrCat("lgkmcnt(", w.YoungerThan(seq), ")");
      }
    }
    return absl::FailedPreconditionError(absl::StrCat(
        p.Describe(inst), def ? " overwrites " : " reads ", reg, " while the load ", load,
        " that writes it is in flight: no s_waitcnt covered it",
        op ? absl::StrCat(" (", CounterName(op->ctr), ": needs s_waitcnt ", fix, " before it)") : ""));
  };
  auto check_sgprs = [&](int lo, int n, bool def) -> absl::Status {
    for (int s = lo; s < lo + n; ++s)
      if (int64_t seq = w.OwnerOfSgpr(s)) return report(seq, SgprName(s), def);
    return absl::OkStatus();
  };
  for (size_t i = 0; i < mi.ops.size(); ++i) {
    const MOperand& o = mi.ops[i];
    const bool def = mi.IsDef(i);
    if (o.kind == MOperand::Kind::kReg) {
      for (int r = o.reg; r < o.reg + o.count; ++r) {
        int64_t seq = w.OwnerOf(o.cls, r);
        if (seq) return report(seq, o.cls == RegClass::kSgpr ? SgprName(r) : RegName(o.cls, r, 1), def);
      }
    } else if (o.kind == MOperand::Kind::kSpecial) {
      int lo = o.special == SpecialReg::kVcc ? kVccLo : o.special == SpecialReg::kExec ? kExecLo
               : o.special == SpecialReg::kM0 ? kM0 : -1;
      if (lo >= 0) {
        absl::Status s = check_sgprs(lo, o.special == SpecialReg::kM0 ? 1 : 2, def);
        if (!s.ok()) return s;
      }
    }
  }
  uint32_t f = Info(mi.opc).flags;
  if (f & (kReadsExec | kWritesExec)) {
    absl::Status s = check_sgprs(kExecLo, 2, !(f & kReadsExec));
    if (!s.ok()) return s;
  }
  if (f & kReadsVcc) return check_sgprs(kVccLo, 2, false);
  return absl::OkStatus();
}

absl::Status HazardWindow::Check(const TargetInfo& t, const Program& p, int inst) const {
  const MInst& c = p.insts[inst].mi;
  const int window = MaxHazardWindow();
  for (auto it = recent_.rbegin(); it != recent_.rend(); ++it) {
    const int64_t between = ws_ - it->ws_after;
    if (between >= window) break;
    const MInst& prod = p.insts[it->inst].mi;
    int need = RequiredWaitStates(t, prod, c, nullptr);
    if (need > between) {
      std::string why;
      RequiredWaitStates(t, prod, c, &why);
      return absl::FailedPreconditionError(absl::StrCat(
          "hazard: ", p.Describe(inst), " issues ", between, between == 1 ? " wait state" : " wait states",
          " after ", p.Describe(it->inst), ", which needs ", need, ": ", why));
    }
  }
  return absl::OkStatus();
}

void HazardWindow::Issued(const Program& p, int inst) {
  ws_ += IssuedWaitStates(p.insts[inst].mi);
  recent_.push_back({inst, ws_});
  const int window = MaxHazardWindow();
  while (!recent_.empty() && ws_ - recent_.front().ws_after >= window) recent_.pop_front();
}

void LdsRaceTracker::Reset(size_t lds_bytes, int waves) {
  waves_ = waves;
  ops_.clear();
  last_write_.assign(lds_bytes, -1);
  last_read_.assign(lds_bytes * static_cast<size_t>(waves), -1);
}

int LdsRaceTracker::NewOp(int wave, int inst, int gen, bool write) {
  ops_.push_back(Op{wave, inst, gen, INT_MAX, write});
  return static_cast<int>(ops_.size()) - 1;
}

void LdsRaceTracker::Completed(int op, int gen) {
  if (op >= 0 && op < static_cast<int>(ops_.size()) && ops_[op].done_gen == INT_MAX) ops_[op].done_gen = gen;
}

absl::Status LdsRaceTracker::Race(const Program& p, const Op& now, const Op& before, uint32_t byte,
                                  int gen) const {
  std::string why;
  if (before.issue_gen >= gen) {
    why = "with no s_barrier between them";
  } else {
    why = absl::StrCat("after an s_barrier, but wave ", before.wave, " reached the barrier before an s_waitcnt",
                       " covered its ", before.write ? "write (the write was not published)" : "read");
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "LDS race: wave ", now.wave, " ", p.Describe(now.inst), now.write ? " writes" : " reads",
      " LDS byte 0x", absl::Hex(byte), before.write ? " written" : " read", " by wave ", before.wave, " ",
      p.Describe(before.inst), " ", why));
}

absl::Status LdsRaceTracker::Access(const Program& p, int id, int lane, uint32_t addr, uint32_t n, int gen) {
  const Op& now = ops_[id];
  auto ordered = [&](const Op& before) { return before.wave == now.wave || before.done_gen < gen; };
  for (uint32_t b = addr; b < addr + n; ++b) {
    int32_t wop = last_write_[b];
    if (wop >= 0 && !ordered(ops_[wop])) return Race(p, now, ops_[wop], b, gen);
    int32_t* reads = &last_read_[static_cast<size_t>(b) * waves_];
    if (now.write) {
      for (int w = 0; w < waves_; ++w)
        if (reads[w] >= 0 && !ordered(ops_[reads[w]])) return Race(p, now, ops_[reads[w]], b, gen);
      last_write_[b] = id;
    } else {
      reads[now.wave] = id;
    }
  }
  if (!now.write)
    for (uint32_t b = addr; b < addr + n; ++b)
      if (last_write_[b] < 0)
        return absl::FailedPreconditionError(absl::StrCat(
            p.Describe(now.inst), ": lane ", lane, " reads LDS bytes [0x", absl::Hex(addr), ", 0x",
            absl::Hex(addr + n), "), but no lane of the workgroup has written LDS byte 0x", absl::Hex(b),
            " since the kernel started: LDS contents are undefined at launch (here 0xcd bytes); "
            "the kernel reads LDS it never stored"));
  return absl::OkStatus();
}

}  // namespace kir::emu
