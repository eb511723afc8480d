// The emulator's MFMA (tabulated slots, 8 sums at a time, fused multiply-add)
// gives the bits of the element-by-element evaluation it replaced, written
// out here as it was (acc = C, then acc += A[i][k] * B[k][j] in k order in
// double, rounded once to f32), for every MFMA of the catalogue on gfx90a,
// gfx942 and gfx950 (fp8 operands in the target's flavour), on random bit patterns: NaNs with payloads (quiet and signalling),
// infinities, subnormals, signed zeros and ordinary values in A, B and C.
// Which NaN a NaN result carries is what x86's mulsd/addsd give with the
// operands in the order the optimised build of that code used (its
// disassembly: mulsd A, B; addsd acc, product): the first NaN operand,
// quieted; the default NaN for 0 * inf and inf - inf. C++ leaves the operand
// order of a commutative operation to the compiler (this test's unoptimised
// build orders them otherwise), so the oracle spells it out.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/float_bits.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "hw/emu/emulator.h"
#include "hw/emu/float_math.h"
#include "hw/emu/test_util.h"

namespace kir::emu {
namespace {

using testing::FromBytes;
using testing::Lcg;
using testing::OneMfmaKernel;
using testing::ToBytes;

// Lane l loads its A, B and C registers, runs the MFMA and stores D over C
// (OneMfmaKernel).
std::string Kernel(const std::string& mcpu, const MfmaDesc& d) {
  const std::string mn = d.mnemonic[static_cast<int>((*LookupTarget(mcpu))->gfx)];
  return OneMfmaKernel(mcpu,
                       absl::StrCat(mn, d.cbsz != 0 ? absl::StrCat(" cbsz:", d.cbsz) : "",
                                    d.blgp != 0 ? absl::StrCat(" blgp:", d.blgp) : ""),
                       d.ab_regs(), d.cd_width, /*c_from_memory=*/true);
}

// Bit patterns: a mix of specials and random values; `bytes` 1: four fp8
// codes, each any of the 256 (NaN, inf, max, subnormal and zero codes of
// every format among them).
uint32_t Word(Lcg& g, bool f32, int bytes = 2) {
  if (bytes == 1) return g.Next();
  const uint32_t r = g.Next();
  if (f32) {
    switch (r % 16) {
      case 0: return 0x7fc00000u | (g.Next() & 0x803fffffu);  // quiet NaN, payload, sign
      case 1: return 0x7f800001u | (g.Next() & 0x803fffffu);  // signalling NaN
      case 2: return (g.Next() & 0x80000000u) | 0x7f800000u;  // inf
      case 3: return g.Next() & 0x807fffffu;                    // subnormal or zero
      case 4: return g.Next() & 0x80000000u;                    // signed zero
      default: return (g.Next() & 0x80000000u) | ((100 + g.Next() % 56) << 23) | (g.Next() & 0x7fffffu);
    }
  }
  uint32_t w = 0;
  for (int h = 0; h < 2; ++h) {
    const uint32_t x = g.Next();
    uint16_t v;
    switch (x % 16) {
      case 0: v = static_cast<uint16_t>(0x7c01 | (g.Next() & 0x83ff)); break;  // NaN (either kind), sign
      case 1: v = static_cast<uint16_t>((g.Next() & 0x8000) | 0x7c00); break; // inf
      case 2: v = static_cast<uint16_t>(g.Next() & 0x83ff); break;            // subnormal or zero
      default: v = static_cast<uint16_t>(g.Next()); break;                    // anything
    }
    w |= static_cast<uint32_t>(v) << (16 * h);
  }
  return w;
}

double Quiet(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  b |= uint64_t{1} << 51;
  std::memcpy(&x, &b, 8);
  return x;
}
double Mul(double a, double b) { return std::isnan(a) ? Quiet(a) : std::isnan(b) ? Quiet(b) : a * b; }
double Add(double a, double b) { return std::isnan(a) ? Quiet(a) : std::isnan(b) ? Quiet(b) : a + b; }

double Elem(const std::vector<uint32_t>& words, int ab, const FragmentSlot& s, ElemType t) {
  const uint32_t w = words[static_cast<size_t>(s.lane) * ab + s.reg];
  if (IsFp8(t)) return Fp8BitsToF32(t, static_cast<uint8_t>(w >> (8 * s.elem)));
  switch (t) {
    case ElemType::kF16: return F16ToDouble(static_cast<uint16_t>(w >> (16 * s.elem)));
    case ElemType::kBF16: return Bf16ToDouble(static_cast<uint16_t>(w >> (16 * s.elem)));
    default: return F32(w);
  }
}

TEST(MfmaBitsTest, SameBitsAsElementByElement) {
  int shapes = 0;
  for (const std::string mcpu : {"gfx90a", "gfx942", "gfx950"}) {
    const TargetInfo& t = **LookupTarget(mcpu);
    const int gfx = static_cast<int>(t.gfx);
    for (const MfmaDesc& d : AllMfmas()) {
      if (d.mnemonic[gfx] == nullptr) continue;
      const ElemType ae = *MfmaInElem(d.a_in, t), be = *MfmaInElem(d.b_in, t);
      const int eb = MfmaInBytes(d.a_in);
      ++shapes;
      const int ab = d.ab_regs(), cd = d.cd_width;
      absl::StatusOr<std::shared_ptr<const LoadedKernel>> k = LoadAssembly(Kernel(mcpu, d), mcpu);
      ASSERT_TRUE(k.ok()) << d.kir_name << ": " << k.status();
      for (uint64_t seed = 1; seed <= 6; ++seed) {
        Lcg g(seed * 977 + d.m * 31 + d.k);
        // Seeds 1-3: specials everywhere; 4-6: specials in C only (A, B ordinary
        // f16/bf16/f32 with an occasional special), so most sums are finite.
        const bool f32 = eb == 4;
        std::vector<uint32_t> a(64 * ab), b(64 * ab), c(64 * cd);
        for (uint32_t& x : a) x = Word(g, f32, eb);
        for (uint32_t& x : b) x = Word(g, f32, eb);
        for (uint32_t& x : c) x = Word(g, true);
        // Ordinary values: exponent field set near the middle (fp8: 0b0110
        // of E4M3's or 0b0110x of E5M2's, never a NaN or inf code).
        if (seed > 3)
          for (auto* v : {&a, &b})
            for (uint32_t& x : *v)
              if (g.Next() % 64 != 0)
                x = f32 ? (x & 0x807fffffu) | 0x3f000000u
                        : eb == 1 ? (x & 0x87878787u) | 0x30303030u : (x & 0x83ff83ffu) | 0x38003800u;
        // The element-by-element evaluation (the emulator's before issue 16 item 6).
        std::vector<uint32_t> want(64 * cd);
        for (int i = 0; i < d.m; ++i)
          for (int j = 0; j < d.n; ++j) {
            FragmentSlot s = d.CSlot(i, j);
            double acc = FlushIn(F32(c[static_cast<size_t>(s.lane) * cd + s.reg]), 3);
            for (int kk = 0; kk < d.k; ++kk)
              acc = Add(acc, Mul(Elem(a, ab, d.ASlot(i, kk), ae), Elem(b, ab, d.BSlot(kk, j), be)));
            want[static_cast<size_t>(s.lane) * cd + s.reg] = Bits(FlushOut(RoundToF32(acc), 3));
          }
        LaunchArgs args;
        args.args = {ToBytes(a), ToBytes(b), ToBytes(c)};
        absl::StatusOr<EmuStats> st = RunKernel(**k, args);
        ASSERT_TRUE(st.ok()) << d.kir_name << " on " << mcpu << ": " << st.status();
        std::vector<uint32_t> got = FromBytes<uint32_t>(args.args[2]);
        int nans = 0, bad = 0;
        for (size_t x = 0; x < want.size(); ++x) {
          nans += std::isnan(F32(want[x]));
          if (got[x] != want[x] && ++bad <= 5)
            ADD_FAILURE() << d.kir_name << " on " << mcpu << " seed " << seed << ": lane " << x / cd << " reg "
                          << x % cd << ": got 0x" << std::hex << got[x] << ", want 0x" << want[x];
        }
        if (seed == 1) {
          EXPECT_GT(nans, 0) << d.kir_name << ": the inputs must exercise NaN";
        }
        if (seed == 4) {
          EXPECT_LT(nans, static_cast<int>(want.size())) << d.kir_name;
        }
      }
    }
  }
  EXPECT_GE(shapes, 6);
}

}  // namespace
}  // namespace kir::emu
