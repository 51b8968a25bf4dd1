// dlopen/dlsym behind DynamicLibrary.
#include "support/DynamicLibrary.h"

#include <dlfcn.h>

#include <cstdlib>

namespace ufjit::support {

std::vector<std::string> toolkit_library_candidates(std::string_view stem, const std::vector<int> &majors,
                                                    const char *env_var) {
  std::vector<std::string> names;
  for (int major : majors) {
    names.push_back("lib" + std::string(stem) + ".so." + std::to_string(major));
  }
  names.push_back("lib" + std::string(stem) + ".so");
  std::vector<std::string> paths;
  if (const char *env = env_var != nullptr ? std::getenv(env_var) : nullptr; env != nullptr && *env != '\0') {
    paths.emplace_back(env);
  }
  paths.insert(paths.end(), names.begin(), names.end());
  if (const char *home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    for (const std::string &name : names) {
      paths.push_back(std::string(home) + "/lib64/" + name);
    }
  }
  for (const std::string &name : names) {
    paths.push_back("/usr/local/cuda/lib64/" + name);
  }
  return paths;
}

DynamicLibrary DynamicLibrary::open(const LibrarySpec &spec) {
  DynamicLibrary lib;
  lib.display_name_ = spec.display_name;
  lib.install_hint_ = spec.install_hint;
  std::string tried;
  std::string first_reason;
  for (const std::string &path : spec.candidates) {
    lib.handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle_ != nullptr) {
      lib.path_ = path;
      return lib;
    }
    if (first_reason.empty()) {
      const char *why = dlerror();
      first_reason = why != nullptr ? why : "unknown reason";
    }
    tried += tried.empty() ? path : ", " + path;
  }
  lib.error_ = spec.display_name + " is not available: dlopen failed (" + first_reason + "; tried " + tried + ")";
  if (!spec.install_hint.empty()) {
    lib.error_ += "; " + spec.install_hint;
  }
  return lib;
}

void *DynamicLibrary::find(const char *symbol) {
  if (handle_ == nullptr || !error_.empty()) {
    return nullptr;
  }
  void *address = dlsym(handle_, symbol);
  if (address == nullptr) {
    error_ = display_name_ + " at " + path_ + " lacks " + symbol + " (too old?)";
    if (!install_hint_.empty()) {
      error_ += "; " + install_hint_;
    }
  }
  return address;
}

}  // namespace ufjit::support
