// The C ABI of scalar device functions on NVPTX, as clang and NVCC pass them:
// shared by exported functions (DeviceFunction.cpp) and calls of CUDA C++
// helpers (LowerExtern.cpp), and the declarations interop/cudacpp checks a
// helper against, so both sides of a link agree. No LLVM type here.
#pragma once

#include <string>

#include "ufjit/dtype.h"

namespace ufjit::codegen {

/// The C spelling of a dtype the C ABI carries ("int8_t", "float"); empty
/// for float16 and complex (no C type every caller shares).
std::string c_type(DType t);

/// The same as a builtin type ("signed char", "long long"), for CUDA C++
/// compiled by NVRTC, which has no <stdint.h>.
std::string c_builtin_type(DType t);

/// How a C parameter or result of `t` is widened: zero-extended for bool and
/// unsigned 8/16-bit integers, sign-extended for signed ones, else not
/// (LLVM's zeroext/signext attributes).
enum class CExtension { None, Zero, Sign };
CExtension c_abi_extension(DType t);

}  // namespace ufjit::codegen
