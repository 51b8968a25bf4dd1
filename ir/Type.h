// Types of the typed IR: void, scalars (a DType), tuples, and arrays (for
// generalized ufuncs and kernels). A small value type, cheap to copy and
// compare. An array of records (frontend/Record.h) is a uint8 array whose
// last dimension is each record's bytes, tagged with the record type.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/Record.h"
#include "ufjit/dtype.h"

namespace ufjit::ir {

class Type {
 public:
  enum class Kind : uint8_t { Void, Scalar, Tuple, Array };

  Type() = default;  // void
  static Type void_type() { return Type(); }
  static Type scalar(DType t);
  static Type tuple(std::vector<Type> elements);
  static Type array(DType element, int ndim);
  /// Records of `record`, `dims` dimensions of them (0: one record): a uint8
  /// array of `dims + 1` dimensions, the last one the record's bytes.
  static Type record_array(frontend::RecordRef record, int dims);

  Kind kind() const { return kind_; }
  bool is_void() const { return kind_ == Kind::Void; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_tuple() const { return kind_ == Kind::Tuple; }
  bool is_array() const { return kind_ == Kind::Array; }
  /// Scalar kinds by category; false for non-scalars.
  bool is_bool() const { return is_scalar() && ufjit::is_bool(dtype_); }
  bool is_int() const { return is_scalar() && ufjit::is_integer(dtype_); }
  bool is_float() const { return is_scalar() && ufjit::is_float(dtype_); }
  bool is_complex() const { return is_scalar() && ufjit::is_complex(dtype_); }
  /// An array of records (or one record); record() is its type.
  bool is_record() const { return record_ != nullptr; }
  const frontend::RecordRef &record() const { return record_; }

  /// The scalar's dtype, or an array's element dtype.
  DType dtype() const;
  /// A tuple's element types.
  const std::vector<Type> &elements() const;
  int ndim() const;
  /// The same kind of array with `ndim` dimensions (a record array stays one).
  Type with_ndim(int ndim) const;

  /// "void", "float32", "(float32, int64)", "float64[:, :]"
  std::string str() const;

  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }

 private:
  Kind kind_ = Kind::Void;
  DType dtype_ = DType::Bool;
  int ndim_ = 0;
  std::shared_ptr<const std::vector<Type>> elements_;
  frontend::RecordRef record_;
};

}  // namespace ufjit::ir
