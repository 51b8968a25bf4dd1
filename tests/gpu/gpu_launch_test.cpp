// CUDA launches over device arrays: launch-boundary sizes, the 64-bit index
// path, misaligned pointers, broadcasting and negative strides, out=, mixed
// host and device operands, in-place calls, and large host arrays.
#include <cmath>
#include <cstring>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

using GpuLaunch = GpuTest;

class GpuLaunchSizes : public GpuTest, public ::testing::WithParamInterface<int64_t> {};

TEST_P(GpuLaunchSizes, AddOnDeviceArraysMatchesTheHostSum) {
  const auto n = static_cast<std::size_t>(GetParam());
  Ufunc add = rt().vectorize(kAddSource);
  std::vector<float> x = random_values<float>(n, 1, -100, 100);
  std::vector<float> y = random_values<float>(n, 2, -100, 100);
  Array dx = rt().to_device(x);
  Array dy = rt().to_device(y);

  Array dz = add(dx, dy);

  ASSERT_EQ(dz.residence(), Residence::Device);
  ASSERT_EQ(dz.shape(), std::vector<int64_t>{static_cast<int64_t>(n)});
  std::vector<float> z = download<float>(rt(), dz);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[i], x[i] + y[i]) << "n=" << n << " i=" << i << " x=" << x[i] << " y=" << y[i];
  }
}

INSTANTIATE_TEST_SUITE_P(LaunchBoundaries, GpuLaunchSizes,
                         ::testing::Values(0, 1, 31, 32, 33, 1023, 1024, 1025, (1 << 20) + 1));

TEST_F(GpuLaunch, MoreThanTwoToThe31Int8ElementsUseTheSixtyFourBitIndexPath) {
  const int64_t n = (int64_t{1} << 31) + 7;
  std::size_t free_bytes = 0;
  std::size_t total = 0;
  Ufunc add = rt().vectorize(kAddI8Source);
  Array probe = rt().device_empty(DType::Int8, {1});
  if (device_memory(&free_bytes, &total) && free_bytes < 3 * static_cast<std::size_t>(n)) {
    GTEST_SKIP() << "needs 6.5 GB of free device memory";
  }
  std::vector<int8_t> host(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    host[static_cast<std::size_t>(i)] = static_cast<int8_t>(i % 101 - 50);
  }
  Array dx = rt().to_device(host);

  Array dz = add(dx, 3);

  Array hz = rt().to_host(dz);
  const auto *z = hz.host_data<int8_t>();
  int64_t wrong = 0;
  int64_t first_wrong = -1;
  for (int64_t i = 0; i < n; ++i) {
    const auto expected = static_cast<int8_t>(i % 101 - 50 + 3);
    if (z[i] != expected) {
      first_wrong = wrong == 0 ? i : first_wrong;
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0) << "first wrong element " << first_wrong;
  EXPECT_EQ(z[n - 1], static_cast<int8_t>((n - 1) % 101 - 50 + 3)) << "the last element (index >= 2^31)";
}

TEST_F(GpuLaunch, MisalignedStartingPointersFallBackFromVectorAccess) {
  const std::size_t n = 4099;
  Ufunc add = rt().vectorize(kAddSource);
  std::vector<float> x = random_values<float>(n + 3, 3, -10, 10);
  std::vector<float> y = random_values<float>(n + 3, 4, -10, 10);
  Array dx = rt().to_device(x);
  Array dy = rt().to_device(y);
  Array dout = rt().device_empty(DType::Float32, {static_cast<int64_t>(n + 3)});
  for (int shift = 1; shift <= 3; ++shift) {
    // Element-aligned but not 16-byte aligned views: x from `shift`, y from
    // `3 - shift`, out from 1.
    ArrayView vx = dx.view();
    vx.data = static_cast<float *>(vx.data) + shift;
    vx.shape = {static_cast<int64_t>(n)};
    ArrayView vy = dy.view();
    vy.data = static_cast<float *>(vy.data) + (3 - shift);
    vy.shape = {static_cast<int64_t>(n)};
    ArrayView vo = dout.view();
    vo.data = static_cast<float *>(vo.data) + 1;
    vo.shape = {static_cast<int64_t>(n)};

    add(vx, vy, out(vo));

    std::vector<float> z = download<float>(rt(), vo);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(z[i], x[i + shift] + y[i + 3 - shift]) << "shift=" << shift << " i=" << i;
    }
  }
}

