// Mutation test of `kirc verify --code-object/--asm` (issue 17, measured
// goal): single mutations of the address arithmetic of code kirc did not
// just compile, judged by an oracle that does not use the verifier.
//
// Subjects:
// - clang-22's code objects of testdata/baselines (//testdata:baselines)
//   that prove today, and of testdata/foreign (a guard, a hidden argument,
//   an SDWA byte select),
//   mutated in their BYTES (no assembly source exists):
//   the instructions are decoded by the emulator's reader (llvm-objdump's
//   decoding, in process), the address-feeding ones found by a backward
//   register slice from the address operands and EXEC of every memory
//   instruction (AddressFeeding), and one encoded field at a time is changed
//   (EncodingEdits): memory offsets (global, DS offset/offset0/offset1, SMEM
//   kernarg offsets), inline constants (shift amounts, multipliers, masks,
//   add constants, v_lshl_add_u64's shift), literal constants, source
//   register numbers (SGPR, VGPR, the SMEM base pair, the global address
//   pair), carries dropped (v_addc_co_u32 -> v_add_u32, s_addc_u32 ->
//   s_add_u32, a VOP3 carry-in replaced by 0), SDWA selects, sext and
//   dst_unused changed (byte_index_f32's `(t + 1) & 255`);
// - kirc's own assembly of four testdata kernels (compiled here), edited as
//   TEXT in the same kinds (TextMutants; there the SRD words too:
//   num_records, the base mask, dword3), read back with CodeInput::assembly.
// Mutants that do not decode or assemble (llvm-mc in process), or that the
// emulator's reader or its register-allocation check refuses, are counted
// as invalid and skipped.
//
// Oracle (independent of the verifier): the strict CPU emulator (hw/emu)
// runs each mutant on inputs with a distinct value in every element
// (MakeInputs) and a sentinel in every output byte, and every buffer is
// compared bit for bit with the KIR reference interpreter's
// (compiler/reference). Harmful: a difference, or an emulator error (an
// access outside every buffer, a read of LDS never written, a race).
// Harmless: every byte equal, with the buffers at the emulator's default
// addresses and at two other placements (Placement: a carry that fires only
// closer to 2^32, a pointer bit the default addresses lack).
//
// Assertions: every harmful mutant is FAILED by the verifier with a
// concrete counterexample that names the instruction, the thread (tid, wave,
// lane), the workgroup, and the emitted and expected addresses
// (FullCounterexample), or
// is one of the mutants that load the other input exactly, which the
// verifier fails by coverage only (KilledByCoverageOnly, asserted so), or
// fails coverage with a counterexample found by running the code: an
// element of a KIR access no instruction touches for a named thread, while
// the instructions that might have performed it are unknown
// (RunCoverageCounterexample; a loop register that is no induction
// variable); every harmless mutant is proved, or raises an SRD's num_records past
// its buffer and fails that obligation only (NumRecordsPastTheBuffer,
// asserted so); at least 50 harmful mutants in all. The summary table (one row per subject)
// is printed at the end; README of verify/ ("Tests and numbers") has it.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/api/compile.h"
#include "compiler/ir/float_bits.h"
#include "compiler/ir/parser.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"
#include "compiler/object/toolchain.h"
#include "compiler/reference/interpreter.h"
#include "gtest/gtest.h"
#include "hw/emu/asm_reader.h"
#include "hw/emu/code_object.h"
#include "hw/emu/emulator.h"
#include "hw/emu/program.h"
#include "testdata/test_kernels.h"
#include "verify/object/load.h"
#include "verify/test_roles.h"
#include "verify/verify.h"

