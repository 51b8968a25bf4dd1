// A target's device layer (Backend: memory, transfers, streams), and the
// prepared calls its KernelRunner (runtime/KernelRunner.h) runs.
//
// The call algorithm is numba's ufunc runtime (STYLE.md 15) and lives in ONE
// file, runtime/Call.cpp:
//
//   resolve signature -> broadcast (stride-0 views, never copies) -> place
//   arguments -> allocate output -> size the launch -> launch
//
// Call.cpp does every check (dispatch, broadcasting, `out` shape/dtype,
// residence) BEFORE anything is allocated, written or launched, and hands the
// target's KernelRunner (runtime/KernelRunner.h) a PreparedCall in which:
//   - every input is either a broadcast ArrayView of the call's collapsed
//     shape (stride 0 on broadcast dims) whose dtype IS the parameter dtype,
//     or a scalar already converted to the parameter dtype (raw bytes);
//   - the output is a view of the collapsed shape, dtype = return dtype;
//   - shapes and strides are collapsed (adjacent dims merged where contiguous
//     for all operands, size-1 dims dropped) to <= codegen::kMaxDims dims.
// The runner then picks the KernelVariant (choose_variant below), gets its
// kernel from the JIT engine (runtime/JitEngine.h: compiled once per key),
// places host operands where its code can read them, sizes the launch and
// launches.
//
// RESIDENCE RULE (DESIGN.md "Output"):
//   - the result is on the HOST if every array operand is on the host, else on
//     the DEVICE (scalars do not count);
//   - device operands are never copied implicitly: the CPU target rejects a
//     device operand (DeviceError) and no backend ever copies a device array
//     to the host behind the caller's back;
//   - a host operand (and a host `out`) of a CUDA call is staged by the CUDA
//     runner inside execute(): copied in (pinned staging buffers, chunks),
//     computed, copied out; execute() returns when the host output is written
//     (for a synchronous call).
//   - Safe casts of array operands (int32 array into a float64 parameter):
//     Call.cpp converts HOST arrays itself (a converted host copy) before the
//     runner sees them; a DEVICE array needing a cast is converted by running
//     a generated cast ufunc (`to(from)`: return Cast(x)) on the same backend
//     through execute(), into a temporary device array from make_output(). So
//     the runner never sees an operand whose dtype differs from the parameter.
//
// Threading: execute() is called from many host threads at once with
// different PreparedCalls; backends and runners must be thread-safe.
// StreamImpl (from ufjit/device.h) is defined by the CUDA backend; the CPU
// target runs synchronously and ignores streams.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "codegen/kernel/KernelABI.h"
#include "codegen/lower/KernelRegions.h"
#include "ir/IR.h"
#include "runtime/GufuncLayout.h"
#include "runtime/SmallVector.h"
#include "ufjit/array.h"
#include "ufjit/device.h"
#include "ufjit/runtime.h"

namespace ufjit::runtime {

class KernelCache;
struct CompiledSignature;
struct MethodArgs;
class KernelRunner;

/// Code that does not come from ufjit's IR: a CUDA C++ elementwise kernel
/// (interop/cudacpp/Elementwise.h) whose entries follow codegen/kernel/KernelABI.h,
/// so the backends launch it as their own. CompiledSignature::module is then
/// null and `external` builds the code.
struct ExternalKernel {
  virtual ~ExternalKernel() = default;
  /// Everything the code of `entry` depends on (source, compiler, options):
  /// the disk cache key's code field.
  virtual std::string key_text(const CompiledSignature &sig, const codegen::KernelVariant &variant) const = 0;
  /// The float/compile options in cache keys.
  virtual std::string options_text() const = 0;
  /// A loadable cubin for `arch` ("sm_90") holding the entry
  /// codegen::entry_name(sig.base_name, variant). Throws CompileError.
  virtual std::string cubin(const CompiledSignature &sig, const codegen::KernelVariant &variant,
                            const std::string &arch) const = 0;
};

/// A source's compile before it is typed: an XXH3-128 of its text, the
/// signatures and link options given with it (runtime/Api.cpp). It keys the
/// disk cache's source index (runtime/cache/SourceIndex.h). Zero: none (a
/// signature typed at call time, CUDA C++, a generated cast).
struct SourceKey {
  uint64_t low = 0;
  uint64_t high = 0;
  bool empty() const { return low == 0 && high == 0; }
};

/// One signature of a ufunc, compiled to typed IR. Owned by the ufunc's state
/// and immutable after construction; PreparedCall points at it.
struct CompiledSignature {
  std::shared_ptr<const ir::Module> module;
  std::string ufunc_name;
  std::string signature;            // canonical: "float32(float32, float32)"
  std::vector<DType> params;        // input dtypes
  DType ret = DType::Float64;       // return dtype
  int index = 0;                    // position in the ufunc's dispatch order
  std::string base_name;            // codegen::entry_base_name(...): "f__float32_float32"
  uint64_t base_name_hash = 0;      // of base_name, for the per-call kernel lookup (HotKernels.h)
  /// Hash of the module's canonical IR text (with FloatOptions); the part of
  /// every kernel cache key that says "which code".
  uint64_t ir_hash = 0;
  /// With ir_hash, the XXH3-128 of that text: the disk cache key's code
  /// field, so that a first call does not print the module again.
  uint64_t ir_hash_high = 0;

