// Host memory for `kirc run`: what a run of a kernel needs, what the process
// may use, and the error when it does not fit, before anything is allocated
// (issue 13, defect 7: an f32[536870911] buffer under a 6 GB limit ended in
// std::bad_alloc, exit 134, no message).
#ifndef KIRC_HW_RUN_HOST_MEMORY_H_
#define KIRC_HW_RUN_HOST_MEMORY_H_

#include <cstdint>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/workgroups.h"

namespace kir {

// An upper bound of the bytes of buffer `a` of `k` a run of workgroups `box`
// (whole(): the grid) materialises, in bytes: per workgroup and load or
// store of it, the fewer of one page (PagedBytes::kPageBytes) per element a
// thread moves (its vector width times the trip counts of the loops around
// it, times the threads) and the pages of the byte range the access spans
// within a workgroup (the index terms other than wg.x/y/z, at their whole
// ranges); for a gemm op's buffers, the pages of the elements of their
// shapes (lines along one dimension times the pages of a line, plus one page
// per line for a straddled boundary: a view with rows far apart counts its
// rows, not the allocation's span); at most Arg::SizeBytes().
int64_t TouchedBytesBound(const Kernel& k, const Arg& a, const WorkgroupRange& box = {});

// Host bytes RunAndCheck needs for kernel `k` at its peak, in bytes, with
// sparse buffers (compiler/ir/paged_bytes.h: generated inputs are never
// materialised; the output, the reference and the magnitude shadow hold the
// pages the run touches), for a device that allocates
// `device_bytes_per_buffer_byte` per byte it touches and
// `device_bytes_per_untouched_byte` per buffer byte whatever it touches
// (Device::HostBytesPerBufferByte, HostBytesPerUntouchedBufferByte). With T
// the bytes TouchedBytesBound allows for `box`: the larger of the device
// phase (T of output, T * device bytes, the untouched bytes) and the
// reference phase (T of output, reference and shadow, the interpreter's
// race record per touched element, and the record run's side buffers: per
// touched element of a buffer StoreRecordKernel records, 4 bytes and a race
// record for each of its side buffers), plus a page table per buffer copy and a
// fixed allowance (code, the compiled kernel, small tables). With
// `concurrent` (RunOptions::threads >= 2) the two phases overlap: their sum,
// the output counted once.
// Readonly buffers (never written: read as generated inputs, never
// materialised) count their touched bytes once.
// Buffers named in `dense` (given by --input files: held whole) count at
// full size, twice more (the inputs and the shadow's inputs).
// `gemm_source`: the gemm kernel `k` was promoted from (the same buffers);
// each buffer then counts the fewer of the two TouchedBytesBounds (both are
// upper bounds; the gemm's counts its shapes' rows, review 11 F8).
int64_t RunHostBytes(const Kernel& k, int64_t device_bytes_per_buffer_byte, bool concurrent = false,
                     const WorkgroupRange& box = {}, int64_t device_bytes_per_untouched_byte = 0,
                     const std::set<std::string>& dense = {}, const Kernel* gemm_source = nullptr);

// The address space a run maps (every sparse buffer and race record at full
// size, MAP_NORESERVE, the record run's side buffers included), for a check
// against an address-space limit (ulimit -v), which counts mappings whether
// resident or not.
int64_t RunAddressSpaceBytes(const Kernel& k, int64_t device_bytes_per_buffer_byte);

// The address space left to this process: the smallest of RLIMIT_AS (less
// VmSize), RLIMIT_DATA (less VmData) and the 128 TiB of x86-64 user space
// (less VmSize); `source` says which.
int64_t AvailableAddressSpace(std::string* source);

// The resident host bytes this process may still use, and what limits it
// (`source`, e.g. "the machine's available memory (MemAvailable)"): the
// smaller of the cgroup v2 memory.max (less memory.current) and MemAvailable
// of /proc/meminfo (address-space limits: AvailableAddressSpace). -1 when
// nothing could be read.
int64_t AvailableHostBytes(std::string* source);

// OK when `need` bytes fit in `available` (-1: unknown, taken as fitting);
// else ResourceExhausted naming the kernel, the bytes needed, its largest
// buffers, the limit and its source, and what to do. `address_space`: the
// need is RunAddressSpaceBytes (mappings at full size, which --workgroups
// does not shrink), said so and not suggesting fewer workgroups.
absl::Status CheckHostMemory(const Kernel& k, int64_t need, int64_t available,
                             const std::string& source, bool address_space = false);

}  // namespace kir

#endif  // KIRC_HW_RUN_HOST_MEMORY_H_
