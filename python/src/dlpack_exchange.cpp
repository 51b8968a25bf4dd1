// DLPack between Python and ufjit (see dlpack_exchange.h).
#include "dlpack_exchange.h"

#include <ufjit/dlpack.h>

#include <string>
#include <utility>

namespace ufjit::python {
namespace {

constexpr const char *kCapsuleName = "dltensor";
constexpr const char *kUsedCapsuleName = "used_dltensor";
constexpr const char *kVersionedCapsuleName = "dltensor_versioned";
constexpr const char *kUsedVersionedCapsuleName = "used_dltensor_versioned";

// DLPack 1.0's versioned tensor, as its header (dmlc/dlpack 1.0) lays it
// out: Debian 12's dlpack.h is 0.6 and lacks it. Its `flags` carry the
// read-only bit that 0.x tensors cannot.
struct DLPackVersionV1 {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersionedV1 {
  DLPackVersionV1 version;
  void *manager_ctx;
  void (*deleter)(DLManagedTensorVersionedV1 *self);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint32_t kDLPackMajorVersion = 1;
constexpr uint64_t kDLPackFlagReadOnly = 1ULL << 0;  // DLPACK_FLAG_BITMASK_READ_ONLY

/// A 0.x DLManagedTensor that owns a versioned one: ufjit::from_dlpack
/// takes 0.x tensors, and deleting this deletes both.
DLManagedTensor *legacy_tensor(DLManagedTensorVersionedV1 *versioned) {
  auto *legacy = new DLManagedTensor{};
  legacy->dl_tensor = versioned->dl_tensor;
  legacy->manager_ctx = versioned;
  legacy->deleter = [](DLManagedTensor *self) {
    auto *owned = static_cast<DLManagedTensorVersionedV1 *>(self->manager_ctx);
    if (owned->deleter != nullptr) {
      owned->deleter(owned);
    }
    delete self;
  };
  return legacy;
}

/// Frees a capsule's tensor when no consumer took it (a consumer renames
/// the capsule "used_dltensor" and owns the tensor from then on).
template <typename Tensor>
void delete_unconsumed_tensor(PyObject *capsule, const char *name) {
  if (PyCapsule_IsValid(capsule, name) == 0) {
    return;
  }
  auto *tensor = static_cast<Tensor *>(PyCapsule_GetPointer(capsule, name));
  if (tensor->deleter != nullptr) {
    tensor->deleter(tensor);
  }
}

void delete_unconsumed_versioned(PyObject *capsule) {
  delete_unconsumed_tensor<DLManagedTensorVersionedV1>(capsule, kVersionedCapsuleName);
}

void delete_unconsumed(PyObject *capsule) {
  delete_unconsumed_tensor<DLManagedTensor>(capsule, kCapsuleName);
}

/// The capsule `obj` hands out, or `obj` itself when it is a capsule.
py::object capsule_of(const py::handle &obj, int64_t cuda_stream) {
  if (PyCapsule_CheckExact(obj.ptr())) {
    return py::reinterpret_borrow<py::object>(obj);
  }
  if (!py::hasattr(obj, "__dlpack__")) {
    throw py::type_error("ufjit.from_dlpack takes an object with __dlpack__ or a \"dltensor\" capsule, not " +
                         py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>());
  }
  int device_type = kDLCPU;
  if (py::hasattr(obj, "__dlpack_device__")) {
    device_type = obj.attr("__dlpack_device__")().cast<py::tuple>()[0].cast<int>();
  }
  // DLPack 1.0 tensors first (they carry a read-only flag); a producer
  // older than the max_version keyword answers TypeError, and is asked again
  // as the 0.x specification asks.
  const py::object dlpack = obj.attr("__dlpack__");
  const py::tuple max_version = py::make_tuple(kDLPackMajorVersion, 0);
  try {
    if (device_type == kDLCUDA) {
      return dlpack(py::arg("stream") = cuda_stream, py::arg("max_version") = max_version);
    }
    return dlpack(py::arg("max_version") = max_version);  // host tensors take stream=None
  } catch (py::error_already_set &e) {
    if (!e.matches(PyExc_TypeError)) {
      throw;
    }
  }
  if (device_type == kDLCUDA) {
    return dlpack(py::arg("stream") = cuda_stream);
  }
  return dlpack();
}

/// Owns a Python object for an exported Array; drops it under the GIL,
/// whichever thread the consumer frees the tensor on.
struct PyObjectHolder final : Array::Holder {
  explicit PyObjectHolder(py::object o) : object(std::move(o)) {}
  ~PyObjectHolder() override {
    if (Py_IsInitialized() == 0) {
      object.release();  // the interpreter is gone: nothing left to free
      return;
    }
    py::gil_scoped_acquire gil;
    object = py::object();
  }
  PyObjectHolder(const PyObjectHolder &) = delete;
  PyObjectHolder &operator=(const PyObjectHolder &) = delete;
  py::object object;
};

/// DeviceArray.__dlpack__(stream=None, *, max_version=None, dl_device=None,
/// copy=None). ufjit inserts no stream wait: a synchronous call's result is
/// complete when the call returns, and an array written by an async call
/// (`out=`, `stream=`) is ordered by the caller (synchronise first).
py::capsule device_array_dlpack(const DeviceArray &a, const py::object &stream, const py::object &max_version,
                                const py::object &dl_device, const py::object &copy) {
  (void)max_version;  // the answer is a DLPack 0.x "dltensor" capsule, which the spec allows
  if (!stream.is_none() && (!PyLong_Check(stream.ptr()) || stream.cast<int64_t>() < -1)) {
    throw py::value_error("__dlpack__: stream must be None or an int >= -1 (a CUDA stream handle)");
  }
  const ArrayView &view = a.array->view();
  if (!dl_device.is_none()) {
    const auto d = dl_device.cast<py::tuple>();
    if (d[0].cast<int>() != kDLCUDA || d[1].cast<int>() != view.device) {
      PyErr_SetString(PyExc_BufferError,
                      "__dlpack__: a ufjit DeviceArray is exported on its own device only");
      throw py::error_already_set();
    }
  }
  if (a.read_only) {  // a 0.x capsule cannot say so, and its consumer could write
    PyErr_SetString(PyExc_BufferError,
                    "__dlpack__: this DeviceArray is read-only (its producer lent it so) and DLPack 0.x "
                    "capsules cannot say it");
    throw py::error_already_set();
  }
  if (!copy.is_none() && copy.cast<bool>()) {
    PyErr_SetString(PyExc_BufferError, "__dlpack__: ufjit exports without copying (copy=True refused)");
    throw py::error_already_set();
  }
  return export_dlpack(Array(view, a.array->holder()));
}

}  // namespace

bool has_dlpack(const py::handle &obj) {
  return PyCapsule_CheckExact(obj.ptr()) || py::hasattr(obj, "__dlpack__");
}

py::object from_dlpack(const py::handle &obj, int64_t cuda_stream) {
  py::object capsule = capsule_of(obj, cuda_stream);
  PyObject *c = capsule.ptr();
  if (PyCapsule_IsValid(c, kUsedCapsuleName) != 0 || PyCapsule_IsValid(c, kUsedVersionedCapsuleName) != 0) {
    throw py::value_error("ufjit.from_dlpack: this DLPack capsule was already consumed");
  }
  DLManagedTensor *tensor = nullptr;
  bool read_only = false;
  if (PyCapsule_IsValid(c, kVersionedCapsuleName) != 0) {
    auto *versioned = static_cast<DLManagedTensorVersionedV1 *>(PyCapsule_GetPointer(c, kVersionedCapsuleName));
    if (versioned->version.major != kDLPackMajorVersion) {  // left unconsumed: its producer frees it
      PyErr_SetString(PyExc_BufferError, ("ufjit.from_dlpack: DLPack " + std::to_string(versioned->version.major) +
                                          "." + std::to_string(versioned->version.minor) +
                                          " tensors are not understood (ufjit reads 0.x and 1.x)")
                                             .c_str());
      throw py::error_already_set();
    }
    if (PyCapsule_SetName(c, kUsedVersionedCapsuleName) != 0) {
      throw py::error_already_set();
    }
    read_only = (versioned->flags & kDLPackFlagReadOnly) != 0;
    tensor = legacy_tensor(versioned);
  } else {
    tensor = static_cast<DLManagedTensor *>(PyCapsule_GetPointer(c, kCapsuleName));
    if (tensor == nullptr) {
      throw py::error_already_set();  // not a "dltensor" capsule: ValueError from CPython
    }
    if (PyCapsule_SetName(c, kUsedCapsuleName) != 0) {
      throw py::error_already_set();
    }
  }
  // Owns the tensor from here: on a throw, the deleter has already run once.
  Array array = ufjit::from_dlpack(tensor, read_only);
  if (array.residence() == Residence::Device) {
    return py::cast(DeviceArray{std::make_shared<Array>(std::move(array)), read_only});
  }
  py::array host = host_to_numpy(std::move(array));
  if (read_only) {  // NumPy then refuses writes, and ufjit's checks see it
    host.attr("setflags")(py::arg("write") = false);
  }
  return std::move(host);
}

py::capsule export_dlpack(Array array) {
  DLManagedTensor *tensor = to_dlpack(std::move(array));
  PyObject *capsule = PyCapsule_New(tensor, kCapsuleName, delete_unconsumed);
  if (capsule == nullptr) {
    tensor->deleter(tensor);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

namespace {

/// A "dltensor_versioned" capsule of `array` (tests: NumPy < 2.1 makes none).
py::capsule export_versioned(Array array, bool read_only, uint32_t major) {
  DLManagedTensor *legacy = to_dlpack(std::move(array));
  auto *tensor = new DLManagedTensorVersionedV1{};
  tensor->version = {major, 0};
  tensor->manager_ctx = legacy;
  tensor->deleter = [](DLManagedTensorVersionedV1 *self) {
    auto *owned = static_cast<DLManagedTensor *>(self->manager_ctx);
    owned->deleter(owned);
    delete self;
  };
  tensor->flags = read_only ? kDLPackFlagReadOnly : 0;
  tensor->dl_tensor = legacy->dl_tensor;
  PyObject *capsule = PyCapsule_New(tensor, kVersionedCapsuleName, delete_unconsumed_versioned);
  if (capsule == nullptr) {
    tensor->deleter(tensor);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

}  // namespace

void bind_dlpack(py::module_ &m, py::class_<DeviceArray> &device_array) {
  device_array
      .def("__dlpack__", &device_array_dlpack, py::arg("stream") = py::none(), py::kw_only(),
           py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
           py::arg("copy") = py::none(),
           "A DLPack capsule of this array (zero-copy; it keeps the memory alive): cupy.from_dlpack(a), "
           "torch.from_dlpack(a). ufjit inserts no stream wait: synchronise an array written by an "
           "async call (stream=) first.")
      .def(
          "__dlpack_device__",
          [](const DeviceArray &a) {
            return py::make_tuple(static_cast<int>(kDLCUDA), a.array->view().device);
          },
          "(2, device ordinal): kDLCUDA.");
  m.def(
      "from_dlpack", [](const py::handle &x) { return from_dlpack(x); }, py::arg("x"),
      "Takes a DLPack tensor (an object with __dlpack__, or a \"dltensor\" capsule) without copying: a NumPy "
      "array for host tensors, a DeviceArray for CUDA tensors.");
  m.def(
      "_export_dlpack",
      [](const py::array &a) {
        return export_dlpack(Array(host_view(a), std::make_shared<PyObjectHolder>(a)));
      },
      py::arg("array"),
      "Tests only: a writable NumPy array handed out through ufjit's own DLPack exporter (as "
      "DeviceArray's).");
  m.def(
      "_export_dlpack_versioned",
      [](const py::array &a, bool read_only, uint32_t major) {
        return export_versioned(Array(host_view(a), std::make_shared<PyObjectHolder>(a)), read_only, major);
      },
      py::arg("array"), py::arg("read_only") = false, py::arg("major") = kDLPackMajorVersion,
      "Tests only: a NumPy array as a DLPack 1.x \"dltensor_versioned\" capsule (NumPy < 2.1 makes none), "
      "flagged read-only when asked.");
}

}  // namespace ufjit::python