  // Gufuncs (@guvectorize) only; `params` are then the INPUT dtypes.
  std::shared_ptr<const GufuncLayout> layout;  // null: an elementwise ufunc
  std::vector<DType> out_dtypes;               // per output
  std::vector<int> arg_ndims;                  // per argument (inputs, outputs): 0 a scalar

  /// The source it was typed from, when known before typing.
  SourceKey source;

  /// Explicit kernels: how the CPU target runs their blocks
  /// (codegen::cpu_block_shape, an IR walk made once here, not per launch).
  codegen::CpuBlockShape cpu_block_shape = codegen::CpuBlockShape::ThreadLoop;

  /// Non-null: code from elsewhere (module null); see ExternalKernel.
  std::shared_ptr<const ExternalKernel> external;

  bool generalized() const { return layout != nullptr; }
  /// What codegen's entry builders and the parameter table take.
  codegen::EntrySignature entry_signature() const;
};

/// One input of a prepared call.
struct PreparedOperand {
  bool is_scalar = false;
  DType dtype = DType::Float64;  // the parameter dtype (== array.dtype for arrays)
  /// Arrays: shape == PreparedCall::shape, byte strides (0 on broadcast dims,
  /// negative allowed); residence Host or Device.
  ArrayView array;
  /// Scalars: the value in the parameter's storage type, little-endian, at
  /// offset 0: bool 1 byte (0/1), ints, float16 raw bits, float32, float64;
  /// complex: real part at 0, imaginary part at dtype_size/2.
  alignas(8) std::array<uint8_t, 16> scalar_bytes{};
};

/// Everything a backend needs to run one call. All checks are done.
struct PreparedCall {
  const CompiledSignature *signature = nullptr;
  std::vector<PreparedOperand> inputs;
  /// Shape == `shape`, dtype == signature->ret. Host or device.
  ArrayView output;
  /// The collapsed iteration shape: 0..kMaxDims dims, none of size 1 (an
  /// all-size-1 or 0-d call has an empty shape and size 1). Never empty of
  /// elements: Call.cpp does not call execute() when size == 0.
  Dims shape;
  int64_t size = 1;
};

/// Everything a backend needs to run one gufunc call. All checks are done.
struct PreparedGufunc {
  const CompiledSignature *signature = nullptr;
  /// Inputs, then outputs; dtype == the parameter's. Shape: loop_shape then
  /// the core dims as the core function takes them (arg_ndims[k] dims; a
  /// layout core of fewer dims is padded in front with size-1, stride-0
  /// dims); outer strides 0 on broadcast dims. Host or device.
  std::vector<ArrayView> operands;
  /// Per operand: whether the kernel writes it (outputs, and inputs named by
  /// writable_args): a host operand of a GPU call is copied back.
  std::vector<bool> written;
  Dims loop_shape;  // may be empty (one outer element)
  int64_t loop_size = 1;            // > 0: Call.cpp does not run empty loops
};

/// One launch of an explicit kernel (@cuda.jit; runtime/KernelLaunch.cpp
/// prepares it). All checks are done: the configuration is within CUDA's
/// limits, `args` match the signature's parameters (an array of the
/// parameter's dtype and ndim, or a scalar converted to its dtype).
struct PreparedKernel {
  const CompiledSignature *signature = nullptr;
  /// Per kernel parameter: an array (host or device; `is_scalar` false) or
  /// a scalar's bytes.
  std::vector<PreparedOperand> args;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t shared_bytes = 0;  // dynamic shared memory per block
  /// Every array argument is C-contiguous: the launch uses
  /// codegen::explicit_variant(true), which knows their strides.
  bool contiguous = false;
};

/// The kernel variant for a call: Contiguous when every array operand (and
/// the output) collapsed to one dim (or none) with stride == element size and
/// its data pointer is aligned to the element size; index32 when the element
/// count and every byte offset fits in int32; the scalar mask from the
/// inputs. Both backends use this one rule.
codegen::KernelVariant choose_variant(const PreparedCall &call);

/// The parameters of one kernel entry, in the order of codegen/kernel/KernelABI.h,
/// with stable storage: `pointers()[k]` points at parameter k (what
/// cuLaunchKernel's kernelParams and a CPU entry's `params` want). Held
/// inline for the usual counts: packing allocates nothing.
class KernelParams {
 public:
  /// `table`: codegen::kernel_params of the entry (HotKernel::params holds
  /// it, computed once per kernel). `input_data[i]` / `output_data`: the
  /// address the kernel must use for array operand i / the output (device
  /// address for staged host operands; ignored for scalar inputs). Strides
  /// are taken from the PreparedCall. `error_flag`: the zeroed uint32 the
  /// kernel's error-flag parameter points at (device memory on CUDA);
  /// required when the signature's module can raise (ir::Module::can_raise),
  /// ignored otherwise. `done_flag`: what the entry's Done parameter takes
  /// (codegen/kernel/KernelABI.h; null: the launch is not waited on that way).
  KernelParams(const PreparedCall &call, std::span<const codegen::KernelParam> table,
               std::span<const void *const> input_data, void *output_data, void *error_flag = nullptr,
               void *done_flag = nullptr);
  /// The same, computing the table from the call's signature and `variant`.
  KernelParams(const PreparedCall &call, const codegen::KernelVariant &variant,
               const std::vector<const void *> &input_data, void *output_data, void *error_flag = nullptr);
  /// A gufunc call; `data[k]` the address the kernel uses for operand k.
  KernelParams(const PreparedGufunc &call, const std::vector<const void *> &data, void *error_flag = nullptr);
  /// One launch of an explicit kernel; `data[k]` the address the kernel
  /// uses for array argument k (ignored for scalars).
  KernelParams(const PreparedKernel &launch, std::span<const codegen::KernelParam> table,
               const std::vector<const void *> &data, void *error_flag = nullptr);
  /// One launch of a method entry; `table`: method_params of its signature.
  KernelParams(const MethodArgs &args, std::span<const codegen::KernelParam> table);
  KernelParams(const KernelParams &) = delete;
  KernelParams &operator=(const KernelParams &) = delete;

