// ArrayView and Array basics, and host-side array helpers: aligned host
// allocation, strided host copies and dtype conversion of host arrays.
#include <complex>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

#include "runtime/Backend.h"
#include "runtime/Broadcast.h"
#include "runtime/ViewChecks.h"
#include "runtime/Half.h"

namespace ufjit {

// ------------------------------------------------------------------ ArrayView

int64_t ArrayView::size() const { return runtime::checked_size(shape); }

namespace {

/// Whether the elements are packed with no gaps, walking the dims from the
/// innermost (fastest), `innermost`, one `step` (+1 or -1) at a time.
bool packed(const ArrayView &v, int innermost, int step) {
  int64_t expected = static_cast<int64_t>(dtype_size(v.dtype));
  for (int k = 0, i = innermost; k < v.ndim(); ++k, i += step) {
    if (v.shape[i] == 0) {
      return true;
    }
    if (v.shape[i] != 1 && v.strides[i] != expected) {
      return false;
    }
    expected *= v.shape[i];
  }
  return true;
}

}  // namespace

bool ArrayView::is_c_contiguous() const { return packed(*this, ndim() - 1, -1); }

bool ArrayView::is_f_contiguous() const { return packed(*this, 0, 1); }

std::string ArrayView::describe() const {
  std::ostringstream os;
  os << dtype_name(dtype) << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    os << (i ? ", " : "") << shape[i];
  }
  os << ']';
  if (residence == Residence::Device) {
    os << " (device " << device << ')';
  }
  return os.str();
}

Dims ArrayView::c_strides(const Dims &shape, std::size_t itemsize) {
  Dims strides(shape.size());
  int64_t s = static_cast<int64_t>(itemsize);
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i] > 0 ? shape[i] : 1;
  }
  return strides;
}

// ---------------------------------------------------------------------- Array

Array::~Array() = default;
namespace {
/// What a moved-from Array's view reads as: ArrayView's defaults, set field
/// by field (a new ArrayView assigned would copy two empty Dims; every
/// returned result is moved).
void reset_view(ArrayView &v) {
  v.data = nullptr;
  v.dtype = ArrayView().dtype;
  v.shape.clear();
  v.strides.clear();
  v.residence = Residence::Host;
  v.device = 0;
  v.read_only = false;
}
}  // namespace

Array::Array(Array &&o) noexcept : view_(std::move(o.view_)), holder_(std::move(o.holder_)) { reset_view(o.view_); }
Array &Array::operator=(Array &&o) noexcept {
  if (this != &o) {
    view_ = std::move(o.view_);
    holder_ = std::move(o.holder_);
    reset_view(o.view_);
  }
  return *this;
}

Array Array::host(DType dtype, std::vector<int64_t> shape) {
  runtime::check_dtype(dtype, [] { return std::string("Array::host's dtype"); });
  Array a = runtime::allocate_host(dtype, shape);  // checks the byte size
  std::memset(a.data(), 0, static_cast<std::size_t>(a.size()) * dtype_size(dtype));
  return a;
}

void Array::check_host_access(DType expected, const char *what) const {
  if (holder_ == nullptr) {
    throw InputError(std::string(what) + ": the Array is empty (default-constructed or moved from)");
  }
  if (view_.residence != Residence::Host) {
    throw InputError(std::string(what) + ": " + view_.describe() +
                     " is on the device; copy it with Runtime::to_host first");
  }
  if (view_.dtype != expected) {
    throw InputError(std::string(what) + ": the array is " + view_.describe() + ", not of " +
                     std::string(dtype_name(expected)));
  }
}

void Array::copy_c_order(void *dst) const {
  ArrayView packed = view_;
  packed.data = dst;
  packed.strides = ArrayView::c_strides(view_.shape, dtype_size(view_.dtype));
  runtime::copy_host_strided(view_, packed);
}

