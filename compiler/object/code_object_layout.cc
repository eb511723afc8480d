#include "compiler/object/code_object_layout.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kir {
namespace {

template <typename T>
bool Read(absl::string_view b, uint64_t at, T& v) {
  if (at > b.size() || b.size() - at < sizeof(T)) return false;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return true;
}

std::string Hex(absl::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) absl::StrAppendFormat(&out, "%02x", c);
  return out;
}

}  // namespace

absl::StatusOr<std::string> DescribeCodeObjectLayout(absl::string_view b) {
  auto bad = [](absl::string_view what) { return absl::InvalidArgumentError(absl::StrCat("not a well-formed ELF64 file: ", what)); };
  if (b.size() < 64 || b.substr(0, 4) != "\x7f" "ELF" || b[4] != 2 || b[5] != 1) return bad("header");
  uint16_t type, machine, ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
  uint32_t version, flags;
  uint64_t entry, phoff, shoff;
  Read(b, 16, type); Read(b, 18, machine); Read(b, 20, version); Read(b, 24, entry); Read(b, 32, phoff);
  Read(b, 40, shoff); Read(b, 48, flags); Read(b, 52, ehsize); Read(b, 54, phentsize); Read(b, 56, phnum);
  Read(b, 58, shentsize); Read(b, 60, shnum); Read(b, 62, shstrndx);
  std::string out = absl::StrFormat(
      "ident %s type %u machine %u version %u entry %#x phoff %#x flags %#x ehsize %u phentsize %u phnum %u "
      "shentsize %u shnum %u shstrndx %u\n",
      Hex(b.substr(0, 16)), type, machine, version, entry, phoff, flags, ehsize, phentsize, phnum, shentsize, shnum,
      shstrndx);
  if (phentsize != 56 || shentsize != 64) return bad("header entry sizes");
  for (uint16_t i = 0; i < phnum; ++i) {
    const uint64_t at = phoff + 56ull * i;
    uint32_t p_type, p_flags;
    uint64_t off, vaddr, paddr, filesz, memsz, align;
    if (!Read(b, at, p_type) || !Read(b, at + 4, p_flags) || !Read(b, at + 8, off) || !Read(b, at + 16, vaddr) ||
        !Read(b, at + 24, paddr) || !Read(b, at + 32, filesz) || !Read(b, at + 40, memsz) || !Read(b, at + 48, align))
      return bad("program header table");
    absl::StrAppendFormat(&out, "phdr %u type %#x flags %#x offset %#x vaddr %#x paddr %#x filesz %#x memsz %#x align %#x\n",
                          i, p_type, p_flags, off, vaddr, paddr, filesz, memsz, align);
  }
  struct Shdr {
    uint32_t name, type, link, info;
    uint64_t flags, addr, offset, size, align, entsize;
  };
  auto read_shdr = [&](uint16_t i, Shdr& s) {
    const uint64_t at = shoff + 64ull * i;
    return Read(b, at, s.name) && Read(b, at + 4, s.type) && Read(b, at + 8, s.flags) && Read(b, at + 16, s.addr) &&
           Read(b, at + 24, s.offset) && Read(b, at + 32, s.size) && Read(b, at + 40, s.link) &&
           Read(b, at + 44, s.info) && Read(b, at + 48, s.align) && Read(b, at + 56, s.entsize);
  };
  Shdr names;
  if (shstrndx >= shnum || !read_shdr(shstrndx, names) || names.offset > b.size() || b.size() - names.offset < names.size)
    return bad("section name table");
  const absl::string_view name_table = b.substr(names.offset, names.size);
  bool after_comment = false;
  for (uint16_t i = 0; i < shnum; ++i) {
    Shdr s;
    if (!read_shdr(i, s)) return bad("section header table");
    if (s.name >= name_table.size() && !(i == 0 && s.name == 0)) return bad("section name offset");
    const std::string name = i == 0 ? "" : std::string(name_table.substr(s.name).substr(0, name_table.substr(s.name).find('\0')));
    const bool comment = name == ".comment";
    absl::StrAppendFormat(&out, "section %u %s type %#x flags %#x addr %#x", i, name, s.type, s.flags, s.addr);
    if (!after_comment && !comment) absl::StrAppendFormat(&out, " offset %#x", s.offset);
    if (!comment) absl::StrAppendFormat(&out, " size %#x", s.size);
    absl::StrAppendFormat(&out, " link %u info %u align %#x entsize %#x\n", s.link, s.info, s.align, s.entsize);
    if (s.type != 8 /*SHT_NOBITS*/ && !comment && i != 0) {
      if (s.offset > b.size() || b.size() - s.offset < s.size) return bad(absl::StrCat("contents of ", name));
      absl::StrAppend(&out, "  ", Hex(b.substr(s.offset, s.size)), "\n");
    }
    after_comment = after_comment || comment;
  }
  return out;
}

}  // namespace kir
