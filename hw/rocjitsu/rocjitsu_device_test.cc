// RocjitsuDevice without rocjitsu: opening names what it looked for; a fake
// runner (a shell script speaking the runner protocol of hw/rocjitsu/
// README.md) checks the request kirc writes (addresses worked out here from
// the placement rule, the kernarg segment's pointers at the offsets the
// .kir's argument order gives), that buffers are read back, and how each
// runner outcome (failure, refusal, signal, hang, missing output, another
// processor) becomes a status. The cross-check of RunAndCheck is tested
// with devices built here: the emulator twice (agree), and the emulator
// with one element changed after the run (the report names that element).
#include "hw/rocjitsu/rocjitsu_device.h"

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/api/compile.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"
#include "hw/emu/emu_device.h"
#include "hw/kernarg.h"
#include "hw/run/run.h"
#include "testdata/test_kernels.h"

namespace kir {
namespace {

Kernel Load(const std::string& name) { return testing::TestdataKernel(name); }

std::string Hsaco(const Kernel& k, const std::string& mcpu) {
  absl::StatusOr<std::string> bin = ResolveLlvmBin(std::nullopt);
  EXPECT_TRUE(bin.ok()) << bin.status();
  CompileOptions co;
  co.mcpu = mcpu;
  absl::StatusOr<CompileResult> r = Compile(k, co);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || !bin.ok()) return "";
  absl::StatusOr<std::string> obj = CodeObjectFor(*r, *bin);
  EXPECT_TRUE(obj.ok()) << obj.status();
  return obj.ok() ? *obj : "";
}

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

// A fake rocjitsu build in TMP/NAME: bin/kirc-rocjitsu-run is a bash script
// answering --version and --targets as the protocol says and, for a
// request, running `body` (bash, with $REQ the request file) after copying
// the request and the kernarg file into TMP/NAME/log/.
std::string FakeBuild(const std::string& name, const std::string& body, const std::string& version_line =
                                                                           "kirc-rocjitsu-run 1 rocjitsu "
                                                                           "0123456789abcdef0123456789abcdef01234567") {
  const std::string dir = TmpDir() + "/" + name;
  mkdir(dir.c_str(), 0755);
  mkdir((dir + "/bin").c_str(), 0755);
  mkdir((dir + "/log").c_str(), 0755);
  const std::string runner = dir + "/bin/kirc-rocjitsu-run";
  std::ofstream f(runner);
  f << "#!/bin/bash\n"
       "set -u\n"
       "case \"$1\" in\n"
       "  --version) echo '" << version_line << "'; exit 0 ;;\n"
       "  --targets) echo gfx942; exit 0 ;;\n"
       "esac\n"
       "REQ=\"$1\"\n"
       "LOG='" << dir << "/log'\n"
       "cp \"$REQ\" \"$LOG/request.txt\"\n"
       "while read -r kw a b c; do\n"
       "  if [ \"$kw\" = kernarg ]; then cp \"$b\" \"$LOG/kernarg.bin\"; fi\n"
       "done < \"$REQ\"\n"
    << body << "\n";
  f.close();
  chmod(runner.c_str(), 0755);
  return dir;
}

// The body of a runner that "runs" the kernel by setting the first byte of
// every saved buffer to 0xab, the rest as loaded.
const char kMarkFirstByte[] =
    "declare -A IN\n"
    "while read -r kw a b c; do\n"
    "  case \"$kw\" in\n"
    "    load) IN[$a]=\"$b\" ;;\n"
    "    save) { printf '\\xab'; tail -c +2 \"${IN[$a]}\"; } > \"$c\" ;;\n"
    "  esac\n"
    "done < \"$REQ\"\n"
    "echo 'ok seconds=0.01 instructions=1234'\n";

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(RocjitsuDeviceTest, OpenNamesWhatItLookedFor) {
  unsetenv("KIRC_ROCJITSU");
  absl::StatusOr<std::unique_ptr<RocjitsuDevice>> d = OpenRocjitsuDevice({});
  EXPECT_EQ(d.status().code(), absl::StatusCode::kUnavailable) << d.status();
  EXPECT_NE(d.status().message().find("third_party/rocjitsu/build.sh"), std::string::npos) << d.status();
  EXPECT_NE(d.status().message().find("KIRC_ROCJITSU"), std::string::npos) << d.status();

  RocjitsuOptions o;
  o.dir = TmpDir() + "/no-such-build";
  d = OpenRocjitsuDevice(o);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound) << d.status();
  EXPECT_NE(d.status().message().find(o.dir + "/bin/kirc-rocjitsu-run"), std::string::npos) << d.status();
  EXPECT_NE(d.status().message().find("does not exist"), std::string::npos) << d.status();
  // A file, and a directory without a runner, are told apart.
  const std::string file = TmpDir() + "/a-file";
  std::ofstream(file) << "x";
  RocjitsuOptions of;
  of.dir = file;
  EXPECT_NE(OpenRocjitsuDevice(of).status().message().find("is a file, not a build directory"), std::string::npos);
  of.dir = TmpDir();
  EXPECT_NE(OpenRocjitsuDevice(of).status().message().find("has no runner"), std::string::npos);

