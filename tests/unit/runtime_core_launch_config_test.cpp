// runtime/cuda/LaunchConfig: the grid and block of a generated entry's
// launch from its geometry (occupancy block, grid cap, launch hint). Pure
// arithmetic: runs without a GPU. Expected grids computed by hand.
#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/cuda/LaunchConfig.h"

namespace {

using ufjit::cuda::KernelGeometry;
using ufjit::cuda::launch_config;

KernelGeometry geometry(int block, int64_t max_grid, uint32_t per_thread) {
  KernelGeometry g;
  g.block = block;
  g.max_grid = max_grid;
  g.elements_per_thread = per_thread;
  return g;
}

TEST(LaunchConfig, EntryWithoutHintGetsTheCappedGrid) {
  // 2^26 elements, 256 threads: 262144 blocks uncapped, 4224 allowed.
  const auto c = launch_config(geometry(256, 4224, 0), int64_t{1} << 26);
  EXPECT_EQ(c.grid, 4224u);
  EXPECT_EQ(c.block, 256u);
  EXPECT_EQ(c.shared_bytes, 0u);
  // Below the cap: one block per `block` elements, rounded up.
  EXPECT_EQ(launch_config(geometry(256, 4224, 0), 1000).grid, 4u);
}

TEST(LaunchConfig, HintGivesOneGroupPerThreadOverTheWholeArray) {
  // add_i64's 2-element vectors: 2^26 / (256 * 2) = 131072 blocks, past the cap.
  EXPECT_EQ(launch_config(geometry(256, 4224, 2), int64_t{1} << 26).grid, 131072u);
  // A partial last group still gets a thread: 1025 elements, 4 per thread,
  // 128 threads a block -> ceil(1025 / 512) = 3 blocks.
  EXPECT_EQ(launch_config(geometry(128, 4224, 4), 1025).grid, 3u);
  EXPECT_EQ(launch_config(geometry(128, 4224, 4), 1024).grid, 2u);
}

TEST(LaunchConfig, EmptyAndHugeLaunchesStayInTheDriversRange) {
  EXPECT_EQ(launch_config(geometry(256, 4224, 0), 0).grid, 1u);
  EXPECT_EQ(launch_config(geometry(256, 4224, 2), 0).grid, 1u);
  // 2^42 elements at 1 per thread would be 2^34 blocks: the grid-stride loop
  // covers what 2^31 - 1 blocks do not.
  EXPECT_EQ(launch_config(geometry(256, 4224, 1), int64_t{1} << 42).grid, 0x7fffffffu);
}

TEST(LaunchConfig, OneBlockLaunchHasOnlyTheWarpsItsElementsNeed) {
  // 1 element: one warp, not the occupancy block (tiny calls, issue 13 item 1).
  EXPECT_EQ(launch_config(geometry(1024, 4224, 0), 1).block, 32u);
  EXPECT_EQ(launch_config(geometry(1024, 4224, 0), 0).block, 32u);
  // 33 elements at 1 per thread: 2 warps; at 4 per thread: 9 threads, 1 warp.
  EXPECT_EQ(launch_config(geometry(1024, 4224, 0), 33).block, 64u);
  EXPECT_EQ(launch_config(geometry(1024, 4224, 4), 33).block, 32u);
  // 4 per thread, 4096 elements: 1024 threads, the whole block.
  EXPECT_EQ(launch_config(geometry(1024, 4224, 4), 4096).block, 1024u);
  // Never more than the occupancy block, which a second block keeps.
  EXPECT_EQ(launch_config(geometry(96, 4224, 0), 90).block, 96u);
  EXPECT_EQ(launch_config(geometry(256, 4224, 0), 1000).block, 256u);
}

TEST(LaunchConfig, CapIsSixteenWavesAndAtLeastOneBlockPerMultiprocessor) {
  EXPECT_EQ(ufjit::cuda::capped_grid(264, 132), 264 * 16);
  EXPECT_EQ(ufjit::cuda::capped_grid(1, 132), 132);
}

}  // namespace
