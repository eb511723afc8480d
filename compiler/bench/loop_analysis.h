// The main loop of a kernel in any code object (kirc's, clang's, a hand-written
// or another generator's assembly): issue 16's loop analyser, first part.
//
// From the kernel symbol's disassembly (llvm-objdump's format, made in process
// by LLVM 22, compiler/object/llvm_in_process.h) it finds the main loop and
// counts per trip and per wave. Each backward branch closes a loop, its body
// the instructions from the branch target to the branch; a loop is innermost
// when no other backward branch's body lies inside its body. The main loop is
//  1. the innermost loop with the most MFMAs (ties: the shorter body, then
//     the later loop; Tensile's kernels follow their main loop with a tail
//     loop of fewer MFMAs and may wrap it in a loop over tiles, and
//     hipBLASLt's BBS kernel ends with a backward s_branch whose span holds
//     its unrolled last iteration, as many MFMAs as the main loop and
//     thousands of other instructions; kirc's K loop may sit in an outer
//     loop);
//  2. if no innermost loop has an MFMA, the loop with the most MFMAs (ties:
//     the shorter body, then the later loop), with a warning (inner_loops,
//     the report's "warning:" line): its body contains the loops at the
//     addresses given and the per-trip figures count one static pass of
//     each, not their trips, which the code does not show;
//  3. without MFMAs, the innermost loop whose branch comes last.
// Two backward branches to one target are two loops, the earlier inside the
// later (an inner loop sharing its header, or a second latch: the code does
// not tell them apart). The figures:
//  - instructions by class (MnemonicClass's classes);
//  - MFMA work: FLOP = 2 * M * N * K per MFMA (a wave's whole MxNxK product;
//    shapes from kirc's MFMA table, compiler/target, else parsed from the
//    mnemonic's MxNxK);
//  - other (non-MFMA) instructions per 16 KFLOP (one 32x32x8 or two 16x16x16
//    MFMAs, the unit of issue 16's table);
//  - LDS bytes read: a ds_read's bytes per lane (b32 4, b64 8, b96 12, b128 16,
//    read2_b32 8, read2_b64 16, u8/i8 1, u16/i16 2) times 64 lanes, and FLOP per
//    LDS byte read;
//  - LDS bytes written (ds_write* alike) and global bytes loaded and stored
//    (buffer_/global_/flat_ loads and stores: dword 4, dwordx2 8, x3 12, x4
//    16, short/ushort 2, byte/ubyte 1 bytes per lane, times 64 lanes; a
//    buffer_load_dword ... lds counts as a load), and global bytes loaded per
//    FLOP;
//  - the smallest vmcnt an s_waitcnt in the loop waits for (-1: none).
// Registers, LDS and the workgroup size come from the AMDGPU metadata notes
// when present; with them, the occupancy (waves per SIMD,
// compiler/passes/resources.h's Occupancy) and the throughput bound below.
//
// The throughput bound (ThroughputBound): cycles for one trip of every wave
// resident on a CU (W waves per SIMD, 4 SIMDs), the largest of these lower
// bounds, each counted from the loop body alone:
//  - MFMA: a SIMD's matrix core runs one MFMA at a time, 4 x passes cycles
//    each (passes from LLVM's SISchedule.td, compiler/target's MFMA table;
//    AMD's matrix instruction calculator gives the same cycles, e.g. 32 for
//    v_mfma_f32_32x32x8_f16 and 16 for 16x16x16 on CDNA3, 64 and 32 on
//    CDNA1/2): W x sum of MFMA cycles;
//  - VALU: a 16-lane SIMD takes 4 cycles per wave64 VALU instruction (MFMAs
//    not counted): W x 4 x VALU instructions;
//  - issue: a SIMD is offered instructions once every 4 cycles, at most one
//    per wave and five in all (AMD GCN architecture whitepaper, "Compute
//    Unit"; CDNA keeps the issue model): max(4 x instructions, W x 4 x
//    instructions / 5);
//  - LDS: 32 banks of 4 bytes serve 128 bytes per clock per CU (the conflict
//    free peak; amdgcn-isa-notes.md's bank model): 4W x (LDS bytes read and
//    written) / 128.
// A throughput bound only: latency (a vmcnt(0) drain, a barrier's wait,
// dependent MFMAs) is not modelled; the smallest vmcnt is the loop's figure
// for how much load latency it can hide.
// The in-order issue model adds the latency the bound leaves out, for one
// wave alone on its SIMD (the large default's case: no other wave fills its
// stalls): instructions issue in order one per 4 cycles; an MFMA waits for
// the previous one to leave the matrix pipe; a global load or store
// completes 500 cycles after issue (a rough L2-hit figure, the scheduler's),
// an LDS access 64 cycles after issue and in order behind the LDS traffic
// before it (its bytes over a quarter of 128 bytes per clock), a scalar
// load 200; s_waitcnt waits until its counters' oldest operations complete.
// Register dependences are not modelled (the waits stand for them). The
// loop runs 12 trips from an idle state and the figure is the mean of the
// last 4 (an even number: a loop whose trips alternate between two timings,
// e.g. one waiting for a load the trip before issued, is measured at its
// mean). A body that contains another loop (rule 2 above) is not modelled:
// its inner trips are unknown (model_note says so).
// Global memory is stated beside the bound, not in it (L2 and the MALL serve
// most of a GEMM's reloads, which a code object does not show): the bytes per
// clock per CU the loop needs at the bound, against HBM's bytes per clock per
// CU of the target's largest part (peak bandwidth / (CUs x peak engine
// clock), AMD's product specifications: MI100 1.2288 TB/s, 120 CUs, 1502
// MHz: 6.82; MI250X 3.2768 TB/s, 220 CUs, 1700 MHz: 8.76; MI300X 5.3 TB/s,
// 304 CUs, 2100 MHz: 8.30; MI355X 8 TB/s, 256 CUs (8 XCDs of 32), 2400 MHz:
// 13.02).
#ifndef KIRC_COMPILER_BENCH_LOOP_ANALYSIS_H_
#define KIRC_COMPILER_BENCH_LOOP_ANALYSIS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kir {

