// The on-disk cubin cache: file format, atomic writes, checks and eviction.
#include "runtime/cache/DiskCache.h"
#include "support/Settings.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ufjit::cache {
namespace {

constexpr char kMagic[8] = {'U', 'F', 'J', 'I', 'T', 'C', 'B', '1'};
constexpr uint32_t kFormatVersion = 1;
constexpr const char *kSuffix = ".cubin";
constexpr const char *kTempPrefix = ".tmp-";
constexpr std::size_t kHexDigits = 32;
constexpr time_t kStaleTempSeconds = 3600;

/// The fixed 64-byte header, little-endian on every supported host.
struct Header {
  char magic[8];
  uint32_t format;
  uint32_t label_size;
  uint64_t key_low;
  uint64_t key_high;
  uint64_t payload_size;
  uint64_t checksum_low;
  uint64_t checksum_high;
  uint64_t reserved;
};
static_assert(sizeof(Header) == 64, "the cache header is 64 bytes");

bool is_entry_name(const std::string &name) {
  std::size_t suffix = std::strlen(kSuffix);
  if (name.size() != kHexDigits + suffix || name.compare(kHexDigits, suffix, kSuffix) != 0) {
    return false;
  }
  return std::all_of(name.begin(), name.begin() + kHexDigits,
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_temp_name(const std::string &name) {
  return name.rfind(kTempPrefix, 0) == 0;
}

/// Why a file's bytes are not a valid entry for `expected` (null: any key),
/// or an empty string. On success `label` and `payload` point into `bytes`.
std::string check_entry(const std::string &bytes, const KeyHash *expected, std::string_view *label,
                        std::string_view *payload) {
  if (bytes.size() < sizeof(Header)) {
    return "truncated (shorter than the header)";
  }
  Header h;
  std::memcpy(&h, bytes.data(), sizeof(Header));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) {
    return "not a ufjit cache entry (bad magic)";
  }
  if (h.format != kFormatVersion) {
    return "unknown format version " + std::to_string(h.format);
  }
  uint64_t expected_size = sizeof(Header) + uint64_t{h.label_size} + h.payload_size;
  if (h.payload_size > bytes.size() || bytes.size() != expected_size) {
    return bytes.size() < expected_size ? "truncated" : "size mismatch";
  }
  if (expected != nullptr && (h.key_low != expected->low || h.key_high != expected->high)) {
    return "key mismatch";
  }
  std::string_view body(bytes.data() + sizeof(Header), bytes.size() - sizeof(Header));
  KeyHash sum = hash_bytes(body);
  if (sum.low != h.checksum_low || sum.high != h.checksum_high) {
    return "checksum mismatch";
  }
  if (label != nullptr) {
    *label = body.substr(0, h.label_size);
  }
  if (payload != nullptr) {
    *payload = body.substr(h.label_size);
  }
  return {};
}

/// Reads the whole file behind `fd`.
bool read_all(int fd, std::string &out) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return false;
  }
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t got = ::read(fd, out.data() + done, out.size() - done);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      out.resize(done);
      return got == 0;
    }
    done += static_cast<std::size_t>(got);
  }
  return true;
}

bool write_all(int fd, const char *data, std::size_t size) {
  while (size > 0) {
    ssize_t put = ::write(fd, data, size);
    if (put < 0 && errno == EINTR) {
      continue;
    }
    if (put <= 0) {
      return false;
    }
    data += put;
    size -= static_cast<std::size_t>(put);
  }
  return true;
}

/// Whether a file may be trusted: a regular file of ours that only we can write.
std::string trust_problem(const struct stat &st) {
  if (!S_ISREG(st.st_mode)) {
    return "not a regular file";
  }
  if (st.st_uid != geteuid()) {
    return "not owned by the current user";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return "writable by group or others";
  }
  return {};
}

/// Opens a cache file for reading only when it can be trusted (see
/// trust_problem): lstat first, so that a FIFO or device named like an entry
/// is never opened; then O_NOFOLLOW | O_NONBLOCK, so that a file swapped for
/// a link or FIFO meanwhile neither follows nor blocks; then fstat again.
/// Returns the descriptor, or -1 with `problem` set ("" when the file is
/// simply not there).
int open_entry(const std::string &path, std::string &problem) {
  struct stat before;
  if (lstat(path.c_str(), &before) != 0) {
    problem = errno == ENOENT ? "" : std::string("cannot stat: ") + std::strerror(errno);
    return -1;
  }
  problem = S_ISLNK(before.st_mode) ? "a symbolic link" : trust_problem(before);
  if (!problem.empty()) {
    return -1;
  }
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    problem = errno == ENOENT ? "" : std::string("cannot open: ") + std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_dev != before.st_dev || st.st_ino != before.st_ino) {
    problem = "replaced while being opened";
  } else {
    problem = trust_problem(st);
  }
  if (!problem.empty()) {
    close(fd);
    return -1;
  }
  return fd;
}

