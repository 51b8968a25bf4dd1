// Done flags of one-block synchronous launches (see DoneFlags.h).
#include "runtime/cuda/DoneFlags.h"

#include <bit>

#include "support/InternalAssert.h"

namespace ufjit::cuda {

namespace {

constexpr std::size_t kPageBytes = 4096;

/// A pause between reads of the flag: the host thread yields its core's
/// pipeline to a sibling hyperthread while it waits (tens of nanoseconds).
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

static_assert(DoneFlags::kFlags * 64 <= kPageBytes, "every flag on its own line of one page");

DoneFlags::~DoneFlags() {
  if (host_ != nullptr) {
    context_->make_current_noexcept();
    context_->drv().cuMemFreeHost(host_);
  }
}

void DoneFlags::prepare() noexcept {
  std::call_once(prepared_, [this] { allocate_page(); });
}

void DoneFlags::allocate_page() noexcept {
  const CudaDriver &drv = context_->drv();
  int can_map = 0;
  if (drv.cuDeviceGetAttribute(&can_map, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY,
                               context_->properties().ordinal) != CUDA_SUCCESS ||
      can_map == 0) {
    return;
  }
  context_->make_current_noexcept();
  void *page = nullptr;
  if (drv.cuMemHostAlloc(&page, kPageBytes, CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS) {
    return;
  }
  CUdeviceptr device = 0;
  if (drv.cuMemHostGetDevicePointer_v2(&device, page, 0) != CUDA_SUCCESS) {
    drv.cuMemFreeHost(page);
    return;
  }
  host_ = static_cast<uint32_t *>(page);
  device_ = reinterpret_cast<char *>(static_cast<uintptr_t>(device));
  ready_.store(true, std::memory_order_release);
}

DoneFlags::Flag DoneFlags::claim() const {
  if (!ready_.load(std::memory_order_acquire)) {
    return {};
  }
  uint64_t free = free_.load(std::memory_order_relaxed);
  while (free != 0) {
    const int index = std::countr_zero(free);
    if (free_.compare_exchange_weak(free, free & ~(uint64_t{1} << index), std::memory_order_acquire,
                                    std::memory_order_relaxed)) {
      // No kernel targets a free word: the last one given it was seen to
      // store it, or its stream synchronised, before the word was released.
      word(index).store(0, std::memory_order_relaxed);
      return Flag(this, index);
    }
  }
  return {};
}

void DoneFlags::release(int index) const noexcept {
  free_.fetch_or(uint64_t{1} << index, std::memory_order_release);
}

DoneFlags::Flag::~Flag() {
  if (owner_ != nullptr) {
    owner_->release(index_);
  }
}

void *DoneFlags::Flag::device() const {
  return owner_ == nullptr ? nullptr : owner_->device_ + static_cast<std::size_t>(index_) * 64;
}

void DoneFlags::Flag::wait() const {
  internal_assert(owner_ != nullptr) << "a wait on an empty done flag";
  const std::atomic_ref<uint32_t> flag = owner_->word(index_);
  const auto start = std::chrono::steady_clock::now();
  do {
    for (int k = 0; k < 64; ++k) {
      if (flag.load(std::memory_order_acquire) != 0) {
        return;
      }
      relax();
    }
  } while (std::chrono::steady_clock::now() - start < kSpinLimit);
  UFJIT_CU_CHECK(owner_->context_->drv(), cuStreamSynchronize, nullptr);
  if (flag.load(std::memory_order_acquire) == 0) {
    // The kernel ended (its stream synchronised) and its store is not here.
    owner_->ready_.store(false, std::memory_order_relaxed);
  }
}

}  // namespace ufjit::cuda
