// Private to the scalar lowering: the lowering of one ir::Function body
// (expressions in LowerExpr.cpp, statements in LowerStmt.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/LowerInternal.h"

namespace ufjit::codegen::lower {

/// Lowers the body of one IR function into its (already declared) LLVM
/// function. Parameters and locals live in entry-block allocas (mem2reg
/// promotes them); control flow is structured.
class FunctionLowerer {
 public:
  FunctionLowerer(ModuleState &ms, const ir::Function &fn, llvm::Function *out);
  /// Emits the whole body; the function is complete afterwards.
  void run();

 private:
  struct Loop {
    llvm::BasicBlock *continue_target;
    llvm::BasicBlock *break_target;
  };

  // Statements (LowerStmt.cpp).
  void emit(const ir::Stmt &s);
  void emit_if(const ir::If &s);
  void emit_while(const ir::While &s);
  void emit_for_range(const ir::ForRange &s);
  void emit_return(const ir::Return &s);
  void emit_array_store(const ir::ArrayStore &s);
  // Raises (LowerRaise.cpp).
  void emit_raise(const ir::Raise &s);
  /// After a call of a function that can raise: ends this function too when
  /// the flag is set, so that a raise in a helper ends the element.
  void emit_raise_check();
  /// Returns the zero value of the function's type (the value of an element
  /// that raised is unspecified: LANGUAGE.md section 5).
  void emit_raised_return();
  /// After a terminator (return, break, continue): continue emitting into a
  /// fresh block with no predecessors.
  void start_dead_block();
  /// Branches to `target` unless the current block is already terminated.
  void branch_to(llvm::BasicBlock *target);

  // Expressions (LowerExpr.cpp).
  llvm::Value *emit(const ir::Expr &e);
  llvm::Value *emit_var(const ir::Var &v);
  llvm::Value *emit_select(const ir::Select &s);
  llvm::Value *emit_short_circuit(const ir::ShortCircuit &s);
  llvm::Value *emit_call(const ir::Call &c);
  llvm::Value *emit_intrinsic(const ir::Intrinsic &i);
  llvm::Value *emit_tuple(const ir::MakeTuple &t);
  /// `t[i]` (`t[i][j]`...) of a tuple held in a local: a load of that element
  /// alone; nullptr when the tuple is not a local.
  llvm::Value *load_element_of_local_tuple(const ir::TupleGet &g);
  /// The address of array[indices...]: data + sum(index_k * byte_stride_k).
  llvm::Value *element_address(const ir::Expr &array, const std::vector<ir::Expr> &indices);
  /// A view {data, shape, strides} of an array (ir::ArraySlice), no copy.
  llvm::Value *emit_array_slice(const ir::ArraySlice &s);
  /// `cond ? a : b` evaluating only the chosen expression (a select when
  /// both are constants or variables).
  llvm::Value *choose(llvm::Value *cond, const ir::Expr &a, const ir::Expr &b);

  llvm::AllocaInst *slot(const std::string &name) const;

  ModuleState &ms_;
  const ir::Function &fn_;
  llvm::Function *out_;
  llvm::IRBuilder<> builder_;
  Emitter emitter_;
  std::map<std::string, llvm::AllocaInst *> slots_;
  std::vector<Loop> loops_;
  llvm::Value *error_flag_ = nullptr;  // the last parameter when ms_.can_raise
};

}  // namespace ufjit::codegen::lower
