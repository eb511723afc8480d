// A reference interpreter of KIR semantics, independent of the lowering.
//
// It runs a kernel on the CPU, thread by thread, from the KIR data model alone
// (it uses the MFMA catalogue of compiler/target for the lane layouts, and
// nothing from compiler/lower, compiler/isa or later stages), so that the
// compiled code (on an emulator or a GPU) can be checked against it.
//
// Execution model
// - Workgroups run one after another in grid order (wg.x fastest, then wg.y,
//   then wg.z); the IR allows any order, and a kernel whose result depends on
//   it is racy.
// - Within a workgroup, every op runs for ALL threads of the workgroup (in
//   linear order, x fastest) before the next op starts (lockstep). A `barrier`
//   is therefore a no-op here: every store before it is visible to every load
//   after it. Within one op, threads run in linear order, so two threads
//   storing to the same LDS address leave the value of the later thread (the
//   IR leaves such races undefined); on buffers such races are errors (below).
// - Buffers are global memory, shared by the whole dispatch: a store to an
//   element another thread of the dispatch stored or loaded, or a load of an
//   element another thread stored, is an error (FailedPrecondition naming the
//   op, the thread and the element, and the other thread and its op), in any
//   workgroups and any order of ops, barriers or not. Hardware runs the
//   workgroups in any order and kirc orders no global-memory accesses between
//   threads, so such a kernel's result would depend on timing. A thread's own
//   loads and stores never race (a read-modify-write of its own element, as
//   in C = alpha * A * B + beta * C); out-of-shape elements of a guarded
//   access are not accessed. The bookkeeping costs 16 bytes per buffer element
//   and numbers (thread, load/store op) pairs in 62 bits: a workgroup beyond
//   them (after some 2^52 workgroups) is an error, never reached in practice.
// - LDS is per workgroup: each allocation is a separate byte array of
//   LdsAlloc::SizeBytes() bytes, fresh for every workgroup. LDS contents are
//   undefined when a workgroup starts on hardware, so loading an in-shape
//   element whose bytes no thread of the workgroup has stored yet (in this
//   op order) is an error (FailedPrecondition, naming the op, the thread and
//   the element), not a read of 0. The allocations together may use at most
//   InterpMaxLdsBytes() (the target's own limit is the validator's).
// - `for` loops have constant bounds: the induction variable takes lo, lo+step,
//   ... < hi (a loop with lo >= hi runs zero times and yields its initial
//   values; the validator rejects such loops). Each iteration runs the body in
//   lockstep for all threads; iter_args start as the initial operands and
//   become the `yield` operands of the previous iteration; the loop's results
//   are the last yielded values. Values defined in a body are not visible
//   after it. At most kInterpMaxLoopNesting nested loops.
// - Index expressions are evaluated exactly with kir::Evaluate (mathematical
//   integers, floor semantics), with tid/wg of the thread, the kernel's named
//   constants and the enclosing loops' induction variables. An expression that
//   cannot be evaluated (unknown name, int64 overflow) is an error.
//
// Values
// - A value is a vector of `width` elements of its ElemType, held as one
//   uint32 bit pattern per element (f16/bf16 in the low 16 bits, f32 as IEEE
//   single bits, i32 as two's complement), so loads, stores, slices and
//   conversions are bit exact.
//
// Ops
// - load / store: element e of the vector sits at the op's index plus e along
//   dimension `along`. Its byte offset in the buffer or LDS allocation is
//   sum_d index_d * stride_d * ElemBytes (LDS strides are LdsAlloc::Strides()),
//   little-endian. Unguarded: an element with an index outside [0, shape_d) in
//   any dimension, or bytes outside the memory, is an error naming the op, the
//   thread and the index (the interpreter is stricter here than the validator,
//   which only bounds the byte offset). Guarded: elements with an index outside
//   [0, shape_d) in any dimension read as 0 / are not written; in-shape
//   elements must still lie in the memory. Access qualifiers (readonly, ...)
//   are not checked (the validator does).
// - add / mul / fma (elementwise, result type = the widest operand; an operand
//   of width 1, including a scalar argument by name, is broadcast):
//   * f32: IEEE single with round-to-nearest-even (float +, *, std::fma on
//     floats), denormals kept.
//   * f16 / bf16: the exact result is formed from the operands as an
//     unevaluated sum of two doubles (products of two 16-bit floats are exact
//     in double; sums use Knuth's TwoSum, which is exact) and rounded ONCE to
//     the element type, to nearest even, with gradual underflow, overflow to
//     +-inf. This is the correctly rounded result.
//   * Any NaN result of add/mul/fma is the canonical quiet NaN (f32
//     0x7fc00000, f16 0x7e00, bf16 0x7fc0).
//   * i32: add and mul wrap modulo 2^32; fma on i32 is an error.
// - cvt: f32 -> f16 / bf16 rounds to nearest even (F32ToF16Bits /
//   F32ToBf16Bits: NaN -> quiet NaN); f16 / bf16 -> f32 is exact; f16 <-> bf16
//   goes through f32 (exact) and rounds once; same type is the identity.
//   Conversions to or from i32 are errors.
// - slice: elements [first, first + width) of the operand.
// - const: the splat of ExactBits(type.elem, constant) (an error if the
//   constant is not exactly representable); zero: all bits 0.
// - mfma (wave-collective): each wave is 64 consecutive threads of the
//   workgroup's linear order. A (M x K), B (K x N) and C (M x N, f32) are
//   gathered from the lanes' operands through MfmaDesc::ASlot / BSlot / CSlot:
//   (lane, reg, elem) is element reg * (4 / ElemBytes) + elem of that lane's
//   vector. D[i][j] = C[i][j] + sum_k A[i][k] * B[k][j] is formed in double
//   (products exact, sum in k order) and rounded to f32 once, then scattered
//   to the lanes' results through CSlot. The hardware's internal summation
//   order and rounding are unspecified (amdgcn-isa-notes.md 1.1), so compare
//   MFMA results from other executions with a tolerance. The interpreter does
//   not check that the instruction exists on a particular target.
//
// - gemm (tile level) is not interpreted: promote the kernel first
//   (compiler/promote); Interpret refuses a kernel that holds one.
//
// Errors and robustness
// - Every problem is an absl::Status: InvalidArgument for bad arguments or an
//   ill-formed kernel (as the validator, the workgroup must have a multiple of
//   64 and at most 1024 threads, and the grid extents must be in [1, 2^31)),
//   OutOfRange for out-of-bounds accesses and index expressions that overflow
//   int64 when evaluated. Messages about an
//   op read "LINE:COL: error: in 'OPTEXT': WHAT" when the op has a SourceLoc and
//   "error: in 'OPTEXT': WHAT" otherwise.
// - Kernels should be validated (compiler/analysis/validate.h) first; the
//   interpreter nevertheless checks everything it relies on (types, names,
//   arities, index trees, extents, sizes) and never crashes on a malformed
//   Kernel. Buffers are updated in place as the kernel runs, so after an error
//   they hold a partial result.
#ifndef KIRC_COMPILER_REFERENCE_INTERPRETER_H_
#define KIRC_COMPILER_REFERENCE_INTERPRETER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/paged_bytes.h"
#include "compiler/ir/workgroups.h"

