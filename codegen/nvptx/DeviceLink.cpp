// The one device linker: nvJitLink, opened with dlopen at first use through
// support::DynamicLibrary, so that ufjit builds and runs without it
// (codegen/DeviceImage.h; codegen/Codegen.h: ptx_to_cubin).
#include <nvJitLink.h>

#include <iterator>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "codegen/DeviceImage.h"
#include "support/DynamicLibrary.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {

namespace {

/// The entry points of nvjitlink_functions.def, and why they are missing
/// when they are.
struct NvJitLinkApi {
#define UFJIT_DL_FN(symbol) decltype(&::symbol) symbol = nullptr;
#include "codegen/nvptx/nvjitlink_functions.def"
  std::string error;  // non-empty: not usable, and why
};

NvJitLinkApi load_api() {
  support::LibrarySpec spec{
      "nvJitLink",
      support::toolkit_library_candidates("nvJitLink", {13, 12}, "UFJIT_NVJITLINK"),
      "install the CUDA toolkit's nvJitLink (Debian/Ubuntu package libnvjitlink-13-0 from NVIDIA's repository, "
      "or the CUDA toolkit at /usr/local/cuda) or set UFJIT_NVJITLINK to the library's path"};
  return support::load_library_api<NvJitLinkApi>(spec, [](support::DynamicLibrary &lib, NvJitLinkApi &api) {
#define UFJIT_DL_FN(symbol) lib.resolve(#symbol, api.symbol);
#include "codegen/nvptx/nvjitlink_functions.def"
  });
}

const NvJitLinkApi &api() {
  static const NvJitLinkApi loaded = load_api();  // once per process, then read-only
  return loaded;
}

/// Destroys the link handle on every path out of link_device_image.
using LinkHandle = support::ScopedLibraryHandle<nvJitLinkHandle, decltype(&::nvJitLinkDestroy)>;

std::string error_log(const NvJitLinkApi &api, nvJitLinkHandle handle) {
  size_t size = 0;
  if (handle == nullptr || api.nvJitLinkGetErrorLogSize(handle, &size) != NVJITLINK_SUCCESS || size == 0) {
    return "";
  }
  std::string log(size, '\0');
  if (api.nvJitLinkGetErrorLog(handle, log.data()) != NVJITLINK_SUCCESS) {
    return "";
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) {
    log.pop_back();
  }
  return log;
}

[[noreturn]] void fail(const NvJitLinkApi &api, const LinkHandle &link, const char *call, nvJitLinkResult result,
                       const std::string &arch) {
  std::string message = std::string("nvJitLink ") + call + " failed (code " + std::to_string(result) + ") for " + arch;
  std::string log = error_log(api, link.get());
  if (!log.empty()) {
    message += ":\n" + log;
  }
  throw Error(message);
}

/// One output of a completed link: its size from `get_size`, then its
/// bytes from `get`; a failure names the call.
template <typename GetSize, typename Get>
std::string linked_output(const NvJitLinkApi &nv, const LinkHandle &link, const std::string &arch,
                          const char *size_call, GetSize get_size, const char *call, Get get) {
  size_t size = 0;
  nvJitLinkResult result = get_size(link.get(), &size);
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, size_call, result, arch);
  }
  std::string bytes(size, '\0');
  result = get(link.get(), bytes.data());
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, call, result, arch);
  }
  return bytes;
}

/// nvJitLink's input type and ufjit's name for each kind, indexed by
/// LinkInput::Kind.
struct LinkKindInfo {
  nvJitLinkInputType type;
  const char *name;
};

constexpr LinkKindInfo kLinkKinds[] = {
    {NVJITLINK_INPUT_PTX, "ptx"},
    {NVJITLINK_INPUT_CUBIN, "cubin"},
    {NVJITLINK_INPUT_LTOIR, "ltoir"},
    {NVJITLINK_INPUT_FATBIN, "fatbin"},
};
static_assert(std::size(kLinkKinds) == static_cast<std::size_t>(LinkInput::Kind::Fatbin) + 1);

