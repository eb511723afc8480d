#include "compiler/analysis/validate.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/ir/index_expr.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/parser.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

const TargetInfo& Target(const std::string& name) {
  absl::StatusOr<const TargetInfo*> t = LookupTarget(name);
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

Kernel Parse(const std::string& text) {
  absl::StatusOr<Kernel> k = ParseKernel(text, "k.kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : Kernel{};
}

// "OK" or the error message.
std::string Check(const Kernel& k, const std::string& target = "gfx942",
                  const std::string& file = "k.kir") {
  absl::Status s = ValidateKernel(k, Target(target), file);
  if (s.ok()) return "OK";
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  return std::string(s.message());
}

// Eight declaration lines; the body starts on line 9.
constexpr char kPrelude[] = R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg A : f32[64] strides [1] readonly
arg B : f32[64] strides [1] writeonly
arg s : f32
arg n : i32
lds L : f32[64]
)";

Kernel Body(const std::string& body) { return Parse(absl::StrCat(kPrelude, body, "end\n")); }
std::string CheckBody(const std::string& body) { return Check(Body(body)); }

// A copy kernel that validates; tests mutate it.
constexpr char kCopyBody[] = R"(%x = load A[tid.x] : f32
store B[tid.x], %x
)";

constexpr char kMfma[] = R"(kernel mma
workgroup 64 1 1
grid 1 1 1
arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg C : f32[16, 16] strides [16, 1] writeonly
lds As : f16[16, 16] pad 4
lds Bs : f16[16, 16] pad 4
%a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
%b = load B[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
store As[tid.x mod 16, tid.x floordiv 16 * 4], %a
store Bs[tid.x mod 16, tid.x floordiv 16 * 4], %b
barrier
%fa = load As[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
%fb = load Bs[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
%z = zero f32x4
%d = mfma f32_16x16x16_f16 %fa, %fb, %z
store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d
end
)";

std::string Bf16Mfma() {
  return absl::StrReplaceAll(kMfma, {{"f16[", "bf16["},
                                     {"f16x4", "bf16x4"},
                                     {"f32_16x16x16_f16", "f32_16x16x16_bf16"}});
}

// ------------------------------------------------------------- valid kernels

TEST(ValidateTest, MfmaKernelValidOnAllTargets) {
  Kernel k = Parse(kMfma);
  for (const TargetInfo* t : AllTargets()) EXPECT_EQ(Check(k, t->name), "OK") << t->name;
}

TEST(ValidateTest, Bf16MfmaRejectedOnGfx908Only) {
  Kernel k = Parse(Bf16Mfma());
  EXPECT_EQ(Check(k, "gfx908"),
            "k.kir:17:1: error: in '%d = mfma f32_16x16x16_bf16 %fa, %fb, %z': MFMA "
            "f32_16x16x16_bf16 does not exist on gfx908: use f32_16x16x8_bf16 (a different lane "
            "layout)");
  EXPECT_EQ(Check(k, "gfx90a"), "OK");
  EXPECT_EQ(Check(k, "gfx942"), "OK");
}

TEST(ValidateTest, LoopsScopesAndBroadcastsValid) {
  EXPECT_EQ(CheckBody(R"(%z = zero f32x4
%r = for %i = 0 to 4 iter(%c = %z) {
  %v = load A[%i * 16 + tid.x floordiv 16 * 4] : f32x4
  %w = add %v, s
  %u = fma %w, %c, s
  barrier
  %q = for %j = 0 to 2 iter(%e = %u) {
    %f = mul %e, %v
    yield %f
  }
  yield %q
}
for %i = 0 to 2 {
  %v = load A[tid.x] : f32
  yield
}
%one = const i32 7
%m = mul n, %one
%h = const f16x2 0.5
%h2 = add %h, %h
%hf = cvt %h2 : f32x2
%bz = zero bf16x16
store L[tid.x floordiv 4 * 4] along 0, %r
)"),
            "OK");
}

TEST(ValidateTest, ElementwiseResultTypeIsComputed) {
  // The parser leaves Op::type at f32 for add; the validator uses f32x4.
  EXPECT_EQ(CheckBody(R"(%v = load A[tid.x floordiv 4 * 4] : f32x4
%r = add s, %v
%a = zero f32
%d = mfma f32_16x16x4_f32 %a, %a, %r
)"),
            "OK");
  EXPECT_EQ(CheckBody(R"(%v = load A[tid.x floordiv 4 * 4] : f32x4
%r = mul %v, s
%h = cvt %r : f16x2
)"),
            "k.kir:11:1: error: in '%h = cvt %r : f16x2': cvt keeps the width: %r is f32x4 but "
            "the result type is f16x2; use f16x4");
}

TEST(ValidateTest, MessageFormats) {
  Kernel k = Body("store B[tid.x], %x\n");
  const std::string what = "in 'store B[tid.x], %x': use of undefined value %x; define it before this op";
  EXPECT_EQ(Check(k, "gfx942", "k.kir"), "k.kir:9:1: error: " + what);
  EXPECT_EQ(Check(k, "gfx942", ""), "9:1: error: " + what);
  k.body[0].loc = SourceLoc{};
  EXPECT_EQ(Check(k, "gfx942", "k.kir"), "error: " + what);
}

// ------------------------------------------------------------- kernel level

TEST(ValidateTest, KernelName) {
  Kernel k = Body(kCopyBody);
  k.name = "";
  EXPECT_EQ(Check(k), "k.kir:1:1: error: in 'kernel': the kernel has no name; write `kernel NAME`");
}

TEST(ValidateTest, Workgroup) {
  Kernel k = Body(kCopyBody);
  k.workgroup = {64, 0, 1};
  EXPECT_EQ(Check(k),
            "k.kir:2:1: error: in 'workgroup': workgroup extent y is 0; every extent must be at least 1");
  k.workgroup = {2048, 1, 1};
  EXPECT_EQ(Check(k), "k.kir:2:1: error: in 'workgroup': workgroup extent x is 2048; a workgroup has "
                      "at most 1024 threads");
  k.workgroup = {1, 1, std::numeric_limits<int64_t>::max()};
  EXPECT_EQ(Check(k), "k.kir:2:1: error: in 'workgroup': workgroup extent z is 9223372036854775807; "
                      "a workgroup has at most 1024 threads");
  k.workgroup = {64, 32, 1};
  EXPECT_EQ(Check(k), "k.kir:2:1: error: in 'workgroup': workgroup 64x32x1 has 2048 threads; a "
                      "workgroup has at most 1024");
  k.workgroup = {32, 1, 1};
  EXPECT_EQ(Check(k), "k.kir:2:1: error: in 'workgroup': workgroup 32x1x1 has 32 threads, not a "
                      "multiple of 64; kirc runs whole wave64s (MFMA is wave-collective), so use "
                      "a multiple of 64 threads");
  k.workgroup = {16, 4, 16};
  EXPECT_EQ(Check(k), "OK");
}

TEST(ValidateTest, Grid) {
  Kernel k = Body(kCopyBody);
  k.grid = {1, 1, 0};
  EXPECT_EQ(Check(k),
            "k.kir:3:1: error: in 'grid': grid extent z is 0; every extent must be at least 1");
  k.grid = {std::numeric_limits<int64_t>::min(), 1, 1};
  EXPECT_EQ(Check(k), "k.kir:3:1: error: in 'grid': grid extent x is -9223372036854775808; "
                      "every extent must be at least 1");
  k.grid = {int64_t{1} << 31, 1, 1};
  EXPECT_EQ(Check(k), "k.kir:3:1: error: in 'grid': grid extent x is 2147483648; it must be "
                      "less than 2^31");
  // The dispatch's grid size in threads is 32 bits per dimension.
  k.grid = {(int64_t{1} << 31) - 1, 1, 1};
  EXPECT_EQ(Check(k), "k.kir:3:1: error: in 'grid': grid extent x times the workgroup's "
                      "(2147483647 x 64) is 2^32 threads or more; the dispatch's grid size is 32 "
                      "bits per dimension");
  k.grid = {(int64_t{1} << 26) - 1, 1, 1};
  EXPECT_EQ(Check(k), "OK");
}

TEST(ValidateTest, NamesAreIdentifiers) {
  // Names become assembly symbols and metadata strings: nothing else passes.
  Kernel k = Body(kCopyBody);
  k.name = "my kernel";
  EXPECT_EQ(Check(k), "k.kir:1:1: error: in 'kernel': the kernel name 'my kernel' is not an "
                      "identifier ([A-Za-z_][A-Za-z0-9_]*, at most 255 characters); it becomes an "
                      "assembly symbol");
  k = Body(kCopyBody);
  k.name = "k\n  s_endpgm";
  EXPECT_NE(Check(k).find("the kernel name 'k\\n  s_endpgm' is not an identifier"), std::string::npos)
      << Check(k);
  k = Body(kCopyBody);
  k.args[0].name = "X\n    .evil: 1";
  EXPECT_NE(Check(k).find("the name is not an identifier"), std::string::npos) << Check(k);
  k = Body(kCopyBody);
  k.body[0].results[0] = "a b";
  EXPECT_NE(Check(k).find("'%a b' is not a valid value name"), std::string::npos) << Check(k);
}

TEST(ValidateTest, EmptyBody) {
  Kernel k = Body(kCopyBody);
  k.body.clear();
  EXPECT_EQ(Check(k), "k.kir:1:1: error: in 'kernel': the kernel body is empty; add the ops the "
                      "kernel should run");
}

TEST(ValidateTest, DuplicateNames) {
  EXPECT_EQ(Check(Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
const N = 4
arg N : f32
end
)")),
            "k.kir:5:1: error: in 'arg N': 'N' is already declared (const N, line 4); consts, "
            "args and LDS allocations share one namespace, so rename one of them");
  // Built by API (no locations): consts, args, LDS in that order.
  Kernel k = Body(kCopyBody);
  k.lds.push_back(LdsAlloc{"A", ElemType::kF32, {4}, 0, {}});
  k.args[0].loc = {};
  EXPECT_EQ(Check(k), "error: in 'lds A': 'A' is already declared (arg A); consts, args and LDS "
                      "allocations share one namespace, so rename one of them");
  Kernel c = Body(kCopyBody);
  c.consts.push_back(NamedConst{"L", 3, {}});
  c.consts.push_back(NamedConst{"s", 3, {}});
  // Without locations on every declaration: consts first, then args, then LDS.
  EXPECT_EQ(Check(c), "k.kir:6:1: error: in 'arg s': 's' is already declared (const s); consts, "
                      "args and LDS allocations share one namespace, so rename one of them");
}

TEST(ValidateTest, DeclarationWithoutName) {
  Kernel k = Body(kCopyBody);
  k.args[2].name = "";
  EXPECT_EQ(Check(k), "k.kir:6:1: error: in 'arg': the declaration has no name; give it one");
}

TEST(ValidateTest, BufferArgs) {
  Kernel k = Body(kCopyBody);
  k.args[0].shape.clear();
  k.args[0].strides.clear();
  EXPECT_EQ(Check(k), "k.kir:4:1: error: in 'arg A': a buffer needs at least one dimension, e.g. "
                      "f32[256] strides [1]");
  k = Body(kCopyBody);
  k.args[0].shape = {4, 16};
  EXPECT_EQ(Check(k), "k.kir:4:1: error: in 'arg A': the buffer has 2 dimension(s) but 1 "
                      "stride(s); give one stride per dimension");
  std::string decl_prefix = "kernel t\nworkgroup 64 1 1\ngrid 1 1 1\n";
  EXPECT_EQ(Check(Parse(decl_prefix + "arg A : f32[4, 0] strides [4, 1] readonly\nbarrier\nend\n")),
            "k.kir:4:1: error: in 'arg A': dimension 1 has extent 0; extents must be at least 1");
  EXPECT_EQ(Check(Parse(decl_prefix + "arg A : f32[4] strides [-1] readonly\nbarrier\nend\n")),
            "k.kir:4:1: error: in 'arg A': stride 0 is -1; strides must not be negative");
  // Buffers up to 2^47 bytes (kMaxBufferBytes): 2 GiB and 128 TiB pass, one element more fails.
  EXPECT_EQ(Check(Parse(decl_prefix + "arg A : f32[536870912] strides [1] readonly\nbarrier\nend\n")),
            "OK");
  EXPECT_EQ(Check(Parse(decl_prefix + "arg A : f32[35184372088832] strides [1] readonly\nbarrier\nend\n")),
            "OK");
  EXPECT_EQ(Check(Parse(decl_prefix + "arg A : f32[35184372088833] strides [1] readonly\nbarrier\nend\n")),
            "k.kir:4:1: error: in 'arg A': the buffer spans 140737488355332 bytes, more than the "
            "140737488355328 (2^47, 128 TiB) kirc supports; split it into several buffers");
  EXPECT_EQ(Check(Parse(decl_prefix + "arg A : f32[536870911] strides [1] readonly\nbarrier\nend\n")),
            "OK");
  // Saturating size arithmetic.
  EXPECT_EQ(Check(Parse(decl_prefix +
                        "arg A : f32[9223372036854775807, 9223372036854775807] strides "
                        "[9223372036854775807, 9223372036854775807] readonly\nbarrier\nend\n")),
            "k.kir:4:1: error: in 'arg A': the buffer spans 4611686018427387904 bytes, more than "
            "the 140737488355328 (2^47, 128 TiB) kirc supports; split it into several buffers");
}

// A buffer the kernel may store to must not alias (two indices, one
// element); a read-only one may (broadcast).
TEST(ValidateTest, WrittenBuffersMustNotAlias) {
  auto kernel = [](const std::string& y_decl) {
    return Parse(absl::StrCat("kernel t\nworkgroup 64 4 1\ngrid 1 1 1\n",
                              "arg x : f32[4, 64] strides [64, 1] readonly\n", y_decl,
                              "\n%v = load x[tid.y, tid.x] : f32\nstore y[tid.y, tid.x], %v\nend\n"));
  };
  const std::string tail =
      "; a buffer the kernel may store to must not alias, since threads writing different "
      "indices would race on one address. Give each dimension a stride larger than the span of "
      "the dimensions with smaller strides (e.g. strides [64, 1]), or declare the buffer "
      "readonly if the kernel only reads it (a read-only buffer may alias, e.g. a stride-0 "
      "broadcast)";
  // The defect report's kernel: four waves store different values to one row.
  EXPECT_EQ(Check(kernel("arg y : f32[4, 64] strides [0, 1] writeonly")),
            "k.kir:5:1: error: in 'arg y': y is writeonly but with strides [0, 1] for shape "
            "[4, 64] different indices address the same element (y[1, 0] and y[0, 0] are both "
            "element 0)" + tail);
  // Overlapping rows, readwrite.
  EXPECT_EQ(Check(kernel("arg y : f32[4, 64] strides [8, 1] readwrite")),
            "k.kir:5:1: error: in 'arg y': y is readwrite but with strides [8, 1] for shape "
            "[4, 64] different indices address the same element (y[1, 0] and y[0, 8] are both "
            "element 8)" + tail);
  // Equal strides; a column-major one that overlaps.
  EXPECT_NE(Check(kernel("arg y : f32[4, 64] strides [1, 1] writeonly")).find("y[0, 1] and y[1, 0] are both element 1"),
            std::string::npos);
  EXPECT_NE(Check(kernel("arg y : f32[4, 64] strides [1, 3] writeonly")).find("y[0, 1] and y[3, 0] are both element 3"),
            std::string::npos);
  // Injective layouts: row-major, padded, column-major, a stride-0 or any
  // stride on an extent-1 dimension.
  for (const char* ok : {"[64, 1]", "[100, 1]", "[1, 4]", "[1, 5]", "[65, 1]"})
    EXPECT_EQ(Check(kernel(absl::StrCat("arg y : f32[4, 64] strides ", ok, " writeonly"))), "OK")
        << ok;
  {
    Kernel k = Parse("kernel t\nworkgroup 64 1 1\ngrid 1 1 1\n"
                     "arg y : f32[1, 64] strides [0, 1] writeonly\n"
                     "arg z : f32[64, 1, 2] strides [1, 0, 64] readwrite\n"
                     "%c = const f32 1.0\nstore y[0, tid.x], %c\nstore z[tid.x, 0, 1], %c\nend\n");
    EXPECT_EQ(Check(k), "OK");
  }
  // Read-only buffers may alias: a broadcast row.
  EXPECT_EQ(Check(Parse("kernel t\nworkgroup 64 4 1\ngrid 1 1 1\n"
                        "arg x : f32[4, 64] strides [0, 1] readonly\n"
                        "arg y : f32[4, 64] strides [64, 1] writeonly\n"
                        "%v = load x[tid.y, tid.x] : f32\nstore y[tid.y, tid.x], %v\nend\n")),
            "OK");
  // Strides that are injective but interleaved (2 and 3 with extents 2, 2:
  // offsets 0, 2, 3, 5) pass; 2 and 3 with extents 3, 2 (0, 2, 4, 3, 5, 7)
  // are injective too but fail the rule, and the message says what kirc needs.
  auto small = [](const std::string& decl) {
    return Parse(absl::StrCat("kernel t\nworkgroup 64 1 1\ngrid 1 1 1\n", decl,
                              "\n%c = const f32 1.0\nstore y[0, 0], %c\nend\n"));
  };
  EXPECT_EQ(Check(small("arg y : f32[2, 2] strides [2, 3] writeonly")), "OK");
  EXPECT_EQ(Check(small("arg y : f32[3, 2] strides [2, 3] writeonly")),
            "k.kir:4:1: error: in 'arg y': y is writeonly but with strides [2, 3] for shape "
            "[3, 2] kirc cannot show that different indices address different elements "
            "(dimension 1's stride 3 is not larger than 4, the largest offset of the dimensions "
            "with smaller strides); a buffer the kernel may store to must not alias, since "
            "threads writing different indices would race on one address. Give each dimension "
            "a stride larger than the span of the dimensions with smaller strides (e.g. strides "
            "[2, 1]), or declare the buffer readonly if the kernel only reads it (a read-only "
            "buffer may alias, e.g. a stride-0 broadcast)");
}

TEST(ValidateTest, ScalarArgs) {
  Kernel k = Body(kCopyBody);
  k.args[2].elem = ElemType::kF16;
  EXPECT_EQ(Check(k), "k.kir:6:1: error: in 'arg s': scalar arguments must be i32 or f32, found "
                      "f16; pass an f32 and convert it with cvt");
}

TEST(ValidateTest, LdsAllocations) {
  Kernel k = Body(kCopyBody);
  k.lds[0].shape = {};
  EXPECT_EQ(Check(k), "k.kir:8:1: error: in 'lds L': an LDS allocation needs at least one "
                      "dimension, e.g. f16[16, 16]");
  k.lds[0].shape = {2, 0};
  EXPECT_EQ(Check(k), "k.kir:8:1: error: in 'lds L': dimension 1 has extent 0; extents must be at least 1");
  k.lds[0].shape = {64};
  k.lds[0].pad = -1;
  EXPECT_EQ(Check(k), "k.kir:8:1: error: in 'lds L': pad is -1; it must not be negative");
}

TEST(ValidateTest, LdsTotal) {
  std::string decl_prefix = "kernel t\nworkgroup 64 1 1\ngrid 1 1 1\n";
  EXPECT_EQ(Check(Parse(decl_prefix + "lds X : f32[128, 128]\nbarrier\nend\n")), "OK");
  EXPECT_EQ(Check(Parse(decl_prefix + "lds Y : f16[1]\nlds X : f32[128, 127] pad 1\nbarrier\nend\n")),
            "k.kir:5:1: error: in 'lds X': the LDS allocations need 65552 bytes (each aligned "
            "to 16 bytes), more than the 65536 bytes a workgroup has on gfx942; make the "
            "allocations or their padding smaller");
  EXPECT_EQ(Check(Parse(decl_prefix +
                        "lds X : f32[9223372036854775807, 9223372036854775807] pad "
                        "9223372036854775807\nlds Y : f16[1]\nbarrier\nend\n"),
                  "gfx908"),
            "k.kir:4:1: error: in 'lds X': the LDS allocations need 4611686018427387904 bytes "
            "(each aligned to 16 bytes), more than the 65536 bytes a workgroup has on gfx908; "
            "make the allocations or their padding smaller");
}

// ------------------------------------------------------------------- SSA

TEST(ValidateTest, UndefinedAndRedefined) {
  EXPECT_EQ(CheckBody("%x = load A[tid.x] : f32\n%x = load A[tid.x] : f32\n"),
            "k.kir:10:1: error: in '%x = load A[tid.x] : f32': %x is defined twice; rename one of "
            "the definitions");
  EXPECT_EQ(CheckBody("%y = add %x, s\n"),
            "k.kir:9:1: error: in '%y = add %x, s': use of undefined value %x; define it before "
            "this op");
  EXPECT_EQ(CheckBody("%x = zero f32\n%x2 = add %x, %x2\n"),
            "k.kir:10:1: error: in '%x2 = add %x, %x2': use of undefined value %x2; define it "
            "before this op");
}

TEST(ValidateTest, ScalarArgOperands) {
  EXPECT_EQ(CheckBody("%x = zero f32\n%y = add %x, A\n"),
            "k.kir:10:1: error: in '%y = add %x, A': 'A' is a buffer, not a scalar argument; load "
            "from it first");
  EXPECT_EQ(CheckBody("%x = zero f32\n%y = add %x, q\n"),
            "k.kir:10:1: error: in '%y = add %x, q': unknown scalar argument 'q'");
  EXPECT_EQ(CheckBody("store B[tid.x], s\n"),
            "k.kir:9:1: error: in 'store B[tid.x], s': operand s must be an SSA value (%name); "
            "scalar arguments can only be used by add, mul and fma");
  EXPECT_EQ(CheckBody("%c = cvt s : f16\n"),
            "k.kir:9:1: error: in '%c = cvt s : f16': operand s must be an SSA value (%name); "
            "scalar arguments can only be used by add, mul and fma");
}

TEST(ValidateTest, LoopScoping) {
  EXPECT_EQ(CheckBody(R"(for %i = 0 to 2 {
  %t = load A[tid.x] : f32
  yield
}
store B[tid.x], %t
)"),
            "k.kir:13:1: error: in 'store B[tid.x], %t': %t is defined inside a loop body and is "
            "not visible here; pass it out through yield and the loop's results");
  EXPECT_EQ(CheckBody(R"(for %i = 0 to 2 {
  %t = add %i, s
  yield
}
)"),
            "k.kir:10:3: error: in '%t = add %i, s': %i is a loop induction variable; it can only "
            "be used in index expressions");
  EXPECT_EQ(CheckBody(R"(for %i = 0 to 2 {
  for %i = 0 to 2 {
    yield
  }
  yield
}
)"),
            "k.kir:10:3: error: in 'for %i = 0 to 2': %i is defined twice; rename one of the "
            "definitions");
  EXPECT_EQ(CheckBody(R"(%z = zero f32
%z = for %i = 0 to 2 iter(%c = %z) {
  yield %c
}
)"),
            "k.kir:10:1: error: in '%z = for %i = 0 to 2 iter(%c = %z)': %z is defined twice; "
            "rename one of the definitions");
  EXPECT_EQ(CheckBody(R"(%z = zero f32
%r = for %i = 0 to 2 iter(%z = %z) {
  yield %z
}
)"),
            "k.kir:10:1: error: in '%r = for %i = 0 to 2 iter(%z = %z)': %z is defined twice; "
            "rename one of the definitions");
  EXPECT_EQ(CheckBody(R"(%z = zero f32
%r, %s = for %i = 0 to 2 iter(%c = %z, %c = %z) {
  yield %c, %c
}
)"),
            "k.kir:10:1: error: in '%r, %s = for %i = 0 to 2 iter(%c = %z, %c = %z)': %c is "
            "defined twice; rename one of the definitions");
}

