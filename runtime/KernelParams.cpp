// The kernel-variant rule and the parameter packing of codegen/kernel/KernelABI.h,
// shared by every backend, plus the default (no device) data-movement hooks.
#include <cstring>
#include <limits>
#include <utility>

#include "support/InternalAssert.h"
#include "runtime/Backend.h"

namespace ufjit::runtime {

namespace {

bool is_contiguous_1d(const ArrayView &v, int64_t n) {
  const auto itemsize = static_cast<int64_t>(dtype_size(v.dtype));
  if (reinterpret_cast<uintptr_t>(v.data) % static_cast<uintptr_t>(itemsize) != 0) {
    return false;
  }
  if (v.shape.empty() || n <= 1) {
    return true;
  }
  return v.shape.size() == 1 && v.strides[0] == itemsize;
}

/// The largest |byte offset| the kernel computes for a view, or -1 if it
/// overflows int64 arithmetic limits we care about.
int64_t max_byte_extent(const ArrayView &v) {
  int64_t extent = 0;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    const int64_t s = v.strides[d] < 0 ? -v.strides[d] : v.strides[d];
    extent += s * (v.shape[d] - 1);
  }
  return extent + static_cast<int64_t>(dtype_size(v.dtype));
}

}  // namespace

codegen::KernelVariant choose_variant(const PreparedCall &call) {
  codegen::KernelVariant variant;
  bool contiguous = call.shape.size() <= 1 && is_contiguous_1d(call.output, call.size);
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  bool fits32 = call.size < kInt32Max && max_byte_extent(call.output) < kInt32Max;
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    const PreparedOperand &in = call.inputs[i];
    if (in.is_scalar) {
      // The frontend admits at most frontend::kMaxUfuncArgs (64) arguments.
      internal_assert(i < sizeof(variant.scalar_mask) * 8) << "scalar operand " << i << " past the variant's mask";
      variant.scalar_mask |= uint64_t{1} << i;
      continue;
    }
    contiguous = contiguous && is_contiguous_1d(in.array, call.size);
    fits32 = fits32 && max_byte_extent(in.array) < kInt32Max;
  }
  variant.layout = contiguous ? codegen::Layout::Contiguous : codegen::Layout::Strided;
  variant.index32 = fits32;
  return variant;
}

void KernelParams::push(const void *data, std::size_t size) {
  // The kernel reads `size` bytes of the slot: the rest stays as it is.
  std::memcpy(slots_.append_uninitialised().bytes, data, size);
}

namespace {

codegen::Dims dims_of(const std::vector<int64_t> &values, std::size_t first, std::size_t count, int64_t fill) {
  codegen::Dims d{};
  for (std::size_t k = 0; k < static_cast<std::size_t>(codegen::kMaxDims); ++k) {
    d.v[k] = k < count ? values[first + k] : fill;
  }
  return d;
}

}  // namespace

std::vector<codegen::KernelParam> entry_params(const CompiledSignature &sig, const codegen::KernelVariant &variant) {
  return codegen::kernel_params(codegen::make_kernel_spec(sig.entry_signature(), variant));
}

KernelParams::KernelParams(const PreparedCall &call, const codegen::KernelVariant &variant,
                           const std::vector<const void *> &input_data, void *output_data, void *error_flag)
    : KernelParams(call, entry_params(*call.signature, variant), input_data, output_data, error_flag) {}

