#include <gtest/gtest.h>

#include "frontend/Dump.h"
#include "frontend_test_util.h"

namespace ufjit::ast {
namespace {

/// Every operator node wrapped in parentheses, so that a test states the
/// tree shape independently of to_source's precedence logic.
std::string full_parens(const Expr &e) {
  if (const auto *b = e.as<BinOp>()) {
    return "(" + full_parens(*b->left) + " " + binary_op_spelling(b->op) + " " +
           full_parens(*b->right) + ")";
  }
  if (const auto *u = e.as<UnaryOp>()) {
    const char *op = u->op == UnaryOpKind::USub     ? "-"
                     : u->op == UnaryOpKind::UAdd   ? "+"
                     : u->op == UnaryOpKind::Invert ? "~"
                                                    : "not ";
    return std::string("(") + op + full_parens(*u->operand) + ")";
  }
  if (const auto *b = e.as<BoolOp>()) {
    std::string out = "(";
    for (std::size_t i = 0; i < b->values.size(); ++i) {
      if (i > 0) out += b->op == BoolOpKind::And ? " and " : " or ";
      out += full_parens(*b->values[i]);
    }
    return out + ")";
  }
  if (const auto *c = e.as<Compare>()) {
    std::string out = "(" + full_parens(*c->left);
    for (std::size_t i = 0; i < c->ops.size(); ++i) {
      out += std::string(" ") + cmp_op_spelling(c->ops[i]) + " " + full_parens(*c->comparators[i]);
    }
    return out + ")";
  }
  if (const auto *i = e.as<IfExp>()) {
    return "(" + full_parens(*i->body) + " if " + full_parens(*i->test) + " else " +
           full_parens(*i->orelse) + ")";
  }
  return to_source(e);
}

/// Parses `x = <expr>` and returns the value.
struct ParsedExpr {
  std::unique_ptr<Module> module;
  DiagnosticEngine diags;
  const Expr *expr = nullptr;
};

std::unique_ptr<ParsedExpr> parse_expr(const std::string &text) {
  auto out = std::make_unique<ParsedExpr>();
  out->module = test::parse_text("x = " + text + "\n", out->diags);
  if (out->module->body.size() == 1) {
    if (const auto *assign = out->module->body[0]->as<Assign>()) out->expr = assign->value.get();
  }
  return out;
}

TEST(Parser, OperatorPrecedenceMatchesPython) {
  struct Case {
    const char *source;
    const char *tree;
  } cases[] = {
      {"a if b else c or d", "(a if b else (c or d))"},
      {"a or b if c else d", "((a or b) if c else d)"},
      {"a if b else c if d else e", "(a if b else (c if d else e))"},
      {"a or b and c", "(a or (b and c))"},
      {"a and b or c and d", "((a and b) or (c and d))"},
      {"not a and b", "((not a) and b)"},
      {"not a < b", "(not (a < b))"},
      {"not not a", "(not (not a))"},
      {"a < b | c", "(a < (b | c))"},
      {"a | b ^ c", "(a | (b ^ c))"},
      {"a ^ b & c", "(a ^ (b & c))"},
      {"a & b << c", "(a & (b << c))"},
      {"a << b + c", "(a << (b + c))"},
      {"a >> b - c", "(a >> (b - c))"},
      {"a + b * c", "(a + (b * c))"},
      {"a - b - c", "((a - b) - c)"},
      {"a // b % c @ d / e * f", "(((((a // b) % c) @ d) / e) * f)"},
      {"a * -b", "(a * (-b))"},
      {"-a * b", "((-a) * b)"},
      {"~a + b", "((~a) + b)"},
      {"-x**2", "(-(x ** 2))"},
      {"2**-1", "(2 ** (-1))"},
      {"a ** b ** c", "(a ** (b ** c))"},
      {"-a ** -b", "(-(a ** (-b)))"},
      {"+a", "(+a)"},
      {"a < b <= c", "(a < b <= c)"},
      {"a == b != c > d >= e", "(a == b != c > d >= e)"},
      {"a is b", "(a is b)"},
      {"a is not b", "(a is not b)"},
      {"a in b", "(a in b)"},
      {"a not in b", "(a not in b)"},
      {"(a + b) * c", "((a + b) * c)"},
      {"f(x)[i].y ** 2", "(f(x)[i].y ** 2)"},
      {"-f(x)", "(-f(x))"},
  };
  for (const auto &c : cases) {
    auto parsed = parse_expr(c.source);
    ASSERT_NE(parsed->expr, nullptr) << c.source << "\n" << test::messages(parsed->diags);
    EXPECT_FALSE(parsed->diags.has_errors()) << c.source << "\n" << test::messages(parsed->diags);
    EXPECT_EQ(full_parens(*parsed->expr), c.tree) << "source: " << c.source;
  }
}

TEST(ToSource, AddsOnlyTheParenthesesPrecedenceNeeds) {
  for (const char *source :
       {"(a + b) * c", "a + b * c", "a - (b - c)", "-x ** 2", "(-x) ** 2", "(a ** b) ** c",
        "2 ** -1", "a[i, j]", "a[i]", "f(x, y=1)", "(x,)", "()", "(a, b)", "(a if b else c) + 1",
        "not (a and b)", "math.exp(-0.5 * t)", "a < b < c", "(a < b) < c", "(x if c else y) if d else z", "x if y or z else w",
        "'str'", "1.5", "2j", "True", "None", "[1, 2]", "a is not b", "f(*())", "a[1:2]", "a[:]", "a[::-1]",
        "a[i, :]", "a[1:n:2, j]", "a[:n]", "a[i:]", "a[()]", "a[i + 1:-1]"}) {
    auto parsed = parse_expr(source);
    ASSERT_NE(parsed->expr, nullptr) << source << "\n" << test::messages(parsed->diags);
    EXPECT_EQ(to_source(*parsed->expr), source);
  }
}

TEST(Parser, TuplesWithAndWithoutParentheses) {
  struct Case {
    const char *source;
    ExprKind kind;
    std::size_t size;
  } cases[] = {
      {"1,", ExprKind::Tuple, 1},   {"1, 2", ExprKind::Tuple, 2}, {"1, 2,", ExprKind::Tuple, 2},
      {"(1)", ExprKind::IntLit, 0}, {"(1,)", ExprKind::Tuple, 1}, {"()", ExprKind::Tuple, 0},
      {"(1, 2,)", ExprKind::Tuple, 2},
  };
  for (const auto &c : cases) {
    auto parsed = parse_expr(c.source);
    ASSERT_NE(parsed->expr, nullptr) << c.source;
    EXPECT_EQ(parsed->expr->kind, c.kind) << c.source;
    if (const auto *t = parsed->expr->as<Tuple>()) {
      EXPECT_EQ(t->elts.size(), c.size) << c.source;
    }
  }
}

TEST(Parser, CallsWithPositionalAndKeywordArguments) {
  auto parsed = parse_expr("f(a, b + 1, key=2, other=c,)");
  ASSERT_NE(parsed->expr, nullptr);
  const auto *call = parsed->expr->as<Call>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->args.size(), 2u);
  ASSERT_EQ(call->keywords.size(), 2u);
  EXPECT_EQ(call->keywords[0].name, "key");
  EXPECT_EQ(call->keywords[1].name, "other");
  EXPECT_EQ(call->keywords[1].loc.col, 24);
}

TEST(Parser, SubscriptWithTupleIndex) {
  auto parsed = parse_expr("a[i, j]");
  const auto *sub = parsed->expr->as<Subscript>();
  ASSERT_NE(sub, nullptr);
  const auto *index = sub->index->as<Tuple>();
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->elts.size(), 2u);
}

