// kirc-rocjitsu-run: runs one kernel dispatch of an AMDHSA code object on
// rocjitsu, AMD's functional GPU emulator (ROCm/rocm-systems,
// emulation/rocjitsu), without a ROCm runtime, and saves device memory.
//
// This file is kirc's; it is compiled only by third_party/rocjitsu/build.sh,
// against rocjitsu's headers and object libraries (it is not part of the
// Bazel build). The protocol, which hw/rocjitsu/rocjitsu_device.cc speaks:
//
//   kirc-rocjitsu-run --version   one line "kirc-rocjitsu-run 1 rocjitsu <commit>"
//   kirc-rocjitsu-run --targets   the processors it runs (one per line)
//   kirc-rocjitsu-run REQUEST     runs one dispatch (see kUsage below)
//
// Exit status: 0 ran to completion, stdout "ok seconds=S ..."; 2 bad request
// or bad input files (stderr names the line); 3 the simulation failed: rocjitsu
// threw (unimplemented instruction, bad kernel descriptor, ...), a wavefront
// stopped without s_endpgm (an instruction rocjitsu cannot decode, s_setpc to
// 0), the dispatch did not complete (max_seconds, no progress), or the kernel
// wrote device memory outside every range the request names.
// Every error is one stderr line "kirc-rocjitsu-run: error: ...".

#include "embedded_schema.h"
#include "rocjitsu/code/executable.h"
#include "rocjitsu/config/config_loader.h"
#include "rocjitsu/vm/amdgpu/command_processor.h"
#include "rocjitsu/vm/amdgpu/gpu_memory.h"
#include "rocjitsu/vm/amdgpu/wavefront.h"
#include "rocjitsu/vm/amdgpu/xcd.h"
#include "rocjitsu/vm/plugins/execution_plugin_group.h"
#include "rocjitsu/vm/soc.h"
#include "simdojo/sim/simulation.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <unistd.h>

#ifndef KIRC_ROCJITSU_COMMIT
#define KIRC_ROCJITSU_COMMIT "unknown"
#endif