namespace kir {

// Most LDS bytes a kernel may allocate (the sum over its allocations): the
// largest per-workgroup limit of the supported targets, TargetInfo::lds_bytes
// over AllTargets() (163840, gfx950).
int64_t InterpMaxLdsBytes();
// Deepest `for` nesting the interpreter runs.
inline constexpr int kInterpMaxLoopNesting = 64;

// Kernel arguments by name. Every buffer argument needs an entry in `buffers`
// of exactly Arg::SizeBytes() raw little-endian bytes (element (i0, i1, ...)
// at byte offset sum_d i_d * strides[d] * ElemBytes(elem)); every scalar
// argument needs an entry in `scalars`: its 4 bytes as a uint32 (the f32 bits,
// or the i32 as two's complement). Names that are not arguments of the right
// kind are errors.
struct InterpArgs {
  std::map<std::string, std::vector<uint8_t>> buffers;
  std::map<std::string, uint32_t> scalars;
};

// The same over sparse buffers (compiler/ir/paged_bytes.h): a page the run
// never loads from nor stores to is never materialised, so a kernel that
// touches a slice of a multi-GiB buffer needs host memory for that slice only.
struct PagedInterpArgs {
  std::map<std::string, PagedBytes> buffers;
  std::map<std::string, uint32_t> scalars;
};

struct InterpOptions {
  // Budget: at most this many wave-ops, where executing one op (or starting
  // one loop iteration) for the threads of a workgroup costs its number of
  // waves (threads / 64); 0 = no limit. Beyond it Interpret returns
  // ResourceExhausted naming the op, so a kernel that runs (nearly) forever
  // stops deterministically. Most ops lower to one or more instructions per
  // wave, so this is roughly comparable to a count of wave-instructions.
  int64_t max_wave_ops = 0;
  // Appended to the budget error, e.g. "raise it with --max-instructions=N".
  std::string budget_hint;
  // Non-null: when it becomes true (another thread sets it), Interpret stops
  // at its next op with a Cancelled error (a caller that runs the
  // interpreter beside a device and no longer needs its result).
  const std::atomic<bool>* cancel = nullptr;
  // The workgroups to run (`kirc run --workgroups`); default the whole grid.
  // A box not inside the grid is InvalidArgument.
  WorkgroupRange workgroups;
  // Non-null: gets the names of the buffers of which some load (or lds_dma)
  // read an element a store of this run had written before (the same
  // thread's: another's is a race). `kirc run` checks each store of a buffer
  // no load reads back so against the reference's own value for it
  // (hw/check/compare.h StoreRecordKernel).
  std::set<std::string>* loaded_after_store = nullptr;
  // Non-null: per buffer named in it, element indices (byte offset /
  // element bytes, in any order); after a run that completes, each keeps
  // only the indices some load or store of the run accessed (the others,
  // and indices past the buffer, removed; order kept). `kirc run` places its
  // saturation passes' NaN/inf blocks where a --workgroups band loads
  // (hw/run/saturation_passes.cc; fresh-user review 14 F13). A buffer not
  // of the kernel keeps none.
  std::map<std::string, std::vector<uint64_t>>* accessed = nullptr;
};

// Host bytes of bookkeeping Interpret keeps per buffer element it touches,
// beside the buffers themselves (the global-race record of each element, in a
// ZeroMapping: only the pages of elements loaded or stored cost memory, the
// whole size counting against an address-space limit): for a caller's memory
// estimate.
int64_t InterpBookkeepingBytesPerElement();

// Executes kernel `k` for every thread of every workgroup (of
// opts.workgroups) with the semantics above; buffers are updated in place.
absl::Status Interpret(const Kernel& k, InterpArgs& args, const InterpOptions& opts = {});
// Interpret over sparse buffers (updated in place; pages touched are
// materialised from each buffer's filler). The same semantics and errors.
absl::Status Interpret(const Kernel& k, PagedInterpArgs& args, const InterpOptions& opts = {});

// The rounding the interpreter uses for f16 / bf16 results, exposed for tests
// and other checkers: `v` rounded to nearest even in IEEE binary16 / bfloat16
// (gradual underflow, overflow to +-inf, NaN -> 0x7e00 / 0x7fc0, signed zeros
// kept). Correct for every double, not only for floats.
uint16_t RoundToF16Bits(double v);
uint16_t RoundToBf16Bits(double v);

}  // namespace kir

#endif  // KIRC_COMPILER_REFERENCE_INTERPRETER_H_
