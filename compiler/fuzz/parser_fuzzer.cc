// libFuzzer target: the KIR parser on arbitrary bytes (issue 8). It must
// return a Kernel or an error, never crash, and what it accepts must print and
// parse back to the same kernel (parser.h: parse(print(k)) == k).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "absl/strings/string_view.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<kir::Kernel> k = kir::ParseKernel(text, "fuzz.kir");
  if (!k.ok()) return 0;
  std::string printed = kir::PrintKernel(*k);
  absl::StatusOr<kir::Kernel> again = kir::ParseKernel(printed, "printed.kir");
  if (!again.ok() || !(*again == *k)) {
    std::fprintf(stderr, "round trip failed: %s\n--- printed:\n%s\n",
                 again.ok() ? "kernels differ" : std::string(again.status().message()).c_str(),
                 printed.c_str());
    std::abort();
  }
  return 0;
}