TEST(Parser, SlicesKeepEachPartOrNone) {
  auto parsed = parse_expr("a[1:, :n, ::-1, i]");
  ASSERT_NE(parsed->expr, nullptr) << test::messages(parsed->diags);
  const auto *index = parsed->expr->as<Subscript>()->index->as<Tuple>();
  ASSERT_NE(index, nullptr);
  ASSERT_EQ(index->elts.size(), 4u);
  const auto *first = index->elts[0]->as<Slice>();
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->lower && !first->upper && !first->step);
  const auto *second = index->elts[1]->as<Slice>();
  EXPECT_TRUE(!second->lower && second->upper && !second->step);
  EXPECT_EQ(second->loc.col, 11);  // parse_expr puts the expression after "x = "
  const auto *third = index->elts[2]->as<Slice>();
  EXPECT_TRUE(!third->lower && !third->upper && third->step);
  EXPECT_TRUE(index->elts[3]->isa<Name>());
  auto bad = parse_expr("a[1:2:3:4]");
  EXPECT_TRUE(bad->diags.has_errors());
}

TEST(Parser, AdjacentStringLiteralsConcatenate) {
  auto parsed = parse_expr("'float32(' \"float32)\"");
  const auto *str = parsed->expr->as<StrLit>();
  ASSERT_NE(str, nullptr);
  EXPECT_EQ(str->value, "float32(float32)");
  EXPECT_EQ(str->content_loc.col, 6);
}

