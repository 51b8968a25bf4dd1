// Spare PreparedCalls for the per-call path (runtime/Call.cpp). A
// PreparedCall's views own vectors (shape, strides) and its inputs a vector:
// built afresh, a two-input call into `out` made seven heap allocations
// before the launch. A PreparedCall taken from here keeps the capacity of
// the last call's, so assigning the new views allocates nothing.
//
// A few slots of atomic pointers, no lock: a call takes a spare (or makes
// one) and puts it back when it returns; calls from many threads at once
// simply make more, and those that find no free slot are freed.
#pragma once

#include <array>
#include <atomic>
#include <memory>

#include "runtime/Backend.h"

namespace ufjit::runtime {

class PreparedCallPool {
 public:
  PreparedCallPool() = default;
  ~PreparedCallPool() {
    for (std::atomic<PreparedCall *> &slot : spares_) {
      delete slot.exchange(nullptr);
    }
  }
  PreparedCallPool(const PreparedCallPool &) = delete;
  PreparedCallPool &operator=(const PreparedCallPool &) = delete;

  /// A spare or a new PreparedCall; its fields hold the last call's values
  /// (the caller sets every one).
  std::unique_ptr<PreparedCall> take() {
    for (std::atomic<PreparedCall *> &slot : spares_) {
      if (PreparedCall *spare = slot.exchange(nullptr, std::memory_order_acquire)) {
        return std::unique_ptr<PreparedCall>(spare);
      }
    }
    return std::make_unique<PreparedCall>();
  }

  /// Gives `call` back for a later call (freed when every slot is full).
  void give_back(std::unique_ptr<PreparedCall> call) noexcept {
    for (std::atomic<PreparedCall *> &slot : spares_) {
      PreparedCall *expected = nullptr;
      if (slot.compare_exchange_strong(expected, call.get(), std::memory_order_release, std::memory_order_relaxed)) {
        (void)call.release();
        return;
      }
    }
  }

 private:
  static constexpr std::size_t kSlots = 4;
  std::array<std::atomic<PreparedCall *>, kSlots> spares_{};
};

/// A PreparedCall from a pool for one call's duration.
class PooledCall {
 public:
  explicit PooledCall(PreparedCallPool &pool) : pool_(pool), call_(pool.take()) {}
  ~PooledCall() { pool_.give_back(std::move(call_)); }
  PooledCall(const PooledCall &) = delete;
  PooledCall &operator=(const PooledCall &) = delete;
  PreparedCall &operator*() { return *call_; }
  PreparedCall *operator->() { return call_.get(); }

 private:
  PreparedCallPool &pool_;
  std::unique_ptr<PreparedCall> call_;
};

}  // namespace ufjit::runtime
