#include "compiler/ir/parser.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_replace.h"
#include "compiler/ir/index_expr.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/printer.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

// ---------------------------------------------------------------- test kernels

constexpr const char kCopy[] = R"(# Copies 256 floats, one per thread.
kernel copy_f32
workgroup 64 1 1
grid 4 1 1
arg src : f32[256] strides [1] readonly
arg dst : f32[256] strides [1] writeonly
%v = load src[wg.x * 64 + tid.x] : f32
store dst[wg.x * 64 + tid.x], %v
end
)";

constexpr const char kAddF16[] = R"(
kernel   add_f16      # elementwise Z = alpha * X + Y in f32
target gfx90a
const N = 1024
workgroup 64 2 1
grid 8 1 1
arg X : f16[2, N] strides [N, 1] readonly
arg Y : f16[2,N] strides[N,1] readonly
arg Z : f16[2, N] strides [N, 1] writeonly
arg alpha : f32
  %x = load X[tid.y, (wg.x * 64 + tid.x) * 2] : f16x2
  %y = load Y[tid.y, (wg.x*64+tid.x)*2] : f16x2
  %xf = cvt %x : f32x2
  %yf = cvt %y : f32x2
  %ax = mul %xf, alpha
  %s = add %ax, %yf
  %h = cvt %s : f16x2
  store Z[tid.y, (wg.x * 64 + tid.x) * 2], %h
end
)";

constexpr const char kMfma[] = R"(kernel mma_16x16x16_f16
target gfx942
workgroup 64 1 1
grid 1 1 1
const LDA = 20
arg A : f16[16, 16] strides [16, 1] readonly
arg B : f16[16, 16] strides [16, 1] readonly
arg C : f32[16, 16] strides [16, 1] writeonly
lds As : f16[16, 16] pad 4
lds Bs : f16[16, 16]
%a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
%b = load B[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f16x4
store As[tid.x mod 16, tid.x floordiv 16 * 4], %a
store Bs[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %b
barrier
%fa = load As[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4
%fb = load Bs[tid.x floordiv 16 * 4, tid.x mod 16] along 0 : f16x4
%z = zero f32x4
%d = mfma f32_16x16x16_f16 %fa, %fb, %z
store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d
end
)";

constexpr const char kLoops[] = R"(kernel loops
target gfx950
workgroup 64 1 1
grid 2 3 1
const K = 100
const OFF = -3
const MIN = -9223372036854775808
arg A : f32[K, 64] strides [64, 1] readonly
arg B : f32[64] strides [1] readwrite
arg n : i32
lds T : f32[8, 64] pad 1
%z = zero f32x4
%neg = const f32x4 -2.5e-3
%m0 = const f32 -0
%nan = const f32 nan
%ninf = const f32 -inf
%r0, %r1 = for %k = 0 to 100 step 16 iter(%c0 = %z, %c1 = %neg) {
  %a = load guarded A[%k + tid.x floordiv 16, tid.x mod 16 * 4] along 1 : f32x4
  %s0 = add %c0, %a
  %j0 = for %j = -4 to 4 iter(%acc = %s0) {
    %t = fma %acc, %c1, %a
    for %i = 0 to 2 {
      barrier
      yield
    }
    yield %t
  }
  yield %j0, %c1
}
store guarded B[OFF - (wg.y - wg.x) * -2 + (tid.x + 1) floordiv 4 mod 3 - -5 + -tid.z], %r0
store T[tid.x - (tid.y - tid.z), -3 * tid.x] along 0, %r1
store T[-9223372036854775808, (-4)], %r1
end
)";

// The canonical text of kLoops.
constexpr const char kLoopsCanonical[] = R"(kernel loops
target gfx950
workgroup 64 1 1
grid 2 3 1
const K = 100
const OFF = -3
const MIN = -9223372036854775808
arg A : f32[100, 64] strides [64, 1] readonly
arg B : f32[64] strides [1] readwrite
arg n : i32
lds T : f32[8, 64] pad 1
  %z = zero f32x4
  %neg = const f32x4 -0.0025
  %m0 = const f32 -0
  %nan = const f32 nan
  %ninf = const f32 -inf
  %r0, %r1 = for %k = 0 to 100 step 16 iter(%c0 = %z, %c1 = %neg) {
    %a = load guarded A[%k + tid.x floordiv 16, tid.x mod 16 * 4] : f32x4
    %s0 = add %c0, %a
    %j0 = for %j = -4 to 4 iter(%acc = %s0) {
      %t = fma %acc, %c1, %a
      for %i = 0 to 2 {
        barrier
        yield
      }
      yield %t
    }
    yield %j0, %c1
  }
  store guarded B[OFF - (wg.y - wg.x) * (-2) + (tid.x + 1) floordiv 4 mod 3 - (-5) + (0 - tid.z)], %r0
  store T[tid.x - (tid.y - tid.z), (-3) * tid.x] along 0, %r1
  store T[-9223372036854775808, -4], %r1
end
)";

Kernel MustParse(const std::string& text, const std::string& file = "t.kir") {
  absl::StatusOr<Kernel> k = ParseKernel(text, file);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : Kernel{};
}

uint64_t Bits(double d) { return std::bit_cast<uint64_t>(d); }

// parse -> print -> parse gives the same kernel, and printing is idempotent.
void CheckRoundTrip(const std::string& text) {
  SCOPED_TRACE(text);
  Kernel k = MustParse(text);
  std::string p1 = PrintKernel(k);
  Kernel k2 = MustParse(p1);
  EXPECT_TRUE(k == k2) << p1;
  std::string p2 = PrintKernel(k2);
  EXPECT_EQ(p1, p2);
  ASSERT_FALSE(p1.empty());
  EXPECT_EQ(p1.back(), '\n');
}

TEST(ParserTest, RoundTrips) {
  for (const char* t : {kCopy, kAddF16, kMfma, kLoops, kLoopsCanonical}) CheckRoundTrip(t);
}

