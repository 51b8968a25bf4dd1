// The CUDA C++ link files of a ufunc (`link=["helpers.cu"]`) compiled with
// NVRTC for codegen's device image (codegen/DeviceImage.h:
// CudaSourceCompiler). Installed when the interop is linked in.
#pragma once

#include <string>
#include <vector>

#include "codegen/DeviceImage.h"

namespace ufjit::cudacpp {

/// Compiles `file` to LTO-IR for `arch`, with `-I` its own folder and its
/// `nvrtc_options`. The
/// declare_device declarations of `externs` are appended as C++
/// declarations, so a definition with another signature is NVRTC's error,
/// reported at the declare_device ("declared as float32(float32) but
/// helpers.cu:1:26 defines it differently"). Other errors are located in the
/// file ("helpers.cu:2:22: error: ...").
codegen::LinkInput compile_link_file(const ir::LinkFile &file, const std::vector<ir::ExternFunction> &externs,
                                     const std::string &arch);

/// The C++ declaration of `ext` as its ABI calls it:
/// `extern "C" __device__ int cube_plus(float *, float, float);` (builtin
/// type names: NVRTC has no <stdint.h>).
std::string extern_declaration(const ir::ExternFunction &ext);

}  // namespace ufjit::cudacpp
