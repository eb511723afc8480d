// Index expressions lowered to MIR and run, one lane at a time, through the
// shared instruction semantics (compiler/isa/semantics.h) for every tid and wg
// value of the kernel; each result must equal plain integer evaluation with
// floor semantics. Guards failure classes 2 (inexact division by a constant),
// 3 (floor vs truncating division of negative values) and 6 (shift amounts).
#include <map>
#include <string>
#include <vector>

#include "compiler/isa/semantics.h"
#include "compiler/lower/lower.h"
#include "compiler/analysis/magic_division.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

// Runs straight-line integer MIR for one lane. Virtual registers are the state.
class LaneRunner {
 public:
  explicit LaneRunner(const MFunction& f) : f_(f) {}
  void Set(int vreg, uint32_t v) { regs_[{vreg, 0}] = v; }
  uint32_t Get(int vreg) const { return regs_.at({vreg, 0}); }

  // Returns false (with a message) on an instruction the runner cannot model.
  bool Run(std::string* err) {
    U32Domain d;
    for (const MInst& mi : f_.insts) {
      std::vector<uint32_t> src;
      for (size_t i = mi.NumDefs(); i < mi.ops.size(); ++i) {
        const MOperand& o = mi.ops[i];
        if (o.kind == MOperand::Kind::kImm) {
          src.push_back(static_cast<uint32_t>(o.imm));
        } else if (o.IsReg()) {
          auto it = regs_.find({o.reg, o.sub});
          if (it == regs_.end()) {
            *err = "read of an undefined register in " + std::string(Info(mi.opc).mnemonic);
            return false;
          }
          src.push_back(it->second);
        } else {
          *err = "special register";
          return false;
        }
      }
      std::optional<uint32_t> r = EvalIntOp(d, mi.opc, src);
      if (!r) {
        *err = std::string("not an integer op: ") + Info(mi.opc).mnemonic;
        return false;
      }
      const MOperand& dst = mi.ops[0];
      regs_[{dst.reg, dst.sub}] = *r;
    }
    return true;
  }

 private:
  const MFunction& f_;
  std::map<std::pair<int, int>, uint32_t> regs_;
};

// Evaluates `e` by running its lowered code for every thread and workgroup.
void CheckExhaustively(const Kernel& k, const TargetInfo& t, const IndexRef& e) {
  absl::StatusOr<LoweredIndex> li = LowerIndexExpr(k, t, *e);
  ASSERT_TRUE(li.ok()) << li.status();
  IndexEnv env;
  env.named = [&k](const std::string& n) -> std::optional<int64_t> {
    const NamedConst* c = k.FindConst(n);
    return c ? std::optional<int64_t>(c->value) : std::nullopt;
  };
  int64_t checked = 0;
  for (int64_t wz = 0; wz < k.grid[2]; ++wz)
    for (int64_t wy = 0; wy < k.grid[1]; ++wy)
      for (int64_t wx = 0; wx < k.grid[0]; ++wx)
        for (int64_t tz = 0; tz < k.workgroup[2]; ++tz)
          for (int64_t ty = 0; ty < k.workgroup[1]; ++ty)
            for (int64_t tx = 0; tx < k.workgroup[0]; ++tx) {
              env.tid[0] = tx, env.tid[1] = ty, env.tid[2] = tz;
              env.wg[0] = wx, env.wg[1] = wy, env.wg[2] = wz;
              std::optional<int64_t> want = Evaluate(*e, env);
              ASSERT_TRUE(want.has_value());
              uint32_t got;
              if (li->kind == LoweredIndex::Kind::kConst) {
                got = static_cast<uint32_t>(li->constant);
              } else {
                LaneRunner lane(li->mir);
                if (t.packed_workitem_ids) {
                  lane.Set(li->workitem_vreg[0],
                           static_cast<uint32_t>(tx | (ty << 10) | (tz << 20)));
                } else {
                  for (int dd = 0; dd < 3; ++dd)
                    if (li->workitem_vreg[dd] >= 0)
                      lane.Set(li->workitem_vreg[dd], static_cast<uint32_t>(env.tid[dd]));
                }
                for (int dd = 0; dd < 3; ++dd)
                  if (li->wg_vreg[dd] >= 0) lane.Set(li->wg_vreg[dd], static_cast<uint32_t>(env.wg[dd]));
                std::string err;
                ASSERT_TRUE(lane.Run(&err)) << err;
                got = lane.Get(li->vreg);
              }
              ASSERT_EQ(static_cast<int32_t>(got), *want)
                  << IndexToString(*e) << " at tid (" << tx << "," << ty << "," << tz << ") wg (" << wx
                  << "," << wy << "," << wz << ") on " << t.name;
              ++checked;
            }
  EXPECT_EQ(checked, k.WorkgroupThreads() * k.grid[0] * k.grid[1] * k.grid[2]);
}

