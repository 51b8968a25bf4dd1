// Kernel entries: the functions that implement the calling convention of
// codegen/kernel/KernelABI.h around a lowered scalar function (codegen/lower/Lowering.h).
//
// requires: `scalar` takes and returns value types (Lowering.h) and lives in
// `module`; guarantees: one entry function per call, with external linkage,
// that loads operands in storage types, calls `scalar` (inlined later by the
// optimizer) and stores the result converted to its storage type.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/kernel/KernelABI.h"
#include "codegen/LLVMHeaders.h"
#include "codegen/LaunchHint.h"
#include "codegen/lower/KernelRegions.h"
#include "ufjit/dtype.h"

namespace ufjit::codegen {

/// How much code a GPU elementwise entry spends on its body. Tuned: vector
/// groups for cheap bodies, lane groups (a copy of the body per lane) for
/// expensive ones. Compact: one copy in a plain element loop, for the quick
/// tier (PtxTier::Quick): its code generation time grows with the copies of
/// the body (sincos inlined four times), and it serves only first calls.
enum class GpuEntryShape : uint8_t { Tuned, Compact };

/// A GPU `.entry` (ptx_kernel calling convention and nvvm.annotations):
/// grid-stride loop over [0, n); 128-bit vector loads/stores in the
/// contiguous variant when every array pointer is 16-byte aligned; 32-bit
/// index arithmetic in the index32 variant.
llvm::Function *build_gpu_entry(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                                const KernelVariant &variant, const std::string &name,
                                GpuEntryShape shape = GpuEntryShape::Tuned);

/// Gufunc entries (KernelABI.h, kind Gufunc): one call of the core function
/// per outer element; a grid-stride loop on the GPU, [begin, end) on the CPU.
llvm::Function *build_gpu_gufunc_entry(llvm::Module &module, llvm::Function &core, const EntrySignature &sig,
                                       const std::string &name);
llvm::Function *build_cpu_gufunc_entry(llvm::Module &module, llvm::Function &core, const EntrySignature &sig,
                                       const std::string &name);

/// Explicit kernel entries (KernelABI.h, kind Explicit): the GPU's calls the
/// kernel once per thread of the caller's launch; the CPU's runs blocks
/// [begin, end) allocating `shared_bytes` of static shared memory per block,
/// as `shape` says (codegen/lower/KernelRegions.h): looping over each
/// block's threads (ThreadLoop), calling the kernel once per block, which
/// loops over the threads between its barriers (Regions), or, for Fibers,
/// is a CpuThreadEntry running one thread.
/// `variant`: explicit_variant(contiguous).
llvm::Function *build_gpu_explicit_entry(llvm::Module &module, llvm::Function &kernel, const EntrySignature &sig,
                                         const KernelVariant &variant, const std::string &name);
llvm::Function *build_cpu_explicit_entry(llvm::Module &module, llvm::Function &kernel, const EntrySignature &sig,
                                         const KernelVariant &variant, const std::string &name, int64_t shared_bytes,
                                         CpuBlockShape shape);

/// A CPU entry `void(int64 begin, int64 end, void *const *params)`: a counted
/// loop the loop vectorizer can widen (contiguous), or a loop over rows whose
/// innermost dimension is a counted loop (strided).
llvm::Function *build_cpu_entry(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                                const KernelVariant &variant, const std::string &name);

namespace kernel_detail {

/// Byte size of one element of `t` (the ABI's storage size).
std::size_t element_size(DType t);
bool is_complex_dtype(DType t);
/// Alignment assumed for one element: that of its component type.
uint64_t element_align(DType t);
/// Storage (memory) type: bool -> i8, float16 -> half, complex -> {F, F}.
llvm::Type *element_storage_type(llvm::LLVMContext &ctx, DType t);
/// Value (register) type: as storage, but bool -> i1.
llvm::Type *element_value_type(llvm::LLVMContext &ctx, DType t);
/// Component type: the float type of a complex, else the storage type.
llvm::Type *component_type(llvm::LLVMContext &ctx, DType t);

/// Loads the element at `addr` (any address space) and converts it to its
/// value type.
llvm::Value *load_element(llvm::IRBuilder<> &b, DType t, llvm::Value *addr, uint64_t align);
/// Converts `value` to the storage type and stores it at `addr`.
void store_element(llvm::IRBuilder<> &b, DType t, llvm::Value *value, llvm::Value *addr, uint64_t align);
/// Storage -> value conversion of a scalar already loaded (bool: != 0).
llvm::Value *storage_to_value(llvm::IRBuilder<> &b, DType t, llvm::Value *stored);
/// Value -> storage (bool: zext to i8).
llvm::Value *value_to_storage(llvm::IRBuilder<> &b, DType t, llvm::Value *value);
/// A complex value {re, im} from two component values.
llvm::Value *make_complex(llvm::IRBuilder<> &b, DType t, llvm::Value *re, llvm::Value *im);

/// What every entry builder works with: the module the entry goes into, the
/// scalar function it calls and that function's signature, the IR builder,
/// and the entry once it is created.
struct EntryBuilderState {
  EntryBuilderState(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig)
      : module_(module), ctx_(module.getContext()), scalar_(scalar), sig_(sig), b_(ctx_) {}

