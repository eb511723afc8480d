// Lines, labels, directives and addresses of an assembly text.
#include "hw/emu/asm_reader.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/isa/operands.h"

namespace kir::emu {
namespace {

struct PendingBranch {
  int inst;
  std::string label;  // empty: immediate offset in the target operand
};

struct FunctionBuilder {
  Program prog;
  std::map<std::string, int> labels;  // local label -> instruction index
  std::vector<PendingBranch> branches;
  bool addresses_from_objdump = false;
  uint64_t next_addr = 0;
};

// "000000001D1C: BF88001C 00000004 <sum_rows+0x90>" -> address and size.
bool ParseObjdumpComment(absl::string_view c, uint64_t* addr, int* size) {
  c = absl::StripAsciiWhitespace(c);
  size_t colon = c.find(':');
  if (colon == absl::string_view::npos || colon < 8) return false;
  uint64_t a;
  if (!absl::SimpleHexAtoi(c.substr(0, colon), &a)) return false;
  int words = 0;
  for (absl::string_view w : absl::StrSplit(c.substr(colon + 1), ' ', absl::SkipWhitespace())) {
    uint32_t x;
    if (w.size() != 8 || !absl::SimpleHexAtoi(w, &x)) break;
    ++words;
  }
  if (words == 0) return false;
  *addr = a;
  *size = 4 * words;
  return true;
}

absl::Status Finish(FunctionBuilder& f) {
  Program& p = f.prog;
  std::map<uint64_t, int> by_addr;
  for (size_t i = 0; i < p.insts.size(); ++i) by_addr[p.insts[i].addr] = static_cast<int>(i);
  for (const PendingBranch& b : f.branches) {
    Inst& in = p.insts[b.inst];
    // ParseInstruction gives every branch its target operand.
    MOperand& target_op = *FindOperand(in.mi, OpName::kTarget);
    if (!b.label.empty()) {
      auto it = f.labels.find(b.label);
      if (it == f.labels.end())
        return absl::InvalidArgumentError(absl::StrCat("line ", in.line, ": branch to unknown label '",
                                                       b.label, "' in ", p.Describe(b.inst)));
      in.target = it->second;
      in.target_label = b.label;
    } else {
      // SOPP branch: target = address of the next instruction + 4 * simm16.
      uint64_t target = in.addr + 4 + 4 * target_op.imm;
      auto it = by_addr.find(target);
      if (it == by_addr.end())
        return absl::InvalidArgumentError(absl::StrCat("branch target 0x", absl::Hex(target),
                                                       " is not an instruction of ", p.kernel,
                                                       " in ", p.Describe(b.inst)));
      in.target = it->second;
    }
    target_op = MOperand::Imm(in.target);
  }
  return absl::OkStatus();
}

// Where an instruction that does not parse is, for its message: in assembly
// text (a .s file) its line; in a disassembly (llvm-objdump of a code
// object: kirc run --code-object=...) its address and its place among the
// function's instructions, as the emulator's other refusals (Describe) name
// an instruction -- a line of the disassembly is no line of the user's .s.
std::string InstructionWhere(const FunctionBuilder& f, int line_no, uint64_t addr) {
  if (f.addresses_from_objdump)
    return absl::StrCat("address 0x", absl::Hex(addr), " (instruction ", f.prog.insts.size() + 1, " of ",
                        f.prog.kernel, "): ");
  return absl::StrCat("line ", line_no, ", address 0x", absl::Hex(addr), ": ");
}

}  // namespace

absl::StatusOr<AsmText> ReadAssembly(absl::string_view text, const TargetInfo& t, const ReadOptions& options) {
  AsmText out;
  std::map<std::string, FunctionBuilder> funcs;
  FunctionBuilder* cur = nullptr;
  std::string cur_kernel_desc;  // inside .amdhsa_kernel
  bool in_metadata = false;
  std::vector<std::string> pending_labels;  // local labels waiting for their instruction
  int line_no = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (in_metadata) {
      if (absl::StripAsciiWhitespace(raw) == ".end_amdgpu_metadata") {
        in_metadata = false;
      } else {
        absl::StrAppend(&out.metadata_yaml, raw, "\n");
      }
      continue;
    }
    absl::string_view line = raw;
    std::string comment;
    size_t cpos = line.find("//");
    if (cpos != absl::string_view::npos) {
      comment = std::string(line.substr(cpos + 2));
      line = line.substr(0, cpos);
    }
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    // llvm-objdump headers.
    if (absl::StrContains(line, "file format") || absl::StartsWith(line, "Disassembly of section"))
      continue;
    // "0000000000001600 <name>:" starts a function at an address.
    if (line.back() == ':' && line.find('<') != absl::string_view::npos) {
      size_t lt = line.find('<'), gt = line.rfind('>');
      uint64_t addr = 0;
      if (gt == absl::string_view::npos || !absl::SimpleHexAtoi(absl::StripAsciiWhitespace(line.substr(0, lt)), &addr))
        return absl::InvalidArgumentError(absl::StrCat("line ", line_no, ": bad label line `", line, "`"));
      std::string name(line.substr(lt + 1, gt - lt - 1));
      cur = &funcs[name];
      cur->prog.kernel = name;
      cur->next_addr = addr;
      cur->addresses_from_objdump = true;
      continue;
    }
    // A local label ".LBB0_1:", maybe followed by an instruction on its line.
    if (absl::string_view first = line.substr(0, line.find_first_of(" \t"));
        line[0] == '.' && first.back() == ':') {
      pending_labels.push_back(std::string(first.substr(0, first.size() - 1)));
      line = absl::StripAsciiWhitespace(line.substr(first.size()));
      if (line.empty()) continue;
    }
    if (line[0] == '.') {
      std::vector<absl::string_view> w = absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipWhitespace());
      absl::string_view d = w[0];
      if (d == ".amdhsa_kernel" && w.size() > 1) {
        cur_kernel_desc = std::string(w[1]);
        out.descriptors[cur_kernel_desc];
      } else if (d == ".end_amdhsa_kernel") {
        cur_kernel_desc.clear();
      } else if (d == ".amdgpu_metadata") {
        in_metadata = true;
      } else if (!cur_kernel_desc.empty() && absl::StartsWith(d, ".amdhsa_")) {
        int64_t v = 0;
        if (w.size() < 2 || !absl::SimpleAtoi(w[1], &v)) {
          uint64_t h;
          if (w.size() < 2 || !absl::ConsumePrefix(&w[1], "0x") || !absl::SimpleHexAtoi(w[1], &h))
            return absl::InvalidArgumentError(absl::StrCat("line ", line_no, ": bad directive `", line, "`"));
          v = static_cast<int64_t>(h);
        }
        out.descriptors[cur_kernel_desc][std::string(d.substr(8))] = v;
      }
      continue;  // .text, .globl, .p2align, .type, .size, ...
    }
    if (line.back() == ':' && line.find_first_of(" \t") == absl::string_view::npos) {
      std::string name(line.substr(0, line.size() - 1));
      cur = &funcs[name];
      cur->prog.kernel = name;
      pending_labels.clear();
      continue;
    }
    if (cur == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("line ", line_no, ": instruction outside a function: `", line, "`"));
    std::string label;
    absl::StatusOr<Inst> in = ParseInstruction(line, t, &label, options);
    uint64_t addr = cur->next_addr;
    int size = 0;
    bool from_comment = ParseObjdumpComment(comment, &addr, &size);
    if (!in.ok()) {
      std::string where = InstructionWhere(*cur, line_no, addr);
      return absl::Status(in.status().code(), absl::StrCat(where, in.status().message(),
                                                           absl::StrContains(in.status().message(), line)
                                                               ? "" : absl::StrCat(" (`", line, "`)")));
    }
    in->line = line_no;
    in->addr = addr;
    in->size = from_comment ? size : EstimateSize(*in);
    cur->next_addr = addr + in->size;
    int index = static_cast<int>(cur->prog.insts.size());
    for (const std::string& l : pending_labels) {
      if (!cur->labels.emplace(l, index).second)
        return absl::InvalidArgumentError(
            absl::StrCat("line ", line_no, ": label '", l, "' is defined twice in ", cur->prog.kernel));
      cur->prog.labels.push_back({l, index});
    }
    pending_labels.clear();
    if (Info(in->mi.opc).flags & kBranch) cur->branches.push_back({index, label});
    cur->prog.insts.push_back(std::move(*in));
  }
  for (auto& [name, f] : funcs) {
    // Labels at the very end (".Lfunc_end") point past the last instruction.
    absl::Status s = Finish(f);
    if (!s.ok()) return s;
    out.functions[name] = std::move(f.prog);
  }
  return out;
}

}  // namespace kir::emu