// ------------------------------------------------------------ load / store

TEST(ValidateTest, MemoryNames) {
  EXPECT_EQ(CheckBody("%x = load Q[tid.x] : f32\n"),
            "k.kir:9:1: error: in '%x = load Q[tid.x] : f32': unknown buffer or LDS allocation 'Q'");
  EXPECT_EQ(CheckBody("%x = load s[tid.x] : f32\n"),
            "k.kir:9:1: error: in '%x = load s[tid.x] : f32': 's' is a scalar argument, not a "
            "buffer or an LDS allocation");
}

TEST(ValidateTest, IndexCountAndAlong) {
  EXPECT_EQ(CheckBody("%x = load A[tid.x, 0] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x, 0] : f32': A has 1 dimension(s) but the "
            "load has 2 index(es); give one index per dimension");
  EXPECT_EQ(CheckBody("%x = load A[tid.x] along 1 : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x] along 1 : f32': along 1 is not a dimension "
            "of A (dimensions 0..0)");
  Kernel k = Body(kCopyBody);
  k.body[0].along = -1;
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[tid.x] along -1 : f32': along -1 is not a "
                      "dimension of A (dimensions 0..0)");
}

TEST(ValidateTest, AccessModes) {
  EXPECT_EQ(CheckBody("%x = load A[tid.x] : f32\nstore A[tid.x], %x\n"),
            "k.kir:10:1: error: in 'store A[tid.x], %x': A is readonly; storing to it is not "
            "allowed (declare it writeonly or readwrite)");
  EXPECT_EQ(CheckBody("%x = load B[tid.x] : f32\n"),
            "k.kir:9:1: error: in '%x = load B[tid.x] : f32': B is writeonly; loading from it is "
            "not allowed (declare it readonly or readwrite)");
}

TEST(ValidateTest, ElementTypes) {
  EXPECT_EQ(CheckBody("%x = load A[tid.x] : f16\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x] : f16': A holds f32 but the load produces "
            "f16; load f32 and convert it with cvt");
  EXPECT_EQ(CheckBody("%h = const f16x2 1\nstore B[tid.x floordiv 2 * 2], %h\n"),
            "k.kir:10:1: error: in 'store B[tid.x floordiv 2 * 2], %h': B holds f32 but %h is "
            "f16x2; convert it to f32x2 with cvt first");
  Kernel k = Body(kCopyBody);
  k.body[0].type.width = 3;
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[tid.x] : f32x3': f32x3 is not a KIR type: "
                      "the width must be 1, 2, 4, 8 or 16");
}

TEST(ValidateTest, IndexAnalysisErrors) {
  EXPECT_EQ(CheckBody("%x = load A[tid.x + M] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x + M] : f32': unknown constant 'M'");
  EXPECT_EQ(CheckBody("%x = load A[tid.x floordiv 0] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x floordiv 0] : f32': the divisor of 'tid.x "
            "floordiv 0' must be a positive constant");
  EXPECT_EQ(CheckBody("%x = load A[%k] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[%k] : f32': '%k' is not the induction variable of "
            "an enclosing loop");
}

TEST(ValidateTest, MalformedIndexTrees) {
  Kernel k = Body(kCopyBody);
  k.body[0].index[0] = nullptr;
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[?] : f32': index 0 is missing (a null "
                      "expression)");
  k.body[0].index[0] = IAdd(ITid(0), nullptr);
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[?] : f32': index 0: an operand of the "
                      "index expression is missing (null)");
  k.body[0].index[0] = IAdd(ITid(5), IConst(0));
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[?] : f32': index 0: tid dimension 5 is "
                      "not x, y or z (0, 1 or 2)");
  auto bad = std::make_shared<IndexExpr>();
  bad->kind = static_cast<IndexKind>(99);
  k.body[0].index[0] = bad;
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[?] : f32': index 0: unknown index "
                      "expression kind 99");
  // Deep chains and exponential DAGs are refused without deep recursion.
  IndexRef e = ITid(0);
  for (int i = 0; i < 2000; ++i) e = IAdd(e, IConst(0));
  k.body[0].index[0] = e;
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[?] : f32': index 0: the index expression "
                      "is nested more than 512 levels deep; simplify it");
  IndexRef d = ITid(0);
  for (int i = 0; i < 60; ++i) d = ISub(d, d);
  k.body[0].index[0] = d;
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[?] : f32': index 0: the index expression "
                      "has more than 65536 nodes; simplify it");
}

