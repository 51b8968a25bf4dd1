// One way to open the optional CUDA libraries (the driver, NVRTC, nvJitLink)
// with dlopen at first use, so that libufjit links, and its CPU target runs,
// on machines without them (DESIGN.md "Dependencies"; STYLE.md item 18,
// jitify2's approach).
//
// Each library lists its entry points once in a `.def` table of
// `UFJIT_DL_FN(symbol)` lines (runtime/cuda/cuda_functions.def uses its own
// macro name, UFJIT_CU_FN). The user of a table expands it twice: into typed
// members (`decltype(&::symbol) symbol = nullptr;`) and into
// `library.resolve(#symbol, table.symbol)`. A library that is missing, or
// lacks an entry, gives one line that says which library, what was tried and
// how to get it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ufjit::support {

/// What to look for: the library's display name, the file names dlopen
/// tries in order, and the words that tell a user how to get it.
struct LibrarySpec {
  std::string display_name;             // "NVRTC"
  std::vector<std::string> candidates;  // "libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so", ...
  std::string install_hint;             // "install the CUDA toolkit's NVRTC (...) or set UFJIT_NVRTC"
};

/// The candidates for a CUDA toolkit library `stem` ("nvrtc", "nvJitLink"):
/// the path in environment variable `env_var` when set, then
/// `lib<stem>.so.<major>` for each major version, `lib<stem>.so`, and the same
/// names under $CUDA_HOME/lib64 and the toolkit found at build time
/// (/usr/local/cuda/lib64).
std::vector<std::string> toolkit_library_candidates(std::string_view stem, const std::vector<int> &majors,
                                                    const char *env_var);

/// A library opened with dlopen, or the reason it is not. The handle stays
/// open for the life of the process: resolved functions are used until exit
/// (and unloading a driver under live contexts is never safe).
class DynamicLibrary {
 public:
  /// Opens the first candidate dlopen accepts (RTLD_NOW | RTLD_LOCAL).
  static DynamicLibrary open(const LibrarySpec &spec);

  bool ok() const { return error_.empty(); }
  /// Empty when usable; else one line: "NVRTC is not available: no
  /// libnvrtc.so.13 (tried ...); install ...".
  const std::string &error() const { return error_; }
  /// The candidate that opened.
  const std::string &path() const { return path_; }
  void *handle() const { return handle_; }

  /// Looks `symbol` up into `fn`. On the first missing symbol, records
  /// "<library> at <path> lacks <symbol>; <hint>" as the error and returns
  /// false; later calls then do nothing and return false.
  template <typename Fn>
  bool resolve(const char *symbol, Fn &fn) {
    fn = reinterpret_cast<Fn>(find(symbol));
    return fn != nullptr;
  }

 private:
  void *find(const char *symbol);

  std::string display_name_;
  std::string install_hint_;
  std::string path_;
  std::string error_;
  void *handle_ = nullptr;
};

/// Opens `spec` and fills the entry-point table `Api` (a struct of typed
/// members and `std::string error`): `resolve_all(library, api)` expands the
/// library's `.def` table into `library.resolve(#symbol, api.symbol)` lines.
/// `api.error` is empty when every entry point was found, else why not.
template <typename Api, typename ResolveAll>
Api load_library_api(const LibrarySpec &spec, ResolveAll resolve_all) {
  DynamicLibrary library = DynamicLibrary::open(spec);
  Api api;
  resolve_all(library, api);
  api.error = library.error();
  return api;
}

/// A handle made by a library (an nvrtcProgram, an nvJitLinkHandle) that its
/// `destroy` entry point frees on every path out of the scope that made it.
template <typename Handle, typename Destroy>
class ScopedLibraryHandle {
 public:
  explicit ScopedLibraryHandle(Destroy destroy) : destroy_(destroy) {}
  ~ScopedLibraryHandle() {
    if (handle_ != nullptr) {
      destroy_(&handle_);
    }
  }
  ScopedLibraryHandle(const ScopedLibraryHandle &) = delete;
  ScopedLibraryHandle &operator=(const ScopedLibraryHandle &) = delete;
  Handle *address() { return &handle_; }
  Handle get() const { return handle_; }

 private:
  Destroy destroy_;
  Handle handle_ = nullptr;
};

}  // namespace ufjit::support
