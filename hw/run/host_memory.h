// Host memory for `kirc run`: what a run of a kernel needs, what the process
// may use, and the error when it does not fit, before anything is allocated
// (issue 13, defect 7: an f32[536870911] buffer under a 6 GB limit ended in
// std::bad_alloc, exit 134, no message).
#ifndef KIRC_HW_RUN_HOST_MEMORY_H_
#define KIRC_HW_RUN_HOST_MEMORY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "compiler/ir/kernel.h"

namespace kir {

// Host bytes RunAndCheck needs for kernel `k` at its peak, in bytes, for a
// device that allocates `device_bytes_per_buffer_byte` beside the buffers
// (Device::HostBytesPerBufferByte): the larger of the device phase (inputs,
// outputs, the device's own bytes) and the reference phase (inputs, outputs,
// the reference's result, the magnitude shadow's copy of the inputs in
// random mode, and the interpreter's per-element bookkeeping), plus a fixed
// allowance for everything else (code, the compiled kernel, small tables).
// Every buffer counts at Arg::SizeBytes(); the emulator's bookkeeping is
// calloc'ed, so it counts fully against an address-space limit.
// With `concurrent` (RunOptions::threads >= 2), the two phases overlap: the
// sum of both, the inputs and outputs counted once.
int64_t RunHostBytes(const Kernel& k, int64_t device_bytes_per_buffer_byte, bool concurrent = false);

// The host bytes this process may still allocate, and what limits it
// (`source`, e.g. "the address-space limit (ulimit -v)"): the smallest of
// RLIMIT_AS and RLIMIT_DATA (less what the process already uses), the cgroup
// v2 memory.max (less memory.current), and MemAvailable of /proc/meminfo.
// -1 when nothing could be read.
int64_t AvailableHostBytes(std::string* source);

// OK when `need` bytes fit in `available` (-1: unknown, taken as fitting);
// else ResourceExhausted naming the kernel, the bytes needed, its largest
// buffers, the limit and its source, and what to do.
absl::Status CheckHostMemory(const Kernel& k, int64_t need, int64_t available,
                             const std::string& source);

}  // namespace kir

#endif  // KIRC_HW_RUN_HOST_MEMORY_H_
