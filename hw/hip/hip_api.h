// The HIP runtime functions hw/hip calls, loaded with dlopen when a HIP device
// is first asked for, not linked: kirc, libkirc.so and every test start
// without libamdhip64 and what it loads (the HSA runtime, libdrm, libnuma),
// and a machine without the HIP runtime still runs everything else, while
// `kirc run --device=hip` there says which library is missing.
#ifndef KIRC_HW_HIP_HIP_API_H_
#define KIRC_HW_HIP_HIP_API_H_

#include <hip/hip_runtime_api.h>

#include <string>

#include "absl/status/statusor.h"

namespace kir {

// X-macro of the HIP functions kirc uses: X(name, return type, parameters).
#define KIRC_HIP_FUNCTIONS(X)                                                                            \
  X(hipGetDeviceCount, hipError_t, (int*))                                                               \
  X(hipGetDeviceProperties, hipError_t, (hipDeviceProp_t*, int))                                         \
  X(hipSetDevice, hipError_t, (int))                                                                     \
  X(hipGetErrorName, const char*, (hipError_t))                                                          \
  X(hipGetErrorString, const char*, (hipError_t))                                                        \
  X(hipMalloc, hipError_t, (void**, size_t))                                                             \
  X(hipFree, hipError_t, (void*))                                                                        \
  X(hipMemcpy, hipError_t, (void*, const void*, size_t, hipMemcpyKind))                                  \
  X(hipModuleLoadData, hipError_t, (hipModule_t*, const void*))                                          \
  X(hipModuleUnload, hipError_t, (hipModule_t))                                                          \
  X(hipModuleGetFunction, hipError_t, (hipFunction_t*, hipModule_t, const char*))                        \
  X(hipModuleLaunchKernel, hipError_t,                                                                   \
    (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, hipStream_t,   \
     void**, void**))                                                                                    \
  X(hipDeviceSynchronize, hipError_t, ())                                                                \
  X(hipEventCreate, hipError_t, (hipEvent_t*))                                                           \
  X(hipEventDestroy, hipError_t, (hipEvent_t))                                                           \
  X(hipEventRecord, hipError_t, (hipEvent_t, hipStream_t))                                               \
  X(hipEventSynchronize, hipError_t, (hipEvent_t))                                                       \
  X(hipEventElapsedTime, hipError_t, (float*, hipEvent_t, hipEvent_t))

// One pointer per function of KIRC_HIP_FUNCTIONS, named as the function.
struct HipApi {
#define KIRC_HIP_POINTER(name, ret, params) ret(*name) params = nullptr;
  KIRC_HIP_FUNCTIONS(KIRC_HIP_POINTER)
#undef KIRC_HIP_POINTER
};

// The HIP runtime's shared library: $KIRC_HIP_LIBRARY if set and non-empty,
// else that of the HIP root Bazel was configured with (third_party/hip.bzl,
// --repo_env=KIRC_HIP_PATH; default Debian's
// /usr/lib/x86_64-linux-gnu/libamdhip64.so).
std::string HipLibraryPath();

// The HIP API, loaded once per process (later calls return the same table or
// the same error). Errors: Unavailable naming the library and dlopen's or
// dlsym's message ("install libamdhip64-dev, or ROCm and build with
// --repo_env=KIRC_HIP_PATH=...").
absl::StatusOr<const HipApi*> LoadHipApi();

}  // namespace kir

#endif  // KIRC_HW_HIP_HIP_API_H_
