// A huge elif chain on the GPU: more than kHugeFunctionBlocks blocks, so its
// empty assignment blocks are folded into the merge's phi before code
// generation (codegen/HugeFunctions.h); every branch must still give its own
// value, and the fall-through the default.
#include "gpu_test_util.h"

namespace ufjit::gpu_testing {
namespace {

class GpuHugeElif : public GpuTest {};

TEST_F(GpuHugeElif, EveryBranchOfA2600BranchChainGivesItsValue) {
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
  Array y = f(rt().to_device(x));
  const std::vector<double> got = download<double>(rt(), y.view());
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool on_a_branch = x[i] >= 0 && x[i] < kBranches && x[i] == static_cast<double>(static_cast<int>(x[i]));
    const double expected = on_a_branch ? x[i] + 1.0 : -1.0;
    ASSERT_EQ(got[i], expected) << "x = " << x[i];
  }
}

}  // namespace
}  // namespace ufjit::gpu_testing
