// PackKernargs on hand-written metadata: explicit arguments by name or by
// position, hidden arguments, and the errors; MetadataTarget and PickKernel.
#include "hw/kernarg.h"

#include <cstring>
#include <map>

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

// A KIR kernel with buffers A (readonly) and C and an f32 scalar alpha.
Kernel Twin() {
  Kernel k;
  k.name = "k";
  for (const char* n : {"A", "C"}) {
    Arg a;
    a.name = n;
    a.kind = Arg::Kind::kBuffer;
    a.elem = ElemType::kF32;
    a.shape = {64};
    a.strides = {1};
    a.access = n[0] == 'A' ? Access::kReadOnly : Access::kWriteOnly;
    k.args.push_back(a);
  }
  Arg alpha;
  alpha.name = "alpha";
  alpha.kind = Arg::Kind::kScalar;
  alpha.elem = ElemType::kF32;
  k.args.push_back(alpha);
  return k;
}

// A foreign kernel's metadata: the twin's arguments in another order, plus
// sizes the twin lacks (one name with a space), and hidden arguments.
KernelNotes Foreign() {
  KernelNotes n;
  n.name = "k";
  n.kernarg_segment_size = 48;
  n.args = {Note("C", "global_buffer", 0, 8), Note("size M", "by_value", 8, 4), Note("A", "global_buffer", 16, 8),
            Note("alpha", "by_value", 24, 4), Note("ld", "by_value", 28, 8),
            Note("", "hidden_block_count_x", 40, 4)};
  n.args[1].type_name = "unsigned int";
  return n;
}

std::vector<uint8_t> B(std::initializer_list<uint8_t> v) { return std::vector<uint8_t>(v); }

using Bindings = std::vector<std::pair<ArgBinding::Kind, std::string>>;
constexpr ArgBinding::Kind kB = ArgBinding::Kind::kBuffer, kS = ArgBinding::Kind::kScalar,
                           kE = ArgBinding::Kind::kExtra;

// `b` binds, in order, `want`'s kinds and names, binding i noting metadata
// argument i.
void ExpectBindings(const std::vector<ArgBinding>& b, const Bindings& want) {
  ASSERT_EQ(b.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(b[i].kind, want[i].first) << i;
    EXPECT_EQ(b[i].name, want[i].second) << i;
    EXPECT_EQ(b[i].note, i) << i;
  }
}

// The twin's arguments for `notes` packed: A at 0xa000, C at 0xc000, alpha
// 1.5 (0x3fc00000) and the `extra` values.
absl::StatusOr<std::vector<uint8_t>> PackTwin(const KernelNotes& notes,
                                              const std::map<std::string, std::vector<uint8_t>>& extra) {
  KernelData data;
  data.scalars["alpha"] = 0x3fc00000u;
  data.extra_args = extra;
  return PackKernelArgs(Twin(), notes, {{"A", 0xa000}, {"C", 0xc000}}, data);
}

TEST(BindKernelArgsTest, ByNameInAnyOrderWithTheArgumentsTheTwinLacks) {
  std::map<std::string, std::vector<uint8_t>> extra = {{"size M", B({64, 0, 0, 0})},
                                                       {"ld", B({1, 2, 3, 4, 5, 6, 7, 8})}};
  absl::StatusOr<std::vector<ArgBinding>> b = BindKernelArgs(Twin(), Foreign(), extra);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 5u);  // the explicit ones, in the metadata's order
  ExpectBindings(*b, {{kB, "C"}, {kE, "size M"}, {kB, "A"}, {kS, "alpha"}, {kE, "ld"}});
  // Packed through PackKernelArgs (HIP and rocjitsu), each at its offset.
  absl::StatusOr<std::vector<uint8_t>> seg = PackTwin(Foreign(), extra);
  ASSERT_TRUE(seg.ok()) << seg.status();
  EXPECT_EQ(At<uint64_t>(*seg, 0), 0xc000u);
  EXPECT_EQ(At<uint32_t>(*seg, 8), 64u);
  EXPECT_EQ(At<uint64_t>(*seg, 16), 0xa000u);
  EXPECT_EQ(At<uint32_t>(*seg, 24), 0x3fc00000u);
  EXPECT_EQ(At<uint64_t>(*seg, 28), 0x0807060504030201ull);
}

