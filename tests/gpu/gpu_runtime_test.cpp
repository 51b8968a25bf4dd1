// The CUDA runtime around launches: many host threads, device out-of-memory,
// async calls on streams, events, transfers and device information.
#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

using GpuRuntime = GpuTest;

TEST_F(GpuRuntime, DeviceInfoNamesAtLeastOneDeviceWithItsArch) {
  ASSERT_FALSE(info_.devices.empty());
  const DeviceInfo &dev = info_.devices[0];
  EXPECT_FALSE(dev.name.empty());
  EXPECT_GE(dev.cc_major, 5);
  EXPECT_EQ(dev.arch, "sm_" + std::to_string(dev.cc_major * 10 + dev.cc_minor));
  EXPECT_GT(dev.sm_count, 0);
  EXPECT_GT(dev.total_memory, uint64_t{1} << 30);
  EXPECT_GE(info_.driver_version, 11020);
}

TEST_F(GpuRuntime, ManyHostThreadsCallingOneUfuncAllGetTheirOwnResults) {
  Ufunc add = rt().vectorize(kAddI64Source);
  const int threads = 8;
  const int calls = 40;
  std::atomic<int> wrong{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        const std::size_t n = 1000 + static_cast<std::size_t>(t) * 777;
        std::vector<int64_t> x(n);
        for (std::size_t i = 0; i < n; ++i) {
          x[i] = static_cast<int64_t>(i) * (t + 1);
        }
        Array dx = rt().to_device(x);
        for (int c = 0; c < calls; ++c) {
          Array dz = add(dx, static_cast<int64_t>(c));
          Array hz = rt().to_host(dz);
          const int64_t *z = hz.host_data<int64_t>();
          for (std::size_t i = 0; i < n; ++i) {
            if (z[i] != x[i] + c) {
              ++wrong;
              return;
            }
          }
        }
      } catch (const std::exception &) {
        ++errors;
      }
    });
  }
  for (std::thread &t : pool) {
    t.join();
  }
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}

