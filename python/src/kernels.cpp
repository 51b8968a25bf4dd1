// Explicit kernels (@cuda.jit, LANGUAGE.md section 9) seen from Python:
// `_ufjit.kernel(source, name)` compiles a source's kernel and
// `Kernel.launch(grid, block, shared_bytes, stream, *args)` runs it with
// the GIL released. Numba's launch syntax (`kernel[grid, block](...)`) is
// the Python dispatcher's, python/ufjit/_kernels.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "module.h"

namespace ufjit::python {
namespace {

/// A grid's or a block's extents: an int or a sequence of 1 to 3 ints, x
/// first (CUDA's dim3, as Numba takes them).
Dim3 dim3_of(const py::handle &obj, const char *what) {
  if (py::isinstance<py::int_>(obj)) {
    return Dim3(obj.cast<int64_t>());
  }
  const auto items = obj.cast<std::vector<int64_t>>();
  if (items.empty() || items.size() > 3) {
    throw py::value_error(std::string(what) + " takes an int or 1 to 3 ints, not " +
                          std::to_string(items.size()));
  }
  Dim3 d;
  d.x = items[0];
  d.y = items.size() > 1 ? items[1] : 1;
  d.z = items.size() > 2 ? items[2] : 1;
  return d;
}

/// Whether the memory `kept` (the object an array operand keeps alive: a
/// NumPy array, a DeviceArray, a __cuda_array_interface__ object) is lent
/// for reading only. The launch refuses such an array with its own message:
/// a kernel may write any array it is given.
bool lent_read_only(const py::handle &kept) {
  if (py::isinstance<py::array>(kept)) {
    return !py::reinterpret_borrow<py::array>(kept).writeable();
  }
  if (py::isinstance<DeviceArray>(kept)) {
    return kept.cast<const DeviceArray &>().read_only;
  }
  if (py::hasattr(kept, "__cuda_array_interface__")) {
    const py::dict cai = kept.attr("__cuda_array_interface__");
    return py::tuple(cai["data"])[1].cast<bool>();
  }
  return false;
}

/// " ('x')": the name of parameter `k` for messages; empty past the last.
std::string name_of(const std::vector<std::string> &params, std::size_t k) {
  return k < params.size() ? " ('" + params[k] + "')" : "";
}

/// The operands of a launch of `kernel`: arrays by reference (the caller's
/// memory, flagged read-only where its owner lent it so), scalars by value.
/// A list or tuple is refused: it would become a new array, and the
/// kernel's writes to it would be lost; so is a 0-d array, which the
/// kernel language has no type for yet.
void add_arguments(Operands &ops, const Kernel &kernel, const py::args &args) {
  const std::vector<std::string> &params = kernel.parameters();
  for (std::size_t k = 0; k < args.size(); ++k) {
    const py::handle arg = args[k];
    if (py::isinstance<py::list>(arg) || py::isinstance<py::tuple>(arg)) {
      throw py::type_error("argument " + std::to_string(k + 1) + name_of(params, k) + " of kernel '" + kernel.name() +
                           "' is a " + py::str(py::type::handle_of(arg).attr("__name__")).cast<std::string>() +
                           ": a kernel takes NumPy arrays, device arrays and scalars");
    }
    add_input(ops, arg);
    Operand &op = ops.operands.back();
    if (op.kind != Operand::Kind::Array) {
      continue;
    }
    if (op.array.shape.empty()) {
      throw py::type_error("argument " + std::to_string(k + 1) + name_of(params, k) + " of kernel '" +
                           kernel.name() + "' is a 0-d array, which kernels do not take yet: pass a.reshape(1)");
    }
    op.array.read_only = lent_read_only(ops.keep_alive.back());
  }
}

/// Kernel.launch and launch_on: `target` None is the runtime's default
/// target (the GPU when there is one; UFJIT_TARGET overrides).
void launch(const Kernel &kernel, const py::object &target, const py::object &grid, const py::object &block,
            int64_t shared_bytes, const py::object &stream, const py::args &args) {
  Operands ops;
  Stream *on = stream.is_none() ? nullptr : stream.cast<PyStream &>().stream.get();
  if (on != nullptr) {  // DLPack producers order their work before the launch's stream
    const auto handle = reinterpret_cast<uintptr_t>(on->handle());
    ops.dlpack_stream = handle == 0 ? kDLPackLegacyStream : static_cast<int64_t>(handle);
  }
  add_arguments(ops, kernel, args);
  std::vector<void *> producers;
  for (const py::handle &a : args) {
    if (void *p = producer_stream(a)) {
      producers.push_back(p);
    }
  }
  const std::optional<TargetKind> kind = parse_target(target);
  const LaunchConfig config{dim3_of(grid, "grid"), dim3_of(block, "block"), shared_bytes, on};
  py::gil_scoped_release release;
  wait_for_producers(producers, on);
  if (kind) {
    kernel.launch_on(*kind, config, ops.operands);
  } else {
    kernel.launch_operands(config, ops.operands);
  }
}

}  // namespace

void bind_kernel(py::module_ &m) {
  py::class_<Kernel>(m, "Kernel", "A compiled @cuda.jit kernel of the C++ runtime (ufjit.cuda.jit wraps it).")
      .def_property_readonly("name", &Kernel::name)
      .def_property_readonly("parameters", &Kernel::parameters)
      .def_property_readonly("signatures", &Kernel::signatures)
      .def(
          "launch",
          [](const Kernel &k, const py::object &grid, const py::object &block, int64_t shared_bytes,
             const py::object &stream, const py::args &args) {
            launch(k, py::none(), grid, block, shared_bytes, stream, args);
          },
          py::arg("grid"), py::arg("block"), py::arg("shared_bytes"), py::arg("stream"),
          "Runs the kernel over `grid` blocks of `block` threads (ints or tuples of 1 to 3 ints) on the default "
          "target. `stream`: None (synchronous) or a ufjit.Stream. Arrays are passed by reference.")
      .def(
          "launch_on",
          [](const Kernel &k, const py::object &target, const py::object &grid, const py::object &block,
             int64_t shared_bytes, const py::object &stream, const py::args &args) {
            launch(k, target, grid, block, shared_bytes, stream, args);
          },
          py::arg("target"), py::arg("grid"), py::arg("block"), py::arg("shared_bytes"), py::arg("stream"),
          "launch on 'cpu' or 'cuda' instead of the default target.")
      .def(
          "ptx",
          [](const Kernel &k, const std::string &signature, const std::string &arch) {
            py::gil_scoped_release release;
            return k.ptx(signature, arch);
          },
          py::arg("signature"), py::arg("arch") = "sm_90")
      .def("__repr__", [](const Kernel &k) { return "<ufjit.Kernel " + k.name() + ">"; });
  m.def(
      "kernel",
      [](const std::string &source, const std::string &name) {
        py::gil_scoped_release release;
        return runtime().kernel(source, name);
      },
      py::arg("source"), py::arg("name") = "",
      "Compiles the @cuda.jit kernel `name` of a source (empty: its only one). Raises CompileError.");
}

}  // namespace ufjit::python
