#include "hw/emu/strict.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/hazard_table.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/soft_clause.h"

namespace kir::emu {
namespace {

const char* CounterName(Counter c) {
  return c == Counter::kVm ? "vmcnt" : "lgkmcnt";
}

}  // namespace

absl::Status CheckSoftClauses(const Program& p, const TargetInfo& t, FeatureSetting xnack) {
  if (!t.has_xnack || xnack == FeatureSetting::kOff) return absl::OkStatus();
  SoftClauseTracker clause;
  for (size_t i = 0; i < p.insts.size(); ++i) {
    const MInst& mi = p.insts[i].mi;
    const int now = static_cast<int>(i);
    if (std::optional<SoftClauseHazard> h = clause.Check(mi)) {
      const int writer = h->writer == SoftClauseHazard::kThis ? now : h->writer;
      const int reader = h->reader == SoftClauseHazard::kThis ? now : h->reader;
      const std::string reg = h->cls == RegClass::kSgpr ? SgprDwordName(h->reg) : RegName(h->cls, h->reg, 1);
      std::string what;
      if (h->store)
        what = absl::StrCat("is a store (a store, an atomic or an LDS DMA load: LLVM's mayStore) after ",
                            p.Describe(writer), ", which writes ", reg, ": a store may not join a soft clause "
                            "that writes registers");
      else if (writer == now && reader == now)
        what = absl::StrCat("writes ", reg, ", which it reads itself, in a soft clause that writes registers");
      else if (writer == now)
        what = absl::StrCat("writes ", reg, ", which ", p.Describe(reader), " reads, in the same soft clause");
      else if (reader == now)
        what = absl::StrCat("reads ", reg, ", which ", p.Describe(writer), " writes, in the same soft clause");
      else if (writer == reader)
        what = absl::StrCat("joins the soft clause of ", p.Describe(writer), ", which writes ", reg,
                            ", a register it reads itself");
      else
        what = absl::StrCat("joins a soft clause in which ", p.Describe(writer), " writes ", reg, ", which ",
                            p.Describe(reader), " reads");
      const int other = writer != now ? writer : reader != now ? reader : h->run_start;
      return absl::FailedPreconditionError(absl::StrCat(
          "XNACK soft clause: ", p.Describe(now), " ", what, " (consecutive ",
          SoftClauseKindName(SoftClauseKindOf(mi)), " instructions from ", p.Describe(h->run_start),
          "; with xnack ", xnack == FeatureSetting::kOn ? "on (:xnack+)" : "any (no :xnack suffix)",
          " in the target ID a page fault may replay the clause, which would then see its own writes): put an "
          "s_nop 0 right before it, so that ", p.Describe(other), " and it are not in one clause (LLVM's "
          "GCNHazardRecognizer::checkSoftClauseHazards does), or build for ", t.name, ":xnack-"));
    }
    clause.Issued(mi, now);
  }
  return absl::OkStatus();
}

absl::Status CheckPendingLoads(const Wave& w, const Program& p, int inst) {
  const MInst& mi = p.insts[inst].mi;
  // The registers the instruction names (vcc, exec and m0 among them), in
  // operand order, then the EXEC and VCC it reads or writes implicitly, reads
  // first: an instruction that reads and writes EXEC (v_cmpx) is reported as
  // reading it. (Tied reads, kTiedReads, would only repeat a def's registers.)
  const RegAccesses accesses = CollectRegAccesses(mi, kExplicitAccesses | kImplicitAccesses);
  // Every load in flight that writes one of them: the advice must cover all
  // of them, not only the first one reported (fresh-user review 21 F4: two
  // loads into an MFMA's sources need vmcnt(0), not the first one's vmcnt(1)).
  std::vector<int64_t> waits;
  for (const RegAccess& a : accesses) {
    if (a.special == SpecialReg::kScc) continue;  // no load writes SCC
    for (int r = a.lo; r < a.lo + a.count; ++r)
      if (int64_t seq = w.OwnerOf(a.cls, r); seq && std::find(waits.begin(), waits.end(), seq) == waits.end())
        waits.push_back(seq);
  }
  auto report = [&](int64_t seq, const std::string& reg, bool def) -> absl::Status {
    const PendingOp* op = w.FindOp(seq);
    std::string load = op ? p.Describe(op->inst) : "<unknown>";
    if (op == nullptr)
      return absl::FailedPreconditionError(absl::StrCat(p.Describe(inst), def ? " overwrites " : " reads ", reg,
                                                        " while the load ", load,
                                                        " that writes it is in flight: no s_waitcnt covered it"));
    // The counts that cover every load in `waits`: per in-order queue, the
    // fewest younger operations among its loads (Wave::YoungerThan); a
    // scalar load (out of order) needs lgkmcnt(0), and so does any DS load
    // while a scalar load is outstanding; a flat_* access counts in both.
    int vm = INT_MAX, ds = INT_MAX;
    bool smem = false, flat = false;
    for (int64_t s : waits) {
      const PendingOp* o = w.FindOp(s);
      if (o == nullptr) continue;
      if (o->ctr == Counter::kVm) {
        vm = std::min(vm, w.YoungerThan(s));
        flat |= o->flat;
      } else if (o->ctr == Counter::kDs) {
        ds = std::min(ds, w.YoungerThan(s));
      } else {
        smem = true;
      }
    }
    std::string fix, counters;
    if (vm != INT_MAX) {
      fix = absl::StrCat("vmcnt(", vm, ")");
      counters = CounterName(Counter::kVm);
    }
    if (smem || ds != INT_MAX) {
      absl::StrAppend(&fix, fix.empty() ? "" : " ",
                      smem || w.OutstandingSmem() > 0 ? "lgkmcnt(0), since a scalar load is outstanding"
                                                      : absl::StrCat("lgkmcnt(", flat ? 0 : ds, ")"));
      absl::StrAppend(&counters, counters.empty() ? "" : " and ", CounterName(Counter::kDs));
    } else if (flat) {
      absl::StrAppend(&fix, " lgkmcnt(0) (a flat_* access counts in both)");
    }
    return absl::FailedPreconditionError(absl::StrCat(
        p.Describe(inst), def ? " overwrites " : " reads ", reg, " while the load ", load,
        " that writes it is in flight: no s_waitcnt covered it (", counters, ": needs s_waitcnt ", fix,
        " before it", waits.size() > 1 ? absl::StrCat(", which covers all ", waits.size(), " loads it waits for") : "",
        ")"));
  };
  // The first register of `a` (lowest first) a load in flight will write.
  auto check = [&](const RegAccess& a) -> absl::Status {
    if (a.special == SpecialReg::kScc) return absl::OkStatus();  // no load writes SCC
    for (int r = a.lo; r < a.lo + a.count; ++r)
      if (int64_t seq = w.OwnerOf(a.cls, r))
        return report(seq, a.cls == RegClass::kSgpr ? SgprDwordName(r) : RegName(a.cls, r, 1), a.def);
    return absl::OkStatus();
  };
  for (const RegAccess& a : accesses)
    if (a.explicit_op())
      if (absl::Status s = check(a); !s.ok()) return s;
  for (bool def : {false, true})
    for (const RegAccess& a : accesses)
      if (!a.explicit_op() && a.def == def)
        if (absl::Status s = check(a); !s.ok()) return s;
  return absl::OkStatus();
}

StrictTables::StrictTables(const TargetInfo& t, const Program& p) : t_(t), p_(p) {
  const size_t n = p.insts.size();
  order_.resize(n);
  producer_.assign(n, -1);
  issued_.assign(n, 0);
  int producers = 0;
  for (size_t i = 0; i < n; ++i) {
    const MInst& mi = p.insts[i].mi;
    const RegAccesses accesses = CollectRegAccesses(mi, kExplicitAccesses | kImplicitAccesses);
    std::vector<RegAccess>& o = order_[i];
    for (const RegAccess& a : accesses)
      if (a.explicit_op()) o.push_back(a);
    for (bool def : {false, true})
      for (const RegAccess& a : accesses)
        if (!a.explicit_op() && a.def == def) o.push_back(a);
    if (kir::CanStartHazard(mi)) producer_[i] = producers++;
    issued_[i] = kir::IssuedWaitStates(mi);
  }
  // At most 64 MiB of memo (a program of some 8000 instructions).
  const uint64_t cells = static_cast<uint64_t>(producers) * n;
  memo_ = cells <= (uint64_t{64} << 20);
  if (memo_) pair_.assign(cells, -1);
}

int StrictTables::Required(int prod, int cons) const {
  const int row = producer_[prod];
  if (row < 0) return 0;  // CanStartHazard: 0 for every consumer
  if (!memo_) return RequiredWaitStates(t_, p_.insts[prod].mi, p_.insts[cons].mi, nullptr);
  int8_t& cell = pair_[static_cast<size_t>(row) * p_.insts.size() + cons];
  if (cell < 0) cell = static_cast<int8_t>(RequiredWaitStates(t_, p_.insts[prod].mi, p_.insts[cons].mi, nullptr));
  return cell;
}

absl::Status CheckPendingLoads(const Wave& w, const StrictTables& tables, int inst) {
  // A register has an owner only while its load is in flight.
  if (w.OutstandingVm() == 0 && w.OutstandingDs() == 0 && w.OutstandingSmem() == 0) return absl::OkStatus();
  for (const RegAccess& a : tables.CheckOrder(inst)) {
    if (a.special == SpecialReg::kScc) continue;  // no load writes SCC
    for (int r = a.lo; r < a.lo + a.count; ++r)
      if (w.OwnerOf(a.cls, r) != 0) return CheckPendingLoads(w, tables.program(), inst);  // the report
  }
  return absl::OkStatus();
}

absl::Status HazardWindow::Check(const StrictTables& tables, int inst) const {
  const int window = MaxHazardWindow();
  for (auto it = recent_.rbegin(); it != recent_.rend(); ++it) {
    const int64_t between = ws_ - it->ws_after;
    if (between >= window) break;
    if (tables.Required(it->inst, inst) > between)
      return Check(tables.target(), tables.program(), inst);  // the report
  }
  return absl::OkStatus();
}

void HazardWindow::Issued(const StrictTables& tables, int inst) {
  ws_ += tables.IssuedWaitStates(inst);
  if (tables.CanStartHazard(inst)) recent_.push_back({inst, ws_});
  const int window = MaxHazardWindow();
  while (!recent_.empty() && ws_ - recent_.front().ws_after >= window) recent_.pop_front();
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
  bytes_ = lds_bytes;
  ops_.clear();
  last_write_.assign(lds_bytes, -1);
  last_read_.assign(lds_bytes * static_cast<size_t>(waves), -1);
}

int LdsRaceTracker::NewOp(int wave, int inst, int gen, bool write, bool async) {
  ops_.push_back(Op{wave, inst, gen, INT_MAX, write, async});
  return static_cast<int>(ops_.size()) - 1;
}

void LdsRaceTracker::Completed(int op, int gen) {
  if (op >= 0 && op < static_cast<int>(ops_.size()) && ops_[op].done_gen == INT_MAX) ops_[op].done_gen = gen;
}

absl::Status LdsRaceTracker::Race(const Program& p, const Op& now, const Op& before, uint32_t byte,
                                  int gen) const {
  std::string why;
  if (before.async && before.done_gen == INT_MAX) {
    why = "before an s_waitcnt vmcnt covered that LDS DMA (its LDS write completes with vmcnt, not lgkmcnt)";
  } else if (before.issue_gen >= gen) {
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
  // The same wave's earlier op is ordered before this one, unless it is an
  // LDS DMA no s_waitcnt vmcnt has covered yet (it writes LDS asynchronously).
  auto ordered = [&](const Op& before) {
    return (before.wave == now.wave && (!before.async || before.done_gen != INT_MAX)) || before.done_gen < gen;
  };
  // Byte by byte, in address order: a race with the byte's last write, then
  // (a write) with each wave's last read of it. The checks of a byte do not
  // depend on what this access records for the bytes before it, so all
  // bytes are checked first and recorded after; consecutive bytes with the
  // same op are checked once.
  const int32_t* writes = &last_write_[addr];
  int32_t seen = -1;
  int32_t seen_read[64];  // a write: per wave, the last read op found ordered
  if (now.write) std::fill(seen_read, seen_read + std::min(waves_, 64), -1);
  uint32_t unwritten = n;  // check 4: the first byte no op has written
  for (uint32_t b = 0; b < n; ++b) {
    const int32_t wop = writes[b];
    if (wop < 0) {
      unwritten = std::min(unwritten, b);
    } else if (wop != seen) {
      if (!ordered(ops_[wop])) return Race(p, now, ops_[wop], addr + b, gen);
      seen = wop;
    }
    if (now.write)
      for (int w = 0; w < waves_; ++w) {
        const int32_t r = last_read_[static_cast<size_t>(w) * bytes_ + addr + b];
        if (r < 0 || (w < 64 && r == seen_read[w])) continue;
        if (!ordered(ops_[r])) return Race(p, now, ops_[r], addr + b, gen);
        if (w < 64) seen_read[w] = r;
      }
  }
  if (now.write) {
    std::fill(last_write_.begin() + addr, last_write_.begin() + addr + n, id);
    return absl::OkStatus();
  }
  int32_t* reads = &last_read_[static_cast<size_t>(now.wave) * bytes_ + addr];
  std::fill(reads, reads + n, id);
  if (unwritten < n) {
    const uint32_t b = addr + unwritten;
    return absl::FailedPreconditionError(absl::StrCat(
        p.Describe(now.inst), ": lane ", lane, " reads LDS bytes [0x", absl::Hex(addr), ", 0x",
        absl::Hex(addr + n), "), but no lane of the workgroup has written LDS byte 0x", absl::Hex(b),
        " since the kernel started: LDS contents are undefined at launch (here 0xcd bytes); "
        "the kernel reads LDS it never stored"));
  }
  return absl::OkStatus();
}

absl::Status GlobalRaceTracker::Reset(const Program& p, const GlobalMemory& mem, const WorkgroupRange& box,
                                      int waves) {
  box_ = box;
  for (int d = 0; d < 3; ++d) extent_[d] = std::max<int64_t>(box.end[d] - box.begin[d], 0);
  waves_ = waves;
  wg_ = 0;
  ordinal_.assign(p.insts.size(), -1);
  inst_of_.clear();
  for (size_t i = 0; i < p.insts.size(); ++i) {
    const InstClass c = Info(p.insts[i].mi.opc).cls;
    if (IsVmem(c)) {
      ordinal_[i] = static_cast<int>(inst_of_.size());
      inst_of_.push_back(static_cast<int>(i));
    }
  }
  // Ids run from 1 to 2^31 - 1: 0 means none, the top bit is kSeveral.
  const uint64_t max_id = kSeveral - 1;
  const __int128 items = static_cast<__int128>(extent_[0]) * extent_[1] * extent_[2] * waves * 64;
  if (items > max_id)
    return absl::FailedPreconditionError(absl::StrCat(
        "the workgroups run have ", static_cast<int64_t>(items), " work-items (", extent_[0] * extent_[1] * extent_[2],
        " workgroups x ", waves, " waves x 64 lanes), more than strict mode's global-memory race check numbers "
        "(2^31 - 1); run fewer workgroups at a time (`kirc run --workgroups=...`, Dispatch::workgroups: e.g. "
        "the first, the last, and a band where the kernel changes behaviour), or turn the strict checks off "
        "(EmuOptions::strict = false)"));
  const uint64_t v = std::max<uint64_t>(inst_of_.size(), 1);
  per_item_ = items * v <= max_id ? v : 1;
  bytes_.clear();
  bytes_.resize(mem.regions().size());
  for (size_t i = 0; i < mem.regions().size(); ++i) {
    const Region& r = mem.regions()[i];
    if (!r.argument || r.size == 0) continue;
    try {
      bytes_[i] = ZeroedArray<Byte>(r.size);
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "strict mode's global-memory race check cannot map ", r.size * sizeof(Byte), " bytes for ", r.name,
          " (8 per buffer byte, only touched pages resident); raise the address-space limit (ulimit -v) or run it "
          "with EmuOptions::strict = false"));
    }
  }
  return absl::OkStatus();
}

