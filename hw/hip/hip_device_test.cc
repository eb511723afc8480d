// HipDevice without a GPU: opening reports Unavailable at once (or, on a
// machine with an AMD GPU, opens it and names its gfx architecture); HIP
// errors name the call; the architecture check; and the kernarg segment of a
// launch, packed by the code object's metadata, against offsets and values
// worked out by hand from the .kir files.
#include "hw/hip/hip_device.h"

#include <hip/hip_runtime_api.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "compiler/promote/promote.h"
#include "gtest/gtest.h"
#include "hw/kernarg.h"

namespace kir {
namespace {

TEST(HipDeviceTest, OpenReportsNoGpuQuicklyOrOpensOne) {
  // Run the probe on its own thread so that a hanging runtime fails the test
  // after 20 s instead of hitting Bazel's timeout.
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    absl::Status status;
    std::string arch, name;
  };
  auto shared = std::make_shared<Shared>();
  const auto t0 = std::chrono::steady_clock::now();
  std::thread([shared] {
    absl::StatusOr<std::unique_ptr<HipDevice>> d = OpenHipDevice(0);
    std::lock_guard<std::mutex> l(shared->mu);
    shared->status = d.status();
    if (d.ok()) {
      shared->arch = (*d)->Arch();
      shared->name = (*d)->Name();
    }
    shared->done = true;
    shared->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> l(shared->mu);
  if (!shared->cv.wait_for(l, std::chrono::seconds(20), [&] { return shared->done; })) {
    ADD_FAILURE() << "OpenHipDevice(0) did not return within 20 s";
    std::_Exit(1);  // the probe thread is stuck inside HIP
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (shared->status.ok()) {
    // A machine with an AMD GPU.
    EXPECT_TRUE(absl::StartsWith(shared->arch, "gfx")) << shared->arch;
    EXPECT_TRUE(absl::StartsWith(shared->name, "HIP: ")) << shared->name;
    EXPECT_NE(shared->name.find(shared->arch), std::string::npos) << shared->name;
  } else {
    EXPECT_EQ(shared->status.code(), absl::StatusCode::kUnavailable) << shared->status;
    EXPECT_TRUE(absl::StartsWith(shared->status.message(), "no AMD GPU (hipError")) << shared->status;
    EXPECT_LT(secs, 5.0) << "reporting that there is no GPU took " << secs << " s";
    // HipDeviceCount agrees, and asking again is as quick.
    absl::StatusOr<int> n = HipDeviceCount();
    EXPECT_EQ(n.status(), shared->status);
  }
}

TEST(HipDeviceTest, ErrorsNameTheCallAndHipsError) {
  absl::Status st = HipError("hipMalloc(64 bytes for 'C')", hipErrorOutOfMemory);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StartsWith(st.message(), "hipMalloc(64 bytes for 'C') failed: ")) << st;
  EXPECT_NE(st.message().find("hipErrorOutOfMemory"), std::string::npos) << st;
  EXPECT_EQ(HipError("hipGetDeviceCount", hipErrorNoDevice).code(), absl::StatusCode::kUnavailable);
  absl::Status img = HipError("hipModuleLoadData", hipErrorNoBinaryForGpu);
  EXPECT_EQ(img.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(img.message().find("KIRC_HIP_PATH=/opt/rocm"), std::string::npos) << img;
  EXPECT_EQ(HipError("hipModuleGetFunction('k')", hipErrorNotFound).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(HipError("hipModuleLaunchKernel('k')", hipErrorLaunchFailure).code(), absl::StatusCode::kUnknown);
}

TEST(HipDeviceTest, ArchitectureMustMatchTheTarget) {
  EXPECT_TRUE(CheckHipArch("gfx90a:sramecc+:xnack-", "gfx90a", "HIP device 0").ok());
  EXPECT_TRUE(CheckHipArch("gfx942", "gfx942", "HIP device 1").ok());
  absl::Status st = CheckHipArch("gfx90a:sramecc+:xnack-", "gfx942", "HIP device 0 (AMD Instinct MI210)");
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "the code object is for gfx942 but HIP device 0 (AMD Instinct MI210) is gfx90a: run with --mcpu=gfx90a");
}

// The metadata of `kernel` compiled for `mcpu`, read back from its code object.
KernelNotes NotesOf(const Kernel& k, const std::string& mcpu) {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  EXPECT_TRUE(bin.ok()) << bin.status();
  CompileOptions co;
  co.mcpu = mcpu;
  absl::StatusOr<CompileResult> r = Compile(k, co);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || !bin.ok()) return {};
  absl::StatusOr<std::string> obj = CodeObjectFor(*r, *bin);
  EXPECT_TRUE(obj.ok()) << obj.status();
  if (!obj.ok()) return {};
  absl::StatusOr<CodeObjectKernel> ck = ReadCodeObjectKernel(*bin, *obj, k.name);
  EXPECT_TRUE(ck.ok()) << ck.status();
  if (!ck.ok()) return {};
  EXPECT_EQ(ck->target, "amdgcn-amd-amdhsa--" + mcpu);
  return ck->notes;
}

Kernel Load(const std::string& name, const char* promote_for = nullptr) {
  std::ifstream f("testdata/kernels/" + name + ".kir");
  std::stringstream ss;
  ss << f.rdbuf();
  absl::StatusOr<Kernel> k = ParseKernel(ss.str(), name + ".kir");
  EXPECT_TRUE(k.ok()) << k.status();
  if (!k.ok()) return {};
  if (promote_for == nullptr) return *k;
  absl::StatusOr<Kernel> p = ValidateAndPromote(*k, **LookupTarget(promote_for));
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : Kernel{};
}

uint64_t U64At(const std::vector<uint8_t>& b, size_t off) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + off, 8);
  return v;
}
uint32_t U32At(const std::vector<uint8_t>& b, size_t off) {
  uint32_t v = 0;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}
uint32_t Bits(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}

TEST(HipDeviceTest, PacksAddF16Kernargs) {
  // add_f16.kir: x, y, out (buffers: 8-byte pointers at 0, 8, 16), then the
  // f32 `scale` at 24; 28 bytes of arguments, a 32-byte (8-aligned) segment.
  Kernel k = Load("add_f16");
  KernelData data;
  data.scalars["scale"] = Bits(1.3f);
  const std::map<std::string, uint64_t> ptrs = {
      {"x", 0x00007f1200000000ull}, {"y", 0x00007f1200100000ull}, {"out", 0x00007f12ffffff00ull}};
  absl::StatusOr<std::vector<uint8_t>> b = PackKernelArgs(k, NotesOf(k, "gfx90a"), ptrs, data);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 32u);
  EXPECT_EQ(U64At(*b, 0), 0x00007f1200000000ull);
  EXPECT_EQ(U64At(*b, 8), 0x00007f1200100000ull);
  EXPECT_EQ(U64At(*b, 16), 0x00007f12ffffff00ull);
  EXPECT_EQ(U32At(*b, 24), 0x3fa66666u);  // 1.3f
  EXPECT_EQ(U32At(*b, 28), 0u);
}