/// mkdir -p with mode 0700 for every directory it creates.
bool make_dirs(const std::string &dir) {
  if (dir.empty()) {
    return false;
  }
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    return S_ISDIR(st.st_mode);
  }
  std::size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    make_dirs(dir.substr(0, slash));
  }
  return mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
}

/// One directory entry of interest, with its stat.
struct FileItem {
  std::string name;
  std::string path;
  struct stat st;
};

std::vector<FileItem> scan(const std::string &dir, bool temps) {
  std::vector<FileItem> items;
  DIR *d = opendir(dir.c_str());
  if (d == nullptr) {
    return items;
  }
  while (struct dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (temps ? !is_temp_name(name) : !is_entry_name(name)) {
      continue;
    }
    FileItem item;
    item.name = name;
    item.path = dir + "/" + name;
    if (lstat(item.path.c_str(), &item.st) == 0) {
      items.push_back(std::move(item));
    }
  }
  closedir(d);
  std::sort(items.begin(), items.end(), [](const FileItem &a, const FileItem &b) {
    if (a.st.st_mtim.tv_sec != b.st.st_mtim.tv_sec) {
      return a.st.st_mtim.tv_sec < b.st.st_mtim.tv_sec;
    }
    if (a.st.st_mtim.tv_nsec != b.st.st_mtim.tv_nsec) {
      return a.st.st_mtim.tv_nsec < b.st.st_mtim.tv_nsec;
    }
    return a.name < b.name;
  });
  return items;
}

void remove_stale_temps(const std::string &dir, bool all) {
  time_t now = time(nullptr);
  for (const FileItem &item : scan(dir, true)) {
    if (all || now - item.st.st_mtim.tv_sec > kStaleTempSeconds) {
      unlink(item.path.c_str());
    }
  }
}

/// Unlinks one entry, counting it as removed (also when it is already gone)
/// or failed, with the first failure's reason.
bool remove_entry(const FileItem &item, CacheRemoveReport &report) {
  if (unlink(item.path.c_str()) == 0 || errno == ENOENT) {
    ++report.removed;
    return true;
  }
  ++report.failed;
  if (report.error.empty()) {
    report.error = "cannot remove '" + item.path + "': " + std::strerror(errno);
  }
  return false;
}

CacheEntryInfo describe(const FileItem &item) {
  CacheEntryInfo info;
  info.path = item.path;
  info.key = item.name.substr(0, kHexDigits);
  info.bytes = static_cast<uint64_t>(item.st.st_size);
  info.last_used = static_cast<int64_t>(item.st.st_mtim.tv_sec);
  return info;
}

}  // namespace

std::string DiskCacheKey::canonical() const {
  std::string out;
  out.reserve(ir.size() + entry.size() + 128);
  // The revision of what a cached entry means beyond the key's fields: 2 since
  // every entry's launch hint is stored as its value plus one (LaunchHint.h),
  // so that an entry of revision 1 is never read with the new meaning.
  out += "ufjit-cubin-2\x1fir=" + ir;
  out += "\x1f" "entry=" + entry;
  out += "\x1f" "arch=" + arch;
  out += "\x1f" "ptx=" + ptx_isa;
  out += "\x1f" "float=" + float_options;
  out += "\x1f" "ufjit=" + ufjit_version;
  out += "\x1f" "llvm=" + llvm_version;
  out += "\x1f" "driver=" + std::to_string(driver_version);
  return out;
}

std::string KeyHash::hex() const {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(kHexDigits, '0');
  for (int i = 0; i < 16; ++i) {
    out[static_cast<std::size_t>(i)] = kDigits[(high >> (60 - 4 * i)) & 0xf];
    out[static_cast<std::size_t>(16 + i)] = kDigits[(low >> (60 - 4 * i)) & 0xf];
  }
  return out;
}

KeyHash hash_bytes(std::string_view bytes) {
  XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return KeyHash{h.low64, h.high64};
}

KeyHash hash_key(const DiskCacheKey &key) {
  return hash_bytes(key.canonical());
}

