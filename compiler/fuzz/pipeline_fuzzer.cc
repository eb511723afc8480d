// libFuzzer target: the whole pipeline (parse, validate, promote, lower,
// schedule, allocate, waitcnt, hazards, assembly text) through kir::CompileText
// on small kernels, for every target (issue 8). Errors are fine; a crash, a
// sanitizer report, an exception turned into an Internal error ("please report
// it") or a kernel that compiles but prints no assembly is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "compiler/api/compile.h"

namespace {

// Inputs above this are skipped, so one run stays small and cannot take long
// (a kernel's compile time grows with its text; loops are rolled).
constexpr size_t kMaxInputBytes = 4096;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInputBytes) return -1;  // not added to the corpus
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* mcpu : {"gfx908", "gfx90a", "gfx942", "gfx950"}) {
    kir::CompileOptions opts;
    opts.mcpu = mcpu;
    absl::StatusOr<kir::CompileResult> r = kir::CompileText(text, "fuzz.kir", opts);
    if (r.ok()) {
      if (r->assembly.empty()) {
        std::fprintf(stderr, "%s: compiled to empty assembly\n", mcpu);
        std::abort();
      }
      continue;
    }
    if (r.status().code() == absl::StatusCode::kInternal) {
      std::fprintf(stderr, "%s: %s\n", mcpu, std::string(r.status().message()).c_str());
      std::abort();
    }
    // A parse error is the same for every target.
    if (r.status().message().find("error: expected") != absl::string_view::npos) break;
  }
  return 0;
}