TEST(ParserTest, LdsDmaFieldsAndRoundTrip) {
  constexpr char kDma[] = R"(kernel dma
workgroup 64 2 1
grid 1 1 1
arg A : f32[128, 4] strides [4, 1] readonly
lds L : f32[128, 4]
  lds_dma L[tid.y * 64, 0], A[tid.y * 64 + 63 - tid.x, 0] along 1 : f32x4
end
)";
  CheckRoundTrip(kDma);
  Kernel k = MustParse(kDma);
  ASSERT_EQ(k.body.size(), 1u);
  const Op& op = k.body[0];
  EXPECT_EQ(op.kind, OpKind::kLdsDma);
  EXPECT_EQ(op.lds, "L");
  ASSERT_EQ(op.lds_index.size(), 2u);
  EXPECT_EQ(IndexToString(*op.lds_index[0]), "tid.y * 64");
  EXPECT_EQ(op.mem, "A");
  EXPECT_EQ(op.along, 1);
  EXPECT_TRUE(op.results.empty());
  EXPECT_EQ(op.type.width, 4);
  absl::StatusOr<Kernel> bad = ParseKernel(absl::StrReplaceAll(kDma, {{"  lds_dma", "  %x = lds_dma"}}), "d.kir");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'lds_dma' does not define a result"), std::string::npos) << bad.status();
  // `guarded` (which load and store take) is refused where a user writes it,
  // at its column; an allocation that happens to be named guarded is fine.
  absl::StatusOr<Kernel> guarded = ParseKernel(absl::StrReplaceAll(kDma, {{"lds_dma L", "lds_dma guarded L"}}), "d.kir");
  ASSERT_FALSE(guarded.ok());
  EXPECT_NE(guarded.status().message().find("d.kir:6:11: error: lds_dma is never 'guarded'"), std::string::npos)
      << guarded.status();
  CheckRoundTrip(absl::StrReplaceAll(kDma, {{"lds L ", "lds guarded "}, {"lds_dma L[", "lds_dma guarded["}}));
}

// load_tr (gfx950's transposing LDS read): a load with Op::tr, printed back
// as load_tr; a plain load is not one.
TEST(ParserTest, LoadTrRoundTripAndFields) {
  constexpr char kTr[] = R"(kernel tr
target gfx950
workgroup 64 1 1
grid 1 1 1
lds T : f16[16, 16]
  %t = load_tr T[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4
  %u = load T[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4
end
)";
  CheckRoundTrip(kTr);
  Kernel k = MustParse(kTr);
  ASSERT_EQ(k.body.size(), 2u);
  EXPECT_EQ(k.body[0].kind, OpKind::kLoad);
  EXPECT_TRUE(k.body[0].tr);
  EXPECT_EQ(k.body[0].mem, "T");
  EXPECT_EQ(k.body[0].results, std::vector<std::string>{"t"});
  EXPECT_EQ(k.body[0].type, (ValueType{ElemType::kF16, 4}));
  EXPECT_FALSE(k.body[1].tr);
  EXPECT_FALSE(k.body[0] == k.body[1]);
  EXPECT_NE(PrintKernel(k).find("  %t = load_tr T[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4\n"), std::string::npos)
      << PrintKernel(k);
  absl::StatusOr<Kernel> bad = ParseKernel(absl::StrReplaceAll(kTr, {{"%t = load_tr", "load_tr"}}), "t.kir");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'load_tr' defines a value"), std::string::npos) << bad.status();
}

// concat: two operands and the result type, printed back as written.
TEST(ParserTest, ConcatRoundTripAndFields) {
  constexpr char kCat[] = R"(kernel cat
workgroup 64 1 1
grid 1 1 1
arg A : f16[64, 8] strides [8, 1] readonly
  %a = load A[tid.x, 0] : f16x4
  %b = load A[tid.x, 4] : f16x4
  %c = concat %a, %b : f16x8
end
)";
  CheckRoundTrip(kCat);
  Kernel k = MustParse(kCat);
  ASSERT_EQ(k.body.size(), 3u);
  const Op& op = k.body[2];
  EXPECT_EQ(op.kind, OpKind::kConcat);
  EXPECT_EQ(op.results, std::vector<std::string>{"c"});
  ASSERT_EQ(op.operands.size(), 2u);
  EXPECT_EQ(op.operands[0].name, "a");
  EXPECT_EQ(op.operands[1].name, "b");
  EXPECT_EQ(op.type, (ValueType{ElemType::kF16, 8}));
  EXPECT_NE(PrintKernel(k).find("  %c = concat %a, %b : f16x8\n"), std::string::npos) << PrintKernel(k);
  // The swapped operands are another op.
  Kernel swapped = MustParse(absl::StrReplaceAll(kCat, {{"concat %a, %b", "concat %b, %a"}}));
  EXPECT_FALSE(swapped.body[2] == k.body[2]);
  // One operand, or no result type: errors at their columns.
  absl::StatusOr<Kernel> one = ParseKernel(absl::StrReplaceAll(kCat, {{"concat %a, %b", "concat %a"}}), "c.kir");
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("c.kir:7:18: error: expected ','"), std::string::npos) << one.status();
  absl::StatusOr<Kernel> untyped = ParseKernel(absl::StrReplaceAll(kCat, {{" : f16x8", ""}}), "c.kir");
  ASSERT_FALSE(untyped.ok());
  EXPECT_NE(untyped.status().message().find("c.kir:7:21: error: expected ':' before the result type"),
            std::string::npos)
      << untyped.status();
  absl::StatusOr<Kernel> no_result = ParseKernel(absl::StrReplaceAll(kCat, {{"%c = concat", "concat"}}), "c.kir");
  ASSERT_FALSE(no_result.ok());
  EXPECT_NE(no_result.status().message().find("'concat' defines a value"), std::string::npos) << no_result.status();
}

TEST(ParserTest, CopyKernelFields) {
  Kernel k = MustParse(kCopy);
  EXPECT_EQ(k.name, "copy_f32");
  EXPECT_EQ(k.target, "");
  EXPECT_EQ(k.workgroup, (std::array<int64_t, 3>{64, 1, 1}));
  EXPECT_EQ(k.grid, (std::array<int64_t, 3>{4, 1, 1}));
  EXPECT_EQ(k.loc.line, 2);
  EXPECT_EQ(k.loc.col, 1);
  ASSERT_EQ(k.args.size(), 2u);
  EXPECT_EQ(k.args[0].name, "src");
  EXPECT_EQ(k.args[0].kind, Arg::Kind::kBuffer);
  EXPECT_EQ(k.args[0].elem, ElemType::kF32);
  EXPECT_EQ(k.args[0].shape, std::vector<int64_t>{256});
  EXPECT_EQ(k.args[0].strides, std::vector<int64_t>{1});
  EXPECT_EQ(k.args[0].access, Access::kReadOnly);
  EXPECT_EQ(k.args[0].loc.line, 5);
  EXPECT_EQ(k.args[1].access, Access::kWriteOnly);
  ASSERT_EQ(k.body.size(), 2u);
  const Op& ld = k.body[0];
  EXPECT_EQ(ld.kind, OpKind::kLoad);
  EXPECT_EQ(ld.results, std::vector<std::string>{"v"});
  EXPECT_EQ(ld.mem, "src");
  EXPECT_EQ(ld.type, (ValueType{ElemType::kF32, 1}));
  EXPECT_EQ(ld.along, 0);
  EXPECT_FALSE(ld.guarded);
  ASSERT_EQ(ld.index.size(), 1u);
  EXPECT_EQ(IndexToString(*ld.index[0]), "wg.x * 64 + tid.x");
  EXPECT_TRUE(IndexEqual(ld.index[0], IAdd(IMul(IWg(0), IConst(64)), ITid(0))));
  EXPECT_EQ(ld.loc.line, 7);
  EXPECT_EQ(ld.loc.col, 1);
  const Op& st = k.body[1];
  EXPECT_EQ(st.kind, OpKind::kStore);
  EXPECT_TRUE(st.results.empty());
  ASSERT_EQ(st.operands.size(), 1u);
  EXPECT_EQ(st.operands[0], (Operand{"v", false}));
}

