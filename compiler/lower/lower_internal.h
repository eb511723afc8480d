// Internal state of the KIR -> MIR lowering, shared by lower*.cc.
#ifndef KIRC_COMPILER_LOWER_LOWER_INTERNAL_H_
#define KIRC_COMPILER_LOWER_LOWER_INTERNAL_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/kernel.h"
#include "compiler/analysis/index_analysis.h"
#include "compiler/lower/lower.h"
#include "compiler/lower/mir_builder.h"
#include "compiler/target/target.h"

namespace kir {

// The alignment of an n-register VGPR or AGPR tuple: 64-bit and wider tuples
// start on even registers on gfx90a/942 (TargetInfo::even_aligned_tuples).
inline int TupleAlign(const TargetInfo& t, int n) { return t.even_aligned_tuples && n > 1 ? 2 : 1; }

// An integer index value: a constant, a uniform SGPR or a per-lane VGPR.
struct IVal {
  enum class Kind { kConst, kSgpr, kVgpr };
  Kind kind = Kind::kConst;
  int64_t c = 0;
  int vreg = -1;
  MOperand Op() const;
};

// kWideBufferBytes (compiler/ir/kernel.h): buffers of that many bytes or more
// are addressed through per-window SRDs (LowerCtx::WideSrd).

// A uniform 64-bit integer: its low and high dwords (constants or SGPRs) and
// the range of the signed value lo + 2^32 * hi it stands for.
struct IVal64 {
  IVal lo, hi;
  Interval range;
};

// The SRD of one window of a buffer of kWideBufferBytes or more (LowerCtx::WideSrd).
struct WideSrdVal {
  int quad = -1;              // 4 SGPRs: base = pointer + max(start, 0), num_records
  std::optional<IVal> delta;  // start - max(start, 0) (<= 0), when start may be negative
};

// A KIR SSA value in registers: a tuple of type.Dwords() registers.
struct Value {
  ValueType type;
  RegClass cls = RegClass::kVgpr;
  int vreg = -1;
  bool is_zero = false;        // `zero` op: not materialised until needed
  bool is_scalar_arg = false;  // a scalar kernel argument in an SGPR
  int vgpr_copy = -1;          // AGPR values: their VGPR copy, once made
};

class LowerCtx {
 public:
  LowerCtx(const Kernel& k, const TargetInfo& t, LoweredKernel& out)
      : k_(k), t_(t), out_(out), acc_in_agprs_(t.mfma_acc_in_agprs), b_(out.mir) {}

  absl::Status Run();
  absl::Status LowerOps(const std::vector<Op>& ops);
  absl::Status LowerOpList(const std::vector<Op>& ops);  // LowerOps within its UseScope
  // lower_loop.cc
  absl::Status LowerFor(const Op& op);
  // Precoloured kernel inputs (kernarg pointer, workgroup ids, work-item ids) and the ABI.
  void SetupInputs();

  // lower_index.cc
  absl::StatusOr<IVal> EmitAffine(const AffineForm& f);
  absl::StatusOr<IVal> EmitAtom(const Atom& a);
  // floor(x / d) or x mod d for the floordiv/mod atom `a` (x = a.inner[0],
  // d = a.divisor), exact whenever x's range spans few enough values to be
  // biased by a multiple of d into [0, 2^32) (x is computed modulo 2^32);
  // else InvalidArgument naming the expression as the user wrote it.
  absl::StatusOr<IVal> EmitFloorDivMod(const Atom& a);
  // A uniform form (no tid term) as a 64-bit value: halves from 32-bit
  // arithmetic where the form's range lies in one 2^32 window, else
  // s_add_u32/s_addc_u32 carry chains and s_mul_i32 with s_mul_hi_u32 (a
  // non-negative factor) or s_mul_hi_i32 (a signed one). InvalidArgument for
  // a product kirc cannot form (a possibly negative factor times a
  // coefficient outside the signed 32-bit range).
  absl::StatusOr<IVal64> EmitAffine64(const AffineForm& f);
  IVal64 Add64(const IVal64& a, const IVal64& b);
  // A 32-bit value (an IVal) whose exact value lies in `r`, as 64 bits.
  IVal64 Widen(IVal v, Interval r);
  IVal Add(IVal a, IVal b);
  // A uniform value (constant or SGPR) as an operand of a SALU instruction
  // that has room for no literal there (or uses it already) or of soffset:
  // an SGPR as it is, an inline constant (-16..64) as an immediate, any other
  // constant in an SGPR (MirBuilder::SConst).
  MOperand ScalarOperand(IVal v);
  IVal Mul(IVal a, int64_t c, Interval a_range);
  IVal MulVals(IVal a, IVal b);
  IVal ToVgpr(IVal a);