TEST(ValidateTest, Alignment) {
  EXPECT_EQ(CheckBody("%x = load A[tid.x] : f32x4\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x] : f32x4': the f32x4 load needs 16-byte "
            "alignment but its byte offset is only provably 4-byte aligned; make the index along "
            "dimension 0 a multiple of 4 and the other dimensions' strides (or LDS padding) "
            "multiples of 4 elements, or use a narrower type");
  EXPECT_EQ(Check(Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
lds T : f16[16, 16] pad 1
%h = zero f16x4
store T[tid.x mod 16, tid.x floordiv 16 * 4], %h
end
)")),
            "k.kir:6:1: error: in 'store T[tid.x mod 16, tid.x floordiv 16 * 4], %h': the f16x4 "
            "store needs 8-byte alignment but its byte offset is only provably 2-byte aligned; "
            "make the index along dimension 1 a multiple of 4 and the other dimensions' strides "
            "(or LDS padding) multiples of 4 elements, or use a narrower type (pieces of 1 element: a 16-bit vector "
            "slices only at multiples of 2 elements, so slice the wider value it is converted from, such as its f32 "
            "source, into pieces of 1 and cvt each to f16)");
  // Vectors across rows (non-contiguous) need only element alignment.
  EXPECT_EQ(Check(Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
lds Y : f16[3]
lds T : f16[16, 16] pad 1
%h = zero f16x4
store T[tid.x mod 4 * 4, tid.x floordiv 4] along 0, %h
end
)")),
            "OK");
}

TEST(ValidateTest, UnguardedRanges) {
  EXPECT_EQ(CheckBody("%x = load A[tid.x - 1] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x - 1] : f32': the byte offset can be negative "
            "(as low as -4); use `load guarded` or fix the index");
  EXPECT_EQ(CheckBody("%x = load A[tid.x * 1073741824] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x * 1073741824] : f32': index 0 takes values "
            "0..67645734912, outside 0..63 of A; use `load guarded` or fix the index");
  EXPECT_EQ(CheckBody("%x = load A[tid.x + 1] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x + 1] : f32': index 0 takes values 1..64, "
            "outside 0..63 of A; use `load guarded` or fix the index");
  EXPECT_EQ(CheckBody("%x = zero f32\nstore L[tid.x + 1], %x\n"),
            "k.kir:10:1: error: in 'store L[tid.x + 1], %x': index 0 takes values 1..64, outside "
            "0..63 of L; use `store guarded` or fix the index");
  // The last vector element counts (along 0 of C, stride 16 elements).
  EXPECT_EQ(Check(Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg C : f32[16, 16] strides [16, 1] writeonly
%z = zero f32x4
store C[tid.x floordiv 16 * 4 + 1, tid.x mod 16] along 0, %z
end
)")),
            "k.kir:6:1: error: in 'store C[tid.x floordiv 16 * 4 + 1, tid.x mod 16] along 0, %z': "
            "index 0 (with the vector's elements) takes values 1..16, outside 0..15 of C; use "
            "`store guarded` or fix the index");
  // Loop variables range over lo..last with the step.
  EXPECT_EQ(CheckBody(R"(for %i = 0 to 10 step 4 {
  %x = load A[%i * 7 + tid.x] : f32
  yield
}
)"),
            "k.kir:10:3: error: in '%x = load A[%i * 7 + tid.x] : f32': index 0 takes values "
            "0..119, outside 0..63 of A; use `load guarded` or fix the index");
  // An index past one extent that still lands inside the buffer (the next
  // row) is out of shape, not a legal access.
  EXPECT_EQ(Check(Parse(R"(kernel t
workgroup 64 1 1
grid 1 1 1
arg X : f32[16, 4] strides [4, 1] readonly
%x = load X[tid.x floordiv 4, tid.x mod 4 + 1] : f32
end
)")),
            "k.kir:5:1: error: in '%x = load X[tid.x floordiv 4, tid.x mod 4 + 1] : f32': index 1 "
            "takes values 1..4, outside 0..3 of X; use `load guarded` or fix the index");
}

// x - x mod d is d * (x floordiv d): the analysis keeps x and x mod d
// correlated there (fresh-user review 7 F7), and where it cannot, the
// message says it cannot prove the range instead of claiming values.
TEST(ValidateTest, ModAgainstItsDividend) {
  const std::string wg256 = R"(kernel t
target gfx950
workgroup 256 1 1
grid 1 1 1
arg A : f32[256] strides [1] readonly
arg W : f32[512] strides [1] readonly
arg H : f16[2048] strides [1] readonly
lds L : f16[2048]
@BODY@end
)";
  auto check = [&](const std::string& body) {
    return Check(Parse(absl::StrReplaceAll(wg256, {{"@BODY@", body}})), "gfx950");
  };
  // 64 * (tid.x floordiv 64) + 63 over tid.x 0..255: 63, 127, 191, 255.
  EXPECT_EQ(check("%x = load A[tid.x - tid.x mod 64 + 63] : f32\n"), "OK");
  // ... + 64: 64..256 (tid.x = 192..255 gives 256), an exact range.
  EXPECT_EQ(check("%x = load A[tid.x - tid.x mod 64 + 64] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x - tid.x mod 64 + 64] : f32': index 0 takes values 64..256, "
            "outside 0..255 of A; use `load guarded` or fix the index");
  // The dividend's constant: 64 * ((tid.x + 5) floordiv 64) is 0..256 (tid.x
  // = 251 gives 256).
  EXPECT_EQ(check("%x = load A[(tid.x + 5) - (tid.x + 5) mod 64] : f32\n"),
            "k.kir:9:1: error: in '%x = load A[tid.x + 5 - (tid.x + 5) mod 64] : f32': index 0 takes values "
            "0..256, outside 0..255 of A; use `load guarded` or fix the index");
  // The lds_dma base of review 7's F7_dma_sub.kir: waves at bytes 0, 1024,
  // 2048, 3072 of the 4096-byte L.
  EXPECT_EQ(check("lds_dma L[(tid.x - tid.x mod 64) * 8], H[tid.x * 8] : f16x8\n"), "OK");
  // 2 * tid.x - tid.x mod 64 = 128 * (tid.x floordiv 64) + tid.x mod 64 is
  // 0..447 (in W), but the analysis bounds tid.x and tid.x mod 64 apart:
  // 4 * (0 - 63) = -252 bytes is a bound, not a value.
  EXPECT_EQ(check("%x = load W[2 * tid.x - tid.x mod 64] : f32\n"),
            "k.kir:9:1: error: in '%x = load W[2 * tid.x - tid.x mod 64] : f32': cannot prove the byte offset "
            "non-negative (the interval analysis, which bounds each term on its own, gives as low as -252); use "
            "`load guarded` or fix the index");
  // Same index in LDS elements: (0..510 - 0..63) * 4 = -252..2040.
  EXPECT_EQ(check("lds_dma L[(2 * tid.x - tid.x mod 64) * 4], H[tid.x * 8] : f16x8\n"),
            "k.kir:9:1: error: in 'lds_dma L[(2 * tid.x - tid.x mod 64) * 4], H[tid.x * 8] : f16x8': cannot prove "
            "LDS index 0 in 0..2047 of L (the interval analysis, which bounds each term on its own, gives "
            "-252..2040)");
  // Bounds past the shape, stated as bounds: 2 * tid.x + tid.x mod 64 is
  // 0..573 (tid.x = 255), the analysis gives 0..573 too but cannot tell.
  EXPECT_EQ(check("%x = load W[2 * tid.x + tid.x mod 64] : f32\n"),
            "k.kir:9:1: error: in '%x = load W[2 * tid.x + tid.x mod 64] : f32': cannot prove index 0 in 0..511 "
            "of W (the interval analysis, which bounds each term on its own, gives 0..573); use `load guarded` "
            "or fix the index");
}

TEST(ValidateTest, GuardedRanges) {
  EXPECT_EQ(CheckBody("%x = load guarded A[tid.x - 1] : f32\n%y = load guarded A[tid.x * 64] : f32\n"),
            "OK");
  EXPECT_EQ(CheckBody("%x = load guarded A[tid.x * 1073741824] : f32\n"),
            "k.kir:9:1: error: in '%x = load guarded A[tid.x * 1073741824] : f32': index 0 takes "
            "values 0..67645734912, outside the 32-bit range; even guarded accesses need |index| "
            "< 2^31 (reshape a long buffer into more dimensions, e.g. f16[N] as f16[N / 65536, 65536])");
  EXPECT_EQ(CheckBody("%x = zero f32x4\nstore guarded L[2147483644 + tid.x floordiv 16 * 4], %x\n"),
            "k.kir:10:1: error: in 'store guarded L[2147483644 + tid.x floordiv 16 * 4], %x': "
            "index 0 takes values 2147483644..2147483659, outside the 32-bit range; even guarded "
            "accesses need |index| < 2^31 (reshape a long buffer into more dimensions, e.g. f16[N] as "
            "f16[N / 65536, 65536])");
}

// ------------------------------------------------------------------- mfma

TEST(ValidateTest, MfmaChecks) {
  auto body = [](const std::string& mfma_line, const std::string& c_type = "f32x4") {
    return absl::StrCat("%a = zero f16x4\n%a2 = zero f16x2\n%c = zero ", c_type, "\n", mfma_line,
                        "\n");
  };
  EXPECT_EQ(CheckBody(body("%d = mfma f32_16x16x16_f16 %a, %a, %c")), "OK");
  EXPECT_EQ(CheckBody(body("%d = mfma f32_8x8x8_f16 %a, %a, %c")),
            "k.kir:12:1: error: in '%d = mfma f32_8x8x8_f16 %a, %a, %c': unknown MFMA "
            "'f32_8x8x8_f16'; on gfx942 kirc knows f32_16x16x16_f16, f32_16x16x16_bf16, f32_32x32x8_f16, "
            "f32_32x32x8_bf16, f32_16x16x4_f32, f32_16x16x32_fp8_fp8, f32_16x16x32_fp8_bf8, "
            "f32_16x16x32_bf8_fp8, f32_16x16x32_bf8_bf8, f32_32x32x16_fp8_fp8, f32_32x32x16_fp8_bf8, "
            "f32_32x32x16_bf8_fp8, f32_32x32x16_bf8_bf8");
  EXPECT_EQ(CheckBody(body("%d = mfma f32_16x16x16_f16 %a2, %a, %c")),
            "k.kir:12:1: error: in '%d = mfma f32_16x16x16_f16 %a2, %a, %c': operand A (%a2) is "
            "f16x2 but f32_16x16x16_f16 needs f16x4");
  EXPECT_EQ(CheckBody(body("%d = mfma f32_16x16x16_f16 %a, %a2, %c")),
            "k.kir:12:1: error: in '%d = mfma f32_16x16x16_f16 %a, %a2, %c': operand B (%a2) is "
            "f16x2 but f32_16x16x16_f16 needs f16x4");
  EXPECT_EQ(CheckBody(body("%d = mfma f32_16x16x16_f16 %a, %a, %c", "f32x16")),
            "k.kir:12:1: error: in '%d = mfma f32_16x16x16_f16 %a, %a, %c': operand C (%c) is "
            "f32x16 but f32_16x16x16_f16 needs f32x4");
  EXPECT_EQ(CheckBody(body("%d = mfma f32_16x16x16_f16 %a, s, %c")),
            "k.kir:12:1: error: in '%d = mfma f32_16x16x16_f16 %a, s, %c': operand s must be an "
            "SSA value (%name); scalar arguments can only be used by add, mul and fma");
  Kernel k = Body(body("%d = mfma f32_16x16x16_f16 %a, %a, %c"));
  k.body[3].type = ValueType{ElemType::kF32, 16};
  EXPECT_EQ(Check(k), "k.kir:12:1: error: in '%d = mfma f32_16x16x16_f16 %a, %a, %c': the result "
                      "type is f32x16 but f32_16x16x16_f16 produces f32x4");
  EXPECT_EQ(Check(Body(body("%d = mfma f32_16x16x8_bf16 %a, %a, %c")), "gfx942"),
            "k.kir:12:1: error: in '%d = mfma f32_16x16x8_bf16 %a, %a, %c': MFMA f32_16x16x8_bf16 "
            "does not exist on gfx942: use f32_16x16x16_bf16 (a different lane layout)");
  // gfx950 has both bf16_1k forms: the nearest first, the K-doubled one as
  // the faster option (fresh-user review of issue 19, F6: named only that).
  EXPECT_EQ(Check(Body(body("%d = mfma f32_16x16x8_bf16 %a, %a, %c")), "gfx950"),
            "k.kir:12:1: error: in '%d = mfma f32_16x16x8_bf16 %a, %a, %c': MFMA f32_16x16x8_bf16 "
            "does not exist on gfx950: use f32_16x16x16_bf16 (a different lane layout), or "
            "f32_16x16x32_bf16 (32 k per instruction)");
}

// --------------------------------------------------------- const / arith

TEST(ValidateTest, Constants) {
  EXPECT_EQ(CheckBody("%c = const f16 1.1\n"),
            "k.kir:9:1: error: in '%c = const f16 1.1': 1.1 is not exactly representable in f16; "
            "write a value that is (the nearest f16 is 1.099609375)");
  EXPECT_EQ(CheckBody("%c = const f32 0.1\n"),
            "k.kir:9:1: error: in '%c = const f32 0.1': 0.1 is not exactly representable in f32; "
            "write a value that is (the nearest f32 is 0.10000000149011612)");
  EXPECT_EQ(CheckBody("%c = const i32 2.5\n"),
            "k.kir:9:1: error: in '%c = const i32 2.5': 2.5 is not an i32; i32 constants are "
            "integers in [-2147483648, 2147483647]");
  // Echoed as written, not as 3e+09 (issue 13).
  EXPECT_EQ(CheckBody("%c = const i32 3000000000\n"),
            "k.kir:9:1: error: in '%c = const i32 3000000000': 3000000000 is not an i32; i32 constants are "
            "integers in [-2147483648, 2147483647]");
  EXPECT_EQ(CheckBody("%c = const i32 -2147483648\n%d = const bf16x8 -inf\n%e = const f16 nan\n"
                      "%z = zero i32x16\n"),
            "OK");
}

TEST(ValidateTest, Elementwise) {
  EXPECT_EQ(CheckBody("%x = zero f32\n%h = zero f16\n%y = add %x, %h\n"),
            "k.kir:11:1: error: in '%y = add %x, %h': operands have different element types: %x "
            "is f32, %h is f16; convert one with cvt");
  // Review 9 F3: a scalar argument cannot be cvt's operand; the message says
  // what works (the splat it gives is checked to validate below).
  EXPECT_EQ(CheckBody("%h = zero f16x8\n%y = mul %h, s\n"),
            "k.kir:10:1: error: in '%y = mul %h, s': operands have different element types: %h is f16x8, s is "
            "f32; cvt takes SSA values only, so splat the scalar argument into an f32 value and convert that: "
            "%ones = const f32x8 1.0, %s = mul %ones, s, %sc = cvt %s : f16x8, then use %sc (or compute in "
            "f32: cvt %h to f32x8)");
  EXPECT_EQ(CheckBody("%h = zero f16x8\n%ones = const f32x8 1.0\n%s = mul %ones, s\n%sc = cvt %s : f16x8\n"
                      "%y = mul %h, %sc\n"),
            "OK");
  // cvt does not convert i32 (issue 13: the message said "convert one with cvt").
  EXPECT_EQ(CheckBody("%x = zero f32x4\n%y = mul %x, n\n"),
            "k.kir:10:1: error: in '%y = mul %x, n': operands have different element types: %x "
            "is f32x4, n is i32; KIR has no conversion between i32 and the float types (cvt converts "
            "between f32, f16 and bf16): give both operands one type");
  EXPECT_EQ(CheckBody("%x = zero i32x4\n%y = mul %x, s\n"),
            "k.kir:10:1: error: in '%y = mul %x, s': operands have different element types: %x "
            "is i32x4, s is f32; KIR has no conversion between i32 and the float types (cvt converts "
            "between f32, f16 and bf16): give both operands one type");
  EXPECT_EQ(CheckBody("%p = zero f16x2\n%q = zero f16x4\n%y = mul %p, %q\n"),
            "k.kir:11:1: error: in '%y = mul %p, %q': operand %p is f16x2 but %q is f16x4; widths "
            "must match (only width-1 f32 and i32 operands broadcast)");
  EXPECT_EQ(CheckBody("%p = zero f16\n%q = zero f16x4\n%y = add %q, %p\n"),
            "k.kir:11:1: error: in '%y = add %q, %p': operand %p is f16 but %q is f16x4; widths "
            "must match (only width-1 f32 and i32 operands broadcast)");
  EXPECT_EQ(CheckBody("%i = zero i32x2\n%y = fma %i, n, %i\n"),
            "k.kir:10:1: error: in '%y = fma %i, n, %i': fma is defined for float types only, "
            "found i32; use mul and add");
  EXPECT_EQ(CheckBody("%i = zero i32x2\n%y = add %i, n\n%f = zero f32x8\n%g = fma s, %f, s\n"),
            "OK");
}

TEST(ValidateTest, Conversions) {
  EXPECT_EQ(CheckBody("%i = zero i32\n%f = cvt %i : f32\n"),
            "k.kir:10:1: error: in '%f = cvt %i : f32': conversions to or from i32 are not "
            "supported yet (i32 to f32)");
  EXPECT_EQ(CheckBody("%f = zero f32x2\n%i = cvt %f : i32x2\n"),
            "k.kir:10:1: error: in '%i = cvt %f : i32x2': conversions to or from i32 are not "
            "supported yet (f32x2 to i32x2)");
  EXPECT_EQ(CheckBody("%h = zero f16x4\n%f = cvt %h : f32x2\n"),
            "k.kir:10:1: error: in '%f = cvt %h : f32x2': cvt keeps the width: %h is f16x4 but the "
            "result type is f32x2; use f32x4");
  EXPECT_EQ(CheckBody("%h = zero f16x4\n%f = cvt %h : bf16x4\n%g = cvt %f : f32x4\n"), "OK");
}

// concat: one operand type, the result its element type with twice the width,
// whole registers per half.
TEST(ValidateTest, Concats) {
  EXPECT_EQ(CheckBody("%a = zero f16x4\n%b = const f16x4 1.5\n%c = concat %a, %b : f16x8\n"
                      "%x = zero f32\n%y = concat %x, %x : f32x2\n%i = zero i32x8\n%j = concat %i, %i : i32x16\n"),
            "OK");
  EXPECT_EQ(CheckBody("%a = zero f16x4\n%b = zero f16x2\n%c = concat %a, %b : f16x8\n"),
            "k.kir:11:1: error: in '%c = concat %a, %b : f16x8': concat joins two values of one type: %a is "
            "f16x4 but %b is f16x2; cvt or slice one of them to the other's type");
  EXPECT_EQ(CheckBody("%a = zero f16x4\n%b = zero bf16x4\n%c = concat %a, %b : f16x8\n"),
            "k.kir:11:1: error: in '%c = concat %a, %b : f16x8': concat joins two values of one type: %a is "
            "f16x4 but %b is bf16x4; cvt or slice one of them to the other's type");
  EXPECT_EQ(CheckBody("%a = zero f32x16\n%c = concat %a, %a : f32x16\n"),
            "k.kir:10:1: error: in '%c = concat %a, %a : f32x16': concat of two f32x16 values would have 32 "
            "elements, more than a KIR vector holds (the width must be 1, 2, 4, 8 or 16); concat narrower "
            "values or keep the halves apart");
  EXPECT_EQ(CheckBody("%a = zero f16\n%c = concat %a, %a : f16x2\n"),
            "k.kir:10:1: error: in '%c = concat %a, %a : f16x2': concat joins whole registers: each f16 half "
            "fills part of one (2 f16 elements per register); concat values of at least 2 elements, e.g. "
            "load the pair as one f16x2");
  EXPECT_EQ(CheckBody("%a = zero f16x4\n%c = concat %a, %a : f16x4\n"),
            "k.kir:10:1: error: in '%c = concat %a, %a : f16x4': the result type of concat %a, %a is f16x8, "
            "found f16x4; write `: f16x8`");
  EXPECT_EQ(CheckBody("%a = zero f32x2\n%c = concat %a, %a : f16x4\n"),
            "k.kir:10:1: error: in '%c = concat %a, %a : f16x4': the result type of concat %a, %a is f32x4, "
            "found f16x4; write `: f32x4`");
  EXPECT_EQ(CheckBody("%c = concat %u, %u : f32x2\n"),
            "k.kir:9:1: error: in '%c = concat %u, %u : f32x2': use of undefined value %u; define it before "
            "this op");
  EXPECT_EQ(CheckBody("%c = concat s, s : f32x2\n"),
            "k.kir:9:1: error: in '%c = concat s, s : f32x2': operand s must be an SSA value (%name); "
            "scalar arguments can only be used by add, mul and fma");
}

TEST(ValidateTest, Slices) {
  EXPECT_EQ(CheckBody("%d = zero f32x16\n%q = slice %d, 12 : f32x4\n%h = zero f16x8\n"
                      "%p = slice %h, 6 : f16x2\n%e = slice %h, 4 : f16\n"),
            "OK");
  EXPECT_EQ(CheckBody("%d = zero f32x16\n%q = slice %d, 4 : f16x4\n"),
            "k.kir:10:1: error: in '%q = slice %d, 4 : f16x4': slice keeps the element type: %d is "
            "f32x16 but the result type is f16x4; use cvt to convert");
  EXPECT_EQ(CheckBody("%d = zero f32x8\n%q = slice %d, 6 : f32x4\n"),
            "k.kir:10:1: error: in '%q = slice %d, 6 : f32x4': elements 6..9 are not all in %d "
            "(f32x8, elements 0..7)");
  EXPECT_EQ(CheckBody("%h = zero f16x4\n%q = slice %h, 1 : f16x2\n"),
            "k.kir:10:1: error: in '%q = slice %h, 1 : f16x2': a slice of a 16-bit vector must "
            "start at an even element (a register boundary), found 1");
  EXPECT_EQ(CheckBody("%q = slice s, 0 : f32\n"),
            "k.kir:9:1: error: in '%q = slice s, 0 : f32': operand s must be an SSA value (%name); "
            "scalar arguments can only be used by add, mul and fma");
  Kernel k = Body("%d = zero f32x4\n%q = slice %d, 0 : f32\n");
  k.body[1].first = -1;
  EXPECT_EQ(Check(k), "k.kir:10:1: error: in '%q = slice %d, -1 : f32': elements -1..-1 are not "
                      "all in %d (f32x4, elements 0..3)");
}

TEST(ValidateTest, Arity) {
  Kernel k = Body("%x = zero f32\n%y = add %x, %x\n");
  k.body[1].operands.pop_back();
  EXPECT_EQ(Check(k), "k.kir:10:1: error: in '%y = add %x': 'add' takes 2 operand(s), found 1");
  k = Body(kCopyBody);
  k.body[0].results.clear();
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in 'load A[tid.x] : f32': 'load' defines exactly one "
                      "result, found 0");
  k = Body(kCopyBody);
  k.body[1].results = {"r"};
  EXPECT_EQ(Check(k), "k.kir:10:1: error: in '%r = store B[tid.x], %x': 'store' does not define a "
                      "result");
  k = Body(kCopyBody);
  k.body[1].kind = static_cast<OpKind>(42);
  EXPECT_EQ(Check(k), "k.kir:10:1: error: in 'op kind 42': unknown op kind 42");
}

// ------------------------------------------------------------------- loops

TEST(ValidateTest, LoopBoundsAndStep) {
  EXPECT_EQ(CheckBody("for %i = 4 to 4 {\n  yield\n}\n"),
            "k.kir:9:1: error: in 'for %i = 4 to 4': the loop runs zero times (4 >= 4); empty "
            "loops are not allowed: remove it or fix the bounds");
  Kernel k = Body("for %i = 0 to 4 {\n  yield\n}\n");
  k.body[0].step = 0;
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in 'for %i = 0 to 4 step 0': the step must be positive, "
                      "found 0");
  EXPECT_EQ(CheckBody("for %i = 0 to 4294967296 step 2 {\n  yield\n}\n"),
            "k.kir:9:1: error: in 'for %i = 0 to 4294967296 step 2': the induction variable takes "
            "values 0..4294967294, outside the 32-bit range; keep the bounds within [-2^31, 2^31)");
  EXPECT_EQ(CheckBody("for %i = -9223372036854775808 to 9223372036854775807 step "
                      "9223372036854775807 {\n  yield\n}\n"),
            "k.kir:9:1: error: in 'for %i = -9223372036854775808 to 9223372036854775807 step "
            "9223372036854775807': the induction variable takes values "
            "-9223372036854775808..9223372036854775806, outside the 32-bit range; keep the bounds within "
            "[-2^31, 2^31)");
  EXPECT_EQ(CheckBody("for %i = -2147483648 to 2147483648 {\n  yield\n}\n"), "OK");
}

TEST(ValidateTest, LoopIterArgsAndYield) {
  EXPECT_EQ(CheckBody(R"(%z = zero f32x4
%r = for %i = 0 to 4 iter(%c = %z) {
  yield
}
)"),
            "k.kir:11:3: error: in 'yield': yield passes 0 value(s) but the loop has 1 iter_arg(s)");
  EXPECT_EQ(CheckBody(R"(%z = zero f32x4
%r = for %i = 0 to 4 iter(%c = %z) {
  %x = load A[tid.x] : f32
  yield %x
}
)"),
            "k.kir:12:3: error: in 'yield %x': yield operand 0 (%x) is f32 but iter_arg %c is "
            "f32x4; yield a value of the iter_arg's type");
  EXPECT_EQ(CheckBody(R"(%r = for %i = 0 to 4 iter(%c = %u) {
  yield %c
}
)"),
            "k.kir:9:1: error: in '%r = for %i = 0 to 4 iter(%c = %u)': use of undefined value %u; "
            "define it before this op");
  // Results take the iter_args' types.
  EXPECT_EQ(CheckBody(R"(%z = zero f32x4
%r = for %i = 0 to 4 iter(%c = %z) {
  yield %c
}
store B[tid.x], %r
)"),
            "k.kir:13:1: error: in 'store B[tid.x], %r': the f32x4 store needs 16-byte alignment "
            "but its byte offset is only provably 4-byte aligned; make the index along dimension 0 "
            "a multiple of 4 and the other dimensions' strides (or LDS padding) multiples of 4 "
            "elements, or use a narrower type");

  Kernel k = Body("%z = zero f32\n%r = for %i = 0 to 4 iter(%c = %z) {\n  yield %c\n}\n");
  Op& loop = k.body[1];
  loop.results.push_back("r2");
  EXPECT_EQ(Check(k), "k.kir:10:1: error: in '%r, %r2 = for %i = 0 to 4 iter(%c = %z)': 'for' "
                      "defines 2 result(s) but has 1 iter_arg(s)");
  loop.results.pop_back();
  loop.operands.clear();
  EXPECT_EQ(Check(k), "k.kir:10:1: error: in '%r = for %i = 0 to 4 iter(%c = ?)': 'for' has 1 "
                      "iter_arg(s) but 0 initial value(s)");
  k = Body("%z = zero f32\n%r = for %i = 0 to 4 iter(%c = %z) {\n  yield %c\n}\n");
  Op& l2 = k.body[1];
  l2.body.pop_back();
  EXPECT_EQ(Check(k), "k.kir:10:1: error: in '%r = for %i = 0 to 4 iter(%c = %z)': the loop body "
                      "must end with 'yield' (one value per iter_arg)");
  Op yield;
  yield.kind = OpKind::kYield;
  yield.operands = {Operand{"c"}};
  l2.body = {yield, yield};
  EXPECT_EQ(Check(k), "error: in 'yield %c': 'yield' must be the last op of a 'for' body");
  k = Body(kCopyBody);
  k.body.push_back(yield);
  EXPECT_EQ(Check(k), "error: in 'yield %c': 'yield' outside of a 'for' body");
}

TEST(ValidateTest, InvalidEnumValues) {
  Kernel k = Body(kCopyBody);
  k.args[0].elem = static_cast<ElemType>(99);
  EXPECT_EQ(Check(k), "k.kir:4:1: error: in 'arg A': unknown element type 99");
  k = Body(kCopyBody);
  k.args[0].kind = static_cast<Arg::Kind>(5);
  EXPECT_EQ(Check(k), "k.kir:4:1: error: in 'arg A': unknown argument kind 5");
  k = Body(kCopyBody);
  k.lds[0].elem = static_cast<ElemType>(99);
  EXPECT_EQ(Check(k), "k.kir:8:1: error: in 'lds L': unknown element type 99");
  k = Body(kCopyBody);
  k.body[0].type.elem = static_cast<ElemType>(99);
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[tid.x] : ?': unknown element type 99");
}

Op NestedLoops(int depth) {
  Op yield;
  yield.kind = OpKind::kYield;
  Op inner;
  inner.kind = OpKind::kBarrier;
  std::vector<Op> body = {inner, yield};
  Op loop;
  for (int d = depth - 1; d >= 0; --d) {
    loop = Op{};
    loop.kind = OpKind::kFor;
    loop.ivar = absl::StrCat("i", d);
    loop.lo = 0;
    loop.hi = 2;
    loop.body = std::move(body);
    body = {loop, yield};
  }
  return loop;
}

TEST(ValidateTest, LoopNesting) {
  Kernel k = Body(kCopyBody);
  k.body = {NestedLoops(64)};
  EXPECT_EQ(Check(k), "OK");
  k.body = {NestedLoops(65)};
  EXPECT_EQ(Check(k), "error: in 'for %i64 = 0 to 2': loops are nested more than 64 deep; flatten "
                      "or split the loop nest");
  k.body = {NestedLoops(1000)};
  EXPECT_EQ(Check(k), "error: in 'for %i64 = 0 to 2': loops are nested more than 64 deep; flatten "
                      "or split the loop nest");
}

TEST(ValidateTest, HugeValuesDoNotCrash) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // A stride that is never used (extent 1) may be huge.
  std::string prefix = "kernel t\nworkgroup 64 1 1\ngrid 1 1 1\n";
  EXPECT_EQ(Check(Parse(prefix + "arg A : f32[1, 64] strides [9223372036854775807, 1] readwrite\n"
                                 "%x = load A[0, tid.x] : f32\nstore A[tid.x floordiv 64, tid.x], %x\n"
                                 "end\n")),
            "OK");
  EXPECT_EQ(Check(Parse(prefix + "arg A : f32[1, 64] strides [9223372036854775807, 1] readwrite\n"
                                 "%x = load A[tid.x, 0] : f32\nend\n")),
            "k.kir:5:1: error: in '%x = load A[tid.x, 0] : f32': index 0 takes values 0..63, outside "
            "0..0 of A; use `load guarded` or fix the index");
  Kernel k = Body(kCopyBody);
  k.body[0].index[0] = IMul(IConst(kMax), ITid(0));
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[9223372036854775807 * tid.x] : f32': "
                      "index expression '9223372036854775807 * tid.x' exceeds the 64-bit range");
  k.body[0].index[0] = IConst(kMin);
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load A[-9223372036854775808] : f32': the byte "
                      "offset can be negative (as low as -4611686018427387904); use `load "
                      "guarded` or fix the index");
  k.body[0].guarded = true;
  EXPECT_EQ(Check(k), "k.kir:9:1: error: in '%x = load guarded A[-9223372036854775808] : f32': "
                      "index 0 takes values -9223372036854775808..-9223372036854775808, outside "
                      "the 32-bit range; even guarded accesses need |index| < 2^31 (reshape a long buffer into "
                      "more dimensions, e.g. f16[N] as f16[N / 65536, 65536])");
  Kernel c = Body("%c = const f32 1\n");
  c.body[0].constant = 1e300;
  EXPECT_EQ(Check(c), "k.kir:9:1: error: in '%c = const f32 1e+300': 1e+300 is not exactly "
                      "representable in f32; write a value that is (the nearest f32 is inf)");
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// ------------------------------------------------------------- fp8 (issue 19)

