// Concrete execution of final machine code, one whole wave (64 lanes) at a
// time, with the shared instruction semantics (compiler/isa/semantics.h,
// U32Domain): branches are taken, loops iterate, lane masks are 64-bit
// values. No terms, no Z3. Used by the verifier to look for counterexamples
// when the solver cannot decide (a "failed" verdict never needs more than a
// concrete run), and by the mutation tests to classify mutants.
//
// Inputs are chosen by a `setting`: argument pointers (0: low, 1: high with
// the low dword near 2^32, 2: middle), scalar arguments, the contents of
// undefined registers (0 in setting 0, hashed in the others) and of memory
// (a deterministic function of the address).
#ifndef KIRC_VERIFY_CONCRETE_H_
#define KIRC_VERIFY_CONCRETE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/kernel.h"
#include "compiler/isa/lowered_kernel.h"
#include "compiler/target/target.h"

namespace kir::vfy {

constexpr int kConcreteSettings = 3;
// An extra setting for global_* accesses (64-bit address arithmetic): each
// buffer pointer's low dword is 2^32 minus half the buffer (rounded down to
// 256 bytes), so every buffer straddles a 4 GiB boundary and a dropped carry
// shows. Not among the kConcreteSettings the mutation oracle compares.
constexpr int kStraddleSetting = 3;
// The low dword of a buffer pointer in kStraddleSetting.
inline uint32_t StraddlePointerLo(int64_t buffer_bytes) {
  const int64_t half = (buffer_bytes / 2) / 256 * 256;
  return static_cast<uint32_t>((int64_t{1} << 32) - std::min<int64_t>(std::max<int64_t>(half, 256), int64_t{1} << 31));
}

// One execution of a memory instruction by a wave.
struct MemRecord {
  int index = -1;                          // instruction index
  std::vector<std::pair<int, int64_t>> iters;  // (loop label index, iteration) of the enclosing loops
  uint64_t exec = 0;
  uint32_t srd[4] = {0, 0, 0, 0};          // buffers: the SRD
  uint32_t soffset = 0;                    // buffers
  std::vector<uint32_t> vaddr;             // per lane: voffset (buffers), address (LDS); global: vaddr
                                           // (the low dword of the pair, or the 32-bit offset with saddr)
  std::vector<uint32_t> vaddr_hi;          // global without saddr, per lane: the pair's high dword
  uint64_t saddr = 0;                      // global with saddr: the SGPR base
  uint32_t m0 = 0;                         // M0 (an LDS DMA's LDS base: LdsDmaAddress)
};

// The bytes one lane (its EXEC bit set) of one execution `r` of memory
// instruction `mi` accesses: per address (DS read2/write2: two) and
// component, the absolute address (buffers and global_*; a buffer's
// components the SRD range check drops are left out, RawBufferInRange of
// compiler/isa/semantics.h) or the LDS byte address, with the bytes of that
// component. Nothing for a lane whose EXEC bit is clear. Returns nullopt for a
// buffer whose SRD is not a raw buffer (stride, swizzle or add_tid_enable
// set: the private segment buffer among them) and for flat_* and scratch_*,
// whose addresses this rule does not give.
struct Touch {
  int address = 0;     // which address of the instruction (0, or 0/1 for read2/write2)
  uint64_t addr = 0;   // absolute byte address, or LDS byte address
  int64_t bytes = 0;
};
std::optional<std::vector<Touch>> TouchedBytes(const MInst& mi, const MemRecord& r, int lane);

// The work-item id (x, y, z) of `lane` of wave `wave` of a workgroup of
// kernel `k` (wave64: work-item x + X * (y + Y * z) is lane % 64 of wave / 64).
std::array<int64_t, 3> WorkItemId(const Kernel& k, int wave, int lane);

class ConcreteRunner {
 public:
  ConcreteRunner(const Kernel& k, const TargetInfo& t, const LoweredKernel& lk, int setting);

  // The value a kernarg dword holds (pointer halves, scalars).
  uint64_t Pointer(const std::string& arg) const;
  // Runs one wave; `on_mem` sees every memory instruction it executes.
  // Error: a wave that does not end within `max_steps` instructions, or an
  // instruction the runner cannot execute. `steps`, when given, receives the
  // number of instructions executed (a count, so callers can bound a search
  // by work rather than time).
  absl::Status RunWave(std::array<int64_t, 3> wg, int wave, const std::function<void(const MemRecord&)>& on_mem,
                       int64_t max_steps = 2000000, int64_t* steps = nullptr);
  // The work-item id of `lane` of `wave`.
  std::array<int64_t, 3> TidOf(int wave, int lane) const;
  int Waves() const;

 private:
  struct Wave;
  uint32_t Undefined(uint64_t reg, int lane) const;
  uint32_t Load(uint64_t addr) const;
  void Init(Wave& w, std::array<int64_t, 3> wg, int wave) const;

  const Kernel& k_;
  const TargetInfo& t_;
  const LoweredKernel& lk_;
  int setting_;
  uint64_t kernarg_ptr_ = 0;
  std::vector<uint8_t> kernarg_;
  std::map<std::string, uint64_t> ptr_;
  std::map<int64_t, int> label_at_;  // label id -> instruction index
  std::map<int, int> latch_of_;      // label index -> latch index (loops)
};

}  // namespace kir::vfy

#endif  // KIRC_VERIFY_CONCRETE_H_