TEST(HipDeviceTest, PacksPromotedGemmKernargs) {
  // gemm_f16_256.kir: A, B, C pointers at 0, 8, 16; alpha at 24, beta at 28.
  Kernel k = Load("gemm_f16_256", "gfx942");
  KernelData data;
  data.scalars["alpha"] = Bits(1.5f);
  data.scalars["beta"] = Bits(-0.25f);
  const std::map<std::string, uint64_t> ptrs = {{"A", 0x1000}, {"B", 0x2000}, {"C", 0x3000}};
  absl::StatusOr<std::vector<uint8_t>> b = PackKernelArgs(k, NotesOf(k, "gfx942"), ptrs, data);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 32u);
  EXPECT_EQ(U64At(*b, 0), 0x1000u);
  EXPECT_EQ(U64At(*b, 8), 0x2000u);
  EXPECT_EQ(U64At(*b, 16), 0x3000u);
  EXPECT_EQ(U32At(*b, 24), 0x3fc00000u);  // 1.5f
  EXPECT_EQ(U32At(*b, 28), 0xbe800000u);  // -0.25f
}

TEST(HipDeviceTest, PackingNamesWhatIsMissing) {
  Kernel k = Load("copy_f32");
  KernelNotes notes = NotesOf(k, "gfx942");
  absl::StatusOr<std::vector<uint8_t>> b = PackKernelArgs(k, notes, {{"src", 0x1000}}, {});
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b.status().message(), "no device buffer for argument 'dst'");
  // The code object of another kernel: its layout does not fit.
  Kernel add = Load("add_f16");
  KernelData data;
  data.scalars["scale"] = Bits(2.0f);
  b = PackKernelArgs(add, notes, {{"x", 1}, {"y", 2}, {"out", 3}}, data);
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b.status().message(),
            "the code object's kernel 'copy_f32' has no arguments named 'x', 'y', 'out', 'scale' of the .kir kernel "
            "(it takes 'src' (global_buffer, 8 bytes at offset 0), 'dst' (global_buffer, 8 bytes at offset 8)): "
            "give the .kir kernel the code's argument names");
}

}  // namespace
}  // namespace kir
