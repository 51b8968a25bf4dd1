// What GPU code generation hands to the linker: ufjit's own PTX plus the
// device code it must be linked with (a user's CUDA C++ helpers compiled by
// NVRTC, or .ptx/.cubin/.ltoir/.fatbin files). One linker turns it into a
// cubin: link_device_image (nvJitLink, LTO where an input is LTO-IR).
#pragma once

#include <string>
#include <vector>

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

}  // namespace ufjit::codegen
