// Runtime::borrow_stream: ufjit's async calls on a CUstream the embedder owns
// (CuPy's, PyTorch's, the program's own), which ufjit never destroys.
#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

class BorrowStream : public GpuTest {};

TEST_F(BorrowStream, AsyncCallRunsOnTheBorrowedStreamAndLeavesItAlive) {
  Ufunc add = rt().vectorize(kAddSource);
  std::vector<float> x = random_values<float>(100001, 1, -1.0, 1.0);
  Array dx = rt().to_device(x);
  Array dz = rt().device_empty(DType::Float32, {static_cast<int64_t>(x.size())});
  Stream owner = rt().stream();  // stands for the embedder's stream
  ASSERT_NE(owner.handle(), nullptr);
  {
    Stream borrowed = rt().borrow_stream(owner.handle());
    EXPECT_EQ(borrowed.handle(), owner.handle());
    add.async(borrowed, dx, 1.0f, out(dz));
    borrowed.synchronize();
  }  // the borrowed wrapper is gone; the CUstream must still work
  add.async(owner, dz, 1.0f, out(dz));
  owner.synchronize();
  std::vector<float> got = download<float>(rt(), dz);
  for (std::size_t i = 0; i < x.size(); i += 997) {
    ASSERT_EQ(got[i], (x[i] + 1.0f) + 1.0f) << "i=" << i;
  }
}

TEST_F(BorrowStream, NullIsTheLegacyDefaultStream) {
  Ufunc add = rt().vectorize(kAddSource);
  std::vector<double> x = {1.0, 2.0, 3.0};
  Array dx = rt().to_device(x);
  Array dz = rt().device_empty(DType::Float64, {3});
  Stream legacy = rt().borrow_stream(nullptr);
  EXPECT_EQ(legacy.handle(), nullptr);
  add.async(legacy, dx, dx, out(dz));
  legacy.synchronize();
  EXPECT_EQ(download<double>(rt(), dz), (std::vector<double>{2.0, 4.0, 6.0}));
}

TEST(BorrowStreamNoGpu, IsANoDeviceErrorWithoutAGpu) {
  if (device_info().available) {
    GTEST_SKIP() << "a GPU is present";
  }
  RuntimeOptions options;
  options.target = TargetKind::Cpu;
  Runtime rt(options);
  EXPECT_THROW(rt.borrow_stream(nullptr), NoDeviceError);
}

}  // namespace
}  // namespace ufjit::gpu_testing
