#include "hw/run/host_memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/analysis/index_analysis.h"
#include "compiler/ir/paged_bytes.h"
#include "compiler/reference/interpreter.h"
#include "hw/check/compare.h"

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

namespace {

// Pages of buffer `name` one workgroup may touch through the loads and
// stores among `ops` (loops in `scope`), saturating; `gemm`: a gemm op names
// it. Per access: the fewer of one page per element a thread moves (vector
// elements times the trip counts around it, times the workgroup's threads)
// and the pages of the byte range the access spans within one workgroup
// (its byte offset's terms other than wg.x/y/z: their ranges are those of
// the whole kernel, so a bound), plus one for a range straddling a page.
int64_t PagesPerWorkgroup(const Kernel& k, const std::vector<Op>& ops, const std::string& name, IndexScope& scope,
                          int64_t trips_around, bool* gemm) {
  const int64_t page = static_cast<int64_t>(PagedBytes::kPageBytes);
  const int64_t threads = k.workgroup[0] * k.workgroup[1] * k.workgroup[2];
  int64_t n = 0;
  for (const Op& op : ops) {
    if (op.kind == OpKind::kGemm && (op.gemm.a == name || op.gemm.b == name || op.gemm.c == name)) *gemm = true;
    if (op.kind == OpKind::kFor) {
      const int64_t trips = std::max<int64_t>(ForTripCount(op), 1);
      const int64_t last = op.lo + (trips - 1) * op.step;
      auto saved = scope.loops.find(op.ivar) != scope.loops.end()
                       ? std::optional<IndexScope::Loop>(scope.loops[op.ivar])
                       : std::nullopt;
      scope.loops[op.ivar] = IndexScope::Loop{op.lo, last, op.step};
      n = AddMul(n, PagesPerWorkgroup(k, op.body, name, scope, AddMul(0, trips_around, trips), gemm), 1);
      if (saved) scope.loops[op.ivar] = *saved; else scope.loops.erase(op.ivar);
      continue;
    }
    if ((op.kind != OpKind::kLoad && op.kind != OpKind::kStore && op.kind != OpKind::kLdsDma) || op.mem != name)
      continue;
    const Arg* a = k.FindArg(name);
    const int64_t elements = AddMul(0, AddMul(0, std::max(1, op.type.width), trips_around), threads);
    int64_t pages = elements;  // one page per element moved
    if (a != nullptr && a->strides.size() == op.index.size()) {
      const int64_t eb = ElemBytes(a->elem);
      int64_t span = 0;  // bytes between the lowest and highest element start within one workgroup
      bool ok = true;
      for (size_t d = 0; d < op.index.size() && ok; ++d) {
        absl::StatusOr<AffineForm> f = op.index[d] ? Affine(*op.index[d], scope) : absl::InternalError("null");
        if (!f.ok()) {
          ok = false;
          break;
        }
        const int64_t scale = AddMul(0, std::max<int64_t>(a->strides[d], 0), eb);
        for (const AffineTerm& t : f->terms) {
          if (t.atom->kind == Atom::Kind::kWg) continue;
          const int64_t width = t.atom->range.hi - t.atom->range.lo;
          span = AddMul(span, AddMul(0, width, t.coeff < 0 ? -t.coeff : t.coeff), scale);
        }
        if (static_cast<int>(d) == op.along)
          span = AddMul(span, std::max(1, op.type.width) - 1, scale);
      }
      if (ok) pages = std::min(pages, AddMul(span, eb + 2 * page - 1, 1) / page);
    }
    n = AddMul(n, pages, 1);
  }
  return n;
}

// An upper bound of the pages of buffer `a` holding the elements of its
// shape (what a gemm op reads of A and B and reads or writes of C: every
// element, nothing outside the shape), saturating: for a dimension d, the
// lines along d (the product of the other extents) times the pages one line
// spans ((extent - 1) x |stride| + 1 elements of bytes, plus one page for a
// line straddling a page boundary); the fewest over d. So a strided view
// of a big allocation (rows far apart) counts rows x pages per row, not the
// span of the allocation (fresh-user review 11 F8).
int64_t ShapePagesBound(const Arg& a) {
  const int64_t page = static_cast<int64_t>(PagedBytes::kPageBytes);
  const int64_t eb = ElemBytes(a.elem);
  const size_t rank = std::min(a.shape.size(), a.strides.size());
  if (rank == 0) return 2;
  int64_t best = INT64_MAX;
  for (size_t d = 0; d < rank; ++d) {
    int64_t lines = 1;
    for (size_t e = 0; e < rank; ++e)
      if (e != d) lines = AddMul(0, lines, std::max<int64_t>(a.shape[e], 0));
    const int64_t stride = a.strides[d] < 0 ? -a.strides[d] : a.strides[d];
    const int64_t line_bytes = AddMul(eb, AddMul(0, std::max<int64_t>(a.shape[d] - 1, 0), stride), eb);
    best = std::min(best, AddMul(0, lines, AddMul(line_bytes, 1, 2 * page - 1) / page));
  }
  return best;
}

// Every buffer of `k` with its bytes.
std::vector<std::pair<const Arg*, int64_t>> Buffers(const Kernel& k) {
  std::vector<std::pair<const Arg*, int64_t>> v;
  for (const Arg& a : k.args)
    if (a.kind == Arg::Kind::kBuffer) v.push_back({&a, std::max<int64_t>(a.SizeBytes(), 0)});
  return v;
}

}  // namespace

