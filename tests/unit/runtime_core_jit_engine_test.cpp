// The JIT engine (runtime/JitEngine.h) with a toolchain that compiles
// nothing (tests/unit/runtime_jit_engine_fake.h): one compile per key
// however many threads ask, the disk cache read before compiling and
// written after, a kernel the driver rejects compiled again, tiering's
// quick and optimised compiles, and one key builder for every kind of entry.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/JitEngine.h"
#include "runtime/KernelRequest.h"
#include "runtime/cache/DiskCache.h"
#include "tests/unit/runtime_cache_test_util.h"
#include "tests/unit/runtime_jit_engine_fake.h"

namespace ufjit::runtime {
namespace {

using testing::FakeKernel;
using testing::FakeToolchain;
using testing::signature_with_hashes;

const codegen::KernelVariant kContiguous{codegen::Layout::Contiguous, true, 0};

int value_of(const std::shared_ptr<const CompiledKernel> &kernel) {
  return static_cast<const FakeKernel &>(*kernel).value;
}

cache::DiskCacheConfig disk_in(const std::string &dir) {
  cache::DiskCacheConfig config;
  config.dir = dir;
  return config;
}

TEST(JitEngine, ConcurrentRequestsOfOneEntryShareOneCompile) {
  KernelCache cache;
  FakeToolchain toolchain;
  JitEngine engine(cache, toolchain, nullptr);
  const CompiledSignature sig = signature_with_hashes(1, 2);
  std::vector<std::thread> threads;
  std::vector<int> values(8, 0);
  for (std::size_t t = 0; t < values.size(); ++t) {
    threads.emplace_back([&, t] { values[t] = value_of(engine.acquire(KernelRequest::entry(sig, kContiguous))); });
  }
  for (std::thread &t : threads) {
    t.join();
  }
  EXPECT_EQ(toolchain.compiles.load(), 1);
  EXPECT_EQ(values, std::vector<int>(8, 1));
}

TEST(JitEngine, EveryKindOfEntryHasAKeyOfItsOwn) {
  KernelCache cache;
  FakeToolchain toolchain;
  JitEngine engine(cache, toolchain, nullptr);
  const CompiledSignature sig = signature_with_hashes(3, 4);
  const codegen::KernelVariant strided{codegen::Layout::Strided, true, 0};
  const std::vector<KernelRequest> requests = {
      KernelRequest::entry(sig, kContiguous), KernelRequest::entry(sig, strided),
      KernelRequest::method_entry(sig, codegen::MethodKernel::Reduce),
      KernelRequest::method_entry(sig, codegen::MethodKernel::Accumulate)};
  for (const KernelRequest &r : requests) {
    (void)engine.acquire(r);
    (void)engine.acquire(r);
  }
  EXPECT_EQ(toolchain.compiles.load(), 4);
  EXPECT_NE(engine.key(requests[2]).str(), engine.key(requests[3]).str());
  EXPECT_NE(engine.key(requests[0]).str().find("fake-target"), std::string::npos);
}

TEST(JitEngine, AFailedCompileLeavesNothingAndTheNextRequestTriesAgain) {
  KernelCache cache;
  FakeToolchain toolchain;
  toolchain.fail_optimised = true;
  JitEngine engine(cache, toolchain, nullptr);
  const CompiledSignature sig = signature_with_hashes(5, 6);
  EXPECT_THROW((void)engine.acquire(KernelRequest::entry(sig, kContiguous)), CompileError);
  toolchain.fail_optimised = false;
  EXPECT_EQ(value_of(engine.acquire(KernelRequest::entry(sig, kContiguous))), 1);
}

TEST(JitEngine, ASecondEngineLoadsWhatTheFirstStoredOnDisk) {
  cache::testing::ScratchDir dir;
  const CompiledSignature sig = signature_with_hashes(7, 8);
  const KernelRequest request = KernelRequest::method_entry(sig, codegen::MethodKernel::Reduce);
  {
    KernelCache cache;
    FakeToolchain toolchain;
    toolchain.with_disk = true;
    cache::DiskCache disk(disk_in(dir.path()));
    JitEngine engine(cache, toolchain, &disk);
    EXPECT_EQ(value_of(engine.acquire(request)), 1);
    EXPECT_EQ(toolchain.notes.load(), 1) << "a stored kernel is noted for the next process's prefetch";
  }  // the disk cache's destructor waits for its background store
  KernelCache cache;
  FakeToolchain toolchain;
  toolchain.with_disk = true;
  cache::DiskCache disk(disk_in(dir.path()));
  JitEngine engine(cache, toolchain, &disk);
  EXPECT_EQ(value_of(engine.acquire(request)), 1001) << "loaded from the image of compile 1";
  EXPECT_EQ(toolchain.compiles.load(), 0);
  EXPECT_EQ(toolchain.loads.load(), 1);
}

TEST(JitEngine, AnImageTheDriverRejectsIsCompiledAgain) {
  cache::testing::ScratchDir dir;
  const CompiledSignature sig = signature_with_hashes(9, 10);
  const KernelRequest request = KernelRequest::entry(sig, kContiguous);
  {
    KernelCache cache;
    FakeToolchain toolchain;
    toolchain.with_disk = true;
    cache::DiskCache disk(disk_in(dir.path()));
    JitEngine engine(cache, toolchain, &disk);
    (void)engine.acquire(request);
  }
  KernelCache cache;
  FakeToolchain toolchain;
  toolchain.with_disk = true;
  toolchain.reject_loads = true;
  cache::DiskCache disk(disk_in(dir.path()));
  JitEngine engine(cache, toolchain, &disk);
  EXPECT_EQ(value_of(engine.acquire(request)), 1);
  EXPECT_EQ(toolchain.loads.load(), 1);
  EXPECT_EQ(toolchain.compiles.load(), 1);
}

TEST(JitEngine, AReplaceableRequestIsCompiledQuickThenOptimisedInTheBackground) {
  KernelCache cache;
  FakeToolchain toolchain;
  toolchain.quick = true;
  std::vector<std::function<void()>> queued;
  JitEngine engine(cache, toolchain, nullptr,
                   BackgroundWorker{[&](std::function<void()> job) { queued.push_back(std::move(job)); }, [] {}});
  CompiledSignature sig = signature_with_hashes(11, 12);
  int replaced_with = 0;
  const auto replace = [&](const KernelRequest &optimised, std::shared_ptr<const CompiledKernel> kernel) {
    EXPECT_NE(optimised.signature, &sig) << "the job holds its own copy of the signature";
    replaced_with = value_of(kernel);
  };
  std::shared_ptr<const CompiledKernel> first = engine.acquire(KernelRequest::entry(sig, kContiguous), replace);
  EXPECT_TRUE(first->quick_tier);
  EXPECT_EQ(toolchain.quick_compiles.load(), 1);
  ASSERT_EQ(queued.size(), 1u);
  sig.base_name = "gone";  // the ufunc may be gone before the job runs
  queued.front()();
  EXPECT_EQ(replaced_with, 2);
  // Without a way to replace it, a kernel is compiled optimised at once.
  const CompiledSignature other = signature_with_hashes(13, 14);
  EXPECT_FALSE(engine.acquire(KernelRequest::entry(other, kContiguous))->quick_tier);
  EXPECT_EQ(toolchain.quick_compiles.load(), 1);
}

TEST(JitEngine, AFailedOptimisedCompileKeepsTheQuickKernel) {
  KernelCache cache;
  FakeToolchain toolchain;
  toolchain.quick = true;
  toolchain.fail_optimised = true;
  std::vector<std::function<void()>> queued;
  JitEngine engine(cache, toolchain, nullptr,
                   BackgroundWorker{[&](std::function<void()> job) { queued.push_back(std::move(job)); }, [] {}});
  const CompiledSignature sig = signature_with_hashes(15, 16);
  bool replaced = false;
  const auto replace = [&](const KernelRequest &, std::shared_ptr<const CompiledKernel>) { replaced = true; };
  EXPECT_EQ(value_of(engine.acquire(KernelRequest::entry(sig, kContiguous), replace)), 1);
  ASSERT_EQ(queued.size(), 1u);
  EXPECT_NO_THROW(queued.front()());
  EXPECT_FALSE(replaced);
  EXPECT_EQ(value_of(engine.acquire(KernelRequest::entry(sig, kContiguous), replace)), 1);
}

}  // namespace
}  // namespace ufjit::runtime
