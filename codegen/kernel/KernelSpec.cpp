// The parameter table of codegen/kernel/KernelABI.h: the one description of an
// entry's parameters that the entry builders, the runtime's packer and the
// manifest writer read.
#include <cstdio>
#include <cstdlib>

#include "codegen/kernel/KernelABI.h"
#include "codegen/LaunchHint.h"
#include "support/EnumNames.h"
#include "support/InternalAssert.h"
#include "frontend/Signature.h"

namespace ufjit::codegen {

static_assert(frontend::kMaxArrayDims == kMaxDims, "signatures admit the array dims a kernel can pass");

std::string KernelVariant::suffix() const {
  if (kind == KernelKind::Gufunc) {
    return "gufunc";
  }
  if (kind == KernelKind::Method) {
    return "method";
  }
  if (kind == KernelKind::Explicit) {
    return layout == Layout::Contiguous ? "kernel_contig" : "kernel";
  }
  std::string s = layout == Layout::Contiguous ? "contig" : "strided";
  s += index32 ? "_i32" : "_i64";
  if (scalar_mask != 0) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "_s%llx", static_cast<unsigned long long>(scalar_mask));
    s += hex;
  }
  if (streaming_stores) {
    s += "_nt";
  }
  return s;
}

KernelSpec make_kernel_spec(const EntrySignature &sig, const KernelVariant &variant) {
  KernelSpec spec;
  spec.variant = variant;
  spec.error_flag = sig.can_raise;
  spec.done_flag = sig.done_flag && variant.kind == KernelKind::Elementwise;
  if (variant.kind == KernelKind::Gufunc || variant.kind == KernelKind::Explicit) {
    internal_assert(sig.arg_ndims.size() == sig.args.size() && sig.outputs <= sig.args.size())
        << "gufunc or kernel entry signature without array dims";
    for (std::size_t k = 0; k < sig.args.size(); ++k) {
      OperandSpec op;
      op.dtype = sig.args[k];
      op.is_output = k + sig.outputs >= sig.args.size();
      op.core_ndim = sig.arg_ndims[k];
      op.is_scalar = variant.kind == KernelKind::Explicit && op.core_ndim == 0;
      spec.operands.push_back(op);
    }
    return spec;
  }
  for (std::size_t k = 0; k < sig.args.size(); ++k) {
    OperandSpec op;
    op.dtype = sig.args[k];
    op.is_scalar = k < sizeof(variant.scalar_mask) * 8 && ((variant.scalar_mask >> k) & 1u) != 0;
    spec.operands.push_back(op);
  }
  OperandSpec out;
  out.dtype = sig.ret;
  out.is_output = true;
  spec.operands.push_back(out);
  return spec;
}

KernelSpec make_method_spec(const EntrySignature &sig, bool masked) {
  KernelSpec spec;
  spec.variant = method_variant();
  spec.error_flag = sig.can_raise;
  const DType t = sig.ret;
  spec.operands = {OperandSpec{t, false, false, 0}, OperandSpec{t, true, false, 0},
                   OperandSpec{masked ? DType::Bool : t, false, false, 0}, OperandSpec{DType::Bool, true, false, 0}};
  return spec;
}

namespace {

std::vector<KernelParam> method_params(const KernelSpec &spec) {
  std::vector<KernelParam> params = {{ParamRole::Rows, -1, DType::Int64},
                                     {ParamRole::RowLength, -1, DType::Int64},
                                     {ParamRole::Chunks, -1, DType::Int64},
                                     {ParamRole::ChunkLength, -1, DType::Int64}};
  for (std::size_t k = 0; k < spec.operands.size(); ++k) {
    params.push_back({ParamRole::Data, static_cast<int>(k), spec.operands[k].dtype});
  }
  if (spec.error_flag) {
    params.push_back({ParamRole::ErrorFlag, -1, DType::UInt32});
  }
  return params;
}

/// An explicit kernel's: each parameter as the kernel takes it, no iteration.
std::vector<KernelParam> explicit_params(const KernelSpec &spec) {
  std::vector<KernelParam> params;
  for (std::size_t k = 0; k < spec.operands.size(); ++k) {
    const OperandSpec &op = spec.operands[k];
    const int i = static_cast<int>(k);
    if (op.is_scalar) {
      params.push_back({ParamRole::Value, i, op.dtype});
      if (dtype_kind(op.dtype) == 'c') params.push_back({ParamRole::ValueImag, i, op.dtype});
      continue;
    }
    params.push_back({ParamRole::Data, i, op.dtype});
    params.push_back({ParamRole::CoreShape, i, op.dtype});
    params.push_back({ParamRole::CoreStrides, i, op.dtype});
  }
  if (spec.error_flag) params.push_back({ParamRole::ErrorFlag, -1, DType::UInt32});
  return params;
}

}  // namespace

