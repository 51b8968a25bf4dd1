// Kernels whose function has more than kHugeFunctionBlocks blocks, which the
// compiler cuts into functions of bounded size before optimizing them
// (codegen/HugeFunctions.h, outline_huge_regions): each shape of control
// flow must keep its exact results. Through the C++ API on the default
// target (UFJIT_TARGET=cuda runs this suite on the GPU); the expected values
// come from plain loops here.
#include <gtest/gtest.h>
#include <ufjit/ufjit.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/generated_sources.h"

namespace {

class HugeKernel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { rt_ = std::make_unique<ufjit::Runtime>(); }
  static void TearDownTestSuite() { rt_.reset(); }

  /// `source`'s ufunc applied to `x`, back on the host.
  static std::vector<double> apply(const std::string &source, const std::vector<double> &x) {
    ufjit::Ufunc f = rt_->vectorize(source);
    return rt_->to_host(f(x).view()).to_vector<double>();
  }

  static std::unique_ptr<ufjit::Runtime> rt_;
};
std::unique_ptr<ufjit::Runtime> HugeKernel::rt_;

constexpr int kBranches = 3000;  // 6,000 blocks and more: past kHugeFunctionBlocks

/// 0, 1, ..., n + 9, and values on no branch.
std::vector<double> branch_inputs(int n) {
  std::vector<double> x;
  for (int i = 0; i < n + 10; ++i) x.push_back(static_cast<double>(i));
  for (double v : {0.5, -3.0, 1e9}) x.push_back(v);
  return x;
}

bool on_a_branch(double v, int n) { return v >= 0 && v < n && v == std::floor(v); }

TEST_F(HugeKernel, EveryBranchOfAnElifChainOfReturnsGivesItsValue) {
  // Every branch returns: the function's returns are merged into one block
  // before it is cut, so no part returns from the kernel by itself.
  const std::vector<double> x = branch_inputs(kBranches);
  const std::vector<double> got = apply(ufjit::testing::elif_chain_of_returns(kBranches), x);
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], on_a_branch(x[i], kBranches) ? x[i] + 1 : -1.0) << "x = " << x[i];
  }
}

TEST_F(HugeKernel, AReverseOrderedAssignmentChainInALoopCarriesEachLinkOneIteration) {
  // x1 = x2 + 1; ...; xn = a, m times: x1 is a + n - 1 once m >= n, else m.
  constexpr int kLinks = 2000;
  ufjit::Ufunc f = rt_->vectorize(ufjit::testing::reverse_assignment_chain_in_a_loop(kLinks));
  const std::vector<double> a = {0.5, -7.0, 1e6, 3.0, 2.5};
  const std::vector<int64_t> m = {kLinks, kLinks + 5, 3 * kLinks, kLinks - 1, 1};
  const std::vector<double> got = rt_->to_host(f(a, m).view()).to_vector<double>();
  ASSERT_EQ(got.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(got[i], m[i] >= kLinks ? a[i] + kLinks - 1 : static_cast<double>(m[i])) << "m = " << m[i];
  }
}

TEST_F(HugeKernel, ALoopCarryingThousandsOfLocalsKeepsEveryOne) {
  // More locals than the cutting into parts promotes to registers (the rest
  // stay in stack slots), and parts that take their hundreds of values in
  // one struct (codegen/HugeFunctions.cpp).
  constexpr int kLocals = 2000;
  ufjit::Ufunc f = rt_->vectorize(ufjit::testing::loop_carrying_many_locals(kLocals));
  const std::vector<double> x = {0.5, 1.25, -2.0, 3.0};
  const std::vector<int64_t> m = {3, 7, 1, 0};
  const std::vector<double> got = rt_->to_host(f(x, m).view()).to_vector<double>();
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t j = 0; j < x.size(); ++j) {
    std::vector<double> v(kLocals);
    for (int i = 0; i < kLocals; ++i) v[i] = i % 3;
    for (int64_t r = 0; r < m[j]; ++r) {
      for (int i = 0; i < kLocals; ++i) {
        if (r > i % 5) v[i] = v[static_cast<std::size_t>(i) * 7 % kLocals] * 0.5 + x[j];
      }
    }
    double sum = 0.0;
    for (int i = 0; i < kLocals; ++i) sum = sum + v[i] * (i % 4 + 1);
    EXPECT_EQ(got[j], sum) << "x = " << x[j] << ", m = " << m[j];
  }
}

