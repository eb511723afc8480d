// Symbolic execution of final machine code (physical registers, after
// register allocation, waitcnt and hazard passes) for ONE symbolic lane of
// one wave: tid.x/y/z and wg.x/y/z are variables, the initial registers are
// those of the kernel ABI (kernarg pointer in s[KernelAbi::kernarg_ptr_sgpr
// and the next], workgroup ids after the
// user SGPRs, work-item ids in v0 packed (gfx90a/942) or v0/v1/v2 (gfx908)),
// kernarg loads read symbolic argument dwords. Register values are terms
// (term.h) built with the shared semantics of compiler/isa/semantics.h; lane
// masks (v_cmp results, EXEC) are this lane's bit. Every register remembers
// the instruction that wrote it, for counterexample chains.
//
// Loops (a label and a later conditional branch back to it, properly nested)
// are executed once with a symbolic iteration number `it`, by induction:
//  1. discovery: the body runs from a state where every register it writes
//     holds a fresh value h_r; a register whose end value is h_r + K with K
//     free of every h is an induction register (invariant: entry + K * it,
//     true at it = 0, and preserved by one iteration for ANY h_r, so for all
//     it); an end value equal to h_r is loop-invariant. A register the body
//     reads before writing it (live-in) whose end value is neither gets the
//     candidate invariant "equal to its entry value", checked after step 2
//     (with the equality prover: all candidates are assumed at the header and
//     must hold again at the back edge); candidates that fail, and every other
//     register, are havocked (a fresh kAbstract value per header: sound,
//     nothing is assumed; a counterexample never rests on one).
//  2. the body runs once more from the header state so built, with `it`
//     symbolic: these are the states the accesses in the body are verified in.
//  3. the trip count T comes from the back edge's condition, a term in `it`
//     alone: evaluated concretely for it = 0, 1, ..., 65535 (exact
//     semantics), and past that found by binary search with the zero finder
//     (Z3: "is there an exit in [a, b]?", every exit it names confirmed
//     concretely), up to the 2^32 iterations a 32-bit counter can count;
//     `it` ranges over [0, T-1]; after the loop `it` is T-1.
// Nothing is unrolled.
#ifndef KIRC_VERIFY_SYMEXEC_H_
#define KIRC_VERIFY_SYMEXEC_H_

#include <functional>
#include <array>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/kernel.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/lowered_kernel.h"
#include "compiler/target/target.h"
#include "verify/term.h"