  // lower_memory.cc
  absl::Status LowerLoad(const Op& op);
  absl::Status LowerStore(const Op& op);
  absl::Status LowerLdsDma(const Op& op);
  // lds_dma's LDS side: the wave's LDS base byte address as a form.
  absl::StatusOr<AffineForm> LdsDmaForm(const Op& op);
  // lds_dma's M0 value: the wave's LDS base byte address less `inst_offset`
  // (only its tid terms' SGPR, or 0, when `wave_part_only`: what a loop
  // hoists when the rest depends on it); cached by value.
  absl::StatusOr<IVal> LdsDmaBase(const Op& op, int64_t inst_offset, bool wave_part_only = false);
  // Guards (lower_memory.cc): the lane mask (an SGPR pair, from
  // v_cmp_gt_u32_e64) "index <u extent", the conjunction of two masks, and
  // `voffset` with out-of-mask lanes replaced by `out_of_range`. Each is
  // shared (CSE) by the accesses within kGuardReuseWindow guarded accesses of
  // its last use, and computed afresh after that: a 64-bit mask held across
  // many accesses costs two SGPRs all the while, a recompute one VALU
  // instruction (the index value itself stays cached in affine_cache_).
  absl::StatusOr<int> GuardCompare(const AffineForm& index, int64_t extent);
  int GuardAnd(int mask_a, int mask_b);
  int GuardSelect(int voffset, int mask, uint32_t out_of_range);
  // Emits, ahead of a loop, the parts of `op`'s address and guard computations
  // that do not depend on the loop (so the body finds them computed).
  absl::Status HoistAccessInvariants(const Op& op, const std::vector<Op>& body);

  // lower_compute.cc
  absl::Status LowerMfma(const Op& op);
  absl::Status LowerElementwise(const Op& op);
  absl::Status LowerConst(const Op& op);
  absl::Status LowerCvt(const Op& op);
  // cvt between an fp8 type and f32 (lower_compute.cc).
  absl::Status LowerFp8Cvt(const Op& op, ElemType from, ElemType to, int src, int dst);
  absl::Status LowerSlice(const Op& op);
  // concat: operands in VGPR tuples of their own become the halves of the
  // result's tuple (no instruction); others are copied (v_mov_b32).
  absl::Status LowerConcat(const Op& op);

  // Registers of a value usable by VALU/VMEM/DS (AGPR values copied to VGPRs).
  int VgprsOf(const std::string& name);
  const Value& ValueOf(const std::string& name) const { return values_.at(name); }
  absl::Status Error(const Op& op, const std::string& msg) const;
  // `st` with op's position and text prefixed, unless it already has them.
  absl::Status AtOp(const Op& op, const absl::Status& st) const;

  const Kernel& k_;
  const TargetInfo& t_;
  LoweredKernel& out_;
  // MFMA accumulators live in AGPRs (LowerOptions::mfma_acc_in_agprs; always on gfx908).
  bool acc_in_agprs_ = false;
  // LowerOptions::kernarg_loads_at_first_use.
  bool kernarg_loads_at_first_use_ = false;
  MirBuilder b_;
  IndexScope scope_;
  int cur_op_ = -1;
  std::string filename_;
  std::map<std::string, Value> values_;
  std::map<std::string, IVal> affine_cache_;
  std::map<std::string, IVal> atom_cache_;
  // Guard values by key (GuardCompare, GuardAnd, GuardSelect) and the number
  // of the guarded access that last used each; guarded_accesses_ counts the
  // guarded accesses lowered so far.
  struct GuardValue {
    int vreg = -1;
    int64_t last_access = 0;
  };
  static constexpr int64_t kGuardReuseWindow = 1;
  std::map<std::string, GuardValue> guard_cache_;
  int64_t guarded_accesses_ = 0;
  const GuardValue* FindGuardValue(const std::string& key);
  void KeepGuardValue(const std::string& key, int vreg);
  std::map<std::string, int> srd_;          // buffer arg -> SRD quad vreg (finished)
  std::map<std::string, int> srd_pending_;  // buffer arg -> SRD quad with only the pointer loaded
  // LowerOptions::kernarg_loads_at_first_use: buffer arg -> its pointer's
  // kernarg offset, for the s_load Srd() emits at the first use.
  std::map<std::string, int64_t> kernarg_load_pending_;
  std::map<std::string, int> scalar_args_;  // scalar arg -> SGPR vreg
  std::map<std::string, int64_t> lds_offset_;
  int kernarg_ = -1;                        // s[0:1]
  int wg_[3] = {-1, -1, -1};                // workgroup id SGPRs
  int workitem_[3] = {-1, -1, -1};          // v0 (packed) or v0/v1/v2 (gfx908)

