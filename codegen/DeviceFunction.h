// A ufunc's scalar function as a device function that a host program's own
// CUDA C++ kernels call (issue 11, "ufunc scalar functions as device
// functions for host kernels"): PTX holding one `.visible .func`, and the C
// header that declares it. nvJitLink links that PTX with the program's
// kernels (their NVRTC or nvcc LTO-IR, PTX or cubin).
//
// Two ABIs, as Numba's declare_device knows them:
//   C:     extern "C" __device__ float f(float x, float y);
//   Numba: extern "C" __device__ int f(float *ret, float x, float y);  // 0: ok
// Parameters follow the C ABI of clang and NVCC for NVPTX (bool zero-
// extended, 8- and 16-bit integers sign- or zero-extended to 32 bits).
// float16 and complex parameters have no C type shared by every caller and
// are refused with a message naming the parameter.
#pragma once

#include <string>

#include "codegen/Codegen.h"
#include "ir/IR.h"

namespace ufjit::codegen {

enum class DeviceAbi { C, Numba };

/// "c" or "numba" -> DeviceAbi; throws ufjit::Error naming both otherwise.
DeviceAbi parse_device_abi(const std::string &text);

/// PTX (for `gpu.arch`) of one external device function `symbol` that
/// computes `module`'s entry function, with `abi`. Deterministic. Throws
/// ufjit::Error for a parameter or result type the ABI cannot carry.
std::string emit_device_function_ptx(const ir::Module &module, const std::string &symbol, DeviceAbi abi,
                                     const GpuOptions &gpu);

/// The C/C++ header declaring `symbol` as emit_device_function_ptx defines
/// it, with the parameter names of the source and `comment` on top.
std::string device_function_header(const ir::Module &module, const std::string &symbol, DeviceAbi abi,
                                   const std::string &comment);

}  // namespace ufjit::codegen
