// sin(x) and cos(x) of one argument become one libdevice sincos call.
//
// Each of libdevice's __nv_sinf and __nv_cosf carries its own argument
// reduction (with the Payne-Hanek path for large arguments); inlined side by
// side they double the code LLVM and ptxas work through and the instructions
// the GPU executes. __nv_sincosf reduces once. Numba's tutorial kernels do
// exactly this (`math.cos(x) ** 2 + math.sin(x) ** 2`, polar_to_cartesian).
#include "codegen/LLVMHeaders.h"
#include "codegen/nvptx/NVPTXTarget.h"

#include <llvm/IR/Dominators.h>
#include <llvm/Transforms/Utils/PromoteMemToReg.h>

#include <map>
#include <utility>
#include <vector>

namespace ufjit::codegen {
namespace {

struct SinCosNames {
  const char *sin;
  const char *cos;
  const char *sincos;
};

constexpr SinCosNames kSinCos[] = {
    {"__nv_sinf", "__nv_cosf", "__nv_sincosf"},
    {"__nv_sin", "__nv_cos", "__nv_sincos"},
};

/// Calls of `f` (direct calls only).
std::vector<llvm::CallInst *> calls_of(llvm::Function *f) {
  std::vector<llvm::CallInst *> calls;
  if (f == nullptr) {
    return calls;
  }
  for (llvm::User *user : f->users()) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(user);
    if (call != nullptr && call->getCalledFunction() == f) {
      calls.push_back(call);
    }
  }
  return calls;
}

/// mem2reg on every function: the lowering keeps variables in allocas, so
/// sin(x) and cos(x) read x through two loads until they are promoted.
void promote_variables(llvm::Module &module) {
  for (llvm::Function &f : module) {
    if (f.isDeclaration()) {
      continue;
    }
    std::vector<llvm::AllocaInst *> allocas;
    for (llvm::Instruction &i : f.getEntryBlock()) {
      if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i); a != nullptr && llvm::isAllocaPromotable(a)) {
        allocas.push_back(a);
      }
    }
    if (!allocas.empty()) {
      llvm::DominatorTree dominators(f);
      llvm::PromoteMemToReg(allocas, dominators);
    }
  }
}

void merge_pairs(llvm::Module &module, const SinCosNames &names) {
  std::vector<llvm::CallInst *> sins = calls_of(module.getFunction(names.sin));
  std::vector<llvm::CallInst *> coss = calls_of(module.getFunction(names.cos));
  if (sins.empty() || coss.empty()) {
    return;
  }
  // The calls in one basic block on the same argument, however many: the
  // first of them then dominates the others, and the argument dominates
  // all. Every one is replaced by one sincos (the functions are pure), so
  // a body that asks for sin(y) and cos(y) twice (cexp's infinities: the
  // quick tier runs no CSE) keeps one argument reduction, not three.
  struct Group {
    std::vector<llvm::CallInst *> sins, coss;
  };
  std::map<std::pair<llvm::BasicBlock *, llvm::Value *>, Group> groups;
  std::vector<std::pair<llvm::BasicBlock *, llvm::Value *>> order;  // first seen first: reproducible
  for (llvm::CallInst *s : sins) {
    const auto key = std::make_pair(s->getParent(), s->getArgOperand(0));
    if (groups.find(key) == groups.end()) order.push_back(key);
    groups[key].sins.push_back(s);
  }
  for (llvm::CallInst *c : coss) {
    auto it = groups.find({c->getParent(), c->getArgOperand(0)});
    if (it != groups.end()) it->second.coss.push_back(c);
  }
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  for (const auto &key : order) {
    const Group &group = groups.at(key);
    if (group.coss.empty()) {
      continue;
    }
    llvm::Type *type = group.sins.front()->getType();
    llvm::FunctionCallee sincos = module.getOrInsertFunction(
        names.sincos, llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {type, ptr, ptr}, false));
    llvm::CallInst *first = group.sins.front();
    for (llvm::CallInst *call : group.sins) {
      if (call->comesBefore(first)) first = call;
    }
    for (llvm::CallInst *call : group.coss) {
      if (call->comesBefore(first)) first = call;
    }
    llvm::Function &f = *first->getFunction();
    llvm::IRBuilder<> entry(&f.getEntryBlock(), f.getEntryBlock().getFirstInsertionPt());
    llvm::AllocaInst *sin_slot = entry.CreateAlloca(type, nullptr, "sin.slot");
    llvm::AllocaInst *cos_slot = entry.CreateAlloca(type, nullptr, "cos.slot");
    llvm::IRBuilder<> b(first);
    b.CreateCall(sincos, {key.second, sin_slot, cos_slot});
    llvm::Value *sin_value = b.CreateLoad(type, sin_slot, "sin");
    llvm::Value *cos_value = b.CreateLoad(type, cos_slot, "cos");
    for (llvm::CallInst *call : group.sins) {
      call->replaceAllUsesWith(sin_value);
      call->eraseFromParent();
    }
    for (llvm::CallInst *call : group.coss) {
      call->replaceAllUsesWith(cos_value);
      call->eraseFromParent();
    }
  }
}

}  // namespace

void declare_sin_cos_partners(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  for (const SinCosNames &names : kSinCos) {
    llvm::Function *sin = module.getFunction(names.sin);
    if (sin == nullptr || module.getFunction(names.cos) == nullptr || module.getFunction(names.sincos) != nullptr) {
      continue;
    }
    llvm::Type *type = sin->getReturnType();
    module.getOrInsertFunction(names.sincos,
                               llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {type, ptr, ptr}, false));
  }
}

void merge_sin_cos_calls(llvm::Module &module) {
  if (module.getFunction("__nv_sinf") == nullptr && module.getFunction("__nv_sin") == nullptr) {
    return;
  }
  promote_variables(module);
  for (const SinCosNames &names : kSinCos) {
    merge_pairs(module, names);
  }
}

}  // namespace ufjit::codegen