// A kernel whose body mentions every leaf, so that the ABI enables the
// workgroup-id SGPRs and work-item-id VGPRs the expressions need.
Kernel MakeKernel(std::array<int64_t, 3> wg, std::array<int64_t, 3> grid) {
  Kernel k;
  k.name = "idx";
  k.workgroup = wg;
  k.grid = grid;
  k.consts.push_back({"N", 7, {}});
  Arg a;
  a.name = "buf";
  a.elem = ElemType::kF32;
  a.shape = {1 << 20};
  a.strides = {1};
  k.args.push_back(a);
  Op op;
  op.kind = OpKind::kLoad;
  op.results = {"v"};
  op.mem = "buf";
  op.index = {IAdd(IAdd(IAdd(ITid(0), ITid(1)), ITid(2)), IAdd(IAdd(IWg(0), IWg(1)), IWg(2)))};
  op.along = 0;
  k.body.push_back(op);
  return k;
}

IndexRef C(int64_t v) { return IConst(v); }

TEST(IndexLowering, FloorDivAndModByNonPowersOfTwoIncludingNegativeDividends) {
  Kernel k = MakeKernel({256, 1, 1}, {40, 1, 1});
  // Dividends reach below zero: tid.x - 100 - 3*wg.x lies in [-217, 155].
  IndexRef x = ISub(ISub(ITid(0), C(100)), IMul(C(3), IWg(0)));
  for (const TargetInfo* t : AllTargets()) {
    for (int64_t d : {3, 5, 7, 10, 12, 100, 255, 641}) {
      CheckExhaustively(k, *t, IFloorDiv(x, C(d)));
      CheckExhaustively(k, *t, IMod(x, C(d)));
    }
    for (int64_t d : {2, 4, 64}) {  // powers of two: arithmetic shift / mask
      CheckExhaustively(k, *t, IFloorDiv(x, C(d)));
      CheckExhaustively(k, *t, IMod(x, C(d)));
    }
  }
}

TEST(IndexLowering, MixedTidWgExpressionsOverAThreeDimensionalGrid) {
  Kernel k = MakeKernel({16, 4, 2}, {3, 5, 2});
  IndexRef lin = IAdd(IAdd(ITid(0), IMul(ITid(1), C(16))), IMul(ITid(2), C(64)));
  std::vector<IndexRef> exprs = {
      IAdd(IMul(IWg(0), C(128)), lin),
      IMod(IAdd(lin, IMul(IWg(1), C(37))), C(24)),
      IFloorDiv(ISub(IMul(IWg(2), C(1000)), IMul(lin, C(9))), C(11)),
      IMul(IFloorDiv(lin, C(5)), IMod(IAdd(lin, IWg(0)), C(6))),
      IAdd(IMod(ISub(IWg(1), C(7)), C(3)), IMul(INamed("N"), ITid(1))),
      IFloorDiv(IMod(lin, C(13)), C(4)),
  };
  for (const TargetInfo* t : AllTargets())
    for (const IndexRef& e : exprs) CheckExhaustively(k, *t, e);
}

TEST(IndexLowering, LargeValuesUseTheFullMultiplierNotA24BitPath) {
  // Values beyond 2^24: a 24-bit multiply would be wrong here (failure class 2).
  Kernel k = MakeKernel({1024, 1, 1}, {64, 1, 1});
  IndexRef big = IAdd(IMul(IWg(0), C(2000003)), IMul(ITid(0), C(100003)));  // up to 2.3e8
  for (const TargetInfo* t : AllTargets()) {
    CheckExhaustively(k, *t, big);
    CheckExhaustively(k, *t, IFloorDiv(big, C(1000)));
    CheckExhaustively(k, *t, IMod(big, C(999)));
  }
}

// The dividend is computed modulo 2^32, so its value is exact in any window
// of 2^32 consecutive integers: kirc biases it by a multiple of the divisor
// into [0, 2^32) and divides there, past 2^31 and across it (issue 13,
// defect 9: such dividends were refused as leaving the signed range).
TEST(IndexLowering, DividendsPast2To31AndAcrossItAreExact) {
  Kernel k = MakeKernel({256, 1, 1}, {64, 1, 1});
  IndexRef huge = IAdd(IMul(IWg(0), C(20000003)), IMul(ITid(0), C(4000012)));  // 0 .. 2280003249
  IndexRef across = ISub(huge, C(100000000));                                    // -1e8 .. 2180003249
  // gfx908 (separate work-item id VGPRs) and gfx942 (packed ids).
  for (const TargetInfo* t : {AllTargets()[0], AllTargets()[2]}) {
    for (const IndexRef& x : {huge, across}) {
      CheckExhaustively(k, *t, IMod(x, C(1000)));       // a 32-bit magic multiplier for all of [0, 2^32)
      CheckExhaustively(k, *t, IFloorDiv(x, C(1000)));
      CheckExhaustively(k, *t, IMod(x, C(7)));          // 7's reaches 3435973836
      CheckExhaustively(k, *t, IFloorDiv(x, C(7)));
      CheckExhaustively(k, *t, IFloorDiv(x, C(1024)));  // a shift: logical, after the bias
      CheckExhaustively(k, *t, IMod(x, C(1024)));
    }
  }
}

