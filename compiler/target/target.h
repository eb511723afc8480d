// Per-target facts for the CDNA GPUs kirc emits code for (gfx908 MI100,
// gfx90a MI200, gfx942 MI300, gfx950 MI350X/MI355X): register files,
// LDS, kernel ABI details and the MFMA catalogue. One table per target; the
// emulator and the passes read the same tables.
// Sources: ../shared/docs/amdgcn-isa-notes.md (sections 1, 5, 6), which cites
// the CDNA ISA guides, LLVM AMDGPUUsage and AMD's matrix instruction calculator.
#ifndef KIRC_COMPILER_TARGET_TARGET_H_
#define KIRC_COMPILER_TARGET_TARGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/types.h"

namespace kir {

enum class Gfx { kGfx908, kGfx90a, kGfx942, kGfx950 };
// Number of targets: the size of every per-target array indexed by Gfx.
inline constexpr int kNumGfx = 4;

// Which 8-bit float formats a target's fp8 instructions (v_cvt_*_fp8/bf8_*,
// v_mfma_*_fp8_*/bf8_*) read and write: the "fp8" (E4M3) and "bf8" (E5M2)
// of one flavour. The same opcodes mean different formats per target.
//  - kFnuz: gfx942 (CDNA3): f8e4m3fnuz and f8e5m2fnuz (AMD "AMD Instinct
//    MI300 ISA" guide, "FP8/BF8 conversions" use the NANOO formats, bias 8 /
//    16; LLVM AMDGPU names them FP8/BF8 and MLIR's AMDGPU dialect maps
//    f8E4M3FNUZ / f8E5M2FNUZ onto them for gfx942: mlir/lib/Conversion/
//    AMDGPUToROCDL, "isNativeFp8"/"isNativeBf8"; amd_matrix_instruction_calculator
//    "AMD 4-bit exponent, 3-bit mantissa").
//  - kOcp: gfx950 (CDNA4): f8e4m3fn and f8e5m2 (OCP OFP8; MLIR AMDGPU maps
//    f8E4M3FN / f8E5M2 for gfx950; HIP amd_hip_ocp_fp_cxx.hpp calls the same
//    v_cvt_pk_fp8_f32 builtin for OCP E4M3 there).
//  - kNone: gfx908, gfx90a (no fp8 instructions).
enum class Fp8Flavor { kNone, kFnuz, kOcp };

struct TargetInfo {
  Gfx gfx;
  const char* name;          // "gfx942"
  int max_arch_vgprs;        // 256 on all four
  int max_agprs;             // 256 (gfx908: separate file; 90a/942/950: share the 512-entry file)
  bool unified_vgpr_file;    // gfx90a/942/950: arch VGPRs + AGPRs <= 512, granule 8
  int vgpr_granule;          // descriptor VGPR granule in registers: 4 (gfx908), 8 (90a/942/950)
  int max_sgprs;             // addressable SGPRs s0..s101 = 102 (AMDGPUUsage)
  bool packed_workitem_ids;  // v0 = x | y<<10 | z<<20 (90a/942/950) vs v0,v1,v2 (908)
  bool mfma_acc_in_agprs;    // gfx908: MFMA srcC/vdst must be AGPRs
  bool mfma_srcc_inline_const;  // srcC may be the inline constant 0 (not on gfx908)
  bool even_aligned_tuples;  // 64-bit+ VGPR/AGPR tuples start on even registers (90a/942/950)
  bool has_accum_offset;     // .amdhsa_accum_offset directive required (90a/942/950)
  bool agpr_memory_operands; // AGPRs allowed as VMEM/DS data (90a/942/950)
  bool barrier_waits_all_memory;  // gfx908: LLVM waits for all memory before s_barrier
  bool cache_bits_sc;        // gfx942/950 spell cache bits sc0/sc1/nt instead of glc/slc
                             // (llvm-mc 22 -mcpu=gfx950 rejects `glc`, accepts `sc0 sc1 nt`)
  // Group segment (LDS) limit per workgroup, bytes: 65536 on gfx908/90a/942;
  // 163840 (160 KiB) on gfx950: LLVM AMDGPU.td, FeatureISAVersion9_5_Common
  // adds FeatureAddressableLocalMemorySize163840 (read in ROCm/llvm-project
  // 00421b28; llvm-mc 22 accepts .amdhsa_group_segment_fixed_size 163840).
  int64_t lds_bytes;
  // LDS banks of 4 bytes, the bank count of kirc's conflict model
  // (compiler/promote/bank_conflicts.h) and of the LDS throughput bound
  // (compiler/bench/loop_analysis.cc). 32 on gfx908/90a/942 (LLVM
  // FeatureLDSBankCount32; ROCm LDS bank-conflict blog).
  // gfx950: 64. Decision and sources: AMD's Composable Kernel, the library
  // AMD tunes LDS layouts with, gives get_n_lds_banks(gfx950_t) = 64 and 32
  // for every other gfx9 (ROCm/composable_kernel
  // include/ck_tile/core/arch/arch.hpp), and its bank-conflict example says
  // "64 on MI355, 32 on MI300 ... hardcoding 32 would undersize the scramble
  // on MI355"; CK's ck_tile LDS docs say "32 or 64 banks depending on the
  // hardware". LLVM's AMDGPU.td keeps FeatureLDSBankCount32 in
  // FeatureISAVersion9_4_Common, which gfx950 inherits (64 only for gfx1250),
  // but LLVM uses that count for LDS parameter interpolation, not as a
  // performance model, and no LLVM pass models LDS bank conflicts. No AMD
  // ISA guide text for CDNA4 was found in the corpora; UNVERIFIED on
  // hardware. The wider bank count changes only layout choice and reported
  // costs, never results.
  int lds_banks;
  int max_waves_per_simd;    // occupancy ceiling: 10 (908), 8 (90a/942/950; llc-22 `; Occupancy: 8`)
  int vmcnt_max;             // 63
  int lgkmcnt_max;           // 15
  int expcnt_max;            // 7
  // Code object facts (LLVM AMDGPUUsage, "ELF Header" and processor table):
  // EF_AMDGPU_MACH: gfx908 0x030, gfx90a 0x03f, gfx942 0x04c, gfx950 0x04f
  // (AMDGPUUsage EF_AMDGPU_MACH_AMDGCN_GFX950; llvm-readelf of an llvm-mc 22
  // gfx950 object: "Flags: 0x54f, gfx950, xnack, sramecc").
  uint32_t elf_mach = 0;
  // Target-ID features `sramecc` and `xnack`: supported on all four
  // (AMDGPUUsage processor table; gfx950: FeatureSupportsSRAMECC in
  // FeatureISAVersion9_4_Common, xnack as every GFX9; llvm-mc 22 accepts
  // .amdgcn_target "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-").
  bool has_sramecc = true;
  bool has_xnack = true;
  // AMDGPUUsage processor table: gfx942 and gfx950 have "Architected flat
  // scratch" (FeatureArchitectedFlatScratch in FeatureISAVersion9_4_Common;
  // llvm-mc 22 takes .amdhsa_enable_private_segment for gfx950);
  // gfx908/90a: "Absolute flat scratch".
  bool architected_flat_scratch = false;
  // global_atomic_add_f32 keeps f32 denormals (gfx942, gfx950); on gfx908/90a it
  // flushes them, inputs and result, to zero of the same sign. LLVM 22
  // selects it for `atomicrmw fadd` on gfx908/90a only when the function's
  // f32 denormal mode is preserve-sign (SIISelLowering.cpp: the instruction
  // is used only when the FP mode matches the global FP atomic mode) and
  // on gfx942 in IEEE mode too: `llc -mcpu=gfx90a` of an atomicrmw fadd
  // emits global_atomic_add_f32 with "denormal-fp-math-f32"="preserve-sign"
  // and a global_atomic_cmpswap loop without it; `-mcpu=gfx942` emits
  // global_atomic_add_f32 for both (checked with LLVM 22.1.8), and so does
  // `-mcpu=gfx950` in IEEE mode (FeatureMemoryAtomicFAddF32DenormalSupport
  // in FeatureISAVersion9_4_Common, which gfx950 inherits).
  bool atomic_add_f32_denormals = false;
  // The fp8 formats of the target's fp8 instructions (Fp8Flavor). A new
  // target only sets this: Fp8ElemTypes/Fp8Elem derive the rest.
  Fp8Flavor fp8 = Fp8Flavor::kNone;
  // gfx950 (CDNA4) memory instructions (semantics: compiler/isa/semantics.h
  // DsReadTrB16Source / LdsDmaAddress, where the sources are cited):
  //  - ds_read_b64_tr_b16, the transposing 64-bit LDS read of 16-bit
  //    elements (llvm-mc 22 assembles it for -mcpu=gfx950 only: "instruction
  //    not supported on this GPU" for gfx942; LLVM FeatureGFX950Insts);
  //  - buffer_load_dwordx4 ... lds, the 16-byte-per-lane global-to-LDS DMA
  //    (gfx950's "12/16 for gfx950" LDS DMA sizes, LLVM AMDGPU DMA
  //    operations doc; llvm-mc 22 -mcpu=gfx942 rejects the `lds` operand on
  //    buffer_load_dwordx4, gfx942 has only the 1/2/4-byte forms).
  bool has_ds_read_tr_b16 = false;
  bool has_lds_dma_dwordx4 = false;
  // gfx950 (CDNA4) VALU instructions (semantics: compiler/isa/semantics.h
  // Bitop3, hw/emu/exec_float.cc kVCvtPkF16F32, where the sources are
  // cited); llvm-mc 22 assembles
  // each for -mcpu=gfx950 only ("instruction not supported on this GPU" for
  // gfx942, gfx90a, gfx908, checked 2026-12; LLVM AMDGPU.td subtarget
  // features FeatureBitOp3Insts / FeatureCvtPkF16F32Inst):
  //  - v_bitop3_b32, any bitwise function of three sources given by an 8-bit
  //    truth table (the `bitop3:N` operand);
  //  - v_cvt_pk_f16_f32, two f32 to two f16 rounded to nearest even, packed;
  //  - v_cvt_pk_bf16_f32, two f32 to two bf16 rounded to nearest even,
  //    packed (semantics.h CvtPkBf16F32; LLVM FeatureBF16ConversionInsts,
  //    checked with llvm-mc 22 the same way, 2026-12).
  bool has_bitop3 = false;
  bool has_cvt_pk_f16_f32 = false;
  bool has_cvt_pk_bf16_f32 = false;
};

// The fp8 element types target `t` has, E4M3 first (gfx942: f8e4m3fnuz,
// f8e5m2fnuz); empty for kNone.
std::vector<ElemType> Fp8ElemTypes(const TargetInfo& t);
// The element type of the target's "fp8" (bf8 = false: E4M3) or "bf8" (E5M2)
// instructions; nullopt for kNone.
std::optional<ElemType> Fp8Elem(const TargetInfo& t, bool bf8);
// True unless `e` is an fp8 type the target lacks.
bool TargetHasElemType(const TargetInfo& t, ElemType e);
// "f8e4m3fnuz and f8e5m2fnuz", or "no fp8 types", for error messages.
std::string Fp8ElemTypesText(const TargetInfo& t);
// Which processors use which fp8 flavour (Fp8Flavor), for error messages:
// "gfx942: f8e4m3fnuz and f8e5m2fnuz, the AMD FNUZ formats; gfx950:
// f8e4m3fn and f8e5m2, the OCP formats" (gfx950's table entry is not here
// yet; its flavour is known: CDNA4 ISA guide, MLIR AMDGPU's gfx950 fp8).
std::string Fp8FlavoursText();

// SGPR allocation of a GFX9 wavefront (gfx908/90a/942/950). AMDGPUUsage,
// "compute_pgm_rsrc1 for GFX6-GFX12", GRANULATED_WAVEFRONT_SGPR_COUNT (bits
// 9:6): GFX9 "sgprs_used 0..112", the field is
// 2 * max(0, ceil(sgprs_used / 16) - 1), where sgprs_used is the highest SGPR
// referenced plus one plus "a target specific number of additional special
// SGPRs for VCC, FLAT_SCRATCH (GFX7+) and XNACK_MASK (GFX8+)" (ExtraSgprs).
//
// The field llvm-mc 22 writes for `sgprs_used` SGPRs: ceil(max(1, sgprs_used)
// / 8) - 1 (LLVM AMDGPUBaseInfo.cpp getNumSGPRBlocks, SGPR encoding granule
// 8; checked against llvm-mc's .kd bytes by hw/emu/strict_test). It differs
// from AMDGPUUsage's formula for some counts (16: 1 against 0) but SgprsGranted
// reads both as the same number of SGPRs.
int GranulatedSgprCount(int sgprs_used);
// The SGPRs a wavefront gets for field value `granulated` (0..15), special
// SGPRs included: (granulated / 2 + 1) * 16.
int SgprsGranted(int granulated);
// The special SGPRs counted in sgprs_used: the hardware keeps them in the
// highest granted SGPRs, VCC on top, XNACK_MASK below it, FLAT_SCRATCH below
// that, so one counts all above it too (LLVM AMDGPUBaseInfo.cpp
// getNumExtraSGPRs, GFX8+: VCC 2, XNACK 4, flat scratch 6, and 6 whenever the
// target has architected flat scratch). `vcc`: the code uses VCC;
// `xnack_mask`: XNACK may be on (the target ID's xnack is + or any);
// `flat_scratch`: the kernel sets up flat scratch.
int ExtraSgprs(const TargetInfo& t, bool vcc, bool xnack_mask, bool flat_scratch);

// A workgroup runs on one CU with all its waves resident, spread over the
// CU's 4 SIMDs: ceil(waves / 4) waves share one SIMD's VGPR file (LLVM
// AMDGPUBaseInfo.cpp getWavesPerEUForWorkGroup = divideCeil(waves per
// workgroup, getEUsPerCU() = 4)). The file holds 512 registers per lane on
// gfx90a/942/950 (arch VGPRs and AGPRs together, granule 8) and 256 arch
// VGPRs plus 256 AGPRs on gfx908 (granule 4, each file alike).
int VgprFilePerSimd(const TargetInfo& t);
int WavesPerSimdForWorkgroup(int64_t workgroup_threads);
// The waves per SIMD whose registers fit the file when each wave allocates
// `vgprs` registers (unified: arch VGPRs and AGPRs as allocated; gfx908:
// the larger of the two counts), by the registers alone: the file over
// `vgprs` rounded up to t.vgpr_granule (at least one granule), at most
// t.max_waves_per_simd (LLVM AMDGPUBaseInfo.cpp getNumWavesPerEUWithNumVGPRs).
int WavesPerSimdForVgprs(const TargetInfo& t, int64_t vgprs);
// The most VGPRs (unified: arch + AGPRs as allocated, accum_offset
// included; gfx908: each of arch and AGPRs) one wave of a workgroup of
// `workgroup_threads` (1..1024) may allocate so the workgroup can launch:
// the file over WavesPerSimdForWorkgroup, rounded down to the granule;
// e.g. 128 for 1024 threads, 512 (unified) for 256 or fewer.
int MaxVgprsPerWave(const TargetInfo& t, int64_t workgroup_threads);

// The setting of a target-ID feature (LLVM AMDGPUUsage, "Target Features"):
// absent from the ID means kAny (the code runs with either device setting).
enum class FeatureSetting { kAny, kOff, kOn };

// A target ID (LLVM AMDGPUUsage, "Target ID"): a processor plus optional
// `sramecc` and `xnack` settings, e.g. "gfx90a", "gfx90a:xnack-",
// "gfx942:sramecc+:xnack-". These are the only target-ID features of
// gfx908/90a/942/950 (tgsplit is a -m option, not part of the ID).
struct TargetId {
  const TargetInfo* target = nullptr;
  FeatureSetting sramecc = FeatureSetting::kAny;
  FeatureSetting xnack = FeatureSetting::kAny;

