// NVRTC through dlopen, and its log as located diagnostics.
#include "interop/cudacpp/Nvrtc.h"

#include <nvrtc.h>

#include <charconv>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include "codegen/DeviceImage.h"
#include "support/Diagnostics.h"
#include "interop/cudacpp/HelperCompiler.h"
#include "support/DynamicLibrary.h"
#include "support/EnumNames.h"
#include "ufjit/errors.h"

namespace ufjit::cudacpp {
namespace {

struct NvrtcApi {
#define UFJIT_DL_FN(symbol) decltype(&::symbol) symbol = nullptr;
#include "interop/cudacpp/nvrtc_functions.def"
  std::string error;  // non-empty: not usable, and why
};

NvrtcApi load_api() {
  support::LibrarySpec spec{
      "NVRTC", support::toolkit_library_candidates("nvrtc", {13, 12}, "UFJIT_NVRTC"),
      "install the CUDA toolkit's NVRTC (Debian/Ubuntu package cuda-nvrtc-13-0 from NVIDIA's repository, or "
      "the CUDA toolkit at /usr/local/cuda) or set UFJIT_NVRTC to the library's path"};
  return support::load_library_api<NvrtcApi>(spec, [](support::DynamicLibrary &lib, NvrtcApi &api) {
#define UFJIT_DL_FN(symbol) lib.resolve(#symbol, api.symbol);
#include "interop/cudacpp/nvrtc_functions.def"
  });
}

const NvrtcApi &api() {
  static const NvrtcApi loaded = load_api();  // once per process, then read-only
  return loaded;
}

/// Destroys the program on every path out of nvrtc_compile.
using Program = support::ScopedLibraryHandle<nvrtcProgram, decltype(&::nvrtcDestroyProgram)>;

[[noreturn]] void fail(const NvrtcApi &nv, const char *call, nvrtcResult result, const std::string &name) {
  throw Error(std::string("NVRTC ") + call + " failed for " + name + ": " + nv.nvrtcGetErrorString(result));
}

/// One output of a compiled program into `bytes`: its size from
/// `get_size`, then the bytes from `get`.
template <typename GetSize, typename Get>
nvrtcResult read_output(nvrtcProgram program, GetSize get_size, Get get, std::string &bytes) {
  size_t size = 0;
  nvrtcResult r = get_size(program, &size);
  if (r == NVRTC_SUCCESS) {
    bytes.assign(size, '\0');
    r = get(program, bytes.data());
  }
  return r;
}

std::string program_log(const NvrtcApi &nv, nvrtcProgram program) {
  size_t size = 0;
  if (nv.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) {
    return "";
  }
  std::string log(size, '\0');
  if (nv.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) {
    return "";
  }
  while (!log.empty() && log.back() == '\0') {
    log.pop_back();
  }
  return log;
}

/// Reads a header a log line names, when it exists: relative names through
/// the include folders.
std::shared_ptr<const SourceFile> read_named_file(const NvrtcSource &source, const std::string &name) {
  std::vector<std::string> paths = {name};
  for (const std::string &dir : source.include_dirs) {
    paths.push_back(dir + "/" + name);
  }
  for (const std::string &path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      return std::make_shared<const SourceFile>(name, text.str());
    }
  }
  return nullptr;
}

/// The caret column of NVRTC's echo: the source line printed with two more
/// leading spaces, then a line holding only a caret.
int caret_column(const std::vector<std::string> &lines, std::size_t at) {
  if (at + 2 >= lines.size()) {
    return 1;
  }
  const std::string &caret = lines[at + 2];
  const std::size_t pos = caret.find('^');
  if (pos == std::string::npos || caret.find_first_not_of(" ^") != std::string::npos || pos < 2) {
    return 1;
  }
  return static_cast<int>(pos - 2) + 1;
}

/// Fills `diags` from an NVRTC log. `failed`: NVRTC rejected the source, so
/// at least one error is reported even when no log line could be read.
void parse_log(const NvrtcSource &source, const std::string &log, bool failed, DiagnosticEngine &diags) {
  auto main_file = std::make_shared<const SourceFile>(source.name, source.text);
  diags.retain(main_file);
  std::map<std::string, std::shared_ptr<const SourceFile>> files = {{source.name, main_file}};
  for (const auto &[name, text] : source.line_files) {
    auto file = std::make_shared<const SourceFile>(name, text);
    diags.retain(file);
    files.emplace(name, file);
  }
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  // "helpers.cu(2): error: ..." / "warning #177-D: ..." / "catastrophic error: ..."
  static const std::regex kLine(R"(^(.+)\((\d+)\): (error|catastrophic error|warning|remark)( #[0-9A-Za-z-]+)?: (.*)$)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, kLine)) {
      continue;
    }
    const std::string file_name = m[1].str();
    auto found = files.find(file_name);
    if (found == files.end()) {
      std::shared_ptr<const SourceFile> file = read_named_file(source, file_name);
      if (file == nullptr) {
        file = std::make_shared<const SourceFile>(file_name, "");
      }
      diags.retain(file);
      found = files.emplace(file_name, file).first;
    }
    SourceLocation loc;
    loc.file = found->second.get();
    // A `#line` directive can claim any number: past int, no line (0).
    const std::string line_digits = m[2].str();
    loc.line = 0;
    std::from_chars(line_digits.data(), line_digits.data() + line_digits.size(), loc.line);
    loc.col = caret_column(lines, i);
    const std::string kind = m[3].str();
    const std::string message = m[5].str();
    if (kind == "warning" || kind == "remark") {
      diags.warning(loc, message);
    } else {
      diags.error(loc, message);
    }
  }
  if (failed && !diags.has_errors()) {
    // A log NVRTC wrote in another shape (or none): keep it whole, at the file.
    SourceLocation loc;
    loc.file = main_file.get();
    loc.line = 1;
    loc.col = 1;
    diags.error(loc, log.empty() ? "NVRTC rejected the file without a message" : "NVRTC rejected the file:\n" + log);
  }
}

