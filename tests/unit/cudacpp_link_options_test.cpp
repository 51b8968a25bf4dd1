// Link files given beside the source instead of in its decorator, without a
// GPU: Runtime::vectorize/load/load_file with VectorizeOptions (link,
// base_dir, nvrtc_options) and CompileRequest::link. What reaches the typed
// IR (the externs' files with their content hash and NVRTC options, so every
// cache key), where relative paths are found, and the errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/unit/cudacpp_test_util.h"
#include "ufjit/compiler.h"
#include "ufjit/runtime.h"

namespace ufjit::cudacpp {
namespace {

namespace fs = std::filesystem;
using testing::contains;

const char *kHelper =
    "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) { *ret = x * x * x + y; return 0; }\n";

// No link=[...] in the source: the files come from the options.
const char *kSource =
    "from numba import cuda\n"
    "cube_plus = cuda.declare_device('cube_plus', 'float32(float32, float32)')\n"
    "def f(x, y):\n"
    "    return cube_plus(x, y) + 1\n";

const char *kDecorated =
    "from numba import cuda\n"
    "cube_plus = cuda.declare_device('cube_plus', 'float32(float32, float32)')\n"
    "@vectorize(['float32(float32, float32)'], link=['helpers.cu'])\n"
    "def f(x, y):\n"
    "    return cube_plus(x, y) + 1\n";

// Signatures in the decorator, files from the options.
const char *kUnlinked =
    "from numba import cuda\n"
    "cube_plus = cuda.declare_device('cube_plus', 'float32(float32, float32)')\n"
    "@vectorize(['float32(float32, float32)'])\n"
    "def f(x, y):\n"
    "    return cube_plus(x, y) + 1\n";

std::string line_with(const std::string &text, const std::string &what) {
  const std::size_t at = text.find(what);
  if (at == std::string::npos) return "";
  const std::size_t start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

std::size_t count(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class LinkOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ufjit-link-options-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "lib");
    write("lib/helpers.cu", kHelper);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string &name, const std::string &text) { std::ofstream(dir_ / name) << text; }
  static Runtime cpu_runtime() {
    RuntimeOptions options;
    options.target = TargetKind::Cpu;
    return Runtime(options);
  }
  /// The typed IR of `source` saved as dir_/k.ufn, with `link` beside it.
  CompileResult ir_of(const std::string &source, const std::vector<std::string> &link,
                      const std::vector<std::string> &nvrtc_options = {}) {
    write("k.ufn", source);
    CompileRequest request;
    request.source = source;
    request.source_name = (dir_ / "k.ufn").string();
    request.emit = EmitKind::Ir;
    request.link = link;
    request.nvrtc_options = nvrtc_options;
    return compile(request);
  }
  fs::path dir_;
};

/// The CPU cannot call a CUDA C++ helper; the error names the helper and the
/// file the options linked, which shows the file was found and read.
void expect_cpu_call_names_the_helper(const Ufunc &f, const std::string &file) {
  std::vector<float> x = {1.0f};
  try {
    f(view(x), view(x));
    FAIL() << "the CPU ran a CUDA C++ helper";
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "calls CUDA C++ function 'cube_plus'")) << e.what();
    EXPECT_TRUE(contains(e.what(), file)) << e.what();
  }
}

TEST_F(LinkOptionsTest, VectorizeTakesLinkFilesFromTheOptions) {
  Runtime rt = cpu_runtime();
  VectorizeOptions options;
  options.link = {(dir_ / "lib/helpers.cu").string()};
  Ufunc f = rt.vectorize(kSource, {"float32(float32, float32)"}, options);
  EXPECT_EQ(f.signatures(), (std::vector<std::string>{"float32(float32, float32)"}));
  expect_cpu_call_names_the_helper(f, "helpers.cu");
}

TEST_F(LinkOptionsTest, WithoutLinkFilesTheSameSourceIsAnError) {
  Runtime rt = cpu_runtime();
  try {
    rt.vectorize(kSource, {"float32(float32, float32)"});
    FAIL() << "a declared helper without any file to define it compiled";
  } catch (const CompileError &e) {
    EXPECT_TRUE(contains(e.what(), "names no file that defines it")) << e.what();
    EXPECT_TRUE(contains(e.what(), "link option")) << e.what();
  }
}

