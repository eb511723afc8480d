#include "hw/run/run.h"

#include <sys/stat.h>


#include "hw/run/host_memory.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "compiler/api/compile.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/code_object_target.h"
#include "compiler/object/llvm_in_process.h"
#include "compiler/object/toolchain.h"
#include "compiler/ir/float_bits.h"
#include "compiler/reference/interpreter.h"
#include "hw/check/exact.h"
#include "hw/check/json.h"
#include "hw/check/npy.h"
#include "hw/kernarg.h"
#include "hw/run/saturation_passes.h"
#include "hw/run/user_values.h"

namespace kir {
namespace {

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  errno = 0;
  std::ofstream f(path, std::ios::binary);
  f << bytes;
  f.close();
  if (!f)
    return absl::PermissionDeniedError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno != 0 ? errno : EIO),
                                                    " (the directory must exist and be writable)"));
  return absl::OkStatus();
}

// Writes DIR/NAME.WHAT.npy for each buffer of `k` in `names` (empty: all),
// streamed from the sparse buffer.
absl::Status Dump(const Kernel& k, const std::string& dir, const char* what, const KernelData& d,
                  const std::vector<std::string>& names) {
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer) continue;
    if (!names.empty() && std::find(names.begin(), names.end(), a.name) == names.end()) continue;
    const std::string path = absl::StrCat(dir, "/", a.name, ".", what, ".npy");
    errno = 0;
    std::ofstream f(path, std::ios::binary);
    const bool ok = f && WriteNpyOfBuffer(a, d.buffers.at(a.name), f);
    f.close();
    if (!ok || !f)
      return absl::PermissionDeniedError(absl::StrCat("cannot write ", path, ": ",
                                                      std::strerror(errno != 0 ? errno : EIO),
                                                      " (the directory must exist and be writable)"));
  }
  return absl::OkStatus();
}

// OK when `names` (--dump-buffers) are all buffers of k.
absl::Status CheckDumpBuffers(const Kernel& k, const std::vector<std::string>& names) {
  std::vector<std::string> have;
  for (const Arg& a : k.args)
    if (a.kind == Arg::Kind::kBuffer) have.push_back(a.name);
  for (const std::string& n : names)
    if (std::find(have.begin(), have.end(), n) == have.end())
      return absl::InvalidArgumentError(absl::StrCat("--dump-buffers: kernel '", k.name, "' has no buffer '", n,
                                                     "' (its buffers: ", absl::StrJoin(have, ", "), ")"));
  return absl::OkStatus();
}

// OK when `r` (--workgroups) lies inside k's grid.
absl::Status CheckWorkgroups(const Kernel& k, const WorkgroupRange& given) {
  if (given.whole()) return absl::OkStatus();
  const WorkgroupRange r = given.Over(k.grid);
  for (int d = 0; d < 3; ++d)
    if (r.begin[d] < 0 || r.begin[d] >= r.end[d] || r.end[d] > k.grid[d])
      return absl::InvalidArgumentError(absl::StrCat(
          "--workgroups: ", std::string(1, "XYZ"[d]), " range ", r.begin[d], ":", r.end[d],
          " is not a non-empty half-open range inside kernel '", k.name, "''s grid ", k.grid[0], " x ", k.grid[1],
          " x ", k.grid[2], " (", std::string(1, "XYZ"[d]), " from 0 to ", k.grid[d], ")"));
  return absl::OkStatus();
}

// A code object larger than this is refused before it is read (1 GiB; kirc's
// largest are tens of KiB).
constexpr int64_t kMaxCodeObjectBytes = int64_t{1} << 30;

// A code object read for a run: its bytes and its kernel's metadata.
struct LoadedCode {
  std::string bytes;
  KernelNotes notes;
};

// Reads the code object at `path` and checks that it is for `target` (its
// metadata's amdhsa.target, else its ELF header) and holds a kernel named
// k.name whose code decodes. (Its arguments are bound to k's by the caller,
// BindKernelArgs, with the values of arguments k lacks.)
absl::StatusOr<LoadedCode> ReadKernelCodeObject(const Kernel& k, const TargetId& target, const std::string& path,
                                                const std::string& llvm_bin) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("code object ", path, ": ", why));
  };
  // A device or a pipe (/dev/zero) would be read forever.
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return bad("not a regular file");
    if (st.st_size > kMaxCodeObjectBytes)
      return bad(absl::StrCat(st.st_size, " bytes, more than any code object (limit ", kMaxCodeObjectBytes, ")"));
  }
  // What the file starts with decides before all of it is read: a large
  // file that is neither ELF nor a bundle is refused at once.
  {
    std::ifstream head(path, std::ios::binary);
    if (head) {  // else ReadFileBytes names what is wrong
      char magic[4] = {0, 0, 0, 0};
      head.read(magic, sizeof(magic));
      const std::string m(magic, static_cast<size_t>(std::max<std::streamsize>(head.gcount(), 0)));
      if (m != "\x7f" "ELF" && m != "__CL") return bad("not an ELF file");
    }
  }
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  if (HasOffloadBundleMagic(*bytes)) {
    const std::string entry = HipBundleEntryId(target.ToString());
    absl::StatusOr<std::vector<std::string>> entries = ListBundleEntries(llvm_bin, *bytes);
    if (!entries.ok()) return bad(std::string(entries.status().message()));
    if (std::find(entries->begin(), entries->end(), entry) == entries->end())
      return bad(absl::StrCat("a clang offload bundle without an entry for ", target.ToString(), "; it has ",
                              absl::StrJoin(*entries, ", "), ": give --mcpu one of those target IDs and unbundle "
                              "that entry, or compile for ", target.ToString()));
    return bad(absl::StrCat("a clang offload bundle, not a code object: give the code object for ", target.ToString(),
                            " (e.g. clang-offload-bundler -unbundle -type=o -targets=", entry, " -input=", path,
                            " -output=FILE.hsaco)"));
  }
  if (absl::Status ok = CheckCodeObject(*bytes); !ok.ok()) return bad(std::string(ok.message()));
  absl::StatusOr<std::string> notes = ReadElfNotes(llvm_bin, *bytes);
  if (!notes.ok()) return bad(std::string(notes.status().message()));
  // The whole target ID must match: code for gfx90a:xnack- is not the code
  // for gfx90a:xnack+ (nor what HIP would load on such a device); without
  // amdhsa.target (hipBLASLt's and aiter's code objects) the ELF header's
  // e_flags say it, as the loader reads them.
  if (absl::StatusOr<TargetId> have =
          CodeObjectTargetId(*bytes, TargetIdOf(MetadataTarget(*notes)), target, TargetMatch::kExact);
      !have.ok())
    return bad(std::string(have.status().message()));
  absl::StatusOr<std::vector<KernelNotes>> ks = ParseKernelNotes(*notes);
  if (!ks.ok()) return bad(std::string(ks.status().message()));
  absl::StatusOr<const KernelNotes*> picked = PickKernel(*ks, k.name);
  if (!picked.ok()) return bad(absl::StrCat(picked.status().message(), "; build it from this .kir file"));
  // The kernel's code must decode (the device reads it the same way).
  if (absl::StatusOr<std::string> dis = DisassembleSymbol(llvm_bin, *bytes, k.name, target.target->name); !dis.ok())
    return bad(std::string(dis.status().message()));
  return LoadedCode{*std::move(bytes), **picked};
}

// For each instruction of the compiled kernel's code, in order (the assembly
// lines, labels left out), its mnemonic and the KIR op it implements:
// "KIR k.kir:9:3 'store T[tid.x], %v'" (empty for the prologue).
std::vector<Device::InstructionNote> InstructionNotes(const CompileResult& r, const std::string& file) {
  std::vector<Device::InstructionNote> notes;
  const LoweredKernel& lk = r.lowered;
  for (const MInst& mi : lk.mir.insts) {
    if (mi.opc == Opc::kLabel) continue;
    Device::InstructionNote n;
    n.mnemonic = Info(mi.opc).mnemonic;
    if (mi.kir_op >= 0 && mi.kir_op < static_cast<int>(lk.kir_op_text.size())) {
      const SourceLoc loc = mi.kir_op < static_cast<int>(lk.kir_op_loc.size()) ? lk.kir_op_loc[mi.kir_op] : SourceLoc{};
      std::string where = loc.line > 0 ? absl::StrCat(file.empty() ? "" : file + ":", loc.line, ":", loc.col)
                                       : absl::StrCat("op ", mi.kir_op);
      n.note = absl::StrCat("KIR ", where, " '", lk.kir_op_text[mi.kir_op], "'");
    }
    notes.push_back(std::move(n));
  }
  return notes;
}

}  // namespace

namespace {

// Each scalar argument of `k` that `d` has a value for, with the value as text
// (f32 to 9 significant digits, i32 as a signed integer) and its type name.
struct ScalarValue {
  const Arg* arg;
  uint32_t bits;
  std::string text;
  const char* type;
};
std::vector<ScalarValue> ScalarValues(const Kernel& k, const KernelData& d) {
  std::vector<ScalarValue> v;
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kScalar) continue;
    auto it = d.scalars.find(a.name);
    if (it == d.scalars.end()) continue;
    const bool f32 = a.elem == ElemType::kF32;
    v.push_back({&a, it->second,
                 f32 ? absl::StrFormat("%.9g", F32FromBits(it->second)) : absl::StrCat(static_cast<int32_t>(it->second)),
                 f32 ? "f32" : "i32"});
  }
  return v;
}

}  // namespace

