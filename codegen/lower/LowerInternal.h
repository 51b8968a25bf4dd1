// Private to the scalar lowering (codegen/Lower*.cpp): the shared state of one
// lower_module call and the emit helpers that the node families use.
//
// The helpers take an Emitter (a builder positioned in some LLVM function and
// the module state), so that the same code emits both the bodies of IR
// functions and the bodies of the helper functions we add once per module
// (integer pow, complex division and the cmath functions).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/lower/Lowering.h"

namespace ufjit::codegen::lower {

/// State shared by every function lowered in one lower_module call.
struct ModuleState {
  llvm::Module &module;
  LoweringTarget target;
  std::string prefix;
  /// IR function name -> its LLVM function.
  std::map<std::string, llvm::Function *> functions;
  /// The functions cut from long if/elif chains (LowerParts.cpp), each with
  /// the IR function's LLVM function it was cut from.
  std::vector<std::pair<llvm::Function *, llvm::Function *>> parts;
  /// The module has raise sites: every IR function takes a last parameter,
  /// the error flag (a pointer to a uint32; may be null). LowerRaise.cpp.
  bool can_raise = false;
  /// An explicit kernel's module on the CPU: every IR function takes the
  /// thread's context (codegen/kernel/CpuKernelContext.h) last.
  bool kernel_context = false;
  /// The kernel function that the CPU target splits at its barriers
  /// (codegen/lower/KernelRegions.h), when it is one.
  const ir::Function *split_function = nullptr;
  /// A checked kernel's module on the CPU (ir::Module::checked): the error
  /// flag points at a KernelCheckRecord (codegen/kernel/KernelCheck.h).
  bool checked_cpu = false;
  /// ir::Module::shared_bytes of the module being lowered.
  int64_t shared_bytes = 0;
  /// The globals holding constant arrays' data, by that data (one global per
  /// distinct array however often it is read).
  std::map<std::string, llvm::GlobalVariable *> constant_arrays;