TEST_F(LinkOptionsTest, RelativeLinkPathsResolveAgainstTheBaseFolder) {
  Runtime rt = cpu_runtime();
  VectorizeOptions options;
  options.link = {"helpers.cu"};
  options.base_dir = (dir_ / "lib").string();
  expect_cpu_call_names_the_helper(rt.vectorize(kSource, {"float32(float32, float32)"}, options), "helpers.cu");
}

TEST_F(LinkOptionsTest, BaseFolderAlsoAppliesToTheDecoratorsLinkList) {
  Runtime rt = cpu_runtime();
  VectorizeOptions options;
  options.base_dir = (dir_ / "lib").string();
  UfuncSet set = rt.load(kDecorated, options);
  expect_cpu_call_names_the_helper(set["f"], "helpers.cu");
}

TEST_F(LinkOptionsTest, MissingOptionFileNamesWhereItLooked) {
  Runtime rt = cpu_runtime();
  VectorizeOptions options;
  options.link = {"nothere.cu"};
  options.base_dir = dir_.string();
  options.source_name = "<mine>";
  try {
    rt.vectorize(kSource, {"float32(float32, float32)"}, options);
    FAIL() << "a missing link file was accepted";
  } catch (const CompileError &e) {
    const std::string looked = (dir_ / "nothere.cu").string();
    EXPECT_TRUE(contains(e.what(), "<mine>: error: link file 'nothere.cu' (given with the link option) not found "
                                   "(looked for " + looked + ")"))
        << e.what();
  }
}

TEST_F(LinkOptionsTest, UnknownKindOfOptionFileIsAnError) {
  Runtime rt = cpu_runtime();
  write("lib/helpers.txt", "x");
  VectorizeOptions options;
  options.link = {(dir_ / "lib/helpers.txt").string()};
  try {
    rt.vectorize(kSource, {"float32(float32, float32)"}, options);
    FAIL() << "a .txt link file was accepted";
  } catch (const CompileError &e) {
    EXPECT_TRUE(contains(e.what(), "is not .cu, .ptx, .cubin, .ltoir or .fatbin")) << e.what();
  }
}

TEST_F(LinkOptionsTest, LoadFileFindsRelativeOptionFilesBesideTheFile) {
  write("k.ufn", kUnlinked);
  Runtime rt = cpu_runtime();
  VectorizeOptions options;
  options.link = {"lib/helpers.cu"};
  expect_cpu_call_names_the_helper(rt.load_file((dir_ / "k.ufn").string(), options)["f"], "lib/helpers.cu");
}

TEST_F(LinkOptionsTest, SignatureLessUfuncsLinkPerCallSignatureToo) {
  Runtime rt = cpu_runtime();
  // The decorator's link=[...], found beside the file.
  write("dyn.ufn",
        "cube_plus = declare_device('cube_plus', 'float32(float32, float32)')\n"
        "@vectorize(link=['lib/helpers.cu'])\n"
        "def f(x, y):\n"
        "    return cube_plus(x, y)\n");
  expect_cpu_call_names_the_helper(rt.load_file((dir_ / "dyn.ufn").string())["f"], "from lib/helpers.cu");
  // The options' files, for a bare def given no signatures.
  VectorizeOptions options;
  options.link = {"helpers.cu"};
  options.base_dir = (dir_ / "lib").string();
  UfuncSet set = rt.load(
      "cube_plus = declare_device('cube_plus', 'float32(float32, float32)')\n"
      "@vectorize\n"
      "def f(x, y):\n"
      "    return cube_plus(x, y)\n",
      options);
  expect_cpu_call_names_the_helper(set["f"], "from helpers.cu");
  // And none: a located error at the first call.
  UfuncSet none = rt.load(
      "cube_plus = declare_device('cube_plus', 'float32(float32, float32)')\n"
      "@vectorize\n"
      "def f(x, y):\n"
      "    return cube_plus(x, y)\n");
  std::vector<float> x = {1.0f};
  try {
    none["f"](view(x), view(x));
    FAIL() << "a dynamic ufunc called a helper no file defines";
  } catch (const CompileError &e) {
    EXPECT_TRUE(contains(e.what(), "<string>:3:5: error: 'f' calls CUDA C++ function 'cube_plus' (declare_device) "
                                   "but names no file that defines it"))
        << e.what();
  }
}