KernelParams::KernelParams(const PreparedCall &call, std::span<const codegen::KernelParam> table,
                           std::span<const void *const> input_data, void *output_data, void *error_flag,
                           void *done_flag) {
  const std::size_t ndim = call.shape.size();
  const std::size_t inputs = call.inputs.size();
  for (const codegen::KernelParam &param : table) {
    const std::size_t k = static_cast<std::size_t>(param.operand);
    const bool is_output = param.operand >= 0 && k == inputs;
    if (push_iteration(param, call.size, call.shape) || push_flag(param, error_flag, done_flag)) {
      continue;
    }
    switch (param.role) {
      case codegen::ParamRole::Data: {
        internal_assert(is_output || k < input_data.size()) << "parameter table and call disagree on operands";
        const void *ptr = is_output ? output_data : input_data[k];
        push(&ptr, sizeof ptr);
        break;
      }
      case codegen::ParamRole::Strides: {
        const ArrayView &v = is_output ? call.output : call.inputs[k].array;
        const codegen::Dims strides = dims_of(v.strides, 0, ndim, 0);
        push(&strides, sizeof strides);
        break;
      }
      case codegen::ParamRole::Value:
        push(call.inputs[k].scalar_bytes.data(), param.size());
        break;
      case codegen::ParamRole::ValueImag:
        push(call.inputs[k].scalar_bytes.data() + param.size(), param.size());
        break;
      default:
        internal_assert(false) << "parameter role " << param.kind_name() << " in an elementwise call";
    }
  }
  finish();
}

KernelParams::KernelParams(const PreparedGufunc &call, const std::vector<const void *> &data, void *error_flag) {
  const codegen::KernelSpec spec = codegen::make_kernel_spec(call.signature->entry_signature(), codegen::gufunc_variant());
  const std::vector<codegen::KernelParam> table = codegen::kernel_params(spec);
  const std::size_t loop_ndim = call.loop_shape.size();
  for (const codegen::KernelParam &param : table) {
    const std::size_t k = static_cast<std::size_t>(param.operand);
    if (push_iteration(param, call.loop_size, call.loop_shape) || push_flag(param, error_flag, nullptr)) {
      continue;
    }
    switch (param.role) {
      case codegen::ParamRole::Data: {
        const void *ptr = data.at(k);
        push(&ptr, sizeof ptr);
        break;
      }
      case codegen::ParamRole::Strides: {
        const codegen::Dims strides = dims_of(call.operands[k].strides, 0, loop_ndim, 0);
        push(&strides, sizeof strides);
        break;
      }
      case codegen::ParamRole::CoreShape:
      case codegen::ParamRole::CoreStrides: {
        const ArrayView &v = call.operands[k];
        const std::size_t core = v.shape.size() - loop_ndim;
        const bool shape = param.role == codegen::ParamRole::CoreShape;
        const codegen::Dims d = dims_of(shape ? v.shape : v.strides, loop_ndim, core, shape ? 1 : 0);
        push(&d, sizeof d);
        break;
      }
      default:
        internal_assert(false) << "parameter " << param.name(spec) << " in a gufunc call";
    }
  }
  finish();
}

KernelParams::KernelParams(const PreparedKernel &launch, std::span<const codegen::KernelParam> table,
                           const std::vector<const void *> &data, void *error_flag) {
  for (const codegen::KernelParam &param : table) {
    if (push_flag(param, error_flag, nullptr)) continue;
    const std::size_t k = static_cast<std::size_t>(param.operand);
    internal_assert(k < launch.args.size()) << "parameter table and kernel launch disagree on arguments";
    const PreparedOperand &arg = launch.args[k];
    switch (param.role) {
      case codegen::ParamRole::Data: {
        const void *ptr = data.at(k);
        push(&ptr, sizeof ptr);
        break;
      }
      case codegen::ParamRole::CoreShape:
      case codegen::ParamRole::CoreStrides: {
        const bool shape = param.role == codegen::ParamRole::CoreShape;
        const std::size_t ndim = arg.array.shape.size();
        const codegen::Dims d = dims_of(shape ? arg.array.shape : arg.array.strides, 0, ndim, shape ? 1 : 0);
        push(&d, sizeof d);
        break;
      }
      case codegen::ParamRole::Value:
        push(arg.scalar_bytes.data(), param.size());
        break;
      case codegen::ParamRole::ValueImag:
        push(arg.scalar_bytes.data() + param.size(), param.size());
        break;
      default:
        internal_assert(false) << "parameter role " << param.kind_name() << " in a kernel launch";
    }
  }
  finish();
}