/// Null for a value that is not a LinkInput::Kind.
const LinkKindInfo *link_kind_info(LinkInput::Kind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < std::size(kLinkKinds) ? &kLinkKinds[index] : nullptr;
}

nvJitLinkInputType input_type(LinkInput::Kind kind) {
  const LinkKindInfo *info = link_kind_info(kind);
  return info != nullptr ? info->type : NVJITLINK_INPUT_ANY;
}

void add(const NvJitLinkApi &nv, const LinkHandle &link, const LinkInput &input, const std::string &arch) {
  // nvJitLink reads PTX as a NUL-terminated string: pass the terminator.
  const std::size_t size = input.kind == LinkInput::Kind::Ptx ? input.bytes.size() + 1 : input.bytes.size();
  nvJitLinkResult result =
      nv.nvJitLinkAddData(link.get(), input_type(input.kind), input.bytes.c_str(), size, input.name.c_str());
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, "nvJitLinkAddData", result, arch + " (input " + input.name + ")");
  }
}

}  // namespace

const char *link_input_kind_name(LinkInput::Kind kind) {
  const LinkKindInfo *info = link_kind_info(kind);
  return info != nullptr ? info->name : "?";
}

bool DeviceImage::needs_lto() const {
  for (const LinkInput &input : inputs) {
    if (input.kind == LinkInput::Kind::LtoIr) {
      return true;
    }
  }
  return false;
}

bool nvjitlink_available() { return api().error.empty(); }

std::string link_device_image(const DeviceImage &image, const std::string &arch, LinkOutput output) {
  const NvJitLinkApi &nv = api();
  if (!nv.error.empty()) {
    throw Error(nv.error);
  }
  const bool lto = image.needs_lto();
  if (output == LinkOutput::Ptx && !lto) {
    throw Error("nvJitLink gives linked PTX only for an LTO link (an input in LTO-IR); this image has none");
  }
  std::vector<std::string> option_text = {"-arch=" + arch};
  if (lto) {
    option_text.emplace_back("-lto");
  }
  if (output == LinkOutput::Ptx) {
    option_text.emplace_back("-ptx");
  }
  std::vector<const char *> options;
  for (const std::string &option : option_text) {
    options.push_back(option.c_str());
  }
  // nvJitLink keeps each input's name pointer and reads it while it completes
  // the link (its error messages name the input): the input outlives the link.
  const LinkInput ptx_input{LinkInput::Kind::Ptx, image.ptx_name, image.ptx};
  LinkHandle link(nv.nvJitLinkDestroy);
  nvJitLinkResult result = nv.nvJitLinkCreate(link.address(), static_cast<uint32_t>(options.size()), options.data());
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, "nvJitLinkCreate", result, arch);
  }
  if (!image.ptx.empty()) {
    add(nv, link, ptx_input, arch);
  }
  for (const LinkInput &input : image.inputs) {
    add(nv, link, input, arch);
  }
  result = nv.nvJitLinkComplete(link.get());
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, "nvJitLinkComplete", result, arch);
  }
  if (output == LinkOutput::Ptx) {
    std::string bytes =
        linked_output(nv, link, arch, "nvJitLinkGetLinkedPtxSize", nv.nvJitLinkGetLinkedPtxSize,
                      "nvJitLinkGetLinkedPtx", nv.nvJitLinkGetLinkedPtx);
    while (!bytes.empty() && bytes.back() == '\0') {
      bytes.pop_back();
    }
    return bytes;
  }
  return linked_output(nv, link, arch, "nvJitLinkGetLinkedCubinSize", nv.nvJitLinkGetLinkedCubinSize,
                       "nvJitLinkGetLinkedCubin", nv.nvJitLinkGetLinkedCubin);
}

std::string ptx_to_cubin(const std::string &ptx, const std::string &arch) {
  DeviceImage image;
  image.ptx = ptx;
  return link_device_image(image, arch);
}

}  // namespace ufjit::codegen
