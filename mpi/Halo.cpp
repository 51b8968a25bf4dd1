// Halo exchange for stencil kernels (ufjit/mpi.h, exchange_halo): one
// MPI_Alltoallv of whole rows, so that a halo wider than a neighbour's slab
// takes rows from the ranks beyond it.
#include <algorithm>
#include <climits>
#include <cstring>

#include "MpiUtil.h"
#include "ufjit/mpi.h"

namespace ufjit::mpi {
namespace {

/// The rows a rank holding `own` reads: its own and up to `halo` on each
/// side, within [0, rows). Nothing for a rank without rows.
RowRange extended(RowRange own, int64_t halo, int64_t rows) {
  if (own.count() == 0) {
    return own;
  }
  return RowRange{std::max<int64_t>(0, own.begin - halo), std::min(rows, own.end + halo)};
}

RowRange intersect(RowRange a, RowRange b) {
  const int64_t begin = std::max(a.begin, b.begin);
  return RowRange{begin, std::max(begin, std::min(a.end, b.end))};
}

}  // namespace

HaloRows exchange_halo(const DistArray &a, int64_t halo) {
  const MPI_Comm comm = a.comm();
  const int ranks = comm_size(comm);
  const int rank = comm_rank(comm);
  const int64_t rows = a.shape()[0];
  const int64_t bytes = row_bytes(a.dtype(), a.shape());
  const RowRange own = a.rows();
  const RowRange wanted = extended(own, halo, rows);
  HaloRows result;
  agree(comm, [&] {
    if (halo < 0) {
      throw InputError("exchange_halo takes a halo of 0 rows or more; got " + std::to_string(halo));
    }
    if (bytes > INT_MAX || rows > INT_MAX) {
      throw ShapeError("exchange_halo: rows of " + describe(a.dtype(), a.shape()) + " are too large to send");
    }
    result.rows = Array::host(a.dtype(), std::vector<int64_t>(with_rows(a.shape(), wanted.count())));
  });
  result.first_row = wanted.begin;
  result.before = own.begin - wanted.begin;
  result.after = wanted.end - own.end;
  char *to = static_cast<char *>(result.rows.data());
  if (bytes == 0) {
    return result;
  }
  if (own.count() > 0) {
    std::memcpy(to + result.before * bytes, a.local().data(), static_cast<std::size_t>(own.count() * bytes));
  }
  // Row counts and offsets, per peer, of what this rank sends and receives.
  const std::size_t n = static_cast<std::size_t>(ranks);
  std::vector<int> send_counts(n, 0), send_at(n, 0), receive_counts(n, 0), receive_at(n, 0);
  for (int q = 0; q < ranks; ++q) {
    if (q == rank) {
      continue;
    }
    const RowRange theirs = block_rows(rows, q, ranks);
    const RowRange send = intersect(own, extended(theirs, halo, rows));
    const RowRange receive = intersect(wanted, theirs);
    const std::size_t k = static_cast<std::size_t>(q);
    send_counts[k] = static_cast<int>(send.count());
    send_at[k] = static_cast<int>(send.begin - own.begin);
    receive_counts[k] = static_cast<int>(receive.count());
    receive_at[k] = static_cast<int>(receive.begin - wanted.begin);
  }
  MPI_Datatype row = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &row);
  MPI_Type_commit(&row);
  MPI_Alltoallv(a.local().data(), send_counts.data(), send_at.data(), row, to, receive_counts.data(),
                receive_at.data(), row, comm);
  MPI_Type_free(&row);
  return result;
}

}  // namespace ufjit::mpi