TEST_F(GpuLaunch, BroadcastAndNegativeStridesOnDeviceArrays) {
  const int64_t rows = 37;
  const int64_t cols = 129;
  Ufunc add = rt().vectorize(kAddSource);
  std::vector<double> col = random_values<double>(rows, 5, -1, 1);
  std::vector<double> row = random_values<double>(cols, 6, -1, 1);
  Array dcol = rt().to_device(view(col.data(), {rows, 1}));
  Array drow = rt().to_device(row);
  // The row reversed: element 0 is the last, stride -8.
  ArrayView reversed = drow.view();
  reversed.data = static_cast<double *>(reversed.data) + (cols - 1);
  reversed.strides = {-static_cast<int64_t>(sizeof(double))};

  Array dz = add(dcol, reversed);

  ASSERT_EQ(dz.shape(), (std::vector<int64_t>{rows, cols}));
  std::vector<double> z = download<double>(rt(), dz);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const double expected = col[static_cast<std::size_t>(r)] + row[static_cast<std::size_t>(cols - 1 - c)];
      ASSERT_EQ(z[static_cast<std::size_t>(r * cols + c)], expected) << "r=" << r << " c=" << c;
    }
  }
}

TEST_F(GpuLaunch, ToHostOfANegativeStrideDeviceViewGathersItsElements) {
  std::vector<int64_t> v = {1, 2, 3, 4, 5, 6, 7};
  Array d = rt().to_device(v);
  ArrayView every_other_reversed = d.view();
  every_other_reversed.data = static_cast<int64_t *>(every_other_reversed.data) + 6;
  every_other_reversed.shape = {4};
  every_other_reversed.strides = {-16};
  EXPECT_EQ(download<int64_t>(rt(), every_other_reversed), (std::vector<int64_t>{7, 5, 3, 1}));
}

TEST_F(GpuLaunch, OutDeviceArrayIsWrittenAndNothingIsReturned) {
  const std::size_t n = 5000;
  Ufunc gauss = rt().vectorize(kGaussSource);
  std::vector<float> x = random_values<float>(n, 7, -3, 3);
  Array dx = rt().to_device(x);
  Array dout = rt().to_device(std::vector<float>(n, -999.0f));

  Array returned = gauss(dx, 0.5f, 1.5f, out(dout));

  EXPECT_TRUE(returned.empty_handle());
  std::vector<float> z = download<float>(rt(), dout);
  for (std::size_t i = 0; i < n; ++i) {
    const double expected = gauss_ref(x[i], 0.5f, 1.5f);
    ASSERT_NEAR(z[i], expected, 4e-6 * std::abs(expected) + 1e-7) << "i=" << i << " x=" << x[i];
  }
}

TEST_F(GpuLaunch, HostAndDeviceOperandsMixedGiveADeviceResult) {
  const std::size_t n = 70001;
  Ufunc add = rt().vectorize(kAddSource);
  std::vector<float> x = random_values<float>(n, 8, -5, 5);
  std::vector<float> y = random_values<float>(n, 9, -5, 5);
  Array dy = rt().to_device(y);

  Array dz = add(view(x), dy);

  ASSERT_EQ(dz.residence(), Residence::Device);
  std::vector<float> z = download<float>(rt(), dz);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[i], x[i] + y[i]) << "i=" << i;
  }
}

TEST_F(GpuLaunch, InPlaceCallReadsAndWritesTheSameDeviceArray) {
  const std::size_t n = 100003;
  Ufunc add = rt().vectorize(kAddSource);
  std::vector<double> x = random_values<double>(n, 10, -5, 5);
  Array dx = rt().to_device(x);

  add(dx, dx, out(dx));

  std::vector<double> z = download<double>(rt(), dx);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[i], x[i] + x[i]) << "i=" << i;
  }
}

TEST_F(GpuLaunch, LargeHostArraysAreStagedInChunksAndReturnedOnTheHost) {
  const std::size_t n = (std::size_t{1} << 24) + 3;  // not a multiple of any chunk
  Ufunc gauss = rt().vectorize(kGaussSource);
  std::vector<float> x = random_values<float>(n, 11, -3, 3);
  std::vector<float> mean = random_values<float>(n, 12, -1, 1);
  std::vector<float> sigma = random_values<float>(n, 13, 0.5, 2);

  Array z = gauss(view(x), view(mean), view(sigma));

  ASSERT_EQ(z.residence(), Residence::Host);
  const float *zp = z.host_data<float>();
  for (std::size_t i = 0; i < n; ++i) {
    const double expected = gauss_ref(x[i], mean[i], sigma[i]);
    ASSERT_NEAR(zp[i], expected, 4e-6 * std::abs(expected) + 1e-7) << "i=" << i;
  }
  EXPECT_NEAR(zp[n - 1], gauss_ref(x[n - 1], mean[n - 1], sigma[n - 1]), 1e-5);
}

