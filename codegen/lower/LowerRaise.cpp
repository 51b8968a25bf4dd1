// Raises in kernels (ir::Raise; LANGUAGE.md section 5, "Errors in kernels").
// requires: ms_.can_raise (the function's last parameter is the error flag, a
// pointer to a uint32 the runtime zeroed, or null where no one reads it:
// method entries and device functions); guarantees: the first raise of a
// call stores its site (>= 1) in the flag with one compare-and-swap (later
// raises leave it), and the raising function returns at once; after a call
// of a function that can raise, the caller returns too when the flag is set,
// so a raise anywhere ends its element. In a checked kernel on the CPU the
// flag is a KernelCheckRecord's first field, and the raise that stores its
// site also stores its values and its thread's coordinates there.
#include "codegen/kernel/KernelCheck.h"
#include "codegen/lower/LowerFunction.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {

void FunctionLowerer::emit_raised_return() {
  if (part_) {
    leave_part(PartExit::Raised);  // its caller returns
  } else if (region_ != nullptr) {
    end_thread();  // the thread ends; the block's others go on
  } else if (fn_.ret.is_void()) {
    builder_.CreateRetVoid();
  } else {
    builder_.CreateRet(llvm::Constant::getNullValue(out_->getReturnType()));
  }
}

void FunctionLowerer::emit_raise(const ir::Raise &s) {
  internal_assert(error_flag_ != nullptr) << "raise in a module without raise sites";
  internal_assert(s.site > 0) << "raise site not numbered";
  llvm::BasicBlock *store = new_block(emitter_, "raise.store");
  llvm::BasicBlock *done = new_block(emitter_, "raise.return");
  builder_.CreateCondBr(builder_.CreateIsNull(error_flag_), done, store);
  builder_.SetInsertPoint(store);
  llvm::Value *exchange = builder_.CreateAtomicCmpXchg(
      error_flag_, builder_.getInt32(0), builder_.getInt32(static_cast<uint32_t>(s.site)), llvm::MaybeAlign(4),
      llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  if (ms_.checked_cpu) record_raise(s, builder_.CreateExtractValue(exchange, {1}));
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
  emit_raised_return();
  start_dead_block();
}

void FunctionLowerer::record_raise(const ir::Raise &s, llvm::Value *won) {
  std::vector<llvm::Value *> values;
  for (const ir::Expr &v : s.values) values.push_back(emit(v));
  llvm::BasicBlock *write = new_block(emitter_, "raise.record");
  llvm::BasicBlock *after = new_block(emitter_, "raise.recorded");
  builder_.CreateCondBr(won, write, after);
  builder_.SetInsertPoint(write);
  llvm::Type *i8 = builder_.getInt8Ty();
  for (std::size_t k = 0; k < values.size(); ++k) {
    llvm::Value *at = builder_.CreateConstInBoundsGEP1_64(i8, error_flag_, kCheckValues + 8 * k);
    builder_.CreateAlignedStore(values[k], at, llvm::Align(8));
  }
  // threadIdx then blockIdx, as the context holds them.
  for (std::size_t k = 0; k < 6; ++k) {
    llvm::Value *coordinate = context_field(kCtxThreadIdx + 4 * k, builder_.getInt32Ty());
    llvm::Value *at = builder_.CreateConstInBoundsGEP1_64(i8, error_flag_, kCheckThreadIdx + 4 * k);
    builder_.CreateAlignedStore(coordinate, at, llvm::Align(4));
  }
  builder_.CreateBr(after);
  builder_.SetInsertPoint(after);
}

void FunctionLowerer::emit_raise_check() {
  llvm::BasicBlock *check = new_block(emitter_, "raise.check");
  llvm::BasicBlock *raised = new_block(emitter_, "raise.raised");
  llvm::BasicBlock *next = new_block(emitter_, "raise.next");
  builder_.CreateCondBr(builder_.CreateIsNull(error_flag_), next, check);
  builder_.SetInsertPoint(check);
  llvm::LoadInst *flag = builder_.CreateAlignedLoad(builder_.getInt32Ty(), error_flag_, llvm::MaybeAlign(4));
  flag->setAtomic(llvm::AtomicOrdering::Monotonic);
  builder_.CreateCondBr(builder_.CreateICmpNE(flag, builder_.getInt32(0)), raised, next);
  builder_.SetInsertPoint(raised);
  emit_raised_return();
  builder_.SetInsertPoint(next);
}

}  // namespace ufjit::codegen::lower
