// The work a kernel does, for throughput figures of timed (HIP) runs:
// floating-point operations of its matrix products and bytes of global
// memory it reads and writes.
#ifndef KIRC_HW_RUN_WORK_H_
#define KIRC_HW_RUN_WORK_H_

#include <cstdint>
#include <string>

#include "compiler/ir/kernel.h"

namespace kir {

struct KernelWork {
  // Matrix-product FLOPs (a multiply-add counts 2): 2*M*N*K for a kernel with
  // a tile-level gemm op (M, N from C's shape, K from A's and its layout);
  // otherwise 2*m*n*k for every MFMA each wave executes (loops multiply by
  // their trip counts), times the waves of the grid. 0 when the kernel has
  // neither (copies, elementwise kernels). For a promoted gemm whose sizes
  // are not tile multiples the MFMA count includes the padding.
  double flops = 0;
  std::string flops_from;  // "2*M*N*K", "MFMAs executed" or "" (flops == 0)
  // Global memory traffic by buffer access mode, each element counted once:
  // readonly and readwrite buffers are read (Arg::SizeBytes()), writeonly and
  // readwrite ones written.
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
};

// The work of `k` (see KernelWork). Pure: no validation beyond what the
// counts need; a kernel with `workgroup auto` counts its gemm op only.
KernelWork WorkOf(const Kernel& k);

// Throughput of `work` done in `milliseconds` (> 0): TFLOP/s (0 when
// work.flops is 0) and GB/s of global memory (bytes read + written).
double Tflops(const KernelWork& work, double milliseconds);
double GigabytesPerSecond(const KernelWork& work, double milliseconds);

// One report line for a kernel time, e.g. "12.345 us: 1.234 TFLOP/s
// (2*M*N*K = 8388608 FLOP), 45.6 GB/s (327680 B read + 262144 B written)";
// the TFLOP/s part only when work.flops > 0. `milliseconds` > 0.
std::string FormatThroughput(const KernelWork& work, double milliseconds);

}  // namespace kir

#endif  // KIRC_HW_RUN_WORK_H_
