// Per-call rows of bench_gpu (issue 13 item 1): the driver's own floors and
// ufjit's calls on 1-element device arrays, measured in one process so that
// each ufjit figure reads as "floor + ufjit's share".
#pragma once

#include <string>
#include <vector>

#include "benchmarks/gpu/bench_kernels.h"
#include "ufjit/ufjit.h"

namespace ufjit::bench {

/// The driver's floors, with an empty kernel loaded through the driver API.
struct DriverFloors {
  double launch_sync_us = 0;          // cuLaunchKernel (1 block of 32) + cuStreamSynchronize, legacy stream
  double launch_sync_block1024_us = 0;  // the same with one block of 1024 threads
  double launch_host_us = 0;          // the host-side cost of one cuLaunchKernel (timed call by call)
  double launch_host_stream_us = 0;   // the same on a blocking stream (what f.async(stream, ...) launches on)
  // A hand-written PTX kernel doing a 1-element add_i64's memory work (two
  // global loads, one store; four parameters as ufjit's entry): the floor
  // of any such call, GPU work included, without ufjit's host code.
  double elementwise_sync_us = 0;         // its launch + cuStreamSynchronize, legacy stream
  double elementwise_host_stream_us = 0;  // its cuLaunchKernel's host cost on a blocking stream
  bool ok = false;
};

/// ufjit's per-call figures for one kernel.
struct PerCallRow {
  std::string kernel;
  double sync_new_us = 0;    // f(a, b): synchronous, a new result each call
  double sync_out_us = 0;    // f(a, b, out(o)): synchronous, into `out`
  double async_host_us = 0;  // f.async(stream, a, b, out(o)): the host-side cost of the call
  double async_new_host_us = 0;  // f.async(stream, a, b) without out: a new result each call
  double out_prebuilt_us = 0;         // f.call(ops) into out, the operand vector built once beforehand
  double async_prebuilt_host_us = 0;  // f.call_async(stream, ops), the same
  // ufjit's own contiguous kernel for this source (as `ufjit compile` emits
  // it), loaded and launched through the bare driver on the same 1-element
  // arrays, one block of 32 threads, + cuStreamSynchronize: the GPU's work
  // of the call without ufjit's host code. 0 when it could not be run.
  double bare_kernel_sync_us = 0;

  // The driver's floors taken in this kernel's rounds (see measure_per_call)
  // and each figure's difference from its floor: the median over the rounds
  // of the round's difference. The bar of issue 13 item 1 reads these.
  int rounds = 0;
  double floor_sync_us = 0;           // empty launch + sync (DriverFloors::launch_sync_us)
  double floor_launch_stream_us = 0;  // bare cuLaunchKernel on a blocking stream
  double sync_over_floor_us = 0;
  double out_over_floor_us = 0;
  double async_over_launch_us = 0;
  double bare_kernel_over_floor_us = 0;  // the GPU's own work of the call (0 when not run)
  double out_over_bare_kernel_us = 0;    // ufjit's host path of a call into out (0 when not run)
};

/// Measures the floors (`reps` timed calls each). The Runtime's context must
/// exist (it is made current on this thread).
DriverFloors measure_driver_floors(Runtime &rt, int reps);

/// Measures one kernel on 1-element device arrays, `reps` timed calls per
/// figure, in rounds: each round takes every figure and the floors in a
/// shuffled order, kBatch calls each. The host's speed drifts by up to a
/// microsecond a call within one lease; a figure and its floor taken
/// milliseconds apart see the same drift, so their difference does not.
PerCallRow measure_per_call(Runtime &rt, const BenchKernel &kernel, int reps);

/// `bench_gpu --per-call`: the floors and every seed kernel's row, printed as
/// a table and written as JSON to `json_path` (when not empty).
int run_per_call(const std::string &json_path, int reps, const std::string &only_kernel);

/// `bench_gpu --count-calls MODE KERNEL N`: N calls of one kind (sync, out,
/// async, async_new, out_prebuilt, async_prebuilt) after a warm-up, inside measured_calls() so that
/// `valgrind --tool=callgrind --toggle-collect='*measured_calls*'` counts
/// exactly those (tools/callgrind_call_path.sh).
int run_count_calls(const std::string &mode, const std::string &kernel, int calls);

/// The seed kernel named `name` (with "_fast" variants); exits 2 if unknown.
const BenchKernel &find_kernel(const std::string &name);

/// Host inputs as the anchors draw them: ints in [-1000, 1000), floats in [0.5, 1.5).
std::vector<Array> host_inputs(const BenchKernel &k, int64_t n);

}  // namespace ufjit::bench
