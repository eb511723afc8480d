#include "compiler/bench/loop_analysis.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/llvm_in_process.h"
#include "compiler/object/toolchain.h"
#include "compiler/passes/resources.h"
#include "compiler/target/target.h"
#include "hw/emu/code_object.h"

namespace kir {
namespace {

// M, N, K of an MFMA mnemonic: kirc's table (any target's spelling), else
// the digits of "MxNxK" after the result type. False if neither gives them.
bool MfmaShape(const std::string& mnemonic, int* m, int* n, int* k) {
  for (const MfmaDesc& d : AllMfmas())
    for (const char* name : d.mnemonic)
      if (name != nullptr && mnemonic == name) {
        *m = d.m;
        *n = d.n;
        *k = d.k;
        return true;
      }
  // v_mfma_f32_32x32x8_f16, v_mfma_f32_32x32x8f16, v_mfma_f32_16x16x32_fp8_fp8, ...
  std::vector<std::string> parts = absl::StrSplit(mnemonic, '_');
  for (const std::string& p : parts) {
    std::vector<std::string> dims = absl::StrSplit(p, 'x');
    if (dims.size() != 3) continue;
    std::string kd;
    for (char c : dims[2]) {
      if (!std::isdigit(static_cast<unsigned char>(c))) break;
      kd += c;
    }
    if (absl::SimpleAtoi(dims[0], m) && absl::SimpleAtoi(dims[1], n) && absl::SimpleAtoi(kd, k)) return true;
  }
  return false;
}

// Independent blocks of an MFMA whose shape is M x N (the "_2b", "_4b",
// "_16b" forms, and gfx908's unsuffixed spellings of them such as
// v_mfma_f32_32x32x4f16): the wave's results, vdst's registers (two per f64
// element) times 64 lanes, over M x N. 1 when vdst cannot be read.
int MfmaBlocks(const DisassembledInstruction& d, int m, int n) {
  // vdst: "v[0:15]", "a[16:31]" or a single "v4" / "a4".
  absl::string_view ops = d.operands;
  ops = ops.substr(0, ops.find(','));
  int regs = 1;
  size_t open = ops.find('['), colon = ops.find(':'), close = ops.find(']');
  int lo = 0, hi = 0;
  if (open != absl::string_view::npos && colon != absl::string_view::npos && close != absl::string_view::npos &&
      absl::SimpleAtoi(ops.substr(open + 1, colon - open - 1), &lo) &&
      absl::SimpleAtoi(ops.substr(colon + 1, close - colon - 1), &hi) && hi >= lo)
    regs = hi - lo + 1;
  const int per_element = absl::StartsWith(d.mnemonic, "v_mfma_f64") ? 2 : 1;
  const int results = regs / per_element * 64;
  return m * n > 0 && results > m * n && results % (m * n) == 0 ? results / (m * n) : 1;
}

// Bytes one lane reads from LDS with `mnemonic` (0: not an LDS read).
int LdsReadBytesPerLane(const std::string& m) {
  if (!absl::StartsWith(m, "ds_read")) return 0;
  const bool two = absl::StartsWith(m, "ds_read2");
  int bytes = 0;
  if (absl::StrContains(m, "b128")) bytes = 16;
  else if (absl::StrContains(m, "b96")) bytes = 12;
  else if (absl::StrContains(m, "b64")) bytes = 8;
  else if (absl::StrContains(m, "b32")) bytes = 4;
  else if (absl::StrContains(m, "u16") || absl::StrContains(m, "i16") || absl::StrContains(m, "b16")) bytes = 2;
  else if (absl::StrContains(m, "u8") || absl::StrContains(m, "i8") || absl::StrContains(m, "b8")) bytes = 1;
  return two ? 2 * bytes : bytes;
}

// Bytes one lane writes to LDS with `mnemonic` (0: not an LDS write).
int LdsWriteBytesPerLane(const std::string& m) {
  if (!absl::StartsWith(m, "ds_write")) return 0;
  return LdsReadBytesPerLane(absl::StrCat("ds_read", m.substr(8)));
}

// Bytes one lane moves with a global load or store (buffer_, global_, flat_;
// atomics and formatted accesses 0). `load` selects loads or stores.
int GlobalBytesPerLane(const std::string& m, bool load) {
  if (!(absl::StartsWith(m, "buffer_") || absl::StartsWith(m, "global_") || absl::StartsWith(m, "flat_")))
    return 0;
  if (!absl::StrContains(m, load ? "_load_" : "_store_") || absl::StrContains(m, "format")) return 0;
  if (absl::StrContains(m, "dwordx4")) return 16;
  if (absl::StrContains(m, "dwordx3")) return 12;
  if (absl::StrContains(m, "dwordx2")) return 8;
  if (absl::StrContains(m, "dword")) return 4;
  if (absl::StrContains(m, "short")) return 2;
  if (absl::StrContains(m, "byte")) return 1;
  return 0;
}

// 4 x passes of `mnemonic` on `processor`: the entry of kirc's MFMA table
// spelled so on the processor, else on another target (gfx942 renamed
// v_mfma_f32_16x16x16f16 to v_mfma_f32_16x16x16_f16) when the processor has
// that instruction; 0 if neither.
int MfmaCycles(const std::string& mnemonic, absl::string_view processor) {
  absl::StatusOr<const TargetInfo*> t = LookupTarget(processor);
  if (!t.ok()) return 0;
  const int own = static_cast<int>((*t)->gfx);
  for (int pass = 0; pass < 2; ++pass)
    for (const MfmaDesc& d : AllMfmas())
      for (int g = 0; g < kNumGfx; ++g)
        if ((pass == 0) == (g == own) && d.mnemonic[g] != nullptr && mnemonic == d.mnemonic[g] &&
            MfmaPasses(**t, d) > 0)
          return 4 * MfmaPasses(**t, d);
  return 0;
}

// HBM bytes per clock per CU of the processor's largest part (header comment).
struct HbmFigure {
  const char* processor;
  double bytes_per_second, cus, clock_hz;
  const char* source;
};
constexpr HbmFigure kHbm[] = {
    {"gfx908", 1.2288e12, 120, 1.502e9, "MI100: 1.2288 TB/s, 120 CUs, 1502 MHz"},
    {"gfx90a", 3.2768e12, 220, 1.700e9, "MI250X: 3.2768 TB/s, 220 CUs, 1700 MHz"},
    {"gfx942", 5.3e12, 304, 2.100e9, "MI300X: 5.3 TB/s, 304 CUs, 2100 MHz"},
    {"gfx950", 8.0e12, 256, 2.400e9, "MI355X: 8 TB/s, 256 CUs, 2400 MHz"},
};

// The in-order issue model of one wave alone on its SIMD (loop_analysis.h):
// cycles per trip in the steady state, and the cycles its MFMAs occupy.
struct TripModel {
  double cycles = 0, mfma_cycles = 0;
};

int CounterOf(const std::string& operands, const char* name) {
  size_t p = operands.find(name);
  int v = -1;
  if (p == std::string::npos) return -1;
  p += std::string(name).size();
  size_t e = operands.find(')', p);
  if (e == std::string::npos || !absl::SimpleAtoi(operands.substr(p, e - p), &v)) return -1;
  return v;
}

TripModel ModelTrips(const std::vector<DisassembledInstruction>& code, int first, int last,
                     absl::string_view processor) {
  // 12 trips from an idle state; the mean of the last 4 (an even number, so
  // trips alternating between two timings are measured at their mean).
  constexpr int kTrips = 12, kMeasured = 4;
  constexpr double kIssue = 4, kVmemLatency = 500, kDsLatency = 64, kSmemLatency = 200;
  std::vector<double> vmem, lgkm;  // completion times of outstanding operations, in issue order
  double t = 0, mfma_free = 0, ds_free = 0, trip_start = 0;
  // LDS bytes per clock per CU: 4 x the target's bank count (128 with 32 banks).
  absl::StatusOr<const TargetInfo*> target = LookupTarget(processor);
  const double lds_bytes_per_clock = 4.0 * (target.ok() ? (*target)->lds_banks : 32);
  TripModel m;
  auto drain = [&](std::vector<double>& q, int keep) {
    // Wait until at most `keep` remain: the oldest complete first.
    while (static_cast<int>(q.size()) > keep) {
      t = std::max(t, q.front());
      q.erase(q.begin());
    }
  };
  for (int trip = 0; trip < kTrips; ++trip) {
    if (trip == kTrips - kMeasured) trip_start = t;
    double mfma = 0;
    for (int i = first; i <= last; ++i) {
      const DisassembledInstruction& d = code[i];
      if (d.cls == "waitcnt") {
        const int vm = CounterOf(d.operands, "vmcnt("), lg = CounterOf(d.operands, "lgkmcnt(");
        if (vm >= 0) drain(vmem, vm);
        if (lg >= 0) drain(lgkm, lg);
        continue;
      }
      // Completed operations leave the counters (they stay in order).
      while (!vmem.empty() && vmem.front() <= t) vmem.erase(vmem.begin());
      while (!lgkm.empty() && lgkm.front() <= t) lgkm.erase(lgkm.begin());
      if (d.cls == "mfma") {
        const int c = MfmaCycles(d.mnemonic, processor);
        t = std::max(t, mfma_free);
        mfma_free = t + c;
        mfma += c;
      } else if (d.cls == "vmem") {
        vmem.push_back(std::max(t + kVmemLatency, vmem.empty() ? 0 : vmem.back()));
      } else if (d.cls == "ds") {
        // LDS in order; lds_bytes_per_clock per CU shared by 4 waves.
        const int bytes = 64 * (LdsReadBytesPerLane(d.mnemonic) + LdsWriteBytesPerLane(d.mnemonic));
        ds_free = std::max(ds_free, t) + 4.0 * bytes / lds_bytes_per_clock;
        lgkm.push_back(std::max({t + kDsLatency, ds_free, lgkm.empty() ? 0 : lgkm.back()}));
      } else if (d.cls == "smem") {
        lgkm.push_back(std::max(t + kSmemLatency, lgkm.empty() ? 0 : lgkm.back()));
      }
      t += kIssue;
    }
    if (trip >= kTrips - kMeasured) m.mfma_cycles += mfma / kMeasured;
  }
  m.cycles = (t - trip_start) / kMeasured;
  return m;
}

}  // namespace

std::string MnemonicClass(const std::string& m) {
  if (absl::StartsWith(m, "s_waitcnt")) return "waitcnt";
  if (m == "s_nop") return "nop";
  if (m == "s_barrier") return "barrier";
  if (m == "s_branch" || absl::StartsWith(m, "s_cbranch") || absl::StartsWith(m, "s_setpc") ||
      absl::StartsWith(m, "s_swappc"))
    return "branch";
  if (m == "s_endpgm") return "other";
  if (absl::StartsWith(m, "s_load") || absl::StartsWith(m, "s_buffer_load") ||
      absl::StartsWith(m, "s_store") || absl::StartsWith(m, "s_buffer_store") ||
      absl::StartsWith(m, "s_dcache") || absl::StartsWith(m, "s_memtime") ||
      absl::StartsWith(m, "s_memrealtime"))
    return "smem";
  if (absl::StartsWith(m, "s_")) return "salu";
  if (absl::StartsWith(m, "v_mfma") || absl::StartsWith(m, "v_smfmac")) return "mfma";
  if (absl::StartsWith(m, "v_")) return "valu";
  if (absl::StartsWith(m, "buffer_") || absl::StartsWith(m, "global_") ||
      absl::StartsWith(m, "flat_") || absl::StartsWith(m, "scratch_"))
    return "vmem";
  if (absl::StartsWith(m, "ds_")) return "ds";
  return "other";
}

std::vector<DisassembledInstruction> ParseObjdumpInstructions(absl::string_view text) {
  std::vector<DisassembledInstruction> out;
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    if (l.empty() || l[0] != '\t') continue;
    size_t c = l.find("//");
    if (c == absl::string_view::npos) continue;
    absl::string_view ins = absl::StripAsciiWhitespace(l.substr(0, c));
    absl::string_view com = absl::StripAsciiWhitespace(l.substr(c + 2));
    size_t colon = com.find(':');
    uint64_t addr = 0;
    if (colon == absl::string_view::npos || !absl::SimpleHexAtoi(com.substr(0, colon), &addr)) continue;
    size_t sp = ins.find(' ');
    DisassembledInstruction d;
    d.addr = addr;
    d.mnemonic = std::string(ins.substr(0, sp));
    d.operands = sp == absl::string_view::npos ? "" : std::string(absl::StripAsciiWhitespace(ins.substr(sp)));
    d.cls = MnemonicClass(d.mnemonic);
    out.push_back(std::move(d));
  }
  return out;
}