namespace {

constexpr int kProtocol = 1;
constexpr int kExitBadRequest = 2;
constexpr int kExitSimFailed = 3;

const char kUsage[] =
    "usage: kirc-rocjitsu-run --version | --targets | REQUEST_FILE\n"
    "REQUEST_FILE: one directive per line, the keyword then space-separated fields;\n"
    "a path is the last field and is the rest of the line:\n"
    "  kirc-rocjitsu-request 1        (first line)\n"
    "  target gfx942                  processor (selects DIR/share/configs/gfx942.json)\n"
    "  config /abs/path.json          optional: another rocjitsu config\n"
    "  code_object /abs/k.hsaco       AMDHSA code object\n"
    "  kernel NAME                    kernel symbol (descriptor NAME.kd)\n"
    "  workgroup X Y Z                work-items per workgroup\n"
    "  grid X Y Z                     workgroups per dimension\n"
    "  group_segment_size N           dynamic LDS bytes (optional, default 0)\n"
    "  private_segment_size N         bytes per work-item (optional, default 0)\n"
    "  kernarg ADDR /abs/kernarg.bin  kernarg segment (optional)\n"
    "  load ADDR /abs/in.bin          repeated\n"
    "  save ADDR SIZE /abs/out.bin    repeated\n"
    "  max_seconds S                  optional wall-clock limit\n"
    "ADDR/SIZE/N: decimal or 0x hex. Addresses in [0x10000000, 0x100000000) are the runner's.\n";

// The runner's own device memory: the code object, the AQL queue and the
// completion signal, all in [kRunnerLow, kRunnerHigh).
constexpr uint64_t kRunnerLow = 0x10000000ull;    // 256 MiB
constexpr uint64_t kRunnerHigh = 0x100000000ull;  // 4 GiB
constexpr uint64_t kCodeBase = 0x10000000ull;     // code object image (< 3 GiB)
constexpr uint64_t kCodeLimit = 0xC0000000ull;
constexpr uint64_t kRingBase = 0xF0000000ull;     // AQL ring, 64 packets
constexpr uint32_t kRingBytes = 4096;
constexpr uint64_t kReadPtr = 0xF0010000ull;
constexpr uint64_t kWritePtr = 0xF0010008ull;
constexpr uint64_t kDoorbell = 0xF0010010ull;
constexpr uint64_t kSignal = 0xF0020000ull;       // amd_signal_t (64 bytes)
// rocjitsu places the private segment (scratch) of a dispatch on a queue
// that is not a KFD queue at 4 GiB (command_processor.cpp), wave after wave.
constexpr uint64_t kScratchBase = 0x100000000ull;
// A dispatch whose wavefronts execute no instruction for this long has stalled.
constexpr double kStallSeconds = 20.0;

[[noreturn]] void Fail(int status, const std::string& msg) {
  std::fprintf(stderr, "kirc-rocjitsu-run: error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::_Exit(status);
}

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Processor {
  const char* name;
  uint32_t elf_mach;  // EF_AMDGPU_MACH_*
  rj_code_arch_t arch;
};
constexpr Processor kProcessors[] = {
    {"gfx908", 0x30, ROCJITSU_CODE_ARCH_CDNA1},
    {"gfx90a", 0x3f, ROCJITSU_CODE_ARCH_CDNA2},
    {"gfx942", 0x4c, ROCJITSU_CODE_ARCH_CDNA3},
    {"gfx950", 0x4f, ROCJITSU_CODE_ARCH_CDNA4},
};
const Processor* FindProcessor(std::string_view name) {
  for (const Processor& p : kProcessors)
    if (name == p.name) return &p;
  return nullptr;
}
const char* ProcessorForMach(uint32_t mach) {
  for (const Processor& p : kProcessors)
    if (mach == p.elf_mach) return p.name;
  return nullptr;
}

// DIR, the install directory: the parent of the directory holding this binary.
std::string InstallDir() {
  std::vector<char> buf(4096);
  ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  std::string exe(buf.data(), static_cast<size_t>(n));
  auto slash = exe.rfind('/');
  std::string bin = slash == std::string::npos ? "." : exe.substr(0, slash);
  slash = bin.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : bin.substr(0, slash));
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

bool FileExists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string DefaultConfig(const std::string& processor) {
  return InstallDir() + "/share/configs/" + processor + ".json";
}

std::optional<std::vector<uint8_t>> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

// ---------------------------------------------------------------------------
// The request.

struct Load {
  int line = 0;
  uint64_t addr = 0;
  std::string path;
  std::vector<uint8_t> bytes;
};
struct Save {
  int line = 0;
  uint64_t addr = 0, size = 0;
  std::string path;
};
struct Request {
  std::string target;
  std::string config;
  std::string code_object;
  std::string kernel;
  uint64_t workgroup[3] = {0, 0, 0};
  uint64_t grid[3] = {0, 0, 0};
  uint64_t group_segment_size = 0;
  uint64_t private_segment_size = 0;
  std::optional<Load> kernarg;
  std::vector<Load> loads;
  std::vector<Save> saves;
  double max_seconds = 0;  // 0: none
  int line_of[16] = {};    // the line of each singleton directive, for messages
};

bool ParseU64(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    if (v > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

// Splits "f1 f2 ... rest": n fields separated by single or multiple spaces,
// then (if want_rest) the rest of the line after one separating space.
bool SplitFields(std::string_view s, size_t n, bool want_rest, std::vector<std::string_view>* out) {
  out->clear();
  size_t i = 0;
  for (size_t k = 0; k < n; ++k) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j == i) return false;
    out->push_back(s.substr(i, j - i));
    i = j;
  }
  if (want_rest) {
    if (i >= s.size() || s[i] != ' ') return false;
    ++i;  // exactly one separator: the path is everything after it
    if (i >= s.size()) return false;
    out->push_back(s.substr(i));
    return true;
  }
  while (i < s.size() && s[i] == ' ') ++i;
  return i == s.size();
}

enum Singleton { kTarget, kConfig, kCodeObject, kKernel, kWorkgroup, kGrid, kGroupSeg, kPrivSeg, kKernarg, kMaxSeconds };

Request ParseRequest(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail(kExitBadRequest, "cannot read request file " + path + ": " + std::strerror(errno));
  Request r;
  std::string line;
  int lineno = 0;
  auto bad = [&](const std::string& why) -> void {
    Fail(kExitBadRequest, "line " + std::to_string(lineno) + ": " + why + ": '" + line + "'");
  };
  auto once = [&](Singleton s, const char* kw) {
    if (r.line_of[s] != 0)
      bad(std::string("second '") + kw + "' directive (first on line " + std::to_string(r.line_of[s]) + ")");
    r.line_of[s] = lineno;
  };
  std::vector<std::string_view> f;
  auto u64 = [&](std::string_view s, const char* what) {
    uint64_t v;
    if (!ParseU64(s, &v)) bad(std::string("bad ") + what + " '" + std::string(s) + "' (decimal or 0x hex)");
    return v;
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineno == 1) {
      if (line != "kirc-rocjitsu-request 1")
        bad("the first line must be 'kirc-rocjitsu-request 1' (protocol " + std::to_string(kProtocol) + ")");
      continue;
    }
    if (line.empty()) continue;
    std::string_view lv(line);
    size_t sp = lv.find(' ');
    std::string_view kw = lv.substr(0, sp);
    std::string_view rest = sp == std::string_view::npos ? std::string_view() : lv.substr(sp + 1);
    if (kw == "target") {
      once(kTarget, "target");
      if (!SplitFields(rest, 1, false, &f)) bad("expected 'target PROCESSOR'");
      r.target = std::string(f[0]);
    } else if (kw == "config") {
      once(kConfig, "config");
      if (rest.empty()) bad("expected 'config PATH'");
      r.config = std::string(rest);
    } else if (kw == "code_object") {
      once(kCodeObject, "code_object");
      if (rest.empty()) bad("expected 'code_object PATH'");
      r.code_object = std::string(rest);
    } else if (kw == "kernel") {
      once(kKernel, "kernel");
      if (!SplitFields(rest, 1, false, &f)) bad("expected 'kernel NAME'");
      r.kernel = std::string(f[0]);
    } else if (kw == "workgroup" || kw == "grid") {
      bool wg = kw == "workgroup";
      once(wg ? kWorkgroup : kGrid, wg ? "workgroup" : "grid");
      if (!SplitFields(rest, 3, false, &f)) bad(std::string("expected '") + std::string(kw) + " X Y Z'");
      uint64_t* dst = wg ? r.workgroup : r.grid;
      for (int i = 0; i < 3; ++i) {
        dst[i] = u64(f[static_cast<size_t>(i)], wg ? "workgroup size" : "grid size");
        if (dst[i] < 1) bad("each size must be at least 1");
      }
    } else if (kw == "group_segment_size" || kw == "private_segment_size") {
      bool group = kw == "group_segment_size";
      once(group ? kGroupSeg : kPrivSeg, group ? "group_segment_size" : "private_segment_size");
      if (!SplitFields(rest, 1, false, &f)) bad(std::string("expected '") + std::string(kw) + " N'");
      uint64_t v = u64(f[0], "size");
      if (v > 0xffffffffull) bad("size does not fit the AQL packet's 32 bits");
      (group ? r.group_segment_size : r.private_segment_size) = v;
    } else if (kw == "kernarg" || kw == "load") {
      if (kw == "kernarg") once(kKernarg, "kernarg");
      if (!SplitFields(rest, 1, true, &f)) bad(std::string("expected '") + std::string(kw) + " ADDR PATH'");
      Load l;
      l.line = lineno;
      l.addr = u64(f[0], "address");
      l.path = std::string(f[1]);
      if (kw == "kernarg") r.kernarg = std::move(l);
      else r.loads.push_back(std::move(l));
    } else if (kw == "save") {
      if (!SplitFields(rest, 2, true, &f)) bad("expected 'save ADDR SIZE PATH'");
      Save s;
      s.line = lineno;
      s.addr = u64(f[0], "address");
      s.size = u64(f[1], "size");
      s.path = std::string(f[2]);
      if (s.size > 0 && s.addr + s.size < s.addr) bad("address + size overflows");
      r.saves.push_back(std::move(s));
    } else if (kw == "max_seconds") {
      once(kMaxSeconds, "max_seconds");
      if (!SplitFields(rest, 1, false, &f)) bad("expected 'max_seconds S'");
      std::string s(f[0]);
      char* end = nullptr;
      errno = 0;
      double v = std::strtod(s.c_str(), &end);
      if (errno != 0 || end == s.c_str() || *end != '\0' || !(v > 0) || v > 1e9)
        bad("max_seconds must be a positive number");
      r.max_seconds = v;
    } else {
      bad("unknown directive '" + std::string(kw) + "'");
    }
  }
  if (lineno == 0) {
    lineno = 1;
    bad("empty request file");
  }
  auto need = [&](Singleton s, const char* kw) {
    if (r.line_of[s] == 0) Fail(kExitBadRequest, std::string("the request has no '") + kw + "' directive");
  };
  need(kTarget, "target");
  need(kCodeObject, "code_object");
  need(kKernel, "kernel");
  need(kWorkgroup, "workgroup");
  need(kGrid, "grid");
  return r;
}

// ---------------------------------------------------------------------------
// Watching the simulation: instruction counts, wavefronts that stop without
// s_endpgm, workgroup completions. Overrides ExecutionPluginGroup's virtual
// hooks directly (no plugin list), so an instruction costs one counter bump
// and one mnemonic test.

struct AbnormalHalt {
  uint32_t dispatch_id = 0, wg_id = 0, wf_slot = 0;
  uint64_t pc = 0;
  std::string last_mnemonic;
};

class Watcher : public rocjitsu::ExecutionPluginGroup {
 public:
  void onAmdgpuBeforeExecuteInstruction(uint64_t pc, const rocjitsu::Instruction& inst,
                                        rocjitsu::amdgpu::Wavefront& wf) override {
    instructions_.store(instructions_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::string_view mn = inst.mnemonic();
    WaveTrack& t = waves_[&wf];
    t.last_pc = pc;
    t.last_mnemonic = mn;  // string_view into static storage
    t.ended = mn.size() >= 8 && mn.substr(0, 8) == "s_endpgm";
  }
  void onAmdgpuWavefrontDispatched(rocjitsu::amdgpu::Wavefront& wf) override {
    waves_[&wf] = WaveTrack{};
    ++wavefronts_;
  }
  void onAmdgpuWavefrontHalted(rocjitsu::amdgpu::Wavefront& wf) override {
    auto it = waves_.find(&wf);
    bool ended = it != waves_.end() && it->second.ended;
    if (!ended && abnormal_.size() < 8) {
      AbnormalHalt h;
      h.dispatch_id = wf.dispatch_id();
      h.wg_id = wf.wg_id();
      h.wf_slot = wf.wf_id();
      h.pc = wf.pc;
      if (it != waves_.end()) h.last_mnemonic = std::string(it->second.last_mnemonic);
      abnormal_.push_back(std::move(h));
    }
    if (!ended) ++abnormal_count_;
    if (it != waves_.end()) waves_.erase(it);
  }
  void onAmdgpuWorkgroupCompleted(uint32_t, uint32_t) override { ++workgroups_done_; }
  // The completion tracker calls this when the dispatch's last workgroup has
  // retired, after flushing the caches and just before it decrements the
  // completion signal (within the same event). rocjitsu's CP releases its
  // hold on the engine only when a doorbell finds the queue idle, so the
  // engine would otherwise wait for more work forever: end the run here.
  void onAmdgpuDispatchExecutionEnd(uint32_t) override {
    completed_ = true;
    if (engine_ != nullptr) engine_->request_exit("dispatch completed", 0);
  }
  void onAmdgpuDispatchPacketProcessed(const rocjitsu::KernelDispatchInfo& info) override {
    dispatched_ = true;
    workgroups_ = info.workgroup_count;
    wfs_per_wg_ = info.wfs_per_workgroup;
  }

  void set_engine(simdojo::SimulationEngine* e) { engine_ = e; }
  bool completed() const { return completed_; }
  uint64_t instructions() const { return instructions_.load(std::memory_order_relaxed); }
  uint64_t wavefronts() const { return wavefronts_; }
  uint64_t workgroups_done() const { return workgroups_done_; }
  const std::vector<AbnormalHalt>& abnormal() const { return abnormal_; }
  uint64_t abnormal_count() const { return abnormal_count_; }
  bool dispatched() const { return dispatched_; }
  uint64_t workgroups() const { return workgroups_; }
  uint32_t wfs_per_wg() const { return wfs_per_wg_; }

 private:
  struct WaveTrack {
    uint64_t last_pc = 0;
    std::string_view last_mnemonic;
    bool ended = false;
  };
  std::atomic<uint64_t> instructions_{0};
  std::unordered_map<const rocjitsu::amdgpu::Wavefront*, WaveTrack> waves_;
  std::vector<AbnormalHalt> abnormal_;
  uint64_t abnormal_count_ = 0;
  uint64_t wavefronts_ = 0, workgroups_done_ = 0, workgroups_ = 0;
  uint32_t wfs_per_wg_ = 0;
  bool dispatched_ = false;
  bool completed_ = false;
  simdojo::SimulationEngine* engine_ = nullptr;
};

// ---------------------------------------------------------------------------
// Address ranges.

struct Range {
  uint64_t lo = 0, hi = 0;  // [lo, hi)
  std::string what;
};
bool Overlaps(uint64_t lo, uint64_t hi, const Range& r) { return lo < r.hi && r.lo < hi; }

// ---------------------------------------------------------------------------

int Run(const std::string& request_path) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  Request req = ParseRequest(request_path);

