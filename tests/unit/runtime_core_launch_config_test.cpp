// runtime/cuda/LaunchConfig: the grid and block of a generated entry's
// launch from its geometry (occupancy block, grid cap, launch hint), and of
// the method entries from their segments. Pure arithmetic: runs without a
// GPU. Expected grids computed by hand.
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
  EXPECT_EQ(c.grid.x, 4224u);
  EXPECT_EQ(c.block.x, 256u);
  EXPECT_EQ(c.grid.y * c.grid.z * c.block.y * c.block.z, 1u);
  EXPECT_EQ(c.stream, nullptr);
  EXPECT_EQ(c.shared_bytes, 0u);
  // Below the cap: one block per `block` elements, rounded up.
  EXPECT_EQ(launch_config(geometry(256, 4224, 0), 1000).grid.x, 4u);
}

TEST(LaunchConfig, HintGivesOneGroupPerThreadOverTheWholeArray) {
  // add_i64's 2-element vectors: 2^26 / (256 * 2) = 131072 blocks, past the cap.
  EXPECT_EQ(launch_config(geometry(256, 4224, 2), int64_t{1} << 26).grid.x, 131072u);
  // A partial last group still gets a thread: 1025 elements, 4 per thread,
  // 128 threads a block -> ceil(1025 / 512) = 3 blocks.
  EXPECT_EQ(launch_config(geometry(128, 4224, 4), 1025).grid.x, 3u);
  EXPECT_EQ(launch_config(geometry(128, 4224, 4), 1024).grid.x, 2u);
}

TEST(LaunchConfig, EmptyAndHugeLaunchesStayInTheDriversRange) {
  EXPECT_EQ(launch_config(geometry(256, 4224, 0), 0).grid.x, 1u);
  EXPECT_EQ(launch_config(geometry(256, 4224, 2), 0).grid.x, 1u);
  // 2^42 elements at 1 per thread would be 2^34 blocks: the grid-stride loop
  // covers what 2^31 - 1 blocks do not.
  EXPECT_EQ(launch_config(geometry(256, 4224, 1), int64_t{1} << 42).grid.x, 0x7fffffffu);
}

TEST(LaunchConfig, OneBlockLaunchHasOnlyTheWarpsItsElementsNeed) {
  // 1 element: one warp, not the occupancy block (tiny calls, issue 13 item 1).
  EXPECT_EQ(launch_config(geometry(1024, 4224, 0), 1).block.x, 32u);
  EXPECT_EQ(launch_config(geometry(1024, 4224, 0), 0).block.x, 32u);
  // 33 elements at 1 per thread: 2 warps; at 4 per thread: 9 threads, 1 warp.
  EXPECT_EQ(launch_config(geometry(1024, 4224, 0), 33).block.x, 64u);
  EXPECT_EQ(launch_config(geometry(1024, 4224, 4), 33).block.x, 32u);
  // 4 per thread, 4096 elements: 1024 threads, the whole block.
  EXPECT_EQ(launch_config(geometry(1024, 4224, 4), 4096).block.x, 1024u);
  // Never more than the occupancy block, which a second block keeps.
  EXPECT_EQ(launch_config(geometry(96, 4224, 0), 90).block.x, 96u);
  EXPECT_EQ(launch_config(geometry(256, 4224, 0), 1000).block.x, 256u);
}

TEST(LaunchConfig, CapIsSixteenWavesAndAtLeastOneBlockPerMultiprocessor) {
  EXPECT_EQ(ufjit::cuda::capped_grid(264, 132), 264 * 16);
  EXPECT_EQ(ufjit::cuda::capped_grid(1, 132), 132);
}

TEST(LaunchConfig, StreamTravelsWithTheConfiguration) {
  auto *stream = reinterpret_cast<CUstream_st *>(uintptr_t{0x1000});
  EXPECT_EQ(launch_config(geometry(256, 4224, 0), 1000, stream).stream, stream);
}

TEST(MethodLaunch, OneBlockOfTheReduceBlockPerSegmentUpToTheCap) {
  const auto c = ufjit::cuda::segment_launch(100, 4224, 256);
  EXPECT_EQ(c.grid.x, 100u);
  EXPECT_EQ(c.block.x, 256u);
  EXPECT_EQ(c.shared_bytes, 0u);
  EXPECT_EQ(c.stream, nullptr);
  EXPECT_EQ(ufjit::cuda::segment_launch(100000, 4224, 256).grid.x, 4224u);
  // Never fewer than one block, never more than 2^30.
  EXPECT_EQ(ufjit::cuda::segment_launch(0, 4224, 256).grid.x, 1u);
  EXPECT_EQ(ufjit::cuda::segment_launch(int64_t{1} << 40, int64_t{1} << 40, 256).grid.x, 1u << 30);
}

TEST(MethodLaunch, RowLaunchHasOneThreadPerRow) {
  // 1000 rows, 256 threads a block: ceil(1000 / 256) = 4 blocks.
  EXPECT_EQ(ufjit::cuda::row_launch(1000, 4224, 256).grid.x, 4u);
  EXPECT_EQ(ufjit::cuda::row_launch(1024, 4224, 256).grid.x, 4u);
  EXPECT_EQ(ufjit::cuda::row_launch(1, 4224, 256).grid.x, 1u);
  EXPECT_EQ(ufjit::cuda::row_launch(int64_t{1} << 30, 4224, 256).grid.x, 4224u);
  EXPECT_EQ(ufjit::cuda::row_launch(1000, 4224, 256).block.x, 256u);
}

TEST(MethodLaunch, ChunksFillTheDeviceTwiceInWholeTiles) {
  // One row of 10^6 elements, 1056 resident blocks, chunks of >= 4096:
  // min(ceil(10^6 / 4096) = 245, 2 * 1056) = 245 chunks per row; 10^6 / 245
  // = 4081.6 -> 4082, rounded up to 256 -> 4096; ceil(10^6 / 4096) = 245.
  const auto c = ufjit::cuda::chunk_rows(1, 1000000, 1056, 4096, 256);
  EXPECT_EQ(c.chunk_len, 4096);
  EXPECT_EQ(c.chunks, 245);
  // 64 rows of 2^20: 2 * 1056 / 64 = 33 chunks per row; 2^20 / 33 =
  // 31775.03 -> 31776 -> 31744 + 256 = 32000; ceil(2^20 / 32000) = 33.
  const auto d = ufjit::cuda::chunk_rows(64, int64_t{1} << 20, 1056, 4096, 256);
  EXPECT_EQ(d.chunk_len, 32000);
  EXPECT_EQ(d.chunks, 33);
  // A short row is one chunk, rounded up to the alignment.
  const auto e = ufjit::cuda::chunk_rows(3, 10, 1056, 4096, 2048);
  EXPECT_EQ(e.chunks, 1);
  EXPECT_EQ(e.chunk_len, 2048);
}

}  // namespace