namespace kir {
namespace {

using Status = AccessVerdict::Status;
using ::kir::testing::ReadTestFile;

constexpr char kLlvmBin[] = "/usr/lib/llvm-22/bin";

// ============================================================================
// The address slice: which instructions compute an address.
// ============================================================================

bool IsMemory(const MInst& mi) {
  const InstClass c = Info(mi.opc).cls;
  return c == InstClass::kVmemLoad || c == InstClass::kVmemStore || c == InstClass::kDsRead ||
         c == InstClass::kDsWrite;
}

// The operands of a memory instruction that make its address.
constexpr OpName kAddressOperands[] = {OpName::kVaddr, OpName::kSrsrc, OpName::kSoffset, OpName::kSaddr,
                                       OpName::kAddr};

// For each instruction: true if it writes a register some memory address is
// computed from (transitively), found by walking reaching definitions
// backwards from the address operands and EXEC of every memory instruction
// (EXEC decides which lanes access: a guard's bound feeds it). Inside a
// loop (a backward branch around the reader) the definitions later in the
// loop body reach it too.
std::vector<bool> AddressFeeding(const std::vector<emu::Inst>& insts) {
  const int n = static_cast<int>(insts.size());
  std::vector<std::pair<int, int>> loops;  // [target, branch]
  for (int i = 0; i < n; ++i)
    if (insts[i].target >= 0 && insts[i].target <= i) loops.push_back({insts[i].target, i});
  std::vector<bool> feeding(n, false);
  struct Item {
    int pos;
    RegAccess r;
  };
  std::vector<Item> work;
  std::set<std::tuple<int, int, int, int>> seen;
  auto push = [&](int pos, const RegAccess& r) {
    if (seen.insert({pos, static_cast<int>(r.cls), r.lo, r.count}).second) work.push_back({pos, r});
  };
  RegAccess exec;  // which lanes access: a guard (clang's v_cmp + s_and_saveexec_b64)
  exec.cls = RegClass::kSgpr;
  exec.special = SpecialReg::kExec;
  SpecialRegRange(SpecialReg::kExec, &exec.lo, &exec.count);
  for (int i = 0; i < n; ++i) {
    if (!IsMemory(insts[i].mi)) continue;
    for (OpName name : kAddressOperands) {
      RegAccess a;
      if (NamedRegAccess(insts[i].mi, name, &a)) push(i, a);
    }
    push(i, exec);
  }
  while (!work.empty()) {
    Item it = work.back();
    work.pop_back();
    // Where the reaching definitions may be: backwards to the head of the
    // innermost loop around the reader (a definition there covers every
    // iteration), then the rest of the loop body (the previous iteration's),
    // then before the loop (the first iteration's).
    int head = 0, tail = it.pos;
    for (auto [t, b] : loops)
      if (t <= it.pos && it.pos <= b && t >= head) head = t, tail = b;
    std::vector<int> order;
    for (int j = it.pos - 1; j >= head; --j) order.push_back(j);
    const size_t in_body = order.size();
    for (int j = tail; j > it.pos; --j) order.push_back(j);
    const size_t before_loop = order.size();
    for (int j = head - 1; j >= 0; --j) order.push_back(j);
    for (size_t o = 0; o < order.size(); ++o) {
      const int j = order[o];
      bool covered = false;
      for (const RegAccess& d : CollectRegAccesses(insts[j].mi, kExplicitAccesses | kImplicitAccesses)) {
        if (!d.def || !Overlap(d, it.r)) continue;
        feeding[j] = true;
        for (const RegAccess& u : CollectRegAccesses(insts[j].mi, kAllAccesses))
          if (!u.def) push(j, u);
        covered |= d.cls == it.r.cls && d.lo <= it.r.lo && d.lo + d.count >= it.r.lo + it.r.count;
      }
      if (covered && (o < in_body || o >= before_loop)) break;
      if (covered) o = before_loop - 1;  // the tail's last definition; then the first iteration's
    }
  }
  return feeding;
}

// ============================================================================
// Code objects: editing encoded fields (GFX9 encodings, AMD "CDNA3 ISA"
// chapter 13 "Microcode Formats"; LLVM's AMDGPU SIInstrFormats.td).
// ============================================================================

uint64_t ReadLe(const std::string& b, size_t off, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(b[off + i]);
  return v;
}

// The file offset of virtual address `vaddr`: through the section that holds it.
absl::StatusOr<uint64_t> FileOffset(const std::string& elf, uint64_t vaddr) {
  if (elf.size() < 64) return absl::InvalidArgumentError("not ELF64");
  const uint64_t shoff = ReadLe(elf, 0x28, 8);
  const int shentsize = static_cast<int>(ReadLe(elf, 0x3a, 2)), shnum = static_cast<int>(ReadLe(elf, 0x3c, 2));
  for (int i = 0; i < shnum; ++i) {
    const size_t sh = shoff + static_cast<size_t>(i) * shentsize;
    if (sh + 64 > elf.size()) break;
    const uint32_t type = static_cast<uint32_t>(ReadLe(elf, sh + 4, 4));
    const uint64_t addr = ReadLe(elf, sh + 0x10, 8), off = ReadLe(elf, sh + 0x18, 8), size = ReadLe(elf, sh + 0x20, 8);
    if (type != 8 /*SHT_NOBITS*/ && addr != 0 && addr <= vaddr && vaddr < addr + size) return off + (vaddr - addr);
  }
  return absl::NotFoundError(absl::StrCat("no section holds 0x", absl::Hex(vaddr)));
}

enum class Fmt { kSop2, kSopk, kSop1, kSopc, kSopp, kVop1, kVop2, kVopc, kVop3, kVop3p, kSmem, kDs, kFlat, kMubuf, kOther };

Fmt FormatOf(uint32_t w0) {
  if ((w0 >> 25) == 0x3f) return Fmt::kVop1;
  if ((w0 >> 25) == 0x3e) return Fmt::kVopc;
  if ((w0 >> 31) == 0) return Fmt::kVop2;
  if ((w0 >> 23) == 0x17d) return Fmt::kSop1;
  if ((w0 >> 23) == 0x17e) return Fmt::kSopc;
  if ((w0 >> 23) == 0x17f) return Fmt::kSopp;
  if ((w0 >> 28) == 0xb) return Fmt::kSopk;
  if ((w0 >> 30) == 2) return Fmt::kSop2;
  if ((w0 >> 23) == 0x1a7) return Fmt::kVop3p;
  switch (w0 >> 26) {
    case 0x30: return Fmt::kSmem;
    case 0x34: return Fmt::kVop3;
    case 0x36: return Fmt::kDs;
    case 0x37: return Fmt::kFlat;
    case 0x38: return Fmt::kMubuf;
    default: return Fmt::kOther;
  }
}

struct Field {
  int word, lo, width;
};
uint32_t Get(const std::vector<uint32_t>& w, Field f) {
  return (w[f.word] >> f.lo) & ((f.width == 32 ? 0u : (1u << f.width)) - 1u);
}
std::vector<uint32_t> Set(std::vector<uint32_t> w, Field f, uint32_t v) {
  const uint32_t mask = (f.width == 32 ? ~0u : ((1u << f.width) - 1u)) << f.lo;
  w[f.word] = (w[f.word] & ~mask) | ((v << f.lo) & mask);
  return w;
}

// One edit of an instruction's encoding: its new words.
struct WordEdit {
  std::string kind;  // "offset", "inline", "literal", "sgpr", "vgpr", "carry", "kernarg offset", ...
  std::vector<uint32_t> words;
};

// The values a source operand field may take instead of `v`: the neighbouring
// register (by a whole tuple of `count`) of the same file, or the
// neighbouring inline integer. 9-bit fields (VOP) also hold VGPRs (256 + n).
void SourceEdits(const std::vector<uint32_t>& w, Field f, int count, bool vgprs, std::vector<WordEdit>& out) {
  const uint32_t v = Get(w, f);
  auto add = [&](const char* kind, int64_t nv) { out.push_back({kind, Set(w, f, static_cast<uint32_t>(nv))}); };
  if (v <= 101) {  // s0..s101
    if (static_cast<int>(v) - count >= 0) add("sgpr", v - count);
    if (static_cast<int>(v) + 2 * count - 1 <= 101) add("sgpr", v + count);
  } else if (v >= 128 && v <= 208) {  // inline integers 0..64, -1..-16
    const int x = v <= 192 ? static_cast<int>(v) - 128 : 192 - static_cast<int>(v);
    auto enc = [](int y) { return y >= 0 ? 128 + y : 192 - y; };
    if (x - 1 >= -16) add("inline", enc(x - 1));
    if (x + 1 <= 64) add("inline", enc(x + 1));
  } else if (vgprs && v >= 256) {  // v0..v255
    const int r = static_cast<int>(v) - 256;
    if (r - count >= 0) add("vgpr", 256 + r - count);
    if (r + 2 * count - 1 <= 255) add("vgpr", 256 + r + count);
  }
}

// The literal dword that follows a 32-bit instruction whose source field is 255.
void LiteralEdits(const std::vector<uint32_t>& w, std::vector<WordEdit>& out) {
  if (w.size() < 2) return;
  for (int64_t d : {-1, 1}) {
    std::vector<uint32_t> v = w;
    v.back() = static_cast<uint32_t>(w.back() + d);
    out.push_back({"literal", v});
  }
}

int SourceCount(const MInst& mi, int k) {
  const MOperand* o = FindOperand(mi, SrcName(k));
  return o != nullptr && o->IsReg() ? o->count : 1;
}
bool HasSource(const MInst& mi, int k) { return FindOperand(mi, SrcName(k)) != nullptr; }

// Every single-field edit of the address arithmetic of instruction `in`
// (encoded as `w`): for a memory instruction its address fields, for an
// address-feeding one its source fields.
std::vector<WordEdit> EncodingEdits(const emu::Inst& in, const std::vector<uint32_t>& w) {
  std::vector<WordEdit> out;
  const MInst& mi = in.mi;
  const Fmt fmt = FormatOf(w[0]);
  auto signed_offset = [&](Field f, std::initializer_list<int> deltas, const char* kind, bool is_signed) {
    const uint32_t raw = Get(w, f);
    int64_t v = raw;
    if (is_signed && (raw >> (f.width - 1))) v -= int64_t{1} << f.width;
    for (int d : deltas) {
      const int64_t nv = v + d;
      const int64_t lo = is_signed ? -(int64_t{1} << (f.width - 1)) : 0;
      const int64_t hi = is_signed ? (int64_t{1} << (f.width - 1)) - 1 : (int64_t{1} << f.width) - 1;
      if (nv < lo || nv > hi) continue;
      out.push_back({kind, Set(w, f, static_cast<uint32_t>(nv))});
    }
  };
  switch (fmt) {
    case Fmt::kSop2: {
      const uint32_t op = Get(w, {0, 23, 7});
      if (op == 4 || op == 5) out.push_back({"carry", Set(w, {0, 23, 7}, op - 4)});  // s_addc/s_subb -> s_add/s_sub
      for (int k = 0; k < 2; ++k) {
        const Field f{0, 8 * k, 8};
        if (Get(w, f) == 255) LiteralEdits(w, out);
        else SourceEdits(w, f, SourceCount(mi, k), false, out);
      }
      break;
    }
    case Fmt::kSopc:
      for (int k = 0; k < 2; ++k) {
        const Field f{0, 8 * k, 8};
        if (Get(w, f) == 255) LiteralEdits(w, out);
        else SourceEdits(w, f, SourceCount(mi, k), false, out);
      }
      break;
    case Fmt::kSop1:
      if (Get(w, {0, 0, 8}) == 255) LiteralEdits(w, out);
      else SourceEdits(w, {0, 0, 8}, SourceCount(mi, 0), false, out);
      break;
    case Fmt::kSopk:
      signed_offset({0, 0, 16}, {-1, 1}, "simm16", true);
      break;
    case Fmt::kVop1:
    case Fmt::kVop2:
    case Fmt::kVopc: {
      const uint32_t src0 = Get(w, {0, 0, 9});
      if (src0 == 0xf9 && w.size() >= 2) {
        // SDWA: the selects of the second dword (VOP_SDWA, MI300 ISA "SDWA";
        // LLVM SIDefines.h SDWA: DST_SEL [10:8], DST_UNUSED [12:11],
        // SRC0_SEL [18:16], SRC0_SEXT [19], SRC1_SEL [26:24], SRC1_SEXT [27]):
        // each select set to every other value, each sext flipped, each
        // dst_unused changed (clang's `(t + 1) & 255` is a src0 BYTE_0 select).
        std::vector<std::pair<Field, int>> sels = {{{1, 16, 3}, 7}, {{1, 8, 3}, 7}, {{1, 11, 2}, 3}};
        if (fmt != Fmt::kVop1) sels.push_back({{1, 24, 3}, 7});
        for (const auto& [f, n] : sels)
          for (int v = 0; v < n; ++v)
            if (static_cast<uint32_t>(v) != Get(w, f)) out.push_back({"sdwa select", Set(w, f, static_cast<uint32_t>(v))});
        out.push_back({"sdwa sext", Set(w, {1, 19, 1}, Get(w, {1, 19, 1}) ^ 1u)});
        if (fmt != Fmt::kVop1) out.push_back({"sdwa sext", Set(w, {1, 27, 1}, Get(w, {1, 27, 1}) ^ 1u)});
        break;
      }
      if (src0 == 0xf9 || src0 == 0xfa) break;  // DPP: not address arithmetic here
      if (fmt == Fmt::kVop2) {
        const uint32_t op = Get(w, {0, 25, 6});
        // v_addc_co_u32 / v_subb_co_u32 / v_subbrev_co_u32 (28..30) -> v_add_u32 / v_sub_u32 / v_subrev_u32 (52..54)
        if (op >= 28 && op <= 30) out.push_back({"carry", Set(w, {0, 25, 6}, op + 24)});
      }
      if (src0 == 255) LiteralEdits(w, out);
      else SourceEdits(w, {0, 0, 9}, SourceCount(mi, 0), true, out);
      if (fmt != Fmt::kVop1) {  // vsrc1: a VGPR
        const Field f{0, 9, 8};
        const int c = SourceCount(mi, 1), r = static_cast<int>(Get(w, f));
        if (r - c >= 0) out.push_back({"vgpr", Set(w, f, r - c)});
        if (r + 2 * c - 1 <= 255) out.push_back({"vgpr", Set(w, f, r + c)});
      }
      break;
    }
    case Fmt::kVop3:
    case Fmt::kVop3p: {
      if (Info(mi.opc).cls == InstClass::kMfma) break;
      const uint32_t op = Get(w, {0, 16, 10});
      const bool carry_in = fmt == Fmt::kVop3 && op >= 0x11c && op <= 0x11e;  // v_addc/v_subb/v_subbrev_co_u32_e64
      for (int k = 0; k < 3; ++k) {
        if (!HasSource(mi, k)) continue;
        const Field f{1, 9 * k, 9};
        if (k == 2 && carry_in) {
          out.push_back({"carry", Set(w, f, 128)});  // carry-in 0
          continue;
        }
        SourceEdits(w, f, SourceCount(mi, k), true, out);
      }
      break;
    }
    case Fmt::kSmem:
      if (Get(w, {0, 17, 1}) == 1) signed_offset({1, 0, 21}, {-8, -4, 4, 8}, "kernarg offset", false);
      {
        const int base = static_cast<int>(Get(w, {0, 0, 6}));
        if (base >= 1) out.push_back({"sgpr", Set(w, {0, 0, 6}, base - 1)});
        if (base <= 49) out.push_back({"sgpr", Set(w, {0, 0, 6}, base + 1)});
      }
      break;
    case Fmt::kDs: {
      if (MemoryShape(mi.opc).addrs == 2) {
        signed_offset({0, 0, 8}, {-1, 1}, "ds offset0", false);
        signed_offset({0, 8, 8}, {-1, 1}, "ds offset1", false);
      } else {
        signed_offset({0, 0, 16}, {-4, 4}, "offset", false);
      }
      const int r = static_cast<int>(Get(w, {1, 0, 8}));
      if (r >= 1) out.push_back({"vgpr", Set(w, {1, 0, 8}, r - 1)});
      if (r <= 254) out.push_back({"vgpr", Set(w, {1, 0, 8}, r + 1)});
      break;
    }
    case Fmt::kFlat: {
      signed_offset({0, 0, 13}, {-4, 4}, "offset", true);
      const bool saddr = Get(w, {1, 16, 7}) != 0x7f;
      const int c = saddr ? 1 : 2, r = static_cast<int>(Get(w, {1, 0, 8}));
      if (r - c >= 0) out.push_back({"vgpr", Set(w, {1, 0, 8}, r - c)});
      if (r + 2 * c - 1 <= 255) out.push_back({"vgpr", Set(w, {1, 0, 8}, r + c)});
      if (saddr) {
        const int s = static_cast<int>(Get(w, {1, 16, 7}));
        if (s >= 2) out.push_back({"sgpr", Set(w, {1, 16, 7}, s - 2)});
        if (s + 3 <= 101) out.push_back({"sgpr", Set(w, {1, 16, 7}, s + 2)});
      }
      break;
    }
    case Fmt::kMubuf: {
      signed_offset({0, 0, 12}, {-4, 4}, "offset", false);
      if (mi.offen) {
        const int r = static_cast<int>(Get(w, {1, 0, 8}));
        if (r >= 1) out.push_back({"vgpr", Set(w, {1, 0, 8}, r - 1)});
        if (r <= 254) out.push_back({"vgpr", Set(w, {1, 0, 8}, r + 1)});
      }
      const int q = static_cast<int>(Get(w, {1, 16, 5}));
      if (q >= 1) out.push_back({"sgpr", Set(w, {1, 16, 5}, q - 1)});
      if (q <= 23) out.push_back({"sgpr", Set(w, {1, 16, 5}, q + 1)});
      SourceEdits(w, {1, 24, 8}, 1, false, out);
      break;
    }
    default:
      break;
  }
  return out;
}

// ============================================================================
// Assembly text: the same kinds of edits on kirc's .s.
// ============================================================================

// "v_add_u32 v0, s2, v1" -> mnemonic and comma-separated operands; modifiers
// ("offen offset:16") stay with the last operand's text.
struct AsmLine {
  std::string indent, mnemonic;
  std::vector<std::string> ops;
  std::string mods;  // " offen offset:16"
  std::string Text() const {
    return absl::StrCat(indent, mnemonic, ops.empty() ? "" : " ", absl::StrJoin(ops, ", "), mods);
  }
};

AsmLine SplitAsm(const std::string& line) {
  AsmLine a;
  const size_t start = line.find_first_not_of(" \t");
  a.indent = line.substr(0, start);
  std::string rest = line.substr(start);
  const size_t sp = rest.find(' ');
  a.mnemonic = rest.substr(0, sp);
  if (sp == std::string::npos) return a;
  rest = rest.substr(sp + 1);
  a.ops = absl::StrSplit(rest, ", ");
  // Modifiers: space-separated words after the last operand.
  std::string& last = a.ops.back();
  const size_t msp = last.find(' ');
  if (msp != std::string::npos) {
    a.mods = last.substr(msp);
    last = last.substr(0, msp);
  }
  return a;
}

// Edits of one operand token: registers by one (or a whole tuple), integers
// by one, `offset:N` by 4, `offset0:N`/`offset1:N` by 1.
std::vector<std::pair<std::string, std::string>> TokenEdits(const std::string& tok) {
  std::vector<std::pair<std::string, std::string>> out;
  int64_t v;
  uint64_t h;
  if (tok.size() > 1 && (tok[0] == 'v' || tok[0] == 's') && absl::SimpleAtoi(tok.substr(1), &v)) {
    const char* kind = tok[0] == 'v' ? "vgpr" : "sgpr";
    if (v >= 1) out.push_back({kind, absl::StrCat(tok.substr(0, 1), v - 1)});
    out.push_back({kind, absl::StrCat(tok.substr(0, 1), v + 1)});
  } else if (tok.size() > 4 && (tok[0] == 'v' || tok[0] == 's') && tok[1] == '[') {
    std::vector<std::string> p = absl::StrSplit(tok.substr(2, tok.size() - 3), ':');
    int64_t lo, hi;
    if (p.size() == 2 && absl::SimpleAtoi(p[0], &lo) && absl::SimpleAtoi(p[1], &hi)) {
      const int64_t c = hi - lo + 1;
      const char* kind = tok[0] == 'v' ? "vgpr" : "sgpr";
      if (lo - c >= 0) out.push_back({kind, absl::StrCat(tok.substr(0, 2), lo - c, ":", hi - c, "]")});
      out.push_back({kind, absl::StrCat(tok.substr(0, 2), lo + c, ":", hi + c, "]")});
    }
  } else if (absl::StartsWith(tok, "0x") && absl::SimpleHexAtoi(tok.substr(2), &h)) {
    out.push_back({"literal", absl::StrCat("0x", absl::Hex(h - 1))});
    out.push_back({"literal", absl::StrCat("0x", absl::Hex(h + 1))});
  } else if (absl::SimpleAtoi(tok, &v)) {
    out.push_back({"inline", absl::StrCat(v - 1)});
    out.push_back({"inline", absl::StrCat(v + 1)});
  }
  return out;
}

// ============================================================================
// The subjects and the oracle.
// ============================================================================

struct Subject {
  std::string label;  // "clang copy_f32 gfx942", "kirc copy_f32 gfx942"
  Kernel twin;
  std::string mcpu;
  bool object = true;  // code object bytes, else assembly text
  std::string code;
};

// Inputs with a distinct value in every element: exact small integers where
// MFMA products must stay exact (f16 up to 2048 elements, bf16 up to 256),
// else distinct bit patterns of moderate magnitude. Output bytes start as a
// sentinel. Scalars: 1.0f (products exact on every target, so clang's fused
// gfx908 f16 conversion rounds as the reference does).
struct Inputs {
  std::map<std::string, std::vector<uint8_t>> buffers;
  std::map<std::string, uint32_t> scalars;
};

Inputs MakeInputs(const Kernel& k) {
  Inputs in;
  int b = 0;  // input buffers so far: each gets its own values
  for (const Arg& a : k.args) {
    if (a.kind == Arg::Kind::kScalar) {
      in.scalars[a.name] = a.elem == ElemType::kF32 ? F32Bits(1.0f) : 1u;
      continue;
    }
    const int eb = ElemBytes(a.elem);
    const int64_t n = a.SizeBytes() / eb;
    std::vector<uint8_t> bytes(static_cast<size_t>(a.SizeBytes()), 0xa5);
    if (a.access != Access::kWriteOnly) {
      // Input buffer b: +-(i + 1), the sign of b (two buffers of small integers
      // never hold the same value), offset by 2^20 * (b / 2) for f32/i32.
      // f16 buffers of more than 2048 elements (add_f16's 32768: more than
      // f16 has integers) get distinct bit patterns instead.
      const float sign = b % 2 ? -1.0f : 1.0f;
      for (int64_t i = 0; i < n; ++i) {
        uint32_t bits = 0;
        switch (a.elem) {
          case ElemType::kF32: bits = F32Bits(sign * static_cast<float>(i + 1 + (b / 2 << 20))); break;
          case ElemType::kI32: bits = static_cast<uint32_t>((b % 2 ? -1 : 1) * (i + 1 + (b / 2 << 20))); break;
          case ElemType::kBF16:
          case ElemType::kF16: {
            const bool f16 = a.elem == ElemType::kF16;
            if (n <= (f16 ? 2048 : 256) && b < 2) {  // exact in MFMA products and sums
              const float v = sign * static_cast<float>(i + 1);
              bits = f16 ? F32ToF16Bits(v) : F32ToBf16Bits(v);
            } else {
              // Distinct (sign, exponent, mantissa) triples (magnitudes 2^-2 ..
              // 2^14), a different permutation of the index per buffer.
              const uint32_t p = (static_cast<uint32_t>(i) * (2 * b + 1) * 40503u + b * 12345u) & 0x7fff;
              const uint32_t q = (p >> 1) & 0x3fff;
              bits = f16 ? ((p & 1) << 15) | ((13 + (q >> 10)) << 10) | (q & 0x3ff)
                         : ((p & 1) << 15) | ((125 + (q >> 7)) << 7) | (q & 0x7f);
            }
            break;
          }
          default:  // fp8: no subject holds it yet; give it a scheme first
            ADD_FAILURE() << a.name << ": no input scheme for " << ElemTypeName(a.elem);
            break;
        }
        std::memcpy(bytes.data() + i * eb, &bits, eb);
      }
      ++b;
    }
    in.buffers[a.name] = std::move(bytes);
  }
  return in;
}

struct RunResult {
  std::string error;  // the emulator stopped (an access outside every buffer, a strict check)
  std::map<std::string, std::vector<uint8_t>> buffers;
};

// The mutant in the emulator: every buffer after the run.
// Buffer placements: the emulator's own (kDefaultPlacement: low dword
// 0xffffff00, a carry after 256 bytes), then ones tried for a mutant that
// looks harmless there: the low dword 8 bytes below 2^32 with an odd high
// dword (a carry after 8 bytes; a mask that clears bit 32 shows), and the
// low dword 2^31 - 256 with high dwords past 2^8.
constexpr int kPlacements = 3;
constexpr int kDefaultPlacement = 0;
std::vector<uint64_t> Placement(int p, int buffers) {
  std::vector<uint64_t> a;
  for (int n = 0; n < buffers && p > 0; ++n)
    a.push_back(p == 1 ? (static_cast<uint64_t>(2 * n + 3) << 32) | 0xfffffff8u
                       : (static_cast<uint64_t>(n + 1) << 40) | 0x7fffff00u);
  return a;
}

RunResult Emulate(const emu::LoadedKernel& lk, const Kernel& twin, const Inputs& in, int64_t budget,
                  int placement = kDefaultPlacement) {
  RunResult r;
  const emu::KernelInfo& info = emu::InfoOf(lk);
  emu::LaunchArgs la;
  std::vector<const Arg*> order;
  std::vector<const ArgNote*> explicit_args;
  for (const ArgNote& a : info.args)
    if (!absl::StartsWith(a.value_kind, "hidden_")) explicit_args.push_back(&a);
  for (size_t i = 0; i < explicit_args.size(); ++i) {
    const Arg* arg = twin.FindArg(explicit_args[i]->name);
    if (arg == nullptr && i < twin.args.size()) arg = &twin.args[i];
    if (arg == nullptr) {
      r.error = absl::StrCat("no twin argument for ", explicit_args[i]->name);
      return r;
    }
    order.push_back(arg);
    if (arg->kind == Arg::Kind::kBuffer) {
      la.args.push_back(in.buffers.at(arg->name));
    } else {
      const uint32_t v = in.scalars.at(arg->name);
      la.args.push_back({static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
                         static_cast<uint8_t>(v >> 24)});
    }
  }
  for (int d = 0; d < 3; ++d) {
    la.grid[d] = twin.grid[d];
    la.workgroup[d] = twin.workgroup[d];  // blockdim_f32 has no .reqd_workgroup_size
  }
  int buffers = 0;
  for (const Arg* a : order) buffers += a->kind == Arg::Kind::kBuffer;
  la.buffer_addresses = Placement(placement, buffers);
  emu::EmuOptions o;
  o.max_instructions = budget;
  absl::StatusOr<emu::EmuStats> st = emu::RunKernel(lk, la, o);
  if (!st.ok()) {
    r.error = std::string(st.status().message());
    return r;
  }
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i]->kind == Arg::Kind::kBuffer) r.buffers[order[i]->name] = la.args[i];
  return r;
}

