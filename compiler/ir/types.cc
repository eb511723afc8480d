#include "compiler/ir/types.h"

#include <charconv>

namespace kir {

int ElemBytes(ElemType t) {
  switch (t) {
    case ElemType::kF16:
    case ElemType::kBF16:
      return 2;
    case ElemType::kF32:
    case ElemType::kI32:
      return 4;
    case ElemType::kF8E4M3FNUZ:
    case ElemType::kF8E5M2FNUZ:
    case ElemType::kF8E4M3FN:
    case ElemType::kF8E5M2:
      return 1;
  }
  return 4;
}

bool IsFp8(ElemType t) {
  return t == ElemType::kF8E4M3FNUZ || t == ElemType::kF8E5M2FNUZ || t == ElemType::kF8E4M3FN ||
         t == ElemType::kF8E5M2;
}

std::string_view ElemTypeName(ElemType t) {
  switch (t) {
    case ElemType::kF16:
      return "f16";
    case ElemType::kBF16:
      return "bf16";
    case ElemType::kF32:
      return "f32";
    case ElemType::kI32:
      return "i32";
    case ElemType::kF8E4M3FNUZ:
      return "f8e4m3fnuz";
    case ElemType::kF8E5M2FNUZ:
      return "f8e5m2fnuz";
    case ElemType::kF8E4M3FN:
      return "f8e4m3fn";
    case ElemType::kF8E5M2:
      return "f8e5m2";
  }
  return "?";
}

std::optional<ElemType> ParseElemType(std::string_view s) {
  if (s == "f16") return ElemType::kF16;
  if (s == "bf16") return ElemType::kBF16;
  if (s == "f32") return ElemType::kF32;
  if (s == "i32") return ElemType::kI32;
  if (s == "f8e4m3fnuz") return ElemType::kF8E4M3FNUZ;
  if (s == "f8e5m2fnuz") return ElemType::kF8E5M2FNUZ;
  if (s == "f8e4m3fn") return ElemType::kF8E4M3FN;
  if (s == "f8e5m2") return ElemType::kF8E5M2;
  return std::nullopt;
}

bool IsValidElemType(ElemType e) {
  switch (e) {
    case ElemType::kF16:
    case ElemType::kBF16:
    case ElemType::kF32:
    case ElemType::kI32:
    case ElemType::kF8E4M3FNUZ:
    case ElemType::kF8E5M2FNUZ:
    case ElemType::kF8E4M3FN:
    case ElemType::kF8E5M2:
      return true;
  }
  return false;
}

bool IsLegalWidth(int64_t w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; }

bool IsLegalWidthFor(ElemType e, int64_t w) { return IsLegalWidth(w) || (IsFp8(e) && w == 32); }

std::string_view LegalWidthsText(ElemType e) {
  return IsFp8(e) ? "1, 2, 4, 8, 16 or 32" : "1, 2, 4, 8 or 16";
}

std::string ValueTypeName(ValueType t) {
  std::string s(ElemTypeName(t.elem));
  if (t.width != 1) s += "x" + std::to_string(t.width);
  return s;
}

std::optional<ValueType> ParseValueType(std::string_view s) {
  size_t x = s.find('x');
  std::optional<ElemType> e = ParseElemType(s.substr(0, x));
  if (!e) return std::nullopt;
  if (x == std::string_view::npos) return ValueType{*e, 1};
  std::string_view w = s.substr(x + 1);
  int width = 0;
  auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), width);
  if (ec != std::errc() || p != w.data() + w.size() || !IsLegalWidthFor(*e, width) ||
      w[0] == '0' || width == 1)
    return std::nullopt;
  return ValueType{*e, width};
}

}  // namespace kir
