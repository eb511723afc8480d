#include "compiler/object/toolchain.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "compiler/object/code_object_linker.h"
#include "compiler/object/llvm_in_process.h"

extern char** environ;

namespace kir {
namespace {

#define KIRC_TC_CONCAT_INNER(a, b) a##b
#define KIRC_TC_CONCAT(a, b) KIRC_TC_CONCAT_INNER(a, b)
#define KIRC_TC_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = *std::move(tmp)
#define KIRC_TC_ASSIGN_OR_RETURN(lhs, expr) \
  KIRC_TC_ASSIGN_OR_RETURN_IMPL(KIRC_TC_CONCAT(status_or_, __LINE__), lhs, expr)

// strerror_r comes in a GNU (returns char*) and an XSI (returns int) flavour.
[[maybe_unused]] const char* StrErrorResult(char* result, const char*) { return result; }
[[maybe_unused]] const char* StrErrorResult(int result, const char* buf) {
  return result == 0 ? buf : "unknown error";
}

// Thread-safe strerror.
std::string ErrnoText(int err) {
  char buf[256];
  buf[0] = '\0';
  return absl::StrCat(StrErrorResult(strerror_r(err, buf, sizeof(buf)), buf), " (errno ", err,
                      ")");
}

absl::Status ErrnoError(absl::string_view what, int err) {
  return absl::InternalError(absl::StrCat(what, ": ", ErrnoText(err)));
}

// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Close();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Close() {
    if (fd_ >= 0) {
      ::close(fd_);  // never retried: on Linux the descriptor is gone even on EINTR
      fd_ = -1;
    }
  }

 private:
  int fd_ = -1;
};

// Keeps `fd` away from 0..2 so that the child's dup2 onto stdin/stdout/stderr
// always creates a fresh (inheritable) descriptor. Keeps close-on-exec.
absl::Status MoveAboveStdio(Fd& fd) {
  if (fd.get() > 2) return absl::OkStatus();
  int moved = fcntl(fd.get(), F_DUPFD_CLOEXEC, 3);
  if (moved < 0) return ErrnoError("fcntl(F_DUPFD_CLOEXEC)", errno);
  fd = Fd(moved);
  return absl::OkStatus();
}

absl::Status MakePipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  read_end = Fd(fds[0]);
  write_end = Fd(fds[1]);
  absl::Status s = MoveAboveStdio(read_end);
  if (s.ok()) s = MoveAboveStdio(write_end);
  return s;
}

absl::Status SetNonBlocking(const Fd& fd) {
  int flags = fcntl(fd.get(), F_GETFL);
  if (flags < 0 || fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK) < 0) {
    return ErrnoError("fcntl(O_NONBLOCK)", errno);
  }
  return absl::OkStatus();
}

// Owns posix_spawn's attribute and file-action objects.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  bool attr_ok = false;
  bool actions_ok = false;
  ~SpawnSetup() {
    if (attr_ok) posix_spawnattr_destroy(&attr);
    if (actions_ok) posix_spawn_file_actions_destroy(&actions);
  }
};

// Blocks SIGPIPE in the calling thread while alive, so that writing to a child
// that closed its stdin yields EPIPE instead of killing the process. A SIGPIPE
// raised meanwhile (thread-directed, pending) is discarded before unblocking.
class ScopedBlockSigpipe {
 public:
  ScopedBlockSigpipe() {
    sigemptyset(&pipe_set_);
    sigaddset(&pipe_set_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    was_pending_ = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    blocked_ = pthread_sigmask(SIG_BLOCK, &pipe_set_, &old_) == 0;
  }
  ~ScopedBlockSigpipe() {
    if (!blocked_) return;
    if (got_epipe_ && !was_pending_) {
      const struct timespec zero = {0, 0};
      while (true) {
        int r = sigtimedwait(&pipe_set_, nullptr, &zero);
        if (r == SIGPIPE) continue;  // consumed; look for another
        if (r < 0 && errno == EINTR) continue;
        break;  // EAGAIN: nothing pending
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  void NoteEpipe() { got_epipe_ = true; }

 private:
  sigset_t pipe_set_;
  sigset_t old_;
  bool blocked_ = false;
  bool was_pending_ = false;
  bool got_epipe_ = false;
};

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

// Waits (blocking) for `pid`; returns its wait status or -1.
int BlockingWait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

void KillGroupAndReap(pid_t pid) {
  kill(-pid, SIGKILL);  // the child leads its own process group
  kill(pid, SIGKILL);
  BlockingWait(pid);
}

std::string QuoteArgv(const std::vector<std::string>& argv) {
  std::vector<std::string> parts;
  parts.reserve(argv.size());
  for (const std::string& a : argv) {
    bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      parts.push_back(a);
    } else {
      std::string q = "'";
      for (char c : a) {
        if (c == '\'') {
          q += "'\\''";
        } else {
          q.push_back(c);
        }
      }
      q += "'";
      parts.push_back(std::move(q));
    }
  }
  return absl::StrJoin(parts, " ");
}

std::string Tail(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  return absl::StrCat("...", text.substr(text.size() - max_bytes));
}

std::string InstallHint() {
  return "install it with third_party/install_deps.sh, or point --llvm-bin=DIR or the "
         "KIRC_LLVM_BIN environment variable at a directory that has LLVM 22's tools";
}

// Runs an LLVM tool; a non-zero exit becomes InvalidArgument carrying the
// command line and the tool's diagnostics.
absl::StatusOr<ProcessResult> RunTool(absl::string_view tool,
                                      const std::vector<std::string>& argv,
                                      absl::string_view stdin_text = "") {
  KIRC_TC_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(argv, stdin_text));
  if (r.exit_code != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(tool, " failed (exit code ", r.exit_code, "): ", QuoteArgv(argv), "\n",
                     Tail(r.stderr_text, 64 * 1024)));
  }
  return r;
}

}  // namespace

