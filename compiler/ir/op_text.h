// One-line text of a KIR op for messages and annotations.
#ifndef KIRC_COMPILER_IR_OP_TEXT_H_
#define KIRC_COMPILER_IR_OP_TEXT_H_

#include <string>

#include "compiler/ir/kernel.h"

namespace kir {

// `op` as one line of KIR ("%a = load A[tid.x, 0] : f16x4", "for %k = 0 to 64
// step 16 iter(%c = %z)" without the body). Never fails, even on ops that are
// not well formed (a malformed index prints as "?"), so messages about bad
// input can quote it.
std::string OpText(const Op& op);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_OP_TEXT_H_