// One instruction line of llvm-objdump -d output.
struct DisassembledInstruction {
  uint64_t addr = 0;      // byte address
  std::string mnemonic;   // e.g. "v_mfma_f32_32x32x8_f16"
  std::string operands;   // the rest of the text
  std::string cls;        // MnemonicClass(mnemonic)
};

// The instruction lines of llvm-objdump -d text (lines starting with a tab and
// carrying a "// ADDRESS:" comment). Errors: none (other lines are skipped).
std::vector<DisassembledInstruction> ParseObjdumpInstructions(absl::string_view objdump_text);

// Instruction class of an llvm-objdump mnemonic, with the emulator's names
// ("salu", "smem", "valu", "vmem", "ds", "mfma", "waitcnt", "nop", "branch",
// "barrier", "other"); v_accvgpr_* count as valu (as in the emulator).
std::string MnemonicClass(const std::string& mnemonic);

// The main loop of `code` (the rules above): [first, last] indices into
// `code` of its body (last is the backward branch), and the [first, last] of
// every other loop inside that body (rule 2 only; address order). first is
// -1 when the code has no backward branch.
struct MainLoop {
  int first = -1, last = -1;
  std::vector<std::pair<int, int>> inner;
};
MainLoop LocateMainLoop(const std::vector<DisassembledInstruction>& code);

// LocateMainLoop's [first, last], or {-1, -1} without a backward branch.
std::pair<int, int> FindMainLoop(const std::vector<DisassembledInstruction>& code);

struct LoopAnalysis {
  std::string kernel;
  int total_instructions = 0;
  bool has_loop = false;
  uint64_t loop_first_addr = 0, loop_last_addr = 0;
  // Loops inside the main loop's body, first and last address each (rule 2
  // of the header comment; empty when the main loop is innermost): the
  // per-trip figures count one static pass of each.
  std::vector<std::pair<uint64_t, uint64_t>> inner_loops;
  std::map<std::string, int> loop_by_class;
  int loop_instructions = 0;
  int loop_mfma = 0;
  double loop_flop = 0;              // MFMA FLOP per wave per trip
  double other_per_16kflop = 0;      // non-MFMA instructions per 16,384 FLOP (0 without MFMA FLOP)
  int64_t loop_lds_read_bytes = 0;   // per wave per trip
  double flop_per_lds_byte = 0;      // 0 without LDS reads
  int64_t loop_lds_write_bytes = 0;  // per wave per trip
  int64_t loop_global_load_bytes = 0;   // per wave per trip (all 64 lanes)
  int64_t loop_global_store_bytes = 0;  // per wave per trip
  double global_bytes_per_flop = 0;     // loaded; 0 without MFMAs
  int smallest_vmcnt = -1;           // -1: no vmcnt wait in the loop
  int loop_valu = 0;                 // VALU instructions per trip (MFMAs excluded)
  int64_t loop_mfma_cycles = 0;      // sum of 4 x passes per trip (known MFMAs only)
  std::vector<std::string> unknown_mfmas;  // MFMA mnemonics whose shape was not found
  std::vector<std::string> unknown_mfma_cycles;  // MFMAs without passes for the processor
  // From the metadata notes (-1 when the object has none).
  int64_t vgprs = -1, agprs = -1, sgprs = -1, lds_bytes = -1;
  int64_t workgroup_threads = -1;    // .max_flat_workgroup_size
  // From the kernel descriptor (-1 without one): the VGPRs it allocates
  // (compute_pgm_rsrc1 GRANULATED_WORKITEM_VGPR_COUNT: gfx90a/942 the unified
  // arch + acc total, granule 8; gfx908 the larger file, granule 4) and
  // gfx90a/942's ACCUM_OFFSET (compute_pgm_rsrc3; AMDGPUUsage "Kernel
  // Descriptor"). Some generators' notes count arch VGPRs only (Tensile's
  // .vgpr_count omits the AGPRs); occupancy uses the larger figure.
  int64_t descriptor_vgprs = -1, descriptor_accum_offset = -1;
  // The in-order issue model (header comment): mean cycles per trip of one
  // wave alone on its SIMD over trips 9 to 12, and the share its MFMAs keep
  // the matrix pipe busy (0 without a processor or MFMAs, or when the model
  // was refused). model_note: why it was refused ("" otherwise).
  double model_trip_cycles = 0, model_mfma_busy = 0;
  std::string model_note;
  int waves_per_simd = -1;           // occupancy; -1 without notes
};