TEST_F(GpuLaunch, TypedDeviceArrayTakesTheResultThroughOut) {
  Ufunc add = rt().vectorize(kAddI64Source);
  const std::vector<int64_t> x = {5, -6, 7};
  TypedArray<int64_t> dz = rt().device_empty<int64_t>({3});
  ASSERT_EQ(dz.residence(), Residence::Device);
  add(rt().to_device(x), 10, out(dz.view()));
  EXPECT_EQ(download<int64_t>(rt(), dz), (std::vector<int64_t>{15, 4, 17}));
  EXPECT_THROW(TypedArray<float>(rt().device_empty(DType::Int64, {3})), InputError);
}

TEST_F(GpuLaunch, HostResultsOfSuccessiveCallsNeverShareMemory) {
  // Large host results come from a pool of page-locked blocks: a block must
  // be reused only after the Array holding it is gone.
  const int64_t n = (int64_t{1} << 20) + 7;  // 8 MiB of int64, over the pool's minimum
  Ufunc add = rt().vectorize(kAddI64Source);
  std::vector<int64_t> x(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = 3 * i - 1000;
  }
  Array first = add(view(x), 1);
  Array second = add(view(x), 2);
  { Array dropped = add(view(x), 3); }
  Array third = add(view(x), 4);  // may reuse `dropped`'s block, never first's or second's
  for (int64_t i = 0; i < n; i += 997) {
    const int64_t base = 3 * i - 1000;
    ASSERT_EQ(first.host_data<int64_t>()[i], base + 1) << "i=" << i;
    ASSERT_EQ(second.host_data<int64_t>()[i], base + 2) << "i=" << i;
    ASSERT_EQ(third.host_data<int64_t>()[i], base + 4) << "i=" << i;
  }
  EXPECT_EQ(third.host_data<int64_t>()[n - 1], 3 * (n - 1) - 1000 + 4);
}

TEST_F(GpuLaunch, HostResultOutlivesTheRuntimeThatMadeIt) {
  const int64_t n = int64_t{1} << 19;  // 4 MiB of int64: a page-locked result
  std::vector<int64_t> x(static_cast<std::size_t>(n), 20);
  Array result;
  {
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    Runtime scoped(options);
    Ufunc add = scoped.vectorize(kAddI64Source);
    result = add(view(x), 22);
  }
  rt_.reset();  // no Runtime is left in the process
  ASSERT_EQ(result.size(), n);
  EXPECT_EQ(result.host_data<int64_t>()[0], 42);
  EXPECT_EQ(result.host_data<int64_t>()[n - 1], 42);
}

TEST_F(GpuLaunch, StridedHostOutKeepsTheElementsBetweenItsStrides) {
  const int64_t n = 1001;
  Ufunc add = rt().vectorize(kAddI64Source);
  std::vector<int64_t> x(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = i * 3 - 7;
  }
  std::vector<int64_t> target(static_cast<std::size_t>(2 * n), -1);
  ArrayView every_other = view(target.data(), {n});
  every_other.strides = {16};

  add(view(x), 10, out(every_other));

  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(target[static_cast<std::size_t>(2 * i)], i * 3 - 7 + 10) << "i=" << i;
    ASSERT_EQ(target[static_cast<std::size_t>(2 * i + 1)], -1) << "gap at i=" << i << " was overwritten";
  }
}

TEST_F(GpuLaunch, AllScalarCallReturnsAZeroDimensionalHostResult) {
  Ufunc add = rt().vectorize(kAddSource);
  Array z = add(2.5, 4.0);
  ASSERT_EQ(z.shape().size(), 0u);
  ASSERT_EQ(z.residence(), Residence::Host);
  // Weak scalars may pick either float signature; 6.5 is exact in both.
  const double value = z.dtype() == DType::Float32 ? z.host_data<float>()[0] : z.host_data<double>()[0];
  EXPECT_EQ(value, 6.5);
}

}  // namespace
}  // namespace ufjit::gpu_testing
