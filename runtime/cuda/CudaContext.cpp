// Primary context, device memory, and the public Stream/Event types.
#include "runtime/cuda/CudaContext.h"


#include <cstdlib>
#include <limits>
#include <string>

#include "runtime/ViewChecks.h"
#include "support/Settings.h"
#include "ufjit/errors.h"

namespace ufjit::cuda {
namespace {

int attribute(const CudaDriver &drv, CUdevice dev, CUdevice_attribute attr) {
  int value = 0;
  UFJIT_CU_CHECK(drv, cuDeviceGetAttribute, &value, attr, dev);
  return value;
}

std::size_t array_bytes(DType dtype, const Dims &shape) {
  return static_cast<std::size_t>(runtime::checked_bytes(dtype, shape));
}

Dims f_strides(const Dims &shape, std::size_t itemsize) {
  Dims strides(shape.size());
  int64_t step = static_cast<int64_t>(itemsize);
  for (std::size_t d = 0; d < shape.size(); ++d) {
    strides[d] = step;
    step *= shape[d] > 0 ? shape[d] : 1;
  }
  return strides;
}

}  // namespace

DeviceProperties query_device(const CudaDriver &drv, int ordinal) {
  DeviceProperties props;
  props.ordinal = ordinal;
  CUdevice dev = 0;
  UFJIT_CU_CHECK(drv, cuDeviceGet, &dev, ordinal);
  char name[256] = {};
  UFJIT_CU_CHECK(drv, cuDeviceGetName, name, static_cast<int>(sizeof(name) - 1), dev);
  props.name = name;
  props.cc_major = attribute(drv, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  props.cc_minor = attribute(drv, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  props.sm_count = attribute(drv, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  props.max_threads_per_block = attribute(drv, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  UFJIT_CU_CHECK(drv, cuDeviceTotalMem_v2, &props.total_memory, dev);
  return props;
}

int resolve_device_ordinal(const CudaDriver &drv, int requested) {
  int ordinal = requested;
  if (std::optional<int64_t> env = support::read_count("UFJIT_DEVICE", 0, std::numeric_limits<int>::max())) {
    ordinal = static_cast<int>(*env);
  }
  int count = 0;
  UFJIT_CU_CHECK(drv, cuDeviceGetCount, &count);
  if (ordinal < 0 || ordinal >= count) {
    throw NoDeviceError("no CUDA device " + std::to_string(ordinal) + ": the driver reports " +
                        std::to_string(count));
  }
  return ordinal;
}

CudaContext::CudaContext(int ordinal, bool exact) : drv_(driver()) {
  const int resolved = exact ? ordinal : resolve_device_ordinal(drv_, ordinal);
  props_ = query_device(drv_, resolved);
  UFJIT_CU_CHECK(drv_, cuDeviceGet, &device_, resolved);
  UFJIT_CU_CHECK(drv_, cuDevicePrimaryCtxRetain, &context_, device_);
  try {
    make_current();
    // Keep freed pool memory for reuse: without a release threshold the pool
    // returns memory to the OS at every synchronisation, and each call would
    // allocate afresh.
    CUmemoryPool pool = nullptr;
    UFJIT_CU_CHECK(drv_, cuDeviceGetDefaultMemPool, &pool, device_);
    cuuint64_t threshold = std::numeric_limits<cuuint64_t>::max();
    UFJIT_CU_CHECK(drv_, cuMemPoolSetAttribute, pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
  } catch (...) {
    drv_.cuDevicePrimaryCtxRelease_v2(device_);
    throw;
  }
}

CudaContext::~CudaContext() {
  if (context_ != nullptr) {
    free_idle_blocks();
    drv_.cuDevicePrimaryCtxRelease_v2(device_);
  }
}

void CudaContext::make_current() const {
  CUcontext current = nullptr;
  if (drv_.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context_) {
    return;
  }
  UFJIT_CU_CHECK(drv_, cuCtxSetCurrent, context_);
}

void CudaContext::make_current_noexcept() const noexcept {
  CUcontext current = nullptr;
  if (drv_.cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != context_) {
    drv_.cuCtxSetCurrent(context_);
  }
}

CUdeviceptr CudaContext::allocate(std::size_t bytes, CUstream stream) const {
  CUdeviceptr ptr = 0;
  CUresult result = drv_.cuMemAllocAsync(&ptr, bytes, stream);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    // The pool keeps freed memory (see the release threshold above), and a
    // failed request can leave it grown: hand back what no allocation uses,
    // retry once, and after a second failure leave nothing reserved.
    trim_pool();
    result = drv_.cuMemAllocAsync(&ptr, bytes, stream);
    if (result == CUDA_ERROR_OUT_OF_MEMORY) trim_pool();
  }
  check_result(result, "cuMemAllocAsync");
  return ptr;
}

void CudaContext::trim_pool() const {
  free_idle_blocks();
  UFJIT_CU_CHECK(drv_, cuCtxSynchronize);  // frees still queued on streams return to the pool
  CUmemoryPool pool = nullptr;
  UFJIT_CU_CHECK(drv_, cuDeviceGetDefaultMemPool, &pool, device_);
  UFJIT_CU_CHECK(drv_, cuMemPoolTrimTo, pool, 0);
}

void CudaContext::free(CUdeviceptr ptr) const noexcept {
  if (ptr == 0) {
    return;
  }
  make_current_noexcept();
  drv_.cuMemFreeAsync(ptr, nullptr);
}

CUdeviceptr CudaContext::allocate_block(std::size_t bytes) const {
  const std::size_t block = DeviceBlockCache::block_bytes(bytes);
  if (const CUdeviceptr idle = blocks_.take(block)) {
    return idle;
  }
  return allocate(block, nullptr);
}

void CudaContext::recycle_block(CUdeviceptr ptr, std::size_t block) const noexcept {
  bool kept = false;
  try {
    kept = blocks_.keep(ptr, block);
  } catch (...) {  // no memory for the idle list: free the block instead
  }
  if (!kept) {
    free(ptr);
  }
}

void CudaContext::free_idle_blocks() const noexcept {
  std::vector<uint64_t> idle;
  try {
    idle = blocks_.drain();
  } catch (...) {
    return;
  }
  for (const uint64_t ptr : idle) {
    free(ptr);
  }
}

namespace {

void give_back(const CudaContext &context, CUdeviceptr ptr, std::size_t bytes, DeviceMemory memory) noexcept {
  if (memory == DeviceMemory::CachedBlock) {
    context.recycle_block(ptr, bytes);
  } else {
    context.free(ptr);
  }
}

}  // namespace

DeviceAllocation::~DeviceAllocation() {
  give_back(*context_, ptr_, bytes_, memory_);
}

namespace {

/// Allocates a device array through `allocate(bytes) -> {ptr, memory, block bytes}`.
template <typename Allocate>
Array make_device_array(const std::shared_ptr<const CudaContext> &context, DType dtype,
                        const Dims &shape, bool fortran_order, const Allocate &allocate) {
  std::size_t itemsize = dtype_size(dtype);
  std::size_t bytes = array_bytes(dtype, shape);
  ArrayView view;
  view.dtype = dtype;
  view.shape = shape;
  view.strides = fortran_order ? f_strides(shape, itemsize) : ArrayView::c_strides(shape, itemsize);
  view.residence = Residence::Device;
  view.device = context->properties().ordinal;
  if (bytes == 0) {
    return Array(std::move(view), std::make_shared<Array::Holder>());
  }
  context->make_current();
  const auto [ptr, memory, held_bytes] = allocate(bytes);
  // From here the allocation is owned; make_shared failing gives it back.
  std::shared_ptr<DeviceAllocation> holder;
  try {
    holder = std::make_shared<DeviceAllocation>(context, ptr, held_bytes, memory);
  } catch (...) {
    give_back(*context, ptr, held_bytes, memory);
    throw;
  }
  view.data = reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
  return Array(std::move(view), std::move(holder));
}

struct Allocated {
  CUdeviceptr ptr;
  DeviceMemory memory;
  std::size_t bytes;
};

}  // namespace

Array allocate_device_array(const std::shared_ptr<const CudaContext> &context, DType dtype,
                            const Dims &shape, bool fortran_order, CUstream stream) {
  return make_device_array(context, dtype, shape, fortran_order, [&](std::size_t bytes) {
    return Allocated{context->allocate(bytes, stream), DeviceMemory::StreamOrdered, bytes};
  });
}

Array allocate_sync_result(const std::shared_ptr<const CudaContext> &context, DType dtype,
                           const Dims &shape) {
  return make_device_array(context, dtype, shape, false, [&](std::size_t bytes) {
    if (!DeviceBlockCache::cacheable(bytes)) {
      return Allocated{context->allocate(bytes, nullptr), DeviceMemory::StreamOrdered, bytes};
    }
    return Allocated{context->allocate_block(bytes), DeviceMemory::CachedBlock, DeviceBlockCache::block_bytes(bytes)};
  });
}

Stream make_stream(const std::shared_ptr<const CudaContext> &context) {
  context->make_current();
  auto impl = std::make_unique<StreamImpl>();
  impl->context = context;
  UFJIT_CU_CHECK(context->drv(), cuStreamCreate, &impl->stream, CU_STREAM_DEFAULT);
  return Stream(std::move(impl));
}

Stream borrow_stream(const std::shared_ptr<const CudaContext> &context, void *cu_stream) {
  auto impl = std::make_unique<StreamImpl>();
  impl->context = context;
  impl->stream = static_cast<CUstream>(cu_stream);
  impl->owned = false;
  return Stream(std::move(impl));
}

CUstream stream_handle(const StreamImpl *impl) {
  return impl == nullptr ? nullptr : impl->stream;
}

}  // namespace ufjit::cuda

// ------------------------------------------------------------ public types

namespace ufjit {

StreamImpl::~StreamImpl() {
  if (owned && stream != nullptr && context != nullptr) {
    context->drv().cuStreamDestroy_v2(stream);
  }
}

EventImpl::~EventImpl() {
  if (event != nullptr && context != nullptr) {
    context->drv().cuEventDestroy_v2(event);
  }
}

int device_of_pointer(const void *ptr) {
  if (ptr == nullptr || !cuda::driver_available()) {
    return -1;
  }
  int ordinal = -1;
  const CUresult result = cuda::driver().cuPointerGetAttribute(
      &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr)));
  return result == CUDA_SUCCESS ? ordinal : -1;
}

Stream::Stream() = default;
Stream::~Stream() = default;
Stream::Stream(Stream &&) noexcept = default;
Stream &Stream::operator=(Stream &&) noexcept = default;
Stream::Stream(std::unique_ptr<StreamImpl> impl) : impl_(std::move(impl)) {}

void *Stream::handle() const { return impl_ == nullptr ? nullptr : static_cast<void *>(impl_->stream); }

void Stream::synchronize() {
  if (impl_ == nullptr || impl_->context == nullptr) {
    return;
  }
  impl_->context->make_current();
  UFJIT_CU_CHECK(impl_->context->drv(), cuStreamSynchronize, impl_->stream);
  // Raises of the async calls since the last synchronize: the first that
  // fired is thrown (the others are dropped with it).
  std::vector<std::function<void()>> checks = std::move(impl_->pending_raises);
  impl_->pending_raises.clear();
  for (const std::function<void()> &check : checks) {
    check();
  }
}

Event::Event() : impl_(std::make_unique<EventImpl>()) {}
Event::~Event() = default;
Event::Event(Event &&) noexcept = default;
Event &Event::operator=(Event &&) noexcept = default;
Event::Event(std::unique_ptr<EventImpl> impl) : impl_(std::move(impl)) {}

void Event::record(Stream &stream) {
  StreamImpl *s = stream.impl();
  if (s == nullptr || s->context == nullptr) {
    throw InputError("Event::record: the stream is empty (make streams with Runtime::stream())");
  }
  if (impl_ == nullptr) {
    impl_ = std::make_unique<EventImpl>();
  }
  const cuda::CudaDriver &drv = s->context->drv();
  s->context->make_current();
  if (impl_->event != nullptr && impl_->context != s->context) {
    drv.cuEventDestroy_v2(impl_->event);
    impl_->event = nullptr;
  }
  if (impl_->event == nullptr) {
    UFJIT_CU_CHECK(drv, cuEventCreate, &impl_->event, CU_EVENT_DEFAULT);
    impl_->context = s->context;
  }
  UFJIT_CU_CHECK(drv, cuEventRecord, impl_->event, s->stream);
}

void Event::synchronize() {
  if (impl_ == nullptr || impl_->event == nullptr) {
    return;
  }
  impl_->context->make_current();
  UFJIT_CU_CHECK(impl_->context->drv(), cuEventSynchronize, impl_->event);
}

float Event::elapsed_ms(const Event &start, const Event &end) {
  if (start.impl_ == nullptr || end.impl_ == nullptr || start.impl_->event == nullptr ||
      end.impl_->event == nullptr) {
    throw InputError("Event::elapsed_ms: both events must have been recorded");
  }
  float ms = 0.0f;
  start.impl_->context->make_current();
  UFJIT_CU_CHECK(start.impl_->context->drv(), cuEventElapsedTime_v2, &ms, start.impl_->event,
                 end.impl_->event);
  return ms;
}

}  // namespace ufjit
