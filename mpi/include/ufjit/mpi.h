// ufjit over MPI: ufuncs applied to arrays split across the ranks of a
// communicator (docs/guide/mpi.md).
//
//   ufjit::mpi::Session session(&argc, &argv);          // MPI_Init, once
//   ufjit::Runtime rt(ufjit::mpi::rank_runtime_options(session.comm()));
//   auto f = rt.load_file("gauss.ufn")["gaussian_pdf"];
//   auto x = ufjit::mpi::DistArray::read_npy(session.comm(), "x.npy");
//   auto y = ufjit::mpi::apply(f, {x, 0.0, 1.0});          // each rank its rows
//   ufjit::mpi::write_npy(session.comm(), {{"y.npy", &y[0]}});
//
// A library of its own (the CMake target ufjit_mpi, built where MPI is
// found) over ufjit's public API only: the core never learns MPI.
//
// Every function here is collective: each rank of the communicator calls it,
// in the same order, with the same arguments (its own slab aside). A failure
// on any rank (a bad file, memory, a kernel's `raise`) makes the call throw
// on every rank, so that no rank waits for another that gave up: the rank
// that failed throws its own error, the others throw RemoteError.
#pragma once

// MPI's C API only: not the C++ bindings that MPI 3 removed (which Open MPI's
// mpi.h would otherwise pull in, with their warnings).
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ufjit/ufjit.h"

namespace ufjit::mpi {

/// Rows [begin, end) of an array's outer dimension.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
  /// The number of rows in the range.
  int64_t count() const { return end - begin; }
};

/// The block rule that splits `rows` over `ranks`: rank r holds rows
/// [r * rows / ranks, (r + 1) * rows / ranks), in integer division. Block
/// sizes differ by at most one (10 rows over 4 ranks: 2, 3, 2, 3), and a
/// rank holds no row when there are fewer rows than ranks.
RowRange block_rows(int64_t rows, int rank, int ranks);

/// What kind of ufjit error a rank failed with, so that every rank can
/// report it the same way (the tool's exit code, for one).
enum class ErrorKind : uint8_t {
  Error,        ///< ufjit::Error of no more specific kind
  Input,        ///< InputError: a bad file, a handle or array that cannot be used
  Shape,        ///< ShapeError
  Dispatch,     ///< DispatchError
  Device,       ///< DeviceError
  Kernel,       ///< KernelError: the kernel's own `raise`
  Compile,      ///< CompileError
  Internal,     ///< InternalError
  OutOfMemory,  ///< std::bad_alloc
  Other,        ///< any other exception
};

/// Thrown on every rank but the one that failed, when a collective step
/// failed on another rank: what() is that rank's message prefixed with
/// "rank R of N: ".
class RemoteError : public Error {
 public:
  RemoteError(std::string what, int rank, ErrorKind kind)
      : Error(std::move(what)), rank_(rank), kind_(kind) {}
  /// The rank whose error this reports (the lowest that failed).
  int rank() const { return rank_; }
  /// The kind of error that rank threw.
  ErrorKind kind() const { return kind_; }

 private:
  int rank_ = 0;
  ErrorKind kind_ = ErrorKind::Error;
};

/// Runs `step` on this rank, then agrees with every rank of `comm` on
/// whether all succeeded. When one failed, the lowest such rank rethrows its
/// own exception and every other rank throws RemoteError with its message:
/// every rank leaves together, and none hangs in a later collective call.
/// A collective call of its own: every rank must call it.
void agree(MPI_Comm comm, const std::function<void()> &step);

/// Whether `error` is the one agree() last threw on this thread, so that
/// every rank knows of the failure and may leave in order (MPI_Finalize). An
/// error that is not (one rank's alone) must end the job with MPI_Abort:
/// the other ranks cannot learn of it and would wait for this one.
bool agreed(const std::exception_ptr &error);

/// Throws ShapeError on every rank unless every rank of `comm` passed the
/// same `fingerprint` (text describing what it is about to work on: dtypes
/// and shapes): "the ranks disagree on <what>: rank 0 has ..., rank R has
/// ...". For the checks that must hold before any work starts, such as
/// ranks that see different files at one path. Collective.
void check_same_on_every_rank(MPI_Comm comm, const std::string &fingerprint, const std::string &what);

