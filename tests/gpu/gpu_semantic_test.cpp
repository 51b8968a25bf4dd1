// The semantic suite (tests/api/semantic_cases.h) on the CUDA target: the
// same table, expected values and per-case ulp tolerances as on the CPU.
#include "gpu_test_util.h"

#if __has_include("../api/semantic_cases.h") && __has_include("../api/semantic_language_cases.h") && \
    __has_include("../api/semantic_math_cases.h")
#include "../api/semantic_cases.h"

namespace ufjit::gpu_testing {
namespace {

class GpuSemantic : public ::testing::TestWithParam<semantic::Case> {
 protected:
  // One Runtime for the whole table: each case compiles its own ufunc anyway.
  static void SetUpTestSuite() {
    DriverInfo info = device_info();
    if (!info.available) {
      skip_reason_ = new std::string("no CUDA device: " + info.reason);
      return;
    }
    RuntimeOptions options;
    options.target = TargetKind::Cuda;
    runtime_ = new Runtime(options);
  }
  static void TearDownTestSuite() {
    delete runtime_;
    runtime_ = nullptr;
    delete skip_reason_;
    skip_reason_ = nullptr;
  }
  void SetUp() override {
    if (runtime_ == nullptr) {
      GTEST_SKIP() << (skip_reason_ != nullptr ? *skip_reason_ : std::string("no CUDA runtime"));
    }
  }
  static Runtime *runtime_;
  static std::string *skip_reason_;
};

Runtime *GpuSemantic::runtime_ = nullptr;
std::string *GpuSemantic::skip_reason_ = nullptr;

TEST_P(GpuSemantic, MatchesTheIndependentReference) {
  semantic::run_case(*runtime_, TargetKind::Cuda, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cuda, GpuSemantic, ::testing::ValuesIn(semantic::all_cases()), semantic::case_name);

}  // namespace
}  // namespace ufjit::gpu_testing

#endif