std::vector<KernelParam> kernel_params(const KernelSpec &spec) {
  if (spec.variant.kind == KernelKind::Method) {
    return method_params(spec);
  }
  if (spec.variant.kind == KernelKind::Explicit) {
    return explicit_params(spec);
  }
  const bool gufunc = spec.variant.kind == KernelKind::Gufunc;
  const bool strided = gufunc || spec.variant.layout == Layout::Strided;
  std::vector<KernelParam> params;
  params.push_back({ParamRole::Count, -1, DType::Int64});
  if (strided) {
    params.push_back({ParamRole::NDim, -1, DType::Int64});
    params.push_back({ParamRole::Shape, -1, DType::Int64});
  }
  for (std::size_t k = 0; k < spec.operands.size(); ++k) {
    const OperandSpec &op = spec.operands[k];
    const int i = static_cast<int>(k);
    if (op.is_scalar) {
      params.push_back({ParamRole::Value, i, op.dtype});
      if (dtype_kind(op.dtype) == 'c') {
        params.push_back({ParamRole::ValueImag, i, op.dtype});
      }
      continue;
    }
    params.push_back({ParamRole::Data, i, op.dtype});
    if (strided) {
      params.push_back({ParamRole::Strides, i, op.dtype});
    }
    if (gufunc && op.core_ndim > 0) {
      params.push_back({ParamRole::CoreShape, i, op.dtype});
      params.push_back({ParamRole::CoreStrides, i, op.dtype});
    }
  }
  if (spec.done_flag) {
    params.push_back({ParamRole::Done, -1, DType::UInt32});
  }
  if (spec.error_flag) {
    params.push_back({ParamRole::ErrorFlag, -1, DType::UInt32});
  }
  return params;
}

namespace {

bool is_dims(ParamRole role) {
  return role == ParamRole::Shape || role == ParamRole::Strides || role == ParamRole::CoreShape ||
         role == ParamRole::CoreStrides;
}

/// The component size of a scalar's dtype (complex: one part).
std::size_t value_size(DType t) { return dtype_kind(t) == 'c' ? dtype_size(t) / 2 : dtype_size(t); }

}  // namespace

std::size_t KernelParam::size() const {
  if (is_dims(role)) {
    return sizeof(Dims);
  }
  if (role == ParamRole::Value || role == ParamRole::ValueImag) {
    return value_size(dtype);
  }
  return 8;
}

std::size_t KernelParam::align() const {
  if (role == ParamRole::Value || role == ParamRole::ValueImag) {
    return value_size(dtype);
  }
  return 8;
}

