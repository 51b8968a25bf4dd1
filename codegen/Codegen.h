// Code generation: typed IR modules -> LLVM IR -> PTX (NVPTX backend +
// libdevice) or host machine code (ORC JIT). No LLVM type appears here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel/KernelABI.h"
#include "ir/IR.h"

namespace ufjit::codegen {

/// Kernels of the ufunc methods (codegen/kernel/KernelReduce.h): entry names are
/// `<base>__reduce`, `<base>__reduce_where`, `<base>__accumulate`,
/// `<base>__accumulate_rows`.
enum class MethodKernel : uint8_t { Reduce, ReduceWhere, Accumulate, AccumulateRows };
/// The entry name of `method` for `base_name`.
std::string method_entry_name(const std::string &base_name, MethodKernel method);
/// Threads per block of a GPU method entry (the size of its shared tree).
inline constexpr int kReduceBlock = 256;
/// Blocks of a GPU method entry resident per SM: its launch bounds, and what
/// the runtime sizes grids by (runtime/cuda/CudaMethods.cpp).
inline constexpr int kMethodBlocksPerSm = 8;

/// One (ufunc, signature) to emit, with the variants wanted and the base of
/// the entry names ("gaussian_pdf__f32_f32_f32"). Entry names are
/// `<base>__<variant.suffix()>`, then one per method kernel.
struct EntryRequest {
  const ir::Module *module = nullptr;
  std::string base_name;
  std::vector<KernelVariant> variants;
  /// Gufuncs: how many of the core function's last parameters are outputs
  /// (variants: {gufunc_variant()}); 0 for elementwise ufuncs.
  std::size_t gufunc_outputs = 0;
  std::vector<MethodKernel> methods = {};
  /// Elementwise entries take KernelABI.h's Done parameter: the runtime's
  /// own kernels do; `ufjit compile`'s do not, so that the manifest a user
  /// launches from keeps its parameters.
  bool done_flag = true;
};

/// What the GPU side needs; the canonical string of these options is part of
/// every cache key.
struct GpuOptions {
  std::string arch = "sm_90";  // "sm_80", "sm_90", ...
  /// PTX ISA version for `.version`; empty: the newest LLVM 19 supports for
  /// `arch`. The driver must be new enough to load it.
  std::string ptx_isa;
  std::string canonical() const;  // "sm_90-ptx(default)"
};

/// A base name for entries of `module` for the given signature text, stable
/// and readable: "gaussian_pdf__float32_float32_float32".
std::string entry_base_name(const std::string &ufunc_name, const std::vector<std::string> &arg_dtype_names);
std::string entry_name(const std::string &base_name, const KernelVariant &variant);
/// An argument type as it appears in entry base names: "float32", or for
/// gufunc arrays "float32_2d" (PTX identifiers take no brackets).
std::string entry_type_name(DType dtype, int ndim);

/// Textual LLVM IR of the entries (for `--emit llvm`), target "cuda" or "cpu".
std::string emit_llvm_ir(const std::vector<EntryRequest> &entries, const std::string &target,
                         const GpuOptions &gpu);

/// How much LLVM optimises a PTX compile. Quick (the runtime's first tier,
/// replaced by the Optimized kernel once that is ready) runs no optimization
/// pipeline beyond inlining and NVVMReflect and the code generator at
/// CodeGenOptLevel::None: 2-3x less LLVM time, the same floating-point
/// operations (every one keeps its rounding: no contraction either way), and
/// ptxas optimizes the PTX in both cases. Not for fastmath modules: Quick
/// contracts nothing where Optimized lets ptxas fuse, so results would
/// differ between the tiers (the runtime compiles those Optimized at once).
enum class PtxTier : uint8_t { Optimized, Quick };

/// One PTX module holding every requested entry. Byte-for-byte reproducible.
/// Throws CompileError/InternalError; thread-safe (one LLVMContext per call).
std::string emit_ptx(const std::vector<EntryRequest> &entries, const GpuOptions &gpu,
                     PtxTier tier = PtxTier::Optimized);

/// Whether this process still wants warm_up_ptx_compiler: true for the first
/// caller only, so that one Runtime of a process warms up, not each.
bool claim_ptx_warm_up();

/// Compiles a small built-in ufunc (a branch, exp, sin, cos, powers, a
/// helper returning a tuple) to PTX at the
/// quick tier and discards it: LLVM's targets initialised, libdevice read,
/// and the code of the frontend, lowering, libdevice linking and NVPTX code
/// generation paged in, which a fresh process's first compile otherwise pays
/// (2-3 ms of CPU). For the CUDA backend to run while the context is being
/// made. Never throws; returns whether the PTX was made.
bool warm_up_ptx_compiler() noexcept;

/// Types warm_up_ptx_compiler's source again, on the calling thread, and
/// discards it: about 0.2 ms that bring the frontend's code and data back
/// into this core's caches after something large (a CUDA context's
/// creation) has evicted them, so that a `vectorize` soon after does not
/// take twice as long. Never throws; returns whether the source typed.
bool warm_up_frontend() noexcept;

/// PTX -> cubin for `arch` through nvJitLink (opened with dlopen). Throws
/// ufjit::Error with nvJitLink's log if it rejects the PTX, or if nvJitLink
/// is not available.
std::string ptx_to_cubin(const std::string &ptx, const std::string &arch);
/// Whether nvJitLink can be loaded (tests skip PTX checks when it cannot).
bool nvjitlink_available();

/// Host code for CPU entries, JIT-compiled with ORC for the host CPU. One
/// instance owns its JIT; lookups are thread-safe. Compiled entries live as
/// long as the CpuCompiler.
class CpuCompiler {
 public:
  CpuCompiler();
  ~CpuCompiler();
  CpuCompiler(const CpuCompiler &) = delete;
  CpuCompiler &operator=(const CpuCompiler &) = delete;

  /// Compiles the entries and returns their addresses in request order
  /// (variants flattened).
  std::vector<CpuEntry> compile(const std::vector<EntryRequest> &entries);
  /// "x86-64 (znver3, +avx2,+fma)": the host CPU and features used.
  std::string host_description() const;
  /// Whether entries of the streaming_stores variant can be compiled for the
  /// host (x86-64: non-temporal vector stores and a store fence).
  bool has_streaming_stores() const;

 private:
  std::vector<CpuEntry> compile_here(const std::vector<EntryRequest> &entries);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ufjit::codegen
