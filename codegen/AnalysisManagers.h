// The analysis managers of LLVM's new pass manager, as both targets' optimizers
// set them up (codegen/HostJit.cpp: optimize_for_host; codegen/nvptx/
// NVPTXTarget.cpp: optimize).
#pragma once

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>

namespace ufjit::codegen {

/// The four analysis managers of one optimizer run. Declare it before the
/// PassBuilder and the pass manager that use it, so that it outlives them.
struct AnalysisManagers {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;

  /// Registers the target's library info (which C functions the optimizer
  /// may call or vectorize; it must outlive the run) and the builder's
  /// analyses, and links the managers to each other.
  void register_with(llvm::PassBuilder &builder, llvm::TargetLibraryInfoImpl &library_info) {
    fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library_info); });
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
  }
};

}  // namespace ufjit::codegen
