// End to end: every testdata kernel on every target either compiles to
// assembly that llvm-mc assembles and ld.lld links, with metadata and a kernel
// descriptor that agree with the kernel's declarations and the registers the
// code names, or is refused with the documented error.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_replace.h"
#include "compiler/api/compile.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {

using ::kir::testing::ReadTestFile;


// Kernarg bytes from the declarations alone: pointers 8 bytes aligned 8,
// scalars 4 bytes aligned 4, the total rounded up to 8.
int64_t ExpectedKernargBytes(const Kernel& k) {
  int64_t off = 0;
  for (const Arg& a : k.args) {
    int64_t sz = a.kind == Arg::Kind::kBuffer ? 8 : 4;
    off = (off + sz - 1) / sz * sz + sz;
  }
  return (off + 7) / 8 * 8;
}

// LDS bytes from the declarations: rows * (cols + pad) elements each, every
// allocation 16-byte aligned.
int64_t ExpectedLdsBytes(const Kernel& k) {
  int64_t off = 0;
  for (const LdsAlloc& l : k.lds) {
    int64_t elems = 1;
    for (size_t d = 0; d + 1 < l.shape.size(); ++d) elems *= l.shape[d];
    elems *= l.shape.back() + l.pad;
    off = (off + 15) / 16 * 16 + elems * ElemBytes(l.elem);
  }
  return off;
}

// One past the highest register of class `c` ('v', 's', 'a') the code names.
int HighestRegister(const std::string& asm_text, char c) {
  int top = 0;
  std::string code = asm_text.substr(0, asm_text.find(".amdhsa_kernel"));
  std::regex single(std::string("\\b") + c + "([0-9]+)\\b");
  std::regex range(std::string("\\b") + c + "\\[([0-9]+):([0-9]+)\\]");
  for (std::sregex_iterator it(code.begin(), code.end(), single), end; it != end; ++it)
    top = std::max(top, std::stoi((*it)[1]) + 1);
  for (std::sregex_iterator it(code.begin(), code.end(), range), end; it != end; ++it)
    top = std::max(top, std::stoi((*it)[2]) + 1);
  return top;
}

// The 64-byte kernel descriptor `<name>.kd` from the code object's ELF
// symbol table (AMDGPUUsage, "Kernel Descriptor").
std::string KernelDescriptor(const std::string& elf, const std::string& name) {
  auto rd16 = [&](size_t o) { uint16_t v; std::memcpy(&v, elf.data() + o, 2); return v; };
  auto rd32 = [&](size_t o) { uint32_t v; std::memcpy(&v, elf.data() + o, 4); return v; };
  auto rd64 = [&](size_t o) { uint64_t v; std::memcpy(&v, elf.data() + o, 8); return v; };
  uint64_t shoff = rd64(0x28);
  uint16_t shentsize = rd16(0x3a), shnum = rd16(0x3c);
  for (uint16_t i = 0; i < shnum; ++i) {
    size_t sh = shoff + size_t{i} * shentsize;
    if (rd32(sh + 4) != 2 /* SHT_SYMTAB */) continue;
    uint64_t symoff = rd64(sh + 0x18), symsize = rd64(sh + 0x20), entsize = rd64(sh + 0x38);
    uint32_t strtab_index = rd32(sh + 0x28);
    size_t strsh = shoff + size_t{strtab_index} * shentsize;
    uint64_t stroff = rd64(strsh + 0x18);
    for (uint64_t s = 0; s < symsize / entsize; ++s) {
      size_t sym = symoff + s * entsize;
      std::string sname(elf.data() + stroff + rd32(sym));
      if (sname != name + ".kd") continue;
      uint16_t shndx = rd16(sym + 6);
      uint64_t value = rd64(sym + 8);
      size_t tsh = shoff + size_t{shndx} * shentsize;
      uint64_t addr = rd64(tsh + 0x10), off = rd64(tsh + 0x18);
      return elf.substr(off + (value - addr), 64);
    }
  }
  return "";
}

struct Case {
  std::string kernel;
  std::string target;
};

class CompileTest : public ::testing::TestWithParam<Case> {};

