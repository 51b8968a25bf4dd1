// The tier-up worker (runtime/cuda/TierUp.h).
#include "runtime/cuda/TierUp.h"

#include <system_error>

namespace ufjit::cuda {

TierUp::~TierUp() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) {
    worker_.join();
  }
}

bool TierUp::start_locked() {
  if (worker_.joinable()) {
    return true;
  }
  try {
    worker_ = std::thread([this] { work(); });
    return true;
  } catch (const std::system_error &) {
    return false;
  }
}

void TierUp::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  (void)start_locked();
}

void TierUp::submit(std::function<void()> job) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!start_locked()) {
    // No thread to be had: the optimised kernel now, on the caller's time.
    lock.unlock();
    job();
    return;
  }
  queue_.push_back(std::move(job));
  lock.unlock();
  changed_.notify_all();
}

void TierUp::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void TierUp::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      return;  // stopping, and nothing left to run
    }
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    job();
    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace ufjit::cuda