TEST_F(LinkOptionsTest, OptionFilesReachTheIrWithTheirContentHash) {
  const std::string helper = (dir_ / "lib/helpers.cu").string();
  CompileResult first = ir_of(kUnlinked, {helper});
  ASSERT_TRUE(first.ok) << first.rendered_diagnostics;
  EXPECT_TRUE(contains(first.output, "link " + helper + " bytes=" + std::to_string(std::string(kHelper).size())))
      << first.output;
  write("lib/helpers.cu", std::string(kHelper) + "// edited\n");
  CompileResult second = ir_of(kUnlinked, {helper});
  ASSERT_TRUE(second.ok) << second.rendered_diagnostics;
  EXPECT_NE(first.output, second.output) << "the option file's content is not in the IR (nor the cache key)";
}

TEST_F(LinkOptionsTest, NvrtcOptionsAreInTheIrOfCuFilesOnly) {
  write("helpers.cu", kHelper);
  write("lib/helpers.ptx", "// not read: no .cu\n");
  CompileResult r = ir_of(kDecorated, {(dir_ / "lib/helpers.ptx").string()}, {"-DSCALE=2"});
  ASSERT_TRUE(r.ok) << r.rendered_diagnostics;
  EXPECT_TRUE(contains(line_with(r.output, "link helpers.cu "), " nvrtc:-DSCALE=2")) << r.output;
  const std::string ptx_line = line_with(r.output, "helpers.ptx bytes=20 ");
  EXPECT_FALSE(ptx_line.empty()) << r.output;
  EXPECT_FALSE(contains(ptx_line, "nvrtc:")) << r.output;
}

TEST_F(LinkOptionsTest, AFileNamedByTheDecoratorAndTheOptionIsLinkedOnce) {
  write("helpers.cu", kHelper);
  CompileResult r = ir_of(kDecorated, {(dir_ / "helpers.cu").string()});
  ASSERT_TRUE(r.ok) << r.rendered_diagnostics;
  EXPECT_EQ(count(r.output, "\nlink "), 1u) << r.output;
}

TEST_F(LinkOptionsTest, CubinLinksAnOptionFileWithNvJitLink) {
  SKIP_WITHOUT_NVRTC();
  write("k.ufn", kUnlinked);
  CompileRequest request;
  request.source = kUnlinked;
  request.source_name = (dir_ / "k.ufn").string();
  request.emit = EmitKind::Cubin;
  request.link = {"lib/helpers.cu"};  // relative: from the source's folder
  CompileResult r = compile(request);
  ASSERT_TRUE(r.ok) << r.rendered_diagnostics;
  EXPECT_EQ(r.output.substr(0, 4), std::string("\x7f" "ELF", 4));
}

TEST_F(LinkOptionsTest, NvrtcOptionsReachNvrtc) {
  SKIP_WITHOUT_NVRTC();
  write("helpers.cu",
        "extern \"C\" __device__ int cube_plus(float *ret, float x, float y) { *ret = SCALE * x; return 0; }\n");
  write("k.ufn", kDecorated);
  CompileRequest request;
  request.source = kDecorated;
  request.source_name = (dir_ / "k.ufn").string();
  request.emit = EmitKind::Cubin;
  CompileResult without = [&] {
    try {
      return compile(request);
    } catch (const CompileError &e) {
      CompileResult failed;
      failed.rendered_diagnostics = e.what();
      return failed;
    }
  }();
  EXPECT_FALSE(without.ok);
  EXPECT_TRUE(contains(without.rendered_diagnostics, "helpers.cu:1:")) << without.rendered_diagnostics;
  EXPECT_TRUE(contains(without.rendered_diagnostics, "\"SCALE\" is undefined")) << without.rendered_diagnostics;
  request.nvrtc_options = {"-DSCALE=2.0f"};
  CompileResult with = compile(request);
  ASSERT_TRUE(with.ok) << with.rendered_diagnostics;
  EXPECT_EQ(with.output.substr(0, 4), std::string("\x7f" "ELF", 4));
}

}  // namespace
}  // namespace ufjit::cudacpp
