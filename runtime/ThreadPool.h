// A fixed pool of worker threads for the CPU target. The caller of
// parallel_for takes part in its own job, so many caller threads may use one
// pool at once without deadlock, and a job finishes even if every worker is
// busy with other callers' jobs.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ufjit::runtime {

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
  /// returns when all have finished. `fn` must not throw.
  void parallel_for(int64_t chunks, const std::function<void(int64_t)> &fn);

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
