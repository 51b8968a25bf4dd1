// Runtime::elementwise: CuPy-style CUDA C++ elementwise kernels run by the
// ufjit runtime (interop/cudacpp/Elementwise.h).
#include "interop/cudacpp/Elementwise.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "codegen/Codegen.h"
#include "codegen/DeviceImage.h"
#include "support/Diagnostics.h"
#include "interop/cudacpp/Nvrtc.h"
#include "runtime/Backend.h"
#include "runtime/DynamicUfunc.h"
#include "runtime/GufuncLayout.h"
#include "runtime/RuntimeImpl.h"

namespace ufjit::cudacpp {

namespace {

bool is_identifier(const std::string &s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return false;
    }
  }
  return true;
}

/// The CUDA C++ type of a dtype the kernels take; nullptr for the others.
const char *c_type(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "signed char";
    case DType::UInt8: return "unsigned char";
    case DType::Int16: return "short";
    case DType::UInt16: return "unsigned short";
    case DType::Int32: return "int";
    case DType::UInt32: return "unsigned int";
    case DType::Int64: return "long long";
    case DType::UInt64: return "unsigned long long";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    default: return nullptr;
  }
}

}  // namespace

std::vector<ElementwiseParam> parse_elementwise_params(const std::string &text, const std::string &where,
                                                       bool outputs) {
  auto file = std::make_shared<const SourceFile>(where, text);
  DiagnosticEngine diags;
  diags.retain(file);
  std::vector<ElementwiseParam> params;
  std::set<std::string> names;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    // Words of this parameter, with their columns.
    std::vector<std::pair<std::string, int>> words;
    for (std::size_t k = start; k < end;) {
      if (std::isspace(static_cast<unsigned char>(text[k]))) {
        ++k;
        continue;
      }
      std::size_t w = k;
      while (w < end && !std::isspace(static_cast<unsigned char>(text[w]))) {
        ++w;
      }
      words.emplace_back(text.substr(k, w - k), static_cast<int>(k) + 1);
      k = w;
    }
    auto at = [&](int col, int len) { return SourceLocation{file.get(), 1, col, std::max(len, 1)}; };
    const int here = static_cast<int>(start) + 1;
    if (words.empty()) {
      if (!(params.empty() && end == text.size())) {
        diags.error(at(here, 1), "expected a parameter ('float32 x', 'T x' or 'raw T x')");
      }
    } else {
      ElementwiseParam p;
      std::size_t w = 0;
      if (words[0].first == "raw") {
        p.raw = true;
        w = 1;
      }
      if (words.size() - w != 2) {
        diags.error(at(words[0].second, static_cast<int>(words[0].first.size())),
                    "a parameter is 'TYPE NAME' or 'raw TYPE NAME'");
      } else {
        p.type = words[w].first;
        p.name = words[w + 1].first;
        const int type_col = words[w].second;
        const int name_col = words[w + 1].second;
        const std::optional<DType> dtype = dtype_from_name(p.type);
        if (!dtype) {
          if (!is_identifier(p.type)) {
            diags.error(at(type_col, static_cast<int>(p.type.size())), "'" + p.type + "' is not a type");
          }
          p.placeholder = true;
        } else if (c_type(*dtype) == nullptr) {
          diags.error(at(type_col, static_cast<int>(p.type.size())),
                      "CUDA C++ elementwise kernels take bool, integers, float32 and float64; not " + p.type);
        }
        if (!is_identifier(p.name)) {
          diags.error(at(name_col, static_cast<int>(p.name.size())), "'" + p.name + "' is not a name");
        } else if (p.name == "i" || p.name == "n" || p.name[0] == '_') {
          diags.error(at(name_col, static_cast<int>(p.name.size())),
                      "'" + p.name + "' is reserved ('i', 'n' and names starting with '_' belong to the kernel)");
        } else if (!names.insert(p.name).second) {
          diags.error(at(name_col, static_cast<int>(p.name.size())), "a second parameter named '" + p.name + "'");
        }
        if (p.raw && outputs) {
          diags.error(at(words[0].second, 3), "raw outputs are not supported: outputs are written at index i");
        }
        params.push_back(p);
      }
    }
    start = end + 1;
  }
  if (outputs && params.empty() && !diags.has_errors()) {
    diags.error(SourceLocation{file.get(), 1, 1, 1}, "an elementwise kernel needs at least one output");
  }
  diags.throw_if_errors();
  return params;
}