namespace kir::vfy {

// One 32-bit register as the symbolic lane sees it.
struct Slot {
  TRef t;        // value (kValue) or this lane's mask bit (kMaskLo/kMaskHi), a 0/1 term
  int def = -1;  // instruction index that wrote it (a loop's label for header values); -1: entry
  enum Kind : uint8_t { kValue, kMaskLo, kMaskHi } kind = kValue;
};

// A register: file and index. Files: VGPR, AGPR, SGPR, VCC (index 0 lo, 1 hi), M0, SCC, EXEC.
struct RegKey {
  enum File : uint8_t { kV, kA, kS, kVcc, kM0, kScc, kExec } file = kV;
  int index = 0;
  friend bool operator<(const RegKey& a, const RegKey& b) {
    return a.file != b.file ? a.file < b.file : a.index < b.index;
  }
  friend bool operator==(const RegKey& a, const RegKey& b) { return a.file == b.file && a.index == b.index; }
};
std::string KeyName(RegKey k);

struct SymState {
  std::vector<Slot> v, a, s;  // VGPRs, AGPRs, SGPRs (a slot with !t.valid() is undefined)
  Slot vcc[2], m0, scc;
  Slot exec;                  // this lane's EXEC bit (kind kMaskLo)
};

// A memory instruction as executed by the symbolic lane.
struct MemExec {
  int index = -1;                      // instruction index in the function
  TRef exec;                           // EXEC bit when it issued
  int exec_def = -1;
  std::vector<std::vector<Slot>> ops;  // explicit operands, per dword, as read
  Slot m0;                             // an LDS DMA (kReadsM0): M0 as read (its LDS base)
};

struct InstTrace {
  std::vector<int> src_defs;                         // writers of the registers read
  std::vector<std::pair<std::string, TRef>> writes;  // register name -> value written
  std::string nonuniform;  // "s5 depends on tid.x: not uniform" when an SGPR got a per-lane value
};

// A machine loop: instructions (label_index, latch_index]; the latch branches back.
struct MachineLoop {
  int label_index = -1, latch_index = -1;
  int kir_op = -1;   // the label's KIR op (the `for`), or -1
  int it_var = -1;   // the iteration variable, range [0, trips-1]
  int64_t trips = 0; // 1 .. 2^32; -1: never exits (no exit in 2^32 iterations, after which the state repeats)
  int depth = 0;     // 0 outermost
  std::vector<std::string> induction;  // "s1 = 0 + 32 * it", "s5 = ... (stable)", for reports
  std::vector<std::string> havocked;   // live-in registers with no invariant (fresh values per iteration)
};

// The variables of a kernel's symbolic lane.
struct KernelVars {
  int tid[3] = {-1, -1, -1};
  int wg[3] = {-1, -1, -1};
  int kptr[2] = {-1, -1};
  // The private segment buffer's dwords and the scratch wave offset as the
  // dispatch gives them (-1 when the ABI enables none).
  int psb[4] = {-1, -1, -1, -1};
  int scratch_wave_offset = -1;
  std::map<int64_t, int> kernarg_dword;  // kernarg byte offset -> variable
  struct ArgVars {
    int lo = -1, hi = -1;  // buffers: pointer halves
    int scalar = -1;       // scalars
  };
  std::map<std::string, ArgVars> args;
};

class SymExec {
 public:
  SymExec(TermPool& pool, const Kernel& k, const TargetInfo& t, const KernelAbi& abi);

  // Executes `f` from the kernel's initial state. Unimplemented for control
  // flow other than properly nested loops with a computable trip count.
  absl::Status Run(const MFunction& f);
  // A prover of a == b (mod 2^32) for all values of their variables (in
  // range), used to check loop invariants that are not structural
  // (e.g. s5 = s5 & 0xffff in a loop when s5 < 2^16). Without one, only
  // structurally equal terms count as equal.
  void SetEqualityProver(std::function<bool(TRef, TRef)> f) { prove_equal_ = std::move(f); }
  // Instructions (MInst::id) whose results are unknown values, with why
  // (LoweredKernel::unmodelled: modifiers MInst does not hold).
  void SetUnmodelled(std::map<int, std::string> u) { unmodelled_ = std::move(u); }
  // Instructions (MInst::id) with SDWA selects or integer clamp, executed
  // with semantics.h's SdwaSource/SdwaDest/EvalIntOpClamped
  // (LoweredKernel::modifiers).
  void SetModifiers(std::map<int, VopModifiers> m) { modifiers_ = std::move(m); }
  // A solver for "is there a value of variable `var` in [a, b] at which the
  // term `t` (in `var` alone) is 0?", used to find trip counts above 65536.
  // kNone must be a proof; a kFound value is checked concretely before use.
  struct ZeroSearch {
    enum Kind { kFound, kNone, kUnknown } kind = kUnknown;
    int64_t at = 0;   // kFound: a value in [a, b]
    std::string why;  // kUnknown: the solver's reason; kFound: the abstractions the model may rest on
  };
  void SetZeroFinder(std::function<ZeroSearch(TRef t, int var, int64_t a, int64_t b)> f) {
    find_zero_ = std::move(f);
  }

