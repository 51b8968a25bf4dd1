#include "runtime/cuda/ContextWarmUp.h"

#include <cstdint>
#include <string>

#include "codegen/LaunchHint.h"
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/CudaModule.h"

namespace ufjit::cuda {

const WarmUpCubin *warm_up_cubin_for(std::span<const WarmUpCubin> cubins, int cc_major, int cc_minor) {
  const int device = cc_major * 10 + cc_minor;
  const WarmUpCubin *best = nullptr;
  for (const WarmUpCubin &c : cubins) {
    if (c.arch / 10 == cc_major && c.arch <= device && (best == nullptr || c.arch > best->arch)) {
      best = &c;
    }
  }
  return best;
}

std::shared_ptr<CudaKernel> warm_up_context(const std::shared_ptr<const CudaContext> &context) noexcept {
  try {
    const DeviceProperties &props = context->properties();
    const WarmUpCubin *cubin = warm_up_cubin_for(warm_up_cubins(), props.cc_major, props.cc_minor);
    if (cubin == nullptr) {
      return nullptr;
    }
    const std::string image(reinterpret_cast<const char *>(cubin->data), cubin->size);
    std::shared_ptr<CudaKernel> kernel = load_kernel(context, image, kWarmUpEntry, HintSource::InModule);
    const CudaDriver &drv = context->drv();
    // The hint's byte is the copies' device end: its size is the hint, its
    // value is never read.
    CUdeviceptr byte = 0;
    std::size_t bytes = 0;
    const std::string hint = codegen::launch_hint_symbol(kWarmUpEntry);
    uint8_t value = 0;
    bool ready = drv.cuModuleGetGlobal_v2(&byte, &bytes, kernel->module, hint.c_str()) == CUDA_SUCCESS &&
                 drv.cuMemcpyHtoDAsync_v2(byte, &value, 1, nullptr) == CUDA_SUCCESS &&
                 drv.cuLaunchKernel(kernel->function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr) == CUDA_SUCCESS &&
                 drv.cuMemcpyDtoHAsync_v2(&value, byte, 1, nullptr) == CUDA_SUCCESS;
    // Waited for on every path: `value` and the module outlive what was enqueued.
    ready = drv.cuStreamSynchronize(nullptr) == CUDA_SUCCESS && ready;
    return ready ? kernel : nullptr;
  } catch (...) {
    return nullptr;  // a driver that refuses the cubin: the first real load does the work
  }
}

}  // namespace ufjit::cuda
