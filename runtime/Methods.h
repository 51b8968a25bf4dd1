// The ufunc methods reduce, accumulate and outer (NumPy's `ufunc.reduce`,
// `ufunc.accumulate`, `ufunc.outer`), the same algorithm for every target:
//
//   choose the (T, T) -> T signature (dtype=, else dispatch on (out, a) or
//   (a, a)) -> check axes, `initial`, `where` and `out` -> move the method's
//   axes last and make the operand C-contiguous of T in the backend's memory
//   (one copy, only when needed; a masked reduce copies into rows that start
//   with the initial value) -> Backend::run_method over [rows, len], which
//   reports a raise of the kernel -> apply `initial` -> place the result (a
//   new array where `a` is, or cast into `out`).
//
// outer needs no kernel: a[..., None, ...] against b through broadcasting
// views, one ordinary call (runtime/Call.cpp). Copies, casts and the
// initial value go through run_call with the generated cast ufunc, so a
// device operand never comes to the host.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/RuntimeImpl.h"

namespace ufjit::runtime {

/// What a method needs of its ufunc.
struct MethodTarget {
  RuntimeCore &core;
  Backend &backend;
  const std::string &name;
  const std::vector<CompiledSignature> &signatures;
  Identity identity = Identity::None;
};

Array run_reduce(const MethodTarget &t, const Operand &a, const ReduceOptions &options, const std::optional<Out> &out);
Array run_accumulate(const MethodTarget &t, const Operand &a, const AccumulateOptions &options,
                     const std::optional<Out> &out);
Array run_outer(const MethodTarget &t, const Operand &a, const Operand &b, const std::optional<Out> &out);

}  // namespace ufjit::runtime