  const KernelVars& vars() const { return vars_; }
  const std::vector<InstTrace>& trace() const { return trace_; }
  const std::map<int, MemExec>& mem() const { return mem_; }  // by instruction index
  // Scalar loads (s_load_*) from an address other than the kernarg segment
  // pointer plus a constant (uniform loads of buffer data), by instruction
  // index: the verifier neither matches nor bounds-checks them, so each is an
  // `unknown` verdict (never proved).
  const std::set<int>& smem_data() const { return smem_data_; }
  // Private (scratch) accesses, by instruction index: scratch_*, and buffer_*
  // whose SRD's dword3 is the private segment buffer's (PrivateAccess of
  // symexec.cc). Their addresses are offsets in each lane's private segment,
  // not KIR accesses; values they load are abstract (no counterexample rests
  // on them).
  const std::set<int>& private_accesses() const { return private_; }
  const std::map<int, MachineLoop>& loops() const { return loops_; }  // by label index
  const SymState& state() const { return st_; }
  // The dependency bits (kDepTidX/Y/Z) of the work-item ids that are the
  // same in every lane of a wave: a dimension of extent 1, tid.y when the
  // workgroup's x extent is a multiple of 64, tid.z when x * y is (waves are
  // runs of 64 consecutive linear ids, x fastest: kernel.h's Kernel). An SGPR
  // or a v_readfirstlane_b32 / v_readlane_b32 result that depends on them
  // only is this lane's value (e.g. lds_dma's M0 from tid.y).
  uint8_t wave_uniform() const { return wave_uniform_; }
  // The dependency bits of `t` that vary between the lanes of a wave: its
  // deps & ~wave_uniform(), less tid.d when every tid.d in it is rounded
  // down to a multiple of the unit u = WaveIdUnit(d) the lanes of a wave
  // share (`tid.d & m`, m's bits below u clear): tid.x & ~63 with whole
  // waves along x (the v_readfirstlane_b32 of an lds_dma base in the wave's
  // index, `tid.x floordiv 64`), tid.y & ~1 in a 32 x 4 workgroup.
  uint8_t LaneVaryingDeps(TRef t);

