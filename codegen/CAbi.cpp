// codegen/CAbi.h.
#include "codegen/CAbi.h"

namespace ufjit::codegen {

namespace {

/// The spellings of one dtype in C: <stdint.h>'s and the builtin type's.
struct CNames {
  const char *stdint_name;
  const char *builtin_name;
};

CNames c_names(DType t) {
  switch (t) {
    case DType::Bool:
      return {"bool", "bool"};
    case DType::Int8:
      return {"int8_t", "signed char"};
    case DType::Int16:
      return {"int16_t", "short"};
    case DType::Int32:
      return {"int32_t", "int"};
    case DType::Int64:
      return {"int64_t", "long long"};
    case DType::UInt8:
      return {"uint8_t", "unsigned char"};
    case DType::UInt16:
      return {"uint16_t", "unsigned short"};
    case DType::UInt32:
      return {"uint32_t", "unsigned int"};
    case DType::UInt64:
      return {"uint64_t", "unsigned long long"};
    case DType::Float32:
      return {"float", "float"};
    case DType::Float64:
      return {"double", "double"};
    default:
      return {"", ""};
  }
}

}  // namespace

std::string c_type(DType t) { return c_names(t).stdint_name; }

std::string c_builtin_type(DType t) { return c_names(t).builtin_name; }

CExtension c_abi_extension(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::UInt8:
    case DType::UInt16:
      return CExtension::Zero;
    case DType::Int8:
    case DType::Int16:
      return CExtension::Sign;
    default:
      return CExtension::None;
  }
}

}  // namespace ufjit::codegen