TEST(Parser, LocationsOfNodes) {
  auto parsed = parse_expr("a + math.exp(b)");
  const auto *add = parsed->expr->as<BinOp>();
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->loc.col, 5);
  EXPECT_EQ(add->loc.length, 15);  // the whole expression
  EXPECT_EQ(add->op_loc.col, 7);
  const auto *call = add->right->as<Call>();
  ASSERT_NE(call, nullptr);
  const auto *attr = call->func->as<Attribute>();
  ASSERT_NE(attr, nullptr);
  EXPECT_EQ(attr->attr_loc.col, 14);
  EXPECT_EQ(attr->attr_loc.length, 3);
}

TEST(Parser, AssignmentForms) {
  DiagnosticEngine diags;
  auto m = test::parse_text("a = b = 1\nx, y = f()\nout[0] = 2\n(p, q) = r\nrec.x = 3\nrec.y += 1\n", diags);
  ASSERT_FALSE(diags.has_errors()) << test::messages(diags);
  ASSERT_EQ(m->body.size(), 6u);
  EXPECT_TRUE(m->body[4]->as<Assign>()->targets[0]->isa<Attribute>());  // a record's field
  const auto *chained = m->body[0]->as<Assign>();
  ASSERT_NE(chained, nullptr);
  EXPECT_EQ(chained->targets.size(), 2u);
  EXPECT_TRUE(chained->value->isa<IntLit>());
  const auto *unpack = m->body[1]->as<Assign>();
  ASSERT_NE(unpack, nullptr);
  EXPECT_TRUE(unpack->targets[0]->isa<Tuple>());
  EXPECT_TRUE(m->body[2]->as<Assign>()->targets[0]->isa<Subscript>());
  EXPECT_TRUE(m->body[3]->as<Assign>()->targets[0]->isa<Tuple>());
}

TEST(Parser, EveryAugmentedAssignmentOperator) {
  const BinaryOp ops[] = {BinaryOp::Add,    BinaryOp::Sub,    BinaryOp::Mul,      BinaryOp::Div,
                          BinaryOp::FloorDiv, BinaryOp::Mod,  BinaryOp::Pow,      BinaryOp::BitAnd,
                          BinaryOp::BitOr,  BinaryOp::BitXor, BinaryOp::LShift,   BinaryOp::RShift};
  for (BinaryOp op : ops) {
    std::string spelled = std::string(binary_op_spelling(op)) + "=";
    DiagnosticEngine diags;
    auto m = test::parse_text("x " + spelled + " 2\n", diags);
    ASSERT_EQ(m->body.size(), 1u) << spelled;
    const auto *aug = m->body[0]->as<AugAssign>();
    ASSERT_NE(aug, nullptr) << spelled;
    EXPECT_EQ(aug->op, op) << spelled;
    EXPECT_EQ(aug->op_loc.col, 3) << spelled;
  }
}

TEST(Parser, InvalidAssignmentTargetsAreErrors) {
  struct Case {
    const char *source;
    const char *message;
  } cases[] = {
      {"f() = 1\n", "cannot assign to function call"},
      {"1 = x\n", "cannot assign to literal"},
      {"a + b = 1\n", "cannot assign to expression"},
      {"a, b += 1\n", "'tuple' is an illegal expression for augmented assignment"},
      {"None = 1\n", "cannot assign to None"},
  };
  for (const auto &c : cases) {
    DiagnosticEngine diags;
    test::parse_text(c.source, diags);
    ASSERT_EQ(diags.error_count(), 1) << c.source << test::messages(diags);
    EXPECT_EQ(diags.diagnostics()[0].message, c.message) << c.source;
  }
}

TEST(Parser, AnElifChainOverTheLimitIsOneErrorAndTheStatementsAfterItStillParse) {
  std::string source = "if x == 0:\n    y = 0\n";
  for (int i = 1; i <= 100005; ++i) {
    source += "elif x == " + std::to_string(i) + ":\n    y = " + std::to_string(i) + "\n";
  }
  source += "else:\n    y = -1\nz = y +\n";
  DiagnosticEngine diags;
  test::parse_text(source, diags);
  ASSERT_EQ(diags.error_count(), 2) << test::messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].message, "too many 'elif' branches (more than 100000)");
  EXPECT_EQ(diags.diagnostics()[0].loc.line, 2 + 2 * 100000 + 1);
  // The line after the chain is parsed as usual: its own error is reported.
  EXPECT_EQ(diags.diagnostics()[1].loc.line, 2 + 2 * 100005 + 3);
}

