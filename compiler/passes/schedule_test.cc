// The scheduler keeps every dependence and moves long-latency loads first.
#include "compiler/passes/schedule.h"

#include <string>
#include <vector>

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

}  // namespace
}  // namespace kir
