#include "hw/run/host_memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/reference/interpreter.h"

namespace kir {
namespace {

// Fixed allowance beyond the buffers: the binary, the compiled kernel and code
// object, the emulator's waves and LDS, small tables.
constexpr int64_t kFixedAllowance = int64_t{256} << 20;

std::string Gib(int64_t bytes) {
  return absl::StrFormat("%.2f GiB", static_cast<double>(bytes) / (1 << 30));
}

// A saturating a + b * c for non-negative values.
int64_t AddMul(int64_t a, int64_t b, int64_t c) {
  constexpr int64_t kMax = INT64_MAX;
  if (c != 0 && b > (kMax - a) / c) return kMax;
  return a + b * c;
}

// The first number on the line of `path` that starts with `key` (or of the
// whole file if `key` is empty); -1 if absent. "max" reads as -1.
int64_t ReadNumber(const std::string& path, const std::string& key) {
  std::ifstream f(path);
  if (!f) return -1;
  std::string line;
  while (std::getline(f, line)) {
    if (!key.empty() && line.rfind(key, 0) != 0) continue;
    std::istringstream in(key.empty() ? line : line.substr(key.size()));
    int64_t v = -1;
    if (in >> v) return v;
    return -1;
  }
  return -1;
}

}  // namespace

int64_t RunHostBytes(const Kernel& k, int64_t device_bytes_per_buffer_byte, bool concurrent) {
  int64_t buffers = 0, per_element = 0;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer) continue;
    const int64_t b = std::max<int64_t>(a.SizeBytes(), 0);
    buffers = AddMul(buffers, b, 1);
    per_element = AddMul(per_element, b / ElemBytes(a.elem), InterpBookkeepingBytesPerElement());
  }
  // RunAndCheck keeps the inputs and the device's outputs throughout.
  const int64_t device = AddMul(AddMul(0, buffers, 2), buffers, device_bytes_per_buffer_byte);
  // The reference phase: the reference's result, and in random mode the
  // magnitude shadow's inputs while the shadow runs (RunAndCheck).
  const int64_t reference = AddMul(AddMul(0, buffers, 4), per_element, 1);
  if (concurrent) {  // both at once; the inputs and outputs (2 * buffers) are shared
    if (device == INT64_MAX || reference == INT64_MAX) return INT64_MAX;
    return AddMul(AddMul(device, reference - 2 * buffers, 1), kFixedAllowance, 1);
  }
  return AddMul(std::max(device, reference), kFixedAllowance, 1);
}

int64_t AvailableHostBytes(std::string* source) {
  int64_t best = -1;
  auto consider = [&](int64_t v, std::string why) {
    if (v < 0) return;
    if (best < 0 || v < best) {
      best = v;
      *source = std::move(why);
    }
  };
  // Address space: everything mapped counts, calloc'ed bookkeeping included.
  const int64_t vm_kib = ReadNumber("/proc/self/status", "VmSize:");
  const int64_t data_kib = ReadNumber("/proc/self/status", "VmData:");
  for (auto [resource, name, used_kib] :
       {std::tuple{RLIMIT_AS, "the address-space limit (ulimit -v)", vm_kib},
        std::tuple{RLIMIT_DATA, "the data-segment limit (ulimit -d)", data_kib}}) {
    rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) continue;
    const int64_t limit = static_cast<int64_t>(std::min<rlim_t>(rl.rlim_cur, INT64_MAX));
    consider(std::max<int64_t>(0, limit - std::max<int64_t>(used_kib, 0) * 1024),
             absl::StrCat(name, ", ", Gib(limit)));
  }
  // cgroup v2 (containers, systemd-run -p MemoryMax=...).
  const int64_t cg_max = ReadNumber("/sys/fs/cgroup/memory.max", "");
  if (cg_max > 0) {
    const int64_t cur = std::max<int64_t>(0, ReadNumber("/sys/fs/cgroup/memory.current", ""));
    consider(std::max<int64_t>(0, cg_max - cur), absl::StrCat("the cgroup's memory.max, ", Gib(cg_max)));
  }
  const int64_t avail_kib = ReadNumber("/proc/meminfo", "MemAvailable:");
  if (avail_kib >= 0) consider(avail_kib * 1024, "the machine's available memory (MemAvailable)");
  return best;
}

absl::Status CheckHostMemory(const Kernel& k, int64_t need, int64_t available,
                             const std::string& source) {
  if (available < 0 || need <= available) return absl::OkStatus();
  std::vector<std::pair<int64_t, std::string>> bufs;
  for (const Arg& a : k.args)
    if (a.kind == Arg::Kind::kBuffer) bufs.push_back({a.SizeBytes(), a.name});
  std::sort(bufs.begin(), bufs.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (bufs.size() > 3) bufs.resize(3);
  std::vector<std::string> names;
  for (const auto& [b, n] : bufs) names.push_back(absl::StrCat(n, " ", Gib(b)));
  return absl::ResourceExhaustedError(absl::StrCat(
      "kernel '", k.name, "': this run needs about ", Gib(need), " of host memory (largest buffers: ",
      absl::StrJoin(names, ", "),
      "; each buffer is held as input, output and reference, beside the emulator's and the "
      "reference's bookkeeping), but only ", Gib(available), " is available (", source,
      "); raise the limit, run on a machine with more memory, or run a smaller instance of the "
      "kernel"));
}

}  // namespace kir
