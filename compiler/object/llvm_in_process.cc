#include "compiler/object/llvm_in_process.h"

#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/object/toolchain.h"
#include "llvm/BinaryFormat/AMDGPUMetadataVerifier.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"


// The AMDGPU target's registration functions (llvm/Config/Targets.def names
// them; LLVM's static AMDGPU libraries define them).
extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUAsmParser();
extern "C" void LLVMInitializeAMDGPUDisassembler();

namespace kir {
namespace {

constexpr char kTriple[] = "amdgcn-amd-amdhsa";

// The AMDGPU target, registered once per process.
const llvm::Target* AmdgpuTarget(std::string* error) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmParser();
    LLVMInitializeAMDGPUDisassembler();
  });
  return llvm::TargetRegistry::lookupTarget(llvm::Triple(kTriple), *error);
}

std::string ToString(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return s;
}

// The per-target MC objects an assembler or disassembler needs.
struct McObjects {
  const llvm::Target* target = nullptr;
  llvm::Triple triple{kTriple};
  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCInstrInfo> mii;
};

absl::StatusOr<McObjects> MakeMcObjects(const McTarget& t) {
  McObjects m;
  std::string error;
  m.target = AmdgpuTarget(&error);
  if (m.target == nullptr)
    return absl::InternalError(absl::StrCat("LLVM 22 has no AMDGPU target: ", error));
  m.options.AsmVerbose = true;  // as llvm-mc sets it
  m.mri.reset(m.target->createMCRegInfo(m.triple));
  m.mai.reset(m.target->createMCAsmInfo(*m.mri, m.triple, m.options));
  // llvm-mc only warns (on stderr) about an unknown processor and then
  // assembles for a generic one; that is an error here, found before LLVM
  // would print the warning. Any AMDGPU subtarget knows the processor table.
  static const llvm::MCSubtargetInfo* const known =
      m.target->createMCSubtargetInfo(m.triple, "gfx942", "");
  if (known == nullptr || !known->isCPUStringValid(t.processor))
    return absl::InvalidArgumentError(
        absl::StrCat("LLVM 22's AMDGPU target does not know the processor '", t.processor,
                     "' (-mcpu); kirc's targets are gfx908, gfx90a, gfx942 and gfx950"));
  m.sti.reset(m.target->createMCSubtargetInfo(m.triple, t.processor, t.features));
  m.mii.reset(m.target->createMCInstrInfo());
  if (!m.mri || !m.mai || !m.sti || !m.mii)
    return absl::InternalError("LLVM 22's AMDGPU target did not create its MC objects");
  return m;
}

// Collects SourceMgr diagnostics as llvm-mc prints them.
struct Diagnostics {
  std::string text;
  bool error = false;
  static void Handle(const llvm::SMDiagnostic& d, void* context) {
    auto* self = static_cast<Diagnostics*>(context);
    llvm::raw_string_ostream os(self->text);
    d.print(nullptr, os, /*ShowColors=*/false);
    if (d.getKind() == llvm::SourceMgr::DK_Error) self->error = true;
  }
};

// LLVM's crash recovery (its signal handlers, which return a crash inside
// a CrashRecoveryContext to RunSafely and pass any other crash on to the
// handlers installed before), enabled once for the process.
void EnableLlvmCrashRecovery() {
  static std::once_flag once;
  std::call_once(once, [] { llvm::CrashRecoveryContext::Enable(); });
}

// fn() with a crash inside LLVM (a signal, or report_fatal_error) turned into
// an InvalidArgument error naming `what`: LLVM 22's readers crash on some
// malformed code objects (a corrupt metadata note, some undecodable MUBUF
// encodings), as llvm-readelf and llvm-objdump do on the same bytes.
template <typename Fn>
absl::StatusOr<std::string> Recoverably(absl::string_view what, Fn&& fn) {
  EnableLlvmCrashRecovery();
  absl::StatusOr<std::string> result = absl::InternalError("not run");
  llvm::CrashRecoveryContext crc;
  if (!crc.RunSafely([&] { result = fn(); })) {
    const int code = crc.RetCode;
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": LLVM 22 crashed on this input (",
        code > 128 ? absl::StrCat("signal ", code - 128) : absl::StrCat("fatal error, code ", code),
        "): the bytes are malformed (or LLVM has a bug there); llvm-readelf and llvm-objdump crash on such "
        "bytes too"));
  }
  return result;
}

}  // namespace

