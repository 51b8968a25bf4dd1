// Tiering on the GPU (runtime/cuda/TierUp.h): a first call with nothing in
// any cache runs a quickly compiled kernel (codegen::PtxTier::Quick), the
// optimised kernel replaces it once compiled, and only the optimised one is
// stored on disk. Every tier gives the same bits as the optimised kernel
// compiled at once (UFJIT_TIERING=0), for the seed kernels and the general
// kernels of the first-call benchmarks.
#include <stdlib.h>

#include <chrono>
#include <complex>
#include <cstring>
#include <filesystem>

#include "benchmarks/general_kernels.h"
#include "benchmarks/gpu/bench_kernels.h"
#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

/// Sets an environment variable for one scope (unset: restored unset).
class EnvScope {
 public:
  EnvScope(const char *name, const std::string &value) : name_(name) {
    if (const char *old = getenv(name)) {
      had_ = true;
      old_ = old;
    }
    setenv(name, value.c_str(), 1);
  }
  ~EnvScope() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char *name_;
  bool had_ = false;
  std::string old_;
};

struct Kernel {
  std::string name;
  std::string source;
  std::vector<DType> inputs;
};

std::vector<Kernel> kernels() {
  std::vector<Kernel> all;
  for (const bench::BenchKernel &k : bench::bench_kernels()) {
    all.push_back({k.name, k.source, std::vector<DType>(static_cast<std::size_t>(k.inputs), k.dtype)});
  }
  for (const bench::GeneralKernel &k : bench::general_kernels()) all.push_back({k.name, k.source, k.inputs});
  return all;
}

/// 4096 host elements per operand, signed, each operand its own sequence.
std::vector<Array> inputs_for(const Kernel &k) {
  std::vector<Array> arrays;
  for (std::size_t j = 0; j < k.inputs.size(); ++j) {
    const DType t = k.inputs[j];
    Array a = Array::host(t, {4096});
    const std::vector<double> v = random_values<double>(4096, 17 + static_cast<unsigned>(j), -3.0, 3.0);
    for (int64_t i = 0; i < 4096; ++i) {
      const double x = v[static_cast<std::size_t>(i)];
      switch (t) {
        case DType::Int64: a.host_data<int64_t>()[i] = static_cast<int64_t>(x * 1000.0); break;
        case DType::Float32: a.host_data<float>()[i] = static_cast<float>(x); break;
        case DType::Float64: a.host_data<double>()[i] = x; break;
        case DType::Complex128: a.host_data<std::complex<double>>()[i] = {x, 1.5 - x}; break;
        default: ADD_FAILURE() << "no inputs for " << dtype_name(t);
      }
    }
    arrays.push_back(std::move(a));
  }
  return arrays;
}

/// The result's bytes, NaNs made canonical (a NaN's payload is not a result).
std::string result_bytes(const Array &r) {
  std::string bytes(static_cast<const char *>(r.data()), static_cast<std::size_t>(r.size()) * dtype_size(r.dtype()));
  auto canonical = [&](auto nan) {
    using T = decltype(nan);
    for (std::size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
      T x;
      std::memcpy(&x, bytes.data() + i, sizeof(T));
      if (std::isnan(x)) std::memcpy(bytes.data() + i, &nan, sizeof(T));
    }
  };
  if (r.dtype() == DType::Float32) canonical(std::numeric_limits<float>::quiet_NaN());
  if (r.dtype() == DType::Float64 || r.dtype() == DType::Complex128) canonical(std::numeric_limits<double>::quiet_NaN());
  return bytes;
}

Array call_on_host(Ufunc &f, const std::vector<Array> &x) {
  std::vector<Operand> ops;
  for (const Array &a : x) ops.emplace_back(a.view());
  return f.call(ops);
}

class GpuTiering : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    std::string pattern = std::filesystem::temp_directory_path().string() + "/ufjit-gpu-tiering-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  /// A cache directory of its own for `what` (empty at first).
  std::string cache_for(const std::string &what) { return dir_ + "/" + what; }
  std::string dir_;
};

TEST_F(GpuTiering, QuickFirstCallOptimisedLaterCallsAndTheDiskHitGiveTheBitsOfTheUntieredKernel) {
  RuntimeOptions options;
  options.target = TargetKind::Cuda;
  for (const Kernel &k : kernels()) {
    SCOPED_TRACE(k.name);
    const std::vector<Array> x = inputs_for(k);
    std::string untiered;
    {
      EnvScope cache("UFJIT_CACHE_DIR", cache_for(k.name + "-untiered"));
      EnvScope off("UFJIT_TIERING", "0");
      Runtime rt(options);
      Ufunc f = rt.vectorize(k.source);
      untiered = result_bytes(call_on_host(f, x));
    }
    EnvScope cache("UFJIT_CACHE_DIR", cache_for(k.name));
    std::string quick;
    std::string optimised;
    {
      Runtime rt(options);
      Ufunc f = rt.vectorize(k.source);
      quick = result_bytes(call_on_host(f, x));  // nothing cached: the quick tier
      rt.synchronize();                          // waits for the optimised kernel too
      optimised = result_bytes(call_on_host(f, x));
    }
    EXPECT_TRUE(quick == untiered) << "the quick kernel's results differ from the optimised kernel's";
    EXPECT_TRUE(optimised == untiered) << "the swapped-in kernel's results differ";
    const std::vector<CacheEntryInfo> entries = cached_cubins();
    EXPECT_EQ(entries.size(), 1u) << "only the optimised kernel is stored";
    Runtime rt(options);
    Ufunc f = rt.vectorize(k.source);
    EXPECT_TRUE(result_bytes(call_on_host(f, x)) == untiered) << "the disk-cached kernel's results differ";
    EXPECT_EQ(cached_cubins().size(), 1u) << "a disk hit compiled again";
  }
}

TEST_F(GpuTiering, AnUnsynchronizedRuntimeStillLeavesTheOptimisedKernelOnDisk) {
  EnvScope cache("UFJIT_CACHE_DIR", cache_for("exit"));
  const Kernel k = kernels().at(1);  // sincos_f32
  const std::vector<Array> x = inputs_for(k);
  RuntimeOptions options;
  options.target = TargetKind::Cuda;
  {
    Runtime rt(options);
    Ufunc f = rt.vectorize(k.source);
    call_on_host(f, x);
  }  // no synchronize(): the destructor finishes the optimised compile
  const std::vector<CacheEntryInfo> entries = cached_cubins();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(verify_cache(false).corrupt.empty());
}

TEST_F(GpuTiering, FastmathKernelsAreNotTieredAndStoreAtOnce) {
  EnvScope cache("UFJIT_CACHE_DIR", cache_for("fast"));
  const bench::BenchKernel k = bench::bench_kernels_fastmath().at(2);  // gauss_f32_fast
  RuntimeOptions options;
  options.target = TargetKind::Cuda;
  Runtime rt(options);
  Ufunc f = rt.vectorize(k.source);
  std::vector<Array> x;
  for (int i = 0; i < k.inputs; ++i) {
    Array a = Array::host(DType::Float32, {256});
    for (int64_t e = 0; e < 256; ++e) a.host_data<float>()[e] = 0.25f + static_cast<float>(e) / 64.0f;
    x.push_back(std::move(a));
  }
  const std::string first = result_bytes(call_on_host(f, x));
  rt.synchronize();
  EXPECT_TRUE(first == result_bytes(call_on_host(f, x))) << "a fastmath kernel changed between calls";
}

}  // namespace
}  // namespace ufjit::gpu_testing
