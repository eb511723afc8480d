// DS pairing: which pairs form, their offsets and registers, and what blocks them.
#include "compiler/passes/ds_pairing.h"

#include <string>
#include <vector>

#include "compiler/passes/regalloc.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"

namespace kir {
namespace {

struct Builder {
  MFunction f;
  AccessMap am;
  Builder() {
    for (int i = 0; i < 12; ++i) f.NewVReg(RegClass::kVgpr, 1);  // %v0..%v11: addresses, scalars
  }
  int Pair() { return f.NewVReg(RegClass::kVgpr, 2, 2); }
  MOperand V(int r) const { return MOperand::Virt(RegClass::kVgpr, r, 0, f.vregs[r].count); }
  // An LDS access of `mem` with its access-map record.
  int Ds(Opc opc, std::vector<MOperand> ops, int64_t offset, const std::string& mem = "L") {
    MInst m;
    m.opc = opc;
    m.ops = std::move(ops);
    m.offset = offset;
    m.id = f.next_inst_id++;
    m.kir_op = m.id;
    const MemShape s = MemoryShape(opc);
    AccessRecord r;
    r.inst_id = m.id;
    r.kir_op = m.id;
    r.mem = mem;
    r.is_lds = true;
    r.is_store = s.store;
    r.element_bytes = 2;
    for (int e = 0; e < s.comps * s.bytes / 2; ++e) r.elements.push_back(e);
    am.push_back(r);
    f.insts.push_back(std::move(m));
    return f.next_inst_id - 1;
  }
  int Read(int dst, int addr, int64_t off, const std::string& mem = "L") {
    return Ds(Opc::kDsReadB64, {V(dst), V(addr)}, off, mem);
  }
  int Write(int addr, int data, int64_t off, const std::string& mem = "L") {
    return Ds(Opc::kDsWriteB64, {V(addr), V(data)}, off, mem);
  }
  void Add(Opc opc, std::vector<MOperand> ops) {
    MInst m;
    m.opc = opc;
    m.ops = std::move(ops);
    m.id = f.next_inst_id++;
    f.insts.push_back(std::move(m));
  }
  DsPairingStats Run() {
    DsPairingStats st;
    EXPECT_TRUE(PairDsAccesses(f, &am, &st).ok());
    return st;
  }
  std::string Opcodes() const {
    std::string s;
    for (const MInst& m : f.insts) s += std::string(s.empty() ? "" : " ") + Info(m.opc).mnemonic;
    return s;
  }
};

TEST(DsPairing, ReadsWith2048BytesApartBecomeRead2st64) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair();
  b.Read(d0, 1, 0);
  b.Add(Opc::kVAddU32, {b.V(2), b.V(3), b.V(4)});
  b.Read(d1, 1, 2048);
  DsPairingStats st = b.Run();
  EXPECT_EQ(st.reads, 1);
  ASSERT_EQ(b.Opcodes(), "ds_read2st64_b64 v_add_u32");
  const MInst& m = b.f.insts[0];
  EXPECT_EQ(m.offset0, 0);
  EXPECT_EQ(m.offset1, 4);  // 2048 / (64 * 8)
  EXPECT_EQ(m.offset, 0);
  // The destinations are views of one new 4-dword tuple.
  const int t = m.ops[0].reg;
  EXPECT_EQ(m.ops[0].count, 4);
  EXPECT_EQ(b.f.vregs[t].count, 4);
  EXPECT_EQ(b.f.Root(d0), std::make_pair(t, 0));
  EXPECT_EQ(b.f.Root(d1), std::make_pair(t, 2));
  // The access map: both records on the pair, components 0 and 1.
  EXPECT_EQ(b.am[0].inst_id, m.id);
  EXPECT_EQ(b.am[0].component, 0);
  EXPECT_EQ(b.am[1].inst_id, m.id);
  EXPECT_EQ(b.am[1].component, 1);
}

TEST(DsPairing, PrefersRead2WhenTheOffsetsFitEightBitsOfElements) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair();
  b.Read(d0, 1, 2040);  // 255 * 8
  b.Read(d1, 1, 512);   // 64 * 8, also 1 * 512
  b.Run();
  ASSERT_EQ(b.Opcodes(), "ds_read2_b64");
  EXPECT_EQ(b.f.insts[0].offset0, 255);
  EXPECT_EQ(b.f.insts[0].offset1, 64);
}

