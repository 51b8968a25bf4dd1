// A configured launch as a value (jitify2's `kernel.configure(grid, block,
// smem, stream)`, Halide's `halide_cuda_run(entry, blocks, threads, shmem,
// args)`): grid and block in three dimensions, dynamic shared memory and the
// stream. runtime/cuda/CudaModule.h's `launch(kernel, config, params)` takes
// one; it is the library's only call of cuLaunchKernel.
//
// The sizing rules of ufjit's own entries are pure helpers that return such a
// value, so that they run (and are tested) without a GPU:
//   launch_config: an elementwise or gufunc entry over n elements, the block
//     from the occupancy API, the grid from the entry's launch hint
//     (codegen/kernel/KernelABI.h's LaunchHint, stated by code generation
//     and carried inside the module);
//   segment_launch / row_launch / chunk_rows: the method entries
//     (codegen/kernel/KernelReduce.h), a block per segment or a thread per row.
#pragma once

#include <cstdint>

// cuda.h's stream handle, declared here so that the sizing helpers and their
// tests need no CUDA headers (`CUstream` is `CUstream_st *`).
struct CUstream_st;

namespace ufjit::cuda {

/// Blocks of a grid or threads of a block, per dimension (each >= 1).
struct Dim3 {
  unsigned x = 1;
  unsigned y = 1;
  unsigned z = 1;
};

/// Everything cuLaunchKernel takes besides the function and its parameters.
struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  unsigned shared_bytes = 0;      // dynamic shared memory per block
  CUstream_st *stream = nullptr;  // null: the legacy stream
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
  int block = 256;                   // threads per block, from the occupancy API
  int64_t max_grid = 1;              // capped_grid(...)
  uint32_t elements_per_thread = 0;  // the entry's launch hint
};

/// Threads per warp: a one-block launch is trimmed to whole warps.
inline constexpr int64_t kWarp = 32;

/// The launch of an entry over `n` elements (any n >= 0) on `stream`: hint 0
/// gives min(ceil(n / block), max_grid) blocks; hint e > 0 gives ceil(n /
/// (block * e)) blocks, each thread one group. Never more than the driver's
/// 2^31 - 1 blocks (the entries' grid-stride loops cover the rest), never
/// fewer than 1. A launch of one block has only the threads its elements
/// need, rounded up to whole warps (at least one warp): tiny calls start 32
/// threads, not the occupancy block (every entry reads its block size from
/// %ntid). One-dimensional; no dynamic shared memory.
LaunchConfig launch_config(const KernelGeometry &kernel, int64_t n, CUstream_st *stream = nullptr);

/// The launch of a method entry over `segments` segments, one block of
/// `block` threads each in a grid-stride loop: min(segments, max_grid)
/// blocks, at least 1 and at most 2^30. On the legacy stream.
LaunchConfig segment_launch(int64_t segments, int64_t max_grid, int block);

/// The launch of a one-thread-per-row method entry (AccumulateRows) over
/// `rows` rows: ceil(rows / block) blocks of `block` threads, capped as
/// segment_launch caps them.
LaunchConfig row_launch(int64_t rows, int64_t max_grid, int block);

/// How a method call cuts each row of `len` elements into chunks.
struct Chunking {
  int64_t chunks = 1;     // per row (>= 1)
  int64_t chunk_len = 0;  // elements per chunk, a multiple of `align`
};

/// Chunks per row so that rows * chunks fills `resident` blocks twice over,
/// each at least `min_chunk` elements; chunk_len rounded up to `align`.
/// rows, len, min_chunk, align >= 1.
Chunking chunk_rows(int64_t rows, int64_t len, int64_t resident, int64_t min_chunk, int64_t align);

}  // namespace ufjit::cuda
