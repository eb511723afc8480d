// The scheduler keeps every dependence and moves long-latency loads first.
#include "compiler/passes/schedule.h"

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/passes/regalloc.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

MOperand V(int r, int n = 1) { return MOperand::Virt(RegClass::kVgpr, r, 0, n); }
MOperand S(int r, int n = 1) { return MOperand::Virt(RegClass::kSgpr, r, 0, n); }
MOperand Imm(int64_t v) { return MOperand::Imm(v); }

struct Builder {
  MFunction f;
  int Add(Opc opc, std::vector<MOperand> ops) {
    MInst m;
    m.opc = opc;
    m.ops = std::move(ops);
    m.id = f.next_inst_id++;
    f.insts.push_back(std::move(m));
    return m.id;
  }
  std::string Order() {
    std::string s;
    for (const MInst& m : f.insts) s += (s.empty() ? "" : " ") + std::to_string(m.id);
    return s;
  }
};

const TargetInfo& T() { return **LookupTarget("gfx942"); }

TEST(Schedule, LoadsMoveAheadOfIndependentAlu) {
  Builder b;
  b.Add(Opc::kVAddU32, {V(1), V(2), V(3)});                                  // 0
  b.Add(Opc::kVAddU32, {V(4), V(1), V(3)});                                  // 1
  b.Add(Opc::kBufferLoadDword, {V(5), V(6), S(7, 4), Imm(0)});               // 2
  b.Add(Opc::kVAddU32, {V(8), V(5), V(4)});                                  // 3 uses both
  b.Add(Opc::kSEndpgm, {});                                                  // 4
  ASSERT_TRUE(ScheduleBlocks(T(), b.f).ok());
  EXPECT_EQ(b.Order(), "2 0 1 3 4");
}

TEST(Schedule, RegisterDependencesHold) {
  Builder b;
  b.Add(Opc::kBufferLoadDword, {V(1), V(6), S(7, 4), Imm(0)});  // 0 writes v1
  b.Add(Opc::kVAddU32, {V(2), V(1), V(3)});                     // 1 RAW on v1
  b.Add(Opc::kVMovB32, {V(1), Imm(0)});                         // 2 WAW/WAR on v1
  b.Add(Opc::kBufferLoadDword, {V(9), V(1), S(7, 4), Imm(0)});  // 3 RAW on the new v1
  b.Add(Opc::kSEndpgm, {});
  ASSERT_TRUE(ScheduleBlocks(T(), b.f).ok());
  EXPECT_EQ(b.Order(), "0 1 2 3 4");
}

TEST(Schedule, LdsOrderAndBarriersHold) {
  // Failure class 9: an LDS read must not pass the write or the barrier
  // that publishes it, and a write must not pass an earlier read.
  Builder b;
  b.Add(Opc::kDsReadB32, {V(1), V(10)});            // 0 read
  b.Add(Opc::kDsWriteB32, {V(11), V(2)});           // 1 write (WAR in memory)
  b.Add(Opc::kSBarrier, {});                        // 2
  b.Add(Opc::kDsReadB32, {V(3), V(12)});            // 3 read after the barrier
  b.Add(Opc::kBufferLoadDword, {V(4), V(6), S(7, 4), Imm(0)});  // 4 global load: may not pass the barrier
  b.Add(Opc::kVAddU32, {V(5), V(3), V(4)});         // 5
  b.Add(Opc::kSEndpgm, {});
  ASSERT_TRUE(ScheduleBlocks(T(), b.f).ok());
  EXPECT_EQ(b.Order(), "0 1 2 4 3 5 6");
}

TEST(Schedule, SccAndBranchStayInOrderAtTheEnd) {
  Builder b;
  b.Add(Opc::kLabel, {Imm(0)});                                    // 0
  b.Add(Opc::kSAddU32, {S(1), S(1), Imm(4)});                      // 1 writes SCC
  b.Add(Opc::kBufferLoadDword, {V(2), V(6), S(7, 4), S(1)});      // 2 reads s1
  b.Add(Opc::kSCmpLtU32, {S(3), Imm(8)});                          // 3 writes SCC
  b.Add(Opc::kSCbranchScc1, {Imm(0)});                             // 4
  b.Add(Opc::kSEndpgm, {});                                        // 5
  ASSERT_TRUE(ScheduleBlocks(T(), b.f).ok());
  EXPECT_EQ(b.Order(), "0 1 2 3 4 5");
}

