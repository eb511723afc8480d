#include "hw/emu/test_util.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/float_bits.h"
#include "gtest/gtest.h"

namespace kir::emu::testing {

absl::StatusOr<CompileResult> CompileKir(const std::string& kir_text, const std::string& mcpu) {
  CompileOptions o;
  o.mcpu = mcpu;
  return CompileText(kir_text, "test.kir", o);
}

absl::StatusOr<EmuStats> RunTextOrObject(const std::string& text, const std::string& mcpu, LaunchArgs& a,
                                         bool object) {
  if (!object) return RunAssembly(text, mcpu, a);
  absl::StatusOr<std::string> obj = BuildCodeObject(kLlvmBin, text, mcpu);
  if (!obj.ok()) return obj.status();
  return RunCodeObject(kLlvmBin, *obj, "", mcpu, a);
}

absl::StatusOr<std::vector<uint32_t>> RunLaneBody(const std::string& body, const std::vector<uint32_t>& in,
                                                  int words_per_lane, bool object, const std::string& mcpu) {
  const int w = words_per_lane;
  if (w != 1 && w != 2 && w != 4) return absl::InvalidArgumentError("RunLaneBody: 1, 2 or 4 words per lane");
  auto tuple = [w](int lo) { return w == 1 ? absl::StrCat("v", lo) : absl::StrCat("v[", lo, ":", lo + w - 1, "]"); };
  const char* suffix[] = {"", "", "x2", "", "x4"};
  std::string in_movs, out_movs;
  for (int i = 0; i < w; ++i) {
    absl::StrAppend(&in_movs, "  v_mov_b32 v", 1 + i, ", v", 12 + i, "\n");
    absl::StrAppend(&out_movs, "  v_mov_b32 v", 16 + i, ", v", 1 + w + i, "\n");
  }
  HandKernel k;
  k.mcpu = mcpu;
  k.args = {"in:global_buffer", "out:global_buffer"};
  k.body = absl::StrCat("\n  s_load_dwordx4 s[8:11], s[0:1], 0x0\n  v_and_b32 v0, 0x3ff, v0\n  v_lshlrev_b32 v10, ",
                        w == 1 ? 2 : w == 2 ? 3 : 4, ", v0\n  s_mov_b32 s7, 0x12345678\n  s_waitcnt lgkmcnt(0)\n  global_load_dword", suffix[w],
                        " ", tuple(12), ", v10, s[8:9]\n  s_waitcnt vmcnt(0)\n", in_movs, body, "\n", out_movs,
                        "  global_store_dword", suffix[w], " v10, ", tuple(16), ", s[10:11]\n  s_waitcnt vmcnt(0)\n"
                        "  s_endpgm");
  LaunchArgs a;
  a.args = {ToBytes(in), ToBytes(std::vector<uint32_t>(64 * w))};
  absl::StatusOr<EmuStats> s = RunTextOrObject(k.Text(), mcpu, a, object);
  if (!s.ok()) return s.status();
  return FromBytes<uint32_t>(a.args[1]);
}

uint32_t Lcg::Next() {
  s_ = s_ * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<uint32_t>(s_ >> 33);
}

double Lcg::Uniform(double lo, double hi) { return lo + (hi - lo) * (Next() / 2147483648.0); }

std::vector<uint16_t> RandomF16(size_t n, uint64_t seed) {
  Lcg r(seed);
  std::vector<uint16_t> v(n);
  for (auto& x : v) {
    double m = std::ldexp(1.0, -4) * std::pow(32.0, r.Uniform(0, 1));  // [2^-4, 2)
    x = F32ToF16Bits(static_cast<float>(r.Next() & 1 ? -m : m));
  }
  return v;
}

std::vector<uint16_t> RandomBf16(size_t n, uint64_t seed) {
  Lcg r(seed);
  std::vector<uint16_t> v(n);
  for (auto& x : v) {
    double m = std::ldexp(1.0, -4) * std::pow(32.0, r.Uniform(0, 1));
    x = F32ToBf16Bits(static_cast<float>(r.Next() & 1 ? -m : m));
  }
  return v;
}

std::vector<float> RandomF32(size_t n, uint64_t seed) {
  Lcg r(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(r.Uniform(-100, 100));
  return v;
}

std::string HandKernel::Text() const {
  const bool acc = mcpu != "gfx908";
  int kernarg = 0;
  std::string meta_args;
  for (const std::string& a : args) {
    std::vector<std::string> p = absl::StrSplit(a, ':');
    int size = p[1] == "global_buffer" ? 8 : std::stoi(p[2]);
    kernarg = (kernarg + size - 1) / size * size;
    absl::StrAppend(&meta_args, "      - .name: ", p[0], "\n        .offset: ", kernarg, "\n        .size: ", size,
                    "\n        .value_kind: ", p[1], "\n",
                    p[1] == "global_buffer" ? "        .address_space: global\n" : "");
    kernarg += size;
  }
  int accum = (vgprs + 3) / 4 * 4;
  std::string s;
  absl::StrAppend(&s, "  .amdgcn_target \"amdgcn-amd-amdhsa--", mcpu, "\"\n  .amdhsa_code_object_version 5\n",
                  "  .text\n  .globl ", name, "\n  .p2align 8\n  .type ", name, ",@function\n", name, ":\n", body,
                  "\n.Lfunc_end:\n  .size ", name, ", .Lfunc_end-", name, "\n\n");
  absl::StrAppend(&s, "  .rodata\n  .p2align 6\n  .amdhsa_kernel ", name, "\n",
                  "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n    .amdhsa_kernarg_size ", kernarg, "\n",
                  "    .amdhsa_group_segment_fixed_size ", lds_bytes, "\n",
                  "    .amdhsa_next_free_vgpr ", acc && agprs ? accum + agprs : std::max(vgprs, agprs), "\n",
                  "    .amdhsa_next_free_sgpr ", sgprs, "\n", acc ? absl::StrCat("    .amdhsa_accum_offset ", accum, "\n") : "",
                  "    .amdhsa_float_denorm_mode_32 3\n", extra_directives, "  .end_amdhsa_kernel\n\n");
  absl::StrAppend(&s, "  .amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.kernels:\n  - .name: ", name,
                  "\n    .symbol: ", name, ".kd\n    .kernarg_segment_size: ", kernarg,
                  "\n    .kernarg_segment_align: 8\n    .group_segment_fixed_size: ", lds_bytes,
                  "\n    .private_segment_fixed_size: 0\n    .wavefront_size: 64\n    .sgpr_count: ", sgprs + 6,
                  "\n    .vgpr_count: ", vgprs + agprs, "\n    .max_flat_workgroup_size: ", workgroup,
                  "\n    .reqd_workgroup_size: [ ", workgroup, ", 1, 1 ]\n    .args:\n", meta_args,
                  "amdhsa.target: amdgcn-amd-amdhsa--", mcpu, "\n...\n  .end_amdgpu_metadata\n");
  return s;
}

std::string OneMfmaKernel(const std::string& mcpu, const std::string& instr, int ab_regs, int cd_regs,
                          bool c_from_memory) {
  HandKernel k;
  k.mcpu = mcpu;
  k.args = {"A:global_buffer", "B:global_buffer", "C:global_buffer"};
  k.vgprs = 24 + 2 * cd_regs;
  auto regs = [](int lo, int n) { return n == 1 ? absl::StrCat("v", lo) : absl::StrCat("v[", lo, ":", lo + n - 1, "]"); };
  std::string body = absl::StrCat(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dwordx2 s[6:7], s[0:1], 0x8
  s_load_dwordx2 s[8:9], s[0:1], 0x10
  v_and_b32 v0, 0x3ff, v0
  v_mul_u32_u24 v1, )", 4 * ab_regs, R"(, v0
  v_mul_u32_u24 v6, )", 4 * cd_regs, R"(, v0
  s_waitcnt lgkmcnt(0)
)");
  const char* load[] = {"", "global_load_dword", "global_load_dwordx2", "global_load_dwordx3", "global_load_dwordx4"};
  for (int r = 0; r < ab_regs; r += 4) {
    const int n = std::min(4, ab_regs - r);
    absl::StrAppend(&body, "  ", load[n], " ", regs(8 + r, n), ", v1, s[4:5] offset:", 4 * r, "\n");
    absl::StrAppend(&body, "  ", load[n], " ", regs(16 + r, n), ", v1, s[6:7] offset:", 4 * r, "\n");
  }
  if (c_from_memory)
    for (int r = 0; r < cd_regs; r += 4)
      absl::StrAppend(&body, "  global_load_dwordx4 ", regs(24 + r, 4), ", v6, s[8:9] offset:", 4 * r, "\n");
  absl::StrAppend(&body, "  s_waitcnt vmcnt(0)\n  s_nop 4\n");
  const size_t sp = instr.find(' ');
  absl::StrAppend(&body, "  ", instr.substr(0, sp), " ", regs(24 + cd_regs, cd_regs), ", ", regs(8, ab_regs), ", ",
                  regs(16, ab_regs), ", ", c_from_memory ? regs(24, cd_regs) : "0",
                  sp == std::string::npos ? "" : instr.substr(sp), "\n");
  for (int n = 0; n < 4; ++n) absl::StrAppend(&body, "  s_nop 7\n");
  for (int r = 0; r < cd_regs; r += 4)
    absl::StrAppend(&body, "  global_store_dwordx4 v6, ", regs(24 + cd_regs + r, 4), ", s[8:9] offset:", 4 * r, "\n");
  absl::StrAppend(&body, "  s_waitcnt vmcnt(0)\n  s_endpgm\n");
  k.body = body;
  return k.Text();
}

void CheckGemm(const std::vector<double>& A, const std::vector<double>& B, const std::vector<float>& C, int M,
               int N, int K) {
  ASSERT_EQ(C.size(), static_cast<size_t>(M * N));
  int bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += A[i * K + k] * B[j * K + k];
      double got = C[i * N + j];
      if (!(std::fabs(got - want) <= 1e-5 * std::max(1.0, std::fabs(want))) && ++bad < 5)
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", want " << want;
    }
  EXPECT_EQ(bad, 0);
}

std::vector<double> F16ToDoubles(const std::vector<uint16_t>& v) {
  std::vector<double> d;
  for (uint16_t h : v) d.push_back(F16BitsToF32(h));
  return d;
}

std::vector<double> Bf16ToDoubles(const std::vector<uint16_t>& v) {
  std::vector<double> d;
  for (uint16_t h : v) d.push_back(Bf16BitsToF32(h));
  return d;
}

absl::StatusOr<std::string> CompileOpenCl(const std::string& source, const std::string& mcpu,
                                          const std::vector<std::string>& extra_flags) {
  absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create("emu-cl.");
  if (!dir.ok()) return dir.status();
  const std::string cl = dir->File("k.cl"), obj = dir->File("k.o"), so = dir->File("k.hsaco");
  absl::Status w = WriteFileBytes(cl, source);
  if (!w.ok()) return w;
  const std::string bin = kLlvmBin;
  std::vector<std::string> argv = {bin + "/clang", "-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header",
                                   "-target", "amdgcn-amd-amdhsa", "-mcpu=" + mcpu, "-nogpulib", "-O3", "-w"};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  argv.insert(argv.end(), {"-c", cl, "-o", obj});
  absl::StatusOr<ProcessResult> r = RunProcess(argv);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) return absl::InternalError("clang failed: " + r->stderr_text);
  r = RunProcess({bin + "/ld.lld", "-shared", obj, "-o", so});
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) return absl::InternalError("ld.lld failed: " + r->stderr_text);
  return ReadFileBytes(so);
}

}  // namespace kir::emu::testing
