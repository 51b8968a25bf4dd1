// Typer errors: each construct outside the language or ill-typed gets one
// located message (LANGUAGE.md section 7), every error of a source is
// reported, and nothing is typed when there is an error.
#include <gtest/gtest.h>

#include "ir_test_util.h"

namespace ufjit::irtest {
namespace {

/// "line:col: message" lines of every diagnostic; fails the test if `src` typed clean.
std::string errors_of(const std::string &src, const std::vector<std::string> &sigs = {}) {
  std::unique_ptr<Typed> t = type_source(src, sigs);
  EXPECT_FALSE(t->program.has_value()) << "expected errors in:\n" << src;
  EXPECT_TRUE(t->diags.has_errors());
  return t->messages;
}

/// Line 1 is the decorator, line 2 the def, the body starts on line 3.
std::string ufunc(const std::string &sig, const std::string &params, const std::string &body) {
  return "@vectorize([\"" + sig + "\"])\ndef f(" + params + "):\n" + body;
}

#define EXPECT_ERROR(messages, expected) \
  EXPECT_TRUE(contains(messages, expected)) << "expected: " << (expected) << "\nactual:\n" << (messages)

TEST(TyperErrors, TypeMismatchNamesBothTypes) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    a = x + (x, x)\n    return x\n"));
  EXPECT_ERROR(m, "3:11: cannot add 'float32' and '(float32, float32)'");
}

TEST(TyperErrors, ComplexHasNoFloorDivision) {
  std::string m = errors_of(ufunc("float32(complex64)", "z", "    a = z // 2\n    return 0\n"));
  EXPECT_ERROR(m, "3:11: cannot apply '//' to 'complex64' and 'int'");
}

TEST(TyperErrors, BitwiseOperatorsNeedIntegers) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    return x & 1\n"));
  EXPECT_ERROR(m, "3:14: cannot apply '&' to 'float32' and 'int'");
}

TEST(TyperErrors, ComplexValuesAreNotOrdered) {
  std::string m = errors_of(ufunc("bool(complex64)", "z", "    return z < 1\n"));
  EXPECT_ERROR(m, "3:14: cannot compare 'complex64' and 'int' with '<'");
}

TEST(TyperErrors, UnknownMathFunctionSuggestsTheClosest) {
  std::string m = errors_of("import math\n" + ufunc("float32(float32)", "x", "    return math.exq(x)\n"));
  EXPECT_ERROR(m, "4:17: unknown function 'math.exq'; did you mean 'math.exp'?");
}

TEST(TyperErrors, UnknownNameSuggestsALocal) {
  std::string m = errors_of(ufunc("float32(float32)", "value", "    return valeu + 1\n"));
  EXPECT_ERROR(m, "3:12: unknown name 'valeu'; did you mean 'value'?");
}

TEST(TyperErrors, ReadBeforeAssignmentOnSomePath) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    if x > 0:\n        d = 1\n    return d\n"));
  EXPECT_ERROR(m, "5:12: variable 'd' is used before it is assigned");
}

TEST(TyperErrors, ModuleConstantAssignedInTheFunctionIsALocal) {
  std::string m = errors_of("C = 1\n" + ufunc("float32(float32)", "x", "    y = C + x\n    C = 2\n    return y\n"));
  EXPECT_ERROR(m, "4:9: variable 'C' is used before it is assigned");
}

TEST(TyperErrors, StringsListsAndNoneAreRejected) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    s = 'abc'\n    l = [1]\n    n = None\n    return x\n"));
  EXPECT_ERROR(m, "3:9: strings are not supported in a function body");
  EXPECT_ERROR(m, "4:9: lists are not supported in a function body");
  EXPECT_ERROR(m, "5:9: 'None' is not supported in a function body");
}

TEST(TyperErrors, IsAndInAreRejected) {
  std::string m = errors_of(ufunc("bool(float32)", "x", "    return x is x\n"));
  EXPECT_ERROR(m, "3:14: the 'is' operator is not supported");
}