constexpr char kFp8Prelude[] = R"(kernel q
workgroup 64 1 1
grid 1 1 1
arg X : f32[256] strides [1] readonly
arg Q : f8e4m3fnuz[256] strides [1] writeonly
arg R : f8e5m2fnuz[256] strides [1] readwrite
arg s : f32
lds L : f8e4m3fnuz[256]
)";

std::string CheckFp8(const std::string& body, const std::string& target = "gfx942") {
  return Check(Parse(absl::StrCat(kFp8Prelude, body, "end\n")), target);
}

// Fresh-user review 23 F2: an fp8 vector store at an offset of too little
// alignment was told to "use a narrower type", but an fp8 slice must start
// at a multiple of 4 elements and an x2 store needs 2-byte alignment. The
// refusal names the pieces that fit and how to make them; followed, the
// kernel validates.
TEST(ValidateTest, Fp8UnalignedStoreSaysHowToNarrow) {
  const std::string load = "%x = load X[tid.x * 4] : f32x4\n";
  EXPECT_EQ(CheckFp8(load + "%q = cvt %x : f8e4m3fnuzx4\nstore Q[tid.x * 3], %q\n"),
            "k.kir:11:1: error: in 'store Q[tid.x * 3], %q': the f8e4m3fnuzx4 store needs 4-byte alignment but "
            "its byte offset is only provably 1-byte aligned; make the index along dimension 0 a multiple of 4 and the "
            "other dimensions' strides (or LDS padding) multiples of 4 elements, or use a narrower type (pieces of 1 "
            "element: an fp8 vector slices only at multiples of 4 elements, so slice the wider value it is converted "
            "from, such as its f32 source, into pieces of 1 and cvt each to f8e4m3fnuz)");
  std::string pieces = load;
  for (int i = 0; i < 4; ++i)
    absl::StrAppend(&pieces, "%x", i, " = slice %x, ", i, " : f32\n%q", i, " = cvt %x", i, " : f8e4m3fnuz\nstore Q[tid.x * 3 + ",
                    i, "], %q", i, "\n");
  EXPECT_EQ(CheckFp8(pieces), "OK");
}

