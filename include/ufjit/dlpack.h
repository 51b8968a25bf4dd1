// ufjit public API: DLPack in and out (include it only where you exchange
// tensors; <ufjit/ufjit.h> does not pull in dlpack.h).
//
//   DLManagedTensor *t = producer();              // PyTorch, CuPy, JAX, ...
//   ufjit::Array a = ufjit::from_dlpack(t);       // owns t: calls its deleter
//   ufjit::Array r = f(a, 2.0);                   // host or device, no copy
//   DLManagedTensor *out = ufjit::to_dlpack(std::move(r));  // consumer calls out->deleter(out)
//
// Tensors on the host (kDLCPU, kDLCUDAHost) and CUDA devices (kDLCUDA), of
// every dtype of the language: bool (DLPack's kDLBool, code 6, 8 bits),
// int8-64, uint8-64, float16/32/64, complex64/128, with lanes == 1. DLPack
// strides count elements (NULL: C-contiguous); ufjit's count bytes. A device
// tensor's memory must belong to the CUDA primary context of its device (as
// PyTorch's, CuPy's and ufjit's own do); ufjit does not synchronise with the
// producer's stream, so the producer's work must be complete (DLPack's rule).
// DLPack 1.0's DLManagedTensorVersioned is not offered yet: Debian 12's
// libdlpack-dev is DLPack 0.6, whose header lacks it.
#pragma once

#include <dlpack/dlpack.h>

#include "ufjit/array.h"
#include "ufjit/export.h"

namespace ufjit {

/// The most dimensions an imported tensor may have (NumPy's NPY_MAXDIMS).
inline constexpr int kMaxDLPackDims = 64;

/// Takes ownership of `tensor`: the returned Array views its data (plus
/// byte_offset) and calls `tensor->deleter(tensor)` once, when the Array and
/// every Array re-viewing it are gone. Throws InputError for a null tensor,
/// another device type, a dtype ufjit lacks (bfloat16, lanes != 1, odd bit
/// widths), more than kMaxDLPackDims dimensions, a negative extent, or
/// strides whose byte size overflows; the deleter has then already run,
/// exactly once.
UFJIT_API Array from_dlpack(DLManagedTensor *tensor);
/// The same, marking the Array read-only (ArrayView::read_only) when the
/// producer said its memory must not be written (DLPack 1.0's
/// DLPACK_FLAG_BITMASK_READ_ONLY, which a DLManagedTensor cannot carry):
/// a call that would write it then throws InputError.
UFJIT_API Array from_dlpack(DLManagedTensor *tensor, bool read_only);

/// Hands `array` out as a DLPack tensor (kDLCPU for host arrays, kDLCUDA with
/// the device ordinal for device arrays; strides in elements). The caller
/// owns the result and frees it with `result->deleter(result)`, which
/// releases the array. Throws InputError, leaving `array` untouched, for an
/// empty Array or byte strides that are not a multiple of the element size.
/// DLPack 0.6 has no read-only flag: a read-only Array's consumer must not
/// write it.
/// A device array written by `f.async(stream, ...)` must be synchronised
/// (`stream.synchronize()`) before a consumer on another stream reads it.
UFJIT_API DLManagedTensor *to_dlpack(Array &&array);

}  // namespace ufjit
