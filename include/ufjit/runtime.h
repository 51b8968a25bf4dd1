// ufjit public API: the Runtime, ufuncs and calls.
//
//   ufjit::Runtime rt;                         // the first CUDA GPU, else the CPU
//   auto gauss = rt.vectorize(source, {"float32(float32, float32, float32)"});
//   gauss(ufjit::view(x), 0.0f, 1.0f, ufjit::out(ufjit::view(y)));
//
// One Runtime may be used from many threads; a ufunc compiled by two threads
// at once is compiled once. No LLVM or CUDA type appears here.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ufjit/array.h"
#include "ufjit/errors.h"
#include "ufjit/export.h"
#include "ufjit/target.h"

namespace ufjit {


/// A scalar operand. `weak` scalars (plain C++ arithmetic values, CLI numbers)
/// adapt to the signature as Python scalars do under NEP 50; strong ones
/// (`typed<T>(x)`) dispatch on their dtype.
struct UFJIT_API Scalar {
  DType dtype = DType::Float64;  // for weak scalars: Bool, Int64, Float64 or Complex128
  bool weak = true;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double f;
  } value{};
  double imag = 0.0;  // complex only; real part in value.f
};

/// One operand of a call: an array view, a scalar, or the output.
struct UFJIT_API Operand {
  enum class Kind : uint8_t { Array, Scalar, Out } kind = Kind::Scalar;
  ArrayView array;
  Scalar scalar;

  Operand(const ArrayView &v) : kind(Kind::Array), array(v) {}  // NOLINT
  Operand(const Array &a) : kind(Kind::Array), array(a.view()) {}  // NOLINT
  Operand(const Out &o) : kind(Kind::Out), array(o.view) {}  // NOLINT
  Operand(Out &&o) : kind(Kind::Out), array(std::move(o.view)) {}  // NOLINT: `f(x, out(y))` moves, no copy
  template <typename T>
  Operand(const TypedArray<T> &a) : kind(Kind::Array), array(a.view()) {}  // NOLINT
  /// A const vector is a read-only view (ArrayView::read_only); a mutable
  /// one may be written (an input in a gufunc's writable_args).
  template <typename T>
  Operand(const std::vector<T> &v) : Operand(ufjit::view(v)) {}  // NOLINT
  template <typename T>
  Operand(std::vector<T> &v) : Operand(ufjit::view(v)) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  Operand(T v) {  // NOLINT: weak scalar
    if constexpr (std::is_same_v<T, bool>) {
      scalar.dtype = DType::Bool;
      scalar.value.b = v;
    } else if constexpr (std::is_integral_v<T>) {
      scalar.dtype = DType::Int64;
      scalar.value.i = static_cast<int64_t>(v);
      if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
        scalar.dtype = DType::UInt64;
        scalar.value.u = v;
      }
    } else {
      scalar.dtype = DType::Float64;
      scalar.value.f = static_cast<double>(v);
    }
  }
  template <typename T>
  Operand(std::complex<T> v) {  // NOLINT: weak complex scalar
    scalar.dtype = DType::Complex128;
    scalar.value.f = static_cast<double>(v.real());
    scalar.imag = static_cast<double>(v.imag());
  }
  template <typename T>
  Operand(Typed<T> t) : Operand(t.value) {  // NOLINT: strong scalar
    scalar.weak = false;
    scalar.dtype = dtype_of<T>();
    if constexpr (std::is_floating_point_v<T>) scalar.value.f = static_cast<double>(t.value);
  }
};

class Runtime;
class Stream;
class Kernel;
struct UfuncState;

/// NumPy's `axes=` / `axis=` of a generalized ufunc call: which axes of each
/// operand hold its core dimensions. They are moved last as views (nothing
/// is copied); a new output gets its core dimensions at the axes named.
struct UFJIT_API CoreAxes {
  /// One entry per operand (inputs, then outputs): its core axes in the
  /// layout's order, negative ones counting from the end. Entries of trailing
  /// outputs without core dimensions may be left out.
  std::vector<std::vector<int>> axes;
  /// Or one axis for every operand with one core dimension, which they all
  /// share; operands without core dimensions take none.
  std::optional<int> axis;
};