// Review 5 F7: fp8 refusals suggest only what kirc accepts. A 32-wide fp8
// value has no 32-wide f16 counterpart (widths up to 16): slice it; two fp8
// types are joined through f32 (no cvt between fp8 types). Each suggestion,
// followed, validates.
TEST(ValidateTest, Fp8RefusalsSuggestWhatWorks) {
  const std::string wide = "%r = load R[0] : f8e5m2fnuzx16\n%c = concat %r, %r : f8e5m2fnuzx32\n";
  EXPECT_EQ(CheckFp8(wide + "%f = cvt %c : f16x16\n"),
            "k.kir:11:1: error: in '%f = cvt %c : f16x16': cvt keeps the width: %c is f8e5m2fnuzx32 but the "
            "result type is f16x16; f16x32 does not exist, so slice %c into halves (slice %c, 0 : f8e5m2fnuzx16 "
            "and slice %c, 16 : f8e5m2fnuzx16) and convert each");
  EXPECT_EQ(CheckFp8(wide + "%l = slice %c, 0 : f8e5m2fnuzx16\n%h = slice %c, 16 : f8e5m2fnuzx16\n"
                            "%f = cvt %l : f16x16\n%g = cvt %h : f16x16\n"),
            "OK");
  const std::string two = "%a = load R[tid.x * 4] : f8e5m2fnuzx4\n%b = load L[tid.x * 4] : f8e4m3fnuzx4\n";
  EXPECT_EQ(CheckFp8(two + "%c = concat %a, %b : f8e5m2fnuzx8\n"),
            "k.kir:11:1: error: in '%c = concat %a, %b : f8e5m2fnuzx8': concat joins two values of one type: %a "
            "is f8e5m2fnuzx4 but %b is f8e4m3fnuzx4; convert one of them to the other's type through f32 (two cvt "
            "ops; slice it first if the widths differ)");
  EXPECT_EQ(CheckFp8(two + "%f = cvt %b : f32x4\n%g = cvt %f : f8e5m2fnuzx4\n%c = concat %a, %g : f8e5m2fnuzx8\n"),
            "OK");
}

