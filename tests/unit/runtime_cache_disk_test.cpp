// The on-disk cubin cache: atomic writes, corrupt and truncated entries,
// permissions and ownership, read-only directories, LRU eviction, counters.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "runtime/cache/DiskCache.h"
#include "tests/unit/runtime_cache_test_util.h"

namespace ufjit::cache {
namespace {

using testing::names_in;
using testing::payload;
using testing::read_file;
using testing::ScratchDir;
using testing::set_mtime;
using testing::write_file;

DiskCacheConfig config_for(const std::string &dir, uint64_t max_bytes = uint64_t{1} << 30) {
  DiskCacheConfig config;
  config.dir = dir;
  config.max_bytes = max_bytes;
  return config;
}

KeyHash key_named(const std::string &ir) {
  DiskCacheKey key;
  key.ir = ir;
  key.entry = "f__float32__contig_i32";
  key.arch = "sm_90";
  key.ptx_isa = "8.5";
  key.float_options = "fastmath=0";
  key.ufjit_version = "0.1.0";
  key.llvm_version = "19.1.7";
  key.driver_version = 12080;
  return hash_key(key);
}

TEST(DiskCache, StoreThenLoadReturnsThePayloadAndCountsMissStoreHit) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.sub("c")));
  KeyHash key = key_named("ir-a");
  std::string cubin = payload(5000, 1);

  EXPECT_FALSE(cache.load(key).has_value());
  cache.store(key, "f sm_90", cubin);
  std::optional<std::string> loaded = cache.load(key);

  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(*loaded, cubin);
  DiskCacheCounters c = cache.counters();
  EXPECT_EQ(c.misses, 1u);
  EXPECT_EQ(c.stores, 1u);
  EXPECT_EQ(c.hits, 1u);
  EXPECT_EQ(c.corrupt, 0u);
}

TEST(DiskCache, DirectoryIsCreated0700AndEntriesAre0600WithNoTemporaryFilesLeft) {
  ScratchDir scratch;
  std::string dir = scratch.sub("nested/cache");
  DiskCache cache(config_for(dir));
  cache.store(key_named("ir-a"), "label", payload(100, 2));

  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  std::vector<std::string> names = names_in(dir);
  ASSERT_EQ(names.size(), 1u) << "a temporary file was left behind";
  EXPECT_EQ(names[0], key_named("ir-a").hex() + ".cubin");
  ASSERT_EQ(stat((dir + "/" + names[0]).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(DiskCache, AnInterruptedWriteLeavesOnlyATemporaryFileThatIsNeverLoaded) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash key = key_named("ir-a");
  // What a writer killed before its rename leaves: a partial temp file.
  std::string temp = scratch.sub(".tmp-" + key.hex() + "-abcdef");
  write_file(temp, payload(10, 3));
  set_mtime(temp, 1000);

  EXPECT_FALSE(cache.load(key).has_value());
  cache.prune(uint64_t{1} << 30);

  EXPECT_TRUE(names_in(scratch.path()).empty()) << "a stale temporary file survived prune";
}

TEST(DiskCache, TruncatedEntryIsDeletedAndReportedAsAMiss) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash key = key_named("ir-a");
  cache.store(key, "label", payload(4000, 4));
  std::string path = cache.entry_path(key);
  std::string bytes = read_file(path);
  write_file(path, bytes.substr(0, bytes.size() - 1000));

  EXPECT_FALSE(cache.load(key).has_value());

  EXPECT_EQ(cache.counters().corrupt, 1u);
  EXPECT_FALSE(std::filesystem::exists(path)) << "the truncated entry was not deleted";
  // The next store (the recompile) makes a good entry again.
  cache.store(key, "label", payload(4000, 4));
  EXPECT_EQ(cache.load(key), payload(4000, 4));
}

TEST(DiskCache, EntryTruncatedInsideTheHeaderIsRejected) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash key = key_named("ir-a");
  cache.store(key, "label", payload(64, 5));
  write_file(cache.entry_path(key), read_file(cache.entry_path(key)).substr(0, 20));

  EXPECT_FALSE(cache.load(key).has_value());
  EXPECT_EQ(cache.counters().corrupt, 1u);
}

