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

/// The array operands of `call`, inputs in order and the output last.
std::vector<StagedOperand> staged_operands(const CudaDriver &drv, const runtime::PreparedCall &call) {
  std::vector<StagedOperand> ops;
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
  }
  StagedOperand out;
  out.host = call.output.residence == Residence::Host;
  out.data = static_cast<char *>(call.output.data);
  out.pinned = out.host && page_locked(drv, out.data);
  out.itemsize = dtype_size(call.output.dtype);
  ops.push_back(out);
  return ops;
}

/// Bytes of `n` elements of every host operand.
std::size_t host_bytes(const std::vector<StagedOperand> &ops, int64_t n) {
  std::size_t bytes = 0;
  for (const StagedOperand &op : ops) {
    bytes += op.host ? static_cast<std::size_t>(n) * op.itemsize : 0;
  }
  return bytes;
}

/// How a staged call is cut: chunks of `chunk` elements (kChunkBytes of the
/// widest operand); chunk k uses slot k % kSlots of the pinned buffer and of
/// the device scratch, `slot_bytes` each, one region per host operand.
struct SlotLayout {
  int64_t n = 0;
  int64_t chunk = 0;
  std::size_t slot_bytes = 0;
  int64_t chunks() const { return (n + chunk - 1) / chunk; }
  int64_t begin(int64_t k) const { return k * chunk; }
  int64_t count(int64_t k) const { return std::min(chunk, n - k * chunk); }
};

/// The layout for `n` elements; sets each host operand's region offset.
SlotLayout lay_out_slots(std::vector<StagedOperand> &ops, int64_t n) {
  std::size_t widest = 1;
  for (const StagedOperand &op : ops) {
    widest = std::max(widest, op.itemsize);
  }
  SlotLayout layout;
  layout.n = n;
  layout.chunk = std::min(static_cast<int64_t>(kChunkBytes / widest), n);
  for (StagedOperand &op : ops) {
    if (op.host) {
      op.offset = layout.slot_bytes;
      layout.slot_bytes += align_up(static_cast<std::size_t>(layout.chunk) * op.itemsize);
    }
  }
  return layout;
}

/// Enqueues elements [begin, begin + count) on `stream`, its host operands in
/// the slot at `slot_pinned` / `slot_device`: the inputs to the device (from
/// the staging copy, or straight from pinned memory), the kernel, and the
/// output back (into the slot, or straight into a pinned output).
void enqueue_chunk(const CudaDriver &drv, const std::vector<StagedOperand> &ops, int64_t begin, int64_t count,
                   char *slot_pinned, CUdeviceptr slot_device, CUstream stream, std::vector<const void *> &inputs,
                   const ChunkLaunch &launch_chunk) {
  void *output = nullptr;
  for (const StagedOperand &op : ops) {
    const std::size_t bytes = static_cast<std::size_t>(count) * op.itemsize;
    char *element = op.data + static_cast<std::size_t>(begin) * op.itemsize;
    void *address = element;
    if (op.host) {
      address = reinterpret_cast<void *>(static_cast<uintptr_t>(slot_device + op.offset));
      if (op.input >= 0) {
        const char *from = op.pinned ? element : slot_pinned + op.offset;
        UFJIT_CU_CHECK(drv, cuMemcpyHtoDAsync_v2, slot_device + op.offset, from, bytes, stream);
      }
    }
    if (op.input >= 0) {
      inputs[static_cast<std::size_t>(op.input)] = address;
    } else {
      output = address;
    }
  }
  launch_chunk(inputs, output, begin, count, stream);
  const StagedOperand &o = ops.back();
  if (o.host) {
    char *to = o.pinned ? o.data + static_cast<std::size_t>(begin) * o.itemsize : slot_pinned + o.offset;
    UFJIT_CU_CHECK(drv, cuMemcpyDtoHAsync_v2, to, slot_device + o.offset, static_cast<std::size_t>(count) * o.itemsize,
                   stream);
  }
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
  std::vector<StagedOperand> ops = staged_operands(drv, call);
  if (host_bytes(ops, call.size) <= kDirectBytes) {
    run_direct(*context_, ops, call, launch_chunk);
    return;
  }
  const SlotLayout layout = lay_out_slots(ops, call.size);
  char *pinned = ensure_pinned(layout.slot_bytes);
  DeviceScratch scratch(*context_, layout.slot_bytes * kSlots);
  order_after_legacy_stream();
  const int64_t chunks = layout.chunks();
  auto slot_pinned = [&](int s) { return pinned + static_cast<std::size_t>(s) * layout.slot_bytes; };
  std::vector<CopyTask> tasks;
  // Staging copies between the caller's pageable memory and slot s for chunk
  // k: its host inputs in, or its output out.
  auto add_copies = [&](int s, int64_t k, bool inputs) {
    const auto begin = static_cast<std::size_t>(layout.begin(k));
    const auto count = static_cast<std::size_t>(layout.count(k));
    for (const StagedOperand &op : ops) {
      if (op.host && !op.pinned && (op.input >= 0) == inputs) {
        char *user = op.data + begin * op.itemsize;
        char *staged = slot_pinned(s) + op.offset;
        tasks.push_back(inputs ? CopyTask{staged, user, count * op.itemsize}
                               : CopyTask{user, staged, count * op.itemsize});
      }
    }
  };
  std::vector<const void *> inputs(call.inputs.size(), nullptr);
  try {
    for (int64_t k = 0; k < chunks; ++k) {
      const int s = static_cast<int>(k % kSlots);
      Slot &slot = slots_[static_cast<std::size_t>(s)];
      tasks.clear();
      if (slot.in_flight >= 0) {
        const int64_t previous = slot.in_flight;
        wait(slot);
        add_copies(s, previous, false);
      }
      add_copies(s, k, true);
      parallel_copy(tasks);
      const CUdeviceptr slot_device = scratch.ptr + static_cast<CUdeviceptr>(s) * layout.slot_bytes;
      enqueue_chunk(drv, ops, layout.begin(k), layout.count(k), slot_pinned(s), slot_device, slot.stream, inputs,
                    launch_chunk);
      UFJIT_CU_CHECK(drv, cuEventRecord, slot.done, slot.stream);
      slot.in_flight = k;
    }
    // Drain the remaining chunks oldest first.
    for (int64_t k = std::max<int64_t>(0, chunks - kSlots); k < chunks; ++k) {
      const int s = static_cast<int>(k % kSlots);
      tasks.clear();
      wait(slots_[static_cast<std::size_t>(s)]);
      add_copies(s, k, false);
      parallel_copy(tasks);
    }
  } catch (...) {
    drain_noexcept();
    throw;
  }
}

