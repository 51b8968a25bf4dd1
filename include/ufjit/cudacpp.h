// ufjit public API: CUDA C++ beside ufuncs, through NVRTC and nvJitLink.
//
// Both libraries are opened with dlopen at first use (a program that never
// calls these needs neither); a missing one is a ufjit::Error that names the
// library and how to install it. `<ufjit/ufjit.h>` does not include this
// header.
//
//   // a ufunc's scalar function as `extern "C" __device__ float hyp(float, float)`
//   ufjit::CompileRequest req;  // <ufjit/compiler.h>
//   req.emit = ufjit::EmitKind::DevicePtx; req.function = "hyp"; ...
//   ufjit::CompileResult fn = ufjit::compile(req);       // fn.output: PTX, fn.header
//   std::string mine = ufjit::cudacpp::compile_cuda({"kernel.cu", fn.header + kernel_source},
//                                                   "sm_90", ufjit::cudacpp::CodeFormat::LtoIr);
//   std::string cubin = ufjit::cudacpp::link("sm_90", {{ufjit::cudacpp::CodeFormat::Ptx, "hyp.ptx", fn.output},
//                                                      {ufjit::cudacpp::CodeFormat::LtoIr, "kernel.cu", mine}});
#pragma once

#include <string>
#include <vector>

#include "ufjit/errors.h"
#include "ufjit/export.h"

namespace ufjit::cudacpp {

/// Forms of device code: what NVRTC writes and nvJitLink reads.
enum class CodeFormat { Ptx, LtoIr, Cubin, Fatbin };

/// One CUDA C++ translation unit for NVRTC.
struct UFJIT_API CudaSource {
  std::string name;                       // as errors show it: "helpers.cu"
  std::string text;
  std::vector<std::string> include_dirs;  // -I
  std::vector<std::string> options;       // passed to NVRTC as they are
};

/// Compiles `source` for `arch` ("sm_90") to PTX, LTO-IR or a cubin
/// (relocatable device code: its __device__ functions can be linked).
/// Throws CompileError whose diagnostics are located in the source
/// ("helpers.cu:2:22: error: ..."), or ufjit::Error (NVRTC missing, a
/// format NVRTC does not write).
UFJIT_API std::string compile_cuda(const CudaSource &source, const std::string &arch, CodeFormat format);

/// One input of link().
struct UFJIT_API LinkItem {
  CodeFormat format = CodeFormat::Ptx;
  std::string name;
  std::string bytes;
};

/// Links the inputs into a cubin for `arch` with nvJitLink, with LTO when
/// any input is LTO-IR. Throws ufjit::Error with nvJitLink's log (an
/// undefined function is named there).
UFJIT_API std::string link(const std::string &arch, const std::vector<LinkItem> &inputs);

}  // namespace ufjit::cudacpp
