// The public API: Runtime, Ufunc, UfuncSet, version() (ufjit/runtime.h).
#include <string_view>

#include "codegen/Codegen.h"
#include "support/Diagnostics.h"
#include "support/LargeStack.h"
#include "frontend/Signature.h"
#include "typer/Typer.h"
#include "runtime/Call.h"
#include "runtime/DevicePlacement.h"
#include "runtime/GufuncLayout.h"
#include "runtime/KernelRequest.h"
#include "runtime/DynamicUfunc.h"
#include "runtime/KernelRunner.h"
#include "runtime/ViewChecks.h"
#include "runtime/cache/DiskCache.h"
#include "ufjit/files.h"

namespace ufjit {

namespace {

[[noreturn]] void empty_ufunc() { throw InputError("this Ufunc is empty (default-constructed or moved from)"); }

/// A call's operands and signatures after UfuncState::bind (a CUDA C++
/// elementwise kernel); the caller's as they are otherwise.
struct BoundCall {
  std::vector<Operand> operands;
  std::vector<Array> keep;
  runtime::SignatureList signatures;
  std::span<const Operand> use;
};

void bind_call(UfuncState &state, TargetKind target, std::span<const Operand> operands, bool async,
               BoundCall &bound) {
  if (!state.bind) {
    bound.use = operands;
    bound.signatures = runtime::call_signatures(state, operands);
    return;
  }
  bound.operands.assign(operands.begin(), operands.end());
  bound.signatures = state.bind(target, bound.operands, bound.keep, async);
  bound.use = bound.operands;
}

/// What the typer reads, hashed before it runs: the source text, the
/// signatures given with it and the link options (length-prefixed, so that
/// no two lists hash alike by their separators).
runtime::SourceKey source_key_of(const std::string &source, const std::vector<std::string> &signatures,
                                 const ir::LinkOptions &link) {
  std::string text = "ufjit-source-1";
  auto add = [&text](std::string_view field) {
    text += ';';
    text += std::to_string(field.size());
    text += ':';
    text += field;
  };
  add(source);
  auto add_list = [&](const std::vector<std::string> &list) {
    add(std::to_string(list.size()));
    for (const std::string &item : list) {
      add(item);
    }
  };
  add_list(signatures);
  add_list(link.files);
  add(link.base_dir);
  add_list(link.nvrtc_options);
  const cache::KeyHash hash = cache::hash_bytes(text);
  return runtime::SourceKey{hash.low, hash.high};
}

/// Types a source and wraps each ufunc's modules for the runtime.
std::vector<Ufunc> compile_source_here(const std::shared_ptr<runtime::RuntimeCore> &core, const std::string &source,
                                       const std::string &source_name, const std::vector<std::string> &signatures,
                                       const VectorizeOptions &options) {
  auto file = std::make_shared<const SourceFile>(source_name, source);
  DiagnosticEngine diags;
  diags.retain(file);
  const ir::LinkOptions link{options.link, options.base_dir, options.nvrtc_options};
  // A CUDA backend already made loads the kernels this source ran with
  // before (its disk cache's source index) while the typer runs here.
  const runtime::SourceKey source_key = source_key_of(source, signatures, link);
  if (runtime::Backend *cuda = core->made_backend(TargetKind::Cuda)) {
    cuda->runner().prefetch(source_key);
  }
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags, signatures, link);
  diags.throw_if_errors();
  if (!program) {
    throw CompileError("'" + source_name + "' did not compile", diags.to_messages());
  }
  std::vector<Ufunc> ufuncs;
  for (ir::TypedUfunc &typed : program->ufuncs) {
    auto state = std::make_shared<UfuncState>();
    state->name = typed.name;
    state->decorator_target = typed.options.target;
    state->generalized = typed.kind == frontend::UfuncKind::GuVectorize;
    state->identity = static_cast<Identity>(typed.options.identity);  // same order (frontend/Program.h)
    // A layout-only (or is_dynamic=True) @guvectorize is typed per operand
    // dtypes at call time, as a signature-less @vectorize.
    state->dynamic = typed.dynamic || (state->generalized && typed.options.is_dynamic);
    state->source = state->dynamic ? file : nullptr;
    state->link = link;
    state->core = core;
    if (state->generalized) {
      state->layout = std::make_shared<const runtime::GufuncLayout>(
          runtime::make_gufunc_layout(typed.core, typed.options.writable_args));
    }
    const std::shared_ptr<const runtime::GufuncLayout> &layout = state->layout;
    for (std::size_t i = 0; i < typed.modules.size(); ++i) {
      runtime::CompiledSignature sig;
      sig.layout = layout;
      sig.module = std::make_shared<const ir::Module>(std::move(typed.modules[i]));
      sig.ufunc_name = typed.name;
      sig.signature = typed.signatures[i].str();
      sig.index = static_cast<int>(i);
      sig.source = source_key;
      runtime::finish_signature(sig);
      state->signatures.push_back(std::move(sig));
    }
    if (state->dynamic && !state->signatures.empty()) {
      // is_dynamic=True with signatures: those are the first, more are added per call.
      state->dynamic_signatures =
          std::make_shared<const std::vector<runtime::CompiledSignature>>(std::move(state->signatures));
      state->signatures.clear();
    }
    ufuncs.emplace_back(std::move(state));
  }
  return ufuncs;
}

/// compile_source_here, with every step (parse, type, print the IR for its
/// hash) on the caller's thread when its stack is ample for the source, else
/// on one compile thread (support/LargeStack.h) instead of one per step.
std::vector<Ufunc> compile_source(const std::shared_ptr<runtime::RuntimeCore> &core, const std::string &source,
                                  const std::string &source_name, const std::vector<std::string> &signatures,
                                  const VectorizeOptions &options = {}) {
  return run_with_stack_for(source.size(),
                            [&] { return compile_source_here(core, source, source_name, signatures, options); });
}

}  // namespace

