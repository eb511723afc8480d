// Mutation testing of the verifier. Single mutations of the FINAL machine code
// of compiled kernels, applied in process so the access map still matches:
// change an immediate (shift amounts, magic numbers and their shifts, SRD
// num_records / base mask / data format, kernarg offsets, loop bounds, LDS
// offsets), swap the operands of a non-commutative instruction, replace an
// add by or / xor / sub (and unsigned ops by signed or 24-bit ones), drop an
// instruction, change a memory instruction's offset.
//
// Each mutant is classified WITHOUT the verifier by an independent concrete
// wave-level runner (oracle.h): harmful iff, for some argument-pointer
// setting, some memory instruction touches a different byte, is dropped or
// not, runs for other lanes, or uses an SRD that grants more than its buffer.
// Then: every harmful mutant must be reported FAILED (unknown does not count
// as killed), and no harmless mutant may be reported failed.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "verify/oracle.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

enum class Op { kImmediate, kSwap, kOpcode, kDrop, kOffset };
const char* OpName(Op o) {
  switch (o) {
    case Op::kImmediate: return "immediate";
    case Op::kSwap: return "swap";
    case Op::kOpcode: return "opcode";
    case Op::kDrop: return "drop";
    case Op::kOffset: return "offset";
  }
  return "?";
}

struct Mutant {
  Op op;
  std::string what;
  std::vector<MInst> insts;
};

bool IsMemory(Opc o) {
  InstClass c = Info(o).cls;
  return c == InstClass::kVmemLoad || c == InstClass::kVmemStore || c == InstClass::kDsRead ||
         c == InstClass::kDsWrite;
}

// Source operand pairs whose swap changes the result.
std::vector<std::pair<int, int>> SwapPairs(Opc o) {
  switch (o) {
    case Opc::kVSubU32: case Opc::kVSubrevU32: case Opc::kSSubU32: case Opc::kVLshlrevB32:
    case Opc::kVLshrrevB32: case Opc::kVAshrrevI32: case Opc::kSLshlB32: case Opc::kSLshrB32:
    case Opc::kSAshrI32: case Opc::kVCmpGtU32: case Opc::kVCndmaskB32: case Opc::kSCmpLtU32:
      return {{1, 2}};
    case Opc::kVLshlAddU32: case Opc::kVLshlOrB32: return {{1, 3}, {1, 2}};
    case Opc::kVMadU32U24: return {{2, 3}};
    case Opc::kVBfeU32: return {{2, 3}, {1, 2}};
    default: return {};
  }
}

// Opcode replacements: add by or/xor/sub, unsigned by signed, full by 24-bit multiplies.
std::vector<Opc> Replacements(Opc o) {
  switch (o) {
    case Opc::kVAddU32: return {Opc::kVOrB32, Opc::kVXorB32, Opc::kVSubU32};
    case Opc::kSAddU32: return {Opc::kSOrB32, Opc::kSXorB32, Opc::kSSubU32};
    case Opc::kSAddcU32: return {Opc::kSAddU32};  // the carry dropped
    case Opc::kSMulHiU32: return {Opc::kSMulHiI32};  // the high product's signedness
    case Opc::kSMulHiI32: return {Opc::kSMulHiU32};
    case Opc::kSMinU32: return {Opc::kSMaxU32};
    case Opc::kVLshlAddU32: return {Opc::kVLshlOrB32};
    case Opc::kVAdd3U32: return {Opc::kVOr3B32};
    case Opc::kVLshrrevB32: return {Opc::kVAshrrevI32};
    case Opc::kSLshrB32: return {Opc::kSAshrI32};
    case Opc::kVMulHiU32: return {Opc::kVMulHiI32};
    case Opc::kVMulLoU32: return {Opc::kVMulU32U24};
    case Opc::kVCmpGtU32: return {Opc::kVCmpGtI32};
    case Opc::kVMadU32U24: return {Opc::kVMadI32I24};
    case Opc::kSAndB32: return {Opc::kSOrB32};
    case Opc::kVAndB32: return {Opc::kVOrB32};
    default: return {};
  }
}

