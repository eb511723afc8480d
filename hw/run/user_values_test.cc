// kirc run --scalar and --input, parsed: ParseScalarValue against bit
// patterns worked out by hand (IEEE 754 encodings, two's complement),
// ScalarTypeOf of metadata, the .npy reader against files written here byte
// by byte, and ParseUserValues' errors.
#include "hw/run/user_values.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/parser.h"
#include "compiler/object/toolchain.h"
#include "gtest/gtest.h"
#include "hw/check/npy.h"

namespace kir {
namespace {

#define EXPECT_HAS_SUBSTR(s, sub) EXPECT_TRUE(absl::StrContains(s, sub)) << "in: " << (s)

using K = ScalarType::Kind;

uint64_t Value(const std::vector<uint8_t>& b) {
  uint64_t v = 0;
  for (size_t i = b.size(); i > 0; --i) v = v << 8 | b[i - 1];
  return v;
}

// The bits `text` parses to as type `t`, or the error text.
std::string Parse(const char* text, ScalarType t) {
  absl::StatusOr<std::vector<uint8_t>> b = ParseScalarValue(text, t);
  if (!b.ok()) return std::string(b.status().message());
  EXPECT_EQ(b->size(), static_cast<size_t>(t.bytes)) << text;
  return absl::StrCat("0x", absl::Hex(Value(*b)));
}

TEST(ParseScalarValue, IntegersByType) {
  const ScalarType i32{K::kSigned, 4}, u32{K::kUnsigned, 4}, int32{K::kInteger, 4}, i64{K::kSigned, 8},
      u8{K::kUnsigned, 1}, i16{K::kSigned, 2};
  EXPECT_EQ(Parse("42", i32), "0x2a");
  EXPECT_EQ(Parse("-1", i32), "0xffffffff");
  EXPECT_EQ(Parse("-2147483648", i32), "0x80000000");
  EXPECT_EQ(Parse("0xffffffff", i32), "0xffffffff");  // hex is the bits
  EXPECT_EQ(Parse("-0x10", i32), "0xfffffff0");
  EXPECT_EQ(Parse("+7", u32), "0x7");
  EXPECT_EQ(Parse("4294967295", u32), "0xffffffff");
  EXPECT_EQ(Parse("4294967295", int32), "0xffffffff");
  EXPECT_EQ(Parse("-2147483648", int32), "0x80000000");
  EXPECT_EQ(Parse("-1", i64), "0xffffffffffffffff");
  EXPECT_EQ(Parse("0x8000000000000000", i64), "0x8000000000000000");
  EXPECT_EQ(Parse("255", u8), "0xff");
  EXPECT_EQ(Parse("-32768", i16), "0x8000");
  EXPECT_EQ(Parse("2147483648", i32),
            "'2147483648' is not a valid i32 value: it is out of range for i32 [-2147483648, 2147483647] (as bits: "
            "0x0 to 0xffffffff)");
  EXPECT_EQ(Parse("-1", u32), "'-1' is not a valid u32 value: it is out of range for u32 [0, 4294967295]");
  EXPECT_EQ(Parse("256", u8), "'256' is not a valid u8 value: it is out of range for u8 [0, 255]");
  EXPECT_EQ(Parse("0x100000000", u32), "'0x100000000' is not a valid u32 value: it is out of range for u32 [0, "
                                       "4294967295]");
  EXPECT_EQ(Parse("1.5", i32),
            "'1.5' is not a valid i32 value: an integer argument takes an integer (decimal or 0x hexadecimal)");
  EXPECT_EQ(Parse("12abc", i32),
            "'12abc' is not a valid i32 value: write a decimal integer or 0x followed by hexadecimal digits");
  EXPECT_EQ(Parse("0x", i32),
            "'0x' is not a valid i32 value: write a decimal integer or 0x followed by hexadecimal digits");
  EXPECT_EQ(Parse("", i32), "'' is not a valid i32 value: it is empty");
  EXPECT_EQ(Parse("99999999999999999999999", i64),
            "'99999999999999999999999' is not a valid i64 value: it is out of range for i64");
}

TEST(ParseScalarValue, Floats) {
  const ScalarType f32{K::kFloat, 4}, f64{K::kFloat, 8}, f16{K::kFloat, 2}, bf16{K::kFloat, 2, true};
  // IEEE 754 binary32: 1.5 = 0x3fc00000, -2 = 0xc0000000, 0.1 rounds to 0x3dcccccd,
  // 0x1.8p-3 = 0.1875 = 0x3e400000, inf 0x7f800000; the smallest subnormal 0x1.
  EXPECT_EQ(Parse("1.5", f32), "0x3fc00000");
  EXPECT_EQ(Parse("-2", f32), "0xc0000000");
  EXPECT_EQ(Parse("0.1", f32), "0x3dcccccd");
  EXPECT_EQ(Parse("0x1.8p-3", f32), "0x3e400000");
  EXPECT_EQ(Parse("inf", f32), "0x7f800000");
  EXPECT_EQ(Parse("-inf", f32), "0xff800000");
  EXPECT_EQ(Parse("1.4e-45", f32), "0x1");
  EXPECT_EQ(Parse("0.1", f64), "0x3fb999999999999a");
  EXPECT_EQ(Parse("0.5", f16), "0x3800");
  EXPECT_EQ(Parse("-3", bf16), "0xc040");
  EXPECT_EQ(Parse("0x3f800000", f32),
            "'0x3f800000' is not a valid f32 value: a hexadecimal float needs a binary exponent (0x1.8p-3 is "
            "0.1875); for the f32's bits write its value instead");
  EXPECT_EQ(Parse("1e39", f32),
            "'1e39' is not a valid f32 value: it is outside the range of f32 (the largest finite is 3.40282347e+38)");
  EXPECT_EQ(Parse("1e-50", f32),
            "'1e-50' is not a valid f32 value: it is outside the range of f32 (it rounds to 0; the smallest "
            "subnormal is 1.4e-45)");
  EXPECT_EQ(Parse("one", f32),
            "'one' is not a valid f32 value: write a decimal (1.5, -2e-3), inf, -inf, nan or a C hexadecimal float "
            "(0x1.8p-3)");
  EXPECT_EQ(Parse("0.1", f16), "'0.1' is not a valid f16 value: f16 does not hold it exactly; give a value it holds");
  absl::StatusOr<std::vector<uint8_t>> nan = ParseScalarValue("nan", f32);
  ASSERT_TRUE(nan.ok());
  EXPECT_EQ(Value(*nan) & 0x7f800000u, 0x7f800000u);
  EXPECT_NE(Value(*nan) & 0x007fffffu, 0u);
}

TEST(ScalarTypeOf, FromMetadata) {
  ArgNote a;
  a.value_kind = "by_value";
  a.size = 4;
  EXPECT_EQ(ScalarTypeOf(a)->Name(), "int32");  // nothing says the sign
  a.type_name = "unsigned int";
  EXPECT_EQ(ScalarTypeOf(a)->Name(), "u32");
  a.type_name = "const float";
  EXPECT_EQ(ScalarTypeOf(a)->Name(), "f32");
  a.type_name = "double";  // disagrees with .size: not trusted
  EXPECT_EQ(ScalarTypeOf(a)->Name(), "int32");
  a.type_name = "";
  a.value_type = "i32";  // Tensile's
  EXPECT_EQ(ScalarTypeOf(a)->Name(), "i32");
  a.size = 8;
  a.value_type = "";
  a.type_name = "size_t";
  EXPECT_EQ(ScalarTypeOf(a)->Name(), "u64");
  a.size = 12;
  a.type_name = "struct S";
  EXPECT_EQ(ScalarTypeOf(a).status().message(),
            "it is a 12-byte by-value argument (struct S); --scalar sets integers and floats of 1, 2, 4 or 8 bytes");
  EXPECT_EQ(FormatScalarValue({0xff, 0xff, 0xff, 0xff}, {K::kInteger, 4}), "-1 or 4294967295 (int32, 0xffffffff)");
  EXPECT_EQ(FormatScalarValue({0x00, 0x00, 0xc0, 0x3f}, {K::kFloat, 4}), "1.5 (f32, 0x3fc00000)");
  EXPECT_EQ(FormatScalarValue({0x40, 0, 0, 0}, {K::kUnsigned, 4}), "64 (u32, 0x00000040)");
}

// A .npy file: version 1.0, header `dict` padded to 64 bytes, then `data`.
std::string Npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t pre = major == 1 ? 10 : 12;
  header.append((64 - (pre + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const uint32_t n = static_cast<uint32_t>(header.size());
  out.push_back(static_cast<char>(n & 0xff));
  out.push_back(static_cast<char>(n >> 8 & 0xff));
  if (major != 1) out.append({static_cast<char>(n >> 16 & 0xff), static_cast<char>(n >> 24)});
  return out + header + data;
}

Kernel K2() {
  absl::StatusOr<Kernel> k = ParseKernel(R"(kernel k
target gfx942
workgroup 64 1 1
grid 1 1 1
arg A : f32[2, 3] strides [4, 1] readonly
arg H : bf16[4] strides [1] readonly
arg R : f32[2, 3] strides [0, 1] readonly
arg C : f32[2, 3] strides [3, 1] writeonly
arg alpha : f32
  %a = load A[0, 0] : f32
  store C[0, 0], %a
end
)",
                                         "k.kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return *k;
}

std::string F32s(std::initializer_list<float> v) {
  std::string s;
  for (float f : v) s.append(reinterpret_cast<const char*>(&f), 4);
  return s;
}

TEST(ReadNpyElements, ReadsWhatDumpWritesAndScattersAtTheStrides) {
  const Kernel k = K2();
  const Arg& a = *k.FindArg("A");
  // A padded 2 x 3 view (row stride 4): elements 0..2 and 4..6 of 8.
  std::vector<uint8_t> buffer(8 * 4, 0xee);
  std::vector<uint8_t> elems(24);
  const std::string data = F32s({1, 2, 3, 4, 5, 6});
  std::memcpy(elems.data(), data.data(), 24);
  ASSERT_TRUE(ScatterElements(a, elems, &buffer).ok());
  float back[8];
  std::memcpy(back, buffer.data(), 32);
  EXPECT_EQ(back[0], 1);
  EXPECT_EQ(back[2], 3);
  EXPECT_EQ(back[4], 4);
  EXPECT_EQ(back[6], 6);
  EXPECT_EQ(buffer[12], 0xee);  // the padding is left alone
  // What NpyOfBuffer writes reads back to the same elements.
  absl::StatusOr<std::vector<uint8_t>> r = ReadNpyElements(a, NpyOfBuffer(a, buffer));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, elems);
  // Flat, and format 2.0.
  r = ReadNpyElements(a, Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", data, 2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, elems);
}

TEST(ReadNpyElements, SaysWhatIsWrong) {
  const Kernel k = K2();
  const Arg& a = *k.FindArg("A");
  const std::string data = F32s({1, 2, 3, 4, 5, 6});
  auto err = [&](const Arg& arg, const std::string& npy) {
    absl::StatusOr<std::vector<uint8_t>> r = ReadNpyElements(arg, npy);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_EQ(err(a, "hello"), "not a .npy file (it does not start with \\x93NUMPY; numpy.save writes one)");
  EXPECT_EQ(err(a, Npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", data + data)),
            "dtype '<f8', but buffer 'A' is f32: give dtype '<f4' (what --dump writes)");
  EXPECT_EQ(err(*k.FindArg("H"), Npy("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", "12345678")),
            "dtype '<f2', but buffer 'H' is bf16: give dtype '<u2' (bf16's raw bits: NumPy has no bfloat16; what "
            "--dump writes)");
  EXPECT_EQ(err(a, Npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", data)),
            "fortran_order is True: save the array in C order (numpy.ascontiguousarray), as --dump writes it");
  EXPECT_EQ(err(a, Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3), }", data + F32s({7, 8, 9}))),
            "shape (3, 3) holds 9 elements, not the 6 of buffer 'A' (f32(2, 3), 6 elements)");
  EXPECT_EQ(err(a, Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", data)),
            "shape (3, 2) holds as many elements as buffer 'A' (f32(2, 3), 6 elements) but is neither its shape nor "
            "flat (6,): reshape it (in C order) if the order is right");
  EXPECT_EQ(err(a, Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data.substr(0, 20))),
            "the .npy file has 20 bytes of data, not the 6 x 4 its shape needs (truncated or padded)");
  EXPECT_EQ(err(a, std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 17)), "the .npy header is truncated");
  // A broadcast row (stride 0): both rows are one in memory and must agree.
  const Arg& r = *k.FindArg("R");
  std::vector<uint8_t> buffer(12, 0), elems(24);
  std::memcpy(elems.data(), data.data(), 24);
  EXPECT_EQ(std::string(ScatterElements(r, elems, &buffer).message()),
            "elements [0, 0] and [1, 0] of buffer 'R' are one element in memory (its strides 0, 1) but the file "
            "gives them different values");
  const std::string same = F32s({1, 2, 3, 1, 2, 3});
  std::memcpy(elems.data(), same.data(), 24);
  EXPECT_TRUE(ScatterElements(r, elems, &buffer).ok());
}

TEST(ParseUserValues, ErrorsNameTheFlagAndTheArgument) {
  const Kernel k = K2();
  auto err = [&](std::vector<std::pair<std::string, std::string>> scalars,
                 std::vector<std::pair<std::string, std::string>> inputs, const KernelNotes* code = nullptr) {
    absl::StatusOr<UserValues> u = ParseUserValues(k, scalars, inputs, code);
    return u.ok() ? std::string("ok") : std::string(u.status().message());
  };
  EXPECT_EQ(err({{"alpha", "1.5"}}, {}), "ok");
  EXPECT_EQ(err({{"alpha", "1.5"}, {"alpha", "2"}}, {}), "--scalar alpha is given twice");
  EXPECT_EQ(err({{"A", "1"}}, {}),
            "--scalar A=1: 'A' is a buffer argument of kernel 'k': give its contents with --input A=FILE.npy");
  EXPECT_EQ(err({{"lda", "64"}}, {}),
            "--scalar lda=64: kernel 'k' has no scalar argument 'lda' (its scalars: alpha); only a code object given "
            "with --code-object can take arguments the .kir lacks");
  EXPECT_EQ(err({{"alpha", "x"}}, {}),
            "--scalar alpha=x: 'x' is not a valid f32 value: write a decimal (1.5, -2e-3), inf, -inf, nan or a C "
            "hexadecimal float (0x1.8p-3)");
  EXPECT_EQ(err({}, {{"alpha", "a.npy"}}),
            "--input alpha=a.npy: 'alpha' is a scalar argument of kernel 'k': give its value with --scalar "
            "alpha=VALUE");
  EXPECT_EQ(err({}, {{"B", "b.npy"}}),
            "--input B=b.npy: kernel 'k' has no buffer argument 'B' (its buffers: A, H, R, C)");
  EXPECT_HAS_SUBSTR(err({}, {{"A", "/no/such/file.npy"}}), "--input A=/no/such/file.npy: ");
  // The code object's arguments the .kir lacks.
  KernelNotes code;
  code.name = "k";
  ArgNote lda;
  lda.name = "ld a";
  lda.value_kind = "by_value";
  lda.size = 4;
  lda.type_name = "int";
  ArgNote ws = lda;
  ws.name = "ws";
  ws.value_kind = "global_buffer";
  ws.size = 8;
  code.args = {lda, ws};
  EXPECT_EQ(err({{"ld a", "-3"}}, {}, &code), "ok");
  EXPECT_EQ(err({{"ws", "0"}}, {}, &code),
            "--scalar ws=0: the code object's argument 'ws' is global_buffer (a pointer): pointers are the .kir's "
            "buffers; declare it as a buffer argument of the .kir kernel");
  EXPECT_EQ(err({{"lda", "3"}}, {}, &code),
            "--scalar lda=3: neither kernel 'k' of the .kir (scalars: alpha) nor the code object's kernel (by-value "
            "arguments the .kir lacks: 'ld a') has an argument 'lda'");
  EXPECT_EQ(err({{"ld a", "3000000000"}}, {}, &code),
            "--scalar ld a=3000000000: '3000000000' is not a valid i32 value: it is out of range for i32 "
            "[-2147483648, 2147483647] (as bits: 0x0 to 0xffffffff)");
  // Review 5 F1: metadata without argument names (clang -O3 without
  // -cl-kernel-arg-info): the message says so instead of quoting '' names.
  ArgNote n1 = lda, n2 = lda;
  n1.name = n2.name = "";
  n1.offset = 16;
  n2.offset = 20;
  ArgNote p0 = ws;
  p0.name = "";
  p0.offset = 0;
  KernelNotes unnamed = code;
  unnamed.args = {p0, n1, n2};
  EXPECT_EQ(err({{"n", "1024"}}, {}, &unnamed),
            "--scalar n=1024: the code object's metadata names none of the by-value arguments the .kir lacks "
            "((unnamed, #1) (by_value, 4 bytes at offset 16, int), (unnamed, #2) (by_value, 4 bytes at offset 20, "
            "int)): give an unnamed one by its position among the code's explicit arguments, --scalar '#1=VALUE', or "
            "rebuild the code object with argument names (clang -cl-kernel-arg-info for OpenCL; HIP names them); "
            "kernel 'k' of the .kir has the scalars alpha");
  // ... and by position they are given: '#N' is explicit argument N, typed
  // by its metadata (int: i32), kept as extra["#N"].
  {
    absl::StatusOr<UserValues> p = ParseUserValues(k, {{"#2", "-5"}, {"#01", "0x10"}}, {}, &unnamed);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->extra.at("#2"), std::vector<uint8_t>({0xfb, 0xff, 0xff, 0xff}));
    EXPECT_EQ(p->extra.at("#1"), std::vector<uint8_t>({0x10, 0, 0, 0}));
    EXPECT_EQ(p->extra_text, std::vector<std::string>({"#2 = -5 (i32, 0xfffffffb)", "#1 = 16 (i32, 0x00000010)"}));
    EXPECT_FALSE(p->ReferenceSees());
  }
  const std::string listed =
      "(unnamed, #0) (global_buffer, 8 bytes at offset 0, int), (unnamed, #1) (by_value, 4 bytes at offset 16, "
      "int), (unnamed, #2) (by_value, 4 bytes at offset 20, int)";
  EXPECT_EQ(err({{"#3", "1"}}, {}, &unnamed),
            "--scalar #3=1: the code object's kernel 'k' has no argument #3: it has 3 explicit argument(s), #0 to #2 "
            "in its metadata's order (" + listed + ")");
  EXPECT_EQ(err({{"#0", "1"}}, {}, &unnamed),
            "--scalar #0=1: argument #0 of the code object's kernel 'k' is (unnamed, #0) (global_buffer, 8 bytes at "
            "offset 0, int): a pointer, which is one of the .kir's buffers (declare it as a buffer argument of the "
            ".kir kernel), not a value --scalar sets (its explicit arguments: " + listed + ")");
  EXPECT_EQ(err({{"#1", "1"}, {"#01", "2"}}, {}, &unnamed),
            "--scalar #01=2: the code object's argument (unnamed, #1) (by_value, 4 bytes at offset 16, int) is given "
            "a value already (--scalar #1=...)");
  // Fresh-user review 7 F10: a '#' key that is not #N is no name either
  // (no C identifier has a '#'): the message says what an index is; 3
  // explicit arguments, #0 to #2.
  EXPECT_EQ(err({{"#-1", "3"}}, {}, &unnamed),
            "--scalar #-1=3: '#-1' is not a valid argument index (write #N with N from 0 to 2)");
  EXPECT_EQ(err({{"#+2", "1000"}}, {}, &unnamed),
            "--scalar #+2=1000: '#+2' is not a valid argument index (write #N with N from 0 to 2)");
  EXPECT_EQ(err({{"#", "1"}}, {}, &unnamed),
            "--scalar #=1: '#' is not a valid argument index (write #N with N from 0 to 2)");
  EXPECT_EQ(err({{"#1234567890", "1"}}, {}, &unnamed),
            "--scalar #1234567890=1: '#1234567890' is not a valid argument index (write #N with N from 0 to 2)");
  EXPECT_EQ(err({{"#1", "1"}}, {}),
            "--scalar #1=1: '#1' addresses an argument of a code object by position (#N: its N-th explicit "
            "argument, from 0), and there is none: give the code object with --code-object, or a scalar of kernel "
            "'k' by name (its scalars: alpha)");
  // Named metadata: by position too, but not twice, and not for an
  // argument the .kir binds by name.
  {
    absl::StatusOr<UserValues> p = ParseUserValues(k, {{"#0", "7"}}, {}, &code);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->extra.at("#0"), std::vector<uint8_t>({7, 0, 0, 0}));
    EXPECT_EQ(p->extra_text, std::vector<std::string>({"#0 (ld a) = 7 (i32, 0x00000007)"}));
  }
  EXPECT_EQ(err({{"ld a", "1"}, {"#0", "2"}}, {}, &code),
            "--scalar #0=2: the code object's argument 'ld a' (#0, by_value, 4 bytes at offset 0, int) is given a "
            "value already (--scalar ld a=...)");
  KernelNotes with_alpha = code;
  with_alpha.args[1].name = "alpha";
  with_alpha.args[1].value_kind = "by_value";
  with_alpha.args[1].size = 4;
  with_alpha.args[1].offset = 8;
  EXPECT_EQ(err({{"#1", "1"}}, {}, &with_alpha),
            "--scalar #1=1: the code object's argument 'alpha' (#1, by_value, 4 bytes at offset 8, int) is bound by "
            "name to the argument 'alpha' of kernel 'k': give it as --scalar alpha=VALUE");
  absl::StatusOr<UserValues> u = ParseUserValues(k, {{"ld a", "-3"}, {"alpha", "0.5"}}, {}, &code);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->extra.at("ld a"), std::vector<uint8_t>({0xfd, 0xff, 0xff, 0xff}));
  EXPECT_EQ(u->kir_scalars.at("alpha"), 0x3f000000u);
  EXPECT_EQ(u->extra_text, std::vector<std::string>({"ld a = -3 (i32, 0xfffffffd)"}));
  EXPECT_TRUE(u->ReferenceSees());
}

}  // namespace
}  // namespace kir