std::string GlobalRaceTracker::AccessText(const Program& p, uint32_t id, int inst) const {
  const uint64_t x = (id & ~kSeveral) - 1;
  const uint64_t item = x / per_item_;
  const int lane = static_cast<int>(item % 64);
  const int64_t wave = static_cast<int64_t>(item / 64) % waves_;
  const int64_t wg = static_cast<int64_t>(item / 64) / waves_;  // index in the box
  const std::string who =
      absl::StrCat("(lane ", lane, " of wave ", wave, " of workgroup (", box_.begin[0] + wg % extent_[0], ",",
                   box_.begin[1] + wg / extent_[0] % extent_[1], ",", box_.begin[2] + wg / (extent_[0] * extent_[1]),
                   "))");
  if (inst < 0 && (per_item_ > 1 || inst_of_.size() == 1)) inst = inst_of_[x % per_item_];
  if (inst >= 0) return absl::StrCat(p.Describe(inst), " ", who);
  return absl::StrCat("an instruction (not recorded: ", inst_of_.size(),
                      " memory instructions times the dispatch's work-items exceed 2^31 ids) ", who);
}

absl::Status GlobalRaceTracker::Race(const Program& p, const GlobalMemory& mem, uint64_t addr, int inst,
                                     uint32_t now, bool now_write, bool now_atomic,
                                     const PriorAccess<uint32_t>& before) const {
  const bool before_write = before.stored;
  const char* why =
      now_atomic || before.atomic
          ? "an atomic and a plain store to one byte by two work-items: nothing orders them within a dispatch, "
            "so the result depends on timing (atomics are atomic with each other only)"
      : !now_write   ? "a load of another work-item's store: nothing orders them within a dispatch (no global fence "
                       "or atomic), so the value loaded depends on timing"
      : before_write ? "two work-items store to the same byte; the result depends on timing"
                     : "a store to a byte another work-item loads: nothing orders them within a dispatch, so the "
                       "value that load sees depends on timing";
  const char* now_verb = now_atomic ? " atomically accesses " : now_write ? " stores to " : " loads ";
  const char* before_verb = before.atomic ? (now_atomic ? " accessed atomically (its work-item also stored to it)"
                                                        : " accessed atomically")
                            : before_write ? " stored"
                                           : " loaded";
  return absl::FailedPreconditionError(absl::StrCat(
      "global memory race: ", AccessText(p, now, inst), now_verb, "byte ", mem.Describe(addr, 1), ", which ",
      AccessText(p, before.id, -1), before_verb, " earlier in this dispatch: ", why));
}

