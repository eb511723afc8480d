#include "hw/run/work.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

// MFMA multiply-adds one wave executes in `body` (m*n*k per MFMA).
double MfmaMacsPerWave(const std::vector<Op>& body) {
  double macs = 0;
  for (const Op& op : body) {
    if (op.kind == OpKind::kMfma) {
      if (const MfmaDesc* m = LookupMfma(op.mfma)) macs += double(m->m) * m->n * m->k;
    } else if (op.kind == OpKind::kFor) {
      macs += double(ForTripCount(op)) * MfmaMacsPerWave(op.body);
    }
  }
  return macs;
}

}  // namespace

KernelWork WorkOf(const Kernel& k) {
  KernelWork w;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer) continue;
    if (a.access != Access::kWriteOnly) w.bytes_read += a.SizeBytes();
    if (a.access != Access::kReadOnly) w.bytes_written += a.SizeBytes();
  }
  for (const Op& op : k.body) {
    if (op.kind != OpKind::kGemm) continue;
    const Arg* c = k.FindArg(op.gemm.c);
    const Arg* a = k.FindArg(op.gemm.a);
    if (c == nullptr || a == nullptr || c->shape.size() != 2 || a->shape.size() != 2) continue;
    const double m = double(c->shape[0]), n = double(c->shape[1]);
    const double kk = double(op.gemm.a_km ? a->shape[0] : a->shape[1]);
    w.flops += 2 * m * n * kk;
    w.flops_from = "2*M*N*K";
  }
  if (!w.flops_from.empty()) return w;
  const double macs = MfmaMacsPerWave(k.body);
  if (macs > 0) {
    const int64_t waves_per_wg = (k.WorkgroupThreads() + 63) / 64;
    w.flops = 2 * macs * double(waves_per_wg) * double(k.grid[0]) * double(k.grid[1]) * double(k.grid[2]);
    w.flops_from = "MFMAs executed";
  }
  return w;
}

double Tflops(const KernelWork& work, double milliseconds) { return work.flops / (milliseconds * 1e-3) * 1e-12; }

double GigabytesPerSecond(const KernelWork& work, double milliseconds) {
  return double(work.bytes_read + work.bytes_written) / (milliseconds * 1e-3) * 1e-9;
}

std::string FormatThroughput(const KernelWork& work, double milliseconds) {
  std::string t = absl::StrFormat("%.3f us:", milliseconds * 1e3);
  if (work.flops > 0)
    absl::StrAppend(&t, absl::StrFormat(" %.3f TFLOP/s (%s = %.0f FLOP),", Tflops(work, milliseconds),
                                        work.flops_from, work.flops));
  absl::StrAppend(&t, absl::StrFormat(" %.1f GB/s (%d B read + %d B written)", GigabytesPerSecond(work, milliseconds),
                                      work.bytes_read, work.bytes_written));
  return t;
}

}  // namespace kir