TEST(BindKernelArgsTest, NamesEachArgumentThatHasNoValue) {
  absl::Status st = BindKernelArgs(Twin(), Foreign(), {}).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "the code object's kernel 'k' takes by-value arguments the .kir kernel lacks: 'size M' (by_value, 4 "
            "bytes at offset 8, unsigned int), 'ld' (by_value, 8 bytes at offset 28); give each a value with --scalar "
            "NAME=VALUE (the values that make it compute the .kir's shapes)");
  // A value of the wrong size, and one for no such argument.
  st = BindKernelArgs(Twin(), Foreign(), {{"size M", B({1, 0, 0, 0})}, {"ld", B({1, 0, 0, 0})}}).status();
  EXPECT_EQ(st.message(), "the code object's kernel 'k': 'ld' (by_value, 8 bytes at offset 28) is given 4 bytes");
  st = BindKernelArgs(Twin(), Foreign(),
                      {{"size M", B({1, 0, 0, 0})}, {"ld", B({1, 0, 0, 0, 0, 0, 0, 0})}, {"N", B({1, 0, 0, 0})}})
           .status();
  EXPECT_EQ(st.message(),
            "a value is given for 'N', which is not a by-value argument of the code object's kernel 'k' that the "
            ".kir kernel lacks ('ld', 'size M')");
}

TEST(BindKernelArgsTest, PointersTheTwinLacksAndMismatchedKinds) {
  KernelNotes n = Foreign();
  n.args.push_back(Note("work space", "global_buffer", 48, 8));
  n.args.push_back(Note("flags", "global_buffer", 56, 8));
  std::map<std::string, std::vector<uint8_t>> extra = {{"size M", B({64, 0, 0, 0})},
                                                       {"ld", B({1, 2, 3, 4, 5, 6, 7, 8})}};
  EXPECT_EQ(BindKernelArgs(Twin(), n, extra).status().message(),
            "the code object's kernel 'k' takes pointer arguments the .kir kernel lacks: 'work space' "
            "(global_buffer, 8 bytes at offset 48), 'flags' (global_buffer, 8 bytes at offset 56); kirc passes only "
            "the .kir's buffers: declare each as a buffer argument of the .kir kernel, with the same name");
  n = Foreign();
  n.args[3] = Note("alpha", "global_buffer", 24, 8);
  EXPECT_EQ(BindKernelArgs(Twin(), n, extra).status().message(),
            "the code object's kernel 'k': the .kir's argument 'alpha' is a scalar (by_value, 4 bytes) but the "
            "code's is 'alpha' (global_buffer, 8 bytes at offset 24)");
  n = Foreign();
  n.args[2].name = "a";
  EXPECT_EQ(BindKernelArgs(Twin(), n, extra).status().message(),
            "the code object's kernel 'k' has no argument named 'A' of the .kir kernel (it takes 'C' (global_buffer, "
            "8 bytes at offset 0), 'size M' (by_value, 4 bytes at offset 8, unsigned int), 'a' (global_buffer, 8 "
            "bytes at offset 16), 'alpha' (by_value, 4 bytes at offset 24), 'ld' (by_value, 8 bytes at offset 28)): "
            "give the .kir kernel the code's argument names");
}

TEST(BindKernelArgsTest, UnnamedMetadataBindsByPosition) {
  KernelNotes n;
  n.name = "k";
  n.args = {Note("", "global_buffer", 0, 8), Note("", "global_buffer", 8, 8), Note("", "by_value", 16, 4)};
  absl::StatusOr<std::vector<ArgBinding>> b = BindKernelArgs(Twin(), n, {});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[1].name, "C");
  EXPECT_EQ((*b)[2].kind, ArgBinding::Kind::kScalar);
  EXPECT_EQ(BindKernelArgs(Twin(), n, {{"ld", B({1, 0, 0, 0})}}).status().message(),
            "the code object's kernel 'k' does not name all its arguments in its metadata ((unnamed, #0) "
            "(global_buffer, 8 bytes at offset 0), (unnamed, #1) (global_buffer, 8 bytes at offset 8), (unnamed, #2) "
            "(by_value, 4 bytes at offset 16)), so the values given for 'ld' cannot be matched to arguments by name: "
            "give a by-value argument the .kir lacks by position, --scalar '#N=VALUE' (N: its position above; or "
            "rebuild the code with argument names, clang -cl-kernel-arg-info for OpenCL); the .kir's arguments bind "
            "to the others by position");
}