/// The identity of a ufunc (`identity=` of @vectorize, as NumPy and Numba
/// define it): the value a reduction of no elements gives. `None` and
/// `Reorderable` have no value: reducing an empty array then needs
/// `initial`. `None` also allows reduce over one axis only (NumPy: the
/// operation is not reorderable); the others allow several.
enum class Identity : uint8_t { None, Zero, One, Reorderable };

/// Options of Ufunc::reduce (NumPy's `ufunc.reduce`).
struct UFJIT_API ReduceOptions {
  /// The axes to reduce (negative counts from the end); empty with
  /// `all_axes` false: axis 0, as NumPy's default.
  std::vector<int> axes;
  /// Reduce over every axis (NumPy's `axis=None`).
  bool all_axes = false;
  /// Keep the reduced axes with size 1.
  bool keepdims = false;
  /// The first value of every reduction (NumPy's `initial`); also what an
  /// empty reduction gives. A scalar: a plain number (weak) or typed<T>(x).
  std::optional<Operand> initial;
  /// NumPy's `dtype=`: the signature (T, T) -> T with T == dtype is used and
  /// gives the result's dtype; the input is cast to T as NumPy casts it for
  /// a reduction (unsafely: 2.5 -> 2 for an integer dtype). Without it the
  /// signature is chosen by dispatch on (out, a) when `out` is given, else
  /// on (a, a); a result of another dtype than `out`'s is cast into it.
  std::optional<DType> dtype;
  /// NumPy's `where=`: a bool array that broadcasts to the input's shape;
  /// only the elements where it is true are reduced. A ufunc without an
  /// identity (identity= None or 'reorderable') needs `initial` with it.
  std::optional<ArrayView> where;
};

/// Options of Ufunc::accumulate (NumPy's `ufunc.accumulate`).
struct UFJIT_API AccumulateOptions {
  int axis = 0;
  /// NumPy's `dtype=`, as ReduceOptions::dtype.
  std::optional<DType> dtype;
};

/// A compiled (or lazily compiled) ufunc. Cheap to copy; shares its state.
/// Every member of an empty (default-constructed or moved-from) Ufunc
/// throws InputError.
/// A ufunc's scalar function as a device function for your own CUDA C++
/// kernels (Ufunc::device_function; docs/guide/cudacpp.md).
struct UFJIT_API DeviceFunction {
  std::string symbol;  // the exported name: the ufunc's
  std::string code;    // PTX with one `.visible .func <symbol>`
  std::string header;  // `extern "C" __device__ float <symbol>(float x, ...);`
};

class UFJIT_API Ufunc {
 public:
  Ufunc() = default;
  const std::string &name() const;
  /// The signatures, canonical text, in dispatch order.
  std::vector<std::string> signatures() const;

  /// Applies the ufunc. Returns the result (host if every array operand is on
  /// the host, else device), or an empty Array when `out(...)` was given.
  /// The inputs broadcast to `out`'s shape when it is given (NumPy). The
  /// result is as if every input were read before `out` is written: an
  /// input that overlaps `out` other than element for element is read
  /// through a temporary copy. Every view is checked first (errors.h).
  template <typename... Args>
  Array operator()(Args &&...args) const {
    const std::array<Operand, sizeof...(Args)> operands{Operand(std::forward<Args>(args))...};
    return call_operands(operands);
  }
  Array call(const std::vector<Operand> &operands) const;
  /// Runs on `target` instead of the ufunc's default.
  Array call_on(TargetKind target, const std::vector<Operand> &operands) const;

