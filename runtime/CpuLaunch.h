// The CPU's configured launch, the counterpart of runtime/cuda/LaunchConfig.h:
// a range of indices (elements, outer elements, segments or rows) cut into
// pieces that the thread pool runs, as a value. The sizing rules are pure
// helpers, so that they are tested without threads; run_cpu_launch hands the
// pieces to the pool (runtime/ThreadPool.h, whose interface stays as it is).
#pragma once

#include <cstdint>
#include <functional>

#include "runtime/ThreadPool.h"

namespace ufjit::runtime {

/// Indices [begin, end) in pieces of `piece` (the last may be shorter),
/// each starting at begin plus a multiple of `piece`.
struct CpuLaunch {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t piece = 1;      // >= 1
  bool on_caller = true;  // one piece, run by the calling thread without the pool
  /// How many pieces the range has (0 for an empty range).
  int64_t pieces() const { return end > begin ? (end - begin + piece - 1) / piece : 0; }
};

/// Elements (or outer elements) [first, n) of an elementwise or gufunc entry,
/// `weight` elements of work per index, on `threads` threads: on the caller
/// when small, else about four pieces per thread, each at least 2^14 elements
/// of work and, at weight 1, a multiple of 64 elements (a cache line of every
/// dtype, and aligned as streaming stores need when `first` is).
/// `interruptible` (RuntimeOptions::interrupt is set): pieces of at most
/// InterruptPoll::kChunkWork elements of work, even on one thread, so that
/// the interrupt is polled between them.
CpuLaunch elementwise_cpu_launch(int64_t first, int64_t n, int64_t weight, int threads, bool interruptible);

/// Segments or rows [0, count) of a method entry (codegen/kernel/KernelReduce.h),
/// `work_per_item` elements each, on `threads` threads: on the caller when
/// small, else about four pieces per thread (shorter when interruptible).
CpuLaunch method_cpu_launch(int64_t count, int64_t work_per_item, int threads, bool interruptible);

/// Calls fn(begin, end) for every piece of `launch`: on the caller when
/// `launch.on_caller`, else on `pool`, polling `poll` between pieces.
/// Returns when all have finished; throws Cancelled when the poll said stop
/// (pieces already started have finished). `fn` must not throw.
void run_cpu_launch(ThreadPool &pool, const CpuLaunch &launch, const std::function<void(int64_t, int64_t)> &fn,
                    InterruptPoll &poll);

}  // namespace ufjit::runtime
