// Records (NumPy structured dtypes) in explicit kernels, LANGUAGE.md section
// 9, through the C++ API on the default target (UFJIT_TARGET=cuda runs it on
// the GPU): a record array is passed as its bytes (a uint8 array with one
// more dimension, the item size) and a signature that spells the record.
// Expected values are computed here from a C struct of the same layout.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include <ufjit/ufjit.h>

namespace {

using ufjit::view;

class KernelRecords : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { rt_ = std::make_unique<ufjit::Runtime>(); }
  static void TearDownTestSuite() { rt_.reset(); }
  static ufjit::Runtime &rt() { return *rt_; }
  static std::unique_ptr<ufjit::Runtime> rt_;
};
std::unique_ptr<ufjit::Runtime> KernelRecords::rt_;

// NumPy's np.dtype([('a', f8), ('b', i4), ('c', c8), ('h', f4, 2)], align=True).
struct Rec {
  double a;
  int32_t b;
  std::complex<float> c;
  float h[2];
  int32_t pad;
};
static_assert(sizeof(Rec) == 32);
constexpr const char *kRec = "record(a: float64 @0, b: int32 @8, c: complex64 @12, h: float32(2) @20, itemsize=32)";

/// The records' bytes as a kernel takes them: `n` records of 32 bytes.
ufjit::ArrayView bytes_of(std::vector<Rec> &records) {
  return view(reinterpret_cast<uint8_t *>(records.data()), {static_cast<int64_t>(records.size()), 32});
}

std::string source(const std::string &signature, const std::string &body) {
  return "from numba import cuda\n\n@cuda.jit(\"" + signature + "\")\n" + body;
}

std::vector<Rec> sample(int n) {
  std::vector<Rec> records(static_cast<std::size_t>(n));
  std::memset(records.data(), 0, records.size() * sizeof(Rec));
  for (int i = 0; i < n; ++i) {
    records[i].a = i + 0.5;
    records[i].b = i * 10;
    records[i].c = {static_cast<float>(i), 1.0f};
    records[i].h[0] = static_cast<float>(i) * 2.0f;
    records[i].h[1] = -1.0f;
  }
  return records;
}

TEST_F(KernelRecords, EachFieldIsReadAndWrittenAtItsOffset) {
  ufjit::Kernel k = rt().kernel(source("void(" + std::string(kRec) + "[:], float64[:])", R"src(
def k(recs, out):
    i = cuda.grid(1)
    if i < recs.shape[0]:
        r = recs[i]
        out[i] = r.a + r['b'] + recs[i].c.real + r.h[0]
        recs[i].a = r.b * 2
        r['c'] = 1j * r.h[0]
        r.h[1] = r.a
)src"));
  std::vector<Rec> records = sample(5);
  const std::vector<Rec> before = records;
  std::vector<double> out(5, -1.0);
  k({.grid = 2, .block = 4}, bytes_of(records), view(out));
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Rec &r = before[i];
    EXPECT_EQ(out[i], r.a + r.b + r.c.real() + r.h[0]) << i;
    EXPECT_EQ(records[i].a, r.b * 2.0) << i;
    EXPECT_EQ(records[i].b, r.b) << i;
    EXPECT_EQ(records[i].c, std::complex<float>(0.0f, r.h[0])) << i;
    EXPECT_EQ(records[i].h[1], static_cast<float>(r.b * 2)) << i;
  }
}