TEST(ParserTest, AddKernelFields) {
  Kernel k = MustParse(kAddF16);
  EXPECT_EQ(k.name, "add_f16");
  EXPECT_EQ(k.target, "gfx90a");
  EXPECT_EQ(k.loc.line, 2);
  EXPECT_EQ(k.loc.col, 1);
  ASSERT_EQ(k.consts.size(), 1u);
  EXPECT_EQ(k.consts[0].name, "N");
  EXPECT_EQ(k.consts[0].value, 1024);
  EXPECT_EQ(k.consts[0].loc.line, 4);
  ASSERT_EQ(k.args.size(), 4u);
  EXPECT_EQ(k.args[1].shape, (std::vector<int64_t>{2, 1024}));
  EXPECT_EQ(k.args[1].strides, (std::vector<int64_t>{1024, 1}));
  EXPECT_EQ(k.args[3].kind, Arg::Kind::kScalar);
  EXPECT_EQ(k.args[3].elem, ElemType::kF32);
  ASSERT_EQ(k.body.size(), 8u);
  EXPECT_EQ(k.body[0].loc.line, 11);
  EXPECT_EQ(k.body[0].loc.col, 3);
  EXPECT_EQ(k.body[0].along, 1);
  EXPECT_EQ(IndexToString(*k.body[1].index[1]), "(wg.x * 64 + tid.x) * 2");
  EXPECT_EQ(k.body[2].kind, OpKind::kCvt);
  EXPECT_EQ(k.body[2].type, (ValueType{ElemType::kF32, 2}));
  const Op& mul = k.body[4];
  EXPECT_EQ(mul.kind, OpKind::kMul);
  ASSERT_EQ(mul.operands.size(), 2u);
  EXPECT_EQ(mul.operands[0], (Operand{"xf", false}));
  EXPECT_EQ(mul.operands[1], (Operand{"alpha", true}));
  EXPECT_EQ(k.body[5].kind, OpKind::kAdd);
  EXPECT_EQ(PrintKernel(k), R"(kernel add_f16
target gfx90a
workgroup 64 2 1
grid 8 1 1
const N = 1024
arg X : f16[2, 1024] strides [1024, 1] readonly
arg Y : f16[2, 1024] strides [1024, 1] readonly
arg Z : f16[2, 1024] strides [1024, 1] writeonly
arg alpha : f32
  %x = load X[tid.y, (wg.x * 64 + tid.x) * 2] : f16x2
  %y = load Y[tid.y, (wg.x * 64 + tid.x) * 2] : f16x2
  %xf = cvt %x : f32x2
  %yf = cvt %y : f32x2
  %ax = mul %xf, alpha
  %s = add %ax, %yf
  %h = cvt %s : f16x2
  store Z[tid.y, (wg.x * 64 + tid.x) * 2], %h
end
)");
}

