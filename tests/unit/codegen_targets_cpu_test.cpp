// CPU entries through CpuCompiler on real arrays: contiguous and strided
// layouts (stride 0, negative strides, ranges split mid-row), scalar
// parameters, in-place aliasing, complex, float16 and bool storage,
// vectorization of the contiguous loop, and concurrent compiles.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <thread>

#include "codegen/Codegen.h"
#include "codegen/HostJit.h"
#include "tests/unit/codegen_targets_ir.h"

namespace ufjit::codegen {
namespace {

KernelVariant variant(Layout layout, uint32_t mask = 0, bool index32 = false) {
  KernelVariant v;
  v.layout = layout;
  v.scalar_mask = mask;
  v.index32 = index32;
  return v;
}

/// One compiled entry of `module` (the module must outlive the compiler's use).
CpuEntry compile_one(CpuCompiler &compiler, const ir::Module &module, const KernelVariant &v) {
  EntryRequest request{&module, module.name + "__test", {v}};
  std::vector<CpuEntry> entries = compiler.compile({request});
  EXPECT_EQ(entries.size(), 1u);
  return entries.at(0);
}

Dims dims(std::initializer_list<int64_t> values) {
  Dims d{};
  for (int64_t &v : d.v) {
    v = 1;
  }
  int k = 0;
  for (int64_t v : values) {
    d.v[k++] = v;
  }
  return d;
}

double gaussian(double x, double mean, double sigma) {
  double z = (x - mean) / sigma;
  return std::exp(-0.5 * z * z) / (sigma * std::sqrt(2.0 * std::numbers::pi));
}

class CpuEntries : public ::testing::Test {
 protected:
  CpuCompiler compiler;
};

TEST_F(CpuEntries, HostDescriptionNamesTheCpu) {
  std::string d = compiler.host_description();
  EXPECT_EQ(d.rfind("x86_64 (", 0), 0u) << d;
}

TEST_F(CpuEntries, AddInt64ContiguousWrapsAndHonoursSplitRanges) {
  ir::Module m = test_ir::add_module(DType::Int64);
  CpuEntry entry = compile_one(compiler, m, variant(Layout::Contiguous));
  const int64_t n = 1003;
  std::vector<int64_t> x(n), y(n), out(n, -7);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = i * 1000003 - 500;
    y[i] = i % 2 == 0 ? INT64_MAX - i : -3 * i;
  }
  int64_t *xp = x.data(), *yp = y.data(), *op = out.data();
  int64_t count = n;
  void *params[] = {&count, &xp, &yp, &op};
  entry(0, 517, params);
  entry(517, n, params);
  for (int64_t i = 0; i < n; ++i) {
    int64_t expected = static_cast<int64_t>(static_cast<uint64_t>(x[i]) + static_cast<uint64_t>(y[i]));
    ASSERT_EQ(out[i], expected) << "i=" << i << " x=" << x[i] << " y=" << y[i];
  }
}

TEST_F(CpuEntries, GaussianFloat32MatchesADoubleReference) {
  ir::Module m = test_ir::gaussian_module(DType::Float32);
  CpuEntry entry = compile_one(compiler, m, variant(Layout::Contiguous));
  const int64_t n = 257;
  std::vector<float> x(n), mean(n), sigma(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = -4.0f + 0.03125f * static_cast<float>(i);
    mean[i] = 0.25f;
    sigma[i] = 0.5f + 0.01f * static_cast<float>(i % 7);
  }
  float *a = x.data(), *b = mean.data(), *c = sigma.data(), *o = out.data();
  int64_t count = n;
  void *params[] = {&count, &a, &b, &c, &o};
  entry(0, n, params);
  for (int64_t i = 0; i < n; ++i) {
    double expected = gaussian(x[i], mean[i], sigma[i]);
    ASSERT_NEAR(out[i], expected, 1e-6 + 2e-6 * std::abs(expected)) << "x=" << x[i] << " sigma=" << sigma[i];
  }
}

TEST_F(CpuEntries, ScalarInputsArePassedByValue) {
  ir::Module m = test_ir::gaussian_module(DType::Float64);
  // mean and sigma are scalars: mask bits 1 and 2.
  CpuEntry entry = compile_one(compiler, m, variant(Layout::Contiguous, 0b110));
  const int64_t n = 33;
  std::vector<double> x(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = 0.1 * static_cast<double>(i) - 1.0;
  }
  double mean = 0.5;
  double sigma = 1.5;
  double *xp = x.data(), *op = out.data();
  int64_t count = n;
  void *params[] = {&count, &xp, &mean, &sigma, &op};
  entry(0, n, params);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_NEAR(out[i], gaussian(x[i], mean, sigma), 1e-15) << "x=" << x[i];
  }
}