ElementwiseDef parse_elementwise(const std::string &in_params, const std::string &out_params,
                                 const std::string &operation, const std::string &name,
                                 const ElementwiseOptions &options) {
  if (!is_identifier(name)) {
    throw CompileError("elementwise: the kernel's name '" + name + "' is not an identifier", {});
  }
  ElementwiseDef def;
  def.name = name;
  def.inputs = parse_elementwise_params(in_params, "<elementwise " + name + " in_params>", false);
  def.outputs = parse_elementwise_params(out_params, "<elementwise " + name + " out_params>", true);
  std::set<std::string> names;
  for (const ElementwiseParam &p : def.inputs) {
    names.insert(p.name);
  }
  for (const ElementwiseParam &p : def.outputs) {
    if (names.count(p.name) != 0) {
      throw CompileError("elementwise '" + name + "': '" + p.name + "' is both an input and an output", {});
    }
  }
  if (def.outputs.size() > 1) {
    for (const ElementwiseParam &p : def.inputs) {
      if (p.raw) {
        throw CompileError("elementwise '" + name + "': raw parameters need a kernel with one output", {});
      }
    }
  }
  def.operation = operation;
  def.options = options;
  return def;
}

namespace {

using PlaceholderTypes = std::vector<std::pair<std::string, DType>>;

/// The dtype of `p`: its own, or its placeholder's in `types`.
DType param_dtype(const ElementwiseDef &def, const PlaceholderTypes &types, const ElementwiseParam &p) {
  if (!p.placeholder) {
    return *dtype_from_name(p.type);
  }
  for (const auto &[t, d] : types) {
    if (t == p.type) {
      return d;
    }
  }
  throw InputError("elementwise '" + def.name + "': placeholder " + p.type + " is not bound");
}

/// Operands as the ABI sees them: inputs (a raw one is two), then outputs.
/// `first` gets each input parameter's first operand.
codegen::EntrySignature entry_signature(const ElementwiseDef &def, const PlaceholderTypes &types,
                                        const codegen::KernelVariant &variant, std::vector<int> &first) {
  codegen::EntrySignature sig;
  for (const ElementwiseParam &p : def.inputs) {
    first.push_back(static_cast<int>(sig.args.size()));
    if (p.raw) {
      sig.args.push_back(DType::UInt64);
      sig.args.push_back(DType::Int64);
    } else {
      sig.args.push_back(param_dtype(def, types, p));
    }
  }
  if (variant.kind == codegen::KernelKind::Gufunc) {
    for (const ElementwiseParam &p : def.outputs) {
      sig.args.push_back(param_dtype(def, types, p));
    }
    sig.arg_ndims.assign(sig.args.size(), 0);
    sig.outputs = def.outputs.size();
  } else {
    sig.ret = param_dtype(def, types, def.outputs.front());
  }
  return sig;
}

/// The kernel's text, with `#line` marks so that NVRTC's messages about a
/// user's string point into that string (compile_elementwise maps them back).
class SourceWriter {
 public:
  explicit SourceWriter(const ElementwiseDef &def) : where_("<elementwise " + def.name) {}

  std::ostringstream &out() { return s_; }
  std::string text() const { return s_.str(); }

  /// A user's string as file "<elementwise NAME`part`>", then `tail`; with
  /// `resume`, back to the generated text's own lines.
  void user_text(const char *part, const std::string &text, const char *tail, bool resume) {
    s_ << "#line 1 \"" << where_ << part << ">\"\n" << text << tail;
    if (resume) {
      const std::string so_far = s_.str();
      const long lines = static_cast<long>(std::count(so_far.begin(), so_far.end(), '\n'));
      s_ << "#line " << lines + 2 << " \"" << where_ << " kernel>\"\n";
    }
  }

