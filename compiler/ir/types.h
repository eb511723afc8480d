// Element and value types of KIR.
#ifndef KIRC_COMPILER_IR_TYPES_H_
#define KIRC_COMPILER_IR_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kir {

// Element type of a buffer, LDS allocation, scalar argument or value.
enum class ElemType { kF16, kBF16, kF32, kI32 };

// Size of one element in bytes (2 for f16/bf16, 4 for f32/i32).
int ElemBytes(ElemType t);
// KIR spelling: "f16", "bf16", "f32", "i32".
std::string_view ElemTypeName(ElemType t);
// Inverse of ElemTypeName; nullopt for anything else.
std::optional<ElemType> ParseElemType(std::string_view s);

// The type of an SSA value: `width` elements (1, 2, 4, 8 or 16) of `elem`.
// Elements are packed little-endian into 32-bit registers: element e of a
// 16-bit type sits in dword e/2, bits 16*(e%2); of a 32-bit type in dword e.
struct ValueType {
  ElemType elem = ElemType::kF32;
  int width = 1;

  // Bytes the value occupies (width * ElemBytes(elem)).
  int Bytes() const { return width * ElemBytes(elem); }
  // 32-bit registers the value occupies (Bytes() rounded up to 4, over 4).
  int Dwords() const { return (Bytes() + 3) / 4; }
  friend bool operator==(const ValueType&, const ValueType&) = default;
};

// KIR spelling: "f32" for width 1, "f16x4" otherwise.
std::string ValueTypeName(ValueType t);
// Inverse of ValueTypeName; nullopt if the element type is unknown or the width is
// not 1, 2, 4, 8 or 16.
std::optional<ValueType> ParseValueType(std::string_view s);

// True for the four element types (guards enums built outside the parser).
bool IsValidElemType(ElemType t);

// True for the widths KIR allows: 1, 2, 4, 8, 16.
bool IsLegalWidth(int64_t width);

}  // namespace kir

#endif  // KIRC_COMPILER_IR_TYPES_H_
