// NumPy .npy (format 1.0) files of kernel buffers, over their logical shapes.
#ifndef KIRC_HW_CHECK_NPY_H_
#define KIRC_HW_CHECK_NPY_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/ir/paged_bytes.h"

namespace kir {

// The .npy dtype of element type `t`, the one NpyOfBuffer writes and
// ReadNpyElements requires: "<f4" f32, "<f2" f16, "<i4" i32, "<u2" for
// bf16 (NumPy has no bfloat16: its raw bits) and "|u1" for the fp8 types
// (their raw codes; ReadNpyElements also takes "<u1", ">u1" and "=u1", the
// same dtype: one byte has no byte order).
const char* NpyDescr(ElemType t);

// The .npy bytes of buffer `a` (contents `bytes`) gathered over its shape and
// strides into a C-ordered array of dtype NpyDescr(a.elem).
std::string NpyOfBuffer(const Arg& a, const std::vector<uint8_t>& bytes);
std::string NpyOfBuffer(const Arg& a, const PagedBytes& bytes);
// The same bytes written to `out` as they are made (about 1 MiB at a time,
// no page of `bytes` materialised: a multi-GiB buffer needs no copy); false
// when the stream failed.
bool WriteNpyOfBuffer(const Arg& a, const PagedBytes& bytes, std::ostream& out);

// The elements of buffer `a` in the .npy file bytes `npy` (format 1.0, 2.0
// or 3.0; what NpyOfBuffer writes reads back): dtype NpyDescr(a.elem)
// exactly, C order, shape a.shape or one dimension of a's element count.
// Returns their bytes in C order over a.shape. Errors (InvalidArgument,
// saying what the file has and what it must have): not a .npy file, a
// malformed or truncated header, another dtype (a bf16 buffer wants its
// raw bits as <u2), Fortran order, another element count or shape, data
// shorter or longer than the shape.
absl::StatusOr<std::vector<uint8_t>> ReadNpyElements(const Arg& a, absl::string_view npy);

// Writes `elements` (C order over a.shape, as ReadNpyElements returns) into
// `buffer` (a.SizeBytes() bytes) at a's strides. Error (InvalidArgument)
// when two indices that address one element (a readonly buffer with a
// stride of 0) are given different bits, naming both.
absl::Status ScatterElements(const Arg& a, const std::vector<uint8_t>& elements, std::vector<uint8_t>* buffer);
// The same into a sparse buffer (every page materialised).
absl::Status ScatterElements(const Arg& a, const std::vector<uint8_t>& elements, PagedBytes* buffer);

// Advances `idx` to the next multi-index of `shape` in C order (the last
// dimension fastest); false after the last one. For walking a buffer's
// logical shape (here and in CompareOutputs).
bool NextIndex(std::vector<int64_t>& idx, const std::vector<int64_t>& shape);

}  // namespace kir

#endif  // KIRC_HW_CHECK_NPY_H_
