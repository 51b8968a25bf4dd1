// Outputs written with streaming stores on the CPU target
// (runtime/CpuBackend.cpp, codegen/StreamingStores.h). With the threshold at
// one byte every contiguous call streams: its results equal those of a
// runtime that never streams, for outputs at every 4-byte offset from a
// cache line, sizes around the vector width and the thread pool's chunks,
// and in place. A streaming store to an address the entry did not expect
// faults, so a wrong split shows as a crash, not only as a wrong value.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numeric>

#include <ufjit/ufjit.h>

namespace {

using ufjit::ArrayView;
using ufjit::DType;

constexpr const char *kPolar =
    "import math\n"
    "def polar(r1, t1, r2, t2):\n"
    "    x = r1 * math.cos(t1) - r2 * math.cos(t2)\n"
    "    y = r1 * math.sin(t1) - r2 * math.sin(t2)\n"
    "    return math.sqrt(x * x + y * y)\n";
constexpr const char *kAdd = "def add(a, b):\n    return a + b\n";

struct Kernels {
  std::unique_ptr<ufjit::Runtime> rt;
  ufjit::Ufunc polar;
  ufjit::Ufunc add;
};

/// A CPU runtime (three threads) whose backend read `threshold`; one call
/// creates the backend while the variable is set.
Kernels kernels_with(const char *threshold) {
  setenv("UFJIT_CPU_STREAM_BYTES", threshold, 1);
  Kernels k;
  k.rt = std::make_unique<ufjit::Runtime>(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu, .cpu_threads = 3});
  k.polar = k.rt->vectorize(kPolar, {"float32(float32, float32, float32, float32)"});
  k.add = k.rt->vectorize(kAdd, {"int64(int64, int64)"});
  std::vector<int64_t> one = {1};
  k.add(ufjit::view(one), ufjit::view(one));
  unsetenv("UFJIT_CPU_STREAM_BYTES");
  return k;
}

class CpuStreamingStores : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    streaming_ = new Kernels(kernels_with("1"));
    plain_ = new Kernels(kernels_with("0"));
  }
  static void TearDownTestSuite() {
    delete streaming_;
    delete plain_;
  }
  static Kernels *streaming_;
  static Kernels *plain_;
};
Kernels *CpuStreamingStores::streaming_ = nullptr;
Kernels *CpuStreamingStores::plain_ = nullptr;

std::vector<float> ramp(std::size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = shift + scale * static_cast<float>(i % 1009);
  }
  return v;
}

TEST_F(CpuStreamingStores, OutputsAtEveryOffsetFromACacheLineMatchOrdinaryStores) {
  for (std::size_t n : {1u, 3u, 15u, 16u, 17u, 100u, 1000u, 40000u, 200003u}) {
    const std::vector<float> r1 = ramp(n, 0.01f, 0.5f), t1 = ramp(n, 0.003f, -1.0f);
    const std::vector<float> r2 = ramp(n, -0.002f, 2.0f), t2 = ramp(n, 0.007f, 0.25f);
    std::vector<float> expected(n);
    plain_->polar(ufjit::view(r1), ufjit::view(t1), ufjit::view(r2), ufjit::view(t2), ufjit::out(ufjit::view(expected)));
    // A 64-byte aligned buffer, the output placed 0..15 floats past its start.
    std::vector<float> storage(n + 32, -1.0f);
    float *line = reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(storage.data()) + 63) & ~uintptr_t{63});
    for (std::size_t offset = 0; offset < 16; ++offset) {
      std::fill(storage.begin(), storage.end(), -1.0f);
      ArrayView out{line + offset, DType::Float32, {static_cast<int64_t>(n)}, {4}};
      streaming_->polar(ufjit::view(r1), ufjit::view(t1), ufjit::view(r2), ufjit::view(t2), ufjit::out(out));
      for (std::size_t i = 0; i < n; ++i) {
        // Where a range is split decides which elements take the vector
        // math functions and which the scalar ones: equal within their ulps.
        ASSERT_NEAR(line[offset + i], expected[i], 4 * FLT_EPSILON * std::fabs(expected[i]))
            << "n=" << n << " offset=" << offset << " i=" << i;
      }
      EXPECT_EQ(line[offset + n], -1.0f) << "wrote past the output: n=" << n << " offset=" << offset;
      if (offset > 0) {
        EXPECT_EQ(line[offset - 1], -1.0f) << "wrote before the output: n=" << n << " offset=" << offset;
      }
    }
  }
}

TEST_F(CpuStreamingStores, AnInPlaceCallReadsEachElementBeforeItsStreamedResult) {
  const std::size_t n = 100003;
  std::vector<int64_t> a(n), b(n);
  std::iota(a.begin(), a.end(), int64_t{-50000});
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<int64_t>(i * 7);
  }
  for (std::size_t offset = 0; offset < 8; ++offset) {
    std::vector<int64_t> x(a.begin() + static_cast<std::ptrdiff_t>(offset), a.end());
    const std::vector<int64_t> y(b.begin() + static_cast<std::ptrdiff_t>(offset), b.end());
    std::vector<int64_t> expected(x.size());
    plain_->add(ufjit::view(x), ufjit::view(y), ufjit::out(ufjit::view(expected)));
    streaming_->add(ufjit::view(x), ufjit::view(y), ufjit::out(ufjit::view(x)));
    EXPECT_EQ(x, expected) << "offset " << offset;
  }
}

TEST_F(CpuStreamingStores, ANewOutputOfAStreamedCallHoldsEveryResult) {
  const std::size_t n = 300001;
  std::vector<int64_t> x(n), y(n);
  std::iota(x.begin(), x.end(), int64_t{1});
  std::iota(y.begin(), y.end(), int64_t{-7});
  const ufjit::Array streamed = streaming_->add(ufjit::view(x), ufjit::view(y));
  const ufjit::Array plain = plain_->add(ufjit::view(x), ufjit::view(y));
  EXPECT_EQ(streamed.to_vector<int64_t>(), plain.to_vector<int64_t>());
}

TEST(CpuStreamingThreshold, AThresholdThatIsNotANumberOfBytesIsAnErrorNamingTheVariable) {
  for (const char *bad : {"12x", "-1", "lots", "1e9", "99999999999999999999"}) {
    try {
      kernels_with(bad);
      ADD_FAILURE() << "UFJIT_CPU_STREAM_BYTES=" << bad << " was accepted";
    } catch (const ufjit::InputError &e) {
      EXPECT_NE(std::string(e.what()).find("UFJIT_CPU_STREAM_BYTES='" + std::string(bad) + "'"), std::string::npos)
          << e.what();
    }
    unsetenv("UFJIT_CPU_STREAM_BYTES");
  }
}

}  // namespace
