// RuntimeCore: target selection, backends created on first use, generated
// cast ufuncs, and the derived fields of compiled signatures.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "codegen/Codegen.h"
#include "support/InternalAssert.h"
#include "ir/IRPrinter.h"
#include "runtime/RuntimeImpl.h"
#include "support/Settings.h"

#if __has_include("runtime/cuda/CudaBackend.h")
#include "runtime/cuda/CudaBackend.h"
#define UFJIT_HAVE_CUDA_BACKEND 1
#endif

namespace ufjit::runtime {

namespace {

std::optional<TargetKind> parse_target(const std::string &text, const char *origin) {
  if (text.empty()) {
    return std::nullopt;
  }
  if (std::optional<TargetKind> target = parse_target_name(text)) {
    return target;
  }
  throw Error(std::string(origin) + " must be 'cpu' or 'cuda', not '" + text + "'");
}

/// UFJIT_DEVICES: "all", or ordinals separated by commas ("0,1").
std::vector<int> devices_from_environment() {
  const std::optional<std::string> text = support::setting_text("UFJIT_DEVICES");
  if (!text || text->empty()) {
    return {};
  }
  return parse_device_set(*text, "UFJIT_DEVICES");
}

}  // namespace

}  // namespace ufjit::runtime

namespace ufjit {

std::vector<int> parse_device_set(const std::string &text, const std::string &origin) {
  auto refuse = [&] {
    return InputError(origin + "='" + text + "' is not valid: " + origin + " takes 'all' (any case) or " +
                      "CUDA device ordinals separated by commas ('0,1')");
  };
  std::string word = text;
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  if (word == "all") {
    return {kAllDevices};
  }
  std::vector<int> devices;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    if (item.empty() || item.size() > 6 || item.find_first_not_of("0123456789") != std::string::npos) {
      throw refuse();
    }
    devices.push_back(std::stoi(item));
    begin = end + 1;
  }
  return devices;
}

}  // namespace ufjit

