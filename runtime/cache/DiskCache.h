// The on-disk cubin cache (DESIGN.md "Caches").
//
// Entries are files named <32 hex digits>.cubin: the XXH3-128 hash of the
// DiskCacheKey. Each holds a small header (magic, format version, key hash,
// label and payload sizes, XXH3-128 checksum of label + payload), a label
// saying what the entry is, and the payload (a cubin). Files are written
// atomically: a temporary file in the same directory, fsync, rename. A file
// whose size, header or checksum is wrong is deleted and reported as a miss,
// never loaded; a file not owned by the current user, or writable by group or
// others, is ignored (someone else could have planted code in it). The size
// cap evicts least recently used entries (mtime, touched on each hit). A
// directory we cannot write to still serves hits; stores are then skipped and
// counted, never errors. Thread-safe.
//
// store_in_background() takes the store off a first call's critical path: a
// writer thread of the cache (started on the first such store) writes the
// entry as store() does, so files are still written whole or not at all.
// Until then load() serves the payload from memory; the destructor and
// flush() wait for every queued store (a process killed before that loses
// only cache entries, never leaves a partial one).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ufjit/cache.h"

namespace ufjit::cache {

/// Everything that affects a cubin. The canonical string joins every field
/// with its name, so two keys hash equal only when all fields are equal.
struct DiskCacheKey {
  std::string ir;             // canonical IR text, or a hash of it
  std::string entry;          // entry name (function, signature, variant)
  std::string arch;           // "sm_90"
  std::string ptx_isa;        // ".version" of the PTX, or "default"
  std::string float_options;  // "fastmath=0"
  std::string ufjit_version;
  std::string llvm_version;
  int driver_version = 0;
  std::string canonical() const;
};

/// A 128-bit key hash.
struct KeyHash {
  uint64_t low = 0;
  uint64_t high = 0;
  /// 32 lowercase hex digits, high word first.
  std::string hex() const;
  bool operator==(const KeyHash &o) const { return low == o.low && high == o.high; }
};

KeyHash hash_key(const DiskCacheKey &key);
/// XXH3-128 of raw bytes (the payload checksum).
KeyHash hash_bytes(std::string_view bytes);

struct DiskCacheConfig {
  std::string dir;
  uint64_t max_bytes = uint64_t{1} << 30;
  bool enabled = true;
  /// The directory and cap from UFJIT_CACHE_DIR / XDG_CACHE_HOME / HOME,
  /// UFJIT_CACHE_MAX_BYTES (bytes, optional K/M/G suffix) and UFJIT_CACHE.
  static DiskCacheConfig from_environment();
};

struct DiskCacheCounters {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t stores = 0;
  uint64_t stores_skipped = 0;  // read-only directory, disabled, or too large
  uint64_t corrupt = 0;         // bad entries found (and deleted when possible)
  uint64_t ignored = 0;         // wrong owner or permissions
  uint64_t evictions = 0;
};

class DiskCache {
 public:
  /// Creates the directory (mode 0700) when it is missing and can be made.
  explicit DiskCache(DiskCacheConfig config);
  /// Waits for the background stores (flush()).
  ~DiskCache();
  DiskCache(const DiskCache &) = delete;
  DiskCache &operator=(const DiskCache &) = delete;

  /// The payload stored under `key`, or nothing (a miss). Never throws.
  std::optional<std::string> load(const KeyHash &key);
  /// Stores `payload` atomically, then evicts down to the cap. Never
  /// throws; failures are counted as skipped stores.
  void store(const KeyHash &key, std::string_view label, std::string_view payload);
  /// store() on the cache's writer thread; returns at once. load() of `key`
  /// returns `payload` from then on. Stores synchronously if no thread can
  /// be started.
  void store_in_background(const KeyHash &key, std::string label, std::string payload);
  /// Returns when every store_in_background() before it has finished.
  void flush();

  DiskCacheCounters counters() const;
  bool enabled() const { return config_.enabled; }
  /// False once a write failed for lack of permission (or the directory
  /// could not be made); loads still work.
  bool writable() const { return writable_.load(); }
  const DiskCacheConfig &config() const { return config_; }
  /// The path of the entry for `key` (whether or not it exists).
  std::string entry_path(const KeyHash &key) const;

  // Maintenance, for the public API in ufjit/cache.h.
  std::vector<CacheEntryInfo> list() const;
  CacheVerifyReport verify(bool remove_corrupt);
  /// Evicts LRU entries until the total is <= max_bytes. verify() and
  /// clear() flush() first.
  CacheRemoveReport prune(uint64_t max_bytes);
  CacheRemoveReport clear();

 private:
  struct PendingStore {
    KeyHash key;
    std::string label;
    std::string payload;
  };
  void write_queued();  // the writer thread's loop

  DiskCacheConfig config_;
  // Background stores: queued (and readable by load()) until written.
  std::mutex pending_mutex_;
  std::condition_variable pending_changed_;
  std::deque<PendingStore> queue_;                 // not yet taken by the writer
  // key hex -> (payload, stores of it queued or being written)
  std::map<std::string, std::pair<std::string, int>> in_flight_;
  bool stopping_ = false;
  std::thread writer_;
  std::atomic<bool> writable_{false};
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  std::atomic<uint64_t> stores_{0};
  std::atomic<uint64_t> stores_skipped_{0};
  std::atomic<uint64_t> corrupt_{0};
  std::atomic<uint64_t> ignored_{0};
  std::atomic<uint64_t> evictions_{0};
};

}  // namespace ufjit::cache