  llvm::Module &module_;
  llvm::LLVMContext &ctx_;
  llvm::Function &scalar_;
  const EntrySignature &sig_;
  llvm::IRBuilder<> b_;
  llvm::Function *fn_ = nullptr;
};

/// One operand of an entry as the builders hold it: KernelABI.h's table bound
/// to LLVM values.
struct EntryOperand {
  DType dtype = DType::Float64;
  bool is_scalar = false;  // elementwise: `value` holds it
  int core_ndim = 0;       // gufunc: dims of the core function's array
  llvm::Value *pointer = nullptr;       // arrays: element 0
  llvm::Value *strides = nullptr;       // pointer to Dims (strided and gufunc entries)
  llvm::Value *core_shape = nullptr;    // gufunc: pointer to Dims
  llvm::Value *core_strides = nullptr;  // gufunc: pointer to Dims
  llvm::Value *value = nullptr;         // scalars, in value type
};

/// Every parameter of an entry, bound.
struct BoundParams {
  llvm::Value *n = nullptr;      // int64
  llvm::Value *ndim = nullptr;   // int64
  llvm::Value *shape = nullptr;  // pointer to Dims
  std::vector<EntryOperand> operands;  // KernelSpec::operands' order
  /// The error flag as a generic pointer (null when the entry has none).
  llvm::Value *error_flag = nullptr;
  /// The Done parameter as it came (null when the entry has none).
  llvm::Value *done = nullptr;
};

/// Binds the table `params` of `spec`: `value_of(k)` is parameter k's value
/// (a GPU argument, or a load from a CPU entry's `params`); a complex
/// scalar's two parts become one value; each value is named as the manifest
/// names the parameter.
BoundParams bind_entry_params(llvm::IRBuilder<> &b, const KernelSpec &spec, const std::vector<KernelParam> &params,
                              const std::function<llvm::Value *(unsigned)> &value_of);

/// The LLVM type of one GPU entry parameter: i64 (count, ndim), a global
/// pointer (data), a pointer to a byval Dims (shape, strides), or the
/// component type of a scalar.
llvm::Type *gpu_param_type(llvm::LLVMContext &ctx, const KernelParam &param);
/// The attributes of GPU entry parameter `index`: byval/align 8/readonly for
/// Dims, noundef for data pointers.
void mark_gpu_param(llvm::Function &fn, unsigned index, const KernelParam &param);
/// The type of every CPU entry: `void (int64 begin, int64 end, void *const
/// *params)`, the element or block range a thread runs and the table of
/// parameter addresses.
llvm::FunctionType *cpu_entry_type(llvm::LLVMContext &ctx);
/// A CPU entry's three arguments, named "begin", "end" and "params".
struct CpuEntryArgs {
  llvm::Value *begin = nullptr;
  llvm::Value *end = nullptr;
  llvm::Value *params = nullptr;
};
CpuEntryArgs cpu_entry_args(llvm::Function &fn);
/// Loads CPU entry parameter `index` from `params` (`void *const *`): the
/// value of count/ndim/data/scalars, the address of a Dims.
llvm::Value *load_cpu_param(llvm::IRBuilder<> &b, llvm::Value *params, unsigned index, const KernelParam &param);

/// The scalar function's arguments for one element: each input's value
/// (scalars) or its element loaded from `addresses[k]` (arrays). The last
/// operand is the output; `addresses` has one entry per operand.
std::vector<llvm::Value *> load_inputs(llvm::IRBuilder<> &b, const std::vector<EntryOperand> &operands,
                                       const std::vector<llvm::Value *> &addresses);

/// Calls the scalar function; checks argument and result types against `sig`.
/// When the scalar function takes the error flag (its module can raise),
/// passes `error_flag`, or a null pointer (raises then end the element
/// without being reported: method entries, device functions).
llvm::Value *call_scalar(llvm::IRBuilder<> &b, llvm::Function &scalar, const EntrySignature &sig,
                         const std::vector<llvm::Value *> &args, llvm::Value *error_flag = nullptr);
/// `args` plus the error flag when `fn` takes one more parameter than
/// `args` (a generic pointer: `error_flag` cast, or null).
std::vector<llvm::Value *> with_error_flag(llvm::IRBuilder<> &b, const llvm::Function &fn,
                                           std::vector<llvm::Value *> args, llvm::Value *error_flag);

/// Instructions of `fn` counting the bodies of what it calls (helpers, and
/// libdevice functions once linked; inline asm as one); counting stops early
/// past `limit`. An external declaration counts as unbounded.
int scalar_function_cost(const llvm::Function &fn, int limit);
/// Whether one copy of `fn` per vector lane keeps compile time and code
/// size small (scalar_function_cost under a limit).
bool is_cheap_scalar_function(const llvm::Function &fn);

/// Makes `fn` a GPU `.entry`: the ptx_kernel calling convention, its line in
/// the module's nvvm.annotations, and its launch hint (LaunchHint.h; every
/// entry states one, so that the runtime never looks up a missing symbol).
void mark_ptx_kernel(llvm::Function &fn, const LaunchHint &hint = {});

/// Emits `for (i = start; i < end; i += step) body(i)` with an unsigned
/// compare (all bounds are non-negative and the sum cannot wrap, as the ABI
/// guarantees). Leaves the builder at the exit block.
template <typename Body>
void emit_counted_loop(llvm::IRBuilder<> &b, llvm::Value *start, llvm::Value *end, llvm::Value *step,
                       const char *name, Body body);

}  // namespace kernel_detail

// ------------------------------------------------------------ implementation

template <typename Body>
void kernel_detail::emit_counted_loop(llvm::IRBuilder<> &b, llvm::Value *start, llvm::Value *end,
                                      llvm::Value *step, const char *name, Body body) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &ctx = fn->getContext();
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(ctx, std::string(name) + ".body", fn);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(ctx, std::string(name) + ".exit", fn);
  llvm::Value *enter = b.CreateICmpULT(start, end);
  b.CreateCondBr(enter, loop, exit);
  b.SetInsertPoint(loop);
  llvm::PHINode *i = b.CreatePHI(start->getType(), 2, std::string(name) + ".i");
  i->addIncoming(start, pre);
  body(i);
  llvm::Value *next = b.CreateAdd(i, step, std::string(name) + ".next", /*HasNUW=*/true, /*HasNSW=*/false);
  i->addIncoming(next, b.GetInsertBlock());
  llvm::Value *again = b.CreateICmpULT(next, end);
  b.CreateCondBr(again, loop, exit);
  b.SetInsertPoint(exit);
}

}  // namespace ufjit::codegen
