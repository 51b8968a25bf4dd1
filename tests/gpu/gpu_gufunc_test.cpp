// Generalized ufuncs on the GPU: device operands (no copies), mixed host and
// device operands, async calls on a stream, sizes around launch boundaries,
// broadcast and negative-stride device views, and the low-occupancy warning.
// Expected values from plain loops here.
#include <gtest/gtest.h>

#include "gpu_test_util.h"

namespace {

using ufjit::Array;
using ufjit::ArrayView;
using ufjit::gpu_testing::download;
using ufjit::gpu_testing::GpuTest;
using ufjit::gpu_testing::random_values;
using Shape = std::vector<int64_t>;

constexpr const char *kMatvec = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:,:], float64[:], float64[:])"], "(m,n),(n)->(m)")
def matvec(a, x, out):
    for i in range(a.shape[0]):
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * x[k]
        out[i] = acc
)src";

std::vector<double> reference_matvec(const std::vector<double> &a, const std::vector<double> &x, int64_t batch,
                                     int64_t m, int64_t n, bool x_batched) {
  std::vector<double> out;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      double acc = 0.0;
      for (int64_t k = 0; k < n; ++k) {
        acc += a[static_cast<std::size_t>((b * m + i) * n + k)] * x[static_cast<std::size_t>((x_batched ? b * n : 0) + k)];
      }
      out.push_back(acc);
    }
  }
  return out;
}

class GpuGufunc : public GpuTest {};

TEST_F(GpuGufunc, DeviceOperandsAroundLaunchBoundaries) {
  ufjit::Ufunc matvec = rt().vectorize(kMatvec);
  const int64_t m = 3, n = 5;
  for (int64_t batch : {1, 255, 256, 257, 1025, 100001}) {
    std::vector<double> a = random_values<double>(static_cast<std::size_t>(batch * m * n), 1, -1, 1);
    std::vector<double> x = random_values<double>(static_cast<std::size_t>(batch * n), 2, -1, 1);
    Array da = rt().to_device(ufjit::view(a.data(), {batch, m, n}));
    Array dx = rt().to_device(ufjit::view(x.data(), {batch, n}));
    Array r = matvec(da, dx);
    ASSERT_EQ(r.view().residence, ufjit::Residence::Device);
    ASSERT_EQ(r.view().shape, (Shape{batch, m}));
    EXPECT_EQ(download<double>(rt(), r.view()), reference_matvec(a, x, batch, m, n, true)) << batch;
  }
}

TEST_F(GpuGufunc, MixedHostAndDeviceOperandsAndBroadcastVector) {
  ufjit::Ufunc matvec = rt().vectorize(kMatvec);
  const int64_t batch = 4000, m = 2, n = 3;
  std::vector<double> a = random_values<double>(static_cast<std::size_t>(batch * m * n), 3, -2, 2);
  std::vector<double> x{0.5, -1.0, 2.0};  // host, broadcast over the batch
  Array da = rt().to_device(ufjit::view(a.data(), {batch, m, n}));
  Array r = matvec(da, x);
  EXPECT_EQ(r.view().residence, ufjit::Residence::Device);
  EXPECT_EQ(download<double>(rt(), r.view()), reference_matvec(a, x, batch, m, n, false));
  // All-host operands: staged in and out, result on the host.
  Array h = matvec(ufjit::view(a.data(), {batch, m, n}), x);
  EXPECT_EQ(h.view().residence, ufjit::Residence::Host);
  EXPECT_EQ(h.to_vector<double>(), reference_matvec(a, x, batch, m, n, false));
}

TEST_F(GpuGufunc, NegativeStrideDeviceViewAndAsyncOut) {
  ufjit::Ufunc matvec = rt().vectorize(kMatvec);
  const int64_t batch = 300, m = 2, n = 2;
  std::vector<double> a = random_values<double>(static_cast<std::size_t>(batch * m * n), 4, -1, 1);
  std::vector<double> x{1.0, 3.0};
  Array da = rt().to_device(ufjit::view(a.data(), {batch, m, n}));
  Array dx = rt().to_device(x);
  ArrayView reversed = da.view();  // the batch in reverse order
  reversed.data = static_cast<char *>(reversed.data) + (batch - 1) * m * n * 8;
  reversed.strides[0] = -m * n * 8;
  Array out = rt().device_empty(ufjit::DType::Float64, {batch, m});
  ufjit::Stream s = rt().stream();
  matvec.async(s, reversed, dx, ufjit::out(out));
  s.synchronize();
  std::vector<double> expected = reference_matvec(a, x, batch, m, n, false);
  std::vector<double> got = download<double>(rt(), out.view());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      ASSERT_EQ(got[static_cast<std::size_t>(b * m + i)], expected[static_cast<std::size_t>((batch - 1 - b) * m + i)]);
    }
  }
}

TEST_F(GpuGufunc, SmallOuterLoopWarnsOnceUnlessTurnedOff) {
  std::vector<double> a(6, 1.0), x(3, 2.0);
  {
    ufjit::Ufunc matvec = rt().vectorize(kMatvec);
    ::testing::internal::CaptureStderr();
    matvec(ufjit::view(a.data(), {2, 3}), x);
    matvec(ufjit::view(a.data(), {2, 3}), x);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("warning: gufunc 'matvec'"), std::string::npos) << err;
    EXPECT_EQ(err.find("warning", err.find("warning") + 1), std::string::npos) << "warned twice: " << err;
  }
  ufjit::RuntimeOptions quiet;
  quiet.target = ufjit::TargetKind::Cuda;
  quiet.warn_low_occupancy = false;
  ufjit::Runtime rt2(quiet);
  ufjit::Ufunc matvec = rt2.vectorize(kMatvec);
  ::testing::internal::CaptureStderr();
  Array r = matvec(ufjit::view(a.data(), {2, 3}), x);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{6, 6}));
}

}  // namespace
