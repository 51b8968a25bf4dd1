// CUDA C++ helpers for cube_plus.ufn, written as for Numba's declare_device.
#include "scale.h"  // found beside this file: -I is the file's own folder

// Numba's device ABI: the result through the first pointer, a status returned.
extern "C" __device__ int cube_plus(float *ret, float x, float y) {
  *ret = x * x * x + y;
  return 0;
}

// The C ABI (declare_device(..., abi="c")): the result returned.
extern "C" __device__ float scaled(float x) { return kScale * x; }