  llvm::LLVMContext &ctx() const { return module.getContext(); }
  /// Fast-math flags for float operations: empty unless target.fastmath.
  llvm::FastMathFlags fast_math_flags() const;
  /// Name of a helper shared by all modules lowered into `module` with the
  /// same float options: "ufjit.<what>" or "ufjit.<what>.fast".
  std::string helper_name(const std::string &what) const;
};

/// A builder positioned in an LLVM function, plus the module state.
struct Emitter {
  ModuleState &ms;
  llvm::IRBuilder<> &b;
  llvm::LLVMContext &ctx() const { return ms.ctx(); }
  /// An alloca in the entry block of the current function.
  llvm::AllocaInst *entry_alloca(llvm::Type *type, const char *name);
};

// ---------------------------------------------------------------- LowerTypes.cpp

/// The float component type of a float or complex dtype (Float16 -> Float16).
DType component_dtype(DType t);
/// The dtype in which arithmetic of `t` is computed: Float16 -> Float32.
DType compute_dtype(DType t);
/// Declares the module's CUDA C++ externs into ms.functions (LowerExtern.cpp);
/// throws ufjit::Error naming the function on the CPU target.
void declare_externs(const ir::Module &module, ModuleState &ms);

llvm::Constant *float_constant(llvm::Type *type, double v);
/// The LLVM constant of an ir::Const (scalars only).
llvm::Constant *lower_constant(llvm::LLVMContext &ctx, const ir::Const &c);
/// Creates a new basic block at the end of the builder's function.
llvm::BasicBlock *new_block(Emitter &e, const char *name);

// ---------------------------------------------------------------- LowerMath.cpp

/// Calls the library math function `base` ("sin", "atan2", "tgamma") for
/// float32/float64 arguments of type `type`: __nv_sinf/__nv_sin on Cuda,
/// sinf/sin on Cpu. Declares the function on first use.
llvm::Value *call_libm(Emitter &e, std::string_view base, DType type, llvm::ArrayRef<llvm::Value *> args);
/// One of the real math intrinsics on float16/32/64 values of `type`.
llvm::Value *lower_real_intrinsic(Emitter &e, ir::IntrinsicOp op, DType type,
                                  llvm::ArrayRef<llvm::Value *> args);
/// cuda.popc/clz/ffs/brev on an integer (LowerIntrinsics.cpp), one definition
/// for both targets.
llvm::Value *lower_bit_intrinsic(Emitter &e, ir::IntrinsicOp op, llvm::Value *x);
/// NumPy's logaddexp, logaddexp2, spacing (floats of `type`) and gcd, lcm
/// (integers of `type`), LowerNumpy.cpp.
llvm::Value *lower_numpy_intrinsic(Emitter &e, ir::IntrinsicOp op, DType type, llvm::ArrayRef<llvm::Value *> args);
/// Python float `a // b` and `a % b` on values of a float32/float64 type.
llvm::Value *float_floor_div(Emitter &e, llvm::Value *a, llvm::Value *b, DType type);
llvm::Value *float_mod(Emitter &e, llvm::Value *a, llvm::Value *b, DType type);
/// isnan / isinf / isfinite of one float value.
llvm::Value *float_isnan(Emitter &e, llvm::Value *x);
llvm::Value *float_isinf(Emitter &e, llvm::Value *x);
llvm::Value *float_isfinite(Emitter &e, llvm::Value *x);
/// Calls an LLVM intrinsic overloaded on the type of its first argument.
llvm::Value *call_llvm_intrinsic(Emitter &e, llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value *> args);

// ---------------------------------------------------------------- LowerArith.cpp

/// Binary arithmetic on two values of scalar dtype `type` (any kind).
llvm::Value *lower_binary(Emitter &e, ir::BinaryOpcode op, DType type, llvm::Value *a, llvm::Value *b);
/// Comparison of two values of scalar dtype `type` -> i1.
llvm::Value *lower_compare(Emitter &e, ir::CompareOpcode op, DType type, llvm::Value *a, llvm::Value *b);
llvm::Value *lower_unary(Emitter &e, ir::UnaryOpcode op, DType type, llvm::Value *v);
/// Scalar conversion with the semantics of ir::Cast.
llvm::Value *lower_cast(Emitter &e, llvm::Value *v, DType from, DType to);
/// Python truthiness (`x != 0`; complex: either part) -> i1.
llvm::Value *truth_value(Emitter &e, llvm::Value *v, DType type);

// ---------------------------------------------------------------- LowerComplex.cpp

/// Builds a complex value {re, im}.
llvm::Value *make_complex(Emitter &e, llvm::Value *re, llvm::Value *im);
llvm::Value *complex_real(Emitter &e, llvm::Value *z);
llvm::Value *complex_imag(Emitter &e, llvm::Value *z);
/// Complex Add/Sub/Mul/Div/Pow (other opcodes are an internal error).
llvm::Value *lower_complex_binary(Emitter &e, ir::BinaryOpcode op, DType type, llvm::Value *a, llvm::Value *b);
/// The complex intrinsics (Real, Imag, Conj, CAbs, Phase, IsNan/IsInf/IsFinite,
/// CExp ... CAtanh, CPow); `type` is the dtype of the (complex) argument.
llvm::Value *lower_complex_intrinsic(Emitter &e, ir::IntrinsicOp op, DType type,
                                     llvm::ArrayRef<llvm::Value *> args);

// ---------------------------------------------------------------- helpers

/// Gets or creates an internal, alwaysinline helper function named `name`;
/// `build` fills its body (the builder it gets is positioned in the entry
/// block) when the function is new.
llvm::Function *get_or_build_helper(ModuleState &ms, const std::string &name, llvm::FunctionType *type,
                                    const std::function<void(Emitter &, llvm::Function *)> &build);

/// Emits `cond ? then_fn() : else_fn()` with a branch (each arm runs only when
/// chosen) and returns the joined values (one phi per returned value).
std::vector<llvm::Value *> emit_if_else(Emitter &e, llvm::Value *cond,
                                        const std::function<std::vector<llvm::Value *>()> &then_fn,
                                        const std::function<std::vector<llvm::Value *>()> &else_fn);

}  // namespace ufjit::codegen::lower