// ============================================================================
// The verifier's verdict.
// ============================================================================

// stop_at_first_failure: VerifyOptions', for a harmful mutant (its verdicts
// up to the first failed instruction are the full run's).
absl::StatusOr<VerifyResult> VerifyCode(const Subject& s, const std::string& code, bool stop_at_first_failure = false) {
  absl::StatusOr<TargetId> id = ParseTargetId(s.mcpu);
  if (!id.ok()) return id.status();
  CodeInput in;
  in.mcpu = s.mcpu;
  if (s.object) {
    in.code_object = code;
    in.llvm_bin = kLlvmBin;
  } else {
    in.assembly = code;
  }
  absl::StatusOr<LoweredKernel> lk = LoadCodeForVerify(s.twin, *id->target, in);
  if (!lk.ok()) return lk.status();
  VerifyOptions o;
  o.match_accesses = true;
  o.stop_at_first_failure = stop_at_first_failure;
  return VerifyAddresses(lk->kernel, *id->target, *lk, o);
}

// A failed instruction whose confirmed counterexample names the thread (tid,
// wave and lane), the workgroup and the emitted and expected addresses (the
// instruction is the verdict's: its index in the kernel and its text).
// Every counterexample the verifier prints was evaluated concretely with the
// shared semantics: a solver model confirmed so ("from the solver's model,
// confirmed concretely"), a candidate refuted at a concrete point ("at a
// concrete point"), or a wave run ("found by running the code concretely").
const AccessVerdict* FullCounterexample(const VerifyResult& v) {
  for (const AccessVerdict& a : v.accesses) {
    const std::string& c = a.counterexample;
    const bool concrete = absl::StrContains(c, "confirmed concretely") || absl::StrContains(c, "(at a concrete point)") ||
                          absl::StrContains(c, "found by running the code concretely");
    if (a.status == Status::kFailed && a.inst_id >= 0 && !a.inst_text.empty() && concrete &&
        absl::StrContains(c, "tid = (") && absl::StrContains(c, "wg = (") && absl::StrContains(c, ", lane ") &&
        absl::StrContains(c, ": emitted ") && absl::StrContains(c, "; expected "))
      return &a;
  }
  return nullptr;
}

