// ufjit public API: arrays.
//
// An ArrayView is a non-owning view (data pointer, dtype, shape, byte strides,
// residence), as NumPy's __array_interface__ / __cuda_array_interface__ are.
// An Array owns its memory, on the host or on the device (RAII), and converts
// to a view. Calls accept views, Arrays, std::vector, std::span, raw pointer +
// shape, and scalars.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ufjit/dims.h"
#include "ufjit/dtype.h"
#include "ufjit/errors.h"
#include "ufjit/export.h"

namespace ufjit {

enum class Residence : uint8_t { Host, Device };

/// The DType of a C++ element type (bool, fixed-width ints, float, double,
/// std::complex<float|double>); `Half` stands for float16 storage.
struct Half {
  uint16_t bits = 0;
};
template <typename T>
constexpr DType dtype_of();

/// A non-owning strided view. Strides are in bytes and may be zero or
/// negative; a 0-d view has an empty shape.
struct UFJIT_API ArrayView {
  void *data = nullptr;
  DType dtype = DType::Float64;
  Dims shape;
  Dims strides;  // bytes, one per dimension
  Residence residence = Residence::Host;
  int device = 0;  // the CUDA device ordinal, for device views
  /// The memory must not be written (a view of const data, DLPack's
  /// read-only flag, NumPy's `writeable=False`): a call that would write it
  /// (an out(...) operand, a gufunc's writable_args input, a method's `out`)
  /// throws InputError naming it, before anything runs. `view(const T *)`
  /// and `view(const std::vector<T> &)` set it.
  bool read_only = false;

  int ndim() const { return static_cast<int>(shape.size()); }
  /// Number of elements (1 for 0-d). Throws ShapeError for a negative dim or
  /// a count that does not fit in int64.
  int64_t size() const;
  bool is_c_contiguous() const;
  bool is_f_contiguous() const;
  /// "float32[3, 4]" for messages.
  std::string describe() const;

  /// C-order strides for `shape` and an element size.
  static Dims c_strides(const Dims &shape, std::size_t itemsize);
};

/// An owning array on the host or the device. Move-only; frees its memory
/// (through the runtime that made it, for device memory) when destroyed.
class UFJIT_API Array {
 public:
  Array() = default;
  ~Array();
  Array(Array &&) noexcept;
  Array &operator=(Array &&) noexcept;
  Array(const Array &) = delete;
  Array &operator=(const Array &) = delete;

  /// A C-contiguous host array, zero-filled. Throws ShapeError for a
  /// negative dim or a byte size that does not fit in int64, InputError when
  /// the memory cannot be allocated.
  static Array host(DType dtype, std::vector<int64_t> shape);

  const ArrayView &view() const { return view_; }
  operator const ArrayView &() const { return view_; }  // NOLINT: implicit by design
  DType dtype() const { return view_.dtype; }
  const Dims &shape() const { return view_.shape; }
  int64_t size() const { return view_.size(); }
  Residence residence() const { return view_.residence; }
  void *data() const { return view_.data; }
  bool empty_handle() const { return holder_ == nullptr; }

  /// The data pointer of a host array as a T*; elements lie in the order
  /// of the array's strides (C order for Array::host, to_host and results
  /// of C-ordered inputs). Throws InputError for an empty Array, a device
  /// array, or a T that is not the array's dtype.
  template <typename T>
  T *host_data() const {
    check_host_access(dtype_of<T>(), "host_data");
    return static_cast<T *>(view_.data);
  }
  /// A copy of a host array's elements in C order (gathered from any
  /// strides). Throws InputError as host_data does.
  template <typename T>
  std::vector<T> to_vector() const {
    check_host_access(dtype_of<T>(), "to_vector");
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(static_cast<std::size_t>(size()));
      copy_c_order(bytes.data());
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> v(static_cast<std::size_t>(size()));
      copy_c_order(v.data());
      return v;
    }
  }

  /// Owns the memory (host buffer, device allocation); the Array frees it by
  /// dropping the holder. Shared so that a re-shaped view can keep it alive.
  struct Holder {
    virtual ~Holder() = default;
  };
  Array(ArrayView view, std::shared_ptr<Holder> holder) : view_(std::move(view)), holder_(std::move(holder)) {}
  /// The owner of the memory (used by the runtime to re-view an allocation).
  const std::shared_ptr<Holder> &holder() const { return holder_; }

