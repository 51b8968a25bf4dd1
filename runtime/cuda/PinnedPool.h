// Page-locked host memory for the results of CUDA calls on host operands.
//
// A result that the runtime allocates on the host is written by the copy
// engines straight from device memory when it is page-locked, instead of
// through a staging buffer and a CPU copy (which, with the page faults of
// fresh memory, costs more than the transfer itself). Pinning is slow
// (milliseconds per hundred MiB), so blocks are kept and reused when the
// Array that held one is destroyed, up to a cap; blocks outside the size
// range come from ordinary (pageable) memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/cuda/CudaContext.h"
#include "ufjit/array.h"

namespace ufjit::cuda {

class PinnedPool {
 public:
  explicit PinnedPool(std::shared_ptr<const CudaContext> context);
  ~PinnedPool();
  PinnedPool(const PinnedPool &) = delete;
  PinnedPool &operator=(const PinnedPool &) = delete;

  /// A C-contiguous host array, page-locked when its size suits the pool.
  Array allocate(DType dtype, const Dims &shape);

  struct State;  // the idle blocks; shared with the holders of live ones

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ufjit::cuda