 private:
  bool TidOnlyRounded(TRef t, int d);
  // tid.{d} at the first lane of this lane's wave. One rule: that lane is
  // linear id 64 * (L floordiv 64), L = tid.x + X * tid.y + X * Y * tid.z
  // (waves are runs of 64 linear ids, x fastest: kernel.h's Kernel), so its
  // ids are WorkItemOfLinear(64 * (L floordiv 64)) (index_analysis.h):
  // (f mod X, f floordiv X mod Y, f floordiv (X * Y)) for f that linear id.
  // The term is a table over the wave index L >> 6 (WaveIndex), or, where the
  // rule reduces to it, the closed form WaveIdUnit / WaveStartsAtIdZero
  // give (tid.x & ~63 with whole waves along x; 0 and tid.y & ~1 in 32 x 4).
  TRef FirstLaneTid(int d);
  // L >> 6, the wave's index in the workgroup (built once: every term of
  // the table shares it, and TidOnlyRounded knows it as the same in all
  // lanes of a wave).
  TRef WaveIndex();
  TRef wave_index_;
  // The lane's linear id in its workgroup, L = tid.x + X * tid.y + X * Y * tid.z.
  TRef LinearId();
  TRef linear_id_;
  // 1 when the lane is one of lanes 32..63 of its wave (the half of a 64-bit
  // lane mask its bit is in: exec_hi, vcc_hi), else 0: ((L & 63) > 31).
  TRef UpperHalf();
  // The lane's bit position in that half, L & 31.
  TRef LaneInHalf();
  // The lane's bit of the 32-bit `s`, read as half `half` (0 lo: lanes 0..31,
  // 1 hi: lanes 32..63) of a 64-bit lane mask, used only where the lane is
  // in that half: a value's bit LaneInHalf, a mask slot of that half its
  // bit; a mask slot of the other half has the bits of other lanes, so a
  // fresh abstract bit (`what` names it) unless its bit is the same constant
  // in every lane of whole waves.
  TRef HalfBit(int inst, const Slot& s, int half, const std::string& what);
  // A write of one 32-bit dword `d` of a scalar register (an SGPR, a VCC
  // or EXEC half, M0, SCC): an EXEC half changes the lane's EXEC bit only
  // when the lane is in that half (to HalfBit of `s`), the other half kept.
  struct RegDword {
    RegKey key;
    int half = 0;  // VCC and EXEC: 0 lo, 1 hi
  };
  void WriteDword(int inst, const RegDword& d, Slot s);
  // Dword `dword` of operand `o` as a register (SGPR-space aliases resolved:
  // s106 is vcc_lo, s127 exec_hi, opcode_kinds.h SgprAlias); false for an
  // immediate or no register.
  static bool DwordOf(const MOperand& o, int dword, RegDword* d);
  std::unordered_map<int, bool> tid_rounded_[3];  // TidOnlyRounded's memo, by dimension and node
  Slot& At(RegKey k);
  void Set(RegKey k, Slot s);
  Slot& Reg(RegClass c, int index);
  Slot Read(int inst, const MOperand& o, int dword, bool wide = false);
  TRef Value(int inst, const Slot& s, const MOperand& o);
  TRef MaskBit(int inst, const MOperand& o);
  void Write(int inst, const MOperand& o, int dword, TRef t, bool under_exec);
  void WriteMask(int inst, const MOperand& o, TRef bit);
  void SetScc(int inst, TRef t);
  TRef ExecBit();  // this lane's EXEC bit (a read of EXEC)
  TRef Fresh(VarKind kind, const std::string& name, uint8_t deps, int inst);
  void Step(int i, const MInst& mi);
  void StepSalu(int i, const MInst& mi);
  void StepValu(int i, const MInst& mi);
  void Opaque(int i, const MInst& mi, const std::string& why, VarKind kind = VarKind::kUnmodelled);
  absl::Status RunRange(int begin, int end, int depth);
  absl::Status RunLoop(int label, int latch, int depth);
  std::set<RegKey> StaticWrites(int begin, int end) const;
  std::vector<RegKey> AllKeys() const;

  TermPool& p_;
  TermDomain d_;
  const Kernel& k_;
  const TargetInfo& t_;
  const KernelAbi& abi_;
  const MFunction* f_ = nullptr;
  KernelVars vars_;
  SymState st_;
  std::vector<InstTrace> trace_;
  std::map<int, MemExec> mem_;
  std::map<int, MachineLoop> loops_;
  std::map<int, int> loop_of_label_;  // label index -> latch index
  // Forward s_cbranch_execz: branch index -> its label's index, and back.
  std::map<int, int> forward_, forward_of_label_;
  bool logging_ = false;
  std::set<RegKey> log_;     // registers written while logging_
  std::set<RegKey> livein_;  // registers read before written while logging_
  std::function<bool(TRef, TRef)> prove_equal_;
  std::map<int, std::string> unmodelled_;
  std::set<int> smem_data_;
  std::map<int, VopModifiers> modifiers_;
  std::set<int> private_;
  // Private stores forwarded to loads in straight-line code (symexec.cc,
  // ForwardPrivate): this lane's dword at each constant byte offset, all
  // through one base (scratch_*: -1; buffer_*: the SRD's dword0/1 and
  // soffset terms). Forgotten at labels, branches and each run of a loop body.
  std::array<int, 3> fwd_base_{-2, -2, -2};
  std::map<uint32_t, TRef> fwd_;
  std::vector<TRef> ForwardPrivate(int i, const MInst& mi, const MemExec& m);
  std::function<ZeroSearch(TRef, int, int64_t, int64_t)> find_zero_;
  uint8_t wave_uniform_ = 0;
};

// "s[4:7]", "v3", "exec", "0x80000000": an operand as assembly names it.
std::string OperandName(const MOperand& o);

}  // namespace kir::vfy

#endif  // KIRC_VERIFY_SYMEXEC_H_
