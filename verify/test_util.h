// Helpers for the verifier's tests: testdata kernels, compiling KIR text and
// verifying the result.
#ifndef KIRC_VERIFY_TEST_UTIL_H_
#define KIRC_VERIFY_TEST_UTIL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/api/compile.h"
#include "compiler/ir/kernel.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/isa/lowered_kernel.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"
#include "verify/verify.h"

namespace kir::vfy::testing {

using ::kir::testing::ReadTestFile;  // testdata/test_kernels.h
// Names (without .kir) of testdata/kernels/*.kir, sorted.
std::vector<std::string> TestdataKernels();

struct Compiled {
  Kernel kernel;  // as parsed
  CompileResult result;
};
// Parses and compiles `text` for `mcpu`.
absl::StatusOr<Compiled> CompileKir(const std::string& text, const std::string& mcpu);
// True if `st` says the kernel uses an instruction or element type `mcpu`
// lacks (a bf16 MFMA on gfx908, fp8 on gfx908/90a).
bool LacksInstruction(const absl::Status& st);

// Verifies `c` (its final code, or `code` instead when given).
VerifyResult Verify(const Compiled& c, const LoweredKernel* code = nullptr, const VerifyOptions& opts = {});

int CountStatus(const VerifyResult& r, AccessVerdict::Status s);

// A compiled kernel and a copy of its final code for a test to edit (the
// negative and LDS DMA tests): instructions found by their assembly text,
// and the copy verified.
struct Subject {
  Compiled c;
  LoweredKernel code;  // a copy to edit
  // The assembly text of instruction i of `code`.
  std::string Text(size_t i) const { return InstructionText(*c.result.target, code.mir.insts[i]); }
  // Index of the only instruction whose text contains `needle` (none or
  // several fail the test and give 0 or the first).
  size_t Find(const std::string& needle) const {
    std::vector<size_t> hits = FindAll(needle);
    EXPECT_EQ(hits.size(), 1u) << "instructions containing '" << needle << "'";
    return hits.empty() ? 0 : hits[0];
  }
  MInst& At(const std::string& needle) { return code.mir.insts[Find(needle)]; }
  // Indices of every instruction whose text contains `needle`.
  std::vector<size_t> FindAll(const std::string& needle) const {
    std::vector<size_t> hits;
    for (size_t i = 0; i < code.mir.insts.size(); ++i)
      if (absl::StrContains(Text(i), needle)) hits.push_back(i);
    return hits;
  }
  void Insert(size_t before, MInst mi) { code.mir.insts.insert(code.mir.insts.begin() + static_cast<long>(before), mi); }
  VerifyResult Check() const { return Verify(c, &code); }
  // The text of every instruction of `code`, one a line.
  std::string Asm() const {
    std::string s;
    for (size_t i = 0; i < code.mir.insts.size(); ++i) absl::StrAppend(&s, Text(i), "\n");
    return s;
  }
};

// Magic-number division, guarded buffer accesses (v_cndmask to 0x80000000)
// and a guarded LDS store (EXEC mask), small enough for the oracle (the
// mutation and negative tests' guard_div).
inline constexpr char kGuardDiv[] = R"(kernel guard_div
workgroup 64 2 1
grid 3 2 1
arg A : f32[100, 37] strides [37, 1] readonly
arg B : f16[100, 37] strides [40, 1] writeonly
arg Q : f32[70] strides [1] writeonly
lds L : f32[8, 33] pad 3
  %a = load guarded A[wg.x * 40 + tid.x - 3, (tid.y + wg.y * 2) * 12 - 1] : f32
  store guarded L[tid.y * 4 + 1, tid.x floordiv 7 - 2], %a
  %h = cvt %a : f16
  store guarded B[(tid.x + wg.x * 64) floordiv 3, (tid.x * 5 - wg.y * 7) mod 37], %h
  store Q[(tid.x + wg.x * 64 + tid.y * 7) floordiv 3], %a
end
)";

}  // namespace kir::vfy::testing

#endif  // KIRC_VERIFY_TEST_UTIL_H_
