// DLPack on the GPU: tensors in device memory made with the driver (as
// PyTorch or CuPy would hand them over) go through from_dlpack into ufunc
// calls without a copy; device results leave through to_dlpack as kDLCUDA
// tensors. The producer's deleter (cuMemFree) runs exactly once. Skips
// without a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

#include <ufjit/dlpack.h>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

using DevicePtr = unsigned long long;  // CUdeviceptr

/// The four driver entry points the producer needs, from the libcuda.so.1
/// that the Runtime has already opened.
struct Driver {
  int (*mem_alloc)(DevicePtr *, std::size_t) = nullptr;
  int (*mem_free)(DevicePtr) = nullptr;
  int (*copy_htod)(DevicePtr, const void *, std::size_t) = nullptr;
  int (*copy_dtoh)(void *, DevicePtr, std::size_t) = nullptr;

  bool open() {
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) {
      return false;
    }
    mem_alloc = reinterpret_cast<decltype(mem_alloc)>(dlsym(handle, "cuMemAlloc_v2"));
    mem_free = reinterpret_cast<decltype(mem_free)>(dlsym(handle, "cuMemFree_v2"));
    copy_htod = reinterpret_cast<decltype(copy_htod)>(dlsym(handle, "cuMemcpyHtoD_v2"));
    copy_dtoh = reinterpret_cast<decltype(copy_dtoh)>(dlsym(handle, "cuMemcpyDtoH_v2"));
    return mem_alloc != nullptr && mem_free != nullptr && copy_htod != nullptr && copy_dtoh != nullptr;
  }
};

/// A producer's device tensor: its allocation, shape and strides, freed and
/// counted by the deleter.
struct DeviceTensor {
  DLManagedTensor managed{};
  DevicePtr allocation = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  const Driver *driver = nullptr;
  int *deletions = nullptr;
};

void delete_device_tensor(DLManagedTensor *self) {
  auto *t = static_cast<DeviceTensor *>(self->manager_ctx);
  t->driver->mem_free(t->allocation);
  ++*t->deletions;
  delete t;
}

class GpuDLPack : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) {
      return;
    }
    warm_ = rt().device_empty(DType::Float32, {1});  // makes the context current here
    ASSERT_TRUE(driver_.open()) << "libcuda.so.1 entry points";
  }

  /// `bytes` copied to a new allocation at `byte_offset`, as a kDLCUDA
  /// tensor of `dtype` and `shape` (element `strides`, or NULL).
  DLManagedTensor *device_tensor(const void *bytes, std::size_t size, DLDataType dtype, std::vector<int64_t> shape,
                                 std::vector<int64_t> strides, uint64_t byte_offset, int *deletions) {
    auto *t = new DeviceTensor;
    t->driver = &driver_;
    t->deletions = deletions;
    EXPECT_EQ(driver_.mem_alloc(&t->allocation, size + byte_offset), 0);
    EXPECT_EQ(driver_.copy_htod(t->allocation + byte_offset, bytes, size), 0);
    t->shape = std::move(shape);
    t->strides = std::move(strides);
    DLTensor &dl = t->managed.dl_tensor;
    dl.data = reinterpret_cast<void *>(t->allocation);
    dl.device = {kDLCUDA, 0};
    dl.ndim = static_cast<int>(t->shape.size());
    dl.dtype = dtype;
    dl.shape = t->shape.data();
    dl.strides = t->strides.empty() ? nullptr : t->strides.data();
    dl.byte_offset = byte_offset;
    t->managed.manager_ctx = t;
    t->managed.deleter = delete_device_tensor;
    return &t->managed;
  }

  Driver driver_;
  Array warm_;
};

