// ufjit_mpi's C++ API (ufjit/mpi.h) under `mpirun -np 4` on the CPU target:
// every rank runs every test, in the same order (the calls are collective).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include "ufjit/mpi.h"
#include "ufjit/npy.h"

namespace {

using ufjit::mpi::DistArray;

const char *const kSource = R"ufn(from numba import vectorize

@vectorize(["int32(int32, int32)", "int64(int64, int64)", "float32(float32, float32)"], identity=0)
def add(x, y):
    return x + y

@vectorize(["float32(float32)"])
def checked(x):
    if x < 0:
        raise ValueError("negative input")
    return x * 2
)ufn";

struct Env {
  ufjit::Runtime runtime{
      ufjit::mpi::rank_runtime_options(MPI_COMM_WORLD, {.target = ufjit::TargetKind::Cpu})};
  ufjit::UfuncSet ufuncs = runtime.load(kSource);
};

Env &env() {
  static Env instance;
  return instance;
}

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/// This rank's rows of a `rows` x `cols` array whose element (i, j) is
/// i * cols + j.
template <typename T>
DistArray iota_rows(int64_t rows, int64_t cols) {
  const ufjit::mpi::RowRange mine = ufjit::mpi::block_rows(rows, rank(), ranks());
  ufjit::Array local = ufjit::Array::host(ufjit::dtype_of<T>(), {mine.count(), cols});
  T *data = local.host_data<T>();
  for (int64_t k = 0; k < mine.count() * cols; ++k) {
    data[k] = static_cast<T>(mine.begin * cols + k);
  }
  return DistArray::from_local(MPI_COMM_WORLD, std::move(local));
}

TEST(BlockRows, SplitsUnevenRowsIntoBlocksThatDifferByAtMostOne) {
  EXPECT_EQ(ufjit::mpi::block_rows(10, 0, 4).count(), 2);
  EXPECT_EQ(ufjit::mpi::block_rows(10, 1, 4).begin, 2);
  EXPECT_EQ(ufjit::mpi::block_rows(10, 3, 4).end, 10);
  EXPECT_EQ(ufjit::mpi::block_rows(2, 0, 4).count(), 0);
  EXPECT_EQ(ufjit::mpi::block_rows(int64_t{1} << 62, 3, 4).end, int64_t{1} << 62);
}

TEST(DistArrayFromLocal, RefusesSlabsThatBreakTheBlockRuleOnEveryRank) {
  const int64_t rows = rank() == 0 ? 3 : 1;
  EXPECT_THROW(DistArray::from_local(MPI_COMM_WORLD, ufjit::Array::host(ufjit::DType::Float32, {rows, 2})),
               ufjit::ShapeError);
}

TEST(DistArrayFromLocal, RefusesInnerShapesThatDifferBetweenRanks) {
  const int64_t cols = rank() == 1 ? 3 : 2;
  EXPECT_THROW(DistArray::from_local(MPI_COMM_WORLD, ufjit::Array::host(ufjit::DType::Float32, {1, cols})),
               ufjit::ShapeError);
}

TEST(Reduce, OverAxis0IsGlobalTheSameOnEveryRankWithInitialAppliedOnce) {
  const DistArray a = iota_rows<int32_t>(10, 3);
  ufjit::ReduceOptions options;
  options.initial = ufjit::Operand(100);
  const std::vector<int32_t> sums = ufjit::mpi::reduce(env().ufuncs["add"], a, options).to_vector<int32_t>();
  EXPECT_EQ(sums, (std::vector<int32_t>{100 + 135, 100 + 145, 100 + 155}));
  options.all_axes = true;
  EXPECT_EQ(ufjit::mpi::reduce(env().ufuncs["add"], a, options).to_vector<int32_t>(),
            std::vector<int32_t>{100 + 435});
}

TEST(Reduce, OverAnotherAxisKeepsTheRowSplit) {
  const DistArray a = iota_rows<int32_t>(10, 3);
  ufjit::ReduceOptions options;
  options.axes = {1};
  const DistArray sums = ufjit::mpi::reduce_local(env().ufuncs["add"], a, options);
  ASSERT_EQ(sums.shape(), (ufjit::Dims{10}));
  const std::vector<int32_t> mine = sums.local().to_vector<int32_t>();
  for (int64_t i = 0; i < sums.rows().count(); ++i) {
    const int64_t row = sums.rows().begin + i;
    EXPECT_EQ(mine[static_cast<std::size_t>(i)], 9 * row + 3);
  }
}