TEST_F(KernelRecords, AssigningARecordCopiesItWhole) {
  ufjit::Kernel k = rt().kernel(source("void(" + std::string(kRec) + "[:], int64, int64)", R"src(
def k(recs, i, j):
    recs[i] = recs[j]
)src"));
  std::vector<Rec> records = sample(4);
  const std::vector<Rec> before = records;
  k({.grid = 1, .block = 1}, bytes_of(records), 0, 3);
  EXPECT_EQ(std::memcmp(&records[0], &before[3], sizeof(Rec)), 0);
  EXPECT_EQ(std::memcmp(&records[1], &before[1], 3 * sizeof(Rec)), 0);  // the others as they were
}

TEST_F(KernelRecords, AFieldOfARecordArrayIsAnArrayOfEveryRecordsField) {
  ufjit::Kernel k = rt().kernel(source("void(" + std::string(kRec) + "[:])", R"src(
def k(recs):
    a = recs.a
    hs = recs.h
    for i in range(a.shape[0]):
        a[i] = hs.shape[1] * 100 + recs.size
        hs[i, 0] = hs.ndim
)src"));
  std::vector<Rec> records = sample(3);
  k({.grid = 1, .block = 1}, bytes_of(records));
  for (const Rec &r : records) {
    EXPECT_EQ(r.a, 203.0);
    EXPECT_EQ(r.h[0], 2.0f);
  }
}

TEST_F(KernelRecords, AnArrayStoredInASubarrayFieldIsCopiedAndBroadcast) {
  ufjit::Kernel k = rt().kernel(source("void(" + std::string(kRec) + "[:], float32[:], float32[:])", R"src(
def k(recs, pair, one):
    recs[0]['h'] = pair
    recs[1].h = one
    recs[2].h[:] = 7
)src"));
  std::vector<Rec> records = sample(3);
  std::vector<float> pair = {3.0f, 4.0f}, one = {9.0f};
  k({.grid = 1, .block = 1}, bytes_of(records), view(pair), view(one));
  EXPECT_EQ(records[0].h[0], 3.0f);
  EXPECT_EQ(records[0].h[1], 4.0f);
  EXPECT_EQ(records[1].h[0], 9.0f);
  EXPECT_EQ(records[1].h[1], 9.0f);
  EXPECT_EQ(records[2].h[1], 7.0f);
}

TEST_F(KernelRecords, AnArrayOfAnotherShapeIsRefusedWhenStored) {
  ufjit::Kernel k = rt().kernel(source("void(" + std::string(kRec) + "[:], float32[:])", R"src(
def k(recs, three):
    recs[0].h = three
)src"));
  std::vector<Rec> records = sample(1);
  std::vector<float> three = {1.0f, 2.0f, 3.0f};
  try {
    k({.grid = 1, .block = 1}, bytes_of(records), view(three));
    FAIL() << "a shape that does not broadcast was stored";
  } catch (const ufjit::KernelError &e) {
    EXPECT_NE(std::string(e.what()).find("ValueError"), std::string::npos) << e.what();
  }
  EXPECT_EQ(records[0].h[0], 0.0f);
}

TEST_F(KernelRecords, OneRecordIsAnArgumentOfNoDimensions) {
  ufjit::Kernel k = rt().kernel(source("void(" + std::string(kRec) + ", float64[:])", R"src(
def k(r, out):
    out[0] = r[1]
    out[1] = r.ndim
    r.b = 77
    r.b += 7
)src"));
  std::vector<Rec> one = sample(3);
  std::vector<double> out(2);
  k({.grid = 1, .block = 1}, view(reinterpret_cast<uint8_t *>(&one[2]), {32}), view(out));
  EXPECT_EQ(out[0], 20.0);
  EXPECT_EQ(out[1], 0.0);
  EXPECT_EQ(one[2].b, 84);
  EXPECT_EQ(one[1].b, 10);
}

TEST_F(KernelRecords, TheSignatureSpellsTheRecordBack) {
  ufjit::Kernel k = rt().kernel(source("void(record(x: int16, y: int16(3))[:, :])", R"src(
def k(grid):
    grid[0, 0].y[2] = grid[0, 0].x
)src"));
  EXPECT_EQ(k.signatures(),
            std::vector<std::string>{"void(record(x: int16 @0, y: int16(3) @2, itemsize=8)[:, :])"});
  std::vector<int16_t> data = {5, 0, 0, 0};
  k({.grid = 1, .block = 1}, view(reinterpret_cast<uint8_t *>(data.data()), {1, 1, 8}));
  EXPECT_EQ(data[3], 5);
}

}  // namespace
