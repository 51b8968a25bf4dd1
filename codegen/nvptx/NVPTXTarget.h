// The NVPTX side of code generation: target machine for an sm_XX arch and a
// PTX ISA, libdevice linking, the optimization pipeline and PTX emission.
// Internal to codegen/ (callers outside use codegen/Codegen.h).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "codegen/LLVMHeaders.h"

#include <llvm/Target/TargetMachine.h>

namespace ufjit::codegen {

inline constexpr const char *kNvptxTriple = "nvptx64-nvidia-cuda";

/// Registers the NVPTX and host targets with LLVM once per process (the
/// registry is LLVM's own; initialising it is idempotent and thread-safe).
void initialize_llvm_targets();

/// The PTX ISA version digits ("85") for `gpu`: the requested one ("8.5",
/// "85" or "ptx85") or, when none is requested, the newest LLVM 19 supports.
/// Throws ufjit::Error for an unknown arch or ISA version.
std::string resolve_ptx_isa(const GpuOptions &gpu);

/// A target machine for gpu.arch with +ptxNN. Floating-point options: FMA
/// contraction and approximate div/sqrt only when `fastmath` (AllowFPOpFusion
/// Strict otherwise).
std::unique_ptr<llvm::TargetMachine> make_nvptx_target_machine(const GpuOptions &gpu, bool fastmath);

/// How libdevice is read into a compile's context:
/// - Sliced: only the functions the module calls and what they use, each
///   from a small bitcode slice made once per process (the default: parsing
///   libdevice's module records costs 1-2 ms a compile);
/// - Lazy: libdevice's module records parsed, only the called functions
///   materialized;
/// - Full: all of libdevice parsed.
/// All three give the same PTX (tests/unit/codegen_targets_nvptx_test.cpp).
enum class LibdeviceLoad : uint8_t { Sliced, Lazy, Full };

/// The libdevice bitcode bytes, read once per process from $UFJIT_LIBDEVICE or
/// the toolkit path CMake found; immutable afterwards. Throws ufjit::Error if
/// the file cannot be read.
const std::string &libdevice_bytes();

/// Links the libdevice functions that `module` calls (`__nv_*`) into it.
/// Does nothing if it calls none.
void link_libdevice(llvm::Module &module, LibdeviceLoad load = LibdeviceLoad::Sliced);

/// Makes the slices of the named libdevice functions now (a name libdevice
/// lacks is skipped), so that a later compile that calls them only parses
/// them: for the compiler's warm-up, off the first call's path.
void prepare_libdevice_slices(const std::vector<std::string> &names);

/// Replaces each pair of libdevice sin and cos calls on one argument in one
/// basic block with one __nv_sincos(f) call: one argument reduction instead
/// of two. Runs before libdevice is linked.
void merge_sin_cos_calls(llvm::Module &module);

/// Declares the libdevice sincos that each pair of sin and cos functions the
/// module uses may become (merge_sin_cos_calls), so that the libdevice link
/// before the entries are built brings it too and the link after merging has
/// nothing left to load (each lazy load parses libdevice's module records
/// again, about 1 ms). An unused sincos is dropped with the other internal
/// functions; the PTX is unchanged.
void declare_sin_cos_partners(llvm::Module &module);

/// fastmath=True's float32 division (div.approx/rcp.approx, ftz) and, for
/// sm_75 and newer, tanh (tanh.approx.f32), on the instructions that carry
/// fastmath's flags (codegen/nvptx/NVPTXFastMath.cpp). Runs before libdevice is linked.
void lower_fast_math(llvm::Module &module, const std::string &arch);
/// Where one compile_module_to_ptx call spent its time, in ms of the process's
/// CPU time (for benchmarks/bench_compile.cpp's --parts).
struct PtxCompileTimings {
  // verify, fast-math lowering, cutting huge functions (HugeFunctions.h),
  // merge sin/cos, link libdevice, internalize
  double libdevice_ms = 0;
  double optimize_ms = 0;   // the LLVM pass pipeline
  double codegen_ms = 0;    // NVPTX instruction selection .. PTX text
};

/// Options of one PTX compile of an LLVM module.
struct NvptxCompileOptions {
  GpuOptions gpu;
  bool fastmath = false;       // target-wide: contraction, approximate div/sqrt
  bool ftz = false;            // libdevice's __CUDA_FTZ reflection
  std::set<std::string> entries;  // kept external; everything else is internalized
  LibdeviceLoad libdevice = LibdeviceLoad::Sliced;
  PtxTier tier = PtxTier::Optimized;
  // A huge kernel's parts compiled in modules of their own (PtxShards.h);
  // false only to measure the difference (bench_compile).
  bool split_parts = true;
  PtxCompileTimings *timings = nullptr;  // filled in when set
};

/// The whole NVPTX path on a module of entries and lowered functions:
/// target triple and data layout, libdevice, internalize, NVVMReflect + O3
/// (PtxTier::Quick: NVVMReflect, inlining and dead-function removal only,
/// and the code generator at CodeGenOptLevel::None), PTX text.
/// Deterministic: the same module gives the same text.
std::string compile_module_to_ptx(llvm::Module &module, const NvptxCompileOptions &options);

/// Sets the triple and data layout of the NVPTX target on `module`.
void prepare_nvptx_module(llvm::Module &module);

}  // namespace ufjit::codegen