TEST(ParserTest, MfmaKernelFields) {
  Kernel k = MustParse(kMfma);
  ASSERT_EQ(k.lds.size(), 2u);
  EXPECT_EQ(k.lds[0].name, "As");
  EXPECT_EQ(k.lds[0].elem, ElemType::kF16);
  EXPECT_EQ(k.lds[0].shape, (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(k.lds[0].pad, 4);
  EXPECT_EQ(k.lds[0].loc.line, 9);
  EXPECT_EQ(k.lds[1].pad, 0);
  ASSERT_EQ(k.body.size(), 10u);
  EXPECT_EQ(k.body[0].along, 1);  // default: the last dimension
  EXPECT_EQ(k.body[1].along, 0);
  EXPECT_EQ(IndexToString(*k.body[1].index[0]), "tid.x floordiv 16 * 4");
  EXPECT_TRUE(IndexEqual(k.body[1].index[0], IMul(IFloorDiv(ITid(0), IConst(16)), IConst(4))));
  EXPECT_EQ(k.body[4].kind, OpKind::kBarrier);
  const Op& mfma = k.body[8];
  EXPECT_EQ(mfma.kind, OpKind::kMfma);
  EXPECT_EQ(mfma.mfma, "f32_16x16x16_f16");
  EXPECT_EQ(mfma.type, (ValueType{ElemType::kF32, 4}));
  EXPECT_EQ(mfma.operands,
            (std::vector<Operand>{{"fa", false}, {"fb", false}, {"z", false}}));
  EXPECT_EQ(k.body[9].along, 0);
  std::string p = PrintKernel(k);
  EXPECT_NE(p.find("\nlds As : f16[16, 16] pad 4\nlds Bs : f16[16, 16]\n"), std::string::npos);
  EXPECT_NE(p.find("\n  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d\nend\n"),
            std::string::npos);
  EXPECT_NE(p.find("\n  %a = load A[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4\n"),
            std::string::npos);
}

TEST(ParserTest, LoopsKernelFields) {
  Kernel k = MustParse(kLoops);
  EXPECT_EQ(PrintKernel(k), kLoopsCanonical);
  ASSERT_EQ(k.consts.size(), 3u);
  EXPECT_EQ(k.consts[1].value, -3);
  EXPECT_EQ(k.consts[2].value, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(k.args[0].shape, (std::vector<int64_t>{100, 64}));
  EXPECT_EQ(k.args[2].kind, Arg::Kind::kScalar);
  EXPECT_EQ(k.args[2].elem, ElemType::kI32);
  EXPECT_EQ(k.lds[0].pad, 1);
  ASSERT_EQ(k.body.size(), 9u);
  EXPECT_EQ(Bits(k.body[1].constant), Bits(-2.5e-3));
  EXPECT_EQ(k.body[1].type, (ValueType{ElemType::kF32, 4}));
  EXPECT_EQ(Bits(k.body[2].constant), Bits(-0.0));
  EXPECT_EQ(Bits(k.body[3].constant), Bits(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_EQ(Bits(k.body[4].constant), Bits(-std::numeric_limits<double>::infinity()));

  const Op& outer = k.body[5];
  EXPECT_EQ(outer.kind, OpKind::kFor);
  EXPECT_EQ(outer.loc.line, 17);
  EXPECT_EQ(outer.results, (std::vector<std::string>{"r0", "r1"}));
  EXPECT_EQ(outer.ivar, "k");
  EXPECT_EQ(outer.lo, 0);
  EXPECT_EQ(outer.hi, 100);
  EXPECT_EQ(outer.step, 16);
  EXPECT_EQ(outer.iter_args, (std::vector<std::string>{"c0", "c1"}));
  EXPECT_EQ(outer.operands, (std::vector<Operand>{{"z", false}, {"neg", false}}));
  ASSERT_EQ(outer.body.size(), 4u);
  const Op& ld = outer.body[0];
  EXPECT_TRUE(ld.guarded);
  EXPECT_EQ(ld.along, 1);
  EXPECT_EQ(ld.loc.line, 18);
  EXPECT_EQ(ld.loc.col, 3);
  EXPECT_TRUE(IndexEqual(ld.index[0], IAdd(ILoopVar("k"), IFloorDiv(ITid(0), IConst(16)))));
  const Op& inner = outer.body[2];
  EXPECT_EQ(inner.kind, OpKind::kFor);
  EXPECT_EQ(inner.ivar, "j");
  EXPECT_EQ(inner.lo, -4);
  EXPECT_EQ(inner.hi, 4);
  EXPECT_EQ(inner.step, 1);
  EXPECT_EQ(inner.results, std::vector<std::string>{"j0"});
  ASSERT_EQ(inner.body.size(), 3u);
  EXPECT_EQ(inner.body[1].kind, OpKind::kFor);
  EXPECT_TRUE(inner.body[1].results.empty());
  EXPECT_TRUE(inner.body[1].iter_args.empty());
  ASSERT_EQ(inner.body[1].body.size(), 2u);
  EXPECT_EQ(inner.body[1].body[1].kind, OpKind::kYield);
  EXPECT_TRUE(inner.body[1].body[1].operands.empty());
  const Op& y = outer.body[3];
  EXPECT_EQ(y.kind, OpKind::kYield);
  EXPECT_EQ(y.operands, (std::vector<Operand>{{"j0", false}, {"c1", false}}));

  // All index operators, negative constants and unary minus.
  const Op& st = k.body[6];
  EXPECT_TRUE(st.guarded);
  IndexRef want = IAdd(
      ISub(IAdd(ISub(INamed("OFF"), IMul(ISub(IWg(1), IWg(0)), IConst(-2))),
                IMod(IFloorDiv(IAdd(ITid(0), IConst(1)), IConst(4)), IConst(3))),
           IConst(-5)),
      ISub(IConst(0), ITid(2)));
  EXPECT_TRUE(IndexEqual(st.index[0], want)) << IndexToString(*st.index[0]);
  const Op& st2 = k.body[7];
  EXPECT_TRUE(IndexEqual(st2.index[0], ISub(ITid(0), ISub(ITid(1), ITid(2)))));
  EXPECT_EQ(IndexToString(*st2.index[0]), "tid.x - (tid.y - tid.z)");
  EXPECT_TRUE(IndexEqual(st2.index[1], IMul(IConst(-3), ITid(0))));
  EXPECT_EQ(IndexToString(*st2.index[1]), "(-3) * tid.x");
  EXPECT_EQ(st2.along, 0);
  const Op& st3 = k.body[8];
  EXPECT_TRUE(IndexEqual(st3.index[0], IConst(std::numeric_limits<int64_t>::min())));
  EXPECT_TRUE(IndexEqual(st3.index[1], IConst(-4)));
}

TEST(ParserTest, PrintedTreesReadBack) {
  // Trees whose printing needs parentheses read back as the same tree.
  std::vector<IndexRef> trees = {
      ISub(ITid(0), ISub(ITid(1), IConst(2))),
      ISub(ISub(ITid(0), ITid(1)), IConst(2)),
      IMul(IConst(-3), ITid(0)),
      IMul(ITid(0), IConst(-3)),
      ISub(IConst(0), IConst(-7)),
      IFloorDiv(IMul(ITid(0), IConst(2)), IConst(4)),
      IMul(ITid(0), IFloorDiv(ITid(1), IConst(4))),
      IMod(ITid(0), IMod(ITid(1), IConst(4))),
      IMul(IAdd(INamed("mod"), ILoopVar("floordiv")), INamed("tid")),
      IConst(std::numeric_limits<int64_t>::max()),
  };
  for (const IndexRef& t : trees) {
    std::string s = IndexToString(*t);
    std::string text = "kernel k\nworkgroup 1 1 1\ngrid 1 1 1\nstore A[" + s + "], %x\nend\n";
    Kernel k = MustParse(text);
    ASSERT_EQ(k.body.size(), 1u) << s;
    EXPECT_TRUE(IndexEqual(k.body[0].index[0], t)) << s;
    EXPECT_EQ(PrintKernel(k), text.substr(0, text.find("store")) + "  " +
                                  text.substr(text.find("store")));
  }
}

TEST(ParserTest, ConstantsRoundTripBitwise) {
  const double values[] = {0.0,
                           -0.0,
                           1.5,
                           -2.5e-3,
                           0.1,
                           1.0 / 3.0,
                           65504.0,
                           1e22,
                           5e-324,
                           3000000000.0,
                           -9007199254740991.0,
                           9007199254740992.0,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(),
                           -std::numeric_limits<double>::quiet_NaN()};
  for (double v : values) {
    Kernel k;
    k.name = "c";
    Op op;
    op.kind = OpKind::kConst;
    op.results = {"c"};
    op.type = ValueType{ElemType::kF32, 4};
    op.constant = v;
    k.body.push_back(op);
    std::string text = PrintKernel(k);
    Kernel back = MustParse(text);
    ASSERT_EQ(back.body.size(), 1u) << text;
    EXPECT_EQ(Bits(back.body[0].constant), Bits(v)) << text;
    EXPECT_TRUE(back == k) << text;
  }
  EXPECT_EQ(FormatDouble(1.5), "1.5");
  EXPECT_EQ(FormatDouble(-0.0), "-0");
  EXPECT_EQ(FormatDouble(1e22), "1e+22");
  // Integers below 2^53 in full, not as "3e+09" (issue 13): i32 constants are integers.
  EXPECT_EQ(FormatDouble(3000000000.0), "3000000000");
  EXPECT_EQ(FormatDouble(-2147483648.0), "-2147483648");
  EXPECT_EQ(FormatDouble(1e15), "1000000000000000");
  EXPECT_EQ(FormatDouble(0.0), "0");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::infinity()), "inf");
  // Other accepted spellings.
  Kernel k = MustParse(
      "kernel k\nworkgroup 1 1 1\ngrid 1 1 1\n%a = const f32 +1.25E+1\n"
      "%b = const f32 .5\n%c = const f32 7.\n%d = const i32 -12\n%e = const f32 +inf\nend\n");
  ASSERT_EQ(k.body.size(), 5u);
  EXPECT_EQ(k.body[0].constant, 12.5);
  EXPECT_EQ(k.body[1].constant, 0.5);
  EXPECT_EQ(k.body[2].constant, 7.0);
  EXPECT_EQ(k.body[3].constant, -12.0);
  EXPECT_EQ(k.body[3].type, (ValueType{ElemType::kI32, 1}));
  EXPECT_TRUE(std::isinf(k.body[4].constant) && k.body[4].constant > 0);
}

TEST(ParserTest, HexadecimalFloats) {
  Kernel k = MustParse(
      "kernel k\nworkgroup 1 1 1\ngrid 1 1 1\n%a = const f32 0x1p-149\n"
      "%b = const f32 -0x1.8p1\n%c = const f16 0X1.FFCP15\n%d = const f32 0x10\n"
      "%e = const f32 +0x.8P+2\n%f = const bf16 0x1p-133\nend\n");
  ASSERT_EQ(k.body.size(), 6u);
  EXPECT_EQ(k.body[0].constant, std::ldexp(1.0, -149));
  EXPECT_EQ(k.body[1].constant, -3.0);
  EXPECT_EQ(k.body[2].constant, 65504.0);
  EXPECT_EQ(k.body[3].constant, 16.0);
  EXPECT_EQ(k.body[4].constant, 2.0);
  EXPECT_EQ(k.body[5].constant, std::ldexp(1.0, -133));
  // The canonical form prints decimals that read back to the same values.
  Kernel back = MustParse(PrintKernel(k));
  EXPECT_TRUE(back == k);
}

// Named consts fold into loop bounds and steps when parsed.
TEST(ParserTest, LoopBoundsFromConsts) {
  Kernel k = MustParse(
      "kernel k\nconst K = 64\nconst LO = -16\nconst BK = 16\nworkgroup 64 1 1\ngrid 1 1 1\n"
      "%z = zero f32\n%r = for %k = LO to K step BK iter(%c = %z) {\n  yield %c\n}\n"
      "for %j = 0 to K {\n  yield\n}\nend\n");
  ASSERT_EQ(k.body.size(), 3u);
  EXPECT_EQ(k.body[1].lo, -16);
  EXPECT_EQ(k.body[1].hi, 64);
  EXPECT_EQ(k.body[1].step, 16);
  EXPECT_EQ(k.body[2].lo, 0);
  EXPECT_EQ(k.body[2].hi, 64);
  EXPECT_EQ(k.body[2].step, 1);
  std::string printed = PrintKernel(k);
  EXPECT_NE(printed.find("for %k = -16 to 64 step 16 iter(%c = %z) {"), std::string::npos)
      << printed;
  EXPECT_TRUE(MustParse(printed) == k);
  // A non-positive const step is refused like a literal one.
  absl::StatusOr<Kernel> bad = ParseKernel(
      "kernel k\nconst S = 0\nworkgroup 64 1 1\ngrid 1 1 1\nfor %j = 0 to 4 step S {\n", "e.kir");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "e.kir:5:22: error: loop step must be positive, found 0");
}

// A UTF-8 byte-order mark at the start is skipped; columns count from after it.
TEST(ParserTest, LeadingByteOrderMarkIsSkipped) {
  Kernel k = MustParse("\xEF\xBB\xBFkernel k\nworkgroup 1 1 1\ngrid 1 1 1\nbarrier\nend\n");
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.loc.line, 1);
  EXPECT_EQ(k.loc.col, 1);
  absl::StatusOr<Kernel> bad = ParseKernel("\xEF\xBB\xBFkernel 9\n", "e.kir");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "e.kir:1:8: error: expected a kernel name, found '9'");
}

