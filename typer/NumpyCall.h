// One np.* call being typed (NumpyCalls.cpp, NumpyFunctions.cpp).
#pragma once

#include <string>
#include <vector>

#include "typer/LibraryCall.h"

namespace ufjit::ir::typer {

/// One np.* call; its handlers are named by the tables of NumpyCalls.cpp
/// (NumPy's ufuncs) and NumpyFunctions.cpp (functions built from several
/// operations).
class NumpyCall : public LibraryCall {
 public:
  NumpyCall(BodyTyper &typer, const std::string &name, std::vector<Value> args, const ast::Call &call)
      : LibraryCall(typer, name, "np." + name, std::move(args), call,
                    "; the out= and where= forms are not supported") {}

  using Handler = Value (NumpyCall::*)();
  struct UnaryMath;
  struct BinaryMath;
  struct Arith;
  struct Comparison;

  Value run();
  /// The handler of a np.* function built from several operations
  /// (NumpyFunctions.cpp), or nullptr.
  static Handler composite_handler(const std::string &name);

  // The families of tables.
  Value unary_math(const UnaryMath &f);
  Value binary_math(const BinaryMath &f);
  Value arith(const Arith &f);
  Value comparison(const Comparison &f);
  // Two operands.
  Value minmax();
  Value logical();
  Value float_power();
  // One argument, as it is.
  Value logical_not();
  Value classify();
  // One number (x_).
  Value negative();
  Value positive();
  Value invert();
  Value absolute();
  Value conjugate();
  Value real_imag();
  Value square();
  Value reciprocal();
  Value sign();
  Value signbit();
  Value degrees_radians();
  // Built from several operations (NumpyFunctions.cpp).
  Value round();
  Value angle();
  Value scalar_function();
  Value float_parts();
  Value bitwise_count();
  Value ldexp();
  Value integer_pair();
  Value logaddexp();
  Value heaviside();

  /// The number x_ is made of argument 0 (numpy_operand); false after an error.
  bool take_number();

 private:
  /// "np.fn() is not supported for `what`" at the first argument.
  Value not_for(const Value &v, const std::string &what) { return t_.numpy_unsupported(name_, v, what, arg_loc(0)); }
  /// Brings the two arguments to one dtype as NumPy's binary ufuncs do (NEP 50).
  bool two_operands(Value &a, Value &b) { return t_.numpy_operands(a, b, name_, loc_); }
  /// The two arguments brought to one dtype, not complex; false after an error.
  bool real_pair(Value &a, Value &b);

  Value x_;  // the operand of a one-number function
};

}  // namespace ufjit::ir::typer