int CountStatus(const VerifyResult& v, Status s) {
  int n = 0;
  for (const AccessVerdict& a : v.accesses) n += a.status == s;
  return n;
}

// ============================================================================
// Mutants.
// ============================================================================

struct Mutant {
  std::string kind;
  std::string before;  // the instruction, with its address or line
  std::string code;    // the mutated code object or assembly text
  uint64_t addr = 0;   // code objects: the instruction's address
  int line = 0;        // assembly: the edited line
  std::string edited;  // assembly: the edited line's text
};

// Every encoded-field mutant of a code object's address arithmetic.
std::vector<Mutant> ObjectMutants(const Subject& s, const emu::Program& prog, std::string* error) {
  std::vector<Mutant> out;
  const std::vector<bool> feeding = AddressFeeding(prog.insts);
  for (size_t i = 0; i < prog.insts.size(); ++i) {
    const emu::Inst& in = prog.insts[i];
    if (!feeding[i] && !IsMemory(in.mi)) continue;
    absl::StatusOr<uint64_t> off = FileOffset(s.code, in.addr);
    if (!off.ok()) {
      *error = std::string(off.status().message());
      return {};
    }
    std::vector<uint32_t> w;
    for (int k = 0; k < in.size / 4; ++k) w.push_back(static_cast<uint32_t>(ReadLe(s.code, *off + 4 * k, 4)));
    for (WordEdit& e : EncodingEdits(in, w)) {
      Mutant m;
      m.kind = e.kind;
      m.addr = in.addr;
      m.before = absl::StrCat("0x", absl::Hex(in.addr), " ", in.text);
      m.code = s.code;
      for (size_t k = 0; k < e.words.size(); ++k)
        for (int b = 0; b < 4; ++b) m.code[*off + 4 * k + b] = static_cast<char>(e.words[k] >> (8 * b));
      out.push_back(std::move(m));
    }
  }
  return out;
}