MainLoop LocateMainLoop(const std::vector<DisassembledInstruction>& code) {
  // Every backward branch's loop. SOPP branch: simm16 in dwords relative to
  // the next instruction.
  struct Loop {
    int first, last, mfma;
  };
  std::vector<Loop> loops;  // in branch order
  for (int i = 0; i < static_cast<int>(code.size()); ++i) {
    if (code[i].cls != "branch") continue;
    std::string op = code[i].operands.substr(0, code[i].operands.find(' '));
    int v = 0;
    if (!absl::SimpleAtoi(op, &v)) continue;
    const int64_t target = static_cast<int64_t>(code[i].addr) + 4 + 4 * static_cast<int16_t>(v);
    if (target > static_cast<int64_t>(code[i].addr)) continue;
    int first = i;
    while (first > 0 && static_cast<int64_t>(code[first - 1].addr) >= target) --first;
    int mfma = 0;
    for (int j = first; j <= i; ++j) mfma += code[j].cls == "mfma";
    loops.push_back({first, i, mfma});
  }
  MainLoop out;
  if (loops.empty()) return out;
  // b lies inside a (distinct branches: distinct last indices).
  auto inside = [](const Loop& b, const Loop& a) { return a.first <= b.first && b.last < a.last; };
  auto innermost = [&](const Loop& a) {
    for (const Loop& b : loops)
      if (inside(b, a)) return false;
    return true;
  };
  // The loop with the most MFMAs among those `eligible`; ties: the shorter
  // body, then the later loop.
  auto most_mfmas = [&](auto eligible) {
    const Loop* m = nullptr;
    for (const Loop& l : loops)
      if (l.mfma > 0 && eligible(l) &&
          (m == nullptr || l.mfma > m->mfma || (l.mfma == m->mfma && l.last - l.first <= m->last - m->first)))
        m = &l;
    return m;
  };
  // 1. The innermost loop with the most MFMAs.
  const Loop* best = most_mfmas(innermost);
  // 2. Else any loop with the most MFMAs.
  if (best == nullptr) best = most_mfmas([](const Loop&) { return true; });
  // 3. Else the innermost loop whose branch comes last.
  if (best == nullptr)
    for (const Loop& l : loops)
      if (innermost(l)) best = &l;
  out.first = best->first;
  out.last = best->last;
  for (const Loop& b : loops)
    if (inside(b, *best)) out.inner.push_back({b.first, b.last});
  std::sort(out.inner.begin(), out.inner.end());
  return out;
}

