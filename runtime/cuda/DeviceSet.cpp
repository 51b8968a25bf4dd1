// A Runtime's set of CUDA devices (RuntimeOptions::devices): one backend,
// and so one primary context with its own streams, pools, staging and
// loaded kernels, per device, and peer access between them where the
// hardware has it (docs/guide/cpp.md, "Several GPUs").
#include <algorithm>
#include <string>

#include "runtime/cuda/CudaBackend.h"
#include "runtime/cuda/CudaDriver.h"
#include "ufjit/errors.h"
#include "ufjit/runtime.h"

namespace ufjit::runtime {
namespace {

/// The ordinals `devices` names, every one checked against the host's `count`.
std::vector<int> resolve_device_set(const std::vector<int> &devices, int count) {
  if (std::find(devices.begin(), devices.end(), kAllDevices) != devices.end()) {
    if (devices.size() != 1) {
      throw InputError(
          "RuntimeOptions::devices names kAllDevices with other devices: give {kAllDevices} alone, "
          "or a list of ordinals");
    }
    std::vector<int> all;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      all.push_back(ordinal);
    }
    return all;
  }
  std::vector<int> resolved;
  for (int ordinal : devices) {
    if (ordinal < 0) {
      throw InputError("RuntimeOptions::devices holds " + std::to_string(ordinal) +
                       ": a CUDA device ordinal is 0 or more (kAllDevices alone: every device)");
    }
    if (std::find(resolved.begin(), resolved.end(), ordinal) != resolved.end()) {
      throw InputError("RuntimeOptions::devices names device " + std::to_string(ordinal) + " twice");
    }
    if (ordinal >= count) {
      throw NoDeviceError("no CUDA device " + std::to_string(ordinal) +
                          " for RuntimeOptions::devices: the driver "
                          "reports " +
                          std::to_string(count));
    }
    resolved.push_back(ordinal);
  }
  return resolved;
}

}  // namespace

std::vector<std::unique_ptr<Backend>> make_cuda_device_set(const BackendConfig &config,
                                                           const std::vector<int> &devices) {
  std::vector<std::unique_ptr<Backend>> set;
  if (devices.empty()) {
    set.push_back(make_cuda_backend(config));  // the one device, UFJIT_DEVICE applying
    return set;
  }
  const cuda::CudaDriver &drv = cuda::driver();
  int count = 0;
  UFJIT_CU_CHECK(drv, cuDeviceGetCount, &count);
  const std::vector<int> ordinals = resolve_device_set(devices, count);
  if (ordinals.empty()) {
    throw NoDeviceError("RuntimeOptions::devices is every device, and the driver reports none");
  }
  for (int ordinal : ordinals) {
    BackendConfig one = config;
    one.device = ordinal;
    one.exact_device = true;
    set.push_back(make_cuda_backend(one));
  }
  for (std::unique_ptr<Backend> &reader : set) {
    for (const std::unique_ptr<Backend> &owner : set) {
      if (reader != owner) {
        (void)enable_cuda_peer_access(*reader, *owner);
      }
    }
  }
  return set;
}

}  // namespace ufjit::runtime
