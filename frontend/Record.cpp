// Record types in signatures (frontend/Record.h).
#include "frontend/Record.h"

#include <algorithm>
#include <set>

#include "frontend/SignatureText.h"
#include "support/AsciiIdentifier.h"

namespace ufjit::frontend {

namespace {

/// The alignment a field of `dtype` needs: its component's size (a complex
/// number is two floats), which is what the loads of the field assume.
int64_t alignment_of(DType dtype) {
  const int64_t size = static_cast<int64_t>(dtype_size(dtype));
  return is_complex(dtype) ? size / 2 : size;
}

class RecordParser : TextCursor {
 public:
  using TextCursor::TextCursor;

  std::optional<RecordRef> parse();

 private:
  bool expect(char c, std::string_view context) {
    skip_spaces();
    if (at(c)) {
      ++pos_;
      return true;
    }
    std::string found = pos_ < text_.size() ? std::string("'") + text_[pos_] + "'" : "end of signature";
    diags_.error(loc_at(pos_), std::string("expected '") + c + "' " + std::string(context) + " in record type, found " +
                                   found);
    return false;
  }
  std::string_view word() {
    skip_spaces();
    std::size_t begin = pos_;
    while (pos_ < text_.size() && support::is_c_identifier_char(text_[pos_], pos_ == begin)) ++pos_;
    return text_.substr(begin, pos_ - begin);
  }
  std::optional<int64_t> number(std::string_view what);
  bool parse_field(RecordLayout &layout, int64_t &packed_end);
  bool check(const RecordLayout &layout, std::size_t begin);
};

std::optional<int64_t> RecordParser::number(std::string_view what) {
  skip_spaces();
  std::size_t begin = pos_;
  int64_t value = 0;
  while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
    if (value > (int64_t{1} << 40)) {
      diags_.error(loc_at(begin, pos_ - begin), "the " + std::string(what) + " is too large in record type");
      return std::nullopt;
    }
    value = value * 10 + (text_[pos_++] - '0');
  }
  if (pos_ == begin) {
    diags_.error(loc_at(pos_), "expected the " + std::string(what) + " (a number) in record type");
    return std::nullopt;
  }
  return value;
}

bool RecordParser::parse_field(RecordLayout &layout, int64_t &packed_end) {
  RecordField field;
  const std::size_t name_at = pos_;
  field.name = std::string(word());
  if (field.name.empty()) {
    diags_.error(loc_at(pos_), "expected a field name in record type");
    return false;
  }
  if (layout.field(field.name) != nullptr) {
    diags_.error(loc_at(name_at, field.name.size()), "field '" + field.name + "' appears twice in record type");
    return false;
  }
  if (!expect(':', "after the field name")) return false;
  const std::size_t type_at = pos_;
  std::string_view type = word();
  std::optional<DType> dtype = dtype_from_name(type);
  if (!dtype) {
    diags_.error(loc_at(type_at, type.size()), "unknown type '" + std::string(type) + "' of field '" + field.name +
                                                   "' (a record's fields are numbers or arrays of numbers)");
    return false;
  }
  field.dtype = *dtype;
  skip_spaces();
  if (at('(')) {
    ++pos_;
    while (true) {
      std::optional<int64_t> extent = number("extent of a subarray field");
      if (!extent) return false;
      field.shape.push_back(*extent);
      skip_spaces();
      if (!at(',')) break;
      ++pos_;
    }
    if (!expect(')', "to close the subarray's shape")) return false;
  }
  skip_spaces();
  field.offset = packed_end;
  if (at('@')) {
    ++pos_;
    std::optional<int64_t> offset = number("offset");
    if (!offset) return false;
    field.offset = *offset;
  }
  packed_end = field.offset + field.byte_size();
  layout.fields.push_back(std::move(field));
  return true;
}

bool RecordParser::check(const RecordLayout &layout, std::size_t begin) {
  const SourceLocation where = loc_at(begin, pos_ - begin);
  int64_t align = 1;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const RecordField &f : layout.fields) {
    if (f.offset + f.byte_size() > layout.itemsize) {
      diags_.error(where, "field '" + f.name + "' ends at byte " + std::to_string(f.offset + f.byte_size()) +
                              ", past the record's itemsize " + std::to_string(layout.itemsize));
      return false;
    }
    if (f.offset % alignment_of(f.dtype) != 0) {
      diags_.error(where, "field '" + f.name + "': type " + std::string(dtype_name(f.dtype)) +
                              " is not aligned (offset " + std::to_string(f.offset) + " is not a multiple of " +
                              std::to_string(alignment_of(f.dtype)) +
                              "), which a GPU cannot load; make the dtype with align=True");
      return false;
    }
    align = std::max(align, alignment_of(f.dtype));
    if (f.byte_size() > 0) spans.emplace_back(f.offset, f.offset + f.byte_size());
  }
  if (layout.itemsize % align != 0) {
    diags_.error(where, "the record's itemsize " + std::to_string(layout.itemsize) + " is not a multiple of " +
                            std::to_string(align) +
                            ", so the fields of every record after the first would be unaligned; make the dtype "
                            "with align=True");
    return false;
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first < spans[i - 1].second) {
      diags_.error(where, "two fields of the record overlap (bytes " + std::to_string(spans[i].first) + " to " +
                              std::to_string(spans[i - 1].second) + ")");
      return false;
    }
  }
  return true;
}

