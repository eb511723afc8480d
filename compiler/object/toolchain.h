// Access to the external LLVM tools (llvm-mc, ld.lld, llvm-readelf, ...) that turn
// the emitter's AMDGCN assembly into a code object, plus a small, thread-safe
// subprocess runner and a scoped temporary directory.
//
// Every function here is safe to call concurrently from several threads: none
// keeps global mutable state, and every file descriptor is opened close-on-exec.
#ifndef KIRC_COMPILER_OBJECT_TOOLCHAIN_H_
#define KIRC_COMPILER_OBJECT_TOOLCHAIN_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kir {

// Where LLVM's tools live when neither --llvm-bin nor KIRC_LLVM_BIN says otherwise.
inline constexpr char kDefaultLlvmBin[] = "/usr/lib/llvm-22/bin";

// The directory holding LLVM's tools: `flag_value` (the --llvm-bin=DIR flag) if
// given, else $KIRC_LLVM_BIN if set and non-empty, else kDefaultLlvmBin.
// Errors: InvalidArgument if the flag is given but empty; NotFound if the chosen
// directory does not exist or is not a directory (the message says whether the
// flag, the environment variable or the default named it).
absl::StatusOr<std::string> ResolveLlvmBin(std::optional<std::string> flag_value);

// Full path `llvm_bin`/`tool` of one of the LLVM tools (llvm-mc, ld.lld,
// llvm-objdump, llvm-readelf, FileCheck, clang, clang-offload-bundler, ...).
// Errors: NotFound if it is missing, FailedPrecondition if it is not an
// executable file. The message names the path, the Debian package that provides
// the tool, and suggests third_party/install_deps.sh, --llvm-bin or KIRC_LLVM_BIN.
absl::StatusOr<std::string> FindTool(const std::string& llvm_bin, absl::string_view tool);

// The Debian package that provides `tool` under /usr/lib/llvm-22/bin (for example
// "lld-22" for "ld.lld"), or "" for a tool this module does not know.
std::string DebianPackageForTool(absl::string_view tool);

// Outcome of a finished child process.
struct ProcessResult {
  // The exit status (0..255) if the child exited normally; -N if signal N killed it.
  int exit_code = 0;
  std::string stdout_text;  // everything the child wrote to stdout (bytes, not only text)
  std::string stderr_text;  // everything the child wrote to stderr
};

// Runs argv[0] with arguments argv[1..] directly (no shell; argv[0] without a '/'
// is looked up in $PATH), feeding `stdin_text` to its stdin (an empty
// `stdin_text` gives it /dev/null) and collecting stdout and stderr fully. The
// child runs in its own process group with default SIGPIPE handling and an empty
// signal mask; it inherits the environment and working directory.
// `timeout_seconds` bounds the whole run (<= 0: no limit); when it expires the
// child's process group is killed with SIGKILL and DeadlineExceeded is returned.
// A non-zero exit is not an error: look at exit_code. Errors: InvalidArgument for
// an empty argv; NotFound if argv[0] cannot be started (missing or not
// executable); Internal for failed system calls; DeadlineExceeded on timeout.
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         absl::string_view stdin_text = "",
                                         int timeout_seconds = 120);

// A fresh private directory (mkdtemp, mode 0700) under $TEST_TMPDIR, else $TMPDIR,
// else /tmp, removed together with everything in it when the object is destroyed.
// Movable, not copyable.
class ScopedTempDir {
 public:
  // Creates the directory. `prefix` starts its name (`prefix`XXXXXX).
  // Errors: Internal if mkdtemp fails (the message names the template).
  static absl::StatusOr<ScopedTempDir> Create(absl::string_view prefix = "kirc.");

  ScopedTempDir(ScopedTempDir&& other) noexcept;
  ScopedTempDir& operator=(ScopedTempDir&& other) noexcept;
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  ~ScopedTempDir();

  // Absolute path of the directory (empty after being moved from).
  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string File(absl::string_view name) const;

 private:
  explicit ScopedTempDir(std::string path) : path_(std::move(path)) {}
  void Remove();
  std::string path_;
};

