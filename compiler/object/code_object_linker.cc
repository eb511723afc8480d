#include "compiler/object/code_object_linker.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/object/llvm_in_process.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Error.h"

namespace kir {
namespace {

namespace elf = llvm::ELF;
using ElfFile = llvm::object::ELF64LEFile;

constexpr uint64_t kPageSize = 4096;  // lld's max- and common-page-size for AMDGPU
constexpr uint64_t kHeaderSize = sizeof(elf::Elf64_Ehdr);
constexpr int kNumProgramHeaders = 8;  // PHDR, 3 LOAD, DYNAMIC, GNU_RELRO, GNU_STACK, NOTE
constexpr uint32_t kGnuHashShift2 = 26;  // lld's Bloom filter shift

std::string ErrorText(llvm::Error e) {
  std::string text;
  llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase& info) { text = info.message(); });
  return text;
}

absl::Status Malformed(absl::string_view what, llvm::Error e) {
  return absl::InvalidArgumentError(absl::StrCat("LinkCodeObject: malformed object: ", what, ": ", ErrorText(std::move(e))));
}

absl::Status Outside(absl::string_view what) {
  return absl::UnimplementedError(absl::StrCat("kirc's code object linker does not handle ", what,
                                               " (ld.lld links such objects)"));
}

uint64_t AlignTo(uint64_t v, uint64_t align) { return align <= 1 ? v : (v + align - 1) / align * align; }
// The least x >= v with x = skew (mod align), as llvm::alignTo(v, align, skew).
uint64_t AlignToSkewed(uint64_t v, uint64_t align, uint64_t skew) {
  skew %= align;
  return (v + align - 1 - skew) / align * align + skew;
}
// Where lld starts a section that opens a new PT_LOAD (-z noseparate-code).
uint64_t NewSegmentDot(uint64_t dot) { return AlignTo(dot, kPageSize) + dot % kPageSize; }

uint32_t HashGnu(absl::string_view name) {
  uint32_t h = 5381;
  for (unsigned char c : name) h = h * 33 + c;
  return h;
}

uint32_t HashSysV(absl::string_view name) {
  uint32_t h = 0;
  for (unsigned char c : name) {
    h = (h << 4) + c;
    h ^= (h >> 24) & 0xf0;
  }
  return h & 0x0fffffff;
}

// A string table as lld builds one: "" first, each string appended (no
// sharing of equal strings or suffixes).
struct StringTable {
  std::string bytes = std::string(1, '\0');
  uint32_t Add(absl::string_view s) {
    const uint32_t at = static_cast<uint32_t>(bytes.size());
    bytes.append(s.data(), s.size());
    bytes.push_back('\0');
    return at;
  }
};

struct OutSection {
  std::string name;
  uint32_t type = elf::SHT_PROGBITS;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t align = 1;
  uint64_t entsize = 0;
  std::string data;  // empty for SHT_NOBITS
  uint32_t name_offset = 0;
};

struct InSymbol {
  std::string name;
  uint8_t type = 0;
  uint8_t visibility = 0;
  bool global = false;
  int out_section = 0;  // index into the output section list
  uint64_t value = 0;   // offset in its input section
  uint64_t size = 0;
};

struct OutSymbol {
  const InSymbol* sym = nullptr;  // nullptr: _DYNAMIC
  uint32_t name_offset = 0;
  uint32_t gnu_hash = 0;  // .dynsym entries: HashGnu(name)
};

template <typename T>
void Put(std::string& out, uint64_t at, const T& v) {
  std::memcpy(&out[at], &v, sizeof(T));
}

