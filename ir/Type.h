// Types of the typed IR: void, scalars (a DType), tuples, and arrays (for
// generalized ufuncs). A small value type, cheap to copy and compare.
#pragma once

#include <memory>
#include <string>
#include <vector>

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

  /// The scalar's dtype, or an array's element dtype.
  DType dtype() const;
  /// A tuple's element types.
  const std::vector<Type> &elements() const;
  int ndim() const;

  /// "void", "float32", "(float32, int64)", "float64[:, :]"
  std::string str() const;

  bool operator==(const Type &o) const;
  bool operator!=(const Type &o) const { return !(*this == o); }

 private:
  Kind kind_ = Kind::Void;
  DType dtype_ = DType::Bool;
  int ndim_ = 0;
  std::shared_ptr<const std::vector<Type>> elements_;
};

}  // namespace ufjit::ir
