// Smooths an array split over the ranks of mpirun with a three-point
// stencil (each rank's rows and one halo row of each neighbour), then sums
// it: ufjit_mpi's distributed arrays, halo exchange, apply and reduce.
//
//   mpirun -np 4 ./mpi_smooth [rows] [out.npy]
//
// Each rank binds one GPU of its host (its local rank modulo the host's
// GPUs), or runs on the CPU where there is none. examples/mpi/README.md has
// the commands from one GPU to several hosts.
#include <ufjit/mpi.h>
#include <ufjit/ufjit.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// A view of `count` rows of `rows` starting at row `first`.
ufjit::ArrayView rows_of(const ufjit::Array &rows, int64_t first, int64_t count) {
  ufjit::ArrayView view = rows.view();
  view.data = static_cast<char *>(view.data) + first * view.strides[0];
  view.shape[0] = count;
  return view;
}

int run(const ufjit::mpi::Session &session, int64_t rows, const std::string &out) {
  ufjit::Runtime runtime(ufjit::mpi::rank_runtime_options(session.comm()));
  ufjit::UfuncSet ufuncs = runtime.load_file(UFJIT_EXAMPLES_DIR "/mpi/smooth.ufn");

  // x[i] = i, each rank making its own rows.
  const ufjit::mpi::RowRange mine = ufjit::mpi::block_rows(rows, session.rank(), session.size());
  ufjit::Array local = ufjit::Array::host(ufjit::DType::Float64, {mine.count()});
  for (int64_t i = 0; i < mine.count(); ++i) {
    local.host_data<double>()[i] = static_cast<double>(mine.begin + i);
  }
  const auto x = ufjit::mpi::DistArray::from_local(session.comm(), std::move(local));

  // y[i] = (x[i-1] + x[i] + x[i+1]) / 3 inside, x[i] at the two ends: each
  // rank reads one row of each neighbour (a halo of one row).
  const ufjit::mpi::HaloRows halo = ufjit::mpi::exchange_halo(x, 1);
  ufjit::Array smooth = ufjit::Array::host(ufjit::DType::Float64, {mine.count()});
  double *y_data = smooth.host_data<double>();
  for (int64_t i = 0; i < mine.count(); ++i) {
    y_data[i] = x.local().host_data<double>()[i];  // the ends keep their values
  }
  const int64_t first = std::max<int64_t>(mine.begin, 1);
  const int64_t last = std::min<int64_t>(mine.end, rows - 1);
  if (last > first) {
    const int64_t at = first - halo.first_row;  // row `first` in the halo rows
    ufuncs["average3"](rows_of(halo.rows, at - 1, last - first), rows_of(halo.rows, at, last - first),
                       rows_of(halo.rows, at + 1, last - first),
                       ufjit::out(rows_of(smooth, first - mine.begin, last - first)));
  }
  const auto y = ufjit::mpi::DistArray::from_local(session.comm(), std::move(smooth));
  if (!out.empty()) {
    y.write_npy(out);
  }

  // The average of three consecutive integers is the middle one: y is x,
  // whose sum is rows * (rows - 1) / 2.
  const double total = ufjit::mpi::reduce(ufuncs["add"], y).to_vector<double>()[0];
  const double expected = static_cast<double>(rows) * static_cast<double>(rows - 1) / 2.0;
  if (session.rank() == 0) {
    std::printf("%d ranks on %s: sum of the smoothed array = %.1f (expected %.1f)\n", session.size(),
                ufjit::target_name(runtime.target()), total, expected);
  }
  return std::fabs(total - expected) <= 1e-9 * expected ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  ufjit::mpi::Session session(&argc, &argv);
  const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 1'000'003;
  const std::string out = argc > 2 ? argv[2] : "";
  try {
    return run(session, rows, out);
  } catch (const ufjit::mpi::RemoteError &) {
    return 1;  // the rank that failed prints the error
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rank %d: %s\n", session.rank(), e.what());
    return 1;
  }
}