TEST(KernargTest, PositionalArgKeys) {
  EXPECT_EQ(PositionalArgKey(3), "#3");
  EXPECT_EQ(PositionalArgIndex("#3"), std::optional<size_t>(3));
  EXPECT_EQ(PositionalArgIndex("#007"), std::optional<size_t>(7));
  EXPECT_EQ(PositionalArgIndex("#123456789"), std::optional<size_t>(123456789));
  for (const char* not_one : {"#", "3", "#3a", "# 3", "#-1", "#1234567890", "n"})
    EXPECT_EQ(PositionalArgIndex(not_one), std::nullopt) << not_one;
}

// Review 5 F1: by-value arguments of unnamed metadata given by position
// ("#N", `--scalar '#2=5'`); the .kir's arguments bind by position to the
// others.
TEST(BindKernelArgsTest, UnnamedByValueArgumentsByPosition) {
  KernelNotes n;
  n.name = "k";
  n.kernarg_segment_size = 24;
  n.args = {Note("", "global_buffer", 0, 8), Note("", "global_buffer", 8, 8), Note("", "by_value", 16, 4),
            Note("", "by_value", 20, 4), Note("", "hidden_block_count_x", 24, 4)};
  std::map<std::string, std::vector<uint8_t>> extra = {{"#2", B({5, 0, 0, 0})}};
  absl::StatusOr<std::vector<ArgBinding>> b = BindKernelArgs(Twin(), n, extra);
  ASSERT_TRUE(b.ok()) << b.status();
  ExpectBindings(*b, {{kB, "A"}, {kB, "C"}, {kE, "#2"}, {kS, "alpha"}});
  absl::StatusOr<std::vector<uint8_t>> seg = PackTwin(n, extra);
  ASSERT_TRUE(seg.ok()) << seg.status();
  EXPECT_EQ(At<uint64_t>(*seg, 0), 0xa000u);
  EXPECT_EQ(At<uint64_t>(*seg, 8), 0xc000u);
  EXPECT_EQ(At<uint32_t>(*seg, 16), 5u);
  EXPECT_EQ(At<uint32_t>(*seg, 20), 0x3fc00000u);
  const std::string listed =
      "(unnamed, #0) (global_buffer, 8 bytes at offset 0), (unnamed, #1) (global_buffer, 8 bytes at offset 8), "
      "(unnamed, #2) (by_value, 4 bytes at offset 16), (unnamed, #3) (by_value, 4 bytes at offset 20)";
  EXPECT_EQ(BindKernelArgs(Twin(), n, {}).status().message(),
            "the code object's kernel 'k' takes 4 explicit argument(s) (" + listed +
                ") but the .kir kernel has 3 (A, C, alpha); with unnamed arguments the .kir's bind by position to the "
                "explicit arguments no --scalar '#N=VALUE' takes: give the .kir kernel those, in order, and each "
                "by-value argument it lacks with --scalar '#N=VALUE'");
  EXPECT_EQ(BindKernelArgs(Twin(), n, {{"#2", B({5, 0})}}).status().message(),
            "the code object's kernel 'k': (unnamed, #2) (by_value, 4 bytes at offset 16) is given 2 bytes");
  EXPECT_EQ(BindKernelArgs(Twin(), n, {{"#0", B({5, 0, 0, 0})}}).status().message(),
            "a value is given for '#0': argument #0 of the code object's kernel 'k' is (unnamed, #0) (global_buffer, "
            "8 bytes at offset 0): a pointer, which is one of the .kir's buffers (declare it as a buffer argument of "
            "the .kir kernel), not a value --scalar sets (its explicit arguments: " + listed + ")");
  EXPECT_EQ(BindKernelArgs(Twin(), n, {{"#4", B({5, 0, 0, 0})}}).status().message(),
            "a value is given for '#4': the code object's kernel 'k' has no argument #4: it has 4 explicit "
            "argument(s), #0 to #3 in its metadata's order (" + listed + ")");
  EXPECT_EQ(BindKernelArgs(Twin(), n, {{"#2", B({5, 0, 0, 0})}, {"#02", B({5, 0, 0, 0})}}).status().message(),
            "values are given for '#02' and '#2', the same argument (unnamed, #2) (by_value, 4 bytes at offset 16) "
            "of the code object's kernel 'k'");
}

