// Vector math tables for the host JIT (codegen/VectorMath.h).
//
// requires: the host's target features as the JIT sees them; guarantees:
// every registered variant runs on that host (its instruction set is there)
// and resolves in the process (its library is loaded and exports it).
#include "codegen/VectorMath.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include "support/EnumNames.h"

namespace ufjit::codegen {

namespace {

/// One C math function with vector variants: its base name (float64; float32
/// adds "f"), its number of arguments and SLEEF's accuracy suffix for it
/// (the most accurate SLEEF has: "u10" is at most 1.0 ulp), or nullptr where
/// SLEEF's bound does not hold over the whole domain: asinh and acosh
/// overflow to inf above 1e10-1e18 (float32) where the result is about 70
/// (found by tests/api's semantic suite), and lgamma and tgamma promise only
/// an absolute error for negative arguments.
struct MathFunction {
  const char *base;
  int arity;
  const char *sleef_accuracy;
  bool has_llvm_intrinsic;  // llvm.<base>.f32 / .f64 exists
  /// SLEEF's variant gives inf for some arguments whose result is finite
  /// (recompute_overflowed_lanes).
  bool sleef_overflows_early = false;
};

constexpr MathFunction kFunctions[] = {
    {"sin", 1, "u10", true},    {"cos", 1, "u10", true},          {"tan", 1, "u10", true},
    {"asin", 1, "u10", false},  {"acos", 1, "u10", false},        {"atan", 1, "u10", false},
    {"atan2", 2, "u10", false}, {"sinh", 1, "u10", false, true},  {"cosh", 1, "u10", false, true},
    {"tanh", 1, "u10", false},  {"asinh", 1, nullptr, false},     {"acosh", 1, nullptr, false},
    {"atanh", 1, "u10", false}, {"exp", 1, "u10", true},          {"exp2", 1, "u10", true},
    {"expm1", 1, "u10", false}, {"log", 1, "u10", true},          {"log2", 1, "u10", true},
    {"log10", 1, "u10", true},  {"log1p", 1, "u10", false, true}, {"pow", 2, "u10", true, true},
    {"cbrt", 1, "u10", false},  {"erf", 1, "u10", false},         {"erfc", 1, "u15", false},
    {"hypot", 2, "u05", false},
};

/// One vector instruction set a variant is compiled for.
struct Isa {
  unsigned bits;         // vector register width
  char libmvec_letter;   // x86-64 vector ABI ISA letter: b (SSE), c (AVX), d (AVX2), e (AVX-512)
  const char *sleef_isa; // SLEEF's name suffix for that width on this ISA
};

bool has(const std::vector<std::string> &features, const char *name) {
  return std::find(features.begin(), features.end(), std::string("+") + name) != features.end();
}

/// At most one variant per register width, the best the host can run: the
/// JIT targets the host's own features, so a wider or newer variant would be
/// an illegal instruction on a CPU without them.
std::vector<Isa> host_isas(const std::vector<std::string> &features) {
  std::vector<Isa> isas;
  bool avx2 = has(features, "avx2") && has(features, "fma");
  if (has(features, "avx512f")) {
    isas.push_back({512, 'e', "avx512f"});
  }
  if (avx2) {
    isas.push_back({256, 'd', "avx2"});
  } else if (has(features, "avx")) {
    isas.push_back({256, 'c', "avx"});
  }
  if (avx2) {
    isas.push_back({128, 'b', "avx2128"});
  } else if (has(features, "sse4.1")) {
    isas.push_back({128, 'b', "sse4"});
  } else if (has(features, "sse2")) {
    isas.push_back({128, 'b', "sse2"});
  }
  return isas;
}

std::string vector_name(VectorMathLibrary library, const MathFunction &fn, bool f32, unsigned lanes,
                        const Isa &isa) {
  if (library == VectorMathLibrary::Sleef) {
    return std::string("Sleef_") + fn.base + (f32 ? "f" : "d") + std::to_string(lanes) + "_" + fn.sleef_accuracy +
           isa.sleef_isa;
  }
  return std::string("_ZGV") + isa.libmvec_letter + "N" + std::to_string(lanes) + std::string(fn.arity, 'v') + "_" +
         fn.base + (f32 ? "f" : "");
}

/// The registered variants of one library on one host, kept for the life of
/// the process: VecDesc holds StringRefs into `strings`.
struct Table {
  std::deque<std::string> strings;
  std::vector<llvm::VecDesc> descs;

