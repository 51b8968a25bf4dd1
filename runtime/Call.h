// The generic call algorithm of every ufunc on every target (runtime/Call.cpp).
#pragma once

#include <string>
#include <vector>

#include "runtime/RuntimeImpl.h"

namespace ufjit::runtime {

/// Runs a ufunc call: resolve signature -> broadcast -> place arguments ->
/// allocate output -> launch (Backend.h). `stream` null: synchronous.
/// Returns the result, or an empty Array when `out(...)` was given.
Array run_call(RuntimeCore &core, Backend &backend, const std::string &ufunc_name,
               const std::vector<CompiledSignature> &signatures, const std::vector<Operand> &operands,
               StreamImpl *stream);

/// Runs a gufunc call (@guvectorize; signatures[*].generalized()): resolve
/// on the input dtypes -> schedule (GufuncLayout.h: outer dims broadcast,
/// core dims checked) -> allocate outputs -> place inputs -> launch one core
/// call per outer element. Returns the new outputs in order, or none when
/// every output was given with out(...).
std::vector<Array> run_gufunc_call(RuntimeCore &core, Backend &backend, const std::string &ufunc_name,
                                   const std::vector<CompiledSignature> &signatures,
                                   const std::vector<Operand> &operands, StreamImpl *stream,
                                   const CoreAxes *axes = nullptr);

}  // namespace ufjit::runtime
