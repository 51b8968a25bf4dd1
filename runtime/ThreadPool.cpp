// The CPU target's thread pool (see ThreadPool.h).
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <exception>

namespace ufjit::runtime {

struct ThreadPool::Job {
  const std::function<void(int64_t)> *fn = nullptr;
  int64_t chunks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex mutex;
  std::condition_variable finished;
};

ThreadPool::ThreadPool(int threads) {
  int n = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  if (n < 1) {
    n = 1;
  }
  workers_.reserve(static_cast<std::size_t>(n - 1));
  for (int i = 0; i + 1 < n; ++i) {
    workers_.emplace_back([this] { worker_loop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread &t : workers_) {
    t.join();
  }
}

bool ThreadPool::run_one(Job &job) {
  const int64_t chunk = job.next.fetch_add(1);
  if (chunk >= job.chunks) {
    return false;
  }
  (*job.fn)(chunk);
  if (job.done.fetch_add(1) + 1 == job.chunks) {
    std::lock_guard<std::mutex> lock(job.mutex);
    job.finished.notify_all();
  }
  return true;
}

void ThreadPool::worker_loop() {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_ && queue_.empty()) {
        return;
      }
      job = queue_.front();
      // Leave the job queued while chunks remain so other workers join in.
      if (job->next.load() >= job->chunks) {
        queue_.pop_front();
        continue;
      }
    }
    while (run_one(*job)) {
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!queue_.empty() && queue_.front() == job) {
      queue_.pop_front();
    }
  }
}

bool ThreadPool::parallel_for(int64_t chunks, const std::function<void(int64_t)> &fn,
                              const std::function<bool()> &stop) {
  if (chunks <= 0) {
    return true;
  }
  if (chunks == 1 || workers_.empty()) {
    for (int64_t c = 0; c < chunks; ++c) {
      if (stop && stop()) {
        return false;
      }
      fn(c);
    }
    return true;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->chunks = chunks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(job);
  }
  const int64_t wake = std::min<int64_t>(chunks - 1, static_cast<int64_t>(workers_.size()));
  for (int64_t i = 0; i < wake; ++i) {
    work_ready_.notify_one();
  }
  bool completed = true;
  // An exception from `stop` stops the job too; it is rethrown once no
  // worker uses `fn` (on the caller's stack) any more.
  std::exception_ptr stop_error;
  auto should_stop = [&] {
    try {
      return stop && stop();
    } catch (...) {
      stop_error = std::current_exception();
      return true;
    }
  };
  while (true) {
    if (should_stop()) {
      // Claim every chunk not started yet and count it as done: workers
      // then find none left, and only the running ones are waited for.
      const int64_t started = std::min(job->next.exchange(chunks), chunks);
      job->done.fetch_add(chunks - started);
      completed = false;
      break;
    }
    if (!run_one(*job)) {
      break;
    }
  }
  {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->finished.wait(lock, [&] { return job->done.load() == job->chunks; });
  }
  // Drop the job from the queue if no worker did (it holds `fn` by pointer).
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (*it == job) {
      queue_.erase(it);
      break;
    }
  }
  if (stop_error) {
    std::rethrow_exception(stop_error);
  }
  return completed;
}

}  // namespace ufjit::runtime
