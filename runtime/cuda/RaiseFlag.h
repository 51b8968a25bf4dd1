// The error flag of one CUDA call of a kernel that can raise (LANGUAGE.md
// section 5, "Errors in kernels"; codegen/kernel/KernelABI.h's ErrorFlag parameter).
//
// One uint32 of device memory per call, allocated and zeroed on the call's
// stream only when the signature's module can raise (calls of other
// kernels make no RaiseFlag allocation and no copy). A synchronous call reads
// it back after its stream synchronized and throws the KernelError there; an
// async call hands it to its stream, and the stream's next
// Stream::synchronize reads it and throws.
#pragma once

#include <cuda.h>

#include <memory>

#include "runtime/Backend.h"
#include "runtime/cuda/CudaContext.h"
#include "ufjit/array.h"

namespace ufjit::cuda {

class RaiseFlag {
 public:
  /// An empty flag (device() null) when `sig` cannot raise. `context` must
  /// outlive the flag (the backend's); it is referred to, not copied, so
  /// that calls of kernels that cannot raise touch no reference count.
  RaiseFlag(const std::shared_ptr<const CudaContext> &context, const runtime::CompiledSignature &sig,
            CUstream stream);
  /// What the kernel's ErrorFlag parameter takes (null: none).
  void *device() const { return flag_.data(); }
  /// Synchronous calls, after the work on `stream` finished: throws the
  /// KernelError of the raise that fired, if any.
  void check_now(CUstream stream) const;
  /// Async calls: the check runs at `stream`'s next synchronize.
  void defer(StreamImpl *stream);

 private:
  const std::shared_ptr<const CudaContext> *context_;
  const runtime::CompiledSignature *sig_;
  Array flag_;
};

}  // namespace ufjit::cuda
