// MFMA: D = A * B + C for one wave, element by element through the lane
// layouts of compiler/target/target.h (MfmaDesc::ASlot/BSlot/CSlot, from
// amdgcn-isa-notes.md 1.2). Accumulation model: every product of two f16/bf16
// (or f32) inputs is exact in double; the K products and C are summed in
// double, in k order (acc = C; acc = acc + A[i][k] * B[k][j] for k = 0, 1,
// ...), and the sum is rounded once to f32 (nearest-even). The hardware's
// internal order and rounding are unspecified (notes 1.1), so compare with a
// tolerance; FP32 denormals follow the descriptor's mode (kept by kirc).
//
// Speed (issue 16 item 6): the slots are tabulated once per MFMA shape
// (MfmaTables), f16 inputs convert through a table of all 65536 values, and
// the sums run 8 output elements at a time (AVX-512 when the CPU has it, else
// the same loop on scalars). Every product is exact in double, so a fused
// multiply-add rounds exactly as the separate add did; a result that is NaN
// is recomputed by MfmaElementIeee, which spells out the NaN the separate
// x86 multiply and add give (first NaN operand quieted, in the order acc,
// then A, then B; the default NaN for 0 * inf and inf - inf), so the bits are
// those of the element-by-element evaluation for every input.
#include <array>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "absl/strings/str_cat.h"
#include "hw/emu/exec.h"
#include "compiler/ir/float_bits.h"
#include "hw/emu/float_math.h"

