// DLPack in and out (include/ufjit/dlpack.h): the one file that reads
// dlpack.h. An imported tensor becomes an Array whose holder calls the
// tensor's deleter; an exported Array moves into the DLManagedTensor's
// manager context and is released by its deleter. The runtime does not
// learn about DLPack: Array's public holder constructor is all it takes.
#include "ufjit/dlpack.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ufjit/errors.h"

namespace ufjit {
namespace {

// DLPack 0.8's kDLBool; Debian 12's header (DLPack 0.6) predates it.
constexpr uint8_t kDLBoolCode = 6;

/// The DLPack dtype of a ufjit dtype: code from the NumPy kind, bits from
/// the size, one lane. from_dlpack inverts it by search, so the two
/// directions share this one mapping.
DLDataType dl_dtype(DType t) {
  uint8_t code = kDLFloat;
  switch (dtype_kind(t)) {
    case 'b': code = kDLBoolCode; break;
    case 'i': code = kDLInt; break;
    case 'u': code = kDLUInt; break;
    case 'c': code = kDLComplex; break;
    default: code = kDLFloat; break;
  }
  return DLDataType{code, static_cast<uint8_t>(dtype_size(t) * 8), 1};
}

std::optional<DType> dtype_from_dl(DLDataType dl) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DLDataType candidate = dl_dtype(static_cast<DType>(i));
    if (candidate.code == dl.code && candidate.bits == dl.bits && candidate.lanes == dl.lanes) {
      return static_cast<DType>(i);
    }
  }
  return std::nullopt;
}

[[noreturn]] void input_error(const std::string &what) { throw InputError("from_dlpack: " + what); }

/// Owns an imported tensor: calls its deleter exactly once, when the last
/// Array sharing this holder is gone (or when from_dlpack rejects it).
struct DLPackHolder final : Array::Holder {
  explicit DLPackHolder(DLManagedTensor *t) : tensor(t) {}
  ~DLPackHolder() override {
    if (tensor->deleter != nullptr) {
      tensor->deleter(tensor);
    }
  }
  DLPackHolder(const DLPackHolder &) = delete;
  DLPackHolder &operator=(const DLPackHolder &) = delete;
  DLManagedTensor *tensor;
};

void place(const DLDevice &device, ArrayView &view) {
  switch (device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
      view.residence = Residence::Host;
      return;
    case kDLCUDA:
      if (device.device_id < 0) {
        input_error("negative CUDA device id " + std::to_string(device.device_id));
      }
      view.residence = Residence::Device;
      view.device = device.device_id;
      return;
    default:
      input_error("unsupported DLPack device type " + std::to_string(static_cast<int>(device.device_type)) +
                  " (ufjit takes kDLCPU, kDLCUDAHost and kDLCUDA)");
  }
}

/// Byte strides from DLPack's element strides (C order when NULL); rejects
/// strides or an extent (the farthest element's byte offset) beyond int64.
std::vector<int64_t> byte_strides(const DLTensor &t, int64_t itemsize) {
  const int ndim = t.ndim;
  std::vector<int64_t> elems(ndim);
  int64_t running = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    if (t.strides != nullptr) {
      elems[d] = t.strides[d];
    } else {
      elems[d] = running;
      if (__builtin_mul_overflow(running, t.shape[d] > 0 ? t.shape[d] : 1, &running)) {
        input_error("shape overflows int64");
      }
    }
  }
  std::vector<int64_t> bytes(ndim);
  int64_t extent = 0;
  for (int d = 0; d < ndim; ++d) {
    int64_t reach = 0;
    const int64_t steps = t.shape[d] > 0 ? t.shape[d] - 1 : 0;
    // INT64_MIN bytes has no magnitude in int64: rejected before it is negated.
    if (__builtin_mul_overflow(elems[d], itemsize, &bytes[d]) || bytes[d] == std::numeric_limits<int64_t>::min() ||
        __builtin_mul_overflow(steps, bytes[d] < 0 ? -bytes[d] : bytes[d], &reach) ||
        __builtin_add_overflow(extent, reach, &extent)) {
      input_error("stride " + std::to_string(elems[d]) + " of dimension " + std::to_string(d) +
                  " overflows int64 in bytes");
    }
  }
  return bytes;
}

}  // namespace