absl::Status GlobalRaceTracker::Access(const Program& p, const GlobalMemory& mem, const Region& r, uint64_t addr,
                                       uint32_t n, int inst, int wave, int lane, bool write, bool atomic) {
  Byte* const bytes = bytes_[static_cast<size_t>(&r - mem.regions().data())].data();
  if (bytes == nullptr) return absl::OkStatus();
  const uint64_t item = (static_cast<uint64_t>(wg_) * waves_ + wave) * 64 + lane;
  const uint32_t lo = static_cast<uint32_t>(item * per_item_ + 1);  // this work-item's first id
  const uint32_t now = lo + (per_item_ > 1 ? ordinal_[inst] : 0);
  // Whether `id` is this work-item's (ids below lo wrap above 2^31).
  auto mine = [&](uint32_t id) { return static_cast<uint32_t>(id - lo) < per_item_; };
  Byte* b = bytes + (addr - r.base);
  // RecordAccess is a function of the byte's record (and of now, write and
  // mine): a byte whose record equals the previous byte's before it gets
  // the same outcome (no race: the previous byte had none) and record.
  Byte before{}, after{};
  for (uint32_t i = 0; i < n; ++i, ++b) {
    if (i > 0 && b->store == before.store && b->load == before.load) {
      *b = after;
      continue;
    }
    before = *b;
    if (std::optional<PriorAccess<uint32_t>> prior =
            atomic ? RecordAtomicAccess(*b, now, mine) : RecordAccess(*b, now, write, mine))
      return Race(p, mem, addr + i, inst, now, write, atomic, *prior);
    after = *b;
  }
  return absl::OkStatus();
}

int64_t GlobalRaceTracker::BytesPerBufferByte() { return static_cast<int64_t>(sizeof(Byte)); }

}  // namespace kir::emu