  llvm::StringRef keep(std::string s) { return strings.emplace_back(std::move(s)); }
};

Table build_table(VectorMathLibrary library, const std::vector<std::string> &features) {
  Table table;
  for (const Isa &isa : host_isas(features)) {
    for (bool f32 : {true, false}) {
      unsigned lanes = isa.bits / (f32 ? 32 : 64);
      for (const MathFunction &fn : kFunctions) {
        if (library == VectorMathLibrary::Sleef && fn.sleef_accuracy == nullptr) {
          continue;
        }
        std::string name = vector_name(library, fn, f32, lanes, isa);
        if (llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name) == nullptr) {
          continue;
        }
        llvm::StringRef vector = table.keep(name);
        llvm::StringRef prefix = table.keep("_ZGV_LLVM_N" + std::to_string(lanes) + std::string(fn.arity, 'v'));
        llvm::ElementCount vf = llvm::ElementCount::getFixed(lanes);
        std::string scalar = std::string(fn.base) + (f32 ? "f" : "");
        table.descs.emplace_back(table.keep(scalar), vector, vf, false, prefix);
        if (fn.has_llvm_intrinsic) {
          std::string intrinsic = std::string("llvm.") + fn.base + (f32 ? ".f32" : ".f64");
          table.descs.emplace_back(table.keep(intrinsic), vector, vf, false, prefix);
        }
      }
    }
  }
  return table;
}

}  // namespace

const char *vector_math_name(VectorMathLibrary library) {
  static constexpr support::EnumName<VectorMathLibrary> kNames[] = {{VectorMathLibrary::Sleef, "sleef"},
                                                                    {VectorMathLibrary::Libmvec, "libmvec"},
                                                                    {VectorMathLibrary::None, "none"}};
  return support::enum_name(library, kNames, "none");
}

bool load_vector_math(VectorMathLibrary library) {
  static std::once_flag sleef_once, libmvec_once;
  static bool sleef_loaded = false, libmvec_loaded = false;
  std::string ignored;
  switch (library) {
    case VectorMathLibrary::Sleef:
      std::call_once(sleef_once, [&] {
        sleef_loaded = !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libsleef.so.3", &ignored);
      });
      return sleef_loaded;
    case VectorMathLibrary::Libmvec:
      std::call_once(libmvec_once, [&] {
        libmvec_loaded = !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1", &ignored);
      });
      return libmvec_loaded;
    case VectorMathLibrary::None:
      break;
  }
  return false;
}

std::size_t add_vector_math(llvm::TargetLibraryInfoImpl &tli, VectorMathLibrary library,
                            const std::vector<std::string> &host_features) {
  if (library == VectorMathLibrary::None) {
    return 0;
  }
  static std::mutex mutex;
  static std::map<std::pair<VectorMathLibrary, std::vector<std::string>>, std::unique_ptr<Table>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Table> &table = tables[{library, host_features}];
  if (!table) {
    table = std::make_unique<Table>(build_table(library, host_features));
  }
  tli.addVectorizableFunctions(table->descs);
  return table->descs.size();
}

std::size_t fuse_vector_sincos(llvm::Module &module) {
  // Pairs first (erasing calls while walking the blocks would invalidate them).
  std::vector<std::pair<llvm::CallInst *, llvm::CallInst *>> pairs;
  for (llvm::Function &fn : module) {
    for (llvm::BasicBlock &block : fn) {
      std::map<std::pair<std::string, llvm::Value *>, llvm::CallInst *> sines;
      for (llvm::Instruction &inst : block) {
        auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
        llvm::Function *callee = call != nullptr ? call->getCalledFunction() : nullptr;
        if (callee == nullptr || call->arg_size() != 1) {
          continue;
        }
        llvm::StringRef name = callee->getName();
        if (name.starts_with("Sleef_sin") && !name.starts_with("Sleef_sinh") && !name.starts_with("Sleef_sincos")) {
          sines.emplace(std::make_pair(name.drop_front(9).str(), call->getArgOperand(0)), call);
        }
      }
      for (llvm::Instruction &inst : block) {
        auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
        llvm::Function *callee = call != nullptr ? call->getCalledFunction() : nullptr;
        if (callee == nullptr || call->arg_size() != 1 || !callee->getName().starts_with("Sleef_cos") ||
            callee->getName().starts_with("Sleef_cosh")) {
          continue;
        }
        auto sine = sines.find({callee->getName().drop_front(9).str(), call->getArgOperand(0)});
        if (sine != sines.end()) {
          pairs.emplace_back(sine->second, call);
          sines.erase(sine);
        }
      }
    }
  }
  std::size_t fused = 0;
  for (auto [sine, cosine] : pairs) {
    // "Sleef_sinf16_u10avx512f" -> "Sleef_sincosf16_u10avx512f"
    std::string name = "Sleef_sincos" + sine->getCalledFunction()->getName().drop_front(9).str();
    if (llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name) == nullptr) {
      continue;
    }
    llvm::Type *vector = sine->getType();
    llvm::LLVMContext &ctx = module.getContext();
    // SLEEF returns {sin, cos} by value: in memory (sret) under the x86-64
    // SysV ABI for every width, as clang declares it.
    llvm::StructType *pair = llvm::StructType::get(ctx, {vector, vector});
    llvm::Align align(module.getDataLayout().getTypeAllocSize(vector).getFixedValue());
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {llvm::PointerType::get(ctx, 0), vector}, false);
    llvm::FunctionCallee callee = module.getOrInsertFunction(name, type);
    auto *fn = llvm::cast<llvm::Function>(callee.getCallee());
    if (fn->arg_size() == 2 && !fn->hasParamAttribute(0, llvm::Attribute::StructRet)) {
      fn->addParamAttr(0, llvm::Attribute::getWithStructRetType(ctx, pair));
      fn->addParamAttr(0, llvm::Attribute::getWithAlignment(ctx, align));
      fn->addParamAttr(0, llvm::Attribute::NoAlias);
      fn->addParamAttr(0, llvm::Attribute::WriteOnly);
      fn->setDoesNotThrow();
      fn->setWillReturn();
      fn->setOnlyAccessesArgMemory();
    }
    llvm::Function &host = *sine->getFunction();
    llvm::IRBuilder<> entry(&host.getEntryBlock(), host.getEntryBlock().begin());
    llvm::AllocaInst *slot = entry.CreateAlloca(pair, nullptr, "sincos.slot");
    slot->setAlignment(align);
    llvm::Instruction *first = sine->comesBefore(cosine) ? sine : cosine;
    llvm::IRBuilder<> b(first);
    llvm::CallInst *call = b.CreateCall(callee, {slot, sine->getArgOperand(0)});
    call->addParamAttr(0, llvm::Attribute::getWithStructRetType(ctx, pair));
    call->addParamAttr(0, llvm::Attribute::getWithAlignment(ctx, align));
    llvm::Value *sin = b.CreateAlignedLoad(vector, b.CreateStructGEP(pair, slot, 0), align, "sin");
    llvm::Value *cos = b.CreateAlignedLoad(vector, b.CreateStructGEP(pair, slot, 1), align, "cos");
    sine->replaceAllUsesWith(sin);
    cosine->replaceAllUsesWith(cos);
    sine->eraseFromParent();
    cosine->eraseFromParent();
    ++fused;
  }
  return fused;
}

