// Hand-built typed IR modules for the code-generation target tests and the
// compile benchmark: the seed kernels (add, sincos, gaussian, polar with a
// helper) and a few dtype cases (complex, float16, bool), built with the IR's
// make() functions so these tests do not depend on the typer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/IR.h"

namespace ufjit::test_ir {

inline ir::Type scalar(DType t) { return ir::Type::scalar(t); }

inline ir::Expr var(DType t, const std::string &name) { return ir::Var::make(scalar(t), name); }

inline ir::Expr bin(ir::BinaryOpcode op, ir::Expr a, ir::Expr b) {
  return ir::Binary::make(op, std::move(a), std::move(b));
}

inline ir::Expr call1(ir::IntrinsicOp op, DType t, ir::Expr a) { return ir::Intrinsic::make(op, scalar(t), {std::move(a)}); }

/// A one-function module `name(params) -> ret: return body`.
inline ir::Module single(const std::string &name, const std::vector<std::pair<std::string, DType>> &params, DType ret,
                         ir::Expr body, bool fastmath = false) {
  ir::Function fn;
  fn.name = name;
  for (const auto &[pname, t] : params) {
    fn.params.push_back({pname, scalar(t)});
  }
  fn.ret = scalar(ret);
  fn.body = ir::Block::make({ir::Return::make(std::move(body))});
  ir::Module m;
  m.name = name;
  m.functions.push_back(std::move(fn));
  m.entry = 0;
  m.options.fastmath = fastmath;
  return m;
}

/// add(x, y) = x + y
inline ir::Module add_module(DType t) {
  return single("add", {{"x", t}, {"y", t}}, t, bin(ir::BinaryOpcode::Add, var(t, "x"), var(t, "y")));
}

/// sincos(x) = cos(x) ** 2 + sin(x) ** 2 (the seed kernel; x ** 2 on floats is x * x)
inline ir::Module sincos_module(DType t) {
  ir::Expr c = call1(ir::IntrinsicOp::Cos, t, var(t, "x"));
  ir::Expr s = call1(ir::IntrinsicOp::Sin, t, var(t, "x"));
  return single("sincos", {{"x", t}}, t,
                bin(ir::BinaryOpcode::Add, bin(ir::BinaryOpcode::Mul, c, c), bin(ir::BinaryOpcode::Mul, s, s)));
}

/// gaussian_pdf(x, mean, sigma) = exp(-0.5 * t * t) / (sigma * SQRT_2PI), t = (x - mean) / sigma
inline ir::Module gaussian_module(DType t, bool fastmath = false) {
  using ir::BinaryOpcode;
  ir::Expr x = var(t, "x");
  ir::Expr mean = var(t, "mean");
  ir::Expr sigma = var(t, "sigma");
  ir::Expr z = bin(BinaryOpcode::Div, bin(BinaryOpcode::Sub, x, mean), sigma);
  ir::Expr arg = bin(BinaryOpcode::Mul, bin(BinaryOpcode::Mul, ir::Const::make_float(t, -0.5), z), z);
  ir::Expr num = call1(ir::IntrinsicOp::Exp, t, arg);
  ir::Expr den = bin(BinaryOpcode::Mul, sigma, ir::Const::make_float(t, 2.5066282746310002));
  return single("gaussian_pdf", {{"x", t}, {"mean", t}, {"sigma", t}}, t, bin(BinaryOpcode::Div, num, den), fastmath);
}

/// muladd(a, b, c) = a * b + c: FMA contraction shows up only with fastmath.
inline ir::Module muladd_module(DType t, bool fastmath) {
  ir::Expr prod = bin(ir::BinaryOpcode::Mul, var(t, "a"), var(t, "b"));
  return single("muladd", {{"a", t}, {"b", t}, {"c", t}}, t, bin(ir::BinaryOpcode::Add, prod, var(t, "c")), fastmath);
}

/// polar_distance(rho1, theta1, rho2, theta2) with the helper
/// polar_to_cartesian(rho, theta) -> (rho cos theta, rho sin theta).
inline ir::Module polar_module(DType t) {
  using ir::BinaryOpcode;
  ir::Type pair = ir::Type::tuple({scalar(t), scalar(t)});
  ir::Function helper;
  helper.name = "polar_to_cartesian";
  helper.params = {{"rho", scalar(t)}, {"theta", scalar(t)}};
  helper.ret = pair;
  ir::Expr rho = var(t, "rho");
  ir::Expr theta = var(t, "theta");
  helper.body = ir::Block::make({ir::Return::make(
      ir::MakeTuple::make({bin(BinaryOpcode::Mul, rho, call1(ir::IntrinsicOp::Cos, t, theta)),
                           bin(BinaryOpcode::Mul, rho, call1(ir::IntrinsicOp::Sin, t, theta))}))});

  ir::Function fn;
  fn.name = "polar_distance";
  fn.params = {{"rho1", scalar(t)}, {"theta1", scalar(t)}, {"rho2", scalar(t)}, {"theta2", scalar(t)}};
  fn.locals = {{"p1", pair}, {"p2", pair}};
  fn.ret = scalar(t);
  ir::Expr p1 = ir::Var::make(pair, "p1");
  ir::Expr p2 = ir::Var::make(pair, "p2");
  ir::Expr dx = bin(BinaryOpcode::Sub, ir::TupleGet::make(p1, 0), ir::TupleGet::make(p2, 0));
  ir::Expr dy = bin(BinaryOpcode::Sub, ir::TupleGet::make(p1, 1), ir::TupleGet::make(p2, 1));
  ir::Expr sum = bin(BinaryOpcode::Add, bin(BinaryOpcode::Mul, dx, dx), bin(BinaryOpcode::Mul, dy, dy));
  fn.body = ir::Block::make({
      ir::Assign::make("p1", ir::Call::make(pair, "polar_to_cartesian", {var(t, "rho1"), var(t, "theta1")})),
      ir::Assign::make("p2", ir::Call::make(pair, "polar_to_cartesian", {var(t, "rho2"), var(t, "theta2")})),
      ir::Return::make(call1(ir::IntrinsicOp::Sqrt, t, sum)),
  });
  ir::Module m;
  m.name = "polar_distance";
  m.functions.push_back(std::move(helper));
  m.functions.push_back(std::move(fn));
  m.entry = 1;
  return m;
}

/// cmuladd(z, w) = z * w + z on a complex type.
inline ir::Module complex_module(DType t) {
  ir::Expr z = var(t, "z");
  ir::Expr w = var(t, "w");
  return single("cmuladd", {{"z", t}, {"w", t}}, t,
                bin(ir::BinaryOpcode::Add, bin(ir::BinaryOpcode::Mul, z, w), z));
}

/// hmul(a, b) = a * b + a in float16.
inline ir::Module half_module() {
  DType t = DType::Float16;
  ir::Expr a = var(t, "a");
  return single("hmul", {{"a", t}, {"b", t}}, t,
                bin(ir::BinaryOpcode::Add, bin(ir::BinaryOpcode::Mul, a, var(t, "b")), a));
}

/// greater(x, y) = x > y: float64 inputs, bool output.
inline ir::Module greater_module() {
  DType t = DType::Float64;
  return single("greater", {{"x", t}, {"y", t}}, DType::Bool,
                ir::Compare::make(ir::CompareOpcode::Gt, var(t, "x"), var(t, "y")));
}

}  // namespace ufjit::test_ir
