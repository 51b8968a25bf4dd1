#include "MpiUtil.h"

#include <cstring>

namespace ufjit::mpi {

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int comm_size(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

void broadcast_string(MPI_Comm comm, std::string &text, int root) {
  int64_t length = static_cast<int64_t>(text.size());
  MPI_Bcast(&length, 1, MPI_INT64_T, root, comm);
  text.resize(static_cast<std::size_t>(length));
  if (length > 0) {
    MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root, comm);
  }
}

void check_io(int code, const std::string &what, const std::string &path) {
  if (code == MPI_SUCCESS) {
    return;
  }
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw InputError("cannot " + what + " '" + path +
                   "': " + std::string(text, static_cast<std::size_t>(length)));
}

int64_t row_bytes(DType dtype, const Dims &shape) {
  int64_t bytes = static_cast<int64_t>(dtype_size(dtype));
  for (std::size_t i = 1; i < shape.size(); ++i) {
    bytes *= shape[i];
  }
  return bytes;
}

Dims with_rows(const Dims &shape, int64_t rows) {
  Dims out = shape;
  out[0] = rows;
  return out;
}

std::vector<int64_t> all_gather(MPI_Comm comm, int64_t mine) {
  std::vector<int64_t> all(static_cast<std::size_t>(comm_size(comm)));
  MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm);
  return all;
}

void check_same_on_every_rank(MPI_Comm comm, const std::string &fingerprint, const std::string &what) {
  std::string first = fingerprint;
  broadcast_string(comm, first, 0);
  const int differs = first != fingerprint ? comm_rank(comm) : 0;
  int rank = 0;
  MPI_Allreduce(&differs, &rank, 1, MPI_INT, MPI_MAX, comm);
  if (rank == 0) {
    return;
  }
  std::string other = fingerprint;
  broadcast_string(comm, other, rank);
  const ShapeError error("the ranks disagree on " + what + ": rank 0 has " + first + ", rank " +
                         std::to_string(rank) + " has " + other +
                         " (every rank must see the same files and pass the same shapes)");
  throw_agreed(std::make_exception_ptr(error));  // every rank finds it alike
}

std::string describe(DType dtype, const Dims &shape) {
  std::string text = std::string(dtype_name(dtype)) + "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace ufjit::mpi

namespace ufjit::mpi {
namespace {

void copy_dimension(const ArrayView &src, std::size_t dim, const char *from, char *&to) {
  const std::size_t itemsize = dtype_size(src.dtype);
  for (int64_t i = 0; i < src.shape[dim]; ++i) {
    const char *element = from + i * src.strides[dim];
    if (dim + 1 == src.shape.size()) {
      std::memcpy(to, element, itemsize);
      to += itemsize;
    } else {
      copy_dimension(src, dim + 1, element, to);
    }
  }
}

}  // namespace

ArrayView c_view(void *data, DType dtype, const Dims &shape) {
  ArrayView view;
  view.data = data;
  view.dtype = dtype;
  view.shape = shape;
  view.strides = ArrayView::c_strides(shape, dtype_size(dtype));
  return view;
}

void copy_to_c_order(const ArrayView &src, void *dst) {
  char *to = static_cast<char *>(dst);
  if (src.shape.empty()) {
    std::memcpy(to, src.data, dtype_size(src.dtype));
    return;
  }
  copy_dimension(src, 0, static_cast<const char *>(src.data), to);
}

Array c_contiguous(Array array) {
  if (array.view().is_c_contiguous()) {
    return array;
  }
  Array copy = Array::host(array.dtype(), std::vector<int64_t>(array.shape().begin(), array.shape().end()));
  copy_to_c_order(array.view(), copy.data());
  return copy;
}

}  // namespace ufjit::mpi
