// The KIR data model: a kernel is a per-thread (SIMT) SSA program over global
// buffers, scalar arguments and LDS allocations. See docs/kir.md, "KIR reference".
#ifndef KIRC_COMPILER_IR_KERNEL_H_
#define KIRC_COMPILER_IR_KERNEL_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/gemm.h"
#include "compiler/ir/index_expr.h"
#include "compiler/ir/types.h"

namespace kir {

// Where an op or declaration came from in a .kir file (1-based; 0 = built by API).
// Not part of a kernel's identity: operator== ignores it.
struct SourceLoc {
  int line = 0;
  int col = 0;
};

enum class Access { kReadOnly, kWriteOnly, kReadWrite };
// "readonly", "writeonly", "readwrite".
const char* AccessName(Access a);

// The largest buffer kirc accepts, in bytes (2^47, 128 TiB): SizeBytes() of a
// buffer argument must not exceed it (the validator's error). Buffers of
// 2^31 bytes or more are addressed with a 64-bit uniform part added to the
// SRD base (compiler/lower/lower_memory.cc); 2^47 leaves every such sum,
// and a buffer's end, below the 48-bit virtual addresses of gfx9
// (amdgcn-isa-notes.md section 4: the SRD base is 48 bits).
inline constexpr int64_t kMaxBufferBytes = int64_t{1} << 47;

// Buffers of this many bytes or more are addressed through per-window SRDs
// (compiler/lower LowerCtx::WideSrd): each access of a workgroup reaches at
// most this many bytes from its window's start, since a guarded access
// sends out-of-shape lanes to voffset 0x80000000, out of range only while
// num_records <= 2^31. The gemm defaults (compiler/analysis/gemm_config.h)
// keep a workgroup's tiles within it.
inline constexpr int64_t kWideBufferBytes = int64_t{1} << 31;

// A kernel argument: a global buffer (passed as a 64-bit pointer, 8 bytes in the
// kernarg segment) or a scalar (i32 or f32, 4 bytes, passed by value).
struct Arg {
  enum class Kind { kBuffer, kScalar };
  std::string name;
  Kind kind = Kind::kBuffer;
  ElemType elem = ElemType::kF32;
  std::vector<int64_t> shape;    // buffers: extents in elements, outermost first
  std::vector<int64_t> strides;  // buffers: strides in elements, one per dimension
  Access access = Access::kReadWrite;
  SourceLoc loc;

  // Buffers: bytes the shape and strides address:
  // (1 + sum_d (shape[d]-1) * strides[d]) * ElemBytes(elem); 0 if any extent is
  // 0. Saturates at +-2^62 for absurd declarations (never overflows).
  int64_t SizeBytes() const;
  friend bool operator==(const Arg& a, const Arg& b);
};

// A workgroup-shared (LDS) allocation, row-major, with `pad` extra elements after
// each row of the innermost dimension (to spread LDS banks).
struct LdsAlloc {
  std::string name;
  ElemType elem = ElemType::kF16;
  std::vector<int64_t> shape;  // elements, outermost first
  int64_t pad = 0;             // elements appended to every innermost row
  SourceLoc loc;