TEST(ParserTest, KeywordsAreNotReserved) {
  Kernel k = MustParse(R"(kernel load
workgroup 1 1 1
grid 1 1 1
const mod = 3
arg guarded : f32[4] strides [1] readwrite
arg along : f32[4] strides [1] readwrite
%store = load guarded[mod mod mod] : f32
%for = load guarded guarded[0] : f32
store along[0], %store
%add = add %for, along
end
)");
  ASSERT_EQ(k.body.size(), 4u);
  EXPECT_FALSE(k.body[0].guarded);
  EXPECT_EQ(k.body[0].mem, "guarded");
  EXPECT_TRUE(IndexEqual(k.body[0].index[0], IMod(INamed("mod"), INamed("mod"))));
  EXPECT_TRUE(k.body[1].guarded);
  EXPECT_EQ(k.body[1].mem, "guarded");
  EXPECT_EQ(k.body[2].mem, "along");
  EXPECT_EQ(k.body[3].operands[1], (Operand{"along", true}));
  Kernel k2 = MustParse(PrintKernel(k));
  EXPECT_TRUE(k == k2);
}

TEST(ParserTest, MfmaResultTypes) {
  EXPECT_EQ(MfmaResultType("f32_16x16x16_f16"), (ValueType{ElemType::kF32, 4}));
  EXPECT_EQ(MfmaResultType("f32_32x32x8_f16"), (ValueType{ElemType::kF32, 16}));
  EXPECT_EQ(MfmaResultType("f32_16x16x8_bf16"), (ValueType{ElemType::kF32, 4}));
  EXPECT_EQ(MfmaResultType("i32_16x16x32_i8"), (ValueType{ElemType::kI32, 4}));
  EXPECT_EQ(MfmaResultType("f32_4x4x4_16b_f16"), (ValueType{ElemType::kF32, 4}));
  EXPECT_EQ(MfmaResultType("f32_16x16x4_4b_f16"), (ValueType{ElemType::kF32, 16}));
  EXPECT_EQ(MfmaResultType("f32_32x32x4_2b_f16"), std::nullopt);  // 32 elements
  EXPECT_EQ(MfmaResultType("f32_4x4x4_f16"), std::nullopt);       // 16 / 64
  EXPECT_EQ(MfmaResultType("f64_16x16x4_f64"), std::nullopt);
  EXPECT_EQ(MfmaResultType("f32_16x16_f16"), std::nullopt);
  EXPECT_EQ(MfmaResultType("bogus"), std::nullopt);
  EXPECT_EQ(MfmaResultType("f32_1234567x1x1"), std::nullopt);
  // Unknown instruction names parse; the type stays the default.
  Kernel k = MustParse(
      "kernel k\nworkgroup 1 1 1\ngrid 1 1 1\n%d = mfma something %a, %b, %c\nend\n");
  EXPECT_EQ(k.body[0].type, ValueType{});
}

TEST(ParserTest, CommentsBlankLinesAndCrlf) {
  Kernel k = MustParse(
      "\r\n# header\r\n  \t\r\nkernel k # c\r\nworkgroup 2 1 1#c\r\ngrid 1 1 1\r\n"
      "barrier#x\r\n  # only a comment\r\nend # done\r\n\r\n# trailing comment");
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.loc.line, 4);
  EXPECT_EQ(k.workgroup[0], 2);
  ASSERT_EQ(k.body.size(), 1u);
  EXPECT_EQ(k.body[0].loc.line, 7);
  // Non-ASCII UTF-8 is fine in comments.
  MustParse("kernel k # größe ✓ 😀\nworkgroup 1 1 1\ngrid 1 1 1\nend");
}

