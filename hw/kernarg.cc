#include "hw/kernarg.h"

#include <algorithm>
#include <cstring>

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
  std::vector<KernargValue> values;
  for (const Arg& a : k.args) {
    KernargValue v;
    v.name = a.name;
    if (a.kind == Arg::Kind::kBuffer) {
      auto it = device_ptrs.find(a.name);
      if (it == device_ptrs.end())
        return absl::InvalidArgumentError(absl::StrCat("no device buffer for argument '", a.name, "'"));
      v.is_pointer = true;
      v.pointer = it->second;
    } else {
      auto it = data.scalars.find(a.name);
      if (it == data.scalars.end())
        return absl::InvalidArgumentError(absl::StrCat("no value for scalar argument '", a.name, "'"));
      v.bytes.resize(4);
      std::memcpy(v.bytes.data(), &it->second, 4);
    }
    values.push_back(std::move(v));
  }
  return PackKernargs(notes, values, k.grid, k.workgroup);
}

}  // namespace kir
