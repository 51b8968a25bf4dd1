// Ranges handed to the thread pool: see CpuLaunch.h.
#include "runtime/CpuLaunch.h"

#include <algorithm>

namespace ufjit::runtime {

namespace {

constexpr int64_t kInlineElements = 1 << 15;  // below this much work, no threads
constexpr int64_t kMinChunkElements = 1 << 14;
constexpr int64_t kChunkAlign = 64;
constexpr int64_t kPiecesPerThread = 4;

CpuLaunch on_caller(int64_t begin, int64_t end) {
  CpuLaunch launch;
  launch.begin = begin;
  launch.end = end;
  launch.piece = std::max<int64_t>(1, end - begin);
  launch.on_caller = true;
  return launch;
}

/// The longest piece whose work an interrupt waits for.
int64_t interruptible_piece(int64_t piece, int64_t work_per_index) {
  return std::min(piece, std::max<int64_t>(1, InterruptPoll::kChunkWork / std::max<int64_t>(1, work_per_index)));
}

}  // namespace

CpuLaunch elementwise_cpu_launch(int64_t first, int64_t n, int64_t weight, int threads, bool interruptible) {
  const int64_t per_index = std::max<int64_t>(1, weight);
  const int64_t count = n - first;
  const bool small = count <= 1 || count < kInlineElements / std::min(per_index, kInlineElements);
  if (small || (threads == 1 && !interruptible)) {
    return on_caller(first, std::max(first, n));
  }
  const int64_t wanted = static_cast<int64_t>(threads) * kPiecesPerThread;
  const int64_t min_chunk =
      per_index == 1 ? kMinChunkElements : std::max<int64_t>(1, kMinChunkElements / per_index);
  const int64_t align = per_index == 1 ? kChunkAlign : 1;
  int64_t chunk = std::max(min_chunk, (count + wanted - 1) / wanted);
  if (interruptible) {
    chunk = interruptible_piece(chunk, per_index);
  }
  chunk = (chunk + align - 1) / align * align;
  CpuLaunch launch;
  launch.begin = first;
  launch.end = n;
  launch.piece = chunk;
  launch.on_caller = false;
  return launch;
}

CpuLaunch method_cpu_launch(int64_t count, int64_t work_per_item, int threads, bool interruptible) {
  const bool small = count == 1 || count * work_per_item < kInlineElements;
  if (small || (threads == 1 && !interruptible)) {
    return on_caller(0, count);
  }
  const int64_t wanted = static_cast<int64_t>(threads) * kPiecesPerThread;
  CpuLaunch launch;
  launch.end = count;
  launch.piece = std::max<int64_t>(1, (count + wanted - 1) / wanted);
  if (interruptible) {
    launch.piece = interruptible_piece(launch.piece, work_per_item);
  }
  launch.on_caller = false;
  return launch;
}

void run_cpu_launch(ThreadPool &pool, const CpuLaunch &launch, const std::function<void(int64_t, int64_t)> &fn,
                    InterruptPoll &poll) {
  if (launch.on_caller) {
    if (launch.end > launch.begin) {
      fn(launch.begin, launch.end);
    }
    return;
  }
  const bool completed = pool.parallel_for(
      launch.pieces(),
      [&](int64_t k) {
        const int64_t begin = launch.begin + k * launch.piece;
        fn(begin, std::min(launch.end, begin + launch.piece));
      },
      [&] { return poll(); });
  if (!completed) {
    throw InterruptPoll::cancelled();
  }
}

}  // namespace ufjit::runtime