// ---------------------------------------------------------------- errors

constexpr const char kHead[] = "kernel k\nworkgroup 64 1 1\ngrid 1 1 1\n";

struct ErrorCase {
  std::string text;
  std::string message;
};

TEST(ParserTest, Errors) {
  const std::string h = kHead;
  const std::vector<ErrorCase> cases = {
      {"", "e.kir:1:1: error: expected 'kernel', found end of input"},
      {"# nothing\n\n", "e.kir:3:1: error: expected 'kernel', found end of input"},
      {"workgroup 1 1 1\n", "e.kir:1:1: error: expected 'kernel', found 'workgroup'"},
      {"kernel\n", "e.kir:1:7: error: expected a kernel name, found end of line"},
      {"kernel 3k\n", "e.kir:1:8: error: expected a kernel name, found '3k'"},
      {h, "e.kir:4:1: error: expected 'end', found end of input"},
      {h + "barrier", "e.kir:4:8: error: expected 'end', found end of input"},
      {h + "end\nbarrier\n", "e.kir:5:1: error: expected end of input after 'end', found 'barrier'"},
      {h + "end end\n", "e.kir:4:5: error: expected end of line after 'end', found 'end'"},
      {"kernel k\nworkgroup 1 1 1\nend\n",
       "e.kir:3:1: error: missing 'grid' declaration before 'end'"},
      {"kernel k\ngrid 1 1 1\nbarrier\nend\n",
       "e.kir:3:1: error: missing 'workgroup' declaration before the first op"},
      {h + "workgroup 1 1 1\nend\n", "e.kir:4:1: error: duplicate 'workgroup' declaration"},
      {h + "target gfx942\ntarget gfx90a\nend\n",
       "e.kir:5:1: error: duplicate 'target' declaration"},
      {"kernel k\nkernel k\n", "e.kir:2:1: error: duplicate 'kernel' line (one kernel per file)"},
      {"kernel k\nworkgroup 0 1 1\n",
       "e.kir:2:11: error: workgroup size must be positive, found 0"},
      {"kernel k\nworkgroup 64 1\n",
       "e.kir:2:15: error: expected an integer or const name, found end of line"},
      {"kernel k\ngrid 1 1 1 1\n", "e.kir:2:12: error: expected end of line, found '1'"},
      {h + "barrier\narg A : f32[4] strides [1] readonly\nend\n",
       "e.kir:5:1: error: 'arg' declaration after the first op (declarations must come "
       "before all ops)"},
      // The valid words are listed (issue 13: `unknown op 'sub'` listed none).
      {h + "frobnicate\nend\n",
       "e.kir:4:1: error: unknown keyword 'frobnicate'; a line holds a declaration (target, workgroup, grid, "
       "const, arg, lds), an op without a result (store, lds_dma, barrier, yield, gemm), `%name = OP ...` (OP: load, "
       "load_tr, const, zero, add, mul, fma, cvt, slice, concat, mfma, for), '}' or 'end'"},
      {h + "%a = frob %b\nend\n",
       "e.kir:4:6: error: unknown op 'frob'; the ops that define a value are load, load_tr, const, zero, add, mul, fma, "
       "cvt, slice, concat, mfma and for"},
      {h + "%a = sub %b, %c\nend\n",
       "e.kir:4:6: error: unknown op 'sub'; the ops that define a value are load, load_tr, const, zero, add, mul, fma, "
       "cvt, slice, concat, mfma and for (a - b is `fma %b, %minus_one, %a` with `%minus_one = const f32 -1`)"},
      {h + "%a load A[0] : f32\nend\n",
       "e.kir:4:4: error: expected ',' or '=' after result name, found 'load'"},
      {h + "load A[0] : f32\nend\n",
       "e.kir:4:1: error: 'load' defines a value: expected '%name = load ...'"},
      {h + "%x = store A[0], %y\nend\n", "e.kir:4:1: error: 'store' does not define a result"},
      {h + "%x, %y = add %a, %b\nend\n", "e.kir:4:5: error: 'add' defines exactly one result"},
      {h + "arg A : f16[16, 16 16] strides [16, 1] readonly\nend\n",
       "e.kir:4:20: error: expected ',' or ']' in shape, found '16'"},
      {h + "arg A : f16[16, 16] strides [16, 1, 1] readonly\nend\n",
       "e.kir:4:29: error: expected 2 strides (one per dimension), found 3"},
      {h + "arg A : f16[16, 16] [16, 1] readonly\nend\n",
       "e.kir:4:21: error: expected 'strides' after shape, found '['"},
      {h + "arg A : f16[16] strides [1] readmostly\nend\n",
       "e.kir:4:29: error: expected 'readonly', 'writeonly' or 'readwrite', found 'readmostly'"},
      {h + "arg A : f16[M] strides [1] readonly\nend\n",
       "e.kir:4:13: error: unknown constant 'M'"},
      {h + "arg A : f16[-2] strides [1] readonly\nend\n",
       "e.kir:4:13: error: shape extent must not be negative, found -2"},
      {h + "arg A f16[4] strides [1] readonly\nend\n",
       "e.kir:4:7: error: expected ':' after argument name, found 'f16'"},
      {h + "arg A : f64[4] strides [1] readonly\nend\n",
       "e.kir:4:9: error: unknown type 'f64' (element types: f32, f16, bf16, i32, and the fp8 types f8e4m3fnuz and f8e5m2fnuz "
       "(gfx942), f8e4m3fn and f8e5m2 (gfx950))"},
      {h + "arg A : f16x4[4] strides [1] readonly\nend\n",
       "e.kir:4:9: error: expected an element type (f16, bf16, f32 or i32), found 'f16x4'"},
      {h + "arg s : f16\nend\n",
       "e.kir:4:9: error: scalar argument type must be i32 or f32, found 'f16' (buffers need "
       "a shape: 'f16[N]')"},
      {h + "lds L : f16[4] pad -1\nend\n", "e.kir:4:20: error: pad must not be negative, found -1"},
      {h + "const C 3\nend\n", "e.kir:4:9: error: expected '=' after constant name, found '3'"},
      {h + "const C = 3\nconst C = 4\nend\n", "e.kir:5:7: error: duplicate const 'C'"},
      {h + "const C = 9223372036854775808\nend\n",
       "e.kir:4:11: error: integer literal '9223372036854775808' does not fit in 64 bits"},
      {h + "const C = 12ab\nend\n", "e.kir:4:11: error: invalid integer literal '12ab'"},
      {h + "%a = load A[0] : f16x3\nend\n",
       "e.kir:4:18: error: invalid vector width in type 'f16x3' (widths are 2, 4, 8 and 16)"},
      {h + "%a = load A[0] : f16x1\nend\n",
       "e.kir:4:18: error: invalid vector width in type 'f16x1' (widths are 2, 4, 8 and 16)"},
      {h + "%a = cvt %b : f32x32\nend\n",
       "e.kir:4:15: error: invalid vector width in type 'f32x32' (widths are 2, 4, 8 and 16; only fp8 vectors "
       "have 32 elements: convert a 32-wide fp8 value as two halves, `slice %a, 0` and `slice %a, 16` to x16, and "
       "`concat` two 16-wide cvt results into an fp8x32)"},
      {h + "%a = zero f8\nend\n",
       "e.kir:4:11: error: unknown type 'f8' (element types: f32, f16, bf16, i32, and the fp8 types f8e4m3fnuz and f8e5m2fnuz "
       "(gfx942), f8e4m3fn and f8e5m2 (gfx950))"},
      {h + "%a = zero f8E4M3FNx4\nend\n",
       "e.kir:4:11: error: unknown type 'f8E4M3FNx4': KIR spells it 'f8e4m3fn'"},
      {h + "%a = load A[0] f32\nend\n",
       "e.kir:4:16: error: expected ':' before the loaded type, found 'f32'"},
      {h + "%a = load A[0] along x : f32\nend\n",
       "e.kir:4:22: error: expected an integer after 'along', found 'x'"},
      {h + "store A[0] %a\nend\n",
       "e.kir:4:12: error: expected ',' before the stored value, found '%a'"},
      {h + "store A[0,], %a\nend\n",
       "e.kir:4:11: error: expected an index expression, found ']'"},
      {h + "store A[(tid.x + 1], %a\nend\n", "e.kir:4:19: error: expected ')', found ']'"},
      {h + "store A[tid.w], %a\nend\n",
       "e.kir:4:13: error: expected 'x', 'y' or 'z' after 'tid.', found 'w'"},
      {h + "store A[tid.x 4], %a\nend\n",
       "e.kir:4:15: error: expected ',' or ']' after index expression, found '4'"},
      {h + "store A[99999999999999999999], %a\nend\n",
       "e.kir:4:9: error: integer literal '99999999999999999999' does not fit in 64 bits"},
      {h + "%d = add %a %b\nend\n", "e.kir:4:13: error: expected ',' between operands, found '%b'"},
      {h + "%d = fma %a, %b\nend\n",
       "e.kir:4:16: error: expected ',' between operands, found end of line"},
      {h + "%d = cvt %a f32\nend\n",
       "e.kir:4:13: error: expected ':' before the result type, found 'f32'"},
      {h + "%c = const f32 1.5.2\nend\n",
       "e.kir:4:16: error: invalid floating-point constant '1.5.2'"},
      {h + "%c = const f32 1e\nend\n", "e.kir:4:16: error: invalid floating-point constant '1e'"},
      {h + "%c = const f32 1e999\nend\n",
       "e.kir:4:16: error: floating-point constant '1e999' is out of range"},
      {h + "%c = const f32 x\nend\n",
       "e.kir:4:16: error: expected a floating-point constant, found 'x'"},
      {h + "%0 = zero f32\nend\n", "e.kir:4:2: error: expected a name after '%', found '0'"},
      {h + "for %i = 0 to 4\n", "e.kir:4:16: error: expected 'step', 'iter' or '{', found end of line"},
      {h + "for %i = 0 upto 4 {\n", "e.kir:4:12: error: expected 'to', found 'upto'"},
      {h + "for %i = 0 to 4 step 0 {\n", "e.kir:4:22: error: loop step must be positive, found 0"},
      {h + "for %i = 0 to 4 { barrier\n", "e.kir:4:19: error: expected end of line after '{', found 'barrier'"},
      {h + "for %i = 0 to n {\n",
       "e.kir:4:15: error: unknown constant 'n' (loop bounds and steps are integer literals or "
       "names of consts declared before the first op)"},
      {h + "for %i = 0 to 4 step {\n",
       "e.kir:4:22: error: expected an integer or const name as the step, found '{'"},
      {h + "for %i = ( to 4 {\n",
       "e.kir:4:10: error: expected an integer or const name as the lower bound, found '('"},
      {h + "%c = const f16 0x1p-\nend\n",
       "e.kir:4:16: error: invalid hexadecimal floating-point constant '0x1p-' (the form is "
       "0x1.8p-3: hex digits, an optional '.' and hex digits, an optional binary exponent "
       "p[+-]digits)"},
      {h + "%c = const f16 0xp3\nend\n",
       "e.kir:4:16: error: invalid hexadecimal floating-point constant '0xp3' (the form is "
       "0x1.8p-3: hex digits, an optional '.' and hex digits, an optional binary exponent "
       "p[+-]digits)"},
      {h + "%c = const f16 0x1g\nend\n",
       "e.kir:4:16: error: invalid floating-point constant '0x1g'"},
      {h + "%c = const f32 0x1p99999\nend\n",
       "e.kir:4:16: error: floating-point constant '0x1p99999' is out of range"},
      {h + "%c = const f32 1e-5x\nend\n",
       "e.kir:4:16: error: invalid floating-point constant '1e-5x'"},
      {h + "%r = for %i = 0 to 4 {\n  yield\n}\nend\n",
       "e.kir:4:6: error: 'for' defines 1 result(s) but has 0 iter_arg(s)"},
      {h + "for %i = 0 to 4 iter(%c = %z {\n",
       "e.kir:4:30: error: expected ',' or ')' in iter list, found '{'"},
      {h + "for %i = 0 to 4 {\n  barrier\nend\n",
       "e.kir:4:17: error: unterminated '{': expected a '}' line before 'end'"},
      {h + "for %i = 0 to 4 {\n  yield\n", 
       "e.kir:4:17: error: unterminated '{': expected a '}' line before end of input"},
      {h + "for %i = 0 to 4 {\n  barrier\n}\nend\n", "e.kir:6:1: error: expected 'yield' before '}'"},
      {h + "for %i = 0 to 4 {\n  yield\n  barrier\n}\nend\n",
       "e.kir:6:3: error: expected '}' after 'yield', found 'barrier'"},
      {h + "barrier\n}\nend\n", "e.kir:5:1: error: unmatched '}'"},
      {h + "for %i = 0 to 4 {\n  yield\n} x\nend\n",
       "e.kir:6:3: error: expected end of line after '}', found 'x'"},
      {h + "yield\nend\n", "e.kir:4:1: error: 'yield' outside of a 'for' body"},
      {h + "barrier ;\nend\n", "e.kir:4:9: error: expected end of line, found ';'"},
      {h + "barrier\x01\nend\n", "e.kir:4:8: error: expected end of line, found byte 0x01"},
      {h + "barrier é\nend\n", "e.kir:4:9: error: expected end of line, found 'é' (U+00E9)"},
      {h + "barrier\xC2\xA0\nend\n",
       "e.kir:4:8: error: expected end of line, found '\xC2\xA0' (U+00A0)"},
      {h + "barrier 😀\nend\n", "e.kir:4:9: error: expected end of line, found '😀' (U+1F600)"},
      // A byte-order mark anywhere but at the very start is named, not shown.
      {"\xEF\xBB\xBF\xEF\xBB\xBFkernel k\n",
       "e.kir:1:1: error: expected 'kernel', found a byte-order mark (U+FEFF, invisible): remove "
       "it"},
      {h + "\xEF\xBB\xBF" "barrier\nend\n",
       "e.kir:4:1: error: expected a declaration or an op, found a byte-order mark (U+FEFF, "
       "invisible): remove it"},
      {h + "  barrier\xff\nend\n", "e.kir:4:10: error: invalid UTF-8 byte 0xff"},
      {h + "# caf\xe9 \nend\n", "e.kir:4:6: error: invalid UTF-8 byte 0xe9"},
      {h + "# \xed\xa0\x80 surrogate\nend\n", "e.kir:4:3: error: invalid UTF-8 byte 0xed"},
      {h + "# \xc0\xaf overlong\nend\n", "e.kir:4:3: error: invalid UTF-8 byte 0xc0"},
      {h + "end\n" + std::string(1, '\0'), "e.kir:5:1: error: NUL byte in input"},
      {std::string("kernel k\nwork") + '\0' + "group\n", "e.kir:2:5: error: NUL byte in input"},
  };
  ASSERT_GE(cases.size(), 20u);
  for (const ErrorCase& c : cases) {
    absl::StatusOr<Kernel> k = ParseKernel(c.text, "e.kir");
    ASSERT_FALSE(k.ok()) << c.text;
    EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_EQ(k.status().message(), c.message) << c.text;
  }
}