TEST_F(GpuRuntime, DeviceOutOfMemoryIsAClearDeviceErrorAndLeaksNothing) {
  Array warm = rt().device_empty(DType::Float32, {1024});  // context current here
  std::size_t free_before = 0;
  std::size_t total = 0;
  ASSERT_TRUE(device_memory(&free_before, &total));
  const int64_t too_many = static_cast<int64_t>(total) * 2;  // bytes, as int8 elements

  std::string message;
  try {
    Array huge = rt().device_empty(DType::Int8, {too_many});
    FAIL() << "allocating " << too_many << " bytes succeeded";
  } catch (const NoDeviceError &e) {
    FAIL() << "OOM must not be NoDeviceError: " << e.what();
  } catch (const DeviceError &e) {
    message = e.what();
  }
  EXPECT_NE(message.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << message;
  EXPECT_NE(message.find("cuMemAllocAsync"), std::string::npos) << message;

  rt().synchronize();
  std::size_t free_after = 0;
  ASSERT_TRUE(device_memory(&free_after, &total));
  const auto leaked = static_cast<int64_t>(free_before) - static_cast<int64_t>(free_after);
  EXPECT_LE(leaked, int64_t{4} << 20) << "free before " << free_before << ", after " << free_after;

  // The runtime still works after the failure.
  Ufunc add = rt().vectorize(kAddI64Source);
  Array dz = add(rt().to_device(std::vector<int64_t>{1, 2}), 1);
  EXPECT_EQ(download<int64_t>(rt(), dz), (std::vector<int64_t>{2, 3}));
}

TEST_F(GpuRuntime, AsyncCallOnAStreamCompletesAfterStreamSynchronize) {
  const std::size_t n = (1 << 22) + 5;
  Ufunc gauss = rt().vectorize(kGaussSource);
  std::vector<double> x = random_values<double>(n, 21, -3, 3);
  Array dx = rt().to_device(x);
  Array dout = rt().device_empty(DType::Float64, {static_cast<int64_t>(n)});
  Stream stream = rt().stream();
  ASSERT_TRUE(stream.valid());
  Event start;
  Event stop;

  start.record(stream);
  gauss.async(stream, dx, 0.25, 0.75, out(dout));
  stop.record(stream);
  stream.synchronize();

  EXPECT_GE(Event::elapsed_ms(start, stop), 0.0f);
  std::vector<double> z = download<double>(rt(), dout);
  for (std::size_t i = 0; i < n; ++i) {
    const double expected = gauss_ref(x[i], 0.25, 0.75);
    ASSERT_NEAR(z[i], expected, 1e-14 * std::abs(expected) + 1e-300) << "i=" << i;
  }
}

TEST_F(GpuRuntime, AsyncCallRejectsHostOperands) {
  Ufunc add = rt().vectorize(kAddSource);
  std::vector<float> x(10, 1.0f);
  Array dout = rt().device_empty(DType::Float32, {10});
  Stream stream = rt().stream();
  EXPECT_THROW(add.async(stream, view(x), view(x), out(dout)), Error);
}

TEST_F(GpuRuntime, EmptyStreamSynchronizeDoesNothingAndEventsSurviveMoves) {
  Stream empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_NO_THROW(empty.synchronize());
  Event never_recorded;
  EXPECT_NO_THROW(never_recorded.synchronize());
  Stream s = rt().stream();
  Stream moved = std::move(s);
  Event e;
  e.record(moved);
  Event e2 = std::move(e);
  EXPECT_NO_THROW(e2.synchronize());
}

TEST_F(GpuRuntime, ToDeviceAndBackRoundTripsEveryByte) {
  const std::size_t n = (std::size_t{9} << 20) + 13;  // several staging chunks
  std::vector<uint8_t> bytes(n);
  for (std::size_t i = 0; i < n; ++i) {
    bytes[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
  }
  Array d = rt().to_device(bytes);
  EXPECT_EQ(download<uint8_t>(rt(), d), bytes);
}

TEST_F(GpuRuntime, ZeroSizedDeviceArraysNeedNoMemory) {
  Ufunc add = rt().vectorize(kAddSource);
  Array d = rt().device_empty(DType::Float32, {0});
  Array z = add(d, d);
  EXPECT_EQ(z.size(), 0);
  EXPECT_EQ(z.residence(), Residence::Device);
}

// One Runtime computes on one GPU: a view that says it lives on another
// device is refused before anything runs, by every door that reads device
// memory, naming both devices (never a read through the wrong context).
TEST_F(GpuRuntime, AnArrayOfAnotherDeviceIsRefusedNamingBothDevices) {
  Ufunc add = rt().vectorize(kAddI64Source);
  Array a = rt().to_device(std::vector<int64_t>{1, 2, 3});
  ArrayView elsewhere = a.view();
  // A device outside this Runtime's set (UFJIT_DEVICES=all may hold several).
  const std::vector<int> set = rt().devices();
  elsewhere.device = *std::max_element(set.begin(), set.end()) + 1;
  auto expect_refused = [&](const std::function<void()> &call, const std::string &what) {
    try {
      call();
      ADD_FAILURE() << what << " accepted an array of another device";
    } catch (const InputError &e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("device " + std::to_string(elsewhere.device)), std::string::npos) << what << ": " << message;
      // "computes on device 0", or "computes on devices 0, 1" under UFJIT_DEVICES=all.
      EXPECT_NE(message.find("computes on device"), std::string::npos) << what << ": " << message;
      EXPECT_NE(message.find(std::to_string(a.view().device)), std::string::npos) << what << ": " << message;
    }
  };
  expect_refused([&] { (void)add(elsewhere, a.view()); }, "a call's input");
  expect_refused([&] { (void)add(a.view(), a.view(), out(elsewhere)); }, "a call's out");
  expect_refused([&] { (void)add.reduce(elsewhere); }, "reduce");
  expect_refused([&] { (void)rt().to_host(elsewhere); }, "to_host");
  EXPECT_EQ(download<int64_t>(rt(), a.view()), (std::vector<int64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace ufjit::gpu_testing