TEST(Parser, CompoundStatements) {
  DiagnosticEngine diags;
  auto m = test::parse_text(
      "def f(x, y):\n"
      "    if x < 0:\n"
      "        return -x\n"
      "    elif x == 0:\n"
      "        pass\n"
      "    else:\n"
      "        x = 1\n"
      "    while x > 0:\n"
      "        x -= 1\n"
      "        if x: break\n"
      "        continue\n"
      "    for i in range(0, 10, 2):\n"
      "        y += i\n"
      "    g(x); h(y)\n"
      "    return\n",
      diags);
  ASSERT_FALSE(diags.has_errors()) << test::messages(diags);
  ASSERT_EQ(m->body.size(), 1u);
  const auto *def = m->body[0]->as<FunctionDef>();
  ASSERT_NE(def, nullptr);
  ASSERT_EQ(def->params.size(), 2u);
  EXPECT_EQ(def->params[1].name, "y");
  ASSERT_EQ(def->body.size(), 6u);
  const auto *if_stmt = def->body[0]->as<If>();
  ASSERT_NE(if_stmt, nullptr);
  ASSERT_EQ(if_stmt->orelse.size(), 1u);
  const auto *elif = if_stmt->orelse[0]->as<If>();
  ASSERT_NE(elif, nullptr) << "elif is a nested If";
  EXPECT_EQ(elif->loc.line, 4);
  EXPECT_EQ(elif->orelse.size(), 1u);
  const auto *loop = def->body[1]->as<While>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->body.size(), 3u);
  const auto *for_stmt = def->body[2]->as<For>();
  ASSERT_NE(for_stmt, nullptr);
  EXPECT_TRUE(for_stmt->iter->isa<Call>());
  EXPECT_TRUE(def->body[3]->isa<ExprStmt>());
  EXPECT_TRUE(def->body[4]->isa<ExprStmt>());
  const auto *ret = def->body[5]->as<Return>();
  ASSERT_NE(ret, nullptr);
  EXPECT_EQ(ret->value, nullptr);
}

TEST(Parser, ForWithTupleTarget) {
  DiagnosticEngine diags;
  auto m = test::parse_text("def f():\n    for i, j in z:\n        pass\n", diags);
  ASSERT_FALSE(diags.has_errors()) << test::messages(diags);
  const auto *loop = m->body[0]->as<FunctionDef>()->body[0]->as<For>();
  ASSERT_NE(loop, nullptr);
  EXPECT_TRUE(loop->target->isa<Tuple>());
}

TEST(Parser, DocstringsAreRemovedFromFunctionBodies) {
  DiagnosticEngine diags;
  auto m = test::parse_text("'''module doc'''\ndef f(x):\n    \"\"\"Doc.\"\"\"\n    return x\n", diags);
  ASSERT_FALSE(diags.has_errors()) << test::messages(diags);
  ASSERT_EQ(m->body.size(), 2u);
  EXPECT_TRUE(m->body[0]->isa<ExprStmt>());
  const auto *def = m->body[1]->as<FunctionDef>();
  ASSERT_TRUE(def->docstring.has_value());
  EXPECT_EQ(*def->docstring, "Doc.");
  ASSERT_EQ(def->body.size(), 1u);
  EXPECT_TRUE(def->body[0]->isa<Return>());
}

TEST(Parser, DecoratorsWithCallArguments) {
  DiagnosticEngine diags;
  auto m = test::parse_text(
      "@vectorize(['float32(float32)'],\n           target='cuda')\n@other\ndef f(x):\n    return x\n",
      diags);
  ASSERT_FALSE(diags.has_errors()) << test::messages(diags);
  const auto *def = m->body[0]->as<FunctionDef>();
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->loc.line, 4);
  ASSERT_EQ(def->decorators.size(), 2u);
  EXPECT_TRUE(def->decorators[0].expr->isa<Call>());
  EXPECT_TRUE(def->decorators[1].expr->isa<Name>());
  EXPECT_EQ(def->decorators[1].loc.line, 3);
}