TEST(ValidateTest, Fp8QuantizeValidOnGfx942) {
  EXPECT_EQ(CheckFp8(R"(%x = load X[tid.x * 4] : f32x4
%y = mul %x, s
%q = cvt %y : f8e4m3fnuzx4
store Q[tid.x * 4], %q
store L[tid.x * 4], %q
barrier
%l = load L[tid.x * 4] : f8e4m3fnuzx4
%p = slice %l, 0 : f8e4m3fnuzx2
%f = cvt %p : f32x2
%r = load R[tid.x * 4] : f8e5m2fnuzx4
%g = cvt %r : f32x4
)"),
            "OK");
  // x32 is an fp8 width.
  EXPECT_EQ(CheckFp8("%r = load R[tid.x floordiv 8 * 32] : f8e5m2fnuzx32\n%h = slice %r, 16 : f8e5m2fnuzx16\n"),
            "OK");
}

TEST(ValidateTest, Fp8RefusedOnTargetsWithoutIt) {
  Kernel k = Parse(absl::StrCat(kFp8Prelude, "%x = load X[tid.x] : f32\nend\n"));
  for (const char* t : {"gfx908", "gfx90a"})
    EXPECT_EQ(Check(k, t),
              absl::StrCat("k.kir:5:1: error: in 'arg Q': f8e4m3fnuz is not available on ", t,
                           ", which has no fp8 types (gfx942: f8e4m3fnuz and f8e5m2fnuz, the AMD "
                           "FNUZ formats; gfx950: f8e4m3fn and f8e5m2, the OCP formats); use a "
                           "type the target has or another --mcpu"));
  // OCP types on gfx942: a buffer, an LDS allocation, a value.
  EXPECT_EQ(Check(Parse(R"(kernel q
workgroup 64 1 1
grid 1 1 1
arg Q : f8e4m3fn[64] strides [1] readonly
end
)")),
            "k.kir:4:1: error: in 'arg Q': f8e4m3fn is not available on gfx942, which has "
            "f8e4m3fnuz and f8e5m2fnuz (gfx942: f8e4m3fnuz and f8e5m2fnuz, the AMD FNUZ formats; "
            "gfx950: f8e4m3fn and f8e5m2, the OCP formats); use a type the target has or another "
            "--mcpu");
  EXPECT_EQ(Check(Parse(R"(kernel q
workgroup 64 1 1
grid 1 1 1
lds L : f8e5m2[64]
end
)")),
            "k.kir:4:1: error: in 'lds L': f8e5m2 is not available on gfx942, which has "
            "f8e4m3fnuz and f8e5m2fnuz (gfx942: f8e4m3fnuz and f8e5m2fnuz, the AMD FNUZ formats; "
            "gfx950: f8e4m3fn and f8e5m2, the OCP formats); use a type the target has or another "
            "--mcpu");
  EXPECT_EQ(CheckFp8("%x = load X[tid.x] : f32\n%q = cvt %x : f8e5m2\n"),
            "k.kir:10:1: error: in '%q = cvt %x : f8e5m2': f8e5m2 is not available on gfx942, "
            "which has f8e4m3fnuz and f8e5m2fnuz (gfx942: f8e4m3fnuz and f8e5m2fnuz, the AMD FNUZ "
            "formats; gfx950: f8e4m3fn and f8e5m2, the OCP formats); use a type the target has or "
            "another --mcpu");
  // A scalar fp8 argument (built through the API: the parser refuses it):
  // scalars are i32 or f32; on gfx90a the missing type comes first.
  Kernel sk = Parse(R"(kernel q
workgroup 64 1 1
grid 1 1 1
arg a : f32
end
)");
  sk.args[0].elem = ElemType::kF8E4M3FNUZ;
  EXPECT_EQ(Check(sk),
            "k.kir:4:1: error: in 'arg a': scalar arguments must be i32 or f32, found f8e4m3fnuz; "
            "pass an f32 and convert it with cvt");
  EXPECT_EQ(Check(sk, "gfx90a"),
            "k.kir:4:1: error: in 'arg a': f8e4m3fnuz is not available on gfx90a, which has no "
            "fp8 types (gfx942: f8e4m3fnuz and f8e5m2fnuz, the AMD FNUZ formats; gfx950: f8e4m3fn "
            "and f8e5m2, the OCP formats); use a type the target has or another --mcpu");
}

TEST(ValidateTest, Fp8ArithmeticRefused) {
  EXPECT_EQ(CheckFp8("%r = load R[tid.x * 4] : f8e5m2fnuzx4\n%a = add %r, %r\n"),
            "k.kir:10:1: error: in '%a = add %r, %r': 'add' does not take fp8 values (%r is "
            "f8e5m2fnuzx4); fp8 values can only be loaded, stored, sliced, concatenated, converted "
            "and used as the A and B operands of an fp8 mfma: cvt them to f32, compute in f32 and cvt back");
  EXPECT_EQ(CheckFp8("%r = load R[tid.x] : f8e5m2fnuz\n%a = mul %r, s\n"),
            "k.kir:10:1: error: in '%a = mul %r, s': 'mul' does not take fp8 values (%r is "
            "f8e5m2fnuz); fp8 values can only be loaded, stored, sliced, concatenated, converted "
            "and used as the A and B operands of an fp8 mfma: cvt them to f32, compute in f32 and cvt back");
  EXPECT_EQ(CheckFp8("%r = load R[tid.x] : f8e5m2fnuz\n%a = fma %r, %r, %r\n"),
            "k.kir:10:1: error: in '%a = fma %r, %r, %r': 'fma' does not take fp8 values (%r is "
            "f8e5m2fnuz); fp8 values can only be loaded, stored, sliced, concatenated, converted "
            "and used as the A and B operands of an fp8 mfma: cvt them to f32, compute in f32 and cvt back");
  EXPECT_EQ(CheckFp8("%z = zero f8e4m3fnuzx4\n"),
            "k.kir:9:1: error: in '%z = zero f8e4m3fnuzx4': 'zero' does not take fp8 values "
            "(result is f8e4m3fnuzx4); fp8 values can only be loaded, stored, sliced, concatenated, "
            "converted and used as the A and B operands of an fp8 mfma: cvt them to f32, compute in f32 "
            "and cvt back");
  EXPECT_EQ(CheckFp8("%r = load R[tid.x] : f8e5m2fnuz\n%h = cvt %r : f16\n%g = cvt %h : f8e4m3fnuz\n"),
            "OK");  // f16/bf16 through f32
  EXPECT_EQ(CheckFp8("%r = load R[tid.x] : f8e5m2fnuz\n%h = cvt %r : f8e4m3fnuz\n"),
            "k.kir:10:1: error: in '%h = cvt %r : f8e4m3fnuz': cvt does not convert between two fp8 "
            "types (f8e5m2fnuz to f8e4m3fnuz); convert through f32 with two cvt ops");
  EXPECT_EQ(CheckFp8("%r = load R[tid.x * 4] : f8e5m2fnuzx4\n%h = slice %r, 2 : f8e5m2fnuzx2\n"),
            "k.kir:10:1: error: in '%h = slice %r, 2 : f8e5m2fnuzx2': a slice of an fp8 vector "
            "must start at a multiple of 4 (a register boundary), found 2");
  // Built through the API (the parser refuses f32x32 itself).
  Kernel wk = Parse(absl::StrCat(kFp8Prelude, "%x = load X[tid.x] : f32x16\nend\n"));
  wk.body[0].type.width = 32;
  EXPECT_EQ(Check(wk),
            "k.kir:9:1: error: in '%x = load X[tid.x] : f32x32': f32x32 is not a KIR type: the "
            "width must be 1, 2, 4, 8 or 16");
  EXPECT_EQ(CheckFp8(R"(%r = load R[tid.x] : f8e5m2fnuz
%o = for %i = 0 to 2 iter(%c = %r) {
  yield %c
}
)"),
            "k.kir:10:1: error: in '%o = for %i = 0 to 2 iter(%c = %r)': loop-carried fp8 values "
            "must fill whole 32-bit registers (a width that is a multiple of 4; %r is "
            "f8e5m2fnuz); carry the f32 values and cvt after the loop, or load the fp8 values "
            "inside the body");
}

}  // namespace
}  // namespace kir

