#include "hw/rocjitsu/rocjitsu_device.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/object/toolchain.h"
#include "hw/kernarg.h"

namespace kir {
namespace {

constexpr char kBuildHint[] =
    "build rocjitsu with third_party/rocjitsu/build.sh --source=ROCM_SYSTEMS_CHECKOUT --out=DIR "
    "(third_party/rocjitsu/README.md), then set KIRC_ROCJITSU=DIR or pass --rocjitsu=DIR";

// The last non-empty line of a child's output, for error messages.
std::string Tail(absl::string_view text) {
  std::string t(absl::StripAsciiWhitespace(text));
  if (t.size() > 2000) t = absl::StrCat("...", t.substr(t.size() - 2000));
  return t.empty() ? "(no output)" : t;
}

bool IsExecutable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string RocjitsuRequest(absl::string_view processor, absl::string_view code_object_path,
                            absl::string_view kernel, const Kernel& k, uint64_t kernarg_address,
                            absl::string_view kernarg_path, const std::vector<RocjitsuBufferFiles>& buffers,
                            int64_t private_segment_size, int timeout_seconds) {
  std::string r = absl::StrCat("kirc-rocjitsu-request ", kRocjitsuProtocol, "\n");
  absl::StrAppend(&r, "target ", processor, "\n");
  absl::StrAppend(&r, "code_object ", code_object_path, "\n");
  absl::StrAppend(&r, "kernel ", kernel, "\n");
  absl::StrAppend(&r, "workgroup ", k.workgroup[0], " ", k.workgroup[1], " ", k.workgroup[2], "\n");
  absl::StrAppend(&r, "grid ", k.grid[0], " ", k.grid[1], " ", k.grid[2], "\n");
  // kirc's LDS is static (the descriptor's group_segment_fixed_size).
  absl::StrAppend(&r, "group_segment_size 0\n");
  absl::StrAppend(&r, "private_segment_size ", private_segment_size, "\n");
  absl::StrAppend(&r, absl::StrFormat("kernarg 0x%x ", kernarg_address), kernarg_path, "\n");
  for (const RocjitsuBufferFiles& b : buffers)
    absl::StrAppend(&r, absl::StrFormat("load 0x%x ", b.address), b.in_path, "\n");
  for (const RocjitsuBufferFiles& b : buffers)
    absl::StrAppend(&r, absl::StrFormat("save 0x%x %d ", b.address, b.bytes), b.out_path, "\n");
  if (timeout_seconds > 0) absl::StrAppend(&r, "max_seconds ", timeout_seconds, "\n");
  return r;
}

absl::StatusOr<std::unique_ptr<RocjitsuDevice>> OpenRocjitsuDevice(RocjitsuOptions opts) {
  if (opts.dir.empty()) {
    const char* env = std::getenv("KIRC_ROCJITSU");
    if (env != nullptr) opts.dir = env;
  }
  if (opts.dir.empty())
    return absl::UnavailableError(
        absl::StrCat("no rocjitsu build named (neither --rocjitsu=DIR nor $KIRC_ROCJITSU is set); ", kBuildHint));
  while (opts.dir.size() > 1 && opts.dir.back() == '/') opts.dir.pop_back();
  const std::string runner = absl::StrCat(opts.dir, "/bin/kirc-rocjitsu-run");
  if (!IsExecutable(runner)) {
    struct stat st;
    std::string what;
    if (stat(opts.dir.c_str(), &st) != 0)
      what = "does not exist";
    else if (!S_ISDIR(st.st_mode))
      what = "is a file, not a build directory (name the directory build.sh --out made)";
    else if (stat(runner.c_str(), &st) == 0)
      what = "has a runner that is not an executable file";
    else
      what = "has no runner (is it the directory build.sh --out made?)";
    return absl::NotFoundError(absl::StrCat("the rocjitsu build '", opts.dir, "' ", what, ": looked for ", runner,
                                            "; ", kBuildHint));
  }
  absl::StatusOr<ProcessResult> v = RunProcess({runner, "--version"}, "", 60);
  if (!v.ok()) return v.status();
  // "kirc-rocjitsu-run 1 rocjitsu <commit>"
  std::vector<std::string> words = absl::StrSplit(absl::StripAsciiWhitespace(v->stdout_text), ' ', absl::SkipEmpty());
  int protocol = 0;
  if (v->exit_code != 0 || words.size() != 4 || words[0] != "kirc-rocjitsu-run" || words[2] != "rocjitsu" ||
      !absl::SimpleAtoi(words[1], &protocol))
    return absl::FailedPreconditionError(absl::StrCat(
        runner, " --version did not answer 'kirc-rocjitsu-run ", kRocjitsuProtocol, " rocjitsu COMMIT' (exit status ",
        v->exit_code, "): ", Tail(v->stdout_text + v->stderr_text), "; rebuild it with this kirc's ", kBuildHint));
  if (protocol != kRocjitsuProtocol)
    return absl::FailedPreconditionError(absl::StrCat(runner, " speaks protocol ", protocol, ", this kirc ",
                                                      kRocjitsuProtocol, "; rebuild it: ", kBuildHint));
  absl::StatusOr<ProcessResult> t = RunProcess({runner, "--targets"}, "", 60);
  if (!t.ok()) return t.status();
  std::vector<std::string> processors = absl::StrSplit(t->stdout_text, absl::ByAnyChar(" \n"), absl::SkipWhitespace());
  if (t->exit_code != 0 || processors.empty())
    return absl::FailedPreconditionError(absl::StrCat(runner, " --targets named no processor (exit status ",
                                                      t->exit_code, "): ", Tail(t->stdout_text + t->stderr_text)));
  std::string commit = words[3];
  return std::unique_ptr<RocjitsuDevice>(
      new RocjitsuDevice(std::move(opts), runner, std::move(commit), std::move(processors)));
}

std::string RocjitsuDevice::KnownDeviation(ElemType t, uint64_t other, uint64_t own) const {
  auto nan16 = [](uint64_t v) { return (v & 0x7c00) == 0x7c00 && (v & 0x3ff) != 0; };
  auto nan32 = [](uint64_t v) { return (v & 0x7f800000) == 0x7f800000 && (v & 0x7fffff) != 0; };
  // An f16 NaN of rocjitsu's: bit 0 set, the quiet bit (9) perhaps clear.
  const bool f16 = t == ElemType::kF16 && nan16(other) && nan16(own) && ((other ^ own) & ~uint64_t{0x201}) == 0 &&
                   (own & 1);
  // The same NaN widened to f32 (mantissa << 13, not quieted by rocjitsu).
  const bool f32 = t == ElemType::kF32 && nan32(other) && nan32(own) &&
                   ((other ^ own) & ~uint64_t{0x402000}) == 0 && (own & 0x2000);
  if (f16 || f32)
    return absl::StrCat("rocjitsu ", commit_.substr(0, 8),
                        " sets bit 0 of the f16 NaNs it makes and does not quiet them",
                        f32 ? " (here widened to f32)" : "", " (hw/rocjitsu/SEMANTICS.md)");
  return "";
}

std::string RocjitsuDevice::Name() const {
  return absl::StrCat("rocjitsu ", commit_.substr(0, 8), " (", opts_.dir, ")");
}

absl::StatusOr<DeviceRun> RocjitsuDevice::Run(const Kernel& k, const TargetInfo& target, absl::string_view hsaco,
                                              KernelData& data) {
  const std::string processor(TargetProcessor(target.name));
  bool known = false;
  for (const std::string& p : processors_) known = known || p == processor;
  if (!known)
    return absl::FailedPreconditionError(absl::StrCat("the code object is for ", processor, " but the rocjitsu build ",
                                                      opts_.dir, " runs only ", absl::StrJoin(processors_, ", "),
                                                      ": run with --mcpu=", processors_.front(), " or another device"));
  absl::StatusOr<CodeObjectKernel> meta = LaunchMetadata(opts_.llvm_bin, hsaco, k);
  if (!meta.ok()) return meta.status();
  absl::StatusOr<ScopedTempDir> dir = ScopedTempDir::Create("kirc-rocjitsu.");
  if (!dir.ok()) return dir.status();
  const std::string hsaco_path = dir->File("kernel.hsaco");
  if (absl::Status st = WriteFileBytes(hsaco_path, hsaco); !st.ok()) return st;
  std::map<std::string, uint64_t> ptrs;
  std::vector<RocjitsuBufferFiles> files;
  std::vector<std::string> names;
  int n = 0;
  uint64_t placed_end = 0;
  // Buffers numbered in the code object's argument order, as the emulator
  // numbers them (EmulatedBufferAddress), so both see the same addresses
  // when a foreign code object orders its arguments otherwise than k.
  absl::StatusOr<std::vector<ArgBinding>> bound = BindKernelArgs(k, meta->notes, data.extra_args);
  if (!bound.ok()) return bound.status();
  for (const ArgBinding& b : *bound) {
    if (b.kind != ArgBinding::Kind::kBuffer) continue;
    const Arg& a = *k.FindArg(b.name);
    auto it = data.buffers.find(a.name);
    if (it == data.buffers.end())
      return absl::InvalidArgumentError(absl::StrCat("no data for buffer argument '", a.name, "'"));
    RocjitsuBufferFiles f;
    f.address = EmulatedBufferAddressAfter(n, placed_end);
    placed_end = std::max(placed_end, f.address + it->second.size());
    f.bytes = static_cast<int64_t>(it->second.size());
    f.in_path = dir->File(absl::StrCat("buffer", n, ".in"));
    f.out_path = dir->File(absl::StrCat("buffer", n, ".out"));
    // The runner reads every byte: the sparse buffer is materialised whole.
    absl::string_view bytes(reinterpret_cast<const char*>(it->second.TouchAll()), it->second.size());
    if (absl::Status st = WriteFileBytes(f.in_path, bytes); !st.ok()) return st;
    ptrs[a.name] = f.address;
    files.push_back(std::move(f));
    names.push_back(a.name);
    ++n;
  }
  absl::StatusOr<std::vector<uint8_t>> kernargs = PackKernelArgs(k, meta->notes, ptrs, data);
  if (!kernargs.ok()) return kernargs.status();
  const std::string kernarg_path = dir->File("kernarg.bin");
  if (absl::Status st = WriteFileBytes(
          kernarg_path, absl::string_view(reinterpret_cast<const char*>(kernargs->data()), kernargs->size()));
      !st.ok())
    return st;
  const std::string request = RocjitsuRequest(processor, hsaco_path, k.name, k, kEmulatedKernargAddress, kernarg_path,
                                              files, meta->notes.private_segment_fixed_size, opts_.timeout_seconds);
  const std::string request_path = dir->File("request.txt");
  if (absl::Status st = WriteFileBytes(request_path, request); !st.ok()) return st;

  const auto start = std::chrono::steady_clock::now();
  // The runner stops itself at max_seconds; its process group is killed a
  // little later if it does not.
  const int t = opts_.timeout_seconds;
  absl::StatusOr<ProcessResult> p = RunProcess({runner_, request_path}, "", t > 0 ? t + std::clamp(t / 10, 2, 30) : 0);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!p.ok()) {
    if (absl::IsDeadlineExceeded(p.status()))
      return absl::DeadlineExceededError(absl::StrCat("rocjitsu did not finish kernel '", k.name, "' within ",
                                                      opts_.timeout_seconds, " s (", runner_, ")"));
    return p.status();
  }
  const std::string said = Tail(p->stderr_text.empty() ? p->stdout_text : p->stderr_text);
  if (p->exit_code == 3)
    return absl::AbortedError(absl::StrCat("rocjitsu: the dispatch of kernel '", k.name, "' on ", processor,
                                           " failed: ", said));
  if (p->exit_code < 0)
    return absl::AbortedError(absl::StrCat("rocjitsu's runner died of signal ", -p->exit_code, " running kernel '",
                                           k.name, "' on ", processor, ": ", said));
  if (p->exit_code != 0)
    return absl::InternalError(absl::StrCat("the rocjitsu runner refused kirc's request (exit status ", p->exit_code,
                                            ", a kirc bug or a runner of another build): ", said,
                                            "\nthe request was:\n", request));
  for (size_t i = 0; i < files.size(); ++i) {
    absl::StatusOr<std::string> out = ReadFileBytes(files[i].out_path);
    if (!out.ok())
      return absl::InternalError(absl::StrCat("the rocjitsu runner reported success but wrote no output for buffer '",
                                              names[i], "': ", out.status().message()));
    PagedBytes& buf = data.buffers[names[i]];
    if (out->size() != buf.size())
      return absl::InternalError(absl::StrCat("the rocjitsu runner wrote ", out->size(), " bytes for buffer '",
                                              names[i], "' of ", buf.size()));
    if (!out->empty()) std::memcpy(buf.TouchAll(), out->data(), out->size());
  }
  DeviceRun run;
  run.device = absl::StrCat("rocjitsu ", commit_.substr(0, 8), " (", processor, ")");
  run.milliseconds = ms;
  const int64_t threads = k.workgroup[0] * k.workgroup[1] * k.workgroup[2];
  run.waves = k.grid[0] * k.grid[1] * k.grid[2] * ((threads + 63) / 64);
  // "ok seconds=S instructions=N ...": counts the runner offers.
  for (absl::string_view w : absl::StrSplit(p->stdout_text, absl::ByAnyChar(" \n"), absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(w, absl::MaxSplits('=', 1));
    int64_t v = 0;
    if (kv.first == "instructions" && absl::SimpleAtoi(kv.second, &v)) run.instructions = v;
  }
  return run;
}

}  // namespace kir
