// device_info() for `ufjit info`: the driver and its devices, never throwing.
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/CudaDriver.h"
#include "ufjit/cache.h"
#include "ufjit/errors.h"

namespace ufjit {

DriverInfo device_info() {
  DriverInfo info;
  if (!cuda::driver_available(&info.reason)) {
    return info;
  }
  try {
    const cuda::CudaDriver &drv = cuda::driver();
    info.driver_version = drv.version;
    info.driver_version_string = std::to_string(drv.version / 1000) + "." + std::to_string(drv.version % 1000 / 10);
    int count = 0;
    UFJIT_CU_CHECK(drv, cuDeviceGetCount, &count);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      cuda::DeviceProperties props = cuda::query_device(drv, ordinal);
      DeviceInfo dev;
      dev.ordinal = ordinal;
      dev.name = props.name;
      dev.cc_major = props.cc_major;
      dev.cc_minor = props.cc_minor;
      dev.arch = props.arch();
      dev.sm_count = props.sm_count;
      dev.total_memory = props.total_memory;
      info.devices.push_back(std::move(dev));
    }
    info.available = !info.devices.empty();
  } catch (const Error &e) {
    info.available = false;
    info.reason = e.what();
  }
  return info;
}

}  // namespace ufjit
