#include "compiler/emit/asm_printer.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/passes/waitcnt.h"

namespace kir {
namespace {

std::string FloatInline(uint32_t bits) {
  switch (bits) {
    case 0x3f000000u: return "0.5";
    case 0xbf000000u: return "-0.5";
    case 0x3f800000u: return "1.0";
    case 0xbf800000u: return "-1.0";
    case 0x40000000u: return "2.0";
    case 0xc0000000u: return "-2.0";
    case 0x40800000u: return "4.0";
    case 0xc0800000u: return "-4.0";
    default: return absl::StrFormat("0x%x", bits);
  }
}

std::string OperandText(const MOperand& o) {
  switch (o.kind) {
    case MOperand::Kind::kReg:
      if (o.is_virtual) {
        const char* c = o.cls == RegClass::kVgpr ? "v" : o.cls == RegClass::kSgpr ? "s" : "a";
        std::string r = absl::StrCat("%", c, o.reg);
        if (o.sub != 0 || o.count != 1)
          absl::StrAppend(&r, "[", o.sub, o.count > 1 ? absl::StrCat(":", o.sub + o.count - 1) : "", "]");
        return r;
      }
      return RegName(o.cls, o.reg, o.count);
    case MOperand::Kind::kSpecial:
      switch (o.special) {
        case SpecialReg::kVcc: return "vcc";
        case SpecialReg::kExec: return "exec";
        case SpecialReg::kM0: return "m0";
        case SpecialReg::kScc: return "scc";
        default: return "?";
      }
    case MOperand::Kind::kImm: {
      if (o.float_form) return FloatInline(static_cast<uint32_t>(o.imm));
      int32_t s = static_cast<int32_t>(static_cast<uint32_t>(o.imm));
      if (s >= -16 && s <= 64) return absl::StrCat(s);
      return absl::StrFormat("0x%x", static_cast<uint32_t>(o.imm));
    }
  }
  return "?";
}

int RoundUp(int v, int g) { return (v + g - 1) / g * g; }

}  // namespace

std::string InstructionText(const TargetInfo& t, const MInst& mi, const std::string& label_prefix) {
  const OpcInfo& info = Info(mi.opc);
  if (mi.opc == Opc::kSWaitcnt) return WaitcntText(mi);
  if (mi.opc == Opc::kLabel) return absl::StrCat(label_prefix, mi.ops.empty() ? -1 : mi.ops[0].imm, ":");
  if (info.flags & kBranch)
    return absl::StrCat(info.mnemonic, " ", label_prefix, mi.ops.empty() ? -1 : mi.ops[0].imm);
  std::string mn = info.mnemonic;
  if (mi.opc == Opc::kVMfma) {
    absl::StatusOr<std::string> m = MfmaMnemonic(t, *mi.mfma);
    mn = m.ok() ? *m : "v_mfma_unsupported";
  }
  if (mi.opc == Opc::kVCmpGtU32 || mi.opc == Opc::kVCmpUF32 || mi.opc == Opc::kVCmpLgF32 ||
      mi.opc == Opc::kVCndmaskB32)
    mn += "_e64";
  std::vector<std::string> ops;
  InstClass cls = info.cls;
  bool mubuf = cls == InstClass::kVmemLoad || cls == InstClass::kVmemStore;
  for (size_t i = 0; i < mi.ops.size(); ++i) {
    if (mubuf && i == 1 && !mi.offen) {
      ops.push_back("off");
      continue;
    }
    if (cls == InstClass::kSmem && i == 2 && mi.ops[i].kind == MOperand::Kind::kImm) {
      ops.push_back(absl::StrFormat("0x%x", static_cast<uint32_t>(mi.ops[i].imm)));
      continue;
    }
    ops.push_back(OperandText(mi.ops[i]));
  }
  std::string s = mn;
  if (!ops.empty()) s += " " + absl::StrJoin(ops, ", ");
  if (mubuf) {
    if (mi.offen) s += " offen";
    if (mi.offset != 0) absl::StrAppend(&s, " offset:", mi.offset);
  }
  if (cls == InstClass::kDsRead || cls == InstClass::kDsWrite) {
    if (MemoryShape(mi.opc).addrs == 2) {  // llvm-objdump's form: zero fields left out
      if (mi.offset0 != 0) absl::StrAppend(&s, " offset0:", mi.offset0);
      if (mi.offset1 != 0) absl::StrAppend(&s, " offset1:", mi.offset1);
    } else if (mi.offset != 0) {
      absl::StrAppend(&s, " offset:", mi.offset);
    }
  }
  return s;
}

std::string PrintMir(const TargetInfo& t, const MFunction& f) {
  std::string s;
  for (const MInst& mi : f.insts) {
    std::string line = absl::StrCat("  ", InstructionText(t, mi));
    if (mi.id >= 0 || mi.kir_op >= 0) {
      line.resize(std::max<size_t>(line.size(), 56), ' ');
      absl::StrAppend(&line, " // id ", mi.id, mi.kir_op >= 0 ? absl::StrCat(" op ", mi.kir_op) : "");
    }
    absl::StrAppend(&s, line, "\n");
  }
  return s;
}

KernelResources ComputeResources(const TargetInfo& t, const Kernel& k, const KernelAbi& abi,
                                 const RegUsage& usage) {
  KernelResources r;
  int workitem_vgprs = t.packed_workitem_ids ? 1 : abi.workitem_id_enable + 1;
  r.arch_vgprs = std::max(usage.vgprs, workitem_vgprs);
  r.agprs = usage.agprs;
  int system_sgprs = abi.user_sgprs;
  for (bool e : abi.wg_id_enabled) system_sgprs += e;
  r.sgprs = std::max(usage.sgprs, system_sgprs);
  // The descriptor says .amdhsa_reserve_vcc 0 and leaves flat scratch at
  // llvm-mc's default (reserved on gfx908/90a, architected on gfx942): the
  // special SGPRs llvm-mc adds are then 6 on every target.
  r.sgpr_count = r.sgprs + ExtraSgprs(t, /*vcc=*/false, /*xnack_mask=*/true, /*flat_scratch=*/true);
  if (t.unified_vgpr_file) {
    r.accum_offset = std::max(4, RoundUp(r.arch_vgprs, 4));
    r.next_free_vgpr = r.agprs > 0 ? r.accum_offset + r.agprs : r.arch_vgprs;
    r.vgpr_count = r.next_free_vgpr;
  } else {
    // gfx908's VGPR and AGPR files are separate: both counts are max(), as llc reports.
    r.next_free_vgpr = std::max(r.arch_vgprs, r.agprs);
    r.vgpr_count = r.next_free_vgpr;
  }
  r.lds_bytes = abi.lds_bytes;
  r.occupancy = Occupancy(t, r.next_free_vgpr, r.lds_bytes, k.WorkgroupThreads());
  return r;
}

int Occupancy(const TargetInfo& t, int vgprs, int64_t lds_bytes, int64_t workgroup_threads) {
  // VGPRs: 512 per lane per SIMD on 90a/942 (unified, granule 8), 256 arch +
  // 256 acc on 908 (granule 4).
  int alloc = t.unified_vgpr_file ? RoundUp(std::max(1, vgprs), 8) : RoundUp(std::max(1, vgprs), 4);
  int file = t.unified_vgpr_file ? 512 : 256;
  int occ = std::min(t.max_waves_per_simd, file / alloc);
  if (lds_bytes > 0) {
    // LDS: 64 KiB per CU, shared by the workgroups resident on its 4 SIMDs;
    // the busiest SIMD gets ceil(waves / 4) (as LLVM counts it).
    int64_t waves_per_wg = (workgroup_threads + 63) / 64;
    int64_t wgs = t.lds_bytes / lds_bytes;
    occ = static_cast<int>(std::min<int64_t>(occ, std::max<int64_t>(1, (wgs * waves_per_wg + 3) / 4)));
  }
  return std::max(1, occ);
}

std::string PrintModuleAssembly(const std::string& target_id, const std::vector<KernelAsm>& kernels) {
  std::string s;
  std::vector<std::string> names;
  for (const KernelAsm& ka : kernels) names.push_back(absl::StrCat("'", ka.name, "'"));
  absl::StrAppend(&s, "// Generated by kirc from kernel", kernels.size() == 1 ? " " : "s ",
                  absl::StrJoin(names, ", "), " for ", target_id, ".\n");
  absl::StrAppend(&s, "  .amdgcn_target \"amdgcn-amd-amdhsa--", target_id, "\"\n");
  absl::StrAppend(&s, "  .amdhsa_code_object_version 5\n");
  for (const KernelAsm& ka : kernels) s += ka.code;
  // Code object v5 metadata (AMDGPUUsage "Code Object V5 Metadata"): one
  // document for the whole code object, one amdhsa.kernels entry per kernel.
  absl::StrAppend(&s, "  .amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\n");
  absl::StrAppend(&s, "amdhsa.target: amdgcn-amd-amdhsa--", target_id, "\namdhsa.kernels:\n");
  for (const KernelAsm& ka : kernels) s += ka.metadata;
  absl::StrAppend(&s, "...\n  .end_amdgpu_metadata\n");
  return s;
}

KernelAsm PrintKernelAsm(const TargetInfo& t, const Kernel& k, const LoweredKernel& lk,
                         const KernelResources& res, const AsmOptions& opts) {
  KernelAsm out;
  out.name = k.name;
  std::string& s = out.code;
  const std::string& n = k.name;
  absl::StrAppend(&s, "  .text\n  .globl ", n, "\n  .p2align 8\n  .type ", n, ",@function\n", n,
                  ":\n");
  // Local labels are ".L<kernel>.bb<N>" and ".L<kernel>.end": kernel names are
  // identifiers ([A-Za-z_][A-Za-z0-9_]*, no '.'), so the text before the first
  // '.' after ".L" names the kernel and the labels of two kernels of one
  // module never clash (".L<a>_<N>" did: kernel "func_end_r" with loop label 0
  // and kernel "r_0" both gave ".Lfunc_end_r_0").
  const std::string label_prefix = absl::StrCat(".L", n, ".bb");
  std::map<int, std::vector<const AccessRecord*>> by_id;  // two records for a DS read2/write2
  for (const AccessRecord& r : lk.access_map) by_id[r.inst_id].push_back(&r);
  int last_op = -2;
  for (const MInst& mi : lk.mir.insts) {
    if (opts.annotate && mi.kir_op != last_op && mi.kir_op >= 0) {
      absl::StrAppend(&s, "  // op ", mi.kir_op, ": ", lk.kir_op_text[mi.kir_op], "\n");
    }
    if (mi.kir_op >= 0) last_op = mi.kir_op;
    if (mi.opc == Opc::kLabel) {
      absl::StrAppend(&s, InstructionText(t, mi, label_prefix), "\n");
      continue;
    }
    std::string line = "  " + InstructionText(t, mi, label_prefix);
    if (opts.annotate) {
      std::string c;
      if (mi.id >= 0) c = absl::StrCat("[", mi.id, "]");
      auto it = by_id.find(mi.id);
      if (it != by_id.end() && mi.id >= 0)
        for (const AccessRecord* r : it->second)
          absl::StrAppend(&c, r->component >= 0 ? absl::StrCat(" component ", r->component, ":") : "", " access op ",
                          r->kir_op, " ", r->is_store ? "store " : "load ", r->mem, " elements ",
                          absl::StrJoin(r->elements, ","));
      if (!mi.comment.empty()) absl::StrAppend(&c, c.empty() ? "" : " ", mi.comment);
      if (!c.empty()) {
        line.resize(std::max<size_t>(line.size(), 56), ' ');
        absl::StrAppend(&line, " // ", c);
      }
    }
    absl::StrAppend(&s, line, "\n");
  }
  absl::StrAppend(&s, ".L", n, ".end:\n  .size ", n, ", .L", n, ".end-", n, "\n\n");
  // Kernel descriptor (AMDGPUUsage "Kernel Descriptor"; amdgcn-isa-notes.md 6.2, 6.3).
  const KernelAbi& abi = lk.abi;
  absl::StrAppend(&s, "  .rodata\n  .p2align 6\n  .amdhsa_kernel ", n, "\n");
  absl::StrAppend(&s, "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n");
  absl::StrAppend(&s, "    .amdhsa_kernarg_size ", abi.kernarg_size, "\n");
  absl::StrAppend(&s, "    .amdhsa_group_segment_fixed_size ", res.lds_bytes, "\n");
  for (int d = 0; d < 3; ++d)
    absl::StrAppend(&s, "    .amdhsa_system_sgpr_workgroup_id_", std::string(1, "xyz"[d]), " ",
                    abi.wg_id_enabled[d] ? 1 : 0, "\n");
  absl::StrAppend(&s, "    .amdhsa_system_vgpr_workitem_id ", abi.workitem_id_enable, "\n");
  absl::StrAppend(&s, "    .amdhsa_next_free_vgpr ", res.next_free_vgpr, "\n");
  absl::StrAppend(&s, "    .amdhsa_next_free_sgpr ", res.sgprs, "\n");
  if (t.has_accum_offset) absl::StrAppend(&s, "    .amdhsa_accum_offset ", res.accum_offset, "\n");
  absl::StrAppend(&s, "    .amdhsa_reserve_vcc 0\n");
  // FP32 denormals kept, as HIP does (the assembler's default flushes them).
  absl::StrAppend(&s, "    .amdhsa_float_denorm_mode_32 3\n    .amdhsa_float_denorm_mode_16_64 3\n");
  absl::StrAppend(&s, "  .end_amdhsa_kernel\n\n");
  // This kernel's amdhsa.kernels entry (AMDGPUUsage "Code Object V5 Metadata").
  std::string& m = out.metadata;
  absl::StrAppend(&m, "  - .name: ", n, "\n    .symbol: ", n, ".kd\n");
  absl::StrAppend(&m, "    .kernarg_segment_size: ", abi.kernarg_size, "\n");
  absl::StrAppend(&m, "    .kernarg_segment_align: 8\n");
  absl::StrAppend(&m, "    .group_segment_fixed_size: ", res.lds_bytes, "\n");
  absl::StrAppend(&m, "    .private_segment_fixed_size: 0\n    .wavefront_size: 64\n");
  absl::StrAppend(&m, "    .sgpr_count: ", res.sgpr_count, "\n");
  absl::StrAppend(&m, "    .vgpr_count: ", res.vgpr_count, "\n");
  absl::StrAppend(&m, "    .agpr_count: ", res.agprs, "\n");
  absl::StrAppend(&m, "    .max_flat_workgroup_size: ", k.WorkgroupThreads(), "\n");
  absl::StrAppend(&m, "    .reqd_workgroup_size: [ ", k.workgroup[0], ", ", k.workgroup[1], ", ",
                  k.workgroup[2], " ]\n");
  absl::StrAppend(&m, "    .uses_dynamic_stack: false\n");
  if (abi.kernargs.empty()) {
    absl::StrAppend(&m, "    .args: []\n");
  } else {
    absl::StrAppend(&m, "    .args:\n");
    for (const KernelAbi::KernargSlot& slot : abi.kernargs) {
      const Arg* a = k.FindArg(slot.name);
      absl::StrAppend(&m, "      - .name: ", slot.name, "\n        .offset: ", slot.offset,
                      "\n        .size: ", slot.size, "\n");
      if (slot.is_buffer) {
        absl::StrAppend(&m, "        .value_kind: global_buffer\n        .address_space: global\n");
        absl::StrAppend(&m, "        .actual_access: ",
                        a->access == Access::kReadOnly    ? "read_only"
                        : a->access == Access::kWriteOnly ? "write_only"
                                                          : "read_write",
                        "\n");
      } else {
        absl::StrAppend(&m, "        .value_kind: by_value\n");
      }
    }
  }
  return out;
}

}  // namespace kir
