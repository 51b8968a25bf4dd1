#include "driver/Pipeline.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "codegen/Codegen.h"
#include "codegen/DeviceImage.h"
#include "support/Diagnostics.h"
#include "frontend/Dump.h"
#include "support/LargeStack.h"
#include "support/Settings.h"
#include "frontend/Parser.h"
#include "typer/Typer.h"
#include "ir/IRPrinter.h"
#include "driver/DeviceExport.h"
#include "ufjit/runtime.h"

namespace ufjit {
namespace driver {

std::vector<codegen::KernelVariant> aot_variants() {
  using codegen::KernelVariant;
  using codegen::Layout;
  return {KernelVariant{Layout::Contiguous, true, 0}, KernelVariant{Layout::Contiguous, false, 0},
          KernelVariant{Layout::Strided, false, 0}};
}

namespace {

using nlohmann::json;

json param(const std::string &name, const std::string &kind, const std::string &type, int size, int align) {
  return json{{"name", name}, {"kind", kind}, {"type", type}, {"size", size}, {"align", align}};
}

// The parameter list of KernelABI.h: the table every builder and packer reads.
json entry_params(const ManifestEntry &e) {
  json params = json::array();
  for (const codegen::KernelParam &p : codegen::kernel_params(e.spec)) {
    params.push_back(param(p.name(e.spec), p.kind_name(), p.type_name(), static_cast<int>(p.size()),
                           static_cast<int>(p.align())));
  }
  return params;
}

}  // namespace

std::string manifest_json(const std::vector<ManifestEntry> &entries, const CompileRequest &request) {
  json doc;
  doc["ufjit_version"] = ufjit::version();
  doc["source"] = request.source_name;
  doc["target"] = request.target;
  doc["arch"] = request.arch;
  doc["abi"] =
      "Each entry is a kernel of the module. Launch with a 1-D grid and any block size (grid-stride "
      "loop). Parameters in order as listed: 'count' is the number of elements; 'array' a device "
      "pointer to element 0; 'shape'/'strides' 8 int64 values (strides in bytes, unused dims: shape 1, "
      "stride 0); contiguous entries need C-contiguous operands of n elements; *_i32 entries need every byte offset (n times the widest element size) under 2^31. "
      "'gufunc' entries (@guvectorize) take 'count' outer elements over the outer 'shape' (ndim >= 1), and per "
      "operand its pointer, outer 'strides', and for array parameters 'core_shape'/'core_strides' (the first "
      "ndim-of-the-parameter values used); one thread per outer element. 'launch' is the grid the entry is "
      "fastest with (any grid is correct): 'full' = ceil(count / (block * elements_per_thread)) blocks, "
      "'capped' = a few waves of resident blocks. 'kernel' entries (@cuda.jit) are launched with the grid, "
      "block and dynamic shared memory of your choice and take, per kernel parameter in order, an array's "
      "pointer with its 'core_shape' and 'core_strides' (8 int64 each, the first ndim used), or a scalar's value; no "
      "'launch' advice.";
  json list = json::array();
  for (const ManifestEntry &e : entries) {
    json item;
    item["entry"] = e.entry;
    item["function"] = e.function;
    item["signature"] = e.signature;
    if (e.variant.kind == codegen::KernelKind::Gufunc) {
      item["variant"] = {{"layout", "gufunc"}, {"index32", false}, {"scalar_mask", 0}};
      item["gufunc_layout"] = e.layout;
    } else if (e.variant.kind == codegen::KernelKind::Explicit) {
      item["variant"] = {{"layout", "kernel"}, {"index32", false}, {"scalar_mask", 0}};
    } else {
      item["variant"] = {{"layout", e.variant.layout == codegen::Layout::Contiguous ? "contiguous" : "strided"},
                         {"index32", e.variant.index32},
                         {"scalar_mask", e.variant.scalar_mask}};
    }
    item["params"] = entry_params(e);
    if (request.target == "cuda" && e.variant.kind != codegen::KernelKind::Explicit) {
      item["launch"] = {{"grid", e.launch.elements_per_thread > 0 ? "full" : "capped"},
                        {"elements_per_thread", e.launch.elements_per_thread}};
    }
    list.push_back(std::move(item));
  }
  doc["entries"] = std::move(list);
  return doc.dump(2) + "\n";
}

}  // namespace driver

namespace {

class StepLog {
 public:
  explicit StepLog(const std::string &name) : level_(support::debug_level()), name_(name) {}
  void step(const char *what) {
    if (level_ == 0) return;
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    std::cerr << "ufjit: " << name_ << ": " << what << " (" << ms << " ms)\n";
    last_ = now;
  }
  int level() const { return level_; }