absl::StatusOr<McTarget> SplitTargetId(absl::string_view target_id) {
  if (target_id.empty()) return absl::InvalidArgumentError("empty target ID (-mcpu)");
  std::vector<absl::string_view> parts = absl::StrSplit(target_id, ':');
  McTarget t;
  t.processor = std::string(parts[0]);
  std::vector<std::string> attrs;
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view f = parts[i];
    if (f.size() < 2 || (f.back() != '+' && f.back() != '-'))
      return absl::InvalidArgumentError(absl::StrCat("target ID '", target_id, "' has a feature '", f,
                                                     "' without a trailing + or -"));
    attrs.push_back(absl::StrCat(f.substr(f.size() - 1), f.substr(0, f.size() - 1)));
  }
  t.features = absl::StrJoin(attrs, ",");
  return t;
}

namespace {

absl::StatusOr<std::string> AssembleUnguarded(absl::string_view asm_text, absl::string_view target_id) {
  absl::StatusOr<McTarget> t = SplitTargetId(target_id);
  if (!t.ok()) return t.status();
  absl::StatusOr<McObjects> m = MakeMcObjects(*t);
  if (!m.ok()) return m.status();

  llvm::SourceMgr source_mgr;
  Diagnostics diags;
  source_mgr.setDiagHandler(&Diagnostics::Handle, &diags);
  source_mgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(asm_text.data(), asm_text.size()), "<stdin>"),
      llvm::SMLoc());

  llvm::MCContext ctx(m->triple, m->mai.get(), m->mri.get(), m->sti.get(), &source_mgr, &m->options);
  std::unique_ptr<llvm::MCObjectFileInfo> mofi(
      m->target->createMCObjectFileInfo(ctx, /*PIC=*/false, /*LargeCodeModel=*/false));
  ctx.setObjectFileInfo(mofi.get());
  ctx.setDwarfVersion(4);
  // Errors the context reports itself (a symbol defined twice, a fixup out of
  // range) go to the same list, not to stderr.
  ctx.setDiagnosticHandler([&diags](const llvm::SMDiagnostic& d, bool, const llvm::SourceMgr&,
                                    std::vector<const llvm::MDNode*>&) { Diagnostics::Handle(d, &diags); });

  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  {
    // The parsers refer to the streamer until they are destroyed: they are
    // declared after it, so destroyed first, before `object` is read.
    llvm::MCCodeEmitter* emitter = m->target->createMCCodeEmitter(*m->mii, ctx);
    llvm::MCAsmBackend* backend = m->target->createMCAsmBackend(*m->sti, *m->mri, m->options);
    if (emitter == nullptr || backend == nullptr) {
      delete emitter;
      delete backend;
      return absl::InternalError("LLVM 22's AMDGPU target did not create its code emitter or backend");
    }
    std::unique_ptr<llvm::MCStreamer> streamer(m->target->createMCObjectStreamer(
        m->triple, ctx, std::unique_ptr<llvm::MCAsmBackend>(backend), backend->createObjectWriter(os),
        std::unique_ptr<llvm::MCCodeEmitter>(emitter), *m->sti));
    streamer->emitVersionForTarget(m->triple, llvm::VersionTuple(), nullptr, llvm::VersionTuple());
    std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(source_mgr, ctx, *streamer, *m->mai));
    std::unique_ptr<llvm::MCTargetAsmParser> target_parser(
        m->target->createMCAsmParser(*m->sti, *parser, *m->mii, m->options));
    if (!target_parser) return absl::InternalError("LLVM 22's AMDGPU target has no assembly parser");
    parser->setTargetParser(*target_parser);
    // Run writes the whole object to `os` when the input ends.
    const bool failed = parser->Run(/*NoInitialTextSection=*/false);
    if (failed || diags.error || ctx.hadError()) {
      return absl::InvalidArgumentError(absl::StrCat("llvm-mc (LLVM 22's assembler, in process) failed assembling for ",
                                                     target_id, ":\n",
                                                     diags.text.empty() ? "(no diagnostic)" : diags.text));
    }
  }
  std::string bytes(object.begin(), object.end());
  if (!HasElfMagic(bytes))
    return absl::InternalError(absl::StrCat("the assembler produced no ELF object (", bytes.size(), " bytes)"));
  return bytes;
}