TEST_F(CpuEntries, StridedHandlesBroadcastNegativeStridesAndMidRowSplits) {
  ir::Module m = test_ir::add_module(DType::Float64);
  CpuEntry entry = compile_one(compiler, m, variant(Layout::Strided));
  // out[i][j] = row[j] + rev[2 - i][4 - j], shape (3, 5).
  std::vector<double> row = {1, 2, 3, 4, 5};
  std::vector<double> grid(15);
  for (int k = 0; k < 15; ++k) {
    grid[k] = 100.0 * k;
  }
  std::vector<double> out(15, -1.0);
  int64_t n = 15;
  int64_t ndim = 2;
  Dims shape = dims({3, 5});
  double *row_p = row.data();
  Dims row_strides = dims({0, 8});  // broadcast over rows
  double *rev_p = grid.data() + 14;
  Dims rev_strides = dims({-40, -8});
  double *out_p = out.data();
  Dims out_strides = dims({40, 8});
  void *params[] = {&n, &ndim, &shape, &row_p, &row_strides, &rev_p, &rev_strides, &out_p, &out_strides};
  entry(0, 7, params);  // ends in the middle of row 1
  entry(7, 15, params);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) {
      double expected = row[j] + grid[(2 - i) * 5 + (4 - j)];
      EXPECT_EQ(out[i * 5 + j], expected) << "i=" << i << " j=" << j;
    }
  }
}

TEST_F(CpuEntries, StridedWithAScalarAndThreeDimensions) {
  ir::Module m = test_ir::add_module(DType::Int32);
  CpuEntry entry = compile_one(compiler, m, variant(Layout::Strided, 0b10));
  // x is a transposed (2, 3, 4) view of a (4, 3, 2) buffer; y is a scalar.
  std::vector<int32_t> buffer(24);
  for (int k = 0; k < 24; ++k) {
    buffer[k] = k * k;
  }
  std::vector<int32_t> out(24, 0);
  int64_t n = 24;
  int64_t ndim = 3;
  Dims shape = dims({2, 3, 4});
  int32_t *x = buffer.data();
  Dims x_strides = dims({4, 8, 24});
  int32_t y = -5;
  int32_t *o = out.data();
  Dims o_strides = dims({48, 16, 4});
  void *params[] = {&n, &ndim, &shape, &x, &x_strides, &y, &o, &o_strides};
  entry(0, 5, params);
  entry(5, 24, params);
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 3; ++b) {
      for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(out[a * 12 + b * 4 + c], buffer[c * 6 + b * 2 + a] - 5) << a << "," << b << "," << c;
      }
    }
  }
}

TEST_F(CpuEntries, InPlaceOutputAliasingAnInputIsCorrect) {
  ir::Module m = test_ir::gaussian_module(DType::Float32);
  CpuEntry entry = compile_one(compiler, m, variant(Layout::Contiguous));
  const int64_t n = 1000;
  std::vector<float> x(n), original(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = original[i] = 0.01f * static_cast<float>(i) - 5.0f;
  }
  std::vector<float> mean(n, 0.0f), sigma(n, 1.0f);
  float *xp = x.data(), *mp = mean.data(), *sp = sigma.data();
  int64_t count = n;
  void *params[] = {&count, &xp, &mp, &sp, &xp};  // out = x
  entry(0, n, params);
  for (int64_t i = 0; i < n; ++i) {
    double expected = gaussian(original[i], 0.0, 1.0);
    ASSERT_NEAR(x[i], expected, 1e-6 + 2e-6 * expected) << "x=" << original[i];
  }
}

TEST_F(CpuEntries, Complex64ArraysAndAComplexScalar) {
  ir::Module m = test_ir::complex_module(DType::Complex64);
  CpuEntry arrays = compile_one(compiler, m, variant(Layout::Contiguous));
  CpuEntry scalar_w = compile_one(compiler, m, variant(Layout::Contiguous, 0b10));
  const int64_t n = 9;
  std::vector<std::complex<float>> z(n), w(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    z[i] = {0.5f * static_cast<float>(i), 1.0f - static_cast<float>(i)};
    w[i] = {2.0f, 0.25f * static_cast<float>(i)};
  }
  auto *zp = z.data(), *wp = w.data(), *op = out.data();
  int64_t count = n;
  void *params[] = {&count, &zp, &wp, &op};
  arrays(0, n, params);
  for (int64_t i = 0; i < n; ++i) {
    std::complex<double> zd(z[i]), wd(w[i]);
    std::complex<double> expected = zd * wd + zd;
    EXPECT_NEAR(out[i].real(), expected.real(), 1e-5) << i;
    EXPECT_NEAR(out[i].imag(), expected.imag(), 1e-5) << i;
  }
  float w_re = -1.0f;
  float w_im = 3.0f;
  void *scalar_params[] = {&count, &zp, &w_re, &w_im, &op};
  scalar_w(0, n, scalar_params);
  for (int64_t i = 0; i < n; ++i) {
    std::complex<double> zd(z[i]);
    std::complex<double> expected = zd * std::complex<double>(-1.0, 3.0) + zd;
    EXPECT_NEAR(out[i].real(), expected.real(), 1e-5) << i;
    EXPECT_NEAR(out[i].imag(), expected.imag(), 1e-5) << i;
  }
}