TEST(Parser, ImportForms) {
  DiagnosticEngine diags;
  auto m = test::parse_text(
      "import math\nimport numpy as np, numba.cuda\nfrom math import exp, sqrt as s\n"
      "from numba import (vectorize,\n    cuda,)\n",
      diags);
  ASSERT_FALSE(diags.has_errors()) << test::messages(diags);
  ASSERT_EQ(m->body.size(), 4u);
  const auto *imp = m->body[1]->as<Import>();
  ASSERT_NE(imp, nullptr);
  ASSERT_EQ(imp->names.size(), 2u);
  EXPECT_EQ(imp->names[0].name, "numpy");
  EXPECT_EQ(imp->names[0].asname, "np");
  EXPECT_EQ(imp->names[1].name, "numba.cuda");
  const auto *from = m->body[2]->as<ImportFrom>();
  ASSERT_NE(from, nullptr);
  EXPECT_EQ(from->module, "math");
  ASSERT_EQ(from->names.size(), 2u);
  EXPECT_EQ(from->names[1].name, "sqrt");
  EXPECT_EQ(from->names[1].asname, "s");
  EXPECT_EQ(m->body[3]->as<ImportFrom>()->names.size(), 2u);
}

struct Rejected {
  const char *source;
  const char *message;
  int line;
  int col;
};

TEST(Parser, ConstructsOutsideTheSubsetAreErrorsNamingThem) {
  const Rejected cases[] = {
      {"f = lambda x: x\n", "'lambda' is not supported in ufjit kernels", 1, 5},
      {"x = [i for i in y]\n", "list comprehensions are not supported in ufjit kernels", 1, 8},
      {"x = f(i for i in y)\n", "generator expressions are not supported in ufjit kernels", 1, 9},
      {"x = (i for i in y)\n", "generator expressions are not supported in ufjit kernels", 1, 8},
      {"x = {1: 2}\n", "dict displays ('{...}') are not supported in ufjit kernels", 1, 5},
      {"x = {}\n", "dict displays ('{...}') are not supported in ufjit kernels", 1, 5},
      {"x = {1, 2}\n", "set displays ('{...}') are not supported in ufjit kernels", 1, 5},
      {"x = {k: v for k in y}\n", "dict comprehensions are not supported in ufjit kernels", 1, 5},
      {"x = {k for k in y}\n", "set comprehensions are not supported in ufjit kernels", 1, 5},
      {"try:\n    x = 1\nexcept E:\n    pass\nfinally:\n    pass\n",
       "'try' is not supported in ufjit kernels", 1, 1},
      {"with a as b:\n    pass\n", "'with' is not supported in ufjit kernels", 1, 1},
      {"class C:\n    pass\n", "'class' is not supported in ufjit kernels", 1, 1},
      {"def f():\n    global x\n", "'global' is not supported in ufjit kernels", 2, 5},
      {"def f():\n    nonlocal x\n", "'nonlocal' is not supported in ufjit kernels", 2, 5},
      {"def f():\n    del x\n", "'del' is not supported in ufjit kernels", 2, 5},
      {"def f():\n    raise E from x\n", "'raise ... from' is not supported in ufjit kernels", 2, 13},
      {"def f():\n    yield x\n", "'yield' is not supported in ufjit kernels", 2, 5},
      {"def f():\n    x = yield\n", "'yield' is not supported in ufjit kernels", 2, 9},
      {"async def f():\n    pass\n", "'async' is not supported in ufjit kernels", 1, 1},
      {"def f():\n    return await g()\n", "'await' is not supported in ufjit kernels", 2, 12},
      {"def f(*args):\n    pass\n", "star-args ('*args', '**kwargs') are not supported in ufjit kernels", 1, 7},
      {"def f(**kw):\n    pass\n", "star-args ('*args', '**kwargs') are not supported in ufjit kernels", 1, 7},
      {"x = f(**a)\n", "star-args ('*args', '**kwargs') are not supported in ufjit kernels", 1, 7},
      {"def f(x=1):\n    pass\n", "default parameter values are not supported in ufjit kernels", 1, 8},
      {"def f(a, *, b):\n    pass\n", "keyword-only parameters are not supported in ufjit kernels", 1, 10},
      {"def f(a, /):\n    pass\n", "positional-only parameters ('/') are not supported in ufjit kernels", 1, 10},
      {"def f(x: int):\n    pass\n", "parameter annotations are not supported in ufjit kernels", 1, 8},
      {"def f(x) -> int:\n    pass\n", "return annotations are not supported in ufjit kernels", 1, 10},
      {"x = (y := 2)\n", "assignment expressions (':=') are not supported in ufjit kernels", 1, 8},
      {"x = f'{y}'\n", "f-strings are not supported in ufjit kernels", 1, 5},
      {"x = b'y'\n", "bytes literals are not supported in ufjit kernels", 1, 5},
      {"x = ...\n", "'...' (Ellipsis) is not supported in ufjit kernels", 1, 5},
      {"x: int = 1\n", "variable annotations are not supported in ufjit kernels", 1, 2},
      {"from math import *\n", "'from math import *' is not supported in ufjit kernels; import the names you use", 1, 18},
      {"from . import x\n", "relative imports are not supported in ufjit kernels", 1, 6},
      {"def f():\n    def g():\n        pass\n",
       "nested functions are not supported in ufjit kernels; define 'g' at module level", 2, 5},
      {"def f():\n    import math\n",
       "imports inside a function are not supported in ufjit kernels; import at module level", 2, 5},
  };
  for (const auto &c : cases) {
    DiagnosticEngine diags;
    test::parse_text(c.source, diags);
    ASSERT_EQ(diags.error_count(), 1) << c.source << "\n" << test::messages(diags);
    const Diagnostic &d = diags.diagnostics()[0];
    EXPECT_EQ(d.message, c.message) << c.source;
    EXPECT_EQ(d.loc.line, c.line) << c.source;
    EXPECT_EQ(d.loc.col, c.col) << c.source;
  }
}

