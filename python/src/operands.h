// Python objects <-> ufjit operands and arrays, for the `ufjit._ufjit`
// extension. Only the public C++ API (include/ufjit) is used.
//
// Operands are read with the GIL held; the views they hold point into the
// Python objects kept alive in `Operands::keep_alive`, so the call itself can
// run with the GIL released.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <ufjit/ufjit.h>

#include <memory>
#include <vector>

namespace ufjit::python {

namespace py = pybind11;

/// A device array owned by ufjit (a call's result, to_device, device_empty),
/// seen from Python through __cuda_array_interface__.
struct DeviceArray {
  std::shared_ptr<Array> array;
  /// Memory its producer lent for reading only (a DLPack 1.0 tensor flagged
  /// read-only): refused where a kernel writes, and exported as read-only.
  bool read_only = false;
};

/// The DLPack Python specification's number for the legacy default stream:
/// ufjit's synchronous calls run on it, and its own streams (blocking) wait
/// for it.
constexpr int64_t kDLPackLegacyStream = 1;

/// The operands of one call, and what keeps their memory alive.
struct Operands {
  std::vector<Operand> operands;
  std::vector<py::object> keep_alive;
  bool any_device = false;
  /// The stream a CUDA DLPack producer is asked to order its work before
  /// (DLPack's numbering: 1 is the legacy default stream); see from_dlpack.
  int64_t dlpack_stream = kDLPackLegacyStream;
};

/// Appends one input: a NumPy array (or anything np.asarray takes), a
/// DeviceArray, an object with __cuda_array_interface__, a NumPy scalar
/// (strong), a Python bool/int/float/complex (weak), or an object with only
/// __dlpack__ (after __cuda_array_interface__ and the buffer protocol; a
/// CUDA producer is asked for `ops.dlpack_stream`; a producer that cannot
/// export, raising BufferError, is read as np.asarray reads it). TypeError
/// otherwise. An `__array__` that raises passes its exception through.
///
/// `written`, when not empty, names an input the kernel writes
/// (`writable_args`) for errors, e.g. "argument 1 ('a') of 'bump'": its
/// memory must then be the caller's and writable. A read-only NumPy array
/// (np.frombuffer of bytes, a read-only memory map, writeable=False, a
/// broadcast view), a read-only device array (__cuda_array_interface__'s
/// data=(ptr, True), a DLPack tensor flagged read-only), a scalar or a
/// list (converted into a new array, so the writes would be lost) is a
/// ValueError, raised before anything runs.
void add_input(Operands &ops, const py::handle &obj, const std::string &written = {});
/// Appends `out`: a writable NumPy array, a DeviceArray or a
/// __cuda_array_interface__ object; `what` names it in errors ("out=").
/// TypeError for another type, ValueError for read-only memory.
void add_output(Operands &ops, const py::handle &obj, const std::string &what = "out=");

/// The producer stream a __cuda_array_interface__ (version 3) names, when
/// the consumer must wait for it; null when none is named. Legacy (1) and
/// per-thread (2) default streams come back as null: ufjit's synchronous
/// calls already run on the legacy default stream.
void *producer_stream(const py::handle &obj);

/// A view of a NumPy array's memory (it must outlive the view).
ArrayView host_view(const py::array &a);

/// A call's result as Python sees it: a NumPy array (host; a NumPy scalar
/// when 0-d) or a DeviceArray.
py::object to_python(Array result);
/// A host ufjit array as a NumPy array that owns it (no copy).
py::array host_to_numpy(Array host);

/// NumPy's dtype for a ufjit dtype, and the reverse (TypeError for dtypes
/// the language lacks: object, strings, datetimes, long double, non-native
/// byte order).
py::dtype to_numpy_dtype(DType dtype);
DType from_numpy_dtype(const py::dtype &dtype);

/// The __cuda_array_interface__ dict of a ufjit device view (`read_only`:
/// its data=(ptr, True) flag).
py::dict cuda_array_interface(const ArrayView &view, bool read_only = false);

}  // namespace ufjit::python