std::vector<Mutant> AllMutants(const TargetInfo& t, const std::vector<MInst>& insts) {
  std::vector<Mutant> out;
  auto add = [&](Op op, size_t i, std::vector<MInst> v, const std::string& how) {
    std::string before = InstructionText(t, insts[i]);
    std::string after = op == Op::kDrop ? std::string("(dropped)") : InstructionText(t, v[i]);
    out.push_back(Mutant{op, absl::StrCat("@", i, " ", before, "  ->  ", after, how.empty() ? "" : " ", how),
                         std::move(v)});
  };
  for (size_t i = 0; i < insts.size(); ++i) {
    const MInst& mi = insts[i];
    const InstClass cls = Info(mi.opc).cls;
    const bool mem = IsMemory(mi.opc);
    if (mi.opc == Opc::kLabel || mi.opc == Opc::kSNop || mi.opc == Opc::kSWaitcnt || mi.opc == Opc::kSBarrier ||
        mi.opc == Opc::kSEndpgm || (Info(mi.opc).flags & kBranch))
      continue;
    {  // drop (replaced by s_nop 0, which keeps instruction indices aligned)
      std::vector<MInst> w = insts;
      w[i] = MInst{};
      w[i].opc = Opc::kSNop;
      w[i].ops = {MOperand::Imm(0)};
      w[i].id = -1;
      add(Op::kDrop, i, w, "");
    }
    if (cls == InstClass::kMfma || cls == InstClass::kAccRead || cls == InstClass::kAccWrite) continue;
    for (size_t k = mi.NumDefs(); k < mi.ops.size(); ++k) {  // immediates
      const MOperand& o = mi.ops[k];
      if (o.kind != MOperand::Kind::kImm || o.float_form) continue;
      if (mem && k != 3) continue;  // buffer: soffset only (vaddr 0 is "no voffset")
      const int64_t x = o.imm;
      std::vector<int64_t> nv = {x + 1, x + 4};
      if (x > 0xffff || x < -0xffff) nv = {x + 1, x - 1};  // magic numbers, num_records, masks
      for (int64_t y : nv) {
        std::vector<MInst> v = insts;
        v[i].ops[k].imm = static_cast<int64_t>(static_cast<uint32_t>(y));
        if (y >= -16 && y < 0) v[i].ops[k].imm = y;
        add(Op::kImmediate, i, v, "");
      }
    }
    for (auto [a, b] : SwapPairs(mi.opc)) {  // swaps
      if (b >= static_cast<int>(mi.ops.size())) continue;
      std::vector<MInst> v = insts;
      std::swap(v[i].ops[a], v[i].ops[b]);
      add(Op::kSwap, i, v, "");
    }
    for (Opc r : Replacements(mi.opc)) {  // opcodes
      std::vector<MInst> v = insts;
      v[i].opc = r;
      add(Op::kOpcode, i, v, "");
    }
    if (mem) {  // instruction offsets
      for (int64_t d : {4, -4, 4096}) {
        if (mi.offset + d < 0) continue;
        std::vector<MInst> v = insts;
        v[i].offset += d;
        add(Op::kOffset, i, v, "");
      }
    }
  }
  return out;
}

// Up to `cap` mutants, taking the operators in turn so that each is represented.
std::vector<Mutant> Pick(std::vector<Mutant> all, size_t cap) {
  std::map<Op, std::vector<Mutant>> by;
  for (Mutant& m : all) by[m.op].push_back(std::move(m));
  std::vector<Mutant> out;
  std::map<Op, size_t> next;
  // Spread each operator's picks over the kernel: stride through its list.
  std::map<Op, size_t> stride;
  size_t per = std::max<size_t>(1, cap / std::max<size_t>(1, by.size()));
  for (auto& [op, v] : by) stride[op] = std::max<size_t>(1, v.size() / per);
  for (bool more = true; more && out.size() < cap;) {
    more = false;
    for (auto& [op, v] : by) {
      size_t& n = next[op];
      if (n >= v.size() || out.size() >= cap) continue;
      out.push_back(std::move(v[n]));
      n += stride[op];
      more = true;
    }
  }
  return out;
}

struct Tally {
  int mutants = 0, harmful = 0, killed = 0, harmless = 0, harmless_proved = 0, false_alarms = 0;
  int killed_by_search = 0;
};