 private:
  std::ostringstream s_;
  std::string where_;
};

void write_prelude(std::ostream &s, const ElementwiseDef &def, const std::string &entry) {
  s << "// Generated by ufjit: elementwise kernel '" << def.name << "', entry " << entry << ".\n"
    << "struct ufjit_dims { long long v[" << codegen::kMaxDims << "]; };\n"
    << "struct ufjit_ind { long long n; __device__ long long size() const { return n; } };\n"
    // A raw parameter is an input, read-only as the others: the kernel may
    // not write the caller's array (which may be read-only memory).
    << "template <typename T> struct ufjit_raw {\n"
    << "  const T *p; long long n;\n"
    << "  __device__ const T &operator[](long long k) const { return p[k]; }\n"
    << "  __device__ long long size() const { return n; }\n"
    << "};\n";
}

void write_parameters(std::ostream &s, const std::vector<codegen::KernelParam> &params) {
  for (std::size_t k = 0; k < params.size(); ++k) {
    const codegen::KernelParam &p = params[k];
    s << (k == 0 ? "" : ", ");
    const std::string op = std::to_string(p.operand);
    switch (p.role) {
      case codegen::ParamRole::Count: s << "long long _n"; break;
      case codegen::ParamRole::NDim: s << "long long _ndim"; break;
      case codegen::ParamRole::Shape: s << "ufjit_dims _shape"; break;
      case codegen::ParamRole::Data: s << c_type(p.dtype) << " *_p" << op; break;
      case codegen::ParamRole::Strides: s << "ufjit_dims _s" << op; break;
      case codegen::ParamRole::Value: s << c_type(p.dtype) << " _v" << op; break;
      default: throw Error("elementwise: a parameter the CUDA C++ kernels do not take");
    }
  }
}

/// Strided layouts: each array operand k's byte offset `_o<k>` of element i.
void write_strided_offsets(std::ostream &s, const codegen::KernelSpec &spec) {
  const std::size_t n_ops = spec.operands.size();
  for (std::size_t k = 0; k < n_ops; ++k) {
    if (!spec.operands[k].is_scalar) {
      s << "    long long _o" << k << " = 0;\n";
    }
  }
  s << "    for (long long _r = i, _d = _ndim - 1; _d >= 0; --_d) {\n"
    << "      const long long _c = _r % _shape.v[_d]; _r /= _shape.v[_d];\n";
  for (std::size_t k = 0; k < n_ops; ++k) {
    if (!spec.operands[k].is_scalar) {
      s << "      _o" << k << " += _c * _s" << k << ".v[_d];\n";
    }
  }
  s << "    }\n";
}

/// The element of operand k, as an lvalue or value.
std::string element(const codegen::KernelSpec &spec, bool strided, std::size_t k) {
  const codegen::OperandSpec &op = spec.operands[k];
  const std::string ks = std::to_string(k);
  if (op.is_scalar) {
    return "_v" + ks;
  }
  if (!strided) {
    return "_p" + ks + "[i]";
  }
  return std::string("*(") + c_type(op.dtype) + " *)((char *)_p" + ks + " + _o" + ks + ")";
}

/// The user's names for the elements: a const copy of each input (a
/// ufjit_raw of a raw one), a reference to each output.
void write_element_names(std::ostream &s, const ElementwiseDef &def, const PlaceholderTypes &types,
                         const codegen::KernelSpec &spec, bool strided, const std::vector<int> &first) {
  for (std::size_t j = 0; j < def.inputs.size(); ++j) {
    const ElementwiseParam &p = def.inputs[j];
    const std::size_t k = static_cast<std::size_t>(first[j]);
    const char *t = c_type(param_dtype(def, types, p));
    if (p.raw) {
      s << "    const ufjit_raw<" << t << "> " << p.name << " = {(" << t << " *)("
        << element(spec, strided, k) << "), " << element(spec, strided, k + 1) << "};\n";
    } else {
      s << "    const " << t << " " << p.name << " = " << element(spec, strided, k) << ";\n";
    }
  }
  const std::size_t n_ops = spec.operands.size();
  for (std::size_t j = 0; j < def.outputs.size(); ++j) {
    const std::size_t k = n_ops - def.outputs.size() + j;
    s << "    " << c_type(spec.operands[k].dtype) << " &" << def.outputs[j].name << " = "
      << element(spec, strided, k) << ";\n";
  }
}

}  // namespace

