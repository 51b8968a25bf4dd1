// The state behind the public Runtime and Ufunc handles.
//
// RuntimeCore holds the kernel cache and the backends; the Runtime and every
// Ufunc it made share it (shared_ptr), so a Ufunc stays usable while it
// lives. Backends are created on first use (the CUDA one may throw
// NoDeviceError), under a mutex.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/Backend.h"
#include "runtime/CallPlan.h"
#include "runtime/KernelCache.h"
#include "runtime/PreparedCallPool.h"
#include "ufjit/runtime.h"

namespace ufjit {

class SourceFile;

namespace runtime {

class RuntimeCore {
 public:
  explicit RuntimeCore(const RuntimeOptions &options);
  ~RuntimeCore();
  RuntimeCore(const RuntimeCore &) = delete;
  RuntimeCore &operator=(const RuntimeCore &) = delete;

  /// The target of calls that name none and whose ufunc has no usable default.
  TargetKind default_target() const { return default_target_; }
  /// Whether the CUDA backend exists or can be created (tries once).
  bool cuda_usable();
  /// The backend of `target`, created on first use. Throws NoDeviceError for
  /// CUDA without a usable device.
  Backend &backend(TargetKind target);
  /// The CUDA backend of device `ordinal` of the device set, made with the
  /// default one (RuntimeOptions::devices), or null when the set lacks it.
  /// A scan of a few entries: the call path asks only for an operand not on
  /// the default device.
  Backend *cuda_backend_of(int ordinal);
  /// Every device's CUDA backend, the default first (made on first use).
  std::vector<Backend *> cuda_backends();
  /// The number of devices of the set, once the CUDA backend is made (0 before).
  std::size_t cuda_device_count() const {
    return made_backend(TargetKind::Cuda) != nullptr ? cuda_.size() : 0;
  }
  /// The backend of `target` if it was made already, else null (never
  /// makes one: a CUDA context takes 0.2 s).
  Backend *made_backend(TargetKind target) const {
    return (target == TargetKind::Cpu ? cpu_ready_ : cuda_ready_).load(std::memory_order_acquire);
  }

  /// The target a ufunc's call runs on: an explicit RuntimeOptions::target or
  /// UFJIT_TARGET wins; else the decorator's (`cuda` falls back to the CPU
  /// when no GPU is usable, as the CPU is the default there); else the default.
  TargetKind target_for(const std::string &decorator_target);

  /// The generated cast ufunc `to(from)` used to convert device operands.
  const CompiledSignature &cast_signature(DType from, DType to);

  KernelCache &cache() { return cache_; }
  /// Spare PreparedCalls for run_call (runtime/PreparedCallPool.h).
  PreparedCallPool &call_pool() { return call_pool_; }

 private:
  RuntimeOptions options_;
  bool target_forced_ = false;
  TargetKind default_target_ = TargetKind::Cpu;
  // Declared before the backends: destroyed after them.
  KernelCache cache_;
  PreparedCallPool call_pool_;
  std::mutex mutex_;
  std::unique_ptr<Backend> cpu_;
  /// RuntimeOptions::devices or UFJIT_DEVICES; empty: one device.
  std::vector<int> devices_;
  /// One backend per device of the set, the default first; never changes once made.
  std::vector<std::unique_ptr<Backend>> cuda_;
  // cpu_ / cuda_[0] once made (they are never replaced): the lock-free path of backend().
  std::atomic<Backend *> cpu_ready_{nullptr};
  std::atomic<Backend *> cuda_ready_{nullptr};
  std::string cuda_error_;  // why CUDA is unusable, once tried
  bool cuda_tried_ = false;
  std::map<std::pair<DType, DType>, std::unique_ptr<CompiledSignature>> casts_;
};

/// Fills the derived fields of a CompiledSignature from its module:
/// params, ret, base_name, ir_hash and ir_hash_high.
void finish_signature(CompiledSignature &sig);

}  // namespace runtime

struct UfuncState {
  std::string name;
  std::string decorator_target;  // "", "cuda", "cpu", "parallel"
  bool generalized = false;      // @guvectorize
  /// @guvectorize only: the layout every signature shares (also a dynamic one's).
  std::shared_ptr<const runtime::GufuncLayout> layout;
  Identity identity = Identity::None;  // `identity=` of the decorator
  /// A @vectorize without signatures or a layout-only / is_dynamic=True
  /// @guvectorize (Numba's dynamic ufunc and gufunc, runtime/DynamicUfunc.h):
  /// `signatures` stays empty (any given ones start `dynamic_signatures`);
  /// each call takes a snapshot of `dynamic_signatures`, which grows under
  /// `dynamic_mutex`.
  bool dynamic = false;
  std::shared_ptr<const SourceFile> source;
  ir::LinkOptions link;  // a dynamic ufunc's VectorizeOptions link files, for typing per call
  std::mutex dynamic_mutex;
  std::shared_ptr<const std::vector<runtime::CompiledSignature>> dynamic_signatures;
  std::vector<runtime::CompiledSignature> signatures;
  std::shared_ptr<runtime::RuntimeCore> core;
  /// A CUDA C++ elementwise kernel (Runtime::elementwise,
  /// interop/cudacpp/Elementwise.h): binds a call's types on `target`
  /// (throws for the CPU), rewrites its raw operands in place (arrays it
  /// copies stay alive in `keep`; `async`: no copies) and returns the one
  /// signature for them. Null for ufuncs from source.
  std::function<std::shared_ptr<const std::vector<runtime::CompiledSignature>>(
      TargetKind target, std::vector<Operand> &operands, std::vector<Array> &keep, bool async)>
      bind;
  /// The plan of the last elementwise call, reused by the next call of the
  /// same structure (CallPlan.h); ufuncs with fixed signatures only.
  runtime::LastCallPlan last_call;
  runtime::LastCallPlan *plan() { return dynamic || bind || generalized ? nullptr : &last_call; }
};

struct RuntimeImpl {
  std::shared_ptr<runtime::RuntimeCore> core;
};

}  // namespace ufjit
