// Generalized ufuncs (LANGUAGE.md section 8): array parameters, a.shape[k],
// len(a), element reads with Python's negative indices, writes to outputs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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
      "    b[0] = 2\n"
      "    d = a + 1\n"
      "    return 3\n");
  EXPECT_FALSE(t->program);
  const std::string &m = t->messages;
  EXPECT_TRUE(contains(m, "3:5: cannot write to 'a': only output arrays")) << m;
  EXPECT_TRUE(contains(m, "4:9: too many indices for an array of type 'float32[:]': it has 1 dimension, got 2")) << m;
  EXPECT_TRUE(contains(m, "6:5: cannot write to 'b': only output arrays")) << m;  // b holds a view of input a
  EXPECT_TRUE(contains(m, "7:11: cannot add 'float32[:]' and 'int'")) << m;
  EXPECT_TRUE(contains(m, "8:12: a generalized ufunc returns no value")) << m;
}

const char *const kMatmulLayoutOnly =
    "from numba import guvectorize\n"
    "@guvectorize('(m,n),(n,p)->(m,p)')\n"
    "def matmul(a, b, out):\n"
    "    for i in range(a.shape[0]):\n"
    "        for j in range(b.shape[1]):\n"
    "            acc = 0\n"
    "            for k in range(a.shape[1]):\n"
    "                acc += a[i, k] * b[k, j]\n"
    "            out[i, j] = acc\n";

TEST(TyperGufunc, LayoutOnlyHasNoModulesUntilTypedForDtypes) {
  std::unique_ptr<Typed> t = type_source(kMatmulLayoutOnly);
  ASSERT_TRUE(t->program) << t->messages;
  const ir::TypedUfunc &u = t->program->ufuncs[0];
  EXPECT_TRUE(u.options.is_dynamic);
  EXPECT_TRUE(u.modules.empty());
  EXPECT_TRUE(u.signatures.empty());
  EXPECT_EQ(u.core.str(), "(m,n),(n,p)->(m,p)");

  auto file = std::make_shared<SourceFile>("test.ufn", kMatmulLayoutOnly);
  DiagnosticEngine diags;
  std::optional<ir::InferredSignature> f32 =
      ir::type_gufunc(file, "matmul", {DType::Float32, DType::Float32, DType::Float32}, diags);
  ASSERT_TRUE(f32) << diags.render_all();
  EXPECT_EQ(f32->signature.str(), "void(float32[:, :], float32[:, :], float32[:, :])");
  std::string ir = ir::print(f32->module);
  EXPECT_TRUE(contains(ir, "var acc: float32")) << ir;
  std::optional<ir::InferredSignature> i64 =
      ir::type_gufunc(file, "matmul", {DType::Int64, DType::Int64, DType::Float64}, diags);
  ASSERT_TRUE(i64) << diags.render_all();
  EXPECT_TRUE(contains(ir::print(i64->module), "var acc: int64")) << ir::print(i64->module);
  EXPECT_TRUE(contains(ir::print(i64->module), "= float64(acc)")) << ir::print(i64->module);
}

TEST(TyperGufunc, DynamicSignatureFollowsNumbaForZeroDimensionalCores) {
  const char *src =
      "@guvectorize('(n),()->()')\n"
      "def f(a, s, out):\n"
      "    out[0] = a[0] + s\n";
  auto file = std::make_shared<SourceFile>("test.ufn", src);
  DiagnosticEngine diags;
  auto typed = ir::type_gufunc(file, "f", {DType::Float64, DType::Int32, DType::Float64}, diags);
  ASSERT_TRUE(typed) << diags.render_all();
  EXPECT_EQ(typed->signature.str(), "void(float64[:], int32, float64[:])");
}

TEST(TyperGufunc, TypeGufuncReportsLocatedErrors) {
  const char *src =
      "@guvectorize('(n)->(n)')\n"
      "def f(a, out):\n"
      "    out[0] = a[0].real\n";
  auto file = std::make_shared<SourceFile>("test.ufn", src);
  {
    DiagnosticEngine diags;
    EXPECT_FALSE(ir::type_gufunc(file, "f", {DType::Float64}, diags));
    EXPECT_EQ(diags.error_count(), 1);
    EXPECT_TRUE(contains(diags.render_all(), "'f' has 2 operands in layout '(n)->(n)', but 1 dtypes were given"))
        << diags.render_all();
  }
  {
    DiagnosticEngine diags;
    EXPECT_FALSE(ir::type_gufunc(file, "g", {DType::Float64, DType::Float64}, diags));
    EXPECT_TRUE(contains(diags.render_all(), "the source has no @guvectorize function 'g'")) << diags.render_all();
  }
  {
    DiagnosticEngine diags;
    auto ok = ir::type_gufunc(file, "f", {DType::Complex128, DType::Float32}, diags);
    ASSERT_TRUE(ok) << diags.render_all();
  }
}