/// MPI for the lifetime of a program: MPI_Init_thread (funneled: ufjit's
/// worker threads never call MPI) unless MPI is already initialised, and
/// MPI_Finalize on destruction when this Session initialised it.
class Session {
 public:
  /// Initialises MPI (argc and argv may be null). Throws Error when MPI
  /// cannot be initialised.
  Session(int *argc, char ***argv);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// MPI_COMM_WORLD.
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  /// This process's rank in MPI_COMM_WORLD.
  int rank() const { return rank_; }
  /// The number of ranks of MPI_COMM_WORLD.
  int size() const { return size_; }

 private:
  bool owns_ = false;
  int rank_ = 0;
  int size_ = 1;
};

/// The number of ranks started under a launcher this process runs under,
/// read from its environment without initialising MPI
/// (OMPI_COMM_WORLD_SIZE of Open MPI's mpirun, PMI_SIZE of MPICH's and
/// Slurm's); 1 outside a launcher.
int launcher_ranks();

/// This rank's index among the ranks of its host: Open MPI's
/// OMPI_COMM_WORLD_LOCAL_RANK, else the rank in the shared-memory
/// communicator MPI_Comm_split_type makes (collective in that case).
int local_rank(MPI_Comm comm);

/// The number of CUDA devices the driver (libcuda.so.1, opened at run
/// time) reports; 0 without a driver or a device.
int cuda_device_count();

/// `options` for this rank's Runtime: each rank binds one GPU, its local
/// rank modulo the host's device count (RuntimeOptions::device), so that
/// the ranks of a host spread over its GPUs; with no GPU (or target Cpu),
/// the CPU target. A set of devices given in `options` is kept as it is.
RuntimeOptions rank_runtime_options(MPI_Comm comm, RuntimeOptions options = {});

/// An N-d array split on its outer dimension over the ranks of a
/// communicator by the block rule (block_rows): each rank holds its rows as
/// a C-contiguous host Array, its slab. The global dtype and shape are the
/// same on every rank. Move-only, as Array.
class DistArray {
 public:
  DistArray() = default;

  /// A zero-filled array of `shape` (at least one dimension). Collective.
  static DistArray zeros(MPI_Comm comm, DType dtype, const Dims &shape);
  /// Takes each rank's slab: host arrays of one dtype whose shapes agree
  /// past the outer dimension, with the rows the block rule gives each
  /// rank for their total. Collective; throws ShapeError on every rank,
  /// before any work, when the ranks' slabs do not fit together. A slab
  /// that is not C-contiguous is copied.
  static DistArray from_local(MPI_Comm comm, Array local);
  /// Reads this rank's rows of the .npy file `path` through MPI-IO (each
  /// rank its slab of the one file; a Fortran-ordered file is read through
  /// a memory map instead). Every rank checks the header; ranks that see
  /// different files (a path not on a shared file system) are a ShapeError.
  /// Throws InputError for a bad file, as load_npy does. Collective.
  static DistArray read_npy(MPI_Comm comm, const std::string &path);

  /// Writes the array to the .npy file `path` (write_npy below). Collective.
  void write_npy(const std::string &path) const;
  /// The whole array on rank `root` (an empty Array on the others), for
  /// small results. Collective.
  Array gather(int root = 0) const;

  /// The communicator the array is split over.
  MPI_Comm comm() const { return comm_; }
  /// The element type.
  DType dtype() const { return dtype_; }
  /// The global shape.
  const Dims &shape() const { return shape_; }
  /// This rank's rows of the outer dimension.
  RowRange rows() const { return rows_; }
  /// This rank's slab: shape() with rows().count() rows, C-contiguous.
  const Array &local() const { return local_; }
  /// False for a default-constructed (or moved-from) DistArray.
  bool valid() const { return !local_.empty_handle(); }

  /// Wraps a slab already known to fit (what apply and the methods make):
  /// this rank's `rows` of `total_rows`; from_local checks one that is not.
  DistArray(MPI_Comm comm, int64_t total_rows, RowRange rows, Array local);

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  DType dtype_ = DType::Float64;
  Dims shape_;
  RowRange rows_;
  Array local_;
};

/// One .npy file to write: a DistArray (each rank its slab), or an array
/// that every rank holds whole (rank 0's is written).
struct NpyOutput {
  std::string path;                  ///< the file to write
  const DistArray *split = nullptr;  ///< a distributed array, or
  ArrayView whole;                   ///< a host array held by every rank
};

/// Writes the files through MPI-IO: rank 0 writes each header, every rank
/// its slab at its offset, into a temporary file next to each target; after
/// every rank has written (a barrier), rank 0 renames them into place. A
/// failure anywhere removes the temporary files and renames nothing: an
/// existing file is never replaced by a partial one, and a failed call
/// leaves no file. A path must name a regular file or a new one (symlinks
/// are followed). Collective; throws InputError on I/O errors.
void write_npy(MPI_Comm comm, const std::vector<NpyOutput> &outputs);

