// Issue 13, section 4: an unknown on a valid kernel is a defect. Kernels whose
// indices take floordiv and mod of one dividend by constants (3, 5, 6, 7, 9,
// 10, 12, 100, 1009), use the quotient to index another buffer, nest
// floordiv/mod of sums of thread and workgroup terms two and three deep, with
// negative intermediates, guarded and unguarded, 1-3-D workgroups and grids,
// on gfx908, gfx90a and gfx942. Before the verifier put the KIR indices and
// the machine's values in one canonical form (a quotient of one dividend is
// one atom on both sides; intervals see x - d * floor(x / d) in [0, d - 1]),
// some of their queries needed up to 15.9 million of the 20 million resource
// units and 48 s (past the 60 s backstop on a loaded machine: "canceled");
// now each needs at most about 20 thousand.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

struct Named {
  const char* name;
  const char* text;
};

const Named kKernels[] = {
    {"qr_d3_w64", R"(kernel qr_d3_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[342] strides [1] readonly
arg X : f32[342, 3] strides [3, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 3] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 3, (wg.x * 64 + tid.x) mod 3] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d5_w64", R"(kernel qr_d5_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[205] strides [1] readonly
arg X : f32[205, 5] strides [5, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 5] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 5, (wg.x * 64 + tid.x) mod 5] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d6_w64", R"(kernel qr_d6_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[171] strides [1] readonly
arg X : f32[171, 6] strides [6, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 6] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 6, (wg.x * 64 + tid.x) mod 6] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d7_w64", R"(kernel qr_d7_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[147] strides [1] readonly
arg X : f32[147, 7] strides [7, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 7] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 7, (wg.x * 64 + tid.x) mod 7] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d9_w64", R"(kernel qr_d9_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[114] strides [1] readonly
arg X : f32[114, 9] strides [9, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 9] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 9, (wg.x * 64 + tid.x) mod 9] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d10_w64", R"(kernel qr_d10_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[103] strides [1] readonly
arg X : f32[103, 10] strides [10, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 10] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 10, (wg.x * 64 + tid.x) mod 10] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d12_w64", R"(kernel qr_d12_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[86] strides [1] readonly
arg X : f32[86, 12] strides [12, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 12] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 12, (wg.x * 64 + tid.x) mod 12] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d100_w64", R"(kernel qr_d100_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[11] strides [1] readonly
arg X : f32[11, 100] strides [100, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 100] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 100, (wg.x * 64 + tid.x) mod 100] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d1009_w64", R"(kernel qr_d1009_w64
workgroup 64 1 1
grid 16 1 1
arg Q : f32[2] strides [1] readonly
arg X : f32[2, 1009] strides [1009, 1] readonly
arg Y : f32[1024] strides [1] writeonly
  %q = load Q[(wg.x * 64 + tid.x) floordiv 1009] : f32
  %v = load X[(wg.x * 64 + tid.x) floordiv 1009, (wg.x * 64 + tid.x) mod 1009] : f32
  %s = add %q, %v
  store Y[(wg.x * 64 + tid.x)], %s
end
)"},
    {"qr_d7_w256", R"(kernel qr_d7_w256
workgroup 256 1 1
grid 40 1 1
arg Q : f32[1463] strides [1] readonly
arg X : f32[1463, 7] strides [7, 1] readonly
arg Y : f32[10240] strides [1] writeonly
  %q = load Q[(wg.x * 256 + tid.x) floordiv 7] : f32
  %v = load X[(wg.x * 256 + tid.x) floordiv 7, (wg.x * 256 + tid.x) mod 7] : f32
  %s = add %q, %v
  store Y[(wg.x * 256 + tid.x)], %s
end
)"},
    {"qr_d1009_w256", R"(kernel qr_d1009_w256
workgroup 256 1 1
grid 40 1 1
arg Q : f32[11] strides [1] readonly
arg X : f32[11, 1009] strides [1009, 1] readonly
arg Y : f32[10240] strides [1] writeonly
  %q = load Q[(wg.x * 256 + tid.x) floordiv 1009] : f32
  %v = load X[(wg.x * 256 + tid.x) floordiv 1009, (wg.x * 256 + tid.x) mod 1009] : f32
  %s = add %q, %v
  store Y[(wg.x * 256 + tid.x)], %s
end
)"},
    {"qr2d_d3", R"(kernel qr2d_d3
workgroup 64 4 1
grid 8 1 1
arg Q : f32[235] strides [1] readonly
arg X : f32[234, 3] strides [3, 1] readonly
arg Y : f32[704] strides [1] writeonly
  %q = load guarded Q[(wg.x * 64 + tid.x + 64 * tid.y) floordiv 3] : f32
  %v = load guarded X[(wg.x * 64 + tid.x + 64 * tid.y) floordiv 3, (wg.x * 64 + tid.x + 64 * tid.y) mod 3] : f32
  %s = add %q, %v
  store guarded Y[(wg.x * 64 + tid.x + 64 * tid.y) - 3], %s
end
)"},
    {"qr2d_d7", R"(kernel qr2d_d7
workgroup 64 4 1
grid 8 1 1
arg Q : f32[101] strides [1] readonly
arg X : f32[100, 7] strides [7, 1] readonly
arg Y : f32[704] strides [1] writeonly
  %q = load guarded Q[(wg.x * 64 + tid.x + 64 * tid.y) floordiv 7] : f32
  %v = load guarded X[(wg.x * 64 + tid.x + 64 * tid.y) floordiv 7, (wg.x * 64 + tid.x + 64 * tid.y) mod 7] : f32
  %s = add %q, %v
  store guarded Y[(wg.x * 64 + tid.x + 64 * tid.y) - 3], %s
end
)"},
    {"qr2d_d12", R"(kernel qr2d_d12
workgroup 64 4 1
grid 8 1 1
arg Q : f32[59] strides [1] readonly
arg X : f32[58, 12] strides [12, 1] readonly
arg Y : f32[704] strides [1] writeonly
  %q = load guarded Q[(wg.x * 64 + tid.x + 64 * tid.y) floordiv 12] : f32
  %v = load guarded X[(wg.x * 64 + tid.x + 64 * tid.y) floordiv 12, (wg.x * 64 + tid.x + 64 * tid.y) mod 12] : f32
  %s = add %q, %v
  store guarded Y[(wg.x * 64 + tid.x + 64 * tid.y) - 3], %s
end
)"},
    {"qr2d_d100", R"(kernel qr2d_d100
workgroup 64 4 1
grid 8 1 1
arg Q : f32[8] strides [1] readonly
arg X : f32[7, 100] strides [100, 1] readonly
arg Y : f32[704] strides [1] writeonly
  %q = load guarded Q[(wg.x * 64 + tid.x + 64 * tid.y) floordiv 100] : f32
  %v = load guarded X[(wg.x * 64 + tid.x + 64 * tid.y) floordiv 100, (wg.x * 64 + tid.x + 64 * tid.y) mod 100] : f32
  %s = add %q, %v
  store guarded Y[(wg.x * 64 + tid.x + 64 * tid.y) - 3], %s
end
)"},
    {"n_a", R"(kernel n_a
workgroup 64 2 1
grid 16 1 1
arg X : f32[3, 337] strides [337, 1] readonly
arg Y : f32[3, 337] strides [337, 1] writeonly
  %v = load X[((tid.x + 3*wg.x + 5*tid.y) floordiv 7) mod 3, (tid.x + wg.x * 64) mod 1009 floordiv 3] : f32
  store Y[((tid.x + 3*wg.x + 5*tid.y) floordiv 7) mod 3, (tid.x + wg.x * 64) mod 1009 floordiv 3], %v
end
)"},
    {"n_a_g", R"(kernel n_a_g
workgroup 64 2 1
grid 16 1 1
arg X : f32[3, 337] strides [337, 1] readonly
arg Y : f32[3, 337] strides [337, 1] writeonly
  %v = load guarded X[((tid.x + 3*wg.x + 5*tid.y) floordiv 7) mod 3, (tid.x + wg.x * 64) mod 1009 floordiv 3 - 1] : f32
  store guarded Y[((tid.x + 3*wg.x + 5*tid.y) floordiv 7) mod 3 - 1, (tid.x + wg.x * 64) mod 1009 floordiv 3], %v
end
)"},
    {"n_b", R"(kernel n_b
workgroup 64 1 1
grid 32 2 1
arg X : f32[9, 10] strides [10, 1] readonly
arg Y : f32[9, 10] strides [10, 1] writeonly
  %v = load X[((tid.x + 64*wg.x) floordiv 5) mod 9, ((tid.x + wg.x*64 + wg.y) mod 100) floordiv 10] : f32
  store Y[((tid.x + 64*wg.x) floordiv 5) mod 9, ((tid.x + wg.x*64 + wg.y) mod 100) floordiv 10], %v
end
)"},
    {"n_b_g", R"(kernel n_b_g
workgroup 64 1 1
grid 32 2 1
arg X : f32[9, 10] strides [10, 1] readonly
arg Y : f32[9, 10] strides [10, 1] writeonly
  %v = load guarded X[((tid.x + 64*wg.x) floordiv 5) mod 9, ((tid.x + wg.x*64 + wg.y) mod 100) floordiv 10 - 1] : f32
  store guarded Y[((tid.x + 64*wg.x) floordiv 5) mod 9 - 1, ((tid.x + wg.x*64 + wg.y) mod 100) floordiv 10], %v
end
)"},
    {"n_c", R"(kernel n_c
workgroup 64 2 2
grid 4 3 2
arg X : f32[12, 4] strides [4, 1] readonly
arg Y : f32[12, 4] strides [4, 1] writeonly
  %v = load X[((tid.x + 7*wg.y + 11*tid.z) floordiv 6) mod 12, ((tid.y + 2*wg.z + 3*tid.x) mod 10) floordiv 3] : f32
  store Y[((tid.x + 7*wg.y + 11*tid.z) floordiv 6) mod 12, ((tid.y + 2*wg.z + 3*tid.x) mod 10) floordiv 3], %v
end
)"},
    {"n_c_g", R"(kernel n_c_g
workgroup 64 2 2
grid 4 3 2
arg X : f32[12, 4] strides [4, 1] readonly
arg Y : f32[12, 4] strides [4, 1] writeonly
  %v = load guarded X[((tid.x + 7*wg.y + 11*tid.z) floordiv 6) mod 12, ((tid.y + 2*wg.z + 3*tid.x) mod 10) floordiv 3 - 1] : f32
  store guarded Y[((tid.x + 7*wg.y + 11*tid.z) floordiv 6) mod 12 - 1, ((tid.y + 2*wg.z + 3*tid.x) mod 10) floordiv 3], %v
end
)"},
    {"n_d", R"(kernel n_d
workgroup 64 1 1
grid 20 1 1
arg X : f32[5, 113] strides [113, 1] readonly
arg Y : f32[5, 113] strides [113, 1] writeonly
  %v = load X[((70 - tid.x) floordiv 3) mod 5, ((tid.x + wg.x * 64) floordiv 7) mod 1009 floordiv 9] : f32
  store Y[((70 - tid.x) floordiv 3) mod 5, ((tid.x + wg.x * 64) floordiv 7) mod 1009 floordiv 9], %v
end
)"},
    {"n_d_g", R"(kernel n_d_g
workgroup 64 1 1
grid 20 1 1
arg X : f32[5, 113] strides [113, 1] readonly
arg Y : f32[5, 113] strides [113, 1] writeonly
  %v = load guarded X[((70 - tid.x) floordiv 3) mod 5, ((tid.x + wg.x * 64) floordiv 7) mod 1009 floordiv 9 - 1] : f32
  store guarded Y[((70 - tid.x) floordiv 3) mod 5 - 1, ((tid.x + wg.x * 64) floordiv 7) mod 1009 floordiv 9], %v
end
)"},
    {"n_e", R"(kernel n_e
workgroup 128 1 1
grid 50 1 1
arg X : f32[10, 12] strides [12, 1] readonly
arg Y : f32[10, 12] strides [12, 1] writeonly
  %v = load X[(((tid.x + wg.x*128) floordiv 3) floordiv 7) mod 10, ((tid.x + wg.x*128) mod 1009) mod 12] : f32
  store Y[(((tid.x + wg.x*128) floordiv 3) floordiv 7) mod 10, ((tid.x + wg.x*128) mod 1009) mod 12], %v
end
)"},
    {"n_e_g", R"(kernel n_e_g
workgroup 128 1 1
grid 50 1 1
arg X : f32[10, 12] strides [12, 1] readonly
arg Y : f32[10, 12] strides [12, 1] writeonly
  %v = load guarded X[(((tid.x + wg.x*128) floordiv 3) floordiv 7) mod 10, ((tid.x + wg.x*128) mod 1009) mod 12 - 1] : f32
  store guarded Y[(((tid.x + wg.x*128) floordiv 3) floordiv 7) mod 10 - 1, ((tid.x + wg.x*128) mod 1009) mod 12], %v
end
)"},
    {"n_f", R"(kernel n_f
workgroup 64 4 1
grid 8 8 1
arg X : f32[100, 3] strides [3, 1] readonly
arg Y : f32[100, 3] strides [3, 1] writeonly
  %v = load X[((tid.x + 64*tid.y + 256*wg.x) floordiv 12) mod 100, ((wg.y*64 + tid.x - 5*tid.y) mod 9) floordiv 3] : f32
  store Y[((tid.x + 64*tid.y + 256*wg.x) floordiv 12) mod 100, ((wg.y*64 + tid.x - 5*tid.y) mod 9) floordiv 3], %v
end
)"},
    {"n_f_g", R"(kernel n_f_g
workgroup 64 4 1
grid 8 8 1
arg X : f32[100, 3] strides [3, 1] readonly
arg Y : f32[100, 3] strides [3, 1] writeonly
  %v = load guarded X[((tid.x + 64*tid.y + 256*wg.x) floordiv 12) mod 100, ((wg.y*64 + tid.x - 5*tid.y) mod 9) floordiv 3 - 1] : f32
  store guarded Y[((tid.x + 64*tid.y + 256*wg.x) floordiv 12) mod 100 - 1, ((wg.y*64 + tid.x - 5*tid.y) mod 9) floordiv 3], %v
end
)"},
    {"n_g", R"(kernel n_g
workgroup 64 1 1
grid 10 1 1
arg X : f32[3, 7] strides [7, 1] readonly
arg Y : f32[3, 7] strides [7, 1] writeonly
  %v = load X[((tid.x - 3*wg.x) floordiv 7) mod 3, ((100 - tid.x - wg.x) floordiv 6) mod 7] : f32
  store Y[((tid.x - 3*wg.x) floordiv 7) mod 3, ((100 - tid.x - wg.x) floordiv 6) mod 7], %v
end
)"},
    {"n_g_g", R"(kernel n_g_g
workgroup 64 1 1
grid 10 1 1
arg X : f32[3, 7] strides [7, 1] readonly
arg Y : f32[3, 7] strides [7, 1] writeonly
  %v = load guarded X[((tid.x - 3*wg.x) floordiv 7) mod 3, ((100 - tid.x - wg.x) floordiv 6) mod 7 - 1] : f32
  store guarded Y[((tid.x - 3*wg.x) floordiv 7) mod 3 - 1, ((100 - tid.x - wg.x) floordiv 6) mod 7], %v
end
)"},
    {"n_h", R"(kernel n_h
workgroup 256 1 1
grid 4 4 4
arg X : f32[3, 3] strides [3, 1] readonly
arg Y : f32[3, 3] strides [3, 1] writeonly
  %v = load X[((tid.x + 256*wg.x + 5*wg.y + 7*wg.z) floordiv 1009) mod 3, (((tid.x + wg.z) mod 100) floordiv 10) mod 3] : f32
  store Y[((tid.x + 256*wg.x + 5*wg.y + 7*wg.z) floordiv 1009) mod 3, (((tid.x + wg.z) mod 100) floordiv 10) mod 3], %v
end
)"},
    {"n_h_g", R"(kernel n_h_g
workgroup 256 1 1
grid 4 4 4
arg X : f32[3, 3] strides [3, 1] readonly
arg Y : f32[3, 3] strides [3, 1] writeonly
  %v = load guarded X[((tid.x + 256*wg.x + 5*wg.y + 7*wg.z) floordiv 1009) mod 3, (((tid.x + wg.z) mod 100) floordiv 10) mod 3 - 1] : f32
  store guarded Y[((tid.x + 256*wg.x + 5*wg.y + 7*wg.z) floordiv 1009) mod 3 - 1, (((tid.x + wg.z) mod 100) floordiv 10) mod 3], %v
end
)"},
    {"d3_a", R"(kernel d3_a
workgroup 64 2 1
grid 12 3 1
arg Q : f32[400] strides [1] readonly
arg X : f32[5, 7, 3] strides [21, 3, 1] readonly
arg Y : f32[400] strides [1] writeonly
  %q = load Q[(tid.x + 64*wg.x + 128*tid.y) floordiv 5] : f32
  %v = load X[(tid.x + 64*wg.x + 128*tid.y) floordiv 5 mod 5, ((tid.x + 64*wg.x + 128*tid.y) floordiv 5) floordiv 5 mod 7, (tid.x + 64*wg.x + 128*tid.y) mod 5 mod 3] : f32
  %s = add %q, %v
  store Y[(tid.x + 64*wg.x + 128*tid.y) floordiv 5], %s
end
)"},
    {"d3_neg", R"(kernel d3_neg
workgroup 64 1 1
grid 8 1 1
arg X : f32[30, 6] strides [6, 1] readonly
arg Y : f32[30, 6] strides [6, 1] writeonly
  %v = load guarded X[(70 - tid.x - 8*wg.x) floordiv 3, (70 - tid.x - 8*wg.x) mod 3 + ((70 - tid.x) floordiv 6) mod 2] : f32
  store guarded Y[(70 - tid.x - 8*wg.x) floordiv 3, (70 - tid.x - 8*wg.x) mod 6], %v
end
)"},
    // difftest seed 105149: tid.y, wg.x and wg.y take one value (0), the
    // machine code computes from tid.x alone, so the quotients of the KIR's
    // dividends (with tid.y * 1024 ... in them) were other atoms than the
    // machine's and the query ran out of its budget; one-value variables
    // are now constants on both sides.
    {"one_value_ids", R"(kernel one_value_ids
workgroup 1024 1 1
grid 1 1 1
arg Y : f32[820, 8, 5] strides [160, 20, 4] writeonly
  %c = const f32x8 0x1p-3
  store Y[((((tid.x + tid.y * 1024 + (wg.x + wg.y * 2) * 1024) * 2875 + 1851) mod 4096 + 1882) floordiv 5) - 376, 0, ((((tid.x + tid.y * 1024 + (wg.x + wg.y * 2) * 1024) * 2875 + 1851) mod 4096 + 1882) mod 5)] along 1, %c
end
)"},
};

