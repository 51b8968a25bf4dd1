// NumPy .npy reading and writing (ufjit/npy.h).
//
// The header is a Python dict literal: {'descr': '<f4', 'fortran_order':
// False, 'shape': (3, 4), }. We parse that small literal grammar ourselves
// (strings, True/False, tuples of integers) and reject everything else.
#include "ufjit/npy.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <variant>

#include "support/Diagnostics.h"
#include "runtime/Backend.h"
#include "runtime/Broadcast.h"
#include "runtime/Files.h"
#include "ufjit/errors.h"
#include "ufjit/files.h"

namespace ufjit {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
/// Refuse headers larger than this (NumPy itself limits them to 10000 bytes
/// by default); anything bigger is not a real .npy header.
constexpr uint32_t kMaxHeaderBytes = 1u << 20;

[[noreturn]] void fail(const std::string &name, const std::string &what) {
  throw InputError(name + ": " + what);
}

// ------------------------------------------------------ the header literal

using Tuple = std::vector<int64_t>;
using Value = std::variant<std::string, bool, Tuple>;

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string &name) : text_(text), name_(name) {}

  std::map<std::string, Value> parse_dict() {
    std::map<std::string, Value> dict;
    skip_space();
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      std::string key = parse_string();
      skip_space();
      expect(':');
      skip_space();
      Value value = parse_value();
      if (!dict.emplace(key, std::move(value)).second) {
        bad("the key '" + key + "' appears twice");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      expect('}');
      break;
    }
    skip_space();
    if (pos_ != text_.size()) {
      bad("unexpected text after the dictionary");
    }
    return dict;
  }

 private:
  [[noreturn]] void bad(const std::string &what) const {
    fail(name_, "malformed .npy header (" + what + ") in " + quote_header());
  }
  std::string quote_header() const {
    std::string h(text_.substr(0, 200));
    while (!h.empty() && (h.back() == ' ' || h.back() == '\n')) {
      h.pop_back();
    }
    for (char &c : h) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
        c = '?';
      }
    }
    return "\"" + h + "\"";
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  void expect(char c) {
    if (peek() != c) {
      bad(std::string("expected '") + c + "'");
    }
    ++pos_;
  }
  std::string parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') {
      bad("expected a quoted string");
    }
    ++pos_;
    const std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) {
      bad("unterminated string");
    }
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  Value parse_value() {
    const char c = peek();
    if (c == '\'' || c == '"') {
      return parse_string();
    }
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    if (c == '(') {
      return parse_tuple();
    }
    if (c == '[') {
      bad("structured dtypes (a list as 'descr') are not supported");
    }
    bad("unsupported value");
  }
  Tuple parse_tuple() {
    expect('(');
    Tuple t;
    while (true) {
      skip_space();
      if (peek() == ')') {
        ++pos_;
        return t;
      }
      t.push_back(parse_int());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(')');
      return t;
    }
  }
  int64_t parse_int() {
    if (peek() < '0' || peek() > '9') {
      bad("a shape holds non-negative integers only");
    }
    int64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, peek() - '0', &v)) {
        bad("a dimension does not fit in 64 bits");
      }
      ++pos_;
    }
    if (peek() == 'L') {
      ++pos_;  // Python 2 long suffix, written by old NumPy
    }
    return v;
  }

  std::string_view text_;
  const std::string &name_;
  std::size_t pos_ = 0;
};

// ------------------------------------------------------------ dtype strings

struct DescrEntry {
  const char *code;  // without the byte-order character
  DType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"b1", DType::Bool},       {"?", DType::Bool},         {"i1", DType::Int8},    {"i2", DType::Int16},
    {"i4", DType::Int32},      {"i8", DType::Int64},       {"u1", DType::UInt8},   {"u2", DType::UInt16},
    {"u4", DType::UInt32},     {"u8", DType::UInt64},      {"f2", DType::Float16}, {"f4", DType::Float32},
    {"f8", DType::Float64},    {"c8", DType::Complex64},   {"c16", DType::Complex128},
};

DType parse_descr(const std::string &descr, const std::string &name) {
  std::string code = descr;
  char order = '|';
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '=')) {
    order = code[0];
    code = code.substr(1);
  }
  for (const DescrEntry &e : kDescrs) {
    if (code != e.code) {
      continue;
    }
    if (order == '>' && dtype_size(e.dtype) > 1) {
      fail(name, "big-endian dtype '" + escape_text(descr) +
                     "' is not supported; convert with "
                     "a.astype(a.dtype.newbyteorder('<')) in NumPy");
    }
    if (order == '=' && dtype_size(e.dtype) > 1) {
      fail(name, "native-order dtype '" + escape_text(descr) + "' is ambiguous in a file; expected '<'");
    }
    return e.dtype;
  }
  fail(name, "unsupported dtype '" + escape_text(descr) +
                 "' (ufjit reads bool, int8..int64, uint8..uint64, float16/32/64, complex64/128)");
}

