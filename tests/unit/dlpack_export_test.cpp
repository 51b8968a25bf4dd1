// ufjit::to_dlpack: what a consumer receives (device, dtype, element
// strides), that its deleter releases the array, the errors that leave the
// array untouched, and round trips: DLPack -> ufunc call -> DLPack on the CPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include <ufjit/dlpack.h>
#include <ufjit/ufjit.h>

#include "dlpack_test_util.h"

namespace {

using ufjit::Array;
using ufjit::DType;
using ufjit::dlpack_testing::kBool;
using ufjit::dlpack_testing::make_tensor;
using ufjit::dlpack_testing::tensor_data;
using ufjit::dlpack_testing::TensorSpec;
using Shape = std::vector<int64_t>;

/// Calls a consumer's deleter as a consumer would.
void release(DLManagedTensor *t) { t->deleter(t); }

TEST(DLPackExport, HostArrayBecomesACpuTensorWithElementStrides) {
  Array a = Array::host(DType::Float32, {2, 3});
  const void *data = a.data();
  DLManagedTensor *t = ufjit::to_dlpack(std::move(a));
  EXPECT_TRUE(a.empty_handle());  // NOLINT(bugprone-use-after-move): moved into the tensor
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(t->dl_tensor.device.device_id, 0);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(t->dl_tensor.dtype.lanes, 1);
  ASSERT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(Shape(t->dl_tensor.shape, t->dl_tensor.shape + 2), Shape({2, 3}));
  EXPECT_EQ(Shape(t->dl_tensor.strides, t->dl_tensor.strides + 2), Shape({3, 1}));
  EXPECT_EQ(tensor_data(t), data);
  release(t);
}

TEST(DLPackExport, EveryDtypeRoundTrips) {
  for (int i = 0; i < ufjit::kNumDTypes; ++i) {
    const auto dtype = static_cast<DType>(i);
    SCOPED_TRACE(std::string(ufjit::dtype_name(dtype)));
    DLManagedTensor *t = ufjit::to_dlpack(Array::host(dtype, {5}));
    EXPECT_EQ(t->dl_tensor.dtype.bits, ufjit::dtype_size(dtype) * 8);
    if (dtype == DType::Bool) {
      EXPECT_EQ(t->dl_tensor.dtype.code, kBool);
    }
    Array back = ufjit::from_dlpack(t);  // owns t now
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_EQ(back.shape(), Shape({5}));
  }
}

TEST(DLPackExport, ZeroDimensionalArray) {
  DLManagedTensor *t = ufjit::to_dlpack(Array::host(DType::Int64, {}));
  EXPECT_EQ(t->dl_tensor.ndim, 0);
  release(t);
}

// The exported tensor keeps the imported one alive: one deleter call, when
// the consumer of the export lets go.
TEST(DLPackExport, DeleterReleasesTheArrayOnce) {
  int deletions = 0;
  TensorSpec spec;
  spec.shape = {8};
  Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
  DLManagedTensor *t = ufjit::to_dlpack(std::move(a));
  EXPECT_EQ(deletions, 0);
  release(t);
  EXPECT_EQ(deletions, 1);
}

TEST(DLPackExport, EmptyArrayIsAnInputError) {
  EXPECT_THROW(ufjit::to_dlpack(Array()), ufjit::InputError);
}

TEST(DLPackExport, StrideNotAMultipleOfTheItemsizeLeavesTheArrayAlone) {
  Array base = Array::host(DType::Int32, {8});
  ufjit::ArrayView odd = base.view();
  odd.shape = {3};
  odd.strides = {6};
  Array a(odd, base.holder());
  EXPECT_THROW(ufjit::to_dlpack(std::move(a)), ufjit::InputError);
  EXPECT_FALSE(a.empty_handle());  // NOLINT(bugprone-use-after-move): not moved on error
  EXPECT_EQ(a.view().strides, Shape({6}));
}

class DLPackUfunc : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rt_ = std::make_unique<ufjit::Runtime>(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
    f_ = rt_->vectorize("def f(x, y):\n    return x * y + 1\n", {"float64(float64, float64)"});
  }
  static void TearDownTestSuite() {
    f_ = ufjit::Ufunc();
    rt_.reset();
  }
  static std::unique_ptr<ufjit::Runtime> rt_;
  static ufjit::Ufunc f_;
};
std::unique_ptr<ufjit::Runtime> DLPackUfunc::rt_;
ufjit::Ufunc DLPackUfunc::f_;

