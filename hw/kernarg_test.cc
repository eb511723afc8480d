// PackKernargs on hand-written metadata: explicit arguments by name or by
// position, hidden arguments, and the errors; MetadataTarget and PickKernel.
#include "hw/kernarg.h"

#include <cstring>

#include "gtest/gtest.h"

namespace kir {
namespace {

ArgNote Note(const std::string& name, const std::string& kind, int64_t offset, int64_t size) {
  ArgNote a;
  a.name = name;
  a.value_kind = kind;
  a.offset = offset;
  a.size = size;
  return a;
}

// A pointer `a` at 0, an i32 `n` at 8, and hidden arguments after them.
KernelNotes Notes() {
  KernelNotes k;
  k.name = "k";
  k.kernarg_segment_size = 32;
  k.args = {Note("a", "global_buffer", 0, 8),        Note("n", "by_value", 8, 4),
            Note("", "hidden_block_count_x", 16, 4), Note("", "hidden_group_size_y", 20, 2),
            Note("", "hidden_grid_dims", 22, 2),     Note("", "hidden_default_queue", 24, 8)};
  return k;
}

KernargValue Ptr(const std::string& name, uint64_t p) {
  KernargValue v;
  v.name = name;
  v.is_pointer = true;
  v.pointer = p;
  return v;
}
KernargValue I32(const std::string& name, int32_t x) {
  KernargValue v;
  v.name = name;
  v.bytes.resize(4);
  std::memcpy(v.bytes.data(), &x, 4);
  return v;
}

template <typename T>
T At(const std::vector<uint8_t>& b, size_t off) {
  T v{};
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

TEST(KernargTest, ByNameWithHiddenArguments) {
  // Given in the other order: matched by name. grid 5x2x1, workgroup 64x4x1.
  absl::StatusOr<std::vector<uint8_t>> b =
      PackKernargs(Notes(), {I32("n", -7), Ptr("a", 0x123456789abcull)}, {5, 2, 1}, {64, 4, 1});
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 32u);
  EXPECT_EQ(At<uint64_t>(*b, 0), 0x123456789abcull);
  EXPECT_EQ(At<int32_t>(*b, 8), -7);
  EXPECT_EQ(At<uint32_t>(*b, 12), 0u);  // padding
  EXPECT_EQ(At<uint32_t>(*b, 16), 5u);  // hidden_block_count_x
  EXPECT_EQ(At<uint16_t>(*b, 20), 4u);  // hidden_group_size_y
  EXPECT_EQ(At<uint16_t>(*b, 22), 2u);  // hidden_grid_dims: 2-D
  EXPECT_EQ(At<uint64_t>(*b, 24), 0u);  // unknown to the packer: zero
}

TEST(KernargTest, ByPositionWhenUnnamed) {
  KernelNotes k = Notes();
  k.args[0].name = k.args[1].name = "";
  absl::StatusOr<std::vector<uint8_t>> b = PackKernargs(k, {Ptr("x", 64), I32("y", 9)}, {1, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(At<uint64_t>(*b, 0), 64u);
  EXPECT_EQ(At<int32_t>(*b, 8), 9);
  EXPECT_EQ(At<uint16_t>(*b, 22), 1u);
}

TEST(KernargTest, SegmentCoversTheLastArgument) {
  KernelNotes k = Notes();
  k.kernarg_segment_size = 12;  // shorter than the hidden arguments' end
  absl::StatusOr<std::vector<uint8_t>> b = PackKernargs(k, {Ptr("a", 1), I32("n", 2)}, {1, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->size(), 32u);
}

TEST(KernargTest, Errors) {
  auto pack = [](std::vector<KernargValue> v) { return PackKernargs(Notes(), v, {1, 1, 1}, {64, 1, 1}).status(); };
  absl::Status st = pack({Ptr("a", 1)});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "kernel 'k': got 1 arguments; the code object's metadata lists 2: a (global_buffer), n (by_value)");
  KernargValue wide = I32("n", 1);
  wide.bytes.resize(8);
  st = pack({Ptr("a", 1), wide});
  EXPECT_EQ(st.message(), "kernel 'k': argument 1 'n' (by_value) needs 4 bytes, got 8");
  st = pack({Ptr("a", 1), Ptr("n", 2)});
  EXPECT_EQ(st.message(), "kernel 'k': argument 1 'n' (by_value) is passed by value but a pointer was given");
  st = pack({I32("a", 1), I32("n", 2)});
  EXPECT_EQ(st.message(), "kernel 'k': argument 0 'a' (global_buffer) is a buffer pointer but the value given is not");
  KernelNotes img = Notes();
  img.args.push_back(Note("t", "image", 32, 8));
  st = PackKernargs(img, {Ptr("a", 1), I32("n", 2), Ptr("t", 3)}, {1, 1, 1}, {64, 1, 1}).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(st.message(), "kernel 'k': argument 6 't' (image): value_kind image is not supported");
}

TEST(KernargTest, MetadataTargetAndPickKernel) {
  EXPECT_EQ(MetadataTarget("amdhsa.version: [ 1, 2 ]\namdhsa.target: amdgcn-amd-amdhsa--gfx90a\n"),
            "amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(MetadataTarget("amdhsa.target:   'amdgcn-amd-amdhsa--gfx942:xnack-'\n"),
            "amdgcn-amd-amdhsa--gfx942:xnack-");
  EXPECT_EQ(MetadataTarget("no target here"), "");
  KernelNotes a, b;
  a.name = "a";
  b.name = "b";
  std::vector<KernelNotes> ks = {a, b};
  EXPECT_EQ((*PickKernel(ks, "b"))->name, "b");
  EXPECT_EQ(PickKernel(ks, "").status().message(), "the code object has 2 kernels; name one of: a, b");
  EXPECT_EQ(PickKernel(ks, "c").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(PickKernel(ks, "c").status().message(), "it has no kernel 'c' (it has: a, b)");
  EXPECT_EQ(TargetProcessor("amdgcn-amd-amdhsa--gfx90a:xnack-"), "gfx90a");
  EXPECT_EQ(TargetProcessor("gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(TargetProcessor("gfx908"), "gfx908");
  EXPECT_EQ(TargetProcessor(""), "");
  EXPECT_EQ(TargetIdOf("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), "gfx942:sramecc+:xnack-");
  EXPECT_EQ(TargetIdOf("gfx90a"), "gfx90a");
  EXPECT_EQ((*PickKernel({a}, ""))->name, "a");
}

}  // namespace
}  // namespace kir
