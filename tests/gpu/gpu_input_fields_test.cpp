// The public structs' fields on the CUDA target: read-only device memory is
// never written (sync, async, gufunc writable_args, methods), device views
// with fields that are no enumerators are InputErrors before any launch, and
// a malformed UFJIT_DEVICE is an InputError rather than a silent CPU target.
#include <stdlib.h>

#include "gpu_test_util.h"
#include "tests/unit/scoped_env.h"

namespace ufjit::gpu_testing {
namespace {

constexpr const char *kAdd = "def add(a, b):\n    return a + b\n";
// Doubles its input in place (writable_args) and returns the prefix sums.
constexpr const char *kDoubleInPlace = R"src(
from numba import guvectorize

@guvectorize(["void(float64[:], float64[:])"], "(n)->(n)", writable_args=("a",))
def double_in_place(a, sums):
    acc = 0.0
    for i in range(a.shape[0]):
        a[i] *= 2
        acc += a[i]
        sums[i] = acc
)src";

class GpuInputFields : public GpuTest {};

TEST_F(GpuInputFields, AReadOnlyDeviceOutIsRefusedAndLeftUnwritten) {
  Ufunc add = rt().vectorize(kAdd, {"float64(float64, float64)"});
  const std::vector<double> x = {1, 2, 3};
  Array dx = rt().to_device(x);
  Array dout = rt().to_device(std::vector<double>{0, 0, 0});
  ArrayView read_only = dout.view();
  read_only.read_only = true;
  EXPECT_THROW(add(dx, dx, out(read_only)), InputError);
  Stream s = rt().stream();
  EXPECT_THROW(add.async(s, dx, dx, out(read_only)), InputError);
  s.synchronize();
  EXPECT_EQ(download<double>(rt(), dout.view()), (std::vector<double>{0, 0, 0}));
  // The same call writable, then read-only again: the kept plan checks it too.
  add(dx, dx, out(dout));
  EXPECT_THROW(add(dx, dx, out(read_only)), InputError);
  EXPECT_EQ(download<double>(rt(), dout.view()), (std::vector<double>{2, 4, 6}));
}

TEST_F(GpuInputFields, AReadOnlyDeviceWritableArgIsRefused) {
  Ufunc double_in_place = rt().vectorize(kDoubleInPlace);
  Array dx = rt().to_device(std::vector<double>{1, 2, 3});
  ArrayView read_only = dx.view();
  read_only.read_only = true;
  EXPECT_THROW((void)double_in_place.call_all({Operand(read_only)}), InputError);
  EXPECT_EQ(download<double>(rt(), dx.view()), (std::vector<double>{1, 2, 3}));
}

TEST_F(GpuInputFields, AReadOnlyDeviceMethodOutIsRefused) {
  const std::string source = "from numba import vectorize\n\n@vectorize(['float64(float64, float64)'], identity=0)\n"
                             "def add(a, b):\n    return a + b\n";
  Ufunc add = rt().vectorize(source);
  Array dx = rt().to_device(std::vector<double>{1, 2, 3});
  Array dout = rt().to_device(std::vector<double>{0, 0, 0});
  ArrayView read_only = dout.view();
  read_only.read_only = true;
  EXPECT_THROW((void)add.accumulate(dx, {}, out(read_only)), InputError);
  EXPECT_EQ(download<double>(rt(), dout.view()), (std::vector<double>{0, 0, 0}));
}

TEST_F(GpuInputFields, DeviceViewsWithFieldsThatAreNoEnumeratorsAreInputErrors) {
  Ufunc add = rt().vectorize(kAdd, {"float64(float64, float64)"});
  Array dx = rt().to_device(std::vector<double>{1, 2, 3});
  for (int value = kNumDTypes; value <= 255; ++value) {
    ArrayView bad = dx.view();
    bad.dtype = static_cast<DType>(value);
    EXPECT_THROW(add(bad, dx), InputError) << value;
    EXPECT_THROW((void)rt().to_host(bad), InputError) << value;
  }
  for (int value = 2; value <= 255; ++value) {
    ArrayView bad = dx.view();
    bad.residence = static_cast<Residence>(value);
    EXPECT_THROW(add(bad, dx), InputError) << value;
  }
  ArrayView negative = dx.view();
  negative.device = -1;
  EXPECT_THROW(add(negative, dx), InputError);
  EXPECT_THROW((void)rt().device_empty(static_cast<DType>(99), {3}), InputError);
}

TEST(GpuSettings, AMalformedDeviceOrdinalIsAnErrorNotTheCpu) {
  if (!device_info().available) {
    GTEST_SKIP() << "no CUDA device";
  }
  for (const char *junk : {"abc", "-1", "0x0", "99999999999999999999"}) {
    ufjit::testing::ScopedEnv env("UFJIT_DEVICE", junk);
    EXPECT_THROW(Runtime rt, InputError) << junk;
  }
  ufjit::testing::ScopedEnv env("UFJIT_DEVICE", "0");
  Runtime rt;
  EXPECT_EQ(rt.target(), TargetKind::Cuda);
}

}  // namespace
}  // namespace ufjit::gpu_testing