  /// Every result of a call: one Array per output of a generalized ufunc
  /// (@guvectorize with several outputs: `auto [q, r] = ...`), none when
  /// they were given with out(...) (all or none, as NumPy). `call` returns
  /// the one result, and throws InputError for several.
  template <typename... Args>
  std::vector<Array> outputs(Args &&...args) const {
    return call_all(make_operands(std::forward<Args>(args)...));
  }
  std::vector<Array> call_all(const std::vector<Operand> &operands) const;
  std::vector<Array> call_all_on(TargetKind target, const std::vector<Operand> &operands) const;
  /// With NumPy's `axes=`/`axis=` (gufuncs only); `target` empty: the default.
  std::vector<Array> call_all(const std::vector<Operand> &operands, const CoreAxes &axes,
                              std::optional<TargetKind> target = std::nullopt) const;
  /// Whether this is a generalized ufunc, and its layout ("(n),(n)->()"; "" if not).
  bool is_generalized() const;
  std::string layout() const;
  /// Outputs per call (NumPy's `ufunc.nout`): 1 for a ufunc.
  int nout() const;

  /// Enqueues on `stream` and returns without synchronising. Device operands
  /// (and `out`) only. Later work of this Runtime (calls, copies) is ordered
  /// after it: program order is the only order to think about.
  template <typename... Args>
  void async(Stream &stream, Args &&...args) const {
    const std::array<Operand, sizeof...(Args)> operands{Operand(std::forward<Args>(args))...};
    call_async_operands(stream, operands);
  }
  void call_async(Stream &stream, const std::vector<Operand> &operands) const;

  /// The identity given by `identity=` (Identity::None without one).
  Identity identity() const;

  /// Ufunc methods, for binary ufuncs whose signature takes and returns one
  /// type (`float32(float32, float32)`); the signature is chosen by dispatch
  /// on (a, a) (options.dtype and `out` change that: ReduceOptions::dtype).
  /// Host and device arrays as for calls: the result is where `a` is; `out`
  /// (optional) must have the result's shape, any dtype (the result is cast
  /// into it, as NumPy does). A raise in the kernel is reported as
  /// KernelError after the call, `out` untouched. The GPU
  /// reduces with a tree whose order is fixed (deterministic) but is not
  /// the left-to-right order: the function must be associative and
  /// commutative (as `add`, `maximum`); the CPU folds left to right.
  Array reduce(const Operand &a, const ReduceOptions &options = {}, const std::optional<Out> &out = {}) const;
  /// out[..., i, ...] = f(out[..., i-1, ...], a[..., i, ...]) along `axis`.
  /// The GPU scans long lines in blocks (a fixed order, deterministic): the
  /// function must be associative.
  Array accumulate(const Operand &a, const AccumulateOptions &options = {},
                   const std::optional<Out> &out = {}) const;
  /// f(a[i...], b[j...]) for every pair: shape a.shape + b.shape (NumPy's
  /// `ufunc.outer`), through broadcasting views and one ordinary call.
  Array outer(const Operand &a, const Operand &b, const std::optional<Out> &out = {}) const;

  /// Generated PTX for one signature ("float32(float32, float32)") and arch.
  std::string ptx(const std::string &signature, const std::string &arch = "sm_90") const;

  /// One signature's scalar function (not a kernel) as an `extern "C"
  /// __device__` function and the header declaring it. `format`: "ptx"
  /// ("ltoir" is refused: LTO-IR is NVVM's format, which LLVM does not write);
  /// `abi`: "c" or "numba". Throws DispatchError for a signature the ufunc
  /// lacks, ufjit::Error for a type the ABI cannot carry.
  DeviceFunction device_function(const std::string &signature, const std::string &arch = "sm_90",
                                 const std::string &format = "ptx", const std::string &abi = "c") const;

  explicit Ufunc(std::shared_ptr<UfuncState> state) : state_(std::move(state)) {}

