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

/// The parameters of one method entry (codegen/kernel/KernelReduce.h), with stable
/// storage.
struct MethodParams {
  int64_t rows = 0;
  int64_t len = 0;
  int64_t chunks = 1;
  int64_t chunk_len = 0;
  const void *in = nullptr;
  void *out = nullptr;
  const void *aux = nullptr;
  void *out_has = nullptr;  // unused on the CPU (codegen/kernel/KernelReduce.h)
  void *error = nullptr;
  void *pointers[9] = {&rows, &len, &chunks, &chunk_len, &in, &out, &aux, &out_has, &error};
  MethodParams(int64_t r, int64_t l, int64_t c, int64_t cl, const void *i, void *o, const void *a, void *e)
      : rows(r), len(l), chunks(c), chunk_len(cl), in(i), out(o), aux(a), error(e) {}
  MethodParams(const MethodParams &) = delete;
  MethodParams &operator=(const MethodParams &) = delete;
};

/// Runs entry(begin, end) over [0, count) as runtime/CpuLaunch.h's
/// method_cpu_launch sizes it (`work_per_item` elements per index), polling
/// `poll` between pieces: throws Cancelled when it says stop.
void split(ThreadPool &pool, codegen::CpuEntry entry, const MethodParams &p, int64_t count, int64_t work_per_item,
           InterruptPoll &poll) {
  const CpuLaunch launch = method_cpu_launch(count, work_per_item, pool.concurrency(), poll.enabled());
  run_cpu_launch(pool, launch, [&](int64_t begin, int64_t end) { entry(begin, end, p.pointers); }, poll);
}

}  // namespace

void run_cpu_method(const MethodLaunch &launch, JitEngine &engine, ThreadPool &pool,
                    const std::function<bool()> &interrupt) {
  const CompiledSignature &sig = *launch.signature;
  const codegen::MethodKernel method =
      launch.where != nullptr ? codegen::MethodKernel::ReduceWhere : launch.method;
  auto kernel = std::static_pointer_cast<const CpuKernel>(engine.acquire(KernelRequest::method_entry(sig, method)));
  const codegen::CpuEntry entry = kernel->entry;
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
    const MethodParams p(rows, len, 1, len, launch.in, launch.out, launch.where, error);
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
  const MethodParams first(rows, len, chunks, chunk_len, launch.in, partial.data(), nullptr, error);
  split(pool, entry, first, rows * chunks, chunk_len, poll);
  check_raised(sig, raised.load());
  const MethodParams second(rows, chunks, 1, chunks, partial.data(), launch.out, nullptr, error);
  entry(0, rows, second.pointers);
  check_raised(sig, raised.load());
}

}  // namespace ufjit::runtime
