// Checks of caller-supplied views (see ViewChecks.h).
#include "runtime/ViewChecks.h"

#include "runtime/Broadcast.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {

namespace {

[[noreturn]] void extent_overflow(const ArrayView &v) {
  std::string strides;
  for (std::size_t d = 0; d < v.strides.size(); ++d) {
    if (d > 0) {
      strides += ',';
    }
    strides += std::to_string(v.strides[d]);
  }
  throw ShapeError("a view of shape " + format_shape(v.shape) + " and byte strides (" + strides +
                   ") spans more bytes than fit in int64");
}

}  // namespace

ByteExtent byte_extent(const ArrayView &v) {
  ByteExtent e;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] == 0) {
      return {};
    }
  }
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    int64_t span = 0;
    if (__builtin_mul_overflow(v.strides[d], v.shape[d] - 1, &span)) {
      extent_overflow(v);
    }
    int64_t &side = span < 0 ? e.lo : e.hi;
    if (__builtin_add_overflow(side, span, &side)) {
      extent_overflow(v);
    }
  }
  if (__builtin_add_overflow(e.hi, static_cast<int64_t>(dtype_size(v.dtype)), &e.hi)) {
    extent_overflow(v);
  }
  return e;
}

int64_t checked_bytes(DType dtype, const Dims &shape) {
  const int64_t n = checked_size(shape);
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, static_cast<int64_t>(dtype_size(dtype)), &bytes)) {
    throw ShapeError("an array of " + std::string(dtype_name(dtype)) + " and shape " + format_shape(shape) +
                     " needs more bytes than fit in int64");
  }
  return bytes;
}

std::size_t element_alignment(DType dtype) {
  const std::size_t size = dtype_size(dtype);
  return dtype == DType::Complex64 || dtype == DType::Complex128 ? size / 2 : size;
}

bool is_dtype(DType t) { return static_cast<unsigned>(t) < static_cast<unsigned>(kNumDTypes); }

void check_dtype(DType t, LabelRef label) {
  if (!is_dtype(t)) {
    throw InputError(label() + " has dtype value " + std::to_string(static_cast<unsigned>(t)) +
                     ", which is not a ufjit::DType (0 to " + std::to_string(kNumDTypes - 1) +
                     ": bool ... complex128)");
  }
}

void check_target(TargetKind t, LabelRef label) {
  if (t != TargetKind::Cpu && t != TargetKind::Cuda) {
    throw InputError(label() + " is " + std::to_string(static_cast<unsigned>(t)) +
                     ", which is not a ufjit::TargetKind (Cpu or Cuda)");
  }
}

void check_scalar(const Scalar &s, LabelRef label) {
  check_dtype(s.dtype, label);
  const bool weak_dtype = s.dtype == DType::Bool || s.dtype == DType::Int64 || s.dtype == DType::UInt64 ||
                          s.dtype == DType::Float64 || s.dtype == DType::Complex128;
  if (s.weak && !weak_dtype) {
    throw InputError(label() + " is a weak scalar of dtype " + std::string(dtype_name(s.dtype)) +
                     ": weak scalars are bool, int64, uint64, float64 or complex128 (typed<T>(x) makes a strong one)");
  }
}

void check_operand_kind(Operand::Kind kind, LabelRef label) {
  if (kind != Operand::Kind::Array && kind != Operand::Kind::Scalar && kind != Operand::Kind::Out) {
    throw InputError(label() + " has kind value " + std::to_string(static_cast<unsigned>(kind)) +
                     ", which is not a ufjit::Operand::Kind (Array, Scalar or Out)");
  }
}

void check_runtime_options(const RuntimeOptions &options) {
  if (options.target) {
    check_target(*options.target, [] { return std::string("RuntimeOptions::target"); });
  }
  if (options.device < 0) {
    throw InputError("RuntimeOptions::device is " + std::to_string(options.device) +
                     ": a CUDA device ordinal is 0 or more");
  }
  for (int device : options.devices) {
    if (device < 0 && device != kAllDevices) {
      throw InputError("RuntimeOptions::devices holds " + std::to_string(device) +
                       ": a CUDA device ordinal is 0 or more (kAllDevices: every device)");
    }
  }
  if (options.cpu_threads < 0) {
    throw InputError("RuntimeOptions::cpu_threads is " + std::to_string(options.cpu_threads) +
                     ": give 0 (one per hardware thread) or a positive count");
  }
}

void validate_view(const ArrayView &v, LabelRef label) {
  check_dtype(v.dtype, label);
  if (v.residence != Residence::Host && v.residence != Residence::Device) {
    throw InputError(label() + " has residence value " + std::to_string(static_cast<unsigned>(v.residence)) +
                     ", which is not a ufjit::Residence (Host or Device)");
  }
  if (v.residence == Residence::Device && v.device < 0) {
    throw InputError(label() + " is on device " + std::to_string(v.device) + ": a CUDA device ordinal is 0 or more");
  }
  if (v.strides.size() != v.shape.size()) {
    throw ShapeError(label() + " has " + std::to_string(v.shape.size()) + " dimensions but " +
                     std::to_string(v.strides.size()) + " strides");
  }
  const int64_t n = checked_size(v.shape);
  if (n == 0) {
    return;  // nothing is read or written: any pointer and strides will do
  }
  if (v.data == nullptr) {
    throw InputError(label() + " (" + v.describe() + ") has a null data pointer");
  }
  const ByteExtent extent = byte_extent(v);
  const auto address = reinterpret_cast<uintptr_t>(v.data);
  if (!extent_fits_address_space(address, extent)) {
    throw ShapeError(label() + " (" + v.describe() + ") reaches outside the address space with its strides");
  }
  const auto align = static_cast<int64_t>(element_alignment(v.dtype));
  bool aligned = address % static_cast<uintptr_t>(align) == 0;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    aligned = aligned && (v.shape[d] == 1 || v.strides[d] % align == 0);
  }
  if (!aligned) {
    throw InputError(label() + " (" + v.describe() + ") is not aligned to " + std::to_string(align) +
                     " bytes (its data pointer or a stride); copy it into an aligned array first");
  }
}

void check_writable(const ArrayView &v, LabelRef label) {
  if (v.read_only) {
    throw InputError(label() + " (" + v.describe() + ") is read-only (a view of const data) and the call writes it: " +
                     "pass a view of writable memory");
  }
}

bool may_overlap(const ArrayView &a, const ArrayView &b) {
  const ByteExtent ea = byte_extent(a);
  const ByteExtent eb = byte_extent(b);
  if (ea.hi == ea.lo || eb.hi == eb.lo) {
    return false;
  }
  // Both ranges are known not to wrap (validate_view), so plain comparisons
  // of the addresses as integers are exact.
  return extents_meet(reinterpret_cast<uintptr_t>(a.data), ea, reinterpret_cast<uintptr_t>(b.data), eb);
}

bool same_elements(const ArrayView &a, const ArrayView &b) {
  if (a.data != b.data || a.shape != b.shape || a.dtype != b.dtype) {
    return false;
  }
  for (std::size_t d = 0; d < a.shape.size(); ++d) {
    if (a.shape[d] != 1 && a.strides[d] != b.strides[d]) {
      return false;
    }
  }
  return true;
}

}  // namespace ufjit::runtime
