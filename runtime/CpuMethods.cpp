// CPU method kernels (runtime/CpuMethods.h).
#include "runtime/CpuMethods.h"

#include <algorithm>
#include <atomic>

#include "support/InternalAssert.h"
#include "runtime/CpuLaunch.h"
#include "runtime/CpuToolchain.h"
#include "runtime/KernelRequest.h"
#include "runtime/KernelErrors.h"

namespace ufjit::runtime {

namespace {

constexpr int64_t kMinChunkElements = 1 << 14;

/// Runs entry(begin, end) over [0, count) as runtime/CpuLaunch.h's
/// method_cpu_launch sizes it (`work_per_item` elements per index), polling
/// `poll` between pieces: throws Cancelled when it says stop.
void split(ThreadPool &pool, codegen::CpuEntry entry, const KernelParams &p, int64_t count, int64_t work_per_item,
           InterruptPoll &poll) {
  const CpuLaunch launch = method_cpu_launch(count, work_per_item, pool.concurrency(), poll.enabled());
  run_cpu_launch(pool, launch, [&](int64_t begin, int64_t end) { entry(begin, end, p.pointers()); }, poll);
}

}  // namespace

void run_cpu_method(const MethodLaunch &launch, JitEngine &engine, ThreadPool &pool,
                    const std::function<bool()> &interrupt) {
  const CompiledSignature &sig = *launch.signature;
  const codegen::MethodKernel method =
      launch.where != nullptr ? codegen::MethodKernel::ReduceWhere : launch.method;
  auto kernel = std::static_pointer_cast<const CpuKernel>(engine.acquire(KernelRequest::method_entry(sig, method)));
  const codegen::CpuEntry entry = kernel->entry;
  const std::vector<codegen::KernelParam> table = method_params(sig, method);
  const int64_t rows = launch.rows;
  const int64_t len = launch.len;
  // The error flag (codegen/kernel/KernelABI.h), read after every piece finished.
  std::atomic<uint32_t> raised{0};
  void *error = can_raise(sig) ? static_cast<void *>(&raised) : nullptr;
  InterruptPoll poll(interrupt);
  int64_t wanted = static_cast<int64_t>(pool.concurrency()) * 4;
  if (method != codegen::MethodKernel::Reduce || launch.in_order || (pool.concurrency() == 1 && !poll.enabled()) ||
      rows >= wanted || len < 2 * kMinChunkElements) {
    // Accumulate, a masked reduce, a function not declared reorderable, or
    // rows that are many or short: one segment per row.
    const KernelParams p(MethodArgs{rows, len, 1, len, launch.in, launch.out, launch.where, nullptr, error}, table);
    split(pool, entry, p, rows, len, poll);
    check_raised(sig, raised.load());
    return;
  }
  // Few long rows: each row in chunks (a few per thread; short ones when
  // the call may be interrupted), then the chunks' results per row.
  if (poll.enabled()) {
    wanted = std::max(wanted, rows * ((len + InterruptPoll::kChunkWork - 1) / InterruptPoll::kChunkWork));
  }
  const int64_t per_row = std::max<int64_t>(1, std::min((len + kMinChunkElements - 1) / kMinChunkElements,
                                                        (wanted + rows - 1) / rows));
  const int64_t chunk_len = (len + per_row - 1) / per_row;
  const int64_t chunks = (len + chunk_len - 1) / chunk_len;
  Array partial = allocate_host(sig.ret, {rows * chunks});
  const KernelParams first(MethodArgs{rows, len, chunks, chunk_len, launch.in, partial.data(), nullptr, nullptr, error},
                           table);
  split(pool, entry, first, rows * chunks, chunk_len, poll);
  check_raised(sig, raised.load());
  const KernelParams second(MethodArgs{rows, chunks, 1, chunks, partial.data(), launch.out, nullptr, nullptr, error},
                            table);
  entry(0, rows, second.pointers());
  check_raised(sig, raised.load());
}

}  // namespace ufjit::runtime