TEST(ParserTest, DefaultFilename) {
  absl::StatusOr<Kernel> k = ParseKernel("kernel k\nworkgroup 1 1 1\ngrid 1 1 1\nbarrier");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().message(), "<input>:4:8: error: expected 'end', found end of input");
}

// ---------------------------------------------------------------- limits

// This thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID).
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(ParserLimitsTest, HundredMegabytesOfParentheses) {
  std::string text = std::string(kHead) + "%a = load A[";
  text.append(size_t{100} << 20, '(');
  text += "tid.x] : f32\nend\n";
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<Kernel> k = ParseKernel(text, "big.kir");
  EXPECT_LT(SecondsSince(t0), 10.0);
  ASSERT_FALSE(k.ok());
  // The 201st '(' (column 13 + 200).
  EXPECT_EQ(k.status().message(),
            "big.kir:4:213: error: index expression nested deeper than 200 levels");
}

TEST(ParserLimitsTest, DeepButLegalParentheses) {
  std::string text = std::string(kHead) + "%a = load A[" + std::string(200, '(') + "tid.x" +
                     std::string(200, ')') + "] : f32\nend\n";
  Kernel k = MustParse(text);
  ASSERT_EQ(k.body.size(), 1u);
  EXPECT_TRUE(IndexEqual(k.body[0].index[0], ITid(0)));
}

