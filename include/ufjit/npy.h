// ufjit public API: NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Every dtype of ufjit (bool, int8..uint64, float16/32/64, complex64/128),
// little-endian ('<' or '|'), C or Fortran order, any number of dimensions
// (0-d and empty arrays included). A malformed or unsupported file (bad
// magic, truncated data, a bad header, a big-endian or object dtype, a shape
// larger than the data, bytes after the data) is an InputError with a message naming the file and
// the problem, never a crash.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "ufjit/array.h"
#include "ufjit/export.h"

namespace ufjit {

/// Reads a .npy file as a host array. A regular file only: a directory,
/// FIFO or device is refused at once (never read, never waited on). The file
/// is memory-mapped privately (copy-on-write): the array points into the
/// mapping, which lives as long as the Array, so peak memory is the file's
/// pages, not a copy. The file's size must match the header exactly. A
/// Fortran-ordered file gives a Fortran-strided view (no transpose copy).
/// Throws InputError. (Truncating the file while the array is alive is
/// undefined, as with any mapping: SIGBUS.)
UFJIT_API Array load_npy(const std::string &path);

/// Parses the bytes of a .npy file; `name` appears in error messages.
UFJIT_API Array parse_npy(const std::string &bytes, const std::string &name = "<memory>");

/// Streams the bytes of a .npy file for `array` to `sink` in pieces (the
/// header, then the data straight from the array when it is C- or
/// Fortran-contiguous): writing a file needs no second copy of the data.
UFJIT_API void write_npy(const ArrayView &array, const std::function<void(const void *, std::size_t)> &sink);

/// The bytes of a .npy file (format 1.0, or 2.0 when the header needs it)
/// holding a host view: C order, or Fortran order when the view is
/// Fortran-contiguous; other strides are copied into C order.
UFJIT_API std::string serialize_npy(const ArrayView &array);

/// Writes a host view to `path` through an OutputFile (ufjit/files.h): a
/// regular file is replaced atomically (temporary file, fsync, rename,
/// mode kept), a symlink's target is written, a device or FIFO is written
/// through; a failure leaves no partial file. Throws InputError (device
/// arrays, read-only files, I/O errors).
UFJIT_API void save_npy(const std::string &path, const ArrayView &array);

}  // namespace ufjit