// 1025 elements (a launch boundary plus one) at a 256-byte offset.
TEST_F(GpuDLPack, DeviceTensorThroughAUfuncStaysOnTheDevice) {
  Ufunc add = rt().vectorize(kAddSource);
  const std::vector<float> x = random_values<float>(1025, 7, -10.0, 10.0);
  int deletions = 0;
  DLManagedTensor *t =
      device_tensor(x.data(), x.size() * sizeof(float), {kDLFloat, 32, 1}, {1025}, {}, 256, &deletions);
  {
    Array dx = from_dlpack(t);
    ASSERT_EQ(dx.residence(), Residence::Device);
    Array dy = add(dx, 1.5f);
    EXPECT_EQ(dy.residence(), Residence::Device);
    const std::vector<float> y = download<float>(rt(), dy);
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(y[i], x[i] + 1.5f) << i;
    }
  }
  EXPECT_EQ(deletions, 1);
}

// A (2, 513) float64 view of Fortran-ordered memory: element strides {1, 2}.
TEST_F(GpuDLPack, StridedDeviceTensor) {
  Ufunc add = rt().vectorize(kAddSource);
  const std::vector<double> mem = random_values<double>(2 * 513, 11, -1.0, 1.0);
  int deletions = 0;
  DLManagedTensor *t =
      device_tensor(mem.data(), mem.size() * sizeof(double), {kDLFloat, 64, 1}, {2, 513}, {1, 2}, 0, &deletions);
  {
    Array dx = from_dlpack(t);
    Array dy = add(dx, dx);
    const std::vector<double> y = download<double>(rt(), dy);  // C order
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < 513; ++c) {
        ASSERT_EQ(y[static_cast<std::size_t>(r * 513 + c)], 2 * mem[static_cast<std::size_t>(r + 2 * c)]) << r << ',' << c;
      }
    }
  }
  EXPECT_EQ(deletions, 1);
}

// Every dtype's bytes survive the import: the runtime copies the device view
// back to the host unchanged.
TEST_F(GpuDLPack, EveryDtypeImportsFromDeviceMemory) {
  const DLDataType dtypes[] = {{6, 8, 1},      {kDLInt, 8, 1},   {kDLInt, 16, 1},   {kDLInt, 32, 1},
                               {kDLInt, 64, 1}, {kDLUInt, 8, 1}, {kDLUInt, 16, 1}, {kDLUInt, 32, 1},
                               {kDLUInt, 64, 1}, {kDLFloat, 16, 1}, {kDLFloat, 32, 1}, {kDLFloat, 64, 1},
                               {kDLComplex, 64, 1}, {kDLComplex, 128, 1}};
  for (const DLDataType &dt : dtypes) {
    SCOPED_TRACE(std::to_string(dt.code) + "/" + std::to_string(dt.bits));
    const std::size_t size = 7 * dt.bits / 8;
    std::vector<unsigned char> bytes(size);
    for (std::size_t i = 0; i < size; ++i) {
      bytes[i] = static_cast<unsigned char>(dt.code == 6 ? i % 2 : i * 37 + 1);
    }
    int deletions = 0;
    {
      Array dx = from_dlpack(device_tensor(bytes.data(), size, dt, {7}, {}, 0, &deletions));
      Array hx = rt().to_host(dx);
      ASSERT_EQ(0, std::memcmp(hx.data(), bytes.data(), size));
    }
    EXPECT_EQ(deletions, 1);
  }
}

TEST_F(GpuDLPack, DeviceResultLeavesAsACudaTensor) {
  Ufunc add = rt().vectorize(kAddI64Source);
  const std::vector<int64_t> x = {1, 2, 3, 4, 5};
  DLManagedTensor *out = to_dlpack(add(rt().to_device(x), 10));
  EXPECT_EQ(out->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(out->dl_tensor.device.device_id, 0);
  EXPECT_EQ(out->dl_tensor.dtype.code, kDLInt);
  EXPECT_EQ(out->dl_tensor.dtype.bits, 64);
  std::vector<int64_t> back(5);
  rt().synchronize();  // the consumer reads with its own copy
  ASSERT_EQ(driver_.copy_dtoh(back.data(),
                              reinterpret_cast<DevicePtr>(out->dl_tensor.data) + out->dl_tensor.byte_offset,
                              back.size() * sizeof(int64_t)),
            0);
  EXPECT_EQ(back, std::vector<int64_t>({11, 12, 13, 14, 15}));
  out->deleter(out);
}

}  // namespace
}  // namespace ufjit::gpu_testing