void RunMutations(const std::string& name, const std::string& text, const std::string& mcpu, size_t cap,
                  Tally* total) {
  absl::StatusOr<Compiled> c = CompileKir(text, mcpu);
  ASSERT_TRUE(c.ok()) << c.status();
  const LoweredKernel& orig = c->result.lowered;
  const TargetInfo& t = *c->result.target;
  VerifyResult ov = Verify(*c);
  ASSERT_TRUE(ov.all_proved) << ov.Report();
  std::vector<Effects> base;
  for (int s = 0; s < kOracleSettings; ++s) {
    base.push_back(RunConcrete(c->kernel, t, orig, s));
    ASSERT_TRUE(base.back().error.empty()) << base.back().error;
  }
  int64_t base_wave_steps = 0;  // all waves' steps: a bound on any one wave's
  for (const Effects& e : base) base_wave_steps = std::max(base_wave_steps, e.steps);
  std::vector<Mutant> ms = Pick(AllMutants(t, orig.mir.insts), cap);
  Tally tally;
  for (const Mutant& m : ms) {
    LoweredKernel lk = orig;
    lk.mir.insts = m.insts;
    bool harmful = false;
    // A wave running far longer than the unmutated code's longest is a hang.
    for (int s = 0; s < kOracleSettings && !harmful; ++s)
      harmful = !(RunConcrete(c->kernel, t, lk, s, 4 * base_wave_steps + 10000) == base[s]);
    // A harmful mutant is verified up to its first failed instruction
    // (VerifyOptions::stop_at_first_failure: those verdicts are the full
    // run's, the same queries in the same order); when nothing fails the run
    // is a full one. A harmless mutant is verified in full.
    VerifyOptions vo;
    vo.stop_at_first_failure = harmful;
    VerifyResult v = Verify(*c, &lk, vo);
    int failed = CountStatus(v, AccessVerdict::Status::kFailed);
    int unknown = CountStatus(v, AccessVerdict::Status::kUnknown);
    ++tally.mutants;
    const char* verdict = failed ? "FAILED" : unknown ? "unknown" : "proved";
    std::string note;
    if (harmful) {
      ++tally.harmful;
      if (failed) {
        ++tally.killed;
        // Killed by a solver model (or the evaluation of every point of a
        // small domain, which decides the same query), or only by the
        // concrete search after the solver?
        bool by_model = false;
        std::string search_note;
        for (const AccessVerdict& a : v.accesses) {
          if (a.status != AccessVerdict::Status::kFailed) continue;
          if (a.counterexample.find("from the solver's model") != std::string::npos || a.points_checked > 0 ||
              a.counterexample.empty())
            by_model = true;
          else if (search_note.empty())
            search_note = a.counterexample.substr(0, a.counterexample.find('\n'));
        }
        if (!by_model) {
          ++tally.killed_by_search;
          note = absl::StrCat("    (killed by search: ", search_note, ")\n");
        }
      } else {
        ADD_FAILURE() << name << " " << OpName(m.op) << " mutant " << m.what
                      << " is harmful (the oracle sees different memory effects) but the verifier says " << verdict
                      << ":\n" << v.Report();
      }
    } else {
      ++tally.harmless;
      if (v.all_proved) ++tally.harmless_proved;
      if (failed) {
        ++tally.false_alarms;
        ADD_FAILURE() << name << " " << OpName(m.op) << " mutant " << m.what
                      << " changes no memory effect but the verifier reports a failure:\n" << v.Report();
      }
    }
    std::printf("  %-8s %-9s %-7s %s\n%s", harmful ? "harmful" : "harmless", OpName(m.op), verdict, m.what.c_str(),
                note.c_str());
  }
  std::printf("%s on %s: %d mutants, %d harmful, %d killed (%.1f%%; %d only by concrete search after the solver), "
              "%d harmless (%d proved, %d false alarms)\n",
              name.c_str(), mcpu.c_str(), tally.mutants, tally.harmful, tally.killed,
              tally.harmful ? 100.0 * tally.killed / tally.harmful : 100.0, tally.killed_by_search, tally.harmless,
              tally.harmless_proved, tally.false_alarms);
  EXPECT_EQ(tally.killed, tally.harmful) << name << ": kill rate below 100%";
  EXPECT_GE(tally.harmful, 10) << name;
  total->mutants += tally.mutants;
  total->harmful += tally.harmful;
  total->killed += tally.killed;
  total->harmless += tally.harmless;
  total->harmless_proved += tally.harmless_proved;
  total->false_alarms += tally.false_alarms;
}