TEST(TyperErrors, ForOnlyOverRangeOfIntegers) {
  std::string m = errors_of(ufunc("float32(float32)", "x",
                                  "    for i in range(1.5):\n        pass\n    for j in x:\n        pass\n"
                                  "    for k in range(0, 4, 0):\n        pass\n    return x\n"));
  EXPECT_ERROR(m, "3:20: range() arguments must be integers, not 'float'");
  EXPECT_ERROR(m, "5:14: a 'for' loop can only iterate over range(...)");
  EXPECT_ERROR(m, "7:26: range() step must not be zero");
}

TEST(TyperErrors, HelperArityMismatchNamesTheFunctionAndCounts) {
  std::string m = errors_of("def g(a):\n    return a\n" +
                            ufunc("float32(float32)", "x", "    return g(x, 2)\n"));
  EXPECT_ERROR(m, "5:12: function 'g' takes 1 argument but 2 were given");
}

TEST(TyperErrors, DirectRecursionIsAnError) {
  std::string m = errors_of("def g(a):\n    return g(a - 1)\n" + ufunc("float32(float32)", "x", "    return g(x)\n"));
  EXPECT_ERROR(m, "2:12: recursive call of 'g' (g -> g)");
}

TEST(TyperErrors, MutualRecursionNamesTheCycle) {
  std::string m = errors_of("def g(a):\n    return h(a)\ndef h(a):\n    return g(a)\n" +
                            ufunc("float32(float32)", "x", "    return g(x)\n"));
  EXPECT_ERROR(m, "recursive call of 'g' (g -> h -> g)");
}

TEST(TyperErrors, AttributesOnlyRealImagConjugate) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    return x.foo\n"));
  EXPECT_ERROR(m, "3:14: attribute 'foo' is not supported on a value of type 'float32'");
}

TEST(TyperErrors, CallingAVariable) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    return x(1)\n"));
  EXPECT_ERROR(m, "3:12: 'x' is a variable, not a function");
}

TEST(TyperErrors, TupleIndexMustBeAnInRangeConstant) {
  std::string m = errors_of(ufunc("float32(float32, int64)", "x, n",
                                  "    t = (x, x)\n    a = t[2]\n    b = t[n]\n    return x\n"));
  EXPECT_ERROR(m, "4:11: tuple index 2 is out of range for '(float32, float32)'");
  EXPECT_ERROR(m, "5:11: a tuple index must be an integer constant");
}

TEST(TyperErrors, UnpackingCountMismatch) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    a, b = (x, x, x)\n    c, d = x\n    return x\n"));
  EXPECT_ERROR(m, "3:5: cannot unpack a tuple of 3 values into 2 variables");
  EXPECT_ERROR(m, "4:5: cannot unpack a value of type 'float32' into 2 variables");
}

TEST(TyperErrors, UfuncMustReturnAScalar) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    return x, x\n"));
  EXPECT_ERROR(m, "3:12: a ufunc must return a scalar, not '(float32, float32)'");
}

TEST(TyperErrors, MissingReturn) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    if x > 0:\n        return x\n"));
  EXPECT_ERROR(m, "2:5: missing return: function 'f' can reach its end without returning a value");
}

TEST(TyperErrors, BareReturnInAUfunc) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    return\n"));
  EXPECT_ERROR(m, "3:5: a ufunc must return a value");
}

TEST(TyperErrors, SignatureArityMismatchQuotesTheSignature) {
  std::string m = errors_of(ufunc("float32(float32, float32)", "x", "    return x\n"));
  EXPECT_ERROR(m, "1:14: signature 'float32(float32, float32)' has 2 arguments but 'f' takes 1 parameter");
}

TEST(TyperErrors, BareDefWithoutSignatures) {
  std::string m = errors_of("def f(x):\n    return x\n");
  EXPECT_ERROR(m, "1:5: function 'f' has no signatures; signatures are needed");
}