TEST_P(CompileTest, AssemblesLinksAndDeclaresWhatItUses) {
  const Case& c = GetParam();
  std::string path = "testdata/kernels/" + c.kernel + ".kir";
  std::string text = ReadTestFile(path);
  ASSERT_FALSE(text.empty()) << path;
  absl::StatusOr<Kernel> k = ParseKernel(text, path);
  ASSERT_TRUE(k.ok()) << k.status();
  CompileOptions opts;
  opts.mcpu = c.target;
  opts.verify_machineinstrs = true;
  absl::StatusOr<CompileResult> r = CompileText(text, path, opts);
  if (c.kernel == "mma_16x16x16_bf16" && c.target == "gfx908") {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("does not exist on gfx908"), std::string::npos)
        << r.status();
    return;
  }
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok()) << bin.status();
  absl::StatusOr<std::string> obj = CodeObjectFor(*r, *bin);
  ASSERT_TRUE(obj.ok()) << obj.status() << "\n" << r->assembly;
  absl::StatusOr<std::string> notes_text = ReadElfNotes(*bin, *obj);
  ASSERT_TRUE(notes_text.ok()) << notes_text.status();
  absl::StatusOr<std::vector<KernelNotes>> notes = ParseKernelNotes(*notes_text);
  ASSERT_TRUE(notes.ok()) << notes.status();
  ASSERT_EQ(notes->size(), 1u);
  const KernelNotes& n = (*notes)[0];
  EXPECT_EQ(n.name, k->name);
  EXPECT_EQ(n.kernarg_segment_size, ExpectedKernargBytes(*k));
  EXPECT_EQ(n.group_segment_fixed_size, ExpectedLdsBytes(*k));
  EXPECT_EQ(n.max_flat_workgroup_size, k->WorkgroupThreads());
  EXPECT_EQ(n.wavefront_size, 64);
  ASSERT_EQ(n.args.size(), k->args.size());

  // Registers: the metadata and the descriptor's granulated counts agree with
  // the highest registers the code names (AMDGPUUsage; notes section 6.2).
  int v = HighestRegister(r->assembly, 'v');
  int a = HighestRegister(r->assembly, 'a');
  int s = HighestRegister(r->assembly, 's');
  std::string kd = KernelDescriptor(*obj, k->name);
  ASSERT_EQ(kd.size(), 64u);
  uint32_t rsrc1;
  std::memcpy(&rsrc1, kd.data() + 48, 4);
  uint32_t group_size;
  std::memcpy(&group_size, kd.data() + 0, 4);
  EXPECT_EQ(group_size, ExpectedLdsBytes(*k));
  int vgpr_field = rsrc1 & 0x3f;
  if (c.target == "gfx908") {
    int need = std::max(v, a);
    EXPECT_EQ(vgpr_field, (std::max(need, 1) + 3) / 4 - 1);
    EXPECT_EQ(n.vgpr_count, std::max(v, a));  // separate files: llc reports the max
    EXPECT_EQ(n.agpr_count, a);
  } else {
    int total = a > 0 ? (v + 3) / 4 * 4 + a : v;
    EXPECT_EQ(vgpr_field, (std::max(total, 1) + 7) / 8 - 1);
    EXPECT_EQ(n.vgpr_count, total);
    EXPECT_EQ(n.agpr_count, a);
    uint32_t rsrc3;
    std::memcpy(&rsrc3, kd.data() + 44, 4);
    EXPECT_EQ(static_cast<int>(rsrc3 & 0x3f), std::max(4, (v + 3) / 4 * 4) / 4 - 1);
  }
  // SGPRs: the code's highest plus the 6 llvm-mc reserves, granule 8.
  int sgpr_field = (rsrc1 >> 6) & 0xf;
  EXPECT_EQ(sgpr_field, (s + 6 + 7) / 8 - 1) << "highest SGPR s" << s - 1;
  EXPECT_EQ(n.sgpr_count, r->resources.sgprs + 6);
  EXPECT_GE(r->resources.sgprs, s);
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const char* kname : {"copy_f32", "add_f16", "mma_16x16x16_f16", "mma_16x16x16_bf16",
                             "mma_32x32x8_f16", "mma_loop_32x32x64_f16"})
    for (const char* t : {"gfx908", "gfx90a", "gfx942"}) cases.push_back({kname, t});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, CompileTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return i.param.kernel + "_" + i.param.target;
                         });

TEST(CompileTest, DefaultKernelIsTheTestdataMfmaKernel) {
  EXPECT_EQ(std::string(DefaultKernelText()),
            ReadTestFile("testdata/kernels/mma_16x16x16_f16.kir"));
}

