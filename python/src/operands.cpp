// Python objects <-> ufjit operands and arrays (see operands.h).
#include "operands.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>

#include "dlpack_exchange.h"
#include "ufjit/device.h"

namespace ufjit::python {

namespace {

/// The NumPy dtype objects of the 14 dtypes, made once. Leaked on purpose:
/// they must outlive every call, and Python objects must not be released by
/// C++ static destructors after the interpreter has finalised.
py::handle numpy_dtype_handle(DType dtype) {
  static py::handle *table = [] {
    auto *t = new py::handle[kNumDTypes];
    for (int i = 0; i < kNumDTypes; ++i) {
      py::dtype d(std::string(dtype_name(static_cast<DType>(i))));
      t[i] = d.release();
    }
    return t;
  }();
  return table[static_cast<int>(dtype)];
}

py::handle numpy_generic() {
  static py::handle generic = py::object(py::module_::import("numpy").attr("generic")).release();
  return generic;
}

}  // namespace

ArrayView host_view(const py::array &a) {
  ArrayView v;
  v.data = const_cast<void *>(a.data());
  v.dtype = from_numpy_dtype(a.dtype());
  v.residence = Residence::Host;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    v.shape.push_back(static_cast<int64_t>(a.shape(i)));
    v.strides.push_back(static_cast<int64_t>(a.strides(i)));
  }
  return v;
}

namespace {

bool has_cuda_array_interface(const py::handle &obj) {
  return py::hasattr(obj, "__cuda_array_interface__");
}

/// A view of an object exposing __cuda_array_interface__ (versions 0-3).
/// `written` (not empty) names a use that writes the memory, for errors: a
/// producer's read-only flag (data=(ptr, True)) refuses it.
ArrayView device_view(const py::handle &obj, const std::string &written) {
  py::dict cai = obj.attr("__cuda_array_interface__");
  if (cai.contains("mask") && !cai["mask"].is_none()) {
    throw py::type_error("ufjit does not take masked device arrays (__cuda_array_interface__ has a mask)");
  }
  py::tuple data = cai["data"];
  ArrayView v;
  v.data = reinterpret_cast<void *>(data[0].cast<uintptr_t>());
  if (!written.empty() && data[1].cast<bool>()) {
    throw py::value_error(written + " is a read-only device array (its __cuda_array_interface__ has data=(ptr, "
                          "True)) and the call writes it: pass a writable array (a copy)");
  }
  v.dtype = from_numpy_dtype(py::dtype(cai["typestr"].cast<std::string>()));
  v.residence = Residence::Device;
  // The interface names no device: the driver knows the pointer's (a Runtime
  // of several devices runs the call there; one that lacks it refuses it).
  v.device = std::max(0, device_of_pointer(v.data));
  for (const py::handle &d : cai["shape"].cast<py::tuple>()) {
    v.shape.push_back(d.cast<int64_t>());
  }
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    for (const py::handle &s : cai["strides"].cast<py::tuple>()) {
      v.strides.push_back(s.cast<int64_t>());
    }
  } else {
    v.strides = ArrayView::c_strides(v.shape, dtype_size(v.dtype));
  }
  return v;
}

/// The name of `obj`'s type, for messages.
std::string type_name(const py::handle &obj) {
  return py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>();
}

/// Refuses a read-only host array where the call writes (see add_input).
void check_writable_host(const py::array &a, const std::string &written) {
  if (!written.empty() && !a.writeable()) {
    throw py::value_error(written + " is a read-only array (np.frombuffer of bytes, a read-only memory map, "
                          "writeable=False or a broadcast view) and the call writes it: pass a writable array "
                          "(a.copy())");
  }
}

/// Refuses, where the call writes, an operand that would be converted into
/// a new array (a scalar, a list): the writes would be lost.
void check_not_converted(const py::handle &obj, const std::string &written) {
  if (!written.empty()) {
    throw py::value_error(written + " is written by the kernel (writable_args) but is a " + type_name(obj) +
                          ", which would be converted into a new array and the writes lost: pass a writable "
                          "NumPy or device array");
  }
}

/// np.asarray, whose exceptions (an operand's own __array__ raising) pass
/// through unchanged.
py::array as_numpy_array(const py::handle &obj) {
  static py::handle asarray = py::object(py::module_::import("numpy").attr("asarray")).release();
  py::object a = asarray(obj);
  return py::reinterpret_borrow<py::array>(a);
}

