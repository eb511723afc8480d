#include "verify/z3_lazy.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kir::z3lazy {
namespace {

struct Library {
  void* handle = nullptr;
  absl::Status status = absl::OkStatus();
};

const Library& Load() {
  static const Library* lib = [] {
    auto* l = new Library;
    std::vector<std::string> names;
    if (const char* env = std::getenv("KIRC_Z3_LIBRARY"); env != nullptr && *env != '\0') {
      names.push_back(env);
    } else {
      names = {"libz3.so.4", "libz3.so"};
    }
    std::vector<std::string> errors;
    for (const std::string& n : names) {
      void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h == nullptr) {
        const char* e = dlerror();
        errors.push_back(e != nullptr ? e : n);
        continue;
      }
      // Every function kirc may call must be there.
      static const char* const kFunctions[] = {
#include "verify/z3_function_names.inc"
      };
      std::vector<std::string> missing;
      for (const char* f : kFunctions)
        if (dlsym(h, f) == nullptr) missing.push_back(f);
      if (missing.empty()) {
        l->handle = h;
        return l;
      }
      errors.push_back(absl::StrCat(n, " lacks ", missing.size(), " of Z3 4.8.12's ", std::size(kFunctions),
                                    " API functions (first: ", missing.front(), "): not Z3, or an older Z3"));
      dlclose(h);
    }
    l->status = absl::FailedPreconditionError(absl::StrCat(
        "the verifier needs Z3's shared library and could not load it (", absl::StrJoin(errors, "; "),
        "): install Debian's libz3-4 (third_party/install_deps.sh does), or set KIRC_Z3_LIBRARY to its path"));
    return l;
  }();
  return *lib;
}

}  // namespace

absl::Status LoadZ3() { return Load().status; }

void* Resolve(const char* name) {
  const Library& lib = Load();
  if (lib.handle == nullptr) {
    std::fprintf(stderr, "kirc: internal error: a Z3 call before LoadZ3() succeeded: %s\n",
                 std::string(lib.status.message()).c_str());
    std::abort();
  }
  void* fn = dlsym(lib.handle, name);
  if (fn == nullptr) {
    std::fprintf(stderr, "kirc: the loaded Z3 library has no function %s (Z3 older than 4.8.12?)\n", name);
    std::abort();
  }
  return fn;
}

}  // namespace kir::z3lazy
