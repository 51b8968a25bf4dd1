// The size classes and the idle-memory cap of the device block cache (host
// logic only: the blocks here are plain numbers, nothing touches a device).
#include <gtest/gtest.h>

#include "runtime/cuda/DeviceBlockCache.h"

namespace ufjit::cuda {
namespace {

TEST(DeviceBlockCache, RequestsRoundUpToPowerOfTwoClassesOfAtLeast256Bytes) {
  EXPECT_EQ(DeviceBlockCache::block_bytes(1), 256u);
  EXPECT_EQ(DeviceBlockCache::block_bytes(256), 256u);
  EXPECT_EQ(DeviceBlockCache::block_bytes(257), 512u);
  EXPECT_EQ(DeviceBlockCache::block_bytes(4000), 4096u);
  EXPECT_EQ(DeviceBlockCache::block_bytes(DeviceBlockCache::kMaxBlockBytes), DeviceBlockCache::kMaxBlockBytes);
  EXPECT_FALSE(DeviceBlockCache::cacheable(0));
  EXPECT_TRUE(DeviceBlockCache::cacheable(DeviceBlockCache::kMaxBlockBytes));
  EXPECT_FALSE(DeviceBlockCache::cacheable(DeviceBlockCache::kMaxBlockBytes + 1));
}

TEST(DeviceBlockCache, AKeptBlockIsTakenAgainOnlyForItsOwnClass) {
  DeviceBlockCache cache;
  EXPECT_EQ(cache.take(512), 0u);
  ASSERT_TRUE(cache.keep(0x1000, 512));
  EXPECT_EQ(cache.take(1024), 0u);
  EXPECT_EQ(cache.take(256), 0u);
  EXPECT_EQ(cache.take(512), 0x1000u);
  EXPECT_EQ(cache.take(512), 0u);
}

TEST(DeviceBlockCache, IdleMemoryStaysUnderTheCapAndDrainReturnsEveryBlock) {
  DeviceBlockCache cache;
  const std::size_t block = DeviceBlockCache::kMaxBlockBytes;
  const std::size_t fit = DeviceBlockCache::kMaxIdleBytes / block;
  for (std::size_t i = 0; i < fit; ++i) {
    ASSERT_TRUE(cache.keep(0x100000 * (i + 1), block));
  }
  EXPECT_FALSE(cache.keep(0xdead000, block)) << "over the cap: the caller must free it";
  EXPECT_EQ(cache.drain().size(), fit);
  EXPECT_TRUE(cache.drain().empty());
  EXPECT_TRUE(cache.keep(0x2000, block)) << "draining frees the room";
}

}  // namespace
}  // namespace ufjit::cuda