TEST_F(HugeKernel, AnElifChainAssigningTwoVariablesInALoopKeepsBoth) {
  // Two values leave each part (through stack slots), and the parts run once
  // per iteration of the loop around the chain.
  std::string s =
      "@vectorize(['float64(float64)'])\ndef k(x):\n    total = 0.0\n    for r in range(3):\n"
      "        a = -1.0\n        b = 0.5\n        if x + r == 0.0:\n            a = 1.0\n            b = 2.0\n";
  for (int i = 1; i < kBranches; ++i) {
    s += "        elif x + r == " + std::to_string(i) + ".0:\n            a = " + std::to_string(i + 1) +
         ".0\n            b = " + std::to_string(2 * i) + ".0\n";
  }
  s += "        total = total * 3.0 + a - b\n    return total\n";
  const std::vector<double> x = branch_inputs(kBranches);
  const std::vector<double> got = apply(s, x);
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double total = 0;
    for (int r = 0; r < 3; ++r) {
      const double v = x[i] + r;
      const bool hit = on_a_branch(v, kBranches);
      const double a = hit ? v + 1 : -1.0;
      const double b = hit ? (v == 0 ? 2.0 : 2 * v) : 0.5;
      total = total * 3.0 + a - b;
    }
    ASSERT_EQ(got[i], total) << "x = " << x[i];
  }
}

TEST_F(HugeKernel, ElifChainsInsideEveryBranchOfAnElifChainGiveTheirValues) {
  // The typer holds an outer chain's levels while it types each branch's
  // own chain above them (and regrows their storage as it does).
  constexpr int kOuter = 60, kInner = 50;
  std::string s =
      "@vectorize(['float64(float64)'])\ndef k(x):\n    a = x // 100.0\n    b = x % 100.0\n"
      "    y = -1.0\n";
  for (int i = 0; i < kOuter; ++i) {
    s += std::string(i == 0 ? "    if" : "    elif") + " a == " + std::to_string(i) + ".0:\n";
    for (int j = 0; j < kInner; ++j) {
      s += std::string(j == 0 ? "        if" : "        elif") + " b == " + std::to_string(j) +
           ".0:\n            y = " + std::to_string(i * 1000 + j) + ".0\n";
    }
    s += "        else:\n            y = " + std::to_string(-2 - i) + ".0\n";
  }
  s += "    return y\n";
  std::vector<double> x;
  for (int v = 0; v < 100 * (kOuter + 1); v += 7) x.push_back(v);
  const std::vector<double> got = apply(s, x);
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int a = static_cast<int>(x[i]) / 100, b = static_cast<int>(x[i]) % 100;
    const double expected = a >= kOuter ? -1.0 : b < kInner ? a * 1000.0 + b : -2.0 - a;
    ASSERT_EQ(got[i], expected) << "x = " << x[i];
  }
}

TEST_F(HugeKernel, AChainOfTupleAssignmentsInNestedLoopsKeepsBothValues) {
  // The loops unroll into four copies of the chain.
  constexpr int kTupleBranches = 1500;
  const std::vector<double> x = branch_inputs(kTupleBranches);
  const std::vector<double> got = apply(ufjit::testing::nested_loop_tuple_chain(kTupleBranches), x);
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double t = 0;
    for (int a = 0; a < 2; ++a) {
      for (int c = 0; c < 2; ++c) {
        const double v = x[i] + a;
        double p = 0.0, q = 1.0;
        if (v == 0.0) {
          p = 1.0;
          q = 2.0;
        } else if (on_a_branch(v, kTupleBranches)) {
          p = v;
          q = q + static_cast<double>(static_cast<int>(v) % 3);
        }
        t = t * 2.0 + p - q;
      }
    }
    ASSERT_EQ(got[i], t) << "x = " << x[i];
  }
}

TEST_F(HugeKernel, ASequenceOfIfStatementsAddsEveryTermThatApplies) {
  // Not a chain: each `if` merges before the next, so a part's exits are
  // merges nested inside the part above it.
  std::string s = "@vectorize(['float64(float64)'])\ndef k(x):\n    y = 0.0\n";
  for (int i = 0; i < kBranches; ++i) {
    s += "    if x > " + std::to_string(i) + ".0:\n        y = y + " + std::to_string(i % 5 + 1) + ".0\n";
  }
  s += "    return y\n";
  const std::vector<double> x = branch_inputs(kBranches);
  const std::vector<double> got = apply(s, x);
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double y = 0;
    for (int k = 0; k < kBranches; ++k) {
      if (x[i] > k) y += k % 5 + 1;
    }
    ASSERT_EQ(got[i], y) << "x = " << x[i];
  }
}

TEST_F(HugeKernel, ARaiseDeepInAnElifChainStillReportsItsElement) {
  std::string s = "@vectorize(['float64(float64)'])\ndef k(x):\n    y = -1.0\n    if x == 0.0:\n        y = 1.0\n";
  for (int i = 1; i < kBranches; ++i) {
    if (i == kBranches - 7) {
      s += "    elif x == " + std::to_string(i) + ".0:\n        raise ValueError('branch " + std::to_string(i) +
           "')\n";
      continue;
    }
    s += "    elif x == " + std::to_string(i) + ".0:\n        y = " + std::to_string(i + 1) + ".0\n";
  }
  s += "    return y\n";
  ufjit::Ufunc f = rt_->vectorize(s);
  const std::vector<double> fine = {0.0, 5.0, static_cast<double>(kBranches - 1)};
  EXPECT_EQ(rt_->to_host(f(fine).view()).to_vector<double>(),
            (std::vector<double>{1.0, 6.0, static_cast<double>(kBranches)}));
  try {
    f(std::vector<double>{1.0, static_cast<double>(kBranches - 7), 2.0});
    FAIL() << "the raise did not reach the caller";
  } catch (const ufjit::KernelError &e) {
    EXPECT_NE(std::string(e.what()).find("branch " + std::to_string(kBranches - 7)), std::string::npos) << e.what();
  }
}

