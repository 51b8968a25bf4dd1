// On the GPU: CUDA C++ elementwise kernels (Runtime::elementwise, CuPy's
// ElementwiseKernel conventions) run by ufjit's runtime: placeholders bound
// from two dtypes, raw parameters with _ind.size(), a preamble, two outputs,
// broadcasting, host operands (pinned staging), a non-contiguous input,
// out= on a stream, and sizes 0, 1, 1025 and 1000001. Expected values are
// computed here on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "interop/cudacpp/Nvrtc.h"
#include "runtime/cuda/CudaDriver.h"
#include "ufjit/device.h"
#include "ufjit/ufjit.h"

namespace ufjit::cudacpp {
namespace {

const std::vector<int64_t> kSizes = {0, 1, 1025, 1000001};

class ElementwiseGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    if (!nvrtc_available(&why)) GTEST_SKIP() << "NVRTC cannot be loaded: " << why;
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    rt_ = std::make_unique<Runtime>(options);
  }
  std::unique_ptr<Runtime> rt_;
};

template <typename T>
std::vector<T> random_values(int64_t n, unsigned seed, double lo = -10, double hi = 10) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T &x : v) x = static_cast<T>(dist(gen));
  return v;
}

TEST_F(ElementwiseGpu, PlaceholdersBindFromTheOperandsDtypesOnHostAndDevice) {
  Ufunc k = rt_->elementwise("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff");
  for (int64_t n : kSizes) {
    const std::vector<float> x = random_values<float>(n, 1), y = random_values<float>(n, 2);
    const std::vector<float> host = k(x, y).to_vector<float>();  // host operands: pinned staging
    ASSERT_EQ(host.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float d = x[i] - y[i];
      ASSERT_EQ(host[i], d * d) << "n=" << n << " i=" << i;
    }
    const std::vector<double> xd = random_values<double>(n, 3), yd = random_values<double>(n, 4);
    Array dz = k(rt_->to_device(xd), rt_->to_device(yd));  // device operands, T = float64
    ASSERT_EQ(dz.view().dtype, DType::Float64);
    const std::vector<double> back = rt_->to_host(dz.view()).to_vector<double>();
    for (std::size_t i = 0; i < xd.size(); ++i) {
      ASSERT_EQ(back[i], (xd[i] - yd[i]) * (xd[i] - yd[i])) << "n=" << n << " i=" << i;
    }
  }
}

TEST_F(ElementwiseGpu, TwoPlaceholdersAndAPlainNumber) {
  Ufunc k = rt_->elementwise("T x, U k, T s", "T z", "z = x * (T)k + s", "axpk");
  const std::vector<float> x = {1.5f, -2.0f, 3.25f};
  const std::vector<int32_t> kk = {2, 3, -4};
  const std::vector<float> z = k(x, kk, 0.5).to_vector<float>();
  ASSERT_EQ(z.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(z[i], x[i] * static_cast<float>(kk[i]) + 0.5f);
}

TEST_F(ElementwiseGpu, RawParametersAreIndexedWithIAndIndSize) {
  Ufunc rev = rt_->elementwise("raw T w, T x", "T z", "z = w[_ind.size() - 1 - i] + x + w.size()", "rev_add");
  for (int64_t n : kSizes) {
    if (n == 0) continue;  // a raw operand needs elements to index
    const std::vector<double> w = random_values<double>(n, 5), x = random_values<double>(n, 6);
    Array dw = rt_->to_device(w);
    const std::vector<double> z = rev(dw, x).to_vector<double>();  // raw on the device, x on the host
    const std::vector<double> z_host_raw = rev(w, x).to_vector<double>();  // raw on the host
    for (int64_t i = 0; i < n; ++i) {
      const double want = w[static_cast<std::size_t>(n - 1 - i)] + x[static_cast<std::size_t>(i)] + static_cast<double>(n);
      ASSERT_EQ(z[static_cast<std::size_t>(i)], want) << "n=" << n << " i=" << i;
      ASSERT_EQ(z_host_raw[static_cast<std::size_t>(i)], want) << "n=" << n << " i=" << i;
    }
  }
}

TEST_F(ElementwiseGpu, PreambleLoopPrepAndBroadcasting) {
  ElementwiseOptions options;
  options.preamble = "__device__ float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }";
  options.loop_prep = "const float lo = -1.0f;";
  Ufunc k = rt_->elementwise("float32 x, float32 b", "float32 z", "z = clampf(x + b, lo, 1.0f)", "clamp_add", options);
  const std::vector<float> x = random_values<float>(12, 7, -2, 2);
  const std::vector<float> b = {0.5f, -0.5f, 0.0f, 1.0f};
  ArrayView xv = view(x.data(), {3, 4});
  const std::vector<float> z = k(xv, b).to_vector<float>();
  ASSERT_EQ(z.size(), 12u);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) {
      const float v = x[r * 4 + c] + b[c];
      EXPECT_EQ(z[r * 4 + c], v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v)) << r << "," << c;
    }
  }
}

