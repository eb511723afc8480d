// WorkOf and FormatThroughput on testdata kernels, with the FLOP and byte
// counts worked out by hand from each .kir file.
#include "hw/run/work.h"

#include <fstream>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/promote/promote.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {


Kernel Load(const std::string& name) { return ::kir::testing::TestdataKernel(name); }

Kernel Promoted(const std::string& name, const char* mcpu) {
  Kernel k = Load(name);
  absl::StatusOr<const TargetInfo*> t = LookupTarget(mcpu);
  EXPECT_TRUE(t.ok());
  absl::StatusOr<Kernel> p = ValidateAndPromote(k, **t);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : Kernel{};
}

TEST(WorkTest, CopyIsBytesOnly) {
  // src and dst: 8192 f32 each.
  KernelWork w = WorkOf(Load("copy_f32"));
  EXPECT_EQ(w.flops, 0);
  EXPECT_EQ(w.flops_from, "");
  EXPECT_EQ(w.bytes_read, 8192 * 4);
  EXPECT_EQ(w.bytes_written, 8192 * 4);
}

TEST(WorkTest, ElementwiseIsBytesOnly) {
  // x, y read and out written: 64 x 512 f16 each; the scalar moves no memory.
  KernelWork w = WorkOf(Load("add_f16"));
  EXPECT_EQ(w.flops, 0);
  EXPECT_EQ(w.bytes_read, 2 * 64 * 512 * 2);
  EXPECT_EQ(w.bytes_written, 64 * 512 * 2);
}

TEST(WorkTest, SingleMfmaKernels) {
  // One wave, one 16x16x16 MFMA: 2*16*16*16 FLOPs; A, B 16x16 f16, C 16x16 f32.
  KernelWork w = WorkOf(Load("mma_16x16x16_f16"));
  EXPECT_EQ(w.flops, 8192);
  EXPECT_EQ(w.flops_from, "MFMAs executed");
  EXPECT_EQ(w.bytes_read, 2 * 16 * 16 * 2);
  EXPECT_EQ(w.bytes_written, 16 * 16 * 4);
  // One 32x32x8 MFMA: 2*32*32*8.
  EXPECT_EQ(WorkOf(Load("mma_32x32x8_f16")).flops, 16384);
}

TEST(WorkTest, MfmaInALoopCountsTrips) {
  // 4 waves x 4 trips (K = 64, step 16) x 2*16*16*16 = 2*32*32*64.
  KernelWork w = WorkOf(Load("mma_loop_32x32x64_f16"));
  EXPECT_EQ(w.flops, 131072);
  EXPECT_EQ(w.bytes_read, 2 * 32 * 64 * 2);
  EXPECT_EQ(w.bytes_written, 32 * 32 * 4);
}

TEST(WorkTest, GemmOpIs2MNK) {
  // C (256x256 f32) = alpha * A (256x64 f16) * B^T (B: 256x64) + beta * C.
  KernelWork w = WorkOf(Load("gemm_f16_256"));
  EXPECT_EQ(w.flops, 2.0 * 256 * 256 * 64);
  EXPECT_EQ(w.flops_from, "2*M*N*K");
  EXPECT_EQ(w.bytes_read, 256 * 64 * 2 * 2 + 256 * 256 * 4);  // A, B, and C (readwrite)
  EXPECT_EQ(w.bytes_written, 256 * 256 * 4);
  // A 100x40 (M x K), B 40x72 ("B.kn"), C 100x72 bf16.
  KernelWork e = WorkOf(Load("gemm_bf16_edge"));
  EXPECT_EQ(e.flops, 2.0 * 100 * 72 * 40);
  EXPECT_EQ(e.bytes_read, 100 * 40 * 2 + 40 * 72 * 2 + 100 * 72 * 2);
  EXPECT_EQ(e.bytes_written, 100 * 72 * 2);
}

TEST(WorkTest, PromotedGemmCountsItsMfmas) {
  // Tile multiples: the MFMAs of the promoted kernel are exactly 2*M*N*K.
  KernelWork w = WorkOf(Promoted("gemm_f16_256", "gfx942"));
  EXPECT_EQ(w.flops, 2.0 * 256 * 256 * 64);
  EXPECT_EQ(w.flops_from, "MFMAs executed");
  // 100x72x40 on the default 128x128x32 tile: one workgroup computes the
  // padded 128x128 block over K padded to 64.
  EXPECT_EQ(WorkOf(Promoted("gemm_bf16_edge", "gfx90a")).flops, 2.0 * 128 * 128 * 64);
}

TEST(WorkTest, FormatThroughput) {
  KernelWork w;
  w.flops = 1e9;
  w.flops_from = "2*M*N*K";
  w.bytes_read = 1000000;
  w.bytes_written = 1000000;
  EXPECT_EQ(FormatThroughput(w, 0.1),
            "100.000 us: 10.000 TFLOP/s (2*M*N*K = 1000000000 FLOP), 20.0 GB/s (1000000 B read + 1000000 B written)");
  w.flops = 0;
  EXPECT_EQ(FormatThroughput(w, 2.0), "2000.000 us: 1.0 GB/s (1000000 B read + 1000000 B written)");
}

}  // namespace
}  // namespace kir