  void *const *pointers() const { return pointers_.data(); }
  std::size_t count() const { return pointers_.size(); }

 private:
  struct alignas(8) Slot {
    uint8_t bytes[sizeof(codegen::Dims)];
  };
  static constexpr std::size_t kInlineParams = 16;
  void push(const void *data, std::size_t size);
  /// Pushes a Count, NDim or Shape parameter of an iteration of `n`
  /// elements over `shape`; false for other roles.
  bool push_iteration(const codegen::KernelParam &param, int64_t n, const Dims &shape);
  /// Pushes the ErrorFlag or the Done parameter; false for other roles.
  bool push_flag(const codegen::KernelParam &param, void *error_flag, void *done_flag);
  void finish();

  SmallVector<Slot, kInlineParams> slots_;
  SmallVector<void *, kInlineParams> pointers_;
};

/// The parameter table of a signature's entry for `variant`
/// (codegen::kernel_params of its spec): what KernelParams packs.
std::vector<codegen::KernelParam> entry_params(const CompiledSignature &sig, const codegen::KernelVariant &variant);

/// What one launch of a method entry (codegen/kernel/KernelReduce.h) is given,
/// by name; KernelParams lays it out in the entry's parameter table.
struct MethodArgs {
  int64_t rows = 0;
  int64_t len = 0;
  int64_t chunks = 1;
  int64_t chunk_len = 0;
  const void *in = nullptr;
  void *out = nullptr;
  const void *aux = nullptr;
  void *out_has = nullptr;
  void *error_flag = nullptr;  // required when the module can raise
};

/// The parameter table of a signature's method entry (codegen::
/// make_method_spec): what KernelParams packs for a MethodArgs.
std::vector<codegen::KernelParam> method_params(const CompiledSignature &sig, codegen::MethodKernel method);

/// A compiled kernel as the JIT engine hands it out and its caches keep it
/// (a CPU entry address, a CUfunction with its module, ...).
struct CompiledKernel {
  virtual ~CompiledKernel() = default;
  /// Compiled at the quick tier (codegen::PtxTier::Quick): the JIT engine
  /// (runtime/JitEngine.h) is compiling the optimised kernel to replace it.
  bool quick_tier = false;
};

/// Construction parameters shared by all backends.
struct BackendConfig {
  int device = 0;         // CUDA device ordinal
  /// `device` is an ordinal of RuntimeOptions::devices, already checked:
  /// UFJIT_DEVICE does not apply (it chooses the one device of a Runtime
  /// without a device set).
  bool exact_device = false;
  int cpu_threads = 0;    // 0: one per hardware thread
  bool warn_low_occupancy = true;  // RuntimeOptions::warn_low_occupancy
  KernelCache *cache = nullptr;  // owned by the RuntimeImpl; outlives backends
  std::function<bool()> interrupt{};  // RuntimeOptions::interrupt (CPU calls)
};

/// A target's device layer: its memory, the transfers between it and the
/// host, and its streams; its kernels run through runner(). One instance per
/// (Runtime, target, device); thread-safe.
class Backend {
 public:
  virtual ~Backend() = default;

