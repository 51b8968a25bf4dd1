// Control flow, variables, calls, tuples and arrays of the scalar lowering.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

#include "codegen_lower_jit.h"

namespace ufjit::codegen::testing {
namespace {

using ir::BinaryOpcode;
using ir::CompareOpcode;

ir::Expr i64(int64_t v) { return ir::Const::make_int(DType::Int64, v); }

ir::Stmt assign(const std::string &name, ir::Expr value) { return ir::Assign::make(name, std::move(value)); }

ir::Expr add(ir::Expr a, ir::Expr b) { return ir::Binary::make(BinaryOpcode::Add, std::move(a), std::move(b)); }

struct CountAndLast {
  int64_t count;
  int64_t last;
};

/// f(start, stop, step) -> (iterations, value of i after the loop), i = -12345 before.
ir::Module range_module(DType t) {
  ir::Expr i = var(t, "i");
  ir::Expr count = var(DType::Int64, "count");
  ir::Stmt body = ir::Block::make({
      assign("i", ir::Const::make_int(t, -12345)),
      assign("count", i64(0)),
      ir::ForRange::make("i", var(t, "start"), var(t, "stop"), var(t, "step"),
                         ir::Block::make({assign("count", add(count, i64(1)))})),
      ir::Return::make(ir::MakeTuple::make({count, ir::Cast::make(DType::Int64, i)})),
  });
  return stmt_module({{"start", scalar(t)}, {"stop", scalar(t)}, {"step", scalar(t)}},
                     {{"i", scalar(t)}, {"count", scalar(DType::Int64)}},
                     ir::Type::tuple({scalar(DType::Int64), scalar(DType::Int64)}), body);
}

/// Python's range, walked in __int128 so that nothing overflows.
CountAndLast python_range(__int128 start, __int128 stop, __int128 step, int64_t before) {
  CountAndLast r{0, before};
  if (step == 0) {
    return r;
  }
  for (__int128 v = start; step > 0 ? v < stop : v > stop; v += step) {
    r.count += 1;
    r.last = static_cast<int64_t>(v);
  }
  return r;
}

TEST(LowerControl, ForRangeFollowsPythonRangeWithoutOverflow) {
  Jit range(range_module(DType::Int64));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  struct Case {
    int64_t start, stop, step;
  };
  const Case cases[] = {{0, 10, 1},      {0, 10, 3},          {10, 0, -3},          {5, 5, 1},
                        {5, 0, 1},       {0, 5, -1},          {0, 10, 0},           {-3, 4, 2},
                        {kMax - 5, kMax, 2}, {kMin + 5, kMin, -2}, {kMax - 1, kMax, kMax}, {kMin, kMin + 3, 1},
                        {kMax, kMax - 3, kMin}};
  for (const Case &c : cases) {
    CountAndLast actual = range.call<CountAndLast>(c.start, c.stop, c.step);
    CountAndLast expected = python_range(c.start, c.stop, c.step, -12345);
    EXPECT_EQ(actual.count, expected.count) << "range(" << c.start << ", " << c.stop << ", " << c.step << ")";
    EXPECT_EQ(actual.last, expected.last) << "range(" << c.start << ", " << c.stop << ", " << c.step << ")";
  }
}

TEST(LowerControl, ForRangeOnInt8CoversTheWholeTypeWithoutOverflow) {
  Jit range(range_module(DType::Int8));
  const int8_t cases[][3] = {{-128, 127, 100}, {127, -128, -128}, {-128, 127, 1}, {100, 120, 127}};
  for (const auto &c : cases) {
    CountAndLast actual = range.call<CountAndLast>(c[0], c[1], c[2]);
    CountAndLast expected = python_range(c[0], c[1], c[2], static_cast<int8_t>(-12345));
    EXPECT_EQ(actual.count, expected.count) << int(c[0]) << ", " << int(c[1]) << ", " << int(c[2]);
    EXPECT_EQ(actual.last, expected.last) << int(c[0]) << ", " << int(c[1]) << ", " << int(c[2]);
  }
}

TEST(LowerControl, AssigningTheLoopVariableDoesNotChangeTheIteration) {
  ir::Expr count = var(DType::Int64, "count");
  ir::Stmt body = ir::Block::make({
      assign("count", i64(0)),
      ir::ForRange::make("i", i64(0), var(DType::Int64, "n"), i64(1),
                         ir::Block::make({assign("count", add(count, i64(1))), assign("i", i64(100))})),
      ir::Return::make(ir::MakeTuple::make({count, var(DType::Int64, "i")})),
  });
  Jit jit(stmt_module({{"n", scalar(DType::Int64)}}, {{"i", scalar(DType::Int64)}, {"count", scalar(DType::Int64)}},
                      ir::Type::tuple({scalar(DType::Int64), scalar(DType::Int64)}), body));
  CountAndLast r = jit.call<CountAndLast>(int64_t{5});
  EXPECT_EQ(r.count, 5);
  EXPECT_EQ(r.last, 100);
}

TEST(LowerControl, BreakAndContinue) {
  // s = 0; for i in range(n): if i == 7: break; if i % 2 == 0: continue; s += i
  ir::Expr i = var(DType::Int64, "i");
  ir::Expr s = var(DType::Int64, "s");
  ir::Stmt loop_body = ir::Block::make({
      ir::If::make(ir::Compare::make(CompareOpcode::Eq, i, i64(7)), ir::Block::make({ir::Break::make()})),
      ir::If::make(ir::Compare::make(CompareOpcode::Eq, ir::Binary::make(BinaryOpcode::Mod, i, i64(2)), i64(0)),
                   ir::Block::make({ir::Continue::make()})),
      assign("s", add(s, i)),
  });
  ir::Stmt body = ir::Block::make({
      assign("s", i64(0)),
      ir::ForRange::make("i", i64(0), var(DType::Int64, "n"), i64(1), loop_body),
      ir::Return::make(s),
  });
  Jit jit(stmt_module({{"n", scalar(DType::Int64)}}, {{"i", scalar(DType::Int64)}, {"s", scalar(DType::Int64)}},
                      scalar(DType::Int64), body));
  EXPECT_EQ(jit.call<int64_t>(int64_t{100}), 1 + 3 + 5);
  EXPECT_EQ(jit.call<int64_t>(int64_t{4}), 1 + 3);
}

TEST(LowerControl, WhileWithReturnInsideTheLoop) {
  // Collatz steps: while True: if n == 1: return steps; n = n//2 if n%2==0 else 3n+1; steps += 1
  ir::Expr n = var(DType::Int64, "n");
  ir::Expr steps = var(DType::Int64, "steps");
  ir::Expr even = ir::Compare::make(CompareOpcode::Eq, ir::Binary::make(BinaryOpcode::Mod, n, i64(2)), i64(0));
  ir::Expr next = ir::Select::make(even, ir::Binary::make(BinaryOpcode::FloorDiv, n, i64(2)),
                                   add(ir::Binary::make(BinaryOpcode::Mul, n, i64(3)), i64(1)));
  ir::Stmt body = ir::Block::make({
      assign("steps", i64(0)),
      ir::While::make(ir::Const::make_bool(true),
                      ir::Block::make({
                          ir::If::make(ir::Compare::make(CompareOpcode::Eq, n, i64(1)),
                                       ir::Block::make({ir::Return::make(steps), assign("steps", i64(-1))})),
                          assign("n", next),
                          assign("steps", add(steps, i64(1))),
                      })),
  });
  Jit jit(stmt_module({{"n", scalar(DType::Int64)}}, {{"steps", scalar(DType::Int64)}}, scalar(DType::Int64), body));
  EXPECT_EQ(jit.call<int64_t>(int64_t{27}), 111);
  EXPECT_EQ(jit.call<int64_t>(int64_t{1}), 0);
}

TEST(LowerControl, IfElseChoosesOneBranch) {
  ir::Expr x = var(DType::Float64, "x");
  ir::Stmt body = ir::Block::make({
      ir::If::make(ir::Compare::make(CompareOpcode::Lt, x, ir::Const::make_float(DType::Float64, 0.0)),
                   ir::Block::make({assign("r", ir::Unary::make(ir::UnaryOpcode::Neg, x))}),
                   ir::Block::make({assign("r", x)})),
      ir::Return::make(var(DType::Float64, "r")),
  });
  Jit jit(stmt_module({{"x", scalar(DType::Float64)}}, {{"r", scalar(DType::Float64)}}, scalar(DType::Float64), body));
  EXPECT_EQ(jit.call<double>(-2.5), 2.5);
  EXPECT_EQ(jit.call<double>(3.0), 3.0);
}

TEST(LowerControl, ShortCircuitReturnsAnOperandByPythonTruthiness) {
  auto module = [](ir::ShortCircuit::Op op, DType t, bool trivial_b) {
    return expr_module({t, t}, [=](const std::vector<ir::Expr> &p) {
      ir::Expr b = trivial_b ? p[1] : ir::Binary::make(BinaryOpcode::Mul, p[1], ir::Const::make(t, 2.0));
      return ir::ShortCircuit::make(op, p[0], b);
    });
  };
  for (bool trivial : {true, false}) {
    int64_t factor = trivial ? 1 : 2;
    Jit and_op(module(ir::ShortCircuit::Op::And, DType::Int64, trivial));
    Jit or_op(module(ir::ShortCircuit::Op::Or, DType::Int64, trivial));
    EXPECT_EQ(and_op.call<int64_t>(int64_t{0}, int64_t{5}), 0);
    EXPECT_EQ(and_op.call<int64_t>(int64_t{3}, int64_t{5}), 5 * factor);
    EXPECT_EQ(or_op.call<int64_t>(int64_t{0}, int64_t{5}), 5 * factor);
    EXPECT_EQ(or_op.call<int64_t>(int64_t{3}, int64_t{5}), 3);
    Jit float_or(module(ir::ShortCircuit::Op::Or, DType::Float64, trivial));
    EXPECT_TRUE(std::isnan(float_or.call<double>(std::numeric_limits<double>::quiet_NaN(), 1.0))) << "NaN is truthy";
    EXPECT_EQ(float_or.call<double>(-0.0, 1.0), 1.0 * static_cast<double>(factor)) << "-0.0 is falsy";
  }
}

TEST(LowerControl, SelectAndShortCircuitEvaluateOnlyTheChosenArmInBranches) {
  ir::Module m = expr_module({DType::Float64, DType::Bool}, [](const std::vector<ir::Expr> &p) {
    ir::Expr expensive = ir::Intrinsic::make(ir::IntrinsicOp::Sin, scalar(DType::Float64), {p[0]});
    return ir::Select::make(p[1], expensive, p[0]);
  });
  std::string text = lower_to_text(m, TargetKind::Cpu);
  EXPECT_NE(text.find("phi double"), std::string::npos) << text;
  EXPECT_NE(text.find("br i1"), std::string::npos) << text;
}

TEST(LowerControl, SelectJoinsTuplesAndComplexValues) {
  Jit tuples(expr_module({DType::Bool, DType::Float64}, [](const std::vector<ir::Expr> &p) {
    ir::Expr x = p[1];
    ir::Expr twice = ir::Binary::make(BinaryOpcode::Mul, x, ir::Const::make_float(DType::Float64, 2.0));
    ir::Expr thrice = ir::Binary::make(BinaryOpcode::Mul, x, ir::Const::make_float(DType::Float64, 3.0));
    ir::Expr chosen = ir::Select::make(p[0], ir::MakeTuple::make({x, twice}), ir::MakeTuple::make({thrice, x}));
    return ir::Binary::make(BinaryOpcode::Sub, ir::TupleGet::make(chosen, 0), ir::TupleGet::make(chosen, 1));
  }));
  EXPECT_EQ(tuples.call<double>(true, 5.0), 5.0 - 10.0);
  EXPECT_EQ(tuples.call<double>(false, 5.0), 15.0 - 5.0);
  Jit complex_or(expr_module({DType::Complex128, DType::Complex128}, [](const std::vector<ir::Expr> &p) {
    ir::Expr doubled = ir::Binary::make(BinaryOpcode::Add, p[1], p[1]);
    return ir::ShortCircuit::make(ir::ShortCircuit::Op::Or, p[0], doubled);
  }));
  using C128 = std::complex<double>;
  EXPECT_EQ(complex_or.call<C128>(C128(0.0, -0.0), C128(1, 2)), C128(2, 4)) << "0j is falsy";
  EXPECT_EQ(complex_or.call<C128>(C128(0.0, 1.0), C128(1, 2)), C128(0, 1)) << "1j is truthy";
}

TEST(LowerControl, CallsBetweenFunctionsPassTuples) {
  // polar(r, t) -> (r*cos t, r*sin t); f(r, t) = polar(r, t)[0] + polar(r, t)[1]
  ir::Module m;
  m.name = "test";
  ir::Type f64 = scalar(DType::Float64);
  ir::Type pair = ir::Type::tuple({f64, f64});
  ir::Function polar;
  polar.name = "polar";
  polar.params = {{"r", f64}, {"t", f64}};
  polar.ret = pair;
  ir::Expr r = var(DType::Float64, "r");
  ir::Expr t = var(DType::Float64, "t");
  ir::Expr cos = ir::Intrinsic::make(ir::IntrinsicOp::Cos, f64, {t});
  ir::Expr sin = ir::Intrinsic::make(ir::IntrinsicOp::Sin, f64, {t});
  polar.body = ir::Block::make({ir::Return::make(ir::MakeTuple::make(
      {ir::Binary::make(BinaryOpcode::Mul, r, cos), ir::Binary::make(BinaryOpcode::Mul, r, sin)}))});
  ir::Function f;
  f.name = "f";
  f.params = polar.params;
  f.locals = {{"xy", pair}};
  f.ret = f64;
  ir::Expr xy = ir::Var::make(pair, "xy");
  f.body = ir::Block::make({
      assign("xy", ir::Call::make(pair, "polar", {r, t})),
      ir::Return::make(add(ir::TupleGet::make(xy, 0), ir::TupleGet::make(xy, 1))),
  });
  m.functions = {polar, f};
  m.entry = 1;
  Jit jit(m);
  EXPECT_DOUBLE_EQ(jit.call<double>(2.0, 0.5), 2.0 * std::cos(0.5) + 2.0 * std::sin(0.5));
}

struct View1D {
  void *data;
  int64_t shape[1];
  int64_t strides[1];
};

TEST(LowerControl, ArraysLoadAndStoreThroughByteStrides) {
  // dot-like: acc = 0; for i in range(a.shape[0]): acc += a[i]; out[0] = acc
  ir::Type arr = ir::Type::array(DType::Float64, 1);
  ir::Expr a = ir::Var::make(arr, "a");
  ir::Expr out = ir::Var::make(arr, "out");
  ir::Expr i = var(DType::Int64, "i");
  ir::Expr acc = var(DType::Float64, "acc");
  ir::Stmt body = ir::Block::make({
      assign("acc", ir::Const::make_float(DType::Float64, 0.0)),
      ir::ForRange::make("i", i64(0), ir::ArrayDim::make(a, 0), i64(1),
                         ir::Block::make({assign("acc", add(acc, ir::ArrayLoad::make(a, {i})))})),
      ir::ArrayStore::make(out, {i64(0)}, acc),
  });
  Jit jit(stmt_module({{"a", arr}, {"out", arr}}, {{"i", scalar(DType::Int64)}, {"acc", scalar(DType::Float64)}},
                      ir::Type::void_type(), body));
  double data[6] = {1, 100, 2, 200, 3, 300};
  double result[1] = {0};
  View1D every_other{data, {3}, {2 * sizeof(double)}};
  View1D out_view{result, {1}, {sizeof(double)}};
  jit.run(every_other, out_view);
  EXPECT_EQ(result[0], 6.0);
}

}  // namespace
}  // namespace ufjit::codegen::testing
