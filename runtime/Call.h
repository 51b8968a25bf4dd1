// The generic call algorithm of every ufunc on every target (runtime/Call.cpp).
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "runtime/RuntimeImpl.h"

namespace ufjit::runtime {

class LastCallPlan;

/// Runs a ufunc call: resolve signature -> broadcast -> place arguments ->
/// allocate output -> launch (Backend.h). `stream` null: synchronous.
/// Returns the result, or an empty Array when `out(...)` was given.
/// `plan`: the ufunc's LastCallPlan (CallPlan.h), for a ufunc whose
/// `signatures` never change; the call records itself in it. The caller
/// tries `plan->run` first (before binding the call, runtime/Api.cpp): this
/// is the path of a call the plan did not run.
Array run_call(RuntimeCore &core, Backend &backend, const std::string &ufunc_name,
               const std::vector<CompiledSignature> &signatures, std::span<const Operand> operands,
               StreamImpl *stream, LastCallPlan *plan = nullptr);
/// run_call of a braced list: `run_call(core, backend, name, {sig}, {Operand(v)}, nullptr)`.
inline Array run_call(RuntimeCore &core, Backend &backend, const std::string &ufunc_name,
                      const std::vector<CompiledSignature> &signatures, std::initializer_list<Operand> operands,
                      StreamImpl *stream, LastCallPlan *plan = nullptr) {
  return run_call(core, backend, ufunc_name, signatures, std::span<const Operand>(operands.begin(), operands.size()),
                  stream, plan);
}

/// A new output of `shape` laid out in the memory order of
/// `full_shape_inputs` (NumPy's K); the Array's view has `shape`'s
/// dimension order.
Array allocate_call_output(Backend &backend, DType dtype, const Dims &shape,
                           const std::vector<ArrayView> &full_shape_inputs, Residence residence, StreamImpl *stream);

/// Runs a gufunc call (@guvectorize; signatures[*].generalized()): resolve
/// on the input dtypes -> schedule (GufuncLayout.h: outer dims broadcast,
/// core dims checked) -> allocate outputs -> place inputs -> launch one core
/// call per outer element. Returns the new outputs in order, or none when
/// every output was given with out(...).
std::vector<Array> run_gufunc_call(RuntimeCore &core, Backend &backend, const std::string &ufunc_name,
                                   const std::vector<CompiledSignature> &signatures,
                                   std::span<const Operand> operands, StreamImpl *stream,
                                   const CoreAxes *axes = nullptr);

}  // namespace ufjit::runtime
