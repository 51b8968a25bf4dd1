// Numba's dynamic ufunc: a @vectorize without signatures is compiled for the
// operand types of each call that no earlier call had.
//
// Argument types come from the operands: an array's (or strong scalar's)
// dtype; a weak scalar (a plain number) follows NEP 50: with no strong
// operand it is its default (bool, int64, float64, complex128); beside
// strong operands it takes their promoted dtype when that is of the same or
// a higher kind (`float32` array + `2` -> float32), else its own kind's
// default (`int8` array + `2.5` -> float64; complex beside float32 ->
// complex64). The return type is inferred by the typer
// (ir::type_for_arguments). Each signature is added once, in call order, and
// its kernels are cached (memory, disk) as any signature's.
//
// Numba's dynamic gufunc (a layout-only @guvectorize, or is_dynamic=True) is
// the same mechanism over every operand: the inputs' dtypes as above, and
// each output's dtype from its out(...) array, or, without out(...), the
// inputs' common type (NumPy's result_type of the argument dtypes: float32
// and int64 inputs give float64 outputs); ir::type_gufunc types the body.
#pragma once

#include <memory>
#include <vector>

#include "runtime/RuntimeImpl.h"

namespace ufjit::runtime {

using SignatureList = std::shared_ptr<const std::vector<CompiledSignature>>;

/// The argument dtypes a dynamic ufunc is compiled for, for these inputs.
std::vector<DType> dynamic_argument_dtypes(const std::vector<const Operand *> &inputs);

/// A dynamic gufunc's output dtype when the call gives no out(...): the
/// common type of the input argument dtypes (float64 for no inputs).
DType gufunc_output_dtype(const std::vector<DType> &input_dtypes);

/// The signatures of `state` after making sure one takes exactly `args` (for
/// a gufunc: its inputs' dtypes, then its outputs'), typing and adding it
/// when missing; `chosen` is its index. Throws
/// CompileError when the function does not type for them.
SignatureList signatures_for(UfuncState &state, const std::vector<DType> &args, std::size_t &chosen);

/// The signature list a call of `state` with `operands` runs with: the
/// ufunc's own, or for a dynamic ufunc or gufunc the one signature for the
/// operands' types (compiled at the first such call).
SignatureList call_signatures(UfuncState &state, std::span<const Operand> operands);

}  // namespace ufjit::runtime