// Writes `contents` to `path` (created or truncated, mode 0644).
// Errors: Internal naming the path and errno text.
absl::Status WriteFileBytes(const std::string& path, absl::string_view contents);
// The whole contents of `path`. Errors: NotFound / Internal naming the path.
absl::StatusOr<std::string> ReadFileBytes(const std::string& path);
// The same for a file that must be a regular file of at most `max_bytes`
// (code objects, assembly: a device such as /dev/zero would be read
// forever). Errors: InvalidArgument "PATH: not a regular file" / "PATH: N
// bytes, more than the limit of M", else as ReadFileBytes.
absl::StatusOr<std::string> ReadRegularFileBytes(const std::string& path, int64_t max_bytes);

// ---- Assembling, linking, inspecting ------------------------------------------
// Each of these runs inside the process (llvm_in_process.h: LLVM 22's MC layer,
// the same bytes and text as the tools; code_object_linker.h: kirc's linker,
// ld.lld's layout) when `llvm_bin` is LLVM 22's own
// directory (kDefaultLlvmBin, or a path resolving to it), and runs the tool from
// `llvm_bin` otherwise (--llvm-bin or KIRC_LLVM_BIN naming another LLVM).

// True if the functions below work in process for `llvm_bin`.
bool UsesInProcessLlvm(const std::string& llvm_bin);

// As `llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=MCPU -filetype=obj` reading its
// stdin (diagnostics say "<stdin>:LINE:COL"): the relocatable ELF object's bytes.
// `mcpu` may be a target ID ("gfx90a:xnack-", "gfx942:sramecc+:xnack-"): the
// processor goes to -mcpu and the features to -mattr (+sramecc,-xnack), which
// sets the ELF e_flags and must match the assembly's `.amdgcn_target`.
// Errors: those of FindTool (tools only); InvalidArgument if `mcpu` is empty,
// malformed or unknown to LLVM, or if the assembly is refused (the message
// holds the assembler's diagnostics).
absl::StatusOr<std::string> AssembleToObject(const std::string& llvm_bin,
                                             absl::string_view asm_text,
                                             absl::string_view mcpu);

// As `ld.lld -shared`: links one relocatable object into a code object (.hsaco)
// and returns its bytes. In process, kirc's linker (code_object_linker.h)
// links what it handles (kernels as llvm-mc assembles them) and LLVM 22's
// ld.lld runs for anything else. Errors: those of FindTool (tools only);
// InvalidArgument if `object_bytes` is not an AMDGPU relocatable ELF file or
// the link fails (with lld's diagnostics).
absl::StatusOr<std::string> LinkCodeObject(const std::string& llvm_bin,
                                           absl::string_view object_bytes);

// AssembleToObject followed by LinkCodeObject.
absl::StatusOr<std::string> BuildCodeObject(const std::string& llvm_bin,
                                            absl::string_view asm_text,
                                            absl::string_view mcpu);

// The NT_AMDGPU_METADATA notes of an ELF file (code object or relocatable
// object) as `llvm-readelf --notes` prints them, the metadata as YAML; see
// code_object_notes.h for a parser. In process, notes of other kinds are left
// out. Errors: those of FindTool (tools only); InvalidArgument if the bytes are
// not ELF or cannot be read (with the reader's diagnostics).
absl::StatusOr<std::string> ReadElfNotes(const std::string& llvm_bin,
                                         absl::string_view code_object_bytes);

// The instructions of function `symbol` in a code object as `llvm-objdump -d
// --mcpu=PROCESSOR --disassemble-symbols=SYMBOL` prints them (an "ADDRESS
// <symbol>:" line, then per instruction its text and "// ADDRESS: DWORDS"), the
// text hw/emu's reader takes. In process, bytes that do not decode are an
// error (llvm-objdump prints them as `.long`). Errors: those of FindTool (tools
// only); InvalidArgument for bytes that are not ELF or do not decode; NotFound
// (in process) if there is no such function symbol.
absl::StatusOr<std::string> DisassembleSymbol(const std::string& llvm_bin,
                                              absl::string_view code_object_bytes,
                                              absl::string_view symbol,
                                              absl::string_view processor);

