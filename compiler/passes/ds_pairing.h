// DS pairing: two ds_read_b32/b64 (or two ds_write_b32/b64) of one basic
// block with the same address register become one ds_read2/ds_write2 (or
// their st64 forms), as LLVM's SILoadStoreOptimizer does. Runs on virtual
// registers, after scheduling and before register allocation.
#ifndef KIRC_COMPILER_PASSES_DS_PAIRING_H_
#define KIRC_COMPILER_PASSES_DS_PAIRING_H_

#include "absl/status/status.h"
#include "compiler/isa/instr.h"
#include "compiler/isa/access_map.h"

namespace kir {

struct DsPairingStats {
  int reads = 0;   // read pairs formed
  int writes = 0;  // write pairs formed
};

// Merges two DS accesses A (earlier) and B of one opcode (b32 or b64) and one
// block that read the same address vreg, when
//  - their byte offsets are both multiples of the unit and at most 255 units,
//    unit = the element (ds_read2/ds_write2, preferred) or 64 elements (st64);
//  - nothing between them writes EXEC, is an s_barrier, s_waitcnt or
//    s_endpgm, or redefines the address;
//  - reads (merged at A; B moves up): nothing between touches B's
//    destination or is an LDS write that may overlap B's bytes in any lane:
//    only an access whose access-map records name another LDS allocation
//    cannot (lane t's T[t + 8] is lane t + 8's T[t], so one lane's offsets
//    prove nothing); each destination is a whole vreg tuple of its own with
//    that single definition, so the two become views (VReg::alias_of) of one
//    new 2- or 4-dword tuple, even-aligned (gfx90a/gfx942 rule);
//  - writes (merged at B, A moving down; else at A, B moving up): A and B
//    write different LDS allocations (the order among lanes within one
//    ds_write2 is unspecified), and nothing between redefines the moved
//    write's data or is an LDS access of the moved write's allocation.
// The merged instruction keeps A's id; `access_map`'s records of A and B
// become its components 0 and 1 (AccessRecord::component). Pairs count as one
// lgkmcnt event, as every DS instruction (the waitcnt pass runs later).
// Errors: malformed control flow.
absl::Status PairDsAccesses(MFunction& f, AccessMap* access_map, DsPairingStats* stats = nullptr);

}  // namespace kir

#endif  // KIRC_COMPILER_PASSES_DS_PAIRING_H_
