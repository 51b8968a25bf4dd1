// CUDA C++ elementwise kernels as CuPy's ElementwiseKernel writes them
// (Runtime::elementwise): parameter lists with type placeholders and `raw`
// parameters, an operation, a preamble. Each (bound types, kernel variant)
// becomes one CUDA C++ entry following codegen/kernel/KernelABI.h, compiled by NVRTC
// and linked by nvJitLink, so that the runtime broadcasts, dispatches, sizes,
// stages and caches it as its own kernels.
//
// Raw parameters travel as two scalar operands, the device address (uint64)
// and the element count (int64), so the ABI needs nothing new. Several
// outputs make a gufunc of layout "(),()->(),()" (one Gufunc entry).
#pragma once

#include <string>
#include <vector>

#include "codegen/kernel/KernelABI.h"
#include "ufjit/runtime.h"

namespace ufjit::cudacpp {

/// One parameter: `float32 x`, `T y`, `raw T w`.
struct ElementwiseParam {
  std::string name;
  std::string type;  // a dtype name, or a placeholder ("T")
  bool raw = false;
  bool placeholder = false;
};

/// Parses a parameter list; throws CompileError located in
/// "<elementwise NAME in_params>" (or out_params).
std::vector<ElementwiseParam> parse_elementwise_params(const std::string &text, const std::string &where,
                                                       bool outputs);

/// The parsed kernel.
struct ElementwiseDef {
  std::string name;
  std::vector<ElementwiseParam> inputs;
  std::vector<ElementwiseParam> outputs;
  std::string operation;
  ElementwiseOptions options;
};

/// Parses and checks the definition (CompileError, located).
ElementwiseDef parse_elementwise(const std::string &in_params, const std::string &out_params,
                                 const std::string &operation, const std::string &name,
                                 const ElementwiseOptions &options);

/// The CUDA C++ of one entry: `types` binds every placeholder
/// ({"T", "float32"}), `entry` the kernel's name, `variant` its layout
/// (Contiguous, Strided or Gufunc; scalar_mask over the expanded inputs:
/// each raw parameter is two, its address and its size).
std::string elementwise_source(const ElementwiseDef &def, const std::vector<std::pair<std::string, DType>> &types,
                               const std::string &entry, const codegen::KernelVariant &variant);

/// NVRTC then nvJitLink: a loadable cubin for `arch`. CompileError located
/// in the user's strings.
std::string compile_elementwise(const ElementwiseDef &def, const std::string &source, const std::string &arch);

}  // namespace ufjit::cudacpp