const char* const kTargets[] = {"gfx908", "gfx90a", "gfx942"};

// Every access proves, each within 1% of the default resource budget (the
// units are counted, so this bound is deterministic).
TEST(DivisionIndices, ProveWithinASmallPartOfTheBudget) {
  const uint64_t bound = VerifyOptions{}.resource_limit / 100;
  uint64_t most = 0;
  for (const Named& k : kKernels) {
    for (const char* t : kTargets) {
      absl::StatusOr<Compiled> c = CompileKir(k.text, t);
      ASSERT_TRUE(c.ok()) << k.name << " on " << t << ": " << c.status();
      VerifyResult v = Verify(*c);
      EXPECT_TRUE(v.all_proved) << k.name << " on " << t << ":\n" << v.Report();
      EXPECT_GE(v.accesses.size(), 2u) << k.name;
      uint64_t units = 0;
      double slowest = 0;
      for (const AccessVerdict& a : v.accesses) {
        EXPECT_LE(a.solver_resources, bound) << k.name << " on " << t << ": " << a.inst_text;
        units = std::max(units, a.solver_resources);
        slowest = std::max(slowest, a.seconds);
      }
      most = std::max(most, units);
      std::printf("%-14s %-7s %2zu accesses, at most %6llu Z3 units, slowest %.3f s\n", k.name, t,
                  v.accesses.size(), static_cast<unsigned long long>(units), slowest);
    }
  }
  std::printf("at most %llu units of the %llu a query may use\n", static_cast<unsigned long long>(most),
              static_cast<unsigned long long>(VerifyOptions{}.resource_limit));
}

