// A Runtime of several CUDA devices without a GPU: the fake driver of
// tests/fake_cuda/fake_cuda_devices.cpp (two devices) records which device
// each allocation and launch used, and fails a launch that reads memory its
// device may not use, as the hardware would. Kernels never run: these tests
// check placement, routing, copies and errors (docs/guide/cpp.md, "Several GPUs"), not
// results; tests/gpu/gpu_devices_test.cpp checks results on real GPUs.
//
// Run twice by CTest: with peer access between the devices, and with
// `--no-peer` (FakeDevicesNoPeer.*), where the hardware offers none.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/unit/scoped_env.h"
#include "ufjit/kernel.h"
#include "ufjit/ufjit.h"

namespace {

using ufjit::Array;
using ufjit::ArrayView;
using ufjit::Runtime;
using ufjit::RuntimeOptions;

/// The fake driver's record, read through its extra entry points.
struct FakeDriver {
  int (*launches)(int device) = nullptr;
  int (*device_of)(const void *ptr) = nullptr;
  int (*peer_enabled)(int from, int to) = nullptr;
  void (*reset_launches)() = nullptr;
};

FakeDriver &fake() {
  static FakeDriver driver = [] {
    // Loaded by path before ufjit's dlopen("libcuda.so.1"), which then finds
    // this library by its soname.
    void *handle = dlopen(FAKE_CUDA_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      std::fprintf(stderr, "cannot load the fake driver: %s\n", dlerror());
      std::abort();
    }
    FakeDriver d;
    d.launches = reinterpret_cast<int (*)(int)>(dlsym(handle, "fake_cuda_launches"));
    d.device_of = reinterpret_cast<int (*)(const void *)>(dlsym(handle, "fake_cuda_device_of"));
    d.peer_enabled = reinterpret_cast<int (*)(int, int)>(dlsym(handle, "fake_cuda_peer_enabled"));
    d.reset_launches = reinterpret_cast<void (*)()>(dlsym(handle, "fake_cuda_reset_launches"));
    return d;
  }();
  return driver;
}

constexpr const char *kAdd = R"UFN(
@vectorize(["float32(float32, float32)"])
def add(x, y):
    return x + y
)UFN";

constexpr const char *kCopy = R"UFN(
from numba import cuda

@cuda.jit("void(float32[:], float32[:])")
def copy(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i]
)UFN";

constexpr const char *kRowSum = R"UFN(
from numba import guvectorize

@guvectorize(["void(float32[:], float32[:])"], "(n)->()")
def row_sum(x, out):
    acc = 0.0
    for k in range(x.shape[0]):
        acc += x[k]
    out[0] = acc
)UFN";

RuntimeOptions two_devices() {
  RuntimeOptions options;
  options.target = ufjit::TargetKind::Cuda;
  options.devices = {0, 1};
  return options;
}

