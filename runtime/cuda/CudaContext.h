// The primary context of one CUDA device, the streams and events of the
// public API (ufjit/device.h), and stream-ordered device memory.
//
// A Runtime uses its device's PRIMARY context (the one the CUDA runtime, CuPy
// and Numba share), retained for the Runtime's life and made current on
// whichever host thread calls in. Device memory comes from the device's
// default memory pool through cuMemAllocAsync, with the pool's release
// threshold raised so that steady-state calls reuse freed blocks instead of
// asking the driver for memory each time.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceBlockCache.h"
#include "ufjit/array.h"
#include "ufjit/device.h"

namespace ufjit::cuda {

/// What code generation and launch sizing need to know about a device.
struct DeviceProperties {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 1;
  int max_threads_per_block = 1024;
  std::size_t total_memory = 0;
  /// "sm_90".
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

/// Reads the properties of device `ordinal` (no context needed).
DeviceProperties query_device(const CudaDriver &drv, int ordinal);

/// The device ordinal to use: UFJIT_DEVICE when set (a non-negative integer),
/// else `requested`. Throws NoDeviceError when out of range.
int resolve_device_ordinal(const CudaDriver &drv, int requested);

/// A retained primary context. Shared (shared_ptr) by everything that needs
/// it to stay alive: streams, events and device allocations.
class CudaContext {
 public:
  /// Retains device `ordinal`'s primary context and configures its default
  /// memory pool. Throws NoDeviceError / DeviceError. `exact`: `ordinal` is
  /// a device set's, used as it is (else resolve_device_ordinal applies
  /// UFJIT_DEVICE).
  explicit CudaContext(int ordinal, bool exact = false);
  ~CudaContext();
  CudaContext(const CudaContext &) = delete;
  CudaContext &operator=(const CudaContext &) = delete;

  const CudaDriver &drv() const { return drv_; }
  const DeviceProperties &properties() const { return props_; }
  CUcontext handle() const { return context_; }

  /// Makes the context current on the calling thread (cheap when it is).
  void make_current() const;
  /// The same for destructors: failures are ignored.
  void make_current_noexcept() const noexcept;

  /// cuMemAllocAsync from the device's pool on `stream`. A failure throws
  /// DeviceError (CUDA_ERROR_OUT_OF_MEMORY) and allocates nothing.
  CUdeviceptr allocate(std::size_t bytes, CUstream stream) const;
  /// Synchronises the context and returns the pool's unused memory to the device.
  void trim_pool() const;
  /// cuMemFreeAsync on the legacy default stream, which orders the free
  /// after all earlier work on every blocking stream of the context (all of
  /// ufjit's streams are blocking), so memory still in use by an async call
  /// is never handed out early. Never throws.
  void free(CUdeviceptr ptr) const noexcept;

  /// A block of DeviceBlockCache::block_bytes(bytes) for the result of a
  /// synchronous call: an idle one of that size when there is one, else
  /// allocate() on the legacy stream. `bytes` must be cacheable().
  CUdeviceptr allocate_block(std::size_t bytes) const;
  /// Gives back a block from allocate_block (of `block` bytes): kept idle
  /// for reuse, or freed when the cache is full. Never throws.
  void recycle_block(CUdeviceptr ptr, std::size_t block) const noexcept;

 private:
  /// Frees every idle block (for trim_pool and the destructor).
  void free_idle_blocks() const noexcept;

  const CudaDriver &drv_;
  DeviceProperties props_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  mutable DeviceBlockCache blocks_;
};

/// The driver's spelling of a device address an ArrayView holds.
inline CUdeviceptr device_address(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

/// Where a device allocation's memory comes from and goes back to.
enum class DeviceMemory {
  StreamOrdered,  // cuMemAllocAsync / cuMemFreeAsync through the driver's pool
  CachedBlock,    // CudaContext::allocate_block / recycle_block (sync-call results)
};

/// The Array::Holder of a device allocation: frees it the way it came.
class DeviceAllocation : public Array::Holder {
 public:
  DeviceAllocation(std::shared_ptr<const CudaContext> context, CUdeviceptr ptr, std::size_t bytes,
                   DeviceMemory memory = DeviceMemory::StreamOrdered)
      : context_(std::move(context)), ptr_(ptr), bytes_(bytes), memory_(memory) {}
  ~DeviceAllocation() override;
  DeviceAllocation(const DeviceAllocation &) = delete;
  DeviceAllocation &operator=(const DeviceAllocation &) = delete;
  CUdeviceptr ptr() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<const CudaContext> context_;
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;  // a CachedBlock's whole block
  DeviceMemory memory_;
};

/// A C-contiguous (or Fortran-ordered) device array of `shape`, allocated on
/// `stream`. Zero elements allocate nothing (data is null).
Array allocate_device_array(const std::shared_ptr<const CudaContext> &context, DType dtype,
                            const Dims &shape, bool fortran_order, CUstream stream);

/// A C-contiguous device array for the result of a synchronous call: small
/// ones from the context's idle blocks (DeviceBlockCache.h), others as
/// allocate_device_array on the legacy stream.
Array allocate_sync_result(const std::shared_ptr<const CudaContext> &context, DType dtype,
                           const Dims &shape);

/// A new blocking stream of `context`, wrapped in the public RAII type.
Stream make_stream(const std::shared_ptr<const CudaContext> &context);

/// A public Stream wrapping `cu_stream`, which the caller owns: destroying
/// the Stream leaves it alone.
Stream borrow_stream(const std::shared_ptr<const CudaContext> &context, void *cu_stream);

/// The CUstream of a public stream (null: the legacy default stream).
CUstream stream_handle(const StreamImpl *impl);

}  // namespace ufjit::cuda

namespace ufjit {

/// Defined here for the public Stream (ufjit/device.h).
struct StreamImpl {
  std::shared_ptr<const cuda::CudaContext> context;
  CUstream stream = nullptr;
  bool owned = true;  // false for a borrowed stream (Runtime::borrow_stream)
  /// Checks of async calls that can raise (runtime/cuda/RaiseFlag.h), run by
  /// the next Stream::synchronize after its cuStreamSynchronize.
  std::vector<std::function<void()>> pending_raises;
  ~StreamImpl();
};

/// Defined here for the public Event. The CUevent is created lazily, in the
/// context of the first stream it is recorded on.
struct EventImpl {
  std::shared_ptr<const cuda::CudaContext> context;
  CUevent event = nullptr;
  ~EventImpl();
};

}  // namespace ufjit