 private:
  /// Throws InputError unless this is a non-empty host array of `expected`.
  void check_host_access(DType expected, const char *what) const;
  /// Copies the elements, C order, to `dst` (size() * itemsize bytes).
  void copy_c_order(void *dst) const;

  ArrayView view_;
  std::shared_ptr<Holder> holder_;
};

/// A view of contiguous host memory: `view(vec)`, `view(ptr, {rows, cols})`.
/// A view of const memory is read-only (ArrayView::read_only).
template <typename T>
ArrayView view(T *data, Dims shape) {
  ArrayView v;
  v.data = const_cast<std::remove_const_t<T> *>(data);
  v.read_only = std::is_const_v<T>;
  v.dtype = dtype_of<std::remove_const_t<T>>();
  v.strides = ArrayView::c_strides(shape, sizeof(T));
  v.shape = std::move(shape);
  return v;
}
template <typename T>
ArrayView view(std::vector<T> &v) {
  return view(v.data(), {static_cast<int64_t>(v.size())});
}
template <typename T>
ArrayView view(const std::vector<T> &v) {
  return view(v.data(), {static_cast<int64_t>(v.size())});
}
template <typename T, std::size_t E>
ArrayView view(std::span<T, E> s) {
  return view(s.data(), {static_cast<int64_t>(s.size())});
}

/// Marks the output operand of a call: `f(x, y, out(z))`.
struct Out {
  ArrayView view;
};
inline Out out(ArrayView v) { return Out{std::move(v)}; }
inline Out out(const Array &a) { return Out{a.view()}; }
template <typename T>
Out out(std::vector<T> &v) {
  return Out{view(v)};
}

/// A typed handle on an Array (host or device): the dtype is checked once,
/// then data() is a T*. `rt.device_empty<float>({n})`, `TypedArray<float>(rt.to_device(v))`.
template <typename T>
class TypedArray {
 public:
  TypedArray() = default;
  /// Takes `a`; throws InputError when it is empty or its dtype is not T's.
  explicit TypedArray(Array a);
  T *data() const { return static_cast<T *>(array_.data()); }
  const Dims &shape() const { return array_.shape(); }
  int64_t size() const { return array_.size(); }
  Residence residence() const { return array_.residence(); }
  const ArrayView &view() const { return array_.view(); }
  operator const ArrayView &() const { return array_.view(); }  // NOLINT: implicit by design
  const Array &array() const { return array_; }
  /// Gives the untyped Array back (this handle is left empty).
  Array release() { return std::move(array_); }

 private:
  Array array_;
};

/// A strongly typed scalar: `typed<float>(x)` takes part in dispatch as a
/// float32 value, not as a weak Python-like scalar.
template <typename T>
struct Typed {
  T value;
};
template <typename T>
Typed<T> typed(T v) {
  return Typed<T>{v};
}

// ------------------------------------------------------------- dtype_of
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::Int8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::Int16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, long long>) return DType::Int64;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::UInt8;
  else if constexpr (std::is_same_v<T, uint16_t>) return DType::UInt16;
  else if constexpr (std::is_same_v<T, uint32_t>) return DType::UInt32;
  else if constexpr (std::is_same_v<T, uint64_t> || std::is_same_v<T, unsigned long long>) return DType::UInt64;
  else if constexpr (std::is_same_v<T, Half>) return DType::Float16;
  else if constexpr (std::is_same_v<T, float>) return DType::Float32;
  else if constexpr (std::is_same_v<T, double>) return DType::Float64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return DType::Complex64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return DType::Complex128;
  else static_assert(sizeof(T) == 0, "no ufjit dtype for this C++ type");
}

template <typename T>
TypedArray<T>::TypedArray(Array a) : array_(std::move(a)) {
  if (array_.empty_handle()) {
    throw InputError("TypedArray<" + std::string(dtype_name(dtype_of<T>())) +
                     "> given an empty Array (default-constructed or moved from)");
  }
  if (array_.dtype() != dtype_of<T>()) {
    throw InputError("TypedArray<" + std::string(dtype_name(dtype_of<T>())) + "> given an array of " +
                                std::string(dtype_name(array_.dtype())));
  }
}

}  // namespace ufjit
