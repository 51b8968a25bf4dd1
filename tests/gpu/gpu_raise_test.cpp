// `raise` in kernels on the GPU (LANGUAGE.md section 5, "Errors in kernels"):
// synchronous calls on device arrays report after the call; async calls
// report at their stream's synchronize; the flag of a stream's later call is
// fresh. Expected values computed here.
#include <cmath>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

constexpr const char *kCheckedSqrt = R"src(
import math
from numba import vectorize

@vectorize(["float64(float64)"], target="cuda")
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)
)src";

class GpuRaise : public GpuTest {};

std::vector<double> ramp(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i) * 0.5;
  return x;
}

TEST_F(GpuRaise, SynchronousCallOnDeviceArraysReportsOneRaiseInAMillion) {
  Ufunc f = rt().vectorize(kCheckedSqrt, {}, "checked_sqrt.py");
  std::vector<double> x = ramp(1000001);
  x[999999] = -3.0;
  Array dx = rt().to_device(x);
  try {
    f(dx);
    FAIL() << "no KernelError";
  } catch (const KernelError &e) {
    EXPECT_EQ(e.exception(), "ValueError");
    EXPECT_EQ(e.message(), "negative input");
    EXPECT_EQ(e.line(), 8);
    EXPECT_NE(std::string(e.what()).find("checked_sqrt.py:8:9: ValueError: negative input"), std::string::npos)
        << e.what();
  }
}

TEST_F(GpuRaise, AsyncRaiseIsReportedAtTheStreamSynchronizeAndTheNextCallIsClean) {
  Ufunc f = rt().vectorize(kCheckedSqrt, {}, "checked_sqrt.py");
  const std::size_t n = (1 << 20) + 3;
  std::vector<double> x = ramp(n);
  x[12345] = -1.0;
  Array dbad = rt().to_device(x);
  Array dout = rt().device_empty(DType::Float64, {static_cast<int64_t>(n)});
  Stream stream = rt().stream();
  f.async(stream, dbad, out(dout));
  EXPECT_THROW(stream.synchronize(), KernelError);

  x[12345] = 1.0;
  Array dgood = rt().to_device(x);
  f.async(stream, dgood, out(dout));
  EXPECT_NO_THROW(stream.synchronize());
  std::vector<double> z = download<double>(rt(), dout);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[i], std::sqrt(x[i])) << i;
  }
}

}  // namespace
}  // namespace ufjit::gpu_testing