void HostStaging::staged_copy(const void *host, std::size_t bytes, const DirectCopy &direct,
                              const ChunkedCopy &chunked) {
  if (bytes == 0) {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const CudaDriver &drv = context_->drv();
  context_->make_current();
  if (page_locked(drv, host)) {
    direct(drv);
    UFJIT_CU_CHECK(drv, cuStreamSynchronize, nullptr);
    return;
  }
  const std::size_t chunk = std::min(kChunkBytes, bytes);
  char *pinned = ensure_pinned(chunk);
  order_after_legacy_stream();
  try {
    chunked(drv, pinned, chunk);
  } catch (...) {
    drain_noexcept();
    throw;
  }
}

void HostStaging::copy_to_device(CUdeviceptr dst, const void *src, std::size_t bytes) {
  auto direct = [&](const CudaDriver &drv) {
    UFJIT_CU_CHECK(drv, cuMemcpyHtoDAsync_v2, dst, src, bytes, nullptr);
  };
  auto chunked = [&](const CudaDriver &drv, char *pinned, std::size_t chunk) {
    const auto *from = static_cast<const char *>(src);
    std::vector<CopyTask> tasks;
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
  };
  staged_copy(src, bytes, direct, chunked);
}

void HostStaging::copy_to_host(void *dst, CUdeviceptr src, std::size_t bytes) {
  auto direct = [&](const CudaDriver &drv) {
    UFJIT_CU_CHECK(drv, cuMemcpyDtoHAsync_v2, dst, src, bytes, nullptr);
  };
  auto chunked = [&](const CudaDriver &drv, char *pinned, std::size_t chunk) {
    auto *to = static_cast<char *>(dst);
    const int64_t chunks = static_cast<int64_t>((bytes + chunk - 1) / chunk);
    std::vector<CopyTask> tasks;
    auto finish = [&](int64_t k) {
      const int s = static_cast<int>(k % kSlots);
      wait(slots_[static_cast<std::size_t>(s)]);
      const std::size_t off = static_cast<std::size_t>(k) * chunk;
      tasks.assign(
          1, CopyTask{to + off, pinned + static_cast<std::size_t>(s) * chunk, std::min(chunk, bytes - off)});
      parallel_copy(tasks);
    };
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
  };
  staged_copy(dst, bytes, direct, chunked);
}

}  // namespace ufjit::cuda
