// The `ufjit._ufjit` extension: the public C++ API seen from Python. The
// decorators (vectorize, guvectorize, cuda.jit) are pure Python in
// python/ufjit/; this module compiles sources, converts operands, runs calls
// with the GIL released and turns ufjit's C++ errors into Python exceptions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "dlpack_exchange.h"
#include "module.h"
#include "operands.h"

namespace ufjit::python {
namespace {

/// The Runtime once runtime() has made it, for the exit hook (which must not
/// make one).
std::atomic<Runtime *> made_runtime{nullptr};

/// Python's main thread, the one that runs signal handlers. Asked first by
/// the module's init, which holds the GIL; a constant after that.
unsigned long main_thread_ident() {
  static const auto ident =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  return ident;
}

/// RuntimeOptions::interrupt for Python: a long CPU call made by the main
/// thread runs Python's signal handlers between chunks of work (Ctrl-C's
/// KeyboardInterrupt, an alarm's handler). One that raises stops the call,
/// and its exception, left set here, is the call's (the Cancelled
/// translator keeps it). Python runs signal handlers in its main thread
/// only, so other threads' calls are never stopped, nor take the GIL here.
std::function<bool()> python_interrupt() {
  return [] {
    if (PyThread_get_thread_ident() != main_thread_ident()) {
      return false;
    }
    const PyGILState_STATE gil = PyGILState_Ensure();
    const bool raised = PyErr_CheckSignals() != 0;
    PyGILState_Release(gil);
    return raised;
  };
}

}  // namespace

/// The process's Runtime, made at first use. Leaked on purpose: device
/// arrays and streams that Python still holds at exit refer to its context,
/// and tearing down the CUDA context or the thread pool during interpreter
/// finalisation is unsafe.
namespace {
/// ufjit.set_devices(): the device set the process's Runtime is made with.
std::vector<int> requested_devices;
}  // namespace

Runtime &runtime() {
  static Runtime *rt = [] {
    RuntimeOptions options;
    options.interrupt = python_interrupt();
    options.devices = requested_devices;
    auto *made = new Runtime(options);
    made_runtime = made;
    return made;
  }();
  return *rt;
}

std::optional<TargetKind> parse_target(const py::object &target) {
  if (target.is_none()) {
    return std::nullopt;
  }
  const auto t = target.cast<std::string>();
  if (std::optional<TargetKind> parsed = ufjit::parse_target_name(t)) {
    return parsed;
  }
  throw py::value_error("unknown target '" + t + "' (expected 'cpu' or 'cuda')");
}

void wait_for_producers(const std::vector<void *> &producers, const Stream *stream) {
  for (void *p : producers) {
    if (stream == nullptr || p != stream->handle()) {
      runtime().borrow_stream(p).synchronize();
    }
  }
}

namespace {

/// What names the `index`th input (0-based) in errors when the kernel
/// writes it: "argument 1 ('a') of 'bump'"; empty when it only reads it.
/// `writable`: the inputs of writable_args, as (index, parameter name).
std::string written_name(const Ufunc &ufunc, const py::object &writable, std::size_t index) {
  if (writable.is_none()) {
    return {};
  }
  for (const py::handle &entry : writable) {
    const auto pair = entry.cast<py::tuple>();
    if (pair[0].cast<std::size_t>() == index) {
      return "argument " + std::to_string(index + 1) + " ('" + pair[1].cast<std::string>() + "') of '" +
             ufunc.name() + "', in writable_args,";
    }
  }
  return {};
}

/// What names output `k` of `n` in errors: "out=", "out[1]".
std::string out_name(std::size_t k, std::size_t n) {
  return n == 1 ? std::string("out=") : "out[" + std::to_string(k) + "]";
}

/// f(*args, out=None, stream=None, target=None).
py::object call_ufunc(const Ufunc &ufunc, const py::args &args, const py::object &out,
                      const py::object &stream, const py::object &target,
                      const std::optional<CoreAxes> &core_axes = std::nullopt,
                      const py::object &writable = py::none()) {
  Operands ops;
  if (!stream.is_none()) {  // DLPack producers order their work before the call's stream
    const auto handle = reinterpret_cast<uintptr_t>(stream.cast<PyStream>().stream->handle());
    ops.dlpack_stream = handle == 0 ? kDLPackLegacyStream : static_cast<int64_t>(handle);
  }
  std::vector<void *> producers;
  std::size_t index = 0;
  for (const py::handle &a : args) {
    add_input(ops, a, written_name(ufunc, writable, index++));
    if (void *p = producer_stream(a)) {
      producers.push_back(p);
    }
  }
  if (!out.is_none()) {
    // A tuple names every output of a gufunc (NumPy's out=(a, b)).
    const bool several = py::isinstance<py::tuple>(out);
    const py::tuple outs = several ? out.cast<py::tuple>() : py::make_tuple(out);
    for (std::size_t k = 0; k < outs.size(); ++k) {
      const py::object o = outs[k];
      add_output(ops, o, out_name(k, outs.size()));
      if (void *p = producer_stream(o)) {
        producers.push_back(p);
      }
    }
  }
  std::optional<TargetKind> kind = parse_target(target);
  if (!stream.is_none() && core_axes) {
    throw py::type_error("axes=/axis= cannot be combined with stream=");
  }
  if (!stream.is_none()) {
    if (out.is_none()) {
      throw py::type_error(
          "a call with stream= needs out= (a device array): it returns before the result exists");
    }
    auto s = stream.cast<PyStream>().stream;
    {
      py::gil_scoped_release release;
      wait_for_producers(producers, s.get());
      ufunc.call_async(*s, ops.operands);
    }
    return out;
  }
  std::vector<Array> results;
  {
    py::gil_scoped_release release;
    wait_for_producers(producers, nullptr);
    if (core_axes) {
      results = ufunc.call_all(ops.operands, *core_axes, kind);
    } else {
      results = kind ? ufunc.call_all_on(*kind, ops.operands) : ufunc.call_all(ops.operands);
    }
  }
  if (!out.is_none()) {
    return out;
  }
  if (results.size() == 1) {
    return to_python(std::move(results.front()));
  }
  py::tuple tuple(results.size());
  for (std::size_t k = 0; k < results.size(); ++k) {
    tuple[k] = to_python(std::move(results[k]));
  }
  return std::move(tuple);
}

/// Every @vectorize / @guvectorize of a source, by name. `link`: CUDA C++
/// files for its declare_device functions (VectorizeOptions::link), relative
/// ones found in `base_dir`.
py::dict load(const std::string &source, const std::string &source_name, const std::vector<std::string> &link,
              const std::string &base_dir) {
  VectorizeOptions options;
  options.source_name = source_name;
  options.link = link;
  options.base_dir = base_dir;
  UfuncSet set;
  {
    py::gil_scoped_release release;
    set = runtime().load(source, options);
  }
  py::dict d;
  for (Ufunc &u : set.ufuncs) {
    d[py::str(u.name())] = py::cast(u);
  }
  return d;
}

// ------------------------------------------------------------------ errors

PyObject *new_error(py::module_ &m, const char *name, PyObject *bases, const char *doc) {
  const std::string qualified = std::string("ufjit.") + name;
  PyObject *type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (type == nullptr) {
    throw py::error_already_set();
  }
  m.add_object(name, py::handle(type));  // the module holds a reference; ours is leaked
  return type;
}

/// The class a kernel's `raise Name(...)` comes out as: KernelError and, when
/// `name` is a builtin exception (ValueError, ZeroDivisionError, IndexError,
/// AssertionError...), that class too, so that `except ValueError` catches it
/// as it catches Numba's. Made once per name and kept in `classes`; a name
/// that is not a builtin exception (the user's own class) gives KernelError.
PyObject *kernel_error_class(PyObject *kernel_error, PyObject *classes, const std::string &name) {
  if (PyObject *made = PyDict_GetItemString(classes, name.c_str()); made != nullptr) {
    return made;
  }
  PyObject *builtins = PyEval_GetBuiltins();
  PyObject *builtin = builtins != nullptr ? PyDict_GetItemString(builtins, name.c_str()) : nullptr;
  PyObject *made = nullptr;
  if (builtin != nullptr && PyType_Check(builtin) &&
      PyType_IsSubtype(reinterpret_cast<PyTypeObject *>(builtin), reinterpret_cast<PyTypeObject *>(PyExc_Exception)) &&
      builtin != PyExc_Exception) {
    PyObject *bases = PyTuple_Pack(2, kernel_error, builtin);
    made = bases != nullptr ? PyErr_NewException(("ufjit." + name).c_str(), bases, nullptr) : nullptr;
    Py_XDECREF(bases);
    if (made == nullptr) {
      PyErr_Clear();  // an incompatible layout (OSError's kin): KernelError alone
    }
  }
  if (made == nullptr) {
    made = kernel_error;
    Py_INCREF(made);
  }
  PyDict_SetItemString(classes, name.c_str(), made);
  Py_DECREF(made);  // the dict holds it
  return made;
}

/// Raises `compile_error` (ufjit.CompileError) with the message and its
/// .diagnostics, one dict per located diagnostic.
void set_compile_error(PyObject *compile_error, const CompileError &e) {
  py::list diagnostics;
  for (const DiagnosticMessage &d : e.diagnostics()) {
    py::dict item;
    item["file"] = d.file;
    item["line"] = d.line;
    item["column"] = d.column;
    item["severity"] = d.severity;
    item["message"] = d.message;
    diagnostics.append(item);
  }
  py::object exc = py::reinterpret_borrow<py::object>(compile_error)(e.what());
  exc.attr("diagnostics") = diagnostics;
  PyErr_SetObject(compile_error, exc.ptr());
}

/// Raises the KernelError class of the kernel's exception name (see
/// kernel_error_class) with where the kernel raised it.
void set_kernel_error(PyObject *kernel_error, PyObject *classes, const KernelError &e) {
  PyObject *type = kernel_error_class(kernel_error, classes, e.exception());
  py::object exc;
  try {
    exc = py::reinterpret_borrow<py::object>(type)(e.what());
  } catch (const py::error_already_set &) {  // a builtin whose constructor wants more
    type = kernel_error;
    exc = py::reinterpret_borrow<py::object>(type)(e.what());
  }
  exc.attr("exception") = e.exception();
  exc.attr("message") = e.message();
  exc.attr("file") = e.file();
  exc.attr("line") = e.line();
  exc.attr("column") = e.column();
  PyErr_SetObject(type, exc.ptr());
}

void register_errors(py::module_ &m) {
  PyObject *error = new_error(m, "Error", PyExc_Exception, "Base of every error ufjit raises.");
  auto bases = [&](PyObject *builtin) {
    return py::make_tuple(py::handle(error), py::handle(builtin)).release().ptr();
  };
  static PyObject *compile_error = new_error(m, "CompileError", error,
                                             "The source did not compile; the message holds every located "
                                             "diagnostic, .diagnostics lists them.");
  static PyObject *dispatch_error =
      new_error(m, "DispatchError", bases(PyExc_TypeError),
                "No signature takes the operands' dtypes (a TypeError, as NumPy).");
  static PyObject *shape_error = new_error(m, "ShapeError", bases(PyExc_ValueError),
                                           "Shapes do not broadcast, or a shape or strides overflow.");
  static PyObject *input_error = new_error(m, "InputError", bases(PyExc_ValueError),
                                           "An array in the wrong memory, a misaligned or null pointer, an "
                                           "empty handle.");
  static PyObject *device_error = new_error(m, "DeviceError", bases(PyExc_RuntimeError),
                                            "The GPU or its driver failed (names the driver call).");
  static PyObject *no_device_error =
      new_error(m, "NoDeviceError", device_error, "No usable CUDA driver or device.");
  static PyObject *internal_error =
      new_error(m, "InternalError", bases(PyExc_RuntimeError), "A bug in ufjit itself.");
  static PyObject *kernel_error =
      new_error(m, "KernelError", error,
                "A `raise` in the kernel fired (reported after the call, as Numba does); .exception names "
                "its class, .message its text, .file/.line/.column where it was raised.");
  static PyObject *kernel_error_classes = PyDict_New();  // kernel_error_class's, one per name
  m.add_object("_kernel_error_classes", py::handle(kernel_error_classes));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) {
        std::rethrow_exception(p);
      }
    } catch (const CompileError &e) {
      set_compile_error(compile_error, e);
    } catch (const DispatchError &e) {
      PyErr_SetString(dispatch_error, e.what());
    } catch (const ShapeError &e) {
      PyErr_SetString(shape_error, e.what());
    } catch (const InputError &e) {
      PyErr_SetString(input_error, e.what());
    } catch (const KernelError &e) {
      set_kernel_error(kernel_error, kernel_error_classes, e);
    } catch (const NoDeviceError &e) {
      PyErr_SetString(no_device_error, e.what());
    } catch (const DeviceError &e) {
      PyErr_SetString(device_error, e.what());
    } catch (const Cancelled &) {
      // Stopped by a signal handler that raised (python_interrupt): its
      // exception is already set and is the call's.
      if (PyErr_Occurred() == nullptr) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
      }
    } catch (const Error &e) {
      PyErr_SetString(internal_error, e.what());
    }
  });
}

