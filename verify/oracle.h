// The mutation tests' oracle: runs every wave of every workgroup concretely
// (verify/concrete.h: the shared instruction semantics with U32Domain, no
// terms, no Z3) and records what every memory instruction does (per lane and
// component: the byte address it touches, or nothing: lane off in EXEC /
// dropped by the SRD range check), and whether each SRD used grants access
// only inside its argument's buffer. A mutant is harmful iff its effects
// differ from the unmutated code's for some setting.
#ifndef KIRC_VERIFY_ORACLE_H_
#define KIRC_VERIFY_ORACLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/kernel.h"
#include "compiler/isa/lowered_kernel.h"
#include "compiler/target/target.h"

namespace kir::vfy::testing {

struct Effects {
  std::vector<uint64_t> log;  // memory effects in execution order
  std::string error;          // the run could not finish (unsupported instruction, hang)
  int64_t steps = 0;          // instructions executed (all waves); not compared
  bool operator==(const Effects& o) const { return log == o.log && error == o.error; }
};

// Settings choose argument pointers (0: low, 1: high with the low dword near
// 2^32, 2: middle), scalar values, and the contents of undefined registers.
constexpr int kOracleSettings = 3;  // = kConcreteSettings

// `max_steps_per_wave`: a wave that executes more instructions is a hang
// (Effects::error); a mutant's run may be bounded by a few times the
// unmutated code's steps.
Effects RunConcrete(const Kernel& k, const TargetInfo& t, const LoweredKernel& lk, int setting,
                    int64_t max_steps_per_wave = 2000000);

}  // namespace kir::vfy::testing

#endif  // KIRC_VERIFY_ORACLE_H_
