// A fixed pool of worker threads for the CPU target. The caller of
// parallel_for takes part in its own job, so many caller threads may use one
// pool at once without deadlock, and a job finishes even if every worker is
// busy with other callers' jobs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ufjit/errors.h"

namespace ufjit::runtime {

/// RuntimeOptions::interrupt asked from a call's own thread between chunks
/// of work, at most once per kInterval: a cheap check (an atomic) costs
/// nothing, and one that takes a lock (Python's GIL) does not slow the call.
class InterruptPoll {
 public:
  static constexpr std::chrono::milliseconds kInterval{10};
  /// Elements of work in one chunk of a call that may be interrupted, so
  /// that a chunk ends soon after an interrupt (a few hundred microseconds
  /// for a body of a few hundred operations), while the per-chunk cost (a
  /// hundred nanoseconds) stays small.
  static constexpr int64_t kChunkWork = int64_t{1} << 16;

  /// `interrupt` empty: never interrupted. It must outlive the poll (a
  /// temporary is refused at compile time).
  explicit InterruptPoll(const std::function<bool()> &interrupt)
      : interrupt_(interrupt), next_(std::chrono::steady_clock::now() + kInterval) {}
  explicit InterruptPoll(std::function<bool()> &&interrupt) = delete;

  bool enabled() const { return static_cast<bool>(interrupt_); }

  /// The error of a call that stopped.
  static Cancelled cancelled() { return Cancelled("the call was stopped by RuntimeOptions::interrupt"); }

  /// Whether the call must stop; once true, stays true.
  bool operator()() {
    if (stopped_ || !interrupt_) {
      return stopped_;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) {
      return false;
    }
    stopped_ = interrupt_();
    next_ = std::chrono::steady_clock::now() + kInterval;
    return stopped_;
  }

 private:
  const std::function<bool()> &interrupt_;
  std::chrono::steady_clock::time_point next_;
  bool stopped_ = false;
};

class ThreadPool {
 public:
  /// `threads` workers in total counting the caller (0: hardware threads).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Threads that may run one job's chunks at once (workers + the caller).
  int concurrency() const { return static_cast<int>(workers_.size()) + 1; }

  /// Calls fn(chunk) for chunk in [0, chunks) on the pool and the caller;
  /// returns when all have finished. `fn` must not throw. `stop`, when
  /// given, is asked by the caller's thread before each chunk it takes:
  /// once it says true no chunk starts any more, the ones running finish,
  /// and parallel_for returns false, even if no chunk was left to start
  /// (true: `stop` never said true). An exception from `stop` stops the
  /// job the same way, then leaves parallel_for.
  bool parallel_for(int64_t chunks, const std::function<void(int64_t)> &fn,
                    const std::function<bool()> &stop = {});

 private:
  struct Job;
  void worker_loop();
  static bool run_one(Job &job);

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ufjit::runtime
