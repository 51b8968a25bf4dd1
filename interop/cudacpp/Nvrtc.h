// CUDA C++ -> PTX, LTO-IR or cubin through NVRTC, opened with dlopen at first
// use (support/DynamicLibrary.h; nvrtc_functions.def), with NVRTC's log
// rewritten into ufjit's located diagnostics:
//   helpers.cu:2:22: error: identifier "q" is undefined
//     *ret = x * x * x + q;
//                        ^
// so a user's CUDA C++ mistake reads like a mistake in a .ufn file.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ufjit::cudacpp {

/// What NVRTC produces: PTX text, LTO-IR for an LTO link with nvJitLink
/// (`-dlto`), or a cubin for the arch.
enum class NvrtcOutput { Ptx, LtoIr, Cubin };

/// One CUDA C++ translation unit.
struct NvrtcSource {
  std::string name;  // as diagnostics show it: "helpers.cu" or "/abs/helpers.cu"
  std::string text;
  std::vector<std::string> include_dirs;  // -I, in order (the file's own folder first)
  std::vector<std::string> options;       // passed through ("-DN=4", "--use_fast_math")
  /// Texts of the names that `#line` directives of `text` give (a generated
  /// source quoting its user's strings), so diagnostics there show them.
  std::vector<std::pair<std::string, std::string>> line_files{};  // {}: may be left out of braced inits
};

/// Compiles `source` for `arch` ("sm_90") into `output`. Always passes
/// `-arch=<arch>` (compute_XX for PTX and LTO-IR, sm_XX for a cubin),
/// `-std=c++17`, `-rdc=true` (device functions are linked) and `-dlto` for
/// LTO-IR. Throws CompileError with one located diagnostic per NVRTC error
/// (warnings kept beside them), or ufjit::Error when NVRTC is not available
/// (naming the library and how to install it).
std::string nvrtc_compile(const NvrtcSource &source, const std::string &arch, NvrtcOutput output);

/// Whether NVRTC can be loaded; `why` receives the reason when not.
bool nvrtc_available(std::string *why = nullptr);

/// NVRTC's version as "13.0".
std::string nvrtc_version();

/// Rewrites an NVRTC program log into rendered ufjit diagnostics (exposed for
/// tests). `source` is the file the log is about; lines naming other files
/// (headers) keep their own name and are located when that file can be read.
std::string rewrite_nvrtc_log(const NvrtcSource &source, const std::string &log);

}  // namespace ufjit::cudacpp