// lds_dma on gfx950 (docs/gfx950.md "gfx950's transposing LDS read and
// 16-byte LDS DMA"): M0 set by an SALU one wait state before the DMA, the DMA itself,
// and vmcnt(0) before the barrier after which other waves read its bytes
// (the only VMEM op outstanding is the DMA). Refused on gfx942, naming it.
TEST(CompileTest, LdsDmaLowersToM0SetupDmaAndVmcntBeforeBarrier) {
  const std::string text = ::kir::testing::kLdsDmaStraight;
  absl::StatusOr<CompileResult> r = CompileText(text, "dma.kir", CompileOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::string& a = r->assembly;
  const size_t m0 = a.find("s_mov_b32 m0, s"), nop = a.find("s_nop 0", m0),
               dma = a.find("buffer_load_dwordx4 v", nop), wait = a.find("s_waitcnt vmcnt(0)\n", dma),
               bar = a.find("s_barrier", wait), rd = a.find("ds_read_b128", bar);
  EXPECT_NE(a.find("v_readfirstlane_b32 s"), std::string::npos) << a;
  ASSERT_NE(m0, std::string::npos) << a;
  ASSERT_NE(nop, std::string::npos) << a;
  ASSERT_NE(dma, std::string::npos) << a;
  EXPECT_NE(a.find(" offen lds\n", dma), std::string::npos) << a;
  ASSERT_NE(wait, std::string::npos) << a;
  EXPECT_NE(bar, std::string::npos) << a;
  EXPECT_NE(rd, std::string::npos) << a;
  CompileOptions o942;
  o942.mcpu = "gfx942";
  absl::StatusOr<CompileResult> refused = CompileText(text, "dma.kir", o942);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("does not exist on gfx942; it is gfx950 only"), std::string::npos)
      << refused.status();
}

// load_tr on gfx950: one ds_read_b64_tr_b16 per op, the constant part of
// the address (4 rows of 16 halves = 128 bytes, plus L's place) in the
// offset field, an lgkmcnt wait before its result is used; llvm-mc 22
// assembles it (Compile makes the code object). Refused on gfx942.
TEST(CompileTest, LoadTrLowersToDsReadB64TrB16WithOffset) {
  const std::string text = R"(kernel tr
target gfx950
workgroup 64 1 1
grid 1 1 1
arg X : f16[16, 16] strides [16, 1] readonly
arg Y : f16[64, 4] strides [4, 1] writeonly
lds L : f16[20, 16]
  %x = load X[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4
  store L[tid.x floordiv 4 + 4, tid.x mod 4 * 4], %x
  barrier
  %t = load_tr L[tid.x floordiv 4 + 4, tid.x mod 4 * 4] : f16x4
  store Y[tid.x, 0], %t
end
)";
  CompileOptions o;
  o.verify_machineinstrs = true;
  absl::StatusOr<CompileResult> r = CompileText(text, "tr.kir", o);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok()) << bin.status();
  absl::StatusOr<std::string> obj = CodeObjectFor(*r, *bin);  // llvm-mc 22 accepts the text
  ASSERT_TRUE(obj.ok()) << obj.status() << "\n" << r->assembly;
  const std::string& a = r->assembly;
  const size_t rd = a.find("ds_read_b64_tr_b16 v[");
  ASSERT_NE(rd, std::string::npos) << a;
  EXPECT_EQ(a.find("ds_read_b64_tr_b16", rd + 1), std::string::npos) << a;
  const std::string line = a.substr(rd, a.find('\n', rd) - rd);
  EXPECT_NE(line.find(" offset:128"), std::string::npos) << line;
  const size_t wait = a.find("s_waitcnt lgkmcnt(0)", rd), store = a.find("buffer_store_dwordx2", rd);
  ASSERT_NE(wait, std::string::npos) << a;
  EXPECT_LT(wait, store) << a;
  EXPECT_EQ(a.find("ds_read_b64 v"), std::string::npos) << a;
  CompileOptions o942;
  o942.mcpu = "gfx942";
  absl::StatusOr<CompileResult> refused = CompileText(text, "tr.kir", o942);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("does not exist on gfx942; it is gfx950 only"), std::string::npos)
      << refused.status();
}

