// Chunked, overlapped host <-> device staging through pinned buffers.
#include "runtime/cuda/HostStaging.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "ufjit/errors.h"

namespace ufjit::cuda {
namespace {

/// Bytes of the widest operand per chunk: large enough to amortise a copy
/// and a launch, small enough that three slots of five operands stay modest.
constexpr std::size_t kChunkBytes = std::size_t{4} << 20;
/// Below this many bytes a copy runs on the calling thread alone.
constexpr std::size_t kParallelCopyBytes = std::size_t{1} << 20;
constexpr std::size_t kCopyPiece = std::size_t{512} << 10;
/// A call whose host operands hold at most this many bytes in all is copied
/// straight from and to the caller's memory (run_direct): the driver copies
/// pageable memory this small about as fast as pinned, and the call then
/// needs no pinned buffer (cuMemHostAlloc on a first call), no staging
/// memcpy and no slot streams or events.
constexpr std::size_t kDirectBytes = std::size_t{128} << 10;
constexpr std::size_t kAlign = 256;

std::size_t align_up(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

int copy_threads() {
  unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(hw / 2, 1, 8));
}

/// Whether the copy engines can reach `p` directly: page-locked host memory
/// (ufjit's pinned results, or memory the user pinned). The plural
/// cuPointerGetAttributes answers memory type 0 for pageable memory instead
/// of failing (a failed call would show in compute-sanitizer's report).
bool page_locked(const CudaDriver &drv, const void *p) {
  unsigned int type = 0;
  CUpointer_attribute attribute = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
  void *values[] = {&type};
  const CUresult result = drv.cuPointerGetAttributes(1, &attribute, values,
                                                     static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)));
  return result == CUDA_SUCCESS && type == CU_MEMORYTYPE_HOST;
}

/// Device scratch memory for one staged transfer, freed (stream-ordered, on
/// the legacy stream, so after the slots' work) on every path.
struct DeviceScratch {
  const CudaContext &context;
  CUdeviceptr ptr = 0;
  DeviceScratch(const CudaContext &c, std::size_t bytes) : context(c) { ptr = c.allocate(bytes, nullptr); }
  ~DeviceScratch() { context.free(ptr); }
  DeviceScratch(const DeviceScratch &) = delete;
  DeviceScratch &operator=(const DeviceScratch &) = delete;
};

/// One array operand of a staged call.
struct StagedOperand {
  int input = -1;  // input index, or -1 for the output
  bool host = false;
  bool pinned = false;   // a page-locked host operand: DMA to/from it, no staging copy
  char *data = nullptr;  // element 0 (host or device address)
  std::size_t itemsize = 0;
  std::size_t offset = 0;  // of its region within a slot (host operands)
};

/// A call of few host bytes (kDirectBytes): host operands copied straight
/// from and to the caller's memory through device scratch, on the legacy
/// stream, which orders after earlier work of every blocking stream (an
/// async call's kernel included), as the staged path's slots are made to.
void run_direct(const CudaContext &context, const std::vector<StagedOperand> &ops, const runtime::PreparedCall &call,
                const ChunkLaunch &launch_chunk) {
  const CudaDriver &drv = context.drv();
  const auto n = static_cast<std::size_t>(call.size);
  std::size_t scratch_bytes = 0;
  std::vector<std::size_t> offsets(ops.size(), 0);
  for (std::size_t j = 0; j < ops.size(); ++j) {
    if (ops[j].host) {
      offsets[j] = scratch_bytes;
      scratch_bytes += align_up(n * ops[j].itemsize);
    }
  }
  DeviceScratch scratch(context, scratch_bytes);
  std::vector<const void *> inputs(call.inputs.size(), nullptr);
  void *output = nullptr;
  for (std::size_t j = 0; j < ops.size(); ++j) {
    const StagedOperand &op = ops[j];
    void *address = op.data;
    if (op.host) {
      const CUdeviceptr device = scratch.ptr + offsets[j];
      address = reinterpret_cast<void *>(static_cast<uintptr_t>(device));
      if (op.input >= 0) {
        UFJIT_CU_CHECK(drv, cuMemcpyHtoDAsync_v2, device, op.data, n * op.itemsize, nullptr);
      }
    }
    if (op.input >= 0) {
      inputs[static_cast<std::size_t>(op.input)] = address;
    } else {
      output = address;
    }
  }
  launch_chunk(inputs, output, 0, call.size, nullptr);
  const StagedOperand &out = ops.back();
  if (out.host) {
    UFJIT_CU_CHECK(drv, cuMemcpyDtoHAsync_v2, out.data, scratch.ptr + offsets.back(), n * out.itemsize, nullptr);
  }
  UFJIT_CU_CHECK(drv, cuStreamSynchronize, nullptr);
}

}  // namespace

