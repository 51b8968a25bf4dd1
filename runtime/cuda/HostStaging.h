// Host operands of CUDA calls: pinned staging buffers, chunks, and overlap.
//
// Pageable host memory moves at a fraction of the bus speed, so host operands
// are copied (by several CPU threads) into pinned buffers that the copy
// engines read at full speed. A call is cut into chunks of a few MiB per
// operand; three slots, each with its own stream, event and pinned/device
// buffers, let the copy-in of chunk k+1, the kernel of chunk k and the
// copy-out of chunk k-1 run at once (DESIGN.md "Memory"). The pinned buffers
// are kept for the backend's life and grow on demand; one staged transfer
// runs at a time (a mutex), as the bus is the shared resource anyway.
#pragma once

#include <cuda.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/Backend.h"
#include "runtime/ThreadPool.h"
#include "runtime/cuda/CudaContext.h"

namespace ufjit::cuda {

/// Enqueues the kernel for elements [begin, begin + count) of a call on
/// `stream`: `inputs[i]` is the device address of input i's first element of
/// the chunk (null for scalars), `output` the output's.
using ChunkLaunch = std::function<void(const std::vector<const void *> &inputs, void *output, int64_t begin,
                                       int64_t count, CUstream stream)>;

class HostStaging {
 public:
  explicit HostStaging(std::shared_ptr<const CudaContext> context);
  ~HostStaging();
  HostStaging(const HostStaging &) = delete;
  HostStaging &operator=(const HostStaging &) = delete;

  /// Runs a contiguous call (every array operand 1-D, stride == itemsize)
  /// whose operands may be on the host or the device, chunk by chunk; returns
  /// when the output (host or device) is complete.
  void run_contiguous(const runtime::PreparedCall &call, const ChunkLaunch &launch_chunk);

  /// Host -> device and device -> host copies of contiguous bytes through
  /// the pinned buffers; return when the copy is complete. Like
  /// run_contiguous, they order after all earlier work of the legacy stream
  /// and of every blocking stream (an async call's kernel included).
  void copy_to_device(CUdeviceptr dst, const void *src, std::size_t bytes);
  void copy_to_host(void *dst, CUdeviceptr src, std::size_t bytes);

 private:
  static constexpr int kSlots = 3;
  struct Slot {
    CUstream stream = nullptr;
    CUevent done = nullptr;
    int64_t in_flight = -1;  // chunk index using this slot, or -1
  };
  struct CopyTask {
    void *dst;
    const void *src;
    std::size_t bytes;
  };

  using DirectCopy = std::function<void(const CudaDriver &drv)>;
  using ChunkedCopy = std::function<void(const CudaDriver &drv, char *pinned, std::size_t chunk)>;
  /// The frame of copy_to_device and copy_to_host, under the lock: a
  /// page-locked `host` buffer is copied by `direct` alone (then
  /// synchronized); any other goes through `chunked`, given the pinned slots
  /// of `chunk` bytes each, after the legacy stream's earlier work.
  void staged_copy(const void *host, std::size_t bytes, const DirectCopy &direct, const ChunkedCopy &chunked);
  /// Makes the pinned buffer at least kSlots * `slot_bytes`; returns slot 0's.
  char *ensure_pinned(std::size_t slot_bytes);
  /// memcpy of every task, split over the copy threads when large.
  void parallel_copy(const std::vector<CopyTask> &tasks);
  /// Waits for a slot's last chunk (throws DeviceError if it failed).
  void wait(Slot &slot);
  /// After a failure: waits for every slot without throwing.
  void drain_noexcept() noexcept;
  /// Makes every slot's stream wait for an event recorded on the legacy
  /// stream, which itself waits for all earlier work of every blocking
  /// stream. Blocking streams do not wait for each other: without this, a
  /// staged call could read a device operand that an async call on a user
  /// stream is still writing.
  void order_after_legacy_stream();

  std::shared_ptr<const CudaContext> context_;
  std::mutex mutex_;
  std::array<Slot, kSlots> slots_{};
  CUevent legacy_mark_ = nullptr;
  char *pinned_ = nullptr;
  std::size_t pinned_bytes_ = 0;
  runtime::ThreadPool copy_pool_;
};

}  // namespace ufjit::cuda
