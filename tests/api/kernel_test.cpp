// Explicit kernels (@cuda.jit, LANGUAGE.md section 9) through the C++ API on
// the default target (UFJIT_TARGET=cuda runs this suite on the GPU): the
// thread's coordinates, barriers and shared memory, atomics, warp
// collectives, and the errors of a bad launch. Expected values come from
// plain loops here.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

using ufjit::LaunchConfig;
using ufjit::view;

class Kernels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { rt_ = std::make_unique<ufjit::Runtime>(); }
  static void TearDownTestSuite() { rt_.reset(); }
  static ufjit::Runtime &rt() { return *rt_; }
  static std::unique_ptr<ufjit::Runtime> rt_;
};
std::unique_ptr<ufjit::Runtime> Kernels::rt_;

constexpr const char *kAdd = R"src(
from numba import cuda

@cuda.jit("void(float32[:], float32[:], float32[:])")
def add(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]
)src";

TEST_F(Kernels, AGridStrideLoopCoversEveryElementWithFewerThreads) {
  ufjit::Kernel add = rt().kernel(kAdd);
  std::vector<float> x(10000), y(10000), out(10000, -1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 0.5f * static_cast<float>(i);
  }
  add({.grid = 7, .block = 64}, view(x), view(y), view(out));
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(out[i], x[i] + y[i]) << i;
  EXPECT_EQ(add.name(), "add");
  EXPECT_EQ(add.parameters(), (std::vector<std::string>{"x", "y", "out"}));
  EXPECT_EQ(add.signatures(), std::vector<std::string>{"void(float32[:], float32[:], float32[:])"});
}

constexpr const char *kScale = R"src(
from numba import cuda

@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor
)src";

TEST_F(Kernels, AKernelWithoutSignaturesIsCompiledPerArgumentTypes) {
  ufjit::Kernel scale = rt().kernel(kScale);
  std::vector<double> a = {1, 2, 3, 4, 5};
  scale({.grid = 1, .block = 32}, view(a), 3);
  EXPECT_EQ(a, (std::vector<double>{3, 6, 9, 12, 15}));
  std::vector<int32_t> b = {1, 2, 3};
  scale({.grid = 2, .block = 2}, view(b), 2);
  EXPECT_EQ(b, (std::vector<int32_t>{2, 4, 6}));
  EXPECT_EQ(scale.signatures(), (std::vector<std::string>{"void(float64[:], int64)", "void(int32[:], int64)"}));
}

constexpr const char *kTranspose = R"src(
from numba import cuda

@cuda.jit("void(int64[:, :], int64[:, :])")
def transpose(a, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a[j, i] + 1000 * cuda.blockIdx.z + 10000 * cuda.threadIdx.z
)src";

TEST_F(Kernels, TwoDimensionalGridsAndBlocksIndexMatrices) {
  ufjit::Kernel transpose = rt().kernel(kTranspose);
  const int64_t rows = 5, cols = 7;  // out is cols x rows
  std::vector<int64_t> a(rows * cols), out(cols * rows, -1);
  std::iota(a.begin(), a.end(), 0);
  transpose({.grid = {2, 3}, .block = {4, 3}}, ufjit::view(a.data(), {rows, cols}), ufjit::view(out.data(), {cols, rows}));
  for (int64_t i = 0; i < cols; ++i) {
    for (int64_t j = 0; j < rows; ++j) ASSERT_EQ(out[i * rows + j], a[j * cols + i]);
  }
}

constexpr const char *kBlockSum = R"src(
from numba import cuda, float32

@cuda.jit("void(float32[:], float32[:])")
def block_sum(x, partial):
    tile = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = tile[0]
)src";

TEST_F(Kernels, SharedMemoryAndBarriersReduceEachBlock) {
  ufjit::Kernel block_sum = rt().kernel(kBlockSum);
  std::vector<float> x(1000), partial(8, -1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 17);
  block_sum({.grid = 8, .block = 128}, view(x), view(partial));
  for (std::size_t b = 0; b < 8; ++b) {
    float want = 0;
    for (std::size_t i = b * 128; i < std::min<std::size_t>((b + 1) * 128, x.size()); ++i) want += x[i];
    EXPECT_EQ(partial[b], want) << b;
  }
}