namespace kir {
namespace {

// lds_dma (gfx950's LDS DMA): what the validator accepts and refuses.
constexpr char kDma[] = R"(kernel dma
workgroup 64 2 1
grid 1 1 1
arg A : f32[128, 4] strides [4, 1] readonly
arg H : f16[128, 8] strides [8, 1] readonly
lds L : f32[130, 4]
  lds_dma L[tid.y * 64, 0], A[tid.y * 64 + 63 - tid.x, 0] : f32x4
end
)";

std::string CheckDma(const std::string& from, const std::string& to, const std::string& target = "gfx950") {
  return Check(Parse(absl::StrReplaceAll(kDma, {{from, to}})), target);
}

TEST(ValidateTest, LdsDma) {
  EXPECT_EQ(CheckDma("", ""), "OK");
  for (const char* t : {"gfx908", "gfx90a", "gfx942"})
    EXPECT_NE(CheckDma("", "", t).find(absl::StrCat("does not exist on ", t, "; it is gfx950 only")),
              std::string::npos)
        << t;
  EXPECT_NE(CheckDma("A[tid.y * 64 + 63 - tid.x, 0] : f32x4", "A[tid.y * 64 + 63 - tid.x, 0] : f32x2")
                .find("lds_dma copies 16 bytes per lane but f32x2 is 8 bytes"),
            std::string::npos);
  // The base must be the same in all 64 lanes of a wave: the validator
  // evaluates it at each wave's 64 linear thread ids (review6 F7). With 64
  // x 2 the lanes of a wave have tid.x 0..63, so tid.x floordiv 64, 128 and
  // 96 are 0 in every lane; by hand, tid.x floordiv 32 is 1 at lane 32 (16
  // bytes: one f32x4 row), (tid.x + 1) floordiv 64 is 1 at lane 63, and
  // tid.x mod 64 is 1 at lane 1.
  for (const char* uniform : {"L[tid.x floordiv 64 + tid.y * 64, 0]", "L[tid.x floordiv 128 + tid.y * 64, 0]",
                              "L[tid.x floordiv 96 + tid.y * 64, 0]"})
    EXPECT_EQ(CheckDma("L[tid.y * 64, 0]", uniform), "OK") << uniform;
  struct LaneVarying {
    const char* base;
    const char* lanes;
  };
  for (const LaneVarying& c :
       {LaneVarying{"tid.x floordiv 32 + tid.y * 64", "lanes 0 and 32 of wave 0 (tid (0, 0, 0) and (32, 0, 0)): byte "
                                                      "offsets 0 and 16"},
        LaneVarying{"(tid.x + 1) floordiv 64 + tid.y * 64", "lanes 0 and 63 of wave 0 (tid (0, 0, 0) and (63, 0, 0)): "
                                                            "byte offsets 0 and 16"},
        LaneVarying{"tid.x mod 64 + tid.y * 64", "lanes 0 and 1 of wave 0 (tid (0, 0, 0) and (1, 0, 0)): byte "
                                                 "offsets 0 and 16"}}) {
    const std::string got = CheckDma("L[tid.y * 64, 0]", absl::StrCat("L[", c.base, ", 0]"));
    EXPECT_NE(got.find(absl::StrCat("the lds_dma base L[", c.base, ", 0] differs between ", c.lanes,
                                    "; it must be the same in all 64 lanes of a wave")),
              std::string::npos)
        << c.base << ": " << got;
  }
  // Every lane is checked, also after one the affine check could not show
  // equal that is equal at every value: with q = tid.x floordiv 16 and w =
  // wg.x in 0..1, row (q w^2 + q w) mod 2 + (tid.x floordiv 32) w is, by
  // hand, 0 at q = 0 and q = 1 (w^2 + w is even), but w = 1 at lane 32.
  {
    const std::string got =
        Check(Parse(absl::StrReplaceAll(
                  kDma, {{"grid 1 1 1", "grid 2 1 1"},
                         {"L[tid.y * 64, 0]", "L[(tid.x floordiv 16 * wg.x * wg.x + tid.x floordiv 16 * wg.x) mod 2 + "
                                              "tid.x floordiv 32 * wg.x + tid.y * 64, 0]"}})),
              "gfx950");
    EXPECT_NE(got.find("differs between lanes 0 and 32 of wave 0 (tid (0, 0, 0) and (32, 0, 0)): byte offsets 0 and "
                       "16 at wg.x = 1"),
              std::string::npos)
        << got;
  }
  // Four waves along x, each its own 1024 bytes: accepted.
  const std::string wide = absl::StrReplaceAll(kDma, {{"workgroup 64 2 1", "workgroup 256 1 1"},
                                                      {"arg A : f32[128, 4]", "arg A : f32[256, 4]"},
                                                      {"lds L : f32[130, 4]", "lds L : f32[256, 4]"},
                                                      {"L[tid.y * 64, 0], A[tid.y * 64 + 63 - tid.x, 0]",
                                                       "L[(tid.x floordiv 64) * 64, 0], A[255 - tid.x, 0]"}});
  EXPECT_EQ(Check(Parse(wide), "gfx950"), "OK");
  // A base the same for several waves: they write the same LDS bytes at
  // once, refused (F2b; before, only the emulator's race check found it).
  EXPECT_EQ(Check(Parse(absl::StrReplaceAll(wide, {{"L[(tid.x floordiv 64) * 64, 0]", "L[64, 0]"}})), "gfx950"),
            "k.kir:7:3: error: in 'lds_dma L[64, 0], A[255 - tid.x, 0] : f32x4': the lds_dma base does not depend "
            "on tid.x, so waves that differ only in tid.x floordiv 64 (4 of them) write the same 1024 LDS bytes at "
            "once, a race between waves; give each wave its own 1024 bytes, e.g. L[tid.x floordiv 64 * 64, 0]");
  EXPECT_NE(CheckDma("L[tid.y * 64, 0]", "L[64, 0]")
                .find("the lds_dma base does not depend on tid.y, so waves that differ only in tid.y (2 of them) "
                      "write the same 1024 LDS bytes at once"),
            std::string::npos);
  // Bases that read the wave ids but still give two waves the same (or
  // overlapping) LDS bytes (fresh-user review 5 F5): the check evaluates the
  // base at every wave's first lane. By hand: with 128 x 1 x 1, tid.x
  // floordiv 128 is 0 in both waves; with 256 x 1 x 1 waves 0 and 2 have
  // tid.x floordiv 64 mod 2 = 0; with 64 x 4 x 1, tid.y 0 and 2 give
  // tid.y mod 2 = 0; tid.y * 63 rows of 16 bytes are 1008 < 1024 bytes apart.
  const std::string wide3 = absl::StrReplaceAll(
      wide, {{"lds L : f32[256, 4]", "lds L : f32[2, 64, 4]"},
             {"L[(tid.x floordiv 64) * 64, 0]", "L[B, 0, 0]"}});
  struct Collide {
    const char* workgroup;
    const char* base;
    const char* waves;
  };
  for (const Collide& c : {Collide{"128 1 1", "tid.x floordiv 128",
                                   "tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 and tid.x floordiv 64 = 1, tid.y = 0, "
                                   "tid.z = 0 (byte offsets differ by 0)"},
                           Collide{"256 1 1", "tid.x floordiv 128",
                                   "tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 and tid.x floordiv 64 = 1, tid.y = 0, "
                                   "tid.z = 0 (byte offsets differ by 0)"},
                           Collide{"256 1 1", "tid.x floordiv 64 mod 2",
                                   "tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 and tid.x floordiv 64 = 2, tid.y = 0, "
                                   "tid.z = 0 (byte offsets differ by 0)"},
                           Collide{"64 4 1", "tid.y mod 2",
                                   "tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 and tid.x floordiv 64 = 0, tid.y = 2, "
                                   "tid.z = 0 (byte offsets differ by 0)"},
                           Collide{"128 1 1", "tid.x floordiv 64 * 0",
                                   "tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 and tid.x floordiv 64 = 1, tid.y = 0, "
                                   "tid.z = 0 (byte offsets differ by 0)"}}) {
    const std::string k = absl::StrReplaceAll(
        wide3, {{"workgroup 256 1 1", absl::StrCat("workgroup ", c.workgroup)}, {"L[B, 0, 0]",
                                                                                  absl::StrCat("L[", c.base, ", 0, 0]")}});
    const std::string got = Check(Parse(k), "gfx950");
    EXPECT_NE(got.find(absl::StrCat("k.kir:7:3: error: in 'lds_dma L[", c.base, ", 0, 0], A[255 - tid.x, 0] : f32x4': "
                                    "the lds_dma base L[")),
              std::string::npos)
        << c.workgroup << " " << c.base << ": " << got;
    EXPECT_NE(got.find(absl::StrCat("for the waves with ", c.waves, ", so they write overlapping LDS bytes at once "
                                    "(each wave writes 1024), a race between waves; give each wave its own 1024 bytes")),
              std::string::npos)
        << c.workgroup << " " << c.base << ": " << got;
  }
  EXPECT_NE(Check(Parse(absl::StrReplaceAll(wide3, {{"L[B, 0, 0]", "L[tid.x floordiv 128, 0, 0]"}})), "gfx950")
                .find("e.g. L[tid.x floordiv 64, 0, 0], with L enlarged to hold the 4 waves' 4096 bytes (it has 2048)"),
            std::string::npos);
  // The same allocation with bases that do tell the waves apart: accepted.
  for (const auto& [wg, base] : std::vector<std::pair<const char*, const char*>>{
           {"128 1 1", "tid.x floordiv 64"}, {"64 2 1", "tid.y"}, {"128 1 1", "1 - tid.x floordiv 64"}})
    EXPECT_EQ(Check(Parse(absl::StrReplaceAll(wide3, {{"workgroup 256 1 1", absl::StrCat("workgroup ", wg)},
                                                        {"L[B, 0, 0]", absl::StrCat("L[", base, ", 0, 0]")}})),
                      "gfx950"),
                "OK")
          << wg << " " << base;
  EXPECT_NE(CheckDma("L[tid.y * 64, 0]", "L[tid.y * 63, 0]")
                .find("is less than a wave's bytes apart for the waves with tid.x floordiv 64 = 0, tid.y = 0, "
                      "tid.z = 0 and tid.x floordiv 64 = 0, tid.y = 1, tid.z = 0 (byte offsets differ by 1008)"),
            std::string::npos);
  EXPECT_NE(CheckDma(", A[", ", guarded A[").find("does not take `guarded`"), std::string::npos);
  // The global side out of bounds or misaligned: no `guarded`, no narrower
  // type to suggest (fresh-user review F3).
  const std::string outside = CheckDma("A[tid.y * 64 + 63 - tid.x, 0]", "A[tid.y * 64 + 64 - tid.x, 0]");
  EXPECT_NE(outside.find("index 0 takes values 1..128, outside 0..127 of A; check the index, shrink the extent "
                         "feeding it (a loop bound, the workgroup or the tile), or make A bigger (lds_dma has "
                         "no `guarded` form)"),
            std::string::npos)
      << outside;
  const std::string misaligned = CheckDma("arg A : f32[128, 4] strides [4, 1]", "arg A : f32[128, 4] strides [5, 1]");
  EXPECT_NE(misaligned.find("the f32x4 lds_dma needs 16-byte alignment"), std::string::npos) << misaligned;
  EXPECT_NE(misaligned.find("(lds_dma has no narrower form: every address must be 16-byte aligned)"),
            std::string::npos)
      << misaligned;
  // Rows 66..129 fit (130 rows); 67 would pass the end.
  EXPECT_EQ(CheckDma("L[tid.y * 64, 0]", "L[tid.y * 66, 0]"), "OK");
  EXPECT_NE(CheckDma("L[tid.y * 64, 0]", "L[tid.y * 67, 0]").find("run past the 2080 bytes of L"),
            std::string::npos);
  EXPECT_NE(CheckDma("L[tid.y * 64, 0]", "L[tid.y * 64, 2]").find("needs 16-byte alignment"),
            std::string::npos);
  EXPECT_NE(CheckDma("A[tid.y * 64 + 63 - tid.x, 0] : f32x4", "H[tid.y * 64 + 63 - tid.x, 0] : f16x8")
                .find("L holds f32 but the copy is f16x8"),
            std::string::npos);
  // Whole waves, not whole waves along x (review6 F7): in 32 x 2 (one wave)
  // tid.y differs between lanes 0 and 32, by 64 rows of 16 bytes.
  EXPECT_NE(CheckDma("workgroup 64 2 1", "workgroup 32 2 1")
                .find("the lds_dma base L[tid.y * 64, 0] differs between lanes 0 and 32 of wave 0 (tid (0, 0, 0) and "
                      "(0, 1, 0)): byte offsets 0 and 1024"),
            std::string::npos);
}

// lds_dma in loops (review6 F3): waves are not in lockstep, so without a
// barrier in the loop body (which waits for the DMAs: the waitcnt pass puts
// vmcnt(0) before s_barrier) one wave can be at %k = 1 while another is at
// %k = 0; each wave gets its own copy of such a loop variable. Kernels of
// findings/lp3.kir, lp4.kir, lp5.kir; byte offsets by hand (f16: 512
// elements are 1024 bytes).
constexpr char kDmaLoop[] = R"(kernel lp
target gfx950
workgroup 128 1 1
grid 1 1 1
arg A : f16[4, 128, 8] strides [1024, 8, 1] readonly
lds L : f16[5120]
  %z = zero f16x8
  %r = for %k = 0 to 4 iter(%c = %z) {
    lds_dma L[BASE], A[%k, tid.x, 0] : f16x8
    BARRIER
    yield %c
  }
end
)";

std::string CheckDmaLoop(const std::string& base, const std::string& barrier = "") {
  return Check(Parse(absl::StrReplaceAll(kDmaLoop, {{"BASE", base}, {"    BARRIER\n", barrier}})), "gfx950");
}

TEST(ValidateTest, LdsDmaLoopVariablesArePerWaveWithoutABarrier) {
  // lp3: wave 0 at %k = 1 writes bytes 1024.. as wave 1 at %k = 0 does.
  const std::string lp3 = CheckDmaLoop("(tid.x floordiv 64 + %k) * 512");
  EXPECT_NE(lp3.find("the lds_dma base L[(tid.x floordiv 64 + %k) * 512] is the same for the waves with tid.x "
                     "floordiv 64 = 0, tid.y = 0, tid.z = 0 at %k = 1 and tid.x floordiv 64 = 1, tid.y = 0, tid.z = 0 "
                     "at %k = 0 (byte offsets differ by 0), so they write overlapping LDS bytes at once (each wave "
                     "writes 1024), a race between waves (waves are not in lockstep: no barrier in the loop over %k "
                     "orders one trip's DMAs before the next trip's); give each wave its own 1024 bytes in every "
                     "trip, e.g. L[tid.x floordiv 64 * 512] plus a term in %k that steps past all the waves' bytes, "
                     "or end each trip with a `barrier`"),
            std::string::npos)
      << lp3;
  // lp5: the same base with a barrier in the body: trips are ordered.
  EXPECT_EQ(CheckDmaLoop("(tid.x floordiv 64 + %k) * 512", "    barrier\n"), "OK");
  // A barrier anywhere in the body, also in a nested loop, orders the trips.
  EXPECT_EQ(CheckDmaLoop("(tid.x floordiv 64 + %k) * 512",
                         "    %q = for %j = 0 to 2 iter(%e = %c) {\n      barrier\n      yield %e\n    }\n"),
            "OK");
  // lp4: disjoint for every two trips (wave w at trip k: 1024 * (w + 2k)).
  EXPECT_EQ(CheckDmaLoop("tid.x floordiv 64 * 512 + %k * 1024"), "OK");
  // 1024 * (w + k): apart within a trip, but wave 0 at %k = 1 meets wave 1
  // at %k = 0.
  EXPECT_NE(CheckDmaLoop("tid.x floordiv 64 * 512 + %k * 512").find("at %k = 1 and tid.x floordiv 64 = 1, tid.y = 0, "
                                                                     "tid.z = 0 at %k = 0 (byte offsets differ by 0)"),
            std::string::npos);
}