namespace {

/// The scalar C function ("sinh", "powf") whose SLEEF vector variant
/// `name` is ("Sleef_sinhd8_u10avx512f", "Sleef_powf16_u10avx512f"), for
/// the functions whose variants overflow early; empty for any other.
std::string overflowing_variant_scalar(llvm::StringRef name) {
  for (const MathFunction &fn : kFunctions) {
    if (!fn.sleef_overflows_early) continue;
    const std::string stem = std::string("Sleef_") + fn.base;
    for (const char kind : {'f', 'd'}) {
      if (name.starts_with(stem + kind) && name.size() > stem.size() + 1 &&
          std::isdigit(static_cast<unsigned char>(name[stem.size() + 1]))) {
        return std::string(fn.base) + (kind == 'f' ? "f" : "");
      }
    }
  }
  return {};
}

}  // namespace

std::size_t recompute_overflowed_lanes(llvm::Module &module) {
  std::vector<std::pair<llvm::CallInst *, std::string>> calls;
  for (llvm::Function &fn : module) {
    for (llvm::BasicBlock &block : fn) {
      for (llvm::Instruction &inst : block) {
        auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
        llvm::Function *callee = call != nullptr ? call->getCalledFunction() : nullptr;
        if (callee == nullptr || !llvm::isa<llvm::FixedVectorType>(call->getType())) continue;
        std::string scalar = overflowing_variant_scalar(callee->getName());
        if (!scalar.empty()) calls.emplace_back(call, std::move(scalar));
      }
    }
  }
  for (auto &[call, scalar] : calls) {
    auto *vector = llvm::cast<llvm::FixedVectorType>(call->getType());
    llvm::Type *element = vector->getElementType();
    std::vector<llvm::Use *> uses;
    for (llvm::Use &use : call->uses()) uses.push_back(&use);
    // if (any lane is +-inf) { recompute every lane with the scalar function }
    llvm::IRBuilder<> b(call->getNextNode());
    llvm::Value *magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, call);
    llvm::Value *infinite = b.CreateFCmpOEQ(magnitude, llvm::ConstantFP::getInfinity(vector));
    llvm::Value *any = b.CreateOrReduce(infinite);
    llvm::Instruction *then = llvm::SplitBlockAndInsertIfThen(any, &*b.GetInsertPoint(), false);
    llvm::BasicBlock *checked = call->getParent();
    llvm::BasicBlock *recomputed = then->getParent();
    llvm::BasicBlock *joined = recomputed->getSingleSuccessor();
    std::vector<llvm::Type *> params(call->arg_size(), element);
    llvm::FunctionCallee fn =
        module.getOrInsertFunction(scalar, llvm::FunctionType::get(element, params, false));
    llvm::IRBuilder<> r(then);
    llvm::Value *lanes = call;
    for (unsigned lane = 0; lane < vector->getNumElements(); ++lane) {
      std::vector<llvm::Value *> args;
      for (llvm::Value *arg : call->args()) args.push_back(r.CreateExtractElement(arg, lane));
      lanes = r.CreateInsertElement(lanes, r.CreateCall(fn, args), lane);
    }
    llvm::IRBuilder<> j(&joined->front());
    llvm::PHINode *result = j.CreatePHI(vector, 2, "sleef.checked");
    result->addIncoming(call, checked);
    result->addIncoming(lanes, recomputed);
    for (llvm::Use *use : uses) use->set(result);
  }
  return calls.size();
}

}  // namespace ufjit::codegen