constexpr const char *kMatmul = R"src(
from numba import cuda, float64

TPB = 8

@cuda.jit("void(float64[:, :], float64[:, :], float64[:, :])")
def matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float64)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float64)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = 0.0
    for i in range(bpg):
        sA[tx, ty] = 0
        sB[tx, ty] = 0
        if x < A.shape[0] and (ty + i * TPB) < A.shape[1]:
            sA[tx, ty] = A[x, ty + i * TPB]
        if y < B.shape[1] and (tx + i * TPB) < B.shape[0]:
            sB[tx, ty] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = tmp
)src";

TEST_F(Kernels, TheTutorialsTiledMatmulMatchesALoop) {
  ufjit::Kernel matmul = rt().kernel(kMatmul);
  const int64_t n = 20;
  std::vector<double> a(n * n), b(n * n), c(n * n, -1);
  for (int64_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<double>(i % 7) - 3;
    b[i] = static_cast<double>(i % 5) * 0.5;
  }
  matmul({.grid = {3, 3}, .block = {8, 8}}, ufjit::view(a.data(), {n, n}), ufjit::view(b.data(), {n, n}),
         ufjit::view(c.data(), {n, n}));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t k = 0; k < n; ++k) want += a[i * n + k] * b[k * n + j];
      ASSERT_DOUBLE_EQ(c[i * n + j], want) << i << "," << j;
    }
  }
}

// On the CPU a kernel like this one is split at its barriers into loops over
// the block's threads (codegen/lower/KernelRegions.h): values live across a
// barrier (v, got) are kept per thread, barriers sit at the top level, in a
// uniform `while` and under a uniform `if`, and threads that returned no
// longer take part.
constexpr const char *kScan = R"src(
from numba import cuda, int32

@cuda.jit("void(int32[:], int32[:], int32)")
def scan(x, out, limit):
    tile = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i >= limit:
        return
    v = x[i] * 2
    tile[t] = v
    cuda.syncthreads()
    live = cuda.syncthreads_count(1)
    big = cuda.syncthreads_count(v > 10)
    every = cuda.syncthreads_and(v > 0)
    some = cuda.syncthreads_or(v > 16)
    s = 1
    while s < live:
        got = tile[t - s] if t >= s else 0
        cuda.syncthreads()
        tile[t] += got
        cuda.syncthreads()
        s *= 2
    if cuda.blockIdx.x % 2 == 0:
        cuda.syncthreads()
        out[i] = tile[t] + 1000 * big + 100000 * every + v
    else:
        out[i] = tile[t] - 1000 * live - 100000 * some + v
)src";

TEST_F(Kernels, BarriersInUniformLoopsAndBranchesSeeEveryLiveThread) {
  ufjit::Kernel scan = rt().kernel(kScan);
  const int32_t limit = 150;  // the last block's threads past it return at once
  std::vector<int32_t> x(192), out(192, -1);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>((i * 7) % 10);
  scan({.grid = 3, .block = 64}, view(x), view(out), limit);
  for (int32_t b = 0; b < 3; ++b) {
    int32_t live = 0, big = 0, every = 1, some = 0, sum = 0;
    for (int32_t i = b * 64; i < std::min(limit, b * 64 + 64); ++i) {
      ++live;
      big += 2 * x[i] > 10 ? 1 : 0;
      every = every != 0 && 2 * x[i] > 0 ? 1 : 0;
      some = some != 0 || 2 * x[i] > 16 ? 1 : 0;
    }
    for (int32_t i = b * 64; i < b * 64 + 64; ++i) {
      if (i >= limit) {
        ASSERT_EQ(out[i], -1) << i;
        continue;
      }
      sum += 2 * x[i];
      const int32_t want = b % 2 == 0 ? sum + 1000 * big + 100000 * every + 2 * x[i]
                                       : sum - 1000 * live - 100000 * some + 2 * x[i];
      ASSERT_EQ(out[i], want) << i;
    }
  }
}

constexpr const char *kDiverged = R"src(
from numba import cuda

@cuda.jit("void(int32[:])")
def diverged(out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncthreads()
    out[t] = t
)src";

