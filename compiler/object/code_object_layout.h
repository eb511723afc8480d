// A text description of an ELF64 file's layout, for tests that compare kirc's
// code object linker (code_object_linker.h) with ld.lld: the ELF header, every
// program header and every section header with its contents in hex, read
// with plain bounds-checked reads (no LLVM, nothing shared with the linker).
// The .comment section's text, its size and the file offsets of the sections
// after it (and e_shoff) are left out: that is where the two linkers may
// differ. Two code objects with the same description load and run the same.
#ifndef KIRC_COMPILER_OBJECT_CODE_OBJECT_LAYOUT_H_
#define KIRC_COMPILER_OBJECT_CODE_OBJECT_LAYOUT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kir {

// One line per header field group; errors: InvalidArgument when `elf_bytes`
// is not a well-formed ELF64 little-endian file (the message says where).
absl::StatusOr<std::string> DescribeCodeObjectLayout(absl::string_view elf_bytes);

}  // namespace kir

#endif  // KIRC_COMPILER_OBJECT_CODE_OBJECT_LAYOUT_H_