// A gfx950 GEMM with `lds_dma on` (issue 19; the bench's tile 256x256x32
// waves 2x2): its K loop (from the label a backward branch targets to that
// branch) copies A and B only with buffer_load_dwordx4 ... lds (4 + 4 per K
// tile per lane: 256 x 32 f16 of each over 256 lanes x 16 bytes; the loop
// runs two K tiles a trip, so 16) and has no ds_write and no other vector
// memory load; the kernel has no ds_write at all; llvm-mc 22 (the binary)
// assembles the text.
TEST(CompileTest, GemmWithLdsDmaLoopHasDmaAndNoDsWrite) {
  const std::string text = R"(kernel gemm_dma
target gfx950
workgroup auto
grid auto
arg A : f16[1024, 1024] strides [1024, 1] readonly
arg B : f16[1024, 1024] strides [1024, 1] readonly
arg C : f32[1024, 1024] strides [1024, 1] readwrite
arg alpha : f32
arg beta : f32
  gemm C = alpha * A.mk * B.nk + beta * C tile 256x256x32 waves 2x2 lds_dma on
end
)";
  absl::StatusOr<CompileResult> r = CompileText(text, "gemm_dma.kir", CompileOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::string& a = r->assembly;
  std::vector<std::string> lines = absl::StrSplit(a, '\n');
  int first = -1, last = -1;
  std::map<std::string, int> labels;
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, std::regex("^(\\.L[A-Za-z0-9_.]+):.*")))
      labels[m[1]] = i;
    else if (std::regex_search(lines[i], m, std::regex("s_cbranch_[a-z0-9]+ (\\.L[A-Za-z0-9_.]+)")) &&
             labels.count(m[1]))
      first = labels[m[1]], last = i;
  }
  ASSERT_GE(first, 0) << a;
  int dma = 0, other_vmem_loads = 0, ds_writes = 0, m0_writes = 0;
  std::map<std::string, int> offsets;  // the DMAs' offset fields ("" for none)
  for (int i = first; i <= last; ++i) {
    const std::string& l = lines[i];
    if (l.find("buffer_load_dwordx4") != std::string::npos && absl::EndsWith(l, " lds")) {
      ++dma;
      std::smatch m;
      ++offsets[std::regex_search(l, m, std::regex("offset:([0-9]+)")) ? std::string(m[1]) : ""];
    } else if (l.find("buffer_load") != std::string::npos || l.find("global_load") != std::string::npos) {
      ++other_vmem_loads;
    }
    if (l.find("ds_write") != std::string::npos) ++ds_writes;
    if (l.find(" m0,") != std::string::npos) ++m0_writes;
  }
  EXPECT_EQ(dma, 16) << a;
  // A wave's 4 DMAs of one operand's K tile copy 4 consecutive blocks of 16
  // rows x 64 bytes = 1024 LDS bytes: one M0 (the first block's address)
  // and the offsets 0, 1024, 2048, 3072, so one M0 write per K tile and
  // operand: 2 tiles x 2 operands = 4 per trip (each DMA wrote its own, 16,
  // before they shared it).
  EXPECT_EQ(m0_writes, 4) << a;
  EXPECT_EQ(offsets, (std::map<std::string, int>{{"", 4}, {"1024", 4}, {"2048", 4}, {"3072", 4}})) << a;
  EXPECT_EQ(other_vmem_loads, 0);
  EXPECT_EQ(ds_writes, 0);
  EXPECT_EQ(a.find("ds_write"), std::string::npos);
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok());
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  std::string path = dir + "/gemm_dma.s";
  ASSERT_TRUE(WriteFileBytes(path, a).ok());
  absl::StatusOr<ProcessResult> pr = RunProcess({*bin + "/llvm-mc", "-triple=amdgcn-amd-amdhsa",
                                                 "-mcpu=gfx950", "-filetype=obj", "-o",
                                                 dir + "/gemm_dma.o", path});
  ASSERT_TRUE(pr.ok() && pr->exit_code == 0) << (pr.ok() ? pr->stderr_text : "");
}

