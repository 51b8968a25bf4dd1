// A Runtime of two GPUs (RuntimeOptions::devices, docs/guide/cpp.md, "Several GPUs"):
// results on real devices. Every test skips on a host with fewer than two
// GPUs; tests/fake_cuda/ checks the same placement rules without a GPU.
#include <dlfcn.h>

#include "gpu_test_util.h"
#include "tests/unit/scoped_env.h"
#include "ufjit/kernel.h"

namespace ufjit::gpu_testing {
namespace {

constexpr const char *kCopyKernel = R"UFN(
from numba import cuda

@cuda.jit("void(float32[:], float32[:])")
def copy(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i]
)UFN";

constexpr const char *kRowSum = R"UFN(
from numba import guvectorize

@guvectorize(["void(int64[:], int64[:])"], "(n)->()")
def row_sum(x, out):
    acc = 0
    for k in range(x.shape[0]):
        acc += x[k]
    out[0] = acc
)UFN";

/// The device of `ptr` as the driver reports it (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL).
int driver_device_of(const void *ptr) {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) {
    return -1;
  }
  using GetAttribute = int (*)(void *, int, unsigned long long);
  auto fn = reinterpret_cast<GetAttribute>(dlsym(handle, "cuPointerGetAttribute"));
  int ordinal = -1;
  constexpr int kDeviceOrdinal = 9;  // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
  if (fn == nullptr || fn(&ordinal, kDeviceOrdinal, reinterpret_cast<unsigned long long>(ptr)) != 0) {
    ordinal = -1;
  }
  dlclose(handle);
  return ordinal;
}

/// A Runtime of devices 0 and 1; skips with fewer than two GPUs.
class GpuDevices : public ::testing::Test {
 protected:
  void SetUp() override {
    const DriverInfo info = device_info();
    if (!info.available || info.devices.size() < 2) {
      GTEST_SKIP() << "needs two CUDA devices";
    }
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    options.devices = {0, 1};
    rt_ = std::make_unique<Runtime>(options);
  }
  Runtime &rt() { return *rt_; }
  std::unique_ptr<Runtime> rt_;
  const std::vector<int64_t> x_ = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
  const std::vector<int64_t> twice_ = {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34};
};

TEST_F(GpuDevices, ArraysAreAllocatedOnTheAskedDevice) {
  EXPECT_EQ(rt().devices(), (std::vector<int>{0, 1}));
  Array a = rt().to_device(x_, 1);
  EXPECT_EQ(a.view().device, 1);
  EXPECT_EQ(driver_device_of(a.data()), 1);
  Array e = rt().device_empty(DType::Float32, {100}, 1);
  EXPECT_EQ(driver_device_of(e.data()), 1);
  EXPECT_EQ(download<int64_t>(rt(), a.view()), x_);
}

TEST_F(GpuDevices, ACallOfDevice1OperandsComputesOnDevice1) {
  Ufunc add = rt().vectorize(kAddI64Source);
  Array a = rt().to_device(x_, 1);
  for (int k = 0; k < 3; ++k) {  // the first call, then its plan
    Array c = add(a.view(), a.view());
    EXPECT_EQ(c.view().device, 1);
    EXPECT_EQ(driver_device_of(c.data()), 1);
    EXPECT_EQ(download<int64_t>(rt(), c.view()), twice_);
  }
  Array b = rt().to_device(x_, 0);
  EXPECT_EQ(download<int64_t>(rt(), add(b.view(), b.view()).view()), twice_);
}

TEST_F(GpuDevices, MixedDevicesGiveTheResultOfOneDevice) {
  Ufunc add = rt().vectorize(kAddI64Source);
  Array a = rt().to_device(x_, 0);
  Array b = rt().to_device(x_, 1);
  Array c = add(a.view(), b.view());  // peer access, or a copy of b
  EXPECT_EQ(c.view().device, 0);
  EXPECT_EQ(download<int64_t>(rt(), c.view()), twice_);
  Array out = rt().device_empty(DType::Int64, {static_cast<int64_t>(x_.size())}, 1);
  (void)add(a.view(), b.view(), ufjit::out(out.view()));
  EXPECT_EQ(download<int64_t>(rt(), out.view()), twice_);
}

constexpr const char *kCheckedHalf = R"UFN(
from numba import vectorize

@vectorize(["float64(int64)"])
def checked_half(x):
    if x < 0:
        raise ValueError("negative input")
    return x / 2
)UFN";

