// NumPy .npy reading and writing (ufjit/npy.h): round trips of every dtype,
// C and Fortran order, 0-d and empty arrays, and every malformed-file error.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <complex>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <ufjit/npy.h>
#include <ufjit/ufjit.h>

namespace {

/// A .npy file built by hand, byte for byte as NumPy writes it (format 1.0).
std::string npy_bytes(const std::string &dict, const std::string &data, int major = 1) {
  std::string header = dict;
  const std::size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64 != 0) {
    header.push_back(' ');
  }
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const auto len = static_cast<uint32_t>(header.size());
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) {
    out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  }
  return out + header + data;
}

template <typename T>
std::string raw(const std::vector<T> &v) {
  return std::string(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));
}

std::string expect_input_error(const std::string &bytes) {
  try {
    ufjit::parse_npy(bytes, "bad.npy");
  } catch (const ufjit::InputError &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InputError";
  return "";
}

TEST(Npy, ReadsFloat32CArrayWrittenByNumPyLayout) {
  const std::vector<float> data = {1, 2, 3, 4, 5, 6};
  const std::string bytes =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", raw(data));
  ufjit::Array a = ufjit::parse_npy(bytes);
  EXPECT_EQ(a.dtype(), ufjit::DType::Float32);
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.to_vector<float>(), data);
}

TEST(Npy, FortranOrderFileGivesFortranStridedView) {
  // Logical [[1,2,3],[4,5,6]] stored column-major: 1 4 2 5 3 6.
  const std::vector<int32_t> column_major = {1, 4, 2, 5, 3, 6};
  const std::string bytes =
      npy_bytes("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", raw(column_major));
  ufjit::Array a = ufjit::parse_npy(bytes);
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.view().strides, (std::vector<int64_t>{4, 8}));
  EXPECT_TRUE(a.view().is_f_contiguous());
  const auto *p = static_cast<const char *>(a.data());
  int32_t v12;  // element [1, 2] == 6
  std::memcpy(&v12, p + 1 * 4 + 2 * 8, 4);
  EXPECT_EQ(v12, 6);
}

TEST(Npy, ZeroDimAndEmptyArrays) {
  const std::vector<double> one = {2.5};
  ufjit::Array s = ufjit::parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", raw(one)));
  EXPECT_EQ(s.view().ndim(), 0);
  EXPECT_EQ(s.to_vector<double>(), one);
  ufjit::Array e = ufjit::parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", ""));
  EXPECT_EQ(e.shape(), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(e.size(), 0);
}

TEST(Npy, Versions2And3HaveFourByteHeaderLength) {
  const std::vector<uint16_t> data = {7, 8};
  for (int major : {2, 3}) {
    ufjit::Array a =
        ufjit::parse_npy(npy_bytes("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", raw(data), major));
    EXPECT_EQ(a.to_vector<uint16_t>(), data) << "version " << major;
  }
}

TEST(Npy, EveryDtypeRoundTrips) {
  const std::vector<std::pair<ufjit::DType, std::string>> dtypes = {
      {ufjit::DType::Bool, "|b1"},     {ufjit::DType::Int8, "|i1"},       {ufjit::DType::Int16, "<i2"},
      {ufjit::DType::Int32, "<i4"},    {ufjit::DType::Int64, "<i8"},      {ufjit::DType::UInt8, "|u1"},
      {ufjit::DType::UInt16, "<u2"},   {ufjit::DType::UInt32, "<u4"},     {ufjit::DType::UInt64, "<u8"},
      {ufjit::DType::Float16, "<f2"},  {ufjit::DType::Float32, "<f4"},    {ufjit::DType::Float64, "<f8"},
      {ufjit::DType::Complex64, "<c8"}, {ufjit::DType::Complex128, "<c16"}};
  for (const auto &[dtype, descr] : dtypes) {
    ufjit::Array a = ufjit::Array::host(dtype, {3, 2});
    auto *p = static_cast<unsigned char *>(a.data());
    for (std::size_t i = 0; i < 6 * ufjit::dtype_size(dtype); ++i) {
      p[i] = static_cast<unsigned char>(dtype == ufjit::DType::Bool ? (i % 2) : (i * 37 + 11));
    }
    const std::string bytes = ufjit::serialize_npy(a);
    EXPECT_NE(bytes.find("'descr': '" + descr + "'"), std::string::npos) << descr;
    EXPECT_EQ(bytes.size() % 64, (6 * ufjit::dtype_size(dtype)) % 64) << "data starts on a 64-byte boundary";
    ufjit::Array b = ufjit::parse_npy(bytes);
    EXPECT_EQ(b.dtype(), dtype) << descr;
    EXPECT_EQ(b.shape(), a.shape()) << descr;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), 6 * ufjit::dtype_size(dtype)), 0) << descr;
  }
}