 private:
  /// call() and call_async() of the variadic forms, whose operands are built
  /// in place on the caller's stack (no heap allocation per call).
  Array call_operands(std::span<const Operand> operands) const;
  void call_async_operands(Stream &stream, std::span<const Operand> operands) const;

  /// The operands of a variadic call, each built in place: a braced
  /// std::vector<Operand>{...} would copy every operand (and its view's
  /// shape and strides) once more from the initializer list.
  template <typename... Args>
  static std::vector<Operand> make_operands(Args &&...args) {
    std::vector<Operand> operands;
    operands.reserve(sizeof...(Args));
    (operands.emplace_back(std::forward<Args>(args)), ...);
    return operands;
  }

  std::shared_ptr<UfuncState> state_;
};

/// Every @vectorize of one source, by name.
class UFJIT_API UfuncSet {
 public:
  /// By value (a Ufunc shares its state), so `rt.load_file(f)["name"]` is safe
  /// to keep although the set is a temporary. InputError for an unknown name.
  Ufunc operator[](const std::string &name) const;
  std::vector<std::string> names() const;
  std::vector<Ufunc> ufuncs;
};

/// In RuntimeOptions::devices: every CUDA device of the host.
inline constexpr int kAllDevices = -1;

/// A device set as UFJIT_DEVICES and the tool's `--devices` spell it: "all"
/// (any case) is {kAllDevices}, else CUDA device ordinals separated by commas
/// ("0,1"). Throws InputError naming `origin` for anything else.
UFJIT_API std::vector<int> parse_device_set(const std::string &text, const std::string &origin);

struct UFJIT_API RuntimeOptions {
  /// Empty: the first CUDA GPU when there is one, else the CPU. UFJIT_TARGET
  /// ("cpu"/"cuda") overrides the default.
  std::optional<TargetKind> target;
  /// CUDA device ordinal; UFJIT_DEVICE overrides. Used when `devices` is empty.
  int device = 0;
  /// The set of CUDA devices the Runtime computes on (docs/guide/cpp.md, "Several GPUs"):
  /// ordinals, the first being the default device, or {kAllDevices} for
  /// every device of the host. Each device gets its own context, streams
  /// and memory pools; peer access is enabled between every pair whose
  /// hardware allows it. A call runs on the device of its operands. Empty:
  /// the one device `device` (the default). UFJIT_DEVICES ("0,1" or "all")
  /// overrides.
  std::vector<int> devices{};
  /// CPU worker threads; 0: one per hardware thread.
  int cpu_threads = 0;
  /// A gufunc call on the GPU whose outer loop has too few elements to fill
  /// the device (fewer blocks than twice the multiprocessors) prints a
  /// one-line warning to stderr, once per gufunc signature and Runtime.
  /// False: silent (as Numba, which runs `(n),(n)->(n)` on one thread).
  bool warn_low_occupancy = true;
  /// Asked from a synchronous CPU call's own thread between chunks of its
  /// work (ufuncs, gufuncs and methods; chunks of about 65536 elements, or
  /// one core of a gufunc), at most every 10 ms and never in a call shorter
  /// than that; returning true stops the call with ufjit::Cancelled
  /// (errors.h). Empty: calls always run to the end. ufjit never touches
  /// signals: to cancel from another thread or a signal handler, set an
  /// atomic flag there and return it here. GPU calls are not interrupted.
  std::function<bool()> interrupt{};
};

/// Options of Runtime::elementwise (CuPy's ElementwiseKernel arguments).
struct UFJIT_API ElementwiseOptions {
  std::string preamble;    // file-scope CUDA C++ before the kernel (helper functions)
  std::string loop_prep;   // per thread, before its loop
  std::string after_loop;  // per thread, after its loop
  std::vector<std::string> nvrtc_options;  // passed to NVRTC as they are ("-DN=4")
};

