// How a synchronous call of one block learns that its kernel finished,
// sooner than cuStreamSynchronize does (codegen/kernel/KernelABI.h's Done parameter).
//
// The driver learns of a kernel's end from a semaphore its front end writes
// after the kernel retired; on the H100 host that is about a microsecond
// after the kernel's last store (docs/PERFORMANCE.md, "the end of a tiny
// call"), a microsecond that a 1-element call otherwise spends waiting. An
// entry given a Done flag stores 1 into page-locked host memory once all of
// its threads have stored their elements and fenced; the caller spins on
// that word. The flag only says that the results are written: the kernel
// itself may still be retiring, which nothing but the stream's own later
// work could notice, and that work is ordered after it anyway.
//
// Flags are 64 words, each on its own cache line of one mapped page, handed
// out one per call (several host threads may call at once). The page is
// allocated off the caller's path (prepare() on a worker): until it exists,
// or when all words are taken, or where the device cannot map host memory,
// calls synchronise as before. A wait that sees no flag for kSpinLimit falls
// back to cuStreamSynchronize, which also reports the error of a kernel that
// faulted before it could store the flag. A kernel that ended without its
// flag reaching this page (a system whose device writes to mapped memory do
// not arrive) turns the flags off: every later call synchronises at once
// rather than spinning in vain first.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

#include "runtime/cuda/CudaContext.h"

namespace ufjit::cuda {

class DoneFlags {
 public:
  /// How long a wait spins before it hands over to cuStreamSynchronize.
  static constexpr std::chrono::microseconds kSpinLimit{100};
  static constexpr int kFlags = 64;

  /// Nothing is allocated until prepare().
  explicit DoneFlags(std::shared_ptr<const CudaContext> context) : context_(std::move(context)) {}
  ~DoneFlags();
  DoneFlags(const DoneFlags &) = delete;
  DoneFlags &operator=(const DoneFlags &) = delete;

  /// Allocates the mapped page (the first call only; from any thread).
  /// A device that cannot map host memory, or a failed allocation, leaves
  /// the flags unused. Never throws.
  void prepare() noexcept;

  /// One word of the page, reset to 0 and owned until destroyed; empty()
  /// when none could be had (then synchronise the stream as usual).
  class Flag {
   public:
    Flag() = default;
    Flag(Flag &&other) noexcept : owner_(other.owner_), index_(other.index_) { other.owner_ = nullptr; }
    Flag &operator=(Flag &&) = delete;
    ~Flag();
    bool empty() const { return owner_ == nullptr; }
    /// What the entry's Done parameter takes (null when empty).
    void *device() const;
    /// After the launch that was given device(): returns once the kernel
    /// stored the flag, or once the legacy stream synchronised. Throws
    /// DeviceError when that synchronisation reports an error; turns the
    /// flags off when it succeeds and the flag is still not there.
    void wait() const;

   private:
    friend class DoneFlags;
    Flag(const DoneFlags *owner, int index) : owner_(owner), index_(index) {}
    const DoneFlags *owner_ = nullptr;
    int index_ = 0;
  };
  Flag claim() const;

 private:
  static constexpr std::size_t kStride = 64 / sizeof(uint32_t);  // one cache line per word
  void allocate_page() noexcept;
  void release(int index) const noexcept;
  std::atomic_ref<uint32_t> word(int index) const {
    return std::atomic_ref<uint32_t>(host_[index * kStride]);
  }

  std::shared_ptr<const CudaContext> context_;
  std::once_flag prepared_;
  mutable std::atomic<bool> ready_{false};  // host_ and device_ are set (release/acquire), flags in use
  uint32_t *host_ = nullptr;
  char *device_ = nullptr;
  mutable std::atomic<uint64_t> free_{~uint64_t{0}};  // bit i: word i is free
};

}  // namespace ufjit::cuda