TEST_F(Kernels, ABarrierThatOnlySomeThreadsReachIsAnErrorNamingItsLine) {
  // The GPU hangs or does anything; the CPU target says so.
  ufjit::Kernel diverged = rt().kernel(kDiverged);
  std::vector<int32_t> out(32, -1);
  const ufjit::Operand args[] = {view(out)};
  try {
    diverged.launch_on(ufjit::TargetKind::Cpu, {.grid = 2, .block = 32}, args);
    FAIL() << "no KernelError";
  } catch (const ufjit::KernelError &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the barrier of line 8 is not reached by every thread of block ("), std::string::npos)
        << what;
    EXPECT_NE(what.find("threads (0,0,0) and (16,0,0) disagree"), std::string::npos) << what;
  }
}

// A barrier in a device function is not split: the kernel runs each thread
// on a fiber, as warp collectives do, with the same results.
constexpr const char *kHelperBarrier = R"src(
from numba import cuda, int32

@cuda.jit(device=True)
def publish(tile, t, v):
    tile[t] = v
    cuda.syncthreads()

@cuda.jit("void(int32[:])")
def rotate(out):
    tile = cuda.shared.array(48, int32)
    t = cuda.threadIdx.x
    publish(tile, t, t * 3)
    out[cuda.grid(1)] = tile[(t + 1) % 48]
)src";

TEST_F(Kernels, ABarrierInADeviceFunctionStillMeetsEveryThread) {
  ufjit::Kernel rotate = rt().kernel(kHelperBarrier);
  std::vector<int32_t> out(96, -1);
  rotate({.grid = 2, .block = 48}, view(out));
  for (int32_t i = 0; i < 96; ++i) ASSERT_EQ(out[i], ((i % 48 + 1) % 48) * 3) << i;
}

constexpr const char *kAtomics = R"src(
from numba import cuda

@cuda.jit
def histogram(values, bins, biggest, old_sum):
    i = cuda.grid(1)
    if i < values.size:
        v = values[i]
        cuda.atomic.add(bins, v % bins.size, 1)
        cuda.atomic.max(biggest, 0, v)
        old_sum[i] = cuda.atomic.add(biggest, 1, 1)
)src";

TEST_F(Kernels, AtomicsCountEveryThreadAndReturnTheOldValue) {
  ufjit::Kernel histogram = rt().kernel(kAtomics);
  std::vector<int32_t> values(1000), bins(10, 0), biggest(2, 0), old(1000, -1);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>((i * 7919) % 1001);
  histogram({.grid = 4, .block = 256}, view(values), view(bins), view(biggest), view(old));
  std::vector<int32_t> want(10, 0);
  for (int32_t v : values) want[static_cast<std::size_t>(v % 10)]++;
  EXPECT_EQ(bins, want);
  EXPECT_EQ(biggest[0], *std::max_element(values.begin(), values.end()));
  EXPECT_EQ(biggest[1], 1000);
  std::vector<int32_t> sorted = old;
  std::sort(sorted.begin(), sorted.end());
  for (int32_t i = 0; i < 1000; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i);  // each old value once
}

constexpr const char *kWarp = R"src(
from numba import cuda, int32

