// The dtype table of include/ufjit/dtype.h: names, sizes, kinds and the
// aliases of LANGUAGE.md section 2. (promote and can_cast_safe live in
// typer/Promotion.cpp.)
#include <array>
#include <utility>

#include "frontend/DTypeAliases.h"
#include "support/InternalAssert.h"
#include "ufjit/dtype.h"

namespace ufjit {

namespace {

struct DTypeInfo {
  std::string_view name;
  std::size_t size;
  char kind;
};

constexpr std::array<DTypeInfo, kNumDTypes> kDTypeInfo = {{
#define UFJIT_DTYPE_INFO(name, str, size, kind) {str, size, kind},
    UFJIT_FOR_EACH_DTYPE(UFJIT_DTYPE_INFO)
#undef UFJIT_DTYPE_INFO
}};

/// Aliases that are not canonical names (LANGUAGE.md section 2).
constexpr std::array<std::pair<std::string_view, DType>, 31> kAliases = {{
    {"b1", DType::Bool},        {"bool_", DType::Bool},         {"i1", DType::Int8},
    {"i2", DType::Int16},       {"i4", DType::Int32},           {"i8", DType::Int64},
    {"intp", DType::Int64},     {"int_", DType::Int64},         {"u1", DType::UInt8},
    {"u2", DType::UInt16},      {"u4", DType::UInt32},          {"u8", DType::UInt64},
    {"uintp", DType::UInt64},   {"f2", DType::Float16},         {"half", DType::Float16},
    {"f4", DType::Float32},     {"single", DType::Float32},     {"f8", DType::Float64},
    {"double", DType::Float64}, {"float_", DType::Float64},     {"c8", DType::Complex64},
    {"c16", DType::Complex128}, {"boolean", DType::Bool},       {"short", DType::Int16},
    {"ushort", DType::UInt16},  {"intc", DType::Int32},         {"uintc", DType::UInt32},
    {"longlong", DType::Int64}, {"ulonglong", DType::UInt64},   {"csingle", DType::Complex64},
    {"cdouble", DType::Complex128},
}};

/// Total: a value outside the enumerators (a cast or deserialised one) gets
/// a name that says so and size 0, so that an error message can describe it.
const DTypeInfo &info(DType t) {
  static constexpr DTypeInfo kNotADType{"<not a dtype>", 0, '?'};
  const auto index = static_cast<std::size_t>(t);
  return index < kDTypeInfo.size() ? kDTypeInfo[index] : kNotADType;
}

}  // namespace

std::string_view dtype_name(DType t) { return info(t).name; }


std::optional<DType> dtype_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kDTypeInfo.size(); ++i) {
    if (kDTypeInfo[i].name == name) return static_cast<DType>(i);
  }
  for (const auto &[alias, dtype] : kAliases) {
    if (alias == name) return dtype;
  }
  return std::nullopt;
}

}  // namespace ufjit

namespace ufjit::frontend {

std::vector<std::string> dtype_spellings() {
  std::vector<std::string> out;
  for (const auto &entry : kDTypeInfo) out.emplace_back(entry.name);
  for (const auto &[alias, dtype] : kAliases) out.emplace_back(alias);
  return out;
}

}  // namespace ufjit::frontend
