// IR nodes, printer and verifier: invariants checked at make(), the exact
// text of the printer, and the verifier catching hand-built bad modules.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Numeric.h"
#include "ir/Verifier.h"
#include "ufjit/errors.h"

namespace ufjit::ir {
namespace {

Type f32() { return Type::scalar(DType::Float32); }
Type f64() { return Type::scalar(DType::Float64); }
Type i64() { return Type::scalar(DType::Int64); }

Expr var(const Type &t, const std::string &name) { return Var::make(t, name); }

/// A one-function module `name(x: float32) -> float32 { body }`.
Module single(Stmt body, std::vector<Variable> locals = {}) {
  Function f;
  f.name = "f";
  f.params = {{"x", f32()}};
  f.locals = std::move(locals);
  f.ret = f32();
  f.body = std::move(body);
  Module m;
  m.name = "f";
  m.functions.push_back(std::move(f));
  return m;
}

TEST(IRNodes, BinaryRejectsMixedOperandTypes) {
  EXPECT_THROW(Binary::make(BinaryOpcode::Add, var(f32(), "a"), var(f64(), "b")), InternalError);
}

TEST(IRNodes, DivIsOnlyForFloatsAndComplex) {
  EXPECT_THROW(Binary::make(BinaryOpcode::Div, var(i64(), "a"), var(i64(), "b")), InternalError);
  EXPECT_NO_THROW(Binary::make(BinaryOpcode::Div, var(f32(), "a"), var(f32(), "b")));
}

TEST(IRNodes, BitwiseRejectsFloats) {
  EXPECT_THROW(Binary::make(BinaryOpcode::BitAnd, var(f32(), "a"), var(f32(), "b")), InternalError);
  EXPECT_NO_THROW(Binary::make(BinaryOpcode::BitAnd, Const::make_bool(true), Const::make_bool(false)));
}

TEST(IRNodes, CompareGivesBoolAndRejectsOrderedComplex) {
  Expr c = Compare::make(CompareOpcode::Lt, var(f32(), "a"), var(f32(), "b"));
  EXPECT_EQ(c.type(), Type::scalar(DType::Bool));
  Type c64 = Type::scalar(DType::Complex64);
  EXPECT_THROW(Compare::make(CompareOpcode::Lt, var(c64, "a"), var(c64, "b")), InternalError);
  EXPECT_NO_THROW(Compare::make(CompareOpcode::Eq, var(c64, "a"), var(c64, "b")));
}

TEST(IRNodes, SelectNeedsBoolConditionAndEqualArms) {
  EXPECT_THROW(Select::make(var(f32(), "c"), var(f32(), "a"), var(f32(), "b")), InternalError);
  EXPECT_THROW(Select::make(Const::make_bool(true), var(f32(), "a"), var(f64(), "b")), InternalError);
  Expr s = Select::make(Const::make_bool(true), var(f32(), "a"), var(f32(), "b"));
  EXPECT_EQ(s.type(), f32());
}

TEST(IRNodes, CastIsScalarToScalar) {
  Expr t = MakeTuple::make({var(f32(), "a"), var(f32(), "b")});
  EXPECT_THROW(Cast::make(DType::Float64, t), InternalError);
  EXPECT_EQ(Cast::make(DType::Int8, var(f32(), "a")).type(), Type::scalar(DType::Int8));
}

TEST(IRNodes, TupleGetChecksIndex) {
  Expr t = MakeTuple::make({var(f32(), "a"), var(i64(), "b")});
  EXPECT_EQ(TupleGet::make(t, 1).type(), i64());
  EXPECT_THROW(TupleGet::make(t, 2), InternalError);
}

TEST(IRNodes, IntConstantsWrapToTheirWidth) {
  EXPECT_EQ(Const::make_int(DType::Int8, 200).as<Const>()->as_int64(), 200 - 256);
  EXPECT_EQ(Const::make_int(DType::UInt8, -1).as<Const>()->int_bits, 255u);
  EXPECT_EQ(Const::make_int(DType::Int64, -5).as<Const>()->as_int64(), -5);
}

TEST(IRNodes, FloatConstantsAreRoundedToTheirType) {
  EXPECT_EQ(Const::make_float(DType::Float32, 0.1).as<Const>()->float_value, static_cast<double>(0.1f));
  // float16: 11 significant bits; 1 + 2^-11 is a tie that rounds to even (1.0).
  EXPECT_EQ(Const::make_float(DType::Float16, 1.0 + std::ldexp(1.0, -11)).as<Const>()->float_value, 1.0);
  EXPECT_EQ(Const::make_float(DType::Float16, 1.0 + 3 * std::ldexp(1.0, -11)).as<Const>()->float_value,
            1.0 + std::ldexp(1.0, -9));
  EXPECT_TRUE(std::isinf(Const::make_float(DType::Float16, 65520.0).as<Const>()->float_value));
  EXPECT_EQ(Const::make_float(DType::Float16, 65504.0).as<Const>()->float_value, 65504.0);
  // Smallest float16 subnormal is 2^-24.
  EXPECT_EQ(Const::make_float(DType::Float16, std::ldexp(1.0, -25) * 1.5).as<Const>()->float_value,
            std::ldexp(1.0, -24));
}

TEST(IRNodes, NamesComeFromTheXMacroTables) {
  EXPECT_STREQ(node_kind_name(NodeKind::ForRange), "ForRange");
  EXPECT_STREQ(intrinsic_name(IntrinsicOp::Atan2), "atan2");
  EXPECT_EQ(intrinsic_arity(IntrinsicOp::Atan2), 2);
  EXPECT_EQ(intrinsic_arity(IntrinsicOp::Fma), 3);
  EXPECT_STREQ(binary_opcode_name(BinaryOpcode::FloorDiv), "//");
}

TEST(IRNodes, IntrinsicChecksArity) {
  EXPECT_THROW(Intrinsic::make(IntrinsicOp::Sin, f32(), {var(f32(), "a"), var(f32(), "b")}), InternalError);
}

// ------------------------------------------------------------------ printer

TEST(IRPrinter, FloatsPrintShortestRoundTrip) {
  EXPECT_EQ(format_double(0.5), "0.5");
  EXPECT_EQ(format_double(10.0), "10.0");
  EXPECT_EQ(format_double(0.1), "0.1");
  EXPECT_EQ(format_double(-0.0), "-0.0");
  EXPECT_EQ(format_double(1e300), "1e+300");
  EXPECT_EQ(format_double(INFINITY), "inf");
  EXPECT_EQ(format_double(NAN), "nan");
  EXPECT_EQ(format_double(2.5066282746310002), "2.5066282746310002");
  // A float32 constant prints the shortest text that rounds to it in float32.
  EXPECT_EQ(format_float(DType::Float32, static_cast<double>(0.1f)), "0.1");
  for (double v : {0.1, 1.0 / 3.0, 6.02214076e23, 5e-324, 123456789.123}) {
    EXPECT_EQ(std::strtod(format_double(v).c_str(), nullptr), v) << format_double(v);
  }
}

TEST(IRPrinter, FloatsPrintPositionalForExponentsFromMinusFourBelowSixteen) {
  EXPECT_EQ(format_double(0.0001), "0.0001");
  EXPECT_EQ(format_double(1.5e-5), "1.5e-05");
  EXPECT_EQ(format_double(1e15), "1000000000000000.0");
  EXPECT_EQ(format_double(1e16), "1e+16");
  EXPECT_EQ(format_double(-123.25), "-123.25");
  // More significant digits than the exponent: positional past 16, as %g.
  EXPECT_EQ(format_double(12345678901234568.0), "12345678901234568.0");
  // A float32 integer past its significant digits prints its own digits.
  EXPECT_EQ(format_float(DType::Float32, 423941184.0), "423941184.0");
  EXPECT_EQ(format_float(DType::Float32, static_cast<double>(1e-7f)), "1e-07");
  EXPECT_EQ(format_float(DType::Complex64, static_cast<double>(0.3f)), "0.3");
  // float16 (no std::to_chars): the shortest text that rounds to it in float16.
  EXPECT_EQ(format_float(DType::Float16, 0.0999755859375), "0.1");
  EXPECT_EQ(format_float(DType::Float16, 65504.0), "65504.0");
}

TEST(IRPrinter, PrintsConstantsWithTypes) {
  EXPECT_EQ(print(Const::make_float(DType::Float32, 0.5)), "0.5:float32");
  EXPECT_EQ(print(Const::make_int(DType::Int8, -3)), "-3:int8");
  EXPECT_EQ(print(Const::make_uint(DType::UInt64, ~uint64_t{0})), "18446744073709551615:uint64");
  EXPECT_EQ(print(Const::make_bool(true)), "True:bool");
  EXPECT_EQ(print(Const::make_complex(DType::Complex128, {1.0, -2.0})), "(1.0-2.0j):complex128");
}

TEST(IRPrinter, PrintsAWholeModule) {
  Expr x = var(f32(), "x");
  Expr t = var(f32(), "t");
  Stmt body = Block::make({
      Assign::make("t", Binary::make(BinaryOpcode::Mul, x, Const::make_float(DType::Float32, 0.5))),
      If::make(Compare::make(CompareOpcode::Gt, t, Const::make_float(DType::Float32, 1.0)),
               Return::make(Cast::make(DType::Float32, Cast::make(DType::Int64, t)))),
      Return::make(Intrinsic::make(IntrinsicOp::Sqrt, f32(), {t})),
  });
  Module m = single(body, {{"t", f32()}});
  std::string expected =
      "module f entry=f fastmath=false\n"
      "func f(x: float32) -> float32 {\n"
      "  var t: float32\n"
      "  t = (x * 0.5:float32)\n"
      "  if (t > 1.0:float32) {\n"
      "    return float32(int64(t))\n"
      "  }\n"
      "  return sqrt(t)\n"
      "}\n";
  EXPECT_EQ(print(m), expected);
  verify(m);
}

// ----------------------------------------------------------------- verifier

TEST(IRVerifier, AcceptsAWellFormedModule) {
  Module m = single(Return::make(var(f32(), "x")));
  EXPECT_NO_THROW(verify(m));
}

TEST(IRVerifier, RejectsAnUndeclaredVariable) {
  Module m = single(Return::make(var(f32(), "y")));
  EXPECT_THROW(verify(m), InternalError);
}

TEST(IRVerifier, RejectsAVariableUsedWithTheWrongType) {
  Module m = single(Return::make(Cast::make(DType::Float32, var(f64(), "x"))));
  EXPECT_THROW(verify(m), InternalError);
}

TEST(IRVerifier, RejectsAnAssignmentOfTheWrongType) {
  Module m = single(Block::make({Assign::make("t", var(f32(), "x")), Return::make(var(f32(), "x"))}), {{"t", f64()}});
  try {
    verify(m);
    FAIL() << "expected an InternalError";
  } catch (const InternalError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("function 'f'"), std::string::npos) << what;
    EXPECT_NE(what.find("'t'"), std::string::npos) << what;
  }
}

TEST(IRVerifier, RejectsAReturnOfTheWrongType) {
  Module m = single(Return::make(Cast::make(DType::Float64, var(f32(), "x"))));
  EXPECT_THROW(verify(m), InternalError);
}

TEST(IRVerifier, RejectsFallingOffANonVoidFunction) {
  Module m = single(Block::make({}));
  EXPECT_THROW(verify(m), InternalError);
}

TEST(IRVerifier, RejectsBreakOutsideALoop) {
  Module m = single(Block::make({Break::make(), Return::make(var(f32(), "x"))}));
  EXPECT_THROW(verify(m), InternalError);
}

TEST(IRVerifier, RejectsCallsOfMissingOrLaterFunctions) {
  Module m = single(Return::make(Call::make(f32(), "g", {var(f32(), "x")})));
  EXPECT_THROW(verify(m), InternalError);
  // g defined after its caller f (the order a cycle would force) is rejected too.
  Function g;
  g.name = "g";
  g.params = {{"y", f32()}};
  g.ret = f32();
  g.body = Return::make(var(f32(), "y"));
  m.functions.push_back(g);
  EXPECT_THROW(verify(m), InternalError);
  std::swap(m.functions[0], m.functions[1]);
  m.entry = 1;
  EXPECT_NO_THROW(verify(m));
}

TEST(IRVerifier, RejectsACallWithMismatchedArgumentTypes) {
  Function g;
  g.name = "g";
  g.params = {{"y", f64()}};
  g.ret = f32();
  g.body = Return::make(Cast::make(DType::Float32, var(f64(), "y")));
  Module m = single(Return::make(Call::make(f32(), "g", {var(f32(), "x")})));
  m.functions.insert(m.functions.begin(), g);
  m.entry = 1;
  EXPECT_THROW(verify(m), InternalError);
}

TEST(IRVerifier, RejectsAnIntrinsicWithTheWrongResultType) {
  Module m = single(Return::make(Intrinsic::make(IntrinsicOp::CAbs, f32(), {var(f32(), "x")})));
  EXPECT_THROW(verify(m), InternalError);
}

TEST(IRVerifier, LoopVariableMustMatchTheRangeType) {
  Stmt loop = ForRange::make("i", Const::make_int(DType::Int32, 0), Const::make_int(DType::Int32, 3),
                             Const::make_int(DType::Int32, 1), Block::make({}));
  Module bad = single(Block::make({loop, Return::make(var(f32(), "x"))}), {{"i", i64()}});
  EXPECT_THROW(verify(bad), InternalError);
  Module good = single(Block::make({loop, Return::make(var(f32(), "x"))}), {{"i", Type::scalar(DType::Int32)}});
  EXPECT_NO_THROW(verify(good));
}

// ------------------------------------------------------------------ mutator

/// Replaces float32 constants 0.5 by 0.25; everything else must stay shared.
class HalfToQuarter : public IRMutator {
 protected:
  using IRMutator::visit;
  Expr visit(const Const *op, const Expr &self) override {
    if (op->type == f32() && op->float_value == 0.5) return Const::make_float(DType::Float32, 0.25);
    return self;
  }
};

TEST(IRMutator, ReturnsTheSameNodeWhenNothingChanges) {
  Expr unchanged = Binary::make(BinaryOpcode::Add, var(f32(), "x"), Const::make_float(DType::Float32, 1.0));
  HalfToQuarter m;
  EXPECT_TRUE(m.mutate(unchanged).same_as(unchanged));
  Expr changed = Binary::make(BinaryOpcode::Add, unchanged, Const::make_float(DType::Float32, 0.5));
  Expr out = m.mutate(changed);
  EXPECT_FALSE(out.same_as(changed));
  EXPECT_TRUE(out.as<Binary>()->a.same_as(unchanged));
  EXPECT_EQ(print(out), "((x + 1.0:float32) + 0.25:float32)");
}

TEST(IRVisitor, ForEachExprSeesEveryNode) {
  Stmt s = Return::make(Binary::make(BinaryOpcode::Add, var(f32(), "x"), var(f32(), "x")));
  int vars = 0;
  for_each_expr(s, [&](const Expr &e) { vars += e.as<Var>() != nullptr ? 1 : 0; });
  EXPECT_EQ(vars, 2);
}

}  // namespace
}  // namespace ufjit::ir
