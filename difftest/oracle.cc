#include "difftest/oracle.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/analysis/gemm_config.h"
#include "compiler/promote/promote.h"
#include "compiler/target/target.h"
#include "hw/emu/emu_device.h"
#include "hw/kernarg.h"
#include "hw/run/run.h"
#include "verify/verify.h"

namespace kir::difftest {
namespace {

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The processor of a target ID (ParseTargetId); an invalid ID is returned
// as it is (Compile then refuses it, naming the valid forms).
std::string Processor(const std::string& id) {
  absl::StatusOr<TargetId> t = ParseTargetId(id);
  return t.ok() ? std::string(t->target->name) : id;
}

bool Want(const OracleOptions& o, const char* stage) { return o.only_stage.empty() || o.only_stage == stage; }

}  // namespace

Outcome CheckKernel(absl::string_view text, absl::string_view filename, const std::vector<std::string>& target_ids,
                    const std::map<std::string, std::set<std::string>>& refusals, const OracleOptions& opts) {
  Outcome out;
  auto find = [&](const char* stage, const std::string& target, std::string msg) {
    out.findings.push_back({stage, target, std::move(msg)});
  };
  absl::StatusOr<Kernel> k = ParseKernel(text, filename);
  if (!k.ok()) {
    find("parse", "", std::string(k.status().message()));
    return out;
  }
  for (const std::string& id : target_ids) {
    if (!opts.only_targets.empty() &&
        std::find(opts.only_targets.begin(), opts.only_targets.end(), id) == opts.only_targets.end())
      continue;
    const std::string proc = Processor(id);
    auto lacks = refusals.find(proc);
    CompileOptions co;
    co.mcpu = id;
    co.filename = std::string(filename);
    co.verify_machineinstrs = true;  // the MIR verifier after every pass: malformed MIR is a finding
    auto tc = std::chrono::steady_clock::now();
    absl::StatusOr<CompileResult> r = Compile(*k, co);
    out.compile_seconds += Since(tc);
    if (!r.ok()) {
      const std::string msg(r.status().message());
      bool predicted = false;
      if (lacks != refusals.end() && r.status().code() == absl::StatusCode::kInvalidArgument) {
        for (const std::string& m : lacks->second) predicted |= absl::StrContains(msg, m);
      }
      if (opts.accept_target_refusals && r.status().code() == absl::StatusCode::kInvalidArgument)
        predicted |= absl::StrContains(msg, absl::StrCat(" does not exist on ", proc)) ||
                     absl::StrContains(msg, absl::StrCat(" is not available on ", proc));
      if (predicted) {
        ++out.expected_refusals;
      } else if (r.status().code() == absl::StatusCode::kResourceExhausted) {
        ++out.limits;
        out.limit_messages.push_back(absl::StrCat(id, ": ", msg));
      } else if (Want(opts, "compile")) {
        find("compile", id, absl::StrCat(absl::StatusCodeToString(r.status().code()), ": ", msg));
      }
      continue;
    }
    if (lacks != refusals.end()) {
      if (Want(opts, "unexpected-compile"))
        find("unexpected-compile", id,
             absl::StrCat("compiled a kernel it must refuse (expected: ", absl::StrJoin(lacks->second, "; "), ")"));
      continue;
    }
    ++out.compiled;
    if (opts.roundtrip && Want(opts, "roundtrip")) {
      auto tr = std::chrono::steady_clock::now();
      std::string printed = PrintKernel(*k);
      absl::StatusOr<Kernel> k2 = ParseKernel(printed, filename);
      if (!k2.ok()) {
        find("roundtrip", id, absl::StrCat("--emit=kir output does not parse: ", k2.status().message()));
      } else {
        absl::StatusOr<CompileResult> r2 = Compile(*k2, co);
        if (!r2.ok())
          find("roundtrip", id, absl::StrCat("--emit=kir output does not compile: ", r2.status().message()));
        else if (r2->assembly != r->assembly)
          find("roundtrip", id, "--emit=kir output compiles to different assembly");
      }
      out.compile_seconds += Since(tr);
    }
    const bool verify_here = opts.verify_targets.empty() || std::find(opts.verify_targets.begin(),
                                                                      opts.verify_targets.end(),
                                                                      id) != opts.verify_targets.end();
    if (opts.verify && verify_here && (Want(opts, "verify") || Want(opts, "verify-unknown"))) {
      auto tv = std::chrono::steady_clock::now();
      absl::StatusOr<VerifyResult> v = VerifyAddresses(*k, *r->target, r->lowered);
      out.verify_seconds += Since(tv);
      if (!v.ok() && v.status().code() == absl::StatusCode::kDeadlineExceeded) {
        out.backstop_stops.push_back(absl::StrCat(id, ": ", v.status().message()));
      } else if (!v.ok()) {
        find("verify", id, absl::StrCat("verifier error: ", v.status().message()));
      } else {
        for (const AccessVerdict& a : v->accesses) {
          ++out.accesses;
          if (a.status == AccessVerdict::Status::kProved) {
            ++out.proved;
            out.proved_seconds += a.seconds;
            out.slowest_proof = std::max(out.slowest_proof, a.seconds);
          } else if (a.status == AccessVerdict::Status::kUnknown) {
            ++out.unknown;
            out.unknown_seconds += a.seconds;
            out.unknown_reasons.push_back(absl::StrCat(id, ": ", a.inst_text, " (", a.op_text, "): ", a.reason));
            if (opts.unknown_is_finding && Want(opts, "verify-unknown"))
              find("verify-unknown", id, absl::StrCat(a.inst_text, " (", a.op_text, "): ", a.reason));
          } else {
            find("verify", id,
                 absl::StrCat("failed: ", a.inst_text, " (", a.op_text, "): ", a.reason, "\n", a.counterexample));
          }
        }
      }
    }
    if (opts.run && (Want(opts, "run") || Want(opts, "mismatch") || Want(opts, "cross-check"))) {
      // The thread-level kernel that was compiled (a gemm's promoted form).
      Kernel runk = HasGemm(*k) ? r->lowered.kernel : *k;
      emu::EmuOptions eo;
      eo.max_instructions = opts.max_instructions;
      EmuDevice dev(opts.llvm_bin, eo);
      RunOptions ro;
      ro.mcpu = id;
      ro.filename = std::string(filename);
      ro.seed = opts.input_seed;
      ro.llvm_bin = opts.llvm_bin;
      ro.inputs = InputMode::kAuto;
      // As `kirc run` does: the tile-level gemm's plans and messages.
      if (HasGemm(*k)) ro.gemm_source = &*k;
      ro.max_reference_wave_ops = opts.max_instructions;
      const std::string processor(TargetProcessor(id));
      const bool cross = opts.cross_check != nullptr && Want(opts, "cross-check") &&
                         std::find(opts.cross_check_processors.begin(), opts.cross_check_processors.end(),
                                   processor) != opts.cross_check_processors.end();
      if (cross) ro.cross_check = opts.cross_check;
      auto tx = std::chrono::steady_clock::now();
      absl::StatusOr<RunReport> rep = RunAndCheck(runk, dev, ro);
      out.run_seconds += Since(tx);
      if (!rep.ok()) {
        if (rep.status().code() == absl::StatusCode::kResourceExhausted &&
            absl::StrContains(rep.status().message(), "budget")) {
          ++out.limits;
          out.limit_messages.push_back(absl::StrCat(id, ": run: ", rep.status().message()));
        } else if (cross && absl::StrContains(rep.status().message(), "(cross-check): ")) {
          find("cross-check", id,
               absl::StrCat(absl::StatusCodeToString(rep.status().code()), ": ", rep.status().message()));
        } else if (Want(opts, "run")) {
          find("run", id, absl::StrCat(absl::StatusCodeToString(rep.status().code()), ": ", rep.status().message()));
        }
        continue;
      }
      if (!rep->exact_blocker.empty()) out.exact_blockers.push_back(rep->exact_blocker);
      if (!rep->ok) {
        bool ref_ok = true, devices_agree = true;
        for (const CheckPass& p : rep->passes) {
          for (const BufferDiff& d : p.diffs) ref_ok = ref_ok && d.ok;
          devices_agree = devices_agree && DevicesAgree(p.cross_diffs);
        }
        if (!ref_ok && Want(opts, "mismatch")) find("mismatch", id, rep->text);
        if (!devices_agree) find("cross-check", id, rep->text);
        continue;
      }
      if (cross) out.runs_cross_checked += static_cast<int>(rep->passes.size());
      out.ran_ok = true;
      for (const CheckPass& p : rep->passes) {
        if (p.mode == InputMode::kExact) ++out.runs_exact;
        if (p.mode == InputMode::kRandom) ++out.runs_random;
        if (p.mode == InputMode::kAdversarial) ++out.runs_adversarial;
        if (p.mode == InputMode::kConversion) ++out.runs_conversion;
        if (p.mode == InputMode::kSaturation || p.mode == InputMode::kSubnormal) ++out.runs_saturation;
      }
    }
  }
  return out;
}

std::string FindingClass(const Finding& f) {
  std::string kind;
  if (f.stage == "mismatch") {
    // "NAME: ... FAIL (n elements out of tolerance)" lines name the buffers.
    for (absl::string_view line : absl::StrSplit(f.message, '\n'))
      if (absl::StrContains(line, ": FAIL (")) absl::StrAppend(&kind, line.substr(0, line.find(':')), " ");
  } else if (f.stage == "cross-check" && absl::StrContains(f.message, " differs between ")) {
    // "cross-check: NAME differs between A and B ..." lines name the buffers
    // (once per input pass: each name counts once).
    std::set<std::string> names;
    for (absl::string_view line : absl::StrSplit(f.message, '\n'))
      if (absl::ConsumePrefix(&line, "cross-check: ") && absl::StrContains(line, " differs between "))
        names.insert(std::string(line.substr(0, line.find(' '))));
    for (const std::string& n : names) absl::StrAppend(&kind, n, " ");
  } else {
    absl::string_view m = f.message;
    // Drop "FILE:LINE:COL: error: in 'OP': " and a verifier's "inst (op): ".
    size_t in = m.find("error: in '");
    if (in != absl::string_view::npos) {
      size_t end = m.find("': ", in);
      if (end != absl::string_view::npos) m = m.substr(end + 3);
    }
    size_t paren = m.find("): ");
    if (f.stage == "verify" || f.stage == "verify-unknown") {
      if (paren != absl::string_view::npos) m = m.substr(paren + 3);
    }
    m = m.substr(0, m.find('\n'));
    bool num = false;
    for (char c : m.substr(0, 100)) {
      if (c >= '0' && c <= '9') {
        if (!num) kind += 'N';
        num = true;
      } else {
        num = false;
        kind += c;
      }
    }
  }
  return absl::StrCat(f.stage, " | ", f.target, " | ", kind);
}

std::vector<std::string> VerifyTargetsFor(uint64_t seed, const std::vector<std::string>& target_ids,
                                          const std::map<std::string, std::set<std::string>>& refusals,
                                          bool all) {
  if (all || target_ids.empty()) return target_ids;
  const size_t n = target_ids.size();
  for (size_t i = 0; i < n; ++i) {
    const std::string& id = target_ids[(seed + i) % n];
    if (refusals.count(Processor(id)) == 0) return {id};
  }
  return {};
}

}  // namespace kir::difftest
