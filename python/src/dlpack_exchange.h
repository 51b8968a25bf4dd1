// DLPack between Python and ufjit (the DLPack Python specification): taking
// `__dlpack__` objects and "dltensor" capsules in, handing DeviceArrays out.
// The C++ conversion itself is ufjit::from_dlpack / ufjit::to_dlpack
// (include/ufjit/dlpack.h); this file does the capsule protocol around it.
#pragma once

#include "operands.h"

namespace ufjit::python {

/// True for an object that offers `__dlpack__` (NumPy >= 1.22, CuPy,
/// PyTorch, JAX) or is a PyCapsule.
bool has_dlpack(const py::handle &obj);

/// ufjit.from_dlpack: consumes the "dltensor" capsule of `obj` (or `obj`
/// itself when it is one), renaming it "used_dltensor"; the tensor's deleter
/// then runs exactly once, when the returned array is gone. A CUDA producer
/// is asked for its capsule with `__dlpack__(stream=cuda_stream)`, the
/// stream ufjit will read it on, so that the producer orders its pending
/// work before ufjit's (the legacy default stream, 1, unless an async call
/// names its stream). Producers are asked for a DLPack 1.0 tensor first
/// (`max_version=(1, 0)`), then, if they answer TypeError, for a 0.x one.
/// Returns a NumPy array for host tensors (zero-copy; read-only when a 1.x
/// tensor is flagged read-only) and a DeviceArray for CUDA tensors
/// (zero-copy; it keeps the tensor alive; DeviceArray::read_only from the
/// flag). ValueError for a consumed capsule, BufferError (the capsule left
/// unconsumed) for a major version other than 0 and 1, TypeError for an
/// object without `__dlpack__`, ufjit.InputError for a device or dtype
/// ufjit does not take.
py::object from_dlpack(const py::handle &obj, int64_t cuda_stream = kDLPackLegacyStream);

/// A "dltensor" capsule that owns `array` (a Holder-sharing view of it):
/// its consumer calls the deleter; a capsule never consumed releases the
/// array when it is collected.
py::capsule export_dlpack(Array array);

/// Binds ufjit.from_dlpack, DeviceArray.__dlpack__/__dlpack_device__ and
/// the test helper _export_dlpack.
void bind_dlpack(py::module_ &m, py::class_<DeviceArray> &device_array);

}  // namespace ufjit::python
