// The saturation (+max, -max) and subnormal passes of `kirc run`
// (RunAndCheck, hw/run/run.h): after the first conversion pass (or, without
// one, from the saturation base, PlanSaturationBase), for every output a
// narrowing conversion of an mfma/gemm result stores to
// (ComputedConversionOutputs), passes whose inputs put the values before that
// conversion around its type's max and into its subnormal range, with NaN/inf
// blocks in an MFMA operand; sized by reference-only runs (the reference
// interpreter is the oracle for where values land). Internal to hw/run.
#ifndef KIRC_HW_RUN_SATURATION_PASSES_H_
#define KIRC_HW_RUN_SATURATION_PASSES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/kernel.h"
#include "compiler/reference/interpreter.h"
#include "hw/check/exact.h"
#include "hw/check/inputs.h"
#include "hw/run/run.h"
#include "hw/run/user_values.h"

namespace kir {

// One pass of RunAndCheck, in run order: its input mode and what its inputs
// need.
struct PassSpec {
  InputMode mode = InputMode::kRandom;
  const ExactPlan* conv = nullptr;  // kConversion: its plan (in conv_plans)
  ExactPlan sat;                    // kSaturation, kSubnormal: its plan
  std::string sat_line;             // kSaturation, kSubnormal: its inputs line
  std::string reach_line;           // kSaturation: which converted outputs its NaN/inf blocks reach
  std::map<std::string, int64_t> inf_reach;  // kSaturation with +inf blocks: elements they reach per output
  // kSaturation with NaN blocks only: the reference-only run that placed
  // them, on this pass's inputs (its inputs, the reference's results),
  // reused instead of running the reference again.
  std::shared_ptr<const std::pair<KernelData, KernelData>> placed;
  std::string suffix;               // after the mode's name: "saturation (-max)"
  std::string dump_tag;             // --dump file names: "saturation-neg.", "conversion-2." (else the mode's name)
  std::vector<std::string> aimed;   // kSaturation, kSubnormal: the outputs it aims at
  // kSaturation, kSubnormal: outputs whose values may round on its inputs
  // (SaturationPlan's `unchecked`: a sibling capping the carrier's scale;
  // fresh-user review 14 F5): RunAndCheck does not compare them.
  std::vector<std::string> unchecked;
  int sign = 1;                     // kSaturation: -1 for the -max pass
  // kSaturation: element codes the window placement sets over the pass's
  // inputs (PlaceMaxWindow; fresh-user review 16 F3): (buffer, element
  // index, code), applied by ApplyWindowValues before the user's values.
  std::vector<std::tuple<std::string, uint64_t, uint32_t>> window_values;
  // kSaturation, kSubnormal: per output it aims at, the share of zeros
  // left out of its median (SaturationSource::zero_shares).
  std::map<std::string, double> zero_shares;
  bool from_base = false;  // kSaturation, kSubnormal: planned from the saturation base
};

// Writes the codes of `s.window_values` into the pass's inputs `*in`
// (MakeConversionInputs of s.sat), little-endian, ElemBytes of each buffer's
// type; no-op when there are none.
void ApplyWindowValues(const Kernel& k, const PassSpec& s, KernelData* in);

// The median |value| of up to 2^16 elements of buffer `a` (a float type)
// that a run stored to `ref` (elements whose bytes differ from its inputs
// `in`), sampled over at most 8 of the pages the run wrote, spread evenly
// over them. `all` false: only finite, non-zero values below the type's max
// (what a saturation or subnormal scale is sized from); true: every non-NaN
// one, zeros, +-max and infinities included. 0 when there are none.
// `*count` (when given): how many the median is of; `*negative` (when
// given): the fraction of them stored negative (-0 not).
double StoredMedian(const KernelData& in, const KernelData& ref, const Arg& a, bool all, int64_t* count = nullptr,
                    double* negative = nullptr);

// The share (in [0, 1]) of exact zeros among the values StoredMedian(in,
// ref, a, all = true) takes the median of; 0 when there are none. The zeros
// a conversion pass stored are constants no carrier scales (fresh-user
// review 17 F3): the saturation and subnormal passes leave that share of
// their zeros out of their medians.
double StoredZeroShare(const KernelData& in, const KernelData& ref, const Arg& a);

// The saturation base's run (PlanSaturationBase; fresh-user review 13 F3):
// the reference interpreter alone on its inputs (`seed`; the workgroups of
// `io`), whose stored values size the saturation and subnormal passes when
// no conversion pass exists. Per output of `outputs`, the median
// SizingMedian gives (0: none stored), or the interpreter's error.
// `*zero_shares` (when given): per output, the share of zeros that run
// stored (StoredZeroShare: padding, constants no carrier scales), left out
// of the passes' medians as the conversion pass's are (fresh-user review 18
// F3: with 2/3 of P zero padding every measuring median was 0).
absl::StatusOr<std::map<std::string, double>> SaturationBaseMedians(const Kernel& k, const ExactPlan& base,
                                                                    uint64_t seed, const InterpOptions& io,
                                                                    const std::vector<ComputedOutput>& outputs,
                                                                    std::map<std::string, double>* zero_shares =
                                                                        nullptr);

// The median |value| that sizes the saturation and subnormal passes' scale
// for output `a` from a run's inputs `in` and results `ref`: StoredMedian
// (all = false), or, when the run stored no finite non-zero value below the
// max but some at +-max (every value saturated: fresh-user review 16 F2, O =
// cvt(alpha * acc) to f8e4m3fnuz after a K = 2048 fp8 loop, alpha 2, was
// left unaimed and said unchecked, while the other output's passes reached
// its max and subnormals), the type's max: a lower bound of the values
// before the conversion, from which the passes' measuring runs scale down.
// 0 when neither (no pass aims at the output).
double SizingMedian(const KernelData& in, const KernelData& ref, const Arg& a);

// "WHAT not run: WHY\n": a pass auto mode would run that did not (fresh-user
// review 13 F2, F3: the saturation and subnormal passes vanished without a
// word).
std::string SkippedLine(const std::string& what, const std::string& why);

// The line saying what the saturation base is (no conversion pass exists):
// its inputs and the `medians` (per output) the reference stored on them.
// `loop_window`: a conversion pass exists, its inputs a K window through an
// mfma loop (fresh-user review 20 F3), and the saturation base serves the
// saturation and subnormal passes as before it.
std::string BaseLine(const Kernel& k, const ExactPlan& base, uint64_t seed,
                     const std::map<std::string, double>& medians,
                     bool loop_window = false);

// The median |value| a saturation or subnormal pass (named `pass`) stored
// to the elements of `a` the reference stored in `ref` (a sample of up to
// 2^16 of those whose bytes differ from the pass's inputs `in`, over the
// pages the run wrote; NaN left out, zeros, +-max and infinities in), and
// plainly whether that reached the aim (a saturation pass: at least a
// quarter of the values stored at or beyond the max, fresh-user review 14
// F8, F11, F12, the line naming the median of the finite ones when it is at
// least max / 4, else their count and share; a subnormal pass: within a
// factor 4 of the geometric middle of the subnormals), else that this pass
// does not check the output's saturation or subnormal conversion
// (fresh-user review 12 F9.4).
// "subnormal (P): P: median |value| stored 5 (of 256), not near f16's
// subnormals [5.96046e-08, 6.10352e-05): its subnormal conversion is not
// checked by this pass\n". `sign`: -1 for the -max pass (most values must
// be negative). `inf_blocks`: how many of `a`'s elements the pass's +inf
// blocks reach (the block-placing run's count): those infinities are the
// blocks', not values beyond the max, and do not count as at or beyond it
// (fresh-user review 14 F8). `zero_share`: the share of the zeros stored
// left out (DropConstantZeros: those the conversion pass also stored;
// fresh-user review 17 F3), said as "(of 256; 768 zeros the conversion pass
// also stored left out)"; `zeros_by` names the run that stored them ("the
// saturation base" when no conversion pass exists).
std::string AimedOutputLine(const KernelData& in, const KernelData& ref, const Arg& a, bool sub, int sign,
                            const std::string& pass, int64_t inf_blocks = 0, double zero_share = 0,
                            const std::string& zeros_by = "the conversion pass");

// What PlanSaturationPasses plans from.
struct SaturationSource {
  // The plan the passes scale: the first conversion pass's, or the
  // saturation base (`from_base`).
  const ExactPlan* from = nullptr;
  bool from_base = false;
  // The outputs to aim at: ComputedConversionOutputs(k, *from).
  const std::vector<ComputedOutput>* outputs = nullptr;
  // Per output: the median |value| (SizingMedian) that `from`'s
  // run stored to it; 0 or absent: none, the output is not aimed at.
  std::map<std::string, double> medians;
  // Per output: the share of zeros among the values `from`'s run stored to
  // it (StoredZeroShare); absent: 0.
  std::map<std::string, double> zero_shares;
  uint64_t seed = 1;  // the run's seed (MakeConversionInputs)
  InterpOptions io;   // the reference-only runs' options (workgroups, budget)
};

// The saturation (+max, -max) and subnormal passes for the outputs of
// `src`, in run order: per group of outputs that one carrier and scale serve
// (SaturationPlan; the scale measured by at most 4 reference-only runs, the
// carrier re-planned at the e-th root when it enters e times, a second
// carrier when the first reaches its range; the saturation passes measure at
// max / 4 and then take a further factor that puts most values beyond the
// max, confirmed by at most 2 more runs: fresh-user review 14 F8, F11, F12;
// the -max pass of an fp8 output with no +inf block scales an f32 scalar
// carrier past f32's range, OverflowsAlike, so that +-inf reaches the
// conversions: review 14 F4), NaN/inf blocks per MFMA chain
// (ChooseDiagonals) placed by at most 8 reference-only runs each. `uv`: the
// user's values (ApplyTo), applied to every trial's inputs. Appends to
// `*text` a line per output or pass not planned, and why. Errors: the
// reference interpreter's, on a trial run.
absl::StatusOr<std::vector<PassSpec>> PlanSaturationPasses(const Kernel& k, const SaturationSource& src,
                                                           const UserValues& uv, std::string* text);

// Counts what conversion pass `plan`'s inputs (MakeConversionInputs for
// `seed`, `uv` applied; the workgroups of `io`) draw before its conversions
// (fresh-user review 18 F7, F8: a report line claimed "often an exact tie"
// from bit counts, and no f16 value rounded): one reference-only run of `k`
// with each output of a type the pass may round that a cvt's result reaches
// (through slice and concat) stored again as the values before the
// conversion, in f32 (the subnormal pass's twin), over at most 64 of the
// pages written per output. Per target type, every ConversionNote of
// `plan` that rounds gets the counts (drawn, drawn_round, drawn_ties:
// inexact in the type within its range, and of those, values halfway between
// two neighbours of its grid, normal or subnormal; grid steps from
// FloatRangeOf), or not_counted. No run when the pass rounds nothing.
// Errors: the reference interpreter's.
absl::Status CountConversionTies(const Kernel& k, ExactPlan* plan, uint64_t seed, const UserValues& uv,
                                 const InterpOptions& io);

}  // namespace kir

#endif  // KIRC_HW_RUN_SATURATION_PASSES_H_