  int Srd(const std::string& arg);  // finishes the SRD at first use
  // Buffers of kWideBufferBytes or more: an SRD whose window starts at byte
  // max(start, 0) of `arg` (start a uniform form, evaluated in 64 bits) and
  // holds num_records = min(window, size - max(start, 0)) bytes (0 when the
  // start is past the end); shared by the accesses with the same start and
  // window (cached like affine values, forgotten with their loop).
  absl::StatusOr<WideSrdVal> WideSrd(const std::string& arg, const AffineForm& start, int64_t window);
  std::map<std::string, WideSrdVal> wide_srd_cache_;
  std::map<std::string, IVal64> affine64_cache_;

  // An active loop: its iteration counter (0, 1, ..., trips-1) and the
  // strength-reduced multiples of it (coeff -> SGPR holding coeff * counter),
  // initialised before the loop and advanced at its latch.
  struct LoopCtx {
    std::string ivar;
    int64_t trips = 1;
    int label = 0;
    int counter = -1;             // SGPR vreg
    size_t preheader_end = 0;     // index in mir.insts where initialisations go
    std::map<int64_t, int> scaled;
  };
  std::vector<LoopCtx> loops_;
  // The lds_dma ops lowered so far and their KIR op indices (cur_op_), for
  // MFunction::lds_dma_overlaps (Run).
  std::vector<LdsDmaSite> dma_sites_;
  std::vector<int> dma_site_ops_;
  int next_label_ = 0;
  // Results written in place into a loop-carried register (value name -> vreg):
  // MFMA accumulators and elementwise updates (acc = acc + x).
  std::map<std::string, int> inplace_;
  // Registers of loop-carried values: updated in place, so never aliased.
  std::set<int> carried_vregs_;
  // The op list being lowered (innermost last): the position of the current
  // op, the values its ops define and, per value, the last op that reads it
  // (reads in nested bodies count at the op holding them). A value defined in
  // the current list whose last read is the current op dies there.
  struct UseScope {
    const std::vector<Op>* ops = nullptr;
    size_t at = 0;
    std::set<std::string> defined;
    std::map<std::string, size_t> last_read;
  };
  std::vector<UseScope> use_scopes_;
  // True if value `name` is defined in the current op list and the current op
  // is its last reader, so the op may overwrite its registers.
  bool DiesHere(const std::string& name) const;
  // lower_compute.cc: MFMA srcC value `c` may become the result's registers.
  bool SrcCDiesHere(const Op& op, const Value& c) const;
  // lower_compute.cc: a slice of loop-carried register `src` may be a view
  // (no copy): every read of the slice comes before the current op list
  // next writes `src` (an op written in place into it, or the yield).
  bool ViewOfCarriedIsSafe(const Op& slice, int src) const;
  // The loop (index into loops_) whose counter atom `a` is, or -1.
  int LoopOfAtom(const Atom& a) const;
  // True if `a` depends on the counter of an active loop.
  bool DependsOnLoop(const Atom& a) const;
  // An SGPR holding coeff * counter of loop `l` (strength-reduced).
  int ScaledCounter(int l, int64_t coeff);
  // Drops cached index values that depend on loop `ivar` (at its exit).
  void ForgetLoopValues(const std::string& ivar);
};

}  // namespace kir

#endif  // KIRC_COMPILER_LOWER_LOWER_INTERNAL_H_