// Issue 13: lane masks that the height order issues long before their last
// use. Each of 64 stores (a serial chain: VMEM stores stay in order) selects
// its voffset under a mask that also starts its 12-instruction address chain,
// so every mask's compare is among the highest instructions and is issued
// long before the store that ends its chain. By height alone some 60 masks
// (120 SGPRs) were live at once and register allocation ran out of SGPRs;
// the pressure budget keeps the block's local SGPRs at 40 dwords, and the
// code still computes the same values (every dependence holds).
TEST(Schedule, LaneMasksStayWithinTheSgprBudget) {
  MFunction f;
  auto vnew = [&] { return f.NewVReg(RegClass::kVgpr, 1); };
  auto op = [&](Opc opc, std::vector<MOperand> ops) {
    MInst m;
    m.opc = opc;
    m.ops = std::move(ops);
    m.id = f.next_inst_id++;
    f.insts.push_back(std::move(m));
  };
  const int srd = f.NewVReg(RegClass::kSgpr, 4, 4);
  const int a = vnew(), b = vnew(), data = vnew();
  op(Opc::kVMovB32, {V(a), Imm(1)});
  op(Opc::kVMovB32, {V(b), Imm(2)});
  op(Opc::kVMovB32, {V(data), Imm(3)});
  for (int r = 0; r < 4; ++r) op(Opc::kSMovB32, {MOperand::Virt(RegClass::kSgpr, srd, r, 1), Imm(r)});
  const int kStores = 64, kChain = 12;
  for (int j = 0; j < kStores; ++j) {
    int mask = f.NewVReg(RegClass::kSgpr, 2, 2);
    op(Opc::kVCmpGtU32, {S(mask, 2), V(a), V(b)});
    int x = vnew();
    op(Opc::kVCndmaskB32, {V(x), V(a), V(b), S(mask, 2)});
    for (int l = 0; l < kChain; ++l) {
      int y = vnew();
      op(Opc::kVAddU32, {V(y), V(x), V(b)});
      x = y;
    }
    int sel = vnew();
    op(Opc::kVCndmaskB32, {V(sel), V(a), V(x), S(mask, 2)});
    op(Opc::kBufferStoreDword, {V(data), V(sel), S(srd, 4), Imm(0)});
  }
  op(Opc::kSEndpgm, {});
  // The masks' live ranges as the schedule places them (each dies at its
  // second cndmask), counted here from the instruction order.
  auto peak_mask_dwords = [&] {
    std::vector<int> first(f.vregs.size(), -1), last(f.vregs.size(), -1);
    for (int i = 0; i < static_cast<int>(f.insts.size()); ++i)
      for (const MOperand& o : f.insts[i].ops)
        if (o.IsReg() && o.cls == RegClass::kSgpr && o.count == 2) {
          if (first[o.reg] < 0) first[o.reg] = i;
          last[o.reg] = i;
        }
    int peak = 0;
    for (int i = 0; i < static_cast<int>(f.insts.size()); ++i) {
      int live = 0;
      for (size_t r = 0; r < f.vregs.size(); ++r) live += first[r] >= 0 && first[r] <= i && i <= last[r] ? 2 : 0;
      peak = std::max(peak, live);
    }
    return peak;
  };
  EXPECT_EQ(peak_mask_dwords(), 2) << "in the original order one mask is live at a time";
  ScheduleStats stats;
  ASSERT_TRUE(ScheduleBlocks(T(), f, &stats).ok());
  EXPECT_GT(stats.moved, 0);
  EXPECT_LE(peak_mask_dwords(), 40);
  // The stores keep their order and each still follows its own chain.
  int stores = 0;
  for (const MInst& m : f.insts) stores += m.opc == Opc::kBufferStoreDword;
  EXPECT_EQ(stores, kStores);
  absl::StatusOr<RegUsage> usage = AllocateRegisters(T(), f);
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_LE(usage->sgprs, 4 + 40 + 4);
}

// In a loop body with MFMAs the scheduler follows the wave's timeline: a
// 32x32x8 f16 MFMA keeps gfx942's matrix pipe 32 cycles (8 passes), so of
// two independent MFMAs and eight independent VALU instructions (one issue
// per 4 cycles) seven VALUs fill the gap before the second MFMA; by height
// alone (MFMA 32, VALU 4) both MFMAs would come first and the second would
// stall. Straight-line code keeps the height order.
void MfmasAndValus(Builder& b, bool loop) {
  if (loop) b.Add(Opc::kLabel, {Imm(0)});
  for (int m = 0; m < 2; ++m) {
    b.Add(Opc::kVMfma, {V(16 * m, 16), V(40, 2), V(42, 2), V(16 * m, 16)});
    b.f.insts.back().mfma = LookupMfma("f32_32x32x8_f16");
  }
  for (int v = 0; v < 8; ++v) b.Add(Opc::kVAddU32, {V(100 + v), V(200), V(201)});
  if (loop) b.Add(Opc::kSCbranchScc1, {Imm(0)});
  b.Add(Opc::kSEndpgm, {});
}

