// ufjit public API: NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Every dtype of ufjit (bool, int8..uint64, float16/32/64, complex64/128),
// little-endian ('<' or '|'), C or Fortran order, any number of dimensions
// (0-d and empty arrays included). A malformed or unsupported file (bad
// magic, truncated data, a bad header, a big-endian or object dtype, a shape
// larger than the data) is an InputError with a message naming the file and
// the problem, never a crash.
#pragma once

#include <string>

#include "ufjit/array.h"
#include "ufjit/export.h"

namespace ufjit {

/// Reads a .npy file into a new host array. A Fortran-ordered file gives a
/// Fortran-strided view (no transpose copy). Throws InputError.
UFJIT_API Array load_npy(const std::string &path);

/// Parses the bytes of a .npy file; `name` appears in error messages.
UFJIT_API Array parse_npy(const std::string &bytes, const std::string &name = "<memory>");

/// The bytes of a .npy file (format 1.0, or 2.0 when the header needs it)
/// holding a host view: C order, or Fortran order when the view is
/// Fortran-contiguous; other strides are copied into C order.
UFJIT_API std::string serialize_npy(const ArrayView &array);

/// Writes a host view to `path` atomically: a temporary file in the same
/// directory, then rename, so a failure leaves no partial file. Throws
/// InputError (device arrays, I/O errors).
UFJIT_API void save_npy(const std::string &path, const ArrayView &array);

}  // namespace ufjit