namespace ufjit::runtime {

RuntimeCore::RuntimeCore(const RuntimeOptions &options) : options_(options) {
  support::check_settings();
  check_runtime_options(options);
  devices_ = devices_from_environment();
  if (devices_.empty()) {
    devices_ = options.devices;
  }
  std::optional<TargetKind> forced = options.target;
  if (!forced) {
    forced = parse_target(support::read_choice("UFJIT_TARGET", {"cpu", "cuda"}).value_or(""), "UFJIT_TARGET");
  }
  if (forced) {
    target_forced_ = true;
    default_target_ = *forced;
    backend(*forced);  // a forced CUDA target without a GPU fails here, early
    return;
  }
  default_target_ = cuda_usable() ? TargetKind::Cuda : TargetKind::Cpu;
}

RuntimeCore::~RuntimeCore() = default;

bool RuntimeCore::cuda_usable() {
  try {
    backend(TargetKind::Cuda);
    return true;
  } catch (const NoDeviceError &) {
    return false;
  }
}

Backend &RuntimeCore::backend(TargetKind target) {
  // Every call asks: once made, a backend is read without the lock.
  if (Backend *made = (target == TargetKind::Cpu ? cpu_ready_ : cuda_ready_).load(std::memory_order_acquire)) {
    return *made;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  BackendConfig config;
  config.device = options_.device;
  config.cpu_threads = options_.cpu_threads;
  config.warn_low_occupancy = options_.warn_low_occupancy;
  config.cache = &cache_;
  config.interrupt = options_.interrupt;
  if (target == TargetKind::Cpu) {
    if (!cpu_) {
      cpu_ = make_cpu_backend(config);
      cpu_ready_.store(cpu_.get(), std::memory_order_release);
    }
    return *cpu_;
  }
  if (!cuda_.empty()) {
    return *cuda_.front();
  }
  if (cuda_tried_) {
    throw NoDeviceError(cuda_error_);
  }
  cuda_tried_ = true;
#ifdef UFJIT_HAVE_CUDA_BACKEND
  try {
    cuda_ = make_cuda_device_set(config, devices_);
  } catch (const NoDeviceError &e) {
    cuda_error_ = e.what();
    throw;
  }
  cuda_ready_.store(cuda_.front().get(), std::memory_order_release);
  return *cuda_.front();
#else
  cuda_error_ = "this build of ufjit has no CUDA backend";
  throw NoDeviceError(cuda_error_);
#endif
}

Backend *RuntimeCore::cuda_backend_of(int ordinal) {
  backend(TargetKind::Cuda);
  // cuda_ never changes once made (backend() published it): read without the lock.
  for (const std::unique_ptr<Backend> &b : cuda_) {
    if (b->device_ordinal() == ordinal) {
      return b.get();
    }
  }
  return nullptr;
}

std::vector<Backend *> RuntimeCore::cuda_backends() {
  backend(TargetKind::Cuda);
  // cuda_ never changes once made (backend() published it): read without the lock.
  std::vector<Backend *> all;
  for (const std::unique_ptr<Backend> &b : cuda_) {
    all.push_back(b.get());
  }
  return all;
}

TargetKind RuntimeCore::target_for(const std::string &decorator_target) {
  if (target_forced_) {
    return default_target_;
  }
  const std::optional<TargetKind> wanted = parse_target(decorator_target, "the decorator's target");
  if (!wanted) {
    return default_target_;
  }
  if (*wanted == TargetKind::Cuda && !cuda_usable()) {
    return TargetKind::Cpu;
  }
  return *wanted;
}

const CompiledSignature &RuntimeCore::cast_signature(DType from, DType to) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto &slot = casts_[{from, to}];
  if (!slot) {
    const std::string name = "cast_" + std::string(dtype_name(from)) + "_to_" + std::string(dtype_name(to));
    auto module = std::make_shared<ir::Module>();
    module->name = name;
    ir::Function f;
    f.name = name;
    f.params = {ir::Variable{"x", ir::Type::scalar(from)}};
    f.ret = ir::Type::scalar(to);
    f.body = ir::Block::make({ir::Return::make(ir::Cast::make(to, ir::Var::make(ir::Type::scalar(from), "x")))});
    module->functions.push_back(std::move(f));
    module->entry = 0;
    auto sig = std::make_unique<CompiledSignature>();
    sig->module = module;
    sig->ufunc_name = name;
    sig->signature = std::string(dtype_name(to)) + "(" + std::string(dtype_name(from)) + ")";
    finish_signature(*sig);
    slot = std::move(sig);
  }
  return *slot;
}

void finish_signature(CompiledSignature &sig) {
  const ir::Function &entry = sig.module->entry_function();
  sig.params.clear();
  std::vector<std::string> names;
  sig.arg_ndims.clear();
  for (const ir::Variable &p : entry.params) {
    sig.params.push_back(p.type.dtype());
    sig.arg_ndims.push_back(p.type.is_array() ? p.type.ndim() : 0);
    names.push_back(codegen::entry_type_name(p.type.dtype(), sig.arg_ndims.back()));
  }
  if (sig.generalized()) {
    // Inputs dispatch; outputs are the last layout->outputs.size() arguments.
    const std::size_t n_out = sig.layout->outputs.size();
    internal_assert(n_out <= sig.params.size()) << "gufunc " << sig.ufunc_name << " has fewer arguments than outputs";
    sig.out_dtypes.assign(sig.params.end() - static_cast<std::ptrdiff_t>(n_out), sig.params.end());
    sig.params.resize(sig.params.size() - n_out);
  } else if (!sig.module->explicit_kernel) {
    sig.arg_ndims.clear();  // a kernel's arguments keep theirs
  }
  sig.ret = entry.ret.is_void() ? DType::Bool : entry.ret.dtype();
  if (sig.module->explicit_kernel) {
    sig.cpu_block_shape = codegen::cpu_block_shape(*sig.module);
  }
  sig.base_name = codegen::entry_base_name(sig.ufunc_name, names);
  sig.base_name_hash = XXH3_64bits(sig.base_name.data(), sig.base_name.size());
  const std::string text = ir::print(*sig.module);
  const XXH128_hash_t hash = XXH3_128bits(text.data(), text.size());
  sig.ir_hash = hash.low64;
  sig.ir_hash_high = hash.high64;
}

codegen::EntrySignature CompiledSignature::entry_signature() const {
  codegen::EntrySignature entry;
  entry.args = params;
  entry.can_raise = module != nullptr && module->can_raise();
  entry.done_flag = module != nullptr;  // CUDA C++ entries (external) do not signal their end
  if (module != nullptr && module->explicit_kernel) {
    entry.arg_ndims = arg_ndims;
    entry.done_flag = false;
    return entry;
  }
  if (!generalized()) {
    entry.ret = ret;
    return entry;
  }
  entry.args.insert(entry.args.end(), out_dtypes.begin(), out_dtypes.end());
  entry.arg_ndims = arg_ndims;
  entry.outputs = out_dtypes.size();
  return entry;
}

}  // namespace ufjit::runtime
