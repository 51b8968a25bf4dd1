#include "runtime/cuda/ContextWarmUp.h"

#include <cstdint>
#include <string>

#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/CudaModule.h"

namespace ufjit::cuda {

namespace {

/// One thread of the parameterless warm-up entry on the legacy stream; false
/// when the driver refuses it.
bool launch_one_thread(const CudaKernel &kernel) noexcept {
  try {
    launch(kernel, LaunchConfig{}, nullptr);
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

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
    // Device scratch from the context's pool on the legacy stream, as a
    // small call on host arrays takes it (HostStaging's direct path).
    const CUdeviceptr scratch = context->allocate(256, nullptr);
    uint8_t value = 0;
    bool ready = drv.cuMemcpyHtoDAsync_v2(scratch, &value, 1, nullptr) == CUDA_SUCCESS &&
                 launch_one_thread(*kernel) && drv.cuMemcpyDtoHAsync_v2(&value, scratch, 1, nullptr) == CUDA_SUCCESS;
    context->free(scratch);
    // Waited for on every path: `value` and the module outlive what was enqueued.
    ready = drv.cuStreamSynchronize(nullptr) == CUDA_SUCCESS && ready;
    return ready ? kernel : nullptr;
  } catch (...) {
    return nullptr;  // a step the driver refused: the first call does that work itself
  }
}

}  // namespace ufjit::cuda
