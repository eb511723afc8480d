#include "verify/oracle.h"

#include <map>

#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"
#include "verify/concrete.h"

namespace kir::vfy::testing {
namespace {

constexpr int kLanes = 64;
constexpr uint64_t kOff = ~uint64_t{0} - 15;      // lane off in EXEC
constexpr uint64_t kDropped = ~uint64_t{0} - 14;  // out of the SRD's range
constexpr uint64_t kBadSrd = ~uint64_t{0} - 13;   // SRD grants more than the argument's buffer


}  // namespace

Effects RunConcrete(const Kernel& k, const TargetInfo& t, const LoweredKernel& lk, int setting,
                    int64_t max_steps_per_wave) {
  Effects e;
  ConcreteRunner runner(k, t, lk, setting);
  std::map<int, const AccessRecord*> record;
  for (const AccessRecord& r : lk.access_map) record[r.inst_id] = &r;
  const std::vector<MInst>& insts = lk.mir.insts;
  auto on_mem = [&](const MemRecord& r) {
    const MInst& mi = insts[r.index];
    const MemShape sh = MemoryShape(mi.opc);
    std::vector<uint64_t>* log = &e.log;
    log->push_back((uint64_t{1} << 62) | (static_cast<uint64_t>(mi.id & 0xffffff) << 8));
    if (Info(mi.opc).flags & kGlobalAddr) {
      // global_*: the 64-bit address of each component (no SRD, no range check).
      const bool saddr = FindOperand(mi, OpName::kSaddr) != nullptr;
      for (int l = 0; l < kLanes; ++l) {
        if (!(r.exec >> l & 1)) {
          log->push_back(kOff);
          continue;
        }
        const uint64_t base = saddr ? r.saddr : r.vaddr[l] | (uint64_t{r.vaddr_hi[l]} << 32);
        for (int c = 0; c < sh.comps; ++c)
          log->push_back(GlobalAddress<uint64_t>(base, saddr ? r.vaddr[l] : 0,
                                                 static_cast<uint64_t>(mi.offset + int64_t{c} * sh.bytes)));
      }
    } else if (!sh.lds) {
      const uint32_t* wd = r.srd;
      uint64_t base = wd[0] | (static_cast<uint64_t>(wd[1] & 0xffff) << 32);
      // Does the SRD grant only the argument's buffer (raw, data format set)?
      bool ok = ((wd[1] >> 16) & 0x3fff) == 0 && (wd[1] >> 30) == 0 && ((wd[3] >> 15) & 0xf) != 0 &&
                ((wd[3] >> 23) & 1) == 0;
      auto rec = record.find(mi.id);
      if (rec != record.end()) {
        const Arg* a = k.FindArg(rec->second->mem);
        // Its window [base, base + num_records) inside the buffer, or empty.
        const uint64_t ptr = runner.Pointer(rec->second->mem);
        ok = ok && a != nullptr &&
             (wd[2] == 0 || (base >= ptr && base + wd[2] <= ptr + static_cast<uint64_t>(a->SizeBytes())));
      } else {
        ok = false;
      }
      log->push_back(ok ? 0 : kBadSrd);
      for (int l = 0; l < kLanes; ++l) {
        if (!(r.exec >> l & 1)) {
          log->push_back(kOff);
          continue;
        }
        uint64_t vo = mi.offen ? r.vaddr[l] : 0;
        for (int c = 0; c < sh.comps; ++c) {
          int64_t off = static_cast<int64_t>(vo) + mi.offset + int64_t{c} * sh.bytes;
          if (!RawBufferInRange<int64_t>(wd[2], r.soffset, off, sh.bytes)) {
            log->push_back(kDropped);
            continue;
          }
          log->push_back(base + r.soffset + static_cast<uint64_t>(off));
        }
      }
    } else {
      for (int c = 0; c < sh.addrs; ++c)  // each address of a DS read2/write2
        for (int l = 0; l < kLanes; ++l)
          log->push_back((r.exec >> l & 1) ? uint64_t{DsAddress(U32Domain{}, r.vaddr[l], mi, c)}
                                           : kOff);
    }
  };
  for (int64_t z = 0; z < k.grid[2]; ++z)
    for (int64_t y = 0; y < k.grid[1]; ++y)
      for (int64_t x = 0; x < k.grid[0]; ++x)
        for (int w = 0; w < runner.Waves(); ++w) {
          int64_t steps = 0;
          absl::Status st = runner.RunWave({x, y, z}, w, on_mem, max_steps_per_wave, &steps);
          e.steps += steps;
          if (!st.ok()) {
            e.error = std::string(st.message());
            return e;
          }
        }
  return e;
}

}  // namespace kir::vfy::testing