// Every text mutant of the address arithmetic of kirc's assembly: each
// operand token of an address-feeding instruction that is one of its sources
// (for a memory instruction: an address operand or an offset field), checked
// by reading the edited instruction back (exactly that operand changed).
std::vector<Mutant> TextMutants(const Subject& s, const emu::Program& prog, const TargetInfo& t) {
  std::vector<Mutant> out;
  const std::vector<bool> feeding = AddressFeeding(prog.insts);
  std::vector<std::string> lines = absl::StrSplit(s.code, '\n');
  for (size_t i = 0; i < prog.insts.size(); ++i) {
    const emu::Inst& in = prog.insts[i];
    const bool mem = IsMemory(in.mi);
    if (!feeding[i] && !mem) continue;
    const std::string& line = lines[in.line - 1];
    AsmLine a = SplitAsm(line);
    std::vector<std::pair<std::string, AsmLine>> edits;
    for (size_t k = 0; k < a.ops.size(); ++k)
      for (auto& [kind, tok] : TokenEdits(a.ops[k])) {
        AsmLine b = a;
        b.ops[k] = tok;
        edits.push_back({kind, b});
      }
    // Memory offsets.
    std::vector<std::string> mods = absl::StrSplit(a.mods, ' ', absl::SkipEmpty());
    // The offset modifiers with `key` moved by `delta` (llvm-mc wants
    // offset0 before offset1, and offset: last).
    auto with_mod = [&](const std::string& key, int64_t delta, const char* kind) {
      AsmLine b = a;
      std::map<std::string, int64_t> offs;
      std::vector<std::string> others;
      for (const std::string& m : mods) {
        int64_t v = 0;
        const size_t c = m.find(':');
        if (c != std::string::npos && absl::StartsWith(m, "offset") && absl::SimpleAtoi(m.substr(c + 1), &v))
          offs[m.substr(0, c)] = v;
        else
          others.push_back(m);
      }
      offs[key] += delta;
      if (offs[key] < 0) return;
      for (const char* k : {"offset", "offset0", "offset1"})
        if (offs.count(k) && offs[k] != 0) others.push_back(absl::StrCat(k, ":", offs[k]));
      b.mods = others.empty() ? "" : absl::StrCat(" ", absl::StrJoin(others, " "));
      edits.push_back({kind, b});
    };
    if (mem) {
      if (MemoryShape(in.mi.opc).addrs == 2) {
        for (int d : {-1, 1}) with_mod("offset0", d, "ds offset0");
        for (int d : {-1, 1}) with_mod("offset1", d, "ds offset1");
      } else {
        for (int d : {-4, 4}) with_mod("offset", d, "offset");
      }
    }
    for (auto& [kind, b] : edits) {
      // Exactly one source (or address) operand, or the offset fields, changed.
      const std::string text = std::string(absl::StripAsciiWhitespace(b.Text()));
      absl::StatusOr<emu::Inst> parsed = emu::ParseInstruction(text, t);
      if (parsed.ok()) {
        const MInst& x = in.mi;
        const MInst& y = parsed->mi;
        if (x.opc != y.opc || x.ops.size() != y.ops.size()) continue;
        std::vector<int> changed;
        for (size_t k = 0; k < x.ops.size(); ++k) {
          const MOperand &p = x.ops[k], &q = y.ops[k];
          if (p.kind != q.kind || p.reg != q.reg || p.count != q.count || p.cls != q.cls || p.imm != q.imm)
            changed.push_back(static_cast<int>(k));
        }
        const bool offsets = x.offset != y.offset || x.offset0 != y.offset0 || x.offset1 != y.offset1;
        if (changed.size() + (offsets ? 1 : 0) != 1) continue;
        if (!changed.empty()) {
          const int k = changed[0];
          if (x.IsDef(k)) continue;
          if (mem) {
            bool address = false;
            for (OpName n : kAddressOperands) address |= NamedOperandIdx(x.opc, n) == k;
            if (!address) continue;
          }
        }
      }
      // (An edit the reader refuses is kept: it is counted as invalid.)
      Mutant m;
      m.kind = kind;
      m.line = in.line;
      m.before = absl::StrCat("line ", in.line, " ", std::string(absl::StripAsciiWhitespace(line)));
      m.edited = text;
      std::vector<std::string> l2 = lines;
      l2[in.line - 1] = b.Text();
      m.code = absl::StrJoin(l2, "\n");
      out.push_back(std::move(m));
    }
  }
  return out;
}
// ============================================================================
// Disagreements between the oracle and the verifier, each explained.
// ============================================================================

// The KIR op each instruction (each DS address) proved against.
std::map<std::pair<int, int>, int> Matches(const VerifyResult& v) {
  std::map<std::pair<int, int>, int> m;
  for (const AccessVerdict& a : v.accesses)
    if (a.inst_id >= 0 && a.status == Status::kProved) m[{a.inst_id, a.component}] = a.kir_op;
  return m;
}

// Harmful mutants the verifier fails by COVERAGE only. The mutated
// instruction performs ANOTHER KIR access exactly: one load's address
// register or pointer SGPRs replaced by the other load's (add_f16's x by y,
// an MFMA kernel's A by B), so it loads the other input at the same indices.
// Without an access map that is a legitimate match (a load may stand in for
// a repeated load of the same buffer, indices and element), so every
// instruction proves, and the verdict is the failed "(coverage)" entry of the
// op no instruction performs any more ("element 0 is loaded by no instruction
// of the code"): failed, but with no instruction, thread or address named.
// Asserted here exactly so: every instruction proved, one of them against
// another op than in the unmutated code, and a coverage failure.
bool KilledByCoverageOnly(const VerifyResult& orig, const VerifyResult& v, std::string* why) {
  bool coverage = false;
  for (const AccessVerdict& a : v.accesses) {
    if (a.inst_id >= 0 && a.status != Status::kProved) return false;
    if (a.inst_id < 0 && a.status == Status::kFailed &&
        (absl::StrContains(a.reason, "by no instruction of the code") ||
         absl::StrContains(a.counterexample, "by no instruction of the code")))
      coverage = true;
  }
  if (!coverage) return false;
  const std::map<std::pair<int, int>, int> before = Matches(orig), after = Matches(v);
  for (const auto& [inst, op] : after) {
    auto it = before.find(inst);
    if (it != before.end() && it->second != op) {
      *why = absl::StrCat("[", inst.first, "] matched op ", it->second, ", now op ", op);
      return true;
    }
  }
  return false;
}

// Harmless mutants the verifier fails: an SRD num_records raised past the
// buffer (kirc's `s_mov_b32 sN, BYTES` of the SRD's dword 2). Every address
// of this code stays right (the only obligation violated is the SRD's), and
// no access of this code reaches the bytes the SRD now grants past the
// buffer, for any launch: the oracle cannot show it. The verifier's SRD
// obligation (num_records <= the argument's size, verify/README.md) is
// stricter than this code's behaviour on purpose: the range check is what
// drops an out-of-shape element of a guarded access, and what would keep a
// wrong address elsewhere inside the buffer. Asserted exactly so: an
// s_mov_b32 literal made larger, and every failed instruction violates
// "SRD num_records <= the size of" and nothing else.
bool NumRecordsPastTheBuffer(const Subject& s, const Mutant& m, const std::string& after, const VerifyResult& v,
                             std::string* why) {
  if (s.object || m.kind != "literal" || !absl::StartsWith(after, "s_mov_b32 ")) return false;
  uint64_t was = 0, now = 0;
  if (!absl::SimpleHexAtoi(m.before.substr(m.before.rfind("0x") + 2), &was) ||
      !absl::SimpleHexAtoi(after.substr(after.rfind("0x") + 2), &now) || now <= was)
    return false;
  int instructions = 0;
  for (const AccessVerdict& a : v.accesses) {
    if (a.status == Status::kUnknown) return false;
    if (a.status != Status::kFailed || a.inst_id < 0) continue;
    ++instructions;
    std::vector<std::string> violated;
    for (absl::string_view l : absl::StrSplit(a.counterexample, '\n'))
      if (absl::StrContains(l, "violated: ")) violated.push_back(std::string(absl::StripAsciiWhitespace(l)));
    if (violated.size() != 1 || !absl::StartsWith(violated[0], "violated: SRD num_records <= the size of"))
      return false;
    *why = violated[0];
  }
  return instructions > 0;
}