  // Processor and config.
  const Processor* proc = FindProcessor(req.target);
  if (proc == nullptr) {
    std::string known;
    for (const Processor& p : kProcessors) known += std::string(known.empty() ? "" : ", ") + p.name;
    Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kTarget]) + ": unknown target '" + req.target +
                              "' (this runner knows " + known + ")");
  }
  std::string config_path = req.config.empty() ? DefaultConfig(proc->name) : req.config;
  if (!FileExists(config_path))
    Fail(kExitBadRequest, "line " + std::to_string(req.line_of[req.config.empty() ? kTarget : kConfig]) +
                              ": no rocjitsu config " + config_path + " for " + proc->name +
                              (req.config.empty() ? " (this build does not run it: see --targets)" : ""));

  // Work sizes.
  uint64_t wg_items = req.workgroup[0] * req.workgroup[1] * req.workgroup[2];
  for (int i = 0; i < 3; ++i) {
    if (req.workgroup[i] > 1024 || wg_items > 1024)
      Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kWorkgroup]) +
                                ": a workgroup has at most 1024 work-items");
    if (req.grid[i] * req.workgroup[i] > 0xffffffffull || req.grid[i] > 0xffffffffull)
      Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kGrid]) +
                                ": grid * workgroup exceeds the AQL packet's 32-bit grid size");
  }
  uint64_t total_wgs = req.grid[0] * req.grid[1] * req.grid[2];
  if (total_wgs > 0xffffffffull)
    Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kGrid]) + ": more than 2^32-1 workgroups");

  // Code object: an AMDHSA ELF for the requested processor.
  auto image = ReadFile(req.code_object);
  if (!image)
    Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kCodeObject]) + ": cannot read code object " +
                              req.code_object);
  {
    const std::vector<uint8_t>& b = *image;
    auto where = "line " + std::to_string(req.line_of[kCodeObject]) + ": " + req.code_object + ": ";
    if (b.size() < 64 || std::memcmp(b.data(), "\x7f" "ELF", 4) != 0 || b[4] != 2 /*ELFCLASS64*/)
      Fail(kExitBadRequest, where + "not a 64-bit ELF file");
    uint16_t machine;
    uint32_t flags;
    std::memcpy(&machine, b.data() + 18, 2);
    std::memcpy(&flags, b.data() + 48, 4);
    if (b[7] != 64 /*ELFOSABI_AMDGPU_HSA*/ || machine != 224 /*EM_AMDGPU*/)
      Fail(kExitBadRequest, where + "not an AMDHSA code object (EI_OSABI " + std::to_string(b[7]) + ", e_machine " +
                                std::to_string(machine) + ")");
    uint32_t mach = flags & 0xff;
    if (mach != proc->elf_mach) {
      const char* name = ProcessorForMach(mach);
      Fail(kExitBadRequest, where + "code object is for " + (name ? name : ("EF_AMDGPU_MACH " + Hex(mach)).c_str()) +
                                ", the request's target is " + proc->name);
    }
  }
  // Dynamic relocations: rocjitsu's loader copies the LOAD segments and
  // applies none; R_AMDGPU_RELATIVE64 (address of something in the image) is
  // applied below, any other kind is refused.
  std::vector<std::pair<uint64_t, uint64_t>> relative64;  // (offset, addend)
  {
    const std::vector<uint8_t>& b = *image;
    auto where = "line " + std::to_string(req.line_of[kCodeObject]) + ": " + req.code_object + ": ";
    uint16_t type, shentsize, shnum;
    uint64_t shoff;
    std::memcpy(&type, b.data() + 16, 2);
    std::memcpy(&shoff, b.data() + 40, 8);
    std::memcpy(&shentsize, b.data() + 58, 2);
    std::memcpy(&shnum, b.data() + 60, 2);
    if (type != 3 /*ET_DYN*/)
      Fail(kExitBadRequest, where + "not a linked code object (ELF type " + std::to_string(type) +
                                ", expected ET_DYN from ld.lld)");
    for (uint16_t i = 0; i < shnum && shentsize >= 64; ++i) {
      uint64_t sh = shoff + static_cast<uint64_t>(i) * shentsize;
      if (sh + 64 > b.size()) break;
      uint32_t sh_type;
      uint64_t off, size, entsize;
      std::memcpy(&sh_type, b.data() + sh + 4, 4);
      std::memcpy(&off, b.data() + sh + 24, 8);
      std::memcpy(&size, b.data() + sh + 32, 8);
      std::memcpy(&entsize, b.data() + sh + 56, 8);
      if (sh_type == 9 /*SHT_REL*/ && size > 0)
        Fail(kExitSimFailed, where + "has SHT_REL relocations, which the runner does not apply");
      if (sh_type != 4 /*SHT_RELA*/ || size == 0) continue;
      if (entsize != 24 || off + size > b.size()) Fail(kExitBadRequest, where + "malformed SHT_RELA section");
      for (uint64_t r = off; r + 24 <= off + size; r += 24) {
        uint64_t r_offset, r_info;
        int64_t r_addend;
        std::memcpy(&r_offset, b.data() + r, 8);
        std::memcpy(&r_info, b.data() + r + 8, 8);
        std::memcpy(&r_addend, b.data() + r + 16, 8);
        uint32_t rtype = static_cast<uint32_t>(r_info);
        if (rtype == 0) continue;                  // R_AMDGPU_NONE
        if (rtype == 13 && (r_info >> 32) == 0) {  // R_AMDGPU_RELATIVE64
          relative64.emplace_back(r_offset, static_cast<uint64_t>(r_addend));
          continue;
        }
        Fail(kExitSimFailed, where + "has a dynamic relocation of type " + std::to_string(rtype) +
                                 " (symbol " + std::to_string(r_info >> 32) +
                                 "), which the runner does not apply (only R_AMDGPU_RELATIVE64)");
      }
    }
  }
  rocjitsu::Executable exec(req.code_object);
  if (!exec.is_valid())
    Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kCodeObject]) +
                              ": rocjitsu cannot read the code object " + req.code_object);
  const rocjitsu::AmdGpuCodeObject* co = nullptr;
  for (int t = 0; t <= static_cast<int>(ROCJITSU_CODE_TARGET_INVALID) && co == nullptr; ++t)
    if (exec.num_code_objects(static_cast<rj_code_target_id_t>(t)) > 0)
      co = exec.code_object(static_cast<rj_code_target_id_t>(t), 0);
  if (co == nullptr)
    Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kCodeObject]) + ": no code object in " +
                              req.code_object);
  uint64_t kd_offset = co->kernel_descriptor_offset(req.kernel);
  if (kd_offset == 0)
    Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kKernel]) + ": no kernel descriptor " + req.kernel +
                              ".kd in " + req.code_object);
  uint64_t code_size = co->mem_size();
  if (code_size == 0 || code_size > kCodeLimit - kCodeBase)
    Fail(kExitBadRequest, "code object image of " + std::to_string(code_size) + " bytes does not fit below " +
                              Hex(kCodeLimit));
  uint64_t kernel_object = kCodeBase + kd_offset;

  rocr::llvm::amdhsa::kernel_descriptor_t kd{};
  {
    // The descriptor as loaded: read it from the image's LOAD segments.
    const std::vector<uint8_t>& b = *image;
    uint64_t phoff;
    uint16_t phentsize, phnum;
    std::memcpy(&phoff, b.data() + 32, 8);
    std::memcpy(&phentsize, b.data() + 54, 2);
    std::memcpy(&phnum, b.data() + 56, 2);
    bool found = false;
    for (uint16_t i = 0; i < phnum && !found; ++i) {
      uint64_t ph = phoff + static_cast<uint64_t>(i) * phentsize;
      if (ph + 56 > b.size()) break;
      uint32_t type;
      uint64_t off, vaddr, filesz;
      std::memcpy(&type, b.data() + ph, 4);
      std::memcpy(&off, b.data() + ph + 8, 8);
      std::memcpy(&vaddr, b.data() + ph + 16, 8);
      std::memcpy(&filesz, b.data() + ph + 32, 8);
      if (type == 1 && kd_offset >= vaddr && kd_offset + sizeof(kd) <= vaddr + filesz && off + filesz <= b.size()) {
        std::memcpy(&kd, b.data() + off + (kd_offset - vaddr), sizeof(kd));
        found = true;
      }
    }
    if (!found)
      Fail(kExitBadRequest, "line " + std::to_string(req.line_of[kKernel]) + ": " + req.kernel +
                                ".kd is not inside a loadable segment of " + req.code_object);
  }
  {
    using namespace rocr::llvm::amdhsa;
    uint32_t kcp = kd.kernel_code_properties;
    if (AMDHSA_BITS_GET(kcp, KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR))
      Fail(kExitSimFailed, "kernel " + req.kernel +
                               " reads the dispatch packet pointer, which rocjitsu gives only to KFD queues "
                               "(the runner's queue would pass 0)");
    if (AMDHSA_BITS_GET(kcp, KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR))
      Fail(kExitSimFailed, "kernel " + req.kernel +
                               " reads the queue pointer, which rocjitsu gives only to KFD queues "
                               "(the runner's queue would pass 0)");
    if (AMDHSA_BITS_GET(kcp, KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32))
      Fail(kExitSimFailed, "kernel " + req.kernel + " is wave32; CDNA runs wave64 only");
  }
  uint64_t lds_bytes = static_cast<uint64_t>(kd.group_segment_fixed_size) + req.group_segment_size;
  uint64_t private_bytes = std::max<uint64_t>(kd.private_segment_fixed_size, req.private_segment_size);
  if (private_bytes > 0 && (proc->arch == ROCJITSU_CODE_ARCH_CDNA1 || proc->arch == ROCJITSU_CODE_ARCH_CDNA2))
    Fail(kExitSimFailed, std::string("a private segment on ") + proc->name +
                             " needs the scratch buffer descriptor that rocjitsu gives only to KFD queues");

  // Ranges: the runner's own, the scratch, then every load, kernarg and save.
  std::vector<Range> reserved = {{kRunnerLow, kRunnerHigh, "the runner's own memory [0x10000000, 0x100000000)"}};
  uint64_t waves_per_wg = (wg_items + 63) / 64;
  uint64_t scratch_bytes = private_bytes * 64 * waves_per_wg * total_wgs;
  if (scratch_bytes > 0)
    reserved.push_back({kScratchBase, kScratchBase + scratch_bytes,
                        "rocjitsu's scratch [" + Hex(kScratchBase) + ", " + Hex(kScratchBase + scratch_bytes) + ")"});
  std::vector<Range> loaded;  // loads and kernarg, to refuse overlaps between them
  auto read_load = [&](Load& l, const char* kw) {
    auto bytes = ReadFile(l.path);
    if (!bytes)
      Fail(kExitBadRequest, "line " + std::to_string(l.line) + ": cannot read " + l.path + ": " + std::strerror(errno));
    l.bytes = std::move(*bytes);
    uint64_t hi = l.addr + l.bytes.size();
    if (hi < l.addr) Fail(kExitBadRequest, "line " + std::to_string(l.line) + ": address + size overflows");
    if (l.bytes.empty()) return;
    for (const Range& r : reserved)
      if (Overlaps(l.addr, hi, r))
        Fail(kExitBadRequest, "line " + std::to_string(l.line) + ": " + kw + " [" + Hex(l.addr) + ", " + Hex(hi) +
                                  ") overlaps " + r.what);
    for (const Range& r : loaded)
      if (Overlaps(l.addr, hi, r))
        Fail(kExitBadRequest, "line " + std::to_string(l.line) + ": " + kw + " [" + Hex(l.addr) + ", " + Hex(hi) +
                                  ") overlaps " + r.what);
    loaded.push_back({l.addr, hi, std::string(kw) + " on line " + std::to_string(l.line)});
  };
  if (req.kernarg) read_load(*req.kernarg, "kernarg");
  for (Load& l : req.loads) read_load(l, "load");
  for (const Save& s : req.saves)
    for (const Range& r : reserved)
      if (s.size > 0 && Overlaps(s.addr, s.addr + s.size, r))
        Fail(kExitBadRequest, "line " + std::to_string(s.line) + ": save [" + Hex(s.addr) + ", " +
                                  Hex(s.addr + s.size) + ") overlaps " + r.what);

  // The simulated GPU.
  rocjitsu::config::LoadedConfig loaded_cfg;
  try {
    loaded_cfg = rocjitsu::config::load_config(config_path, rocjitsu::kEmbeddedSchema);
  } catch (const std::exception& e) {
    Fail(kExitBadRequest, "rocjitsu cannot load config " + config_path + ": " + e.what());
  }
  rocjitsu::SoC* soc = loaded_cfg.soc();
  rocjitsu::amdgpu::GpuMemory* memory = loaded_cfg.memory();
  if (soc == nullptr || memory == nullptr || soc->num_xcds() == 0)
    Fail(kExitBadRequest, "config " + config_path + " has no SoC, GPU memory or XCD");
  if (soc->arch() != proc->arch)
    Fail(kExitBadRequest, "config " + config_path + " is for ISA family " +
                              rocjitsu::config::arch_to_string(soc->arch()) + ", not " + proc->name + "'s " +
                              rocjitsu::config::arch_to_string(proc->arch));
  auto* cp = soc->xcd(0)->command_processor();
  if (cp == nullptr || cp->compute_units().empty())
    Fail(kExitBadRequest, "config " + config_path + ": XCD 0 has no command processor or compute units");
  {
    const auto& cu_cfg = cp->compute_units()[0]->config();
    if (lds_bytes > static_cast<uint64_t>(cu_cfg.lds_size_kb) * 1024)
      Fail(kExitBadRequest, "the workgroup needs " + std::to_string(lds_bytes) + " bytes of LDS, a compute unit has " +
                               std::to_string(cu_cfg.lds_size_kb * 1024));
    if (waves_per_wg > cu_cfg.num_wf_slots)
      Fail(kExitBadRequest, "the workgroup has " + std::to_string(waves_per_wg) +
                               " wavefronts, a compute unit has " + std::to_string(cu_cfg.num_wf_slots) +
                               " wavefront slots");
  }
  // gfx90a (CDNA2) encodes the descriptor's VGPR count in granules of 8 and
  // packs the work-item IDs into v0 (x | y << 10 | z << 20), as gfx942 does;
  // rocjitsu's config loader gives CDNA2 granules of 4 and unpacked IDs (it
  // packs only for CDNA3/CDNA4/gfx1250), which allocates half the VGPRs a
  // kernel uses and leaves Y and Z out of v0. Set both through the CP's own
  // setters.
  if (proc->arch == ROCJITSU_CODE_ARCH_CDNA2) {
    for (uint32_t x = 0; x < soc->num_xcds(); ++x) {
      if (auto* c = soc->xcd(x)->command_processor()) {
        c->set_vgpr_granularity(8);
        c->set_packed_tid(true);
      }
    }
  }
  // No tick limit: the dispatch's completion decides, and max_seconds.
  loaded_cfg.engine_config.max_ticks = 0;
  loaded_cfg.engine_config.num_threads = 1;
  auto engine = std::make_unique<simdojo::SimulationEngine>(loaded_cfg.engine_config);
  engine->topology().set_root(loaded_cfg.take_root());
  loaded_cfg.wire_links(engine->topology());
  engine->build();
  auto watcher = std::make_shared<Watcher>();
  watcher->set_engine(engine.get());
  soc->set_plugin_group(watcher);

  // Device memory: code, kernarg, loads, queue, signal.
  auto put = [&](uint64_t addr, const void* p, size_t n) {
    memory->load_image(static_cast<const uint8_t*>(p), n, addr);
  };
  co->load_to_memory(memory, kCodeBase);
  for (const auto& [offset, addend] : relative64) {
    uint64_t value = kCodeBase + addend;
    put(kCodeBase + offset, &value, 8);
  }
  // Each file's bytes are dropped once copied into device memory.
  if (req.kernarg && !req.kernarg->bytes.empty()) {
    put(req.kernarg->addr, req.kernarg->bytes.data(), req.kernarg->bytes.size());
    std::vector<uint8_t>().swap(req.kernarg->bytes);
  }
  for (Load& l : req.loads) {
    if (!l.bytes.empty()) put(l.addr, l.bytes.data(), l.bytes.size());
    std::vector<uint8_t>().swap(l.bytes);
  }
  {
    uint8_t sig[64] = {};
    int64_t kind = 1;   // AMD_SIGNAL_KIND_USER
    int64_t value = 1;  // the CP decrements it when the dispatch retires
    std::memcpy(sig + 0, &kind, 8);
    std::memcpy(sig + 8, &value, 8);
    put(kSignal, sig, sizeof sig);
    uint64_t zero = 0;
    put(kReadPtr, &zero, 8);
    put(kWritePtr, &zero, 8);
    put(kDoorbell, &zero, 8);
  }
  rocjitsu::amdgpu::HwQueue hw{};
  hw.queue_id = 1;
  hw.ring_base_va = kRingBase;
  hw.ring_size = kRingBytes;
  hw.read_ptr_va = kReadPtr;
  hw.write_ptr_va = kWritePtr;
  hw.doorbell_va = kDoorbell;
  cp->register_queue(std::move(hw));

  hsa_kernel_dispatch_packet_t pkt{};
  pkt.header = static_cast<uint16_t>((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                                     (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                     (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  uint16_t dims = 1;
  if (req.grid[1] > 1 || req.workgroup[1] > 1) dims = 2;
  if (req.grid[2] > 1 || req.workgroup[2] > 1) dims = 3;
  pkt.setup = dims;
  pkt.workgroup_size_x = static_cast<uint16_t>(req.workgroup[0]);
  pkt.workgroup_size_y = static_cast<uint16_t>(req.workgroup[1]);
  pkt.workgroup_size_z = static_cast<uint16_t>(req.workgroup[2]);
  pkt.grid_size_x = static_cast<uint32_t>(req.grid[0] * req.workgroup[0]);
  pkt.grid_size_y = static_cast<uint32_t>(req.grid[1] * req.workgroup[1]);
  pkt.grid_size_z = static_cast<uint32_t>(req.grid[2] * req.workgroup[2]);
  pkt.private_segment_size = static_cast<uint32_t>(req.private_segment_size);
  pkt.group_segment_size = static_cast<uint32_t>(req.group_segment_size);
  pkt.kernel_object = kernel_object;
  pkt.kernarg_address = reinterpret_cast<void*>(static_cast<uintptr_t>(req.kernarg ? req.kernarg->addr : 0));
  pkt.completion_signal.handle = kSignal;
  put(kRingBase, &pkt, sizeof pkt);
  uint64_t write_index = 1;
  put(kWritePtr, &write_index, 8);
  put(kDoorbell, &write_index, 8);
  engine->schedule_event_now(cp->doorbell_event());

  // Watchdog: max_seconds and stalls end the run through request_exit.
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  std::atomic<int> stop_reason{0};  // 1 max_seconds, 2 stalled
  const auto t_run = Clock::now();
  std::thread watchdog([&] {
    uint64_t last_count = watcher->instructions();
    auto last_progress = Clock::now();
    std::unique_lock<std::mutex> lk(mu);
    while (!finished) {
      cv.wait_for(lk, std::chrono::milliseconds(50));
      if (finished) break;
      auto now = Clock::now();
      uint64_t c = watcher->instructions();
      if (c != last_count) {
        last_count = c;
        last_progress = now;
      }
      if (req.max_seconds > 0 && std::chrono::duration<double>(now - t0).count() > req.max_seconds) {
        stop_reason = 1;
        engine->request_exit("max_seconds", 1);
        break;
      }
      if (std::chrono::duration<double>(now - last_progress).count() > kStallSeconds) {
        stop_reason = 2;
        engine->request_exit("stalled", 1);
        break;
      }
    }
    // The engine honours request_exit between events; one that never
    // returns (an endless loop inside rocjitsu) is ended here.
    if (!finished && !cv.wait_for(lk, std::chrono::seconds(10), [&] { return finished; }))
      Fail(kExitSimFailed, std::string(stop_reason == 1 ? "max_seconds exceeded" : "the dispatch is stuck") +
                               " and rocjitsu did not stop within 10 s of being asked (" +
                               std::to_string(watcher->instructions()) + " instructions)");
  });
  std::string sim_error;
  simdojo::ExitStatus status;
  try {
    status = engine->run();
  } catch (const std::exception& e) {
    sim_error = e.what();
    if (sim_error.empty()) sim_error = "an exception without a message";
  } catch (...) {
    sim_error = "an exception that is not a std::exception";
  }
  {
    std::lock_guard<std::mutex> lk(mu);
    finished = true;
  }
  cv.notify_all();
  watchdog.join();
  const double run_seconds = std::chrono::duration<double>(Clock::now() - t_run).count();

  auto progress = [&] {
    return std::to_string(watcher->workgroups_done()) + " of " + std::to_string(total_wgs) +
           " workgroups completed, " + std::to_string(watcher->instructions()) + " instructions";
  };
  if (!sim_error.empty()) Fail(kExitSimFailed, "rocjitsu: " + sim_error + " (" + progress() + ")");
  if (watcher->abnormal_count() > 0) {
    const AbnormalHalt& h = watcher->abnormal()[0];
    uint32_t w0 = memory->read32(h.pc), w1 = memory->read32(h.pc + 4);
    std::string msg = std::to_string(watcher->abnormal_count()) +
                      " wavefront(s) stopped without s_endpgm; the first: workgroup " + std::to_string(h.wg_id) +
                      " (wave slot " + std::to_string(h.wf_slot) + ") at code offset " + Hex(h.pc - kCodeBase) +
                      " (words " + Hex(w0) + " " + Hex(w1) + ")";
    if (!h.last_mnemonic.empty()) msg += ", after executing " + h.last_mnemonic;
    msg += ": rocjitsu halts a wavefront on an instruction it cannot decode, or on s_setpc to address 0";
    Fail(kExitSimFailed, msg + " (" + progress() + ")");
  }
  if (stop_reason == 1)
    Fail(kExitSimFailed, "max_seconds " + Seconds(req.max_seconds) + " exceeded (" + progress() + ")");
  if (stop_reason == 2)
    Fail(kExitSimFailed, "no instruction executed for " + std::to_string(static_cast<int>(kStallSeconds)) +
                             " s: the dispatch is stuck (a barrier no wavefront reaches, or a workgroup that never "
                             "fits on a compute unit) (" + progress() + ")");
  int64_t signal_value = static_cast<int64_t>(memory->read64(kSignal + 8));
  if (!watcher->dispatched())
    Fail(kExitSimFailed, "rocjitsu never processed the dispatch packet (engine stopped: " + status.message + ")");
  if (!watcher->completed() || signal_value != 0 || watcher->workgroups_done() != total_wgs)
    Fail(kExitSimFailed, "the dispatch did not complete: completion signal " + std::to_string(signal_value) +
                             ", " + progress() + " (engine stopped: " + status.message + ")");

  soc->flush_all();

  // Writes outside every named range: SparseMemory allocates a page on the
  // first write to it, so a page that no load, kernarg, save, code, queue or
  // scratch range touches was written by the kernel (reads do not allocate).
  {
    std::vector<Range> known = reserved;
    known.insert(known.end(), loaded.begin(), loaded.end());
    for (const Save& s : req.saves)
      if (s.size > 0) known.push_back({s.addr, s.addr + s.size, "save"});
    uint64_t stray = 0, first = 0;
    constexpr uint64_t kPage = simdojo::SparseMemory::PAGE_SIZE;
    memory->for_each_page([&](uint64_t page, const simdojo::SparseMemory::Page&) {
      for (const Range& r : known)
        if (Overlaps(page, page + kPage, r)) return;
      if (stray == 0 || page < first) first = page;
      ++stray;
    });
    if (stray > 0)
      Fail(kExitSimFailed, "the kernel wrote device memory outside every load, kernarg and save range: " +
                               std::to_string(stray) + " page(s) of 4 KiB, the lowest at " + Hex(first));
  }

  // Saves.
  for (const Save& s : req.saves) {
    std::vector<uint8_t> out(static_cast<size_t>(s.size));
    uint64_t i = 0;
    for (; i + 8 <= s.size; i += 8) {
      uint64_t v = memory->read64(s.addr + i);
      std::memcpy(out.data() + i, &v, 8);
    }
    for (; i < s.size; ++i) out[static_cast<size_t>(i)] = memory->read8(s.addr + i);
    std::ofstream f(s.path, std::ios::binary | std::ios::trunc);
    if (!f) Fail(kExitBadRequest, "line " + std::to_string(s.line) + ": cannot write " + s.path + ": " + std::strerror(errno));
    f.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
    f.close();
    if (!f) Fail(kExitBadRequest, "line " + std::to_string(s.line) + ": error writing " + s.path);
  }

  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  // rocjitsu runs in functional mode: its simulation ticks are not cycles,
  // so only counts are reported.
  std::printf("ok seconds=%.3f run_seconds=%.3f instructions=%llu wavefronts=%llu workgroups=%llu\n",
              seconds, run_seconds, static_cast<unsigned long long>(watcher->instructions()),
              static_cast<unsigned long long>(watcher->wavefronts()),
              static_cast<unsigned long long>(watcher->workgroups_done()));
  std::fflush(stdout);
  // Skip the engine's teardown of 256 compute units: nothing is left to do.
  std::_Exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs(kUsage, stderr);
    return kExitBadRequest;
  }
  std::string arg = argv[1];
  if (arg == "--version") {
    std::printf("kirc-rocjitsu-run %d rocjitsu %s\n", kProtocol, KIRC_ROCJITSU_COMMIT);
    return 0;
  }
  if (arg == "--targets") {
    for (const Processor& p : kProcessors)
      if (FileExists(DefaultConfig(p.name))) std::printf("%s\n", p.name);
    return 0;
  }
  if (arg == "-h" || arg == "--help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!arg.empty() && arg[0] == '-') {
    std::fputs(kUsage, stderr);
    return kExitBadRequest;
  }
  // Die with the process that started us (kirc killed by Ctrl-C or SIGTERM
  // must not leave a simulation running for its whole time limit): the
  // runner runs in its own process group, so the terminal's signal does not
  // reach it.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return kExitSimFailed;  // the parent died before prctl
  try {
    return Run(arg);
  } catch (const std::exception& e) {
    Fail(kExitSimFailed, std::string("rocjitsu: ") + e.what());
  }
}