std::string FormatScalars(const Kernel& k, const KernelData& d, const std::set<std::string>& given) {
  std::vector<std::string> parts;
  for (const ScalarValue& s : ScalarValues(k, d))
    parts.push_back(
        absl::StrCat(s.arg->name, " = ", s.text, " (", s.type, given.count(s.arg->name) ? ", --scalar" : "", ")"));
  return absl::StrJoin(parts, ", ");
}

namespace {

// KERNEL.scalars.json: k's scalars, then the code object's arguments k lacks
// (`"code_only": true`) with their types and values as --scalar gave them.
std::string ScalarsJsonWith(const Kernel& k, const KernelData& d, const std::vector<UserValues::Extra>& extra) {
  std::vector<std::string> parts;
  for (const ScalarValue& s : ScalarValues(k, d)) {
    // JSON has no inf or NaN literal: a non-finite f32 is written as a string
    // ("inf", "-inf", "nan"); "bits" holds it exactly (fresh-user review 19 F1).
    const bool finite = std::strcmp(s.type, "f32") != 0 || std::isfinite(F32FromBits(s.bits));
    parts.push_back(absl::StrFormat("  %s: {\"type\": \"%s\", \"value\": %s, \"bits\": \"0x%08x\"}",
                                    JsonString(s.arg->name), s.type, finite ? s.text : JsonString(s.text), s.bits));
  }
  for (const UserValues::Extra& e : extra) {
    // FormatScalarValue: "VALUE (TYPE, 0xBITS)" or, for an integer of
    // unknown sign, "VALUE or UNSIGNED (TYPE, 0xBITS)".
    const std::string f = FormatScalarValue(e.bytes, e.type);
    const std::string value = f.substr(0, f.find(' '));
    const std::string bits = f.substr(f.rfind(", ") + 2, f.size() - f.rfind(", ") - 3);
    const bool finite = value != "nan" && value != "-nan" && value != "inf" && value != "-inf";
    parts.push_back(absl::StrFormat("  %s: {\"type\": \"%s\", \"value\": %s, \"bits\": \"%s\", \"code_only\": true}",
                                    JsonString(e.name), e.type.Name(), finite ? value : JsonString(value), bits));
  }
  return parts.empty() ? "{}\n" : absl::StrCat("{\n", absl::StrJoin(parts, ",\n"), "\n}\n");
}

}  // namespace

std::string ScalarsJson(const Kernel& k, const KernelData& d) { return ScalarsJsonWith(k, d, {}); }

namespace {

std::string MissingMfma(const std::vector<Op>& ops, const TargetInfo& t) {
  for (const Op& op : ops) {
    std::string name = op.kind == OpKind::kMfma ? op.mfma : op.kind == OpKind::kGemm ? op.gemm.mfma : "";
    if (!name.empty()) {
      const MfmaDesc* m = LookupMfma(name);
      if (m != nullptr && !MfmaMnemonic(t, *m).ok()) return name;
    }
    if (op.kind == OpKind::kFor)
      if (std::string s = MissingMfma(op.body, t); !s.empty()) return s;
  }
  return "";
}

}  // namespace

std::string MfmaTargetLacks(const Kernel& k, const TargetInfo& t) { return MissingMfma(k.body, t); }

const char* InputModeName(InputMode m) {
  switch (m) {
    case InputMode::kAuto: return "auto";
    case InputMode::kExact: return "exact";
    case InputMode::kRandom: return "random";
    case InputMode::kAdversarial: return "adversarial";
    case InputMode::kConversion: return "conversion";
    case InputMode::kSaturation: return "saturation";
    case InputMode::kSubnormal: return "subnormal";
  }
  return "?";
}

namespace {

// Whether `k` has an fma of f16 or bf16 values (an operand's element type:
// loads, constants, zeros, conversions, slices, concats and mfmas give theirs,
// add and mul their first operand's, a loop's carried values their initial
// values'). Beside an mfma or gemm no adversarial pass looks for its double
// rounding (review 8 F7); the pass that runs instead says so.
bool HasHalfFma(const Kernel& k) {
  std::map<std::string, ElemType> elem;
  auto type_of = [&](const Operand& o) -> std::optional<ElemType> {
    if (o.is_arg) {
      const Arg* a = k.FindArg(o.name);
      return a != nullptr ? std::optional<ElemType>(a->elem) : std::nullopt;
    }
    auto it = elem.find(o.name);
    return it != elem.end() ? std::optional<ElemType>(it->second) : std::nullopt;
  };
  std::function<bool(const std::vector<Op>&)> walk = [&](const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      switch (op.kind) {
        case OpKind::kLoad: case OpKind::kConst: case OpKind::kZero: case OpKind::kCvt: case OpKind::kSlice:
        case OpKind::kConcat: case OpKind::kMfma:
          for (const std::string& r : op.results) elem[r] = op.type.elem;
          break;
        case OpKind::kAdd: case OpKind::kMul: case OpKind::kFma:
          for (const Operand& o : op.operands) {
            const std::optional<ElemType> t = type_of(o);
            if (op.kind == OpKind::kFma && t && (*t == ElemType::kF16 || *t == ElemType::kBF16)) return true;
          }
          if (!op.operands.empty() && !op.results.empty())
            if (std::optional<ElemType> t = type_of(op.operands[0])) elem[op.results[0]] = *t;
          break;
        case OpKind::kFor:
          for (size_t i = 0; i < op.operands.size(); ++i)
            if (std::optional<ElemType> t = type_of(op.operands[i])) {
              if (i < op.iter_args.size()) elem[op.iter_args[i]] = *t;
              if (i < op.results.size()) elem[op.results[i]] = *t;
            }
          if (walk(op.body)) return true;
          break;
        default:
          break;
      }
    }
    return false;
  };
  return walk(k.body);
}

// Whether `k` has an f16 or bf16 buffer (MakeAdversarialInputs gives those
// its double-rounding families).
bool HasHalfBuffer(const Kernel& k) {
  for (const Arg& a : k.args)
    if (a.kind == Arg::Kind::kBuffer && (a.elem == ElemType::kF16 || a.elem == ElemType::kBF16)) return true;
  return false;
}

// Whether the conversion passes kept drew fewer than kConversionMinTies exact
// ties of the conversion's target in all (ConversionNote::all_ties).
bool TiesUnchecked(const ConversionNote& n) { return n.all_ties >= 0 && n.all_ties < kConversionMinTies; }

// ": fewer than 8 exact ties of bf16's grid drawn over the 2 conversion
// passes that count them (0 in all): its rounding of ties (to even, not
// away from or toward zero) is not checked" when TiesUnchecked, else "".
std::string TiesUncheckedText(const ConversionNote& n) {
  if (!TiesUnchecked(n)) return "";
  const std::string to(ElemTypeName(n.to));
  return absl::StrCat(": fewer than ", kConversionMinTies, " exact ties of ", to, "'s grid drawn over ",
                      n.ties_passes == 1 ? std::string("the conversion pass that counts them")
                                         : absl::StrCat("the ", n.ties_passes, " conversion passes that count them"),
                      " (", n.all_ties,
                      " in all): its rounding of ties (to even, not away from or toward zero) is not checked");
}

// What a conversion pass's drawn values gave a conversion's target type
// (ConversionNote::drawn, counted by CountConversionTies): "12 of 1024
// values before the conversions to f16 stored to P are exact ties of its
// grid (87 round)", "ties of f16 not counted (WHY)".
std::string DrawnTiesText(const ConversionNote& n) {
  const std::string to(ElemTypeName(n.to));
  if (n.drawn < 0)
    return absl::StrCat("ties of ", to, "'s grid not counted",
                        n.not_counted.empty() ? std::string() : absl::StrCat(" (", n.not_counted, ")"));
  if (n.drawn == 0)
    return absl::StrCat("no non-zero value drawn before the conversions to ", to, " stored to ", n.counted_outputs);
  return absl::StrCat(n.drawn_ties, " of ", n.drawn, n.drawn_sampled ? " sampled" : "",
                      " values before the conversions to ", to, " stored to ", n.counted_outputs,
                      n.drawn_ties == 1 ? " is an exact tie" : " are exact ties", " of its grid (", n.drawn_round,
                      " round)", TiesUncheckedText(n));
}