// ---------------------------------------------------------------------------
// Locating the tools.

absl::StatusOr<std::string> ResolveLlvmBin(std::optional<std::string> flag_value) {
  std::string dir;
  std::string source;
  if (flag_value.has_value()) {
    if (flag_value->empty()) {
      return absl::InvalidArgumentError("--llvm-bin was given an empty directory name");
    }
    dir = *flag_value;
    source = "the --llvm-bin flag";
  } else if (const char* env = std::getenv("KIRC_LLVM_BIN"); env != nullptr && *env != '\0') {
    dir = env;
    source = "the KIRC_LLVM_BIN environment variable";
  } else {
    dir = kDefaultLlvmBin;
    source = "the default";
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    int err = errno;
    return absl::NotFoundError(absl::StrCat("LLVM tool directory ", dir, " (from ", source,
                                            ") does not exist or cannot be read: ",
                                            ErrnoText(err), "; ", InstallHint()));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat("LLVM tool directory ", dir, " (from ", source,
                                            ") is not a directory; ", InstallHint()));
  }
  return dir;
}

std::string DebianPackageForTool(absl::string_view tool) {
  if (tool == "llvm-mc" || tool == "llvm-objdump" || tool == "llvm-readelf" ||
      tool == "llvm-readobj" || tool == "llc" || tool == "llvm-ar" || tool == "llvm-nm" ||
      tool == "llvm-objcopy" || tool == "llvm-strip") {
    return "llvm-22";
  }
  if (tool == "ld.lld" || tool == "lld") return "lld-22";
  if (tool == "FileCheck" || tool == "not" || tool == "count") return "llvm-22-tools";
  if (tool == "clang" || tool == "clang++" || tool == "clang-22") return "clang-22";
  if (tool == "clang-offload-bundler" || tool == "clang-offload-packager") {
    return "clang-tools-22";
  }
  return "";
}

absl::StatusOr<std::string> FindTool(const std::string& llvm_bin, absl::string_view tool) {
  if (tool.empty() || absl::StrContains(tool, '/')) {
    return absl::InvalidArgumentError(absl::StrCat("bad LLVM tool name '", tool, "'"));
  }
  std::string path = absl::StrCat(llvm_bin, "/", tool);
  std::string package = DebianPackageForTool(tool);
  std::string from_package =
      package.empty() ? "" : absl::StrCat(" (Debian package ", package, ")");
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    int err = errno;
    return absl::NotFoundError(absl::StrCat(tool, " not found at ", path, from_package, ": ",
                                            ErrnoText(err), "; ", InstallHint()));
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not an executable file", from_package, "; ", InstallHint()));
  }
  return path;
}