// 64-bit addressing (issue 18): buffers of 2 GiB and more, grids small
// enough for the oracle. A window's SRD base is pointer + a 64-bit start
// (s_mul_i32 + s_mul_hi_u32/_i32, s_add_u32 + s_addc_u32), num_records the
// window, clamped at the buffer's end (s_sub/s_subb, s_min_u32, s_cselect),
// a start before the buffer clamped to it (the lanes' voffsets carry it).
constexpr char kWideHalo[] = R"(kernel wide_halo
workgroup 64 1 1
grid 4 1 1
arg src : f32[1610612736] strides [1] readonly
arg dst : f32[1610612736] strides [1] writeonly
  %a = load guarded src[wg.x * 402653184 + tid.x * 6291456 - 1] : f32
  %b = load guarded src[wg.x * 402653184 + tid.x * 6291456 + 6291456] : f32
  %c = add %a, %b
  store guarded dst[wg.x * 402653184 + tid.x * 6291456], %c
  store dst[wg.x * 402653184 + 402653120 + tid.x], %b
end
)";
constexpr char kWideRowsLoop[] = R"(kernel wide_rows_loop
workgroup 64 1 1
grid 2 1 1
arg A : f16[131072, 32768] strides [32768, 1] readonly
arg S : f32[8, 32768] strides [32768, 1] writeonly
  %z = zero f32x4
  %s = for %r = 0 to 131072 step 16384 iter(%c = %z) {
    %a = load A[%r + tid.x floordiv 8 * 2048, wg.x * 256 + tid.x mod 8 * 4] : f16x4
    %f = cvt %a : f32x4
    %d = add %c, %f
    yield %d
  }
  store S[tid.x floordiv 8, wg.x * 256 + tid.x mod 8 * 4], %s
end
)";

void Mutate(const std::string& name, const std::string& text, const std::string& mcpu, size_t cap) {
  Tally t;
  RunMutations(name, text, mcpu, cap, &t);
}

TEST(Mutation, CopyF32) { Mutate("copy_f32", ReadTestFile("testdata/kernels/copy_f32.kir"), "gfx942", 60); }
TEST(Mutation, AddF16) { Mutate("add_f16", ReadTestFile("testdata/kernels/add_f16.kir"), "gfx90a", 50); }
TEST(Mutation, Mma16OnGfx908) {
  Mutate("mma_16x16x16_f16", ReadTestFile("testdata/kernels/mma_16x16x16_f16.kir"), "gfx908", 50);
}
TEST(Mutation, MmaLoop) {
  Mutate("mma_loop_32x32x64_f16", ReadTestFile("testdata/kernels/mma_loop_32x32x64_f16.kir"), "gfx942", 50);
}
TEST(Mutation, GuardedAndMagicDivision) { Mutate("guard_div", kGuardDiv, "gfx942", 80); }
// Every mutant of the 64-bit address code (no cap): dropped carries,
// s_mul_hi_u32 <-> s_mul_hi_i32, num_records and clamp constants off.
TEST(Mutation, WideHalo) { Mutate("wide_halo", kWideHalo, "gfx942", 100000); }
TEST(Mutation, WideRowsLoop) { Mutate("wide_rows_loop", kWideRowsLoop, "gfx90a", 100000); }
TEST(Mutation, WideNegativeWindow) {
  Mutate("negwin_f32", ReadTestFile("testdata/wide/negwin_f32.kir"), "gfx942", 100000);
}
TEST(Mutation, WideSignedRows) {
  Mutate("signed_rows_f16", ReadTestFile("testdata/wide/signed_rows_f16.kir"), "gfx908", 100000);
}

}  // namespace
}  // namespace kir::vfy::testing
