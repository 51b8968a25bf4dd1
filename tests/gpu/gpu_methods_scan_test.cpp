// Ufunc methods on the GPU, what the block-level kernels must get right:
// accumulate (block scan, the reduce-then-scan path of few long rows, one
// thread per short row) at sizes around tile and chunk boundaries and on
// every axis of a 3-d device array; the reduce's vector loads over every
// element size and over misaligned views; integer results equal to NumPy's
// (exact sequential sums, wrapping int32 included: any order gives NumPy's
// bits, so a wrong order or a lost element shows); a raise reported by every
// method; where= and dtype= on device arrays. Expected values are loops over
// small integers (exact in float32), as np.cumsum / np.add.reduce give them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_methods_util.h"
#include "gpu_test_util.h"

namespace {

using ufjit::Array;
using ufjit::DType;
using ufjit::gpu_testing::download;
using ufjit::gpu_testing::GpuTest;
using Shape = std::vector<int64_t>;

constexpr const char *kKernels = R"SRC(
from numba import vectorize

@vectorize(["int8(int8, int8)", "int16(int16, int16)", "int32(int32, int32)", "int64(int64, int64)",
            "float16(float16, float16)", "float32(float32, float32)", "float64(float64, float64)",
            "complex64(complex64, complex64)", "complex128(complex128, complex128)"], identity=0)
def add(a, b):
    return a + b

@vectorize(["int32(int32, int32)", "float32(float32, float32)"])
def maximum(a, b):
    return a if a > b else b

@vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)
def checked_add(a, b):
    if a < 0 or b < 0:
        raise ValueError("negative operand")
    return a + b
)SRC";

template <typename T>
std::vector<T> data(int64_t n) {
  return ufjit::gpu_testing::method_data<T>(n);
}

/// np.cumsum, left to right, in int64.
std::vector<int64_t> cumsum(const std::vector<int64_t> &a) {
  std::vector<int64_t> out(a.size());
  int64_t acc = 0;
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = acc += a[i];
  return out;
}

class GpuMethodsScan : public GpuTest {
 protected:
  ufjit::Ufunc f(const char *name) {
    if (!set_) set_ = std::make_unique<ufjit::UfuncSet>(rt().load(kKernels, "kernels.py"));
    return (*set_)[name];
  }
  void TearDown() override { set_.reset(); }
  std::unique_ptr<ufjit::UfuncSet> set_;
};

const std::vector<int64_t> kSizes = {1,    2,    31,   32,    33,    255,   256,   257,   1023,   1024,
                                     1025, 2047, 2048, 2049,  65535, 65536, 65537, 98304, 131073, (1 << 20) + 1,
                                     (1 << 22) + 3};

TEST_F(GpuMethodsScan, AccumulateAtTileAndChunkBoundariesMatchesCumsum) {
  for (int64_t n : kSizes) {
    const std::vector<int64_t> a = data<int64_t>(n);
    const std::vector<int64_t> want = cumsum(a);
    Array r = f("add").accumulate(rt().to_device(a));
    ASSERT_EQ(r.residence(), ufjit::Residence::Device);
    EXPECT_EQ(download<int64_t>(rt(), r), want) << "int64, n = " << n;
    const std::vector<float> want_f(want.begin(), want.end());
    EXPECT_EQ(download<float>(rt(), f("add").accumulate(rt().to_device(data<float>(n)))), want_f)
        << "float32, n = " << n;
    const std::vector<int8_t> bytes = data<int8_t>(n);
    std::vector<int8_t> want_i8(bytes.size());
    int8_t acc = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) want_i8[i] = acc = static_cast<int8_t>(acc + bytes[i]);
    EXPECT_EQ(download<int8_t>(rt(), f("add").accumulate(rt().to_device(bytes))), want_i8) << "int8, n = " << n;
  }
  std::vector<int64_t> empty;
  EXPECT_EQ(f("add").accumulate(rt().to_device(std::vector<int64_t>{5})).shape(), Shape{1});
  EXPECT_EQ(f("add").accumulate(empty).shape(), Shape{0});
}

TEST_F(GpuMethodsScan, AccumulateOfAFunctionWithoutIdentityCarriesAcrossChunks) {
  for (int64_t n : {int64_t{257}, int64_t{65537}, int64_t{(1 << 21) + 5}}) {
    std::vector<int32_t> a = data<int32_t>(n);
    a[static_cast<std::size_t>(n / 3)] = 1000;  // the maximum from a third on
    std::vector<int32_t> want(a.size());
    int32_t m = a[0];
    for (std::size_t i = 0; i < a.size(); ++i) want[i] = m = std::max(m, a[i]);
    EXPECT_EQ(download<int32_t>(rt(), f("maximum").accumulate(rt().to_device(a))), want) << "n = " << n;
  }
}