TEST(CompileTest, RegisterPressureIsAClearErrorBeforeAnyAssembly) {
  // Twenty f32x16 values live at once need 320 VGPRs; the target has 256.
  // They are loaded before a barrier and stored after it, which no memory
  // access crosses: all twenty are live at the barrier whatever the schedule
  // (two waves: a single-wave workgroup drops its barriers).
  std::string text = "kernel pressure\ntarget gfx942\nworkgroup 128 1 1\ngrid 1 1 1\n"
                     "arg x : f32[128, 320] strides [320, 1] readonly\n"
                     "arg y : f32[128, 320] strides [320, 1] writeonly\n";
  for (int i = 0; i < 20; ++i)
    text += "  %v" + std::to_string(i) + " = load x[tid.x, " + std::to_string(16 * i) + "] : f32x16\n";
  text += "  barrier\n";
  for (int i = 0; i < 20; ++i)
    text += "  store y[tid.x, " + std::to_string(16 * i) + "], %v" + std::to_string(i) + "\n";
  text += "end\n";
  absl::StatusOr<CompileResult> r = CompileText(text, "pressure.kir", CompileOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  std::string m(r.status().message());
  EXPECT_NE(m.find("pressure.kir: error: kernel 'pressure' on gfx942: out of VGPRs: the kernel "
                   "needs more than the 256 VGPRs gfx942 has"), std::string::npos) << m;
  EXPECT_NE(m.find("in '%v15 = load x[tid.x, 240] : f32x16'"), std::string::npos) << m;
}

TEST(CompileTest, GemmRegisterPressureNamesTheConfiguration) {
  // One wave owning a 256x256 C block: 64 accumulators of 16 VGPRs. The
  // validator's register bound (compiler/analysis/gemm_config.h) refuses it
  // before lowering.
  const char* text = R"(kernel rp
target gfx90a
workgroup auto
grid auto
arg A : f16[256, 64] strides [64, 1] readonly
arg B : f16[256, 64] strides [64, 1] readonly
arg C : f32[256, 256] strides [256, 1] writeonly
arg alpha : f32
  gemm C = alpha * A.mk * B.nk tile 256x256x32 waves 1x1 mfma f32_32x32x8_f16
end
)";
  absl::StatusOr<CompileResult> r = CompileText(text, "rp.kir", CompileOptions{});
  ASSERT_FALSE(r.ok());
  std::string m(r.status().message());
  EXPECT_NE(m.find("rp.kir:9:3: error: in 'gemm C = alpha * A.mk * B.nk tile 256x256x32 waves 1x1 "
                   "mfma f32_32x32x8_f16': tile 256x256x32 waves 1x1 mfma f32_32x32x8_f16 "
                   "gives each wave a 256 x 256 block of C, whose f32 "
                   "accumulators take 1024 AGPRs per lane"),
            std::string::npos) << m;
  // What the bound cannot foresee (registers beyond the accumulators) still
  // stops in register allocation, after the pipeline moved the accumulators
  // to AGPRs, and that error names the configuration as well. Here double
  // buffering carries the next K tile around the K loop in registers: by
  // hand, 2 x 64 x 256 f16 = 64 KiB over the wave's 64 lanes, 256 VGPRs per
  // lane, all live at the loop's back edge whatever the schedule (it
  // reorders within blocks), beside at least the lane's address offset:
  // over the 256 arch VGPRs. gfx950: its 160 KiB of LDS hold the two 64 KiB
  // tiles; lds_dma off, or the DMA would copy them without registers. (A
  // 256-deep K tile without double buffering, on gfx90a before, fits since
  // the scheduler stores its copies to LDS as they arrive when loading them
  // all first is over the registers: fresh-user review 15 F2.)
  std::string deep = absl::StrReplaceAll(
      text, {{"target gfx90a", "target gfx950"},
             {"f16[256, 64] strides [64, 1]", "f16[64, 1024] strides [1024, 1]"},
             {"f32[256, 256] strides [256, 1]", "f32[64, 64] strides [64, 1]"},
             {"tile 256x256x32 waves 1x1 mfma f32_32x32x8_f16",
              "tile 64x64x256 waves 1x1 mfma f32_32x32x8_f16 double_buffer on lds_dma off"}});
  r = CompileText(deep, "rp.kir", CompileOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  m = std::string(r.status().message());
  EXPECT_NE(m.find("rp.kir: error: kernel 'rp' on gfx950: out of VGPRs"), std::string::npos) << m;
  EXPECT_NE(m.find("the gemm's configuration is `tile 64x64x256 waves 1x1 mfma f32_32x32x8_f16 "
                   "double_buffer on`"),
            std::string::npos) << m;
  // A 128-deep K tile fits (gfx90a, single buffered).
  std::string fits = absl::StrReplaceAll(
      text, {{"f16[256, 64] strides [64, 1]", "f16[64, 256] strides [256, 1]"},
             {"f32[256, 256] strides [256, 1]", "f32[64, 64] strides [64, 1]"},
             {"tile 256x256x32 waves 1x1 mfma f32_32x32x8_f16", "tile 64x64x128 waves 1x1"}});
  r = CompileText(fits, "rp.kir", CompileOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  // At the bound: 128 x 128 per wave takes exactly 256 AGPRs and compiles on
  // every target (gfx90a/942: accumulators in AGPRs at accum_offset, the
  // arch VGPRs below them, issue 16).
  for (const char* target : {"gfx908", "gfx90a", "gfx942"}) {
    std::string at_bound = absl::StrReplaceAll(
        text, {{"gfx90a", target}, {"tile 256x256x32", "tile 128x128x32"},
               {"f16[256, 64]", "f16[128, 64]"}, {"f32[256, 256] strides [256, 1]", "f32[128, 128] strides [128, 1]"}});
    r = CompileText(at_bound, "rp.kir", CompileOptions{});
    ASSERT_TRUE(r.ok()) << target << ": " << r.status();
    EXPECT_EQ(r->resources.agprs, 256) << target;
    if (std::string(target) != "gfx908") {
      EXPECT_EQ(r->resources.accum_offset % 4, 0) << target;
      EXPECT_GE(r->resources.accum_offset, r->resources.arch_vgprs) << target;
      EXPECT_EQ(r->resources.next_free_vgpr, r->resources.accum_offset + 256) << target;
    }
  }
}

// Sixteen 32x32x8 accumulators carried through a loop (16 x 16 = 256 f32 per
// lane) do not fit in VGPRs beside the operands; on gfx90a/942 the pipeline
// lowers again with them in AGPRs, whose 256 they fill exactly, with the arch
// VGPRs below accum_offset.
TEST(CompileTest, AccumulatorsMoveToAgprsWhenVgprsRunOut) {
  std::string text = ReadTestFile("testdata/kernels/mma_acc_agpr_32x32x8_f16.kir");
  for (const char* target : {"gfx908", "gfx90a", "gfx942"}) {
    CompileOptions opts;
    opts.mcpu = target;
    absl::StatusOr<CompileResult> r = CompileText(text, "mma_acc_agpr_32x32x8_f16.kir", opts);
    ASSERT_TRUE(r.ok()) << target << ": " << r.status();
    EXPECT_EQ(r->resources.agprs, 256) << target;
    if (std::string(target) != "gfx908") {
      EXPECT_LE(r->resources.arch_vgprs, r->resources.accum_offset) << target;
      EXPECT_EQ(r->resources.next_free_vgpr, r->resources.accum_offset + 256) << target;
      EXPECT_NE(r->assembly.find(absl::StrCat(".amdhsa_accum_offset ", r->resources.accum_offset)),
                std::string::npos) << target;
    }
  }
}

// The occupancy calculation against LLVM's own (`; Occupancy:` in clang -S
// output) for LDS-limited OpenCL kernels on every target.
TEST(CompileTest, OccupancyMatchesLlvm) {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok());
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  struct Case { int64_t lds; int wg; };
  for (Case c : {Case{0, 256}, Case{24576, 256}, Case{40960, 64}, Case{16384, 64}, Case{8192, 128},
                 Case{32768, 256}, Case{12000, 64}, Case{20000, 192}}) {
    int64_t n = std::max<int64_t>(1, c.lds / 4);
    std::string cl = "__attribute__((reqd_work_group_size(" + std::to_string(c.wg) +
                     ",1,1)))\nkernel void k(global float* p) {\n  uint t = "
                     "__builtin_amdgcn_workitem_id_x();\n";
    if (c.lds > 0)
      cl += "  local float buf[" + std::to_string(n) + "];\n  buf[t] = p[t];\n"
            "  __builtin_amdgcn_fence(__ATOMIC_RELEASE, \"workgroup\"); __builtin_amdgcn_s_barrier();"
            " __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, \"workgroup\");\n  p[t] = buf[" +
            std::to_string(n - 1) + " - t];\n";
    else
      cl += "  p[t] += 1.0f;\n";
    cl += "}\n";
    std::string path = dir + "/occ.cl";
    ASSERT_TRUE(WriteFileBytes(path, cl).ok());
    for (const TargetInfo* t : AllTargets()) {
      absl::StatusOr<ProcessResult> pr = RunProcess(
          {*bin + "/clang", "-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header",
           "-target", "amdgcn-amd-amdhsa", std::string("-mcpu=") + t->name, "-nogpulib", "-O3",
           "-S", path, "-o", "-"});
      ASSERT_TRUE(pr.ok() && pr->exit_code == 0) << (pr.ok() ? pr->stderr_text : "");
      std::smatch m;
      ASSERT_TRUE(std::regex_search(pr->stdout_text, m, std::regex("; Occupancy: ([0-9]+)")));
      std::smatch v;
      ASSERT_TRUE(std::regex_search(pr->stdout_text, v, std::regex("; TotalNumVgprs: ([0-9]+)")));
      int64_t lds = c.lds > 0 ? n * 4 : 0;
      EXPECT_EQ(Occupancy(*t, std::stoi(v[1]), 0, lds, c.wg), std::stoi(m[1]))
          << t->name << " lds " << lds << " workgroup " << c.wg;
    }
  }
}

// The register limits against llvm-mc 22's own `occupancy()` expression
// (arguments: max waves, VGPR granule, VGPR file, generation 8 = GFX9, the
// occupancy other limits allow, SGPRs, VGPRs) over SGPR and VGPR counts
// around every step.
TEST(CompileTest, RegisterOccupancyMatchesLlvmMc) {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  ASSERT_TRUE(bin.ok());
  std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  const std::vector<int> sgprs = {1, 24, 80, 81, 88, 89, 96, 100, 101, 106, 108};
  const std::vector<int> vgprs = {1, 24, 48, 49, 64, 65, 84, 85, 128, 129, 168, 256, 257, 400, 512};
  for (const TargetInfo* t : AllTargets()) {
    const int granule = t->unified_vgpr_file ? 8 : 4, file = t->unified_vgpr_file ? 512 : 256;
    std::string src;
    std::vector<std::pair<int, int>> cases;
    for (int s : sgprs)
      for (int v : vgprs) {
        if (v > file) continue;
        src += absl::StrCat(".set occ_", cases.size(), ", occupancy(", t->max_waves_per_simd, ", ",
                            granule, ", ", file, ", 8, ", t->max_waves_per_simd, ", ", s, ", ", v, ")\n");
        cases.push_back({s, v});
      }
    std::string path = dir + "/occ_" + t->name + ".s";
    ASSERT_TRUE(WriteFileBytes(path, src).ok());
    absl::StatusOr<ProcessResult> pr = RunProcess(
        {*bin + "/llvm-mc", "-triple=amdgcn-amd-amdhsa", std::string("-mcpu=") + t->name, path});
    ASSERT_TRUE(pr.ok() && pr->exit_code == 0) << (pr.ok() ? pr->stderr_text : "");
    for (size_t i = 0; i < cases.size(); ++i) {
      std::smatch m;
      std::string want = absl::StrCat("\\.set occ_", i, ", ([0-9]+)");
      ASSERT_TRUE(std::regex_search(pr->stdout_text, m, std::regex(want))) << want;
      EXPECT_EQ(Occupancy(*t, cases[i].second, cases[i].first, 0, 64), std::stoi(m[1]))
          << t->name << " sgprs " << cases[i].first << " vgprs " << cases[i].second;
    }
  }
}

// Review 5 F9: occupancy counts whole workgroups. Hand figures: gfx942 and
// gfx950 allocate VGPRs in granules of 8 from 512 per lane per SIMD; a
// workgroup's waves are spread over the CU's 4 SIMDs.
TEST(CompileTest, OccupancyCountsWholeWorkgroups) {
  absl::StatusOr<const TargetInfo*> g942 = LookupTarget("gfx942"), g950 = LookupTarget("gfx950");
  ASSERT_TRUE(g942.ok() && g950.ok());
  // 146 VGPRs -> 152: floor(512 / 152) = 3 waves per SIMD by registers.
  EXPECT_EQ(Occupancy(**g942, 146, 0, 0, 64), 3);   // 1-wave workgroups: 12 per CU, 3 per SIMD
  EXPECT_EQ(Occupancy(**g942, 146, 0, 0, 512), 2);  // 8 waves = 2 per SIMD; a second workgroup needs 4 > 3
  EXPECT_EQ(Occupancy(**g942, 146, 0, 0, 384), 3);  // 6 waves: 2 workgroups = 12 waves = 3 per SIMD
  // 96 VGPRs: 5 per SIMD by registers; 64 KiB of LDS of gfx950's 160 KiB: 2
  // workgroups by LDS; 1024 threads = 16 waves = 4 per SIMD: 1 workgroup.
  EXPECT_EQ(Occupancy(**g950, 96, 0, 65536, 1024), 4);
  EXPECT_EQ(Occupancy(**g950, 64, 0, 65536, 1024), 8);  // 8 by registers: 2 workgroups fit
  // The F9 kernel end to end (8 waves, no LDS, over 128 VGPRs): the
  // reported figure is 2 x floor(floor(512 / granules of 8) / 2).
  absl::StatusOr<CompileResult> r = CompileText(R"(kernel oc1
target gfx942
workgroup 512 1 1
grid 1 1 1
arg A : f32[512, 96] strides [96, 1] readonly
arg O : f32[512, 16] strides [16, 1] writeonly
  %a = load A[tid.x, 0] : f32x16
  %b = load A[tid.x, 16] : f32x16
  %c = load A[tid.x, 32] : f32x16
  %d = load A[tid.x, 48] : f32x16
  %e = load A[tid.x, 64] : f32x16
  %f = load A[tid.x, 80] : f32x16
  %ab = mul %a, %b
  %cd = mul %c, %d
  %ef = mul %e, %f
  %x = fma %ab, %cd, %ef
  %y = fma %a, %f, %x
  %z = fma %b, %e, %y
  store O[tid.x, 0], %z
end
)",
                                                "f9.kir", CompileOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  const int v = r->resources.vgpr_count;
  ASSERT_GT(v, 128) << "the case needs 3 or fewer waves per SIMD by registers";
  EXPECT_EQ(r->resources.occupancy, 2 * ((512 / ((v + 7) / 8 * 8)) / 2)) << v << " VGPRs";
}

TEST(CompileTest, MissingTargetIsAClearError) {
  absl::StatusOr<CompileResult> r = CompileText(
      "kernel k\nworkgroup 64 1 1\ngrid 1 1 1\nbarrier\nend\n", "k.kir", CompileOptions{});
  ASSERT_FALSE(r.ok());
  // The API names its own option (the command line's flag in passing).
  EXPECT_EQ(r.status().message(),
            "k.kir: error: kernel 'k' names no target: set CompileOptions::mcpu (kirc: --mcpu), "
            "e.g. \"gfx942\", or add a `target gfx942` line to the kernel");
}

TEST(CompileTest, UnknownTargetNamesTheSupportedOnes) {
  CompileOptions o;
  o.mcpu = "gfx1100";
  absl::StatusOr<CompileResult> r =
      CompileText(ReadTestFile("testdata/kernels/copy_f32.kir"), "copy_f32.kir", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("gfx908, gfx90a, gfx942"), std::string::npos) << r.status();
}

// Issue 13, defect 9: index range errors name the expression as written,
// never kirc's rewritten form of a loop variable (%k = lo + step * %k.i).
TEST(CompileTest, IndexRangeErrorsNameTheExpressionAsWritten) {
  auto compile = [](const std::string& index, const std::string& wg) {
    std::string text = absl::StrCat(
        "kernel t\ntarget gfx942\nworkgroup ", wg, "\ngrid 1 1 1\n",
        "arg X : f32[64, 7] strides [7, 1] readonly\narg Y : f32[64] strides [1] writeonly\n",
        "  %z = zero f32\n  %s = for %k = -1200000000 to 1200000000 step 2 iter(%a = %z) {\n",
        "    %v = load X[tid.x, ", index, "] : f32\n    %b = add %a, %v\n    yield %b\n  }\n",
        "  store Y[tid.x], %s\nend\n");
    return CompileText(text, "k.kir", CompileOptions{}).status();
  };
  // The loop's last value is 1199999998; 3 * %k spans more than 2^32 values.
  // (Messages echo the op in canonical form: `(%k * 3) mod 7` is `%k * 3 mod 7`.)
  absl::Status s = compile("(%k * 3) mod 7", "64 1 1");
  EXPECT_EQ(std::string(s.message()),
            "k.kir:9:5: error: in '%v = load X[tid.x, %k * 3 mod 7] : f32': the dividend '%k * 3' of "
            "'%k * 3 mod 7' ranges over [-3600000000, 3599999994] (7199999995 values); kirc's 32-bit "
            "division by 7 is exact for a dividend spanning at most 3435973831 consecutive values; narrow "
            "the index");
  // A factor of a product of two variables: %k + 1200000000 reaches 2399999998.
  s = compile("((%k + 1200000000) * tid.y) mod 7", "64 2 1");
  EXPECT_EQ(std::string(s.message()),
            "k.kir:9:5: error: in '%v = load X[tid.x, (%k + 1200000000) * tid.y mod 7] : f32': the factor "
            "'%k + 1200000000' of '(%k + 1200000000) * tid.y' ranges over [0, 2399999998], outside the signed "
            "32-bit range kirc multiplies in; narrow the index");
  // The expression of the issue compiles.
  EXPECT_TRUE(compile("%k mod 7", "64 1 1").ok());
}

}  // namespace
}  // namespace kir
