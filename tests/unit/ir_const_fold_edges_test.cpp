// Constant folding at the edges of the 128-bit weak-int range and of double
// -> int conversions. Each case once hit undefined behaviour in the typer
// (found by the front-end fuzzer, tests/fuzz): now an overflow past 128 bits
// is a located diagnostic, and values that fit fold as Python computes them.
#include <gtest/gtest.h>

#include "ir_test_util.h"

namespace ufjit::irtest {
namespace {

/// Line 1 is the decorator, line 2 the def, the body starts on line 3.
std::string ufunc(const std::string &sig, const std::string &params, const std::string &body) {
  return "@vectorize([\"" + sig + "\"])\ndef f(" + params + "):\n" + body;
}

/// -(2**127), the most negative weak int, spelled so that every step fits.
const std::string kInt128Min = "(-2**126 - 2**126)";

const char kOverflow[] = "integer constant overflows 128 bits in a constant expression";

#define EXPECT_ERROR(messages, expected) \
  EXPECT_TRUE(contains(messages, expected)) << "expected: " << (expected) << "\nactual:\n" << (messages)

/// The printed IR of a source that must type clean.
std::string clean_ir(const std::string &src) {
  std::string messages;
  std::string ir = ir_text(src, 0, &messages);
  EXPECT_FALSE(ir.empty()) << "diagnostics:\n" << messages << "source:\n" << src;
  return ir;
}

TEST(TyperConstFold, FloorDivisionOfMostNegativeIntByMinusOneOverflows) {
  // Python: -(2**127) // -1 == 2**127, one past the largest 128-bit int.
  std::unique_ptr<Typed> t = type_source(ufunc("int64(int64)", "x", "    return x + " + kInt128Min + " // -1\n"));
  EXPECT_FALSE(t->program.has_value());
  EXPECT_ERROR(t->messages, kOverflow);
}

TEST(TyperConstFold, ModuloOfMostNegativeIntByMinusOneIsZero) {
  // Python: -(2**127) % -1 == 0; the == folds to True only if the remainder is 0.
  std::string ir = clean_ir(ufunc("bool(int64)", "x", "    return " + kInt128Min + " % -1 == 0\n"));
  EXPECT_TRUE(contains(ir, "return True")) << ir;
}

TEST(TyperConstFold, LeftShiftPast128BitsOverflows) {
  // 5 << 125 == 5 * 2**125 > 2**127 - 1.
  std::unique_ptr<Typed> t = type_source(ufunc("int64(int64)", "x", "    return x + (5 << 125)\n"));
  EXPECT_FALSE(t->program.has_value());
  EXPECT_ERROR(t->messages, kOverflow);
}

TEST(TyperConstFold, LeftShiftThatFitsFoldsExactly) {
  // 3 << 125 == 2**126 + 2**125 and -4 << 125 == -(2**127): both fit 128 bits.
  std::string ir = clean_ir(ufunc("bool(int64)", "x", "    return (3 << 125) == 2**126 + 2**125\n"));
  EXPECT_TRUE(contains(ir, "return True")) << ir;
  ir = clean_ir(ufunc("bool(int64)", "x", "    return (-4 << 125) == " + kInt128Min + "\n"));
  EXPECT_TRUE(contains(ir, "return True")) << ir;
  // Shifting by 126 still fits for 1, -1 and -2: -2 << 126 == -(2**127).
  ir = clean_ir(ufunc("bool(int64)", "x", "    return (-2 << 126) == " + kInt128Min + "\n"));
  EXPECT_TRUE(contains(ir, "return True")) << ir;
}

TEST(TyperConstFold, IntTrueDivisionRoundsTheExactQuotientOnce) {
  // Python's values; dividing the operands rounded to doubles first gave
  // 13496594693619.654 and 3937326247322.909 (two roundings).
  std::string ir = clean_ir(ufunc(
      "float64(float64)", "x", "    return x + 7583925510670593843 / 561914 + 354843653387482572 / 90123\n"));
  EXPECT_TRUE(contains(ir, "(x + 13496594693619.652:float64) + 3937326247322.9097:float64")) << ir;
  // 128-bit operands, and the signs of a zero quotient as in Python.
  ir = clean_ir(ufunc("float64(float64)", "x", "    return x + " + kInt128Min + " / 7\n"));
  EXPECT_TRUE(contains(ir, "-2.4305883351495603e+37")) << ir;
  ir = clean_ir(ufunc("float64(float64)", "x", "    return x * (0 / -5)\n"));
  EXPECT_TRUE(contains(ir, "-0.0")) << ir;
}

TEST(TyperConstFold, ComplexPowerFoldsAsPython) {
  // Python's values: an integral exponent up to 100 by products (std::pow's
  // exp(y * log(x)) folded 0j ** 0 to nan+nanj and 1j ** 2 to -1+1.2e-16j).
  std::string ir =
      clean_ir(ufunc("complex128(complex128)", "x",
                     "    return x + 0j ** 0 + (1+1j) ** 2 + 1j ** 2 + (1+2j) ** 3 + (1+1j) ** -3\n"));
  EXPECT_TRUE(contains(ir,
                       "(x + (1.0+0.0j):complex128) + (0.0+2.0j):complex128) + (-1.0+0.0j):complex128) + "
                       "(-11.0-2.0j):complex128) + (-0.25-0.25j):complex128)"))
      << ir;
  // The polar form otherwise, as CPython's _Py_c_pow; a negative float to a
  // fractional power is complex.
  ir = clean_ir(
      ufunc("complex128(complex128)", "x", "    return x + (2+3j) ** (0.5+0.25j) + (-8.0) ** (1/3)\n"));
  EXPECT_TRUE(contains(ir, "(1.021862099108743+1.077761761853879j)")) << ir;
  EXPECT_TRUE(contains(ir, "(1.0000000000000002+1.7320508075688772j)")) << ir;
}

TEST(TyperConstFold, Complex64ProductsAndQuotientsOfConstantsRoundEachStepToFloat32) {
  // NumPy's complex64 product, and the generated code's quotient (CPython's
  // Smith method), round each operation to float32; in double and rounded
  // once, both parts of these were 1 ulp off (-51.523808, 0.26745164).
  const std::string ir = clean_ir(
      "import numpy as np\n"
      "P = np.complex64(4/7 + 15j/7) * np.complex64(82/3 + 94j/3)\n"
      "Q = np.complex64(8 + 4j) / np.complex64(20/3 + 22j)\n"
      "@vectorize(['complex64(complex64)'])\ndef f(x):\n    return x * P + Q\n");
  EXPECT_TRUE(contains(ir, "(-51.523804+76.47619j):complex64")) << ir;
  EXPECT_TRUE(contains(ir, "(0.2674516-0.28259042j):complex64")) << ir;
}

TEST(TyperConstFold, ZeroToANegativeIntPowerIsAnErrorAsInPython) {
  // Python raises ZeroDivisionError; this once folded to a float64 inf that
  // silently turned an int64 kernel's arithmetic into float64.
  std::unique_ptr<Typed> t = type_source(ufunc("int64(int64)", "x", "    return x + 0 ** -1\n"));
  EXPECT_FALSE(t->program.has_value());
  EXPECT_ERROR(t->messages, "3:18: 0.0 cannot be raised to a negative power in a constant expression");
  // Other negative powers of ints fold as Python does, to a float.
  const std::string ir = clean_ir(ufunc("bool(int64)", "x", "    return 2 ** -1 == 0.5\n"));
  EXPECT_TRUE(contains(ir, "return True")) << ir;
}

TEST(TyperConstFold, NegatingMostNegativeIntOverflows) {
  std::unique_ptr<Typed> t = type_source(ufunc("int64(int64)", "x", "    return x + -" + kInt128Min + "\n"));
  EXPECT_FALSE(t->program.has_value());
  EXPECT_ERROR(t->messages, "3:16: " + std::string(kOverflow));
}

TEST(TyperConstFold, AbsOfMostNegativeIntOverflows) {
  std::unique_ptr<Typed> t = type_source(ufunc("int64(int64)", "x", "    return x + abs(" + kInt128Min + ")\n"));
  EXPECT_FALSE(t->program.has_value());
  EXPECT_ERROR(t->messages, "3:21: " + std::string(kOverflow));  // the operand inside the parentheses
}

TEST(TyperConstFold, IntOfFloatBeyond128BitsOverflows) {
  std::unique_ptr<Typed> t = type_source(ufunc("int64(int64)", "x", "    return x + int(1e300)\n"));
  EXPECT_FALSE(t->program.has_value());
  EXPECT_ERROR(t->messages, "3:20: " + std::string(kOverflow));
}

TEST(TyperConstFold, RoundOfFloatBeyond128BitsOverflows) {
  std::unique_ptr<Typed> t = type_source(ufunc("int64(int64)", "x", "    return x + round(-1e300)\n"));
  EXPECT_FALSE(t->program.has_value());
  EXPECT_ERROR(t->messages, "3:22: " + std::string(kOverflow));
}

TEST(TyperConstFold, IntOfLargestFloatBelow2To127Folds) {
  // 2.0**127 - 2.0**74 is the largest double below 2**127 (53-bit mantissa).
  std::string ir = clean_ir(ufunc("bool(int64)", "x", "    return int(2.0**127 - 2.0**74) == 2**126 - 2**74 + 2**126\n"));
  EXPECT_TRUE(contains(ir, "return True")) << ir;
}

TEST(TyperConstFold, RoundToMostNegativeNdigitsGivesSignedZero) {
  // Python: round(1.5, n) == 0.0 and round(-1.5, n) == -0.0 for n <= -309.
  std::string ir = clean_ir(ufunc("bool(int64)", "x", "    return round(1.5, " + kInt128Min + ") == 0.0\n"));
  EXPECT_TRUE(contains(ir, "return True")) << ir;
  // The sign survives: math.copysign(1.0, -0.0) == -1.0.
  ir = clean_ir("import math\n" + ufunc("bool(int64)", "x", "    return math.copysign(1.0, round(-1.5, -400)) == -1.0\n"));
  EXPECT_TRUE(contains(ir, "return True")) << ir;
}

TEST(TyperConstFold, RoundOfStrongFloatToMostNegativeNdigitsTypes) {
  std::string ir = clean_ir(ufunc("float64(float64)", "x", "    return round(x, " + kInt128Min + ")\n"));
  EXPECT_TRUE(contains(ir, "rint")) << ir;
}

TEST(TyperConstFold, WeakLocalHoldingMostNegativeIntTypes) {
  // The local's weak values span -(2**127)..1: it types as a strong int64 local.
  std::string ir = clean_ir(ufunc("int64(int64)", "x", "    y = " + kInt128Min + "\n    y = 1\n    return x + y\n"));
  EXPECT_TRUE(contains(ir, "(x + y)")) << ir;
}

}  // namespace
}  // namespace ufjit::irtest