TEST_F(GpuMethodsScan, AccumulateEveryAxisOf3dDeviceArrays) {
  for (const Shape &shape : {Shape{2, 3, 300001}, Shape{300001, 3, 2}, Shape{40, 1000, 7}}) {
    const int64_t n = shape[0] * shape[1] * shape[2];
    const std::vector<int64_t> a = data<int64_t>(n);
    Array d = rt().to_device(a);
    ufjit::ArrayView v = d.view();
    v.shape = shape;
    v.strides = ufjit::ArrayView::c_strides(shape, 8);
    for (int axis = 0; axis < 3; ++axis) {
      const int64_t stride = axis == 0 ? shape[1] * shape[2] : axis == 1 ? shape[2] : 1;
      std::vector<int64_t> want = a;
      for (int64_t k = 0; k < n; ++k) {
        if ((k / stride) % shape[static_cast<std::size_t>(axis)] != 0) {
          want[static_cast<std::size_t>(k)] += want[static_cast<std::size_t>(k - stride)];
        }
      }
      Array r = f("add").accumulate(v, {.axis = axis});
      EXPECT_EQ(r.shape(), shape);
      EXPECT_EQ(download<int64_t>(rt(), r), want) << "shape " << shape[0] << "x" << shape[1] << "x" << shape[2]
                                                  << ", axis " << axis;
    }
  }
}

TEST_F(GpuMethodsScan, AccumulateOfEveryElementKind) {
  const int64_t n = 100003;
  const std::vector<int64_t> want = cumsum(data<int64_t>(n));
  auto expect_kind = [&](DType dtype, auto sample) {
    using T = decltype(sample);
    Array r = f("add").accumulate(rt().to_device(data<T>(n)), {.dtype = dtype});
    const std::vector<T> got = download<T>(rt(), r);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(static_cast<int64_t>(got[static_cast<std::size_t>(i)]), want[static_cast<std::size_t>(i)])
          << ufjit::dtype_name(dtype) << " at " << i;
    }
  };
  expect_kind(DType::Int16, int16_t{});
  expect_kind(DType::Int32, int32_t{});
  expect_kind(DType::Float64, double{});
  const std::vector<std::complex<double>> z(static_cast<std::size_t>(n), {1.0, -2.0});
  const std::vector<std::complex<double>> zs = download<std::complex<double>>(rt(), f("add").accumulate(rt().to_device(z)));
  EXPECT_EQ(zs.back(), std::complex<double>(static_cast<double>(n), -2.0 * static_cast<double>(n)));
}

TEST_F(GpuMethodsScan, ReduceOfEveryElementKindAndMisalignedViews) {
  for (int64_t n : kSizes) {
    if (n > 140000 && n != (1 << 20) + 1) continue;  // the largest sizes: by the other tests (sanitizer time)
    const std::vector<int64_t> a = data<int64_t>(n + 3);
    for (int64_t offset : {0, 1, 3}) {
      int64_t want = 0;
      for (int64_t i = offset; i < n + offset; ++i) want += a[static_cast<std::size_t>(i)];
      auto check = [&](auto sample) {
        using T = decltype(sample);
        Array d = rt().to_device(data<T>(n + 3));
        ufjit::ArrayView v = d.view();
        v.data = static_cast<T *>(v.data) + offset;  // 1 or 3 elements past a 16-byte boundary
        v.shape = {n};
        const T got = download<T>(rt(), f("add").reduce(v))[0];
        EXPECT_EQ(static_cast<int64_t>(got), want)
            << ufjit::dtype_name(ufjit::dtype_of<T>()) << ", n = " << n << ", offset " << offset;
      };
      check(int64_t{});
      check(int32_t{});
      check(int16_t{});
      check(float{});
      check(double{});
      if (n < 4000) check(int8_t{});  // the sum fits int8 only for short rows
    }
  }
}

