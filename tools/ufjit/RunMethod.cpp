// `ufjit run --method` (tools/ufjit/RunMethod.h).
#include "RunMethod.h"

#include <charconv>

#include "Operands.h"
#include "Tool.h"

namespace ufjit::tool {

namespace {

int parse_axis(const std::string &text) {
  int value = 0;
  const char *first = text.data();
  const char *last = text.data() + text.size();
  auto [end, error] = std::from_chars(first, last, value);
  if (text.empty() || error != std::errc() || end != last) {
    throw UsageError("--axis takes an integer, a comma-separated list of integers or 'none'; got '" + text + "'");
  }
  return value;
}

std::vector<int> parse_axes(const std::string &text) {
  std::vector<int> axes;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    axes.push_back(parse_axis(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) {
      return axes;
    }
    start = comma + 1;
  }
}

}  // namespace

void check_method_options(const MethodOptions &options) {
  if (options.method.empty()) {
    if (!options.axis.empty() || !options.initial.empty() || options.keepdims || !options.dtype.empty() ||
        !options.where.empty()) {
      throw UsageError("--axis, --initial, --keepdims, --dtype and --where need --method reduce|accumulate|outer");
    }
    return;
  }
  if (options.method != "reduce" && (!options.initial.empty() || options.keepdims || !options.where.empty())) {
    throw UsageError("--initial, --keepdims and --where are options of --method reduce");
  }
  if (options.method == "outer" && !options.dtype.empty()) {
    throw UsageError("--dtype is an option of --method reduce and accumulate");
  }
  if (!options.dtype.empty() && !dtype_from_name(options.dtype)) {
    throw UsageError("--dtype takes a dtype name (int64, float32, complex128, ...); got '" + options.dtype + "'");
  }
  if (options.method == "outer" && !options.axis.empty()) {
    throw UsageError("--method outer takes no --axis");
  }
  if (options.method == "accumulate" && (options.axis == "none" || options.axis.find(',') != std::string::npos)) {
    throw UsageError("--method accumulate takes one --axis K");
  }
  if (!options.axis.empty() && options.axis != "none") {
    (void)parse_axes(options.axis);
  }
  if (!options.initial.empty() && !parse_scalar(options.initial)) {
    throw UsageError("--initial takes a number (2, -1.5, inf); got '" + options.initial + "'");
  }
}

AccumulateOptions accumulate_options(const MethodOptions &options) {
  AccumulateOptions accumulate;
  accumulate.axis = options.axis.empty() ? 0 : parse_axis(options.axis);
  if (!options.dtype.empty()) {
    accumulate.dtype = dtype_from_name(options.dtype);
  }
  return accumulate;
}

ReduceOptions reduce_options(const MethodOptions &options, const Array &where) {
  ReduceOptions reduce;
  reduce.all_axes = options.axis == "none";
  if (!options.axis.empty() && !reduce.all_axes) {
    reduce.axes = parse_axes(options.axis);
  }
  reduce.keepdims = options.keepdims;
  if (!options.initial.empty()) {
    reduce.initial = parse_scalar(options.initial);
  }
  if (!options.dtype.empty()) {
    reduce.dtype = dtype_from_name(options.dtype);
  }
  if (!options.where.empty()) {
    reduce.where = where.view();
  }
  return reduce;
}

Array run_method(const Ufunc &ufunc, const MethodOptions &options, const std::vector<Operand> &operands,
                 const Array &where) {
  const std::size_t wanted = options.method == "outer" ? 2 : 1;
  if (operands.size() != wanted) {
    throw UsageError("--method " + options.method + " takes " + std::to_string(wanted) + " --in, got " +
                     std::to_string(operands.size()));
  }
  if (options.method == "outer") {
    return ufunc.outer(operands[0], operands[1]);
  }
  if (options.method == "accumulate") {
    return ufunc.accumulate(operands[0], accumulate_options(options));
  }
  return ufunc.reduce(operands[0], reduce_options(options, where));
}

}  // namespace ufjit::tool