template <typename T>
void Append(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace

absl::StatusOr<std::string> LinkOneObject(absl::string_view object_bytes) {
  if (absl::Status ok = CheckAmdgpuElf(object_bytes, elf::ET_REL); !ok.ok())
    return absl::InvalidArgumentError(absl::StrCat("LinkCodeObject: ", ok.message()));
  llvm::Expected<ElfFile> file = ElfFile::create(llvm::StringRef(object_bytes.data(), object_bytes.size()));
  if (!file) return Malformed("ELF header", file.takeError());
  const auto& header = file->getHeader();
  auto sections = file->sections();
  if (!sections) return Malformed("section table", sections.takeError());

  // The input sections kirc links, by name.
  enum Kind { kNote = 0, kRodata = 1, kText = 2 };
  const char* const kInputNames[] = {".note", ".rodata", ".text"};
  std::optional<size_t> input_index[3];
  std::optional<size_t> symtab_index, rela_index;
  for (size_t i = 1; i < sections->size(); ++i) {
    const auto& sh = (*sections)[i];
    auto name = file->getSectionName(sh);
    if (!name) return Malformed(absl::StrCat("name of section ", i), name.takeError());
    const std::string n = name->str();
    auto set_once = [&](std::optional<size_t>& slot) -> absl::Status {
      if (slot) return Outside(absl::StrCat("two sections named '", n, "'"));
      slot = i;
      return absl::OkStatus();
    };
    absl::Status s = absl::OkStatus();
    if (n == ".note" && sh.sh_type == elf::SHT_NOTE && sh.sh_flags == elf::SHF_ALLOC) {
      s = set_once(input_index[kNote]);
    } else if (n == ".rodata" && sh.sh_type == elf::SHT_PROGBITS && sh.sh_flags == elf::SHF_ALLOC) {
      s = set_once(input_index[kRodata]);
    } else if (n == ".text" && sh.sh_type == elf::SHT_PROGBITS &&
               sh.sh_flags == (elf::SHF_ALLOC | elf::SHF_EXECINSTR)) {
      s = set_once(input_index[kText]);
    } else if (sh.sh_type == elf::SHT_SYMTAB) {
      s = set_once(symtab_index);
    } else if (sh.sh_type == elf::SHT_RELA && n == ".rela.rodata") {
      s = set_once(rela_index);
    } else if (sh.sh_type == elf::SHT_STRTAB && sh.sh_flags == 0) {
      // .strtab / .shstrtab: read through the tables that use them.
    } else {
      return Outside(absl::StrCat("section '", n, "' (type ", static_cast<uint32_t>(sh.sh_type), ", flags 0x", absl::Hex(static_cast<uint64_t>(sh.sh_flags)), ")"));
    }
    if (!s.ok()) return s;
  }
  for (int k = 0; k < 3; ++k)
    if (!input_index[k]) return Outside(absl::StrCat("an object without a '", kInputNames[k], "' section"));
  if (!symtab_index) return Outside("an object without a symbol table");

  // Output sections, in lld's order.
  std::vector<OutSection> out(14);
  enum Out {
    kONull, kONote, kODynsym, kOGnuHash, kOHash, kODynstr, kORodata, kOText, kODynamic, kORelroPadding,
    kOComment, kOSymtab, kOShstrtab, kOStrtab
  };
  const int kOutOf[3] = {kONote, kORodata, kOText};
  for (int k = 0; k < 3; ++k) {
    const auto& sh = (*sections)[*input_index[k]];
    auto contents = file->getSectionContents(sh);
    if (!contents) return Malformed(absl::StrCat("contents of ", kInputNames[k]), contents.takeError());
    OutSection& o = out[kOutOf[k]];
    o.name = kInputNames[k];
    o.type = sh.sh_type;
    o.flags = sh.sh_flags;
    o.align = std::max<uint64_t>(sh.sh_addralign, 1);
    if ((o.align & (o.align - 1)) != 0)
      return absl::InvalidArgumentError(
          absl::StrCat("LinkCodeObject: malformed object: ", o.name, " has alignment ", o.align, ", not a power of 2"));
    o.data.assign(reinterpret_cast<const char*>(contents->data()), contents->size());
    o.size = o.data.size();
  }
  if (out[kOText].size == 0) return Outside("an empty .text section");

  // Symbols.
  const auto& symtab_sh = (*sections)[*symtab_index];
  auto symbols = file->symbols(&symtab_sh);
  if (!symbols) return Malformed("symbol table", symbols.takeError());
  auto strtab = file->getStringTableForSymtab(symtab_sh, *sections);
  if (!strtab) return Malformed("symbol string table", strtab.takeError());
  std::vector<InSymbol> in_symbols(symbols->size());
  std::vector<bool> in_symbol_kept(symbols->size(), false);
  for (size_t i = 1; i < symbols->size(); ++i) {
    const auto& sym = (*symbols)[i];
    const uint8_t type = sym.getType();
    if (type == elf::STT_SECTION) continue;  // lld keeps no section symbols
    auto name = sym.getName(*strtab);
    if (!name) return Malformed(absl::StrCat("name of symbol ", i), name.takeError());
    InSymbol& s = in_symbols[i];
    s.name = name->str();
    if (type != elf::STT_NOTYPE && type != elf::STT_FUNC && type != elf::STT_OBJECT)
      return Outside(absl::StrCat("symbol '", s.name, "' of type ", static_cast<int>(type)));
    const uint8_t binding = sym.getBinding();
    if (binding != elf::STB_LOCAL && binding != elf::STB_GLOBAL)
      return Outside(absl::StrCat("symbol '", s.name, "' with binding ", static_cast<int>(binding), " (weak or other)"));
    if (s.name.empty()) return Outside("a symbol without a name");
    // Names lld defines itself: it hides an input _DYNAMIC and refuses an
    // input _GLOBAL_OFFSET_TABLE_ ("cannot redefine linker defined symbol").
    if (s.name == "_DYNAMIC" || s.name == "_GLOBAL_OFFSET_TABLE_")
      return Outside(absl::StrCat("a symbol named '", s.name, "' (a name ld.lld defines)"));
    s.type = type;
    s.global = binding == elf::STB_GLOBAL;
    s.visibility = sym.getVisibility();
    if (s.global && s.visibility != elf::STV_DEFAULT && s.visibility != elf::STV_PROTECTED)
      return Outside(absl::StrCat("global symbol '", s.name, "' with hidden or internal visibility"));
    const uint16_t shndx = sym.st_shndx;
    int out_section = -1;
    for (int k = 0; k < 3; ++k)
      if (shndx == *input_index[k]) out_section = kOutOf[k];
    if (out_section < 0)
      return Outside(absl::StrCat("symbol '", s.name, "' in section index ", shndx,
                                  " (undefined, absolute or in a section not linked)"));
    s.out_section = out_section;
    s.value = sym.st_value;
    s.size = sym.st_size;
    if (s.value > out[out_section].size)
      return absl::InvalidArgumentError(absl::StrCat("LinkCodeObject: malformed object: symbol '", s.name,
                                                     "' lies past the end of its section"));
    in_symbol_kept[i] = true;
  }
  if (symtab_sh.sh_info > symbols->size())
    return absl::InvalidArgumentError("LinkCodeObject: malformed object: symbol table's sh_info is past its end");

  // lld's symbol order: the file's locals, then its globals (symbol table
  // order), then _DYNAMIC (hidden, so local in the output). .strtab takes
  // the names in that order; the output table has the locals first.
  StringTable strtab_out, dynstr;
  std::vector<OutSymbol> locals, globals, dynsyms;
  absl::flat_hash_set<absl::string_view> global_names;
  for (size_t i = 1; i < in_symbols.size(); ++i)
    if (in_symbol_kept[i] && !in_symbols[i].global) locals.push_back({&in_symbols[i], strtab_out.Add(in_symbols[i].name)});
  for (size_t i = 1; i < in_symbols.size(); ++i)
    if (in_symbol_kept[i] && in_symbols[i].global) {
      const std::string& name = in_symbols[i].name;
      if (!global_names.insert(name).second) return Outside(absl::StrCat("two global symbols named '", name, "'"));
      globals.push_back({&in_symbols[i], strtab_out.Add(name)});
      dynsyms.push_back({&in_symbols[i], dynstr.Add(name), HashGnu(name)});
    }
  locals.push_back({nullptr, strtab_out.Add("_DYNAMIC")});
  if (globals.empty()) return Outside("an object without global symbols (no kernel)");

  // .gnu.hash orders the dynamic symbols by (bucket, name offset).
  const size_t n_dyn = dynsyms.size();
  const uint32_t n_buckets = static_cast<uint32_t>(std::max<size_t>(n_dyn / 4, 1));
  // lld's Bloom filter: NextPowerOf2(12 bits per symbol / 64) words.
  uint32_t mask_words = 1;
  while (mask_words <= n_dyn * 12 / 64) mask_words <<= 1;
  auto bucket_of = [&](const OutSymbol& o) { return o.gnu_hash % n_buckets; };
  std::stable_sort(dynsyms.begin(), dynsyms.end(), [&](const OutSymbol& a, const OutSymbol& b) {
    return bucket_of(a) != bucket_of(b) ? bucket_of(a) < bucket_of(b) : a.name_offset < b.name_offset;
  });

  // Synthetic sections' shapes.
  out[kODynsym] = {".dynsym", elf::SHT_DYNSYM, elf::SHF_ALLOC, 0, 0, (n_dyn + 1) * sizeof(elf::Elf64_Sym), kODynstr, 1,
                   8, sizeof(elf::Elf64_Sym)};
  out[kOGnuHash] = {".gnu.hash", elf::SHT_GNU_HASH, elf::SHF_ALLOC, 0, 0, 16 + 8 * mask_words + 4 * n_buckets + 4 * n_dyn,
                    kODynsym, 0, 8, 0};
  out[kOHash] = {".hash", elf::SHT_HASH, elf::SHF_ALLOC, 0, 0, 4 * (2 + 2 * (n_dyn + 1)), kODynsym, 0, 4, 4};
  out[kODynstr] = {".dynstr", elf::SHT_STRTAB, elf::SHF_ALLOC, 0, 0, dynstr.bytes.size(), 0, 0, 1, 0};
  out[kODynstr].data = dynstr.bytes;
  constexpr int kDynamicEntries = 7;
  out[kODynamic] = {".dynamic", elf::SHT_DYNAMIC, elf::SHF_ALLOC | elf::SHF_WRITE, 0, 0,
                    kDynamicEntries * sizeof(elf::Elf64_Dyn), kODynstr, 0, 8, sizeof(elf::Elf64_Dyn)};
  out[kORelroPadding] = {".relro_padding", elf::SHT_NOBITS, elf::SHF_ALLOC | elf::SHF_WRITE, 0, 0, 0, 0, 0, 1, 0};
  out[kOComment] = {".comment", elf::SHT_PROGBITS, elf::SHF_MERGE | elf::SHF_STRINGS, 0, 0, 0, 0, 0, 1, 1};
  out[kOComment].data = std::string(kCodeObjectLinkerComment) + '\0';
  out[kOComment].size = out[kOComment].data.size();
  out[kOSymtab] = {".symtab", elf::SHT_SYMTAB, 0, 0, 0, (1 + locals.size() + globals.size()) * sizeof(elf::Elf64_Sym),
                   kOStrtab, static_cast<uint32_t>(1 + locals.size()), 8, sizeof(elf::Elf64_Sym)};
  out[kOShstrtab] = {".shstrtab", elf::SHT_STRTAB, 0, 0, 0, 0, 0, 0, 1, 0};
  out[kOStrtab] = {".strtab", elf::SHT_STRTAB, 0, 0, 0, strtab_out.bytes.size(), 0, 0, 1, 0};
  out[kOStrtab].data = strtab_out.bytes;
  StringTable shstrtab;
  for (int i = 1; i < static_cast<int>(out.size()); ++i) out[i].name_offset = shstrtab.Add(out[i].name);
  out[kOShstrtab].data = shstrtab.bytes;
  out[kOShstrtab].size = shstrtab.bytes.size();

  // Addresses and offsets.
  uint64_t dot = kHeaderSize + kNumProgramHeaders * sizeof(elf::Elf64_Phdr);
  for (int i : {kONote, kODynsym, kOGnuHash, kOHash, kODynstr, kORodata}) {
    out[i].addr = out[i].offset = AlignTo(dot, out[i].align);
    dot = out[i].addr + out[i].size;
  }
  const uint64_t readonly_end = dot;
  for (int i : {kOText, kODynamic}) {
    const uint64_t prev_offset_end = out[i - 1].offset + out[i - 1].size;
    out[i].addr = AlignTo(NewSegmentDot(dot), out[i].align);
    out[i].offset = AlignToSkewed(prev_offset_end, kPageSize, out[i].addr);
    dot = out[i].addr + out[i].size;
  }
  out[kORelroPadding].addr = dot;
  out[kORelroPadding].offset = out[kODynamic].offset + out[kODynamic].size;
  out[kORelroPadding].size = AlignTo(dot, kPageSize) - dot;
  if (out[kORelroPadding].size == 0) return Outside("a RELRO segment that ends on a page boundary");
  uint64_t offset = out[kORelroPadding].offset;
  for (int i : {kOComment, kOSymtab, kOShstrtab, kOStrtab}) {
    out[i].offset = AlignTo(offset, out[i].align);
    offset = out[i].offset + out[i].size;
  }
  const uint64_t section_headers_offset = AlignTo(offset, 8);

  auto symbol_address = [&](const InSymbol& s) { return out[s.out_section].addr + s.value; };

  // Relocations: R_AMDGPU_REL64 (S + A - P) in .rodata.
  if (rela_index) {
    const auto& rela_sh = (*sections)[*rela_index];
    if (rela_sh.sh_info != *input_index[kRodata])
      return Outside(absl::StrCat(".rela.rodata applying to section ", static_cast<uint32_t>(rela_sh.sh_info)));
    if (rela_sh.sh_link != *symtab_index) return Outside(".rela.rodata with another symbol table");
    auto relas = file->relas(rela_sh);
    if (!relas) return Malformed(".rela.rodata", relas.takeError());
    for (const auto& r : *relas) {
      const uint32_t type = r.getType(false);
      const uint32_t sym_index = r.getSymbol(false);
      if (type != elf::R_AMDGPU_REL64) return Outside(absl::StrCat("relocation type ", type, " in .rodata"));
      if (sym_index == 0 || sym_index >= in_symbols.size() || !in_symbol_kept[sym_index])
        return Outside(absl::StrCat("a relocation against symbol index ", sym_index));
      const InSymbol& s = in_symbols[sym_index];
      if (s.global && s.visibility != elf::STV_PROTECTED)
        return Outside(absl::StrCat("R_AMDGPU_REL64 against preemptible symbol '", s.name, "'"));
      OutSection& ro = out[kORodata];
      if (r.r_offset > ro.size || ro.size - r.r_offset < 8)
        return absl::InvalidArgumentError("LinkCodeObject: malformed object: a relocation lies past the end of .rodata");
      const uint64_t p = ro.addr + r.r_offset;
      const uint64_t v = symbol_address(s) + static_cast<uint64_t>(r.r_addend) - p;
      Put(ro.data, r.r_offset, v);
    }
  }

  // .dynsym, .gnu.hash, .hash, .dynamic, .symtab contents.
  auto make_symbol = [&](const OutSymbol& o) {
    elf::Elf64_Sym s{};
    s.st_name = o.name_offset;
    if (o.sym == nullptr) {  // _DYNAMIC
      s.st_info = (elf::STB_LOCAL << 4) | elf::STT_NOTYPE;
      s.st_other = elf::STV_HIDDEN;
      s.st_shndx = kODynamic;
      s.st_value = out[kODynamic].addr;
      return s;
    }
    s.st_info = static_cast<unsigned char>(((o.sym->global ? elf::STB_GLOBAL : elf::STB_LOCAL) << 4) | o.sym->type);
    s.st_other = o.sym->visibility;
    s.st_shndx = static_cast<uint16_t>(o.sym->out_section);
    s.st_value = symbol_address(*o.sym);
    s.st_size = o.sym->size;
    return s;
  };
  {
    std::string& d = out[kODynsym].data;
    Append(d, elf::Elf64_Sym{});
    for (const OutSymbol& o : dynsyms) Append(d, make_symbol(o));
    std::string& t = out[kOSymtab].data;
    Append(t, elf::Elf64_Sym{});
    for (const OutSymbol& o : locals) Append(t, make_symbol(o));
    for (const OutSymbol& o : globals) Append(t, make_symbol(o));
  }
  {
    std::string& g = out[kOGnuHash].data;
    g.assign(out[kOGnuHash].size, '\0');
    Put<uint32_t>(g, 0, n_buckets);
    Put<uint32_t>(g, 4, 1);  // index of the first hashed .dynsym entry
    Put<uint32_t>(g, 8, mask_words);
    Put<uint32_t>(g, 12, kGnuHashShift2);
    const uint64_t bloom = 16, buckets = bloom + 8 * mask_words, values = buckets + 4 * n_buckets;
    for (size_t i = 0; i < n_dyn; ++i) {
      const uint32_t h = dynsyms[i].gnu_hash;
      const uint64_t word = bloom + 8 * ((h / 64) & (mask_words - 1));
      uint64_t w;
      std::memcpy(&w, &g[word], 8);
      w |= uint64_t{1} << (h % 64);
      w |= uint64_t{1} << ((h >> kGnuHashShift2) % 64);
      Put(g, word, w);
      const uint32_t bucket = bucket_of(dynsyms[i]);
      const bool last = i + 1 == n_dyn || bucket_of(dynsyms[i + 1]) != bucket;
      Put<uint32_t>(g, values + 4 * i, last ? (h | 1) : (h & ~1u));
      if (i == 0 || bucket_of(dynsyms[i - 1]) != bucket)
        Put<uint32_t>(g, buckets + 4 * bucket, static_cast<uint32_t>(i + 1));
    }
  }
  {
    std::string& h = out[kOHash].data;
    h.assign(out[kOHash].size, '\0');
    const uint32_t n = static_cast<uint32_t>(n_dyn + 1);
    Put<uint32_t>(h, 0, n);
    Put<uint32_t>(h, 4, n);
    const uint64_t buckets = 8, chains = 8 + 4 * uint64_t{n};
    for (uint32_t i = 1; i < n; ++i) {
      const uint32_t b = HashSysV(dynsyms[i - 1].sym->name) % n;
      uint32_t head;
      std::memcpy(&head, &h[buckets + 4 * b], 4);
      Put<uint32_t>(h, chains + 4 * i, head);
      Put<uint32_t>(h, buckets + 4 * b, i);
    }
  }
  {
    std::string& d = out[kODynamic].data;
    const std::pair<int64_t, uint64_t> entries[kDynamicEntries] = {
        {elf::DT_SYMTAB, out[kODynsym].addr}, {elf::DT_SYMENT, sizeof(elf::Elf64_Sym)},
        {elf::DT_STRTAB, out[kODynstr].addr}, {elf::DT_STRSZ, out[kODynstr].size},
        {elf::DT_GNU_HASH, out[kOGnuHash].addr}, {elf::DT_HASH, out[kOHash].addr},
        {elf::DT_NULL, 0}};
    for (const auto& [tag, value] : entries) {
      elf::Elf64_Dyn e{};
      e.d_tag = tag;
      e.d_un.d_val = value;
      Append(d, e);
    }
  }

  // The file.
  std::string bytes(section_headers_offset + out.size() * sizeof(elf::Elf64_Shdr), '\0');
  elf::Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, header.e_ident, elf::EI_NIDENT);
  eh.e_type = elf::ET_DYN;
  eh.e_machine = elf::EM_AMDGPU;
  eh.e_version = elf::EV_CURRENT;
  eh.e_entry = 0;
  eh.e_phoff = kHeaderSize;
  eh.e_shoff = section_headers_offset;
  eh.e_flags = header.e_flags;
  eh.e_ehsize = sizeof(elf::Elf64_Ehdr);
  eh.e_phentsize = sizeof(elf::Elf64_Phdr);
  eh.e_phnum = kNumProgramHeaders;
  eh.e_shentsize = sizeof(elf::Elf64_Shdr);
  eh.e_shnum = static_cast<uint16_t>(out.size());
  eh.e_shstrndx = kOShstrtab;
  Put(bytes, 0, eh);

  auto phdr = [](uint32_t type, uint32_t flags, uint64_t offset, uint64_t addr, uint64_t filesz, uint64_t memsz,
                 uint64_t align) {
    elf::Elf64_Phdr p{};
    p.p_type = type;
    p.p_flags = flags;
    p.p_offset = offset;
    p.p_vaddr = p.p_paddr = addr;
    p.p_filesz = filesz;
    p.p_memsz = memsz;
    p.p_align = align;
    return p;
  };
  const OutSection &text = out[kOText], &dyn = out[kODynamic], &pad = out[kORelroPadding], &note = out[kONote];
  const elf::Elf64_Phdr phdrs[kNumProgramHeaders] = {
      phdr(elf::PT_PHDR, elf::PF_R, kHeaderSize, kHeaderSize, kNumProgramHeaders * sizeof(elf::Elf64_Phdr),
           kNumProgramHeaders * sizeof(elf::Elf64_Phdr), 8),
      phdr(elf::PT_LOAD, elf::PF_R, 0, 0, readonly_end, readonly_end, kPageSize),
      phdr(elf::PT_LOAD, elf::PF_R | elf::PF_X, text.offset, text.addr, text.size, text.size, kPageSize),
      phdr(elf::PT_LOAD, elf::PF_R | elf::PF_W, dyn.offset, dyn.addr, dyn.size, dyn.size + pad.size, kPageSize),
      phdr(elf::PT_DYNAMIC, elf::PF_R | elf::PF_W, dyn.offset, dyn.addr, dyn.size, dyn.size, 8),
      phdr(elf::PT_GNU_RELRO, elf::PF_R, dyn.offset, dyn.addr, dyn.size, dyn.size + pad.size, 1),
      phdr(elf::PT_GNU_STACK, elf::PF_R | elf::PF_W, 0, 0, 0, 0, 0),
      phdr(elf::PT_NOTE, elf::PF_R, note.offset, note.addr, note.size, note.size, note.align),
  };
  for (int i = 0; i < kNumProgramHeaders; ++i) Put(bytes, kHeaderSize + i * sizeof(elf::Elf64_Phdr), phdrs[i]);

  for (size_t i = 0; i < out.size(); ++i) {
    const OutSection& o = out[i];
    if (o.type != elf::SHT_NOBITS && !o.data.empty()) {
      if (o.data.size() != o.size) return absl::InternalError(absl::StrCat("LinkCodeObject: ", o.name, " size mismatch"));
      std::memcpy(&bytes[o.offset], o.data.data(), o.data.size());
    }
    if (i == 0) continue;
    elf::Elf64_Shdr sh{};
    sh.sh_name = o.name_offset;
    sh.sh_type = o.type;
    sh.sh_flags = o.flags;
    sh.sh_addr = o.addr;
    sh.sh_offset = o.offset;
    sh.sh_size = o.size;
    sh.sh_link = o.link;
    sh.sh_info = o.info;
    sh.sh_addralign = o.align;
    sh.sh_entsize = o.entsize;
    Put(bytes, section_headers_offset + i * sizeof(elf::Elf64_Shdr), sh);
  }
  return bytes;
}

}  // namespace kir