// A Fortran-ordered (3, 2) float64 tensor at a byte offset, as NumPy would
// hand out a[1:, :].T: ufjit reads it through the strides, and hands the
// result back as a tensor whose elements a consumer reads through its strides.
TEST_F(DLPackUfunc, StridedTensorThroughACallAndBack) {
  int deletions = 0;
  TensorSpec spec;
  spec.dtype = {kDLFloat, 64, 1};
  spec.shape = {3, 2};
  spec.strides = Shape{1, 3};
  spec.byte_offset = 16;
  spec.buffer_bytes = 16 + 6 * 8;
  DLManagedTensor *in = make_tensor(spec, &deletions);
  auto *values = reinterpret_cast<double *>(static_cast<char *>(in->dl_tensor.data) + 16);
  for (int i = 0; i < 6; ++i) {
    values[i] = i;  // memory order: x[r][c] = values[r + 3 c]
  }
  DLManagedTensor *out = nullptr;
  {
    Array x = ufjit::from_dlpack(in);
    Array r = f_(x, 2.0);
    EXPECT_EQ(r.shape(), Shape({3, 2}));
    out = ufjit::to_dlpack(std::move(r));
  }
  EXPECT_EQ(deletions, 1);  // the input went with its Array
  ASSERT_EQ(out->dl_tensor.ndim, 2);
  const auto *result = static_cast<const double *>(tensor_data(out));
  const int64_t *st = out->dl_tensor.strides;
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 2; ++col) {
      EXPECT_EQ(result[row * st[0] + col * st[1]], (row + 3 * col) * 2.0 + 1) << row << ',' << col;
    }
  }
  release(out);
}

// A tensor its producer marked read-only (DLPack 1.0's read-only flag, passed
// by the caller) is read, and refused as an output, unwritten.
TEST_F(DLPackUfunc, AReadOnlyTensorIsReadButNeverWritten) {
  int deletions = 0;
  TensorSpec spec;
  spec.dtype = {kDLFloat, 64, 1};
  spec.shape = {2};
  DLManagedTensor *in = make_tensor(spec, &deletions);
  auto *values = static_cast<double *>(in->dl_tensor.data);
  values[0] = 1.0;
  values[1] = 2.0;
  {
    Array x = ufjit::from_dlpack(in, /*read_only=*/true);
    EXPECT_TRUE(x.view().read_only);
    EXPECT_EQ(f_(x, 2.0).to_vector<double>(), std::vector<double>({3.0, 5.0}));
    EXPECT_THROW(f_(x, 2.0, ufjit::out(x)), ufjit::InputError);
    EXPECT_EQ(values[0], 1.0);
    EXPECT_EQ(values[1], 2.0);
  }
  EXPECT_EQ(deletions, 1);
  int more = 0;
  DLManagedTensor *writable = make_tensor(spec, &more);
  EXPECT_FALSE(ufjit::from_dlpack(writable).view().read_only);
  EXPECT_EQ(more, 1);
}

TEST_F(DLPackUfunc, ZeroDimensionalTensorGivesAZeroDimensionalResult) {
  int deletions = 0;
  TensorSpec spec;
  spec.dtype = {kDLFloat, 64, 1};
  spec.null_shape = true;
  DLManagedTensor *in = make_tensor(spec, &deletions);
  *static_cast<double *>(in->dl_tensor.data) = 4.0;
  {
    Array r = f_(ufjit::from_dlpack(in), 0.5);
    EXPECT_EQ(r.view().ndim(), 0);
    EXPECT_EQ(r.to_vector<double>(), std::vector<double>({3.0}));
  }
  EXPECT_EQ(deletions, 1);
}

}  // namespace
