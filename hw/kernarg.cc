#include "hw/kernarg.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "compiler/object/toolchain.h"

namespace kir {

std::string MetadataTarget(absl::string_view notes_text) {
  size_t p = notes_text.find("amdhsa.target:");
  if (p == absl::string_view::npos) return std::string();
  absl::string_view rest = notes_text.substr(p + 14);
  rest = rest.substr(0, rest.find('\n'));
  std::string v(absl::StripAsciiWhitespace(rest));
  if (v.size() >= 2 && (v[0] == '\'' || v[0] == '"') && v.back() == v[0]) v = v.substr(1, v.size() - 2);
  return v;
}

absl::string_view TargetIdOf(absl::string_view target) {
  size_t dash = target.rfind("--");
  return dash == absl::string_view::npos ? target : target.substr(dash + 2);
}

absl::string_view TargetProcessor(absl::string_view target) {
  absl::string_view id = TargetIdOf(target);
  return id.substr(0, id.find(':'));
}

absl::StatusOr<const KernelNotes*> PickKernel(const std::vector<KernelNotes>& kernels,
                                              absl::string_view name) {
  if (name.empty()) {
    if (kernels.size() != 1) {
      std::vector<std::string> names;
      for (const KernelNotes& k : kernels) names.push_back(k.name);
      return absl::InvalidArgumentError(absl::StrCat("the code object has ", kernels.size(),
                                                     " kernels; name one of: ", absl::StrJoin(names, ", ")));
    }
    return &kernels[0];
  }
  for (const KernelNotes& k : kernels)
    if (k.name == name) return &k;
  std::vector<std::string> names;
  for (const KernelNotes& k : kernels) names.push_back(k.name);
  return absl::NotFoundError(
      absl::StrCat("it has no kernel '", name, "' (it has: ", absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<CodeObjectKernel> ReadCodeObjectKernel(const std::string& llvm_bin, absl::string_view hsaco,
                                                      absl::string_view name) {
  absl::StatusOr<std::string> text = ReadElfNotes(llvm_bin, hsaco);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<KernelNotes>> notes = ParseKernelNotes(*text);
  if (!notes.ok()) return notes.status();
  absl::StatusOr<const KernelNotes*> k = PickKernel(*notes, name);
  if (!k.ok()) return absl::Status(k.status().code(), absl::StrCat("the code object: ", k.status().message()));
  return CodeObjectKernel{MetadataTarget(*text), **k};
}

std::optional<uint64_t> HiddenArgValue(absl::string_view kind, const std::array<int64_t, 3>& grid,
                                       const std::array<int64_t, 3>& wg) {
  for (int d = 0; d < 3; ++d) {
    const std::string axis(1, "xyz"[d]);
    if (kind == "hidden_block_count_" + axis) return static_cast<uint64_t>(grid[d]);
    if (kind == "hidden_group_size_" + axis) return static_cast<uint64_t>(wg[d]);
  }
  if (kind == "hidden_grid_dims") return grid[2] > 1 || wg[2] > 1 ? 3 : grid[1] > 1 || wg[1] > 1 ? 2 : 1;
  // Whole workgroups and no global offset: what HIP's launches give.
  for (int d = 0; d < 3; ++d) {
    const std::string axis(1, "xyz"[d]);
    if (kind == "hidden_remainder_" + axis || kind == "hidden_global_offset_" + axis) return 0;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<uint8_t>> PackKernargs(const KernelNotes& kernel, const std::vector<KernargValue>& args,
                                                  const std::array<int64_t, 3>& grid,
                                                  const std::array<int64_t, 3>& workgroup) {
  const std::string who = absl::StrCat("kernel '", kernel.name, "': ");
  std::vector<int> explicit_idx;
  int64_t end = kernel.kernarg_segment_size;
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    const ArgNote& a = kernel.args[i];
    if (a.offset < 0 || a.size < 0 || a.size > 4096)
      return absl::InvalidArgumentError(absl::StrCat(who, "metadata argument ", i, " has offset ", a.offset,
                                                     " and size ", a.size));
    end = std::max(end, a.offset + a.size);
    if (!absl::StartsWith(a.value_kind, "hidden_")) explicit_idx.push_back(static_cast<int>(i));
  }
  // Match by name when every explicit entry is named and given.
  std::vector<const KernargValue*> value(kernel.args.size(), nullptr);
  bool by_name = args.size() == explicit_idx.size();
  for (int i : explicit_idx) {
    const std::string& n = kernel.args[i].name;
    auto it = std::find_if(args.begin(), args.end(), [&](const KernargValue& v) { return v.name == n; });
    if (n.empty() || it == args.end()) {
      by_name = false;
      break;
    }
    value[i] = &*it;
  }
  if (!by_name) {
    if (args.size() != explicit_idx.size()) {
      std::vector<std::string> names;
      for (int i : explicit_idx)
        names.push_back(absl::StrCat(kernel.args[i].name.empty() ? "?" : kernel.args[i].name, " (",
                                     kernel.args[i].value_kind, ")"));
      return absl::InvalidArgumentError(absl::StrCat(who, "got ", args.size(),
                                                     " arguments; the code object's metadata lists ",
                                                     explicit_idx.size(), ": ", absl::StrJoin(names, ", ")));
    }
    for (size_t j = 0; j < explicit_idx.size(); ++j) value[explicit_idx[j]] = &args[j];
  }
  std::vector<uint8_t> seg(static_cast<size_t>(end), 0);
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    const ArgNote& a = kernel.args[i];
    const std::string an = absl::StrCat(who, "argument ", i, a.name.empty() ? "" : absl::StrCat(" '", a.name, "'"),
                                        " (", a.value_kind, ")");
    uint8_t* at = seg.data() + a.offset;
    if (a.value_kind == "global_buffer") {
      if (!value[i]->is_pointer)
        return absl::InvalidArgumentError(absl::StrCat(an, " is a buffer pointer but the value given is not"));
      if (a.size != 8)
        return absl::InvalidArgumentError(absl::StrCat(an, ": the metadata gives a pointer ", a.size, " bytes, not 8"));
      std::memcpy(at, &value[i]->pointer, 8);
    } else if (a.value_kind == "by_value") {
      if (value[i]->is_pointer)
        return absl::InvalidArgumentError(absl::StrCat(an, " is passed by value but a pointer was given"));
      if (static_cast<int64_t>(value[i]->bytes.size()) != a.size)
        return absl::InvalidArgumentError(
            absl::StrCat(an, " needs ", a.size, " bytes, got ", value[i]->bytes.size()));
      if (a.size > 0) std::memcpy(at, value[i]->bytes.data(), static_cast<size_t>(a.size));
    } else if (absl::StartsWith(a.value_kind, "hidden_")) {
      if (std::optional<uint64_t> v = HiddenArgValue(a.value_kind, grid, workgroup))
        std::memcpy(at, &*v, std::min<size_t>(static_cast<size_t>(a.size), 8));
    } else {
      return absl::UnimplementedError(absl::StrCat(an, ": value_kind ", a.value_kind, " is not supported"));
    }
  }
  return seg;
}

namespace {

// `n` as written, or C-escaped when it has bytes outside printable ASCII.
std::string Printable(const std::string& n) {
  for (char c : n)
    if (c < 0x20 || c > 0x7e) return absl::CHexEscape(n);
  return n;
}

std::string Quoted(const std::string& n) { return absl::StrCat("'", Printable(n), "'"); }

bool IsHidden(const ArgNote& a) { return absl::StartsWith(a.value_kind, "hidden_"); }

}  // namespace

std::string DescribeArgNote(const ArgNote& a, int position, bool show_position) {
  const std::string& type = !a.type_name.empty() ? a.type_name : a.value_type;
  std::string who;
  if (!a.name.empty()) who = Quoted(a.name);
  else if (position >= 0) who = absl::StrCat("(unnamed, #", position, ")");
  else who = "(unnamed)";
  return absl::StrCat(who, " (", !a.name.empty() && show_position && position >= 0 ? absl::StrCat("#", position, ", ") : "",
                      a.value_kind, ", ", a.size, " bytes at offset ", a.offset, type.empty() ? "" : ", ",
                      Printable(type), ")");
}

std::string PositionalArgKey(size_t n) { return absl::StrCat("#", n); }

std::optional<size_t> PositionalArgIndex(absl::string_view key) {
  if (!absl::ConsumePrefix(&key, "#") || key.empty() || key.size() > 9) return std::nullopt;
  size_t n = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return n;
}

absl::Status CheckPositionalKey(const KernelNotes& notes, absl::string_view key) {
  if (!absl::StartsWith(key, "#") || PositionalArgIndex(key)) return absl::OkStatus();
  size_t count = 0;
  for (const ArgNote& a : notes.args) count += !IsHidden(a);
  return absl::InvalidArgumentError(absl::StrCat(
      "'", Printable(std::string(key)), "' is not a valid argument index (",
      count == 0 ? absl::StrCat("the code object's kernel '", notes.name, "' has no explicit arguments")
                 : absl::StrCat("write #N with N from 0 to ", count - 1),
      ")"));
}

std::string DescribeExplicitArgs(const KernelNotes& notes) {
  std::vector<std::string> v;
  for (const ArgNote& a : notes.args)
    if (!IsHidden(a)) v.push_back(DescribeArgNote(a, static_cast<int>(v.size()), true));
  return v.empty() ? std::string("none") : absl::StrJoin(v, ", ");
}

absl::StatusOr<size_t> PositionalArg(const KernelNotes& notes, size_t n) {
  size_t position = 0;
  const std::string list = DescribeExplicitArgs(notes);
  for (size_t i = 0; i < notes.args.size(); ++i) {
    const ArgNote& a = notes.args[i];
    if (IsHidden(a)) continue;
    if (position++ != n) continue;
    if (a.value_kind == "by_value") return i;
    return absl::InvalidArgumentError(absl::StrCat(
        "argument #", n, " of the code object's kernel '", notes.name, "' is ",
        DescribeArgNote(a, static_cast<int>(n)),
        a.value_kind == "global_buffer" ? ": a pointer, which is one of the .kir's buffers (declare it as a buffer "
                                          "argument of the .kir kernel), not a value --scalar sets"
                                        : ", which --scalar cannot set (it sets by_value arguments)",
        " (its explicit arguments: ", list, ")"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "the code object's kernel '", notes.name, "' has no argument #", n, ": it has ", position,
      " explicit argument(s), #0 to #", position == 0 ? 0 : position - 1, " in its metadata's order (", list, ")"));
}

absl::StatusOr<std::vector<ArgBinding>> BindKernelArgs(const Kernel& k, const KernelNotes& notes,
                                                       const std::map<std::string, std::vector<uint8_t>>& extra) {
  const std::string who = absl::StrCat("the code object's kernel '", notes.name, "'");
  std::vector<size_t> explicit_idx;
  std::map<size_t, int> position_of;  // index in notes.args -> position among the explicit ones
  bool all_named = true;
  for (size_t i = 0; i < notes.args.size(); ++i) {
    if (IsHidden(notes.args[i])) continue;
    position_of[i] = static_cast<int>(explicit_idx.size());
    explicit_idx.push_back(i);
    all_named = all_named && !notes.args[i].name.empty();
  }
  std::vector<std::string> takes;
  for (size_t i : explicit_idx) takes.push_back(DescribeArgNote(notes.args[i], position_of[i], !all_named));
  const std::string takes_text = takes.empty() ? "no explicit arguments" : absl::StrJoin(takes, ", ");
  // A KIR argument against the metadata entry it is bound to.
  auto kind_error = [&](const Arg& a, size_t i) -> std::string {
    const ArgNote& n = notes.args[i];
    const bool buffer = a.kind == Arg::Kind::kBuffer;
    const char* want = buffer ? "global_buffer" : "by_value";
    if (n.value_kind == want && n.size == (buffer ? 8 : 4)) return "";
    return absl::StrCat("the .kir's argument '", a.name, "' is a ", buffer ? "buffer (global_buffer, 8 bytes)"
                                                                           : "scalar (by_value, 4 bytes)",
                        " but the code's is ", DescribeArgNote(n, position_of[i], !all_named));
  };
  // Values given by position ("#N").
  std::map<size_t, std::string> by_position;  // index in notes.args -> key in `extra`
  std::vector<std::string> named_keys;
  for (const auto& [key, v] : extra) {
    if (absl::Status st = CheckPositionalKey(notes, key); !st.ok())
      return absl::InvalidArgumentError(absl::StrCat("a value is given for '", Printable(key), "': ", st.message()));
    std::optional<size_t> p = PositionalArgIndex(key);
    if (!p) {
      named_keys.push_back(Quoted(key));
      continue;
    }
    absl::StatusOr<size_t> i = PositionalArg(notes, *p);
    if (!i.ok()) return absl::InvalidArgumentError(absl::StrCat("a value is given for '", key, "': ", i.status().message()));
    const ArgNote& n = notes.args[*i];
    if (!by_position.emplace(*i, key).second)
      return absl::InvalidArgumentError(absl::StrCat("values are given for '", by_position[*i], "' and '", key,
                                                     "', the same argument ", DescribeArgNote(n, position_of[*i], true),
                                                     " of ", who));
    if (all_named && extra.count(n.name))
      return absl::InvalidArgumentError(absl::StrCat("values are given for '", key, "' and ", Quoted(n.name),
                                                     ", the same argument ", DescribeArgNote(n, position_of[*i], true),
                                                     " of ", who));
    if (all_named && k.FindArg(n.name) != nullptr)
      return absl::InvalidArgumentError(absl::StrCat(
          "a value is given for '", key, "', the argument ", DescribeArgNote(n, position_of[*i], true), " of ", who,
          ", which is the .kir kernel's argument '", n.name, "' (bound by name): give it as the .kir's"));
    if (static_cast<int64_t>(v.size()) != n.size)
      return absl::InvalidArgumentError(absl::StrCat(who, ": ", DescribeArgNote(n, position_of[*i], true),
                                                     " is given ", v.size(), " bytes"));
  }
  std::vector<ArgBinding> out;
  if (!all_named) {
    if (!named_keys.empty())
      return absl::InvalidArgumentError(absl::StrCat(
          who, " does not name all its arguments in its metadata (", takes_text, "), so the values given for ",
          absl::StrJoin(named_keys, ", "), " cannot be matched to arguments by name: give a by-value argument the "
          ".kir lacks by position, --scalar '#N=VALUE' (N: its position above; or rebuild the code with argument "
          "names, clang -cl-kernel-arg-info for OpenCL); the .kir's arguments bind to the others by position"));
    std::vector<size_t> free_idx;  // the explicit arguments no "#N" value takes
    for (size_t i : explicit_idx)
      if (!by_position.count(i)) free_idx.push_back(i);
    if (free_idx.size() != k.args.size()) {
      std::vector<std::string> want;
      for (const Arg& a : k.args) want.push_back(a.name);
      return absl::InvalidArgumentError(absl::StrCat(
          who, " takes ", explicit_idx.size(), " explicit argument(s) (", takes_text, ")",
          by_position.empty() ? "" : absl::StrCat(", ", by_position.size(), " of them given by position (--scalar '#N=VALUE'),"),
          " but the .kir kernel has ", k.args.size(), " (", absl::StrJoin(want, ", "),
          "); with unnamed arguments the .kir's bind by position to the explicit arguments no --scalar '#N=VALUE' "
          "takes: give the .kir kernel those, in order, and each by-value argument it lacks with --scalar "
          "'#N=VALUE'"));
    }
    size_t j = 0;
    for (size_t i : explicit_idx) {
      if (auto it = by_position.find(i); it != by_position.end()) {
        out.push_back({ArgBinding::Kind::kExtra, i, it->second});
        continue;
      }
      const Arg& a = k.args[j];
      const ArgNote& n = notes.args[i];
      if (!n.name.empty() && n.name != a.name)
        return absl::InvalidArgumentError(absl::StrCat(who, " names its argument #", position_of[i], " ",
                                                       Quoted(n.name), " but the .kir's is '", a.name, "'"));
      if (std::string e = kind_error(a, i); !e.empty()) return absl::InvalidArgumentError(absl::StrCat(who, ": ", e));
      out.push_back({a.kind == Arg::Kind::kBuffer ? ArgBinding::Kind::kBuffer : ArgBinding::Kind::kScalar, i,
                     a.name});
      ++j;
    }
    return out;
  }
  // By name.
  std::vector<std::string> missing, twice, kinds;
  std::map<std::string, const Arg*> kir;
  for (const Arg& a : k.args) {
    kir[a.name] = &a;
    int found = 0;
    for (size_t i : explicit_idx) {
      if (notes.args[i].name != a.name) continue;
      if (++found == 1)
        if (std::string e = kind_error(a, i); !e.empty()) kinds.push_back(e);
    }
    if (found == 0) missing.push_back(absl::StrCat("'", a.name, "'"));
    if (found > 1) twice.push_back(absl::StrCat("'", a.name, "'"));
  }
  if (!missing.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        who, " has no argument", missing.size() > 1 ? "s" : "", " named ", absl::StrJoin(missing, ", "),
        " of the .kir kernel (it takes ", takes_text, "): give the .kir kernel the code's argument names"));
  if (!twice.empty())
    return absl::InvalidArgumentError(absl::StrCat(who, " names more than one argument ", absl::StrJoin(twice, ", "),
                                                   " (it takes ", takes_text, "), so the .kir's cannot be bound"));
  if (!kinds.empty()) return absl::InvalidArgumentError(absl::StrCat(who, ": ", absl::StrJoin(kinds, "; ")));
  std::vector<std::string> pointers, unvalued, sized, other;
  std::set<std::string> foreign_by_value;
  for (size_t i : explicit_idx) {
    const ArgNote& n = notes.args[i];
    if (kir.count(n.name)) continue;
    if (n.value_kind == "global_buffer") {
      pointers.push_back(DescribeArgNote(n));
    } else if (n.value_kind == "by_value") {
      foreign_by_value.insert(n.name);
      if (by_position.count(i)) continue;  // its size checked above
      auto it = extra.find(n.name);
      if (it == extra.end())
        unvalued.push_back(DescribeArgNote(n));
      else if (static_cast<int64_t>(it->second.size()) != n.size)
        sized.push_back(absl::StrCat(DescribeArgNote(n), " is given ", it->second.size(), " bytes"));
    } else {
      other.push_back(DescribeArgNote(n));
    }
  }
  if (!pointers.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        who, " takes ", pointers.size() > 1 ? "pointer arguments" : "a pointer argument", " the .kir kernel lacks: ",
        absl::StrJoin(pointers, ", "), "; kirc passes only the .kir's buffers: declare each as a buffer argument "
        "of the .kir kernel, with the same name"));
  if (!other.empty())
    return absl::InvalidArgumentError(absl::StrCat(who, " takes ", other.size() > 1 ? "arguments" : "an argument",
                                                   " kirc cannot give a value: ", absl::StrJoin(other, ", "),
                                                   " (it passes buffers, and by-value integers and floats)"));
  if (!unvalued.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        who, " takes ", unvalued.size() > 1 ? "by-value arguments" : "a by-value argument", " the .kir kernel lacks: ",
        absl::StrJoin(unvalued, ", "), "; give each a value with --scalar NAME=VALUE (the values that make it "
        "compute the .kir's shapes)"));
  if (!sized.empty()) return absl::InvalidArgumentError(absl::StrCat(who, ": ", absl::StrJoin(sized, "; ")));
  for (const auto& [n, v] : extra)
    if (!PositionalArgIndex(n) && !foreign_by_value.count(n)) {
      std::vector<std::string> names;
      for (const std::string& f : foreign_by_value) names.push_back(Quoted(f));
      return absl::InvalidArgumentError(absl::StrCat(
          "a value is given for ", Quoted(n), ", which is not a by-value argument of ", who,
          " that the .kir kernel lacks (", names.empty() ? std::string("it has none") : absl::StrJoin(names, ", "),
          ")"));
    }
  for (size_t i : explicit_idx) {
    const ArgNote& n = notes.args[i];
    auto it = kir.find(n.name);
    if (auto p = by_position.find(i); p != by_position.end())
      out.push_back({ArgBinding::Kind::kExtra, i, p->second});
    else if (it == kir.end())
      out.push_back({ArgBinding::Kind::kExtra, i, n.name});
    else
      out.push_back({it->second->kind == Arg::Kind::kBuffer ? ArgBinding::Kind::kBuffer : ArgBinding::Kind::kScalar,
                     i, n.name});
  }
  return out;
}

absl::Status CheckDispatchShape(const Kernel& k) {
  for (int d = 0; d < 3; ++d)
    if (k.grid[d] < 1 || k.grid[d] > 0xffffffffll || k.workgroup[d] < 1 || k.workgroup[d] > 1024 ||
        k.grid[d] * k.workgroup[d] > 0xffffffffll)
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", k.name, "': grid ", k.grid[0], "x", k.grid[1], "x", k.grid[2], " and workgroup ", k.workgroup[0],
          "x", k.workgroup[1], "x", k.workgroup[2],
          " cannot be dispatched (at most 1024 work-items per workgroup dimension and 2^32-1 per grid dimension; "
          "promote a gemm kernel first)"));
  return absl::OkStatus();
}