  // Strides in elements implied by shape and pad (innermost stride 1, the next
  // shape.back() + pad, and so on). Saturating.
  std::vector<int64_t> Strides() const;
  // Bytes the allocation occupies: shape[0] * Strides()[0] * ElemBytes(elem)
  // (a 1-D allocation: (shape[0] + pad) * ElemBytes). Saturating.
  int64_t SizeBytes() const;
  friend bool operator==(const LdsAlloc& a, const LdsAlloc& b);
};

// Where the LDS allocations live in the group segment: declaration order, each
// aligned to 16 bytes, no overlap. `offsets` are bytes, one per allocation;
// `total` is group_segment_fixed_size. Saturating for absurd sizes.
struct LdsLayout {
  std::vector<int64_t> offsets;
  int64_t total = 0;
};

// A named integer constant usable in index expressions and shapes.
struct NamedConst {
  std::string name;
  int64_t value = 0;
  SourceLoc loc;
  friend bool operator==(const NamedConst& a, const NamedConst& b) {
    return a.name == b.name && a.value == b.value;
  }
};

// Bytes each lane copies in a KIR `lds_dma` (OpKind::kLdsDma): the op is
// defined by gfx950's 16-byte LDS DMA (compiler/isa/semantics.h,
// kLdsDmaDwordx4LaneBytes, where the source is cited; the lowering checks
// that the two agree).
inline constexpr int kLdsDmaLaneBytes = 16;

enum class OpKind {
  kLoad,     // results[0] = load mem[index...] (vector elements along `along`);
             // with `tr` the transposing LDS read `load_tr` (Op::tr)
  kStore,    // store operands[0] to mem[index...]
  kBarrier,  // workgroup barrier (s_barrier) with LDS visibility
  kMfma,     // results[0] = mfma `mfma` operands[0] (A), [1] (B), [2] (C)
  kConst,    // results[0] = splat of `constant` to `type`
  kZero,     // results[0] = all-zero value of `type`
  kAdd,      // results[0] = operands[0] + operands[1] (elementwise)
  kMul,      // results[0] = operands[0] * operands[1]
  kFma,      // results[0] = operands[0] * operands[1] + operands[2]
  kCvt,      // results[0] = operands[0] converted to `type.elem`
  kSlice,    // results[0] = elements [first, first + type.width) of operands[0]
  kConcat,   // results[0] = operands[0]'s elements, then operands[1]'s (same type;
             // `type` is the result: the element type with the summed width)
  kFor,      // results = for ivar in [lo, hi) step `step`, iter_args = operands
  kYield,    // ends a `for` body: operands are the next iteration's iter_args
  kGemm,     // tile-level `gemm` (gemm.h); compiler/promote turns it into the ops above
  // gfx950's LDS DMA (TargetInfo::has_lds_dma_dwordx4): every thread loads the
  // 16-byte vector `type` of buffer `mem` at `index` (along `along`, as a
  // load) and its wave writes the 64 lanes' vectors to LDS allocation
  // `lds` contiguously: lane l's 16 bytes at the byte of element
  // lds[lds_index] plus 16 * l (l = linear thread id mod 64). lds_index is
  // wave-uniform (no tid.x); no results. docs/gfx950.md "`lds_dma`: the DMA in KIR".
  kLdsDma,
};

// An operand of an elementwise, store, mfma, for or yield op: an SSA value
// (name without '%') or, in elementwise ops, a scalar kernel argument by name.
struct Operand {
  std::string name;
  bool is_arg = false;  // true: a scalar argument; false: an SSA value
  friend bool operator==(const Operand&, const Operand&) = default;
};

struct Op {
  OpKind kind = OpKind::kBarrier;
  std::vector<std::string> results;  // SSA names defined (without '%')
  ValueType type;                    // load/const/zero/cvt/mfma: result type
  std::vector<Operand> operands;
  // load / store
  std::string mem;              // buffer argument or LDS allocation name
  std::vector<IndexRef> index;  // one expression per dimension of `mem`
  int along = -1;               // dimension the vector elements run along
  bool guarded = false;         // out-of-shape elements read 0 / are not written
  // kLoad only: `load_tr`, gfx950's transposing LDS read (ds_read_b64_tr_b16;
  // TargetInfo::has_ds_read_tr_b16). Every thread addresses its own 4 x
  // 16-bit block mem[index...] (contiguous along `along`, 8-byte aligned),
  // and the result is cross-lane: lanes are linear thread id mod 64, in
  // groups of 16 (16g..16g+15); the group's 16 blocks, lane 4r + c's block
  // as row r, columns 4c..4c+3, form a 4 x 16 matrix M, and lane 16g + j
  // receives column j: result element e = M[e][j], i.e. element j % 4 of the
  // block of lane 16g + 4e + j / 4. No guard; whole waves (all 64 lanes
  // active); f16x4/bf16x4 only. docs/kir.md "Values and ops", load_tr.
  bool tr = false;
  // lds_dma: the destination allocation and the wave's base element there
  std::string lds;
  std::vector<IndexRef> lds_index;
  // mfma
  std::string mfma;  // KIR instruction name, e.g. "f32_16x16x16_f16"
  // slice
  int first = 0;  // first element taken
  // const
  double constant = 0;  // exactly representable in `type.elem`
  // for
  std::string ivar;                    // induction variable (without '%')
  int64_t lo = 0, hi = 0, step = 1;    // constant bounds: ivar = lo, lo+step, ... < hi
  std::vector<std::string> iter_args;  // body-visible names of the loop-carried values
  std::vector<Op> body;                // ends with a kYield
  // gemm
  GemmOp gemm;
  SourceLoc loc;

  friend bool operator==(const Op& a, const Op& b);
};

// Iterations of a `for` op: ceil((hi - lo) / step), computed without
// overflow (hi - lo and step may be near 2^63) and capped at INT64_MAX; 0 when
// hi <= lo or step <= 0.
int64_t ForTripCount(const Op& for_op);

// A kernel. Threads of a workgroup are linearised x fastest; each run of 64
// consecutive threads is a wave (wave64).
struct Kernel {
  std::string name;
  std::string target;  // default --mcpu target ID, e.g. "gfx942", "gfx90a:xnack-"; may be empty
  // All extents 0: `workgroup auto` / `grid auto` (only in a kernel whose body is
  // one gemm op; promotion sets them).
  std::array<int64_t, 3> workgroup{1, 1, 1};  // threads per workgroup in x, y, z
  std::array<int64_t, 3> grid{1, 1, 1};       // workgroups in x, y, z (HIP's gridDim)
  std::vector<NamedConst> consts;
  std::vector<Arg> args;
  std::vector<LdsAlloc> lds;
  std::vector<Op> body;
  SourceLoc loc;            // the `kernel` line
  SourceLoc target_loc;     // the `target` line (0 if none)
  SourceLoc workgroup_loc;  // the `workgroup` line
  SourceLoc grid_loc;       // the `grid` line

  int64_t WorkgroupThreads() const { return workgroup[0] * workgroup[1] * workgroup[2]; }
  const Arg* FindArg(const std::string& name) const;
  const LdsAlloc* FindLds(const std::string& name) const;
  const NamedConst* FindConst(const std::string& name) const;
  friend bool operator==(const Kernel& a, const Kernel& b);
};

// The kernel's LDS layout (see LdsLayout).
LdsLayout LayoutLds(const Kernel& k);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_KERNEL_H_