// A coverage failure confirmed by running the code (the instructions that
// might have performed the access are unknown to the symbolic lane, e.g.
// for a loop register that is no induction variable): an element of a KIR
// access that no instruction of the code touches for a named thread, with
// its byte address.
const AccessVerdict* RunCoverageCounterexample(const VerifyResult& v) {
  for (const AccessVerdict& a : v.accesses) {
    const std::string& c = a.counterexample;
    if (a.status == Status::kFailed && a.inst_id < 0 && absl::StrContains(c, "found by running the code concretely") &&
        absl::StrContains(c, "tid = (") && absl::StrContains(c, "wg = (") && absl::StrContains(c, ", lane ") &&
        absl::StrContains(c, "(byte address ") && absl::StrContains(c, "by no instruction of the code"))
      return &a;
  }
  return nullptr;
}

// ============================================================================
// The test.
// ============================================================================

struct Tally {
  int mutants = 0, invalid = 0, harmful = 0, killed = 0, harmless = 0, proved = 0;
  int killed_by_coverage = 0;  // harmful, failed by coverage only (KilledByCoverageOnly)
  int num_records = 0;         // harmless, failed (NumRecordsPastTheBuffer)
  int killed_by_run_coverage = 0;  // harmful, killed by a coverage failure found by running the code
  int other_placement = 0;     // harmful only with buffers placed elsewhere
  int stopped_early = 0;       // harmful, killed by a verification stopped at its first failure
  int full_reruns = 0;         // harmful, whose first failure had no full counterexample: verified again in full
  double emu_seconds = 0, verify_seconds = 0;
  void Add(const Tally& t) {
    mutants += t.mutants, invalid += t.invalid, harmful += t.harmful, killed += t.killed;
    harmless += t.harmless, proved += t.proved, killed_by_coverage += t.killed_by_coverage;
    num_records += t.num_records, other_placement += t.other_placement, killed_by_run_coverage += t.killed_by_run_coverage;
    stopped_early += t.stopped_early, full_reruns += t.full_reruns;
    emu_seconds += t.emu_seconds, verify_seconds += t.verify_seconds;
  }
};

// Per subject, over the parts of it that ran (the summary table).
std::map<std::string, Tally>& Tallies() {
  static std::map<std::string, Tally> t;
  return t;
}
int& PartsRun() {
  static int n = 0;
  return n;
}

bool SameBuffers(const RunResult& a, const std::map<std::string, std::vector<uint8_t>>& ref, std::string* diff) {
  for (const auto& [name, bytes] : ref) {
    auto it = a.buffers.find(name);
    if (it == a.buffers.end() || it->second.size() != bytes.size()) {
      *diff = absl::StrCat(name, ": missing");
      return false;
    }
    for (size_t i = 0; i < bytes.size(); ++i)
      if (it->second[i] != bytes[i]) {
        *diff = absl::StrCat(name, " byte ", i, ": ", static_cast<int>(it->second[i]), " != reference ",
                             static_cast<int>(bytes[i]));
        return false;
      }
  }
  return true;
}

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Mutants `part`, `part + parts`, ... of subject `s`.
void RunSubject(const Subject& s, int part, int parts) {
  ++PartsRun();
  absl::StatusOr<TargetId> id = ParseTargetId(s.mcpu);
  ASSERT_TRUE(id.ok()) << id.status();
  const TargetInfo& t = *id->target;

  // The reference: once per subject.
  const Inputs inputs = MakeInputs(s.twin);
  InterpArgs ia;
  ia.buffers = inputs.buffers;
  ia.scalars = inputs.scalars;
  absl::Status st = Interpret(s.twin, ia);
  ASSERT_TRUE(st.ok()) << s.label << ": " << st;
  const std::map<std::string, std::vector<uint8_t>> ref = ia.buffers;

  // The unmutated code: equal to the reference in the emulator at every
  // placement, and proved.
  auto load = [&](const std::string& code) -> absl::StatusOr<std::shared_ptr<const emu::LoadedKernel>> {
    if (s.object) return emu::LoadCodeObject(kLlvmBin, code, s.twin.name, s.mcpu);
    absl::StatusOr<std::string> obj = AssembleToObject(kLlvmBin, code, s.mcpu);
    if (!obj.ok()) return obj.status();
    return emu::LoadAssembly(code, s.mcpu);
  };
  absl::StatusOr<std::shared_ptr<const emu::LoadedKernel>> orig = load(s.code);
  ASSERT_TRUE(orig.ok()) << s.label << ": " << orig.status();
  for (int p = 0; p < kPlacements; ++p) {
    RunResult r = Emulate(**orig, s.twin, inputs, emu::kDefaultMaxInstructions, p);
    ASSERT_TRUE(r.error.empty()) << s.label << ": " << r.error;
    std::string diff;
    ASSERT_TRUE(SameBuffers(r, ref, &diff)) << s.label << ": the unmutated code differs from the reference: " << diff;
  }
  absl::StatusOr<VerifyResult> ov = VerifyCode(s, s.code);
  ASSERT_TRUE(ov.ok()) << ov.status();
  ASSERT_TRUE(ov->all_proved) << s.label << "\n" << ov->Report();

  const emu::Program& prog = emu::ProgramOf(**orig);
  std::string error;
  std::vector<Mutant> all = s.object ? ObjectMutants(s, prog, &error) : TextMutants(s, prog, t);
  ASSERT_TRUE(error.empty()) << error;

  Tally tally;
  for (size_t mi = part; mi < all.size(); mi += parts) {
    const Mutant& m = all[mi];
    ++tally.mutants;
    absl::StatusOr<std::shared_ptr<const emu::LoadedKernel>> lk = load(m.code);
    std::string after = m.edited;
    if (lk.ok() && s.object) {
      after.clear();
      for (const emu::Inst& in : emu::ProgramOf(**lk).insts)
        if (in.addr == m.addr) after = in.text;
    }
    if (!lk.ok() || after.empty()) {
      ++tally.invalid;
      std::printf("  invalid   %-15s %s: %s\n", m.kind.c_str(), m.before.c_str(),
                  lk.ok() ? "no instruction at the address" : std::string(lk.status().message()).substr(0, 160).c_str());
      continue;
    }
    if (absl::EndsWith(m.before, " " + after)) {  // another encoding of the same instruction
      ++tally.invalid;
      std::printf("  invalid   %-15s %s: decodes to the same instruction\n", m.kind.c_str(), m.before.c_str());
      continue;
    }
    // The oracle: the default placement, then the others while no harm shows.
    auto t0 = std::chrono::steady_clock::now();
    RunResult r;
    std::string diff;
    bool harmful = false;
    int placement = 0;
    for (; placement < kPlacements && !harmful; ++placement) {
      r = Emulate(**lk, s.twin, inputs, 20'000'000, placement);
      harmful = !r.error.empty() || !SameBuffers(r, ref, &diff);
    }
    --placement;
    std::string evidence = r.error.empty() ? diff : "emulator: " + r.error.substr(0, 160);
    if (harmful && placement != kDefaultPlacement) {
      ++tally.other_placement;
      evidence = absl::StrCat("with buffers at ",
                              absl::StrJoin(Placement(placement, 2), ", ",
                                            [](std::string* o, uint64_t a) { absl::StrAppend(o, "0x", absl::Hex(a)); }),
                              ", ...: ", evidence);
    }
    tally.emu_seconds += Since(t0);
    // The verifier. A harmful mutant is first verified up to its first failed
    // instruction (VerifyOptions::stop_at_first_failure: those verdicts are
    // the full run's); when that one has no full counterexample, or nothing
    // failed, the full run decides (coverage, unknowns), as for a harmless one.
    t0 = std::chrono::steady_clock::now();
    absl::StatusOr<VerifyResult> v = VerifyCode(s, m.code, /*stop_at_first_failure=*/harmful);
    if (v.ok() && v->stopped_early && FullCounterexample(*v) == nullptr) {
      ++tally.full_reruns;
      v = VerifyCode(s, m.code);
    }
    if (v.ok() && v->stopped_early) ++tally.stopped_early;
    const double vs = Since(t0);
    tally.verify_seconds += vs;
    const std::string what = absl::StrCat(s.label, " ", m.kind, " mutant ", m.before, "  ->  ", after);
    if (!v.ok()) {
      ADD_FAILURE() << what << ": the verifier returned an error: " << v.status();
      continue;
    }
    const int failed = CountStatus(*v, Status::kFailed), unknown = CountStatus(*v, Status::kUnknown);
    const char* verdict = failed ? "FAILED" : unknown ? "unknown" : "proved";
    std::string note;
    if (harmful) {
      ++tally.harmful;
      std::string why;
      if (const AccessVerdict* ce = FullCounterexample(*v); ce != nullptr) {
        ++tally.killed;
        note = absl::StrCat("  [", ce->inst_id, "]");
      } else if (KilledByCoverageOnly(*ov, *v, &why)) {
        ++tally.killed;
        ++tally.killed_by_coverage;
        note = absl::StrCat("  (coverage only: ", why, ")");
      } else if (const AccessVerdict* rc = RunCoverageCounterexample(*v); rc != nullptr) {
        ++tally.killed;
        ++tally.killed_by_run_coverage;
        note = absl::StrCat("  (coverage, found by running the code: op ", rc->kir_op, ")");
      } else {
        ADD_FAILURE() << what << " is harmful (" << evidence << ") but the verifier says " << verdict
                      << (failed ? " without a confirmed counterexample naming the instruction, thread, workgroup and "
                                   "both addresses"
                                 : "")
                      << ":\n" << v->Report();
      }
    } else {
      ++tally.harmless;
      std::string why;
      if (v->all_proved) {
        ++tally.proved;
      } else if (NumRecordsPastTheBuffer(s, m, after, *v, &why)) {
        ++tally.num_records;
        note = absl::StrCat("  (", why, ")");
      } else {
        ADD_FAILURE() << what << " is harmless (every output equals the reference at every placement) but the "
                      << "verifier says " << verdict << ":\n" << v->Report();
      }
    }
    std::printf("  %-9s %-15s %-7s %s  ->  %s%s  %.3fs\n", harmful ? "harmful" : "harmless", m.kind.c_str(), verdict,
                m.before.c_str(), after.c_str(), note.c_str(), vs);
    if (harmful) std::printf("      (%s)\n", evidence.c_str());
  }
  std::printf("%s part %d of %d: %d mutants, %d invalid, %d harmful (%d killed, %d by coverage only, %d shown only "
              "at another placement), %d harmless (%d proved, %d with num_records past the buffer); verified to the "
              "first failure %d, again in full %d; emulator %.1f s, verifier %.1f s\n",
              s.label.c_str(), part + 1, parts, tally.mutants, tally.invalid, tally.harmful, tally.killed,
              tally.killed_by_coverage, tally.other_placement, tally.harmless, tally.proved, tally.num_records,
              tally.stopped_early, tally.full_reruns, tally.emu_seconds, tally.verify_seconds);
  Tallies()[s.label].Add(tally);
  EXPECT_EQ(tally.killed, tally.harmful) << s.label;
  EXPECT_EQ(tally.proved + tally.num_records, tally.harmless) << s.label;
  EXPECT_GT(tally.harmful, 0) << s.label;
}

