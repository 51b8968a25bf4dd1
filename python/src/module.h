// What the extension's files share beyond operands: the process's Runtime,
// the Python-visible stream, and the binders of module.cpp's neighbours.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "operands.h"

namespace ufjit::python {

/// The process's Runtime, made at first use and never destroyed (module.cpp
/// says why).
Runtime &runtime();

/// A Python-visible stream: one made by ufjit or a borrowed CUstream.
struct PyStream {
  std::shared_ptr<Stream> stream;
  bool borrowed = false;
};

/// A call's `target=`: None (the default target), "cpu" or "cuda";
/// ValueError for another name.
std::optional<TargetKind> parse_target(const py::object &target);

/// Waits, without the GIL, for the producer streams of a call's
/// __cuda_array_interface__ operands (producer_stream) but `stream`, the
/// one the call runs on (null: the legacy default stream, which waits for
/// none).
void wait_for_producers(const std::vector<void *> &producers, const Stream *stream);

/// ufjit._ufjit.kernel and its Kernel class: explicit @cuda.jit kernels
/// (kernels.cpp).
void bind_kernel(py::module_ &m);

}  // namespace ufjit::python
