// The built code object of every testdata kernel on every target
// (testdata's kir_kernel K_T.hsaco, the file K_T_emu_test runs), proved the
// way `kirc verify K.kir --mcpu=T --code-object=K_T.hsaco` proves it
// (LoadCodeForVerify, then VerifyAddresses with match_accesses: no access
// map, the ABI from the descriptor and metadata): every access proved, and
// each memory instruction matched to the access the lowering's access map
// names for the same instruction of kirc's compile (the oracle: the lowering
// wrote it, the matcher never sees it), and each LDS allocation placed where
// the lowering put it.
//
// This is the one place CI proves the built code objects' bytes: the
// testdata K_T_verify_test (compiler/kir.bzl) proves the compile with its
// access map and checks the built .s and .hsaco are that compile's bytes.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/op_text.h"
#include "compiler/isa/cfg.h"
#include "compiler/object/toolchain.h"
#include "compiler/target/target.h"
#include "gtest/gtest.h"
#include "verify/object/load.h"
#include "verify/test_util.h"
#include "verify/verify.h"

namespace kir::vfy::testing {
namespace {

using Status = AccessVerdict::Status;

// The access an op performs: buffer, index expressions (two ops with the
// same are the same access).
std::string AccessKey(const LoweredKernel& lk, int kir_op) {
  std::vector<const Op*> ops;
  // Pre-order, as kir_op numbers them.
  std::function<void(const std::vector<Op>&)> walk = [&](const std::vector<Op>& body) {
    for (const Op& op : body) {
      ops.push_back(&op);
      if (op.kind == OpKind::kFor) walk(op.body);
    }
  };
  walk(lk.kernel.body);
  if (kir_op < 0 || kir_op >= static_cast<int>(ops.size())) return "?";
  const Op& op = *ops[kir_op];
  std::string key = absl::StrCat(op.kind == OpKind::kStore ? "store " : "load ", op.mem, "[");
  for (const IndexRef& x : op.index) absl::StrAppend(&key, IndexToString(*x), ",");
  return absl::StrCat(key, "] along ", op.along);
}

// The instructions of `f` without its labels, in order: the code object's
// instructions, as LoadCodeForVerify numbers them, are kirc's in this order.
std::vector<const MInst*> Instructions(const MFunction& f) {
  std::vector<const MInst*> out;
  for (const MInst& mi : f.insts)
    if (!IsLabel(mi)) out.push_back(&mi);
  return out;
}

// One test per kernel and target: gtest's sharding (test i on shard
// i % shard_count) spreads a big kernel's four targets over four shards.
struct Pair {
  std::string kernel;
  const TargetInfo* target;
};

// For gtest's messages: "gemm_f16_256 on gfx942".
void PrintTo(const Pair& p, std::ostream* os) { *os << p.kernel << " on " << p.target->name; }

std::vector<Pair> Pairs() {
  std::vector<Pair> v;
  for (const std::string& n : TestdataKernels())
    for (const TargetInfo* t : AllTargets()) v.push_back({n, t});
  return v;
}

class KernelObjects : public ::testing::TestWithParam<Pair> {};

TEST_P(KernelObjects, ProveAndMatchTheAccessMapAndLdsLayout) {
  const std::string n = GetParam().kernel;
  const TargetInfo* t = GetParam().target;
  const std::string text = ReadTestFile("testdata/kernels/" + n + ".kir");
  absl::StatusOr<std::string> llvm_bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(llvm_bin.ok()) << llvm_bin.status();
  int accesses = 0;
  {
    // testdata/BUILD's kir_kernel K_T (compiler/kir.bzl kir_kernel_tests).
    const std::string path = absl::StrCat("testdata/", n, "_", t->name, ".hsaco");
    absl::StatusOr<Compiled> c = CompileKir(text, t->name);
    if (!c.ok() && LacksInstruction(c.status())) {
      // A pair kirc refuses has no code object (K_T_refused_test instead).
      EXPECT_FALSE(std::filesystem::exists(path)) << path << " exists, but kirc refuses " << n << " on " << t->name;
      return;
    }
    ASSERT_TRUE(c.ok()) << n << " on " << t->name << ": " << c.status();
    absl::StatusOr<std::string> bytes = ReadFileBytes(path);
    ASSERT_TRUE(bytes.ok()) << n << " on " << t->name << ": the built code object: " << bytes.status();
    // As `kirc verify --code-object` (compiler/tools/kirc_main.cc VerifyCommand).
    CodeInput in;
    in.code_object = *bytes;
    in.llvm_bin = *llvm_bin;
    in.mcpu = t->name;
    in.twin_filename = n + ".kir";
    in.code_filename = path;
    absl::StatusOr<LoweredKernel> code = LoadCodeForVerify(c->kernel, *t, in);
    ASSERT_TRUE(code.ok()) << path << ": " << code.status();
    VerifyOptions o;
    o.match_accesses = true;
    absl::StatusOr<VerifyResult> v = VerifyAddresses(code->kernel, *t, *code, o);
    ASSERT_TRUE(v.ok()) << path << ": " << v.status();
    EXPECT_TRUE(v->all_proved) << path << ":\n" << v->Report();
    std::printf("%-28s %s %4zu accesses %.3f s\n", n.c_str(), t->name, v->accesses.size(), v->seconds);
    std::fflush(stdout);
    // The code object's instruction i is kirc's i-th instruction (labels
    // aside): the same count and the same opcode at each position.
    const LoweredKernel& lk = c->result.lowered;
    const std::vector<const MInst*> kirc = Instructions(lk.mir), read = Instructions(code->mir);
    ASSERT_EQ(read.size(), kirc.size()) << path << ": instructions read vs compiled";
    for (size_t i = 0; i < read.size(); ++i)
      ASSERT_EQ(read[i]->opc, kirc[i]->opc) << path << ": instruction " << i;
    for (const AccessVerdict& a : v->accesses) {
      if (a.status != Status::kProved || a.inst_id < 0) continue;
      ++accesses;
      ASSERT_LT(a.inst_id, static_cast<int>(kirc.size())) << path << ": [" << a.inst_id << "]";
      const int id = kirc[a.inst_id]->id;
      const AccessRecord* want = nullptr;
      for (const AccessRecord& r : lk.access_map)
        if (r.inst_id == id && r.component == a.component) want = &r;
      ASSERT_NE(want, nullptr) << path << ": [" << a.inst_id << "] " << a.inst_text << " (kirc's [" << id
                               << "]) has no access record";
      EXPECT_EQ(AccessKey(lk, a.kir_op), AccessKey(lk, want->kir_op)) << path << ": [" << a.inst_id << "] " << a.inst_text;
    }
    // Every LDS allocation an instruction touches is placed where the lowering put it.
    for (const auto& [name, off] : lk.abi.lds_offsets) {
      bool touched = false;
      for (const AccessRecord& r : lk.access_map) touched |= r.is_lds && r.mem == name;
      if (!touched) continue;
      bool found = false;
      for (const std::string& l : v->lds_layout)
        found |= absl::StartsWith(l, absl::StrCat("LDS '", name, "' at byte ", off, " (solved"));
      EXPECT_TRUE(found) << path << ": " << name << " at " << off << "; layout:\n" << absl::StrJoin(v->lds_layout, "\n");
    }
  }
  std::printf("%d accesses matched\n", accesses);
}

INSTANTIATE_TEST_SUITE_P(Testdata, KernelObjects, ::testing::ValuesIn(Pairs()),
                         [](const ::testing::TestParamInfo<Pair>& i) {
                           return absl::StrCat(i.param.kernel, "_", i.param.target->name);
                         });

TEST(KernelObjects, TestdataHasKernels) { EXPECT_GE(TestdataKernels().size(), 10u); }

// Every kernel has a code object on at least one target (a kernel every
// target refused would prove nothing here).
TEST(KernelObjects, EveryKernelHasACodeObject) {
  for (const std::string& n : TestdataKernels()) {
    int objects = 0;
    for (const TargetInfo* t : AllTargets())
      objects += std::filesystem::exists(absl::StrCat("testdata/", n, "_", t->name, ".hsaco"));
    EXPECT_GE(objects, 1) << n;
  }
}

}  // namespace
}  // namespace kir::vfy::testing