std::pair<int, int> FindMainLoop(const std::vector<DisassembledInstruction>& code) {
  const MainLoop m = LocateMainLoop(code);
  return {m.first, m.last};
}

LoopAnalysis AnalyzeDisassembly(absl::string_view objdump_text, absl::string_view kernel,
                                absl::string_view processor) {
  LoopAnalysis a;
  a.kernel = std::string(kernel);
  const std::vector<DisassembledInstruction> code = ParseObjdumpInstructions(objdump_text);
  a.total_instructions = static_cast<int>(code.size());
  const MainLoop loop = LocateMainLoop(code);
  const int first = loop.first, last = loop.last;
  if (first < 0) return a;
  a.has_loop = true;
  a.loop_first_addr = code[first].addr;
  a.loop_last_addr = code[last].addr;
  for (const auto& [f, l] : loop.inner) a.inner_loops.push_back({code[f].addr, code[l].addr});
  for (int i = first; i <= last; ++i) {
    const DisassembledInstruction& d = code[i];
    ++a.loop_by_class[d.cls];
    ++a.loop_instructions;
    if (d.cls == "mfma") {
      ++a.loop_mfma;
      int m = 0, n = 0, k = 0;
      if (MfmaShape(d.mnemonic, &m, &n, &k))
        a.loop_flop += 2.0 * m * n * k * MfmaBlocks(d, m, n);
      else if (std::find(a.unknown_mfmas.begin(), a.unknown_mfmas.end(), d.mnemonic) == a.unknown_mfmas.end())
        a.unknown_mfmas.push_back(d.mnemonic);
      if (!processor.empty()) {
        const int cycles = MfmaCycles(d.mnemonic, processor);
        a.loop_mfma_cycles += cycles;
        if (cycles == 0 && std::find(a.unknown_mfma_cycles.begin(), a.unknown_mfma_cycles.end(), d.mnemonic) ==
                               a.unknown_mfma_cycles.end())
          a.unknown_mfma_cycles.push_back(d.mnemonic);
      }
    }
    a.loop_valu += d.cls == "valu";
    a.loop_lds_read_bytes += 64 * LdsReadBytesPerLane(d.mnemonic);
    a.loop_lds_write_bytes += 64 * LdsWriteBytesPerLane(d.mnemonic);
    a.loop_global_load_bytes += 64 * GlobalBytesPerLane(d.mnemonic, /*load=*/true);
    a.loop_global_store_bytes += 64 * GlobalBytesPerLane(d.mnemonic, /*load=*/false);
    if (d.cls == "waitcnt") {
      const int v = CounterOf(d.operands, "vmcnt(");
      if (v >= 0 && (a.smallest_vmcnt < 0 || v < a.smallest_vmcnt)) a.smallest_vmcnt = v;
    }
  }
  if (a.loop_flop > 0) a.other_per_16kflop = (a.loop_instructions - a.loop_mfma) / (a.loop_flop / 16384.0);
  if (a.loop_lds_read_bytes > 0) a.flop_per_lds_byte = a.loop_flop / static_cast<double>(a.loop_lds_read_bytes);
  if (a.loop_flop > 0) a.global_bytes_per_flop = static_cast<double>(a.loop_global_load_bytes) / a.loop_flop;
  if (!processor.empty() && a.loop_mfma > 0 && !a.inner_loops.empty()) {
    // The model runs the body straight through: an inner loop's back edge
    // would be taken as never taken.
    a.model_note = absl::StrFormat(
        "not run: the body contains the loop at 0x%x..0x%x, whose trips the model cannot know",
        a.inner_loops[0].first, a.inner_loops[0].second);
  } else if (!processor.empty() && a.loop_mfma > 0) {
    const TripModel m = ModelTrips(code, first, last, processor);
    a.model_trip_cycles = m.cycles;
    a.model_mfma_busy = m.cycles > 0 ? m.mfma_cycles / m.cycles : 0;
  }
  return a;
}