  // $KIRC_ROCJITSU is the default.
  setenv("KIRC_ROCJITSU", o.dir.c_str(), 1);
  d = OpenRocjitsuDevice({});
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound) << d.status();
  unsetenv("KIRC_ROCJITSU");

  o.dir = FakeBuild("other-protocol", "exit 0", "kirc-rocjitsu-run 7 rocjitsu abc");
  d = OpenRocjitsuDevice(o);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition) << d.status();
  EXPECT_NE(d.status().message().find("protocol 7"), std::string::npos) << d.status();

  o.dir = FakeBuild("garbled", "exit 0", "hello");
  d = OpenRocjitsuDevice(o);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition) << d.status();
  EXPECT_NE(d.status().message().find("hello"), std::string::npos) << d.status();
}

TEST(RocjitsuDeviceTest, WritesTheRequestAndReadsTheBuffersBack) {
  RocjitsuOptions o;
  o.dir = FakeBuild("mark", kMarkFirstByte);
  absl::StatusOr<std::unique_ptr<RocjitsuDevice>> d = OpenRocjitsuDevice(o);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->Processors(), std::vector<std::string>{"gfx942"});
  EXPECT_EQ((*d)->Name(), "rocjitsu 01234567 (" + o.dir + ")");
  // add_f16.kir: x, y, out (f16[...]) and the f32 scalar `scale`.
  Kernel k = Load("add_f16");
  const std::string hsaco = Hsaco(k, "gfx942");
  ASSERT_FALSE(hsaco.empty());
  KernelData data = MakeInputs(k, 7);
  KernelData before = data;
  absl::StatusOr<DeviceRun> run = (*d)->Run(k, **LookupTarget("gfx942"), hsaco, data);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->instructions, 1234);
  EXPECT_EQ(run->device, "rocjitsu 01234567 (gfx942)");
  for (const char* name : {"x", "y", "out"}) {
    std::vector<uint8_t> want = before.buffers[name];
    want[0] = 0xab;
    EXPECT_EQ(data.buffers[name], want) << name;
  }
  // The request: buffers in argument order at (n + 1) * 64 GiB + 4 GiB - 256.
  const std::string req = ReadAll(o.dir + "/log/request.txt");
  std::vector<std::string> lines = absl::StrSplit(req, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 10u) << req;
  EXPECT_EQ(lines[0], "kirc-rocjitsu-request 1");
  EXPECT_EQ(lines[1], "target gfx942");
  EXPECT_TRUE(absl::StartsWith(lines[2], "code_object /")) << lines[2];
  EXPECT_EQ(lines[3], "kernel " + k.name);
  EXPECT_EQ(lines[4], absl::StrCat("workgroup ", k.workgroup[0], " ", k.workgroup[1], " ", k.workgroup[2]));
  EXPECT_EQ(lines[5], absl::StrCat("grid ", k.grid[0], " ", k.grid[1], " ", k.grid[2]));
  EXPECT_NE(req.find("\nkernarg 0x7f0000000000 /"), std::string::npos) << req;
  EXPECT_NE(req.find("\nload 0x10ffffff00 /"), std::string::npos) << req;
  EXPECT_NE(req.find("\nload 0x20ffffff00 /"), std::string::npos) << req;
  EXPECT_NE(req.find("\nload 0x30ffffff00 /"), std::string::npos) << req;
  EXPECT_NE(req.find(absl::StrCat("\nsave 0x30ffffff00 ", before.buffers["out"].size(), " /")), std::string::npos)
      << req;
  // The kernarg segment: the three pointers at 0, 8, 16 and scale at 24.
  const std::string ka = ReadAll(o.dir + "/log/kernarg.bin");
  ASSERT_GE(ka.size(), 28u);
  uint64_t p[3];
  std::memcpy(p, ka.data(), 24);
  EXPECT_EQ(p[0], 0x10ffffff00ull);
  EXPECT_EQ(p[1], 0x20ffffff00ull);
  EXPECT_EQ(p[2], 0x30ffffff00ull);
  uint32_t scale = 0;
  std::memcpy(&scale, ka.data() + 24, 4);
  EXPECT_EQ(scale, before.scalars["scale"]);
}

