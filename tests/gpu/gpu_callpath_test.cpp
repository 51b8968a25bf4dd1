// The call path on the GPU (issue 8): program order is the only order a user
// needs to think about (staged copies and host-operand calls wait for an
// async call still running), and overlap between inputs and `out` and
// broadcasting to `out` behave as on the CPU target, sync and async.
#include <numeric>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

using GpuCallPath = GpuTest;

/// Slow on purpose (a long dependent chain per element), so that work queued
/// behind it on another stream would overtake it without proper ordering.
const char *kSlowSource = R"UFN(
@vectorize(["float64(float64)"])
def approach_one(x):
    s = x
    for i in range(20000):
        s = s * 0.999 + 0.001
    return s
)UFN";

const char *kCombineSource = R"UFN(
@vectorize(["float64(float64, float64)"])
def combine(a, b):
    return a * 100 + b
)UFN";

std::vector<double> iota(std::size_t n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 0.0);
  return v;
}

/// A view of the first `n` elements of a 1-D device array (shares its memory).
Array head_of(const Array &a, int64_t n) {
  ArrayView v = a.view();
  v.shape = {n};
  return Array(v, a.holder());
}

TEST_F(GpuCallPath, StagedCopiesAndHostOperandCallsWaitForAnAsyncCallStillRunning) {
  const int64_t n = int64_t{1} << 21;
  const int64_t head = 1000;  // under 1 MiB: pageable results, copied through the staging slots
  Ufunc slow = rt().vectorize(kSlowSource);
  Ufunc add = rt().vectorize(kAddSource);
  Array dx = rt().to_device(std::vector<double>(static_cast<std::size_t>(n), 0.0));
  Stream stream = rt().stream();
  for (int round = 0; round < 3; ++round) {
    Array dout = rt().to_device(std::vector<double>(static_cast<std::size_t>(n), 0.0));
    const Array dhead = head_of(dout, head);
    slow.async(stream, dx, out(dout));
    // No stream.synchronize(): the copy and the call below must wait for it.
    const std::vector<double> copied = download<double>(rt(), dhead);
    const std::vector<double> ones(static_cast<std::size_t>(head), 1.0);
    Array sum = add(dhead, view(ones));  // a host operand: a staged call
    const std::vector<double> summed = rt().to_host(sum).to_vector<double>();
    for (int64_t i = 0; i < head; ++i) {
      ASSERT_GT(copied[static_cast<std::size_t>(i)], 0.99) << "round " << round << ", i=" << i;
      ASSERT_GT(summed[static_cast<std::size_t>(i)], 1.99) << "round " << round << ", i=" << i;
    }
    stream.synchronize();
  }
}

TEST_F(GpuCallPath, StagedWriteIntoAnArrayAnAsyncCallStillReadsWaitsForIt) {
  const int64_t n = int64_t{1} << 21;
  const int64_t head = 1000;
  Ufunc slow = rt().vectorize(kSlowSource);
  Ufunc add = rt().vectorize(kAddSource);
  Array dbig = rt().to_device(std::vector<double>(static_cast<std::size_t>(n), 0.0));
  Stream stream = rt().stream();
  for (int round = 0; round < 3; ++round) {
    Array dsrc = rt().to_device(std::vector<double>(static_cast<std::size_t>(head), 0.0));
    Array sink = rt().device_empty(DType::Float64, {head});
    slow.async(stream, dbig, out(dbig));      // keeps the stream busy...
    add.async(stream, dsrc, 0.0, out(sink));  // ...so this reads dsrc late
    const std::vector<double> sevens(static_cast<std::size_t>(head), 7.0);
    add(view(sevens), 0.0, out(dsrc));  // a staged call writing what the async call reads
    stream.synchronize();
    EXPECT_EQ(download<double>(rt(), sink), std::vector<double>(static_cast<std::size_t>(head), 0.0))
        << "the async call read a value written after it in program order, round " << round;
    EXPECT_EQ(download<double>(rt(), dsrc), sevens);
  }
}

TEST_F(GpuCallPath, AResultBlockReusedWhileAnAsyncCallStillReadsItIsNotOverwrittenEarly) {
  // Small sync results come from idle blocks with no stream operation
  // (runtime/cuda/DeviceBlockCache.h); the legacy stream's wait for every
  // blocking stream is what keeps this right.
  const int64_t n = int64_t{1} << 21;
  Ufunc slow = rt().vectorize(kSlowSource);
  Ufunc add = rt().vectorize(kAddSource);
  Stream stream = rt().stream();
  Array dbig = rt().to_device(std::vector<double>(static_cast<std::size_t>(n), 0.0));
  Array dzeros = rt().to_device(std::vector<double>(1000, 0.0));
  for (int round = 0; round < 3; ++round) {
    Array block = add(dzeros, dzeros);  // a block from the cache, zeros
    Array sink = rt().device_empty(DType::Float64, {1000});
    slow.async(stream, dbig, out(dbig));       // keeps the stream busy...
    add.async(stream, block, 0.0, out(sink));  // ...so this reads `block` late
    block = Array();                           // back to the cache at once
    Array reused = add(dzeros, 5.0);           // may get the same block
    EXPECT_EQ(download<double>(rt(), reused), std::vector<double>(1000, 5.0));
    stream.synchronize();
    EXPECT_EQ(download<double>(rt(), sink), std::vector<double>(1000, 0.0))
        << "the async call read a block that a later call had reused, round " << round;
  }
}

