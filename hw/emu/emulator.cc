// Loading (code object or assembly text), validation against the descriptor,
// kernarg layout and the run.
#include "hw/emu/emulator.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "compiler/isa/encoding.h"
#include "compiler/isa/operands.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/code_object_target.h"
#include "compiler/object/toolchain.h"
#include "hw/emu/asm_reader.h"
#include "hw/emu/code_object.h"
#include "hw/emu/scheduler.h"
#include "hw/emu/strict.h"
#include "hw/kernarg.h"

namespace kir::emu {

class LoadedKernel {
 public:
  Program prog;
  KernelInfo info;
};

namespace {

// The SGPRs s0..s(n-1) the program needs inside the descriptor's SGPR
// allocation (VCC and EXEC, s106/s107 and s126/s127, are not in it), the
// SGPRs set at launch included, against what rsrc1 grants less the special
// SGPRs the hardware keeps at its top (ExtraSgprs, compiler/target/target.h,
// which cites AMDGPUUsage and LLVM).
absl::Status ValidateSgprs(const Program& p, const KernelInfo& k) {
  const TargetInfo& t = *k.target;
  bool vcc = false;
  int top = -1, top_inst = -1;  // highest SGPR + 1 the code names, and where
  std::string top_name;
  for (size_t i = 0; i < p.insts.size(); ++i)
    for (const MOperand& o : p.insts[i].mi.ops) {
      if (o.kind == MOperand::Kind::kSpecial && o.special == SpecialReg::kVcc) vcc = true;
      if (!o.IsReg() || o.cls != RegClass::kSgpr) continue;
      if (o.reg >= t.max_sgprs) {
        vcc |= o.reg == kVccLoEncoding || o.reg == kVccLoEncoding + 1;  // vcc_lo / vcc_hi
        continue;
      }
      if (o.reg + o.count > top) {
        top = o.reg + o.count;
        top_inst = static_cast<int>(i);
        top_name = RegName(o.cls, o.reg, o.count);
      }
    }
  int launch = k.user_sgpr_count;  // user SGPRs, then the system SGPRs (6.1)
  for (int s : {k.workgroup_id_sgpr[0], k.workgroup_id_sgpr[1], k.workgroup_id_sgpr[2], k.workgroup_info_sgpr,
                k.scratch_wave_offset_sgpr})
    launch = std::max(launch, s + 1);
  const bool flat = (k.properties & kEnableFlatScratchInit) || (k.rsrc2 & 1u);
  const int extra = ExtraSgprs(t, vcc, k.xnack != FeatureSetting::kOff, flat);
  const int usable = k.sgpr_granted - extra;
  const int need = std::max(top, launch);
  if (need <= usable) return absl::OkStatus();
  std::vector<std::string> special;
  if (extra >= 2) special.push_back(vcc ? "VCC (the code uses it)" : "VCC");
  if (extra >= 4) special.push_back(t.has_xnack && k.xnack != FeatureSetting::kOff ? "XNACK_MASK (xnack is not off)" : "XNACK_MASK");
  if (extra >= 6)
    special.push_back(t.architected_flat_scratch ? absl::StrCat("FLAT_SCRATCH (", t.name, " has architected flat scratch)")
                                                 : "FLAT_SCRATCH");
  const std::string what =
      top >= launch ? absl::StrCat("kernel '", k.name, "': ", p.Describe(top_inst), ": ", top_name, " is")
                    : absl::StrCat("kernel '", k.name, "': the ", launch, " SGPRs the dispatch sets up (user and system SGPRs) are");
  return absl::InvalidArgumentError(absl::StrCat(
      what, " beyond the SGPRs the kernel descriptor allocates: compute_pgm_rsrc1 GRANULATED_WAVEFRONT_SGPR_COUNT ",
      (k.rsrc1 >> 6) & 15, " grants ", k.sgpr_granted, " SGPRs", extra > 0 ? absl::StrCat(", of which the top ", extra,
      " hold ", absl::StrJoin(special, ", "), ", leaving s0..s", usable - 1) : "",
      "; the code needs s0..s", need - 1, ": raise .amdhsa_next_free_sgpr to at least ", need));
}

// Registers within the descriptor's allocation; MFMA register rules.
absl::Status ValidateProgram(const Program& p, const KernelInfo& k) {
  const TargetInfo& t = *k.target;
  if (absl::Status st = ValidateSgprs(p, k); !st.ok()) return st;
  bool uses_agprs = false;
  for (const Inst& in : p.insts)
    for (const MOperand& o : in.mi.ops) uses_agprs |= o.IsReg() && o.cls == RegClass::kAgpr;
  // The 16-bit float instructions keep denormals (FP_DENORM mode 3, the
  // default of LLVM and kirc); a descriptor that flushes them is refused
  // rather than run as if it did not (fresh-user review 10 F10). The f16
  // instructions are those marked kF16Values (opcodes.def), an opcode
  // property: bf16 instructions such as v_cvt_pk_bf16_f32 are not f16 ones
  // and run (a mnemonic test for "f16" refused them).
  if (k.fp16_denorm_mode != 3)
    for (size_t i = 0; i < p.insts.size(); ++i)
      if (Info(p.insts[i].mi.opc).flags & kF16Values)
        return absl::InvalidArgumentError(absl::StrCat(
            p.Describe(static_cast<int>(i)), ": the kernel descriptor's FP16/FP64 denormal mode is ",
            k.fp16_denorm_mode, " (.amdhsa_float_denorm_mode_16_64; COMPUTE_PGM_RSRC1 bits 19:18), and the emulator "
            "models f16 arithmetic with denormals kept (mode 3) only: build with f16 denormals on"));
  for (size_t i = 0; i < p.insts.size(); ++i) {
    const Inst& in = p.insts[i];
    auto bad = [&](const std::string& what) {
      return absl::InvalidArgumentError(absl::StrCat(p.Describe(static_cast<int>(i)), ": ", what));
    };
    for (const MOperand& o : in.mi.ops) {
      if (!o.IsReg()) continue;
      const std::string name = RegName(o.cls, o.reg, o.count);
      const int end = o.reg + o.count;
      if (o.cls == RegClass::kVgpr) {
        if (end > k.vgpr_limit)
          return bad(absl::StrCat(name, " is beyond the ", k.vgpr_limit,
                                  " VGPRs the kernel descriptor allocates (.amdhsa_next_free_vgpr)"));
        if (t.unified_vgpr_file && uses_agprs && end > k.accum_offset)
          return bad(absl::StrCat(name, " overlaps the AGPRs, which start at accum_offset ", k.accum_offset,
                                  " in the unified register file"));
      } else if (o.cls == RegClass::kAgpr) {
        if (end > k.agpr_limit)
          return bad(absl::StrCat(name, " is beyond the ", k.agpr_limit, " AGPRs the kernel descriptor allocates"));
      }
      if (o.cls != RegClass::kSgpr && o.count >= 2 && t.even_aligned_tuples && o.reg % 2 != 0)
        return bad(absl::StrCat(name, ": register tuples must be 64-bit aligned on ", t.name));
    }
    if (in.mi.opc == Opc::kVMfma) {
      // An absent operand reads as Imm(0), which is no register.
      const MOperand &d = OperandOr0(in.mi, OpName::kVdst), &c = OperandOr0(in.mi, OpName::kSrc2);
      if (t.mfma_acc_in_agprs && (!d.IsReg() || d.cls != RegClass::kAgpr || !c.IsReg() || c.cls != RegClass::kAgpr))
        return bad(absl::StrCat("on ", t.name, " MFMA vdst and srcC must be AGPRs"));
      if (c.IsReg() && d.IsReg() && c.cls != d.cls)
        return bad("MFMA srcC and vdst must be the same register kind");
      // A partial srcC/vdst overlap is an error only for results wider than 4
      // registers: llvm-mc 22 (-mcpu=gfx942 and gfx950) rejects
      // `v_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[24:25], v[2:17]` ("source
      // 2 operand must not partially overlap with dst") but assembles
      // `v_mfma_f32_16x16x16_f16 v[0:3], v[20:21], v[24:25], v[2:5]`, which
      // clang-22 -O3 emits (fresh-user review 10 F9). The emulator reads all
      // of srcC before it writes vdst (exec_mfma.cc).
      if (c.IsReg() && d.IsReg() && d.count > 4 && c.reg != d.reg && c.reg < d.reg + d.count &&
          d.reg < c.reg + c.count)
        return bad("MFMA srcC and vdst overlap without being identical (an MFMA result wider than 4 registers "
                   "must not partially overlap srcC)");
    }
  }
  return absl::OkStatus();
}

std::string ArgList(const std::vector<ArgNote>& args) {
  std::vector<std::string> v;
  for (const ArgNote& a : args) v.push_back(absl::StrCat(a.name.empty() ? "?" : a.name, " (", a.value_kind, ")"));
  return absl::StrJoin(v, ", ");
}

}  // namespace

absl::StatusOr<std::shared_ptr<const LoadedKernel>> LoadCodeObject(const std::string& llvm_bin,
                                                                   absl::string_view hsaco,
                                                                   absl::string_view kernel_name,
                                                                   const std::string& mcpu) {
  absl::StatusOr<const TargetInfo*> t = LookupTarget(mcpu);
  if (!t.ok()) return t.status();
  absl::StatusOr<std::string> notes_text = ReadElfNotes(llvm_bin, hsaco);
  if (!notes_text.ok()) return notes_text.status();
  // The code object's own target ID (its xnack setting decides whether the
  // XNACK mask takes SGPRs): its metadata's amdhsa.target, else its ELF
  // header's (hipBLASLt and aiter objects have no amdhsa.target); `mcpu` a
  // processor accepts any features, a target ID only its own
  // (compiler/object/code_object_target.h, shared with kirc run).
  absl::StatusOr<TargetId> id = CodeObjectTargetId(hsaco, TargetIdOf(MetadataTarget(*notes_text)),
                                                   *ParseTargetId(mcpu), TargetMatch::kFeaturesRequested);
  if (!id.ok()) return absl::Status(id.status().code(), absl::StrCat("the code object: ", id.status().message()));
  absl::StatusOr<std::vector<KernelNotes>> notes = ParseKernelNotes(*notes_text);
  if (!notes.ok()) return notes.status();
  absl::StatusOr<const KernelNotes*> kn = PickKernel(*notes, kernel_name);
  if (!kn.ok()) return absl::Status(kn.status().code(), absl::StrCat("the code object: ", kn.status().message()));
  const std::string name = (*kn)->name;
  const std::string kd_sym = (*kn)->symbol.empty() ? name + ".kd" : (*kn)->symbol;
  uint64_t kd_addr = 0;
  absl::StatusOr<std::string> kd = ElfSymbolBytes(hsaco, kd_sym, 64, &kd_addr);
  if (!kd.ok()) return kd.status();
  auto lk = std::make_shared<LoadedKernel>();
  absl::StatusOr<KernelInfo> info = DecodeKernel(*id, *kd, **kn, *notes_text);
  if (!info.ok()) return info.status();
  lk->info = *info;
  // Disassemble the kernel's symbol only.
  absl::StatusOr<std::string> dis = DisassembleSymbol(llvm_bin, hsaco, name, (*t)->name);
  if (!dis.ok()) return dis.status();
  absl::StatusOr<AsmText> text = ReadAssembly(*dis, **t);
  if (!text.ok()) return absl::Status(text.status().code(), absl::StrCat("kernel '", name, "': ", text.status().message()));
  auto it = text->functions.find(name);
  if (it == text->functions.end() || it->second.insts.empty())
    return absl::NotFoundError(absl::StrCat("the disassembly has no code for '", name, "'"));
  lk->prog = std::move(it->second);
  const uint64_t entry = kd_addr + lk->info.entry_offset;
  if (lk->prog.insts[0].addr != entry)
    return absl::InvalidArgumentError(absl::StrCat("kernel '", name, "': the descriptor's entry 0x", absl::Hex(entry),
                                                   " is not the symbol's first instruction 0x",
                                                   absl::Hex(lk->prog.insts[0].addr)));
  absl::Status v = ValidateProgram(lk->prog, lk->info);
  if (!v.ok()) return v;
  return std::shared_ptr<const LoadedKernel>(lk);
}

absl::StatusOr<std::shared_ptr<const LoadedKernel>> LoadAssembly(absl::string_view asm_text, const std::string& mcpu) {
  absl::StatusOr<const TargetInfo*> t = LookupTarget(mcpu);
  if (!t.ok()) return t.status();
  absl::StatusOr<AsmText> text = ReadAssembly(asm_text, **t);
  if (!text.ok()) return text.status();
  if (text->descriptors.size() != 1)
    return absl::InvalidArgumentError(absl::StrCat("expected one .amdhsa_kernel block, found ", text->descriptors.size()));
  const std::string name = text->descriptors.begin()->first;
  if (text->metadata_yaml.empty()) return absl::InvalidArgumentError("no .amdgpu_metadata block: the kernarg layout is unknown");
  absl::StatusOr<std::vector<KernelNotes>> notes = ParseKernelNotes(text->metadata_yaml);
  if (!notes.ok()) return notes.status();
  absl::StatusOr<const KernelNotes*> kn = PickKernel(*notes, name);
  if (!kn.ok()) return kn.status();
  absl::StatusOr<TargetId> id = ParseTargetId(mcpu);
  if (!id.ok()) return id.status();
  absl::StatusOr<std::string> kd = DescriptorFromDirectives(*id, text->descriptors.begin()->second);
  if (!kd.ok()) return absl::Status(kd.status().code(), absl::StrCat("kernel '", name, "': ", kd.status().message()));
  auto lk = std::make_shared<LoadedKernel>();
  absl::StatusOr<KernelInfo> info = DecodeKernel(*id, *kd, **kn, text->metadata_yaml);
  if (!info.ok()) return info.status();
  lk->info = *info;
  auto it = text->functions.find(name);
  if (it == text->functions.end() || it->second.insts.empty())
    return absl::NotFoundError(absl::StrCat("no instructions under the label '", name, ":'"));
  lk->prog = std::move(it->second);
  absl::Status v = ValidateProgram(lk->prog, lk->info);
  if (!v.ok()) return v;
  return std::shared_ptr<const LoadedKernel>(lk);
}

const Program& ProgramOf(const LoadedKernel& kernel) { return kernel.prog; }
const KernelInfo& InfoOf(const LoadedKernel& kernel) { return kernel.info; }

absl::StatusOr<EmuStats> RunKernel(const LoadedKernel& lk, LaunchArgs& args, const EmuOptions& opts) {
  const KernelInfo& k = lk.info;
  const std::string who = absl::StrCat("kernel '", k.name, "': ");
  // Workgroup size.
  std::array<int64_t, 3> wg = args.workgroup;
  if (wg[0] == 0 && wg[1] == 0 && wg[2] == 0) {
    wg = k.reqd_workgroup_size;
    if (wg[0] == 0)
      return absl::InvalidArgumentError(who + "no workgroup size given and the metadata has no .reqd_workgroup_size");
  } else if (k.reqd_workgroup_size[0] != 0 && wg != k.reqd_workgroup_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        who, "the launch's workgroup ", wg[0], " x ", wg[1], " x ", wg[2], " differs from the ",
        k.reqd_workgroup_size[0], " x ", k.reqd_workgroup_size[1], " x ", k.reqd_workgroup_size[2],
        " the code object requires (.reqd_workgroup_size); launch it with that workgroup (a KIR kernel's "
        "`workgroup` line must match the one the code object was compiled for)"));
  }
  for (int i = 0; i < 3; ++i)
    if (wg[i] < 1 || args.grid[i] < 1 || args.grid[i] > (int64_t{1} << 32))
      return absl::InvalidArgumentError(who + "workgroup and grid sizes must be positive");
  if (wg[0] * wg[1] * wg[2] > 1024) return absl::InvalidArgumentError(who + "more than 1024 threads per workgroup");
  // A workgroup's waves are all resident on one CU, ceil(waves / 4) per SIMD
  // (compiler/target MaxVgprsPerWave, where the source is cited): the VGPRs
  // the descriptor grants one wave must fit that share of a SIMD's file.
  {
    const TargetInfo& t = *k.target;
    const int64_t threads = wg[0] * wg[1] * wg[2];
    const int granted = t.unified_vgpr_file ? k.unified_vgprs : k.vgpr_limit;
    if (granted > MaxVgprsPerWave(t, threads))
      return absl::InvalidArgumentError(absl::StrCat(
          who, "a workgroup of ", threads, " threads puts ", WavesPerSimdForWorkgroup(threads),
          " waves on each SIMD of a CU, and the kernel descriptor grants each wave ", granted,
          " VGPRs (compute_pgm_rsrc1 GRANULATED_WORKITEM_VGPR_COUNT): more than the ",
          MaxVgprsPerWave(t, threads), " of a SIMD's ", VgprFilePerSimd(t),
          " each may have, so the workgroup cannot be resident and the launch fails"));
  }
  // Arguments: all of .args, or the explicit (non-hidden) ones only.
  std::vector<int> explicit_idx;
  for (size_t i = 0; i < k.args.size(); ++i)
    if (!absl::StartsWith(k.args[i].value_kind, "hidden_")) explicit_idx.push_back(static_cast<int>(i));
  std::vector<std::vector<uint8_t>*> by_arg(k.args.size(), nullptr);
  std::vector<PagedBytes*> paged_arg(k.args.size(), nullptr);
  auto paged_of = [&](size_t i) { return i < args.paged.size() ? args.paged[i] : nullptr; };
  if (args.args.size() == k.args.size()) {
    for (size_t i = 0; i < k.args.size(); ++i) by_arg[i] = &args.args[i], paged_arg[i] = paged_of(i);
  } else if (args.args.size() == explicit_idx.size()) {
    for (size_t i = 0; i < explicit_idx.size(); ++i)
      by_arg[explicit_idx[i]] = &args.args[i], paged_arg[explicit_idx[i]] = paged_of(i);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(who, "got ", args.args.size(), " arguments; the metadata lists ",
                                                   k.args.size(), ": ", ArgList(k.args)));
  }
  GlobalMemory mem;
  std::vector<uint8_t> packet(64, 0), queue(256, 0);
  const uint64_t kKernargAddr = kEmulatedKernargAddress, kPacketAddr = 0x00007e0000000000ull,
                 kQueueAddr = 0x00007d0000000000ull;
  // The explicit arguments' values, in .args order, for the shared packer
  // (hw/kernarg.h), which also writes the hidden arguments the dispatch
  // determines and zeroes the rest.
  std::vector<KernargValue> values;
  int buffer_no = 0;
  uint64_t placed_end = 0;  // the end of the buffers placed by default so far
  for (int i : explicit_idx) {
    const ArgNote& a = k.args[i];
    KernargValue v;
    if (a.value_kind == "global_buffer") {
      // Each buffer at its own address, 64 GiB apart, with the low word
      // close to 2^32 so that 64-bit address carries matter.
      v.is_pointer = true;
      const uint64_t size = paged_arg[i] != nullptr ? paged_arg[i]->size() : by_arg[i]->size();
      // The default placement moves a buffer past a larger default-placed one
      // before it; an address the caller gives is taken as it is.
      if (static_cast<size_t>(buffer_no) < args.buffer_addresses.size()) {
        v.pointer = args.buffer_addresses[buffer_no];
      } else {
        v.pointer = EmulatedBufferAddressAfter(buffer_no, placed_end);
        placed_end = std::max(placed_end, v.pointer + size);
      }
      ++buffer_no;
      if (v.pointer >= kQueueAddr || size > kQueueAddr - v.pointer)
        return absl::InvalidArgumentError(absl::StrCat(who, "argument ", i, " at 0x", absl::Hex(v.pointer),
                                                       ": buffers must lie below 0x", absl::Hex(kQueueAddr)));
      for (const Region& r : mem.regions())
        if (v.pointer < r.base + r.size && r.base < v.pointer + size)
          return absl::InvalidArgumentError(absl::StrCat(who, "argument ", i, " at 0x", absl::Hex(v.pointer),
                                                         " overlaps ", r.name));
      std::string name = absl::StrCat("argument ", i, a.name.empty() ? "" : absl::StrCat(" '", a.name, "'"));
      if (paged_arg[i] != nullptr)
        mem.AddPagedRegion(std::move(name), v.pointer, paged_arg[i]);
      else
        mem.AddRegion(std::move(name), v.pointer, by_arg[i]->data(), by_arg[i]->size(), /*argument=*/true);
    } else {
      v.bytes = *by_arg[i];
    }
    values.push_back(std::move(v));
  }
  KernelNotes notes;
  notes.name = k.name;
  notes.args = k.args;
  notes.kernarg_segment_size = k.kernarg_segment_size;
  absl::StatusOr<std::vector<uint8_t>> packed = PackKernargs(notes, values, args.grid, wg);
  if (!packed.ok()) return packed.status();
  // The segment the descriptor and metadata declare; an argument beyond it is
  // malformed metadata, not something to paper over.
  const size_t segment = static_cast<size_t>(std::max<int64_t>(k.kernarg_segment_size, k.kernarg_size));
  if (packed->size() > segment)
    return absl::InvalidArgumentError(absl::StrCat(who, "an argument lies beyond the ", segment,
                                                   "-byte kernarg segment (it ends at byte ", packed->size(), ")"));
  // Readable up to the segment's next 16-byte boundary: LLVM takes the
  // kernarg segment pointer as 16-byte aligned (AMDGPULowerKernelArguments.cpp
  // KernArgBaseAlign(16)) and may widen loads within that alignment, e.g. a
  // 28-byte segment's last three dwords read with one s_load_dwordx4 at 0x10
  // (clang-22, fresh-user review 7 F9); such a load cannot leave the 16-byte
  // granule on a device either. The padding reads as 0.
  std::vector<uint8_t> kernarg = *std::move(packed);
  kernarg.resize((segment + 15) / 16 * 16, 0);
  mem.AddRegion("the kernarg segment", kKernargAddr, kernarg.data(), kernarg.size());
  // hsa_kernel_dispatch_packet_t, for kernels that enable the dispatch pointer.
  auto pk = [&](size_t off, auto v) { std::memcpy(packet.data() + off, &v, sizeof(v)); };
  pk(2, static_cast<uint16_t>(3));
  for (int d = 0; d < 3; ++d) {
    pk(4 + 2 * d, static_cast<uint16_t>(wg[d]));
    pk(12 + 4 * d, static_cast<uint32_t>(wg[d] * args.grid[d]));
  }
  pk(28, static_cast<uint32_t>(k.group_segment_size));
  pk(40, kKernargAddr);
  mem.AddRegion("the dispatch packet", kPacketAddr, packet.data(), packet.size());
  mem.AddRegion("the queue", kQueueAddr, queue.data(), queue.size());
  Dispatch d;
  d.grid = args.grid;
  d.workgroups = args.workgroups.Over(args.grid);
  for (int i = 0; i < 3; ++i)
    if (d.workgroups.begin[i] < 0 || d.workgroups.begin[i] >= d.workgroups.end[i] ||
        d.workgroups.end[i] > args.grid[i])
      return absl::InvalidArgumentError(absl::StrCat(who, "workgroups [", d.workgroups.begin[i], ", ",
                                                     d.workgroups.end[i], ") in ", std::string(1, "xyz"[i]),
                                                     " are not a non-empty range inside the grid [0, ",
                                                     args.grid[i], ")"));
  d.workgroup = wg;
  d.kernarg_addr = kKernargAddr;
  d.dispatch_packet_addr = kPacketAddr;
  d.queue_addr = kQueueAddr;
  d.kernarg = &kernarg;
  // The compiler's notes on the instructions, when they are this program's.
  const Program* prog = &lk.prog;
  Program annotated;
  const std::vector<EmuOptions::InstructionNote>& inotes = opts.instruction_notes;
  bool match = !inotes.empty() && inotes.size() == lk.prog.insts.size();
  for (size_t i = 0; match && i < inotes.size(); ++i)
    match = absl::StartsWith(lk.prog.insts[i].text, inotes[i].mnemonic);
  if (match) {
    annotated = lk.prog;
    for (size_t i = 0; i < inotes.size(); ++i) annotated.insts[i].note = inotes[i].note;
    prog = &annotated;
  }
  EmuStats stats;
  absl::Status st = RunDispatch(*prog, k, mem, d, opts, stats);
  if (!st.ok()) return absl::Status(st.code(), absl::StrCat(who, st.message()));
  return stats;
}

absl::StatusOr<EmuStats> RunCodeObject(const std::string& llvm_bin, absl::string_view hsaco,
                                       absl::string_view kernel_name, const std::string& mcpu, LaunchArgs& args,
                                       const EmuOptions& opts) {
  absl::StatusOr<std::shared_ptr<const LoadedKernel>> k = LoadCodeObject(llvm_bin, hsaco, kernel_name, mcpu);
  if (!k.ok()) return k.status();
  return RunKernel(**k, args, opts);
}

absl::StatusOr<EmuStats> RunAssembly(absl::string_view asm_text, const std::string& mcpu, LaunchArgs& args,
                                     const EmuOptions& opts) {
  absl::StatusOr<std::shared_ptr<const LoadedKernel>> k = LoadAssembly(asm_text, mcpu);
  if (!k.ok()) return k.status();
  return RunKernel(**k, args, opts);
}

int64_t HostBookkeepingBytesPerBufferByte(const EmuOptions& opts) {
  return opts.strict ? GlobalRaceTracker::BytesPerBufferByte() : 0;
}

}  // namespace kir::emu
