#include "verify/object/load.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "compiler/ir/op_text.h"
#include "compiler/isa/operands.h"
#include "compiler/isa/semantics.h"
#include "compiler/object/toolchain.h"
#include "compiler/promote/promote.h"
#include "hw/emu/code_object.h"
#include "hw/emu/emulator.h"
#include "hw/emu/program.h"
#include "hw/kernarg.h"

namespace kir {
namespace {

bool Hidden(const ArgNote& a) { return absl::StartsWith(a.value_kind, "hidden_"); }

// Whether twin argument `a` may bind to the code's argument `n`: a buffer to
// an 8-byte global_buffer, a scalar to a 4-byte by_value, an f32 only to a
// float and an i32 only to a non-float where the metadata names the type.
bool ArgFits(const Arg& a, const ArgNote& n) {
  if (a.kind == Arg::Kind::kBuffer) return n.value_kind == "global_buffer" && n.size == 8;
  if (n.value_kind != "by_value" || n.size != 4) return false;
  const std::string& type = !n.type_name.empty() ? n.type_name : n.value_type;
  if (type.empty()) return true;
  const bool is_float = type == "float" || type == "f32";
  return is_float == (a.elem == ElemType::kF32);
}

// The refusal of a --scalar `key` whose argument `note` shares the kernarg
// dword at `dword` with the arguments or bytes `open` describes, which no
// value fixes: the verifier fixes whole dwords.
absl::Status SharedDwordError(const std::string& key, const ArgNote& note, int64_t dword,
                              const std::vector<std::string>& open) {
  return absl::InvalidArgumentError(absl::StrCat(
      "--scalar ", key, ": the argument (", note.size, " bytes at kernarg offset ", note.offset,
      ") shares the kernarg dword at ", dword, " with ", absl::StrJoin(open, "; "),
      "; the verifier fixes whole dwords, so every argument in one needs a value"));
}

// SharedDwordError's text for explicit argument `a` (at `position`), which
// no --scalar gives.
std::string NoScalarGives(const ArgNote& a, int position) {
  return absl::StrCat("argument ", DescribeArgNote(a, position, true), ", which no --scalar gives: add --scalar '#",
                      position, "=VALUE'", a.name.empty() ? "" : absl::StrCat(" (or '", a.name, "=VALUE')"));
}

// Each twin argument's kernarg slot: by name when the metadata names all of
// them, else by position among the explicit (non-hidden) arguments that no
// --scalar '#N=VALUE' fixes (`fixed`: index in info.args -> the --scalar key
// that fixes it, "#N").
absl::StatusOr<std::vector<KernelAbi::KernargSlot>> Slots(const Kernel& twin, const emu::KernelInfo& info,
                                                          const std::map<size_t, std::string>& fixed) {
  KernelNotes notes;
  notes.name = info.name;
  notes.args = info.args;
  std::vector<size_t> explicit_args;  // indices in info.args
  std::map<size_t, int> position_of;
  for (size_t i = 0; i < info.args.size(); ++i)
    if (!Hidden(info.args[i])) {
      position_of[i] = static_cast<int>(explicit_args.size());
      explicit_args.push_back(i);
    }
  bool by_name = true;
  for (const Arg& a : twin.args) {
    bool found = false;
    for (size_t i : explicit_args) found |= info.args[i].name == a.name;
    by_name &= found;
  }
  std::vector<size_t> bindable;  // what the twin binds to by position
  for (size_t i : explicit_args)
    if (!fixed.count(i)) bindable.push_back(i);
  if (!by_name && bindable.size() != twin.args.size()) {
    // Which explicit argument each twin argument would bind to had exactly
    // the others been fixed: the first one after the previous binding of its
    // kind, size and, where the metadata types it, float-ness (fresh-user
    // review 7 F10: the twin's own scalar must stay free, and the suggestion
    // must not name it).
    std::map<size_t, size_t> twin_of;  // index in info.args -> index in twin.args
    {
      size_t e = 0;
      for (size_t j = 0; j < twin.args.size() && e <= explicit_args.size(); ++j) {
        while (e < explicit_args.size() && !ArgFits(twin.args[j], info.args[explicit_args[e]])) ++e;
        if (e == explicit_args.size()) {
          twin_of.clear();
          break;
        }
        twin_of[explicit_args[e++]] = j;
      }
    }
    for (const auto& [i, key] : fixed)
      if (auto it = twin_of.find(i); it != twin_of.end() && twin.args[it->second].kind == Arg::Kind::kScalar)
        return absl::InvalidArgumentError(absl::StrCat(
            "--scalar '#", position_of[i], "=...': the code's argument ", DescribeArgNote(info.args[i], position_of[i], true),
            " binds by position to the KIR kernel's scalar '", twin.args[it->second].name,
            "', which stays free (the verifier proves the addresses for every value of it): do not fix #",
            position_of[i], "; fix only the by-value arguments the KIR kernel lacks"));
    std::vector<std::string> unnamed_by_value;
    for (size_t i : bindable)
      if (info.args[i].name.empty() && info.args[i].value_kind == "by_value" && !twin_of.count(i))
        unnamed_by_value.push_back(absl::StrCat("'#", position_of[i], "=VALUE'"));
    // A fixed argument that shares a kernarg dword with a by-value one that
    // no --scalar gives and the twin does not bind (a ushort beside a char):
    // the message it gets by name (fresh-user review 8 F9).
    for (const auto& [i, key] : fixed) {
      const ArgNote& note = info.args[i];
      for (int64_t d = note.offset / 4 * 4; d < note.offset + note.size; d += 4) {
        std::vector<std::string> open;
        for (size_t u : bindable) {
          const ArgNote& a = info.args[u];
          if (a.value_kind == "by_value" && !twin_of.count(u) && a.offset < d + 4 && a.offset + a.size > d)
            open.push_back(NoScalarGives(a, position_of[u]));
        }
        if (!open.empty()) return SharedDwordError(key, note, d, open);
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the code's kernel '", info.name, "' has ", explicit_args.size(), " explicit argument(s) (",
        DescribeExplicitArgs(notes), ")", fixed.empty() ? "" : absl::StrCat(", ", fixed.size(), " fixed by --scalar '#N=VALUE',"),
        " and the KIR kernel '", twin.name, "' has ", twin.args.size(),
        ", not all of them named alike: give the KIR kernel the code's arguments, with the same names or in the same "
        "order",
        unnamed_by_value.empty()
            ? std::string()
            : absl::StrCat(", or, for a by-value argument the KIR kernel lacks, fix it by position: --scalar ",
                           absl::StrJoin(unnamed_by_value, ", "),
                           " (a by-value argument the KIR kernel has is free: the addresses are proved for every value "
                           "of it)")));
  }
  std::vector<KernelAbi::KernargSlot> slots;
  for (size_t j = 0; j < twin.args.size(); ++j) {
    const Arg& a = twin.args[j];
    size_t i = 0;
    if (by_name) {
      for (size_t e : explicit_args)
        if (info.args[e].name == a.name) i = e;
      if (fixed.count(i))
        return absl::InvalidArgumentError(absl::StrCat(
            "--scalar '#", position_of[i], "=...': the code's argument ", DescribeArgNote(info.args[i], position_of[i], true),
            " is the KIR kernel's argument '", a.name, "' (bound by name), which the verifier proves for every value"));
    } else {
      i = bindable[j];
    }
    const ArgNote* n = &info.args[i];
    const bool buffer = a.kind == Arg::Kind::kBuffer;
    const std::string want = buffer ? "global_buffer" : "by_value";
    const int64_t size = buffer ? 8 : 4;
    if (n->value_kind != want || n->size != size)
      return absl::InvalidArgumentError(absl::StrCat(
          "KIR argument '", a.name, "' is a ", buffer ? "buffer" : "scalar", " (", want, ", ", size,
          " bytes) but the code's argument ", DescribeArgNote(*n, position_of[i], true), " is ", n->value_kind, " of ",
          n->size, " bytes"));
    slots.push_back({a.name, n->offset, size, buffer});
  }
  return slots;
}

}  // namespace

absl::StatusOr<LoweredKernel> LoadCodeForVerify(const Kernel& twin_in, const TargetInfo& t, const CodeInput& input) {
  if (input.code_object.empty() == input.assembly.empty())
    return absl::InvalidArgumentError("give exactly one of a code object and an assembly text");
  absl::StatusOr<Kernel> twin = ValidateAndPromote(twin_in, t, input.twin_filename);
  if (!twin.ok()) return twin.status();
  auto in_code = [&](const absl::Status& st) {
    return input.code_filename.empty()
               ? st
               : absl::Status(st.code(), absl::StrCat(input.code_filename, ": ", st.message()));
  };
  const std::string mcpu = input.mcpu.empty() ? std::string(t.name) : input.mcpu;
  const std::string llvm_bin = input.llvm_bin.empty() ? std::string(kDefaultLlvmBin) : input.llvm_bin;
  std::string assembled;  // `assemble`: the code object of the text
  if (!input.assembly.empty() && input.assemble) {
    absl::StatusOr<std::string> obj = BuildCodeObject(llvm_bin, input.assembly, mcpu);
    if (!obj.ok()) {
      // llvm-mc's diagnostics name "<stdin>:LINE:COL": name the file instead.
      const std::string where = input.code_filename.empty() ? "the assembly" : input.code_filename;
      return absl::Status(obj.status().code(),
                          absl::StrCat("assembling ", where, " with LLVM (the verifier reads the assembled bytes): ",
                                       absl::StrReplaceAll(obj.status().message(), {{"<stdin>", where}})));
    }
    assembled = *std::move(obj);
  }
  const std::string& code_object = input.assemble ? assembled : input.code_object;
  absl::StatusOr<std::shared_ptr<const emu::LoadedKernel>> loaded =
      code_object.empty() ? emu::LoadAssembly(input.assembly, mcpu)
                          : emu::LoadCodeObject(llvm_bin, code_object, twin_in.name, mcpu);
  if (!loaded.ok()) return in_code(loaded.status());
  const emu::Program& prog = emu::ProgramOf(**loaded);
  const emu::KernelInfo& info = emu::InfoOf(**loaded);
  if (info.reqd_workgroup_size[0] != 0) {
    for (int d = 0; d < 3; ++d)
      if (info.reqd_workgroup_size[d] != twin->workgroup[d])
        return absl::InvalidArgumentError(absl::StrCat(
            "the code's kernel '", info.name, "' requires workgroup ", info.reqd_workgroup_size[0], " x ",
            info.reqd_workgroup_size[1], " x ", info.reqd_workgroup_size[2], " (.reqd_workgroup_size) but the KIR "
            "kernel declares ", twin->workgroup[0], " x ", twin->workgroup[1], " x ", twin->workgroup[2]));
  }

  LoweredKernel lk;
  lk.kernel = *twin;
  // The ABI from the descriptor and the metadata.
  KernelAbi& abi = lk.abi;
  abi.user_sgprs = info.user_sgpr_count;
  for (int d = 0; d < 3; ++d) abi.wg_id_enabled[d] = info.workgroup_id_sgpr[d] >= 0;
  abi.workitem_id_enable = info.workitem_id_enable;
  if (info.kernarg_ptr_sgpr < 0 && !twin->args.empty())
    return absl::InvalidArgumentError(absl::StrCat("the code's kernel '", info.name,
                                                   "' does not enable the kernarg segment pointer "
                                                   "(.amdhsa_user_sgpr_kernarg_segment_ptr) but the KIR kernel has ",
                                                   twin->args.size(), " argument(s)"));
  abi.kernarg_ptr_sgpr = std::max(info.kernarg_ptr_sgpr, 0);
  abi.private_bytes = info.private_segment_size;
  abi.private_segment_buffer_sgpr = info.private_segment_buffer_sgpr;
  abi.scratch_wave_offset_sgpr = info.scratch_wave_offset_sgpr;
  // Arguments --scalar fixes by position ('#N=VALUE'): explicit argument N.
  KernelNotes notes;
  notes.name = info.name;
  notes.args = info.args;
  std::map<std::string, size_t> positional;  // "#N" -> index in info.args
  std::map<size_t, std::string> fixed;       // index in info.args -> "#N"
  std::map<size_t, int> position_of_arg;  // index in info.args -> explicit position
  for (size_t i = 0, n = 0; i < info.args.size(); ++i)
    if (!Hidden(info.args[i])) position_of_arg[i] = static_cast<int>(n++);
  for (const auto& [name, bytes] : input.by_value) {
    if (absl::Status st = CheckPositionalKey(notes, name); !st.ok())
      return in_code(absl::InvalidArgumentError(absl::StrCat("--scalar ", name, ": ", st.message())));
    std::optional<size_t> p = PositionalArgIndex(name);
    if (!p) continue;
    absl::StatusOr<size_t> i = PositionalArg(notes, *p);
    if (!i.ok()) return in_code(absl::InvalidArgumentError(absl::StrCat("--scalar ", name, ": ", i.status().message())));
    positional[name] = *i;
    fixed[*i] = name;
  }
  absl::StatusOr<std::vector<KernelAbi::KernargSlot>> slots = Slots(*twin, info, fixed);
  if (!slots.ok()) return in_code(slots.status());
  abi.kernargs = *slots;
  abi.kernarg_size = std::max<int64_t>(info.kernarg_segment_size, info.kernarg_size);
  // Hidden arguments the dispatch fixes, as the emulator's packer writes them
  // (HiddenArgValue): whole dwords of known bytes become constants.
  {
    std::map<int64_t, uint8_t> known;
    for (const ArgNote& a : info.args) {
      if (!Hidden(a) || a.offset < 0 || a.size <= 0 || a.size > 8) continue;
      std::optional<uint64_t> v = HiddenArgValue(a.value_kind, twin->grid, twin->workgroup);
      if (!v) continue;
      for (int64_t b = 0; b < a.size; ++b) known[a.offset + b] = static_cast<uint8_t>(*v >> (8 * b));
    }
    // By-value arguments the twin lacks, fixed by the user (--scalar).
    std::vector<std::pair<std::string, const ArgNote*>> given;
    std::set<size_t> given_index;
    for (const auto& [name, bytes] : input.by_value) {
      const ArgNote* note = nullptr;
      if (auto it = positional.find(name); it != positional.end()) {
        note = &info.args[it->second];
      } else {
        std::vector<std::string> lacked;
        bool unnamed = false;
        int position = 0;
        for (const ArgNote& a : info.args) {
          if (Hidden(a)) continue;
          const int here = position++;
          if (a.value_kind != "by_value" || (!a.name.empty() && twin->FindArg(a.name) != nullptr)) continue;
          lacked.push_back(a.name.empty() ? DescribeArgNote(a, here) : absl::StrCat("'", a.name, "'"));
          unnamed |= a.name.empty();
          if (!a.name.empty() && a.name == name) note = &a;
        }
        if (note == nullptr)
          return absl::InvalidArgumentError(absl::StrCat(
              "--scalar ", name, ": the code's kernel '", info.name, "' has no by-value argument '", name,
              "' that the KIR kernel lacks (those it has: ", lacked.empty() ? "none" : absl::StrJoin(lacked, ", "),
              unnamed ? "; give an unnamed one by position, --scalar '#N=VALUE')" : ")"));
      }
      if (!given_index.insert(static_cast<size_t>(note - info.args.data())).second)
        return absl::InvalidArgumentError(absl::StrCat("--scalar ", name, ": the code's argument ",
                                                       DescribeArgNote(*note), " is given a value twice (by name and "
                                                       "by position)"));
      if (static_cast<int64_t>(bytes.size()) != note->size || note->offset < 0)
        return absl::InvalidArgumentError(absl::StrCat("--scalar ", name, ": the value has ", bytes.size(),
                                                       " bytes but the argument is ", note->size, " bytes at offset ",
                                                       note->offset));
      for (size_t b = 0; b < bytes.size(); ++b) known[note->offset + static_cast<int64_t>(b)] = bytes[b];
      given.push_back({name, note});
    }
    // Padding, the bytes of the segment no argument covers, is 0 as kirc run
    // packs it (PackKernargs zeroes the segment); code that read it would be
    // proved for padding 0 only (fresh-user review 7 F13: a ushort, a char
    // and a padding byte share a dword). Only given arguments' dwords matter.
    auto covering = [&](int64_t byte) -> const ArgNote* {
      for (const ArgNote& a : info.args)
        if (byte >= a.offset && byte < a.offset + a.size) return &a;
      return nullptr;
    };
    for (const auto& [name, note] : given)
      for (int64_t d = note->offset / 4 * 4; d < note->offset + note->size; d += 4)
        for (int64_t b = d; b < d + 4; ++b)
          if (b < abi.kernarg_size && covering(b) == nullptr) known.emplace(b, 0);
    for (const auto& [name, note] : given)
      for (int64_t d = note->offset / 4 * 4; d < note->offset + note->size; d += 4) {
        // What holds the bytes of this dword that no value fixes.
        std::vector<std::string> open;
        std::set<const ArgNote*> seen;
        for (int64_t b = d; b < d + 4; ++b) {
          if (known.count(b)) continue;
          const ArgNote* a = covering(b);
          if (a == nullptr) {
            open.push_back(absl::StrCat("byte ", b, ", past the ", abi.kernarg_size, "-byte kernarg segment"));
            continue;
          }
          if (!seen.insert(a).second) continue;
          const size_t i = static_cast<size_t>(a - info.args.data());
          if (Hidden(*a)) {
            open.push_back(absl::StrCat("the hidden argument ", DescribeArgNote(*a), ", whose value the verifier does "
                                        "not know"));
            continue;
          }
          const int position = position_of_arg[i];
          const KernelAbi::KernargSlot* slot = nullptr;
          for (const KernelAbi::KernargSlot& k : abi.kernargs)
            if (k.offset == a->offset) slot = &k;
          if (slot != nullptr)
            open.push_back(absl::StrCat("argument ", DescribeArgNote(*a, position, true), ", the KIR kernel's '",
                                        slot->name, "', which stays free (proved for every value)"));
          else
            open.push_back(NoScalarGives(*a, position));
        }
        if (!open.empty()) return SharedDwordError(name, *note, d, open);
      }
    for (const auto& [byte, value] : known) {
      if (byte % 4 != 0) continue;
      uint32_t w = 0;
      bool whole = true;
      for (int b = 0; b < 4 && whole; ++b) {
        auto it = known.find(byte + b);
        whole = it != known.end();
        if (whole) w |= uint32_t{it->second} << (8 * b);
      }
      if (whole) abi.kernarg_known[byte] = w;
    }
  }
  abi.lds_bytes = info.group_segment_size;
  for (const auto& [name, off] : input.lds_base) {
    if (twin->FindLds(name) == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("an LDS base is given for '", name, "', which the KIR kernel '",
                                                     twin->name, "' does not declare"));
    abi.lds_offsets.push_back({name, off});
  }

  // Instructions, with a label before each branch target.
  std::map<int, int64_t> label_of;  // instruction index -> label id
  for (const emu::Inst& in : prog.insts)
    if (in.target >= 0 && !label_of.count(in.target)) {
      const int64_t id = static_cast<int64_t>(label_of.size());
      label_of[in.target] = id;
    }
  MFunction& f = lk.mir;
  for (size_t i = 0; i < prog.insts.size(); ++i) {
    if (auto it = label_of.find(static_cast<int>(i)); it != label_of.end()) {
      MInst label;
      label.opc = Opc::kLabel;
      label.ops = {MOperand::Imm(it->second)};
      f.insts.push_back(std::move(label));
    }
    MInst mi = prog.insts[i].mi;
    mi.id = static_cast<int>(i);
    // Modifiers MInst does not carry: SDWA fields and integer clamp go to
    // the verifier (LoweredKernel::modifiers, the shared semantics of
    // compiler/isa/semantics.h); an integer clamp semantics.h does not define
    // and the VOP3/VOP3P modifiers make the result unknown.
    const emu::Mods& m = prog.insts[i].mods;
    std::vector<std::string> mods;
    VopModifiers vm;
    if (m.sdwa) {
      vm.sdwa = true;
      for (int k = 0; k < 2; ++k) {
        vm.src_sel[k] = m.src_sel[k];
        vm.src_sext[k] = m.src_sext[k];
      }
      vm.dst_sel = m.dst_sel;
      vm.dst_unused = m.dst_unused;
    }
    if (m.clamp) {
      vm.clamp = true;
      // Only the saturating adds/subs are defined; a float op's clamp is
      // unmodelled data anyway (the verifier gives float results no value).
      if (EvalIntOp(U32Domain{}, mi.opc, std::vector<uint32_t>(4, 0)) &&
          !EvalIntOpClamped(U32Domain{}, mi.opc, std::vector<uint32_t>(4, 0)))
        mods.push_back("clamp");
    }
    if (m.omod != 0) mods.push_back("an output modifier");
    // VOP3 neg/abs change the bits an integer-valued result is computed from
    // (v_cmp_class_*: the class of -x or |x|); the shared semantics take the
    // sources as read, so such a result is unmodelled (float results have no
    // value in the verifier anyway).
    if ((m.neg != 0 || m.abs != 0) &&
        (EvalIntOp(U32Domain{}, mi.opc, std::vector<uint32_t>(4, 0)) ||
         EvalWideOp(U32Domain{}, mi.opc, std::vector<Pair64<uint32_t>>(4, Pair64<uint32_t>{0, 0}))))
      mods.push_back("neg/abs");
    // v_pk_mov_b32 v[d:d+1], v[s:s+1], v[s:s+1] op_sel:[0,1] (clang's 64-bit
    // VGPR copy on gfx90a: lo = src0 dword 0, hi = src1 dword 1, the
    // emulator's ExecPkMov) is exactly a 64-bit move of the pair.
    const MOperand* s0 = FindOperand(mi, OpName::kSrc0);
    const MOperand* s1 = FindOperand(mi, OpName::kSrc1);
    if (mi.opc == Opc::kVPkMovB32 && m.op_sel == 2 && m.neg_lo == 0 && m.neg_hi == 0 && s0 != nullptr &&
        s1 != nullptr && s0->kind == s1->kind && s0->IsReg() && s0->cls == s1->cls && s0->reg == s1->reg &&
        s0->count == 2 && s1->count == 2) {
      mi.opc = Opc::kVMovB64;
      mi.ops = {mi.ops[0], *s0};
    } else if (m.op_sel != 0 || m.op_sel_hi != emu::DefaultOpSelHi(mi.opc) || m.neg_lo != 0 || m.neg_hi != 0) {
      mods.push_back("op_sel/neg_lo/neg_hi");
    }
    if (!mods.empty())
      lk.unmodelled[mi.id] = absl::StrCat("with ", absl::StrJoin(mods, " and "), " (not modelled by the verifier)");
    if (vm.sdwa || vm.clamp) lk.modifiers[mi.id] = vm;
    if (prog.insts[i].target >= 0)
      if (MOperand* target = FindOperand(mi, OpName::kTarget))
        *target = MOperand::Imm(label_of[prog.insts[i].target]);
    f.insts.push_back(std::move(mi));
  }
  f.next_inst_id = static_cast<int>(prog.insts.size());

  // The twin's ops in pre-order (AccessRecord::kir_op numbers them so).
  std::function<void(const std::vector<Op>&)> walk = [&](const std::vector<Op>& body) {
    for (const Op& op : body) {
      lk.kir_op_text.push_back(OpText(op));
      lk.kir_op_loc.push_back(op.loc);
      if (op.kind == OpKind::kFor) walk(op.body);
    }
  };
  walk(lk.kernel.body);
  return lk;
}

}  // namespace kir