// ---------------------------------------------------------------------------
// Processes.

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         absl::string_view stdin_text, int timeout_seconds) {
  if (argv.empty() || argv[0].empty()) {
    return absl::InvalidArgumentError("RunProcess: empty argv");
  }
  using Clock = std::chrono::steady_clock;
  const bool has_deadline = timeout_seconds > 0;
  const Clock::time_point deadline =
      has_deadline ? Clock::now() + std::chrono::seconds(timeout_seconds) : Clock::time_point();

  // Child-side ends (inherited through dup2) and parent-side ends.
  Fd child_in, parent_in, parent_out, child_out, parent_err, child_err;
  if (stdin_text.empty()) {
    child_in = Fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!child_in.valid()) return ErrnoError("open(/dev/null)", errno);
    if (absl::Status s = MoveAboveStdio(child_in); !s.ok()) return s;
  } else {
    if (absl::Status s = MakePipe(child_in, parent_in); !s.ok()) return s;
  }
  if (absl::Status s = MakePipe(parent_out, child_out); !s.ok()) return s;
  if (absl::Status s = MakePipe(parent_err, child_err); !s.ok()) return s;

  SpawnSetup setup;
  int rc = posix_spawnattr_init(&setup.attr);
  if (rc != 0) return ErrnoError("posix_spawnattr_init", rc);
  setup.attr_ok = true;
  rc = posix_spawn_file_actions_init(&setup.actions);
  if (rc != 0) return ErrnoError("posix_spawn_file_actions_init", rc);
  setup.actions_ok = true;

  sigset_t empty_mask, default_signals;
  sigemptyset(&empty_mask);
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  if ((rc = posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETPGROUP |
                                                      POSIX_SPAWN_SETSIGMASK |
                                                      POSIX_SPAWN_SETSIGDEF)) != 0 ||
      (rc = posix_spawnattr_setpgroup(&setup.attr, 0)) != 0 ||
      (rc = posix_spawnattr_setsigmask(&setup.attr, &empty_mask)) != 0 ||
      (rc = posix_spawnattr_setsigdefault(&setup.attr, &default_signals)) != 0 ||
      (rc = posix_spawn_file_actions_adddup2(&setup.actions, child_in.get(), 0)) != 0 ||
      (rc = posix_spawn_file_actions_adddup2(&setup.actions, child_out.get(), 1)) != 0 ||
      (rc = posix_spawn_file_actions_adddup2(&setup.actions, child_err.get(), 2)) != 0) {
    return ErrnoError("posix_spawn setup", rc);
  }

  std::vector<char*> c_argv;
  c_argv.reserve(argv.size() + 1);
  for (const std::string& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);

  pid_t pid = -1;
  rc = posix_spawnp(&pid, argv[0].c_str(), &setup.actions, &setup.attr, c_argv.data(), environ);
  if (rc != 0) {
    if (rc == ENOENT || rc == EACCES || rc == ENOEXEC || rc == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat("cannot run ", argv[0], ": ", ErrnoText(rc)));
    }
    return ErrnoError(absl::StrCat("posix_spawn ", argv[0]), rc);
  }
  child_in.Close();
  child_out.Close();
  child_err.Close();

  ProcessResult result;
  bool timed_out = false;
  {
    ScopedBlockSigpipe block_sigpipe;
    absl::Status setup_status = absl::OkStatus();
    for (const Fd* fd : {&parent_in, &parent_out, &parent_err}) {
      if (fd->valid() && setup_status.ok()) setup_status = SetNonBlocking(*fd);
    }
    if (!setup_status.ok()) {
      KillGroupAndReap(pid);
      return setup_status;
    }

    size_t written = 0;
    char buf[64 * 1024];
    while (parent_in.valid() || parent_out.valid() || parent_err.valid()) {
      int wait_ms = -1;
      if (has_deadline) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
          timed_out = true;
          break;
        }
        wait_ms = static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30));
      }
      struct pollfd pfds[3];
      Fd* owners[3];
      nfds_t n = 0;
      if (parent_in.valid()) {
        pfds[n] = {parent_in.get(), POLLOUT, 0};
        owners[n++] = &parent_in;
      }
      if (parent_out.valid()) {
        pfds[n] = {parent_out.get(), POLLIN, 0};
        owners[n++] = &parent_out;
      }
      if (parent_err.valid()) {
        pfds[n] = {parent_err.get(), POLLIN, 0};
        owners[n++] = &parent_err;
      }
      int ready = poll(pfds, n, wait_ms);
      if (ready < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        KillGroupAndReap(pid);
        return ErrnoError("poll", err);
      }
      for (nfds_t i = 0; i < n; ++i) {
        if (pfds[i].revents == 0) continue;
        Fd& fd = *owners[i];
        if (&fd == &parent_in) {
          size_t chunk = std::min<size_t>(stdin_text.size() - written, 64 * 1024);
          ssize_t w = write(fd.get(), stdin_text.data() + written, chunk);
          if (w > 0) {
            written += static_cast<size_t>(w);
            if (written == stdin_text.size()) fd.Close();  // EOF for the child
          } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            // try again later
          } else {
            // EPIPE (the child closed its stdin) or another error: stop feeding it.
            if (w < 0 && errno == EPIPE) block_sigpipe.NoteEpipe();
            fd.Close();
          }
        } else {
          std::string& sink = &fd == &parent_out ? result.stdout_text : result.stderr_text;
          ssize_t r = read(fd.get(), buf, sizeof(buf));
          if (r > 0) {
            sink.append(buf, static_cast<size_t>(r));
          } else if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            // spurious wakeup
          } else {
            fd.Close();  // EOF or error
          }
        }
      }
    }
  }
  parent_in.Close();
  parent_out.Close();
  parent_err.Close();

  if (!timed_out) {
    // The pipes are closed; wait for the exit, still bounded by the deadline.
    int status = 0;
    int sleep_us = 200;
    while (true) {
      pid_t w = waitpid(pid, &status, has_deadline ? WNOHANG : 0);
      if (w == pid) {
        result.exit_code = DecodeWaitStatus(status);
        return result;
      }
      if (w < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        kill(-pid, SIGKILL);
        return ErrnoError(absl::StrCat("waitpid for ", argv[0]), err);
      }
      if (has_deadline && Clock::now() >= deadline) {
        timed_out = true;
        break;
      }
      struct timespec ts = {0, sleep_us * 1000L};
      nanosleep(&ts, nullptr);
      sleep_us = std::min(sleep_us * 2, 20000);
    }
  }
  KillGroupAndReap(pid);
  return absl::DeadlineExceededError(
      absl::StrCat(QuoteArgv(argv), " did not finish within ", timeout_seconds,
                   " s and was killed; stderr so far:\n", Tail(result.stderr_text, 4096)));
}