TEST(DiskCache, OneFlippedPayloadByteFailsTheChecksum) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash key = key_named("ir-a");
  cache.store(key, "label", payload(3000, 6));
  std::string path = cache.entry_path(key);
  std::string bytes = read_file(path);
  bytes[bytes.size() - 7] = static_cast<char>(bytes[bytes.size() - 7] ^ 0x10);
  write_file(path, bytes);

  EXPECT_FALSE(cache.load(key).has_value());
  EXPECT_EQ(cache.counters().corrupt, 1u);
  EXPECT_EQ(cache.counters().hits, 0u);
}

TEST(DiskCache, AnEntryCopiedUnderAnotherKeysNameIsRejected) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash a = key_named("ir-a");
  KeyHash b = key_named("ir-b");
  cache.store(a, "label", payload(300, 7));
  write_file(cache.entry_path(b), read_file(cache.entry_path(a)));
  chmod(cache.entry_path(b).c_str(), 0600);

  EXPECT_FALSE(cache.load(b).has_value());
  EXPECT_EQ(cache.counters().corrupt, 1u);
}

TEST(DiskCache, GroupOrOtherWritableEntryIsIgnoredNotLoaded) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash key = key_named("ir-a");
  cache.store(key, "label", payload(300, 8));
  ASSERT_EQ(chmod(cache.entry_path(key).c_str(), 0666), 0);

  EXPECT_FALSE(cache.load(key).has_value());

  EXPECT_EQ(cache.counters().ignored, 1u);
  EXPECT_EQ(cache.counters().hits, 0u);
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(key))) << "ignored files are left alone";
}

TEST(DiskCache, EntryOwnedByAnotherUserIsIgnored) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to give a file to another user";
  }
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash key = key_named("ir-a");
  cache.store(key, "label", payload(300, 9));
  ASSERT_EQ(chown(cache.entry_path(key).c_str(), 65534, 65534), 0);

  EXPECT_FALSE(cache.load(key).has_value());
  EXPECT_EQ(cache.counters().ignored, 1u);
}

TEST(DiskCache, SymlinkedEntryIsNotFollowed) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.sub("c")));
  KeyHash a = key_named("ir-a");
  cache.store(a, "label", payload(300, 10));
  KeyHash b = key_named("ir-b");
  ASSERT_EQ(symlink(cache.entry_path(a).c_str(), cache.entry_path(b).c_str()), 0);

  EXPECT_FALSE(cache.load(b).has_value());
  EXPECT_EQ(cache.counters().ignored, 1u);
}

TEST(DiskCache, FifoNamedLikeAnEntryIsIgnoredWithoutBlocking) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.sub("c")));
  KeyHash k = key_named("ir-fifo");
  ASSERT_EQ(mkfifo(cache.entry_path(k).c_str(), 0600), 0);
  alarm(60);  // an open that blocks on the FIFO fails the test by SIGALRM instead of hanging it
  EXPECT_FALSE(cache.load(k).has_value());
  EXPECT_EQ(cache.counters().ignored, 1u);
  std::vector<CacheEntryInfo> listed = cache.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].label, "");
  CacheVerifyReport report = cache.verify(false);
  ASSERT_EQ(report.corrupt.size(), 1u);
  EXPECT_EQ(report.corrupt[0].problem, "not a regular file");
  // A store renames a real entry over the FIFO; it then loads.
  cache.store(k, "label", payload(100, 3));
  EXPECT_EQ(cache.load(k), payload(100, 3));
  alarm(0);
}

TEST(DiskCache, ClearCountsAndExplainsEntriesItCannotRemove) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.sub("c")));
  cache.store(key_named("ir-a"), "label", payload(100, 1));
  ASSERT_EQ(mkdir(cache.entry_path(key_named("ir-dir")).c_str(), 0700), 0);  // never ours to remove
  CacheRemoveReport report = cache.clear();
  EXPECT_EQ(report.removed, 1u);
  EXPECT_EQ(report.failed, 1u);
  EXPECT_NE(report.error.find(key_named("ir-dir").hex()), std::string::npos) << report.error;
  EXPECT_NE(report.error.find("Is a directory"), std::string::npos) << report.error;
}

