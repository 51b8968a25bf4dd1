// Block-distributed arrays: the block rule, slabs from each rank or from a
// .npy file, and gathering (ufjit/mpi.h).
#include <sys/stat.h>

#include <algorithm>
#include <climits>

#include "MpiUtil.h"
#include "ufjit/mpi.h"
#include "ufjit/npy.h"

namespace ufjit::mpi {
namespace {

/// MPI-IO counts are ints: larger slabs are read in pieces of this size.
constexpr int64_t kIoChunkBytes = int64_t{1} << 30;

/// "float32[10, 3] C" : what every rank must agree on about a file.
std::string file_fingerprint(const Array &file, int64_t bytes) {
  const bool fortran = !file.view().is_c_contiguous();
  return describe(file.dtype(), file.shape()) + (fortran ? " Fortran-ordered" : "") + ", " +
         std::to_string(bytes) + " bytes";
}

/// The size of the file `path` (already read successfully by load_npy).
int64_t file_size(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    throw InputError("cannot read the size of '" + path + "'");
  }
  return static_cast<int64_t>(st.st_size);
}

/// Reads `bytes` bytes at `offset` of `path` into `dst` through MPI-IO
/// (this rank alone: a failure on one rank cannot leave another waiting in
/// a collective open).
void read_bytes(const std::string &path, int64_t offset, int64_t bytes, void *dst) {
  if (bytes == 0) {
    return;
  }
  MPI_File file = MPI_FILE_NULL;
  check_io(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &file), "open", path);
  char *to = static_cast<char *>(dst);
  int code = MPI_SUCCESS;
  for (int64_t done = 0; done < bytes && code == MPI_SUCCESS;) {
    const int count = static_cast<int>(std::min(kIoChunkBytes, bytes - done));
    MPI_Status status;
    code = MPI_File_read_at(file, offset + done, to + done, count, MPI_BYTE, &status);
    int got = 0;
    MPI_Get_count(&status, MPI_BYTE, &got);
    if (code == MPI_SUCCESS && got != count) {
      MPI_File_close(&file);
      throw InputError("cannot read '" + path + "': the file was truncated while it was read");
    }
    done += count;
  }
  MPI_File_close(&file);
  check_io(code, "read", path);
}

}  // namespace

RowRange block_rows(int64_t rows, int rank, int ranks) {
  // 128-bit products: rank * rows overflows int64 for huge arrays.
  const auto begin = static_cast<__int128>(rank) * rows / ranks;
  const auto end = static_cast<__int128>(rank + 1) * rows / ranks;
  return RowRange{static_cast<int64_t>(begin), static_cast<int64_t>(end)};
}

DistArray::DistArray(MPI_Comm comm, int64_t total_rows, RowRange rows, Array local)
    : comm_(comm),
      dtype_(local.dtype()),
      shape_(with_rows(local.shape(), total_rows)),
      rows_(rows),
      local_(std::move(local)) {}

DistArray DistArray::zeros(MPI_Comm comm, DType dtype, const Dims &shape) {
  const RowRange rows = block_rows(shape.empty() ? 0 : shape[0], comm_rank(comm), comm_size(comm));
  Array local;
  agree(comm, [&] {
    if (shape.empty()) {
      throw ShapeError("a DistArray needs at least one dimension to split; got a 0-d shape");
    }
    local = Array::host(dtype, with_rows(shape, rows.count()));
  });
  return DistArray(comm, shape[0], rows, std::move(local));
}