TEST(Npy, NonContiguousViewIsWrittenInCOrder) {
  std::vector<int16_t> base = {0, 1, 2, 3, 4, 5, 6, 7};
  ufjit::ArrayView every_other{base.data(), ufjit::DType::Int16, {4}, {4}};
  ufjit::Array back = ufjit::parse_npy(ufjit::serialize_npy(every_other));
  EXPECT_EQ(back.to_vector<int16_t>(), (std::vector<int16_t>{0, 2, 4, 6}));
  ufjit::ArrayView reversed{base.data() + 7, ufjit::DType::Int16, {8}, {-2}};
  EXPECT_EQ(ufjit::parse_npy(ufjit::serialize_npy(reversed)).to_vector<int16_t>(),
            (std::vector<int16_t>{7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(Npy, FortranViewIsWrittenAsFortranOrder) {
  std::vector<float> storage = {1, 4, 2, 5, 3, 6};
  ufjit::ArrayView f{storage.data(), ufjit::DType::Float32, {2, 3}, {4, 8}};
  const std::string bytes = ufjit::serialize_npy(f);
  EXPECT_NE(bytes.find("'fortran_order': True"), std::string::npos);
  ufjit::Array back = ufjit::parse_npy(bytes);
  EXPECT_EQ(back.view().strides, (std::vector<int64_t>{4, 8}));
}

TEST(Npy, SaveIsAtomicAndLoadReadsItBack) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ufjit_npy_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "x.npy").string();
  std::vector<double> v = {1.5, -2.5, 3.25};
  ufjit::save_npy(path, ufjit::view(v));
  EXPECT_EQ(ufjit::load_npy(path).to_vector<double>(), v);
  // No temporary file is left beside it.
  int files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
  // A failed save (the directory does not exist) leaves nothing behind.
  EXPECT_THROW(ufjit::save_npy((dir / "missing" / "y.npy").string(), ufjit::view(v)), ufjit::InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));
  std::filesystem::remove_all(dir);
}

TEST(Npy, MissingFileIsAnInputError) {
  EXPECT_THROW(ufjit::load_npy("/nonexistent/dir/file.npy"), ufjit::InputError);
}

TEST(NpyMalformed, BadMagic) {
  EXPECT_NE(expect_input_error("PK\x03\x04 not npy at all").find("magic"), std::string::npos);
  EXPECT_NE(expect_input_error("").find("magic"), std::string::npos);
}

TEST(NpyMalformed, UnsupportedVersion) {
  std::string b = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
  b[6] = 9;
  EXPECT_NE(expect_input_error(b).find("version 9.0"), std::string::npos);
}

TEST(NpyMalformed, TruncatedHeader) {
  std::string b = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "");
  EXPECT_NE(expect_input_error(b.substr(0, 9)).find("truncated"), std::string::npos);
  EXPECT_NE(expect_input_error(b.substr(0, 40)).find("truncated"), std::string::npos);
}