// ---------------------------------------------------------------------------
// Temporary directories and files.

absl::StatusOr<ScopedTempDir> ScopedTempDir::Create(absl::string_view prefix) {
  std::string base = "/tmp";
  std::string from = "the default";
  for (const char* var : {"TEST_TMPDIR", "TMPDIR"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') {
      base = v;
      from = absl::StrCat("$", var);
      break;
    }
  }
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  std::string tmpl = absl::StrCat(base, "/", prefix, "XXXXXX");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    return ErrnoError(absl::StrCat("cannot make a temporary directory in ", base, " (", from,
                                   "; set TMPDIR to a writable directory): mkdtemp(", tmpl, ")"),
                      errno);
  }
  return ScopedTempDir(std::string(buf.data()));
}

ScopedTempDir::ScopedTempDir(ScopedTempDir&& other) noexcept
    : path_(std::exchange(other.path_, std::string())) {}

ScopedTempDir& ScopedTempDir::operator=(ScopedTempDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::exchange(other.path_, std::string());
  }
  return *this;
}

ScopedTempDir::~ScopedTempDir() { Remove(); }

void ScopedTempDir::Remove() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);  // best effort; never throws
  path_.clear();
}

std::string ScopedTempDir::File(absl::string_view name) const {
  return absl::StrCat(path_, "/", name);
}

absl::Status WriteFileBytes(const std::string& path, absl::string_view contents) {
  Fd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return ErrnoError(absl::StrCat("cannot create ", path), errno);
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t w = write(fd.get(), contents.data() + done, contents.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(absl::StrCat("cannot write ", path), errno);
    }
    done += static_cast<size_t>(w);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileBytes(const std::string& path) {
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    int err = errno;
    std::string msg = absl::StrCat("cannot open ", path, ": ", ErrnoText(err));
    return err == ENOENT ? absl::NotFoundError(msg) : absl::InternalError(msg);
  }
  std::string out;
  char buf[64 * 1024];
  while (true) {
    ssize_t r = read(fd.get(), buf, sizeof(buf));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(absl::StrCat("cannot read ", path), errno);
    }
    if (r == 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  return out;
}

absl::StatusOr<std::string> ReadRegularFileBytes(const std::string& path, int64_t max_bytes) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
    if (st.st_size > max_bytes)
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", st.st_size, " bytes, more than the limit of ", max_bytes));
  }
  return ReadFileBytes(path);
}

// ---------------------------------------------------------------------------
// Assembling, linking, inspecting.

bool HasElfMagic(absl::string_view bytes) { return absl::StartsWith(bytes, "\x7f" "ELF"); }

bool UsesInProcessLlvm(const std::string& llvm_bin) {
  if (llvm_bin == kDefaultLlvmBin) return true;
  // The default directory's real path, resolved once ("" if it is missing).
  static const std::string default_real = [] {
    char b[PATH_MAX];
    return realpath(kDefaultLlvmBin, b) != nullptr ? std::string(b) : std::string();
  }();
  char a[PATH_MAX];
  return !default_real.empty() && realpath(llvm_bin.c_str(), a) != nullptr && default_real == a;
}

