// A kernel with one huge basic block (25,000 statements in a row): its
// blocks are split and compiled without the code generator's optimizations
// (codegen/HugeFunctions.h), and the results must stay exact.
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

}  // namespace
}  // namespace ufjit::gpu_testing