Kernel Twin(const std::string& name) { return ::kir::testing::TestdataKernel(name); }

// The twins of testdata/foreign's kernels (as in load_test): clang's
// `if (i < 1000)` guard, HIP's blockDim.x read from the hidden argument
// hidden_group_size_x (launched with 128-thread workgroups), and the SDWA
// byte select of `(t + 1) & 255` (as in foreign_test).
Kernel ForeignTwin(const std::string& name) {
  const char* text =
      name == "byte_index_f32"
          ? "kernel byte_index_f32\nworkgroup 256 1 1\ngrid 4 1 1\n"
            "arg src : f32[1024] strides [1] readonly\narg dst : f32[1024] strides [1] writeonly\n"
            "  %v = load src[wg.x * 256 + (tid.x + 1) mod 256] : f32\n"
            "  store dst[wg.x * 256 + tid.x], %v\nend\n"
      : name == "guard_f32"
          ? "kernel guard_f32\nworkgroup 256 1 1\ngrid 4 1 1\n"
            "arg src : f32[1000] strides [1] readonly\narg dst : f32[1000] strides [1] writeonly\n"
            "  %v = load guarded src[wg.x * 256 + tid.x] : f32\n"
            "  %t = const f32 2.0\n  %w = mul %v, %t\n"
            "  store guarded dst[wg.x * 256 + tid.x], %w\nend\n"
          : "kernel blockdim_f32\nworkgroup 128 1 1\ngrid 8 1 1\n"
            "arg src : f32[1024] strides [1] readonly\narg dst : f32[1024] strides [1] writeonly\n"
            "  %v = load src[wg.x * 128 + tid.x] : f32\n  %t = const f32 1.0\n"
            "  %w = add %v, %t\n  store dst[wg.x * 128 + tid.x], %w\nend\n";
  absl::StatusOr<Kernel> k = ParseKernel(text, name + ".kir");
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *k : Kernel{};
}

// clang-22's code object: testdata/baselines (twin: testdata/kernels) or
// testdata/foreign (twin: ForeignTwin).
Subject Clang(const std::string& name, const std::string& mcpu, bool foreign) {
  Subject s;
  s.label = absl::StrCat("clang ", name, " ", mcpu);
  s.twin = foreign ? ForeignTwin(name) : Twin(name);
  s.mcpu = mcpu;
  s.object = true;
  absl::StatusOr<std::string> b =
      ReadFileBytes(absl::StrCat("testdata/", foreign ? "foreign/" : "baselines/", name, ".", mcpu, ".hsaco"));
  EXPECT_TRUE(b.ok()) << b.status();
  if (b.ok()) s.code = *b;
  return s;
}

Subject Kirc(const std::string& name, const std::string& mcpu) {
  Subject s;
  s.label = absl::StrCat("kirc ", name, " ", mcpu);
  s.twin = Twin(name);
  s.mcpu = mcpu;
  s.object = false;
  CompileOptions o;
  o.mcpu = mcpu;
  absl::StatusOr<CompileResult> r = Compile(s.twin, o);
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok()) s.code = r->assembly;
  return s;
}

// Subjects: kernel, target, and clang's code object (testdata/baselines or
// testdata/foreign) or kirc's assembly.
enum class Source { kBaseline, kForeign, kKirc };
struct Case {
  const char* kernel;
  const char* mcpu;
  Source source;
};
constexpr Source kB = Source::kBaseline, kF = Source::kForeign, kK = Source::kKirc;
constexpr Case kCases[] = {
    {"copy_f32", "gfx908", kB},          {"copy_f32", "gfx90a", kB},
    {"copy_f32", "gfx942", kB},          {"add_f16", "gfx908", kB},
    {"add_f16", "gfx90a", kB},           {"add_f16", "gfx942", kB},
    {"mma_16x16x16_f16", "gfx908", kB},  {"mma_16x16x16_f16", "gfx90a", kB},
    {"mma_16x16x16_f16", "gfx942", kB},  {"mma_16x16x16_bf16", "gfx90a", kB},
    {"mma_16x16x16_bf16", "gfx942", kB}, {"mma_32x32x8_f16", "gfx908", kB},
    {"mma_32x32x8_f16", "gfx90a", kB},   {"mma_32x32x8_f16", "gfx942", kB},
    {"guard_f32", "gfx90a", kF},         {"guard_f32", "gfx942", kF},
    {"blockdim_f32", "gfx90a", kF},      {"blockdim_f32", "gfx942", kF},
    {"byte_index_f32", "gfx90a", kF},    {"byte_index_f32", "gfx942", kF},
    {"copy_f32", "gfx942", kK},          {"add_f16", "gfx90a", kK},
    {"mma_16x16x16_f16", "gfx908", kK},  {"mma_loop_32x32x64_f16", "gfx942", kK},
};

// Every subject is split into kParts interleaved parts, listed subject by
// subject, so that test i is part i % kParts and gtest's sharding (test i on
// shard i % shard_count) gives each of BUILD's kParts shards part p of every
// subject: equal shares (the verifier takes about 0.2 s per mutant of an MFMA
// kernel, 0.01 s of a copy).
constexpr int kParts = 4;  // = shard_count in BUILD

struct Param {
  Case c;
  int part;
};
std::vector<Param> Params() {
  std::vector<Param> v;
  for (const Case& c : kCases)
    for (int p = 0; p < kParts; ++p) v.push_back({c, p});
  return v;
}

std::string ParamName(const ::testing::TestParamInfo<Param>& i) {
  return absl::StrCat(i.param.c.source == Source::kKirc ? "kirc_" : "clang_", i.param.c.kernel, "_", i.param.c.mcpu,
                      "_part", i.param.part + 1);
}

class ObjectMutation : public ::testing::TestWithParam<Param> {};
TEST_P(ObjectMutation, HarmfulFailHarmlessProve) {
  const Case& c = GetParam().c;
  RunSubject(c.source == Source::kKirc ? Kirc(c.kernel, c.mcpu) : Clang(c.kernel, c.mcpu, c.source == Source::kForeign),
             GetParam().part, kParts);
}
INSTANTIATE_TEST_SUITE_P(Subjects, ObjectMutation, ::testing::ValuesIn(Params()), ParamName);

// kirc's mma_loop (s) with the loop update text `from` replaced by `to`;
// false if the code lacks `from`.
bool EditLoopUpdate(Subject& s, const std::string& from, const std::string& to) {
  const size_t at = s.code.find(from);
  if (at == std::string::npos) return false;
  s.code.replace(at, from.size(), to);
  return true;
}

