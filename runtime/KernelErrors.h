// Errors raised by kernel code (LANGUAGE.md section 5, "Errors in kernels"):
// the error flag a raising kernel writes (codegen/kernel/KernelABI.h) turned into a
// ufjit::KernelError that names the ufunc, the exception and where it was raised.
#pragma once

#include <cstdint>

#include "codegen/kernel/KernelCheck.h"
#include "runtime/Backend.h"

namespace ufjit::runtime {

/// Whether calls of `sig` pass the error-flag parameter.
bool can_raise(const CompiledSignature &sig);

/// Throws the KernelError of raise site `site` of `sig`'s module when `site`
/// is not 0 (a site the module lacks is an internal error).
void check_raised(const CompiledSignature &sig, uint32_t site);

/// "(x, y, z)": a thread's or block's coordinates in messages.
std::string coordinates_text(const int32_t v[3]);

/// The same for a checked kernel's record (codegen/kernel/KernelCheck.h):
/// the message also gives the raise's values (a bad index and its extent)
/// and the thread that raised.
void check_raised(const CompiledSignature &sig, const codegen::KernelCheckRecord &record);

}  // namespace ufjit::runtime
