#include "ir/Type.h"

#include "support/InternalAssert.h"

namespace ufjit::ir {

Type Type::scalar(DType t) {
  Type r;
  r.kind_ = Kind::Scalar;
  r.dtype_ = t;
  return r;
}

Type Type::tuple(std::vector<Type> elements) {
  for (const Type &e : elements) internal_assert(!e.is_void()) << "a tuple element cannot be void";
  Type r;
  r.kind_ = Kind::Tuple;
  r.elements_ = std::make_shared<const std::vector<Type>>(std::move(elements));
  return r;
}

Type Type::array(DType element, int ndim) {
  internal_assert(ndim >= 1) << "array type with " << ndim << " dimensions";
  Type r;
  r.kind_ = Kind::Array;
  r.dtype_ = element;
  r.ndim_ = ndim;
  return r;
}

Type Type::record_array(frontend::RecordRef record, int dims) {
  internal_assert(record != nullptr) << "record_array without a record type";
  Type r = array(DType::UInt8, dims + 1);
  r.record_ = std::move(record);
  return r;
}

Type Type::with_ndim(int ndim) const {
  internal_assert(is_array()) << "with_ndim of non-array type " << str();
  Type r = array(dtype_, ndim);
  r.record_ = record_;
  return r;
}

DType Type::dtype() const {
  internal_assert(is_scalar() || is_array()) << "dtype() of non-scalar type " << str();
  return dtype_;
}

const std::vector<Type> &Type::elements() const {
  internal_assert(is_tuple()) << "elements() of non-tuple type " << str();
  return *elements_;
}

int Type::ndim() const { return ndim_; }

std::string Type::str() const {
  switch (kind_) {
    case Kind::Void:
      return "void";
    case Kind::Scalar:
      return std::string(dtype_name(dtype_));
    case Kind::Tuple: {
      std::string s = "(";
      const std::vector<Type> &els = *elements_;
      for (std::size_t i = 0; i < els.size(); ++i) {
        if (i > 0) s += ", ";
        s += els[i].str();
      }
      if (els.size() == 1) s += ",";
      s += ")";
      return s;
    }
    case Kind::Array: {
      const int dims = record_ ? ndim_ - 1 : ndim_;
      std::string s = record_ ? record_->str() : std::string(dtype_name(dtype_));
      if (dims == 0) return s;  // one record
      s += "[";
      for (int i = 0; i < dims; ++i) {
        if (i > 0) s += ", ";
        s += ":";
      }
      s += "]";
      return s;
    }
  }
  return "?";
}

bool Type::operator==(const Type &o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::Void:
      return true;
    case Kind::Scalar:
      return dtype_ == o.dtype_;
    case Kind::Array:
      return dtype_ == o.dtype_ && ndim_ == o.ndim_ && frontend::same_record(record_, o.record_);
    case Kind::Tuple:
      return *elements_ == *o.elements_;
  }
  return false;
}

}  // namespace ufjit::ir
