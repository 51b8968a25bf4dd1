// The scalar function wrapped in an external NVPTX function of the C or
// Numba device ABI (codegen/DeviceFunction.h).
//
// requires: a verified ir::Module whose entry takes and returns scalars;
// guarantees: one `.visible .func <symbol>` in the PTX, every other function
// internal (inlined into it by O3 where the inliner chooses).
#include "codegen/DeviceFunction.h"

#include "codegen/CAbi.h"
#include "codegen/kernel/KernelEntry.h"
#include "codegen/kernel/KernelModule.h"
#include "codegen/lower/Lowering.h"
#include "codegen/nvptx/NVPTXTarget.h"
#include "support/LargeStack.h"
#include "support/AsciiIdentifier.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {
namespace {

void check_carried(const ir::Function &fn, const EntrySignature &sig) {
  for (std::size_t k = 0; k < sig.args.size(); ++k) {
    if (c_type(sig.args[k]).empty()) {
      throw Error("parameter '" + fn.params[k].name + "' of '" + fn.name + "' is " +
                  std::string(dtype_name(sig.args[k])) +
                  ", which a device function's C ABI cannot carry (float16 and complex are not supported)");
    }
  }
  if (c_type(sig.ret).empty()) {
    throw Error("'" + fn.name + "' returns " + std::string(dtype_name(sig.ret)) +
                ", which a device function's C ABI cannot carry (float16 and complex are not supported)");
  }
}

/// Throws unless `symbol` is a C identifier that C leaves to programs: the
/// CUDA C++ that links the PTX calls it by that name, PTX takes no other
/// characters (NVPTX aborts on some), and names beginning with `__` are the
/// implementation's (libdevice's `__nv_sinf`, `__internal_...`).
void check_device_symbol(const std::string &symbol) {
  if (!support::is_c_identifier(symbol)) {
    throw Error("device function name '" + symbol +
                "' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*); choose one with --symbol");
  }
  if (symbol.rfind("__", 0) == 0) {
    throw Error("device function name '" + symbol +
                "' begins with '__', which C reserves (libdevice's functions are named so); choose another");
  }
}

/// Adds `symbol` to `module`: the C or Numba ABI around `scalar`.
void build_wrapper(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                   const std::string &symbol, DeviceAbi abi) {
  llvm::LLVMContext &ctx = module.getContext();
  std::vector<llvm::Type *> params;
  if (abi == DeviceAbi::Numba) {
    params.push_back(llvm::PointerType::get(ctx, 0));  // generic address space: any memory
  }
  for (DType t : sig.args) {
    params.push_back(value_type(ctx, t));
  }
  llvm::Type *ret = abi == DeviceAbi::C ? value_type(ctx, sig.ret) : llvm::Type::getInt32Ty(ctx);
  auto *type = llvm::FunctionType::get(ret, params, false);
  if (module.getFunction(symbol) != nullptr) {
    throw Error("device function name '" + symbol + "' is already used inside the module; choose another");
  }
  llvm::Function *fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, symbol, module);
  const unsigned first = abi == DeviceAbi::Numba ? 1 : 0;
  for (std::size_t k = 0; k < sig.args.size(); ++k) {
    if (c_abi_llvm_extension(sig.args[k]) != llvm::Attribute::None) {
      fn->addParamAttr(static_cast<unsigned>(first + k), c_abi_llvm_extension(sig.args[k]));
    }
  }
  if (abi == DeviceAbi::C && c_abi_llvm_extension(sig.ret) != llvm::Attribute::None) {
    fn->addRetAttr(c_abi_llvm_extension(sig.ret));
  }
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value *> args;
  for (std::size_t k = 0; k < sig.args.size(); ++k) {
    args.push_back(fn->getArg(static_cast<unsigned>(first + k)));
  }
  // A raise in a device function ends it (returning 0); nothing reports it.
  llvm::Value *value = b.CreateCall(&scalar, kernel_detail::with_error_flag(b, scalar, args, nullptr));
  if (abi == DeviceAbi::C) {
    b.CreateRet(value);
    return;
  }
  llvm::Type *stored = storage_type(ctx, sig.ret);
  if (stored != value->getType()) {
    value = b.CreateZExt(value, stored);  // bool: i1 -> i8
  }
  b.CreateStore(value, fn->getArg(0));
  b.CreateRet(b.getInt32(0));
}

std::string emit_here(const ir::Module &module, const std::string &symbol, DeviceAbi abi, const GpuOptions &gpu) {
  const ir::Function &entry = module.entry_function();
  const EntrySignature sig = entry_signature(entry);
  check_carried(entry, sig);
  initialize_llvm_targets();
  // Member order of this scope fixes destruction: the module before its context.
  llvm::LLVMContext context;
  discard_local_value_names(context);
  auto out = std::make_unique<llvm::Module>("ufjit", context);
  prepare_nvptx_module(*out);
  LoweringTarget target;
  target.kind = TargetKind::Cuda;
  target.fastmath = module.options.fastmath;
  llvm::Function *scalar = lower_module(module, *out, symbol + ".", target);
  build_wrapper(*out, *scalar, sig, symbol, abi);
  link_libdevice(*out);
  NvptxCompileOptions options;
  options.gpu = gpu;
  options.fastmath = target.fastmath;
  options.ftz = target.fastmath;
  options.entries.insert(symbol);
  return compile_module_to_ptx(*out, options);
}

}  // namespace

DeviceAbi parse_device_abi(const std::string &text) {
  if (text == "c") {
    return DeviceAbi::C;
  }
  if (text == "numba") {
    return DeviceAbi::Numba;
  }
  throw Error("unknown device ABI '" + text + "'; use 'c' or 'numba'");
}

std::string emit_device_function_ptx(const ir::Module &module, const std::string &symbol, DeviceAbi abi,
                                     const GpuOptions &gpu) {
  check_device_symbol(symbol);
  return run_with_large_stack([&] { return emit_here(module, symbol, abi, gpu); });
}

std::string device_function_header(const ir::Module &module, const std::string &symbol, DeviceAbi abi,
                                   const std::string &comment) {
  check_device_symbol(symbol);
  const ir::Function &entry = module.entry_function();
  const EntrySignature sig = entry_signature(entry);
  check_carried(entry, sig);
  std::string params;
  if (abi == DeviceAbi::Numba) {
    params = c_type(sig.ret) + " *ret";
  }
  for (std::size_t k = 0; k < sig.args.size(); ++k) {
    params += params.empty() ? "" : ", ";
    params += c_type(sig.args[k]) + " " + entry.params[k].name;
  }
  const std::string ret = abi == DeviceAbi::C ? c_type(sig.ret) : "int";
  std::string text = "// " + comment + "\n";
  text += abi == DeviceAbi::C ? "// ABI: C (the result is returned).\n"
                              : "// ABI: Numba's device ABI (the result through `ret`; returns 0).\n";
  text += "// Link the PTX beside this header with nvJitLink (or cuLink) into the calling kernel's module.\n";
  text += "#pragma once\n";
  // NVRTC has no <stdint.h> of its own: the same typedefs (a repeated
  // identical typedef is valid C++).
  text += "#ifdef __CUDACC_RTC__\n"
          "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef long long int64_t;\n"
          "typedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n"
          "typedef unsigned long long uint64_t;\n"
          "#else\n#include <stdint.h>\n#endif\n";
  text += "extern \"C\" __device__ " + ret + " " + symbol + "(" + params + ");\n";
  return text;
}

}  // namespace ufjit::codegen
