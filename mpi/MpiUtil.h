// Small helpers the files of mpi/ share: ranks, strings and checked MPI-IO.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "ufjit/mpi.h"

namespace ufjit::mpi {

/// MPI_Comm_rank and MPI_Comm_size as values.
int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

/// Sends `text` from `root` to every rank of `comm` (collective).
void broadcast_string(MPI_Comm comm, std::string &text, int root);

/// Throws InputError "<what> <path>: <MPI's error string>" unless `code` is
/// MPI_SUCCESS (MPI-IO returns its errors; it never aborts on them).
void check_io(int code, const std::string &what, const std::string &path);

/// Bytes of one row of an array of `shape` (the product of all but the
/// outer dimension, times the element size).
int64_t row_bytes(DType dtype, const Dims &shape);

/// `shape` with its outer dimension replaced by `rows`.
Dims with_rows(const Dims &shape, int64_t rows);

/// Every rank's value of `mine`, in rank order (collective).
std::vector<int64_t> all_gather(MPI_Comm comm, int64_t mine);

/// Throws `error`, which every rank of the communicator throws alike from
/// what they all know (a check of gathered values), as agree() would have:
/// agreed() is true of it.
[[noreturn]] void throw_agreed(const std::exception_ptr &error);

/// "float32[3, 4]".
std::string describe(DType dtype, const Dims &shape);

}  // namespace ufjit::mpi

namespace ufjit::mpi {

/// A C-contiguous view of `shape` over `data`.
ArrayView c_view(void *data, DType dtype, const Dims &shape);

/// Copies the elements of the host view `src`, in C order, to `dst`
/// (src.size() * itemsize bytes): a slab of a Fortran-ordered file, or a
/// result that is not C-contiguous.
void copy_to_c_order(const ArrayView &src, void *dst);

/// `array` itself when it is C-contiguous, else a C-contiguous copy.
Array c_contiguous(Array array);

}  // namespace ufjit::mpi