TEST(Schedule, InstructionsFillTheMatrixPipesCyclesInLoops) {
  Builder loop;  // 0 label, 1-2 MFMAs, 3-10 VALUs, 11 branch, 12 s_endpgm
  MfmasAndValus(loop, true);
  ASSERT_TRUE(ScheduleBlocks(T(), loop.f).ok());
  EXPECT_EQ(loop.Order(), "0 1 3 4 5 6 7 8 9 2 10 11 12");
  Builder line;  // 0-1 MFMAs, 2-9 VALUs, 10 s_endpgm
  MfmasAndValus(line, false);
  ASSERT_TRUE(ScheduleBlocks(T(), line.f).ok());
  EXPECT_EQ(line.Order(), "0 1 2 3 4 5 6 7 8 9 10");
}

// A block without MFMAs keeps the height order (no timeline): the load's
// user (height 4) ties with 3 and keeps its place, where a timeline would
// put 3 before it (the load's 500 cycles).
TEST(Schedule, BlocksWithoutMfmasKeepTheHeightOrder) {
  Builder b;
  b.Add(Opc::kVAddU32, {V(1), V(2), V(3)});                     // 0: height 4 + 4
  b.Add(Opc::kBufferLoadDword, {V(5), V(6), S(7, 4), Imm(0)});  // 1: height 500 + 4
  b.Add(Opc::kVAddU32, {V(8), V(5), V(4)});                     // 2: needs the load
  b.Add(Opc::kVAddU32, {V(9), V(1), V(3)});                     // 3
  b.Add(Opc::kSEndpgm, {});
  ASSERT_TRUE(ScheduleBlocks(T(), b.f).ok());
  EXPECT_EQ(b.Order(), "1 0 2 3 4");
}

// Issue 16 item 4: `pairs` independent copies dst_i[x] = src_i[x], in the
// lowering's order (load, store, load, store, ...). The loads' results are
// VGPRs of their own; every access is named in an access map.
struct Pairs : Builder {
  AccessMap map;
  explicit Pairs(int pairs, bool same_buffer = false) {
    const int vaddr = f.NewVReg(RegClass::kVgpr, 1);
    Add(Opc::kVMovB32, {V(vaddr), Imm(0)});
    for (int i = 0; i < pairs; ++i) {
      const int v = f.NewVReg(RegClass::kVgpr, 1);
      const int src = f.NewVReg(RegClass::kSgpr, 4, 4), dst = f.NewVReg(RegClass::kSgpr, 4, 4);
      Record(Add(Opc::kBufferLoadDword, {V(v), V(vaddr), S(src, 4), Imm(0)}),
             same_buffer ? "a" : "src" + std::to_string(i));
      Record(Add(Opc::kBufferStoreDword, {V(v), V(vaddr), S(dst, 4), Imm(0)}),
             same_buffer ? "a" : "dst" + std::to_string(i));
    }
    Add(Opc::kSEndpgm, {});
  }
  void Record(int id, const std::string& mem) {
    AccessRecord r;
    r.inst_id = id;
    r.mem = mem;
    map.push_back(r);
  }
  // Schedules with the access map (unless `with_map` is false) and the
  // given VGPR budget (-1: the default).
  ScheduleStats Schedule(int64_t vgpr_budget = -1, bool with_map = true) {
    ScheduleOptions o;
    o.accesses = with_map ? &map : nullptr;
    o.vgpr_budget = vgpr_budget;
    ScheduleStats st;
    EXPECT_TRUE(ScheduleBlocks(T(), f, &st, o).ok());
    return st;
  }
};

TEST(Schedule, LoadsPassStoresToOtherBuffers) {
  // Ids: 0 the address, load i = 2i + 1, store i = 2i + 2, 9 s_endpgm. With
  // the access map the four loads issue first (all in flight at once), the
  // stores after them in their order.
  Pairs p(4);
  ScheduleStats st = p.Schedule();
  EXPECT_EQ(p.Order(), "0 1 3 5 7 2 4 6 8 9");
  // The address and four loaded values: 5 VGPRs at the peak, 2 before.
  EXPECT_EQ(st.vgpr_original_peak, 2);
  EXPECT_EQ(st.vgpr_peak, 5);
  // gfx942 keeps 8 waves per SIMD up to 64 VGPRs: the budget is 64 - 4.
  EXPECT_EQ(st.vgpr_budget, 60);
}

TEST(Schedule, WithoutTheAccessMapGlobalAccessesKeepTheirOrder) {
  Pairs p(4);
  p.Schedule(-1, /*with_map=*/false);
  EXPECT_EQ(p.Order(), "0 1 2 3 4 5 6 7 8 9");
  // A map that lacks one of the block's accesses: the same.
  Pairs q(4);
  q.map.pop_back();
  q.Schedule();
  EXPECT_EQ(q.Order(), "0 1 2 3 4 5 6 7 8 9");
}

