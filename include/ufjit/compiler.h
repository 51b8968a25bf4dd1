// ufjit public API: ahead-of-time compilation and checking, for the `ufjit`
// tool and for programs that want PTX without running anything.
//
// Every stage of the pipeline (tokens, AST, typed IR, LLVM IR, PTX, cubin) can
// be emitted, so that tests can look at each (STYLE.md item 7).
#pragma once

#include <string>
#include <vector>

#include "ufjit/errors.h"
#include "ufjit/export.h"

namespace ufjit {

/// DevicePtx: one ufunc's scalar function (not a kernel) as an `extern "C"
/// __device__` function in PTX, plus a C header declaring it (CompileResult::
/// header), for a host program's own CUDA C++ kernels to call. DeviceLtoIr is
/// refused with the reason (LTO-IR is NVVM's format, which LLVM does not write).
enum class EmitKind { Tokens, Ast, Ir, Llvm, Ptx, Cubin, DevicePtx, DeviceLtoIr };

struct UFJIT_API CompileRequest {
  std::string source;
  std::string source_name = "<string>";
  EmitKind emit = EmitKind::Ptx;
  std::string target = "cuda";  // "cuda" or "cpu" (cpu: tokens, ast, ir, llvm)
  std::string arch = "sm_90";
  std::string function;  // only this ufunc; empty: all (DevicePtx: required)
  /// DevicePtx: "c" (`float f(float)`) or "numba" (`int f(float *ret, float)`).
  std::string abi = "c";
  /// DevicePtx: which signature when the ufunc has several ("float32(float32)").
  std::string signature;
  /// DevicePtx: the exported name; empty: the ufunc's name.
  std::string symbol;
  /// CUDA C++ files linked by every ufunc that calls a declare_device
  /// function, after its decorator's link=[...] (`ufjit compile --link`);
  /// relative paths are found in the source file's folder, as link=[...]'s.
  std::vector<std::string> link;
  /// Given to NVRTC for every .cu link file (`ufjit compile --nvrtc-option`).
  std::vector<std::string> nvrtc_options;
  /// Errors reported before the rest are only counted (a closing note says
  /// how many); 0: no limit.
  int error_limit = 20;
};

struct UFJIT_API CompileResult {
  bool ok = false;
  std::vector<DiagnosticMessage> diagnostics;
  /// Every diagnostic rendered (file:line:col, source line, caret).
  std::string rendered_diagnostics;
  /// The emitted text (or the cubin's bytes).
  std::string output;
  /// For ptx and cubin: the JSON manifest describing every entry (function,
  /// signature, variant, parameters in order with their kinds and dtypes), so
  /// a C or CUDA program can launch them without ufjit.
  std::string manifest_json;
  /// For DevicePtx: the C header declaring the exported device function.
  std::string header;
};

/// Runs the pipeline up to `request.emit`. Never throws for a bad source:
/// diagnostics come back in the result. Throws ufjit::Error for environment
/// problems (libdevice or nvJitLink missing).
UFJIT_API CompileResult compile(const CompileRequest &request);

/// Parses and types every ufunc of a source; diagnostics only.
UFJIT_API CompileResult check(const std::string &source, const std::string &source_name);

}  // namespace ufjit
