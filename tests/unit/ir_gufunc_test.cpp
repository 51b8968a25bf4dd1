// Generalized ufuncs (LANGUAGE.md section 8): array parameters, a.shape[k],
// len(a), element reads with Python's negative indices, writes to outputs.
#include <gtest/gtest.h>

#include "ir_test_util.h"

namespace ufjit::irtest {
namespace {

const char *const kDot =
    "from numba import guvectorize\n"
    "@guvectorize([\"void(float32[:], float32[:], float32[:])\",\n"
    "              \"void(float64[:], float64[:], float64[:])\"], \"(n),(n)->()\")\n"
    "def dot(a, b, out):\n"
    "    acc = 0\n"
    "    for i in range(a.shape[0]):\n"
    "        acc += a[i] * b[i]\n"
    "    out[0] = acc\n";

TEST(TyperGufunc, DotTypesWithArraysAndStaysInTheElementType) {
  std::unique_ptr<Typed> t = type_source(kDot);
  ASSERT_TRUE(t->program) << t->messages;
  const ir::TypedUfunc &u = t->program->ufuncs[0];
  EXPECT_EQ(u.kind, frontend::UfuncKind::GuVectorize);
  EXPECT_EQ(u.layout, "(n),(n)->()");
  ASSERT_EQ(u.modules.size(), 2u);
  const ir::Function &f = u.modules[0].entry_function();
  EXPECT_EQ(f.ret.str(), "void");
  EXPECT_EQ(f.params[0].type.str(), "float32[:]");
  std::string ir = ir::print(u.modules[0]);
  EXPECT_TRUE(contains(ir, "var acc: float32")) << ir;  // weak 0 and float32 products
  EXPECT_TRUE(contains(ir, "for i in range(0:int64, a.shape[0], 1:int64) {")) << ir;
  EXPECT_TRUE(contains(ir, "a[((i + a.shape[0]) if (i < 0:int64) else i)]")) << ir;
  EXPECT_TRUE(contains(ir, "out[0:int64] = acc")) << ir;
  EXPECT_TRUE(contains(ir::print(u.modules[1]), "var acc: float64"));
}

TEST(TyperGufunc, NegativeConstantIndexWrapsAndLenIsTheFirstDimension) {
  std::string ir = ir_text(
      "@guvectorize([\"void(int32[:, :], int64[:])\"], \"(m,n)->(m)\")\n"
      "def f(m, out):\n"
      "    out[-1] = m[-1, 0] + len(m)\n");
  EXPECT_TRUE(contains(ir, "out[(out.shape[0] + -1:int64)] = (int64(m[(m.shape[0] + -1:int64), 0:int64]) + m.shape[0])"))
      << ir;
}

TEST(TyperGufunc, StoresConvertToTheElementType) {
  std::string ir = ir_text(
      "@guvectorize([\"void(float64[:], int16[:])\"], \"(n)->(n)\")\n"
      "def f(a, out):\n"
      "    for i in range(len(a)):\n"
      "        out[i] = a[i] * 2\n");
  EXPECT_TRUE(contains(ir, "= int16((a[")) << ir;
}

TEST(TyperGufunc, ErrorsForArraysMisused) {
  std::unique_ptr<Typed> t = type_source(
      "@guvectorize([\"void(float32[:], float32[:])\"], \"(n)->(n)\")\n"
      "def f(a, out):\n"
      "    a[0] = 1\n"
      "    out[0, 1] = 2\n"
      "    b = a\n"
      "    c = a.shape\n"
      "    d = a + 1\n"
      "    return 3\n");
  EXPECT_FALSE(t->program);
  const std::string &m = t->messages;
  EXPECT_TRUE(contains(m, "3:5: cannot write to 'a': only output arrays")) << m;
  EXPECT_TRUE(contains(m, "4:9: an array of type 'float32[:]' needs 1 index, got 2")) << m;
  EXPECT_TRUE(contains(m, "5:5: an array cannot be assigned to a variable ('b')")) << m;
  EXPECT_TRUE(contains(m, "6:11: '.shape' must be indexed with a constant")) << m;
  EXPECT_TRUE(contains(m, "7:11: cannot add 'float32[:]' and 'int'")) << m;
  EXPECT_TRUE(contains(m, "8:12: a generalized ufunc returns no value")) << m;
}

}  // namespace
}  // namespace ufjit::irtest
