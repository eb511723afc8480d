#include "compiler/bench/loop_analysis.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/object/code_object_notes.h"
#include "compiler/object/llvm_in_process.h"
#include "compiler/target/target.h"

namespace kir {
namespace {

// M, N, K of an MFMA mnemonic: kirc's table (any target's spelling), else
// the digits of "MxNxK" after the result type. False if neither gives them.
bool MfmaShape(const std::string& mnemonic, int* m, int* n, int* k) {
  for (const MfmaDesc& d : AllMfmas())
    for (const char* name : d.mnemonic)
      if (name != nullptr && mnemonic == name) {
        *m = d.m;
        *n = d.n;
        *k = d.k;
        return true;
      }
  // v_mfma_f32_32x32x8_f16, v_mfma_f32_32x32x8f16, v_mfma_f32_16x16x32_fp8_fp8, ...
  std::vector<std::string> parts = absl::StrSplit(mnemonic, '_');
  for (const std::string& p : parts) {
    std::vector<std::string> dims = absl::StrSplit(p, 'x');
    if (dims.size() != 3) continue;
    std::string kd;
    for (char c : dims[2]) {
      if (!std::isdigit(static_cast<unsigned char>(c))) break;
      kd += c;
    }
    if (absl::SimpleAtoi(dims[0], m) && absl::SimpleAtoi(dims[1], n) && absl::SimpleAtoi(kd, k)) return true;
  }
  return false;
}

// Bytes one lane reads from LDS with `mnemonic` (0: not an LDS read).
int LdsReadBytesPerLane(const std::string& m) {
  if (!absl::StartsWith(m, "ds_read")) return 0;
  const bool two = absl::StartsWith(m, "ds_read2");
  int bytes = 0;
  if (absl::StrContains(m, "b128")) bytes = 16;
  else if (absl::StrContains(m, "b96")) bytes = 12;
  else if (absl::StrContains(m, "b64")) bytes = 8;
  else if (absl::StrContains(m, "b32")) bytes = 4;
  else if (absl::StrContains(m, "u16") || absl::StrContains(m, "i16")) bytes = 2;
  else if (absl::StrContains(m, "u8") || absl::StrContains(m, "i8")) bytes = 1;
  return two ? 2 * bytes : bytes;
}

}  // namespace

std::string MnemonicClass(const std::string& m) {
  if (absl::StartsWith(m, "s_waitcnt")) return "waitcnt";
  if (m == "s_nop") return "nop";
  if (m == "s_barrier") return "barrier";
  if (m == "s_branch" || absl::StartsWith(m, "s_cbranch") || absl::StartsWith(m, "s_setpc") ||
      absl::StartsWith(m, "s_swappc"))
    return "branch";
  if (m == "s_endpgm") return "other";
  if (absl::StartsWith(m, "s_load") || absl::StartsWith(m, "s_buffer_load") ||
      absl::StartsWith(m, "s_store") || absl::StartsWith(m, "s_buffer_store") ||
      absl::StartsWith(m, "s_dcache") || absl::StartsWith(m, "s_memtime") ||
      absl::StartsWith(m, "s_memrealtime"))
    return "smem";
  if (absl::StartsWith(m, "s_")) return "salu";
  if (absl::StartsWith(m, "v_mfma") || absl::StartsWith(m, "v_smfmac")) return "mfma";
  if (absl::StartsWith(m, "v_")) return "valu";
  if (absl::StartsWith(m, "buffer_") || absl::StartsWith(m, "global_") ||
      absl::StartsWith(m, "flat_") || absl::StartsWith(m, "scratch_"))
    return "vmem";
  if (absl::StartsWith(m, "ds_")) return "ds";
  return "other";
}

std::vector<DisassembledInstruction> ParseObjdumpInstructions(absl::string_view text) {
  std::vector<DisassembledInstruction> out;
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    if (l.empty() || l[0] != '\t') continue;
    size_t c = l.find("//");
    if (c == absl::string_view::npos) continue;
    absl::string_view ins = absl::StripAsciiWhitespace(l.substr(0, c));
    absl::string_view com = absl::StripAsciiWhitespace(l.substr(c + 2));
    size_t colon = com.find(':');
    uint64_t addr = 0;
    if (colon == absl::string_view::npos || !absl::SimpleHexAtoi(com.substr(0, colon), &addr)) continue;
    size_t sp = ins.find(' ');
    DisassembledInstruction d;
    d.addr = addr;
    d.mnemonic = std::string(ins.substr(0, sp));
    d.operands = sp == absl::string_view::npos ? "" : std::string(absl::StripAsciiWhitespace(ins.substr(sp)));
    d.cls = MnemonicClass(d.mnemonic);
    out.push_back(std::move(d));
  }
  return out;
}

std::pair<int, int> FindMainLoop(const std::vector<DisassembledInstruction>& code) {
  // SOPP branch: simm16 in dwords relative to the next instruction.
  std::pair<int, int> any = {-1, -1}, best = {-1, -1};
  int best_mfma = 0;
  for (int i = static_cast<int>(code.size()) - 1; i >= 0; --i) {
    if (code[i].cls != "branch") continue;
    std::string op = code[i].operands.substr(0, code[i].operands.find(' '));
    int v = 0;
    if (!absl::SimpleAtoi(op, &v)) continue;
    const int64_t target = static_cast<int64_t>(code[i].addr) + 4 + 4 * static_cast<int16_t>(v);
    if (target > static_cast<int64_t>(code[i].addr)) continue;
    int first = i;
    while (first > 0 && static_cast<int64_t>(code[first - 1].addr) >= target) --first;
    int mfma = 0;
    for (int j = first; j <= i; ++j) mfma += code[j].cls == "mfma";
    if (any.first < 0) any = {first, i};
    // Ties: the shorter body (an inner loop holds the same MFMAs as the loop
    // around it), then the later loop (searched from the end).
    if (mfma > best_mfma || (mfma > 0 && mfma == best_mfma && i - first < best.second - best.first)) {
      best_mfma = mfma;
      best = {first, i};
    }
  }
  return best_mfma > 0 ? best : any;
}