TEST(RocjitsuDeviceTest, RunnerOutcomesBecomeStatuses) {
  Kernel k = Load("copy_f32");
  const std::string hsaco = Hsaco(k, "gfx942");
  ASSERT_FALSE(hsaco.empty());
  struct Case {
    const char* name;
    const char* body;
    absl::StatusCode code;
    const char* says;
  };
  const Case cases[] = {
      {"fails", "echo 'kirc-rocjitsu-run: error: illegal instruction at pc 0x40' >&2; exit 3",
       absl::StatusCode::kAborted, "illegal instruction at pc 0x40"},
      {"refuses", "echo 'kirc-rocjitsu-run: error: line 3: unknown directive' >&2; exit 2",
       absl::StatusCode::kInternal, "unknown directive"},
      {"crashes", "kill -SEGV $$", absl::StatusCode::kAborted, "signal 11"},
      {"no-output", "echo ok; exit 0", absl::StatusCode::kInternal, "wrote no output for buffer"},
      {"hangs", "sleep 60", absl::StatusCode::kDeadlineExceeded, "within 1 s"},
  };
  for (const Case& c : cases) {
    RocjitsuOptions o;
    o.dir = FakeBuild(c.name, c.body);
    o.timeout_seconds = 1;
    absl::StatusOr<std::unique_ptr<RocjitsuDevice>> d = OpenRocjitsuDevice(o);
    ASSERT_TRUE(d.ok()) << d.status();
    KernelData data = MakeInputs(k, 1);
    absl::StatusOr<DeviceRun> run = (*d)->Run(k, **LookupTarget("gfx942"), hsaco, data);
    EXPECT_EQ(run.status().code(), c.code) << c.name << ": " << run.status();
    EXPECT_NE(run.status().message().find(c.says), std::string::npos) << c.name << ": " << run.status();
  }
  // A processor the build does not run.
  RocjitsuOptions o;
  o.dir = FakeBuild("gfx942-only", kMarkFirstByte);
  absl::StatusOr<std::unique_ptr<RocjitsuDevice>> d = OpenRocjitsuDevice(o);
  ASSERT_TRUE(d.ok()) << d.status();
  KernelData data = MakeInputs(k, 1);
  absl::StatusOr<DeviceRun> run = (*d)->Run(k, **LookupTarget("gfx90a"), Hsaco(k, "gfx90a"), data);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_NE(run.status().message().find("runs only gfx942"), std::string::npos) << run.status();
}