TEST(Parser, DecoratorOnNonFunctionIsAnError) {
  DiagnosticEngine diags;
  test::parse_text("@dec\nx = 1\n", diags);
  ASSERT_GE(diags.error_count(), 1);
  EXPECT_NE(diags.diagnostics()[0].message.find("a decorator must be followed by 'def'"),
            std::string::npos);
  EXPECT_EQ(diags.diagnostics()[0].loc.line, 2);
}

TEST(Parser, SyntaxErrorsShareOneWording) {
  const Rejected cases[] = {
      {"x = f(a b)\n", "expected ')' to close argument list, found name 'b'", 1, 9},
      {"x = (a b)\n", "expected ')' to close parenthesized expression, found name 'b'", 1, 8},
      {"x = a[1\n", "expected ']' to close subscript, found end of line", 1, 8},
      {"x = 1 +\n", "expected an expression, found end of line", 1, 8},
      {"if x\n    pass\n", "expected ':' after 'if' condition, found end of line", 1, 5},
      {"x = a if b\n", "expected 'else' in conditional expression, found end of line", 1, 11},
      {"def (x):\n    pass\n", "expected a function name after 'def', found '('", 1, 5},
      {"x = 1 2\n", "expected end of line after statement, found number '2'", 1, 7},
      {"x = a.\n", "expected an attribute name after '.', found end of line", 1, 7},
  };
  for (const auto &c : cases) {
    DiagnosticEngine diags;
    test::parse_text(c.source, diags);
    ASSERT_GE(diags.error_count(), 1) << c.source;
    const Diagnostic &d = diags.diagnostics()[0];
    EXPECT_EQ(d.message, c.message) << c.source;
    EXPECT_EQ(d.loc.line, c.line) << c.source;
    EXPECT_EQ(d.loc.col, c.col) << c.source;
  }
}

TEST(Parser, ControlFlowOutsideItsContextIsAnError) {
  const Rejected cases[] = {
      {"def f():\n    break\n", "'break' outside loop", 2, 5},
      {"def f():\n    continue\n", "'continue' outside loop", 2, 5},
      {"return 1\n", "'return' outside function", 1, 1},
      {"def f():\n    while x:\n        def g():\n            break\n",
       "nested functions are not supported in ufjit kernels; define 'g' at module level", 3, 9},
  };
  for (const auto &c : cases) {
    DiagnosticEngine diags;
    test::parse_text(c.source, diags);
    ASSERT_GE(diags.error_count(), 1) << c.source;
    EXPECT_EQ(diags.diagnostics()[0].message, c.message) << c.source;
    EXPECT_EQ(diags.diagnostics()[0].loc.line, c.line) << c.source;
  }
}

TEST(Parser, KeywordArgumentErrors) {
  DiagnosticEngine diags;
  test::parse_text("x = f(a=1, a=2)\ny = g(a=1, 2)\n", diags);
  ASSERT_EQ(diags.error_count(), 2) << test::messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].message, "keyword argument repeated: 'a'");
  EXPECT_EQ(diags.diagnostics()[1].message, "positional argument follows keyword argument");
  EXPECT_EQ(diags.diagnostics()[1].loc.line, 2);
}

TEST(Parser, DuplicateParameterIsAnError) {
  DiagnosticEngine diags;
  test::parse_text("def f(x, x):\n    pass\n", diags);
  ASSERT_EQ(diags.error_count(), 1);
  EXPECT_EQ(diags.diagnostics()[0].message, "duplicate argument 'x' in function definition");
  EXPECT_EQ(diags.diagnostics()[0].loc.col, 10);
}