LoopAnalysis AnalyzeDisassembly(absl::string_view objdump_text, absl::string_view kernel) {
  LoopAnalysis a;
  a.kernel = std::string(kernel);
  const std::vector<DisassembledInstruction> code = ParseObjdumpInstructions(objdump_text);
  a.total_instructions = static_cast<int>(code.size());
  const auto [first, last] = FindMainLoop(code);
  if (first < 0) return a;
  a.has_loop = true;
  a.loop_first_addr = code[first].addr;
  a.loop_last_addr = code[last].addr;
  for (int i = first; i <= last; ++i) {
    const DisassembledInstruction& d = code[i];
    ++a.loop_by_class[d.cls];
    ++a.loop_instructions;
    if (d.cls == "mfma") {
      ++a.loop_mfma;
      int m = 0, n = 0, k = 0;
      if (MfmaShape(d.mnemonic, &m, &n, &k))
        a.loop_flop += 2.0 * m * n * k;
      else if (std::find(a.unknown_mfmas.begin(), a.unknown_mfmas.end(), d.mnemonic) == a.unknown_mfmas.end())
        a.unknown_mfmas.push_back(d.mnemonic);
    }
    a.loop_lds_read_bytes += 64 * LdsReadBytesPerLane(d.mnemonic);
    if (d.cls == "waitcnt") {
      size_t p = d.operands.find("vmcnt(");
      int v = 0;
      if (p != std::string::npos &&
          absl::SimpleAtoi(d.operands.substr(p + 6, d.operands.find(')', p) - p - 6), &v) &&
          (a.smallest_vmcnt < 0 || v < a.smallest_vmcnt))
        a.smallest_vmcnt = v;
    }
  }
  if (a.loop_flop > 0) a.other_per_16kflop = (a.loop_instructions - a.loop_mfma) / (a.loop_flop / 16384.0);
  if (a.loop_lds_read_bytes > 0) a.flop_per_lds_byte = a.loop_flop / static_cast<double>(a.loop_lds_read_bytes);
  return a;
}

absl::StatusOr<LoopAnalysis> AnalyzeKernelObject(absl::string_view elf_bytes, absl::string_view processor,
                                                 absl::string_view kernel) {
  absl::StatusOr<std::string> text = DisassembleSymbolInProcess(elf_bytes, kernel, processor);
  if (!text.ok()) return text.status();
  LoopAnalysis a = AnalyzeDisassembly(*text, kernel);
  absl::StatusOr<std::string> notes_text = ReadNotesInProcess(elf_bytes);
  if (notes_text.ok()) {
    absl::StatusOr<std::vector<KernelNotes>> notes = ParseKernelNotes(*notes_text);
    if (notes.ok())
      for (const KernelNotes& n : *notes)
        if (n.name == kernel) {
          a.vgprs = n.vgpr_count;
          a.agprs = n.agpr_count;
          a.sgprs = n.sgpr_count;
          a.lds_bytes = n.group_segment_fixed_size;
        }
  }
  return a;
}

std::string FormatLoopAnalysis(const LoopAnalysis& a) {
  std::string s = absl::StrCat("kernel ", a.kernel, ": ", a.total_instructions, " instructions\n");
  if (a.vgprs >= 0)
    absl::StrAppend(&s, "registers: ", a.vgprs, " VGPRs (.vgpr_count), ",
                    a.agprs >= 0 ? absl::StrCat(a.agprs, " AGPRs") : std::string("no .agpr_count"), ", ", a.sgprs,
                    " SGPRs; LDS ", a.lds_bytes, " bytes\n");
  if (!a.has_loop) return s + "no loop (no backward branch)\n";
  absl::StrAppend(&s, absl::StrFormat("main loop 0x%x..0x%x: %d instructions per trip (", a.loop_first_addr,
                                      a.loop_last_addr, a.loop_instructions));
  bool firstc = true;
  for (const auto& [c, n] : a.loop_by_class) {
    absl::StrAppend(&s, firstc ? "" : ", ", c, " ", n);
    firstc = false;
  }
  absl::StrAppend(&s, ")\n");
  absl::StrAppend(&s, absl::StrFormat("MFMAs per trip: %d (%.0f FLOP per wave)\n", a.loop_mfma, a.loop_flop));
  absl::StrAppend(&s, absl::StrFormat("other instructions per 16 KFLOP: %.2f\n", a.other_per_16kflop));
  absl::StrAppend(&s, absl::StrFormat("LDS bytes read per trip per wave: %d; FLOP per LDS byte read: %.1f\n",
                                      a.loop_lds_read_bytes, a.flop_per_lds_byte));
  absl::StrAppend(&s, "smallest vmcnt waited for in the loop: ",
                  a.smallest_vmcnt < 0 ? std::string("none") : absl::StrCat(a.smallest_vmcnt), "\n");
  if (!a.unknown_mfmas.empty())
    absl::StrAppend(&s, "MFMAs of unknown shape (not counted in FLOP): ", absl::StrJoin(a.unknown_mfmas, ", "), "\n");
  return s;
}

}  // namespace kir
