// Linked into a test binary, sets KIRC_NO_AVX512=1 before main, so the
// emulator's and the reference interpreter's MFMA sums take their scalar
// paths (what a machine without AVX-512 runs) and the bit-identity tests
// cover them too on a machine that has AVX-512.
#include <cstdlib>

namespace {
const int kForceScalar = setenv("KIRC_NO_AVX512", "1", 1);
}  // namespace
