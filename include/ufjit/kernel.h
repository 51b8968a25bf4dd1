// ufjit public API: explicit kernels, Numba's @cuda.jit (LANGUAGE.md section 9).
//
//   ufjit::Kernel add = rt.kernel(source);              // the source's one @cuda.jit
//   add({.grid = 64, .block = 256}, ufjit::view(x), ufjit::view(y), ufjit::view(out));
//   add.launch({.grid = {8, 8}, .block = {16, 16}}, a, b, c);  // the same, 2-d
//
// A launch runs the kernel once per thread of `grid` blocks of `block`
// threads, on the GPU or, with the GPU's semantics (barriers, shared memory,
// atomics, warps of 32 lanes), on the CPU. No LLVM or CUDA type appears here.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ufjit/export.h"
#include "ufjit/runtime.h"

namespace ufjit {

/// A grid's blocks or a block's threads in up to three dimensions, x
/// fastest, as CUDA's dim3: `256`, `{16, 16}`, `{8, 8, 4}`.
struct UFJIT_API Dim3 {
  int64_t x = 1;
  int64_t y = 1;
  int64_t z = 1;
  Dim3() = default;
  Dim3(int64_t x_, int64_t y_ = 1, int64_t z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT: `.grid = 64`
  int64_t count() const { return x * y * z; }
};

/// How a kernel is launched (Numba's `kernel[grid, block, stream,
/// dynamic_shared_bytes]`). Each extent must be at least 1; a block has at
/// most 1024 threads (x, y <= 1024, z <= 64), a grid at most 2^31 - 1
/// blocks in x and 65535 in y and z (CUDA's limits, on both targets).
struct UFJIT_API LaunchConfig {
  Dim3 grid{};
  Dim3 block{};
  /// Bytes of dynamic shared memory per block (`cuda.shared.array(0, dtype)`).
  int64_t shared_bytes = 0;
  /// Non-null: enqueue on this stream and return (the GPU only; device
  /// arrays only). Null: return when the kernel has finished and host
  /// arrays hold its results.
  Stream *stream = nullptr;
  /// The CUDA device to launch on, one of Runtime::devices(). -1: the
  /// stream's device when a stream is given, else the device of the first
  /// device array argument, else the default device (docs/guide/cpp.md, "Several GPUs").
  int device = -1;
  /// The checking mode (docs/guide/cpp.md, "Checking mode"): runs the
  /// kernel's checked compilation (made at the first such launch, cached
  /// apart), in which an array index out of bounds raises KernelError of
  /// kind IndexError naming the line, the array, the index, its extent and
  /// the thread, and, on the CPU target, a data race on shared memory
  /// (two threads of a block, no barrier between them, one writing) is a
  /// KernelError naming both threads and lines. `debug=True` on the
  /// decorator, or UFJIT_CHECK=1, makes every launch checked. Slow: for
  /// tests and debugging.
  bool check = false;
};

struct KernelState;

/// A kernel of a source (`cuda.jit` without device=True). Cheap to copy; shares its state. Every
/// member of an empty (default-constructed) Kernel throws InputError.
class UFJIT_API Kernel {
 public:
  Kernel() = default;
  explicit Kernel(std::shared_ptr<KernelState> state) : state_(std::move(state)) {}

  const std::string &name() const;
  /// The kernel's parameter names, in order (`def add(x, y, out)`: x, y, out).
  const std::vector<std::string> &parameters() const;
  /// The signatures compiled so far (given by the decorator, or typed at
  /// launches), canonical text: "void(float32[:], float32[:], int64)".
  std::vector<std::string> signatures() const;

  /// Launches the kernel with `args`, one per kernel parameter in order.
  /// Arrays are passed by reference: the kernel reads and writes the
  /// caller's memory. A host array given to a GPU launch is copied to the
  /// device and back after the kernel, as Numba does; device arrays are used
  /// in place. Scalars are passed by value (converted to the parameter's
  /// type as C converts). The signature is the first given one whose array
  /// dtypes and dimensions equal the arguments' (a kernel without
  /// signatures is compiled for the arguments' types at their first launch,
  /// then cached). Errors (errors.h): InputError for a bad configuration or
  /// argument count, DispatchError when no signature fits, CompileError,
  /// and KernelError for a `raise` in the kernel (after it finished).
  template <typename... Args>
  void launch(const LaunchConfig &config, Args &&...args) const {
    const std::array<Operand, sizeof...(Args)> operands{Operand(std::forward<Args>(args))...};
    launch_operands(config, operands);
  }
  template <typename... Args>
  void operator()(const LaunchConfig &config, Args &&...args) const {
    launch(config, std::forward<Args>(args)...);
  }
  void launch_operands(const LaunchConfig &config, std::span<const Operand> args) const;
  /// Launches on `target` instead of the Runtime's default.
  void launch_on(TargetKind target, const LaunchConfig &config, std::span<const Operand> args) const;

  /// The signature a launch with `args` uses (compiling it first for a
  /// kernel without signatures), as `launch` chooses it; DispatchError or
  /// CompileError as `launch` would throw.
  std::string signature_for(std::span<const Operand> args) const;

  /// Generated PTX for one signature ("void(float32[:], float32[:])") and arch.
  std::string ptx(const std::string &signature, const std::string &arch = "sm_90") const;

 private:
  std::shared_ptr<KernelState> state_;
};

}  // namespace ufjit
