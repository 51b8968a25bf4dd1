#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "OutputFile.h"
#include "Verbs.h"
#include "ufjit/npy.h"
#include "ufjit/runtime.h"

namespace ufjit::tool {
namespace {

struct RunOptions {
  std::string file;
  std::string function;
  std::vector<std::string> inputs;
  std::string output;
  std::string target;
};

bool parse_int(const std::string &text, int64_t &value) {
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

bool parse_double(const std::string &text, double &value) {
  if (text.empty()) return false;
  std::istringstream in(text);
  in >> value;
  return !in.fail() && in.peek() == std::char_traits<char>::eof();
}

// A command-line number is a weak scalar, as a Python literal would be:
// `3` an int, `2.5`/`1e3`/`inf`/`nan` a float, `2j`/`1+2j` a complex, True/False a bool.
std::optional<Operand> parse_scalar(const std::string &text) {
  if (text == "True" || text == "true") return Operand(true);
  if (text == "False" || text == "false") return Operand(false);
  int64_t i = 0;
  if (parse_int(text, i)) return Operand(i);
  double d = 0.0;
  if (parse_double(text, d)) return Operand(d);
  if (!text.empty() && (text.back() == 'j' || text.back() == 'J')) {
    std::string body = text.substr(0, text.size() - 1);
    // Split "re+imj" at the last sign that is not part of an exponent.
    for (std::size_t k = body.size(); k-- > 1;) {
      if ((body[k] == '+' || body[k] == '-') && body[k - 1] != 'e' && body[k - 1] != 'E') {
        double re = 0.0;
        double im = 0.0;
        if (parse_double(body.substr(0, k), re) && parse_double(body.substr(k), im)) {
          return Operand(std::complex<double>(re, im));
        }
        return std::nullopt;
      }
    }
    double im = 0.0;
    if (parse_double(body.empty() ? "1" : body, im)) return Operand(std::complex<double>(0.0, im));
  }
  return std::nullopt;
}

template <typename T>
T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

std::string format_float(double v, int digits) {
  if (v != v) return "nan";
  if (v == std::numeric_limits<double>::infinity()) return "inf";
  if (v == -std::numeric_limits<double>::infinity()) return "-inf";
  char text[40];
  std::snprintf(text, sizeof(text), "%.*g", digits, v);
  std::string s = text;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// Python's complex repr: (1.5+2j), (1-0j).
std::string format_complex(double re, double im, int digits) {
  std::string imag = format_float(im, digits);
  bool negative = std::signbit(im) && im == im;
  return "(" + format_float(re, digits) + (negative ? "" : "+") + imag + "j)";
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    float f = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24
    return sign ? -f : f;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::string format_element(DType t, const uint8_t *p) {
  switch (t) {
    case DType::Bool: return *p ? "True" : "False";
    case DType::Int8: return std::to_string(load<int8_t>(p));
    case DType::Int16: return std::to_string(load<int16_t>(p));
    case DType::Int32: return std::to_string(load<int32_t>(p));
    case DType::Int64: return std::to_string(load<int64_t>(p));
    case DType::UInt8: return std::to_string(load<uint8_t>(p));
    case DType::UInt16: return std::to_string(load<uint16_t>(p));
    case DType::UInt32: return std::to_string(load<uint32_t>(p));
    case DType::UInt64: return std::to_string(load<uint64_t>(p));
    case DType::Float16: return format_float(half_to_float(load<uint16_t>(p)), 5);
    case DType::Float32: return format_float(load<float>(p), 9);
    case DType::Float64: return format_float(load<double>(p), 17);
    case DType::Complex64: return format_complex(load<float>(p), load<float>(p + 4), 9);
    case DType::Complex128: return format_complex(load<double>(p), load<double>(p + 8), 17);
  }
  return "?";
}

// Prints a host array as a nested Python list literal (a 0-d array as its value).
void print_array(std::ostream &out, const ArrayView &a, int dim, const uint8_t *base) {
  if (dim == a.ndim()) {
    out << format_element(a.dtype, base);
    return;
  }
  out << "[";
  for (int64_t i = 0; i < a.shape[dim]; ++i) {
    if (i > 0) out << ", ";
    print_array(out, a, dim + 1, base + i * a.strides[dim]);
  }
  out << "]";
}

ExitCode run_run(const RunOptions &options) {
  // Every file the command reads, so that the output is checked against
  // them (and its directory and permissions) before anything is computed.
  std::vector<std::string> files = {options.file};
  for (const std::string &input : options.inputs) {
    if (!parse_scalar(input)) files.push_back(input);
  }
  std::optional<OutputFile> output;
  if (!options.output.empty()) output.emplace(options.output, files);

  RuntimeOptions runtime_options;
  if (options.target == "cpu") runtime_options.target = TargetKind::Cpu;
  if (options.target == "cuda") runtime_options.target = TargetKind::Cuda;
  Runtime runtime(runtime_options);
  UfuncSet ufuncs = runtime.load(read_source(options.file), options.file);
  const Ufunc &ufunc = ufuncs[options.function];

  std::vector<Array> arrays;  // keep loaded inputs alive during the call
  arrays.reserve(options.inputs.size());
  std::vector<Operand> operands;
  for (const std::string &input : options.inputs) {
    if (std::optional<Operand> scalar = parse_scalar(input)) {
      operands.push_back(*scalar);
      continue;
    }
    arrays.push_back(load_npy(input));
    operands.emplace_back(arrays.back().view());
  }
  Array result = ufunc.call(operands);
  if (!output) {
    print_array(std::cout, result.view(), 0, static_cast<const uint8_t *>(result.data()));
    std::cout << "\n";
    return ExitCode::Ok;
  }
  write_npy(result.view(), [&output](const void *data, std::size_t bytes) { output->write(data, bytes); });
  output->commit();
  return ExitCode::Ok;
}

}  // namespace

void add_run_command(CLI::App &app, ExitCode &exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App *cmd = app.add_subcommand("run", "Apply a ufunc of a .ufn file to .npy files and numbers");
  cmd->add_option("file", options->file, "the .ufn source")->required();
  cmd->add_option("func", options->function, "the ufunc to run")->required();
  cmd->add_option("--in", options->inputs, "an input: a .npy file or a number (2, 2.5, 1+2j, True)")->required();
  cmd->add_option("--out", options->output, "write the result here (.npy); default: print it");
  cmd->add_option("--target", options->target, "cuda or cpu (default: cuda where a GPU is present)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  cmd->callback([options, &exit_code] {
    try {
      exit_code = run_run(*options);
    } catch (...) {
      exit_code = report_current_exception();
    }
  });
}

}  // namespace ufjit::tool
