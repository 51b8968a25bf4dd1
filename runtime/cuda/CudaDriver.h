// The CUDA driver API, opened with dlopen("libcuda.so.1") at first use so that
// libufjit links and its CPU target runs on machines with no GPU or driver
// (DESIGN.md "Dependencies"; jitify2's approach). cuda.h supplies the types
// and prototypes only: nothing links against libcuda.
//
// Every entry point is listed once in cuda_functions.def (STYLE.md item 12);
// CudaDriver holds one typed pointer per entry. Failures to load the driver,
// to initialise it, or to find a device become NoDeviceError with a one-line
// reason; a failing driver call becomes DeviceError naming the call, the
// CUresult and its text (STYLE.md item 13):
//   "CUDA error in cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (a PTX JIT
//    compilation failed)" followed by the JIT log when there is one.
#pragma once

#include <cuda.h>

#include <string>
#include <string_view>

namespace ufjit::cuda {

/// The resolved driver table. Immutable once loaded.
struct CudaDriver {
#define UFJIT_CU_FN(symbol) decltype(&::symbol) symbol = nullptr;
#include "runtime/cuda/cuda_functions.def"

  /// cuDriverGetVersion: 12080 for CUDA 12.8.
  int version = 0;
  /// dlopen handle; the library stays loaded for the life of the process
  /// (unloading a driver under live contexts is never safe).
  void *handle = nullptr;
};

/// The process's driver table, loaded and initialised (cuInit) on the first
/// call. The driver is a per-process resource, so this one immutable table
/// is shared; loading happens once (std::call_once). Throws NoDeviceError
/// with the reason when libcuda.so.1 cannot be opened, lacks an entry point,
/// or cuInit fails; every later call throws the same error.
const CudaDriver &driver();

/// Whether driver() succeeds, without throwing; `reason` receives the
/// NoDeviceError text when it does not.
bool driver_available(std::string *reason = nullptr);

/// "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)".
std::string describe_result(CUresult result);

/// Throws DeviceError: "CUDA error in <call>: <NAME> (<text>)", then `log`
/// (a JIT log) on the following lines when it is not empty.
[[noreturn]] void throw_cuda_error(const char *call, CUresult result, std::string_view log = {});

/// The checker behind UFJIT_CU_CHECK.
inline void check_result(CUresult result, const char *call) {
  if (result != CUDA_SUCCESS) {
    throw_cuda_error(call, result);
  }
}

}  // namespace ufjit::cuda

/// UFJIT_CU_CHECK(drv, cuMemAlloc_v2, &ptr, bytes): calls drv.cuMemAlloc_v2
/// and throws a DeviceError naming "cuMemAlloc_v2" when it fails.
#define UFJIT_CU_CHECK(drv, fn, ...) ::ufjit::cuda::check_result((drv).fn(__VA_ARGS__), #fn)
