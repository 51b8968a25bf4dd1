#include "runtime/cuda/PinnedPool.h"

#include "runtime/Backend.h"

namespace ufjit::cuda {
namespace {

/// Smaller results gain nothing from DMA (a staged copy is microseconds).
constexpr std::size_t kMinPinnedBytes = std::size_t{1} << 20;
/// One result larger than this stays pageable: pinning it would take memory
/// from the whole system for as long as the user keeps the array.
constexpr std::size_t kMaxPinnedBytes = std::size_t{1} << 30;
/// Idle blocks kept for reuse, in bytes, at the most.
constexpr std::size_t kMaxIdleBytes = std::size_t{1} << 30;
/// Block sizes are rounded up to this, so that nearby sizes share blocks.
constexpr std::size_t kGranule = std::size_t{2} << 20;

}  // namespace

struct PinnedPool::State {
  explicit State(std::shared_ptr<const CudaContext> c) : context(std::move(c)) {}
  ~State() {
    context->make_current_noexcept();
    for (auto &[bytes, block] : idle) {
      context->drv().cuMemFreeHost(block);
    }
  }

  void *take(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = idle.find(bytes);
      if (it != idle.end()) {
        void *block = it->second;
        idle.erase(it);
        idle_bytes -= bytes;
        return block;
      }
    }
    context->make_current();
    void *block = nullptr;
    // Portable: page-locked for every context, so that the other devices of
    // a set copy a split call's parts straight into it too (DeviceSplit.h).
    CUresult result = context->drv().cuMemHostAlloc(&block, bytes, CU_MEMHOSTALLOC_PORTABLE);
    if (result != CUDA_SUCCESS) {
      return nullptr;  // the caller falls back to pageable memory
    }
    return block;
  }

  void give_back(void *block, std::size_t bytes) noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (idle_bytes + bytes <= kMaxIdleBytes) {
        idle.emplace(bytes, block);
        idle_bytes += bytes;
        return;
      }
    }
    context->make_current_noexcept();
    context->drv().cuMemFreeHost(block);
  }

  std::shared_ptr<const CudaContext> context;  // pinned memory lives as long as its context
  std::mutex mutex;
  std::multimap<std::size_t, void *> idle;
  std::size_t idle_bytes = 0;
};

namespace {

/// Owns one pinned block; returns it to the pool (which it keeps alive).
class PinnedBlock final : public Array::Holder {
 public:
  PinnedBlock(std::shared_ptr<PinnedPool::State> state, void *block, std::size_t bytes)
      : state_(std::move(state)), block_(block), bytes_(bytes) {}
  ~PinnedBlock() override { state_->give_back(block_, bytes_); }
  PinnedBlock(const PinnedBlock &) = delete;
  PinnedBlock &operator=(const PinnedBlock &) = delete;

 private:
  std::shared_ptr<PinnedPool::State> state_;
  void *block_;
  std::size_t bytes_;
};

}  // namespace

PinnedPool::PinnedPool(std::shared_ptr<const CudaContext> context)
    : state_(std::make_shared<State>(std::move(context))) {}

PinnedPool::~PinnedPool() = default;

Array PinnedPool::allocate(DType dtype, const Dims &shape) {
  ArrayView view = runtime::c_contiguous_host_view(dtype, shape);
  const auto bytes = static_cast<std::size_t>(view.size()) * dtype_size(dtype);
  if (bytes < kMinPinnedBytes || bytes > kMaxPinnedBytes) {
    return runtime::allocate_host(dtype, shape);
  }
  const std::size_t rounded = (bytes + kGranule - 1) / kGranule * kGranule;
  void *block = state_->take(rounded);
  if (block == nullptr) {
    return runtime::allocate_host(dtype, shape);
  }
  std::shared_ptr<PinnedBlock> holder;
  try {
    holder = std::make_shared<PinnedBlock>(state_, block, rounded);
  } catch (...) {
    state_->give_back(block, rounded);
    throw;
  }
  view.data = block;
  return Array(std::move(view), std::move(holder));
}

}  // namespace ufjit::cuda
