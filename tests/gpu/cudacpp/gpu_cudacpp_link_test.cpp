// On the GPU: ufuncs that call CUDA C++ helpers (declare_device +
// link=[...]), run by ufjit's runtime: host and device operands, a broadcast
// scalar, launch-boundary sizes, a stream, and the disk cache keyed by the
// helper's content. Expected values are computed here in double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "interop/cudacpp/Nvrtc.h"
#include "runtime/cuda/CudaDriver.h"
#include "ufjit/ufjit.h"

namespace ufjit::cudacpp {
namespace {

namespace fs = std::filesystem;

const char *kSource =
    "from numba import cuda, vectorize\n"
    "cube_plus = cuda.declare_device('cube_plus', 'float32(float32, float32)')\n"
    "halve = cuda.declare_device('halve', 'float64(float64)', abi='c')\n"
    "@vectorize(['float32(float32, float32)'], target='cuda', link=['helpers.cu'])\n"
    "def f(x, y):\n"
    "    return cube_plus(x, y) * 2\n"
    "@vectorize(['float64(float64, int32)'], target='cuda', link=['helpers.cu'])\n"
    "def g(x, k):\n"
    "    return halve(x) + k\n";

const char *kHelperV1 =
    "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) { *ret = x * x * x + y; return 0; }\n"
    "extern \"C\" __device__ double halve(double x) { return 0.5 * x; }\n";
const char *kHelperV2 =
    "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) { *ret = x * x + y; return 0; }\n"
    "extern \"C\" __device__ double halve(double x) { return 0.5 * x; }\n";

class LinkedHelpersGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    if (!nvrtc_available(&why)) GTEST_SKIP() << "NVRTC cannot be loaded: " << why;
    dir_ = fs::temp_directory_path() / ("ufjit-cudacpp-gpu-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "cache");
    std::ofstream(dir_ / "k.ufn") << kSource;
    std::ofstream(dir_ / "helpers.cu") << kHelperV1;
    ::setenv("UFJIT_CACHE_DIR", (dir_ / "cache").c_str(), 1);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  static Runtime cuda_runtime() {
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    return Runtime(options);
  }
  fs::path dir_;
};

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (float &x : v) x = dist(gen);
  return v;
}

TEST_F(LinkedHelpersGpu, NumbaAbiHelperRunsInsideTheUfuncAtLaunchBoundaries) {
  Runtime rt = cuda_runtime();
  Ufunc f = rt.load_file((dir_ / "k.ufn").string())["f"];
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1025}, std::size_t{1000001}}) {
    std::vector<float> x = random_floats(n, 1);
    std::vector<float> y = random_floats(n, 2);
    std::vector<float> out(n, -1.0f);
    f(view(x), view(y), ufjit::out(out));
    for (std::size_t i = 0; i < n; ++i) {
      const double expected = 2.0 * (double(x[i]) * x[i] * x[i] + y[i]);
      ASSERT_NEAR(out[i], expected, 1e-5 * std::abs(expected) + 1e-5) << "n=" << n << " i=" << i;
    }
  }
}

TEST_F(LinkedHelpersGpu, CAbiHelperWithDeviceOperandsABroadcastScalarAndAStream) {
  Runtime rt = cuda_runtime();
  Ufunc g = rt.load_file((dir_ / "k.ufn").string())["g"];
  const std::size_t n = 70001;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(double(i)) * 100.0;
  Array dx = rt.to_device(x);
  Array dy = g(dx, typed<int32_t>(7));
  std::vector<double> back = rt.to_host(dy).to_vector<double>();
  ASSERT_EQ(back.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(back[i], 0.5 * x[i] + 7.0) << "i=" << i;  // exact in float64
  }
  Stream s = rt.stream();
  g.async(s, dx, typed<int32_t>(-3), ufjit::out(dy));
  s.synchronize();
  back = rt.to_host(dy).to_vector<double>();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(back[i], 0.5 * x[i] - 3.0) << "i=" << i;
  }
}

TEST_F(LinkedHelpersGpu, ChangedHelperIsRecompiledNotServedFromTheDiskCache) {
  std::vector<float> x = {2.0f, 3.0f};
  std::vector<float> y = {1.0f, 1.0f};
  {
    Runtime rt = cuda_runtime();
    Array r = rt.load_file((dir_ / "k.ufn").string())["f"](view(x), view(y));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{18.0f, 56.0f}));  // 2 * (x^3 + y)
  }
  std::ofstream(dir_ / "helpers.cu") << kHelperV2;
  {
    Runtime rt = cuda_runtime();
    Array r = rt.load_file((dir_ / "k.ufn").string())["f"](view(x), view(y));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{10.0f, 20.0f}));  // 2 * (x^2 + y)
  }
}

// The source a C++ program hands to Runtime::vectorize: no link=[...], the
// files come from VectorizeOptions.
const char *kUnlinked =
    "from numba import cuda\n"
    "cube_plus = cuda.declare_device('cube_plus', 'float32(float32, float32)')\n"
    "def f(x, y):\n"
    "    return cube_plus(x, y) * 2\n";