Array from_dlpack(DLManagedTensor *tensor) { return from_dlpack(tensor, false); }

Array from_dlpack(DLManagedTensor *tensor, bool read_only) {
  if (tensor == nullptr) {
    input_error("null DLManagedTensor");
  }
  std::shared_ptr<DLPackHolder> holder;
  try {
    holder = std::make_shared<DLPackHolder>(tensor);
  } catch (...) {
    if (tensor->deleter != nullptr) {
      tensor->deleter(tensor);
    }
    throw;
  }
  // From here on, a throw drops `holder`, which runs the deleter once.
  const DLTensor &t = tensor->dl_tensor;
  ArrayView view;
  place(t.device, view);
  const std::optional<DType> dtype = dtype_from_dl(t.dtype);
  if (!dtype) {
    input_error("unsupported DLPack dtype (code " + std::to_string(t.dtype.code) + ", bits " +
                std::to_string(t.dtype.bits) + ", lanes " + std::to_string(t.dtype.lanes) +
                "); ufjit takes bool, int8-64, uint8-64, float16/32/64 and complex64/128 with one lane");
  }
  view.dtype = *dtype;
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) {
    input_error("bad ndim " + std::to_string(t.ndim) + " or null shape");
  }
  if (t.ndim > kMaxDLPackDims) {
    // Before anything reads ndim extents or sizes a vector by it.
    input_error("ndim " + std::to_string(t.ndim) + " is more than the " + std::to_string(kMaxDLPackDims) +
                " dimensions ufjit takes (NumPy's limit)");
  }
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0) {
      input_error("negative extent " + std::to_string(t.shape[d]) + " in dimension " + std::to_string(d));
    }
  }
  view.shape.assign(t.shape, t.shape + t.ndim);
  view.strides = byte_strides(t, static_cast<int64_t>(dtype_size(*dtype)));
  if (t.data == nullptr && view.size() != 0) {
    input_error("null data pointer for " + view.describe());
  }
  view.data = t.data == nullptr ? nullptr : static_cast<char *>(t.data) + t.byte_offset;
  view.read_only = read_only;
  return Array(std::move(view), std::move(holder));
}

namespace {

/// An exported Array and the shape and strides its DLTensor points into.
struct Exported {
  DLManagedTensor managed{};
  Array array;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

void delete_exported(DLManagedTensor *self) { delete static_cast<Exported *>(self->manager_ctx); }

}  // namespace

DLManagedTensor *to_dlpack(Array &&array) {
  if (array.empty_handle()) {
    throw InputError("to_dlpack: an empty Array has no memory to hand out");
  }
  const ArrayView &view = array.view();
  const auto itemsize = static_cast<int64_t>(dtype_size(view.dtype));
  std::vector<int64_t> strides(view.strides.size());
  for (std::size_t d = 0; d < strides.size(); ++d) {
    if (view.strides[d] % itemsize != 0) {
      throw InputError("to_dlpack: byte stride " + std::to_string(view.strides[d]) + " of " + view.describe() +
                       " is not a multiple of the element size " + std::to_string(itemsize));
    }
    strides[d] = view.strides[d] / itemsize;
  }
  auto out = std::make_unique<Exported>();
  out->shape = view.shape;
  out->strides = std::move(strides);
  out->array = std::move(array);
  const ArrayView &kept = out->array.view();
  DLTensor &t = out->managed.dl_tensor;
  t.data = kept.data;
  t.byte_offset = 0;
  if (kept.residence == Residence::Device) {
    t.device = DLDevice{kDLCUDA, kept.device};
  } else {
    t.device = DLDevice{kDLCPU, 0};
  }
  t.ndim = kept.ndim();
  t.dtype = dl_dtype(kept.dtype);
  t.shape = out->shape.data();
  t.strides = out->strides.data();
  out->managed.manager_ctx = out.get();
  out->managed.deleter = delete_exported;
  return &out.release()->managed;
}

}  // namespace ufjit
