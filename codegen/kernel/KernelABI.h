// The calling convention of generated kernel entries: the contract between
// code generation (which emits the entries) and the runtime (which launches
// them on the GPU with cuLaunchKernel, or calls them on the CPU).
//
// The parameter list of an entry is DATA: kernel_params(spec) below is the
// one table that the GPU and CPU entry builders (codegen/kernel/KernelGpu.cpp,
// KernelCpu.cpp, KernelGufunc.cpp), the runtime's packer
// (runtime/KernelParams.cpp) and the `ufjit compile` manifest
// (driver/Pipeline.cpp) all read (Halide's DeviceArgument list).
//
// Kernel kinds:
//
//   Elementwise (one ufunc signature yields several variants):
//     Contiguous: every array operand is contiguous, aligned to its element
//       size, and has the output's shape (n elements, C order): `n`, then per
//       input its pointer (or its value when a scalar), then the output pointer.
//     Strided: any byte strides (0 for broadcast dimensions, negative
//       allowed), up to kMaxDims dimensions after the host collapsed
//       contiguous ones: `n`, `ndim`, `shape`, then per operand its pointer
//       and its byte strides (scalars: the value). Elements are visited in C
//       order of `shape` (linear index -> coordinates).
//
//   Gufunc (a @guvectorize signature; one entry): `n` outer elements, `ndim`
//     (>= 1) and `shape` of the outer (loop) dimensions, then per operand
//     (inputs, then outputs) its pointer, its outer byte strides, and when the
//     core function takes it as an array of d dims, its core shape and core
//     byte strides (the first d entries used). The entry calls the core
//     function once per outer index with array views {pointer + outer offset,
//     core shape, core strides}, or the element value for a scalar parameter.
//
//   Method (the ufunc methods' reduce and accumulate entries, every
//     MethodKernel alike; codegen/kernel/KernelReduce.h says what each
//     computes): `rows`, `len`, `chunks`, `chunk_len`, then the pointers `in`,
//     `out`, `aux` and `out_has` (make_method_spec gives their dtypes), then
//     the error flag. On the CPU, `begin`/`end` count segments or rows.
//
//   Explicit (a @cuda.jit kernel; one entry per signature): per kernel
//     parameter in order, an array's pointer, its shape and its byte strides
//     (the first ndim entries used), or a scalar's value (complex: two);
//     then the error flag. The kernel's own code reads the thread's
//     coordinates: special registers on the GPU, where the runtime launches
//     it with the caller's grid, block and dynamic shared memory. On the CPU
//     `params` holds one more pointer after the table's, at the block's
//     CpuThreadContext (codegen/kernel/CpuKernelContext.h: grid and block
//     dims, dynamic shared memory); the entry runs blocks [begin, end) of
//     the grid (linear index, x fastest), looping over their threads, and
//     allocates their static shared memory itself. A kernel whose threads
//     wait for each other (ir::Module::threads_wait) has instead a
//     CpuThreadEntry `void(CpuThreadContext *ctx, void *const *params)`
//     that runs ONE thread, for the runtime's block runner.
//
// Scalar parameters (elementwise, bit i of `scalar_mask` set): passed by
// value in their storage type: bool as 1 byte (0/1), integers as themselves,
// float16 as its 16 raw bits, float32/float64 as themselves,
// complex64/complex128 as TWO parameters (real, imaginary) of the component
// float type.
//
// On the GPU an entry is a `.entry` of the PTX module taking these parameters
// directly (cuLaunchKernel's kernelParams[k] points at parameter k). On the
// CPU an entry has the C signature `void(int64_t begin, int64_t end, void*
// const* params)`, where params[k] points at parameter k exactly as for the
// GPU (params[0] at n), and it computes elements (outer elements) [begin,
// end) of n, so that a thread pool can split the range.
//
// Error flag (only when the module can raise: ir::Module::can_raise, a
// `raise` or a boundscheck in its functions): the LAST parameter, a pointer
// to a uint32 in device memory (host memory on the CPU) that the runtime
// zeroes before the call; the first raise of the call stores its site (>= 1)
// with a compare-and-swap (codegen/lower/LowerRaise.cpp) and the runtime reports
// ufjit::KernelError after the call. Entries of modules without a raise
// have no such parameter and pay nothing.
//
// Done (elementwise entries of ufjit's own modules: EntrySignature::
// done_flag), after the operands and before the error flag: a pointer to a
// uint32 in page-locked host memory mapped for the device, or null. When it
// is not null the launch must be ONE block; its threads, once they have all
// stored their elements, pass a barrier, and thread 0 then fences at system
// scope and stores 1 there. A synchronous call waits for that store instead
// of cuStreamSynchronize, which learns of the kernel's end about a
// microsecond later (docs/PERFORMANCE.md, "the end of a tiny call"). Async
// calls, larger grids and the CPU pass null; CPU entries ignore it.
//
// index32: every element index and byte offset fits in int32, so the loop may
// use 32-bit arithmetic (cheaper on the GPU). The runtime picks it per call.
//
// streaming_stores (CPU, Contiguous, x86-64 only): the entry writes its
// vectorized output with non-temporal stores, which skip the read of each
// output line into the cache before it is overwritten (a quarter of the
// memory traffic of a binary operation), and ends with a store fence. The
// caller must pass ranges whose output address at `begin` is aligned to
// kStreamingAlign bytes. The runtime picks it for calls that move more bytes
// than the last-level cache holds: the next call could not find their
// output in the cache anyway.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ufjit/dtype.h"

