// MFMA: D = A * B + C for one wave, element by element through the lane
// layouts of compiler/target/target.h (MfmaDesc::ASlot/BSlot/CSlot, from
// amdgcn-isa-notes.md 1.2). Accumulation model: every product of two f16/bf16
// (or f32) inputs is exact in double; the K products and C are summed in
// double and the sum is rounded once to f32 (nearest-even). The hardware's
// internal order and rounding are unspecified (notes 1.1), so compare with a
// tolerance; FP32 denormals follow the descriptor's mode (kept by kirc).
#include <vector>

#include "absl/strings/str_cat.h"
#include "hw/emu/exec.h"
#include "hw/emu/float_math.h"

namespace kir::emu {
namespace {

double Element(const uint32_t* const* rows, const FragmentSlot& s, ElemType t, int lane) {
  uint32_t word = rows[s.reg][lane];
  switch (t) {
    case ElemType::kF16: return F16ToDouble(static_cast<uint16_t>(word >> (16 * s.elem)));
    case ElemType::kBF16: return Bf16ToDouble(static_cast<uint16_t>(word >> (16 * s.elem)));
    default: return F32(word);
  }
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
  const int mode = c.kernel.fp32_denorm_mode;
  std::vector<const uint32_t*> a_rows, b_rows, c_rows;
  for (int r = 0; r < d.ab_regs(); ++r) {
    a_rows.push_back(w.Row(va.cls, va.reg + r));
    b_rows.push_back(w.Row(vb.cls, vb.reg + r));
  }
  if (vc.IsReg())
    for (int r = 0; r < d.cd_width; ++r) c_rows.push_back(w.Row(vc.cls, vc.reg + r));
  const float c_const = vc.IsReg() ? 0.0f : F32(ConstValue(vc, OpType::kF32, 0));
  // Gather A (M x K) and B (K x N).
  std::vector<double> A(d.m * d.k), B(d.k * d.n);
  for (int i = 0; i < d.m; ++i)
    for (int k = 0; k < d.k; ++k) {
      FragmentSlot s = d.ASlot(i, k);
      A[i * d.k + k] = Element(a_rows.data(), s, d.ab_elem, s.lane);
    }
  for (int k = 0; k < d.k; ++k)
    for (int j = 0; j < d.n; ++j) {
      FragmentSlot s = d.BSlot(k, j);
      B[k * d.n + j] = Element(b_rows.data(), s, d.ab_elem, s.lane);
    }
  // D, then written back (vdst may overlap the sources).
  std::vector<uint32_t> D(static_cast<size_t>(d.cd_width) * kLanes, 0);
  for (int i = 0; i < d.m; ++i)
    for (int j = 0; j < d.n; ++j) {
      FragmentSlot s = d.CSlot(i, j);
      double acc = FlushIn(vc.IsReg() ? F32(c_rows[s.reg][s.lane]) : c_const, mode);
      for (int k = 0; k < d.k; ++k) acc += A[i * d.k + k] * B[k * d.n + j];
      D[static_cast<size_t>(s.reg) * kLanes + s.lane] = Bits(FlushOut(RoundToF32(acc), mode));
    }
  for (int r = 0; r < d.cd_width; ++r) {
    uint32_t* row = w.Row(vd.cls, vd.reg + r);
    std::copy(D.begin() + static_cast<size_t>(r) * kLanes, D.begin() + static_cast<size_t>(r + 1) * kLanes, row);
  }
  c.stats.mfma_macs += static_cast<int64_t>(d.m) * d.n * d.k;
  ++w.pc;
  return absl::OkStatus();
}

}  // namespace kir::emu
