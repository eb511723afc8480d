// Random valid KIR kernels for differential testing (issue 13, section 3).
//
// Generate(seed) writes one kernel as KIR text, deterministically from the
// seed (its own splitmix64 stream, no std:: distributions, so a seed names the
// same kernel on every machine and compiler). The generator knows KIR's rules
// from the KIR reference (docs/kir.md), not from kirc's code: it computes its own index
// intervals (to size buffers so unguarded accesses stay in shape), writes every
// output element from at most one work-item (no global races), writes every
// in-shape LDS element before a barrier and any load of it (LDS is undefined at
// launch), and uses only the types, widths, alignments and MFMAs the reference
// allows. So every kernel it makes is valid: a refusal by kirc that is not one
// of the documented limits is a kirc defect (or a generator defect; the
// difference is for the person reading the reduced kernel).
#ifndef KIRC_DIFFTEST_GEN_H_
#define KIRC_DIFFTEST_GEN_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kir::difftest {

// The processors every kernel is compiled for, in order (kir::AllTargets()).
inline constexpr const char* kProcessors[] = {"gfx908", "gfx90a", "gfx942", "gfx950"};
inline constexpr int kNumProcessors = static_cast<int>(sizeof(kProcessors) / sizeof(kProcessors[0]));

struct GeneratedKernel {
  uint64_t seed = 0;
  std::string name;  // the kernel's name, "rk_<seed>" (thread-level) or "rg_<seed>" (gemm)
  std::string text;  // KIR
  // One target ID per processor of kProcessors, with sramecc and xnack drawn
  // per kernel from {any, +, -} (the same settings for all of them).
  std::vector<std::string> target_ids;
  // Processors on which kirc must refuse the kernel because it uses MFMAs or
  // fp8 types the processor lacks (docs/kir.md "fp8"): processor ->
  // kirc's messages for them ("MFMA f32_16x16x8_bf16 does not exist on
  // gfx942", "f8e4m3fnuz is not available on gfx950"); the refusal must
  // contain one of them. The kernel compiles on every other processor (at
  // least one).
  std::map<std::string, std::set<std::string>> refusals;
  // Coverage tags: "op:add", "type:f16x4", "mfma:f32_16x16x16_f16",
  // "access:lds-guarded", "loop:nested", "gemm:A.km", ... (Tags()).
  std::set<std::string> features;
  bool is_gemm = false;
};

// One random valid kernel. Thread-level kernels (loads, stores, elementwise
// ops, cvt, slice, const, zero, mfma and MFMA K loops, barriers with LDS
// staging, nested loops with iter_args; in about 30% of them fp8 values of
// gfx942's or gfx950's types, loaded, stored, staged through LDS, sliced,
// converted and fed to fp8 MFMAs) most of the time, tile-level gemm kernels
// otherwise.
GeneratedKernel Generate(uint64_t seed);

// Every coverage tag the generator can emit, for the coverage table (so a
// feature no kernel reached shows as 0).
const std::vector<std::string>& AllFeatures();

}  // namespace kir::difftest

#endif  // KIRC_DIFFTEST_GEN_H_