TEST(Parser, RecoveryReportsEveryErrorInSourceOrder) {
  DiagnosticEngine diags;
  auto m = test::parse_text(
      "def f(x):\n"
      "    y = lambda: 1\n"      // 2: lambda
      "    z = x $ 1\n"           // 3: lexer error (the syntax error it causes is not repeated)
      "    return x +\n"          // 4: missing operand
      "def g(x):\n"
      "    try:\n"                // 6: try (its body still checked)
      "        w = [i for i in x]\n"  // 7: comprehension
      "    except E:\n"
      "        pass\n"
      "    return x\n"
      "def h(x):\n"
      "    return x * 2\n",
      diags);
  std::vector<int> lines;
  for (const auto &d : diags.diagnostics()) lines.push_back(d.loc.line);
  std::vector<int> expected = {2, 3, 4, 6, 7};
  EXPECT_EQ(lines, expected) << test::messages(diags);
  // The functions that parsed are still there.
  ASSERT_EQ(m->body.size(), 3u) << "f, g and h are kept: errors drop statements, not functions";
  EXPECT_EQ(m->body[2]->as<FunctionDef>()->name, "h");
}

TEST(Parser, UnexpectedIndentIsReportedAndParsingGoesOn) {
  DiagnosticEngine diags;
  auto m = test::parse_text("x = 1\n    y = 2\nz = 3\n", diags);
  ASSERT_EQ(diags.error_count(), 1) << test::messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].message, "unexpected indent");
  EXPECT_EQ(m->body.size(), 2u);
}

TEST(Parser, MissingIndentedBlockIsAnError) {
  DiagnosticEngine diags;
  test::parse_text("def f():\nreturn 1\n", diags);
  ASSERT_GE(diags.error_count(), 1);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "expected an indented block after function definition on line 1");
}

TEST(Parser, NestingWithinTheLimitParses) {
  std::string expr = std::string(150, '(') + "x" + std::string(150, ')');
  auto parsed = parse_expr(expr);
  EXPECT_FALSE(parsed->diags.has_errors()) << test::messages(parsed->diags);
  ASSERT_NE(parsed->expr, nullptr);
  EXPECT_TRUE(parsed->expr->isa<Name>());
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  const std::string deep_inputs[] = {
      std::string(20000, '(') + "x" + std::string(20000, ')'),
      std::string(20000, '[') + std::string(20000, ']'),
      std::string(20000, '-') + "x",
      [] {
        std::string s;
        for (int i = 0; i < 10000; ++i) s += "not ";
        return s + "x";
      }(),
      [] {
        std::string s = "x";
        for (int i = 0; i < 10000; ++i) s += " ** x";
        return s;
      }(),
      [] {
        // Past kMaxTreeDepth (100,000): a flat sum that long is an error.
        std::string s = "x";
        for (int i = 0; i < 100005; ++i) s += " + x";
        return s;
      }(),
      [] {
        std::string s = "f";
        for (int i = 0; i < 100005; ++i) s += "(x)";
        return s;
      }(),
      [] {
        std::string s = "x";
        for (int i = 0; i < 10000; ++i) s += " if x else x";
        return s;
      }(),
  };
  for (const auto &input : deep_inputs) {
    auto parsed = parse_expr(input);
    EXPECT_TRUE(parsed->diags.has_errors()) << input.substr(0, 40);
    EXPECT_LE(parsed->diags.error_count(), 2) << test::messages(parsed->diags);
    EXPECT_NE(parsed->diags.diagnostics()[0].message.find("nested"), std::string::npos)
        << parsed->diags.diagnostics()[0].message;
  }
}

TEST(Parser, LongFlatSumsWithinTheLimitParse) {
  std::string s = "x";
  for (int i = 0; i < 20000; ++i) s += " + x";
  auto parsed = parse_expr(s);
  EXPECT_FALSE(parsed->diags.has_errors()) << test::messages(parsed->diags);
}

TEST(Parser, GarbageNeverHangs) {
  const char *inputs[] = {
      ")))\n", "]]]\n", "def\n", "@\n", "if\n", "for in :\n", "else:\n    pass\n", 
      "import\n", "from\n", "from x\n", "def f(\n", "(\n", "x = [\n", "\\", "'", "\"\"\"",
      "def f():\n  if x:\n pass\n", "@a\n@b\n", "lambda", "f(x=)\n", ":\n    :\n",
  };
  for (const char *input : inputs) {
    DiagnosticEngine diags;
    auto m = test::parse_text(input, diags);
    EXPECT_NE(m, nullptr);
    EXPECT_TRUE(diags.has_errors()) << "input: " << input;
  }
}