DiskCacheConfig DiskCacheConfig::from_environment() {
  DiskCacheConfig config;
  config.enabled = support::read_switch("UFJIT_CACHE", true);
  config.max_bytes = support::read_size("UFJIT_CACHE_MAX_BYTES").value_or(config.max_bytes);
  const char *dir = std::getenv("UFJIT_CACHE_DIR");
  const char *xdg = std::getenv("XDG_CACHE_HOME");
  const char *home = std::getenv("HOME");
  if (dir != nullptr && *dir != '\0') {
    config.dir = dir;
  } else if (xdg != nullptr && xdg[0] == '/') {
    config.dir = std::string(xdg) + "/ufjit";
  } else if (home != nullptr && *home != '\0') {
    config.dir = std::string(home) + "/.cache/ufjit";
  } else if (const struct passwd *pw = getpwuid(geteuid()); pw != nullptr && pw->pw_dir != nullptr) {
    config.dir = std::string(pw->pw_dir) + "/.cache/ufjit";
  } else {
    config.dir = "/tmp/ufjit-cache-" + std::to_string(geteuid());
  }
  while (config.dir.size() > 1 && config.dir.back() == '/') {
    config.dir.pop_back();
  }
  return config;
}

DiskCache::DiskCache(DiskCacheConfig config) : config_(std::move(config)) {
  if (!config_.enabled) {
    return;
  }
  bool exists = make_dirs(config_.dir);
  writable_ = exists && access(config_.dir.c_str(), W_OK | X_OK) == 0;
}

std::string DiskCache::entry_path(const KeyHash &key) const {
  return config_.dir + "/" + key.hex() + kSuffix;
}

DiskCache::~DiskCache() {
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    stopping_ = true;
  }
  pending_changed_.notify_all();
  if (writer_.joinable()) {
    writer_.join();  // the writer drains the queue before it returns
  }
}

void DiskCache::store_in_background(const KeyHash &key, std::string label, std::string payload) {
  std::unique_lock<std::mutex> lock(pending_mutex_);
  if (!writer_.joinable() && !stopping_) {
    try {
      writer_ = std::thread([this] { write_queued(); });
    } catch (const std::system_error &) {
      lock.unlock();
      store(key, label, payload);  // no thread: the caller writes it
      return;
    }
  }
  auto &entry = in_flight_[key.hex()];
  entry.first = payload;
  ++entry.second;
  queue_.push_back({key, std::move(label), std::move(payload)});
  lock.unlock();
  pending_changed_.notify_all();
}

void DiskCache::write_queued() {
  std::unique_lock<std::mutex> lock(pending_mutex_);
  for (;;) {
    pending_changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      return;  // stopping, and nothing left to write
    }
    PendingStore next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    store(next.key, next.label, next.payload);
    lock.lock();
    auto written = in_flight_.find(next.key.hex());
    if (--written->second.second == 0) {
      in_flight_.erase(written);
    }
    pending_changed_.notify_all();  // flush() waits on an empty in_flight_
  }
}

void DiskCache::flush() {
  std::unique_lock<std::mutex> lock(pending_mutex_);
  pending_changed_.wait(lock, [&] { return in_flight_.empty(); });
}

std::optional<std::string> DiskCache::load(const KeyHash &key) {
  if (!config_.enabled) {
    return std::nullopt;
  }
  {
    std::lock_guard<std::mutex> lock(pending_mutex_);
    auto queued = in_flight_.find(key.hex());
    if (queued != in_flight_.end()) {
      ++hits_;
      return queued->second.first;
    }
  }
  std::string path = entry_path(key);
  std::string problem;
  int fd = open_entry(path, problem);
  if (fd < 0) {
    if (!problem.empty()) {
      ++ignored_;  // a link, FIFO, device, someone else's file: never read
    }
    ++misses_;
    return std::nullopt;
  }
  std::string bytes;
  const bool ok = read_all(fd, bytes);
  std::string_view payload;
  problem = ok ? check_entry(bytes, &key, nullptr, &payload) : "unreadable";
  if (!problem.empty()) {
    close(fd);
    unlink(path.c_str());
    ++corrupt_;
    ++misses_;
    return std::nullopt;
  }
  // Least recently used eviction reads mtime: a hit makes the entry young.
  futimens(fd, nullptr);
  close(fd);
  ++hits_;
  return std::string(payload);
}