absl::StatusOr<ThroughputBound> ComputeThroughputBound(const LoopAnalysis& a, absl::string_view processor) {
  absl::StatusOr<const TargetInfo*> t = LookupTarget(processor);
  if (!t.ok()) return t.status();
  if (!a.has_loop || a.loop_mfma == 0)
    return absl::InvalidArgumentError(
        absl::StrCat("kernel ", a.kernel, ": its main loop has no MFMA; the throughput bound is for MFMA loops"));
  ThroughputBound b;
  b.waves_per_simd = a.waves_per_simd > 0 ? a.waves_per_simd : 1;
  const double w = b.waves_per_simd;
  b.mfma_cycles = w * static_cast<double>(a.loop_mfma_cycles);
  b.valu_cycles = w * 4.0 * a.loop_valu;
  b.issue_cycles = std::max(4.0 * a.loop_instructions, w * 4.0 * a.loop_instructions / 5.0);
  b.lds_bytes_per_clock_per_cu = 4.0 * (*t)->lds_banks;
  b.lds_cycles = 4.0 * w * static_cast<double>(a.loop_lds_read_bytes + a.loop_lds_write_bytes) /
                 b.lds_bytes_per_clock_per_cu;
  b.bound_cycles = b.mfma_cycles;
  b.limit = "MFMA";
  for (const auto& [c, name] : {std::pair<double, const char*>{b.valu_cycles, "VALU"},
                                {b.issue_cycles, "issue"}, {b.lds_cycles, "LDS"}})
    if (c > b.bound_cycles) {
      b.bound_cycles = c;
      b.limit = name;
    }
  b.complete = a.unknown_mfma_cycles.empty() && a.unknown_mfmas.empty();
  if (b.bound_cycles > 0) {
    b.mfma_utilisation = b.mfma_cycles / b.bound_cycles;
    b.flop_per_clock_per_cu = 4.0 * w * a.loop_flop / b.bound_cycles;
    b.global_bytes_per_clock_per_cu =
        4.0 * w * static_cast<double>(a.loop_global_load_bytes + a.loop_global_store_bytes) / b.bound_cycles;
  }
  for (const HbmFigure& h : kHbm)
    if (processor == h.processor) {
      b.hbm_bytes_per_clock_per_cu = h.bytes_per_second / (h.cus * h.clock_hz);
      b.hbm_source = h.source;
    }
  return b;
}