absl::StatusOr<CodeObjectKernel> LaunchMetadata(const std::string& llvm_bin, absl::string_view hsaco,
                                                const Kernel& k) {
  if (absl::Status st = CheckDispatchShape(k); !st.ok()) return st;
  std::string bin = llvm_bin;
  if (bin.empty()) {
    absl::StatusOr<std::string> b = ResolveLlvmBin(std::nullopt);
    if (!b.ok()) return b.status();
    bin = *b;
  }
  return ReadCodeObjectKernel(bin, hsaco, k.name);
}

absl::StatusOr<std::vector<uint8_t>> PackKernelArgs(const Kernel& k, const KernelNotes& notes,
                                                    const std::map<std::string, uint64_t>& device_ptrs,
                                                    const KernelData& data) {
  absl::StatusOr<std::vector<ArgBinding>> bound = BindKernelArgs(k, notes, data.extra_args);
  if (!bound.ok()) return bound.status();
  // The values in the metadata's explicit order, named as the metadata names
  // them (PackKernargs matches by name when all are named, else by position).
  std::vector<KernargValue> values;
  for (const ArgBinding& b : *bound) {
    KernargValue v;
    v.name = notes.args[b.note].name;
    switch (b.kind) {
      case ArgBinding::Kind::kBuffer: {
        auto it = device_ptrs.find(b.name);
        if (it == device_ptrs.end())
          return absl::InvalidArgumentError(absl::StrCat("no device buffer for argument '", b.name, "'"));
        v.is_pointer = true;
        v.pointer = it->second;
        break;
      }
      case ArgBinding::Kind::kScalar: {
        auto it = data.scalars.find(b.name);
        if (it == data.scalars.end())
          return absl::InvalidArgumentError(absl::StrCat("no value for scalar argument '", b.name, "'"));
        v.bytes.resize(4);
        std::memcpy(v.bytes.data(), &it->second, 4);
        break;
      }
      case ArgBinding::Kind::kExtra:
        v.bytes = data.extra_args.at(b.name);
        break;
    }
    values.push_back(std::move(v));
  }
  return PackKernargs(notes, values, k.grid, k.workgroup);
}

}  // namespace kir