void DiskCache::store(const KeyHash &key, std::string_view label, std::string_view payload) {
  uint64_t total = sizeof(Header) + label.size() + payload.size();
  if (!config_.enabled || total > config_.max_bytes || label.size() > UINT32_MAX) {
    ++stores_skipped_;
    return;
  }
  std::string temp = config_.dir + "/" + kTempPrefix + key.hex() + "-XXXXXX";
  int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    if (errno == EACCES || errno == EPERM || errno == EROFS || errno == ENOENT) {
      writable_ = false;
    }
    ++stores_skipped_;
    return;
  }
  std::string body;
  body.reserve(label.size() + payload.size());
  body.append(label);
  body.append(payload);
  KeyHash sum = hash_bytes(body);
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.format = kFormatVersion;
  h.label_size = static_cast<uint32_t>(label.size());
  h.key_low = key.low;
  h.key_high = key.high;
  h.payload_size = payload.size();
  h.checksum_low = sum.low;
  h.checksum_high = sum.high;
  bool ok = fchmod(fd, 0600) == 0;
  ok = ok && write_all(fd, reinterpret_cast<const char *>(&h), sizeof(h));
  ok = ok && write_all(fd, body.data(), body.size());
  ok = ok && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  ok = ok && rename(temp.c_str(), entry_path(key).c_str()) == 0;
  if (!ok) {
    unlink(temp.c_str());
    ++stores_skipped_;
    return;
  }
  ++stores_;
  prune(config_.max_bytes);
}

DiskCacheCounters DiskCache::counters() const {
  DiskCacheCounters c;
  c.hits = hits_.load();
  c.misses = misses_.load();
  c.stores = stores_.load();
  c.stores_skipped = stores_skipped_.load();
  c.corrupt = corrupt_.load();
  c.ignored = ignored_.load();
  c.evictions = evictions_.load();
  return c;
}

std::vector<CacheEntryInfo> DiskCache::list() const {
  std::vector<CacheEntryInfo> out;
  for (const FileItem &item : scan(config_.dir, false)) {
    CacheEntryInfo info = describe(item);
    std::string problem;
    int fd = open_entry(item.path, problem);
    Header h{};
    if (fd >= 0 && ::read(fd, &h, sizeof(h)) == static_cast<ssize_t>(sizeof(h)) &&
        std::memcmp(h.magic, kMagic, sizeof(kMagic)) == 0 && h.label_size < 4096) {
      info.label.resize(h.label_size);
      if (::read(fd, info.label.data(), h.label_size) != static_cast<ssize_t>(h.label_size)) {
        info.label.clear();
      }
    }
    if (fd >= 0) {
      close(fd);
    }
    out.push_back(std::move(info));
  }
  return out;
}

CacheVerifyReport DiskCache::verify(bool remove_corrupt) {
  flush();
  CacheVerifyReport report;
  for (const FileItem &item : scan(config_.dir, false)) {
    CacheEntryInfo info = describe(item);
    ++report.checked;
    std::string problem;
    std::string bytes;
    int fd = open_entry(item.path, problem);
    if (fd >= 0) {
      bool ok = read_all(fd, bytes);
      close(fd);
      KeyHash expected;
      expected.high = std::strtoull(info.key.substr(0, 16).c_str(), nullptr, 16);
      expected.low = std::strtoull(info.key.substr(16).c_str(), nullptr, 16);
      std::string_view label;
      problem = ok ? check_entry(bytes, &expected, &label, nullptr) : "unreadable";
      info.label = std::string(label);
    }
    if (problem.empty()) {
      continue;
    }
    info.valid = false;
    info.problem = problem;
    if (remove_corrupt && unlink(item.path.c_str()) == 0) {
      ++report.removed;
    }
    report.corrupt.push_back(std::move(info));
  }
  return report;
}

CacheRemoveReport DiskCache::prune(uint64_t max_bytes) {
  remove_stale_temps(config_.dir, false);
  std::vector<FileItem> items = scan(config_.dir, false);
  uint64_t total = 0;
  for (const FileItem &item : items) {
    total += static_cast<uint64_t>(item.st.st_size);
  }
  CacheRemoveReport report;
  for (const FileItem &item : items) {
    if (total <= max_bytes) {
      break;
    }
    if (remove_entry(item, report)) {
      total -= static_cast<uint64_t>(item.st.st_size);
    }
  }
  evictions_ += report.removed;
  return report;
}

CacheRemoveReport DiskCache::clear() {
  flush();
  remove_stale_temps(config_.dir, true);
  CacheRemoveReport report;
  for (const FileItem &item : scan(config_.dir, false)) {
    remove_entry(item, report);
  }
  return report;
}

}  // namespace ufjit::cache
