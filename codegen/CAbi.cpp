// codegen/CAbi.h.
#include "codegen/CAbi.h"

namespace ufjit::codegen {

namespace {

/// The spellings of one dtype in C: <stdint.h>'s and the builtin type's.
struct CNames {
  DType dtype;
  const char *stdint_name;
  const char *builtin_name;
};

constexpr CNames kCNames[] = {
    {DType::Bool, "bool", "bool"},
    {DType::Int8, "int8_t", "signed char"},
    {DType::Int16, "int16_t", "short"},
    {DType::Int32, "int32_t", "int"},
    {DType::Int64, "int64_t", "long long"},
    {DType::UInt8, "uint8_t", "unsigned char"},
    {DType::UInt16, "uint16_t", "unsigned short"},
    {DType::UInt32, "uint32_t", "unsigned int"},
    {DType::UInt64, "uint64_t", "unsigned long long"},
    {DType::Float32, "float", "float"},
    {DType::Float64, "double", "double"},
};

/// Empty names for a dtype C has no type for (float16, complex).
CNames c_names(DType t) {
  for (const CNames &names : kCNames) {
    if (names.dtype == t) return names;
  }
  return {t, "", ""};
}

}  // namespace

std::string c_type(DType t) { return c_names(t).stdint_name; }

std::string c_builtin_type(DType t) { return c_names(t).builtin_name; }

CExtension c_abi_extension(DType t) {
  // The C ABIs widen bool and the integers narrower than int to a register.
  if (!is_bool(t) && !is_integer(t)) return CExtension::None;
  if (dtype_size(t) >= 4) return CExtension::None;
  return is_signed_int(t) ? CExtension::Sign : CExtension::Zero;
}

}  // namespace ufjit::codegen