@cuda.jit
def warp_ops(values, sums, ballots, lanes):
    i = cuda.grid(1)
    v = values[i]
    total = v
    offset = 16
    while offset > 0:
        total += cuda.shfl_down_sync(0xffffffff, total, offset)
        offset //= 2
    ballot = cuda.ballot_sync(0xffffffff, v % 2 == 1)
    if cuda.laneid == 0:
        sums[i // 32] = total
        ballots[i // 32] = ballot
    lanes[i] = cuda.shfl_sync(0xffffffff, cuda.laneid, 31 - cuda.laneid) + 100 * cuda.syncthreads_count(v > 5)
)src";

TEST_F(Kernels, WarpShufflesBallotsAndBarrierCountsSeeThirtyTwoLanes) {
  ufjit::Kernel warp_ops = rt().kernel(kWarp);
  std::vector<int32_t> values(128), sums(4, 0), ballots(4, 0), lanes(128, -1);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>((i * 13) % 11);
  warp_ops({.grid = 2, .block = 64}, view(values), view(sums), view(ballots), view(lanes));
  for (std::size_t w = 0; w < 4; ++w) {
    int32_t sum = 0;
    uint32_t ballot = 0;
    for (std::size_t l = 0; l < 32; ++l) {
      sum += values[w * 32 + l];
      if (values[w * 32 + l] % 2 == 1) ballot |= 1u << l;
    }
    EXPECT_EQ(sums[w], sum) << w;
    EXPECT_EQ(static_cast<uint32_t>(ballots[w]), ballot) << w;
  }
  for (std::size_t b = 0; b < 2; ++b) {
    int32_t count = 0;
    for (std::size_t t = 0; t < 64; ++t) count += values[b * 64 + t] > 5 ? 1 : 0;
    for (std::size_t t = 0; t < 64; ++t) {
      ASSERT_EQ(lanes[b * 64 + t], static_cast<int32_t>(31 - t % 32) + 100 * count) << b << "," << t;
    }
  }
}

constexpr const char *kReverse = R"src(
from numba import cuda, float32

@cuda.jit(device=True)
def fill(row, value):
    for k in range(row.size):
        row[k] = value + k

@cuda.jit
def reverse(a, scratch_out):
    buf = cuda.shared.array(0, float32)
    local = cuda.local.array(4, float32)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    buf[t] = a[t]
    cuda.syncthreads()
    a[t] = buf[n - 1 - t]
    fill(local, t)
    scratch_out[t] = local[3] + buf.size
)src";

TEST_F(Kernels, DynamicSharedLocalArraysAndDeviceFunctionsThatWriteArrays) {
  ufjit::Kernel reverse = rt().kernel(kReverse);
  std::vector<float> a(48), out(48, -1.0f);
  std::iota(a.begin(), a.end(), 0.0f);
  reverse({.grid = 1, .block = 48, .shared_bytes = 48 * 4}, view(a), view(out));
  for (std::size_t t = 0; t < 48; ++t) {
    EXPECT_EQ(a[t], static_cast<float>(47 - t));
    EXPECT_EQ(out[t], static_cast<float>(t) + 3 + 48);
  }
}

constexpr const char *kTupleShape = R"src(
from numba import cuda, float32

TPB = 4
TILE = (TPB, TPB)

@cuda.jit
def tiles(a):
    s = cuda.shared.array(TILE, float32)
    x, y = cuda.grid(2)
    s[cuda.threadIdx.x, cuda.threadIdx.y] = x * 10 + y
    cuda.syncthreads()
    a[x, y] = s[TPB - 1 - cuda.threadIdx.x, cuda.threadIdx.y] + TILE[0] * 1000
)src";

TEST_F(Kernels, ATupleModuleConstantGivesASharedArraysShape) {
  ufjit::Kernel tiles = rt().kernel(kTupleShape);
  std::vector<float> a(64);
  tiles({.grid = {2, 2}, .block = {4, 4}}, ufjit::view(a.data(), {8, 8}));
  for (int x = 0; x < 8; ++x) {
    for (int y = 0; y < 8; ++y) {
      const int mirrored = (x / 4) * 4 + (3 - x % 4);
      ASSERT_EQ(a[static_cast<std::size_t>(x * 8 + y)], static_cast<float>(mirrored * 10 + y + 4000)) << x << "," << y;
    }
  }
}

constexpr const char *kChecked = R"src(
from numba import cuda

@cuda.jit("void(float64[:])")
def checked(a):
    i = cuda.grid(1)
    if i < a.size and a[i] < 0:
        raise ValueError("negative element")
)src";

TEST_F(Kernels, ARaiseInAKernelIsReportedAfterTheLaunch) {
  ufjit::Kernel checked = rt().kernel(kChecked);
  std::vector<double> fine = {1, 2, 3}, bad = {1, -2, 3};
  checked({.grid = 1, .block = 32}, view(fine));
  try {
    checked({.grid = 1, .block = 32}, view(bad));
    FAIL() << "no KernelError";
  } catch (const ufjit::KernelError &e) {
    EXPECT_EQ(e.exception(), "ValueError");
    EXPECT_EQ(e.message(), "negative element");
    EXPECT_NE(std::string(e.what()).find("raised by kernel 'checked'"), std::string::npos) << e.what();
  }
}

