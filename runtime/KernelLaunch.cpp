// Explicit kernels (ufjit/kernel.h): Runtime::kernel, and a launch's steps,
// every check before anything runs: the configuration within CUDA's
// limits -> the arguments (views checked, counted) -> the signature (the
// first given one that fits, or one typed for the arguments' types and
// cached, as Numba's dispatcher does) -> PreparedKernel -> the backend's
// execute_kernel.
#include <mutex>

#include "frontend/Signature.h"
#include "runtime/DevicePlacement.h"
#include "runtime/Dispatch.h"
#include "runtime/KernelRunner.h"
#include "runtime/RuntimeImpl.h"
#include "runtime/ViewChecks.h"
#include "support/Diagnostics.h"
#include "support/InternalAssert.h"
#include "support/LargeStack.h"
#include "typer/Typer.h"
#include "ufjit/files.h"
#include "ufjit/kernel.h"

namespace ufjit {

struct KernelState {
  std::string name;
  std::shared_ptr<runtime::RuntimeCore> core;
  std::shared_ptr<const SourceFile> source;
  std::vector<std::string> params;  // the def's parameter names, for messages
  bool given = false;               // the decorator gave signatures: only those are used
  std::mutex mutex;
  /// Compiled signatures, stable in memory (PreparedKernel points at them);
  /// a kernel without given ones adds one per new argument types.
  std::vector<std::unique_ptr<runtime::CompiledSignature>> signatures;
  /// The checked compilations (LaunchConfig::check) of signatures whose
  /// module is not checked already, made at their first checked launch.
  std::vector<std::unique_ptr<runtime::CompiledSignature>> checked;
};

namespace {

/// CUDA's limits on a launch, checked on both targets so that a launch that
/// works on the CPU works on the GPU.
constexpr int64_t kMaxBlockThreads = 1024;
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
/// Dynamic shared memory a block may ask for: the H100/H200's opt-in
/// maximum (227 KiB); a smaller GPU refuses more at the launch.
constexpr int64_t kMaxDynamicShared = 227 * 1024;

[[noreturn]] void empty_kernel() { throw InputError("this Kernel is empty (default-constructed)"); }

std::string dim3_text(const Dim3 &d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

void check_config(const std::string &kernel, const LaunchConfig &config) {
  const std::string where = "launch of kernel '" + kernel + "': ";
  const Dim3 &g = config.grid;
  const Dim3 &b = config.block;
  if (g.x < 1 || g.y < 1 || g.z < 1 || g.x > kMaxGridX || g.y > kMaxGridYZ || g.z > kMaxGridYZ) {
    throw InputError(where + "grid " + dim3_text(g) + " is outside CUDA's limits: every extent >= 1, x <= " +
                     std::to_string(kMaxGridX) + ", y and z <= " + std::to_string(kMaxGridYZ));
  }
  if (b.x < 1 || b.y < 1 || b.z < 1 || b.x > 1024 || b.y > 1024 || b.z > 64 || b.count() > kMaxBlockThreads) {
    throw InputError(where + "block " + dim3_text(b) + " is outside CUDA's limits: every extent >= 1, x and y <= "
                     "1024, z <= 64, at most 1024 threads in all");
  }
  if (config.shared_bytes < 0 || config.shared_bytes > kMaxDynamicShared) {
    throw InputError(where + std::to_string(config.shared_bytes) + " bytes of dynamic shared memory: give 0 to " +
                     std::to_string(kMaxDynamicShared));
  }
}

/// The IR type an argument stands for when a kernel is typed for it.
ir::Type argument_type(const Operand &arg) {
  if (arg.kind != Operand::Kind::Scalar) return ir::Type::array(arg.array.dtype, static_cast<int>(arg.array.shape.size()));
  return ir::Type::scalar(arg.scalar.dtype);  // a weak one at its Python type: int64, float64, bool, complex128
}

std::string types_text(std::span<const Operand> args) {
  std::string text;
  for (const Operand &arg : args) {
    if (!text.empty()) text += ", ";
    text += argument_type(arg).str();
  }
  return "(" + text + ")";
}

/// Whether `arg` can be passed for a parameter of type `param`.
bool fits(const ir::Type &param, const Operand &arg) {
  if (param.is_array()) {
    return arg.kind != Operand::Kind::Scalar && arg.array.dtype == param.dtype() &&
           static_cast<int>(arg.array.shape.size()) == param.ndim();
  }
  if (arg.kind != Operand::Kind::Scalar) return false;
  return is_complex(param.dtype()) || !is_complex(arg.scalar.dtype);  // C's conversions, but not complex -> real
}

void check_arguments(const KernelState &state, std::span<const Operand> args, TargetKind target) {
  const std::string where = "launch of kernel '" + state.name + "': ";
  if (args.size() != state.params.size()) {
    throw InputError(where + "the kernel takes " + std::to_string(state.params.size()) + " arguments, " +
                     std::to_string(args.size()) + " were given");
  }
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Operand &arg = args[k];
    if (arg.kind == Operand::Kind::Scalar) continue;
    const std::string label = "argument '" + state.params[k] + "'";
    if (arg.kind == Operand::Kind::Out) {
      throw InputError(where + label + " is given with out(): a kernel takes every array by reference; pass the view");
    }
    runtime::validate_view(arg.array, [&] { return where + label; });
    if (arg.array.shape.empty()) {
      throw InputError(where + label + " is a 0-d array; a kernel takes arrays of 1 to 8 dimensions: pass a "
                       "1-element array (reshape(1))");
    }
    if (arg.array.read_only) {
      throw InputError(where + label + " is a read-only view (" + arg.array.describe() +
                       "), and a kernel may write any array it is given: pass a writable view or a copy");
    }
    if (target == TargetKind::Cpu && arg.array.residence == Residence::Device) {
      throw DeviceError(where + label + " is on the device and the kernel runs on the CPU target: copy it with "
                        "Runtime::to_host, or run on the GPU");
    }
  }
}

const runtime::CompiledSignature &add_signature(KernelState &state, ir::Module module, const std::string &text,
                                                std::vector<std::unique_ptr<runtime::CompiledSignature>> &to) {
  auto sig = std::make_unique<runtime::CompiledSignature>();
  sig->module = std::make_shared<const ir::Module>(std::move(module));
  sig->ufunc_name = state.name;
  sig->signature = text;
  sig->index = static_cast<int>(to.size());
  runtime::finish_signature(*sig);
  to.push_back(std::move(sig));
  return *to.back();
}

const runtime::CompiledSignature &add_signature(KernelState &state, ir::Module module, const std::string &text) {
  return add_signature(state, std::move(module), text, state.signatures);
}

/// The signature a launch with `args` uses (see Kernel::launch).
const runtime::CompiledSignature &signature_for(KernelState &state, std::span<const Operand> args) {
  std::lock_guard<std::mutex> lock(state.mutex);
  for (const auto &sig : state.signatures) {
    const std::vector<ir::Variable> &params = sig->module->entry_function().params;
    bool all = params.size() == args.size();
    for (std::size_t k = 0; all && k < args.size(); ++k) all = fits(params[k].type, args[k]);
    if (all) return *sig;
  }
  const std::string types = types_text(args);
  if (state.given) {
    std::string have;
    for (const auto &sig : state.signatures) have += (have.empty() ? "" : ", ") + sig->signature;
    throw DispatchError("kernel '" + state.name + "' has no signature for arguments " + types + "; it has " + have +
                        ". Convert the arrays (astype) or add a signature to its @cuda.jit");
  }
  std::vector<ir::Type> arg_types;
  for (const Operand &arg : args) arg_types.push_back(argument_type(arg));
  DiagnosticEngine diags;
  diags.retain(state.source);
  std::optional<ir::InferredSignature> typed = ir::type_kernel(state.source, state.name, arg_types, diags);
  if (!typed) throw CompileError("kernel '" + state.name + "' did not compile for arguments " + types, diags.to_messages());
  return add_signature(state, std::move(typed->module), typed->signature.str());
}

/// The checked compilation of `plain` (LaunchConfig::check).
const runtime::CompiledSignature &checked_signature(KernelState &state, const runtime::CompiledSignature &plain) {
  if (plain.module->checked) return plain;  // debug=True or UFJIT_CHECK=1 compiled it so
  std::lock_guard<std::mutex> lock(state.mutex);
  for (const auto &sig : state.checked) {
    if (sig->signature == plain.signature) return *sig;
  }
  std::vector<ir::Type> types;
  for (const ir::Variable &p : plain.module->entry_function().params) types.push_back(p.type);
  DiagnosticEngine diags;
  diags.retain(state.source);
  std::optional<ir::InferredSignature> typed = ir::type_kernel(state.source, state.name, types, diags, true);
  if (!typed) {
    throw CompileError("kernel '" + state.name + "' did not compile checked for " + plain.signature,
                       diags.to_messages());
  }
  return add_signature(state, std::move(typed->module), plain.signature, state.checked);
}

runtime::PreparedKernel prepare_launch(const runtime::CompiledSignature &sig, const LaunchConfig &config,
                                       std::span<const Operand> args) {
  runtime::PreparedKernel launch;
  launch.signature = &sig;
  launch.grid = {config.grid.x, config.grid.y, config.grid.z};
  launch.block = {config.block.x, config.block.y, config.block.z};
  launch.shared_bytes = config.shared_bytes;
  launch.contiguous = true;
  const std::vector<ir::Variable> &params = sig.module->entry_function().params;
  for (std::size_t k = 0; k < args.size(); ++k) {
    runtime::PreparedOperand p;
    p.is_scalar = args[k].kind == Operand::Kind::Scalar;
    p.dtype = params[k].type.dtype();
    if (p.is_scalar) {
      p.scalar_bytes = runtime::convert_scalar(args[k].scalar, p.dtype);
    } else {
      p.array = args[k].array;
      launch.contiguous = launch.contiguous && p.array.is_c_contiguous();
    }
    launch.args.push_back(std::move(p));
  }
  return launch;
}

Kernel kernel_of_source(const std::shared_ptr<runtime::RuntimeCore> &core, const std::string &source,
                        const std::string &source_name, const std::string &name) {
  auto file = std::make_shared<const SourceFile>(source_name, source);
  DiagnosticEngine diags;
  diags.retain(file);
  std::optional<ir::TypedProgram> program =
      run_with_stack_for(source.size(), [&] { return ir::compile_to_ir(file, diags); });
  diags.throw_if_errors();
  if (!program) throw CompileError("'" + source_name + "' did not compile", diags.to_messages());
  ir::TypedKernel *found = nullptr;
  std::string names;
  for (ir::TypedKernel &k : program->kernels) {
    names += (names.empty() ? "'" : ", '") + k.name + "'";
    if (k.name == name || (name.empty() && program->kernels.size() == 1)) found = &k;
  }
  if (found == nullptr) {
    if (program->kernels.empty()) throw InputError("'" + source_name + "' has no @cuda.jit kernel");
    throw InputError(name.empty() ? "'" + source_name + "' has several kernels (" + names + "): name one"
                                  : "'" + source_name + "' has no kernel '" + name + "'; it has " + names);
  }
  auto state = std::make_shared<KernelState>();
  state->name = found->name;
  state->core = core;
  state->source = file;
  state->params = found->params;
  state->given = !found->signatures.empty();
  for (std::size_t i = 0; i < found->modules.size(); ++i) {
    add_signature(*state, std::move(found->modules[i]), found->signatures[i].str());
  }
  return Kernel(std::move(state));
}

}  // namespace

Kernel Runtime::kernel(const std::string &source, const std::string &name) {
  return kernel_of_source(impl_->core, source, "<string>", name);
}

Kernel Runtime::kernel_file(const std::string &path, const std::string &name) {
  return kernel_of_source(impl_->core, read_source_file(path), path, name);
}

namespace {

/// The backend of the device a launch runs on (runtime/DevicePlacement.h):
/// LaunchConfig::device, else the stream's, else that of the first device
/// array. Every argument is by reference: one on a device the launch's
/// cannot use in place is refused, never copied.
runtime::Backend &launch_backend(KernelState &state, TargetKind target, const LaunchConfig &config,
                                 std::span<const Operand> args, StreamImpl *stream) {
  runtime::Backend &requested = state.core->backend(target);
  if (config.device >= 0 && target != TargetKind::Cuda) {
    throw InputError("launch of kernel '" + state.name +
                     "': LaunchConfig::device is for the GPU target only");
  }
  if (config.device < 0 && runtime::stays_on(requested, args, stream)) {
    return requested;  // the usual launch: no lookup
  }
  runtime::DeviceOperands placed;
  for (const Operand &arg : args) {
    placed.views.push_back(arg.kind == Operand::Kind::Scalar ? nullptr : &arg.array);
  }
  placed.written.assign(args.size(), true);
  placed.label = [&](std::size_t i) {
    return "argument '" + state.params[i] + "' of the launch of kernel '" + state.name + "'";
  };
  return *runtime::place_on_device(*state.core, requested, placed, stream, config.device).backend;
}

}  // namespace

const std::string &Kernel::name() const {
  if (!state_) empty_kernel();
  return state_->name;
}

const std::vector<std::string> &Kernel::parameters() const {
  if (!state_) empty_kernel();
  return state_->params;
}

std::vector<std::string> Kernel::signatures() const {
  if (!state_) empty_kernel();
  std::lock_guard<std::mutex> lock(state_->mutex);
  std::vector<std::string> out;
  for (const auto &sig : state_->signatures) out.push_back(sig->signature);
  return out;
}

void Kernel::launch_operands(const LaunchConfig &config, std::span<const Operand> args) const {
  if (!state_) empty_kernel();
  launch_on(state_->core->target_for(""), config, args);
}

void Kernel::launch_on(TargetKind target, const LaunchConfig &config, std::span<const Operand> args) const {
  if (!state_) empty_kernel();
  check_config(state_->name, config);
  check_arguments(*state_, args, target);
  StreamImpl *stream = nullptr;
  if (config.stream != nullptr) {
    if (!config.stream->valid()) throw InputError("launch of kernel '" + state_->name + "': the stream is empty");
    if (target != TargetKind::Cuda) {
      throw InputError("launch of kernel '" + state_->name + "': a stream is for the GPU target only");
    }
    for (const Operand &arg : args) {
      if (arg.kind != Operand::Kind::Scalar && arg.array.residence == Residence::Host) {
        throw InputError("launch of kernel '" + state_->name + "' on a stream: every array must be on the device "
                         "(copy host arrays with Runtime::to_device)");
      }
    }
    stream = config.stream->impl();
  }
  const runtime::CompiledSignature *sig = &ufjit::signature_for(*state_, args);
  if (config.check) sig = &checked_signature(*state_, *sig);
  const runtime::PreparedKernel launch = prepare_launch(*sig, config, args);
  launch_backend(*state_, target, config, args, stream).runner().execute_kernel(launch, stream);
}

std::string Kernel::signature_for(std::span<const Operand> args) const {
  if (!state_) empty_kernel();
  return ufjit::signature_for(*state_, args).signature;
}

std::string Kernel::ptx(const std::string &signature, const std::string &arch) const {
  if (!state_) empty_kernel();
  const runtime::CompiledSignature *found = nullptr;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (const auto &sig : state_->signatures) {
      if (sig->signature == signature) found = sig.get();
    }
  }
  if (found == nullptr) {
    throw DispatchError("kernel '" + state_->name + "' has no signature '" + signature + "'");
  }
  codegen::EntryRequest request;
  request.module = found->module.get();
  request.base_name = found->base_name;
  request.variants = {codegen::explicit_variant()};
  codegen::GpuOptions gpu;
  gpu.arch = arch;
  return codegen::emit_ptx({request}, gpu);
}

}  // namespace ufjit