std::string descr_of(DType t) {
  const char order = dtype_size(t) == 1 ? '|' : '<';
  for (const DescrEntry &e : kDescrs) {
    if (e.dtype == t && std::string(e.code) != "?") {
      return std::string(1, order) + e.code;
    }
  }
  throw InternalError("no .npy descr for a dtype");
}

uint32_t read_le(const char *bytes, std::size_t offset, std::size_t width) {
  uint32_t v = 0;
  for (std::size_t i = 0; i < width; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return v;
}

/// What a .npy header declares, checked against the file's size.
struct NpyLayout {
  DType dtype = DType::Float64;
  std::vector<int64_t> shape;
  bool fortran = false;
  std::size_t data_start = 0;
  std::size_t data_bytes = 0;
};

/// Parses and checks the preamble and header of the `size` bytes at `bytes`:
/// the data must fill the rest of the file exactly (no more, no less).
NpyLayout parse_layout(const char *bytes, std::size_t size, const std::string &name) {
  if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0) {
    fail(name, size == 0 ? "empty file, not a .npy file (no magic string)"
                         : "not a .npy file (bad magic string; expected \\x93NUMPY)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    fail(name, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (supported: 1.0, 2.0, 3.0)");
  }
  const std::size_t len_width = major == 1 ? 2 : 4;
  const std::size_t header_start = kMagicSize + 2 + len_width;
  if (size < header_start) {
    fail(name, "truncated .npy file (the header length is cut off)");
  }
  const uint32_t header_len = read_le(bytes, kMagicSize + 2, len_width);
  if (header_len > kMaxHeaderBytes) {
    fail(name, "the .npy header claims " + std::to_string(header_len) + " bytes, which is absurd");
  }
  if (size < header_start + header_len) {
    fail(name, "truncated .npy file (the header claims " + std::to_string(header_len) +
                   " bytes, the file has " + std::to_string(size - header_start) + " after the preamble)");
  }
  const std::string_view header(bytes + header_start, header_len);
  std::map<std::string, Value> dict = HeaderParser(header, name).parse_dict();
  for (const char *key : {"descr", "fortran_order", "shape"}) {
    if (dict.count(key) == 0) {
      fail(name, std::string("the .npy header has no '") + key + "' key");
    }
  }
  if (dict.size() != 3) {
    fail(name, "the .npy header has keys other than 'descr', 'fortran_order' and 'shape'");
  }
  const auto *descr = std::get_if<std::string>(&dict["descr"]);
  const auto *fortran = std::get_if<bool>(&dict["fortran_order"]);
  const auto *shape = std::get_if<Tuple>(&dict["shape"]);
  if (descr == nullptr || fortran == nullptr || shape == nullptr) {
    fail(name, "the .npy header's 'descr' must be a string, 'fortran_order' a bool and 'shape' a tuple");
  }
  NpyLayout layout;
  layout.dtype = parse_descr(*descr, name);
  layout.shape = *shape;
  layout.fortran = *fortran;
  int64_t count = 0;
  try {
    count = runtime::checked_size(*shape);
  } catch (const ShapeError &) {
    fail(name, "the shape " + runtime::format_shape(*shape) + " has more elements than fit in memory");
  }
  const auto itemsize = static_cast<int64_t>(dtype_size(layout.dtype));
  int64_t needed = 0;
  if (__builtin_mul_overflow(count, itemsize, &needed)) {
    fail(name, "the shape " + runtime::format_shape(*shape) + " has more bytes than fit in memory");
  }
  layout.data_start = header_start + header_len;
  layout.data_bytes = static_cast<std::size_t>(needed);
  const std::size_t available = size - layout.data_start;
  if (layout.data_bytes > available) {
    fail(name, "truncated .npy data: shape " + runtime::format_shape(*shape) + " of " + *descr + " needs " +
                   std::to_string(needed) + " bytes, the file holds " + std::to_string(available));
  }
  if (layout.data_bytes < available) {
    fail(name, std::to_string(available - layout.data_bytes) + " bytes follow the data of shape " +
                   runtime::format_shape(*shape) + " of " + *descr +
                   " (the file is not one .npy array; np.save writes exactly the header and the data)");
  }
  return layout;
}

/// The array a layout describes, over `data` owned by `holder`: a Fortran
/// file gives a Fortran-strided view (no transpose).
Array view_layout(const NpyLayout &layout, void *data, std::shared_ptr<Array::Holder> holder) {
  ArrayView view;
  view.dtype = layout.dtype;
  view.data = data;
  std::vector<int64_t> memory_shape = layout.shape;
  if (layout.fortran) {
    std::reverse(memory_shape.begin(), memory_shape.end());
  }
  view.strides = ArrayView::c_strides(memory_shape, dtype_size(layout.dtype));
  if (layout.fortran) {
    std::reverse(view.strides.begin(), view.strides.end());
  }
  view.shape = layout.shape;
  return Array(std::move(view), std::move(holder));
}