HostStaging::HostStaging(std::shared_ptr<const CudaContext> context)
    : context_(std::move(context)), copy_pool_(copy_threads()) {
  const CudaDriver &drv = context_->drv();
  context_->make_current();
  for (Slot &slot : slots_) {
    UFJIT_CU_CHECK(drv, cuStreamCreate, &slot.stream, CU_STREAM_DEFAULT);
    UFJIT_CU_CHECK(drv, cuEventCreate, &slot.done, CU_EVENT_DISABLE_TIMING);
  }
  UFJIT_CU_CHECK(drv, cuEventCreate, &legacy_mark_, CU_EVENT_DISABLE_TIMING);
}

HostStaging::~HostStaging() {
  const CudaDriver &drv = context_->drv();
  context_->make_current_noexcept();
  drain_noexcept();
  for (Slot &slot : slots_) {
    if (slot.done != nullptr) {
      drv.cuEventDestroy_v2(slot.done);
    }
    if (slot.stream != nullptr) {
      drv.cuStreamDestroy_v2(slot.stream);
    }
  }
  if (legacy_mark_ != nullptr) {
    drv.cuEventDestroy_v2(legacy_mark_);
  }
  if (pinned_ != nullptr) {
    drv.cuMemFreeHost(pinned_);
  }
}

void HostStaging::order_after_legacy_stream() {
  const CudaDriver &drv = context_->drv();
  UFJIT_CU_CHECK(drv, cuEventRecord, legacy_mark_, nullptr);
  for (Slot &slot : slots_) {
    UFJIT_CU_CHECK(drv, cuStreamWaitEvent, slot.stream, legacy_mark_, 0);
  }
}

char *HostStaging::ensure_pinned(std::size_t slot_bytes) {
  std::size_t needed = slot_bytes * kSlots;
  if (needed <= pinned_bytes_) {
    return pinned_;
  }
  const CudaDriver &drv = context_->drv();
  if (pinned_ != nullptr) {
    drv.cuMemFreeHost(pinned_);  // no transfer is in flight: every run drains
    pinned_ = nullptr;
    pinned_bytes_ = 0;
  }
  std::size_t bytes = std::size_t{1} << 20;
  while (bytes < needed) {
    bytes *= 2;
  }
  void *p = nullptr;
  UFJIT_CU_CHECK(drv, cuMemHostAlloc, &p, bytes, 0);
  pinned_ = static_cast<char *>(p);
  pinned_bytes_ = bytes;
  return pinned_;
}

void HostStaging::parallel_copy(const std::vector<CopyTask> &tasks) {
  std::size_t total = 0;
  for (const CopyTask &t : tasks) {
    total += t.bytes;
  }
  if (total < kParallelCopyBytes || copy_pool_.concurrency() == 1) {
    for (const CopyTask &t : tasks) {
      std::memcpy(t.dst, t.src, t.bytes);
    }
    return;
  }
  std::vector<CopyTask> pieces;
  pieces.reserve(total / kCopyPiece + tasks.size());
  for (const CopyTask &t : tasks) {
    for (std::size_t off = 0; off < t.bytes; off += kCopyPiece) {
      std::size_t len = std::min(kCopyPiece, t.bytes - off);
      pieces.push_back({static_cast<char *>(t.dst) + off, static_cast<const char *>(t.src) + off, len});
    }
  }
  copy_pool_.parallel_for(static_cast<int64_t>(pieces.size()), [&](int64_t i) {
    const CopyTask &p = pieces[static_cast<std::size_t>(i)];
    std::memcpy(p.dst, p.src, p.bytes);
  });
}

void HostStaging::wait(Slot &slot) {
  if (slot.in_flight < 0) {
    return;
  }
  slot.in_flight = -1;
  UFJIT_CU_CHECK(context_->drv(), cuEventSynchronize, slot.done);
}

void HostStaging::drain_noexcept() noexcept {
  for (Slot &slot : slots_) {
    if (slot.stream != nullptr) {
      context_->drv().cuStreamSynchronize(slot.stream);
    }
    slot.in_flight = -1;
  }
}

