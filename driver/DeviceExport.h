// `ufjit compile --emit device-ptx`: one ufunc's scalar function as an
// `extern "C" __device__` function plus its C header (codegen/DeviceFunction.h),
// chosen by --func, --signature and named by --symbol.
#pragma once

#include "typer/Typer.h"
#include "ufjit/compiler.h"

namespace ufjit::driver {

/// Fills result.output (PTX) and result.header for `request`. Throws
/// ufjit::Error when the ufunc or signature is missing or ambiguous, the
/// ABI is unknown, or a type has no C ABI; DeviceLtoIr is refused with the
/// reason and what to use instead.
void emit_device_function(const ir::TypedProgram &program, const CompileRequest &request, CompileResult &result);

}  // namespace ufjit::driver