std::string elementwise_source(const ElementwiseDef &def, const PlaceholderTypes &types,
                               const std::string &entry, const codegen::KernelVariant &variant) {
  std::vector<int> first;  // per input parameter: its first operand
  const codegen::KernelSpec spec =
      codegen::make_kernel_spec(entry_signature(def, types, variant, first), variant);
  const bool strided =
      variant.kind == codegen::KernelKind::Gufunc || variant.layout == codegen::Layout::Strided;
  SourceWriter w(def);
  std::ostringstream &s = w.out();
  write_prelude(s, def, entry);
  if (!def.options.preamble.empty()) {
    w.user_text(" preamble", def.options.preamble, "\n", true);
  }
  s << "extern \"C\" __global__ void " << entry << "(";
  write_parameters(s, codegen::kernel_params(spec));
  s << ") {\n";
  for (const auto &[t, d] : types) {
    s << "  typedef " << c_type(d) << " " << t << ";\n";
  }
  s << "  const ufjit_ind _ind = {_n};\n  (void)_ind;\n";
  if (!def.options.loop_prep.empty()) {
    w.user_text(" loop_prep", def.options.loop_prep, "\n;\n", true);
  }
  s << "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < _n;"
       " i += (long long)blockDim.x * gridDim.x) {\n";
  if (strided) {
    write_strided_offsets(s, spec);
  }
  write_element_names(s, def, types, spec, strided, first);
  w.user_text("", def.operation, "\n;\n", true);
  s << "  }\n";
  if (!def.options.after_loop.empty()) {
    w.user_text(" after_loop", def.options.after_loop, "\n;\n", false);
  }
  s << "}\n";
  return w.text();
}

std::string compile_elementwise(const ElementwiseDef &def, const std::string &source, const std::string &arch) {
  NvrtcSource src;
  src.name = "<elementwise " + def.name + " kernel>";
  src.text = source;
  src.options = def.options.nvrtc_options;
  const std::string where = "<elementwise " + def.name;
  src.line_files = {{where + ">", def.operation},
                    {where + " preamble>", def.options.preamble},
                    {where + " loop_prep>", def.options.loop_prep},
                    {where + " after_loop>", def.options.after_loop}};
  const std::string ptx = nvrtc_compile(src, arch, NvrtcOutput::Ptx);
  codegen::DeviceImage image;
  codegen::LinkInput input;
  input.kind = codegen::LinkInput::Kind::Ptx;
  input.name = src.name;
  input.bytes = ptx;
  image.inputs.push_back(std::move(input));
  return codegen::link_device_image(image, arch);
}

namespace {

/// The runtime's view of one kernel (runtime/Backend.h ExternalKernel).
class ElementwiseKernel final : public runtime::ExternalKernel {
 public:
  ElementwiseKernel(std::shared_ptr<const ElementwiseDef> def, std::vector<std::pair<std::string, DType>> types)
      : def_(std::move(def)), types_(std::move(types)) {}

  std::string key_text(const runtime::CompiledSignature &sig, const codegen::KernelVariant &variant) const override {
    std::string text = "nvrtc " + nvrtc_version() + "\n" + options_text() + "\n";
    return text + elementwise_source(*def_, types_, codegen::entry_name(sig.base_name, variant), variant);
  }
  std::string options_text() const override {
    std::string text = "nvrtc";
    for (const std::string &o : def_->options.nvrtc_options) {
      text += " " + o;
    }
    return text;
  }
  std::string cubin(const runtime::CompiledSignature &sig, const codegen::KernelVariant &variant,
                    const std::string &arch) const override {
    return compile_elementwise(
        *def_, elementwise_source(*def_, types_, codegen::entry_name(sig.base_name, variant), variant), arch);
  }

 private:
  std::shared_ptr<const ElementwiseDef> def_;
  std::vector<std::pair<std::string, DType>> types_;
};

/// Binds calls of one kernel (UfuncState::bind) and keeps a signature per
/// binding of its placeholders.
class Binder {
 public:
  explicit Binder(std::shared_ptr<const ElementwiseDef> def, std::shared_ptr<runtime::RuntimeCore> core)
      : def_(std::move(def)), core_(std::move(core)) {
    if (def_->outputs.size() > 1) {
      // Several outputs: a gufunc whose every core is a scalar, "(),()->(),()".
      runtime::GufuncLayout layout;
      layout.inputs.assign(def_->inputs.size(), {});
      layout.outputs.assign(def_->outputs.size(), {});
      layout.writable.assign(def_->inputs.size(), false);
      for (std::size_t k = 0; k < layout.operands(); ++k) {
        layout.text += std::string(k == 0 ? "" : k == layout.inputs.size() ? "->" : ",") + "()";
      }
      layout_ = std::make_shared<const runtime::GufuncLayout>(std::move(layout));
    }
  }