TEST_F(GpuDevices, ALargeCallOfHostArraysIsSplitAndGivesTheResultOfOneDevice) {
  Ufunc add = rt().vectorize(kAddI64Source);
  const int64_t n = (int64_t{1} << 22) + 12345;  // parts of uneven sizes
  std::vector<int64_t> x(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = i;
  }
  Array c = add(view(x), view(x));
  ASSERT_EQ(c.view().residence, Residence::Host);
  const auto *got = static_cast<const int64_t *>(c.data());
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    wrong += got[i] != 2 * i;
  }
  EXPECT_EQ(wrong, 0);
  // 2-D with a strided input: a part is a block of rows.
  ArrayView rows = view(x);
  rows.shape = {2049, 1024};
  rows.strides = {2048 * 8, 16};  // every other element of 2049 rows of 2048
  Array r = add(rows, rows);
  const auto *rgot = static_cast<const int64_t *>(r.data());
  for (int64_t i = 0; i < 2049 && wrong == 0; ++i) {
    for (int64_t j = 0; j < 1024; ++j) {
      wrong += rgot[i * 1024 + j] != 2 * (i * 2048 + 2 * j);
    }
  }
  EXPECT_EQ(wrong, 0);
  // A gufunc: its outer loop is split.
  Ufunc row_sum = rt().vectorize(kRowSum);
  ArrayView pairs = view(x);
  pairs.shape = {n / 2, 2};
  pairs.strides = {16, 8};
  Array sums = row_sum(pairs);
  const auto *sgot = static_cast<const int64_t *>(sums.data());
  for (int64_t i = 0; i < n / 2; ++i) {
    wrong += sgot[i] != 4 * i + 1;
  }
  EXPECT_EQ(wrong, 0);
}

TEST_F(GpuDevices, ARaiseInAnyPartOfASplitCallIsReported) {
  Ufunc half = rt().vectorize(kCheckedHalf);
  std::vector<int64_t> x(std::size_t{1} << 21, 4);
  x.back() = -1;  // in the last device's part
  EXPECT_THROW((void)half(view(x)), KernelError);
  x.back() = 4;
  Array ok = half(view(x));
  EXPECT_EQ(static_cast<const double *>(ok.data())[x.size() - 1], 2.0);
}

TEST_F(GpuDevices, ReduceOfADevice1ArrayComputesOnDevice1) {
  Ufunc add = rt().vectorize(kAddI64Source);
  Array a = rt().to_device(x_, 1);
  Array sum = add.reduce(a.view());
  EXPECT_EQ(sum.view().device, 1);
  EXPECT_EQ(download<int64_t>(rt(), sum.view()), std::vector<int64_t>{153});
}

TEST_F(GpuDevices, AGufuncCallOfDevice1OperandsComputesOnDevice1) {
  Ufunc row_sum = rt().vectorize(kRowSum);
  const std::vector<int64_t> x(12, 3);
  Array flat = rt().to_device(x, 1);
  ArrayView rows = flat.view();
  rows.shape = {3, 4};
  rows.strides = ArrayView::c_strides(rows.shape, sizeof(int64_t));
  Array sums = row_sum(rows);
  EXPECT_EQ(driver_device_of(sums.data()), 1);
  EXPECT_EQ(download<int64_t>(rt(), sums.view()), (std::vector<int64_t>{12, 12, 12}));
}

TEST_F(GpuDevices, AnAsyncCallOnADevice1StreamComputesThere) {
  Ufunc add = rt().vectorize(kAddI64Source);
  Array a = rt().to_device(x_, 1);
  Array out = rt().device_empty(DType::Int64, {static_cast<int64_t>(x_.size())}, 1);
  Stream s = rt().stream(1);
  add.async(s, a.view(), a.view(), ufjit::out(out.view()));
  s.synchronize();
  EXPECT_EQ(download<int64_t>(rt(), out.view()), twice_);
}

TEST_F(GpuDevices, AKernelLaunchComputesOnTheDeviceOfItsArrays) {
  Kernel copy = rt().kernel(kCopyKernel);
  const std::vector<float> x = random_values<float>(1000, 7, -1.0, 1.0);
  Array dx = rt().to_device(x, 1);
  Array dy = rt().device_empty(DType::Float32, {1000}, 1);
  copy({.grid = 4, .block = 256}, dx.view(), dy.view());
  EXPECT_EQ(download<float>(rt(), dy.view()), x);
}

TEST_F(GpuDevices, AnArrayOfADeviceOutsideTheSetIsRefused) {
  RuntimeOptions one;
  one.target = TargetKind::Cuda;
  one.devices = {0};
  const testing::ScopedEnv no_override("UFJIT_DEVICES", std::nullopt);  // it would win over `devices`
  Runtime rt0(one);
  Ufunc add = rt0.vectorize(kAddI64Source);
  Array a = rt().to_device(x_, 1);
  try {
    (void)add(a.view(), a.view());
    ADD_FAILURE() << "a device-1 array was accepted by a device-0 Runtime";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("CUDA device 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ufjit::gpu_testing