  // Canonical form: processor, then the features that are not kAny in
  // alphabetical order ("gfx942:sramecc+:xnack-"). Empty if target is null.
  std::string ToString() const;
  // The llvm-mc/clang -mattr value selecting these settings ("+sramecc,-xnack"),
  // "" when both are kAny.
  std::string Mattr() const;
  // The ELF header e_flags of a code object v4/v5 for this ID (AMDGPUUsage
  // "e_flags for Code Object V4 and V5"): EF_AMDGPU_MACH | XNACK (any 0x100,
  // off 0x200, on 0x300) | SRAMECC (any 0x400, off 0x800, on 0xc00).
  uint32_t ElfFlags() const;
  friend bool operator==(const TargetId& a, const TargetId& b) {
    return a.target == b.target && a.sramecc == b.sramecc && a.xnack == b.xnack;
  }
  friend bool operator!=(const TargetId& a, const TargetId& b) { return !(a == b); }
};

// Parses a target ID: PROCESSOR(:FEATURE(+|-))*, FEATURE being sramecc or
// xnack, each at most once, in any order (AMDGPUUsage's non-canonical form;
// ToString() gives the canonical one). Errors name the ID and list the valid
// forms: NotFound for an unknown processor, InvalidArgument for an unknown or
// repeated feature, a feature the processor lacks, or a missing/extra +/-.
absl::StatusOr<TargetId> ParseTargetId(absl::string_view id);

// The processor of an --mcpu target ID ("gfx908", "gfx90a:xnack-",
// "gfx942:sramecc+:xnack-"); the ID is validated as by ParseTargetId, whose
// errors it returns.
absl::StatusOr<const TargetInfo*> LookupTarget(absl::string_view mcpu);
// Every supported target, in the order gfx908, gfx90a, gfx942, gfx950.
const std::vector<const TargetInfo*>& AllTargets();

// Where element (row, col) of an MFMA operand lives: lane 0..63, the
// register of the operand tuple, and the element within that register.
struct FragmentSlot {
  int lane = 0;
  int reg = 0;   // 32-bit register within the operand tuple
  int elem = 0;  // element within the register (16-bit halves: 0 low, 1 high; bytes 0..3)
};

// The element kind of an MFMA's A or B operand. kFp8 and kBf8 are the ISA's
// "fp8" (E4M3) and "bf8" (E5M2): the target's fp8 flavour (TargetInfo::fp8)
// says which formats they are (gfx942 f8e4m3fnuz/f8e5m2fnuz, gfx950
// f8e4m3fn/f8e5m2).
enum class MfmaIn { kF16, kBF16, kF32, kFp8, kBf8 };
// Bytes of one element: 2, 2, 4, 1, 1.
int MfmaInBytes(MfmaIn in);
// The KIR element type of `in` on target t; nullopt for kFp8/kBf8 on a
// target without fp8.
std::optional<ElemType> MfmaInElem(MfmaIn in, const TargetInfo& t);
// True if a value of element type e may be the operand: the type itself for
// f16/bf16/f32; an E4M3 (kFp8) or E5M2 (kBf8) type of either flavour (the
// validator checks the flavour against the target).
bool MfmaInAccepts(MfmaIn in, ElemType e);
// "f16", "bf16", "f32", "fp8" or "bf8".
const char* MfmaInName(MfmaIn in);

// One MFMA instruction (CDNA ISA guides; amdgcn-isa-notes.md section 1).
// Operand A is M x K, B is K x N, C/D are M x N in f32.
struct MfmaDesc {
  const char* kir_name;  // KIR spelling, e.g. "f32_16x16x16_f16"
  int m, n, k;
  MfmaIn a_in, b_in;     // element kinds of A and B
  int ab_width;          // elements of A (and of B) per lane: 32, 8, 4, 2 or 1
  int cd_width;          // f32 elements of C/D per lane: 4 or 16
  int k_per_lane_group;  // consecutive k values held by one lane (= ab_width)
  // Mnemonic per target (index by Gfx), nullptr where the target lacks it.
  const char* mnemonic[kNumGfx];
  // Passes (issue cycles / 4) per target, from SISchedule.td; 0 where absent.
  int passes[kNumGfx];
  bool xdl;  // gfx94x/950 XDL class (f16/bf16/fp8); f32 MFMAs are non-XDL
  // gfx950's v_mfma_*_f8f6f4 take the formats of A and B in the cbsz and blgp
  // fields (0 fp8 E4M3, 1 bf8 E5M2; 2-4 the fp6/fp4 formats kirc does not
  // use), printed as " cbsz:N blgp:N" when not 0 (llvm-mc 22; LLVM
  // SIDefines.h AMDGPU::MFMAScaleFormats). 0 for every other MFMA.
  int cbsz = 0, blgp = 0;

