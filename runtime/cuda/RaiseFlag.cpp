#include "runtime/cuda/RaiseFlag.h"

#include <cstdint>

#include "runtime/KernelErrors.h"

namespace ufjit::cuda {

namespace {

CUdeviceptr device_ptr(const void *p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

uint32_t read_flag(const CudaContext &context, const Array &flag, CUstream stream) {
  uint32_t site = 0;
  UFJIT_CU_CHECK(context.drv(), cuMemcpyDtoHAsync_v2, &site, device_ptr(flag.data()), sizeof site, stream);
  UFJIT_CU_CHECK(context.drv(), cuStreamSynchronize, stream);
  return site;
}

}  // namespace

RaiseFlag::RaiseFlag(const std::shared_ptr<const CudaContext> &context, const runtime::CompiledSignature &sig,
                     CUstream stream)
    : context_(&context), sig_(&sig) {
  if (!runtime::can_raise(sig)) {
    return;
  }
  flag_ = allocate_device_array(context, DType::UInt32, {1}, false, stream);
  UFJIT_CU_CHECK(context->drv(), cuMemsetD8Async, device_ptr(flag_.data()), 0, sizeof(uint32_t), stream);
}

void RaiseFlag::check_now(CUstream stream) const {
  if (flag_.data() == nullptr) {
    return;
  }
  runtime::check_raised(*sig_, read_flag(**context_, flag_, stream));
}

void RaiseFlag::defer(StreamImpl *stream) {
  if (flag_.data() == nullptr) {
    return;
  }
  // The signature may not outlive the stream's work: keep a copy (only
  // kernels that can raise pay for it).
  auto sig = std::make_shared<runtime::CompiledSignature>(*sig_);
  auto flag = std::make_shared<Array>(std::move(flag_));
  stream->pending_raises.push_back([context = *context_, sig, flag, cu = stream->stream]() {
    runtime::check_raised(*sig, read_flag(*context, *flag, cu));
  });
}

}  // namespace ufjit::cuda