DistArray DistArray::from_local(MPI_Comm comm, Array local) {
  agree(comm, [&] {
    if (local.empty_handle() || local.residence() != Residence::Host || local.shape().empty()) {
      throw InputError("DistArray::from_local takes a host array of at least one dimension on every rank");
    }
    local = c_contiguous(std::move(local));
  });
  const Dims trailing(local.shape().begin() + 1, local.shape().end());
  check_same_on_every_rank(comm, describe(local.dtype(), trailing),
                           "the dtype and inner dimensions of their slabs");
  const std::vector<int64_t> counts = all_gather(comm, local.shape()[0]);
  int64_t rows = 0;
  for (const int64_t count : counts) {
    rows += count;
  }
  const int ranks = comm_size(comm);
  for (int r = 0; r < ranks; ++r) {
    const RowRange expected = block_rows(rows, r, ranks);
    if (counts[static_cast<std::size_t>(r)] != expected.count()) {
      const ShapeError error("rank " + std::to_string(r) + " of " + std::to_string(ranks) + " holds " +
                             std::to_string(counts[static_cast<std::size_t>(r)]) +
                             " rows, but the block rule gives it " + std::to_string(expected.count()) +
                             " of " + std::to_string(rows) +
                             " (rows [r * rows / ranks, (r + 1) * rows / ranks))");
      throw_agreed(std::make_exception_ptr(error));  // every rank finds it alike
    }
  }
  const RowRange mine = block_rows(rows, comm_rank(comm), ranks);
  return DistArray(comm, rows, mine, std::move(local));
}

DistArray DistArray::read_npy(MPI_Comm comm, const std::string &path) {
  // Every rank checks the file with load_npy (a memory map: its header is
  // read, its data is not), then reads only its own rows.
  Array file;
  int64_t data_offset = 0;
  agree(comm, [&] {
    file = load_npy(path);
    if (file.shape().empty()) {
      throw ShapeError("'" + path + "' holds a 0-d array, which cannot be split over ranks");
    }
    data_offset = file_size(path) - file.size() * static_cast<int64_t>(dtype_size(file.dtype()));
  });
  check_same_on_every_rank(comm, file_fingerprint(file, data_offset), "the file '" + path + "'");
  const RowRange rows = block_rows(file.shape()[0], comm_rank(comm), comm_size(comm));
  const Dims slab_shape = with_rows(file.shape(), rows.count());
  Array local;
  agree(comm, [&] {
    local = Array::host(file.dtype(), std::vector<int64_t>(slab_shape.begin(), slab_shape.end()));
    if (!file.view().is_c_contiguous()) {
      // Fortran order: a rank's rows are not one range of the file.
      ArrayView slab = file.view();
      slab.data = static_cast<char *>(slab.data) + rows.begin * slab.strides[0];
      slab.shape = slab_shape;
      copy_to_c_order(slab, local.data());
      return;
    }
    const int64_t bytes = row_bytes(file.dtype(), file.shape());
    read_bytes(path, data_offset + rows.begin * bytes, rows.count() * bytes, local.data());
  });
  return DistArray(comm, file.shape()[0], rows, std::move(local));
}

Array DistArray::gather(int root) const {
  const int ranks = comm_size(comm_);
  const int64_t bytes = row_bytes(dtype_, shape_);
  Array whole;
  agree(comm_, [&] {
    if (bytes > INT_MAX || shape_[0] > INT_MAX) {
      throw ShapeError("DistArray::gather is for small arrays; " + describe(dtype_, shape_) +
                       " is too large: write it with write_npy");
    }
    if (comm_rank(comm_) == root) {
      whole = Array::host(dtype_, std::vector<int64_t>(shape_.begin(), shape_.end()));
    }
  });
  if (bytes == 0) {
    return whole;
  }
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  std::vector<int> displacements(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const RowRange range = block_rows(shape_[0], r, ranks);
    counts[static_cast<std::size_t>(r)] = static_cast<int>(range.count());
    displacements[static_cast<std::size_t>(r)] = static_cast<int>(range.begin);
  }
  MPI_Datatype row = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &row);
  MPI_Type_commit(&row);
  MPI_Gatherv(local_.data(), static_cast<int>(rows_.count()), row,
              whole.empty_handle() ? nullptr : whole.data(), counts.data(), displacements.data(), row, root,
              comm_);
  MPI_Type_free(&row);
  return whole;
}

void DistArray::write_npy(const std::string &path) const {
  mpi::write_npy(comm_, {{path, this, {}}});
}

}  // namespace ufjit::mpi