namespace runtime {

namespace {

struct HostBuffer : Array::Holder {
  /// `bytes` fits in int64 (checked_bytes), so rounding up cannot wrap.
  explicit HostBuffer(std::size_t bytes) {
    // At least one byte so that empty arrays still have a valid pointer.
    const std::size_t rounded = ((bytes == 0 ? 1 : bytes) + 63) / 64 * 64;
    data = std::aligned_alloc(64, rounded);
    if (data == nullptr) {
      throw InputError("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    }
  }
  ~HostBuffer() override { std::free(data); }
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  void *data = nullptr;
};

/// Calls `fn(src_offset, dst_offset)` for every element, C order.
template <typename Fn>
void for_each_element(const Dims &shape, const std::vector<int64_t> &a_strides,
                      const std::vector<int64_t> &b_strides, Fn fn) {
  const int nd = static_cast<int>(shape.size());
  for (int64_t d : shape) {
    if (d == 0) {
      return;
    }
  }
  if (nd == 0) {
    fn(0, 0);
    return;
  }
  std::vector<int64_t> index(static_cast<std::size_t>(nd), 0);
  int64_t a = 0;
  int64_t b = 0;
  const int64_t inner = shape[nd - 1];
  const int64_t as = a_strides[nd - 1];
  const int64_t bs = b_strides[nd - 1];
  while (true) {
    for (int64_t i = 0; i < inner; ++i) {
      fn(a + i * as, b + i * bs);
    }
    int d = nd - 2;
    for (; d >= 0; --d) {
      ++index[d];
      a += a_strides[d];
      b += b_strides[d];
      if (index[d] < shape[d]) {
        break;
      }
      a -= a_strides[d] * shape[d];
      b -= b_strides[d] * shape[d];
      index[d] = 0;
    }
    if (d < 0) {
      return;
    }
  }
}

/// One element widened to a common representation.
struct Element {
  char kind = 'f';  // 'b', 'i', 'u', 'f', 'c'
  int64_t i = 0;
  uint64_t u = 0;
  std::complex<double> c;
};

Element load(DType t, const uint8_t *p) {
  Element e;
  e.kind = dtype_kind(t);
  switch (t) {
    case DType::Bool: e.i = *p != 0; break;
    case DType::Int8: { int8_t v; std::memcpy(&v, p, 1); e.i = v; break; }
    case DType::Int16: { int16_t v; std::memcpy(&v, p, 2); e.i = v; break; }
    case DType::Int32: { int32_t v; std::memcpy(&v, p, 4); e.i = v; break; }
    case DType::Int64: { int64_t v; std::memcpy(&v, p, 8); e.i = v; break; }
    case DType::UInt8: { uint8_t v; std::memcpy(&v, p, 1); e.u = v; break; }
    case DType::UInt16: { uint16_t v; std::memcpy(&v, p, 2); e.u = v; break; }
    case DType::UInt32: { uint32_t v; std::memcpy(&v, p, 4); e.u = v; break; }
    case DType::UInt64: { uint64_t v; std::memcpy(&v, p, 8); e.u = v; break; }
    case DType::Float16: { uint16_t v; std::memcpy(&v, p, 2); e.c = half_bits_to_float(v); break; }
    case DType::Float32: { float v; std::memcpy(&v, p, 4); e.c = v; break; }
    case DType::Float64: { double v; std::memcpy(&v, p, 8); e.c = v; break; }
    case DType::Complex64: { float v[2]; std::memcpy(v, p, 8); e.c = {v[0], v[1]}; break; }
    case DType::Complex128: { double v[2]; std::memcpy(v, p, 16); e.c = {v[0], v[1]}; break; }
  }
  if (e.kind == 'b') {
    e.kind = 'i';
  }
  return e;
}

double as_double(const Element &e) {
  if (e.kind == 'i') return static_cast<double>(e.i);
  if (e.kind == 'u') return static_cast<double>(e.u);
  return e.c.real();
}

uint64_t as_bits(const Element &e) {
  if (e.kind == 'i') return static_cast<uint64_t>(e.i);
  if (e.kind == 'u') return e.u;
  // Float -> int: truncate (casts used here are safe casts, so this path is
  // only reached through explicit astype-like uses).
  const double d = e.c.real();
  if (!(d > -9.3e18 && d < 1.8e19)) return 0;
  return d < 0 ? static_cast<uint64_t>(static_cast<int64_t>(d)) : static_cast<uint64_t>(d);
}

void store(DType t, uint8_t *p, const Element &e) {
  const uint64_t bits = as_bits(e);
  switch (t) {
    case DType::Bool: {
      const bool nonzero = (e.kind == 'f' || e.kind == 'c') ? e.c != std::complex<double>(0.0, 0.0) : bits != 0;
      *p = nonzero ? 1 : 0;
      break;
    }
    case DType::Int8: case DType::UInt8: { uint8_t v = static_cast<uint8_t>(bits); std::memcpy(p, &v, 1); break; }
    case DType::Int16: case DType::UInt16: { uint16_t v = static_cast<uint16_t>(bits); std::memcpy(p, &v, 2); break; }
    case DType::Int32: case DType::UInt32: { uint32_t v = static_cast<uint32_t>(bits); std::memcpy(p, &v, 4); break; }
    case DType::Int64: case DType::UInt64: std::memcpy(p, &bits, 8); break;
    case DType::Float16: { uint16_t v = double_to_half_bits(as_double(e)); std::memcpy(p, &v, 2); break; }
    case DType::Float32: {
      // int64/uint64 -> float32 must round once: go through long double-free path.
      float v = e.kind == 'i' ? static_cast<float>(e.i) : e.kind == 'u' ? static_cast<float>(e.u)
                                                                          : static_cast<float>(e.c.real());
      std::memcpy(p, &v, 4);
      break;
    }
    case DType::Float64: { double v = as_double(e); std::memcpy(p, &v, 8); break; }
    case DType::Complex64: {
      float v[2] = {e.kind == 'i' ? static_cast<float>(e.i) : e.kind == 'u' ? static_cast<float>(e.u)
                                                                            : static_cast<float>(e.c.real()),
                    static_cast<float>(e.c.imag())};
      std::memcpy(p, v, 8);
      break;
    }
    case DType::Complex128: {
      double v[2] = {as_double(e), e.c.imag()};
      std::memcpy(p, v, 16);
      break;
    }
  }
}

}  // namespace

ArrayView c_contiguous_host_view(DType dtype, const Dims &shape) {
  ArrayView v;
  v.dtype = dtype;
  v.shape = shape;
  v.strides = ArrayView::c_strides(shape, dtype_size(dtype));
  v.residence = Residence::Host;
  return v;
}

Array allocate_host(DType dtype, const Dims &shape) {
  const auto bytes = static_cast<std::size_t>(checked_bytes(dtype, shape));
  ArrayView v = c_contiguous_host_view(dtype, shape);
  auto buffer = std::make_shared<HostBuffer>(bytes);
  v.data = buffer->data;
  return Array(std::move(v), std::move(buffer));
}

void copy_host_strided(const ArrayView &src, const ArrayView &dst) {
  const std::size_t itemsize = dtype_size(src.dtype);
  if (src.size() == 0) return;  // an empty view may have no data pointer, and memcpy takes none
  if (src.is_c_contiguous() && dst.is_c_contiguous()) {
    std::memcpy(dst.data, src.data, static_cast<std::size_t>(src.size()) * itemsize);
    return;
  }
  const auto *s = static_cast<const uint8_t *>(src.data);
  auto *d = static_cast<uint8_t *>(dst.data);
  for_each_element(src.shape, src.strides, dst.strides,
                   [&](int64_t so, int64_t dof) { std::memcpy(d + dof, s + so, itemsize); });
}

Array convert_host(const ArrayView &src, DType to) {
  Array result = allocate_host(to, src.shape);
  if (to == src.dtype) {
    copy_host_strided(src, result.view());  // a plain copy keeps every bit
    return result;
  }
  const auto *s = static_cast<const uint8_t *>(src.data);
  auto *d = static_cast<uint8_t *>(result.data());
  const DType from = src.dtype;
  for_each_element(src.shape, src.strides, result.view().strides,
                   [&](int64_t so, int64_t dof) { store(to, d + dof, load(from, s + so)); });
  return result;
}

}  // namespace runtime
}  // namespace ufjit
