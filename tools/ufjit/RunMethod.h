// `ufjit run --method reduce|accumulate|outer`: the ufunc methods on the
// command line (runtime/Methods.h), with NumPy's defaults (axis 0).
#pragma once

#include <string>
#include <vector>

#include "ufjit/runtime.h"

namespace ufjit::tool {

/// The method options as given on the command line.
struct MethodOptions {
  std::string method;   // "", "reduce", "accumulate", "outer"
  std::string axis;     // "", "K", "K,L,...", "none"
  std::string initial;  // "", or a number literal
  bool keepdims = false;
  std::string dtype;    // "", or a dtype name (reduce, accumulate)
  std::string where;    // "", or a .npy file of bools (reduce)
};

/// Throws UsageError when method options are given without --method, or do
/// not fit the method (--initial, --keepdims and --where are reduce's,
/// --dtype is reduce's and accumulate's), or --dtype names no dtype.
void check_method_options(const MethodOptions &options);

/// The options of --method accumulate and --method reduce (`where`: the
/// loaded --where array, or an empty Array).
AccumulateOptions accumulate_options(const MethodOptions &options);
ReduceOptions reduce_options(const MethodOptions &options, const Array &where);

/// Runs the method on `operands` (one array; two operands for outer);
/// `where` is the loaded --where array (empty without one).
Array run_method(const Ufunc &ufunc, const MethodOptions &options, const std::vector<Operand> &operands,
                 const Array &where);

}  // namespace ufjit::tool