/// An operand of apply: a DistArray (split on its outer dimension), an
/// array that every rank holds whole, or a scalar. Whole arrays broadcast
/// along the outer dimension (an outer extent of 1, or fewer dimensions
/// than the distributed operands' loop dimensions).
struct DistOperand {
  DistOperand(const DistArray &a) : split(&a), operand(a.local().view()) {}  // NOLINT: implicit by design
  template <typename T, typename = std::enable_if_t<!std::is_same_v<std::remove_cvref_t<T>, DistArray>>>
  DistOperand(T &&value) : operand(std::forward<T>(value)) {}  // NOLINT: an Operand (array, scalar)

  const DistArray *split = nullptr;  ///< the distributed operand, or null
  Operand operand;                   ///< this rank's slab, or the whole array or scalar
};

/// How a call on arrays of these shapes is split over ranks.
struct CallSplit {
  /// Per operand: whether it is split on its outer dimension (else every
  /// rank reads it whole; it broadcasts along the split dimension).
  std::vector<bool> split;
  /// The call's outer loop extent, the rows split; -1 when the call has no
  /// loop dimension (only scalars and a generalized ufunc's core
  /// dimensions), which cannot be split.
  int64_t rows = -1;
};

/// The split of a call of `ufunc` on operands of `shapes` (nothing for a
/// scalar): the operands whose loop dimensions are the call's (all of
/// them, not counting a generalized ufunc's core dimensions) and whose outer
/// extent is the call's are split; the others broadcast along it. When
/// every such extent is 1, they are all split (one rank holds the row).
/// Throws ShapeError for outer extents that do not broadcast. Local.
CallSplit plan_split(const Ufunc &ufunc, const std::vector<std::optional<Dims>> &shapes);

/// Applies a ufunc or generalized ufunc: each rank calls `ufunc` on its
/// rows of the distributed operands and on the whole others, and holds its
/// rows of every output. The distributed operands must share a
/// communicator and their outer extent, which must be the outermost loop
/// dimension of the call (a generalized ufunc's core dimensions are never
/// split); a whole operand that does not broadcast along it is a
/// ShapeError. Elementwise results are bitwise those of one call on the
/// whole arrays. Collective.
std::vector<DistArray> apply(const Ufunc &ufunc, const std::vector<DistOperand> &operands);

/// Ufunc::reduce over axes that include axis 0 (the default, or
/// `all_axes`): each rank reduces its slab, then the partial results are
/// combined with the ufunc in rank order on every rank, so that the result
/// is the same on every rank and from run to run for a fixed number of
/// ranks (but, for floating point, not bitwise the left-to-right fold of one
/// process). Every rank gets the whole result. `initial` is applied once;
/// `where` is not supported (InputError). Collective.
Array reduce(const Ufunc &ufunc, const DistArray &a, const ReduceOptions &options = {});

/// Ufunc::reduce over axes other than 0: each rank reduces its own rows; the
/// result keeps the row split. Collective.
DistArray reduce_local(const Ufunc &ufunc, const DistArray &a, const ReduceOptions &options);

/// Ufunc::accumulate. Along axis 0 each rank accumulates its rows, then
/// adds (with the ufunc) the running total of the ranks before it, an
/// exclusive scan of the slab totals in rank order: deterministic for a
/// fixed number of ranks. Along another axis each rank accumulates its
/// own rows. Collective.
DistArray accumulate(const Ufunc &ufunc, const DistArray &a, const AccumulateOptions &options = {});

/// This rank's rows with up to `halo` rows of the ranks before and after it
/// (fewer at the ends of the array), for stencil kernels that read their
/// neighbours: the rows come from whichever ranks hold them, however few
/// rows each has.
struct HaloRows {
  Array rows;             ///< the rows [first_row, first_row + rows.shape()[0]), C-contiguous
  int64_t first_row = 0;  ///< the global index of rows' first row
  int64_t before = 0;     ///< rows that precede this rank's own (at most `halo`)
  int64_t after = 0;      ///< rows that follow this rank's own (at most `halo`)
};

/// Exchanges halos of `halo` rows between the ranks holding `a`. A rank
/// holding no row gets none. Collective.
HaloRows exchange_halo(const DistArray &a, int64_t halo);

}  // namespace ufjit::mpi