// Counts each conversion pass's drawn values (CountConversionTies) and
// decides its level's target passes planned for ties (ExactPlan::tie_pass;
// fresh-user review 18 F7, F8): one is left out of `*passes` when its
// level's pass drew at least kConversionMinTies exact ties of its type and
// no conversion is then left unrounded by every pass (UnroundedConversions),
// else kept, the level pass's conversions to its type marked
// ConversionNote::own_pass, and then left out again when it drew no tie of
// its type either (fresh-user review 20 F1). Each conversion's ties over the
// passes kept: ConversionNote::all_ties. One reference-only run per
// conversion pass kept that rounds a stored output's conversion (and per
// target pass planned for ties that its level's count keeps). Errors: the
// reference interpreter's.
absl::Status CountConversionPassTies(const Kernel& k, std::vector<ExactPlan>* plans, std::vector<PassSpec>* passes,
                                     uint64_t seed, const UserValues& uv, const InterpOptions& io) {
  auto run = [&](const ExactPlan* c) {
    for (const PassSpec& s : *passes)
      if (s.mode == InputMode::kConversion && s.conv == c) return true;
    return false;
  };
  for (ExactPlan& c : *plans)
    if (!c.tie_pass && run(&c))
      if (absl::Status st = CountConversionTies(k, &c, seed, uv, io); !st.ok()) return st;
  for (ExactPlan& c : *plans) {
    if (!c.tie_pass || !run(&c)) continue;
    ExactPlan* level = nullptr;
    for (ExactPlan& l : *plans)
      if (!l.tie_pass && l.level == c.level && l.to == ElemType::kF32 && run(&l)) level = &l;
    int64_t ties = -1;
    if (level != nullptr)
      for (const ConversionNote& n : level->conversions)
        if (n.level == c.level && n.to == c.to && n.rounds && n.drawn >= 0) ties = n.drawn_ties;
    if (ties >= kConversionMinTies) {  // else its own pass checks its ties
      std::vector<ExactPlan> with, without;
      for (const ExactPlan& o : *plans)
        if (run(&o)) {
          with.push_back(o);
          if (&o != &c) without.push_back(o);
        }
      if (UnroundedConversions(with) == UnroundedConversions(without)) {
        passes->erase(std::remove_if(passes->begin(), passes->end(),
                                     [&](const PassSpec& s) { return s.mode == InputMode::kConversion && s.conv == &c; }),
                      passes->end());
        continue;
      }
    }
    if (level != nullptr && ties < kConversionMinTies)
      for (ConversionNote& n : level->conversions)
        if (n.level == c.level && n.to == c.to && n.rounds) n.own_pass = true;
    if (absl::Status st = CountConversionTies(k, &c, seed, uv, io); !st.ok()) return st;
    // One that drew no tie of its type either adds no tie to the level's
    // (fresh-user review 20 F1: add_f16's f16 conversion rounds no value at
    // either scale): left out, unless no other pass rounds a conversion it
    // rounds; the lines then say the type's tie rounding is not checked.
    int64_t own = -1;
    for (const ConversionNote& n : c.conversions)
      if (n.level == c.level && n.to == c.to && n.rounds && n.drawn >= 0) own = n.drawn_ties;
    if (own != 0) continue;
    std::vector<ExactPlan> with, without;
    for (const ExactPlan& o : *plans)
      if (run(&o)) {
        with.push_back(o);
        if (&o != &c) without.push_back(o);
      }
    if (UnroundedConversions(with) != UnroundedConversions(without)) continue;
    passes->erase(std::remove_if(passes->begin(), passes->end(),
                                 [&](const PassSpec& s) { return s.mode == InputMode::kConversion && s.conv == &c; }),
                  passes->end());
    if (level != nullptr)
      for (ConversionNote& n : level->conversions)
        if (n.level == c.level && n.to == c.to) n.own_pass = false;
  }
  // The ties each conversion got over the passes kept (ConversionNote::
  // all_ties; fresh-user review 20 F1).
  std::map<std::string, std::pair<int64_t, int>> ties;  // where -> (ties, passes)
  for (const ExactPlan& c : *plans)
    if (run(&c))
      for (const ConversionNote& n : c.conversions)
        if (n.rounds && n.drawn >= 0) {
          ties[n.where].first += n.drawn_ties;
          ++ties[n.where].second;
        }
  for (ExactPlan& c : *plans)
    for (ConversionNote& n : c.conversions)
      if (auto it = ties.find(n.where); it != ties.end() && n.rounds && n.drawn >= 0) {
        n.all_ties = it->second.first;
        n.ties_passes = it->second.second;
      }
  return absl::OkStatus();
}

// What a conversion pass rounds (ExactPlan::conversions): "; it may round
// 9:3: '...' (to f16, operands of up to 16 significand bits, 5 beyond f16's;
// 61 of 256 values before the conversions to f16 stored to O are exact ties
// of its grid (183 round)), ...; these inputs never round ...". Conversions
// alike are grouped: "the 20 conversions at 15:3, 19:3, ... (to f16, ...)".
std::string ConversionsText(const ExactPlan& plan) {
  std::vector<std::string> order;  // descriptions, first seen first
  std::map<std::string, std::vector<std::string>> by;
  std::vector<std::string> exact;
  for (const ConversionNote& n : plan.conversions) {
    const std::string to(ElemTypeName(n.to));
    if (!n.rounds) {
      exact.push_back(n.where);
      continue;
    }
    // A target pass's other conversions of its level (ExactPlan::to): sized
    // for the pass's target. One with fewer than kConversionMinTies ties
    // drawn and a pass of its own (ConversionNote::own_pass). The ties
    // counted on the drawn values (DrawnTiesText; fresh-user review 18 F7,
    // F8), not guessed from the bound.
    std::string d = n.bits == 0 ? absl::StrCat("to ", to, ", special values")
                    : n.own_pass && !TiesUnchecked(n)
                        ? absl::StrCat("to ", to, ", operands of up to ", n.bits, " significand bits, ",
                                       n.bits - n.target_p, " beyond ", to, "'s; ", DrawnTiesText(n),
                                       n.drawn >= 0 ? absl::StrCat(": fewer than ", kConversionMinTies, ",")
                                                    : std::string(":"),
                                       " its ties are the conversion (to ", to, ") pass's")
                    : n.level == plan.level && (n.capped || n.own_pass)
                        ? absl::StrCat("to ", to, ", operands of up to ", n.bits, " significand bits, ",
                                       n.bits - n.target_p, " beyond ", to, "'s; ", DrawnTiesText(n))
                    : n.level == plan.level
                        ? absl::StrCat("to ", to, ", operands of up to ", n.bits,
                                       " significand bits, sized for the conversions to ",
                                       std::string(ElemTypeName(plan.to)), "; ", DrawnTiesText(n))
                        : absl::StrCat("to ", to, ", the rounded results of the level before it; ",
                                       DrawnTiesText(n));
    if (!by.count(d)) order.push_back(d);
    by[d].push_back(n.where);
  }
  // "15:3: '%h = ...'" -> "15:3" (ops without a position keep their text).
  auto pos = [](const std::string& w) {
    const size_t c = w.find(": '");
    return c == std::string::npos || c == 0 ? w : w.substr(0, c);
  };
  // Each position once: a promoted gemm's conversions all carry the gemm
  // op's ("the 16 conversions at 8:3", fresh-user review 13 F1).
  auto list = [&](const std::vector<std::string>& ws) {
    const std::set<std::string> distinct(ws.begin(), ws.end());
    if (ws.size() <= 2 && distinct.size() == ws.size()) return absl::StrJoin(ws, ", ");
    std::vector<std::string> ps;
    for (const std::string& w : ws)
      if (std::find(ps.begin(), ps.end(), pos(w)) == ps.end()) ps.push_back(pos(w));
    return absl::StrCat("the ", ws.size(), " conversions at ", absl::StrJoin(ps, ", "));
  };
  std::vector<std::string> rounds;
  for (const std::string& d : order) rounds.push_back(absl::StrCat(list(by[d]), " (", d, ")"));
  std::string t;
  if (!rounds.empty()) absl::StrAppend(&t, "; it may round ", absl::StrJoin(rounds, ", "));
  if (!exact.empty())
    absl::StrAppend(&t, "; these inputs never round ", list(exact),
                    " (exact in the target: its rounding is not checked by this pass)");
  return t;
}

// The random pass's words, when it is not after an exact pass, for the
// conversions no conversion pass rounds (`unrounded`): docs/run.md "Mode `auto`" promises
// the random line names them (fresh-user review 20 F3: an fp8 loop without
// a conversion pass named none).
// `conv_blocker`: why no conversion pass exists (PlanConversionInputs'
// blocker; review 20 F3: the exact plan's blocker, a 9-bit value, was the
// only reason the line gave, where a 10-bit one blocked the conversion
// pass, which allows 9), or "", or "for the same reason as exact inputs".
std::string NotRoundedText(const std::vector<std::string>& unrounded, const std::string& conv_blocker) {
  if (unrounded.empty()) return "";
  return absl::StrCat("; no conversion pass rounds ", absl::StrJoin(unrounded, ", "),
                      " (here their rounding is checked only within the tolerance",
                      conv_blocker.empty() ? ""
                      : absl::StartsWith(conv_blocker, "for ") ? absl::StrCat("; no conversion pass exists, ", conv_blocker)
                                                                : absl::StrCat("; no conversion pass exists: ", conv_blocker),
                      ")");
}