TEST(ParserLimitsTest, UnaryMinusChain) {
  std::string text = std::string(kHead) + "%a = load A[" + std::string(1 << 20, '-') +
                     "1] : f32\nend\n";
  absl::StatusOr<Kernel> k = ParseKernel(text, "m.kir");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().message(),
            "m.kir:4:213: error: index expression nested deeper than 200 levels");
}

TEST(ParserLimitsTest, LongOperatorChain) {
  // A flat chain builds a left-deep tree; its depth is limited too.
  std::string text = std::string(kHead) + "%a = load A[1";
  for (int i = 0; i < 1000000; ++i) text += "+1";
  text += "] : f32\nend\n";
  absl::StatusOr<Kernel> k = ParseKernel(text, "c.kir");
  ASSERT_FALSE(k.ok());
  // "1" at column 13, then the k-th '+' at column 12 + 2k; k = 200 makes depth 201.
  EXPECT_EQ(k.status().message(),
            "c.kir:4:412: error: index expression nested deeper than 200 levels");
  // 199 operators (depth 200) are fine and round-trip.
  std::string ok = std::string(kHead) + "%a = load A[1";
  for (int i = 0; i < 199; ++i) ok += i % 2 ? "+1" : " - tid.x";
  ok += "] : f32\nend\n";
  Kernel k2 = MustParse(ok);
  EXPECT_TRUE(MustParse(PrintKernel(k2)) == k2);
}

TEST(ParserLimitsTest, DeepLoopNesting) {
  std::string text = kHead;
  for (int i = 0; i < 100000; ++i) text += "for %i = 0 to 2 {\n";
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<Kernel> k = ParseKernel(text, "d.kir");
  EXPECT_LT(SecondsSince(t0), 10.0);
  ASSERT_FALSE(k.ok());
  // Loops 1..200 are on lines 4..203.
  EXPECT_EQ(k.status().message(), "d.kir:204:1: error: 'for' loops nested deeper than 200 levels");

  // 200 levels are fine and round-trip.
  std::string ok = kHead;
  for (int i = 0; i < 200; ++i) ok += "for %i = 0 to 2 {\n";
  for (int i = 0; i < 200; ++i) ok += "yield\n}\n";
  ok += "end\n";
  Kernel k2 = MustParse(ok);
  ASSERT_EQ(k2.body.size(), 1u);
  EXPECT_TRUE(MustParse(PrintKernel(k2)) == k2);
}

// Linear, not quadratic, in the number of lines: the time for 16x the lines
// is compared with the time for 1x (linear work measures 16-25x here, with
// cache effects; quadratic would take 256x), each the fastest of three
// parses in this thread's CPU time, so the check does not depend on how fast
// or loaded the machine is (wall time on a machine with 6 runnable threads
// per core gave the large parse a sixth of a core and a 230x ratio).
TEST(ParserLimitsTest, ManyLinesParseInLinearTime) {
  auto text_of = [](int lines) {
    std::string text = kHead;
    text += "%v = zero f32x4\n";
    for (int i = 0; i < lines; ++i) text += "%v = add %v, %v  # again\n";
    return text + "end\n";
  };
  auto fastest = [](const std::string& text, size_t ops) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      const double t0 = ThreadCpuSeconds();
      Kernel k = MustParse(text);
      best = std::min(best, ThreadCpuSeconds() - t0);
      EXPECT_EQ(k.body.size(), ops);
    }
    return best;
  };
  const double small = fastest(text_of(10000), 10001u);
  const double large = fastest(text_of(160000), 160001u);
  EXPECT_LT(large, 64.0 * small + 0.05) << "10k lines: " << small << " s, 160k lines: " << large << " s";
}

}  // namespace
}  // namespace kir
