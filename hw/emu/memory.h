// Global memory (the argument buffers and the kernarg segment, nothing else),
// buffer resource descriptors (SRDs) and the raw-buffer range check.
#ifndef KIRC_HW_EMU_MEMORY_H_
#define KIRC_HW_EMU_MEMORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/paged_bytes.h"

namespace kir::emu {

struct Region {
  std::string name;  // "argument 2 'C'", "kernarg segment", ...
  uint64_t base = 0;
  uint8_t* data = nullptr;
  uint64_t size = 0;
  // A kernel argument buffer (not the kernarg segment, packet or queue):
  // strict mode checks the work-items' accesses to it for races (strict.h).
  bool argument = false;
  // Non-null: the region's bytes are this sparse buffer (`data` unused):
  // reads of pages never touched give its filler's bytes, writes materialise
  // their pages (compiler/ir/paged_bytes.h).
  PagedBytes* paged = nullptr;
};

class GlobalMemory {
 public:
  // Regions must not overlap; `data` must stay valid while the memory is used.
  void AddRegion(std::string name, uint64_t base, uint8_t* data, uint64_t size, bool argument = false);
  // A sparse argument buffer of bytes->size() bytes (`bytes` must outlive the memory's use).
  void AddPagedRegion(std::string name, uint64_t base, PagedBytes* bytes);
  // The region holding all of [addr, addr + n), or nullptr.
  const Region* Find(uint64_t addr, uint64_t n) const;
  // Copies; false if [addr, addr + n) is not inside one region.
  bool Read(uint64_t addr, void* out, uint64_t n) const;
  bool Write(uint64_t addr, const void* in, uint64_t n);
  // Where an address is relative to the regions, for error messages:
  // "0x... (4 bytes, 16 bytes past the end of argument 2 'C' [0x... + 1024 bytes])",
  // or for an access inside one: "0x... (4 bytes at offset 64 of argument 2 'C' [...])".
  std::string Describe(uint64_t addr, uint64_t n) const;
  const std::vector<Region>& regions() const { return regions_; }

 private:
  std::vector<Region> regions_;
  mutable size_t last_ = 0;  // lookup cache
};

// A buffer resource descriptor (amdgcn-isa-notes.md section 4).
struct Srd {
  uint64_t base = 0;         // 48 bits
  uint32_t stride = 0;       // 14 bits; 0 = raw buffer
  uint32_t num_records = 0;  // bytes for raw buffers
  uint32_t dword3 = 0;
  bool swizzle = false;
  int data_format() const { return static_cast<int>((dword3 >> 15) & 0xf); }
  bool add_tid() const { return (dword3 >> 23) & 1; }
};
Srd DecodeSrd(const uint32_t words[4]);

// The private segment buffer SRD the emulator gives a kernel that enables
// it (4 user SGPRs, gfx908/90a; clang's buffer_* spills and private arrays
// use it after adding the scratch wave offset to its base): base
// kPrivateSrdBase (above every buffer the emulator places, below 2^48),
// num_records 0xffffffff, and in dword3 ADD_TID_ENABLE (bit 23),
// INDEX_STRIDE 64 and ELEMENT_SIZE 4 as LLVM's scratch resource
// (SIRegisterInfo/SIInstrInfo getScratchRsrcWords23): the hardware
// swizzles lanes apart, and the emulator keeps each lane's private segment
// separately (Wave::Scratch). A buffer access through an SRD with
// ADD_TID_ENABLE is a private access: (base - kPrivateSrdBase) + soffset
// must be the wave's scratch wave offset, and the lane's offset in its
// segment is voffset (offen) + the instruction offset.
constexpr uint64_t kPrivateSrdBase = uint64_t{0xf000} << 32;
constexpr uint32_t kPrivateSrdDword3 = (1u << 23) | (3u << 21) | (1u << 19) | (4u << 15);
// The scratch wave offset (system SGPR) the emulator gives wave `wave` of a
// workgroup: distinct and non-zero, so code that forgets to add it fails.
inline uint32_t ScratchWaveOffset(int wave) { return 0x10000u * static_cast<uint32_t>(wave + 1); }
// OK if the emulator can use the SRD: data_format != 0 (real hardware drops
// stores with data_format 0), stride 0 (raw buffer), no swizzle, no add_tid.
absl::Status CheckSrd(const Srd& srd);

// THE raw-buffer range check (stride 0), used for every buffer access; it
// calls RawBufferInRange of compiler/isa/semantics.h, the definition the
// verifier (verify/) proves against, which cites its sources: one component
// (a dword of a multi-dword access, or the whole of a byte, short or dword
// access) of `bytes` bytes at byte `offset` = voffset (offen) + instruction
// offset + 4 * component index is in range iff all its bytes are:
// offset + bytes <= num_records - soffset, computed without 32-bit wrap.
// Out-of-range loads return 0 and out-of-range stores are dropped, a
// component partly in range included.
bool RawBufferComponentInRange(const Srd& srd, uint32_t soffset, uint64_t offset, int bytes);

}  // namespace kir::emu

#endif  // KIRC_HW_EMU_MEMORY_H_