// ----------------------------------------------------------------- classes

py::tuple as_tuple(const std::vector<int64_t> &v) {
  py::tuple t(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    t[i] = py::int_(v[i]);
  }
  return t;
}

py::class_<DeviceArray> bind_device_array(py::module_ &m) {
  py::class_<DeviceArray> cls(
      m, "DeviceArray",
      "A device array owned by ufjit; other libraries read it through __cuda_array_interface__ "
      "(cupy.asarray, torch.as_tensor, numba.cuda.as_cuda_array) or DLPack (cupy.from_dlpack, "
      "torch.from_dlpack).");
  cls.def_property_readonly("shape", [](const DeviceArray &a) { return as_tuple(a.array->shape()); })
      .def_property_readonly("strides",
                             [](const DeviceArray &a) { return as_tuple(a.array->view().strides); })
      .def_property_readonly("dtype", [](const DeviceArray &a) { return to_numpy_dtype(a.array->dtype()); })
      .def_property_readonly("ndim", [](const DeviceArray &a) { return a.array->view().ndim(); })
      .def_property_readonly("size", [](const DeviceArray &a) { return a.array->size(); })
      .def_property_readonly("nbytes",
                             [](const DeviceArray &a) {
                               return a.array->size() * static_cast<int64_t>(dtype_size(a.array->dtype()));
                             })
      .def_property_readonly("__cuda_array_interface__",
                             [](const DeviceArray &a) { return cuda_array_interface(a.array->view(), a.read_only); })
      .def("__len__",
           [](const DeviceArray &a) {
             if (a.array->view().ndim() == 0) {
               throw py::type_error("len() of a 0-d device array");
             }
             return a.array->shape()[0];
           })
      .def(
          "copy_to_host",
          [](const DeviceArray &a, const py::object &ary, const py::object & /*stream*/) -> py::object {
            Array host;
            {
              py::gil_scoped_release release;
              host = runtime().to_host(a.array->view());
            }
            if (ary.is_none()) {
              return host_to_numpy(std::move(host));
            }
            py::module_::import("numpy").attr("copyto")(ary, host_to_numpy(std::move(host)));
            return ary;
          },
          py::arg("ary") = py::none(), py::arg("stream") = py::none(),
          "A new NumPy array holding the elements (C order); given `ary` (a NumPy array of the same shape), "
          "the elements are copied into it and it is returned (Numba's copy_to_host(ary)). The copy is "
          "synchronous, also with a `stream`.")
      .def("__repr__",
           [](const DeviceArray &a) { return "<ufjit.DeviceArray " + a.array->view().describe() + ">"; });
  return cls;
}

