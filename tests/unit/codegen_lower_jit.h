// Test-only helpers for the codegen_lower_* suites: build small IR modules by
// hand, lower them for the Cpu target, optimize (O2) and JIT them with ORC's
// LLJIT, and call the entry through a generated wrapper
//   void ufjit_test_wrapper(void **args, void *result)
// that loads each parameter from args[k] (storage types: bool as one byte,
// float16 as its 16 bits, complex as two floats, tuples/arrays as C structs)
// and stores the result the same way. The real CPU compiler is elsewhere
// (codegen/HostJit*.cpp); this keeps the lowering tests independent of it.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/lower/Lowering.h"
#include "ir/IR.h"

namespace ufjit::codegen::testing {

/// A module with one function "f"(p0, p1, ... of `params`) returning
/// build(param vars); the return type is the built expression's type.
ir::Module expr_module(const std::vector<DType> &params,
                       const std::function<ir::Expr(const std::vector<ir::Expr> &)> &build,
                       bool fastmath = false);

/// A module with one function "f" with the given parameters, locals, return
/// type and body.
ir::Module stmt_module(const std::vector<ir::Variable> &params, const std::vector<ir::Variable> &locals,
                       const ir::Type &ret, const ir::Stmt &body);

ir::Expr var(DType t, const std::string &name);
ir::Type scalar(DType t);

/// A lowered, JIT-compiled module.
class Jit {
 public:
  explicit Jit(const ir::Module &module);
  ~Jit();
  Jit(const Jit &) = delete;
  Jit &operator=(const Jit &) = delete;

  /// Calls the entry; argument C types must match the parameters' storage
  /// types exactly (bool, int64_t, float, uint16_t for float16, ...).
  template <typename R, typename... Args>
  R call(Args... args) {
    void *pointers[sizeof...(Args) + 1] = {static_cast<void *>(&args)...};
    R result{};
    wrapper_(pointers, &result);
    return result;
  }
  /// For void entries.
  template <typename... Args>
  void run(Args... args) {
    void *pointers[sizeof...(Args) + 1] = {static_cast<void *>(&args)...};
    wrapper_(pointers, nullptr);
  }
  /// The optimized LLVM IR text (for failure messages).
  const std::string &ir_text() const { return ir_text_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  void (*wrapper_)(void **, void *) = nullptr;
  std::string ir_text_;
};

/// Lowers `module` into a fresh llvm::Module for `target` and returns its
/// textual IR; fails the test if the module does not verify.
std::string lower_to_text(const ir::Module &module, TargetKind target, bool fastmath = false);

/// float16 bits <-> float (round to nearest even), independent of the code
/// under test.
uint16_t float_to_half_bits(float f);
float half_bits_to_float(uint16_t h);

/// Distance in units in the last place between two floats of one type
/// (0 when both are NaN).
int64_t ulp_distance(double a, double b);
int64_t ulp_distance(float a, float b);

}  // namespace ufjit::codegen::testing
