// The public cache-management functions of ufjit/cache.h: thin wrappers over
// a DiskCache configured from the environment, as a Runtime would see it.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "runtime/cache/DiskCache.h"
#include "ufjit/cache.h"

namespace ufjit {
namespace {

/// Whether `dir` is a directory that can be listed: "" when it is (or does
/// not exist, then `exists` is false), else why not.
std::string directory_problem(const std::string &dir, bool &exists) {
  struct stat st;
  exists = false;
  if (stat(dir.c_str(), &st) != 0) {
    return errno == ENOENT ? "" : std::string("cannot be reached: ") + std::strerror(errno);
  }
  exists = true;
  if (!S_ISDIR(st.st_mode)) {
    return "is not a directory";
  }
  if (access(dir.c_str(), R_OK | X_OK) != 0) {
    return std::string("cannot be read: ") + std::strerror(errno);
  }
  return "";
}

/// The cache as configured, when its directory exists and can be listed.
std::optional<cache::DiskCache> usable_cache(std::string *problem = nullptr) {
  cache::DiskCacheConfig config = cache::DiskCacheConfig::from_environment();
  bool exists = false;
  std::string why = directory_problem(config.dir, exists);
  if (problem != nullptr && !why.empty()) {
    *problem = "the cache directory '" + config.dir + "' " + why;
  }
  if (!exists || !why.empty()) {
    return std::nullopt;
  }
  return std::optional<cache::DiskCache>(std::in_place, config);
}

}  // namespace

std::string cache_dir() {
  return cache::DiskCacheConfig::from_environment().dir;
}

std::vector<CacheEntryInfo> list_cache() {
  std::optional<cache::DiskCache> cache = usable_cache();
  return cache ? cache->list() : std::vector<CacheEntryInfo>{};
}

CacheStats cache_stats() {
  cache::DiskCacheConfig config = cache::DiskCacheConfig::from_environment();
  CacheStats stats;
  stats.dir = config.dir;
  stats.enabled = config.enabled;
  stats.max_bytes = config.max_bytes;
  stats.problem = directory_problem(config.dir, stats.exists);
  if (!stats.exists || !stats.problem.empty()) {
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
  std::optional<cache::DiskCache> cache = usable_cache();
  return cache ? cache->verify(remove_corrupt) : CacheVerifyReport{};
}

CacheRemoveReport prune_cache(uint64_t max_bytes) {
  CacheRemoveReport report;
  std::optional<cache::DiskCache> cache = usable_cache(&report.error);
  return cache ? cache->prune(max_bytes) : report;
}

CacheRemoveReport clear_cache() {
  CacheRemoveReport report;
  std::optional<cache::DiskCache> cache = usable_cache(&report.error);
  return cache ? cache->clear() : report;
}

}  // namespace ufjit
