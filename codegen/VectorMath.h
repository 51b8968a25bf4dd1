// Internal to codegen/: vector math libraries for the host JIT's loop
// vectorizer. A loop that calls `sinf` can be widened only when a vector
// `sinf` of the same width exists; these tables tell LLVM's
// TargetLibraryInfo which functions of which library to call, for the
// instruction sets the host has (a variant is listed only when the host can
// run it, and only when its symbol resolves in the process).
//
//   Sleef    SLEEF's 1-ulp functions (`Sleef_sinf16_u10avx512f`, max error
//            1.0 ulp, 1.5 for erfc, 0.5 for hypot): the default, accurate math.
//   Libmvec  glibc's vector math (`_ZGVeN16v_sinf`, up to 4 ulp): fastmath only.
//
// docs/PERFORMANCE.md ("CPU target: vector math") has the measured errors.
#pragma once

#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetLibraryInfoImpl;
}

namespace ufjit::codegen {

enum class VectorMathLibrary { None, Sleef, Libmvec };

/// "sleef", "libmvec" or "none".
const char *vector_math_name(VectorMathLibrary library);

/// Loads the library into the process (once; thread-safe) so that the JIT's
/// process symbol generator resolves its functions. False when it is not
/// installed (SLEEF comes from Debian's libsleef3) or for None.
bool load_vector_math(VectorMathLibrary library);

/// Registers with `tli` the vector variants of `library` that the host can
/// run, given the target features of the JIT (LLVM's "+avx2" style). The
/// library must be loaded; variants whose symbol is missing are left out.
/// Returns how many variants were registered.
std::size_t add_vector_math(llvm::TargetLibraryInfoImpl &tli, VectorMathLibrary library,
                            const std::vector<std::string> &host_features);

/// After vectorization: replaces each pair of SLEEF vector sin and cos calls
/// on one argument in one block (`sin(x)` and `cos(x)` in one element, as in
/// the sincos and polar_distance seeds) by one call to SLEEF's sincos of the
/// same width and accuracy, which shares the argument reduction (same
/// results, about half the time). Returns how many pairs it fused.
std::size_t fuse_vector_sincos(llvm::Module &module);

/// After vectorization: SLEEF's sinh, cosh, log1p and pow give inf for some
/// arguments whose result is finite (sinh(710.0) = 1.1e308, log1p(1e308) =
/// 709.2, pow(DBL_MAX, 1.0); found by differential fuzzing against NumPy).
/// After each such call, a vector with an infinite lane is recomputed lane by
/// lane with the scalar C function, which is exact there; other vectors pay
/// one compare. Returns how many calls it guarded.
std::size_t recompute_overflowed_lanes(llvm::Module &module);

}  // namespace ufjit::codegen
