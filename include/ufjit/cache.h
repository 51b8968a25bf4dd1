// ufjit public API: the on-disk kernel cache and the devices, for tools.
//
// The disk cache keeps cubins made by the CUDA driver's linker, keyed by a
// hash of everything that affects the code (canonical IR, kernel variant,
// target arch, PTX ISA, float options, ufjit/LLVM/driver versions). It lives
// in $UFJIT_CACHE_DIR, else $XDG_CACHE_HOME/ufjit, else ~/.cache/ufjit;
// UFJIT_CACHE=off disables it; UFJIT_CACHE_MAX_BYTES caps its size (default
// 1 GiB, least recently used entries evicted first). These functions back
// `ufjit cache list|stats|verify|prune|clear` and `ufjit info`; none needs a
// GPU, and none throws for a missing or unreadable directory (CacheStats and
// CacheRemoveReport say what is wrong). Entries are opened only after lstat
// shows a regular file of ours, without following links and without
// blocking: a FIFO or device named like an entry never hangs them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ufjit/export.h"

namespace ufjit {

/// One file of the cache directory.
struct UFJIT_API CacheEntryInfo {
  std::string path;
  std::string key;    // the 128-bit key hash, 32 hex digits (the file name's stem)
  std::string label;  // what the entry holds: "gauss__float32__contig_i32 sm_90"
  uint64_t bytes = 0;  // file size, header included
  int64_t last_used = 0;  // seconds since the epoch (the file's mtime, touched on each hit)
  bool valid = true;
  std::string problem;  // why not valid: "truncated", "checksum mismatch", ...
};

/// The state of the cache directory.
struct UFJIT_API CacheStats {
  std::string dir;
  bool enabled = true;   // false when UFJIT_CACHE=off
  bool exists = false;
  bool writable = false;
  uint64_t entries = 0;
  uint64_t total_bytes = 0;
  uint64_t max_bytes = 0;
  /// Why the directory cannot be used, or "": "is not a directory",
  /// "cannot be read: Permission denied". (A missing directory is not a
  /// problem: it is made on the first store.)
  std::string problem;
};

/// What prune_cache and clear_cache did.
struct UFJIT_API CacheRemoveReport {
  uint64_t removed = 0;
  uint64_t failed = 0;  // entries that could not be removed
  std::string error;    // the first failure, or why the directory could not be read; "" when none
};

/// What verify_cache found.
struct UFJIT_API CacheVerifyReport {
  uint64_t checked = 0;
  std::vector<CacheEntryInfo> corrupt;  // invalid entries (removed when asked)
  uint64_t removed = 0;
};

/// The cache directory this process would use (whether or not it exists).
UFJIT_API std::string cache_dir();
/// Every entry, least recently used first. Invalid ones are listed with
/// `valid == false` only by verify_cache; list_cache reads headers alone.
UFJIT_API std::vector<CacheEntryInfo> list_cache();
UFJIT_API CacheStats cache_stats();
/// Reads every entry in full and checks size, header and checksum;
/// `remove_corrupt` deletes the bad ones.
UFJIT_API CacheVerifyReport verify_cache(bool remove_corrupt = false);
/// Evicts least recently used entries until the total is at most
/// `max_bytes`; reports how many were removed and how many could not be.
UFJIT_API CacheRemoveReport prune_cache(uint64_t max_bytes);
/// Removes every entry (and stale temporary files); reports how many were
/// removed and how many could not be (a read-only directory, a directory
/// named like an entry), with the first reason.
UFJIT_API CacheRemoveReport clear_cache();

/// One CUDA device as the driver reports it.
struct UFJIT_API DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  std::string arch;  // "sm_90"
  int sm_count = 0;
  uint64_t total_memory = 0;  // bytes
};

/// The CUDA driver and its devices. `available` is false (with a one-line
/// `reason`) when there is no driver or device; the CPU target still works.
struct UFJIT_API DriverInfo {
  bool available = false;
  std::string reason;
  int driver_version = 0;  // 12080 for CUDA 12.8
  std::string driver_version_string;  // "12.8"
  std::vector<DeviceInfo> devices;
};

/// Never throws; loads the driver (dlopen) on first use.
UFJIT_API DriverInfo device_info();

}  // namespace ufjit