/// Options of Runtime::vectorize, load and load_file that the source text
/// cannot say itself (docs/guide/cudacpp.md):
///
///   ufjit::Ufunc f = rt.vectorize(src, {"float32(float32, float32)"}, {.link = {"helpers.cu"}});
/// (Every member has a default initializer, so that designated
/// initializers leave any out without -Wmissing-field-initializers.)
struct UFJIT_API VectorizeOptions {
  /// CUDA C++ files (.cu, .ptx, .cubin, .ltoir, .fatbin) that define the
  /// source's declare_device functions, as a decorator's link=[...] names
  /// them: every ufunc that calls a declared function links these after its
  /// own link=[...] files (a file named by both is linked once). Their
  /// content is part of the kernels' cache keys.
  std::vector<std::string> link{};
  /// The folder relative link paths (these and the decorators') are found
  /// in. Empty: the source file's folder (load_file, or a source_name that
  /// names a file), else the current folder.
  std::string base_dir{};
  /// Given to NVRTC for every .cu link file, as they are ("-DN=4",
  /// "-std=c++17"; `-I` the file's own folder is always there). Part of the
  /// cache keys, as the files' content is.
  std::vector<std::string> nvrtc_options{};
  /// The name diagnostics give the source ("<string>": a string of no file).
  std::string source_name = "<string>";
};

struct RuntimeImpl;

/// Owns the compilers, caches, device context and thread pool. Thread-safe.
class UFJIT_API Runtime {
 public:
  Runtime();
  explicit Runtime(const RuntimeOptions &options);
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  /// The default target of calls.
  TargetKind target() const;

  /// Compiles `source` holding one @vectorize function, or plain defs of
  /// which the last is the ufunc and the others its helpers.
  /// Non-empty `signatures` replace the decorator's. Throws CompileError.
  Ufunc vectorize(const std::string &source, const std::vector<std::string> &signatures = {});
  /// The same with options: `rt.vectorize(src, sigs, {.link = {"helpers.cu"}})`.
  Ufunc vectorize(const std::string &source, const std::vector<std::string> &signatures,
                  const VectorizeOptions &options);
  /// The same naming the source for diagnostics. (A template, so that a
  /// braced `{.link = ...}` never also reads as a std::string: GCC 12 counts
  /// that conversion and would call the options overloads ambiguous.)
  template <typename Name, std::enable_if_t<std::is_convertible_v<const Name &, std::string>, int> = 0>
  Ufunc vectorize(const std::string &source, const std::vector<std::string> &signatures, const Name &source_name) {
    VectorizeOptions options;
    options.source_name = source_name;
    return vectorize(source, signatures, options);
  }
  /// A CUDA C++ elementwise kernel as CuPy's ElementwiseKernel writes it
  /// (docs/guide/cudacpp.md): `in_params` "float32 x, T y, raw T
  /// w", `out_params` "T z" (several: a Ufunc with nout() > 1), `operation`
  /// the loop body (`i` the index, `_ind.size()` the element count, raw
  /// parameters indexed with `w[i]`). Type placeholders bind to the
  /// operands' dtypes at each call; each (types, kernel variant) is compiled
  /// once with NVRTC and cached on disk. Calls run on the GPU (the CPU
  /// target is an error). Throws CompileError for bad parameter lists at
  /// once, and at the first call for CUDA C++ errors, located in the
  /// strings ("<elementwise NAME>:1:5: error: ...").
  Ufunc elementwise(const std::string &in_params, const std::string &out_params, const std::string &operation,
                    const std::string &name, const ElementwiseOptions &options = {});
  /// Every @vectorize in a source string / a .ufn file.
  UfuncSet load(const std::string &source) { return load(source, VectorizeOptions{}); }
  UfuncSet load(const std::string &source, const VectorizeOptions &options);
  template <typename Name, std::enable_if_t<std::is_convertible_v<const Name &, std::string>, int> = 0>
  UfuncSet load(const std::string &source, const Name &source_name) {  // a template: see vectorize
    VectorizeOptions options;
    options.source_name = source_name;
    return load(source, options);
  }
  /// A .ufn file is read as the tool reads it: a regular file of at most
  /// kMaxSourceBytes (ufjit/files.h); a FIFO or device is refused at once.
  /// `options.source_name` is ignored: diagnostics name `path`.
  UfuncSet load_file(const std::string &path);
  UfuncSet load_file(const std::string &path, const VectorizeOptions &options);

