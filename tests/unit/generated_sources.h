// Generated kernel sources shared by the compile-time tests
// (tests/unit/codegen_compile_time_test.cpp), which time them, and the huge
// kernel tests (tests/api/huge_kernel_test.cpp), which check their results.
#pragma once

#include <string>

namespace ufjit::testing {

/// `if x == 0.0: return 1.0`, then `elif x == i: return i + 1` up to n - 1,
/// else -1.
inline std::string elif_chain_of_returns(int n) {
  std::string s = "@vectorize(['float64(float64)'])\ndef k(x):\n    if x == 0.0:\n        return 1.0\n";
  for (int i = 1; i < n; ++i) {
    s += "    elif x == " + std::to_string(i) + ".0:\n        return " + std::to_string(i + 1) + ".0\n";
  }
  return s + "    return -1.0\n";
}

/// An elif chain of tuple assignments in two nested `range(2)` loops (the
/// optimizer unrolls them into four chains): for x + a == i, (p, q) become
/// (i, q + i % 3) ((1, 2) for 0), and t accumulates t * 2 + p - q.
inline std::string nested_loop_tuple_chain(int n) {
  std::string s =
      "@vectorize(['float64(float64)'])\ndef k(x):\n    t = 0.0\n    for a in range(2):\n        for c in range(2):\n"
      "            p, q = 0.0, 1.0\n            if x + a == 0.0:\n                p, q = 1.0, 2.0\n";
  for (int i = 1; i < n; ++i) {
    s += "            elif x + a == " + std::to_string(i) + ".0:\n                p, q = " + std::to_string(i) +
         ".0, q + " + std::to_string(i % 3) + ".0\n";
  }
  return s + "            t = t * 2.0 + p - q\n    return t\n";
}

/// `float64(float64, int64)` k(a, m): locals x1 .. xn start at 0, then m
/// times `x1 = x2 + 1; x2 = x3 + 1; ...; xn = a`, each link reading the value
/// the next one had in the previous iteration; returns x1. Inference settles
/// the chain's types last link first (x1 reads x2 before x2 is typed).
/// For m >= n, k is a + n - 1; for m < n, m.
inline std::string reverse_assignment_chain_in_a_loop(int n) {
  std::string s = "@vectorize(['float64(float64, int64)'])\ndef k(a, m):\n";
  for (int i = 1; i <= n; ++i) s += "    x" + std::to_string(i) + " = 0\n";
  s += "    for i in range(m):\n";
  for (int i = 1; i < n; ++i)
    s += "        x" + std::to_string(i) + " = x" + std::to_string(i + 1) + " + 1\n";
  return s + "        x" + std::to_string(n) + " = a\n    return x1\n";
}

/// `float64(float64, int64)` k(x, m): n locals v_i = i % 3, then m times,
/// for each i, `if r > i % 5: v_i = v_(7i mod n) * 0.5 + x` (r the loop
/// counter); returns the sum of v_i * (i % 4 + 1). A loop carrying n locals,
/// each updated under its own `if`.
inline std::string loop_carrying_many_locals(int n) {
  std::string s = "@vectorize(['float64(float64, int64)'])\ndef k(x, m):\n";
  for (int i = 0; i < n; ++i) s += "    v" + std::to_string(i) + " = " + std::to_string(i % 3) + ".0\n";
  s += "    for r in range(m):\n";
  for (int i = 0; i < n; ++i) {
    s += "        if r > " + std::to_string(i % 5) + ":\n            v" + std::to_string(i) + " = v" +
         std::to_string(static_cast<long long>(i) * 7 % n) + " * 0.5 + x\n";
  }
  s += "    return 0.0";
  for (int i = 0; i < n; ++i) s += " + v" + std::to_string(i) + " * " + std::to_string(i % 4 + 1) + ".0";
  return s + "\n";
}

}  // namespace ufjit::testing
