// Test-case reduction for the random-kernel tester: shrinks a failing KIR
// kernel to a small one that still fails the same way, ready to be added as a
// regression test. Works on any kernel text (not only generated ones).
#ifndef KIRC_DIFFTEST_REDUCE_H_
#define KIRC_DIFFTEST_REDUCE_H_

#include <functional>
#include <string>

namespace kir::difftest {

// Greedy delta debugging over lines: removes runs of body and declaration
// lines (a `for` line with its whole body), then tries local simplifications
// of each line (the grid to 1 1 1, `guarded` dropped, loop trip counts cut to
// one, constants and index terms replaced), keeping a candidate only when
// `still_fails(candidate)` says it fails as the original did. At most
// `max_tests` calls of `still_fails`. Returns the smallest text found
// (`text` itself if nothing could be removed).
std::string ReduceKernel(const std::string& text, const std::function<bool(const std::string&)>& still_fails,
                         int max_tests = 400);

}  // namespace kir::difftest

#endif  // KIRC_DIFFTEST_REDUCE_H_