TEST(TyperGufunc, WritableArgsLetTheBodyWriteAnInput) {
  std::string messages;
  std::string ir = ir_text(
      "@guvectorize(['void(f8[:], f8[:])'], '(n)->()', writable_args=('a',))\n"
      "def f(a, out):\n"
      "    a[0] = 1.0\n"
      "    out[0] = a[0]\n",
      0, &messages);
  EXPECT_TRUE(contains(ir, "a[0:int64] = 1.0:float64")) << ir << messages;
}

TEST(TyperGufunc, ShapeUnpacksAndViewsHoldTheirType) {
  std::string messages;
  std::string ir = ir_text(
      "@guvectorize(['void(f4[:, :], f4[:])'], '(m,n)->(n)')\n"
      "def f(a, out):\n"
      "    m, n = a.shape\n"
      "    row = a[0]\n"
      "    out[:] = row[::-1][0] + m * n\n",
      0, &messages);
  EXPECT_TRUE(contains(ir, "var row: float32[:]")) << ir << messages;
  EXPECT_TRUE(contains(ir, "row = a[0:int64, 0:int64 +: a.shape[1] by 1]")) << ir;
  EXPECT_TRUE(contains(ir, "row[(row.shape[0] - 1:int64) +: ")) << ir;
}

TEST(TyperGufunc, ErrorsForViewsAndSlicesMisused) {
  std::unique_ptr<Typed> t = type_source(
      "@guvectorize(['void(f4[:, :], i8, f4[:])'], '(m,n),()->(n)')\n"
      "def f(a, k, out):\n"
      "    x = 1:2\n");
  EXPECT_FALSE(t->program);  // a slice outside a subscript does not even parse
  t = type_source(
      "@guvectorize(['void(f4[:, :], i8, f4[:])'], '(m,n),()->(n)')\n"
      "def f(a, k, out):\n"
      "    out[::k] = 1\n"
      "    out[:] += 1\n"
      "    out[0] = a.T\n"
      "    out[1.5:] = 2\n"
      "    out[::0] = 3\n"
      "    out[:] = a\n"
      "    v = a[0]\n"
      "    v = a\n");
  EXPECT_FALSE(t->program);
  const std::string &m = t->messages;
  EXPECT_TRUE(contains(m, "3:11: a slice step must be an integer constant")) << m;
  EXPECT_TRUE(contains(m, "4:5: augmented assignment to a slice or a whole array ('out[:]') is not supported"))
      << m;
  EXPECT_TRUE(contains(m, "5:16: attribute 'T' is not supported on an array of type 'float32[:, :]' (only .shape, "
                          ".size and .ndim)"))
      << m;
  EXPECT_TRUE(contains(m, "6:9: slice indices must be integers, not 'float64'")) << m;
  EXPECT_TRUE(contains(m, "7:11: slice step cannot be zero")) << m;
  EXPECT_TRUE(contains(m, "8:5: cannot store an array of 2 dimensions in a view of 1 ('float32[:, :]' in "
                          "'float32[:]')"))
      << m;
  EXPECT_TRUE(contains(m, "10:5: variable 'v' is assigned values of incompatible types")) << m;
}

TEST(TyperGufunc, EveryExampleOfLanguageSection8Types) {
  std::ifstream in(std::string(UFJIT_SOURCE_DIR) + "/docs/LANGUAGE.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  std::size_t section = doc.find("## 8. Generalized ufuncs");
  ASSERT_NE(section, std::string::npos);
  int examples = 0;
  for (std::size_t at = doc.find("```python\n", section); at != std::string::npos;
       at = doc.find("```python\n", at + 1)) {
    std::size_t begin = at + 10;
    std::size_t end = doc.find("```", begin);
    ASSERT_NE(end, std::string::npos);
    std::string example = "from numba import guvectorize\n" + doc.substr(begin, end - begin);
    std::unique_ptr<Typed> t = type_source(example);
    EXPECT_TRUE(t->program) << example << t->messages;
    EXPECT_EQ(t->messages, "") << example;
    ++examples;
  }
  EXPECT_GE(examples, 2);
}

}  // namespace
}  // namespace ufjit::irtest