TEST_F(ElementwiseGpu, TwoOutputs) {
  Ufunc k = rt_->elementwise("float64 x", "float64 h, int32 r", "h = x / 2; r = (int)x % 7;", "half_mod");
  for (int64_t n : kSizes) {
    const std::vector<double> x = random_values<double>(n, 8, -100, 100);
    std::vector<Array> outs = k.outputs(x);
    ASSERT_EQ(outs.size(), 2u);
    const std::vector<double> h = outs[0].to_vector<double>();
    const std::vector<int32_t> r = outs[1].to_vector<int32_t>();
    ASSERT_EQ(h.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(h[i], x[i] / 2) << i;
      ASSERT_EQ(r[i], static_cast<int32_t>(x[i]) % 7) << i;
    }
  }
}

TEST_F(ElementwiseGpu, ANonContiguousDeviceInputAndOutOnAStream) {
  Ufunc k = rt_->elementwise("T x, T y", "T z", "z = x * y", "mul");
  const int64_t n = 1025;
  const std::vector<float> x2 = random_values<float>(2 * n, 9), y = random_values<float>(n, 10);
  Array dx2 = rt_->to_device(x2);
  ArrayView every_other = dx2.view();
  every_other.shape = {n};
  every_other.strides = {2 * static_cast<int64_t>(sizeof(float))};
  Array dy = rt_->to_device(y);
  Array dz = rt_->device_empty(DType::Float32, {n});
  Stream stream = rt_->stream();
  k.async(stream, every_other, dy, out(dz));
  stream.synchronize();
  const std::vector<float> z = rt_->to_host(dz.view()).to_vector<float>();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[static_cast<std::size_t>(i)], x2[static_cast<std::size_t>(2 * i)] * y[static_cast<std::size_t>(i)]) << i;
  }
}

TEST_F(ElementwiseGpu, AnOperationErrorIsLocatedAtTheFirstCall) {
  Ufunc k = rt_->elementwise("float32 x", "float32 z", "z = x + nope;", "bad");
  const std::vector<float> x = {1.0f};
  try {
    k(x);
    FAIL() << "NVRTC accepted an undefined identifier";
  } catch (const CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("<elementwise bad>:1:9: error: identifier \"nope\" is undefined"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ElementwiseGpu, ARawParameterIsReadOnlyAsEveryInput) {
  // The caller's raw array may be read-only memory: writing it does not compile.
  Ufunc k = rt_->elementwise("raw float32 w, float32 x", "float32 z", "w[i] = x; z = x;", "writes_raw");
  const std::vector<float> w = {1.0f, 2.0f};
  const std::vector<float> x = {3.0f, 4.0f};
  try {
    k(w, x);
    FAIL() << "a write to a raw parameter compiled";
  } catch (const CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("<elementwise writes_raw>:1:"), std::string::npos) << e.what();
  }
  EXPECT_EQ(w, (std::vector<float>{1.0f, 2.0f}));
}

}  // namespace
}  // namespace ufjit::cudacpp
