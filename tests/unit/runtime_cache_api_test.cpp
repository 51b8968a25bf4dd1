// The public cache API (ufjit/cache.h) and the environment that configures it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>

#include "runtime/cache/DiskCache.h"
#include "tests/unit/runtime_cache_test_util.h"
#include "tests/unit/scoped_env.h"
#include "ufjit/cache.h"
#include "ufjit/errors.h"

namespace ufjit::cache {
namespace {

using testing::payload;
using testing::read_file;
using testing::ScratchDir;
using testing::set_mtime;
using testing::write_file;

using ::ufjit::testing::ScopedEnv;

KeyHash key_of(const std::string &ir) {
  DiskCacheKey key;
  key.ir = ir;
  return hash_key(key);
}

TEST(DiskCacheConfig, UfjitCacheDirWinsOverXdgAndHome) {
  ScopedEnv dir("UFJIT_CACHE_DIR", "/x/ufjit-dir/");
  ScopedEnv xdg("XDG_CACHE_HOME", "/x/xdg");
  ScopedEnv home("HOME", "/x/home");
  EXPECT_EQ(DiskCacheConfig::from_environment().dir, "/x/ufjit-dir");
}

TEST(DiskCacheConfig, XdgCacheHomeThenHomeDotCache) {
  ScopedEnv dir("UFJIT_CACHE_DIR", std::nullopt);
  ScopedEnv home("HOME", "/x/home");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/x/xdg");
    EXPECT_EQ(DiskCacheConfig::from_environment().dir, "/x/xdg/ufjit");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(DiskCacheConfig::from_environment().dir, "/x/home/.cache/ufjit");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/is/ignored");
    EXPECT_EQ(DiskCacheConfig::from_environment().dir, "/x/home/.cache/ufjit");
  }
}

TEST(DiskCacheConfig, MaxBytesDefaultsToOneGibAndAcceptsSuffixes) {
  {
    ScopedEnv max("UFJIT_CACHE_MAX_BYTES", std::nullopt);
    EXPECT_EQ(DiskCacheConfig::from_environment().max_bytes, uint64_t{1} << 30);
  }
  {
    ScopedEnv max("UFJIT_CACHE_MAX_BYTES", "12345");
    EXPECT_EQ(DiskCacheConfig::from_environment().max_bytes, 12345u);
  }
  {
    ScopedEnv max("UFJIT_CACHE_MAX_BYTES", "3M");
    EXPECT_EQ(DiskCacheConfig::from_environment().max_bytes, 3u * 1024 * 1024);
  }
  for (const char *junk : {"lots", "-5", "1.5G", "18446744073709551616", "99999999999T"}) {
    ScopedEnv max("UFJIT_CACHE_MAX_BYTES", junk);
    EXPECT_THROW((void)DiskCacheConfig::from_environment(), ::ufjit::InputError) << junk;
  }
}

TEST(DiskCacheConfig, UfjitCacheOffDisablesTheCache) {
  for (const char *off : {"off", "OFF", "0", "false", "No"}) {
    ScopedEnv env("UFJIT_CACHE", off);
    EXPECT_FALSE(DiskCacheConfig::from_environment().enabled) << off;
  }
  {
    ScopedEnv on("UFJIT_CACHE", std::nullopt);
    EXPECT_TRUE(DiskCacheConfig::from_environment().enabled);
  }
}

TEST(CacheApi, StatsListVerifyPruneAndClearSeeTheSameDirectory) {
  ScratchDir scratch;
  ScopedEnv dir("UFJIT_CACHE_DIR", scratch.path());
  ScopedEnv max("UFJIT_CACHE_MAX_BYTES", std::nullopt);
  ScopedEnv off("UFJIT_CACHE", std::nullopt);
  DiskCache cache(DiskCacheConfig::from_environment());
  cache.store(key_of("a"), "kernel-a sm_90", payload(1000, 1));
  cache.store(key_of("b"), "kernel-b sm_90", payload(2000, 2));
  cache.store(key_of("c"), "kernel-c sm_90", payload(3000, 3));
  set_mtime(cache.entry_path(key_of("a")), 3000);
  set_mtime(cache.entry_path(key_of("b")), 1000);
  set_mtime(cache.entry_path(key_of("c")), 2000);

  EXPECT_EQ(cache_dir(), scratch.path());
  CacheStats stats = cache_stats();
  EXPECT_EQ(stats.entries, 3u);
  EXPECT_EQ(stats.total_bytes, 6000u + 3 * (64 + 14));
  EXPECT_TRUE(stats.exists);
  EXPECT_TRUE(stats.writable);

  std::vector<CacheEntryInfo> listed = list_cache();
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].label, "kernel-b sm_90") << "least recently used first";
  EXPECT_EQ(listed[1].label, "kernel-c sm_90");
  EXPECT_EQ(listed[2].label, "kernel-a sm_90");
  EXPECT_EQ(listed[0].key, key_of("b").hex());

  // Corrupt one entry: verify reports it, and removes it when asked.
  std::string path_c = cache.entry_path(key_of("c"));
  std::string bytes = read_file(path_c);
  write_file(path_c, bytes.substr(0, bytes.size() / 2));
  set_mtime(path_c, 2000);
  CacheVerifyReport report = verify_cache(false);
  EXPECT_EQ(report.checked, 3u);
  ASSERT_EQ(report.corrupt.size(), 1u);
  EXPECT_EQ(report.corrupt[0].key, key_of("c").hex());
  EXPECT_EQ(report.corrupt[0].problem, "truncated");
  EXPECT_EQ(report.removed, 0u);
  EXPECT_EQ(verify_cache(true).removed, 1u);
  EXPECT_TRUE(verify_cache(false).corrupt.empty());

  // Prune to one entry's size keeps the most recently used (a).
  EXPECT_EQ(prune_cache(1100).removed, 1u);
  listed = list_cache();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].label, "kernel-a sm_90");

  EXPECT_EQ(clear_cache().removed, 1u);
  EXPECT_EQ(cache_stats().entries, 0u);
}