void bind_stream(py::module_ &m) {
  py::class_<PyStream>(m, "Stream",
                       "A CUDA stream: made by ufjit (ufjit.stream()) or borrowed (Stream.borrow).")
      .def(py::init([] {
             return PyStream{std::make_shared<Stream>(runtime().stream()), false};
           }),
           "A new stream of ufjit's device context (needs a GPU).")
      .def_static(
          "borrow",
          [](uintptr_t handle) {
            return PyStream{
                std::make_shared<Stream>(runtime().borrow_stream(reinterpret_cast<void *>(handle))), true};
          },
          py::arg("handle"),
          "Wraps a CUstream the caller owns, given as an int (cupy's stream.ptr, torch's stream.cuda_stream; "
          "0 is "
          "the legacy default stream). ufjit never destroys it.")
      .def("synchronize",
           [](PyStream &s) {
             py::gil_scoped_release release;
             s.stream->synchronize();
           })
      .def_property_readonly(
          "handle", [](const PyStream &s) { return reinterpret_cast<uintptr_t>(s.stream->handle()); })
      .def_readonly("borrowed", &PyStream::borrowed)
      .def("__repr__", [](const PyStream &s) {
        return std::string(s.borrowed ? "<ufjit.Stream borrowed " : "<ufjit.Stream ") +
               std::to_string(reinterpret_cast<uintptr_t>(s.stream->handle())) + ">";
      });
}

