// The typer's decisions (LANGUAGE.md sections 2-6): promotion, weak literals,
// local unification, operators, builtins, helpers, and the tutorial kernels.
// Expected types follow NumPy/NEP 50 and Python semantics, stated per test.
#include <gtest/gtest.h>

#include "ir/IRVisitor.h"
#include "ir_test_util.h"

namespace ufjit::irtest {
namespace {

using ir::Type;

/// Types `src` (which must type clean) and returns the module of signature `sig`.
ir::Module module_of(const std::string &src, std::size_t sig = 0) {
  std::unique_ptr<Typed> t = type_source(src);
  EXPECT_TRUE(t->program.has_value()) << "diagnostics:\n" << t->messages << "source:\n" << src;
  if (!t->program || t->program->ufuncs.empty() || t->program->ufuncs[0].modules.size() <= sig) return {};
  return t->program->ufuncs[0].modules[sig];
}

/// The declared type of a local or parameter of the entry function, or "" if absent.
std::string var_type(const ir::Module &m, const std::string &name) {
  if (m.functions.empty()) return "";
  const ir::Function &f = m.entry_function();
  for (const ir::Variable &v : f.params) {
    if (v.name == name) return v.type.str();
  }
  for (const ir::Variable &v : f.locals) {
    if (v.name == name) return v.type.str();
  }
  return "";
}

/// `def f(<params>): <body>` under one signature.
std::string ufunc(const std::string &sig, const std::string &params, const std::string &body) {
  return "import math\nimport cmath\nimport numpy as np\n@vectorize([\"" + sig + "\"])\ndef f(" + params + "):\n" +
         body;
}

TEST(Typer, Float32TimesWeakFloatStaysFloat32) {
  ir::Module m = module_of(ufunc("float32(float32)", "x", "    y = x * 0.5\n    return y\n"));
  EXPECT_EQ(var_type(m, "y"), "float32");
  EXPECT_TRUE(contains(ir::print(m), "y = (x * 0.5:float32)")) << ir::print(m);
}

TEST(Typer, Int32PlusInt64IsInt64) {
  ir::Module m = module_of(ufunc("int64(int32, int64)", "a, b", "    y = a + b\n    return y\n"));
  EXPECT_EQ(var_type(m, "y"), "int64");
  EXPECT_TRUE(contains(ir::print(m), "y = (int64(a) + b)")) << ir::print(m);
}

TEST(Typer, Int8PlusWeakIntStaysInt8) {
  ir::Module m = module_of(ufunc("int8(int8)", "x", "    y = x + 1\n    return y\n"));
  EXPECT_EQ(var_type(m, "y"), "int8");
  EXPECT_TRUE(contains(ir::print(m), "(x + 1:int8)")) << ir::print(m);
}

TEST(Typer, WeakIntThatDoesNotFitFallsBackToInt64) {
  // NEP 50 would raise for uint8 + 300; we widen instead (never a crash).
  ir::Module m = module_of(ufunc("int64(uint8)", "x", "    y = x + 300\n    return y\n"));
  EXPECT_EQ(var_type(m, "y"), "int64");
}

TEST(Typer, TrueDivisionOfIntegersIsFloat64) {
  ir::Module m = module_of(ufunc("float64(int32, int32)", "a, b", "    y = a / b\n    return y\n"));
  EXPECT_EQ(var_type(m, "y"), "float64");
  EXPECT_TRUE(contains(ir::print(m), "(float64(a) / float64(b))")) << ir::print(m);
}

TEST(Typer, WeakLiteralsFollowNep50) {
  ir::Module m = module_of(ufunc("float32(float32, int32)", "x, n",
                                 "    a = n * 2.5\n    b = x + 1\n    c = x + 1j\n    d = n + 1\n    return x\n"));
  EXPECT_EQ(var_type(m, "a"), "float64");    // int32 with a weak float: float64
  EXPECT_EQ(var_type(m, "b"), "float32");    // float32 + 1
  EXPECT_EQ(var_type(m, "c"), "complex64");  // float32 + 1j
  EXPECT_EQ(var_type(m, "d"), "int32");
}

TEST(Typer, StrongOperandsFollowNumPyPromotion) {
  ir::Module m = module_of(ufunc("float64(int64, uint64, int32, float32, float16, int16)", "a, b, c, d, e, g",
                                 "    p = a + b\n    q = c + d\n    r = e + g\n    return p\n"));
  EXPECT_EQ(var_type(m, "p"), "float64");
  EXPECT_EQ(var_type(m, "q"), "float64");
  EXPECT_EQ(var_type(m, "r"), "float32");
}

TEST(Typer, WeakValueAloneBecomesItsDefaultType) {
  ir::Module m = module_of(ufunc("int8(int8)", "x", "    y = 1\n    z = 2.0\n    w = 1j\n    return x + y\n"));
  EXPECT_EQ(var_type(m, "y"), "int64");
  EXPECT_EQ(var_type(m, "z"), "float64");
  EXPECT_EQ(var_type(m, "w"), "complex128");
}

TEST(Typer, LocalTypeUnifiesAllAssignments) {
  ir::Module m = module_of(ufunc("float64(float32, int64)", "x, n",
                                 "    y = 0.0\n    if x > 0:\n        y = x\n    z = x\n    if n > 0:\n"
                                 "        z = n\n    return y + z\n"));
  EXPECT_EQ(var_type(m, "y"), "float32");  // weak 0.0 and float32
  EXPECT_EQ(var_type(m, "z"), "float64");  // float32 and int64
}

TEST(Typer, WeakInitialValueAdaptsToTheLoopCarriedType) {
  // acc holds a weak 0 and float32 sums: NEP 50 unification gives float32.
  ir::Module m = module_of(ufunc("float32(float32, int32)", "x, n",
                                 "    acc = 0\n    for i in range(n):\n        acc = acc + x\n    return acc\n"));
  EXPECT_EQ(var_type(m, "acc"), "float32");
  EXPECT_EQ(var_type(m, "i"), "int32");
  EXPECT_TRUE(contains(ir::print(m), "acc = 0.0:float32")) << ir::print(m);
}

TEST(Typer, LoopCarriedTypeReachesAFixedPoint) {
  // y starts int8 and takes y * 1.5 (float64 for an int8 with a weak float).
  ir::Module m = module_of(ufunc("float64(int8, int32)", "x, n",
                                 "    y = x\n    for i in range(n):\n        y = y * 1.5\n    return y\n"));
  EXPECT_EQ(var_type(m, "y"), "float64");
}

TEST(Typer, ReverseOrderedLoopCarriedChainTakesItsTypeFromTheEnd) {
  // Each link reads the next one, typed later in the body: the types settle
  // from the end of the chain back to its start. y widens from int8 to
  // float64 after x30 read it, and a weak-only counter stays int64.
  std::string body = "    y = x\n    k = 0\n";
  for (int i = 1; i <= 30; ++i) body += "    x" + std::to_string(i) + " = 0\n";
  body += "    for i in range(n):\n";
  for (int i = 1; i < 30; ++i)
    body += "        x" + std::to_string(i) + " = x" + std::to_string(i + 1) + " + 1\n";
  body += "        x30 = y\n        y = y * 1.5\n        k += 1\n    return x1 + k\n";
  ir::Module m = module_of(ufunc("float64(int8, int32)", "x, n", body));
  for (const char *name : {"x1", "x2", "x15", "x29", "x30", "y"})
    EXPECT_EQ(var_type(m, name), "float64") << name;
  EXPECT_EQ(var_type(m, "k"), "int64");

  // With a float32 at the end, the weak ints of the chain adapt to it.
  std::string f32 =
      "    x1 = 0\n    x2 = 0\n    x3 = 0\n    for i in range(n):\n        x1 = x2 + 1\n"
      "        x2 = x3 + 1\n        x3 = x\n    return x1\n";
  ir::Module m32 = module_of(ufunc("float32(float32, int32)", "x, n", f32));
  for (const char *name : {"x1", "x2", "x3"}) EXPECT_EQ(var_type(m32, name), "float32") << name;
}

TEST(Typer, WeakOnlyLocalInALoopTakesTheValuesOfOnePassThroughTheBody) {
  // 300 * 2**40 fits int64; a second multiplication would not. The type must
  // not depend on how often inference goes over the loop, which other
  // statements decide (here a chain that settles last link first).
  const std::string grow = "    v = 300\n    for k in range(n):\n        v *= 1099511627776\n";
  EXPECT_EQ(var_type(module_of(ufunc("float64(int64)", "n", grow + "    return v\n")), "v"), "int64");
  const std::string with_chain =
      "    v = 300\n    a = 0\n    b = 0\n    y = np.int8(n)\n    for k in range(n):\n"
      "        v *= 1099511627776\n        a = b + 1\n        b = y\n        y = y * 1.5\n";
  ir::Module m = module_of(ufunc("float64(int64)", "n", with_chain + "    return v + a\n"));
  EXPECT_EQ(var_type(m, "v"), "int64");
  EXPECT_EQ(var_type(m, "a"), "float64");
  // Folded beyond int64 without a loop, the local is float64.
  const std::string big = "    v = 1099511627776\n    v *= 1099511627776\n    return v\n";
  EXPECT_EQ(var_type(module_of(ufunc("float64(int64)", "n", big)), "v"), "float64");
}

TEST(Typer, LocalWithOnlyWeakValuesIsReadAsItsDefaultType) {
  // n holds only weak ints, so it is int64, and n + x is computed in int64.
  ir::Module m = module_of(ufunc("int64(int8)", "x", "    n = 0\n    n = n + 1\n    y = n + x\n    return y\n"));
  EXPECT_EQ(var_type(m, "n"), "int64");
  EXPECT_EQ(var_type(m, "y"), "int64");
  EXPECT_TRUE(contains(ir::print(m), "y = (n + int64(x))")) << ir::print(m);
}

TEST(Typer, ModuleConstantsAreWeak) {
  std::string src = "import math\nTWO_PI = 2 * math.pi\n@vectorize([\"float32(float32)\"])\ndef f(x):\n"
                    "    return x * TWO_PI\n";
  std::string ir = ir_text(src);
  EXPECT_TRUE(contains(ir, "(x * 6.2831855:float32)")) << ir;
}

TEST(Typer, DtypeCallInAConstantMakesItStrong) {
  std::string src = "import numpy as np\nC = np.float32(1.5)\n@vectorize([\"float32(float16)\"])\ndef f(x):\n"
                    "    y = x * C\n    return y\n";
  ir::Module m = module_of(src);
  EXPECT_EQ(var_type(m, "y"), "float32");
}

TEST(Typer, ComparisonChainEvaluatesTheMiddleOnce) {
  std::string ir = ir_text(ufunc("bool(float32)", "x", "    return 0 < x * 2 < 1\n"));
  EXPECT_TRUE(contains(ir, "$t0 = (x * 2.0:float32)")) << ir;
  EXPECT_TRUE(contains(ir, "((0.0:float32 < $t0) and ($t0 < 1.0:float32))")) << ir;
}

TEST(Typer, PowerSpecialCases) {
  std::string ir = ir_text(ufunc("float32(float32, int32)", "x, n",
                                 "    a = x ** 2\n    b = x ** 0.5\n    c = x ** -1\n    d = n ** 3\n"
                                 "    e = x ** 3.5\n    return a\n"));
  EXPECT_TRUE(contains(ir, "a = (x * x)")) << ir;
  EXPECT_TRUE(contains(ir, "b = (inf:float32 if (x == -inf:float32) else fabs(sqrt(x)))")) << ir;  // pow at -0, -inf
  EXPECT_TRUE(contains(ir, "c = (1.0:float32 / x)")) << ir;
  EXPECT_TRUE(contains(ir, "d = (n ** 3:int32)")) << ir;
  EXPECT_TRUE(contains(ir, "e = (x ** 3.5:float32)")) << ir;
}

TEST(Typer, FloorDivisionAndModuloKeepTheOperandType) {
  ir::Module m = module_of(ufunc("float32(int16, float32)", "a, x",
                                 "    q = a // 3\n    r = a % 3\n    s = x // 2\n    return s\n"));
  EXPECT_EQ(var_type(m, "q"), "int16");
  EXPECT_EQ(var_type(m, "r"), "int16");
  EXPECT_EQ(var_type(m, "s"), "float32");
}

TEST(Typer, BoolArithmeticFollowsPython) {
  ir::Module m = module_of(ufunc("int64(bool, bool)", "a, b", "    s = a + b\n    t = a & b\n    return s\n"));
  EXPECT_EQ(var_type(m, "s"), "int64");  // True + True == 2
  EXPECT_EQ(var_type(m, "t"), "bool");
}

TEST(Typer, AndOrGiveBoolOnBoolsElseTheUnifiedType) {
  ir::Module m = module_of(ufunc("float32(float32, int8)", "x, n",
                                 "    a = x > 0 and n > 0\n    b = x or n\n    c = not x\n    return x\n"));
  EXPECT_EQ(var_type(m, "a"), "bool");
  EXPECT_EQ(var_type(m, "b"), "float32");
  EXPECT_EQ(var_type(m, "c"), "bool");
}

TEST(Typer, ConditionsConvertToBool) {
  std::string ir = ir_text(ufunc("float32(float32, complex64)", "x, z",
                                 "    if x:\n        return x\n    if z:\n        return x\n    return 0\n"));
  EXPECT_TRUE(contains(ir, "if bool(x) {")) << ir;
  EXPECT_TRUE(contains(ir, "if (z != (0.0+0.0j):complex64) {")) << ir;
}

TEST(Typer, ConditionalExpressionUnifiesArms) {
  ir::Module m = module_of(ufunc("float64(float32, int64)", "x, n", "    y = x if n > 0 else n\n    return y\n"));
  EXPECT_EQ(var_type(m, "y"), "float64");
}

TEST(Typer, ReturnsAreUnifiedThenCastToTheSignature) {
  std::string ir = ir_text(ufunc("int32(float32, int64)", "x, n",
                                 "    if n > 0:\n        return n\n    return x\n"));
  // Returns unify to float64 (int64 with float32), then C-cast to int32.
  EXPECT_TRUE(contains(ir, "return int32(float64(n))")) << ir;
  EXPECT_TRUE(contains(ir, "return int32(float64(x))")) << ir;
}

TEST(Typer, BuiltinsTypeAsPython) {
  ir::Module m = module_of(ufunc("float32(float32, int32, complex64)", "x, n, z",
                                 "    a = abs(n)\n    b = abs(x)\n    c = abs(z)\n    d = round(x)\n"
                                 "    e = round(x, 2)\n    g = min(x, n)\n    h = max(n, 1)\n"
                                 "    q, r = divmod(n, 4)\n    i = int(x)\n    j = float(n)\n"
                                 "    k = complex(x, 1)\n    l = float32(n)\n    o = np.int16(x)\n"
                                 "    p = pow(x, 2)\n    return x\n"));
  EXPECT_EQ(var_type(m, "a"), "int32");
  EXPECT_EQ(var_type(m, "b"), "float32");
  EXPECT_EQ(var_type(m, "c"), "float32");  // abs(complex64)
  EXPECT_EQ(var_type(m, "d"), "int64");    // round(x) -> int
  EXPECT_EQ(var_type(m, "e"), "float32");  // round(x, n) -> float type
  EXPECT_EQ(var_type(m, "g"), "float64");  // float32 with int32
  EXPECT_EQ(var_type(m, "h"), "int32");
  EXPECT_EQ(var_type(m, "q"), "int32");
  EXPECT_EQ(var_type(m, "r"), "int32");
  EXPECT_EQ(var_type(m, "i"), "int64");
  EXPECT_EQ(var_type(m, "j"), "float64");
  EXPECT_EQ(var_type(m, "k"), "complex128");
  EXPECT_EQ(var_type(m, "l"), "float32");
  EXPECT_EQ(var_type(m, "o"), "int16");
  EXPECT_EQ(var_type(m, "p"), "float32");
  std::string ir = ir::print(m);
  EXPECT_TRUE(contains(ir, "a = iabs(n)")) << ir;
  EXPECT_TRUE(contains(ir, "d = int64(rint(x))")) << ir;
  EXPECT_TRUE(contains(ir, "h = (1:int32 if (1:int32 > n) else n)")) << ir;
}

TEST(Typer, MathFunctionsAndConstants) {
  ir::Module m = module_of(ufunc("float32(float32, int32, float64)", "x, n, d",
                                 "    a = math.sqrt(x)\n    b = math.sin(n)\n    c = math.sin(1)\n"
                                 "    e = math.floor(x)\n    g = math.isnan(n)\n    h = math.isnan(x)\n"
                                 "    i = math.atan2(x, d)\n    j, k = math.frexp(x)\n    l = math.pi * x\n"
                                 "    o = math.degrees(x)\n    return x\n"));
  EXPECT_EQ(var_type(m, "a"), "float32");
  EXPECT_EQ(var_type(m, "b"), "float64");  // int argument -> float64
  EXPECT_EQ(var_type(m, "c"), "float64");  // weak result alone
  EXPECT_EQ(var_type(m, "e"), "float32");  // floor keeps the float type
  EXPECT_EQ(var_type(m, "g"), "bool");
  EXPECT_EQ(var_type(m, "i"), "float64");
  EXPECT_EQ(var_type(m, "j"), "float32");
  EXPECT_EQ(var_type(m, "k"), "int32");
  EXPECT_EQ(var_type(m, "l"), "float32");
  EXPECT_EQ(var_type(m, "o"), "float32");
  std::string ir = ir::print(m);
  EXPECT_TRUE(contains(ir, "g = False:bool")) << ir;
  EXPECT_TRUE(contains(ir, "h = isnan(x)")) << ir;
  EXPECT_TRUE(contains(ir, "b = sin(float64(n))")) << ir;
}

TEST(Typer, BareMathNamesNeedAFromImport) {
  std::string src = "from math import exp, pi\n@vectorize([\"float32(float32)\"])\ndef f(x):\n"
                    "    return exp(x) * pi\n";
  std::string ir = ir_text(src);
  EXPECT_TRUE(contains(ir, "(exp(x) * 3.1415927:float32)")) << ir;
}

TEST(Typer, ComplexFunctionsAndParts) {
  ir::Module m = module_of(ufunc("float32(complex64, float32)", "z, x",
                                 "    a = cmath.exp(z)\n    b = cmath.sqrt(x)\n    c = z.real\n    d = z.imag\n"
                                 "    e = z.conjugate()\n    g = cmath.phase(z)\n    h = x.imag\n    return c\n"));
  EXPECT_EQ(var_type(m, "a"), "complex64");
  EXPECT_EQ(var_type(m, "b"), "complex128");  // real argument -> complex128
  EXPECT_EQ(var_type(m, "c"), "float32");
  EXPECT_EQ(var_type(m, "d"), "float32");
  EXPECT_EQ(var_type(m, "e"), "complex64");
  EXPECT_EQ(var_type(m, "g"), "float32");
  EXPECT_EQ(var_type(m, "h"), "float32");
}

TEST(Typer, HelperIsSpecialisedPerArgumentTypes) {
  std::string src =
      "@njit\ndef sq(v):\n    return v * v\n\n"
      "@vectorize([\"float64(float32)\"])\ndef f(x):\n    return sq(x) + sq(float64(x))\n";
  ir::Module m = module_of(src);
  ASSERT_EQ(m.functions.size(), 3u) << ir::print(m);
  EXPECT_EQ(m.functions[0].name, "sq__float32");
  EXPECT_EQ(m.functions[0].ret.str(), "float32");
  EXPECT_EQ(m.functions[1].name, "sq__float64");
  EXPECT_EQ(m.functions[1].ret.str(), "float64");
  EXPECT_EQ(m.entry_function().name, "f");
}

TEST(Typer, AUfuncNamedLikeAHelpersSpecialisationKeepsItsNameAndTheHelperMovesAside) {
  // `g__float64` is also the name of g's float64 specialisation: once a
  // module defining one function twice, an internal error.
  std::string src =
      "def g(a):\n    return a + 1\n\n"
      "@vectorize([\"float64(float64)\"])\ndef g__float64(x):\n    return g(x)\n";
  ir::Module m = module_of(src);
  ASSERT_EQ(m.functions.size(), 2u) << ir::print(m);
  EXPECT_EQ(m.functions[0].name, "g__float64_h");
  EXPECT_EQ(m.entry_function().name, "g__float64");
}

TEST(Typer, ATupleShiftedOnePlaceEachIterationConvergesOneElementAPass) {
  // Each pass widens one more of the 100 elements from int64 to float64:
  // more passes than the bound for two locals once allowed (an internal error).
  std::string zeros, shifted = "x";
  for (int j = 0; j < 100; ++j) zeros += j == 0 ? "0" : ", 0";
  for (int j = 0; j < 99; ++j) shifted += ", t[" + std::to_string(j) + "]";
  ir::Module m = module_of(ufunc(
      "float64(float64)", "x",
      "    t = (" + zeros + ")\n    for i in range(2):\n        t = (" + shifted + ")\n    return t[99]\n"));
  const std::string t = var_type(m, "t");
  EXPECT_EQ(t.substr(0, 8), "(float64") << t;
  EXPECT_EQ(t.find("int64"), std::string::npos) << t;
}

TEST(Typer, WeakArgumentsToHelpersBecomeDefaultTypes) {
  std::string src = "def g(a, b):\n    return a * b\n\n"
                    "@vectorize([\"float32(float32)\"])\ndef f(x):\n    return g(x, 2.0)\n";
  ir::Module m = module_of(src);
  ASSERT_FALSE(m.functions.empty());
  EXPECT_EQ(m.functions[0].name, "g__float32_float64");
}

TEST(Typer, HelpersReturnTuplesThatUnpackAndIndex) {
  std::string src =
      "@cuda.jit(device=True)\ndef two(a):\n    return a, a * 2\n\n"
      "@vectorize([\"float32(float32)\"])\ndef f(x):\n    p, q = two(x)\n    t = two(x)\n"
      "    return p + q + t[-1]\n";
  ir::Module m = module_of(src);
  EXPECT_EQ(var_type(m, "t"), "(float32, float32)");
  std::string ir = ir::print(m);
  EXPECT_TRUE(contains(ir, "func two__float32(a: float32) -> (float32, float32)")) << ir;
  EXPECT_TRUE(contains(ir, "t[1]")) << ir;
}

TEST(Typer, TupleSwapEvaluatesTheRightSideFirst) {
  std::string ir = ir_text(ufunc("float32(float32, float32)", "a, b", "    a, b = b, a\n    return a - b\n"));
  // Both elements are read before either variable is written.
  std::size_t read_a = ir.find("= a\n");
  std::size_t write_a = ir.find("  a = ");
  ASSERT_NE(read_a, std::string::npos) << ir;
  ASSERT_NE(write_a, std::string::npos) << ir;
  EXPECT_LT(ir.find("= b\n"), write_a) << ir;
}

TEST(Typer, ParameterAssignedAnotherTypeIsConvertedOnEntry) {
  ir::Module m = module_of(ufunc("float64(int32)", "x", "    x = x * 0.5\n    return x\n"));
  ASSERT_FALSE(m.functions.empty());
  EXPECT_EQ(m.entry_function().params[0].name, "$arg_x");
  EXPECT_EQ(var_type(m, "x"), "float64");
}

TEST(Typer, LoopVariableIsTheRangeTypeWidenedToAtLeastInt32AsNumbas) {
  std::string ir = ir_text(ufunc("int64(int16)", "n",
                                 "    s = 0\n    for i in range(1, n, 2):\n        s += i\n    return s\n"));
  EXPECT_TRUE(contains(ir, "for i in range(1:int32, int32(n), 2:int32) {")) << ir;
  ir = ir_text(
      ufunc("int64(uint32)", "n", "    s = 0\n    for i in range(n):\n        s += i\n    return s\n"));
  EXPECT_TRUE(contains(ir, "for i in range(0:int64, int64(n), 1:int64) {")) << ir;
  ir = ir_text(
      ufunc("uint64(uint64)", "n", "    s = 0\n    for i in range(n):\n        s += i\n    return s\n"));
  EXPECT_TRUE(contains(ir, "for i in range(0:uint64, n, 1:uint64) {")) << ir;
}

TEST(Typer, WhileTrueWithReturnNeedsNoTrailingReturn) {
  std::string ir = ir_text(ufunc("int64(int64)", "n",
                                 "    i = 0\n    while True:\n        i += 1\n        if i * i > n:\n"
                                 "            return i\n"));
  EXPECT_TRUE(contains(ir, "while True:bool {")) << ir;
}

TEST(Typer, ConstantFoldingFollowsPython) {
  std::string ir = ir_text(ufunc("float64(float64)", "x",
                                 "    a = -7 // 2\n    b = -7 % 3\n    c = 7.5 % -2\n    d = 2 ** 10\n"
                                 "    e = 1 / 4\n    return x\n"));
  EXPECT_TRUE(contains(ir, "a = -4:int64")) << ir;
  EXPECT_TRUE(contains(ir, "b = 2:int64")) << ir;
  EXPECT_TRUE(contains(ir, "c = -0.5:float64")) << ir;
  EXPECT_TRUE(contains(ir, "d = 1024:int64")) << ir;
  EXPECT_TRUE(contains(ir, "e = 0.25:float64")) << ir;
}

TEST(Typer, EverySignatureGetsItsOwnModule) {
  std::string src = "@vectorize([\"float32(float32)\", \"int16(int16)\"])\ndef f(x):\n    return x + 1\n";
  std::unique_ptr<Typed> t = type_source(src);
  ASSERT_TRUE(t->program) << t->messages;
  ASSERT_EQ(t->program->ufuncs[0].modules.size(), 2u);
  EXPECT_EQ(t->program->ufuncs[0].modules[0].entry_function().ret.str(), "float32");
  EXPECT_TRUE(contains(ir::print(t->program->ufuncs[0].modules[1]), "(x + 1:int16)"));
}

TEST(Typer, OverrideSignaturesTypeABareDef) {
  std::unique_ptr<Typed> t = type_source("def add(a, b):\n    return a + b\n", {"float32(float32, float32)"});
  ASSERT_TRUE(t->program) << t->messages;
  ASSERT_EQ(t->program->ufuncs.size(), 1u);
  EXPECT_EQ(t->program->ufuncs[0].name, "add");
  EXPECT_EQ(t->program->ufuncs[0].modules[0].entry_function().params[1].type.str(), "float32");
}

TEST(Typer, PrintedIRIsDeterministic) {
  std::string src = "import math\n@vectorize([\"float32(float32, float32)\"])\ndef f(x, y):\n"
                    "    a = math.exp(x) * y\n    b = a if a > 1 else y\n    return a + b\n";
  EXPECT_EQ(ir_text(src), ir_text(src));
  EXPECT_FALSE(ir_text(src).empty());
}

TEST(Typer, StrongConstantsFoldWithTheirTypesRounding) {
  std::string src = "import numpy as np\nK = np.float32(0.1) * 3\nL = -np.int8(128)\n"
                    "@vectorize([\"float64(float64)\"])\ndef f(x):\n    return x + K + L\n";
  std::string ir = ir_text(src);
  // float32(0.1) * 3 rounded to float32 is 0.3 (as float32), not 0.1 * 3 in float64.
  double k = static_cast<double>(static_cast<float>(static_cast<double>(0.1f) * 3.0));
  EXPECT_EQ(k, static_cast<double>(0.3f));
  // The strong constants then convert (folded) to float64 at their use.
  EXPECT_TRUE(contains(ir, "(x + 0.30000001192092896:float64)")) << ir;
  EXPECT_TRUE(contains(ir, "-128.0:float64")) << ir;  // -np.int8(128): 128 wraps to -128, negated wraps again
}

TEST(Typer, RoundOfAConstantRoundsTheExactDecimalValue) {
  // 2.675 is 2.67499999999999982236431605997495353221893310546875 in binary.
  std::string ir = ir_text(ufunc("float64(float64)", "x", "    y = round(2.675, 2)\n    z = round(0.5)\n"
                                 "    w = round(1.5)\n    return y + z + w\n"));
  EXPECT_TRUE(contains(ir, "y = 2.67:float64")) << ir;
  EXPECT_TRUE(contains(ir, "z = 0:int64")) << ir;  // half to even
  EXPECT_TRUE(contains(ir, "w = 2:int64")) << ir;
}

TEST(Typer, LoopVariableOfAnotherTypeGetsAnInductionTemp) {
  ir::Module m = module_of(ufunc("float64(float32, int32)", "x, n",
                                 "    i = 0.5\n    for i in range(n):\n        x = x + i\n    return i\n"));
  EXPECT_EQ(var_type(m, "i"), "float64");
  std::string ir = ir::print(m);
  EXPECT_TRUE(contains(ir, "for $t0 in range(0:int32, n, 1:int32) {\n    i = float64($t0)")) << ir;
}

TEST(Typer, WhileConditionNeedingTempsIsReevaluatedEachIteration) {
  std::string ir = ir_text(ufunc("float32(float32)", "x", "    while 0 < x * 2 < 100:\n        x = x * 3\n    return x\n"));
  EXPECT_TRUE(contains(ir, "while True:bool {\n    $t0 = (x * 2.0:float32)\n"
                           "    if (not ((0.0:float32 < $t0) and ($t0 < 100.0:float32))) {\n      break"))
      << ir;
}

TEST(Typer, ChainedAssignmentEvaluatesOnce) {
  std::string ir = ir_text(ufunc("float32(float32)", "x", "    a = b = x * 2\n    return a + b\n"));
  EXPECT_TRUE(contains(ir, "$t0 = (x * 2.0:float32)\n  a = $t0\n  b = $t0")) << ir;
}

TEST(Typer, FloatOfInfOrNanStringIsAWeakConstant) {
  std::string ir = ir_text(ufunc("float32(float32)", "x", "    return min(x, float('inf')) + float('-inf')\n"));
  EXPECT_TRUE(contains(ir, "inf:float32")) << ir;
  EXPECT_TRUE(contains(ir, "-inf:float32")) << ir;
}

TEST(Typer, LocalsAreDeclaredInSourceOrder) {
  ir::Module m = module_of(ufunc("float32(float32)", "x", "    zeta = x\n    alpha = zeta\n    return alpha\n"));
  ASSERT_FALSE(m.functions.empty());
  ASSERT_EQ(m.entry_function().locals.size(), 2u);
  EXPECT_EQ(m.entry_function().locals[0].name, "zeta");
  EXPECT_EQ(m.entry_function().locals[1].name, "alpha");
}

// ------------------------------------------------------- tutorial kernels

TEST(TyperTutorial, AddUfunc) {
  std::string ir = ir_text(
      "from numba import vectorize\n\n\n@vectorize(['int64(int64, int64)'], target='cuda')\n"
      "def add_ufunc(x, y):\n    return x + y\n");
  EXPECT_EQ(ir,
            "module add_ufunc entry=add_ufunc fastmath=false\n"
            "func add_ufunc(x: int64, y: int64) -> int64 {\n"
            "  return (x + y)\n"
            "}\n");
}

TEST(TyperTutorial, GaussianPdfStaysFloat32) {
  std::string ir = ir_text(
      "import math\n\nimport numpy as np\nfrom numba import vectorize, cuda\n\n"
      "SQRT_2PI = np.float32((2*math.pi)**0.5)\n\n\n"
      "@vectorize(['float32(float32, float32, float32)'], target='cuda')\n"
      "def gaussian_pdf(x, mean, sigma):\n"
      "    '''Compute the value of a Gaussian probability density function.'''\n"
      "    return math.exp(-0.5 * ((x - mean) / sigma)**2) / (sigma * SQRT_2PI)\n");
  // sqrt(2*pi) rounded to float32 is 2.5066283.
  EXPECT_TRUE(contains(ir, "return (exp((-0.5:float32 * ($t0 * $t0))) / (sigma * 2.5066283:float32))")) << ir;
  EXPECT_FALSE(contains(ir, "float64")) << ir;
}

TEST(TyperTutorial, PolarDistance) {
  std::string ir = ir_text(
      "import math\n\nfrom numba import vectorize, cuda\n\n\n@cuda.jit(device=True)\n"
      "def polar_to_cartesian(rho, theta):\n    x = rho * math.cos(theta)\n    y = rho * math.sin(theta)\n"
      "    return x, y  # This is Python, so let's return a tuple\n\n\n"
      "@vectorize(['float32(float32, float32, float32, float32)'], target='cuda')\n"
      "def polar_distance(rho1, theta1, rho2, theta2):\n    x1, y1 = polar_to_cartesian(rho1, theta1)\n"
      "    x2, y2 = polar_to_cartesian(rho2, theta2)\n\n    return ((x1 - x2)**2 + (y1 - y2)**2)**0.5\n");
  EXPECT_TRUE(contains(ir, "func polar_to_cartesian__float32_float32(rho: float32, theta: float32) -> (float32, float32)"))
      << ir;
  EXPECT_TRUE(contains(ir, "$t4 = (($t2 * $t2) + ($t3 * $t3))")) << ir;
  EXPECT_TRUE(contains(ir, "return (inf:float32 if ($t4 == -inf:float32) else fabs(sqrt($t4)))")) << ir;
  EXPECT_FALSE(contains(ir, "float64")) << ir;
}

TEST(TyperTutorial, SinCos) {
  std::string ir = ir_text(
      "import math\n\nfrom numba import vectorize, cuda\n\n\n@vectorize(['float32(float32)'], target='cuda')\n"
      "def sincos(x):\n    return math.cos(x) ** 2 + math.sin(x) ** 2\n");
  EXPECT_TRUE(contains(ir, "$t0 = cos(x)")) << ir;
  EXPECT_TRUE(contains(ir, "return (($t0 * $t0) + ($t1 * $t1))")) << ir;
}

}  // namespace
}  // namespace ufjit::irtest