  virtual TargetKind kind() const = 0;
  /// The CUDA device ordinal whose memory and streams this backend uses, or
  /// -1 for the CPU (host memory only).
  virtual int device_ordinal() const { return -1; }
  /// Whether this backend's kernels may read and write the memory of CUDA
  /// device `ordinal` in place: its own, or a peer's with peer access
  /// enabled (runtime/DevicePlacement.h).
  virtual bool reads_device(int ordinal) const { return ordinal == device_ordinal() && ordinal >= 0; }
  /// The CUDA device ordinal of `stream`'s context (-1 on the CPU).
  virtual int stream_device(const StreamImpl &stream) const {
    (void)stream;
    return -1;
  }
  /// The canonical target key used in cache keys and logs: "cpu-x86_64-znver3+avx2",
  /// "cuda-sm_90-ptx8.5" (covers arch, PTX ISA, device context).
  virtual std::string key() const = 0;

  /// An uninitialised C-contiguous array for a call's output, on the host or
  /// on the device, aligned to at least 16 bytes. Call.cpp permutes the view
  /// itself when the output should follow the inputs' memory order (Fortran,
  /// NumPy's K order). Freed when the Array (and every copy of its holder)
  /// dies, so nothing leaks if a later step throws. `stream` is the call's
  /// (null: a synchronous call).
  virtual Array make_output(DType dtype, const Dims &shape, Residence residence,
                            StreamImpl *stream) = 0;

  /// What runs this target's kernels (runtime/KernelRunner.h): every kernel
  /// family, on this backend's memory and streams. Lives as long as the
  /// backend.
  virtual KernelRunner &runner() = 0;

  // ---- data movement; the CPU backend throws NoDeviceError for these.
  /// A new C-contiguous device array holding a copy of a host view.
  virtual Array to_device(const ArrayView &host);
  /// A new C-contiguous host array holding a copy of a device view.
  virtual Array to_host(const ArrayView &device);
  /// An uninitialised C-contiguous device array.
  virtual Array device_empty(DType dtype, const Dims &shape);
  /// A new stream of the device context.
  virtual Stream make_stream();
  /// A Stream wrapping a CUstream the caller owns (never destroyed by it).
  virtual Stream borrow_stream(void *cu_stream);
  /// Whether `cu_stream` (a non-null CUstream the caller made) belongs to
  /// this backend's context (Runtime::borrow_stream picks the device by it).
  virtual bool owns_stream(void *cu_stream) const {
    (void)cu_stream;
    return false;
  }
  /// Waits for all work this backend enqueued.
  virtual void synchronize();
};

/// The CPU backend (runtime/CpuBackend.cpp): codegen::CpuCompiler + a pool.
std::unique_ptr<Backend> make_cpu_backend(const BackendConfig &config);

// The CUDA backend is declared by runtime/cuda/CudaBackend.h:
//   std::unique_ptr<Backend> make_cuda_backend(const BackendConfig &config);
// throwing NoDeviceError when no driver/device is usable.

// ---------------------------------------------------------------- helpers

/// Copies the elements of `src` into `dst` (host memory both, same dtype and
/// shape, any strides). Used for host copies of strided views and staging.
void copy_host_strided(const ArrayView &src, const ArrayView &dst);

/// A new host array of `src`'s shape in C order holding `src`'s elements
/// converted to `to` (NumPy `astype`; used for safe casts of host operands).
Array convert_host(const ArrayView &src, DType to);

/// Allocates uninitialised C-contiguous host memory for an array (64-byte
/// aligned), owned by the Array.
Array allocate_host(DType dtype, const Dims &shape);

/// The view of a C-contiguous host array of `dtype` and `shape`, data unset.
ArrayView c_contiguous_host_view(DType dtype, const Dims &shape);

}  // namespace ufjit::runtime