TEST(DsPairing, OffsetsOutOfRangeOrMisalignedAreNotPaired) {
  for (int64_t off : {int64_t{131072}, int64_t{12}, int64_t{2052}}) {  // 256 * 512; not a multiple of 8; of 512 and > 255 * 8
    Builder b;
    const int d0 = b.Pair(), d1 = b.Pair();
    b.Read(d0, 1, 0);
    b.Read(d1, 1, off);
    EXPECT_EQ(b.Run().reads, 0) << off;
    EXPECT_EQ(b.Opcodes(), "ds_read_b64 ds_read_b64") << off;
  }
}

TEST(DsPairing, ReadsAreNotPairedAcrossAnAliasingWrite) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair(), w = b.Pair();
  b.Read(d0, 1, 0);
  b.Write(1, w, 2048);  // the bytes the second read reads
  b.Read(d1, 1, 2048);
  EXPECT_EQ(b.Run().reads, 0);
  EXPECT_EQ(b.Opcodes(), "ds_read_b64 ds_write_b64 ds_read_b64");
}

TEST(DsPairing, ReadsAreNotPairedAcrossAWriteThroughAnotherAddressOfTheSameAllocation) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair(), w = b.Pair();
  b.Read(d0, 1, 0);
  b.Write(5, w, 0);  // another address register: may be anywhere in L
  b.Read(d1, 1, 2048);
  EXPECT_EQ(b.Run().reads, 0);
}

TEST(DsPairing, ReadsPairOnlyAcrossWritesOfAnotherAllocation) {
  {  // Same address register, other bytes in this lane, but lane t's
     // L[t + 1024 bytes] is another lane's L[t]: the read must stay after it
     // (the fresh-user trial's l14_xlane_rw: a moved read saw stale data).
    Builder b;
    const int d0 = b.Pair(), d1 = b.Pair(), w = b.Pair();
    b.Read(d0, 1, 0);
    b.Write(1, w, 1024);
    b.Read(d1, 1, 2048);
    EXPECT_EQ(b.Run().reads, 0);
    EXPECT_EQ(b.Opcodes(), "ds_read_b64 ds_write_b64 ds_read_b64");
  }
  {
    Builder b;
    const int d0 = b.Pair(), d1 = b.Pair(), w = b.Pair();
    b.Read(d0, 1, 0);
    b.Write(5, w, 0, "M");  // another LDS allocation
    b.Read(d1, 1, 2048);
    EXPECT_EQ(b.Run().reads, 1);
    EXPECT_EQ(b.Opcodes(), "ds_read2st64_b64 ds_write_b64");
  }
}

TEST(DsPairing, NotAcrossABarrier) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair();
  b.Read(d0, 1, 0);
  b.Add(Opc::kSBarrier, {});
  b.Read(d1, 1, 2048);
  EXPECT_EQ(b.Run().reads, 0);
}

TEST(DsPairing, NotAcrossAnAddressRedefinition) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair();
  b.Read(d0, 1, 0);
  b.Add(Opc::kVAddU32, {b.V(1), b.V(1), b.V(3)});
  b.Read(d1, 1, 2048);
  EXPECT_EQ(b.Run().reads, 0);
}

TEST(DsPairing, NotAcrossAnExecWrite) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair();
  b.Read(d0, 1, 0);
  b.Add(Opc::kVCmpxGtU32, {MOperand::Special(SpecialReg::kVcc), b.V(2), b.V(3)});
  b.Read(d1, 1, 2048);
  EXPECT_EQ(b.Run().reads, 0);
}

TEST(DsPairing, NotWhenADestinationHasAnotherDefinitionOrIsUsedBetween) {
  {
    Builder b;
    const int d0 = b.Pair(), d1 = b.Pair();
    b.Read(d0, 1, 0);
    b.Read(d1, 1, 2048);
    b.Add(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, d1, 1, 1), b.V(2)});  // a second def of d1
    EXPECT_EQ(b.Run().reads, 0);
  }
  {
    Builder b;
    const int d0 = b.Pair(), d1 = b.Pair();
    b.Read(d0, 1, 0);
    b.Add(Opc::kVMovB32, {b.V(2), MOperand::Virt(RegClass::kVgpr, d1, 0, 1)});  // reads d1 before its load
    b.Read(d1, 1, 2048);
    EXPECT_EQ(b.Run().reads, 0);
  }
}

TEST(DsPairing, NotAcrossBlocks) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair();
  b.Read(d0, 1, 0);
  b.Add(Opc::kLabel, {MOperand::Imm(0)});
  b.Read(d1, 1, 2048);
  EXPECT_EQ(b.Run().reads, 0);
}