absl::Status CheckAmdgpuObject(absl::string_view elf_bytes, absl::string_view processor) {
  absl::StatusOr<const TargetInfo*> target = LookupTarget(processor);
  if (!target.ok())
    return absl::InvalidArgumentError(absl::StrCat("unknown processor '", processor, "': give gfx908, gfx90a, gfx942 or gfx950"));
  // ELF64 header: e_machine (offset 18) EM_AMDGPU = 224, e_flags (offset 48)
  // low byte EF_AMDGPU_MACH (LLVM AMDGPUUsage "ELF Header").
  auto u16 = [&](size_t at) { return static_cast<uint8_t>(elf_bytes[at]) | static_cast<uint8_t>(elf_bytes[at + 1]) << 8; };
  if (!absl::StartsWith(elf_bytes, "\x7f" "ELF"))
    return absl::InvalidArgumentError("not an AMDGPU ELF64 object: no ELF magic");
  if (elf_bytes.size() < 64 || elf_bytes[4] != 2)
    return absl::InvalidArgumentError("not an AMDGPU ELF64 object: not ELF64 (or truncated header)");
  if (u16(18) != 224)
    return absl::InvalidArgumentError(
        absl::StrCat("not an AMDGPU ELF64 object: e_machine ", u16(18), ", not EM_AMDGPU (224)"));
  const uint32_t mach = static_cast<uint8_t>(elf_bytes[48]);
  if (mach != (*target)->elf_mach) {
    std::string made_for = absl::StrFormat("EF_AMDGPU_MACH 0x%03x", mach);
    for (const TargetInfo* o : AllTargets())
      if (o->elf_mach == mach) made_for = o->name;
    return absl::InvalidArgumentError(absl::StrCat("the object is for ", made_for, ", not ", processor,
                                                   ": give --mcpu=", made_for));
  }
  return absl::OkStatus();
}

