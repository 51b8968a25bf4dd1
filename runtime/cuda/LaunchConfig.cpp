// Launch configuration of generated entries: see LaunchConfig.h.
#include "runtime/cuda/LaunchConfig.h"

#include <algorithm>

namespace ufjit::cuda {

namespace {

/// The most blocks a method launch asks for: its grid-stride loop covers the rest.
constexpr int64_t kMaxSegmentGrid = int64_t{1} << 30;

}  // namespace

int64_t capped_grid(int min_grid, int sm_count) {
  return std::max<int64_t>(int64_t{min_grid} * kWaves, sm_count);
}

LaunchConfig launch_config(const KernelGeometry &kernel, int64_t n, CUstream_st *stream) {
  constexpr int64_t kMaxGridX = 0x7fffffff;
  LaunchConfig config;
  config.stream = stream;
  config.block.x = static_cast<unsigned>(kernel.block);
  const int64_t per_block = int64_t{kernel.block} * std::max<int64_t>(kernel.elements_per_thread, 1);
  const int64_t blocks = n / per_block + (n % per_block != 0 ? 1 : 0);
  const int64_t limit = kernel.elements_per_thread > 0 ? kMaxGridX : std::min(kernel.max_grid, kMaxGridX);
  config.grid.x = static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, limit));
  if (blocks <= 1) {
    // One block: only the threads the elements need, in whole warps (a
    // 1-element call launches 32 threads, not the occupancy block's 1024).
    const int64_t e = std::max<int64_t>(kernel.elements_per_thread, 1);
    const int64_t threads = (n + e - 1) / e;
    const int64_t warps = std::max<int64_t>((threads + kWarp - 1) / kWarp, 1);
    config.block.x = static_cast<unsigned>(std::min<int64_t>(warps * kWarp, kernel.block));
  }
  return config;
}

LaunchConfig segment_launch(int64_t segments, int64_t max_grid, int block) {
  LaunchConfig config;
  config.grid.x =
      static_cast<unsigned>(std::clamp<int64_t>(std::min(segments, max_grid), 1, kMaxSegmentGrid));
  config.block.x = static_cast<unsigned>(block);
  return config;
}

LaunchConfig row_launch(int64_t rows, int64_t max_grid, int block) {
  return segment_launch((rows + block - 1) / block, max_grid, block);
}

Chunking chunk_rows(int64_t rows, int64_t len, int64_t resident, int64_t min_chunk, int64_t align) {
  const int64_t per_row =
      std::max<int64_t>(1, std::min((len + min_chunk - 1) / min_chunk, (2 * resident + rows - 1) / rows));
  int64_t chunk_len = (len + per_row - 1) / per_row;
  chunk_len = (chunk_len + align - 1) / align * align;
  Chunking c;
  c.chunks = (len + chunk_len - 1) / chunk_len;
  c.chunk_len = chunk_len;
  return c;
}

}  // namespace ufjit::cuda