namespace ufjit::codegen {

inline constexpr int kMaxDims = 8;

/// The generation of the parameter tables below, part of every disk cache
/// key of a kernel: bumped whenever an entry's parameters change, so that a
/// cubin built for other parameters is never launched with these.
inline constexpr int kEntryAbiVersion = 2;

/// Byte strides or shape, one int64 per dimension; a single kernel parameter
/// of 64 bytes, aligned to 8.
struct Dims {
  int64_t v[kMaxDims];
};

enum class Layout : uint8_t { Contiguous, Strided };

/// What an entry computes.
enum class KernelKind : uint8_t { Elementwise, Gufunc, Method, Explicit };

/// The output alignment, in bytes, that a streaming_stores entry requires at
/// `begin`: a cache line, and a multiple of every vector width.
inline constexpr std::size_t kStreamingAlign = 64;

struct KernelVariant {
  Layout layout = Layout::Contiguous;
  bool index32 = false;
  uint64_t scalar_mask = 0;  // bit i: input i is a scalar parameter (frontend::kMaxUfuncArgs bounds i)
  KernelKind kind = KernelKind::Elementwise;
  bool streaming_stores = false;  // see the header comment

  /// Stable, readable suffix used in entry names: "contig_i32", "strided_i64_s1"
  /// (the scalar mask in hex, omitted when 0), "contig_i64_nt" (streaming
  /// stores), "gufunc".
  std::string suffix() const;
  bool operator==(const KernelVariant &o) const {
    return layout == o.layout && index32 == o.index32 && scalar_mask == o.scalar_mask && kind == o.kind &&
           streaming_stores == o.streaming_stores;
  }
};

/// The one variant of every method entry (its parameters do not depend on
/// the MethodKernel).
inline KernelVariant method_variant() {
  KernelVariant v;
  v.kind = KernelKind::Method;
  return v;
}

/// The one variant of a gufunc signature.
inline KernelVariant gufunc_variant() {
  KernelVariant v;
  v.layout = Layout::Strided;
  v.kind = KernelKind::Gufunc;
  return v;
}

/// The variants of an explicit kernel's signature: Strided takes any array;
/// Contiguous (chosen per launch when every array argument is C-contiguous)
/// computes the strides from the shapes instead of reading them, so that
/// the code knows them (vector loads on the CPU, simpler addressing). Both
/// take the same parameters.
inline KernelVariant explicit_variant(bool contiguous = false) {
  KernelVariant v;
  v.layout = contiguous ? Layout::Contiguous : Layout::Strided;
  v.kind = KernelKind::Explicit;
  return v;
}

/// The dtypes an entry moves between memory and the core function: the
/// signature of one specialisation. Elementwise: inputs then the result.
/// Gufunc: every operand (inputs, then outputs) in `args`, `arg_ndims[k]` the
/// array dims the core function takes for it (0: a scalar parameter),
/// `outputs` how many of the last args are outputs; `ret` unused.
/// Explicit: every kernel parameter in `args`, `arg_ndims` as for gufuncs
/// (0: a scalar), no outputs.
struct EntrySignature {
  std::vector<DType> args;
  DType ret = DType::Float64;
  std::vector<int> arg_ndims;  // gufunc only
  std::size_t outputs = 0;     // gufunc only
  bool can_raise = false;      // the entry takes the error flag (last)
  bool done_flag = false;      // an elementwise entry takes the Done parameter (ufjit's own code)
};

/// One operand of an entry, as the parameter table sees it.
struct OperandSpec {
  DType dtype = DType::Float64;
  bool is_output = false;
  bool is_scalar = false;  // elementwise: passed by value
  int core_ndim = 0;       // gufunc: dims of the core function's array (0: scalar parameter)
  std::string name{};      // explicit kernels: the parameter's name for the manifest (empty: argK)
};

/// An entry's kind, variant and operands: all the table depends on.
struct KernelSpec {
  KernelVariant variant;
  std::vector<OperandSpec> operands;  // inputs, then outputs
  bool error_flag = false;            // EntrySignature::can_raise
  bool done_flag = false;             // EntrySignature::done_flag, elementwise kinds only
};
KernelSpec make_kernel_spec(const EntrySignature &sig, const KernelVariant &variant);
/// The spec of a method entry of a (T, T) -> T signature: operands `in` (T),
/// `out` (T), `aux` (a bool mask when `masked`: ReduceWhere; else T, the
/// carries of a chunked scan) and `out_has` (bool), all pointers.
KernelSpec make_method_spec(const EntrySignature &sig, bool masked);

/// What one parameter of an entry carries.
enum class ParamRole : uint8_t {
  Count,        // int64: elements (outer elements for gufuncs)
  NDim,         // int64: dims of `Shape`
  Shape,        // Dims: the iteration shape
  Data,         // pointer to element 0 of an operand
  Strides,      // Dims: byte strides of an operand over the iteration shape
  Value,        // a scalar operand by value (complex: the real part)
  ValueImag,    // the imaginary part of a complex scalar operand
  CoreShape,    // Dims: a gufunc operand's core shape
  CoreStrides,  // Dims: a gufunc operand's core byte strides
  Rows,         // int64: a method entry's rows
  RowLength,    // int64: elements per row
  Chunks,       // int64: segments per row
  ChunkLength,  // int64: elements per segment
  Done,         // uint32*: where a one-block launch says it finished, or null (see above)
  ErrorFlag,    // uint32*: the call's error flag (last; only when the module can raise)
};

struct KernelParam {
  ParamRole role = ParamRole::Count;
  int operand = -1;  // index into KernelSpec::operands; -1 for Count/NDim/Shape
  DType dtype = DType::Int64;  // Value/ValueImag: the operand's dtype
  /// Byte size and alignment of the parameter.
  std::size_t size() const;
  std::size_t align() const;
  /// The manifest's words: "n", "in0", "in0_strides", "out", "out1_core_shape",
  /// "done", "error"; kind "count", "ndim", "shape", "array", "strides",
  /// "scalar", "core_shape", "core_strides", "done_flag", "error_flag"; type
  /// "int64", "int64[8]", "float32*", "float32", "uint32*".
  std::string name(const KernelSpec &spec) const;
  std::string kind_name() const;
  std::string type_name() const;
};

/// The parameters of an entry, in launch order.
std::vector<KernelParam> kernel_params(const KernelSpec &spec);

/// The C signature of a CPU entry.
using CpuEntry = void (*)(int64_t begin, int64_t end, void *const *params);

}  // namespace ufjit::codegen