absl::StatusOr<LoopAnalysis> AnalyzeKernelObject(absl::string_view elf_bytes, absl::string_view processor,
                                                 absl::string_view kernel) {
  absl::StatusOr<const TargetInfo*> target = LookupTarget(processor);
  if (!target.ok())
    return absl::InvalidArgumentError(absl::StrCat("unknown processor '", processor, "': give gfx908, gfx90a, gfx942 or gfx950"));
  if (absl::Status ok = CheckAmdgpuObject(elf_bytes, processor); !ok.ok()) return ok;
  absl::StatusOr<std::string> text = DisassembleSymbolInProcess(elf_bytes, kernel, processor);
  if (!text.ok()) return text.status();
  LoopAnalysis a = AnalyzeDisassembly(*text, kernel, processor);
  absl::StatusOr<std::string> notes_text = ReadNotesInProcess(elf_bytes);
  if (notes_text.ok()) {
    absl::StatusOr<std::vector<KernelNotes>> notes = ParseKernelNotes(*notes_text);
    if (notes.ok())
      for (const KernelNotes& n : *notes)
        if (n.name == kernel) {
          a.vgprs = n.vgpr_count;
          a.agprs = n.agpr_count;
          a.sgprs = n.sgpr_count;
          a.lds_bytes = n.group_segment_fixed_size;
          a.workgroup_threads = n.max_flat_workgroup_size;
        }
  }
  const TargetInfo* t = *target;
  uint64_t vaddr = 0;
  absl::StatusOr<std::string> kd = emu::ElfSymbolBytes(elf_bytes, absl::StrCat(kernel, ".kd"), 64, &vaddr);
  if (kd.ok() && kd->size() == 64) {
    auto word = [&](int at) {
      uint32_t v = 0;
      for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<uint8_t>((*kd)[at + i]);
      return v;
    };
    const uint32_t rsrc3 = word(44), rsrc1 = word(48);
    a.descriptor_vgprs = ((rsrc1 & 0x3f) + 1) * t->vgpr_granule;
    if (t->has_accum_offset) a.descriptor_accum_offset = ((rsrc3 & 0x3f) + 1) * 4;
  }
  if (a.vgprs >= 0) {
    const int64_t regs = std::max(a.vgprs, a.descriptor_vgprs);
    a.waves_per_simd = Occupancy(*t, static_cast<int>(regs), static_cast<int>(std::max<int64_t>(a.sgprs, 0)),
                                 a.lds_bytes, a.workgroup_threads);
  }
  return a;
}

