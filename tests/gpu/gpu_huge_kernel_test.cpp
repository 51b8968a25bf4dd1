// Huge kernels (codegen/HugeFunctions.h), whose results must stay exact: one
// huge basic block (25,000 statements in a row), moved into functions of
// bounded size before the optimizer; and a huge elif chain (more than
// kHugeFunctionBlocks blocks), whose empty assignment blocks are folded into
// the merge's phi before code generation; its parts compiled in modules of
// their own (codegen/nvptx/PtxShards.h), with libdevice linked into each.
#include <cmath>
#include <string>
#include <vector>

#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

class GpuHugeKernel : public GpuTest {};

TEST_F(GpuHugeKernel, SplitHugeBlockComputesEveryStatementInOrder) {
  constexpr int kStatements = 25000;
  std::string source = "@vectorize(['float64(float64)'])\ndef k(x):\n    y = x\n";
  for (int i = 0; i < kStatements; ++i) {
    source += "    y = y * x + " + std::to_string(i % 7) + ".5\n";
  }
  source += "    return y\n";
  Ufunc f = rt().vectorize(source);
  std::vector<double> x = random_values<double>(1000, 3, 0.5, 0.99);
  std::vector<double> got = download<double>(rt(), f(rt().to_device(x)).view());
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t e = 0; e < x.size(); ++e) {
    // The same operations in the same order, each rounded (no contraction
    // without fastmath): equal to the last bit.
    double y = x[e];
    for (int i = 0; i < kStatements; ++i) {
      volatile double product = y * x[e];  // never contracted by the host compiler
      y = product + (static_cast<double>(i % 7) + 0.5);
    }
    ASSERT_EQ(got[e], y) << "element " << e << ", x = " << x[e];
  }
}

TEST_F(GpuHugeKernel, EveryBranchOfA2600BranchElifChainGivesItsValue) {
  constexpr int kBranches = 2600;
  std::string source = "@vectorize(['float64(float64)'])\ndef k(x):\n    y = -1.0\n    if x == 0.0:\n        y = 1.0\n";
  for (int i = 1; i < kBranches; ++i) {
    source += "    elif x == " + std::to_string(i) + ".0:\n        y = " + std::to_string(i + 1) + ".0\n";
  }
  source += "    return y\n";
  Ufunc f = rt().vectorize(source);
  std::vector<double> x;
  for (int i = 0; i < kBranches + 50; ++i) x.push_back(static_cast<double>(i));
  x.push_back(0.5);
  x.push_back(-3.0);
  const std::vector<double> got = download<double>(rt(), f(rt().to_device(x)).view());
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool on_a_branch = x[i] >= 0 && x[i] < kBranches && x[i] == static_cast<double>(static_cast<int>(x[i]));
    const double expected = on_a_branch ? x[i] + 1.0 : -1.0;
    ASSERT_EQ(got[i], expected) << "x = " << x[i];
  }
}

TEST_F(GpuHugeKernel, EveryBranchOfALongChainCallingLibdeviceGivesItsValue) {
  // 4,000 branches, lowered in parts: every 250th branch calls sin and
  // cos, so that each part's module links libdevice again.
  constexpr int kBranches = 4000;
  constexpr int kEvery = 250;
  std::string source =
      "import math\n@vectorize(['float64(float64)'])\ndef k(x):\n    y = -1.0\n"
      "    if x == 0.0:\n        y = 1.0\n";
  for (int i = 1; i < kBranches; ++i) {
    const std::string n = std::to_string(i);
    const std::string value =
        i % kEvery == 0 ? "math.sin(x) * math.cos(x) + " + n + ".0" : std::to_string(i + 1) + ".0";
    source += "    elif x == " + n + ".0:\n        y = " + value + "\n";
  }
  source += "    return y\n";
  Ufunc f = rt().vectorize(source);
  std::vector<double> x;
  for (int i = 0; i < kBranches + 10; ++i) x.push_back(static_cast<double>(i));
  x.push_back(0.5);
  const std::vector<double> got = download<double>(rt(), f(rt().to_device(x)).view());
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t e = 0; e < x.size(); ++e) {
    const int i = static_cast<int>(x[e]);
    const bool on_a_branch = x[e] == static_cast<double>(i) && i < kBranches;
    if (on_a_branch && i > 0 && i % kEvery == 0) {
      // libdevice's sin and cos: within 2 ulp each of the host's.
      ASSERT_NEAR(got[e], std::sin(x[e]) * std::cos(x[e]) + i, 1e-12 * i) << "x = " << x[e];
      continue;
    }
    ASSERT_EQ(got[e], on_a_branch ? x[e] + 1.0 : -1.0) << "x = " << x[e];
  }
}

}  // namespace
}  // namespace ufjit::gpu_testing