namespace kir::emu {
namespace {

// The slots of one MFMA shape, as indices into the source registers' lanes.
struct MfmaTables {
  int m = 0, n = 0, k = 0, cd = 0;
  // A[i][k] (i * K + k) and B[k][j] (k * N + j): register * 64 + lane, and
  // the element's shift within the 32-bit word.
  std::vector<uint16_t> a_at, b_at;
  std::vector<uint8_t> a_shift, b_shift;
  // Per D register and lane (reg * 64 + lane): its row i and column j.
  std::vector<uint8_t> c_i, c_j;
  // Every 8 consecutive lanes (from a multiple of 8) of a D register hold one
  // row i and 8 consecutive columns j: the rows can be computed 8 at a time.
  bool rows8 = false;
  std::string error;  // the catalogue's slots do not fit (never for a correct one)
};

inline float AsF32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t AsBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

constexpr int kMaxAb = 16 * 128;  // elements of A (M x K) and of B (K x N): 16x16x128, 32x32x64
constexpr int kMaxAbRegs = 8;     // registers of A (and B) per lane: 8 (32 fp8)

// f16 bits -> the exact double F16ToDouble gives, for all 65536 values.
const double* F16Table() {
  static const std::vector<double>* table = [] {
    auto* t = new std::vector<double>(65536);
    for (uint32_t h = 0; h < 65536; ++h) (*t)[h] = F16ToDouble(static_cast<uint16_t>(h));
    return t;
  }();
  return table->data();
}

std::unique_ptr<MfmaTables> BuildTables(const MfmaDesc& d) {
  auto t = std::make_unique<MfmaTables>();
  t->m = d.m;
  t->n = d.n;
  t->k = d.k;
  t->cd = d.cd_width;
  const int bytes = MfmaInBytes(d.a_in), per_reg = 4 / bytes;
  auto ab = [&](const FragmentSlot& s, std::vector<uint16_t>& at, std::vector<uint8_t>& shift) {
    if (s.lane < 0 || s.lane >= kLanes || s.reg < 0 || s.reg >= d.ab_regs() || s.elem < 0 || s.elem >= per_reg)
      t->error = "the MFMA catalogue's A/B slot does not fit the operand";
    at.push_back(static_cast<uint16_t>(s.reg * kLanes + s.lane));
    shift.push_back(static_cast<uint8_t>(8 * bytes * s.elem));
  };
  for (int i = 0; i < d.m; ++i)
    for (int kk = 0; kk < d.k; ++kk) ab(d.ASlot(i, kk), t->a_at, t->a_shift);
  for (int kk = 0; kk < d.k; ++kk)
    for (int j = 0; j < d.n; ++j) ab(d.BSlot(kk, j), t->b_at, t->b_shift);
  t->c_i.assign(static_cast<size_t>(d.cd_width) * kLanes, 0);
  t->c_j.assign(static_cast<size_t>(d.cd_width) * kLanes, 0);
  std::vector<int> covered(static_cast<size_t>(d.cd_width) * kLanes, 0);
  for (int i = 0; i < d.m; ++i)
    for (int j = 0; j < d.n; ++j) {
      FragmentSlot s = d.CSlot(i, j);
      if (s.lane < 0 || s.lane >= kLanes || s.reg < 0 || s.reg >= d.cd_width) {
        t->error = "the MFMA catalogue's C slot does not fit the operand";
        return t;
      }
      const size_t at = static_cast<size_t>(s.reg) * kLanes + s.lane;
      ++covered[at];
      t->c_i[at] = static_cast<uint8_t>(i);
      t->c_j[at] = static_cast<uint8_t>(j);
    }
  for (int c : covered)
    if (c != 1) t->error = "the MFMA catalogue's C layout is not 1:1";
  if (d.m * d.k > kMaxAb || d.k * d.n > kMaxAb || d.ab_regs() > kMaxAbRegs || d.cd_width > 16 ||
      MfmaInBytes(d.b_in) != bytes)
    t->error = "the MFMA is larger than the emulator's buffers";
  bool rows8 = d.n % 8 == 0;
  for (size_t g = 0; rows8 && g < covered.size(); g += 8)
    for (size_t l = 1; l < 8; ++l)
      rows8 = rows8 && t->c_i[g + l] == t->c_i[g] && t->c_j[g + l] == t->c_j[g] + l;
  t->rows8 = rows8;
  return t;
}

const MfmaTables& TablesFor(const MfmaDesc& d) {
  using Key = std::tuple<int, int, int, int, int, int, int>;
  static std::mutex mu;
  static std::map<Key, std::unique_ptr<MfmaTables>>* cache = new std::map<Key, std::unique_ptr<MfmaTables>>();
  thread_local const MfmaDesc* last_desc = nullptr;
  thread_local const MfmaTables* last = nullptr;
  if (last_desc == &d) return *last;
  const Key key{d.m, d.n, d.k, MfmaInBytes(d.a_in), d.ab_width, d.cd_width, d.k_per_lane_group};
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<MfmaTables>& t = (*cache)[key];
  if (!t) t = BuildTables(d);
  last_desc = &d;
  last = t.get();
  return *t;
}

// The quiet NaN an x86 operation returns for a NaN operand.
double Quiet(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  b |= uint64_t{1} << 51;
  std::memcpy(&x, &b, 8);
  return x;
}
// x86 SSE2 mulsd/addsd with src1 = a: a NaN operand's payload (a first), else
// the operation (the default NaN for an invalid one).
double MulIeee(double a, double b) { return std::isnan(a) ? Quiet(a) : std::isnan(b) ? Quiet(b) : a * b; }
double AddIeee(double a, double b) { return std::isnan(a) ? Quiet(a) : std::isnan(b) ? Quiet(b) : a + b; }

// One D element summed one product at a time (acc = acc + A * B), with the
// NaN of each step spelled out.
double MfmaElementIeee(const double* A, const double* B, double c, int i, int j, int N, int K) {
  double acc = c;
  for (int kk = 0; kk < K; ++kk) acc = AddIeee(acc, MulIeee(A[i * K + kk], B[kk * N + j]));
  return acc;
}

// acc[r * 64 + l] += sum over k of A[i][k] * B[k][j] for the D element (i, j)
// of register r and lane l, in k order; A is M x K, B is K x N.
void SumScalar(const MfmaTables& t, const double* A, const double* B, double* acc) {
  const int K = t.k, N = t.n;
  for (int x = 0; x < t.cd * kLanes; ++x) {
    const int i = t.c_i[x], j = t.c_j[x];
    double s = acc[x];
    for (int kk = 0; kk < K; ++kk) s = s + A[i * K + kk] * B[kk * N + j];  // exact product
    acc[x] = s;
  }
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void SumRows8Avx512(const MfmaTables& t, const double* A, const double* B,
                                                       double* acc) {
  const int K = t.k, N = t.n;
  for (int x = 0; x < t.cd * kLanes; x += 8) {
    const int i = t.c_i[x], j = t.c_j[x];
    __m512d s = _mm512_loadu_pd(acc + x);
    const double* a = A + i * K;
    const double* b = B + j;
    for (int kk = 0; kk < K; ++kk) s = _mm512_fmadd_pd(_mm512_set1_pd(a[kk]), _mm512_loadu_pd(b + kk * N), s);
    _mm512_storeu_pd(acc + x, s);
  }
}

bool HaveAvx512() {
  static const bool have = __builtin_cpu_supports("avx512f") && std::getenv("KIRC_NO_AVX512") == nullptr;
  return have;
}
#endif

void Sum(const MfmaTables& t, const double* A, const double* B, double* acc) {
#if defined(__x86_64__)
  if (t.rows8 && HaveAvx512()) return SumRows8Avx512(t, A, B, acc);
#endif
  SumScalar(t, A, B, acc);
}

}  // namespace

absl::Status ExecMfma(ExecContext& c, Wave& w, const Inst& in) {
  const MInst& mi = in.mi;
  absl::Status st = Arity(in, 4);
  if (!st.ok()) return st;
  const MfmaDesc& d = *mi.mfma;
  if (w.Exec() != ~uint64_t{0})
    return absl::FailedPreconditionError(absl::StrCat(Describe(in), ": MFMA with EXEC 0x", absl::Hex(w.Exec()),
                                                      " (not all lanes) is not emulated"));
  const MOperand &vd = OperandOr0(mi, OpName::kVdst), &va = OperandOr0(mi, OpName::kSrc0),
                 &vb = OperandOr0(mi, OpName::kSrc1), &vc = OperandOr0(mi, OpName::kSrc2);
  auto reg_ok = [](const MOperand& o, int n) { return o.IsReg() && o.cls != RegClass::kSgpr && o.count == n; };
  if (!reg_ok(vd, d.cd_width) || !reg_ok(va, d.ab_regs()) || !reg_ok(vb, d.ab_regs()) ||
      !(reg_ok(vc, d.cd_width) || vc.kind == MOperand::Kind::kImm))
    return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": expects vdst and srcC of ", d.cd_width,
                                                   " registers and srcA/srcB of ", d.ab_regs()));
  const MfmaTables& t = TablesFor(d);
  if (!t.error.empty()) return absl::InternalError(absl::StrCat(Describe(in), ": ", t.error));
  if (absl::Status st = CheckFloatMode(w, in); !st.ok()) return st;
  const int mode = ModeDenormSp(w.mode);  // the wave's MODE: the descriptor's, or s_setreg's
  const int N = d.n, K = d.k, cd = d.cd_width, ab_regs = d.ab_regs();
  // The sources' registers, lane-major per register (an index of the tables).
  std::array<uint32_t, kMaxAbRegs * kLanes> a_words, b_words;
  for (int r = 0; r < ab_regs; ++r) {
    std::memcpy(&a_words[r * kLanes], w.Row(va.cls, va.reg + r), sizeof(uint32_t) * kLanes);
    std::memcpy(&b_words[r * kLanes], w.Row(vb.cls, vb.reg + r), sizeof(uint32_t) * kLanes);
  }
  // Gather A (M x K) and B (K x N) as exact doubles.
  std::array<double, kMaxAb> A, B;
  // The element types of A and B on this target (fp8/bf8 by its flavour).
  const std::optional<ElemType> a_elem = MfmaInElem(d.a_in, c.target), b_elem = MfmaInElem(d.b_in, c.target);
  if (!a_elem || !b_elem)
    return absl::InvalidArgumentError(absl::StrCat(Describe(in), ": ", c.target.name, " has no fp8 formats"));
  auto gather = [&](const std::array<uint32_t, kMaxAbRegs * kLanes>& words, const std::vector<uint16_t>& at,
                    const std::vector<uint8_t>& shift, ElemType elem, double* out) {
    const size_t n = at.size();
    if (IsFp8(elem)) {
      for (size_t x = 0; x < n; ++x) out[x] = Fp8BitsToF32(elem, static_cast<uint8_t>(words[at[x]] >> shift[x]));
      return;
    }
    switch (elem) {
      case ElemType::kF16: {
        const double* f16 = F16Table();
        for (size_t x = 0; x < n; ++x) out[x] = f16[static_cast<uint16_t>(words[at[x]] >> shift[x])];
        break;
      }
      case ElemType::kBF16:
        for (size_t x = 0; x < n; ++x) out[x] = Bf16ToDouble(static_cast<uint16_t>(words[at[x]] >> shift[x]));
        break;
      default:
        for (size_t x = 0; x < n; ++x) out[x] = AsF32(words[at[x]]);
        break;
    }
  };
  gather(a_words, t.a_at, t.a_shift, *a_elem, A.data());
  gather(b_words, t.b_at, t.b_shift, *b_elem, B.data());
  // acc = C (flushed on input as the mode says), then the sums.
  std::array<double, 16 * kLanes> acc;  // cd <= 16
  if (vc.IsReg()) {
    for (int r = 0; r < cd; ++r) {
      const uint32_t* row = w.Row(vc.cls, vc.reg + r);
      double* a = &acc[r * kLanes];
      if ((mode & 1) != 0)
        for (int l = 0; l < kLanes; ++l) a[l] = AsF32(row[l]);
      else
        for (int l = 0; l < kLanes; ++l) a[l] = FlushIn(F32(row[l]), mode);
    }
  } else {
    const double c_const = FlushIn(F32(ConstValue(vc, OpType::kF32, 0)), mode);
    std::fill(acc.begin(), acc.begin() + cd * kLanes, c_const);
  }
  Sum(t, A.data(), B.data(), acc.data());
  // Round once to f32 (RoundToF32 of an exact double is the conversion); a
  // NaN sum is recomputed with the NaN rule spelled out, from C (vdst may
  // overlap the sources: D is written only after).
  std::array<uint32_t, 16 * kLanes> D;
  bool nan = false;
  for (int x = 0; x < cd * kLanes; ++x) {
    const float f = static_cast<float>(acc[x]);
    nan |= f != f;
    D[x] = AsBits(f);
  }
  if (nan)
    for (int x = 0; x < cd * kLanes; ++x) {
      if (!std::isnan(F32(D[x]))) continue;
      const double c_in = vc.IsReg() ? FlushIn(F32(w.Row(vc.cls, vc.reg + x / kLanes)[x % kLanes]), mode)
                                     : FlushIn(F32(ConstValue(vc, OpType::kF32, 0)), mode);
      D[x] = Bits(RoundToF32(MfmaElementIeee(A.data(), B.data(), c_in, t.c_i[x], t.c_j[x], N, K)));
    }
  if ((mode & 2) == 0)
    for (int x = 0; x < cd * kLanes; ++x) D[x] = Bits(FlushOut(F32(D[x]), mode));
  for (int r = 0; r < cd; ++r) std::memcpy(w.Row(vd.cls, vd.reg + r), &D[r * kLanes], sizeof(uint32_t) * kLanes);
  c.stats.mfma_macs += static_cast<int64_t>(d.m) * d.n * d.k;
  ++w.pc;
  return absl::OkStatus();
}

}  // namespace kir::emu