TEST(NpyMalformed, TruncatedData) {
  const std::string msg =
      expect_input_error(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", std::string(40, 'x')));
  EXPECT_NE(msg.find("needs 48 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("holds 40"), std::string::npos) << msg;
}

TEST(NpyMalformed, BadHeaderDict) {
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '<f4', 'fortran_order': False", "")).find("malformed"),
            std::string::npos);
  EXPECT_NE(expect_input_error(npy_bytes("not a dict", "")).find("malformed"), std::string::npos);
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '<f4', 'shape': (1,), }", "1234")).find("fortran_order"),
            std::string::npos);
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", "1234"))
                .find("malformed"),
            std::string::npos);
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "1234"))
                .find("non-negative"),
            std::string::npos);
}

TEST(NpyMalformed, UnsupportedDtypes) {
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", "1234"))
                .find("big-endian"),
            std::string::npos);
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", "12345678"))
                .find("unsupported dtype '|O'"),
            std::string::npos);
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", "123456789012"))
                .find("unsupported dtype"),
            std::string::npos);
  EXPECT_NE(expect_input_error(
                npy_bytes("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }", "12345678"))
                .find("structured"),
            std::string::npos);
}

TEST(NpyMalformed, AbsurdShapes) {
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': "
                                         "(4294967296, 4294967296), }",
                                         "12345678"))
                .find("more"),
            std::string::npos);
  EXPECT_NE(expect_input_error(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': "
                                         "(99999999999999999999,), }",
                                         "12345678"))
                .find("64 bits"),
            std::string::npos);
  // A huge header length field.
  std::string b = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "1234", 2);
  b[8] = b[9] = b[10] = b[11] = static_cast<char>(0xff);
  EXPECT_NE(expect_input_error(b).find("absurd"), std::string::npos);
}

TEST(NpyMalformed, DeviceViewCannotBeSaved) {
  ufjit::ArrayView d{reinterpret_cast<void *>(uintptr_t{256}), ufjit::DType::Float32, {1}, {4},
                     ufjit::Residence::Device};
  EXPECT_THROW(ufjit::serialize_npy(d), ufjit::InputError);
}

// ------------------------------------------------ load_npy: files, mmap

/// A private temporary directory, removed with everything in it.
class NpyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ufjit_npyfile_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string &name, const std::string &bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::filesystem::path dir_;
};

/// The /proc/self/maps line whose range holds `address` ("" when none).
std::string mapping_of(const void *address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto a = reinterpret_cast<uintptr_t>(address);
  while (std::getline(maps, line)) {
    uintptr_t lo = 0;
    uintptr_t hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2 && lo <= a && a < hi) {
      return line;
    }
  }
  return "";
}

std::string load_error(const std::string &path) {
  try {
    ufjit::load_npy(path);
  } catch (const ufjit::InputError &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InputError for " << path;
  return "";
}

TEST_F(NpyFile, LoadMapsTheFileInsteadOfCopyingIt) {
  const std::vector<double> data = {1.5, 2.5, 3.5, 4.5};
  const std::string path =
      write("m.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", raw(data)));
  ufjit::Array a = ufjit::load_npy(path);
  EXPECT_EQ(a.to_vector<double>(), data);
  const std::string line = mapping_of(a.data());
  EXPECT_NE(line.find("m.npy"), std::string::npos)
      << "the array's memory is not the file's mapping: " << line;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u) << "np.save's 64-byte data alignment is kept";
}

TEST_F(NpyFile, MappingOutlivesTheFileAndWritesNeverReachIt) {
  const std::vector<int32_t> data = {7, 8, 9};
  const std::string bytes = npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", raw(data));
  const std::string path = write("w.npy", bytes);
  ufjit::Array a = ufjit::load_npy(path);
  a.host_data<int32_t>()[0] = 42;  // copy-on-write: the file keeps 7
  std::ifstream in(path, std::ios::binary);
  const std::string on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(on_disk, bytes);
  std::filesystem::remove(path);
  ufjit::Array moved = std::move(a);
  EXPECT_EQ(moved.to_vector<int32_t>(), (std::vector<int32_t>{42, 8, 9}));
}

