// Vector math on the CPU target (codegen/VectorMath.h): which variants are
// registered for which instruction sets, that the seed loops call them (and
// SLEEF's fused sincos), and that the results stay within SLEEF's 1-ulp bound
// against a long double reference, with C's special values (NaN, inf, signed
// zero, subnormals) through the vectorized loop body.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "codegen/HostJit.h"
#include "codegen/VectorMath.h"
#include "tests/unit/codegen_targets_ir.h"
#include "ufjit/errors.h"

#include <llvm/Analysis/TargetLibraryInfo.h>

namespace ufjit::codegen {
namespace {

std::string vectorized(const std::vector<std::string> &features, VectorMathLibrary library, const char *scalar,
                       unsigned lanes) {
  llvm::TargetLibraryInfoImpl tli{llvm::Triple("x86_64-pc-linux-gnu")};
  add_vector_math(tli, library, features);
  return tli.getVectorizedFunction(scalar, llvm::ElementCount::getFixed(lanes), false).str();
}

const std::vector<std::string> kSse = {"+sse2", "+sse4.1"};
const std::vector<std::string> kAvx = {"+sse2", "+sse4.1", "+avx"};
const std::vector<std::string> kAvx2 = {"+sse2", "+sse4.1", "+avx", "+avx2", "+fma"};
const std::vector<std::string> kAvx512 = {"+sse2", "+sse4.1", "+avx", "+avx2", "+fma", "+avx512f"};

TEST(VectorMathTables, LibmvecVariantsFollowTheHostInstructionSets) {
  ASSERT_TRUE(load_vector_math(VectorMathLibrary::Libmvec)) << "glibc's libmvec.so.1 is part of libc6";
  EXPECT_EQ(vectorized(kSse, VectorMathLibrary::Libmvec, "sinf", 4), "_ZGVbN4v_sinf");
  EXPECT_EQ(vectorized(kSse, VectorMathLibrary::Libmvec, "sinf", 8), "");  // no AVX: no ymm variant
  EXPECT_EQ(vectorized(kAvx, VectorMathLibrary::Libmvec, "sinf", 8), "_ZGVcN8v_sinf");
  EXPECT_EQ(vectorized(kAvx2, VectorMathLibrary::Libmvec, "sinf", 8), "_ZGVdN8v_sinf");
  EXPECT_EQ(vectorized(kAvx2, VectorMathLibrary::Libmvec, "sinf", 16), "");
  EXPECT_EQ(vectorized(kAvx512, VectorMathLibrary::Libmvec, "sinf", 16), "_ZGVeN16v_sinf");
  EXPECT_EQ(vectorized(kAvx512, VectorMathLibrary::Libmvec, "llvm.exp.f64", 8), "_ZGVeN8v_exp");
  EXPECT_EQ(vectorized(kAvx2, VectorMathLibrary::Libmvec, "pow", 4), "_ZGVdN4vv_pow");
}

TEST(VectorMathTables, SleefVariantsAreTheOneUlpFunctionsTheHostCanRun) {
  if (!load_vector_math(VectorMathLibrary::Sleef)) {
    GTEST_SKIP() << "libsleef.so.3 not installed (tools/setup.sh installs libsleef3)";
  }
  EXPECT_EQ(vectorized(kSse, VectorMathLibrary::Sleef, "sinf", 4), "Sleef_sinf4_u10sse4");
  EXPECT_EQ(vectorized({"+sse2"}, VectorMathLibrary::Sleef, "sin", 2), "Sleef_sind2_u10sse2");
  EXPECT_EQ(vectorized(kSse, VectorMathLibrary::Sleef, "sinf", 8), "");
  EXPECT_EQ(vectorized(kAvx, VectorMathLibrary::Sleef, "expf", 8), "Sleef_expf8_u10avx");
  EXPECT_EQ(vectorized(kAvx2, VectorMathLibrary::Sleef, "cosf", 4), "Sleef_cosf4_u10avx2128");
  EXPECT_EQ(vectorized(kAvx2, VectorMathLibrary::Sleef, "llvm.cos.f32", 8), "Sleef_cosf8_u10avx2");
  EXPECT_EQ(vectorized(kAvx512, VectorMathLibrary::Sleef, "exp", 8), "Sleef_expd8_u10avx512f");
  EXPECT_EQ(vectorized(kAvx512, VectorMathLibrary::Sleef, "erfcf", 16), "Sleef_erfcf16_u15avx512f");
  EXPECT_EQ(vectorized(kAvx512, VectorMathLibrary::Sleef, "hypotf", 16), "Sleef_hypotf16_u05avx512f");
  // asinh/acosh overflow early in SLEEF; they stay scalar.
  EXPECT_EQ(vectorized(kAvx512, VectorMathLibrary::Sleef, "asinhf", 16), "");
  EXPECT_EQ(vectorized(kAvx512, VectorMathLibrary::Sleef, "acosh", 8), "");
}

bool sleef_in_use() {
  CpuCompiler compiler;
  return compiler.host_description().find("vector math sleef") != std::string::npos;
}

KernelVariant contiguous() {
  KernelVariant v;
  v.layout = Layout::Contiguous;
  return v;
}

TEST(CpuVectorMath, SincosSeedLoopCallsSleefSincosOnce) {
  if (!sleef_in_use()) {
    GTEST_SKIP() << "SLEEF not in use on this host";
  }
  ir::Module m = test_ir::sincos_module(DType::Float32);
  std::string ir_text = optimized_cpu_ir({EntryRequest{&m, "sincos__float32", {contiguous()}}});
  EXPECT_NE(ir_text.find("call void @Sleef_sincosf"), std::string::npos) << ir_text;
  EXPECT_EQ(ir_text.find("call <"), std::string::npos) << "unfused vector sin or cos left:\n" << ir_text;
}

/// Sets UFJIT_CPU_VECTOR_MATH for one scope.
class VectorMathEnv {
 public:
  explicit VectorMathEnv(const char *value) { setenv("UFJIT_CPU_VECTOR_MATH", value, 1); }
  ~VectorMathEnv() { unsetenv("UFJIT_CPU_VECTOR_MATH"); }
};

TEST(CpuVectorMath, NoneKeepsTheScalarCLibrary) {
  VectorMathEnv env("none");
  CpuCompiler compiler;
  EXPECT_NE(compiler.host_description().find("vector math none/none"), std::string::npos)
      << compiler.host_description();
  ir::Module m = test_ir::sincos_module(DType::Float32);
  std::string ir_text = optimized_cpu_ir({EntryRequest{&m, "sincos__float32", {contiguous()}}});
  EXPECT_EQ(ir_text.find("Sleef_"), std::string::npos) << ir_text;
  EXPECT_EQ(ir_text.find("_ZGV"), std::string::npos) << ir_text;
}

TEST(CpuVectorMath, UnknownLibraryNameIsAnError) {
  VectorMathEnv env("sleeef");
  try {
    CpuCompiler compiler;
    FAIL() << "no error for UFJIT_CPU_VECTOR_MATH=sleeef";
  } catch (const InputError &error) {
    EXPECT_NE(std::string(error.what()).find("UFJIT_CPU_VECTOR_MATH='sleeef'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("one of auto, none, sleef, libmvec"), std::string::npos)
        << error.what();
  }
}

/// Error of `got` in units in the last place of T at the exact value `ref`.
template <typename T>
double ulp_error(T got, long double ref) {
  if (std::isnan(ref)) {
    return std::isnan(got) ? 0.0 : INFINITY;
  }
  T rounded = static_cast<T>(ref);
  if (std::isinf(rounded) || std::isnan(got) || std::isinf(got)) {
    return got == rounded ? 0.0 : INFINITY;
  }
  int exponent = 0;
  std::frexp(ref, &exponent);
  exponent = std::max(exponent, std::numeric_limits<T>::min_exponent);
  long double ulp = std::ldexp(1.0L, exponent - std::numeric_limits<T>::digits);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

struct UnaryCase {
  ir::IntrinsicOp op;
  long double (*reference)(long double);
  double lo, hi;  // the random inputs are uniform in [lo, hi]
};

/// `op` over `x` (and `y` for a binary function) through a CPU kernel, `x`
/// repeated to at least 1,031 elements, so that most go through the
/// vectorized body.
template <typename T>
std::vector<T> apply_vectorized(ir::IntrinsicOp op, DType dtype, std::vector<T> x, std::vector<T> y = {}) {
  using test_ir::var;
  const bool binary = !y.empty();
  std::vector<ir::Expr> args = {var(dtype, "x")};
  std::vector<std::pair<std::string, DType>> params = {{"x", dtype}};
  if (binary) {
    args.push_back(var(dtype, "y"));
    params.push_back({"y", dtype});
  }
  ir::Module m = test_ir::single("f", params, dtype, ir::Intrinsic::make(op, test_ir::scalar(dtype), args));
  CpuCompiler compiler;
  CpuEntry entry = compiler.compile({EntryRequest{&m, "f__vm", {contiguous()}}}).at(0);
  const std::size_t given = x.size();
  while (x.size() < 1031) x.push_back(x[x.size() % given]);
  while (binary && y.size() < 1031) y.push_back(y[y.size() % given]);
  std::vector<T> out(x.size());
  T *xp = x.data(), *yp = y.data(), *op_ = out.data();
  int64_t n = static_cast<int64_t>(x.size());
  void *unary_params[] = {&n, &xp, &op_};
  void *binary_params[] = {&n, &xp, &yp, &op_};
  entry(0, n, binary ? binary_params : unary_params);
  out.resize(given);
  return out;
}

template <typename T>
void expect_within_one_ulp(const UnaryCase &c, DType dtype) {
  const T inf = std::numeric_limits<T>::infinity();
  // Special values first, so that they go through the vectorized body.
  std::vector<T> x = {std::numeric_limits<T>::quiet_NaN(),
                      inf,
                      -inf,
                      T(0),
                      T(-0.0),
                      std::numeric_limits<T>::denorm_min(),
                      -std::numeric_limits<T>::denorm_min() * 3,
                      std::numeric_limits<T>::min(),
                      std::numeric_limits<T>::max(),
                      T(1),
                      T(-1)};
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> uniform(c.lo, c.hi);
  while (x.size() < (1u << 16)) {
    x.push_back(static_cast<T>(uniform(rng)));
  }
  const std::vector<T> out = apply_vectorized<T>(c.op, dtype, x);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double ref = c.reference(static_cast<long double>(x[i]));
    const double err = ulp_error<T>(out[i], ref);
    ASSERT_LE(err, 1.0) << ir::intrinsic_name(c.op) << "(" << x[i] << ") = " << out[i] << ", exact " << ref;
    if (ref == 0 && !std::isnan(out[i])) {
      ASSERT_EQ(std::signbit(out[i]), std::signbit(ref)) << ir::intrinsic_name(c.op) << "(" << x[i] << ")";
    }
    worst = std::max(worst, err);
  }
  std::printf("%s %s: max %.3f ulp over %zu inputs\n", ir::intrinsic_name(c.op), std::string(dtype_name(dtype)).c_str(), worst, x.size());
}

long double ref_sin(long double x) { return std::sin(x); }
long double ref_cos(long double x) { return std::cos(x); }
long double ref_exp(long double x) { return std::exp(x); }
long double ref_log(long double x) { return std::log(x); }
long double ref_tanh(long double x) { return std::tanh(x); }

const UnaryCase kCases[] = {
    {ir::IntrinsicOp::Sin, ref_sin, -20.0, 20.0},   {ir::IntrinsicOp::Cos, ref_cos, -20.0, 20.0},
    {ir::IntrinsicOp::Sin, ref_sin, -3e5, 3e5},     {ir::IntrinsicOp::Exp, ref_exp, -110.0, 110.0},
    {ir::IntrinsicOp::Log, ref_log, 1e-30, 1e30},   {ir::IntrinsicOp::Tanh, ref_tanh, -12.0, 12.0},
};

TEST(CpuVectorMath, Float32ResultsWithinOneUlpWithSpecialValues) {
  for (const UnaryCase &c : kCases) {
    expect_within_one_ulp<float>(c, DType::Float32);
  }
}

TEST(CpuVectorMath, Float64ResultsWithinOneUlpWithSpecialValues) {
  for (const UnaryCase &c : kCases) {
    expect_within_one_ulp<double>(c, DType::Float64);
  }
}

long double ref_sinh(long double x) {
  return std::sinh(x);
}
long double ref_cosh(long double x) {
  return std::cosh(x);
}
long double ref_log1p(long double x) {
  return std::log1p(x);
}

template <typename T>
void expect_finite_near_overflow(DType dtype, const std::vector<T> &hyperbolic, const std::vector<T> &large) {
  using Reference = long double (*)(long double);
  for (auto [op, ref] : {std::pair<ir::IntrinsicOp, Reference>{ir::IntrinsicOp::Sinh, ref_sinh},
                         std::pair<ir::IntrinsicOp, Reference>{ir::IntrinsicOp::Cosh, ref_cosh}}) {
    const std::vector<T> got = apply_vectorized<T>(op, dtype, hyperbolic);
    for (std::size_t i = 0; i < got.size(); ++i) {
      // Recomputed lanes get glibc's sinh and cosh: up to 2 ulps (its manual).
      EXPECT_LE(ulp_error<T>(got[i], ref(hyperbolic[i])), 2.0)
          << ir::intrinsic_name(op) << "(" << hyperbolic[i] << ") = " << got[i];
    }
  }
  const std::vector<T> got = apply_vectorized<T>(ir::IntrinsicOp::Log1p, dtype, large);
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(ulp_error<T>(got[i], ref_log1p(large[i])), 1.0) << "log1p(" << large[i] << ") = " << got[i];
  }
  const T max = std::numeric_limits<T>::max();
  const T root = std::sqrt(max) * T(0.9999);
  const std::vector<T> powers =
      apply_vectorized<T>(ir::IntrinsicOp::Pow, dtype, {max, root, T(2), max}, {T(1), T(2), T(10), T(2)});
  EXPECT_EQ(powers[0], max);
  EXPECT_LE(ulp_error<T>(powers[1], std::pow(static_cast<long double>(root), 2.0L)), 1.0) << powers[1];
  EXPECT_EQ(powers[2], T(1024));
  EXPECT_EQ(powers[3], std::numeric_limits<T>::infinity());  // a true overflow stays one
}

TEST(CpuVectorMath, FunctionsThatOverflowEarlyInSleefStayFiniteWhereTheResultIs) {
  // SLEEF gave inf for sinh(710.0) (1.1e308), log1p(1e308) (709.2) and
  // pow(DBL_MAX, 1.0): such vectors are recomputed with the C functions.
  expect_finite_near_overflow<double>(DType::Float64, {709.8, -709.9, 710.0, 710.4, 1.0, 711.0, -711.0},
                                      {1e308, 1.12e307, std::numeric_limits<double>::max(), 3.0});
  expect_finite_near_overflow<float>(DType::Float32, {88.8f, -88.9f, 89.0f, 89.4f, 1.0f, 90.0f},
                                     {3.4028235e38f, 1.13e38f, 3.0f});
}

TEST(CpuVectorMath, FusedSincosKeepsBothResults) {
  // polar_distance's shape: sin and cos of one argument, used differently.
  using test_ir::call1;
  using test_ir::var;
  ir::Expr x = var(DType::Float32, "x");
  ir::Expr body = test_ir::bin(ir::BinaryOpcode::Sub, call1(ir::IntrinsicOp::Sin, DType::Float32, x),
                               test_ir::bin(ir::BinaryOpcode::Mul, call1(ir::IntrinsicOp::Cos, DType::Float32, x),
                                            ir::Const::make_float(DType::Float32, 0.25)));
  ir::Module m = test_ir::single("f", {{"x", DType::Float32}}, DType::Float32, body);
  CpuCompiler compiler;
  CpuEntry entry = compiler.compile({EntryRequest{&m, "f__fused", {contiguous()}}}).at(0);
  std::vector<float> in(1031), out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] = -9.0f + 0.0173f * static_cast<float>(i);
  }
  float *xp = in.data(), *op = out.data();
  int64_t n = static_cast<int64_t>(in.size());
  void *params[] = {&n, &xp, &op};
  entry(0, n, params);
  for (std::size_t i = 0; i < in.size(); ++i) {
    double expected = std::sin(static_cast<double>(in[i])) - 0.25 * std::cos(static_cast<double>(in[i]));
    ASSERT_NEAR(out[i], expected, 4e-7) << "x=" << in[i];
  }
}

}  // namespace
}  // namespace ufjit::codegen