namespace {

// Calls f(B, R) for every side buffer R of the record run (hw/check
// StoreRecordKernel: B#kind, and B#w with a converting store) of each
// buffer B of `k` it records.
template <typename F>
void ForEachSideBuffer(const Kernel& k, F f) {
  std::set<std::string> recorded;
  const Kernel records = StoreRecordKernel(k, &recorded);
  for (const std::string& name : recorded) {
    const Arg* b = k.FindArg(name);
    if (b == nullptr) continue;
    for (const std::string& side_name : {StoreKindBuffer(name), StoreValueBuffer(name)})
      if (const Arg* r = records.FindArg(side_name)) f(*b, *r);
  }
}

}  // namespace

int64_t TouchedBytesBound(const Kernel& k, const Arg& a, const WorkgroupRange& box) {
  const int64_t size = std::max<int64_t>(a.SizeBytes(), 0);
  bool gemm = false;
  IndexScope scope;
  scope.kernel = &k;
  const int64_t per_wg = PagesPerWorkgroup(k, k.body, a.name, scope, 1, &gemm);
  const int64_t page = static_cast<int64_t>(PagedBytes::kPageBytes);
  // A gemm op touches every element of the shapes of A, B and C (whatever
  // workgroups run) and nothing else: its promoted copies and epilogue guard
  // what lies outside the shape.
  if (gemm) return std::min(size, AddMul(0, ShapePagesBound(a), page));
  const WorkgroupRange r = box.Over(k.grid);
  int64_t pages = AddMul(0, per_wg, std::max<int64_t>(r.count(), 0));
  return std::min(size, AddMul(0, pages, page));
}

int64_t RunHostBytes(const Kernel& k, int64_t device_bytes_per_buffer_byte, bool concurrent, const WorkgroupRange& box,
                     int64_t device_bytes_per_untouched_byte, const std::set<std::string>& dense,
                     const Kernel* gemm_source) {
  const auto touched_bound = [&](const Arg& a) {
    int64_t t = TouchedBytesBound(k, a, box);
    if (gemm_source != nullptr)
      if (const Arg* s = gemm_source->FindArg(a.name); s != nullptr && s->kind == Arg::Kind::kBuffer)
        t = std::min(t, TouchedBytesBound(*gemm_source, *s, box));
    return t;
  };
  int64_t touched = 0, untouched_device = 0, per_element = 0, tables = 0, readonly = 0;
  for (const auto& [a, size] : Buffers(k)) {
    const bool whole = dense.count(a->name) > 0;
    const int64_t t = whole ? size : touched_bound(*a);
    if (a->access == Access::kReadOnly && !whole) {
      // Never written: its pages are read as generated inputs and never
      // materialised as output, reference or shadow (measured: 16 workgroups
      // of testdata/wide/rows_loop_f16.kir read 8192 pages of A in 30 MB);
      // counted once, as a margin.
      readonly = AddMul(readonly, t, 1);
      tables = AddMul(tables, size / static_cast<int64_t>(PagedBytes::kPageBytes) + 1, 5);
      continue;
    }
    if (whole) tables = AddMul(tables, size, 2);  // the inputs and the shadow's inputs, whole
    touched = AddMul(touched, t, 1);
    untouched_device = AddMul(untouched_device, size, device_bytes_per_untouched_byte);
    per_element = AddMul(per_element, t / ElemBytes(a->elem), InterpBookkeepingBytesPerElement());
    // Page tables of the inputs, output, reference, shadow and its inputs.
    tables = AddMul(tables, size / static_cast<int64_t>(PagedBytes::kPageBytes) + 1, 5);
  }
  // The random passes' record run (hw/check StoreRecordKernel): each
  // recorded buffer B gets side buffers B#kind (i32) and, with a converting
  // store, B#w (f32), of B's shape, written where B is written: per element
  // of B the run may touch, each side buffer's 4 bytes and the interpreter's
  // race record (2 x (4 + 16) = 40 bytes per element of a B with both),
  // in the reference phase, and a page table each.
  int64_t side = 0;
  ForEachSideBuffer(k, [&](const Arg& b, const Arg& r) {
    const int64_t size = std::max<int64_t>(b.SizeBytes(), 0);
    const int64_t elements = (dense.count(b.name) ? size : touched_bound(b)) / ElemBytes(b.elem);
    side = AddMul(side, elements, ElemBytes(r.elem) + InterpBookkeepingBytesPerElement());
    tables = AddMul(tables, std::max<int64_t>(r.SizeBytes(), 0) / static_cast<int64_t>(PagedBytes::kPageBytes) + 1, 1);
  });
  // The device's output (touched pages) and its own bytes.
  const int64_t device = AddMul(AddMul(touched, touched, device_bytes_per_buffer_byte), untouched_device, 1);
  // The reference phase: the output kept, the reference's result and the
  // magnitude shadow's (random mode), the interpreter's race records, the
  // record run's side buffers.
  const int64_t reference = AddMul(AddMul(AddMul(0, touched, 3), per_element, 1), side, 1);
  int64_t need;
  if (concurrent) {  // both at once; the output is counted once
    if (device == INT64_MAX || reference == INT64_MAX) return INT64_MAX;
    need = AddMul(device, reference - touched, 1);
  } else {
    need = std::max(device, reference);
  }
  return AddMul(AddMul(AddMul(need, tables, 1), readonly, 1), kFixedAllowance, 1);
}