/// A copy of the data in a new 64-byte-aligned host buffer.
Array copy_layout(const NpyLayout &layout, const char *bytes) {
  std::vector<int64_t> memory_shape = layout.shape;
  if (layout.fortran) {
    std::reverse(memory_shape.begin(), memory_shape.end());
  }
  Array buffer = runtime::allocate_host(layout.dtype, memory_shape);
  std::memcpy(buffer.data(), bytes + layout.data_start, layout.data_bytes);
  return view_layout(layout, buffer.data(), buffer.holder());
}

/// A private (copy-on-write) mapping of a whole file: writes to the array
/// never reach the file. Unmapped when the last Array using it goes.
struct MappedFile : Array::Holder {
  MappedFile(void *address, std::size_t bytes) : address(address), bytes(bytes) {}
  ~MappedFile() override { ::munmap(address, bytes); }
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  void *address;
  std::size_t bytes;
};

}  // namespace

Array parse_npy(const std::string &bytes, const std::string &name) {
  const NpyLayout layout = parse_layout(bytes.data(), bytes.size(), name);
  return copy_layout(layout, bytes.data());
}

Array load_npy(const std::string &path) {
  const runtime::RegularFile file(path, ".npy arrays (np.save one first)");
  const std::size_t size = file.size();
  if (size == 0) {
    fail(path, "empty file, not a .npy file (no magic string)");
  }
  void *address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd(), 0);
  if (address == MAP_FAILED) {
    fail(path, "cannot map " + std::to_string(size) + " bytes into memory: " + std::strerror(errno));
  }
  auto mapping = std::make_shared<MappedFile>(address, size);
  const char *bytes = static_cast<const char *>(address);
  const NpyLayout layout = parse_layout(bytes, size, path);
  // np.save aligns the data to 64 bytes; a hand-made header may not, and the
  // kernels expect naturally aligned elements: then copy once.
  if (layout.data_start % dtype_size(layout.dtype) != 0) {
    return copy_layout(layout, bytes);
  }
  return view_layout(layout, static_cast<char *>(address) + layout.data_start, std::move(mapping));
}

void write_npy(const ArrayView &array, const std::function<void(const void *, std::size_t)> &sink) {
  if (array.residence != Residence::Host) {
    throw InputError("cannot write a device array (" + array.describe() + ") to .npy; copy it to the host first");
  }
  if (array.strides.size() != array.shape.size()) {
    throw ShapeError("the array to write has " + std::to_string(array.shape.size()) + " dimensions but " +
                     std::to_string(array.strides.size()) + " strides");
  }
  const bool c_order = array.is_c_contiguous();
  const bool fortran = !c_order && array.is_f_contiguous();
  std::string shape_text = "(";
  for (std::size_t i = 0; i < array.shape.size(); ++i) {
    shape_text += (i ? ", " : "") + std::to_string(array.shape[i]);
  }
  shape_text += array.shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + descr_of(array.dtype) + "', 'fortran_order': " +
                       (fortran ? "True" : "False") + ", 'shape': " + shape_text + ", }";
  // Pad with spaces so that the data starts on a 64-byte boundary; end in '\n'.
  const bool v2 = header.size() + 1 + kMagicSize + 4 > 65535;
  const std::size_t preamble = kMagicSize + 2 + (v2 ? 4 : 2);
  const std::size_t total = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(total - preamble - header.size() - 1, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicSize);
  out.reserve(total);
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back(0);
  const auto len = static_cast<uint32_t>(header.size());
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) {
    out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  }
  out += header;
  sink(out.data(), out.size());
  const std::size_t data_bytes = static_cast<std::size_t>(array.size()) * dtype_size(array.dtype);
  if (c_order || fortran) {
    sink(array.data, data_bytes);
    return;
  }
  Array copy = runtime::allocate_host(array.dtype, array.shape);
  runtime::copy_host_strided(array, copy.view());
  sink(copy.data(), data_bytes);
}

std::string serialize_npy(const ArrayView &array) {
  std::string out;
  write_npy(array, [&out](const void *data, std::size_t bytes) {
    out.append(static_cast<const char *>(data), bytes);
  });
  return out;
}

void save_npy(const std::string &path, const ArrayView &array) {
  OutputFile out(path);
  write_npy(array, [&out](const void *data, std::size_t bytes) { out.write(data, bytes); });
  out.commit();
}

}  // namespace ufjit