// The "inputs: ..." line of a pass. `unrounded`: the conversions no
// conversion pass rounds (UnroundedConversions). `conversion_levels`: the
// chain levels of the conversion passes.
std::string InputsLine(const Kernel& k, InputMode mode, const ExactPlan& plan, const std::string& blocker,
                       uint64_t seed, const std::vector<std::string>& ones, bool after_exact, bool unordered,
                       int conversion_levels, const std::vector<std::string>& unrounded,
                       const std::string& conv_blocker) {
  // The pass that runs instead of an adversarial one beside an mfma/gemm.
  const std::string no_dr = unordered && HasHalfFma(k)
                                ? "; beside an mfma/gemm no adversarial pass runs (it needs bit identity), so "
                                  "nothing looks for a double-rounded f16/bf16 fma (an f32 fma, then a rounding to 16 "
                                  "bits), which only its inputs expose"
                                : "";
  switch (mode) {
    case InputMode::kExact: {
      std::vector<std::string> parts;
      for (const Arg& a : k.args) {
        auto it = plan.formats.find(a.name);
        if (it != plan.formats.end()) parts.push_back(absl::StrCat(a.name, " ", it->second.Describe()));
      }
      std::string one;
      if (!ones.empty())
        one = absl::StrCat("; ", absl::StrJoin(ones, ", "), ones.size() == 1 ? " is" : " are",
                           " 1 (no other value keeps every value exact), so the exact pass cannot see a "
                           "dropped multiply by ",
                           ones.size() == 1 ? "it" : "them", ": a random pass follows");
      return absl::StrCat("inputs: exact (seed ", seed, "): ", absl::StrJoin(parts, "; "),
                          "; every product, partial sum and conversion is exact, so the output must equal the "
                          "reference bit for bit", one, "\n");
    }
    case InputMode::kConversion: {
      std::vector<std::string> parts;
      for (const Arg& a : k.args) {
        auto it = plan.formats.find(a.name);
        if (it != plan.formats.end()) parts.push_back(absl::StrCat(a.name, " ", it->second.Describe(a.elem)));
      }
      bool saturation = false;
      for (const auto& [name, f] : plan.formats) saturation = saturation || f.mix_level >= 0;
      return absl::StrCat("inputs: conversion (seed ", seed,
                          conversion_levels > 1 ? absl::StrCat(", chain level ", plan.level, " of ", conversion_levels)
                                                : std::string(),
                          plan.to != ElemType::kF32 ? absl::StrCat(", to ", std::string(ElemTypeName(plan.to))) : std::string(),
                          "): ", absl::StrJoin(parts, "; "),
                          "; floats negative with probability 1/8; every mfma or gemm sum is exact, so both sides "
                          "hold every value before a conversion bit for bit and the stored codes must equal the "
                          "reference's bit for bit (any NaN for a NaN)",
                          saturation ? "; where a saturation special reaches a conversion, its operand is NaN, inf, "
                                       "or exact in f32 near or beyond the target's max (saturating the same way on "
                                       "both sides)"
                                     : "",
                          ConversionsText(plan), no_dr, "\n");
    }
    case InputMode::kAdversarial:
      return absl::StrCat("inputs: adversarial (seed ", seed, "): ",
                          HasHalfBuffer(k) ? "f16/bf16 products on midpoints plus addends below half, at half and at three quarters of an f32 "
                                             "ulp (a double rounding through f32, or a round-to-odd fix-up that ignores parity, "
                                             "shows), "
                                           : "",
                          "rounding ties, tiny addends (2^-40), subnormals, signed zeros, inf, NaN, extremes; "
                          "the kernel has no mfma, so the output must equal the reference bit for bit (any NaN "
                          "for a NaN)\n");
    default:
      return absl::StrCat(
          "inputs: random (seed ", seed, ")",
          blocker.empty() ? std::string() : absl::StrCat("; exact inputs impossible: ", blocker),
          after_exact ? absl::StrCat("; after the exact pass, as exact inputs never round a conversion",
                                     unrounded.empty() ? ""
                                                       : absl::StrCat(" (nor do the conversion passes round ",
                                                                      absl::StrJoin(unrounded, ", "), ")"),
                                     unordered ? " and the mfma/gemm rules out adversarial inputs" : "",
                                     ones.empty() ? "" : absl::StrCat(" and ", absl::StrJoin(ones, ", "), " = 1 there"))
                      : NotRoundedText(unrounded, conv_blocker == blocker && !blocker.empty()
                                                      ? "for the same reason as exact inputs"
                                                      : conv_blocker),
          no_dr, "\n");
  }
}

// The "inputs: ..." line of a pass on values the user chose.
std::string UserInputsLine(const UserValues& uv, InputMode mode, uint64_t seed, bool unordered) {
  std::string from = uv.input_text.empty() ? std::string("no input files")
                                           : absl::StrCat("from files: ", absl::StrJoin(uv.input_text, ", "));
  return absl::StrCat(
      "inputs: ", from, uv.kir_scalar_text.empty() ? "" : absl::StrCat("; scalars from --scalar: ",
                                                                        absl::StrJoin(uv.kir_scalar_text, ", ")),
      "; the rest ", InputModeName(mode), " (seed ", seed, "); ",
      unordered ? "the kernel's mfma/gemm sums in an order the hardware does not specify, so each element is "
                  "compared within the rounding bound (as random inputs are)"
                : "the kernel has no mfma or gemm, so both sides evaluate IEEE ops in program order whatever the "
                  "values: the output must equal the reference bit for bit (any NaN for a NaN)",
      "\n");
}

// `blocker` ("12:5: 'OP': why") with the kernel's file name in front of its position.
std::string WithFile(const std::string& blocker, const std::string& filename) {
  if (filename.empty() || blocker.empty() || !std::isdigit(static_cast<unsigned char>(blocker[0]))) return blocker;
  return absl::StrCat(filename, ":", blocker);
}

// The first element of the float buffers of `inputs` of each kind beyond
// `limit` (an adversarial pass's extremes, limit 65504: beyond every f16 and
// fp8 range; a conversion pass's saturation inputs, limit 240: beyond the
// smallest fp8 range, f8e4m3fnuz's): +inf, -inf, NaN, a finite |x| > limit;
// "x[3, 0] = inf, x[9, 2] = -3.40282347e+38" (each buffer's first 2^20
// elements searched), "" when none.
std::string ExtremeInputs(const Kernel& k, const KernelData& inputs, double limit) {
  std::string kinds[4];  // +inf, -inf, NaN, finite beyond limit
  for (const Arg& a : k.args) {
    if (a.kind != Arg::Kind::kBuffer || a.elem == ElemType::kI32 || a.shape.empty()) continue;
    auto it = inputs.buffers.find(a.name);
    if (it == inputs.buffers.end()) continue;
    bool any = true;
    for (int64_t e : a.shape) any = any && e > 0;
    std::vector<int64_t> idx(a.shape.size(), 0);
    const int eb = ElemBytes(a.elem);
    for (int64_t n = 0; any && n < (int64_t{1} << 20); ++n) {
      int64_t off = 0;
      for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * a.strides[d];
      uint8_t b[8] = {};
      it->second.Read(static_cast<uint64_t>(off * eb), b, static_cast<uint64_t>(eb));
      const double v = ElementValue(a.elem, b);
      const int kind = std::isnan(v) ? 2 : std::isinf(v) ? (v > 0 ? 0 : 1) : std::fabs(v) > limit ? 3 : -1;
      if (kind >= 0 && kinds[kind].empty())
        kinds[kind] = absl::StrFormat("%s[%s] = %.9g", a.name, absl::StrJoin(idx, ", "), v);
      if (!NextIndex(idx, a.shape)) break;
    }
  }
  std::vector<std::string> found;
  for (const std::string& x : kinds)
    if (!x.empty()) found.push_back(x);
  return absl::StrJoin(found, ", ");
}

// For the refusal of --inputs=conversion: what auto mode's saturation and
// subnormal passes do without a conversion pass (PlanSaturationBase); ""
// when `k` has no mfma or gemm (no such passes).
std::string SaturationBaseNote(const Kernel& k, const std::string& filename) {
  if (!HasUnorderedSum(k)) return "";
  const ExactPlan b = PlanSaturationBase(k);
  if (!b.exact)
    return absl::StrCat(" (auto mode's saturation and subnormal passes cannot run either: no inputs keep every "
                        "value exact in f32 up to each conversion: ",
                        WithFile(b.blocker, filename), ")");
  if (ComputedConversionTargets(k, b).empty()) return "";
  return " (auto mode still runs the saturation and subnormal passes, on inputs of their own, exact in f32 up to "
         "each conversion)";
}

}  // namespace

int DefaultThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