std::vector<codegen::KernelParam> method_params(const CompiledSignature &sig, codegen::MethodKernel method) {
  return codegen::kernel_params(
      codegen::make_method_spec(sig.entry_signature(), method == codegen::MethodKernel::ReduceWhere));
}

namespace {

/// The count a method launch passes for each role that is one; null for
/// the other roles.
int64_t MethodArgs::*method_count(codegen::ParamRole role) {
  static constexpr std::pair<codegen::ParamRole, int64_t MethodArgs::*> kCounts[] = {
      {codegen::ParamRole::Rows, &MethodArgs::rows},
      {codegen::ParamRole::RowLength, &MethodArgs::len},
      {codegen::ParamRole::Chunks, &MethodArgs::chunks},
      {codegen::ParamRole::ChunkLength, &MethodArgs::chunk_len},
  };
  for (const auto &[count_role, count] : kCounts) {
    if (count_role == role) return count;
  }
  return nullptr;
}

}  // namespace

KernelParams::KernelParams(const MethodArgs &args, std::span<const codegen::KernelParam> table) {
  const void *const operands[] = {args.in, args.out, args.aux, args.out_has};
  for (const codegen::KernelParam &param : table) {
    if (push_flag(param, args.error_flag, nullptr)) {
      continue;
    }
    if (int64_t MethodArgs::*count = method_count(param.role)) {
      push(&(args.*count), sizeof(int64_t));
      continue;
    }
    internal_assert(param.role == codegen::ParamRole::Data)
        << "parameter of kind " << param.kind_name() << " in a method launch";
    internal_assert(param.operand >= 0 && param.operand < 4) << "method operand " << param.operand;
    push(&operands[param.operand], sizeof(void *));
  }
  finish();
}

bool KernelParams::push_iteration(const codegen::KernelParam &param, int64_t n, const Dims &shape) {
  const std::size_t ndim = shape.size();
  switch (param.role) {
    case codegen::ParamRole::Count:
      push(&n, sizeof n);
      return true;
    case codegen::ParamRole::NDim: {
      // A 0-d call runs as one dimension of size 1 (strides unused).
      const int64_t nd = ndim == 0 ? 1 : static_cast<int64_t>(ndim);
      push(&nd, sizeof nd);
      return true;
    }
    case codegen::ParamRole::Shape: {
      const codegen::Dims dims = dims_of(shape, 0, ndim, 1);
      push(&dims, sizeof dims);
      return true;
    }
    default:
      return false;
  }
}

bool KernelParams::push_flag(const codegen::KernelParam &param, void *error_flag, void *done_flag) {
  if (param.role == codegen::ParamRole::Done) {
    push(&done_flag, sizeof done_flag);
    return true;
  }
  if (param.role != codegen::ParamRole::ErrorFlag) {
    return false;
  }
  internal_assert(error_flag != nullptr) << "a kernel that can raise launched without an error flag";
  push(&error_flag, sizeof error_flag);
  return true;
}

void KernelParams::finish() {
  for (Slot &s : slots_) {
    pointers_.push_back(s.bytes);
  }
}

// ------------------------------------------------------- Backend defaults

namespace {
[[noreturn]] void no_device(const char *what) {
  throw NoDeviceError(std::string(what) + " needs the CUDA target, and this backend is the CPU");
}
}  // namespace

Array Backend::to_device(const ArrayView &) { no_device("to_device"); }
Array Backend::to_host(const ArrayView &) { no_device("to_host of a device array"); }
Array Backend::device_empty(DType, const Dims &) { no_device("device_empty"); }
Stream Backend::make_stream() { no_device("a stream"); }
Stream Backend::borrow_stream(void *) { no_device("a borrowed stream"); }
void Backend::synchronize() {}

}  // namespace ufjit::runtime