absl::StatusOr<std::string> AssembleWithLlvmMc(const std::string& llvm_bin,
                                               absl::string_view asm_text,
                                               absl::string_view mcpu) {
  if (mcpu.empty()) return absl::InvalidArgumentError("AssembleToObject: empty -mcpu");
  KIRC_TC_ASSIGN_OR_RETURN(McTarget target, SplitTargetId(mcpu));
  KIRC_TC_ASSIGN_OR_RETURN(std::string mc, FindTool(llvm_bin, "llvm-mc"));
  std::vector<std::string> argv = {mc, "-triple=amdgcn-amd-amdhsa",
                                   absl::StrCat("-mcpu=", target.processor)};
  if (!target.features.empty()) argv.push_back(absl::StrCat("-mattr=", target.features));
  for (const char* a : {"-filetype=obj", "-o", "-"}) argv.push_back(a);
  KIRC_TC_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(argv, asm_text));
  // llvm-mc only warns about an unknown processor and then assembles for a
  // generic one; treat that as the error it is.
  if (absl::StrContains(r.stderr_text, "is not a recognized processor")) {
    return absl::InvalidArgumentError(absl::StrCat("llvm-mc does not know -mcpu=", mcpu, ": ",
                                                   Tail(r.stderr_text, 64 * 1024)));
  }
  if (r.exit_code != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("llvm-mc failed (exit code ", r.exit_code, ") assembling for ", mcpu,
                     ":\n", Tail(r.stderr_text, 64 * 1024)));
  }
  if (!HasElfMagic(r.stdout_text)) {
    return absl::InternalError(absl::StrCat("llvm-mc produced no ELF object (", r.stdout_text.size(),
                                            " bytes); stderr:\n", Tail(r.stderr_text, 4096)));
  }
  return std::move(r.stdout_text);
}

absl::StatusOr<std::string> LinkWithLdLld(const std::string& llvm_bin,
                                          absl::string_view object_bytes) {
  // ld.lld reads a non-ELF input as a linker script; refuse it up front.
  if (!HasElfMagic(object_bytes)) {
    return absl::InvalidArgumentError("LinkCodeObject: input is not an ELF object");
  }
  KIRC_TC_ASSIGN_OR_RETURN(std::string lld, FindTool(llvm_bin, "ld.lld"));
  KIRC_TC_ASSIGN_OR_RETURN(ScopedTempDir dir, ScopedTempDir::Create("kirc-link."));
  const std::string in = dir.File("kernel.o");
  const std::string out = dir.File("kernel.hsaco");
  if (absl::Status s = WriteFileBytes(in, object_bytes); !s.ok()) return s;
  KIRC_TC_ASSIGN_OR_RETURN(ProcessResult r, RunTool("ld.lld", {lld, "-shared", in, "-o", out}));
  (void)r;
  KIRC_TC_ASSIGN_OR_RETURN(std::string hsaco, ReadFileBytes(out));
  if (!HasElfMagic(hsaco)) {
    return absl::InternalError("ld.lld produced a file that is not ELF");
  }
  return hsaco;
}

namespace {

// Writes `elf` to a private temporary file and runs `tool` of `llvm_bin` with
// `args` and the file's path last. Errors: InvalidArgument naming `what` if
// the bytes are not ELF; those of FindTool and RunTool.
absl::StatusOr<ProcessResult> RunToolOnElfFile(const std::string& llvm_bin, absl::string_view tool,
                                               absl::string_view what, absl::string_view elf,
                                               std::vector<std::string> args) {
  if (!HasElfMagic(elf)) return absl::InvalidArgumentError(absl::StrCat(what, ": input is not an ELF file"));
  KIRC_TC_ASSIGN_OR_RETURN(std::string path_to_tool, FindTool(llvm_bin, tool));
  KIRC_TC_ASSIGN_OR_RETURN(ScopedTempDir dir, ScopedTempDir::Create("kirc-elf."));
  const std::string path = dir.File("input.elf");
  if (absl::Status s = WriteFileBytes(path, elf); !s.ok()) return s;
  args.insert(args.begin(), path_to_tool);
  args.push_back(path);
  return RunTool(tool, args);
}

}  // namespace

absl::StatusOr<std::string> ReadNotesWithLlvmReadelf(const std::string& llvm_bin,
                                                     absl::string_view code_object_bytes) {
  KIRC_TC_ASSIGN_OR_RETURN(ProcessResult r, RunToolOnElfFile(llvm_bin, "llvm-readelf", "ReadElfNotes",
                                                             code_object_bytes, {"--notes"}));
  return std::move(r.stdout_text);
}

