// Kernels on the GPU: PTX -> cubin through the driver's linker (cuLink*),
// the disk cache in between, cubin -> CUmodule -> CUfunction, and the launch
// geometry from the occupancy API. Every PTX/cubin load passes JIT log
// buffers and a failure carries the log (STYLE.md item 13).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/Backend.h"
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/LaunchConfig.h"

namespace ufjit::cache {
class DiskCache;
}

namespace ufjit::cuda {

/// One loaded kernel: its module (one per context), function and launch
/// geometry. Unloads the module when the last user drops it.
struct CudaKernel : runtime::CompiledKernel {
  std::shared_ptr<const CudaContext> context;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  /// Block (cuOccupancyMaxPotentialBlockSize), grid cap and the entry's
  /// launch hint (codegen/kernel/KernelABI.h's LaunchHint, read from the module):
  /// what runtime/cuda/LaunchConfig.h sizes its launches from.
  KernelGeometry geometry;
  ~CudaKernel() override;
};

/// PTX -> cubin with the driver's linker for the current context's device.
/// Throws DeviceError with the linker's error log.
std::string link_ptx(const CudaContext &context, const std::string &ptx, const std::string &name);

/// Where an entry's launch hint comes from (codegen/LaunchHint.h).
enum class HintSource : uint8_t {
  InModule,  // an entry ufjit's code generator built: read its hint symbol
  None,      // a CUDA C++ entry (NVRTC): the capped grid
};

/// Loads a cubin (or PTX) image into the context and finds `entry`. Throws
/// DeviceError with the JIT log.
std::shared_ptr<CudaKernel> load_kernel(const std::shared_ptr<const CudaContext> &context,
                                        const std::string &image, const std::string &entry, HintSource hints);

/// Enqueues `kernel` with `config` (grid, block, dynamic shared memory,
/// stream) and `params` (cuLaunchKernel's kernelParams: params[k] points at
/// parameter k). The library's one call of cuLaunchKernel. Throws DeviceError.
void launch(const CudaKernel &kernel, const LaunchConfig &config, void *const *params);

/// Enqueues an elementwise or gufunc entry over `n` (outer) elements on
/// `stream`, sized by runtime/cuda/LaunchConfig.h's launch_config.
inline void launch(const CudaKernel &kernel, int64_t n, void *const *params, CUstream stream) {
  launch(kernel, launch_config(kernel.geometry, n, stream), params);
}

}  // namespace ufjit::cuda