TEST(IndexLowering, DividendTooWideToDivideIsAClearErrorAboutTheExpressionAsWritten) {
  Kernel k = MakeKernel({1024, 1, 1}, {64, 1, 1});
  // 999's 32-bit magic multiplier is exact up to 2274067482 (not for every
  // 32-bit value): [0, 2283003258] is too wide for it, whatever the bias.
  IndexRef huge = IAdd(IMul(IWg(0), C(20000003)), IMul(ITid(0), C(1000003)));
  absl::StatusOr<LoweredIndex> li = LowerIndexExpr(k, *AllTargets()[2], *IMod(huge, C(999)));
  ASSERT_FALSE(li.ok());
  EXPECT_EQ(std::string(li.status().message()),
            "the dividend 'wg.x * 20000003 + tid.x * 1000003' of '(wg.x * 20000003 + tid.x * 1000003) mod 999' "
            "ranges over [0, 2283003258] (2283003259 values); kirc's 32-bit division by 999 is exact for a "
            "dividend spanning at most 2274066485 consecutive values; narrow the index");
  // Beyond 2^32 values, for any divisor.
  IndexRef wider = IAdd(IMul(IWg(0), C(2000000003)), ITid(0));  // 0 .. 126000001212
  li = LowerIndexExpr(k, *AllTargets()[0], *IFloorDiv(wider, C(1024)));
  ASSERT_FALSE(li.ok());
  EXPECT_EQ(std::string(li.status().message()),
            "the dividend 'wg.x * 2000000003 + tid.x' of '(wg.x * 2000000003 + tid.x) floordiv 1024' ranges "
            "over [0, 126000001212] (126000001213 values); kirc's 32-bit division by 1024 is exact for a "
            "dividend spanning at most 4294966273 consecutive values; narrow the index");
}

TEST(MagicDivision, ErrorBoundIsExactAtTheEdge) {
  // d = 7 over the whole 32-bit range needs more than 32 bits (the "add" case).
  EXPECT_FALSE(FindMagicDivisor(7, (int64_t{1} << 32) - 1).ok());
  absl::StatusOr<MagicDivisor> m = FindMagicDivisor(7, (int64_t{1} << 31) - 1);
  ASSERT_TRUE(m.ok());
  for (uint64_t x : {0ull, 6ull, 7ull, 2147483646ull, 2147483647ull, 1234567891ull})
    EXPECT_EQ(((x * m->multiplier) >> 32) >> m->shift, x / 7) << x;
  // A pair exact on a small range is rejected once the range grows past its bound.
  absl::StatusOr<MagicDivisor> small = FindMagicDivisor(641, 1000);
  ASSERT_TRUE(small.ok());
  EXPECT_TRUE(MagicDivisorIsExact(641, 1000, *small));
  // The bound is tight: with e = m*d - 2^k, the first x >= 2^k / e whose
  // remainder is d-1 really divides wrongly, and every smaller x is exact.
  unsigned __int128 two_k = static_cast<unsigned __int128>(1) << (32 + small->shift);
  uint64_t e = static_cast<uint64_t>(static_cast<unsigned __int128>(small->multiplier) * 641 - two_k);
  ASSERT_GT(e, 0u);
  uint64_t x0 = static_cast<uint64_t>((two_k + e - 1) / e);
  uint64_t x = x0 + (640 - x0 % 641);
  auto q = [&](uint64_t v) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(v) * small->multiplier) >> (32 + small->shift));
  };
  EXPECT_NE(q(x), x / 641) << x;
  EXPECT_FALSE(MagicDivisorIsExact(641, static_cast<int64_t>(x), *small));
  EXPECT_TRUE(MagicDivisorIsExact(641, static_cast<int64_t>(x0 - 1), *small));
  for (uint64_t v = x0 > 100000 ? x0 - 100000 : 0; v < x0; ++v) ASSERT_EQ(q(v), v / 641) << v;
}

}  // namespace
}  // namespace kir
