// fastmath=True on the GPU, the parts that cannot be chosen while lowering:
// float32 division (the lowering of `/` is shared with the CPU target and
// strict code) and tanh (its instruction needs sm_75, and only here is the
// arch known). The functions nvcc maps to intrinsics under --use_fast_math
// (sin, cos, exp, log, pow, sqrt, ...) are lowered to the approximate
// instructions directly (codegen/lower/LowerMath.cpp), so that the entry builder
// sees them as the cheap bodies they are.
//
// Only instructions that carry fastmath's flags (afn and arcp, set by the
// lowering of a fastmath ufunc alone) are rewritten: strict code in the same
// module and libdevice's own arithmetic stay as they are. The function
// attribute "unsafe-fp-math" is no way to reach them: the inliner ANDs it
// with libdevice's "false", so a fastmath entry that inlines any libdevice
// function loses it.
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cstdlib>
#include <vector>

#include "codegen/LLVMHeaders.h"
#include "codegen/nvptx/NVPTXTarget.h"

namespace ufjit::codegen {
namespace {

bool has_fastmath_flags(const llvm::Instruction &inst) {
  return llvm::isa<llvm::FPMathOperator>(inst) && inst.hasApproxFunc() && inst.hasAllowReciprocal();
}

/// "sm_90a" -> 90; 0 when it does not parse.
int sm_number(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0) {
    return 0;
  }
  return std::atoi(arch.c_str() + 3);
}

/// a / b in float32 as nvcc -prec-div=false emits it: div.approx.ftz.f32
/// (2 ulp for |b| in [2^-126, 2^126]), and 1 / b as rcp.approx.ftz.f32.
void rewrite_division(llvm::BinaryOperator &div) {
  llvm::IRBuilder<> b(&div);
  llvm::Value *result = nullptr;
  auto *numerator = llvm::dyn_cast<llvm::ConstantFP>(div.getOperand(0));
  if (numerator != nullptr && numerator->isExactlyValue(1.0)) {
    result = b.CreateIntrinsic(llvm::Intrinsic::nvvm_rcp_approx_ftz_f, {}, {div.getOperand(1)});
  } else {
    result =
        b.CreateIntrinsic(llvm::Intrinsic::nvvm_div_approx_ftz_f, {}, {div.getOperand(0), div.getOperand(1)});
  }
  result->takeName(&div);
  div.replaceAllUsesWith(result);
  div.eraseFromParent();
}

/// tanh(x) as the sm_75 instruction tanh.approx.f32 (LLVM 19 has no
/// intrinsic for it).
void rewrite_tanh(llvm::CallInst &call) {
  llvm::IRBuilder<> b(&call);
  llvm::Type *f32 = b.getFloatTy();
  llvm::InlineAsm *tanh = llvm::InlineAsm::get(llvm::FunctionType::get(f32, {f32}, false),
                                               "tanh.approx.f32 $0, $1;", "=f,f", /*hasSideEffects=*/false);
  llvm::CallInst *result = b.CreateCall(tanh, {call.getArgOperand(0)});
  result->setDoesNotAccessMemory();
  result->takeName(&call);
  call.replaceAllUsesWith(result);
  call.eraseFromParent();
}

}  // namespace

void lower_fast_math(llvm::Module &module, const std::string &arch) {
  const bool has_tanh_approx = sm_number(arch) >= 75;
  std::vector<llvm::BinaryOperator *> divisions;
  std::vector<llvm::CallInst *> tanhs;
  for (llvm::Function &f : module) {
    for (llvm::BasicBlock &block : f) {
      for (llvm::Instruction &inst : block) {
        if (!has_fastmath_flags(inst) || !inst.getType()->isFloatTy()) {
          continue;
        }
        if (inst.getOpcode() == llvm::Instruction::FDiv) {
          divisions.push_back(llvm::cast<llvm::BinaryOperator>(&inst));
        } else if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst); call != nullptr && has_tanh_approx) {
          const llvm::Function *callee = call->getCalledFunction();
          if (callee != nullptr && callee->getName() == "__nv_tanhf") {
            tanhs.push_back(call);
          }
        }
      }
    }
  }
  for (llvm::BinaryOperator *div : divisions) {
    rewrite_division(*div);
  }
  for (llvm::CallInst *call : tanhs) {
    rewrite_tanh(*call);
  }
}

}  // namespace ufjit::codegen