// kirc's mma_loop soffset update rewritten to s1 = s0 << 5 after the
// counter's increment (instead of s1 += 32): s1 is no induction register but
// is derived from one (s0 = it + 1 at the end of iteration it), so at the
// header of iteration it >= 1 it is it << 5, and 0 (its entry value) at
// it = 0: every access proves.
TEST(Loops, ARegisterDerivedFromTheCounterProves) {
  Subject s = Kirc("mma_loop_32x32x64_f16", "gfx942");
  ASSERT_TRUE(EditLoopUpdate(s, "  s_add_u32 s1, s1, 32\n  s_add_u32 s0, s0, 1\n",
                             "  s_add_u32 s0, s0, 1\n  s_lshl_b32 s1, s0, 5\n"))
      << s.code;
  absl::StatusOr<VerifyResult> v = VerifyCode(s, s.code);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->all_proved) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "derived from induction registers")) << v->Report();
  // Shifted by 4 instead (s1 = 16 * it): the loads of iterations >= 1 read
  // the wrong columns.
  s.code.replace(s.code.find("s_lshl_b32 s1, s0, 5"), 20, "s_lshl_b32 s1, s0, 4");
  v = VerifyCode(s, s.code);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_GT(CountStatus(*v, Status::kFailed), 0) << v->Report();
  EXPECT_TRUE(absl::StrContains(v->Report(), "counterexample")) << v->Report();
}

// The verifier's coverage check with undecided instructions: kirc's
// mma_loop soffset update rewritten to an equivalent form the loop analysis
// does not recognise (s1 = (s1 + 32) & 0xffff: s1 stays below 128, so the
// mask changes nothing, but the end value is no entry + step and depends on
// s1 itself) runs bit for bit as the reference, and the verifier leaves the
// two loads that use s1 unknown (running the code finds no stray byte); the
// coverage of their KIR loads is then unknown too, never failed (it was
// "failed: the code does not perform this KIR access", a false alarm).
TEST(Coverage, UndecidedWhenAnUnknownInstructionMayPerformTheAccess) {
  Subject s = Kirc("mma_loop_32x32x64_f16", "gfx942");
  ASSERT_TRUE(EditLoopUpdate(s, "  s_add_u32 s1, s1, 32\n", "  s_add_u32 s1, s1, 32\n  s_and_b32 s1, s1, 0xffff\n"))
      << s.code;
  const Inputs inputs = MakeInputs(s.twin);
  InterpArgs ia;
  ia.buffers = inputs.buffers;
  ia.scalars = inputs.scalars;
  ASSERT_TRUE(Interpret(s.twin, ia).ok());
  absl::StatusOr<std::shared_ptr<const emu::LoadedKernel>> lk = emu::LoadAssembly(s.code, s.mcpu);
  ASSERT_TRUE(lk.ok()) << lk.status();
  for (int p = 0; p < kPlacements; ++p) {
    RunResult r = Emulate(**lk, s.twin, inputs, emu::kDefaultMaxInstructions, p);
    std::string diff;
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(SameBuffers(r, ia.buffers, &diff)) << diff;
  }
  absl::StatusOr<VerifyResult> v = VerifyCode(s, s.code);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(CountStatus(*v, Status::kFailed), 0) << v->Report();
  int coverage = 0;
  for (const AccessVerdict& a : v->accesses)
    if (a.inst_id < 0 && a.status == Status::kUnknown) {
      ++coverage;
      EXPECT_TRUE(absl::StrContains(a.reason, "(unknown) may perform it")) << v->Report();
    }
  EXPECT_EQ(coverage, 2) << v->Report();
}

// The loop register made wrong in a form the loop analysis cannot follow:
// `s_add_u32 s1, s1, 32; s_or_b32 s1, s1, 1` gives s1 = 0, 33, 65, 97 in
// iterations 0..3 (its end value depends on itself and is no entry + step),
// so in iteration 1 thread 0 (voffset 0) loads the dword at A + 33. Its KIR
// loads of A are the f16x2 elements A[0, %k] at bytes 2 * %k .. 2 * %k + 3
// for %k = 0, 16, 32, 48: bytes 0..3, 32..35, 64..67, 96..99. Byte 36 is
// none of them: the verifier, which havocks s1, fails the load by running
// the code, naming that iteration, the thread and both bytes. (s1: the
// loads' soffset, found by role with verify/test_roles.h like the MFMA's
// accumulator registers, which the loop analysis also has no invariant
// for: no register names are assumed.)
TEST(RunRefutation, ALoopRegisterThatIsNoInductionVariable) {
  Subject s = Kirc("mma_loop_32x32x64_f16", "gfx942");
  CompileOptions o;
  o.mcpu = "gfx942";
  absl::StatusOr<CompileResult> r = Compile(s.twin, o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->assembly, s.code);
  const MFunction& f = r->lowered.mir;
  absl::StatusOr<size_t> load = vfy::testing::FindInst(f, "buffer_load");
  ASSERT_TRUE(load.ok()) << load.status();
  absl::StatusOr<std::string> soff = vfy::testing::RegName(f.insts[*load], OpName::kSoffset);
  ASSERT_TRUE(soff.ok()) << soff.status();
  absl::StatusOr<size_t> mfma = vfy::testing::FindInst(f, "v_mfma");
  ASSERT_TRUE(mfma.ok()) << mfma.status();
  absl::StatusOr<std::string> acc = vfy::testing::RegList(f.insts[*mfma], OpName::kVdst);
  ASSERT_TRUE(acc.ok()) << acc.status();
  const std::string update = absl::StrCat("  s_add_u32 ", *soff, ", ", *soff, ", 32\n");
  ASSERT_TRUE(EditLoopUpdate(s, update, absl::StrCat(update, "  s_or_b32 ", *soff, ", ", *soff, ", 1\n"))) << s.code;
  absl::StatusOr<VerifyResult> v = VerifyCode(s, s.code);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(absl::StrContains(v->Report(), absl::StrCat("no invariant for ", *acc, ", ", *soff))) << v->Report();
  int stray = 0;
  for (const AccessVerdict& a : v->accesses) {
    if (a.inst_id < 0 || a.status != Status::kFailed) continue;
    ++stray;
    EXPECT_TRUE(absl::StrContains(a.reason, "running the code")) << v->Report();
    EXPECT_TRUE(absl::StrContains(a.counterexample, "in iteration 1 of the loop")) << v->Report();
    EXPECT_TRUE(absl::StrContains(a.counterexample, "tid = (0, 0, 0), wg = (0, 0, 0) (wave 0, lane 0)")) << v->Report();
    const bool a_load = absl::StrContains(a.counterexample, "= A + 33 (4 bytes; byte ") &&
                        absl::StrContains(a.counterexample, " = A + 36 is loaded by no KIR load");
    const bool b_load = absl::StrContains(a.counterexample, "= B + 33 (4 bytes; byte ") &&
                        absl::StrContains(a.counterexample, " = B + 36 is loaded by no KIR load");
    EXPECT_TRUE(a_load || b_load) << v->Report();
  }
  EXPECT_EQ(stray, 2) << v->Report();  // the loads of A and of B
  EXPECT_EQ(CountStatus(*v, Status::kUnknown), 0) << v->Report();
}

// The summary table, and the total when every part ran (a filtered or
// sharded run prints its share).
class Summary : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("\n%-34s %7s %15s %9s %9s %9s %15s %8s %7s %8s\n", "subject", "mutants", "harmful killed",
                "coverage", "run cover", "elsewhere", "harmless proved", "records", "invalid", "seconds");
    Tally total;
    auto row = [](const std::string& label, const Tally& t) {
      std::printf("%-34s %7d %7d/%-7d %9d %9d %9d %7d/%-7d %8d %7d %8.1f\n", label.c_str(), t.mutants, t.killed,
                  t.harmful, t.killed_by_coverage, t.killed_by_run_coverage, t.other_placement, t.proved, t.harmless, t.num_records,
                  t.invalid, t.emu_seconds + t.verify_seconds);
    };
    for (const auto& [label, t] : Tallies()) {
      row(label, t);
      total.Add(t);
    }
    row("total", total);
    std::printf(
        "(coverage: harmful, killed by a coverage failure only; run cover: harmful, killed by a coverage failure\n"
        " found by running the code (the instructions that might perform the access unknown);\n"
        " elsewhere: harmful only with the buffers placed away\n"
        " from the emulator's default addresses; records: harmless, failed for an SRD num_records past the buffer;\n"
        " seconds: emulator + verifier; emulator %.1f s, verifier %.1f s)\n",
        total.emu_seconds, total.verify_seconds);
    // At least 50 harmful mutants in all: in a sharded run, each shard's
    // share of them (its parts are a fair sample of every subject).
    const int all = static_cast<int>(Params().size());
    EXPECT_GE(total.harmful * all, 50 * PartsRun()) << PartsRun() << " of " << all << " parts ran";
  }
};
const ::testing::Environment* const kSummary = ::testing::AddGlobalTestEnvironment(new Summary);

}  // namespace
}  // namespace kir
