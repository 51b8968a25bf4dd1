// A new CUDA context made ready for its first call. The driver does much of
// its per-context and per-process work lazily, at the first time each thing
// is asked of it, and a process's first ufjit call used to pay all of it
// inside its 0.5 ms disk-warm budget. Measured on an H100 and an H200
// (2026-11-26, a driver-API-only experiment in fresh processes, then ufjit):
// - the first module with global data that a context loads: 0.15-0.25 ms for
//   cuModuleLoadData + cuModuleGetFunction, against 0.05-0.09 ms for a later
//   module of the same size; a module without global data does not do that
//   work for the next one. Every kernel ufjit builds has global data (its
//   launch hint, codegen/LaunchHint.h);
// - the first launch, and the first copy from pageable memory each way;
// - the memory pool's first allocation: 6-9 ms, which a first call on host
//   arrays paid whenever nothing had been allocated on the device before it.
//
// So the backend, right after making its context (200 ms), loads one tiny
// cubin with a global through load_kernel, takes 256 bytes of device scratch
// from the context's pool, launches its empty kernel once and copies one byte
// each way on the legacy stream, the path of a small call on host arrays
// (HostStaging's direct path): 7-13 ms, most of it the pool. The cubins are
// built by the CUDA toolkit's ptxas when ufjit is configured, one per SASS
// family (cmake/UfjitWarmUpCubins.cmake), and embedded. A device none of them
// runs on, a build without ptxas, or any failed step skips the warm-up: the
// first call then does that work itself, as before.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace ufjit::cuda {

class CudaContext;
struct CudaKernel;

/// One embedded cubin: built for sm_<arch> (75, 80, 90, ...).
struct WarmUpCubin {
  int arch = 0;
  const unsigned char *data = nullptr;
  std::size_t size = 0;
};

/// Every cubin this build embedded (generated at configure time).
std::span<const WarmUpCubin> warm_up_cubins();

/// The embedded cubin a device of compute capability major.minor runs:
/// SASS runs on its own major version from its minor on, so the one of the
/// same major with the highest minor not above the device's. Null if none.
const WarmUpCubin *warm_up_cubin_for(std::span<const WarmUpCubin> cubins, int cc_major, int cc_minor);

/// The entry of every warm-up cubin (with its launch hint, like a real entry).
inline constexpr const char *kWarmUpEntry = "ufjit_warm_up__module";

/// Loads, launches and copies as above on `context` (current on this
/// thread afterwards) and returns the loaded warm-up kernel, which the
/// caller keeps for the context's life. Null, with nothing left loaded, when
/// there is no cubin for the device or the driver refuses a step. Never throws.
std::shared_ptr<CudaKernel> warm_up_context(const std::shared_ptr<const CudaContext> &context) noexcept;

}  // namespace ufjit::cuda