absl::StatusOr<std::string> DisassembleWithLlvmObjdump(const std::string& llvm_bin,
                                                       absl::string_view code_object_bytes,
                                                       absl::string_view symbol,
                                                       absl::string_view processor) {
  KIRC_TC_ASSIGN_OR_RETURN(
      ProcessResult r,
      RunToolOnElfFile(llvm_bin, "llvm-objdump", "disassembling", code_object_bytes,
                       {"-d", absl::StrCat("--mcpu=", processor), absl::StrCat("--disassemble-symbols=", symbol)}));
  return std::move(r.stdout_text);
}

absl::StatusOr<std::string> AssembleToObject(const std::string& llvm_bin,
                                             absl::string_view asm_text,
                                             absl::string_view mcpu) {
  if (mcpu.empty()) return absl::InvalidArgumentError("AssembleToObject: empty -mcpu");
  if (UsesInProcessLlvm(llvm_bin)) return AssembleInProcess(asm_text, mcpu);
  return AssembleWithLlvmMc(llvm_bin, asm_text, mcpu);
}

absl::StatusOr<std::string> LinkCodeObject(const std::string& llvm_bin,
                                           absl::string_view object_bytes) {
  if (UsesInProcessLlvm(llvm_bin)) {
    absl::StatusOr<std::string> hsaco = LinkOneObject(object_bytes);
    // An object outside what kirc's linker handles: LLVM 22's ld.lld.
    if (hsaco.ok() || hsaco.status().code() != absl::StatusCode::kUnimplemented) return hsaco;
  }
  return LinkWithLdLld(llvm_bin, object_bytes);
}

absl::StatusOr<std::string> BuildCodeObject(const std::string& llvm_bin,
                                            absl::string_view asm_text,
                                            absl::string_view mcpu) {
  KIRC_TC_ASSIGN_OR_RETURN(std::string object, AssembleToObject(llvm_bin, asm_text, mcpu));
  return LinkCodeObject(llvm_bin, object);
}

absl::StatusOr<std::string> ReadElfNotes(const std::string& llvm_bin,
                                         absl::string_view code_object_bytes) {
  if (UsesInProcessLlvm(llvm_bin)) return ReadNotesInProcess(code_object_bytes);
  return ReadNotesWithLlvmReadelf(llvm_bin, code_object_bytes);
}

absl::StatusOr<std::string> DisassembleSymbol(const std::string& llvm_bin,
                                              absl::string_view code_object_bytes,
                                              absl::string_view symbol,
                                              absl::string_view processor) {
  if (UsesInProcessLlvm(llvm_bin)) return DisassembleSymbolInProcess(code_object_bytes, symbol, processor);
  return DisassembleWithLlvmObjdump(llvm_bin, code_object_bytes, symbol, processor);
}

// ---------------------------------------------------------------------------
// HIP offload bundles.

std::string HipBundleEntryId(absl::string_view target_id) {
  return absl::StrCat("hipv4-amdgcn-amd-amdhsa--", target_id);
}

bool HasOffloadBundleMagic(absl::string_view bytes) {
  return absl::StartsWith(bytes, "__CLANG_OFFLOAD_BUNDLE__");
}

absl::StatusOr<std::string> BundleWithClangOffloadBundler(const std::string& llvm_bin,
                                                          const std::vector<BundleEntry>& entries) {
  if (entries.empty()) return absl::InvalidArgumentError("BundleCodeObjects: no code objects");
  KIRC_TC_ASSIGN_OR_RETURN(std::string bundler, FindTool(llvm_bin, "clang-offload-bundler"));
  KIRC_TC_ASSIGN_OR_RETURN(ScopedTempDir dir, ScopedTempDir::Create("kirc-bundle."));
  // clang's HIP layout: the host entry first (empty: /dev/null), then one entry
  // per target ID; each code object 4096-byte aligned, as clang does. (LLVM
  // 22's bundler crashes on a -type=o bundle without the host entry.)
  std::vector<std::string> targets = {kHipHostBundleEntry};
  std::vector<std::string> argv = {bundler, "-type=o", "-bundle-align=4096", "",
                                   "-input=/dev/null"};
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!HasElfMagic(entries[i].code_object))
      return absl::InvalidArgumentError(absl::StrCat("BundleCodeObjects: the code object for ",
                                                     entries[i].target_id, " is not ELF"));
    const std::string in = dir.File(absl::StrCat("entry", i, ".hsaco"));
    if (absl::Status s = WriteFileBytes(in, entries[i].code_object); !s.ok()) return s;
    targets.push_back(HipBundleEntryId(entries[i].target_id));
    argv.push_back(absl::StrCat("-input=", in));
  }
  argv[3] = absl::StrCat("-targets=", absl::StrJoin(targets, ","));
  const std::string out = dir.File("bundle.hipfb");
  argv.push_back(absl::StrCat("-output=", out));
  KIRC_TC_ASSIGN_OR_RETURN(ProcessResult r, RunTool("clang-offload-bundler", argv));
  (void)r;
  KIRC_TC_ASSIGN_OR_RETURN(std::string bundle, ReadFileBytes(out));
  if (!HasOffloadBundleMagic(bundle))
    return absl::InternalError("clang-offload-bundler wrote no __CLANG_OFFLOAD_BUNDLE__ file");
  return bundle;
}