  /// The kernel (`cuda.jit`, not a device function) `name` of `source` (empty: its only kernel), an
  /// explicit kernel launched over a grid (ufjit/kernel.h). Throws
  /// CompileError for a source that does not compile, InputError for an
  /// unknown name.
  Kernel kernel(const std::string &source, const std::string &name = "");
  /// The same from a .ufn file, read as load_file reads one.
  Kernel kernel_file(const std::string &path, const std::string &name = "");

  /// Copies a host view to a new device array (C-contiguous) on the default
  /// device (the first of RuntimeOptions::devices). Needs a GPU.
  /// The view is checked as a call's operands are (errors.h).
  Array to_device(const ArrayView &host);
  template <typename T>
  Array to_device(const std::vector<T> &v) {
    return to_device(ufjit::view(v));
  }
  /// The same on CUDA device `device`, one of devices() (InputError else).
  Array to_device(const ArrayView &host, int device);
  template <typename T>
  Array to_device(const std::vector<T> &v, int device) {
    return to_device(ufjit::view(v), device);
  }
  /// Copies any view to a new C-contiguous host array.
  Array to_host(const ArrayView &array);
  /// An uninitialised C-contiguous device array; ShapeError for a negative
  /// dim or a byte size that does not fit in int64.
  Array device_empty(DType dtype, std::vector<int64_t> shape);
  template <typename T>
  TypedArray<T> device_empty(std::vector<int64_t> shape) {
    return TypedArray<T>(device_empty(dtype_of<T>(), std::move(shape)));
  }
  /// The same on CUDA device `device`, one of devices() (InputError else).
  Array device_empty(DType dtype, std::vector<int64_t> shape, int device);
  template <typename T>
  TypedArray<T> device_empty(std::vector<int64_t> shape, int device) {
    return TypedArray<T>(device_empty(dtype_of<T>(), std::move(shape), device));
  }

  /// The CUDA device ordinals this Runtime computes on, the default first
  /// (RuntimeOptions::devices resolved). Needs a GPU.
  std::vector<int> devices();

  /// A new stream on the default device (RAII). Needs a GPU. An async call
  /// or launch on a stream runs on the stream's device.
  Stream stream();
  /// A new stream on CUDA device `device`, one of devices().
  Stream stream(int device);
  /// Wraps a CUstream that the embedding program owns (a `CUstream` or
  /// `cudaStream_t` passed as a pointer; null is the legacy default stream),
  /// so that `Ufunc::async` orders ufjit's work with the program's own. It
  /// must belong to the primary context (the one the CUDA runtime, CuPy and
  /// PyTorch use) of one of devices(): async calls on it run on that device
  /// (the legacy default stream: on the default device). The Stream never destroys it; the
  /// program keeps it alive while work is enqueued. ufjit's synchronous calls
  /// run on the legacy default stream, which a blocking stream waits for but a
  /// non-blocking one (CU_STREAM_NON_BLOCKING) does not: synchronize such a
  /// stream (or record an Event) before a synchronous call reads its results.
  /// Needs a GPU.
  Stream borrow_stream(void *cu_stream);
  /// Waits for all work this runtime enqueued (on every device of the set): device work, and the optimised
  /// GPU kernels being compiled in the background (tiering: docs/guide/
  /// caches.md), which later calls then use.
  void synchronize();

  RuntimeImpl &impl() { return *impl_; }

 private:
  std::unique_ptr<RuntimeImpl> impl_;
};

/// The process-wide version string: "0.1.0 (LLVM 19.1.7)".
UFJIT_API std::string version();

}  // namespace ufjit
