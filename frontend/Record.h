// Record (NumPy structured) types: `record(a: float64 @0, h: float32(2) @8,
// itemsize=16)`, the layout of one element of a structured array (LANGUAGE.md
// section 9). A kernel receives an array of records as the bytes of its
// elements: a uint8 array with one more dimension, the record's bytes, whose
// fields the typer reads and writes as views of the field's dtype. So the
// kernel ABI, the runtime and code generation see only uint8 arrays.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/Diagnostics.h"
#include "ufjit/dtype.h"

namespace ufjit::frontend {

struct RecordField {
  std::string name;
  DType dtype = DType::Float64;
  /// A subarray field's shape (`h: float32(2)`); empty for a scalar field.
  std::vector<int64_t> shape;
  int64_t offset = 0;  // bytes from the record's start

  int64_t byte_size() const;
  bool operator==(const RecordField &o) const {
    return name == o.name && dtype == o.dtype && shape == o.shape && offset == o.offset;
  }
};

struct RecordLayout {
  std::vector<RecordField> fields;
  int64_t itemsize = 0;

  /// The field named `name`, or null.
  const RecordField *field(std::string_view name) const;
  /// Canonical spelling, every offset and the item size explicit; parses back
  /// to an equal layout.
  std::string str() const;
  bool operator==(const RecordLayout &o) const { return itemsize == o.itemsize && fields == o.fields; }
};

using RecordRef = std::shared_ptr<const RecordLayout>;

/// Whether two (possibly null) layouts are the same record type.
inline bool same_record(const RecordRef &a, const RecordRef &b) {
  return a == b || (a && b && *a == *b);
}

/// Parses a record type at `text[pos]` (which starts with `record(`), leaving
/// `pos` after its ')'. Offsets default to packed (NumPy's align=False); the
/// item size to the end of the last field. Reports located errors (a field
/// outside the item, overlapping fields, a field not aligned to its element
/// size, a repeated name) and returns nothing.
std::optional<RecordRef> parse_record_type(std::string_view text, std::size_t &pos, SourceLocation start,
                                           DiagnosticEngine &diags);

}  // namespace ufjit::frontend
