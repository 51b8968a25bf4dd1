// ufjit::from_dlpack: every dtype of the language, NULL and element strides,
// byte_offset, 0-d, host and device placement, and every rejected tensor,
// with the producer's deleter counted: exactly once, on success when the
// last Array lets go, and on every error path.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <ufjit/dlpack.h>
#include <ufjit/ufjit.h>

#include "dlpack_test_util.h"

namespace {

using ufjit::Array;
using ufjit::DType;
using ufjit::dlpack_testing::kBool;
using ufjit::dlpack_testing::make_tensor;
using ufjit::dlpack_testing::TensorSpec;
using Shape = std::vector<int64_t>;

struct DtypeCase {
  DLDataType dl;
  DType dtype;
};

const DtypeCase kEveryDtype[] = {
    {{kBool, 8, 1}, DType::Bool},         {{kDLInt, 8, 1}, DType::Int8},
    {{kDLInt, 16, 1}, DType::Int16},      {{kDLInt, 32, 1}, DType::Int32},
    {{kDLInt, 64, 1}, DType::Int64},      {{kDLUInt, 8, 1}, DType::UInt8},
    {{kDLUInt, 16, 1}, DType::UInt16},    {{kDLUInt, 32, 1}, DType::UInt32},
    {{kDLUInt, 64, 1}, DType::UInt64},    {{kDLFloat, 16, 1}, DType::Float16},
    {{kDLFloat, 32, 1}, DType::Float32},  {{kDLFloat, 64, 1}, DType::Float64},
    {{kDLComplex, 64, 1}, DType::Complex64}, {{kDLComplex, 128, 1}, DType::Complex128},
};

TEST(DLPackImport, EveryDtypeOfTheLanguage) {
  for (const DtypeCase &c : kEveryDtype) {
    SCOPED_TRACE(std::string(ufjit::dtype_name(c.dtype)));
    int deletions = 0;
    TensorSpec spec;
    spec.dtype = c.dl;
    spec.shape = {3};
    DLManagedTensor *t = make_tensor(spec, &deletions);
    const void *data = t->dl_tensor.data;
    {
      Array a = ufjit::from_dlpack(t);
      EXPECT_EQ(a.dtype(), c.dtype);
      EXPECT_EQ(a.shape(), Shape({3}));
      EXPECT_EQ(a.view().strides, Shape({static_cast<int64_t>(ufjit::dtype_size(c.dtype))}));
      EXPECT_EQ(a.data(), data);
      EXPECT_EQ(a.residence(), ufjit::Residence::Host);
      EXPECT_EQ(deletions, 0);
    }
    EXPECT_EQ(deletions, 1);
  }
  EXPECT_EQ(std::size(kEveryDtype), static_cast<std::size_t>(ufjit::kNumDTypes));
}

TEST(DLPackImport, NullStridesAreCContiguousInBytes) {
  int deletions = 0;
  TensorSpec spec;
  spec.shape = {2, 3, 4};
  Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
  EXPECT_EQ(a.view().strides, Shape({48, 16, 4}));
  EXPECT_TRUE(a.view().is_c_contiguous());
}

TEST(DLPackImport, ElementStridesBecomeByteStrides) {
  int deletions = 0;
  TensorSpec spec;
  spec.dtype = {kDLFloat, 64, 1};
  spec.shape = {3, 2};
  spec.strides = Shape{1, 3};  // Fortran order
  Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
  EXPECT_EQ(a.view().strides, Shape({8, 24}));
  EXPECT_TRUE(a.view().is_f_contiguous());
}

TEST(DLPackImport, NegativeAndZeroStridesAreKept) {
  int deletions = 0;
  TensorSpec spec;
  spec.dtype = {kDLInt, 16, 1};
  spec.shape = {4, 5};
  spec.strides = Shape{-5, 0};
  spec.byte_offset = 30;  // the first element of the last row
  Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
  EXPECT_EQ(a.view().strides, Shape({-10, 0}));
}

TEST(DLPackImport, ByteOffsetAdvancesTheDataPointer) {
  int deletions = 0;
  TensorSpec spec;
  spec.dtype = {kDLUInt, 8, 1};
  spec.shape = {4};
  spec.byte_offset = 7;
  DLManagedTensor *t = make_tensor(spec, &deletions);
  const auto *base = static_cast<const unsigned char *>(t->dl_tensor.data);
  Array a = ufjit::from_dlpack(t);
  EXPECT_EQ(a.data(), base + 7);
  EXPECT_EQ(a.to_vector<uint8_t>(), std::vector<uint8_t>({7, 8, 9, 10}));
}

TEST(DLPackImport, ZeroDimensionalWithNullShape) {
  int deletions = 0;
  TensorSpec spec;
  spec.dtype = {kDLInt, 32, 1};
  spec.null_shape = true;
  {
    Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
    EXPECT_EQ(a.view().ndim(), 0);
    EXPECT_EQ(a.size(), 1);
    EXPECT_TRUE(a.view().strides.empty());
  }
  EXPECT_EQ(deletions, 1);
}

TEST(DLPackImport, EmptyTensorMayHaveNullData) {
  int deletions = 0;
  TensorSpec spec;
  spec.shape = {0, 3};
  spec.null_data = true;
  Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
  EXPECT_EQ(a.size(), 0);
  EXPECT_EQ(a.data(), nullptr);
}

TEST(DLPackImport, CudaHostMemoryIsHost) {
  int deletions = 0;
  TensorSpec spec;
  spec.device = {kDLCUDAHost, 0};
  spec.shape = {2};
  Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
  EXPECT_EQ(a.residence(), ufjit::Residence::Host);
}

// No driver is touched: placement is bookkeeping until a call uses the array.
TEST(DLPackImport, CudaMemoryIsDeviceWithItsOrdinal) {
  int deletions = 0;
  TensorSpec spec;
  spec.device = {kDLCUDA, 1};
  spec.shape = {2};
  {
    Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
    EXPECT_EQ(a.residence(), ufjit::Residence::Device);
    EXPECT_EQ(a.view().device, 1);
  }
  EXPECT_EQ(deletions, 1);
}

TEST(DLPackImport, DeleterWaitsForEveryArraySharingTheTensor) {
  int deletions = 0;
  TensorSpec spec;
  spec.shape = {6};
  Array a = ufjit::from_dlpack(make_tensor(spec, &deletions));
  ufjit::ArrayView reshaped = a.view();
  reshaped.shape = {2, 3};
  reshaped.strides = {12, 4};
  Array b(reshaped, a.holder());
  a = Array();
  EXPECT_EQ(deletions, 0);
  b = Array();
  EXPECT_EQ(deletions, 1);
}

TEST(DLPackImport, NullDeleterIsAllowed) {
  int deletions = 0;
  TensorSpec spec;
  spec.shape = {2};
  DLManagedTensor *t = make_tensor(spec, &deletions);
  t->deleter = nullptr;
  { Array a = ufjit::from_dlpack(t); }
  EXPECT_EQ(deletions, 0);
  ufjit::dlpack_testing::delete_produced(t);  // the producer keeps ownership
}

TEST(DLPackImport, NullTensorIsAnInputError) { EXPECT_THROW(ufjit::from_dlpack(nullptr), ufjit::InputError); }

struct Rejected {
  const char *name;
  TensorSpec spec;
  const char *message;  // a substring of what()
};

std::vector<Rejected> rejected_tensors() {
  std::vector<Rejected> cases;
  auto add = [&](const char *name, const char *message, auto edit) {
    TensorSpec spec;
    spec.shape = {4};
    edit(spec);
    cases.push_back({name, spec, message});
  };
  add("opencl", "device type 4", [](TensorSpec &s) { s.device = {kDLOpenCL, 0}; });
  add("rocm", "device type 10", [](TensorSpec &s) { s.device = {kDLROCM, 0}; });
  add("managed", "device type 13", [](TensorSpec &s) { s.device = {kDLCUDAManaged, 0}; });
  add("negative device", "negative CUDA device id", [](TensorSpec &s) { s.device = {kDLCUDA, -1}; });
  add("bfloat16", "code 4, bits 16", [](TensorSpec &s) { s.dtype = {kDLBfloat, 16, 1}; });
  add("two lanes", "lanes 2", [](TensorSpec &s) { s.dtype = {kDLFloat, 32, 2}; });
  add("float8", "bits 8", [](TensorSpec &s) { s.dtype = {kDLFloat, 8, 1}; });
  add("int128", "bits 128", [](TensorSpec &s) { s.dtype = {kDLInt, 128, 1}; });
  add("one-bit bool", "bits 1", [](TensorSpec &s) { s.dtype = {kBool, 1, 1}; });
  add("opaque", "code 3", [](TensorSpec &s) { s.dtype = {kDLOpaqueHandle, 64, 1}; });
  add("negative extent", "negative extent", [](TensorSpec &s) { s.shape = {2, -1}; });
  add("null shape", "null shape", [](TensorSpec &s) { s.null_shape = true; });
  add("65 dimensions", "ndim 65 is more than the 64", [](TensorSpec &s) { s.shape = Shape(65, 1); });
  add("a billion dimensions", "ndim 1000000000", [](TensorSpec &s) {
    s.shape = Shape(2, 1);
    s.ndim = 1000000000;  // refused before its extents are read
  });
  add("null data", "null data", [](TensorSpec &s) { s.null_data = true; });
  add("stride overflows in bytes", "overflows", [](TensorSpec &s) {
    s.dtype = {kDLFloat, 64, 1};
    s.strides = Shape{std::numeric_limits<int64_t>::max() / 4};
  });
  add("extent overflows", "overflows", [](TensorSpec &s) {
    s.dtype = {kDLUInt, 8, 1};
    s.shape = {3};
    s.strides = Shape{std::numeric_limits<int64_t>::max() / 2 + 1};
  });
  add("negative stride overflows", "overflows", [](TensorSpec &s) {
    s.dtype = {kDLInt, 32, 1};
    s.strides = Shape{std::numeric_limits<int64_t>::min() / 2};
  });
  add("stride of INT64_MIN bytes", "overflows", [](TensorSpec &s) {
    s.dtype = {kDLUInt, 8, 1};
    s.strides = Shape{std::numeric_limits<int64_t>::min()};
  });
  add("shape overflows", "overflows", [](TensorSpec &s) { s.shape = {int64_t{1} << 40, int64_t{1} << 40}; });
  return cases;
}

TEST(DLPackImport, RejectedTensorsThrowInputErrorAndAreDeletedOnce) {
  for (const Rejected &r : rejected_tensors()) {
    SCOPED_TRACE(r.name);
    int deletions = 0;
    DLManagedTensor *t = make_tensor(r.spec, &deletions);
    try {
      Array a = ufjit::from_dlpack(t);
      ADD_FAILURE() << "accepted";
    } catch (const ufjit::InputError &e) {
      EXPECT_NE(std::string(e.what()).find(r.message), std::string::npos) << e.what();
    }
    EXPECT_EQ(deletions, 1);
  }
}

}  // namespace
