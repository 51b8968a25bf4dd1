// The CUDA target's Backend (runtime/Backend.h hooks).
//
// For the runtime engineer: the factory is
//   std::unique_ptr<ufjit::runtime::Backend>
//   ufjit::runtime::make_cuda_backend(const ufjit::runtime::BackendConfig &config);
// It throws NoDeviceError (one-line reason) when the driver cannot be loaded,
// cuInit fails or the device does not exist; the CPU target is unaffected.
//
// Kernels: codegen::emit_ptx for the call's variant -> the disk cache (cubins
// from the driver's linker) -> cuModuleLoadDataEx -> cuModuleGetFunction, one
// module per (kernel, context), kept in the Runtime's KernelCache. The hot
// path of a call on device arrays takes a shared lock on a small map keyed by
// (IR hash, entry name hash, variant) and allocates nothing but the kernel
// parameters. Synchronous calls run on the legacy default stream; host
// operands go through HostStaging.
#pragma once

#include <memory>
#include <vector>

#include "runtime/Backend.h"
#include "runtime/cache/DiskCache.h"

namespace ufjit::runtime {

std::unique_ptr<Backend> make_cuda_backend(const BackendConfig &config);

/// Enables peer access from `reader`'s context to `owner`'s memory (both
/// CUDA backends) where the hardware allows it; returns whether `reader`'s
/// kernels may now use `owner`'s memory in place (Backend::reads_device).
bool enable_cuda_peer_access(Backend &reader, const Backend &owner);

/// One CUDA backend per ordinal of `devices` (RuntimeOptions::devices:
/// kAllDevices is every device of the host), in order, with peer access
/// enabled between every pair whose hardware allows it. InputError for a
/// repeated or negative ordinal, NoDeviceError for one the host lacks.
std::vector<std::unique_ptr<Backend>> make_cuda_device_set(const BackendConfig &config,
                                                           const std::vector<int> &devices);

/// The disk-cache counters of a CUDA backend (hits, misses, stores, ...);
/// zeros for any other backend. For `ufjit info`, logs and tests.
cache::DiskCacheCounters cuda_disk_cache_counters(const Backend &backend);

}  // namespace ufjit::runtime