std::string FormatLoopAnalysis(const LoopAnalysis& a, absl::string_view processor) {
  std::string s = absl::StrCat("kernel ", a.kernel, ": ", a.total_instructions, " instructions\n");
  if (a.vgprs >= 0)
    absl::StrAppend(&s, "registers: ", a.vgprs, " VGPRs (.vgpr_count), ",
                    a.agprs >= 0 ? absl::StrCat(a.agprs, " AGPRs") : std::string("no .agpr_count"), ", ", a.sgprs,
                    " SGPRs; LDS ", a.lds_bytes, " bytes; workgroup ", a.workgroup_threads,
                    " work-items (.max_flat_workgroup_size); occupancy ", a.waves_per_simd, " waves per SIMD\n");
  if (a.descriptor_vgprs >= 0)
    absl::StrAppend(&s, "descriptor: ", a.descriptor_vgprs, " VGPRs allocated",
                    a.descriptor_accum_offset >= 0
                        ? absl::StrCat(" (arch + acc), accum_offset ", a.descriptor_accum_offset)
                        : std::string(),
                    "\n");
  if (!a.has_loop) return s + "no loop (no backward branch)\n";
  absl::StrAppend(&s, absl::StrFormat("main loop 0x%x..0x%x: %d instructions per trip (", a.loop_first_addr,
                                      a.loop_last_addr, a.loop_instructions));
  bool firstc = true;
  for (const auto& [c, n] : a.loop_by_class) {
    absl::StrAppend(&s, firstc ? "" : ", ", c, " ", n);
    firstc = false;
  }
  absl::StrAppend(&s, ")\n");
  if (!a.inner_loops.empty()) {
    std::vector<std::string> inner;
    for (const auto& [f, l] : a.inner_loops) inner.push_back(absl::StrFormat("0x%x..0x%x", f, l));
    absl::StrAppend(&s, "warning: no innermost loop has an MFMA; this loop's body contains the loop",
                    inner.size() > 1 ? "s" : "", " at ", absl::StrJoin(inner, ", "),
                    ": the per-trip figures count one static pass of ", inner.size() > 1 ? "each" : "it",
                    ", not its trips\n");
  }
  absl::StrAppend(&s, absl::StrFormat("MFMAs per trip: %d (%.0f FLOP per wave)\n", a.loop_mfma, a.loop_flop));
  // Figures per FLOP: none without MFMA FLOP.
  const std::string no_flop = a.loop_mfma == 0 ? "n/a (no MFMA)" : "n/a (MFMA shapes unknown)";
  absl::StrAppend(&s, "other instructions per 16 KFLOP: ",
                  a.loop_flop > 0 ? absl::StrFormat("%.2f", a.other_per_16kflop) : no_flop, "\n");
  absl::StrAppend(&s, absl::StrFormat("LDS bytes read per trip per wave: %d; FLOP per LDS byte read: ",
                                      a.loop_lds_read_bytes),
                  a.loop_flop <= 0                 ? no_flop
                  : a.loop_lds_read_bytes == 0 ? std::string("n/a (no LDS read)")
                                                 : absl::StrFormat("%.1f", a.flop_per_lds_byte),
                  "\n");
  absl::StrAppend(&s, absl::StrFormat("LDS bytes written per trip per wave: %d\n", a.loop_lds_write_bytes));
  absl::StrAppend(&s, absl::StrFormat("global bytes loaded / stored per trip per wave: %d / %d; loaded per FLOP: ",
                                      a.loop_global_load_bytes, a.loop_global_store_bytes),
                  a.loop_flop > 0 ? absl::StrFormat("%.4f", a.global_bytes_per_flop) : no_flop, "\n");
  if (a.model_trip_cycles > 0)
    absl::StrAppend(&s, absl::StrFormat("in-order issue model, one wave alone: %.0f cycles per trip (mean of trips "
                                        "9-12 of 12), MFMA busy %.0f%%%s\n",
                                        a.model_trip_cycles, 100 * a.model_mfma_busy,
                                        a.unknown_mfma_cycles.empty() ? "" : " (MFMAs of unknown cycles counted as 0)"));
  else if (!a.model_note.empty())
    absl::StrAppend(&s, "in-order issue model: ", a.model_note, "\n");
  absl::StrAppend(&s, "smallest vmcnt waited for in the loop: ",
                  a.smallest_vmcnt < 0 ? std::string("none") : absl::StrCat(a.smallest_vmcnt), "\n");
  if (!a.unknown_mfmas.empty())
    absl::StrAppend(&s, "MFMAs of unknown shape (not counted in FLOP): ", absl::StrJoin(a.unknown_mfmas, ", "), "\n");
  if (processor.empty() || a.loop_mfma == 0) return s;
  absl::StatusOr<ThroughputBound> b = ComputeThroughputBound(a, processor);
  if (!b.ok()) return absl::StrCat(s, "throughput bound: ", b.status().message(), "\n");
  absl::StrAppend(
      &s, absl::StrFormat("throughput bound per CU, one trip of each of %d wave(s) per SIMD x 4 SIMDs%s:\n",
                          b->waves_per_simd, a.waves_per_simd > 0 ? "" : " (no notes: 1 assumed)"));
  absl::StrAppend(&s, absl::StrFormat("  MFMA %.0f cycles (%d cycles per wave: 4 x passes, SISchedule.td)\n",
                                      b->mfma_cycles, a.loop_mfma_cycles));
  absl::StrAppend(&s, absl::StrFormat("  VALU %.0f cycles (4 per wave64 VALU instruction, %d per wave)\n",
                                      b->valu_cycles, a.loop_valu));
  absl::StrAppend(&s, absl::StrFormat("  issue %.0f cycles (one instruction per wave per 4 cycles, 5 per SIMD)\n",
                                      b->issue_cycles));
  absl::StrAppend(&s, absl::StrFormat("  LDS %.0f cycles (%.0f bytes per clock per CU, reads and writes)\n",
                                      b->lds_cycles, b->lds_bytes_per_clock_per_cu));
  if (b->complete)
    absl::StrAppend(&s, absl::StrFormat("  bound %.0f cycles: %s limit; MFMA busy %.0f%%, %.0f FLOP per clock per CU\n",
                                        b->bound_cycles, b->limit, 100 * b->mfma_utilisation,
                                        b->flop_per_clock_per_cu));
  else
    absl::StrAppend(&s, "  incomplete (no bound): cycles or shape unknown for ",
                    absl::StrJoin(a.unknown_mfma_cycles.empty() ? a.unknown_mfmas : a.unknown_mfma_cycles, ", "),
                    "\n");
  absl::StrAppend(&s, absl::StrFormat("  global memory at the bound: %.2f bytes per clock per CU; HBM gives %.2f (%s)%s\n",
                                      b->global_bytes_per_clock_per_cu, b->hbm_bytes_per_clock_per_cu,
                                      b->hbm_source,
                                      b->global_bytes_per_clock_per_cu > b->hbm_bytes_per_clock_per_cu
                                          ? ": the rest must come from L2 or the MALL"
                                          : ""));
  return s;
}