/// The kernel of BreakContinueAndReturnInALongElifChain: a loop of four
/// iterations adding 1 to t, then an elif chain on x of `n` branches, then
/// 100. Branch k breaks when k % 3 == 0 (k > 0), continues when k % 3 == 1,
/// returns -k when k % 15 == 2, and adds k otherwise; branch 0 adds 0.5.
std::string loop_around_elif_chain(int n) {
  std::string s =
      "@vectorize(['float64(float64)'])\ndef k(x):\n    t = 0.0\n    for i in range(4):\n        t = t + "
      "1.0\n"
      "        if x == 0.0:\n            t = t + 0.5\n";
  for (int k = 1; k < n; ++k) {
    s += "        elif x == " + std::to_string(k) + ".0:\n";
    if (k % 3 == 0) {
      s += "            break\n";
    } else if (k % 3 == 1) {
      s += "            continue\n";
    } else if (k % 15 == 2) {
      s += "            return -" + std::to_string(k) + ".0\n";
    } else {
      s += "            t = t + " + std::to_string(k) + ".0\n";
    }
  }
  return s + "        t = t + 100.0\n    return t\n";
}

double loop_around_elif_chain_value(double x, int n) {
  double t = 0;
  for (int i = 0; i < 4; ++i) {
    t += 1;
    if (!on_a_branch(x, n)) {
      t += 100;
      continue;
    }
    const int k = static_cast<int>(x);
    if (k == 0) {
      t += 0.5;
    } else if (k % 3 == 0) {
      break;
    } else if (k % 3 == 1) {
      continue;
    } else if (k % 15 == 2) {
      return -k;
    } else {
      t += k;
    }
    t += 100;
  }
  return t;
}

TEST_F(HugeKernel, BreakContinueAndReturnInALongElifChainActOnTheLoopAndFunctionAroundIt) {
  // A chain this long is lowered in parts (codegen/lower/LowerParts.cpp): a
  // break, continue or return in a part ends the part, and the code that
  // called it takes the same way out, with the variables the part wrote.
  const std::vector<double> x = branch_inputs(kBranches);
  const std::vector<double> got = apply(loop_around_elif_chain(kBranches), x);
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got[i], loop_around_elif_chain_value(x[i], kBranches)) << "x = " << x[i];
  }
}

/// The pair h_depth returns in the source below: h_0(x) = (x + 1, x)
/// (raising on 1e30), h_k(x) = h_{k-1}(x) + h_{k-1}(0.5 x) element by element.
std::pair<double, double> call_tree_value(int depth, double x) {
  if (depth == 0) return {x + 1.0, x};
  const auto [a, b] = call_tree_value(depth - 1, x);
  const auto [c, d] = call_tree_value(depth - 1, 0.5 * x);
  return {a + c, b + d};
}

TEST_F(HugeKernel, AHelperCallTreeOfAMillionPathsIsCalledNotCopiedAndKeepsItsValuesAndRaises) {
  // Each helper calls the one below twice: inlined everywhere, 2^20 copies
  // of h0 (over a minute to PTX). The larger shared helpers are called
  // instead, returning their tuples and passing the raise flag along.
  constexpr int kDepth = 20;
  std::string s =
      "def h0(x):\n    if x == 1e30:\n        raise ValueError('a leaf saw 1e30')\n    return x + 1.0, x\n";
  for (int k = 1; k <= kDepth; ++k) {
    const std::string below = "h" + std::to_string(k - 1);
    s += "def h" + std::to_string(k) + "(x):\n    a, b = " + below + "(x)\n    c, d = " + below +
         "(0.5 * x)\n    return a + c, b + d\n";
  }
  s += "@vectorize(['float64(float64)'])\ndef k(x):\n    p, q = h" + std::to_string(kDepth) +
       "(x)\n    return p - 0.5 * q\n";
  ufjit::Ufunc f = rt_->vectorize(s);
  const std::vector<double> x = {0.0, 1.0, -3.5, 1e6};
  const std::vector<double> got = rt_->to_host(f(x).view()).to_vector<double>();
  ASSERT_EQ(got.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto [p, q] = call_tree_value(kDepth, x[i]);
    EXPECT_DOUBLE_EQ(got[i], p - 0.5 * q) << "x = " << x[i];
  }
  try {
    f(std::vector<double>{1.0, 1e30});
    FAIL() << "the raise in a called helper did not reach the caller";
  } catch (const ufjit::KernelError &e) {
    EXPECT_NE(std::string(e.what()).find("a leaf saw 1e30"), std::string::npos) << e.what();
  }
}

}  // namespace