  runtime::SignatureList bind(TargetKind target, std::vector<Operand> &ops, std::vector<Array> &keep, bool async) {
    const ElementwiseDef &def = *def_;
    if (target != TargetKind::Cuda) {
      throw Error("'" + def.name + "' is a CUDA C++ elementwise kernel: it runs on a GPU only (the CPU target "
                  "cannot run CUDA C++)");
    }
    std::vector<Operand *> inputs;
    std::vector<Operand *> outs;
    for (Operand &op : ops) {
      (op.kind == Operand::Kind::Out ? outs : inputs).push_back(&op);
    }
    if (inputs.size() != def.inputs.size()) {
      throw DispatchError("'" + def.name + "' takes " + std::to_string(def.inputs.size()) + " input" +
                          (def.inputs.size() == 1 ? "" : "s") + ", got " + std::to_string(inputs.size()));
    }
    const std::map<std::string, DType> bound = bind_placeholders(inputs, outs);
    auto type_of = [&](const ElementwiseParam &p) { return bound_dtype(bound, p); };
    for (const ElementwiseParam &p : def.inputs) {
      (void)type_of(p);
    }
    for (const ElementwiseParam &p : def.outputs) {
      (void)type_of(p);
    }
    std::vector<std::pair<std::string, DType>> types(bound.begin(), bound.end());
    // Raw operands: their device address and size, as two typed scalars.
    std::vector<Operand> rewritten;
    for (std::size_t j = 0; j < def.inputs.size(); ++j) {
      const ElementwiseParam &p = def.inputs[j];
      if (!p.raw) {
        rewritten.push_back(*inputs[j]);
        continue;
      }
      const ArrayView view = raw_operand_view(p, *inputs[j], type_of(p), keep, async);
      rewritten.emplace_back(typed<uint64_t>(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(view.data))));
      rewritten.emplace_back(typed<int64_t>(view.size()));
    }
    for (Operand *o : outs) {
      rewritten.push_back(*o);
    }
    ops = std::move(rewritten);
    return signature(types, type_of);
  }

 private:
  /// Binds placeholders: arrays and typed scalars first (in order), then
  /// outputs given with out(...), then plain numbers' default dtypes.
  std::map<std::string, DType> bind_placeholders(const std::vector<Operand *> &inputs,
                                                 const std::vector<Operand *> &outs) const {
    const ElementwiseDef &def = *def_;
    std::map<std::string, DType> bound;
    auto bind_one = [&](const ElementwiseParam &p, DType d) {
      if (p.placeholder) {
        bound.emplace(p.type, d);
      }
    };
    for (std::size_t j = 0; j < inputs.size(); ++j) {
      const Operand &op = *inputs[j];
      if (op.kind == Operand::Kind::Array) {
        bind_one(def.inputs[j], op.array.dtype);
      } else if (!op.scalar.weak) {
        bind_one(def.inputs[j], op.scalar.dtype);
      }
    }
    for (std::size_t j = 0; j < outs.size() && j < def.outputs.size(); ++j) {
      bind_one(def.outputs[j], outs[j]->array.dtype);
    }
    for (std::size_t j = 0; j < inputs.size(); ++j) {
      if (inputs[j]->kind == Operand::Kind::Scalar) {
        bind_one(def.inputs[j], inputs[j]->scalar.dtype);
      }
    }
    return bound;
  }

  /// The dtype of `p` in this call: its own, or what its placeholder is
  /// bound to (one that CUDA C++ kernels take).
  DType bound_dtype(const std::map<std::string, DType> &bound, const ElementwiseParam &p) const {
    const ElementwiseDef &def = *def_;
    if (!p.placeholder) {
      return *dtype_from_name(p.type);
    }
    auto found = bound.find(p.type);
    if (found == bound.end()) {
      throw DispatchError("'" + def.name + "': no operand binds the type placeholder " + p.type +
                          " (give the output with out(...))");
    }
    if (c_type(found->second) == nullptr) {
      throw DispatchError("'" + def.name + "': " + p.type + " would be " +
                          std::string(dtype_name(found->second)) +
                          "; CUDA C++ elementwise kernels take bool, integers, float32 and float64");
    }
    return found->second;
  }