absl::StatusOr<std::string> AnalyzeFile(absl::string_view path, absl::string_view bytes, absl::string_view mcpu,
                                        absl::string_view kernel) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
  };
  const std::string processor(mcpu.substr(0, mcpu.find(':')));
  if (HasOffloadBundleMagic(bytes)) {
    // Name the entry to extract: one for the processor if the bundle has it.
    absl::StatusOr<std::vector<std::string>> ids = ListBundleEntries(kDefaultLlvmBin, bytes);
    std::string entry = HipBundleEntryId(mcpu);
    if (ids.ok() && std::find(ids->begin(), ids->end(), entry) == ids->end())
      for (const std::string& id : *ids)
        if (id == HipBundleEntryId(processor) || absl::StartsWith(id, HipBundleEntryId(absl::StrCat(processor, ":")))) {
          entry = id;
          break;
        }
    return bad(absl::StrCat(
        "a clang offload bundle (__CLANG_OFFLOAD_BUNDLE__), not a code object",
        ids.ok() ? absl::StrCat(" (entries: ", absl::StrJoin(*ids, ", "), ")") : std::string(),
        ": extract the code object and analyse that: clang-offload-bundler -unbundle -type=o -targets=", entry,
        " -input=", path, " -output=FILE.hsaco"));
  }
  const bool elf = absl::StartsWith(bytes, "\x7f" "ELF");
  if (!elf && (absl::EndsWith(path, ".hsaco") || absl::EndsWith(path, ".o") || absl::EndsWith(path, ".co")))
    return bad("not an ELF object (a .s file is assembled first)");
  std::string object;
  if (elf) {
    object = std::string(bytes);
  } else {
    absl::StatusOr<std::string> obj = AssembleInProcess(bytes, mcpu);
    if (!obj.ok()) return bad(obj.status().message());
    object = std::move(*obj);
  }
  if (absl::Status ok = CheckAmdgpuObject(object, processor); !ok.ok()) return bad(ok.message());
  std::string name(kernel);
  if (name.empty()) {
    absl::StatusOr<std::string> notes_text = ReadNotesInProcess(object);
    absl::StatusOr<std::vector<KernelNotes>> notes =
        notes_text.ok() ? ParseKernelNotes(*notes_text) : absl::StatusOr<std::vector<KernelNotes>>(notes_text.status());
    if (!notes.ok() || notes->empty()) return bad("no kernel in the metadata notes: give --kernel=NAME");
    name = (*notes)[0].name;
  }
  absl::StatusOr<LoopAnalysis> a = AnalyzeKernelObject(object, processor, name);
  if (!a.ok()) return absl::Status(a.status().code(), absl::StrCat(path, ": ", a.status().message()));
  return FormatLoopAnalysis(*a, processor);
}

}  // namespace kir
