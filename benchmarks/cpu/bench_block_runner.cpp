// The CPU block runner's cost per barrier and per warp collective
// (runtime/CpuBlockRunner.h): one block of kernels that do little between
// the calls, so that the counter ns_per_wait is the runner's cost per
// thread and call (a switch between fibers and its bookkeeping).
#include <benchmark/benchmark.h>

#include <vector>

#include "runtime/CpuBlockRunner.h"

namespace {

using ufjit::codegen::CpuThreadContext;
using ufjit::runtime::CpuBlockRunner;

constexpr int kCallsPerThread = 200;

void barriers_kernel(CpuThreadContext *c, void *const *) {
  auto *counter = reinterpret_cast<int *>(c->shared);
  for (int i = 0; i < kCallsPerThread; ++i) {
    ++*counter;
    c->sync(c, 0, 0, 1);
  }
}

void shuffles_kernel(CpuThreadContext *c, void *const *) {
  uint64_t value = c->thread_idx[0];
  for (int i = 0; i < kCallsPerThread; ++i) {
    value += c->warp(c, 2, value, 1, 0xffffffffu, 1);  // shfl_down_sync by 1
  }
  benchmark::DoNotOptimize(value);
}

void run_block(benchmark::State &state, ufjit::codegen::CpuThreadEntry entry) {
  const int threads = static_cast<int>(state.range(0));
  CpuBlockRunner runner(threads);
  int counter = 0;
  CpuThreadContext block{};
  block.block_dim[0] = threads;
  block.block_dim[1] = 1;
  block.block_dim[2] = 1;
  block.grid_dim[0] = 1;
  block.grid_dim[1] = 1;
  block.grid_dim[2] = 1;
  block.shared = reinterpret_cast<char *>(&counter);
  for (auto _ : state) {
    if (!runner.run(block, entry, nullptr).empty()) {
      state.SkipWithError("the block did not finish");
      return;
    }
  }
  const double waits = double(threads) * kCallsPerThread;
  state.counters["ns_per_wait"] =
      benchmark::Counter(waits, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Barriers(benchmark::State &state) {
  run_block(state, &barriers_kernel);
}
BENCHMARK(BM_Barriers)->Arg(32)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_Shuffles(benchmark::State &state) {
  run_block(state, &shuffles_kernel);
}
BENCHMARK(BM_Shuffles)->Arg(32)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