/// A NumPy scalar (np.float32(1), np.bool_(True)): a strong scalar.
Operand numpy_scalar(const py::handle &obj) {
  py::array a = py::array::ensure(obj);
  const DType dtype = from_numpy_dtype(a.dtype());
  Operand op(0);
  op.scalar.weak = false;
  op.scalar.dtype = dtype;
  switch (dtype_kind(dtype)) {
    case 'b':
      op.scalar.value.b = PyObject_IsTrue(obj.ptr()) == 1;
      break;
    case 'i':
      op.scalar.value.i = py::int_(py::reinterpret_borrow<py::object>(obj)).cast<int64_t>();
      break;
    case 'u':
      if (dtype == DType::UInt64) {
        op.scalar.value.u = py::int_(py::reinterpret_borrow<py::object>(obj)).cast<uint64_t>();
      } else {
        op.scalar.value.i = py::int_(py::reinterpret_borrow<py::object>(obj)).cast<int64_t>();
      }
      break;
    case 'f':
      op.scalar.value.f = py::float_(py::reinterpret_borrow<py::object>(obj)).cast<double>();
      break;
    default: {  // 'c'
      const Py_complex c = PyComplex_AsCComplex(obj.ptr());
      if (PyErr_Occurred()) {
        throw py::error_already_set();
      }
      op.scalar.value.f = c.real;
      op.scalar.imag = c.imag;
    }
  }
  return op;
}

/// A Python int: weak int64, or weak uint64 above INT64_MAX.
Operand python_int(const py::handle &obj) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) {
      throw py::error_already_set();
    }
    return Operand(static_cast<int64_t>(v));
  }
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(obj.ptr());
    if (!PyErr_Occurred()) {
      return Operand(static_cast<uint64_t>(u));
    }
    PyErr_Clear();
  }
  const std::string message =
      "Python int " + py::str(obj).cast<std::string>() +
      " does not fit in int64 or uint64 (as NumPy, ufjit has no arbitrary-precision integers)";
  PyErr_SetString(PyExc_OverflowError, message.c_str());
  throw py::error_already_set();
}

}  // namespace

py::dtype to_numpy_dtype(DType dtype) {
  return py::reinterpret_borrow<py::dtype>(numpy_dtype_handle(dtype));
}

DType from_numpy_dtype(const py::dtype &dtype) {
  const char kind = dtype.kind();
  const auto size = static_cast<std::size_t>(dtype.itemsize());
  if (!dtype.attr("isnative").cast<bool>() && size > 1) {
    throw py::type_error("ufjit takes native byte order only, not dtype " +
                         py::repr(dtype).cast<std::string>());
  }
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto t = static_cast<DType>(i);
    if (dtype_kind(t) == kind && dtype_size(t) == size) {
      return t;
    }
  }
  throw py::type_error("ufjit has no dtype " + py::repr(dtype).cast<std::string>() +
                       " (it takes bool, int8..int64, uint8..uint64, float16/32/64, complex64/128)");
}

void add_input(Operands &ops, const py::handle &obj, const std::string &written) {
  if (py::isinstance<py::array>(obj)) {
    auto a = py::reinterpret_borrow<py::array>(obj);
    check_writable_host(a, written);
    ops.operands.emplace_back(host_view(a));
    ops.keep_alive.push_back(std::move(a));
    return;
  }
  if (py::isinstance<DeviceArray>(obj)) {
    const auto &d = obj.cast<const DeviceArray &>();
    if (!written.empty() && d.read_only) {
      throw py::value_error(written + " is a read-only device array (a DLPack tensor its producer flagged "
                            "read-only) and the call writes it: pass a writable array (a copy)");
    }
    ops.operands.emplace_back(d.array->view());
    ops.keep_alive.push_back(py::reinterpret_borrow<py::object>(obj));
    ops.any_device = true;
    return;
  }
  const bool python_scalar = PyBool_Check(obj.ptr()) || PyLong_Check(obj.ptr()) || PyFloat_Check(obj.ptr()) ||
                             PyComplex_Check(obj.ptr());
  if (python_scalar || py::isinstance(obj, numpy_generic()) || py::isinstance<py::list>(obj) ||
      py::isinstance<py::tuple>(obj)) {
    check_not_converted(obj, written);
  }
  // NumPy scalars first: np.float64 is a Python float, np.complex128 a complex.
  if (py::isinstance(obj, numpy_generic())) {
    ops.operands.push_back(numpy_scalar(obj));
    return;
  }
  if (PyBool_Check(obj.ptr())) {
    ops.operands.emplace_back(obj.ptr() == Py_True);
    return;
  }
  if (PyLong_Check(obj.ptr())) {
    ops.operands.push_back(python_int(obj));
    return;
  }
  if (PyFloat_Check(obj.ptr())) {
    ops.operands.emplace_back(PyFloat_AS_DOUBLE(obj.ptr()));
    return;
  }
  if (PyComplex_Check(obj.ptr())) {
    ops.operands.emplace_back(
        std::complex<double>(PyComplex_RealAsDouble(obj.ptr()), PyComplex_ImagAsDouble(obj.ptr())));
    return;
  }
  if (has_cuda_array_interface(obj)) {
    ops.operands.emplace_back(device_view(obj, written));
    ops.keep_alive.push_back(py::reinterpret_borrow<py::object>(obj));
    ops.any_device = true;
    return;
  }
  // An object with only __dlpack__ (a JAX array, a CPU torch tensor):
  // consumed without a copy, after the buffer protocol.
  if (PyObject_CheckBuffer(obj.ptr()) == 0 && has_dlpack(obj)) {
    try {
      add_input(ops, from_dlpack(obj, ops.dlpack_stream), written);
      return;
    } catch (py::error_already_set &e) {
      if (!e.matches(PyExc_BufferError)) {
        throw;
      }
    }
  }
  // The buffer protocol, __array_interface__, __array__, sequences.
  py::array a = as_numpy_array(obj);
  if (a.dtype().kind() == 'O') {
    throw py::type_error("ufjit cannot use an operand of type " + type_name(obj));
  }
  check_writable_host(a, written);
  ops.operands.emplace_back(host_view(a));
  ops.keep_alive.push_back(std::move(a));
}