// -------------------------------------------------------------------- Runtime

Runtime::Runtime() : Runtime(RuntimeOptions{}) {}

Runtime::Runtime(const RuntimeOptions &options) : impl_(std::make_unique<RuntimeImpl>()) {
  impl_->core = std::make_shared<runtime::RuntimeCore>(options);
}

Runtime::~Runtime() = default;

TargetKind Runtime::target() const { return impl_->core->default_target(); }

Ufunc Runtime::vectorize(const std::string &source, const std::vector<std::string> &signatures) {
  return vectorize(source, signatures, VectorizeOptions{});
}

Ufunc Runtime::vectorize(const std::string &source, const std::vector<std::string> &signatures,
                         const VectorizeOptions &options) {
  const std::string &source_name = options.source_name;
  std::vector<Ufunc> ufuncs = compile_source(impl_->core, source, source_name, signatures, options);
  if (ufuncs.size() != 1) {
    std::string names;
    for (const Ufunc &u : ufuncs) {
      names += (names.empty() ? "" : ", ") + u.name();
    }
    throw CompileError("vectorize() needs a source with exactly one ufunc; '" + source_name + "' has " +
                           std::to_string(ufuncs.size()) + (names.empty() ? "" : " (" + names + ")") +
                           "; use Runtime::load for several",
                       {});
  }
  return ufuncs.front();
}

UfuncSet Runtime::load(const std::string &source, const VectorizeOptions &options) {
  UfuncSet set;
  set.ufuncs = compile_source(impl_->core, source, options.source_name, {}, options);
  return set;
}

UfuncSet Runtime::load_file(const std::string &path) { return load_file(path, VectorizeOptions{}); }

UfuncSet Runtime::load_file(const std::string &path, const VectorizeOptions &options) {
  VectorizeOptions named = options;
  named.source_name = path;
  return load(read_source_file(path), named);
}

namespace {

/// The CUDA backend of device `device` of the set (-1: the default one).
runtime::Backend &cuda_backend(runtime::RuntimeCore &core, int device, const char *what) {
  runtime::Backend &first = core.backend(TargetKind::Cuda);
  if (device < 0 || device == first.device_ordinal()) {
    return first;
  }
  return runtime::backend_of_device(core, device, what);
}

}  // namespace