constexpr const char *kHelperArguments = R"src(
from numba import cuda, uint32, int64

@cuda.jit(device=True)
def as_is(n):
    return n

@cuda.jit(device=True)
def twice(n):
    return 2 * n

@cuda.jit(device=True)
def count_into(out, bins, dtype, nbins, op, cast, negative):
    # op, dtype and cast are a function, a dtype and a helper; nbins sizes a
    # shared array; `negative` a branch that is never typed when False.
    tid = cuda.threadIdx.x
    counts = cuda.shared.array(nbins, dtype)
    if tid < nbins:
        counts[tid] = 0
    cuda.syncthreads()
    b = cast(bins[tid] % nbins)
    if negative:
        b = b - nbins
    op(counts, b, 1)
    cuda.syncthreads()
    if tid < nbins:
        out[tid] = counts[tid]

@cuda.jit("void(uint32[:], uint32[:], uint32[:])")
def histogram(bins, plain, doubled):
    count_into(plain, bins, uint32, 8, cuda.atomic.add, as_is, False)
    count_into(doubled, bins, uint32, 8, cuda.atomic.add, twice, True)
)src";

TEST_F(Kernels, HelpersTakeFunctionsDtypesAndConstantsAsArguments) {
  // Numba's own atomics tests pass cuda.atomic.add, a dtype and a shared
  // array's size to one device function; each combination is a specialisation.
  ufjit::Kernel histogram = rt().kernel(kHelperArguments);
  std::vector<uint32_t> bins(64), plain(8, 99), doubled(8, 99);
  for (std::size_t i = 0; i < bins.size(); ++i) bins[i] = static_cast<uint32_t>(i * 7 % 13);
  histogram({.grid = 1, .block = 64}, view(bins), view(plain), view(doubled));
  std::vector<uint32_t> want_plain(8, 0), want_doubled(8, 0);
  for (uint32_t b : bins) {
    ++want_plain[b % 8];
    // twice(b % 8) - 8 as int64, wrapped once as a negative index
    ++want_doubled[static_cast<std::size_t>(2 * static_cast<int64_t>(b % 8) - 8 + 8) % 8];
  }
  EXPECT_EQ(plain, want_plain);
  EXPECT_EQ(doubled, want_doubled);
}

TEST_F(Kernels, AFunctionArgumentUsedAsAValueOrAssignedIsAnErrorAtItsLine) {
  const std::string used = "from numba import cuda\n@cuda.jit(device=True)\ndef h(f, a):\n    a[0] = f\n"
                           "@cuda.jit('void(float64[:])')\ndef k(a):\n    h(abs, a)\n";
  try {
    rt().kernel(used);
    FAIL() << "no CompileError";
  } catch (const ufjit::CompileError &e) {
    EXPECT_NE(std::string(e.what()).find(":4:12: error: 'f' is given 'abs' by the caller, a function or type; it "
                                         "can only be called"),
              std::string::npos)
        << e.what();
  }
  const std::string assigned = "from numba import cuda\n@cuda.jit(device=True)\ndef h(f, a):\n    f = 1\n"
                               "    a[0] = f\n@cuda.jit('void(float64[:])')\ndef k(a):\n    h(abs, a)\n";
  try {
    rt().kernel(assigned);
    FAIL() << "no CompileError";
  } catch (const ufjit::CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'f' of 'h' is given 'abs' by its caller"), std::string::npos)
        << e.what();
  }
}

constexpr const char *kConstantArrays = R"src(
from numba import cuda
import numpy as np

WEIGHTS = np.array([[0.5, 1.5], [2.5, -3.0]], dtype=np.float64)
OFFSETS = np.array([10, -20, 30])

@cuda.jit("void(float64[:])")
def weigh(out):
    w = cuda.const.array_like(WEIGHTS)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = w[i % 2, i // 2 % 2] + OFFSETS[i % OFFSETS.size]
)src";