// The checks of a read-only directory, run by a process that cannot write
// there. Returns a failure description or an empty string.
std::string read_only_checks(const std::string &dir, const KeyHash &present, const std::string &expected) {
  DiskCache cache(config_for(dir));
  std::optional<std::string> hit = cache.load(present);
  if (!hit || *hit != expected) {
    return "the existing entry did not load";
  }
  cache.store(key_named("new"), "label", payload(100, 11));
  DiskCacheCounters c = cache.counters();
  if (c.stores != 0 || c.stores_skipped != 1) {
    return "store was not skipped: stores=" + std::to_string(c.stores) +
           " skipped=" + std::to_string(c.stores_skipped);
  }
  if (cache.writable()) {
    return "cache still claims to be writable";
  }
  if (names_in(dir).size() != 1) {
    return "a file was written into the read-only directory";
  }
  return {};
}

TEST(DiskCache, ReadOnlyDirectoryServesHitsAndSkipsStoresWithoutErrors) {
  ScratchDir scratch;
  std::string dir = scratch.sub("ro");
  KeyHash present = key_named("ir-a");
  std::string expected = payload(700, 12);
  {
    DiskCache writer(config_for(dir));
    writer.store(present, "label", expected);
  }
  if (geteuid() != 0) {
    ASSERT_EQ(chmod(dir.c_str(), 0500), 0);
    std::string failure = read_only_checks(dir, present, expected);
    chmod(dir.c_str(), 0700);
    EXPECT_EQ(failure, "");
    return;
  }
  // Root ignores permission bits: hand the directory to an unprivileged
  // user and run the checks in a child process that becomes that user.
  const uid_t nobody = 65534;
  ASSERT_EQ(chmod(scratch.path().c_str(), 0755), 0);
  ASSERT_EQ(chown(dir.c_str(), nobody, nobody), 0);
  ASSERT_EQ(chown((dir + "/" + present.hex() + ".cubin").c_str(), nobody, nobody), 0);
  ASSERT_EQ(chmod(dir.c_str(), 0500), 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    std::string failure;
    if (setgid(nobody) != 0 || setuid(nobody) != 0) {
      failure = "could not become the unprivileged user";
    } else {
      failure = read_only_checks(dir, present, expected);
    }
    ssize_t ignored = write(fds[1], failure.data(), failure.size());
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  std::string failure;
  char buffer[256];
  ssize_t got = 0;
  while ((got = read(fds[0], buffer, sizeof(buffer))) > 0) {
    failure.append(buffer, static_cast<std::size_t>(got));
  }
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(failure, "");
}

TEST(DiskCache, SizeCapEvictsTheLeastRecentlyUsedEntries) {
  ScratchDir scratch;
  const std::size_t size = 1000;
  // Room for three entries (payload + 64-byte header + 5-byte label), not four.
  DiskCache cache(config_for(scratch.path(), 3 * (size + 64 + 5) + 10));
  KeyHash a = key_named("a");
  KeyHash b = key_named("b");
  KeyHash c = key_named("c");
  KeyHash d = key_named("d");
  cache.store(a, "label", payload(size, 1));
  cache.store(b, "label", payload(size, 2));
  cache.store(c, "label", payload(size, 3));
  set_mtime(cache.entry_path(a), 1000);
  set_mtime(cache.entry_path(b), 2000);
  set_mtime(cache.entry_path(c), 3000);
  ASSERT_TRUE(cache.load(a).has_value());  // a hit makes `a` the most recent

  cache.store(d, "label", payload(size, 4));

  EXPECT_FALSE(std::filesystem::exists(cache.entry_path(b))) << "b was least recently used";
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(a)));
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(c)));
  EXPECT_TRUE(std::filesystem::exists(cache.entry_path(d)));
  EXPECT_EQ(cache.counters().evictions, 1u);
}

TEST(DiskCache, PayloadLargerThanTheCapIsNotStored) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path(), 500));
  cache.store(key_named("a"), "label", payload(1000, 1));
  EXPECT_EQ(cache.counters().stores_skipped, 1u);
  EXPECT_TRUE(names_in(scratch.path()).empty());
}

TEST(DiskCache, DisabledCacheNeitherReadsNorWrites) {
  ScratchDir scratch;
  DiskCacheConfig config = config_for(scratch.sub("off"));
  config.enabled = false;
  DiskCache cache(config);
  cache.store(key_named("a"), "label", payload(100, 1));
  EXPECT_FALSE(cache.load(key_named("a")).has_value());
  EXPECT_FALSE(std::filesystem::exists(scratch.sub("off")));
}

