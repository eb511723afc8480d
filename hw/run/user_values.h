// Values a user chooses for `kirc run`: scalar arguments (`--scalar
// NAME=VALUE`, typed as the argument is) and buffer inputs from NumPy files
// (`--input NAME=FILE.npy`), parsed and checked against the KIR kernel and,
// for arguments the KIR kernel lacks, against the code object's metadata.
#ifndef KIRC_HW_RUN_USER_VALUES_H_
#define KIRC_HW_RUN_USER_VALUES_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/ir/kernel.h"
#include "compiler/object/code_object_notes.h"
#include "hw/check/inputs.h"

namespace kir {

// The type a scalar argument's value is parsed as and printed in.
struct ScalarType {
  enum class Kind { kSigned, kUnsigned, kInteger, kFloat };  // kInteger: signedness unknown
  Kind kind = Kind::kSigned;
  int bytes = 4;  // 1, 2, 4 or 8 (floats: 2 f16 or bf16, 4 f32, 8 f64)
  bool bf16 = false;
  // "i32", "u64", "int32" (signedness unknown), "f32", "f16", "bf16", "f64".
  std::string Name() const;
};

// A KIR scalar's type: i32 or f32.
ScalarType ScalarTypeOf(ElemType t);
// A by-value argument's type from its metadata: .type_name (C spelling:
// "unsigned int", "int64_t", "size_t", "float", "double", "half", ...) or
// .value_type ("u32", "i64", "f32", ...) when it agrees with .size, else an
// integer of .size bytes of unknown signedness. Error (InvalidArgument) for
// a .size other than 1, 2, 4 and 8 (a struct passed by value).
absl::StatusOr<ScalarType> ScalarTypeOf(const ArgNote& a);

// The little-endian bytes of `text` as a value of type `t`. Integers:
// decimal with an optional sign, or hexadecimal 0x... (the bit pattern; a
// minus sign negates it), in range for the type (signed [-2^(n-1),
// 2^(n-1)-1], unsigned [0, 2^n-1], unknown signedness [-2^(n-1), 2^n-1]).
// f32 and f64: a decimal (rounded to nearest even), inf, -inf or nan, or a
// C hexadecimal float with a binary exponent (0x1.8p-3); a hexadecimal
// without one is refused (it is not clear whether bits or a value is
// meant); a finite value beyond the type's range is an error. f16 and bf16:
// values the type holds exactly. Errors (InvalidArgument): "'TEXT' is not
// ...: WHY", for the caller to prefix with the flag.
absl::StatusOr<std::vector<uint8_t>> ParseScalarValue(absl::string_view text, const ScalarType& t);

// "64 (u32, 0x00000040)", "-1.5 (f32, 0xbfc00000)".
std::string FormatScalarValue(const std::vector<uint8_t>& bytes, const ScalarType& t);

// What `kirc run --scalar` and `--input` give, parsed (ParseUserValues).
struct UserValues {
  std::map<std::string, uint32_t> kir_scalars;           // k's scalars, bits
  std::map<std::string, std::vector<uint8_t>> extra;     // by-value arguments k lacks: metadata name or "#N"
  std::map<std::string, std::vector<uint8_t>> elements;  // k's buffers: logical elements (C order) from files
  // For the report: "alpha = 1.5 (f32, 0x3fc00000)" per scalar of k given,
  // the same per argument k lacks, and "A from /p/a.npy" per buffer.
  std::vector<std::string> kir_scalar_text, extra_text, input_text;
  // The arguments k lacks, in the order given, for KERNEL.scalars.json.
  struct Extra {
    std::string name;
    ScalarType type;
    std::vector<uint8_t> bytes;
  };
  std::vector<Extra> extra_list;
  // The reference interpreter sees values the user chose (a buffer from a
  // file or one of k's scalars).
  bool ReferenceSees() const { return !kir_scalars.empty() || !elements.empty(); }
  // Writes them into `d`: buffers' elements at their strides, scalars, and
  // the arguments k lacks as d->extra_args.
  void ApplyTo(const Kernel& k, KernelData* d) const;
};

// Parses `scalars` (NAME, VALUE) and `inputs` (NAME, PATH of a .npy file),
// each in the order given, for kernel `k`; `code` is the code object's
// kernel metadata (--code-object) or null (kirc compiled `k`). A name of
// k's scalars is typed as k declares it; any other by its by-value
// argument in `code`; "#N" (hw/kernarg.h PositionalArgKey) is `code`'s
// explicit argument N, by position, typed by its metadata and kept as
// extra["#N"]. Errors (InvalidArgument, naming the flag, the argument and
// what to give instead): a name given twice, or one argument of `code` by
// name and by position; --scalar of a buffer, or of a name neither k nor
// `code` has as a by-value argument (the message lists those there are,
// unnamed ones as "(unnamed, #2)", and suggests '#N=VALUE' for them); "#N"
// without `code`, past its explicit arguments, for one that is not
// by_value or for one k binds by name; --input of a scalar or of no argument; a
// value ParseScalarValue refuses; a file that cannot be read (NotFound) or
// whose dtype, shape or element count is not the buffer's (ReadNpyElements);
// elements of an aliasing readonly buffer that disagree.
absl::StatusOr<UserValues> ParseUserValues(const Kernel& k,
                                           const std::vector<std::pair<std::string, std::string>>& scalars,
                                           const std::vector<std::pair<std::string, std::string>>& inputs,
                                           const KernelNotes* code);

}  // namespace kir

#endif  // KIRC_HW_RUN_USER_VALUES_H_
