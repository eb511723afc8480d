// Helpers for the emulator's tests: compiling KIR through the C++ API,
// deterministic test data, byte conversions and hand-written kernels.
#ifndef KIRC_HW_EMU_TEST_UTIL_H_
#define KIRC_HW_EMU_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/api/compile.h"
#include "hw/emu/emulator.h"
#include "testdata/test_kernels.h"

namespace kir::emu::testing {

inline constexpr char kLlvmBin[] = "/usr/lib/llvm-22/bin";

using ::kir::testing::ReadTestFile;  // testdata/test_kernels.h
// Runs the assembly `text` for `mcpu` with the arguments of `a` (which
// receives the buffers' final bytes): read in process (RunAssembly), or,
// with `object`, as the code object llvm-mc 22 and ld.lld make of it
// (BuildCodeObject, RunCodeObject). Errors: the build's or the run's.
absl::StatusOr<EmuStats> RunTextOrObject(const std::string& text, const std::string& mcpu, LaunchArgs& a,
                                         bool object);

// CompileText for `mcpu`.
absl::StatusOr<CompileResult> CompileKir(const std::string& kir_text, const std::string& mcpu);

template <typename T>
std::vector<uint8_t> ToBytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T>
std::vector<T> FromBytes(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}
template <typename T>
std::vector<uint8_t> Scalar(T v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// Deterministic pseudo-random values.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : s_(seed * 2862933555777941757ull + 3037000493ull) {}
  uint32_t Next();
  // Uniform in [lo, hi).
  double Uniform(double lo, double hi);
 private:
  uint64_t s_;
};
// f16 / bf16 bit patterns of n values with magnitudes in [2^-4, 2) and random
// signs (sums and products of two stay exact in f32).
std::vector<uint16_t> RandomF16(size_t n, uint64_t seed);
std::vector<uint16_t> RandomBf16(size_t n, uint64_t seed);
std::vector<float> RandomF32(size_t n, uint64_t seed);

// A kernel written by hand for RunAssembly: `body` (instructions, one per
// line) wrapped with the .amdhsa_kernel directives and v5 metadata for
// `args` buffers (each "name:global_buffer" or "name:by_value:4").
struct HandKernel {
  std::string name = "k";
  std::string mcpu = "gfx942";
  std::vector<std::string> args;  // e.g. {"A:global_buffer", "n:by_value:4"}
  int workgroup = 64;
  int vgprs = 32, sgprs = 32, agprs = 0;
  int lds_bytes = 0;
  std::string extra_directives;
  std::string body;
  std::string Text() const;
};

// Runs `body` in one wave of 64 lanes (HandKernel for `mcpu`, args in and
// out): lane l's words in[w*l .. w*l+w-1] (w = `words_per_lane`: 1, 2 or 4) are
// in v1..vw, s7 holds 0x12345678, and `body` writes v(w+1)..v(2w), which are
// stored to out[w*l .. w*l+w-1] (through the aligned tuples v[12:..] and
// v[16:..], which gfx90a and later want). v10 holds the lane's byte offset
// and s[8:11] the two buffer addresses: `body` must keep them. Run from the
// assembly text, or with `object` as the code object llvm-mc 22 and ld.lld
// build (RunTextOrObject). Returns out (64 * w words) or the error.
absl::StatusOr<std::vector<uint32_t>> RunLaneBody(const std::string& body, const std::vector<uint32_t>& in,
                                                  int words_per_lane, bool object, const std::string& mcpu);

// A wave64 kernel of one MFMA, for probing MFMA semantics: lane l loads its
// A and B operands (`ab_regs` VGPRs each, at most 8) from byte 4 * ab_regs * l
// of the first and second buffer arguments and, when `c_from_memory`, its C
// operand (`cd_regs` VGPRs, at most 16) from byte 4 * cd_regs * l of the
// third (else srcC is the constant 0), runs `instr` (the mnemonic, then any
// modifiers: "v_mfma_f32_16x16x128_f8f6f4 cbsz:1") and stores D at byte
// 4 * cd_regs * l of the third. Registers: A v[8:], B v[16:], C v[24:], D
// after C. 32 wait states follow the MFMA, more than any result latency.
std::string OneMfmaKernel(const std::string& mcpu, const std::string& instr, int ab_regs, int cd_regs,
                          bool c_from_memory);

// C = A * B^T (A M x K, B N x K, both row-major) in double, compared with
// the f32 result C (M x N) to 1e-5 relative (absolute below 1).
void CheckGemm(const std::vector<double>& A, const std::vector<double>& B, const std::vector<float>& C, int M,
               int N, int K);
std::vector<double> F16ToDoubles(const std::vector<uint16_t>& v);
std::vector<double> Bf16ToDoubles(const std::vector<uint16_t>& v);

// OpenCL C compiled by clang-22 for `mcpu` (and `extra_flags`) and linked
// with ld.lld (shared/docs/llvm-baselines.md): the code object's bytes.
absl::StatusOr<std::string> CompileOpenCl(const std::string& source, const std::string& mcpu,
                                          const std::vector<std::string>& extra_flags = {});

}  // namespace kir::emu::testing

#endif  // KIRC_HW_EMU_TEST_UTIL_H_