 private:
  int level_;
  std::string name_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

CompileResult finish(CompileResult result, const DiagnosticEngine &diags) {
  result.diagnostics = diags.to_messages();
  result.rendered_diagnostics = diags.render_all();
  result.ok = result.ok && !diags.has_errors();
  return result;
}

std::vector<std::string> dtype_names(const std::vector<frontend::SigType> &types) {
  std::vector<std::string> names;
  for (const frontend::SigType &t : types) names.push_back(codegen::entry_type_name(t.dtype, t.ndim));
  return names;
}

/// What the parameter table needs of a signature (codegen/kernel/KernelABI.h).
codegen::EntrySignature entry_signature_of(const frontend::Signature &sig, std::size_t gufunc_outputs) {
  codegen::EntrySignature entry;
  for (const frontend::SigType &t : sig.args) {
    entry.args.push_back(t.dtype);
    entry.arg_ndims.push_back(t.ndim);
  }
  if (gufunc_outputs == 0) {
    entry.arg_ndims.clear();
    entry.ret = sig.ret.dtype;
  }
  entry.outputs = gufunc_outputs;
  return entry;
}

/// Refuses a request whose fields no compile could honour.
void check_request(const CompileRequest &request) {
  if (request.target != "cuda" && request.target != "cpu") {
    throw InputError("unknown target '" + request.target + "'; use 'cuda' or 'cpu'");
  }
  if (static_cast<unsigned>(request.emit) > static_cast<unsigned>(EmitKind::DeviceLtoIr)) {
    throw InputError("CompileRequest::emit value " + std::to_string(static_cast<unsigned>(request.emit)) +
                     " is not a ufjit::EmitKind (Tokens, Ast, Ir, Llvm, Ptx, Cubin, DevicePtx or DeviceLtoIr)");
  }
  if (request.error_limit < 0) {
    throw InputError("CompileRequest::error_limit is " + std::to_string(request.error_limit) +
                     ": give 0 (no limit) or a positive count");
  }
}

/// The entries to compile: one per signature of the requested ufuncs, and
/// the manifest's line per kernel variant.
struct Entries {
  std::vector<codegen::EntryRequest> requests;
  std::vector<driver::ManifestEntry> manifest;
};

/// The entry request of one typed signature of `name`: its module and base
/// name; nothing with `--emit ir`, whose module text goes to `result`
/// instead.
std::optional<codegen::EntryRequest> signature_entry(const std::string &name, const frontend::Signature &sig,
                                                     const ir::Module &module, const CompileRequest &request,
                                                     CompileResult &result) {
  if (request.emit == EmitKind::Ir) {
    result.output += ir::print(module);
    return std::nullopt;
  }
  codegen::EntryRequest entry;
  entry.module = &module;
  entry.base_name = codegen::entry_base_name(name, dtype_names(sig.args));
  entry.done_flag = false;  // the manifest's launches need no flag (KernelABI.h)
  return entry;
}

/// The entries of the @cuda.jit kernels with signatures (as
/// collect_entries, whose request they share); whether one was named.
bool collect_kernel_entries(const ir::TypedProgram &program, const CompileRequest &request, CompileResult &result,
                            Entries &entries) {
  bool found = false;
  for (const ir::TypedKernel &kernel : program.kernels) {
    if (!request.function.empty() && kernel.name != request.function) continue;
    found = true;
    if (kernel.signatures.empty() && !request.function.empty()) {
      throw Error("kernel '" + kernel.name + "' has no signatures, and ufjit compile compiles signatures only: "
                  "give its @cuda.jit one, as @cuda.jit(\"void(float32[:], float32[:])\")");
    }
    for (std::size_t s = 0; s < kernel.modules.size(); ++s) {
      const frontend::Signature &sig = kernel.signatures[s];
      const ir::Module &module = kernel.modules[s];
      std::optional<codegen::EntryRequest> entry = signature_entry(kernel.name, sig, module, request, result);
      if (!entry) continue;
      entry->variants = {codegen::explicit_variant()};
      codegen::EntrySignature entry_sig;
      for (const frontend::SigType &t : sig.args) {
        entry_sig.args.push_back(t.dtype);
        entry_sig.arg_ndims.push_back(t.ndim);
      }
      entry_sig.can_raise = module.can_raise();
      const codegen::KernelVariant v = codegen::explicit_variant();
      codegen::KernelSpec spec = codegen::make_kernel_spec(entry_sig, v);
      for (std::size_t k = 0; k < spec.operands.size() && k < kernel.params.size(); ++k) {
        spec.operands[k].name = kernel.params[k];  // the manifest names parameters as the source does
      }
      entries.manifest.push_back(driver::ManifestEntry{codegen::entry_name(entry->base_name, v), kernel.name,
                                                       sig.str(), v, spec, ""});
      entries.requests.push_back(std::move(*entry));
    }
  }
  return found;
}

/// The entries of `request.function` (every ufunc when empty); with
/// `--emit ir`, the modules' text goes to `result` instead.
Entries collect_entries(const ir::TypedProgram &program, const CompileRequest &request,
                        CompileResult &result) {
  Entries entries;
  bool found = request.function.empty();
  for (const ir::TypedUfunc &ufunc : program.ufuncs) {
    if (!request.function.empty() && ufunc.name != request.function) continue;
    found = true;
    for (std::size_t s = 0; s < ufunc.signatures.size(); ++s) {
      const frontend::Signature &sig = ufunc.signatures[s];
      const ir::Module &module = ufunc.modules[s];
      std::optional<codegen::EntryRequest> entry = signature_entry(ufunc.name, sig, module, request, result);
      if (!entry) continue;
      if (ufunc.kind == frontend::UfuncKind::GuVectorize) {
        // One entry: one thread (CPU iteration) per outer element.
        entry->gufunc_outputs = ufunc.core.outputs.size();
        entry->variants = {codegen::gufunc_variant()};
      } else {
        entry->variants = driver::aot_variants();
      }
      codegen::EntrySignature entry_sig = entry_signature_of(sig, entry->gufunc_outputs);
      entry_sig.can_raise = module.can_raise();
      for (const codegen::KernelVariant &v : entry->variants) {
        entries.manifest.push_back(
            driver::ManifestEntry{codegen::entry_name(entry->base_name, v), ufunc.name, sig.str(), v,
                                  codegen::make_kernel_spec(entry_sig, v), ufunc.layout});
      }
      entries.requests.push_back(std::move(*entry));
    }
  }
  found = collect_kernel_entries(program, request, result, entries) || found;
  if (!found) {
    throw Error("no ufunc or kernel named '" + request.function + "' in " + request.source_name);
  }
  return entries;
}

/// `--emit ptx` and `--emit cubin`: the PTX of every entry, the manifest,
/// and for a cubin the PTX linked (with the CUDA C++ helpers, if any).
void emit_device_code(const CompileRequest &request, Entries &entries, const codegen::GpuOptions &gpu,
                      StepLog &log, CompileResult &result) {
  if (request.target != "cuda") {
    throw Error("--emit ptx and --emit cubin need --target cuda");
  }
  std::vector<const ir::Module *> modules;
  for (const codegen::EntryRequest &r : entries.requests) modules.push_back(r.module);
  const bool linked = codegen::needs_link_files(modules);
  if (linked && request.emit == EmitKind::Ptx) {
    throw Error("the kernels call CUDA C++ helpers (declare_device with link=[...]): their PTX alone would "
                "leave them undefined; use --emit cubin (linked with nvJitLink), or --emit llvm or ir");
  }
  std::string ptx = codegen::emit_ptx(entries.requests, gpu);
  log.step("emitted PTX");
  for (driver::ManifestEntry &e : entries.manifest) {
    e.launch = codegen::launch_hint_in_ptx(ptx, e.entry);
  }
  result.manifest_json = driver::manifest_json(entries.manifest, request);
  if (request.emit == EmitKind::Ptx) {
    result.output = std::move(ptx);
  } else if (linked) {
    result.output = codegen::link_module_image(codegen::module_device_image(ptx, modules, request.arch), modules,
                                               request.arch);
    log.step("linked cubin with the CUDA C++ helpers");
  } else {
    result.output = codegen::ptx_to_cubin(ptx, request.arch);
    log.step("linked cubin");
  }
}

CompileResult compile_here(const CompileRequest &request) {
  check_request(request);
  StepLog log(request.source_name);
  CompileResult result;
  DiagnosticEngine diags;
  diags.set_error_limit(request.error_limit);
  auto file = std::make_shared<const SourceFile>(request.source_name, request.source);
  diags.retain(file);

  if (request.emit == EmitKind::Tokens) {
    result.output = frontend::dump_tokens(*file, diags);
    result.ok = true;
    return finish(std::move(result), diags);
  }
  if (request.emit == EmitKind::Ast) {
    auto module = frontend::parse(file, diags);
    log.step("parsed");
    result.output = frontend::dump_ast(*module);
    result.ok = true;
    return finish(std::move(result), diags);
  }

  std::optional<ir::TypedProgram> program =
      ir::compile_to_ir(file, diags, {}, ir::LinkOptions{request.link, {}, request.nvrtc_options});
  log.step("typed");
  if (!program) return finish(std::move(result), diags);
  if (request.emit == EmitKind::DevicePtx || request.emit == EmitKind::DeviceLtoIr) {
    driver::emit_device_function(*program, request, result);
    log.step("emitted the device function");
    result.ok = true;
    return finish(std::move(result), diags);
  }

  Entries entries = collect_entries(*program, request, result);
  if (request.emit == EmitKind::Ir) {
    result.ok = true;
    return finish(std::move(result), diags);
  }
  if (diags.has_errors()) return finish(std::move(result), diags);

  codegen::GpuOptions gpu;
  gpu.arch = request.arch;
  if (request.emit == EmitKind::Llvm) {
    result.output = codegen::emit_llvm_ir(entries.requests, request.target, gpu);
    log.step("lowered to LLVM IR");
    result.ok = true;
    return finish(std::move(result), diags);
  }
  emit_device_code(request, entries, gpu, log, result);
  result.ok = true;
  return finish(std::move(result), diags);
}

}  // namespace

// The AST of `--emit ast` is walked and freed recursively: on the compile
// thread (support/LargeStack.h), as every other stage.
CompileResult compile(const CompileRequest &request) {
  return run_with_large_stack([&] { return compile_here(request); });
}

CompileResult check(const std::string &source, const std::string &source_name) {
  CompileResult result;
  DiagnosticEngine diags;
  auto file = std::make_shared<const SourceFile>(source_name, source);
  diags.retain(file);
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
  result.ok = program.has_value();
  return finish(std::move(result), diags);
}

}  // namespace ufjit