absl::StatusOr<std::vector<std::string>> ListBundleEntriesWithClangOffloadBundler(const std::string& llvm_bin,
                                                                                  absl::string_view bundle) {
  if (!HasOffloadBundleMagic(bundle))
    return absl::InvalidArgumentError(
        "ListBundleEntries: not an offload bundle (no __CLANG_OFFLOAD_BUNDLE__ magic)");
  KIRC_TC_ASSIGN_OR_RETURN(std::string bundler, FindTool(llvm_bin, "clang-offload-bundler"));
  KIRC_TC_ASSIGN_OR_RETURN(ScopedTempDir dir, ScopedTempDir::Create("kirc-bundle."));
  const std::string in = dir.File("bundle.hipfb");
  if (absl::Status s = WriteFileBytes(in, bundle); !s.ok()) return s;
  KIRC_TC_ASSIGN_OR_RETURN(
      ProcessResult r,
      RunTool("clang-offload-bundler", {bundler, "-list", "-type=o", absl::StrCat("-input=", in)}));
  std::vector<std::string> ids;
  for (absl::string_view line : absl::StrSplit(r.stdout_text, '\n', absl::SkipWhitespace()))
    ids.emplace_back(absl::StripAsciiWhitespace(line));
  return ids;
}


// ---------------------------------------------------------------------------
// HIP offload bundles (clang-offload-bundler's binary format, LLVM 22).

namespace {

constexpr char kBundleMagic[] = "__CLANG_OFFLOAD_BUNDLE__";
constexpr size_t kBundleMagicSize = sizeof(kBundleMagic) - 1;
// The host entry's ID as the bundler writes it (its triple normalised with an
// empty environment component).
constexpr char kHostEntryIdAsWritten[] = "host-x86_64-unknown-linux-gnu-";
constexpr uint64_t kBundleAlign = 4096;

void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetU64(absl::string_view s, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s[at + i]);
  return v;
}

struct RawEntry {
  std::string id;
  uint64_t offset = 0, size = 0;
};

absl::StatusOr<std::vector<RawEntry>> ParseBundle(absl::string_view bundle, absl::string_view what) {
  if (!HasOffloadBundleMagic(bundle))
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not an offload bundle (no __CLANG_OFFLOAD_BUNDLE__ magic)"));
  auto truncated = [&] {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the offload bundle's header is truncated (",
                                                   bundle.size(), " bytes)"));
  };
  size_t p = kBundleMagicSize;
  if (bundle.size() < p + 8) return truncated();
  const uint64_t n = GetU64(bundle, p);
  p += 8;
  // Each entry takes at least 24 header bytes: a count the file cannot hold is corrupt.
  if (n > (bundle.size() - p) / 24) return truncated();
  std::vector<RawEntry> entries;
  for (uint64_t i = 0; i < n; ++i) {
    if (bundle.size() - p < 24) return truncated();
    RawEntry e;
    e.offset = GetU64(bundle, p);
    e.size = GetU64(bundle, p + 8);
    const uint64_t id_size = GetU64(bundle, p + 16);
    p += 24;
    if (id_size > bundle.size() - p) return truncated();
    e.id = std::string(bundle.substr(p, id_size));
    p += id_size;
    if (e.offset > bundle.size() || e.size > bundle.size() - e.offset)
      return absl::InvalidArgumentError(absl::StrCat(what, ": entry '", e.id, "' (", e.size, " bytes at ", e.offset,
                                                     ") runs past the end of the ", bundle.size(), "-byte bundle"));
    entries.push_back(std::move(e));
  }
  return entries;
}

// The processor and feature names of a target ID ("gfx942:sramecc+:xnack-").
std::pair<std::string, std::set<std::string>> TargetIdParts(absl::string_view id) {
  std::vector<absl::string_view> parts = absl::StrSplit(id, ':');
  std::set<std::string> features;
  for (size_t i = 1; i < parts.size(); ++i)
    features.insert(std::string(parts[i].substr(0, parts[i].empty() ? 0 : parts[i].size() - 1)));
  return {std::string(parts[0]), features};
}

}  // namespace

