// The kernel cache's compile-once semantics and the CPU thread pool.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "runtime/Backend.h"
#include "runtime/KernelCache.h"
#include "runtime/ThreadPool.h"

namespace ufjit::runtime {
namespace {

struct FakeKernel : CompiledKernel {
  explicit FakeKernel(int v) : value(v) {}
  int value;
};

KernelKey key(uint64_t hash) {
  KernelKey k;
  k.ir_hash = hash;
  k.signature = "float32(float32)";
  k.target_key = "test";
  return k;
}

TEST(KernelCache, ManyThreadsAskingAtOnceCompileOnce) {
  KernelCache cache;
  std::atomic<int> compiles{0};
  std::vector<std::thread> threads;
  std::vector<int> seen(16, -1);
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      auto k = cache.get_or_compile(key(1), [&]() -> std::shared_ptr<const CompiledKernel> {
        ++compiles;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return std::make_shared<FakeKernel>(42);
      });
      seen[static_cast<std::size_t>(t)] = static_cast<const FakeKernel &>(*k).value;
    });
  }
  for (auto &th : threads) {
    th.join();
  }
  EXPECT_EQ(compiles.load(), 1);
  for (int v : seen) {
    EXPECT_EQ(v, 42);
  }
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 15u);
  EXPECT_EQ(s.entries, 1u);
}

TEST(KernelCache, DifferentVariantsAreDifferentKeys) {
  KernelCache cache;
  KernelKey a = key(1);
  KernelKey b = key(1);
  b.variant.layout = codegen::Layout::Strided;
  int compiles = 0;
  auto make = [&]() -> std::shared_ptr<const CompiledKernel> {
    ++compiles;
    return std::make_shared<FakeKernel>(compiles);
  };
  cache.get_or_compile(a, make);
  cache.get_or_compile(b, make);
  cache.get_or_compile(a, make);
  EXPECT_EQ(compiles, 2);
}

TEST(KernelCache, FailedCompileLeavesNoEntryAndIsRetried) {
  KernelCache cache;
  int attempts = 0;
  auto failing = [&]() -> std::shared_ptr<const CompiledKernel> {
    ++attempts;
    throw std::runtime_error("boom");
  };
  EXPECT_THROW(cache.get_or_compile(key(7), failing), std::runtime_error);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_THROW(cache.get_or_compile(key(7), failing), std::runtime_error);
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(cache.stats().failures, 2u);
}

TEST(ThreadPool, EveryChunkRunsExactlyOnce) {
  ThreadPool pool(4);
  std::vector<std::atomic<int>> hits(1000);
  pool.parallel_for(1000, [&](int64_t c) { hits[static_cast<std::size_t>(c)]++; });
  for (std::size_t i = 0; i < hits.size(); ++i) {
    ASSERT_EQ(hits[i].load(), 1) << "chunk " << i;
  }
}

TEST(ThreadPool, ManyCallersShareOnePool) {
  ThreadPool pool(3);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 8; ++t) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 50; ++rep) {
        pool.parallel_for(37, [&](int64_t c) { total += c; });
      }
    });
  }
  for (auto &c : callers) {
    c.join();
  }
  EXPECT_EQ(total.load(), int64_t{8} * 50 * (36 * 37 / 2));
}

TEST(ThreadPool, SingleThreadPoolRunsOnCaller) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.concurrency(), 1);
  const auto me = std::this_thread::get_id();
  bool all_on_caller = true;
  pool.parallel_for(10, [&](int64_t) { all_on_caller = all_on_caller && std::this_thread::get_id() == me; });
  EXPECT_TRUE(all_on_caller);
}

TEST(KernelParams, StridedLayoutFollowsTheAbi) {
  CompiledSignature s;
  s.params = {DType::Float32, DType::Complex128};
  s.ret = DType::Float32;
  PreparedCall call;
  call.signature = &s;
  call.shape = {3, 4};
  call.size = 12;
  float in0[12] = {};
  float out[12] = {};
  PreparedOperand a;
  a.dtype = DType::Float32;
  a.array.data = in0;
  a.array.dtype = DType::Float32;
  a.array.shape = {3, 4};
  a.array.strides = {0, 4};
  PreparedOperand b;
  b.is_scalar = true;
  b.dtype = DType::Complex128;
  const double parts[2] = {1.5, -2.5};
  std::memcpy(b.scalar_bytes.data(), parts, 16);
  call.inputs = {a, b};
  call.output.data = out;
  call.output.dtype = DType::Float32;
  call.output.shape = {3, 4};
  call.output.strides = {16, 4};
  const codegen::KernelVariant v = choose_variant(call);
  EXPECT_EQ(v.layout, codegen::Layout::Strided);
  EXPECT_TRUE(v.index32);
  EXPECT_EQ(v.scalar_mask, 2u);
  KernelParams p(call, v, {in0, nullptr}, out);
  // n, ndim, shape, ptr0, strides0, re, im, out, out strides
  ASSERT_EQ(p.count(), 9u);
  EXPECT_EQ(*static_cast<int64_t *>(p.pointers()[0]), 12);
  EXPECT_EQ(*static_cast<int64_t *>(p.pointers()[1]), 2);
  const auto *shape = static_cast<const codegen::Dims *>(p.pointers()[2]);
  EXPECT_EQ(shape->v[0], 3);
  EXPECT_EQ(shape->v[1], 4);
  EXPECT_EQ(shape->v[2], 1);
  EXPECT_EQ(*static_cast<void **>(p.pointers()[3]), static_cast<void *>(in0));
  EXPECT_EQ(static_cast<const codegen::Dims *>(p.pointers()[4])->v[1], 4);
  EXPECT_EQ(*static_cast<double *>(p.pointers()[5]), 1.5);
  EXPECT_EQ(*static_cast<double *>(p.pointers()[6]), -2.5);
  EXPECT_EQ(*static_cast<void **>(p.pointers()[7]), static_cast<void *>(out));
  EXPECT_EQ(static_cast<const codegen::Dims *>(p.pointers()[8])->v[0], 16);
}

TEST(KernelParams, ContiguousVariantWhenEverythingIsOneDimUnitStride) {
  CompiledSignature s;
  s.params = {DType::Float64};
  s.ret = DType::Float64;
  double in[8] = {};
  double out[8] = {};
  PreparedCall call;
  call.signature = &s;
  call.shape = {8};
  call.size = 8;
  PreparedOperand a;
  a.dtype = DType::Float64;
  a.array = ArrayView{in, DType::Float64, {8}, {8}};
  call.inputs = {a};
  call.output = ArrayView{out, DType::Float64, {8}, {8}};
  const codegen::KernelVariant v = choose_variant(call);
  EXPECT_EQ(v.layout, codegen::Layout::Contiguous);
  KernelParams p(call, v, {in}, out);
  EXPECT_EQ(p.count(), 3u);  // n, in, out
  call.inputs[0].array.strides = {-8};
  EXPECT_EQ(choose_variant(call).layout, codegen::Layout::Strided);
}

}  // namespace
}  // namespace ufjit::runtime
