// What GPU code generation hands to the linker: ufjit's own PTX plus the
// device code it must be linked with (a user's CUDA C++ helpers compiled by
// NVRTC, or .ptx/.cubin/.ltoir/.fatbin files). One linker turns it into a
// cubin: link_device_image (nvJitLink, LTO where an input is LTO-IR).
#pragma once

#include <string>
#include <vector>

#include "ir/IR.h"

namespace ufjit::codegen {

/// One input of a device link, as nvJitLink's input kinds.
struct LinkInput {
  enum class Kind { Ptx, Cubin, LtoIr, Fatbin };
  Kind kind = Kind::Ptx;
  std::string name;   // for the linker's log: "helpers.cu"
  std::string bytes;  // PTX text without its NUL, or the binary
};

/// "ptx", "cubin", "ltoir", "fatbin".
const char *link_input_kind_name(LinkInput::Kind kind);

/// A module of device code: ufjit's PTX (may be empty when everything comes
/// from `inputs`, or when ufjit's own code is in LTO-IR among them) and the
/// inputs it is linked with.
struct DeviceImage {
  std::string ptx;
  std::string ptx_name = "ufjit.ptx";
  std::vector<LinkInput> inputs;
  /// Whether an input is LTO-IR: then the link runs with -lto.
  bool needs_lto() const;
};

/// What link_device_image produces.
enum class LinkOutput { Cubin, Ptx };

/// Links the image for `arch` ("sm_90") with nvJitLink: -lto when an input
/// is LTO-IR, so a helper's body can be inlined into ufjit's kernel. Returns
/// the cubin (or, with LinkOutput::Ptx and LTO inputs, the linked PTX).
/// Throws ufjit::Error with nvJitLink's log when it rejects an input or
/// leaves a symbol undefined, or when nvJitLink is not available (the
/// message says which library and how to get it).
std::string link_device_image(const DeviceImage &image, const std::string &arch,
                              LinkOutput output = LinkOutput::Cubin);

/// Turns one CUDA C++ link file (`.cu`) into a link input for `arch`. The
/// stages do not know NVRTC: interop/cudacpp installs the one compiler.
/// `externs` are the functions the module expects the file (or its siblings)
/// to define, so the compiler can check their signatures. Throws
/// CompileError located in the user's files.
using CudaSourceCompiler = LinkInput (*)(const ir::LinkFile &file, const std::vector<ir::ExternFunction> &externs,
                                         const std::string &arch);
void set_cuda_source_compiler(CudaSourceCompiler compiler);

/// Whether any module has link files (a kernel that needs CUDA C++ helpers).
bool needs_link_files(const std::vector<const ir::Module *> &modules);

/// The device image of ufjit's `ptx` and every link file of `modules`
/// (each file once): .ptx/.cubin/.ltoir/.fatbin as they are, .cu through the
/// installed CudaSourceCompiler (an error naming the file when none is).
DeviceImage module_device_image(const std::string &ptx, const std::vector<const ir::Module *> &modules,
                                const std::string &arch);

/// link_device_image for a module image, where a helper that no link file
/// defines becomes a CompileError at its declare_device:
///   "k.ufn:3:13: error: CUDA C++ function 'cube_plus' is not defined by helpers.cu"
std::string link_module_image(const DeviceImage &image, const std::vector<const ir::Module *> &modules,
                              const std::string &arch);

}  // namespace ufjit::codegen