std::optional<RecordRef> RecordParser::parse() {
  const std::size_t begin = pos_;
  pos_ += std::string_view("record").size();
  if (!expect('(', "after 'record'")) return std::nullopt;
  auto layout = std::make_shared<RecordLayout>();
  int64_t packed_end = 0;
  std::optional<int64_t> itemsize;
  while (true) {
    skip_spaces();
    if (text_.substr(pos_, 8) == "itemsize") {
      pos_ += 8;
      if (!expect('=', "after 'itemsize'")) return std::nullopt;
      itemsize = number("itemsize");
      if (!itemsize) return std::nullopt;
    } else if (!parse_field(*layout, packed_end)) {
      return std::nullopt;
    }
    skip_spaces();
    if (at(',') && !itemsize) {
      ++pos_;
      continue;
    }
    if (!expect(')', "to close the record type")) return std::nullopt;
    break;
  }
  if (layout->fields.empty()) {
    diags_.error(loc_at(begin, pos_ - begin), "a record type needs at least one field");
    return std::nullopt;
  }
  int64_t end = 0;
  for (const RecordField &f : layout->fields) end = std::max(end, f.offset + f.byte_size());
  layout->itemsize = itemsize.value_or(end);
  if (!check(*layout, begin)) return std::nullopt;
  return RecordRef(std::move(layout));
}

}  // namespace

int64_t RecordField::byte_size() const {
  int64_t n = static_cast<int64_t>(dtype_size(dtype));
  for (int64_t e : shape) n *= e;
  return n;
}

const RecordField *RecordLayout::field(std::string_view name) const {
  for (const RecordField &f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string RecordLayout::str() const {
  std::string out = "record(";
  for (const RecordField &f : fields) {
    out += f.name + ": " + std::string(dtype_name(f.dtype));
    if (!f.shape.empty()) {
      out += "(";
      for (std::size_t d = 0; d < f.shape.size(); ++d) out += (d > 0 ? ", " : "") + std::to_string(f.shape[d]);
      out += ")";
    }
    out += " @" + std::to_string(f.offset) + ", ";
  }
  return out + "itemsize=" + std::to_string(itemsize) + ")";
}

std::optional<RecordRef> parse_record_type(std::string_view text, std::size_t &pos, SourceLocation start,
                                           DiagnosticEngine &diags) {
  return RecordParser(text, pos, start, diags).parse();
}

}  // namespace ufjit::frontend