void HostStaging::run_contiguous(const runtime::PreparedCall &call, const ChunkLaunch &launch_chunk) {
  std::lock_guard<std::mutex> lock(mutex_);
  const CudaDriver &drv = context_->drv();
  context_->make_current();
  const int64_t n = call.size;

  // Operands, and the layout of one slot: one region per host operand.
  std::vector<StagedOperand> ops;
  std::size_t widest = 1;
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    const runtime::PreparedOperand &in = call.inputs[i];
    if (in.is_scalar) {
      continue;
    }
    StagedOperand op;
    op.input = static_cast<int>(i);
    op.host = in.array.residence == Residence::Host;
    op.data = static_cast<char *>(in.array.data);
    op.pinned = op.host && page_locked(drv, op.data);
    op.itemsize = dtype_size(in.dtype);
    ops.push_back(op);
    widest = std::max(widest, op.itemsize);
  }
  StagedOperand out;
  out.host = call.output.residence == Residence::Host;
  out.data = static_cast<char *>(call.output.data);
  out.pinned = out.host && page_locked(drv, out.data);
  out.itemsize = dtype_size(call.output.dtype);
  ops.push_back(out);
  widest = std::max(widest, out.itemsize);

  std::size_t host_bytes = 0;
  for (const StagedOperand &op : ops) {
    host_bytes += op.host ? static_cast<std::size_t>(n) * op.itemsize : 0;
  }
  if (host_bytes <= kDirectBytes) {
    run_direct(*context_, ops, call, launch_chunk);
    return;
  }

  int64_t chunk = static_cast<int64_t>(kChunkBytes / widest);
  chunk = std::min(chunk, n);
  std::size_t slot_bytes = 0;
  for (StagedOperand &op : ops) {
    if (op.host) {
      op.offset = slot_bytes;
      slot_bytes += align_up(static_cast<std::size_t>(chunk) * op.itemsize);
    }
  }
  char *pinned = ensure_pinned(slot_bytes);
  DeviceScratch scratch(*context_, slot_bytes * kSlots);
  order_after_legacy_stream();
  const int64_t chunks = (n + chunk - 1) / chunk;

  std::vector<CopyTask> tasks;
  std::vector<const void *> inputs(call.inputs.size(), nullptr);
  auto copy_out_tasks = [&](int s, int64_t k) {
    const StagedOperand &o = ops.back();
    if (!o.host || o.pinned) {
      return;
    }
    const int64_t begin = k * chunk;
    const int64_t count = std::min(chunk, n - begin);
    char *slot_pinned = pinned + static_cast<std::size_t>(s) * slot_bytes;
    tasks.push_back({o.data + static_cast<std::size_t>(begin) * o.itemsize, slot_pinned + o.offset,
                     static_cast<std::size_t>(count) * o.itemsize});
  };
  try {
    for (int64_t k = 0; k < chunks; ++k) {
      const int s = static_cast<int>(k % kSlots);
      Slot &slot = slots_[static_cast<std::size_t>(s)];
      tasks.clear();
      if (slot.in_flight >= 0) {
        const int64_t previous = slot.in_flight;
        wait(slot);
        copy_out_tasks(s, previous);
      }
      const int64_t begin = k * chunk;
      const int64_t count = std::min(chunk, n - begin);
      char *slot_pinned = pinned + static_cast<std::size_t>(s) * slot_bytes;
      const CUdeviceptr slot_device = scratch.ptr + static_cast<CUdeviceptr>(s) * slot_bytes;
      for (std::size_t j = 0; j + 1 < ops.size(); ++j) {
        const StagedOperand &op = ops[j];
        if (op.host && !op.pinned) {
          tasks.push_back({slot_pinned + op.offset, op.data + static_cast<std::size_t>(begin) * op.itemsize,
                           static_cast<std::size_t>(count) * op.itemsize});
        }
      }
      parallel_copy(tasks);
      void *output = nullptr;
      for (const StagedOperand &op : ops) {
        const std::size_t bytes = static_cast<std::size_t>(count) * op.itemsize;
        void *address = nullptr;
        if (op.host) {
          address = reinterpret_cast<void *>(static_cast<uintptr_t>(slot_device + op.offset));
          if (op.input >= 0) {
            const char *from = op.pinned ? op.data + static_cast<std::size_t>(begin) * op.itemsize
                                         : slot_pinned + op.offset;
            UFJIT_CU_CHECK(drv, cuMemcpyHtoDAsync_v2, slot_device + op.offset, from, bytes, slot.stream);
          }
        } else {
          address = op.data + static_cast<std::size_t>(begin) * op.itemsize;
        }
        if (op.input >= 0) {
          inputs[static_cast<std::size_t>(op.input)] = address;
        } else {
          output = address;
        }
      }
      launch_chunk(inputs, output, begin, count, slot.stream);
      const StagedOperand &o = ops.back();
      if (o.host) {
        char *to = o.pinned ? o.data + static_cast<std::size_t>(begin) * o.itemsize : slot_pinned + o.offset;
        UFJIT_CU_CHECK(drv, cuMemcpyDtoHAsync_v2, to, slot_device + o.offset,
                       static_cast<std::size_t>(count) * o.itemsize, slot.stream);
      }
      UFJIT_CU_CHECK(drv, cuEventRecord, slot.done, slot.stream);
      slot.in_flight = k;
    }
    // Drain the remaining chunks oldest first.
    for (int64_t k = std::max<int64_t>(0, chunks - kSlots); k < chunks; ++k) {
      const int s = static_cast<int>(k % kSlots);
      tasks.clear();
      wait(slots_[static_cast<std::size_t>(s)]);
      copy_out_tasks(s, k);
      parallel_copy(tasks);
    }
  } catch (...) {
    drain_noexcept();
    throw;
  }
}