const char *output_name(NvrtcOutput output) {
  static constexpr support::EnumName<NvrtcOutput> kNames[] = {
      {NvrtcOutput::Ptx, "PTX"}, {NvrtcOutput::LtoIr, "LTO-IR"}, {NvrtcOutput::Cubin, "cubin"}};
  return support::enum_name(output, kNames, "?");
}

/// Installs compile_link_file as codegen's CUDA C++ compiler when the interop
/// is linked in (libufjit.so always; a static link that uses NVRTC).
const bool kInstalled = [] {
  codegen::set_cuda_source_compiler(&compile_link_file);
  return true;
}();

}  // namespace

bool nvrtc_available(std::string *why) {
  if (why != nullptr) {
    *why = api().error;
  }
  return api().error.empty();
}

std::string nvrtc_version() {
  const NvrtcApi &nv = api();
  if (!nv.error.empty()) {
    throw Error(nv.error);
  }
  int major = 0;
  int minor = 0;
  nv.nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string rewrite_nvrtc_log(const NvrtcSource &source, const std::string &log) {
  DiagnosticEngine diags;
  parse_log(source, log, false, diags);
  return diags.render_all();
}

std::string nvrtc_compile(const NvrtcSource &source, const std::string &arch, NvrtcOutput output) {
  const NvrtcApi &nv = api();
  if (!nv.error.empty()) {
    throw Error(nv.error);
  }
  if (arch.size() < 4 || arch.compare(0, 3, "sm_") != 0) {
    throw Error("NVRTC needs an arch of the form sm_XX, not '" + arch + "'");
  }
  const std::string number = arch.substr(3);
  std::vector<std::string> option_text;
  option_text.push_back(output == NvrtcOutput::Cubin ? "-arch=sm_" + number : "-arch=compute_" + number);
  option_text.emplace_back("-std=c++17");
  option_text.emplace_back("-rdc=true");
  if (output == NvrtcOutput::LtoIr) {
    option_text.emplace_back("-dlto");
  }
  for (const std::string &dir : source.include_dirs) {
    option_text.push_back("-I" + dir);
  }
  option_text.insert(option_text.end(), source.options.begin(), source.options.end());
  std::vector<const char *> options;
  for (const std::string &option : option_text) {
    options.push_back(option.c_str());
  }
  Program program(nv.nvrtcDestroyProgram);
  nvrtcResult r = nv.nvrtcCreateProgram(program.address(), source.text.c_str(), source.name.c_str(), 0, nullptr,
                                        nullptr);
  if (r != NVRTC_SUCCESS) {
    fail(nv, "nvrtcCreateProgram", r, source.name);
  }
  r = nv.nvrtcCompileProgram(program.get(), static_cast<int>(options.size()), options.data());
  if (r == NVRTC_ERROR_COMPILATION) {
    DiagnosticEngine diags;
    parse_log(source, program_log(nv, program.get()), true, diags);
    diags.throw_if_errors();
  }
  if (r != NVRTC_SUCCESS) {
    std::string message = std::string("NVRTC nvrtcCompileProgram failed for ") + source.name + ": " +
                          nv.nvrtcGetErrorString(r);
    const std::string log = program_log(nv, program.get());
    if (!log.empty()) {
      message += "\n" + log;
    }
    throw Error(message);
  }
  std::string bytes;
  switch (output) {
    case NvrtcOutput::Ptx:
      r = read_output(program.get(), nv.nvrtcGetPTXSize, nv.nvrtcGetPTX, bytes);
      while (!bytes.empty() && bytes.back() == '\0') {
        bytes.pop_back();
      }
      break;
    case NvrtcOutput::LtoIr:
      r = read_output(program.get(), nv.nvrtcGetLTOIRSize, nv.nvrtcGetLTOIR, bytes);
      break;
    case NvrtcOutput::Cubin:
      r = read_output(program.get(), nv.nvrtcGetCUBINSize, nv.nvrtcGetCUBIN, bytes);
      break;
  }
  if (r != NVRTC_SUCCESS) {
    throw Error(std::string("NVRTC could not give the ") + output_name(output) + " of " + source.name + ": " +
                nv.nvrtcGetErrorString(r));
  }
  return bytes;
}

}  // namespace ufjit::cudacpp