TEST_F(NpyFile, FortranFileIsAStridedViewOfTheMapping) {
  const std::vector<int64_t> column_major = {1, 4, 2, 5, 3, 6};
  ufjit::Array a = ufjit::load_npy(write(
      "f.npy", npy_bytes("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3), }", raw(column_major))));
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.view().strides, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(static_cast<int64_t *>(a.data())[2], 2);
}

TEST_F(NpyFile, UnalignedDataIsCopiedToAnAlignedBuffer) {
  // A hand-made header of odd length puts the data at an odd offset.
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
  header += "\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size()));
  bytes.push_back(0);
  const std::vector<double> data = {0.25, -8.0};
  ufjit::Array a = ufjit::load_npy(write("odd.npy", bytes + header + raw(data)));
  EXPECT_EQ(a.to_vector<double>(), data);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % alignof(double), 0u);
}

TEST_F(NpyFile, EmptyAndZeroDimensionalFiles) {
  ufjit::Array e = ufjit::load_npy(
      write("e.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", "")));
  EXPECT_EQ(e.shape(), (std::vector<int64_t>{0, 3}));
  const std::vector<double> one = {6.5};
  ufjit::Array s = ufjit::load_npy(
      write("s.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", raw(one))));
  EXPECT_EQ(s.view().ndim(), 0);
  EXPECT_EQ(s.to_vector<double>(), one);
}

TEST_F(NpyFile, SizeMustMatchTheHeaderExactly) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 1000), }";
  EXPECT_NE(load_error(write("big.npy", npy_bytes(dict, std::string(16, '\0')))).find("truncated"),
            std::string::npos);
  const std::string extra = load_error(
      write("extra.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "1234junk")));
  EXPECT_NE(extra.find("4 bytes follow the data"), std::string::npos) << extra;
  EXPECT_NE(load_error(write("empty.npy", "")).find("empty file"), std::string::npos);
}

TEST_F(NpyFile, SaveWritesThroughSymlinksAndDevicesAndKeepsModes) {
  const std::vector<int16_t> v = {1, -2, 3};
  const std::string real = (dir_ / "real.npy").string();
  const std::string link = (dir_ / "link.npy").string();
  ASSERT_EQ(::symlink("real.npy", link.c_str()), 0);
  ufjit::save_npy(link, ufjit::view(v));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(ufjit::load_npy(real).to_vector<int16_t>(), v);

  ASSERT_EQ(::chmod(real.c_str(), 0640), 0);
  ufjit::save_npy(real, ufjit::view(v));
  struct stat st;
  ASSERT_EQ(::stat(real.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);

  ASSERT_EQ(::chmod(real.c_str(), 0444), 0);  // refused by its mode, even for root
  EXPECT_THROW(ufjit::save_npy(real, ufjit::view(std::vector<int16_t>{9})), ufjit::InputError);
  EXPECT_EQ(ufjit::load_npy(real).to_vector<int16_t>(), v);

  if (::stat("/dev/full", &st) == 0) {
    try {
      ufjit::save_npy("/dev/full", ufjit::view(v));
      ADD_FAILURE() << "writing /dev/full succeeded";
    } catch (const ufjit::InputError &e) {
      EXPECT_NE(std::string(e.what()).find("No space left"), std::string::npos) << e.what();
    }
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full was replaced";
  }
  int files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir_)) {
    files += entry.path().filename().string().find(".tmp-") == std::string::npos ? 1 : 100;
  }
  EXPECT_EQ(files, 2) << "a temporary file was left";
}

TEST_F(NpyFile, NonRegularFilesAreRefusedWithoutReading) {
  EXPECT_NE(load_error(dir_.string()).find("is a directory"), std::string::npos);
  const std::string fifo = (dir_ / "p.npy").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(load_error(fifo).find("FIFO"), std::string::npos);  // returns at once: no writer needed
  EXPECT_NE(load_error("/dev/zero").find("character device"), std::string::npos);
  EXPECT_NE(load_error((dir_ / "missing.npy").string()).find("No such file"), std::string::npos);
}

}  // namespace