  // 32-bit registers of A (and of B) per lane.
  int ab_regs() const { return (ab_width * MfmaInBytes(a_in) + 3) / 4; }
  // Lane layouts, amdgcn-isa-notes.md section 1.2 (verified against AMD's
  // matrix instruction calculator for 908/90a/942); the gfx950-only shapes
  // follow Composable Kernel's ck_tile warp-gemm attributes (see AllMfmas).
  FragmentSlot ASlot(int i, int kk) const;  // A[i][kk]
  FragmentSlot BSlot(int kk, int j) const;  // B[kk][j]
  FragmentSlot CSlot(int i, int j) const;   // C[i][j] and D[i][j] (reg = f32 index)
};

// The MFMA for a KIR name; nullptr if there is none.
const MfmaDesc* LookupMfma(absl::string_view kir_name);
// Every MFMA kirc knows.
const std::vector<MfmaDesc>& AllMfmas();
// The target's mnemonic for `m`, or an error naming the instruction and the
// target (e.g. "f32_16x16x16_bf16 does not exist on gfx908: use f32_16x16x8_bf16").
absl::StatusOr<std::string> MfmaMnemonic(const TargetInfo& t, const MfmaDesc& m);
int MfmaPasses(const TargetInfo& t, const MfmaDesc& m);

}  // namespace kir

#endif  // KIRC_COMPILER_TARGET_TARGET_H_