TEST_F(GpuMethodsScan, IntegerReductionsEqualNumPysIncludingWraparound) {
  // np.add.reduce(a, dtype=np.int32) wraps modulo 2**32 in any order; the
  // expected value is the sequential sum in uint32, as NumPy computes it.
  const int64_t n = (1 << 24) + 7;
  std::vector<int32_t> a = ufjit::gpu_testing::random_values<int32_t>(static_cast<std::size_t>(n), 3, -1.5e9, 1.5e9);
  uint32_t want = 0;
  for (int32_t x : a) want += static_cast<uint32_t>(x);
  Array d = rt().to_device(a);
  for (int run = 0; run < 3; ++run) {
    EXPECT_EQ(download<int32_t>(rt(), f("add").reduce(d))[0], static_cast<int32_t>(want)) << "run " << run;
  }
  std::vector<int32_t> scanned = download<int32_t>(rt(), f("add").accumulate(d));
  uint32_t acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    acc += static_cast<uint32_t>(a[static_cast<std::size_t>(i)]);
    ASSERT_EQ(scanned[static_cast<std::size_t>(i)], static_cast<int32_t>(acc)) << i;
  }
}

TEST_F(GpuMethodsScan, EveryMethodReportsARaiseOnDeviceArrays) {
  for (int64_t n : {int64_t{2}, int64_t{257}, int64_t{70000}, int64_t{(1 << 21) + 1}}) {
    std::vector<int64_t> a(static_cast<std::size_t>(n), 1);
    a[static_cast<std::size_t>(n - 1)] = -4;
    Array d = rt().to_device(a);
    Array out = rt().device_empty(DType::Int64, {});
    EXPECT_THROW(f("checked_add").reduce(d, {}, ufjit::out(out)), ufjit::KernelError) << "reduce n = " << n;
    EXPECT_THROW(f("checked_add").accumulate(d), ufjit::KernelError) << "accumulate n = " << n;
    try {
      f("checked_add").reduce(d);
      ADD_FAILURE() << "no KernelError";
    } catch (const ufjit::KernelError &e) {
      EXPECT_EQ(e.exception(), "ValueError");
      EXPECT_EQ(e.message(), "negative operand");
      EXPECT_EQ(e.line(), 17);
    }
  }
  EXPECT_THROW(f("checked_add").outer(rt().to_device(std::vector<int64_t>{1, -1}), rt().to_device(data<int64_t>(5))),
               ufjit::KernelError);
  // The next call is clean.
  EXPECT_EQ(download<int64_t>(rt(), f("checked_add").reduce(rt().to_device(std::vector<int64_t>(1000, 2))))[0], 2000);
}

TEST_F(GpuMethodsScan, WhereAndDtypeOnDeviceArrays) {
  const Shape shape{3, 5, 70001};
  const int64_t n = 3 * 5 * 70001;
  const std::vector<int64_t> a = data<int64_t>(n);
  std::vector<uint8_t> keep(70001);
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = i % 3 != 0 ? 1 : 0;
  Array d = rt().to_device(a);
  ufjit::ArrayView v = d.view();
  v.shape = shape;
  v.strides = ufjit::ArrayView::c_strides(shape, 8);
  for (bool device_mask : {false, true}) {
    Array mask_array = device_mask ? rt().to_device(keep) : Array();
    ufjit::ArrayView mask = device_mask ? mask_array.view() : ufjit::view(keep.data(), {70001});
    mask.dtype = DType::Bool;
    for (int axis = 0; axis < 3; ++axis) {
      Shape out_shape = shape;
      out_shape.erase(out_shape.begin() + axis);
      std::vector<int64_t> want(static_cast<std::size_t>(out_shape[0] * out_shape[1]), 0);
      for (int64_t k = 0; k < n; ++k) {
        const int64_t i2 = k % 70001;
        const int64_t i1 = (k / 70001) % 5;
        const int64_t i0 = k / (5 * 70001);
        if (keep[static_cast<std::size_t>(i2)] == 0) continue;
        const int64_t o = axis == 0 ? i1 * 70001 + i2 : axis == 1 ? i0 * 70001 + i2 : i0 * 5 + i1;
        want[static_cast<std::size_t>(o)] += a[static_cast<std::size_t>(k)];
      }
      Array r = f("add").reduce(v, {.axes = {axis}, .where = mask});
      ASSERT_EQ(r.residence(), ufjit::Residence::Device);
      EXPECT_EQ(download<int64_t>(rt(), r), want) << "axis " << axis << (device_mask ? ", device mask" : "");
    }
  }
  // dtype=float64 over int64 device data, and a float32 out
  Array r = f("add").reduce(v, {.all_axes = true, .dtype = DType::Float64});
  EXPECT_EQ(r.dtype(), DType::Float64);
  int64_t total = 0;
  for (int64_t x : a) total += x;
  EXPECT_EQ(download<double>(rt(), r)[0], static_cast<double>(total));
  Array out = rt().device_empty(DType::Float32, {});
  f("add").reduce(v, {.all_axes = true}, ufjit::out(out));
  EXPECT_EQ(download<float>(rt(), out)[0], static_cast<float>(total));
}

}  // namespace
