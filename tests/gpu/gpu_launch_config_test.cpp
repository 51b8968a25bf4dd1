// Launch sizes chosen per entry (runtime/cuda/LaunchConfig.h): entries whose
// launch hint asks for one group per thread over the whole array (int64 add:
// 16-byte vectors of 2 elements; gauss float64: the scalar loop at 2 per
// thread) must still cover every element at group and block boundaries, on
// misaligned views (the scalar fallback under the same full grid) and on
// sizes that leave a partial last group. Expected values computed on the host.
// A moderate body on float32 (libdevice's sincosf) runs in 16-byte vector
// groups, and what they leave (the tail, every element of a misaligned view)
// in lane groups under the same full grid.
#include <cmath>
#include <cstdint>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

class GpuLaunchConfigSizes : public GpuTest, public ::testing::WithParamInterface<int64_t> {};

/// Values that overflow 32 bits, so that a narrowed add would be caught.
std::vector<int64_t> wide_values(std::size_t n, int64_t salt) {
  std::vector<int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = (static_cast<int64_t>(i) * 2654435761LL + salt) * ((i % 2 == 0) ? 1 : -1) + (int64_t{1} << 40);
  }
  return v;
}

TEST_P(GpuLaunchConfigSizes, Int64AddCoversEveryElementOfAFullGrid) {
  const auto n = static_cast<std::size_t>(GetParam());
  Ufunc add = rt().vectorize(kAddI64Source);
  std::vector<int64_t> x = wide_values(n, 7);
  std::vector<int64_t> y = wide_values(n, -123456789);
  Array dz = add(rt().to_device(x), rt().to_device(y));
  std::vector<int64_t> z = download<int64_t>(rt(), dz);
  ASSERT_EQ(z.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[i], x[i] + y[i]) << "n=" << n << " i=" << i;
  }
}

TEST_P(GpuLaunchConfigSizes, Int64AddOnEightByteOffsetViewsUsesTheScalarPath) {
  const auto n = static_cast<std::size_t>(GetParam());
  Ufunc add = rt().vectorize(kAddI64Source);
  std::vector<int64_t> x = wide_values(n + 1, 11);
  std::vector<int64_t> y = wide_values(n + 1, 13);
  Array dx = rt().to_device(x);
  Array dy = rt().to_device(y);
  Array dout = rt().device_empty(DType::Int64, {static_cast<int64_t>(n + 1)});
  // 8 bytes past a 16-byte aligned allocation: no 16-byte vectors.
  ArrayView vx = dx.view();
  vx.data = static_cast<int64_t *>(vx.data) + 1;
  vx.shape = {static_cast<int64_t>(n)};
  ArrayView vo = dout.view();
  vo.data = static_cast<int64_t *>(vo.data) + 1;
  vo.shape = {static_cast<int64_t>(n)};
  ArrayView vy = dy.view();
  vy.shape = {static_cast<int64_t>(n)};

  add(vx, vy, out(vo));

  std::vector<int64_t> z = download<int64_t>(rt(), vo);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[i], x[i + 1] + y[i]) << "n=" << n << " i=" << i;
  }
}

TEST_P(GpuLaunchConfigSizes, GaussFloat64MatchesTheHostFormula) {
  const auto n = static_cast<std::size_t>(GetParam());
  Ufunc gauss = rt().vectorize(kGaussSource);
  std::vector<double> x = random_values<double>(n, 5, -3, 3);
  std::vector<double> mean(n, 0.25);
  std::vector<double> sigma(n, 1.5);
  Array dz = gauss(rt().to_device(x), rt().to_device(mean), rt().to_device(sigma));
  std::vector<double> z = download<double>(rt(), dz);
  ASSERT_EQ(z.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = (x[i] - 0.25) / 1.5;
    const double expected = std::exp(-0.5 * t * t) / (1.5 * 2.5066282746310002);
    ASSERT_NEAR(z[i], expected, 1e-14) << "n=" << n << " i=" << i;
  }
}

constexpr const char *kSinCosF32Source =
    "import math\n"
    "@vectorize([\"float32(float32)\"])\n"
    "def f(x):\n"
    "    return math.sin(x) + 0.5 * math.cos(x)\n";

/// libdevice's sinf and cosf are within 2 ulp: 1e-6 on values below 1.2.
void expect_sincos_of(const std::vector<float> &x, std::size_t first, const std::vector<float> &z,
                      std::size_t n) {
  ASSERT_EQ(z.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = x[first + i];
    ASSERT_NEAR(z[i], std::sin(v) + 0.5 * std::cos(v), 1e-6) << "n=" << n << " i=" << i;
  }
}

TEST_P(GpuLaunchConfigSizes, SinCosFloat32CoversEveryElementInVectorGroupsAndTheTail) {
  const auto n = static_cast<std::size_t>(GetParam());
  Ufunc f = rt().vectorize(kSinCosF32Source);
  std::vector<float> x = random_values<float>(n, 17, -4, 4);
  Array dz = f(rt().to_device(x));
  expect_sincos_of(x, 0, download<float>(rt(), dz), n);
}

TEST_P(GpuLaunchConfigSizes, SinCosFloat32OnFourByteOffsetViewsRunsInLaneGroups) {
  const auto n = static_cast<std::size_t>(GetParam());
  Ufunc f = rt().vectorize(kSinCosF32Source);
  std::vector<float> x = random_values<float>(n + 1, 19, -4, 4);
  Array dx = rt().to_device(x);
  // 4 bytes past a 16-byte aligned allocation, written in place: no vectors.
  ArrayView vx = dx.view();
  vx.data = static_cast<float *>(vx.data) + 1;
  vx.shape = {static_cast<int64_t>(n)};

  f(vx, out(vx));

  std::vector<float> all = download<float>(rt(), dx);
  ASSERT_EQ(all[0], x[0]) << "the element before the view is not written";
  expect_sincos_of(x, 1, std::vector<float>(all.begin() + 1, all.end()), n);
}

// Around a group (2), a warp, a block of 256 threads x 2 elements, and a
// size whose last block is partial.
INSTANTIATE_TEST_SUITE_P(GroupAndBlockBoundaries, GpuLaunchConfigSizes,
                         ::testing::Values(1, 2, 3, 63, 64, 65, 511, 512, 513, 1025, (1 << 20) + 3));

}  // namespace
}  // namespace ufjit::gpu_testing
