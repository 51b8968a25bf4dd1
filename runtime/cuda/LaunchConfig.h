// The one place that owns launch configuration (grid, block, shared memory)
// of generated entries (issue 13 item 4): the block from the occupancy API,
// the grid from the entry's launch hint (codegen/kernel/KernelABI.h's LaunchHint,
// stated by code generation and carried inside the module).
#pragma once

#include <cstdint>

namespace ufjit::cuda {

struct LaunchConfig {
  unsigned grid = 1;
  unsigned block = 256;
  unsigned shared_bytes = 0;
};

/// SM-filling waves of resident blocks a capped grid allows before the
/// grid-stride loop takes over: 16 rather than 2 gained every seed kernel
/// 1-6% (bench_ptx_lab, docs/PERFORMANCE.md, 2026-11-23): the last wave is short.
inline constexpr int64_t kWaves = 16;

/// The grid cap of a kernel: kWaves waves of `min_grid` resident blocks (the
/// occupancy API's), at least one block per multiprocessor.
int64_t capped_grid(int min_grid, int sm_count);

/// What a loaded entry's launches depend on (runtime/cuda/CudaModule.h's
/// CudaKernel holds it).
struct KernelGeometry {
  int block = 256;             // threads per block, from the occupancy API
  int64_t max_grid = 1;        // capped_grid(...)
  uint32_t elements_per_thread = 0;  // the entry's launch hint
};

/// Threads per warp: a one-block launch is trimmed to whole warps.
inline constexpr int64_t kWarp = 32;

/// The launch of an entry over `n` elements (any n >= 0): hint 0 gives
/// min(ceil(n / block), max_grid) blocks; hint e > 0 gives ceil(n / (block *
/// e)) blocks, each thread one group. Never more than the driver's 2^31 - 1
/// blocks (the entries' grid-stride loops cover the rest), never fewer than 1.
/// A launch of one block has only the threads its elements need, rounded up
/// to whole warps (at least one warp): tiny calls start 32 threads, not the
/// occupancy block (every entry reads its block size from %ntid).
LaunchConfig launch_config(const KernelGeometry &kernel, int64_t n);

}  // namespace ufjit::cuda