TEST(CacheApi, MissingDirectoryIsReportedNotCreated) {
  ScratchDir scratch;
  ScopedEnv dir("UFJIT_CACHE_DIR", scratch.sub("missing"));
  CacheStats stats = cache_stats();
  EXPECT_FALSE(stats.exists);
  EXPECT_EQ(stats.entries, 0u);
  EXPECT_TRUE(list_cache().empty());
  EXPECT_EQ(clear_cache().removed, 0u);
  EXPECT_EQ(clear_cache().error, "");
  EXPECT_FALSE(std::filesystem::exists(scratch.sub("missing")));
}

TEST(CacheApi, DirectoryThatIsAFileIsAProblemNotMissing) {
  ScratchDir scratch;
  write_file(scratch.sub("file"), "keep");
  ScopedEnv dir("UFJIT_CACHE_DIR", scratch.sub("file"));
  CacheStats stats = cache_stats();
  EXPECT_TRUE(stats.exists);
  EXPECT_EQ(stats.problem, "is not a directory");
  CacheRemoveReport report = clear_cache();
  EXPECT_EQ(report.removed, 0u);
  EXPECT_NE(report.error.find("is not a directory"), std::string::npos) << report.error;
  EXPECT_NE(prune_cache(0).error, "");
  EXPECT_TRUE(list_cache().empty());
  EXPECT_EQ(read_file(scratch.sub("file")), "keep");
}

TEST(DeviceInfoApi, ReportsAReasonInsteadOfThrowingWithoutADriver) {
  DriverInfo info = device_info();
  if (info.available) {
    EXPECT_FALSE(info.devices.empty());
    EXPECT_GT(info.driver_version, 0);
  } else {
    EXPECT_FALSE(info.reason.empty());
    EXPECT_TRUE(info.devices.empty());
  }
}

}  // namespace
}  // namespace ufjit::cache