// Nested loops: the outer loop's body has a barrier (after the inner loop),
// so both waves are at the same %i, but the inner loop has none: %j is per
// wave.
TEST(ValidateTest, LdsDmaNestedLoopsShareOnlyTheLoopsWithABarrier) {
  const std::string nest = R"(kernel nest
target gfx950
workgroup 128 1 1
grid 1 1 1
arg A : f16[4, 128, 8] strides [1024, 8, 1] readonly
lds L : f16[8192]
  %z = zero f16x8
  %r = for %i = 0 to 2 iter(%c = %z) {
    %q = for %j = 0 to 2 iter(%e = %c) {
      lds_dma L[BASE], A[%i * 2 + %j, tid.x, 0] : f16x8
      yield %e
    }
    barrier
    yield %q
  }
end
)";
  auto check = [&](const std::string& base) {
    return Check(Parse(absl::StrReplaceAll(nest, {{"BASE", base}})), "gfx950");
  };
  // Wave w at (i, j) writes 1024 * (w + 2 i): apart for the same i.
  EXPECT_EQ(check("(tid.x floordiv 64 + %i * 2) * 512"), "OK");
  // Wave w at (i, j) at 1024 * (w + 2 i + j): wave 0 at %j = 1 meets wave 1
  // at %j = 0 (same %i = 0).
  const std::string got = check("(tid.x floordiv 64 + %i * 2 + %j) * 512");
  EXPECT_NE(got.find("is the same for the waves with tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 at %j = 1 and "
                     "tid.x floordiv 64 = 1, tid.y = 0, tid.z = 0 at %j = 0 (byte offsets differ by 0, with %i = 0)"),
            std::string::npos)
      << got;
  EXPECT_NE(got.find("no barrier in the loop over %j orders"), std::string::npos) << got;
  // Separate slots per trip of both loops (4 waves' worth per %i, 2 per %j).
  EXPECT_EQ(check("tid.x floordiv 64 * 512 + %j * 1024 + %i * 2048"), "OK");
}

// wg ids are one value shared by every wave of the workgroup (review6 F4):
// findings/h09.kir's per-workgroup rotation of the 4 waves' slots is
// accepted; a base that only fails the interval check is decided exactly;
// one the validator cannot decide is "not provably disjoint", not a race.
TEST(ValidateTest, LdsDmaWorkgroupIdsAreSharedBetweenWaves) {
  const std::string h = R"(kernel h
target gfx950
workgroup 256 1 1
grid 2 1 1
arg A : f16[512, 8] strides [8, 1] readonly
lds L : f16[2048]
  lds_dma L[BASE], A[wg.x * 256 + tid.x, 0] : f16x8
end
)";
  auto check = [&](const std::string& base) {
    return Check(Parse(absl::StrReplaceAll(h, {{"BASE", base}})), "gfx950");
  };
  EXPECT_EQ(check("(tid.x floordiv 64 + wg.x) mod 4 * 512"), "OK");
  EXPECT_EQ(check("(tid.x floordiv 64 + 1) mod 4 * 512"), "OK");
  EXPECT_EQ(check("(tid.x floordiv 64 + 3 * wg.x) mod 4 * 512"), "OK");
  // (w * wg.x) mod 4: at wg.x = 0 every wave has slot 0.
  const std::string zero = check("tid.x floordiv 64 * wg.x mod 4 * 512");
  EXPECT_NE(zero.find("is the same for the waves with tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 and tid.x floordiv "
                      "64 = 1, tid.y = 0, tid.z = 0 (byte offsets differ by 0, with wg.x = 0), so they write "
                      "overlapping LDS bytes at once"),
            std::string::npos)
      << zero;
  // (w + 2 * wg.x) mod 2 * 2: slots {0, 2, 0, 2} at wg.x = 0: waves 0 and 2.
  EXPECT_NE(check("(tid.x floordiv 64 + 2 * wg.x) mod 2 * 1024")
                .find("tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 and tid.x floordiv 64 = 2, tid.y = 0, tid.z = 0 "
                      "(byte offsets differ by 0, with wg.x = 0)"),
            std::string::npos);
  // Too many values to try (2^20 trips, no barrier): not provably disjoint,
  // with a suggestion in L's own shape (f16[2048]: 512 elements a wave).
  const std::string big = R"(kernel big
target gfx950
workgroup 128 1 1
grid 1 1 1
arg A : f16[128, 8] strides [8, 1] readonly
lds L : f16[1024]
  %z = zero f16x8
  %r = for %k = 0 to 1048576 iter(%c = %z) {
    lds_dma L[(tid.x floordiv 64 + %k) mod 2 * 512], A[tid.x, 0] : f16x8
    yield %c
  }
end
)";
  const std::string got = Check(Parse(big), "gfx950");
  EXPECT_NE(got.find("the lds_dma base L[(tid.x floordiv 64 + %k) mod 2 * 512] is not provably disjoint for the waves "
                     "with tid.x floordiv 64 = 0, tid.y = 0, tid.z = 0 and tid.x floordiv 64 = 1, tid.y = 0, tid.z = 0 "
                     "(byte offsets differ by -1024..1024, and kirc tries each value of %k, %k' only up to 262144 "
                     "evaluations), while each wave writes 1024 bytes, so they may write overlapping LDS bytes at "
                     "once"),
            std::string::npos)
      << got;
  EXPECT_NE(got.find("e.g. L[tid.x floordiv 64 * 512] plus a term in %k"), std::string::npos) << got;
  EXPECT_EQ(got.find("a race between waves"), std::string::npos) << got;
}

// The lane check evaluates the base at each wave's 64 linear thread ids
// (review6 F7): findings/j7.kir (32 x 2, one wave, constant base) and
// j2.kir (32 x 4: tid.y floordiv 2 is the wave's index) are accepted; tid.y
// * 256 in 32 x 4 differs between lanes 0 and 32 (tid.y 0 and 1: 512
// bytes), and (tid.y + %k) floordiv 2 at odd %k.
TEST(ValidateTest, LdsDmaBaseIsCheckedOnEachWavesLinearThreadIds) {
  const std::string j = R"(kernel j
target gfx950
workgroup WG
grid 1 1 1
arg A : f16[128, 8] strides [8, 1] readonly
lds L : f16[2048]
  %z = zero f16x8
  %r = for %k = 0 to 2 iter(%c = %z) {
    lds_dma L[BASE], A[tid.x + tid.y * X, 0] : f16x8
    barrier
    yield %c
  }
end
)";
  auto check = [&](const std::string& wg, const std::string& base) {
    return Check(Parse(absl::StrReplaceAll(j, {{"WG", wg}, {"X", wg.substr(0, 2)}, {"BASE", base}})), "gfx950");
  };
  EXPECT_EQ(check("32 2 1", "0"), "OK");
  EXPECT_EQ(check("32 4 1", "tid.y floordiv 2 * 512"), "OK");
  EXPECT_EQ(check("16 8 1", "tid.y floordiv 4 * 512"), "OK");
  EXPECT_EQ(check("32 4 1", "(tid.y floordiv 2 + %k * 2) * 512"), "OK");
  EXPECT_NE(check("32 4 1", "tid.y * 256")
                .find("the lds_dma base L[tid.y * 256] differs between lanes 0 and 32 of wave 0 (tid (0, 0, 0) and "
                      "(0, 1, 0)): byte offsets 0 and 512; it must be the same in all 64 lanes of a wave"),
            std::string::npos);
  const std::string odd = check("32 4 1", "(tid.y + %k) floordiv 2 * 512");
  EXPECT_NE(odd.find("differs between lanes 0 and 32 of wave 0 (tid (0, 0, 0) and (0, 1, 0)): byte offsets 0 and "
                     "1024 at %k = 1"),
            std::string::npos)
      << odd;
  // A constant base in 32 x 4 (two waves): both write bytes 0..1023.
  EXPECT_NE(check("32 4 1", "0").find("is the same for the waves with wave 0 (first lane tid.x = 0, tid.y = 0, tid.z "
                                       "= 0) and wave 1 (first lane tid.x = 0, tid.y = 2, tid.z = 0)"),
            std::string::npos);
}

// load_tr (gfx950's ds_read_b64_tr_b16): what the validator accepts and refuses.
constexpr char kTr[] = R"(kernel tr
workgroup 64 2 1
grid 1 1 1
arg A : f16[32, 16] strides [16, 1] readonly
lds T : f16[2, 16, 16]
lds U : f32[16, 16]
  %t = load_tr T[tid.y, tid.x floordiv 4, tid.x mod 4 * 4] : f16x4
end
)";

std::string CheckTr(const std::string& from, const std::string& to, const std::string& target = "gfx950") {
  return Check(Parse(absl::StrReplaceAll(kTr, {{from, to}})), target);
}

TEST(ValidateTest, LoadTr) {
  EXPECT_EQ(CheckTr("", ""), "OK");
  for (const char* t : {"gfx908", "gfx90a", "gfx942"})
    EXPECT_NE(CheckTr("", "", t).find(absl::StrCat("load_tr (ds_read_b64_tr_b16, the transposing LDS read) does not "
                                                   "exist on ", t, "; it is gfx950 only")),
              std::string::npos)
        << t;
  EXPECT_NE(CheckTr(": f16x4", ": f16x8").find("four 16-bit elements per thread (f16x4 or bf16x4), not f16x8"),
            std::string::npos);
  EXPECT_NE(CheckTr("load_tr T[", "load_tr guarded T[").find("does not take `guarded`"), std::string::npos);
  EXPECT_NE(CheckTr("load_tr T[tid.y, tid.x floordiv 4, tid.x mod 4 * 4]", "load_tr A[tid.x floordiv 4, tid.x mod 4 * 4]")
                .find("reads an LDS allocation, and 'A' is not one"),
            std::string::npos);
  EXPECT_NE(CheckTr("tid.x mod 4 * 4] : f16x4", "tid.x mod 4 * 4] along 1 : f16x4").find("not the contiguous one"),
            std::string::npos);
  // 8-byte alignment of each block and bounds: CheckAccess's messages.
  // load_tr has no narrower type and no `guarded`: the messages say what to
  // do instead (fresh-user review F3).
  const std::string misaligned = CheckTr("tid.x mod 4 * 4]", "tid.x mod 4 * 2]");
  EXPECT_NE(misaligned.find("the f16x4 load_tr needs 8-byte alignment"), std::string::npos) << misaligned;
  EXPECT_NE(misaligned.find("(load_tr has no narrower form: every address must be 8-byte aligned)"),
            std::string::npos)
      << misaligned;
  EXPECT_EQ(misaligned.find("narrower type"), std::string::npos) << misaligned;
  const std::string outside = CheckTr("tid.x floordiv 4, tid.x mod 4", "tid.x floordiv 4 + 1, tid.x mod 4");
  EXPECT_NE(outside.find("outside 0..15"), std::string::npos) << outside;
  EXPECT_NE(outside.find("; check the index, shrink the extent feeding it (a loop bound, the workgroup or the "
                         "tile), or make T bigger (load_tr has no `guarded` form)"),
            std::string::npos)
      << outside;
  EXPECT_EQ(outside.find("use `load guarded`"), std::string::npos) << outside;
  // bf16: an f16x4 read of a bf16 allocation is refused as any load; bf16x4 is fine.
  EXPECT_NE(CheckTr("lds T : f16", "lds T : bf16").find("holds bf16 but the load produces f16x4"), std::string::npos);
  std::string bf = absl::StrReplaceAll(kTr, {{"lds T : f16", "lds T : bf16"}, {": f16x4", ": bf16x4"}});
  EXPECT_EQ(Check(Parse(bf), "gfx950"), "OK");
}

}  // namespace
}  // namespace kir