Array Runtime::to_device(const ArrayView &host) {
  return to_device(host, -1);
}

Array Runtime::to_device(const ArrayView &host, int device) {
  runtime::validate_view(host, [] { return std::string("to_device: the array"); });
  if (host.residence != Residence::Host) {
    throw InputError("to_device: the array (" + host.describe() + ") is already on the device");
  }
  return cuda_backend(*impl_->core, device, "to_device: the device").to_device(host);
}

Array Runtime::to_host(const ArrayView &array) {
  runtime::validate_view(array, [] { return std::string("to_host: the array"); });
  if (array.residence == Residence::Device) {
    auto label = [] { return std::string("to_host: the array"); };
    runtime::Backend &cuda = runtime::backend_of_view(*impl_->core, array, label);
    runtime::check_usable_memory(cuda, array, label);
    return cuda.to_host(array);
  }
  Array copy = runtime::allocate_host(array.dtype, array.shape);
  runtime::copy_host_strided(array, copy.view());
  return copy;
}

Array Runtime::device_empty(DType dtype, std::vector<int64_t> shape) {
  return device_empty(dtype, std::move(shape), -1);
}

Array Runtime::device_empty(DType dtype, std::vector<int64_t> shape, int device) {
  runtime::check_dtype(dtype, [] { return std::string("device_empty's dtype"); });
  (void)runtime::checked_bytes(dtype, shape);
  return cuda_backend(*impl_->core, device, "device_empty: the device").device_empty(dtype, shape);
}

std::vector<int> Runtime::devices() {
  std::vector<int> ordinals;
  for (const runtime::Backend *backend : impl_->core->cuda_backends()) {
    ordinals.push_back(backend->device_ordinal());
  }
  return ordinals;
}

Stream Runtime::stream() { return impl_->core->backend(TargetKind::Cuda).make_stream(); }

Stream Runtime::stream(int device) {
  return cuda_backend(*impl_->core, device, "stream: the device").make_stream();
}

Stream Runtime::borrow_stream(void *cu_stream) {
  runtime::Backend &first = impl_->core->backend(TargetKind::Cuda);
  // A stream of another device's context is that device's (a one-device
  // Runtime asks the driver nothing).
  if (cu_stream != nullptr && impl_->core->cuda_device_count() > 1 && !first.owns_stream(cu_stream)) {
    for (runtime::Backend *backend : impl_->core->cuda_backends()) {
      if (backend->owns_stream(cu_stream)) {
        return backend->borrow_stream(cu_stream);
      }
    }
  }
  return first.borrow_stream(cu_stream);
}

void Runtime::synchronize() {
  if (impl_->core->cuda_usable()) {
    for (runtime::Backend *backend : impl_->core->cuda_backends()) {
      backend->synchronize();
    }
  }
}

// ---------------------------------------------------------------------- Ufunc

const std::string &Ufunc::name() const {
  if (!state_) {
    empty_ufunc();
  }
  return state_->name;
}

std::vector<std::string> Ufunc::signatures() const {
  if (!state_) {
    empty_ufunc();
  }
  std::vector<std::string> out;
  runtime::SignatureList list;
  if (state_->dynamic) {
    std::lock_guard<std::mutex> lock(state_->dynamic_mutex);
    list = state_->dynamic_signatures;  // those compiled so far
  } else {
    list = runtime::call_signatures(*state_, {});
  }
  for (const runtime::CompiledSignature &s : list ? *list : std::vector<runtime::CompiledSignature>{}) {
    out.push_back(s.signature);
  }
  return out;
}

