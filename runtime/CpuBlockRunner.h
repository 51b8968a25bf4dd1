// Runs one block of an explicit kernel with barriers or warp collectives on
// the CPU: each thread of the block on a fiber of its own (runtime/Fiber.h),
// scheduled round-robin on the calling OS thread, so that `sync` and `warp`
// (codegen/kernel/CpuKernelContext.h) can suspend a thread until the others
// of its block or warp arrive. A barrier or collective that can never
// complete, such as a barrier that some threads of the block skip while they
// wait at a warp collective, is reported as a message naming the source
// lines, never a hang.
//
// A kernel launch runs its blocks on the thread pool, each worker with its
// own runner (this_thread_block_runner); a runner serves one block at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "codegen/kernel/CpuKernelContext.h"
#include "runtime/Fiber.h"

namespace ufjit::runtime {

/// The largest block the runner accepts, as on the GPU.
inline constexpr int kMaxBlockThreads = 1024;

/// The (x, y, z) of the block's thread of linear index `linear`
/// (x + y*bx + z*bx*by, x fastest) in a block of `dims`.
std::array<int32_t, 3> thread_coordinates(int32_t linear, const int32_t dims[3]);

/// "(x,y,z)": coordinates as the CPU target's block messages write them.
std::string compact_coordinates_text(const int32_t v[3]);

class CpuBlockRunner {
 public:
  /// Fibers for blocks of up to `max_threads` threads (1..1024), mapped now;
  /// a larger block later maps more.
  explicit CpuBlockRunner(int max_threads, std::size_t stack_bytes = kFiberStackBytes);
  ~CpuBlockRunner();
  CpuBlockRunner(const CpuBlockRunner &) = delete;
  CpuBlockRunner &operator=(const CpuBlockRunner &) = delete;

  /// The most threads a block may have without mapping more stacks.
  int max_threads() const;

  /// Maps stacks for blocks of up to `threads` (1..1024) threads; false if
  /// the system refused (run() then reports it).
  bool reserve(int threads);

  /// Runs one block: thread t (linear index t = x + y*bx + z*bx*by, x
  /// fastest) calls entry(&ctx_t, params) on its own fiber, ctx_t a copy of
  /// `block` (dims, block_idx, shared pointers and dynamic_shared_bytes as
  /// given) with thread_idx from t, `sync` and `warp` set to the runner's
  /// functions and `runner` to its state. Returns "" when every thread
  /// returned; else a one-line message naming what could not proceed (the
  /// threads and source lines of a deadlock, lanes that disagree on a warp
  /// collective, a block too large or stacks that could not be mapped), and
  /// the block's fibers are abandoned: their stacks serve the next run.
  std::string run(const codegen::CpuThreadContext &block, codegen::CpuThreadEntry entry, void *const *params);

  struct State;

 private:
  std::unique_ptr<State> state_;
};

/// The calling OS thread's runner, kept for its later launches and freed
/// when the thread exits; grown to `threads` (1..1024) threads as needed.
CpuBlockRunner &this_thread_block_runner(int threads);

}  // namespace ufjit::runtime