/// The message of the InputError `f` throws ("" and a failure if none).
template <typename F>
std::string input_error(F f) {
  try {
    f();
  } catch (const ufjit::InputError &e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

class FakeDevices : public ::testing::Test {
 protected:
  void SetUp() override { fake().reset_launches(); }
  std::vector<float> host_ = std::vector<float>(1000, 1.0f);
};

TEST_F(FakeDevices, TheDefaultRuntimeHoldsOneDevice) {
  Runtime rt(RuntimeOptions{.target = ufjit::TargetKind::Cuda});
  EXPECT_EQ(rt.devices(), std::vector<int>{0});
  Array a = rt.to_device(host_);
  EXPECT_EQ(a.view().device, 0);
  EXPECT_EQ(fake().device_of(a.data()), 0);
}

TEST_F(FakeDevices, ATwoDeviceRuntimeListsBothWithTheFirstAsDefault) {
  Runtime rt(two_devices());
  EXPECT_EQ(rt.devices(), (std::vector<int>{0, 1}));
  RuntimeOptions reversed = two_devices();
  reversed.devices = {1, 0};
  Runtime rt10(reversed);
  EXPECT_EQ(rt10.devices(), (std::vector<int>{1, 0}));
  Array a = rt10.to_device(host_);
  EXPECT_EQ(fake().device_of(a.data()), 1);
}

TEST_F(FakeDevices, AllDevicesIsEveryDeviceOfTheHost) {
  RuntimeOptions options = two_devices();
  options.devices = {ufjit::kAllDevices};
  Runtime rt(options);
  EXPECT_EQ(rt.devices(), (std::vector<int>{0, 1}));
}

TEST_F(FakeDevices, UfjitDevicesChoosesTheSet) {
  {
    ufjit::testing::ScopedEnv env("UFJIT_DEVICES", "all");
    Runtime all(RuntimeOptions{.target = ufjit::TargetKind::Cuda});
    EXPECT_EQ(all.devices(), (std::vector<int>{0, 1}));
  }
  {
    ufjit::testing::ScopedEnv env("UFJIT_DEVICES", "1");
    Runtime one(two_devices());  // the variable wins over the option
    EXPECT_EQ(one.devices(), std::vector<int>{1});
  }
  ufjit::testing::ScopedEnv env("UFJIT_DEVICES", "0,x");
  const std::string message =
      input_error([] { Runtime bad(RuntimeOptions{.target = ufjit::TargetKind::Cpu}); });
  EXPECT_NE(message.find("UFJIT_DEVICES='0,x'"), std::string::npos) << message;
}

TEST_F(FakeDevices, ABadDeviceSetIsRefusedWhenTheRuntimeIsMade) {
  RuntimeOptions twice = two_devices();
  twice.devices = {0, 0};
  EXPECT_NE(input_error([&] { Runtime rt(twice); }).find("device 0 twice"), std::string::npos);
  RuntimeOptions negative;
  negative.target = ufjit::TargetKind::Cpu;  // checked even where no GPU is used
  negative.devices = {-3};
  EXPECT_NE(input_error([&] { Runtime rt(negative); }).find("RuntimeOptions::devices holds -3"),
            std::string::npos);
  RuntimeOptions mixed = two_devices();
  mixed.devices = {ufjit::kAllDevices, 1};
  EXPECT_NE(input_error([&] { Runtime rt(mixed); }).find("kAllDevices with other devices"),
            std::string::npos);
  RuntimeOptions absent = two_devices();
  absent.devices = {0, 5};
  EXPECT_THROW(Runtime rt(absent), ufjit::NoDeviceError);
}

TEST_F(FakeDevices, ToDeviceAndDeviceEmptyAllocateOnTheAskedDevice) {
  Runtime rt(two_devices());
  Array a = rt.to_device(host_, 1);
  EXPECT_EQ(a.view().device, 1);
  EXPECT_EQ(fake().device_of(a.data()), 1);
  Array e = rt.device_empty(ufjit::DType::Float32, {10}, 1);
  EXPECT_EQ(e.view().device, 1);
  EXPECT_EQ(fake().device_of(e.data()), 1);
  Array d = rt.device_empty(ufjit::DType::Float32, {10});
  EXPECT_EQ(fake().device_of(d.data()), 0);
  Array back = rt.to_host(a.view());
  EXPECT_EQ(back.view().residence, ufjit::Residence::Host);
  EXPECT_EQ(std::memcmp(back.data(), host_.data(), host_.size() * sizeof(float)), 0);  // copies are real
}

TEST_F(FakeDevices, TheDeviceOfAPointerIsTheDriversAnswer) {
  Runtime rt(two_devices());
  Array a = rt.to_device(host_, 1);
  EXPECT_EQ(ufjit::device_of_pointer(a.data()), 1);
  EXPECT_EQ(ufjit::device_of_pointer(rt.to_device(host_, 0).data()), 0);
  EXPECT_EQ(ufjit::device_of_pointer(host_.data()), -1);
  EXPECT_EQ(ufjit::device_of_pointer(nullptr), -1);
}

TEST_F(FakeDevices, AnOrdinalOutsideTheSetIsRefused) {
  Runtime rt(two_devices());
  std::string message = input_error([&] { (void)rt.to_device(host_, 2); });
  EXPECT_NE(message.find("CUDA device 2"), std::string::npos) << message;
  EXPECT_NE(message.find("computes on devices 0, 1"), std::string::npos) << message;
  EXPECT_THROW((void)rt.stream(3), ufjit::InputError);
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array a = rt.to_device(host_, 1);
  ArrayView elsewhere = a.view();
  elsewhere.device = 3;
  message = input_error([&] { (void)add(a.view(), elsewhere); });
  EXPECT_NE(message.find("input 2 of 'add'"), std::string::npos) << message;
  EXPECT_NE(message.find("CUDA device 3"), std::string::npos) << message;
  EXPECT_NE(message.find("RuntimeOptions::devices"), std::string::npos) << message;
  EXPECT_THROW((void)rt.to_host(elsewhere), ufjit::InputError);
}

TEST_F(FakeDevices, ACallOfDevice1OperandsLaunchesOnDevice1) {
  Runtime rt(two_devices());
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array a = rt.to_device(host_, 1);
  Array b = rt.to_device(host_, 1);
  Array c = add(a.view(), b.view());
  EXPECT_EQ(c.view().device, 1);
  EXPECT_EQ(fake().device_of(c.data()), 1);
  for (int k = 0; k < 3; ++k) {
    Array again = add(a.view(), b.view());  // through the call's plan
    EXPECT_EQ(fake().device_of(again.data()), 1);
  }
  EXPECT_EQ(fake().launches(1), 4);
  EXPECT_EQ(fake().launches(0), 0);
  Array d0 = rt.to_device(host_);
  Array c0 = add(d0.view(), d0.view());  // the same ufunc, back on the default device
  EXPECT_EQ(fake().device_of(c0.data()), 0);
  EXPECT_EQ(fake().launches(0), 1);
}

TEST_F(FakeDevices, AGufuncCallAndAMethodOfDevice1OperandsLaunchOnDevice1) {
  Runtime rt(two_devices());
  ufjit::Ufunc row_sum = rt.vectorize(kRowSum);
  Array flat = rt.to_device(host_, 1);
  ArrayView rows = flat.view();
  rows.shape = {10, 100};
  rows.strides = ArrayView::c_strides(rows.shape, sizeof(float));
  Array sums = row_sum(rows);
  EXPECT_EQ(sums.view().device, 1);
  EXPECT_EQ(fake().device_of(sums.data()), 1);
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array running = add.accumulate(rows, {.axis = 1});
  EXPECT_EQ(fake().device_of(running.data()), 1);
  EXPECT_GE(fake().launches(1), 2);
  EXPECT_EQ(fake().launches(0), 0);
}

TEST_F(FakeDevices, HostOperandsRunOnTheDefaultDevice) {
  RuntimeOptions options = two_devices();
  options.devices = {1, 0};
  Runtime rt(options);
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array c = add(ufjit::view(host_), ufjit::view(host_));
  EXPECT_EQ(c.view().residence, ufjit::Residence::Host);
  EXPECT_EQ(fake().launches(1), 1);
  EXPECT_EQ(fake().launches(0), 0);
}

TEST_F(FakeDevices, ALargeCallOfHostArraysRunsAPartOnEveryDevice) {
  Runtime rt(two_devices());
  ufjit::Ufunc add = rt.vectorize(kAdd);
  ufjit::Ufunc row_sum = rt.vectorize(kRowSum);
  const std::vector<float> large(std::size_t{3} << 20, 1.0f);  // 3 * 2^20: above the split threshold
  Array c = add(ufjit::view(large), ufjit::view(large));  // each part staged to its device, or the fake fails it
  EXPECT_EQ(c.view().residence, ufjit::Residence::Host);
  EXPECT_GE(fake().launches(0), 1);  // a launch per staged chunk
  EXPECT_GE(fake().launches(1), 1);
  fake().reset_launches();
  ArrayView rows = ufjit::view(large);
  rows.shape = {int64_t{3} << 19, 2};
  rows.strides = {8, 4};
  Array sums = row_sum(rows);  // 1.5 * 2^20 outer elements
  EXPECT_EQ(sums.view().shape, (ufjit::Dims{int64_t{3} << 19}));
  EXPECT_EQ(fake().launches(0), 1);
  EXPECT_EQ(fake().launches(1), 1);
}

TEST_F(FakeDevices, ASmallCallOrOneOfDeviceArraysRunsOnOneDevice) {
  Runtime rt(two_devices());
  ufjit::Ufunc add = rt.vectorize(kAdd);
  (void)add(ufjit::view(host_), ufjit::view(host_));
  EXPECT_EQ(fake().launches(0), 1);
  EXPECT_EQ(fake().launches(1), 0);
  const std::vector<float> large(std::size_t{3} << 20, 1.0f);
  Array a = rt.to_device(large, 1);
  (void)add(a.view(), a.view());
  EXPECT_EQ(fake().launches(0), 1);
  EXPECT_EQ(fake().launches(1), 1);
  Runtime one(RuntimeOptions{.target = ufjit::TargetKind::Cuda});
  fake().reset_launches();
  (void)one.vectorize(kAdd)(ufjit::view(large), ufjit::view(large));
  EXPECT_GE(fake().launches(0), 1);
  EXPECT_EQ(fake().launches(1), 0);
}

TEST_F(FakeDevices, OutDecidesTheDeviceOfACall) {
  Runtime rt(two_devices());
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array a = rt.to_device(host_, 0);
  Array out = rt.device_empty(ufjit::DType::Float32, {1000}, 1);
  (void)add(a.view(), a.view(), ufjit::out(out.view()));
  EXPECT_EQ(fake().launches(1), 1);
  EXPECT_EQ(fake().launches(0), 0);
}

TEST_F(FakeDevices, MixedDevicesWithPeerAccessAreReadInPlace) {
  Runtime rt(two_devices());
  EXPECT_EQ(fake().peer_enabled(0, 1), 1);
  EXPECT_EQ(fake().peer_enabled(1, 0), 1);
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array a = rt.to_device(host_, 0);
  Array b = rt.to_device(host_, 1);
  Array c = add(a.view(), b.view());  // the fake fails a launch reading memory it may not
  EXPECT_EQ(fake().device_of(c.data()), 0);
  EXPECT_EQ(fake().launches(0), 1);
  Array r = add.reduce(b.view());
  EXPECT_EQ(r.view().device, 1);
  EXPECT_GE(fake().launches(1), 1);
}

TEST_F(FakeDevices, AnAsyncCallRunsOnItsStreamsDevice) {
  Runtime rt(two_devices());
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array a = rt.to_device(host_, 1);
  Array out = rt.device_empty(ufjit::DType::Float32, {1000}, 1);
  ufjit::Stream s1 = rt.stream(1);
  add.async(s1, a.view(), a.view(), ufjit::out(out.view()));
  s1.synchronize();
  EXPECT_EQ(fake().launches(1), 1);
  ufjit::Stream s0 = rt.stream(0);
  add.async(s0, a.view(), a.view(), ufjit::out(out.view()));  // device 0 uses device 1's memory as a peer
  s0.synchronize();
  EXPECT_EQ(fake().launches(0), 1);
  ufjit::Stream borrowed = rt.borrow_stream(s1.handle());  // another library's stream of device 1
  add.async(borrowed, a.view(), a.view(), ufjit::out(out.view()));
  EXPECT_EQ(fake().launches(1), 2);
}

TEST_F(FakeDevices, AKernelLaunchRunsOnTheDeviceOfItsArraysOrTheOneAskedFor) {
  Runtime rt(two_devices());
  ufjit::Kernel copy = rt.kernel(kCopy);
  Array x = rt.to_device(host_, 1);
  Array y = rt.device_empty(ufjit::DType::Float32, {1000}, 1);
  copy({.grid = 4, .block = 256}, x.view(), y.view());
  EXPECT_EQ(fake().launches(1), 1);
  copy({.grid = 4, .block = 256, .device = 0}, x.view(), y.view());  // peer access
  EXPECT_EQ(fake().launches(0), 1);
  const std::string message =
      input_error([&] { copy({.grid = 4, .block = 256, .device = 4}, x.view(), y.view()); });
  EXPECT_NE(message.find("CUDA device 4"), std::string::npos) << message;
}

// ---- FAKE_CUDA_PEER=0: the hardware offers no peer access

class FakeDevicesNoPeer : public FakeDevices {};

TEST_F(FakeDevicesNoPeer, NoPeerAccessIsEnabled) {
  Runtime rt(two_devices());
  EXPECT_EQ(fake().peer_enabled(0, 1), 0);
  EXPECT_EQ(fake().peer_enabled(1, 0), 0);
}

TEST_F(FakeDevicesNoPeer, AnInputOfAnotherDeviceIsCopiedToTheCallsDevice) {
  Runtime rt(two_devices());
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array a = rt.to_device(host_, 0);
  Array b = rt.to_device(host_, 1);
  Array c = add(a.view(), b.view());  // the fake fails a launch reading device 1 from device 0
  EXPECT_EQ(fake().device_of(c.data()), 0);
  EXPECT_EQ(fake().launches(0), 1);
  EXPECT_EQ(fake().launches(1), 0);
}

TEST_F(FakeDevicesNoPeer, AnOutputOrAsyncOperandOfAnotherDeviceIsRefused) {
  Runtime rt(two_devices());
  ufjit::Ufunc add = rt.vectorize(kAdd);
  Array a = rt.to_device(host_, 0);
  Array b = rt.to_device(host_, 1);
  ufjit::Stream s0 = rt.stream(0);
  std::string message = input_error([&] { add.async(s0, a.view(), a.view(), ufjit::out(b.view())); });
  EXPECT_NE(message.find("out of 'add'"), std::string::npos) << message;
  EXPECT_NE(message.find("CUDA device 1"), std::string::npos) << message;
  EXPECT_NE(message.find("computes on device 0"), std::string::npos) << message;
  EXPECT_NE(message.find("no peer access"), std::string::npos) << message;
  message = input_error([&] { add.async(s0, b.view(), a.view(), ufjit::out(a.view())); });
  EXPECT_NE(message.find("input 1 of 'add'"), std::string::npos) << message;
  ufjit::Kernel copy = rt.kernel(kCopy);
  message = input_error([&] { copy({.grid = 4, .block = 256}, a.view(), b.view()); });
  EXPECT_NE(message.find("argument 'out'"), std::string::npos) << message;
  Array sum = rt.device_empty(ufjit::DType::Float32, {}, 0);
  message = input_error([&] { (void)add.reduce(b.view(), {}, ufjit::out(sum.view())); });
  EXPECT_NE(message.find("the array of 'add'.reduce"), std::string::npos) << message;
  EXPECT_NE(message.find("computes on device 0"), std::string::npos) << message;
  EXPECT_EQ(fake().launches(0) + fake().launches(1), 0);
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-peer") == 0) {
      setenv("FAKE_CUDA_PEER", "0", 1);
      continue;
    }
    args.push_back(argv[i]);
  }
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  setenv("UFJIT_WARMUP", "0", 1);
  setenv("UFJIT_CACHE", "0", 1);
  unsetenv("UFJIT_DEVICE");
  unsetenv("UFJIT_DEVICES");
  unsetenv("UFJIT_TARGET");
  (void)fake();
  int count = static_cast<int>(args.size());
  ::testing::InitGoogleTest(&count, args.data());
  return RUN_ALL_TESTS();
}
