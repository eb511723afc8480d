#include "compiler/passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/printer.h"
#include "compiler/isa/asm_syntax.h"
#include "compiler/isa/mir_verifier.h"
#include "compiler/analysis/validate.h"
#include "compiler/passes/ds_pairing.h"
#include "compiler/passes/hazards.h"
#include "compiler/passes/schedule.h"
#include "compiler/passes/waitcnt.h"
#include "compiler/passes/xnack_clauses.h"
#include "compiler/analysis/gemm_config.h"
#include "compiler/promote/promote.h"

namespace kir {
namespace {

// What the passes share while the pipeline runs.
struct PassState {
  const TargetId& id;
  const TargetInfo& t;
  const PipelineOptions& opts;
  std::string filename;
  const Kernel* source;            // the kernel as given
  std::optional<GemmConfig> gemm;  // validate's configuration of a gemm kernel
  PipelineResult r;
  bool lowered = false;
  bool allocated = false;
  // MFMA accumulators in AGPRs (LowerOptions::mfma_acc_in_agprs): always on
  // gfx908; on gfx90a/942 set when a first allocation with them in VGPRs ran
  // out of VGPRs (RunPipeline relowers then), as LLVM moves MFMA chains to
  // AGPRs only under register pressure (AMDGPURewriteAGPRCopyMFMA).
  bool acc_in_agprs = false;
  // Regalloc ran out of VGPRs with VGPR accumulators while the kernel has MFMAs
  // on a unified-register-file target: the pipeline relowers.
  bool retry_with_agprs = false;
  // The schedule keeps the source's global memory order and no timeline
  // (PipelineResult::conservative_schedule_retry); set when allocation after
  // the full schedule ran out of registers.
  bool conservative_schedule = false;
  bool retry_conservative = false;
};

using Counters = std::vector<std::pair<std::string, int64_t>>;

// A pass: returns OK or an error; `skip` tells that it does not apply.
struct PassImpl {
  PassInfo info;
  bool (*applies)(const PassState&);
  absl::Status (*run)(PassState&, Counters&);
};

bool Always(const PassState&) { return true; }

absl::Status RunValidate(PassState& s, Counters&) {
  GemmConfig c;
  absl::Status st = ValidateKernel(*s.source, s.t, s.filename, &c);
  if (!st.ok()) return st;
  if (HasGemm(*s.source)) {
    s.gemm = c;
    s.r.gemm_tiling = c.TilingText();
    // Accumulators that cannot fit in arch VGPRs beside the MFMA operands go
    // to AGPRs from the start (no first allocation that must fail).
    if (s.t.unified_vgpr_file && c.AccumulatorRegs() + 2 * c.mfma->ab_regs() > s.t.max_arch_vgprs)
      s.acc_in_agprs = true;
  }
  return absl::OkStatus();
}

absl::Status RunPromote(PassState& s, Counters& c) {
  absl::StatusOr<Kernel> p = PromoteGemm(*s.source, s.t, *s.gemm, s.filename);
  if (!p.ok()) return p.status();
  s.r.kernel = *std::move(p);
  s.r.kernel.target = s.id.ToString();
  s.r.promoted = true;
  c.push_back({"ops", static_cast<int64_t>(s.r.kernel.body.size())});
  return absl::OkStatus();
}

absl::Status RunLower(PassState& s, Counters&) {
  LowerOptions lo;
  lo.mfma_acc_in_agprs = s.acc_in_agprs;
  // The retry in the source's order: no pointer loaded before it is needed.
  lo.kernarg_loads_at_first_use = s.conservative_schedule;
  absl::StatusOr<LoweredKernel> lk = LowerKernel(s.r.kernel, s.t, s.filename, lo);
  if (!lk.ok()) return lk.status();
  s.r.lowered = *std::move(lk);
  s.lowered = true;
  return absl::OkStatus();
}

absl::Status RunSchedule(PassState& s, Counters& c) {
  ScheduleStats st;
  ScheduleOptions o;
  o.accesses = s.conservative_schedule ? nullptr : &s.r.lowered.access_map;
  o.timeline = !s.conservative_schedule;
  // Waves per SIMD the LDS and the workgroup size allow (registers aside):
  // VGPRs below what that many waves leave each cost no occupancy.
  o.max_waves_per_simd = Occupancy(s.t, 1, 0, s.r.lowered.abi.lds_bytes, s.r.kernel.WorkgroupThreads());
  o.min_waves_per_simd = WavesPerSimdForWorkgroup(s.r.kernel.WorkgroupThreads());
  absl::Status r = ScheduleBlocks(s.t, s.r.lowered.mir, &st, o);
  c.push_back({"moved", st.moved});
  c.push_back({"vgpr_budget", st.vgpr_budget});
  c.push_back({"vgpr_peak", st.vgpr_peak});
  c.push_back({"vgpr_original_peak", st.vgpr_original_peak});
  c.push_back({"pressure_retries", st.pressure_retries});
  c.push_back({"original_order_regions", st.original_order_regions});
  c.push_back({"vgpr_lowest_peak", st.vgpr_lowest_peak});
  c.push_back({"lowest_order_regions", st.lowest_order_regions});
  return r;
}

absl::Status RunDsPairing(PassState& s, Counters& c) {
  DsPairingStats st;
  absl::Status r = PairDsAccesses(s.r.lowered.mir, &s.r.lowered.access_map, &st);
  c.push_back({"read_pairs", st.reads});
  c.push_back({"write_pairs", st.writes});
  return r;
}

absl::Status RunRegalloc(PassState& s, Counters& c) {
  s.r.mir_text = PrintMir(s.t, s.r.lowered.mir, s.r.kernel.name);
  RegClass exhausted = RegClass::kVgpr;
  absl::StatusOr<RegUsage> u = AllocateRegisters(s.t, s.r.lowered.mir, &s.r.lowered.kir_op_text, &exhausted);
  if (!u.ok() && u.status().code() == absl::StatusCode::kResourceExhausted && exhausted == RegClass::kVgpr &&
      s.t.unified_vgpr_file && !s.acc_in_agprs &&
      std::any_of(s.r.lowered.mir.insts.begin(), s.r.lowered.mir.insts.end(),
                  [](const MInst& mi) { return mi.opc == Opc::kVMfma; })) {
    s.retry_with_agprs = true;
    return absl::OkStatus();
  }
  if (!u.ok() && u.status().code() == absl::StatusCode::kResourceExhausted && !s.conservative_schedule) {
    s.retry_conservative = true;
    return absl::OkStatus();
  }
  if (!u.ok())
    return absl::Status(u.status().code(),
                        absl::StrCat(s.filename.empty() ? "" : absl::StrCat(s.filename, ": "),
                                     "error: kernel '", s.r.kernel.name, "' on ", s.t.name, ": ",
                                     u.status().message()));
  s.r.usage = *u;
  s.allocated = true;
  c.push_back({"vgprs", u->vgprs});
  c.push_back({"agprs", u->agprs});
  c.push_back({"sgprs", u->sgprs});
  return absl::OkStatus();
}

absl::Status RunWaitcnt(PassState& s, Counters& c) {
  WaitcntStats st;
  absl::Status r = InsertWaitcnts(s.t, s.r.lowered.mir, &st);
  c.push_back({"waits", st.waits});
  c.push_back({"vmcnt_waits", st.vmcnt_waits});
  c.push_back({"lgkmcnt_waits", st.lgkmcnt_waits});
  return r;
}

absl::Status RunHazards(PassState& s, Counters& c) {
  HazardNopStats st;
  absl::Status r = InsertHazardNops(s.t, s.r.lowered.mir, &st);
  c.push_back({"nops", st.nops});
  c.push_back({"wait_states", st.wait_states});
  return r;
}

absl::Status RunXnackClauses(PassState& s, Counters& c) {
  int nops = 0;
  absl::Status r = BreakXnackSoftClauses(s.r.lowered.mir, &nops);
  c.push_back({"nops", nops});
  return r;
}

// Said by RunResources's error for a workgroup whose waves' registers do not
// fit one CU; the gemm note then advises fewer waves instead of more.
constexpr char kUnlaunchable[] = "could not be launched";

absl::Status RunResources(PassState& s, Counters& c) {
  const Kernel& k = s.r.kernel;
  s.r.resources = ComputeResources(s.t, k, s.r.lowered.abi, s.r.usage);
  if (s.r.resources.lds_bytes > s.t.lds_bytes)
    return absl::ResourceExhaustedError(absl::StrCat("kernel '", k.name, "' needs ", s.r.resources.lds_bytes,
                                                     " bytes of LDS; ", s.t.name, " has ", s.t.lds_bytes));
  // All waves of a workgroup are resident on one CU at once: the registers
  // one wave allocates times the waves sharing a SIMD must fit its file, or
  // the dispatch cannot launch the kernel (target.h MaxVgprsPerWave).
  const KernelResources& res = s.r.resources;
  const int64_t threads = k.WorkgroupThreads();
  const int budget = MaxVgprsPerWave(s.t, threads);
  auto granule_up = [&](int v) { return (std::max(1, v) + s.t.vgpr_granule - 1) / s.t.vgpr_granule * s.t.vgpr_granule; };
  // next_free_vgpr: the unified total (gfx90a/942/950) or max(arch, AGPRs) (gfx908).
  const int allocated = granule_up(res.next_free_vgpr);
  if (allocated > budget && !s.conservative_schedule) {
    // The full schedule may have raised the pressure: try the source's order.
    s.retry_conservative = true;
    return absl::OkStatus();
  }
  if (allocated > budget) {
    const int per_simd = WavesPerSimdForWorkgroup(threads);
    int64_t fits = 64;  // the largest workgroup (a multiple of 64 threads) whose waves fit
    while (fits + 64 <= 1024 && MaxVgprsPerWave(s.t, fits + 64) >= allocated) fits += 64;
    // A gemm's kernel is named at its gemm op, whose clauses the note advises on.
    std::string where = s.filename;
    if (const Op* g = FindGemm(*s.source); g != nullptr && g->loc.line > 0 && !where.empty())
      where = absl::StrCat(where, ":", g->loc.line, ":", g->loc.col);
    return absl::ResourceExhaustedError(absl::StrCat(
        where.empty() ? "" : absl::StrCat(where, ": "), "error: kernel '", k.name, "' on ", s.t.name,
        ": a workgroup of ", threads, " threads is ", (threads + 63) / 64, " waves, ", per_simd,
        " on each of a CU's 4 SIMDs, so one wave may allocate at most ", budget, " of the SIMD's ",
        VgprFilePerSimd(s.t), " VGPRs", s.t.unified_vgpr_file ? " (arch VGPRs and AGPRs together)" : "",
        "; the kernel allocates ", allocated, " (", res.arch_vgprs, " arch VGPRs, ", res.agprs,
        " AGPRs) and ", kUnlaunchable, ": ",
        !s.r.gemm_tiling.empty() ? "keep fewer values live"  // the gemm note below advises
        : MaxVgprsPerWave(s.t, 64) >= allocated
            ? absl::StrCat("use a workgroup of at most ", fits, " threads, or keep fewer values live")
            : "keep fewer values live"));
  }
  c.push_back({"occupancy", s.r.resources.occupancy});
  return absl::OkStatus();
}

const std::vector<PassImpl>& Impls() {
  static const std::vector<PassImpl>* impls = new std::vector<PassImpl>{
      {{"validate", "check the KIR kernel against the target (compiler/analysis/validate.h)", false},
       Always, RunValidate},
      {{"promote", "tile-level gemm -> thread-level KIR through LDS (compiler/promote)", false},
       [](const PassState& s) { return s.gemm.has_value(); }, RunPromote},
      {{"lower", "KIR -> MIR on virtual registers (compiler/lower)", true}, Always, RunLower},
      {{"schedule", "reorder instructions within basic blocks", true},
       [](const PassState& s) { return s.opts.schedule; }, RunSchedule},
      {{"ds-pairing", "merge DS accesses into ds_read2/ds_write2", true},
       [](const PassState& s) { return s.opts.pair_ds; }, RunDsPairing},
      {{"regalloc", "assign physical VGPRs, AGPRs and SGPRs", true}, Always, RunRegalloc},
      {{"waitcnt", "insert s_waitcnt for vmcnt/lgkmcnt", true}, Always, RunWaitcnt},
      {{"hazards", "insert s_nop for the target's hazards", true}, Always, RunHazards},
      {{"xnack-clauses", "break soft clauses that XNACK replay would corrupt (xnack+/any)", true},
       [](const PassState& s) { return s.id.xnack != FeatureSetting::kOff; }, RunXnackClauses},
      {{"resources", "registers, LDS and occupancy for the kernel descriptor", true}, Always,
       RunResources},
  };
  return *impls;
}

std::string StateText(const PassState& s) {
  if (!s.lowered) return PrintKernel(s.r.kernel);
  return PrintMir(s.t, s.r.lowered.mir, s.r.kernel.name);
}

bool Selected(const std::set<std::string>& names, const char* pass) {
  return names.count("all") > 0 || names.count(pass) > 0;
}

}  // namespace

const std::vector<PassInfo>& PassTable() {
  static const std::vector<PassInfo>* table = [] {
    auto* v = new std::vector<PassInfo>;
    for (const PassImpl& p : Impls()) v->push_back(p.info);
    return v;
  }();
  return *table;
}

absl::Status CheckPassName(absl::string_view name, absl::string_view what) {
  std::vector<std::string> names;
  for (const PassInfo& p : PassTable()) {
    if (name == p.name) return absl::OkStatus();
    names.push_back(p.name);
  }
  return absl::InvalidArgumentError(absl::StrCat(what, ": there is no pass '", name,
                                                 "'; the passes are ", absl::StrJoin(names, ", ")));
}

static absl::StatusOr<PipelineResult> RunPipelineImpl(const Kernel& k, const TargetId& target_id,
                                                      const PipelineOptions& opts, absl::string_view filename,
                                                      bool suggest_alternatives);

// The passes as `opts` runs them, without printing or stopping: for the
// trial compiles of a refusal's suggestions (FittingAlternatives,
// PromotedOpError).
static PipelineOptions QuietOptions(const PipelineOptions& opts) {
  PipelineOptions quiet;
  quiet.schedule = opts.schedule;
  quiet.pair_ds = opts.pair_ds;
  return quiet;
}

// For a gemm kernel whose configuration `c` ran out of registers: the
// settings of double_buffer and lds_dma, other than c's, that compile (the
// pipeline run again on `k` with that setting written on its gemm), as the
// text to add to the gemm ("double_buffer off", "lds_dma on", ...). Only
// one setting changes at a time; a run of the alternatives does not look
// for alternatives of its own.
static std::vector<std::string> FittingAlternatives(const Kernel& k, const TargetId& target_id,
                                             const PipelineOptions& opts, absl::string_view filename,
                                             const GemmConfig& c) {
  if (FindGemm(k) == nullptr) return {};
  const PipelineOptions quiet = QuietOptions(opts);
  std::vector<std::pair<std::string, Kernel>> tries;
  if (c.double_buffer) {
    Kernel alt = k;
    FindGemm(alt)->gemm.double_buffer = false;
    tries.push_back({"double_buffer off", std::move(alt)});
  }
  if (target_id.target->has_lds_dma_dwordx4) {
    Kernel alt = k;
    FindGemm(alt)->gemm.lds_dma = !c.lds_dma;
    tries.push_back({c.lds_dma ? "lds_dma off" : "lds_dma on", std::move(alt)});
  }
  std::vector<std::string> fits;
  for (const auto& [text, alt] : tries)
    if (RunPipelineImpl(alt, target_id, quiet, filename, false).ok()) fits.push_back(text);
  return fits;
}

// The lowering's error `st` on an op of the kernel promoted from `k`'s gemm
// (configuration `tiling`), said of the gemm: "in 'gemm ...': the gemm's
// configuration `tile ...` gives its promoted kernel an access kirc cannot
// lower: in '%a_copy0 = ...': why; ..." and, when the gemm gave a tile,
// waves or MFMA and kirc's own choice for them compiles, that choice.
static absl::Status PromotedOpError(const Kernel& k, const TargetId& target_id, const PipelineOptions& opts,
                                    absl::string_view filename, bool suggest, const std::string& tiling,
                                    const absl::Status& st) {
  const Op* g = FindGemm(k);
  const std::string msg(st.message());
  const std::string marker = "error: in '";
  const size_t at = msg.find(marker);
  if (g == nullptr || at == std::string::npos) return st;
  std::string m = absl::StrCat(msg.substr(0, at), marker, GemmOpText(g->gemm), "': the gemm's configuration `", tiling,
                               "` gives the kernel kirc promotes it to an access kirc cannot lower: in '",
                               msg.substr(at + marker.size()));
  if (suggest && (g->gemm.has_tile() || g->gemm.has_waves() || !g->gemm.mfma.empty())) {
    Kernel alt = k;
    GemmOp& ag = FindGemm(alt)->gemm;
    ag.tile = {0, 0, 0};
    ag.waves = {0, 0};
    ag.mfma.clear();
    absl::StatusOr<PipelineResult> r = RunPipelineImpl(alt, target_id, QuietOptions(opts), filename, false);
    if (r.ok() && !r->gemm_tiling.empty())
      absl::StrAppend(&m, "; without the tile, waves and mfma clauses kirc chooses `", r->gemm_tiling,
                      "`, which compiles");
  }
  return absl::Status(st.code(), m);
}

absl::StatusOr<PipelineResult> RunPipeline(const Kernel& k, const TargetId& target_id,
                                           const PipelineOptions& opts, absl::string_view filename) {
  return RunPipelineImpl(k, target_id, opts, filename, true);
}

static absl::StatusOr<PipelineResult> RunPipelineImpl(const Kernel& k, const TargetId& target_id,
                                               const PipelineOptions& opts, absl::string_view filename,
                                               bool suggest_alternatives) {
  for (const std::string& n : opts.print_before)
    if (n != "all")
      if (absl::Status st = CheckPassName(n, "--print-before"); !st.ok()) return st;
  for (const std::string& n : opts.print_after)
    if (n != "all")
      if (absl::Status st = CheckPassName(n, "--print-after"); !st.ok()) return st;
  if (!opts.stop_after.empty())
    if (absl::Status st = CheckPassName(opts.stop_after, "--stop-after"); !st.ok()) return st;
  PassState s{target_id, *target_id.target, opts, std::string(filename), &k};
  s.acc_in_agprs = s.t.mfma_acc_in_agprs;
  s.r.gemm_tiling = opts.gemm_tiling;  // validate sets a gemm kernel's own
  s.r.kernel = k;
  s.r.kernel.target = target_id.ToString();  // KIR dumps name the target ID compiled for
  auto print = [&](const char* when, const char* pass) {
    if (opts.print)
      opts.print(absl::StrCat("# *** IR Dump ", when, " ", pass, " *** kernel ", s.source->name, " on ",
                              target_id.ToString(), "\n", StateText(s)));
  };
  const std::vector<PassImpl>& impls = Impls();
  for (size_t pi = 0; pi < impls.size(); ++pi) {
    const PassImpl& p = impls[pi];
    if (!p.applies(s)) {
      // A pass that does not apply to this kernel (promote without gemm,
      // xnack-clauses for xnack-) still marks where --stop-after stops.
      if (opts.stop_after == p.info.name) {
        s.r.stopped_after = p.info.name;
        s.r.stopped_text = StateText(s);
        break;
      }
      continue;
    }
    if (Selected(opts.print_before, p.info.name)) print("Before", p.info.name);
    PassRecord rec;
    rec.name = p.info.name;
    rec.insts_before = s.lowered ? static_cast<int64_t>(s.r.lowered.mir.insts.size()) : 0;
    auto t0 = std::chrono::steady_clock::now();
    absl::Status st = p.run(s, rec.counters);
    rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rec.insts_after = s.lowered ? static_cast<int64_t>(s.r.lowered.mir.insts.size()) : 0;
    if (!st.ok()) {
      // A promoted gemm (promoted here, or before: PipelineOptions::
      // gemm_tiling) that runs out of registers or LDS: name the
      // configuration the user can change. The one place of this message.
      if (st.code() == absl::StatusCode::kResourceExhausted && !s.r.gemm_tiling.empty()) {
        // Settings of double_buffer / lds_dma that do fit (fresh-user review
        // F4: lds_dma on ran out of VGPRs where lds_dma off fit, and the
        // message named only the tile and the waves).
        std::vector<std::string> fits;
        if (suggest_alternatives && s.gemm.has_value()) fits = FittingAlternatives(k, target_id, opts, filename, *s.gemm);
        std::vector<std::string> quoted;
        for (const std::string& f : fits) quoted.push_back(absl::StrCat("`", f, "`"));
        return absl::Status(
            st.code(),
            absl::StrCat(st.message(), "; the gemm's configuration is `", s.r.gemm_tiling, "`: ",
                         fits.empty() ? "" : absl::StrCat("with ", absl::StrJoin(quoted, " or with "),
                                                          " on the gemm it compiles; or "),
                         absl::StrContains(st.message(), kUnlaunchable) ? "choose fewer waves or a smaller tile"
                                                                        : "choose a smaller tile or more waves"));
      }
      // A promoted gemm's op that the lowering refuses (a buffer window of
      // 2^31 bytes a hand-given tile's copies overreach): said of the gemm
      // the user wrote and its configuration, not only of the promoted op
      // (`%a_copy0 = load A[...]`), with the default tiling when that
      // compiles (fresh-user review 11: the tile's refusal named an op the
      // user never wrote). The one place of this message.
      if (st.code() == absl::StatusCode::kInvalidArgument && s.gemm.has_value() && !s.r.gemm_tiling.empty() &&
          p.info.name == std::string("lower"))
        return PromotedOpError(k, target_id, opts, filename, suggest_alternatives, s.r.gemm_tiling, st);
      return st;
    }
    s.r.records.push_back(std::move(rec));
    // A retry: lower again and rerun the passes from `lower` on, saying why
    // when passes are printed.
    auto restart_from_lower = [&](const char* why) {
      s.lowered = s.allocated = false;
      if (opts.print && (!opts.print_before.empty() || !opts.print_after.empty()))
        opts.print(absl::StrCat("# *** ", why, " *** kernel ", s.source->name, " on ", target_id.ToString(), "\n"));
      size_t lower = 0;
      while (std::string(impls[lower].info.name) != "lower") ++lower;
      pi = lower - 1;
    };
    if (s.retry_conservative) {
      // Out of registers after the full schedule: schedule in the source's
      // global memory order without the timeline.
      s.retry_conservative = false;
      s.conservative_schedule = true;
      s.r.conservative_schedule_retry = true;
      restart_from_lower(
          "regalloc ran out of registers after the full schedule: lowering again and scheduling in the "
          "source's memory order");
      continue;
    }
    if (s.retry_with_agprs) {
      // Out of VGPRs with the MFMA accumulators among them: the accumulators
      // in AGPRs (gfx90a/942's unified file gives a wave 256 arch VGPRs plus
      // 256 AGPRs).
      s.retry_with_agprs = false;
      s.acc_in_agprs = true;
      s.r.acc_in_agprs_retry = true;
      restart_from_lower(
          "regalloc ran out of VGPRs with the MFMA accumulators in VGPRs: lowering again with them in AGPRs");
      continue;
    }
    if (opts.verify_each && p.info.mir) {
      absl::Status v = VerifyMir(s.t, s.r.lowered.mir, s.allocated ? MirForm::kPhysical : MirForm::kVirtual);
      if (!v.ok())
        return absl::InternalError(absl::StrCat("MIR verifier after pass '", p.info.name,
                                                "' (a kirc bug; please report it with the kernel): ",
                                                v.message()));
    }
    if (Selected(opts.print_after, p.info.name)) print("After", p.info.name);
    if (opts.stop_after == p.info.name) {
      s.r.stopped_after = p.info.name;
      s.r.stopped_text = StateText(s);
      break;
    }
  }
  return std::move(s.r);
}

std::string FormatPassTimes(const std::vector<PassRecord>& records) {
  double total = 0;
  for (const PassRecord& r : records) total += r.seconds;
  std::string s = absl::StrFormat(
      "===-------------------------------------------------------------------------===\n"
      "                          kirc pass execution timing report\n"
      "===-------------------------------------------------------------------------===\n"
      "  Total: %.6f s\n\n   wall (s)    %%      insts in -> out  pass: counters\n",
      total);
  for (const PassRecord& r : records) {
    std::vector<std::string> cs;
    for (const auto& [name, v] : r.counters) cs.push_back(absl::StrCat(name, "=", v));
    absl::StrAppendFormat(&s, "  %10.6f %5.1f%% %8d -> %-8d %s%s%s\n", r.seconds,
                          total > 0 ? 100.0 * r.seconds / total : 0.0, r.insts_before, r.insts_after,
                          r.name, cs.empty() ? "" : ": ", absl::StrJoin(cs, " "));
  }
  return s;
}

}  // namespace kir