/// A method's `out=` (None: none), appended to `ops` to keep it alive.
std::optional<Out> method_out(Operands &ops, const py::object &out) {
  if (out.is_none()) {
    return std::nullopt;
  }
  add_output(ops, out);
  return Out{ops.operands.back().array};
}

/// NumPy's dtype= of reduce and accumulate: anything np.dtype() takes.
std::optional<DType> method_dtype(const py::object &dtype) {
  if (dtype.is_none()) {
    return std::nullopt;
  }
  return from_numpy_dtype(py::dtype::from_args(dtype));
}

/// NumPy's where= of reduce: None or True (every element), else a bool
/// array (or a bool, np.asarray'd) kept alive in `ops`.
std::optional<ArrayView> method_where(Operands &ops, const py::object &where) {
  if (where.is_none() || (py::isinstance<py::bool_>(where) && where.cast<bool>())) {
    return std::nullopt;
  }
  add_input(ops, where);
  if (ops.operands.back().kind != Operand::Kind::Array) {
    ops.operands.pop_back();
    add_input(ops, py::module_::import("numpy").attr("asarray")(where));
  }
  return ops.operands.back().array;
}

/// Ufunc.__call__'s keywords (NumPy's names where NumPy has them).
struct CallKeywords {
  py::object out = py::none();
  py::object stream = py::none();
  py::object target = py::none();
  py::object writable = py::none();
  std::optional<CoreAxes> core_axes;
};