TEST(DsPairing, WritesPairWithTwoDataOperands) {
  Builder b;
  const int x = b.Pair(), y = b.Pair(), z = b.Pair();
  b.Write(1, x, 0);
  b.Write(5, z, 0, "M");  // M: no conflict with x's allocation L
  b.Write(1, y, 4096, "M");
  DsPairingStats st = b.Run();
  EXPECT_EQ(st.writes, 1);
  ASSERT_EQ(b.Opcodes(), "ds_write_b64 ds_write2st64_b64");
  const MInst& m = b.f.insts[1];  // at the second write: the first moved down
  ASSERT_EQ(m.ops.size(), 3u);
  EXPECT_EQ(m.ops[0].reg, 1);
  EXPECT_EQ(m.ops[1].reg, x);
  EXPECT_EQ(m.ops[2].reg, y);
  EXPECT_EQ(m.offset0, 0);
  EXPECT_EQ(m.offset1, 8);
  EXPECT_EQ(b.am[0].component, 0);
  EXPECT_EQ(b.am[2].component, 1);
  EXPECT_EQ(b.am[2].inst_id, m.id);
}

TEST(DsPairing, WritesToOneAllocationAreNotPaired) {
  // L[t] and L[t + 8 bytes] of two lanes may be one element: within a
  // ds_write2 the order among lanes is unspecified, in two writes it is the
  // program's (the fresh-user trial's l13_xlane_ww). Even the same offset.
  for (int64_t second : {4096, 0}) {
    Builder b;
    const int x = b.Pair(), y = b.Pair();
    b.Write(1, x, 0);
    b.Write(1, y, second);
    EXPECT_EQ(b.Run().writes, 0);
    EXPECT_EQ(b.Opcodes(), "ds_write_b64 ds_write_b64");
  }
}

TEST(DsPairing, WritesAreNotPairedAcrossAnAliasingRead) {
  Builder b;
  const int x = b.Pair(), y = b.Pair(), r0 = b.Pair(), r1 = b.Pair();
  b.Write(1, x, 0);
  b.Read(r0, 1, 0);            // the first write cannot move down past this read of L,
  b.Read(r1, 1, 4096, "M");    // nor the second (to M) up past this read of M
  b.Write(1, y, 4096, "M");
  EXPECT_EQ(b.Run().writes, 0);
  EXPECT_EQ(b.Opcodes(), "ds_write_b64 ds_read2st64_b64 ds_write_b64");  // the reads pair
}

TEST(DsPairing, WritesNotPairedWhenTheMovedDataIsRedefinedBetween) {
  Builder b;
  const int x = b.Pair(), y = b.Pair();
  b.Write(1, x, 0);
  b.Add(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, x, 0, 1), b.V(2)});  // x changes after the first write
  b.Add(Opc::kVMovB32, {MOperand::Virt(RegClass::kVgpr, y, 0, 1), b.V(2)});  // y is set after it
  b.Write(1, y, 4096, "M");
  EXPECT_EQ(b.Run().writes, 0);
}

TEST(DsPairing, WriteMovesUpWhenTheFirstCannotMoveDown) {
  Builder b;
  const int x = b.Pair(), y = b.Pair(), z = b.Pair();
  b.Write(1, x, 0);
  b.Write(5, z, 0);      // same allocation, unknown address: the first write cannot pass it
  b.Write(1, y, 16384, "M");  // ... but this one can (another allocation)
  EXPECT_EQ(b.Run().writes, 1);
  EXPECT_EQ(b.Opcodes(), "ds_write2st64_b64 ds_write_b64");
}

TEST(DsPairing, PairedReadsGetAdjacentRegisters) {
  Builder b;
  const int d0 = b.Pair(), d1 = b.Pair();
  b.Read(d0, 1, 0);
  b.Read(d1, 1, 64);
  b.Add(Opc::kVAddU32, {b.V(2), MOperand::Virt(RegClass::kVgpr, d1, 1, 1), MOperand::Virt(RegClass::kVgpr, d0, 0, 1)});
  b.Add(Opc::kSEndpgm, {});
  b.Run();
  ASSERT_TRUE(AllocateRegisters(**LookupTarget("gfx942"), b.f).ok());
  const MInst& pair = b.f.insts[0];
  const MInst& add = b.f.insts[1];
  EXPECT_EQ(pair.ops[0].count, 4);
  EXPECT_EQ(pair.ops[0].reg % 2, 0);
  EXPECT_EQ(add.ops[1].reg, pair.ops[0].reg + 3);  // d1 dword 1
  EXPECT_EQ(add.ops[2].reg, pair.ops[0].reg);      // d0 dword 0
}

}  // namespace
}  // namespace kir