absl::StatusOr<std::string> BundleCodeObjects(const std::string& llvm_bin,
                                              const std::vector<BundleEntry>& entries) {
  if (!UsesInProcessLlvm(llvm_bin)) return BundleWithClangOffloadBundler(llvm_bin, entries);
  if (entries.empty()) return absl::InvalidArgumentError("BundleCodeObjects: no code objects");
  for (const BundleEntry& e : entries)
    if (!HasElfMagic(e.code_object))
      return absl::InvalidArgumentError(
          absl::StrCat("BundleCodeObjects: the code object for ", e.target_id, " is not ELF"));
  // clang-offload-bundler's refusals: the same entry twice, and target IDs of
  // one processor where a later one (in sorted order) sets a feature the
  // first leaves unset ("gfx942" with "gfx942:xnack-": which would a GPU take?).
  std::set<std::string> ids;
  for (const BundleEntry& e : entries)
    if (!ids.insert(e.target_id).second)
      return absl::InvalidArgumentError(absl::StrCat("BundleCodeObjects: target ID ", e.target_id, " twice"));
  std::map<std::string, std::pair<std::string, std::set<std::string>>> first_of_processor;
  for (const std::string& id : ids) {
    auto [proc, features] = TargetIdParts(id);
    auto [it, inserted] = first_of_processor.try_emplace(proc, id, features);
    if (inserted) continue;
    for (const std::string& f : features)
      if (!it->second.second.count(f))
        return absl::InvalidArgumentError(absl::StrCat(
            "BundleCodeObjects: cannot bundle inputs with conflicting targets: '", HipBundleEntryId(it->second.first),
            "' and '", HipBundleEntryId(id), "' (a HIP runtime could not choose between them)"));
  }
  // clang's HIP layout: the empty host entry first, then one entry per target
  // ID in the given order; each code object at a 4096-byte aligned offset,
  // zeros between, nothing after the last.
  std::vector<std::string> entry_ids = {kHostEntryIdAsWritten};
  for (const BundleEntry& e : entries) entry_ids.push_back(HipBundleEntryId(e.target_id));
  size_t header = kBundleMagicSize + 8;
  for (const std::string& id : entry_ids) header += 24 + id.size();
  std::vector<uint64_t> offsets;
  uint64_t at = (header + kBundleAlign - 1) / kBundleAlign * kBundleAlign;
  offsets.push_back(at);  // the host entry: empty
  for (const BundleEntry& e : entries) {
    offsets.push_back(at);
    at = (at + e.code_object.size() + kBundleAlign - 1) / kBundleAlign * kBundleAlign;
  }
  std::string out(kBundleMagic, kBundleMagicSize);
  PutU64(&out, entry_ids.size());
  for (size_t i = 0; i < entry_ids.size(); ++i) {
    PutU64(&out, offsets[i]);
    PutU64(&out, i == 0 ? 0 : entries[i - 1].code_object.size());
    PutU64(&out, entry_ids[i].size());
    out += entry_ids[i];
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    out.resize(offsets[i + 1], '\0');
    out += entries[i].code_object;
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ListBundleEntries(const std::string& llvm_bin,
                                                           absl::string_view bundle) {
  if (!UsesInProcessLlvm(llvm_bin)) return ListBundleEntriesWithClangOffloadBundler(llvm_bin, bundle);
  KIRC_TC_ASSIGN_OR_RETURN(std::vector<RawEntry> entries, ParseBundle(bundle, "ListBundleEntries"));
  std::vector<std::string> ids;
  for (const RawEntry& e : entries) ids.push_back(e.id);
  return ids;
}

absl::StatusOr<std::string> UnbundleCodeObject(const std::string& llvm_bin,
                                               absl::string_view bundle,
                                               absl::string_view target_id) {
  (void)llvm_bin;  // the format is read here for any LLVM
  KIRC_TC_ASSIGN_OR_RETURN(std::vector<RawEntry> entries, ParseBundle(bundle, "UnbundleCodeObject"));
  const std::string want = HipBundleEntryId(target_id);
  std::vector<std::string> ids;
  for (const RawEntry& e : entries) {
    if (e.id == want) return std::string(bundle.substr(e.offset, e.size));
    ids.push_back(e.id);
  }
  return absl::NotFoundError(absl::StrCat("the bundle has no entry ", want, "; it has: ", absl::StrJoin(ids, ", ")));
}

}  // namespace kir