/// axes= (a list of per-operand axis lists) or axis= (one axis) of a gufunc.
void add_core_axes(CoreAxes &core_axes, const std::string &key, const py::handle &value) {
  if (key == "axis") {
    core_axes.axis = value.cast<int>();
    return;
  }
  for (const py::handle &entry : value) {
    // NumPy also takes a bare int for a one-axis entry.
    core_axes.axes.push_back(py::isinstance<py::int_>(entry) ? std::vector<int>{entry.cast<int>()}
                                                             : entry.cast<std::vector<int>>());
  }
}

CallKeywords call_keywords(const Ufunc &u, const py::kwargs &kwargs) {
  CallKeywords kw;
  for (const auto &[key, value] : kwargs) {
    const auto k = key.cast<std::string>();
    if ((k == "axes" || k == "axis") && !value.is_none()) {
      if (!kw.core_axes) {
        kw.core_axes.emplace();
      }
      add_core_axes(*kw.core_axes, k, value);
    } else if (k == "axes" || k == "axis") {
      // None: NumPy's default
    } else if (k == "out") {
      kw.out = py::reinterpret_borrow<py::object>(value);
    } else if (k == "stream") {
      kw.stream = py::reinterpret_borrow<py::object>(value);
    } else if (k == "target") {
      kw.target = py::reinterpret_borrow<py::object>(value);
    } else if (k == "_writable") {  // the Python GUFunc's writable_args: ((index, name), ...)
      kw.writable = py::reinterpret_borrow<py::object>(value);
    } else {
      throw py::type_error("'" + k + "' is an invalid keyword to ufunc '" + u.name() +
                           "' (ufjit takes out=, stream=, target=, and axes=/axis= for gufuncs)");
    }
  }
  return kw;
}