TEST(RocjitsuDeviceTest, KnownDeviationIsRocjitsusF16NaNBitZeroOnly) {
  RocjitsuOptions o;
  o.dir = FakeBuild("deviation", kMarkFirstByte);
  absl::StatusOr<std::unique_ptr<RocjitsuDevice>> d = OpenRocjitsuDevice(o);
  ASSERT_TRUE(d.ok()) << d.status();
  const RocjitsuDevice& rj = **d;
  // (kirc's bits, rocjitsu's bits): rocjitsu sets bit 0 and may leave a NaN unquieted.
  EXPECT_NE(rj.KnownDeviation(ElemType::kF16, 0x7e76, 0x7e77), "");
  EXPECT_NE(rj.KnownDeviation(ElemType::kF16, 0xfe00, 0xfe01), "");
  EXPECT_NE(rj.KnownDeviation(ElemType::kF16, 0x7e00, 0x7c01), "");
  EXPECT_EQ(rj.KnownDeviation(ElemType::kF16, 0x7e00, 0x7e02), "");  // another payload
  EXPECT_EQ(rj.KnownDeviation(ElemType::kF16, 0x7e01, 0x7e00), "");  // bit 0 the other way
  EXPECT_EQ(rj.KnownDeviation(ElemType::kF16, 0x7e00, 0xfe01), "");  // another sign
  EXPECT_EQ(rj.KnownDeviation(ElemType::kF16, 0x3c00, 0x3c01), "");  // not NaNs
  EXPECT_EQ(rj.KnownDeviation(ElemType::kF16, 0x7c00, 0x7c01), "");  // inf is not a NaN
  EXPECT_EQ(rj.KnownDeviation(ElemType::kF32, 0x7fc00000, 0x7fc00001), "");
  // Widened to f32 (difftest seeds 200474, 200764: cvt f16 -> f32 of such NaNs).
  EXPECT_NE(rj.KnownDeviation(ElemType::kF32, 0x7fc00000, 0x7fc02000), "");
  EXPECT_NE(rj.KnownDeviation(ElemType::kF32, 0xffd10000, 0xffd12000), "");
  EXPECT_NE(rj.KnownDeviation(ElemType::kF32, 0x7fc00000, 0x7f802000), "");  // not quieted
  EXPECT_EQ(rj.KnownDeviation(ElemType::kF32, 0x7fc00000, 0x7fc04000), "");  // another bit
  EXPECT_EQ(rj.KnownDeviation(ElemType::kF32, 0x7fc02000, 0x7fc00000), "");  // the other way
  EXPECT_EQ(rj.KnownDeviation(ElemType::kBF16, 0x7fc0, 0x7fc1), "");

  // CompareDevices counts explained elements apart; they do not fail.
  Kernel k;
  Arg a;
  a.name = "h";
  a.elem = ElemType::kF16;
  a.shape = {4};
  a.strides = {1};
  k.args = {a};
  KernelData x, y;
  x.buffers["h"] = std::vector<uint8_t>{0x76, 0x7e, 0x00, 0x3c, 0x00, 0x7e, 0x00, 0x00};
  y.buffers["h"] = std::vector<uint8_t>{0x77, 0x7e, 0x00, 0x3c, 0x01, 0x7e, 0x00, 0x00};
  auto why = [&](const Arg& a, uint64_t p, uint64_t q) { return rj.KnownDeviation(a.elem, p, q); };
  std::vector<DeviceDifference> diffs = CompareDevices(k, x, y, why);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].explained, 2);
  EXPECT_EQ(diffs[0].differing, 0);
  EXPECT_TRUE(DevicesAgree(diffs));
  y.buffers["h"][2] = 0x01;  // h[1] = 0x3c01: a real difference
  diffs = CompareDevices(k, x, y, why);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].differing, 1);
  EXPECT_EQ(diffs[0].element, "h[1]");
  EXPECT_FALSE(DevicesAgree(diffs));
}

// The emulator, then one element of one buffer changed: a device that
// disagrees in a known place.
class OffByOneBit : public Device {
 public:
  OffByOneBit(std::string buffer, size_t byte) : buffer_(std::move(buffer)), byte_(byte) {}
  std::string Name() const override { return "off-by-one-bit"; }
  absl::StatusOr<DeviceRun> Run(const Kernel& k, const TargetInfo& t, absl::string_view hsaco,
                                KernelData& data) override {
    absl::StatusOr<DeviceRun> r = emu_.Run(k, t, hsaco, data);
    if (r.ok()) {
      data.buffers[buffer_][byte_] ^= 1;
      r->device = "off-by-one-bit";
    }
    return r;
  }

 private:
  EmuDevice emu_{*ResolveLlvmBin(std::nullopt)};
  std::string buffer_;
  size_t byte_;
};