TEST(Accumulate, AlongAxis0CarriesTheTotalsOfTheRanksBefore) {
  const DistArray a = iota_rows<int64_t>(11, 1);
  const DistArray sums = ufjit::mpi::accumulate(env().ufuncs["add"], a);
  const std::vector<int64_t> mine = sums.local().to_vector<int64_t>();
  for (int64_t i = 0; i < sums.rows().count(); ++i) {
    const int64_t row = sums.rows().begin + i;
    EXPECT_EQ(mine[static_cast<std::size_t>(i)], row * (row + 1) / 2);
  }
}

TEST(Apply, ARowHeldWholeBroadcastsAlongTheSplit) {
  const DistArray a = iota_rows<float>(7, 2);
  const std::vector<float> row{0.5f, -1.0f};
  std::vector<DistArray> out = ufjit::mpi::apply(env().ufuncs["add"], {a, ufjit::view(row)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> mine = out[0].local().to_vector<float>();
  for (int64_t k = 0; k < out[0].rows().count() * 2; ++k) {
    EXPECT_EQ(mine[static_cast<std::size_t>(k)],
              static_cast<float>(out[0].rows().begin * 2 + k) + row[k % 2]);
  }
}

TEST(Apply, AWholeOperandOfAnotherShapeOnOneRankIsAnErrorOnEveryRank) {
  const DistArray a = iota_rows<float>(7, 2);
  const std::vector<float> row(rank() == 1 ? 3 : 2, 1.0f);
  EXPECT_THROW(ufjit::mpi::apply(env().ufuncs["add"], {a, ufjit::view(row)}), ufjit::ShapeError);
}

TEST(Apply, ARaiseOnOneRankThrowsOnEveryRank) {
  const ufjit::mpi::RowRange mine = ufjit::mpi::block_rows(8, rank(), ranks());
  ufjit::Array local = ufjit::Array::host(ufjit::DType::Float32, {mine.count()});
  if (rank() == 2 && mine.count() > 0) {
    local.host_data<float>()[0] = -1.0f;
  }
  const DistArray a = DistArray::from_local(MPI_COMM_WORLD, std::move(local));
  try {
    ufjit::mpi::apply(env().ufuncs["checked"], {a});
    ADD_FAILURE() << "no error on rank " << rank();
  } catch (const ufjit::mpi::RemoteError &e) {
    EXPECT_NE(rank(), 2);
    EXPECT_EQ(e.rank(), 2);
    EXPECT_EQ(e.kind(), ufjit::mpi::ErrorKind::Kernel);
    EXPECT_NE(std::string(e.what()).find("negative input"), std::string::npos) << e.what();
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(rank(), 2);
  }
}

TEST(Halo, WiderThanANeighbourSlabTakesRowsFromTheRanksBeyond) {
  const DistArray a = iota_rows<int32_t>(10, 2);  // slabs of 2, 3, 2, 3 rows
  const ufjit::mpi::HaloRows halo = ufjit::mpi::exchange_halo(a, 3);
  const int64_t first = std::max<int64_t>(0, a.rows().begin - 3);
  const int64_t last = std::min<int64_t>(10, a.rows().end + 3);
  EXPECT_EQ(halo.first_row, first);
  EXPECT_EQ(halo.before, a.rows().begin - first);
  EXPECT_EQ(halo.after, last - a.rows().end);
  std::vector<int32_t> expected(static_cast<std::size_t>((last - first) * 2));
  std::iota(expected.begin(), expected.end(), static_cast<int32_t>(first * 2));
  EXPECT_EQ(halo.rows.to_vector<int32_t>(), expected);
}

TEST(Npy, WrittenInSlabsAndReadBackInSlabs) {
  const DistArray a = iota_rows<float>(9, 3);
  const std::string path = testing::TempDir() + "ufjit_mpi_api_test.npy";
  a.write_npy(path);
  const DistArray b = DistArray::read_npy(MPI_COMM_WORLD, path);
  EXPECT_EQ(b.shape(), a.shape());
  EXPECT_EQ(b.local().to_vector<float>(), a.local().to_vector<float>());
  if (rank() == 0) {
    const ufjit::Array whole = ufjit::load_npy(path);
    EXPECT_EQ(whole.shape(), (ufjit::Dims{9, 3}));
    std::remove(path.c_str());
  }
}

}  // namespace

int main(int argc, char **argv) {
  ufjit::mpi::Session session(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}