TEST_F(CpuEntries, Float16IsStoredAsHalfAndRoundedPerOperation) {
  ir::Module m = test_ir::half_module();
  CpuEntry entry = compile_one(compiler, m, variant(Layout::Contiguous));
  const int64_t n = 40;
  std::vector<_Float16> a(n), b(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<_Float16>(0.37f * static_cast<float>(i) - 3.0f);
    b[i] = static_cast<_Float16>(1.0f + 0.11f * static_cast<float>(i));
  }
  auto *ap = a.data(), *bp = b.data(), *op = out.data();
  int64_t count = n;
  void *params[] = {&count, &ap, &bp, &op};
  entry(0, n, params);
  for (int64_t i = 0; i < n; ++i) {
    // float32 products of halves are exact; round to half after each step.
    auto product = static_cast<_Float16>(static_cast<float>(a[i]) * static_cast<float>(b[i]));
    auto expected = static_cast<_Float16>(static_cast<float>(product) + static_cast<float>(a[i]));
    uint16_t actual_bits = 0;
    uint16_t expected_bits = 0;
    std::memcpy(&actual_bits, &out[i], 2);
    std::memcpy(&expected_bits, &expected, 2);
    EXPECT_EQ(actual_bits, expected_bits) << "a=" << static_cast<float>(a[i]) << " b=" << static_cast<float>(b[i]);
  }
}

TEST_F(CpuEntries, BoolResultsAreStoredAsBytes) {
  ir::Module m = test_ir::greater_module();
  CpuEntry entry = compile_one(compiler, m, variant(Layout::Contiguous));
  std::vector<double> x = {1.0, 2.0, NAN, -1.0, 5.0};
  std::vector<double> y = {0.0, 2.0, 1.0, -2.0, 6.0};
  std::vector<uint8_t> out(5, 0xAA);
  double *xp = x.data(), *yp = y.data();
  uint8_t *op = out.data();
  int64_t count = 5;
  void *params[] = {&count, &xp, &yp, &op};
  entry(0, 5, params);
  std::vector<uint8_t> expected = {1, 0, 0, 1, 0};
  EXPECT_EQ(out, expected);
}

TEST_F(CpuEntries, ContiguousFloat32LoopIsVectorized) {
  ir::Module m = test_ir::add_module(DType::Float32);
  EntryRequest request{&m, "add__float32_float32", {variant(Layout::Contiguous)}};
  std::string ir_text = optimized_cpu_ir({request});
  EXPECT_TRUE(ir_text.find("x float>") != std::string::npos) << ir_text;
}

TEST_F(CpuEntries, FourThreadsCompileOnOneCompiler) {
  ir::Module m = test_ir::polar_module(DType::Float32);
  std::vector<CpuEntry> entries(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < entries.size(); ++t) {
    threads.emplace_back([&, t] {
      EntryRequest request{&m, "polar_distance__t" + std::to_string(t), {variant(Layout::Contiguous)}};
      try {
        entries[t] = compiler.compile({request}).at(0);
      } catch (const std::exception &) {
        entries[t] = nullptr;
      }
    });
  }
  for (std::thread &t : threads) {
    t.join();
  }
  float rho1 = 2.0f, theta1 = 0.5f, rho2 = 1.0f, theta2 = -1.25f;
  double dx = 2.0 * std::cos(0.5) - std::cos(-1.25);
  double dy = 2.0 * std::sin(0.5) - std::sin(-1.25);
  double expected = std::sqrt(dx * dx + dy * dy);
  for (CpuEntry entry : entries) {
    ASSERT_NE(entry, nullptr);
    float out = 0.0f;
    float *a = &rho1, *b = &theta1, *c = &rho2, *d = &theta2, *o = &out;
    int64_t count = 1;
    void *params[] = {&count, &a, &b, &c, &d, &o};
    entry(0, 1, params);
    EXPECT_NEAR(out, expected, 1e-5);
  }
}

TEST_F(CpuEntries, TheSameBaseNameCompilesTwiceInSeparateLibraries) {
  ir::Module m = test_ir::add_module(DType::Int64);
  CpuEntry first = compile_one(compiler, m, variant(Layout::Contiguous));
  CpuEntry second = compile_one(compiler, m, variant(Layout::Contiguous));
  EXPECT_NE(first, nullptr);
  EXPECT_NE(second, nullptr);
}

}  // namespace
}  // namespace ufjit::codegen