TEST(RocjitsuDeviceTest, CrossCheckAgreesAndNamesTheFirstDifference) {
  // copy_f32.kir: dst f32[...] written by every work-item.
  Kernel k = Load("copy_f32");
  EmuDevice a(*ResolveLlvmBin(std::nullopt)), b(*ResolveLlvmBin(std::nullopt));
  RunOptions ro;
  ro.mcpu = "gfx942";
  ro.llvm_bin = *ResolveLlvmBin(std::nullopt);
  ro.cross_check = &b;
  absl::StatusOr<RunReport> r = RunAndCheck(k, a, ro);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok) << r->text;
  ASSERT_FALSE(r->passes.empty());
  for (const CheckPass& p : r->passes) {
    EXPECT_TRUE(p.cross_run.has_value());
    EXPECT_TRUE(p.cross_diffs.empty());
  }
  EXPECT_NE(r->text.find("cross-check: every buffer bit-identical between"), std::string::npos) << r->text;
  EXPECT_NE(r->text.find("the devices agree bit for bit"), std::string::npos) << r->text;

  // Bit 0 of byte 4 * 37 + 1 of dst: element 37 (f32), in the shape when
  // dst is 1-D with stride 1 (copy_f32 is).
  ASSERT_EQ(k.args[1].name, "dst");
  ASSERT_EQ(k.args[1].strides, std::vector<int64_t>{1});
  OffByOneBit bad("dst", 4 * 37 + 1);
  ro.cross_check = &bad;
  r = RunAndCheck(k, a, ro);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok) << r->text;
  ASSERT_EQ(r->passes[0].cross_diffs.size(), 1u);
  const DeviceDifference& d = r->passes[0].cross_diffs[0];
  EXPECT_EQ(d.buffer, "dst");
  EXPECT_EQ(d.element, "dst[37]");
  EXPECT_EQ(d.byte_offset, 148);
  EXPECT_EQ(d.differing, 1);
  EXPECT_EQ(d.bits_a ^ d.bits_b, 0x100u);
  EXPECT_NE(r->text.find("cross-check: dst differs between"), std::string::npos) << r->text;
  EXPECT_NE(r->text.find("the devices DISAGREE"), std::string::npos) << r->text;
  // The reference comparison itself still passes: only the devices disagree.
  for (const BufferDiff& bd : r->passes[0].diffs) EXPECT_TRUE(bd.ok) << bd.name;
}


TEST(RocjitsuDeviceTest, RandomInputsToAnMfmaAllowAnotherRoundingWithinTheBound) {
  // mma_16x16x16_f16: one MFMA per wave, C f32. On random inputs the order of
  // an MFMA's sums is not specified: a last-bit difference of the second
  // device is explained when it stays within the rounding bound; a change of
  // an exponent bit is not.
  Kernel k = Load("mma_16x16x16_f16");
  const std::string out = k.args.back().name;
  ASSERT_EQ(k.args.back().elem, ElemType::kF32);
  EmuDevice a(*ResolveLlvmBin(std::nullopt));
  RunOptions ro;
  ro.mcpu = "gfx942";
  ro.llvm_bin = *ResolveLlvmBin(std::nullopt);
  ro.inputs = InputMode::kRandom;
  OffByOneBit last_bit(out, 0);  // bit 0 of element 0
  ro.cross_check = &last_bit;
  absl::StatusOr<RunReport> r = RunAndCheck(k, a, ro);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok) << r->text;
  ASSERT_EQ(r->passes[0].cross_diffs.size(), 1u);
  EXPECT_EQ(r->passes[0].cross_diffs[0].explained, 1);
  EXPECT_NE(r->text.find("order of sums is not specified"), std::string::npos) << r->text;
  OffByOneBit exponent(out, 3);  // bit 24: an exponent bit of element 0
  ro.cross_check = &exponent;
  r = RunAndCheck(k, a, ro);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok) << r->text;
  EXPECT_EQ(r->passes[0].cross_diffs[0].differing, 1);
  // Exact inputs: bit for bit, even the last bit fails.
  ro.inputs = InputMode::kExact;
  ro.cross_check = &last_bit;
  r = RunAndCheck(k, a, ro);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok) << r->text;
}

}  // namespace
}  // namespace kir