TEST_F(Kernels, ModuleNumpyArraysAreConstantArraysThatKernelsRead) {
  ufjit::Kernel weigh = rt().kernel(kConstantArrays);
  std::vector<double> out(8, 0.0);
  weigh({.grid = 2, .block = 4}, view(out));
  const double weights[2][2] = {{0.5, 1.5}, {2.5, -3.0}};
  const double offsets[3] = {10, -20, 30};
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i], weights[i % 2][i / 2 % 2] + offsets[i % 3]) << i;
  }
  const std::string written = "from numba import cuda\nimport numpy as np\nT = np.array([1.0, 2.0])\n"
                              "@cuda.jit('void(float64[:])')\ndef k(a):\n    c = cuda.const.array_like(T)\n"
                              "    c[0] = a[0]\n";
  try {
    rt().kernel(written);
    FAIL() << "no CompileError";
  } catch (const ufjit::CompileError &e) {
    EXPECT_NE(std::string(e.what()).find(":7:5: error: cannot write to 'c': it is a constant array"),
              std::string::npos)
        << e.what();
  }
  const std::string ragged = "import numpy as np\nT = np.array([[1, 2], [3]])\n"
                             "from numba import vectorize\n@vectorize(['f8(f8)'])\ndef f(x):\n    return x\n";
  EXPECT_THROW(rt().vectorize(ragged), ufjit::CompileError);
}

constexpr const char *kIterators = R"src(
from numba import cuda

@cuda.jit("void(float64[:], float64[:], float64[:, :], float64[:])")
def iterate(x, y, rows, out):
    total = 0.0
    for i, v in enumerate(x):
        total += i * v
    for a, b in zip(x, y):  # stops at the shorter
        total += a * b
    for k, (a, row) in enumerate(zip(y, rows), 10):
        total += k * a + row[1]
    out[0] = total
)src";

TEST_F(Kernels, ForLoopsOverEnumerateAndZipOfArrays) {
  ufjit::Kernel iterate = rt().kernel(kIterators);
  std::vector<double> x = {1, 2, 3, 4}, y = {5, 6, 7}, rows = {1, 2, 3, 4, 5, 6}, out = {0};
  iterate({.grid = 1, .block = 1}, view(x), view(y), ufjit::view(rows.data(), {3, 2}), view(out));
  double want = 0;
  for (std::size_t i = 0; i < x.size(); ++i) want += static_cast<double>(i) * x[i];
  for (std::size_t i = 0; i < y.size(); ++i) want += x[i] * y[i];
  for (std::size_t i = 0; i < 3; ++i) want += static_cast<double>(10 + i) * y[i] + rows[2 * i + 1];
  EXPECT_EQ(out[0], want);
}

constexpr const char *kTupleIterators = R"src(
from numba import cuda

WEIGHTS = (0.5, 2, 4.0)

@cuda.jit("void(float64[:], float64[:])")
def weigh(x, out):
    total = 0.0
    for i, w in enumerate(WEIGHTS):
        total += i * w
    for w, v in zip(WEIGHTS, x):  # stops at the shorter
        total += w * v
    for k, (w, p) in enumerate(zip((1, 2, 3, 4), (10, 20))):
        total += k * w * p
    out[0] = total
)src";

TEST_F(Kernels, EnumerateAndZipAlsoIterateOverTuplesOfNumbers) {
  ufjit::Kernel weigh = rt().kernel(kTupleIterators);
  std::vector<double> x = {1, 2}, out = {0};
  weigh({.grid = 1, .block = 1}, view(x), view(out));
  const double want = (0 * 0.5 + 1 * 2 + 2 * 4.0) + (0.5 * 1 + 2 * 2) + (0 * 1 * 10 + 1 * 2 * 20);
  EXPECT_EQ(out[0], want);
}

constexpr const char *kLocalConstantShape = R"src(
from numba import cuda, int32

@cuda.jit("void(int32[:])")
def fill(out):
    n = 64
    rows, cols = 4, 2
    buffer = cuda.shared.array(n, int32)
    grid = cuda.local.array((rows, cols), int32)
    t = cuda.threadIdx.x
    buffer[t] = t
    cuda.syncthreads()
    grid[3, 1] = buffer.size + grid.size
    out[t] = buffer[n - 1 - t] + grid[3, 1]
)src";