// The same four steps always through the tools in `llvm_bin` (llvm-mc, ld.lld,
// llvm-readelf --notes, llvm-objdump -d): what the functions above do for
// another LLVM, and the independent oracle llvm_in_process_test compares the
// in-process results with.
absl::StatusOr<std::string> AssembleWithLlvmMc(const std::string& llvm_bin,
                                               absl::string_view asm_text,
                                               absl::string_view mcpu);
absl::StatusOr<std::string> LinkWithLdLld(const std::string& llvm_bin,
                                          absl::string_view object_bytes);
absl::StatusOr<std::string> ReadNotesWithLlvmReadelf(const std::string& llvm_bin,
                                                     absl::string_view code_object_bytes);
absl::StatusOr<std::string> DisassembleWithLlvmObjdump(const std::string& llvm_bin,
                                                       absl::string_view code_object_bytes,
                                                       absl::string_view symbol,
                                                       absl::string_view processor);

// True if `bytes` starts with the ELF magic "\x7f" "ELF".
bool HasElfMagic(absl::string_view bytes);

// ---- HIP offload bundles (clang-offload-bundler, LLVM 22) ----------------------

// The bundle entry ID clang's HIP uses for a code object of `target_id`:
// "hipv4-amdgcn-amd-amdhsa--" + target_id (e.g. "...--gfx90a:xnack-").
std::string HipBundleEntryId(absl::string_view target_id);
// The empty host entry every clang HIP fat binary (.hipfb) carries first.
inline constexpr char kHipHostBundleEntry[] = "host-x86_64-unknown-linux-gnu";
// True if `bytes` starts with the offload bundle magic "__CLANG_OFFLOAD_BUNDLE__".
bool HasOffloadBundleMagic(absl::string_view bytes);

struct BundleEntry {
  std::string target_id;    // e.g. "gfx942:sramecc+:xnack-"
  std::string code_object;  // .hsaco bytes for it
};

// Bundles code objects as clang does for HIP (`clang-offload-bundler -type=o
// -bundle-align=4096 -targets=host-x86_64-unknown-linux-gnu,hipv4-...` with
// /dev/null as the host input): the empty host entry, then one entry per
// target ID in the given order, each code object at a 4096-byte aligned
// offset. The bundle's bytes start with "__CLANG_OFFLOAD_BUNDLE__";
// hipModuleLoadData accepts them. Written in process for LLVM 22's own
// directory (byte-identical to the bundler's output, tested), by the bundler
// of any other `llvm_bin`. Errors: InvalidArgument for no entries, an entry
// that is not ELF, a target ID given twice, or target IDs the bundler refuses
// as conflicting (one processor with a feature set in one ID and left "any"
// in the first ID in sorted order, e.g. gfx942 with gfx942:xnack-); those of
// FindTool (tools only).
absl::StatusOr<std::string> BundleCodeObjects(const std::string& llvm_bin,
                                              const std::vector<BundleEntry>& entries);

// The entry IDs of a bundle (`clang-offload-bundler -list`; in process, in the
// bundle's order), the host's as the bundler writes it
// ("host-x86_64-unknown-linux-gnu-"). Errors: InvalidArgument for bytes that
// are not a bundle or whose header is truncated or points past the end.
absl::StatusOr<std::vector<std::string>> ListBundleEntries(const std::string& llvm_bin,
                                                           absl::string_view bundle);

// The code object stored for `target_id` in a bundle (`-unbundle`), read in
// process for any `llvm_bin`. Errors: NotFound if the bundle has no entry
// HipBundleEntryId(target_id) (the message lists the entries it has);
// InvalidArgument for a malformed bundle.
absl::StatusOr<std::string> UnbundleCodeObject(const std::string& llvm_bin,
                                               absl::string_view bundle,
                                               absl::string_view target_id);

// BundleCodeObjects and ListBundleEntries through clang-offload-bundler in
// `llvm_bin` as a process: for another LLVM, and the oracle toolchain_test
// compares the in-process bundles with.
absl::StatusOr<std::string> BundleWithClangOffloadBundler(const std::string& llvm_bin,
                                                          const std::vector<BundleEntry>& entries);
absl::StatusOr<std::vector<std::string>> ListBundleEntriesWithClangOffloadBundler(
    const std::string& llvm_bin, absl::string_view bundle);

}  // namespace kir

#endif  // KIRC_COMPILER_OBJECT_TOOLCHAIN_H_
