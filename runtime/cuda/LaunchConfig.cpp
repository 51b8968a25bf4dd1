// Launch configuration of generated entries: see LaunchConfig.h.
#include "runtime/cuda/LaunchConfig.h"

#include <algorithm>

namespace ufjit::cuda {

int64_t capped_grid(int min_grid, int sm_count) { return std::max<int64_t>(int64_t{min_grid} * kWaves, sm_count); }

LaunchConfig launch_config(const KernelGeometry &kernel, int64_t n) {
  constexpr int64_t kMaxGridX = 0x7fffffff;
  LaunchConfig config;
  config.block = static_cast<unsigned>(kernel.block);
  const int64_t per_block = int64_t{kernel.block} * std::max<int64_t>(kernel.elements_per_thread, 1);
  const int64_t blocks = n / per_block + (n % per_block != 0 ? 1 : 0);
  const int64_t limit = kernel.elements_per_thread > 0 ? kMaxGridX : std::min(kernel.max_grid, kMaxGridX);
  config.grid = static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, limit));
  if (blocks <= 1) {
    // One block: only the threads the elements need, in whole warps (a
    // 1-element call launches 32 threads, not the occupancy block's 1024).
    const int64_t e = std::max<int64_t>(kernel.elements_per_thread, 1);
    const int64_t threads = (n + e - 1) / e;
    const int64_t warps = std::max<int64_t>((threads + kWarp - 1) / kWarp, 1);
    config.block = static_cast<unsigned>(std::min<int64_t>(warps * kWarp, kernel.block));
  }
  return config;
}

}  // namespace ufjit::cuda
