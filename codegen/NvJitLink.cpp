// PTX -> cubin through nvJitLink, opened with dlopen at first use so that
// ufjit builds and runs without it (codegen/Codegen.h: ptx_to_cubin).
#include <dlfcn.h>
#include <nvJitLink.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {

namespace {

// The entry points used, resolved by their unversioned names (exported by
// nvJitLink 12 and 13 alike).
struct NvJitLinkApi {
  using Create = nvJitLinkResult (*)(nvJitLinkHandle *, uint32_t, const char **);
  using Destroy = nvJitLinkResult (*)(nvJitLinkHandle *);
  using AddData = nvJitLinkResult (*)(nvJitLinkHandle, nvJitLinkInputType, const void *, size_t, const char *);
  using Complete = nvJitLinkResult (*)(nvJitLinkHandle);
  using GetSize = nvJitLinkResult (*)(nvJitLinkHandle, size_t *);
  using GetBytes = nvJitLinkResult (*)(nvJitLinkHandle, void *);
  using GetText = nvJitLinkResult (*)(nvJitLinkHandle, char *);

  std::string error;  // non-empty: not usable, and why
  std::string path;
  Create create = nullptr;
  Destroy destroy = nullptr;
  AddData add_data = nullptr;
  Complete complete = nullptr;
  GetSize cubin_size = nullptr;
  GetBytes cubin = nullptr;
  GetSize error_log_size = nullptr;
  GetText error_log = nullptr;
};

std::vector<std::string> candidate_paths() {
  std::vector<std::string> paths;
  if (const char *env = std::getenv("UFJIT_NVJITLINK"); env != nullptr && *env != '\0') {
    paths.emplace_back(env);
  }
  paths.emplace_back("libnvJitLink.so.13");
  paths.emplace_back("libnvJitLink.so");
  if (const char *home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    paths.push_back(std::string(home) + "/lib64/libnvJitLink.so.13");
    paths.push_back(std::string(home) + "/lib64/libnvJitLink.so");
  }
  paths.emplace_back("/usr/local/cuda/lib64/libnvJitLink.so.13");
  paths.emplace_back("/usr/local/cuda/lib64/libnvJitLink.so");
  return paths;
}

template <typename Fn>
bool resolve(void *handle, const char *name, Fn &out, std::string &error) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (out == nullptr) {
    error = std::string("nvJitLink lacks ") + name;
    return false;
  }
  return true;
}

NvJitLinkApi load_api() {
  NvJitLinkApi api;
  void *handle = nullptr;
  std::string tried;
  for (const std::string &path : candidate_paths()) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      api.path = path;
      break;
    }
    tried += tried.empty() ? path : ", " + path;
  }
  if (handle == nullptr) {
    api.error = "nvJitLink is not available (tried " + tried + "; set UFJIT_NVJITLINK)";
    return api;
  }
  // The handle stays open for the life of the process: the functions are
  // used until exit.
  bool ok = resolve(handle, "nvJitLinkCreate", api.create, api.error) &&
            resolve(handle, "nvJitLinkDestroy", api.destroy, api.error) &&
            resolve(handle, "nvJitLinkAddData", api.add_data, api.error) &&
            resolve(handle, "nvJitLinkComplete", api.complete, api.error) &&
            resolve(handle, "nvJitLinkGetLinkedCubinSize", api.cubin_size, api.error) &&
            resolve(handle, "nvJitLinkGetLinkedCubin", api.cubin, api.error) &&
            resolve(handle, "nvJitLinkGetErrorLogSize", api.error_log_size, api.error) &&
            resolve(handle, "nvJitLinkGetErrorLog", api.error_log, api.error);
  if (!ok) {
    api.error += " (" + api.path + ")";
  }
  return api;
}

const NvJitLinkApi &api() {
  static const NvJitLinkApi loaded = load_api();  // once per process, then read-only
  return loaded;
}

/// Destroys the link handle on every path out of ptx_to_cubin.
class LinkHandle {
 public:
  explicit LinkHandle(const NvJitLinkApi &api) : api_(api) {}
  ~LinkHandle() {
    if (handle_ != nullptr) {
      api_.destroy(&handle_);
    }
  }
  LinkHandle(const LinkHandle &) = delete;
  LinkHandle &operator=(const LinkHandle &) = delete;
  nvJitLinkHandle *address() { return &handle_; }
  nvJitLinkHandle get() const { return handle_; }

 private:
  const NvJitLinkApi &api_;
  nvJitLinkHandle handle_ = nullptr;
};

std::string error_log(const NvJitLinkApi &api, nvJitLinkHandle handle) {
  size_t size = 0;
  if (handle == nullptr || api.error_log_size(handle, &size) != NVJITLINK_SUCCESS || size == 0) {
    return "";
  }
  std::string log(size, '\0');
  if (api.error_log(handle, log.data()) != NVJITLINK_SUCCESS) {
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

}  // namespace

bool nvjitlink_available() { return api().error.empty(); }

std::string ptx_to_cubin(const std::string &ptx, const std::string &arch) {
  const NvJitLinkApi &nv = api();
  if (!nv.error.empty()) {
    throw Error(nv.error);
  }
  std::string arch_option = "-arch=" + arch;
  const char *options[] = {arch_option.c_str()};
  LinkHandle link(nv);
  nvJitLinkResult result = nv.create(link.address(), 1, options);
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, "nvJitLinkCreate", result, arch);
  }
  // nvJitLink reads PTX as a NUL-terminated string: pass the terminator.
  result = nv.add_data(link.get(), NVJITLINK_INPUT_PTX, ptx.c_str(), ptx.size() + 1, "ufjit.ptx");
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, "nvJitLinkAddData", result, arch);
  }
  result = nv.complete(link.get());
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, "nvJitLinkComplete", result, arch);
  }
  size_t size = 0;
  result = nv.cubin_size(link.get(), &size);
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, "nvJitLinkGetLinkedCubinSize", result, arch);
  }
  std::string cubin(size, '\0');
  result = nv.cubin(link.get(), cubin.data());
  if (result != NVJITLINK_SUCCESS) {
    fail(nv, link, "nvJitLinkGetLinkedCubin", result, arch);
  }
  return cubin;
}

}  // namespace ufjit::codegen