void HostStaging::copy_to_device(CUdeviceptr dst, const void *src, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const CudaDriver &drv = context_->drv();
  context_->make_current();
  if (page_locked(drv, src)) {
    UFJIT_CU_CHECK(drv, cuMemcpyHtoDAsync_v2, dst, src, bytes, nullptr);
    UFJIT_CU_CHECK(drv, cuStreamSynchronize, nullptr);
    return;
  }
  const std::size_t chunk = std::min(kChunkBytes, bytes);
  char *pinned = ensure_pinned(chunk);
  order_after_legacy_stream();
  const auto *from = static_cast<const char *>(src);
  std::vector<CopyTask> tasks;
  try {
    int64_t k = 0;
    for (std::size_t off = 0; off < bytes; off += chunk, ++k) {
      const int s = static_cast<int>(k % kSlots);
      Slot &slot = slots_[static_cast<std::size_t>(s)];
      wait(slot);
      const std::size_t len = std::min(chunk, bytes - off);
      char *slot_pinned = pinned + static_cast<std::size_t>(s) * chunk;
      tasks.assign(1, CopyTask{slot_pinned, from + off, len});
      parallel_copy(tasks);
      UFJIT_CU_CHECK(drv, cuMemcpyHtoDAsync_v2, dst + off, slot_pinned, len, slot.stream);
      UFJIT_CU_CHECK(drv, cuEventRecord, slot.done, slot.stream);
      slot.in_flight = k;
    }
    for (Slot &slot : slots_) {
      wait(slot);
    }
  } catch (...) {
    drain_noexcept();
    throw;
  }
}

void HostStaging::copy_to_host(void *dst, CUdeviceptr src, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const CudaDriver &drv = context_->drv();
  context_->make_current();
  if (page_locked(drv, dst)) {
    UFJIT_CU_CHECK(drv, cuMemcpyDtoHAsync_v2, dst, src, bytes, nullptr);
    UFJIT_CU_CHECK(drv, cuStreamSynchronize, nullptr);
    return;
  }
  const std::size_t chunk = std::min(kChunkBytes, bytes);
  char *pinned = ensure_pinned(chunk);
  order_after_legacy_stream();
  auto *to = static_cast<char *>(dst);
  const int64_t chunks = static_cast<int64_t>((bytes + chunk - 1) / chunk);
  std::vector<CopyTask> tasks;
  auto finish = [&](int64_t k) {
    const int s = static_cast<int>(k % kSlots);
    wait(slots_[static_cast<std::size_t>(s)]);
    const std::size_t off = static_cast<std::size_t>(k) * chunk;
    tasks.assign(1, CopyTask{to + off, pinned + static_cast<std::size_t>(s) * chunk, std::min(chunk, bytes - off)});
    parallel_copy(tasks);
  };
  try {
    for (int64_t k = 0; k < chunks; ++k) {
      const int s = static_cast<int>(k % kSlots);
      Slot &slot = slots_[static_cast<std::size_t>(s)];
      if (slot.in_flight >= 0) {
        finish(slot.in_flight);
      }
      const std::size_t off = static_cast<std::size_t>(k) * chunk;
      const std::size_t len = std::min(chunk, bytes - off);
      UFJIT_CU_CHECK(drv, cuMemcpyDtoHAsync_v2, pinned + static_cast<std::size_t>(s) * chunk, src + off, len,
                     slot.stream);
      UFJIT_CU_CHECK(drv, cuEventRecord, slot.done, slot.stream);
      slot.in_flight = k;
    }
    for (int64_t k = std::max<int64_t>(0, chunks - kSlots); k < chunks; ++k) {
      finish(k);
    }
  } catch (...) {
    drain_noexcept();
    throw;
  }
}

}  // namespace ufjit::cuda