TEST(TyperErrors, OverrideNeedsOneVectorizeFunctionOrABareDef) {
  std::string m = errors_of("from numba import vectorize\n@vectorize(['float32(float32)'])\ndef f(x):\n    return x\n"
                            "@vectorize(['float32(float32)'])\ndef g(x):\n    return x\n",
                            {"float32(float32)"});
  EXPECT_ERROR(m, "exactly one @vectorize function, or undecorated defs (the last is the ufunc)");
}

TEST(TyperErrors, IncompatibleAssignmentsToOneVariable) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    y = x\n    y = (x, x)\n    return x\n"));
  EXPECT_ERROR(m, "variable 'y' is assigned values of incompatible types");
}

TEST(TyperErrors, KeywordArgumentsAreRejected) {
  std::string m = errors_of("import math\n" + ufunc("float32(float32)", "x", "    return math.pow(x, y=2)\n"));
  EXPECT_ERROR(m, "keyword arguments are not supported");
}

TEST(TyperErrors, MathFunctionsRejectComplex) {
  std::string m = errors_of("import math\n" + ufunc("float32(complex64)", "z", "    return math.sqrt(z)\n"));
  EXPECT_ERROR(m, "4:22: math.sqrt() does not accept complex values ('complex64'); use cmath.sqrt()");
}

TEST(TyperErrors, VoidHelperUsedAsAValue) {
  std::string m = errors_of("def g(a):\n    pass\n" + ufunc("float32(float32)", "x", "    y = g(x)\n    return x\n"));
  EXPECT_ERROR(m, "a call that returns no value is assigned to 'y'");
}

TEST(TyperErrors, AllErrorsAreReportedAcrossFunctions) {
  std::string src = "@vectorize([\"float32(float32)\"])\ndef f(x):\n    return x & 1\n"
                    "@vectorize([\"float32(float32)\"])\ndef g(x):\n    return unknown_thing\n";
  std::string m = errors_of(src);
  EXPECT_ERROR(m, "3:14: cannot apply '&'");
  EXPECT_ERROR(m, "6:12: unknown name 'unknown_thing'");
}

TEST(TyperErrors, AnErrorInAHelperSharedBySignaturesIsReportedOnce) {
  std::string src = "def g(a):\n    return a.bar\n"
                    "@vectorize([\"float32(float32)\", \"float64(float64)\"])\ndef f(x):\n    return g(x) + g(x)\n";
  std::unique_ptr<Typed> t = type_source(src);
  EXPECT_FALSE(t->program);
  // Two specialisations (float32, float64) have the error at the same place.
  std::size_t count = 0;
  for (const Diagnostic &d : t->diags.diagnostics()) count += d.loc.line == 2 ? 1 : 0;
  EXPECT_EQ(count, 1u) << t->messages;
}

TEST(TyperErrors, AFailedConstantIsReportedOnceNotAtEachUse) {
  std::string m = errors_of("O = 1 / 0\n" + ufunc("float32(float32)", "x", "    return x + O\n"));
  EXPECT_ERROR(m, "1:7: division by zero in a constant expression");
  EXPECT_FALSE(contains(m, "'O'")) << m;
}

TEST(TyperErrors, BareMathNameWithoutImportSuggestsTheModule) {
  std::string m = errors_of(ufunc("float32(float32)", "x", "    return sqrt(x)\n"));
  EXPECT_ERROR(m, "3:12: unknown function 'sqrt'; did you mean 'math.sqrt'?");
}

TEST(TyperErrors, ModuleConstantMustBeConstant) {
  std::string m = errors_of("X = foo(1)\n" + ufunc("float32(float32)", "x", "    return x\n"));
  EXPECT_ERROR(m, "1:5: unknown function 'foo'");
}

}  // namespace
}  // namespace ufjit::irtest
