// Internal interface between the scalar lowering (typed IR functions -> LLVM
// functions) and the kernel/target side (entries, NVPTX, ORC JIT).
//
// requires: a verified ir::Module; guarantees: every function of the module
// exists in the llvm::Module with internal linkage and alwaysinline, its
// parameters and return value in *value* types (below), semantics exactly as
// the header comment of ir/IR.h says.
#pragma once

#include "codegen/LLVMHeaders.h"
#include "ir/IR.h"
#include "ufjit/target.h"

namespace ufjit::codegen {

// TargetKind: ufjit/target.h (one enum for codegen and the runtime).

struct LoweringTarget {
  TargetKind kind = TargetKind::Cuda;
  bool fastmath = false;  // from ir::Module::options; FMA contraction, afn, arcp, nnan/ninf off otherwise
};

/// Value (register) type of a scalar dtype: bool -> i1, intN/uintN -> iN,
/// float16 -> half, float32 -> float, float64 -> double,
/// complex64 -> {float, float}, complex128 -> {double, double}.
llvm::Type *value_type(llvm::LLVMContext &ctx, DType t);
/// Storage (memory) type: as value_type except bool -> i8.
llvm::Type *storage_type(llvm::LLVMContext &ctx, DType t);
/// Value type of any IR type (tuples -> literal structs of value types).
llvm::Type *value_type(llvm::LLVMContext &ctx, const ir::Type &t);

/// The zeroext/signext attribute of a C-ABI parameter or result of `t`
/// (codegen/CAbi.h), for calls into and out of CUDA C++ (LowerExtern.cpp).
llvm::Attribute::AttrKind c_abi_llvm_extension(DType t);

/// Numba's CUDA fastmath for one GPU function: approximate division and
/// square root, and float32 denormals flushed. Instruction selection reads
/// these from each function's attributes (it resets the target options per
/// function), so a fastmath ufunc gets them beside strict ones in one module.
void mark_gpu_fastmath(llvm::Function &f);

/// Marks `load`, an int32 field of the CPU thread context at byte `offset`
/// (codegen/kernel/CpuKernelContext.h), with the values the field can hold
/// (context_field_range), so that LLVM knows indices built from it are not
/// negative. Other fields are left as they are.
void mark_context_field_range(llvm::LoadInst &load, std::size_t offset);

/// Lowers every function of `module` into `out` and returns the LLVM function
/// of the entry. Function names are prefixed with `name_prefix` so several IR
/// modules can share one llvm::Module. Math intrinsics become calls of
/// libdevice (`__nv_sinf`) on Cuda and of the C library (`sinf`) on Cpu,
/// declared in `out`; the caller links libdevice / resolves libm.
llvm::Function *lower_module(const ir::Module &module, llvm::Module &out, const std::string &name_prefix,
                             const LoweringTarget &target);

}  // namespace ufjit::codegen