std::size_t files_in(const fs::path &dir) {
  std::size_t n = 0;
  for (const fs::directory_entry &e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

TEST_F(LinkedHelpersGpu, VectorizeLinksTheFilesOfItsOptions) {
  Runtime rt = cuda_runtime();
  Ufunc f = rt.vectorize(kUnlinked, {"float32(float32, float32)"}, {.link = {"helpers.cu"}, .base_dir = dir_.string()});
  const std::size_t n = 1025;
  std::vector<float> x = random_floats(n, 3);
  std::vector<float> y = random_floats(n, 4);
  std::vector<float> out = f(view(x), view(y)).to_vector<float>();
  ASSERT_EQ(out.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const double expected = 2.0 * (double(x[i]) * x[i] * x[i] + y[i]);
    ASSERT_NEAR(out[i], expected, 1e-5 * std::abs(expected) + 1e-5) << "i=" << i;
  }
}

TEST_F(LinkedHelpersGpu, SignatureLessUfuncLinksTheHelperForEachCallsTypes) {
  Runtime rt = cuda_runtime();
  Ufunc f = rt.load(
      "cube_plus = declare_device('cube_plus', 'float32(float32, float32)')\n"
      "@vectorize(link=['helpers.cu'])\n"
      "def f(x, y):\n"
      "    return cube_plus(x, y) * 2\n",
      {.base_dir = dir_.string()})["f"];
  std::vector<float> x = {2.0f, 3.0f};
  std::vector<float> y = {1.0f, 1.0f};
  EXPECT_EQ(f(view(x), view(y)).to_vector<float>(), (std::vector<float>{18.0f, 56.0f}));  // 2 * (x^3 + y)
  // float64 operands: a second signature, converted to the helper's float32 at the call.
  std::vector<double> xd = {2.0, 3.0};
  std::vector<double> yd = {1.0, 1.0};
  EXPECT_EQ(f(view(xd), view(yd)).to_vector<float>(), (std::vector<float>{18.0f, 56.0f}));
  EXPECT_EQ(f.signatures().size(), 2u);
}

TEST_F(LinkedHelpersGpu, ChangedOptionHelperIsRecompiledNotServedFromTheDiskCache) {
  std::vector<float> x = {2.0f, 3.0f};
  std::vector<float> y = {1.0f, 1.0f};
  const VectorizeOptions options{.link = {(dir_ / "helpers.cu").string()}};
  {
    Runtime rt = cuda_runtime();
    Array r = rt.vectorize(kUnlinked, {"float32(float32, float32)"}, options)(view(x), view(y));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{18.0f, 56.0f}));  // 2 * (x^3 + y)
  }
  std::ofstream(dir_ / "helpers.cu") << kHelperV2;
  {
    Runtime rt = cuda_runtime();
    Array r = rt.vectorize(kUnlinked, {"float32(float32, float32)"}, options)(view(x), view(y));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{10.0f, 20.0f}));  // 2 * (x^2 + y)
  }
}

TEST_F(LinkedHelpersGpu, NvrtcOptionsReachTheHelperAndItsCacheKey) {
  std::ofstream(dir_ / "scaled.cu")
      << "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) { *ret = SCALE * x + y; return 0; }\n";
  std::vector<float> x = {2.0f, 3.0f};
  std::vector<float> y = {1.0f, 1.0f};
  for (const auto &[scale, expected] : {std::pair{"3.0f", std::vector<float>{14.0f, 20.0f}},
                                        std::pair{"5.0f", std::vector<float>{22.0f, 32.0f}}}) {
    Runtime rt = cuda_runtime();  // a fresh runtime: only the disk cache could serve the other scale
    const VectorizeOptions options{.link = {(dir_ / "scaled.cu").string()},
                                   .nvrtc_options = {std::string("-DSCALE=") + scale}};
    Array r = rt.vectorize(kUnlinked, {"float32(float32, float32)"}, options)(view(x), view(y));
    EXPECT_EQ(r.to_vector<float>(), expected) << "SCALE=" << scale;  // 2 * (SCALE * x + y)
  }
}

TEST_F(LinkedHelpersGpu, HelperErrorAtTheFirstCallIsLocatedAndCachesNothing) {
  std::ofstream(dir_ / "helpers.cu")
      << "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) {\n  *ret = x + q;\n  return 0;\n}\n";
  std::vector<float> x = {2.0f};
  {
    Runtime rt = cuda_runtime();
    Ufunc f = rt.load_file((dir_ / "k.ufn").string())["f"];
    try {
      f(view(x), view(x));
      FAIL() << "a helper with an error ran";
    } catch (const CompileError &e) {
      EXPECT_NE(std::string(e.what()).find("helpers.cu:2:14: error: identifier \"q\" is undefined"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(files_in(dir_ / "cache"), 0u) << "a failed compile left a cache entry";
  std::ofstream(dir_ / "helpers.cu") << kHelperV1;
  {
    Runtime rt = cuda_runtime();
    Array r = rt.load_file((dir_ / "k.ufn").string())["f"](view(x), view(x));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{20.0f}));  // 2 * (2^3 + 2)
  }
  EXPECT_GT(files_in(dir_ / "cache"), 0u) << "the disk cache is not in use: the check above proves nothing";
}

}  // namespace
}  // namespace ufjit::cudacpp
