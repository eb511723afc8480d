// What the verifier proves about one memory instruction, written ONCE as a
// template over an integer domain W, and instantiated twice: with Z3 integer
// terms (the proof) and with concrete int64 values (counterexample
// confirmation and concrete search). So a counterexample is checked against
// exactly the statement that failed to prove.
//
// W provides: types I (integer) and B (boolean); I C(int64_t); B T(bool);
// I Div(I, int64_t d), I Mod(I, int64_t d) with floor semantics for d > 0;
// B Implies(B, B); the operators + - * on I, < <= == != on I, && || ! on B.
//
// The buffer range check and address are the shared predicate of
// compiler/isa/semantics.h (RawBufferInRange, RawBufferAddress), which the
// emulator also uses; so is a global_* instruction's address (GlobalAddress).
// global_* has no range check: each element's full 64-bit address must equal
// pointer + byte offset exactly, as unbounded integers (no 2^64 wrap), and a
// guarded access's out-of-shape lanes must be off in EXEC.
#ifndef KIRC_VERIFY_OBLIGATIONS_H_
#define KIRC_VERIFY_OBLIGATIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/index_expr.h"
#include "compiler/ir/kernel.h"
#include "compiler/isa/semantics.h"

namespace kir::vfy {

// Static facts of one memory instruction and its access-map record.
struct AccessShape {
  bool lds = false;
  bool global = false;        // global_* (64-bit address, no SRD and no range check)
  bool guarded = false;
  int comps = 1;              // components the range check sees (dwords, or one short/byte)
  int comp_bytes = 4;
  int64_t elem_bytes = 4;
  std::vector<int> elements;  // vector elements, in instruction byte order
  bool offen = false;
  int64_t inst_offset = 0;    // buffers and global: offset:N (global: signed); LDS: DsAddressOffset
                              // (for messages: lds_addr has it)
  std::string mem;            // argument or LDS allocation name
  int64_t mem_bytes = 0;      // Arg::SizeBytes() / LdsAlloc::SizeBytes()
  int64_t lds_offset = 0;     // LDS: the allocation's byte offset
  // The LDS side of an LDS DMA (buffer_load_dwordx4 ... lds, KIR lds_dma):
  // `lds`, the indices are the op's LDS base (lds_index), and element j of
  // lane l is at that base's byte + kLdsDmaLaneBytes * l + j * elem_bytes
  // (KIR's definition); the instruction's bytes [A, A + 16) must also lie in
  // the workgroup's LDS, lds_bytes (group_segment_fixed_size).
  bool lds_dma = false;
  int64_t lds_bytes = 0;
  std::vector<int64_t> shape, strides;
  int along = 0;
  std::vector<std::string> elem_text;  // per element: "A[tid.x + 1, 3]" (for messages)
};

template <class W>
struct AccessValues {
  typename W::B exec;                   // the lane's EXEC bit when the instruction issues
  typename W::I w[4];                   // buffers: SRD dwords (unsigned 32-bit values)
  typename W::I soffset, voffset;       // buffers: soffset, voffset (unsigned 32-bit)
  typename W::I arg_ptr;                // buffers and global: the argument's 64-bit pointer
  typename W::I gbase, gvoffset;        // global: the 64-bit base (saddr, or the vaddr pair) and the
                                        // zero-extended 32-bit vaddr of the saddr form (else 0), unsigned
  typename W::I vaddr;                  // LDS: the address VGPR (unsigned 32-bit; for messages)
  typename W::I lds_addr;               // LDS: the record's address, DsAddress of compiler/isa/semantics.h:
                                        // (vaddr + offset) mod 2^32; an LDS DMA's LdsDmaAddress (M0 in vaddr)
  typename W::I lane;                   // LDS DMA: the lane (linear work-item id mod 64)
  std::vector<std::vector<typename W::I>> idx;  // per element, per dimension: the IR index
};

template <class W>
struct Ob {
  std::string what;
  typename W::B holds;
  int elem = -1;  // vector element, or -1 for the instruction
};

// The IR index expression `e` in W with floor semantics for floordiv/mod.
// Divisors must evaluate to positive constants (KIR's rule; checked here).
// `loops` gives the value of each loop variable in scope (lo + step * iteration).
template <class W>
absl::StatusOr<typename W::I> IrValue(const W& w, const IndexExpr& e, const Kernel& k,
                                      const std::vector<typename W::I>& tid,
                                      const std::vector<typename W::I>& wg,
                                      const std::map<std::string, typename W::I>& loops) {
  using I = typename W::I;
  auto rec = [&](const IndexRef& x) { return IrValue(w, *x, k, tid, wg, loops); };
  switch (e.kind) {
    case IndexKind::kConst:
      return w.C(e.value);
    case IndexKind::kTid:
      return tid[e.dim];
    case IndexKind::kWg:
      return wg[e.dim];
    case IndexKind::kNamed: {
      const NamedConst* c = k.FindConst(e.name);
      if (c == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown constant '", e.name, "'"));
      return w.C(c->value);
    }
    case IndexKind::kLoopVar: {
      auto it = loops.find(e.name);
      if (it == loops.end())
        return absl::InvalidArgumentError(absl::StrCat("loop variable %", e.name, " has no machine loop"));
      return it->second;
    }
    case IndexKind::kAdd:
    case IndexKind::kSub:
    case IndexKind::kMul: {
      absl::StatusOr<I> a = rec(e.lhs), b = rec(e.rhs);
      if (!a.ok()) return a.status();
      if (!b.ok()) return b.status();
      if (e.kind == IndexKind::kAdd) return *a + *b;
      if (e.kind == IndexKind::kSub) return *a - *b;
      return *a * *b;
    }
    case IndexKind::kFloorDiv:
    case IndexKind::kMod: {
      IndexEnv env;
      env.named = [&k](const std::string& n) -> std::optional<int64_t> {
        const NamedConst* c = k.FindConst(n);
        return c ? std::optional<int64_t>(c->value) : std::nullopt;
      };
      std::optional<int64_t> d = Evaluate(*e.rhs, env);
      if (!d || *d <= 0)
        return absl::InvalidArgumentError(
            absl::StrCat("the divisor '", IndexToString(*e.rhs), "' is not a positive constant"));
      absl::StatusOr<I> a = rec(e.lhs);
      if (!a.ok()) return a.status();
      return e.kind == IndexKind::kFloorDiv ? w.Div(*a, *d) : w.Mod(*a, *d);
    }
  }
  return absl::InternalError("bad index expression");
}

// The obligations of one instruction, in a fixed order that depends only on
// `a` (so names computed once can be matched by position when `names` is false).
template <class W>
std::vector<Ob<W>> Obligations(const W& w, const AccessShape& a, const AccessValues<W>& v, bool names = true) {
  using I = typename W::I;
  using B = typename W::B;
  std::vector<Ob<W>> out;
  auto add = [&](std::string what, B holds, int elem) { out.push_back(Ob<W>{std::move(what), holds, elem}); };
  auto txt = [&](const auto&... parts) { return names ? absl::StrCat(parts...) : std::string(); };
  const int64_t two16 = int64_t{1} << 16, two32 = int64_t{1} << 32;
  I base = w.C(0);
  if (!a.lds && !a.global) {
    // SRD (amdgcn-isa-notes.md section 4): base = dword0 + dword1[15:0] << 32,
    // stride dword1[29:16], swizzle dword1[31:30], num_records dword2,
    // data_format dword3[18:15], add_tid_enable dword3[23].
    // The window [base, base + num_records) lies inside the buffer, or is
    // empty: kirc's SRDs of buffers below 2 GiB have base == the pointer; those
    // of larger ones (and other compilers' uniform offsets) start inside.
    base = v.w[0] + w.Mod(v.w[1], two16) * w.C(two32);
    const B empty = v.w[2] == w.C(0);
    add(txt("SRD base >= the pointer argument '", a.mem, "' (the window starts inside it)"),
        empty || v.arg_ptr <= base, -1);
    add("SRD stride (dword1 bits 29:16) is 0 (raw buffer)", w.Mod(w.Div(v.w[1], two16), 1 << 14) == w.C(0), -1);
    add("SRD swizzle bits (dword1 bits 31:30) are 0", w.Div(v.w[1], int64_t{1} << 30) == w.C(0), -1);
    add(txt("SRD num_records <= the size of '", a.mem, "' (", a.mem_bytes, " bytes) less the window's start in it"),
        empty || base + v.w[2] <= v.arg_ptr + w.C(a.mem_bytes), -1);
    add("SRD data_format (dword3 bits 18:15) is not 0 (hardware drops stores with 0)",
        w.Mod(w.Div(v.w[3], 1 << 15), 16) != w.C(0), -1);
    add("SRD add_tid_enable (dword3 bit 23) is 0", w.Mod(w.Div(v.w[3], 1 << 23), 2) == w.C(0), -1);
  } else if (a.lds) {
    // Natural alignment, as the emulator checks it (ds_*_b96: 16 bytes).
    const int64_t bytes = int64_t{a.comps} * a.comp_bytes;
    const int64_t align = bytes == 12 ? 16 : std::min<int64_t>(16, bytes);
    add(txt("LDS address is ", align, "-byte aligned"),
        w.Implies(v.exec, w.Mod(v.lds_addr, align) == w.C(0)), -1);
    if (a.lds_dma)
      add(txt("LDS DMA: bytes [M0 + offset + 16 * lane, + ", bytes, ") inside the workgroup's ", a.lds_bytes,
              " bytes of LDS"),
          w.Implies(v.exec, v.lds_addr + w.C(bytes) <= w.C(a.lds_bytes)), -1);
  }
  for (size_t j = 0; j < a.elements.size(); ++j) {
    const int e = a.elements[j];
    const std::string& et = j < a.elem_text.size() ? a.elem_text[j] : std::string("?");
    const std::string el = txt("element ", e, " (", et, ")");
    const std::vector<I>& idx = v.idx[j];
    B in_shape = w.T(true);
    I ir = w.C(0);
    for (size_t d = 0; d < idx.size(); ++d) {
      in_shape = in_shape && w.C(0) <= idx[d] && idx[d] < w.C(a.shape[d]);
      ir = ir + idx[d] * w.C(a.strides[d]);
    }
    ir = ir * w.C(a.elem_bytes);
    B inside = in_shape && w.C(0) <= ir && ir + w.C(a.elem_bytes) <= w.C(a.mem_bytes);
    const int64_t byte_in_inst = static_cast<int64_t>(j) * a.elem_bytes;
    B active = v.exec, in_range = w.T(true), addr_ok = w.T(true);
    std::string addr_what;
    if (a.global) {
      I emitted = GlobalAddress(v.gbase, v.gvoffset, w.C(a.inst_offset + byte_in_inst));
      addr_ok = emitted == v.arg_ptr + ir;
      addr_what = txt("64-bit address == ", a.mem, " + byte offset of ", et, " (no wrap)");
    } else if (!a.lds) {
      const int comp = static_cast<int>(byte_in_inst / a.comp_bytes);
      I vo = a.offen ? v.voffset : w.C(0);
      I comp_off = vo + w.C(a.inst_offset + int64_t{comp} * a.comp_bytes);
      in_range = RawBufferInRange(v.w[2], v.soffset, comp_off, w.C(a.comp_bytes));
      I emitted = RawBufferAddress(base, v.soffset, vo + w.C(a.inst_offset + byte_in_inst));
      addr_ok = emitted == v.arg_ptr + ir;
      addr_what = txt("address == ", a.mem, " + byte offset of ", et);
    } else if (a.lds_dma) {
      // KIR lds_dma: lane l's bytes start at L[base] + kLdsDmaLaneBytes * l.
      const I at = ir + v.lane * w.C(kLdsDmaLaneBytes) + w.C(byte_in_inst);
      addr_ok = v.lds_addr + w.C(byte_in_inst) == w.C(a.lds_offset) + at;
      inside = in_shape && w.C(0) <= at && at + w.C(a.elem_bytes) <= w.C(a.mem_bytes);
      addr_what = txt("LDS address == ", a.lds_offset, " (offset of ", a.mem, ") + byte offset of ", et);
    } else {
      I emitted = v.lds_addr + w.C(byte_in_inst);
      addr_ok = emitted == w.C(a.lds_offset) + ir;
      addr_what = txt("LDS address == ", a.lds_offset, " (offset of ", a.mem, ") + byte offset of ", et);
    }
    if (!a.guarded) {
      add(txt(el, ": lane active (EXEC)"), active, e);
      if (!a.lds && !a.global) add(txt(el, ": passes the SRD range check (not dropped)"), in_range, e);
      add(txt(el, ": ", addr_what), addr_ok, e);
      add(txt(el, ": IR index inside the shape and the ", a.lds ? "allocation" : "buffer"), inside, e);
    } else {
      add(txt(el, ", in shape: lane active (EXEC)"), w.Implies(in_shape, active), e);
      if (!a.lds && !a.global)
        add(txt(el, ", in shape: passes the SRD range check"), w.Implies(in_shape, in_range), e);
      add(txt(el, ", in shape: ", addr_what), w.Implies(in_shape, addr_ok), e);
      add(txt(el, ", in shape: inside the ", a.lds ? "allocation" : "buffer"), w.Implies(in_shape, inside),
          e);
      if (!a.lds && !a.global)
        add(txt(el, ", out of shape: lane off or dropped by the SRD range check"),
            w.Implies(!in_shape, !active || !in_range), e);
      else
        add(txt(el, ", out of shape: lane off in EXEC"), w.Implies(!in_shape, !active), e);
    }
  }
  return out;
}

}  // namespace kir::vfy

#endif  // KIRC_VERIFY_OBLIGATIONS_H_