absl::StatusOr<llvm::object::ELF64LEFile> OpenElf(absl::string_view bytes, absl::string_view what) {
  if (!HasElfMagic(bytes)) return absl::InvalidArgumentError(absl::StrCat(what, ": input is not an ELF file"));
  llvm::Expected<llvm::object::ELF64LEFile> elf =
      llvm::object::ELF64LEFile::create(llvm::StringRef(bytes.data(), bytes.size()));
  if (!elf)
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a 64-bit little-endian ELF file (LLVM 22's ELF reader, as llvm-readelf): ",
                     ToString(elf.takeError())));
  return std::move(*elf);
}

}  // namespace

absl::Status CheckAmdgpuElf(absl::string_view bytes, uint16_t want_type) {
  if (!HasElfMagic(bytes)) return absl::InvalidArgumentError("not an ELF file");
  if (bytes.size() < 20) return absl::InvalidArgumentError("a truncated ELF file");
  if (bytes[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 || bytes[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    return absl::InvalidArgumentError("not a 64-bit little-endian ELF file (AMDGPU code objects are ELFCLASS64, ELFDATA2LSB)");
  absl::StatusOr<llvm::object::ELF64LEFile> elf = OpenElf(bytes, "the code object");
  if (!elf.ok()) return elf.status();
  const auto& h = elf->getHeader();
  if (h.e_machine != llvm::ELF::EM_AMDGPU)
    return absl::InvalidArgumentError(
        absl::StrCat("not an AMDGPU code object (e_machine ", static_cast<int>(h.e_machine), ", not EM_AMDGPU 224)"));
  if (h.e_type != want_type) {
    if (h.e_type == llvm::ELF::ET_REL)
      return absl::InvalidArgumentError(
          "a relocatable object (ET_REL), not a linked code object: link it with ld.lld -shared");
    if (want_type == llvm::ELF::ET_REL)
      return absl::InvalidArgumentError(absl::StrCat("not a relocatable object (e_type ", static_cast<int>(h.e_type),
                                                     ", not ET_REL 1): the input of a link is llvm-mc's output"));
    return absl::InvalidArgumentError(
        absl::StrCat("not a linked code object (e_type ", static_cast<int>(h.e_type), ", not ET_DYN 3)"));
  }
  if (auto sections = elf->sections(); !sections)
    return absl::InvalidArgumentError(absl::StrCat("bad section table: ", ToString(sections.takeError())));
  return absl::OkStatus();
}

absl::Status CheckCodeObject(absl::string_view bytes) {
  if (absl::Status ok = CheckAmdgpuElf(bytes, llvm::ELF::ET_DYN); !ok.ok()) return ok;
  // What the HSA loader needs besides: its OS/ABI and the program headers.
  // CheckAmdgpuElf read the whole ELF header, so these bytes exist.
  const auto osabi = static_cast<unsigned char>(bytes[llvm::ELF::EI_OSABI]);
  if (osabi != llvm::ELF::ELFOSABI_AMDGPU_HSA)
    return absl::InvalidArgumentError(absl::StrCat("its ELF OS/ABI is ", static_cast<int>(osabi),
                                                   ", not ELFOSABI_AMDGPU_HSA (64): not a code object for the HSA "
                                                   "runtime"));
  if (llvm::support::endian::read16le(bytes.data() + offsetof(llvm::ELF::Elf64_Ehdr, e_phnum)) == 0)
    return absl::InvalidArgumentError("it has no program headers (a linked code object has its PT_LOAD segments)");
  return absl::OkStatus();
}



namespace {

absl::StatusOr<std::string> ReadNotesUnguarded(absl::string_view elf_bytes) {
  absl::StatusOr<llvm::object::ELF64LEFile> elf = OpenElf(elf_bytes, "ReadElfNotes");
  if (!elf.ok()) return elf.status();
  auto sections = elf->sections();
  if (!sections)
    return absl::InvalidArgumentError(absl::StrCat("ReadElfNotes: bad section table: ", ToString(sections.takeError())));
  std::string text;
  for (const auto& shdr : *sections) {
    if (shdr.sh_type != llvm::ELF::SHT_NOTE) continue;
    auto name = elf->getSectionName(shdr);
    absl::StrAppend(&text, "Displaying notes found in: ", name ? name->str() : std::string("?"), "\n",
                    "  Owner                Data size \tDescription\n");
    if (!name) llvm::consumeError(name.takeError());
    llvm::Error err = llvm::Error::success();
    for (const auto& note : elf->notes(shdr, err)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA) continue;
      llvm::StringRef desc = note.getDescAsStringRef(shdr.sh_addralign);
      absl::StrAppend(&text, absl::StrFormat("  %-20s 0x%08x\t%s\n", "AMDGPU", desc.size(),
                                             "NT_AMDGPU_METADATA (AMDGPU Metadata)"));
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(desc, /*Multi=*/false))
        return absl::InvalidArgumentError("ReadElfNotes: the NT_AMDGPU_METADATA note is not valid MessagePack");
      std::string yaml;
      llvm::AMDGPU::HSAMD::V3::MetadataVerifier verifier(/*Strict=*/true);
      if (!verifier.verify(doc.getRoot())) yaml = "Invalid AMDGPU Metadata\n";
      llvm::raw_string_ostream yos(yaml);
      doc.toYAML(yos);
      yos.flush();
      absl::StrAppend(&text, "    AMDGPU Metadata:\n        ", yaml, "\n");
    }
    if (err) return absl::InvalidArgumentError(absl::StrCat("ReadElfNotes: bad note: ", ToString(std::move(err))));
  }
  return text;
}

absl::StatusOr<std::string> DisassembleUnguarded(absl::string_view elf_bytes, absl::string_view symbol,
                                                 absl::string_view processor) {
  absl::StatusOr<llvm::object::ELF64LEFile> elf = OpenElf(elf_bytes, "disassembling");
  if (!elf.ok()) return elf.status();
  auto sections = elf->sections();
  if (!sections)
    return absl::InvalidArgumentError(absl::StrCat("disassembling: bad section table: ", ToString(sections.takeError())));
  // The function symbol and its section's bytes.
  llvm::ArrayRef<uint8_t> code;
  uint64_t start = 0;
  bool found = false;
  for (const auto& shdr : *sections) {
    if (shdr.sh_type != llvm::ELF::SHT_SYMTAB && shdr.sh_type != llvm::ELF::SHT_DYNSYM) continue;
    auto symbols = elf->symbols(&shdr);
    if (!symbols) {
      llvm::consumeError(symbols.takeError());
      continue;
    }
    for (const auto& sym : *symbols) {
      if (sym.getType() != llvm::ELF::STT_FUNC) continue;
      auto strtab = elf->getStringTableForSymtab(shdr);
      if (!strtab) {
        llvm::consumeError(strtab.takeError());
        break;
      }
      auto name = sym.getName(*strtab);
      if (!name) {
        llvm::consumeError(name.takeError());
        continue;
      }
      if (*name != llvm::StringRef(symbol.data(), symbol.size())) continue;
      auto sec = elf->getSection(sym.st_shndx);
      if (!sec) return absl::InvalidArgumentError(absl::StrCat("symbol '", symbol, "' has no section"));
      auto contents = elf->getSectionContents(**sec);
      if (!contents)
        return absl::InvalidArgumentError(absl::StrCat("symbol '", symbol, "': ", ToString(contents.takeError())));
      const uint64_t sec_addr = (*sec)->sh_addr;
      if (sym.st_value < sec_addr || sym.st_value - sec_addr > contents->size())
        return absl::InvalidArgumentError(absl::StrCat("symbol '", symbol, "' lies outside its section"));
      const uint64_t offset = sym.st_value - sec_addr;
      uint64_t size = sym.st_size != 0 ? sym.st_size : contents->size() - offset;
      if (size > contents->size() - offset)
        return absl::InvalidArgumentError(absl::StrCat("symbol '", symbol, "' runs past the end of its section"));
      code = contents->slice(offset, size);
      start = sym.st_value;
      found = true;
      break;
    }
    if (found) break;
  }
  if (!found) return absl::NotFoundError(absl::StrCat("the code object has no function symbol '", symbol, "'"));

  absl::StatusOr<McObjects> m = MakeMcObjects(McTarget{std::string(processor), ""});
  if (!m.ok()) return m.status();
  llvm::MCContext ctx(m->triple, m->mai.get(), m->mri.get(), m->sti.get(), nullptr, &m->options);
  std::unique_ptr<llvm::MCObjectFileInfo> mofi(m->target->createMCObjectFileInfo(ctx, /*PIC=*/false));
  ctx.setObjectFileInfo(mofi.get());
  std::unique_ptr<llvm::MCDisassembler> disassembler(m->target->createMCDisassembler(*m->sti, ctx));
  std::unique_ptr<llvm::MCInstPrinter> printer(m->target->createMCInstPrinter(
      m->triple, m->mai->getAssemblerDialect(), *m->mai, *m->mii, *m->mri));
  if (!disassembler || !printer)
    return absl::InternalError("LLVM 22's AMDGPU target did not create its disassembler or printer");

  std::string text = absl::StrFormat("%016x <%s>:\n", start, std::string(symbol));
  uint64_t index = 0;
  while (index < code.size()) {
    llvm::MCInst inst;
    uint64_t size = 0;
    const uint64_t address = start + index;
    llvm::MCDisassembler::DecodeStatus s =
        disassembler->getInstruction(inst, size, code.slice(index), address, llvm::nulls());
    if (s != llvm::MCDisassembler::Success || size == 0 || size % 4 != 0 || index + size > code.size()) {
      uint32_t word = 0;
      for (uint64_t b = 0; b < 4 && index + b < code.size(); ++b) word |= uint32_t{code[index + b]} << (8 * b);
      return absl::InvalidArgumentError(absl::StrFormat(
          "'%s' at address 0x%x: the dword 0x%08X does not decode as an instruction for %s",
          std::string(symbol), address, word, std::string(processor)));
    }
    std::string inst_text;
    llvm::raw_string_ostream is(inst_text);
    printer->printInst(&inst, address, "", *m->sti, is);
    is.flush();
    absl::StrAppend(&text, absl::StrFormat("%-60s// %012X:", inst_text, address));
    for (uint64_t w = 0; w < size; w += 4) {
      absl::StrAppend(&text, absl::StrFormat(" %08X", llvm::support::endian::read32le(code.data() + index + w)));
    }
    absl::StrAppend(&text, "\n");
    index += size;
  }
  return text;
}

}  // namespace

absl::StatusOr<std::string> AssembleInProcess(absl::string_view asm_text, absl::string_view target_id) {
  return Recoverably(absl::StrCat("assembling for ", target_id),
                     [&] { return AssembleUnguarded(asm_text, target_id); });
}

absl::StatusOr<std::string> ReadNotesInProcess(absl::string_view elf_bytes) {
  return Recoverably("reading the code object's notes", [&] { return ReadNotesUnguarded(elf_bytes); });
}

absl::StatusOr<std::string> DisassembleSymbolInProcess(absl::string_view elf_bytes, absl::string_view symbol,
                                                       absl::string_view processor) {
  return Recoverably(absl::StrCat("disassembling '", symbol, "'"),
                     [&] { return DisassembleUnguarded(elf_bytes, symbol, processor); });
}

}  // namespace kir
