// The first GPU compile in a process, taken off the user's first call.
//
// LLVM's first compile in a process costs several milliseconds more than the
// later ones (first touch of its code pages, lazily built static state,
// reading libdevice). A Runtime on the CUDA target spends 100 ms or more in
// the driver creating its context before any compile can start, so a small
// kernel compiled on another thread meanwhile pays that cost where nobody
// waits for it.
#pragma once

#include <future>

namespace ufjit::cuda {

/// Starts compiling a small float32 kernel (math.sin, so that libdevice is
/// read too) to PTX on another thread, when the CUDA driver library is
/// present; otherwise returns an empty future. Never throws: a failed
/// warm-up changes nothing.
std::future<void> start_compiler_warm_up();

}  // namespace ufjit::cuda