namespace {

/// A call whose structure is the last call's (CallPlan.h) runs through its
/// plan before anything else: a plan exists only for fixed signatures, which
/// need no binding. True when it ran (`result`: the new output, empty with
/// out(...)); on false, run_call takes the full path and records the plan.
bool run_through_plan(UfuncState &state, TargetKind target, std::span<const Operand> operands,
                      StreamImpl *stream, Array &result) {
  runtime::LastCallPlan *plan = state.plan();
  return plan != nullptr && plan->run(state.core->backend(target), operands, stream, result);
}

/// A synchronous call of an elementwise ufunc on `target`: its result,
/// empty with out(...).
Array run_elementwise(UfuncState &state, TargetKind target, std::span<const Operand> operands) {
  Array result;
  if (run_through_plan(state, target, operands, nullptr, result)) {
    return result;
  }
  BoundCall bound;
  bind_call(state, target, operands, false, bound);
  runtime::Backend &backend = state.core->backend(target);
  result = runtime::run_call(*state.core, backend, state.name, *bound.signatures, bound.use, nullptr,
                             state.plan());
  if (!bound.keep.empty()) {
    backend.synchronize();  // the kernel read the copies in `keep`
  }
  return result;
}

/// Every result of a call on `target` (Ufunc::call_all_on).
std::vector<Array> call_all_on_target(UfuncState &state, TargetKind target, std::span<const Operand> operands) {
  if (!state.generalized) {
    Array result = run_elementwise(state, target, operands);
    std::vector<Array> results;
    if (!result.empty_handle()) {
      results.push_back(std::move(result));
    }
    return results;
  }
  BoundCall bound;
  bind_call(state, target, operands, false, bound);
  runtime::Backend &backend = state.core->backend(target);
  return runtime::run_gufunc_call(*state.core, backend, state.name, *bound.signatures, bound.use, nullptr);
}

/// The one result of a call on `target` (Ufunc::call_on).
Array call_on_target(UfuncState &state, TargetKind target, std::span<const Operand> operands) {
  if (state.generalized) {
    std::vector<Array> results = call_all_on_target(state, target, operands);
    if (results.size() > 1) {
      throw InputError("'" + state.name + "' has " + std::to_string(results.size()) +
                       " outputs: use Ufunc::call_all (or outputs(...)) to get them all, or give them with out(...)");
    }
    if (results.empty()) {
      return Array();
    }
    return std::move(results.front());
  }
  return run_elementwise(state, target, operands);
}

}  // namespace

Array Ufunc::call(const std::vector<Operand> &operands) const { return call_operands(operands); }

Array Ufunc::call_operands(std::span<const Operand> operands) const {
  if (!state_) {
    empty_ufunc();
  }
  return call_on_target(*state_, state_->core->target_for(state_->decorator_target), operands);
}

Array Ufunc::call_on(TargetKind target, const std::vector<Operand> &operands) const {
  if (!state_) {
    empty_ufunc();
  }
  runtime::check_target(target, [] { return std::string("call_on's target"); });
  return call_on_target(*state_, target, operands);
}

std::vector<Array> Ufunc::call_all(const std::vector<Operand> &operands) const {
  if (!state_) {
    empty_ufunc();
  }
  return call_all_on_target(*state_, state_->core->target_for(state_->decorator_target), operands);
}

std::vector<Array> Ufunc::call_all_on(TargetKind target, const std::vector<Operand> &operands) const {
  if (!state_) {
    empty_ufunc();
  }
  runtime::check_target(target, [] { return std::string("call_all_on's target"); });
  return call_all_on_target(*state_, target, operands);
}

std::vector<Array> Ufunc::call_all(const std::vector<Operand> &operands, const CoreAxes &axes,
                                   std::optional<TargetKind> target) const {
  if (!state_) {
    empty_ufunc();
  }
  if (!state_->generalized) {
    throw InputError("axes=/axis= apply to generalized ufuncs (@guvectorize); '" + state_->name + "' is a ufunc");
  }
  runtime::Backend &backend =
      state_->core->backend(target ? *target : state_->core->target_for(state_->decorator_target));
  const runtime::SignatureList signatures = runtime::call_signatures(*state_, operands);
  return runtime::run_gufunc_call(*state_->core, backend, state_->name, *signatures, operands, nullptr,
                                  &axes);
}