// The per-loop throughput bound of the header comment, per CU and trip of
// every resident wave. Cycles are engine clocks.
struct ThroughputBound {
  int waves_per_simd = 1;
  double mfma_cycles = 0, valu_cycles = 0, issue_cycles = 0, lds_cycles = 0;
  // LDS bytes per clock per CU: 4 bytes x TargetInfo::lds_banks (128 with 32
  // banks, 256 on gfx950's 64).
  double lds_bytes_per_clock_per_cu = 0;
  double bound_cycles = 0;      // the largest term
  std::string limit;            // "MFMA", "VALU", "issue" or "LDS"
  double mfma_utilisation = 0;  // mfma_cycles / bound_cycles
  double flop_per_clock_per_cu = 0;           // at the bound
  double global_bytes_per_clock_per_cu = 0;   // loaded and stored, at the bound
  double hbm_bytes_per_clock_per_cu = 0;      // the target's largest part
  std::string hbm_source;                     // "MI300X: 5.3 TB/s, 304 CUs, 2100 MHz"
  bool complete = true;  // false when an MFMA's cycles are unknown (not counted)
};

// The bound for `a` on `processor` (gfx908, gfx90a, gfx942, gfx950), with `a`'s
// occupancy (1 wave per SIMD when `a` has no notes). Errors:
// InvalidArgument for an unknown processor or a loop without MFMAs.
absl::StatusOr<ThroughputBound> ComputeThroughputBound(const LoopAnalysis& a, absl::string_view processor);

// OK if `elf_bytes` are an AMDGPU ELF64 object for `processor` (gfx908,
// gfx90a, gfx942, gfx950): e_machine EM_AMDGPU and the processor's EF_AMDGPU_MACH.
// Errors: InvalidArgument naming what is wrong (an unknown processor, "not an
// AMDGPU ELF64 object" with the e_machine found, the processor the object is
// for).
absl::Status CheckAmdgpuObject(absl::string_view elf_bytes, absl::string_view processor);

// Analyses kernel `kernel` (its function symbol) of an ELF object (a linked
// code object or an assembler's relocatable object) for `processor` (gfx908,
// gfx90a, gfx942). Errors: those of CheckAmdgpuObject, InvalidArgument for
// bytes that do not decode, NotFound for a missing symbol.
absl::StatusOr<LoopAnalysis> AnalyzeKernelObject(absl::string_view elf_bytes, absl::string_view processor,
                                                 absl::string_view kernel);

// The same from llvm-objdump -d text of the kernel (no notes). MFMA cycles are
// counted for `processor` when it is given ("" : none).
LoopAnalysis AnalyzeDisassembly(absl::string_view objdump_text, absl::string_view kernel,
                                absl::string_view processor = "");

// A report of `a` (one line per figure; a figure per FLOP is "n/a (no MFMA)"
// for a loop without MFMAs, FLOP per LDS byte "n/a (no LDS read)" for one
// without LDS reads) and, when `processor` is given and the loop has
// MFMAs, of its throughput bound.
std::string FormatLoopAnalysis(const LoopAnalysis& a, absl::string_view processor = "");

// The analyze tool's run on one file (analyze_main.cc): `bytes` are the
// file's contents, `path` its name for messages, `mcpu` a target ID (gfx942,
// gfx90a:xnack-; its processor is analysed), `kernel` the kernel symbol (""
// : the first kernel of the metadata notes). ELF bytes are analysed as they
// are; other bytes, unless they are a clang offload bundle, are assembly,
// assembled in process by LLVM 22's MC layer. Returns FormatLoopAnalysis's
// report. Errors (each message starts with `path`): InvalidArgument for a
// clang offload bundle (the message lists its entries and gives the
// clang-offload-bundler -unbundle command that extracts the code object), a
// .hsaco/.o/.co file that is not ELF, assembly that does not assemble, an
// ELF that CheckAmdgpuObject refuses (checked before the kernel is looked
// up), no kernel in the notes without `kernel`; those of
// AnalyzeKernelObject.
absl::StatusOr<std::string> AnalyzeFile(absl::string_view path, absl::string_view bytes, absl::string_view mcpu,
                                        absl::string_view kernel);

}  // namespace kir

#endif  // KIRC_COMPILER_BENCH_LOOP_ANALYSIS_H_
