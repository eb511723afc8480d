// Z3 loaded when the verifier first needs it, not at process start: kirc's
// other commands (compile, run) never pay for loading libz3 (about 4 ms of a
// 10 ms process start on the 2-core VM, measured with an empty program linked
// to it). verify.cc includes this header instead of <z3++.h>; every Z3 C API
// call (its own and those inside z3++.h) goes through a pointer that dlsym
// resolves on first use (z3_functions.inc), so nothing links libz3.
//
// Call LoadZ3() before the first Z3 call and return its error: a missing
// library is then an error value. A call without it loads Z3 on the spot and
// aborts with a message naming the library if that fails.
#ifndef KIRC_VERIFY_Z3_LAZY_H_
#define KIRC_VERIFY_Z3_LAZY_H_

#include <z3.h>

#include "absl/status/status.h"

namespace kir::z3lazy {

// Loads Z3's shared library once per process: $KIRC_Z3_LIBRARY if set, else
// libz3.so.4 (Debian 12's libz3-4), else libz3.so. Errors: FailedPrecondition
// naming each name tried and dlopen's message, and what to install.
absl::Status LoadZ3();

// The address of Z3 function `name`, loading Z3 first if needed. A function
// the loaded library lacks (an older Z3) aborts with a message naming it.
void* Resolve(const char* name);

template <typename Fn>
Fn Get(const char* name) {
  return reinterpret_cast<Fn>(Resolve(name));
}

}  // namespace kir::z3lazy

// The pointer to Z3 function `name` (resolved once per call site).
#define KIRC_Z3_LAZY(name)                                                                \
  ([]() {                                                                                  \
    static const auto kFn = ::kir::z3lazy::Get<decltype(&::name)>(#name);                  \
    return kFn;                                                                            \
  }())

#include "verify/z3_functions.inc"

#include <z3++.h>

#endif  // KIRC_VERIFY_Z3_LAZY_H_