bool Ufunc::is_generalized() const {
  if (!state_) {
    empty_ufunc();
  }
  return state_->generalized;
}

int Ufunc::nout() const {
  if (!state_) {
    empty_ufunc();
  }
  if (!state_->generalized) {
    return 1;
  }
  return static_cast<int>(state_->layout->outputs.size());
}

std::string Ufunc::layout() const {
  if (!state_) {
    empty_ufunc();
  }
  return state_->generalized ? state_->layout->text : "";
}

void Ufunc::call_async(Stream &stream, const std::vector<Operand> &operands) const {
  call_async_operands(stream, operands);
}

void Ufunc::call_async_operands(Stream &stream, std::span<const Operand> operands) const {
  if (!state_) {
    empty_ufunc();
  }
  if (stream.impl() == nullptr) {
    throw InputError("call_async: the stream is empty (moved from or default-constructed)");
  }
  Array unused;  // an async call's new output is not returned (f.async: out(...) keeps it)
  if (run_through_plan(*state_, TargetKind::Cuda, operands, stream.impl(), unused)) {
    return;
  }
  BoundCall bound;
  bind_call(*state_, TargetKind::Cuda, operands, true, bound);
  runtime::Backend &backend = state_->core->backend(TargetKind::Cuda);
  if (state_->generalized) {
    (void)runtime::run_gufunc_call(*state_->core, backend, state_->name, *bound.signatures, bound.use, stream.impl());
    return;
  }
  (void)runtime::run_call(*state_->core, backend, state_->name, *bound.signatures, bound.use, stream.impl(),
                          state_->plan());
}

std::string Ufunc::ptx(const std::string &signature, const std::string &arch) const {
  if (!state_) {
    empty_ufunc();
  }
  // Canonicalise the caller's spelling ("f4(f4)") before looking it up.
  const std::string canonical = frontend::canonical_signature(signature);
  runtime::SignatureList compiled;
  if (state_->dynamic) {
    std::lock_guard<std::mutex> lock(state_->dynamic_mutex);
    compiled = state_->dynamic_signatures;  // those compiled so far
  }
  const std::vector<runtime::CompiledSignature> &all =
      state_->dynamic ? (compiled ? *compiled : std::vector<runtime::CompiledSignature>{})
                      : state_->signatures;
  for (const runtime::CompiledSignature &s : all) {
    if (s.signature != canonical) {
      continue;
    }
    codegen::KernelVariant contiguous;
    codegen::KernelVariant strided;
    strided.layout = codegen::Layout::Strided;
    const codegen::EntryRequest request = runtime::entries_request(
        s, s.generalized() ? std::vector<codegen::KernelVariant>{codegen::gufunc_variant()}
                           : std::vector<codegen::KernelVariant>{contiguous, strided});
    codegen::GpuOptions gpu;
    gpu.arch = arch;
    return codegen::emit_ptx({request}, gpu);
  }
  std::string known;
  for (const runtime::CompiledSignature &s : all) {
    known += (known.empty() ? "" : ", ") + s.signature;
  }
  throw DispatchError("'" + state_->name + "' has no signature " + canonical + "; it has: " + known);
}

// ------------------------------------------------------------------- UfuncSet

Ufunc UfuncSet::operator[](const std::string &name) const {
  for (const Ufunc &u : ufuncs) {
    if (u.name() == name) {
      return u;
    }
  }
  std::vector<std::string> all = names();
  std::string message = "no ufunc named '" + name + "'";
  const std::string hint = closest_match(name, all);
  if (!hint.empty()) {
    message += "; did you mean '" + hint + "'?";
  } else {
    std::string list;
    for (const std::string &n : all) {
      list += (list.empty() ? "" : ", ") + n;
    }
    message += " (the source defines: " + (list.empty() ? std::string("none") : list) + ")";
  }
  throw InputError(message);
}

std::vector<std::string> UfuncSet::names() const {
  std::vector<std::string> out;
  for (const Ufunc &u : ufuncs) {
    out.push_back(u.name());
  }
  return out;
}

}  // namespace ufjit
