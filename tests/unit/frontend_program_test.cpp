#include <gtest/gtest.h>

#include "frontend/Program.h"
#include "frontend_test_util.h"

namespace ufjit::frontend {
namespace {

struct Collected {
  DiagnosticEngine diags;
  std::unique_ptr<ast::Module> module;
  Program program;
};

std::unique_ptr<Collected> collect(const std::string &text) {
  auto out = std::make_unique<Collected>();
  out->module = test::parse_text(text, out->diags);
  out->program = collect_program(*out->module, out->diags);
  return out;
}

std::vector<std::string> signature_strings(const UfuncDecl &u) {
  std::vector<std::string> out;
  for (const auto &s : u.signatures) out.push_back(s.str());
  return out;
}

std::unique_ptr<Collected> collect_example(const char *name) {
  std::string text = test::read_text(test::repo_root() / "examples" / name);
  EXPECT_FALSE(text.empty()) << "cannot read examples/" << name;
  return collect(text);
}

TEST(CollectProgram, TutorialKernelAddUfunc) {
  auto c = collect_example("add_ufunc.ufn");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  ASSERT_EQ(c->program.ufuncs.size(), 1u);
  const UfuncDecl &u = c->program.ufuncs[0];
  EXPECT_EQ(u.name, "add_ufunc");
  EXPECT_EQ(u.kind, UfuncKind::Vectorize);
  EXPECT_EQ(signature_strings(u), std::vector<std::string>{"int64(int64, int64)"});
  EXPECT_EQ(u.options.target, "cuda");
  ASSERT_NE(u.def, nullptr);
  EXPECT_EQ(u.def->params.size(), 2u);
  EXPECT_EQ(c->program.imports.at("vectorize"), "numba.vectorize");
}

TEST(CollectProgram, TutorialKernelGaussianPdf) {
  auto c = collect_example("gaussian_pdf.ufn");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  ASSERT_EQ(c->program.ufuncs.size(), 1u);
  EXPECT_EQ(c->program.ufuncs[0].name, "gaussian_pdf");
  EXPECT_EQ(signature_strings(c->program.ufuncs[0]),
            std::vector<std::string>{"float32(float32, float32, float32)"});
  ASSERT_EQ(c->program.constants.size(), 1u);
  EXPECT_EQ(c->program.constants[0].name, "SQRT_2PI");
  EXPECT_EQ(ast::to_source(*c->program.constants[0].value), "np.float32((2 * math.pi) ** 0.5)");
  EXPECT_EQ(c->program.imports.at("np"), "numpy");
  EXPECT_EQ(c->program.imports.at("math"), "math");
  EXPECT_EQ(c->program.imports.at("cuda"), "numba.cuda");
  EXPECT_TRUE(c->program.ufuncs[0].def->docstring.has_value());
}

TEST(CollectProgram, TutorialKernelPolarDistance) {
  auto c = collect_example("polar_distance.ufn");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  ASSERT_EQ(c->program.helpers.size(), 1u);
  EXPECT_EQ(c->program.helpers[0]->name, "polar_to_cartesian");
  ASSERT_EQ(c->program.ufuncs.size(), 1u);
  EXPECT_EQ(c->program.ufuncs[0].name, "polar_distance");
  EXPECT_EQ(c->program.ufuncs[0].signatures[0].args.size(), 4u);
}

TEST(CollectProgram, TutorialKernelSincos) {
  auto c = collect_example("sincos.ufn");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  ASSERT_EQ(c->program.ufuncs.size(), 1u);
  EXPECT_EQ(signature_strings(c->program.ufuncs[0]), std::vector<std::string>{"float32(float32)"});
}

TEST(CollectProgram, DecoratorsThroughEveryImportAlias) {
  auto c = collect(
      "import numba\nimport numba as nb\nfrom numba import vectorize as vec, cuda, njit\n"
      "from numba.cuda import jit as cjit\n"
      "@numba.vectorize(['f8(f8)'])\ndef a(x):\n    return x\n"
      "@nb.vectorize('f4(f4)')\ndef b(x):\n    return x\n"
      "@vec(signatures=['i4(i4)', 'i8(i8)'], target='cpu', fastmath=True, cache=True, "
      "nopython=True, identity=0)\ndef c(x):\n    return x\n"
      "@vectorize\ndef d(x):\n    return x\n"
      "@cuda.jit(device=True)\ndef h1(x):\n    return x\n"
      "@numba.cuda.jit(device=True, inline=True)\ndef h2(x):\n    return x\n"
      "@cjit(device=True)\ndef h3(x):\n    return x\n"
      "@njit\ndef h4(x):\n    return x\n"
      "@njit(cache=True)\ndef h5(x):\n    return x\n"
      "@numba.jit(nopython=True)\ndef h6(x):\n    return x\n"
      "@device\ndef h7(x):\n    return x\n"
      "def h8(x):\n    return x\n");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  ASSERT_EQ(c->program.ufuncs.size(), 4u);
  EXPECT_EQ(signature_strings(c->program.ufuncs[0]), std::vector<std::string>{"float64(float64)"});
  EXPECT_EQ(signature_strings(c->program.ufuncs[1]), std::vector<std::string>{"float32(float32)"});
  EXPECT_EQ(signature_strings(c->program.ufuncs[2]),
            (std::vector<std::string>{"int32(int32)", "int64(int64)"}));
  EXPECT_EQ(c->program.ufuncs[2].options.target, "cpu");
  EXPECT_TRUE(c->program.ufuncs[2].options.fastmath);
  EXPECT_TRUE(c->program.ufuncs[3].signatures.empty()) << "@vectorize without arguments";
  std::vector<std::string> helpers;
  for (const auto *h : c->program.helpers) helpers.push_back(h->name);
  EXPECT_EQ(helpers, (std::vector<std::string>{"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"}));
}

TEST(CollectProgram, NumbaTypedSignatureObjects) {
  auto c = collect("from numba import vectorize, float32\n"
                   "@vectorize([float32(float32, float32)])\ndef f(x, y):\n    return x\n");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  EXPECT_EQ(signature_strings(c->program.ufuncs[0]),
            std::vector<std::string>{"float32(float32, float32)"});
}

TEST(CollectProgram, LinkOption) {
  auto c = collect("@vectorize(['f4(f4)'], link=['a.cu', 'b.cu'])\ndef f(x):\n    return x\n");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  EXPECT_EQ(c->program.ufuncs[0].options.link, (std::vector<std::string>{"a.cu", "b.cu"}));
}

struct BadCase {
  const char *source;
  const char *message;
  int line;
  int col;
};

void expect_single_error(const BadCase &c) {
  auto r = collect(c.source);
  ASSERT_EQ(r->diags.error_count(), 1) << c.source << "\n" << r->diags.render_all();
  const Diagnostic &d = r->diags.diagnostics()[0];
  EXPECT_EQ(d.message, c.message) << c.source;
  EXPECT_EQ(d.loc.line, c.line) << c.source;
  EXPECT_EQ(d.loc.col, c.col) << c.source;
}

TEST(CollectProgram, DecoratorErrors) {
  const BadCase cases[] = {
      {"@vectorize(['f4(f4)'], targt='cuda')\ndef f(x):\n    return x\n",
       "unknown option 'targt' for @vectorize; did you mean 'target'?", 1, 24},
      {"@vectorize(['f4(f4)'], bogus=1)\ndef f(x):\n    return x\n",
       "unknown option 'bogus' for @vectorize", 1, 24},
      {"@vectorize(['f4(f4)'], target='gpu')\ndef f(x):\n    return x\n",
       "unknown target 'gpu'; expected 'cuda', 'cpu' or 'parallel'", 1, 31},
      {"@vectorize(['f4(f4)'], target='cdua')\ndef f(x):\n    return x\n",
       "unknown target 'cdua'; expected 'cuda', 'cpu' or 'parallel'", 1, 31},
      {"@vectorize(['f4(f4)'], fastmath=1)\ndef f(x):\n    return x\n",
       "fastmath must be True or False", 1, 33},
      {"@vectorize(['flaot32(float32)'])\ndef f(x):\n    return x\n",
       "unknown type 'flaot32'; did you mean 'float32'?", 1, 14},
      {"@vectorize(['void(f4)'])\ndef f(x):\n    return x\n",
       "a @vectorize signature must return a value, not 'void' (in 'void(float32)')", 1, 14},
      {"@vectorize(['f4(f4[:])'])\ndef f(x):\n    return x\n",
       "array type 'float32[:]' is only allowed in @guvectorize signatures", 1, 17},
      {"@vectorize([1])\ndef f(x):\n    return x\n",
       "expected a list of signature strings like ['float32(float32, float32)'], found '1'", 1, 13},
      {"@vectoriz(['f4(f4)'])\ndef f(x):\n    return x\n",
       "unknown decorator '@vectoriz'; did you mean '@vectorize'?", 1, 2},
      {"@cuda.jit('float32(float32)')\ndef f(x):\n    return x\n",
       "a kernel returns nothing: its signature is 'void(...)', in 'float32(float32)'; use "
       "@cuda.jit(device=True) for a function that returns a value", 1, 12},
      {"@cuda.jit(lnk=1)\ndef f(x):\n    pass\n", "unknown option 'lnk' for '@cuda.jit'; did you mean 'link'?", 1, 11},
      {"@cuda.jit(device=True, foo=1)\ndef f(x):\n    return x\n",
       "unknown option 'foo' for '@cuda.jit'", 1, 24},
      {"@njit\n@vectorize(['f4(f4)'])\ndef f(x):\n    return x\n",
       "conflicting decorators on 'f': '@vectorize' after '@njit'", 2, 2},
      {"@vectorize(['f4(f4)'], signatures=['f8(f8)'])\ndef f(x):\n    return x\n",
       "signatures given twice (positionally and as signatures=)", 1, 24},
  };
  for (const auto &c : cases) expect_single_error(c);
}

TEST(CollectProgram, GuVectorizeWithLayout) {
  auto c = collect(
      "from numba import guvectorize\n"
      "@guvectorize(['void(float32[:], float32[:], float32[:])',\n"
      "              'void(float64[:], float64[:], float64[:])'], '(n),(n)->()')\n"
      "def dot(a, b, out):\n"
      "    acc = 0\n"
      "    for i in range(a.shape[0]):\n"
      "        acc += a[i] * b[i]\n"
      "    out[0] = acc\n");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  ASSERT_EQ(c->program.ufuncs.size(), 1u);
  const UfuncDecl &u = c->program.ufuncs[0];
  EXPECT_EQ(u.kind, UfuncKind::GuVectorize);
  EXPECT_EQ(u.layout, "(n),(n)->()");
  EXPECT_EQ(u.signatures.size(), 2u);
  EXPECT_EQ(u.signatures[1].args[0].ndim, 1);
}

TEST(CollectProgram, GuVectorizeErrors) {
  const BadCase cases[] = {
      {"@guvectorize(['void(f4[:], f4[:])'], '(n),(n)->()')\ndef f(a, b):\n    pass\n",
       "signature 'void(float32[:], float32[:])' has 2 arguments but layout '(n),(n)->()' has 3 "
       "operands (2 in, 1 out)", 1, 16},
      {"@guvectorize(['void(f4[:], f4[:])'], '(n)(n)')\ndef f(a, b):\n    pass\n",
       "expected '->' in layout '(n)(n)', found '('", 1, 42},
      {"@guvectorize(['void(f4[:], f4[:])'], '(n->(n)')\ndef f(a, b):\n    pass\n",
       "expected ')' to close the dimension list in layout '(n->(n)', found '-'", 1, 41},
      {"@guvectorize(['f4(f4[:], f4[:])'], '(n)->(n)')\ndef f(a, b):\n    pass\n",
       "a @guvectorize signature must return 'void' (results are written to output arguments), in "
       "'float32(float32[:], float32[:])'", 1, 16},
      {"@guvectorize(['void(f4[:], f4[:])'])\ndef f(a, b):\n    pass\n",
       "@guvectorize needs a layout, with or without signatures, e.g. @guvectorize([\"void(float32[:], "
       "float32[:])\"], \"(n)->(n)\") or @guvectorize(\"(n)->(n)\")", 1, 2},
      {"@guvectorize(['void(f4[:,:], f4[:])'], '(n),()->(n)')\ndef f(a, b):\n    pass\n",
       "signature 'void(float32[:, :], float32[:])' has 2 arguments but layout '(n),()->(n)' has 3 operands (2 "
       "in, 1 out)", 1, 16},
      {"@guvectorize(['void(f4[:,:], f4[:])'], '(n)->(n)')\ndef f(a, b):\n    pass\n",
       "argument type 'float32[:, :]' has 2 dimensions but input 1 of layout '(n)->(n)' is '(n)' (1 dimension)",
       1, 21},
      {"@guvectorize(['void(f4[:], f4[:])'], '(n)->(n)', forceobj=True)\ndef f(a, b):\n    pass\n",
       "forceobj=True asks for Numba's object mode, which ufjit does not have: a @guvectorize body is compiled in "
       "nopython mode only; remove the option", 1, 50},
      {"@guvectorize('(n)->(n)', nopython=False)\ndef f(a, b):\n    pass\n",
       "nopython=False asks for Numba's object mode, which ufjit does not have: a @guvectorize body is compiled "
       "in nopython mode only; remove the option", 1, 26},
      {"@guvectorize('(n)->(n)', writable_args=(2,))\ndef f(a, b):\n    pass\n",
       "writable_args index 2 is out of range: 'f' has 2 parameters", 1, 41},
      {"@guvectorize('(n)->(n)', writable_args=('c',))\ndef f(a, b):\n    pass\n",
       "writable_args names 'c', which is not a parameter of 'f'", 1, 41},
      {"@guvectorize('(n)->(n)', writable_args=(1,))\ndef f(a, b):\n    pass\n",
       "writable_args 1 is an output of layout '(n)->(n)'; outputs are always writable, writable_args names inputs",
       1, 41},
      {"@guvectorize('(n)->(n)', writable_args=(1.5,))\ndef f(a, b):\n    pass\n",
       "writable_args must be a tuple of parameter indices or names, e.g. writable_args=(0,) or "
       "writable_args=('a',)", 1, 41},
      {"@guvectorize('(n)->(n)', is_dynamic=1)\ndef f(a, b):\n    pass\n", "is_dynamic must be True or False", 1,
       37},
      {"@vectorize('(f4, f4)')\ndef f(a, b):\n    pass\n",
       "a @vectorize signature needs a return type, as in 'float32(float32, float32)' (in 'void(float32, "
       "float32)')", 1, 13},
  };
  for (const auto &c : cases) expect_single_error(c);
}

TEST(CollectProgram, GuVectorizeEveryNumbaSpelling) {
  auto c = collect(
      "import numba\n"
      "from numba import guvectorize, float32\n"
      "@guvectorize(['void(float32[:,:], float32[:,:], float32[:,:])', '(f8[:, ::1], f8[::1, :], f8[:, :])',\n"
      "              ('i4[:,:], i4[:,:], i4[:,:]')], '(m,n),(n,p)->(m,p)', target='cpu', nopython=True,\n"
      "             cache=True, writable_args=(0, 'b'), is_dynamic=False, forceobj=False)\n"
      "def matmul(a, b, out):\n"
      "    pass\n"
      "@numba.guvectorize('(n),()->(n)', target='cuda')\n"
      "def add_scalar(a, s, out):\n"
      "    pass\n"
      "@guvectorize(layout=' (n) -> () ', signatures='void(u1[:], u1[:])', is_dynamic=True)\n"
      "def first(a, out):\n"
      "    out[0] = a[0]\n");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  ASSERT_EQ(c->program.ufuncs.size(), 3u);
  const UfuncDecl &m = c->program.ufuncs[0];
  ASSERT_EQ(m.signatures.size(), 3u);
  EXPECT_EQ(m.signatures[0].str(), "void(float32[:, :], float32[:, :], float32[:, :])");
  EXPECT_EQ(m.signatures[1].str(), "void(float64[:, :], float64[:, :], float64[:, :])");
  EXPECT_EQ(m.signatures[2].str(), "void(int32[:, :], int32[:, :], int32[:, :])");
  EXPECT_FALSE(m.signatures[2].has_return_type);
  EXPECT_EQ(m.core.str(), "(m,n),(n,p)->(m,p)");
  EXPECT_EQ(m.options.target, "cpu");
  EXPECT_FALSE(m.options.is_dynamic);
  EXPECT_EQ(m.options.writable_args, (std::vector<int>{0, 1}));
  const UfuncDecl &d = c->program.ufuncs[1];
  EXPECT_TRUE(d.signatures.empty());
  EXPECT_TRUE(d.options.is_dynamic);  // a layout only: typed at each call's dtypes
  EXPECT_EQ(d.core.inputs.size(), 2u);
  EXPECT_EQ(d.options.target, "cuda");
  const UfuncDecl &f = c->program.ufuncs[2];
  EXPECT_EQ(f.signatures.size(), 1u);
  EXPECT_TRUE(f.options.is_dynamic);
  EXPECT_EQ(f.core.str(), "(n)->()");
  EXPECT_EQ(f.layout, " (n) -> () ");
}

TEST(CollectProgram, GuVectorizeTypedSignaturesWithoutQuotes) {
  auto c = collect(
      "from numba import guvectorize, void, float32, float64\n"
      "@guvectorize([void(float32[:], float32[:, ::1]), (float64[::1], float64[:, :])], '(n)->(n,m)')\n"
      "def f(a, out):\n"
      "    out[0, 0] = a[0]\n");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  const UfuncDecl &u = c->program.ufuncs[0];
  ASSERT_EQ(u.signatures.size(), 2u);
  EXPECT_EQ(u.signatures[0].str(), "void(float32[:], float32[:, :])");
  EXPECT_EQ(u.signatures[1].str(), "void(float64[:], float64[:, :])");
  EXPECT_FALSE(u.signatures[1].has_return_type);
}

TEST(CollectProgram, ImportsBecomeTheImportTable) {
  auto c = collect("import math\nimport cmath as cm\nimport numpy as np\nimport numba.cuda\n"
                   "from math import exp, sqrt as s\nfrom numba import cuda\n");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  std::map<std::string, std::string> expected = {
      {"math", "math"},       {"cm", "cmath"},       {"np", "numpy"},       {"numba", "numba"},
      {"exp", "math.exp"},    {"s", "math.sqrt"},    {"cuda", "numba.cuda"},
  };
  EXPECT_EQ(c->program.imports, expected);
}

TEST(CollectProgram, ImportErrorsNameTheModule) {
  const BadCase cases[] = {
      {"import scipy\n", "cannot import 'scipy': ufjit kernels may import only math, cmath, numpy and numba", 1, 8},
      {"import os, math\n", "cannot import 'os': ufjit kernels may import only math, cmath, numpy and numba", 1, 8},
      {"from os import path\n", "cannot import from 'os': ufjit kernels may import only math, cmath, numpy and numba", 1, 1},
      {"from math import exq\n", "cannot import name 'exq' from 'math'; did you mean 'exp'?", 1, 18},
      {"from cmath import cbrt\n", "cannot import name 'cbrt' from 'cmath'", 1, 19},
  };
  for (const auto &c : cases) expect_single_error(c);
}

TEST(CollectProgram, ConstantsAndDeviceDeclarations) {
  auto c = collect("from numba import cuda\nA = 1\nB = C = 2.5\n"
                   "f = cuda.declare_device('f_impl', 'float32(float32)')\n"
                   "g = declare_device('g_impl', 'float64(float64, int32)')\n");
  ASSERT_FALSE(c->diags.has_errors()) << c->diags.render_all();
  std::vector<std::string> constants;
  for (const auto &k : c->program.constants) constants.push_back(k.name);
  EXPECT_EQ(constants, (std::vector<std::string>{"A", "B", "C"}));
  ASSERT_EQ(c->program.device_decls.size(), 2u);
  EXPECT_EQ(c->program.device_decls[0].name, "f");
  EXPECT_EQ(c->program.device_decls[0].c_name, "f_impl");
  EXPECT_EQ(c->program.device_decls[1].signature.str(), "float64(float64, int32)");
}

TEST(CollectProgram, ModuleLevelErrors) {
  const BadCase cases[] = {
      {"def f(x):\n    return x\ndef f(y):\n    return y\n", "redefinition of 'f'", 3, 5},
      {"A = 1\nA = 2\n", "redefinition of 'A'", 2, 1},
      {"if True:\n    pass\n",
       "only imports, constants and function definitions may appear at module level, not an 'if' "
       "statement", 1, 1},
      {"print(1)\n",
       "only imports, constants and function definitions may appear at module level, not an "
       "expression statement", 1, 1},
      {"a, b = 1, 2\n", "only 'NAME = value' assignments may appear at module level (constants)", 1, 1},
      {"f = declare_device('f_impl')\n",
       "declare_device takes two strings: declare_device(\"c_name\", \"signature\")", 1, 5},
      {"f = declare_device('f_impl', 'flaot32()')\n",
       "unknown type 'flaot32'; did you mean 'float32'?", 1, 31},
  };
  for (const auto &c : cases) expect_single_error(c);
}

TEST(CollectProgram, RedefinitionNotesTheFirstDefinition) {
  auto c = collect("def f(x):\n    return x\ndef f(y):\n    return y\n");
  ASSERT_EQ(c->diags.diagnostics().size(), 2u);
  EXPECT_EQ(c->diags.diagnostics()[1].severity, Severity::Note);
  EXPECT_EQ(c->diags.diagnostics()[1].loc.line, 1);
}

}  // namespace
}  // namespace ufjit::frontend