TEST(Schedule, LoadsStayBehindStoresToTheirBuffer) {
  Pairs p(4, /*same_buffer=*/true);
  p.Schedule();
  EXPECT_EQ(p.Order(), "0 1 2 3 4 5 6 7 8 9");
}

TEST(Schedule, HoistingStaysWithinTheVgprBudget) {
  // A budget of 3 VGPRs: the address and at most two loaded values live, so
  // a load waits for a store to free a register: by height the loads lead,
  // and each store frees one when the next load does not fit.
  Pairs p(4);
  EXPECT_EQ(p.Schedule(3).vgpr_peak, 3);
  EXPECT_EQ(p.Order(), "0 1 3 2 5 4 7 6 8 9");
  // A budget below the original order's peak (2) is raised to that peak.
  Pairs q(4);
  EXPECT_EQ(q.Schedule(1).vgpr_peak, 2);
  EXPECT_EQ(q.Order(), "0 1 2 3 4 5 6 7 8 9");
}

// 200 independent pairs: the default budget keeps the occupancy of the
// original order (8 waves on gfx942: 64 VGPRs, less 4), never the 201 VGPRs
// of all loads first, and allocation agrees.
TEST(Schedule, DefaultVgprBudgetKeepsTheOccupancy) {
  Pairs p(200);
  ScheduleStats st = p.Schedule();
  EXPECT_EQ(st.vgpr_budget, 60);
  EXPECT_EQ(st.vgpr_peak, 60);
  absl::StatusOr<RegUsage> usage = AllocateRegisters(T(), p.f);
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_LE(usage->vgprs, 64);
}

// `pairs` independent copies written loads first (every load, then every
// store), each access in the access map; with `mfma`, one MFMA on registers
// of its own (untracked) before the s_endpgm.
struct LoadsFirst : Pairs {
  LoadsFirst(int pairs, bool mfma) : Pairs(0) {
    f.insts.clear();
    map.clear();
    const int vaddr = f.NewVReg(RegClass::kVgpr, 1);
    Add(Opc::kVMovB32, {V(vaddr), Imm(0)});
    std::vector<int> v(pairs);
    for (int i = 0; i < pairs; ++i) {
      v[i] = f.NewVReg(RegClass::kVgpr, 1);
      const int src = f.NewVReg(RegClass::kSgpr, 4, 4);
      Record(Add(Opc::kBufferLoadDword, {V(v[i]), V(vaddr), S(src, 4), Imm(0)}), "src" + std::to_string(i));
    }
    for (int i = 0; i < pairs; ++i) {
      const int dst = f.NewVReg(RegClass::kSgpr, 4, 4);
      Record(Add(Opc::kBufferStoreDword, {V(v[i]), V(vaddr), S(dst, 4), Imm(0)}), "dst" + std::to_string(i));
    }
    if (mfma) {
      Add(Opc::kVMfma, {V(1000, 16), V(1040, 2), V(1042, 2), V(1000, 16)});
      f.insts.back().mfma = LookupMfma("f32_32x32x8_f16");
    }
    Add(Opc::kSEndpgm, {});
  }
};

// Fresh-user review 18 F2 (at 512 threads): a source order within what a
// wave may allocate kept its pressure, though a lower one reaches more waves
// per SIMD. 200 copies loads first: by hand the address and the 200 loaded
// values, 201 VGPRs (208 allocated: 2 waves per SIMD on gfx942, whose
// budget was 256 - 4); the lowest-pressure order (each store as soon as its
// load) needs the address and one value, 2: 8 waves, budget 64 - 4. The
// schedule takes that tier; allocation agrees.
TEST(Schedule, WithinTheCapALowerOrderReachingMoreWavesIsTaken) {
  LoadsFirst p(200, /*mfma=*/false);
  ScheduleStats st = p.Schedule();
  EXPECT_EQ(st.vgpr_original_peak, 201);
  EXPECT_EQ(st.vgpr_lowest_peak, 2);
  EXPECT_EQ(st.vgpr_budget, 60);
  EXPECT_LE(st.vgpr_peak, 60);
  absl::StatusOr<RegUsage> usage = AllocateRegisters(T(), p.f);
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_LE(usage->vgprs, 64);
  // With an MFMA in the kernel (the gemm lowering's and the timeline's
  // order) the source order's occupancy sets the budget, as before: 2 waves,
  // 256 - 4, and no lowest-pressure order is computed.
  LoadsFirst q(200, /*mfma=*/true);
  ScheduleStats sq = q.Schedule();
  EXPECT_EQ(sq.vgpr_original_peak, 201);
  EXPECT_EQ(sq.vgpr_lowest_peak, 0);
  EXPECT_EQ(sq.vgpr_budget, 252);
  EXPECT_GE(sq.vgpr_peak, 201);
}

}  // namespace
}  // namespace kir