absl::StatusOr<RunReport> RunAndCheck(const Kernel& k, Device& device, const RunOptions& opts) {
  bool writable = false;
  for (const Arg& a : k.args) writable |= a.kind == Arg::Kind::kBuffer && a.access != Access::kReadOnly;
  if (!writable)
    return absl::FailedPreconditionError(absl::StrCat(
        "kernel '", k.name, "' has no writable buffer (writeonly or readwrite): there is nothing to "
        "check against the reference; declare its outputs writeonly or readwrite"));
  if (absl::Status st = CheckDumpBuffers(k, opts.dump_buffers); !st.ok()) return st;
  if (absl::Status st = CheckWorkgroups(k, opts.workgroups); !st.ok()) return st;
  // Values the user chose that the reference interpreter sees too (input
  // files, k's own scalars): then one pass on them (RunOptions::input_files).
  bool user = !opts.input_files.empty();
  for (const auto& [name, value] : opts.scalars)
    if (const Arg* a = k.FindArg(name); a != nullptr && a->kind == Arg::Kind::kScalar) user = true;
  // The passes: exact inputs when the analysis proves them (else random), and
  // adversarial inputs when no sum has an unspecified order.
  const bool unordered = HasUnorderedSum(k);
  if (user && opts.inputs == InputMode::kExact)
    return absl::FailedPreconditionError(absl::StrCat(
        "--inputs=exact: exact inputs are values kirc chooses and proves exact for kernel '", k.name,
        "'; the values of --input and --scalar are yours, and nothing proves them exact: use --inputs=auto (bit for "
        "bit when the kernel has no mfma or gemm, else within the rounding bound) or --inputs=random"));
  if (user && opts.inputs == InputMode::kConversion)
    return absl::FailedPreconditionError(absl::StrCat(
        "--inputs=conversion: conversion inputs are values kirc chooses and proves exact up to each conversion "
        "for kernel '", k.name, "'; the values of --input and --scalar are yours: use --inputs=auto or "
        "--inputs=random"));
  // The conversion pass (PlanConversionInputs): when asked for, and by
  // default for a kernel with a narrowing conversion.
  // One pass per chain level (PlanConversionPasses: f32 -> f16 -> fp8 gets
  // a pass whose f16 conversion rounds and one whose fp8 conversion does).
  std::vector<ExactPlan> conv_plans;
  int conv_levels = 0;  // their chain levels (a level's target passes count once)
  if (!user && (opts.inputs == InputMode::kConversion ||
                (opts.inputs == InputMode::kAuto && HasNarrowingConversion(k)))) {
    conv_plans = PlanConversionPasses(k);
    // A promoted gemm: the tile-level gemm it came from has the same
    // arguments and sums, and its analysis does not count the zeros a guarded
    // K tail loads as products (fresh-user review 13 F1: K = 200 with BK = 64
    // bounded as 256 products), so its plans serve when the promoted
    // kernel's analysis finds none.
    if (conv_plans.empty() && opts.gemm_source != nullptr) conv_plans = PlanConversionPasses(*opts.gemm_source);
    // With saturation specials where values reach a conversion through
    // elementwise ops (fresh-user review 8 F1).
    for (ExactPlan& c : conv_plans) c = WithSaturationSpecials(k, std::move(c));
    for (const ExactPlan& c : conv_plans) conv_levels = std::max(conv_levels, c.level);
    if (conv_plans.empty() && opts.inputs == InputMode::kConversion)
      return absl::FailedPreconditionError(absl::StrCat(
          "conversion inputs are impossible for kernel '", k.name, "': ",
          WithFile(PlanConversionInputs(k).blocker, opts.filename), "; use --inputs=auto or --inputs=random",
          SaturationBaseNote(k, opts.filename)));
  }
  // Without a conversion pass, the saturation and subnormal passes scale
  // inputs of their own (PlanSaturationBase; fresh-user review 13 F3: they
  // were lost with it, silently).
  // A conversion pass whose inputs hold a K window through an mfma loop
  // (fresh-user review 20 F3) leaves the saturation and subnormal passes to
  // the saturation base, as before it had one (planned from the windowed
  // inputs, k18's -max pass found no negation that reached -max).
  bool loop_window = false;
  if (!conv_plans.empty() && opts.gemm_source == nullptr &&
      std::none_of(k.body.begin(), k.body.end(), [](const Op& op) { return op.kind == OpKind::kGemm; }))
    for (const auto& [name, f] : conv_plans.front().formats) loop_window = loop_window || f.k_window > 0;
  std::optional<ExactPlan> sat_base;
  std::string sat_base_blocker;  // why even those inputs do not exist
  if (!user && opts.inputs == InputMode::kAuto && (conv_plans.empty() || loop_window) && HasUnorderedSum(k) &&
      HasNarrowingConversion(k)) {
    ExactPlan b = PlanSaturationBase(k);
    if (b.exact) sat_base = std::move(b);
    else sat_base_blocker = WithFile(b.blocker, opts.filename);
  }
  // Conversions no conversion pass rounds: beside an mfma or gemm a random
  // pass follows for them (fresh-user review 8 F8).
  std::vector<std::string> unrounded = UnroundedConversions(conv_plans);
  std::string conv_blocker;  // why no conversion pass exists, when none does
  if (!user && opts.inputs == InputMode::kAuto && unordered && conv_plans.empty()) {
    for (std::string& w : unrounded = NarrowingConversions(k))  // no conversion pass: none rounded (review 20 F3)
      w = WithFile(w, opts.filename);
    if (!unrounded.empty()) conv_blocker = WithFile(PlanConversionInputs(k).blocker, opts.filename);
  }
  ExactPlan plan;
  std::string blocker;
  if (!user && (opts.inputs == InputMode::kAuto || opts.inputs == InputMode::kExact)) {
    plan = PlanExactInputs(k);
    // A promoted gemm: the tile-level gemm's plan when the promoted kernel's
    // analysis finds none (as for the conversion passes above), else its
    // blocker, said of the gemm op.
    std::string why = plan.blocker;
    if (!plan.exact && opts.gemm_source != nullptr) {
      ExactPlan src = PlanExactInputs(*opts.gemm_source);
      if (src.exact)
        plan = std::move(src);
      else
        why = src.blocker;
    }
    if (!plan.exact) {
      blocker = WithFile(why, opts.filename);
      if (opts.inputs == InputMode::kExact)
        return absl::FailedPreconditionError(absl::StrCat(
            "exact inputs are impossible for kernel '", k.name, "': ", blocker,
            "; use random inputs (--inputs=random, or --inputs=auto to fall back to them)"));
    }
  }
  // f32 scalars exact mode can only give the value 1 (ExactFormat::choices).
  std::vector<std::string> ones;
  if (plan.exact)
    for (const Arg& a : k.args)
      if (auto it = plan.formats.find(a.name);
          a.kind == Arg::Kind::kScalar && it != plan.formats.end() && it->second.choices == std::vector<double>{1})
        ones.push_back(a.name);
  if (opts.inputs == InputMode::kAdversarial && unordered)
    // Offer exact inputs only where the kernel has them (review 9 F5).
    return absl::FailedPreconditionError(absl::StrCat(
        "adversarial inputs need a kernel without mfma or gemm ops: kernel '", k.name,
        "' sums products in an order the hardware does not specify, so its output cannot be required to equal "
        "the reference bit for bit on arbitrary inputs; use ",
        PlanExactInputs(k).exact ? "--inputs=exact or --inputs=random" : "--inputs=random (exact inputs are "
                                                                          "impossible for it too)"));
  // The passes, in run order: each one's mode and what its inputs need
  // (saturation and subnormal passes are inserted after the first
  // conversion pass once it has run: their scale comes from its stored
  // values).
  std::vector<PassSpec> passes;
  auto add = [&](InputMode m) { passes.push_back(PassSpec{m}); };
  auto add_conversion_passes = [&] {
    for (const ExactPlan& c : conv_plans) {
      passes.push_back(PassSpec{InputMode::kConversion, &c});
      // A chain's levels each to their own --dump files (fresh-user review
      // 12 F9: they shared "conversion.", the last level's files remained).
      // A level's target passes (fresh-user review 14 F6) by their type:
      // "conversion-f16.", "conversion-1-f16.".
      if (conv_plans.size() > 1 && (conv_levels > 1 || c.to != ElemType::kF32))
        passes.back().dump_tag =
            absl::StrCat("conversion", conv_levels > 1 ? absl::StrCat("-", c.level) : std::string(),
                         c.to != ElemType::kF32 ? absl::StrCat("-", std::string(ElemTypeName(c.to))) : std::string(), ".");
    }
  };
  if (user) {
    // The values not given are generated as the mode says (auto: random).
    add(opts.inputs == InputMode::kAdversarial ? InputMode::kAdversarial : InputMode::kRandom);
  } else {
    switch (opts.inputs) {
      case InputMode::kAuto:
        add(plan.exact ? InputMode::kExact : InputMode::kRandom);
        // Exact inputs never round a conversion: the conversion pass makes
        // them round, often from exact ties, bit for bit (review 7 F1, F5,
        // F6). Without it (no conversion pass possible), and when a scalar
        // the analysis could only fix to 1 hides a dropped multiply by it, a
        // random pass follows when no adversarial pass (bit for bit) can
        // cover them, or when a scalar is 1 (review 6 F1, F6).
        add_conversion_passes();
        if (plan.exact && ((unordered && (conv_plans.empty() || !unrounded.empty())) || !ones.empty()))
          add(InputMode::kRandom);
        if (!unordered) add(InputMode::kAdversarial);
        break;
      case InputMode::kConversion:
        add_conversion_passes();
        break;
      default:
        add(opts.inputs);
    }
  }
  CompileOptions co;
  co.mcpu = opts.mcpu;
  co.filename = opts.filename;
  co.gemm_tiling = opts.gemm_tiling;
  const TargetInfo* target = nullptr;
  absl::StatusOr<std::string> hsaco;
  std::optional<KernelNotes> code_notes;  // the code object's kernel (--code-object)
  if (opts.code_object_path.empty()) {
    absl::StatusOr<CompileResult> cr = Compile(k, co);
    if (!cr.ok()) return cr.status();
    target = cr->target;
    hsaco = CodeObjectFor(*cr, opts.llvm_bin);
    device.SetInstructionNotes(InstructionNotes(*cr, opts.filename));
    if (opts.cross_check != nullptr) opts.cross_check->SetInstructionNotes(InstructionNotes(*cr, opts.filename));
  } else {
    device.SetInstructionNotes({});  // another compile's code: nothing known
    if (opts.cross_check != nullptr) opts.cross_check->SetInstructionNotes({});
    absl::StatusOr<TargetId> t = ResolveTargetId(k, co);
    if (!t.ok()) return t.status();
    target = t->target;
    // The .kir is validated as compiling it would validate it, so a kernel
    // `kirc compile` and `kirc verify` refuse is not run against another
    // compile's code either (fresh-user review 22 F3: an fp8 slice at
    // offset 2 passed here and was refused there).
    if (absl::StatusOr<Kernel> v = ThreadLevelKernel(k, co); !v.ok()) return v.status();
    absl::StatusOr<LoadedCode> code = ReadKernelCodeObject(k, *t, opts.code_object_path, opts.llvm_bin);
    if (!code.ok()) return code.status();
    hsaco = std::move(code->bytes);
    code_notes = std::move(code->notes);
  }
  if (!hsaco.ok()) return hsaco.status();
  absl::StatusOr<UserValues> uv =
      ParseUserValues(k, opts.scalars, opts.input_files, code_notes ? &*code_notes : nullptr);
  if (!uv.ok()) return uv.status();
  // The code's explicit arguments bind to k's and to the values given for
  // the ones k lacks (the devices bind them again, the same way).
  if (code_notes)
    if (absl::StatusOr<std::vector<ArgBinding>> b = BindKernelArgs(k, *code_notes, uv->extra); !b.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("code object ", opts.code_object_path, ": ", b.status().message()));
  std::set<std::string> given;
  for (const auto& [name, bits] : uv->kir_scalars) given.insert(name);
  // Out of memory is an error before anything large is allocated.
  std::string limit_source;
  const int64_t available = opts.host_memory_limit >= 0 ? opts.host_memory_limit
                                                         : AvailableHostBytes(&limit_source);
  if (opts.host_memory_limit >= 0) limit_source = "RunOptions::host_memory_limit";
  int64_t per_byte = device.HostBytesPerBufferByte();
  int64_t per_untouched = device.HostBytesPerUntouchedBufferByte();
  // The second device's copy of the data and its own bookkeeping.
  if (opts.cross_check != nullptr) {
    per_byte += 1 + opts.cross_check->HostBytesPerBufferByte();
    per_untouched += opts.cross_check->HostBytesPerUntouchedBufferByte();
  }
  std::set<std::string> dense;  // buffers from --input files, held whole
  for (const auto& [name, file] : opts.input_files) dense.insert(name);
  absl::Status mem = CheckHostMemory(
      k, RunHostBytes(k, per_byte, /*concurrent=*/false, opts.workgroups, per_untouched, dense, opts.gemm_source), available,
      limit_source);
  if (!mem.ok()) return mem;
  if (opts.host_memory_limit < 0) {
    std::string as_source;
    const int64_t as_available = AvailableAddressSpace(&as_source);
    mem = CheckHostMemory(k, RunAddressSpaceBytes(k, per_byte), as_available, as_source, /*address_space=*/true);
    if (!mem.ok()) return mem;
  }
  // Only the workgroups asked for (the device may refuse).
  if (absl::Status st = device.SetWorkgroups(opts.workgroups); !st.ok()) return st;
  if (opts.cross_check != nullptr)
    if (absl::Status st = opts.cross_check->SetWorkgroups(opts.workgroups); !st.ok()) return st;
  // The reference beside the device when threads and memory allow it.
  const int threads = opts.threads > 0 ? opts.threads : DefaultThreads();
  const bool concurrent =
      threads >= 2 &&
      CheckHostMemory(k, RunHostBytes(k, per_byte, /*concurrent=*/true, opts.workgroups, per_untouched, dense, opts.gemm_source),
                      available, limit_source)
          .ok();
  InterpOptions io;
  io.max_wave_ops = opts.max_reference_wave_ops;
  io.budget_hint = opts.budget_hint;
  io.workgroups = opts.workgroups;
  // What the conversion passes draw, counted; target passes for ties kept
  // where too few are drawn (fresh-user review 18 F7, F8).
  if (absl::Status st = CountConversionPassTies(k, &conv_plans, &passes, opts.seed, *uv, io); !st.ok()) return st;
  // Random passes run the reference on k recording its stores (the
  // per-store checks of CompareWithinBounds).
  std::set<std::string> recorded;
  const Kernel record_kernel = StoreRecordKernel(k, &recorded);
  RunReport r;
  r.exact_blocker = blocker;
  r.ok = true;
  std::string passes_text;
  // Saturation passes (+max, -max) and a subnormal one per group of outputs
  // that one carrier and scale serve are planned after the first conversion
  // pass when the kernel converts an mfma/gemm result to f16, bf16 or fp8
  // (below; for bf16, whose subnormals are f32's, a subnormal pass only
  // behind f32 scalars applied after every mfma/gemm sum), or,
  // without a conversion pass, after the first pass from the saturation
  // base (fresh-user review 13 F3); counted until then (review 10 F7: "2 of
  // 2" when three passes ran) as one group per output type.
  const ExactPlan* sat_src = opts.inputs == InputMode::kAuto && !conv_plans.empty() && !loop_window
                                 ? &conv_plans.front()
                             : sat_base                                             ? &*sat_base
                                                                                    : nullptr;
  const std::vector<ComputedOutput> sat_outputs =
      sat_src != nullptr ? ComputedConversionOutputs(k, *sat_src) : std::vector<ComputedOutput>{};
  bool sat_pending = !sat_outputs.empty();
  int sat_passes = 0;
  {
    std::set<ElemType> types;
    for (const ComputedOutput& o : sat_outputs)
      if (types.insert(o.type).second) sat_passes += o.type == ElemType::kBF16 ? 2 : 3;
  }
  // The saturation base's medians (no conversion pass): from a
  // reference-only run before the passes, whose buffers are gone before
  // theirs are made.
  std::map<std::string, double> base_medians;
  std::map<std::string, double> base_zero_shares;  // the zeros it stored (fresh-user review 18 F3)
  std::string base_failed;  // the reference's error on the base inputs
  if (sat_pending && sat_base) {
    absl::StatusOr<std::map<std::string, double>> m = SaturationBaseMedians(k, *sat_base, opts.seed, io, sat_outputs,
                                                                            &base_zero_shares);
    if (m.ok())
      base_medians = std::move(*m);
    else
      base_failed = std::string(m.status().message());
  }
  auto passes_planned = [&] { return passes.size() + (sat_pending ? sat_passes : 0); };
  // "conversion (chain level 2 of 3)" when a chain has several passes,
  // "conversion (to f16)" for a level's target pass (fresh-user review 14
  // F6), "conversion (chain level 1 of 2, to f16)".
  auto pass_name = [&](size_t at) {
    std::string n = absl::StrCat(InputModeName(passes[at].mode), passes[at].suffix);
    const ExactPlan* c = passes[at].conv;
    if (passes[at].mode == InputMode::kConversion && c != nullptr && (conv_levels > 1 || c->to != ElemType::kF32)) {
      std::vector<std::string> parts;
      if (conv_levels > 1) parts.push_back(absl::StrCat("chain level ", c->level, " of ", conv_levels));
      if (c->to != ElemType::kF32) parts.push_back(absl::StrCat("to ", std::string(ElemTypeName(c->to))));
      absl::StrAppend(&n, " (", absl::StrJoin(parts, ", "), ")");
    }
    return n;
  };
  for (size_t pi = 0; pi < passes.size(); ++pi) {
    const InputMode mode = passes[pi].mode;
    KernelData inputs = mode == InputMode::kExact         ? MakeExactInputs(k, plan, opts.seed)
                        : mode == InputMode::kConversion  ? MakeConversionInputs(k, *passes[pi].conv, opts.seed)
                        : mode == InputMode::kSaturation || mode == InputMode::kSubnormal
                            ? MakeConversionInputs(k, passes[pi].sat, opts.seed)
                        : mode == InputMode::kAdversarial ? MakeAdversarialInputs(k, opts.seed)
                                                          : MakeInputs(k, opts.seed);
    if (mode == InputMode::kSaturation) ApplyWindowValues(k, passes[pi], &inputs);  // PlaceMaxWindow's
    uv->ApplyTo(k, &inputs);  // files, --scalar values, the code's arguments k lacks
    if (passes[pi].placed) inputs = passes[pi].placed->first;  // the same values (place_blocks)
    // Bit for bit: exact and adversarial inputs; the user's values when k has
    // no mfma or gemm (IEEE ops in program order on both sides, whatever the
    // values). Else within the rounding bound of a magnitude shadow run.
    const bool bitwise = user ? !unordered : mode != InputMode::kRandom;
    KernelData out = inputs;
    // The reference's run on these inputs (and in random mode the magnitude
    // shadow's): on a thread of its own beside the device when `concurrent`,
    // else after the device; either way its results are used as a sequential
    // run uses them, the device's first.
    const bool records = !bitwise && !recorded.empty();
    PagedInterpArgs ref{inputs.buffers, inputs.scalars};
    if (records) ref.buffers = StoreRecordInputs(record_kernel, inputs).buffers;
    PagedInterpArgs shadow;
    absl::Status ref_st, shadow_st;
    // The buffers a load of the reference's run read back after a store.
    std::set<std::string> loaded_after_store;
    // Set when only the reference's verdict is still needed (the device
    // failed): the magnitude shadow is not run.
    std::atomic<bool> skip_shadow{false};
    auto reference = [&, bitwise, records](InterpOptions o) {
      if (records) o.loaded_after_store = &loaded_after_store;
      if (passes[pi].placed && !records) {
        ref = PagedInterpArgs{passes[pi].placed->second.buffers, passes[pi].placed->second.scalars};
        ref_st = absl::OkStatus();
      } else {
        ref_st = Interpret(records ? record_kernel : k, ref, o);
      }
      o.loaded_after_store = nullptr;
      if (ref_st.ok() && !bitwise && !skip_shadow) {
        // The magnitude shadow: the same kernel on |inputs| with |constants|
        // gives every output element's sum of |terms| (CompareWithinBounds).
        KernelData mag_in = MagnitudeInputs(k, inputs);
        shadow = PagedInterpArgs{std::move(mag_in.buffers), std::move(mag_in.scalars)};
        shadow_st = Interpret(MagnitudeKernel(k), shadow, o);
      }
    };
    std::atomic<bool> cancel{false};
    InterpOptions concurrent_io = io;
    concurrent_io.cancel = &cancel;
    std::thread reference_thread;
    if (concurrent) reference_thread = std::thread(reference, concurrent_io);
    // Joins the reference thread; `needed`: its result is used (else it is
    // told to stop).
    auto join = [&](bool needed) {
      if (!reference_thread.joinable()) return;
      if (!needed) cancel = true;
      reference_thread.join();
    };
    // Every way out of this pass joins it (an early return stops it first).
    struct Joiner {
      std::function<void()> f;
      ~Joiner() { f(); }
    } joiner{[&] { join(false); }};
    absl::StatusOr<DeviceRun> run = device.Run(k, *target, *hsaco, out);
    // A device's refusal in a later pass (review 7 F12): which pass and
    // which inputs, and the report of the passes before it.
    auto in_pass = [&](const absl::Status& st) {
      if (passes.size() < 2) return st;
      std::string m = absl::StrCat("the ", pass_name(pi), " pass (", pi + 1, " of ", passes_planned(), ", seed ",
                                   opts.seed, "): ", st.message());
      if (mode == InputMode::kAdversarial || mode == InputMode::kConversion || mode == InputMode::kSaturation ||
          mode == InputMode::kSubnormal)
        if (std::string x = ExtremeInputs(k, inputs, mode == InputMode::kAdversarial ? 65504.0 : 240.0);
            !x.empty())
          absl::StrAppend(&m, "\n(its inputs include out-of-range values, e.g. ", x, ")");
      if (pi > 0) {
        absl::StrAppend(&m, "\nthe pass", pi == 1 ? "" : "es", " before it (",
                        r.ok ? (pi == 1 ? "it passed" : "they passed") : "FAILED", "):\n", passes_text);
        // The earlier passes' reports end in their OK lines: the message's
        // last line says again where the run stopped and that the reason
        // leads it (fresh-user review 22 F1 read only the end).
        if (!m.empty() && m.back() != '\n') m += '\n';
        absl::StrAppend(&m, "stopped in the ", pass_name(pi), " pass (", pi + 1, " of ", passes_planned(),
                        ", seed ", opts.seed, "): its reason is the first line of this message");
      }
      return absl::Status(st.code(), m);
    };
    if (!run.ok()) {
      // A strict-emulator error (e.g. a read of LDS no lane wrote): when the
      // reference interpreter refuses the kernel too, its message names the KIR op.
      if (run.status().code() == absl::StatusCode::kFailedPrecondition) {
        absl::Status is;
        if (concurrent) {
          skip_shadow = true;
          join(true);
          is = ref_st;
        } else {
          PagedInterpArgs probe{inputs.buffers, inputs.scalars};
          is = Interpret(k, probe, io);
        }
        if (is.code() == absl::StatusCode::kFailedPrecondition)
          return in_pass(absl::FailedPreconditionError(absl::StrCat(
              run.status().message(), "\nthe KIR reference interpreter refuses the kernel too: ", is.message())));
      }
      join(false);
      return in_pass(run.status());
    }
    KernelData cross_out;
    std::optional<DeviceRun> cross_run;
    std::optional<std::vector<BufferDiff>> cross_bound;  // random inputs, unordered sums
    if (opts.cross_check != nullptr) {
      cross_out = inputs;
      absl::StatusOr<DeviceRun> r2 = opts.cross_check->Run(k, *target, *hsaco, cross_out);
      if (!r2.ok()) join(false);
      if (!r2.ok())
        return absl::Status(r2.status().code(),
                            absl::StrCat(opts.cross_check->Name(), " (cross-check): ", r2.status().message()));
      cross_run = *r2;
    }
    if (concurrent)
      join(true);
    else
      reference(io);
    absl::Status st = ref_st;
    if (!st.ok()) return absl::Status(st.code(), absl::StrCat("reference interpreter: ", st.message()));
    KernelData ref_data{std::move(ref.buffers), std::move(ref.scalars)};
    CheckPass p;
    p.mode = mode;
    p.name = pass_name(pi);
    p.run = *run;
    if (!bitwise) {
      st = shadow_st;
      if (!st.ok())
        return absl::Status(st.code(), absl::StrCat("reference interpreter (magnitude shadow): ", st.message()));
      KernelData shadow_data{std::move(shadow.buffers), std::move(shadow.scalars)};
      const std::map<std::string, RoundingBound> bounds = RoundingBounds(k);
      p.diffs = CompareWithinBounds(k, out, ref_data, shadow_data, bounds, &loaded_after_store);
      if (cross_run && unordered) {
        // The order of an MFMA's (or gemm's) sums is not specified, so on
        // random inputs two devices may round differently: the second device
        // must then meet the same rounding bound, and bits may differ.
        cross_bound = CompareWithinBounds(k, cross_out, ref_data, shadow_data, bounds, &loaded_after_store);
      }
    } else {
      const char* why = user ? "bit-identical (no mfma or gemm; any NaN matches any NaN)"
                        : mode == InputMode::kExact ? "bit-identical (exact inputs)"
                        : mode == InputMode::kConversion
                            ? "bit-identical (conversion inputs: exact up to the conversion; any NaN matches any NaN)"
                        : mode == InputMode::kSaturation
                            ? "bit-identical (saturation inputs: exact up to the conversion; any NaN matches any NaN)"
                        : mode == InputMode::kSubnormal
                            ? "bit-identical (subnormal inputs: exact up to the conversion; any NaN matches any NaN)"
                                                    : "bit-identical (adversarial inputs; any NaN matches any NaN)";
      p.diffs = CompareBitwise(k, out, ref_data, why);
    }
    // A saturation or subnormal pass's outputs whose values may round on
    // its inputs (PassSpec::unchecked: a sibling output capped the
    // carrier's scale; fresh-user review 14 F5): not compared, said so.
    std::string not_compared;
    if (!user && (mode == InputMode::kSaturation || mode == InputMode::kSubnormal))
      for (const std::string& name : passes[pi].unchecked) {
        const size_t before = p.diffs.size();
        p.diffs.erase(std::remove_if(p.diffs.begin(), p.diffs.end(),
                                     [&](const BufferDiff& d) { return d.name == name; }),
                      p.diffs.end());
        if (p.diffs.size() != before)
          absl::StrAppend(&not_compared, name,
                          ": not compared in this pass (its values before a conversion may round on these "
                          "inputs)\n");
      }
    p.ok = true;
    for (const BufferDiff& d : p.diffs) p.ok = p.ok && d.ok;
    // A readonly buffer or a byte outside a shape the device changed: the
    // reference comparison looks only at elements in the shapes.
    p.untouched_changed = UntouchedBytesChanged(k, inputs, out);
    p.ok = p.ok && p.untouched_changed.empty();
    if (cross_run) {
      p.cross_run = cross_run;
      // A documented deviation of either device from the ISA explains a
      // difference (Device::KnownDeviation); it is reported, not failed.
      // With random inputs and unordered sums, a difference is explained when
      // the second device's buffer is within the rounding bound.
      std::set<std::string> bounded;
      if (cross_bound)
        for (const BufferDiff& d : *cross_bound)
          if (d.ok) bounded.insert(d.name);
      const std::string kUnordered =
          "random inputs and an MFMA/gemm, whose order of sums is not specified: both devices are within the "
          "rounding bound of the reference (use --inputs=exact for a bit-for-bit check)";
      p.cross_diffs = CompareDevices(k, out, cross_out, [&](const Arg& arg, uint64_t a, uint64_t b) {
        std::string why = opts.cross_check->KnownDeviation(arg.elem, a, b);
        if (why.empty()) why = device.KnownDeviation(arg.elem, b, a);
        if (why.empty() && bounded.count(arg.name)) why = kUnordered;
        return why;
      });
      if (cross_bound)
        for (const BufferDiff& d : *cross_bound)
          if (!d.ok) p.cross_unbounded.push_back(d.name);
      p.ok = p.ok && DevicesAgree(p.cross_diffs);
    }
    r.ok = r.ok && p.ok;
    if (!opts.dump_dir.empty()) {
      // The second saturation pass's files beside the first's, not over them.
      const std::string tag = pi == 0 ? ""
                              : !passes[pi].dump_tag.empty() ? passes[pi].dump_tag
                                                              : absl::StrCat(InputModeName(mode), ".");
      std::vector<std::pair<const char*, const KernelData*>> dumps = {{"in", &inputs}, {"out", &out}, {"ref", &ref_data}};
      if (cross_run) dumps.push_back({"cross", &cross_out});
      for (auto [what, data] : dumps) {
        absl::Status ds = Dump(k, opts.dump_dir, absl::StrCat(tag, what).c_str(), *data, opts.dump_buffers);
        if (!ds.ok()) return ds;
      }
      absl::Status ds = WriteFile(absl::StrCat(opts.dump_dir, "/", k.name, ".", tag, "scalars.json"),
                                  ScalarsJsonWith(k, inputs, uv->extra_list));
      if (!ds.ok()) return ds;
    }
    std::string& t = passes_text;
    t += user                             ? UserInputsLine(*uv, mode, opts.seed, unordered)
         : mode == InputMode::kSaturation || mode == InputMode::kSubnormal ? passes[pi].sat_line + passes[pi].reach_line
              : InputsLine(k, mode, mode == InputMode::kConversion ? *passes[pi].conv : plan, blocker, opts.seed,
                           opts.inputs == InputMode::kAuto ? ones : std::vector<std::string>{},
                           pi > 0 && passes[0].mode == InputMode::kExact, unordered, conv_levels,
                           unrounded, conv_blocker);
    // Where the values of each output a saturation or subnormal pass aimed
    // at actually lay (review 12 F9.4: the line said "around and beyond the
    // max" when they were not).
    if (!user && (mode == InputMode::kSaturation || mode == InputMode::kSubnormal))
      for (const std::string& name : passes[pi].aimed)
        if (const Arg* a = k.FindArg(name); a != nullptr)
          t += AimedOutputLine(inputs, ref_data, *a, mode == InputMode::kSubnormal, passes[pi].sign, pass_name(pi),
                               passes[pi].inf_reach.count(name) ? passes[pi].inf_reach.at(name) : 0,
                               passes[pi].zero_shares.count(name) ? passes[pi].zero_shares.at(name) : 0,
                               passes[pi].from_base ? "the saturation base" : "the conversion pass");
    if (std::string sc = FormatScalars(k, inputs, given); !sc.empty())
      absl::StrAppend(&t, pi == 0 ? "" : absl::StrCat(InputModeName(mode), " "), "scalars: ", sc, "\n");
    if (pi == 0) {
      if (run->timed_launches > 0) {
        // A timed device (HIP): the median kernel time and what it means.
        absl::StrAppend(&t, absl::StrFormat("%d waves, median kernel time %.4f ms over %d launches\n", run->waves,
                                            run->milliseconds, run->timed_launches));
        if (run->milliseconds > 0)
          absl::StrAppend(&t, "throughput ", FormatThroughput(opts.work ? *opts.work : WorkOf(k), run->milliseconds),
                          "\n");
      } else {
        absl::StrAppend(&t, absl::StrFormat("%d waves, %d instructions executed (%.1f per wave), %.3f ms\n",
                                            run->waves, run->instructions,
                                            run->waves ? static_cast<double>(run->instructions) / run->waves : 0.0,
                                            run->milliseconds));
      }
      if (!run->instructions_by_class.empty()) {
        t += "by class:";
        for (const auto& [cls, n] : run->instructions_by_class)
          absl::StrAppend(&t, " ", cls, " ", n,
                          absl::StrFormat(" (%.1f/wave)", run->waves ? double(n) / run->waves : 0.0));
        t += "\n";
      }
    }
    t += FormatDiffs(p.diffs);
    t += not_compared;
    for (const std::string& u : p.untouched_changed) absl::StrAppend(&t, u, ": FAIL\n");
    if (p.cross_run) {
      if (pi == 0)
        absl::StrAppend(&t, "cross-check device: ", p.cross_run->device,
                        absl::StrFormat(", %.3f ms", p.cross_run->milliseconds), "\n");
      t += FormatDeviceComparison(k, run->device, p.cross_run->device, p.cross_diffs);
      for (const std::string& b : p.cross_unbounded)
        absl::StrAppend(&t, "cross-check: ", b, " of ", p.cross_run->device,
                        " is outside the rounding bound of the reference\n");
    }
    r.passes.push_back(std::move(p));
    // After the conversion pass of a kernel that converts an mfma/gemm
    // result to a narrower float type: saturation passes whose carrier puts
    // the median value stored to an output near its type's max (review 8
    // F1; f16 and bf16 too, review 10 F5), with +inf and NaN reaching the
    // conversion (review 10 F4), and a subnormal pass (review 10 F6); for
    // every such output, in groups that one carrier and scale serve (review
    // 12 F1, F3, F4: a second output of another type or MFMA chain was
    // never aimed at).
    // Without a conversion pass: after the first pass, from the saturation
    // base (fresh-user review 13 F3).
    const bool from_base = sat_pending && sat_base && pi == 0;
    const ExactPlan* sat_from = from_base ? &*sat_base : passes[pi].conv;
    if (pi == 0 && !sat_base_blocker.empty())
      absl::StrAppend(&passes_text, SkippedLine("saturation (+max, -max) and subnormal passes", absl::StrCat(
          "no conversion pass, and no inputs keep every value exact in f32 up to each conversion: ",
          sat_base_blocker)));
    // Once, after the first conversion pass (a chain's passes share the
    // values behind the conversion).
    const bool plan_here = sat_pending && (mode == InputMode::kConversion || from_base);
    if (plan_here && from_base && !base_failed.empty())
      absl::StrAppend(&passes_text, SkippedLine("saturation (+max, -max) and subnormal passes",
                                                absl::StrCat("the reference interpreter on the saturation base "
                                                             "inputs: ", base_failed)));
    if (plan_here && (!from_base || base_failed.empty())) {
      if (from_base) passes_text += BaseLine(k, *sat_base, opts.seed, base_medians, loop_window);
      SaturationSource src;
      src.from = sat_from;
      src.from_base = from_base;
      src.outputs = &sat_outputs;
      src.seed = opts.seed;
      src.io = io;
      if (from_base) {
        src.medians = base_medians;
        src.zero_shares = base_zero_shares;
      } else
        for (const ComputedOutput& o : sat_outputs)
          if (const Arg* a = k.FindArg(o.name); a != nullptr) {
            src.medians[o.name] = SizingMedian(inputs, ref_data, *a);
            src.zero_shares[o.name] = StoredZeroShare(inputs, ref_data, *a);
          }
      // The conversion pass's data is no longer needed: the block-placing
      // runs take its place in memory (host_memory.h counts one pass's).
      inputs = KernelData();
      out = KernelData();
      cross_out = KernelData();
      ref_data = KernelData();
      absl::StatusOr<std::vector<PassSpec>> added = PlanSaturationPasses(k, src, *uv, &passes_text);
      if (!added.ok()) return added.status();
      // Right after this pass (the passes after them move on).
      passes.insert(passes.begin() + static_cast<std::ptrdiff_t>(pi) + 1, std::make_move_iterator(added->begin()),
                    std::make_move_iterator(added->end()));
    }
    if (plan_here) sat_pending = false;  // planned, or not, after the first
  }
  r.run = r.passes.front().run;
  r.diffs = r.passes.front().diffs;
  std::string& t = r.text;
  // The full target ID (features included: gfx942:sramecc-), as resolved.
  absl::StatusOr<TargetId> tid = ResolveTargetId(k, co);
  const std::string target_id = tid.ok() ? tid->ToString() : std::string(target->name);
  absl::StrAppend(&t, "kernel ", k.name, " on ", target_id, ", ", r.run.device, ", seed ", opts.seed, "\n");
  if (!opts.code_object_path.empty())
    absl::StrAppend(&t, "code object ", opts.code_object_path, " (not recompiled)\n");
  if (!opts.workgroups.whole()) {
    const WorkgroupRange w = opts.workgroups.Over(k.grid);
    absl::StrAppend(&t, "workgroups: ", w.begin[0], ":", w.end[0], ",", w.begin[1], ":", w.end[1], ",", w.begin[2],
                    ":", w.end[2], " (", w.count(), " of ", k.grid[0] * k.grid[1] * k.grid[2],
                    "; on the device and in the reference; elements no selected workgroup writes must keep their "
                    "input values)\n");
  }
  if (!uv->extra_text.empty())
    absl::StrAppend(&t, "arguments of the code object the .kir lacks (--scalar): ",
                    absl::StrJoin(uv->extra_text, ", "), "\n");
  t += passes_text;
  bool ref_ok = true, cross_ok = true;
  int64_t explained = 0;
  for (const CheckPass& p : r.passes) {
    for (const BufferDiff& d : p.diffs) ref_ok = ref_ok && d.ok;
    ref_ok = ref_ok && p.untouched_changed.empty();
    cross_ok = cross_ok && DevicesAgree(p.cross_diffs);
    for (const DeviceDifference& d : p.cross_diffs) explained += d.explained;
  }
  // Which passes found a difference: "in the conversion pass".
  std::vector<std::string> failed;
  for (const CheckPass& p : r.passes)
    if (!p.ok) failed.push_back(p.name);
  const std::string in_passes =
      failed.empty() || r.passes.size() < 2
          ? ""
          : absl::StrCat(" in the ", absl::StrJoin(failed, " and the "), failed.size() == 1 ? " pass" : " passes");
  if (opts.cross_check == nullptr) {
    absl::StrAppend(&t, r.ok ? "PASS" : "FAIL", ": the output ", r.ok ? "matches" : "differs from",
                    " the KIR reference", in_passes, "\n");
  } else {
    absl::StrAppend(&t, r.ok ? "PASS" : "FAIL", ": the output ", ref_ok ? "matches" : "differs from",
                    " the KIR reference; the devices ",
                    !cross_ok       ? "DISAGREE"
                    : explained > 0 ? absl::StrCat("agree bit for bit but for ", explained,
                                                   explained == 1 ? " explained element" : " explained elements")
                                    : "agree bit for bit",
                    "\n");
  }
  return r;
}

}  // namespace kir
