// The kernel-variant rule and the parameter packing of codegen/KernelABI.h,
// shared by every backend, plus the default (no device) data-movement hooks.
#include <cstring>
#include <limits>

#include "runtime/Backend.h"

namespace ufjit::runtime {

namespace {

bool is_contiguous_1d(const ArrayView &v, int64_t n) {
  const auto itemsize = static_cast<int64_t>(dtype_size(v.dtype));
  if (reinterpret_cast<uintptr_t>(v.data) % static_cast<uintptr_t>(itemsize) != 0) {
    return false;
  }
  if (v.shape.empty() || n <= 1) {
    return true;
  }
  return v.shape.size() == 1 && v.strides[0] == itemsize;
}

/// The largest |byte offset| the kernel computes for a view, or -1 if it
/// overflows int64 arithmetic limits we care about.
int64_t max_byte_extent(const ArrayView &v) {
  int64_t extent = 0;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    const int64_t s = v.strides[d] < 0 ? -v.strides[d] : v.strides[d];
    extent += s * (v.shape[d] - 1);
  }
  return extent + static_cast<int64_t>(dtype_size(v.dtype));
}

}  // namespace

codegen::KernelVariant choose_variant(const PreparedCall &call) {
  codegen::KernelVariant variant;
  bool contiguous = call.shape.size() <= 1 && is_contiguous_1d(call.output, call.size);
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  bool fits32 = call.size < kInt32Max && max_byte_extent(call.output) < kInt32Max;
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    const PreparedOperand &in = call.inputs[i];
    if (in.is_scalar) {
      variant.scalar_mask |= 1u << i;
      continue;
    }
    contiguous = contiguous && is_contiguous_1d(in.array, call.size);
    fits32 = fits32 && max_byte_extent(in.array) < kInt32Max;
  }
  variant.layout = contiguous ? codegen::Layout::Contiguous : codegen::Layout::Strided;
  variant.index32 = fits32;
  return variant;
}

void KernelParams::push(const void *data, std::size_t size) {
  Slot slot{};
  std::memcpy(slot.bytes, data, size);
  slots_.push_back(slot);
}

KernelParams::KernelParams(const PreparedCall &call, const codegen::KernelVariant &variant,
                           const std::vector<const void *> &input_data, void *output_data) {
  const bool strided = variant.layout == codegen::Layout::Strided;
  const int ndim = static_cast<int>(call.shape.size());
  auto dims_of = [&](const std::vector<int64_t> &values, int64_t fill) {
    codegen::Dims d{};
    for (int k = 0; k < codegen::kMaxDims; ++k) {
      d.v[k] = k < ndim ? values[static_cast<std::size_t>(k)] : fill;
    }
    return d;
  };
  // Every parameter gets one slot; reserve so that pointers stay valid.
  slots_.reserve(3 + 3 * call.inputs.size() + 2);
  const int64_t n = call.size;
  push(&n, sizeof n);
  if (strided) {
    // A 0-d call runs as one dimension of size 1 (strides unused).
    const int64_t nd = ndim == 0 ? 1 : ndim;
    push(&nd, sizeof nd);
    const codegen::Dims shape = dims_of(call.shape, 1);
    push(&shape, sizeof shape);
  }
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    const PreparedOperand &in = call.inputs[i];
    if (in.is_scalar) {
      if (is_complex(in.dtype)) {
        const std::size_t half = dtype_size(in.dtype) / 2;
        push(in.scalar_bytes.data(), half);
        push(in.scalar_bytes.data() + half, half);
      } else {
        push(in.scalar_bytes.data(), dtype_size(in.dtype));
      }
      continue;
    }
    const void *ptr = input_data.at(i);
    push(&ptr, sizeof ptr);
    if (strided) {
      const codegen::Dims strides = dims_of(in.array.strides, 0);
      push(&strides, sizeof strides);
    }
  }
  push(&output_data, sizeof output_data);
  if (strided) {
    const codegen::Dims strides = dims_of(call.output.strides, 0);
    push(&strides, sizeof strides);
  }
  pointers_.reserve(slots_.size());
  for (Slot &s : slots_) {
    pointers_.push_back(s.bytes);
  }
}

// ------------------------------------------------------- Backend defaults

namespace {
[[noreturn]] void no_device(const char *what) {
  throw NoDeviceError(std::string(what) + " needs the CUDA target, and this backend is the CPU");
}
}  // namespace

Array Backend::to_device(const ArrayView &) { no_device("to_device"); }
Array Backend::to_host(const ArrayView &) { no_device("to_host of a device array"); }
Array Backend::device_empty(DType, const std::vector<int64_t> &) { no_device("device_empty"); }
Stream Backend::make_stream() { no_device("a stream"); }
Stream Backend::borrow_stream(void *) { no_device("a borrowed stream"); }
void Backend::synchronize() {}

}  // namespace ufjit::runtime