/// The AST dump of `source`, which must parse without errors.
std::string dump_of(const std::string &source) {
  DiagnosticEngine diags;
  auto m = test::parse_text(source, diags);
  if (m == nullptr || diags.has_errors()) {
    ADD_FAILURE() << "the source does not parse: " << test::messages(diags);
    return "";
  }
  return frontend::dump_ast(*m);
}

TEST(DumpAst, OneNodePerLineWithLocations) {
  const std::string dump = dump_of(
      "@vectorize(['f4(f4)'])\ndef f(x):\n    '''d'''\n    if x > 0:\n        return -x ** 2\n"
      "    return x\n");
  std::string expected =
      "Module test.ufn\n"
      "  FunctionDef f(x) @2:1\n"
      "    decorators:\n"
      "      Call @1:2\n"
      "        Name vectorize @1:2\n"
      "        List @1:12\n"
      "          StrLit 'f4(f4)' @1:13\n"
      "    docstring 'd'\n"
      "    body:\n"
      "      If @4:5\n"
      "        Compare > @4:8\n"
      "          Name x @4:8\n"
      "          IntLit 0 @4:12\n"
      "        body:\n"
      "          Return @5:9\n"
      "            UnaryOp - @5:16\n"
      "              BinOp ** @5:17\n"
      "                Name x @5:17\n"
      "                IntLit 2 @5:22\n"
      "      Return @6:5\n"
      "        Name x @6:12\n";
  EXPECT_EQ(dump, expected);
}

TEST(DumpAst, AnElifChainIsPrintedBesideItsIfNotNestedInOrelse) {
  const std::string dump =
      dump_of("def f(x):\n    if x:\n        pass\n    elif x > 1:\n        pass\n    else:\n        return x\n");
  std::string expected =
      "Module test.ufn\n"
      "  FunctionDef f(x) @1:1\n"
      "    body:\n"
      "      If @2:5\n"
      "        Name x @2:8\n"
      "        body:\n"
      "          Pass @3:9\n"
      "        elif @4:5:\n"
      "          Compare > @4:10\n"
      "            Name x @4:10\n"
      "            IntLit 1 @4:14\n"
      "          body:\n"
      "            Pass @5:9\n"
      "        orelse:\n"
      "          Return @7:9\n"
      "            Name x @7:16\n";
  EXPECT_EQ(dump, expected);
}

TEST(DumpAst, TheDumpOfALongElifChainGrowsLinearly) {
  // Nested, 20,000 elifs printed 800 MB of indentation.
  std::string source = "def f(x):\n    if x == 0:\n        return 0\n";
  const int branches = 20000;
  for (int i = 1; i < branches; ++i) {
    source += "    elif x == " + std::to_string(i) + ":\n        return " + std::to_string(i) + "\n";
  }
  const std::string dump = dump_of(source);
  EXPECT_LT(dump.size(), static_cast<std::size_t>(branches) * 200);
  EXPECT_NE(dump.find("        elif @40000:5:\n"), std::string::npos);
}

TEST(DumpAst, TheDumpOfALongOperatorChainGrowsLinearly) {
  // `x + x + ... + x` is a tree as deep as it is long: past 64 levels a
  // line gives its depth instead of indenting further.
  const int terms = 20000;
  std::string source = "def f(x):\n    return x";
  for (int i = 1; i < terms; ++i) source += " + x";
  source += "\n";
  const std::string dump = dump_of(source);
  EXPECT_LT(dump.size(), static_cast<std::size_t>(terms) * 2 * 200);
  EXPECT_NE(dump.find(std::string(128, ' ') + "[depth 65] BinOp + @2:"), std::string::npos);
  EXPECT_NE(dump.find("[depth " + std::to_string(terms + 3) + "] Name x @2:12\n"), std::string::npos);
}

TEST(DumpTokens, OneTokenPerLineWithValues) {
  auto file = test::make_file("x = 0x1F + 1.5j\n");
  DiagnosticEngine diags;
  std::string expected =
      "1:1 Name 'x'\n"
      "1:3 Op '='\n"
      "1:5 Int '0x1F' = 31\n"
      "1:10 Op '+'\n"
      "1:12 Imag '1.5j' = 1.5j\n"
      "1:16 Newline\n"
      "1:16 EndMarker\n";
  EXPECT_EQ(frontend::dump_tokens(*file, diags), expected);
}

}  // namespace
}  // namespace ufjit::ast