// The shared forms do not make a wrong index prove: the machine code of one
// kernel checked against a KIR kernel whose index differs (the remainder
// shifted by one, another divisor) fails that access with a counterexample
// confirmed concretely, and still proves the others.
TEST(DivisionIndices, AnotherIndexFailsWithAConfirmedCounterexample) {
  struct Case {
    const char* name;
    std::string from, to;
    int failing_op;  // the KIR op whose index changed
  } cases[] = {
      {"qr_d7_w64", "(wg.x * 64 + tid.x) mod 7]", "(wg.x * 64 + tid.x + 1) mod 7]", 1},
      {"qr_d1009_w64", "(wg.x * 64 + tid.x) floordiv 1009, ", "(wg.x * 64 + tid.x + 1) floordiv 1009, ", 1},
      {"n_g", "%v = load X[((tid.x - 3*wg.x) floordiv 7) mod 3", "%v = load X[((tid.x - 3*wg.x) floordiv 6) mod 3", 0},
      {"n_h_g", "%v = load guarded X[((tid.x + 256*wg.x + 5*wg.y + 7*wg.z) floordiv 1009) mod 3",
       "%v = load guarded X[((tid.x + 256*wg.x + 5*wg.y + 7*wg.z) floordiv 1000) mod 3", 0},
      {"one_value_ids", "+ 1882) mod 5)]", "+ 1883) mod 5)]", 1},
      {"one_value_ids", "1024) * 2875 + 1851) mod 4096 + 1882) floordiv 5)", "1024) * 2875 + 1850) mod 4096 + 1882) floordiv 5)", 1},
  };
  for (const Case& cs : cases) {
    const Named* k = nullptr;
    for (const Named& n : kKernels)
      if (std::string(n.name) == cs.name) k = &n;
    ASSERT_NE(k, nullptr) << cs.name;
    std::string other = k->text;
    ASSERT_NE(other.find(cs.from), std::string::npos) << cs.name;
    other.replace(other.find(cs.from), cs.from.size(), cs.to);
    for (const char* t : kTargets) {
      absl::StatusOr<Compiled> right = CompileKir(k->text, t), wrong = CompileKir(other, t);
      ASSERT_TRUE(right.ok()) << right.status();
      ASSERT_TRUE(wrong.ok()) << wrong.status();
      VerifyResult v = Verify(*wrong, &right->result.lowered);
      EXPECT_FALSE(v.all_proved) << cs.name << " on " << t << ":\n" << v.Report();
      for (const AccessVerdict& a : v.accesses) {
        if (a.kir_op == cs.failing_op) {
          EXPECT_EQ(a.status, AccessVerdict::Status::kFailed) << cs.name << " on " << t << ":\n" << v.Report();
          // Failed verdicts always carry a concretely checked counterexample.
          EXPECT_NE(a.counterexample.find("counterexample ("), std::string::npos) << a.counterexample;
        } else {
          EXPECT_EQ(a.status, AccessVerdict::Status::kProved) << cs.name << " on " << t << ":\n" << v.Report();
        }
      }
    }
  }
}

}  // namespace
}  // namespace kir::vfy::testing
