// Explicit kernels on the CPU target (runtime/CpuKernels.h).
#include "runtime/CpuKernels.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "codegen/kernel/CpuKernelContext.h"
#include "runtime/CpuBlockRunner.h"
#include "runtime/CpuLaunch.h"
#include "runtime/KernelErrors.h"
#include "runtime/RaceCheck.h"
#include "support/InternalAssert.h"

namespace ufjit::runtime {

namespace {

/// A worker's shared memory for the blocks it runs, 16-byte aligned, kept
/// for its later launches.
char *worker_buffer(std::size_t slot, int64_t bytes) {
  thread_local std::vector<char> buffers[2];
  std::vector<char> &buffer = buffers[slot];
  const auto want = static_cast<std::size_t>(bytes) + 16;
  if (buffer.size() < want) buffer.resize(want);
  const auto address = reinterpret_cast<uintptr_t>(buffer.data());
  return buffer.data() + ((16 - address % 16) % 16);
}

/// The first failure of a launch's blocks (a runner's message), which stops
/// the blocks not started yet.
class LaunchFailure {
 public:
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  void record(const std::string &message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failed_.exchange(true)) message_ = message;
  }
  const std::string &message() const { return message_; }

 private:
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::string message_;
};

/// Where a kernel split at its barriers reports threads that take different
/// paths around one (codegen::CpuDivergedFn, through the context's `runner`).
struct DivergenceSink {
  LaunchFailure *failure;
  int32_t block_dim[3];
};

std::string thread_coords(const DivergenceSink &sink, int32_t linear) {
  return compact_coordinates_text(thread_coordinates(linear, sink.block_dim).data());
}

void report_divergence(void *runner, int32_t first, int32_t other, int32_t line, int32_t bx, int32_t by, int32_t bz) {
  const auto &sink = *static_cast<const DivergenceSink *>(runner);
  const int32_t block[3] = {bx, by, bz};
  sink.failure->record("the barrier of line " + std::to_string(line) + " is not reached by every thread of block " +
                       compact_coordinates_text(block) + ": threads " + thread_coords(sink, first) + " and " +
                       thread_coords(sink, other) +
                       " disagree on the condition of the if or loop around it (on a GPU this hangs or is undefined)");
}

void set_block_index(codegen::CpuThreadContext &ctx, int64_t block) {
  ctx.block_idx[0] = static_cast<int32_t>(block % ctx.grid_dim[0]);
  const int64_t rest = block / ctx.grid_dim[0];
  ctx.block_idx[1] = static_cast<int32_t>(rest % ctx.grid_dim[1]);
  ctx.block_idx[2] = static_cast<int32_t>(rest / ctx.grid_dim[1]);
}

}  // namespace

void run_cpu_kernel(const PreparedKernel &launch, codegen::CpuEntry entry, std::span<const codegen::KernelParam> table,
                    ThreadPool &pool, const std::function<bool()> &interrupt) {
  const CompiledSignature &sig = *launch.signature;
  const ir::Module &module = *sig.module;
  std::vector<const void *> data;
  for (const PreparedOperand &arg : launch.args) {
    internal_assert(arg.is_scalar || arg.array.residence == Residence::Host) << "device array on the CPU target";
    data.push_back(arg.is_scalar ? nullptr : arg.array.data);
  }
  std::atomic<uint32_t> raised{0};
  // A checked kernel's flag is its record's first field (codegen/kernel/KernelCheck.h).
  codegen::KernelCheckRecord record{};
  record.access = race_check_access;
  void *flag = module.checked ? static_cast<void *>(&record) : static_cast<void *>(&raised);
  const KernelParams params(launch, table, data, flag);
  codegen::CpuThreadContext block{};
  for (int axis = 0; axis < 3; ++axis) {
    block.block_dim[axis] = static_cast<int32_t>(launch.block[static_cast<std::size_t>(axis)]);
    block.grid_dim[axis] = static_cast<int32_t>(launch.grid[static_cast<std::size_t>(axis)]);
  }
  block.dynamic_shared_bytes = launch.shared_bytes;
  const int64_t blocks = launch.grid[0] * launch.grid[1] * launch.grid[2];
  const int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  InterruptPoll poll(interrupt);
  const CpuLaunch pieces = elementwise_cpu_launch(0, blocks, threads, pool.concurrency(), poll.enabled());
  LaunchFailure failure;
  DivergenceSink sink{&failure, {block.block_dim[0], block.block_dim[1], block.block_dim[2]}};
  const codegen::CpuBlockShape shape = sig.cpu_block_shape;
  auto run_piece = [&](int64_t begin, int64_t end) {
    // Each piece its own context and pointers: the blocks' shared memory is the worker's.
    codegen::CpuThreadContext ctx = block;
    ctx.dynamic_shared = worker_buffer(1, launch.shared_bytes);
    std::vector<void *> pointers(params.pointers(), params.pointers() + params.count());
    pointers.push_back(&ctx);
    if (shape == codegen::CpuBlockShape::Regions) {
      ctx.sync = reinterpret_cast<codegen::CpuSyncFn>(reinterpret_cast<void *>(&report_divergence));
      ctx.runner = &sink;
    }
    if (shape != codegen::CpuBlockShape::Fibers) {
      entry(begin, end, pointers.data());
      return;
    }
    ctx.shared = worker_buffer(0, module.shared_bytes);
    CpuBlockRunner &runner = this_thread_block_runner(static_cast<int>(threads));
    const auto one_thread = reinterpret_cast<codegen::CpuThreadEntry>(reinterpret_cast<void *>(entry));
    for (int64_t b = begin; b < end && !failure.failed(); ++b) {
      set_block_index(ctx, b);
      if (module.checked) race_check_begin_block(ctx, module.shared_bytes);
      std::string message = runner.run(ctx, one_thread, pointers.data());
      if (module.checked) {
        std::string race = race_check_end_block();
        if (message.empty()) message = std::move(race);
      }
      if (!message.empty()) failure.record(message);
    }
  };
  run_cpu_launch(pool, pieces, run_piece, poll);
  if (failure.failed()) {
    throw KernelError("kernel '" + sig.ufunc_name + "' (" + sig.signature + "): " + failure.message(), "RuntimeError",
                      failure.message(), "", 0, 0);
  }
  if (module.checked) {
    check_raised(sig, record);
  } else {
    check_raised(sig, raised.load());
  }
}

}  // namespace ufjit::runtime
