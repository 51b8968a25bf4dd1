// The calling convention of generated kernel entries: the contract between
// code generation (which emits the entries) and the runtime (which launches
// them on the GPU with cuLaunchKernel, or calls them on the CPU).
//
// One ufunc signature yields several entries ("variants"):
//
//   Contiguous: every array operand is contiguous, aligned to its element size,
//   and has the output's shape (n elements, C order); 1-D grid-stride loop.
//   Parameters, in order:
//     n            int64       number of elements
//     input i      array  -> a pointer (8 bytes) to element 0
//                  scalar -> the value (see "scalar parameters")
//     out          pointer
//
//   Strided: any byte strides (0 for broadcast dimensions, negative allowed),
//   up to kMaxDims dimensions after the host collapsed contiguous ones.
//   Parameters, in order:
//     n            int64       number of elements (product of shape)
//     ndim         int64       1..kMaxDims
//     shape        Dims        int64[kMaxDims], unused trailing entries 1
//     input i      array  -> a pointer, then its byte strides as Dims
//                  scalar -> the value
//     out          pointer, then its byte strides as Dims
//   Elements are visited in C order of `shape` (linear index -> coordinates).
//
// Scalar parameters (bit i of `scalar_mask` set): passed by value in their
// storage type: bool as 1 byte (0/1), integers as themselves, float16 as its
// 16 raw bits, float32/float64 as themselves, complex64/complex128 as TWO
// parameters (real, imaginary) of the component float type.
//
// On the GPU an entry is a `.entry` of the PTX module taking these parameters
// directly (cuLaunchKernel's kernelParams[k] points at parameter k). On the
// CPU an entry has the C signature `void(int64_t begin, int64_t end, void*
// const* params)`, where params[k] points at parameter k exactly as for the
// GPU (params[0] at n), and it computes elements [begin, end) of n, so that a
// thread pool can split the range.
//
// index32: every element index and byte offset fits in int32, so the loop may
// use 32-bit arithmetic (cheaper on the GPU). The runtime picks it per call.
#pragma once

#include <cstdint>
#include <string>

namespace ufjit::codegen {

inline constexpr int kMaxDims = 8;

/// Byte strides or shape, one int64 per dimension; a single kernel parameter
/// of 64 bytes, aligned to 8.
struct Dims {
  int64_t v[kMaxDims];
};

enum class Layout : uint8_t { Contiguous, Strided };

struct KernelVariant {
  Layout layout = Layout::Contiguous;
  bool index32 = false;
  uint32_t scalar_mask = 0;  // bit i: input i is a scalar parameter

  /// Stable, readable suffix used in entry names: "contig_i32", "strided_i64_s1"
  /// (the scalar mask in hex, omitted when 0).
  std::string suffix() const;
  bool operator==(const KernelVariant &o) const {
    return layout == o.layout && index32 == o.index32 && scalar_mask == o.scalar_mask;
  }
};

/// The C signature of a CPU entry.
using CpuEntry = void (*)(int64_t begin, int64_t end, void *const *params);

}  // namespace ufjit::codegen