int64_t RunAddressSpaceBytes(const Kernel& k, int64_t device_bytes_per_buffer_byte) {
  int64_t need = kFixedAllowance;
  for (const auto& [a, size] : Buffers(k)) {
    // Inputs, output, reference, shadow inputs and shadow; the device's and
    // the interpreter's race records.
    need = AddMul(need, size, 5 + std::max<int64_t>(device_bytes_per_buffer_byte, 0));
    need = AddMul(need, size / ElemBytes(a->elem), InterpBookkeepingBytesPerElement());
  }
  // The record run's side buffers and their race records, at full size too.
  ForEachSideBuffer(k, [&](const Arg&, const Arg& r) {
    const int64_t size = std::max<int64_t>(r.SizeBytes(), 0);
    need = AddMul(need, size, 1);
    need = AddMul(need, size / ElemBytes(r.elem), InterpBookkeepingBytesPerElement());
  });
  return need;
}

int64_t AvailableAddressSpace(std::string* source) {
  // Everything mapped counts against RLIMIT_AS; private writable mappings
  // (the sparse buffers) against RLIMIT_DATA.
  const int64_t vm_kib = ReadNumber("/proc/self/status", "VmSize:");
  const int64_t data_kib = ReadNumber("/proc/self/status", "VmData:");
  int64_t best = -1;
  for (auto [resource, name, used_kib] :
       {std::tuple{RLIMIT_AS, "the address-space limit (ulimit -v)", vm_kib},
        std::tuple{RLIMIT_DATA, "the data-segment limit (ulimit -d)", data_kib}}) {
    rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) continue;
    const int64_t limit = static_cast<int64_t>(std::min<rlim_t>(rl.rlim_cur, INT64_MAX));
    const int64_t left = std::max<int64_t>(0, limit - std::max<int64_t>(used_kib, 0) * 1024);
    if (best < 0 || left < best) {
      best = left;
      *source = absl::StrCat(name, ", ", Gib(limit), "; sparse buffers and race records count at full size there");
    }
  }
  // Without a limit, the x86-64 user address space (128 TiB) still bounds
  // the mappings.
  constexpr int64_t kUserSpace = int64_t{1} << 47;
  const int64_t left = std::max<int64_t>(0, kUserSpace - std::max<int64_t>(vm_kib, 0) * 1024);
  if (best < 0 || left < best) {
    best = left;
    *source = "the process's address space (128 TiB on x86-64), where sparse buffers and race records count at "
              "full size";
  }
  return best;
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
                             const std::string& source, bool address_space) {
  if (available < 0 || need <= available) return absl::OkStatus();
  std::vector<std::pair<int64_t, std::string>> bufs;
  for (const Arg& a : k.args)
    if (a.kind == Arg::Kind::kBuffer) bufs.push_back({a.SizeBytes(), a.name});
  std::sort(bufs.begin(), bufs.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (bufs.size() > 3) bufs.resize(3);
  std::vector<std::string> names;
  for (const auto& [b, n] : bufs) names.push_back(absl::StrCat(n, " ", Gib(b)));
  if (address_space)
    return absl::ResourceExhaustedError(absl::StrCat(
        "kernel '", k.name, "': this run maps about ", Gib(need), " of address space (largest buffers: ",
        absl::StrJoin(names, ", "),
        "; the sparse copies of every buffer and the race records are mapped at full size, whatever the run "
        "touches, so --workgroups does not help), but only ", Gib(available), " is available (", source,
        "); raise that limit or run a smaller instance of the kernel (smaller buffers)"));
  return absl::ResourceExhaustedError(absl::StrCat(
      "kernel '", k.name, "': this run needs about ", Gib(need), " of host memory (largest buffers: ",
      absl::StrJoin(names, ", "),
      "; every page the run may touch is held as output, reference and shadow, beside the emulator's and the "
      "reference's race records), but only ", Gib(available), " is available (", source,
      "); raise the limit, run on a machine with more memory, run fewer workgroups (kirc run "
      "--workgroups=X0:X1,Y0:Y1,Z0:Z1), or run a smaller instance of the kernel"));
}

}  // namespace kir
