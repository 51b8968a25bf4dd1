// The disk cache on the GPU: entries are made by the driver's linker, a
// corrupted or truncated entry is recompiled (never loaded), a directory
// that cannot be written is used read-only without errors, and a warm first
// call takes the kernel its source index let load while it was typed.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

/// Points UFJIT_CACHE_DIR at `dir` for one scope.
class CacheDirScope {
 public:
  explicit CacheDirScope(const std::string &dir) {
    if (const char *old = getenv("UFJIT_CACHE_DIR")) {
      old_ = old;
    }
    setenv("UFJIT_CACHE_DIR", dir.c_str(), 1);
    unsetenv("UFJIT_CACHE");
  }
  ~CacheDirScope() {
    if (old_.empty()) {
      unsetenv("UFJIT_CACHE_DIR");
    } else {
      setenv("UFJIT_CACHE_DIR", old_.c_str(), 1);
    }
  }

 private:
  std::string old_;
};

/// A source no earlier run has cached: its constant is unique to this run.
std::string unique_source(double *constant) {
  const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
  *constant = static_cast<double>(ticks % 1000003) + 0.5;
  return "from numba import vectorize\n\n@vectorize([\"float64(float64)\"])\ndef shift(x):\n    return x + " +
         std::to_string(*constant) + "\n";
}

/// Runs the source's ufunc in a fresh Runtime (empty in-memory cache).
void run_once(const std::string &source, double constant) {
  RuntimeOptions options;
  options.target = TargetKind::Cuda;
  Runtime rt(options);
  Ufunc f = rt.vectorize(source);
  std::vector<double> x = {1.0, 2.0, 3.0};
  Array z = f(rt.to_device(x));
  std::vector<double> got = download<double>(rt, z);
  ASSERT_EQ(got.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(got[i], x[i] + constant) << "i=" << i;
  }
}

/// A source no earlier run has cached, run once: its cubin is now on disk.
std::string cached_once(double *constant) {
  const std::string source = unique_source(constant);
  run_once(source, *constant);
  return source;
}

/// The source's ufunc in a fresh Runtime whose context exists before
/// `vectorize`, as in a program that has used the GPU already; the
/// prefetch of its kernels is let finish before the call, as typing a
/// larger source would. Returns what the runtime logged at UFJIT_DEBUG=1.
std::string run_with_context_first(const std::string &source, double constant) {
  setenv("UFJIT_DEBUG", "1", 1);
  ::testing::internal::CaptureStderr();
  {
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    Runtime rt(options);
    Array context_made = rt.device_empty(DType::Float64, {1});
    Ufunc f = rt.vectorize(source);
    rt.synchronize();
    std::vector<double> x = {1.0, 2.0, 3.0};
    std::vector<double> got = download<double>(rt, f(rt.to_device(x)));
    EXPECT_EQ(got, (std::vector<double>{1.0 + constant, 2.0 + constant, 3.0 + constant}));
  }
  std::string log = ::testing::internal::GetCapturedStderr();
  unsetenv("UFJIT_DEBUG");
  return log;
}

class GpuDiskCache : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    std::string pattern = std::filesystem::temp_directory_path().string() + "/ufjit-gpu-cache-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string dir_;
};

TEST_F(GpuDiskCache, FirstCallStoresACubinThatASecondRuntimeReuses) {
  CacheDirScope scope(dir_);
  double constant = 0;
  const std::string source = cached_once(&constant);
  std::vector<CacheEntryInfo> entries = cached_cubins();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_NE(entries[0].label.find("shift"), std::string::npos) << entries[0].label;
  const int64_t bytes_before = static_cast<int64_t>(entries[0].bytes);

  run_once(source, constant);

  entries = cached_cubins();
  ASSERT_EQ(entries.size(), 1u) << "the second Runtime compiled again instead of loading";
  EXPECT_EQ(static_cast<int64_t>(entries[0].bytes), bytes_before);
  EXPECT_TRUE(verify_cache(false).corrupt.empty());
}

TEST_F(GpuDiskCache, AWarmFirstCallTakesTheKernelLoadedWhileItsSourceWasTyped) {
  CacheDirScope scope(dir_);
  double constant = 0;
  const std::string source = cached_once(&constant);
  ASSERT_EQ(cached_cubins().size(), 1u);
  ASSERT_EQ(list_cache().size(), 2u) << "no source index was stored beside the cubin";

  const std::string log = run_with_context_first(source, constant);

  EXPECT_NE(log.find("prefetched while typing"), std::string::npos) << log;
  EXPECT_EQ(log.find("LLVM to PTX"), std::string::npos) << "compiled again:\n" << log;
  EXPECT_EQ(list_cache().size(), 2u);
  EXPECT_TRUE(verify_cache(false).corrupt.empty());
}

TEST_F(GpuDiskCache, AnIndexWhoseCubinIsGoneCostsOnlyACompile) {
  CacheDirScope scope(dir_);
  double constant = 0;
  const std::string source = cached_once(&constant);
  std::vector<CacheEntryInfo> cubins = cached_cubins();
  ASSERT_EQ(cubins.size(), 1u);
  ASSERT_TRUE(std::filesystem::remove(cubins[0].path));

  const std::string log = run_with_context_first(source, constant);

  EXPECT_EQ(log.find("prefetched while typing"), std::string::npos) << log;
  EXPECT_NE(log.find("LLVM to PTX"), std::string::npos) << log;
  EXPECT_EQ(cached_cubins().size(), 1u) << "the compiled kernel was not stored again";
}

TEST_F(GpuDiskCache, CorruptedEntryIsRecompiledNotLoaded) {
  CacheDirScope scope(dir_);
  double constant = 0;
  const std::string source = cached_once(&constant);
  std::vector<CacheEntryInfo> entries = cached_cubins();
  ASSERT_EQ(entries.size(), 1u);
  {
    // Overwrite the middle of the cubin with garbage of the same length.
    std::fstream f(entries[0].path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(entries[0].bytes / 2));
    const std::string garbage(64, '\x5a');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  ASSERT_EQ(verify_cache(false).corrupt.size(), 1u);

  run_once(source, constant);

  EXPECT_TRUE(verify_cache(false).corrupt.empty()) << "the corrupt entry was not replaced";
  EXPECT_EQ(cached_cubins().size(), 1u);
}

TEST_F(GpuDiskCache, TruncatedEntryIsRecompiledNotLoaded) {
  CacheDirScope scope(dir_);
  double constant = 0;
  const std::string source = cached_once(&constant);
  std::vector<CacheEntryInfo> entries = cached_cubins();
  ASSERT_EQ(entries.size(), 1u);
  std::filesystem::resize_file(entries[0].path, entries[0].bytes / 3);

  run_once(source, constant);

  EXPECT_TRUE(verify_cache(false).corrupt.empty());
  entries = cached_cubins();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_GT(entries[0].bytes, 0u);
}

TEST_F(GpuDiskCache, UnwritableCacheDirectoryIsUsedWithoutErrors) {
  // procfs refuses new files even to root, unlike a chmod-ed directory.
  CacheDirScope scope("/proc/self/fdinfo");
  double constant = 0;
  const std::string source = cached_once(&constant);
  run_once(source, constant);
}

TEST_F(GpuDiskCache, UfjitCacheOffWritesNothing) {
  CacheDirScope scope(dir_);
  setenv("UFJIT_CACHE", "off", 1);
  double constant = 0;
  const std::string source = cached_once(&constant);
  unsetenv("UFJIT_CACHE");
  EXPECT_TRUE(list_cache().empty());
}

}  // namespace
}  // namespace ufjit::gpu_testing