void add_output(Operands &ops, const py::handle &obj, const std::string &what) {
  if (py::isinstance<py::array>(obj)) {
    auto a = py::reinterpret_borrow<py::array>(obj);
    if (!a.writeable()) {
      throw py::value_error(what + " is a read-only array: pass a writable one");
    }
    ops.operands.emplace_back(Out{host_view(a)});
    ops.keep_alive.push_back(std::move(a));
    return;
  }
  if (py::isinstance<DeviceArray>(obj)) {
    const auto &d = obj.cast<const DeviceArray &>();
    if (d.read_only) {
      throw py::value_error(what + " is a read-only device array (a DLPack tensor its producer flagged "
                            "read-only): pass a writable one");
    }
    ops.operands.emplace_back(Out{d.array->view()});
    ops.keep_alive.push_back(py::reinterpret_borrow<py::object>(obj));
    ops.any_device = true;
    return;
  }
  if (has_cuda_array_interface(obj)) {
    ops.operands.emplace_back(Out{device_view(obj, what)});
    ops.keep_alive.push_back(py::reinterpret_borrow<py::object>(obj));
    ops.any_device = true;
    return;
  }
  throw py::type_error(what + " must be a NumPy array or a device array, not " + type_name(obj));
}

void *producer_stream(const py::handle &obj) {
  if (py::isinstance<py::array>(obj) || py::isinstance<DeviceArray>(obj) || !has_cuda_array_interface(obj)) {
    return nullptr;
  }
  py::dict cai = obj.attr("__cuda_array_interface__");
  if (!cai.contains("stream") || cai["stream"].is_none()) {
    return nullptr;
  }
  const auto s = cai["stream"].cast<uintptr_t>();
  if (s == 1 || s == 2) {
    return nullptr;
  }
  return reinterpret_cast<void *>(s);
}

py::array host_to_numpy(Array host) {
  const ArrayView &v = host.view();
  std::vector<py::ssize_t> shape(v.shape.begin(), v.shape.end());
  std::vector<py::ssize_t> strides(v.strides.begin(), v.strides.end());
  const py::dtype dtype = to_numpy_dtype(v.dtype);
  if (v.data == nullptr) {  // an empty array: NumPy allocates its own
    return py::array(dtype, shape, strides);
  }
  void *data = v.data;
  auto *owner = new Array(std::move(host));
  py::capsule base(owner, [](void *p) { delete static_cast<Array *>(p); });
  return py::array(dtype, shape, strides, data, base);
}

py::object to_python(Array result) {
  if (result.residence() == Residence::Device) {
    return py::cast(DeviceArray{std::make_shared<Array>(std::move(result))});
  }
  const bool zero_d = result.view().ndim() == 0;
  py::array a = host_to_numpy(std::move(result));
  if (zero_d) {
    return a[py::tuple()];  // a NumPy scalar, as NumPy's ufuncs return
  }
  return a;
}

py::dict cuda_array_interface(const ArrayView &view, bool read_only) {
  py::dict d;
  py::tuple shape(view.shape.size());
  for (std::size_t i = 0; i < view.shape.size(); ++i) {
    shape[i] = py::int_(view.shape[i]);
  }
  d["shape"] = shape;
  d["typestr"] = to_numpy_dtype(view.dtype).attr("str");
  d["data"] = py::make_tuple(py::int_(reinterpret_cast<uintptr_t>(view.data)), read_only);
  d["version"] = 3;
  if (view.is_c_contiguous()) {
    d["strides"] = py::none();
  } else {
    py::tuple strides(view.strides.size());
    for (std::size_t i = 0; i < view.strides.size(); ++i) {
      strides[i] = py::int_(view.strides[i]);
    }
    d["strides"] = strides;
  }
  // Synchronous calls return with their result written; an async call's
  // `out` belongs to the caller's stream, which the caller orders.
  d["stream"] = py::none();
  return d;
}

}  // namespace ufjit::python