  /// The device array behind the raw parameter `p`: a host array is copied
  /// to the device (the copy kept alive in `keep`) unless the call is async.
  ArrayView raw_operand_view(const ElementwiseParam &p, const Operand &op, DType dtype,
                             std::vector<Array> &keep, bool async) const {
    const ElementwiseDef &def = *def_;
    if (op.kind != Operand::Kind::Array) {
      throw InputError("'" + def.name + "': the raw parameter '" + p.name + "' needs an array");
    }
    if (op.array.dtype != dtype) {
      throw DispatchError("'" + def.name + "': the raw parameter '" + p.name + "' is " + p.type + " = " +
                          std::string(dtype_name(dtype)) + ", the array is " +
                          std::string(dtype_name(op.array.dtype)));
    }
    ArrayView view = op.array;
    if (view.residence == Residence::Host) {
      if (async) {
        throw InputError("'" + def.name + "': the raw parameter '" + p.name +
                         "' is a host array; an async call takes device arrays (Runtime::to_device)");
      }
      keep.push_back(core_->backend(TargetKind::Cuda).to_device(view));
      view = keep.back().view();
    } else if (!view.is_c_contiguous()) {
      throw InputError("'" + def.name + "': the raw parameter '" + p.name +
                       "' must be C-contiguous on the device (raw parameters are indexed by element)");
    }
    return view;
  }

  template <typename TypeOf>
  runtime::SignatureList signature(const std::vector<std::pair<std::string, DType>> &types, TypeOf &type_of) {
    std::string key;
    for (const auto &[t, d] : types) {
      key += t + "=" + std::string(dtype_name(d)) + ";";
    }
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = signatures_.find(key);
    if (found != signatures_.end()) {
      return found->second;
    }
    const ElementwiseDef &def = *def_;
    runtime::CompiledSignature sig;
    sig.ufunc_name = def.name;
    sig.layout = layout_;
    std::vector<std::string> names;
    std::string args;
    for (const ElementwiseParam &p : def.inputs) {
      const std::vector<DType> dts =
          p.raw ? std::vector<DType>{DType::UInt64, DType::Int64} : std::vector<DType>{type_of(p)};
      for (DType d : dts) {
        sig.params.push_back(d);
        names.emplace_back(dtype_name(d));
        args += (args.empty() ? "" : ", ") + std::string(dtype_name(d));
      }
    }
    std::string rets;
    for (const ElementwiseParam &p : def.outputs) {
      const DType d = type_of(p);
      names.emplace_back(dtype_name(d));
      rets += (rets.empty() ? "" : ", ") + std::string(dtype_name(d));
      if (layout_) {
        sig.out_dtypes.push_back(d);
      } else {
        sig.ret = d;
      }
    }
    if (layout_) {
      sig.arg_ndims.assign(sig.params.size() + sig.out_dtypes.size(), 0);
      sig.signature = "(" + args + ")->(" + rets + ")";
    } else {
      sig.signature = rets + "(" + args + ")";
    }
    sig.base_name = codegen::entry_base_name(def.name, names);
    sig.base_name_hash = XXH3_64bits(sig.base_name.data(), sig.base_name.size());
    auto kernel = std::make_shared<const ElementwiseKernel>(def_, types);
    // Which code: the source of one variant stands for all (they differ by layout only).
    const std::string text = kernel->key_text(sig, codegen::KernelVariant{});
    sig.ir_hash = XXH3_64bits(text.data(), text.size());
    sig.external = kernel;
    auto list = std::make_shared<const std::vector<runtime::CompiledSignature>>(1, std::move(sig));
    signatures_.emplace(key, list);
    return list;
  }

  std::shared_ptr<const ElementwiseDef> def_;
  std::shared_ptr<runtime::RuntimeCore> core_;
  std::shared_ptr<const runtime::GufuncLayout> layout_;
  std::mutex mutex_;
  std::map<std::string, runtime::SignatureList> signatures_;
};

}  // namespace

}  // namespace ufjit::cudacpp

namespace ufjit {

Ufunc Runtime::elementwise(const std::string &in_params, const std::string &out_params, const std::string &operation,
                           const std::string &name, const ElementwiseOptions &options) {
  auto def = std::make_shared<const cudacpp::ElementwiseDef>(
      cudacpp::parse_elementwise(in_params, out_params, operation, name, options));
  auto state = std::make_shared<UfuncState>();
  state->name = name;
  state->decorator_target = "cuda";
  state->generalized = def->outputs.size() > 1;
  state->core = impl().core;
  auto binder = std::make_shared<cudacpp::Binder>(def, state->core);
  state->bind = [binder](TargetKind target, std::vector<Operand> &ops, std::vector<Array> &keep, bool async) {
    return binder->bind(target, ops, keep, async);
  };
  return Ufunc(std::move(state));
}

}  // namespace ufjit
