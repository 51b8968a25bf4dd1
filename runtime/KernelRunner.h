// What runs a target's kernels: every kernel family (elementwise ufunc calls,
// gufunc calls, the ufunc methods, explicit kernels) on the memory and
// streams of one Backend (runtime/Backend.h), which is the device layer only.
//
// A runner gets each kernel from the JIT engine (runtime/JitEngine.h: the one
// place kernels are compiled, cached and loaded), places host operands where
// its code can read them, packs the kernel's parameter table (KernelParams)
// and launches by configuration (runtime/cuda/LaunchConfig.h on the GPU,
// runtime/CpuLaunch.h on the CPU). The CPU runner is in runtime/CpuBackend.cpp,
// the CUDA one in runtime/cuda/CudaRunner.cpp. Thread-safe: called from many
// host threads at once.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/Backend.h"

namespace ufjit::runtime {

/// One launch of a ufunc method kernel (codegen/kernel/KernelReduce.h) over
/// C-contiguous rows in this backend's compute memory (device memory for
/// CUDA): reduce writes out[rows], accumulate out[rows, len]. rows, len >= 1.
/// runtime/Methods.cpp prepares it; the runner chunks long rows itself and
/// picks the entry (Reduce or ReduceWhere when `where` is set; Accumulate or
/// AccumulateRows), and reports a raise of the kernel as ufjit::KernelError.
struct MethodLaunch {
  const CompiledSignature *signature = nullptr;
  codegen::MethodKernel method = codegen::MethodKernel::Reduce;
  int64_t rows = 1;
  int64_t len = 1;
  const void *in = nullptr;
  void *out = nullptr;
  /// Reduce: a bool [rows, len] mask in the same memory (1: take the
  /// element), whose column 0 is all 1; null: every element.
  const void *where = nullptr;
  /// Reduce: the function is not declared reorderable (identity None), so
  /// the CPU folds each row left to right in one piece, never in chunks
  /// whose results are combined (wrong for `subtract`). The GPU's tree
  /// requires an associative function either way (docs/guide/cpp.md).
  bool in_order = false;
};

/// What a runner keeps in a LastCallPlan (runtime/CallPlan.h) to launch the
/// plan's next call sooner: a subclass of the runner's own.
struct LaunchMemo {
  virtual ~LaunchMemo() = default;
};

class KernelRunner {
 public:
  virtual ~KernelRunner() = default;

  /// Runs a prepared call. `stream` null: synchronous (returns when the output
  /// is written, host outputs included). Non-null: enqueue on that stream and
  /// return (CUDA only; device operands and output only, Call.cpp checks).
  virtual void execute(const PreparedCall &call, StreamImpl *stream) = 0;
  /// execute() of a call run through a LastCallPlan: every call of the plan
  /// differs only in its data pointers. `memo` is the plan's (empty when the
  /// plan is new); the runner may fill it on one call and use it on the
  /// next. The default runs execute().
  virtual void execute_planned(const PreparedCall &call, StreamImpl *stream, std::unique_ptr<LaunchMemo> &memo) {
    (void)memo;
    execute(call, stream);
  }
  /// Runs a prepared gufunc call: one core call per outer element (one GPU
  /// thread, or one CPU iteration). Streams and host operands as execute().
  virtual void execute_gufunc(const PreparedGufunc &call, StreamImpl *stream) = 0;

  /// Launches an explicit kernel. `stream` null: synchronous (host arrays
  /// copied in, and back after the kernel); else enqueued (device arrays
  /// only, KernelLaunch.cpp checks). A raise is reported as KernelError.
  virtual void execute_kernel(const PreparedKernel &launch, StreamImpl *stream) = 0;

  /// Runs a method kernel synchronously (runtime/Methods.cpp; CpuMethods.cpp,
  /// cuda/CudaMethods.cpp).
  virtual void run_method(const MethodLaunch &launch) = 0;

  /// `vectorize` is about to type a source of this key: a runner may start
  /// loading the kernels it ran with before (the CUDA runner reads the disk
  /// cache's source index), so that they are ready for the first call.
  virtual void prefetch(const SourceKey &source) { (void)source; }
};

}  // namespace ufjit::runtime