TEST(DiskCache, ConcurrentStoresOfOneKeyLeaveOneValidEntry) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash key = key_named("a");
  std::string cubin = payload(200000, 13);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] { cache.store(key, "label", cubin); });
  }
  for (std::thread &t : threads) {
    t.join();
  }
  EXPECT_EQ(names_in(scratch.path()).size(), 1u);
  EXPECT_EQ(cache.load(key), cubin);
}

TEST(DiskCache, BackgroundStoreIsLoadableAtOnceAndOnDiskAfterFlush) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  KeyHash key = key_named("background");
  std::string cubin = payload(300000, 17);

  cache.store_in_background(key, "label", cubin);
  EXPECT_EQ(cache.load(key), cubin) << "a queued store must be readable before it is written";
  cache.flush();

  std::vector<std::string> names = names_in(scratch.path());
  ASSERT_EQ(names.size(), 1u) << "a temporary file was left behind";
  EXPECT_EQ(names[0], key.hex() + ".cubin");
  DiskCache other(config_for(scratch.path()));
  EXPECT_EQ(other.load(key), cubin);
  EXPECT_EQ(cache.counters().stores, 1u);
}

TEST(DiskCache, DestroyingTheCacheWritesEveryQueuedStore) {
  ScratchDir scratch;
  std::vector<std::string> cubins;
  {
    DiskCache cache(config_for(scratch.path()));
    for (int k = 0; k < 20; ++k) {
      cubins.push_back(payload(50000 + static_cast<std::size_t>(k), static_cast<unsigned>(k)));
      cache.store_in_background(key_named("queued" + std::to_string(k)), "label", cubins.back());
    }
  }
  EXPECT_EQ(names_in(scratch.path()).size(), 20u);
  DiskCache reader(config_for(scratch.path()));
  for (int k = 0; k < 20; ++k) {
    EXPECT_EQ(reader.load(key_named("queued" + std::to_string(k))), cubins[static_cast<std::size_t>(k)]) << k;
  }
  EXPECT_EQ(reader.counters().corrupt, 0u);
}

TEST(DiskCache, ClearWaitsForQueuedStoresSoNoneReappears) {
  ScratchDir scratch;
  DiskCache cache(config_for(scratch.path()));
  for (int k = 0; k < 10; ++k) {
    cache.store_in_background(key_named("c" + std::to_string(k)), "label", payload(100000, 3));
  }
  cache.clear();
  cache.flush();
  EXPECT_TRUE(names_in(scratch.path()).empty());
}

TEST(DiskCache, BackgroundStoresIntoAReadOnlyDirectoryAreSkippedWithoutErrors) {
  // procfs refuses new files even to root, unlike a chmod-ed directory.
  DiskCache cache(config_for("/proc/self/fdinfo"));
  cache.store_in_background(key_named("ro"), "label", payload(1000, 5));
  cache.flush();
  EXPECT_EQ(cache.counters().stores, 0u);
  EXPECT_EQ(cache.counters().stores_skipped, 1u);
}

TEST(DiskCacheKey, EveryFieldChangesTheHash) {
  DiskCacheKey base;
  base.ir = "ir";
  base.entry = "e";
  base.arch = "sm_90";
  base.ptx_isa = "8.5";
  base.float_options = "fastmath=0";
  base.ufjit_version = "0.1.0";
  base.llvm_version = "19.1.7";
  base.driver_version = 12080;
  std::vector<DiskCacheKey> variants(8, base);
  variants[0].ir = "ir2";
  variants[1].entry = "e2";
  variants[2].arch = "sm_80";
  variants[3].ptx_isa = "8.0";
  variants[4].float_options = "fastmath=1";
  variants[5].ufjit_version = "0.2.0";
  variants[6].llvm_version = "20.1.0";
  variants[7].driver_version = 12090;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    EXPECT_FALSE(hash_key(variants[i]) == hash_key(base)) << "field " << i << " does not reach the hash";
  }
  // Field boundaries are marked: moving text between fields changes the key.
  DiskCacheKey shifted = base;
  shifted.ir = "ir" "e";
  shifted.entry = "";
  EXPECT_FALSE(hash_key(shifted) == hash_key(base));
}

}  // namespace
}  // namespace ufjit::cache