TEST_F(Kernels, ALocalAssignedOneIntegerIsAConstantShape) {
  ufjit::Kernel fill = rt().kernel(kLocalConstantShape);
  std::vector<int32_t> out(64, -1);
  fill({.grid = 1, .block = 64}, view(out));
  for (int32_t t = 0; t < 64; ++t) ASSERT_EQ(out[static_cast<std::size_t>(t)], 63 - t + 64 + 8) << t;
  // A local given two values is no constant.
  const std::string changing = std::string(kLocalConstantShape).replace(std::string(kLocalConstantShape).find("    rows"),
                                                                         0, "    n = 32\n");
  EXPECT_THROW(rt().kernel(changing), ufjit::CompileError);
}

TEST_F(Kernels, BadConfigurationsArgumentsAndViewsAreRefusedBeforeAnythingRuns) {
  ufjit::Kernel add = rt().kernel(kAdd);
  std::vector<float> x(4, 1.0f), y(4, 2.0f), out(4, 0.0f);
  EXPECT_THROW(add({.grid = 0, .block = 32}, view(x), view(y), view(out)), ufjit::InputError);
  EXPECT_THROW(add({.grid = 1, .block = 2048}, view(x), view(y), view(out)), ufjit::InputError);
  EXPECT_THROW(add({.grid = 1, .block = {32, 32, 2}}, view(x), view(y), view(out)), ufjit::InputError);
  EXPECT_THROW(add({.grid = 1, .block = 32, .shared_bytes = -1}, view(x), view(y), view(out)), ufjit::InputError);
  EXPECT_THROW(add({.grid = 1, .block = 32}, view(x), view(y)), ufjit::InputError);
  const std::vector<float> frozen(4, 0.0f);
  EXPECT_THROW(add({.grid = 1, .block = 32}, view(x), view(y), frozen), ufjit::InputError);
  std::vector<double> wide(4, 0.0);
  EXPECT_THROW(add({.grid = 1, .block = 32}, view(x), view(y), view(wide)), ufjit::DispatchError);
  EXPECT_EQ(out, std::vector<float>(4, 0.0f));  // nothing ran
  float scalar_cell = 0.0f;
  EXPECT_THROW(add({.grid = 1, .block = 32}, view(x), view(y), ufjit::view(&scalar_cell, {})), ufjit::InputError);
  EXPECT_THROW(ufjit::Kernel().name(), ufjit::InputError);
}

TEST_F(Kernels, KernelSourcesAreCheckedWhenCompiled) {
  EXPECT_THROW(rt().kernel(kAdd, "nope"), ufjit::InputError);
  EXPECT_THROW(rt().kernel("from numba import vectorize\n@vectorize(['f8(f8)'])\ndef f(x):\n    return x\n"),
               ufjit::InputError);
  try {
    rt().kernel("from numba import cuda\n@cuda.jit('void(float32[:])')\ndef k(a):\n    return 1\n");
    FAIL() << "no CompileError";
  } catch (const ufjit::CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("a kernel returns no value"), std::string::npos) << e.what();
  }
  const std::string big_shared =
      "from numba import cuda, float64\n@cuda.jit('void(float64[:])')\ndef k(a):\n"
      "    s = cuda.shared.array(4096, float64)\n    t = cuda.shared.array(4096, float64)\n    a[0] = s[0] + t[0]\n";
  EXPECT_THROW(rt().kernel(big_shared), ufjit::CompileError);
  const std::string big_local = "from numba import cuda\n@cuda.jit('void(float64[:])')\ndef k(a):\n"
                                "    s = cuda.local.array(100000, 'f8')\n    a[0] = s[0]\n";
  EXPECT_THROW(rt().kernel(big_local), ufjit::CompileError);
  try {
    rt().vectorize("from numba import vectorize, cuda\n@vectorize(['f8(f8)'])\ndef f(x):\n    cuda.syncthreads()\n"
                   "    return x\n");
    FAIL() << "no CompileError";
  } catch (const ufjit::CompileError &e) {
    EXPECT_NE(std::string(e.what()).find("only be used in a @cuda.jit kernel"), std::string::npos) << e.what();
  }
}

}  // namespace