// Named metadata takes values by position too, for arguments the .kir
// lacks only.
TEST(BindKernelArgsTest, NamedByValueArgumentsByPosition) {
  std::map<std::string, std::vector<uint8_t>> extra = {{"#1", B({64, 0, 0, 0})}, {"ld", B({1, 2, 3, 4, 5, 6, 7, 8})}};
  absl::StatusOr<std::vector<ArgBinding>> b = BindKernelArgs(Twin(), Foreign(), extra);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 5u);
  EXPECT_EQ((*b)[1].kind, ArgBinding::Kind::kExtra);
  EXPECT_EQ((*b)[1].name, "#1");
  absl::StatusOr<std::vector<uint8_t>> seg = PackTwin(Foreign(), extra);
  ASSERT_TRUE(seg.ok()) << seg.status();
  EXPECT_EQ(At<uint32_t>(*seg, 8), 64u);
  EXPECT_EQ(At<uint64_t>(*seg, 28), 0x0807060504030201ull);
  EXPECT_EQ(BindKernelArgs(Twin(), Foreign(), {{"#3", B({1, 0, 0, 0})}}).status().message(),
            "a value is given for '#3', the argument 'alpha' (#3, by_value, 4 bytes at offset 24) of the code "
            "object's kernel 'k', which is the .kir kernel's argument 'alpha' (bound by name): give it as the .kir's");
  EXPECT_EQ(BindKernelArgs(Twin(), Foreign(), {{"#1", B({1, 0, 0, 0})}, {"size M", B({1, 0, 0, 0})}})
                .status()
                .message(),
            "values are given for '#1' and 'size M', the same argument 'size M' (#1, by_value, 4 bytes at offset 8, "
            "unsigned int) of the code object's kernel 'k'");
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

// Issue 18: buffers of many GiB each stay apart below the kernarg segment.
TEST(Kernarg, EmulatedBufferAddressesAfterLargeBuffers) {
  // Up to 64 GiB each, the fixed addresses: 64 GiB apart, low word 0xffffff00.
  EXPECT_EQ(EmulatedBufferAddressAfter(0, 0), 0x00000010ffffff00ull);
  EXPECT_EQ(EmulatedBufferAddressAfter(1, 0x00000010ffffff00ull + (uint64_t{6} << 30)), 0x00000020ffffff00ull);
  // After a 100 GiB buffer at 0x10ffffff00 (ending at 0x29ffffff00): the
  // first 64 GiB boundary above its end (0x3000000000), the same low word.
  const uint64_t end = 0x00000010ffffff00ull + (uint64_t{100} << 30);
  EXPECT_EQ(end, 0x00000029ffffff00ull);
  EXPECT_EQ(EmulatedBufferAddressAfter(1, end), 0x00000030ffffff00ull);
  EXPECT_GE(EmulatedBufferAddressAfter(1, end), end);
  // Four 16 TiB buffers end below the kernarg segment (0x7f00'0000'0000).
  uint64_t placed = 0;
  for (int n = 0; n < 4; ++n) {
    const uint64_t at = EmulatedBufferAddressAfter(n, placed);
    EXPECT_GE(at, placed);
    placed = at + (uint64_t{16} << 40);
  }
  EXPECT_LT(placed, kEmulatedKernargAddress);
}

}  // namespace
}  // namespace kir