TEST_F(GpuCallPath, TinySyncResultsFromReusedBlocksHoldEachCallsValue) {
  // 1-element results, dropped and taken again call after call: each holds
  // its own call's value (x + i), never a neighbour's.
  Ufunc add = rt().vectorize(kAddSource);
  Array dx = rt().to_device(std::vector<double>{0.25});
  std::vector<Array> kept;
  for (int i = 0; i < 200; ++i) {
    Array r = add(dx, static_cast<double>(i));
    if (i % 3 == 0) {
      kept.push_back(std::move(r));  // some stay alive, the others go back at once
      continue;
    }
    ASSERT_EQ(download<double>(rt(), r), std::vector<double>{0.25 + i}) << "call " << i;
  }
  for (std::size_t k = 0; k < kept.size(); ++k) {
    EXPECT_EQ(download<double>(rt(), kept[k]), std::vector<double>{0.25 + 3.0 * static_cast<double>(k)}) << "kept " << k;
  }
}

TEST_F(GpuCallPath, ShiftedOverlapOfADeviceOutReadsEveryInputBeforeWriting) {
  Ufunc combine = rt().vectorize(kCombineSource);
  for (const std::size_t n : {std::size_t{10}, std::size_t{(1 << 20) + 7}}) {
    const std::vector<double> a = iota(n);
    Array d = rt().to_device(a);
    ArrayView head = d.view();
    head.shape = {static_cast<int64_t>(n) - 1};
    ArrayView tail = head;
    tail.data = static_cast<double *>(d.data()) + 1;
    combine(head, 0.0, out(tail));  // d[1:] = d[:-1] * 100
    const std::vector<double> r = download<double>(rt(), d);
    ASSERT_EQ(r[0], 0.0);
    for (std::size_t i = 1; i < n; ++i) {
      ASSERT_EQ(r[i], a[i - 1] * 100) << "n=" << n << " i=" << i;
    }
  }
}

TEST_F(GpuCallPath, ReversedInputInPlaceOnTheDeviceSyncAndAsync) {
  Ufunc combine = rt().vectorize(kCombineSource);
  const std::size_t n = (1 << 20) + 3;
  const std::vector<double> a = iota(n);
  Stream stream = rt().stream();
  for (const bool async : {false, true}) {
    Array d = rt().to_device(a);
    ArrayView reversed = d.view();
    reversed.data = static_cast<double *>(d.data()) + (n - 1);
    reversed.strides = {-8};
    if (async) {
      combine.async(stream, reversed, 0.5, out(d));
      stream.synchronize();
    } else {
      combine(reversed, 0.5, out(d));
    }
    const std::vector<double> r = download<double>(rt(), d);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(r[i], a[n - 1 - i] * 100 + 0.5) << (async ? "async" : "sync") << " i=" << i;
    }
  }
}

TEST_F(GpuCallPath, HostOperandsOverlappingAHostOutAreReadBeforeWriting) {
  Ufunc combine = rt().vectorize(kCombineSource);
  const std::size_t n = (std::size_t{4} << 20) + 9;  // several staging chunks
  std::vector<double> a = iota(n);
  ArrayView head{a.data(), DType::Float64, {static_cast<int64_t>(n) - 1}, {8}};
  ArrayView tail{a.data() + 1, DType::Float64, {static_cast<int64_t>(n) - 1}, {8}};
  combine(head, 0.0, out(tail));
  ASSERT_EQ(a[0], 0.0);
  for (std::size_t i = 1; i < n; ++i) {
    ASSERT_EQ(a[i], static_cast<double>(i - 1) * 100) << "i=" << i;
  }
}

TEST_F(GpuCallPath, InputsBroadcastToADeviceOutsShape) {
  Ufunc combine = rt().vectorize(kCombineSource);
  Array row = rt().to_device(std::vector<double>{1, 2, 3});
  Array matrix = rt().device_empty(DType::Float64, {2, 3});
  combine(row, 1.0, out(matrix));
  EXPECT_EQ(download<double>(rt(), matrix), (std::vector<double>{101, 201, 301, 101, 201, 301}));
  Array small = rt().device_empty(DType::Float64, {3});
  EXPECT_THROW(combine(matrix, 1.0, out(small)), ShapeError);
}

TEST_F(GpuCallPath, DeviceArraysOfTheWrongResidenceOrAlignmentAreInputErrors) {
  Array d = rt().to_device(std::vector<double>{1, 2, 3});
  EXPECT_THROW(d.to_vector<double>(), InputError);
  ArrayView misaligned = d.view();
  misaligned.data = static_cast<char *>(d.data()) + 4;
  misaligned.shape = {2};
  EXPECT_THROW(rt().to_host(misaligned), InputError);
  EXPECT_THROW(rt().to_device(d), InputError);
}

}  // namespace
}  // namespace ufjit::gpu_testing