py::object ufunc_call(const Ufunc &u, const py::args &args, const py::kwargs &kwargs) {
  CallKeywords kw = call_keywords(u, kwargs);
  return call_ufunc(u, args, kw.out, kw.stream, kw.target, kw.core_axes, kw.writable);
}

/// reduce's options but where= (which adds an operand): axis None (all),
/// an int or a tuple/list of ints; initial a scalar or None.
ReduceOptions reduce_options(const py::object &axis, bool keepdims, const py::object &initial) {
  ReduceOptions options;
  options.keepdims = keepdims;
  if (axis.is_none()) {
    options.all_axes = true;
  } else if (py::isinstance<py::tuple>(axis) || py::isinstance<py::list>(axis)) {
    for (const py::handle &k : axis) options.axes.push_back(k.cast<int>());
    if (options.axes.empty()) throw py::value_error("axis=() reduces nothing: give an axis");
  } else {
    options.axes.push_back(axis.cast<int>());
  }
  if (!initial.is_none()) {
    Operands init;
    add_input(init, initial);
    if (init.operands[0].kind != Operand::Kind::Scalar) throw py::type_error("initial must be a scalar");
    options.initial = init.operands[0];
  }
  return options;
}

/// Runs a method without the GIL; returns `out` when given, else the result.
template <typename Method>
py::object run_method(const std::optional<Out> &out_view, const py::object &out, Method method) {
  Array result;
  {
    py::gil_scoped_release release;
    result = method();
  }
  return out_view ? out : to_python(std::move(result));
}

py::object ufunc_reduce(const Ufunc &u, const py::handle &a, const py::object &axis, bool keepdims,
                        const py::object &initial, const py::object &out, const py::object &dtype,
                        const py::object &where) {
  Operands ops;
  add_input(ops, a);
  ReduceOptions options = reduce_options(axis, keepdims, initial);
  options.dtype = method_dtype(dtype);
  options.where = method_where(ops, where);
  const std::optional<Out> out_view = method_out(ops, out);
  return run_method(out_view, out, [&] { return u.reduce(ops.operands[0], options, out_view); });
}

py::object ufunc_accumulate(const Ufunc &u, const py::handle &a, int axis, const py::object &out,
                            const py::object &dtype) {
  Operands ops;
  add_input(ops, a);
  AccumulateOptions options;
  options.axis = axis;
  options.dtype = method_dtype(dtype);
  const std::optional<Out> out_view = method_out(ops, out);
  return run_method(out_view, out, [&] { return u.accumulate(ops.operands[0], options, out_view); });
}

py::object ufunc_outer(const Ufunc &u, const py::handle &a, const py::handle &b, const py::object &out) {
  Operands ops;
  add_input(ops, a);
  add_input(ops, b);
  const std::optional<Out> out_view = method_out(ops, out);
  return run_method(out_view, out, [&] { return u.outer(ops.operands[0], ops.operands[1], out_view); });
}

void bind_ufunc(py::module_ &m) {
  py::class_<Ufunc>(m, "Ufunc", "A compiled ufunc of the C++ runtime (the decorators wrap it).")
      .def_property_readonly("name", &Ufunc::name)
      .def_property_readonly("signatures", &Ufunc::signatures)
      .def_property_readonly("nout", &Ufunc::nout)
      .def_property_readonly("layout", &Ufunc::layout)
      .def("__call__", &ufunc_call)
      .def("reduce", &ufunc_reduce, py::arg("a"), py::arg("axis") = 0, py::arg("keepdims") = false,
           py::arg("initial") = py::none(), py::arg("out") = py::none(), py::arg("dtype") = py::none(),
           py::arg("where") = py::none())
      .def("accumulate", &ufunc_accumulate, py::arg("a"), py::arg("axis") = 0, py::arg("out") = py::none(),
           py::arg("dtype") = py::none())
      .def("outer", &ufunc_outer, py::arg("a"), py::arg("b"), py::arg("out") = py::none())
      .def(
          "ptx",
          [](const Ufunc &u, const std::string &signature, const std::string &arch) {
            py::gil_scoped_release release;
            return u.ptx(signature, arch);
          },
          py::arg("signature"), py::arg("arch") = "sm_90");
}

}  // namespace

