// Loading the CUDA driver with dlopen and turning CUresults into exceptions.
#include "runtime/cuda/CudaDriver.h"

#include <mutex>
#include <string>

#include "support/DynamicLibrary.h"
#include "ufjit/errors.h"

namespace ufjit::cuda {
namespace {

/// The outcome of the one load attempt: a table or the reason there is none.
struct LoadResult {
  CudaDriver driver;
  std::string failure;  // empty on success
};

std::string result_name(const CudaDriver &drv, CUresult result) {
  const char *name = nullptr;
  if (drv.cuGetErrorName != nullptr && drv.cuGetErrorName(result, &name) == CUDA_SUCCESS && name != nullptr) {
    return name;
  }
  return "CUresult " + std::to_string(static_cast<int>(result));
}

std::string result_text(const CudaDriver &drv, CUresult result) {
  const char *text = nullptr;
  if (drv.cuGetErrorString != nullptr && drv.cuGetErrorString(result, &text) == CUDA_SUCCESS &&
      text != nullptr) {
    return text;
  }
  return "unknown error";
}

/// Where the driver comes from: only the versioned soname the driver
/// package installs (the toolkit's libcuda.so is a link-time stub).
support::LibrarySpec driver_spec() {
  return {"CUDA driver", {"libcuda.so.1"},
          "install the NVIDIA driver (it provides libcuda.so.1), or use the CPU target"};
}

LoadResult load_driver() {
  LoadResult out;
  CudaDriver &drv = out.driver;
  support::DynamicLibrary lib = support::DynamicLibrary::open(driver_spec());
  if (!lib.ok()) {
    out.failure = lib.error();
    return out;
  }
  drv.handle = lib.handle();
#define UFJIT_CU_FN(symbol) lib.resolve(#symbol, drv.symbol);
#include "runtime/cuda/cuda_functions.def"
  if (!lib.ok()) {
    out.failure = lib.error();
    return out;
  }
  CUresult init = drv.cuInit(0);
  if (init != CUDA_SUCCESS) {
    out.failure = "CUDA driver unusable: cuInit failed with " + result_name(drv, init) + " (" +
                  result_text(drv, init) + ")";
    return out;
  }
  if (drv.cuDriverGetVersion(&drv.version) != CUDA_SUCCESS) {
    drv.version = 0;
  }
  int count = 0;
  CUresult counted = drv.cuDeviceGetCount(&count);
  if (counted != CUDA_SUCCESS || count == 0) {
    out.failure = "no CUDA device: the driver reports none";
    return out;
  }
  return out;
}

const LoadResult &load_once() {
  // The driver is a process-wide resource: one immutable table, built once.
  static std::once_flag once;
  static LoadResult result;
  std::call_once(once, [] { result = load_driver(); });
  return result;
}

std::string display_name(const char *call) {
  std::string name = call;
  const std::string suffix = "_v2";
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    name.resize(name.size() - suffix.size());
  }
  return name;
}

}  // namespace

const CudaDriver &driver() {
  const LoadResult &loaded = load_once();
  if (!loaded.failure.empty()) {
    throw NoDeviceError(loaded.failure);
  }
  return loaded.driver;
}

bool driver_available(std::string *reason) {
  const LoadResult &loaded = load_once();
  if (reason != nullptr) {
    *reason = loaded.failure;
  }
  return loaded.failure.empty();
}

std::string describe_result(CUresult result) {
  const CudaDriver &drv = load_once().driver;
  return result_name(drv, result) + " (" + result_text(drv, result) + ")";
}

void throw_cuda_error(const char *call, CUresult result, std::string_view log) {
  std::string message = "CUDA error in " + display_name(call) + ": " + describe_result(result);
  if (!log.empty()) {
    message += "\n";
    message += log;
  }
  throw DeviceError(message);
}

}  // namespace ufjit::cuda
