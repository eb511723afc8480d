// The access map: which emitted memory instruction implements which KIR
// access. The verifier consumes it in-process; `kirc --annotate` prints it.
#ifndef KIRC_COMPILER_ISA_ACCESS_MAP_H_
#define KIRC_COMPILER_ISA_ACCESS_MAP_H_

#include <string>
#include <vector>

namespace kir {

// One memory instruction of the final code and the part of a KIR load or
// store it performs. Keyed by MInst::id, which later passes keep stable.
// A DS read2/write2 (compiler/passes/ds_pairing.h) implements two accesses:
// it has two records, one per component (address), component 0 and 1.
struct AccessRecord {
  int inst_id = -1;           // MInst::id of the buffer_* or ds_* instruction
  int component = -1;         // read2/write2: which of its two addresses (0, 1); else -1
  int kir_op = -1;            // pre-order index of the load/store in the kernel body
  std::string mem;            // buffer argument or LDS allocation name
  bool is_lds = false;
  bool is_store = false;
  bool guarded = false;
  std::vector<int> elements;  // vector elements of the op's value it moves, in order
  // Matching other compilers' code (verify/): element slot j of the
  // instruction performs the op in KIR iteration i + iter_offsets[j] of the
  // op's innermost loop, where i is the iteration the loop binding gives (a
  // vector load or store combining the accesses of consecutive iterations, as
  // LLVM's load-store vectorizer makes of an unrolled loop). Empty: all 0.
  std::vector<int> iter_offsets;
  int64_t element_bytes = 0;  // bytes per element
};

using AccessMap = std::vector<AccessRecord>;

}  // namespace kir

#endif  // KIRC_COMPILER_ISA_ACCESS_MAP_H_