/// ufjit.set_devices(): the device set the process's Runtime is made with.
void bind_device_set(py::module_ &m) {
  m.def(
      "set_devices",
      [](const py::object &devices) {
        std::vector<int> set;
        if (py::isinstance<py::str>(devices)) {
          set = parse_device_set(devices.cast<std::string>(), "set_devices");
        } else if (py::isinstance<py::int_>(devices)) {
          set = {devices.cast<int>()};
        } else {
          set = devices.cast<std::vector<int>>();
        }
        if (made_runtime.load() != nullptr) {
          throw py::value_error("ufjit.set_devices() must come before the first ufunc, kernel or array: the "
                                "process's runtime is made already (or set UFJIT_DEVICES before starting Python)");
        }
        requested_devices = std::move(set);
      },
      py::arg("devices"),
      "The CUDA devices this process computes on: 'all', an ordinal, or a list of ordinals (the first is the "
      "default device). A call of host arrays of 2^20 elements or more is split across them. Call it before "
      "anything else of ufjit; UFJIT_DEVICES wins over it.");
}

PYBIND11_MODULE(_ufjit, m) {
  m.doc() = "ufjit's C++ runtime seen from Python (use the `ufjit` package).";
  main_thread_ident();  // while the GIL is held: calls ask it without
  register_errors(m);
  py::class_<DeviceArray> device_array = bind_device_array(m);
  bind_dlpack(m, device_array);
  bind_stream(m);
  bind_ufunc(m);
  bind_kernel(m);
  m.def("load", &load, py::arg("source"), py::arg("source_name") = "<string>",
        py::arg("link") = std::vector<std::string>{}, py::arg("base_dir") = "",
        "Compiles every @vectorize/@guvectorize of a source: {name: Ufunc}; `link` names CUDA C++ files for its "
        "declare_device functions (relative ones in `base_dir`). Raises CompileError.");
  m.def(
      "to_device",
      [](const py::object &obj) {
        Operands ops;
        add_input(ops, obj);
        const Operand &op = ops.operands.front();
        if (op.kind != Operand::Kind::Array || op.array.residence != Residence::Host) {
          throw py::type_error("to_device takes a host array (a NumPy array or anything np.asarray takes)");
        }
        Array device;
        {
          py::gil_scoped_release release;
          device = runtime().to_device(op.array);
        }
        return DeviceArray{std::make_shared<Array>(std::move(device))};
      },
      py::arg("array"), "Copies a host array to a new C-contiguous ufjit device array.");
  m.def(
      "device_empty",
      [](const std::vector<int64_t> &shape, const py::object &dtype) {
        const DType d = from_numpy_dtype(py::dtype::from_args(dtype));
        return DeviceArray{std::make_shared<Array>(runtime().device_empty(d, shape))};
      },
      py::arg("shape"), py::arg("dtype"), "An uninitialised C-contiguous device array.");
  m.def("synchronize", [] {
    py::gil_scoped_release release;
    runtime().synchronize();
  });
  // Registered with atexit by __init__.py. The Runtime is never destroyed
  // (above), so nothing joined its background worker, which may still be
  // compiling an optimised kernel (tiering) when the interpreter exits: the
  // process then ran the libraries' static destructors under it and died of
  // SIGSEGV after the script's last line. Python's atexit runs first.
  m.def("_finish_background_work", [] {
    Runtime *rt = made_runtime.load();
    if (rt == nullptr) {
      return;  // never used: nothing to wait for (and no context to make now)
    }
    py::gil_scoped_release release;
    try {
      rt->synchronize();
    } catch (const std::exception &) {
      // At exit a failed synchronisation has no caller left to tell; the
      // point is only that the worker is idle.
    }
  });
  bind_device_set(m);
  m.def("default_target", [] { return runtime().target() == TargetKind::Cuda ? "cuda" : "cpu"; });
  m.def("version", &version);
}

}  // namespace ufjit::python
