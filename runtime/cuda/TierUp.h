// Background compiles of the CUDA backend's optimised kernels (tiering).
//
// A kernel missing from every cache is first compiled quickly
// (codegen::PtxTier::Quick: 2-3x less LLVM time) so that the first call runs
// soon; the optimised kernel is compiled here, on one worker thread of the
// backend, and swapped in (HotKernels::replace) and stored on disk when
// ready. The same worker runs the backend's other background jobs: the
// driver JIT's warm-up, and the source-index prefetches and updates
// (CubinPrefetch.h). Jobs run in the order queued. The destructor runs
// every job still queued before it returns, so that a short-lived process
// still leaves the optimised kernels in the disk cache for the next one.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace ufjit::cuda {

class TierUp {
 public:
  TierUp() = default;
  /// Runs the queued jobs, then stops the worker.
  ~TierUp();
  TierUp(const TierUp &) = delete;
  TierUp &operator=(const TierUp &) = delete;

  /// Starts the worker now rather than at the first job, so that the first
  /// job's caller does not wait for a thread to be made (the CUDA backend
  /// starts it beside its context's creation). Without a thread, jobs run
  /// on their caller's thread as before.
  void start();
  /// Queues `job` (it must catch its own errors); starts the worker on the
  /// first job. Runs `job` here when no thread can be started.
  void submit(std::function<void()> job);
  /// Returns when every job queued before the call has finished.
  void wait_idle();

 private:
  void work();          // the worker's loop
  bool start_locked();  // starts the worker unless it runs; false when no thread can be made

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;  // the worker is running a job
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace ufjit::cuda
