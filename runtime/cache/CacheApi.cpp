// The public cache-management functions of ufjit/cache.h: thin wrappers over
// a DiskCache configured from the environment, as a Runtime would see it.
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cache/DiskCache.h"
#include "ufjit/cache.h"

namespace ufjit {
namespace {

bool directory_exists(const std::string &dir) {
  struct stat st;
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string cache_dir() {
  return cache::DiskCacheConfig::from_environment().dir;
}

std::vector<CacheEntryInfo> list_cache() {
  cache::DiskCacheConfig config = cache::DiskCacheConfig::from_environment();
  if (!directory_exists(config.dir)) {
    return {};
  }
  return cache::DiskCache(config).list();
}

CacheStats cache_stats() {
  cache::DiskCacheConfig config = cache::DiskCacheConfig::from_environment();
  CacheStats stats;
  stats.dir = config.dir;
  stats.enabled = config.enabled;
  stats.max_bytes = config.max_bytes;
  stats.exists = directory_exists(config.dir);
  if (!stats.exists) {
    return stats;
  }
  stats.writable = access(config.dir.c_str(), W_OK | X_OK) == 0;
  for (const CacheEntryInfo &entry : cache::DiskCache(config).list()) {
    ++stats.entries;
    stats.total_bytes += entry.bytes;
  }
  return stats;
}

CacheVerifyReport verify_cache(bool remove_corrupt) {
  cache::DiskCacheConfig config = cache::DiskCacheConfig::from_environment();
  if (!directory_exists(config.dir)) {
    return {};
  }
  return cache::DiskCache(config).verify(remove_corrupt);
}

uint64_t prune_cache(uint64_t max_bytes) {
  cache::DiskCacheConfig config = cache::DiskCacheConfig::from_environment();
  if (!directory_exists(config.dir)) {
    return 0;
  }
  return cache::DiskCache(config).prune(max_bytes);
}

uint64_t clear_cache() {
  cache::DiskCacheConfig config = cache::DiskCacheConfig::from_environment();
  if (!directory_exists(config.dir)) {
    return 0;
  }
  return cache::DiskCache(config).clear();
}

}  // namespace ufjit