std::string KernelParam::name(const KernelSpec &spec) const {
  // The launch-wide parameters have fixed names; the operands' are below.
  static constexpr support::EnumName<ParamRole> kFixedNames[] = {
      {ParamRole::Count, "n"},       {ParamRole::NDim, "ndim"},       {ParamRole::Shape, "shape"},
      {ParamRole::Done, "done"},     {ParamRole::ErrorFlag, "error"}, {ParamRole::Rows, "rows"},
      {ParamRole::RowLength, "len"}, {ParamRole::Chunks, "chunks"},   {ParamRole::ChunkLength, "chunk_len"},
  };
  if (const char *fixed = support::enum_name(role, kFixedNames, nullptr)) {
    return fixed;
  }
  if (spec.variant.kind == KernelKind::Method) {
    static constexpr const char *kMethodOperands[] = {"in", "out", "aux", "out_has"};
    return operand >= 0 && operand < 4 ? kMethodOperands[operand] : "?";
  }
  // Elementwise: in0, in1, ..., out. Gufunc: in0, ..., out0, out1, ...
  // Explicit: arg0, arg1, ... (arg0_shape, arg0_strides).
  const std::size_t k = static_cast<std::size_t>(operand);
  if (spec.variant.kind == KernelKind::Explicit) {
    const std::string &named = spec.operands.at(k).name;
    const std::string base = named.empty() ? "arg" + std::to_string(k) : named;
    return role == ParamRole::CoreShape     ? base + "_shape"
           : role == ParamRole::CoreStrides ? base + "_strides"
           : role == ParamRole::ValueImag   ? base + "_imag"
                                            : base;
  }
  std::size_t inputs = 0;
  for (const OperandSpec &op : spec.operands) {
    inputs += op.is_output ? 0 : 1;
  }
  std::string base;
  if (k < inputs) {
    base = "in" + std::to_string(k);
  } else if (spec.variant.kind == KernelKind::Gufunc) {
    base = "out" + std::to_string(k - inputs);
  } else {
    base = "out";
  }
  static constexpr support::EnumName<ParamRole> kSuffixes[] = {
      {ParamRole::Strides, "_strides"},
      {ParamRole::ValueImag, "_imag"},
      {ParamRole::CoreShape, "_core_shape"},
      {ParamRole::CoreStrides, "_core_strides"},
  };
  return base + support::enum_name(role, kSuffixes, "");
}

std::string KernelParam::kind_name() const {
  static constexpr support::EnumName<ParamRole> kNames[] = {
      {ParamRole::Count, "count"},
      {ParamRole::NDim, "ndim"},
      {ParamRole::Shape, "shape"},
      {ParamRole::Data, "array"},
      {ParamRole::Strides, "strides"},
      {ParamRole::Value, "scalar"},
      {ParamRole::ValueImag, "scalar"},
      {ParamRole::CoreShape, "core_shape"},
      {ParamRole::CoreStrides, "core_strides"},
      {ParamRole::Rows, "rows"},
      {ParamRole::RowLength, "len"},
      {ParamRole::Chunks, "chunks"},
      {ParamRole::ChunkLength, "chunk_len"},
      {ParamRole::Done, "done_flag"},
      {ParamRole::ErrorFlag, "error_flag"},
  };
  return support::enum_name(role, kNames, "?");
}

std::string KernelParam::type_name() const {
  if (is_dims(role)) {
    return "int64[" + std::to_string(kMaxDims) + "]";
  }
  if (role == ParamRole::Data) {
    return std::string(dtype_name(dtype)) + "*";
  }
  if (role == ParamRole::Value || role == ParamRole::ValueImag) {
    if (dtype_kind(dtype) == 'c') {
      return dtype == DType::Complex64 ? "float32" : "float64";
    }
    return std::string(dtype_name(dtype));
  }
  if (role == ParamRole::ErrorFlag || role == ParamRole::Done) {
    return "uint32*";
  }
  return "int64";
}

std::string launch_hint_symbol(const std::string &entry) { return entry + "__launch"; }

LaunchHint launch_hint_in_ptx(const std::string &ptx, const std::string &entry) {
  // NVPTX prints the array as `.global .align 1 .b8 <symbol>[<size>];`.
  const std::string needle = " " + launch_hint_symbol(entry) + "[";
  const std::size_t at = ptx.find(needle);
  if (at == std::string::npos) {
    return {};
  }
  return launch_hint_of_bytes(std::strtoul(ptx.c_str() + at + needle.size(), nullptr, 10));
}

uint32_t launch_hint_bytes(const LaunchHint &hint) { return hint.elements_per_thread + 1; }

LaunchHint launch_hint_of_bytes(std::size_t bytes) {
  LaunchHint hint;
  hint.elements_per_thread = bytes > 0 ? static_cast<uint32_t>(bytes - 1) : 0;
  return hint;
}

}  // namespace ufjit::codegen
